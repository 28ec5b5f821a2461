// build_inventory builds the template on a thread of its own while it reads the checkpoint. What the user
// is told must not depend on which finishes first: config.json's error comes first, as when it was read
// first; with a sound config, the checkpoint's error.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {
namespace {

// The error build_inventory raises for the directory, or an empty one if it raises none.
Error inventory_error(const TempDir& dir) {
  try {
    build_inventory(locate_local_model(dir.path().string()));
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorKind::Internal, "", "", "no error");
}

TEST(InventoryErrors, ConfigErrorComesBeforeTheCheckpointsAndNeitherIsLost) {
  const std::string truncated_header = std::string("\x40\0\0\0\0\0\0\0", 8) + R"({"w":{"dtype":"F32")";
  {
    TempDir dir;  // both broken: the config is named
    write_file(dir / "config.json", R"({"model_type": "llama", "hidden_size": )");
    write_file(dir / "model.safetensors", truncated_header);
    const Error e = inventory_error(dir);
    EXPECT_EQ(e.kind(), ErrorKind::Malformed);
    EXPECT_NE(std::string(e.what()).find("config.json"), std::string::npos) << e.what();
  }
  {
    TempDir dir;  // a sound config: the checkpoint is named
    write_file(dir / "config.json", tiny_llama_config("2"));
    write_file(dir / "model.safetensors", truncated_header);
    const Error e = inventory_error(dir);
    EXPECT_EQ(e.kind(), ErrorKind::Malformed);
    EXPECT_NE(std::string(e.what()).find("model.safetensors"), std::string::npos) << e.what();
  }
  {
    TempDir dir;  // a config naming no known architecture, over a sound checkpoint: Unsupported, as before
    write_file(dir / "config.json", R"({"model_type": "no-such-family", "architectures": ["NoSuchModel"]})");
    write_safetensors(dir / "model.safetensors", {{"w", DType::F32, {2}, {}}});
    EXPECT_EQ(inventory_error(dir).kind(), ErrorKind::Unsupported);
  }
}

}  // namespace
}  // namespace ma::test

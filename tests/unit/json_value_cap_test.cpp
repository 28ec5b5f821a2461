// Limits::max_values bounds a DOM by its values as well as its bytes: a value costs about 100 bytes in
// memory, so a config of 8 million one-byte array items (16 MB, under the byte cap) took 860 MB. Config files
// are read with the cap (ModelConfig::kMaxJsonValues); documents parsed without it are unbounded as before.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/json.h"
#include "model/config.h"

namespace ma {
namespace {

json::Document parse_capped(const std::string& text, uint64_t max_values) {
  json::Limits limits;
  limits.max_values = max_values;
  return json::Document::parse(text, "capped.json", limits);
}

// The Error a capped parse raises; fails the test when it parses.
Error cap_error(const std::string& text, uint64_t max_values) {
  try {
    parse_capped(text, max_values);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "parsed: " << text;
  return Error(ErrorKind::Internal, "", "", "");
}

// Every value counts once: the root, each container, each item and each member's value (not its key).
TEST(JsonValueCap, CountsEveryValue) {
  EXPECT_EQ(parse_capped("[1,2]", 3).root().items().size(), 2u);                       // [ ], 1, 2
  EXPECT_EQ(parse_capped(R"({"a":1,"b":"x"})", 3).root().members().size(), 2u);        // { }, 1, "x"
  EXPECT_EQ(parse_capped(R"({"a":[null]})", 3).root().find("a")->items().size(), 1u);  // { }, [ ], null
  for (const char* over : {"[1,2,3]", R"({"a":1,"b":2,"c":3})", R"({"a":[[]],"b":0})", R"([[[[]]]])"}) {
    const Error e = cap_error(over, 3);
    EXPECT_EQ(e.kind(), ErrorKind::Limit) << over;
    EXPECT_EQ(e.exit_code(), 5);
    EXPECT_EQ(e.file(), "capped.json");
    EXPECT_NE(std::string(e.what()).find("cap of 3"), std::string::npos) << e.what();
  }
}

TEST(JsonValueCap, UncappedByDefault) {
  std::string big = "[0";
  for (int i = 1; i < 20'000; ++i) big += ",0";
  big += "]";
  EXPECT_EQ(json::Document::parse(big, "big.json").root().items().size(), 20'000u);
}

// A config of more values than the cap is refused naming the file and the cap, before the DOM grows past it.
TEST(JsonValueCap, ConfigFilesAreCapped) {
  std::string text = R"({"model_type":"llama","junk":[0)";
  text.reserve(2 * ModelConfig::kMaxJsonValues + 64);
  for (uint64_t i = 1; i < ModelConfig::kMaxJsonValues; ++i) text += ",0";
  text += "]}";
  try {
    ModelConfig::parse(text, "m/config.json");
    ADD_FAILURE() << "a config of over a million values was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
    EXPECT_EQ(e.file(), "m/config.json");
    EXPECT_NE(std::string(e.what()).find("cap of " + std::to_string(ModelConfig::kMaxJsonValues)),
              std::string::npos)
        << e.what();
  }
  // Far above real configs: ImageNet-21k's 21,843 labels as id2label and label2id are about 44,000 values.
  std::string labels = R"({"model_type":"vit","id2label":{)";
  std::string inverse;
  for (int i = 0; i < 21'843; ++i) {
    labels += (i ? ",\"" : "\"") + std::to_string(i) + "\":\"c" + std::to_string(i) + "\"";
    inverse += (i ? ",\"c" : "\"c") + std::to_string(i) + "\":" + std::to_string(i);
  }
  labels += R"(},"label2id":{)" + inverse + "}}";
  EXPECT_EQ(ModelConfig::parse(labels, "m/config.json").raw("id2label")->members().size(), 21'843u);
}

}  // namespace
}  // namespace ma

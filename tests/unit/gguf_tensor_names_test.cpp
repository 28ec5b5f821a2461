// GGUF tensor names are llama.cpp's (llama-arch.cpp's LLM_TENSOR_NAMES): a fixed vocabulary that every
// converter writes. The pinned llama.cpp build (node-llama-cpp 3.21.1's libllama) holds that table as the
// format strings "blk.%d.attn_q" and so on; every per-layer name in it must land in a block of its own, so a
// GGUF of any architecture llama.cpp runs reads with nothing in "other".
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "llama_oracle_support.h"
#include "model/tensor_placement.h"

namespace ma::test {
namespace {

// The per-layer tensor names a shared library holds: its NUL-terminated strings "blk.%d.NAME" whose NAME
// has no second index (per-expert names, "blk.%d.ffn_down.%d", are the legacy unmerged experts').
std::set<std::string> layer_tensor_names_in(const std::filesystem::path& library) {
  std::ifstream in(library, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string prefix = "blk.%d.";
  std::set<std::string> names;
  for (size_t at = bytes.find(prefix); at != std::string::npos; at = bytes.find(prefix, at + 1)) {
    if (at > 0 && bytes[at - 1] != '\0') continue;  // inside a longer string ("enc.blk.%d.")
    const size_t end = bytes.find('\0', at);
    if (end == std::string::npos) break;
    const std::string name = bytes.substr(at + prefix.size(), end - at - prefix.size());
    if (!name.empty() && name.find('%') == std::string::npos) names.insert(name);
  }
  return names;
}

TEST(GgufTensorNames, EveryLayerNameLlamaCppKnowsHasABlock) {
  std::filesystem::path library;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(llama_lib_dir(), ec))
    if (e.path().filename().string().starts_with("libllama.")) library = e.path();
  if (library.empty())
    GTEST_SKIP() << "llama.cpp's libraries are not installed (scripts/install-peer.sh): " << llama_lib_dir();
  const std::set<std::string> names = layer_tensor_names_in(library);
  ASSERT_GT(names.size(), 150u) << "llama.cpp's tensor-name table not found in " << library;
  for (const std::string& name : names) {
    const TensorPlacement p = place_tensor("blk.7." + name + ".weight");
    EXPECT_NE(p.block, Block::Other) << "blk.%d." << name;
    EXPECT_EQ(p.layer, 7u) << name;
  }
}

}  // namespace
}  // namespace ma::test

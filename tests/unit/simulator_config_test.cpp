// A simulator config read back as a model (perf --config, serve --config): each family its classes
// describe, rebuilt with the parameters derived by hand; what cannot be rebuilt refused, naming the entry.
// The round trip build-config -> --config on real models: e2e/build_config_cli_test.cpp.
#include "model/simulator_config.h"

#include <gtest/gtest.h>

#include "analysis/parameter_counts.h"
#include "core/error.h"
#include "core/json.h"
#include "model/inventory.h"

namespace ma::test {
namespace {

std::string config(const std::string& layer_types, uint64_t layers = 2) {
  return R"({"model_id":"toy","hf_model_id":"toy/model","name":"toy","hidden_size":64,"num_layers":)" +
         std::to_string(layers) + R"(,"vocab_size":100,"total_params":0,"layer_types":[)" + layer_types +
         "]}";
}

const std::string kGqa =
    R"({"name":"attention","class":"GroupedQueryAttentionLayer","count":2,"supported":true,"specs":)"
    R"({"layer_idx":0,"hidden_size":64,"num_heads":4,"num_kv_heads":2,"head_dim":16,"parameter_count":0}})";
const std::string kMlp = R"({"name":"mlp","class":"GatedMLPLayer","count":2,"supported":true,"specs":)"
                         R"({"layer_idx":0,"hidden_size":64,"intermediate_size":128,"parameter_count":0}})";
const std::string kMoe =
    R"({"name":"moe","class":"MoELayer","count":2,"supported":true,"specs":{"layer_idx":0,"hidden_size":64,)"
    R"("intermediate_size":32,"num_experts":8,"top_k":2,"num_shared_experts":2,"num_projections":3,)"
    R"("has_bias":false,"parameter_count":0}})";
const std::string kHead =
    R"({"name":"lm_head","class":"LMHeadLayer","count":1,"supported":false,"specs":)"
    R"({"vocab_size":100,"hidden_size":64,"parameter_count":6400},"gap_report":"gaps/lm_head.md"})";

uint64_t rebuilt_parameters(const SimulatorModel& m) {
  return count_parameters(inventory_from_config_text(m.hf_config_json, "toy")).total;
}

// Llama: per layer q 64x64, k and v 64x32, o 64x64 (12,288), gate/up/down 3 x 64 x 128 (24,576), two norms
// (128); the embedding 100 x 64, the final norm 64, and an untied head 100 x 64 when the config lists one.
TEST(SimulatorConfig, DenseLayersRebuildALlamaWithItsExactParameters) {
  const SimulatorModel tied = read_simulator_config(config(kGqa + "," + kMlp), "toy.json");
  EXPECT_EQ(tied.family, "llama");
  EXPECT_EQ(tied.name, "toy/model");
  EXPECT_EQ(rebuilt_parameters(tied), 2 * (12'288 + 24'576 + 128) + 6'400 + 64);
  const SimulatorModel untied = read_simulator_config(config(kGqa + "," + kMlp + "," + kHead), "toy.json");
  EXPECT_EQ(rebuilt_parameters(untied), rebuilt_parameters(tied) + 6'400);
}

// Qwen2-MoE: q/k/v carry biases (64 + 32 + 32); the router 8 x 64, eight experts of 3 x 64 x 32, the two
// shared experts as one of width 64 (3 x 64 x 64) and its gate 1 x 64.
TEST(SimulatorConfig, SharedExpertsRebuildAQwen2Moe) {
  const SimulatorModel m = read_simulator_config(config(kGqa + "," + kMoe), "toy.json");
  EXPECT_EQ(m.family, "qwen2_moe");
  const uint64_t layer = (12'288 + 128) + 128 + 512 + 8 * 3 * 64 * 32 + 3 * 64 * 64 + 64;
  EXPECT_EQ(rebuilt_parameters(m), 2 * layer + 6'400 + 64);
}

// gpt-oss: windowed and full layers with sinks alternate as their counts and first indices say.
TEST(SimulatorConfig, SinksAndWindowsRebuildGptOssLayerByLayer) {
  auto attention = [](const char* name, int first, const char* window) {
    return std::string(R"({"name":")") + name +
           R"(","class":"SlidingWindowAttentionLayer","count":2,"supported":true,"specs":{"layer_idx":)" +
           std::to_string(first) +
           R"(,"hidden_size":64,"num_query_heads":4,"num_kv_heads":2,"head_dim":16,"sliding_window":)" +
           window + R"(,"num_sinks":4,"has_bias":true,"parameter_count":0}})";
  };
  std::string moe = kMoe;
  moe.replace(moe.find("\"num_shared_experts\":2"), 22, "\"num_shared_experts\":0");
  moe.replace(moe.find("\"count\":2"), 9, "\"count\":4");
  const SimulatorModel m = read_simulator_config(
      config(attention("sliding", 0, "128") + "," + attention("full", 1, "null") + "," + moe, 4), "toy.json");
  EXPECT_EQ(m.family, "gpt_oss");
  const json::Document d = json::Document::parse(m.hf_config_json, "rebuilt");
  std::vector<std::string> kinds;
  for (const json::Value& k : d.root().find("layer_types")->items()) kinds.emplace_back(k.as_string());
  EXPECT_EQ(kinds, (std::vector<std::string>{"sliding_attention", "full_attention", "sliding_attention",
                                             "full_attention"}));
  EXPECT_EQ(*d.root().find("sliding_window")->as_uint(), 128u);
}

TEST(SimulatorConfig, WhatCannotBeRebuiltIsRefusedNamingTheEntry) {
  auto refused = [](const std::string& text, ErrorKind kind, const std::string& field) {
    try {
      read_simulator_config(text, "toy.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("toy.json"), std::string::npos) << e.what();
    }
  };
  const std::string mla =
      R"({"name":"mla","class":"MLAAttention","count":2,"supported":false,"specs":{"parameter_count":0}})";
  refused(config(mla + "," + kMlp), ErrorKind::Unsupported, "layer_types[0]");
  refused(config(kGqa + "," + kMlp, 3), ErrorKind::Malformed, "layer_types");  // 2 attention layers of 3
  std::string one_moe = kMoe;
  one_moe.replace(one_moe.find("\"count\":2"), 9, "\"count\":1");
  std::string one_mlp = kMlp;
  one_mlp.replace(one_mlp.find("\"count\":2"), 9, "\"count\":1");
  refused(config(kGqa + "," + one_mlp + "," + one_moe), ErrorKind::Unsupported, "layer_types");
  std::string no_heads = kGqa;
  no_heads.replace(no_heads.find("\"num_heads\":4"), 13, "\"num_heads\":-4");
  refused(config(no_heads + "," + kMlp), ErrorKind::Malformed, "layer_types[0].specs.num_heads");
  std::string huge = kGqa;
  huge.replace(huge.find("\"count\":2"), 9, "\"count\":18446744073709551615");
  refused(config(huge + "," + kMlp), ErrorKind::Malformed, "layer_types[0].count");
  refused("[1, 2]", ErrorKind::Malformed, "toy.json");
  refused(config(""), ErrorKind::Malformed, "layer_types");
}

}  // namespace
}  // namespace ma::test

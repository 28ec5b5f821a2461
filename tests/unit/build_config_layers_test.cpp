// `build-config`'s entries where the model's structure decides them: each stack's own position table, a
// shared expert as a multiple of the routed width, multi-token-prediction layers outside the total, and a
// masked-LM head's vocabulary and tied decoder. Expected values come from the configs' numbers and from
// transformers' parameter lists (../shared/data/oracle), never from the tool's output.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "analysis/builder/class_parameters.h"
#include "analysis/builder/gap_analysis.h"
#include "analysis/builder/simulator_config.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report/gap_report_markdown.h"
#include "simulator_config_support.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace ma::test::build_config_layers {
namespace {

#define LAYERS_OR_SKIP(var, subdir, name)                        \
  auto data_ = shared_data();                                    \
  if (!data_) GTEST_SKIP() << "../shared/data is not available"; \
  auto var = build_simulator_config_of(*data_ / (subdir) / (name))

uint64_t spec_count(const LayerTypeEntry& e, const std::string& name) {
  const FactValue* v = find_fact(e.specs, name);
  EXPECT_TRUE(v && std::holds_alternative<uint64_t>(*v)) << e.name << "." << name;
  return v && std::holds_alternative<uint64_t>(*v) ? std::get<uint64_t>(*v) : 0;
}

bool spec_is(const LayerTypeEntry& e, const std::string& name, bool value) {
  const FactValue* v = find_fact(e.specs, name);
  return v && *v == FactValue(value);
}

// The entries a reader of the file sums to total_params: all but those marked outside it.
uint64_t sum_in_total(const SimulatorConfig& c) {
  uint64_t sum = 0;
  for (const LayerTypeEntry& e : c.layer_types)
    if (!spec_is(e, "counted_in_total_params", false)) sum += e.count * e.parameter_count;
  return sum;
}

json::Document oracle_of(const std::string& name) {
  return parse_json_file(*shared_data() / "oracle" / (name + ".json"));
}

// transformers' parameters (the oracle's "params": name and shape) whose names start with `prefix`, summed.
uint64_t oracle_parameters_under(const std::string& oracle, const std::string& prefix) {
  const json::Document d = oracle_of(oracle);
  uint64_t n = 0;
  for (const json::Value& p : d.root().find("params")->items()) {
    if (!p.items()[0].as_string().starts_with(prefix)) continue;
    uint64_t elements = 1;
    for (const json::Value& dim : p.items()[1].items()) elements *= *dim.as_uint();
    n += elements;
  }
  return n;
}

// The [rows, columns] of the oracle tensor whose name ends with `suffix`.
std::pair<uint64_t, uint64_t> oracle_matrix(const std::string& oracle, const std::string& suffix) {
  const json::Document d = oracle_of(oracle);
  for (const json::Value& p : d.root().find("params")->items())
    if (p.items()[0].as_string().ends_with(suffix))
      return {*p.items()[1].items()[0].as_uint(), *p.items()[1].items()[1].as_uint()};
  ADD_FAILURE() << oracle << " has no " << suffix;
  return {0, 0};
}

uint64_t oracle_total(const std::string& oracle) {
  return *oracle_of(oracle).root().find("num_params")->as_uint();
}

// A config.json number (the model's own statement), at the top level or in text_config.
uint64_t config_number(const fs::path& dir, const std::string& key) {
  const json::Document d = parse_json_file(dir / "config.json");
  const json::Value* v = d.root().find(key);
  if (!v)
    if (const json::Value* text = d.root().find("text_config")) v = text->find(key);
  EXPECT_TRUE(v && v->as_uint()) << dir << " " << key;
  return v && v->as_uint() ? *v->as_uint() : 0;
}

// BART's and Whisper's encoder and decoder each hold a position table: two EmbeddingLayers, each of its own
// rows (Whisper: 1,500 audio frames and 448 text positions), where one merged entry claimed a vocab_size of
// 1,500 for both and was a gap.
TEST(BuildConfigLayers, EncoderAndDecoderPositionTablesAreTwoEmbeddingLayers) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  struct Case {
    const char* dir;
    const char* encoder_table;
    const char* decoder_table;
  };
  for (const Case& k :
       {Case{"openai__whisper-base", "encoder.embed_positions.weight", "decoder.embed_positions.weight"},
        Case{"facebook__bart-base", "encoder.embed_positions.weight", "decoder.embed_positions.weight"}}) {
    auto b = build_simulator_config_of(*data / "hf-configs" / k.dir);
    EXPECT_EQ(b->cfg.parameters.total, oracle_total(k.dir)) << k.dir;
    EXPECT_EQ(sum_in_total(b->cfg), b->cfg.parameters.total) << k.dir;
    for (const auto& [name, table] :
         {std::pair<std::string, const char*>{"encoder_position_embedding", k.encoder_table},
          std::pair<std::string, const char*>{"position_embedding", k.decoder_table}}) {
      const auto [rows, cols] = oracle_matrix(k.dir, table);
      const LayerTypeEntry& e = simulator_entry(b->cfg, name);
      EXPECT_EQ(e.class_name, "EmbeddingLayer") << k.dir << " " << name;
      EXPECT_TRUE(e.supported) << k.dir << " " << name << ": " << e.gap_reason;
      EXPECT_EQ(e.count, 1u) << k.dir << " " << name;
      EXPECT_EQ(spec_count(e, "vocab_size"), rows) << k.dir << " " << name;
      EXPECT_EQ(spec_count(e, "hidden_size"), cols) << k.dir << " " << name;
      EXPECT_EQ(e.parameter_count, rows * cols) << k.dir << " " << name;
    }
  }
  // Whisper's two tables differ, as its config says: max_source_positions and max_target_positions.
  const fs::path whisper = *data / "hf-configs" / "openai__whisper-base";
  auto w = build_simulator_config_of(whisper);
  EXPECT_EQ(spec_count(simulator_entry(w->cfg, "encoder_position_embedding"), "vocab_size"),
            config_number(whisper, "max_source_positions"));
  EXPECT_EQ(spec_count(simulator_entry(w->cfg, "position_embedding"), "vocab_size"),
            config_number(whisper, "max_target_positions"));
}

// One shared MLP k times as wide as a routed expert, with as many projections, is what MoELayer builds from
// num_shared_experts = k (DeepSeek-V2-Lite's two shared experts fused into one MLP of 2 x 1,408 already
// were): Qwen1.5-MoE's 5,632 = 4 x 1,408 and Nemotron-3-Nano's 3,712 = 2 x 1,856, both supported, and the
// class's arithmetic is the layer's parameters in transformers (the oracle's).
TEST(BuildConfigLayers, ASharedExpertKTimesAsWideIsKSharedExperts) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  const fs::path qwen = *data / "synthetic-configs" / "qwen1.5-moe-a2.7b-shape";
  auto q = build_simulator_config_of(qwen);
  const LayerTypeEntry& qmoe = simulator_entry(q->cfg, "moe");
  const uint64_t h = config_number(qwen, "hidden_size"), i = config_number(qwen, "moe_intermediate_size"),
                 experts = config_number(qwen, "num_experts");
  const uint64_t k = config_number(qwen, "shared_expert_intermediate_size") / i;
  EXPECT_EQ(k, 4u);
  EXPECT_TRUE(qmoe.supported) << qmoe.gap_reason;
  EXPECT_EQ(spec_count(qmoe, "num_shared_experts"), k);
  // Experts and shared experts, gate/up/down each; the router; the 1-wide shared_expert_gate (a small term
  // the class has no argument for, kept in parameter_count).
  const uint64_t by_hand = (experts + k) * 3 * h * i + h * experts + h;
  EXPECT_EQ(by_hand, 553'773'056u);
  EXPECT_EQ(qmoe.parameter_count, by_hand);
  EXPECT_EQ(qmoe.parameter_count,
            oracle_parameters_under("synthetic__qwen1.5-moe-a2.7b-shape", "model.layers.0.mlp."));
  EXPECT_EQ(*class_parameters("MoELayer", qmoe.specs) + h, qmoe.parameter_count);

  const std::string nano_dir = "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16";
  const fs::path nano = *data / "hf-configs" / nano_dir;
  auto n = build_simulator_config_of(nano);
  const LayerTypeEntry& nmoe = simulator_entry(n->cfg, "moe");
  const uint64_t nh = config_number(nano, "hidden_size"), ni = config_number(nano, "moe_intermediate_size"),
                 ne = config_number(nano, "n_routed_experts");
  const uint64_t nk = config_number(nano, "moe_shared_expert_intermediate_size") / ni;
  EXPECT_EQ(nk, 2u);
  EXPECT_TRUE(nmoe.supported) << nmoe.gap_reason;
  EXPECT_EQ(spec_count(nmoe, "num_shared_experts"), nk);
  EXPECT_EQ(spec_count(nmoe, "num_projections"), 2u);  // relu²: up and down
  const uint64_t nano_by_hand = (ne + nk) * 2 * nh * ni + nh * ne;
  EXPECT_EQ(nano_by_hand, 1'297'465'344u);
  EXPECT_EQ(nmoe.parameter_count, nano_by_hand);
  EXPECT_EQ(nmoe.parameter_count, oracle_parameters_under(nano_dir, "model.layers.1.mixer."));
  EXPECT_EQ(*class_parameters("MoELayer", nmoe.specs), nmoe.parameter_count);

  auto lite = build_simulator_config_of(*data / "synthetic-configs" / "deepseek-v2-lite-shape");
  EXPECT_EQ(spec_count(simulator_entry(lite->cfg, "moe"), "num_shared_experts"),
            config_number(*data / "synthetic-configs" / "deepseek-v2-lite-shape", "n_shared_experts"));
}

// A shared MLP of no whole multiple of the routed width (2.5 x 32) is nothing MoELayer builds: a gap, with
// the config's count; at 3 x 32 it is three shared experts. Hand-written configs, no shared data needed.
TEST(BuildConfigLayers, ASharedExpertOfNoWholeMultipleWidthStaysAGap) {
  TempDir dir;
  auto moe_of = [&](const std::string& name, uint64_t shared_width) {
    fs::create_directories(dir / name);
    write_file(
        dir / name / "config.json",
        R"({"model_type":"qwen2_moe","architectures":["Qwen2MoeForCausalLM"],"hidden_size":64,)"
        R"("intermediate_size":128,"moe_intermediate_size":32,"shared_expert_intermediate_size":)" +
            std::to_string(shared_width) +
            R"(,"num_experts":4,"num_experts_per_tok":2,"num_hidden_layers":2,"num_attention_heads":4,)"
            R"("num_key_value_heads":2,"vocab_size":100})");
    return build_simulator_config_of(dir / name);
  };
  auto odd = moe_of("odd", 80);
  const LayerTypeEntry& gap = simulator_entry(odd->cfg, "moe");
  EXPECT_FALSE(gap.supported);
  EXPECT_EQ(spec_count(gap, "num_shared_experts"), 1u);
  EXPECT_EQ(spec_count(gap, "shared_intermediate_size"), 80u);
  EXPECT_FALSE(gap.gap_reason.empty());
  auto triple = moe_of("triple", 96);
  const LayerTypeEntry& moe = simulator_entry(triple->cfg, "moe");
  EXPECT_TRUE(moe.supported) << moe.gap_reason;
  EXPECT_EQ(spec_count(moe, "num_shared_experts"), 3u);
  // (4 experts + 3) x gate/up/down of 64 x 32, the router 64 x 4, the shared gate 1 x 64.
  EXPECT_EQ(moe.parameter_count, (4u + 3) * 3 * 64 * 32 + 64 * 4 + 64);
}

// mantile.md: MTP modules have no class, "so a generated config marks them supported: false with a gap
// report". DeepSeek-V3's layer 61 (num_nextn_predict_layers 1) is such an entry, with its parameters by hand
// from the config, outside total_params (transformers builds none of it; the total stays the oracle's).
TEST(BuildConfigLayers, DeepSeekMtpLayerIsAnUnsupportedEntryOutsideTheTotal) {
  LAYERS_OR_SKIP(b, "hf-configs", "deepseek-ai__DeepSeek-V3");
  const SimulatorConfig& c = b->cfg;
  EXPECT_EQ(c.parameters.total, oracle_total("deepseek-ai__DeepSeek-V3"));
  EXPECT_EQ(sum_in_total(c), c.parameters.total);
  const LayerTypeEntry& mtp = simulator_entry(c, "mtp");
  EXPECT_EQ(mtp.class_name, "MTPLayer");
  EXPECT_FALSE(mtp.supported);
  EXPECT_EQ(mtp.count,
            config_number(*data_ / "hf-configs" / "deepseek-ai__DeepSeek-V3", "num_nextn_predict_layers"));
  EXPECT_TRUE(spec_is(mtp, "counted_in_total_params", false));
  // hidden 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128; 256 experts of 2048, one
  // shared; vocabulary 129,280. MLA with its two latent norms; router and its bias; experts; shared expert;
  // two layer norms; the MTP module's embedding, enorm, hnorm, eh_proj (2 x 7168 -> 7168), head norm, head.
  constexpr uint64_t kMla =
      1536 * 7168 + 1536 + 128 * 192 * 1536 + 576 * 7168 + 512 + 128 * 256 * 512 + 7168 * 128 * 128;
  constexpr uint64_t kExpert = 3ull * 2048 * 7168;
  constexpr uint64_t kVocab = 129280ull * 7168;
  constexpr uint64_t kMtp = kMla + 256 * 7168 + 256 + 256 * kExpert + kExpert + 2 * 7168 + kVocab + 2 * 7168 +
                            7168ull * 14336 + 7168 + kVocab;
  static_assert(kMtp == 13'463'426'304);
  EXPECT_EQ(mtp.parameter_count, kMtp);
  // A token multiplies the MLA's matrices, the router, 8 of 256 experts, the shared expert, eh_proj and the
  // head; the embedding is a lookup.
  const GapAnalysis gap = analyse_gap(c, mtp);
  EXPECT_EQ(gap.linear_flops_per_token,
            2 * ((kMla - 1536 - 512) + 256 * 7168 + 8 * kExpert + kExpert + 7168ull * 14336 + kVocab));
  const std::string md = render_gap_report_markdown(gap);
  for (const char* part : {"eh_proj", "shared_head.head", "counted_in_total_params"})
    EXPECT_NE(md.find(part), std::string::npos) << part;
  bool noted = false;
  for (const std::string& n : c.notes)
    noted = noted || n.starts_with("listed as an unsupported entry: model.layers.61.");
  EXPECT_TRUE(noted);

  auto glm = build_simulator_config_of(*data_ / "hf-configs" / "zai-org__GLM-4.5");
  EXPECT_EQ(glm->cfg.parameters.total, oracle_total("zai-org__GLM-4.5"));
  EXPECT_EQ(sum_in_total(glm->cfg), glm->cfg.parameters.total);
  const LayerTypeEntry& glm_mtp = simulator_entry(glm->cfg, "mtp");
  EXPECT_FALSE(glm_mtp.supported);
  EXPECT_TRUE(spec_is(glm_mtp, "counted_in_total_params", false));
  EXPECT_EQ(glm_mtp.count,
            config_number(*data_ / "hf-configs" / "zai-org__GLM-4.5", "num_nextn_predict_layers"));
}

// Qwen3.5 declares text_config.mtp_num_hidden_layers, whose tensors the template does not build: the entry
// says how many layers and that their parameters are unknown here (0, flagged), never an invented count. The
// Qwen3-Next config here declares no MTP key, so it gets no entry.
TEST(BuildConfigLayers, MtpLayersTheTemplateLacksAreCountedFromTheConfig) {
  LAYERS_OR_SKIP(b, "hf-configs", "Qwen__Qwen3.5-27B");
  EXPECT_EQ(b->cfg.parameters.total, oracle_total("Qwen__Qwen3.5-27B"));
  EXPECT_EQ(sum_in_total(b->cfg), b->cfg.parameters.total);
  const LayerTypeEntry& mtp = simulator_entry(b->cfg, "mtp");
  EXPECT_EQ(mtp.count, config_number(*data_ / "hf-configs" / "Qwen__Qwen3.5-27B", "mtp_num_hidden_layers"));
  EXPECT_FALSE(mtp.supported);
  EXPECT_TRUE(spec_is(mtp, "counted_in_total_params", false));
  EXPECT_TRUE(spec_is(mtp, "parameter_count_known", false));
  EXPECT_EQ(mtp.parameter_count, 0u);
  EXPECT_NE(mtp.gap_reason.find("mtp_num_hidden_layers"), std::string::npos) << mtp.gap_reason;
  auto next = build_simulator_config_of(*data_ / "hf-configs" / "Qwen__Qwen3-Next-80B-A3B-Thinking");
  EXPECT_FALSE(has_simulator_entry(next->cfg, "mtp"));
}

// A masked-LM head spans the vocabulary (config vocab_size: BERT 30,522, RoBERTa 50,265), not its hidden x
// hidden transform; a token multiplies the transform and the decoder, which is tied to the word embeddings
// and so no tensor of the head's own: 2 x hidden^2 + 2 x vocab x hidden FLOPs. An untied head is counted
// once.
TEST(BuildConfigLayers, MaskedLmHeadsSpanTheVocabularyAndMultiplyByTheTiedDecoder) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  for (const fs::path& dir : {*data / "hf-configs" / "google-bert__bert-base-uncased",
                              *data / "hf-configs" / "FacebookAI__roberta-large",
                              *data / "synthetic-configs" / "distilbert-base-shape"}) {
    auto b = build_simulator_config_of(dir);
    const uint64_t vocab = config_number(dir, "vocab_size");
    const uint64_t hidden = b->cfg.hidden_size;
    const LayerTypeEntry& head = simulator_entry(b->cfg, "lm_head");
    EXPECT_EQ(spec_count(head, "vocab_size"), vocab) << dir;
    EXPECT_EQ(spec_count(head, "hidden_size"), hidden) << dir;
    const GapAnalysis gap = analyse_gap(b->cfg, head);
    EXPECT_EQ(gap.linear_flops_per_token, 2 * hidden * hidden + 2 * vocab * hidden) << dir;
    ASSERT_TRUE(gap.tp_traffic) << dir;
    EXPECT_EQ(gap.tp_traffic->elements_per_token, vocab) << dir;  // the logits' all-gather
  }
  auto llama = build_simulator_config_of(*data / "hf-configs" / "meta-llama__Llama-3.3-70B-Instruct");
  const LayerTypeEntry& untied = simulator_entry(llama->cfg, "lm_head");
  EXPECT_EQ(spec_count(untied, "vocab_size"), 128'256u);
  EXPECT_EQ(analyse_gap(llama->cfg, untied).linear_flops_per_token, 2u * 128'256 * 8'192);
}

}  // namespace
}  // namespace ma::test::build_config_layers

// Our Hugging Face templates against llama.cpp. For each tiny GGUF model that llama.cpp itself wrote and
// loaded (tests/oracle/llama_gguf_oracle.py), and whose architecture converts from a transformers family,
// the test writes that family's config.json with the sizes llama.cpp reported (hidden size, layers, heads,
// K/V heads, head width, MLP and expert widths, vocabulary, tied or not) and builds our template from it,
// as for a config.json a user points at. llama.cpp refuses any tensor whose shape its hyperparameters do
// not make, so its parameter count is that of the model those sizes describe: our template's must be the
// same. This checks the templates of families that have no transformers oracle in ../shared/data against
// an independent implementation; the families that have one are checked here too.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parameter_counts.h"
#include "formats/model_files.h"
#include "llama_oracle_reports.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::LlamaReport;

// A llama.cpp architecture and the transformers family its converter reads: the config's model_type and
// class, and the fields that decide tensors llama.cpp's sizes do not state (biases, norms, experts' layout),
// as the oracle model's writer (tests/oracle/llama_oracle_models.py) stores them. In `extra`, {E} stands
// for the routed experts, {K} the experts used per token, {W} an expert's width, {SW} the shared experts'
// width together and {S} their count, {D} the dense layers before the first routed one, {LT} the layer
// types (full_attention where llama.cpp logged K/V heads, else conv), {ssm_*} the state-space size logged
// under that name, {HEADS} the query heads of each layer, {SLT} the layer types by where llama.cpp slides a
// window (sliding_attention, else full_attention) and {SWA} that window, {MLT} the MLP types (dense for the
// {D} leading layers, then sparse): what llama.cpp's tensors and log say.
struct Twin {
  std::string_view gguf_arch, model_type, architecture, extra;
  // transformers parameters per layer that llama.cpp reads as metadata instead of tensors (Apertus' xIELU
  // alpha_p and alpha_n, in its xielu.* arrays).
  uint64_t per_layer_metadata_parameters = 0;
  // The router's score bias (exp_probs_b) is a buffer to transformers, a tensor to llama.cpp (dots.llm1's
  // e_score_correction_bias, as DeepSeek-V3's; LFM2-MoE's expert_bias); ERNIE 4.5 makes it a parameter.
  bool score_bias_is_buffer = false;
};

constexpr Twin kTwins[] = {
    {"llama", "llama", "LlamaForCausalLM", ""},
    {"qwen2", "qwen2", "Qwen2ForCausalLM", ""},
    {"qwen3", "qwen3", "Qwen3ForCausalLM", ""},
    {"gemma2", "gemma2", "Gemma2ForCausalLM", ""},
    {"gemma3", "gemma3_text", "Gemma3ForCausalLM", ""},
    {"phi3", "phi3", "Phi3ForCausalLM", ""},
    {"olmo2", "olmo2", "Olmo2ForCausalLM", ""},
    {"starcoder2", "starcoder2", "Starcoder2ForCausalLM", R"("use_bias": true)"},
    {"command-r", "cohere", "CohereForCausalLM", R"("use_qk_norm": false)"},
    {"cohere2", "cohere2", "Cohere2ForCausalLM", ""},
    {"smollm3", "smollm3", "SmolLM3ForCausalLM", ""},
    {"granite", "granite", "GraniteForCausalLM", ""},
    {"olmo", "olmo", "OlmoForCausalLM", ""},
    {"glm4", "glm4", "Glm4ForCausalLM", R"("attention_bias": true, "partial_rotary_factor": 0.5)"},
    {"chatglm", "glm", "GlmForCausalLM", R"("attention_bias": true, "partial_rotary_factor": 0.5)"},
    {"exaone4", "exaone4", "Exaone4ForCausalLM", ""},
    {"ernie4_5", "ernie4_5", "Ernie4_5ForCausalLM", R"("use_bias": false)"},
    {"seed_oss", "seed_oss", "SeedOssForCausalLM", R"("attention_bias": true, "attention_out_bias": false)"},
    {"arcee", "arcee", "ArceeForCausalLM", ""},
    {"hunyuan-dense", "hunyuan_v1_dense", "HunYuanDenseV1ForCausalLM", ""},
    {"apertus", "apertus", "ApertusForCausalLM", "", 2},
    {"nemotron", "nemotron", "NemotronForCausalLM", ""},
    {"stablelm", "stablelm", "StableLmForCausalLM", R"("use_qkv_bias": true)"},
    {"lfm2", "lfm2", "Lfm2ForCausalLM", R"("layer_types": {LT}, "block_auto_adjust_ff_dim": false)"},
    {"lfm2moe", "lfm2_moe", "Lfm2MoeForCausalLM",
     R"("layer_types": {LT}, "num_experts": {E}, "num_experts_per_tok": {K}, "moe_intermediate_size": {W},
        "num_dense_layers": {D})",
     0, true},
    {"modern-bert", "modernbert", "ModernBertModel", ""},
    {"falcon-h1", "falcon_h1", "FalconH1ForCausalLM",
     R"("mamba_d_ssm": {ssm_d_inner}, "mamba_n_heads": {ssm_dt_rank}, "mamba_d_state": {ssm_d_state},
        "mamba_d_conv": {ssm_d_conv}, "mamba_n_groups": {ssm_n_group}, "mamba_rms_norm": true)"},
    {"qwen3moe", "qwen3_moe", "Qwen3MoeForCausalLM",
     R"("num_experts": {E}, "num_experts_per_tok": {K}, "moe_intermediate_size": {W})"},
    {"qwen2moe", "qwen2_moe", "Qwen2MoeForCausalLM",
     R"("num_experts": {E}, "num_experts_per_tok": {K}, "moe_intermediate_size": {W},
        "shared_expert_intermediate_size": {SW})"},
    {"olmoe", "olmoe", "OlmoeForCausalLM", R"("num_experts": {E}, "num_experts_per_tok": {K})"},
    {"granitemoe", "granitemoe", "GraniteMoeForCausalLM",
     R"("num_local_experts": {E}, "num_experts_per_tok": {K})"},
    {"phimoe", "phimoe", "PhimoeForCausalLM",
     R"("num_local_experts": {E}, "num_experts_per_tok": {K}, "attention_bias": true, "lm_head_bias": true)"},
    {"ernie4_5-moe", "ernie4_5_moe", "Ernie4_5_MoeForCausalLM",
     R"("moe_num_experts": {E}, "moe_k": {K}, "moe_intermediate_size": {W}, "moe_num_shared_experts": {S},
        "moe_layer_start_index": {D})"},
    {"dots1", "dots1", "Dots1ForCausalLM",
     R"("n_routed_experts": {E}, "num_experts_per_tok": {K}, "moe_intermediate_size": {W},
        "n_shared_experts": {S}, "first_k_dense_replace": {D})",
     0, true},
    {"laguna", "laguna", "LagunaForCausalLM",
     R"("num_attention_heads_per_layer": {HEADS}, "layer_types": {SLT}, "sliding_window": {SWA},
        "num_experts": {E}, "num_experts_per_tok": {K}, "moe_intermediate_size": {W},
        "shared_expert_intermediate_size": {SW}, "mlp_layer_types": {MLT})"},
    {"hunyuan-moe", "hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM", R"("num_experts": {E}, "moe_topk": {K})"},
    {"afmoe", "afmoe", "AfmoeForCausalLM",
     R"("layer_types": {SLT}, "sliding_window": {SWA}, "num_experts": {E}, "num_experts_per_tok": {K},
        "moe_intermediate_size": {W}, "num_shared_experts": {S}, "num_dense_layers": {D})"},
};

const Twin* twin_of(std::string_view arch) {
  for (const Twin& t : kTwins)
    if (t.gguf_arch == arch) return &t;
  return nullptr;
}

// The sizes llama.cpp logged as it loaded: one ("n_ff = 512") or one per layer ("n_head_kv = [0, 0, 2, 0]").
std::vector<uint64_t> logged_sizes(const LlamaReport& r, const std::string& key) {
  const auto it = r.print_info.find(key);
  if (it == r.print_info.end()) throw std::runtime_error("llama.cpp logged no " + key);
  std::string_view s = it->second;
  if (s.starts_with('[') && s.ends_with(']')) s = s.substr(1, s.size() - 2);
  std::vector<uint64_t> out;
  while (!s.empty()) {
    while (s.starts_with(' ')) s.remove_prefix(1);
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc()) throw std::runtime_error(key + " is not a size or list of sizes: " + it->second);
    out.push_back(v);
    s.remove_prefix(static_cast<size_t>(end - s.data()));
    if (s.starts_with(','))
      s.remove_prefix(1);
    else if (!s.empty())
      throw std::runtime_error(key + " is not a size or list of sizes: " + it->second);
  }
  return out;
}
// One size: the largest of a per-layer list (K/V heads: 0 marks a layer without attention).
uint64_t logged_size(const LlamaReport& r, const std::string& key) {
  const std::vector<uint64_t> v = logged_sizes(r, key);
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

// A JSON list of `n` strings, the i-th name_of(i).
template <typename NameOf>
std::string json_names(size_t n, NameOf name_of) {
  std::string list;
  for (size_t i = 0; i < n; ++i) list += std::string(i ? ", " : "") + "\"" + name_of(i) + "\"";
  return "[" + list + "]";
}

// Replaces the first `key` in `text` with `value`.
void replace_placeholder(std::string& text, std::string_view key, const std::string& value) {
  if (const size_t at = text.find(key); at != std::string::npos) text.replace(at, key.size(), value);
}

// `extra` with its placeholders replaced by what llama.cpp logged and what its tensors of `r` say: the first
// layer with routed experts (ne: hidden, width, experts) and its shared experts' up projection (ne: hidden,
// width).
std::string with_logged_sizes(std::string extra, const LlamaReport& r) {
  if (extra.find("{LT}") != std::string::npos) {
    const std::vector<uint64_t> kv = logged_sizes(r, "n_head_kv");
    replace_placeholder(extra, "{LT}",
                        json_names(kv.size(), [&](size_t i) { return kv[i] ? "full_attention" : "conv"; }));
  }
  if (extra.find("{HEADS}") != std::string::npos) {
    std::vector<uint64_t> heads = logged_sizes(r, "n_head");
    if (heads.size() == 1) heads.assign(static_cast<size_t>(r.n_layer), heads[0]);
    std::string list;
    for (uint64_t h : heads) list += (list.empty() ? "" : ", ") + std::to_string(h);
    replace_placeholder(extra, "{HEADS}", "[" + list + "]");
  }
  replace_placeholder(extra, "{SLT}", json_names(r.is_swa.size(), [&](size_t i) {
                        return r.is_swa[i] ? "sliding_attention" : "full_attention";
                      }));
  replace_placeholder(extra, "{SWA}", std::to_string(r.n_swa.value_or(0)));
  // {ssm_d_inner} and the like: the size llama.cpp logged under that name.
  for (size_t at; (at = extra.find("{ssm_")) != std::string::npos;) {
    const size_t end = extra.find('}', at);
    extra.replace(at, end + 1 - at, std::to_string(logged_size(r, extra.substr(at + 1, end - at - 1))));
  }
  if (extra.find("{E}") == std::string::npos) return extra;
  int64_t dense = 0;
  while (dense < r.n_layer && !r.tensors.count("blk." + std::to_string(dense) + ".ffn_up_exps.weight"))
    ++dense;
  if (dense == r.n_layer) throw std::runtime_error("no layer with routed experts");
  const std::string p = "blk." + std::to_string(dense) + ".";
  const std::vector<int64_t>& experts = r.tensors.at(p + "ffn_up_exps.weight").ne;
  const auto shared = r.tensors.find(p + "ffn_up_shexp.weight");
  const int64_t shared_width = shared == r.tensors.end() ? 0 : shared->second.ne[1];
  const std::pair<std::string, uint64_t> sizes[] = {{"{E}", static_cast<uint64_t>(experts[2])},
                                                    {"{K}", logged_size(r, "n_expert_used")},
                                                    {"{W}", static_cast<uint64_t>(experts[1])},
                                                    {"{SW}", static_cast<uint64_t>(shared_width)},
                                                    {"{S}", static_cast<uint64_t>(shared_width / experts[1])},
                                                    {"{D}", static_cast<uint64_t>(dense)}};
  replace_placeholder(extra, "{MLT}", json_names(static_cast<size_t>(r.n_layer), [&](size_t i) {
                        return static_cast<int64_t>(i) < dense ? "dense" : "sparse";
                      }));
  for (const auto& [key, value] : sizes)
    for (size_t at; (at = extra.find(key)) != std::string::npos;)
      extra.replace(at, key.size(), std::to_string(value));
  return extra;
}

// The config.json of `twin`'s family with the sizes llama.cpp reported for `r`.
std::string twin_config(const Twin& twin, const LlamaReport& r) {
  const auto field = [](std::string_view key, uint64_t v) {
    return "\"" + std::string(key) + "\": " + std::to_string(v) + ", ";
  };
  std::string c = "{\"model_type\": \"" + std::string(twin.model_type) + "\", \"architectures\": [\"" +
                  std::string(twin.architecture) + "\"], ";
  c += field("vocab_size", static_cast<uint64_t>(r.tensors.at("token_embd.weight").ne[1]));
  c += field("hidden_size", static_cast<uint64_t>(r.n_embd));
  c += field("num_hidden_layers", static_cast<uint64_t>(r.n_layer));
  c += field("num_attention_heads", static_cast<uint64_t>(r.n_head));
  c += field("num_key_value_heads", logged_size(r, "n_head_kv"));
  c += field("head_dim", logged_size(r, "n_embd_head_k"));
  c += field("intermediate_size", logged_size(r, "n_ff"));
  c += field("max_position_embeddings", static_cast<uint64_t>(r.n_ctx_train));
  if (!twin.extra.empty()) c += with_logged_sizes(std::string(twin.extra), r) + ", ";
  // llama.cpp's converter writes no output tensor for a tied head.
  c += std::string("\"tie_word_embeddings\": ") + (r.tensors.count("output.weight") ? "false" : "true") + "}";
  return c;
}

class HfTwinLlamaOracle : public test::LlamaOracleSuite {};

TEST_F(HfTwinLlamaOracle, TemplateParametersAreLlamaCpps) {
  std::set<std::string_view> checked;
  for (const LlamaReport& r : run_.reports) {
    if (r.ftype != "F32") continue;  // a quantized copy has the same parameters
    const Twin* twin = twin_of(r.arch);
    if (!twin) continue;
    SCOPED_TRACE(r.file + " as " + std::string(twin->model_type));
    const test::TempDir dir;
    const std::string config = twin_config(*twin, r);
    SCOPED_TRACE(config);
    std::ofstream(dir.path() / "config.json") << config;
    try {
      const Inventory inv = build_inventory(locate_local_model((dir.path() / "config.json").string()));
      ASSERT_TRUE(inv.model) << "no template";
      uint64_t score_bias = 0;
      for (const auto& [name, t] : r.tensors)
        if (twin->score_bias_is_buffer && name.ends_with(".exp_probs_b.bias")) score_bias += t.ne[0];
      EXPECT_EQ(count_parameters(inv).total, r.n_params - r.rope_factor_elements() - score_bias +
                                                 twin->per_layer_metadata_parameters * r.n_layer);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
    checked.insert(twin->gguf_arch);
  }
  // Every twin was checked: the oracle wrote each of their architectures.
  for (const Twin& t : kTwins) EXPECT_TRUE(checked.count(t.gguf_arch)) << t.gguf_arch;
}

}  // namespace
}  // namespace ma

// GGUF models against llama.cpp itself. The oracle script tests/oracle/llama_gguf_oracle.py has llama.cpp's
// own libraries (the pinned node-llama-cpp build under tests/peer) write tiny models with its gguf API
// (tests/oracle/llama_oracle_models.py: a GQA Llama with rope_freqs and an untied output and a tied
// Qwen3-MoE with 3-D expert tensors, quantized with llama_model_quantize to Q8_0, Q4_0, Q4_K_M, Q6_K, IQ4_XS
// and MXFP4_MOE; and one F32 model of each other architecture it lists), load every file with
// llama_model_load_from_file, and report what llama.cpp made of it: parameters, size, dimensions, metadata
// strings, tensor infos, and the hyperparameters and per-layer window flags its log states. What we read
// from the same file must be the same. Without /usr/bin/python3 (with numpy) or the libraries, or when
// llama.cpp cannot load its own files, the tests skip and say why.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/parameter_counts.h"
#include "core/dtype.h"
#include "core/json.h"
#include "formats/gguf.h"
#include "formats/model_files.h"
#include "io/file_source.h"
#include "llama_oracle_reports.h"
#include "model/family_table.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::LlamaReport;
using test::LlamaTensor;

class GgufLlamaOracle : public test::LlamaOracleSuite {
 protected:
  static fs::path path_of(const LlamaReport& r) { return run_.path_of(r); }
  static Inventory inventory_of(const LlamaReport& r) {
    return build_inventory(locate_local_model(path_of(r).string()));
  }

  static inline const std::vector<LlamaReport>& reports_ = run_.reports;
};

TEST_F(GgufLlamaOracle, EveryRequiredFileWasWrittenAndLoaded) {
  std::set<std::string> files;
  for (const LlamaReport& r : reports_) files.insert(r.file);
  for (const char* arch : {"llama", "qwen3moe"})
    for (const char* ftype : {"F32", "Q8_0", "Q4_0", "Q4_K_M", "Q6_K"})
      EXPECT_TRUE(files.count(std::string(arch) + "-" + ftype + ".gguf")) << arch << " " << ftype;
  for (const char* arch :
       {"llama4",        "t5",         "glm4moe",       "qwen2",        "qwen3",          "qwen2moe",
        "gemma2",        "gemma3",     "cohere2",       "olmo2",        "phi3",           "phi2",
        "gpt2",          "starcoder2", "deepseek2",     "gpt-oss",      "bert",           "mamba",
        "mamba2",        "nemotron_h", "granitehybrid", "jamba",        "falcon-h1",      "smollm3",
        "olmoe",         "granitemoe", "falcon",        "gptneox",      "stablelm",       "bloom",
        "command-r",     "internlm2",  "lfm2",          "mistral3",     "phimoe",         "deepseek",
        "granite",       "olmo",       "chatglm",       "glm4",         "minicpm",        "baichuan",
        "exaone",        "ernie4_5",   "mpt",           "t5encoder",    "nomic-bert",     "modern-bert",
        "qwen3next",     "qwen35",     "qwen35moe",     "gemma3n",      "starcoder",      "dbrx",
        "minimax-m2",    "qwen3vl",    "qwen3vlmoe",    "lfm2moe",      "nemotron_h_moe", "gemma4",
        "deepseek32",    "glm-dsa",    "exaone4",       "ernie4_5-moe", "seed_oss",       "arcee",
        "hunyuan-dense", "dots1",      "hunyuan-moe",   "bailingmoe2",  "apertus",        "nemotron",
        "laguna",        "afmoe",      "qwen2vl",       "bitnet",       "chameleon",      "paddleocr",
        "exaone-moe",    "jais2",      "mistral4",      "cohere2moe",   "mimo2"})
    EXPECT_TRUE(files.count(std::string(arch) + "-F32.gguf")) << arch;
}

TEST_F(GgufLlamaOracle, ParametersAreLlamaCppsLessItsRopeFactors) {
  for (const LlamaReport& r : reports_) {
    SCOPED_TRACE(r.file);
    const Inventory inv = inventory_of(r);
    ASSERT_TRUE(inv.checkpoint);
    // llama_model_n_params sums every tensor the model holds, once each: a tied output is not counted again
    // (the file has no output.weight and neither count adds one), but Llama 3.1's rope_freqs (rotary
    // frequency factors) is a tensor to llama.cpp and a buffer to transformers (inv_freq, never a
    // parameter), so our num_parameters leaves it out and llama.cpp does not.
    const uint64_t rope_factors = r.rope_factor_elements();
    EXPECT_EQ(count_parameters(inv).total, r.n_params - rope_factors);
    EXPECT_EQ(inv.checkpoint->parameters, r.n_params - rope_factors);
    EXPECT_EQ(inv.checkpoint->parameters + inv.checkpoint->buffer_elements + inv.checkpoint->extra_elements,
              r.n_params);
    if (r.arch == "llama") {
      EXPECT_GT(rope_factors, 0u);  // the difference is exercised
    }
  }
}

TEST_F(GgufLlamaOracle, StoredBytesAreLlamaCppsModelSize) {
  for (const LlamaReport& r : reports_) {
    SCOPED_TRACE(r.file);
    const Inventory inv = inventory_of(r);
    ASSERT_TRUE(inv.checkpoint);
    EXPECT_EQ(inv.checkpoint->bytes, r.size);  // llama_model_size: ggml_nbytes of every tensor
    EXPECT_EQ(inv.checkpoint->tensors, r.tensors.size());
  }
}

TEST_F(GgufLlamaOracle, TensorInfosAreGgmls) {
  for (const LlamaReport& r : reports_) {
    SCOPED_TRACE(r.file);
    const Inventory inv = inventory_of(r);
    std::set<std::string> ours;
    for (const InventoryTensor& t : inv.tensors) {
      if (!t.stored) continue;
      SCOPED_TRACE(t.name);
      ours.insert(t.name);
      auto it = r.tensors.find(t.name);
      ASSERT_NE(it, r.tensors.end()) << "llama.cpp has no such tensor";
      const LlamaTensor& lt = it->second;
      std::vector<int64_t> ne(t.shape.rbegin(), t.shape.rend());  // ggml's ne is the row-major shape reversed
      ne.resize(4, 1);
      EXPECT_EQ(ne, lt.ne);
      ASSERT_TRUE(t.dtype);
      EXPECT_EQ(dtype_info(*t.dtype).ggml_type, lt.type) << dtype_info(*t.dtype).name;
      EXPECT_EQ(t.bytes, lt.size);
    }
    EXPECT_EQ(ours.size(), r.tensors.size());
    // Where the data is: the data section's start and each tensor's offset in it.
    const GgufFile g = read_gguf(FileSource(path_of(r)));
    EXPECT_EQ(g.data_start, r.data_offset);
    for (const GgufTensorInfo& t : g.tensors) {
      auto it = r.tensors.find(t.name);
      ASSERT_NE(it, r.tensors.end()) << t.name;
      EXPECT_EQ(t.offset, it->second.offset) << t.name;
      EXPECT_EQ(t.bytes, it->second.size) << t.name;
    }
  }
}

std::optional<uint64_t> parse_uint(const std::string& s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// What llama.cpp logs of its hyperparameters as it loads ("print_info: n_embd_head_k = 64") and of each
// layer ("is_swa = 1"), which its C API does not give: per layer, our record must say the same. A value
// that differs between layers is logged as a list ("[4, 4, 2]").
std::optional<uint64_t> logged(const LlamaReport& r, const std::string& key, size_t layer) {
  const auto it = r.print_info.find(key);
  if (it == r.print_info.end()) return std::nullopt;
  std::string_view v = it->second;
  if (!v.empty() && v.front() == '[') {
    v.remove_prefix(1);
    for (size_t i = 0; i < layer; ++i) v.remove_prefix(std::min(v.size(), v.find(',') + 1));
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    v = v.substr(0, std::min(v.find(','), v.find(']')));
  }
  return parse_uint(std::string(v));
}

TEST_F(GgufLlamaOracle, RecordIsWhatLlamaCppLoaded) {
  for (const LlamaReport& r : reports_) {
    SCOPED_TRACE(r.file);
    if (r.arch == "t5") continue;  // its own test: encoder and decoder stacks under other names
    const Inventory inv = inventory_of(r);
    const ArchitectureRecord& a = inv.arch;
    // Every architecture llama.cpp loads here is one whose family the tool names.
    EXPECT_FALSE(families_for_model_type(a.model_type).empty()) << a.model_type;
    EXPECT_EQ(static_cast<int64_t>(a.num_layers), r.n_layer);
    EXPECT_EQ(static_cast<int64_t>(a.layers().size()), r.n_layer);
    EXPECT_EQ(static_cast<int64_t>(a.hidden_size), r.n_embd);
    EXPECT_EQ(static_cast<int64_t>(a.num_attention_heads), r.n_head);
    EXPECT_EQ(static_cast<int64_t>(a.max_position_embeddings), r.n_ctx_train);
    // Tied exactly when llama.cpp found no output tensor and used the token embeddings instead.
    EXPECT_EQ(a.tie_word_embeddings, r.tensors.count("output.weight") == 0);
    EXPECT_EQ(static_cast<int64_t>(a.vocab_size), r.tensors.at("token_embd.weight").ne[1]);
    // llama.cpp refuses a tensor whose shape is not what its hyperparameters make of it, so the shapes of
    // the files it loaded state each attention layer's heads and their width: q and k apart (ne: hidden,
    // heads x head_dim) or fused in attn_qkv (Phi-3, GPT-2); MLA (DeepSeek) has neither, and is checked
    // against llama.cpp's log in the next test, as the per-layer head counts of hybrids are.
    for (size_t i = 0; i < a.layers().size(); ++i) {
      const LayerSpec& l = a.layers()[i];
      if (l.mixer != Mixer::Attention) continue;
      SCOPED_TRACE("layer " + std::to_string(i));
      const AttentionShape& at = l.attention;
      const std::string p = "blk." + std::to_string(i) + ".";
      EXPECT_EQ(at.heads, logged(r, "n_head", i));
      // MLA keeps transformers' K/V heads (one per query head); llama.cpp logs the absorbed form's one
      // latent head.
      EXPECT_EQ(r.absorbed_mla() ? 1u : at.kv_heads, logged(r, "n_head_kv", i));
      if (const auto q = r.tensors.find(p + "attn_q.weight"); q != r.tensors.end()) {
        // Qwen3-Next's and Qwen3.5's queries carry a sigmoid gate per head of the same width.
        const bool gated = r.arch == "qwen3next" || r.arch == "qwen35" || r.arch == "qwen35moe";
        EXPECT_EQ(static_cast<int64_t>(at.heads * at.head_dim * (gated ? 2 : 1)), q->second.ne[1]);
      }
      if (const auto k = r.tensors.find(p + "attn_k.weight"); k != r.tensors.end()) {
        EXPECT_EQ(static_cast<int64_t>(at.kv_heads * at.head_dim), k->second.ne[1]);
      }
      if (const auto qkv = r.tensors.find(p + "attn_qkv.weight"); qkv != r.tensors.end()) {
        EXPECT_EQ(static_cast<int64_t>((at.heads + 2 * at.kv_heads) * at.head_dim), qkv->second.ne[1]);
      }
      if (r.n_swa == 0) {
        EXPECT_EQ(at.span, Span::Full);
      }
    }
    if (r.arch == "llama4") {
      // llama.cpp runs Llama-4's attention in chunks of n_swa tokens on three layers of every four (its
      // set_swa_pattern(4)), the fourth attending the whole context.
      ASSERT_TRUE(r.n_swa && *r.n_swa > 0);
      for (size_t i = 0; i < a.layers().size(); ++i) {
        const AttentionShape& at = a.layers()[i].attention;
        EXPECT_EQ(at.span, i % 4 == 3 ? Span::Full : Span::Chunked) << "layer " << i;
        if (at.span == Span::Chunked) {
          EXPECT_EQ(static_cast<int64_t>(at.window), *r.n_swa) << "layer " << i;
        }
      }
    }
    if (r.arch != "qwen3moe") continue;
    // Experts: the counts llama.cpp read (its metadata strings), the width its expert tensors have.
    const std::string* experts = r.meta_value("qwen3moe.expert_count");
    const std::string* used = r.meta_value("qwen3moe.expert_used_count");
    ASSERT_TRUE(experts && used);
    const LlamaTensor& gate = r.tensors.at("blk.0.ffn_gate_exps.weight");  // ne: hidden, width, experts
    EXPECT_EQ(a.num_experts, parse_uint(*experts));
    EXPECT_EQ(a.experts_per_token, parse_uint(*used));
    for (const LayerSpec& l : a.layers()) {
      EXPECT_EQ(l.ffn.kind, Ffn::Moe);
      EXPECT_EQ(l.ffn.experts, parse_uint(*experts));
      EXPECT_EQ(static_cast<int64_t>(l.ffn.experts), gate.ne[2]);
      EXPECT_EQ(l.ffn.top_k, parse_uint(*used));
      EXPECT_EQ(static_cast<int64_t>(l.ffn.expert_intermediate), gate.ne[1]);
    }
    const ParameterCounts p = count_parameters(inv);
    ASSERT_TRUE(p.active);
    EXPECT_LT(*p.active, p.total);
  }
}

// GLM-4.5 keeps its multi-token-prediction layer as the last of block_count (nextn_predict_layers). The
// pinned llama.cpp counts that layer's tensors in llama_model_n_params and llama_model_size (it creates
// them, logs them as unused and never runs them) but not in n_layer: ours must be the same, the layer its
// own stack after the decoder's, and the decoder's layers the dense lead, then MoE with a shared expert.
// The active count is what a token runs: the decoder's layers with top-k of their routed experts, no MTP.
TEST_F(GgufLlamaOracle, Glm4MoeMtpLayerIsInTheParametersButNotTheDecoder) {
  bool seen = false;
  for (const LlamaReport& r : reports_) {
    if (r.arch != "glm4moe") continue;
    seen = true;
    const Inventory inv = inventory_of(r);
    const ArchitectureRecord& a = inv.arch;
    const std::string* blocks = r.meta_value("glm4moe.block_count");
    const std::string* nextn = r.meta_value("glm4moe.nextn_predict_layers");
    ASSERT_TRUE(blocks && nextn);
    ASSERT_EQ(parse_uint(*nextn), 1u);
    EXPECT_EQ(static_cast<int64_t>(*parse_uint(*blocks) - *parse_uint(*nextn)), r.n_layer);
    uint64_t stored = 0, mtp = 0, routed = 0;
    for (const auto& [name, t] : r.tensors) {
      const auto n = static_cast<uint64_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]);
      stored += n;
      if (name.rfind("blk." + std::to_string(r.n_layer) + ".", 0) == 0)
        mtp += n;
      else if (name.find("_exps.") != std::string::npos)
        routed += n;
    }
    EXPECT_GT(mtp, 0u);
    EXPECT_EQ(r.n_params, stored);  // the MTP layer is in llama.cpp's count
    EXPECT_EQ(count_parameters(inv).total, r.n_params);
    const StackSpec* mtp_stack = nullptr;
    for (const StackSpec& st : a.stacks)
      if (st.role == StackRole::Mtp) mtp_stack = &st;
    ASSERT_NE(mtp_stack, nullptr);
    EXPECT_EQ(static_cast<int64_t>(mtp_stack->first_index), r.n_layer);
    EXPECT_EQ(mtp_stack->layers.size(), 1u);
    ASSERT_EQ(static_cast<int64_t>(a.layers().size()), r.n_layer);
    EXPECT_EQ(a.layers()[0].ffn.kind, Ffn::Dense);
    EXPECT_EQ(static_cast<int64_t>(a.layers()[0].ffn.intermediate),
              r.tensors.at("blk.0.ffn_gate.weight").ne[1]);
    const FfnShape& moe = a.layers()[1].ffn;
    EXPECT_EQ(moe.kind, Ffn::Moe);
    EXPECT_EQ(static_cast<int64_t>(moe.experts), r.tensors.at("blk.1.ffn_gate_exps.weight").ne[2]);
    EXPECT_EQ(moe.top_k, parse_uint(*r.meta_value("glm4moe.expert_used_count")));
    EXPECT_EQ(static_cast<int64_t>(moe.shared_intermediate),
              r.tensors.at("blk.1.ffn_gate_shexp.weight").ne[1]);
    const uint64_t experts = static_cast<uint64_t>(r.tensors.at("blk.1.ffn_gate_exps.weight").ne[2]);
    const uint64_t used = *parse_uint(*r.meta_value("glm4moe.expert_used_count"));
    const ParameterCounts p = count_parameters(inv);
    ASSERT_TRUE(p.active);
    EXPECT_EQ(*p.active, r.n_params - mtp - routed + routed / experts * used);
  }
  EXPECT_TRUE(seen);
}

TEST_F(GgufLlamaOracle, LayersAreWhatLlamaCppLogged) {
  for (const LlamaReport& r : reports_) {
    if (r.arch == "t5") continue;  // two stacks: its own test
    SCOPED_TRACE(r.file);
    const Inventory inv = inventory_of(r);
    const ArchitectureRecord& a = inv.arch;
    ASSERT_EQ(static_cast<int64_t>(a.layers().size()), r.n_layer);
    ASSERT_EQ(r.is_swa.size(), a.layers().size());
    auto expect_logged = [&](uint64_t ours, const char* key, size_t layer) {
      const std::optional<uint64_t> theirs = logged(r, key, layer);
      ASSERT_TRUE(theirs) << key << " not logged";
      EXPECT_EQ(ours, *theirs) << key;
    };
    // A model that attends both ways (BERT) is an encoder to us. T5's encoder logs causal attention, but
    // llama.cpp runs it through llama_encode, which attends both ways whatever the flag says.
    const auto causal = r.print_info.find("causal attn");
    ASSERT_NE(causal, r.print_info.end());
    const StackSpec* main = a.main_stack();
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->role == StackRole::Encoder, causal->second == "0" || r.arch == "t5encoder");
    // Mamba-2 when its B and C come in groups (Mamba-1 logs none), the dt rank then being the heads.
    auto groups = [&](size_t i) { return logged(r, "ssm_n_group", i).value_or(0) > 0; };
    auto check_state = [&](const StateShape& st, size_t i) {
      expect_logged(st.inner, "ssm_d_inner", i);
      expect_logged(st.state, "ssm_d_state", i);
      expect_logged(st.conv_kernel, "ssm_d_conv", i);
      expect_logged(groups(i) ? st.heads : st.dt_rank, "ssm_dt_rank", i);
      if (groups(i)) expect_logged(st.groups, "ssm_n_group", i);
    };
    auto check_attention = [&](const AttentionShape& at, size_t i) {
      EXPECT_EQ(at.span != Span::Full, r.is_swa[i] == 1);
      if (r.is_swa[i]) {
        expect_logged(at.window, "n_swa", i);
        // The rope base of the windowed layers: Gemma 3's own 10,000, others' the global one.
        const auto base = r.print_info.find("freq_base_swa");
        ASSERT_NE(base, r.print_info.end());
        ASSERT_TRUE(a.rope);
        EXPECT_DOUBLE_EQ(a.rope->local_theta.value_or(a.rope->theta), std::stod(base->second));
      }
      // Gemma 4's sliding layers have heads of their own width, logged apart (_swa).
      const bool own_width = r.is_swa[i] && r.print_info.count("n_embd_head_k_swa");
      const bool mla = r.absorbed_mla();  // the per-head widths logged under _mla
      expect_logged(at.head_dim,
                    own_width ? "n_embd_head_k_swa"
                    : mla     ? "n_embd_head_k_mla"
                              : "n_embd_head_k",
                    i);
      expect_logged(at.v_head_dim ? at.v_head_dim : at.head_dim,
                    own_width ? "n_embd_head_v_swa"
                    : mla     ? "n_embd_head_v_mla"
                              : "n_embd_head_v",
                    i);
      if (at.kind == AttentionKind::Mla) {
        expect_logged(at.q_lora_rank, "n_lora_q", i);
        expect_logged(at.kv_lora_rank, "n_lora_kv", i);
        expect_logged(at.qk_rope_head_dim, "n_rot", i);
      } else if (a.position == PositionKind::Rope) {
        ASSERT_TRUE(a.rope);
        const double part = a.rope->partial_rotary_factor.value_or(1.0);
        expect_logged(static_cast<uint64_t>(std::llround(static_cast<double>(at.head_dim) * part)),
                      own_width ? "n_rot_swa" : "n_rot", i);
      }
    };
    for (size_t i = 0; i < a.layers().size(); ++i) {
      SCOPED_TRACE("layer " + std::to_string(i));
      const LayerSpec& l = a.layers()[i];
      // No K/V heads in a model with a state: a recurrent layer to llama.cpp, but for Nemotron-H's MLP layers
      // (its recurrent ones have no MLP width either). LFM2's short convolution: the conv llama.cpp took for
      // the layer (ne: taps, channels).
      const bool no_kv = logged(r, "n_head_kv", i) == 0u;
      const std::string blk = "blk." + std::to_string(i) + ".";
      const auto conv = r.tensors.find(blk + "shortconv.conv.weight");
      // A gated DeltaNet layer (Qwen3-Next, Qwen3.5), which llama.cpp logs nothing of per layer: its beta
      // and alpha projections mark it, its convolution (ne: taps, channels) runs over q, k and v.
      const auto delta_conv = r.tensors.find(blk + "ssm_conv1d.weight");
      const bool delta_net =
          r.tensors.count(blk + "ssm_ba.weight") || r.tensors.count(blk + "ssm_beta.weight");
      if (delta_net) {
        ASSERT_EQ(l.mixer, Mixer::LinearAttention);
        const StateShape& st = l.state;
        expect_logged(st.key_heads, "ssm_n_group", i);
        expect_logged(st.value_heads, "ssm_dt_rank", i);
        expect_logged(st.key_head_dim, "ssm_d_state", i);
        expect_logged(st.value_head_dim, "ssm_d_state", i);
        expect_logged(st.conv_kernel, "ssm_d_conv", i);
        ASSERT_NE(delta_conv, r.tensors.end());
        EXPECT_EQ(static_cast<int64_t>(st.conv_kernel), delta_conv->second.ne[0]);
        EXPECT_EQ(
            static_cast<int64_t>(2 * st.key_heads * st.key_head_dim + st.value_heads * st.value_head_dim),
            delta_conv->second.ne[1]);
      } else if (conv != r.tensors.end()) {
        EXPECT_EQ(l.mixer, Mixer::ShortConv);
        EXPECT_EQ(static_cast<int64_t>(l.state.conv_kernel), conv->second.ne[0]);
        EXPECT_EQ(static_cast<int64_t>(l.state.inner), conv->second.ne[1]);
      } else if (no_kv && r.arch.starts_with("nemotron_h") && logged(r, "n_ff", i) > 0u) {
        EXPECT_EQ(l.mixer, Mixer::None);
      } else if (no_kv && logged(r, "ssm_d_inner", i).value_or(0) > 0) {
        ASSERT_EQ(l.mixer, groups(i) ? Mixer::Mamba2 : Mixer::Mamba);
        check_state(l.state, i);
      } else {
        ASSERT_EQ(l.mixer, Mixer::Attention);
        check_attention(l.attention, i);
        // A layer llama.cpp gave an SSM input projection as well runs both mixers (Falcon-H1).
        const bool ssm = r.tensors.count("blk." + std::to_string(i) + ".ssm_in.weight") > 0;
        EXPECT_EQ(l.parallel, !ssm ? Mixer::None : groups(i) ? Mixer::Mamba2 : Mixer::Mamba);
        if (ssm) check_state(l.state, i);
      }
      if (l.ffn.kind == Ffn::Dense) {
        expect_logged(l.ffn.intermediate, "n_ff", i);
      } else if (l.ffn.kind == Ffn::Moe) {
        expect_logged(l.ffn.experts, "n_expert", i);
        expect_logged(l.ffn.top_k, "n_expert_used", i);
        if (r.print_info.count("n_ff_exp")) expect_logged(l.ffn.expert_intermediate, "n_ff_exp", i);
        if (r.print_info.count("n_expert_shared")) expect_logged(l.ffn.shared_experts, "n_expert_shared", i);
        if (r.print_info.count("n_ff_shexp")) expect_logged(l.ffn.shared_intermediate, "n_ff_shexp", i);
      } else if (r.print_info.count("n_ff")) {
        expect_logged(0, "n_ff", i);  // a layer without an MLP (Mamba's, Nemotron-H's mixers)
      }
    }
  }
}

// T5: llama.cpp's n_layer is each stack's; the decoder's layers attend the encoder with the same heads, whose
// width (key_length, T5's d_kv) the shapes llama.cpp accepted confirm.
TEST_F(GgufLlamaOracle, T5IsAnEncoderAndADecoder) {
  for (const LlamaReport& r : reports_) {
    if (r.arch != "t5") continue;
    SCOPED_TRACE(r.file);
    const Inventory inv = inventory_of(r);
    const ArchitectureRecord& a = inv.arch;
    EXPECT_EQ(a.architecture, "T5ForConditionalGeneration");
    EXPECT_EQ(a.position, PositionKind::Relative);
    const StackSpec* encoder = a.stack(StackRole::Encoder);
    const StackSpec* decoder = a.stack(StackRole::Decoder);
    ASSERT_TRUE(encoder && decoder);
    EXPECT_EQ(static_cast<int64_t>(encoder->layers.size()), r.n_layer);
    EXPECT_EQ(static_cast<int64_t>(decoder->layers.size()), r.n_layer);
    EXPECT_EQ(static_cast<int64_t>(a.hidden_size), r.n_embd);
    const LlamaTensor& q = r.tensors.at("enc.blk.0.attn_q.weight");         // ne: hidden, heads x d_kv
    const LlamaTensor& cq = r.tensors.at("dec.blk.0.cross_attn_q.weight");  // the same over the encoder
    const LlamaTensor& up = r.tensors.at("dec.blk.0.ffn_up.weight");        // ne: hidden, d_ff
    for (const StackSpec* s : {encoder, decoder})
      for (const LayerSpec& l : s->layers) {
        EXPECT_EQ(l.mixer, Mixer::Attention);
        EXPECT_EQ(static_cast<int64_t>(l.attention.heads), r.n_head);
        EXPECT_EQ(static_cast<int64_t>(l.attention.heads * l.attention.head_dim), q.ne[1]);
        EXPECT_EQ(l.ffn.kind, Ffn::Dense);
        EXPECT_TRUE(l.ffn.gated);
        EXPECT_EQ(static_cast<int64_t>(l.ffn.intermediate), up.ne[1]);
        EXPECT_EQ(l.cross_attention.has_value(), s == decoder);
        if (l.cross_attention) {
          EXPECT_EQ(static_cast<int64_t>(l.cross_attention->heads * l.cross_attention->head_dim), cq.ne[1]);
        }
      }
    // Every tensor lands on a block: none is left as "other".
    for (const InventoryTensor& t : inv.tensors) EXPECT_NE(t.placement.block, Block::Other) << t.name;
  }
}

TEST_F(GgufLlamaOracle, MetadataIsWhatLlamaCppRead) {
  for (const LlamaReport& r : reports_) {
    SCOPED_TRACE(r.file);
    const GgufFile g = read_gguf(FileSource(path_of(r)));
    std::set<std::string> theirs;
    for (const auto& [key, value] : r.meta) {
      SCOPED_TRACE(key + " = " + value);
      theirs.insert(key);
      const GgufKv* kv = g.find(key);
      ASSERT_NE(kv, nullptr) << "we do not read this key";
      switch (kv->type) {
        case GgufType::Array:
          break;  // llama.cpp reports arrays abbreviated, if at all
        case GgufType::String:
          EXPECT_EQ(g.string_value(key), value);
          break;
        case GgufType::Bool:
          EXPECT_EQ(g.bool_value(key), value == "true");
          break;
        case GgufType::F32:
        case GgufType::F64: {
          // llama.cpp prints floats with %f (six decimals): equal to within that rounding.
          char* end = nullptr;
          const double v = std::strtod(value.c_str(), &end);
          ASSERT_EQ(end, value.c_str() + value.size());
          EXPECT_NEAR(kv->f, v, 5.0000001e-7);
          break;
        }
        default:
          ASSERT_TRUE(kv->is_integer()) << gguf_type_name(kv->type);
          if (!value.empty() && value[0] == '-') {
            EXPECT_EQ(std::to_string(kv->i), value);
          } else {
            EXPECT_EQ(std::optional<uint64_t>(kv->u), parse_uint(value));
          }
      }
    }
    // llama.cpp reports every scalar key: those we read and it does not would be keys it never saw.
    for (const GgufKv& kv : g.metadata)
      if (kv.type != GgufType::Array) {
        EXPECT_TRUE(theirs.count(kv.key)) << kv.key;
      }
    EXPECT_FALSE(r.meta.empty());
  }
}

}  // namespace
}  // namespace ma

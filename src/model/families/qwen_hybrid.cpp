// Qwen3-Next and Qwen3.5 (gated-delta-net linear attention interleaved with output-gated full attention,
// sparse MoE with a shared expert) and the Qwen vision-language models (Qwen2-VL, Qwen2.5-VL, Qwen3-VL and
// its MoE): a vision tower under model.visual and the language model under model.language_model.
#include <algorithm>
#include <array>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/qwen_hybrid_blocks.h"

namespace ma::families {
namespace {

using qwen::VisionKind;

struct LayerPlan {
  bool linear_attention = false;
  bool moe = false;
  uint64_t sliding_window = 0;
};

// The language model of every family here: embeddings, a stack of planned layers, final norm, LM head.
struct TextModel {
  // "model" (causal LM), "model.language_model" (vision-language) or "" (the text model alone)
  std::string prefix;
  bool lm_head = true;  // false: the bare text model (Qwen2VLTextModel), no head
  blocks::Attention attention;
  bool qk_norm = false;
  bool output_gate = false;  // q_proj carries a per-head sigmoid gate (Qwen3-Next, Qwen3.5)
  std::vector<LayerPlan> layers;
  qwen::GatedDeltaNet delta_net;
  qwen::SparseMoe moe;
};

// What a gated-DeltaNet layer keeps per sequence: the conv window over q, k and v, and one key x value matrix
// per value head.
StateShape delta_net_state(const qwen::GatedDeltaNet& g) {
  StateShape s;
  s.key_heads = g.key_heads;
  s.value_heads = g.value_heads;
  s.key_head_dim = g.key_head_dim;
  s.value_head_dim = g.value_head_dim;
  s.conv_kernel = g.conv_kernel;
  return s;
}

void build_text(ModelTemplate& t, const TextModel& m) {
  const ArchitectureRecord& a = t.arch;
  const std::string root = m.prefix.empty() ? "" : m.prefix + ".";
  const std::string embed = root + "embed_tokens.weight";
  token_embedding(t, embed, a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, root + "layers");
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const std::string p = stack.path + "." + std::to_string(i);
    const LayerPlan& plan = m.layers[i];
    LayerSpec l = attention_layer(a, plan.sliding_window, plan.moe ? Ffn::Moe : Ffn::Dense);
    if (plan.linear_attention) {
      qwen::gated_delta_net(t, p + ".linear_attn", m.delta_net);
      l.mixer = Mixer::LinearAttention;
      l.state = delta_net_state(m.delta_net);
    } else if (m.qk_norm) {
      qwen::qk_norm_attention(t, p + ".self_attn", m.attention, m.output_gate);
    } else {
      blocks::attention(t, p + ".self_attn", m.attention);
    }
    if (plan.moe) {
      qwen::sparse_moe(t, p + ".mlp", m.moe);
      l.ffn.shared_experts = m.moe.shared_inter ? 1 : 0;
      l.ffn.shared_intermediate = m.moe.shared_inter;
    } else {
      blocks::gated_mlp(t, p + ".mlp", a.hidden_size, a.intermediate_size);
    }
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".post_attention_layernorm", a.hidden_size, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, root + "norm", a.hidden_size, false);
  if (m.lm_head) lm_head(t, embed, a);
}

// A nested config object; when absent, the sub-config class is built from its defaults (an empty object).
ModelConfig sub_or_defaults(const ModelConfig& root, std::string_view key) {
  if (auto sub = root.sub(key)) return *sub;
  return root.derived("{}");
}

// Per-layer mixer of the hybrids: layer_types when given, else every full_attention_interval-th layer is
// full.
std::vector<LayerPlan> hybrid_layers(const ModelConfig& text, uint64_t num_layers) {
  std::vector<LayerPlan> plans(num_layers);
  std::vector<std::string> types = text.strings("layer_types");
  if (types.empty()) {
    uint64_t interval = text.dim_or("full_attention_interval", 4);
    for (uint64_t i = 0; i < num_layers; ++i) plans[i].linear_attention = (i + 1) % interval != 0;
    return plans;
  }
  if (types.size() != num_layers) text.fail("layer_types", "must name one type per hidden layer");
  for (uint64_t i = 0; i < num_layers; ++i) {
    if (types[i] == "linear_attention")
      plans[i].linear_attention = true;
    else if (types[i] != "full_attention" && types[i] != "attention")
      text.fail("layer_types", "entries must be linear_attention or full_attention");
  }
  return plans;
}

// Qwen2-MoE style placement of sparse layers: not in mlp_only_layers, and every decoder_sparse_step-th.
void place_sparse_layers(const ModelConfig& text, uint64_t experts, std::vector<LayerPlan>& plans) {
  if (experts == 0) return;
  std::vector<int64_t> dense_only = text.ints("mlp_only_layers");
  uint64_t step = text.dim_or("decoder_sparse_step", 1);
  for (uint64_t i = 0; i < plans.size(); ++i) {
    bool listed =
        std::find(dense_only.begin(), dense_only.end(), static_cast<int64_t>(i)) != dense_only.end();
    plans[i].moe = !listed && (i + 1) % step == 0;
  }
}

struct MoeDefaults {
  uint64_t experts, top_k, inter, shared_inter;  // shared_inter 0: no shared expert
};

qwen::SparseMoe read_moe(const ModelConfig& text, ModelTemplate& t, const MoeDefaults& d,
                         qwen::ExpertStorage s) {
  ArchitectureRecord& a = t.arch;
  qwen::SparseMoe m;
  a.num_experts = text.count_or("num_experts", d.experts);
  if (a.num_experts == 0) return m;  // every layer keeps its dense MLP
  a.experts_per_token = text.count_or("num_experts_per_tok", d.top_k);
  if (a.experts_per_token > a.num_experts) text.fail("num_experts_per_tok", "must not exceed num_experts");
  a.moe_intermediate_size = text.dim_or("moe_intermediate_size", d.inter);
  m.hidden = a.hidden_size;
  m.experts = a.num_experts;
  m.inter = a.moe_intermediate_size;
  m.storage = s;
  if (d.shared_inter) {
    m.shared_inter = text.dim_or("shared_expert_intermediate_size", d.shared_inter);
    a.num_shared_experts = 1;
  }
  return m;
}

blocks::Attention text_attention(const ModelConfig& text, const ArchitectureRecord& a) {
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = text.flag_or("attention_bias", false);
  return at;
}

// Linear-attention / gated-full-attention hybrid text model shared by Qwen3-Next and Qwen3.5.
TextModel hybrid_text(const ModelConfig& text, const ArchitectureRecord& a, std::string prefix,
                      bool split_projections) {
  TextModel m;
  m.prefix = std::move(prefix);
  m.attention = text_attention(text, a);
  m.qk_norm = m.output_gate = true;
  m.layers = hybrid_layers(text, a.num_layers);
  m.delta_net = qwen::read_gated_delta_net(text, a.hidden_size, split_projections);
  return m;
}

// The language model of a vision-language config: text_config (or, for flat legacy configs, the root).
ModelConfig read_text(const ModelConfig& root, const DecoderDefaults& d, ModelTemplate& t, bool flat_legacy) {
  ModelConfig text = flat_legacy && !root.has("text_config") ? root : sub_or_defaults(root, "text_config");
  read_decoder_dims(text, d, t);
  // The composite model ties by its own flag, whatever the text config says.
  t.arch.tie_word_embeddings = root.flag_or("tie_word_embeddings", false);
  if (t.arch.torch_dtype.empty())
    t.arch.torch_dtype = text.string_or("torch_dtype", text.string_or("dtype", ""));
  return text;
}

void add_vision(ModelTemplate& t, const ModelConfig& root, VisionKind kind, bool with_deepstack) {
  qwen::vision_tower(t, "model.visual",
                     qwen::read_vision(sub_or_defaults(root, "vision_config"), kind, with_deepstack));
}

constexpr const char* kMtpReason = "multi-token-prediction layer: transformers does not load it";

DecoderDefaults qwen3_next_defaults() {
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.hidden_size = 2048;
  d.intermediate_size = 5632;
  d.num_hidden_layers = 48;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 2;
  d.head_dim = 256;
  d.max_position_embeddings = 32768;
  return d;
}

void build_qwen3_next(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen3NextForCausalLM";
  read_decoder_dims(cfg, qwen3_next_defaults(), t);
  TextModel m = hybrid_text(cfg, t.arch, "model", false);
  m.moe = read_moe(cfg, t, {512, 10, 512, 512}, qwen::ExpertStorage::PerExpert);
  place_sparse_layers(cfg, m.moe.experts, m.layers);
  build_text(t, m);
  t.known_extras.push_back({"mtp.", kMtpReason});
}

DecoderDefaults qwen3_5_defaults(bool moe) {
  DecoderDefaults d;
  d.vocab_size = 248320;
  d.hidden_size = moe ? 2048 : 4096;
  d.intermediate_size = 12288;
  d.num_hidden_layers = moe ? 40 : 32;
  d.num_attention_heads = 16;
  d.num_key_value_heads = moe ? 2 : 4;
  d.head_dim = 256;
  d.max_position_embeddings = 32768;
  return d;
}

// Qwen3.5 as published (a vision tower and the language model under model.language_model) or its language
// model alone (qwen3_5_text / qwen3_5_moe_text: Qwen3_5ForCausalLM at model.*, what text-only fine-tunes
// save).
void build_qwen3_5_family(const ModelConfig& cfg, ModelTemplate& t, bool moe, bool with_vision) {
  t.arch.rope.emplace().type = "mrope";  // the language model always rotates by time/height/width sections
  ModelConfig text = cfg;
  if (with_vision) {
    t.arch.architecture = moe ? "Qwen3_5MoeForConditionalGeneration" : "Qwen3_5ForConditionalGeneration";
    text = read_text(cfg, qwen3_5_defaults(moe), t, false);
    add_vision(t, cfg, VisionKind::Qwen3, false);
  } else {
    t.arch.architecture = moe ? "Qwen3_5MoeForCausalLM" : "Qwen3_5ForCausalLM";
    read_decoder_dims(cfg, qwen3_5_defaults(moe), t);
  }
  TextModel m = hybrid_text(text, t.arch, with_vision ? "model.language_model" : "model", true);
  if (moe) {
    m.moe = read_moe(text, t, {256, 8, 512, 512}, qwen::ExpertStorage::Fused);
    if (m.moe.experts == 0) text.fail("num_experts", "must be at least 1: every Qwen3.5-MoE layer is sparse");
    t.arch.intermediate_size = t.arch.moe_intermediate_size;  // every layer is sparse: no dense MLP width
    for (LayerPlan& p : m.layers) p.moe = true;
  }
  build_text(t, m);
  t.known_extras.push_back({"mtp.", kMtpReason});
}

void build_qwen3_5(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen3_5_family(cfg, t, false, true);
}
void build_qwen3_5_moe(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen3_5_family(cfg, t, true, true);
}
void build_qwen3_5_text(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen3_5_family(cfg, t, false, false);
}
void build_qwen3_5_moe_text(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen3_5_family(cfg, t, true, false);
}

// MiniCPM-V 4.6 (minicpmv4_6): a headless SigLIP tower whose patches, after layer insert_layer_id, pass a
// window-attention merger folding each window_kernel_size window into one (stored once beside the encoder,
// as vit_merger: attention within the window, then a LayerNorm and an MLP from the window's concatenation),
// then merger_times MLPs folding 2 x 2 again (the last into the text width), and Qwen3.5's dense language
// model. Its positions are 1-D (plain partial rotary, not Qwen3.5's mrope), and its checkpoints store no
// multi-token-prediction layer whatever the text config says.
void build_minicpmv4_6(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MiniCPMV4_6ForConditionalGeneration";
  const ModelConfig text = read_text(cfg, qwen3_5_defaults(false), t, false);
  const ModelConfig v = sub_or_empty(cfg, "vision_config");
  VitDefaults vd;  // MiniCPMV4_6VisionConfig's: SiglipVisionConfig's
  vd.model_type = "minicpmv4_6_vision";
  const uint64_t h = vit_tower(v, "model.vision_tower.", vd, t);
  const uint64_t inter = v.dim_or("intermediate_size", vd.intermediate_size);
  uint64_t window = 4;
  if (v.has("window_kernel_size")) {
    const std::vector<int64_t> k = v.ints("window_kernel_size");
    if (k.size() != 2 || k[0] != k[1] || k[0] < 1 || k[0] > 64)
      v.fail("window_kernel_size", "must be two equal sides from 1 to 64");
    window = static_cast<uint64_t>(k[0] * k[1]);
  }
  const std::string w = "model.vision_tower.vit_merger.";
  for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"})
    blocks::linear(t, w + "self_attn." + proj, h, h, true);
  blocks::norm(t, w + "layer_norm1", h, true);
  blocks::norm(t, w + "pre_norm", window * h, true);
  blocks::linear(t, w + "linear_1", window * h, window * inter, true);
  blocks::linear(t, w + "linear_2", window * inter, h, true);
  // The merger: 2 x 2 neighbours' features side by side (the factor is fixed in its code), each MLP
  // keeping the tower's width but the last.
  const uint64_t times = cfg.count_or("merger_times", 1);
  if (times < 1 || times > 8) cfg.fail("merger_times", "must be from 1 to 8");
  for (uint64_t i = 0; i < times; ++i) {
    const std::string m = "model.merger.mlp." + std::to_string(i) + ".";
    blocks::norm(t, m + "pre_norm", 4 * h, true);
    blocks::linear(t, m + "linear_1", 4 * h, 4 * h, true);
    blocks::linear(t, m + "linear_2", 4 * h, i + 1 == times ? t.arch.hidden_size : h, true);
  }
  record_projector(t, "model.merger");
  build_text(t, hybrid_text(text, t.arch, "model.language_model", true));
}

// Qwen2 sliding windows (Qwen2-VL's text config defaults max_window_layers to 80).
std::vector<LayerPlan> qwen2_layers(const ModelConfig& text, uint64_t num_layers) {
  std::vector<LayerPlan> plans(num_layers);
  const std::vector<uint64_t> windows = qwen_windows(text, num_layers, 80);
  for (size_t i = 0; i < num_layers; ++i) plans[i].sliding_window = windows[i];
  return plans;
}

// Qwen2-VL / Qwen2.5-VL: a Qwen2 decoder (q/k/v biases) whose checkpoints keep the pre-v4.52 layout, the
// language model at model.* and the vision tower at visual.*.
// Qwen2VLTextConfig's defaults (Qwen2_5_VLTextConfig's are the same): Qwen2-VL-7B's language model.
DecoderDefaults qwen2_vl_text_defaults() {
  DecoderDefaults d;
  d.vocab_size = 152064;
  d.hidden_size = 8192;
  d.intermediate_size = 29568;
  d.num_hidden_layers = 80;
  d.num_attention_heads = 64;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 32768;
  return d;
}

// The Qwen2 decoder (q/k/v biases) of Qwen2-VL and Qwen2.5-VL under `prefix`.
TextModel qwen2_vl_text(const ModelConfig& text, ModelTemplate& t, const std::string& prefix) {
  TextModel m;
  m.prefix = prefix;
  m.attention = standard_attention(t.arch);
  m.attention.qkv_bias = true;
  m.layers = qwen2_layers(text, t.arch.num_layers);
  return m;
}

void build_qwen2_vl_family(const ModelConfig& cfg, ModelTemplate& t, VisionKind kind) {
  t.arch.rope.emplace().type = "mrope";  // the language model always rotates by time/height/width sections
  t.arch.architecture =
      kind == VisionKind::Qwen2 ? "Qwen2VLForConditionalGeneration" : "Qwen2_5_VLForConditionalGeneration";
  ModelConfig text = read_text(cfg, qwen2_vl_text_defaults(), t, true);
  add_vision(t, cfg, kind, false);
  build_text(t, qwen2_vl_text(text, t, "model.language_model"));
  t.rename_on_disk("model.language_model.", "model.");
  t.rename_on_disk("model.visual.", "visual.");
}

// The language model configured alone (qwen2_vl_text, qwen2_5_vl_text): AutoModel builds the bare
// Qwen2VLTextModel / Qwen2_5_VLTextModel, embed_tokens, layers and norm at the top level and no head;
// no class of transformers puts a head on it.
void build_qwen2_vl_text_kind(const ModelConfig& cfg, ModelTemplate& t, const std::string& cls) {
  t.arch.architecture = sub_config_class(cfg, cls);
  t.arch.rope.emplace().type = "mrope";
  read_decoder_dims(cfg, qwen2_vl_text_defaults(), t);
  TextModel m = qwen2_vl_text(cfg, t, "");
  m.lm_head = false;
  build_text(t, m);
}

void build_qwen2_vl(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen2_vl_family(cfg, t, VisionKind::Qwen2);
}
void build_qwen2_5_vl(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen2_vl_family(cfg, t, VisionKind::Qwen2_5);
}
void build_qwen2_vl_text(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen2_vl_text_kind(cfg, t, "Qwen2VLTextModel");
}
void build_qwen2_5_vl_text(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen2_vl_text_kind(cfg, t, "Qwen2_5_VLTextModel");
}

// Qwen3-VL: Qwen3 decoder (q/k norms) with a deepstack vision tower; the MoE variant routes every sparse
// layer through experts stored fused and transposed on disk.
void build_qwen3_vl_family(const ModelConfig& cfg, ModelTemplate& t, bool moe) {
  t.arch.rope.emplace().type = "mrope";  // the language model always rotates by time/height/width sections
  t.arch.architecture = moe ? "Qwen3VLMoeForConditionalGeneration" : "Qwen3VLForConditionalGeneration";
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.hidden_size = moe ? 2048 : 4096;
  d.intermediate_size = moe ? 5632 : 22016;
  d.num_hidden_layers = moe ? 24 : 32;
  d.num_attention_heads = moe ? 16 : 32;
  d.head_dim = moe ? 0 : 128;  // the MoE text config derives it from hidden_size / heads
  d.max_position_embeddings = 128000;
  ModelConfig text = read_text(cfg, d, t, false);
  add_vision(t, cfg, VisionKind::Qwen3, true);
  TextModel m;
  m.prefix = "model.language_model";
  m.attention = text_attention(text, t.arch);
  m.qk_norm = true;
  m.layers.resize(t.arch.num_layers);
  if (moe) {
    m.moe = read_moe(text, t, {60, 4, 1408, 0}, qwen::ExpertStorage::FusedTransposed);
    m.moe.experts_first = true;
    place_sparse_layers(text, m.moe.experts, m.layers);
  }
  build_text(t, m);
}

void build_qwen3_vl(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen3_vl_family(cfg, t, false);
}
void build_qwen3_vl_moe(const ModelConfig& cfg, ModelTemplate& t) {
  build_qwen3_vl_family(cfg, t, true);
}

// NVIDIA Cosmos3's reasoner (cosmos3_omni): Qwen3-VL's classes unchanged. Its unified checkpoint also holds
// the generator (diffusion) tower, the sound and action towers and their cross-modal projections, which
// transformers drops on load; those outside the language model's layers are named here as known extras.
void build_cosmos3_omni(const ModelConfig& cfg, ModelTemplate& t) {
  const bool moe =
      sub_or_empty(cfg, "text_config").string_or("model_type", "qwen3_vl_text") == "qwen3_vl_moe_text";
  build_qwen3_vl_family(cfg, t, moe);
  t.arch.architecture = "Cosmos3OmniForConditionalGeneration";
  for (const char* prefix :
       {"proj_out.", "proj_in.", "time_embedder.", "audio_proj_out.", "audio_proj_in.",
        "audio_modality_embed", "action_proj_out.", "action_proj_in.", "action_modality_embed"})
    t.known_extras.push_back({prefix, "Cosmos3's generator, sound and action towers, dropped on load"});
}

constexpr std::array kQwenHybridFamilies{
    FamilyBuilder{"qwen3_next", build_qwen3_next},
    FamilyBuilder{"qwen3_5", build_qwen3_5},
    FamilyBuilder{"qwen3_5_moe", build_qwen3_5_moe},
    FamilyBuilder{"qwen2_vl", build_qwen2_vl},
    FamilyBuilder{"qwen2_5_vl", build_qwen2_5_vl},
    FamilyBuilder{"qwen2_vl_text", build_qwen2_vl_text},
    FamilyBuilder{"qwen2_5_vl_text", build_qwen2_5_vl_text},
    FamilyBuilder{"qwen3_vl", build_qwen3_vl},
    FamilyBuilder{"qwen3_vl_moe", build_qwen3_vl_moe},
    FamilyBuilder{"cosmos3_omni", build_cosmos3_omni},
    FamilyBuilder{"minicpmv4_6", build_minicpmv4_6},
    FamilyBuilder{"qwen3_5_text", build_qwen3_5_text},
    FamilyBuilder{"qwen3_5_moe_text", build_qwen3_5_moe_text},
};

}  // namespace

std::span<const FamilyBuilder> qwen_hybrid() {
  return kQwenHybridFamilies;
}

}  // namespace ma::families

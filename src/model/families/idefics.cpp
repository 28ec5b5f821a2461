// IDEFICS (HuggingFaceM4/idefics-9b, -80b and their -instruct models), a Flamingo reproduction: a LLaMA
// decoder whose every cross_layer_interval-th layer is preceded by a gated cross-attention layer (its own
// attention onto the image features and its own MLP, each scaled by tanh of a learned alpha), a CLIP ViT-H
// (IdeficsVisionTransformer, CLIP's modules under IDEFICS' names) and optionally a perceiver resampler that
// compresses the patches into resampler_n_latents latents. The vocabulary is decoupled: vocab_size frozen
// rows plus additional_vocab_size trainable ones (the <image> and <fake_token_around_image> tokens) held in
// a second table and a second head.
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vlm_classics.h"

namespace ma::families {
namespace {

// IdeficsVisionConfig's defaults (its width is embed_dim; hidden_size is an attribute_map alias).
constexpr ClipLikeVision kIdeficsVision{
    .hidden = 768, .intermediate = 5120, .layers = 32, .heads = 16, .channels = 3, .image = 224, .patch = 14};

struct IdeficsResampler {
  uint64_t latents = 64, depth = 6, heads = 16, head_dim = 96;
  bool qk_norms = false;  // qk_layer_norms_perceiver
};

IdeficsResampler read_resampler(const ModelConfig& p) {
  IdeficsResampler r;
  r.latents = p.dim_or("resampler_n_latents", r.latents);
  r.depth = p.layers_or("resampler_depth", r.depth);
  r.heads = p.dim_or("resampler_n_heads", r.heads);
  r.head_dim = p.dim_or("resampler_head_dim", r.head_dim);
  r.qk_norms = p.flag_or("qk_layer_norms_perceiver", r.qk_norms);
  return r;
}

// IdeficsPerceiverResampler under `p`: the latents, then per block a perceiver attention (LayerNorms of the
// context and of the latents, bias-free projections to heads x head_dim) and a ReLU MLP four times the
// vision width, and a final LayerNorm. It works at the vision tower's width `e`.
void perceiver_resampler(ModelTemplate& t, const std::string& p, const IdeficsResampler& r, uint64_t e) {
  t.add(p + "latents", {r.latents, e});
  const uint64_t inner = r.heads * r.head_dim;
  for (uint64_t i = 0; i < r.depth; ++i) {
    const std::string a = p + "blocks." + std::to_string(i) + ".0.";
    blocks::norm(t, a + "context_layer_norm", e, true);
    blocks::norm(t, a + "latents_layer_norm", e, true);
    if (r.qk_norms) {
      blocks::norm(t, a + "q_layer_norm", r.head_dim, true);
      blocks::norm(t, a + "k_layer_norm", r.head_dim, true);
    }
    blocks::linear(t, a + "q_proj", e, inner, false);
    blocks::linear(t, a + "k_proj", e, inner, false);
    blocks::linear(t, a + "v_proj", e, inner, false);
    blocks::linear(t, a + "output_proj", inner, e, false);
    const std::string m = p + "blocks." + std::to_string(i) + ".1.";
    blocks::norm(t, m + "ln", e, true);
    blocks::linear(t, m + "fc", e, 4 * e, false);
    blocks::linear(t, m + "c_proj", 4 * e, e, false);
  }
  blocks::norm(t, p + "layer_norm", e, true);
}

// IdeficsMLP: gate, down, up, registered in that order.
void idefics_mlp(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t inter) {
  blocks::linear(t, p + "gate_proj", h, inter, false);
  blocks::linear(t, p + "down_proj", inter, h, false);
  blocks::linear(t, p + "up_proj", h, inter, false);
}

// IdeficsAttention: bias-free q/k/v/o, keys and values read `kv_in`-wide states (the vision width for
// cross-attention); RMSNorms over each head's q and k when asked (only the gated layers pass qk_layer_norms).
void idefics_attention(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t kv_in, uint64_t head_dim,
                       bool qk_norms) {
  blocks::linear(t, p + "q_proj", h, h, false);
  blocks::linear(t, p + "k_proj", kv_in, h, false);
  blocks::linear(t, p + "v_proj", kv_in, h, false);
  blocks::linear(t, p + "o_proj", h, h, false);
  if (qk_norms) {
    blocks::norm(t, p + "q_layer_norm", head_dim, false);
    blocks::norm(t, p + "k_layer_norm", head_dim, false);
  }
}

// The gates' shape: alpha_type "float" one scalar each, "vector" one per channel. alpha_initializer must be
// one transformers knows (it raises on others).
Shape alpha_shape(const ModelConfig& cfg, uint64_t h) {
  const std::string init = cfg.string_or("alpha_initializer", "zeros");
  if (init != "zeros" && init != "ones" && init != "normal" && init != "gaussian" && init != "random")
    cfg.fail("alpha_initializer", "must be zeros, ones, normal, gaussian or random, not " + printable(init));
  const std::string type = cfg.string_or("alpha_type", "float");
  if (type == "float") return {1};
  if (type == "vector") return {1, 1, h};
  cfg.fail("alpha_type", "must be \"float\" or \"vector\", not " + printable(type));
}

// IdeficsModel under `p` ("model." in IdeficsForVisionText2Text).
void idefics_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t extra_vocab) {
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, inter = a.intermediate_size, head_dim = a.head_dim;
  blocks::embedding(t, p + "embed_tokens.weight", a.vocab_size - extra_vocab, h);
  if (extra_vocab) blocks::embedding(t, p + "embed_tokens.additional_embedding.weight", extra_vocab, h);

  // The width is embed_dim; a config may spell it hidden_size, the attribute_map alias.
  const ModelConfig vc = sub_or_empty(cfg, "vision_config");
  const bool aliased = !vc.has("embed_dim") && vc.has("hidden_size");
  const ClipLikeVision v = read_clip_like_vision(vc, kIdeficsVision, aliased ? "hidden_size" : "embed_dim");
  clip_like_vision_tower(t, p + "vision_model.", v);
  // The resampler is switched by the top-level use_resampler; perceiver_config.use_resampler is unused.
  if (cfg.flag_or("use_resampler", false)) {
    perceiver_resampler(t, p + "perceiver_resampler.", read_resampler(sub_or_empty(cfg, "perceiver_config")),
                        v.hidden);
    record_projector(t, p + "perceiver_resampler");
  }

  const uint64_t interval = cfg.dim_or("cross_layer_interval", 1);
  const bool qk_norms = cfg.flag_or("qk_layer_norms", false);
  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    idefics_attention(t, l + "self_attn.", h, h, head_dim, false);
    idefics_mlp(t, l + "mlp.", h, inter);
    blocks::norm(t, l + "input_layernorm", h, false);
    blocks::norm(t, l + "post_attention_layernorm", h, false);
    LayerSpec s = attention_layer(a);
    // Before every interval-th layer a gated layer attends to the image: recorded as that layer's
    // cross-attention (its MLP is not in the record's layer shape).
    if (i % interval == 0 && i / interval < a.num_layers / interval) s.cross_attention = s.attention;
    stack.layers.push_back(s);
  }
  const Shape alpha = alpha_shape(cfg, h);
  for (uint64_t j = 0; j < a.num_layers / interval; ++j) {
    const std::string l = p + "gated_cross_attn_layers." + std::to_string(j) + ".";
    // The gates are the layer's own parameters: state_dict lists them before its submodules.
    t.add(l + "alpha_cross_attn", alpha);
    t.add(l + "alpha_dense", alpha);
    idefics_attention(t, l + "cross_attn.", h, v.hidden, head_dim, qk_norms);
    idefics_mlp(t, l + "mlp.", h, inter);
    blocks::norm(t, l + "input_layernorm", h, false);
    blocks::norm(t, l + "post_attention_layernorm", h, false);
  }
  blocks::norm(t, p + "norm", h, false);
}

}  // namespace

void build_idefics(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "IdeficsForVisionText2Text");
  const std::string task = supported_task(cfg, cls, "Idefics", {"ForVisionText2Text", "Model"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  const uint64_t vocab = cfg.dim_or("vocab_size", 32000), extra = cfg.count_or("additional_vocab_size", 0);
  a.vocab_size = vocab + extra;  // the logits' width: both heads concatenated
  a.hidden_size = cfg.dim_or("hidden_size", 4096);
  a.intermediate_size = cfg.dim_or("intermediate_size", 11008);
  a.num_layers = cfg.layers_or("num_hidden_layers", 32);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 32);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  // IdeficsEmbedding's rotary table defaults to 2,048 positions; the configs' max_sequence_length agrees.
  a.max_position_embeddings = cfg.dim_or("max_position_embeddings", 2048);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  if (task == "Model") {
    idefics_model(cfg, t, "", extra);
    return;
  }
  idefics_model(cfg, t, "model.", extra);
  // IdeficsDecoupledLinear without bias: the frozen rows, then the additional ones as additional_fc.
  tied_or_own(t, "lm_head.weight", "model.embed_tokens.weight", a.tie_word_embeddings);
  if (extra)
    tied_or_own(t, "lm_head.additional_fc.weight", "model.embed_tokens.additional_embedding.weight",
                a.tie_word_embeddings);
}

}  // namespace ma::families

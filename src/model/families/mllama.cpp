// Llama 3.2 Vision (model_type mllama, MllamaForConditionalGeneration): a tiled ViT whose output feeds,
// through one linear projector, the language model's cross-attention layers. Unlike LLaVA-style models the
// image never enters the token sequence: the listed cross_attention_layers replace self-attention with
// attention over the image features (q/k norms per head and two tanh gates), and the other layers are
// Llama's.
//
// The tower cuts an image into up to max_num_tiles tiles of image_size pixels. Each tile's patches (a class
// token and (image_size / patch_size)^2 patches) get learned positions, gated positions per tile and aspect
// ratio (tile_embedding: one row per supported ratio and a padding row 0), and, before and after the local
// layers, a gated embedding per tile. num_global_layers more layers, with tanh gates on attention and MLP,
// follow; vision_output_dim is the final state and the intermediate_layers_indices states side by side.
#include <array>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

struct MllamaVision {
  uint64_t hidden = 1280, layers = 32, global_layers = 8, heads = 16, intermediate = 5120;
  uint64_t channels = 3, image = 448, patch = 14, tiles = 4, output = 7680;
  uint64_t aspect_ratios = 8;  // supported_aspect_ratios' length: max_aspect_ratio_id
  uint64_t patches() const { return (image / patch) * (image / patch) + 1; }  // with the class token
};

MllamaVision read_vision(const ModelConfig& v) {
  MllamaVision m;
  m.hidden = v.dim_or("hidden_size", m.hidden);
  m.layers = v.layers_or("num_hidden_layers", m.layers, 0);
  m.global_layers = v.layers_or("num_global_layers", m.global_layers, 0);
  m.heads = v.dim_or(v.has("attention_heads") ? "attention_heads" : "num_attention_heads", m.heads);
  if (m.hidden % m.heads != 0) v.fail("attention_heads", "must divide hidden_size");
  m.intermediate = v.dim_or("intermediate_size", m.intermediate);
  m.channels = v.dim_or("num_channels", m.channels);
  m.image = v.dim_or("image_size", m.image);
  m.patch = v.dim_or("patch_size", m.patch);
  if (m.patch > m.image) v.fail("patch_size", "must not exceed image_size");
  m.tiles = v.dim_or("max_num_tiles", m.tiles);
  m.output = v.dim_or("vision_output_dim", m.output);
  if (const json::Value* r = v.raw("supported_aspect_ratios"); r && !r->is_null()) {
    if (!r->is_array() || r->items().empty()) v.fail("supported_aspect_ratios", "must be a non-empty list");
    m.aspect_ratios = r->items().size();
  } else if (m.tiles != 4) {
    v.fail("supported_aspect_ratios", "must be given when max_num_tiles is not 4 (the default list's)");
  }
  return m;
}

// One ViT layer: bias-free attention, a biased fc1 / fc2 MLP, LayerNorms with biases; a global layer adds
// its two tanh gates.
void vision_layer(ModelTemplate& t, const std::string& p, const MllamaVision& v, bool global) {
  for (const char* proj : {"q_proj", "k_proj", "v_proj", "o_proj"})
    blocks::linear(t, p + ".self_attn." + proj, v.hidden, v.hidden, false);
  blocks::linear(t, p + ".mlp.fc1", v.hidden, v.intermediate, true);
  blocks::linear(t, p + ".mlp.fc2", v.intermediate, v.hidden, true);
  blocks::norm(t, p + ".input_layernorm", v.hidden, true);
  blocks::norm(t, p + ".post_attention_layernorm", v.hidden, true);
  if (global) {
    t.add(p + ".gate_attn", {1});
    t.add(p + ".gate_ffn", {1});
  }
}

void vision_model(ModelTemplate& t, const std::string& p, const MllamaVision& v) {
  const uint64_t rows = v.aspect_ratios + 1;  // aspect-ratio ids, 0 the padding
  t.add(p + "patch_embedding.weight", {v.hidden, v.channels, v.patch, v.patch});
  t.add(p + "class_embedding", {v.hidden});
  t.add(p + "gated_positional_embedding.embedding", {v.patches(), v.hidden});
  t.add(p + "gated_positional_embedding.gate", {1});
  t.add(p + "gated_positional_embedding.tile_embedding.weight", {rows, v.tiles * v.patches() * v.hidden});
  for (const char* tile : {"pre_tile_positional_embedding", "post_tile_positional_embedding"}) {
    t.add(p + tile + ".embedding.weight", {rows, v.tiles * v.hidden});
    t.add(p + tile + ".gate", {1});
  }
  blocks::norm(t, p + "layernorm_pre", v.hidden, true);
  blocks::norm(t, p + "layernorm_post", v.hidden, true);
  for (uint64_t i = 0; i < v.layers; ++i)
    vision_layer(t, p + "transformer.layers." + std::to_string(i), v, false);
  for (uint64_t i = 0; i < v.global_layers; ++i)
    vision_layer(t, p + "global_transformer.layers." + std::to_string(i), v, true);
  // One vision stack of the local and global layers together (the same shape; the global ones add two
  // scalar gates), whose output the language model's cross-attention reads: every tile's patches.
  record_vision_tower(t, p + "transformer.layers", v.hidden, v.layers + v.global_layers, v.heads,
                      v.hidden / v.heads, v.intermediate, v.patch, v.image);
  t.arch.stack(StackRole::Vision)->positions = v.tiles * v.patches();
}

void language_model(ModelTemplate& t, const std::string& p, const ModelConfig& text) {
  ArchitectureRecord& a = t.arch;
  std::vector<int64_t> cross = text.ints("cross_attention_layers");
  if (!text.has("cross_attention_layers")) cross = {3, 8, 13, 18, 23, 28, 33, 38};
  std::vector<bool> is_cross(a.num_layers, false);
  for (int64_t i : cross) {
    if (i < 0 || static_cast<uint64_t>(i) >= a.num_layers)
      text.fail("cross_attention_layers", "each entry must be a layer index below num_hidden_layers");
    is_cross[static_cast<size_t>(i)] = true;
  }
  // The converted checkpoints append Meta's 8 learnable image-token rows to the vocabulary's embeddings;
  // the head keeps vocab_size rows.
  blocks::embedding(t, p + "embed_tokens.weight", a.vocab_size + 8, a.hidden_size);
  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "layers");
  blocks::Attention at = standard_attention(a);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i);
    LayerSpec spec = attention_layer(a);
    if (is_cross[i]) {
      blocks::Attention ca = at;
      ca.qk_norm = true;
      blocks::attention(t, l + ".cross_attn", ca);
      t.add(l + ".cross_attn_attn_gate", {1});
      t.add(l + ".cross_attn_mlp_gate", {1});
      spec.cross_attention = spec.attention;
      spec.mixer = Mixer::None;
    } else {
      blocks::attention(t, l + ".self_attn", at);
    }
    blocks::gated_mlp(t, l + ".mlp", a.hidden_size, a.intermediate_size);
    blocks::norm(t, l + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, l + ".post_attention_layernorm", a.hidden_size, false);
    stack.layers.push_back(spec);
  }
  blocks::norm(t, p + "norm", a.hidden_size, false);
}

void build_mllama(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MllamaForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "mllama_text_model");
  DecoderDefaults d;
  d.vocab_size = 128256;
  d.intermediate_size = 14336;
  d.num_hidden_layers = 40;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 131072;
  read_decoder_dims(text, d, t);
  // embed_tokens has 8 rows more than lm_head: the two cannot be one tensor.
  if (tie_embeddings(cfg, text, false))
    text.fail("tie_word_embeddings", "cannot hold: embed_tokens has vocab_size + 8 rows, lm_head vocab_size");
  const MllamaVision v = read_vision(sub_or_empty(cfg, "vision_config"));
  vision_model(t, "model.vision_model.", v);
  blocks::linear(t, "model.multi_modal_projector", v.output, t.arch.hidden_size, true);
  record_projector(t, "model.multi_modal_projector");
  language_model(t, "model.language_model.", text);
  t.add("lm_head.weight", {t.arch.vocab_size, t.arch.hidden_size});
  // Hub checkpoints keep transformers 4's names (MllamaForConditionalGeneration before 4.52).
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("model.vision_model.", "vision_model.");
  t.rename_on_disk("model.multi_modal_projector.", "multi_modal_projector.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
}

constexpr std::array kMllamaFamilies{FamilyBuilder{"mllama", build_mllama}};

}  // namespace

std::span<const FamilyBuilder> mllama() {
  return kMllamaFamilies;
}

}  // namespace ma::families

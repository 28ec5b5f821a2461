#include "model/families/multimodal_towers.h"

#include <array>
#include <cmath>
#include <optional>

#include "core/checked.h"
#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"

namespace ma::families {
namespace {

// Width of each head; fails when the heads do not split the width evenly.
uint64_t even_head_dim(const ModelConfig& v, uint64_t hidden, uint64_t heads) {
  if (hidden % heads != 0)
    v.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(hidden) + ")");
  return hidden / heads;
}

// Patches per image side; the image must hold at least one patch.
uint64_t patches_per_side(const ModelConfig& v, uint64_t image, uint64_t patch) {
  if (patch > image) v.fail("patch_size", "must not exceed image_size (" + std::to_string(image) + ")");
  return image / patch;
}

// Where the ViT-style encoder layers differ: names, and the order transformers registers their modules in
// (which is the state_dict's). CLIPEncoderLayer: self_attn (k, v, q, out), layer_norm1, mlp, layer_norm2.
// SiglipEncoderLayer and HunYuanVLVisionBlock: layer_norm1, self_attn, layer_norm2, mlp. Llama4's
// vision layer: self_attn (q, k, v, o), mlp, then both norms.
enum class VitOrder { Clip, NormBeforeEach, NormsLast };
struct VitLayerNames {
  std::string out = "out_proj";
  std::string norm1 = "layer_norm1";
  std::string norm2 = "layer_norm2";
  VitOrder order = VitOrder::Clip;
  bool key_first = true;  // CLIPAttention and SiglipAttention register k_proj, v_proj, q_proj
};

// Biased q/k/v/out attention, two LayerNorms and a fc1/fc2 MLP.
void vit_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t inter,
               const VitLayerNames& n) {
  const auto attention = [&] {
    for (const char* proj :
         n.key_first ? std::array{"k_proj", "v_proj", "q_proj"} : std::array{"q_proj", "k_proj", "v_proj"})
      blocks::linear(t, p + "self_attn." + proj, hidden, hidden, true);
    blocks::linear(t, p + "self_attn." + n.out, hidden, hidden, true);
  };
  const auto mlp = [&] {
    blocks::linear(t, p + "mlp.fc1", hidden, inter, true);
    blocks::linear(t, p + "mlp.fc2", inter, hidden, true);
  };
  const auto norm = [&](const std::string& name) { blocks::norm(t, p + name, hidden, true); };
  switch (n.order) {
    case VitOrder::Clip:
      attention(), norm(n.norm1), mlp(), norm(n.norm2);
      break;
    case VitOrder::NormBeforeEach:
      norm(n.norm1), attention(), norm(n.norm2), mlp();
      break;
    case VitOrder::NormsLast:
      attention(), mlp(), norm(n.norm1), norm(n.norm2);
      break;
  }
}

// SiglipMultiheadAttentionPoolingHead: a learned probe attending over the patches (torch MultiheadAttention).
void siglip_head(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t inter) {
  t.add(p + "probe", {1, 1, hidden});
  t.add(p + "attention.in_proj_weight", {3 * hidden, hidden});
  t.add(p + "attention.in_proj_bias", {3 * hidden});
  blocks::linear(t, p + "attention.out_proj", hidden, hidden, true);
  blocks::norm(t, p + "layernorm", hidden, true);
  blocks::linear(t, p + "mlp.fc1", hidden, inter, true);
  blocks::linear(t, p + "mlp.fc2", inter, hidden, true);
}

// Gemma4ClippableLinear: a bias-free linear under `.linear`, with scalar clamp bounds when clipping is on
// (its own buffers, so before the linear's weight in state_dict).
void clippable_linear(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, bool clipped) {
  if (clipped)
    for (const char* b : {".input_min", ".input_max", ".output_min", ".output_max"})
      t.add(p + b, {}).kind = TensorKind::Buffer;
  blocks::linear(t, p + ".linear", in, out, false);
}

// CLIP's or SigLIP's text transformer, the config's fields defaulting to `d`'s.
uint64_t clip_or_siglip_text_tower(const ModelConfig& c, const std::string& prefix, bool siglip,
                                   const ClipTextDefaults& d, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.vocab_size = c.dim_or("vocab_size", d.vocab);
  a.hidden_size = c.dim_or("hidden_size", d.hidden);
  a.intermediate_size = c.dim_or("intermediate_size", d.intermediate);
  a.num_layers = c.layers_or("num_hidden_layers", d.layers);
  a.num_attention_heads = a.num_key_value_heads = c.dim_or("num_attention_heads", d.heads);
  a.head_dim = even_head_dim(c, a.hidden_size, a.num_attention_heads);
  a.max_position_embeddings = c.dim_or("max_position_embeddings", d.positions);
  const uint64_t h = a.hidden_size;
  blocks::embedding(t, prefix + "embeddings.token_embedding.weight", a.vocab_size, h);
  blocks::embedding(t, prefix + "embeddings.position_embedding.weight", a.max_position_embeddings, h);
  StackSpec& s = a.add_stack(StackRole::Encoder, prefix + "encoder.layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    vit_layer(t, s.path + "." + std::to_string(i) + ".", h, a.intermediate_size,
              {.order = siglip ? VitOrder::NormBeforeEach : VitOrder::Clip});
    s.layers.push_back(LayerSpec{});
  }
  blocks::norm(t, prefix + "final_layer_norm", h, true);
  if (!siglip) return h;
  const uint64_t out = c.dim_or("projection_size", h);
  blocks::linear(t, prefix + "head", h, out, true);
  return out;
}

}  // namespace

void siglip_encoder_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t intermediate) {
  vit_layer(t, p, hidden, intermediate, {.order = VitOrder::NormBeforeEach});
}

ModelConfig sub_or(const ModelConfig& cfg, std::string_view key, const char* dflt) {
  if (auto s = cfg.sub(key)) return *s;
  return cfg.derived(dflt);
}

ModelConfig sub_or_empty(const ModelConfig& cfg, std::string_view key) {
  return sub_or(cfg, key, "{}");
}

uint64_t pixel_shuffled_width(const ModelConfig& cfg, uint64_t vision) {
  const double ratio = cfg.number_or("downsample_ratio", 0.5);
  if (!(ratio >= 1.0 / 8192 && ratio <= 1)) cfg.fail("downsample_ratio", "must be in [1/8192, 1]");
  const auto fold = static_cast<uint64_t>(1 / ratio);
  if (fold * fold > ModelConfig::kMaxValue / vision)
    cfg.fail("downsample_ratio", "folds more patches into a token than any width holds");
  return vision * fold * fold;
}

std::string first_architecture(const ModelConfig& cfg) {
  std::vector<std::string> archs = cfg.strings("architectures");
  return archs.empty() ? std::string() : archs.front();
}

bool tie_embeddings(const ModelConfig& cfg, const ModelConfig& text, bool dflt) {
  if (cfg.has("tie_word_embeddings")) return cfg.flag_or("tie_word_embeddings", dflt);
  return text.flag_or("tie_word_embeddings", dflt);
}

void v4_conditional_disk_names(ModelTemplate& t, std::string_view tower) {
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("model.vision_tower.", tower);
  t.rename_on_disk("model.multi_modal_projector.", "multi_modal_projector.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
}

void unsupported(const ModelConfig& cfg, const std::string& what) {
  throw Error(ErrorKind::Unsupported, cfg.file(), "model_type", "unsupported architecture: " + what);
}

VitDefaults clip_vision_defaults() {
  VitDefaults d;
  d.patch_size = 32;
  return d;
}

VitDefaults siglip_vision_defaults() {
  VitDefaults d;
  d.use_head = true;
  return d;
}

// SigLIP 2's NaFlex patch embedding: the processor cuts each image into patches of channels x patch^2
// values, so it is a linear rather than a Conv2d, and its position table (num_patches entries, a square grid)
// is resized to each image's grid of patches.
void naflex_embeddings(const ModelConfig& v, const std::string& e, uint64_t hidden, uint64_t channels,
                       uint64_t patch, ModelTemplate& t) {
  const std::optional<uint64_t> values = checked_mul(channels, patch * patch);  // each at most 2^26
  if (!values) v.fail("patch_size", "squared times num_channels overflows 64-bit arithmetic");
  blocks::linear(t, e + "patch_embedding", *values, hidden, true);
  const uint64_t positions = v.dim_or("num_patches", 256);
  const auto side = static_cast<uint64_t>(std::sqrt(static_cast<double>(positions)));
  if (side * side != positions) v.fail("num_patches", "must be a square number (the table is a square grid)");
  blocks::embedding(t, e + "position_embedding.weight", positions, hidden);
}

uint64_t vit_tower(const ModelConfig& v, const std::string& prefix, const VitDefaults& d, ModelTemplate& t) {
  std::string type(d.model_type);
  if (!d.model_type_fixed)
    type = v.string_or("model_type", !d.model_type.empty() ? d.model_type
                                     : d.use_head          ? "siglip_vision_model"
                                                           : "clip_vision_model");
  // The vision transformers of Idefics2 (whose older configs name it "idefics2"), Idefics3, SmolVLM,
  // MiniCPM-V 4.6 and PaddleOCR-VL (whose Hub configs name it "paddleocr_vl") are SigLIP's modules without
  // the pooling head.
  const bool headless = type == "idefics2_vision" || type == "idefics2" || type == "idefics3_vision" ||
                        type == "smolvlm_vision" || type == "minicpmv4_6_vision" ||
                        type == "paddleocr_vl_vision" || type == "paddleocr_vl" ||
                        type == "cosmos3_edge_vision";
  // Cosmos3-Edge's tower is SigLIP 2's NaFlex one, headless.
  const bool naflex = type == "siglip2_vision_model" || type == "cosmos3_edge_vision";
  // Phi-4-multimodal's tower is SigLIP's with its head.
  const bool siglip = type == "siglip_vision_model" || type == "phi4_multimodal_vision" || naflex || headless;
  if (!siglip && type != "clip_vision_model")
    v.fail("model_type", "vision tower '" + type + "' is not supported here");
  const uint64_t hidden = v.dim_or("hidden_size", d.hidden_size);
  const uint64_t inter = v.dim_or("intermediate_size", d.intermediate_size);
  const uint64_t layers = v.layers_or("num_hidden_layers", d.num_hidden_layers);
  even_head_dim(v, hidden, v.dim_or("num_attention_heads", d.num_attention_heads));
  const uint64_t channels = v.dim_or("num_channels", d.num_channels);
  const uint64_t patch = v.dim_or("patch_size", d.patch_size);
  const std::string e = prefix + "embeddings.";
  // NaFlex towers take images of any size: the record's image side is 0, dynamic.
  const uint64_t image = naflex ? 0 : v.dim_or("image_size", d.image_size);
  if (naflex) {
    naflex_embeddings(v, e, hidden, channels, patch, t);
  } else {
    const uint64_t side = patches_per_side(v, image, patch);
    if (!siglip) {
      t.add(e + "class_embedding", {hidden});
      t.add(e + "patch_embedding.weight", {hidden, channels, patch, patch});
      blocks::embedding(t, e + "position_embedding.weight", side * side + 1, hidden);
      blocks::norm(t, prefix + "pre_layrnorm", hidden, true);  // sic: CLIP's attribute name
    } else {
      t.add(e + "patch_embedding.weight", {hidden, channels, patch, patch});  // a biased Conv2d
      t.add(e + "patch_embedding.bias", {hidden});
      blocks::embedding(t, e + "position_embedding.weight", side * side, hidden);
    }
  }
  // Idefics2EncoderLayer (and its copies in Idefics3 and SmolVLM) registers CLIP's order: self_attn,
  // layer_norm1, mlp, layer_norm2.
  const bool idefics_layers = type == "idefics2_vision" || type == "idefics2" || type == "idefics3_vision" ||
                              type == "smolvlm_vision";
  const VitLayerNames names{.order = siglip && !idefics_layers ? VitOrder::NormBeforeEach : VitOrder::Clip};
  for (uint64_t i = 0; i < layers; ++i)
    vit_layer(t, prefix + "encoder.layers." + std::to_string(i) + ".", hidden, inter, names);
  const uint64_t heads = v.dim_or("num_attention_heads", d.num_attention_heads);
  record_vision_tower(t, prefix + "encoder.layers", hidden, layers, heads, hidden / heads, inter, patch,
                      image);
  blocks::norm(t, prefix + "post_layernorm", hidden, true);
  if (siglip && !headless && v.flag_or("vision_use_head", d.use_head))
    siglip_head(t, prefix + "head.", hidden, inter);
  return hidden;
}

uint64_t clip_text_tower(const ModelConfig& c, const std::string& prefix, bool siglip, ModelTemplate& t,
                         uint64_t default_positions) {
  // CLIPTextConfig's and SiglipTextConfig's defaults.
  ClipTextDefaults d;
  if (siglip)
    d = {.vocab = 32000, .hidden = 768, .intermediate = 3072, .layers = 12, .heads = 12, .positions = 64};
  if (default_positions != 0) d.positions = default_positions;
  return clip_or_siglip_text_tower(c, prefix, siglip, d, t);
}

uint64_t clip_text_tower(const ModelConfig& c, const std::string& prefix, const ClipTextDefaults& d,
                         ModelTemplate& t) {
  return clip_or_siglip_text_tower(c, prefix, false, d, t);
}

uint64_t pixtral_vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 1024);
  const uint64_t inter = v.dim_or("intermediate_size", 4096);
  const uint64_t layers = v.layers_or("num_hidden_layers", 24);
  const uint64_t heads = v.dim_or("num_attention_heads", 16);
  const uint64_t patch = v.dim_or("patch_size", 16);
  t.add(prefix + "patch_conv.weight", {hidden, v.dim_or("num_channels", 3), patch, patch});
  blocks::norm(t, prefix + "ln_pre", hidden, false);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "transformer.layers." + std::to_string(i) + ".";
    // PixtralAttentionLayer registers feed_forward before attention, and k_proj, v_proj before q_proj.
    blocks::norm(t, p + "attention_norm", hidden, false);
    blocks::gated_mlp(t, p + "feed_forward", hidden, inter);
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "o_proj"})
      blocks::linear(t, p + "attention." + proj, hidden, hidden, false);
    blocks::norm(t, p + "ffn_norm", hidden, false);
  }
  record_vision_tower(t, prefix + "transformer.layers", hidden, layers, heads,
                      even_head_dim(v, hidden, heads), inter, patch, v.dim_or("image_size", 1024));
  return hidden;
}

void record_conformer_stack(ModelTemplate& t, const std::string& path, uint64_t hidden, uint64_t layers,
                            uint64_t heads, uint64_t head_dim, uint64_t mel_bins, uint64_t context_left) {
  StackSpec& stack = t.arch.add_stack(StackRole::Audio, path, hidden);
  stack.mel_bins = mel_bins;
  LayerSpec l;
  l.attention.heads = l.attention.kv_heads = heads;
  l.attention.head_dim = head_dim;
  l.attention.span = Span::Sliding;
  l.attention.window = context_left - 1;
  l.ffn.gated = false;
  l.ffn.intermediate = 4 * hidden;
  stack.layers.assign(layers, l);
}

uint64_t gemma4_audio_tower(const ModelConfig& a, const std::string& prefix, ModelTemplate& t) {
  const uint64_t h = a.dim_or("hidden_size", 1024), layers = a.layers_or("num_hidden_layers", 12);
  const uint64_t heads = a.dim_or("num_attention_heads", 8), hd = even_head_dim(a, h, heads);
  const uint64_t kernel = a.dim_or("conv_kernel_size", 5), out = a.dim_or("output_proj_dims", 1536);
  const bool clipped = a.flag_or("use_clipped_linears", true);
  uint64_t c0 = 128, c1 = 32;
  if (a.has("subsampling_conv_channels")) {
    const std::vector<int64_t> c = a.ints("subsampling_conv_channels");
    if (c.size() != 2 || c[0] < 4 || c[1] < 1 || c[0] > (int64_t{1} << 20) || c[1] > (int64_t{1} << 20))
      a.fail("subsampling_conv_channels",
             "must be two channel counts, the first at least 4, each at most 2^20");
    c0 = static_cast<uint64_t>(c[0]);
    c1 = static_cast<uint64_t>(c[1]);
  }
  const std::string s = prefix + "subsample_conv_projection.";
  t.add(s + "layer0.conv.weight", {c0, 1, 3, 3});
  blocks::norm(t, s + "layer0.norm", c0, false);  // LayerNorms without a bias
  t.add(s + "layer1.conv.weight", {c1, c0, 3, 3});
  blocks::norm(t, s + "layer1.norm", c1, false);
  // transformers sizes the projection (C0 / 4) x C1: the mel bins left after two stride-2 convolutions
  // times C1 only while C0 equals the 128 mel bins, as in every Gemma 4 audio config.
  blocks::linear(t, s + "input_proj_linear", (c0 / 4) * c1, h, false);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "layers." + std::to_string(i) + ".";
    for (const char* ff : {"feed_forward1.", "feed_forward2."}) {
      clippable_linear(t, p + ff + "ffw_layer_1", h, 4 * h, clipped);
      clippable_linear(t, p + ff + "ffw_layer_2", 4 * h, h, clipped);
      blocks::norm(t, p + ff + "pre_layer_norm", h, false);
      blocks::norm(t, p + ff + "post_layer_norm", h, false);
    }
    for (const char* proj : {"q_proj", "k_proj", "v_proj"})
      clippable_linear(t, p + "self_attn." + proj, h, heads * hd, clipped);
    clippable_linear(t, p + "self_attn.post", h, h, clipped);
    blocks::linear(t, p + "self_attn.relative_k_proj", h, heads * hd, false);
    t.add(p + "self_attn.per_dim_scale", {hd});
    clippable_linear(t, p + "lconv1d.linear_start", h, 2 * h, clipped);
    clippable_linear(t, p + "lconv1d.linear_end", h, h, clipped);
    t.add(p + "lconv1d.depthwise_conv1d.weight", {h, 1, kernel});
    blocks::norm(t, p + "lconv1d.pre_layer_norm", h, false);
    blocks::norm(t, p + "lconv1d.conv_norm", h, false);
    for (const char* n : {"norm_pre_attn", "norm_post_attn", "norm_out"}) blocks::norm(t, p + n, h, false);
  }
  blocks::linear(t, prefix + "output_proj", h, out, true);
  // 128 mel bins: the feature extractor's; the config names none.
  record_conformer_stack(t, prefix + "layers", h, layers, heads, hd, 128,
                         a.dim_or("attention_context_left", 13));
  return out;
}

uint64_t minimax_m3_vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 1280), inter = v.dim_or("intermediate_size", 5120);
  const uint64_t layers = v.layers_or("num_hidden_layers", 32);
  const uint64_t heads = v.dim_or("num_attention_heads", 16), patch = v.dim_or("patch_size", 14);
  t.add(prefix + "embeddings.proj.weight",
        {hidden, v.dim_or("num_channels", 3), v.dim_or("temporal_patch_size", 2), patch, patch});
  t.rename_on_disk(prefix + "embeddings.proj.", "vision_tower.vision_model.embeddings.patch_embedding.");
  blocks::norm(t, prefix + "pre_layrnorm", hidden, true);  // sic: CLIP's attribute name
  for (uint64_t i = 0; i < layers; ++i)
    vit_layer(t, prefix + "layers." + std::to_string(i) + ".", hidden, inter, {});
  record_vision_tower(t, prefix + "layers", hidden, layers, heads, even_head_dim(v, hidden, heads), inter,
                      patch, 0);
  t.rename_on_disk(prefix + "layers.", "vision_tower.vision_model.encoder.layers.");
  t.rename_on_disk(prefix, "vision_tower.vision_model.");
  return hidden;
}

void hunyuan_vl_vision_tower(const ModelConfig& v, const std::string& prefix, uint64_t text_hidden,
                             ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 1152), inter = v.dim_or("intermediate_size", 4304);
  const uint64_t layers = v.layers_or("num_hidden_layers", 27);
  const uint64_t heads = v.dim_or("num_attention_heads", 16), patch = v.dim_or("patch_size", 16);
  const uint64_t merge = v.dim_or("spatial_merge_size", 2);
  const uint64_t side = patches_per_side(v, v.dim_or("max_image_size", 2048), patch);
  const std::string e = prefix + "embeddings.";
  t.add(e + "patch_embedding.weight", {hidden, v.dim_or("num_channels", 3), patch, patch});
  t.add(e + "patch_embedding.bias", {hidden});
  blocks::embedding(t, e + "position_embedding.weight", side * side + 1, hidden);  // row 0 is never read
  const VitLayerNames names{.out = "o_proj", .order = VitOrder::NormBeforeEach, .key_first = false};
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = "layers." + std::to_string(i) + ".";
    vit_layer(t, prefix + l, hidden, inter, names);
    for (auto [memory, disk] : {std::pair{"layer_norm1.", "input_layernorm."},
                                {"layer_norm2.", "post_attention_layernorm."},
                                {"mlp.fc1.", "mlp.dense_h_to_4h."},
                                {"mlp.fc2.", "mlp.dense_4h_to_h."}})
      t.rename_on_disk(prefix + l + memory, "vit." + l + disk);
  }
  record_vision_tower(t, prefix + "layers", hidden, layers, heads, even_head_dim(v, hidden, heads), inter,
                      patch, 0);
  // The merger: each merge x merge square of patches through a strided conv to twice the width, a 1 x 1
  // conv to four times it, a newline vector closing each row of squares, then a linear to the text width
  // between begin and end vectors (the separator vector is stored, never read).
  const std::string m = prefix + "patch_merger.";
  blocks::norm(t, m + "before_rms", hidden, false);
  t.add(m + "proj_conv.weight", {2 * hidden, hidden, merge, merge});
  t.add(m + "proj_conv.bias", {2 * hidden});
  t.add(m + "proj_out.weight", {4 * hidden, 2 * hidden, 1, 1});
  t.add(m + "proj_out.bias", {4 * hidden});
  t.add(m + "image_newline", {4 * hidden});
  blocks::linear(t, m + "mlp", 4 * hidden, text_hidden, true);
  for (const char* vector : {"image_begin", "image_end", "image_sep"}) t.add(m + vector, {text_hidden});
  blocks::norm(t, m + "after_rms", text_hidden, false);
  record_projector(t, m.substr(0, m.size() - 1));
  t.rename_on_disk(m + "proj_conv.", "vit.perceive.proj.0.");
  t.rename_on_disk(m + "proj_out.", "vit.perceive.proj.2.");
  t.rename_on_disk(m, "vit.perceive.");
  t.rename_on_disk(prefix, "vit.");
}

uint64_t gemma4_vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 768);
  const uint64_t inter = v.dim_or("intermediate_size", 3072);
  const uint64_t layers = v.layers_or("num_hidden_layers", 16);
  const uint64_t heads = v.dim_or("num_attention_heads", 12);
  const uint64_t kv_heads = v.dim_or("num_key_value_heads", 12);
  if (heads % kv_heads != 0)
    v.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(heads) + ")");
  const uint64_t head_dim = v.dim_or("head_dim", 64);
  const uint64_t patch = v.dim_or("patch_size", 16);
  const bool clipped = v.flag_or("use_clipped_linears", false);
  // The tower's own standardization buffers lead its state_dict.
  if (v.flag_or("standardize", false)) {
    t.add(prefix + "std_bias", {hidden}).kind = TensorKind::Buffer;
    t.add(prefix + "std_scale", {hidden}).kind = TensorKind::Buffer;
  }
  // The embedder's own table, then its input_proj module.
  t.add(prefix + "patch_embedder.position_embedding_table",
        {2, v.dim_or("position_embedding_size", 10240), hidden});
  t.add(prefix + "patch_embedder.input_proj.weight", {hidden, 3 * patch * patch});
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "encoder.layers." + std::to_string(i) + ".";
    clippable_linear(t, p + "self_attn.q_proj", hidden, heads * head_dim, clipped);
    clippable_linear(t, p + "self_attn.k_proj", hidden, kv_heads * head_dim, clipped);
    clippable_linear(t, p + "self_attn.v_proj", hidden, kv_heads * head_dim, clipped);
    clippable_linear(t, p + "self_attn.o_proj", heads * head_dim, hidden, clipped);
    blocks::norm(t, p + "self_attn.q_norm", head_dim, false);
    blocks::norm(t, p + "self_attn.k_norm", head_dim, false);
    clippable_linear(t, p + "mlp.gate_proj", hidden, inter, clipped);
    clippable_linear(t, p + "mlp.up_proj", hidden, inter, clipped);
    clippable_linear(t, p + "mlp.down_proj", inter, hidden, clipped);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"})
      blocks::norm(t, p + n, hidden, false);
  }
  record_vision_tower(t, prefix + "encoder.layers", hidden, layers, heads, head_dim, inter, patch, 0);
  for (LayerSpec& l : t.arch.stack(StackRole::Vision)->layers) l.attention.kv_heads = kv_heads;
  return hidden;
}

uint64_t llama4_vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 768);
  const uint64_t inter = v.dim_or("intermediate_size", 5632);
  const uint64_t layers = v.layers_or("num_hidden_layers", 34);
  even_head_dim(v, hidden, v.dim_or("num_attention_heads", 16));
  const uint64_t channels = v.dim_or("num_channels", 3);
  const uint64_t patch = v.dim_or("patch_size", 14);
  const uint64_t side = patches_per_side(v, v.dim_or("image_size", 448), patch);
  // The module's own Parameters come before its submodules' in named_parameters().
  t.add(prefix + "class_embedding", {hidden});
  t.add(prefix + "positional_embedding_vlm", {side * side + 1, hidden});  // a Parameter, not an nn.Embedding
  t.add(prefix + "patch_embedding.linear.weight", {hidden, channels * patch * patch});
  blocks::norm(t, prefix + "layernorm_pre", hidden, true);
  blocks::norm(t, prefix + "layernorm_post", hidden, true);
  const VitLayerNames names{"o_proj", "input_layernorm", "post_attention_layernorm", VitOrder::NormsLast,
                            false};
  for (uint64_t i = 0; i < layers; ++i)
    vit_layer(t, prefix + "model.layers." + std::to_string(i) + ".", hidden, inter, names);
  const uint64_t heads = v.dim_or("num_attention_heads", 16);
  record_vision_tower(t, prefix + "model.layers", hidden, layers, heads, hidden / heads, inter, patch,
                      v.dim_or("image_size", 448));
  const uint64_t proj_out = v.dim_or("projector_output_dim", 4096);
  blocks::linear(t, prefix + "vision_adapter.mlp.fc1", inter, v.dim_or("projector_input_dim", 4096), false);
  blocks::linear(t, prefix + "vision_adapter.mlp.fc2", proj_out, proj_out, false);
  return v.dim_or("vision_output_dim", 7680);
}

}  // namespace ma::families

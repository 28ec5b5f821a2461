// CLIPSeg (CIDAS/clipseg-rd64-*): a frozen CLIP (CLIPSegModel, CLIPModel under CLIPSeg class names and
// CLIPConfig's defaults) and, in CLIPSegForImageSegmentation, a light decoder reading the vision tower's
// hidden states at extract_layers: each is reduced to reduce_dim, conditioned by FiLM on the prompt's
// projection, passed through a post-norm CLIP layer of that width, and the patch grid is upsampled back to
// pixels by transposed convolutions.
#include "model/blocks.h"
#include "model/families/clip_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// CLIPSegModel under `prefix`: CLIPModel's logit_scale (a 0-dimensional parameter of the model itself,
// listed before its modules'), text and vision transformers and bias-free projections. CLIPSegConfig rebuilds
// its sub-configs as CLIP's classes whatever model_type they name (clipseg_text_model ...).
struct ClipSegWidths {
  uint64_t vision = 0, projection = 0;
};
ClipSegWidths clipseg_clip(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix) {
  t.add(prefix + "logit_scale", {});
  const uint64_t text = clip_text_tower(sub_or_empty(cfg, "text_config"), prefix + "text_model.", false, t);
  VitDefaults vision_defaults = clip_vision_defaults();
  vision_defaults.model_type = "clip_vision_model";
  vision_defaults.model_type_fixed = true;
  const uint64_t vision =
      vit_tower(sub_or_empty(cfg, "vision_config"), prefix + "vision_model.", vision_defaults, t);
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  blocks::linear(t, prefix + "visual_projection", vision, projection, false);
  blocks::linear(t, prefix + "text_projection", text, projection, false);
  return {vision, projection};
}

// CLIPSegDecoderLayer is CLIPEncoderLayer's modules (k, v, q, out; layer_norm1; mlp.fc1, fc2; layer_norm2)
// applied post-norm.
LayerNames clipseg_decoder_layer_names() {
  LayerNames n;
  n.q = "self_attn.q_proj";
  n.k = "self_attn.k_proj";
  n.v = "self_attn.v_proj";
  n.o = "self_attn.out_proj";
  n.key_first = true;
  n.attn_norm = "layer_norm1";
  n.fc1 = "mlp.fc1";
  n.fc2 = "mlp.fc2";
  n.ffn_norm = "layer_norm2";
  return n;
}

// CLIPSegDecoder: film_mul, film_add, transposed_convolution, reduces, layers (registration order). One
// reduce and one layer per extract_layers entry; the layers are decoder_num_attention_heads heads over
// reduce_dim with decoder_intermediate_size MLPs.
void clipseg_decoder(const ModelConfig& cfg, ModelTemplate& t, const ClipSegWidths& w) {
  const uint64_t reduce = cfg.dim_or("reduce_dim", 64);
  // Only the number of extracted layers shapes the decoder (CLIPSegConfig's default: 3, 6, 9).
  const size_t depth = cfg.has("extract_layers") ? cfg.ints("extract_layers").size() : 3;
  cfg.check_layer_list("extract_layers", depth);
  blocks::linear(t, "decoder.film_mul", w.projection, reduce, true);
  blocks::linear(t, "decoder.film_add", w.projection, reduce, true);
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const uint64_t patch = vision.dim_or("patch_size", 32);
  const std::string up = "decoder.transposed_convolution";
  if (cfg.flag_or("use_complex_transposed_convolution", false)) {
    // A 3x3 conv, then two ConvTranspose2d of kernel = stride = patch_size / 4 (weights [in, out, k, k]).
    const uint64_t k = patch / 4;
    if (k == 0) vision.fail("patch_size", "must be at least 4 for the complex transposed convolution");
    if (reduce < 2) cfg.fail("reduce_dim", "must be at least 2 for the complex transposed convolution");
    blocks::conv2d(t, up + ".0", reduce, reduce, 3);
    t.add(up + ".2.weight", {reduce, reduce / 2, k, k});
    t.add(up + ".2.bias", {reduce / 2});
    t.add(up + ".4.weight", {reduce / 2, 1, k, k});
    t.add(up + ".4.bias", {1});
  } else {
    t.add(up + ".weight", {reduce, 1, patch, patch});  // ConvTranspose2d(reduce_dim, 1, patch, stride=patch)
    t.add(up + ".bias", {1});
  }
  for (size_t i = 0; i < depth; ++i)
    blocks::linear(t, "decoder.reduces." + std::to_string(i), w.vision, reduce, true);
  // The decoder layers are CLIP layers over reduce_dim (a deep copy of the vision config with its width,
  // heads and MLP replaced).
  const uint64_t heads = cfg.dim_or("decoder_num_attention_heads", 4);
  if (reduce % heads != 0)
    cfg.fail("decoder_num_attention_heads", "must divide reduce_dim (" + std::to_string(reduce) + ")");
  const LayerDims dims{
      .hidden = reduce, .heads = heads, .ffn = cfg.dim_or("decoder_intermediate_size", 2048)};
  for (size_t i = 0; i < depth; ++i)
    transformer_layer(t, "decoder.layers." + std::to_string(i), clipseg_decoder_layer_names(), dims);
}

}  // namespace

void build_clipseg(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CLIPSegModel");
  const std::string task = supported_task(cfg, cls, "CLIPSeg", {"Model", "ForImageSegmentation"});
  if (task == "Model") {
    clipseg_clip(cfg, t, "");
  } else {
    const ClipSegWidths w = clipseg_clip(cfg, t, "clip.");
    clipseg_decoder(cfg, t, w);
  }
  t.arch.architecture = cls;
}

}  // namespace ma::families

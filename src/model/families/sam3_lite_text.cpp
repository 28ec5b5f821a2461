// SAM 3 LiteText (transformers' Sam3LiteTextModel, EfficientSAM3's LiteText checkpoints): Sam3Model with
// CLIP's 24-layer text encoder replaced by a MobileCLIP text encoder (Sam3LiteTextTextModel, model_type
// sam3_lite_text_text_model). Everything else is SAM 3's: the image encoder (sam3_vision.cpp), the Linear
// from the text width to the DETR width and the detector's heads (sam3_detector.cpp), in Sam3Model's order.
// The text encoder: a token table and a learned [1, 1, positions, hidden] position table, SigLIP-style
// pre-norm layers, a final LayerNorm and a bias-free projection. With use_repmixer_blocks (MobileCLIP-S0's
// "mct" variant) its first and last layers are RepMixer blocks instead: depthwise (1 x k) convolutions with
// BatchNorms and a 1 x 1-convolution MLP, each branch scaled by a learned layer_scale.
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam3.h"

namespace ma::families {
namespace {

// Sam3LiteTextTextConfig's fields, defaulting to its class defaults.
struct LiteTextDims {
  uint64_t vocab, hidden, intermediate, projection, layers, heads, positions, kernel;
  bool repmixer;
};

LiteTextDims lite_text_dims(const ModelConfig& c) {
  LiteTextDims d{.vocab = c.dim_or("vocab_size", 49408),
                 .hidden = c.dim_or("hidden_size", 512),
                 .intermediate = c.dim_or("intermediate_size", 2048),
                 .projection = c.dim_or("projection_dim", 512),
                 .layers = c.layers_or("num_hidden_layers", 12, 0),
                 .heads = c.dim_or("num_attention_heads", 8),
                 .positions = c.dim_or("max_position_embeddings", 77),
                 .kernel = c.dim_or("repmixer_kernel_size", 11),
                 .repmixer = c.flag_or("use_repmixer_blocks", true)};
  // Sam3LiteTextTextAttention raises unless the heads divide the width.
  split_heads(c, "num_attention_heads", d.hidden, d.heads);
  return d;
}

// A depthwise nn.Conv2d over the sequence (kernel 1 x k, bias-free), then its trainable BatchNorm2d.
void lite_text_depthwise_conv_norm(ModelTemplate& t, const std::string& conv, const std::string& norm,
                                   const LiteTextDims& d) {
  t.add(conv + ".weight", {d.hidden, 1, 1, d.kernel});
  detr_batch_norm(t, norm, d.hidden, false);
}

// Sam3LiteTextRepMixerBlock under `p`: its own layer_scale (registered before its children), the token
// mixer (its layer_scale, the reference BatchNorm subtracted from the MobileOne branch, and that branch: a
// skip BatchNorm and the depthwise conv with its BatchNorm), then the convolutional feed-forward.
void lite_text_repmixer_block(ModelTemplate& t, const std::string& p, const LiteTextDims& d) {
  t.add(p + "layer_scale", {d.hidden, 1, 1});
  const std::string mixer = p + "token_mixer.";
  t.add(mixer + "layer_scale", {d.hidden, 1, 1});
  detr_batch_norm(t, mixer + "reference_batchnorm", d.hidden, false);
  detr_batch_norm(t, mixer + "mixer.batchnorm_skip", d.hidden, false);
  lite_text_depthwise_conv_norm(t, mixer + "mixer.conv", mixer + "mixer.batchnorm_conv", d);
  const std::string ffn = p + "conv_feed_forward.";
  lite_text_depthwise_conv_norm(t, ffn + "depthwise_conv", ffn + "depthwise_batchnorm", d);
  blocks::conv2d(t, ffn + "mlp.fc1", d.hidden, d.intermediate, 1);
  blocks::conv2d(t, ffn + "mlp.fc2", d.intermediate, d.hidden, 1);
}

// Sam3LiteTextTextModel under `prefix`; sets the record's text dimensions and records its layers as an
// encoder stack. Returns its width (what Sam3LiteTextModel's text_projection reads).
uint64_t lite_text_tower(const ModelConfig& c, const std::string& prefix, ModelTemplate& t) {
  const LiteTextDims d = lite_text_dims(c);
  ArchitectureRecord& a = t.arch;
  a.vocab_size = d.vocab;
  a.hidden_size = d.hidden;
  a.intermediate_size = d.intermediate;
  a.num_layers = d.layers;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.hidden / d.heads;
  a.max_position_embeddings = d.positions;
  blocks::embedding(t, prefix + "embeddings.token_embedding.weight", d.vocab, d.hidden);
  // A bare nn.Parameter, bilinearly resized when a sequence's length differs.
  t.add(prefix + "embeddings.position_embedding.position_embedding", {1, 1, d.positions, d.hidden});
  StackSpec& s = a.add_stack(StackRole::Encoder, prefix + "layers", d.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = s.path + "." + std::to_string(i) + ".";
    LayerSpec spec;
    spec.ffn.gated = false;
    spec.ffn.intermediate = d.intermediate;
    if (d.repmixer && (i == 0 || i + 1 == d.layers)) {
      lite_text_repmixer_block(t, l, d);
      spec.mixer = Mixer::None;  // a convolutional token mixer: no attention, no state
    } else {
      siglip_encoder_layer(t, l, d.hidden, d.intermediate);
      spec.attention.heads = spec.attention.kv_heads = d.heads;
      spec.attention.head_dim = d.hidden / d.heads;
    }
    s.layers.push_back(spec);
  }
  blocks::norm(t, prefix + "final_layer_norm", d.hidden, true);
  blocks::linear(t, prefix + "projection", d.hidden, d.projection, false);
  return d.hidden;
}

}  // namespace

void build_sam3_lite_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Sam3LiteTextModel";
  // Sam3LiteTextConfig builds vision_config by its model_type (default sam3_vision_model) and the model
  // builds it with AutoModel: only SAM 3's image encoder is modelled.
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  if (const std::string type = vision.string_or("model_type", "sam3_vision_model");
      type != "sam3_vision_model")
    unsupported(cfg,
                "SAM 3 LiteText with the image encoder " + printable(type) + " (vision_config.model_type)");
  sam3_vision(vision, "vision_encoder.", t);
  // text_config is always a Sam3LiteTextTextConfig, whatever model_type it names.
  const uint64_t text_width = lite_text_tower(sub_or_empty(cfg, "text_config"), "text_encoder.", t);
  const uint64_t detr_width = sub_or_empty(cfg, "detr_encoder_config").dim_or("hidden_size", 256);
  blocks::linear(t, "text_projection", text_width, detr_width, true);
  // Its sub-configs subclass SAM 3's (same fields, same defaults).
  sam3_detector_heads(cfg, t);
  // Saved without a prefix (the class has no checkpoint conversion mapping); it ignores a SAM 3 video
  // checkpoint's tracker on loading.
  for (const char* tracker : {"tracker_model.", "tracker_neck."})
    t.known_extras.push_back({tracker, "SAM 3's video tracker, which Sam3LiteTextModel skips on loading"});
}

void build_sam3_lite_text_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Sam3LiteTextTextModel");
  lite_text_tower(cfg, "", t);
}

}  // namespace ma::families

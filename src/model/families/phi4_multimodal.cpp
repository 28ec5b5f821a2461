// Phi-4-multimodal: Phi-4-mini's decoder (fused qkv and gate_up, no biases) with an image embedding and an
// audio embedding beside its token embedding, under model.embed_tokens_extend. The image side is a SigLIP
// so400m/14 tower at 448 pixels (its pooling head included: the checkpoints store it, although the features
// are read at the second-to-last layer), two learned separators and a Linear-GELU-Linear projector; the audio
// side a "cascades" conformer (NeMo-style strided convolutions, blocks of two half-step GLU feed-forwards
// around biased attention with a T5-style relative bias table, a GLU point-wise and depthwise-separable
// convolution module) and two projectors, one used with speech alone and one with an image beside it.
//
// Two config forms build it. transformers' own (Phi4MultimodalForCausalLM, model_type phi4_multimodal) keeps
// the towers' shapes in vision_config / audio_config. The original remote code (Phi4MMForCausalLM, model_type
// phi4mm, the Hub's main branch) hard-codes the vision tower, describes the audio encoder in
// audio_processor.config in the encoder's own words, and applies PEFT inside the model: every decoder layer's
// four linears become LoRA layers holding the base weight (base_layer) and a vision and a speech adapter
// (lora_A / lora_B) beside it, parameters of the model and stored inline. convert_phi4_multimodal_weights_to_
// hf.py maps one form to the other; the module names that differ are in Phi4Names below.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// The names that differ between the two forms (the converter's STATE_DICT_MAPPING).
struct Phi4Names {
  const char *ffn_up, *ffn_down;                      // the audio feed-forwards' linears
  std::array<const char*, 4> attention;               // the audio attention's q, k, v, o
  const char *image_up, *image_down;                  // the image projector's linears
  const char *global_separator, *row_separator;       // learned vectors between crops and after rows
  const char *speech_up, *speech_down;                // the audio projector for speech alone
  const char *vision_speech_up, *vision_speech_down;  // and for speech beside an image
};
constexpr Phi4Names kTransformersNames{"gate_up_proj",
                                       "down_proj",
                                       {"q_proj", "k_proj", "v_proj", "o_proj"},
                                       "img_projection_up",
                                       "img_projection_down",
                                       "global_img_feature_extensor",
                                       "sub_img_feature_extensor",
                                       "up_proj_for_speech",
                                       "down_proj_for_speech",
                                       "up_proj_for_vision_speech",
                                       "down_proj_for_vision_speech"};
constexpr Phi4Names kOriginalNames{"net.0.linear",
                                   "net.2",
                                   {"linear_q", "linear_k", "linear_v", "linear_out"},
                                   "img_projection.0",
                                   "img_projection.2",
                                   "glb_GN",
                                   "sub_GN",
                                   "audio_projection.speech.0",
                                   "audio_projection.speech.2",
                                   "audio_projection.vision.0",
                                   "audio_projection.vision.2"};

// The conformer's shape (Phi4MultimodalAudioConfig's fields; their defaults are the checkpoint's but for
// bias_max_distance, 500 there).
struct AudioShape {
  uint64_t hidden = 1024, intermediate = 1536, blocks = 24, heads = 16;
  uint64_t ext_pw_out = 1024, separable_out = 1024, depthwise_multiplier = 1, kernel = 3;
  uint64_t mel_bins = 80, time_reduction = 8, conv_channels = 1024;
  uint64_t bias_rows = 2000;  // the relative bias table: 2 x bias_max_distance (asymmetric); 0: none
  uint64_t downsample_rate = 1;
};

uint64_t bias_rows(const ModelConfig& cfg, std::string_view distance_key, std::string_view symmetric_key,
                   uint64_t distance) {
  const uint64_t d = cfg.dim_or(distance_key, distance);  // at most kMaxValue, so doubling it cannot wrap
  return cfg.flag_or(symmetric_key, false) ? d : 2 * d;
}

// The frequency bins left after the subsampling: log2(time_reduction) stride-2 convolutions, each
// floor((f - 1) / 2) + 1.
uint64_t subsampled_width(const AudioShape& s) {
  uint64_t width = s.mel_bins;
  for (uint64_t stage = 2; stage <= s.time_reduction; stage *= 2) width = (width - 1) / 2 + 1;
  return width;
}

// The rules the conformer's shape must keep, each reported against the config and key it came from (the
// two forms spell them differently).
struct AudioKeys {
  const ModelConfig& heads_in;
  std::string_view heads;
  const ModelConfig& channels_in;
  std::string_view channels;
  const ModelConfig& downsample_in;
};

void check_audio(const AudioShape& s, const ModelConfig& c, const AudioKeys& k) {
  if (s.hidden % s.heads != 0) k.heads_in.fail(k.heads, "must divide the audio hidden size");
  if (s.time_reduction % 2 != 0)
    c.fail("time_reduction", "must be a multiple of 2, as the audio config requires");
  const std::optional<uint64_t> flat = checked_mul(s.conv_channels, subsampled_width(s));
  if (!flat || *flat > ModelConfig::kMaxValue)
    k.channels_in.fail(k.channels, "times the frequency bins left after the subsampling is too large");
  if (s.hidden * s.downsample_rate > ModelConfig::kMaxValue)  // both at most kMaxValue: no wrap
    k.downsample_in.fail("downsample_rate", "times the audio hidden size is too large");
}

// The conformer's widths as each form spells them (the remote code's own words in audio_processor.config,
// "depthwise_seperable_out_channel" as it spells it).
struct AudioField {
  uint64_t AudioShape::*field;
  std::string_view transformers, original;
};
constexpr std::array<AudioField, 10> kAudioFields{{
    {&AudioShape::hidden, "hidden_size", "attention_dim"},
    {&AudioShape::intermediate, "intermediate_size", "linear_units"},
    {&AudioShape::heads, "num_attention_heads", "attention_heads"},
    {&AudioShape::ext_pw_out, "ext_pw_out_channel", "ext_pw_out_channel"},
    {&AudioShape::separable_out, "depthwise_separable_out_channel", "depthwise_seperable_out_channel"},
    {&AudioShape::depthwise_multiplier, "depthwise_multiplier", "depthwise_multiplier"},
    {&AudioShape::kernel, "kernel_size", "kernel_size"},
    {&AudioShape::mel_bins, "input_size", "input_size"},
    {&AudioShape::time_reduction, "time_reduction", "time_reduction"},
    {&AudioShape::conv_channels, "nemo_conv_channels", ""},  // the original nests it
}};

AudioShape transformers_audio(const ModelConfig& a) {
  AudioShape s;
  for (const AudioField& f : kAudioFields) s.*f.field = a.dim_or(f.transformers, s.*f.field);
  s.blocks = a.layers_or("num_blocks", s.blocks);
  s.bias_rows = bias_rows(a, "bias_max_distance", "bias_symmetric", 1000);
  s.downsample_rate = a.dim_or("downsample_rate", s.downsample_rate);
  check_audio(s, a, {a, "num_attention_heads", a, "nemo_conv_channels", a});
  return s;
}

// The remote code's audio_processor.config and embd_layer.audio_embd_layer.downsample_rate.
AudioShape original_audio(const ModelConfig& cfg) {
  const std::optional<ModelConfig> processor = cfg.sub("audio_processor");
  if (!processor) cfg.fail("audio_processor", "must describe the audio encoder");
  if (processor->string_or("name", "cascades") != "cascades")
    unsupported(cfg, "Phi-4-multimodal with an audio_processor other than cascades");
  const ModelConfig c = sub_or_empty(*processor, "config");
  if (c.dim_or("ext_pw_kernel_size", 1) != 1)
    c.fail("ext_pw_kernel_size", "must be 1, the only point-wise kernel the conformer builds");
  AudioShape s;
  for (const AudioField& f : kAudioFields)
    if (!f.original.empty()) s.*f.field = c.dim_or(f.original, s.*f.field);
  s.blocks = c.layers_or("num_blocks", s.blocks);
  const ModelConfig nemo = sub_or_empty(c, "nemo_conv_settings");
  s.conv_channels = nemo.dim_or("conv_channels", s.conv_channels);
  // Without relative_attention_bias_args the encoder has no bias table.
  const std::optional<ModelConfig> bias = c.sub("relative_attention_bias_args");
  s.bias_rows = 0;
  if (bias && bias->string_or("type", "t5") != "t5")
    unsupported(cfg, "Phi-4-multimodal with a relative attention bias other than t5");
  if (bias) s.bias_rows = bias_rows(*bias, "t5_bias_max_distance", "t5_bias_symmetric", 1000);
  const ModelConfig embd = sub_or_empty(sub_or_empty(cfg, "embd_layer"), "audio_embd_layer");
  s.downsample_rate = embd.dim_or("downsample_rate", s.downsample_rate);
  check_audio(s, c, {c, "attention_heads", nemo, "conv_channels", embd});
  return s;
}

// The conformer under `prefix` ("...audio_embed.encoder."), its stack recorded (its shape checked).
void conformer(const AudioShape& s, const std::string& prefix, const Phi4Names& n, ModelTemplate& t) {
  const uint64_t h = s.hidden, c = s.conv_channels;
  t.add(prefix + "encoder_embedding.global_mean", {s.mel_bins}).kind = TensorKind::Buffer;
  t.add(prefix + "encoder_embedding.global_invstd", {s.mel_bins}).kind = TensorKind::Buffer;
  // The first convolution reads one channel; each further stage is a depthwise then a point-wise one.
  const std::string e = prefix + "embed.";
  t.add(e + "conv.0.weight", {c, 1, 3, 3});
  t.add(e + "conv.0.bias", {c});
  size_t at = 2;
  for (uint64_t stage = 4; stage <= s.time_reduction; stage *= 2, at += 3) {
    t.add(e + "conv." + std::to_string(at) + ".weight", {c, 1, 3, 3});
    t.add(e + "conv." + std::to_string(at) + ".bias", {c});
    t.add(e + "conv." + std::to_string(at + 1) + ".weight", {c, c, 1, 1});
    t.add(e + "conv." + std::to_string(at + 1) + ".bias", {c});
  }
  blocks::linear(t, e + "out", c * subsampled_width(s), h, true);
  if (s.bias_rows)
    blocks::embedding(t, prefix + "relative_attention_bias_layer.bias_values.weight", s.bias_rows, s.heads);
  auto feed_forward = [&](const std::string& p) {
    blocks::norm(t, p + "layer_norm", h, true);
    blocks::linear(t, p + n.ffn_up, h, 2 * s.intermediate, true);
    blocks::linear(t, p + n.ffn_down, s.intermediate, h, true);
  };
  const uint64_t depthwise = h * s.depthwise_multiplier;  // each at most kMaxValue (2^26): no wrap
  for (uint64_t i = 0; i < s.blocks; ++i) {
    const std::string p = prefix + "encoders." + std::to_string(i) + ".";
    feed_forward(p + "feed_forward_in.");
    for (const char* proj : n.attention) blocks::linear(t, p + "self_attn." + proj, h, h, true);
    const std::string v = p + "conv.";
    blocks::norm(t, v + "layer_norm", h, true);
    blocks::conv1d(t, v + "glu.ext_pw_conv_1d", h, 2 * s.ext_pw_out, 1);
    t.add(v + "glu.b1", {1, s.ext_pw_out, 1});
    t.add(v + "glu.b2", {1, s.ext_pw_out, 1});
    blocks::conv1d(t, v + "dw_sep_conv_1d.dw_conv", h, depthwise, s.kernel, h);
    blocks::conv1d(t, v + "dw_sep_conv_1d.pw_conv", depthwise, s.separable_out, 1);
    blocks::conv1d(t, v + "ext_pw_conv_1d", h, s.ext_pw_out, 1);
    feed_forward(p + "feed_forward_out.");
    blocks::norm(t, p + "layer_norm_att", h, true);
    blocks::norm(t, p + "layer_norm", h, true);
  }
  // Chunked streaming masks aside, every frame attends the utterance; the feed-forwards are GLUs.
  StackSpec& stack = t.arch.add_stack(StackRole::Audio, prefix + "encoders", h);
  stack.mel_bins = s.mel_bins;
  LayerSpec l;
  l.attention.heads = l.attention.kv_heads = s.heads;
  l.attention.head_dim = h / s.heads;
  l.ffn.gated = true;
  l.ffn.intermediate = s.intermediate;
  stack.layers.assign(s.blocks, l);
}

// What differs in the image embedding: the projector's input (the tower's width after a 2 x 2 average pool,
// or those four patches side by side when the original form names no compression) and the separators.
struct ImageEmbedding {
  uint64_t merged_patches = 1;
  bool separators = true;
};

void build_composite(const ModelConfig& cfg, ModelTemplate& t, const Phi4Names& n, const AudioShape& audio,
                     const ModelConfig& vision, const ImageEmbedding& image) {
  DecoderDefaults d;  // Phi4MultimodalConfig's (32 heads and no tying, where the checkpoint has 24 and ties)
  d.vocab_size = 200064;
  d.hidden_size = 3072;
  d.intermediate_size = 8192;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;  // Phi-3's layers: fused projections, never biased
  s.fused_qkv = true;
  s.mlp = Mlp::FusedGated;
  s.sliding_window = window_or_none(cfg, 0);
  llama_style_decoder(t, "model.", s);

  const uint64_t h = t.arch.hidden_size;
  const std::string img = "model.embed_tokens_extend.image_embed.";
  // SigLIP so400m/14 at 448 pixels: Phi4MultimodalVisionConfig's defaults, the remote code's constants.
  const VitDefaults so400m{.hidden_size = 1152,
                           .intermediate_size = 4304,
                           .num_hidden_layers = 27,
                           .num_attention_heads = 16,
                           .image_size = 448,
                           .patch_size = 14,
                           .use_head = true,
                           .model_type = "siglip_vision_model"};
  const uint64_t tower = vit_tower(vision, img + "img_processor.", so400m, t);
  const uint64_t features = tower * image.merged_patches;
  blocks::linear(t, img + n.image_up, features, h, true);
  blocks::linear(t, img + n.image_down, h, h, true);
  if (image.separators) {
    t.add(img + n.global_separator, {1, 1, features});
    t.add(img + n.row_separator, {1, 1, 1, features});
  }
  record_projector(t, img + "img_projection");

  const std::string aud = "model.embed_tokens_extend.audio_embed.";
  conformer(audio, aud + "encoder.", n, t);
  const uint64_t audio_out = audio.hidden * audio.downsample_rate;  // checked by check_audio
  blocks::linear(t, aud + n.speech_up, audio_out, h, true);
  blocks::linear(t, aud + n.speech_down, h, h, true);
  blocks::linear(t, aud + n.vision_speech_up, audio_out, h, true);
  blocks::linear(t, aud + n.vision_speech_down, h, h, true);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

void build_phi4_multimodal(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Phi4MultimodalForCausalLM";
  build_composite(cfg, t, kTransformersNames, transformers_audio(sub_or_empty(cfg, "audio_config")),
                  sub_or_empty(cfg, "vision_config"), {});
}

// The adapters PEFT wraps each decoder layer's four linears with (`vision_lora`, `speech_lora`): the base
// weight moves to base_layer, and each adapter adds lora_A [r, in] and lora_B [out, r].
void inline_loras(const ModelConfig& cfg, ModelTemplate& t) {
  std::vector<std::pair<std::string, uint64_t>> adapters;
  for (const char* name : {"vision", "speech"}) {
    const std::string key = std::string(name) + "_lora";
    const json::Value* raw = cfg.raw(key);
    if (!raw || raw->is_null()) continue;
    if (!raw->is_object()) cfg.fail(key, "must be an object describing the adapter");
    adapters.emplace_back(name, cfg.sub(key)->dim_or("r", 0));
    if (adapters.back().second == 0) cfg.fail(key, "must give the adapter's rank r");
  }
  if (adapters.empty()) return;
  const std::array<const char*, 4> targets = {"self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate_up_proj",
                                              "mlp.down_proj"};
  std::vector<TemplateTensor> wrapped;
  for (TemplateTensor& tensor : t.tensors) {
    bool target = false;
    for (const char* m : targets)
      target = target || (tensor.name.starts_with("model.layers.") &&
                          tensor.name.ends_with(std::string(".") + m + ".weight"));
    if (!target) continue;
    const std::string module = tensor.name.substr(0, tensor.name.size() - 6);  // drops "weight"
    tensor.name = module + "base_layer.weight";
    wrapped.push_back(tensor);
  }
  for (const TemplateTensor& base : wrapped) {
    const std::string module = base.name.substr(0, base.name.size() - 17);  // drops "base_layer.weight"
    const uint64_t out = base.shape[0], in = base.shape[1];
    for (const auto& [adapter, r] : adapters) {
      t.add(module + "lora_A." + adapter + ".weight", {r, in});
      t.add(module + "lora_B." + adapter + ".weight", {out, r});
    }
  }
}

void build_phi4mm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Phi4MMForCausalLM";
  const ModelConfig embd = sub_or_empty(sub_or_empty(cfg, "embd_layer"), "image_embd_layer");
  if (embd.string_or("projection_cls", "mlp") != "mlp")
    unsupported(cfg, "Phi-4-multimodal with an image projection_cls other than mlp");
  // No image_token_compression_cls: each 2 x 2 patches are concatenated rather than averaged.
  const std::string compression = embd.string_or("image_token_compression_cls", "");
  if (!compression.empty() && compression != "avg_pool_2d")
    unsupported(cfg, "Phi-4-multimodal with image_token_compression_cls " + printable(compression));
  const ImageEmbedding image{
      compression.empty() ? 4u : 1u,
      embd.flag_or("use_hd_transform", true) && embd.flag_or("with_learnable_separator", true)};
  // The remote code builds its SigLIP tower from constants: no config field reaches it.
  build_composite(cfg, t, kOriginalNames, original_audio(cfg), cfg.derived("{}"), image);
  inline_loras(cfg, t);
  t.arch.hand_derived = true;
}

constexpr std::array kPhi4MultimodalFamilies{
    FamilyBuilder{"phi4_multimodal", build_phi4_multimodal},
    FamilyBuilder{"phi4mm", build_phi4mm},
};

}  // namespace

std::span<const FamilyBuilder> phi4_multimodal() {
  return kPhi4MultimodalFamilies;
}

}  // namespace ma::families

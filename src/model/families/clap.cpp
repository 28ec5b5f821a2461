// CLAP (laion/clap-htsat-unfused, laion/clap-htsat-fused): ClapModel pairs a RoBERTa-shaped text encoder with
// HTSAT, a Swin transformer over the mel spectrogram, each followed by a two-layer projection MLP into
// projection_dim; two learned logit scales (one per direction) come first. Also the towers alone
// (clap_text_model: ClapTextModel / ClapTextModelWithProjection, clap_audio_model: ClapAudioModel /
// ClapAudioModelWithProjection).
//
// transformers keeps CLAP on transformers 4's modules (no modular file): the audio blocks are copies of the
// old SwinLayer (attention.self.{query,key,value}, a persistent relative_position_index buffer), which
// Donut's Swin still is; the text embeddings register position_ids and token_type_ids as persistent buffers
// (ClapTextEmbeddings: "persistent=False->persistent=True"), so state_dict and Hub checkpoints carry them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/ocr_vlms.h"
#include "model/families/speech_d.h"

namespace ma::families {
namespace {

// ClapAudioConfig's fields (its defaults are laion/clap-htsat-fused's audio encoder without the fusion).
struct ClapAudioShape {
  uint64_t embed = 96, window = 8, mel_bins = 64, channels = 1, hidden = 768, aff_ratio = 4;
  std::vector<uint64_t> depths{2, 2, 6, 2}, heads{4, 8, 16, 32};
  std::pair<uint64_t, uint64_t> patch{4, 4}, stride{4, 4};
  double mlp_ratio = 4.0;
  bool qkv_bias = true, patch_norm = true, fusion = false, channel_map = false;

  uint64_t width(size_t stage) const { return embed << stage; }  // int(patch_embeds_hidden_size * 2 ** i)
  uint64_t features() const { return width(depths.size() - 1); }
  uint64_t mlp(size_t stage) const {  // int(config.mlp_ratio * dim)
    return static_cast<uint64_t>(mlp_ratio * static_cast<double>(width(stage)));
  }
};

ClapAudioShape read_clap_audio(const ModelConfig& a) {
  ClapAudioShape s;
  s.embed = a.dim_or("patch_embeds_hidden_size", s.embed);
  s.window = a.dim_or("window_size", s.window);
  s.mel_bins = a.dim_or("num_mel_bins", s.mel_bins);
  s.channels = a.dim_or("patch_embed_input_channels", s.channels);
  s.hidden = a.dim_or("hidden_size", s.hidden);
  s.depths = a.dims_or("depths", s.depths);
  s.heads = a.dims_or("num_attention_heads", s.heads);
  s.patch = vit_pair(a, "patch_size", 4);
  s.stride = vit_pair(a, "patch_stride", 4);
  s.mlp_ratio = a.number_or("mlp_ratio", s.mlp_ratio);
  s.qkv_bias = a.flag_or("qkv_bias", s.qkv_bias);
  s.patch_norm = a.flag_or("enable_patch_layer_norm", s.patch_norm);
  s.fusion = a.flag_or("enable_fusion", s.fusion);
  // Only "channel_map" changes a shape (the patch convolution reads 4 x the channels); laion's fused
  // checkpoint uses "aff_2d".
  s.channel_map = s.fusion && a.string_or("fusion_type", "") == "channel_map";
  if (s.fusion) {
    s.aff_ratio = a.dim_or("aff_block_r", s.aff_ratio);
    if (s.embed / s.aff_ratio == 0) a.fail("aff_block_r", "must not exceed patch_embeds_hidden_size");
  }
  // ClapAudioSelfAttention raises unless the heads divide the stage's width.
  check_swin_stages(a, {"depths", "num_attention_heads", "patch_embeds_hidden_size"}, s.depths, s.heads,
                    s.embed, s.window, s.mlp_ratio, true);
  return s;
}

// ClapAudioAFFBlock under `p`: a local and a global (after an average pool, index 0) branch of
// 1 x 1 conv, BatchNorm, ReLU, 1 x 1 conv, BatchNorm, narrowing to channels // aff_block_r.
void clap_fusion_block(ModelTemplate& t, const std::string& p, uint64_t channels, uint64_t inner) {
  for (const auto& branch : {std::pair{"local_att.", 0}, std::pair{"global_att.", 1}}) {
    const std::string b = p + branch.first;
    const int first = branch.second;  // not a structured binding: clang 14 cannot capture one
    const auto at = [&](int i) { return b + std::to_string(first + i); };
    blocks::conv2d(t, at(0), channels, inner, 1);
    detr_batch_norm(t, at(1), inner, false);
    blocks::conv2d(t, at(3), inner, channels, 1);
    detr_batch_norm(t, at(4), channels, false);
  }
}

// ClapAudioEncoder under `p` ("audio_model.audio_encoder."): the patch embedding (and the fusion of the
// longer clips' local crops), the Swin stages, the input BatchNorm over the mel bins and the final LayerNorm.
// Its pooler is an AdaptiveAvgPool1d: no weights.
void clap_audio_encoder(ModelTemplate& t, const ClapAudioShape& s, const std::string& p) {
  const std::string pe = p + "patch_embed.";
  const auto [patch_h, patch_w] = s.patch;
  t.add(pe + "proj.weight", {s.embed, s.channels * (s.channel_map ? 4 : 1), patch_h, patch_w});
  t.add(pe + "proj.bias", {s.embed});
  if (s.patch_norm) blocks::norm(t, pe + "norm", s.embed, true);
  if (s.fusion) {
    clap_fusion_block(t, pe + "fusion_model.", s.embed, s.embed / s.aff_ratio);
    // The local crops' convolution: three times wider a kernel along time.
    t.add(pe + "mel_conv2d.weight", {s.embed, s.channels, patch_h, patch_w * 3});
    t.add(pe + "mel_conv2d.bias", {s.embed});
  }
  StackSpec& stack = t.arch.add_stack(StackRole::Audio, p + "layers", s.features());
  stack.patch_size = patch_h;
  for (size_t i = 0; i < s.depths.size(); ++i) {
    const uint64_t dim = s.width(i);
    const std::string stage = p + "layers." + std::to_string(i) + ".";
    for (uint64_t j = 0; j < s.depths[i]; ++j)
      donut_swin_layer(t, stage + "blocks." + std::to_string(j) + ".", dim, s.heads[i], s.mlp(i), s.window,
                       s.qkv_bias);
    if (i + 1 < s.depths.size()) {  // ClapAudioPatchMerging: SwinPatchMerging's bias-free reduction
      blocks::linear(t, stage + "downsample.reduction", 4 * dim, 2 * dim, false);
      blocks::norm(t, stage + "downsample.norm", 4 * dim, true);
    }
  }
  detr_batch_norm(t, p + "batch_norm", s.mel_bins, false);
  blocks::norm(t, p + "norm", s.features(), true);
}

// ClapTextConfig's defaults: RoBERTa-base's (laion's checkpoints use roberta-base's tokenizer).
constexpr BertDefaults kClapTextDefaults{.vocab = 50265, .positions = 514, .type_vocab = 1};

// A persistent int64 index buffer (its checkpoints store it as I64).
void clap_index_buffer(ModelTemplate& t, const std::string& name, Shape shape) {
  TemplateTensor& x = t.add(name, shape);
  x.kind = TensorKind::Buffer;
  x.disk.push_back({.name = name, .shape = x.shape, .dtype = DType::I64});
}

// ClapTextModel under `p`: the embeddings (their module's own buffers before its children's weights in
// state_dict; BERT's registration order, the position table reassigned in place), BERT layers and pooler.
// Returns its width.
uint64_t clap_text_model(ModelTemplate& t, const TextEncoderDims& d, const std::string& p) {
  clap_index_buffer(t, p + "embeddings.position_ids", {1, d.max_positions});
  clap_index_buffer(t, p + "embeddings.token_type_ids", {1, d.max_positions});
  text_encoder_body(t, p, "encoder.layer", bert_layer_names(), d);
  blocks::linear(t, p + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
  return d.layer.hidden;
}

// ClapProjectionLayer under `p`: linear1 (width -> projection_dim), an activation, linear2.
void clap_projection(ModelTemplate& t, const std::string& p, uint64_t width, uint64_t projection) {
  blocks::linear(t, p + "linear1", width, projection, true);
  blocks::linear(t, p + "linear2", projection, projection, true);
}

void clap_audio_record(ModelTemplate& t, const ClapAudioShape& s, const std::string& cls) {
  t.arch.architecture = cls;
  t.arch.hidden_size = s.features();
  t.arch.num_layers = 0;
  for (uint64_t d : s.depths) t.arch.num_layers += d;
  t.arch.num_attention_heads = t.arch.num_key_value_heads = s.heads[s.depths.size() - 1];
  t.arch.head_dim = s.features() / t.arch.num_attention_heads;
  t.arch.intermediate_size = s.mlp(s.depths.size() - 1);
}

}  // namespace

void build_clap(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ClapModel");
  supported_task(cfg, cls, "Clap", {"Model"});
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  const TextEncoderDims d = read_bert_dims(text, kClapTextDefaults);
  const ClapAudioShape s = read_clap_audio(audio);
  // ClapConfig overwrites both sub-configs' projection_dim with its own.
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  fill_encoder_record(t, cls, d);
  t.arch.post_norm = true;
  // The model's own 0-dimensional parameters, listed before its modules'.
  t.add("logit_scale_a", {});
  t.add("logit_scale_t", {});
  clap_projection(t, "text_projection.", clap_text_model(t, d, "text_model."), projection);
  clap_audio_encoder(t, s, "audio_model.audio_encoder.");
  // Reads the audio config's hidden_size (768 in both laion checkpoints, the last stage's width).
  clap_projection(t, "audio_projection.", s.hidden, projection);
}

void build_clap_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ClapTextModel");
  const std::string task = supported_task(cfg, cls, "ClapText", {"Model", "ModelWithProjection"});
  const TextEncoderDims d = read_bert_dims(cfg, kClapTextDefaults);
  fill_encoder_record(t, cls, d);
  t.arch.post_norm = true;
  if (task == "Model") {
    clap_text_model(t, d, "");
    return;
  }
  clap_projection(t, "text_projection.", clap_text_model(t, d, "text_model."),
                  cfg.dim_or("projection_dim", 512));
}

void build_clap_audio_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ClapAudioModel");
  const std::string task = supported_task(cfg, cls, "ClapAudio", {"Model", "ModelWithProjection"});
  const ClapAudioShape s = read_clap_audio(cfg);
  clap_audio_record(t, s, cls);
  // ClapAudioModel holds the encoder as audio_encoder; ...WithProjection nests a ClapAudioModel as
  // audio_model.
  if (task == "Model") {
    clap_audio_encoder(t, s, "audio_encoder.");
    return;
  }
  clap_audio_encoder(t, s, "audio_model.audio_encoder.");
  clap_projection(t, "audio_projection.", s.hidden, cfg.dim_or("projection_dim", 512));
}

}  // namespace ma::families

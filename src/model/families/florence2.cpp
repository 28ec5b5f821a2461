// Florence-2 (Florence2ForConditionalGeneration): a DaViT image encoder, a projector that adds learned row
// and column position embeddings, and BART's encoder-decoder as the language model, its head tied to BART's
// shared embedding. DaViT's four stages each open with a strided conv embedding (LayerNorm before it from the
// second stage on) and run pairs of blocks: a spatial block (windowed attention) and a channel block
// (attention over channel groups), each with depthwise convs, LayerNorms and an MLP.
//
// Two checkpoint forms share model_type florence2. transformers' own (florence-community/*, written by
// convert_florence2_original_pytorch_to_hf.py) stores the names transformers builds, its vocabulary grown to
// 51,328 rows for the <image> token. The original remote-code repos (microsoft/Florence-2-*: a davit vision
// config, a florence2_language text config) keep 51,289 rows, DaViT's own module names, the image projection
// as an [in, out] parameter and the language model's final_logits_bias; they are read as the model
// transformers builds from them once converted, stored under those names.
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

struct Davit {
  std::vector<uint64_t> widths{128, 256, 512, 1024}, depths{1, 1, 9, 1}, kernels{7, 3, 3, 3};
  std::vector<bool> prenorm{false, true, true, true};
  uint64_t in_channels = 3;
  double mlp_ratio = 4.0;
  bool qkv_bias = true;
  uint64_t projection = 1024, positions = 50, temporal = 100;
  bool original = false;
};

std::vector<uint64_t> four(const ModelConfig& v, std::string_view key, const std::vector<uint64_t>& dflt) {
  if (!v.has(key)) return dflt;
  std::vector<uint64_t> out;
  for (int64_t x : v.ints(key)) {
    if (x < 1 || static_cast<uint64_t>(x) > ModelConfig::kMaxValue)
      v.fail(key, "must list integers from 1 to " + std::to_string(ModelConfig::kMaxValue));
    out.push_back(static_cast<uint64_t>(x));
  }
  if (out.size() != dflt.size()) v.fail(key, "must list one value per stage (4)");
  return out;
}

// A nested object's integer (image_pos_embed.max_pos_embeddings in the original configs).
uint64_t nested_dim(const ModelConfig& v, std::string_view object, std::string_view key, uint64_t dflt) {
  const std::optional<ModelConfig> o = v.sub(object);
  return o ? o->dim_or(key, dflt) : dflt;
}

Davit read_davit(const ModelConfig& v, bool original) {
  Davit d;
  d.original = original;
  if (original) {
    // The remote code's defaults are the large model's tower.
    d.widths = four(v, "dim_embed", {256, 512, 1024, 2048});
    d.positions = nested_dim(v, "image_pos_embed", "max_pos_embeddings", 50);
    d.temporal = nested_dim(v, "visual_temporal_embedding", "max_temporal_embeddings", 100);
  } else {
    d.widths = four(v, "embed_dim", d.widths);
    d.in_channels = v.dim_or("in_channels", 3);
    d.mlp_ratio = v.number_or("mlp_ratio", 4.0);
    d.qkv_bias = v.flag_or("qkv_bias", true);
    d.positions = v.dim_or("max_position_embeddings", 50);
    d.temporal = v.dim_or("max_temporal_embeddings", 100);
  }
  d.projection = v.dim_or("projection_dim", 1024);
  d.depths = four(v, "depths", d.depths);
  d.kernels = four(v, "patch_size", d.kernels);
  if (v.has("patch_prenorm")) {
    const json::Value* p = v.raw("patch_prenorm");
    if (!p->is_array() || p->items().size() != 4) v.fail("patch_prenorm", "must list one flag per stage (4)");
    for (size_t i = 0; i < 4; ++i) {
      if (!p->items()[i].is_bool()) v.fail("patch_prenorm", "must list booleans");
      d.prenorm[i] = p->items()[i].as_bool();
    }
  }
  for (uint64_t w : d.widths)
    if (!(static_cast<double>(w) * d.mlp_ratio >= 1.0) ||
        static_cast<double>(w) * d.mlp_ratio > static_cast<double>(ModelConfig::kMaxValue))
      v.fail("mlp_ratio", "times each stage's width must make an MLP width from 1 to 2^26");
  return d;
}

// `x` stored under `original` in the remote-code checkpoints.
void stored_as(TemplateTensor& x, const Davit& d, const std::string& original) {
  if (d.original) x.disk.push_back({original, x.shape});
}

// A LayerNorm or Linear's weight and bias under `p`, stored under `o` + the same leaf in the original form.
void with_bias(ModelTemplate& t, const Davit& d, const std::string& p, const std::string& o, Shape weight) {
  const uint64_t out = weight[0];
  stored_as(t.add(p + ".weight", std::move(weight)), d, o + ".weight");
  stored_as(t.add(p + ".bias", {out}), d, o + ".bias");
}

// One spatial or channel block of stage width `w`.
void davit_block(ModelTemplate& t, const Davit& d, const std::string& p, const std::string& o,
                 std::string_view attn, uint64_t w) {
  const uint64_t hidden = static_cast<uint64_t>(static_cast<double>(w) * d.mlp_ratio);
  const std::string a(attn);
  with_bias(t, d, p + "conv1", o + "conv1.fn.dw", {w, 1, 3, 3});
  with_bias(t, d, p + "norm1", o + a + ".norm", {w});
  stored_as(t.add(p + a + ".qkv.weight", {3 * w, w}), d, o + a + ".fn.qkv.weight");
  if (d.qkv_bias) stored_as(t.add(p + a + ".qkv.bias", {3 * w}), d, o + a + ".fn.qkv.bias");
  with_bias(t, d, p + a + ".proj", o + a + ".fn.proj", {w, w});
  with_bias(t, d, p + "conv2", o + "conv2.fn.dw", {w, 1, 3, 3});
  with_bias(t, d, p + "norm2", o + "ffn.norm", {w});
  with_bias(t, d, p + "ffn.fc1", o + "ffn.fn.net.fc1", {hidden, w});
  with_bias(t, d, p + "ffn.fc2", o + "ffn.fn.net.fc2", {w, hidden});
}

// The tower, all conv embeddings first (its module order), and the projector. Returns the tower's width.
uint64_t davit_tower(ModelTemplate& t, const Davit& d) {
  const std::string p = "model.vision_tower.", o = "vision_tower.";
  uint64_t in = d.in_channels;
  for (size_t i = 0; i < 4; ++i) {
    const std::string c = "convs." + std::to_string(i) + ".";
    with_bias(t, d, p + c + "conv", o + c + "proj", {d.widths[i], in, d.kernels[i], d.kernels[i]});
    const uint64_t normed = d.prenorm[i] ? in : d.widths[i];
    with_bias(t, d, p + c + "norm", o + c + "norm", {normed});
    in = d.widths[i];
  }
  for (size_t i = 0; i < 4; ++i)
    for (uint64_t j = 0; j < d.depths[i]; ++j) {
      const std::string b = "blocks." + std::to_string(i) + "." + std::to_string(j) + ".";
      davit_block(t, d, p + b + "spatial_block.", o + b + "spatial_block.", "window_attn", d.widths[i]);
      davit_block(t, d, p + b + "channel_block.", o + b + "channel_block.", "channel_attn", d.widths[i]);
    }
  // A hybrid of convolutions and attention: a vision stack of its output width, without the transformer
  // layers the record describes.
  t.arch.add_stack(StackRole::Vision, "model.vision_tower", d.widths.back());
  return d.widths.back();
}

void projector(ModelTemplate& t, const Davit& d, uint64_t width) {
  const std::string p = "model.multi_modal_projector.";
  // An [in, out] parameter in the remote code; transformers' Linear holds it transposed.
  TemplateTensor& projection = t.add(p + "image_projection.weight", {d.projection, width});
  if (d.original) projection.disk.push_back({"image_projection", {width, d.projection}});
  with_bias(t, d, p + "image_proj_norm", "image_proj_norm", {d.projection});
  for (const auto& [axis, columns] : {std::pair{"row", width / 2}, std::pair{"column", width - width / 2}}) {
    const std::string name = std::string("image_position_embed.") + axis + "_embeddings.weight";
    stored_as(blocks::embedding(t, p + name, d.positions, columns), d,
              std::string("image_pos_embed.") + axis + "_embeddings.weight");
  }
  // A persistent buffer: the cosine table of frame positions.
  TemplateTensor& temporal = t.add(p + "visual_temporal_embed.pos_idx_to_embed", {d.temporal, width});
  temporal.kind = TensorKind::Buffer;
  stored_as(temporal, d, "visual_temporal_embed.pos_idx_to_embed");
  record_projector(t, "model.multi_modal_projector");
}

void build_florence2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Florence2ForConditionalGeneration";
  const ModelConfig vision = sub_or_empty(cfg, "vision_config"), text = sub_or_empty(cfg, "text_config");
  const bool original = vision.string_or("model_type", "") == "davit" || vision.has("dim_embed") ||
                        text.string_or("model_type", "") == "florence2_language";
  const Davit d = read_davit(vision, original);
  const uint64_t width = davit_tower(t, d);
  projector(t, d, width);
  // BartConfig's defaults (BART-large's) where a field is missing; the remote code's class defaults to the
  // base model's sizes, but its configs spell every one.
  const std::string shared = bart_model(text, t, "model.language_model.");
  if (shared.empty()) text.fail("vocab_size", "must be shared by the encoder and the decoder");
  if (d.projection != t.arch.hidden_size)
    vision.fail("projection_dim",
                "must equal the language model's d_model (" + std::to_string(t.arch.hidden_size) + ")");
  t.arch.model_type = text.string_or("model_type", "bart");
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  lm_head(t, shared, t.arch);
  if (!original) return;
  t.rename_on_disk("model.language_model.", "language_model.model.");
  t.rename_on_disk("lm_head.", "language_model.lm_head.");
  t.known_extras.push_back({"language_model.final_logits_bias",
                            "the remote code's logits bias buffer: transformers' Florence-2 has none"});
}

constexpr std::array kFlorence2Families{FamilyBuilder{"florence2", build_florence2}};

}  // namespace

std::span<const FamilyBuilder> florence2() {
  return kFlorence2Families;
}

}  // namespace ma::families

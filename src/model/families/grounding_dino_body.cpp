// Grounding DINO's model body (GroundingDinoModel, modeling_grounding_dino.py; MMGroundingDinoModel, its
// modular copy in modular_mm_grounding_dino.py). Its parts come from relatives: the backbone is whatever
// AutoBackbone builds from backbone_config (Swin-T handing on stages 2 to 4 by default, SwinBackbone's layers
// in swin.cpp) with its batch norms frozen as DETR's are, the text backbone is BertModel without its pooler
// (AutoModel.from_config(text_config, add_pooling_layer=False)), and the deformable attention and input
// projections are Deformable DETR's (deformable_detr.cpp). What is its own: every encoder layer runs a text
// self-attention (text_enhancer_layer) and an image-text attention in both directions (fusion_layer) beside
// the deformable one, every decoder layer attends to the text before the image, and the decoder's query
// positions come from an MLP over the sine embeddings of its 4-coordinate reference boxes.
//
// The model registers level_embed last in __init__, but state_dict lists a module's own parameters before
// its children's: level_embed comes first. The same holds for the fusion layer's two layer scales.
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/grounding_dino.h"
#include "model/families/multimodal_towers.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// GroundingDinoConfig's and MMGroundingDinoConfig's backbone when backbone_config and backbone are both
// absent: Swin-T (IDEA-Research/grounding-dino-tiny's) handing on stages 2 to 4.
constexpr const char* kGroundingDinoDefaultBackbone =
    R"({"model_type":"swin","window_size":7,"image_size":224,"embed_dim":96,"depths":[2,2,6,2],)"
    R"("num_heads":[3,6,12,24],"out_indices":[2,3,4]})";

struct GroundingDinoDims {
  uint64_t d = 256, levels = 4, encoder_points = 4, decoder_points = 4, queries = 900, query_dim = 4;
  StackDims encoder, decoder;
};

// The configuration classes' defaults (grounding-dino-tiny's), and the checks their modules make on build.
GroundingDinoDims read_grounding_dino(const ModelConfig& cfg) {
  GroundingDinoDims g;
  g.d = cfg.dim_or("d_model", g.d);
  g.levels = cfg.dim_or("num_feature_levels", g.levels);
  g.encoder_points = cfg.dim_or("encoder_n_points", g.encoder_points);
  g.decoder_points = cfg.dim_or("decoder_n_points", g.decoder_points);
  g.queries = cfg.dim_or("num_queries", g.queries);
  g.query_dim = cfg.dim_or("query_dim", g.query_dim);
  // read_stack checks that the heads divide d_model, as the deformable attention and the decoder's
  // multi-head attention do.
  g.encoder = read_stack(cfg, "encoder", g.d, 6, 8, 2048);
  g.decoder = read_stack(cfg, "decoder", g.d, 6, 8, 2048);
  // nn.GroupNorm(32, d_model) after every input projection.
  if (g.d % 32 != 0) cfg.fail("d_model", "must be divisible by 32 (the input projections' GroupNorm)");
  // The decoder's reference_points_head reads query_dim // 2 sine embeddings of d_model each.
  if (g.query_dim < 2) cfg.fail("query_dim", "must be at least 2 (the reference points' coordinates)");
  // The text enhancer and the fusion attention run encoder_attention_heads // 2 heads, the fusion attention
  // in encoder_ffn_dim // 2 channels; both raise when the heads do not divide their width.
  const uint64_t half_heads = g.encoder.layer.heads / 2, half_ffn = g.encoder.layer.ffn / 2;
  if (half_heads == 0 || g.d % half_heads != 0 || half_ffn % half_heads != 0)
    cfg.fail("encoder_attention_heads",
             "halved must divide d_model and encoder_ffn_dim / 2 (the text enhancer's and fusion's heads)");
  if (half_ffn == 0) cfg.fail("encoder_ffn_dim", "must be at least 2 (the fusion attention's width is half)");
  return g;
}

// GroundingDinoMultiheadAttention under `p`: query, key, value and out_proj, all d_model wide and biased.
void grounding_dino_attention(ModelTemplate& t, const std::string& p, uint64_t d) {
  for (const char* proj : {"query", "key", "value", "out_proj"}) blocks::linear(t, p + proj, d, d, true);
}

// GroundingDinoEncoderLayer under `p`: text_enhancer_layer (text self-attention, an FFN of
// encoder_ffn_dim / 2), fusion_layer (GroundingDinoBiMultiHeadAttention projecting both sides into
// encoder_ffn_dim / 2 channels, with a per-channel layer scale for each), deformable_layer (Deformable DETR's
// encoder layer).
void grounding_dino_encoder_layer(ModelTemplate& t, const std::string& p, const GroundingDinoDims& g) {
  const uint64_t d = g.d, ffn = g.encoder.layer.ffn, half = ffn / 2;
  const std::string text = p + "text_enhancer_layer.";
  grounding_dino_attention(t, text + "self_attn.", d);
  blocks::linear(t, text + "fc1", d, half, true);
  blocks::linear(t, text + "fc2", half, d, true);
  blocks::norm(t, text + "layer_norm_before", d, true);
  blocks::norm(t, text + "layer_norm_after", d, true);
  const std::string fusion = p + "fusion_layer.";
  t.add(fusion + "vision_param", {d});
  t.add(fusion + "text_param", {d});
  blocks::norm(t, fusion + "layer_norm_vision", d, true);
  blocks::norm(t, fusion + "layer_norm_text", d, true);
  for (const char* proj : {"vision_proj", "text_proj", "values_vision_proj", "values_text_proj"})
    blocks::linear(t, fusion + "attn." + proj, d, half, true);
  blocks::linear(t, fusion + "attn.out_vision_proj", half, d, true);
  blocks::linear(t, fusion + "attn.out_text_proj", half, d, true);
  const std::string image = p + "deformable_layer.";
  detr_deformable_attention(t, image + "self_attn.", d, g.encoder.layer.heads, g.levels, g.encoder_points);
  blocks::norm(t, image + "self_attn_layer_norm", d, true);
  blocks::linear(t, image + "fc1", d, ffn, true);
  blocks::linear(t, image + "fc2", ffn, d, true);
  blocks::norm(t, image + "final_layer_norm", d, true);
}

// GroundingDinoDecoderLayer under `p`: self-attention, attention to the text (encoder_attn_text), deformable
// attention to the image (encoder_attn), the FFN, each followed by its LayerNorm.
void grounding_dino_decoder_layer(ModelTemplate& t, const std::string& p, const GroundingDinoDims& g) {
  const uint64_t d = g.d, ffn = g.decoder.layer.ffn;
  grounding_dino_attention(t, p + "self_attn.", d);
  blocks::norm(t, p + "self_attn_layer_norm", d, true);
  grounding_dino_attention(t, p + "encoder_attn_text.", d);
  blocks::norm(t, p + "encoder_attn_text_layer_norm", d, true);
  detr_deformable_attention(t, p + "encoder_attn.", d, g.decoder.layer.heads, g.levels, g.decoder_points);
  blocks::norm(t, p + "encoder_attn_layer_norm", d, true);
  blocks::linear(t, p + "fc1", d, ffn, true);
  blocks::linear(t, p + "fc2", ffn, d, true);
  blocks::norm(t, p + "final_layer_norm", d, true);
}

// GroundingDinoConvEncoder's model under `prefix`backbone.conv_encoder.model.: load_backbone(config), then
// replace_batch_norm (a ResNet's batch norms frozen into buffers; a Swin has none). Recorded as the image
// tower. Returns the channels of the maps it hands on.
std::vector<uint64_t> grounding_dino_backbone(const ModelConfig& cfg, const std::string& prefix,
                                              ModelTemplate& t) {
  if (cfg.flag_or("use_timm_backbone", false))
    throw Error(ErrorKind::Unsupported, cfg.file(), "use_timm_backbone",
                "unsupported architecture: Grounding DINO with a timm backbone");
  const std::string model = prefix + "backbone.conv_encoder.model.";
  const size_t first = t.tensors.size();
  const std::vector<uint64_t> channels = seg_backbone(cfg, kGroundingDinoDefaultBackbone, model, false, t);
  detr_replace_batch_norms(t, first);
  for (StackSpec& s : t.arch.stacks)
    if (s.path.starts_with(model)) s.role = StackRole::Vision;
  return channels;
}

// The text backbone under `prefix`text_backbone.: BertModel(add_pooling_layer=False), BertConfig's defaults
// (bert-base-uncased's) for what text_config omits. Returns its width.
uint64_t grounding_dino_text_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  // The config class makes a BertConfig when text_config names no model_type; AutoModel would build any
  // other text model, which this analysis does not nest here.
  const std::string type = text.string_or("model_type", "bert");
  if (type != "bert")
    throw Error(
        ErrorKind::Unsupported, text.file(), text.path() + ".model_type",
        "unsupported architecture: " + printable(type) + " as Grounding DINO's text backbone (bert is)");
  // Relative position types add a distance table per layer's attention, which is not modelled here.
  if (text.string_or("position_embedding_type", "absolute") != "absolute")
    text.fail("position_embedding_type", "only \"absolute\" is modelled");
  const TextEncoderDims d = read_bert_dims(text, BertDefaults{});
  text_encoder_body(t, prefix + "text_backbone.", "encoder.layer", bert_layer_names(), d);
  return d.layer.hidden;
}

// The heads the detector sets on the decoder once it is built (class_embed, then bbox_embed), under
// `decoder`: MM Grounding DINO's contrastive class heads hold a scalar bias each (Grounding DINO's none); a
// box MLP per layer, or one listed for every layer when they are shared. Checkpoints store them under the
// detector's own lists (class_embed.N, bbox_embed.N): the decoder's are the tied copies there.
void grounding_dino_decoder_heads(ModelTemplate& t, const std::string& decoder, uint64_t layers, uint64_t d,
                                  const GroundingDinoVariant& v) {
  const size_t first = t.tensors.size();
  if (v.mm)
    for (uint64_t i = 0; i < layers; ++i) t.add(decoder + "class_embed." + std::to_string(i) + ".bias", {});
  const std::string shared = decoder + "bbox_embed.0.";
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = decoder + "bbox_embed." + std::to_string(i) + ".";
    if (!v.shared_boxes || i == 0) {
      rt_detr_prediction_head(t, p, d, d, 4, 3);  // GroundingDinoMLPPredictionHead(d, d, 4, 3)
      continue;
    }
    for (const char* layer : {"layers.0.", "layers.1.", "layers.2."})
      for (const char* x : {"weight", "bias"}) t.tie(p + layer + x, shared + layer + x);
  }
  for (size_t i = first; i < t.tensors.size(); ++i) {
    TemplateTensor& x = t.tensors[i];
    if (x.tied_to.empty()) x.disk.push_back({x.name.substr(decoder.size()), x.shape});
  }
}

}  // namespace

uint64_t grounding_dino_body(const ModelConfig& cfg, const std::string& prefix, const GroundingDinoVariant& v,
                             ModelTemplate& t) {
  const GroundingDinoDims g = read_grounding_dino(cfg);
  const uint64_t d = g.d;
  t.add(prefix + "level_embed", {g.levels, d});
  const std::vector<uint64_t> channels = grounding_dino_backbone(cfg, prefix, t);
  const std::string positions = detr_position_embedding(cfg, prefix, d, t);
  // Grounding DINO projects the last map alone when num_feature_levels is 1; MM Grounding DINO every map.
  const bool last_alone = !v.mm && g.levels <= 1;
  detr_multiscale_input_projections(t, prefix + "input_proj_vision.",
                                    last_alone ? std::vector<uint64_t>{channels.back()} : channels, g.levels,
                                    d);
  blocks::linear(t, prefix + "text_projection", grounding_dino_text_backbone(cfg, prefix, t), d, true);
  const bool two_stage = cfg.flag_or("two_stage", true);
  if (cfg.flag_or("embedding_init_target", true) || !two_stage)
    blocks::embedding(t, prefix + "query_position_embeddings.weight", g.queries, d);
  for (uint64_t i = 0; i < g.encoder.layers; ++i)
    grounding_dino_encoder_layer(t, prefix + "encoder.layers." + std::to_string(i) + ".", g);
  blocks::norm(t, prefix + "decoder.layer_norm", d, true);
  for (uint64_t i = 0; i < g.decoder.layers; ++i)
    grounding_dino_decoder_layer(t, prefix + "decoder.layers." + std::to_string(i) + ".", g);
  // GroundingDinoMLPPredictionHead(query_dim // 2 * d_model, d_model, d_model, 2).
  rt_detr_prediction_head(t, prefix + "decoder.reference_points_head.", g.query_dim / 2 * d, d, d, 2);
  if (v.detection) grounding_dino_decoder_heads(t, prefix + "decoder.", g.decoder.layers, d, v);
  if (two_stage || v.mm) {
    // The encoder's tokens become proposals. The proposal box head is always its own MLP: the model is built
    // before the detector sets bbox_embed on the decoder, so two_stage_bbox_embed_share finds none to share.
    blocks::linear(t, prefix + "enc_output", d, d, true);
    blocks::norm(t, prefix + "enc_output_norm", d, true);
    rt_detr_prediction_head(t, prefix + "encoder_output_bbox_embed.", d, d, 4, 3);
    if (v.mm) t.add(prefix + "encoder_output_class_embed.bias", {});
  } else {
    blocks::embedding(t, prefix + "reference_points.weight", g.queries, 4);
  }
  describe_detr_transformer(cfg, prefix, positions, true, g.encoder, g.decoder, t);
  return g.decoder.layers;
}

}  // namespace ma::families

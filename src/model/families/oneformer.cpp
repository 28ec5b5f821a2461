// OneFormer (model_type oneformer: OneFormerModel, OneFormerForUniversalSegmentation;
// shi-labs/oneformer_{ade20k,coco,cityscapes}_{swin_tiny,swin_large,dinat_large}): Mask2Former's backbone and
// pixel decoder, a task token (an MLP over the tokenized task text) that a small DETR-style query transformer
// turns into the object queries, then Mask2Former-style masked-attention decoder layers (under other names)
// with a class and a mask head after each. The text mapper (a CLIP-style text encoder and a projector for the
// query-text contrastive loss) exists only when is_training is set.
#include <string>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/seg_b.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// OneFormerConfig's default backbone: a SwinConfig with only drop_path_rate and out_features set (Swin-T).
constexpr const char* kOneFormerDefaultBackbone =
    R"({"model_type":"swin","out_features":["stage1","stage2","stage3","stage4"]})";

// OneFormerMLPPredictionHead(in, hidden, out, layers) under `p`: a Sequential `layers` of PredictionBlocks (a
// Linear at .0 of each).
void oneformer_mlp(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                   uint64_t layers) {
  for (uint64_t i = 0; i < layers; ++i)
    blocks::linear(t, p + "layers." + std::to_string(i) + ".0", i == 0 ? in : hidden,
                   i + 1 == layers ? out : hidden, true);
}

// OneFormerTransformerDecoderQueryTransformerDecoderLayer under `p`: torch self- and cross-attention, the FFN
// (linear1, linear2) and three LayerNorms, registered in that order.
void oneformer_query_layer(ModelTemplate& t, const std::string& p, const LayerDims& l) {
  torch_multihead_attention(t, p + "self_attn.", l.hidden);
  torch_multihead_attention(t, p + "multihead_attn.", l.hidden);
  blocks::linear(t, p + "linear1", l.hidden, l.ffn, true);
  blocks::linear(t, p + "linear2", l.ffn, l.hidden, true);
  for (const char* n : {"norm1", "norm2", "norm3"}) blocks::norm(t, p + n, l.hidden, true);
}

// OneFormerTransformerDecoderLayer under `p`: masked cross-attention (torch's), DETR-style self-attention,
// the FFN, each wrapped with its own LayerNorm.
void oneformer_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l) {
  torch_multihead_attention(t, p + "cross_attn.multihead_attn.", l.hidden);
  blocks::norm(t, p + "cross_attn.norm", l.hidden, true);
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "self_attn.self_attn." + proj, l.hidden, l.hidden, true);
  blocks::norm(t, p + "self_attn.norm", l.hidden, true);
  blocks::linear(t, p + "ffn.linear1", l.hidden, l.ffn, true);
  blocks::linear(t, p + "ffn.linear2", l.ffn, l.hidden, true);
  blocks::norm(t, p + "ffn.norm", l.hidden, true);
}

// OneFormerTextMapper under `p`: OneFormerTextEncoder (its positional_embedding, a direct parameter, before
// its transformer's layers; heads = width / 64), the text projector and the learned prompt context.
void oneformer_text_mapper(const ModelConfig& cfg, const std::string& p, uint64_t hidden, ModelTemplate& t) {
  const uint64_t width = cfg.dim_or("text_encoder_width", 256);
  if (width < 64)
    cfg.fail("text_encoder_width", "must be at least 64 (the text encoder has width / 64 heads)");
  if (width % (width / 64) != 0) cfg.fail("text_encoder_width", "must be divisible by its width / 64 heads");
  const std::string e = p + "text_encoder.";
  t.add(e + "positional_embedding", {cfg.dim_or("text_encoder_context_length", 77), width});
  for (uint64_t i = 0; i < cfg.count_or("text_encoder_num_layers", 6); ++i) {
    const std::string l = e + "transformer.layers." + std::to_string(i) + ".";
    torch_multihead_attention(t, l + "self_attn.", width);
    blocks::norm(t, l + "layer_norm1", width, true);
    blocks::linear(t, l + "mlp.fc1", width, 4 * width, true);
    blocks::linear(t, l + "mlp.fc2", 4 * width, width, true);
    blocks::norm(t, l + "layer_norm2", width, true);
  }
  blocks::norm(t, e + "ln_final", width, true);
  blocks::embedding(t, e + "token_embedding.weight", cfg.dim_or("text_encoder_vocab_size", 49408), width);
  oneformer_mlp(t, p + "text_projector.", width, hidden, hidden, cfg.count_or("text_encoder_proj_layers", 2));
  if (const uint64_t ctx = cfg.count_or("text_encoder_n_ctx", 16); ctx > 0)
    blocks::embedding(t, p + "prompt_ctx.weight", ctx, width);
}

// OneFormerModel's modules under `p` ("" or "model."). Returns the decoder's width (hidden_dim).
uint64_t oneformer_model(const ModelConfig& cfg, const std::string& p, ModelTemplate& t) {
  const std::vector<uint64_t> channels =
      seg_backbone(cfg, kOneFormerDefaultBackbone, p + "pixel_level_module.encoder.", false, t);
  const StackDims enc = mask2former_pixel_decoder(cfg, {"conv_dim", "mask_dim", "strides"}, channels,
                                                  p + "pixel_level_module.decoder.", t);

  const uint64_t d = cfg.dim_or("hidden_dim", 256);
  const LayerDims layer{d, cfg.dim_or("num_attention_heads", 8), cfg.dim_or("dim_feedforward", 2048)};
  if (d % layer.heads != 0) cfg.fail("num_attention_heads", "must divide hidden_dim");
  StackDims dec{cfg.count_or("decoder_layers", 10), layer};
  dec.layers = dec.layers > 0 ? dec.layers - 1 : 0;  // the first prediction reads the queries themselves

  // OneFormerTransformerModule: as Mask2Former's, its input projections are a plain list (no parameters).
  const std::string m = p + "transformer_module.";
  blocks::embedding(t, m + "queries_embedder.weight", cfg.dim_or("num_queries", 150), d);
  const std::string q = m + "decoder.query_transformer.decoder.";
  for (uint64_t i = 0; i < cfg.count_or("query_dec_layers", 2); ++i)
    oneformer_query_layer(t, q + "layers." + std::to_string(i) + ".", layer);
  blocks::norm(t, q + "norm", d, true);
  blocks::norm(t, m + "decoder.decoder_norm", d, true);
  for (uint64_t i = 0; i < dec.layers; ++i)
    oneformer_decoder_layer(t, m + "decoder.layers." + std::to_string(i) + ".", layer);
  // The query transformer's memory: the mask features projected from conv_dim (a registered Conv2d).
  blocks::conv2d(t, m + "decoder.query_input_projection", cfg.dim_or("conv_dim", 256), d, 1);
  blocks::linear(t, m + "decoder.class_embed", d, num_labels(cfg) + 1, true);  // + 1: "no object"
  oneformer_mlp(t, m + "decoder.mask_embed.", d, d, cfg.dim_or("mask_dim", 256), 3);
  blocks::embedding(t, m + "level_embed.weight", 3, d);

  // OneFormerTaskModel: a two-layer MLP from the task's token ids (task_seq_len of them) to the task token.
  oneformer_mlp(t, p + "task_encoder.task_mlp.", cfg.dim_or("task_seq_len", 77), d, d, 2);
  if (cfg.flag_or("is_training", false)) oneformer_text_mapper(cfg, p + "text_mapper.", d, t);

  ArchitectureRecord& a = t.arch;
  a.post_norm = !cfg.flag_or("pre_norm", false);
  a.norm = NormKind::LayerNorm;
  a.activation = "relu";  // the decoder layers' ACT2FN default: OneFormerConfig has no activation field
  a.position = PositionKind::Sinusoidal;
  a.attention_bias = a.mlp_bias = true;
  describe_stack(t, StackRole::Encoder, p + "pixel_level_module.decoder.encoder.layers", enc,
                 enc.layer.hidden / enc.layer.heads);
  describe_stack(t, StackRole::Decoder, m + "decoder.layers", dec, d / layer.heads);
  describe_main(t, dec, 0);
  return d;
}

}  // namespace

void build_oneformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "OneFormerModel");
  const std::string task = supported_task(cfg, cls, "OneFormer", {"Model", "ForUniversalSegmentation"});
  t.arch.architecture = cls;
  if (task == "Model") {
    oneformer_model(cfg, "", t);
    return;
  }
  oneformer_model(cfg, "model.", t);
  // OneFormerLoss: the contrastive loss's learned temperature (a scalar parameter, log(1 / temperature),
  // unless contrastive_temperature is null), then the class weights as a persistent buffer.
  const json::Value* temperature = cfg.raw("contrastive_temperature");
  if (temperature == nullptr || !temperature->is_null()) t.add("criterion.logit_scale", {});
  t.add("criterion.empty_weight", {num_labels(cfg) + 1}).kind = TensorKind::Buffer;
}

}  // namespace ma::families

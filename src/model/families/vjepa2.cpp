// V-JEPA 2 (vjepa2: VJEPA2Model, VJEPA2ForVideoClassification; facebook/vjepa2-vitl-fpc64-256 ... vitg): a
// video ViT whose tubelets (a Conv3d) carry no learned positions (its attention rotates queries and keys by
// 3D RoPE), and the JEPA predictor VJEPA2Model always builds beside it: a Linear into pred_hidden_size,
// pred_num_mask_tokens mask tokens, its own layers, a LayerNorm and a Linear back. The video classifier adds
// an attentive pooler (a learned query token, one cross-attention layer with no output projection,
// num_pooler_layers self-attention layers) and a Linear.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_d.h"

namespace ma::families {
namespace {

// int(width * ratio): the MLP width of a VJEPA2MLP.
uint64_t vjepa2_mlp_width(const ModelConfig& cfg, std::string_view key, uint64_t width, double ratio) {
  const double w = static_cast<double>(width) * ratio;
  if (!(w >= 1.0) || w > static_cast<double>(ModelConfig::kMaxValue))
    cfg.fail(key, "times the hidden size must make an MLP width from 1 to 2^26");
  return static_cast<uint64_t>(w);
}

// VJEPA2MLP under `p`: fc1 and fc2, both biased.
void vjepa2_mlp(ModelTemplate& t, const std::string& p, uint64_t width, uint64_t mlp) {
  blocks::linear(t, p + "mlp.fc1", width, mlp, true);
  blocks::linear(t, p + "mlp.fc2", mlp, width, true);
}

// VJEPA2Layer under `p` (the encoder's and the predictor's): norm1, the RoPE attention's query, key, value
// (biased when qkv_bias) and proj (always biased), norm2, the MLP.
void vjepa2_layer(ModelTemplate& t, const std::string& p, uint64_t width, uint64_t mlp, bool qkv_bias) {
  blocks::norm(t, p + "norm1", width, true);
  for (const char* m : {"query", "key", "value"})
    blocks::linear(t, p + "attention." + m, width, width, qkv_bias);
  blocks::linear(t, p + "attention.proj", width, width, true);
  blocks::norm(t, p + "norm2", width, true);
  vjepa2_mlp(t, p, width, mlp);
}

}  // namespace

void build_vjepa2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VJEPA2Model");
  const std::string task = supported_task(cfg, cls, "VJEPA2", {"Model", "ForVideoClassification"});
  // VJEPA2Config's defaults are vjepa2-vitl-fpc64-256's: ViT-L (24 layers of 1,024, 16 heads) over 64 frames
  // of 256 pixels in 2 x 16 x 16 tubelets; a 12-layer predictor of 384 with 12 heads.
  const uint64_t hidden = cfg.dim_or("hidden_size", 1024);
  const uint64_t heads = cfg.dim_or("num_attention_heads", 16);
  split_heads(cfg, "num_attention_heads", hidden, heads);  // VJEPA2RopeAttention raises otherwise
  const uint64_t layers = cfg.layers_or("num_hidden_layers", 24);
  const uint64_t mlp = vjepa2_mlp_width(cfg, "mlp_ratio", hidden, cfg.number_or("mlp_ratio", 4.0));
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  const uint64_t patch = cfg.dim_or("patch_size", 16);
  const uint64_t tubelet = cfg.dim_or("tubelet_size", 2);
  const uint64_t crop = cfg.dim_or("crop_size", 256);
  const uint64_t pred_hidden = cfg.dim_or("pred_hidden_size", 384);
  split_heads(cfg, "pred_num_attention_heads", pred_hidden, cfg.dim_or("pred_num_attention_heads", 12));
  const uint64_t pred_layers = cfg.layers_or("pred_num_hidden_layers", 12);
  const uint64_t pred_mlp =
      vjepa2_mlp_width(cfg, "pred_mlp_ratio", pred_hidden, cfg.number_or("pred_mlp_ratio", 4.0));
  const uint64_t mask_tokens = cfg.dim_or("pred_num_mask_tokens", 10);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = hidden;
  a.num_layers = layers;
  a.num_attention_heads = a.num_key_value_heads = heads;
  a.head_dim = hidden / heads;
  a.intermediate_size = mlp;
  a.position = PositionKind::Rope;  // 3D rotary positions (frame, row, column); no position table
  const std::string p = task == "Model" ? "" : "vjepa2.";
  StackSpec& encoder = a.add_stack(StackRole::Encoder, p + "encoder.layer", hidden);
  encoder.patch_size = patch;
  encoder.image_size = crop;

  t.add(p + "encoder.embeddings.patch_embeddings.proj.weight",
        {hidden, cfg.dim_or("in_chans", 3), tubelet, patch, patch});
  t.add(p + "encoder.embeddings.patch_embeddings.proj.bias", {hidden});
  for (uint64_t i = 0; i < layers; ++i) {
    vjepa2_layer(t, encoder.path + "." + std::to_string(i) + ".", hidden, mlp, qkv_bias);
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::norm(t, p + "encoder.layernorm", hidden, true);

  // VJEPA2PredictorEmbeddings' own mask tokens precede its Linear.
  t.add(p + "predictor.embeddings.mask_tokens", {mask_tokens, 1, 1, pred_hidden});
  blocks::linear(t, p + "predictor.embeddings.predictor_embeddings", hidden, pred_hidden, true);
  for (uint64_t i = 0; i < pred_layers; ++i)
    vjepa2_layer(t, p + "predictor.layer." + std::to_string(i) + ".", pred_hidden, pred_mlp, qkv_bias);
  blocks::norm(t, p + "predictor.layernorm", pred_hidden, true);
  blocks::linear(t, p + "predictor.proj", pred_hidden, hidden, true);
  if (task == "Model") return;

  // VJEPA2AttentivePooler: its query token, then the cross-attention layer (k, v, q; no output projection),
  // then the self-attention layers (k, v, q, out). Its MLPs keep VJEPA2MLP's default ratio of 4, whatever
  // mlp_ratio says.
  const uint64_t pooler_mlp = 4 * hidden;
  t.add("pooler.query_tokens", {1, 1, hidden});
  const std::string cross = "pooler.cross_attention_layer.";
  blocks::norm(t, cross + "layer_norm1", hidden, true);
  for (const char* m : {"k_proj", "v_proj", "q_proj"})
    blocks::linear(t, cross + "cross_attn." + m, hidden, hidden, true);
  blocks::norm(t, cross + "layer_norm2", hidden, true);
  vjepa2_mlp(t, cross, hidden, pooler_mlp);
  const uint64_t pooler_layers = cfg.layers_or("num_pooler_layers", 3, 0);
  for (uint64_t i = 0; i < pooler_layers; ++i) {
    const std::string s = "pooler.self_attention_layers." + std::to_string(i) + ".";
    blocks::norm(t, s + "layer_norm1", hidden, true);
    for (const char* m : {"k_proj", "v_proj", "q_proj", "out_proj"})
      blocks::linear(t, s + "self_attn." + m, hidden, hidden, true);
    blocks::norm(t, s + "layer_norm2", hidden, true);
    vjepa2_mlp(t, s, hidden, pooler_mlp);
  }
  // A Linear whatever num_labels is (no nn.Identity for 0 labels here).
  blocks::linear(t, "classifier", hidden, num_labels(cfg), true);
}

}  // namespace ma::families

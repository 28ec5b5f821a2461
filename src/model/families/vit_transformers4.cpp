// ViT's layer as transformers 4 spelled it, which the ViT copies transformers has not moved to ViT's
// transformers 5 modules keep in memory as well as on disk (DPT, YOLOS, VideoMAE): BERT-like names under
// attention.attention / attention.output / intermediate / output, the two LayerNorms registered last. Also
// the ViT-base sizes these config classes default to.
#include <string>

#include "model/blocks.h"
#include "model/families/vit_relatives.h"

namespace ma::families {

void vit4_layer(ModelTemplate& t, const std::string& p, const LayerDims& d, Vit4QkvBias bias) {
  const std::string self = p + ".attention.attention.";
  if (bias == Vit4QkvBias::QueryValueParameters && d.qkv_bias) {
    // VideoMAESelfAttention's q_bias / v_bias: its own parameters, listed before its bias-free linears.
    t.add(self + "q_bias", {d.hidden});
    t.add(self + "v_bias", {d.hidden});
  }
  const bool linear_bias = bias == Vit4QkvBias::Linears && d.qkv_bias;
  blocks::linear(t, self + "query", d.hidden, d.hidden, linear_bias);
  blocks::linear(t, self + "key", d.hidden, d.hidden, linear_bias);
  blocks::linear(t, self + "value", d.hidden, d.hidden, linear_bias);
  blocks::linear(t, p + ".attention.output.dense", d.hidden, d.hidden, true);
  blocks::linear(t, p + ".intermediate.dense", d.hidden, d.ffn, true);
  blocks::linear(t, p + ".output.dense", d.ffn, d.hidden, true);
  blocks::norm(t, p + ".layernorm_before", d.hidden, true);
  blocks::norm(t, p + ".layernorm_after", d.hidden, true);
}

void vit4_encoder(ModelTemplate& t, const std::string& path, uint64_t layers, const LayerDims& d,
                  Vit4QkvBias bias) {
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, path, d.hidden);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = d.heads;
  spec.attention.head_dim = d.hidden / d.heads;
  spec.ffn.intermediate = d.ffn;
  for (uint64_t i = 0; i < layers; ++i) {
    vit4_layer(t, path + "." + std::to_string(i), d, bias);
    encoder.layers.push_back(spec);
  }
}

}  // namespace ma::families

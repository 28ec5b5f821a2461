// NLLB-MoE (facebook/nllb-moe-54b): M2M100's encoder-decoder stacks with a top-2 mixture of ungated
// experts every few layers. The template is what NllbMoeForConditionalGeneration builds, tensors in
// registration order; the record routes the sparse layers.
#include <cstdint>
#include <string>

#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/seq2seq_classics.h"

namespace ma::families {

namespace {

// NllbMoeConfig's defaults are NLLB-MoE-54B's layout at a twelfth of its depth: 12 + 12 layers, 128 experts,
// every 4th layer sparse.
struct NllbMoeDims {
  uint64_t d = 0, vocab = 0, positions = 0, experts = 0;
  StackDims enc, dec;
  uint64_t encoder_step = 0, decoder_step = 0;
  bool router_bias = false;
};

// Layer i of a stack is sparse when the step is positive and (i + 1) % step == 0: with step 4, layers 3, 7,
// ...
bool nllb_sparse(uint64_t i, uint64_t step) {
  return step > 0 && (i + 1) % step == 0;
}

// One NLLB-MoE layer: self_attn, (cross_attention), then under ffn either fc1 / fc2 or the top-2 router's
// classifier and one ungated fc1 / fc2 pair (with biases) per expert, and ff_layer_norm.
void nllb_moe_layer(ModelTemplate& t, const std::string& layer, const NllbMoeDims& n, uint64_t ffn,
                    bool cross, bool sparse) {
  kvq_attention(t, layer + ".self_attn", n.d, true);
  blocks::norm(t, layer + ".self_attn_layer_norm", n.d, true);
  if (cross) {
    kvq_attention(t, layer + ".cross_attention", n.d, true);
    blocks::norm(t, layer + ".cross_attention_layer_norm", n.d, true);
  }
  if (sparse) {
    blocks::linear(t, layer + ".ffn.router.classifier", n.d, n.experts, n.router_bias);
    for (uint64_t e = 0; e < n.experts; ++e) {
      const std::string x = layer + ".ffn.experts.expert_" + std::to_string(e);
      blocks::routed(t, x + ".fc1.weight", {ffn, n.d});
      blocks::routed(t, x + ".fc1.bias", {ffn});
      blocks::routed(t, x + ".fc2.weight", {n.d, ffn});
      blocks::routed(t, x + ".fc2.bias", {n.d});
    }
  } else {
    blocks::linear(t, layer + ".ffn.fc1", n.d, ffn, true);
    blocks::linear(t, layer + ".ffn.fc2", ffn, n.d, true);
  }
  blocks::norm(t, layer + ".ff_layer_norm", n.d, true);
}

// An NLLB-MoE stack: its embedding tied to (or a copy of) `shared`, sinusoidal positions computed into a
// buffer that is never saved, the layers and a final LayerNorm.
void nllb_moe_stack(ModelTemplate& t, const std::string& stack, const NllbMoeDims& n,
                    const std::string& shared, bool tied, bool cross) {
  tied_or_own(t, stack + ".embed_tokens.weight", shared, tied).embedding = true;
  const StackDims& s = cross ? n.dec : n.enc;
  const uint64_t step = cross ? n.decoder_step : n.encoder_step;
  for (uint64_t i = 0; i < s.layers; ++i)
    nllb_moe_layer(t, numbered_layer(stack, i), n, s.layer.ffn, cross, nllb_sparse(i, step));
  blocks::norm(t, stack + ".layer_norm", n.d, true);
}

// The record of a stack whose sparse layers route each token to two of `experts` ungated experts.
void route_nllb_layers(StackSpec& s, const NllbMoeDims& n, uint64_t step) {
  for (uint64_t i = 0; i < s.layers.size(); ++i) {
    if (!nllb_sparse(i, step)) continue;
    FfnShape& f = s.layers[i].ffn;
    f.kind = Ffn::Moe;
    f.gated = false;
    f.experts = n.experts;
    f.top_k = 2;
    f.expert_intermediate = f.intermediate;
    f.expert_matrices = 2;
  }
}

}  // namespace

void build_nllb_moe(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "NllbMoeModel");
  const std::string task = supported_task(cfg, cls, "NllbMoe", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  NllbMoeDims n;
  n.d = cfg.dim_or("d_model", 1024);
  n.vocab = cfg.dim_or("vocab_size", 128112);
  n.positions = cfg.dim_or("max_position_embeddings", 1024);
  n.experts = cfg.dim_or("num_experts", 128);
  n.router_bias = cfg.flag_or("router_bias", false);
  n.enc = read_stack(cfg, "encoder", n.d, 12, 16, 4096);
  n.dec = read_stack(cfg, "decoder", n.d, 12, 16, 4096);
  // transformers treats a step of 0 (or below) as "no sparse layer"; a negative one is refused here.
  n.encoder_step = cfg.count_or("encoder_sparse_step", 4);
  n.decoder_step = cfg.count_or("decoder_sparse_step", 4);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = n.vocab;
  t.arch.position = PositionKind::Sinusoidal;

  const std::string prefix = task == "Model" ? "" : "model.";
  blocks::embedding(t, prefix + "shared.weight", n.vocab, n.d);
  nllb_moe_stack(t, prefix + "encoder", n, prefix + "shared.weight", tied, false);
  nllb_moe_stack(t, prefix + "decoder", n, prefix + "shared.weight", tied, true);
  if (task == "ForConditionalGeneration") tied_or_own(t, "lm_head.weight", prefix + "shared.weight", tied);

  describe_main(t, n.dec, n.positions);
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", n.enc, t.arch.head_dim, n.positions);
  route_nllb_layers(t.arch.stacks.back(), n, n.encoder_step);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", n.dec, t.arch.head_dim);
  route_nllb_layers(t.arch.stacks.back(), n, n.decoder_step);
  t.arch.num_experts = n.experts;
  t.arch.experts_per_token = 2;
  t.arch.moe_intermediate_size = n.dec.layer.ffn;
}

}  // namespace ma::families

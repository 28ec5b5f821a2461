// Perceiver IO's shared pieces (transformers' modeling_perceiver.py): PerceiverLayer, the latent encoder and
// PerceiverBasicDecoder. Their widths follow rules of transformers' own that differ between self- and
// cross-attention; each is spelled out where it applies.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/perceiver.h"

namespace ma::families {
namespace {

// PerceiverAttention's query-key width: the given one, else for a cross-attention the width
// cross_attention_shape_for_attention names ("kv": the inputs', "q": the queries'), else the queries'.
uint64_t perceiver_qk_width(const ModelConfig& cfg, const PerceiverLayerDims& d) {
  if (d.qk_channels) return *d.qk_channels;
  if (!d.cross) return d.q_dim;
  const std::string shape = cfg.string_or("cross_attention_shape_for_attention", "kv");
  if (shape == "q") return d.q_dim;
  if (shape == "kv") return d.kv_dim;
  cfg.fail("cross_attention_shape_for_attention", "must be q or kv");
}

}  // namespace

void perceiver_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                     const PerceiverLayerDims& d) {
  const uint64_t qk = perceiver_qk_width(cfg, d);
  const uint64_t v = d.v_channels.value_or(qk);  // values default to the query-key width
  if (qk % d.heads != 0)
    cfg.fail(d.qk_key, "query-key width " + std::to_string(qk) + " must be divisible by the " +
                           std::to_string(d.heads) + " heads");
  if (v % d.heads != 0)
    cfg.fail(d.v_key, "value width " + std::to_string(v) + " must be divisible by the " +
                          std::to_string(d.heads) + " heads");
  const std::string a = p + "attention.";
  blocks::norm(t, a + "self.layernorm1", d.q_dim, true);
  if (d.cross) blocks::norm(t, a + "self.layernorm2", d.kv_dim, true);  // an nn.Identity in self-attention
  blocks::linear(t, a + "self.query", d.q_dim, qk, true);
  blocks::linear(t, a + "self.key", d.kv_dim, qk, true);
  blocks::linear(t, a + "self.value", d.kv_dim, v, true);
  // The output projection maps back to the queries' width in a cross-attention, but keeps the values'
  // width in a self-attention (transformers' output_channels = v_channels there).
  blocks::linear(t, a + "output.dense", v, d.cross ? d.q_dim : v, true);
  blocks::norm(t, p + "layernorm", d.q_dim, true);
  blocks::linear(t, p + "mlp.dense1", d.q_dim, d.widening * d.q_dim, true);
  blocks::linear(t, p + "mlp.dense2", d.widening * d.q_dim, d.q_dim, true);
}

void perceiver_latent_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                              uint64_t kv_dim) {
  // PerceiverConfig's defaults are deepmind/language-perceiver's, but for its qk_channels (256) and
  // v_channels (1280), which the checkpoint's config.json sets.
  const uint64_t latents = cfg.dim_or("num_latents", 256), width = cfg.dim_or("d_latents", 1280);
  const uint64_t blocks_run = cfg.layers_or("num_blocks", 1);
  const uint64_t self_attends = cfg.layers_or("num_self_attends_per_block", 26);
  const uint64_t self_heads = cfg.dim_or("num_self_attention_heads", 8);
  const uint64_t cross_heads = cfg.dim_or("num_cross_attention_heads", 8);
  if (blocks_run * self_attends > ModelConfig::kMaxLayers)
    cfg.fail("num_blocks", "runs more than " + std::to_string(ModelConfig::kMaxLayers) + " layers");
  // PerceiverEncoder checks these before building any layer.
  if (width % self_heads != 0) cfg.fail("num_self_attention_heads", "must divide d_latents");
  if (width % cross_heads != 0) cfg.fail("num_cross_attention_heads", "must divide d_latents");
  std::optional<uint64_t> qk, v;
  if (cfg.has("qk_channels")) qk = cfg.dim("qk_channels");
  if (cfg.has("v_channels")) v = cfg.dim("v_channels");

  t.add(p + "embeddings.latents", {latents, width});
  perceiver_layer(cfg, t, p + "encoder.cross_attention.",
                  {.cross = true,
                   .qk_channels = qk,
                   .v_channels = v,
                   .heads = cross_heads,
                   .q_dim = width,
                   .kv_dim = kv_dim,
                   .widening = cfg.dim_or("cross_attention_widening_factor", 1),
                   .qk_key = "qk_channels",
                   .v_key = "v_channels"});
  const uint64_t widening = cfg.dim_or("self_attention_widening_factor", 1);
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, p + "encoder.self_attends", width);
  for (uint64_t i = 0; i < self_attends; ++i)
    perceiver_layer(cfg, t, s.path + "." + std::to_string(i) + ".",
                    {.qk_channels = qk,
                     .v_channels = v,
                     .heads = self_heads,
                     .q_dim = width,
                     .kv_dim = width,
                     .widening = widening,
                     .qk_key = "qk_channels",
                     .v_key = "v_channels"});
  // The block of self-attention layers runs num_blocks times on the same weights.
  s.layers.assign(blocks_run * self_attends, attention_dense_layer());
  s.shared_weights = blocks_run > 1;
  s.positions = latents;  // the self-attention layers attend the latents, whatever the input's length

  ArchitectureRecord& a = t.arch;
  a.hidden_size = width;
  a.num_layers = blocks_run * self_attends;
  a.num_attention_heads = a.num_key_value_heads = self_heads;
  a.head_dim = qk.value_or(width) / self_heads;
  a.intermediate_size = widening * width;
  a.norm = NormKind::LayerNorm;
}

void perceiver_basic_decoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                             const PerceiverDecoderDims& d) {
  if (d.positions) t.add(p + "output_position_encodings.position_embeddings", {d.positions, d.channels});
  // positions_projection is an nn.Identity: the decoders here pass no project_pos_dim.
  perceiver_layer(cfg, t, p + "decoding_cross_attention.",
                  {.cross = true,
                   .qk_channels = d.qk_channels,
                   .v_channels = d.v_channels,
                   .heads = d.heads,
                   .q_dim = d.channels,
                   .kv_dim = cfg.dim_or("d_latents", 1280),
                   .widening = 1,
                   .qk_key = "cross_attention_shape_for_attention",
                   .v_key = "d_model"});
}

}  // namespace ma::families

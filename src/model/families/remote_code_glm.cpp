// ChatGLM (model_type chatglm, modeling_chatglm.py). Two generations share the model_type:
// * ChatGLM-6B (GLM-1): transformer.word_embeddings / layers.N / final_layernorm, biased LayerNorms and
//   projections, a GELU MLP of inner_hidden_size, a persistent float16 rotary inv_freq in every layer's
//   attention, and an lm_head tied to the word embeddings (PretrainedConfig's default).
// * ChatGLM2/3 and CodeGeeX2: transformer.embedding / encoder.layers.N / encoder.final_layernorm /
//   output_layer, RMSNorm, a query_key_value sized by multi_query_group_num, a SwiGLU dense_h_to_4h twice
//   ffn_hidden_size wide, one persistent rotary inv_freq at the config's dtype, never tied. (GLM-4-9B's
//   chatglm configs spell the same fields and get this layout; no GLM-4 index was at hand to check it.)
// Either may carry a P-tuning prefix encoder (pre_seq_len).
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

void require_divides(const ModelConfig& cfg, std::string_view key, uint64_t divisor, uint64_t n,
                     std::string_view what) {
  if (n % divisor != 0) cfg.fail(key, "must divide " + std::string(what) + " (" + std::to_string(n) + ")");
}

// P-tuning v2: a table of pre_seq_len learned key/value prefixes `width` wide, or (prefix_projection) a
// narrower table and a two-layer MLP up to that width.
void prefix_encoder(const ModelConfig& cfg, ModelTemplate& t, uint64_t width, uint64_t table_width) {
  if (!cfg.has("pre_seq_len")) return;
  const uint64_t n = cfg.dim("pre_seq_len");
  const std::string p = "transformer.prefix_encoder";
  if (!cfg.flag_or("prefix_projection", false)) {
    blocks::embedding(t, p + ".embedding.weight", n, width);
    return;
  }
  blocks::embedding(t, p + ".embedding.weight", n, table_width);
  blocks::linear(t, p + ".trans.0", table_width, t.arch.hidden_size, true);
  blocks::linear(t, p + ".trans.2", t.arch.hidden_size, width, true);
}

// The sizes both generations spell alike (num_layers, not num_hidden_layers); the vocabulary's key differs.
void read_glm_sizes(const ModelConfig& cfg, ArchitectureRecord& a, std::string_view vocab_key,
                    uint64_t vocab_default) {
  a.architecture = "ChatGLMForConditionalGeneration";
  a.vocab_size = cfg.dim_or(vocab_key, vocab_default);
  a.hidden_size = cfg.dim_or("hidden_size", 4096);
  a.num_layers = cfg.layers_or("num_layers", 28);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 32);
}

void build_glm1(const ModelConfig& cfg, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  read_glm_sizes(cfg, a, "vocab_size", 150528);
  require_divides(cfg, "num_attention_heads", a.num_attention_heads, a.hidden_size, "hidden_size");
  a.head_dim = a.hidden_size / a.num_attention_heads;
  const json::Value* inner = cfg.raw("inner_hidden_size");
  a.intermediate_size =
      inner && inner->is_null() ? 4 * a.hidden_size : cfg.dim_or("inner_hidden_size", 16384);
  a.max_position_embeddings = cfg.count_or("max_sequence_length", 2048);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  // 2D positions rotate each half of a head by its own position id.
  const uint64_t rotary =
      cfg.flag_or("position_encoding_2d", true) ? a.hidden_size / (a.num_attention_heads * 2) : a.head_dim;
  const uint64_t h = a.hidden_size;
  token_embedding(t, "transformer.word_embeddings.weight", a);
  t.arch.add_stack(StackRole::Decoder, "transformer.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = t.arch.stack(StackRole::Decoder)->path + "." + std::to_string(i);
    blocks::norm(t, p + ".input_layernorm", h, true);
    // RotaryEmbedding casts inv_freq to half whatever the model's dtype.
    TemplateTensor& f = inv_freq_buffer(t, p + ".attention.rotary_emb.inv_freq", rotary);
    f.disk.push_back({f.name, f.shape, DType::F16, std::nullopt});
    blocks::linear(t, p + ".attention.query_key_value", h, 3 * h, true);
    blocks::linear(t, p + ".attention.dense", h, h, true);
    blocks::norm(t, p + ".post_attention_layernorm", h, true);
    blocks::linear(t, p + ".mlp.dense_h_to_4h", h, a.intermediate_size, true);
    blocks::linear(t, p + ".mlp.dense_4h_to_h", a.intermediate_size, h, true);
    push_attention_layer(t, a.num_attention_heads, a.num_key_value_heads);
  }
  blocks::norm(t, "transformer.final_layernorm", h, true);
  prefix_encoder(cfg, t, a.num_layers * h * 2, h);
  output_head(t, "lm_head.weight", "transformer.word_embeddings.weight", a.tie_word_embeddings);
}

void build_glm2(const ModelConfig& cfg, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  read_glm_sizes(cfg, a, "padded_vocab_size", 65024);
  const json::Value* kv_channels = cfg.raw("kv_channels");
  if (kv_channels && kv_channels->is_null()) {
    require_divides(cfg, "num_attention_heads", a.num_attention_heads, a.hidden_size, "hidden_size");
    a.head_dim = a.hidden_size / a.num_attention_heads;
  } else {
    a.head_dim = cfg.dim_or("kv_channels", 128);
  }
  const uint64_t groups = cfg.dim_or("multi_query_group_num", 1);
  a.num_key_value_heads = cfg.flag_or("multi_query_attention", false) ? groups : a.num_attention_heads;
  require_divides(cfg, "multi_query_group_num", a.num_key_value_heads, a.num_attention_heads,
                  "num_attention_heads");
  a.intermediate_size = cfg.dim_or("ffn_hidden_size", 13696);
  a.max_position_embeddings = cfg.count_or("seq_length", 2048);
  a.tie_word_embeddings = false;  // ChatGLMForConditionalGeneration names no output embeddings to tie
  const bool bias = cfg.flag_or("add_bias_linear", false);
  const bool qkv_bias = bias || cfg.flag_or("add_qkv_bias", false);
  const bool norm_bias = !cfg.flag_or("rmsnorm", true);  // LayerNorm otherwise
  const uint64_t h = a.hidden_size, proj = a.num_attention_heads * a.head_dim;

  token_embedding(t, "transformer.embedding.word_embeddings.weight", a);
  inv_freq_buffer(t, "transformer.rotary_pos_emb.inv_freq", a.head_dim / 2);  // RotaryEmbedding(dim // 2)
  t.arch.add_stack(StackRole::Decoder, "transformer.encoder.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = t.arch.stack(StackRole::Decoder)->path + "." + std::to_string(i);
    blocks::norm(t, p + ".input_layernorm", h, norm_bias);
    blocks::linear(t, p + ".self_attention.query_key_value", h, proj + 2 * a.num_key_value_heads * a.head_dim,
                   qkv_bias);
    blocks::linear(t, p + ".self_attention.dense", proj, h, bias);
    blocks::norm(t, p + ".post_attention_layernorm", h, norm_bias);
    blocks::linear(t, p + ".mlp.dense_h_to_4h", h, 2 * a.intermediate_size, bias);
    blocks::linear(t, p + ".mlp.dense_4h_to_h", a.intermediate_size, h, bias);
    push_attention_layer(t, a.num_attention_heads, a.num_key_value_heads);
  }
  if (cfg.flag_or("post_layer_norm", true))
    blocks::norm(t, "transformer.encoder.final_layernorm", h, norm_bias);
  t.add("transformer.output_layer.weight", {a.vocab_size, h});
  const uint64_t kv = a.num_layers * a.head_dim * groups * 2;  // the encoder sizes it by the groups always
  prefix_encoder(cfg, t, kv, kv);
}

}  // namespace

void build_chatglm(const ModelConfig& cfg, ModelTemplate& t) {
  // ChatGLM2's configuration_chatglm.py writes these fields; ChatGLM-6B's has none of them.
  for (std::string_view key :
       {"padded_vocab_size", "ffn_hidden_size", "multi_query_attention", "kv_channels"})
    if (cfg.has(key)) return build_glm2(cfg, t);
  for (std::string_view key : {"inner_hidden_size", "position_encoding_2d", "max_sequence_length"})
    if (cfg.has(key)) return build_glm1(cfg, t);
  unsupported(
      cfg, "model_type",
      "chatglm without the fields that tell ChatGLM-6B (inner_hidden_size, position_encoding_2d) from "
      "ChatGLM2 and later (padded_vocab_size, ffn_hidden_size)");
}

}  // namespace ma::families::remote

// CPM-Ant (cpmant; openbmb/cpm-ant-10b): a pre-norm decoder of bias-free linears and weight-only RMS norms,
// whose input table holds the vocabulary and, after it, prompt_types x prompt_length soft-prompt rows
// (forward prepends prompt_length of them), plus a table of segment embeddings. Positions are one learned
// bias shared by every layer: segment_types^2 rows for pairs of segments, then position_bias_num_buckets
// relative-position buckets, each a value per head. The head is its own vocab_size x hidden linear
// (transformers does not tie it: the input table is longer than the vocabulary).
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/text_d.h"

namespace ma::families {

void build_cpmant(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CpmAntModel");
  const std::string task = supported_task(cfg, cls, "CpmAnt", {"Model", "ForCausalLM"});
  // CpmAntConfig's defaults are cpm-ant-10b's.
  const DecoderDefaults d{.vocab_size = 30720,
                          .hidden_size = 4096,
                          .num_hidden_layers = 48,
                          .num_attention_heads = 32,
                          .head_dim = 128};
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.vocab_size = cfg.dim_or("vocab_size", d.vocab_size);
  a.hidden_size = cfg.dim_or("hidden_size", d.hidden_size);
  a.num_layers = cfg.layers_or("num_hidden_layers", d.num_hidden_layers);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", d.num_attention_heads);
  a.head_dim = cfg.dim_or("dim_head", d.head_dim);  // independent of hidden_size / heads
  a.intermediate_size = cfg.dim_or("dim_ff", 10240);
  a.tie_word_embeddings = false;
  a.position = PositionKind::Relative;
  const uint64_t h = a.hidden_size;
  const uint64_t segments = cfg.dim_or("segment_types", 32);
  const uint64_t prompt_rows = cfg.dim_or("prompt_types", 32) * cfg.dim_or("prompt_length", 32);
  const uint64_t buckets = cfg.dim_or("position_bias_num_buckets", 512);
  const std::string p = task == "Model" ? "" : "cpmant.";

  blocks::Attention at;
  at.hidden = h;
  at.heads = at.kv_heads = a.num_attention_heads;
  at.head_dim = a.head_dim;
  at.q = "project_q", at.k = "project_k", at.v = "project_v", at.o = "attention_out";
  // CpmAntModel registers its encoder first, then segment_embedding, input_embedding and position_bias.
  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "encoder.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = stack.path + "." + std::to_string(i);
    blocks::norm(t, l + ".self_att.layernorm_before_attention", h, false);
    blocks::attention(t, l + ".self_att.self_attention", at);
    blocks::norm(t, l + ".ffn.layernorm_before_ffn", h, false);
    blocks::gated_mlp(t, l + ".ffn.ffn", h, a.intermediate_size, false, "w_in.w_0", "w_in.w_1", "w_out");
    stack.layers.push_back(attention_layer(a));
  }
  blocks::norm(t, p + "encoder.output_layernorm", h, false);
  blocks::embedding(t, p + "segment_embedding.weight", segments, h);
  blocks::embedding(t, p + "input_embedding.weight", a.vocab_size + prompt_rows, h);
  // A bare nn.Parameter, not an nn.Embedding.
  t.add(p + "position_bias.relative_attention_bias", {segments * segments + buckets, a.num_attention_heads});
  if (task == "ForCausalLM") t.add("lm_head.weight", {a.vocab_size, h});
}

}  // namespace ma::families

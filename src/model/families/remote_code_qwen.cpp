// Qwen-1 (model_type qwen, QWenLMHeadModel in the repositories' modeling_qwen.py): GPT-2's module names
// (transformer.wte / h.N / ln_f) around a Llama-style block: RMSNorm ln_1, a fused c_attn that always carries
// a bias, c_proj, RMSNorm ln_2, and a SwiGLU MLP whose two input halves are w1 and w2, each half of
// intermediate_size wide. Rotary inv_freq, the causal mask and the log-n table are non-persistent buffers.
#include <string>

#include "model/blocks.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

// QWenLMHeadModel casts itself to the precision its bf16 / fp16 / fp32 flags name; with none set it picks
// bf16 where the GPU has it, which is also how the checkpoints are stored.
std::string qwen_precision(const ModelConfig& cfg) {
  if (cfg.flag_or("fp16", false)) return "float16";
  if (cfg.flag_or("fp32", false)) return "float32";
  return "bfloat16";
}

}  // namespace

void build_qwen(const ModelConfig& cfg, ModelTemplate& t) {
  if (cfg.has("visual")) unsupported(cfg, "visual", "qwen with a visual tower (Qwen-VL)");
  ArchitectureRecord& a = t.arch;
  a.architecture = "QWenLMHeadModel";
  // The first Qwen-7B revisions spelled the sizes as GPT-2 does (QWenConfig's attribute_map) and the MLP
  // width ffn_hidden_size, and sized the embedding by padded_vocab_size.
  auto spelled = [&](std::string_view name, std::string_view early) {
    return !cfg.has(name) && cfg.has(early) ? early : name;
  };
  const bool early_mlp = !cfg.has("intermediate_size") && cfg.has("ffn_hidden_size");
  a.vocab_size = cfg.dim_or("vocab_size", 151936);
  a.hidden_size = cfg.dim_or(spelled("hidden_size", "n_embd"), 4096);
  a.num_layers = cfg.layers_or(spelled("num_hidden_layers", "n_layer"), 32);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or(spelled("num_attention_heads", "n_head"), 32);
  a.head_dim = cfg.dim_or("kv_channels", 128);  // projection = kv_channels x heads
  const std::string_view mlp_key = early_mlp ? "ffn_hidden_size" : "intermediate_size";
  const uint64_t mlp_width = cfg.dim_or(mlp_key, 22016);
  if (mlp_width < 2) cfg.fail(mlp_key, "must be at least 2 (w1 and w2 each take half)");
  a.intermediate_size = mlp_width / 2;
  a.max_position_embeddings = cfg.count_or(spelled("max_position_embeddings", "n_positions"), 8192);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  if (a.torch_dtype.empty()) a.torch_dtype = qwen_precision(cfg);

  const bool bias = !cfg.flag_or("no_bias", true);
  const uint64_t h = a.hidden_size, proj = a.num_attention_heads * a.head_dim;
  const uint64_t rows = early_mlp ? cfg.dim_or("padded_vocab_size", a.vocab_size) : a.vocab_size;
  blocks::embedding(t, "transformer.wte.weight", rows, h);
  t.arch.add_stack(StackRole::Decoder, "transformer.h");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = t.arch.stack(StackRole::Decoder)->path + "." + std::to_string(i);
    blocks::norm(t, p + ".ln_1", h, false);
    blocks::linear(t, p + ".attn.c_attn", h, 3 * proj, true);
    blocks::linear(t, p + ".attn.c_proj", h, proj, bias);  // declared Linear(hidden, projection)
    blocks::norm(t, p + ".ln_2", h, false);
    blocks::linear(t, p + ".mlp.w1", h, a.intermediate_size, bias);
    blocks::linear(t, p + ".mlp.w2", h, a.intermediate_size, bias);
    blocks::linear(t, p + ".mlp.c_proj", a.intermediate_size, h, bias);
    push_attention_layer(t, a.num_attention_heads, a.num_key_value_heads);
  }
  blocks::norm(t, "transformer.ln_f", h, false);
  output_head(t, "lm_head.weight", "transformer.wte.weight", a.tie_word_embeddings);
}

}  // namespace ma::families::remote

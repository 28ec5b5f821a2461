// Qwen-1 (model_type qwen, QWenLMHeadModel in the repositories' modeling_qwen.py): GPT-2's module names
// (transformer.wte / h.N / ln_f) around a Llama-style block: RMSNorm ln_1, a fused c_attn that always carries
// a bias, c_proj, RMSNorm ln_2, and a SwiGLU MLP whose two input halves are w1 and w2, each half of
// intermediate_size wide. Rotary inv_freq, the causal mask and the log-n table are non-persistent buffers.
// Qwen-VL adds its visual module (config.visual) under transformer.visual.
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
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

// Qwen-VL's visual.py VisionTransformer(**config.visual): a bias-free conv patch embedding, 256 learned
// positions (a 16 x 16 grid the code interpolates to the image's), LayerNorms with biases before and after,
// `layers` pre-norm blocks (a biased in_proj to q/k/v and out_proj, an MLP c_fc / c_proj of int(width x
// mlp_ratio)), the resampler attn_pool (n_queries queries at output_dim, the language model's width) and
// proj [output_dim, output_dim]. Checked against Qwen-VL-Chat-Int4's index: its 594 visual tensors, and
// total_size less Qwen-7B-Chat-Int4's (the same language model) is the tower's 1,935,610,624 fp16 values.
void qwen_vl_visual(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig v = *cfg.sub("visual");
  const uint64_t width = v.dim("width"), layers = v.layers_or("layers", 0), heads = v.dim("heads");
  const uint64_t patch = v.dim("patch_size"), image = v.dim("image_size");
  if (width % heads != 0) v.fail("heads", "must divide width (" + std::to_string(width) + ")");
  if (!v.has("mlp_ratio")) v.fail("mlp_ratio", "is required");
  const double ratio = v.number_or("mlp_ratio", 0);
  if (!(ratio > 0 && ratio * static_cast<double>(width) < static_cast<double>(ModelConfig::kMaxValue)))
    v.fail("mlp_ratio", "must be positive, and width x mlp_ratio a size");
  const auto mlp = static_cast<uint64_t>(ratio * static_cast<double>(width));  // Python's int(): truncation
  if (mlp == 0) v.fail("mlp_ratio", "makes an MLP without width");
  // The resampler's nn.MultiheadAttention has output_dim / 128 heads, which must divide output_dim.
  const uint64_t out = v.dim_or("output_dim", 512);
  if (out < 128 || out % (out / 128) != 0)
    v.fail("output_dim", "must be at least 128 and divisible by output_dim / 128 (the resampler's heads)");
  const std::string p = "transformer.visual";
  t.add(p + ".conv1.weight", {width, 3, patch, patch});
  t.add(p + ".positional_embedding", {256, width});
  blocks::norm(t, p + ".ln_pre", width, true);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string b = p + ".transformer.resblocks." + std::to_string(i);
    blocks::norm(t, b + ".ln_1", width, true);
    blocks::linear(t, b + ".attn.in_proj", width, 3 * width, true);
    blocks::linear(t, b + ".attn.out_proj", width, width, true);
    blocks::norm(t, b + ".ln_2", width, true);
    blocks::linear(t, b + ".mlp.c_fc", width, mlp, true);
    blocks::linear(t, b + ".mlp.c_proj", mlp, width, true);
  }
  resampler(t, p + ".attn_pool", v.dim_or("n_queries", 256), out, width, false);
  blocks::norm(t, p + ".ln_post", out, true);
  t.add(p + ".proj", {out, out});
  record_vision_tower(t, p + ".transformer.resblocks", width, layers, heads, width / heads, mlp, patch,
                      image);
  record_projector(t, p + ".attn_pool");
}

}  // namespace

void build_qwen(const ModelConfig& cfg, ModelTemplate& t) {
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
  if (cfg.has("visual")) qwen_vl_visual(cfg, t);
  output_head(t, "lm_head.weight", "transformer.wte.weight", a.tie_word_embeddings);
}

}  // namespace ma::families::remote

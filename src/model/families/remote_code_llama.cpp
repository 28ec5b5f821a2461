// The remote-code families whose block is Llama's (pre-norm attention + SwiGLU MLP, RMSNorm or LayerNorm):
// * Baichuan / Baichuan2 (modeling_baichuan.py): q, k and v fused into W_pack; the 13B models use ALiBi and
//   the 7B ones RoPE, neither saving a buffer; Baichuan2's NormHead lm_head is a plain [vocab, hidden]
//   weight.
// * InternLM (modeling_internlm.py): Llama names, every projection of the attention biased by `bias`, k and v
//   as wide as q whatever num_key_value_heads says.
// * InternLM2 (modeling_internlm2.py): its own names (tok_embeddings, attention.wqkv / wo, feed_forward.w1 /
//   w3 / w2, attention_norm / ffn_norm, output) and a GQA-sized wqkv.
// * StableLM-epoch (modeling_stablelm_epoch.py): Llama names with biased LayerNorms, q/k/v biased by
//   use_qkv_bias.
// * MiniCPM (modeling_minicpm.py): Llama exactly (its scale_emb / scale_depth are multipliers, not weights).
// * EXAONE 3.0 / 3.5 (modeling_exaone.py): Llama's block under GPT-2-like names (transformer.wte, h.N.ln_1,
//   attn.attention.{q,k,v,out}_proj, mlp.c_fc_0 / c_fc_1 / c_proj, ln_f), nothing biased, the head tied by
//   default.
// * DeciLM (modeling_decilm.py): Llama with each layer's own number of key/value heads
//   (num_key_value_heads_per_layer; the num_key_value_heads left in its configs is not read).
// Rotary inv_freq is a non-persistent buffer in all of them.
#include <algorithm>
#include <vector>

#include "model/families/decoder_llama.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

// Module names of a Llama-shaped decoder whose attention projects q, k and v with one fused matrix.
struct FusedNames {
  std::string embed, layers, attention, qkv, o, mlp, gate, up, down, attention_norm, mlp_norm, norm;
};

void fused_qkv_decoder(ModelTemplate& t, const FusedNames& n, bool attention_bias) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  token_embedding(t, n.embed, a);
  t.arch.add_stack(StackRole::Decoder, n.layers);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = n.layers + "." + std::to_string(i);
    const uint64_t qkv = (a.num_attention_heads + 2 * a.num_key_value_heads) * a.head_dim;
    blocks::linear(t, p + "." + n.attention + "." + n.qkv, h, qkv, attention_bias);
    blocks::linear(t, p + "." + n.attention + "." + n.o, a.num_attention_heads * a.head_dim, h,
                   attention_bias);
    blocks::gated_mlp(t, p + "." + n.mlp, h, a.intermediate_size, false, n.gate, n.up, n.down);
    blocks::norm(t, p + "." + n.attention_norm, h, false);
    blocks::norm(t, p + "." + n.mlp_norm, h, false);
    push_attention_layer(t, a.num_attention_heads, a.num_key_value_heads);
  }
  blocks::norm(t, n.norm, h, false);
}

// The modeling files split hidden_size into the heads (no head_dim field), and refuse a remainder.
const FusedNames kBaichuanNames{"model.embed_tokens.weight",
                                "model.layers",
                                "self_attn",
                                "W_pack",
                                "o_proj",
                                "mlp",
                                "gate_proj",
                                "up_proj",
                                "down_proj",
                                "input_layernorm",
                                "post_attention_layernorm",
                                "model.norm"};

const FusedNames kInternLm2Names{"model.tok_embeddings.weight",
                                 "model.layers",
                                 "attention",
                                 "wqkv",
                                 "wo",
                                 "feed_forward",
                                 "w1",
                                 "w3",
                                 "w2",
                                 "attention_norm",
                                 "ffn_norm",
                                 "model.norm"};

// InternLMConfig and InternLM2Config keep LlamaConfig's defaults but for the vocabulary.
void read_internlm_dims(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 103168;
  read_decoder_dims(cfg, d, t);
  heads_split_hidden(cfg, t.arch);
}

}  // namespace

void build_baichuan(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "BaichuanForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 64000;
  d.hidden_size = 5120;
  d.intermediate_size = 13696;
  d.num_hidden_layers = 40;
  d.num_attention_heads = 40;
  d.max_position_embeddings = cfg.count_or("model_max_length", 4096);  // the ALiBi models' only length
  read_decoder_dims(cfg, d, t);
  heads_split_hidden(cfg, t.arch);
  t.arch.num_key_value_heads = t.arch.num_attention_heads;  // W_pack sizes k and v like q
  // The config does not say which positions its repository's code uses: the 13B code (40 layers of 5,120)
  // biases attention with ALiBi, the 7B code (32 layers of 4,096) rotates.
  if (t.arch.hidden_size == 5120 && t.arch.num_layers == 40) t.arch.position = PositionKind::Alibi;
  fused_qkv_decoder(t, kBaichuanNames, false);
  output_head(t, "lm_head.weight", "model.embed_tokens.weight", t.arch.tie_word_embeddings);
}

void build_internlm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "InternLMForCausalLM";
  read_internlm_dims(cfg, t);
  t.arch.num_key_value_heads = t.arch.num_attention_heads;  // k and v as wide as q, whatever the config says
  LlamaStyle s;
  s.qkv_bias = s.o_bias = cfg.flag_or("bias", true);
  llama_style_decoder(t, "model.", s);
  output_head(t, "lm_head.weight", "model.embed_tokens.weight", t.arch.tie_word_embeddings);
}

void build_internlm2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "InternLM2ForCausalLM";
  read_internlm_dims(cfg, t);
  fused_qkv_decoder(t, kInternLm2Names, cfg.flag_or("bias", true));
  output_head(t, "output.weight", "model.tok_embeddings.weight", t.arch.tie_word_embeddings);
}

void build_stablelm_epoch(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "StableLMEpochForCausalLM";
  llama_style_decoder(t, "model.", read_stablelm_text(cfg, t));
  output_head(t, "lm_head.weight", "model.embed_tokens.weight", t.arch.tie_word_embeddings);
}

void build_minicpm(const ModelConfig& cfg, ModelTemplate& t) {
  if (cfg.count_or("num_experts", 0) > 0)
    unsupported(cfg, "num_experts", "minicpm with experts (MiniCPM-MoE)");
  t.arch.architecture = "MiniCPMForCausalLM";
  llama_style_decoder(t, "model.", read_llama_text(cfg, t));  // MiniCPMConfig's defaults are LlamaConfig's
  output_head(t, "lm_head.weight", "model.embed_tokens.weight", t.arch.tie_word_embeddings);
}

void build_exaone(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "ExaoneForCausalLM";
  DecoderDefaults d;  // ExaoneConfig's
  d.vocab_size = 102400;
  d.hidden_size = 2048;
  d.num_hidden_layers = 32;
  d.num_attention_heads = 32;
  d.tie_word_embeddings = true;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  // num_layers is the field, num_hidden_layers its alias; intermediate_size, when unset, is 4 x hidden.
  a.num_layers = cfg.layers_or(cfg.has("num_layers") ? "num_layers" : "num_hidden_layers", 32);
  a.intermediate_size =
      cfg.count_or("intermediate_size", 0) ? cfg.dim("intermediate_size") : 4 * a.hidden_size;
  a.max_position_embeddings = cfg.dim_or("max_position_embeddings", 2048);
  blocks::Attention at = standard_attention(a);
  at.o = "out_proj";
  token_embedding(t, "transformer.wte.weight", a);
  t.arch.add_stack(StackRole::Decoder, "transformer.h");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    blocks::norm(t, p + "ln_1", a.hidden_size, false);
    blocks::attention(t, p + "attn.attention", at);
    blocks::norm(t, p + "ln_2", a.hidden_size, false);
    blocks::gated_mlp(t, p + "mlp", a.hidden_size, a.intermediate_size, false, "c_fc_0", "c_fc_1", "c_proj");
    push_attention_layer(t, a.num_attention_heads, a.num_key_value_heads);
  }
  blocks::norm(t, "transformer.ln_f", a.hidden_size, false);
  output_head(t, "lm_head.weight", "transformer.wte.weight", a.tie_word_embeddings);
}

void build_deci(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DeciLMForCausalLM";
  read_decoder_dims(cfg, DecoderDefaults{}, t);  // DeciLMConfig is LlamaConfig plus the per-layer list
  ArchitectureRecord& a = t.arch;
  const std::vector<int64_t> kv = cfg.ints("num_key_value_heads_per_layer");
  if (kv.size() != a.num_layers)
    cfg.fail("num_key_value_heads_per_layer",
             "must list one count per layer (" + std::to_string(a.num_layers) + ")");
  token_embedding(t, "model.embed_tokens.weight", a);
  t.arch.add_stack(StackRole::Decoder, "model.layers");
  uint64_t widest = 0;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    if (kv[i] < 1 || a.num_attention_heads % static_cast<uint64_t>(kv[i]) != 0)
      cfg.fail("num_key_value_heads_per_layer",
               "entries must divide num_attention_heads (" + std::to_string(a.num_attention_heads) + ")");
    const std::string p = "model.layers." + std::to_string(i) + ".";
    blocks::Attention at = standard_attention(a);
    at.kv_heads = static_cast<uint64_t>(kv[i]);
    blocks::attention(t, p + "self_attn", at);
    blocks::gated_mlp(t, p + "mlp", a.hidden_size, a.intermediate_size);
    blocks::norm(t, p + "input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + "post_attention_layernorm", a.hidden_size, false);
    push_attention_layer(t, a.num_attention_heads, at.kv_heads);
    widest = std::max(widest, at.kv_heads);
  }
  a.num_key_value_heads = widest;  // the record's default; each layer holds its own
  blocks::norm(t, "model.norm", a.hidden_size, false);
  output_head(t, "lm_head.weight", "model.embed_tokens.weight", a.tie_word_embeddings);
}

}  // namespace ma::families::remote

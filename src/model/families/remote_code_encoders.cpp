// The remote-code encoders: NomicBERT (modeling_hf_nomic_bert.py; nomic-embed-text v1 / v1.5,
// nomic-bert-2048), a BERT-style post-norm encoder with rotary positions (no position table), one fused Wqkv,
// a SwiGLU MLP (fc11 / fc12 / fc2) and the flash-attn module names. Its config class is GPT-2's (n_embd,
// n_layer, n_head, n_inner).
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {

void build_nomic_bert(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = !cfg.flag_or("prenorm", false);
  // from_pretrained builds NomicBertModel without its pooler (and drops stored pooler weights): what every
  // Hub config's "NomicBertModel" loads as.
  const std::string cls = architecture_of(cfg, "NomicBertModel");
  const std::string task = supported_task(cfg, cls, "NomicBert", {"Model", "ForPreTraining"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  // The vocabulary is padded up to a multiple of pad_vocab_size_multiple.
  const uint64_t multiple = cfg.dim_or("pad_vocab_size_multiple", 1);
  const uint64_t vocab = cfg.dim_or("vocab_size", 50257);
  a.vocab_size = (vocab + multiple - 1) / multiple * multiple;
  a.hidden_size = cfg.dim_or(cfg.has("n_embd") ? "n_embd" : "hidden_size", 768);
  a.num_layers = cfg.layers_or(cfg.has("n_layer") ? "n_layer" : "num_hidden_layers", 12, 0);
  a.num_attention_heads = a.num_key_value_heads =
      cfg.dim_or(cfg.has("n_head") ? "n_head" : "num_attention_heads", 12);
  a.head_dim = split_heads(cfg, "n_head", a.hidden_size, a.num_attention_heads);
  a.max_position_embeddings = cfg.dim_or("n_positions", 1024);
  const std::string act = cfg.string_or("activation_function", "gelu_new");
  const bool gated = act == "glu" || act == "swiglu" || act == "geglu";
  // NomciBertGatedMLP rounds its width up to a multiple of 256 (8/3 x n_embd when n_inner is unset).
  const uint64_t inner = cfg.has("n_inner") ? cfg.dim("n_inner")
                         : gated            ? 8 * a.hidden_size / 3
                                            : 4 * a.hidden_size;
  a.intermediate_size = gated ? (inner + 255) / 256 * 256 : inner;
  const bool qkv_bias = cfg.flag_or("qkv_proj_bias", true), fc1_bias = cfg.flag_or("mlp_fc1_bias", true),
             fc2_bias = cfg.flag_or("mlp_fc2_bias", true);
  const bool rms = cfg.flag_or("use_rms_norm", false);
  const uint64_t h = a.hidden_size;
  const std::string prefix = task == "Model" ? "" : "bert.";
  blocks::embedding(t, prefix + "embeddings.word_embeddings.weight", a.vocab_size, h);
  if (cfg.number_or("rotary_emb_fraction", 0) <= 0)  // rotary models keep no position table
    blocks::embedding(t, prefix + "embeddings.position_embeddings.weight", a.max_position_embeddings, h);
  if (const uint64_t types = cfg.count_or("type_vocab_size", 2))
    blocks::embedding(t, prefix + "embeddings.token_type_embeddings.weight", types, h);
  blocks::norm(t, prefix + "emb_ln", h, !rms);
  StackSpec& s = a.add_stack(StackRole::Encoder, prefix + "encoder.layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = s.path + "." + std::to_string(i) + ".";
    blocks::linear(t, p + "attn.Wqkv", h, 3 * h, qkv_bias);
    blocks::linear(t, p + "attn.out_proj", h, h, qkv_bias);  // the qkv flag biases the output too
    if (gated) {
      blocks::linear(t, p + "mlp.fc11", h, a.intermediate_size, fc1_bias);
      blocks::linear(t, p + "mlp.fc12", h, a.intermediate_size, fc1_bias);
    } else {
      blocks::linear(t, p + "mlp.fc1", h, a.intermediate_size, fc1_bias);
    }
    blocks::linear(t, p + "mlp.fc2", a.intermediate_size, h, fc2_bias);
    blocks::norm(t, p + "norm1", h, !rms);
    blocks::norm(t, p + "norm2", h, !rms);
    LayerSpec l;
    l.ffn.gated = gated;
    s.layers.push_back(l);
  }
  if (task == "ForPreTraining") {  // the masked-LM head, its decoder the word embedding
    blocks::linear(t, "cls.predictions.transform.dense", h, h, fc1_bias);
    blocks::norm(t, "cls.predictions.transform.layer_norm", h, !rms);
    a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
    tied_or_own(t, "cls.predictions.decoder.weight", prefix + "embeddings.word_embeddings.weight",
                a.tie_word_embeddings);
    if (fc1_bias) t.add("cls.predictions.decoder.bias", {a.vocab_size});
  }
  t.known_extras.push_back({"pooler.", "NomicBertModel's pooler, which from_pretrained leaves out"});
}

}  // namespace ma::families::remote

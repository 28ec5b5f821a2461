// Ovis2 as transformers converts it (thisisiron/Ovis2-*-hf, Ovis2ForConditionalGeneration): an AIMv2 vision
// transformer (RMSNorm after a biased patch convolution, a learned position per patch, pre-RMSNorm layers
// with a SwiGLU MLP, a final RMSNorm) whose visual tokenizer head maps each hidden_stride^2 patches to a
// probability over vocab_size - num_visual_indicator_tokens visual words (a bias-free linear and a
// LayerNorm); an embedding table turns those probabilities, and the indicator tokens, into embeddings for a
// Qwen2 language model. text_config is always read as Qwen2Config, whatever model_type it names. The head
// and the visual table take Ovis2Config's own vocab_size and hidden_size.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/ocr_and_ovis.h"

namespace ma::families {
namespace {

// Ovis2VisionModel under `p`: the transformer, then the tokenizer head. Returns its vocabulary.
uint64_t ovis2_visual_tokenizer(const ModelConfig& v, uint64_t indicator_default, const std::string& p,
                                ModelTemplate& t) {
  // Ovis2VisionConfig's defaults: AIMv2-Large's width at 224 pixels.
  const uint64_t h = v.dim_or("hidden_size", 1024), inter = v.dim_or("intermediate_size", 2816);
  const uint64_t layers = v.layers_or("num_hidden_layers", 24), heads = v.dim_or("num_attention_heads", 8);
  const uint64_t channels = v.dim_or("num_channels", 3), image = v.dim_or("image_size", 224);
  const uint64_t patch = v.dim_or("patch_size", 14), stride = v.dim_or("hidden_stride", 1);
  const uint64_t vocab = v.dim_or("vocab_size", 16384);
  const uint64_t indicators = v.count_or("num_visual_indicator_tokens", indicator_default);
  const bool qkv_bias = v.flag_or("qkv_bias", false), mlp_bias = v.flag_or("mlp_bias", false);
  const uint64_t head_dim = split_heads(v, "num_attention_heads", h, heads);
  if (patch > image) v.fail("patch_size", "must be at most image_size (" + std::to_string(image) + ")");
  if (stride > 64) v.fail("hidden_stride", "is larger than any real model's (64)");
  if (indicators >= vocab)
    v.fail("num_visual_indicator_tokens", "must be below vocab_size (" + std::to_string(vocab) + ")");

  const std::string e = p + "transformer.embeddings.";
  blocks::conv2d(t, e + "patch_embedding", channels, h, patch);
  blocks::embedding(t, e + "position_embedding.weight", (image / patch) * (image / patch), h);
  blocks::norm(t, e + "rms_norm", h, false);  // position_ids, registered before it, is not persistent
  blocks::Attention a{.hidden = h, .heads = heads, .kv_heads = heads, .head_dim = head_dim};
  a.qkv_bias = a.o_bias = qkv_bias;  // Ovis2Attention biases out_proj by qkv_bias too
  a.o = "out_proj";
  a.key_first = true;  // k_proj, v_proj, q_proj, out_proj
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "transformer.encoder.layers." + std::to_string(i) + ".";
    blocks::attention(t, l + "attention", a);
    blocks::gated_mlp(t, l + "ffn", h, inter, mlp_bias);
    blocks::norm(t, l + "rms_norm1", h, false);
    blocks::norm(t, l + "rms_norm2", h, false);
  }
  blocks::norm(t, p + "transformer.rms_norm", h, false);
  blocks::linear(t, p + "head_linear", h * stride * stride, vocab - indicators, false);
  blocks::norm(t, p + "head_norm", vocab - indicators, true);
  record_vision_tower(t, p + "transformer.encoder.layers", h, layers, heads, head_dim, inter, patch, image);
  return vocab;
}

}  // namespace

void build_ovis2(const ModelConfig& cfg, ModelTemplate& t) {
  const bool conditional = first_architecture(cfg) != "Ovis2Model";
  const std::string root = conditional ? "model." : "";
  t.arch.architecture = conditional ? "Ovis2ForConditionalGeneration" : "Ovis2Model";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const LlamaStyle style = read_qwen2_text(text, t);
  t.arch.model_type = "qwen2";
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  // Without a vision_config, Ovis2Config gives the tower one indicator token per visual_indicator_token_ids.
  const std::vector<int64_t> indicator_ids = cfg.ints("visual_indicator_token_ids");
  const uint64_t indicators = cfg.has("visual_indicator_token_ids") ? indicator_ids.size() : 5;
  const uint64_t visual_vocab =
      ovis2_visual_tokenizer(sub_or_empty(cfg, "vision_config"), cfg.has("vision_config") ? 5 : indicators,
                             root + "vision_tower.", t);
  record_projector(t, root + "visual_embeddings_table");
  llama_style_decoder(t, root + "language_model.", style);
  // Ovis2Config's hidden_size and vocab_size (Ovis2-2B's), which the converted configs copy from the LLM's.
  const uint64_t hidden = cfg.dim_or("hidden_size", 1536), vocab = cfg.dim_or("vocab_size", 151643);
  blocks::embedding(t, root + "visual_embeddings_table.weight", visual_vocab, hidden);
  if (!conditional) return;
  // Tying assigns the embedding's Parameter to lm_head whatever shape lm_head was built with: tied, the head
  // is the embedding, [text vocab_size, text hidden_size].
  if (t.arch.tie_word_embeddings)
    t.tie("lm_head.weight", "model.language_model.embed_tokens.weight");
  else
    t.add("lm_head.weight", {vocab, hidden});
}

}  // namespace ma::families

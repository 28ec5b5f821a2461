// T5Gemma (t5gemma): an encoder-decoder of Gemma-2 layers, each side sized by its own module config
// (encoder / decoder; the 9B-2B pairs a Gemma-2 9B encoder with a 2B decoder). Every layer has Gemma-2's
// sandwich norms around attention and MLP; decoder layers add cross-attention, its keys and values
// projected from the encoder's width, between its own pair of norms. The two embeddings stay separate (no
// shared table, unlike T5); the head (lm_head.out_proj) is tied to the decoder's.
//
// T5Gemma 2 (t5gemma2): Gemma-3 layers (q/k norms) on both sides, a SigLIP tower and Gemma-3's projector in
// the encoder, and decoder layers whose one attention serves both their own tokens and the encoder's (merged
// attention: no cross-attention modules). One embedding, with an end-of-image vector beside it, serves the
// encoder, the decoder and the head. Checkpoints keep the layout from before transformers nested the
// encoder's text stack (text_model) and flattened SigLIP's (vision_model).
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// One side's sizes: T5GemmaModuleConfig's defaults (Gemma-2 2B), T5Gemma2's text configs' (the same sizes,
// Gemma-3's vocabulary).
struct Side {
  uint64_t vocab, hidden, width, layers, heads, kv_heads, head_dim;
  bool bias;
  bool gemma3 = false;  // T5Gemma 2: q/k norms, merged attention, the end-of-image vector
  std::vector<uint64_t> windows;
};

Side read_side(const ModelConfig& c, bool gemma3) {
  Side s;
  s.gemma3 = gemma3;
  s.vocab = c.dim_or("vocab_size", gemma3 ? 262208 : 256000);
  s.hidden = c.dim_or("hidden_size", 2304);
  s.width = c.dim_or("intermediate_size", 9216);
  s.layers = c.layers_or("num_hidden_layers", 26);
  s.heads = c.dim_or("num_attention_heads", 8);
  s.kv_heads = c.dim_or("num_key_value_heads", 4);
  if (s.heads % s.kv_heads != 0)
    c.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(s.heads) + ")");
  s.head_dim = c.dim_or("head_dim", 256);
  s.bias = c.flag_or("attention_bias", false);
  // Gemma-2 alternates sliding and full layers; Gemma-3 runs five sliding layers to each full one.
  s.windows = interleaved_windows(c, s.layers, c.count_or("sliding_window", 4096), gemma3 ? 6 : 2);
  return s;
}

// q/o at the layer's width and heads, k/v from `kv_from` (the encoder's width for cross-attention).
void attention(ModelTemplate& t, const std::string& p, const Side& s, uint64_t kv_from) {
  const uint64_t q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  blocks::linear(t, p + ".q_proj", s.hidden, q, s.bias);
  blocks::linear(t, p + ".k_proj", kv_from, kv, s.bias);
  blocks::linear(t, p + ".v_proj", kv_from, kv, s.bias);
  blocks::linear(t, p + ".o_proj", q, s.hidden, s.bias);
  if (!s.gemma3) return;
  blocks::norm(t, p + ".q_norm", s.head_dim, false);
  blocks::norm(t, p + ".k_norm", s.head_dim, false);
}

AttentionShape attention_shape(const Side& s, uint64_t window) {
  AttentionShape a;
  a.heads = s.heads;
  a.kv_heads = s.kv_heads;
  a.kind = attention_kind_of(s.heads, s.kv_heads);
  a.head_dim = s.head_dim;
  set_window(a, window);
  return a;
}

// One side's stack under `root` ("model.encoder"), recorded; the decoder's layers attend the encoder.
// `words`: the embedding the stack's is tied to (T5Gemma 2's decoder); empty: its own.
void side_stack(ModelTemplate& t, const std::string& root, const Side& s, StackRole role,
                uint64_t encoder_width, const std::string& words = "") {
  const bool decoder = role == StackRole::Decoder;
  if (words.empty()) {
    blocks::embedding(t, root + ".embed_tokens.weight", s.vocab, s.hidden);
    if (s.gemma3) t.add(root + ".embed_tokens.eoi_embedding", {s.hidden}).embedding = true;
  } else {
    t.tie(root + ".embed_tokens.weight", words + ".weight").embedding = true;
    t.tie(root + ".embed_tokens.eoi_embedding", words + ".eoi_embedding").embedding = true;
  }
  blocks::norm(t, root + ".norm", s.hidden, false);
  StackSpec& stack = t.arch.add_stack(role, root + ".layers", s.hidden);
  for (uint64_t i = 0; i < s.layers; ++i) {
    const std::string p = root + ".layers." + std::to_string(i);
    attention(t, p + ".self_attn", s, s.hidden);
    blocks::norm(t, p + ".pre_self_attn_layernorm", s.hidden, false);
    blocks::norm(t, p + ".post_self_attn_layernorm", s.hidden, false);
    blocks::gated_mlp(t, p + ".mlp", s.hidden, s.width);
    blocks::norm(t, p + ".pre_feedforward_layernorm", s.hidden, false);
    blocks::norm(t, p + ".post_feedforward_layernorm", s.hidden, false);
    LayerSpec l;
    l.attention = attention_shape(s, decoder ? s.windows[i] : 0);
    l.ffn.intermediate = s.width;
    if (decoder && s.gemma3) {
      l.cross_attention = attention_shape(s, 0);  // the same modules, over the encoder's output
    } else if (decoder) {
      attention(t, p + ".cross_attn", s, encoder_width);
      blocks::norm(t, p + ".pre_cross_attn_layernorm", s.hidden, false);
      blocks::norm(t, p + ".post_cross_attn_layernorm", s.hidden, false);
      l.cross_attention = attention_shape(s, 0);
    }
    stack.layers.push_back(l);
  }
}

// The record's dimensions are the decoder's: the stack that runs per generated token.
void describe_decoder(ModelTemplate& t, const Side& dec, const ModelConfig& dec_cfg) {
  ArchitectureRecord& a = t.arch;
  a.vocab_size = dec.vocab;
  a.hidden_size = dec.hidden;
  a.num_layers = dec.layers;
  a.num_attention_heads = dec.heads;
  a.num_key_value_heads = dec.kv_heads;
  a.head_dim = dec.head_dim;
  a.intermediate_size = dec.width;
  a.max_position_embeddings = dec_cfg.count_or("max_position_embeddings", dec.gemma3 ? 131072 : 8192);
}

void build_t5gemma(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "T5GemmaForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "T5Gemma", {"ForConditionalGeneration", "Model"});
  t.arch.architecture = cls;
  const ModelConfig enc_cfg = sub_or_empty(cfg, "encoder"), dec_cfg = sub_or_empty(cfg, "decoder");
  const Side enc = read_side(enc_cfg, false), dec = read_side(dec_cfg, false);
  describe_decoder(t, dec, dec_cfg);
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  const std::string root = task == "Model" ? "" : "model.";
  side_stack(t, root + "encoder", enc, StackRole::Encoder, enc.hidden);
  side_stack(t, root + "decoder", dec, StackRole::Decoder, enc.hidden);
  if (task == "ForConditionalGeneration")
    lm_head(t, root + "decoder.embed_tokens.weight", t.arch, "lm_head.out_proj.weight");
}

void build_t5gemma2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "T5Gemma2ForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "T5Gemma2", {"ForConditionalGeneration", "Model"});
  t.arch.architecture = cls;
  const ModelConfig encoder = sub_or_empty(cfg, "encoder"), dec_cfg = sub_or_empty(cfg, "decoder");
  const Side enc = read_side(sub_or_empty(encoder, "text_config"), true), dec = read_side(dec_cfg, true);
  // The decoder's attention takes the encoder's keys and values into its own projections.
  if (enc.hidden != dec.hidden)
    dec_cfg.fail("hidden_size", "must equal the encoder's (" + std::to_string(enc.hidden) + ")");
  describe_decoder(t, dec, dec_cfg);
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  const std::string root = task == "Model" ? "" : "model.", text = root + "encoder.text_model";
  side_stack(t, text, enc, StackRole::Encoder, enc.hidden);
  const uint64_t vision = vit_tower(sub_or_empty(encoder, "vision_config"), root + "encoder.vision_tower.",
                                    siglip_vision_defaults(), t);
  const std::string projector = root + "encoder.multi_modal_projector";
  t.add(projector + ".mm_input_projection_weight", {vision, enc.hidden});
  blocks::norm(t, projector + ".mm_soft_emb_norm", vision, false);
  record_projector(t, projector);
  side_stack(t, root + "decoder", dec, StackRole::Decoder, enc.hidden,
             t.arch.tie_word_embeddings ? text + ".embed_tokens" : "");
  if (task == "ForConditionalGeneration")
    lm_head(t, text + ".embed_tokens.weight", t.arch, "lm_head.out_proj.weight");
  t.rename_on_disk(root + "encoder.text_model.", root + "encoder.");
  t.rename_on_disk(root + "encoder.vision_tower.", root + "encoder.vision_tower.vision_model.");
}

constexpr std::array kT5GemmaFamilies{FamilyBuilder{"t5gemma", build_t5gemma},
                                      FamilyBuilder{"t5gemma2", build_t5gemma2}};

}  // namespace

std::span<const FamilyBuilder> t5gemma() {
  return kT5GemmaFamilies;
}

}  // namespace ma::families

// Sesame's Conversational Speech Model (csm; CsmForConditionalGeneration, sesame/csm-1b): text and 32 Mimi
// codes per audio frame in, the next frame's codes out. A Llama-style backbone (Llama 3.2 1B's sizes) reads
// each position as a text token (embed_text_tokens) or as the sum of a frame's code embeddings (one table of
// num_codebooks x vocab_size rows, embed_audio_tokens) and predicts the frame's first code (lm_head over the
// 2051-code vocabulary); a depth decoder of four small Llama layers, fed the backbone's last state projected
// to its width and the codes so far, predicts the other 31 with one head matrix per code position
// (codebooks_head). The Mimi codec that turns reference audio into codes is built as codec_model and counted.
// csm_depth_decoder_model (CsmDepthDecoderConfig) is that depth decoder alone.
#include <string>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/csm_mimi.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/speech_asr.h"

namespace ma::families {
namespace {

// CsmConfig's defaults: the backbone of sesame/csm-1b.
DecoderDefaults csm_backbone_defaults() {
  DecoderDefaults d;
  d.vocab_size = 2051;  // per codebook: Mimi's 2048 codes and special ones (codebook_pad_token_id 2050)
  d.hidden_size = 2048;
  d.intermediate_size = 8192;
  d.num_hidden_layers = 16;
  d.num_attention_heads = 32;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 2048;
  return d;
}

// CsmDepthDecoderConfig's defaults: sesame/csm-1b's depth decoder.
DecoderDefaults csm_depth_defaults() {
  DecoderDefaults d;
  d.vocab_size = 2051;
  d.hidden_size = 1024;
  d.intermediate_size = 8192;
  d.num_hidden_layers = 4;
  d.num_attention_heads = 8;
  d.num_key_value_heads = 2;
  d.max_position_embeddings = 33;  // the backbone's state and 32 codes
  return d;
}

// Both config classes read num_key_value_heads: null as num_attention_heads (absent, it is 8 / 2).
DecoderDefaults csm_read_null_kv_heads(const ModelConfig& cfg, DecoderDefaults d) {
  const json::Value* kv = cfg.raw("num_key_value_heads");
  if (kv && kv->is_null()) d.num_key_value_heads = 0;  // read_decoder_dims: as many as the query heads
  return d;
}

// Both config classes set tie_word_embeddings to false and raise when config.json asks for true.
void csm_refuse_word_tie(const ModelConfig& cfg) {
  if (cfg.flag_or("tie_word_embeddings", false))
    cfg.fail("tie_word_embeddings", "must be false: the CSM config classes raise on true");
}

// CsmDecoderLayer x dims.num_layers under `root`layers, then `root`norm: Llama's layer (q/k/v/o biased by
// attention_bias, a SwiGLU MLP biased by mlp_bias, two RMSNorms). `stack`: where to record the layers, if
// anywhere.
void csm_decoder_layers(ModelTemplate& t, const std::string& root, const ModelConfig& cfg,
                        const ArchitectureRecord& dims, StackSpec* stack) {
  blocks::Attention at = standard_attention(dims);
  at.qkv_bias = at.o_bias = cfg.flag_or("attention_bias", false);
  const bool mlp_bias = cfg.flag_or("mlp_bias", false);
  for (uint64_t i = 0; i < dims.num_layers; ++i) {
    const std::string l = root + "layers." + std::to_string(i);
    blocks::attention(t, l + ".self_attn", at);
    blocks::gated_mlp(t, l + ".mlp", dims.hidden_size, dims.intermediate_size, mlp_bias);
    blocks::norm(t, l + ".input_layernorm", dims.hidden_size, false);
    blocks::norm(t, l + ".post_attention_layernorm", dims.hidden_size, false);
    if (stack) stack->layers.push_back(attention_layer(dims));
  }
  blocks::norm(t, root + "norm", dims.hidden_size, false);
}

// CsmDepthDecoderForCausalLM under `prefix` (or CsmDepthDecoderModel: `causal_lm` false, no model. level and
// no head), sized by a CsmDepthDecoderConfig already read into `dims`. Its embedding table is
// backbone_hidden_size wide, the backbone's state a depth decoder input starts from: inputs_embeds_projector
// brings both to its own width.
void csm_depth_decoder(ModelTemplate& t, const std::string& prefix, const ModelConfig& cfg,
                       const ArchitectureRecord& dims, bool causal_lm, StackSpec* stack) {
  csm_refuse_word_tie(cfg);
  const uint64_t codebooks = cfg.dim_or("num_codebooks", 32),
                 backbone_hidden = cfg.dim_or("backbone_hidden_size", 2048);
  const std::string m = prefix + (causal_lm ? "model." : "");
  blocks::embedding(t, m + "embed_tokens.weight", codebooks * dims.vocab_size, backbone_hidden);
  csm_decoder_layers(t, m, cfg, dims, stack);
  blocks::linear(t, m + "inputs_embeds_projector", backbone_hidden, dims.hidden_size, false);
  // CsmCodebooksHead: [num_codebooks - 1, hidden, vocab], one matrix per code after the first.
  if (causal_lm) t.add(prefix + "codebooks_head.weight", {codebooks - 1, dims.hidden_size, dims.vocab_size});
}

// CsmBackboneModel under `root`: the code table (num_codebooks x vocab_size rows, a frame's codes summed),
// the decoder layers, recorded as the decoder stack, and the final norm.
void csm_backbone(ModelTemplate& t, const std::string& root, const ModelConfig& cfg, uint64_t codebooks) {
  ArchitectureRecord& a = t.arch;
  blocks::embedding(t, root + "embed_tokens.embed_audio_tokens.weight", codebooks * a.vocab_size,
                    a.hidden_size);
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "layers", a.hidden_size);
  csm_decoder_layers(t, root, cfg, a, &stack);
}

}  // namespace

void build_csm(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CsmForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Csm", {"ForConditionalGeneration", "BackboneModel"});
  csm_refuse_word_tie(cfg);
  read_decoder_dims(cfg, csm_read_null_kv_heads(cfg, csm_backbone_defaults()), t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.tie_word_embeddings = false;
  const uint64_t codebooks = cfg.dim_or("num_codebooks", 32);
  // The depth decoder's own dimensions, read apart so the record keeps the backbone's.
  const ModelConfig depth = sub_or_empty(cfg, "depth_decoder_config");
  ModelTemplate depth_dims;
  read_decoder_dims(depth, csm_read_null_kv_heads(depth, csm_depth_defaults()), depth_dims);
  csm_refuse_word_tie(depth);  // CsmConfig builds its CsmDepthDecoderConfig, which raises, for every class
  // AutoConfig.for_model(**codec_config) needs the dict's model_type; a missing codec_config is Mimi's
  // default.
  const ModelConfig codec = sub_or_empty(cfg, "codec_config");
  if (cfg.has("codec_config") && !codec.has("model_type"))
    codec.fail("model_type", "is required: transformers builds the codec from it");
  if (const std::string type = codec.string_or("model_type", "mimi"); type != "mimi")
    unsupported(cfg, "CSM with a codec of model_type " + printable(type));
  if (task == "BackboneModel") {
    csm_backbone(t, "", cfg, codebooks);
    return;
  }

  blocks::linear(t, "lm_head", a.hidden_size, a.vocab_size, false);  // the first code of the frame
  blocks::embedding(t, "embed_text_tokens.weight", cfg.dim_or("text_vocab_size", 128256), a.hidden_size);
  // transformers 5 leaves the two code tables untied whatever tie_codebooks_embeddings says: its
  // _tied_weights_keys maps the backbone's table to the depth decoder's, but PreTrainedModel only ties when
  // tie_word_embeddings is true, which CsmConfig forces to false (transformers 4's _tie_weights tied them).
  // Both are parameters, both counted.
  csm_backbone(t, "backbone_model.", cfg, codebooks);
  // The depth decoder runs 31 steps per frame over at most 33 positions of its own cache: not a stack over
  // the context, so it is not recorded as one.
  csm_depth_decoder(t, "depth_decoder.", depth, depth_dims.arch, true, nullptr);
  mimi_model(codec, "codec_model.", t);
}

void build_csm_depth_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "CsmDepthDecoderForCausalLM");
  const std::string task = supported_task(cfg, cls, "CsmDepthDecoder", {"ForCausalLM", "Model"});
  read_decoder_dims(cfg, csm_read_null_kv_heads(cfg, csm_depth_defaults()), t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.tie_word_embeddings = false;
  const std::string root = task == "Model" ? "" : "model.";
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "layers", a.hidden_size);
  csm_depth_decoder(t, "", cfg, a, task != "Model", &stack);
}

}  // namespace ma::families

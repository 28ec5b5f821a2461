// Kyutai speech-to-text (kyutai_speech_to_text; kyutai/stt-2.6b-en-trfs, stt-1b-en_fr-trfs): Moshi's temporal
// transformer turned recognizer. Each step sums the embeddings of one text token and of the num_codebooks
// Mimi codes of one audio frame, all rows of a single table (vocab_size text rows, num_codebooks x
// codebook_vocab_size audio rows and one padding row), runs pre-RMSNorm layers with a gated MLP (fc1 to
// ffn_dim, split into gate and value halves, fc2 back from ffn_dim / 2), and predicts the next text token.
// The Mimi codec that turns the waveform into those codes is part of the model (codec_model), registered
// after lm_head. Every projection of the attention is a KyutaiSpeechToTextLinear wrapping its nn.Linear as
// `linear` (Moshi's depth decoder puts per-codebook weights there instead).
#include <string>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/speech_asr.h"

namespace ma::families {

void build_kyutai_speech_to_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "KyutaiSpeechToTextForConditionalGeneration");
  const std::string task =
      supported_task(cfg, cls, "KyutaiSpeechToText", {"ForConditionalGeneration", "Model"});
  // KyutaiSpeechToTextConfig's defaults are stt-2.6b-en's.
  DecoderDefaults dflt;
  dflt.vocab_size = 4001;
  dflt.hidden_size = 2048;
  dflt.num_hidden_layers = 48;
  dflt.num_attention_heads = 32;
  dflt.max_position_embeddings = 750;
  dflt.intermediate_size = 11264;  // ffn_dim, read below
  read_decoder_dims(cfg, dflt, t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  const uint64_t ffn = cfg.dim_or("ffn_dim", 11264);
  if (ffn % 2 != 0) cfg.fail("ffn_dim", "must be even");  // the config class raises
  a.intermediate_size = ffn / 2;                          // each half of fc1's output
  // KyutaiSpeechToTextAttention raises unless the heads divide the width, whatever head_dim says.
  split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  // lm_head would be tied to the model's input embeddings, which are a module holding the joint table, not
  // an nn.Embedding: not a model transformers can build.
  if (a.tie_word_embeddings && task != "Model")
    unsupported(cfg, "Kyutai speech-to-text with tie_word_embeddings");
  const uint64_t codebooks = cfg.count_or("num_codebooks", 32),
                 codebook_vocab = cfg.count_or("codebook_vocab_size", 2049);
  const uint64_t rows = a.vocab_size + codebooks * codebook_vocab + 1;
  // nn.Embedding raises unless its padding row (audio_pad_token_id, unless null) is one of the table's rows.
  const json::Value* pad = cfg.raw("audio_pad_token_id");
  if (!(pad && pad->is_null()) && cfg.count_or("audio_pad_token_id", 69569) >= rows)
    cfg.fail("audio_pad_token_id", "must be a row of the " + std::to_string(rows) + "-row embedding table");
  const ModelConfig codec = sub_or_empty(cfg, "codec_config");
  if (const std::string type = codec.string_or("model_type", "mimi"); type != "mimi")
    unsupported(cfg, "Kyutai speech-to-text with a " + printable(type) + " codec");
  const uint64_t window = window_or_none(cfg, 375);

  const std::string root = task == "Model" ? "" : "model.";
  blocks::embedding(t, root + "embed_tokens.embed_tokens.weight", rows, a.hidden_size);
  blocks::Attention at = standard_attention(a);
  at.q = "q_proj.linear";
  at.k = "k_proj.linear";
  at.v = "v_proj.linear";
  at.o = "o_proj.linear";
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "layers", a.hidden_size);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = root + "layers." + std::to_string(i);
    blocks::attention(t, l + ".self_attn", at);
    blocks::linear(t, l + ".mlp.fc1", a.hidden_size, ffn, false);
    blocks::linear(t, l + ".mlp.fc2", ffn / 2, a.hidden_size, false);
    blocks::norm(t, l + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, l + ".post_attention_layernorm", a.hidden_size, false);
    stack.layers.push_back(attention_layer(a, window));
  }
  blocks::norm(t, root + "norm", a.hidden_size, false);
  if (task == "Model") return;
  blocks::linear(t, "lm_head", a.hidden_size, a.vocab_size, false);
  mimi_model(codec, "codec_model.", t);
}

}  // namespace ma::families

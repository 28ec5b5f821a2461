// Granite Speech (granite_speech; IBM's granite-speech-3.x): a Conformer encoder over stacked log-mel frames
// (input_dim features each), a BLIP-2 Q-Former that reads it in windows of window_size frames through
// window_size / downsample_rate learned queries, a linear into the language model's width, and a Granite
// language model built as AutoModelForCausalLM builds text_config. GraniteSpeechForConditionalGeneration
// registers the language model first, then the encoder, then the projector.
//
// Each Conformer block is macaron-shaped: a half-step feed-forward, attention with Shaw's relative positions
// (one table of 2 max_pos_emb + 1 vectors per layer, keys and values from one bias-free to_kv), a
// convolution module (pointwise up-convolution to a GLU, a bias-free depthwise convolution, a BatchNorm whose
// running statistics are saved, a pointwise down-convolution), a second feed-forward and a LayerNorm. After
// the middle block the CTC head's projection (out) and its way back (out_mid) feed the softmaxed labels into
// the stream.
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/qformer.h"
#include "model/families/speech_asr.h"

namespace ma::families {
namespace {

// GraniteSpeechEncoderConfig's fields; the defaults are the class's.
struct GraniteSpeechConformer {
  uint64_t input = 160, layers = 10, hidden = 1024, ff_mult = 4, heads = 8, head_dim = 128, output = 42;
  uint64_t context = 200, max_pos_emb = 512, kernel = 15, conv_expansion = 2;
};

GraniteSpeechConformer read_granite_speech_conformer(const ModelConfig& e) {
  GraniteSpeechConformer c;
  c.input = e.dim_or("input_dim", c.input);
  c.layers = e.layers_or("num_layers", c.layers, 0);
  c.hidden = e.dim_or("hidden_dim", c.hidden);
  c.ff_mult = e.dim_or("feedforward_mult", c.ff_mult);
  c.heads = e.dim_or("num_heads", c.heads);
  c.head_dim = e.dim_or("dim_head", c.head_dim);
  c.output = e.dim_or("output_dim", c.output);
  c.context = e.dim_or("context_size", c.context);
  c.max_pos_emb = e.dim_or("max_pos_emb", c.max_pos_emb);
  c.kernel = e.dim_or("conv_kernel_size", c.kernel);
  c.conv_expansion = e.dim_or("conv_expansion_factor", c.conv_expansion);
  // GraniteSpeechConformerAttention raises for a context its relative-position table cannot cover.
  if (c.context > c.max_pos_emb)
    e.fail("context_size", "must not exceed max_pos_emb (" + std::to_string(c.max_pos_emb) + ")");
  return c;
}

void granite_speech_feed_forward(ModelTemplate& t, const std::string& p, const GraniteSpeechConformer& c) {
  blocks::norm(t, p + ".pre_norm", c.hidden, true);
  blocks::linear(t, p + ".up_proj", c.hidden, c.hidden * c.ff_mult, true);
  blocks::linear(t, p + ".down_proj", c.hidden * c.ff_mult, c.hidden, true);
}

// GraniteSpeechCTCEncoder under `p` ("encoder"), recorded as the audio stack.
void granite_speech_encoder(ModelTemplate& t, const std::string& p, const GraniteSpeechConformer& c) {
  const uint64_t inner = c.heads * c.head_dim, conv = c.hidden * c.conv_expansion;
  blocks::linear(t, p + ".input_linear", c.input, c.hidden, true);
  StackSpec& stack = t.arch.add_stack(StackRole::Audio, p + ".layers", c.hidden);
  stack.mel_bins = c.input;
  for (uint64_t i = 0; i < c.layers; ++i) {
    const std::string l = p + ".layers." + std::to_string(i);
    granite_speech_feed_forward(t, l + ".ff1", c);
    blocks::norm(t, l + ".attn.pre_norm", c.hidden, true);
    blocks::linear(t, l + ".attn.to_q", c.hidden, inner, false);
    blocks::linear(t, l + ".attn.to_kv", c.hidden, 2 * inner, false);
    blocks::linear(t, l + ".attn.to_out", inner, c.hidden, true);
    blocks::embedding(t, l + ".attn.rel_pos_emb.weight", 2 * c.max_pos_emb + 1, c.head_dim);
    blocks::norm(t, l + ".conv.norm", c.hidden, true);
    blocks::conv1d(t, l + ".conv.up_conv", c.hidden, 2 * conv, 1);
    t.add(l + ".conv.depth_conv.conv.weight", {conv, 1, c.kernel});  // depthwise, no bias
    blocks::norm(t, l + ".conv.batch_norm", conv, true);
    for (const char* b : {".running_mean", ".running_var"})
      t.add(l + ".conv.batch_norm" + b, {conv}).kind = TensorKind::Buffer;
    t.add(l + ".conv.batch_norm.num_batches_tracked", {}).kind = TensorKind::Buffer;
    blocks::conv1d(t, l + ".conv.down_conv", conv, c.hidden, 1);
    granite_speech_feed_forward(t, l + ".ff2", c);
    blocks::norm(t, l + ".post_norm", c.hidden, true);
    // Attention within blocks of context_size frames.
    LayerSpec s;
    s.attention.heads = s.attention.kv_heads = c.heads;
    s.attention.head_dim = c.head_dim;
    set_window(s.attention, c.context, Span::Chunked);
    s.ffn.gated = false;
    s.ffn.intermediate = c.hidden * c.ff_mult;
    stack.layers.push_back(s);
  }
  blocks::linear(t, p + ".out", c.hidden, c.output, true);
  blocks::linear(t, p + ".out_mid", c.output, c.hidden, true);
}

}  // namespace

void build_granite_speech(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "GraniteSpeechForConditionalGeneration");
  supported_task(cfg, cls, "GraniteSpeech", {"ForConditionalGeneration"});
  const ModelConfig pc = sub_or_empty(cfg, "projector_config");
  const std::string projector_type = pc.string_or("model_type", "blip_2_qformer");
  if (projector_type != "blip_2_qformer")
    unsupported(cfg, "Granite Speech with a " + printable(projector_type) + " projector");
  const GraniteSpeechConformer enc = read_granite_speech_conformer(sub_or_empty(cfg, "encoder_config"));
  const QFormer q = read_qformer(pc, pc.flag_or("use_qformer_text_input", false));
  // Blip2QFormerConfig's default: EVA ViT-g's width, which Granite Speech's configs replace by the encoder's.
  const uint64_t kv_width = pc.dim_or("encoder_hidden_size", 1408);
  const uint64_t window = cfg.dim_or("window_size", 15), rate = cfg.dim_or("downsample_rate", 5);
  if (rate > window)
    cfg.fail("downsample_rate", "must not exceed window_size (" + std::to_string(window) + ")");

  ModelTemplate lm = qformer_language_model(cfg, "Granite Speech", "granite");
  t.arch = std::move(lm.arch);  // the record describes the language model; the tower and projector join it
  t.arch.architecture = cls;
  const uint64_t text_width = t.arch.hidden_size;
  append_model(t, std::move(lm));
  granite_speech_encoder(t, "encoder", enc);
  t.add("projector.query", {1, window / rate, q.hidden});
  blocks::norm(t, "projector.qformer.layernorm", q.hidden, true);
  qformer_layers(t, "projector.qformer.", q, kv_width);
  blocks::linear(t, "projector.linear", q.hidden, text_width, true);
  record_projector(t, "projector.linear");
}

}  // namespace ma::families

// Qwen3-Omni (qwen3_omni_moe; Qwen3OmniMoeForConditionalGeneration). The thinker is a multimodal Qwen3-MoE:
// the AuT audio encoder (Qwen3-ASR's, with its projection to the text width inside), Qwen3-VL's vision tower
// with its deepstack mergers (spelled as Qwen2-VL's mergers) and a Qwen3-MoE decoder with an untied head.
// With enable_audio_output (the default; the Thinking and Captioner checkpoints turn it off) transformers
// also builds the speech side: the talker, a smaller MoE decoder (a gated shared expert in every layer)
// that reads the thinker's states through two MLPs and predicts the first codebook, its code predictor, a
// dense decoder with an embedding and a head per further codebook, and code2wav, a transformer and a
// convolutional vocoder (ConvNeXt upsampling, SnakeBeta residual blocks) from codes to waveform.
//
// The talker and code2wav are the speech-output block (tensor_placement.h), counted like the towers: no text
// token runs them, so they stay out of a text token's active count, and their experts out of the thinker's
// routed ones. The Hub checkpoints store
// every expert apart (experts.{e}.gate_proj / up_proj / down_proj), which transformers stacks on load.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"
#include "model/families/multimodal_towers.h"
#include "model/families/qwen_hybrid_blocks.h"

namespace ma::families {
namespace {

blocks::Attention attention_of(const ModelConfig& c, uint64_t hidden, uint64_t heads, uint64_t kv_heads) {
  blocks::Attention at;
  at.hidden = hidden;
  at.heads = heads;
  at.kv_heads = kv_heads;
  if (hidden % heads != 0 && !c.has("head_dim")) c.fail("num_attention_heads", "must divide hidden_size");
  at.head_dim = c.dim_or("head_dim", hidden / heads);
  at.qkv_bias = at.o_bias = c.flag_or("attention_bias", false);
  return at;
}

// The thinker's decoder: Qwen3OmniMoeTextConfig's defaults (not the released model's: always read).
void thinker_text(const ModelConfig& text, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 3584;
  d.hidden_size = 2048;
  d.intermediate_size = 18944;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 28;
  d.num_key_value_heads = 4;
  d.max_position_embeddings = 32768;
  read_decoder_dims(text, d, t);
  read_experts(text, t, {"num_experts"}, 128, text.dim_or("num_experts_per_tok", 8),
               text.dim_or("moe_intermediate_size", 768), true);
  ArchitectureRecord& a = t.arch;
  const std::vector<bool> sparse = qwen_sparse_layers(text, a);
  const blocks::Attention at =
      attention_of(text, a.hidden_size, a.num_attention_heads, a.num_key_value_heads);
  a.head_dim = at.head_dim;
  const std::string root = "thinker.model.";
  token_embedding(t, root + "embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = root + "layers." + std::to_string(i);
    qwen::qk_norm_attention(t, p + ".self_attn", at, false);
    LayerSpec l = attention_layer(a, 0, sparse[i] ? Ffn::Moe : Ffn::Dense);
    if (sparse[i])
      qwen::sparse_moe(t, p + ".mlp", {a.hidden_size, a.num_experts, a.moe_intermediate_size, 0});
    else
      blocks::gated_mlp(t, p + ".mlp", a.hidden_size, a.intermediate_size);
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".post_attention_layernorm", a.hidden_size, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, root + "norm", a.hidden_size, false);
  lm_head(t, root + "embed_tokens.weight", a, "thinker.lm_head.weight");
}

// Qwen3-style decoder layers (q/k norms, SwiGLU) of the code predictor and code2wav's pre-transformer.
void dense_layers(ModelTemplate& t, const std::string& root, uint64_t layers, const blocks::Attention& at,
                  uint64_t width, bool qk_norm) {
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = root + "layers." + std::to_string(i);
    if (qk_norm)
      qwen::qk_norm_attention(t, p + ".self_attn", at, false);
    else
      blocks::attention(t, p + ".self_attn", at);
    blocks::gated_mlp(t, p + ".mlp", at.hidden, width);
    blocks::norm(t, p + ".input_layernorm", at.hidden, false);
    blocks::norm(t, p + ".post_attention_layernorm", at.hidden, false);
  }
  blocks::norm(t, root + "norm", at.hidden, false);
}

void talker(const ModelConfig& cfg, uint64_t thinker_hidden, ModelTemplate& t) {
  const ModelConfig text = sub_or_empty(cfg, "text_config"),
                    predictor = sub_or_empty(cfg, "code_predictor_config");
  const uint64_t h = text.dim_or("hidden_size", 1024), vocab = text.dim_or("vocab_size", 3072);
  const uint64_t experts =
      text.has("num_local_experts") ? text.dim("num_local_experts") : text.dim_or("num_experts", 128);
  // Read unconditionally by the talker's MoE block, though its config class declares no default.
  if (!text.has("shared_expert_intermediate_size"))
    text.fail("shared_expert_intermediate_size", "is required: every talker layer has a shared expert");
  const qwen::SparseMoe moe{h, experts, text.dim_or("moe_intermediate_size", 384),
                            text.dim("shared_expert_intermediate_size")};
  const blocks::Attention at =
      attention_of(text, h, text.dim_or("num_attention_heads", 16), text.dim_or("num_key_value_heads", 2));
  const uint64_t layers = text.layers_or("num_hidden_layers", 20);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = "talker.model.layers." + std::to_string(i);
    qwen::qk_norm_attention(t, p + ".self_attn", at, false);
    qwen::sparse_moe(t, p + ".mlp", moe);  // every layer, mlp_only_layers or not
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
  }
  blocks::norm(t, "talker.model.norm", h, false);
  blocks::embedding(t, "talker.model.codec_embedding.weight", vocab, h);
  const uint64_t width = text.dim_or("intermediate_size", 2048);
  for (const char* mlp : {"talker.text_projection", "talker.hidden_projection"}) {
    blocks::linear(t, std::string(mlp) + ".linear_fc1", cfg.dim_or("thinker_hidden_size", thinker_hidden),
                   width, true);
    blocks::linear(t, std::string(mlp) + ".linear_fc2", width, h, true);
  }
  blocks::linear(t, "talker.codec_head", h, vocab, false);
  // The code predictor: one embedding and one head for each codebook after the first.
  const uint64_t ph = predictor.dim_or("hidden_size", 1024), pvocab = predictor.dim_or("vocab_size", 2048);
  blocks::Attention pat = attention_of(predictor, ph, predictor.dim_or("num_attention_heads", 16),
                                       predictor.dim_or("num_key_value_heads", 8));
  pat.head_dim = predictor.dim_or("head_dim", 128);
  dense_layers(t, "talker.code_predictor.model.", predictor.layers_or("num_hidden_layers", 5), pat,
               predictor.dim_or("intermediate_size", 3072), true);
  const uint64_t groups = predictor.dim_or("num_code_groups", 32);
  if (groups < 2 || groups > 1024) predictor.fail("num_code_groups", "must be from 2 to 1024");
  for (uint64_t j = 0; j + 1 < groups; ++j)
    blocks::embedding(t, "talker.code_predictor.model.codec_embedding." + std::to_string(j) + ".weight",
                      pvocab, ph);
  for (uint64_t j = 0; j + 1 < groups; ++j)
    blocks::linear(t, "talker.code_predictor.lm_head." + std::to_string(j), ph, pvocab, false);
}

void code2wav(const ModelConfig& c, ModelTemplate& t) {
  const uint64_t h = c.dim_or("hidden_size", 1024);
  blocks::Attention at =
      attention_of(c, h, c.dim_or("num_attention_heads", 16), c.dim_or("num_key_value_heads", 16));
  const uint64_t layers = c.layers_or("num_hidden_layers", 8);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = "code2wav.pre_transformer.layers." + std::to_string(i);
    blocks::attention(t, p + ".self_attn", at);  // its q/k norms are identities
    blocks::gated_mlp(t, p + ".mlp", h, c.dim_or("intermediate_size", 3072));
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
    t.add(p + ".self_attn_layer_scale.scale", {h});
    t.add(p + ".mlp_layer_scale.scale", {h});
  }
  blocks::norm(t, "code2wav.pre_transformer.norm", h, false);
  blocks::embedding(t, "code2wav.code_embedding.weight",
                    c.dim_or("codebook_size", 2048) * c.dim_or("num_quantizers", 16), h);
  std::vector<int64_t> ratios =
      c.has("upsampling_ratios") ? c.ints("upsampling_ratios") : std::vector<int64_t>{2, 2};
  std::vector<int64_t> rates =
      c.has("upsample_rates") ? c.ints("upsample_rates") : std::vector<int64_t>{8, 5, 4, 3};
  for (const auto& [key, list] :
       {std::pair{"upsampling_ratios", &ratios}, std::pair{"upsample_rates", &rates}})
    if (list->size() > 16 ||
        std::any_of(list->begin(), list->end(), [](int64_t r) { return r < 1 || r > 1024; }))
      c.fail(key, "must list at most 16 factors from 1 to 1024");
  for (size_t k = 0; k < ratios.size(); ++k) {
    const std::string p = "code2wav.upsample." + std::to_string(k);
    blocks::transposed_conv1d(t, p + ".0.conv", h, h, static_cast<uint64_t>(ratios[k]));
    t.add(p + ".1.gamma", {h});  // ConvNeXt's scale: a direct parameter, before its modules
    blocks::conv1d(t, p + ".1.dwconv.conv", h, h, 7, h);
    blocks::norm(t, p + ".1.norm", h, true);
    blocks::linear(t, p + ".1.pwconv1", h, 4 * h, true);
    blocks::linear(t, p + ".1.pwconv2", 4 * h, h, true);
  }
  uint64_t width = c.dim_or("decoder_dim", 1536);
  if (width >> rates.size() == 0) c.fail("decoder_dim", "must survive halving once per upsample rate");
  blocks::conv1d(t, "code2wav.decoder.0.conv", h, width, 7);
  for (size_t i = 0; i < rates.size(); ++i) {
    const std::string p = "code2wav.decoder." + std::to_string(i + 1) + ".block.";
    const uint64_t out = width / 2;
    blocks::snake_beta(t, p + "0", width);
    blocks::transposed_conv1d(t, p + "1.conv", width, out, 2 * static_cast<uint64_t>(rates[i]));
    for (int unit = 2; unit <= 4; ++unit) {  // residual units of dilation 1, 3 and 9
      const std::string u = p + std::to_string(unit) + ".";
      blocks::snake_beta(t, u + "act1", out);
      blocks::conv1d(t, u + "conv1.conv", out, out, 7);
      blocks::snake_beta(t, u + "act2", out);
      blocks::conv1d(t, u + "conv2.conv", out, out, 1);
    }
    width = out;
  }
  blocks::snake_beta(t, "code2wav.decoder." + std::to_string(rates.size() + 1), width);
  blocks::conv1d(t, "code2wav.decoder." + std::to_string(rates.size() + 2) + ".conv", width, 1, 7);
}

void build_qwen3_omni_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen3OmniMoeForConditionalGeneration";
  const ModelConfig thinker = sub_or_empty(cfg, "thinker_config");
  const ModelConfig audio = sub_or_empty(thinker, "audio_config"),
                    vision = sub_or_empty(thinker, "vision_config");
  const ModelConfig text = sub_or_empty(thinker, "text_config");
  t.arch.model_type = text.string_or("model_type", "qwen3_omni_moe_text");
  qwen3_asr_audio_encoder(
      audio, t, "thinker.audio_tower",
      AutDefaults{
          .d_model = 1280, .layers = 32, .heads = 20, .ffn = 5120, .projections = true, .output_dim = 3584});
  qwen::VisionTower v = qwen::read_vision(vision, qwen::VisionKind::Qwen3, true);
  v.omni_names = true;
  qwen::vision_tower(t, "thinker.visual", v);
  thinker_text(text, t);
  if (!cfg.flag_or("enable_audio_output", true)) {
    for (const char* prefix : {"talker.", "code2wav."})
      t.known_extras.push_back({prefix, "the speech output, built only with enable_audio_output"});
    return;
  }
  const size_t speech = t.tensors.size();
  talker(sub_or_empty(cfg, "talker_config"), t.arch.hidden_size, t);
  code2wav(sub_or_empty(cfg, "code2wav_config"), t);
  // The talker's experts are not the thinker's: a text token runs neither.
  for (size_t i = speech; i < t.tensors.size(); ++i) t.tensors[i].routed_expert = false;
}

constexpr std::array kQwen3OmniFamilies{FamilyBuilder{"qwen3_omni_moe", build_qwen3_omni_moe}};

}  // namespace

std::span<const FamilyBuilder> qwen3_omni() {
  return kQwen3OmniFamilies;
}

}  // namespace ma::families

// Evolla (Westlake University's protein-language model, EvollaForProteinText2Text): a Llama-3 decoder that
// reads a protein through a SaProt encoder (transformers' copy of ESM-2, 650M, with its own defaults and
// each layer's rotary inv_freq kept in the layer), whose output a Perceiver-style resampler compresses to
// resampler_num_latents latents projected to the decoder's width. Every (num_hidden_layers /
// aligner_num_add_layers)-th decoder layer ends with an adapter (EvollaSequenceAlignerCrossAttention)
// cross-attending from the text to those latents, gated by two learned tanh scalars.
#include <algorithm>
#include <string>

#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/esm_body.h"
#include "model/families/multimodal_towers.h"
#include "model/families/protein_text.h"

namespace ma::families {
namespace {

// EvollaFeedForward: a LayerNorm, then a bias-free GELU MLP `mult` times as wide.
void evolla_feed_forward(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t mult) {
  blocks::norm(t, p + ".norm", dim, true);
  blocks::linear(t, p + ".fc1", dim, dim * mult, false);
  blocks::linear(t, p + ".fc2", dim * mult, dim, false);
}

// EvollaSequenceCompressorResampler over the protein encoder's output (`protein` wide): learned latents,
// resampler_depth x (attention from the latents to encoder output and latents, feed-forward), then
// protein_projector to the decoder's width and a LayerNorm there (registered before the projector).
void evolla_resampler(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t protein) {
  const uint64_t latents = cfg.dim_or("resampler_num_latents", 64);
  const uint64_t depth = cfg.layers_or("resampler_depth", 6, 0);
  const uint64_t inner = cfg.dim_or("resampler_heads", 8) * cfg.dim_or("resampler_dim_head", 64);
  const uint64_t mult = cfg.dim_or("resampler_ff_mult", 4);
  t.add(p + ".latents", {latents, protein});
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string a = p + ".layers." + std::to_string(i) + ".0";
    blocks::norm(t, a + ".norm_media", protein, true);
    blocks::norm(t, a + ".norm_latents", protein, true);
    blocks::linear(t, a + ".to_q", protein, inner, false);
    blocks::linear(t, a + ".to_kv", protein, 2 * inner, false);
    blocks::linear(t, a + ".to_out", inner, protein, false);
    evolla_feed_forward(t, p + ".layers." + std::to_string(i) + ".1", protein, mult);
  }
  blocks::norm(t, p + ".norm", t.arch.hidden_size, true);
  blocks::linear(t, p + ".protein_projector", protein, t.arch.hidden_size, true);
}

// EvollaSequenceAlignerCrossAttention built with protein_encoder_dim = hidden_size only (no structure or MSA
// keys). Its two gates are its own parameters, so they come before its submodules' in the state dict.
void evolla_adapter(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  const uint64_t all_heads = a.num_attention_heads * (h / a.num_attention_heads);
  t.add(p + ".gate_attention", {1});
  t.add(p + ".gate_ffw", {1});
  blocks::linear(t, p + ".query", h, all_heads, true);
  blocks::linear(t, p + ".key_protein", h, all_heads, true);
  blocks::linear(t, p + ".value_protein", h, all_heads, true);
  blocks::norm(t, p + ".attention_norm", h, false);  // EvollaRMSNorm
  blocks::linear(t, p + ".out_proj", h, h, cfg.flag_or("aligner_enable_bias", true));
  evolla_feed_forward(t, p + ".ff", h, cfg.dim_or("aligner_ffn_mult", 4));
}

}  // namespace

void build_evolla(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "EvollaModel");
  const std::string task = supported_task(cfg, cls, "Evolla", {"Model", "ForProteinText2Text"});
  t.arch.architecture = cls;
  DecoderDefaults d;  // EvollaConfig's: Llama-3-8B's sizes
  d.vocab_size = 128256;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 8192;
  read_decoder_dims(cfg, d, t);
  if (t.arch.tie_word_embeddings)
    cfg.fail("tie_word_embeddings", "true is not modelled: Evolla's checkpoints keep their own lm_head");
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  // EvollaDecoderLayer adds its adapter to layers i with (i + 1) % max(L // aligner_num_add_layers, 1) == 0.
  const uint64_t every = std::max<uint64_t>(t.arch.num_layers / cfg.dim_or("aligner_num_add_layers", 8), 1);
  s.layer_extras = [&cfg, every](ModelTemplate& m, const std::string& layer) {
    const uint64_t i = std::stoull(layer.substr(layer.rfind('.') + 1));
    if ((i + 1) % every == 0) evolla_adapter(cfg, m, layer + ".adapter");
  };

  const std::string root = task == "Model" ? "" : "model.";
  llama_style_decoder(t, root, s);
  if (task == "ForProteinText2Text") lm_head(t, root + "embed_tokens.weight", t.arch);

  // protein_encoder_config absent (as in Evolla-10B-hf, whose config.json keeps flat protein_* fields that
  // EvollaConfig ignores): SaProtConfig's defaults, SaProt-650M's sizes.
  const ModelConfig protein = sub_or_empty(cfg, "protein_encoder_config");
  EsmDefaults saprot;
  saprot.vocab = 446;
  saprot.layers = 33;
  saprot.hidden = 1280;
  saprot.heads = 20;
  saprot.ffn = 5120;
  saprot.position_type = "rotary";
  const EsmBody body = read_esm_body(protein, saprot);
  const std::string encoder = root + "protein_encoder.";
  esm_embeddings(t, encoder + "model.", body);
  esm_encoder(t, encoder + "model.", body, true);
  evolla_resampler(cfg, t, encoder + "sequence_compressor_resampler", body.dims.layer.hidden);
  record_projector(t, encoder + "sequence_compressor_resampler");
  // EvollaModel registers the protein encoder between embed_tokens and the decoder layers.
  t.order_modules({root + "embed_tokens.", encoder, root + "layers.", root + "norm.", "lm_head."});
}

}  // namespace ma::families

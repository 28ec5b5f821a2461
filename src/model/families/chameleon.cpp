// Chameleon (Meta's early-fusion model: images become tokens of the same vocabulary): Llama's layers with a
// LayerNorm over each head's queries and keys (weight and bias per head and dimension), and the encoder half
// of a VQGAN under model.vqmodel that turns an image into codebook indices. Only the encoder, the codebook
// and the two 1 x 1 convolutions around it are built (the converter drops the decoder); no text token runs
// them.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vqgan.h"

namespace ma::families {
namespace {

// ChameleonVQVAE's encoder and quantizer under `p` ("model.vqmodel."), attending where the running resolution
// (halved at each level) is one of attn_resolutions, and in the middle with attn_type "vanilla".
// ChameleonVQVAEConfig's defaults are the checkpoints' values.
void vq_encoder(const ModelConfig& v, ModelTemplate& t, const std::string& p) {
  const VqganShape s = read_vqgan(v, {});
  const std::vector<int64_t> attention_at = v.ints("attn_resolutions");
  const bool vanilla = v.string_or("attn_type", "vanilla") == "vanilla";
  const uint64_t resolution = v.dim_or("resolution", 512);
  vqgan_encoder(
      t, p, s,
      [&](size_t level) {
        const auto at = static_cast<int64_t>(level < 64 ? resolution >> level : 0);
        return vanilla && std::find(attention_at.begin(), attention_at.end(), at) != attention_at.end();
      },
      vanilla);
  vqgan_quantizer(t, p, s);
}

void build_chameleon(const ModelConfig& cfg, ModelTemplate& t) {
  const bool conditional = first_architecture(cfg) != "ChameleonModel";
  t.arch.architecture = conditional ? "ChameleonForConditionalGeneration" : "ChameleonModel";
  DecoderDefaults d;  // ChameleonConfig's: Chameleon-7B
  d.vocab_size = 65536;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  const uint64_t heads = t.arch.num_attention_heads, kv = t.arch.num_key_value_heads, hd = t.arch.head_dim;
  s.layer_extras = [heads, kv, hd](ModelTemplate& m, const std::string& layer) {
    for (const auto& [norm, rows] : {std::pair{".self_attn.q_norm.", heads}, {".self_attn.k_norm.", kv}}) {
      m.add(layer + norm + "weight", {rows, hd});
      m.add(layer + norm + "bias", {rows, hd});
    }
  };
  const std::string root = conditional ? "model." : "";
  llama_style_decoder(t, root, s);
  vq_encoder(sub_or_empty(cfg, "vq_config"), t, root + "vqmodel.");
  if (conditional) lm_head(t, root + "embed_tokens.weight", t.arch);
}

constexpr std::array kChameleonFamilies{FamilyBuilder{"chameleon", build_chameleon}};

}  // namespace

std::span<const FamilyBuilder> chameleon() {
  return kChameleonFamilies;
}

}  // namespace ma::families

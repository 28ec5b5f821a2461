// MiniCPM-V 2 (model_type minicpmv, modeling_minicpmv.py MiniCPMV): a MiniCPM language model under
// "llm.", the timm vision transformer its config names under "vpm." (created without a classifier, the MAP
// pooling head replaced by Identity, the last block dropped when drop_vision_last_layer), and a perceiver
// "resampler" whose query_num learned queries cross-attend to the image features through
// nn.MultiheadAttention. Later MiniCPM-V releases (2.5, 2.6: a transformers SigLIP under vision_config) have
// another layout and are refused.
#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/remote_code.h"

namespace ma::families::remote {
namespace {

// The timm models a MiniCPM-V config may name (vision_encoder), with the sizes timm's model definitions give
// them; any other is refused.
struct TimmVit {
  std::string_view name;  // timm model name, without its pretrained tag (".webli")
  uint64_t width, depth, heads, mlp, patch, image;
};
constexpr TimmVit kTimmVits[] = {{"vit_so400m_patch14_siglip_384", 1152, 27, 16, 4304, 14, 384}};

const TimmVit& timm_vit(const ModelConfig& cfg) {
  std::string name = cfg.string_or("vision_encoder", "vit_so400m_patch14_siglip_384.webli");
  std::string_view model = std::string_view(name).substr(0, name.find('.'));
  for (const TimmVit& v : kTimmVits)
    if (v.name == model) return v;
  unsupported(cfg, "vision_encoder", "minicpmv with the timm vision encoder " + printable(name));
}

// timm VisionTransformer: learned positions for the (image / patch)^2 patches, a biased conv patch embedding,
// pre-norm blocks with fused biased qkv, and a final LayerNorm. No class token for SigLIP.
void timm_vision_tower(ModelTemplate& t, const std::string& p, const TimmVit& v, uint64_t depth) {
  const uint64_t d = v.width, grid = v.image / v.patch;
  t.add(p + ".pos_embed", {1, grid * grid, d});
  t.add(p + ".patch_embed.proj.weight", {d, 3, v.patch, v.patch});
  t.add(p + ".patch_embed.proj.bias", {d});
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string b = p + ".blocks." + std::to_string(i);
    blocks::norm(t, b + ".norm1", d, true);
    blocks::linear(t, b + ".attn.qkv", d, 3 * d, true);
    blocks::linear(t, b + ".attn.proj", d, d, true);
    blocks::norm(t, b + ".norm2", d, true);
    blocks::linear(t, b + ".mlp.fc1", d, v.mlp, true);
    blocks::linear(t, b + ".mlp.fc2", v.mlp, d, true);
  }
  blocks::norm(t, p + ".norm", d, true);
}

}  // namespace

void build_minicpmv(const ModelConfig& cfg, ModelTemplate& t) {
  for (std::string_view key : {"vision_config", "version"})
    if (cfg.has(key)) unsupported(cfg, key, "minicpmv after MiniCPM-V 2 (" + std::string(key) + " present)");
  const TimmVit& vit = timm_vit(cfg);
  t.arch.architecture = "MiniCPMV";
  t.arch.model_type = "minicpm";  // the language model's
  llama_style_decoder(t, "llm.model.", read_llama_text(cfg, t));
  output_head(t, "llm.lm_head.weight", "llm.model.embed_tokens.weight", t.arch.tie_word_embeddings);
  const uint64_t depth = vit.depth - (cfg.flag_or("drop_vision_last_layer", true) ? 1 : 0);
  timm_vision_tower(t, "vpm", vit, depth);
  record_vision_tower(t, "vpm.blocks", vit.width, depth, vit.heads, vit.width / vit.heads, vit.mlp, vit.patch,
                      vit.image);
  const uint64_t query_num = cfg.dim_or("query_num", 64);
  resampler(t, "resampler", query_num, t.arch.hidden_size, vit.width, true);
  record_projector(t, "resampler");
}

}  // namespace ma::families::remote

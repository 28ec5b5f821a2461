// MGP-STR (MgpstrModel, MgpstrForSceneTextRecognition): a timm-style ViT (fused qkv, norm1 / norm2) over
// text-line images, and for recognition three A^3 modules (character, BPE and WordPiece) that pool
// max_token_length tokens from its output, each with its own linear head. MgpstrConfig's defaults are
// alibaba-damo/mgp-str-base's: ViT-B over 32 x 128 pixels in 4-pixel patches.
#include <string>
#include <utility>

#include "model/blocks.h"
#include "model/families/detection_seg.h"
#include "model/families/encoders_common.h"
#include "model/families/timm_vit.h"

namespace ma::families {
namespace {

// MgpstrA3Module under `p`: token_norm, the tokenLearner Sequential (a grouped 1x1 conv, then a 1x1 conv to
// max_token_length maps), the grouped 1x1 feat conv and the output norm; the convs have no bias.
void mgp_str_a3_module(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t tokens) {
  blocks::norm(t, p + "token_norm", h, true);
  t.add(p + "tokenLearner.0.weight", {h, h / 8, 1, 1});
  t.add(p + "tokenLearner.1.weight", {tokens, h, 1, 1});
  t.add(p + "feat.weight", {h, h / 8, 1, 1});
  blocks::norm(t, p + "norm", h, true);
}

}  // namespace

void build_mgp_str(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MgpstrModel");
  const std::string task = supported_task(cfg, cls, "Mgpstr", {"Model", "ForSceneTextRecognition"});
  const std::string prefix = task == "Model" ? "" : "mgp_str.";
  read_base_encoder_record(cfg, cls, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  const double width = static_cast<double>(h) * cfg.number_or("mlp_ratio", 4);
  if (!(width >= 1)) cfg.fail("mlp_ratio", "must make the MLP at least one feature wide");
  const auto ffn = static_cast<uint64_t>(width);  // int(hidden_size * mlp_ratio)
  a.intermediate_size = ffn;
  // image_size defaults to [32, 128] (height, width), which vit_pair's one default cannot say.
  const auto image =
      cfg.has("image_size") ? vit_pair(cfg, "image_size", 32) : std::pair<uint64_t, uint64_t>{32, 128};
  const auto patch = vit_pair(cfg, "patch_size", 4);
  if (patch.first > image.first || patch.second > image.second)
    cfg.fail("patch_size", "must not exceed image_size");
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  // A distilled config only adds a position (num_tokens 2): MgpstrEmbeddings has no distillation token.
  a.max_position_embeddings =
      (image.first / patch.first) * (image.second / patch.second) + (cfg.flag_or("distilled", false) ? 2 : 1);
  // MgpstrEmbeddings' own cls_token and pos_embed come before its proj module in state_dict.
  const std::string e = prefix + "embeddings.";
  t.add(e + "cls_token", {1, 1, h});
  t.add(e + "pos_embed", {1, a.max_position_embeddings, h});
  t.add(e + "proj.weight", {h, cfg.dim_or("num_channels", 3), patch.first, patch.second});
  t.add(e + "proj.bias", {h});
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.blocks", h);
  encoder.patch_size = patch.first;
  encoder.image_size = image.first;
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = a.num_attention_heads;
  spec.attention.head_dim = a.head_dim;
  spec.ffn.intermediate = ffn;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    timm_pre_norm_block(t, encoder.path + "." + std::to_string(i) + ".", h, ffn, qkv_bias);
    encoder.layers.push_back(spec);
  }
  if (task == "Model") return;
  // The A^3 modules' convolutions have groups=8.
  if (h % 8 != 0) cfg.fail("hidden_size", "must be a multiple of 8 (the A^3 modules' grouped convolutions)");
  const uint64_t tokens = cfg.dim_or("max_token_length", 27);
  for (const char* a3 : {"char_a3_module.", "bpe_a3_module.", "wp_a3_module."})
    mgp_str_a3_module(t, a3, h, tokens);
  blocks::linear(t, "char_head", h, cfg.dim_or("num_character_labels", 38), true);
  blocks::linear(t, "bpe_head", h, cfg.dim_or("num_bpe_labels", 50257), true);       // GPT-2's vocabulary
  blocks::linear(t, "wp_head", h, cfg.dim_or("num_wordpiece_labels", 30522), true);  // BERT's
}

}  // namespace ma::families

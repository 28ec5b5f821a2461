// Swin2SR (swin2sr: Swin2SRModel, Swin2SRForImageSuperResolution; caidas/swin2SR-classical-sr-x2-64 ...): a
// shallow 3 x 3 conv, then residual stages (RSTB) of Swin V2 layers that all keep embed_dim channels (no
// patch merging), each closed by a conv ("1conv", or the three-conv bottleneck "3conv") and a 1 x 1-patch
// re-embedding without norm; a final LayerNorm and conv, then one of five reconstruction heads picked by
// `upsampler`. transformers 5 builds the stages from Swinv2Layer (modular_swin2sr.py), so the layers are
// swin.cpp's, stored under transformers 4's names.
#include <cstdint>
#include <string>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/ocr_vlms.h"
#include "model/families/vision_e.h"
#include "model/families/vision_hier.h"

namespace ma::families {
namespace {

// Swin2SRForImageSuperResolution's fixed width of the upsampling convs, whatever the config.
constexpr uint64_t kSwin2srUpsampleWidth = 64;

// Swin2SRUpsample under `p`: per factor 2 a conv to 4x the channels (convolution_i) and a pixel shuffle, or
// one conv to 9x for a scale of 3; transformers raises for any other scale.
void swin2sr_upsample(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t scale) {
  const uint64_t f = kSwin2srUpsampleWidth;
  if ((scale & (scale - 1)) == 0) {
    for (uint64_t i = 0; (uint64_t{1} << i) < scale; ++i)
      blocks::conv2d(t, p + "convolution_" + std::to_string(i), f, 4 * f, 3);
  } else if (scale == 3) {
    blocks::conv2d(t, p + "convolution", f, 9 * f, 3);
  } else {
    cfg.fail("upscale", "must be a power of 2 or 3 for this upsampler");
  }
}

// The reconstruction head Swin2SRForImageSuperResolution picks by config.upsampler.
void swin2sr_head(const ModelConfig& cfg, ModelTemplate& t, uint64_t embed, uint64_t in, uint64_t out) {
  const uint64_t f = kSwin2srUpsampleWidth;
  const uint64_t scale = cfg.dim_or("upscale", 2);
  if (scale > 64) cfg.fail("upscale", "must be at most 64");
  // Swin2SRConfig's default is "pixelshuffle"; a null (the denoising and JPEG checkpoints) picks none.
  const json::Value* upsampler = cfg.raw("upsampler");
  const std::string kind = !upsampler             ? "pixelshuffle"
                           : upsampler->is_null() ? ""
                                                  : cfg.string_or("upsampler", "");
  if (kind == "pixelshuffle") {
    blocks::conv2d(t, "upsample.conv_before_upsample", embed, f, 3);
    swin2sr_upsample(cfg, t, "upsample.upsample.", scale);
    blocks::conv2d(t, "upsample.final_convolution", f, out, 3);
  } else if (kind == "pixelshuffle_aux") {
    blocks::conv2d(t, "upsample.conv_bicubic", in, f, 3);
    blocks::conv2d(t, "upsample.conv_before_upsample", embed, f, 3);
    blocks::conv2d(t, "upsample.conv_aux", f, in, 3);
    // nn.Conv2d(3, 64, ...): transformers hard-codes three input channels here.
    blocks::conv2d(t, "upsample.conv_after_aux.0", 3, f, 3);
    swin2sr_upsample(cfg, t, "upsample.upsample.", scale);
    blocks::conv2d(t, "upsample.final_convolution", f, out, 3);
  } else if (kind == "pixelshuffledirect") {  // Swin2SRUpsampleOneStep, for lightweight SR
    blocks::conv2d(t, "upsample.conv", embed, scale * scale * out, 3);
  } else if (kind == "nearest+conv") {
    if (scale != 4) cfg.fail("upscale", "must be 4 for the nearest+conv upsampler");
    blocks::conv2d(t, "upsample.conv_before_upsample", embed, f, 3);
    for (const char* conv : {"conv_up1", "conv_up2", "conv_hr"})
      blocks::conv2d(t, std::string("upsample.") + conv, f, f, 3);
    blocks::conv2d(t, "upsample.final_convolution", f, out, 3);
  } else {  // any other value (null included): denoising / JPEG artifact reduction
    blocks::conv2d(t, "final_convolution", embed, out, 3);
  }
}

}  // namespace

void build_swin2sr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Swin2SRModel");
  const std::string task = supported_task(cfg, cls, "Swin2SR", {"Model", "ForImageSuperResolution"});
  // Swin2SRConfig's defaults are swin2SR-classical-sr-x2-64's.
  const uint64_t embed = cfg.dim_or("embed_dim", 180);
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {6, 6, 6, 6, 6, 6});
  if (depths.empty()) cfg.fail("depths", "must list at least one stage");
  const std::vector<uint64_t> heads = per_stage_dims(cfg, "num_heads", {6, 6, 6, 6, 6, 6}, depths.size());
  const uint64_t in = cfg.dim_or("num_channels", 3);
  // num_channels_out: num_channels when absent or null.
  const uint64_t out = cfg.has("num_channels_out") ? cfg.dim("num_channels_out") : in;
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 64);
  // Not a structured binding: the lambdas below capture it, which clang 14 refuses for bindings.
  const auto patch = vit_pair(cfg, "patch_size", 1);
  const uint64_t patch_h = patch.first, patch_w = patch.second;
  if (patch_h > 4096 || patch_w > 4096) cfg.fail("patch_size", "must be at most 4096");
  const double mlp_ratio = cfg.number_or("mlp_ratio", 2.0);
  const double wide = mlp_ratio * static_cast<double>(embed);
  if (!(wide >= 1.0) || wide > static_cast<double>(ModelConfig::kMaxValue))
    cfg.fail("mlp_ratio", "times embed_dim must make an MLP width from 1 to 2^26");
  const uint64_t mlp = static_cast<uint64_t>(wide);
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  const std::string residual_conv = cfg.string_or("resi_connection", "1conv");
  if (residual_conv != "1conv" && residual_conv != "3conv")
    // Any other value leaves Swin2SRStage without the conv its forward calls.
    cfg.fail("resi_connection", "must be \"1conv\" or \"3conv\"");
  if (residual_conv == "3conv" && embed < 4) cfg.fail("embed_dim", "must be at least 4 for \"3conv\"");
  uint64_t blocks = 0;
  for (size_t i = 0; i < depths.size(); ++i) {
    blocks += depths[i];
    // Swinv2Attention raises unless the heads divide the width.
    if (embed % heads[i] != 0)
      cfg.fail("num_heads", "must divide embed_dim (" + std::to_string(embed) + ") at every stage");
  }
  cfg.check_layer_list("depths", blocks);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = embed;
  a.num_layers = blocks;
  a.num_attention_heads = a.num_key_value_heads = heads[depths.size() - 1];
  a.head_dim = embed / a.num_attention_heads;
  a.intermediate_size = mlp;

  const std::string p = task == "Model" ? "" : "swin2sr.";
  blocks::conv2d(t, p + "first_convolution", in, embed, 3);
  // Swin2SREmbeddings: its own position table (num_patches + 1 rows) before its patch embedding's modules.
  if (cfg.flag_or("use_absolute_embeddings", false))
    t.add(p + "embeddings.position_embeddings", {1, (image_h / patch_h) * (image_w / patch_w) + 1, embed});
  const auto patch_embedding = [&](const std::string& e, bool norm) {
    t.add(e + "projection.weight", {embed, embed, patch_h, patch_w});
    t.add(e + "projection.bias", {embed});
    if (norm) blocks::norm(t, e + "layernorm", embed, true);
  };
  patch_embedding(p + "embeddings.patch_embeddings.", true);
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.stages", embed);
  stack.patch_size = patch_h;
  stack.image_size = image_h;
  for (size_t i = 0; i < depths.size(); ++i) {
    const std::string stage = p + "encoder.stages." + std::to_string(i) + ".";
    for (uint64_t j = 0; j < depths[i]; ++j)
      swinv2_layer(t, stage + "layers." + std::to_string(j) + ".", embed, heads[i], mlp, qkv_bias);
    if (residual_conv == "1conv") {
      blocks::conv2d(t, stage + "conv", embed, embed, 3);
    } else {  // 3 x 3 down to a quarter, 1 x 1, 3 x 3 back up (LeakyReLUs between)
      blocks::conv2d(t, stage + "conv.0", embed, embed / 4, 3);
      blocks::conv2d(t, stage + "conv.2", embed / 4, embed / 4, 1);
      blocks::conv2d(t, stage + "conv.4", embed / 4, embed, 3);
    }
    patch_embedding(stage + "patch_embed.", false);  // normalize_patches=False
  }
  blocks::norm(t, p + "layernorm", embed, true);
  blocks::conv2d(t, p + "conv_after_body", embed, embed, 3);
  if (task == "ForImageSuperResolution") swin2sr_head(cfg, t, embed, in, out);
}

}  // namespace ma::families

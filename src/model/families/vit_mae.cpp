// ViT-MAE (ViTMAEModel, ViTMAEForPreTraining): ViT's body (fixed sine-cosine positions, still parameters
// transformers counts, and no pooler) and, for pre-training, the decoder that reconstructs the masked
// patches' pixels: a narrower ViT of its own (decoder_*) between an input projection and a per-patch pixel
// predictor. ViTMAEConfig's defaults are facebook/vit-mae-base's.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {

void build_vit_mae(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ViTMAEModel");
  const std::string task = supported_task(cfg, cls, "ViTMAE", {"Model", "ForPreTraining"});
  // ViTMAEModel deletes ViTModel's pooler.
  const uint64_t h = vit_body(cfg, t, cls, task == "Model" ? "" : "vit.", false);
  if (task == "Model") return;
  // decoder_pred predicts patch_size**2 * num_channels pixels: an int patch size only.
  if (const json::Value* patch = cfg.raw("patch_size"); patch && patch->is_array())
    cfg.fail("patch_size",
             "must be an integer: ViTMAEForPreTraining's decoder predicts patch_size**2 pixels");
  const uint64_t patch = cfg.dim_or("patch_size", 16), channels = cfg.dim_or("num_channels", 3);
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 224);
  const uint64_t patches = (image_h / patch) * (image_w / patch);
  LayerDims d;
  d.hidden = cfg.dim_or("decoder_hidden_size", 512);
  d.heads = cfg.dim_or("decoder_num_attention_heads", 16);
  d.ffn = cfg.dim_or("decoder_intermediate_size", 2048);
  d.qkv_bias = cfg.flag_or("qkv_bias", true);  // the decoder's layers copy the encoder's config
  split_heads(cfg, "decoder_num_attention_heads", d.hidden, d.heads);
  const uint64_t layers = cfg.layers_or("decoder_num_hidden_layers", 8, 0);
  // ViTMAEDecoder's own mask_token and decoder_pos_embed (frozen sine-cosine, a parameter all the same) come
  // before its modules in state_dict.
  t.add("decoder.mask_token", {1, 1, d.hidden});
  t.add("decoder.decoder_pos_embed", {1, patches + 1, d.hidden});
  blocks::linear(t, "decoder.decoder_embed", h, d.hidden, true);
  // A bidirectional stack of its own widths (no cache): an encoder-like stack beside the encoder.
  StackSpec& decoder = t.arch.add_stack(StackRole::Encoder, "decoder.decoder_layers", d.hidden);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = d.heads;
  spec.attention.head_dim = d.hidden / d.heads;
  spec.ffn.intermediate = d.ffn;
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = decoder.path + "." + std::to_string(i);
    const size_t first = t.tensors.size();
    vit_layer(t, p, d);
    vit_layer_on_disk(t, first, p, p);  // stored under transformers 4's names, as the encoder's
    decoder.layers.push_back(spec);
  }
  blocks::norm(t, "decoder.decoder_norm", d.hidden, true);
  blocks::linear(t, "decoder.decoder_pred", d.hidden, patch * patch * channels, true);
}

}  // namespace ma::families

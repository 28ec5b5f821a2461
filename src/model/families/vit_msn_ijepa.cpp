// ViT-MSN (ViTMSNModel, ViTMSNForImageClassification) and I-JEPA (IJepaModel, IJepaForImageClassification):
// ViT's body without its pooler under another head. ViT-MSN's is ViT's own; I-JEPA's embeddings delete
// ViT's class token and keep a position per patch only, and its classifier reads the mean of the patch
// tokens. Both config classes default to ViT-base's sizes.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {

void build_vit_msn(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ViTMSNModel");
  const std::string task = supported_task(cfg, cls, "ViTMSN", {"Model", "ForImageClassification"});
  // ViTMSNModel deletes ViTModel's pooler.
  const uint64_t h = vit_body(cfg, t, cls, task == "Model" ? "" : "vit.", false);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier", h, labels, true);  // else Identity
}

void build_ijepa(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "IJepaModel");
  const std::string task = supported_task(cfg, cls, "IJepa", {"Model", "ForImageClassification"});
  const std::string prefix = task == "Model" ? "" : "ijepa.";
  // IJepaModel(add_pooling_layer=False) by default, as the classifier builds it: no pooler.
  const uint64_t h = vit_body(cfg, t, cls, prefix, false);
  // IJepaEmbeddings deletes ViTEmbeddings' cls_token and replaces its position table by one without the
  // class token's row.
  const std::string e = prefix + "embeddings.";
  std::erase_if(t.tensors, [&](const TemplateTensor& x) { return x.name == e + "cls_token"; });
  for (TemplateTensor& x : t.tensors)
    if (x.name == e + "position_embeddings") x.shape[1] -= 1;
  t.arch.max_position_embeddings -= 1;
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier", h, labels, true);  // else Identity
}

}  // namespace ma::families

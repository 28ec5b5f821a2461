// Table Transformer (model_type table-transformer): Microsoft's table detection and structure recognition
// DETRs (microsoft/table-transformer-detection, -structure-recognition: ResNet-18 backbones). transformers'
// TableTransformerModel is DETR's with the original code's normalize_before: each layer normalises before its
// blocks, and the encoder ends with a LayerNorm.
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {

void build_table_transformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TableTransformerModel");
  const std::string task = supported_task(cfg, cls, "TableTransformer", {"Model", "ForObjectDetection"});
  t.arch.architecture = cls;
  const DetrBodyStyle pre_norm{.pre_norm = true};
  if (task == "Model") {
    detr_model_body(cfg, "", pre_norm, t);
    return;
  }
  detr_model_body(cfg, "model.", pre_norm, t);
  detr_detection_heads(cfg, "", t);
}

}  // namespace ma::families

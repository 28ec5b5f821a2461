// DINOv2 with registers (Dinov2WithRegistersModel, Dinov2WithRegistersForImageClassification): DINOv2's body
// with learned register tokens beside the class token (4 by default), a 16-pixel patch by default
// (Dinov2WithRegistersConfig's; every facebook/dinov2-with-registers-* checkpoint says 14) and DINOv2's
// classifier over the class token and the mean of the patch tokens.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_encoders.h"
#include "model/families/vit_relatives.h"

namespace ma::families {

void build_dinov2_with_registers(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Dinov2WithRegistersModel");
  const std::string task =
      supported_task(cfg, cls, "Dinov2WithRegisters", {"Model", "ForImageClassification"});
  Dinov2Variant registers;
  registers.register_tokens = cfg.count_or("num_register_tokens", 4);
  registers.default_patch = 16;
  const uint64_t h =
      dinov2_body(cfg, cls, task == "Model" ? "" : "dinov2_with_registers.", t, std::nullopt, registers);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", 2 * h, labels, true);
}

}  // namespace ma::families

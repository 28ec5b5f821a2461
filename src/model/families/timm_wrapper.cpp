// transformers' TimmWrapperModel / TimmWrapperForImageClassification (model_type timm_wrapper), and the
// config.json timm itself writes to the Hub (timm/resnet50.a1_in1k's: "architecture", "num_classes",
// "pretrained_cfg", no model_type): timm.create_model(architecture, num_classes=...) under timm_model. The
// architecture is a timm name, not config fields, so only the names whose modules are modelled here build:
// the torchvision-style ResNets (timm_resnet.h) and the plain ViTs (timm_vit.h); any other is refused.
// Checkpoints on the Hub hold timm's own names, without the timm_model. prefix the wrapper adds on loading.
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/timm_resnet.h"
#include "model/families/timm_vit.h"

namespace ma::families {
namespace {

// model_args are create_model's keyword arguments: the dropout rates change no weight; anything else
// (features_only, img_size, global_pool ...) would reshape the network and is refused.
void timm_wrapper_check_model_args(const ModelConfig& cfg) {
  const json::Value* args = cfg.raw("model_args");
  if (args == nullptr || args->is_null()) return;
  const ModelConfig kw = sub_or_empty(cfg, "model_args");
  for (const json::Member& m : args->members())
    if (m.key != "drop_rate" && m.key != "drop_path_rate" && m.key != "attn_drop_rate" &&
        m.key != "proj_drop_rate" && m.key != "pos_drop_rate")
      kw.fail(m.key, "is a timm create_model argument this analysis does not model");
}

}  // namespace

void build_timm_wrapper(const ModelConfig& cfg, ModelTemplate& t) {
  // TimmWrapperConfig takes num_labels from timm's num_classes. timm's own configs name no class: a
  // checkpoint with a classifier is TimmWrapperForImageClassification's, a headless one (num_classes 0:
  // DINO's, CLIP's image towers) TimmWrapperModel's, which builds no head at all.
  const uint64_t labels = cfg.has("num_classes") ? cfg.count_or("num_classes", 0) : num_labels(cfg);
  const std::string cls =
      architecture_of(cfg, labels > 0 ? "TimmWrapperForImageClassification" : "TimmWrapperModel");
  const std::string task = supported_task(cfg, cls, "TimmWrapper", {"Model", "ForImageClassification"});
  timm_wrapper_check_model_args(cfg);
  if (task != "Model" && labels == 0)
    cfg.fail("num_classes", "must be positive for TimmWrapperForImageClassification (transformers raises)");
  const uint64_t classes = task == "Model" ? 0 : labels;
  // TimmWrapperConfig's default; a pretrained tag ("resnet50.a1_in1k") picks weights, not modules.
  const std::string name = cfg.string_or("architecture", "resnet50");
  const std::string arch = name.substr(0, name.find('.'));
  const std::string p = "timm_model.";
  if (const TimmResnet* resnet = find_timm_resnet(arch)) {
    const std::vector<uint64_t> features = timm_resnet_body(t, p, *resnet, 3, 4, false);
    uint64_t residual_blocks = 0;
    for (const uint64_t d : resnet->depths) residual_blocks += d;
    describe_cnn_backbone(cfg, cls, "timm_model", features.back(), residual_blocks, t);
    if (classes > 0) blocks::linear(t, p + "fc", features.back(), classes, true);
  } else if (const std::optional<TimmVitShape> vit = find_timm_vit(arch)) {
    timm_vit(t, p, *vit, classes, cls);
  } else {
    throw Error(ErrorKind::Unsupported, cfg.file(), "architecture",
                "unsupported architecture: the timm model " + printable(name) +
                    " (modelled: resnet18 to resnet152 and the plain vit_* names)");
  }
  t.rename_on_disk(p, "");
}

}  // namespace ma::families

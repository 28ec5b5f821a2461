// Sam3VideoModel (model_type sam3_video; facebook/sam3's own class): SAM 3's detector (Sam3Model,
// sam3_model.cpp) under detector_model, its video tracker without an image encoder (Sam3TrackerVideoModel
// with remove_vision_encoder=True, sam3_tracker.cpp) under tracker_model, and tracker_neck, a second FPN
// neck (Sam3VisionNeck of the detector's vision_config) that turns the detector's ViT features into the
// tracker's. The checkpoint stores these names as they are.
#include <string>
#include <utility>

#include "core/error.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/sam3.h"

namespace ma::families {

void build_sam3_video(const ModelConfig& cfg, ModelTemplate& t) {
  // Sam3VideoConfig builds both sub-configs by their model_type (CONFIG_MAPPING), defaulting to SAM 3's.
  const ModelConfig detector = sub_or_empty(cfg, "detector_config");
  if (const std::string type = detector.string_or("model_type", "sam3"); type != "sam3")
    unsupported(cfg, "SAM 3 video with the detector " + printable(type) + " (detector_config.model_type)");
  const ModelConfig tracker = sub_or_empty(cfg, "tracker_config");
  // AutoModel.from_config(tracker_config, remove_vision_encoder=True): only Sam3TrackerVideoModel takes it.
  if (const std::string type = tracker.string_or("model_type", "sam3_tracker_video");
      type != "sam3_tracker_video")
    unsupported(cfg, "SAM 3 video with the tracker " + printable(type) + " (tracker_config.model_type)");
  ModelTemplate detector_model = nested_model(detector, sam3_model_modules, "sam3", "detector_model.");
  t.arch = std::move(detector_model.arch);  // the record describes the detector, as Sam3Model's does
  t.arch.architecture = "Sam3VideoModel";
  append_model(t, std::move(detector_model));
  append_model(
      t, nested_model(tracker, sam3_tracker_video_without_vision, "sam3_tracker_video", "tracker_model."));
  sam3_vision_neck(sub_or_empty(detector, "vision_config"), "tracker_neck.", t);
}

}  // namespace ma::families

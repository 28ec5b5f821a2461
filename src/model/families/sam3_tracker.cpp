// SAM 3's trackers, Sam3TrackerModel (model_type sam3_tracker) and Sam3TrackerVideoModel
// (sam3_tracker_video): SAM 2's prompt encoder and mask decoder (sam2_model.cpp) and, for video, SAM 2's
// memory modules and tokens (sam2_video.cpp), over SAM 3's image encoder (Sam3VisionModel, sam3_vision.cpp)
// instead of Hiera. Their configs' defaults are facebook/sam3's. facebook/sam3 stores them inside
// Sam3VideoModel (sam3_video.cpp): the trackers' _checkpoint_conversion_mapping reads their own modules from
// tracker_model.*, the ViT from the detector's detector_model.vision_encoder.backbone.* (the detector and the
// tracker share it) and the FPN neck from tracker_neck.*.
#include <string>

#include "core/error.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam2.h"
#include "model/families/sam3.h"

namespace ma::families {
namespace {

// A tracker config's vision_config, built by AutoConfig from its model_type: a Sam3VisionConfig by default.
ModelConfig sam3_tracker_vision_config(const ModelConfig& cfg) {
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  if (const std::string type = vision.string_or("model_type", "sam3_vision_model");
      type != "sam3_vision_model")
    unsupported(cfg,
                "SAM 3's tracker with the image encoder " + printable(type) + " (vision_config.model_type)");
  return vision;
}

// Sam3TrackerVideoModel's modules, without its image encoder when `with_vision` is false. Its own parameters
// (the memory and object tokens, hidden_dim = fpn_hidden_size wide) come first, then the modules in the
// order __init__ sets them: shared_image_embedding, vision_encoder, prompt_encoder, mask_decoder, then the
// memory modules.
void sam3_tracker_video_modules(const ModelConfig& cfg, bool with_vision, ModelTemplate& t) {
  const ModelConfig vision = sam3_tracker_vision_config(cfg);
  const uint64_t hidden = vision.dim_or("fpn_hidden_size", 256);
  sam2_video_parameters(cfg, hidden, t);
  sam2_shared_image_embedding(cfg, t);
  if (with_vision) sam3_vision(vision, "vision_encoder.", t);
  sam2_prompt_and_mask_decoders(cfg, t);
  sam2_video_memory_modules(cfg, hidden, t);
}

// facebook/sam3's names for a tracker: tracker_model.* but for the image encoder, whose ViT is the
// detector's and whose neck is Sam3VideoModel's tracker_neck.
void sam3_tracker_disk_names(ModelTemplate& t) {
  t.rename_on_disk("", "tracker_model.");
  t.rename_on_disk("tracker_model.vision_encoder.backbone.", "detector_model.vision_encoder.backbone.");
  t.rename_on_disk("tracker_model.vision_encoder.neck.", "tracker_neck.");
  t.known_extras.push_back(
      {"detector_model.", "SAM 3's detector (Sam3VideoModel's), which the tracker skips"});
}

}  // namespace

void sam3_tracker_video_without_vision(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Sam3TrackerVideoModel";
  sam3_tracker_video_modules(cfg, false, t);
}

void build_sam3_tracker_video(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Sam3TrackerVideoModel";
  sam3_tracker_video_modules(cfg, true, t);
  standalone_tower_dims(t, StackRole::Vision);  // the record's dimensions are the ViT's
  sam3_tracker_disk_names(t);
}

void build_sam3_tracker(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Sam3TrackerModel";
  const ModelConfig vision = sam3_tracker_vision_config(cfg);
  // Sam2Model's one own parameter, the no-memory token, fpn_hidden_size wide, before every module's.
  t.add("no_memory_embedding", {1, 1, vision.dim_or("fpn_hidden_size", 256)});
  sam2_shared_image_embedding(cfg, t);
  sam3_vision(vision, "vision_encoder.", t);
  sam2_prompt_and_mask_decoders(cfg, t);
  standalone_tower_dims(t, StackRole::Vision);
  sam3_tracker_disk_names(t);
  // Sam3TrackerModel's _keys_to_ignore_on_load_unexpected: the video tracker's memory modules and tokens.
  for (const char* video :
       {"tracker_model.memory_", "tracker_model.mask_downsample.", "tracker_model.object_pointer_proj.",
        "tracker_model.temporal_positional_encoding_projection_layer.",
        "tracker_model.no_memory_positional_encoding", "tracker_model.no_object_pointer",
        "tracker_model.occlusion_spatial_embedding_parameter"})
    t.known_extras.push_back(
        {video, "SAM 3's video tracker (Sam3TrackerVideoModel's), which Sam3TrackerModel skips"});
}

}  // namespace ma::families

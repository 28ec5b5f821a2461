// Sam3Model (facebook/sam3's detector): SAM 3's image encoder (sam3_vision.cpp), CLIP's text encoder with its
// projection (CLIPTextModelWithProjection, 1,024 wide and 24 layers at Sam3Config's defaults), a Linear from
// the text width to the DETR width, then the detector's heads (sam3_detector.cpp). facebook/sam3 stores it as
// Sam3VideoModel's detector_model (its tracker beside it under tracker_model and tracker_neck), and
// Sam3Model's _checkpoint_conversion_mapping strips and, on saving, restores that prefix.
#include <string>

#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam3.h"

namespace ma::families {

void sam3_model_modules(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Sam3Model";
  sam3_vision(sub_or_empty(cfg, "vision_config"), "vision_encoder.", t);
  // Sam3Config builds text_config as a CLIPTextConfig whatever model_type it names; absent, it supplies SAM
  // 3's text encoder, whose other fields keep CLIPTextConfig's defaults.
  const ModelConfig text = sub_or(cfg, "text_config", R"({"vocab_size": 49408, "hidden_size": 1024,
      "intermediate_size": 4096, "projection_dim": 512, "num_hidden_layers": 24, "num_attention_heads": 16,
      "max_position_embeddings": 32, "hidden_act": "gelu"})");
  // The record's dimensions are the text encoder's, as CLIP's are (the image encoder is a vision stack).
  const uint64_t text_width = clip_text_tower(text, "text_encoder.text_model.", false, t);
  blocks::linear(t, "text_encoder.text_projection", text_width, text.dim_or("projection_dim", 512), false);
  const uint64_t detr_width = sub_or_empty(cfg, "detr_encoder_config").dim_or("hidden_size", 256);
  blocks::linear(t, "text_projection", text_width, detr_width, true);
  sam3_detector_heads(cfg, t);
}

void build_sam3(const ModelConfig& cfg, ModelTemplate& t) {
  sam3_model_modules(cfg, t);
  t.rename_on_disk("", "detector_model.");
  for (const char* tracker : {"tracker_model.", "tracker_neck."})
    t.known_extras.push_back({tracker, "SAM 3's video tracker (Sam3VideoModel's), which Sam3Model skips"});
}

}  // namespace ma::families

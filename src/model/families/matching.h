// Builders of the keypoint detectors and matchers (group matching, family_groups.h): SuperPoint
// (superpoint_model.cpp, a convolutional detector and descriptor), and the matchers that build it inside
// themselves as their keypoint_detector: SuperGlue (superglue_model.cpp, an attentional GNN and optimal
// transport) and LightGlue (lightglue_model.cpp, rotary self and cross attention with per-layer heads).
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_superpoint(const ModelConfig& cfg, ModelTemplate& t);  // SuperPointForKeypointDetection
void build_superglue(const ModelConfig& cfg, ModelTemplate& t);   // SuperGlueForKeypointMatching
void build_lightglue(const ModelConfig& cfg, ModelTemplate& t);   // LightGlueForKeypointMatching

// SuperPointForKeypointDetection's modules under `prefix` (encoder, keypoint_decoder, descriptor_decoder);
// returns descriptor_decoder_dim, the width of the descriptors it hands a matcher.
uint64_t superpoint_body(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);
// A matcher's keypoint_detector_config, built by AutoModelForKeypointDetection.from_config under
// "keypoint_detector.": SuperPointConfig() when absent. Only SuperPoint is modelled: another model_type (a
// remote-code DISK or ALIKED) is refused, naming keypoint_detector_config.model_type. Returns its width.
uint64_t matching_keypoint_detector(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families

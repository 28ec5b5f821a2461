// VisionTextDualEncoderModel (clip-italian, LiT-style models built with from_vision_text_pretrained): any
// vision model beside any text model, their pooled outputs projected bias-free to projection_dim and compared
// under a learned temperature. The towers are whole models, as AutoModel.from_config builds them from
// vision_config and text_config (pooler included), each built here by its own family's builder under
// vision_model. / text_model.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_composites.h"
#include "model/families/nested_composites_common.h"
#include "model/families/nested_model.h"

namespace ma::families {
namespace {

// VisionTextDualEncoderConfig builds a vision_config naming one of these composite types as the type's own
// config and keeps only its vision_config (clip-italian's vision_config is a whole CLIPConfig); the tower is
// then that sub-config's vision model.
std::string_view dual_encoder_vision_tower_type(std::string_view composite_type) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kComposites{{
      {"clip", "clip_vision_model"},
      {"chinese_clip", "chinese_clip_vision_model"},
      {"siglip", "siglip_vision_model"},
  }};
  for (const auto& [composite, tower] : kComposites)
    if (composite == composite_type) return tower;
  return {};
}

bool dual_encoder_has_role(const ModelTemplate& m, StackRole role) {
  for (const StackSpec& s : m.arch.stacks)
    if (s.role == role) return true;
  return false;
}

// A tower must be one encoder (AutoModel's base class of its type, no head): get_text_features and
// get_image_features read its pooled output.
void dual_encoder_check_tower(const ModelConfig& cfg, const ModelTemplate& m, std::string_view type,
                              std::string_view role) {
  const std::string& cls = m.arch.architecture;
  const bool base = cls.ends_with("Model") && cls.find("For") == std::string::npos;
  const bool one_encoder =
      !dual_encoder_has_role(m, StackRole::Decoder) && !dual_encoder_has_role(m, StackRole::Audio) &&
      !(dual_encoder_has_role(m, StackRole::Encoder) && dual_encoder_has_role(m, StackRole::Vision));
  if (!base || !one_encoder)
    unsupported(cfg,
                "vision-text-dual-encoder with a " + printable(std::string(type)) + " " + std::string(role));
}

// The width of a tower's output, its config's hidden_size: the record's, or for a tower whose builder leaves
// the record to the registry (CLIPVisionModel), its one stack's.
uint64_t dual_encoder_width(const ModelConfig& cfg, const ModelTemplate& m, std::string_view role) {
  if (m.arch.hidden_size) return m.arch.hidden_size;
  if (m.arch.stacks.size() == 1 && m.arch.stacks.front().hidden) return m.arch.stacks.front().hidden;
  cfg.fail(std::string(role) + ".hidden_size", "could not be read from the tower");
}

ModelTemplate dual_encoder_vision_model(const ModelConfig& cfg) {
  const std::string type = sub_model_type(cfg, "vision_config");
  const std::string_view tower_type = dual_encoder_vision_tower_type(type);
  if (tower_type.empty()) {
    ModelTemplate m = nested_family_model(cfg, as_auto_class(cfg, "vision_config", ""), type, "vision_config",
                                          "vision_model.");
    dual_encoder_check_tower(cfg, m, type, "vision_config");
    return m;
  }
  // The composite config's own vision_config (its class's defaults when absent).
  const ModelConfig composite = sub_or_empty(cfg, "vision_config");
  const ModelConfig tower = composite.raw("vision_config") && composite.raw("vision_config")->is_object()
                                ? as_auto_class(composite, "vision_config", "")
                                : sub_or_empty(composite, "vision_config");
  return nested_family_model(cfg, tower, std::string(tower_type), "vision_config", "vision_model.");
}

}  // namespace

void build_vision_text_dual_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VisionTextDualEncoderModel");
  if (cls != "VisionTextDualEncoderModel") unsupported(cfg, cls);  // the config's only class
  // The config class raises without either sub-config and pops each one's model_type.
  ModelTemplate vision = dual_encoder_vision_model(cfg);
  const std::string text_type = sub_model_type(cfg, "text_config");
  ModelTemplate text = nested_family_model(cfg, as_auto_class(cfg, "text_config", ""), text_type,
                                           "text_config", "text_model.");
  dual_encoder_check_tower(cfg, text, text_type, "text_config");
  if (dual_encoder_has_role(text, StackRole::Vision))
    unsupported(cfg, "vision-text-dual-encoder with a " + printable(text_type) + " text_config");

  // The projections read each config's hidden_size (T5's d_model through its attribute map), the width the
  // towers' records carry.
  const uint64_t vision_width = dual_encoder_width(cfg, vision, "vision_config");
  const uint64_t text_width = dual_encoder_width(cfg, text, "text_config");
  // Nothing generates: the record's encoder is the text model, the vision model's stacks sit beside it.
  adopt_record(t, std::move(text.arch), cls);
  for (StackSpec s : vision.arch.stacks) {
    s.role = StackRole::Vision;
    t.arch.stacks.push_back(std::move(s));
  }
  t.add("logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  append_model(t, std::move(vision));
  append_model(t, std::move(text));
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  blocks::linear(t, "visual_projection", vision_width, projection, false);
  blocks::linear(t, "text_projection", text_width, projection, false);
}

}  // namespace ma::families

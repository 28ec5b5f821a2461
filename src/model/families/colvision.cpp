// ColPali and ColQwen2 (the ColVision retrievers): a vision-language model's base model without its LM head,
// under `vlm.`, and one biased linear (embedding_proj_layer) from its text width to embedding_dim.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_b.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/family_registry.h"

namespace ma::families {
namespace {

// transformers' current ColPaliForRetrieval / ColQwen2ForRetrieval build `self.vlm = AutoModel.from_config(
// vlm_config)`: the base model (PaliGemmaModel, Qwen2VLModel), whose modules sit where the conditional
// generation class keeps them under `model.` and which has no lm_head. So the family's own template, its
// `model.` wrapper replaced by `vlm.` and its head dropped (the Hub checkpoints' heads are tied, so not
// stored; an untied one a checkpoint stores is a known extra, see below).
std::string colvision_base_name(const std::string& name) {
  if (name.starts_with("model.")) return "vlm." + name.substr(6);
  return "vlm." + name;
}

void colvision_base_model(const ModelConfig& cfg, ModelTemplate& t, std::string_view family,
                          std::string_view default_vlm,
                          std::initializer_list<std::string_view> modelled_vlms) {
  // ColPaliConfig / ColQwen2Config: a vlm_config dict must name its model_type (KeyError otherwise); no
  // vlm_config at all means the default PaliGemmaConfig() / Qwen2VLConfig().
  const bool given = cfg.has("vlm_config");
  const std::string type = given ? sub_model_type(cfg, "vlm_config") : std::string(default_vlm);
  bool modelled = false;
  for (std::string_view m : modelled_vlms) modelled = modelled || type == m;
  const FamilyBuilder* f = find_family_builder(type);
  if (!modelled || !f) unsupported(cfg, std::string(family) + " with a " + type + " vlm_config");
  // AutoModel picks the class by model_type alone, whatever vlm_config's architectures say.
  const ModelConfig vlm = given ? as_auto_class(cfg, "vlm_config", "") : sub_or_empty(cfg, "vlm_config");
  ModelTemplate inner;
  inner.arch.model_type = type;
  f->build(vlm, inner);
  std::erase_if(inner.tensors, [](const TemplateTensor& x) { return x.name == "lm_head.weight"; });
  for (TemplateTensor& x : inner.tensors) {
    x.name = colvision_base_name(x.name);
    if (!x.tied_to.empty()) x.tied_to = colvision_base_name(x.tied_to);
    x.disk.clear();  // the checkpoints' own layout is set by each model below
  }
  for (ModelTemplate::KnownExtra& e : inner.known_extras) e.prefix = colvision_base_name(e.prefix);
  for (StackSpec& s : inner.arch.stacks) s.path = colvision_base_name(s.path);
  inner.arch.tie_word_embeddings = false;  // no head left to tie
  const std::string model_type = t.arch.model_type;
  t = std::move(inner);
  t.arch.model_type = model_type;
  blocks::linear(t, "embedding_proj_layer", t.arch.hidden_size, cfg.dim_or("embedding_dim", 128), true);
}

}  // namespace

void build_colpali(const ModelConfig& cfg, ModelTemplate& t) {
  supported_task(cfg, architecture_of(cfg, "ColPaliForRetrieval"), "ColPali", {"ForRetrieval"});
  // ColPaliConfig's own text_config is a copy kept on the config: the model reads vlm_config.text_config.
  colvision_base_model(cfg, t, "colpali", "paligemma", {"paligemma"});
  t.arch.architecture = "ColPaliForRetrieval";
  // vidore/colpali-v1.3-hf was converted with transformers 4's PaliGemmaForConditionalGeneration inside:
  // its keys are vlm.language_model.model.*, vlm.vision_tower.vision_model.*, vlm.multi_modal_projector.*
  // (the tied head not stored).
  t.rename_on_disk("vlm.language_model.", "vlm.language_model.model.");
  t.rename_on_disk("vlm.vision_tower.", "vlm.vision_tower.vision_model.");
  t.known_extras.push_back(
      {"vlm.language_model.lm_head.", "PaliGemma's LM head, which ColPaliForRetrieval does not build"});
}

void build_colqwen2(const ModelConfig& cfg, ModelTemplate& t) {
  supported_task(cfg, architecture_of(cfg, "ColQwen2ForRetrieval"), "ColQwen2", {"ForRetrieval"});
  // ColQwen2.5 checkpoints (vidore/colqwen2.5-*) configure a qwen2_5_vl vlm_config in the same class.
  colvision_base_model(cfg, t, "colqwen2", "qwen2_vl", {"qwen2_vl", "qwen2_5_vl"});
  t.arch.architecture = "ColQwen2ForRetrieval";
  // vidore/colqwen2-v1.0-hf was converted with Qwen2VLForConditionalGeneration inside (its conversion
  // script): vlm.model.language_model.*, vlm.model.visual.* (the tied head not stored).
  t.rename_on_disk("vlm.language_model.", "vlm.model.language_model.");
  t.rename_on_disk("vlm.visual.", "vlm.model.visual.");
  t.known_extras.push_back({"vlm.lm_head.", "Qwen2-VL's LM head, which ColQwen2ForRetrieval does not build"});
}

}  // namespace ma::families

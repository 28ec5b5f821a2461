#include "model/family_registry.h"

#include <string>
#include <vector>

#include "core/checked.h"
#include "core/error.h"
#include "model/decoder_task_head.h"
#include "model/families/family_groups.h"
#include "model/family_table.h"
#include "model/layer_shapes.h"
#include "model/record_config.h"
#include "model/record_facts.h"
#include "model/tensor_placement.h"

namespace ma {

std::span<const FamilyBuilder> all_family_builders() {
  static const std::vector<FamilyBuilder> all = [] {
    std::vector<FamilyBuilder> v;
    for (auto group : {families::llama_like(),
                       families::llama_variants(),
                       families::llama_additions(),
                       families::moe_decoders(),
                       families::moe_variants(),
                       families::mimo_v2_flash(),
                       families::deepseek_v4(),
                       families::olmo_hybrid(),
                       families::deepseek_like(),
                       families::classic_decoders(),
                       families::qwen_hybrid(),
                       families::state_space(),
                       families::lightning_attention(),
                       families::conv_hybrids(),
                       families::recurrent_gemma(),
                       families::rwkv(),
                       families::xlstm(),
                       families::ernie4_5_vl(),
                       families::florence2(),
                       families::qwen3_omni(),
                       families::t5gemma(),
                       families::perception_lm(),
                       families::multi_modality(),
                       families::deepseek_vl(),
                       families::blip(),
                       families::vlm_classics(),
                       families::composites(),
                       families::nested_composites(),
                       families::seq2seq_classics(),
                       families::fast_vlm(),
                       families::emu3(),
                       families::janus(),
                       families::aria(),
                       families::chameleon(),
                       families::early_decoders(),
                       families::mamba2_hybrids(),
                       families::zamba2(),
                       families::encoders(),
                       families::bert_shaped(),
                       families::bert_variants_3(),
                       families::compact_encoders(),
                       families::xlnet_xlm(),
                       families::llava_like(),
                       families::qwen2_5_omni(),
                       families::phi4_multimodal(),
                       families::kimi_k25(),
                       families::multimodal(),
                       families::mllama(),
                       families::aya_vision(),
                       families::gemma3n(),
                       families::glm4v(),
                       families::exaone4_5(),
                       families::paddleocr_vl(),
                       families::hunyuan_vl(),
                       families::minimax_m3(),
                       families::vlm_2026(),
                       families::ocr_and_ovis(),
                       families::audio_llms(),
                       families::protein_text(),
                       families::decoders_b(),
                       families::contrastive(),
                       families::clip_relatives(),
                       families::dual_encoders(),
                       families::vision_encoders(),
                       families::vit_relatives(),
                       families::vision_backbones(),
                       families::vision_hier(),
                       families::vision_hier_b(),
                       families::vision_d(),
                       families::vision_e(),
                       families::vision_f(),
                       families::cnn_backbones(),
                       families::segment_anything(),
                       families::segment_anything_3(),
                       families::detr(),
                       families::grounding_dino(),
                       families::depth(),
                       families::ocr_vlms(),
                       families::speech_encoders(),
                       families::speech_w2v(),
                       families::speech_c(),
                       families::speech_d(),
                       families::matching(),
                       families::timeseries(),
                       families::speech_gen(),
                       families::speech_tts(),
                       families::audio_codecs_tts(),
                       families::tts_vits(),
                       families::bark(),
                       families::speech_asr(),
                       families::csm_mimi(),
                       families::audio_gen_b(),
                       families::speecht5(),
                       families::seamless(),
                       families::standalone_towers(),
                       families::bert_docs(),
                       families::detection_seg(),
                       families::text_d(),
                       families::seg_heads(),
                       families::seg_b(),
                       families::perceiver(),
                       families::multimodal_b(),
                       families::multimodal_d(),
                       families::remote_code()})
      v.insert(v.end(), group.begin(), group.end());
    return v;
  }();
  return all;
}

const FamilyBuilder* find_family_builder(std::string_view model_type) {
  for (const FamilyBuilder& f : all_family_builders())
    if (f.model_type == model_type) return &f;
  return nullptr;
}

namespace {

// A config without model_type (distilgpt2's, written before transformers required one) still names its class:
// the family whose model_type that class spells, at its first model_type we build. timm's configs name their
// network instead.
std::string model_type_of_class(const ModelConfig& cfg) {
  std::vector<std::string> classes = cfg.strings("architectures");
  // timm writes its Hub configs with the model's timm name in "architecture" and no class list: what
  // transformers' TimmWrapperConfig reads.
  if (classes.empty() && cfg.raw("architecture") != nullptr && cfg.raw("architecture")->is_string())
    return "timm_wrapper";
  if (const FamilyRow* row = classes.empty() ? nullptr : family_for_architecture(classes.front()))
    for (std::string_view t : list_items(row->model_types))
      if (find_family_builder(t)) return std::string(t);
  throw Error(ErrorKind::Unsupported, cfg.file(), "model_type",
              "unsupported architecture: the config names no model_type" +
                  (classes.empty() ? std::string()
                                   : " and its class " + printable(classes.front()) + " no family we build"));
}

// BatchNorm's step counter is a torch.long buffer whatever the model's dtype: a checkpoint stores it as
// int64 (8 bytes), which is how a template says it is stored. Set once the family has named every tensor
// (some rename theirs after adding them).
void store_step_counters_as_int64(ModelTemplate& t) {
  constexpr std::string_view kCounter = "num_batches_tracked";
  for (TemplateTensor& x : t.tensors) {
    if (!x.stored || x.fused_on_disk || x.per_expert) continue;
    if (x.disk.empty() && leaf_of(x.name) == kCounter)
      x.disk.push_back({x.name, x.shape, DType::I64, std::nullopt});
    for (DiskPiece& d : x.disk)
      if (!d.dtype && leaf_of(d.name) == kCounter) d.dtype = DType::I64;
  }
}

}  // namespace

ModelTemplate build_template(const ModelConfig& cfg) {
  std::string model_type = cfg.string_or("model_type", "");
  if (model_type.empty()) model_type = model_type_of_class(cfg);
  const FamilyBuilder* f = find_family_builder(model_type);
  if (!f)
    throw Error(ErrorKind::Unsupported, cfg.file(), "model_type",
                "unsupported architecture: " + printable(model_type));
  ModelTemplate t;
  t.arch.model_type = model_type;
  t.arch.torch_dtype = cfg.string_or("torch_dtype", cfg.has("dtype") ? cfg.string_or("dtype", "") : "");
  try {
    f->build(cfg, t);
  } catch (const Error& e) {
    // The template's cap on tensors (ModelTemplate::charge) knows no file: the config is what implies them.
    if (e.kind() != ErrorKind::Limit || !e.file().empty()) throw;
    throw Error(ErrorKind::Limit, cfg.file(), "its layer and expert counts", e.rule());
  }
  swap_lm_head_for_task_head(cfg, t);
  store_step_counters_as_int64(t);
  complete_layer_shapes(t.arch);
  read_config_facts(cfg, t.arch);
  std::vector<NamedPlacement> parameters;
  for (TemplateTensor& x : t.tensors) {
    x.placement = place_tensor(x.name);
    if (x.kind == TensorKind::Parameter) parameters.push_back({x.name, x.placement, &x.shape});
  }
  derive_facts(cfg, parameters, t.arch);
  // Shapes come from capped config values, but a product of several can still exceed 64 bits.
  uint64_t total = 0;
  for (const TemplateTensor& tt : t.tensors) {
    auto n = checked_numel(tt.shape);
    auto sum = n ? checked_add(total, *n) : std::nullopt;
    if (!sum) throw Error(ErrorKind::Limit, cfg.file(), tt.name, "tensor sizes overflow 64-bit arithmetic");
    total = *sum;
  }
  return t;
}

}  // namespace ma

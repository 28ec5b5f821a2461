// Cosmos3-Edge (cosmos3_edge, Cosmos3EdgeForConditionalGeneration / Cosmos3EdgeModel; cosmos3_edge_text,
// Cosmos3EdgeTextModel; cosmos3_edge_vision, Cosmos3EdgeVisionModel): NVIDIA Cosmos 3's edge reasoner. Unlike
// Cosmos3 Nano and Super (cosmos3_omni, Qwen3-VL's classes) its language model is a Llama-layout decoder
// whose MLP is fc1 -> relu² -> fc2 without a gate, behind SigLIP 2's NaFlex vision transformer without its
// pooling head (a biased linear patch embedding, a learned num_patches table resized to each image) and a
// patch merger: a LayerNorm over each patch, then spatial_merge_size² patches concatenated through
// linear_fc1 -> GELU -> linear_fc2 to the text width. Cosmos3EdgeModel registers visual, projector, then
// language_model; the head is never tied (_tied_weights_keys is empty), whatever tie_word_embeddings says.
// Checkpoints keep transformers' names; the unified Cosmos3-Edge checkpoint also holds the generator tower's
// modules, which transformers drops on load (_keys_to_ignore_on_load_unexpected).
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/vlm_2026.h"

namespace ma::families {
namespace {

// Cosmos3EdgeTextConfig's validate_architecture: heads must divide hidden_size although head_dim is set
// apart, the rotary embedding must be the default one, and its three M-RoPE sections (mrope_section of
// rope_parameters, or of the legacy rope_scaling transformers converts; [24, 20, 20] when the config gives
// neither) must sum to half of head_dim.
void cosmos3_edge_check_text(const ModelConfig& text, const ArchitectureRecord& a) {
  if (a.hidden_size % a.num_attention_heads != 0)
    text.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(a.hidden_size) + ")");
  std::optional<ModelConfig> rope = text.sub("rope_parameters");
  if (!rope) rope = text.sub("rope_scaling");
  if (!rope) {
    if (a.head_dim != 128) text.fail("head_dim", "must be 128 with the default M-RoPE sections [24, 20, 20]");
    return;
  }
  if (rope->string_or("rope_type", rope->string_or("type", "default")) != "default")
    rope->fail("rope_type", "must be default: Cosmos3-Edge supports no other rotary scaling");
  if (!rope->has("mrope_section")) return;
  const std::vector<int64_t> sections = rope->ints("mrope_section");
  if (sections.size() != 3 ||
      std::accumulate(sections.begin(), sections.end(), int64_t{0}) != static_cast<int64_t>(a.head_dim / 2))
    rope->fail("mrope_section",
               "must be three sections summing to half of head_dim (" + std::to_string(a.head_dim / 2) + ")");
}

// Cosmos3EdgeTextModel under `root` ("model.language_model.", or "" alone): Cosmos3EdgeTextConfig's defaults
// are Cosmos3-Edge's own sizes (2048 wide, 28 layers, 16 heads of 128 over 8 key/value heads).
void cosmos3_edge_text_model(const ModelConfig& text, const std::string& root, ModelTemplate& t) {
  DecoderDefaults dd;
  dd.vocab_size = 131072;
  dd.hidden_size = 2048;
  dd.intermediate_size = 9216;
  dd.num_hidden_layers = 28;
  dd.num_attention_heads = 16;
  dd.num_key_value_heads = 8;
  dd.head_dim = 128;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(text, dd, t);
  cosmos3_edge_check_text(text, t.arch);
  LlamaStyle s = attention_bias_style(text);
  s.mlp = Mlp::Fc;
  s.mlp_bias = text.flag_or("mlp_bias", false);
  llama_style_decoder(t, root, s);
  t.arch.model_type = "cosmos3_edge_text";
}

// Cosmos3EdgeVisionModel under `prefix`: SigLIP 2's NaFlex tower without a head. Cosmos3EdgeConfig rebuilds
// vision_config as Cosmos3EdgeVisionConfig whatever model_type it names. Returns its width.
uint64_t cosmos3_edge_vision_model(const ModelConfig& vision, const std::string& prefix, ModelTemplate& t) {
  VitDefaults d;  // Cosmos3EdgeVisionConfig's
  d.hidden_size = 1152;
  d.intermediate_size = 4304;
  d.num_hidden_layers = 27;
  d.num_attention_heads = 16;
  d.patch_size = 16;
  d.model_type = "cosmos3_edge_vision";
  d.model_type_fixed = true;
  return vit_tower(vision, prefix, d, t);
}

}  // namespace

void build_cosmos3_edge_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Cosmos3EdgeTextModel");
  supported_task(cfg, cls, "Cosmos3EdgeText", {"Model"});
  t.arch.architecture = cls;
  cosmos3_edge_text_model(cfg, "", t);
  t.arch.tie_word_embeddings = false;  // no head
}

void build_cosmos3_edge_vision(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Cosmos3EdgeVisionModel");
  supported_task(cfg, cls, "Cosmos3Edge", {"VisionModel"});
  t.arch.architecture = cls;
  cosmos3_edge_vision_model(cfg, "", t);
}

void build_cosmos3_edge(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Cosmos3EdgeForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Cosmos3Edge", {"ForConditionalGeneration", "Model"});
  const bool head = task == "ForConditionalGeneration";
  const std::string root = head ? "model." : "";
  // The projector joins the two widths, so the language model is built first and appended after the tower
  // and the projector, where Cosmos3EdgeModel registers it.
  ModelTemplate lm;
  cosmos3_edge_text_model(sub_or_empty(cfg, "text_config"), root + "language_model.", lm);
  const std::string dtype = t.arch.torch_dtype;
  t.arch = std::move(lm.arch);  // the record describes the language model; the tower and projector join it
  t.arch.torch_dtype = dtype;
  t.arch.architecture = cls;
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const uint64_t width = cosmos3_edge_vision_model(vision, root + "visual.", t);
  // Cosmos3EdgePatchMerger: a LayerNorm over each patch (eps 1e-6, use_postshuffle_norm off), then
  // spatial_merge_size² patches side by side through linear_fc1 -> GELU -> linear_fc2.
  const uint64_t merge = vision.dim_or("spatial_merge_size", 2);
  const std::optional<uint64_t> merged = checked_mul(width, merge * merge);  // each at most 2^26
  if (!merged || *merged > ModelConfig::kMaxValue)
    vision.fail("spatial_merge_size", "squared times hidden_size makes a merged patch wider than 2^26");
  const uint64_t mid = cfg.dim_or("projector_hidden_size", 11520);
  const std::string p = root + "projector.";
  blocks::norm(t, p + "norm", width, true);
  blocks::linear(t, p + "linear_fc1", *merged, mid, true);
  blocks::linear(t, p + "linear_fc2", mid, t.arch.hidden_size, true);
  record_projector(t, root + "projector");
  append_model(t, std::move(lm));
  t.arch.tie_word_embeddings = false;  // _tied_weights_keys is empty: the head is always its own
  if (head) lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  // The unified checkpoint's generator tower; its per-layer branches (input_layernorm_moe_gen, mlp_moe_gen,
  // self_attn.add_q_proj ...) sit inside the language model's layers, where no prefix singles them out.
  for (const char* lm_root : {"", "model.language_model."})
    for (const char* module : {"action_modality_embed", "action_proj_in.", "action_proj_out.",
                               "time_embedder.", "proj_in.", "proj_out.", "norm_moe_gen."})
      t.known_extras.push_back(
          {std::string(lm_root) + module, "Cosmos3-Edge's generator tower, dropped by transformers on load"});
}

}  // namespace ma::families

// Step-3.7-Flash (step3p7, Step3p7ForConditionalGeneration): Step-3.5-Flash's language model (text_config,
// model_type step3p5, built by moe_variants.cpp's step3p5 builder) behind a Perception-Encoder-style ViT
// (a bias-free patch conv, a learned position table, a pre-LayerNorm, CLIP layers with layer-scale vectors
// and 2-D rotary positions), two stride-2 3 x 3 convolutions that each double the width, and one linear
// projector to the text width.
//
// Built as transformers names it in memory. Its Hub checkpoint keeps StepFun's names, which transformers'
// conversion mapping renames on load: the language model under model.* (as Step-3.5's checkpoint stores
// it), the tower under vision_model.* in open_clip's layout (conv1, positional_embedding, ln_pre,
// transformer.resblocks.N with one fused in_proj for q, k and v, ls_1/ls_2.gamma, mlp.c_fc/c_proj), the
// projector as vit_large_projector. The three multi-token-prediction layers after the last decoder layer
// transformers ignores.
#include <algorithm>
#include <string>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/vlm_2026.h"

namespace ma::families {
namespace {

// Step-3.5's builder, by model_type from its group's table.
BuildFn step3p5_builder() {
  for (const FamilyBuilder& f : moe_variants())
    if (f.model_type == "step3p5") return f.build;
  return nullptr;
}

// `name` [shape], stored as `disk` with the same shape.
TemplateTensor& stored_as(ModelTemplate& t, const std::string& name, const Shape& shape,
                          const std::string& disk) {
  TemplateTensor& x = t.add(name, shape);
  x.disk.push_back({disk, shape});
  return x;
}

// `mem`.weight and `mem`.bias (a biased linear, conv or LayerNorm), stored as `disk`.weight and `disk`.bias.
void biased_as(ModelTemplate& t, const std::string& mem, const std::string& disk, const Shape& weight,
               uint64_t out) {
  stored_as(t, mem + ".weight", weight, disk + ".weight");
  stored_as(t, mem + ".bias", {out}, disk + ".bias");
}

// Moves in-memory names under `from` to `to` and keeps what checkpoints call them: the language model is
// model.language_model.* in memory but model.* on disk.
void move_in_memory(ModelTemplate& t, const std::string& from, const std::string& to) {
  auto starts = [&](const std::string& s) { return s.compare(0, from.size(), from) == 0; };
  for (TemplateTensor& x : t.tensors) {
    if (!starts(x.name)) continue;
    if (!x.fused_on_disk && !x.per_expert && x.disk.empty()) x.disk.push_back({x.name, x.shape});
    x.name = to + x.name.substr(from.size());
    if (starts(x.tied_to)) x.tied_to = to + x.tied_to.substr(from.size());
  }
  for (StackSpec& s : t.arch.stacks)
    if (starts(s.path)) s.path = to + s.path.substr(from.size());
}

struct Tower {
  uint64_t hidden = 1536, layers = 47, heads = 16, inter = 8960, channels = 3, image = 728, patch = 14;
};

// Step3p7VisionConfig: the Hub's open_clip spellings (width, layers, heads) win over the transformers names,
// as its __post_init__ pops them; intermediate_size is always int(hidden_size x mlp_ratio), whatever the
// config says.
Tower read_tower(const ModelConfig& v) {
  Tower w;
  w.hidden = v.has("width") ? v.dim("width") : v.dim_or("hidden_size", w.hidden);
  w.layers = v.has("layers") ? v.layers_or("layers", w.layers) : v.layers_or("num_hidden_layers", w.layers);
  w.heads = v.has("heads") ? v.dim("heads") : v.dim_or("num_attention_heads", w.heads);
  split_heads(v, v.has("heads") ? "heads" : "num_attention_heads", w.hidden, w.heads);
  const double ratio = v.number_or("mlp_ratio", 8960.0 / 1536.0);
  const double inter = static_cast<double>(w.hidden) * ratio;
  if (!(inter >= 1.0) || inter > static_cast<double>(ModelConfig::kMaxValue))
    v.fail("mlp_ratio", "must make hidden_size x mlp_ratio a width between 1 and 2^26");
  w.inter = static_cast<uint64_t>(inter);  // Python's int(): truncation
  w.channels = v.dim_or("num_channels", w.channels);
  w.image = v.dim_or("image_size", w.image);
  w.patch = v.dim_or("patch_size", w.patch);
  if (w.patch > w.image) v.fail("patch_size", "must not exceed image_size (" + std::to_string(w.image) + ")");
  return w;
}

// Step3p7VisionModel under `mem` ("model.vision_model."), stored under "vision_model.". Returns the width
// of its output, after the two downsamplers: 4 x hidden_size.
uint64_t vision_model(const Tower& w, const std::string& mem, ModelTemplate& t) {
  const std::string disk = "vision_model.";
  const uint64_t h = w.hidden, grid = w.image / w.patch;
  stored_as(t, mem + "embeddings.patch_embedding.weight", {h, w.channels, w.patch, w.patch},
            disk + "conv1.weight");
  stored_as(t, mem + "embeddings.position_embedding.weight", {grid * grid, h}, disk + "positional_embedding")
      .embedding = true;
  biased_as(t, mem + "pre_layernorm", disk + "ln_pre", {h}, h);
  for (uint64_t i = 0; i < w.layers; ++i) {
    const std::string p = mem + "layers." + std::to_string(i) + ".";
    const std::string d = disk + "transformer.resblocks." + std::to_string(i) + ".";
    // The layer's own vectors come first in its state_dict, before its submodules'.
    stored_as(t, p + "lambda_1", {h}, d + "ls_1.gamma");
    stored_as(t, p + "lambda_2", {h}, d + "ls_2.gamma");
    // k, v and q (CLIPAttention's order) are one in_proj on disk, the disk piece of q_proj.
    for (const char* kv : {"self_attn.k_proj", "self_attn.v_proj"}) {
      t.add(p + kv + ".weight", {h, h}).fused_on_disk = true;
      t.add(p + kv + ".bias", {h}).fused_on_disk = true;
    }
    stored_as(t, p + "self_attn.q_proj.weight", {h, h}, d + "attn.in_proj_weight").disk[0].shape = {3 * h, h};
    stored_as(t, p + "self_attn.q_proj.bias", {h}, d + "attn.in_proj_bias").disk[0].shape = {3 * h};
    biased_as(t, p + "self_attn.out_proj", d + "attn.out_proj", {h, h}, h);
    biased_as(t, p + "mlp.fc1", d + "mlp.c_fc", {w.inter, h}, w.inter);
    biased_as(t, p + "mlp.fc2", d + "mlp.c_proj", {h, w.inter}, h);
    biased_as(t, p + "layernorm_before", d + "ln_1", {h}, h);
    biased_as(t, p + "layernorm_after", d + "ln_2", {h}, h);
  }
  biased_as(t, mem + "downsampler1", disk + "vit_downsampler1", {2 * h, h, 3, 3}, 2 * h);
  biased_as(t, mem + "downsampler2", disk + "vit_downsampler2", {4 * h, 2 * h, 3, 3}, 4 * h);
  // The position table is resampled to each image's grid: image_size only sizes the table.
  record_vision_tower(t, mem + "layers", h, w.layers, w.heads, h / w.heads, w.inter, w.patch, w.image);
  return 4 * h;
}

}  // namespace

void build_step3p7(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Step3p7ForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Step3p7", {"ForConditionalGeneration", "Model"});
  const bool head = task == "ForConditionalGeneration";
  const std::string root = head ? "model." : "";
  // Step3p7Config reads text_config as Step3p7TextConfig whatever model_type it names (it drops the key).
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const BuildFn step3p5 = step3p5_builder();
  if (!step3p5) unsupported(cfg, "step3p7 without the step3p5 language model");
  ModelTemplate lm = nested_model(text, step3p5, "step3p5", "");
  // Only the top-level flag ties the head (Step3p7Config has none: untied by default); the head is re-added
  // after the projector, where the outer class registers it.
  lm.tensors.erase(std::remove_if(lm.tensors.begin(), lm.tensors.end(),
                                  [](const TemplateTensor& x) { return x.name.starts_with("lm_head."); }),
                   lm.tensors.end());
  move_in_memory(lm, "model.", root + "language_model.");
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const Tower w = read_tower(vision);  // read first: a hostile vision config fails before any tensor is built
  const std::string dtype = t.arch.torch_dtype;
  t.arch = std::move(lm.arch);  // the record describes the language model; the tower joins it below
  t.arch.torch_dtype = dtype;
  t.arch.architecture = cls;
  t.arch.tie_word_embeddings = head && cfg.flag_or("tie_word_embeddings", false);
  const uint64_t features = vision_model(w, root + "vision_model.", t);
  append_model(t, std::move(lm));  // Step3p7Model registers vision_model, language_model, then the projector
  const bool bias = cfg.flag_or("projector_bias", false);
  stored_as(t, root + "multi_modal_projector.weight", {t.arch.hidden_size, features},
            "vit_large_projector.weight");
  if (bias)
    stored_as(t, root + "multi_modal_projector.bias", {t.arch.hidden_size}, "vit_large_projector.bias");
  record_projector(t, root + "multi_modal_projector");
  if (head) lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

}  // namespace ma::families

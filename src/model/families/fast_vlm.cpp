// FastVLM (Apple): LLaVA's frame around a Qwen2 language model, the vision tower a FastViT-HD, timm's
// fastvit_mci3 (MobileCLIP's image encoder): convolutional stages of RepMixer blocks, then attention blocks,
// each re-parameterised into single convolutions for inference, and a final squeeze-and-excitation
// convolution to 3,072 channels that the projector reads. Two forms:
//  - fast_vlm (FastVlmForConditionalGeneration): transformers' conversion, the tower under timm's names;
//  - llava_qwen2 (LlavaQwen2ForCausalLM, apple/FastVLM-*): Apple's remote code, the tower under
//    ml-fastvlm's names with MobileCLIP's projection head (head.proj), which the conversion drops, and the
//    language model's fields at the config's top level.
#include <array>
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// A timm FastViT: blocks per stage, their widths, which stages mix tokens by attention (the rest by
// RepMixer) and which have a conditional position encoding.
struct FastVit {
  std::string_view name;
  std::array<uint64_t, 5> blocks, dims;
  std::array<bool, 5> attention, position;
};
// Only the tower FastVLM ships (checked against timm's own); another architecture name is refused.
constexpr std::array kFastVits{FastVit{"fastvit_mci3",
                                       {2, 12, 24, 4, 2},
                                       {96, 192, 384, 768, 1536},
                                       {false, false, false, true, true},
                                       {false, false, false, true, true}}};

// How the tower's modules are named: timm's (stages.S.blocks.B, mlp, layer_scale.gamma) or ml-fastvlm's
// (network.N.B, convffn, layer_scale), whose network list interleaves the stages with their downsampling
// and position encodings.
struct FastVitNames {
  bool apple = false;
  std::string stem(int i) const { return (apple ? "patch_embed." : "stem.") + std::to_string(i); }
  std::string block(size_t stage, uint64_t b) const {
    static constexpr std::array<int, 5> kNetwork{0, 2, 4, 7, 10};
    return apple ? "network." + std::to_string(kNetwork[stage]) + "." + std::to_string(b)
                 : "stages." + std::to_string(stage) + ".blocks." + std::to_string(b);
  }
  std::string downsample(size_t stage) const {
    static constexpr std::array<int, 5> kNetwork{0, 1, 3, 5, 8};
    return apple ? "network." + std::to_string(kNetwork[stage]) + ".proj."
                 : "stages." + std::to_string(stage) + ".downsample.proj.";
  }
  std::string position(size_t stage) const {
    return apple ? "network." + std::to_string(stage == 3 ? 6 : 9) + "."
                 : "stages." + std::to_string(stage) + ".pos_emb.";
  }
  std::string mlp() const { return apple ? ".convffn." : ".mlp."; }
  std::string scale(std::string_view which) const {
    return "." + std::string(which) + (apple ? "" : ".gamma");
  }
};

// The tower under `p`; returns its output channels (2 x the last stage's width).
uint64_t fast_vit(ModelTemplate& t, const std::string& p, const FastVit& v, const FastVitNames& n) {
  const uint64_t d0 = v.dims[0];
  blocks::conv2d(t, p + n.stem(0) + ".reparam_conv", 3, d0, 3);
  blocks::conv2d(t, p + n.stem(1) + ".reparam_conv", d0, d0, 3, d0);
  blocks::conv2d(t, p + n.stem(2) + ".reparam_conv", d0, d0, 1);
  for (size_t s = 0; s < v.dims.size(); ++s) {
    const uint64_t d = v.dims[s];
    if (s > 0) {
      const uint64_t before = v.dims[s - 1];
      blocks::conv2d(t, p + n.downsample(s) + (n.apple ? "0.lkb_reparam" : "0.reparam_conv"), before, d, 7,
                     before);
      blocks::conv2d(t, p + n.downsample(s) + "1.reparam_conv", d, d, 1);
    }
    if (v.position[s]) blocks::conv2d(t, p + n.position(s) + "reparam_conv", d, d, 7, d);
    for (uint64_t b = 0; b < v.blocks[s]; ++b) {
      const std::string x = p + n.block(s, b);
      if (v.attention[s]) {
        blocks::norm(t, x + ".norm", d, true);
        t.add(x + ".token_mixer.qkv.weight", {3 * d, d});
        blocks::linear(t, x + ".token_mixer.proj", d, d, true);
        t.add(x + n.scale("layer_scale_1"), {d, 1, 1});
      } else {
        blocks::conv2d(t, x + ".token_mixer.reparam_conv", d, d, 3, d);
      }
      // The MLP's depthwise convolution keeps its BatchNorm, whose statistics the checkpoints store.
      const std::string mlp = x + n.mlp();
      t.add(mlp + "conv.conv.weight", {d, 1, 7, 7});
      blocks::norm(t, mlp + "conv.bn", d, true);
      t.add(mlp + "conv.bn.running_mean", {d}).kind = TensorKind::Buffer;
      t.add(mlp + "conv.bn.running_var", {d}).kind = TensorKind::Buffer;
      t.add(mlp + "conv.bn.num_batches_tracked", {}).kind = TensorKind::Buffer;
      blocks::conv2d(t, mlp + "fc1", d, 4 * d, 1);
      blocks::conv2d(t, mlp + "fc2", 4 * d, d, 1);
      t.add(x + n.scale(v.attention[s] ? "layer_scale_2" : "layer_scale"), {d, 1, 1});
    }
  }
  const uint64_t last = v.dims.back(), out = 2 * last, squeezed = out / 16;
  const std::string f = p + (n.apple ? "conv_exp." : "final_conv.");
  blocks::conv2d(t, f + (n.apple ? "se.reduce" : "se.fc1"), out, squeezed, 1);
  blocks::conv2d(t, f + (n.apple ? "se.expand" : "se.fc2"), squeezed, out, 1);
  blocks::conv2d(t, f + "reparam_conv", last, out, 3, last);
  // Its stages are no stack of equal layers: the record keeps the tower's width and input size only.
  StackSpec& s = t.arch.add_stack(StackRole::Vision, p + "stages", out);
  s.image_size = 1024;
  s.patch_size = 64;  // five stride-2 stages and the stem's: 64 x 64 pixels a token
  return out;
}

const FastVit& fast_vit_named(const ModelConfig& cfg, const std::string& name) {
  for (const FastVit& v : kFastVits)
    if (v.name == name) return v;
  unsupported(cfg, "FastVLM with the vision model " + printable(name));
}

// FastVlmConfig's text_config when it has none: Qwen2-7B's shape with the converted vocabulary.
constexpr const char* kFastVlmText =
    R"({"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,
    "num_attention_heads":28,"num_key_value_heads":4,"vocab_size":152128})";

void build_fast_vlm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FastVlmForConditionalGeneration";
  const ModelConfig text = sub_or(cfg, "text_config", kFastVlmText);
  if (text.string_or("model_type", "qwen2") != "qwen2")
    unsupported(cfg, "FastVLM with a non-Qwen2 language model");
  const LlamaStyle style = read_qwen2_text(text, t);
  t.arch.model_type = "qwen2";
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  const ModelConfig v = sub_or_empty(cfg, "vision_config");
  if (v.string_or("model_type", "timm_wrapper") != "timm_wrapper")
    unsupported(cfg, "FastVLM with a vision tower other than timm's");
  const uint64_t vision = fast_vit(t, "model.vision_tower.timm_model.",
                                   fast_vit_named(cfg, v.string_or("architecture", "fastvit_mci3")), {});
  if (v.dim_or("hidden_size", vision) != vision)
    v.fail("hidden_size", "must be the tower's " + std::to_string(vision) + " output channels");
  const bool bias = cfg.flag_or("multimodal_projector_bias", true);
  blocks::linear(t, "model.multi_modal_projector.linear_1", vision, t.arch.hidden_size, bias);
  blocks::linear(t, "model.multi_modal_projector.linear_2", t.arch.hidden_size, t.arch.hidden_size, bias);
  record_projector(t, "model.multi_modal_projector");
  llama_style_decoder(t, "model.language_model.", style);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

// apple/FastVLM-*: Qwen2's fields at the top level, MobileCLIP-L's tower (mm_vision_tower mobileclip_l_*)
// under ml-fastvlm's names with its projection head, LLaVA's mlp2x_gelu projector.
void build_llava_qwen2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LlavaQwen2ForCausalLM";
  const std::string tower = cfg.string_or("mm_vision_tower", "");
  if (!tower.starts_with("mobileclip_l"))
    unsupported(cfg, "llava_qwen2 with the vision tower " + printable(tower));
  if (cfg.string_or("mm_projector_type", "mlp2x_gelu") != "mlp2x_gelu")
    unsupported(cfg,
                "llava_qwen2 with mm_projector_type " + printable(cfg.string_or("mm_projector_type", "")));
  const LlamaStyle style = read_qwen2_text(cfg, t);
  t.arch.model_type = "qwen2";
  t.arch.hand_derived = true;
  const std::string p = "model.vision_tower.vision_tower.model.";
  const uint64_t vision = fast_vit(t, p, kFastVits[0], {.apple = true});
  const uint64_t features = cfg.dim_or("mm_hidden_size", vision);
  t.add(p + "head.proj", {vision, 768});  // MobileCLIP's image embedding, unused by the language model
  blocks::linear(t, "model.mm_projector.0", features, t.arch.hidden_size, true);
  blocks::linear(t, "model.mm_projector.2", t.arch.hidden_size, t.arch.hidden_size, true);
  record_projector(t, "model.mm_projector");
  llama_style_decoder(t, "model.", style);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

constexpr std::array kFastVlmFamilies{FamilyBuilder{"fast_vlm", build_fast_vlm},
                                      FamilyBuilder{"llava_qwen2", build_llava_qwen2}};

}  // namespace

std::span<const FamilyBuilder> fast_vlm() {
  return kFastVlmFamilies;
}

}  // namespace ma::families

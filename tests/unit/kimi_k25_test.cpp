// Kimi-K2.5 (model/families/kimi_k25.cpp): MoonViT, its projector and DeepSeek-V3's mixture, counted on
// moonshotai/Kimi-K2.5's config.json and compared with published figures; its checkpoint's own names (fused
// wqkv, 0-based norms, INT4 experts) matched tensor by tensor.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "analysis/parameter_counts.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// moonshotai/Kimi-K2.5's config.json, its shape-bearing keys: a "kimi_k2" text model (DeepSeek-V3's layout,
// 384 experts, one dense layer) and a vision_config in Moonshot's spelling, which transformers does not read.
constexpr const char* kKimiK25 = R"({"model_type":"kimi_k25","tie_word_embeddings":false,
    "text_config":{"model_type":"kimi_k2","vocab_size":163840,"hidden_size":7168,"intermediate_size":18432,
      "moe_intermediate_size":2048,"num_hidden_layers":61,"num_attention_heads":64,"num_key_value_heads":64,
      "n_routed_experts":384,"n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":1,
      "moe_layer_freq":1,"q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
      "v_head_dim":128,"num_nextn_predict_layers":0,"tie_word_embeddings":false,"torch_dtype":"bfloat16"},
    "vision_config":{"patch_size":14,"merge_kernel_size":[2,2],"vt_hidden_size":1152,"vt_num_hidden_layers":27,
      "vt_num_attention_heads":16,"vt_intermediate_size":4304,"init_pos_emb_height":64,"init_pos_emb_width":64,
      "init_pos_emb_time":4,"mm_hidden_size":1152,"text_hidden_size":7168}})";

uint64_t parameters_under(const ModelTemplate& t, const std::string& prefix) {
  uint64_t n = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.stored && x.name.starts_with(prefix)) n += numel(x.shape);
  return n;
}

// NVIDIA's model page: "Active parameters 32.86B", "Total parameters 1T". A published dump of the checkpoint
// and the vision-only extraction Drifter4242/Kimi-K2.5-vision (329 vision_tower and 6 mm_projector tensors,
// ~899 MB in bf16) agree with the tower and projector counted here.
TEST(KimiK25, CountsAsItsConfigAndItsPublishedFigures) {
  const ModelTemplate t = template_of(kKimiK25);
  EXPECT_EQ(t.arch.architecture, "Kimi_K25ForConditionalGeneration");
  EXPECT_EQ(parameters_of(kKimiK25), 1'026'879'353'328u);
  EXPECT_EQ(parameters_under(t, "model.vision_tower."), 416'866'032u);
  EXPECT_EQ(parameters_under(t, "model.mm_projector."), 54'277'888u);
  EXPECT_EQ(2 * (parameters_under(t, "model.vision_tower.") + parameters_under(t, "model.mm_projector.")),
            942'287'840u);  // bytes in bf16: ~899 MiB
  const ParameterCounts c = counts_of(kKimiK25);
  ASSERT_TRUE(c.active);
  EXPECT_EQ(*c.active, 32'861'477'888u);  // the language model and head; no text token runs the towers
  EXPECT_EQ(find_tensor(t, "model.vision_tower.patch_embed.pos_emb.position_embeddings")->shape,
            (Shape{64, 64, 1152}));
  EXPECT_EQ(find_tensor(t, "model.mm_projector.pre_norm.weight")->shape, (Shape{1152}));
  EXPECT_EQ(find_tensor(t, "model.mm_projector.in_proj.weight")->shape, (Shape{4608, 4608}));
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.1.mlp.experts.gate_up_proj")->shape,
            (Shape{384, 4096, 7168}));
  EXPECT_NE(find_tensor(t, "model.language_model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(t.arch.model_type, "deepseek_v3");

  // Kimi_K25Config's defaults: DeepSeek-V3's language model, the head tied (only the top-level flag ties).
  EXPECT_EQ(parameters_of(R"({"model_type":"kimi_k25"})"), 670'570'869'232u);
  EXPECT_THROW(template_of(R"({"model_type":"kimi_k25","text_config":{"model_type":"llama"}})"), Error);
  // Sides beyond any dimension a config may give, or whose product with the width passes 64 bits: the
  // product would wrap (2^32 x 2^32 to 0).
  for (const char* bad : {R"({"merge_kernel_size":[4294967296,4294967296]})", R"({"merge_kernel_size":[2]})",
                          R"({"merge_kernel_size":[67108864,67108864],"hidden_size":67108864})",
                          R"({"patch_size":[14,0]})", R"({"patch_size":[1099511627776,14]})"})
    EXPECT_THROW(template_of(std::string(R"({"model_type":"kimi_k25","vision_config":)") + bad + "}"), Error)
        << bad;
}

// From config.json alone, the checkpoint's names: its 208,550 tensors are 207,360 expert pieces (60 routed
// layers x 384 experts x 9 INT4 tensors) and 1,190 others, which the template lists one for one.
TEST(KimiK25, ConfigAlonePredictsTheCheckpointsOtherTensors) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << kKimiK25;
  const Inventory inv = build_inventory(locate_local_model((dir.path() / "config.json").string()));
  size_t others = 0, vision = 0, projector = 0;
  for (const InventoryTensor& x : inv.tensors) {
    if (!x.stored || x.routed_expert) continue;
    ++others;
    vision += x.name.starts_with("vision_tower.");
    projector += x.name.starts_with("mm_projector.");
  }
  EXPECT_EQ(others, 1'190u);
  EXPECT_EQ(vision, 329u);
  EXPECT_EQ(projector, 6u);
}

// A small Kimi-K2.5 stored as Moonshot stores it: every tensor matches, the fused wqkv holding q, k and v,
// the INT4 experts their packed weights, scales and shapes.
TEST(KimiK25, MoonshotNamesMatchTensorByTensor) {
  constexpr uint64_t kV = 64, kH = 64, kI = 96, kIm = 32, kE = 4, kVis = 32, kVisI = 48, kHeads = 4;
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << R"({"model_type":"kimi_k25","tie_word_embeddings":false,
      "projection_hidden_size":32,
      "text_config":{"model_type":"kimi_k2","vocab_size":64,"hidden_size":64,"intermediate_size":96,
        "moe_intermediate_size":32,"num_hidden_layers":2,"num_attention_heads":4,"n_routed_experts":4,
        "n_shared_experts":1,"num_experts_per_tok":2,"first_k_dense_replace":1,"q_lora_rank":32,
        "kv_lora_rank":16,"qk_nope_head_dim":16,"qk_rope_head_dim":8,"v_head_dim":16,
        "num_nextn_predict_layers":0},
      "vision_config":{"hidden_size":32,"intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":2,
        "patch_size":14,"pos_emb_height":8,"pos_emb_width":8,"merge_kernel_size":[2,2]},
      "quantization_config":{"quant_method":"compressed-tensors","format":"pack-quantized",
        "config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int",
        "strategy":"group","group_size":32,"symmetric":true}}},
        "ignore":["lm_head","re:.*self_attn.*","re:.*shared_experts.*","re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]}})";
  std::vector<TensorToWrite> s;
  auto add = [&](const std::string& name, DType d, Shape shape) {
    s.push_back({name, d, std::move(shape), {}});
  };
  const std::string lm = "language_model.model.";
  add(lm + "embed_tokens.weight", DType::BF16, {kV, kH});
  add(lm + "norm.weight", DType::BF16, {kH});
  add("language_model.lm_head.weight", DType::BF16, {kV, kH});
  for (int l = 0; l < 2; ++l) {
    const std::string p = lm + "layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", DType::BF16, {kH});
    add(p + "post_attention_layernorm.weight", DType::BF16, {kH});
    add(p + "self_attn.q_a_proj.weight", DType::BF16, {32, kH});
    add(p + "self_attn.q_a_layernorm.weight", DType::BF16, {32});
    add(p + "self_attn.q_b_proj.weight", DType::BF16, {kHeads * 24, 32});
    add(p + "self_attn.kv_a_proj_with_mqa.weight", DType::BF16, {16 + 8, kH});
    add(p + "self_attn.kv_a_layernorm.weight", DType::BF16, {16});
    add(p + "self_attn.kv_b_proj.weight", DType::BF16, {kHeads * 32, 16});
    add(p + "self_attn.o_proj.weight", DType::BF16, {kH, kHeads * 16});
    if (l == 0) {
      add(p + "mlp.gate_proj.weight", DType::BF16, {kI, kH});
      add(p + "mlp.up_proj.weight", DType::BF16, {kI, kH});
      add(p + "mlp.down_proj.weight", DType::BF16, {kH, kI});
      continue;
    }
    add(p + "mlp.gate.weight", DType::BF16, {kE, kH});
    add(p + "mlp.gate.e_score_correction_bias", DType::F32, {kE});
    add(p + "mlp.shared_experts.gate_proj.weight", DType::BF16, {kIm, kH});
    add(p + "mlp.shared_experts.up_proj.weight", DType::BF16, {kIm, kH});
    add(p + "mlp.shared_experts.down_proj.weight", DType::BF16, {kH, kIm});
    for (uint64_t e = 0; e < kE; ++e)
      for (const auto& [proj, out, in] : {std::tuple{"gate_proj", kIm, kH}, std::tuple{"up_proj", kIm, kH},
                                          std::tuple{"down_proj", kH, kIm}}) {
        const std::string x = p + "mlp.experts." + std::to_string(e) + "." + proj + ".";
        add(x + "weight_packed", DType::I32, {out, in / 8});
        add(x + "weight_scale", DType::BF16, {out, in / 32});
        add(x + "weight_shape", DType::I32, {2});
      }
  }
  add("vision_tower.patch_embed.proj.weight", DType::BF16, {kVis, 3, 14, 14});
  add("vision_tower.patch_embed.proj.bias", DType::BF16, {kVis});
  add("vision_tower.patch_embed.pos_emb.weight", DType::BF16, {8, 8, kVis});
  for (int b = 0; b < 2; ++b) {
    const std::string p = "vision_tower.encoder.blocks." + std::to_string(b) + ".";
    for (const char* n : {"norm0", "norm1"}) {
      add(p + n + ".weight", DType::BF16, {kVis});
      add(p + n + ".bias", DType::BF16, {kVis});
    }
    add(p + "wqkv.weight", DType::BF16, {3 * kVis, kVis});
    add(p + "wqkv.bias", DType::BF16, {3 * kVis});
    add(p + "wo.weight", DType::BF16, {kVis, kVis});
    add(p + "wo.bias", DType::BF16, {kVis});
    add(p + "mlp.fc0.weight", DType::BF16, {kVisI, kVis});
    add(p + "mlp.fc0.bias", DType::BF16, {kVisI});
    add(p + "mlp.fc1.weight", DType::BF16, {kVis, kVisI});
    add(p + "mlp.fc1.bias", DType::BF16, {kVis});
  }
  add("vision_tower.encoder.final_layernorm.weight", DType::BF16, {kVis});
  add("vision_tower.encoder.final_layernorm.bias", DType::BF16, {kVis});
  add("mm_projector.pre_norm.weight", DType::BF16, {kVis});
  add("mm_projector.pre_norm.bias", DType::BF16, {kVis});
  add("mm_projector.proj.0.weight", DType::BF16, {4 * kVis, 4 * kVis});
  add("mm_projector.proj.0.bias", DType::BF16, {4 * kVis});
  add("mm_projector.proj.2.weight", DType::BF16, {kH, 4 * kVis});
  add("mm_projector.proj.2.bias", DType::BF16, {kH});
  write_safetensors(dir.path() / "model.safetensors", s);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(inv.tensors.size(), s.size());
  size_t experts = 0;
  for (const InventoryTensor& x : inv.tensors) {
    if (x.name.ends_with(".weight_packed")) {
      ++experts;
      EXPECT_TRUE(x.routed_expert) << x.name;
    }
    if (x.name.ends_with("wqkv.weight")) {
      EXPECT_EQ(x.kind, TensorKind::Parameter);
    }
  }
  EXPECT_EQ(experts, kE * 3);
}

}  // namespace
}  // namespace ma::test

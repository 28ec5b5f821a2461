// DeepSeek-V4's checkpoints in DeepSeek's own form (model/families/deepseek_v4_checkpoint.h): names, FP8
// scales and FP4 experts as deepseek-ai/DeepSeek-V4-Flash's model.safetensors.index.json and headers list
// them, matched tensor by tensor against the template transformers' conversion mapping loads them into.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "analysis/parameter_counts.h"
#include "analysis/quantization.h"
#include "analysis/report_inputs.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// A small V4 in DeepSeek's config form: layer 0 sliding and hash-routed, 1 CSA, 2 HCA; the fourth ratio is
// the multi-token-prediction stage's. FP8 linears in 128 x 128 blocks with E8M0 scales, FP4 experts.
constexpr uint64_t kH = 64, kHeads = 4, kHeadDim = 32, kQRank = 48, kGroups = 2, kORank = 16, kIndexHeads = 2,
                   kIndexDim = 16, kExperts = 4, kTopK = 2, kInter = 32, kHc = 2, kVocab = 160;

std::string tiny_config(const std::string& layers_key) {
  return R"({"model_type":"deepseek_v4","hidden_size":64,"num_attention_heads":4,"head_dim":32,
      "q_lora_rank":48,"o_groups":2,"o_lora_rank":16,"index_n_heads":2,"index_head_dim":16,
      "n_routed_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":32,"hc_mult":2,
      "vocab_size":160,"num_hidden_layers":3,"num_hash_layers":1,"torch_dtype":"bfloat16",
      "expert_dtype":"fp4","quantization_config":{"quant_method":"fp8","fmt":"e4m3","scale_fmt":"ue8m0",
      "weight_block_size":[128,128],"activation_scheme":"dynamic"},)" +
         layers_key + "}";
}

const std::string kUpstreamLayers = R"("compress_ratios":[0,4,128,0])";
const std::string kTransformersLayers =
    R"("layer_types":["sliding_attention","compressed_sparse_attention","heavily_compressed_attention"])";

// The tensors of the tiny model as DeepSeek stores them, spelled out from the official index's naming (one
// layer per shard there): per layer 13 attention, 2 norm, 6 hyper-connection, 2 router, 6 shared-expert and
// 6 per routed expert tensors, plus 4 for an HCA compressor or 11 for CSA's compressor and indexer.
std::vector<TensorToWrite> upstream_tensors() {
  std::vector<TensorToWrite> t;
  auto add = [&](const std::string& name, DType d, Shape s) { t.push_back({name, d, std::move(s), {}}); };
  auto fp8 = [&](const std::string& module, uint64_t rows, uint64_t cols) {
    add(module + ".weight", DType::F8_E4M3, {rows, cols});
    add(module + ".scale", DType::F8_E8M0, {(rows + 127) / 128, (cols + 127) / 128});
  };
  const uint64_t mix = (2 + kHc) * kHc;
  add("embed.weight", DType::BF16, {kVocab, kH});
  for (int i = 0; i < 3; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    add(p + "attn_norm.weight", DType::BF16, {kH});
    add(p + "ffn_norm.weight", DType::BF16, {kH});
    for (const char* hc : {"hc_attn_", "hc_ffn_"}) {
      add(p + hc + "fn", DType::F32, {mix, kHc * kH});
      add(p + hc + "base", DType::F32, {mix});
      add(p + hc + "scale", DType::F32, {3});
    }
    fp8(p + "attn.wq_a", kQRank, kH);
    add(p + "attn.q_norm.weight", DType::BF16, {kQRank});
    fp8(p + "attn.wq_b", kHeads * kHeadDim, kQRank);
    fp8(p + "attn.wkv", kHeadDim, kH);
    add(p + "attn.kv_norm.weight", DType::BF16, {kHeadDim});
    fp8(p + "attn.wo_a", kGroups * kORank, kHeads * kHeadDim / kGroups);
    fp8(p + "attn.wo_b", kH, kGroups * kORank);
    add(p + "attn.attn_sink", DType::F32, {kHeads});
    if (i == 1) {  // CSA: overlapping windows (twice head_dim), and the Lightning Indexer
      add(p + "attn.compressor.wkv.weight", DType::BF16, {2 * kHeadDim, kH});
      add(p + "attn.compressor.wgate.weight", DType::BF16, {2 * kHeadDim, kH});
      add(p + "attn.compressor.ape", DType::F32, {4, 2 * kHeadDim});
      add(p + "attn.compressor.norm.weight", DType::BF16, {kHeadDim});
      fp8(p + "attn.indexer.wq_b", kIndexHeads * kIndexDim, kQRank);
      add(p + "attn.indexer.weights_proj.weight", DType::BF16, {kIndexHeads, kH});
      add(p + "attn.indexer.compressor.wkv.weight", DType::BF16, {2 * kIndexDim, kH});
      add(p + "attn.indexer.compressor.wgate.weight", DType::BF16, {2 * kIndexDim, kH});
      add(p + "attn.indexer.compressor.ape", DType::F32, {4, 2 * kIndexDim});
      add(p + "attn.indexer.compressor.norm.weight", DType::BF16, {kIndexDim});
    } else if (i == 2) {  // HCA: 128 tokens into one entry
      add(p + "attn.compressor.wkv.weight", DType::BF16, {kHeadDim, kH});
      add(p + "attn.compressor.wgate.weight", DType::BF16, {kHeadDim, kH});
      add(p + "attn.compressor.ape", DType::F32, {128, kHeadDim});
      add(p + "attn.compressor.norm.weight", DType::BF16, {kHeadDim});
    }
    add(p + "ffn.gate.weight", DType::BF16, {kExperts, kH});
    if (i == 0)
      add(p + "ffn.gate.tid2eid", DType::I64, {kVocab, kTopK});
    else
      add(p + "ffn.gate.bias", DType::F32, {kExperts});
    for (uint64_t e = 0; e < kExperts; ++e) {  // MXFP4: two values a byte, one E8M0 scale per 32
      const std::string x = p + "ffn.experts." + std::to_string(e) + ".";
      add(x + "w1.weight", DType::I8, {kInter, kH / 2});
      add(x + "w1.scale", DType::F8_E8M0, {kInter, kH / 32});
      add(x + "w2.weight", DType::I8, {kH, kInter / 2});
      add(x + "w2.scale", DType::F8_E8M0, {kH, kInter / 32});
      add(x + "w3.weight", DType::I8, {kInter, kH / 2});
      add(x + "w3.scale", DType::F8_E8M0, {kInter, kH / 32});
    }
    fp8(p + "ffn.shared_experts.w1", kInter, kH);
    fp8(p + "ffn.shared_experts.w2", kH, kInter);
    fp8(p + "ffn.shared_experts.w3", kInter, kH);
  }
  add("norm.weight", DType::BF16, {kH});
  add("head.weight", DType::BF16, {kVocab, kH});
  add("hc_head_fn", DType::F32, {kHc, kHc * kH});
  add("hc_head_base", DType::F32, {kHc});
  add("hc_head_scale", DType::F32, {1});
  add("mtp.0.enorm.weight", DType::BF16, {kH});  // a multi-token-prediction stage transformers skips
  return t;
}

TEST(DeepSeekV4Checkpoint, EveryUpstreamTensorMatchesTheModuleItLoadsInto) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << tiny_config(kUpstreamLayers);
  const std::vector<TensorToWrite> stored = upstream_tensors();
  write_safetensors(dir.path() / "model.safetensors", stored);
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  ASSERT_EQ(inv.tensors.size(), stored.size());

  std::map<std::string, const InventoryTensor*> rows;
  for (const InventoryTensor& x : inv.tensors) rows[x.name] = &x;
  size_t scales = 0;
  for (const TensorToWrite& s : stored) {
    SCOPED_TRACE(s.name);
    const InventoryTensor& x = *rows.at(s.name);
    const bool scale = s.name.ends_with(".scale");
    scales += scale;
    const TensorKind kind = scale                        ? TensorKind::QuantizationScale
                            : s.name.starts_with("mtp.") ? TensorKind::Extra
                            : s.name.ends_with(".gate.tid2eid") || s.name.ends_with(".gate.bias")
                                ? TensorKind::Buffer
                                : TensorKind::Parameter;
    EXPECT_EQ(x.kind, kind);
  }
  EXPECT_EQ(scales, 3u * 5 + 1 + 3u * 3 + 3u * kExperts * 3);
  // The same model under transformers' names counts the same parameters: the FP4 experts count their
  // values, not their bytes.
  EXPECT_EQ(count_parameters(inv).total, parameters_of(tiny_config(kTransformersLayers)));
  const InventoryTensor& w1 = *rows.at("layers.1.ffn.experts.3.w1.weight");
  EXPECT_TRUE(w1.routed_expert);
  EXPECT_EQ(w1.placement.layer, 1u);
  EXPECT_EQ(rows.at("layers.2.attn.wq_a.weight")->placement.layer, 2u);
}

// From config.json alone (a dry run, or a Hub index without headers), the template predicts the stored form:
// every name with the dtype and shape its header gives.
TEST(DeepSeekV4Checkpoint, ConfigAlonePredictsEveryStoredDtypeAndShape) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << tiny_config(kUpstreamLayers);
  const Inventory inv = build_inventory(locate_local_model((dir.path() / "config.json").string()));
  std::map<std::string, const InventoryTensor*> rows;
  for (const InventoryTensor& x : inv.tensors) rows[x.name] = &x;
  size_t predicted = 0;
  for (const TensorToWrite& s : upstream_tensors()) {
    if (s.name.starts_with("mtp.")) continue;
    SCOPED_TRACE(s.name);
    ASSERT_TRUE(rows.contains(s.name));
    EXPECT_EQ(rows.at(s.name)->dtype, s.dtype);
    EXPECT_EQ(rows.at(s.name)->shape, s.shape);
    ++predicted;
  }
  EXPECT_EQ(inv.tensors.size(), predicted);
}

// transformers' own names when its config form says so (layer_types, as its save_pretrained writes).
TEST(DeepSeekV4Checkpoint, TransformersFormKeepsTransformersNames) {
  const ModelTemplate t = template_of(tiny_config(kTransformersLayers));
  const TemplateTensor* wq_a = find_tensor(t, "model.layers.0.self_attn.q_a_proj.weight");
  ASSERT_NE(wq_a, nullptr);
  EXPECT_TRUE(wq_a->disk.empty());
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.experts.gate_up_proj")->per_expert->prefix,
            "model.layers.0.mlp.experts");
}

// deepseek-ai/DeepSeek-V4-Flash: its config.json (2 sliding layers, then CSA and HCA alternating; three
// hash-routed layers). Its index lists 72,317 tensors, 4,705 of them the MTP stages': 67,612 for the model,
// in shards 1-45 whose files hold 156,023,192,948 bytes, headers included (a header entry takes 60 to 160
// bytes: a name, a dtype, a shape and two offsets).
TEST(DeepSeekV4Checkpoint, FlashConfigPredictsItsOfficialIndex) {
  std::string ratios = "0,0";
  for (int i = 2; i < 43; ++i) ratios += i % 2 == 0 ? ",4" : ",128";
  ratios += ",0";
  const TempDir dir;
  std::ofstream(dir.path() / "config.json")
      << R"({"model_type":"deepseek_v4","hidden_size":4096,"head_dim":512,"index_head_dim":128,
      "index_n_heads":64,"moe_intermediate_size":2048,"n_routed_experts":256,"num_attention_heads":64,
      "num_experts_per_tok":6,"num_hidden_layers":43,"num_hash_layers":3,"o_groups":8,"o_lora_rank":1024,
      "q_lora_rank":1024,"vocab_size":129280,"sliding_window":128,"hc_mult":4,"n_shared_experts":1,
      "num_key_value_heads":1,"torch_dtype":"bfloat16","expert_dtype":"fp4",
      "quantization_config":{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8",
      "scale_fmt":"ue8m0","weight_block_size":[128,128]},"compress_ratios":[)"
      << ratios << "]}";
  const LocalModelFiles files = locate_local_model((dir.path() / "config.json").string());
  const Inventory inv = build_inventory(files);
  uint64_t stored = 0, bytes = 0;
  for (const InventoryTensor& x : inv.tensors) {
    stored += x.stored;
    bytes += x.bytes;
  }
  EXPECT_EQ(stored, 67'612u);
  constexpr uint64_t kFiles = 156'023'192'948;
  EXPECT_LT(bytes, kFiles - stored * 60);
  EXPECT_GT(bytes, kFiles - stored * 160);
  const ParameterCounts params = count_parameters(inv);
  EXPECT_EQ(params.total, 284'332'230'231u);
  // The memory section's "weights as stored" is that sum: the template's dtypes are facts, which the fp8
  // method's pricing leaves as they are (it would make the BF16 embedding and compressors FP8).
  const std::optional<TokenizerInfo> tokenizer;
  const ReportOptions options;
  const QuantizationInfo q = analyze_quantization({inv, files, params, tokenizer, options});
  EXPECT_EQ(q.stored_bytes, bytes);
  EXPECT_EQ(q.stored_from, "template");
}

}  // namespace
}  // namespace ma::test

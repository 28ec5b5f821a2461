// A GGUF file as a model: located (single file, split parts, a directory), inventoried with llama.cpp's
// names placed like Hugging Face ones, and its architecture record filled from the "{arch}.*" metadata.
#include <gtest/gtest.h>

#include <chrono>

#include "analysis/memory_kv.h"
#include "analysis/parameter_counts.h"
#include "analysis/ssm_summary.h"
#include "analyzed_model.h"
#include "core/error.h"
#include "formats/gguf_tokenizer.h"
#include "formats/model_files.h"
#include "gguf_test_models.h"
#include "io/byte_source.h"
#include "model/gguf_record.h"
#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "test_support.h"

namespace ma {
namespace {

using test::inventory_of;

TEST(GgufModel, NamesPlacedLikeTheirHuggingFaceCounterparts) {
  const std::pair<const char*, const char*> pairs[] = {
      {"blk.3.attn_q.weight", "model.layers.3.self_attn.q_proj.weight"},
      {"blk.3.attn_k.weight", "model.layers.3.self_attn.k_proj.weight"},
      {"blk.3.attn_output.weight", "model.layers.3.self_attn.o_proj.weight"},
      {"blk.3.ffn_gate.weight", "model.layers.3.mlp.gate_proj.weight"},
      {"blk.3.ffn_down.weight", "model.layers.3.mlp.down_proj.weight"},
      {"blk.3.attn_norm.weight", "model.layers.3.input_layernorm.weight"},
      {"blk.3.ffn_gate_inp.weight", "model.layers.3.mlp.gate.weight"},
      {"blk.3.ffn_up_exps.weight", "model.layers.3.mlp.experts.0.up_proj.weight"},
      {"blk.3.ffn_down_shexp.weight", "model.layers.3.mlp.shared_experts.down_proj.weight"},
      {"blk.3.ssm_in.weight", "backbone.layers.3.mixer.in_proj.weight"},
      {"blk.3.attn_q_norm.weight", "model.layers.3.self_attn.q_norm.weight"},
      {"token_embd.weight", "model.embed_tokens.weight"},
      {"output_norm.weight", "model.norm.weight"},
      {"output.weight", "lm_head.weight"},
  };
  for (const auto& [gguf, hf] : pairs) {
    const TensorPlacement g = place_tensor(gguf), h = place_tensor(hf);
    EXPECT_EQ(block_name(g.block), block_name(h.block)) << gguf << " vs " << hf;
    EXPECT_EQ(g.role, h.role) << gguf << " vs " << hf;
    EXPECT_EQ(g.layer, h.layer) << gguf;
  }
  EXPECT_EQ(std::string(place_tensor("blk.3.attn_q.weight").layer ? "blk" : ""), "blk");
  EXPECT_EQ(place_tensor("blk.3.attn_q.weight").stack_length, 3u);
  EXPECT_EQ(place_tensor("dec.blk.1.cross_attn_k.weight").block, Block::CrossAttention);
  EXPECT_EQ(place_tensor("dec.blk.1.cross_attn_k.weight").stack_length, 7u);
}

TEST(GgufModel, TinyLlamaInventoryAndRecord) {
  test::TempDir dir;
  const test::TinyGguf m{.matrix_type = DType::Q8_0};
  test::write_tiny_gguf(dir / "tiny.Q8_0.gguf", m);
  const Inventory inv = inventory_of(dir / "tiny.Q8_0.gguf");
  ASSERT_TRUE(inv.checkpoint);
  EXPECT_EQ(inv.checkpoint->format, "gguf");
  EXPECT_TRUE(inv.checkpoint->headers_read);
  // A quantized matrix holds as many parameters as its shape says, whatever its type.
  const ParameterCounts p = count_parameters(inv);
  EXPECT_EQ(p.total, test::tiny_gguf_parameters(m));
  EXPECT_EQ(inv.checkpoint->parameters, test::tiny_gguf_parameters(m));
  // Q8_0 matrices: 34 bytes per 32 elements; the F32 norms and embeddings 4 bytes each.
  const uint64_t h = 64, matrices = 2 * (64 * 64 * 2 + 2 * 32 * 64 + 3 * 128 * 64) + 100 * 64;
  EXPECT_EQ(inv.checkpoint->bytes, matrices / 32 * 34 + (100 * 64 + 5 * h) * 4);

  const ArchitectureRecord& a = inv.arch;
  EXPECT_EQ(a.model_type, "llama");
  EXPECT_EQ(a.architecture, "LlamaForCausalLM");
  EXPECT_EQ(a.hidden_size, 64u);
  EXPECT_EQ(a.num_layers, 2u);
  EXPECT_EQ(a.vocab_size, 100u);
  EXPECT_EQ(a.num_attention_heads, 4u);
  EXPECT_EQ(a.num_key_value_heads, 2u);
  EXPECT_EQ(a.head_dim, 16u);
  EXPECT_EQ(a.max_position_embeddings, 2048u);
  EXPECT_FALSE(a.tie_word_embeddings);
  EXPECT_EQ(a.norm, NormKind::RmsNorm);
  ASSERT_TRUE(a.rope);
  EXPECT_EQ(a.rope->theta, 500000.0);
  ASSERT_EQ(a.layers().size(), 2u);
  const LayerSpec& l = a.layers()[1];
  EXPECT_EQ(l.mixer, Mixer::Attention);
  EXPECT_EQ(l.attention.kind, AttentionKind::Gqa);
  EXPECT_EQ(l.attention.kv_heads, 2u);
  EXPECT_EQ(l.ffn.kind, Ffn::Dense);
  EXPECT_TRUE(l.ffn.gated);
  EXPECT_EQ(l.ffn.intermediate, 128u);
}

TEST(GgufModel, TiedOutputWhenTheFileHasNone) {
  test::TempDir dir;
  const test::TinyGguf m{.tied = true};
  test::write_tiny_gguf(dir / "m.gguf", m);
  const Inventory inv = inventory_of(dir / "m.gguf");
  EXPECT_TRUE(inv.arch.tie_word_embeddings);
  EXPECT_EQ(count_parameters(inv).total, test::tiny_gguf_parameters(m));
}

// ggml keeps a tensor name in 64 bytes with its terminator: a name of 64 bytes or more is read, with a
// warning that llama.cpp refuses the file; 63 bytes pass without one.
TEST(GgufModel, ANameLlamaCppCannotHoldIsWarnedAbout) {
  test::TempDir dir;
  const test::TinyGguf m;
  for (const size_t length : {63, 64}) {
    std::vector<TensorToWrite> tensors = test::tiny_gguf_tensors(m);
    tensors.push_back({std::string(length, 'n'), DType::F32, {4}, {}});
    write_gguf(dir / "m.gguf", test::tiny_gguf_metadata(m), tensors);
    const Inventory inv = inventory_of(dir / "m.gguf");
    bool warned = false;
    for (const std::string& w : inv.warnings)
      warned = warned || w.find("llama.cpp refuses to load") != std::string::npos;
    EXPECT_EQ(warned, length >= 64) << length;
  }
}

// Head counts no model can have are refused as config.json's are (exit 3), not reported as an attention of
// "unknown" heads or a KV cache of 0 bytes.
TEST(GgufModel, HeadCountsNoModelCanHaveAreMalformed) {
  test::TempDir dir;
  const test::TinyGguf m;  // 4 heads, 2 KV heads
  const std::pair<std::string, uint32_t> cases[] = {{"llama.attention.head_count", 0},
                                                    {"llama.attention.head_count_kv", 0},
                                                    {"llama.attention.head_count_kv", 3}};
  for (const auto& [key, value] : cases) {
    std::vector<GgufValueToWrite> kv = test::tiny_gguf_metadata(m);
    for (GgufValueToWrite& v : kv)
      if (v.key == key) v = gguf_u32(key, value);
    write_gguf(dir / "m.gguf", kv, test::tiny_gguf_tensors(m));
    try {
      inventory_of(dir / "m.gguf");
      ADD_FAILURE() << key << " = " << value << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Malformed) << e.message();
      EXPECT_NE(e.message().find(key + " (layer 0)"), std::string::npos) << e.message();
    }
  }
}

// The tiny Llama's metadata with `v` in place of the entry of its key (or added).
std::vector<GgufValueToWrite> with(std::vector<GgufValueToWrite> kv, const GgufValueToWrite& v) {
  const auto it =
      std::find_if(kv.begin(), kv.end(), [&](const GgufValueToWrite& e) { return e.key == v.key; });
  if (it != kv.end())
    *it = v;
  else
    kv.push_back(v);
  return kv;
}

// The error reading a tiny two-layer Llama whose metadata holds `v`: "" when the file is read.
std::string error_reading(const GgufValueToWrite& v, ErrorKind* kind = nullptr) {
  test::TempDir dir;
  const test::TinyGguf m;
  write_gguf(dir / "m.gguf", with(test::tiny_gguf_metadata(m), v), test::tiny_gguf_tensors(m));
  try {
    inventory_of(dir / "m.gguf");
  } catch (const Error& e) {
    if (kind) *kind = e.kind();
    return e.message();
  }
  return "";
}

// llama.cpp reads head_count, head_count_kv and feed_forward_length as one value or an array of exactly
// block_count entries (get_key_or_arr), and refuses another length: a shorter array is not "the rest take
// head_count" (2 KV heads in layer 0 and 4 in layer 1 made the cache 768 bytes a token, not 512).
TEST(GgufModel, APerLayerArrayMustHoldOneEntryPerLayer) {
  const std::pair<GgufValueToWrite, std::string> cases[] = {
      {gguf_u32_array("llama.attention.head_count_kv", {2}),
       "an array of 1 entries for block_count 2 layers"},
      {gguf_u32_array("llama.attention.head_count_kv", {2, 2, 2, 2, 2}),
       "an array of 5 entries for block_count 2 layers"},
      {gguf_u32_array("llama.attention.head_count", {4}), "an array of 1 entries for block_count 2 layers"},
      {gguf_u32_array("llama.feed_forward_length", {128, 128, 128}),
       "an array of 3 entries for block_count 2 layers"},
  };
  for (const auto& [value, rule] : cases) {
    ErrorKind kind = ErrorKind::Internal;
    const std::string what = error_reading(value, &kind);
    EXPECT_EQ(kind, ErrorKind::Malformed) << value.key << ": " << what;
    EXPECT_NE(what.find(value.key), std::string::npos) << what;
    EXPECT_NE(what.find(rule), std::string::npos) << what;
  }
  // One entry per layer is read, each layer its own.
  EXPECT_EQ(error_reading(gguf_u32_array("llama.attention.head_count_kv", {2, 4})), "");
  test::TempDir dir;
  write_gguf(dir / "m.gguf",
             with(test::tiny_gguf_metadata({}), gguf_u32_array("llama.attention.head_count_kv", {2, 4})),
             test::tiny_gguf_tensors({}));
  const Inventory inv = inventory_of(dir / "m.gguf");
  EXPECT_EQ(inv.arch.layers()[0].attention.kv_heads, 2u);
  EXPECT_EQ(inv.arch.layers()[1].attention.kv_heads, 4u);
}

// DeepSeek's files count the multi-token-prediction layers in block_count, and their per-layer arrays hold
// one entry for those too: such a file is read, the MTP layer still split off.
TEST(GgufModel, PerLayerArraysCountTheNextnLayers) {
  test::TempDir dir;
  const test::TinyGguf m{.arch = "deepseek2", .layers = 3};
  auto kv = with(test::tiny_gguf_metadata(m), gguf_u32_array("deepseek2.attention.head_count_kv", {2, 2, 2}));
  kv.push_back(gguf_u32_array("deepseek2.feed_forward_length", {128, 128, 128}));
  kv.erase(
      std::find_if(kv.begin(), kv.end(), [](auto& v) { return v.key == "deepseek2.feed_forward_length"; }));
  kv.push_back(gguf_u32("deepseek2.nextn_predict_layers", 1));
  write_gguf(dir / "d.gguf", kv, test::tiny_gguf_tensors(m));
  const Inventory inv = inventory_of(dir / "d.gguf");
  EXPECT_EQ(inv.arch.num_layers, 2u);
  EXPECT_EQ(inv.arch.layers()[1].attention.kv_heads, 2u);
  EXPECT_EQ(inv.arch.layers()[1].ffn.intermediate, 128u);
  ASSERT_NE(inv.arch.stack(StackRole::Mtp), nullptr);
}

// An architecture key that is present but holds the wrong type, a negative number, a size of 0 where one is
// needed, or a dimension no model has is refused naming it (exit 3), not read as absent: a string head
// count, a negative KV head count or a key_length of 0 gave a default in its place (a KV cache of 0 bytes
// that "fits"), and an embedding_length of 2^63 - 1 an overflow that named neither file nor key.
TEST(GgufModel, ArchitectureKeysOfTheWrongTypeOrSizeAreMalformed) {
  const GgufValueToWrite cases[] = {
      gguf_i32("llama.attention.head_count", -4),
      gguf_string("llama.attention.head_count", "4"),
      gguf_i32_array("llama.attention.head_count", {-1, 4}),
      gguf_i32("llama.attention.head_count_kv", -2),
      gguf_string_array("llama.attention.head_count_kv", {"2", "2"}),
      gguf_string("llama.block_count", "2"),
      gguf_u32_array("llama.block_count", {2, 2}),
      gguf_u32("llama.block_count", 0),
      gguf_string("llama.context_length", "2048"),
      gguf_u32("llama.embedding_length", 0),
      gguf_f32("llama.embedding_length", 64.0f),
      gguf_u32("llama.attention.key_length", 0),
      gguf_u32("llama.attention.value_length", 0),
      gguf_u64("llama.embedding_length", (1ull << 63) - 1),
      gguf_u64("llama.attention.key_length", 1ull << 62),
      gguf_u64("llama.attention.head_count", 1ull << 63),
      gguf_u32("llama.feed_forward_length", (1u << 26) + 1),
      gguf_u32_array("llama.feed_forward_length", {128, 1u << 30}),
      gguf_u64("llama.vocab_size", 1ull << 63),
  };
  for (const GgufValueToWrite& value : cases) {
    ErrorKind kind = ErrorKind::Internal;
    const std::string what = error_reading(value, &kind);
    EXPECT_EQ(kind, ErrorKind::Malformed) << value.key << ": " << what;
    EXPECT_NE(what.find("m.gguf"), std::string::npos) << what;
    EXPECT_NE(what.find(value.key), std::string::npos) << what;
  }
  // The same keys holding what they should are read (any integer type llama.cpp's converters write).
  EXPECT_EQ(error_reading(gguf_u64("llama.embedding_length", 64)), "");
  EXPECT_EQ(error_reading(gguf_i32("llama.attention.head_count", 4)), "");
  EXPECT_EQ(error_reading(gguf_u32("llama.attention.key_length", 16)), "");
}

// Per-layer arrays are decoded once per record, not once per layer: a file of 1,000 layers whose
// block_count (300,000) and arrays say more than its tensors hold took seconds (O(layers x entries)); read
// once it is milliseconds. The bound is loose (sanitizer builds) and far below the quadratic time.
TEST(GgufModel, PerLayerArraysAreDecodedOncePerRecord) {
  test::TempDir dir;
  constexpr uint32_t kLayers = 1000, kEntries = 300000;
  std::vector<GgufValueToWrite> kv = {
      gguf_string("general.architecture", "llama"),
      gguf_u32("llama.block_count", kEntries),
      gguf_u32("llama.embedding_length", 32),
      gguf_u32("llama.context_length", 2048),
      gguf_u32_array("llama.attention.head_count", std::vector<uint32_t>(kEntries, 4)),
      gguf_u32_array("llama.attention.head_count_kv", std::vector<uint32_t>(kEntries, 2)),
      gguf_u32_array("llama.feed_forward_length", std::vector<uint32_t>(kEntries, 64)),
  };
  std::vector<TensorToWrite> tensors;
  for (uint32_t l = 0; l < kLayers; ++l)
    for (const char* module : {"attn_q", "ffn_up"})
      tensors.push_back({"blk." + std::to_string(l) + "." + module + ".weight", DType::F32, {32}, {}});
  write_gguf(dir / "m.gguf", kv, tensors);
  const auto start = std::chrono::steady_clock::now();
  const Inventory inv = inventory_of(dir / "m.gguf");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(inv.arch.layers().size(), kLayers);
  EXPECT_EQ(inv.arch.layers()[kLayers - 1].attention.kv_heads, 2u);
  EXPECT_LT(seconds, 1.5);
}

TEST(GgufModel, PerLayerHeadCountsAndSlidingPattern) {
  test::TempDir dir;
  test::TinyGguf m{.arch = "gemma3", .layers = 7};
  auto kv = test::tiny_gguf_metadata(m);
  kv.push_back(gguf_u32_array("gemma3.attention.head_count_kv", {2, 2, 2, 2, 2, 1, 2}));
  kv.erase(
      std::find_if(kv.begin(), kv.end(), [](auto& v) { return v.key == "gemma3.attention.head_count_kv"; }));
  kv.push_back(gguf_u32("gemma3.attention.sliding_window", 512));
  write_gguf(dir / "g.gguf", kv, test::tiny_gguf_tensors(m));
  const Inventory inv = inventory_of(dir / "g.gguf");
  const auto& layers = inv.arch.layers();
  ASSERT_EQ(layers.size(), 7u);
  // Gemma-3: five sliding layers, then a global one (llama.cpp's pattern of 6 when the file states none).
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(layers[i].attention.span, i == 5 ? Span::Full : Span::Sliding) << "layer " << i;
  EXPECT_EQ(layers[0].attention.window, 512u);
  EXPECT_EQ(layers[5].attention.kv_heads, 1u);
  EXPECT_EQ(layers[5].attention.kind, AttentionKind::Mqa);
  EXPECT_EQ(inv.arch.model_type, "gemma3_text");

  // An explicit per-layer pattern wins over the built-in period.
  kv.push_back(gguf_bool_array("gemma3.attention.sliding_window_pattern",
                               {true, false, true, false, true, false, true}));
  write_gguf(dir / "g.gguf", kv, test::tiny_gguf_tensors(m));
  const Inventory inv2 = inventory_of(dir / "g.gguf");
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(inv2.arch.layers()[i].attention.span, i % 2 == 0 ? Span::Sliding : Span::Full) << "layer " << i;

  // A pattern of another length than the layers is refused, as llama.cpp refuses it (the layers it did not
  // cover were read as global).
  kv.back() = gguf_bool_array("gemma3.attention.sliding_window_pattern", {true, false, true});
  write_gguf(dir / "g.gguf", kv, test::tiny_gguf_tensors(m));
  try {
    inventory_of(dir / "g.gguf");
    ADD_FAILURE() << "a pattern of 3 entries for 7 layers was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed);
    EXPECT_NE(e.message().find("gemma3.attention.sliding_window_pattern"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("an array of 3 entries for block_count 7 layers"), std::string::npos)
        << e.message();
  }
}

// Llama-4: llama.cpp chunks attention by 8192 on three layers of four unless the file's sliding_window is 0
// (then every layer attends the whole context). The oracle test checks the first case against llama.cpp.
TEST(GgufModel, Llama4ChunkedAttentionUnlessTheFileTurnsItOff) {
  test::TempDir dir;
  test::TinyGguf m{.arch = "llama4", .layers = 4, .context = 262144};
  auto kv = test::tiny_gguf_metadata(m);
  kv.push_back(gguf_u32("llama4.attention.sliding_window", 0));
  write_gguf(dir / "l.gguf", kv, test::tiny_gguf_tensors(m));
  const Inventory off = inventory_of(dir / "l.gguf");
  for (const LayerSpec& l : off.arch.layers()) EXPECT_EQ(l.attention.span, Span::Full);
  test::write_tiny_gguf(dir / "l.gguf", m);
  const Inventory on = inventory_of(dir / "l.gguf");
  const auto& layers = on.arch.layers();
  ASSERT_EQ(layers.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(layers[i].attention.span, Span::Chunked) << "layer " << i;
    EXPECT_EQ(layers[i].attention.window, 8192u) << "layer " << i;
  }
  EXPECT_EQ(layers[3].attention.span, Span::Full);
}

TEST(GgufModel, MixtureOfExperts) {
  test::TempDir dir;
  test::TinyGguf m{.arch = "qwen3moe", .layers = 2};
  auto kv = test::tiny_gguf_metadata(m);
  kv.push_back(gguf_u32("qwen3moe.expert_count", 8));
  kv.push_back(gguf_u32("qwen3moe.expert_used_count", 2));
  kv.push_back(gguf_u32("qwen3moe.expert_feed_forward_length", 32));
  std::vector<TensorToWrite> tensors;
  for (TensorToWrite& t : test::tiny_gguf_tensors(m))
    if (t.name.find("ffn_gate.") == std::string::npos && t.name.find("ffn_up.") == std::string::npos &&
        t.name.find("ffn_down.") == std::string::npos)
      tensors.push_back(std::move(t));
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    tensors.push_back({p + "ffn_gate_inp.weight", DType::F32, {8, 64}, {}});
    tensors.push_back({p + "ffn_gate_exps.weight", DType::Q8_0, {8, 32, 64}, {}});
    tensors.push_back({p + "ffn_up_exps.weight", DType::Q8_0, {8, 32, 64}, {}});
    tensors.push_back({p + "ffn_down_exps.weight", DType::Q8_0, {8, 64, 32}, {}});
  }
  write_gguf(dir / "moe.gguf", kv, tensors);
  const Inventory inv = inventory_of(dir / "moe.gguf");
  const LayerSpec& l = inv.arch.layers()[0];
  EXPECT_EQ(l.ffn.kind, Ffn::Moe);
  EXPECT_EQ(l.ffn.experts, 8u);
  EXPECT_EQ(l.ffn.top_k, 2u);
  EXPECT_EQ(l.ffn.expert_intermediate, 32u);
  EXPECT_EQ(l.ffn.expert_matrices, 3u);
  const ParameterCounts p = count_parameters(inv);
  const uint64_t experts = 2 * 3 * 8 * 32 * 64;
  EXPECT_EQ(p.routed_experts, experts);
  ASSERT_TRUE(p.active);
  EXPECT_EQ(*p.active, p.total - experts + experts / 8 * 2);  // 2 of 8 experts run per token
}

TEST(GgufModel, SplitModelIsOneModel) {
  test::TempDir dir;
  const test::TinyGguf m;
  auto tensors = test::tiny_gguf_tensors(m);
  const size_t half = tensors.size() / 2;
  std::vector<TensorToWrite> first(tensors.begin(), tensors.begin() + half),
      second(tensors.begin() + half, tensors.end());
  auto kv1 = test::tiny_gguf_metadata(m);
  kv1.push_back(gguf_u32("split.no", 0));
  kv1.push_back(gguf_u32("split.count", 2));
  write_gguf(dir / "m-00001-of-00002.gguf", kv1, first);
  write_gguf(dir / "m-00002-of-00002.gguf", {gguf_u32("split.no", 1), gguf_u32("split.count", 2)}, second);
  // Named by any part, or by the directory: the same model of both parts.
  for (const char* arg : {"m-00001-of-00002.gguf", "m-00002-of-00002.gguf", ""}) {
    const Inventory inv = inventory_of(dir.path() / arg);
    EXPECT_EQ(inv.checkpoint->files, 2u) << arg;
    EXPECT_EQ(count_parameters(inv).total, test::tiny_gguf_parameters(m)) << arg;
    EXPECT_EQ(inv.arch.num_layers, 2u) << arg;
  }
  // A part that says it is another part is refused; a missing part is named.
  write_gguf(dir / "m-00002-of-00002.gguf", {gguf_u32("split.no", 0), gguf_u32("split.count", 2)}, second);
  EXPECT_THROW(inventory_of(dir / "m-00001-of-00002.gguf"), Error);
  std::filesystem::remove(dir / "m-00002-of-00002.gguf");
  try {
    inventory_of(dir / "m-00001-of-00002.gguf");
    ADD_FAILURE() << "a missing part was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_NE(std::string(e.what()).find("m-00002-of-00002.gguf"), std::string::npos) << e.what();
  }
}

TEST(GgufModel, DirectoryWithSeveralQuantizationsAsksWhichOne) {
  test::TempDir dir;
  test::write_tiny_gguf(dir / "m.Q4_0.gguf", {.matrix_type = DType::Q4_0});
  test::write_tiny_gguf(dir / "m.Q8_0.gguf", {.matrix_type = DType::Q8_0});
  test::write_tiny_gguf(dir / "mmproj-m-f16.gguf", {});  // a vision projector, not a third choice
  try {
    locate_local_model(dir.path().string());
    ADD_FAILURE() << "two GGUF models in one directory were not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("m.Q4_0.gguf, m.Q8_0.gguf"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("mmproj"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--file"), std::string::npos) << e.what();  // not every command's
  }
  try {
    locate_local_model(dir.path().string(), SeveralModels::AskForFile);
    ADD_FAILURE() << "two GGUF models in one directory were not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.Q4_0.gguf, m.Q8_0.gguf): name the file to analyse, or choose one "
                                         "with --file NAME"),
              std::string::npos)
        << e.what();
  }
  // Asked to, it names them for a listing and reads none.
  const LocalModelFiles listed = locate_local_model(dir.path().string(), SeveralModels::List);
  EXPECT_EQ(listed.gguf_models,
            (std::vector<std::filesystem::path>{dir / "m.Q4_0.gguf", dir / "m.Q8_0.gguf"}));
  EXPECT_TRUE(listed.weight_files.empty());
  EXPECT_EQ(listed.format, CheckpointFormat::None);
  std::filesystem::remove(dir / "m.Q8_0.gguf");
  EXPECT_EQ(locate_local_model(dir.path().string()).weight_files.size(), 1u);
}

// What llama.cpp's layouts imply beyond the names: Phi-3's gate and up fused in one ffn_up of twice the width
// is a gated MLP; BERT's layers are an encoder; a Mamba model has no positions.
TEST(GgufModel, FusedGateEncoderStackAndStateSpaceModel) {
  test::TempDir dir;
  test::TinyGguf phi{.arch = "phi3"};
  std::vector<TensorToWrite> tensors;
  for (TensorToWrite& t : test::tiny_gguf_tensors(phi)) {
    if (t.name.find("ffn_gate.") != std::string::npos) continue;
    if (t.name.find("ffn_up.") != std::string::npos) {
      t.shape[0] *= 2;
      t.data += t.data;
    }
    tensors.push_back(std::move(t));
  }
  write_gguf(dir / "phi.gguf", test::tiny_gguf_metadata(phi), tensors);
  const Inventory p = inventory_of(dir / "phi.gguf");
  EXPECT_TRUE(p.arch.layers()[0].ffn.gated);
  EXPECT_EQ(p.arch.layers()[0].ffn.intermediate, 128u);

  test::write_tiny_gguf(dir / "bert.gguf", {.arch = "bert"});
  const Inventory b = inventory_of(dir / "bert.gguf");
  ASSERT_NE(b.arch.main_stack(), nullptr);
  EXPECT_EQ(b.arch.main_stack()->role, StackRole::Encoder);

  write_gguf(dir / "mamba.gguf",
             {gguf_string("general.architecture", "mamba"), gguf_u32("mamba.embedding_length", 64),
              gguf_u32("mamba.ssm.inner_size", 128), gguf_u32("mamba.ssm.state_size", 16),
              gguf_u32("mamba.ssm.conv_kernel", 4)},
             {{"token_embd.weight", DType::F32, {100, 64}, {}},
              {"blk.0.ssm_in.weight", DType::F32, {256, 64}, {}},
              {"blk.0.ssm_conv1d.weight", DType::F32, {128, 1, 4}, {}},
              {"blk.0.ssm_out.weight", DType::F32, {64, 128}, {}},
              {"blk.0.attn_norm.weight", DType::F32, {64}, {}}});
  const Inventory m = inventory_of(dir / "mamba.gguf");
  ASSERT_EQ(m.arch.layers().size(), 1u);
  EXPECT_EQ(m.arch.layers()[0].mixer, Mixer::Mamba);
  EXPECT_EQ(m.arch.layers()[0].state.inner, 128u);
  EXPECT_EQ(m.arch.layers()[0].state.state, 16u);
  EXPECT_EQ(m.arch.position, PositionKind::None);
}

// Falcon-H1 runs a Mamba-2 mixer beside attention in every layer, on the same input: each layer keeps K/V
// per token and a recurrent state per sequence, and both must be in the record and the cache.
TEST(GgufModel, FalconH1RunsMamba2BesideAttentionInEveryLayer) {
  test::TempDir dir;
  const test::TinyGguf m{.arch = "falcon-h1", .layers = 3};
  const uint64_t inner = 128, state = 16, conv = 4, heads = 4, groups = 1,
                 channels = inner + 2 * groups * state;
  auto kv = test::tiny_gguf_metadata(m);
  for (const auto& [key, v] : {std::pair{"ssm.inner_size", inner},
                               {"ssm.state_size", state},
                               {"ssm.conv_kernel", conv},
                               {"ssm.time_step_rank", heads},
                               {"ssm.group_count", groups}})
    kv.push_back(gguf_u32("falcon-h1." + std::string(key), static_cast<uint32_t>(v)));
  auto tensors = test::tiny_gguf_tensors(m);
  for (uint32_t l = 0; l < m.layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (auto [name, shape] :
         {std::pair<std::string, Shape>{"ssm_in.weight", {2 * inner + 2 * state + heads, 64}},
          {"ssm_conv1d.weight", {channels, 1, conv}},
          {"ssm_dt.bias", {heads}},
          {"ssm_a", {heads}},
          {"ssm_d", {heads}},
          {"ssm_out.weight", {64, inner}}})
      tensors.push_back({p + name, DType::F32, shape, std::string(numel(shape) * 4, '\0')});
  }
  write_gguf(dir / "f.gguf", kv, tensors);
  const Inventory inv = inventory_of(dir / "f.gguf");
  ASSERT_EQ(inv.arch.layers().size(), 3u);
  for (const LayerSpec& l : inv.arch.layers()) {
    EXPECT_EQ(l.mixer, Mixer::Attention);
    EXPECT_EQ(l.parallel, Mixer::Mamba2);
    EXPECT_EQ(l.type(), "attention+mamba2+dense");
    EXPECT_EQ(l.attention.kv_heads, 2u);
    EXPECT_EQ(l.state.inner, inner);
    EXPECT_EQ(l.state.heads, heads);
    EXPECT_EQ(l.state.head_dim, inner / heads);
    EXPECT_EQ(l.state.groups, groups);
  }
  // K/V: 2 x 2 kv heads x 16 head dim x 2 bytes per layer per token; the Mamba-2 state per layer: conv
  // (128 + 2 x 16) channels x 4 kernel + 4 heads x 32 head dim x 16 d_state, 2 bytes each.
  const KvCachePlan kv_plan = plan_kv_cache(inv.arch, DType::BF16, DType::BF16, 1024);
  EXPECT_EQ(kv_plan.per_token, 3u * 2 * 2 * 16 * 2);
  EXPECT_EQ(kv_plan.state_per_sequence, 3u * (channels * conv + heads * (inner / heads) * state) * 2);
  const std::optional<SsmSummary> ssm = summarize_ssm(inv.arch);
  ASSERT_TRUE(ssm);
  ASSERT_EQ(ssm->mixers.size(), 1u);
  EXPECT_EQ(ssm->mixers[0].mixer, Mixer::Mamba2);
  EXPECT_EQ(ssm->mixers[0].layers, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(ssm->attention_layers, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(ssm->parallel_layers, (std::vector<uint32_t>{0, 1, 2}));
  const ParameterCounts p = count_parameters(inv);
  EXPECT_EQ(p.total, test::tiny_gguf_parameters(m) + 3 * ((2 * inner + 2 * state + heads) * 64 +
                                                          channels * conv + 3 * heads + 64 * inner));
  EXPECT_EQ(describe_architecture(inv.arch, p, {}).architecture_type, "hybrid");
}

// LFM2: gated short convolutions (shortconv.*) between attention layers, told apart by no K/V heads. A conv
// layer keeps its window over the hidden channels as state: the whole kernel in transformers' cache, the
// kernel less the newest column (and f32) in llama.cpp's.
TEST(GgufModel, Lfm2ShortConvolutionLayersKeepTheirConvWindow) {
  test::TempDir dir;
  const test::TinyGguf m{.arch = "lfm2", .layers = 3};
  auto kv = test::tiny_gguf_metadata(m);
  kv.push_back(gguf_u32_array("lfm2.attention.head_count_kv", {0, 0, 2}));
  kv.erase(
      std::find_if(kv.begin(), kv.end(), [](auto& v) { return v.key == "lfm2.attention.head_count_kv"; }));
  kv.push_back(gguf_u32("lfm2.shortconv.l_cache", 3));
  std::vector<TensorToWrite> tensors;
  for (TensorToWrite& t : test::tiny_gguf_tensors(m)) {
    const bool conv_layer = t.name.starts_with("blk.0.") || t.name.starts_with("blk.1.");
    if (conv_layer && t.name.find(".attn_") != std::string::npos &&
        t.name.find("attn_norm") == std::string::npos)
      continue;
    tensors.push_back(std::move(t));
  }
  for (const char* p : {"blk.0.", "blk.1."})
    for (auto [name, shape] : {std::pair<std::string, Shape>{"shortconv.conv.weight", {64, 3}},
                               {"shortconv.in_proj.weight", {3 * 64, 64}},
                               {"shortconv.out_proj.weight", {64, 64}}})
      tensors.push_back({p + name, DType::F32, shape, std::string(numel(shape) * 4, '\0')});
  write_gguf(dir / "l.gguf", kv, tensors);
  const Inventory inv = inventory_of(dir / "l.gguf");
  const auto& layers = inv.arch.layers();
  ASSERT_EQ(layers.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(layers[i].mixer, Mixer::ShortConv);
    EXPECT_EQ(layers[i].type(), "short-conv+dense");
    EXPECT_EQ(layers[i].state.inner, 64u);
    EXPECT_EQ(layers[i].state.conv_kernel, 3u);
  }
  EXPECT_EQ(layers[2].mixer, Mixer::Attention);
  EXPECT_EQ(layers[2].attention.kv_heads, 2u);
  EXPECT_EQ(plan_kv_cache(inv.arch, DType::BF16, DType::BF16, 0).state_per_sequence, 2u * 64 * 3 * 2);
  const StateLayout llama_cpp{.conv_without_newest = true, .dtype = DType::F32};
  EXPECT_EQ(plan_kv_cache(inv.arch, DType::F16, DType::BF16, 0, llama_cpp).state_per_sequence,
            2u * 64 * 2 * 4);
  const std::optional<SsmSummary> ssm = summarize_ssm(inv.arch);
  ASSERT_TRUE(ssm);
  ASSERT_EQ(ssm->mixers.size(), 1u);
  EXPECT_EQ(ssm->mixers[0].mixer, Mixer::ShortConv);
  EXPECT_EQ(ssm->mixers[0].layers, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(describe_architecture(inv.arch, count_parameters(inv), {}).architecture_type, "hybrid");
}

// DeepSeek-V3's GGUF holds its MTP layer as the last of block_count (nextn_predict_layers 1): an MTP stack
// after the decoder, still in the parameter count, not in what a token runs (the active count).
TEST(GgufModel, NextnLayersAreTheMtpStack) {
  test::TempDir dir;
  test::TinyGguf m{.arch = "deepseek2", .layers = 3};
  auto kv = test::tiny_gguf_metadata(m);
  kv.push_back(gguf_u32("deepseek2.nextn_predict_layers", 1));
  write_gguf(dir / "d.gguf", kv, test::tiny_gguf_tensors(m));
  const Inventory inv = inventory_of(dir / "d.gguf");
  EXPECT_EQ(inv.arch.num_layers, 2u);
  EXPECT_EQ(inv.arch.layers().size(), 2u);
  const StackSpec* mtp = inv.arch.stack(StackRole::Mtp);
  ASSERT_NE(mtp, nullptr);
  EXPECT_EQ(mtp->first_index, 2u);
  EXPECT_EQ(mtp->layers.size(), 1u);
  const ParameterCounts p = count_parameters(inv);
  EXPECT_EQ(p.total, test::tiny_gguf_parameters(m));
  EXPECT_EQ(p.by_layer.size(), 2u);
  uint64_t last_layer = 0;
  for (const InventoryTensor& t : inv.tensors)
    if (t.name.rfind("blk.2.", 0) == 0) last_layer += t.parameters;
  ASSERT_GT(last_layer, 0u);
  ASSERT_TRUE(p.active);
  EXPECT_EQ(*p.active, p.total - last_layer);
}

TEST(GgufModel, UnknownArchitectureKeepsItsDimensions) {
  test::TempDir dir;
  test::write_tiny_gguf(dir / "m.gguf", {.arch = "someday-arch"});
  const Inventory inv = inventory_of(dir / "m.gguf");
  EXPECT_EQ(inv.arch.hidden_size, 64u);
  EXPECT_EQ(inv.arch.layers().size(), 2u);
  EXPECT_EQ(inv.arch.model_type, "someday-arch");
  EXPECT_TRUE(std::any_of(inv.notes.begin(), inv.notes.end(),
                          [](const std::string& n) { return n.find("someday-arch") != std::string::npos; }));
}

// The tokenizer a GGUF carries: its model, vocabulary (unknown, control and user-defined tokens counted as
// added, as transformers lists Llama-3's 256 reserved specials and SentencePiece's <unk>, <s>, </s>; the base
// vocabulary runs to the last normal token, as transformers' tokenizer.vocab_size), merges, special tokens by
// id, and chat templates.
TEST(GgufModel, TokenizerFromMetadata) {
  test::TempDir dir;
  auto kv = test::tiny_gguf_metadata({});
  kv.erase(std::find_if(kv.begin(), kv.end(), [](auto& v) { return v.key == "tokenizer.ggml.model"; }));
  kv.push_back(gguf_string("tokenizer.ggml.model", "gpt2"));
  kv.push_back(
      gguf_string_array("tokenizer.ggml.tokens", {"<|begin|>", "a", "b", "ab", "<|end|>", "<|tool|>"}));
  kv.push_back(gguf_i32_array("tokenizer.ggml.token_type", {3, 1, 1, 1, 3, 4}));
  kv.push_back(gguf_string_array("tokenizer.ggml.merges", {"a b"}));
  kv.push_back(gguf_u32("tokenizer.ggml.bos_token_id", 0));
  kv.push_back(gguf_u32("tokenizer.ggml.eos_token_id", 4));
  kv.push_back(gguf_u32("tokenizer.ggml.unknown_token_id", 1));   // before eos's id: found in the same walk
  kv.push_back(gguf_u32("tokenizer.ggml.padding_token_id", 99));  // beyond the vocabulary: shown by id
  kv.push_back(gguf_string("tokenizer.chat_template", "{{ m }}\u00e9"));
  kv.push_back(gguf_string("tokenizer.chat_template.tool_use", "{{ t }}"));
  write_gguf(dir / "t.gguf", kv, test::tiny_gguf_tensors({}));
  const Inventory inv = inventory_of(dir / "t.gguf");
  ASSERT_TRUE(inv.embedded_tokenizer);
  const TokenizerInfo& t = *inv.embedded_tokenizer;
  EXPECT_EQ(t.model_type, "BPE");
  EXPECT_TRUE(t.vocab_known);
  EXPECT_EQ(t.vocab_size, 6u);
  EXPECT_EQ(t.added_tokens, 3u);
  EXPECT_EQ(t.base_vocab_size, 4u);  // ids 0-3: "<|begin|>" is an added token inside it
  EXPECT_EQ(t.merges, 1u);
  ASSERT_EQ(t.special_tokens.size(), 4u);
  EXPECT_EQ(t.special_tokens[0].role, "bos");
  EXPECT_EQ(t.special_tokens[0].content, "<|begin|>");
  EXPECT_EQ(t.special_tokens[1].content, "<|end|>");
  EXPECT_EQ(t.special_tokens[2].role, "unk");
  EXPECT_EQ(t.special_tokens[2].content, "a");
  EXPECT_EQ(t.special_tokens[3].content, "#99");
  EXPECT_TRUE(t.has_chat_template);
  EXPECT_EQ(t.chat_template_length, 8u);  // code points: "{{ m }}" and one two-byte character
  EXPECT_EQ(t.chat_template_names, (std::vector<std::string>{"default", "tool_use"}));
}

}  // namespace
}  // namespace ma

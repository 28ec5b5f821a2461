// The hand-derived templates (model/families/remote_code*.cpp) of architectures transformers builds only with
// the model repository's own code, checked against what those repositories publish: (a) the on-disk tensor
// names of the checkpoint's weight index, as a set; (b) the index's metadata.total_size, as the bytes of
// those tensors at the config's dtype; (c) the parameter counts model cards quote (PARAM_COUNTS.tsv), or, for
// configs without an index, a count derived below from the config's own numbers. Plus the fallback from a
// missing model_type to the config's class (distilgpt2).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "analysis/parameter_counts.h"
#include "core/dtype.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// Every ../shared/data/hf-configs directory whose oracle entry is ok:false and whose template we derive by
// hand.
const char* const kRemoteCodeConfigs[] = {
    "Qwen__Qwen-7B",
    "Qwen__Qwen-7B-Chat",
    "Qwen__Qwen-7B-Chat-Int4",
    "Qwen__Qwen-VL-Chat-Int4",
    "Qwen__Qwen-72B",
    "THUDM__chatglm-6b",
    "THUDM__chatglm2-6b",
    "THUDM__chatglm2-6b-32k",
    "THUDM__codegeex2-6b",
    "baichuan-inc__Baichuan2-13B-Chat",
    "internlm__internlm-20b",
    "internlm__internlm2-chat-7b",
    "stabilityai__stable-code-3b",
    "openbmb__MiniCPM-V-2",
    "moonshotai__Kimi-K2-Instruct",
    "tiiuae__falcon-40b",
    "XiaomiMiMo__MiMo-7B-Base",
    "nvidia__Llama-3_3-Nemotron-Super-49B-v1",
};

fs::path config_dir(const std::string& dir) {
  return *test::shared_data() / "hf-configs" / dir;
}

ModelTemplate load_template(const fs::path& dir) {
  const fs::path file = dir / "config.json";
  return build_template(ModelConfig::parse(test::read_file(file), file.string()));
}

uint64_t num_parameters(const fs::path& dir) {
  LocalModelFiles files;
  files.root = dir;
  files.display_name = dir.filename().string();
  files.config = dir / "config.json";
  return count_parameters(build_inventory(files)).total;
}

// The template's stored tensors by on-disk name, with their bytes at the config's dtype (a piece's own dtype
// where it has one). `tied_copies`: tied tensors this checkpoint stores anyway.
std::map<std::string, uint64_t> stored_bytes(const ModelTemplate& t,
                                             const std::vector<std::string>& tied_copies) {
  const DType dtype = dtype_from_any_name(t.arch.torch_dtype).value_or(DType::F32);
  auto bytes = [](const Shape& s, DType d) { return numel(s) * dtype_bits(d) / 8; };
  std::map<std::string, uint64_t> out;
  for (const TemplateTensor& tt : t.tensors) {
    if (!tt.stored) {
      if (std::find(tied_copies.begin(), tied_copies.end(), tt.name) != tied_copies.end())
        out[tt.name] = bytes(tt.shape, dtype);
    } else if (tt.per_expert) {
      for (uint32_t e = 0; e < tt.per_expert->experts; ++e)
        for (size_t p = 0; p < tt.per_expert->parts.size(); ++p)
          out[tt.per_expert->name(e, p)] = bytes(tt.per_expert->parts[p].shape, dtype);
    } else if (tt.disk.empty()) {
      out[tt.name] = bytes(tt.shape, dtype);
    } else {
      for (const DiskPiece& p : tt.disk) out[p.name] = bytes(p.shape, p.dtype.value_or(dtype));
    }
  }
  return out;
}

struct Index {
  std::set<std::string> names;
  uint64_t total_size = 0;
};

Index read_index(const fs::path& file) {
  json::Document d = test::parse_json_file(file);
  Index ix;
  for (const json::Member& m : d.root().find("weight_map")->members()) ix.names.emplace(m.key);
  ix.total_size = *d.root().find("metadata")->find("total_size")->as_uint();
  return ix;
}

// Names in `a` missing from `b`, at most 8 of them listed.
std::string missing_from(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::ostringstream out;
  size_t n = 0;
  for (const std::string& x : a)
    if (!b.count(x) && n++ < 8) out << "  " << x << "\n";
  if (n > 8) out << "  ... " << n - 8 << " more\n";
  return out.str();
}

// --- (a) names and (b) bytes, for every config with an unquantized index ---

struct IndexCase {
  std::string dir;
  std::string index;
  std::vector<std::string> tied_copies;  // tied tensors the checkpoint stores anyway
  bool stale_total_size = false;         // checked separately (ChatGlm6bIndexTotalSizeIsOfItsFirstUpload)
};

const IndexCase kIndexCases[] = {
    {"Qwen__Qwen-7B", "model.safetensors.index.json", {}},
    {"Qwen__Qwen-72B", "model.safetensors.index.json", {}},
    {"THUDM__chatglm-6b", "pytorch_model.bin.index.json", {"lm_head.weight"}, true},
    {"THUDM__chatglm2-6b", "pytorch_model.bin.index.json", {}},
    {"THUDM__chatglm2-6b-32k", "pytorch_model.bin.index.json", {}},
    {"THUDM__codegeex2-6b", "pytorch_model.bin.index.json", {}},
    {"baichuan-inc__Baichuan2-13B-Chat", "pytorch_model.bin.index.json", {}},
    {"internlm__internlm-20b", "pytorch_model.bin.index.json", {}},
    {"internlm__internlm2-chat-7b", "model.safetensors.index.json", {}},
    {"stabilityai__stable-code-3b", "model.safetensors.index.json", {}},
    {"openbmb__MiniCPM-V-2", "model.safetensors.index.json", {}},
    {"tiiuae__falcon-40b", "pytorch_model.bin.index.json", {"lm_head.weight"}},
};

class RemoteCodeIndexTest : public ::testing::TestWithParam<IndexCase> {};

TEST_P(RemoteCodeIndexTest, NamesAndBytesEqualTheIndex) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const IndexCase& c = GetParam();
  const fs::path dir = config_dir(c.dir);
  ModelTemplate t = load_template(dir);
  EXPECT_TRUE(t.arch.hand_derived);
  for (const std::string& name : c.tied_copies)
    EXPECT_TRUE(std::any_of(t.known_extras.begin(), t.known_extras.end(),
                            [&](const auto& k) { return k.prefix == name; }))
        << name << " is stored by the checkpoint but not declared as an expected tied copy";

  const std::map<std::string, uint64_t> stored = stored_bytes(t, c.tied_copies);
  std::set<std::string> ours;
  for (const auto& [name, bytes] : stored) ours.insert(name);
  const Index ix = read_index(dir / c.index);
  EXPECT_EQ(ours, ix.names) << "in the template, not the index:\n"
                            << missing_from(ours, ix.names) << "in the index, not the template:\n"
                            << missing_from(ix.names, ours);

  uint64_t total = 0;
  for (const std::string& name : ix.names)
    if (auto it = stored.find(name); it != stored.end()) total += it->second;
  if (!c.stale_total_size) {
    EXPECT_EQ(total, ix.total_size) << t.arch.torch_dtype;
  }
  std::cout << "[ remote   ] " << c.dir << ": " << ix.names.size() << " tensors, " << total
            << " bytes (index total_size " << ix.total_size << "), " << num_parameters(dir)
            << " parameters\n";
}

INSTANTIATE_TEST_SUITE_P(RemoteCode, RemoteCodeIndexTest, ::testing::ValuesIn(kIndexCases),
                         [](const auto& param_info) {
                           std::string n = param_info.param.dir;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// THUDM/chatglm-6b's index kept the total_size of the first upload when the "slim" checkpoint (config
// vocab_size 150528 -> 130528) replaced the embedding shard; that upload also saved the LayerNorms in
// float32. The template at float16 plus exactly those two differences gives the index's figure.
TEST(RemoteCode, ChatGlm6bIndexTotalSizeIsOfItsFirstUpload) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = config_dir("THUDM__chatglm-6b");
  ModelTemplate t = load_template(dir);
  const Index ix = read_index(dir / "pytorch_model.bin.index.json");
  uint64_t total = 0, norm_elements = 0;
  for (const auto& [name, bytes] : stored_bytes(t, {"lm_head.weight"})) {
    total += bytes;
    if (name.find("layernorm.") != std::string::npos) norm_elements += bytes / 2;
  }
  EXPECT_EQ(norm_elements, (28u * 2 + 1) * 2 * 4096);  // input / post-attention / final, weight + bias
  const uint64_t dropped_rows = 150528 - 130528;       // embedding and its stored tied lm_head copy
  EXPECT_EQ(total + 2 * dropped_rows * 4096 * 2 + norm_elements * 2, ix.total_size);
}

// Qwen-7B-Chat-Int4 is an AutoGPTQ checkpoint: each quantized Linear stores X.qweight (packed) with X.qzeros,
// X.scales and X.g_idx, and always an X.bias (zero where the model has none) in place of X.weight. Every
// other name is the template's; the model it stands for is Qwen-7B-Chat's.
TEST(RemoteCode, QwenGptqCheckpointNamesMapOntoTheTemplate) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = config_dir("Qwen__Qwen-7B-Chat-Int4");
  ModelTemplate t = load_template(dir);
  std::set<std::string> ours;
  for (const auto& [name, bytes] : stored_bytes(t, {})) ours.insert(name);
  const Index ix = read_index(dir / "model.safetensors.index.json");
  std::set<std::string> seen, unexplained;
  for (const std::string& name : ix.names) {
    if (ours.count(name)) {
      seen.insert(name);
      continue;
    }
    const std::string module = name.substr(0, name.rfind('.'));
    const std::string leaf = name.substr(name.rfind('.') + 1);
    const bool quantized = ix.names.count(module + ".qweight") && ours.count(module + ".weight");
    if (quantized && leaf == "qweight") seen.insert(module + ".weight");
    if (!quantized ||
        !(leaf == "qweight" || leaf == "qzeros" || leaf == "scales" || leaf == "g_idx" || leaf == "bias"))
      unexplained.insert(name);
  }
  EXPECT_TRUE(unexplained.empty()) << missing_from(unexplained, {});
  EXPECT_EQ(seen, ours) << "template tensors the checkpoint lacks:\n" << missing_from(ours, seen);
  EXPECT_EQ(num_parameters(dir), num_parameters(config_dir("Qwen__Qwen-7B")));  // same sizes, fp16 flag aside
  EXPECT_EQ(t.arch.torch_dtype, "float16");                                     // its config sets fp16
}

// With the index alone, a packed qweight and what AutoGPTQ stores beside it are predicted as it stores them
// (Qwen-7B-Chat-Int4: 4 bits, groups of 128): qweight int32 [in x 4 / 32, out], qzeros int32 [in / 128,
// out x 4 / 32], scales fp16 [in / 128, out], g_idx int32 [in], and the fp16 bias its kernels keep for
// layers the model builds without one. The qweight read as the fp16 [out, in] weight it stands for (14.38 GiB
// of predictions against the index's 5.46 GiB in all), and the rest went unpredicted; now every tensor is
// predicted, and their bytes add up to the index's total_size.
TEST(RemoteCode, AnIndexOnlyGptqCheckpointIsPredictedAsAutoGptqStoresIt) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = config_dir("Qwen__Qwen-7B-Chat-Int4");
  const Inventory inv = build_inventory(locate_local_model(dir.string()));
  ASSERT_TRUE(inv.checkpoint && !inv.checkpoint->headers_read);
  std::map<std::string, Shape> weights;
  for (const TemplateTensor& t : inv.model->tensors) weights[t.name] = t.shape;
  std::map<std::string, size_t> by_leaf;
  uint64_t predicted = 0;
  for (const InventoryTensor& t : inv.tensors) {
    ASSERT_TRUE(t.shape_known) << t.name;
    predicted += t.bytes;
    const std::string leaf = t.name.substr(t.name.rfind('.') + 1);
    const auto linear = weights.find(t.name.substr(0, t.name.rfind('.')) + ".weight");
    if (leaf == "weight" || linear == weights.end()) continue;
    ++by_leaf[leaf];
    const uint64_t out = linear->second[0], in = linear->second[1];
    const auto [shape, dtype] = leaf == "qweight"  ? std::pair{Shape{in * 4 / 32, out}, DType::I32}
                                : leaf == "qzeros" ? std::pair{Shape{in / 128, out * 4 / 32}, DType::I32}
                                : leaf == "scales" ? std::pair{Shape{in / 128, out}, DType::F16}
                                : leaf == "g_idx"  ? std::pair{Shape{in}, DType::I32}
                                                   : std::pair{Shape{out}, DType::F16};
    EXPECT_EQ(t.shape, shape) << t.name;
    EXPECT_EQ(t.dtype, dtype) << t.name;
  }
  const Index ix = read_index(dir / "model.safetensors.index.json");
  for (const std::string leaf : {"qweight", "qzeros", "scales", "g_idx"}) {
    EXPECT_EQ(by_leaf[leaf], static_cast<size_t>(std::count_if(
                                 ix.names.begin(), ix.names.end(),
                                 [&](const std::string& n) { return n.ends_with("." + leaf); })))
        << leaf;
    EXPECT_GT(by_leaf[leaf], 0u) << leaf;
  }
  EXPECT_EQ(predicted, ix.total_size);
}

// --- (c) published parameter counts ---

// Whether `count` agrees with a figure PARAM_COUNTS.tsv quotes: "exact" rows exactly; rounded ones ("7B",
// "6.2B", "40B") at the precision of their digits (an integer's trailing zeros not significant), rounded or
// truncated there: model cards name Qwen-7B (7.72 billion) and InternLM2-7B (7.74 billion) by size class.
bool matches_published(uint64_t count, const std::string& figure, const std::string& exactness) {
  if (exactness == "exact") return std::stoull(figure) == count;
  const char suffix = figure.back();
  uint64_t unit = suffix == 'T' ? 1'000'000'000'000 : suffix == 'B' ? 1'000'000'000 : 1'000'000;
  std::string digits = figure.substr(0, figure.size() - 1);
  if (size_t dot = digits.find('.'); dot != std::string::npos) {
    for (size_t i = dot + 1; i < digits.size(); ++i) unit /= 10;
    digits.erase(dot, 1);
  }
  uint64_t quoted = std::stoull(digits);
  if (figure.find('.') == std::string::npos)
    while (quoted > 0 && quoted % 10 == 0) {
      quoted /= 10;
      unit *= 10;
    }
  return quoted == (count + unit / 2) / unit || quoted == count / unit;
}

TEST(RemoteCode, MatchesPublishedReadsRoundedFigures) {
  EXPECT_TRUE(matches_published(6'173'286'400, "6.2B", "rounded"));
  EXPECT_FALSE(matches_published(6'300'000'000, "6.2B", "rounded"));
  EXPECT_TRUE(matches_published(41'303'293'952, "40B", "rounded"));  // one significant digit
  EXPECT_TRUE(matches_published(7'721'324'544, "7B", "rounded"));    // truncated
  EXPECT_FALSE(matches_published(8'100'000'000, "7B", "rounded"));
  EXPECT_TRUE(matches_published(6'053'381'344, "6053381344", "exact"));
}

TEST(RemoteCode, CountsAgreeWithPublishedFigures) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  std::map<std::string, std::pair<std::string, std::string>> published;  // dir -> figure, exactness
  std::istringstream tsv(test::read_file(*data / "hf-configs" / "PARAM_COUNTS.tsv"));
  for (std::string line; std::getline(tsv, line);) {
    std::istringstream row(line);
    std::string dir, figure, exactness;
    std::getline(row, dir, '\t');
    std::getline(row, figure, '\t');
    std::getline(row, exactness, '\t');
    published[dir] = {figure, exactness};
  }
  size_t checked = 0;
  for (const char* dir : kRemoteCodeConfigs) {
    auto it = published.find(dir);
    if (it == published.end()) continue;
    const uint64_t count = num_parameters(config_dir(dir));
    EXPECT_TRUE(matches_published(count, it->second.first, it->second.second))
        << dir << ": " << count << " vs published " << it->second.first;
    ++checked;
  }
  EXPECT_EQ(checked,
            8u);  // Qwen-7B, -7B-Chat, -72B, chatglm-6b, codegeex2-6b, InternLM 20B, InternLM2, Falcon-40B
}

// --- configs without an index: counts derived from the config's numbers ---

// Qwen-7B-Chat's config is an early revision (n_embd / n_layer / n_head / ffn_hidden_size spellings); the
// sizes are Qwen-7B's, whose count its index confirms (15,442,649,088 bytes at bf16 = 2 x 7,721,324,544).
TEST(RemoteCode, QwenEarlySpellingIsQwen7B) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  EXPECT_EQ(num_parameters(config_dir("Qwen__Qwen-7B-Chat")), 7'721'324'544u);
  EXPECT_EQ(num_parameters(config_dir("Qwen__Qwen-7B")), 7'721'324'544u);
}

// Kimi-K2: DeepSeek-V3's layout with its config's numbers; the remote MoEGate's e_score_correction_bias is a
// parameter (topk_method noaux_tc).
TEST(RemoteCode, KimiK2CountFromItsConfig) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const uint64_t h = 7168, vocab = 163840, layers = 61, dense = 1, heads = 64, q_rank = 1536, kv_rank = 512;
  const uint64_t nope = 128, rope = 64, v = 128, experts = 384, moe = 2048, shared = 1, inter = 18432;
  const uint64_t attention = h * q_rank + q_rank + q_rank * heads * (nope + rope) + h * (kv_rank + rope) +
                             kv_rank + kv_rank * heads * (nope + v) + heads * v * h;
  const uint64_t routed = experts * 3 * h * moe + experts * h + experts + 3 * h * moe * shared;
  const uint64_t expected =
      2 * vocab * h + layers * (attention + 2 * h) + dense * 3 * h * inter + (layers - dense) * routed + h;
  ModelTemplate t = load_template(config_dir("moonshotai__Kimi-K2-Instruct"));
  EXPECT_TRUE(t.arch.hand_derived);
  EXPECT_EQ(num_parameters(config_dir("moonshotai__Kimi-K2-Instruct")), expected);
  EXPECT_EQ(expected, 1'026'408'232'448u);
}

// MiMo-7B: Qwen2 with GQA (32 / 8 heads of 128) plus one multi-token-prediction layer that MiMoModel builds
// (model.mtp_layers.0: a Qwen2 decoder layer, input_proj [4096, 8192] and three more norms).
TEST(RemoteCode, MiMoCountFromItsConfig) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const uint64_t h = 4096, vocab = 151680, layers = 36, heads = 32, kv = 8, hd = 128, inter = 11008;
  const uint64_t layer =
      h * heads * hd + heads * hd + 2 * (h * kv * hd + kv * hd) + heads * hd * h + 3 * h * inter + 2 * h;
  const uint64_t expected = 2 * vocab * h + layers * layer + h + (layer + 2 * h * h + 3 * h);
  ModelTemplate t = load_template(config_dir("XiaomiMiMo__MiMo-7B-Base"));
  EXPECT_TRUE(t.arch.hand_derived);
  EXPECT_EQ(t.arch.layers().size(), layers);  // the MTP layer is not part of the decoder stack
  EXPECT_EQ(num_parameters(config_dir("XiaomiMiMo__MiMo-7B-Base")), expected);
  EXPECT_EQ(expected, 7'833'409'536u);
}

// Llama-3.3-Nemotron-Super-49B: 80 layers of hidden 8,192 (64 heads of 128), each shaped by its block config.
// 49 keep attention, with 64 / 8 = 8 K/V heads; 31 lost it (and their input norm). FFN widths from ffn_mult:
// int(2 x mult x 8192 / 3) up to a multiple of 256: 5.25 -> 28,672, 3.28125 -> 17,920, 2.625 -> 14,336,
// 1.3125 -> 7,168, 1.0 -> 5,461 -> 5,632, 0.5 -> 2,730 -> 2,816. The model card's figure is 49.9B.
TEST(RemoteCode, NemotronNasCountFromItsBlockConfigs) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const uint64_t h = 8192, vocab = 128256, hd = 128, heads = 64, kv = 8;
  const uint64_t attention = 2 * h * heads * hd + 2 * h * kv * hd + h;  // q, o, k, v and input_layernorm
  const auto mlp = [&](uint64_t inter) { return 3 * h * inter + h; };   // gate, up, down, post-attention norm
  const uint64_t layers = 48 * (attention + mlp(28672)) + 1 * (attention + mlp(14336)) + 10 * mlp(7168) +
                          8 * mlp(5632) + 6 * mlp(2816) + 5 * mlp(14336) + 1 * mlp(17920) + 1 * mlp(28672);
  const uint64_t expected = 2 * vocab * h + layers + h;
  const ModelTemplate t = load_template(config_dir("nvidia__Llama-3_3-Nemotron-Super-49B-v1"));
  EXPECT_TRUE(t.arch.hand_derived);
  ASSERT_EQ(t.arch.layers().size(), 80u);
  size_t with_attention = 0;
  for (const LayerSpec& l : t.arch.layers()) with_attention += l.mixer == Mixer::Attention;
  EXPECT_EQ(with_attention, 49u);
  EXPECT_EQ(t.arch.layers()[0].attention.kv_heads, kv);
  EXPECT_EQ(t.arch.layers()[0].ffn.intermediate, 14336u);
  EXPECT_EQ(num_parameters(config_dir("nvidia__Llama-3_3-Nemotron-Super-49B-v1")), expected);
  EXPECT_EQ(expected, 49'867'145'216u);
}

// The other block options: attention or FFN replaced by one linear map, a sliding window.
TEST(RemoteCode, NemotronNasLinearReplacementsAndWindows) {
  const ModelTemplate t =
      build_template(ModelConfig::parse(R"({"model_type": "nemotron-nas", "hidden_size": 64,
      "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100, "block_configs": [
      {"attention": {"replace_with_linear": true}, "ffn": {"replace_with_linear": true}},
      {"attention": {"n_heads_in_group": 2, "window_length": 32}, "ffn": {"no_op": true}}]})",
                                        "config.json"));
  std::map<std::string, Shape> shapes;
  for (const TemplateTensor& x : t.tensors) shapes[x.name] = x.shape;
  EXPECT_EQ(shapes.at("model.layers.0.self_attn.linear_attn.weight"), (Shape{64, 64}));
  EXPECT_EQ(shapes.at("model.layers.0.mlp.linear_mlp.weight"), (Shape{64, 64}));
  EXPECT_EQ(shapes.at("model.layers.1.self_attn.k_proj.weight"), (Shape{2 * 16, 64}));
  EXPECT_FALSE(shapes.count("model.layers.1.post_attention_layernorm.weight"));
  EXPECT_EQ(t.arch.layers()[0].mixer, Mixer::None);
  EXPECT_EQ(t.arch.layers()[1].attention.span, Span::Sliding);
  EXPECT_EQ(t.arch.layers()[1].attention.window, 32u);
}

// --- what stays unsupported, and the model_type fallback ---

ModelTemplate from_text(const std::string& json) {
  return build_template(ModelConfig::parse(json, "config.json"));
}

void expect_unsupported(const std::string& json, const std::string& what) {
  try {
    from_text(json);
    ADD_FAILURE() << "built: " << json;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("unsupported architecture: " + what), std::string::npos) << e.what();
  }
}

TEST(RemoteCode, VariantsNotDerivedAreRefused) {
  expect_unsupported(R"({"model_type": "chatglm", "num_layers": 28})", "chatglm without");
  expect_unsupported(R"({"model_type": "minicpmv", "version": 2.6})", "minicpmv after MiniCPM-V 2");
  expect_unsupported(R"({"model_type": "minicpmv", "vision_encoder": "vit_base_patch16_224"})",
                     "minicpmv with the timm vision encoder");
  expect_unsupported(R"({"model_type": "minicpm", "num_experts": 8})", "minicpm with experts");
  expect_unsupported(R"({"model_type": "nemotron-nas", "num_hidden_layers": 1, "block_configs": [
      {"attention": {"n_heads_in_group": 8, "sparsify": ["x"]}, "ffn": {"ffn_mult": 1}}]})",
                     "nemotron-nas with sparsify");
  expect_unsupported(R"({"model_type": "kimi_k2", "moe_layer_freq": 2, "n_shared_experts": 1})",
                     "kimi_k2 with moe_layer_freq");
}

// Qwen-VL-Chat-Int4: Qwen-7B-Chat-Int4's language model (the same sizes, quantized alike) beside the visual
// module of config.visual, which AutoGPTQ left in fp16. Its index names every visual tensor the template
// stores and nothing else beside the language model's; its total_size exceeds Qwen-7B-Chat-Int4's by the
// tower's values at two bytes each. By hand from visual.py: 1,664 wide, 48 blocks (38,361,728 each, an MLP
// of int(1664 x 4.9231) = 8,192), 978,432 in the patch conv, 425,984 positions, the resampler's 76,054,528
// and the final norms and proj: 1,935,610,624.
TEST(RemoteCode, QwenVlIsQwen7bWithItsVisualModule) {
  if (!test::shared_data()) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = config_dir("Qwen__Qwen-VL-Chat-Int4");
  const ModelTemplate t = load_template(dir);
  EXPECT_TRUE(t.arch.hand_derived);
  std::set<std::string> visual;
  for (const auto& [name, bytes] : stored_bytes(t, {}))
    if (name.starts_with("transformer.visual.")) visual.insert(name);
  const Index vl = read_index(dir / "model.safetensors.index.json");
  const Index lm = read_index(config_dir("Qwen__Qwen-7B-Chat-Int4") / "model.safetensors.index.json");
  std::set<std::string> beyond_lm;
  for (const std::string& name : vl.names)
    if (!lm.names.count(name)) beyond_lm.insert(name);
  EXPECT_EQ(visual.size(), 594u);
  EXPECT_EQ(visual, beyond_lm) << "in the template, not the index:\n"
                               << missing_from(visual, beyond_lm) << "in the index, not the template:\n"
                               << missing_from(beyond_lm, visual);
  const uint64_t tower = num_parameters(dir) - num_parameters(config_dir("Qwen__Qwen-7B-Chat-Int4"));
  EXPECT_EQ(tower, 1'935'610'624u);
  EXPECT_EQ(vl.total_size - lm.total_size, 2 * tower);
  // The index alone: every tensor predicted, their bytes the index's total_size.
  const Inventory inv = build_inventory(locate_local_model(dir.string()));
  uint64_t predicted = 0;
  for (const InventoryTensor& x : inv.tensors) predicted += x.bytes;
  EXPECT_EQ(predicted, vl.total_size);
  const ParameterCounts counts = count_parameters(inv);
  EXPECT_EQ(counts.towers, tower);  // no text token runs the tower
  EXPECT_EQ(counts.active, counts.total - tower);
}

TEST(RemoteCode, QwenVlVisualSizesComeFromItsConfig) {
  const ModelTemplate t = from_text(R"({"model_type": "qwen", "hidden_size": 256, "num_attention_heads": 2,
      "num_hidden_layers": 1, "intermediate_size": 512, "visual": {"width": 64, "layers": 2, "heads": 4,
      "mlp_ratio": 2.6, "patch_size": 14, "image_size": 224, "output_dim": 256, "n_queries": 16}})");
  std::map<std::string, Shape> shapes;
  for (const TemplateTensor& x : t.tensors) shapes[x.name] = x.shape;
  EXPECT_EQ(shapes.at("transformer.visual.conv1.weight"), (Shape{64, 3, 14, 14}));
  EXPECT_EQ(shapes.at("transformer.visual.transformer.resblocks.1.mlp.c_fc.weight"),
            (Shape{166, 64}));  // int(166.4)
  EXPECT_EQ(shapes.at("transformer.visual.attn_pool.query"), (Shape{16, 256}));
  EXPECT_EQ(shapes.at("transformer.visual.attn_pool.kv_proj.weight"), (Shape{256, 64}));
  EXPECT_EQ(shapes.at("transformer.visual.proj"), (Shape{256, 256}));
  EXPECT_FALSE(shapes.count("transformer.visual.attn_pool.ln_post.weight"));  // on the tower, not the pool
  const StackSpec* vision = t.arch.stack(StackRole::Vision);
  ASSERT_NE(vision, nullptr);
  EXPECT_EQ(vision->layers.size(), 2u);
  // visual.py has no defaults for the tower's sizes; output_dim must give the resampler whole heads.
  EXPECT_THROW(from_text(R"({"model_type": "qwen", "visual": {"width": 64, "layers": 2, "heads": 4,
      "patch_size": 14, "image_size": 224}})"),
               Error);
  EXPECT_THROW(from_text(R"({"model_type": "qwen", "visual": {"width": 64, "layers": 2, "heads": 4,
      "mlp_ratio": 2, "patch_size": 14, "image_size": 224, "output_dim": 257}})"),
               Error);
}

TEST(RemoteCode, SmallConfigsOfEachFamilyBuild) {
  // The families' own defaults fill everything a config leaves out.
  for (const char* type : {"qwen", "baichuan", "internlm", "internlm2", "stablelm_epoch", "minicpm",
                           "minicpmv", "RefinedWeb", "RefinedWebModel", "mimo"}) {
    ModelTemplate t = from_text(std::string(R"({"model_type": ")") + type + "\"}");
    EXPECT_TRUE(t.arch.hand_derived) << type;
    EXPECT_FALSE(t.arch.layers().empty()) << type;
  }
  ModelTemplate glm2 = from_text(R"({"model_type": "chatglm", "padded_vocab_size": 100, "num_layers": 2,
      "hidden_size": 64, "kv_channels": 16, "num_attention_heads": 4, "ffn_hidden_size": 96,
      "multi_query_attention": true, "multi_query_group_num": 2, "add_qkv_bias": true})");
  EXPECT_EQ(glm2.arch.layers().at(0).attention.kind, AttentionKind::Gqa);
  EXPECT_EQ(glm2.tensors.at(1).name, "transformer.rotary_pos_emb.inv_freq");
  EXPECT_EQ(glm2.tensors.at(1).shape, (Shape{4}));  // RotaryEmbedding(16 // 2): arange(0, 8, 2)
  // dense_h_to_4h holds gate and up fused (2 x 96 rows for a 96-wide dense_4h_to_h): a gated MLP, though
  // its name is GPT-NeoX's plain up projection's. ChatGLM-6B's (GELU) is ungated.
  EXPECT_TRUE(glm2.arch.layers().at(0).ffn.gated);
  ModelTemplate glm1 = from_text(R"({"model_type": "chatglm", "vocab_size": 100, "num_layers": 1,
      "hidden_size": 64, "num_attention_heads": 4, "inner_hidden_size": 256, "pre_seq_len": 8})");
  EXPECT_EQ(glm1.tensors.back().name, "lm_head.weight");
  EXPECT_EQ(glm1.tensors.back().tied_to, "transformer.word_embeddings.weight");
  EXPECT_EQ(glm1.tensors[glm1.tensors.size() - 2].shape, (Shape{8, 1 * 64 * 2}));  // prefix_encoder table
  EXPECT_FALSE(glm1.arch.layers().at(0).ffn.gated);
}

// distilgpt2's config names no model_type (transformers refuses it); its class GPT2LMHeadModel names gpt2,
// whose count transformers gives as 81,912,576 (6 layers of 768, 50,257 tokens, 1,024 positions, tied head).
TEST(RemoteCode, ConfigWithoutModelTypeFallsBackToItsClass) {
  ModelTemplate t = from_text(R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 768, "n_head": 12,
      "n_layer": 6, "n_positions": 1024, "vocab_size": 50257})");
  EXPECT_EQ(t.arch.model_type, "gpt2");
  EXPECT_FALSE(t.arch.hand_derived);
  if (auto data = test::shared_data()) {
    EXPECT_EQ(num_parameters(*data / "hf-configs" / "distilbert__distilgpt2"), 81'912'576u);
  }
  expect_unsupported(R"({"architectures": ["FrobnitzForCausalLM"]})", "the config names no model_type");
  expect_unsupported(R"({"hidden_size": 8})", "the config names no model_type");
}

}  // namespace
}  // namespace ma

// `modelanalyzer stats` and `compare` end to end on files the test writes (values chosen so every expected
// figure is worked out by hand) and on the ../shared PEFT fixture.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <thread>
#include <tuple>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/ggml_dequant.h"
#include "formats/gguf_writer.h"
#include "formats/safetensors_writer.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

TEST(CliStats, HandWorkedFigures) {
  TempDir dir;
  // 0, 1, 2, 3, NaN, +Inf, -0: finite values 0, 1, 2, 3, 0 -> mean 1.2, var 1.36, min 0, max 3, zeros 2/7.
  write_safetensors(
      dir / "m.safetensors",
      {{"model.layers.3.self_attn.q_proj.weight", DType::F32, {7}, f32({0, 1, 2, 3, NAN, INFINITY, -0.0f})},
       {"model.norm.weight", DType::F32, {2, 2}, f32({1, 1, 1, 1})}});
  CommandResult r = run_cli("stats '" + (dir / "m.safetensors").string() + "' --json --bins 3 --eps 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stats");
  const json::Value& q = tensor(d, "model.layers.3.self_attn.q_proj.weight");
  EXPECT_DOUBLE_EQ(q.find("mean")->as_double(), 1.2);
  EXPECT_DOUBLE_EQ(q.find("var")->as_double(), 1.36);
  EXPECT_DOUBLE_EQ(q.find("l2_norm")->as_double(), std::sqrt(14.0));
  EXPECT_EQ(q.find("nan_count")->as_uint(), 1u);
  EXPECT_EQ(q.find("inf_count")->as_uint(), 1u);
  EXPECT_DOUBLE_EQ(q.find("zeros_fraction")->as_double(), 2.0 / 7);
  EXPECT_DOUBLE_EQ(q.find("near_zero_fraction")->as_double(), 3.0 / 7);  // 0, -0, 1
  EXPECT_DOUBLE_EQ(q.find("percentiles")->find("p50")->as_double(), 1.0);
  EXPECT_DOUBLE_EQ(q.find("percentiles")->find("p99")->as_double(), 2.96);  // rank 3.96 of 0,0,1,2,3
  std::vector<uint64_t> counts;
  for (const json::Value& c : q.find("histogram")->find("counts")->items()) counts.push_back(*c.as_uint());
  EXPECT_EQ(counts, (std::vector<uint64_t>{2, 1, 2}));  // [0,1) [1,2) [2,3]
  EXPECT_EQ(q.find("layer")->as_uint(), 3u);
  EXPECT_EQ(q.find("module_class")->as_string(), "q_proj");
  EXPECT_TRUE(q.find("rows")->is_null());
  const json::Value& n = tensor(d, "model.norm.weight");
  EXPECT_DOUBLE_EQ(n.find("std")->as_double(), 0);
  // A constant's kurtosis is m4 / m2² = 0 / 0: undefined, null (scipy.stats.kurtosis: nan), not 0.
  EXPECT_TRUE(n.find("kurtosis")->is_null());
  EXPECT_EQ(n.find("design_rank")->as_uint(), 2u);
  EXPECT_EQ(n.find("module_class")->as_string(), "norm");
  const json::Value& summary = *d.root().find("summary");
  EXPECT_EQ(summary.find("total_parameters")->as_uint(), 11u);
  // The scan's rate, which the stderr line prints, is in the JSON too: its bytes (11 float32) over its time,
  // in decimal GB/s; null only for a scan too short for the clock.
  EXPECT_EQ(summary.find("bytes")->as_uint(), 44u);
  const double seconds = summary.find("seconds")->as_double();
  if (seconds > 0) {
    EXPECT_DOUBLE_EQ(summary.find("gb_per_s")->as_double(), 44 / 1e9 / seconds);
  } else {
    EXPECT_TRUE(summary.find("gb_per_s")->is_null());
  }
}

// float64 values near its maximum overflow the second moment: std, the L2 norm and kurtosis are undefined
// (null, "-" in the table, as a constant's kurtosis is), never a number nor "-nan"; min, max and mean stay
// exact.
TEST(CliStats, MomentsThatOverflowAreUndefinedEverywhere) {
  TempDir dir;
  const double values[] = {1e300, -1e300, 1.7e308};
  write_safetensors(
      dir / "m.safetensors",
      {{"w", DType::F64, {3}, std::string(reinterpret_cast<const char*>(values), sizeof values)}});
  CommandResult r = run_cli("stats " + quoted(dir / "m.safetensors") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stats");
  const json::Value& w = tensor(d, "w");
  EXPECT_TRUE(w.find("std")->is_null());
  EXPECT_TRUE(w.find("kurtosis")->is_null());
  EXPECT_EQ(w.find("max")->as_double(), 1.7e308);
  CommandResult text = run_cli("stats " + quoted(dir / "m.safetensors"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find("nan"), std::string::npos) << text.out;
}

// A tensor with no finite value has no mean, std, min or percentile (empty cells, null in the JSON), but
// its fractions and L2 norm are 0, as the JSON gives them: 0 of its elements are zero.
TEST(CliStats, CsvGivesTheTotalsOfATensorWithNoFiniteValue) {
  TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  write_safetensors(dir / "n.safetensors", {{"w", DType::F32, {4}, f32({nan, nan, nan, nan})}});
  CommandResult r = run_cli("stats " + quoted(dir / "n.safetensors") + " --csv - --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream csv(r.out);
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted_cell = false;
    for (char c : line) {
      if (c == '"') quoted_cell = !quoted_cell;
      if (c == ',' && !quoted_cell)
        out.emplace_back();
      else
        out.back() += c;
    }
    return out;
  };
  const std::vector<std::string> names = cells(header), values = cells(row);
  ASSERT_EQ(names.size(), values.size()) << r.out;
  auto cell = [&](const std::string& name) {
    const auto at = std::find(names.begin(), names.end(), name);
    return at == names.end() ? std::string("(no column)") : values[at - names.begin()];
  };
  EXPECT_EQ(cell("nan_count"), "4");
  EXPECT_EQ(cell("zeros_fraction"), "0");
  EXPECT_EQ(cell("sparsity"), "0");
  EXPECT_EQ(cell("l2_norm"), "0");
  EXPECT_EQ(cell("mean"), "");
  EXPECT_EQ(cell("p50"), "");
}

// Nothing to scan names why: the flags that narrowed the selection, or a checkpoint with no tensor (it named
// --include when none was given).
TEST(CliStats, AnEmptySelectionNamesItsCause) {
  TempDir dir;
  write_safetensors(dir / "empty.safetensors", {});
  CommandResult empty = run_cli("stats " + quoted(dir / "empty.safetensors"));
  EXPECT_EQ(empty.exit_code, 8);
  EXPECT_NE(empty.err.find("tensors: the checkpoint holds no tensor"), std::string::npos) << empty.err;
  CommandResult narrowed = run_cli("spectrum " + example() + " --exclude '*' --layers 0-1");
  EXPECT_EQ(narrowed.exit_code, 8);
  EXPECT_NE(narrowed.err.find("--exclude, --layers: no tensor matches the selection"), std::string::npos)
      << narrowed.err;
}

TEST(CliStats, PackedF4ValuesLowNibbleFirst) {
  TempDir dir;
  // float4_e2m1fn_x2: 0x21 holds 0.5 (low nibble 1) then 1.0 (high nibble 2); 0xF7 holds 6 then -6.
  write_safetensors(dir / "f4.safetensors", {{"w", DType::F4, {4}, std::string("\x21\xF7", 2)}});
  CommandResult r = run_cli("stats '" + (dir / "f4.safetensors").string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stats");
  const json::Value& w = tensor(d, "w");
  EXPECT_DOUBLE_EQ(w.find("mean")->as_double(), (0.5 + 1.0 + 6 - 6) / 4);
  EXPECT_DOUBLE_EQ(w.find("min")->as_double(), -6);
  EXPECT_DOUBLE_EQ(w.find("max")->as_double(), 6);
  EXPECT_EQ(w.find("numel")->as_uint(), 4u);
}

// The order statistics and histogram of two tensors' stats JSON are the same, exactly.
void expect_same_distribution(const json::Value& a, const json::Value& b) {
  for (const char* p : {"p0.1", "p1", "p50", "p99", "p99.9"})
    EXPECT_EQ(a.find("percentiles")->find(p)->as_double(), b.find("percentiles")->find(p)->as_double()) << p;
  std::vector<uint64_t> ca, cb;
  for (const json::Value& c : a.find("histogram")->find("counts")->items()) ca.push_back(*c.as_uint());
  for (const json::Value& c : b.find("histogram")->find("counts")->items()) cb.push_back(*c.as_uint());
  EXPECT_EQ(ca, cb);
}

// A GGUF tensor's statistics are those of the values it decodes to: the same as the statistics of those
// values stored as F32, every figure. Q8_0 decodes to d x q; IQ2_XXS, a lookup-grid type, here to +-d * (2r +
// 1) in run r: every grid index is 0 (the entry of eight 8s) and run r's scale is r, so (d * (0.5 + r) *
// 0.25) * 8.
TEST(CliStats, QuantizedGgufEqualsItsDecodedValues) {
  TempDir dir;
  std::string blocks, floats;
  for (int b = 0; b < 8; ++b) {
    const uint16_t d = static_cast<uint16_t>(0x3800 + 0x400 * (b % 3));  // fp16 0.5, 1, 2
    const float scale = 0.5f * static_cast<float>(1 << (b % 3));
    blocks += static_cast<char>(d & 0xff);
    blocks += static_cast<char>(d >> 8);
    for (int i = 0; i < 32; ++i) {
      const int8_t q = static_cast<int8_t>((b * 37 + i * 11) % 255 - 127);
      blocks += static_cast<char>(q);
      const float v = scale * static_cast<float>(q);
      floats.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  std::string iq_blocks, iq_floats;
  for (int b = 0; b < 4; ++b) {
    const uint16_t d = static_cast<uint16_t>(0x3800 + 0x400 * (b % 3));
    const float scale = 0.5f * static_cast<float>(1 << (b % 3));
    iq_blocks += static_cast<char>(d & 0xff);
    iq_blocks += static_cast<char>(d >> 8);
    for (int r = 0; r < 8; ++r) {
      uint32_t aux = static_cast<uint32_t>(r) << 28;  // the scale; below it four 7-bit sign fields
      for (int l = 0; l < 4; ++l) {
        const unsigned signs = (b * 29 + r * 11 + l * 7) & 127;
        aux |= signs << (7 * l);
        for (int j = 0; j < 8; ++j) {  // the eighth sign makes the number of negated elements even
          const bool negative = j < 7 ? ((signs >> j) & 1) != 0 : std::popcount(signs) % 2 == 1;
          const float v = (negative ? -scale : scale) * static_cast<float>(2 * r + 1);
          iq_floats.append(reinterpret_cast<const char*>(&v), 4);
        }
      }
      iq_blocks += std::string(4, '\0');  // grid indices
      for (int k = 0; k < 4; ++k) iq_blocks += static_cast<char>(aux >> (8 * k));
    }
  }
  write_gguf(dir / "q.gguf", {gguf_string("general.architecture", "llama")},
             {{"blk.0.attn_q.weight", DType::Q8_0, {4, 64}, blocks},
              {"blk.0.attn_k.weight", DType::IQ2_XXS, {4, 256}, iq_blocks}});
  write_safetensors(dir / "f.safetensors", {{"blk.0.attn_q.weight", DType::F32, {4, 64}, floats},
                                            {"blk.0.attn_k.weight", DType::F32, {4, 256}, iq_floats}});
  CommandResult q = run_cli("stats '" + (dir / "q.gguf").string() + "' --json");
  CommandResult f = run_cli("stats '" + (dir / "f.safetensors").string() + "' --json");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(q.err.find("blocks"), std::string::npos) << q.err;  // no type left out
  json::Document dq = json::Document::parse(q.out, "gguf"), df = json::Document::parse(f.out, "f32");
  for (const auto& [name, dtype, numel] : {std::tuple{"blk.0.attn_q.weight", "q8_0", 256u},
                                           std::tuple{"blk.0.attn_k.weight", "iq2_xxs", 1024u}}) {
    SCOPED_TRACE(name);
    const json::Value& a = tensor(dq, name);
    const json::Value& b = tensor(df, name);
    EXPECT_EQ(a.find("dtype")->as_string(), dtype);
    EXPECT_EQ(a.find("numel")->as_uint(), numel);
    for (const char* k :
         {"mean", "std", "var", "min", "max", "abs_max", "l2_norm", "zeros_fraction", "kurtosis"})
      EXPECT_EQ(a.find(k)->as_double(), b.find(k)->as_double()) << k;
    expect_same_distribution(a, b);
  }
}

// Block types give the statistics of their decoded elements stored as F32: counts, extremes, percentiles and
// histogram exactly; the moments to the last bits. The types read in their level form (formats/ggml_levels.h:
// each group's levels weighted by how many of its elements hold them) sum the same exact terms in another
// order; the others are decoded to float32 and read as F32 is. Random blocks, so scales include NaN,
// infinite and subnormal ones: pieces with NaN or infinite values, left out.
TEST(CliStats, BlockTypesGgufEqualTheirDecodedValues) {
  TempDir dir;
  std::mt19937 rng(7);
  std::vector<TensorToWrite> blocks, floats;
  for (DType t :
       {DType::Q4_0, DType::Q4_1, DType::IQ4_NL, DType::IQ4_XS, DType::MXFP4, DType::Q2_K, DType::Q3_K,
        DType::Q4_K, DType::Q5_0, DType::Q8_0, DType::Q5_K, DType::Q6_K, DType::IQ2_XXS}) {
    const DTypeInfo& info = dtype_info(t);
    const Shape shape{8, 4 * info.block_elements};
    const size_t count = 32;  // blocks
    std::string bytes(count * info.block_bytes, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    std::vector<float> decoded(count * info.block_elements);
    dequantize_blocks(t, reinterpret_cast<const uint8_t*>(bytes.data()), count, decoded.data());
    const std::string name = "blk.0." + std::string(info.short_name) + ".weight";
    blocks.push_back({name, t, shape, bytes});
    floats.push_back({name, DType::F32, shape,
                      std::string(reinterpret_cast<const char*>(decoded.data()), decoded.size() * 4)});
  }
  write_gguf(dir / "q.gguf", {gguf_string("general.architecture", "llama")}, blocks);
  write_safetensors(dir / "f.safetensors", floats);
  CommandResult q = run_cli("stats '" + (dir / "q.gguf").string() + "' --json");
  CommandResult f = run_cli("stats '" + (dir / "f.safetensors").string() + "' --json");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  ASSERT_EQ(f.exit_code, 0) << f.err;
  json::Document dq = json::Document::parse(q.out, "gguf"), df = json::Document::parse(f.out, "f32");
  for (const TensorToWrite& t : blocks) {
    SCOPED_TRACE(t.name);
    const json::Value& a = tensor(dq, t.name);
    const json::Value& b = tensor(df, t.name);
    for (const char* k : {"numel", "nan_count", "inf_count"})
      EXPECT_EQ(a.find(k)->as_uint(), b.find(k)->as_uint()) << k;
    for (const char* k : {"min", "max", "abs_max", "zeros_fraction", "near_zero_fraction"})
      EXPECT_EQ(a.find(k)->as_double(), b.find(k)->as_double()) << k;
    for (const char* k : {"mean", "std", "var", "l2_norm", "kurtosis"}) {
      const double x = a.find(k)->as_double(), y = b.find(k)->as_double();
      EXPECT_NEAR(x, y, 1e-12 * std::fabs(y)) << k;
    }
    expect_same_distribution(a, b);
  }
}

TEST(CliStats, ShardedCheckpointAsAWhole) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *data / "fixtures" / "tiny-llama-sharded";
  CommandResult r = run_cli("stats '" + dir.string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stats");
  EXPECT_EQ(d.root().find("summary")->find("total_parameters")->as_uint(),
            parse_json_file(dir / "EXPECTED.json").root().find("num_params")->as_uint());
}

TEST(CliStats, InterruptLeavesNoOutputFile) {
  TempDir dir;
  // 4 GB of BF16 zeros as a sparse file: a scan of a second or more, long enough to interrupt.
  write_safetensors(dir / "big.safetensors", {{"w", DType::BF16, {uint64_t{2} << 30}, {}}});
  const fs::path out = dir / "stats.json";
  pid_t pid = start_cli({"stats", (dir / "big.safetensors").string(), "--export", out.string(), "--quiet"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliStats, SelectionAndExports) {
  TempDir dir;
  write_safetensors(dir / "m.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {2}, f32({1, 2})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {2}, f32({3, 4})},
                     {"model.embed_tokens.weight", DType::F32, {2}, f32({5, 6})}});
  const std::string file = "'" + (dir / "m.safetensors").string() + "'";
  CommandResult layers = run_cli("stats " + file + " --layers 1-1 --json");
  ASSERT_EQ(layers.exit_code, 0) << layers.err;
  EXPECT_EQ(json::Document::parse(layers.out, "x").root().find("tensors")->items().size(), 1u);
  CommandResult inc = run_cli("stats " + file + " --include '*embed*' --csv '" + (dir / "s.csv").string() +
                              "' --export-markdown '" + (dir / "s.md").string() + "' --quiet");
  ASSERT_EQ(inc.exit_code, 0) << inc.err;
  std::string csv = read_file(dir / "s.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n'))
                .find("model_path,model_id,revision,param_name,layer_index,block_type,shape,rows,"
                      "cols,design_rank,mean,std,var,sparsity,dtype,created_at"),
            0u);
  EXPECT_NE(csv.find(",model.embed_tokens.weight,,embedding,\"(2,)\","), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);
  EXPECT_NE(read_file(dir / "s.md").find("| model.embed_tokens.weight |"), std::string::npos);
  CommandResult none = run_cli("stats " + file + " --include 'nothing*'");
  EXPECT_EQ(none.exit_code, 8);
  CommandResult bad = run_cli("stats " + file + " --layers 3-1");
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(CliStats, ConsoleHasSeed001Tables) {
  CommandResult r = run_cli("stats " + example());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s :
       {"SUMMARY", "Total parameters:         151,872", "Trainable params:         151,872", "LAYER DETAILS",
        "WEIGHT STATISTICS", "model.layers.0.self_attn.q_proj.weight          (64, 64)"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(CliStats, ConfigOnlyModelNeedsWeights) {
  TempDir dir;
  write_file(dir / "config.json", read_file(example_dir() / "config.json"));
  CommandResult r = run_cli("stats '" + dir.path().string() + "'");
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("statistics need the weight files"), std::string::npos) << r.err;
}

TEST(CliStats, PeftAdapterWithItsBaseFoundBeside) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  CommandResult r = run_cli("stats '" + (*data / "fixtures" / "tiny-llama-lora").string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stats");
  json::Document expected = parse_json_file(*data / "fixtures" / "tiny-llama-lora" / "EXPECTED.json");
  const json::Value& s = *d.root().find("summary");
  EXPECT_EQ(s.find("total_parameters")->as_uint(), expected.root().find("all_params")->as_uint());
  EXPECT_EQ(s.find("trainable_parameters")->as_uint(), expected.root().find("trainable_params")->as_uint());
  EXPECT_FALSE(tensor(d, "model.layers.0.self_attn.q_proj.weight").find("trainable")->as_bool());
  // PEFT saves the adapter without its name ("default") in the tensor names.
  EXPECT_TRUE(tensor(d, "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight")
                  .find("trainable")
                  ->as_bool());
}

// Seed 004's `--model_path data/models`: a directory of models (org/name and name) is scanned model by model
// into one CSV whose model_id column tells them apart, a JSON array, and a console block per model.
TEST(CliStats, ADirectoryOfModelsGivesOneCsv) {
  TempDir dir;
  for (const char* m : {"org/tiny", "plain"}) {
    std::filesystem::create_directories(dir / m);
    for (const char* f : {"config.json", "model.safetensors"})
      std::filesystem::copy_file(example_dir() / f, dir / m / f);
  }
  CommandResult single = run_cli("stats " + example() + " --json");
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const size_t tensors = json::Document::parse(single.out, "one").root().find("tensors")->items().size();
  CommandResult r = run_cli("stats '" + dir.path().string() + "' --csv - --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, size_t> rows;
  std::istringstream csv(r.out);
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("model_path,model_id,", 0), 0u) << line;
  while (std::getline(csv, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1);
    ++rows[line.substr(a + 1, b - a - 1)];
  }
  EXPECT_EQ(rows, (std::map<std::string, size_t>{{"org/tiny", tensors}, {"plain", tensors}}));
  CommandResult j = run_cli("stats '" + dir.path().string() + "' --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json::Document d = json::Document::parse(j.out, "array");
  ASSERT_EQ(d.root().items().size(), 2u);
  EXPECT_EQ(d.root().items()[1].find("model_id")->as_string(), "plain");
  EXPECT_NE(run_cli("stats '" + dir.path().string() + "'").out.find("MODEL org/tiny"), std::string::npos);
  EXPECT_EQ(run_cli("stats '" + dir.path().string() + "' --plot x.svg").exit_code, 2);
}

// Seed 004's "every cached repo": the Hugging Face cache is such a directory; a snapshot there is the repo
// org/name (models--org--name) at its commit, in the model_id and revision columns.
TEST(CliStats, TheHuggingFaceCacheGivesRepoIdsAndCommits) {
  TempDir cache;
  const std::string commit = "89abcdef0123456789abcdef0123456789abcdef";
  for (const char* repo : {"models--org--tiny", "models--plain"}) {
    const auto snap = cache / repo / "snapshots" / commit;
    std::filesystem::create_directories(snap);
    for (const char* f : {"config.json", "model.safetensors"})
      std::filesystem::copy_file(example_dir() / f, snap / f);
  }
  CommandResult r = run_cli("stats '" + cache.path().string() + "' --csv - --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> revision_of;
  std::istringstream csv(r.out);
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    revision_of[line.substr(a + 1, b - a - 1)] = line.substr(b + 1, c - b - 1);
  }
  EXPECT_EQ(revision_of, (std::map<std::string, std::string>{{"org/tiny", commit}, {"plain", commit}}));
}

TEST(CliCompare, DriftFiguresMissingExtraAndFlags) {
  TempDir dir;
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({1, 2, 3, 4})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {2}, f32({1, 1})},
                     {"only_a", DType::F32, {1}, f32({1})}});
  write_safetensors(
      dir / "b.safetensors",
      {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({2, 4, 6, 8})},
       {"model.layers.1.mlp.up_proj.weight", DType::BF16, {2}, std::string("\x80\x3f\x80\x3f", 4)},
       {"only_b", DType::F32, {1}, f32({1})}});
  CommandResult r = run_cli("compare '" + (dir / "a.safetensors").string() + "' '" +
                            (dir / "b.safetensors").string() + "' --json --threshold 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  const json::Value& t0 = tensor(d, "model.layers.0.mlp.up_proj.weight");
  EXPECT_DOUBLE_EQ(t0.find("mean_drift")->as_double(), 2.5);
  EXPECT_DOUBLE_EQ(t0.find("std_ratio")->as_double(), 2.0);
  EXPECT_DOUBLE_EQ(t0.find("rel_l2")->as_double(), 1.0);
  EXPECT_DOUBLE_EQ(t0.find("cosine")->as_double(), 1.0);
  EXPECT_DOUBLE_EQ(t0.find("max_abs_diff")->as_double(), 4.0);
  EXPECT_TRUE(t0.find("flagged")->as_bool());
  const json::Value& t1 = tensor(d, "model.layers.1.mlp.up_proj.weight");  // f32 1.0 vs bf16 1.0
  EXPECT_DOUBLE_EQ(t1.find("rel_l2")->as_double(), 0.0);
  EXPECT_FALSE(t1.find("flagged")->as_bool());
  EXPECT_EQ(d.root().find("tensors")->items()[0].find("name")->as_string(),
            "model.layers.0.mlp.up_proj.weight");
  EXPECT_EQ(d.root().find("missing_in_b")->items()[0].as_string(), "only_a");
  EXPECT_EQ(d.root().find("extra_in_b")->items()[0].as_string(), "only_b");
  EXPECT_EQ(d.root().find("flagged")->as_uint(), 1u);
  CommandResult console = run_cli("compare '" + (dir / "a.safetensors").string() + "' '" +
                                  (dir / "b.safetensors").string() + "'");
  EXPECT_NE(console.out.find("MOST CHANGED TENSORS"), std::string::npos);
  EXPECT_NE(console.out.find("FLAGGED"), std::string::npos);
}

// Two unrelated checkpoints: every mean is 0, so |mean drift| alone (seed 001's rule) flags nothing; the
// default rules flag them by ||B-A||/||A|| and cosine. A's tensor is a, B's an orthogonal b of the same
// norm: rel. L2 = sqrt(2), cosine = 0. The rules each name what they flag; a B that only scales A by 1.01
// (a fine-tune-sized change, cosine 1, rel. L2 0.01) breaks none until --max-diff asks.
TEST(CliCompare, UnrelatedCheckpointsAreFlaggedByDefault) {
  TempDir dir;
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  write_file(dir / "a" / "config.json", R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})");
  write_file(dir / "b" / "config.json",
             R"({"model_type": "mistral", "architectures": ["MistralForCausalLM"]})");
  write_safetensors(dir / "a" / "model.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({1, -1, 1, -1})},
                     {"model.layers.0.mlp.down_proj.weight", DType::F32, {4}, f32({100, -100, 100, -100})}});
  write_safetensors(dir / "b" / "model.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({1, 1, -1, -1})},
                     {"model.layers.0.mlp.down_proj.weight", DType::F32, {4}, f32({101, -101, 101, -101})}});
  const std::string ab = "compare '" + (dir / "a").string() + "' '" + (dir / "b").string() + "' --json";
  CommandResult r = run_cli(ab);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("different architectures"), std::string::npos) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  const json::Value& up = tensor(d, "model.layers.0.mlp.up_proj.weight");
  EXPECT_DOUBLE_EQ(up.find("mean_drift")->as_double(), 0.0);
  EXPECT_DOUBLE_EQ(up.find("cosine")->as_double(), 0.0);
  EXPECT_DOUBLE_EQ(up.find("rel_l2")->as_double(), std::sqrt(2.0));
  std::vector<std::string> why;
  for (const json::Value& v : up.find("flagged_by")->items()) why.emplace_back(v.as_string());
  EXPECT_EQ(why, (std::vector<std::string>{"rel_l2", "cosine"}));
  const json::Value& down = tensor(d, "model.layers.0.mlp.down_proj.weight");
  EXPECT_FALSE(down.find("flagged")->as_bool());
  EXPECT_EQ(d.root().find("flagged")->as_uint(), 1u);
  EXPECT_DOUBLE_EQ(d.root().find("rel_l2_threshold")->as_double(), 0.5);
  EXPECT_DOUBLE_EQ(d.root().find("cosine_threshold")->as_double(), 0.9);
  EXPECT_TRUE(d.root().find("max_abs_threshold")->is_null());
  // max |B-A| of the down projection is 1: flagged once asked, by that rule alone.
  d = json::Document::parse(run_cli(ab + " --max-diff 0.5").out, "compare");
  EXPECT_EQ(tensor(d, "model.layers.0.mlp.down_proj.weight").find("flagged_by")->items()[0].as_string(),
            "max_abs_diff");
  // Seed 001's rule alone (the others off) flags nothing here.
  d = json::Document::parse(run_cli(ab + " --rel-threshold 0 --cos-threshold -1").out, "compare");
  EXPECT_EQ(d.root().find("flagged")->as_uint(), 0u);
}

// A fine-tune that diverged: values that became NaN or Inf change no sum over the finite pairs, so they are
// counted and always flag their tensor; a tensor with no pair finite on both sides has no ratio (null). The
// same NaN on both sides is no change.
TEST(CliCompare, ValuesThatBecameNanOrInfAreFlagged) {
  TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({1, 2, 3, 4})},
                     {"model.layers.0.mlp.down_proj.weight", DType::F32, {2}, f32({1, 2})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {3}, f32({nan, 1, -inf})},
                     {"model.layers.1.mlp.down_proj.weight", DType::F32, {2}, f32({1, 1})}});
  write_safetensors(dir / "b.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({1, nan, 3, inf})},
                     {"model.layers.0.mlp.down_proj.weight", DType::F32, {2}, f32({nan, nan})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {3}, f32({nan, 1, -inf})},
                     {"model.layers.1.mlp.down_proj.weight", DType::F32, {2}, f32({1, 1})}});
  const std::string ab = "compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors");
  CommandResult r = run_cli(ab + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  const json::Value& up = tensor(d, "model.layers.0.mlp.up_proj.weight");
  EXPECT_EQ(up.find("nonfinite_changed")->as_uint(), 2u);
  EXPECT_EQ(up.find("nonfinite_b")->as_uint(), 2u);
  EXPECT_EQ(up.find("flagged_by")->items()[0].as_string(), "nonfinite_changed");
  EXPECT_DOUBLE_EQ(up.find("rel_l2")->as_double(), 0.0);  // over the pairs finite on both sides: 1 and 3
  const json::Value& down = tensor(d, "model.layers.0.mlp.down_proj.weight");
  EXPECT_TRUE(down.find("rel_l2")->is_null());
  EXPECT_TRUE(down.find("cosine")->is_null());
  EXPECT_TRUE(down.find("flagged")->as_bool());
  const json::Value& same = tensor(d, "model.layers.1.mlp.up_proj.weight");
  EXPECT_EQ(same.find("nonfinite_a")->as_uint(), 2u);
  EXPECT_EQ(same.find("nonfinite_changed")->as_uint(), 0u);
  EXPECT_FALSE(same.find("flagged")->as_bool());
  EXPECT_EQ(d.root().find("flagged")->as_uint(), 2u);
  // Most changed first: the tensors that gained NaN/Inf (2 each; then the one with no ratio at all).
  const auto& ranked = d.root().find("tensors")->items();
  EXPECT_EQ(ranked[0].find("name")->as_string(), "model.layers.0.mlp.down_proj.weight");
  EXPECT_EQ(ranked[1].find("name")->as_string(), "model.layers.0.mlp.up_proj.weight");
  CommandResult console = run_cli(ab);
  EXPECT_NE(
      console.out.find("2 flagged (|mean drift| > 0.1, ||B-A||/||A|| > 0.5 or cosine < 0.9), 2 of them with "
                       "NaN/Inf where the other side has none"),
      std::string::npos)
      << console.out;
}

// A side that is all zero has no direction: cosine 1 when both are, 0 when one is; the same rules for a
// tensor and for the layer pooled over its tensors (a layer of zeros in A that B filled read as cosine 1).
TEST(CliCompare, AllZeroSidesFollowOneRuleForTensorsAndLayers) {
  TempDir dir;
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {2}, f32({0, 0})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {2}, f32({0, 0})}});
  write_safetensors(dir / "b.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {2}, f32({1, 2})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {2}, f32({0, 0})}});
  CommandResult r =
      run_cli("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  EXPECT_EQ(tensor(d, "model.layers.0.mlp.up_proj.weight").find("cosine")->as_double(), 0.0);
  EXPECT_EQ(tensor(d, "model.layers.1.mlp.up_proj.weight").find("cosine")->as_double(), 1.0);
  const auto& layers = d.root().find("layers")->items();
  ASSERT_EQ(layers.size(), 2u) << r.out;
  EXPECT_EQ(layers[0].find("cosine")->as_double(), 0.0) << r.out;
  EXPECT_EQ(layers[1].find("cosine")->as_double(), 1.0) << r.out;
  EXPECT_EQ(layers[1].find("rel_l2")->as_double(), 0.0) << r.out;
  // Pooled by B's dtype, the same rule: zero A, nonzero difference is an infinite ratio (null), not 0, and no
  // signal over noise is an SNR of -infinity (null), not +infinity.
  const json::Value& f32_pool = d.root().find("by_dtype_b")->items().at(0);
  EXPECT_TRUE(f32_pool.find("rel_l2")->is_null()) << r.out;
  EXPECT_TRUE(f32_pool.find("snr_db")->is_null()) << r.out;
  // The table says the ratio is infinite (as the CSV does) where the JSON, having no infinity, has null.
  CommandResult console =
      run_cli("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors"));
  EXPECT_EQ(console.out.find("nan"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find(" inf "), std::string::npos) << console.out;
  CommandResult csv = run_cli("compare " + quoted(dir / "a.safetensors") + " " +
                              quoted(dir / "b.safetensors") + " --csv - --quiet");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",inf,"), std::string::npos) << csv.out;
}

// compare's means are compensated sums, as stats' are: [1e30, -1e30, 1] has mean 1/3 in both (a plain sum
// gives 0, and compare's correction pass over the residuals gave 0.56), so a change of 0.5 in the last value
// is a drift of 1/6, under a threshold of 0.2, and no flag.
TEST(CliCompare, MeansOfCancellingValuesAreExact) {
  TempDir dir;
  write_safetensors(dir / "a.safetensors", {{"model.norm.weight", DType::F32, {3}, f32({1e30f, -1e30f, 1})}});
  write_safetensors(dir / "b.safetensors",
                    {{"model.norm.weight", DType::F32, {3}, f32({1e30f, -1e30f, 1.5f})}});
  CommandResult r = run_cli("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors") +
                            " --json --threshold 0.2 --rel-threshold 0 --cos-threshold -1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  const json::Value& t = tensor(d, "model.norm.weight");
  EXPECT_DOUBLE_EQ(t.find("mean_a")->as_double(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(t.find("mean_b")->as_double(), 1.5 / 3);
  EXPECT_DOUBLE_EQ(t.find("mean_drift")->as_double(), 0.5 / 3);
  EXPECT_FALSE(t.find("flagged")->as_bool()) << r.out;
}

// --max-diff 0 asks for any difference at all (a bit-exact copy check): a change of 1e-3 is flagged by it, an
// identical tensor is not; without the flag the rule is off (null).
TEST(CliCompare, MaxDiffZeroFlagsAnyDifference) {
  TempDir dir;
  write_safetensors(dir / "a.safetensors", {{"model.norm.weight", DType::F32, {2}, f32({1, 2})},
                                            {"model.embed_tokens.weight", DType::F32, {2}, f32({3, 4})}});
  write_safetensors(dir / "b.safetensors", {{"model.norm.weight", DType::F32, {2}, f32({1, 2.001f})},
                                            {"model.embed_tokens.weight", DType::F32, {2}, f32({3, 4})}});
  CommandResult r = run_cli("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors") +
                            " --json --max-diff 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  EXPECT_EQ(d.root().find("max_abs_threshold")->as_double(), 0.0);
  const auto& why = tensor(d, "model.norm.weight").find("flagged_by")->items();
  ASSERT_EQ(why.size(), 1u) << r.out;
  EXPECT_EQ(why[0].as_string(), "max_abs_diff");
  EXPECT_FALSE(tensor(d, "model.embed_tokens.weight").find("flagged")->as_bool());
}

// A side without weights (a config alone) is refused, as stats refuses it; two checkpoints whose every shared
// tensor changed shape are compared: each mismatch is listed (it said "no tensors to compare", exit 8).
TEST(CliCompare, AWeightlessSideIsRefusedAndAllMismatchesAreListed) {
  TempDir dir;
  write_safetensors(dir / "a.safetensors", {{"model.norm.weight", DType::F32, {2}, f32({1, 2})}});
  write_safetensors(dir / "b.safetensors", {{"model.norm.weight", DType::F32, {1}, f32({1})}});
  CommandResult mismatch =
      run_cli("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors"));
  EXPECT_EQ(mismatch.exit_code, 0) << mismatch.err;
  EXPECT_NE(mismatch.out.find("model.norm.weight: [2] vs [1]"), std::string::npos) << mismatch.out;
  // The JSON gives the two shapes as arrays, not the console's text.
  CommandResult json_run =
      run_cli("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors") + " --json");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const json::Document d = json::Document::parse(json_run.out, "compare");
  ASSERT_EQ(d.root().find("shape_mismatch")->items().size(), 1u);
  const json::Value& m = d.root().find("shape_mismatch")->items()[0];
  EXPECT_EQ(m.find("name")->as_string(), "model.norm.weight");
  EXPECT_TRUE(m.find("name_b")->is_null());  // B names it as A does
  ASSERT_EQ(m.find("shape_a")->items().size(), 1u);
  EXPECT_EQ(m.find("shape_a")->items()[0].as_uint(), 2u);
  ASSERT_EQ(m.find("shape_b")->items().size(), 1u);
  EXPECT_EQ(m.find("shape_b")->items()[0].as_uint(), 1u);
  CommandResult config = run_cli("compare " + example() + " " + quoted(example_dir() / "config.json"));
  EXPECT_EQ(config.exit_code, 8) << config.err;
  EXPECT_NE(config.err.find("a comparison needs the weight files"), std::string::npos) << config.err;
}

TEST(CliCompare, ACheckpointAgainstItselfHasNoDrift) {
  CommandResult r = run_cli("compare " + example() + " " + example() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "compare");
  EXPECT_EQ(d.root().find("compared")->as_uint(), 21u);
  for (const json::Value& t : d.root().find("tensors")->items()) {
    EXPECT_EQ(t.find("rel_l2")->as_double(), 0.0);
    EXPECT_NEAR(t.find("cosine")->as_double(), 1.0, 1e-12);
  }
}

}  // namespace
}  // namespace ma::test

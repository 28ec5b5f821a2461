// End-to-end: `modelanalyzer perf` on the built-in example writes the issue's JSON fields, the Markdown
// study and the roofline plot, and names the known chips when --hw is wrong. The model itself:
// unit/perf_model_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

TEST(PerfCli, JsonCarriesTheIssuesFieldsAndReportAndPlotAreWritten) {
  TempDir dir;
  CommandResult r = run_cli("perf " + example() + " --hw h200 --batch 16 --json --report " +
                            quoted(dir / "perf.md") + " --plot " + quoted(dir / "roofline.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "perf");
  for (const char* key :
       {"t_est_s", "t_comp_s", "t_hbm_s", "t_net_s", "regime", "flops_theory", "flops_realizable",
        "bytes_hbm", "ai_hbm", "mfu_est", "tokens_per_s", "inputs", "knobs", "hardware", "ops", "capacity"})
    EXPECT_NE(d.root().find(key), nullptr) << key;
  EXPECT_TRUE(d.root().find("capacity")->find("fits")->as_bool());
  const json::Value& op = d.root().find("ops")->items().at(0);
  for (const char* key : {"t_est_s", "t_comp_s", "t_hbm_s", "t_net_s", "regime", "flops_theory",
                          "flops_realizable", "bytes_hbm", "ai_hbm", "m_eff", "eta_tc"})
    EXPECT_NE(op.find(key), nullptr) << key;
  EXPECT_EQ(d.root().find("inputs")->find("batch")->as_uint(), 16u);
  const std::string md = read_file(dir / "perf.md");
  for (const char* section : {"## 1. Architecture Overview", "## 2. Analytical Model", "## 3. Roofline",
                              "## 4. Sensitivity", "## 5. Architectural Limits"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  EXPECT_NE(read_file(dir / "roofline.svg").find("<svg"), std::string::npos);
  CommandResult bad = run_cli("perf " + example() + " --hw no-such-chip");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("h200-measured"), std::string::npos) << "the error lists the known chips";
}

// Seed 001's report controls: the roofline draws the step the tables show (its chip and dtype) unless asked
// for others, its axes and labels obey --roofline-x/-y/-labels, --b-sat sets the tensor-core saturation the
// model uses, and --sensitivity sizes the knob grid; the console's MFU names the peak it divides by.
TEST(PerfCli, ReportControlsOfSeedOne) {
  TempDir dir;
  const std::string perf = "perf " + example() + " --hw h200";
  ASSERT_EQ(run_cli(perf + " --plot " + quoted(dir / "r.svg")).exit_code, 0);
  const std::string svg = read_file(dir / "r.svg");
  EXPECT_NE(svg.find("H200 SXM 141 GB \u00b7 BF16"), std::string::npos) << "the example computes in bf16";
  EXPECT_EQ(svg.find("FP8"), std::string::npos);
  EXPECT_EQ(svg.find("B200"), std::string::npos) << "one panel: the --hw chip";
  ASSERT_EQ(
      run_cli(perf + " --roofline-labels none --roofline-x 1,10 --plot " + quoted(dir / "n.svg")).exit_code,
      0);
  const std::string none = read_file(dir / "n.svg");
  EXPECT_NE(none.find("No point is labelled"), std::string::npos);
  EXPECT_NE(none.find("outside the axis limits not drawn"), std::string::npos)
      << "elementwise ops sit below AI 1";
  auto json = [&](const std::string& extra) {
    CommandResult r = run_cli(perf + " --json " + extra);
    EXPECT_EQ(r.exit_code, 0) << extra << ": " << r.err;
    return json::Document::parse(r.out, extra);
  };
  EXPECT_DOUBLE_EQ(json("--b-sat 128").root().find("hardware")->find("b_sat")->as_double(), 128.0);
  EXPECT_EQ(json("--sensitivity small").root().find("study")->find("sensitivity")->items().size(), 4u);
  EXPECT_EQ(json("--sensitivity large").root().find("study")->find("sensitivity")->items().size(), 72u);
  EXPECT_NE(run_cli(perf).out.find("of P_peak 989.4 TFLOP/s (bf16, h200)"), std::string::npos);
  EXPECT_EQ(run_cli(perf + " --roofline-x 5,1").exit_code, 2);
  EXPECT_EQ(run_cli(perf + " --sensitivity huge").exit_code, 2);
}

// A chip --plot-hw does not know is named as --plot-hw's (it was blamed on --hw, which was right).
TEST(PerfCli, AnUnknownPlotChipNamesPlotHw) {
  TempDir dir;
  const CommandResult r =
      run_cli("perf " + example() + " --hw h200 --plot-hw no-such-chip --plot " + quoted(dir / "r.svg"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--plot-hw: unknown hardware 'no-such-chip'"), std::string::npos) << r.err;
}

// ChatGLM names its decoder layers "transformer.encoder.layers": a decode step streams them all. It was timed
// as the LM head alone (533 MB: 6,113 tokens/s for a 6.2B model on one H100, 14 times what HBM allows).
TEST(PerfCli, ADecoderStackNamedEncoderIsStreamedEveryToken) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const CommandResult r =
      run_cli("perf " + quoted(*data / "hf-configs" / "THUDM__chatglm2-6b") + " --hw h100-sxm --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "perf");
  // Its config: 28 layers of hidden 4096, QKV 4096 x (4096 + 2 x 2 groups x 128), dense 4096 x 4096, a gated
  // MLP 4096 x 2 x 13,696 and 13,696 x 4096: 203.9M weights a layer, 11.4 GB in bf16 over the 28.
  const double layer_weight_bytes =
      28.0 * 2 * (4096.0 * 4608 + 4096.0 * 4096 + 4096.0 * 2 * 13696 + 13696.0 * 4096);
  EXPECT_GT(d.root().find("bytes_weights")->as_double(), layer_weight_bytes);
  const double hbm_bytes_per_s = d.root().find("hardware")->find("hbm_gbps")->as_double() * 1e9;
  EXPECT_LT(d.root().find("tokens_per_s")->as_double(), hbm_bytes_per_s / layer_weight_bytes);
}

// ChatGLM-6B stores its LM head though it is tied to the embedding: one tensor, one row, one GEMM a step. The
// template's unstored tied copy was listed beside the stored one, and perf timed the 1.07 GB head twice.
TEST(PerfCli, AStoredTiedLmHeadIsOneMatrix) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const fs::path model = *data / "hf-configs" / "THUDM__chatglm-6b";
  const CommandResult t = run_cli("tensors " + quoted(model) + " --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(occurrences(t.out, "\"name\":\"lm_head.weight\""), 1u);
  const CommandResult r = run_cli("perf " + quoted(model) + " --hw h100-sxm --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "perf");
  size_t heads = 0;
  for (const json::Value& op : d.root().find("ops")->items())
    heads += op.find("name")->as_string() == "lm_head.weight";
  EXPECT_EQ(heads, 1u);
}

// A 4-bit checkpoint with its headers stores each linear packed: GPTQ's qweight is [in/8, out] of int32,
// compressed-tensors' weight_packed [out, in/8]. The step multiplies the matrices the model builds: its FLOPs
// are its unquantized twin's (config alone), where the packed shapes gave 1/8 of them (and
// compressed-tensors' "weight_packed", not named "weight", none); and the bytes it reads are the packed ones
// with their scales, zero points and group indices (tensors of their own, left out before), and a tied LM
// head's are the fp16 embedding it shares (it was timed at 4 bits).
TEST(PerfCli, PackedQuantizedMatricesAreTheMatricesTheyPack) {
  const std::string base = R"("model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
    "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "head_dim": 16, "vocab_size": 256, "max_position_embeddings": 512, "torch_dtype": "float16")";
  const std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> linears = {
      {"self_attn.q_proj", {64, 64}}, {"self_attn.k_proj", {32, 64}}, {"self_attn.v_proj", {32, 64}},
      {"self_attn.o_proj", {64, 64}}, {"mlp.gate_proj", {128, 64}},   {"mlp.up_proj", {128, 64}},
      {"mlp.down_proj", {64, 128}}};
  // Writes the checkpoint; returns the bytes of the layers' matrices as stored, scales included.
  auto write = [&](const fs::path& dir, bool gptq, bool tied) {
    fs::create_directories(dir);
    std::vector<TensorToWrite> t = {{"model.embed_tokens.weight", DType::F16, {256, 64}, ""},
                                    {"model.norm.weight", DType::F16, {64}, ""}};
    if (!tied) t.push_back({"lm_head.weight", DType::F16, {256, 64}, ""});
    uint64_t packed_bytes = 0;
    for (int l = 0; l < 2; ++l) {
      const std::string p = "model.layers." + std::to_string(l) + ".";
      t.push_back({p + "input_layernorm.weight", DType::F16, {64}, ""});
      t.push_back({p + "post_attention_layernorm.weight", DType::F16, {64}, ""});
      for (const auto& [name, shape] : linears) {
        const auto [out, in] = shape;
        packed_bytes += out * in / 2 + (gptq ? 4 * (in / 32) * (out / 8) + 2 * (in / 32) * out + 4 * in
                                             : 2 * out * (in / 32) + 16);
        if (gptq) {
          t.push_back({p + name + ".qweight", DType::I32, {in / 8, out}, ""});
          t.push_back({p + name + ".qzeros", DType::I32, {in / 32, out / 8}, ""});
          t.push_back({p + name + ".scales", DType::F16, {in / 32, out}, ""});
          t.push_back({p + name + ".g_idx", DType::I32, {in}, ""});
        } else {
          t.push_back({p + name + ".weight_packed", DType::I32, {out, in / 8}, ""});
          t.push_back({p + name + ".weight_scale", DType::F16, {out, in / 32}, ""});
          t.push_back({p + name + ".weight_shape", DType::I64, {2}, ""});
        }
      }
    }
    write_safetensors(dir / "model.safetensors", t);
    write_file(
        dir / "config.json",
        "{" + base + ", \"tie_word_embeddings\": " + (tied ? "true" : "false") +
            ", \"quantization_config\": " +
            (gptq
                 ? R"({"quant_method": "gptq", "bits": 4, "group_size": 32, "desc_act": false, "sym": true})"
                 : R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head"],
                  "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
                  "symmetric": true, "strategy": "group", "group_size": 32}}}})") +
            "}");
    return packed_bytes;
  };
  TempDir tmp;
  fs::create_directories(tmp / "twin");
  write_file(tmp / "twin" / "config.json", "{" + base + ", \"tie_word_embeddings\": false}");
  const std::string args = " --hw h100-sxm --mode prefill --seq 64 --json";
  auto perf = [&](const fs::path& model) {
    const CommandResult r = run_cli("perf " + quoted(model) + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::Document::parse(r.out, "perf");
  };
  const json::Document twin = perf(tmp / "twin");
  const double twin_flops = twin.root().find("flops_theory")->as_double();
  for (const auto& [gptq, tied] : {std::pair{true, false}, {false, false}, {true, true}}) {
    SCOPED_TRACE(std::string(gptq ? "gptq" : "compressed-tensors") + (tied ? ", tied" : ""));
    const fs::path dir = tmp / (std::string(gptq ? "gptq" : "ct") + (tied ? "-tied" : ""));
    const uint64_t stored_bytes = write(dir, gptq, tied);
    const json::Document d = perf(dir);
    EXPECT_DOUBLE_EQ(d.root().find("flops_theory")->as_double(), twin_flops);
    // The weights read: the layers' matrices as stored and the fp16 LM head (or the embedding it is), once.
    const double head_bytes = 256.0 * 64 * 2;
    EXPECT_GE(d.root().find("bytes_weights")->as_double(), static_cast<double>(stored_bytes) + head_bytes);
    EXPECT_LT(d.root().find("bytes_weights")->as_double(), twin.root().find("bytes_weights")->as_double());
  }
}

}  // namespace
}  // namespace ma::test

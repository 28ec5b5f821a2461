// The hardware table of the performance model: every entry sane, `h200-measured` tied to (and predicting)
// the H200 measurements in ../shared/data/gpu, the datasheet `h200` shown optimistic against them, and JSON
// profiles (round trip, `base`, errors).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "analysis/perf/hardware.h"
#include "analysis/plan/device_spec.h"
#include "core/error.h"
#include "core/json.h"
#include "test_support.h"

namespace ma::test {
namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A profile JSON with every field of `h`, as resolve_hardware reads it.
std::string to_json(const Hardware& h) {
  std::string s = "{";
  auto str = [&](const char* k, const std::string& v) {
    json::append_quoted(s, k);
    s += ": ";
    json::append_quoted(s, v);
    s += ", ";
  };
  auto dbl = [&](const char* k, double v) {
    json::append_quoted(s, k);
    s += ": " + num(v) + ", ";
  };
  str("name", h.name);
  str("description", h.description);
  s += "\"peak_tflops\": {";
  for (int d = 0; d < kComputeDTypeCount; ++d) {
    if (d) s += ", ";
    json::append_quoted(s, compute_dtype_name(static_cast<ComputeDType>(d)));
    s += ": " + num(h.peak_tflops[d]);
  }
  s += "}, ";
  dbl("hbm_gbps", h.hbm_gbps);
  dbl("hbm_gb", h.hbm_gb);
  dbl("cuda_total_gib", h.cuda_total_gib);
  dbl("interconnect_gbps", h.interconnect_gbps);
  dbl("b_sat", h.b_sat);
  dbl("kernel_overhead_s", h.kernel_overhead_s);
  dbl("graph_kernel_overhead_s", h.graph_kernel_overhead_s);
  dbl("scalar_tflops", h.scalar_tflops);
  json::append_quoted(s, "source");
  s += ": ";
  json::append_quoted(s, h.source);
  return s + "}";
}

void expect_same(const Hardware& a, const Hardware& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  for (int d = 0; d < kComputeDTypeCount; ++d)
    EXPECT_EQ(a.peak_tflops[d], b.peak_tflops[d]) << a.name << " " << d;
  EXPECT_EQ(a.hbm_gbps, b.hbm_gbps);
  EXPECT_EQ(a.hbm_gb, b.hbm_gb);
  EXPECT_EQ(a.cuda_total_gib, b.cuda_total_gib);
  EXPECT_EQ(a.interconnect_gbps, b.interconnect_gbps);
  EXPECT_EQ(a.b_sat, b.b_sat);
  EXPECT_EQ(a.kernel_overhead_s, b.kernel_overhead_s);
  EXPECT_EQ(a.graph_kernel_overhead_s, b.graph_kernel_overhead_s);
  EXPECT_EQ(a.scalar_tflops, b.scalar_tflops);
  EXPECT_EQ(a.source, b.source);
}

ErrorKind kind_of(const std::string& arg) {
  return test::error_kind_of([&] { resolve_hardware(arg); });
}

const Hardware& table_entry(const char* name) {
  const Hardware* h = find_hardware(name);
  if (!h) throw std::runtime_error(std::string("no table entry ") + name);
  return *h;
}

// ---- the table ----

TEST(PerfHardware, TableEntriesAreSane) {
  std::set<std::string> names;
  for (const Hardware& h : hardware_table()) {
    SCOPED_TRACE(h.name);
    EXPECT_TRUE(names.insert(h.name).second) << "duplicate name";
    EXPECT_FALSE(h.name.empty());
    for (char c : h.name) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << "names are lower case";
    EXPECT_FALSE(h.description.empty());
    EXPECT_FALSE(h.source.empty());
    EXPECT_GT(h.hbm_gbps, 0);
    EXPECT_GT(h.hbm_gb, 0);
    EXPECT_GT(h.interconnect_gbps, 0);
    EXPECT_GT(h.b_sat, 0);
    EXPECT_GE(h.kernel_overhead_s, 0);
    EXPECT_GE(h.graph_kernel_overhead_s, 0);
    EXPECT_GT(h.scalar_tflops, 0);
    for (int d = 0; d < kComputeDTypeCount; ++d) EXPECT_GE(h.peak_tflops[d], 0);
    EXPECT_GT(h.peak(ComputeDType::FP32), 0);
    // 16-bit tensor cores everywhere: bf16, or fp16 alone before Ampere (a bf16 model runs there in fp16).
    const double half =
        h.peak(ComputeDType::BF16) > 0 ? h.peak(ComputeDType::BF16) : h.peak(ComputeDType::FP16);
    EXPECT_GT(half, 0);
    EXPECT_GE(half, h.peak(ComputeDType::FP32));
    if (h.peak(ComputeDType::FP8) > 0) {
      EXPECT_GE(h.peak(ComputeDType::FP8), half);
    }
    if (h.peak(ComputeDType::FP4) > 0) {
      EXPECT_GE(h.peak(ComputeDType::FP4), h.peak(ComputeDType::FP8));
    }
    EXPECT_GT(h.ridge(h.peak(ComputeDType::BF16) > 0 ? ComputeDType::BF16 : ComputeDType::FP16), 0);
    // Datasheet entries keep seed 001's defaults; only measured profiles carry overheads.
    if (h.name.find("measured") == std::string::npos) {
      EXPECT_EQ(h.b_sat, 64);
      EXPECT_EQ(h.kernel_overhead_s, 0);
      EXPECT_EQ(h.graph_kernel_overhead_s, 0);
    }
    EXPECT_EQ(find_hardware(h.name), &h);
  }
  for (const char* required : {"a100-40gb",
                               "a100-80gb",
                               "a100-pcie-80gb",
                               "h100-sxm",
                               "h100-pcie",
                               "h100-nvl",
                               "h200",
                               "h200-measured",
                               "b200",
                               "gb200",
                               "mi300x",
                               "mi325x",
                               "mi355x",
                               "l40s",
                               "v100",
                               "t4",
                               "l4",
                               "a10",
                               "a40",
                               "rtx-a6000",
                               "rtx6000-ada",
                               "rtx3090",
                               "rtx4090",
                               "rtx-a4000",
                               "rtx3070",
                               "rtx3090ti",
                               "rtx4080",
                               "rtx5090",
                               "rtx5080",
                               "rtx4070ti",
                               "rtx4060ti-8gb",
                               "rtx4060ti-16gb",
                               "rtx3060",
                               "rtx3080",
                               "l40",
                               "a30",
                               "h20",
                               "gh200-96gb",
                               "gh200-144gb",
                               "h800",
                               "a800-80gb",
                               "rtx-a5000",
                               "rtx2080ti",
                               "rtx3060ti",
                               "rtx3080ti",
                               "rtx4060",
                               "rtx4070",
                               "rtx4070-super",
                               "rtx4070ti-super",
                               "rtx4080-super",
                               "rtx5060ti-8gb",
                               "rtx5060ti-16gb",
                               "rtx5070",
                               "rtx5070ti"})
    EXPECT_TRUE(names.count(required)) << required;
}

TEST(PerfHardware, InterconnectIsPerDirection) {
  // NVLink 4: 900 GB/s total = 450 per direction; NVLink 5 1.8 TB/s = 900; PCIe Gen5 x16 = 64, Gen4 = 32.
  EXPECT_EQ(table_entry("h100-sxm").interconnect_gbps, 450);
  EXPECT_EQ(table_entry("h200").interconnect_gbps, 450);
  EXPECT_EQ(table_entry("b200").interconnect_gbps, 900);
  EXPECT_EQ(table_entry("h100-pcie").interconnect_gbps, 64);
  EXPECT_EQ(table_entry("l40s").interconnect_gbps, 32);
  EXPECT_EQ(table_entry("rtx5090").interconnect_gbps, 64);         // Gen5 x16
  EXPECT_EQ(table_entry("rtx4060ti-16gb").interconnect_gbps, 16);  // Gen4 x8
  EXPECT_EQ(table_entry("rtx5060ti-16gb").interconnect_gbps, 32);  // Gen5 x8
  EXPECT_EQ(table_entry("rtx2080ti").interconnect_gbps, 16);       // Gen3 x16
  EXPECT_EQ(table_entry("h800").interconnect_gbps, 200);           // NVLink cut to 400 GB/s total
  EXPECT_EQ(table_entry("a800-80gb").interconnect_gbps, 200);
}

TEST(PerfHardware, LookupIsCaseInsensitive) {
  EXPECT_EQ(find_hardware("H200-Measured"), find_hardware("h200-measured"));
  EXPECT_EQ(resolve_hardware("MI300X").name, "mi300x");
  EXPECT_EQ(find_hardware("h300"), nullptr);
}

// Users copy names from product pages ("NVIDIA GeForce RTX 4090"), cloud catalogues ("H100 NVL") or say the
// number alone ("4090", "A6000").
TEST(PerfHardware, NamesAreFoundAsUsersSpellThem) {
  const std::pair<const char*, const char*> spellings[] = {
      {"NVIDIA GeForce RTX 4090", "rtx4090"},
      {"rtx-4090", "rtx4090"},
      {"RTX 4090", "rtx4090"},
      {"4090", "rtx4090"},
      {"NVIDIA RTX A6000", "rtx-a6000"},
      {"a6000", "rtx-a6000"},
      {"RTX 6000 Ada", "rtx6000-ada"},
      {"6000-ada", "rtx6000-ada"},
      {"H100 NVL", "h100-nvl"},
      {"nvidia_h100_sxm", "h100-sxm"},
      {"Tesla V100", "v100"},
      {"AMD Instinct MI300X", "mi300x"},
      {"H200 measured", "h200-measured"},
      // As CUDA and nvidia-smi report them.
      {"NVIDIA H100 80GB HBM3", "h100-sxm"},
      {"NVIDIA A100-SXM4-80GB", "a100-80gb"},
      {"NVIDIA A100-SXM4-40GB", "a100-40gb"},
      {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
      {"NVIDIA H100 PCIe", "h100-pcie"},
      {"NVIDIA H200", "h200"},
      {"Tesla V100-SXM2-32GB", "v100"},
      {"Tesla T4", "t4"},
      {"NVIDIA L40S", "l40s"},
      {"NVIDIA RTX 6000 Ada Generation", "rtx6000-ada"},
      {"NVIDIA GeForce RTX 5090", "rtx5090"},
      {"NVIDIA GeForce RTX 4070 Ti", "rtx4070ti"},
      {"NVIDIA H20", "h20"},
      {"NVIDIA GH200 480GB", "gh200-96gb"},
      {"NVIDIA GH200 144G HBM3e", "gh200-144gb"},
      {"NVIDIA L40", "l40"},
      {"NVIDIA A30", "a30"},
      {"NVIDIA GeForce RTX 4070", "rtx4070"},
      {"NVIDIA GeForce RTX 4070 SUPER", "rtx4070-super"},
      {"NVIDIA GeForce RTX 4070 Ti SUPER", "rtx4070ti-super"},
      {"RTX 4080 Super", "rtx4080-super"},
      {"NVIDIA GeForce RTX 2080 Ti", "rtx2080ti"},
      {"NVIDIA RTX A5000", "rtx-a5000"},
      {"NVIDIA A800-SXM4-80GB", "a800-80gb"},
      {"NVIDIA H800", "h800"},
      {"NVIDIA H800 80GB HBM3", "h800"},
      {"5070 Ti", "rtx5070ti"}};
  for (auto [spelled, name] : spellings) {
    const Hardware* h = find_hardware(spelled);
    ASSERT_NE(h, nullptr) << spelled;
    EXPECT_EQ(h->name, name) << spelled;
  }
  // The vendor's words alone, or nothing, name no entry; nor does a number that is no card's.
  for (const char* none : {"NVIDIA", "", "--", "AMD Instinct", "5000", "rtx"})
    EXPECT_EQ(find_hardware(none), nullptr) << none;
  // Keys are unique: no two entries are one spelling apart.
  std::set<std::string> keys;
  for (const Hardware& h : hardware_table()) EXPECT_TRUE(keys.insert(hardware_key(h.name)).second) << h.name;
  for (const char* reported :
       {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe",
        "Tesla V100-SXM2-32GB", "NVIDIA RTX 6000 Ada Generation", "NVIDIA GH200 480GB",
        "NVIDIA GH200 144G HBM3e", "NVIDIA A800-SXM4-80GB", "NVIDIA H800 80GB HBM3"})
    EXPECT_TRUE(keys.insert(hardware_key(reported)).second) << reported;
}

// --hw and --gpu read names by one rule: a unique prefix names its entry, an ambiguous one lists them.
TEST(PerfHardware, HwTakesAUniquePrefixAndNamesTheChoicesOfAnAmbiguousOne) {
  EXPECT_EQ(resolve_hardware("a100-80").name, "a100-80gb");
  EXPECT_EQ(resolve_hardware("RTX 6000").name, "rtx6000-ada");
  EXPECT_EQ(resolve_hardware("4090").name, "rtx4090");
  EXPECT_EQ(resolve_hardware("h200").name, "h200");  // whole, not a prefix of h200-measured
  try {
    resolve_hardware("h100");
    ADD_FAILURE() << "h100 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("--hw"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("h100-sxm, h100-pcie, h100-nvl"), std::string::npos) << e.what();
  }
  EXPECT_EQ(match_hardware("h2", "--hw"), nullptr);  // two characters name no prefix
  // A prefix never cuts a number (the H20 is another card than the H200); it may end where one does.
  EXPECT_EQ(match_hardware("h20", "--hw"), find_hardware("h20"));
  EXPECT_EQ(match_hardware("mi30", "--hw"), nullptr);
  EXPECT_EQ(match_hardware("mi300", "--hw"), find_hardware("mi300x"));
  EXPECT_EQ(match_hardware("rtx309", "--hw"), nullptr);
  EXPECT_THROW(match_hardware("a100", "--hw"), Error);  // the three A100s: dashes part their numbers
  // Nor does it leave off a tier: a Ti or a Super is a card of its own, so "5060" (the RTX 5060, not in the
  // table) is not a 5060 Ti, "3070" not a 3070 Ti, and "4070" is the RTX 4070, none of its Ti and Supers.
  EXPECT_EQ(match_hardware("rtx5060", "--gpu"), nullptr);
  EXPECT_EQ(match_hardware("NVIDIA GeForce RTX 3070 Ti", "--gpu"), nullptr);
  EXPECT_EQ(match_hardware("4070", "--gpu"), find_hardware("rtx4070"));
  EXPECT_EQ(match_hardware("4070 Ti", "--gpu"), find_hardware("rtx4070ti"));
  EXPECT_EQ(match_hardware("4070 Super", "--gpu"), find_hardware("rtx4070-super"));
  // Cards sold in two sizes under one name are named with their size; the name alone lists both.
  try {
    match_hardware("NVIDIA GeForce RTX 4060 Ti", "--gpu");
    ADD_FAILURE() << "the 4060 Ti's size was guessed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rtx4060ti-8gb, rtx4060ti-16gb"), std::string::npos) << e.what();
  }
  EXPECT_EQ(match_hardware("4060ti-16", "--gpu"), find_hardware("rtx4060ti-16gb"));
  try {
    match_hardware("NVIDIA GeForce RTX 5060 Ti", "--gpu");
    ADD_FAILURE() << "the 5060 Ti's size was guessed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rtx5060ti-8gb, rtx5060ti-16gb"), std::string::npos) << e.what();
  }
  EXPECT_THROW(match_hardware("gh200", "--gpu"), Error);  // 96 GB HBM3 or 144 GB HBM3e
}

TEST(PerfHardware, DtypeNames) {
  for (int d = 0; d < kComputeDTypeCount; ++d) {
    auto dt = static_cast<ComputeDType>(d);
    EXPECT_EQ(compute_dtype_from_name(compute_dtype_name(dt)), dt);
  }
  EXPECT_EQ(compute_dtype_from_name("bfloat16"), ComputeDType::BF16);
  EXPECT_EQ(compute_dtype_from_name("BF16"), ComputeDType::BF16);
  EXPECT_EQ(compute_dtype_from_name("float16"), ComputeDType::FP16);
  EXPECT_EQ(compute_dtype_from_name("fp8_e4m3"), ComputeDType::FP8);
  EXPECT_EQ(compute_dtype_from_name("float8_e5m2"), ComputeDType::FP8);
  EXPECT_EQ(compute_dtype_from_name("float32"), ComputeDType::FP32);
  EXPECT_EQ(compute_dtype_from_name("nvfp4"), ComputeDType::FP4);
  EXPECT_EQ(compute_dtype_from_name("int4"), std::nullopt);
  EXPECT_EQ(compute_dtype_from_name(""), std::nullopt);
  EXPECT_EQ(bytes_per_element(ComputeDType::FP32), 4);
  EXPECT_EQ(bytes_per_element(ComputeDType::TF32), 4);
  EXPECT_EQ(bytes_per_element(ComputeDType::BF16), 2);
  EXPECT_EQ(bytes_per_element(ComputeDType::FP16), 2);
  EXPECT_EQ(bytes_per_element(ComputeDType::FP8), 1);
  EXPECT_EQ(bytes_per_element(ComputeDType::INT8), 1);
  EXPECT_EQ(bytes_per_element(ComputeDType::FP4), 0.5);
}

TEST(PerfHardware, GemmTimeFollowsTheHeadersFormula) {
  Hardware hw;
  hw.peak_tflops[static_cast<int>(ComputeDType::BF16)] = 100;
  hw.hbm_gbps = 1000;
  hw.b_sat = 64;
  hw.kernel_overhead_s = 1e-5;
  // Memory-bound: M = 1, K = N = 4096: bytes = (4096 + 4096^2) * 2 + 4096 * 2.
  const double bytes = (4096.0 + 4096.0 * 4096) * 2 + 4096.0 * 2;
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, ComputeDType::BF16, 1, 4096, 4096), 1e-5 + bytes / 1e12);
  // Compute-bound at eta = 1: M = 8192.
  const double flops = 2.0 * 8192 * 8192 * 8192;
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, ComputeDType::BF16, 8192, 8192, 8192), 1e-5 + flops / 1e14);
  // eta_tc = M / b_sat below saturation: with unbounded bandwidth, time is flat in M below b_sat.
  hw.hbm_gbps = 1e12;
  hw.kernel_overhead_s = 0;
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, ComputeDType::BF16, 16, 1024, 1024),
                   gemm_time_s(hw, ComputeDType::BF16, 32, 1024, 1024));
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, ComputeDType::BF16, 32, 1024, 1024), 2.0 * 64 * 1024 * 1024 / 1e14);
  EXPECT_TRUE(std::isinf(gemm_time_s(hw, ComputeDType::FP8, 64, 64, 64)));  // unsupported dtype
}

// ---- h200-measured against the measurements ----

struct Gemm {
  ComputeDType dtype;
  std::string dtype_name;
  double m, k, n, s, tflops;
};

std::vector<Gemm> measured_gemms(const json::Document& doc) {
  std::vector<Gemm> out;
  for (const json::Value& g : doc.root().find("gemm")->items()) {
    Gemm r;
    r.dtype_name = std::string(g.find("dtype")->as_string());
    auto dt = compute_dtype_from_name(r.dtype_name);
    if (!dt) throw std::runtime_error("unknown dtype " + r.dtype_name);
    r.dtype = *dt;
    r.m = g.find("M")->as_double();
    r.k = g.find("K")->as_double();
    r.n = g.find("N")->as_double();
    r.s = g.find("s")->as_double();
    r.tflops = g.find("TFLOPs")->as_double();
    out.push_back(r);
  }
  return out;
}

std::string shape(const Gemm& g) {
  return g.dtype_name + " " + num(g.m) + "x" + num(g.k) + "x" + num(g.n);
}

TEST(PerfHardware, H200MeasuredEqualsTheMeasuredFigures) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const json::Document doc = parse_json_file(*data / "gpu" / "h200-measurements.json");
  const Hardware& hw = table_entry("h200-measured");
  EXPECT_DOUBLE_EQ(hw.hbm_gbps, doc.root().find("copy_GBps_read_plus_write")->as_double());
  EXPECT_DOUBLE_EQ(hw.peak(ComputeDType::FP32), doc.root().find("fp32_TFLOPs")->as_double());
  EXPECT_DOUBLE_EQ(hw.peak(ComputeDType::TF32), doc.root().find("tf32_TFLOPs")->as_double());
  double max_tf[kComputeDTypeCount] = {};
  for (const Gemm& g : measured_gemms(doc)) {
    double& m = max_tf[static_cast<int>(g.dtype)];
    m = std::max(m, g.tflops);
  }
  for (ComputeDType d : {ComputeDType::BF16, ComputeDType::FP16, ComputeDType::FP8}) {
    ASSERT_GT(max_tf[static_cast<int>(d)], 0) << compute_dtype_name(d);
    EXPECT_DOUBLE_EQ(hw.peak(d), max_tf[static_cast<int>(d)]) << compute_dtype_name(d);
  }
  EXPECT_DOUBLE_EQ(hw.peak(ComputeDType::INT8), hw.peak(ComputeDType::FP8));  // not measured: = fp8
  EXPECT_EQ(hw.peak(ComputeDType::FP4), 0);
}

TEST(PerfHardware, H200MeasuredPredictsEveryGemmWithin25Percent) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const json::Document doc = parse_json_file(*data / "gpu" / "h200-measurements.json");
  const Hardware& hw = table_entry("h200-measured");
  const auto gemms = measured_gemms(doc);
  ASSERT_GE(gemms.size(), 90u);
  double lo = INFINITY, hi = 0;
  std::string lo_at, hi_at;
  for (const Gemm& g : gemms) {
    const double r = gemm_time_s(hw, g.dtype, g.m, g.k, g.n) / g.s;
    EXPECT_GE(r, 0.8) << shape(g);  // within 25% either way: 1/1.25 <= predicted/measured <= 1.25
    EXPECT_LE(r, 1.25) << shape(g);
    if (r < lo) {
      lo = r;
      lo_at = shape(g);
    }
    if (r > hi) {
      hi = r;
      hi_at = shape(g);
    }
  }
  std::printf("h200-measured on %zu GEMMs: predicted/measured in [%.3f (%s), %.3f (%s)]\n", gemms.size(), lo,
              lo_at.c_str(), hi, hi_at.c_str());
}

TEST(PerfHardware, H200DatasheetIsOptimisticOnLargeGemms) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const json::Document doc = parse_json_file(*data / "gpu" / "h200-measurements.json");
  const Hardware& hw = table_entry("h200");
  double lo = INFINITY, hi = 0;
  std::string lo_at, hi_at;
  int large = 0;
  for (const Gemm& g : measured_gemms(doc)) {
    const double r = gemm_time_s(hw, g.dtype, g.m, g.k, g.n) / g.s;
    if (r < lo) {
      lo = r;
      lo_at = shape(g);
    }
    if (r > hi) {
      hi = r;
      hi_at = shape(g);
    }
    const double flops_s = 2 * g.m * g.k * g.n / (hw.peak(g.dtype) * 1e12);
    const double bytes_s =
        ((g.m * g.k + g.k * g.n) * bytes_per_element(g.dtype) + g.m * g.n * 2) / (hw.hbm_gbps * 1e9);
    if (g.m >= 1024 && flops_s > bytes_s) {  // large and compute-bound on the datasheet
      ++large;
      EXPECT_LT(r, 1.0) << shape(g) << ": the datasheet should promise more than the chip delivers";
    }
  }
  EXPECT_GE(large, 20);
  std::printf("h200 (datasheet) on the measured GEMMs: predicted/measured in [%.3f (%s), %.3f (%s)]\n", lo,
              lo_at.c_str(), hi, hi_at.c_str());
}

// The graph overhead is validated where it is used: PerfModel.CalibratedH200PredictsEveryCudaGraphDecodeStep
// (tests/unit/perf_model_test.cpp) predicts every CUDA-graph decode step with the model's own kernel count.
TEST(PerfHardware, H200MeasuredGraphOverheadIsBelowTheEagerLaunch) {
  const Hardware& hw = table_entry("h200-measured");
  EXPECT_GT(hw.graph_kernel_overhead_s, 0);
  EXPECT_LT(hw.graph_kernel_overhead_s, hw.kernel_overhead_s / 2);  // the GEMM timings include a launch each
}

// ---- JSON profiles ----

TEST(PerfHardware, JsonProfileRoundTripsEveryTableEntry) {
  TempDir dir;
  for (const Hardware& h : hardware_table()) {
    SCOPED_TRACE(h.name);
    const auto path = dir / (h.name + ".json");
    write_file(path, to_json(h));
    expect_same(resolve_hardware(path.string()), h);
  }
}

TEST(PerfHardware, JsonProfileDefaultsAndBase) {
  TempDir dir;
  write_file(
      dir / "my-gpu.json",
      R"({"peak_tflops": {"bfloat16": 500, "fp8_e4m3": 1000}, "hbm_gbps": 2000, "scalar_tflops": 60})");
  Hardware h = resolve_hardware((dir / "my-gpu.json").string());
  EXPECT_EQ(h.name, "my-gpu");
  EXPECT_EQ(h.peak(ComputeDType::BF16), 500);
  EXPECT_EQ(h.peak(ComputeDType::FP8), 1000);
  EXPECT_EQ(h.peak(ComputeDType::FP16), 0);
  EXPECT_EQ(h.b_sat, 64);
  EXPECT_EQ(h.kernel_overhead_s, 0);
  EXPECT_FALSE(h.source.empty());

  write_file(dir / "slow.json", R"({"base": "H200", "name": "h200-slow", "hbm_gbps": 4000, "b_sat": 32})");
  h = resolve_hardware((dir / "slow.json").string());
  const Hardware& base = table_entry("h200");
  EXPECT_EQ(h.name, "h200-slow");
  EXPECT_EQ(h.hbm_gbps, 4000);
  EXPECT_EQ(h.b_sat, 32);
  EXPECT_EQ(h.peak(ComputeDType::BF16), base.peak(ComputeDType::BF16));
  EXPECT_EQ(h.hbm_gb, base.hbm_gb);
}

// What CUDA reports is what engines size their pools from: vLLM 0.19 printed total_memory=79.19GiB on an H100
// SXM 80 GB and total_gpu_memory=23.58GiB on an RTX 3090 (../shared/data/engines/engine-memory.json). A
// device without a measurement uses its printed capacity; a profile that changes the capacity drops the
// base's measurement, which was of other memory.
TEST(PerfHardware, CudaTotalIsWhatEnginesSawAndFollowsTheCapacity) {
  EXPECT_DOUBLE_EQ(table_entry("h100-sxm").usable_gib(), 79.19);
  EXPECT_DOUBLE_EQ(table_entry("rtx3090").usable_gib(), 23.58);
  EXPECT_DOUBLE_EQ(table_entry("h200").usable_gib(), table_entry("h200").hbm_gb);
  for (const Hardware& h : hardware_table()) {
    if (h.cuda_total_gib > 0) {
      EXPECT_LT(h.cuda_total_gib, h.hbm_gb) << h.name;
    }
  }

  TempDir dir;
  write_file(dir / "nvl.json", R"({"base": "h100-sxm", "hbm_gb": 94})");
  EXPECT_DOUBLE_EQ(resolve_hardware((dir / "nvl.json").string()).usable_gib(), 94);
  write_file(dir / "faster.json", R"({"base": "h100-sxm", "hbm_gbps": 4000})");
  EXPECT_DOUBLE_EQ(resolve_hardware((dir / "faster.json").string()).usable_gib(), 79.19);
  write_file(dir / "own.json", R"({"base": "h100-sxm", "hbm_gb": 94, "cuda_total_gib": 93.1})");
  EXPECT_DOUBLE_EQ(resolve_hardware((dir / "own.json").string()).usable_gib(), 93.1);
  write_file(dir / "more.json", R"({"base": "h100-sxm", "cuda_total_gib": 81})");
  EXPECT_EQ(kind_of((dir / "more.json").string()), ErrorKind::Malformed);
}

TEST(PerfHardware, UnknownNameIsAUsageErrorListingTheTable) {
  try {
    resolve_hardware("h300");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    const std::string what = e.what();
    for (const Hardware& h : hardware_table()) EXPECT_NE(what.find(h.name), std::string::npos) << h.name;
  }
  EXPECT_EQ(kind_of(""), ErrorKind::Usage);
}

// A name one edit per three characters from a table name is named as its likely typo, in both flags' errors
// (spelt as users spell it: case, spaces and the vendor's words do not count); a name near none is not.
TEST(PerfHardware, AnUnknownNameSaysWhichNameItLooksLike) {
  EXPECT_EQ(hardware_like("RTX 409"), " (did you mean rtx4090?)");
  EXPECT_EQ(hardware_like("NVIDIA H2O0"), " (did you mean h200?)");
  EXPECT_EQ(hardware_like("a10g"), " (did you mean a10?)");
  EXPECT_EQ(hardware_like("zzz"), "");
  EXPECT_EQ(hardware_like("h2oo"), "") << "two edits of four characters";
  for (const auto& [flag, parse] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"--hw", [] { resolve_hardware("h2o0"); }},
           {"--gpu", [] { parse_device_spec("2xh2o0", "--gpu"); }}}) {
    try {
      parse();
      ADD_FAILURE() << flag << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_NE(std::string(e.what()).find("h2o0'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("(did you mean h200?)"), std::string::npos) << e.what();
    }
  }
}

TEST(PerfHardware, BadProfilesAreMalformed) {
  TempDir dir;
  int i = 0;
  auto kind_for = [&](const std::string& text) {
    const auto path = dir / ("p" + std::to_string(i++) + ".json");
    write_file(path, text);
    return kind_of(path.string());
  };
  const std::string ok_peaks = R"("peak_tflops": {"bf16": 100, "fp32": 50})";
  write_file(dir / "ok.json", "{" + ok_peaks + R"(, "hbm_gbps": 1000})");
  EXPECT_NO_THROW(resolve_hardware((dir / "ok.json").string()));
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": -1000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": "1000"})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for("{" + ok_peaks + "}"), ErrorKind::Malformed);  // no bandwidth
  EXPECT_EQ(kind_for(R"({"peak_tflops": {"bf16": -1}, "hbm_gbps": 1000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for(R"({"peak_tflops": {"bf16": "fast"}, "hbm_gbps": 1000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for(R"({"peak_tflops": {"int4": 100}, "hbm_gbps": 1000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for(R"({"peak_tflops": [100], "hbm_gbps": 1000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for(R"({"peak_tflops": {}, "hbm_gbps": 1000})"), ErrorKind::Malformed);  // no peak
  // No rate for the work off the tensor cores (scalar_tflops, or fp32's peak): steps would take seconds.
  EXPECT_EQ(kind_for(R"({"peak_tflops": {"bf16": 500}, "hbm_gbps": 2000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for(R"({"peak_tflops": {"bf16": 500}, "hbm_gbps": 2000, "scalar_tflops": 60})"),
            ErrorKind::Internal);  // read: no error
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": 1000, "b_sat": 0})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": 1000, "kernel_overhead_s": -1e-6})"),
            ErrorKind::Malformed);
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": 1000, "hbm_bw": 5})"), ErrorKind::Malformed);  // typo
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": 1000, "name": 7})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for(R"({"base": "h300", "hbm_gbps": 1000})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for("[1, 2]"), ErrorKind::Malformed);
  EXPECT_EQ(kind_for("{\"hbm_gbps\": 1000,"), ErrorKind::Malformed);  // not JSON
  EXPECT_EQ(kind_for("{" + ok_peaks + R"(, "hbm_gbps": NaN})"), ErrorKind::Malformed);
  EXPECT_EQ(kind_of((dir / "absent.json").string()), ErrorKind::NotFound);
}

}  // namespace
}  // namespace ma::test

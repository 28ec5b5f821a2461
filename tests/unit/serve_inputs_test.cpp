// `serve`'s inputs that gave impossible or misleading results (review serve.md #5 and the minor items): a
// device profile without the interconnect or the memory serving needs, a device without the weights'
// precision, a token budget below the requests a step must carry, an empty --sweep, and times printed in
// formats that made equal values look different.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/serve/serving_model.h"
#include "analyzed_model.h"
#include "cli/serve_args.h"
#include "core/error.h"
#include "core/json.h"
#include "report/serve_report.h"
#include "test_support.h"

namespace ma::test {
namespace {

ServeRequest inputs_request(uint64_t concurrency) {
  ServeRequest rq;
  rq.hw = *find_hardware("h200");
  rq.isl = 512;
  rq.osl = 256;
  rq.concurrency = concurrency;
  rq.sweep = {1, 2, 4};
  rq.rounds = 0;
  return rq;
}

// A device of the user's own (not a table entry, whose measured profile would stand in for it).
Hardware own_device() {
  Hardware hw = *find_hardware("h200");
  hw.name = "test-device";
  return hw;
}

// The Error a call throws, or a failure when it throws none.
template <typename Call>
Error serve_input_error(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(ErrorKind::Internal, "", "", "");
}

// Two GPUs exchange every layer's activations over the interconnect: a profile without it (or with 0 GB/s)
// split over --tp 2 gave NaN latencies and 0 tokens/s with exit 0. It is refused, naming the field; one GPU
// needs none.
TEST(ServeInputs, AProfileWithoutInterconnectIsRefusedOverSeveralGpus) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  ServeRequest rq = inputs_request(4);
  rq.hw = own_device();
  rq.hw.interconnect_gbps = 0;
  rq.tp = 2;
  const Error e = serve_input_error([&] { estimate_serving(m->inv, m->report, rq); });
  EXPECT_EQ(e.kind(), ErrorKind::Malformed);
  EXPECT_EQ(e.field(), "interconnect_gbps");
  EXPECT_EQ(e.file(), "test-device");
  rq.tp = 1;
  const ServePoint p = estimate_serving(m->inv, m->report, rq).point;
  EXPECT_TRUE(std::isfinite(p.mean_ttft_s) && std::isfinite(p.mean_tpot_s) && p.mean_tpot_s > 0);
  EXPECT_GT(p.throughput_tokens_per_s_per_gpu, 0);
}

// The KV pool is sized from the device's memory: a profile without hbm_gb is refused for naming it, not for
// weights that "take 14.96 GiB of each device's 0 B".
TEST(ServeInputs, AProfileWithoutMemoryIsRefusedForIt) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  ServeRequest rq = inputs_request(4);
  rq.hw = own_device();
  rq.hw.hbm_gb = 0;
  const Error e = serve_input_error([&] { estimate_serving(m->inv, m->report, rq); });
  EXPECT_EQ(e.kind(), ErrorKind::Malformed);
  EXPECT_EQ(e.field(), "hbm_gb");
  EXPECT_FALSE(contains(e.rule(), "0 B")) << e.rule();
}

// From the command line the profile is named by its file, before the model is read.
TEST(ServeInputs, TheCommandLineNamesTheProfileFile) {
  TempDir dir;
  const std::string file = (dir / "no-link.json").string();
  write_file(file, R"({"hbm_gbps": 3000, "peak_tflops": {"bf16": 500}, "scalar_tflops": 50, "hbm_gb": 80})");
  const Error e = serve_input_error([&] { cli::parse_serve_args({"m", "--hw", file, "--tp", "2"}); });
  EXPECT_EQ(e.kind(), ErrorKind::Malformed);
  EXPECT_EQ(e.file(), file);
  EXPECT_EQ(e.field(), "interconnect_gbps");
  EXPECT_EQ(cli::parse_serve_args({"m", "--hw", file}).request.tp, 1u);
}

// A device that cannot compute in the weights' precision is refused naming serve's flag for it, --precision
// (the performance model names perf's, --dtype, which serve does not have).
TEST(ServeInputs, APrecisionTheDeviceLacksNamesPrecision) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  ServeRequest rq = inputs_request(4);
  rq.hw = own_device();
  for (double& peak : rq.hw.peak_tflops) peak = 0;
  rq.hw.peak_tflops[static_cast<int>(ComputeDType::FP8)] = 1000;
  const Error e = serve_input_error([&] { estimate_serving(m->inv, m->report, rq); });
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_EQ(e.field(), "--precision");
}

// A mixing engine's step carries a decode token of every running request: a budget below the requests it
// runs at once cannot (1 token gave a decode batch of 34 a step); vLLM refuses it (max_num_batched_tokens >=
// max_num_seqs). The busiest point counts, the sweep's included. SGLang's budget bounds its prefill batches
// only.
TEST(ServeInputs, ATokenBudgetBelowTheRequestsAStepCarriesIsRefused) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  ServeRequest rq = inputs_request(4);
  rq.max_batched_tokens = 1;
  const Error e = serve_input_error([&] { estimate_serving(m->inv, m->report, rq); });
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_EQ(e.field(), "--max-num-batched-tokens");
  rq.max_batched_tokens = 4;
  EXPECT_NO_THROW(estimate_serving(m->inv, m->report, rq));
  rq.sweep.push_back(5);
  EXPECT_THROW(estimate_serving(m->inv, m->report, rq), Error);
  rq.engine = ServeEngine::Sglang;
  rq.max_batched_tokens = 1;
  EXPECT_NO_THROW(estimate_serving(m->inv, m->report, rq));
}

// `--sweep ''` (an unset shell variable) was taken for the default sweep.
TEST(ServeInputs, AnEmptySweepIsAUsageError) {
  const Error e = serve_input_error([] { cli::parse_serve_args({"m", "--sweep", ""}); });
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_EQ(e.field(), "--sweep");
  EXPECT_EQ(cli::parse_serve_args({"m"}).request.sweep.size(), 9u);  // 1, 2, 4, ..., 256
  EXPECT_EQ(cli::parse_serve_args({"m", "--sweep", "3,5"}).request.sweep, (std::vector<uint64_t>{3, 5}));
}

// The value the console prints for a field.
std::string console_value(const std::string& console, const std::string& field) {
  const size_t at = console.find("  " + field + " ");
  if (at == std::string::npos) return "(missing)";
  const size_t start = console.find_first_not_of(' ', at + 2 + field.size());
  return console.substr(start, console.find('\n', start) - start);
}

// With one output token E2EL is the TTFT: the two print alike (E2EL was printed in seconds to two decimals,
// "0.01 s" beside a TTFT of "7.37 ms"). Without a first round (--rounds 0) there is no first round's TTFT.
TEST(ServeInputs, EqualTimesPrintAlike) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  ServeRequest rq = inputs_request(1);
  rq.osl = 1;
  const ServeResult r = estimate_serving(m->inv, m->report, rq);
  ASSERT_EQ(r.point.mean_e2el_s, r.point.mean_ttft_s);
  const std::string console = render_serve_console(r);
  EXPECT_EQ(console_value(console, "mean_e2el_s"), console_value(console, "mean_ttft_s"));
  EXPECT_TRUE(console_value(console, "first_round_ttft_s").starts_with("none")) << console;
}

// What the console shows as "none" or "-" is null in the JSON and an empty CSV cell, not a 0 that reads as an
// instant (the JSON gave first_round_ttft_s 0 with --rounds 0, and decode_step_s and tokens_per_s_per_user 0
// at osl 1); with a decode and a first round they are numbers again.
TEST(ServeInputs, UndefinedFiguresAreNullNotZero) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  const std::vector<std::string> undefined = {"decode_step_s", "tokens_per_s_per_user", "first_round_ttft_s"};
  for (const uint64_t osl : {1u, 256u}) {
    ServeRequest rq = inputs_request(2);
    rq.osl = osl;
    rq.rounds = osl == 1 ? 0 : 10;
    const ServeResult r = estimate_serving(m->inv, m->report, rq);
    std::string text;
    stream_serve_json(r, RunInfo{}, [&](std::string_view s) { text.append(s); });
    const json::Document doc = json::Document::parse(text, "serve");
    const json::Value* point = doc.root().find("point");
    ASSERT_NE(point, nullptr);
    const json::Value* sweep = doc.root().find("sweep");
    ASSERT_NE(sweep, nullptr);
    ASSERT_EQ(sweep->items().size(), 3u);
    for (const std::string& name : undefined) {
      for (const json::Value* p : {point, &sweep->items()[0], &sweep->items()[2]}) {
        const json::Value* v = p->find(name);
        ASSERT_NE(v, nullptr) << name;
        if (osl == 1) {
          EXPECT_TRUE(v->is_null()) << name;
        } else {
          EXPECT_TRUE(v->is_number()) << name;
          EXPECT_GT(v->as_double(), 0) << name;
        }
      }
    }
    // The CSV's header names the columns; the load row's cells under those three are empty at osl 1.
    const std::string csv = render_serve_csv(r);
    const auto cells = [](const std::string& line) {
      std::vector<std::string> out(1);
      for (const char c : line) {
        if (c == ',')
          out.emplace_back();
        else
          out.back() += c;
      }
      return out;
    };
    const size_t header_end = csv.find('\n');
    const std::vector<std::string> header = cells(csv.substr(0, header_end));
    const std::vector<std::string> load =
        cells(csv.substr(header_end + 1, csv.find('\n', header_end + 1) - header_end - 1));
    ASSERT_EQ(header.size(), load.size());
    for (const std::string& name : undefined) {
      const auto at = std::find(header.begin(), header.end(), name);
      ASSERT_NE(at, header.end()) << name;
      EXPECT_EQ(load[at - header.begin()].empty(), osl == 1) << name << ": " << csv;
    }
  }
}

}  // namespace
}  // namespace ma::test

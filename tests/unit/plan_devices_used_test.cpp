// `plan` over more devices than any split of the model can use: more GPUs never turn a model that fits
// fewer of them into one that does not fit. The example model (2 layers, 4 attention heads, 2 KV heads) has
// no split of 3 devices (TP 3 does not divide its heads, PP 3 is more stages than layers): it was "does not
// fit on 3 x H200" while one H200 holds it with room to spare; the plan is now for 2 of the 3.
#include <gtest/gtest.h>

#include <string>

#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/error.h"
#include "core/json.h"
#include "report/plan_report.h"
#include "report/run_info.h"
#include "test_support.h"

namespace ma::test {
namespace {

PlanRequest request_on(const std::string& gpus, PlanEngine engine = PlanEngine::Transformers) {
  PlanRequest rq;
  rq.gpus = parse_device_spec(gpus, "--gpu");
  rq.engine = engine;
  return rq;
}

TEST(PlanDevicesUsed, NoSplitOfEveryDevicePlansOnTheMostThatOneHolds) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  for (const PlanEngine engine : {PlanEngine::Transformers, PlanEngine::LlamaCpp}) {
    SCOPED_TRACE(std::string(engine_name(engine)));
    const Plan three = make_plan(m->inv, m->report, request_on("3xh200", engine));
    const Plan two = make_plan(m->inv, m->report, request_on("2xh200", engine));
    ASSERT_TRUE(two.fits);
    EXPECT_EQ(two.devices_used, 2u);
    EXPECT_TRUE(two.devices_unused_reason.empty());
    // The three devices are named as given; the plan is the two devices' plan, figure for figure.
    EXPECT_EQ(three.request.gpus.count, 3u);
    EXPECT_EQ(three.devices_used, 2u);
    ASSERT_TRUE(three.fits);
    ASSERT_EQ(three.splits.size(), two.splits.size());
    for (size_t i = 0; i < two.splits.size(); ++i) {
      EXPECT_EQ(three.splits[i].split.tp * three.splits[i].split.pp, 2u);
      EXPECT_EQ(three.splits[i].budget.worst.used(), two.splits[i].budget.worst.used());
    }
    EXPECT_EQ(three.best, two.best);
    EXPECT_EQ(three.max_batch.value, two.max_batch.value);
    // Why not all three, in the plan's own words: each split of three and its rule.
    EXPECT_NE(three.devices_unused_reason.find("no split of all 3 devices is valid"), std::string::npos);
    EXPECT_NE(three.devices_unused_reason.find("TP 1 x PP 3: "), std::string::npos)
        << three.devices_unused_reason;
    const bool tp3 = three.devices_unused_reason.find("TP 3 x PP 1: ") != std::string::npos;
    EXPECT_EQ(tp3, engine == PlanEngine::Transformers) << "llama.cpp splits layers only";
    EXPECT_NE(three.assumptions.back().find("the plan is for 2 of them; the other 1 can serve replicas"),
              std::string::npos)
        << three.assumptions.back();

    // The console names the devices and how many the plan uses; the JSON gives both counts and the reason.
    const std::string console = render_plan_console(three, false);
    EXPECT_NE(console.find("; the plan uses 2 of them (no split of all 3 is valid)"), std::string::npos)
        << console;
    std::string text;
    stream_plan_json(three, RunInfo{}, [&](std::string_view s) { text.append(s); });
    const json::Document doc = json::Document::parse(text, "plan");
    const json::Value* gpus = doc.root().find("gpus");
    ASSERT_NE(gpus, nullptr);
    EXPECT_EQ(gpus->find("count")->as_uint(), 3u);
    EXPECT_EQ(gpus->find("used")->as_uint(), 2u);
    EXPECT_EQ(gpus->find("unused_reason")->as_string(), three.devices_unused_reason);
  }
}

// A split the user names is held to: --tp 3 cannot split the model, and says so (exit 2), rather than
// planning on fewer devices than asked.
TEST(PlanDevicesUsed, ANamedSplitIsNotReplaced) {
  auto m = analyze_dir(MA_EXAMPLE_DIR);
  PlanRequest rq = request_on("3xh200");
  rq.tp = 3;
  try {
    make_plan(m->inv, m->report, rq);
    ADD_FAILURE() << "--tp 3 planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
  // Where every device has a valid split, all are used and no reason is given.
  const Plan four = make_plan(m->inv, m->report, request_on("4xh200"));
  EXPECT_EQ(four.devices_used, 4u);
  EXPECT_TRUE(four.devices_unused_reason.empty());
  std::string text;
  stream_plan_json(four, RunInfo{}, [&](std::string_view s) { text.append(s); });
  EXPECT_TRUE(json::Document::parse(text, "plan").root().find("gpus")->find("unused_reason")->is_null());
}

}  // namespace
}  // namespace ma::test

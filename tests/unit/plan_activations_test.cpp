// plan under transformers sizes one prefill's activations as the report's inference_activations does: an
// encoder-decoder's larger stack at its own length, a masked-LM head's logits at every position, a
// generating head's at the last one. With tensor parallelism each device holds 1/tp of the FFN
// intermediates beside the whole residual stream; the logits only where the head runs.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/model_report.h"
#include "analysis/plan/device_budget.h"
#include "analysis/plan/plan.h"
#include "analyzed_model.h"
#include "core/error.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using test::AnalyzedModel;

PlanRequest transformers_on(const std::string& gpus) {
  PlanRequest rq;
  rq.gpus = parse_device_spec(gpus, "--gpu");
  rq.engine = PlanEngine::Transformers;
  return rq;
}

const DeviceBytes* worst_of(const Plan& p, uint32_t tp, uint32_t pp) {
  for (const SplitPlan& s : p.splits)
    if (s.split.tp == tp && s.split.pp == pp && s.split.ep == 1) return &s.budget.worst;
  return nullptr;
}

TEST(PlanActivations, OneDeviceIsTheReportsFigureForEveryOracleModel) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  size_t compared = 0, two_stacks = 0, every_position = 0;
  for (const auto& e : fs::directory_iterator(*data / "hf-configs")) {
    if (!fs::exists(e.path() / "config.json")) continue;
    std::unique_ptr<AnalyzedModel> m;
    try {
      m = test::analyze_dir(e.path());
    } catch (const Error&) {
      continue;  // architectures without a template (the oracle's ok:false configs)
    }
    const Estimate* report = m->report.memory.find("inference_activations");
    if (!m->report.architecture_known || m->inv.arch.layers().empty() || !report || !report->known) continue;
    SCOPED_TRACE(e.path().filename().string());
    const Plan p = make_plan(m->inv, m->report, transformers_on("141GB"));
    const DeviceBytes* d = worst_of(p, 1, 1);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->activations, report->bytes) << report->formula;
    ++compared;
    two_stacks += activation_stacks(m->inv.arch, m->report.memory.context).size() > 1;
    every_position += logits_shape(m->inv).every_position;
  }
  EXPECT_GE(compared, 100u);
  EXPECT_GE(two_stacks, 5u);      // T5, BART, Whisper, ...
  EXPECT_GE(every_position, 2u);  // BERT, RoBERTa, ...
}

// T5-small: d_model 512, an ungated ReLU FFN of 2,048 (up and its activation held: 2 x 2,048), 6 encoder and
// 6 decoder layers, float32, context 512 (n_positions); the encoder runs over the context (relative
// positions), as long as the decoder, so its layer is the peak. The head scores the last position.
TEST(PlanActivations, TensorParallelSplitsTheFfnOfAnEncoderDecoder) {
  LOAD_CONFIG_OR_SKIP(m, "google-t5__t5-small");
  ASSERT_EQ(m->report.memory.context, 512u);
  const uint64_t logits = 32'128ull * 4;
  const Plan one = make_plan(m->inv, m->report, transformers_on("80GB"));
  EXPECT_EQ(worst_of(one, 1, 1)->activations, 512ull * (2 * 512 + 2 * 2048) * 4 + logits);
  const Plan two = make_plan(m->inv, m->report, transformers_on("2x80GB"));
  const DeviceBytes* tp2 = worst_of(two, 2, 1);
  ASSERT_NE(tp2, nullptr);
  EXPECT_EQ(tp2->activations, 512ull * (2 * 512 + 2 * 2048 / 2) * 4 + logits);
}

// BERT's masked-LM head scores all 512 positions over its 30,522 words in fp32: 62.5 MB, four times the
// layer's own intermediates, where a generating head's last position would be 122 kB.
TEST(PlanActivations, AMaskedLmHoldsTheLogitsOfEveryPosition) {
  LOAD_CONFIG_OR_SKIP(m, "google-bert__bert-base-uncased");
  const Plan p = make_plan(m->inv, m->report, transformers_on("24GB"));
  const uint64_t layer = 512ull * (2 * 768 + 2 * 3072) * 4;
  EXPECT_EQ(worst_of(p, 1, 1)->activations, layer + 512ull * 30'522 * 4);
}

}  // namespace
}  // namespace ma

// A config without a maximum context (BLOOM: ALiBi, no max_position_embeddings) and no --context: the KV
// cache grows per token by a known amount but its total is unknown, and so are the activations and every
// total that sums them (inference, inference FP16, the training totals, LoRA, QLoRA). Such a total is unknown
// (JSON null, "unknown (pass --context)" on the console and in the Markdown), not the known terms alone
// posing as the whole (weights + 10%, 2.29 GiB for bloom-560m). The weights and the optimizer states, which
// need no context, stay known; a --context makes the rest known again.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/memory.h"
#include "analysis/model_report.h"
#include "core/json.h"
#include "core/json_writer.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/markdown_writer.h"
#include "report/section_renderers.h"
#include "report_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

// The estimates that sum the KV cache or the activations.
const std::vector<std::string> kContextTotals = {"inference_kv_cache",
                                                 "inference_activations",
                                                 "inference_overhead",
                                                 "inference_total",
                                                 "inference_total_fp16",
                                                 "training_activations",
                                                 "training_activations_flash",
                                                 "training_activations_checkpointed",
                                                 "training_full_fp32_total",
                                                 "training_mixed_bf16_total",
                                                 "training_mixed_bf16_checkpointed_total",
                                                 "training_lora_total",
                                                 "training_qlora_total"};

// Those that need no context.
const std::vector<std::string> kContextFree = {"weights_fp32", "weights_fp16", "inference_weights",
                                               "training_adamw_fp32_states", "training_mixed_bf16_states"};

json::Document unknown_context_memory_json(const MemoryReport& m) {
  JsonWriter w;
  w.begin_object();
  write_json(w, m);
  w.end_object();
  return json::Document::parse(w.take(), "memory");
}

const json::Value* unknown_context_estimate(const json::Value& memory, const std::string& list,
                                            const std::string& name) {
  for (const json::Value& e : memory.find(list)->items())
    if (e.find("name")->as_string() == name) return &e;
  return nullptr;
}

TEST(MemoryUnknownContext, TotalsHoldingTheCacheOrActivationsAreUnknown) {
  for (const char* name : {"bigscience__bloom-560m", "bigscience__bloom"}) {
    LOAD_OR_SKIP(l, "hf-configs", name);
    const MemoryReport m = test::memory_of(*l);
    ASSERT_EQ(m.context, 0u) << name;
    ASSERT_TRUE(m.kv_known) << name;
    ASSERT_GT(m.kv_cache_per_token_bytes, 0u) << name;
    for (const std::string& e : kContextTotals) {
      const Estimate* found = m.find(e);
      ASSERT_NE(found, nullptr) << name << " " << e;
      EXPECT_FALSE(found->known) << name << " " << e;
      EXPECT_EQ(found->bytes, 0u) << name << " " << e;  // not the known terms posing as the total
      EXPECT_EQ(found->unknown_because, "pass --context") << name << " " << e;
      EXPECT_NE(found->formula.find("pass --context"), std::string::npos)
          << name << " " << e << ": " << found->formula;
    }
    for (const std::string& e : kContextFree) {
      const Estimate* found = m.find(e);
      ASSERT_NE(found, nullptr) << name << " " << e;
      EXPECT_TRUE(found->known) << name << " " << e;
      EXPECT_GT(found->bytes, 0u) << name << " " << e;
    }
    // The total's formula keeps the known term, and says what is missing.
    const Estimate& total = *m.find("inference_total");
    EXPECT_NE(total.formula.find(with_thousands(m.find("inference_weights")->bytes)), std::string::npos)
        << total.formula;
    EXPECT_NE(total.formula.find("the KV cache and activations unknown"), std::string::npos) << total.formula;
  }
}

// The JSON says null where the console and the Markdown say unknown: every estimate that sums an unknown
// term, and seed 002's total_inference_fp16_mb and total_training_fp32_mb; the weights' figures stay numbers.
TEST(MemoryUnknownContext, JsonConsoleAndMarkdownSayUnknown) {
  LOAD_OR_SKIP(l, "hf-configs", "bigscience__bloom-560m");
  ModelReport r;
  r.memory = test::memory_of(*l);
  const json::Document doc = unknown_context_memory_json(r.memory);
  const json::Value& mem = *doc.root().find("memory");
  EXPECT_TRUE(mem.find("total_inference_fp16_mb")->is_null());
  EXPECT_TRUE(mem.find("total_training_fp32_mb")->is_null());
  EXPECT_TRUE(mem.find("kv_cache_bytes")->is_null());
  EXPECT_FALSE(mem.find("params_fp16_mb")->is_null());
  for (const std::string& e : kContextTotals) {
    const json::Value* v =
        unknown_context_estimate(mem, e.starts_with("training") ? "training" : "inference", e);
    ASSERT_NE(v, nullptr) << e;
    EXPECT_TRUE(v->find("bytes")->is_null()) << e;
  }
  EXPECT_EQ(unknown_context_estimate(mem, "inference", "inference_weights")->find("bytes")->as_uint(),
            r.memory.find("inference_weights")->bytes);

  // Weights + 10% overhead, what the total said before it was marked unknown.
  const uint64_t weights = r.memory.find("inference_weights")->bytes;
  const std::string posing = human_bytes(weights + weights / 10);
  for (bool detailed : {false, true}) {
    ConsoleWriter c(false);
    render_console(c, r.memory, r, RenderOptions{detailed});
    const std::string text = c.take();
    EXPECT_EQ(text.find(posing), std::string::npos) << text;
    size_t at = text.find("inference total");
    ASSERT_NE(at, std::string::npos) << text;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(line.find("unknown (pass --context)"), std::string::npos) << line;
  }
  MarkdownWriter w;
  render_document(w, r.memory, r);
  const std::string md = w.take();
  EXPECT_EQ(md.find(posing), std::string::npos) << md;
  const size_t row = md.find("| inference_total |");
  ASSERT_NE(row, std::string::npos) << md;
  EXPECT_NE(md.substr(row, md.find('\n', row) - row).find("unknown (pass --context)"), std::string::npos)
      << md;
}

// With --context every term is known: the totals are numbers again, each the sum of its terms.
TEST(MemoryUnknownContext, AContextMakesTheTotalsKnown) {
  LOAD_OR_SKIP(l, "hf-configs", "bigscience__bloom-560m");
  ReportOptions o;
  o.context = 2048;
  const MemoryReport m = test::memory_of(*l, o);
  for (const std::string& e : kContextTotals) {
    ASSERT_NE(m.find(e), nullptr) << e;
    EXPECT_TRUE(m.find(e)->known) << e;
    EXPECT_GT(m.find(e)->bytes, 0u) << e;
  }
  EXPECT_EQ(m.find("inference_kv_cache")->bytes, m.kv_cache_per_token_bytes * 2048);
  EXPECT_EQ(m.find("inference_total")->bytes,
            m.find("inference_weights")->bytes + m.find("inference_kv_cache")->bytes +
                m.find("inference_activations")->bytes + m.find("inference_overhead")->bytes);
  const json::Document doc = unknown_context_memory_json(m);
  EXPECT_FALSE(doc.root().find("memory")->find("total_inference_fp16_mb")->is_null());
}

}  // namespace
}  // namespace ma

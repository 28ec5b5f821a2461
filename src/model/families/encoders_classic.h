// What the classic (2019-2020) encoders of encoders_compact.cpp (ConvBERT) and encoders_xlnet_xlm.cpp (XLNet,
// XLM, FlauBERT) share: the config keys their config classes alias, and the SequenceSummary pooler their
// classifiers put on the encoder.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/blocks.h"
#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/model_template.h"

namespace ma::families::classic_encoders {

// The key a value is read under when the config class maps `alias` onto `field` (its attribute_map): the
// alias when config.json holds it, as transformers sets aliases after the fields, else the field.
inline std::string_view aliased(const ModelConfig& cfg, std::string_view alias, std::string_view field) {
  return cfg.has(alias) ? alias : field;
}

// A flag SequenceSummary tests for truth: an explicit null in config.json is an attribute holding None, so
// false, not the class default.
inline bool summary_flag(const ModelConfig& cfg, std::string_view key, bool dflt) {
  const json::Value* v = cfg.raw(key);
  if (v && v->is_null()) return false;
  return cfg.flag_or(key, dflt);
}

// What the family's config class declares for SequenceSummary (ConvBERT declares nothing: absent is false).
struct SummaryDefaults {
  bool use_proj = false;
  bool proj_to_labels = false;
};

// `name`.summary: a Linear from `hidden` to num_labels (summary_proj_to_labels) or to `hidden` again, built
// only when summary_use_proj holds. transformers' SequenceSummary raises on summary_type "attn", a mode it
// never had.
inline void sequence_summary(const ModelConfig& cfg, ModelTemplate& t, const std::string& name,
                             uint64_t hidden, SummaryDefaults d) {
  if (cfg.string_or("summary_type", "last") == "attn")
    cfg.fail("summary_type",
             "must be last, first, mean or cls_index: transformers' SequenceSummary raises on attn");
  if (!summary_flag(cfg, "summary_use_proj", d.use_proj)) return;
  const uint64_t out =
      summary_flag(cfg, "summary_proj_to_labels", d.proj_to_labels) ? num_labels(cfg) : hidden;
  blocks::linear(t, name + ".summary", hidden, out, true);
}

}  // namespace ma::families::classic_encoders

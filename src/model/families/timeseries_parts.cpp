// Pieces the time-series families share: BatchNorm1d and the distribution heads of time_series_utils.py.
#include <string>
#include <string_view>

#include "model/blocks.h"
#include "model/families/timeseries.h"

namespace ma::families {

void time_series_batch_norm(ModelTemplate& t, const std::string& prefix, uint64_t dim) {
  blocks::norm(t, prefix, dim, true);
  t.add(prefix + ".running_mean", {dim}).kind = TensorKind::Buffer;
  t.add(prefix + ".running_var", {dim}).kind = TensorKind::Buffer;
  t.add(prefix + ".num_batches_tracked", {}).kind = TensorKind::Buffer;
}

void distribution_projection(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix, uint64_t in,
                             uint64_t dim, std::string_view dflt) {
  // DistributionOutput.args_dim, each entry times `dim`: one projection per parameter of the distribution.
  // null is None, which no class accepts.
  if (const json::Value* v = cfg.raw("distribution_output"); v && v->is_null())
    cfg.fail("distribution_output", "must be student_t, normal or negative_binomial");
  const std::string name = cfg.string_or("distribution_output", dflt);
  size_t parameters = 0;
  if (name == "student_t")
    parameters = 3;  // df, loc, scale
  else if (name == "normal" || name == "negative_binomial")
    parameters = 2;  // loc, scale / total_count, logits
  else
    cfg.fail("distribution_output", "must be student_t, normal or negative_binomial");
  for (size_t i = 0; i < parameters; ++i)
    blocks::linear(t, prefix + ".proj." + std::to_string(i), in, dim, true);
}

bool time_series_distribution_loss(const ModelConfig& cfg, std::string_view dflt) {
  // `loss` null is None, not "mse": the distribution head.
  if (const json::Value* loss = cfg.raw("loss"); loss && loss->is_null()) return true;
  return cfg.string_or("loss", dflt) != "mse";
}

}  // namespace ma::families

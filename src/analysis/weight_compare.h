// Checkpoint drift (seed 001's "Comparing Checkpoints"): two checkpoints of the same architecture compared
// tensor by tensor while both are streamed, aggregated per layer, ranked, and flagged against a threshold.
// An original against its GGUF quantization gives the quantization error: tensors paired by place
// (analysis/tensor_pairing.h), blocks decoded as llama.cpp decodes them, and the error pooled per GGUF type.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/drift_sums.h"
#include "analysis/module_class.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace ma {

struct TensorDrift {
  std::string name;  // A's
  std::string
      name_b;  // B's when it differs (another format's name, an expert's slice "blk.0.ffn_up_exps.weight[3]")
  std::optional<uint32_t> layer;
  ModuleClass module_class = ModuleClass::Other;
  DType dtype_a = DType::F32, dtype_b = DType::F32;
  Shape shape;
  uint64_t numel = 0;
  double mean_a = 0, mean_b = 0;
  double mean_drift = 0;  // |mean_b - mean_a| (seed 001's example)
  double std_a = 0, std_b = 0;
  double std_ratio = 0;  // std_b / std_a (1 = unchanged); NaN (null, "-") when std_a is 0
  double rel_l2 = 0;     // ||B - A|| / ||A|| (0 when both are zero)
  double cosine = 0;     // <A, B> / (||A|| ||B||), within [-1, 1]; 1 when both are zero
  double max_abs_diff = 0;
  // NaN or ±Inf elements, which the sums above leave out; and the elements where A and B differ in them (a
  // NaN in B where A is finite, +Inf for -Inf): a diverged fine-tune, whatever its finite values say.
  uint64_t nonfinite_a = 0, nonfinite_b = 0, nonfinite_changed = 0;
  // A GGUF q/k projection whose rows llama.cpp's converter may store in its rotary order: the order it was
  // read in ("rotary": rows put back in the original order; "stored": as the file holds them; empty for any
  // other tensor), ||B-A||/||A|| read in the other order (NaN otherwise), and whether the other order
  // matches markedly better than the one the GGUF's architecture says its converter writes (a broken
  // conversion: kRotaryOrderRule).
  std::string rotary_order;
  double rel_l2_other_order = NAN;
  bool rotary_order_mismatch = false;
  uint32_t flagged_by = 0;  // the DriftRule bits this tensor breaks
  bool flagged = false;     // flagged_by != 0
  // The sums the per-layer and per-dtype figures are pooled from.
  DriftSums sums;
};

// Why a tensor is flagged: each rule it breaks (bits of TensorDrift::flagged_by).
enum DriftRule : uint32_t {
  kMeanDriftRule = 1,   // |mean drift| > mean_threshold (seed 001's rule)
  kRelL2Rule = 2,       // ||B-A||/||A|| > rel_l2_threshold
  kCosineRule = 4,      // cosine < cosine_threshold
  kMaxAbsDiffRule = 8,  // max |B-A| > max_abs_threshold
  kNonFiniteRule =
      16,  // an element is NaN or ±Inf on one side and not (or not the same) on the other; always on
  // A GGUF q/k projection whose rows match A markedly better (||B-A|| at most half) in the other row order
  // than in the one llama.cpp's converter writes for the file's architecture: the conversion permuted them
  // wrongly, or not at all; always on.
  kRotaryOrderRule = 32,
};
// "nonfinite_changed", "mean_drift", "rel_l2", "cosine", "max_abs_diff": the rule's figure, as the JSON
// names it; "rotary_order" for kRotaryOrderRule.
const char* drift_rule_name(DriftRule r);
inline constexpr DriftRule kDriftRules[] = {kNonFiniteRule, kMeanDriftRule,  kRelL2Rule,
                                            kCosineRule,    kMaxAbsDiffRule, kRotaryOrderRule};

// Per decoder layer (and one row, layer = nullopt, for everything outside the stack). Pooled over the pairs
// finite on both sides, as a tensor's figures are; but where an element of the layer became (or stopped
// being) NaN or Inf, or no pair is finite, the pooled figures would hide it (an all-NaN layer pools to
// nothing, and nothing reads as unchanged): rel_l2 and cosine are then undefined (NaN: null, "-").
struct LayerDrift {
  std::optional<uint32_t> layer;
  uint64_t numel = 0;
  double rel_l2 = 0;  // sqrt(sum ||B-A||^2 / sum ||A||^2) over the layer's tensors
  double cosine = 0;  // sum <A,B> / sqrt(sum ||A||^2 * sum ||B||^2), within [-1, 1]
  double max_abs_diff = 0;
  uint64_t nonfinite_changed = 0;  // the tensors' nonfinite_changed, summed
  uint32_t flagged = 0;            // tensors flagged in the layer
};

// B's tensors of one dtype (a GGUF type: Q4_K, Q6_K) pooled: the error that type leaves. Undefined (NaN)
// rel_l2 and SNR on the layer's rule: an element that became or stopped being NaN/Inf, or no finite pair.
struct DTypeDrift {
  DType dtype = DType::F32;
  uint64_t tensors = 0, numel = 0;
  double rel_l2 = 0;  // sqrt(sum ||B-A||^2 / sum ||A||^2)
  double snr_db = 0;  // 10 log10(sum ||A||^2 / sum ||B-A||^2); +inf (null) when B equals A
  double max_abs_diff = 0;
  uint64_t nonfinite_changed = 0;  // the tensors' nonfinite_changed, summed
  DriftSums sums;
};

// A tensor of A whose counterpart in B has another shape (and, paired by place, maybe another name).
struct ShapeMismatch {
  std::string name, name_b;  // name_b: empty when B names it as A does
  Shape shape_a, shape_b;
};

// A tensor present on a side whose values were not compared, and why: a view whose elements are not in
// row-major order, a dtype without element values, or a tensor sharing a place with others of its shape
// whose counterpart could not be told (names that do not say, values that cannot be read). `name` is A's
// tensor, empty for a tensor of B left without a counterpart; `name_b` B's where it differs from A's, empty
// when B names it as A does or no counterpart could be told.
struct NotCompared {
  std::string name, name_b;
  bool in_a = false, in_b = false;                   // the entry names a tensor of A, of B (both: a pair)
  DType dtype_a = DType::F32, dtype_b = DType::F32;  // of the sides named
  Shape shape;
  uint64_t numel = 0;
  std::string reason;
};

struct WeightComparison {
  std::string a, b;  // the models as the user named them
  // The rules (CompareOptions); a threshold of 0 is not used (cosine: -1; max |B-A|: none).
  double mean_threshold = 0.1;
  double rel_l2_threshold = 0.5;
  double cosine_threshold = 0.9;
  std::optional<double> max_abs_threshold;
  std::vector<TensorDrift> tensors;       // in A's order, both present and same shape
  std::vector<std::string> missing_in_b;  // in A only
  std::vector<std::string> extra_in_b;    // in B only
  std::vector<ShapeMismatch> shape_mismatch;
  // Present on both sides (or B's, at a place shared with A's) but not compared: with `tensors`,
  // `missing_in_b`, `extra_in_b` and `shape_mismatch`, every tensor of A and of B is in one of them.
  std::vector<NotCompared> not_compared;
  std::vector<LayerDrift> layers;      // by layer index, then the non-layer row
  std::vector<DTypeDrift> by_dtype_b;  // by B's dtype, in dtype order
  std::string paired_by = "name";      // or "place" (an original against a GGUF file)
  uint64_t rotary_reordered = 0;       // GGUF q/k projections read in llama.cpp's rotary row order
  uint64_t rotary_order_mismatch = 0;  // of those and the others, the ones the other row order fits better
  uint64_t paired_by_names = 0;        // tensors at a shared place (a layer's norms) paired by GGUF name
  uint64_t paired_by_values = 0;       // tensors at a shared place the names cannot tell, paired by likeness
  double seconds = 0;
};

}  // namespace ma

#include "formats/model_files.h"

namespace ma {

// The flagging rules. Seed 001 flags by |mean drift| alone, which two unrelated checkpoints pass (both means
// are near 0): the defaults add ||B-A||/||A|| > 0.5 and cosine < 0.9, which independent weights of equal
// norm break (rel. L2 ~ 1.41, cosine ~ 0) while fine-tuning and 4-bit quantization stay far inside
// (rel. L2 of a few percent, cosine above 0.99). max |B-A| is scale-bound: off unless asked, and 0 asks for
// any difference at all (a bit-exact copy is what some users check).
struct CompareOptions {
  double mean_threshold = 0.1;
  double rel_l2_threshold = 0.5;
  double cosine_threshold = 0.9;  // -1 (or below): off
  std::optional<double> max_abs_threshold;
  unsigned threads = 0;  // 0: one per core
};

// Streams both checkpoints tensor by tensor (same names, same shapes; dtypes may differ) and fills the
// comparison. A tensor whose values cannot be read (a view not in row-major order, a dtype without element
// values) is never read: it goes to `not_compared` with its reason, and `warnings` says so too. Throws Error
// for unreadable files.
WeightComparison compare_weights(const LocalModelFiles& a, const LocalModelFiles& b,
                                 const CompareOptions& options, std::vector<std::string>& warnings);

}  // namespace ma

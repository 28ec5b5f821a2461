#include "analysis/weight_compare.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "analysis/element_decoder.h"
#include "analysis/matrix_reader.h"
#include "analysis/module_class.h"
#include "analysis/readable_values.h"
#include "analysis/stats_math.h"
#include "analysis/tensor_pairing.h"
#include "core/error.h"
#include "core/parallel.h"
#include "formats/checkpoint.h"
#include "io/file_source.h"
#include "model/config.h"
#include "model/gguf_record.h"
#include "model/tensor_placement.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

constexpr size_t kChunkElements = 1 << 16;

struct Pair {
  const PairedSide* a;
  const PairedSide* b;
  size_t out;
  // A GGUF side of a q/k projection whose rows llama.cpp's converter reordered for its rotary kernel: read
  // in the original order, with this head size (0: rows as stored).
  uint64_t rotary_head_dim_a = 0, rotary_head_dim_b = 0;
};

struct CompareWorker {
  ElementDecoder decoder;
  std::vector<char> raw_a = std::vector<char>(kChunkElements * 8),
                    raw_b = std::vector<char>(kChunkElements * 8);
  std::vector<double> a = std::vector<double>(kChunkElements), b = std::vector<double>(kChunkElements);
  std::map<fs::path, std::unique_ptr<FileSource>> files;
  const FileSource& file(const fs::path& p) {
    auto& f = files[p];
    if (!f) f = std::make_unique<FileSource>(p);
    return *f;
  }
};

// The stored row holding original row `row` of a q/k projection in llama.cpp's rotary order: within each
// head, the converter interleaves the two rotary halves (row h*hd + i*hd/2 + j is stored at h*hd + 2j + i).
uint64_t rotary_row(uint64_t row, uint64_t head_dim) {
  const uint64_t h = row / head_dim, in_head = row % head_dim, half = head_dim / 2;
  return h * head_dim + 2 * (in_head % half) + in_head / half;
}

// Reads elements [first, first + n) of one side into `raw` and decodes them; with a rotary head size, n is
// one row and the stored row it comes from is looked up.
void read_side(CompareWorker& w, const PairedSide& s, uint64_t rotary_head_dim, uint64_t first, size_t n,
               std::vector<char>& raw, double* out) {
  uint64_t element = first;
  if (rotary_head_dim) {
    const uint64_t cols = s.shape.back();
    element = rotary_row(first / cols, rotary_head_dim) * cols;
  }
  auto [offset, len] = element_byte_span(s.dtype, element, n);
  w.file(s.file).read_exact(s.offset + offset, len, raw.data());
  w.decoder.decode(s.dtype, raw.data(), n, out);
}

void compare_pair(CompareWorker& w, const Pair& p, TensorDrift& d) {
  const PairedSide& ta = *p.a;
  const PairedSide& tb = *p.b;
  // The moments are taken of the values as DriftSums scales them (below 1), shifted when its scale grows, and
  // scaled back at the end: float64 values near its maximum have a std too.
  Moments ma, mb;
  DriftSums sums;
  double max_diff = 0;
  // Row by row where a side's rows are reordered; in large chunks otherwise.
  const bool by_row = (p.rotary_head_dim_a || p.rotary_head_dim_b) && ta.shape.size() == 2;
  const uint64_t unit = by_row ? ta.shape[1] : kChunkElements;
  for (uint64_t first = 0; first < ta.numel; first += unit) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(unit, ta.numel - first));
    if (w.a.size() < n) {
      w.a.resize(n);
      w.b.resize(n);
      w.raw_a.resize(n * 8);
      w.raw_b.resize(n * 8);
    }
    read_side(w, ta, by_row ? p.rotary_head_dim_a : 0, first, n, w.raw_a, w.a.data());
    read_side(w, tb, by_row ? p.rotary_head_dim_b : 0, first, n, w.raw_b, w.b.data());
    // Pairs where either side is NaN or Inf are left out of every sum (they would poison them all), and
    // counted: a value that became NaN or Inf is a change no sum shows.
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      const double x = w.a[i], y = w.b[i];
      const bool fa = std::isfinite(x), fb = std::isfinite(y);
      if (fa && fb) {
        w.a[k] = x;
        w.b[k] = y;
        ++k;
        continue;
      }
      d.nonfinite_a += !fa;
      d.nonfinite_b += !fb;
      d.nonfinite_changed += fa || fb || (std::isnan(x) != std::isnan(y)) || (!std::isnan(x) && x != y);
    }
    for (size_t i = 0; i < k; ++i) max_diff = std::max(max_diff, std::fabs(w.b[i] - w.a[i]));
    if (const int shift = sums.add(w.a.data(), w.b.data(), k); shift != 0) {
      shift_moments(ma, shift);
      shift_moments(mb, shift);
    }
    ma.merge(moments_of_block(w.a.data(), k));
    mb.merge(moments_of_block(w.b.data(), k));
  }
  // Scaled by powers of two, the figures are the unscaled ones bit for bit; ratios need no scaling back.
  const int e = sums.scale_exp;
  d.mean_a = std::ldexp(ma.mean, e);
  d.mean_b = std::ldexp(mb.mean, e);
  d.mean_drift = std::ldexp(std::fabs(mb.mean - ma.mean), e);
  const double std_a = ma.n > 0 ? std::sqrt(ma.m2 / ma.n) : 0, std_b = mb.n > 0 ? std::sqrt(mb.m2 / mb.n) : 0;
  d.std_a = std::ldexp(std_a, e);
  d.std_b = std::ldexp(std_b, e);
  d.std_ratio = std_a > 0 ? std_b / std_a : NAN;  // undefined for a constant A (JSON null)
  d.rel_l2 = sums.relative_l2();
  d.cosine = sums.cosine();
  if (ma.n == 0 && d.numel > 0) d.rel_l2 = d.cosine = NAN;  // no pair finite on both sides: undefined (null)
  d.max_abs_diff = max_diff;
  d.sums = sums;
}

// Why one side's values cannot be read element by element; empty when they can.
std::string why_side_unreadable(const PairedSide& s) {
  if (!s.in_order) return "a view whose elements are not in row-major order on disk";
  return why_values_unreadable(s.dtype, false, s.encoded);
}

// Why a pair cannot be compared element by element, and on which side; empty when it can.
std::string why_not_comparable(const PairedSide& t, const PairedSide& u) {
  if (std::string why = why_side_unreadable(t); !why.empty()) return why + " (in A)";
  if (std::string why = why_side_unreadable(u); !why.empty()) return why + " (in B)";
  return "";
}

// The row order the GGUF's converter writes a q/k projection named as transformers names it (...q_proj /
// ...k_proj) in: 1 its rotary order, 0 the original's, -1 where model/gguf_record.h's table does not say or
// the original is named otherwise (Meta's and Mistral's own wq/wk are already in the rotary order).
int expected_rotary_order(const Checkpoint& gguf, const PairedSide& original) {
  const std::string_view module = leaf_of(module_of(original.tensor));
  if (module != "q_proj" && module != "k_proj") return -1;
  if (!gguf.gguf) return -1;
  const auto arch = gguf.gguf->string_value("general.architecture");
  if (!arch) return -1;
  switch (gguf_qk_row_order(*arch)) {
    case GgufQkRows::Rotary:
      return 1;
    case GgufQkRows::AsOriginal:
      return 0;
    case GgufQkRows::Unknown:
      return -1;
  }
  return -1;
}

// The head size a GGUF q/k projection's rows are grouped by (from {arch}.attention.key_length, else the
// embedding length over the head count); 0 when the side is not such a tensor of a GGUF file.
uint64_t gguf_head_dim(const Checkpoint& ck, const PairedSide& s) {
  if (!ck.gguf || s.shape.size() != 2) return 0;
  const TensorPlacement p = place_tensor(s.tensor);
  if (p.block != Block::Attention || (p.role != "q" && p.role != "k")) return 0;
  const auto arch = ck.gguf->string_value("general.architecture");
  if (!arch) return 0;
  const std::string prefix = std::string(*arch) + ".";
  uint64_t hd = ck.gguf->uint_value(prefix + "attention.key_length").value_or(0);
  const uint64_t heads = ck.gguf->uint_value(prefix + "attention.head_count").value_or(0);
  if (!hd && heads) hd = ck.gguf->uint_value(prefix + "embedding_length").value_or(0) / heads;
  return hd >= 2 && hd % 2 == 0 && s.shape[0] % hd == 0 ? hd : 0;
}

}  // namespace

namespace {

// Whether a layer's or a dtype's pooled figures are undefined: an element became or stopped being NaN/Inf
// (the pooled sums leave it out, and would show the rest as if nothing else had happened: an all-NaN layer
// pooled to 0 and cosine 1, an SNR of inf), or no pair of its elements is finite on both sides.
bool pooled_figures_undefined(uint64_t nonfinite_changed, uint64_t finite_pairs, uint64_t numel) {
  return nonfinite_changed > 0 || (finite_pairs == 0 && numel > 0);
}

// What a config says the model is: "llama (LlamaForCausalLM)"; "" without a config.
std::string declared_architecture(const LocalModelFiles& m) {
  if (!m.config) return "";
  constexpr uint64_t kMaxConfigBytes = 16ull << 20;
  const ModelConfig cfg = ModelConfig::parse(read_small_file(*m.config, kMaxConfigBytes), m.config->string());
  std::string s = cfg.string_or("model_type", "");
  for (const std::string& a : cfg.strings("architectures")) s += " (" + a + ")";
  return s;
}

}  // namespace

const char* drift_rule_name(DriftRule r) {
  switch (r) {
    case kMeanDriftRule:
      return "mean_drift";
    case kRelL2Rule:
      return "rel_l2";
    case kCosineRule:
      return "cosine";
    case kMaxAbsDiffRule:
      return "max_abs_diff";
    case kNonFiniteRule:
      return "nonfinite_changed";
    case kRotaryOrderRule:
      return "rotary_order";
  }
  return "?";
}

WeightComparison compare_weights(const LocalModelFiles& a, const LocalModelFiles& b,
                                 const CompareOptions& options, std::vector<std::string>& warnings) {
  auto start = std::chrono::steady_clock::now();
  Checkpoint ca = read_checkpoint(a), cb = read_checkpoint(b);
  for (const auto* ck : {&ca, &cb})
    if (!ck->headers_read)
      throw Error(ErrorKind::NotFound, (ck == &ca ? a : b).display_name, "",
                  "comparison needs the weight files");
  check_value_read_budget(a, ca);
  check_value_read_budget(b, cb);
  // One format names a tensor alike in both; an original and its GGUF quantization pair by place.
  const bool by_place = (ca.format == "gguf") != (cb.format == "gguf");
  const std::vector<PairedSide> sa = paired_sides(a, ca, by_place), sb = paired_sides(b, cb, by_place);
  const TensorPairs tp = by_place ? pair_by_place(sa, sb) : pair_by_name(sa, sb);
  // Drift means something between checkpoints of one architecture; tensors of two that merely share names
  // compare, but the user should know.
  if (!by_place) {
    const std::string arch_a = declared_architecture(a), arch_b = declared_architecture(b);
    if (!arch_a.empty() && !arch_b.empty() && arch_a != arch_b)
      warnings.push_back(b.display_name + ": config.json declares " + arch_b + ", " + a.display_name +
                         "'s declares " + arch_a + ": different architectures, tensors compared by name");
  }

  WeightComparison c;
  c.mean_threshold = options.mean_threshold;
  c.rel_l2_threshold = options.rel_l2_threshold;
  c.cosine_threshold = options.cosine_threshold;
  c.max_abs_threshold = options.max_abs_threshold;
  c.paired_by = by_place ? "place" : "name";
  c.paired_by_names = tp.paired_by_names;
  // Every candidate computed: the pairs, both row orders of a GGUF q/k projection, every A x B of an
  // ambiguous place. `a_index` keeps A's order for the result.
  std::vector<Pair> pairs;
  std::vector<TensorDrift> drifts;
  std::vector<size_t> a_index;
  auto candidate = [&](size_t i, size_t j, uint64_t rotary_a, uint64_t rotary_b) {
    TensorDrift d;
    d.name = sa[i].name;
    if (sb[j].name != sa[i].name) d.name_b = sb[j].name;
    const TensorPlacement p = place_tensor(sa[i].tensor);
    d.layer = p.layer;
    d.module_class = module_class(p.block, p.role);
    d.dtype_a = sa[i].dtype;
    d.dtype_b = sb[j].dtype;
    d.shape = sa[i].shape;
    d.numel = sa[i].numel;
    pairs.push_back({&sa[i], &sb[j], drifts.size(), rotary_a, rotary_b});
    drifts.push_back(std::move(d));
    a_index.push_back(i);
  };
  // A tensor (of A, of B, or a pair) present but not compared, and why: in the result, and on stderr.
  auto leave_out = [&](const PairedSide* ta, const PairedSide* tb, const std::string& reason) {
    NotCompared n;
    n.in_a = ta != nullptr;
    n.in_b = tb != nullptr;
    if (ta) {
      n.name = ta->name;
      n.dtype_a = ta->dtype;
      n.shape = ta->shape;
      n.numel = ta->numel;
    }
    if (tb) {
      if (!ta || tb->name != ta->name) n.name_b = tb->name;
      n.dtype_b = tb->dtype;
      if (!ta) {
        n.shape = tb->shape;
        n.numel = tb->numel;
      }
    }
    n.reason = reason;
    warnings.push_back((ta ? ta->name : "B's " + tb->name) + ": " + reason + "; not compared");
    c.not_compared.push_back(std::move(n));
  };
  // Whether the pair can be compared; says why not otherwise.
  auto comparable = [&](size_t i, size_t j) {
    if (sa[i].shape != sb[j].shape) {
      c.shape_mismatch.push_back(
          {sa[i].name, sb[j].name == sa[i].name ? std::string() : sb[j].name, sa[i].shape, sb[j].shape});
      return false;
    }
    if (std::string why = why_not_comparable(sa[i], sb[j]); !why.empty()) {
      leave_out(&sa[i], &sb[j], why);
      return false;
    }
    return true;
  };
  struct Choice {
    std::vector<size_t> candidates;  // indices into drifts
    // A GGUF q/k projection's two row orders (candidates: as stored, then llama.cpp's rotary order), and the
    // one its architecture's converter writes (0, 1; -1 when unknown: the one that fits better is kept).
    bool row_orders = false;
    int expected = -1;
    // A shared place the names could not settle: its tensors whose values can be read, paired by likeness.
    bool shared_place = false;
    std::vector<const PairedSide*> group_a, group_b;
  };
  std::vector<Choice> choices;
  for (auto [i, j] : tp.pairs) {
    if (!comparable(i, j)) continue;
    // GGUF against GGUF: both files hold the same row order, compared as stored.
    const bool one_gguf = sa[i].gguf != sb[j].gguf;
    const uint64_t ha = one_gguf ? gguf_head_dim(ca, sa[i]) : 0, hb = one_gguf ? gguf_head_dim(cb, sb[j]) : 0;
    Choice choice;
    choice.candidates.push_back(drifts.size());
    candidate(i, j, 0, 0);
    if (ha || hb) {  // llama.cpp's converter reorders the rows of some families' q/k: read both orders
      choice.candidates.push_back(drifts.size());
      candidate(i, j, ha, hb);
      choice.row_orders = true;
      choice.expected = ha ? expected_rotary_order(ca, sb[j]) : expected_rotary_order(cb, sa[i]);
    }
    choices.push_back(std::move(choice));
  }
  for (const auto& group : tp.ambiguous) {
    std::vector<size_t> ia, ib;  // the place's tensors, each once
    for (auto [i, j] : group) {
      if (std::find(ia.begin(), ia.end(), i) == ia.end()) ia.push_back(i);
      if (std::find(ib.begin(), ib.end(), j) == ib.end()) ib.push_back(j);
    }
    // A tensor whose values cannot be read is neither compared nor used to pair the others by likeness.
    Choice choice;
    choice.shared_place = true;
    const std::string shared = ", one of " + std::to_string(ia.size()) +
                               " tensors of one shape at this place that only their values could pair";
    for (size_t i : ia)
      if (std::string why = why_side_unreadable(sa[i]); !why.empty())
        leave_out(&sa[i], nullptr, why + " (in A)" + shared);
      else
        choice.group_a.push_back(&sa[i]);
    for (size_t j : ib)
      if (std::string why = why_side_unreadable(sb[j]); !why.empty())
        leave_out(nullptr, &sb[j], why + " (in B)" + shared);
      else
        choice.group_b.push_back(&sb[j]);
    for (const PairedSide* ta : choice.group_a)
      for (const PairedSide* tb : choice.group_b) {
        choice.candidates.push_back(drifts.size());
        candidate(static_cast<size_t>(ta - sa.data()), static_cast<size_t>(tb - sb.data()), 0, 0);
      }
    choices.push_back(std::move(choice));
  }
  // A PyTorch tie's second name (lm_head.weight saved as the embedding's storage) that the other side does
  // not hold: its values are the tensor it repeats, compared under that name; neither missing nor extra.
  auto tie_reason = [](const PairedSide& s) {
    return "a second name of " + s.tie_of +
           " (one storage, saved as a PyTorch tie): its values are compared as " + s.tie_of + "'s";
  };
  for (size_t i : tp.only_a)
    if (!sa[i].tie_of.empty())
      leave_out(&sa[i], nullptr, tie_reason(sa[i]) + " (in A)");
    else
      c.missing_in_b.push_back(sa[i].name);
  for (size_t j : tp.only_b)
    if (!sb[j].tie_of.empty())
      leave_out(nullptr, &sb[j], tie_reason(sb[j]) + " (in B)");
    else
      c.extra_in_b.push_back(sb[j].name);

  const size_t threads = options.threads ? options.threads : available_cores();
  parallel_for_with_state<CompareWorker>(pairs.size(), threads, [&](CompareWorker& w, size_t k) {
    compare_pair(w, pairs[k], drifts[pairs[k].out]);
  });

  // Keep, per choice: a pair's one candidate; of a q/k projection's two row orders the one its GGUF
  // architecture's converter writes (flagged when the other fits better), or where that is not known the
  // one that fits better; at a shared place the one-to-one assignment by likeness (smallest error first).
  std::vector<size_t> kept;
  for (const Choice& ch : choices) {
    if (ch.row_orders) {
      const size_t stored = ch.candidates[0], rotary = ch.candidates[1];
      size_t keep = drifts[rotary].sums.diff2_key() < drifts[stored].sums.diff2_key() ? rotary : stored;
      if (ch.expected >= 0) keep = ch.expected ? rotary : stored;
      const size_t other = keep == rotary ? stored : rotary;
      TensorDrift& d = drifts[keep];
      d.rotary_order = keep == rotary ? "rotary" : "stored";
      d.rel_l2_other_order = drifts[other].rel_l2;
      // Flagged where the other order fits markedly better (||B-A|| at most half): a broken conversion, not
      // two unrelated tensors (both orders near ||B-A||/||A|| = 1.41, either a little ahead).
      auto [other_exp, other_mantissa] = drifts[other].sums.diff2_key();
      const std::pair<int, double> four_other = {other_exp == INT_MIN ? INT_MIN : other_exp + 2,
                                                 other_mantissa};
      d.rotary_order_mismatch = ch.expected >= 0 && four_other <= d.sums.diff2_key() && d.sums.dd.value() > 0;
      c.rotary_order_mismatch += d.rotary_order_mismatch;
      c.rotary_reordered += keep == rotary;
      kept.push_back(keep);
      continue;
    }
    if (!ch.shared_place) {
      kept.push_back(ch.candidates.front());
      continue;
    }
    std::vector<size_t> order = ch.candidates;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return drifts[x].sums.diff2_key() < drifts[y].sums.diff2_key();
    });
    std::set<const PairedSide*> used_a, used_b;
    for (size_t k : order)
      if (!used_a.count(pairs[k].a) && !used_b.count(pairs[k].b)) {
        used_a.insert(pairs[k].a);
        used_b.insert(pairs[k].b);
        kept.push_back(k);
        ++c.paired_by_values;
      }
    // Left without a partner: the counterpart is one of the other side's tensors that could not be read.
    for (const PairedSide* s : ch.group_a)
      if (!used_a.count(s))
        leave_out(s, nullptr,
                  "its counterpart is one of B's tensors at this place whose values cannot be read, and only "
                  "values could tell which");
    for (const PairedSide* s : ch.group_b)
      if (!used_b.count(s))
        leave_out(nullptr, s,
                  "its counterpart is one of A's tensors at this place whose values cannot be read, and only "
                  "values could tell which");
  }
  std::stable_sort(kept.begin(), kept.end(), [&](size_t x, size_t y) { return a_index[x] < a_index[y]; });
  for (size_t k : kept) c.tensors.push_back(std::move(drifts[k]));

  std::map<int64_t, LayerDrift> layers;  // -1: outside the layer stack
  std::map<int64_t, DriftSums> layer_sums;
  for (TensorDrift& d : c.tensors) {
    d.flagged_by = d.nonfinite_changed ? uint32_t{kNonFiniteRule} : 0u;
    if (d.mean_drift > c.mean_threshold) d.flagged_by |= kMeanDriftRule;
    if (c.rel_l2_threshold > 0 && d.rel_l2 > c.rel_l2_threshold) d.flagged_by |= kRelL2Rule;
    // -1 is off (--help says so), though no cosine is below it anyway.
    if (c.cosine_threshold > -1 && d.cosine < c.cosine_threshold) d.flagged_by |= kCosineRule;
    if (c.max_abs_threshold && d.max_abs_diff > *c.max_abs_threshold) d.flagged_by |= kMaxAbsDiffRule;
    if (d.rotary_order_mismatch) d.flagged_by |= kRotaryOrderRule;
    d.flagged = d.flagged_by != 0;
    const int64_t key = d.layer ? static_cast<int64_t>(*d.layer) : -1;
    LayerDrift& l = layers[key];
    l.layer = d.layer;
    l.numel += d.numel;
    l.max_abs_diff = std::max(l.max_abs_diff, d.max_abs_diff);
    l.nonfinite_changed += d.nonfinite_changed;
    l.flagged += d.flagged;
    layer_sums[key].merge(d.sums);
  }
  for (auto& [key, l] : layers) {
    const DriftSums& s = layer_sums[key];
    l.rel_l2 = s.relative_l2();  // the same rules as a tensor's
    l.cosine = s.cosine();
    if (pooled_figures_undefined(l.nonfinite_changed, s.pairs, l.numel)) l.rel_l2 = l.cosine = NAN;
    if (key >= 0) c.layers.push_back(l);
  }
  if (layers.count(-1)) c.layers.push_back(layers[-1]);
  std::map<DType, DTypeDrift> by_type;
  for (const TensorDrift& d : c.tensors) {
    DTypeDrift& t = by_type[d.dtype_b];
    t.dtype = d.dtype_b;
    ++t.tensors;
    t.numel += d.numel;
    t.sums.merge(d.sums);
    t.max_abs_diff = std::max(t.max_abs_diff, d.max_abs_diff);
    t.nonfinite_changed += d.nonfinite_changed;
  }
  for (auto& [dtype, t] : by_type) {
    // The tensor rule: infinite when only A is zero. SNR: infinite without noise, -infinite without signal.
    t.rel_l2 = t.sums.relative_l2();
    t.snr_db = t.sums.snr_db();
    if (pooled_figures_undefined(t.nonfinite_changed, t.sums.pairs, t.numel)) t.rel_l2 = t.snr_db = NAN;
    c.by_dtype_b.push_back(t);
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace ma

#include "analysis/weight_compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
#include "model/tensor_placement.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// ‖B−A‖/‖A‖ from Σa², Σ(b−a)²: infinite when A is all zero and B is not, 0 when both are.
double relative_l2(double aa, double diff2) {
  return aa > 0 ? std::sqrt(diff2 / aa) : (diff2 > 0 ? INFINITY : 0);
}

// Cosine from Σa², Σb², Σab. Where a side is all zero it has no direction: 0 when one is (as torch's
// cosine_similarity and sklearn's give), and 1 when both are, this tool's convention for identical tensors
// (those libraries give 0 there too).
double cosine(double aa, double bb, double ab) {
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : (aa == 0 && bb == 0 ? 1 : 0);
}

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
  Moments ma, mb;
  double aa = 0, bb = 0, ab = 0, diff2 = 0, max_diff = 0;
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
    for (size_t i = 0; i < k; ++i) {
      const double x = w.a[i], y = w.b[i], dxy = y - x;
      aa += x * x;
      bb += y * y;
      ab += x * y;
      diff2 += dxy * dxy;
      max_diff = std::max(max_diff, std::fabs(dxy));
    }
    ma.merge(moments_of_block(w.a.data(), k));
    mb.merge(moments_of_block(w.b.data(), k));
  }
  d.mean_a = ma.mean;
  d.mean_b = mb.mean;
  d.mean_drift = std::fabs(mb.mean - ma.mean);
  d.std_a = ma.n > 0 ? std::sqrt(ma.m2 / ma.n) : 0;
  d.std_b = mb.n > 0 ? std::sqrt(mb.m2 / mb.n) : 0;
  d.std_ratio = d.std_a > 0 ? d.std_b / d.std_a : NAN;  // undefined for a constant A (JSON null)
  d.rel_l2 = relative_l2(aa, diff2);
  d.cosine = cosine(aa, bb, ab);
  if (ma.n == 0 && d.numel > 0) d.rel_l2 = d.cosine = NAN;  // no pair finite on both sides: undefined (null)
  d.max_abs_diff = max_diff;
  d.sum_a2 = aa;
  d.sum_b2 = bb;
  d.sum_ab = ab;
  d.sum_diff2 = diff2;
}

// Why a pair cannot be compared element by element; empty when it can.
std::string why_not_comparable(const PairedSide& t, const PairedSide& u) {
  if (!t.in_order || !u.in_order) return "a view whose elements are not in row-major order on disk";
  for (const PairedSide* s : {&t, &u})
    if (std::string why = why_values_unreadable(s->dtype, false, s->encoded); !why.empty()) return why;
  return "";
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
  // Whether the pair can be compared; says why not otherwise.
  auto comparable = [&](size_t i, size_t j) {
    if (sa[i].shape != sb[j].shape) {
      c.shape_mismatch.push_back(
          {sa[i].name, sb[j].name == sa[i].name ? std::string() : sb[j].name, sa[i].shape, sb[j].shape});
      return false;
    }
    if (std::string why = why_not_comparable(sa[i], sb[j]); !why.empty()) {
      warnings.push_back(sa[i].name + ": " + why + "; not compared");
      return false;
    }
    return true;
  };
  struct Choice {
    std::vector<size_t> candidates;  // indices into drifts
  };
  std::vector<Choice> choices;  // each keeps the candidate with the smallest error
  for (auto [i, j] : tp.pairs) {
    if (!comparable(i, j)) continue;
    const uint64_t ha = gguf_head_dim(ca, sa[i]), hb = gguf_head_dim(cb, sb[j]);
    Choice choice;
    choice.candidates.push_back(drifts.size());
    candidate(i, j, 0, 0);
    if (ha || hb) {  // llama.cpp's converter reorders the rows of some families' q/k: try both orders
      choice.candidates.push_back(drifts.size());
      candidate(i, j, ha, hb);
    }
    choices.push_back(std::move(choice));
  }
  for (const auto& group : tp.ambiguous) {
    std::vector<size_t> first(group.size());
    for (size_t g = 0; g < group.size(); ++g) {
      first[g] = drifts.size();
      candidate(group[g].first, group[g].second, 0, 0);
    }
    choices.push_back({first});
  }
  for (size_t i : tp.only_a) c.missing_in_b.push_back(sa[i].name);
  for (size_t j : tp.only_b) c.extra_in_b.push_back(sb[j].name);

  const size_t threads = options.threads ? options.threads : available_cores();
  parallel_for_with_state<CompareWorker>(pairs.size(), threads, [&](CompareWorker& w, size_t k) {
    compare_pair(w, pairs[k], drifts[pairs[k].out]);
  });

  // Keep, per choice, the candidates with the smallest error: one for a pair (the row order that matches),
  // a one-to-one assignment for an ambiguous place (smallest relative error first).
  std::vector<size_t> kept;
  for (const Choice& ch : choices) {
    std::vector<size_t> order = ch.candidates;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return drifts[x].sum_diff2 < drifts[y].sum_diff2; });
    const bool rotary_pair = ch.candidates.size() == 2 &&
                             pairs[ch.candidates[1]].a == pairs[ch.candidates[0]].a &&
                             pairs[ch.candidates[1]].b == pairs[ch.candidates[0]].b;
    if (ch.candidates.size() == 1 || rotary_pair) {
      kept.push_back(order.front());
      if (rotary_pair && order.front() == ch.candidates[1]) ++c.rotary_reordered;
      continue;
    }
    std::set<const PairedSide*> used_a, used_b;
    for (size_t k : order)
      if (!used_a.count(pairs[k].a) && !used_b.count(pairs[k].b)) {
        used_a.insert(pairs[k].a);
        used_b.insert(pairs[k].b);
        kept.push_back(k);
        ++c.paired_by_values;
      }
  }
  std::stable_sort(kept.begin(), kept.end(), [&](size_t x, size_t y) { return a_index[x] < a_index[y]; });
  for (size_t k : kept) c.tensors.push_back(std::move(drifts[k]));

  std::map<int64_t, LayerDrift> layers;  // -1: outside the layer stack
  std::map<int64_t, double> aa, bb, ab, dd;
  for (TensorDrift& d : c.tensors) {
    d.flagged_by = d.nonfinite_changed ? uint32_t{kNonFiniteRule} : 0u;
    if (d.mean_drift > c.mean_threshold) d.flagged_by |= kMeanDriftRule;
    if (c.rel_l2_threshold > 0 && d.rel_l2 > c.rel_l2_threshold) d.flagged_by |= kRelL2Rule;
    if (d.cosine < c.cosine_threshold) d.flagged_by |= kCosineRule;
    if (c.max_abs_threshold && d.max_abs_diff > *c.max_abs_threshold) d.flagged_by |= kMaxAbsDiffRule;
    d.flagged = d.flagged_by != 0;
    const int64_t key = d.layer ? static_cast<int64_t>(*d.layer) : -1;
    LayerDrift& l = layers[key];
    l.layer = d.layer;
    l.numel += d.numel;
    l.max_abs_diff = std::max(l.max_abs_diff, d.max_abs_diff);
    l.flagged += d.flagged;
    aa[key] += d.sum_a2;
    bb[key] += d.sum_b2;
    ab[key] += d.sum_ab;
    dd[key] += d.sum_diff2;
  }
  for (auto& [key, l] : layers) {
    l.rel_l2 = relative_l2(aa[key], dd[key]);  // the same rules as a tensor's
    l.cosine = cosine(aa[key], bb[key], ab[key]);
    if (key >= 0) c.layers.push_back(l);
  }
  if (layers.count(-1)) c.layers.push_back(layers[-1]);
  std::map<DType, DTypeDrift> by_type;
  for (const TensorDrift& d : c.tensors) {
    DTypeDrift& t = by_type[d.dtype_b];
    t.dtype = d.dtype_b;
    ++t.tensors;
    t.numel += d.numel;
    t.sum_a2 += d.sum_a2;
    t.sum_diff2 += d.sum_diff2;
    t.max_abs_diff = std::max(t.max_abs_diff, d.max_abs_diff);
  }
  for (auto& [dtype, t] : by_type) {
    // The tensor rule: infinite when only A is zero. SNR: infinite without noise, -infinite without signal.
    t.rel_l2 = relative_l2(t.sum_a2, t.sum_diff2);
    t.snr_db = t.sum_diff2 == 0 ? INFINITY
               : t.sum_a2 == 0  ? -INFINITY
                                : 10 * std::log10(t.sum_a2 / t.sum_diff2);
    c.by_dtype_b.push_back(t);
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace ma

#include "analysis/weight_compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "analysis/module_class.h"
#include "analysis/stats_math.h"
#include "core/dtype_values.h"
#include "core/error.h"
#include "core/parallel.h"
#include "formats/checkpoint.h"
#include "io/file_source.h"
#include "model/tensor_placement.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

constexpr size_t kChunkElements = 1 << 16;

struct Located {
  fs::path file;
  uint64_t offset;
  const StoredTensor* tensor;
};

struct Pair {
  Located a, b;
  size_t out;
};

// Element decoding through a table for types of at most 16 bits (the hot case: BF16), element_value
// otherwise.
class Decoder {
 public:
  void decode(DType t, const char* raw, size_t n, double* out) {
    const uint32_t bits = dtype_bits(t);
    if (t != DType::F4 && bits <= 16) {
      std::vector<double>& table = table_for(t);
      for (size_t i = 0; i < n; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, raw + i * (bits / 8), bits / 8);
        out[i] = table[v];
      }
    } else if (t == DType::F4) {
      for (size_t i = 0; i < n; ++i)
        out[i] = element_value(t, (static_cast<uint8_t>(raw[i / 2]) >> (4 * (i % 2))) & 15);
    } else {
      for (size_t i = 0; i < n; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, raw + i * (bits / 8), bits / 8);
        out[i] = element_value(t, v);
      }
    }
  }

 private:
  std::vector<double>& table_for(DType t) {
    std::vector<double>& table = tables_[t];
    if (table.empty()) {
      table.resize(size_t{1} << dtype_bits(t));
      for (size_t v = 0; v < table.size(); ++v) table[v] = element_value(t, v);
    }
    return table;
  }
  std::map<DType, std::vector<double>> tables_;
};

struct Worker {
  Decoder decoder;
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

// Bytes of elements [first, first + n) of a tensor (F4 packs two per byte; chunks start at even elements).
std::pair<uint64_t, uint64_t> byte_span(DType t, uint64_t first, uint64_t n) {
  if (t == DType::F4) return {first / 2, (n + 1) / 2};
  const uint64_t w = dtype_bits(t) / 8;
  return {first * w, n * w};
}

void compare_pair(Worker& w, const Pair& p, TensorDrift& d) {
  const StoredTensor& ta = *p.a.tensor;
  const StoredTensor& tb = *p.b.tensor;
  const FileSource& fa = w.file(p.a.file);
  const FileSource& fb = w.file(p.b.file);
  Moments ma, mb;
  double aa = 0, bb = 0, ab = 0, diff2 = 0, max_diff = 0;
  for (uint64_t first = 0; first < ta.numel; first += kChunkElements) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunkElements, ta.numel - first));
    auto [oa, la] = byte_span(ta.dtype, first, n);
    auto [ob, lb] = byte_span(tb.dtype, first, n);
    fa.read_exact(p.a.offset + oa, la, w.raw_a.data());
    fb.read_exact(p.b.offset + ob, lb, w.raw_b.data());
    w.decoder.decode(ta.dtype, w.raw_a.data(), n, w.a.data());
    w.decoder.decode(tb.dtype, w.raw_b.data(), n, w.b.data());
    // Pairs where either side is NaN or Inf are left out of every sum (they would poison them all).
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
      if (std::isfinite(w.a[i]) && std::isfinite(w.b[i])) {
        w.a[k] = w.a[i];
        w.b[k] = w.b[i];
        ++k;
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
  d.rel_l2 = aa > 0 ? std::sqrt(diff2 / aa) : (diff2 > 0 ? INFINITY : 0);
  d.cosine = aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : (aa == 0 && bb == 0 ? 1 : 0);
  d.max_abs_diff = max_diff;
  d.sum_a2 = aa;
  d.sum_b2 = bb;
  d.sum_ab = ab;
  d.sum_diff2 = diff2;
}

std::vector<Located> locate(const LocalModelFiles& files, Checkpoint& ck) {
  std::vector<Located> out;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors)
      out.push_back({files.root / f.name, f.data_start + t.data_begin, &t});
  return out;
}

}  // namespace

WeightComparison compare_weights(const LocalModelFiles& a, const LocalModelFiles& b,
                                 const CompareOptions& options, std::vector<std::string>& warnings) {
  auto start = std::chrono::steady_clock::now();
  Checkpoint ca = read_checkpoint(a), cb = read_checkpoint(b);
  for (const auto* ck : {&ca, &cb})
    if (!ck->headers_read)
      throw Error(ErrorKind::NotFound, (ck == &ca ? a : b).display_name, "",
                  "comparison needs the weight files");
  std::vector<Located> la = locate(a, ca), lb = locate(b, cb);
  std::unordered_map<std::string_view, size_t> in_b;
  for (size_t i = 0; i < lb.size(); ++i) in_b.emplace(lb[i].tensor->name, i);

  WeightComparison c;
  c.mean_threshold = options.mean_threshold;
  c.rel_l2_threshold = options.rel_l2_threshold;
  std::vector<Pair> pairs;
  std::vector<bool> matched(lb.size(), false);
  for (const Located& x : la) {
    const StoredTensor& t = *x.tensor;
    auto it = in_b.find(t.name);
    if (it == in_b.end()) {
      c.missing_in_b.push_back(t.name);
      continue;
    }
    matched[it->second] = true;
    const StoredTensor& u = *lb[it->second].tensor;
    if (t.shape != u.shape) {
      c.shape_mismatch.push_back(t.name + ": " + shape_to_string(t.shape) + " vs " +
                                 shape_to_string(u.shape));
      continue;
    }
    if (t.strided || t.permuted || u.strided || u.permuted) {
      warnings.push_back(t.name + ": a view whose elements are not in row-major order on disk; not compared");
      continue;
    }
    if (!has_element_values(t.dtype) || !has_element_values(u.dtype)) {
      warnings.push_back(t.name + ": no element values (" + std::string(dtype_info(t.dtype).short_name) +
                         "/" + std::string(dtype_info(u.dtype).short_name) + "); not compared");
      continue;
    }
    TensorDrift d;
    d.name = t.name;
    const TensorPlacement p = place_tensor(t.name);
    d.layer = p.layer;
    d.module_class = module_class(p.block, p.role);
    d.dtype_a = t.dtype;
    d.dtype_b = u.dtype;
    d.shape = t.shape;
    d.numel = t.numel;
    pairs.push_back({x, lb[it->second], c.tensors.size()});
    c.tensors.push_back(std::move(d));
  }
  for (size_t i = 0; i < lb.size(); ++i)
    if (!matched[i]) c.extra_in_b.push_back(lb[i].tensor->name);

  const size_t threads = options.threads ? options.threads : available_cores();
  parallel_for_with_state<Worker>(pairs.size(), threads, [&](Worker& w, size_t i) {
    compare_pair(w, pairs[i], c.tensors[pairs[i].out]);
  });

  std::map<int64_t, LayerDrift> layers;  // -1: outside the layer stack
  std::map<int64_t, double> aa, bb, ab, dd;
  for (TensorDrift& d : c.tensors) {
    d.flagged = d.mean_drift > c.mean_threshold || (c.rel_l2_threshold > 0 && d.rel_l2 > c.rel_l2_threshold);
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
    l.rel_l2 = aa[key] > 0 ? std::sqrt(dd[key] / aa[key]) : 0;
    l.cosine = aa[key] > 0 && bb[key] > 0 ? ab[key] / std::sqrt(aa[key] * bb[key]) : 1;
    if (key >= 0) c.layers.push_back(l);
  }
  if (layers.count(-1)) c.layers.push_back(layers[-1]);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace ma

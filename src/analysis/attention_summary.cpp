#include "analysis/attention_summary.h"

#include <algorithm>
#include <limits>

namespace ma {
namespace {

struct Run {
  std::string token;
  uint64_t count = 0;
  bool operator==(const Run&) const = default;
};

// A stretch of runs: `period` runs starting at `begin`, shown `reps` times in a row.
struct Segment {
  size_t begin = 0;
  size_t period = 0;
  uint64_t reps = 1;
};

// Bounds that keep the search small for corrupt configs with huge layer counts (beyond them the pattern is
// shown as plain runs): real models have a few hundred layers and repeat blocks of at most a dozen runs.
constexpr size_t kMaxRuns = 4096;
constexpr size_t kMaxPeriod = 32;

std::vector<Run> run_length(const std::vector<std::string>& tokens) {
  std::vector<Run> runs;
  for (const std::string& t : tokens) {
    if (runs.empty() || runs.back().token != t)
      runs.push_back({t, 1});
    else
      ++runs.back().count;
  }
  return runs;
}

// The factorization of `runs` into repeated blocks with the fewest runs on screen (a repeated block costs
// its runs plus one for the repeat count); ties go to fewer segments.
std::vector<Segment> factorize(const std::vector<Run>& runs) {
  const size_t n = runs.size();
  std::vector<Segment> out;
  if (n > kMaxRuns) {
    for (size_t i = 0; i < n; ++i) out.push_back({i, 1, 1});
    return out;
  }
  const size_t max_p = std::min(kMaxPeriod, n);
  // reps[j * max_p + p - 1]: how many times the block runs[j, j+p) repeats back to back from j.
  std::vector<uint32_t> reps(n * max_p, 1);
  for (size_t j = n; j-- > 0;)
    for (size_t p = 1; p <= max_p && j + 2 * p <= n; ++p)
      if (std::equal(runs.begin() + j, runs.begin() + j + p, runs.begin() + j + p))
        reps[j * max_p + p - 1] = reps[(j + p) * max_p + p - 1] + 1;
  struct Best {
    size_t cost = std::numeric_limits<size_t>::max();
    size_t segments = 0;
    Segment last;
  };
  std::vector<Best> best(n + 1);
  best[0].cost = 0;
  for (size_t j = 0; j < n; ++j) {
    if (best[j].cost == std::numeric_limits<size_t>::max()) continue;
    for (size_t p = 1; p <= max_p && j + p <= n; ++p)
      for (uint64_t k = 1; k <= reps[j * max_p + p - 1]; ++k) {
        const size_t i = j + k * p;
        const size_t cost = best[j].cost + p + (k > 1 ? 1 : 0);
        const size_t segments = best[j].segments + 1;
        if (cost < best[i].cost || (cost == best[i].cost && segments < best[i].segments))
          best[i] = {cost, segments, {j, p, k}};
      }
  }
  for (size_t i = n; i > 0; i = best[i].last.begin) out.push_back(best[i].last);
  std::reverse(out.begin(), out.end());
  return out;
}

std::string join_runs(const std::vector<Run>& runs, size_t begin, size_t count) {
  std::string s;
  for (size_t i = begin; i < begin + count; ++i)
    s += (s.empty() ? "" : " + ") + std::to_string(runs[i].count) + "×" + runs[i].token;
  return s;
}

// The token a layer shows in the pattern.
std::string pattern_token(const LayerAttention& l) {
  if (l.mixer != Mixer::Attention || l.kind == "unknown") return l.kind;
  const std::string compressed =
      l.compress_ratio ? "+compressed(1/" + std::to_string(l.compress_ratio) + ")" : std::string();
  const std::string modules = l.modules > 1 ? "(" + std::to_string(l.modules) + " modules)" : std::string();
  if (l.window == 0) return "full" + compressed + modules;
  return (l.chunked ? "chunked(" : "sliding(") + std::to_string(l.window) + ")" + compressed + modules;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool softmax_attention(const LayerAttention& l) {
  return l.mixer == Mixer::Attention && l.kind != "unknown";
}

// "(GQA 32/8)", or per layer class when they differ: "(sliding: GQA 32/16; full: GQA 32/4, head_dim 512)".
std::string heads_note(const AttentionSummary& s) {
  std::vector<std::pair<std::string, std::string>> shapes;  // (class, shape), first appearance order
  for (const LayerAttention& l : s.layers) {
    if (!softmax_attention(l) || l.heads == 0) continue;
    std::string shape = upper(l.kind) + " " + std::to_string(l.heads) + "/" + std::to_string(l.kv_heads);
    if (l.head_dim != s.head_dim) shape += ", head_dim " + std::to_string(l.head_dim);
    std::string cls = l.window == 0 ? "full" : l.chunked ? "chunked" : "sliding";
    if (std::find(shapes.begin(), shapes.end(), std::pair{cls, shape}) == shapes.end())
      shapes.emplace_back(cls, shape);
  }
  if (shapes.empty()) return "";
  bool uniform =
      std::all_of(shapes.begin(), shapes.end(), [&](const auto& x) { return x.second == shapes[0].second; });
  if (uniform) return " (" + shapes[0].second + ")";
  std::string note;
  for (const auto& [cls, shape] : shapes) note += (note.empty() ? "" : "; ") + cls + ": " + shape;
  return " (" + note + ")";
}

std::string headline(const AttentionSummary& s) {
  std::vector<std::string> kinds;
  bool sliding = false, chunked = false, compressed = false, linear = false, ssm = false, conv = false,
       rg_lru = false, rwkv = false, mlstm = false;
  for (const LayerAttention& l : s.layers) {
    if (softmax_attention(l)) {
      if (std::find(kinds.begin(), kinds.end(), upper(l.kind)) == kinds.end()) kinds.push_back(upper(l.kind));
      sliding = sliding || (l.window && !l.chunked);
      chunked = chunked || (l.window && l.chunked);
      compressed = compressed || l.compress_ratio;
    }
    linear = linear || l.mixer == Mixer::LinearAttention;
    ssm = ssm || l.mixer == Mixer::Mamba || l.mixer == Mixer::Mamba2;
    conv = conv || l.mixer == Mixer::ShortConv;
    rg_lru = rg_lru || l.mixer == Mixer::RgLru;
    rwkv = rwkv || l.mixer == Mixer::Rwkv;
    mlstm = mlstm || l.mixer == Mixer::Mlstm;
  }
  std::string base;
  for (const std::string& k : kinds) base += (base.empty() ? "" : "/") + k;
  if (sliding) base += " + sliding window";
  if (chunked) base += " + chunked local";
  if (compressed) base += " + compressed context";
  // A pure state-space model has no attention at all: "none", not "Mamba" under an "Attention" heading.
  if (base.empty() && !linear && ssm) return "none (Mamba state-space layers only)";
  if (base.empty() && rwkv) return "none (RWKV time mixing: a recurrence per channel)";
  if (base.empty() && mlstm) return "none (mLSTM: a matrix memory per head)";
  std::string other = linear && ssm ? "linear attention + Mamba"
                      : linear      ? "linear attention"
                      : ssm         ? "Mamba"
                                    : "";
  if (conv) other += (other.empty() ? "" : " + ") + std::string("short convolution");
  if (rg_lru) other += (other.empty() ? "" : " + ") + std::string("RG-LRU recurrence");
  if (base.empty()) return other.empty() ? (s.layers.empty() ? "" : s.layers[0].kind) : other;
  return other.empty() ? base : "hybrid (" + base + " + " + other + ")";
}

// One layer as the report shows it; dimensions 0 where the record does not know them (no config).
LayerAttention layer_attention(uint32_t index, const LayerSpec& spec, bool dims_known) {
  LayerAttention l;
  l.layer = index;
  l.mixer = spec.mixer;
  if (spec.mixer == Mixer::Attention) {
    const AttentionShape& at = spec.attention;
    l.kind = dims_known ? std::string(attention_kind_name(at.kind)) : "unknown";
    l.heads = at.heads;
    l.kv_heads = at.kv_heads;
    l.head_dim = at.head_dim;
    l.window = at.window;
    l.chunked = at.span == Span::Chunked;
    l.compress_ratio = at.compress_ratio;
    l.modules = at.modules;
  } else if (spec.mixer == Mixer::LinearAttention) {
    l.kind = "linear";
    l.heads = spec.state.value_heads;
    l.kv_heads = spec.state.key_heads;
    l.head_dim = spec.state.key_head_dim;
  } else {
    l.kind = "none";
  }
  return l;
}

}  // namespace

std::string compress_pattern(const std::vector<std::string>& tokens) {
  const std::vector<Run> runs = run_length(tokens);
  const std::vector<Segment> segments = factorize(runs);
  if (segments.size() == 1 && segments[0].reps > 1)
    return join_runs(runs, 0, segments[0].period) + ", ×" + std::to_string(segments[0].reps);
  std::string s;
  for (const Segment& g : segments) {
    std::string part = join_runs(runs, g.begin, g.period);
    if (g.reps > 1) part = "(" + part + ")×" + std::to_string(g.reps);
    s += (s.empty() ? "" : " + ") + part;
  }
  return s;
}

bool attention_free(const AttentionSummary& s) {
  if (s.layers.empty()) return false;
  for (const LayerAttention& l : s.layers)
    if (l.mixer == Mixer::Attention || l.mixer == Mixer::LinearAttention) return false;
  return true;
}

AttentionSummary summarize_attention(const ArchitectureRecord& arch) {
  AttentionSummary s;
  s.num_attention_heads = arch.num_attention_heads;
  s.num_key_value_heads = arch.num_key_value_heads;
  s.head_dim = arch.head_dim;
  const bool dims_known = !arch.model_type.empty() || arch.num_attention_heads != 0;
  const std::vector<LayerSpec>& specs = arch.layers();
  for (size_t i = 0; i < specs.size(); ++i)
    s.layers.push_back(layer_attention(static_cast<uint32_t>(i), specs[i], dims_known));
  std::vector<std::string> tokens;
  for (const LayerAttention& l : s.layers) tokens.push_back(pattern_token(l));
  s.pattern = compress_pattern(tokens);
  if (!s.pattern.empty()) s.pattern += heads_note(s);
  s.attention_type = headline(s);
  s.kernels = attention_kernels(arch);
  return s;
}

}  // namespace ma

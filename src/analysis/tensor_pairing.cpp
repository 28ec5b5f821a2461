#include "analysis/tensor_pairing.h"

#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "model/tensor_placement.h"

namespace ma {
namespace {

// The expert a per-expert name belongs to ("...mlp.experts.12.up_proj.weight" -> 12); -1 for none.
int64_t expert_of(std::string_view name) {
  constexpr std::string_view kExperts = ".experts.";
  const size_t at = name.find(kExperts);
  if (at == std::string_view::npos) return -1;
  int64_t e = 0;
  size_t i = at + kExperts.size();
  if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && e < (int64_t{1} << 40); ++i)
    e = e * 10 + (name[i] - '0');
  return e;
}

std::string_view last_component(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

using Place =
    std::tuple<int64_t, Block, std::string, std::string, int64_t>;  // layer, block, role, suffix, expert

Place place_of(const PairedSide& s) {
  const TensorPlacement p = place_tensor(s.tensor);
  return {p.layer ? static_cast<int64_t>(*p.layer) : -1, p.block, p.role,
          std::string(last_component(s.tensor)), s.slice >= 0 ? s.slice : expert_of(s.tensor)};
}

// llama.cpp's converter (gguf-py's tensor_mapping.py) writes each Hugging Face module under one GGUF name:
// the modules (as the tail of a module path, whole components) each GGUF module of this table is written
// from. One HF module may be written under several GGUF names depending on the model
// (post_attention_layernorm is ffn_norm in Llama, post_attention_norm in Gemma 2 and OLMo 2, attn_norm_2 in
// CogVLM); a place's pairing is taken from these names only where one one-to-one pairing fits them. The
// table holds the tensors a place can hold several of with one shape: a layer's norms, and the embedding's
// and the output's norms outside the layers.
struct NameRow {
  std::string_view gguf;
  std::vector<std::string_view> hf;
};

const std::vector<NameRow>& gguf_name_rows() {
  static const std::vector<NameRow> kRows = {
      {"attn_norm",
       {"input_layernorm", "ln_1", "norm_1", "ln_mlp", "attention_norm", "ln1", "ln", "norm",
        "pre_mixer_norm", "rms_norm", "pre_attn_norm", "attn_norm", "operator_norm", "attention_layernorm",
        "pre_attention_layernorm"}},
      {"attn_norm_2", {"ln_attn", "layer_norm_1", "ln2", "post_attention_layernorm"}},
      {"attn_output_norm",
       {"attention.output.LayerNorm", "sa_layer_norm", "norm1", "rms_norm_1", "post_attn_norm",
        "norm_attn_norm.norm_2"}},
      {"post_attention_norm", {"post_attention_layernorm", "post_self_attn_layernorm", "post_mixer_norm"}},
      {"ffn_norm",
       {"post_attention_layernorm", "ln_2", "norm_2", "ffn_norm", "ln2", "rms_norm_2", "pre_moe_norm",
        "pre_ff_layernorm", "pre_moe_layernorm", "pre_mlp_norm", "ff_norm", "feedforward_layernorm",
        "pre_mlp_layernorm", "mlp_norm", "pre_feedforward_layernorm"}},
      {"post_ffw_norm",
       {"post_feedforward_layernorm", "post_mlp_layernorm", "post_mlp_norm", "post_moe_norm"}},
      {"pre_ffw_norm_2", {"pre_feedforward_layernorm_2"}},
      {"post_ffw_norm_1", {"post_feedforward_layernorm_1"}},
      {"post_ffw_norm_2", {"post_feedforward_layernorm_2"}},
      {"layer_output_norm",
       {"output.LayerNorm", "norm2", "rms_norm_3", "mlp.layernorm", "layer_norm_2", "output_layer_norm"}},
      {"attn_q_norm", {"q_layernorm", "q_norm", "q_ln", "layer_norm_q"}},
      {"attn_k_norm", {"k_layernorm", "k_norm", "k_ln", "layer_norm_k"}},
      // Outside the layers.
      {"token_embd_norm",
       {"word_embeddings_layernorm", "embeddings.LayerNorm", "embeddings.norm", "emb_ln", "pre_ln",
        "embedding_norm"}},
      {"output_norm",
       {"final_layer_norm", "ln_f", "norm", "norm_f", "final_layernorm", "lm_head.ln", "rms_norm", "ln_out",
        "final_norm"}},
  };
  return kRows;
}

// A module path (no leaf) ends with `tail`, whole components: "model.layers.0.input_layernorm" ends with
// "input_layernorm", not with "layernorm".
bool ends_with_components(std::string_view path, std::string_view tail) {
  if (path.size() < tail.size() || path.substr(path.size() - tail.size()) != tail) return false;
  return path.size() == tail.size() || path[path.size() - tail.size() - 1] == '.';
}

// The module of a GGUF tensor name without its layer ("blk.3.ffn_norm.weight" -> "ffn_norm",
// "enc.blk.0.attn_norm.weight" -> "attn_norm", "output_norm.weight" -> "output_norm").
std::string_view gguf_module(std::string_view name) {
  std::string_view m = module_of(name);
  for (std::string_view prefix : {std::string_view("enc."), std::string_view("dec.")})
    if (m.substr(0, prefix.size()) == prefix) m.remove_prefix(prefix.size());
  if (m.substr(0, 4) == "blk.") {
    size_t i = 4;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
    if (i > 4 && i < m.size() && m[i] == '.') m.remove_prefix(i + 1);
  }
  return m;
}

// The one one-to-one pairing of a place's tensors (a[x] with b[pairing[x]]) that the names allow; nullopt
// when a tensor has no name the table knows, or when none or several pairings fit.
std::optional<std::vector<size_t>> unique_pairing_by_names(const std::vector<PairedSide>& a,
                                                           const std::vector<size_t>& ia,
                                                           const std::vector<PairedSide>& b,
                                                           const std::vector<size_t>& ib) {
  constexpr size_t kMaxGroup = 16;  // a layer's norms are a handful
  const size_t n = ia.size();
  if (n != ib.size() || n == 0 || n > kMaxGroup) return std::nullopt;
  std::vector<std::vector<bool>> fits(n, std::vector<bool>(n, false));
  std::vector<bool> b_named(n, false);
  for (size_t x = 0; x < n; ++x) {
    bool named = false;
    for (size_t y = 0; y < n; ++y) {
      fits[x][y] = a[ia[x]].shape == b[ib[y]].shape && same_weight_by_name(a[ia[x]], b[ib[y]]);
      named = named || fits[x][y];
      b_named[y] = b_named[y] || fits[x][y];
    }
    if (!named) return std::nullopt;
  }
  for (bool named : b_named)
    if (!named) return std::nullopt;
  // Count the perfect matchings of the fit graph, stopping at two.
  std::vector<size_t> current(n), found;
  std::vector<bool> taken(n, false);
  size_t count = 0;
  std::function<void(size_t)> search = [&](size_t x) {
    if (count > 1) return;
    if (x == n) {
      if (++count == 1) found = current;
      return;
    }
    for (size_t y = 0; y < n && count <= 1; ++y)
      if (fits[x][y] && !taken[y]) {
        taken[y] = true;
        current[x] = y;
        search(x + 1);
        taken[y] = false;
      }
  };
  search(0);
  if (count != 1) return std::nullopt;
  return found;
}

}  // namespace

bool same_weight_by_name(const PairedSide& x, const PairedSide& y) {
  if (x.gguf == y.gguf) return false;
  const PairedSide& g = x.gguf ? x : y;
  const PairedSide& other = x.gguf ? y : x;
  if (leaf_of(g.tensor) != leaf_of(other.tensor)) return false;  // a weight is not a bias
  const std::string_view module = gguf_module(g.tensor), path = module_of(other.tensor);
  for (const NameRow& row : gguf_name_rows()) {
    if (row.gguf != module) continue;
    for (std::string_view hf : row.hf)
      if (ends_with_components(path, hf)) return true;
  }
  return false;
}

std::vector<PairedSide> paired_sides(const LocalModelFiles& files, const Checkpoint& ck, bool split_experts) {
  std::vector<PairedSide> out;
  for (const CheckpointFile& f : ck.files) {
    std::unordered_map<uint32_t, std::string_view> tie_of;
    for (const CheckpointFile::Tie& tie : f.ties) tie_of.emplace(tie.tensor, tie.same_as);
    for (uint32_t k = 0; k < f.tensors.size(); ++k) {
      const StoredTensor& t = f.tensors[k];
      PairedSide s;
      if (const auto it = tie_of.find(k); it != tie_of.end()) s.tie_of = it->second;
      s.name = s.tensor = t.name;
      s.file = files.root / f.name;
      s.offset = f.data_start + t.data_begin;
      s.dtype = t.dtype;
      s.shape = t.shape;
      s.numel = t.numel;
      s.in_order = !t.strided && !t.permuted;
      s.encoded = t.encoded;
      s.gguf = ck.format == "gguf";
      const bool stacked = split_experts && t.shape.size() == 3 && t.shape[0] > 1 &&
                           place_tensor(t.name).block == Block::MoeExpert && expert_of(t.name) < 0;
      if (!stacked) {
        out.push_back(std::move(s));
        continue;
      }
      // One slice per expert: whole rows of whole blocks, so each starts at a block boundary.
      const uint64_t experts = t.shape[0];
      const Shape slice{t.shape[1], t.shape[2]};
      const uint64_t slice_numel = t.shape[1] * t.shape[2];
      const uint64_t slice_bytes = dtype_bytes(slice_numel, t.dtype);
      for (uint64_t e = 0; e < experts; ++e) {
        PairedSide part = s;
        part.name = t.name + "[" + std::to_string(e) + "]";
        part.slice = static_cast<int64_t>(e);
        part.offset = s.offset + e * slice_bytes;
        part.shape = slice;
        part.numel = slice_numel;
        out.push_back(std::move(part));
      }
    }
  }
  return out;
}

TensorPairs pair_by_name(const std::vector<PairedSide>& a, const std::vector<PairedSide>& b) {
  TensorPairs out;
  std::unordered_map<std::string_view, size_t> in_b;
  for (size_t i = 0; i < b.size(); ++i) in_b.emplace(b[i].name, i);
  std::vector<bool> used(b.size(), false);
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = in_b.find(a[i].name);
    if (it == in_b.end()) {
      out.only_a.push_back(i);
      continue;
    }
    used[it->second] = true;
    out.pairs.emplace_back(i, it->second);
  }
  for (size_t j = 0; j < b.size(); ++j)
    if (!used[j]) out.only_b.push_back(j);
  return out;
}

TensorPairs pair_by_place(const std::vector<PairedSide>& a, const std::vector<PairedSide>& b) {
  struct Group {
    std::vector<size_t> a, b;
  };
  std::map<Place, Group> groups;
  std::vector<Place> order;  // A's order of first appearance
  for (size_t i = 0; i < a.size(); ++i) {
    Place p = place_of(a[i]);
    auto [it, added] = groups.try_emplace(p);
    if (added) order.push_back(p);
    it->second.a.push_back(i);
  }
  for (size_t j = 0; j < b.size(); ++j) groups[place_of(b[j])].b.push_back(j);

  TensorPairs out;
  std::vector<bool> used_a(a.size(), false), used_b(b.size(), false);
  for (const Place& p : order) {
    const Group& g = groups[p];
    if (g.a.size() == 1 && g.b.size() == 1) {  // shapes are the caller's to check
      out.pairs.emplace_back(g.a[0], g.b[0]);
      used_a[g.a[0]] = used_b[g.b[0]] = true;
      continue;
    }
    // Several at one place: pair within each shape; n x n of one shape is for the caller to settle.
    std::map<Shape, Group> by_shape;
    for (size_t i : g.a) by_shape[a[i].shape].a.push_back(i);
    for (size_t j : g.b) by_shape[b[j].shape].b.push_back(j);
    for (const auto& [shape, s] : by_shape) {
      if (s.a.size() == 1 && s.b.size() == 1) {
        out.pairs.emplace_back(s.a[0], s.b[0]);
        used_a[s.a[0]] = used_b[s.b[0]] = true;
      } else if (s.a.size() == s.b.size() && !s.a.empty()) {
        // The names first: llama.cpp's name says which of a layer's norms a tensor is.
        if (const auto by_names = unique_pairing_by_names(a, s.a, b, s.b)) {
          for (size_t x = 0; x < s.a.size(); ++x) {
            const size_t i = s.a[x], j = s.b[(*by_names)[x]];
            out.pairs.emplace_back(i, j);
            used_a[i] = used_b[j] = true;
            ++out.paired_by_names;
          }
          continue;
        }
        std::vector<std::pair<size_t, size_t>> candidates;
        for (size_t i : s.a)
          for (size_t j : s.b) candidates.emplace_back(i, j);
        out.ambiguous.push_back(std::move(candidates));
        for (size_t i : s.a) used_a[i] = true;
        for (size_t j : s.b) used_b[j] = true;
      }
    }
  }
  // What the places left unpaired (a place whose two sides hold different counts, a module one format places
  // in another block: BERT's attention.output.LayerNorm is attn_output_norm) pairs by name, within a layer,
  // where llama.cpp's names identify the tensors: those of a layer (weights and biases apart, per expert)
  // that some name fits, when exactly one one-to-one pairing of them fits the names.
  std::map<std::tuple<int64_t, std::string, int64_t>, Group> rest;  // layer, weight or bias, expert
  auto rest_key = [](const PairedSide& s) {
    const Place p = place_of(s);
    return std::tuple<int64_t, std::string, int64_t>{std::get<0>(p), std::get<3>(p), std::get<4>(p)};
  };
  for (size_t i = 0; i < a.size(); ++i)
    if (!used_a[i]) rest[rest_key(a[i])].a.push_back(i);
  for (size_t j = 0; j < b.size(); ++j)
    if (!used_b[j]) rest[rest_key(b[j])].b.push_back(j);
  for (const auto& [key, g] : rest) {
    if (g.a.empty() || g.b.empty()) continue;
    std::vector<size_t> named_a, named_b;
    for (size_t i : g.a)
      for (size_t j : g.b)
        if (a[i].shape == b[j].shape && same_weight_by_name(a[i], b[j])) {
          named_a.push_back(i);
          break;
        }
    for (size_t j : g.b)
      for (size_t i : g.a)
        if (a[i].shape == b[j].shape && same_weight_by_name(a[i], b[j])) {
          named_b.push_back(j);
          break;
        }
    if (named_a.empty() || named_a.size() != named_b.size()) continue;
    if (const auto by_names = unique_pairing_by_names(a, named_a, b, named_b))
      for (size_t x = 0; x < named_a.size(); ++x) {
        const size_t i = named_a[x], j = named_b[(*by_names)[x]];
        out.pairs.emplace_back(i, j);
        used_a[i] = used_b[j] = true;
        ++out.paired_by_names;
      }
  }
  for (size_t i = 0; i < a.size(); ++i)
    if (!used_a[i]) out.only_a.push_back(i);
  for (size_t j = 0; j < b.size(); ++j)
    if (!used_b[j]) out.only_b.push_back(j);
  return out;
}

}  // namespace ma

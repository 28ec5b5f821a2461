#include "model/onnx_record.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_set>

namespace ma {
namespace {

uint64_t uint_at(const json::Value* o, std::string_view key) {
  const json::Value* v = o ? o->find(key) : nullptr;
  return v ? v->as_uint().value_or(0) : 0;
}

// genai_config.json's "model": {"type", "context_length", "vocab_size", "decoder": {"hidden_size",
// "num_attention_heads", "num_key_value_heads", "head_size", "num_hidden_layers"}}.
void from_genai_config(const json::Value& genai, ArchitectureRecord& a, std::vector<std::string>& notes) {
  const json::Value* model = genai.find("model");
  if (!model) {
    notes.push_back("genai_config.json has no \"model\" object: it is not read");
    return;
  }
  const json::Value* decoder = model->find("decoder");
  if (const json::Value* type = model->find("type"); type && type->is_string())
    a.model_type = a.root_model_type = std::string(type->as_string());
  a.vocab_size = uint_at(model, "vocab_size");
  if (uint64_t ctx = uint_at(model, "context_length")) {
    a.max_position_embeddings = ctx;
    a.context.declared = DeclaredLength{ctx, "genai_config.json model.context_length"};
  }
  a.hidden_size = uint_at(decoder, "hidden_size");
  a.num_attention_heads = uint_at(decoder, "num_attention_heads");
  a.num_key_value_heads = uint_at(decoder, "num_key_value_heads");
  a.head_dim = uint_at(decoder, "head_size");
  if (uint64_t layers = uint_at(decoder, "num_hidden_layers");
      layers && a.main_stack() && layers != a.main_stack()->layers.size())
    notes.push_back("genai_config.json says " + std::to_string(layers) +
                    " layers but the initializers hold " + std::to_string(a.main_stack()->layers.size()) +
                    ": the initializers are counted");
}

// [batch, seq, heads, head_dim] after a projection is reshaped into heads, [batch, heads, seq, head_dim]
// after the transpose: a vote for `heads` wherever heads x head_dim is the hidden size (or, for key/value
// heads, wherever head_dim is the one the queries showed).
std::map<uint64_t, uint64_t> head_votes(const OnnxModel& g, uint64_t hidden, uint64_t head_dim) {
  std::map<uint64_t, uint64_t> votes;
  for (const OnnxValue& v : g.edges) {
    if (!v.shape || v.shape->size() != 4) continue;
    const auto& d = *v.shape;
    if (!d[3].size || *d[3].size < 8) continue;
    const uint64_t dim = *d[3].size;
    for (size_t axis : {size_t{1}, size_t{2}}) {
      if (!d[axis].size || *d[axis].size == 0) continue;
      const uint64_t heads = *d[axis].size;
      if (head_dim ? dim == head_dim : heads * dim == hidden) ++votes[heads];
    }
  }
  return votes;
}

uint64_t most_voted(const std::map<uint64_t, uint64_t>& votes) {
  uint64_t best = 0, count = 0;
  for (const auto& [value, n] : votes)
    if (n > count) best = value, count = n;
  return best;
}

void from_graph(const OnnxModel& g, const std::vector<InventoryTensor>& tensors, ArchitectureRecord& a,
                std::vector<std::string>& notes) {
  // The token embedding is [vocab, hidden]; a tied export may keep only the head, of the same shape.
  for (Block want : {Block::Embedding, Block::LmHead})
    for (const InventoryTensor& t : tensors) {
      if (a.hidden_size || t.placement.block != want || t.shape.size() != 2) continue;
      if (want == Block::Embedding && t.placement.role != "token-embedding") continue;
      a.vocab_size = t.shape[0];
      a.hidden_size = t.shape[1];
    }
  if (!a.hidden_size) {
    notes.push_back(
        "no token embedding or head matrix among the initializers: hidden size and vocabulary are "
        "not known");
    return;
  }
  if (!a.num_attention_heads) {
    a.num_attention_heads = most_voted(head_votes(g, a.hidden_size, 0));
    if (a.num_attention_heads) a.head_dim = a.hidden_size / a.num_attention_heads;
  }
  if (a.num_attention_heads && !a.num_key_value_heads) {
    std::map<uint64_t, uint64_t> kv = head_votes(g, 0, a.head_dim);
    std::erase_if(kv, [&](const auto& e) {
      return e.first >= a.num_attention_heads || a.num_attention_heads % e.first != 0;
    });
    a.num_key_value_heads = kv.empty() ? a.num_attention_heads : most_voted(kv);
  }
  if (!a.num_attention_heads)
    notes.push_back("no value of the graph splits the hidden size into heads: attention heads are not known");
}

}  // namespace

void relabel_folded_lookups(const OnnxModel& g, std::vector<InventoryTensor>& tensors) {
  for (InventoryTensor& t : tensors)
    if (t.placement.role == "token-embedding" && t.shape.size() != 2) t.placement.role = "position-embedding";
  // A table a Gather looks rows up in is an embedding, whatever its name: GPT-2's export keeps its tied token
  // table as lm_head.weight, which the head's MatMul reads too. It stays the head (its GEMM is timed) and
  // counts among the embeddings, as transformers' exclude_embeddings leaves the tied table out.
  std::unordered_set<std::string_view> tables;
  for (const OnnxNode& n : g.nodes)
    if (n.op_type == "Gather" && n.domain.empty() && !n.inputs.empty()) tables.insert(n.inputs[0]);
  for (InventoryTensor& t : tensors)
    if (t.shape.size() == 2 && tables.count(t.name)) t.embedding = true;
}

std::vector<std::string> fill_record_from_onnx(const OnnxModel& g, const json::Value* genai,
                                               const std::vector<InventoryTensor>& tensors,
                                               ArchitectureRecord& a) {
  std::vector<std::string> notes;
  if (genai) from_genai_config(*genai, a, notes);
  from_graph(g, tensors, a, notes);
  if (a.num_attention_heads && !a.head_dim) a.head_dim = a.hidden_size / a.num_attention_heads;
  if (!a.num_key_value_heads) a.num_key_value_heads = a.num_attention_heads;

  StackSpec* stack = a.main_stack();
  if (!stack) return notes;
  stack->hidden = a.hidden_size;
  a.num_layers = stack->layers.size();
  // The MLP width: the up projection's dimension that is not the hidden size (Linear stores [out, in],
  // GPT-2's Conv1D and MatMul exports [in, out]).
  for (const InventoryTensor& t : tensors)
    if (!a.intermediate_size && t.placement.layer && t.placement.role == "up" && t.shape.size() == 2 &&
        (t.shape[0] == a.hidden_size) != (t.shape[1] == a.hidden_size))
      a.intermediate_size = t.shape[0] == a.hidden_size ? t.shape[1] : t.shape[0];
  for (LayerSpec& l : stack->layers) {
    if (l.mixer == Mixer::Attention) {
      l.attention.heads = a.num_attention_heads;
      l.attention.kv_heads = a.num_key_value_heads;
      l.attention.head_dim = a.head_dim;
      l.attention.kind = attention_kind_of(a.num_attention_heads, a.num_key_value_heads);
    }
    if (l.ffn.kind == Ffn::Dense) l.ffn.intermediate = a.intermediate_size;
  }
  return notes;
}

}  // namespace ma

#include "model/simulator_config.h"

#include <algorithm>
#include <optional>

#include "core/error.h"
#include "core/json.h"
#include "core/json_writer.h"

namespace ma {
namespace {

// What the layer classes do not carry, as the families' own configs default them.
constexpr uint64_t kMaxPositions = 131072;
constexpr double kRmsNormEps = 1e-5;
// Instances of one entry: far above any model's layers or norms, low enough that sums cannot wrap.
constexpr uint64_t kMaxCount = 1 << 20;

struct Attention {
  std::string entry;
  uint64_t count = 0, first = 0, heads = 0, kv_heads = 0, head_dim = 0, window = 0, sinks = 0;
  bool bias = false;
};

struct Moe {
  uint64_t count = 0, intermediate = 0, experts = 0, top_k = 0, shared = 0, projections = 3;
  bool bias = false;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& path)
      : path_(path), doc_(json::Document::parse(std::string(text), path)) {}

  SimulatorModel read() {
    const json::Value& root = doc_.root();
    if (!root.is_object()) throw bad("", "a simulator config must be a JSON object");
    hidden_ = uint_at(root, "hidden_size", "hidden_size");
    layers_ = uint_at(root, "num_layers", "num_layers");
    vocab_ = uint_at(root, "vocab_size", "vocab_size");
    const json::Value* types = root.find("layer_types");
    if (!types || !types->is_array() || types->items().empty())
      throw bad("layer_types", "must be a non-empty array of layer entries");
    for (size_t i = 0; i < types->items().size(); ++i) entry(types->items()[i], i);
    SimulatorModel m;
    m.total_params = root.find("total_params") ? uint_at(root, "total_params", "total_params") : 0;
    for (const char* key : {"hf_model_id", "model_id"})
      if (const json::Value* v = root.find(key); v && v->is_string() && m.name.empty())
        m.name = std::string(v->as_string());
    check_layers();
    m.family = family();
    m.hf_config_json = write(m.family);
    return m;
  }

 private:
  Error bad(const std::string& field, const std::string& rule) const {
    return Error(ErrorKind::Malformed, path_, field, rule);
  }
  Error unsupported(const std::string& field, const std::string& rule) const {
    return Error(ErrorKind::Unsupported, path_, field, rule);
  }

  uint64_t uint_at(const json::Value& obj, std::string_view key, const std::string& field) const {
    const json::Value* v = obj.find(key);
    if (!v || !v->as_uint()) throw bad(field, "must be a non-negative integer");
    return *v->as_uint();
  }
  // An optional integer spec: absent or null is 0 (no window, no sinks).
  uint64_t uint_or_zero(const json::Value& specs, std::string_view key, const std::string& field) const {
    const json::Value* v = specs.find(key);
    if (!v || v->is_null()) return 0;
    if (!v->as_uint()) throw bad(field + "." + std::string(key), "must be a non-negative integer or null");
    return *v->as_uint();
  }
  bool flag(const json::Value& specs, std::string_view key) const {
    const json::Value* v = specs.find(key);
    return v && v->is_bool() && v->as_bool();
  }

  void entry(const json::Value& e, size_t i) {
    const std::string at = "layer_types[" + std::to_string(i) + "]";
    if (!e.is_object()) throw bad(at, "must be an object");
    const json::Value* cls = e.find("class");
    const json::Value* specs = e.find("specs");
    if (!cls || !cls->is_string()) throw bad(at + ".class", "must be a string");
    if (!specs || !specs->is_object()) throw bad(at + ".specs", "must be an object");
    const std::string c(cls->as_string());
    const uint64_t count = uint_at(e, "count", at + ".count");
    if (count == 0 || count > kMaxCount)
      throw bad(at + ".count", "must be 1 to " + std::to_string(kMaxCount));
    const json::Value* supported = e.find("supported");
    const std::string s = at + ".specs";
    if (c == "LMHeadLayer") {
      untied_head_ = true;
      return;
    }
    // An entry outside the model's parameters (an MTP layer transformers does not build) is no part of the
    // model rebuilt: it is skipped, supported or not.
    if (const json::Value* counted = specs->find("counted_in_total_params");
        counted && counted->is_bool() && !counted->as_bool())
      return;
    if (supported && supported->is_bool() && !supported->as_bool())
      throw unsupported(at, "class " + c +
                                " has no simulator class, so no model can be rebuilt for it; "
                                "estimate the original model instead");
    if (c == "EmbeddingLayer" || c == "NormLayer") return;  // sizes only: vocab and hidden are top-level
    if (c == "GroupedQueryAttentionLayer" || c == "AttentionLayer" || c == "SlidingWindowAttentionLayer") {
      Attention a;
      a.entry = at;
      a.count = count;
      a.first = uint_or_zero(*specs, "layer_idx", s);
      a.heads = uint_at(*specs, c == "SlidingWindowAttentionLayer" ? "num_query_heads" : "num_heads",
                        s + ".num_heads");
      a.kv_heads = c == "AttentionLayer" ? a.heads : uint_at(*specs, "num_kv_heads", s + ".num_kv_heads");
      a.head_dim = uint_at(*specs, "head_dim", s + ".head_dim");
      a.window = uint_or_zero(*specs, "sliding_window", s);
      a.sinks = uint_or_zero(*specs, "num_sinks", s);
      a.bias = flag(*specs, "has_bias");
      if (a.heads == 0 || a.kv_heads == 0 || a.head_dim == 0 || a.heads % a.kv_heads)
        throw bad(s, "heads, KV heads and head_dim must be positive, and the KV heads divide the heads");
      attention_.push_back(a);
    } else if (c == "GatedMLPLayer") {
      mlp_count_ += count;
      mlp_intermediate_ = uint_at(*specs, "intermediate_size", s + ".intermediate_size");
    } else if (c == "MoELayer") {
      moe_.count += count;
      moe_.intermediate = uint_at(*specs, "intermediate_size", s + ".intermediate_size");
      moe_.experts = uint_at(*specs, "num_experts", s + ".num_experts");
      moe_.top_k = uint_at(*specs, "top_k", s + ".top_k");
      moe_.shared = uint_or_zero(*specs, "num_shared_experts", s);
      if (specs->find("num_projections")) moe_.projections = uint_at(*specs, "num_projections", s);
      moe_.bias = flag(*specs, "has_bias");
      if (moe_.experts == 0 || moe_.top_k == 0 || moe_.top_k > moe_.experts)
        throw bad(s, "needs experts and a top_k between 1 and the experts");
    } else {
      // MLPLayer (ungated) and any class a catalogue adds: no family here builds them.
      throw unsupported(at, "class " + c +
                                " cannot be rebuilt as a model (rebuilt: attention, gated MLP, "
                                "MoE, norm, embedding, LM head)");
    }
  }

  void check_layers() {
    uint64_t attention_layers = 0;
    for (const Attention& a : attention_) attention_layers += a.count;
    if (attention_layers != layers_)
      throw bad("layer_types", "the attention entries count " + std::to_string(attention_layers) +
                                   " layers, num_layers says " + std::to_string(layers_));
    if (!(mlp_count_ == layers_ && moe_.count == 0) && !(moe_.count == layers_ && mlp_count_ == 0))
      throw unsupported("layer_types", "every layer must have a gated MLP, or every layer an MoE (found " +
                                           std::to_string(mlp_count_) + " MLP and " +
                                           std::to_string(moe_.count) + " MoE layers of " +
                                           std::to_string(layers_) + ")");
    if (moe_.count && moe_.projections != 3)
      throw unsupported("layer_types", "MoE experts with " + std::to_string(moe_.projections) +
                                           " projections (the families rebuilt have gated experts, 3)");
    const Attention& a = attention_.front();
    for (const Attention& b : attention_)
      if (b.heads != a.heads || b.kv_heads != a.kv_heads || b.head_dim != a.head_dim)
        throw unsupported(b.entry, "attention shapes differ between layers (the families rebuilt have one)");
  }

  std::string family() const {
    const bool sinks =
        std::any_of(attention_.begin(), attention_.end(), [](const Attention& a) { return a.sinks; });
    const bool windowed =
        std::any_of(attention_.begin(), attention_.end(), [](const Attention& a) { return a.window; });
    const bool all_windowed =
        std::all_of(attention_.begin(), attention_.end(), [](const Attention& a) { return a.window; });
    if (sinks) {
      if (!moe_.count)
        throw unsupported("layer_types", "attention sinks come with gpt-oss's MoE; no MoE found");
      return "gpt_oss";
    }
    if (windowed && !all_windowed)
      throw unsupported("layer_types", "windowed and full attention layers without sinks (not rebuilt)");
    if (moe_.count) {
      if (windowed)
        throw unsupported("layer_types", "windowed attention with MoE without sinks (not rebuilt)");
      if (moe_.shared) {
        if (attention_.front().head_dim * attention_.front().heads != hidden_)
          throw unsupported("layer_types", "shared experts with a head_dim other than hidden / heads");
        return "qwen2_moe";
      }
      return "mixtral";
    }
    return windowed ? "mistral" : "llama";
  }

  // Windowed and full layers interleaved as their counts say (gpt-oss alternates, windowed first when its
  // first index is the lower).
  std::vector<std::string> layer_kinds() const {
    std::vector<const Attention*> order;
    for (const Attention& a : attention_) order.push_back(&a);
    std::stable_sort(order.begin(), order.end(),
                     [](const Attention* x, const Attention* y) { return x->first < y->first; });
    std::vector<uint64_t> used(order.size(), 0);
    std::vector<std::string> kinds;
    for (uint64_t l = 0; l < layers_; ++l) {
      size_t pick = 0;
      double least = 2;
      for (size_t i = 0; i < order.size(); ++i) {
        const double share = static_cast<double>(used[i]) / static_cast<double>(order[i]->count);
        if (used[i] < order[i]->count && share < least) least = share, pick = i;
      }
      ++used[pick];
      kinds.push_back(order[pick]->window ? "sliding_attention" : "full_attention");
    }
    return kinds;
  }

  std::string write(const std::string& family) const {
    const Attention& a = attention_.front();
    JsonWriter w;
    w.begin_object();
    w.key("model_type").value(family);
    w.key("hidden_size").value(hidden_);
    w.key("num_hidden_layers").value(layers_);
    w.key("vocab_size").value(vocab_);
    w.key("num_attention_heads").value(a.heads);
    w.key("num_key_value_heads").value(a.kv_heads);
    w.key("head_dim").value(a.head_dim);
    w.key("tie_word_embeddings").value(!untied_head_);
    w.key("max_position_embeddings").value(kMaxPositions);
    w.key("rms_norm_eps").value(kRmsNormEps);
    w.key("torch_dtype").value("bfloat16");
    if (family == "llama" || family == "mistral") {
      w.key("intermediate_size").value(mlp_intermediate_);
      if (family == "mistral") w.key("sliding_window").value(a.window);
    } else if (family == "mixtral") {
      w.key("intermediate_size").value(moe_.intermediate);
      w.key("num_local_experts").value(moe_.experts);
      w.key("num_experts_per_tok").value(moe_.top_k);
    } else if (family == "qwen2_moe") {
      w.key("intermediate_size").value(moe_.intermediate);
      w.key("moe_intermediate_size").value(moe_.intermediate);
      w.key("shared_expert_intermediate_size").value(moe_.intermediate * moe_.shared);
      w.key("num_experts").value(moe_.experts);
      w.key("num_experts_per_tok").value(moe_.top_k);
      w.key("decoder_sparse_step").value(uint64_t{1});
      w.key("mlp_only_layers").begin_array().end_array();
    } else {  // gpt_oss
      uint64_t window = 0;
      for (const Attention& b : attention_) window = std::max(window, b.window);
      w.key("intermediate_size").value(moe_.intermediate);
      w.key("num_local_experts").value(moe_.experts);
      w.key("num_experts_per_tok").value(moe_.top_k);
      w.key("experts_per_token").value(moe_.top_k);
      w.key("attention_bias").value(a.bias);
      w.key("sliding_window").value(window);
      w.key("layer_types").begin_array();
      for (const std::string& k : layer_kinds()) w.value(k);
      w.end_array();
    }
    w.end_object();
    return w.take();
  }

  std::string path_;
  json::Document doc_;
  uint64_t hidden_ = 0, layers_ = 0, vocab_ = 0;
  std::vector<Attention> attention_;
  uint64_t mlp_count_ = 0, mlp_intermediate_ = 0;
  Moe moe_;
  bool untied_head_ = false;
};

}  // namespace

SimulatorModel read_simulator_config(std::string_view json_text, const std::string& path) {
  return Reader(json_text, path).read();
}

}  // namespace ma

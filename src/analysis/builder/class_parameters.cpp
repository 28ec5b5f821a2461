#include "analysis/builder/class_parameters.h"

#include <string>

namespace ma {
namespace {

std::optional<uint64_t> number(const Facts& facts, std::string_view name) {
  const FactValue* v = find_fact(facts, name);
  if (!v) return std::nullopt;
  if (const uint64_t* n = std::get_if<uint64_t>(v)) return *n;
  return std::nullopt;
}

// A flag the class takes; absent or null is false (a class without it builds no bias).
bool flag(const Facts& facts, std::string_view name) {
  const FactValue* v = find_fact(facts, name);
  if (!v) return false;
  if (const bool* b = std::get_if<bool>(v)) return *b;
  if (const uint64_t* n = std::get_if<uint64_t>(v)) return *n != 0;
  return false;
}

}  // namespace

std::optional<uint64_t> class_parameters(std::string_view class_name, const Facts& facts) {
  const auto h = number(facts, "hidden_size");
  if (!h) return std::nullopt;
  if (class_name == "AttentionLayer") {  // q, k, v, o: four hidden x heads x head_dim matrices
    const auto heads = number(facts, "num_heads"), d = number(facts, "head_dim");
    if (!heads || !d) return std::nullopt;
    return 4 * *h * *heads * *d;
  }
  if (class_name == "GroupedQueryAttentionLayer" || class_name == "SlidingWindowAttentionLayer") {
    const bool sliding = class_name == "SlidingWindowAttentionLayer";
    const auto heads = number(facts, sliding ? "num_query_heads" : "num_heads"),
               kv = number(facts, "num_kv_heads"), d = number(facts, "head_dim");
    if (!heads || !kv || !d) return std::nullopt;
    uint64_t n = 2 * *h * *heads * *d + 2 * *h * *kv * *d;  // q and o; k and v
    if (sliding) {
      n += number(facts, "num_sinks").value_or(0);
      if (flag(facts, "has_bias")) n += *heads * *d + 2 * *kv * *d + *h;
    }
    return n;
  }
  if (class_name == "MLPLayer" || class_name == "GatedMLPLayer") {
    const auto i = number(facts, "intermediate_size");
    const auto projections =
        class_name == "GatedMLPLayer" ? std::optional<uint64_t>(3) : number(facts, "num_projections");
    if (!i || !projections) return std::nullopt;
    return *projections * *h * *i;
  }
  if (class_name == "MoELayer") {
    // Every expert and shared expert num_projections matrices of hidden x intermediate, the router's
    // hidden x experts; with has_bias, each projection's bias and the router's (gpt-oss: Mantile's own
    // config gives 3,186,524,288 a layer, which this rebuilds).
    const auto i = number(facts, "intermediate_size"), e = number(facts, "num_experts"),
               p = number(facts, "num_projections");
    if (!i || !e || !p) return std::nullopt;
    const uint64_t experts = *e + number(facts, "num_shared_experts").value_or(0);
    uint64_t n = experts * *p * *h * *i + *h * *e;
    if (flag(facts, "has_bias")) n += experts * ((*p - 1) * *i + *h) + *e;
    return n;
  }
  if (class_name == "NormLayer") return flag(facts, "has_bias") ? 2 * *h : *h;
  if (class_name == "EmbeddingLayer") {
    const auto v = number(facts, "vocab_size");
    if (!v) return std::nullopt;
    return *v * *h;
  }
  return std::nullopt;
}

}  // namespace ma

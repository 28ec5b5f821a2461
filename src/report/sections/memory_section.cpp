// The memory section: weights by precision, KV cache (per token, per sequence state, for batch x context, per
// layer), inference and training estimates, each with its formula.
#include <algorithm>
#include <cstdio>

#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Seed 002's *_mb fields: MiB with two decimals, and three significant digits below 1 MiB, where two decimals
// would round a small model's figures (a 128-byte-per-token KV cache) to 0.00; the exact bytes are beside
// them.
std::string mib_json(uint64_t n) {
  char buf[48];
  const double mib = static_cast<double>(n) / kMiB;
  std::snprintf(buf, sizeof buf, n == 0 || mib >= 1 ? "%.2f" : "%.3g", mib);
  return buf;
}

// Consecutive-or-not layers that are alike (same kind and same formula) shown as one row.
struct LayerGroupRow {
  const KvLayer* first;
  std::vector<uint32_t> layers;
};

std::vector<LayerGroupRow> group_layers(const std::vector<KvLayer>& layers) {
  std::vector<LayerGroupRow> groups;
  for (const KvLayer& l : layers) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const LayerGroupRow& g) {
      return g.first->kind == l.kind && g.first->formula == l.formula;
    });
    if (it == groups.end())
      groups.push_back({&l, {l.layer}});
    else
      it->layers.push_back(l.layer);
  }
  return groups;
}

std::vector<std::vector<std::string>> layer_rows(const MemoryReport& s) {
  std::vector<std::vector<std::string>> rows;
  for (const LayerGroupRow& g : group_layers(s.kv_layers)) {
    const KvLayer& l = *g.first;
    rows.push_back({index_ranges(g.layers), std::to_string(g.layers.size()),
                    std::string(cache_kind_name(l.kind)), with_thousands(l.bytes_per_token),
                    l.window ? with_thousands(l.window) : "-", with_thousands(l.state_bytes_per_sequence),
                    l.formula});
  }
  return rows;
}

const std::vector<std::string> kKvLayerHeader{"Layers", "Count",          "Kind",   "Bytes/token",
                                              "Window", "Bytes/sequence", "Formula"};

std::string context_text(const MemoryReport& s) {
  return s.context ? with_thousands(s.context) : std::string("unknown context");
}

// The cache at the model's maximum context, shown when the figures are for a shorter one.
bool at_max_differs(const MemoryReport& s) {
  return s.kv_known && s.max_context && s.context != s.max_context &&
         s.kv_cache_bytes_at_max_context != s.kv_cache_bytes;
}

// What an unknown estimate shows in place of its bytes (its formula says which terms are missing): a total
// that sums an unknown KV cache or unknown activations is unknown, never its known terms alone.
std::string unknown_text(const Estimate& e) {
  return e.unknown_because.empty() ? "unknown" : "unknown (" + e.unknown_because + ")";
}

std::string human_or_unknown(const Estimate& e) {
  return e.known ? human_bytes(e.bytes) : unknown_text(e);
}

std::string lora_parameters_text(const MemoryReport& s) {
  return s.lora_adapter_parameters
             ? with_thousands(*s.lora_adapter_parameters) + " (rank " + with_thousands(s.lora_rank) + ")"
             : "unknown (no projection LoRA targets found)";
}

void console_estimate(ConsoleWriter& w, const Estimate* e, std::string_view label, bool formula) {
  if (!e) return;
  w.field(label, e->known ? bytes_exactly(e->bytes) : unknown_text(*e));
  if (formula) w.note(e->formula);
}

void console_summary(ConsoleWriter& w, const MemoryReport& s) {
  auto weight = [&](const char* name) { return human_bytes(s.find(name)->bytes); };
  w.field("weights FP32 / BF16", weight("weights_fp32") + " / " + weight("weights_bf16"));
  w.field("weights FP8 / INT8", weight("weights_fp8") + " / " + weight("weights_int8"));
  w.field("weights INT4 (g128)", weight("weights_int4"));
  if (const Estimate* st = s.find("weights_stored")) w.field("weights as stored", human_bytes(st->bytes));
  if (!s.kv_known) {
    w.field("KV cache", "unknown (no architecture)");
  } else {
    w.field("KV cache per token", bytes_exactly(s.kv_cache_per_token_bytes) + ", " + s.kv_cache_dtype);
    if (s.kv_cache_per_token_decompressed_bytes != s.kv_cache_per_token_bytes)
      w.field("  decompressed (MLA)", bytes_exactly(s.kv_cache_per_token_decompressed_bytes));
    if (s.state_bytes_per_sequence) w.field("state per sequence", bytes_exactly(s.state_bytes_per_sequence));
    if (s.cross_attention_bytes_per_sequence)
      w.field("cross-attention per sequence", bytes_exactly(s.cross_attention_bytes_per_sequence));
    w.field("KV cache (" + with_thousands(s.batch) + " x " + context_text(s) + ")",
            s.kv_cache_total_known() ? human_bytes(s.kv_cache_bytes) : "unknown (pass --context)");
    if (at_max_differs(s))
      w.field("  at max " + with_thousands(s.max_context), human_bytes(s.kv_cache_bytes_at_max_context));
  }
  if (const Estimate* t = s.find("inference_total")) w.field("inference total", human_or_unknown(*t));
  if (const Estimate* t = s.find("training_mixed_bf16_checkpointed_total"))
    w.field("training bf16 AdamW", human_or_unknown(*t) + (t->known ? " (checkpointing)" : ""));
  if (const Estimate* t = s.find("training_qlora_total"))
    w.field("training QLoRA r16", human_or_unknown(*t) + (t->known ? " (checkpointing)" : ""));
}

// An estimate's JSON name in words: "training_mixed_bf16_states" -> "training mixed BF16 states".
std::string words(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kUpper[] = {
      {"fp32", "FP32"},   {"fp16", "FP16"},   {"bf16", "BF16"},       {"fp8", "FP8"},
      {"int8", "INT8"},   {"int4", "INT4"},   {"kv", "KV"},           {"lora", "LoRA"},
      {"qlora", "QLoRA"}, {"adamw", "AdamW"}, {"stored", "as stored"}};
  std::string out;
  for (size_t at = 0; at <= name.size();) {
    const size_t end = std::min(name.find('_', at), name.size());
    std::string_view word = name.substr(at, end - at);
    for (const auto& [from, to] : kUpper)
      if (word == from) word = to;
    out += (out.empty() ? "" : " ") + std::string(word);
    at = end + 1;
  }
  return out;
}

void console_detailed(ConsoleWriter& w, const MemoryReport& s) {
  for (const Estimate& e : s.weights) console_estimate(w, &e, words(e.name), true);
  w.field("compute dtype", s.compute_dtype);
  w.field("KV cache dtype", s.kv_cache_dtype);
  if (s.kv_known) {
    w.field("KV cache per token", bytes_exactly(s.kv_cache_per_token_bytes));
    w.field("  decompressed", bytes_exactly(s.kv_cache_per_token_decompressed_bytes));
    w.field("state per sequence", bytes_exactly(s.state_bytes_per_sequence));
    if (s.cross_attention_bytes_per_sequence)
      w.field("cross-attention / sequence", bytes_exactly(s.cross_attention_bytes_per_sequence));
    w.field("KV cache", s.kv_cache_total_known() ? bytes_exactly(s.kv_cache_bytes) + " for batch " +
                                                       with_thousands(s.batch) + " x " + context_text(s)
                                                 : std::string("unknown (pass --context)"));
    if (at_max_differs(s))
      w.field("  at max context", bytes_exactly(s.kv_cache_bytes_at_max_context) + " for batch " +
                                      with_thousands(s.batch) + " x " + with_thousands(s.max_context));
  }
  w.note(s.kv_convention);
  if (!s.kv_layers.empty()) w.table(kKvLayerHeader, layer_rows(s));
  for (const Estimate& e : s.inference) console_estimate(w, &e, words(e.name), true);
  for (const Estimate& e : s.training) console_estimate(w, &e, words(e.name), true);
  w.field("LoRA adapter parameters", lora_parameters_text(s));
  for (const std::string& a : s.assumptions) w.footnote("assumption: " + a);
}

void json_estimates(JsonWriter& w, std::string_view key, const std::vector<Estimate>& list) {
  w.key(key).begin_array();
  for (const Estimate& e : list) {
    w.begin_object();
    w.key("name").value(e.name);
    w.key("bytes");
    if (e.known)
      w.value(e.bytes);
    else
      w.null();
    w.key("formula").value(e.formula);
    w.end_object();
  }
  w.end_array();
}

std::vector<std::vector<std::string>> estimate_rows(const std::vector<Estimate>& list) {
  std::vector<std::vector<std::string>> rows;
  for (const Estimate& e : list)
    rows.push_back({e.name, e.known ? with_thousands(e.bytes) : unknown_text(e),
                    e.known ? human_bytes(e.bytes) : "-", e.formula});
  return rows;
}

}  // namespace

void render_console(ConsoleWriter& w, const MemoryReport& s, const ModelReport& r, const RenderOptions& o) {
  (void)r;
  w.heading("MEMORY ESTIMATES");
  if (o.detailed)
    console_detailed(w, s);
  else
    console_summary(w, s);
}

void write_json(JsonWriter& w, const MemoryReport& s) {
  w.key("memory").begin_object();
  w.key("kv_cache_dtype").value(s.kv_cache_dtype);
  w.key("compute_dtype").value(s.compute_dtype);
  auto known = [&](std::string_view key, uint64_t v) {
    w.key(key);
    if (s.kv_known)
      w.value(v);
    else
      w.null();
  };
  known("kv_cache_per_token_bytes", s.kv_cache_per_token_bytes);
  known("kv_cache_per_token_decompressed_bytes", s.kv_cache_per_token_decompressed_bytes);
  w.key("kv_cache_bytes");
  if (s.kv_cache_total_known())
    w.value(s.kv_cache_bytes);
  else
    w.null();
  known("state_bytes_per_sequence", s.state_bytes_per_sequence);
  known("cross_attention_bytes_per_sequence", s.cross_attention_bytes_per_sequence);
  w.key("batch").value(s.batch);
  for (const auto& [key, v] : {std::pair{"context", s.context}, {"max_context", s.max_context}}) {
    w.key(key);
    if (v)
      w.value(v);
    else
      w.null();
  }
  w.key("kv_cache_bytes_at_max_context");
  if (s.kv_known && s.max_context)
    w.value(s.kv_cache_bytes_at_max_context);
  else
    w.null();
  w.key("kv_convention").value(s.kv_convention);
  w.key("weights_bytes").begin_object();
  for (const Estimate& e : s.weights)
    w.key(std::string_view(e.name).substr(std::string_view("weights_").size())).value(e.bytes);
  w.end_object();
  json_estimates(w, "weights", s.weights);
  w.key("kv_layers").begin_array();
  for (const KvLayer& l : s.kv_layers) {
    w.begin_object();
    w.key("layer").value(l.layer);
    w.key("kind").value(cache_kind_name(l.kind));
    w.key("bytes_per_token").value(l.bytes_per_token);
    w.key("bytes_per_token_decompressed").value(l.bytes_per_token_decompressed);
    w.key("window");
    if (l.window)
      w.value(l.window);
    else
      w.null();
    w.key("state_bytes_per_sequence").value(l.state_bytes_per_sequence);
    w.key("formula").value(l.formula);
    w.end_object();
  }
  w.end_array();
  json_estimates(w, "inference", s.inference);
  json_estimates(w, "training", s.training);
  w.key("lora_rank").value(s.lora_rank);
  w.key("lora_adapter_parameters");
  if (s.lora_adapter_parameters)
    w.value(*s.lora_adapter_parameters);
  else
    w.null();
  w.key("assumptions").begin_array();
  for (const std::string& a : s.assumptions) w.value(a);
  w.end_array();
  // Seed 002's fields (MiB, two decimals).
  for (const auto& [key, name] : {std::pair{"params_fp32_mb", "weights_fp32"},
                                  {"params_fp16_mb", "weights_fp16"},
                                  {"params_int8_mb", "weights_int8"},
                                  {"params_int4_mb", "weights_int4"}})
    if (const Estimate* e = s.find(name)) w.key(key).raw(mib_json(e->bytes));
  if (s.kv_known) w.key("kv_cache_per_token_mb").raw(mib_json(s.kv_cache_per_token_bytes));
  // A total that is unknown (no context, no architecture) is null, as its estimate's bytes are.
  for (const auto& [key, name] : {std::pair{"total_inference_fp16_mb", "inference_total_fp16"},
                                  {"total_training_fp32_mb", "training_full_fp32_total"}})
    if (const Estimate* e = s.find(name)) {
      w.key(key);
      if (e->known)
        w.raw(mib_json(e->bytes));
      else
        w.null();
    }
  w.end_object();
}

void render_document(DocumentWriter& w, const MemoryReport& s, const ModelReport& r) {
  (void)r;
  const std::vector<std::string> header{"Estimate", "Bytes", "Size", "Formula"};
  w.heading(2, "Memory");
  w.heading(3, "Weights");
  w.table(header, estimate_rows(s.weights));
  w.paragraph("Inference holds weights, activations and recurrent state in " + s.compute_dtype +
              " (compute_dtype).");
  w.heading(3, "KV cache");
  if (!s.kv_known) {
    w.paragraph("Unknown: " + s.kv_convention);
  } else {
    std::vector<std::pair<std::string, std::string>> fields{
        {"KV cache dtype", s.kv_cache_dtype},
        {"Per token (kv_cache_per_token_bytes)", bytes_exactly(s.kv_cache_per_token_bytes)},
        {"Per token decompressed (kv_cache_per_token_decompressed_bytes)",
         bytes_exactly(s.kv_cache_per_token_decompressed_bytes)},
        {"State per sequence (state_bytes_per_sequence)", bytes_exactly(s.state_bytes_per_sequence)},
        {"Cross-attention per sequence (cross_attention_bytes_per_sequence)",
         bytes_exactly(s.cross_attention_bytes_per_sequence)},
        {"Batch x context", with_thousands(s.batch) + " x " + context_text(s)},
        {"Total (kv_cache_bytes)", s.kv_cache_total_known() ? bytes_exactly(s.kv_cache_bytes)
                                                            : std::string("unknown (pass --context)")}};
    if (at_max_differs(s))
      fields.push_back(
          {"At max context " + with_thousands(s.max_context) + " (kv_cache_bytes_at_max_context)",
           bytes_exactly(s.kv_cache_bytes_at_max_context)});
    w.fields(fields);
    w.formula(
        "kv_cache_bytes = batch x (sum over layers of bytes_per_token x min(context, window) + state and "
        "cross-attention bytes per sequence)");
    w.paragraph("Convention: " + s.kv_convention + ".");
    if (!s.kv_layers.empty()) w.table(kKvLayerHeader, layer_rows(s));
  }
  w.heading(3, "Inference");
  w.table(header, estimate_rows(s.inference));
  w.heading(3, "Training");
  w.table(header, estimate_rows(s.training));
  w.paragraph("LoRA adapter parameters (rank " + with_thousands(s.lora_rank) + "): " +
              (s.lora_adapter_parameters ? with_thousands(*s.lora_adapter_parameters)
                                         : std::string("unknown (no projection LoRA targets found)")));
  w.heading(3, "Assumptions");
  std::string list;
  for (const std::string& a : s.assumptions) list += "- " + a + "\n";
  w.paragraph(list);
}

}  // namespace ma

#include "report/plan_report.h"

#include <algorithm>
#include <cstdio>

#include "analysis/identity.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/csv_cells.h"
#include "report/markdown_writer.h"
#include "report/plan_words.h"

namespace ma {
namespace {

std::string tokens_per_s(const std::optional<double>& v) {
  return v ? (*v >= 100 ? rounded_with_thousands(*v) : fixed_decimals(*v, 1)) : std::string("-");
}

uint64_t free_bytes(const DeviceBytes& d) {
  return d.capacity > d.used() ? d.capacity - d.used() : 0;
}

std::vector<std::vector<std::string>> device_rows(const SplitPlan& s) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < s.budget.stages.size(); ++i) {
    const StageBudget& st = s.budget.stages[i];
    const DeviceBytes& d = st.bytes;
    rows.push_back({std::to_string(i),
                    st.end_layer > st.first_layer
                        ? std::to_string(st.first_layer) + "-" + std::to_string(st.end_layer - 1)
                        : "none",
                    human_bytes(d.capacity), human_bytes(d.weights), human_bytes(d.kv),
                    human_bytes(d.activations), human_bytes(d.overhead), human_bytes(d.reserved),
                    human_bytes(d.kv_spare), human_bytes(free_bytes(d)), d.fits() ? "yes" : "no"});
  }
  return rows;
}
// The JSON's names (splits[].bytes, stages[].bytes): reserved is the engine's headroom, kv_spare the part of
// its KV pool this batch leaves unused.
const std::vector<std::string> kDeviceHeader{"stage",    "layers",      "capacity", "weights",
                                             "kv_cache", "activations", "overhead", "reserved",
                                             "kv_spare", "free",        "fits"};

std::vector<std::vector<std::string>> split_rows(const Plan& p) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < p.splits.size(); ++i) {
    const SplitPlan& s = p.splits[i];
    if (!s.invalid.empty()) {
      rows.push_back({split_name(s.split), "-", "invalid", "-", "-", s.invalid});
      continue;
    }
    const DeviceBytes& d = s.budget.worst;
    std::string starts;
    for (uint32_t l : s.stage_starts) starts += (starts.empty() ? "" : ",") + std::to_string(l);
    rows.push_back({split_name(s.split) + (p.best == i ? " *" : ""), human_bytes(d.used() - d.kv_spare),
                    d.fits() ? "yes" : "no", tokens_per_s(s.decode_tokens_per_s),
                    tokens_per_s(s.prefill_tokens_per_s),
                    s.split.pp > 1 ? "stages start at layers " + starts : ""});
  }
  return rows;
}
const std::vector<std::string> kSplitHeader{"split",        "per device",    "fits",
                                            "decode tok/s", "prefill tok/s", "note"};

std::vector<std::vector<std::string>> precision_rows(const Plan& p) {
  std::vector<std::vector<std::string>> rows;
  for (const PrecisionFit& f : p.precisions)
    rows.push_back({std::string(precision_name(f.precision)), human_bytes(f.weights_bytes),
                    f.fits ? "yes" : "no", f.split ? split_name(*f.split) : "-"});
  return rows;
}

std::vector<std::vector<std::string>> kind_rows(const Plan& p) {
  std::vector<std::vector<std::string>> rows;
  for (const LayerKindAdvice& k : p.layer_kinds)
    rows.push_back({k.kind, std::to_string(k.layers), human_bytes(k.stored_bytes),
                    human_bytes(k.read_per_token_bytes), fixed_decimals(100 * k.read_fraction, 1) + "%"});
  return rows;
}
const std::vector<std::string> kKindHeader{"layer kind", "layers", "stored", "read per token",
                                           "read fraction"};

std::vector<std::string> feature_header() {
  std::vector<std::string> h{"layer feature", "layers"};
  for (size_t t = 0; t < kConversionTargets; ++t)
    h.emplace_back(conversion_target_name(static_cast<ConversionTarget>(t)));
  h.emplace_back("note");
  return h;
}

std::vector<std::vector<std::string>> feature_rows(const ConversionPlan& c) {
  std::vector<std::vector<std::string>> rows;
  for (const FeatureSupport& f : c.features) {
    std::vector<std::string> r{f.feature, std::to_string(f.layers)};
    for (Support s : f.support) r.emplace_back(support_name(s));
    r.push_back(f.note);
    rows.push_back(std::move(r));
  }
  return rows;
}

// What the weights' tails say about int4 (only with --weights).
std::string hint(const QuantizationCandidate& q) {
  if (!q.max_kurtosis) return "-";
  return q.sensitive ? "keep 8-bit or protect outliers (" + q.most_outlying + ")"
                     : "no heavy tails: int4 round-to-nearest";
}

std::vector<std::vector<std::string>> quantizable_rows(const ConversionPlan& c) {
  std::vector<std::vector<std::string>> rows;
  for (const QuantizationCandidate& q : c.quantizable)
    rows.push_back({q.block, with_thousands(q.parameters), human_bytes(q.bytes_now), human_bytes(q.bytes_fp8),
                    human_bytes(q.bytes_int4), q.max_kurtosis ? brief_number(*q.max_kurtosis) : "-",
                    q.max_outlier_ratio ? brief_number(*q.max_outlier_ratio) : "-", hint(q)});
  return rows;
}
const std::vector<std::string> kQuantizableHeader{
    "linear layers", "parameters",   "as stored",         "fp8",
    "int4 (g128)",   "max_kurtosis", "max_outlier_ratio", "hint"};

std::string savings_text(const ConversionPlan& c) {
  return "saved_fp8_bytes " + human_bytes(c.saved_fp8) + ", saved_int4_bytes " + human_bytes(c.saved_int4) +
         " (" + std::string(kUnconvertedWeights) + ")";
}

// A searched boundary as the console says it: the value, what it is at, and the split it is for; "none
// fits"; or why memory does not bound it.
std::string limit_text(const PlanLimit& l, const std::string& at) {
  if (!l.unbounded.empty()) return l.unbounded;
  if (!l.value) return "none fits";
  return with_thousands(l.value) + at + (l.split ? " on " + split_name(*l.split) : "");
}

std::string context_text(const Plan& p) {
  const bool model_max = p.max_model_context && p.max_context.value == p.max_model_context;
  return limit_text(p.max_context, (model_max ? " (the model's maximum)" : "") + std::string(" at batch ") +
                                       with_thousands(p.batch));
}

std::vector<std::pair<std::string, std::string>> summary_fields(const Plan& p) {
  std::vector<std::pair<std::string, std::string>> f{
      {"devices", devices_text(p) + (p.devices_used < p.request.gpus.count
                                         ? "; the plan uses " + std::to_string(p.devices_used) +
                                               " of them (no split of all " +
                                               std::to_string(p.request.gpus.count) + " is valid)"
                                         : "")},
      {"engine", std::string(engine_name(p.request.engine))},
      {"weights_bytes (" + std::string(precision_name(p.request.precision)) + ")",
       bytes_exactly(p.weights_bytes)},
      {"context / batch",
       with_thousands(p.context) + " / " + with_thousands(p.batch) +
           (p.max_model_context ? " (model maximum " + with_thousands(p.max_model_context) + ")" : "")},
      {"kv_cache_dtype", p.v_dtype.empty() ? p.kv_dtype : p.kv_dtype + " K, " + p.v_dtype + " V"},
      {"fits", plan_verdict(p)},
      {"max_context", context_text(p)},
      {"max_batch", limit_text(p.max_batch, " at context " + with_thousands(p.context))},
      {"widest_fitting_precision",
       p.widest_fitting ? std::string(precision_name(*p.widest_fitting)) : "none"},
  };
  return f;
}

std::vector<std::pair<std::string, std::string>> engine_fields(const EngineView& e) {
  return {{"kv_cache_tokens", with_thousands(e.kv_cache_tokens)},
          {"kv_cache_bytes", bytes_exactly(e.kv_cache_bytes)},
          {"weights_bytes", bytes_exactly(e.weights_bytes)},
          {"activation_peak_bytes", bytes_exactly(e.activation_peak_bytes)},
          {"non_kv_bytes", bytes_exactly(e.non_kv_bytes)},
          {"max_concurrency", fixed_decimals(e.max_concurrency, 2)}};
}

uint64_t offload_free(const OffloadDevice& d) {
  return d.capacity > d.used() ? d.capacity - d.used() : 0;
}

bool every_offload_gpu_fits(const OffloadPlan& o) {
  return std::all_of(o.devices.begin(), o.devices.end(), [](const OffloadDevice& d) { return d.fits(); });
}

std::string tensor_split_text(const OffloadPlan& o) {
  if (o.tensor_split.empty()) return "llama.cpp's default (each GPU's memory)";
  std::string ts;
  for (double share : o.tensor_split) ts += (ts.empty() ? "" : ",") + exact_number(share);
  return ts + (o.tensor_split_given ? " (--tensor-split as given: each GPU's share of the layers)"
                                    : " (-ts: each GPU's layers, the output counted)");
}

// What llama.cpp's default split needs where the plan's -ts holds more (JSON offload.default_split).
std::string default_split_text(const OffloadDefaultSplit& d) {
  return "ngl " + std::to_string(d.ngl) + ", cpu_moe_layers " + std::to_string(d.cpu_moe_layers) +
         ", gpus_fit " + (d.gpus_fit ? "yes" : "no") + ", decode_tokens_per_s " +
         tokens_per_s(d.decode_tokens_per_s) + " (without -ts)";
}

// How the plan came by its -ngl: chosen, as given, or every slot for a -ngl past them (ngl_asked).
std::string ngl_note(const OffloadPlan& o) {
  if (!o.ngl_given) return " (";
  if (o.ngl_asked && *o.ngl_asked != o.ngl)
    return " (ngl_asked " + std::to_string(*o.ngl_asked) + ": every slot, as llama.cpp takes it; ";
  return " (as given; ";
}

std::vector<std::pair<std::string, std::string>> offload_fields(const OffloadPlan& o) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"gpu_layers", std::to_string(o.gpu_layers) + " (the last ones)"},
      {"ngl", std::to_string(o.ngl) + ngl_note(o) + "-ngl: llama.cpp counts the output as a layer)"},
      {"cpu_moe_layers",
       std::to_string(o.cpu_moe_layers) + (o.cpu_moe_given ? " (--n-cpu-moe as given)" : " (--n-cpu-moe)")},
      {"gpu_bytes", bytes_exactly(o.gpu_bytes) + " over every GPU"},
      {"cpu_bytes", bytes_exactly(o.cpu_bytes)},
      {"cpu_kv_bytes", bytes_exactly(o.cpu_kv_bytes) + " (KV cache of the layers on the CPU)"},
      {"fits", o.fits ? "yes"
                      : (every_offload_gpu_fits(o) ? "no: the CPU RAM is too small"
                                                   : "no: a GPU cannot hold its share")},
      {"decode_tokens_per_s", tokens_per_s(o.decode_tokens_per_s)},
      {"formula", o.formula}};
  if (o.devices.size() > 1) fields.insert(fields.begin() + 3, {"tensor_split", tensor_split_text(o)});
  if (o.default_split)
    fields.insert(fields.begin() + 4, {"default_split", default_split_text(*o.default_split)});
  return fields;
}

// Each GPU's share of the offload (JSON offload.devices[], the same names).
std::vector<std::vector<std::string>> offload_device_rows(const OffloadPlan& o) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < o.devices.size(); ++i) {
    const OffloadDevice& d = o.devices[i];
    std::string layers = d.end_layer > d.first_layer
                             ? std::to_string(d.first_layer) + "-" + std::to_string(d.end_layer - 1)
                             : "none";
    if (d.output) layers += " + output";
    rows.push_back({std::to_string(i), layers, human_bytes(d.capacity), human_bytes(d.weights),
                    human_bytes(d.kv), human_bytes(d.compute_buffer), human_bytes(offload_free(d)),
                    d.fits() ? "yes" : "no"});
  }
  return rows;
}
const std::vector<std::string> kOffloadDeviceHeader{"gpu",      "layers",         "capacity", "weights",
                                                    "kv_cache", "compute_buffer", "free",     "fits"};

void bytes_object(JsonWriter& w, const DeviceBytes& d) {
  w.key("capacity").value(d.capacity);
  w.key("bytes").begin_object();
  for (const BytesKind& k : device_byte_kinds()) w.key(k.name).value(d.*k.field);
  w.key("free").value(free_bytes(d));
  w.end_object();
  w.key("fits").value(d.fits());
}

void optional_number(JsonWriter& w, std::string_view key, const std::optional<double>& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

// A searched boundary: KEY (0: none fits; null: memory does not bound it), KEY_split (the split it is for)
// and KEY_unbounded (why it is null).
void limit_object(JsonWriter& w, const std::string& key, const PlanLimit& l) {
  w.key(key);
  if (l.unbounded.empty())
    w.value(l.value);
  else
    w.null();
  w.key(key + "_split");
  if (l.split)
    w.value(split_name(*l.split));
  else
    w.null();
  w.key(key + "_unbounded");
  if (l.unbounded.empty())
    w.null();
  else
    w.value(l.unbounded);
}

void offload_device_object(JsonWriter& w, size_t index, const OffloadDevice& d) {
  w.begin_object();
  w.key("gpu").value(static_cast<uint64_t>(index));
  w.key("first_layer").value(d.first_layer);
  w.key("end_layer").value(d.end_layer);
  w.key("output").value(d.output);
  w.key("capacity").value(d.capacity);
  w.key("weights").value(d.weights);
  w.key("kv_cache").value(d.kv);
  w.key("compute_buffer").value(d.compute_buffer);
  w.key("free").value(offload_free(d));
  w.key("fits").value(d.fits());
  w.end_object();
}

void split_object(JsonWriter& w, const SplitPlan& s) {
  w.key("tp").value(s.split.tp);
  w.key("pp").value(s.split.pp);
  w.key("ep").value(s.split.ep);
  w.key("valid").value(s.invalid.empty());
  w.key("invalid_reason");
  if (s.invalid.empty())
    w.null();
  else
    w.value(s.invalid);
}

}  // namespace

std::string render_plan_console(const Plan& p, bool color) {
  ConsoleWriter w(color);
  w.heading("PLAN " + display_name_of(p.model_id));
  for (const auto& [label, value] : summary_fields(p)) w.field(label, value);
  if (const SplitPlan* s = shown_split(p)) {
    w.heading("Per device (" + split_name(s->split) +
              (p.best ? "" : ", the roomiest split: it does not fit") + ")");
    w.table(kDeviceHeader, device_rows(*s));
    if (p.request.engine != PlanEngine::Transformers) {
      w.heading("Engine (" + std::string(engine_name(p.request.engine)) + ", fullest device)");
      for (const auto& [label, value] : engine_fields(s->budget.engine)) w.field(label, value);
      for (const std::string& f : s->budget.engine.formulas) w.note(f);
    }
  }
  w.heading("Splits (* recommended)");
  w.table(kSplitHeader, split_rows(p));
  w.heading("Precisions");
  w.table({"precision", "weights", "fits", "split"}, precision_rows(p));
  if (p.offload) {
    w.heading("Offload (llama.cpp)");
    for (const auto& [label, value] : offload_fields(*p.offload)) w.field(label, value);
    w.table(kOffloadDeviceHeader, offload_device_rows(*p.offload));
  }
  w.heading("Layer kinds (GPU first from the top)");
  w.table(kKindHeader, kind_rows(p));
  w.heading("Conversion (kernel support as of " + p.conversion.catalogue_date + ")");
  w.table(feature_header(), feature_rows(p.conversion));
  w.heading("Quantization candidates");
  w.table(kQuantizableHeader, quantizable_rows(p.conversion));
  w.field("savings", savings_text(p.conversion));
  for (const std::string& a : p.assumptions) w.footnote("assumption: " + a);
  return w.take();
}

std::string render_plan_markdown(const Plan& p, const RunInfo& run) {
  MarkdownWriter w;
  w.heading(1, "Plan: " + display_name_of(p.model_id));
  w.paragraph(run_info_paragraph(run));
  w.fields(summary_fields(p));
  if (const SplitPlan* s = shown_split(p)) {
    w.heading(2, "Per device (" + split_name(s->split) + ")");
    w.table(kDeviceHeader, device_rows(*s));
    if (p.request.engine != PlanEngine::Transformers) {
      w.heading(2, "Engine view (" + std::string(engine_name(p.request.engine)) + ")");
      w.fields(engine_fields(s->budget.engine));
      std::string list;
      for (const std::string& f : s->budget.engine.formulas) list += "- " + f + "\n";
      w.paragraph(list);
    }
  }
  w.heading(2, "Splits");
  w.table(kSplitHeader, split_rows(p));
  w.heading(2, "Precisions");
  w.table({"precision", "weights", "fits", "split"}, precision_rows(p));
  if (p.offload) {
    w.heading(2, "Offload (llama.cpp)");
    w.fields(offload_fields(*p.offload));
    w.table(kOffloadDeviceHeader, offload_device_rows(*p.offload));
  }
  w.heading(2, "Layer kinds");
  w.table(kKindHeader, kind_rows(p));
  w.heading(2, "Conversion (kernel support as of " + p.conversion.catalogue_date + ")");
  w.table(feature_header(), feature_rows(p.conversion));
  w.heading(2, "Quantization candidates");
  w.table(kQuantizableHeader, quantizable_rows(p.conversion));
  w.paragraph(savings_text(p.conversion));
  w.heading(2, "Assumptions");
  std::string list;
  for (const std::string& a : p.assumptions) list += "- " + a + "\n";
  w.paragraph(list);
  return w.take();
}

void stream_plan_json(const Plan& p, const RunInfo& run, const JsonWriter::Sink& sink) {
  JsonWriter w(sink);
  w.begin_object();
  w.key("model_id").value(p.model_id);
  w.key("engine").begin_object();
  w.key("name").value(engine_name(p.request.engine));
  const SplitPlan* c = shown_split(p);
  const EngineView e = c ? c->budget.engine : EngineView{};
  w.key("kv_cache_tokens").value(e.kv_cache_tokens);
  w.key("kv_cache_bytes").value(e.kv_cache_bytes);
  w.key("weights_bytes").value(e.weights_bytes);
  w.key("activation_peak_bytes").value(e.activation_peak_bytes);
  w.key("non_kv_bytes").value(e.non_kv_bytes);
  w.key("max_concurrency").value(e.max_concurrency);
  w.key("formulas").begin_array();
  for (const std::string& f : e.formulas) w.value(f);
  w.end_array();
  w.end_object();
  w.key("gpus").begin_object();
  w.key("spec").value(p.request.gpus.text);
  w.key("count").value(p.request.gpus.count);
  w.key("used").value(p.devices_used);
  w.key("unused_reason").text_or_null(p.devices_unused_reason);
  w.key("memory_bytes").value(p.request.gpus.memory_bytes);
  w.key("total_memory_bytes").value(p.request.gpus.total_memory());
  w.key("mixed").value(p.request.gpus.mixed());
  w.key("runs").begin_array();
  for (const DeviceRun& r : device_runs(p.request.gpus)) {
    w.begin_object();
    w.key("count").value(r.count);
    w.key("name");  // null: a device given by its size
    if (r.name.empty())
      w.null();
    else
      w.value(r.name);
    w.key("memory_bytes").value(r.memory_bytes);
    w.end_object();
  }
  w.end_array();
  w.key("hardware");
  if (p.request.gpus.hardware)
    w.value(p.request.gpus.hardware->name);
  else
    w.null();
  w.end_object();
  w.key("precision").value(precision_name(p.request.precision));
  w.key("weights_bytes").value(p.weights_bytes);
  w.key("context").value(p.context);
  w.key("max_model_context").value(p.max_model_context);
  w.key("batch").value(p.batch);
  w.key("kv_cache_dtype").value(p.kv_dtype);
  w.key("kv_cache_dtype_v").text_or_null(p.v_dtype);
  w.key("fits").value(p.fits);
  w.key("verdict").value(plan_verdict(p));
  limit_object(w, "max_context", p.max_context);
  limit_object(w, "max_batch", p.max_batch);
  w.key("widest_fitting_precision");
  if (p.widest_fitting)
    w.value(precision_name(*p.widest_fitting));
  else
    w.null();
  w.key("devices").begin_array();
  if (c)
    for (const StageBudget& st : c->budget.stages) {
      for (uint32_t i = 0; i < c->split.tp; ++i) {
        w.begin_object();
        w.key("device").value(static_cast<uint64_t>(&st - c->budget.stages.data()) * c->split.tp + i);
        w.key("stage").value(static_cast<uint64_t>(&st - c->budget.stages.data()));
        w.key("first_layer").value(st.first_layer);
        w.key("end_layer").value(st.end_layer);
        // A tensor-parallel group holds the same bytes on each device and is sized by its smallest one;
        // each device's own capacity and room are its own (a 24 GB card beside a 12 GB one).
        const size_t device = static_cast<size_t>(&st - c->budget.stages.data()) * c->split.tp + i;
        DeviceBytes own = st.bytes;
        if (p.request.gpus.mixed() && device < p.request.gpus.memories.size())
          own.capacity = p.request.gpus.memory_of(device);
        bytes_object(w, own);
        w.end_object();
      }
    }
  w.end_array();
  w.key("splits").begin_array();
  for (const SplitPlan& s : p.splits) {
    w.begin_object();
    split_object(w, s);
    if (s.invalid.empty()) {
      bytes_object(w, s.budget.worst);
      // The split table's "per device": what the batch takes of the worst device, the unused pool left out.
      w.key("per_device_bytes").value(s.budget.worst.used() - s.budget.worst.kv_spare);
      w.key("stage_starts").begin_array();
      for (uint32_t l : s.stage_starts) w.value(l);
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  w.key("plans").begin_array();
  for (const SplitPlan& s : p.splits) {
    if (!s.invalid.empty() || !s.budget.fits) continue;
    w.begin_object();
    split_object(w, s);
    w.key("recommended").value(c == &s && p.best.has_value());
    w.key("tokens_per_s").begin_object();
    optional_number(w, "decode", s.decode_tokens_per_s);
    optional_number(w, "prefill", s.prefill_tokens_per_s);
    w.end_object();
    optional_number(w, "decode_step_s", s.decode_step_s);
    w.end_object();
  }
  w.end_array();
  w.key("precisions").begin_array();
  for (const PrecisionFit& f : p.precisions) {
    w.begin_object();
    w.key("precision").value(precision_name(f.precision));
    w.key("weights_bytes").value(f.weights_bytes);
    w.key("fits").value(f.fits);
    w.key("split");  // the first split it fits with
    if (f.split)
      w.value(split_name(*f.split));
    else
      w.null();
    w.end_object();
  }
  w.end_array();
  w.key("offload");
  if (p.offload) {
    const OffloadPlan& o = *p.offload;
    w.begin_object();
    w.key("gpu_layers").value(o.gpu_layers);
    w.key("ngl").value(o.ngl);
    w.key("cpu_moe_layers").value(o.cpu_moe_layers);
    w.key("ngl_given").value(o.ngl_given);
    w.key("ngl_asked").value_or_null(o.ngl_asked);
    w.key("cpu_moe_given").value(o.cpu_moe_given);
    w.key("tensor_split").numbers_or_null(o.tensor_split);
    w.key("tensor_split_given").value(o.tensor_split_given);
    w.key("default_split");
    if (const std::optional<OffloadDefaultSplit>& d = o.default_split) {
      w.begin_object();
      w.key("ngl").value(d->ngl);
      w.key("cpu_moe_layers").value(d->cpu_moe_layers);
      w.key("gpus_fit").value(d->gpus_fit);
      w.key("devices").begin_array();
      for (size_t i = 0; i < d->devices.size(); ++i) offload_device_object(w, i, d->devices[i]);
      w.end_array();
      optional_number(w, "decode_tokens_per_s", d->decode_tokens_per_s);
      w.end_object();
    } else {
      w.null();
    }
    w.key("gpu_bytes").value(o.gpu_bytes);
    w.key("cpu_bytes").value(o.cpu_bytes);
    w.key("cpu_kv_bytes").value(o.cpu_kv_bytes);
    w.key("fits").value(o.fits);
    w.key("devices").begin_array();
    for (size_t i = 0; i < o.devices.size(); ++i) offload_device_object(w, i, o.devices[i]);
    w.end_array();
    optional_number(w, "decode_tokens_per_s", o.decode_tokens_per_s);
    w.key("formula").value(o.formula);
    w.end_object();
  } else {
    w.null();
  }
  w.key("layer_kinds").begin_array();
  for (const LayerKindAdvice& k : p.layer_kinds) {
    w.begin_object();
    w.key("kind").value(k.kind);
    w.key("layers").value(k.layers);
    w.key("stored_bytes").value(k.stored_bytes);
    w.key("read_per_token_bytes").value(k.read_per_token_bytes);
    w.key("read_fraction").value(k.read_fraction);
    w.end_object();
  }
  w.end_array();
  w.key("conversion").begin_object();
  w.key("catalogue_date").value(p.conversion.catalogue_date);
  w.key("features").begin_array();
  for (const FeatureSupport& f : p.conversion.features) {
    w.begin_object();
    w.key("feature").value(f.feature);
    w.key("layers").value(f.layers);
    w.key("support").begin_object();
    for (size_t t = 0; t < kConversionTargets; ++t)
      w.key(conversion_target_name(static_cast<ConversionTarget>(t))).value(support_name(f.support[t]));
    w.end_object();
    w.key("note").value(f.note);
    w.end_object();
  }
  w.end_array();
  w.key("quantizable").begin_array();
  for (const QuantizationCandidate& q : p.conversion.quantizable) {
    w.begin_object();
    w.key("block").value(q.block);
    w.key("parameters").value(q.parameters);
    w.key("bytes_now").value(q.bytes_now);
    w.key("bytes_fp8").value(q.bytes_fp8);
    w.key("bytes_int4").value(q.bytes_int4);
    for (const auto& [key, v] :
         {std::pair{"max_kurtosis", q.max_kurtosis}, {"max_outlier_ratio", q.max_outlier_ratio}}) {
      w.key(key);
      if (v)
        w.value(*v);
      else
        w.null();
    }
    w.key("most_outlying").value(q.most_outlying);
    w.key("sensitive").value(q.sensitive);
    w.end_object();
  }
  w.end_array();
  w.key("saved_fp8_bytes").value(p.conversion.saved_fp8);
  w.key("saved_int4_bytes").value(p.conversion.saved_int4);
  w.key("unconverted").value(kUnconvertedWeights);
  w.end_object();
  w.key("assumptions").begin_array();
  for (const std::string& a : p.assumptions) w.value(a);
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  w.flush();
}

std::string render_plan_csv(const Plan& p) {
  std::string out =
      "model_id,tp,pp,ep,valid,fits,per_device_bytes,decode_tokens_per_s,prefill_tokens_per_s\n";
  for (const SplitPlan& s : p.splits) {
    const bool valid = s.invalid.empty();
    out += csv_text(p.model_id) + "," + std::to_string(s.split.tp) + "," + std::to_string(s.split.pp) + "," +
           std::to_string(s.split.ep) + "," + (valid ? "true" : "false") + "," +
           (valid && s.budget.fits ? "true" : "false") + "," +
           (valid ? std::to_string(s.budget.worst.used() - s.budget.worst.kv_spare) : "") + "," +
           (s.decode_tokens_per_s ? csv_number(*s.decode_tokens_per_s) : "") + "," +
           (s.prefill_tokens_per_s ? csv_number(*s.prefill_tokens_per_s) : "") + "\n";
  }
  return out;
}

}  // namespace ma

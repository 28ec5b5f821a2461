// The quantization section: method, bits, group size, format, what stays 16/32-bit, stored dtypes, scales,
// stored bytes and the logical parameter count, in console, JSON ("quantization") and Markdown.
#include <cstdio>

#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

std::string stored_from_text(const QuantizationInfo& s) {
  if (s.stored_from == "headers") return "from the tensor headers";
  if (s.stored_from == "index") return "predicted from the index and the method";
  return "predicted from the config and the method";
}

std::string dtype_list(const QuantizationInfo& s) {
  std::string out;
  for (const auto& [dtype, n] : s.elements_by_stored_dtype)
    out += (out.empty() ? "" : ", ") + dtype + " " + with_thousands(n);
  return out;
}

std::string unquantized_list(const QuantizationInfo& s) {
  std::string out;
  for (const std::string& g : s.unquantized) {
    auto it = s.unquantized_elements.find(g);
    out += (out.empty() ? "" : ", ") + g;
    if (it != s.unquantized_elements.end()) out += " (" + with_thousands(it->second) + ")";
  }
  return out;
}

std::string scale_text(const QuantizationInfo& s) {
  if (s.quantization_scales_unpredicted) return "not predicted for " + s.method + " (left out of the bytes)";
  std::string out = with_thousands(s.quantization_scale_tensors) + " tensors, " +
                    human_bytes(s.quantization_scale_bytes) + " (" +
                    with_thousands(s.quantization_scale_bytes) + " bytes)";
  if (s.quantization_scale_tensors_unsized)
    out += "; " + with_thousands(s.quantization_scale_tensors_unsized) + " of unknown size not included";
  return out;
}

// "128×128".
std::string block_text(const std::vector<uint64_t>& block) {
  std::string t;
  for (uint64_t d : block) t += (t.empty() ? "" : "×") + with_thousands(d);
  return t;
}

std::string bits_text(double bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bits);
  return buf;
}

// What the declaration says of the activations; empty where it says nothing.
std::string activations_text(const QuantizationInfo& s) {
  if (s.activation_scheme == ActivationScheme::WeightOnly) return "not quantized (weight-only: 16-bit)";
  if (s.activation_scheme != ActivationScheme::Quantized || !s.activations) return "";
  return std::string(s.activations->is_float ? "float" : "int") + " " + std::to_string(s.activations->bits) +
         "-bit, quantized at run time";
}

}  // namespace

void render_console(ConsoleWriter& w, const QuantizationInfo& s, const ModelReport& r,
                    const RenderOptions& o) {
  (void)r;
  w.heading("QUANTIZATION");
  if (!s.quantized) {
    w.field("quantized", "no");
  } else {
    w.field("type", s.method);
    // GGUF mixes types per tensor: its one figure is bits per weight, below.
    w.field("bits", s.bits ? std::to_string(*s.bits) : s.bits_per_weight ? "per tensor type" : "unknown");
    if (!s.block.empty())
      w.field("scale per", "block " + block_text(s.block));
    else if (s.group_size)
      w.field("group size", with_thousands(*s.group_size));
    w.field("logical parameters",
            human_count(s.logical_parameters) + " (" + with_thousands(s.logical_parameters) + ")");
    if (s.bits_per_weight)
      w.field("bits per weight", bits_text(*s.bits_per_weight) + " (stored bytes x 8 / logical parameters)");
    if (const std::string a = activations_text(s); !a.empty()) w.field("activations", a);
  }
  if (o.detailed) {
    if (s.quantized) {
      w.field("source", s.source);
      if (!s.format_detail.empty()) w.field("format", s.format_detail);
      if (!s.unquantized.empty()) w.field("unquantized", unquantized_list(s));
      w.field("scale tensors", scale_text(s));
    }
    if (!s.elements_by_stored_dtype.empty()) w.field("elements by stored dtype", dtype_list(s));
    w.field("stored bytes", bytes_exactly(s.stored_bytes));
    w.note("stored figures " + stored_from_text(s));
  }
  for (const std::string& n : s.notes) w.footnote("note: " + n);
}

void write_json(JsonWriter& w, const QuantizationInfo& s) {
  w.key("quantization").begin_object();
  w.key("quantized").value(s.quantized);
  auto str_or_null = [&](const char* k, const std::string& v) {
    w.key(k);
    if (v.empty())
      w.null();
    else
      w.value(v);
  };
  str_or_null("method", s.method);
  str_or_null("source", s.source);
  w.key("bits");
  if (s.bits)
    w.value(*s.bits);
  else
    w.null();
  w.key("group_size");
  if (s.group_size)
    w.value(*s.group_size);
  else
    w.null();
  w.key("block").numbers_or_null(s.block);
  str_or_null("format_detail", s.format_detail);
  // null: the declaration says nothing of the activations.
  w.key("activations");
  if (s.activation_scheme == ActivationScheme::Unsaid ||
      (s.activation_scheme == ActivationScheme::Quantized && !s.activations)) {
    w.null();
  } else {
    w.begin_object();
    w.key("quantized").value(s.activation_scheme == ActivationScheme::Quantized);
    if (s.activation_scheme == ActivationScheme::Quantized) {
      w.key("bits").value(s.activations->bits);
      w.key("type").value(s.activations->is_float ? "float" : "int");
    }
    w.end_object();
  }
  w.key("unquantized").begin_array();
  for (const auto& g : s.unquantized) w.value(g);
  w.end_array();
  w.key("unquantized_elements").begin_object();
  for (const auto& [g, n] : s.unquantized_elements) w.key(g).value(n);
  w.end_object();
  w.key("elements_by_stored_dtype").begin_object();
  for (const auto& [d, n] : s.elements_by_stored_dtype) w.key(d).value(n);
  w.end_object();
  w.key("logical_parameters").value(s.logical_parameters);
  w.key("bits_per_weight");
  if (s.bits_per_weight)
    w.value(*s.bits_per_weight);
  else
    w.null();
  w.key("quantization_scale_tensors").value(s.quantization_scale_tensors);
  w.key("quantization_scale_bytes").value(s.quantization_scale_bytes);
  w.key("quantization_scale_tensors_unsized").value(s.quantization_scale_tensors_unsized);
  w.key("quantization_scales_unpredicted").value(s.quantization_scales_unpredicted);
  w.key("stored_bytes").value(s.stored_bytes);
  str_or_null("stored_from", s.stored_from);
  w.key("notes").begin_array();
  for (const auto& n : s.notes) w.value(n);
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const QuantizationInfo& s, const ModelReport& r) {
  (void)r;
  w.heading(2, "Quantization");
  std::vector<std::pair<std::string, std::string>> rows = {{"Quantized", s.quantized ? "yes" : "no"}};
  if (s.quantized) {
    rows.push_back({"Method", s.method});
    rows.push_back({"Source", s.source});
    rows.push_back({"Bits", s.bits ? std::to_string(*s.bits) : "unknown"});
    if (s.bits_per_weight) rows.push_back({"Bits per weight", bits_text(*s.bits_per_weight)});
    if (!s.block.empty())
      rows.push_back({"Scale per", "block " + block_text(s.block)});
    else if (s.group_size)
      rows.push_back({"Group size", with_thousands(*s.group_size)});
    if (!s.format_detail.empty()) rows.push_back({"Format", s.format_detail});
    if (const std::string a = activations_text(s); !a.empty()) rows.push_back({"Activations", a});
    rows.push_back({"Logical parameters",
                    with_thousands(s.logical_parameters) + " (" + human_count(s.logical_parameters) + ")"});
    if (!s.unquantized.empty()) rows.push_back({"Unquantized (elements)", unquantized_list(s)});
    rows.push_back({"Quantization scale tensors", scale_text(s)});
  }
  rows.push_back({"Stored bytes", bytes_exactly(s.stored_bytes)});
  w.fields(rows);
  if (!s.elements_by_stored_dtype.empty()) {
    std::vector<std::vector<std::string>> dt;
    for (const auto& [d, n] : s.elements_by_stored_dtype) dt.push_back({d, with_thousands(n)});
    w.table({"Stored dtype", "Elements"}, dt);
  }
  std::string para = "Stored figures " + stored_from_text(s) + ".";
  if (s.quantized)
    para +=
        " Logical parameters are those of the unquantized model the checkpoint encodes: packed integers "
        "count as the weights they hold (an int32 of 4-bit codes holds 8, a byte of FP4 holds 2); scales, "
        "zero points and group indices are not parameters.";
  w.paragraph(para);
  if (!s.notes.empty()) {
    std::string list;
    for (const auto& n : s.notes) list += "- " + n + "\n";
    w.paragraph(list);
  }
}

}  // namespace ma

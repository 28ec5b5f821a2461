#include "report/onnx_graph_report.h"

#include <algorithm>

#include "core/json_writer.h"
#include "core/text.h"
#include "core/units.h"
#include "report/console_writer.h"
#include "report/run_info.h"

namespace ma {
namespace {

std::string counted(uint64_t n, std::string_view noun) {
  return with_thousands(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string opset_domain(const std::string& domain) {
  return domain.empty() ? "ai.onnx" : domain;
}

std::string shape_text(const OnnxValue& v) {
  if (!v.shape) return "rank unknown";
  std::string out = "[";
  for (size_t i = 0; i < v.shape->size(); ++i) {
    const OnnxDim& d = (*v.shape)[i];
    out += i ? ", " : "";
    out += d.size ? std::to_string(*d.size) : !d.symbol.empty() ? terminal_safe(d.symbol) : "?";
  }
  return out + "]";
}

void values_table(ConsoleWriter& w, const std::string& title, const std::vector<OnnxValue>& values) {
  w.heading(title + " (" + std::to_string(values.size()) + ")");
  std::vector<std::vector<std::string>> rows;
  for (const OnnxValue& v : values)
    rows.push_back({terminal_safe(v.name), v.elem_type.empty() ? "?" : v.elem_type, shape_text(v)});
  w.table({"Name", "Type", "Shape"}, rows);
}

// One precision entry as a label and its figures.
std::pair<std::string, std::string> precision_field(const OnnxPrecision& p) {
  if (p.kind == "weights")
    return {"weights " + p.dtype, counted(p.elements, "element") + ", " + bytes_exactly(p.bytes)};
  if (p.kind == "MatMulNBits")
    return {p.kind, counted(p.nodes, "node") + ": " + std::to_string(p.bits) + "-bit weights, block " +
                        std::to_string(p.block_size) + ", " + counted(p.elements, "weight") + " (K x N)"};
  if (p.kind == "QDQ")
    return {p.kind, counted(p.nodes, "QuantizeLinear/DequantizeLinear node") + ", " +
                        (p.dtype.empty() ? std::string("type unknown") : p.dtype)};
  return {p.kind, counted(p.nodes, "node")};
}

void write_value(JsonWriter& w, const OnnxValue& v) {
  w.begin_object();
  w.key("name").value(v.name);
  w.key("elem_type").text_or_null(v.elem_type);
  w.key("shape");
  if (!v.shape) {
    w.null();
  } else {
    w.begin_array();
    for (const OnnxDim& d : *v.shape) {
      if (d.size)
        w.value(*d.size);
      else
        w.text_or_null(d.symbol);
    }
    w.end_array();
  }
  w.end_object();
}

void write_values(JsonWriter& w, std::string_view key, const std::vector<OnnxValue>& values) {
  w.key(key).begin_array();
  for (const OnnxValue& v : values) {
    w.newline();
    write_value(w, v);
  }
  w.end_array();
}

}  // namespace

std::string render_onnx_graph_console(const OnnxGraphSummary& g, std::string_view title, bool edges,
                                      bool color) {
  ConsoleWriter w(color);
  w.heading("ONNX graph: " + terminal_safe(title));
  std::string opsets;
  for (const auto& [domain, version] : g.opsets)
    opsets +=
        (opsets.empty() ? "" : ", ") + terminal_safe(opset_domain(domain)) + " " + std::to_string(version);
  w.field("IR version", std::to_string(g.ir_version));
  w.field("producer", g.producer.empty() ? std::string("not stated") : terminal_safe(g.producer));
  w.field("opsets", opsets.empty() ? std::string("none stated") : opsets);
  w.field("nodes", with_thousands(g.nodes) +
                       (g.subgraph_nodes ? " (+" + with_thousands(g.subgraph_nodes) + " in subgraphs)" : ""));
  w.field("depth", counted(g.depth, "node") + " on the longest chain");
  if (g.max_fan_out)
    w.field("largest fan-out",
            counted(g.max_fan_out, "reader") + " of " + terminal_safe(g.max_fan_out_value));
  w.field("initializers", with_thousands(g.initializers) + ": " + counted(g.initializer_elements, "element") +
                              ", " + bytes_exactly(g.initializer_bytes) +
                              (g.subgraph_initializers ? " (+" + with_thousands(g.subgraph_initializers) +
                                                             " in subgraphs, not read)"
                                                       : ""));
  values_table(w, "Inputs", g.inputs);
  values_table(w, "Outputs", g.outputs);
  w.heading("Operators (" + std::to_string(g.ops.size()) + " types)");
  std::vector<std::vector<std::string>> rows;
  for (const OnnxOpCount& op : g.ops) rows.push_back({terminal_safe(op.op_type), with_thousands(op.count)});
  w.table({"Op type", "Nodes"}, rows);
  w.heading("Precision");
  for (const OnnxPrecision& p : g.precision) {
    const auto [label, value] = precision_field(p);
    w.field(label, value);
  }
  if (!g.layers.empty()) {
    w.heading("Layers (from " + g.layer_evidence + ")");
    rows.clear();
    for (const OnnxLayerSlice& l : g.layers)
      rows.push_back({l.layer ? std::to_string(*l.layer) : "other", with_thousands(l.nodes),
                      with_thousands(l.initializers), human_bytes(l.weight_bytes)});
    w.table({"Layer", "Nodes", "Initializers", "Weights"}, rows);
  }
  w.heading("Shapes");
  w.field("inferred", with_thousands(g.edges_with_shape) + " of " + with_thousands(g.edges.size()) +
                          " intermediate values");
  if (!g.shape_inference_error.empty()) w.field("inference stopped", terminal_safe(g.shape_inference_error));
  if (!g.shape_inference_note.empty()) w.field("inference", g.shape_inference_note);
  if (edges)
    values_table(w, "Edges", g.edges);
  else
    w.footnote("--edges lists every intermediate value with its type and shape");
  return w.take();
}

void stream_onnx_graph_json(const OnnxGraphSummary& g, std::string_view source, bool edges,
                            const RunInfo& run, const std::function<void(std::string_view)>& sink) {
  JsonWriter w(sink);
  w.begin_object();
  w.key("source").value(source);
  w.key("ir_version").value(g.ir_version);
  w.key("producer").text_or_null(g.producer);
  w.key("opsets").begin_array();
  for (const auto& [domain, version] : g.opsets)
    w.begin_object().key("domain").value(opset_domain(domain)).key("version").value(version).end_object();
  w.end_array();
  w.key("nodes").value(g.nodes);
  w.key("subgraph_nodes").value(g.subgraph_nodes);
  w.key("subgraph_initializers").value(g.subgraph_initializers);
  w.key("depth").value(g.depth);
  w.key("max_fan_out").value(g.max_fan_out);
  w.key("max_fan_out_value").text_or_null(g.max_fan_out_value);
  w.key("initializers").value(g.initializers);
  w.key("initializer_elements").value(g.initializer_elements);
  w.key("initializer_bytes").value(g.initializer_bytes);
  write_values(w, "inputs", g.inputs);
  write_values(w, "outputs", g.outputs);
  w.key("op_types").value(static_cast<uint64_t>(g.ops.size()));
  w.key("ops").begin_object();
  for (const OnnxOpCount& op : g.ops) w.key(op.op_type).value(op.count);
  w.end_object();
  w.key("precision").begin_array();
  for (const OnnxPrecision& p : g.precision) {
    w.begin_object().key("kind").value(p.kind).key("dtype").text_or_null(p.dtype);
    w.key("nodes").value(p.nodes).key("elements").value(p.elements).key("bytes").value(p.bytes);
    w.key("bits").value(p.bits).key("block_size").value(p.block_size).end_object();
  }
  w.end_array();
  w.key("layer_evidence").text_or_null(g.layer_evidence);
  w.key("layers").begin_array();
  for (const OnnxLayerSlice& l : g.layers) {
    w.newline().begin_object().key("layer").value_or_null(l.layer);
    w.key("nodes").value(l.nodes).key("initializers").value(l.initializers);
    w.key("weight_bytes").value(l.weight_bytes).end_object();
  }
  w.end_array();
  w.key("edges_total").value(static_cast<uint64_t>(g.edges.size()));
  w.key("edges_with_shape").value(g.edges_with_shape);
  w.key("shape_inference_error").text_or_null(g.shape_inference_error);
  w.key("shape_inference_note").text_or_null(g.shape_inference_note);
  if (edges) write_values(w, "edges", g.edges);
  write_run_info(w, run);
  w.end_object();
  w.flush();
  sink("\n");
}

}  // namespace ma

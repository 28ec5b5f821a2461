#include "report/model_report_render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "report/layers_json.h"
#include "report/markdown_writer.h"
#include "report/run_info.h"

namespace ma {
namespace {

// The convention "non-embedding" follows, said once wherever the figure appears.
constexpr const char* kNonEmbeddingConvention =
    "transformers' num_parameters(exclude_embeddings=True): nn.Embedding tables (token, position, token "
    "type) "
    "left out, an untied LM head counted";

// ", exact", or where the checkpoint's shapes contradict the config both counts: the model as configured is
// not the one these weights hold.
std::string exactness(const ParameterCounts& p) {
  if (!p.as_stored) return ", exact";
  return " as configured; " + with_thousands(*p.as_stored) + " as stored: the shapes contradict the config";
}

// "attention 1.34B, mlp 5.64B, ..." in Block order.
std::string by_block_text(const ParameterCounts& p) {
  std::string t;
  for (const BlockParameters& b : p.by_block)
    t += (t.empty() ? "" : ", ") + std::string(block_name(b.block)) + " " + human_count(b.parameters);
  return t;
}

// The parameters each layer of a group holds (`by_layer`: the group's stack's counts): "583,483,392", or
// "1,024-2,048" where they differ (per-layer widths); empty when the counts do not cover the group.
std::string group_parameters(const std::vector<uint64_t>& by_layer, const LayerGroup& g) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t i : g.indices) {
    if (i >= by_layer.size()) return "";
    lo = std::min(lo, by_layer[i]);
    hi = std::max(hi, by_layer[i]);
  }
  if (g.indices.empty()) return "";
  return lo == hi ? with_thousands(lo) : with_thousands(lo) + "-" + with_thousands(hi);
}

// Every parameter of the model transformers builds is trainable (buffers are not parameters); with a PEFT
// adapter only the adapter's tensors train (and the modules it saves whole, which it stores), the base's
// weights are frozen.
uint64_t trainable_parameters(const ModelReport& r) {
  return r.adapter ? r.adapter->parameters : r.parameters.total;
}

void console_parameters(ConsoleWriter& w, const ModelReport& r, const RenderOptions& o) {
  if (!r.architecture_known) {
    w.field("parameters", "unknown: no template for this architecture (see the warning)");
    return;
  }
  const ParameterCounts& p = r.parameters;
  w.field("parameters", human_count(p.total) + " (" + with_thousands(p.total) + exactness(p) + ")");
  if (p.active)
    w.field("active per token", human_count(*p.active) + " (" + with_thousands(*p.active) +
                                    "; non-embedding " + with_thousands(*p.active_non_embedding) + ")");
  if (p.towers) {
    const bool speech = std::any_of(p.by_block.begin(), p.by_block.end(),
                                    [](const BlockParameters& b) { return b.block == Block::SpeechOutput; });
    w.field("towers", with_thousands(p.towers) + " (vision and audio towers" +
                          (speech ? ", their projectors and the speech output" : " and their projectors") +
                          ": no text token runs them)");
  }
  w.field("embedding / non-embedding", with_thousands(p.embedding) + " / " + with_thousands(p.non_embedding));
  if (r.adapter && r.adapter->base_parameters)
    w.field("trainable", with_thousands(trainable_parameters(r)) + " (the adapter's; the base model's " +
                             with_thousands(*r.adapter->base_parameters) + " are frozen)");
  else
    w.field("trainable", with_thousands(trainable_parameters(r)) +
                             (r.adapter ? " (the adapter's tensors)" : " (all parameters)"));
  if (!p.from_template)
    w.note(r.weights_format == "gguf"
               ? "counted from the GGUF file's tensors; its metadata describes the model"
           : r.weights_format == "onnx"
               ? "counted from the ONNX initializers (constants the exporter stored among "
                 "them included); the graph describes the model"
               : "counted from the stored tensors: there is no config.json");
  if (!o.detailed) return;
  w.field("by block", by_block_text(p));
  w.field("outside the layers", with_thousands(p.outside_layers) + " (embeddings, final norm, head, towers)");
  w.footnote("non-embedding: " + std::string(kNonEmbeddingConvention));
}

// The encoder's layers by type when the model also has a decoder (the main stack, whose groups the layer
// summary holds); none for decoder-only and encoder-only models.
std::vector<LayerGroup> encoder_groups(const ModelReport& r) {
  if (!r.architecture.encoder_layers || !r.architecture.decoder_layers) return {};
  const StackSpec* encoder = r.arch.stack(StackRole::Encoder);
  return encoder ? summarize_layers(encoder->layers).by_type : std::vector<LayerGroup>{};
}

// "attention+dense", or with the stack named when there are two: "attention+dense (encoder)".
std::string group_type(const LayerGroup& g, const ModelReport& r, StackRole stack) {
  if (!r.architecture.encoder_layers || !r.architecture.decoder_layers) return g.type;
  return g.type + " (" + std::string(stack_role_name(stack)) + ")";
}

// A stack whose layers all run the same stored weights (ALBERT): its layers hold no parameters of their own;
// the stack's (architecture.stacks[].parameters) are what every layer runs.
const StackSummary* stack_sharing_weights(const ModelReport& r) {
  for (const StackSummary& s : r.architecture.stacks)
    if (s.shared_weights) return &s;
  return nullptr;
}

void console_layers(ConsoleWriter& w, const ModelReport& r) {
  const LayerSummary& l = r.layer_summary;
  if (l.by_type.empty()) return;
  w.heading("LAYERS");
  auto group = [&](const LayerGroup& g, StackRole stack, const std::vector<uint64_t>& by_layer) {
    std::string each = group_parameters(by_layer, g);
    if (!each.empty()) each = ", " + each + " parameters each";
    if (const StackSummary* shared = stack_sharing_weights(r))
      each = ", every layer running the same " + with_thousands(shared->parameters) + " parameters";
    w.field(std::to_string(g.indices.size()) + " x " + group_type(g, r, stack),
            "[" + index_ranges(g.indices) + "]" + each);
  };
  for (const LayerGroup& g : encoder_groups(r)) group(g, StackRole::Encoder, r.parameters.encoder_by_layer);
  for (const LayerGroup& g : l.by_type) group(g, StackRole::Decoder, r.parameters.by_layer);
  if (l.by_type.size() > 1) {
    auto tally = [](const std::vector<LayerGroup>& groups) {
      std::string s;
      for (const LayerGroup& g : groups)
        s += (s.empty() ? "" : ", ") + std::to_string(g.indices.size()) + " " + g.type;
      return s;
    };
    w.field("mixers", tally(l.by_mixer));
    w.field("feed-forward", tally(l.by_ffn));
  }
}

}  // namespace

std::string render_report_console(const ModelReport& r, const RenderOptions& o, bool color) {
  ConsoleWriter w(color);
  render_console(w, r.identity, r, o);
  console_parameters(w, r, o);
  if (r.adapter) render_console(w, *r.adapter, r, o);
  render_console(w, r.architecture, r, o);
  render_console(w, r.attention, r, o);
  if (r.moe) render_console(w, *r.moe, r, o);
  if (r.ssm) render_console(w, *r.ssm, r, o);
  console_layers(w, r);
  if (r.quantization.quantized || o.detailed) render_console(w, r.quantization, r, o);
  if (r.architecture_known) render_console(w, r.memory, r, o);
  if (r.tokenizer) render_console(w, *r.tokenizer, r, o);
  render_console(w, r.capabilities, r, o);
  if (r.metadata) render_console(w, *r.metadata, r, o);
  return w.take();
}

std::string render_report_json(const ModelReport& r, const RunInfo& run) {
  JsonWriter w;
  w.begin_object();
  w.key("model_id").value(r.identity.model_id);
  w.key("model_name").value(r.identity.display_name);
  w.key("weights_format");  // what was read: "safetensors", "gguf", "pytorch zip"; null for a config alone
  if (r.weights_format.empty())
    w.null();
  else
    w.value(r.weights_format);
  write_json(w, r.identity);
  const ParameterCounts& p = r.parameters;
  if (!r.architecture_known) {
    for (const char* k : {"num_parameters", "num_parameters_human", "num_parameters_active",
                          "num_parameters_active_non_embedding", "num_parameters_trainable", "parameters"})
      w.key(k).null();
  } else {
    w.key("num_parameters").value(p.total);
    w.key("num_parameters_human").value(human_count(p.total));
    if (r.parameters_vs_first) w.key("num_parameters_vs_first").value(*r.parameters_vs_first);
    // Every parameter is active in a dense model.
    w.key("num_parameters_active").value(p.active.value_or(p.total));
    w.key("num_parameters_active_non_embedding").value(p.active_non_embedding.value_or(p.non_embedding));
    w.key("num_parameters_trainable").value(trainable_parameters(r));
    w.key("parameters").begin_object();
    w.key("total").value(p.total);
    w.key("embedding").value(p.embedding);
    w.key("non_embedding").value(p.non_embedding);
    w.key("non_embedding_convention").value(kNonEmbeddingConvention);
    w.key("routed_experts").value(p.routed_experts);
    w.key("towers").value(p.towers);
    w.key("active").value(p.active.value_or(p.total));
    w.key("active_non_embedding").value(p.active_non_embedding.value_or(p.non_embedding));
    w.key("counted_from").value(p.from_template ? "template" : "checkpoint");
    if (p.as_stored)
      w.key("as_stored").value(*p.as_stored);
    else
      w.key("as_stored").null();
    w.key("by_block").begin_object();
    for (const BlockParameters& b : p.by_block) w.key(block_name(b.block)).value(b.parameters);
    w.end_object();
    w.key("by_stack").begin_object();
    for (const StackParameters& s : p.by_stack) w.key(stack_role_name(s.role)).value(s.parameters);
    w.end_object();
    w.key("by_layer").begin_array();
    for (uint64_t n : p.by_layer) w.value(n);
    w.end_array();
    w.key("encoder_by_layer").begin_array();
    for (uint64_t n : p.encoder_by_layer) w.value(n);
    w.end_array();
    w.key("outside_layers").value(p.outside_layers);
    w.end_object();
  }
  write_json(w, r.architecture);
  write_json(w, r.attention);
  write_json(w, r.moe);
  write_json(w, r.ssm);
  write_json(w, r.adapter);
  write_json(w, r.quantization);
  if (r.architecture_known)
    write_json(w, r.memory);
  else
    w.key("memory").null();
  write_json(w, r.tokenizer, r.architecture.vocab_size);
  write_json(w, r.capabilities);
  write_json(w, r.metadata);
  write_layers_json(w, r.arch);
  write_layer_counts_json(w, r.layer_summary);
  w.key("warnings").begin_array();
  for (const auto& s : r.warnings) w.value(s);
  w.end_array();
  write_run_info(w, run);
  w.end_object();
  std::string out = w.take();
  out += '\n';
  return out;
}

void write_report_document(DocumentWriter& w, const ModelReport& r, const RunInfo& run) {
  w.heading(1, "Model analysis: " + r.identity.display_name);
  w.paragraph(run_info_paragraph(run));
  render_document(w, r.identity, r);
  if (r.adapter) render_document(w, *r.adapter, r);
  const ParameterCounts& p = r.parameters;
  w.heading(2, "Parameters");
  if (!r.architecture_known) {
    w.paragraph(
        "Unknown: there is no template for this architecture, so parameters and memory are not computed.");
  } else {
    std::vector<std::pair<std::string, std::string>> rows = {
        {p.as_stored ? "Total (as configured)" : "Total (exact)",
         with_thousands(p.total) + " (" + human_count(p.total) + ")" +
             (p.as_stored
                  ? "; " + with_thousands(*p.as_stored) + " as stored: the shapes contradict the config"
                  : "")},
        {"Embedding", with_thousands(p.embedding)},
        {"Non-embedding", with_thousands(p.non_embedding)},
        {"Trainable", with_thousands(p.total) + " (all parameters; buffers are not parameters)"}};
    if (p.active) {
      rows.push_back({"Active per token", with_thousands(*p.active) + " (" + human_count(*p.active) + ")"});
      rows.push_back({"Active per token, non-embedding", with_thousands(*p.active_non_embedding)});
    }
    if (p.towers) rows.push_back({"Towers (no text token runs them)", with_thousands(p.towers)});
    rows.push_back(
        {"Outside the layers", with_thousands(p.outside_layers) + " (embeddings, final norm, head, towers)"});
    w.fields(rows);
    std::vector<std::vector<std::string>> blocks;
    for (const BlockParameters& b : p.by_block)
      blocks.push_back({std::string(block_name(b.block)), with_thousands(b.parameters)});
    blocks.push_back({"**total**", with_thousands(p.total)});
    w.table({"Block", "Parameters"}, blocks);
    w.paragraph("Non-embedding follows " + std::string(kNonEmbeddingConvention) + ".");
    w.paragraph(p.from_template
                    ? "Counted from the architecture template: the sum of every tensor transformers builds, "
                      "tied weights once, buffers never."
                    : "Counted from the stored tensors (no config.json).");
  }
  render_document(w, r.architecture, r);
  render_document(w, r.attention, r);
  if (r.moe) render_document(w, *r.moe, r);
  if (r.ssm) render_document(w, *r.ssm, r);
  if (!r.layer_summary.by_type.empty()) {
    w.heading(2, "Layers");
    std::vector<std::vector<std::string>> lrows;
    for (const LayerGroup& g : encoder_groups(r))
      lrows.push_back({group_type(g, r, StackRole::Encoder), std::to_string(g.indices.size()),
                       index_ranges(g.indices), group_parameters(r.parameters.encoder_by_layer, g)});
    const StackSummary* shared = stack_sharing_weights(r);
    for (const LayerGroup& g : r.layer_summary.by_type)
      lrows.push_back({group_type(g, r, StackRole::Decoder), std::to_string(g.indices.size()),
                       index_ranges(g.indices),
                       shared ? with_thousands(shared->parameters) + ", the same for every layer"
                              : group_parameters(r.parameters.by_layer, g)});
    w.table({"Type", "Count", "Layers", "Parameters each"}, lrows);
  }
  render_document(w, r.quantization, r);
  if (r.architecture_known) render_document(w, r.memory, r);
  if (r.tokenizer) render_document(w, *r.tokenizer, r);
  render_document(w, r.capabilities, r);
  if (r.metadata) render_document(w, *r.metadata, r);
  if (!r.warnings.empty()) {
    w.heading(2, "Warnings");
    std::string list;
    for (const auto& s : r.warnings) list += "- " + s + "\n";
    w.paragraph(list);
  }
}

std::string render_report_markdown(const ModelReport& r, const RunInfo& run) {
  MarkdownWriter w;
  write_report_document(w, r, run);
  return w.take();
}

namespace {
// "1.00x", "11.4x": three significant digits, as the seed prints "3.10x larger".
// Three significant digits at any size: a model 400 times smaller than the first is 0.00250x, not 0.00x.
std::string format_ratio(double r) {
  char buf[32];
  if (r >= 100 || r <= 0)
    std::snprintf(buf, sizeof buf, "%.0fx", r);
  else
    std::snprintf(buf, sizeof buf, "%.*fx", std::max(0, 2 - static_cast<int>(std::floor(std::log10(r)))), r);
  return buf;
}
}  // namespace

std::string render_comparison_console(const std::vector<ModelReport>& reports, bool color) {
  ConsoleWriter w(color);
  w.heading("COMPARISON");
  std::vector<std::string> header = {"model",   "family",   "type",        "params",   "vs first",
                                     "active",  "layers",   "hidden",      "heads/kv", "attention",
                                     "context", "kv/token", "weights bf16"};
  std::vector<std::vector<std::string>> rows;
  for (const ModelReport& r : reports) {
    const ArchitectureDetails& a = r.architecture;
    std::string bf16 = "-";
    for (const Estimate& e : r.memory.weights)
      if (e.name == "weights_bf16") bf16 = human_bytes(e.bytes);
    rows.push_back(
        {r.identity.display_name, r.identity.family, r.identity.kind, human_count(r.parameters.total),
         r.parameters_vs_first ? format_ratio(*r.parameters_vs_first) : "-",
         human_count(r.parameters.active.value_or(r.parameters.total)), layers_text(a),
         std::to_string(a.hidden_size),
         std::to_string(a.num_attention_heads) + "/" + std::to_string(a.num_key_value_heads),
         r.attention.attention_type,
         r.capabilities.max_context_length ? with_thousands(*r.capabilities.max_context_length) : "-",
         human_bytes(r.memory.kv_cache_per_token_bytes), bf16});
  }
  w.table(header, rows);
  return w.take();
}

}  // namespace ma

#include "report/tensors_report.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "analysis/identity.h"
#include "core/json.h"
#include "core/json_writer.h"
#include "core/ordered_blocks.h"
#include "core/parallel.h"
#include "core/text.h"
#include "core/units.h"
#include "report/layers_json.h"
#include "report/run_info.h"

namespace ma {
namespace {

std::string dtype_short(const InventoryTensor& t) {
  return t.dtype ? std::string(dtype_info(*t.dtype).short_name) : "?";
}

std::string layer_text(const InventoryTensor& t) {
  return t.placement.layer ? std::to_string(*t.placement.layer) : std::string("-");
}

void write_counts(JsonWriter& w, const ParameterCounts& c) {
  w.key("parameters").begin_object();
  w.key("total").value(c.total);
  w.key("embedding").value(c.embedding);
  w.key("non_embedding").value(c.non_embedding);
  w.key("routed_experts").value(c.routed_experts);
  w.key("active");
  if (c.active)
    w.value(*c.active);
  else
    w.null();
  w.key("counted_from").value(c.from_template ? "template" : "checkpoint");
  w.end_object();
}

void write_checkpoint(JsonWriter& w, const std::optional<CheckpointTotals>& ck) {
  w.key("checkpoint");
  if (!ck) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("format").value(ck->format);
  w.key("files").value(ck->files);
  w.key("tensors").value(ck->tensors);
  w.key("parameters").value(ck->parameters);
  w.key("buffers").value(ck->buffers);
  w.key("buffer_elements").value(ck->buffer_elements);
  w.key("extras").value(ck->extras);
  w.key("extra_elements").value(ck->extra_elements);
  w.key("quantization_scales").value(ck->quantization_scales);
  w.key("quantization_scale_elements").value(ck->quantization_scale_elements);
  w.key("bytes").value(ck->bytes);
  w.key("bytes_exact").value(ck->headers_read);
  w.key("file_bytes").value(ck->file_bytes);
  w.key("index_total_size");
  if (ck->index_total_size)
    w.value(*ck->index_total_size);
  else
    w.null();
  w.end_object();
}

// A literal's bytes at p.
template <size_t N>
char* put(char* p, const char (&literal)[N]) {
  std::memcpy(p, literal, N - 1);
  return p + N - 1;
}

// One of the tool's own names (a dtype's, a block's, a tensor kind's), which their tables assert need no
// escaping (json::quotes_as_is), quoted without write_quoted's scan: three of a row's six strings.
char* put_own_name(char* p, std::string_view s) {
  *p++ = '"';
  std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '"';
  return p;
}

char* put_uint(char* p, uint64_t n) {
  return std::to_chars(p, p + 20, n).ptr;  // 2^64 - 1 has 20 digits
}

// One element of "tensors", written into `buf` (first grown to what the row can take at most): the hot loop
// of a large export. Written piece by piece onto a std::string, DeepSeek-V3's 46,183 rows took 6.0 ms to
// write; this way 3.6 ms. Field names and order are the documented JSON schema.
std::string_view tensor_object(std::vector<char>& buf, const InventoryTensor& t) {
  using json::quoted_size_bound;
  const std::string_view dtype = t.dtype ? dtype_info(*t.dtype).short_name : "";
  const std::string_view block = block_name(t.placement.block), kind = tensor_kind_name(t.kind);
  // The keys, true/false/null and three numbers take under 256 bytes; each dimension at most 21.
  const size_t bound = 256 + 21 * t.shape.size() + quoted_size_bound(t.name.size()) +
                       quoted_size_bound(t.stack().size()) + quoted_size_bound(block.size()) +
                       quoted_size_bound(t.placement.role.size()) + quoted_size_bound(kind.size()) +
                       quoted_size_bound(t.tied_to.size()) + quoted_size_bound(dtype.size());
  if (buf.size() < bound) buf.resize(bound);
  char* p = put(buf.data(), "{\"name\":");
  p = json::write_quoted(p, t.name);
  p = put(p, ",\"shape\":");
  if (t.shape_known) {
    *p++ = '[';
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i) *p++ = ',';
      p = put_uint(p, t.shape[i]);
    }
    *p++ = ']';
  } else {
    p = put(p, "null");
  }
  p = put(p, ",\"dtype\":");
  p = t.dtype ? put_own_name(p, dtype) : put(p, "null");
  p = put_uint(put(p, ",\"parameters\":"), t.parameters);
  p = put_uint(put(p, ",\"bytes\":"), t.bytes);
  p = put(p, ",\"layer\":");
  p = t.placement.layer ? put_uint(p, *t.placement.layer) : put(p, "null");
  p = json::write_quoted(put(p, ",\"stack\":"), t.stack());
  p = put_own_name(put(p, ",\"block\":"), block);
  p = json::write_quoted(put(p, ",\"role\":"), t.placement.role);
  p = put_own_name(put(p, ",\"kind\":"), kind);
  p = put(p, ",\"tied_to\":");
  p = t.tied_to.empty() ? put(p, "null") : json::write_quoted(p, t.tied_to);
  p = t.stored ? put(p, ",\"stored\":true") : put(p, ",\"stored\":false");
  p = t.routed_expert ? put(p, ",\"routed_expert\":true}") : put(p, ",\"routed_expert\":false}");
  return {buf.data(), static_cast<size_t>(p - buf.data())};
}

// The elements of "tensors", one a line. A large inventory's rows are formatted in blocks on every core
// while this thread writes out the finished ones in order: DeepSeek-V3's 46,183 rows take 3.2 ms on one core
// of a 2-core VM, and the whole command 1 ms less on both. A small inventory's rows are formatted on this
// thread alone, which saves starting threads.
void write_tensor_rows(JsonWriter& w, const std::vector<InventoryTensor>& rows) {
  constexpr size_t kRowsPerBlock = 512, kRowsPerThread = 4096;
  const size_t blocks = (rows.size() + kRowsPerBlock - 1) / kRowsPerBlock;
  const size_t threads = std::min(metadata_threads(), rows.size() / kRowsPerThread + 1);
  emit_blocks_in_order(
      blocks, threads,
      [&rows](size_t b, std::string& text) {
        std::vector<char> row;  // reused: one object per tensor, written directly
        for (size_t i = b * kRowsPerBlock; i < std::min(rows.size(), (b + 1) * kRowsPerBlock); ++i) {
          text += i ? "\n," : "\n";
          text += tensor_object(row, rows[i]);
        }
      },
      [&w](std::string_view text) { w.rendered_elements(text); });
}

std::string pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string render_tensors_json(const TensorsReport& r, const RunInfo& run) {
  std::string out;
  stream_tensors_json(r, run, [&](std::string_view chunk) { out += chunk; });
  return out;
}

void stream_tensors_json(const TensorsReport& r, const RunInfo& run,
                         const std::function<void(std::string_view)>& sink) {
  const Inventory& inv = r.inventory;
  JsonWriter w(sink);
  w.begin_object();
  w.key("source").value(inv.source);
  w.key("origin").value(origin_name(inv.origin));
  // The record's: a template's, or what GGUF metadata names; null for bare weights that name nothing.
  w.key("model_type");
  if (!inv.arch.model_type.empty())
    w.value(inv.arch.model_type);
  else
    w.null();
  w.key("architecture");
  if (!inv.arch.architecture.empty())
    w.value(inv.arch.architecture);
  else
    w.null();
  w.key("num_parameters").value(r.counts.total);
  write_counts(w, r.counts);
  write_checkpoint(w, inv.checkpoint);
  w.newline();
  write_layers_json(w, inv.arch);
  w.newline();
  write_layer_counts_json(w, r.layers);
  w.newline().key("warnings").begin_array();
  for (const auto& s : inv.warnings) w.value(s);
  w.end_array();
  w.newline().key("tensors").begin_array();
  write_tensor_rows(w, inv.tensors);
  w.newline().end_array();
  write_run_info(w, run);
  w.end_object();
  w.newline();
  w.flush();
}

std::string render_tensors_csv(const TensorsReport& r) {
  std::string out = "kind,name,shape,dtype,parameters,bytes,layer,block,role,tensor_kind,tied_to\n";
  for (const InventoryTensor& t : r.inventory.tensors) {
    // Seed 003's first column says what torch calls the entry: a parameter or a buffer.
    out += t.kind == TensorKind::Buffer ? "buffer," : "param,";
    out += csv_field(t.name) + ",";
    out += csv_field(t.shape_known ? shape_to_python_tuple(t.shape) : "?") + ",";
    out += t.dtype ? std::string(dtype_info(*t.dtype).torch_name) : "";
    out += "," + std::to_string(t.parameters) + "," + std::to_string(t.bytes) + ",";
    out += (t.placement.layer ? std::to_string(*t.placement.layer) : "") + ",";
    out += csv_field(block_name(t.placement.block)) + "," + csv_field(t.placement.role) + ",";
    out += std::string(tensor_kind_name(t.kind)) + "," + csv_field(t.tied_to) + "\n";
  }
  return out;
}

std::string render_tensors_console(const TensorsReport& r, bool color) {
  const Inventory& inv = r.inventory;
  const char* bold = color ? "\033[1m" : "";
  const char* dim = color ? "\033[2m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out;
  // The config's names are untrusted: escaped as the other writers escape them.
  out += std::string(bold) + terminal_safe(display_name_of(inv.source)) + reset;
  if (!inv.arch.model_type.empty())
    out += "  " + terminal_safe(inv.arch.model_type) + " / " + terminal_safe(inv.arch.architecture);
  const std::string from =
      inv.origin == InventoryOrigin::Headers && inv.checkpoint && inv.checkpoint->format != "safetensors"
          ? inv.checkpoint->format + " checkpoint"
          : std::string(origin_name(inv.origin));
  out += std::string(dim) + "  (tensors from " + from + ")" + reset + "\n";

  const ParameterCounts& c = r.counts;
  out += "num_parameters: " + with_thousands(c.total) + " (" + human_count(c.total) + ")" +
         (c.from_template ? "" : " counted from stored tensors") + "\n";
  out += "  embedding " + with_thousands(c.embedding) + ", non-embedding " + with_thousands(c.non_embedding) +
         "\n";
  if (c.active)
    out += "  active per token " + with_thousands(*c.active) + " (" + human_count(*c.active) +
           "), routed experts " + with_thousands(c.routed_experts) + "\n";
  if (inv.checkpoint) {
    const CheckpointTotals& k = *inv.checkpoint;
    out += "checkpoint: " + std::to_string(k.files) + (k.files == 1 ? " file, " : " files, ") +
           with_thousands(k.tensors) + " tensors, " + with_thousands(k.parameters) + " parameters stored, " +
           std::to_string(k.buffers) + " buffers, " + std::to_string(k.extras) + " extras, " +
           std::to_string(k.quantization_scales) + " quantization scales, " + human_bytes(k.bytes) +
           (k.headers_read ? "" : " predicted") + "\n";
    if (k.index_total_size) out += "  index total_size: " + with_thousands(*k.index_total_size) + " bytes\n";
  }
  if (!r.layers.by_type.empty()) {
    out += "layers: " + std::to_string(inv.arch.layers().size()) + "\n";
    for (const LayerGroup& g : r.layers.by_type)
      out += "  " + pad(std::to_string(g.indices.size()), 4, true) + " x " + g.type + "  [" +
             index_ranges(g.indices) + "]\n";
    if (r.layers.by_type.size() > 1) {
      for (const auto* groups : {&r.layers.by_mixer, &r.layers.by_ffn})
        for (const LayerGroup& g : *groups)
          out += std::string(dim) + "  " + pad(std::to_string(g.indices.size()), 4, true) + " x " + g.type +
                 reset + "\n";
    }
  }

  size_t wn = 4, ws = 5, wr = 4;
  for (const auto& t : inv.tensors) {
    wr = std::max(wr, t.placement.role.size());
    wn = std::max(wn, t.name.size());
    ws = std::max(ws, (t.shape_known ? shape_to_string(t.shape) : std::string("?")).size());
  }
  wn = std::min<size_t>(wn, 80);
  out += "\n" + std::string(bold) + pad("name", wn) + "  " + pad("shape", ws) + "  " + pad("dtype", 7) +
         "  " + pad("params", 15, true) + "  " + pad("bytes", 11, true) + "  " + pad("layer", 5, true) +
         "  " + pad("block", 16) + "  " + pad("role", wr) + "  kind" + reset + "\n";
  for (const auto& t : inv.tensors) {
    std::string kind(tensor_kind_name(t.kind));
    if (!t.tied_to.empty()) kind += " (tied to " + std::string(t.tied_to) + ")";
    out += pad(t.name, wn) + "  " + pad(t.shape_known ? shape_to_string(t.shape) : "?", ws) + "  " +
           pad(dtype_short(t), 7) + "  " + pad(with_thousands(t.parameters), 15, true) + "  " +
           pad(human_bytes(t.bytes), 11, true) + "  " + pad(layer_text(t), 5, true) + "  " +
           pad(std::string(block_name(t.placement.block)), 16) + "  " + pad(t.placement.role, wr) + "  " +
           kind + "\n";
  }
  return out;
}

}  // namespace ma

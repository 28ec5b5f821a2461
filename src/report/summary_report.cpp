#include "report/summary_report.h"

#include <map>

#include "core/units.h"

namespace ma {

std::string render_summary_console(const TensorsReport& r, bool color) {
  const Inventory& inv = r.inventory;
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  auto line = [&](const std::string& k, const std::string& v) {
    return "  " + k + std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') + v + "\n";
  };
  std::string out = std::string(bold) + inv.source + reset + "\n";
  if (inv.model) {
    const ArchSpec& a = inv.model->arch;
    out += line("model_type", a.model_type);
    out += line("architecture", a.architecture);
    if (a.hidden_size) out += line("hidden_size", std::to_string(a.hidden_size));
    if (a.num_layers) out += line("num_layers", std::to_string(a.num_layers));
    if (a.num_attention_heads)
      out += line("attention heads", std::to_string(a.num_attention_heads) + " (kv " +
                                         std::to_string(a.num_key_value_heads) + ", head_dim " +
                                         std::to_string(a.head_dim) + ")");
    if (a.vocab_size) out += line("vocab_size", std::to_string(a.vocab_size));
    if (a.num_experts)
      out += line("experts",
                  std::to_string(a.num_experts) + " routed, top-" + std::to_string(a.experts_per_token) +
                      (a.num_shared_experts ? ", " + std::to_string(a.num_shared_experts) + " shared" : ""));
    out += line("tie_word_embeddings", a.tie_word_embeddings ? "true" : "false");
  }
  const ParameterCounts& c = r.counts;
  out += std::string(bold) + "parameters" + reset +
         (c.from_template ? " (as transformers builds the model)" : " (stored tensors; no config)") + "\n";
  out += line("num_parameters", with_thousands(c.total) + " (" + human_count(c.total) + ")");
  out += line("embedding", with_thousands(c.embedding));
  out += line("non-embedding", with_thousands(c.non_embedding));
  if (c.active)
    out += line("active per token", with_thousands(*c.active) + " (" + human_count(*c.active) + ")");
  if (inv.checkpoint) {
    const CheckpointTotals& k = *inv.checkpoint;
    out += std::string(bold) + "checkpoint" + reset +
           (k.headers_read ? " (from headers)" : " (index names, template shapes)") + "\n";
    out += line("files", std::to_string(k.files));
    out += line("tensors", with_thousands(k.tensors));
    out += line("parameters stored", with_thousands(k.parameters));
    if (k.buffers)
      out += line("buffers",
                  std::to_string(k.buffers) + " (" + with_thousands(k.buffer_elements) + " elements)");
    if (k.extras)
      out +=
          line("extras", std::to_string(k.extras) + " (" + with_thousands(k.extra_elements) + " elements)");
    if (k.quantization_scales)
      out += line("quantization scales", std::to_string(k.quantization_scales) + " (" +
                                             with_thousands(k.quantization_scale_elements) + " elements)");
    out += line(k.headers_read ? "bytes" : "bytes predicted",
                with_thousands(k.bytes) + " (" + human_bytes(k.bytes) + ")");
    if (k.index_total_size) out += line("index total_size", with_thousands(*k.index_total_size));
  }
  if (!r.layers.by_type.empty()) {
    out += std::string(bold) + "layers" + reset + " (" + std::to_string(inv.layers.size()) + ")\n";
    for (const LayerGroup& g : r.layers.by_type)
      out += line(std::to_string(g.indices.size()) + " x " + g.type, "[" + compact_ranges(g.indices) + "]");
    if (r.layers.by_type.size() > 1) {
      // Hybrids: also the tally of each half of a layer (its token mixer, its feed-forward).
      auto tally = [](const std::vector<LayerGroup>& groups) {
        std::string s;
        for (const LayerGroup& g : groups)
          s += (s.empty() ? "" : ", ") + std::to_string(g.indices.size()) + " " + g.type;
        return s;
      };
      out += line("mixers", tally(r.layers.by_mixer));
      out += line("feed-forward", tally(r.layers.by_ffn));
    }
  }
  std::map<std::string, uint64_t> by_dtype;
  for (const auto& t : inv.tensors)
    if (t.stored && t.dtype) by_dtype[std::string(dtype_info(*t.dtype).short_name)] += t.parameters;
  if (!by_dtype.empty()) {
    out += std::string(bold) + "elements by dtype" + reset +
           (inv.origin == InventoryOrigin::Template ? " (config torch_dtype)" : "") + "\n";
    for (const auto& [d, n] : by_dtype) out += line(d, with_thousands(n));
  }
  return out;
}

}  // namespace ma

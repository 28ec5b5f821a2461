#include "analysis/peft_adapter.h"

#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "core/json.h"
#include "formats/checkpoint.h"
#include "io/file_source.h"

namespace ma {
namespace {

constexpr uint64_t kMaxAdapterConfigBytes = 1 << 20;

std::vector<std::string> names(const json::Value* v, const std::string& file, std::string_view key) {
  std::vector<std::string> out;
  if (!v || v->is_null()) return out;
  if (v->is_string()) {  // PEFT also takes one regex string
    out.emplace_back(v->as_string());
    return out;
  }
  if (!v->is_array())
    throw Error(ErrorKind::Malformed, file, std::string(key), "must be a list of names or a string");
  for (const json::Value& n : v->items()) {
    if (!n.is_string()) throw Error(ErrorKind::Malformed, file, std::string(key), "must be a list of names");
    out.emplace_back(n.as_string());
  }
  return out;
}

// PEFT's LoraLayer.update_layer: scaling = alpha / r, or alpha / sqrt(r) with use_rslora.
double lora_scaling(double alpha, uint64_t r, bool rslora) {
  if (!r) return 0;
  return rslora ? alpha / std::sqrt(static_cast<double>(r)) : alpha / static_cast<double>(r);
}

// rank_pattern and alpha_pattern: objects of pattern -> rank (a positive integer) or alpha (a number). A
// module a pattern matches takes its rank and alpha; the other, the adapter's.
std::vector<AdapterPattern> patterns(const json::Value& c, const std::string& file, const AdapterSummary& s) {
  std::vector<AdapterPattern> out;
  auto entry = [&](const std::string& pattern) -> AdapterPattern& {
    for (AdapterPattern& p : out)
      if (p.pattern == pattern) return p;
    return out.emplace_back(AdapterPattern{pattern, s.r, s.alpha, 0});
  };
  for (const char* key : {"rank_pattern", "alpha_pattern"}) {
    const json::Value* v = c.find(key);
    if (!v || v->is_null()) continue;
    if (!v->is_object()) throw Error(ErrorKind::Malformed, file, key, "must be an object of pattern: value");
    for (const auto& [pattern, value] : v->members()) {
      AdapterPattern& p = entry(std::string(pattern));
      if (std::string_view(key) == "rank_pattern") {
        if (!value.as_uint() || *value.as_uint() == 0)
          throw Error(ErrorKind::Malformed, file, std::string(key) + "." + std::string(pattern),
                      "must be a positive integer");
        p.r = *value.as_uint();
      } else {
        if (!value.is_number() || !std::isfinite(value.as_double()))
          throw Error(ErrorKind::Malformed, file, std::string(key) + "." + std::string(pattern),
                      "must be a number");
        p.alpha = value.as_double();
      }
    }
  }
  for (AdapterPattern& p : out) p.scaling = lora_scaling(p.alpha, p.r, s.rslora);
  return out;
}

}  // namespace

bool is_peft_adapter(const LocalModelFiles& files) {
  std::error_code ec;
  if (files.index || !std::filesystem::is_regular_file(files.root / "adapter_config.json", ec)) return false;
  for (const auto& p : files.weight_files)
    if (p.filename().string().rfind("adapter_", 0) == 0) return true;
  return false;
}

AdapterSummary summarize_adapter(const LocalModelFiles& adapter) {
  const std::filesystem::path path = adapter.root / "adapter_config.json";
  const std::string file = path.string();
  const json::Document doc = json::Document::parse(read_small_file(path, kMaxAdapterConfigBytes), file);
  const json::Value& c = doc.root();
  if (!c.is_object()) throw Error(ErrorKind::Malformed, file, "", "must be a JSON object");
  AdapterSummary s;
  if (const json::Value* t = c.find("peft_type"); t && t->is_string())
    s.peft_type = std::string(t->as_string());
  if (const json::Value* r = c.find("r"); r && !r->is_null()) {
    if (!r->as_uint()) throw Error(ErrorKind::Malformed, file, "r", "must be a non-negative integer");
    s.r = *r->as_uint();
  }
  if (const json::Value* a = c.find("lora_alpha"); a && !a->is_null()) {
    if (!a->is_number() || !std::isfinite(a->as_double()))
      throw Error(ErrorKind::Malformed, file, "lora_alpha", "must be a number");
    s.alpha = a->as_double();
  }
  if (const json::Value* v = c.find("use_rslora"); v && v->is_bool()) s.rslora = v->as_bool();
  if (const json::Value* v = c.find("use_dora"); v && v->is_bool()) s.dora = v->as_bool();
  s.scaling = lora_scaling(s.alpha, s.r, s.rslora);
  s.patterns = patterns(c, file, s);
  s.target_modules = names(c.find("target_modules"), file, "target_modules");
  s.modules_to_save = names(c.find("modules_to_save"), file, "modules_to_save");
  if (const json::Value* b = c.find("base_model_name_or_path"); b && b->is_string())
    s.base_model = std::string(b->as_string());
  const Checkpoint ck = read_checkpoint(adapter);
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) {
      ++s.tensors;
      s.parameters += t.numel;
      s.bytes += t.bytes();
      if (t.name.find(".lora_A.") != std::string::npos || t.name.find(".lora_B.") != std::string::npos)
        s.lora_weights.emplace_back(t.name, t.shape);
    }
  return s;
}

std::vector<std::string> adapter_base_mismatches(const AdapterSummary& a, const Inventory& base) {
  std::unordered_map<std::string_view, const InventoryTensor*> weights;
  for (const InventoryTensor& t : base.tensors) weights.emplace(t.name, &t);
  // The base's weight of a module: as named, or stored without the model's prefix (GPT-2's checkpoint has
  // h.0.attn.c_attn where the adapter names transformer.h.0.attn.c_attn), or packed (GPTQ's qweight,
  // compressed-tensors' weight_packed), whose shape is not the module's.
  auto base_weight = [&](const std::string& module) -> std::pair<const InventoryTensor*, bool> {
    const size_t dot = module.find('.');
    for (const std::string& m : {module, dot == std::string::npos ? module : module.substr(dot + 1)})
      for (const char* leaf : {".weight", ".qweight", ".weight_packed"})
        if (auto it = weights.find(m + leaf); it != weights.end())
          return {it->second, std::string_view(leaf) == ".weight"};
    return {nullptr, false};
  };
  // Pairs by module: "base_model.model.<module>.lora_A.weight" (PEFT strips the adapter's name on saving).
  struct Pair {
    const Shape *a = nullptr, *b = nullptr;
    std::string a_name;
  };
  std::map<std::string, Pair> modules;
  for (const auto& [name, shape] : a.lora_weights) {
    const bool is_a = name.find(".lora_A.") != std::string::npos;
    std::string module = name.substr(0, name.find(is_a ? ".lora_A." : ".lora_B."));
    if (module.starts_with("base_model.model.")) module = module.substr(17);
    Pair& p = modules[module];
    (is_a ? p.a : p.b) = &shape;
    if (is_a) p.a_name = name;
  }
  size_t bad = 0;
  std::string first;
  auto fail = [&](const std::string& why) {
    if (bad++ == 0) first = why;
  };
  for (const auto& [module, p] : modules) {
    const auto [w, plain] = base_weight(module);
    if (!w) {
      fail("it targets " + module + ", which the base has no weight for");
      continue;
    }
    const Shape& base_shape = w->shape;
    // Widths only where the base holds the module's matrix as a float matrix (bitsandbytes packs 4-bit
    // weights into [n, 1] bytes).
    const bool matrix = plain && w->dtype && dtype_info(*w->dtype).is_float && base_shape.size() == 2;
    if (!p.a || !p.b || p.a->size() != 2 || p.b->size() != 2 || !matrix) continue;
    const uint64_t rank = (*p.a)[0], in = (*p.a)[1], out = (*p.b)[0];
    // nn.Linear's weight is [out, in]; GPT-2's Conv1D stores [in, out] (PEFT's fan_in_fan_out).
    const bool fits =
        (in == base_shape[1] && out == base_shape[0]) || (in == base_shape[0] && out == base_shape[1]);
    if (!fits)
      fail(module + ": lora_A " + shape_to_string(*p.a) + " and lora_B " + shape_to_string(*p.b) +
           " against the base's " + shape_to_string(base_shape));
    else if ((*p.b)[1] != rank || (a.patterns.empty() && a.r && rank != a.r))
      fail(module + ": rank " + std::to_string(rank) + " (lora_B " + shape_to_string(*p.b) +
           "), where the config says r " + std::to_string(a.r));
  }
  if (!bad) return {};
  return {"the adapter does not fit its base model (PEFT would refuse to load it): " + std::to_string(bad) +
          " LoRA module(s); the first: " + first};
}

}  // namespace ma

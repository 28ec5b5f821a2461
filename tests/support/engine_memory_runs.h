// The runs of ../shared/data/engines/engine-memory.json that `plan --engine vllm|sglang` can be set up for:
// the model's config (or its twin's), the engine's knobs, the devices as the engine saw them, and the
// KV-cache tokens it printed. Shared by the plan tests and ma-bench-plan.
//  - vLLM rows with the device total torch printed ("total_memory=79.19 GiB") and weights as their config
//    stores them (bf16, MXFP4);
//  - SGLang rows with a numeric mem_fraction_static ("auto" is a version-dependent heuristic, not modelled):
//    a row that printed its free memory at start gets a device that leaves exactly that after our start-up
//    figure, otherwise what torch reported for the same card in another row.
#pragma once
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/plan/device_budget.h"
#include "analysis/plan/plan.h"
#include "core/json.h"
#include "io/file_source.h"

namespace ma::test {

struct EngineRun {
  std::string id;
  std::filesystem::path config_dir;
  std::optional<DType> kv_dtype;
  PlanRequest request;
  uint32_t tp = 1, pp = 1;
  uint64_t printed_tokens = 0;
};

// The config of a Hub id in hf-configs: org__name, without -Instruct, or Meta's older "Meta-" naming.
inline std::optional<std::filesystem::path> config_of(const std::filesystem::path& configs, std::string id) {
  id = id.substr(0, id.find(' '));
  const size_t slash = id.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string org = id.substr(0, slash);
  std::vector<std::string> names{id.substr(slash + 1)};
  if (const size_t i = names[0].find("-Instruct"); i != std::string::npos)
    names.push_back(names[0].substr(0, i));
  for (size_t n = names.size(), i = 0; i < n; ++i) names.push_back("Meta-" + names[i]);
  for (const std::string& n : names)
    if (std::filesystem::exists(configs / (org + "__" + n) / "config.json"))
      return configs / (org + "__" + n);
  return std::nullopt;
}

// Every run of ../shared/data/engines/engine-memory.json, and one of them by its id (null when absent; it
// lives as long as the document).
inline json::Document engine_memory_document(const std::filesystem::path& data) {
  return json::Document::parse(read_small_file(data / "engines" / "engine-memory.json", 16 << 20),
                               "engine-memory.json");
}
inline const json::Value* engine_memory_row(const json::Document& doc, std::string_view id) {
  for (const json::Value& row : doc.root().items())
    if (row.find("id")->as_string() == id) return &row;
  return nullptr;
}

inline std::vector<EngineRun> engine_memory_runs(const std::filesystem::path& data,
                                                 const std::string& engine) {
  const json::Document doc = engine_memory_document(data);
  auto torch_total = [&](const std::string& gpu) -> std::optional<std::string> {
    const size_t at = gpu.find("total_memory=");
    if (at == std::string::npos) return std::nullopt;
    std::string t = gpu.substr(at + 13, gpu.find("GiB", at) - at - 13);
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    return t;
  };
  auto torch_total_of_card = [&](const std::string& card) -> std::optional<std::string> {
    for (const json::Value& row : doc.root().items())
      if (const std::string gpu(row.find("gpu")->as_string()); gpu.find(card) != std::string::npos)
        if (auto t = torch_total(gpu)) return t;
    return std::nullopt;
  };
  std::vector<EngineRun> runs;
  for (const json::Value& row : doc.root().items()) {
    if (row.find("engine")->as_string() != engine) continue;
    const json::Value* parsed = row.find("figures_parsed");
    const json::Value* printed = parsed->find("kv_tokens");
    if (!printed || !printed->as_uint() || !*printed->as_uint()) continue;
    EngineRun r;
    r.id = std::string(row.find("id")->as_string());
    r.printed_tokens = *printed->as_uint();
    r.tp = static_cast<uint32_t>(*row.find("tp")->as_uint());
    r.pp = static_cast<uint32_t>(*row.find("pp")->as_uint());
    const std::string id(row.find("model_id")->as_string()), gpu(row.find("gpu")->as_string());
    auto dir = config_of(data / "hf-configs", id);
    // A model whose config is not here may name its twin: "... (Qwen2.5-32B architecture)".
    const std::string arch(row.find("architecture")->as_string());
    if (const size_t end = arch.find(" architecture)"); !dir && end != std::string::npos) {
      const size_t open = arch.rfind('(', end);
      dir = config_of(data / "hf-configs",
                      id.substr(0, id.find('/') + 1) + arch.substr(open + 1, end - open - 1));
    }
    if (!dir) continue;
    r.config_dir = *dir;
    const json::Value* s = row.find("settings");
    PlanRequest& rq = r.request;
    std::optional<std::string> memory;
    if (engine == "vLLM") {
      const std::string quant(row.find("dtype_quantization")->as_string());
      memory = torch_total(gpu);
      if (!memory || (quant != "bf16" && quant.find("MXFP4") == std::string::npos)) continue;
      if (row.find("kv_cache_dtype")->as_string() == "fp8") r.kv_dtype = DType::F8_E4M3;
      rq.engine = PlanEngine::Vllm;
      rq.knobs.gpu_memory_utilization = s->find("gpu_memory_utilization")->as_double();
      rq.knobs.max_num_seqs = *s->find("max_num_seqs")->as_uint();
      rq.knobs.max_num_batched_tokens = *s->find("max_num_batched_tokens")->as_uint();
      rq.knobs.block_size = *s->find("block_size")->as_uint();
      rq.context = *s->find("max_model_len")->as_uint();
    } else {
      const json::Value* fraction = s->find("mem_fraction_static");
      if (!fraction || !fraction->is_number()) continue;
      if (const json::Value* avail = parsed->find("avail_before_weights_gib"))
        memory = std::to_string(avail->as_double() +
                                static_cast<double>(worker_startup_bytes(r.tp)) / (1ull << 30));
      else if (gpu.find("H100") != std::string::npos)
        memory = torch_total_of_card("H100");
      if (!memory) continue;
      rq.engine = PlanEngine::Sglang;
      rq.knobs.mem_fraction_static = fraction->as_double();
      rq.context = 4096;  // SGLang's pool does not depend on it
    }
    rq.gpus = parse_device_spec(std::to_string(r.tp * r.pp) + "x" + *memory + "GiB", "--gpu");
    rq.kv_dtype = r.kv_dtype;
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace ma::test

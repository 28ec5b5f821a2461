// The measured serving runs of ../shared/data/serving/inferencemax.json, each as the serve request its own
// settings make (the model analysed once per config) with what InferenceMAX measured. Shared by the serve
// tests and ma-bench-serve.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/perf/hardware.h"
#include "analysis/serve/serve_precision.h"
#include "analysis/serve/serving_model.h"
#include "analyzed_model.h"
#include "core/json.h"
#include "io/file_source.h"

namespace ma::test {

struct MeasuredRun {
  const AnalyzedModel* model = nullptr;
  std::string group;  // "h200 gpt-oss-120b vllm"
  ServeRequest request;
  double mean_tpot_s = 0, mean_ttft_s = 0, tput_per_gpu = 0;
};

struct MeasuredRuns {
  std::map<std::string, std::unique_ptr<AnalyzedModel>> models;  // by config_dir
  std::vector<MeasuredRun> runs;
};

inline MeasuredRuns inferencemax_runs(const std::filesystem::path& data) {
  const std::filesystem::path file = data / "serving" / "inferencemax.json";
  const json::Document doc = json::Document::parse(read_small_file(file, 64 << 20), file.string());
  MeasuredRuns out;
  for (const json::Value& row : doc.root().items()) {
    const std::string dir(row.find("config_dir")->as_string());
    auto& m = out.models[dir];
    if (!m) m = analyze_dir(data / dir);
    MeasuredRun r;
    r.model = m.get();
    const std::string hw(row.find("hw")->as_string()), engine(row.find("framework")->as_string());
    const std::string model(row.find("model")->as_string());
    r.group = hw + " " + model.substr(model.find('/') + 1) + " " + engine;
    ServeRequest& rq = r.request;
    rq.hw = *find_hardware(hw);
    rq.tp = static_cast<uint32_t>(*row.find("tp")->as_uint());
    rq.ep = static_cast<uint32_t>(*row.find("ep")->as_uint());
    rq.precision = *serve_precision(row.find("precision")->as_string(), m->report.quantization);
    rq.engine = *serve_engine_from_name(engine);
    rq.isl = *row.find("isl")->as_uint();
    rq.osl = *row.find("osl")->as_uint();
    rq.concurrency = *row.find("conc")->as_uint();
    rq.dp_attention = row.find("dp_attention")->as_string() == "true";
    r.mean_tpot_s = row.find("mean_tpot")->as_double();
    r.mean_ttft_s = row.find("mean_ttft")->as_double();
    r.tput_per_gpu = row.find("tput_per_gpu")->as_double();
    out.runs.push_back(std::move(r));
  }
  return out;
}

}  // namespace ma::test

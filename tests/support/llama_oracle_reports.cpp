#include "llama_oracle_reports.h"

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "llama_oracle_support.h"
#include "script_output_cache.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

uint64_t uint_member(const json::Value& o, std::string_view key) {
  const json::Value* v = o.find(key);
  if (!v || !v->as_uint()) throw std::runtime_error("no unsigned '" + std::string(key) + "'");
  return *v->as_uint();
}
int64_t int_member(const json::Value& o, std::string_view key) {
  const json::Value* v = o.find(key);
  if (!v || !v->as_int()) throw std::runtime_error("no integer '" + std::string(key) + "'");
  return *v->as_int();
}
std::string string_member(const json::Value& o, std::string_view key) {
  const json::Value* v = o.find(key);
  if (!v || !v->is_string()) throw std::runtime_error("no string '" + std::string(key) + "'");
  return std::string(v->as_string());
}

LlamaReport parse_report(const fs::path& p) {
  const json::Document d = test::parse_json_file(p);
  const json::Value& r = d.root();
  LlamaReport out;
  out.file = string_member(r, "file");
  out.arch = string_member(r, "arch");
  out.ftype = string_member(r, "ftype");
  out.n_params = uint_member(r, "n_params");
  out.size = uint_member(r, "size");
  out.data_offset = uint_member(r, "data_offset");
  out.n_layer = int_member(r, "n_layer");
  out.n_embd = int_member(r, "n_embd");
  out.n_head = int_member(r, "n_head");
  out.n_ctx_train = int_member(r, "n_ctx_train");
  if (r.find("n_head_kv")) out.n_head_kv = int_member(r, "n_head_kv");
  if (r.find("n_swa")) out.n_swa = int_member(r, "n_swa");
  for (const json::Value& kv : r.find("meta")->items())
    out.meta.emplace_back(std::string(kv.items().at(0).as_string()),
                          std::string(kv.items().at(1).as_string()));
  for (const json::Value& t : r.find("tensors")->items()) {
    LlamaTensor lt;
    lt.type = static_cast<int>(int_member(t, "type"));
    for (const json::Value& n : t.find("ne")->items()) lt.ne.push_back(*n.as_int());
    lt.offset = uint_member(t, "offset");
    lt.size = uint_member(t, "size");
    out.tensors[string_member(t, "name")] = std::move(lt);
  }
  for (const auto& [key, value] : r.find("print_info")->members())
    out.print_info[std::string(key)] = std::string(value.as_string());
  for (const json::Value& v : r.find("is_swa")->items()) out.is_swa.push_back(*v.as_int());
  return out;
}

}  // namespace

uint64_t LlamaReport::rope_factor_elements() const {
  uint64_t n = 0;
  for (const auto& [name, t] : tensors)
    if (name.rfind("rope_freqs.", 0) == 0) n += static_cast<uint64_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]);
  return n;
}

std::string llama_oracle_inputs_key() {
  std::string material;
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(fs::path(MA_SOURCE_DIR) / "tests/oracle"))
    if (e.path().extension() == ".py") inputs.push_back(e.path());
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& p : inputs) material += p.filename().string() + '\0' + read_file(p) + '\0';
  std::vector<fs::directory_entry> libs;
  for (const fs::directory_entry& e : fs::directory_iterator(llama_lib_dir())) libs.push_back(e);
  std::sort(libs.begin(), libs.end());
  for (const fs::directory_entry& e : libs) {
    if (!e.is_regular_file()) continue;
    material += e.path().filename().string() + '\0' + std::to_string(e.file_size()) + '\0' +
                std::to_string(e.last_write_time().time_since_epoch().count()) + '\0';
  }
  return cache_key(material);
}

LlamaOracleRun run_llama_gguf_oracle() {
  LlamaOracleRun run;
  run.skip_reason = llama_oracle_unavailable();
  if (!run.skip_reason.empty()) return run;
  // What the script writes depends only on the scripts and llama.cpp's libraries: without the cache every
  // test of the two suites paid the ~7 s run again (some 80 s of each build's ctest).
  int exit_code = 0;
  const fs::path cache = cached_script_output(
      "llama-gguf-oracle", llama_oracle_inputs_key(),
      [&exit_code](const fs::path& staging) {
        const CommandResult r =
            run_shell(std::string(kOraclePython) + " " +
                      quoted(fs::path(MA_SOURCE_DIR) / "tests/oracle/llama_gguf_oracle.py") + " " +
                      quoted(llama_lib_dir()) + " " + quoted(staging));
        exit_code = r.exit_code;
        return r.exit_code == 0 ? std::string() : r.err;
      },
      run.failure);
  if (cache.empty()) {
    if (exit_code == kLlamaCouldNotLoad) {
      run.skip_reason = "llama.cpp could not load the models it wrote: " + run.failure;
      run.failure.clear();
    } else {
      run.failure = "oracle script failed (" + std::to_string(exit_code) + "): " + run.failure;
    }
    return run;
  }
  run.dir = cache;
  try {
    const json::Document manifest = parse_json_file(run.dir / "manifest.json");
    for (const json::Value& f : manifest.root().find("files")->items())
      run.reports.push_back(parse_report(run.dir / (std::string(f.as_string()) + ".json")));
    for (const json::Value& s : manifest.root().find("skipped")->items())  // optional file types
      std::cout << "[ oracle   ] not written: " << s.items().at(0).as_string() << ": "
                << s.items().at(1).as_string() << "\n";
  } catch (const std::exception& e) {
    run.failure = std::string("bad oracle output: ") + e.what();
  }
  return run;
}

}  // namespace ma::test

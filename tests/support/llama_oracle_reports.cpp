#include "llama_oracle_reports.h"

#include <iostream>
#include <stdexcept>
#include <string_view>

#include "core/json.h"
#include "llama_oracle_support.h"

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

LlamaOracleRun run_llama_gguf_oracle() {
  LlamaOracleRun run;
  run.skip_reason = llama_oracle_unavailable();
  if (!run.skip_reason.empty()) return run;
  run.dir = std::make_unique<TempDir>();
  const CommandResult r = run_shell(std::string(kOraclePython) + " " +
                                    quoted(fs::path(MA_SOURCE_DIR) / "tests/oracle/llama_gguf_oracle.py") +
                                    " " + quoted(llama_lib_dir()) + " " + quoted(run.dir->path()));
  if (r.exit_code == kLlamaCouldNotLoad) {
    run.skip_reason = "llama.cpp could not load the models it wrote: " + r.err;
    return run;
  }
  if (r.exit_code != 0) {
    run.failure = "oracle script failed (" + std::to_string(r.exit_code) + "): " + r.err;
    return run;
  }
  try {
    const json::Document manifest = parse_json_file(run.dir->path() / "manifest.json");
    for (const json::Value& f : manifest.root().find("files")->items())
      run.reports.push_back(parse_report(run.dir->path() / (std::string(f.as_string()) + ".json")));
    for (const json::Value& s : manifest.root().find("skipped")->items())  // optional file types
      std::cout << "[ oracle   ] not written: " << s.items().at(0).as_string() << ": "
                << s.items().at(1).as_string() << "\n";
  } catch (const std::exception& e) {
    run.failure = std::string("bad oracle output: ") + e.what();
  }
  return run;
}

}  // namespace ma::test

// The program's side of the ONNX reader: the model's bytes are read here and handed to the reader module
// (formats/onnx_reader_abi.h), loaded on first use from beside the program.
#include "formats/onnx_model.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/text.h"
#include "formats/onnx_reader_abi.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

constexpr const char* kModuleName = "libma_onnx.so";

// Where the module may be: $MA_ONNX_READER, beside the program or one directory up (the build tree's tests),
// then where this build put it.
std::vector<fs::path> candidates() {
  std::vector<fs::path> out;
  if (const char* env = std::getenv("MA_ONNX_READER"); env && *env) out.emplace_back(env);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(self.parent_path() / kModuleName);
    out.push_back(self.parent_path().parent_path() / kModuleName);
  }
#ifdef MA_ONNX_READER_PATH
  out.emplace_back(MA_ONNX_READER_PATH);
#endif
  return out;
}

OnnxReadFunction load_reader(std::string& why) {
  for (const fs::path& p : candidates()) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) continue;
    void* module = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module) {
      why = dlerror();
      continue;
    }
    if (void* f = dlsym(module, kOnnxReadSymbol)) return reinterpret_cast<OnnxReadFunction>(f);
    why = p.string() + " has no " + kOnnxReadSymbol;
  }
  if (why.empty()) why = std::string(kModuleName) + " is not beside the program";
  return nullptr;
}

OnnxReadFunction reader(const std::string& file) {
  static std::once_flag once;
  static OnnxReadFunction f = nullptr;
  static std::string why;
  std::call_once(once, [] { f = load_reader(why); });
  if (!f) throw Error(ErrorKind::Unsupported, file, "", "the ONNX reader could not be loaded: " + why);
  return f;
}

// Every name the model gives itself, its opsets, tensors, values, dimensions and nodes (subgraph bodies'
// too), which the outputs print and write as JSON: the protobuf's strings are bytes (proto2 does not check
// UTF-8), so text that is not is refused here. metadata_props is no name and is printed nowhere: its values
// may hold line breaks (a JSON document, a licence).
void check_names(const OnnxModel& m, const std::string& file) {
  auto check = [&](const std::string& what, const std::string& name) {
    if (!is_plain_text(name))
      throw Error(ErrorKind::Malformed, file, what + " '" + printable(name) + "'",
                  "the name is not UTF-8 text without control characters");
  };
  check("producer_name", m.producer_name);
  check("producer_version", m.producer_version);
  check("graph name", m.graph_name);
  for (const auto& [domain, version] : m.opsets) check("opset_import domain", domain);
  for (const StoredTensor& t : m.initializers) check("initializer", t.name);
  for (const auto* values : {&m.inputs, &m.outputs, &m.edges})
    for (const OnnxValue& v : *values) {
      check("value", v.name);
      if (v.shape)
        for (const OnnxDim& d : *v.shape) check("value '" + printable(v.name) + "' dimension", d.symbol);
    }
  for (const auto* nodes : {&m.nodes, &m.subgraph_nodes})
    for (const OnnxNode& n : *nodes) {
      check("node", n.name);
      check("node op_type", n.op_type);
      check("node domain", n.domain);
      for (const auto* edges : {&n.inputs, &n.outputs})
        for (const std::string& e : *edges) check("node input/output", e);
    }
}

}  // namespace

OnnxModel read_onnx(const ByteSource& src, const OnnxExternalSize& external_size, const OnnxLimits& limits) {
  if (src.size() > INT_MAX)
    throw Error(ErrorKind::Limit, src.name(), "file size",
                "over 2 GiB, protobuf's limit for one message (larger ONNX models keep their weights in "
                "external data files)");
  const OnnxReadFunction read = reader(src.name());
  std::string bytes;
  src.read_exact(0, src.size(), bytes);
  // The module calls back for each external data file, and exceptions must not cross into it (it carries
  // its own runtime: one unwinding through its frames aborts). A failing look-up is kept here and answered
  // as "no such file", which ends the read; its own error is then the one thrown.
  std::exception_ptr failed;
  const OnnxExternalSize contained = [&](const std::string& location) -> std::optional<uint64_t> {
    if (failed) return std::nullopt;
    try {
      return external_size(location);
    } catch (...) {
      failed = std::current_exception();
      return std::nullopt;
    }
  };
  OnnxReadRequest request{bytes, src.name(), &contained, limits};
  OnnxReadResult result;
  read(&request, &result);
  if (failed) std::rethrow_exception(failed);
  if (result.error_kind)
    throw Error(static_cast<ErrorKind>(result.error_kind), result.file, result.field, result.rule,
                result.offset);
  check_names(result.model, src.name());
  return std::move(result.model);
}

}  // namespace ma

#include "analysis/perf/hardware.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analysis/perf/hardware_rows.h"
#include "core/error.h"
#include "core/json.h"
#include "core/nearest_name.h"
#include "core/text.h"
#include "core/units.h"
#include "io/file_source.h"

namespace ma {
namespace {

Hardware from_row(const HardwareRow& r) {
  Hardware h;
  h.name = r.name;
  h.description = r.description;
  const double peaks[kComputeDTypeCount] = {r.fp32, r.tf32, r.bf16, r.fp16, r.fp8, r.fp4, r.int8};
  std::copy(std::begin(peaks), std::end(peaks), std::begin(h.peak_tflops));
  h.hbm_gbps = r.hbm_gbps;
  h.hbm_gb = r.hbm_gb;
  h.cuda_total_gib = r.cuda_total_gib;
  h.interconnect_gbps = r.interconnect_gbps;
  h.b_sat = r.b_sat;
  h.kernel_overhead_s = r.kernel_overhead_s;
  h.graph_kernel_overhead_s = r.graph_kernel_overhead_s;
  h.scalar_tflops = r.scalar_tflops;
  h.l2_mb = r.l2_mb;
  h.smem_mb = r.smem_mb;
  h.source = r.source;
  return h;
}

// A profile file: a JSON object with Hardware's fields. "base" (a table name) starts from that entry;
// anything else starts from an empty profile, which must then give hbm_gbps and at least one peak. A base
// with fields of other values is no longer that entry, and is not named as if it were: unless the file names
// and describes it itself, its name becomes "h200 modified by FILE" and its description and source say which
// fields FILE changed ("NVIDIA H200 SXM 141 GB, modified by FILE: hbm_gbps").
Hardware parse_profile(const std::string& path) {
  const json::Document doc = json::Document::parse(read_small_file(path, 1 << 20), path);
  const json::Value& root = doc.root();
  auto bad = [&](const std::string& field, const std::string& why) -> Error {
    return Error(ErrorKind::Malformed, path, field, why);
  };
  if (!root.is_object()) throw bad("", "a hardware profile must be a JSON object");

  Hardware h;
  const Hardware* base = nullptr;
  if (const json::Value* b = root.find("base")) {
    if (!b->is_string()) throw bad("base", "must be a hardware name");
    base = find_hardware(b->as_string());
    if (!base)
      throw bad("base", "unknown hardware '" + printable(b->as_string()) + "'; known: " + hardware_names());
    h = *base;
  } else {
    h.name = std::filesystem::path(path).stem().string();
  }

  auto number = [&](const json::Value& v, const std::string& field) {
    if (!v.is_number()) throw bad(field, "must be a number");
    const double d = v.as_double();
    if (!std::isfinite(d) || d < 0)
      throw bad(field, "must be a non-negative number, found " + printable(v.raw()));
    return d;
  };
  auto str_field = [&](const json::Value& v, const std::string& field) {
    if (!v.is_string()) throw bad(field, "must be a string");
    return std::string(v.as_string());
  };

  std::vector<std::string> changed;  // the base's figures this file gives other values
  std::vector<std::string> texts;    // the text fields this file gives (name, description, source)
  for (const json::Member& m : root.members()) {
    const std::string key(m.key);
    if (key == "base") continue;
    bool done = false;
    for (const HardwareTextField& f : hardware_text_fields())
      if (key == f.name) {
        h.*f.member = str_field(m.value, key);
        texts.push_back(key);
        done = true;
      }
    for (const HardwareNumberField& f : hardware_number_fields())
      if (key == f.name) {
        h.*f.member = number(m.value, key);
        if (base && h.*f.member != base->*f.member) changed.push_back(key);
        done = true;
      }
    if (done) continue;
    if (key == "peak_tflops") {
      if (!m.value.is_object()) throw bad(key, "must be an object of TFLOP/s by dtype name");
      for (const json::Member& p : m.value.members()) {
        const std::string field = "peak_tflops." + printable(p.key);
        auto d = compute_dtype_from_name(p.key);
        if (!d) throw bad(field, "unknown dtype (fp32, tf32, bf16, fp16, fp8, fp4, int8)");
        const int i = static_cast<int>(*d);
        h.peak_tflops[i] = number(p.value, field);
        const std::string dtype = "peak_tflops." + std::string(compute_dtype_name(*d));
        if (base && h.peak_tflops[i] != base->peak_tflops[i] &&
            std::find(changed.begin(), changed.end(), dtype) == changed.end())
          changed.push_back(dtype);
      }
    } else {
      throw bad(printable(key), "unknown field");
    }
  }
  // The base's CUDA total was measured on the base's memory: a file that gives another size and no CUDA
  // total of its own has none measured.
  const bool gives_cuda_total = root.find("cuda_total_gib") != nullptr;
  if (base && !gives_cuda_total && h.hbm_gb != base->hbm_gb) h.cuda_total_gib = 0;
  if (h.cuda_total_gib > 0 && h.hbm_gb > 0 && h.cuda_total_gib > h.hbm_gb)
    throw bad("cuda_total_gib",
              "CUDA cannot report more than the device's hbm_gb (" + short_number(h.hbm_gb) + ")");
  if (!(h.hbm_gbps > 0)) throw bad("hbm_gbps", "must be given and positive");
  if (!(h.b_sat > 0)) throw bad("b_sat", "must be positive");
  if (std::none_of(std::begin(h.peak_tflops), std::end(h.peak_tflops), [](double p) { return p > 0; }))
    throw bad("peak_tflops", "at least one dtype needs a positive peak");
  // Elementwise work, softmax and norms run on the CUDA cores: without their rate every step would be timed
  // as if they ran at nothing (a 15 GB decode step took 8.9 s).
  if (!(h.scalar_tflops > 0) && !(h.peak(ComputeDType::FP32) > 0))
    throw bad("scalar_tflops",
              "give scalar_tflops or peak_tflops.fp32: the rate of work off the tensor cores");
  if (base && !changed.empty()) {
    const std::string file = std::filesystem::path(path).filename().string();
    std::string fields;
    for (const std::string& c : changed) fields += (fields.empty() ? "" : ", ") + c;
    auto given = [&](std::string_view field) {
      return std::find(texts.begin(), texts.end(), field) != texts.end();
    };
    if (!given("name")) h.name = base->name + " modified by " + file;
    if (!given("description")) h.description = base->description + ", modified by " + file + ": " + fields;
    if (!given("source")) h.source = base->source + "; modified by profile " + path + ": " + fields;
  }
  if (h.name.empty()) h.name = "custom";
  if (h.description.empty()) h.description = h.name;
  if (h.source.empty()) h.source = "profile " + path;
  return h;
}

bool looks_like_file(const std::string& s) {
  if (s.find('/') != std::string::npos || s.find('\\') != std::string::npos) return true;
  if (s.size() >= 5 && ascii_lower(s.substr(s.size() - 5)) == ".json") return true;
  std::error_code ec;
  return std::filesystem::is_regular_file(s, ec);
}

}  // namespace

std::string_view compute_dtype_name(ComputeDType d) {
  switch (d) {
    case ComputeDType::FP32:
      return "fp32";
    case ComputeDType::TF32:
      return "tf32";
    case ComputeDType::BF16:
      return "bf16";
    case ComputeDType::FP16:
      return "fp16";
    case ComputeDType::FP8:
      return "fp8";
    case ComputeDType::FP4:
      return "fp4";
    case ComputeDType::INT8:
      return "int8";
  }
  return "?";
}

std::optional<ComputeDType> compute_dtype_from_name(std::string_view name) {
  struct Alias {
    std::string_view name;
    ComputeDType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"fp32", ComputeDType::FP32},
      {"float32", ComputeDType::FP32},
      {"f32", ComputeDType::FP32},
      {"float", ComputeDType::FP32},
      {"tf32", ComputeDType::TF32},
      {"tensorfloat32", ComputeDType::TF32},
      {"bf16", ComputeDType::BF16},
      {"bfloat16", ComputeDType::BF16},
      {"fp16", ComputeDType::FP16},
      {"float16", ComputeDType::FP16},
      {"f16", ComputeDType::FP16},
      {"half", ComputeDType::FP16},
      {"fp8", ComputeDType::FP8},
      {"fp8_e4m3", ComputeDType::FP8},
      {"fp8_e5m2", ComputeDType::FP8},
      {"float8_e4m3fn", ComputeDType::FP8},
      {"float8_e4m3fnuz", ComputeDType::FP8},
      {"float8_e5m2", ComputeDType::FP8},
      {"float8_e5m2fnuz", ComputeDType::FP8},
      {"f8_e4m3", ComputeDType::FP8},
      {"f8_e5m2", ComputeDType::FP8},
      {"e4m3", ComputeDType::FP8},
      {"e5m2", ComputeDType::FP8},
      {"fp4", ComputeDType::FP4},
      {"fp4_e2m1", ComputeDType::FP4},
      {"float4_e2m1fn_x2", ComputeDType::FP4},
      {"nvfp4", ComputeDType::FP4},
      {"mxfp4", ComputeDType::FP4},
      {"int8", ComputeDType::INT8},
      {"i8", ComputeDType::INT8},
  };
  const std::string key = ascii_lower(name);
  for (const Alias& a : kAliases)
    if (a.name == key) return a.dtype;
  return std::nullopt;
}

double bytes_per_element(ComputeDType d) {
  switch (d) {
    case ComputeDType::FP32:
    case ComputeDType::TF32:
      return 4;
    case ComputeDType::BF16:
    case ComputeDType::FP16:
      return 2;
    case ComputeDType::FP8:
    case ComputeDType::INT8:
      return 1;
    case ComputeDType::FP4:
      return 0.5;
  }
  return 2;
}

std::span<const HardwareTextField> hardware_text_fields() {
  static constexpr HardwareTextField kFields[] = {
      {"name", &Hardware::name}, {"description", &Hardware::description}, {"source", &Hardware::source}};
  return kFields;
}

std::span<const HardwareNumberField> hardware_number_fields() {
  static constexpr HardwareNumberField kFields[] = {
      {"hbm_gbps", &Hardware::hbm_gbps},
      {"hbm_gb", &Hardware::hbm_gb},
      {"cuda_total_gib", &Hardware::cuda_total_gib},
      {"interconnect_gbps", &Hardware::interconnect_gbps},
      {"b_sat", &Hardware::b_sat},
      {"kernel_overhead_s", &Hardware::kernel_overhead_s},
      {"graph_kernel_overhead_s", &Hardware::graph_kernel_overhead_s},
      {"scalar_tflops", &Hardware::scalar_tflops},
      {"l2_mb", &Hardware::l2_mb},
      {"smem_mb", &Hardware::smem_mb}};
  return kFields;
}

const std::vector<Hardware>& hardware_table() {
  static const std::vector<Hardware> table = [] {
    std::vector<Hardware> t;
    for (const HardwareRow& r : hardware_rows()) t.push_back(from_row(r));
    return t;
  }();
  return table;
}

std::string hardware_names() {
  std::string out;
  for (const Hardware& h : hardware_table()) out += (out.empty() ? "" : ", ") + h.name;
  return out;
}

std::string hardware_like(std::string_view name) {
  std::vector<std::string> keys;
  for (const Hardware& h : hardware_table()) keys.push_back(hardware_key(h.name));
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  const std::optional<std::string_view> near = nearest_name(hardware_key(name), views);
  if (!near) return "";
  // The table's names have keys of their own (find_hardware looks them up by them): the first is the one.
  const size_t row = static_cast<size_t>(std::find(views.begin(), views.end(), *near) - views.begin());
  return did_you_mean(hardware_table()[row].name);
}

std::string hardware_key(std::string_view name) {
  static constexpr std::string_view kVendorWords[] = {"nvidia", "geforce", "tesla", "amd", "instinct"};
  std::string key, word;
  auto end_word = [&] {
    if (std::find(std::begin(kVendorWords), std::end(kVendorWords), word) == std::end(kVendorWords))
      key += word;
    word.clear();
  };
  for (char c : ascii_lower(name)) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += c;
    else
      end_word();
  }
  end_word();
  return key;
}

const Hardware* find_hardware(std::string_view name) {
  const std::string key = hardware_key(name);
  if (key.empty()) return nullptr;
  // Each row's keys, of its name and of the name CUDA reports, computed once: every serve estimate looks up
  // the measured profiles (analysis/perf/achievable.h).
  const std::vector<Hardware>& table = hardware_table();
  static const std::vector<std::pair<std::string, std::string>> row_keys = [&] {
    std::vector<std::pair<std::string, std::string>> k;
    for (size_t i = 0; i < table.size(); ++i)
      k.emplace_back(hardware_key(table[i].name), hardware_key(hardware_rows()[i].reported));
    return k;
  }();
  // NVIDIA's GeForce and workstation cards go by their numbers as often as by "RTX <number>".
  for (const std::string& spelled : {key, "rtx" + key})
    for (size_t i = 0; i < table.size(); ++i)
      if (row_keys[i].first == spelled || row_keys[i].second == spelled) return &table[i];
  return nullptr;
}

namespace {

// Whether `want` (a hardware_key) begins the key of the table name `name` without cutting a number in two
// or leaving off a tier: "h20" does not begin the h200 (the H20 is another card), nor "rtx4070" the
// rtx4070ti (NVIDIA's Ti and Super are cards of their own, not variants of one); "a100" begins the
// a100-40gb (a dash parts its numbers) and "rtx6000" the rtx6000-ada.
bool begins_key(const std::string& want, std::string_view name) {
  std::string key;
  std::vector<bool> joined;  // joined[i]: key[i] follows key[i - 1] in the name with nothing between
  bool parted = true;
  for (char c : ascii_lower(name)) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      parted = true;
      continue;
    }
    joined.push_back(!parted);
    key += c;
    parted = false;
  }
  if (key.rfind(want, 0) != 0) return false;
  const size_t n = want.size();
  auto digit = [&](size_t i) { return std::isdigit(static_cast<unsigned char>(key[i])) != 0; };
  if (n == key.size() || n == 0) return true;
  const std::string_view rest = std::string_view(key).substr(n);
  const bool tier = digit(n - 1) && (rest.starts_with("ti") || rest.starts_with("super"));
  return !tier && !(joined[n] && digit(n - 1) && digit(n));
}

}  // namespace

const Hardware* match_hardware(std::string_view name, std::string_view flag) {
  if (const Hardware* h = find_hardware(name)) return h;
  const std::string want = hardware_key(name);
  if (want.size() < 3) return nullptr;  // "a1", "h" would name whatever table entry began so
  // A unique prefix ("a100-80" is the a100-80gb); measured profiles are only named in full.
  const Hardware* found = nullptr;
  size_t count = 0;
  std::string matches;
  for (const Hardware& h : hardware_table()) {
    // As in find_hardware, "RTX" may be left out ("4060 Ti 16" begins the rtx4060ti-16gb).
    if (!(begins_key(want, h.name) || begins_key("rtx" + want, h.name)) ||
        h.name.find("measured") != std::string::npos)
      continue;
    matches += (matches.empty() ? "" : ", ") + h.name;
    found = &h;
    ++count;
  }
  if (count > 1)
    throw Error(ErrorKind::Usage, "", std::string(flag),
                "'" + printable(name) + "': ambiguous, say which: " + matches);
  return found;
}

Hardware resolve_hardware(const std::string& name_or_file, std::string_view option) {
  if (const Hardware* h = find_hardware(name_or_file)) return *h;
  if (!name_or_file.empty() && looks_like_file(name_or_file)) return parse_profile(name_or_file);
  if (const Hardware* h = match_hardware(name_or_file, option)) return *h;
  throw Error(ErrorKind::Usage, std::string(option), "",
              "unknown hardware '" + printable(name_or_file) + "'" + hardware_like(name_or_file) +
                  "; known: " + hardware_names() + ", or a JSON profile file");
}

double gemm_time_s(const Hardware& hw, ComputeDType dtype, double m, double k, double n) {
  const double peak = hw.peak(dtype);
  if (!(peak > 0)) return std::numeric_limits<double>::infinity();
  const double eta = hw.b_sat > 0 ? std::min(1.0, m / hw.b_sat) : 1.0;
  const double compute_s = 2 * m * k * n / (peak * 1e12 * eta);
  const double bytes = (m * k + k * n) * bytes_per_element(dtype) + m * n * 2;
  const double memory_s = bytes / (hw.hbm_gbps * 1e9);
  return hw.kernel_overhead_s + std::max(compute_s, memory_s);
}

}  // namespace ma

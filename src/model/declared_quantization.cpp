#include "model/declared_quantization.h"

#include <algorithm>
#include <filesystem>

#include "core/glob.h"
#include "core/text.h"
#include "io/file_source.h"

namespace ma {
namespace {

constexpr uint64_t kMaxSideConfigBytes = 16ull << 20;
constexpr uint64_t kMaxBits = 32;

std::optional<uint32_t> read_bits(const ModelConfig& c, std::string_view key) {
  auto b = c.opt_count(key);
  if (!b) return std::nullopt;
  if (*b == 0 || *b > kMaxBits) c.fail(key, "must be between 1 and 32 bits, found " + std::to_string(*b));
  return static_cast<uint32_t>(*b);
}

// group_size: a positive count, or -1 (GPTQ/AWQ: one group spanning the whole input row).
void read_group(const ModelConfig& c, std::string_view key, DeclaredQuantization& d) {
  const json::Value* v = c.raw(key);
  if (!v || v->is_null()) return;
  if (auto i = v->as_int(); i && *i == -1) {
    d.per_channel = true;
    d.qualifiers.push_back("one scale per output channel (" + std::string(key) + " -1)");
    return;
  }
  d.group_size = c.opt_count(key);
  if (d.group_size && *d.group_size == 0) c.fail(key, "must be -1 or at least 1, found 0");
}

void add_ignore(const ModelConfig& c, std::string_view key, DeclaredQuantization& d) {
  for (auto& s : c.strings(key)) d.ignore.push_back(std::move(s));
}

void parse_gptq_awq(const ModelConfig& c, DeclaredQuantization& d) {
  d.bits = read_bits(c, c.has("w_bit") ? "w_bit" : "bits");
  read_group(c, c.has("q_group_size") ? "q_group_size" : "group_size", d);
  if (d.key == "gptq") {
    if (c.flag_or("desc_act", false))
      d.qualifiers.push_back("act-order (desc_act): g_idx maps rows to groups");
    d.qualifiers.push_back(c.flag_or("sym", true) ? "symmetric" : "asymmetric (zero points)");
    std::string fmt = c.string_or("checkpoint_format", "");
    if (!fmt.empty()) d.qualifiers.push_back("checkpoint format " + fmt);
  } else {
    if (c.flag_or("zero_point", true)) d.qualifiers.push_back("asymmetric (zero points)");
    std::string version = c.string_or("version", "");
    if (!version.empty()) d.qualifiers.push_back("kernel layout " + version);
  }
  add_ignore(c, "modules_to_not_convert", d);
}

void parse_bitsandbytes(const ModelConfig& c, DeclaredQuantization& d) {
  if (c.flag_or("load_in_4bit", false)) {
    d.key = "bitsandbytes_4bit";
    d.qualifiers.push_back(ascii_lower(c.string_or("bnb_4bit_quant_type", "fp4")) + " codes");
    if (c.flag_or("bnb_4bit_use_double_quant", false))
      d.qualifiers.push_back("double quantization (the absmax scales themselves 8-bit)");
    std::string compute = c.string_or("bnb_4bit_compute_dtype", "");
    if (!compute.empty()) d.qualifiers.push_back("computes in " + compute);
  } else if (c.flag_or("load_in_8bit", false)) {
    d.key = "bitsandbytes_8bit";
    d.qualifiers.push_back("outliers above llm_int8_threshold " +
                           std::to_string(static_cast<int64_t>(c.number_or("llm_int8_threshold", 6.0))) +
                           " computed in 16-bit");
  }
  add_ignore(c, "llm_int8_skip_modules", d);
}

std::string block_text(const std::vector<int64_t>& block) {
  std::string s;
  for (int64_t b : block) s += (s.empty() ? "" : "x") + std::to_string(b);
  return s;
}

// Elements of one block, or nullopt (with the config blamed) for a non-positive or absurd dimension.
std::optional<uint64_t> block_elements(const ModelConfig& c, std::string_view key,
                                       const std::vector<int64_t>& b) {
  if (b.empty()) return std::nullopt;
  uint64_t n = 1;
  for (int64_t x : b) {
    if (x <= 0 || static_cast<uint64_t>(x) > ModelConfig::kMaxValue)
      c.fail(key, "block dimensions must be between 1 and " + std::to_string(ModelConfig::kMaxValue));
    n *= static_cast<uint64_t>(x);
    if (n > ModelConfig::kMaxValue * ModelConfig::kMaxValue) c.fail(key, "block is implausibly large");
  }
  return n;
}

void parse_fp8(const ModelConfig& c, DeclaredQuantization& d) {
  std::vector<int64_t> block = c.ints("weight_block_size");
  d.group_size = block_elements(c, "weight_block_size", block);
  if (d.group_size && block.size() == 2)
    d.block = {static_cast<uint64_t>(block[0]), static_cast<uint64_t>(block[1])};
  d.qualifiers.push_back(d.group_size ? "one scale per " + block_text(block) + " block"
                                      : "one scale per tensor");
  std::string fmt = c.string_or("fmt", "");
  if (!fmt.empty()) d.qualifiers.push_back("format " + fmt);
  std::string scale_fmt = c.string_or("scale_fmt", "");
  if (scale_fmt == "ue8m0") d.qualifiers.push_back("scales rounded to powers of two (ue8m0)");
  // Engines run these W8A8: the activations quantized to float8 per tensor (static, with the stored
  // input_scale) or per token (dynamic, the default when the config says neither).
  d.activation_scheme = ActivationScheme::Quantized;
  d.activations = QuantizedNumbers{8, true};
  std::string act = c.string_or("activation_scheme", "");
  if (!act.empty()) d.qualifiers.push_back("activations quantized " + act + "ally");
  add_ignore(c, "modules_to_not_convert", d);
}

// The first config group's weight scheme (llm-compressor writes one group for uniform recipes).
void parse_compressed_tensors(const ModelConfig& c, DeclaredQuantization& d) {
  add_ignore(c, "ignore", d);
  if (auto kv = c.sub("kv_cache_scheme")) {
    const std::optional<uint32_t> bits = read_bits(*kv, "num_bits");
    const bool is_float = ascii_lower(kv->string_or("type", "int")) == "float";
    if (bits == 8u) d.kv_cache_dtype = is_float ? DType::F8_E4M3 : DType::I8;
    d.qualifiers.push_back("KV cache " + std::string(is_float ? "float " : "int ") +
                           (bits ? std::to_string(*bits) : "?") + "-bit");
  }
  std::string format = c.string_or("format", "");
  if (!format.empty()) d.qualifiers.push_back("format " + format);
  auto groups = c.sub("config_groups");
  if (!groups) return;
  const json::Value* raw = c.raw("config_groups");
  if (raw->members().empty()) return;
  if (raw->members().size() > 1)
    d.qualifiers.push_back(std::to_string(raw->members().size()) + " config groups, the first shown");
  auto group = groups->sub(raw->members().front().key);
  auto w = group ? group->sub("weights") : std::nullopt;
  if (!w) return;
  d.bits = read_bits(*w, "num_bits");
  std::string type = ascii_lower(w->string_or("type", "int"));
  std::string strategy = ascii_lower(w->string_or("strategy", ""));
  if (strategy == "block") {
    std::vector<int64_t> block = w->ints("block_structure");
    d.group_size = block_elements(*w, "block_structure", block);
    if (d.group_size && block.size() == 2)
      d.block = {static_cast<uint64_t>(block[0]), static_cast<uint64_t>(block[1])};
    if (d.group_size) d.qualifiers.push_back("one scale per " + block_text(block) + " block");
  } else if (strategy == "group" || strategy == "tensor_group") {
    d.group_size = w->opt_count("group_size");
    if (d.group_size == 0u) w->fail("group_size", "must be at least 1");
  } else if (!strategy.empty()) {
    d.qualifiers.push_back("one scale per " + strategy);
  }
  d.qualifiers.push_back(type + " " + (d.bits ? std::to_string(*d.bits) : "?") + "-bit weights");
  if (d.bits) d.weights = QuantizedNumbers{*d.bits, type == "float"};
  // A group that quantizes only the weights (W4A16, W8A16) names no input_activations, or names them null.
  d.activation_scheme = ActivationScheme::WeightOnly;
  if (!w->flag_or("symmetric", true)) d.qualifiers.push_back("asymmetric (weight_zero_point)");
  if (d.bits) {
    if (type == "float")
      d.weight_dtype = *d.bits >= 8 ? DType::F8_E4M3 : DType::U8;
    else
      d.weight_dtype = *d.bits >= 8 ? DType::I8 : DType::I32;
  }
  if (auto a = group->sub("input_activations")) {
    auto bits = read_bits(*a, "num_bits");
    const bool is_float = ascii_lower(a->string_or("type", "int")) == "float";
    if (bits && *bits < 16) {
      d.activation_scheme = ActivationScheme::Quantized;
      d.activations = QuantizedNumbers{*bits, is_float};
    }
    // true or false; llm-compressor's NVFP4 schemes write "local" (scales computed per token group at run
    // time against a stored global scale), which was refused (exit 3) for every such checkpoint.
    const json::Value* dynamic = a->raw("dynamic");
    std::string dyn = dynamic && dynamic->is_string() && dynamic->as_string() == "local" ? "dynamic (local)"
                      : a->flag_or("dynamic", false)                                     ? "dynamic"
                                                                                         : "static";
    d.qualifiers.push_back("activations " + ascii_lower(a->string_or("type", "int")) + " " +
                           (bits ? std::to_string(*bits) : "?") + "-bit, " + dyn);
  }
}

// modelopt (TensorRT Model Optimizer): quant_algo NVFP4 / FP8 / W4A16_AWQ ..., in hf_quant_config.json or in
// config.json as quant_method "modelopt".
void parse_modelopt(const ModelConfig& c, DeclaredQuantization& d) {
  std::string algo = ascii_lower(c.string_or("quant_algo", ""));
  if (algo == "nvfp4")
    d.key = "nvfp4";
  else if (algo == "fp8")
    d.key = "modelopt_fp8";
  else if (algo.find("awq") != std::string::npos)
    d.key = "awq";
  else
    d.key = algo.empty() ? "modelopt" : "modelopt-" + algo;
  // NVFP4 and FP8 quantize the activations too (a stored input_scale per linear); W4A8_AWQ runs them in
  // float8 and W4A16_AWQ keeps them 16-bit. Other algorithms are left to the method's usual practice.
  if (algo == "nvfp4" || algo == "fp8" || algo.find("w4a8") != std::string::npos) {
    d.activation_scheme = ActivationScheme::Quantized;
    d.activations = QuantizedNumbers{algo == "nvfp4" ? 4u : 8u, true};
  } else if (algo.find("w4a16") != std::string::npos) {
    d.activation_scheme = ActivationScheme::WeightOnly;
  }
  read_group(c, "group_size", d);
  std::string kv = c.string_or("kv_cache_quant_algo", "");
  if (!kv.empty()) d.qualifiers.push_back("KV cache " + kv);
  // modelopt writes FP8 (E4M3, per-tensor k/v scales); its NVFP4 cache has no dtype engines share yet.
  if (ascii_lower(kv) == "fp8") d.kv_cache_dtype = DType::F8_E4M3;
  add_ignore(c, "exclude_modules", d);
  add_ignore(c, "ignore", d);
}

void parse_hqq(const ModelConfig& c, DeclaredQuantization& d) {
  std::optional<ModelConfig> w;
  if (auto q = c.sub("quant_config")) w = q->sub("weight_quant_params");
  const ModelConfig& src = w ? *w : c;
  d.bits = read_bits(src, "nbits");
  read_group(src, "group_size", d);
  add_ignore(c, "skip_modules", d);
}

// A quantization_config-like object; `source` says where it was found.
DeclaredQuantization parse_declaration(const ModelConfig& c, std::string source, std::string_view file_hint) {
  DeclaredQuantization d;
  d.source = std::move(source);
  d.key = ascii_lower(c.string_or("quant_method", ""));
  if (d.key.empty() && c.has("quant_algo")) d.key = "modelopt";
  if (d.key.empty() && (c.has("load_in_4bit") || c.has("load_in_8bit"))) d.key = "bitsandbytes";
  if (d.key.empty() && c.has("w_bit")) d.key = "awq";                        // AutoAWQ quant_config.json
  if (d.key.empty() && file_hint == "quantize_config.json") d.key = "gptq";  // AutoGPTQ
  if (d.key.empty() && c.has("config_groups")) d.key = "compressed-tensors";
  if (d.key == "gptq" || d.key == "awq")
    parse_gptq_awq(c, d);
  else if (d.key == "bitsandbytes")
    parse_bitsandbytes(c, d);
  else if (d.key == "fp8")
    parse_fp8(c, d);
  else if (d.key == "compressed-tensors")
    parse_compressed_tensors(c, d);
  else if (d.key == "modelopt")
    parse_modelopt(c, d);
  else if (d.key == "hqq")
    parse_hqq(c, d);
  else if (d.key == "fbgemm_fp8") {
    // FBGEMM's fp8 linear quantizes each token's activations to float8 at run time.
    d.activation_scheme = ActivationScheme::Quantized;
    d.activations = QuantizedNumbers{8, true};
    add_ignore(c, "modules_to_not_convert", d);
  } else {
    // Methods whose fields we do not read: their name, bits when they say, and what they skip.
    if (c.has("bits")) d.bits = read_bits(c, "bits");
    add_ignore(c, "modules_to_not_convert", d);
  }
  return d;
}

// How the report names the method a checkpoint is already quantized with: quant_method, bitsandbytes' width,
// the bits it states, and where it is declared ("bitsandbytes 4-bit (quantization_config)").
DeclaredQuantization labelled(DeclaredQuantization d, const ModelConfig& q, std::string_view where) {
  std::string method = q.string_or("quant_method", "unnamed");
  if (method == "bitsandbytes") method += q.flag_or("load_in_4bit", false) ? " 4-bit" : " 8-bit";
  if (const json::Value* b = q.raw("bits"); b && b->as_uint())
    method += " " + std::to_string(*b->as_uint()) + "-bit";
  d.label = method + " (" + std::string(where) + ")";
  return d;
}

std::optional<ModelConfig> read_side_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  return ModelConfig::parse(read_small_file(p, kMaxSideConfigBytes), p.string());
}

}  // namespace

std::optional<PackedLinearTensor> packed_linear_tensor(const DeclaredQuantization& q, const Shape& logical,
                                                       std::string_view suffix) {
  const bool gptq = q.key == "gptq", awq = q.key == "awq";
  if (!(gptq || awq) || logical.size() != 2 || !q.bits || *q.bits == 0 || *q.bits > 8) return std::nullopt;
  const uint64_t bits = *q.bits, out = logical[0], in = logical[1];
  // GPTQ packs each 32 codes into `bits` int32s (3 bits too: a code may straddle two words); AWQ packs
  // 32 / bits whole codes into one.
  auto packed = [&](uint64_t n) -> std::optional<uint64_t> {
    if (gptq) return n % 32 == 0 ? std::optional(n / 32 * bits) : std::nullopt;
    return 32 % bits == 0 && n % (32 / bits) == 0 ? std::optional(n / (32 / bits)) : std::nullopt;
  };
  if (suffix == "qweight") {
    const std::optional<uint64_t> packed_dim = packed(gptq ? in : out);
    if (!packed_dim) return std::nullopt;
    return PackedLinearTensor{gptq ? Shape{*packed_dim, out} : Shape{in, *packed_dim}, DType::I32};
  }
  if (suffix == "g_idx") return gptq ? std::optional(PackedLinearTensor{{in}, DType::I32}) : std::nullopt;
  if (suffix == "bias") return PackedLinearTensor{{out}, DType::F16};
  const std::optional<uint64_t> group = q.per_channel ? std::optional(in) : q.group_size;
  if (!group || *group == 0) return std::nullopt;
  const uint64_t groups = (in + *group - 1) / *group;
  if (suffix == "scales") return PackedLinearTensor{{groups, out}, DType::F16};
  if (suffix == "qzeros")
    if (const std::optional<uint64_t> cols = packed(out))
      return PackedLinearTensor{{groups, *cols}, DType::I32};
  return std::nullopt;
}

std::optional<DeclaredQuantization> read_declared_quantization(const ModelConfig& cfg,
                                                               const std::filesystem::path& root) {
  for (std::string_view key : {"quantization_config", "compression_config"})
    if (auto q = cfg.sub(key)) {
      DeclaredQuantization d =
          labelled(parse_declaration(*q, "config.json " + std::string(key), ""), *q, key);
      if (cfg.string_or("expert_dtype", "") == "fp4") {
        d.expert_dtype = DType::MXFP4;
        d.qualifiers.push_back("routed experts in MXFP4 (expert_dtype fp4)");
      }
      return d;
    }
  // The root's declaration first (it covers the whole checkpoint), unlike the language-model facts that
  // ModelConfig::language_first() reads from text_config first.
  if (auto text = cfg.sub("text_config"))
    if (auto q = text->sub("quantization_config"))
      return labelled(parse_declaration(*q, "config.json text_config.quantization_config", ""), *q,
                      "text_config.quantization_config");
  if (root.empty()) return std::nullopt;
  if (auto f = read_side_file(root / "hf_quant_config.json"))
    if (auto q = f->sub("quantization")) {
      DeclaredQuantization d;
      d.source = "hf_quant_config.json";
      parse_modelopt(*q, d);
      if (auto producer = f->sub("producer")) {
        std::string name = producer->string_or("name", "");
        if (!name.empty())
          d.qualifiers.push_back("produced by " + name + " " + producer->string_or("version", ""));
      }
      d.label = q->string_or("quant_algo", "modelopt") + " (hf_quant_config.json)";
      return d;
    }
  for (std::string_view name : {"quantize_config.json", "quant_config.json"})
    if (auto f = read_side_file(root / std::string(name))) {
      DeclaredQuantization d = parse_declaration(*f, std::string(name), name);
      d.label = d.key + " (" + std::string(name) + ")";
      return d;
    }
  return std::nullopt;
}

namespace {

// "re:.*mlp\.gate$" -> "*mlp.gate"; nullopt for anything beyond .* , \. , ^ and $.
std::optional<std::string> simple_regex_to_glob(std::string_view re) {
  std::string g;
  bool anchored_end = false;
  if (!re.empty() && re.front() == '^') re.remove_prefix(1);
  if (!re.empty() && re.back() == '$') {
    anchored_end = true;
    re.remove_suffix(1);
  }
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '.' && i + 1 < re.size() && re[i + 1] == '*') {
      g += '*';
      ++i;
    } else if (c == '\\' && i + 1 < re.size() && re[i + 1] == '.') {
      g += '.';
      ++i;
    } else if (std::string_view("[](){}|+?\\*^$").find(c) != std::string_view::npos) {
      return std::nullopt;
    } else {
      g += c;  // a bare '.' is read as the literal dot module names mean by it
    }
  }
  if (!anchored_end) g += '*';  // re.match anchors at the start only
  return g;
}

}  // namespace

namespace {

// The longest run of a glob pattern without wildcards.
std::string longest_literal(std::string_view pattern) {
  std::string_view best;
  for (size_t at = 0; at <= pattern.size();) {
    const size_t star = std::min(pattern.find_first_of("*?", at), pattern.size());
    if (star - at > best.size()) best = pattern.substr(at, star - at);
    at = star + 1;
  }
  return std::string(best);
}

}  // namespace

ModuleMatcher::ModuleMatcher(const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    if (p.starts_with("re:")) {
      if (auto g = simple_regex_to_glob(std::string_view(p).substr(3)))
        globs_.push_back({{*g}, longest_literal(*g)});  // matched against the whole name
      else
        unread_.push_back(p);
    } else if (p.find('*') != std::string::npos) {
      globs_.push_back({{p, p + ".*", "*." + p, "*." + p + ".*"}, longest_literal(p)});
    } else {
      exact_.push_back(p);
    }
  }
  std::sort(exact_.begin(), exact_.end());
}

bool ModuleMatcher::matches(std::string_view module) const {
  // Every dotted run of components: "a.b.c" -> a, a.b, a.b.c, b, b.c, c (none to look up in an empty
  // list: most configs have none, and a dry run asks for each of DeepSeek-V3's 46,000 tensors).
  for (size_t start = 0; !exact_.empty() && start <= module.size();) {
    for (size_t end = start; end <= module.size();) {
      end = module.find('.', end);
      if (end == std::string_view::npos) end = module.size();
      if (std::binary_search(exact_.begin(), exact_.end(), module.substr(start, end - start))) return true;
      ++end;
    }
    size_t dot = module.find('.', start);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (const Glob& g : globs_) {
    if (module.find(g.required) == std::string_view::npos) continue;
    for (const std::string& p : g.patterns)
      if (glob_match(p, module)) return true;
  }
  return false;
}

}  // namespace ma

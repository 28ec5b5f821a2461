#include "model/config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"

namespace ma {

ModelConfig ModelConfig::parse(std::string text, const std::string& file) {
  json::Limits limits;
  limits.max_bytes = 16ull << 20;
  limits.max_values = kMaxJsonValues;
  limits.allow_nonfinite = true;  // transformers writes configs with Python's json, which emits Infinity
  auto doc = std::make_shared<json::Document>(json::Document::parse(std::move(text), file, limits));
  if (!doc->root().is_object()) throw Error(ErrorKind::Malformed, file, "", "config must be a JSON object");
  ModelConfig c;
  c.doc_ = doc;
  c.file_ = std::make_shared<const std::string>(file);
  c.obj_ = &doc->root();
  c.warnings_ = std::make_shared<std::vector<std::string>>();
  return c;
}

ModelConfig ModelConfig::derived(std::string text) const {
  ModelConfig c = parse(std::move(text), file());
  c.warnings_ = warnings_;
  return c;
}

std::string json_kind_text(const json::Value& v) {
  switch (v.type()) {
    case json::Type::Null:
      return "null";
    case json::Type::Bool:
      return "a boolean";
    case json::Type::Number:
      return "a number";
    case json::Type::String:
      return "a string";
    case json::Type::Array:
      return "an array";
    case json::Type::Object:
      return "an object";
  }
  return "a value";
}

void ModelConfig::warn(std::string_view key, const std::string& what) const {
  if (!warnings_) return;
  // The file's name, as other warnings name files: a report never shows a full local path.
  const std::string field = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  std::string line = std::filesystem::path(*file_).filename().string() + ": " + field + ": " + what;
  if (std::find(warnings_->begin(), warnings_->end(), line) == warnings_->end())
    warnings_->push_back(std::move(line));
}

const std::vector<std::string>& ModelConfig::warnings() const {
  static const std::vector<std::string> kNone;
  return warnings_ ? *warnings_ : kNone;
}

void ModelConfig::fail(std::string_view key, const std::string& rule) const {
  std::string field = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  throw Error(ErrorKind::Malformed, *file_, field, rule);
}

const json::Value* ModelConfig::raw(std::string_view key) const {
  return obj_->find(key);
}

bool ModelConfig::has(std::string_view key) const {
  const json::Value* v = raw(key);
  return v && !v->is_null();
}

std::optional<uint64_t> ModelConfig::opt_count(std::string_view key) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::nullopt;
  auto capped = [&](uint64_t u) {
    if (u > kMaxValue)
      fail(key,
           "value " + std::to_string(u) + " is implausibly large (cap " + std::to_string(kMaxValue) + ")");
    return u;
  };
  if (auto u = v->as_uint()) return capped(*u);
  // Integral floats ("4096.0") occur in hand-edited configs; Python would accept them as ints only with a
  // cast, transformers keeps them as floats, so we reject anything non-integral.
  if (v->is_number() && v->as_double() >= 0 && v->as_double() < 9e15 &&
      static_cast<double>(static_cast<uint64_t>(v->as_double())) == v->as_double())
    return capped(static_cast<uint64_t>(v->as_double()));
  fail(key, std::string("must be a non-negative integer, found ") + (v->is_number()   ? printable(v->raw())
                                                                     : v->is_string() ? "a string"
                                                                                      : "a non-number"));
}

uint64_t ModelConfig::count_or(std::string_view key, uint64_t dflt) const {
  return opt_count(key).value_or(dflt);
}

uint64_t ModelConfig::dim_or(std::string_view key, uint64_t dflt) const {
  auto v = opt_count(key);
  if (v && *v == 0) fail(key, "must be at least 1, found 0");
  return v.value_or(dflt);
}

uint64_t ModelConfig::layers_or(std::string_view key, uint64_t dflt, uint64_t min) const {
  // Any depth past the cap is the same resource limit (exit 5), checked before opt_count's value cap, which
  // would call a depth of 10^12 malformed (exit 3) and one of 2,000 a limit.
  if (const json::Value* r = raw(key);
      r && r->is_number() && r->as_double() > static_cast<double>(kMaxLayers))
    too_many_layers(key, printable(r->raw()));
  if (const json::Value* r = raw(key); r && r->is_null())
    warn(key, "is null: read as absent, the default " + std::to_string(dflt) +
                  " assumed (transformers keeps None, with which most models cannot be built)");
  const std::optional<uint64_t> v = opt_count(key);
  if (!v) return dflt;
  if (*v < min) fail(key, "must be at least " + std::to_string(min) + ", found " + std::to_string(*v));
  check_layer_list(key, *v);
  return *v;
}

void ModelConfig::check_layer_list(std::string_view key, size_t entries) const {
  if (entries > kMaxLayers) too_many_layers(key, std::to_string(entries));
}

void ModelConfig::too_many_layers(std::string_view key, const std::string& layers) const {
  throw Error(ErrorKind::Limit, *file_, path_.empty() ? std::string(key) : path_ + "." + std::string(key),
              layers + " layers is implausible: real models have fewer than 200 (cap " +
                  std::to_string(kMaxLayers) + ")");
}

uint64_t ModelConfig::dim(std::string_view key) const {
  if (!has(key)) fail(key, "required field is missing");
  return dim_or(key, 0);
}

double ModelConfig::number_or(std::string_view key, double dflt) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return dflt;
  if (!v->is_number()) fail(key, "must be a number");
  return v->as_double();
}

bool ModelConfig::flag_or(std::string_view key, bool dflt) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return dflt;
  if (!v->is_bool()) fail(key, "must be true or false");
  return v->as_bool();
}

std::string ModelConfig::string_or(std::string_view key, std::string_view dflt) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::string(dflt);
  if (!v->is_string()) fail(key, "must be a string");
  return std::string(v->as_string());
}

std::vector<std::string> ModelConfig::strings(std::string_view key) const {
  std::vector<std::string> out;
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) fail(key, "must be an array of strings");
  for (const auto& item : v->items()) {
    if (!item.is_string()) fail(key, "must be an array of strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

std::vector<uint64_t> ModelConfig::dims_or(std::string_view key, std::vector<uint64_t> dflt) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return dflt;
  std::vector<uint64_t> out;
  for (int64_t i : ints(key)) {
    if (i < 1 || static_cast<uint64_t>(i) > kMaxValue) fail(key, "entries must be positive integers");
    out.push_back(static_cast<uint64_t>(i));
  }
  return out;
}

std::vector<int64_t> ModelConfig::ints(std::string_view key) const {
  std::vector<int64_t> out;
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) fail(key, "must be an array of integers");
  for (const auto& item : v->items()) {
    auto i = item.as_int();
    if (!i) fail(key, "must be an array of integers");
    out.push_back(*i);
  }
  return out;
}

std::optional<ModelConfig> ModelConfig::sub(std::string_view key) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_object()) fail(key, "must be an object");
  ModelConfig c = *this;
  c.obj_ = v;
  c.path_ = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  return c;
}

namespace {
// The warning for a described value of the wrong type.
std::string described_left_out(const json::Value& v, std::string_view wanted) {
  return "must be " + std::string(wanted) + ", found " + json_kind_text(v) + ": left out of the report";
}
}  // namespace

std::optional<double> ModelConfig::described_number(std::string_view key) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_number()) {
    warn(key, described_left_out(*v, "a number"));
    return std::nullopt;
  }
  if (!std::isfinite(v->as_double())) {
    warn(key, "must be a finite number, found " + printable(v->raw()) + ": left out of the report");
    return std::nullopt;
  }
  return v->as_double();
}

std::optional<std::string> ModelConfig::described_text(std::string_view key) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    warn(key, described_left_out(*v, "a string"));
    return std::nullopt;
  }
  return std::string(v->as_string());
}

std::optional<bool> ModelConfig::described_flag(std::string_view key) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_bool()) {
    warn(key, described_left_out(*v, "true or false"));
    return std::nullopt;
  }
  return v->as_bool();
}

std::optional<ModelConfig> ModelConfig::described_object(std::string_view key) const {
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_object()) {
    warn(key, described_left_out(*v, "an object"));
    return std::nullopt;
  }
  return sub(key);
}

std::vector<ModelConfig> ModelConfig::language_first() const {
  std::vector<ModelConfig> out;
  // The omni models (Qwen2.5-Omni, Qwen3-Omni) nest their language model one level deeper, in the thinker's
  // config.
  if (const json::Value* th = raw("thinker_config"); th && th->is_object()) {
    const ModelConfig thinker = *sub("thinker_config");
    if (const json::Value* t = thinker.raw("text_config"); t && t->is_object())
      out.push_back(*thinker.sub("text_config"));
  }
  if (const json::Value* t = raw("text_config"); t && t->is_object()) out.push_back(*sub("text_config"));
  out.push_back(*this);
  return out;
}

std::vector<ModelConfig> ModelConfig::objects(std::string_view key) const {
  std::vector<ModelConfig> out;
  const json::Value* v = raw(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) fail(key, "must be an array of objects");
  const std::string at = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  for (size_t i = 0; i < v->items().size(); ++i) {
    if (!v->items()[i].is_object()) fail(key, "must be an array of objects");
    ModelConfig c = *this;
    c.obj_ = &v->items()[i];
    c.path_ = at + "[" + std::to_string(i) + "]";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ma

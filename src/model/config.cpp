#include "model/config.h"

#include "core/error.h"

namespace ma {

ModelConfig ModelConfig::parse(std::string text, const std::string& file) {
  json::Limits limits;
  limits.max_bytes = 16ull << 20;
  limits.allow_nonfinite = true;  // transformers writes configs with Python's json, which emits Infinity
  auto doc = std::make_shared<json::Document>(json::Document::parse(std::move(text), file, limits));
  if (!doc->root().is_object()) throw Error(ErrorKind::Malformed, file, "", "config must be a JSON object");
  ModelConfig c;
  c.doc_ = doc;
  c.file_ = std::make_shared<const std::string>(file);
  c.obj_ = &doc->root();
  return c;
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

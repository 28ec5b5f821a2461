#include "model/families/nested_model.h"

#include <utility>

#include "core/json.h"
#include "model/families/multimodal_towers.h"
#include "model/layer_shapes.h"

namespace ma::families {

ModelTemplate nested_model(const ModelConfig& sub, BuildFn build, std::string_view model_type,
                           const std::string& prefix) {
  ModelTemplate inner;
  inner.arch.model_type = model_type;
  build(sub, inner);
  // Its layers take its own record's dimensions, not the composite's (TrOCR's ViT has 12 heads, its decoder
  // 16): the composite's record is one of the nested models', or its own.
  complete_layer_shapes(inner.arch);
  inner.rename_module("", prefix);  // every name moves under the prefix
  return inner;
}

ModelConfig as_auto_class(const ModelConfig& cfg, std::string_view key, std::string_view cls) {
  const json::Value* v = cfg.raw(key);
  if (!v || !v->is_object()) cfg.fail(key, "must be an object: the composite builds nothing without it");
  std::string text = "{";
  json::append_quoted(text, key);
  text += ":{";
  if (!cls.empty()) {
    text += "\"architectures\":[";
    json::append_quoted(text, cls);
    text += "]";
  }
  std::string body;
  json::append_value(body, *v, "architectures");
  if (body.size() > 2) {
    if (!cls.empty()) text += ',';
    text.append(body, 1, body.size() - 2);
  }
  text += "}}";
  return *cfg.derived(std::move(text)).sub(key);
}

std::string sub_model_type(const ModelConfig& cfg, std::string_view key) {
  const ModelConfig sub = sub_or_empty(cfg, key);
  if (!sub.has("model_type")) cfg.fail(std::string(key) + ".model_type", "is required in a composite config");
  return sub.string_or("model_type", "");
}

void append_model(ModelTemplate& t, ModelTemplate&& inner) {
  t.charge(inner.entries);
  t.tensors.insert(t.tensors.end(), std::make_move_iterator(inner.tensors.begin()),
                   std::make_move_iterator(inner.tensors.end()));
  t.known_extras.insert(t.known_extras.end(), std::make_move_iterator(inner.known_extras.begin()),
                        std::make_move_iterator(inner.known_extras.end()));
}

}  // namespace ma::families

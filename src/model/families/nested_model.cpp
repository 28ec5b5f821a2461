#include "model/families/nested_model.h"

#include <utility>

namespace ma::families {

ModelTemplate nested_model(const ModelConfig& sub, BuildFn build, std::string_view model_type,
                           const std::string& prefix) {
  ModelTemplate inner;
  inner.arch.model_type = model_type;
  build(sub, inner);
  for (TemplateTensor& x : inner.tensors) {
    x.name = prefix + x.name;
    if (!x.tied_to.empty()) x.tied_to = prefix + x.tied_to;
    for (DiskPiece& p : x.disk) p.name = prefix + p.name;
    if (x.per_expert) x.per_expert->prefix = prefix + x.per_expert->prefix;
  }
  for (ModelTemplate::KnownExtra& e : inner.known_extras) e.prefix = prefix + e.prefix;
  for (StackSpec& s : inner.arch.stacks) s.path = prefix + s.path;
  return inner;
}

void append_model(ModelTemplate& t, ModelTemplate&& inner) {
  t.charge(inner.entries);
  t.tensors.insert(t.tensors.end(), std::make_move_iterator(inner.tensors.begin()),
                   std::make_move_iterator(inner.tensors.end()));
  t.known_extras.insert(t.known_extras.end(), std::make_move_iterator(inner.known_extras.begin()),
                        std::make_move_iterator(inner.known_extras.end()));
}

}  // namespace ma::families

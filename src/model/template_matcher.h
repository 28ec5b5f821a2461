// Matches the tensor names a checkpoint stores against the tensors a template predicts, in their on-disk
// form: exact names, names saved without the base-model prefix, packed quantized weights (X.qweight or
// X.weight_packed for X.weight, experts' slices too), one expert's slice of a fused experts tensor, and tied
// copies some checkpoints store anyway. Remembers what it matched, so what the checkpoint lacks can be listed
// afterwards.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/name_index.h"
#include "model/expert_patterns.h"
#include "model/model_template.h"

namespace ma {

struct TemplateMatch {
  enum class How { None, Exact, ExpertPiece, TiedCopy };
  How how = How::None;  // None: the template does not predict this name
  const TemplateTensor* tensor = nullptr;
  const Shape* shape = nullptr;  // the shape the template predicts for this stored tensor
  DType dtype = DType::F32;      // the dtype it would be stored in (config dtype unless the piece says)
  TensorKind kind = TensorKind::Parameter;
  uint64_t order = 0;        // template order: tensor index, then piece
  bool model_dtype = false;  // `dtype` is the model's (the matcher's), not one a quantized piece fixes
  // The stored tensor is the match's packed quantized form (GPTQ/AWQ X.qweight, compressed-tensors
  // X.weight_packed for X.weight): its shape and dtype are the packing's, not `shape`.
  bool packed = false;
  explicit operator bool() const { return how != How::None; }
};

class TemplateMatcher {
 public:
  TemplateMatcher(const ModelTemplate& model, DType dtype);
  TemplateMatcher(const TemplateMatcher&) = delete;
  TemplateMatcher& operator=(const TemplateMatcher&) = delete;

  // Safe to call from several threads at once for distinct stored names.
  TemplateMatch match(const std::string& stored_name);
  // Parameters the template predicts that no match() call found: f(on-disk name, shape).
  void for_each_unmatched(const std::function<void(const std::string&, const Shape&)>& f) const;
  // Tensors that share another's storage and that no stored tensor was found for (match() saw none by its
  // name): f(match describing it, on-disk name).
  void for_each_tied_copy(const std::function<void(const TemplateMatch&, const std::string&)>& f) const;
  size_t tied_copies() const { return tied_copies_; }
  // The shape the template predicts for the on-disk name `name` (saved with or without the base-model
  // prefix), recording no match: what the tensors a quantizer stores beside a packed weight are sized from.
  const Shape* predicted_shape(std::string_view name) const;

 private:
  // One on-disk tensor the template spells out: a view into the template, not a copy.
  struct Expected {
    const TemplateTensor* tensor;
    const std::string* name;
    const Shape* shape;
    DType dtype;
    TensorKind kind;
    uint64_t order;
    bool model_dtype;
  };
  std::optional<uint32_t> find_stored(std::string_view name) const;
  // The stored tensor `name` names, `found` being its own lookup, or the one it names with a base prefix.
  std::optional<uint32_t> find_exact(std::string_view name, std::optional<uint32_t> found) const;
  TemplateMatch from(const Expected& e, TemplateMatch::How how) const;
  TemplateMatch expert_piece(const ExpertPatterns::Hit& piece);

  const ModelTemplate& model_;
  DType dtype_;
  std::vector<Expected> expected_;
  NameIndex by_name_;
  std::vector<std::string> base_prefixes_;
  // The template is a bare base model (BertModel, LayoutLMModel, LlamaModel): checkpoints saved from its task
  // classes hold its names under the base-model prefix (bert., layoutlm., model.), which transformers strips
  // when it loads them into it.
  bool base_model_ = false;
  size_t tied_copies_ = 0;
  ExpertPatterns patterns_;
  // No form in which the template's own names can be stored (as named, packed, without a base prefix)
  // matches an expert pattern: a name that does is an expert piece, and the name lookups that would all miss
  // are skipped (DeepSeek-V3's 44,544 expert names). False for a template that could be ambiguous.
  bool patterns_first_ = false;
  // Bytes, not vector<bool> bits: concurrent match() calls mark distinct entries without a data race.
  std::vector<uint8_t> seen_, pieces_seen_;
};

}  // namespace ma

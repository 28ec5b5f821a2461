#include "model/template_matcher.h"

#include <algorithm>

namespace ma {
namespace {

// A quantized checkpoint stores packed integers where the model has `X.weight`: `X.qweight` (GPTQ, AWQ) or
// `X.weight_packed` (compressed-tensors' pack-quantized format: llm-compressor's W4A16, Kimi-K2-Thinking).
std::string unpacked_name(std::string_view name) {
  for (std::string_view packed : {".qweight", ".weight_packed"})
    if (name.size() > packed.size() && name.ends_with(packed))
      return std::string(name.substr(0, name.size() - packed.size())) + ".weight";
  return {};
}

uint64_t order_key(uint32_t tensor, uint64_t piece) {
  return (uint64_t{tensor} << 32) | piece;
}

}  // namespace

TemplateMatcher::TemplateMatcher(const ModelTemplate& model, DType dtype)
    : model_(model), dtype_(dtype), by_name_(0, nullptr, nullptr), patterns_(model) {
  const std::string& cls = model.arch.architecture;
  base_model_ = cls.ends_with("Model") && cls.find("For") == std::string::npos &&
                cls.find("LMHead") == std::string::npos;
  for (uint32_t i = 0; i < model.tensors.size(); ++i) {
    const TemplateTensor& tt = model.tensors[i];
    if (tt.stored && (tt.per_expert || tt.fused_on_disk)) continue;  // patterns_; another's piece
    if (!tt.stored || tt.disk.empty()) {
      expected_.push_back({&tt, &tt.name, &tt.shape, dtype, tt.kind, order_key(i, 0), true});
      continue;
    }
    for (uint32_t p = 0; p < tt.disk.size(); ++p) {
      const DiskPiece& d = tt.disk[p];
      expected_.push_back({&tt, &d.name, &d.shape, d.dtype.value_or(dtype), d.kind.value_or(tt.kind),
                           order_key(i, p), !d.dtype.has_value()});
    }
  }
  for (uint32_t i = 0; i < expected_.size(); ++i) {
    const std::string& n = *expected_[i].name;
    if (!expected_[i].tensor->stored) {
      ++tied_copies_;
      continue;
    }
    const size_t dot = n.find('.');
    if (dot == std::string::npos) continue;  // a root name (DeepSeek-V4's hc_head_fn) has no base prefix
    std::string first = n.substr(0, dot + 1);
    if (std::find(base_prefixes_.begin(), base_prefixes_.end(), first) == base_prefixes_.end())
      base_prefixes_.push_back(first);
  }
  by_name_ = NameIndex(
      static_cast<uint32_t>(expected_.size()),
      [](const void* c, uint32_t i) { return std::string_view(*static_cast<const Expected*>(c)[i].name); },
      expected_.data());
  seen_.assign(expected_.size(), 0);
  pieces_seen_.assign(patterns_.slots(), 0);
  patterns_first_ =
      !patterns_.empty() && std::none_of(expected_.begin(), expected_.end(), [&](const Expected& e) {
        const std::string& n = *e.name;
        std::vector<std::string> forms = {n};
        for (const std::string& p : base_prefixes_)
          if (n.compare(0, p.size(), p) == 0) forms.push_back(n.substr(p.size()));
        for (size_t k = 0, plain = forms.size(); k < plain; ++k)
          if (std::string_view(forms[k]).ends_with(".weight"))
            forms.push_back(forms[k].substr(0, forms[k].size() - 7) + ".qweight");
        return std::any_of(forms.begin(), forms.end(),
                           [&](const std::string& f) { return patterns_.match(f).has_value(); });
      });
}

std::optional<uint32_t> TemplateMatcher::find_stored(std::string_view name) const {
  auto i = by_name_.find(name);
  if (i && !expected_[*i].tensor->stored) return std::nullopt;  // a tied copy's name: handled separately
  return i;
}

TemplateMatch TemplateMatcher::from(const Expected& e, TemplateMatch::How how) const {
  return {how, e.tensor, e.shape, e.dtype, e.kind, e.order, e.model_dtype};
}

std::optional<uint32_t> TemplateMatcher::find_exact(std::string_view name,
                                                    std::optional<uint32_t> found) const {
  if (found && expected_[*found].tensor->stored) return found;
  // Checkpoints saved from the base model omit its prefix (GPT-2's "h.0.attn..." for "transformer.h.0...");
  // a name that already starts with one of the template's prefixes was not saved that way.
  for (const std::string& p : base_prefixes_)
    if (name.substr(0, p.size()) == p) return std::nullopt;
  for (const std::string& p : base_prefixes_) {
    std::string prefixed = p;
    prefixed.append(name);
    if (auto i = find_stored(prefixed)) return i;
  }
  if (const size_t dot = name.find('.'); base_model_ && dot != std::string_view::npos)
    return find_stored(name.substr(dot + 1));
  return std::nullopt;
}

const Shape* TemplateMatcher::predicted_shape(std::string_view name) const {
  const std::optional<uint32_t> i = find_exact(name, by_name_.find(name));
  return i ? expected_[*i].shape : nullptr;
}

TemplateMatch TemplateMatcher::match(const std::string& stored_name) {
  if (patterns_first_)
    if (auto piece = patterns_.match(stored_name)) return expert_piece(*piece);
  // One lookup of the name as stored says both whether the template stores it and whether it is a tied
  // copy's name (tied copies are in by_name_ too).
  const std::optional<uint32_t> as_stored = by_name_.find(stored_name);
  if (auto i = find_exact(stored_name, as_stored)) {
    seen_[*i] = 1;
    return from(expected_[*i], TemplateMatch::How::Exact);
  }
  if (std::string u = unpacked_name(stored_name); !u.empty()) {
    TemplateMatch m;
    if (auto i = find_exact(u, by_name_.find(u))) {
      seen_[*i] = 1;
      m = from(expected_[*i], TemplateMatch::How::Exact);
    } else if (auto piece = patterns_.match(u)) {
      m = expert_piece(*piece);
    }
    m.packed = m.how != TemplateMatch::How::None;
    if (m.packed) return m;
  }
  if (as_stored && !expected_[*as_stored].tensor->stored) {
    seen_[*as_stored] = 1;  // stored after all: its row is this one, not a second, unstored one
    return from(expected_[*as_stored], TemplateMatch::How::TiedCopy);
  }
  if (!patterns_first_)
    if (auto piece = patterns_.match(stored_name)) return expert_piece(*piece);
  return {};
}

TemplateMatch TemplateMatcher::expert_piece(const ExpertPatterns::Hit& piece) {
  pieces_seen_[piece.slot] = 1;
  const TemplateTensor& tt = model_.tensors[piece.tensor_index];
  const PerExpertPieces& pe = *tt.per_expert;
  const PerExpertPieces::Part& part = pe.parts[piece.part];
  return TemplateMatch{TemplateMatch::How::ExpertPiece,
                       &tt,
                       &part.shape,
                       part.dtype.value_or(dtype_),
                       part.kind.value_or(tt.kind),
                       order_key(piece.tensor_index, uint64_t{piece.expert} * pe.parts.size() + piece.part),
                       !part.dtype.has_value()};
}

void TemplateMatcher::for_each_unmatched(
    const std::function<void(const std::string&, const Shape&)>& f) const {
  for (size_t i = 0; i < expected_.size(); ++i)
    if (!seen_[i] && expected_[i].tensor->stored && !expected_[i].tensor->rebuilt_on_load &&
        expected_[i].kind == TensorKind::Parameter)
      f(*expected_[i].name, *expected_[i].shape);
  patterns_.for_each_piece([&](uint32_t tensor, uint32_t expert, uint32_t part, uint64_t slot) {
    const TemplateTensor& tt = model_.tensors[tensor];
    const PerExpertPieces::Part& p = tt.per_expert->parts[part];
    if (!pieces_seen_[slot] && p.kind.value_or(tt.kind) == TensorKind::Parameter)
      f(tt.per_expert->name(expert, part), p.shape);
  });
}

void TemplateMatcher::for_each_tied_copy(
    const std::function<void(const TemplateMatch&, const std::string&)>& f) const {
  for (size_t i = 0; i < expected_.size(); ++i)
    if (!expected_[i].tensor->stored && !seen_[i])
      f(from(expected_[i], TemplateMatch::How::TiedCopy), *expected_[i].name);
}

}  // namespace ma

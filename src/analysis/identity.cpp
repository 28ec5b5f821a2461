#include "analysis/identity.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <vector>

#include "model/family_table.h"

namespace ma {
namespace {

// Model-id words that say how the model was trained after pretraining. "it" is Gemma's "instruction-tuned".
constexpr std::array<std::string_view, 7> kInstructWords = {"instruct", "it",   "sft", "inst",
                                                            "thinking", "rlhf", "dpo"};
constexpr std::array<std::string_view, 1> kChatWords = {"chat"};
constexpr std::array<std::string_view, 1> kBaseWords = {"base"};
// Weight-file and config extensions: a path ending in one names a file, whose directory names the model.
constexpr std::array<std::string_view, 8> kFileExtensions = {".json", ".safetensors", ".gguf", ".bin",
                                                             ".pt",   ".pth",         ".onnx", ".ckpt"};

struct FamilyMatch {
  const FamilyRow* row = nullptr;
  std::string evidence;
};

std::string in_quotes(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// Among rows sharing a model_type, the one whose id pattern matches longest; the first row otherwise.
FamilyMatch pick_variant(const std::vector<const FamilyRow*>& rows, const std::string& id,
                         std::string evidence) {
  FamilyMatch m{rows.front(), std::move(evidence)};
  std::string_view best;
  for (const FamilyRow* r : rows) {
    std::string_view p = matching_id_pattern(*r, id);
    if (p.size() > best.size()) best = p, m.row = r;
  }
  if (!best.empty() && rows.size() > 1) m.evidence += " + " + in_quotes(best) + " in the model id";
  return m;
}

FamilyMatch match_by_id(const std::string& id, const std::vector<const FamilyRow*>& among) {
  FamilyMatch m;
  std::string_view best;
  for (const FamilyRow* r : among) {
    std::string_view p = matching_id_pattern(*r, id);
    if (p.size() > best.size()) best = p, m.row = r;
  }
  if (m.row) m.evidence = in_quotes(best) + " in the model id";
  return m;
}

bool markers_match(const FamilyRow& row, const std::vector<InventoryTensor>& tensors) {
  auto items = list_items(row.tensor_markers);
  if (items.empty()) return false;
  for (std::string_view marker : items) {
    bool negative = marker.starts_with('!');
    if (negative) marker.remove_prefix(1);
    bool found = std::any_of(tensors.begin(), tensors.end(), [&](const InventoryTensor& t) {
      return t.name.find(marker) != std::string::npos;
    });
    if (found == negative) return false;
  }
  return true;
}

// Weights without a config: families whose tensor names are distinctive. Several fitting (GPT-2 and
// StarCoder store the same names) is settled by the model id or reported as ambiguous.
FamilyMatch match_by_tensors(const Inventory& inv, const std::string& id, std::string& ambiguity) {
  std::vector<const FamilyRow*> fits;
  for (const FamilyRow& row : family_table())
    if (markers_match(row, inv.tensors)) fits.push_back(&row);
  if (fits.size() == 1) return {fits[0], "tensor names (" + std::string(fits[0]->tensor_markers) + ")"};
  if (fits.empty()) return {};
  FamilyMatch by_id = match_by_id(id, fits);
  if (by_id.row) return {by_id.row, "tensor names + " + by_id.evidence};
  for (const FamilyRow* r : fits) ambiguity += (ambiguity.empty() ? "" : ", ") + std::string(r->name);
  return {};
}

FamilyMatch match_family(const ReportInputs& in, const std::string& model_type, const std::string& arch_class,
                         const std::string& id, std::string& ambiguity) {
  auto by_type = families_for_model_type(model_type);
  if (!by_type.empty()) return pick_variant(by_type, id, "model_type " + in_quotes(model_type));
  if (const FamilyRow* row = family_for_architecture(arch_class)) {
    auto variants = families_for_model_type(list_items(row->model_types).front());
    return pick_variant(variants, id, "architectures[0] " + in_quotes(arch_class));
  }
  if (!in.inventory.config && !in.inventory.tensors.empty()) {
    FamilyMatch m = match_by_tensors(in.inventory, id, ambiguity);
    if (m.row) return m;
  }
  std::vector<const FamilyRow*> all;
  for (const FamilyRow& r : family_table()) all.push_back(&r);
  return match_by_id(id, all);
}

// Class suffix first (a Gemma-3 text-only checkpoint is a causal LM), except that a model with a vision tower
// or of a vision-language family reads images whatever its head, and Whisper's head generates from speech.
void resolve_kind(const ReportInputs& in, const FamilyRow* row, Identity& id) {
  const std::string& tower = in.inventory.arch.vision_key;
  const bool vision = !tower.empty();
  const std::string& cls = id.architecture_class;
  auto family_is = [row](ModelKind k) { return row && row->kind == k; };
  auto set = [&](ModelKind k, std::string why) {
    id.kind = std::string(model_kind_name(k));
    id.kind_evidence = std::move(why);
  };
  if (family_is(ModelKind::Speech)) return set(ModelKind::Speech, "family table (speech model)");
  if (family_is(ModelKind::ImageTextEmbedding))
    return set(ModelKind::ImageTextEmbedding, "family table (contrastive image-text encoders)");
  if (family_is(ModelKind::SpeechEncoder))
    return set(ModelKind::SpeechEncoder, "family table (speech encoder)");
  if (vision) return set(ModelKind::VisionLanguage, tower + " in the config");
  if (family_is(ModelKind::VisionLanguage)) return set(ModelKind::VisionLanguage, "family table");
  // XLM's and FlauBERT's WithLMHeadModel predict masked words (their causal checkpoints are rare).
  if (cls.ends_with("ForMaskedLM") || cls.ends_with("WithLMHeadModel"))
    return set(ModelKind::MaskedLm, "class " + cls);
  if (cls.ends_with("ForCausalLM") || cls.ends_with("LMHeadModel"))
    return set(ModelKind::CausalLm, "class " + cls);
  if (cls.ends_with("ForImageClassification")) return set(ModelKind::Vision, "class " + cls);
  if (cls.ends_with("ForConditionalGeneration") && family_is(ModelKind::Seq2Seq))
    return set(ModelKind::Seq2Seq, "class " + cls + " of an encoder-decoder family");
  if (row) return set(row->kind, "family table");
  id.kind = "unknown";
  id.kind_evidence = "neither the class nor the family says";
}

std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      words.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

template <size_t N>
std::string_view find_word(const std::vector<std::string>& words,
                           const std::array<std::string_view, N>& set) {
  for (const std::string& w : words)
    for (std::string_view s : set)
      if (w == s) return s;
  return {};
}

void resolve_objective(const ReportInputs& in, Identity& id) {
  auto words = words_of(model_name_from_id(id.model_id));
  bool template_known = in.tokenizer.has_value();
  bool chat_template = template_known && in.tokenizer->has_chat_template;
  std::string tpl = chat_template ? "; the tokenizer has a chat template" : "";
  if (auto w = find_word(words, kChatWords); !w.empty()) {
    id.training_objective = "chat";
    id.objective_evidence = "'-" + std::string(w) + "' in the model id" + tpl;
  } else if (auto w2 = find_word(words, kInstructWords); !w2.empty()) {
    id.training_objective = "instruct";
    id.objective_evidence = "'-" + std::string(w2) + "' in the model id" + tpl;
  } else if (auto b = find_word(words, kBaseWords); !b.empty()) {
    id.training_objective = "base";
    id.objective_evidence =
        "'-base' in the model id" +
        std::string(chat_template ? " (the tokenizer ships a chat template all the same)" : "");
  } else if (chat_template) {
    id.training_objective = "instruct";
    id.objective_evidence = "the tokenizer has a chat template: at least instruction-tuned";
  } else {
    // Silence is not evidence: many tuned models carry no marker in their name (DeepSeek-V3 is the chat
    // model) and their configs none either, so calling them "base" would be a guess.
    id.training_objective = "unknown";
    id.objective_evidence =
        template_known
            ? "no chat, instruct or base marker in the model id and no chat template"
            : "no chat, instruct or base marker in the model id, and no tokenizer read for a chat template";
  }
}

}  // namespace

std::string model_name_from_id(std::string_view model_id) {
  std::string_view s = model_id;
  while (s.size() > 1 && (s.back() == '/' || s.back() == '\\')) s.remove_suffix(1);
  if (auto at = s.rfind('@'); at != std::string_view::npos && s.find('/', at) == std::string_view::npos)
    s = s.substr(0, at);
  auto last_component = [](std::string_view p) {
    auto slash = p.find_last_of("/\\");
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
  };
  std::string_view last = last_component(s);
  bool is_file = std::any_of(kFileExtensions.begin(), kFileExtensions.end(),
                             [&](std::string_view ext) { return last.ends_with(ext); });
  if (!is_file || last.size() == s.size()) return std::string(last);
  std::string_view parent = last_component(s.substr(0, s.size() - last.size() - 1));
  return std::string(parent) + " " + std::string(last.substr(0, last.rfind('.')));
}

std::string display_name_of(std::string_view model_id) {
  namespace fs = std::filesystem;
  std::string_view s = model_id;
  while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
  std::error_code ec;
  const fs::path p{std::string(s)};
  if (s.empty() || !fs::exists(p, ec)) return std::string(model_id);
  fs::path absolute = fs::absolute(p, ec).lexically_normal();
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "." and "..": the directory they name
  if (fs::is_directory(p, ec)) return absolute.filename().string();
  const std::string dir = absolute.parent_path().filename().string();
  return dir.empty() ? absolute.filename().string() : dir + "/" + absolute.filename().string();
}

Identity identify(const ReportInputs& in) {
  Identity id;
  id.model_id = in.options.model_id;
  id.display_name = display_name_of(id.model_id);
  const ArchitectureRecord& a = in.inventory.arch;
  id.model_type = !a.root_model_type.empty() ? a.root_model_type : a.model_type;
  id.architecture_class = !a.architectures.empty() ? a.architectures.front() : a.architecture;

  // From the name shown (a local directory's own name, "." included), not the argument as typed.
  std::string name = normalize_model_id(model_name_from_id(id.display_name));
  std::string ambiguity;
  FamilyMatch m = match_family(in, id.model_type, id.architecture_class, name, ambiguity);
  if (m.row) {
    id.family = std::string(m.row->name);
    id.organization = std::string(m.row->organization);
    id.family_evidence = std::move(m.evidence);
  } else {
    id.family = "unknown";
    id.family_evidence = !ambiguity.empty() ? "tensor names fit several families: " + ambiguity
                         : id.model_type.empty()
                             ? "no model_type, known class, model id or tensor names"
                             : "model_type " + in_quotes(id.model_type) + " is not in the family table";
  }
  resolve_kind(in, m.row, id);
  resolve_objective(in, id);
  return id;
}

}  // namespace ma

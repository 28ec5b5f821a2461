#include "analysis/builder/simulator_config.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "analysis/builder/class_parameters.h"
#include "analysis/identity.h"
#include "core/error.h"
#include "core/units.h"

namespace ma {
namespace {

// The spec that marks an entry outside total_params and the entries' sum.
constexpr std::string_view kOutsideTotal = "counted_in_total_params";

// The simulator class of an instance: its kind's (layer_components.h), refined for attention (MHA, GQA,
// sliding or sinks, chunked) and for MLPs without a gate.
std::string class_for(const ComponentInstance& c) {
  auto is_set = [&](std::string_view fact) {
    const FactValue* v = find_fact(c.facts, fact);
    return v && !std::holds_alternative<std::monostate>(*v) && *v != FactValue(uint64_t{0});
  };
  if (c.kind == ComponentKind::Attention) {
    if (is_set("attention_chunk_size")) return "ChunkedAttentionLayer";
    // Mantile's SlidingWindowAttentionLayer takes sliding_window = None for full attention, so a model with
    // sinks (gpt-oss) keeps one class for both kinds of its layers.
    if (is_set("sliding_window") || is_set("num_sinks")) return "SlidingWindowAttentionLayer";
    const FactValue* heads = find_fact(c.facts, "num_heads");
    const FactValue* kv = find_fact(c.facts, "num_kv_heads");
    if (heads && kv && *heads == *kv) return "AttentionLayer";
  }
  if (c.kind == ComponentKind::DenseMlp && find_fact(c.facts, "num_projections") &&
      *find_fact(c.facts, "num_projections") != FactValue(uint64_t{3}))
    return "MLPLayer";
  return std::string(component_kind_info(c.kind).simulator_class);
}

// The small terms of an instance that no Mantile class has an argument for, and that change neither what a
// layer computes nor what it reads measurably: bias vectors and position-bias tables ("...bias",
// "relative_attention_bias.weight"), unless the class counted the biases (has_bias set), other vectors
// (DeepSeek's e_score_correction_bias; a norm is a NormLayer instance of its own, BERT's inside its attention
// too) and 1-wide gates (Qwen's shared_expert_gate, [1, hidden]).
uint64_t small_terms(const std::vector<ComponentTensor>& tensors, bool class_counts_biases) {
  uint64_t n = 0;
  for (const ComponentTensor& t : tensors) {
    const std::string_view name = t.name;
    const size_t leaf = name.rfind('.');
    const std::string_view last = leaf == std::string_view::npos ? name : name.substr(leaf + 1);
    const std::string_view module = leaf == std::string_view::npos ? "" : name.substr(0, leaf);
    const std::string_view module_leaf = module.substr(module.rfind('.') + 1);
    const bool bias = last.ends_with("bias") || module_leaf.ends_with("_bias");
    const bool vector = t.shape.size() <= 1 || (t.shape.size() == 2 && (t.shape[0] == 1 || t.shape[1] == 1));
    if (bias ? !class_counts_biases : vector) n += numel(t.shape);
  }
  return n;
}

std::string underscored(std::string s) {
  for (char& ch : s)
    if (ch == '-' || ch == '/' || ch == '.') ch = '_';
  return s;
}

bool is_qk_norm(std::string_view module) {
  const std::string_view leaf = module.substr(module.rfind('.') + 1);
  return leaf == "q_norm" || leaf == "k_norm" || leaf == "q_layernorm" || leaf == "k_layernorm";
}

std::string base_name(const ComponentInstance& c) {
  std::string n(component_kind_info(c.kind).entry);
  if (c.kind == ComponentKind::Norm && is_qk_norm(c.variant)) n = "qk_norm";
  if (c.kind == ComponentKind::Embedding && c.variant != "token-embedding") n = underscored(c.variant);
  if (c.kind == ComponentKind::Other) n += "_" + underscored(c.variant);
  // An MTP layer is its own stack's: "mtp", not "mtp_mtp".
  return c.main_stack || c.kind == ComponentKind::Mtp ? n : std::string(stack_role_name(c.stack)) + "_" + n;
}

// Instances are one entry when a simulator would build them with the same arguments: same class, same
// facts, same parameters (and, for embeddings and unclassified tensors, the same role).
bool same_entry(const LayerTypeEntry& e, const ComponentInstance& first, const ComponentInstance& c) {
  const bool role_matters = c.kind == ComponentKind::Embedding || c.kind == ComponentKind::Other;
  return e.kind == c.kind && first.stack == c.stack && first.main_stack == c.main_stack &&
         first.in_total_params == c.in_total_params && first.facts == c.facts &&
         e.parameter_count == c.parameters && e.class_name == class_for(c) &&
         (!role_matters || first.variant == c.variant) && is_qk_norm(first.variant) == is_qk_norm(c.variant);
}

// Entries of one base name told apart: attention by its span, norms by their width, the rest by order.
void name_entries(std::vector<LayerTypeEntry>& entries) {
  auto span_of = [](const LayerTypeEntry& e) -> std::string {
    if (e.kind != ComponentKind::Attention) return "";
    auto is_set = [&](std::string_view fact) {
      const FactValue* v = find_fact(e.facts, fact);
      return v && !std::holds_alternative<std::monostate>(*v);
    };
    return is_set("sliding_window") ? "_sliding" : is_set("attention_chunk_size") ? "_chunked" : "_full";
  };
  std::vector<std::string> base, span;
  for (const LayerTypeEntry& e : entries) {
    base.push_back(e.name);
    span.push_back(span_of(e));
  }
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t j = 0; j < entries.size(); ++j)
      if (base[j] == base[i] && span[j] != span[i]) {
        entries[i].name += span[i];  // the spans differ: say which is which
        break;
      }
  for (size_t i = 0; i < entries.size(); ++i) {
    uint64_t ordinal = 1;
    for (size_t j = 0; j < i; ++j)
      if (entries[j].name == entries[i].name ||
          entries[j].name == entries[i].name + "_" + std::to_string(ordinal))
        ++ordinal;
    if (ordinal > 1) entries[i].name += "_" + std::to_string(ordinal);
  }
}

// Supported: the class's arguments in the catalogue's order (layer_idx from the entry); unsupported: every
// fact. parameter_count last in both.
void fill_specs(LayerTypeEntry& e, const Facts& facts, const TargetClass* target) {
  if (target) {
    for (const std::string& arg : target->arguments) {
      if (arg == "layer_idx") {
        e.specs.emplace_back(arg, e.layer_idx ? FactValue(*e.layer_idx) : FactValue());
        continue;
      }
      const FactValue* v = find_fact(facts, arg);
      if (!v) e.missing_arguments.push_back(arg);
      e.specs.emplace_back(arg, v ? *v : FactValue());
    }
  } else {
    if (e.layer_idx) e.specs.emplace_back("layer_idx", *e.layer_idx);
    e.specs.insert(e.specs.end(), facts.begin(), facts.end());
  }
  // Whatever the class takes, a simulator summing the entries must see what the total leaves out.
  if (!e.in_total_params) e.specs.emplace_back(std::string(kOutsideTotal), false);
  e.specs.emplace_back("parameter_count", e.parameter_count);
}

struct Names {
  std::string hf_model_id, model_id, name;
};

// A local directory "org__name" (the Hub cache's and ../shared/data's spelling) is the Hub's "org/name"; a
// Hub id is kept without its revision; anything else is its directory name.
Names names_of(const std::string& model) {
  std::string hf;
  if (const std::optional<std::filesystem::path> dir = local_model_directory(model)) {
    hf = dir->filename().string();
    if (hf.empty()) hf = model_name_from_id(model);  // the root directory
    if (const size_t sep = hf.find("__"); sep != std::string::npos)
      hf = hf.substr(0, sep) + "/" + hf.substr(sep + 2);
  } else {
    hf = model.substr(0, model.find('@'));
    const std::string url = "huggingface.co/";
    if (const size_t at = hf.find(url); at != std::string::npos) hf = hf.substr(at + url.size());
  }
  // A file-name-safe id: it names the gap reports ("org/name" -> "org_name", as Mantile's configs spell it).
  std::string id = hf;
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
  const size_t slash = hf.rfind('/');
  return {hf, id, slash == std::string::npos ? hf : hf.substr(slash + 1)};
}

// The extras a checkpoint stores beside the model: an MTP layer is listed as an entry outside total_params,
// anything else only named here.
std::vector<std::string> extras_notes(const Inventory& inv, const std::vector<ComponentInstance>& instances) {
  std::vector<std::string> notes;
  for (const ModelTemplate::KnownExtra& x : inv.model->known_extras) {
    uint64_t n = 0, listed = 0;
    for (const TemplateTensor& t : inv.model->tensors)
      if (t.kind == TensorKind::Extra && t.name.rfind(x.prefix, 0) == 0) n += numel(t.shape);
    for (const ComponentInstance& c : instances)
      for (const ComponentTensor& t : c.tensors)
        if (!c.in_total_params && t.name.rfind(x.prefix, 0) == 0) listed += numel(t.shape);
    const std::string how = listed == n ? "listed as an unsupported entry: " : "not listed: ";
    const std::string line = how + x.prefix + "* (" + with_thousands(n) + " parameters), " + x.reason +
                             ", so it is outside total_params";
    if (n && std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
  }
  return notes;
}

// An entry for MTP layers known only by their count: unsupported, outside total_params, and with its
// parameters unknown (0, said in its specs and its gap report) rather than a count nothing here verifies.
LayerTypeEntry unbuilt_mtp_entry(uint64_t layers, uint64_t hidden) {
  LayerTypeEntry e;
  e.name = std::string(component_kind_info(ComponentKind::Mtp).entry);
  e.class_name = std::string(component_kind_info(ComponentKind::Mtp).simulator_class);
  e.kind = ComponentKind::Mtp;
  e.count = layers;
  e.in_total_params = false;
  e.parameters_known = false;
  e.facts = {{"hidden_size", hidden}, {"parameter_count_known", false}};
  e.gap_reason = "the config declares " + std::to_string(layers) + " multi-token-prediction layer" +
                 (layers == 1 ? "" : "s") +
                 " (num_nextn_predict_layers or mtp_num_hidden_layers) that this tool's template does not "
                 "build: their tensors and parameters are unknown here, "
                 "so parameter_count is 0 and the gap report's figures cover nothing (transformers does not "
                 "build them either: outside total_params)";
  return e;
}

}  // namespace

std::optional<std::filesystem::path> local_model_directory(const std::string& model) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (model.empty() || !fs::exists(model, ec)) return std::nullopt;
  fs::path dir = fs::weakly_canonical(fs::absolute(model, ec), ec);
  if (ec) dir = fs::absolute(model).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();  // config.json, a weight file: the directory
  if (dir.filename().empty() && dir.has_parent_path() && dir != dir.root_path()) dir = dir.parent_path();
  return dir;
}

std::string format_parameter_count(uint64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e12) return fixed_decimals(v / 1e12, 1) + "T";
  if (v >= 1e9) return fixed_decimals(v / 1e9, 1) + "B";
  if (v >= 1e6) return fixed_decimals(v / 1e6, 1) + "M";
  if (v >= 1e3) return fixed_decimals(v / 1e3, 1) + "K";
  return std::to_string(n);
}

SimulatorConfig build_simulator_config(const Inventory& inv, const std::string& model,
                                       const LayerCatalogue& catalogue) {
  const std::vector<ComponentInstance> instances = split_into_components(inv);
  SimulatorConfig cfg;
  const Names names = names_of(model);
  cfg.hf_model_id = names.hf_model_id;
  cfg.model_id = names.model_id;
  cfg.name = names.name;
  const ArchitectureRecord& a = inv.arch;
  cfg.hidden_size = a.hidden_size;
  cfg.num_layers = a.num_layers ? a.num_layers : a.layers().size();
  cfg.vocab_size = a.vocab_size;
  cfg.parameters = count_parameters(inv);
  cfg.stored_dtype = a.stored_dtype;
  if (a.quantization) cfg.quantization = a.quantization->key;
  cfg.catalogue_source = catalogue.source;
  cfg.notes = extras_notes(inv, instances);

  std::vector<const ComponentInstance*> firsts;  // the first instance of each entry
  for (const ComponentInstance& c : instances) {
    auto it = std::find_if(cfg.layer_types.begin(), cfg.layer_types.end(), [&](const LayerTypeEntry& e) {
      return same_entry(e, *firsts[static_cast<size_t>(&e - cfg.layer_types.data())], c);
    });
    if (it == cfg.layer_types.end()) {
      LayerTypeEntry e;
      e.name = base_name(c);
      e.class_name = class_for(c);
      e.kind = c.kind;
      e.parameter_count = c.parameters;
      e.example_tensors = c.tensors;
      e.in_total_params = c.in_total_params;
      cfg.layer_types.push_back(std::move(e));
      firsts.push_back(&c);
      it = cfg.layer_types.end() - 1;
    }
    ++it->count;
    if (c.layer) {
      it->layers.push_back(*c.layer);
      if (!it->layer_idx || *c.layer < *it->layer_idx) it->layer_idx = *c.layer;
    }
  }
  const LayerCatalogue mantile = default_layer_catalogue();
  for (size_t i = 0; i < cfg.layer_types.size(); ++i) {
    LayerTypeEntry& e = cfg.layer_types[i];
    const TargetClass* target = catalogue.find(e.class_name);
    e.facts = firsts[i]->facts;
    // A class of Mantile's must rebuild the layer from the arguments it takes, whichever catalogue lists it
    // (one that adds an argument to a class does not make its count another); one that builds another count
    // is a gap, where an output gate (Qwen3-Next), experts in a latent space (Nemotron-3-Super) or a gated
    // MLP read as ungated (ChatGLM2) were written as supported.
    // Small terms (biases where the class takes no has_bias, T5's relative position bias, 1-wide gates) are
    // the one difference kept supported: a few parameters in thousands that do not change what the
    // simulator times, said in a note.
    const TargetClass* published = mantile.find(e.class_name);
    if (target)
      if (const std::optional<uint64_t> built = class_parameters(e.class_name, e.facts);
          built && *built != e.parameter_count) {
        // Biases are in the class's count only where it takes has_bias and the layer has them.
        const FactValue* has_bias = find_fact(e.facts, "has_bias");
        const bool counted_biases = has_bias && *has_bias == FactValue(true) && published &&
                                    std::find(published->arguments.begin(), published->arguments.end(),
                                              "has_bias") != published->arguments.end();
        const uint64_t small = small_terms(e.example_tensors, counted_biases);
        if (small && *built + small == e.parameter_count) {
          cfg.notes.push_back(e.name + ": " + e.class_name + " builds " + with_thousands(*built) +
                              " parameters from its arguments; the layer's " + with_thousands(small) +
                              " more are biases or 1-wide gates it has no argument for (parameter_count "
                              "includes them)");
        } else {
          e.gap_reason = e.class_name + " builds " + with_thousands(*built) +
                         " parameters from its arguments, the layer holds " +
                         with_thousands(e.parameter_count) + ": none of its arguments carries the difference";
          cfg.notes.push_back(e.name + ": " + e.gap_reason + ", so the layer is a gap");
          target = nullptr;
        }
      }
    e.supported = target != nullptr;
    fill_specs(e, e.facts, target);
    for (const std::string& arg : e.missing_arguments)
      cfg.notes.push_back(e.name + ": " + e.class_name + " argument '" + arg +
                          "' is nothing this model states (null)");
  }
  const bool has_mtp = std::any_of(cfg.layer_types.begin(), cfg.layer_types.end(),
                                   [](const LayerTypeEntry& e) { return e.kind == ComponentKind::Mtp; });
  // MTP layers the config declares and the template builds no tensors for (Qwen3.5's
  // text_config.mtp_num_hidden_layers, Nemotron-3-Super's num_nextn_predict_layers): without an entry the
  // simulator config would omit a module checkpoints carry and serving engines run as the draft model.
  if (!has_mtp && a.mtp_layers_declared) {
    LayerTypeEntry e = unbuilt_mtp_entry(a.mtp_layers_declared, a.hidden_size);
    fill_specs(e, e.facts, nullptr);
    cfg.notes.push_back(e.name + ": " + e.gap_reason);
    cfg.layer_types.push_back(std::move(e));
  }
  name_entries(cfg.layer_types);

  // The config's promise: a simulator instantiating every entry count times holds exactly the model (the
  // entries outside total_params aside).
  uint64_t sum = 0;
  for (const LayerTypeEntry& e : cfg.layer_types)
    if (e.in_total_params) sum += e.count * e.parameter_count;
  if (sum != cfg.parameters.total)
    throw Error(ErrorKind::Internal, model, "layer_types",
                "entries sum to " + with_thousands(sum) + " parameters, the model has " +
                    with_thousands(cfg.parameters.total));
  return cfg;
}

}  // namespace ma

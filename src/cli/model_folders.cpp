#include "cli/model_folders.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/error.h"
#include "core/text.h"
#include "hub/hub_settings.h"

namespace ma::cli {
namespace {

namespace fs = std::filesystem;

FoundModel found_model_named(const std::string& rel, LocalModelFiles files) {
  constexpr std::string_view kRepo = "models--", kSnapshots = "/snapshots/";
  const size_t snap = rel.find(kSnapshots);
  if (rel.rfind(kRepo, 0) == 0 && snap != std::string::npos &&
      rel.find('/', snap + kSnapshots.size()) == std::string::npos) {
    std::string repo = rel.substr(kRepo.size(), snap - kRepo.size());
    if (const size_t dash = repo.find("--"); dash != std::string::npos) repo.replace(dash, 2, "/");
    return {repo, rel.substr(snap + kSnapshots.size()), std::move(files)};
  }
  return {rel, "", std::move(files)};
}

// "a, b and 3 more": the skipped links, a few by name.
std::string some_names(const std::vector<std::string>& names) {
  std::vector<std::string> shown;
  for (const std::string& n : names) shown.push_back(printable(n));
  return first_and_more(shown, 3);
}

std::string symlinks_text(const std::vector<std::string>& skipped) {
  return "symlinked entries are not followed (" + some_names(skipped) +
         "): name a linked model directly, or copy it in";
}

}  // namespace

ModelsUnder models_under(const fs::path& root) {
  constexpr int kMaxDepth = 3;
  ModelsUnder r;
  std::vector<std::pair<fs::path, int>> pending = {{root, 0}};
  while (!pending.empty()) {
    auto [dir, depth] = pending.back();
    pending.pop_back();
    std::error_code ec;
    std::vector<fs::path> children;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      if (!e.is_directory(ec)) continue;  // follows a link: a link to a file is no model directory either
      // A link: named by its own path, not its target's.
      if (e.is_symlink(ec))
        r.symlinks_skipped.push_back(e.path().lexically_relative(root).generic_string());
      else
        children.push_back(e.path());
    }
    std::sort(children.begin(), children.end(), std::greater<>());  // popped in name order
    for (const fs::path& c : children) {
      std::optional<LocalModelFiles> m;
      try {
        m = locate_local_model(c.string());
      } catch (const Error&) {
      }
      if (m && m->format != CheckpointFormat::None)
        r.models.push_back(found_model_named(fs::relative(c, root).generic_string(), std::move(*m)));
      else if (depth + 1 < kMaxDepth)
        pending.emplace_back(c, depth + 1);
    }
  }
  std::sort(r.models.begin(), r.models.end(), [](const FoundModel& x, const FoundModel& y) {
    return std::tie(x.id, x.revision) < std::tie(y.id, y.revision);
  });
  std::sort(r.symlinks_skipped.begin(), r.symlinks_skipped.end());
  return r;
}

std::vector<ModelToAnalyse> models_to_analyse(const std::string& model, const HubArgs& hub,
                                              const std::optional<fs::path>& base, const Output& out) {
  HubSettings settings = hub_settings(hub.flags);
  trace_http(settings);
  trace("locating the weights of " + model);
  std::vector<ModelToAnalyse> inputs;
  std::vector<std::string> warnings;
  std::error_code ec;
  if (fs::is_directory(model, ec)) {
    try {
      inputs.push_back(
          {model, "", model, weights_input(local_weights(model, hub), settings.cache_root, warnings, base)});
    } catch (const Error& e) {
      if (hub.file) throw;  // the model --file chose, or why there is none: not a directory of models
      ModelsUnder under = models_under(model);
      if (under.models.empty() && under.symlinks_skipped.empty()) throw;
      if (under.models.empty())
        throw Error(e.kind(), e.file(), e.field(), e.rule() + "; " + symlinks_text(under.symlinks_skipped),
                    e.offset());
      trace("a directory of " + std::to_string(under.models.size()) + " models");
      if (!under.symlinks_skipped.empty())
        warnings.push_back(model + ": " + symlinks_text(under.symlinks_skipped));
      for (FoundModel& f : under.models) {
        const std::string where = f.files.root.string();
        inputs.push_back(
            {f.id, f.revision, where, weights_input(std::move(f.files), settings.cache_root, warnings)});
      }
    }
  } else {
    inputs.push_back(
        {model, "", model, weights_input(local_weights(model, hub), settings.cache_root, warnings, base)});
  }
  print_warnings(warnings, out);
  return inputs;
}

std::string joined_json(const std::vector<std::string>& documents) {
  if (documents.size() == 1) return documents.front();
  std::string out = "[\n";
  for (size_t i = 0; i < documents.size(); ++i) {
    std::string one = documents[i];
    while (!one.empty() && one.back() == '\n') one.pop_back();
    out += one + (i + 1 < documents.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

void append_csv(std::string& csv, const std::string& part) {
  if (csv.empty()) {
    csv = part;
    return;
  }
  const size_t header_end = part.find('\n');
  if (header_end != std::string::npos) csv += part.substr(header_end + 1);  // one header
}

std::string console_block(const std::string& model_id, const std::string& console, bool several, bool first) {
  if (!several) return console;
  return std::string(first ? "" : "\n") + "MODEL " + model_id + "\n" + console;
}

void throw_one_model_figure(const std::string& model, const std::string& flag, size_t count) {
  throw Error(ErrorKind::Usage, model, flag,
              "draws one model: name one of the " + std::to_string(count) + " models under it");
}

}  // namespace ma::cli

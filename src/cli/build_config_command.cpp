// `modelanalyzer build-config MODEL --out FILE.json --gaps DIR`: seed 003's validated simulator config, with
// a gap report for every layer type the simulator lacks.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "analysis/builder/config_validation.h"
#include "analysis/builder/gap_analysis.h"
#include "analysis/builder/simulator_config.h"
#include "analysis/identity.h"
#include "cli/build_config_args.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/output_options.h"
#include "core/error.h"
#include "core/text.h"
#include "report/gap_report_markdown.h"
#include "report/simulator_config_report.h"

namespace fs = std::filesystem;

namespace ma::cli {
namespace {

struct RenderedFile {
  fs::path path;
  std::string content;
};

// The gap report's path as the config records it: relative to the config's directory, so the pair can move
// together.
std::string relative_to_config(const fs::path& gap, const std::string& out) {
  const fs::path base = out == "-" ? fs::current_path() : fs::absolute(out).parent_path();
  return fs::absolute(gap).lexically_normal().lexically_relative(base.lexically_normal()).generic_string();
}

// The published counts: --claims, else a PARAM_COUNTS.tsv in the directory that holds MODEL's directory
// (../shared/data/hf-configs keeps one beside its models), matched by the directory's name ("org__name").
// MODEL's directory however it is spelt (".", "x/config.json"), as the config's names have it.
std::vector<PublishedClaim> claims_for(const BuildConfigArgs& a, std::string& file) {
  file = a.claims;
  std::error_code ec;
  const std::optional<fs::path> dir = local_model_directory(a.model);
  const bool local = dir.has_value();
  if (file.empty() && local && fs::is_regular_file(dir->parent_path() / "PARAM_COUNTS.tsv", ec))
    file = (dir->parent_path() / "PARAM_COUNTS.tsv").string();
  if (file.empty()) return {};
  std::string name = local ? dir->filename().string() : a.model.substr(0, a.model.find('@'));
  if (const size_t slash = name.find('/'); !local && slash != std::string::npos) name.replace(slash, 1, "__");
  return published_claims(file, name);
}

void remove_empty_directories(const std::vector<fs::path>& deepest_first) {
  std::error_code ec;
  for (const fs::path& d : deepest_first) fs::remove(d, ec);  // fails, harmlessly, on one not empty
}

// Creates the gaps directory and returns the directories it created, deepest first (none when it existed).
std::vector<fs::path> make_directory(const std::string& dir) {
  std::vector<fs::path> created;
  std::error_code ec;
  for (fs::path p = fs::absolute(dir, ec).lexically_normal(); !ec && !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    created.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    remove_empty_directories(created);
    throw Error(ErrorKind::LocalIO, dir, "--gaps", "cannot create the directory: " + ec.message());
  }
  return created;
}

// Whether --out's directory is already there, so the config can be staged before anything is created.
bool config_directory_exists(const std::string& out) {
  std::error_code ec;
  const fs::path parent = fs::path(out).parent_path();
  return out == "-" || fs::is_directory(parent.empty() ? fs::path(".") : parent, ec);
}

// Every file staged, then renamed into place together. The config is staged first where its directory
// exists: a refused --out (a directory, a device that cannot be written) then fails before the gaps
// directory is created. Where --out lies in a directory still to be made (inside --gaps), it is staged
// after. Any failure once the gaps directory is made removes the directories this run created, so a failed
// run leaves nothing behind.
void write_outputs(const std::string& out, const std::string& json, const std::string& gaps_dir,
                   const std::vector<RenderedFile>& gaps) {
  std::optional<OutputBatch> files(command_outputs());
  const bool config_first = config_directory_exists(out);
  if (config_first) files->add(out, json);
  const std::vector<fs::path> created = gaps.empty() ? std::vector<fs::path>{} : make_directory(gaps_dir);
  try {
    if (!config_first) files->add(out, json);
    for (const RenderedFile& g : gaps) files->add(g.path.string(), g.content);
    files->commit();
  } catch (...) {
    files.reset();  // its temp files first: the directories are empty only then
    remove_empty_directories(created);
    throw;
  }
}

}  // namespace

int run_build_config(const Args& args) {
  const BuildConfigArgs a = parse_build_config_args(args);
  // The catalogue first: a bad file fails before anything is read or written.
  const LayerCatalogue catalogue =
      a.target_layers.empty() ? default_layer_catalogue() : load_layer_catalogue(a.target_layers);
  Output out = detect_output(a.common);
  const OpenedInventory opened = open_inventory(a.model, a.hub, out);
  SimulatorConfig cfg = build_simulator_config(*opened.inventory, a.model, catalogue);

  std::vector<RenderedFile> gaps;
  for (LayerTypeEntry& e : cfg.layer_types) {
    if (e.supported) continue;
    const fs::path path = fs::path(a.gaps) / (cfg.model_id + "." + e.name + ".md");
    e.gap_report = relative_to_config(path, a.out);
    gaps.push_back({path, render_gap_report_markdown(analyse_gap(cfg, e))});
  }
  // The config over a gap report would leave only one of them: refused before the directory is created.
  std::vector<OutputClaim> claims_of_files = {{a.out, "--out"}};
  for (const RenderedFile& g : gaps) claims_of_files.push_back({g.path.string(), "--gaps"});
  require_distinct_outputs(claims_of_files);
  std::string claims_file;
  const std::vector<PublishedClaim> claims = claims_for(a, claims_file);
  const ConfigValidation validation = validate_config(cfg, a.expect, claims, claims_file);

  // Everything rendered first, then written (each file atomically): a failure leaves no partial file. The
  // config is written even when validation fails, so the user can inspect what disagreed.
  write_outputs(a.out, render_simulator_config_json(cfg, validation), a.gaps, gaps);
  if (!out.quiet && a.out != "-") print_stdout(render_simulator_config_console(cfg, validation, out.color));
  if (!validation.failed) return 0;
  // Like an error, one line on stderr (even under --quiet): the exit code alone does not say what disagreed.
  std::string first;
  for (const std::string& n : validation.notes)
    if (first.empty() && n.rfind("DISCREPANCY: ", 0) == 0) first = n.substr(13);
  std::fprintf(stderr, "modelanalyzer: validation failed: %s (the config was written to %s)\n",
               terminal_safe(first).c_str(), terminal_safe(a.out).c_str());
  return kExitValidationFailed;
}

}  // namespace ma::cli

// `modelanalyzer download MODEL [--include GLOB]... [--exclude GLOB]... [--out DIR] [--revision R]`: seed
// 004's download.py — the repo's files into the shared cache (default) or a directory, with a progress bar on
// a terminal; of a MODEL naming one GGUF model (":Q4_K_M", --file) or one file (a /resolve/ URL), only those
// files. Ctrl-C stops the transfers, removes their temp files and exits 130.
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/download_args.h"
#include "cli/interrupt.h"
#include "cli/model_source.h"
#include "cli/progress.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "core/units.h"
#include "hub/download.h"
#include "hub/download_choice.h"
#include "hub/repo_ref.h"

namespace ma::cli {

int run_download(const Args& args) {
  DownloadArgs a = parse_download_args(args);
  const std::string& model = a.model;
  const HubArgs& hub = a.hub;
  DownloadOptions& options = a.options;
  std::optional<RepoRef> ref = parse_repo_ref(model);
  if (!ref)
    throw Error(ErrorKind::Usage, model, "", "not a Hub repo id (org/name, name or a huggingface.co URL)");
  if (hub.revision) {
    validate_revision(*hub.revision);
    ref->revision = *hub.revision;
  }
  // A URL naming a file, or a GGUF model named by ":NAME" or --file: that file, or every part of that model,
  // and nothing else (a -GGUF repository holds every quantization: 100 GB and more). An ONNX model, by URL or
  // --file, comes with its external data and its folder's genai_config.json.
  if (ref->file && hub.file && *hub.file != *ref->file)
    throw Error(ErrorKind::Usage, "", "--file",
                "names " + printable(*hub.file) + " where the URL names " + printable(*ref->file));
  if (is_onnx_selector(ref->file)) ref->file.reset();  // chosen below, with what it needs
  const std::optional<std::string> selector = ref->file ? std::nullopt : model_file_selector(*ref, hub);
  Output out = detect_output(a.common);
  HubSettings settings = hub_settings(hub.flags);
  trace_http(settings);
  print_warnings(settings.warnings, out);

  const std::atomic<bool>& interrupted = interrupt_flag();
  options.cancel = &interrupted;
  ProgressLine bar(out.stderr_tty && !out.quiet, "downloading");
  options.progress = [&](const DownloadProgress& p) {
    bar.update(p.bytes_done, p.bytes_total,
               std::to_string(p.files_done) + "/" + std::to_string(p.files_total) + " files");
  };
  DownloadResult r;
  DownloadChoice choice;  // outlives the download, which may list from it
  try {
    if (ref->file || selector) {
      trace("choosing " +
            (ref->file
                 ? *ref->file
                 : (is_onnx_selector(selector) ? "the ONNX model '" : "the GGUF model '") + *selector + "'") +
            " in the file list of " + ref->id + "@" + ref->revision);
      choice = choose_download_files(*ref, settings, ref->file, selector,
                                     ref->gguf_model ? ":" + *ref->gguf_model : "--file", &interrupted);
    } else if (a.needed) {
      trace("choosing the files an analysis of " + ref->id + "@" + ref->revision + " reads");
      choice = choose_needed_files(*ref, settings, &interrupted);
    }
    if (ref->file || selector || a.needed) {
      std::string chosen;
      for (const std::string& p : choice.paths) chosen += (chosen.empty() ? "" : ", ") + p;
      trace("chose " + std::to_string(choice.paths.size()) + " file(s): " + chosen);
      // Added to the user's --include globs, which only add files; each matches itself only
      // (choose_download_files refuses a name with '*' or '?' that would match more).
      options.include.insert(options.include.end(), choice.paths.begin(), choice.paths.end());
      print_warnings(choice.warnings, out);
      // Listed by the Hub just now: the download takes that list, at the commit the files were chosen at
      // (should the branch move meanwhile, the files stay those of the list they were chosen from).
      if (choice.listed_online) {
        ref->revision = choice.commit;
        options.listed = &*choice.listed_online;
      }
    }
    trace("downloading " + ref->id + "@" + ref->revision + " from " + settings.endpoint);
    r = download_repo(*ref, settings, options);
  } catch (const Error&) {
    bar.finish();
    if (interrupted.load()) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no partial file was kept\n");
      return kInterruptedExit;
    }
    throw;
  }
  bar.finish();
  print_warnings(r.warnings, out);
  print_notes(r.notes, out);
  if (!out.quiet)
    std::fprintf(
        stderr, "%s@%s: %llu file(s) downloaded (%s), %llu already present%s\n", ref->id.c_str(),
        r.commit.c_str(), static_cast<unsigned long long>(r.files_downloaded),
        human_bytes(r.bytes_downloaded).c_str(), static_cast<unsigned long long>(r.files_present),
        r.resumed ? (", " + std::to_string(r.resumed) + " resumed after a lost connection").c_str() : "");
  // The path on stdout, for scripts: `cd "$(modelanalyzer download gpt2)"`.
  print_stdout(r.root.string() + "\n");
  return 0;
}

}  // namespace ma::cli

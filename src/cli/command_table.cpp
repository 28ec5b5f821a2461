// The subcommands in one table, and the main help generated from their option tables.
#include <array>

#include "cli/build_config_args.h"
#include "cli/commands.h"
#include "cli/compare_args.h"
#include "cli/download_args.h"
#include "cli/embeddings_args.h"
#include "cli/graph_args.h"
#include "cli/perf_args.h"
#include "cli/plan_args.h"
#include "cli/report_args.h"
#include "cli/serve_args.h"
#include "cli/spectrum_args.h"
#include "cli/stats_args.h"
#include "cli/tensors_args.h"
#include "core/nearest_name.h"

namespace ma::cli {
namespace {

// Each help is built from a throwaway arguments struct: the table's setters write into it, never run.
template <typename ArgsT, CommandSpec (*Spec)(ArgsT&)>
std::string help_of() {
  ArgsT a;
  return command_help(Spec(a));
}

std::string perf_help() {
  PerfArgs a;
  std::vector<std::pair<std::string, std::string>> knobs;
  return command_help(perf_spec(a, knobs));
}

const std::array<Command, 12> kCommands{{
    {"", run_summary, help_of<ReportArgs, report_spec>},
    {"tensors", run_tensors, help_of<TensorsArgs, tensors_spec>},
    {"graph", run_graph, help_of<GraphArgs, graph_spec>},
    {"stats", run_stats, help_of<StatsArgs, stats_spec>},
    {"compare", run_compare, help_of<CompareArgs, compare_spec>},
    {"spectrum", run_spectrum, help_of<SpectrumArgs, spectrum_spec>},
    {"embeddings", run_embeddings, help_of<EmbeddingsArgs, embeddings_spec>},
    {"perf", run_perf, perf_help},
    {"plan", run_plan, help_of<PlanArgs, plan_spec>},
    {"serve", run_serve, help_of<ServeArgs, serve_spec>},
    {"download", run_download, help_of<DownloadArgs, download_spec>},
    {"build-config", run_build_config, help_of<BuildConfigArgs, build_config_spec>},
}};

std::string indented(std::string_view text) {
  std::string out = "      ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "      ";
  }
  return out + "\n";
}

}  // namespace

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::optional<std::string_view> command_like(std::string_view word) {
  std::vector<std::string_view> names;
  for (const Command& c : kCommands)
    if (!c.name.empty()) names.push_back(c.name);
  return nearest_name(word, names);
}

std::string usage_text() {
  std::string out = "modelanalyzer " MA_VERSION
                    " - exact architecture, parameters, memory and tensors of transformer models\n\nusage:\n";
  ReportArgs report;
  const CommandSpec report_options = report_spec(report);
  {
    TensorsArgs t;
    GraphArgs g;
    StatsArgs st;
    CompareArgs c;
    SpectrumArgs sp;
    EmbeddingsArgs em;
    PerfArgs p;
    std::vector<std::pair<std::string, std::string>> knobs;
    DownloadArgs d;
    PlanArgs pl;
    ServeArgs sv;
    BuildConfigArgs bc;
    for (const CommandSpec& s : {report_options, tensors_spec(t), graph_spec(g), stats_spec(st),
                                 compare_spec(c), spectrum_spec(sp), embeddings_spec(em), perf_spec(p, knobs),
                                 plan_spec(pl), serve_spec(sv), download_spec(d), build_config_spec(bc)}) {
      out += "  modelanalyzer " + (s.name.empty() ? std::string() : std::string(s.name) + " ") +
             std::string(s.operands) + " [options]\n" + indented(s.summary);
    }
  }
  out += "\nreport options:\n" + option_lines(report_options.options);
  out +=
      "\nMODEL: a model directory (config.json and/or *.safetensors, sharded or not), a weight file\n"
      "       (.safetensors; PyTorch .bin/.pt/.pth/.ckpt; .gguf, any part of a split one; .onnx),\n"
      "       a config.json (dry run: the tensors the architecture implies, without weights), or a Hub "
      "model\n"
      "       (gpt2, org/name, org/name@revision or a huggingface.co URL; a local path of the same name "
      "wins).\n"
      "       Hub models: only config, tokenizer and index files are downloaded, into the Hugging Face "
      "cache\n"
      "       ($HF_HUB_CACHE or $HF_HOME/hub, shared with Python tools); weight-file headers are read with "
      "HTTP\n"
      "       range requests and cached. Environment: HF_ENDPOINT, HF_TOKEN, HUGGING_FACE_HUB_TOKEN,\n"
      "       HF_TOKEN_PATH, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE, HF_HUB_ETAG_TIMEOUT, "
      "HF_HUB_DOWNLOAD_TIMEOUT.\n"
      "Output files: - is stdout; devices and pipes (/dev/stdout, >(gzip > x.gz)) are written in place, "
      "files\n"
      "       atomically.\n"
      "\n"
      "exit codes: 0 ok, 1 internal error, 2 usage, 3 malformed file, 4 unsafe content, 5 resource limit,\n"
      "            6 network, 7 authentication (gated, private, token rejected), 8 not found, 9 local I/O,\n"
      "            10 unsupported architecture, 11 build-config validation failed (config written),\n"
      "            130 interrupted\n"
      "\n"
      "modelanalyzer COMMAND --help lists a command's options.\n";
  return out;
}

}  // namespace ma::cli

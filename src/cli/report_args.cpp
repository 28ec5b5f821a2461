#include "cli/report_args.h"

#include <charconv>

#include "core/error.h"

namespace ma::cli {
namespace {

uint64_t positive_number(const std::string& flag, const std::string& text) {
  uint64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v == 0)
    throw Error(ErrorKind::Usage, "", flag, "expects a positive integer, got '" + printable(text) + "'");
  return v;
}

}  // namespace

ReportArgs parse_report_args(const Args& args) {
  ReportArgs a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error(ErrorKind::Usage, "", arg, "needs a value");
      return args[++i];
    };
    if (arg == "--detailed") a.detailed = true;
    else if (arg == "--verbose" || arg == "-v") a.verbose = true;
    else if (arg == "--quiet" || arg == "-q") a.quiet = true;
    else if (arg == "--json") a.json = true;
    else if (arg == "--export") a.export_json = value();
    else if (arg == "--export-markdown") a.export_markdown = value();
    else if (arg == "--visualize") a.visualize = true;
    else if (arg == "--viz-style") {
      a.viz_style = value();
      if (a.viz_style != "simple" && a.viz_style != "detailed")
        throw Error(ErrorKind::Usage, "", "--viz-style", "must be simple or detailed");
    } else if (arg == "--viz-output") a.viz_output = value();
    else if (arg == "--skip-tokenizer") a.options.skip_tokenizer = true;
    else if (take_hub_arg(args, i, a.hub)) continue;
    else if (arg == "--batch") a.options.batch = positive_number(arg, value());
    else if (arg == "--context") a.options.context = positive_number(arg, value());
    else if (arg == "--kv-dtype") {
      const std::string& d = value();
      a.options.kv_dtype = dtype_from_any_name(d);
      if (!a.options.kv_dtype) throw Error(ErrorKind::Usage, "", "--kv-dtype", "unknown dtype '" + printable(d) + "'");
    } else if (!arg.empty() && arg[0] == '-') {
      throw Error(ErrorKind::Usage, "", arg, "unknown option; see modelanalyzer --help");
    } else {
      a.models.push_back(arg);
    }
  }
  if (a.models.empty()) throw Error(ErrorKind::Usage, "", "MODEL", "missing; see modelanalyzer --help");
  if (!a.viz_output.empty() && a.models.size() > 1)
    throw Error(ErrorKind::Usage, "", "--viz-output", "names one file; with several models each gets <model>_architecture.png");
  if ((!a.export_json.empty() || !a.export_markdown.empty()) && a.models.size() > 1)
    throw Error(ErrorKind::Usage, "", "--export", "exports one model; analyse models one at a time to export each");
  if (a.viz_output.empty() && a.models.size() == 1) a.viz_output = "model_architecture.png";
  return a;
}

}  // namespace ma::cli

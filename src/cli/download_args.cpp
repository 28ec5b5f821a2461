#include "cli/download_args.h"

#include "cli/hub_options.h"
#include "core/error.h"

namespace ma::cli {

CommandSpec download_spec(DownloadArgs& a) {
  CommandSpec s;
  s.name = "download";
  s.operands = "MODEL";
  s.summary =
      "A Hub repo's files (all, those matching the globs, those an analysis reads with --needed, the parts\n"
      "of the GGUF model MODEL:Q4_K_M or --file names, the ONNX model --file names with its data, or the\n"
      "one file a /resolve/ URL names) into the cache or DIR, in parallel, each checked against its size\n"
      "and hash; prints where they are.";
  s.operand = one_operand(a.model, s.name);
  // clang-format off
  s.options = {
      {{"--include"}, "GLOB", "only files matching (repeatable; * also matches /)",
       [&a](const std::string& v) { a.options.include.push_back(v); }},
      {{"--exclude"}, "GLOB", "leave out files matching (repeatable)",
       [&a](const std::string& v) { a.options.exclude.push_back(v); }},
      {{"--out"}, "DIR", "into DIR instead of the Hugging Face cache",
       [&a](const std::string& v) { a.options.out_dir = v; }},
      {{"--needed"}, "", "only what an analysis reads: config, tokenizer, the model's weights (no copies)",
       [&a](const std::string&) { a.needed = true; }},
  };
  // clang-format on
  add_common_options(s, a.common);
  add_hub_options(s, a.hub, /*choose_file=*/true);
  return s;
}

DownloadArgs parse_download_args(const Args& args) {
  return parse_model_command(args, download_spec);
}

}  // namespace ma::cli

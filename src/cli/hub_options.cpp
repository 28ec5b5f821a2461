#include "cli/hub_options.h"

namespace ma::cli {

void add_hub_options(CommandSpec& spec, HubArgs& hub, bool choose_file) {
  // clang-format off
  const std::vector<Option> options = {
      {{"--revision"}, "R", "Hub branch, tag or commit (overrides MODEL@R)",
       [&hub](const std::string& v) { hub.revision = v; }},
      {{"--offline"}, "", "Hub: answer from the cache only (also HF_HUB_OFFLINE=1)",
       [&hub](const std::string&) { hub.flags.offline = true; }},
      {{"--token-file"}, "FILE", "Hub: read the token from FILE", [&hub](const std::string& v) { hub.flags.token_file = v; }},
      {{"--token"}, "T", "Hub token (visible in ps; prefer HF_TOKEN or --token-file)",
       [&hub](const std::string& v) { hub.flags.token = v; }},
      {{"--trust-endpoint"}, "", "send the token to a non-Hugging Face HF_ENDPOINT",
       [&hub](const std::string&) { hub.flags.trust_endpoint = true; }},
  };
  // clang-format on
  spec.options.insert(spec.options.end(), options.begin(), options.end());
  if (choose_file)
    spec.options.push_back(
        {{"--file"},
         "NAME",
         "of a repo's or a directory's GGUF or ONNX models, the one to read (a file name, a path, or e.g. "
         "Q4_K_M)",
         [&hub](const std::string& v) { hub.file = v; }});
}

}  // namespace ma::cli

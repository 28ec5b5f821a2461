#include "cli/model_source.h"

#include <filesystem>

#include "core/error.h"
#include "hub/repo_ref.h"

namespace ma::cli {
namespace {

ModelMetadata metadata_of(const RemoteModel& m, const RepoRef& ref) {
  ModelMetadata md;
  md.repo_id = ref.id;
  md.revision = ref.revision;
  md.commit = m.info.commit;
  md.author = m.info.author;
  md.downloads = m.info.downloads;
  md.likes = m.info.likes;
  md.license = m.info.license;
  md.gated = m.info.gated;
  md.pipeline_tag = m.info.pipeline_tag;
  md.last_modified = m.info.last_modified;
  // The checkpoint's size: its safetensors files, or its PyTorch files when it has no safetensors.
  for (std::string_view ext : {".safetensors", ".bin"}) {
    uint64_t total = 0;
    bool any = false;
    for (const RepoFile& f : m.info.files)
      if (f.size && f.path.size() > ext.size() && f.path.compare(f.path.size() - ext.size(), ext.size(), ext) == 0) {
        total += *f.size;
        any = true;
      }
    if (any) {
      md.weight_files_bytes = total;
      break;
    }
  }
  return md;
}

}  // namespace

const char* const kHubHelp =
    "Hub models (MODEL = gpt2, org/name, org/name@revision or a huggingface.co URL; a local path wins):\n"
    "  only config, tokenizer and index files are downloaded, into the Hugging Face cache ($HF_HUB_CACHE or\n"
    "  $HF_HOME/hub, shared with Python tools); weight-file headers are read with HTTP range requests and cached.\n"
    "  --revision R             branch, tag or commit       --offline   cache only (also HF_HUB_OFFLINE=1)\n"
    "  --token-file F           read the token from F       --token T   Hub token (visible in ps; prefer HF_TOKEN)\n"
    "  --trust-endpoint         send the token to a non-Hugging Face HF_ENDPOINT\n"
    "  environment: HF_ENDPOINT, HF_TOKEN, HUGGING_FACE_HUB_TOKEN, HF_TOKEN_PATH, HF_HOME, HF_HUB_CACHE,\n"
    "  HF_HUB_OFFLINE, HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT (seconds without a byte before retrying)\n";

bool take_hub_arg(const Args& args, size_t& i, HubArgs& hub) {
  const std::string& arg = args[i];
  auto value = [&]() -> const std::string& {
    if (i + 1 >= args.size()) throw Error(ErrorKind::Usage, "", arg, "needs a value");
    return args[++i];
  };
  if (arg == "--token") hub.flags.token = value();
  else if (arg == "--token-file") hub.flags.token_file = value();
  else if (arg == "--revision") hub.revision = value();
  else if (arg == "--offline") hub.flags.offline = true;
  else if (arg == "--trust-endpoint") hub.flags.trust_endpoint = true;
  else return false;
  return true;
}

OpenedModel open_model(const std::string& arg, const HubArgs& hub, bool skip_tokenizer) {
  OpenedModel out;
  std::error_code ec;
  std::optional<RepoRef> ref;
  if (!std::filesystem::exists(arg, ec)) ref = parse_repo_ref(arg);
  if (!ref) {
    out.files = locate_local_model(arg);
    return out;
  }
  if (hub.revision) {
    validate_revision(*hub.revision);
    ref->revision = *hub.revision;
    ref->explicit_revision = true;
  }
  HubSettings settings = hub_settings(hub.flags);
  out.warnings = settings.warnings;
  RemoteOptions options;
  options.skip_tokenizer = skip_tokenizer;
  RemoteModel m = open_remote_model(*ref, settings, options);
  for (std::string& w : m.warnings) out.warnings.push_back(std::move(w));
  out.metadata = metadata_of(m, *ref);
  out.stats = m.stats;
  out.files = std::move(m.files);
  return out;
}

}  // namespace ma::cli

#include "hub/hub_api.h"

#include "core/error.h"

namespace ma {

HubModelInfo fetch_model_info(HubHttp& http, const RepoRef& ref, const HubCache& cache,
                              const std::atomic<bool>* cancel, std::vector<std::string>* warnings) {
  const HubSettings& s = http.settings();
  std::string url =
      s.endpoint + "/api/models/" + ref.id + "/revision/" + url_quote(ref.revision, false) + "?blobs=true";
  HttpRequest req;
  req.max_body = kMaxSmallFile;
  req.accept_compressed = true;
  req.cancel = cancel;
  HubResult r = http.fetch(url, std::move(req), {ref.id, ref.revision, ""});
  if (r.response.capped) throw Error(ErrorKind::Limit, ref.id, "model info", "larger than 64 MiB");
  HubModelInfo info = parse_model_info(r.response.body, "model info of " + ref.id);
  // Both writes are tried; one warning at most says what was not saved.
  std::string unsaved;
  auto best_effort = [&](auto write) {
    try {
      write();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::LocalIO) throw;
      if (unsaved.empty()) unsaved = e.message();
    }
  };
  best_effort([&] { cache.write_info(info.commit, r.response.body); });
  if (!is_commit_hash(ref.revision)) best_effort([&] { cache.write_ref(ref.revision, info.commit); });
  if (!unsaved.empty() && warnings)
    warnings->push_back("the file list of " + ref.id + "@" + ref.revision + " was not saved in the cache (" +
                        unsaved + "); the run goes on from the files present");
  return info;
}

std::string resolve_url(const HubSettings& settings, const std::string& repo_id, const std::string& commit,
                        const std::string& path) {
  return settings.endpoint + "/" + repo_id + "/resolve/" + commit + "/" + url_quote(path, true);
}

}  // namespace ma

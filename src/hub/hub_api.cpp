#include "hub/hub_api.h"

#include "core/error.h"

namespace ma {

HubModelInfo fetch_model_info(HubHttp& http, const RepoRef& ref, const HubCache& cache,
                              const std::atomic<bool>* cancel) {
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
  cache.write_info(info.commit, r.response.body);
  if (!is_commit_hash(ref.revision)) cache.write_ref(ref.revision, info.commit);
  return info;
}

std::string resolve_url(const HubSettings& settings, const std::string& repo_id, const std::string& commit,
                        const std::string& path) {
  return settings.endpoint + "/" + repo_id + "/resolve/" + commit + "/" + url_quote(path, true);
}

}  // namespace ma

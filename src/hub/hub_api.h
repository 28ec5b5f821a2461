// The two Hub endpoints we use: the models API for a revision's commit and file list, and the resolve URL of
// a file at a commit (files are always fetched at the commit the revision resolved to, so one analysis never
// mixes two versions of a repo).
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "hub/hub_cache.h"
#include "hub/hub_http.h"
#include "hub/model_info.h"
#include "hub/repo_ref.h"

namespace ma {

// GET /api/models/{id}/revision/{rev}?blobs=true; records the answer (by commit) and the ref in the cache.
// `cancel` (Ctrl-C) stops it, a wait between retries included. Recording is best effort: a read-only shared
// cache (a cluster's, a Docker volume) is a supported setup and the listing only saves a request, so a
// failed write adds one warning to `warnings` (when given) and the run goes on from the files present.
HubModelInfo fetch_model_info(HubHttp& http, const RepoRef& ref, const HubCache& cache,
                              const std::atomic<bool>* cancel = nullptr,
                              std::vector<std::string>* warnings = nullptr);

std::string resolve_url(const HubSettings& settings, const std::string& repo_id, const std::string& commit,
                        const std::string& path);

inline constexpr uint64_t kMaxSmallFile = 64ull << 20;  // model info, configs, tokenizers, indexes

}  // namespace ma

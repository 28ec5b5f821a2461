// What the user named on the Hub: a repo id with an optional revision, from "gpt2", "org/name",
// "org/name@rev" or a huggingface.co / hf.co URL ("https://huggingface.co/org/name/tree/rev", or
// ".../resolve/rev/file.gguf", which also names a file). Validation is
// the huggingface_hub rules made stricter where they leave gaps (anchors-reliability §5.1, N22, N23): no
// "..", no "--" in ids, no ".." segment in revisions, no absolute or drive paths in repo file names.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ma {

struct RepoRef {
  std::string id;                 // "org/name" or "name"
  std::string revision = "main";  // branch, tag, "refs/pr/N" or a 40-hex commit
  bool explicit_revision = false;
  // A trailing ":NAME" ("org/name-GGUF:Q4_K_M", "org/name-GGUF@main:Q4_K_M", "hf.co/org/name-GGUF:Q4_K_M"):
  // one GGUF model of a repository of quantizations, as llama.cpp's -hf and Ollama spell it.
  std::optional<std::string> gguf_model;
  // The file a "/blob/REV/FILE" or "/resolve/REV/FILE" URL names (percent-decoded, checked to stay inside the
  // repo): that one file, not the whole repository. Never set together with gguf_model.
  std::optional<std::string> file;
};

// nullopt when `arg` does not have the shape of a repo id or Hub URL at all (then it is a local path);
// Error(Usage) when it has that shape but breaks a rule (a 97-character name, "a--b", "..", a bad revision).
std::optional<RepoRef> parse_repo_ref(std::string_view arg);

void validate_repo_id(std::string_view id);         // throws Error(Usage)
void validate_revision(std::string_view revision);  // throws Error(Usage)
// A file name from a listing, an index or the command line must stay inside the repo: throws Error(Unsafe).
void validate_repo_filename(std::string_view path, std::string_view source);

bool is_commit_hash(std::string_view s);  // 40 lower-case hex digits

// Percent-encoding for URL path parts: `keep_slash` for file paths (dot segments were refused already),
// not for revisions (as huggingface_hub's quote(revision, safe="")).
std::string url_quote(std::string_view s, bool keep_slash);

// "models--org--name": the cache folder of a model repo.
std::string repo_folder_name(std::string_view id);

}  // namespace ma

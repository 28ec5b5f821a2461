// Paths from the environment as huggingface_hub reads them (constants.py): HF_HOME, HF_HUB_CACHE and
// HF_TOKEN_PATH go through os.path.expandvars(os.path.expanduser(value)). A `~` or `$HOME` that a systemd
// unit, an .env file or a compose file passes through unexpanded must name the same directory for both
// tools, not a second cache under the current directory.
#pragma once
#include <functional>
#include <optional>
#include <string>

namespace ma {

using EnvLookup = std::function<std::optional<std::string>(const char*)>;

// posixpath.expanduser: a leading `~` (up to the first '/') becomes $HOME, else the user's home from the
// password database; `~name` becomes that user's home. Unchanged when there is no such home.
std::string expand_user(const std::string& path, const EnvLookup& env);

// posixpath.expandvars: `$name` (ASCII letters, digits, '_') and `${name}` are replaced by the variable's
// value when it is set (once: a value is not expanded again); unset ones stay as written.
std::string expand_vars(const std::string& path, const EnvLookup& env);

// expand_vars(expand_user(path)): the order huggingface_hub applies them in.
std::string expand_env_path(const std::string& path, const EnvLookup& env);

}  // namespace ma

#include "hub/env_path.h"

#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace ma {
namespace {

// The home directory of the password-database entry getpwnam_r/getpwuid_r fills in; nullopt when none.
template <typename Lookup>
std::optional<std::string> env_path_passwd_home(Lookup lookup) {
  long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(hint > 0 ? static_cast<size_t>(hint) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (lookup(&entry, buffer.data(), buffer.size(), &found) != 0 || !found || !found->pw_dir)
    return std::nullopt;
  return std::string(found->pw_dir);
}

bool env_path_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string expand_user(const std::string& path, const EnvLookup& env) {
  if (path.empty() || path.front() != '~') return path;
  size_t i = path.find('/', 1);
  if (i == std::string::npos) i = path.size();
  std::optional<std::string> home;
  if (i == 1) {
    home = env("HOME");
    if (!home)
      home = env_path_passwd_home(
          [](passwd* e, char* b, size_t n, passwd** r) { return ::getpwuid_r(::getuid(), e, b, n, r); });
  } else {
    const std::string name = path.substr(1, i - 1);
    home = env_path_passwd_home(
        [&name](passwd* e, char* b, size_t n, passwd** r) { return ::getpwnam_r(name.c_str(), e, b, n, r); });
  }
  if (!home) return path;
  while (!home->empty() && home->back() == '/') home->pop_back();
  std::string out = *home + path.substr(i);
  return out.empty() ? "/" : out;
}

std::string expand_vars(const std::string& path, const EnvLookup& env) {
  std::string out = path;
  size_t i = 0;
  while ((i = out.find('$', i)) != std::string::npos) {
    // Python's pattern \$(\w+|\{[^}]*\}) (ASCII): the name, and where the match ends.
    std::string name;
    size_t end = i + 1;
    if (end < out.size() && env_path_word_char(out[end])) {
      while (end < out.size() && env_path_word_char(out[end])) ++end;
      name = out.substr(i + 1, end - i - 1);
    } else if (end < out.size() && out[end] == '{' && out.find('}', end) != std::string::npos) {
      const size_t close = out.find('}', end);
      name = out.substr(end + 1, close - end - 1);
      end = close + 1;
    } else {
      ++i;  // a '$' that starts no name: left as it is
      continue;
    }
    const std::optional<std::string> value = name.empty() ? std::nullopt : env(name.c_str());
    if (!value) {
      i = end;  // unset: left as written
      continue;
    }
    out.replace(i, end - i, *value);
    i += value->size();  // the value itself is not expanded again
  }
  return out;
}

std::string expand_env_path(const std::string& path, const EnvLookup& env) {
  return expand_vars(expand_user(path, env), env);
}

}  // namespace ma

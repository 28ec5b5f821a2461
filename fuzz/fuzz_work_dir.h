// A private directory for fuzz targets that must hand their input to code reading files (tokenizer files,
// config.json): created once per process, removed at exit.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ma::fuzz {

inline char g_work_dir[4096];  // a plain buffer: the exit handler runs after static objects are destroyed

inline void remove_work_dir() {
  std::error_code ec;
  std::filesystem::remove_all(g_work_dir, ec);
}

inline const std::filesystem::path& work_dir(const char* name) {
  static const std::filesystem::path dir = [name] {
    auto d = std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::snprintf(g_work_dir, sizeof g_work_dir, "%s", d.c_str());
    std::atexit(remove_work_dir);
    return d;
  }();
  return dir;
}

}  // namespace ma::fuzz

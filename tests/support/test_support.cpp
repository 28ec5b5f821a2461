#include "test_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <sstream>

namespace ma::test {

std::optional<std::filesystem::path> shared_data() {
  const char* instead = std::getenv("MA_TEST_SHARED_DATA");
  const std::filesystem::path p(instead ? instead : MA_SHARED_DATA);
  if (std::filesystem::is_directory(p / "oracle")) return p;
  return std::nullopt;
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("ma-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> files_under(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) out.push_back(it->path().lexically_relative(dir).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> downloaded_files(const std::filesystem::path& dir) {
  std::vector<std::string> out = files_under(dir);
  std::erase(out, ".modelanalyzer/repository");
  return out;
}

void write_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
}

json::Document parse_json_file(const std::filesystem::path& p) {
  json::Limits limits;
  limits.max_bytes = 1ull << 30;
  return json::Document::parse(read_file(p), p.string(), limits);
}

std::string quoted(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

CommandResult run_shell(const std::string& command_line) {
  TempDir tmp;
  // In a subshell, so that the line's own redirections and pipes apply inside the captured streams.
  const std::string cmd =
      "( " + command_line + " ) >" + quoted(tmp / "out") + " 2>" + quoted(tmp / "err") + " </dev/null";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(tmp / "out");
  r.err = read_file(tmp / "err");
  return r;
}

bool have_tool(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

bool python_imports(const std::string& module) {
  static std::map<std::string, bool> known;
  auto [it, added] = known.try_emplace(module, false);
  if (added)
    it->second =
        std::system((std::string(kPython) + " -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
  return it->second;
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (size_t i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

size_t occurrences(std::string_view text, std::string_view part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string f32(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  size_t i = 0;
  for (float x : values) std::memcpy(out.data() + 4 * i++, &x, 4);
  return out;
}

std::string f32_bytes(const std::vector<double>& values) {
  std::string out(values.size() * 4, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  return out;
}

std::string bf16_bytes(const std::vector<double>& values) {
  std::string out(values.size() * 2, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    const auto half = static_cast<uint16_t>(bits >> 16);
    std::memcpy(out.data() + 2 * i, &half, 2);
  }
  return out;
}

const json::Value& tensor(const json::Document& d, std::string_view name) {
  for (const json::Value& t : d.root().find("tensors")->items())
    if (t.find("name")->as_string() == name) return t;
  ADD_FAILURE() << "no tensor " << name;
  static const json::Document empty =
      json::Document::parse(R"({"trainable":false,"flagged":false})", "empty");
  return empty.root();
}

std::string tiny_llama_config(const std::string& num_hidden_layers) {
  return R"({"model_type":"llama","hidden_size":64,"num_attention_heads":4,"intermediate_size":128,)"
         R"("vocab_size":100,"num_hidden_layers":)" +
         num_hidden_layers + "}";
}

double NormalRng::uniform() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

double NormalRng::operator()() {
  const double u = 1.0 - uniform(), v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

}  // namespace ma::test

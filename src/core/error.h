// A typed error: what failed, where (file, field or tensor, byte offset) and why. The CLI turns it into one
// line on stderr and the exit code of its kind; nothing below the CLI prints or exits.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace ma {

// Exit codes are part of the CLI contract (README, "Exit codes").
enum class ErrorKind : int {
  Internal = 1,   // a bug; bad input must never produce it
  Usage = 2,      // bad command-line argument
  Malformed = 3,  // file breaks its format, or config breaks a semantic rule
  Unsafe = 4,     // content refused: path escaping the model directory, disallowed pickle global
  Limit = 5,      // a named resource cap exceeded
  Network = 6,
  Auth = 7,
  NotFound = 8,      // file, repo or revision does not exist
  LocalIO = 9,       // local filesystem failure (permissions, disk full)
  Unsupported = 10,  // a well-formed model whose architecture we do not model
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string file, std::string field, std::string rule,
        std::optional<uint64_t> offset = std::nullopt);
  ErrorKind kind() const { return kind_; }
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& rule() const { return rule_; }
  std::optional<uint64_t> offset() const { return offset_; }
  int exit_code() const { return static_cast<int>(kind_); }
  // what() in full: a name with a NUL byte would end what()'s C string there, and the line with it.
  std::string message() const;

 private:
  ErrorKind kind_;
  std::string file_, field_, rule_;
  std::optional<uint64_t> offset_;
};

// An error one input is at fault for (malformed, missing, over a cap, refused, not modelled), as opposed to
// the network, a token, Ctrl-C, the disk or a bug: a listing of several inputs names the first kind beside
// the others and stops for the second.
bool is_input_fault(const Error& e);

// Printable form of untrusted text for messages: control bytes and non-ASCII bytes escaped, length capped.
std::string printable(std::string_view s, size_t max_len = 80);
// How an error names a tensor of a weights file: "tensor 'model.embed_tokens.weight'", printable.
std::string tensor_field(std::string_view name);

}  // namespace ma

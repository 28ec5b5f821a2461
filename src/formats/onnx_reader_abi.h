// The boundary between the program and its ONNX reader, a module (libma_onnx.so) loaded only when an ONNX
// model is read: ONNX's library and protobuf cost every command ~3.3 ms of start-up when linked into the
// program, for the few that read ONNX. Both sides are built together by one compiler and standard library;
// errors cross as values, never as exceptions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/onnx_model.h"

namespace ma {

struct OnnxReadRequest {
  std::string_view bytes;                           // the whole .onnx file
  std::string name;                                 // what errors call it
  const OnnxExternalSize* external_size = nullptr;  // never throws (read_onnx keeps the caller's errors)
  OnnxLimits limits;
};

struct OnnxReadResult {
  OnnxModel model;
  int error_kind = 0;  // 0: read; else the ErrorKind of the error below
  std::string file, field, rule;
  std::optional<uint64_t> offset;
};

// extern "C" void ma_onnx_read(const OnnxReadRequest*, OnnxReadResult*) noexcept, exported by the module.
inline constexpr const char* kOnnxReadSymbol = "ma_onnx_read";
using OnnxReadFunction = void (*)(const OnnxReadRequest*, OnnxReadResult*);

}  // namespace ma

// The one table of element types: every dtype any supported format can declare, with its width in bits.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace ma {

enum class DType : uint8_t {
  BOOL,
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,
  F8_E8M0,
  F8_E4M3FNUZ,
  F8_E5M2FNUZ,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  C64,
  F64,
  I64,
  U64,
  F4,
  F6_E2M3,
  F6_E3M2,
};

struct DTypeInfo {
  DType dtype;
  std::string_view safetensors_name;  // as written in safetensors headers ("BF16")
  std::string_view torch_name;        // as printed by torch ("torch.bfloat16"), seed 003's CSV format
  std::string_view short_name;        // as users write it on the command line and in reports ("bf16")
  uint32_t bits;
  bool is_float;
  std::string_view
      torch_storage;  // the typed storage class PyTorch pickles name ("FloatStorage"); "" for none
};

const DTypeInfo& dtype_info(DType t);
std::optional<DType> dtype_from_safetensors(std::string_view name);
// Accepts short names ("bf16"), torch names ("bfloat16", "torch.bfloat16") and safetensors names.
std::optional<DType> dtype_from_any_name(std::string_view name);
// The dtype of a PyTorch typed storage class ("BFloat16Storage", without the "torch." module).
std::optional<DType> dtype_from_torch_storage(std::string_view class_name);
inline uint32_t dtype_bits(DType t) {
  return dtype_info(t).bits;
}
std::string_view dtype_known_names();  // for error messages: "BOOL, U8, ..."

}  // namespace ma

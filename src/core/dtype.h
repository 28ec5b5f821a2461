// The one table of element types: every dtype any supported format can declare, with its width in bits, and
// ggml's block types (GGUF): a fixed number of elements stored together with their scales in a fixed number
// of bytes (Q4_K: 256 elements in 144 bytes, 4.5 bits per element).
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
  I4,  // ONNX's INT4 / UINT4: two per byte, the first element in the low nibble (as F4)
  U4,
  // ggml block types, in ggml's own order (ggml.h enum ggml_type).
  Q4_0,
  Q4_1,
  Q5_0,
  Q5_1,
  Q8_0,
  Q8_1,
  Q2_K,
  Q3_K,
  Q4_K,
  Q5_K,
  Q6_K,
  Q8_K,
  IQ2_XXS,
  IQ2_XS,
  IQ3_XXS,
  IQ1_S,
  IQ4_NL,
  IQ3_S,
  IQ2_S,
  IQ4_XS,
  IQ1_M,
  TQ1_0,
  TQ2_0,
  MXFP4,
  NVFP4,
  Q1_0,
  Q2_0,
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;        // as safetensors headers write it ("BF16"); ggml's upper-cased ("Q4_K")
  std::string_view torch_name;  // as printed by torch ("torch.bfloat16"), seed 003's CSV format
  std::string_view short_name;  // as users write it on the command line and in reports ("bf16")
  uint32_t bits;                // per element; 0 for block types (see block_elements)
  bool is_float;
  std::string_view
      torch_storage;            // the typed storage class PyTorch pickles name ("FloatStorage"); "" for none
  int32_t onnx_type = -1;       // ONNX's TensorProto.DataType value; -1: ONNX has no such type
  int32_t ggml_type = -1;       // ggml's enum value (GGUF tensor infos); -1: ggml has no such type
  uint32_t block_elements = 1;  // block types: elements per block; 1 for element types
  uint32_t block_bytes = 0;     // block types: bytes per block (scales included)
};

const DTypeInfo& dtype_info(DType t);
// Element types only: a block type in a safetensors header is an unknown dtype.
std::optional<DType> dtype_from_safetensors(std::string_view name);
std::optional<DType> dtype_from_ggml(uint32_t ggml_type);
std::optional<DType> dtype_from_onnx(int32_t onnx_type);
// Accepts short names ("bf16"), torch names ("bfloat16", "torch.bfloat16") and safetensors names.
std::optional<DType> dtype_from_any_name(std::string_view name);
// The dtype of a PyTorch typed storage class ("BFloat16Storage", without the "torch." module).
std::optional<DType> dtype_from_torch_storage(std::string_view class_name);
// A storage class torch.load(weights_only=True) admits whose element type has no DType here (complex128, the
// quantized storages): safe to unpickle, but its tensors are not read (Error(Unsupported), not a refusal).
bool torch_storage_without_dtype(std::string_view class_name);
// Bits per element of an element type (0 for block types: use dtype_bytes or dtype_bits_per_element).
inline uint32_t dtype_bits(DType t) {
  return dtype_info(t).bits;
}
inline bool is_block_type(DType t) {
  return dtype_info(t).block_elements > 1;
}
// Bytes that `elements` elements take: whole blocks for block types, whole bytes otherwise (F4, I4 and U4
// pack two elements per byte). Block types need a multiple of the block size; the caller checks
// (formats/gguf.cpp).
uint64_t dtype_bytes(uint64_t elements, DType t);
// Explicit fraction (mantissa) bits of a floating-point element type (BF16 7, F16 10, F8_E4M3 3, F32 23);
// nullopt for integers and block types. Rounding to the type moves a value by at most 2^-(bits + 1) of it.
std::optional<uint32_t> dtype_fraction_bits(DType t);
// The exponent of a float dtype's smallest normal value, 2^emin (bf16 -126, f16 -14, E4M3 -6); nullopt for
// integers, block types and E8M0 (powers of two only, no fraction to round).
std::optional<int> dtype_min_normal_exponent(DType t);
// Storage bits per element, scales included (Q4_K 4.5, Q8_0 8.5, BF16 16).
double dtype_bits_per_element(DType t);
std::string_view dtype_known_names();  // for error messages: "BOOL, U8, ..."

}  // namespace ma

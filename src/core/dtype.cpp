#include "core/dtype.h"

#include <algorithm>
#include <array>
#include <string>

#include "core/json.h"
#include "core/text.h"

namespace ma {
namespace {

constexpr std::array<DTypeInfo, 51> kTable{{
    {DType::BOOL, "BOOL", "torch.bool", "bool", 8, false, "BoolStorage", 9},
    {DType::U8, "U8", "torch.uint8", "u8", 8, false, "ByteStorage", 2},
    {DType::I8, "I8", "torch.int8", "i8", 8, false, "CharStorage", 3, 24},
    {DType::F8_E5M2, "F8_E5M2", "torch.float8_e5m2", "f8_e5m2", 8, true, "", 19},
    {DType::F8_E4M3, "F8_E4M3", "torch.float8_e4m3fn", "f8_e4m3", 8, true, "", 17},
    {DType::F8_E8M0, "F8_E8M0", "torch.float8_e8m0fnu", "f8_e8m0", 8, true, "", 24},
    {DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", "torch.float8_e4m3fnuz", "f8_e4m3fnuz", 8, true, "", 18},
    {DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", "torch.float8_e5m2fnuz", "f8_e5m2fnuz", 8, true, "", 20},
    {DType::I16, "I16", "torch.int16", "i16", 16, false, "ShortStorage", 5, 25},
    {DType::U16, "U16", "torch.uint16", "u16", 16, false, "", 4},
    {DType::F16, "F16", "torch.float16", "f16", 16, true, "HalfStorage", 10, 1},
    {DType::BF16, "BF16", "torch.bfloat16", "bf16", 16, true, "BFloat16Storage", 16, 30},
    {DType::I32, "I32", "torch.int32", "i32", 32, false, "IntStorage", 6, 26},
    {DType::U32, "U32", "torch.uint32", "u32", 32, false, "", 12},
    {DType::F32, "F32", "torch.float32", "f32", 32, true, "FloatStorage", 1, 0},
    {DType::C64, "C64", "torch.complex64", "c64", 64, true, "ComplexFloatStorage", 14},
    {DType::F64, "F64", "torch.float64", "f64", 64, true, "DoubleStorage", 11, 28},
    {DType::I64, "I64", "torch.int64", "i64", 64, false, "LongStorage", 7, 27},
    {DType::U64, "U64", "torch.uint64", "u64", 64, false, "", 13},
    {DType::F4, "F4", "torch.float4_e2m1fn_x2", "f4", 4, true, "", 23},
    {DType::F6_E2M3, "F6_E2M3", "torch.float6_e2m3fn", "f6_e2m3", 6, true, "", -1},
    {DType::F6_E3M2, "F6_E3M2", "torch.float6_e3m2fn", "f6_e3m2", 6, true, "", -1},
    {DType::I4, "I4", "torch.int4", "i4", 4, false, "", 22},
    {DType::U4, "U4", "torch.uint4", "u4", 4, false, "", 21},
    // ggml block types: {name, -, short name, 0 bits, float, -, -, ggml type, elements per block, bytes per
    // block} as ggml_get_type_traits gives them (tests/formats/ggml_types_test.cpp checks against llama.cpp's
    // own).
    {DType::Q4_0, "Q4_0", "", "q4_0", 0, true, "", -1, 2, 32, 18},
    {DType::Q4_1, "Q4_1", "", "q4_1", 0, true, "", -1, 3, 32, 20},
    {DType::Q5_0, "Q5_0", "", "q5_0", 0, true, "", -1, 6, 32, 22},
    {DType::Q5_1, "Q5_1", "", "q5_1", 0, true, "", -1, 7, 32, 24},
    {DType::Q8_0, "Q8_0", "", "q8_0", 0, true, "", -1, 8, 32, 34},
    {DType::Q8_1, "Q8_1", "", "q8_1", 0, true, "", -1, 9, 32, 36},
    {DType::Q2_K, "Q2_K", "", "q2_k", 0, true, "", -1, 10, 256, 84},
    {DType::Q3_K, "Q3_K", "", "q3_k", 0, true, "", -1, 11, 256, 110},
    {DType::Q4_K, "Q4_K", "", "q4_k", 0, true, "", -1, 12, 256, 144},
    {DType::Q5_K, "Q5_K", "", "q5_k", 0, true, "", -1, 13, 256, 176},
    {DType::Q6_K, "Q6_K", "", "q6_k", 0, true, "", -1, 14, 256, 210},
    {DType::Q8_K, "Q8_K", "", "q8_k", 0, true, "", -1, 15, 256, 292},
    {DType::IQ2_XXS, "IQ2_XXS", "", "iq2_xxs", 0, true, "", -1, 16, 256, 66},
    {DType::IQ2_XS, "IQ2_XS", "", "iq2_xs", 0, true, "", -1, 17, 256, 74},
    {DType::IQ3_XXS, "IQ3_XXS", "", "iq3_xxs", 0, true, "", -1, 18, 256, 98},
    {DType::IQ1_S, "IQ1_S", "", "iq1_s", 0, true, "", -1, 19, 256, 50},
    {DType::IQ4_NL, "IQ4_NL", "", "iq4_nl", 0, true, "", -1, 20, 32, 18},
    {DType::IQ3_S, "IQ3_S", "", "iq3_s", 0, true, "", -1, 21, 256, 110},
    {DType::IQ2_S, "IQ2_S", "", "iq2_s", 0, true, "", -1, 22, 256, 82},
    {DType::IQ4_XS, "IQ4_XS", "", "iq4_xs", 0, true, "", -1, 23, 256, 136},
    {DType::IQ1_M, "IQ1_M", "", "iq1_m", 0, true, "", -1, 29, 256, 56},
    {DType::TQ1_0, "TQ1_0", "", "tq1_0", 0, true, "", -1, 34, 256, 54},
    {DType::TQ2_0, "TQ2_0", "", "tq2_0", 0, true, "", -1, 35, 256, 66},
    {DType::MXFP4, "MXFP4", "", "mxfp4", 0, true, "", -1, 39, 32, 17},
    {DType::NVFP4, "NVFP4", "", "nvfp4", 0, true, "", -1, 40, 64, 36},
    {DType::Q1_0, "Q1_0", "", "q1_0", 0, true, "", -1, 41, 128, 18},
    {DType::Q2_0, "Q2_0", "", "q2_0", 0, true, "", -1, 42, 64, 18},
}};
// Inventory rows are written to JSON with these names copied between quotes, unscanned.
static_assert(std::all_of(kTable.begin(), kTable.end(),
                          [](const DTypeInfo& e) { return json::quotes_as_is(e.short_name); }));

}  // namespace

const DTypeInfo& dtype_info(DType t) {
  return kTable[static_cast<size_t>(t)];
}

namespace {
// What a safetensors header may declare: element types, not ggml's blocks, and not the 4-bit integers, which
// are ONNX's (the safetensors format defines no I4 or U4).
bool safetensors_declares(const DTypeInfo& e) {
  return e.block_elements == 1 && e.dtype != DType::I4 && e.dtype != DType::U4;
}
}  // namespace

std::optional<DType> dtype_from_safetensors(std::string_view name) {
  for (const auto& e : kTable)
    if (e.name == name && safetensors_declares(e)) return e.dtype;
  return std::nullopt;
}

std::optional<DType> dtype_from_ggml(uint32_t ggml_type) {
  for (const auto& e : kTable)
    if (e.ggml_type >= 0 && static_cast<uint32_t>(e.ggml_type) == ggml_type) return e.dtype;
  return std::nullopt;
}

std::optional<DType> dtype_from_onnx(int32_t onnx_type) {
  for (const auto& e : kTable)
    if (e.onnx_type >= 0 && e.onnx_type == onnx_type) return e.dtype;
  return std::nullopt;
}

uint64_t dtype_bytes(uint64_t elements, DType t) {
  const DTypeInfo& d = dtype_info(t);
  if (d.block_elements > 1) return (elements + d.block_elements - 1) / d.block_elements * d.block_bytes;
  return (elements * d.bits + 7) / 8;
}

std::optional<uint32_t> dtype_fraction_bits(DType t) {
  switch (t) {
    case DType::F64:
      return 52;
    case DType::F32:
      return 23;
    case DType::F16:
      return 10;
    case DType::BF16:
      return 7;
    case DType::F8_E4M3:
    case DType::F8_E4M3FNUZ:
    case DType::F6_E2M3:
      return 3;
    case DType::F8_E5M2:
    case DType::F8_E5M2FNUZ:
    case DType::F6_E3M2:
      return 2;
    case DType::F4:
      return 1;
    case DType::F8_E8M0:
      return 0;
    default:
      return std::nullopt;
  }
}

std::optional<int> dtype_min_normal_exponent(DType t) {
  switch (t) {
    case DType::F64:
      return -1022;
    case DType::F32:
    case DType::BF16:
      return -126;
    case DType::F16:
    case DType::F8_E5M2:
      return -14;
    case DType::F8_E4M3:
      return -6;
    case DType::F8_E4M3FNUZ:
      return -7;
    case DType::F8_E5M2FNUZ:
      return -15;
    case DType::F6_E3M2:
      return -2;
    case DType::F6_E2M3:
    case DType::F4:
      return 0;
    default:
      return std::nullopt;
  }
}

double dtype_bits_per_element(DType t) {
  const DTypeInfo& d = dtype_info(t);
  if (d.block_elements > 1) return 8.0 * d.block_bytes / d.block_elements;
  return d.bits;
}

std::optional<DType> dtype_from_any_name(std::string_view name) {
  std::string n = ascii_lower(name);
  if (n.rfind("torch.", 0) == 0) n.erase(0, 6);
  // Aliases used by config.json ("torch_dtype") and by users.
  static constexpr std::pair<std::string_view, DType> kAliases[] = {
      {"float32", DType::F32},
      {"float", DType::F32},
      {"fp32", DType::F32},
      {"float16", DType::F16},
      {"half", DType::F16},
      {"fp16", DType::F16},
      {"bfloat16", DType::BF16},
      {"float64", DType::F64},
      {"double", DType::F64},
      {"int8", DType::I8},
      {"uint8", DType::U8},
      {"int16", DType::I16},
      {"int32", DType::I32},
      {"int64", DType::I64},
      {"fp8", DType::F8_E4M3},
      // vLLM's and SGLang's --kv-cache-dtype spellings.
      {"fp8_e4m3", DType::F8_E4M3},
      {"fp8_e5m2", DType::F8_E5M2},
      {"float8_e4m3fn", DType::F8_E4M3},
      {"float8_e5m2", DType::F8_E5M2},
      {"bool", DType::BOOL},
  };
  for (const auto& [alias, t] : kAliases)
    if (alias == n) return t;
  for (const auto& e : kTable)
    if (e.short_name == n || ascii_lower(e.name) == n ||
        (!e.torch_name.empty() && e.torch_name.substr(6) == n))
      return e.dtype;
  return std::nullopt;
}

std::string_view dtype_known_names() {
  static const std::string names = [] {
    std::string s;
    for (const auto& e : kTable) {
      if (!safetensors_declares(e)) continue;  // the message lists what safetensors headers may declare
      if (!s.empty()) s += ", ";
      s += e.name;
    }
    return s;
  }();
  return names;
}

std::optional<DType> dtype_from_torch_storage(std::string_view class_name) {
  for (const DTypeInfo& d : kTable)
    if (!d.torch_storage.empty() && d.torch_storage == class_name) return d.dtype;
  return std::nullopt;
}

bool torch_storage_without_dtype(std::string_view class_name) {
  // torch._storage_classes less those kTable maps.
  for (std::string_view s : {"ComplexDoubleStorage", "QUInt8Storage", "QInt8Storage", "QInt32Storage",
                             "QUInt4x2Storage", "QUInt2x4Storage"})
    if (s == class_name) return true;
  return false;
}

}  // namespace ma

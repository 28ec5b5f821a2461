#include "core/dtype.h"

#include <array>
#include <cctype>
#include <string>

namespace ma {
namespace {

constexpr std::array<DTypeInfo, 22> kTable{{
    {DType::BOOL, "BOOL", "torch.bool", "bool", 8, false, "BoolStorage"},
    {DType::U8, "U8", "torch.uint8", "u8", 8, false, "ByteStorage"},
    {DType::I8, "I8", "torch.int8", "i8", 8, false, "CharStorage"},
    {DType::F8_E5M2, "F8_E5M2", "torch.float8_e5m2", "f8_e5m2", 8, true, ""},
    {DType::F8_E4M3, "F8_E4M3", "torch.float8_e4m3fn", "f8_e4m3", 8, true, ""},
    {DType::F8_E8M0, "F8_E8M0", "torch.float8_e8m0fnu", "f8_e8m0", 8, true, ""},
    {DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", "torch.float8_e4m3fnuz", "f8_e4m3fnuz", 8, true, ""},
    {DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", "torch.float8_e5m2fnuz", "f8_e5m2fnuz", 8, true, ""},
    {DType::I16, "I16", "torch.int16", "i16", 16, false, "ShortStorage"},
    {DType::U16, "U16", "torch.uint16", "u16", 16, false, ""},
    {DType::F16, "F16", "torch.float16", "f16", 16, true, "HalfStorage"},
    {DType::BF16, "BF16", "torch.bfloat16", "bf16", 16, true, "BFloat16Storage"},
    {DType::I32, "I32", "torch.int32", "i32", 32, false, "IntStorage"},
    {DType::U32, "U32", "torch.uint32", "u32", 32, false, ""},
    {DType::F32, "F32", "torch.float32", "f32", 32, true, "FloatStorage"},
    {DType::C64, "C64", "torch.complex64", "c64", 64, true, "ComplexFloatStorage"},
    {DType::F64, "F64", "torch.float64", "f64", 64, true, "DoubleStorage"},
    {DType::I64, "I64", "torch.int64", "i64", 64, false, "LongStorage"},
    {DType::U64, "U64", "torch.uint64", "u64", 64, false, ""},
    {DType::F4, "F4", "torch.float4_e2m1fn_x2", "f4", 4, true, ""},
    {DType::F6_E2M3, "F6_E2M3", "torch.float6_e2m3fn", "f6_e2m3", 6, true, ""},
    {DType::F6_E3M2, "F6_E3M2", "torch.float6_e3m2fn", "f6_e3m2", 6, true, ""},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const DTypeInfo& dtype_info(DType t) {
  return kTable[static_cast<size_t>(t)];
}

std::optional<DType> dtype_from_safetensors(std::string_view name) {
  for (const auto& e : kTable)
    if (e.safetensors_name == name) return e.dtype;
  return std::nullopt;
}

std::optional<DType> dtype_from_any_name(std::string_view name) {
  std::string n = lower(name);
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
      {"float8_e4m3fn", DType::F8_E4M3},
      {"float8_e5m2", DType::F8_E5M2},
      {"bool", DType::BOOL},
  };
  for (const auto& [alias, t] : kAliases)
    if (alias == n) return t;
  for (const auto& e : kTable)
    if (e.short_name == n || lower(e.safetensors_name) == n || e.torch_name.substr(6) == n) return e.dtype;
  return std::nullopt;
}

std::string_view dtype_known_names() {
  static const std::string names = [] {
    std::string s;
    for (const auto& e : kTable) {
      if (!s.empty()) s += ", ";
      s += e.safetensors_name;
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

}  // namespace ma

#include "core/dtype_values.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace ma {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A small float with `e` exponent bits, `m` mantissa bits and bias `bias`; `ieee_top` says whether the top
// exponent holds Inf/NaN (IEEE, F8_E5M2) or ordinary values (the fn/fnuz types, whose NaN is handled by the
// caller).
double small_float(uint32_t bits, int e, int m, int bias, bool ieee_top) {
  const bool negative = (bits >> (e + m)) & 1;
  const uint32_t exponent = (bits >> m) & ((1u << e) - 1);
  const uint32_t mantissa = bits & ((1u << m) - 1);
  double v;
  if (ieee_top && exponent == (1u << e) - 1) {
    v = mantissa ? kNaN : kInf;
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), 1 - bias - m);  // subnormal
  } else {
    v = std::ldexp(static_cast<double>(mantissa | (1u << m)), static_cast<int>(exponent) - bias - m);
  }
  return negative ? -v : v;
}

}  // namespace

bool has_element_values(DType t) {
  return t != DType::C64 && t != DType::F6_E2M3 && t != DType::F6_E3M2 && !is_block_type(t);
}

uint32_t counted_patterns(DType t) {
  if (dtype_bits(t) == 4) return 16;
  uint32_t bits = dtype_bits(t);
  return bits <= 16 && has_element_values(t) ? 1u << bits : 0;
}

double element_value(DType t, uint64_t bits) {
  switch (t) {
    case DType::BOOL:
      return bits ? 1.0 : 0.0;
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      return static_cast<double>(bits);
    case DType::I8:
      return static_cast<double>(static_cast<int8_t>(bits));
    case DType::I16:
      return static_cast<double>(static_cast<int16_t>(bits));
    case DType::I32:
      return static_cast<double>(static_cast<int32_t>(bits));
    case DType::I64:
      return static_cast<double>(static_cast<int64_t>(bits));
    case DType::F16:
      return small_float(static_cast<uint32_t>(bits), 5, 10, 15, true);
    case DType::BF16: {
      uint32_t u = static_cast<uint32_t>(bits) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    case DType::F32: {
      uint32_t u = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    case DType::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case DType::F8_E5M2:
      return small_float(static_cast<uint32_t>(bits), 5, 2, 15, true);
    case DType::F8_E4M3:  // "fn": no infinities; S.1111.111 is NaN
      return (bits & 0x7f) == 0x7f ? kNaN : small_float(static_cast<uint32_t>(bits), 4, 3, 7, false);
    case DType::F8_E4M3FNUZ:  // "fnuz": the negative-zero pattern is the only NaN
      return bits == 0x80 ? kNaN : small_float(static_cast<uint32_t>(bits), 4, 3, 8, false);
    case DType::F8_E5M2FNUZ:
      return bits == 0x80 ? kNaN : small_float(static_cast<uint32_t>(bits), 5, 2, 16, false);
    case DType::F8_E8M0:
      return bits == 0xff ? kNaN : std::ldexp(1.0, static_cast<int>(bits) - 127);
    case DType::F4:
      return small_float(static_cast<uint32_t>(bits & 0xf), 2, 1, 1, false);
    case DType::I4:  // two's complement in a nibble
      return static_cast<double>(static_cast<int>(bits & 0xf) - ((bits & 0x8) ? 16 : 0));
    case DType::U4:
      return static_cast<double>(bits & 0xf);
    default:  // complex, 6-bit floats and block types: no value per element bit pattern
      break;
  }
  return kNaN;
}

}  // namespace ma

// The level form of ggml block types whose elements come in groups that share one short table of values: a
// group's elements are small codes, and each code decodes to one float32 of its group's table (Q4_K: groups
// of 32 elements, 16 levels d·scale·q − dmin·min). A group is then described exactly by its table and how
// many elements hold each code; statistics over the tensor need nothing else, and the table has half (Q4_K)
// to a quarter (Q2_K) as many entries as the group has elements. Each level is the float ggml_dequant.h
// decodes for that code, bit for bit (tests/unit/ggml_levels_test.cpp compares them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/dtype.h"

namespace ma {

struct GgmlLevelShape {
  uint32_t group_elements = 0;  // elements sharing one table
  uint32_t levels = 0;          // entries of the table (codes 0 .. levels - 1)
};

// The level form of `t` where it has fewer levels than a group has elements (Q4_0, Q4_1, IQ4_NL, IQ4_XS,
// MXFP4, Q2_K, Q3_K, Q4_K); nullopt for the other types, whose elements are decoded one by one.
std::optional<GgmlLevelShape> ggml_level_shape(DType t);

// For `blocks` whole blocks of `t` at `src`, group by group in element order: levels[g * L + q] is the float
// code q decodes to in group g, counts[g * L + q] how many of its elements hold code q (L = levels). Every
// code's level is written, counted or not. Precondition: ggml_level_shape(t).
void block_levels(DType t, const uint8_t* src, size_t blocks, float* levels, uint8_t* counts);

}  // namespace ma

// The table of quantization methods the report recognises: how each names itself in a config, its weight
// bits and group size when the config does not say, how its checkpoints store a quantized weight, and the
// format in one sentence. Data in one place; analysis/quantization.cpp reads configs and tensors against it.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/dtype.h"

namespace ma {

struct QuantMethod {
  std::string_view key;                // quant_method (or modelopt quant_algo), lower case
  std::string_view name;               // as reported
  std::optional<uint32_t> bits;        // weight bits when the config does not say
  std::optional<uint64_t> group_size;  // elements per scale when the config does not say (fixed by format)
  DType weight_dtype;                  // stored dtype of a quantized weight (packing container for < 8 bits)
  bool quantizes_lm_head;              // false: lm_head stays 16-bit unless the config lists it
  std::string_view detail;             // the stored format, one sentence
};

// nullptr when the key names no method of the table.
const QuantMethod* find_quant_method(std::string_view key);

// Width of the integer container a packed weight is stored in (int32 qweight, uint8 FP4 pairs); 0 for a
// dtype that is not used as a container (floats, bool).
uint32_t packing_container_bits(DType d);

}  // namespace ma

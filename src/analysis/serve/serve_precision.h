// `serve --precision fp8|fp4|bf16`: the weights as the engines run them. A checkpoint released in that
// precision runs as stored (gpt-oss's MXFP4 experts, DeepSeek-R1's block FP8: W4A16 / W8A16 where the chip
// lacks the format's tensor cores, W4A4 / W8A8 where it has them); any other is converted to it.
#pragma once
#include <optional>
#include <string_view>

#include "analysis/plan/plan.h"
#include "analysis/quantization.h"

namespace ma {

// nullopt for a name other than fp4, fp8 or bf16.
std::optional<WeightPrecision> serve_precision(std::string_view name, const QuantizationInfo& stored);

}  // namespace ma

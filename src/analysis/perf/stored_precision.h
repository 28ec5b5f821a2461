// perf's default for a quantized checkpoint: the weights as stored, in the precision serving engines run
// them. Float8 weights run W8A8 on fp8 tensor cores where the device has them; NVFP4 / MXFP4 run W4A4 on a
// device with fp4 tensor cores; everything else (GPTQ, AWQ, bitsandbytes, FP4 on Hopper, FP8 on Ampere)
// keeps 16-bit activations and dequantizes the weights inside the GEMM (W4A16, W8A16).
#pragma once
#include <optional>

#include "analysis/perf/hardware.h"
#include "analysis/perf/perf_model.h"
#include "analysis/quantization.h"
#include "core/dtype.h"

namespace ma {

// Sets the weight and activation dtypes and the per-tensor stored bytes of `in` from `q` (no change for an
// unquantized checkpoint: engines load those in their 16-bit dtype). `declared_kv`: the cache dtype the
// checkpoint was calibrated for, used unless `kv_given` (the user's --kv-dtype).
void use_stored_weights(PerfInputs& in, const QuantizationInfo& q, std::optional<DType> declared_kv,
                        bool kv_given, const Hardware& hw);

}  // namespace ma

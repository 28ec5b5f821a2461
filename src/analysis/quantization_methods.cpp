#include "analysis/quantization_methods.h"

#include <array>

namespace ma {
namespace {

// Defaults are the formats' own: MXFP4 shares one E8M0 scale per 32 values and NVFP4 one E4M3 scale per 16
// (OCP MX and NVIDIA specs), bitsandbytes quantize_4bit uses blocks of 64, GPTQ/AWQ/HQQ defaults are the
// libraries' (128, 128, 64). Bits are left unset where the config must say (compressed-tensors).
constexpr std::array kMethods{
    QuantMethod{"gptq", "gptq", 4, 128, DType::I32, false,
                "integer weights packed 32/bits per int32 in qweight [in*bits/32, out], with per-group fp16 "
                "scales, packed zero points (qzeros) and a group index (g_idx)"},
    QuantMethod{"awq", "awq", 4, 128, DType::I32, false,
                "4-bit integer weights packed 8 per int32 in qweight [in, out*bits/32], with per-group fp16 "
                "scales and packed zero points (qzeros)"},
    QuantMethod{
        "bitsandbytes_4bit", "bitsandbytes-4bit", 4, 64, DType::U8, false,
        "4-bit codes packed two per uint8 in a flattened weight, one absmax per block of 64 values and "
        "a 16-entry quant_map"},
    QuantMethod{"bitsandbytes_8bit", "bitsandbytes-8bit", 8, std::nullopt, DType::I8, false,
                "int8 weights (LLM.int8) with one float32 scale per output row (SCB)"},
    QuantMethod{"fp8", "fp8", 8, std::nullopt, DType::F8_E4M3, false,
                "float8 (E4M3) weights with float32 scales (weight_scale_inv)"},
    QuantMethod{"fbgemm_fp8", "fbgemm-fp8", 8, std::nullopt, DType::F8_E4M3, false,
                "float8 (E4M3) weights with one float32 scale per output channel (weight_scale)"},
    QuantMethod{"compressed-tensors", "compressed-tensors", std::nullopt, std::nullopt, DType::I32, false,
                "llm-compressor format: weights per config group (weight_packed / weight, weight_scale, "
                "weight_zero_point)"},
    QuantMethod{"mxfp4", "mxfp4", 4, 32, DType::U8, false,
                "FP4 (E2M1) values packed two per byte in *_blocks [.., cols/32, 16], one E8M0 power-of-two "
                "scale per 32 values in *_scales"},
    QuantMethod{"nvfp4", "nvfp4", 4, 16, DType::U8, false,
                "FP4 (E2M1) weights packed two per uint8, one FP8 (E4M3) weight_scale per 16 values and a "
                "float32 per-tensor weight_scale_2"},
    QuantMethod{"modelopt_fp8", "fp8 (modelopt)", 8, std::nullopt, DType::F8_E4M3, false,
                "float8 (E4M3) weights with one float32 per-tensor weight_scale and a static input_scale"},
    QuantMethod{"hqq", "hqq", 4, 64, DType::U8, false,
                "half-quadratic quantization: packed integer codes (W_q) with per-group scale and zero"},
    QuantMethod{"eetq", "eetq", 8, std::nullopt, DType::I8, false,
                "int8 weight-only quantization with one scale per output channel"},
    QuantMethod{"quanto", "quanto", 8, std::nullopt, DType::I8, false,
                "optimum-quanto weights (int8/int4/float8) with per-channel or per-group scales"},
    QuantMethod{"aqlm", "aqlm", 2, 8, DType::I16, false,
                "additive quantization: codebook indices (codes) with learned codebooks and scales"},
    QuantMethod{"torchao", "torchao", std::nullopt, std::nullopt, DType::I8, false,
                "torchao tensor subclasses (int4/int8 weight-only or float8)"},
    QuantMethod{"bitnet", "bitnet", 2, std::nullopt, DType::U8, false,
                "ternary weights (-1, 0, 1) packed four per uint8 with a per-tensor weight_scale"},
    QuantMethod{"gguf", "gguf", std::nullopt, std::nullopt, DType::Q4_K, true,
                "llama.cpp block types: each block of 32 or 256 weights stores its own scales (Q4_K: 144 "
                "bytes per 256 weights, 4.5 bits per weight); the type may differ per tensor"},
};

}  // namespace

const QuantMethod* find_quant_method(std::string_view key) {
  for (const QuantMethod& m : kMethods)
    if (m.key == key) return &m;
  return nullptr;
}

uint32_t packing_container_bits(DType d) {
  switch (d) {
    case DType::I32:
    case DType::U32:
      return 32;
    case DType::I16:
    case DType::U16:
      return 16;
    case DType::U8:
    case DType::I8:
      return 8;
    default:
      return 0;
  }
}

}  // namespace ma

// Quantization, from quantization_config (gptq, awq, bitsandbytes 4/8-bit, fp8, compressed-tensors, mxfp4,
// nvfp4, hqq, ...) and from the stored dtypes: method, bits, group size, what is left unquantized, parameters
// per stored dtype, and the logical parameter count of packed checkpoints (a GPTQ int32 holds 8 four-bit
// weights; scales and zero points are not parameters of the model).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report_inputs.h"
#include "model/declared_quantization.h"

namespace ma {

struct QuantizationInfo {
  bool quantized = false;
  std::string method;            // gptq, awq, bitsandbytes, fp8, compressed-tensors, mxfp4, nvfp4, hqq, ...
  std::string source;            // "quantization_config", "tensor dtypes", or both
  std::optional<uint32_t> bits;  // weight bits
  std::optional<uint64_t> group_size;  // elements sharing one scale (block 128x128 for block-FP8: 16384)
  std::vector<uint64_t>
      block;                  // the 2-D block those elements form (block-FP8 {128, 128}); empty: a row group
  std::string format_detail;  // e.g. "float8_e4m3fn weights, float32 weight_scale_inv per 128x128 block"
  std::vector<std::string>
      unquantized;  // modules kept in high precision (lm_head, embeddings, norms, routers)
  std::map<std::string, uint64_t> elements_by_stored_dtype;  // stored tensor elements per dtype (short names)
  uint64_t logical_parameters = 0;  // parameters of the unquantized model the checkpoint encodes
  uint64_t quantization_scale_tensors = 0;
  uint64_t quantization_scale_bytes = 0;
  uint64_t stored_bytes = 0;  // what the checkpoint holds (headers), or predicts (index)
  // stored_bytes x 8 / logical_parameters: a quantized checkpoint read from its headers (GGUF Q4_K_M ~4.9)
  std::optional<double> bits_per_weight;
  // What the declaration says of the GEMMs' activations (Unsaid when nothing declares it): where perf times
  // W8A8 / W4A4 GEMMs on narrow tensor cores, and where it keeps them 16-bit.
  ActivationScheme activation_scheme = ActivationScheme::Unsaid;
  std::optional<QuantizedNumbers> activations;
  std::optional<QuantizedNumbers> weight_numbers;  // the weights' format where the declaration names it
  // Where the stored figures come from: "headers" (exact), "index" (names from the index, sizes predicted
  // from the template and the method; stored_bytes is the index's metadata.total_size when it has one),
  // "template" (no weights: predicted from the config and the method).
  std::string stored_from;
  // With an index and no headers: whether stored_bytes is the index's metadata.total_size. Not when that is
  // below the prediction for the tensors the same index names at known widths (they cannot take fewer bytes
  // than their shapes and stored dtypes do): a float dtype declared or stored (without one, float32 is
  // transformers' guess, not a floor) and, when quantized, the method's stored dtype. At or above the
  // prediction it is used (the excess is buffers the template has no shape for). The memory section's weights
  // as stored follow this verdict.
  bool index_total_size_used = false;
  std::map<std::string, uint64_t> unquantized_elements;  // per entry of `unquantized`
  // Scale tensors whose size is unknown (named by an index, shape not predictable): not in the bytes.
  uint64_t quantization_scale_tensors_unsized = 0;
  // Predicted without headers for a method whose scale layout is not known (compressed-tensors): the scale
  // tensors are left out of the counts and bytes above, not zero.
  bool quantization_scales_unpredicted = false;
  std::vector<std::string>
      notes;  // disagreements (logical count vs template, config vs tensors), assumptions
  // Bytes each inventory tensor is stored in (index-aligned with Inventory::tensors): a quantized weight's
  // packed bytes plus, when predicted, the scales beside it; read from the headers, the tensor's own bytes.
  // What the performance model streams per GEMM.
  std::vector<uint64_t> tensor_bytes;
};

QuantizationInfo analyze_quantization(const ReportInputs& in);

// The weights one stored tensor encodes: its elements, or for a quantized weight packed into wider integers
// (gpt-oss's MXFP4 "_blocks" in u8, GPTQ's int32 qweight) elements x storage bits / weight bits.
uint64_t logical_parameters(const InventoryTensor& t, const QuantizationInfo& q);

}  // namespace ma

#include "analysis/quantization.h"

#include <algorithm>

#include "analysis/memory_math.h"
#include "analysis/quantization_methods.h"
#include "core/units.h"
#include "model/declared_quantization.h"
#include "model/stored_dtype.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

bool one_of(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Tensors that help decode quantized weights but are not weights of the model: the inventory's
// quantization-scale kind (scales, zero points, g_idx, weight_scale*, input_scale, *_scales, bitsandbytes'
// quant state), plus HQQ's, whose leaf names are too common to place as scales everywhere.
bool is_quant_aux(const InventoryTensor& t, bool hqq) {
  if (t.kind == TensorKind::QuantizationScale) return true;  // placed by name (tensor_name_tables.h)
  return hqq && one_of(leaf_of(t.name), {"scale", "zero", "meta"});
}

// Names a packed quantized weight can have: GPTQ/AWQ qweight, compressed-tensors weight_packed, MXFP4
// *_blocks, HQQ W_q, or the plain weight (NVFP4, bitsandbytes).
bool is_weight_leaf(std::string_view leaf) {
  return one_of(leaf, {"weight", "qweight", "weight_packed", "W_q"}) || leaf.ends_with("_blocks");
}

bool is_wide_float(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F32 || d == DType::F64;
}

// Logical weights one stored tensor encodes: an integer container of `bits`-bit codes holds
// container/bits of them (int32 qweight of 4-bit: 8; uint8 FP4 pairs and MXFP4 blocks: 2).
uint64_t logical_elements(const InventoryTensor& t, std::optional<uint32_t> bits) {
  if (!t.dtype) return t.parameters;
  uint32_t container = packing_container_bits(*t.dtype);
  if (!container || !bits || *bits >= container || !is_weight_leaf(leaf_of(t.name))) return t.parameters;
  return t.parameters * container / *bits;
}

// Groups what stays unquantized the way users think of it: by block, biases apart.
std::string unquantized_group(const InventoryTensor& t) {
  std::string_view leaf = leaf_of(t.name);
  if (leaf == "bias" || leaf.ends_with("_bias")) return "biases";
  return std::string(block_name(t.placement.block));
}

// What the stored tensors say about quantization, by their names and dtypes.
struct TensorEvidence {
  uint64_t qweight = 0, g_idx = 0, packed = 0, scale_inv = 0, weight_scale = 0, weight_scale_2 = 0;
  uint64_t blocks = 0, bnb4 = 0, bnb8 = 0, f8_weights = 0, u8_weights = 0, i8_weights = 0;
  uint64_t ggml_blocks = 0;  // tensors stored in ggml block types (GGUF)
  const InventoryTensor* first_qweight = nullptr;
  const InventoryTensor* first_g_idx = nullptr;
};

TensorEvidence gather_evidence(const Inventory& inv) {
  TensorEvidence e;
  for (const InventoryTensor& t : inv.tensors) {
    if (!t.stored || !t.dtype) continue;
    if (is_block_type(*t.dtype)) {
      ++e.ggml_blocks;
      continue;
    }
    std::string_view leaf = leaf_of(t.name);
    if (leaf == "qweight") {
      ++e.qweight;
      if (!e.first_qweight) e.first_qweight = &t;
    } else if (leaf == "g_idx") {
      ++e.g_idx;
      if (!e.first_g_idx) e.first_g_idx = &t;
    } else if (leaf == "weight_packed") {
      ++e.packed;
    } else if (leaf == "weight_scale_inv") {
      ++e.scale_inv;
    } else if (leaf == "weight_scale") {
      ++e.weight_scale;
    } else if (leaf == "weight_scale_2") {
      ++e.weight_scale_2;
    } else if (leaf.ends_with("_blocks") && *t.dtype == DType::U8) {
      ++e.blocks;
    } else if (leaf == "absmax" || t.name.find(".quant_state.") != std::string::npos) {
      ++e.bnb4;
    } else if (leaf == "SCB") {
      ++e.bnb8;
    } else if (leaf == "weight" && t.kind == TensorKind::Parameter && t.shape.size() >= 2) {
      DType d = *t.dtype;
      if (d == DType::F8_E4M3 || d == DType::F8_E5M2 || d == DType::F8_E4M3FNUZ || d == DType::F8_E5M2FNUZ)
        ++e.f8_weights;
      else if (d == DType::U8)
        ++e.u8_weights;
      else if (d == DType::I8)
        ++e.i8_weights;
    }
  }
  return e;
}

// The method the tensors alone imply; empty when they look unquantized.
std::string infer_method(const TensorEvidence& e) {
  if (e.ggml_blocks) return "gguf";
  if (e.qweight) return e.g_idx ? "gptq" : "awq";
  if (e.packed) return "compressed-tensors";
  if (e.blocks) return "mxfp4";
  if (e.weight_scale_2 || (e.u8_weights && e.weight_scale)) return "nvfp4";
  if (e.bnb4) return "bitsandbytes_4bit";
  if (e.bnb8) return "bitsandbytes_8bit";
  if (e.f8_weights) return e.scale_inv ? "fp8" : "modelopt_fp8";
  if (e.i8_weights && e.weight_scale) return "compressed-tensors";
  return "";
}

// Whether the declared method stores its weights in the layout the tensors suggest another method by:
// compressed-tensors writes float8 and fp4 weights as modelopt does (weight + weight_scale), so the tensors
// of its float-quantized checkpoints look like modelopt's and are no disagreement.
bool writes_layout(std::string_view declared, std::string_view inferred) {
  return declared == "compressed-tensors" && (inferred == "modelopt_fp8" || inferred == "nvfp4");
}

// GPTQ bits from shapes: qweight [in*bits/32, out] and g_idx [in].
std::optional<uint32_t> infer_gptq_bits(const TensorEvidence& e) {
  if (!e.first_qweight || !e.first_g_idx || e.first_qweight->shape.size() != 2 ||
      e.first_g_idx->shape.size() != 1)
    return std::nullopt;
  uint64_t rows = e.first_qweight->shape[0], in = e.first_g_idx->shape[0];
  if (in == 0 || (rows * 32) % in != 0) return std::nullopt;
  uint64_t bits = rows * 32 / in;
  if (bits == 0 || bits > 8) return std::nullopt;
  return static_cast<uint32_t>(bits);
}

std::string method_name(const std::string& key) {
  const QuantMethod* m = find_quant_method(key);
  return m ? std::string(m->name) : key;
}

std::string dtype_name(DType d) {
  return std::string(dtype_info(d).short_name);
}

// Would this template tensor be quantized by the method? Linear weights (2-D) outside embeddings, lm_head,
// routers and norms, unless the config's ignore list names their module.
bool predicted_quantized(const InventoryTensor& t, const QuantMethod* m, const ModuleMatcher& ignore) {
  if (t.shape.size() != 2 || !one_of(leaf_of(t.name), {"weight", "qweight"})) return false;
  const Block b = t.placement.block;
  if (b == Block::Embedding || b == Block::MoeRouter || b == Block::Norm) return false;
  if (b == Block::LmHead && !(m && m->quantizes_lm_head)) return false;
  return !ignore.matches(module_of(t.name));
}

// Fills the stored figures from the headers: exact dtypes, bytes, scales, and what stayed 16/32-bit.
void from_headers(const Inventory& inv, bool hqq, QuantizationInfo& q) {
  q.stored_from = "headers";
  for (const InventoryTensor& t : inv.tensors) q.tensor_bytes.push_back(t.bytes);
  for (const InventoryTensor& t : inv.tensors) {
    if (!t.stored || !t.dtype) continue;
    q.elements_by_stored_dtype[dtype_name(*t.dtype)] += t.parameters;
    q.stored_bytes += t.bytes;
    if (is_quant_aux(t, hqq)) {
      ++q.quantization_scale_tensors;
      q.quantization_scale_bytes += t.bytes;
    } else if (q.quantized && t.kind == TensorKind::Parameter && is_wide_float(*t.dtype)) {
      q.unquantized_elements[unquantized_group(t)] += t.parameters;
    }
  }
}

struct ScalePrediction {
  uint64_t tensors = 0;
  uint64_t bytes = 0;
};

// The side tensors a method stores beside one quantized weight [out, in], as its writers lay them out;
// nullopt for methods whose layout we do not predict.
std::optional<ScalePrediction> predict_scales(const std::string& key, const Shape& w,
                                              const DeclaredQuantization& d, std::optional<uint32_t> bits,
                                              std::optional<uint64_t> group) {
  if (w.size() != 2) return std::nullopt;
  const uint64_t out = w[0], in = w[1];
  if (key == "fp8") {  // weight_scale_inv f32: one per block, or one per tensor
    if (d.block.size() == 2)
      return ScalePrediction{1, memory::ceil_div(out, d.block[0]) * memory::ceil_div(in, d.block[1]) * 4};
    return ScalePrediction{1, 4};
  }
  if (key == "modelopt_fp8") return ScalePrediction{2, 8};  // weight_scale, input_scale: f32 scalars
  if (key == "nvfp4")  // weight_scale f8 [out, in/16], weight_scale_2 and input_scale f32 scalars
    return ScalePrediction{3, out * memory::ceil_div(in, group.value_or(16)) + 8};
  if ((key == "gptq" || key == "awq") && bits) {
    uint64_t groups = d.per_channel || !group ? 1 : memory::ceil_div(in, *group);
    uint64_t scales = groups * out * 2;                                // f16 [groups, out]
    uint64_t qzeros = groups * memory::ceil_div(out * *bits, 32) * 4;  // int32 [groups, out*bits/32]
    if (key == "awq") return ScalePrediction{2, scales + qzeros};
    return ScalePrediction{3, scales + qzeros + in * 4};  // + g_idx int32 [in]
  }
  return std::nullopt;
}

// Predicts the stored figures without headers: the template's tensors (names from the index when there is
// one) in the dtype the method stores them in.
void predicted(const Inventory& inv, const std::optional<DeclaredQuantization>& d, QuantizationInfo& q) {
  const QuantMethod* m = d ? find_quant_method(d->key) : nullptr;
  ModuleMatcher ignore(d ? d->ignore : std::vector<std::string>{});
  for (const std::string& p : ignore.unread()) q.notes.push_back("ignore entry '" + p + "' is not read");
  // The dtype a quantized weight is stored in; F32 stands for "unknown method" and is never used then.
  DType wdtype = DType::F32;
  bool known_dtype = true;
  if (d && d->weight_dtype)
    wdtype = *d->weight_dtype;
  else if (m)
    wdtype = m->weight_dtype;
  else
    known_dtype = false;
  uint64_t predicted_bytes = 0;
  bool scales_unpredicted = false;
  bool hqq = d && d->key == "hqq";
  // A config that names no float dtype builds float32 tensors (transformers' default). A quantized checkpoint
  // keeps its unquantized tensors in the 16 bits its quantizer ran on (gpt-oss: its index's total_size to
  // the byte), which the memory section assumes too; an unquantized one may well be float32 (BERT's is).
  const bool width_assumed =
      q.quantized && !declared_float_dtype(inv.arch.torch_dtype) && !inv.arch.stored_dtype;
  q.tensor_bytes.reserve(inv.tensors.size());
  for (const InventoryTensor& t : inv.tensors) {
    q.tensor_bytes.push_back(t.bytes);
    if (!t.stored) continue;
    if (is_quant_aux(t, hqq)) {
      ++q.quantization_scale_tensors;
      if (t.shape_known)
        q.quantization_scale_bytes += t.bytes;
      else
        ++q.quantization_scale_tensors_unsized;
      continue;
    }
    if (!t.shape_known || !t.dtype) continue;
    DType dtype = *t.dtype;
    uint64_t elements = t.parameters;
    if (t.template_dtype) {  // stored as the template says, whatever the method would make of it
      if (q.quantized && t.kind == TensorKind::Parameter && is_wide_float(dtype))
        q.unquantized_elements[unquantized_group(t)] += t.parameters;
      q.elements_by_stored_dtype[dtype_name(dtype)] += elements;
      predicted_bytes += t.bytes;
      continue;
    }
    if (width_assumed && is_wide_float(dtype) && dtype_bits(dtype) > 16) {
      dtype = kAssumedModelDtype;
      q.tensor_bytes.back() = dtype_bytes(elements, dtype);
    }
    if (q.quantized && is_wide_float(dtype) && d && d->expert_dtype && t.routed_expert &&
        predicted_quantized(t, m, ignore)) {
      dtype = *d->expert_dtype;  // a block type: its blocks hold their scales
      q.tensor_bytes.back() = dtype_bytes(elements, dtype);
    } else if (q.quantized && is_wide_float(dtype) && known_dtype && predicted_quantized(t, m, ignore)) {
      // Without names from an index, the scales beside each quantized weight are predicted too.
      uint64_t scales = 0;
      if (!inv.checkpoint && d) {
        if (auto s = predict_scales(d->key, t.shape, *d, q.bits, q.group_size)) {
          q.quantization_scale_tensors += s->tensors;
          q.quantization_scale_bytes += s->bytes;
          scales = s->bytes;
        } else {
          scales_unpredicted = true;
        }
      }
      uint32_t container = packing_container_bits(wdtype);
      if (container && q.bits && *q.bits < container) elements = t.parameters * *q.bits / container;
      dtype = wdtype;
      q.tensor_bytes.back() = dtype_bytes(elements, dtype) + scales;
    } else if (q.quantized && t.kind == TensorKind::Parameter && is_wide_float(dtype)) {
      q.unquantized_elements[unquantized_group(t)] += t.parameters;
    }
    q.elements_by_stored_dtype[dtype_name(dtype)] += elements;
    predicted_bytes += dtype_bytes(elements, dtype);
  }
  q.stored_bytes = predicted_bytes + q.quantization_scale_bytes;
  const auto& ck = inv.checkpoint;
  q.stored_from = ck ? "index" : "template";
  const bool widths_known = inv.arch.stored_dtype && (!q.quantized || known_dtype);
  if (ck && ck->index_total_size && (!widths_known || *ck->index_total_size >= q.stored_bytes)) {
    q.index_total_size_used = true;
    q.stored_bytes = *ck->index_total_size;
  } else if (scales_unpredicted) {
    q.quantization_scales_unpredicted = true;
    q.notes.push_back("the scale tensors of " + q.method + " are not predicted: stored bytes and scale " +
                      "figures leave them out");
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : std::string(sep)) + p;
  return s;
}

std::string format_detail(const QuantMethod* m, const std::optional<DeclaredQuantization>& d) {
  std::vector<std::string> parts;
  if (m) parts.emplace_back(m->detail);
  if (d) parts.insert(parts.end(), d->qualifiers.begin(), d->qualifiers.end());
  return join(parts, "; ");
}

// The logical count from the stored tensors: weights unpacked, scales and side tensors left out.
uint64_t logical_from_tensors(const Inventory& inv, std::optional<uint32_t> bits, bool hqq) {
  uint64_t n = 0;
  for (const InventoryTensor& t : inv.tensors)
    if (t.stored && t.kind == TensorKind::Parameter && !is_quant_aux(t, hqq)) n += logical_elements(t, bits);
  return n;
}

}  // namespace

QuantizationInfo analyze_quantization(const ReportInputs& in) {
  QuantizationInfo q;
  const Inventory& inv = in.inventory;
  const bool headers = inv.checkpoint && inv.checkpoint->headers_read;
  const std::optional<DeclaredQuantization>& declared = in.inventory.arch.quantization;
  TensorEvidence evidence = headers ? gather_evidence(inv) : TensorEvidence{};
  std::string inferred = headers ? infer_method(evidence) : "";

  q.quantized = declared.has_value() || !inferred.empty();
  std::string key = declared ? declared->key : inferred;
  const QuantMethod* m = find_quant_method(key);
  if (q.quantized) {
    q.method = method_name(key);
    std::vector<std::string> sources;
    if (declared) sources.push_back(declared->source);
    if (!inferred.empty()) sources.push_back("tensor dtypes");
    q.source = join(sources, " + ");
    q.bits = declared && declared->bits ? declared->bits
             : key == "gptq" && headers ? infer_gptq_bits(evidence)
                                        : std::nullopt;
    if (!q.bits && m) q.bits = m->bits;
    if (declared && (declared->group_size || declared->per_channel)) {
      q.group_size = declared->group_size;
      q.block = declared->block;
    } else if (m)
      q.group_size = m->group_size;
    q.format_detail = format_detail(m, declared);
    if (declared) {
      q.activation_scheme = declared->activation_scheme;
      q.activations = declared->activations;
      q.weight_numbers = declared->weights;
    }
    if (declared && !inferred.empty() && method_name(inferred) != q.method && !writes_layout(key, inferred))
      q.notes.push_back("the config declares " + q.method + " but the stored tensors look like " +
                        method_name(inferred));
    if (declared && headers && inferred.empty())
      q.notes.push_back("the config declares " + q.method + " but no stored tensor is quantized");
  }

  const bool hqq = key == "hqq";
  if (headers)
    from_headers(inv, hqq, q);
  else
    predicted(inv, declared, q);
  for (const auto& [group, n] : q.unquantized_elements) q.unquantized.push_back(group);

  if (in.params.from_template) {
    q.logical_parameters = in.params.total;
    if (headers) {
      uint64_t stored = logical_from_tensors(inv, q.bits, hqq);
      if (stored != q.logical_parameters)
        q.notes.push_back("the stored tensors encode " + with_thousands(stored) +
                          " parameters, the architecture has " + with_thousands(q.logical_parameters));
    }
  } else {
    q.logical_parameters = logical_from_tensors(inv, q.bits, hqq);
    // GPTQ, AWQ and HQQ choose their bits; the FP4 formats and the 8-bit ones fix them.
    bool chosen_bits = key == "gptq" || key == "awq" || key == "hqq";
    if (chosen_bits && !(declared && declared->bits) && !(key == "gptq" && infer_gptq_bits(evidence)))
      q.notes.push_back("weight bits assumed " + (q.bits ? std::to_string(*q.bits) : std::string("unknown")) +
                        " (the method's default): no config says");
  }
  // What a downloader compares across quantizations: every stored byte of the weights (scales included) per
  // parameter of the model they encode.
  if (headers && q.quantized && q.logical_parameters)
    q.bits_per_weight = 8.0 * static_cast<double>(q.stored_bytes) / static_cast<double>(q.logical_parameters);
  return q;
}

uint64_t logical_parameters(const InventoryTensor& t, const QuantizationInfo& q) {
  if (!q.quantized || !q.bits || *q.bits == 0 || t.kind != TensorKind::Parameter || !t.dtype)
    return t.parameters;
  const uint32_t storage = dtype_bits(*t.dtype);
  if (dtype_info(*t.dtype).is_float || storage <= *q.bits) return t.parameters;
  return t.parameters * storage / *q.bits;
}

}  // namespace ma

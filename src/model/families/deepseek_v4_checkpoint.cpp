#include "model/families/deepseek_v4_checkpoint.h"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/stored_dtype.h"

namespace ma::families {
namespace {

// How DeepSeek's checkpoints store a tensor: in the checkpoint's dtype, as FP8 with a block scale (when the
// config declares fp8), or always in float32 or int64 whatever that dtype (the 284 GB of V4-Flash's shards
// are accounted for byte by byte this way: tests/unit/deepseek_v4_checkpoint_test.cpp).
enum class Stored : uint8_t { AsDeclared, Fp8, Float32, Int64 };

struct Rename {
  std::string_view hf;        // transformers' name
  std::string_view upstream;  // DeepSeek's
  Stored stored;
};

// conversion_mapping.py's renames read backwards, one row per tensor: the part after "model.layers.N."
// against the part after "layers.N.".
constexpr std::array kLayerNames{
    Rename{"self_attn.q_a_proj.weight", "attn.wq_a.weight", Stored::Fp8},
    Rename{"self_attn.q_a_norm.weight", "attn.q_norm.weight", Stored::AsDeclared},
    Rename{"self_attn.q_b_proj.weight", "attn.wq_b.weight", Stored::Fp8},
    Rename{"self_attn.kv_proj.weight", "attn.wkv.weight", Stored::Fp8},
    Rename{"self_attn.kv_norm.weight", "attn.kv_norm.weight", Stored::AsDeclared},
    Rename{"self_attn.o_a_proj.weight", "attn.wo_a.weight", Stored::Fp8},
    Rename{"self_attn.o_b_proj.weight", "attn.wo_b.weight", Stored::Fp8},
    Rename{"self_attn.sinks", "attn.attn_sink", Stored::Float32},
    Rename{"self_attn.compressor.kv_proj.weight", "attn.compressor.wkv.weight", Stored::AsDeclared},
    Rename{"self_attn.compressor.gate_proj.weight", "attn.compressor.wgate.weight", Stored::AsDeclared},
    Rename{"self_attn.compressor.position_bias", "attn.compressor.ape", Stored::Float32},
    Rename{"self_attn.compressor.kv_norm.weight", "attn.compressor.norm.weight", Stored::AsDeclared},
    Rename{"self_attn.compressor.indexer.kv_proj.weight", "attn.indexer.compressor.wkv.weight",
           Stored::AsDeclared},
    Rename{"self_attn.compressor.indexer.gate_proj.weight", "attn.indexer.compressor.wgate.weight",
           Stored::AsDeclared},
    Rename{"self_attn.compressor.indexer.position_bias", "attn.indexer.compressor.ape", Stored::Float32},
    Rename{"self_attn.compressor.indexer.kv_norm.weight", "attn.indexer.compressor.norm.weight",
           Stored::AsDeclared},
    Rename{"self_attn.compressor.indexer.q_b_proj.weight", "attn.indexer.wq_b.weight", Stored::Fp8},
    Rename{"self_attn.compressor.indexer.scorer.weights_proj.weight", "attn.indexer.weights_proj.weight",
           Stored::AsDeclared},
    Rename{"mlp.gate.weight", "ffn.gate.weight", Stored::AsDeclared},
    Rename{"mlp.gate.e_score_correction_bias", "ffn.gate.bias", Stored::Float32},
    Rename{"mlp.gate.tid2eid", "ffn.gate.tid2eid", Stored::Int64},
    Rename{"mlp.shared_experts.gate_proj.weight", "ffn.shared_experts.w1.weight", Stored::Fp8},
    Rename{"mlp.shared_experts.up_proj.weight", "ffn.shared_experts.w3.weight", Stored::Fp8},
    Rename{"mlp.shared_experts.down_proj.weight", "ffn.shared_experts.w2.weight", Stored::Fp8},
    Rename{"mlp.shared_experts.gate_proj.bias", "ffn.shared_experts.w1.bias", Stored::AsDeclared},
    Rename{"mlp.shared_experts.up_proj.bias", "ffn.shared_experts.w3.bias", Stored::AsDeclared},
    Rename{"mlp.shared_experts.down_proj.bias", "ffn.shared_experts.w2.bias", Stored::AsDeclared},
    Rename{"input_layernorm.weight", "attn_norm.weight", Stored::AsDeclared},
    Rename{"post_attention_layernorm.weight", "ffn_norm.weight", Stored::AsDeclared},
    Rename{"attn_hc.fn", "hc_attn_fn", Stored::Float32},
    Rename{"attn_hc.base", "hc_attn_base", Stored::Float32},
    Rename{"attn_hc.scale", "hc_attn_scale", Stored::Float32},
    Rename{"ffn_hc.fn", "hc_ffn_fn", Stored::Float32},
    Rename{"ffn_hc.base", "hc_ffn_base", Stored::Float32},
    Rename{"ffn_hc.scale", "hc_ffn_scale", Stored::Float32},
};

constexpr std::array kRootNames{
    Rename{"model.embed_tokens.weight", "embed.weight", Stored::AsDeclared},
    Rename{"lm_head.weight", "head.weight", Stored::AsDeclared},
    Rename{"model.norm.weight", "norm.weight", Stored::AsDeclared},
    Rename{"model.hc_head.hc_fn", "hc_head_fn", Stored::Float32},
    Rename{"model.hc_head.hc_base", "hc_head_base", Stored::Float32},
    Rename{"model.hc_head.hc_scale", "hc_head_scale", Stored::Float32},
};

// What quantization_config and expert_dtype declare about the stored form.
struct StoredForm {
  bool fp8 = false;  // FP8 (E4M3) linears, each with a scale per block_rows x block_cols block
  uint64_t block_rows = 128, block_cols = 128;
  DType scale_dtype = DType::F32;  // F8_E8M0 for scale_fmt ue8m0 (powers of two), else float32
  bool fp4_experts = false;        // expert_dtype fp4: MXFP4 routed experts
  // Beside FP8 linears, the others keep the checkpoint's 16 bits (torch_dtype; bf16 when none is declared):
  // unset when nothing is quantized, the config's dtype then holding for them all.
  std::optional<DType> unquantized;
};

constexpr uint64_t kFp4Block = 32;  // MXFP4: one E8M0 scale per 32 values

StoredForm stored_form(const ModelConfig& cfg, const ModelTemplate& t) {
  StoredForm f;
  if (const std::optional<ModelConfig> q = cfg.sub("quantization_config");
      q && q->string_or("quant_method", "") == "fp8") {
    f.fp8 = true;
    if (const std::vector<int64_t> block = q->ints("weight_block_size"); !block.empty()) {
      if (block.size() != 2 || block[0] < 1 || block[1] < 1)
        q->fail("weight_block_size", "must be two positive integers (rows, columns)");
      f.block_rows = static_cast<uint64_t>(block[0]);
      f.block_cols = static_cast<uint64_t>(block[1]);
    }
    if (q->string_or("scale_fmt", "") == "ue8m0") f.scale_dtype = DType::F8_E8M0;
    f.unquantized = declared_float_dtype(t.arch.torch_dtype).value_or(DType::BF16);
  }
  f.fp4_experts = cfg.string_or("expert_dtype", "") == "fp4";
  return f;
}

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// `name` (a ".weight") stored as `how` says: the weight, and the scale DeepSeek names "<module>.scale".
std::vector<DiskPiece> pieces_of(const std::string& name, const Shape& shape, Stored how,
                                 const StoredForm& f) {
  switch (how) {
    case Stored::Float32:
      return {{name, shape, DType::F32}};
    case Stored::Int64:
      return {{name, shape, DType::I64}};
    case Stored::Fp8:
      if (f.fp8 && shape.size() == 2) {
        const std::string module = name.substr(0, name.size() - std::string_view(".weight").size());
        return {{name, shape, DType::F8_E4M3},
                {module + ".scale",
                 {ceil_div(shape[0], f.block_rows), ceil_div(shape[1], f.block_cols)},
                 f.scale_dtype,
                 TensorKind::QuantizationScale}};
      }
      [[fallthrough]];
    case Stored::AsDeclared:
      break;
  }
  return {{name, shape, f.unquantized}};
}

// One expert's `leaf` (w1, w2 or w3) of `rows` x `cols`: FP4 packs two values per byte (I8) with an E8M0
// scale per 32; FP8 as the linears; else as declared.
void add_expert_parts(std::vector<PerExpertPieces::Part>& parts, std::string_view leaf, uint64_t rows,
                      uint64_t cols, const StoredForm& f) {
  const std::string w = std::string(leaf) + ".weight", s = std::string(leaf) + ".scale";
  if (f.fp4_experts && cols % kFp4Block == 0) {
    parts.push_back({w, {rows, cols / 2}, DType::I8, std::nullopt});
    parts.push_back({s, {rows, cols / kFp4Block}, DType::F8_E8M0, TensorKind::QuantizationScale});
  } else if (f.fp8) {
    parts.push_back({w, {rows, cols}, DType::F8_E4M3, std::nullopt});
    parts.push_back({s,
                     {ceil_div(rows, f.block_rows), ceil_div(cols, f.block_cols)},
                     f.scale_dtype,
                     TensorKind::QuantizationScale});
  } else {
    parts.push_back({w, {rows, cols}, f.unquantized, std::nullopt});
  }
}

// "model.layers.12.self_attn.kv_proj.weight" -> {"12", "self_attn.kv_proj.weight"}; nothing outside the
// layers.
std::optional<std::pair<std::string_view, std::string_view>> layer_and_rest(std::string_view name) {
  constexpr std::string_view kLayers = "model.layers.";
  if (!name.starts_with(kLayers)) return std::nullopt;
  name.remove_prefix(kLayers.size());
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  return std::pair{name.substr(0, dot), name.substr(dot + 1)};
}

}  // namespace

bool deepseek_v4_upstream_form(const ModelConfig& cfg) {
  return cfg.has("compress_ratios") && !cfg.has("layer_types");
}

void use_upstream_checkpoint_names(const ModelConfig& cfg, ModelTemplate& t) {
  const StoredForm f = stored_form(cfg, t);
  for (TemplateTensor& x : t.tensors) {
    if (!x.stored) continue;
    const auto at = layer_and_rest(x.name);
    if (at && x.per_expert) {  // gate_up_proj [E, 2I, H] from w1 and w3; down_proj [E, H, I] from w2
      PerExpertPieces& pe = *x.per_expert;
      pe.prefix = "layers." + std::string(at->first) + ".ffn.experts";
      const uint64_t rows = pe.parts.front().shape[0], cols = pe.parts.front().shape[1];
      const bool gate_up = at->second.ends_with("gate_up_proj");
      const size_t leaves = pe.parts.size();
      pe.parts.clear();
      if (gate_up) {
        add_expert_parts(pe.parts, "w1", rows, cols, f);
        add_expert_parts(pe.parts, "w3", rows, cols, f);
      } else {
        add_expert_parts(pe.parts, "w2", rows, cols, f);
      }
      t.charge(uint64_t{pe.experts} * (pe.parts.size() - leaves));
      continue;
    }
    for (const Rename& r : at ? std::span<const Rename>(kLayerNames) : std::span<const Rename>(kRootNames)) {
      if ((at ? at->second : std::string_view(x.name)) != r.hf) continue;
      const std::string name =
          at ? "layers." + std::string(at->first) + "." + std::string(r.upstream) : std::string(r.upstream);
      x.disk = pieces_of(name, x.shape, r.stored, f);
      t.charge(x.disk.size() - 1);
      break;
    }
  }
}

}  // namespace ma::families

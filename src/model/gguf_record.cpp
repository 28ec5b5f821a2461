#include "model/gguf_record.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/error.h"
#include "model/config.h"
#include "model/inferred_record.h"

namespace ma {
namespace {

// llama.cpp's architecture names (llama-arch.cpp, LLM_ARCH_NAMES) and the Hugging Face model_type and class
// of the same models, for the families the tool names; swa_period: every how many layers one is global when
// the file states the sliding window but not its pattern (llama.cpp's built-in set_swa_pattern per arch).
struct GgufArch {
  std::string_view gguf;
  std::string_view model_type;
  std::string_view hf_class;
  uint32_t swa_period = 0;
  bool encoder_only = false;  // BERT-style: the layers are an encoder stack
  // The global layer opens each period instead of closing it (ModernBERT's layers 0, 3, 6 …: llama.cpp's
  // set_swa_pattern with dense_first).
  bool dense_first = false;
  // The layers' ssm_* tensors are a gated DeltaNet (linear attention: Qwen3-Next, Qwen3.5), sized by the
  // ssm.* keys as llama.cpp reads them: group_count key heads, time_step_rank value heads, state_size the
  // width of both.
  bool delta_net = false;
  // The ssm_* tensors are Mamba-2 mixers (heads of one dt each, B and C in groups), not Mamba-1's.
  bool mamba2 = false;
  // Local attention llama.cpp applies without a key for it: Llama-4's chunks of 8192 (its loader's
  // LLAMA_SWA_TYPE_CHUNKED with n_swa = 8192, whatever sliding_window says unless it says 0).
  Span builtin_span = Span::Full;
  uint64_t builtin_window = 0;
  // The window llama.cpp assumes when the file has no sliding_window key (Gemma 2's 4096: its first GGUF
  // files stated none); 0: no window without the key.
  uint64_t default_window = 0;
  // The rope base of the sliding-window layers llama.cpp uses when the file has no rope.freq_base_swa key
  // (Gemma 3's 10,000 beside its global 1,000,000, transformers' rope_local_base_freq default); 0: the
  // global base.
  double builtin_local_theta = 0;
  // The layers that keep K/V of their own when the file has no attention.shared_kv_layers key, the later
  // ones reading an earlier layer's (llama.cpp's n_layer_kv_from_start: Gemma 3n's 20); 0: every layer.
  uint64_t builtin_kv_layers = 0;
};
constexpr std::array kArchitectures = {
    GgufArch{"llama", "llama", "LlamaForCausalLM"},
    GgufArch{.gguf = "llama4",
             .model_type = "llama4_text",
             .hf_class = "Llama4ForCausalLM",
             .swa_period = 4,
             .builtin_span = Span::Chunked,
             .builtin_window = 8192},
    GgufArch{"mistral3", "mistral", "MistralForCausalLM"},
    GgufArch{"qwen2", "qwen2", "Qwen2ForCausalLM"},
    // The language models of Qwen3-VL (their vision towers are separate mmproj files).
    GgufArch{"qwen3vl", "qwen3_vl_text", "Qwen3VLTextModel"},
    GgufArch{"qwen3vlmoe", "qwen3_vl_moe_text", "Qwen3VLMoeTextModel"},
    GgufArch{"qwen2moe", "qwen2_moe", "Qwen2MoeForCausalLM"},
    GgufArch{"qwen3", "qwen3", "Qwen3ForCausalLM"},
    GgufArch{"qwen3moe", "qwen3_moe", "Qwen3MoeForCausalLM"},
    GgufArch{.gguf = "qwen3next",
             .model_type = "qwen3_next",
             .hf_class = "Qwen3NextForCausalLM",
             .delta_net = true},
    GgufArch{
        .gguf = "qwen35", .model_type = "qwen3_5_text", .hf_class = "Qwen3_5ForCausalLM", .delta_net = true},
    GgufArch{.gguf = "qwen35moe",
             .model_type = "qwen3_5_moe_text",
             .hf_class = "Qwen3_5MoeForCausalLM",
             .delta_net = true},
    GgufArch{"gemma", "gemma", "GemmaForCausalLM"},
    GgufArch{.gguf = "gemma2",
             .model_type = "gemma2",
             .hf_class = "Gemma2ForCausalLM",
             .swa_period = 2,
             .default_window = 4096},
    GgufArch{.gguf = "gemma3",
             .model_type = "gemma3_text",
             .hf_class = "Gemma3ForCausalLM",
             .swa_period = 6,
             .builtin_local_theta = 10000},
    GgufArch{.gguf = "gemma4", .model_type = "gemma4_text", .hf_class = "Gemma4ForCausalLM", .swa_period = 6},
    GgufArch{.gguf = "gemma3n",
             .model_type = "gemma3n_text",
             .hf_class = "Gemma3nForCausalLM",
             .swa_period = 5,
             .builtin_local_theta = 10000,
             .builtin_kv_layers = 20},
    GgufArch{"phi2", "phi", "PhiForCausalLM"},
    GgufArch{"phi3", "phi3", "Phi3ForCausalLM"},
    GgufArch{"phimoe", "phimoe", "PhimoeForCausalLM"},
    GgufArch{"deepseek", "deepseek", "DeepseekForCausalLM"},
    GgufArch{"deepseek2", "deepseek_v3", "DeepseekV3ForCausalLM"},
    GgufArch{"deepseek32", "deepseek_v32", "DeepseekV32ForCausalLM"},
    GgufArch{"gpt-oss", "gpt_oss", "GptOssForCausalLM", 2},
    GgufArch{"mamba", "mamba", "MambaForCausalLM"},
    GgufArch{.gguf = "mamba2", .model_type = "mamba2", .hf_class = "Mamba2ForCausalLM", .mamba2 = true},
    GgufArch{
        .gguf = "nemotron_h", .model_type = "nemotron_h", .hf_class = "NemotronHForCausalLM", .mamba2 = true},
    GgufArch{.gguf = "nemotron_h_moe",
             .model_type = "nemotron_h",
             .hf_class = "NemotronHForCausalLM",
             .mamba2 = true},
    GgufArch{.gguf = "granitehybrid",
             .model_type = "granitemoehybrid",
             .hf_class = "GraniteMoeHybridForCausalLM",
             .mamba2 = true},
    GgufArch{"granite", "granite", "GraniteForCausalLM"},
    GgufArch{"granitemoe", "granitemoe", "GraniteMoeForCausalLM"},
    GgufArch{"jamba", "jamba", "JambaForCausalLM"},
    GgufArch{
        .gguf = "falcon-h1", .model_type = "falcon_h1", .hf_class = "FalconH1ForCausalLM", .mamba2 = true},
    GgufArch{"falcon", "falcon", "FalconForCausalLM"},
    GgufArch{"bert", "bert", "BertModel", 0, true},
    GgufArch{"nomic-bert", "nomic_bert", "NomicBertModel", 0, true},
    GgufArch{.gguf = "modern-bert",
             .model_type = "modernbert",
             .hf_class = "ModernBertModel",
             .swa_period = 3,
             .encoder_only = true,
             .dense_first = true},
    GgufArch{"t5", "t5", "T5ForConditionalGeneration"},
    GgufArch{"t5encoder", "t5", "T5EncoderModel", 0, true},
    GgufArch{"gpt2", "gpt2", "GPT2LMHeadModel"},
    GgufArch{"gptneox", "gpt_neox", "GPTNeoXForCausalLM"},
    GgufArch{"bloom", "bloom", "BloomForCausalLM"},
    GgufArch{"mpt", "mpt", "MptForCausalLM"},
    GgufArch{"starcoder", "gpt_bigcode", "GPTBigCodeForCausalLM"},
    GgufArch{"starcoder2", "starcoder2", "Starcoder2ForCausalLM"},
    GgufArch{"dbrx", "dbrx", "DbrxForCausalLM"},
    GgufArch{"minimax-m2", "minimax_m2", "MiniMaxM2ForCausalLM"},
    GgufArch{"stablelm", "stablelm", "StableLmForCausalLM"},
    GgufArch{"command-r", "cohere", "CohereForCausalLM"},
    GgufArch{"cohere2", "cohere2", "Cohere2ForCausalLM", 4},
    GgufArch{"cohere2moe", "cohere2_moe", "Cohere2MoeForCausalLM"},
    // MiMo-V2-Flash's sliding layers rotate with a base of 10,000 when the file states none (llama.cpp's
    // loader default for them, whatever the global base).
    GgufArch{.gguf = "mimo2",
             .model_type = "mimo_v2_flash",
             .hf_class = "MiMoV2FlashForCausalLM",
             .builtin_local_theta = 10000},
    GgufArch{"mistral4", "mistral4", "Mistral4ForCausalLM"},
    GgufArch{"olmo", "olmo", "OlmoForCausalLM"},
    GgufArch{"olmo2", "olmo2", "Olmo2ForCausalLM"},
    GgufArch{"olmoe", "olmoe", "OlmoeForCausalLM"},
    GgufArch{"internlm2", "internlm2", "InternLM2ForCausalLM"},
    GgufArch{"chatglm", "chatglm", "ChatGLMForConditionalGeneration"},
    GgufArch{"glm4", "glm4", "Glm4ForCausalLM"},
    GgufArch{"glm4moe", "glm4_moe", "Glm4MoeForCausalLM"},
    GgufArch{"glm-dsa", "glm_moe_dsa", "GlmMoeDsaForCausalLM"},
    GgufArch{"minicpm", "minicpm", "MiniCPMForCausalLM"},
    GgufArch{"baichuan", "baichuan", "BaichuanForCausalLM"},
    GgufArch{"exaone", "exaone", "ExaoneForCausalLM"},
    GgufArch{"exaone4", "exaone4", "Exaone4ForCausalLM", 4},
    // K-EXAONE's converter writes the window but not its pattern: llama.cpp slides three layers of four.
    GgufArch{"exaone-moe", "exaone_moe", "ExaoneMoeForCausalLM", 4},
    GgufArch{"smollm3", "smollm3", "SmolLM3ForCausalLM"},
    GgufArch{"seed_oss", "seed_oss", "SeedOssForCausalLM"},
    GgufArch{"arcee", "arcee", "ArceeForCausalLM"},
    GgufArch{"hunyuan-dense", "hunyuan_v1_dense", "HunYuanDenseV1ForCausalLM"},
    GgufArch{"hunyuan-moe", "hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM"},
    GgufArch{"dots1", "dots1", "Dots1ForCausalLM"},
    GgufArch{"bailingmoe2", "bailing_moe_v2", "BailingMoeV2ForCausalLM"},
    GgufArch{"apertus", "apertus", "ApertusForCausalLM"},
    GgufArch{"nemotron", "nemotron", "NemotronForCausalLM"},
    GgufArch{"jais2", "jais2", "Jais2ForCausalLM"},
    GgufArch{"bitnet", "bitnet", "BitNetForCausalLM"},
    GgufArch{"chameleon", "chameleon", "ChameleonForConditionalGeneration"},
    GgufArch{"qwen2vl", "qwen2_vl", "Qwen2VLForConditionalGeneration"},
    GgufArch{"paddleocr", "paddleocr_vl", "PaddleOCRVLForConditionalGeneration"},
    GgufArch{"ernie4_5", "ernie4_5", "Ernie4_5ForCausalLM"},
    GgufArch{"ernie4_5-moe", "ernie4_5_moe", "Ernie4_5_MoeForCausalLM"},
    GgufArch{"lfm2", "lfm2", "Lfm2ForCausalLM"},
    GgufArch{"lfm2moe", "lfm2_moe", "Lfm2MoeForCausalLM"},
    // AFMoE's converter writes the window but not its pattern: llama.cpp's built-in one is every fourth layer
    // global, as AfmoeConfig's global_attn_every_n_layers default.
    GgufArch{"afmoe", "afmoe", "AfmoeForCausalLM", 4},
    // Laguna's converter writes the window but not its pattern: llama.cpp slides three layers of four, the
    // first of each four global.
    GgufArch{.gguf = "laguna",
             .model_type = "laguna",
             .hf_class = "LagunaForCausalLM",
             .swa_period = 4,
             .dense_first = true},
};

// A quantized file type is the file's declaration of its quantization (as quantization_config is elsewhere).
std::optional<DeclaredQuantization> declared_quantization(const GgufFile& g) {
  const std::optional<uint64_t> t = g.uint_value("general.file_type");
  if (!t || *t == 0 || *t == 1 || *t == 32) return std::nullopt;  // F32, F16, BF16: not quantized
  const std::string_view name = gguf_file_type_name(*t);
  DeclaredQuantization d;
  d.key = "gguf";
  d.source = "GGUF general.file_type";
  const std::string type = name.empty() ? "type " + std::to_string(*t) : std::string(name);
  d.qualifiers.push_back("file type " + type + " (general.file_type " + std::to_string(*t) + ")");
  d.label = "GGUF " + type;
  return d;
}

const GgufArch* find_arch(std::string_view name) {
  for (const GgufArch& a : kArchitectures)
    if (a.gguf == name) return &a;
  return nullptr;
}

// A gated DeltaNet's tensors under llama.cpp's names and their Hugging Face roles (transformers'
// Qwen3NextGatedDeltaNet; Qwen3.5 splits in_proj_qkvz and in_proj_ba, which llama.cpp stores as attn_qkv and
// attn_gate, ssm_beta and ssm_alpha).
constexpr std::pair<std::string_view, std::string_view> kDeltaNetRoles[] = {
    {"ssm_in", "in_proj_qkvz"}, {"ssm_ba", "in_proj_ba"},  {"attn_qkv", "in_proj_qkv"},
    {"attn_gate", "in_proj_z"}, {"ssm_beta", "in_proj_b"}, {"ssm_alpha", "in_proj_a"},
    {"ssm_conv1d", "conv1d"},   {"ssm_dt", "dt_bias"},     {"ssm_a", "A_log"},
    {"ssm_norm", "norm"},       {"ssm_out", "out_proj"},
};

// The module of a layer's tensor: "ssm_in" of "blk.3.ssm_in.weight".
std::string_view layer_module(const InventoryTensor& t) {
  std::string_view rest = std::string_view(t.name).substr(std::min(t.name.size(), t.stack().size() + 1));
  rest = rest.substr(std::min(rest.size(), rest.find('.') + 1));  // past the layer index
  return rest.substr(0, rest.find('.'));
}

// The metadata of one architecture: "{arch}.KEY", scalar or (per layer) array. A key that is present must
// hold what its name says: a value of another type, a negative count or a size no model has is a damaged or
// hand-made file, refused naming the key (exit 3), never read as absent: a default in its place would report
// numbers the file does not say (a string head_count_kv read as "as many as the heads").
class ArchKeys {
 public:
  ArchKeys(const GgufFile& g, std::string arch, std::string file, size_t tensor_layers)
      : g_(g), arch_(std::move(arch)), file_(std::move(file)) {
    // One index of the architecture's keys: the layers' loops look keys up per layer, and a scan of up to
    // 65,536 metadata entries each time would cost seconds on a hostile file.
    const std::string prefix = arch_ + ".";
    for (const GgufKv& kv : g_.metadata)
      if (std::string_view(kv.key).starts_with(prefix))
        keys_.emplace(std::string_view(kv.key).substr(prefix.size()), &kv);
    block_count_ = count("block_count");
    if (block_count_ && *block_count_ == 0) refuse("block_count", "must be at least 1, found 0");
    // llama.cpp reads a per-layer array against block_count (get_key_or_arr); without the key, against the
    // layers the tensors hold, if any.
    if (block_count_)
      layers_ = *block_count_;
    else if (tensor_layers)
      layers_ = tensor_layers;
  }
  std::string key(std::string_view k) const { return arch_ + "." + std::string(k); }
  const GgufKv* find(std::string_view k) const {
    const auto it = keys_.find(k);
    return it == keys_.end() ? nullptr : it->second;
  }
  // A count (context length, window, layers): a non-negative integer when present, at most 2^32 - 1
  // (llama.cpp reads these keys as u32: a larger value is no file it loads).
  std::optional<uint64_t> count(std::string_view k) const {
    const GgufKv* kv = find(k);
    if (!kv) return std::nullopt;
    if (!kv->is_integer() || (is_signed(kv->type) && kv->i < 0))
      refuse(k, "must be a non-negative integer, found " + describe(*kv));
    if (kv->u > UINT32_MAX)
      refuse(k, "holds " + std::to_string(kv->u) + ", more than the 32 bits llama.cpp reads it as");
    return kv->u;
  }
  // A dimension (widths, head and expert counts): a count no larger than config.json's cap (ModelConfig::
  // kMaxValue, far above any model), so that products of dimensions stay inside 64 bits and an absurd value
  // is named here rather than as an overflow of some estimate.
  std::optional<uint64_t> uint(std::string_view k) const {
    const std::optional<uint64_t> v = count(k);
    if (v) check_dimension(k, *v, "");
    return v;
  }
  // A size that must be at least 1 when present (embedding_length, key_length, value_length): 0 would make a
  // KV cache of 0 bytes that "fits" anywhere.
  std::optional<uint64_t> size(std::string_view k) const {
    const std::optional<uint64_t> v = uint(k);
    if (v && *v == 0) refuse(k, "must be at least 1, found 0");
    return v;
  }
  std::optional<uint64_t> block_count() const { return block_count_; }
  // An array given per layer holds one entry per layer, as llama.cpp requires (get_key_or_arr): a shorter one
  // left the other layers to a default, a longer one is not this model's.
  void require_one_per_layer(std::string_view k, uint64_t entries) const {
    if (layers_ && entries != *layers_)
      refuse(k, "an array of " + std::to_string(entries) + " entries for " +
                    (block_count_ ? "block_count " : "the tensors' ") + std::to_string(*layers_) +
                    " layers (llama.cpp requires one entry per layer)");
  }
  std::optional<double> real(std::string_view k) const { return g_.float_value(key(k)); }
  std::optional<std::string_view> text(std::string_view k) const { return g_.string_value(key(k)); }
  // A value that may be given per layer: the layer's entry of an array, else the scalar.
  std::optional<uint64_t> per_layer(std::string_view k, size_t layer) const {
    const PerLayer& v = per_layer_value(k);
    if (!v.array) return v.scalar;
    if (layer < v.values.size()) return v.values[layer];
    return std::nullopt;
  }
  // The first non-zero value of a per-layer key (the record's model-wide default).
  std::optional<uint64_t> first(std::string_view k) const {
    const PerLayer& v = per_layer_value(k);
    if (!v.array) return v.scalar;
    for (uint64_t x : v.values)
      if (x) return x;
    return v.values.empty() ? std::nullopt : std::optional<uint64_t>(0);
  }
  const GgufFile& file() const { return g_; }
  const std::string& file_name() const { return file_; }

 private:
  struct PerLayer {
    bool array = false;
    std::optional<uint64_t> scalar;
    std::vector<uint64_t> values;
  };

  [[noreturn]] void refuse(std::string_view k, const std::string& rule) const {
    throw Error(ErrorKind::Malformed, file_, key(k), rule);
  }
  static bool is_signed(GgufType t) {
    return t == GgufType::I8 || t == GgufType::I16 || t == GgufType::I32 || t == GgufType::I64;
  }
  static std::string describe(const GgufKv& kv) {
    if (kv.type == GgufType::Array) return "an array of " + std::string(gguf_type_name(kv.element_type));
    if (kv.type == GgufType::String) return "a string";
    if (kv.type == GgufType::Bool) return "a bool";
    if (kv.is_float()) return "a " + std::string(gguf_type_name(kv.type));
    return is_signed(kv.type) ? std::to_string(kv.i) : std::to_string(kv.u);
  }
  void check_dimension(std::string_view k, uint64_t v, const std::string& where) const {
    if (v > ModelConfig::kMaxValue)
      refuse(k, where + "holds " + std::to_string(v) + ", implausibly large (cap " +
                    std::to_string(ModelConfig::kMaxValue) + ")");
  }
  // A per-layer key decoded once for the record (the layers' loops read it per layer: decoding the array
  // each time cost O(layers x entries), 16 s for 2,000 layers and arrays of 300,000), its length checked
  // (require_one_per_layer).
  const PerLayer& per_layer_value(std::string_view k) const {
    if (const auto it = per_layer_.find(k); it != per_layer_.end()) return it->second;
    PerLayer v;
    const GgufKv* kv = find(k);
    if (kv && kv->type == GgufType::Array) {
      const GgufType t = kv->element_type;
      if (t == GgufType::Array || t == GgufType::String || t == GgufType::Bool || t == GgufType::F32 ||
          t == GgufType::F64)
        refuse(k,
               "must be a non-negative integer or an array of them (one per layer), found " + describe(*kv));
      require_one_per_layer(k, kv->count);
      v.array = true;
      v.values.resize(kv->count);
      for (uint64_t i = 0; i < kv->count; ++i) {
        const std::optional<uint64_t> x = g_.uint_element(*kv, i);  // nullopt: a negative entry
        if (!x) refuse(k, "entry " + std::to_string(i) + " is negative");
        check_dimension(k, *x, "entry " + std::to_string(i) + " ");
        v.values[i] = *x;
      }
    } else {
      v.scalar = uint(k);
    }
    return per_layer_.emplace(std::string(k), std::move(v)).first->second;
  }

  const GgufFile& g_;
  std::string arch_;
  std::string file_;
  std::unordered_map<std::string_view, const GgufKv*> keys_;  // by the name after "{arch}."
  std::optional<uint64_t> block_count_;
  std::optional<uint64_t> layers_;  // the entries a per-layer array must have
  mutable std::map<std::string, PerLayer, std::less<>> per_layer_;
};

// What each layer's tensors show beyond its kind: whether its MLP is gated, and the expert width stored.
struct LayerTensors {
  bool gated = false;
  uint64_t up_rows = 0;  // rows of the MLP's up projection (Phi-3 stores gate and up fused in ffn_up)
  bool expert_gated = false;
  uint64_t expert_width = 0;
  uint64_t experts = 0;
  bool shared_expert = false;
  bool cross_attention = false;  // T5's decoder layers attend the encoder's output
  bool indexer = false;          // a sparse-attention indexer of its own (DeepSeek-V3.2, GLM-5)
};

std::vector<LayerTensors> layer_tensors(const std::vector<InventoryTensor>& tensors, std::string_view stack,
                                        size_t layers) {
  std::vector<LayerTensors> out(layers);
  for (const InventoryTensor& t : tensors) {
    if (!t.placement.layer || t.stack() != stack || *t.placement.layer >= layers) continue;
    LayerTensors& l = out[*t.placement.layer];
    const Block b = t.placement.block;
    const std::string& role = t.placement.role;
    if (b == Block::Mlp && role == "gate") l.gated = true;
    if (b == Block::Mlp && role == "up" && t.shape.size() == 2) l.up_rows = t.shape[0];
    if (b == Block::SharedExpert) l.shared_expert = true;
    if (b == Block::CrossAttention) l.cross_attention = true;
    if (b == Block::Attention && role.starts_with("indexer-")) l.indexer = true;
    if (b == Block::MoeExpert && t.shape.size() == 3) {
      // [experts, width, hidden] for gate/up, [experts, hidden, width] for down (ggml's ne reversed).
      l.experts = t.shape[0];
      if (role == "gate" || role == "gate-up") l.expert_gated = true;
      if (role == "up" || role == "gate") l.expert_width = t.shape[1];
      if (role == "gate-up") l.expert_width = t.shape[1] / 2;
    }
  }
  return out;
}

// Which layers use the sliding window: a per-layer boolean array when the file has one, else every layer but
// one of each period (llama.cpp's pattern: layer i slides when i % period < period - 1, or, dense first,
// when i % period > 0).
std::vector<bool> sliding_layers(const ArchKeys& k, const GgufArch* arch, size_t layers) {
  std::vector<bool> out(layers, false);
  uint64_t period = arch ? arch->swa_period : 0;
  if (const GgufKv* kv = k.find("attention.sliding_window_pattern")) {
    // Converters write booleans; llama.cpp reads an integer array as well (nonzero: sliding).
    if (auto flags = k.file().uint_array(k.key("attention.sliding_window_pattern"))) {
      k.require_one_per_layer("attention.sliding_window_pattern", flags->size());
      for (size_t i = 0; i < layers && i < flags->size(); ++i) out[i] = (*flags)[i] != 0;
      return out;
    }
    if (kv->is_integer() && kv->u > 0) period = kv->u;
  }
  const bool dense_first = arch && arch->dense_first;
  for (size_t i = 0; i < layers; ++i)
    out[i] = period == 0 || (dense_first ? i % period > 0 : i % period < period - 1);
  return out;
}

void fill_attention(const ArchKeys& k, size_t layer, const ArchitectureRecord& a, AttentionShape& at) {
  const std::optional<uint64_t> heads = k.per_layer("attention.head_count", layer);
  const std::optional<uint64_t> kv_heads = k.per_layer("attention.head_count_kv", layer);
  // A layer whose tensors make it attention cannot have 0 heads, nor KV heads that do not divide its heads
  // (transformers refuses such a config; llama.cpp would divide by them): the rule config.json follows.
  auto refuse = [&](std::string_view key, const std::string& rule) {
    throw Error(ErrorKind::Malformed, k.file_name(), k.key(key) + " (layer " + std::to_string(layer) + ")",
                rule);
  };
  if (heads && *heads == 0) refuse("attention.head_count", "an attention layer needs at least one head");
  at.heads = heads.value_or(a.num_attention_heads);
  if (kv_heads && (*kv_heads == 0 || (at.heads && at.heads % *kv_heads != 0)))
    refuse("attention.head_count_kv", "must be at least 1 and divide the " + std::to_string(at.heads) +
                                          " attention heads, found " + std::to_string(*kv_heads));
  at.kv_heads = kv_heads.value_or(at.heads);
  at.head_dim = a.head_dim;
  at.v_head_dim = k.size("attention.value_length").value_or(0);
  if (at.v_head_dim == at.head_dim) at.v_head_dim = 0;
  if (auto rank = k.uint("attention.kv_lora_rank"); rank && *rank) {
    // MLA. Files converted since mid-2025 store the absorbed form (key_length = kv_lora_rank + rope dims,
    // one kv head) and give the per-head sizes under *_mla.
    at.kind = AttentionKind::Mla;
    at.kv_lora_rank = *rank;
    at.q_lora_rank = k.uint("attention.q_lora_rank").value_or(0);
    at.qk_rope_head_dim = k.uint("rope.dimension_count").value_or(0);
    at.head_dim = k.size("attention.key_length_mla").value_or(a.head_dim);
    at.v_head_dim =
        k.size("attention.value_length_mla").value_or(k.size("attention.value_length").value_or(0));
    at.qk_nope_head_dim = at.head_dim > at.qk_rope_head_dim ? at.head_dim - at.qk_rope_head_dim : 0;
    at.kv_heads = at.heads;
    return;
  }
  at.kind = attention_kind_of(at.heads, at.kv_heads);
}

// Each layer's shapes from the metadata (per-layer arrays indexed by the layer's place in its stack) and from
// what its tensors show.
void fill_layers(const ArchKeys& k, const GgufArch* arch, const ArchitectureRecord& a,
                 const std::vector<InventoryTensor>& tensors, StackSpec& stack) {
  const std::vector<LayerTensors> seen = layer_tensors(tensors, stack.path, stack.layers.size());
  const std::optional<uint64_t> window_key = k.count("attention.sliding_window");
  uint64_t window = window_key.value_or(arch ? arch->default_window : 0);
  Span local = Span::Sliding;
  if (arch && arch->builtin_window && !(window_key && *window_key == 0)) {
    window = arch->builtin_window;
    local = arch->builtin_span;
  }
  const std::vector<bool> sliding =
      window ? sliding_layers(k, arch, stack.layers.size()) : std::vector<bool>{};
  // The last shared_kv_layers attention layers read the cache of an earlier one (Gemma 3n, as Gemma 4's
  // num_kv_shared_layers).
  uint64_t own_kv = stack.layers.size();
  if (const std::optional<uint64_t> shared = k.count("attention.shared_kv_layers"))
    own_kv -= std::min<uint64_t>(*shared, own_kv);
  else if (arch && arch->builtin_kv_layers)
    own_kv = std::min<uint64_t>(own_kv, arch->builtin_kv_layers);
  const bool mamba2 = arch && arch->mamba2;
  for (size_t i = 0; i < stack.layers.size(); ++i) {
    LayerSpec& l = stack.layers[i];
    if (l.mixer == Mixer::Attention) {
      fill_attention(k, i, a, l.attention);
      if (seen[i].cross_attention) l.cross_attention = l.attention;  // T5: the same heads over the encoder
      l.attention.shares_cache = i >= own_kv;
      if (seen[i].indexer) {  // its keys are cached per token beside the layer's own
        l.attention.indexer_heads = k.uint("attention.indexer.head_count").value_or(0);
        l.attention.indexer_head_dim = k.uint("attention.indexer.key_length").value_or(0);
        l.attention.indexer_topk = k.count("attention.indexer.top_k").value_or(0);
      }
      // Sliding layers whose heads have a width of their own (Gemma 4's 256 beside its global layers' 512).
      if (window && sliding[i]) {
        AttentionShape& at = l.attention;
        if (const std::optional<uint64_t> width = k.size("attention.key_length_swa")) at.head_dim = *width;
        if (const std::optional<uint64_t> width = k.size("attention.value_length_swa"))
          at.v_head_dim = *width == at.head_dim ? 0 : *width;
      }
      if (window && sliding[i] && window < a.max_position_embeddings) {
        l.attention.span = local;
        l.attention.window = window;
      }
    }
    // A Mamba mixer, alone or beside attention (Falcon-H1).
    Mixer& recurrent = l.mixer == Mixer::Mamba ? l.mixer : l.parallel;
    if (recurrent == Mixer::Mamba) {
      if (mamba2) recurrent = Mixer::Mamba2;
      StateShape& s = l.state;
      s.inner = k.uint("ssm.inner_size").value_or(0);
      s.state = k.uint("ssm.state_size").value_or(0);
      s.conv_kernel = k.uint("ssm.conv_kernel").value_or(0);
      if (mamba2) {
        s.groups = k.uint("ssm.group_count").value_or(1);
        s.heads = k.uint("ssm.time_step_rank").value_or(0);  // Mamba-2: one dt per head
        s.head_dim = s.heads ? s.inner / s.heads : 0;
      } else {
        s.dt_rank = k.uint("ssm.time_step_rank").value_or(0);
      }
    } else if (l.mixer == Mixer::LinearAttention) {
      StateShape& s = l.state;
      s.key_heads = k.uint("ssm.group_count").value_or(0);
      s.value_heads = k.uint("ssm.time_step_rank").value_or(0);
      s.key_head_dim = s.value_head_dim = k.uint("ssm.state_size").value_or(0);
      s.conv_kernel = k.uint("ssm.conv_kernel").value_or(0);
    } else if (l.mixer == Mixer::ShortConv) {  // LFM2: a conv over the hidden channels, l_cache taps
      l.state.inner = a.hidden_size;
      l.state.conv_kernel = k.uint("shortconv.l_cache").value_or(0);
    }
    FfnShape& f = l.ffn;
    if (f.kind == Ffn::Dense) {
      f.intermediate = k.per_layer("feed_forward_length", i).value_or(a.intermediate_size);
      // A separate gate, or gate and up fused into one ffn_up twice the width (Phi-3's gate_up_proj).
      f.gated = seen[i].gated || (f.intermediate && seen[i].up_rows == 2 * f.intermediate);
    } else if (f.kind == Ffn::Moe) {
      f.gated = seen[i].expert_gated;
      f.expert_matrices = f.gated ? 3 : 2;
      f.experts = a.num_experts ? a.num_experts : seen[i].experts;
      f.top_k = a.experts_per_token;
      f.expert_intermediate = a.moe_intermediate_size ? a.moe_intermediate_size : seen[i].expert_width;
      if (seen[i].shared_expert) {
        f.shared_experts = std::max<uint64_t>(1, a.num_shared_experts);
        f.shared_intermediate =
            k.uint("expert_shared_feed_forward_length").value_or(f.shared_experts * f.expert_intermediate);
      }
    }
  }
}

// T5 keeps its encoder's layers under "enc.blk" beside the decoder's "dec.blk": the encoder becomes its own
// stack (every layer self-attention and an MLP), as transformers' T5 record has it.
void add_t5_encoder(const ArchKeys& k, const GgufArch* arch, ArchitectureRecord& a,
                    const std::vector<InventoryTensor>& tensors) {
  constexpr std::string_view kEncoder = "enc.blk";
  if (a.stack(StackRole::Encoder)) return;
  size_t layers = 0;
  for (const InventoryTensor& t : tensors)
    if (t.placement.layer && t.stack() == kEncoder)
      layers = std::max<size_t>(layers, size_t{*t.placement.layer} + 1);
  if (!layers || layers > kMaxInferredLayers) return;  // a hostile index sizes nothing
  StackSpec& encoder = a.add_stack(StackRole::Encoder, std::string(kEncoder), a.hidden_size);
  LayerSpec l;
  l.ffn.kind = Ffn::Dense;
  encoder.layers.assign(layers, l);
  fill_layers(k, arch, a, tensors, encoder);
}

}  // namespace

// llama.cpp's general.file_type (enum llama_ftype): the quantization mix the file was made with.
std::string_view gguf_file_type_name(uint64_t t) {
  static constexpr std::pair<uint64_t, std::string_view> kNames[] = {
      {0, "F32"},     {1, "F16"},     {2, "Q4_0"},       {3, "Q4_1"},    {7, "Q8_0"},     {8, "Q5_0"},
      {9, "Q5_1"},    {10, "Q2_K"},   {11, "Q3_K_S"},    {12, "Q3_K_M"}, {13, "Q3_K_L"},  {14, "Q4_K_S"},
      {15, "Q4_K_M"}, {16, "Q5_K_S"}, {17, "Q5_K_M"},    {18, "Q6_K"},   {19, "IQ2_XXS"}, {20, "IQ2_XS"},
      {21, "Q2_K_S"}, {22, "IQ3_XS"}, {23, "IQ3_XXS"},   {24, "IQ1_S"},  {25, "IQ4_NL"},  {26, "IQ3_S"},
      {27, "IQ3_M"},  {28, "IQ2_S"},  {29, "IQ2_M"},     {30, "IQ4_XS"}, {31, "IQ1_M"},   {32, "BF16"},
      {36, "TQ1_0"},  {37, "TQ2_0"},  {38, "MXFP4_MOE"},
  };
  for (const auto& [k, n] : kNames)
    if (k == t) return n;
  return {};
}

void place_gguf_architecture_tensors(const GgufFile& g, std::vector<InventoryTensor>& tensors) {
  const std::optional<std::string_view> name = g.string_value("general.architecture");
  const GgufArch* arch = name ? find_arch(*name) : nullptr;
  if (!arch || !arch->delta_net) return;
  // A layer is a DeltaNet one by its convolution; its attn_qkv and attn_gate are then the DeltaNet's too.
  std::vector<bool> delta_layer;
  for (const InventoryTensor& t : tensors)
    if (t.placement.layer && *t.placement.layer <= kMaxInferredLayers && layer_module(t) == "ssm_conv1d") {
      delta_layer.resize(std::max<size_t>(delta_layer.size(), size_t{*t.placement.layer} + 1));
      delta_layer[*t.placement.layer] = true;
    }
  for (InventoryTensor& t : tensors) {
    if (!t.placement.layer || *t.placement.layer >= delta_layer.size() || !delta_layer[*t.placement.layer])
      continue;
    const std::string_view module = layer_module(t);
    for (const auto& [gguf, role] : kDeltaNetRoles)
      if (module == gguf) {
        t.placement.block = Block::LinearAttention;
        t.placement.role = std::string(role);
      }
  }
}

GgufQkRows gguf_qk_row_order(std::string_view gguf_arch) {
  static constexpr std::array<std::string_view, 8> kRotary = {"llama",   "granite", "granitemoe", "arcee",
                                                              "smollm3", "olmo",    "minicpm",    "deci"};
  static constexpr std::array<std::string_view, 11> kAsOriginal = {
      "qwen2",  "qwen2moe", "qwen3",      "qwen3moe", "gemma",  "gemma2",
      "gemma3", "stablelm", "starcoder2", "llama4",   "apertus"};
  if (std::find(kRotary.begin(), kRotary.end(), gguf_arch) != kRotary.end()) return GgufQkRows::Rotary;
  if (std::find(kAsOriginal.begin(), kAsOriginal.end(), gguf_arch) != kAsOriginal.end())
    return GgufQkRows::AsOriginal;
  return GgufQkRows::Unknown;
}

std::string_view model_type_of_gguf_architecture(std::string_view gguf_arch) {
  const GgufArch* a = find_arch(gguf_arch);
  return a ? a->model_type : std::string_view();
}

std::vector<std::string> fill_record_from_gguf(const GgufFile& g, const std::vector<InventoryTensor>& tensors,
                                               ArchitectureRecord& a, const std::string& file) {
  std::vector<std::string> notes;
  const std::optional<std::string_view> name = g.string_value("general.architecture");
  if (!name) {
    notes.push_back("the GGUF metadata has no general.architecture: layers and dimensions are not known");
    return notes;
  }
  const GgufArch* arch = find_arch(*name);
  const std::string arch_name(*name);
  if (arch) {
    a.model_type = a.root_model_type = std::string(arch->model_type);
    a.architecture = std::string(arch->hf_class);
    a.architectures = {a.architecture};
  } else {
    a.model_type = a.root_model_type = arch_name;
    notes.push_back("llama.cpp architecture '" + printable(arch_name) +
                    "' has no Hugging Face family here: its dimensions are read, its family is not named");
  }
  const StackSpec* tensor_stack = a.main_stack();
  const ArchKeys k(g, arch_name, file, tensor_stack ? tensor_stack->layers.size() : 0);
  a.quantization = declared_quantization(g);
  a.hidden_size = k.size("embedding_length").value_or(0);
  a.num_attention_heads = k.first("attention.head_count").value_or(0);
  a.num_key_value_heads = k.first("attention.head_count_kv").value_or(a.num_attention_heads);
  a.head_dim = k.size("attention.key_length")
                   .value_or(a.num_attention_heads ? a.hidden_size / a.num_attention_heads : 0);
  a.intermediate_size = k.first("feed_forward_length").value_or(0);
  a.num_experts = k.uint("expert_count").value_or(0);
  a.experts_per_token = k.uint("expert_used_count").value_or(0);
  a.num_shared_experts = k.uint("expert_shared_count").value_or(0);
  a.moe_intermediate_size = k.uint("expert_feed_forward_length").value_or(0);
  if (auto ctx = k.count("context_length"); ctx && *ctx) {
    a.max_position_embeddings = *ctx;
    a.context.declared = DeclaredLength{*ctx, k.key("context_length")};
  }
  if (auto v = k.uint("vocab_size")) {
    a.vocab_size = *v;
  } else if (const GgufKv* tokens = g.find("tokenizer.ggml.tokens");
             tokens && tokens->type == GgufType::Array) {
    a.vocab_size = tokens->count;
  }
  bool has_output = false, has_embedding = false, has_position_table = false;
  for (const InventoryTensor& t : tensors) {
    has_output = has_output || t.placement.block == Block::LmHead;
    has_embedding = has_embedding || t.placement.role == "token-embedding";
    has_position_table = has_position_table || t.placement.role == "position-embedding";
    if (!a.vocab_size && t.placement.role == "token-embedding" && !t.shape.empty()) a.vocab_size = t.shape[0];
  }
  a.tie_word_embeddings = has_embedding && !has_output;  // llama.cpp then uses token_embd as the output

  if (auto eps = k.real("attention.layer_norm_rms_epsilon")) {
    a.norm = NormKind::RmsNorm;
    a.norm_eps = *eps;
  } else if (auto eps2 = k.real("attention.layer_norm_epsilon")) {
    a.norm = NormKind::LayerNorm;
    a.norm_eps = *eps2;
  }
  const auto rope_dims = k.uint("rope.dimension_count");
  const auto theta = k.real("rope.freq_base");
  if (has_position_table) {
    a.position = PositionKind::Learned;
  } else if (arch_name == "bloom" || arch_name == "mpt") {
    a.position = PositionKind::Alibi;
  } else if (arch_name == "t5" || arch_name == "t5encoder") {
    a.position = PositionKind::Relative;
  } else if (rope_dims || theta) {
    a.position = PositionKind::Rope;
    RopeSpec r;
    r.type = std::string(k.text("rope.scaling.type").value_or("default"));
    if (r.type == "none") r.type = "default";
    // Qwen-VL's multimodal rope: the rotary dims split by time, height and width sections.
    if (r.type == "default" && k.find("rope.dimension_sections")) r.type = "mrope";
    r.theta = theta.value_or(10000.0);  // llama.cpp's default base
    if (auto f = k.real("rope.scaling.factor"); f && *f != 0 && *f != 1) r.factor = *f;
    if (auto o = k.count("rope.scaling.original_context_length")) r.original_max_position_embeddings = *o;
    if (rope_dims && a.head_dim && *rope_dims < a.head_dim && !k.uint("attention.kv_lora_rank"))
      r.partial_rotary_factor = static_cast<double>(*rope_dims) / static_cast<double>(a.head_dim);
    if (auto local = k.real("rope.freq_base_swa"))
      r.local_theta = *local;
    else if (arch && arch->builtin_local_theta > 0)
      r.local_theta = arch->builtin_local_theta;
    a.context.rope_type = r.type == "default" ? "" : r.type;
    a.context.rope_factor = r.factor;
    if (r.original_max_position_embeddings)
      a.context.rope_original =
          DeclaredLength{*r.original_max_position_embeddings, k.key("rope.scaling.original_context_length")};
    a.rope = r;
  }

  StackSpec* stack = a.main_stack();
  if (!stack) return notes;
  stack->hidden = a.hidden_size;
  if (arch && arch->encoder_only) stack->role = StackRole::Encoder;
  if (auto blocks = k.block_count(); blocks && *blocks != stack->layers.size())
    notes.push_back(k.key("block_count") + " is " + std::to_string(*blocks) + " but the tensors hold " +
                    std::to_string(stack->layers.size()) + " layers: the tensors are counted");
  a.num_layers = stack->layers.size();
  fill_layers(k, arch, a, tensors, *stack);
  if (arch_name == "t5") add_t5_encoder(k, arch, a, tensors);
  if (!a.moe_intermediate_size)
    for (const LayerSpec& l : stack->layers)
      if (l.ffn.kind == Ffn::Moe) a.moe_intermediate_size = l.ffn.expert_intermediate;
  // DeepSeek/GLM files keep the multi-token-prediction layers at the end of block_count: their own stack, so
  // that per-token figures (KV cache, layer pattern) are the decoder's; their parameters stay counted, as
  // llama.cpp counts them (transformers builds no MTP module, so its num_parameters is lower by theirs).
  const uint64_t nextn = k.count("nextn_predict_layers").value_or(0);
  if (nextn && nextn < stack->layers.size()) {
    const size_t keep = stack->layers.size() - nextn;
    StackSpec& mtp = a.add_stack(StackRole::Mtp, stack->path, a.hidden_size);
    mtp.first_index = keep;
    mtp.layers.assign(stack->layers.begin() + static_cast<std::ptrdiff_t>(keep), stack->layers.end());
    stack->layers.resize(keep);
    a.num_layers = keep;
    const std::string which =
        nextn == 1 ? "layer " + std::to_string(keep) + " is"
                   : "layers " + std::to_string(keep) + "-" + std::to_string(keep + nextn - 1) + " are";
    notes.push_back(which + " the multi-token-prediction module (" + k.key("nextn_predict_layers") +
                    "): in the parameters, as llama.cpp counts them, but not in the active parameters or the "
                    "decoder's per-token figures");
  }
  // A pure state-space model (Mamba) has no positions at all; rope keys would have said otherwise.
  if (a.position == PositionKind::Unknown &&
      std::none_of(stack->layers.begin(), stack->layers.end(),
                   [](const LayerSpec& l) { return l.mixer == Mixer::Attention; }))
    a.position = PositionKind::None;
  return notes;
}

}  // namespace ma

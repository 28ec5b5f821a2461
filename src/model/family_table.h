// The model families we can name, as data: which config model_types and transformers classes each covers, who
// makes it, what kind of model it is, and which model-id substrings or tensor names point to it when the
// config says nothing (seed 002 "Architecture Detection" / "Fallback Detection"). Identification covers more
// families than we build templates for (ChatGLM, Baichuan, InternLM, ...): naming a model needs no inventory.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

// ImageTextEmbedding: contrastive dual encoders (CLIP, SigLIP), which embed images and texts and generate
// nothing; SpeechEncoder: wav2vec 2.0 / HuBERT, which encode audio (a CTC head labels frames) and generate
// nothing either; TimeSeries: forecasters (TimesFM, PatchTST, Time Series Transformer, ...), which read and
// predict values of a series, with no vocabulary.
enum class ModelKind : uint8_t {
  CausalLm,
  MaskedLm,
  Seq2Seq,
  Vision,
  VisionLanguage,
  Speech,
  ImageTextEmbedding,
  SpeechEncoder,
  TimeSeries
};
// causal-lm, masked-lm, seq2seq, vision, vision-language, speech, image-text-embedding, speech-encoder,
// time-series
std::string_view model_kind_name(ModelKind k);

// Lists are space-separated so the table stays one constexpr array of plain rows.
struct FamilyRow {
  std::string_view name;          // display name, e.g. "LLaMA 3", "Qwen3-MoE"
  std::string_view organization;  // who designed the architecture
  std::string_view model_types;   // config.json model_type values
  ModelKind kind;                 // the usual kind; a config's class suffix can override it
  // Lowercase substrings of a model id naming the family. Among rows sharing a model_type, the row with the
  // longest matching substring wins (LLaMA 3 over LLaMA); with no usable config they are the fallback.
  std::string_view id_patterns = "";
  // transformers classes whose names do not spell the model_type (RWForCausalLM is Falcon).
  std::string_view architectures = "";
  // Substrings that tensor names must contain (each in some name; "!x": in none) for weights without a
  // config. Only for families whose names are distinctive; several rows matching is reported as ambiguous.
  std::string_view tensor_markers = "";
  // Config keys holding the context length, in order; empty: the generic keys (max_position_embeddings,
  // n_positions, max_sequence_length, seq_length, max_seq_len, model_max_length).
  std::string_view context_keys = "";
};

std::span<const FamilyRow> family_table();

// The words of a space-separated list.
std::vector<std::string_view> list_items(std::string_view list);

// Rows covering a model_type (exact), in table order.
std::vector<const FamilyRow*> families_for_model_type(std::string_view model_type);
// The row whose model_type a transformers class spells ("GPTNeoXForCausalLM" -> gpt_neox) or that lists it.
const FamilyRow* family_for_architecture(std::string_view architecture_class);
// The longest id pattern of `row` found in `id_lower` (lowercased, '_' and ' ' as '-'); empty: none.
std::string_view matching_id_pattern(const FamilyRow& row, std::string_view id_lower);
// Lowercases and maps '_' and ' ' to '-' so "Llama-3_3" and "llama-3.3" meet the same patterns.
std::string normalize_model_id(std::string_view id);

}  // namespace ma

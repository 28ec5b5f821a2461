#include "analysis/architecture_details.h"

#include <algorithm>

namespace ma {
namespace {

// Whether every layer of a decoder attends across to a tower's output: a vision or speech encoder-decoder
// (TrOCR, Donut, a wav2vec2 encoder with a GPT-2 decoder), whose encoder is a tower in the record. A decoder
// with a few cross-attention layers among its own (Llama 3.2 Vision's 8 of 40) is a decoder-only model that
// also reads an image.
bool cross_attends_a_tower(const ArchitectureRecord& a, const StackSpec& decoder) {
  if (!a.stack(StackRole::Vision) && !a.stack(StackRole::Audio)) return false;
  return !decoder.layers.empty() &&
         std::all_of(decoder.layers.begin(), decoder.layers.end(),
                     [](const LayerSpec& l) { return l.cross_attention.has_value(); });
}

// From the record's stacks: an encoder with a decoder, an encoder alone (BERT, T5EncoderModel), or a decoder
// by its mixers.
std::string architecture_type(const ArchitectureRecord& a) {
  const StackSpec* decoder = a.stack(StackRole::Decoder);
  if (a.stack(StackRole::Encoder)) return decoder ? "encoder-decoder" : "encoder-only";
  if (!decoder) return "";
  if (cross_attends_a_tower(a, *decoder)) return "encoder-decoder";
  size_t attention = 0, recurrent = 0;
  for (const LayerSpec& l : decoder->layers) {
    if (l.mixer == Mixer::Attention)
      ++attention;
    else if (l.mixer != Mixer::None)
      ++recurrent;
    if (l.parallel != Mixer::None) ++recurrent;  // beside attention in the same layer (Falcon-H1)
  }
  if (recurrent && attention) return "hybrid";
  if (recurrent) return "ssm";
  return attention ? "decoder-only" : "";
}

// gated when the FFN layers gate (SwiGLU, GeGLU), plain when they do not, none without FFN layers (Mamba).
std::string mlp_type(const ArchitectureRecord& a) {
  bool any = false, gated = false;
  for (const LayerSpec& l : a.layers()) {
    if (l.ffn.kind == Ffn::None) continue;
    any = true;
    gated = gated || l.ffn.gated;
  }
  // No layers at all (no template: the config alone named the model) says nothing about the FFN.
  if (!any) return a.model_type.empty() || a.layers().empty() ? "" : "none";
  return gated ? "gated" : "plain";
}

std::vector<StackSummary> stacks_of(const ArchitectureRecord& a, const ParameterCounts& params,
                                    const StoredModule& mtp) {
  std::vector<StackSummary> out;
  for (size_t i = 0; i < a.stacks.size(); ++i) {
    const StackSpec& s = a.stacks[i];
    StackSummary x;
    x.role = s.role;
    x.path = s.path;
    x.layers = s.layers.size();
    x.hidden = s.hidden;
    for (const LayerSpec& l : s.layers)
      if (l.mixer == Mixer::Attention && l.attention.heads) {
        x.heads = l.attention.heads;
        break;
      }
    x.patch_size = s.patch_size;
    x.image_size = s.image_size;
    x.mel_bins = s.mel_bins;
    x.positions = s.positions;
    x.shared_weights = s.shared_weights;
    if (i < params.each_stack.size()) x.parameters = params.each_stack[i];
    if (s.role == StackRole::Mtp) {
      x.counted_in_total = x.parameters > 0;  // the parameter counts took its layers in
      if (!x.counted_in_total) x.parameters = mtp.parameters;
      x.stored_bytes = mtp.bytes;
    }
    out.push_back(std::move(x));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const StackSummary& x, const StackSummary& y) { return x.role < y.role; });
  return out;
}

}  // namespace

ArchitectureDetails describe_architecture(const ArchitectureRecord& a, const ParameterCounts& params,
                                          const StoredModule& mtp) {
  ArchitectureDetails d;
  d.num_hidden_layers = a.model_type.empty() ? a.layers().size() : a.num_layers;
  d.hidden_size = a.hidden_size;
  d.intermediate_size = a.intermediate_size;
  d.num_attention_heads = a.num_attention_heads;
  d.num_key_value_heads = a.num_key_value_heads;
  d.head_dim = a.head_dim;
  d.vocab_size = a.vocab_size;
  d.max_position_embeddings = a.max_position_embeddings;
  d.tie_word_embeddings = a.tie_word_embeddings;
  d.use_cache = a.use_cache;
  d.torch_dtype = a.torch_dtype;
  if (a.stored_dtype) {
    d.stored_dtype = std::string(dtype_info(*a.stored_dtype).short_name);
    d.stored_dtype_source = a.stored_dtype_source;
  }
  d.architecture_type = architecture_type(a);
  d.norm_type = std::string(norm_kind_name(a.norm));
  d.norm_eps = a.norm_eps;
  d.activation = a.activation;
  d.mlp_type = mlp_type(a);
  d.position_embedding = std::string(position_kind_name(a.position));
  d.rope = a.rope;
  d.attention_bias = a.attention_bias;
  d.mlp_bias = a.mlp_bias;
  d.hand_derived = a.hand_derived;
  if (const StackSpec* e = a.stack(StackRole::Encoder)) d.encoder_layers = e->layers.size();
  if (const StackSpec* x = a.stack(StackRole::Decoder)) d.decoder_layers = x->layers.size();
  d.stacks = stacks_of(a, params, mtp);
  return d;
}

}  // namespace ma

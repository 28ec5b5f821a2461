// RWKV-4 (rwkv; RwkvForCausalLM, the RWKV/rwkv-4-* and rwkv-raven-* checkpoints): no attention. Each block
// mixes time by a WKV recurrence per channel, a sum of past values weighted by a learned exponential decay
// (time_decay) with a bonus for the current token (time_first), read through a sigmoid receptance; its
// key, value and receptance see the token interpolated with the one before (time_mix_*, the token shift).
// Its channel mixing is a squared-ReLU MLP gated the same way. transformers keeps time_decay and time_first
// in float32 when the rest loads in half precision (a few hundred kilobytes; the weight memory is figured at
// one dtype throughout).
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

void build_rwkv(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "RwkvForCausalLM");
  const std::string task = supported_task(cfg, cls, "Rwkv", {"ForCausalLM", "Model"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.vocab_size = cfg.dim_or("vocab_size", 50277);
  a.hidden_size = cfg.dim_or("hidden_size", 4096);
  a.num_layers = cfg.layers_or("num_hidden_layers", 32);
  a.max_position_embeddings =
      cfg.dim_or("context_length", 1024);  // the training length; nothing is sized by it
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", false);
  a.position = PositionKind::None;
  a.norm = NormKind::LayerNorm;
  const uint64_t h = a.hidden_size;
  // RwkvConfig: attention_hidden_size and intermediate_size null take hidden_size and 4 x hidden_size.
  const uint64_t att = cfg.has("attention_hidden_size") ? cfg.dim("attention_hidden_size") : h;
  a.intermediate_size = cfg.has("intermediate_size") ? cfg.dim("intermediate_size") : 4 * h;
  const uint64_t inter = a.intermediate_size;

  const std::string root = task == "Model" ? "" : "rwkv.";
  blocks::embedding(t, root + "embeddings.weight", a.vocab_size, h);
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "blocks", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string b = root + "blocks." + std::to_string(i) + ".";
    if (i == 0) blocks::norm(t, b + "pre_ln", h, true);  // the embeddings' LayerNorm, kept in the first block
    blocks::norm(t, b + "ln1", h, true);
    blocks::norm(t, b + "ln2", h, true);
    // The time mixing's own parameters come before its linears in the state dict.
    t.add(b + "attention.time_decay", {att});
    t.add(b + "attention.time_first", {att});
    for (const char* mix : {"time_mix_key", "time_mix_value", "time_mix_receptance"})
      t.add(b + "attention." + mix, {1, 1, h});
    for (const char* proj : {"key", "value", "receptance"})
      blocks::linear(t, b + "attention." + proj, h, att, false);
    blocks::linear(t, b + "attention.output", att, h, false);
    for (const char* mix : {"time_mix_key", "time_mix_receptance"})
      t.add(b + "feed_forward." + mix, {1, 1, h});
    blocks::linear(t, b + "feed_forward.key", h, inter, false);
    blocks::linear(t, b + "feed_forward.receptance", h, h, false);
    blocks::linear(t, b + "feed_forward.value", inter, h, false);
    LayerSpec l;
    l.mixer = Mixer::Rwkv;
    l.state.inner = h;  // transformers sizes all five state vectors by hidden_size
    l.ffn.kind = Ffn::Dense;
    l.ffn.gated = false;  // squared ReLU; the receptance gates the output, not a second up projection
    l.ffn.intermediate = inter;
    stack.layers.push_back(l);
  }
  blocks::norm(t, root + "ln_out", h, true);
  if (task == "ForCausalLM") lm_head(t, "rwkv.embeddings.weight", a, "head.weight");
}

constexpr std::array kRwkvFamilies{FamilyBuilder{"rwkv", build_rwkv}};

}  // namespace

std::span<const FamilyBuilder> rwkv() {
  return kRwkvFamilies;
}

}  // namespace ma::families

#include "model/layer_shapes.h"

namespace ma {
namespace {

void complete_attention(AttentionShape& at, const ArchitectureRecord& a, uint64_t hidden) {
  // A window as long as the whole context never slides (Phi-3-128k: 262,144 over 131,072 positions): the
  // layer attends fully, and its cache is a full one.
  if (at.span == Span::Sliding && a.max_position_embeddings && at.window >= a.max_position_embeddings) {
    at.span = Span::Full;
    at.window = 0;
  }
  if (!at.heads) at.heads = a.num_attention_heads;
  if (!at.kv_heads) at.kv_heads = a.num_key_value_heads ? a.num_key_value_heads : at.heads;
  if (!at.head_dim) at.head_dim = a.head_dim ? a.head_dim : (at.heads ? hidden / at.heads : 0);
}

void complete_ffn(FfnShape& f, const ArchitectureRecord& a) {
  if (f.kind == Ffn::Dense && !f.intermediate) f.intermediate = a.intermediate_size;
  if (f.kind != Ffn::Moe) return;
  if (!f.experts) f.experts = a.num_experts;
  if (!f.top_k) f.top_k = a.experts_per_token;
  if (!f.expert_intermediate) f.expert_intermediate = a.moe_intermediate_size;
  if (!f.shared_experts) f.shared_experts = a.num_shared_experts;
  // DeepSeek-style shared experts: n of them fused into one MLP of n x the expert width.
  if (!f.shared_intermediate && f.shared_experts)
    f.shared_intermediate = f.shared_experts * f.expert_intermediate;
}

}  // namespace

void complete_layer_shapes(ArchitectureRecord& a) {
  for (StackSpec& s : a.stacks) {
    const uint64_t hidden = s.hidden ? s.hidden : a.hidden_size;
    if (!s.hidden) s.hidden = hidden;
    for (LayerSpec& l : s.layers) {
      if (l.mixer == Mixer::Attention) complete_attention(l.attention, a, hidden);
      if (l.cross_attention) complete_attention(*l.cross_attention, a, hidden);
      complete_ffn(l.ffn, a);
    }
  }
}

}  // namespace ma

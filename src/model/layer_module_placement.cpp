// Placement rules of the modules inside a layer that are attention or its feed-forward network, each
// family's spelling: LXMERT's cross-modality layers, Conditional DETR's outer projections, the attention and
// MLP module names (kAttentionParts, kMlpParts), BERT's and ViT's output.dense, LiLT's layout stream and
// BLIP-2's query feed-forward.
#include "model/layer_module_placement.h"

#include <array>
#include <utility>

#include "model/tensor_name_tables.h"
#include "model/tensor_roles.h"

namespace ma::placement {

std::optional<std::pair<Block, std::string>> layer_module_block(const Parts& inner, std::string_view module,
                                                                bool in_layer, std::string role) {
  using Placed = std::pair<Block, std::string>;
  // Evolla's decoder layers end with an adapter (EvollaSequenceAlignerCrossAttention) attending from the text
  // to the protein's latents (query, key_protein, value_protein, out_proj, scaled by its own gate_attention),
  // then a feed-forward network (ff, placed below) scaled by gate_ffw.
  if (in_layer && inner.size() >= 3 && inner[1] == "adapter") {
    const std::string_view part = inner[2];
    if (part == "gate_ffw") return Placed{Block::Mlp, "gate"};
    if (part == "gate_attention") return Placed{Block::CrossAttention, "gate"};
    if (part == "attention_norm") return Placed{Block::Norm, "norm"};
    if (part == "query" || part == "key_protein" || part == "value_protein" || part == "out_proj")
      return Placed{Block::CrossAttention, part == "query"           ? "q"
                                           : part == "key_protein"   ? "k"
                                           : part == "value_protein" ? "v"
                                                                     : "o"};
  }
  // LXMERT's cross-modality layers (x_layers.N): the cross-attention both streams share (visual_attention),
  // each stream's self-attention (lang_self_att, visn_self_att) and feed-forward (lang_inter, lang_output,
  // visn_inter, visn_output), each with its LayerNorm.
  if (in_layer && inner.size() >= 3) {
    const std::string_view sub = inner[1];
    const bool lxmert_attention =
        sub == "visual_attention" || sub == "lang_self_att" || sub == "visn_self_att";
    const bool lxmert_ffn =
        sub == "lang_inter" || sub == "lang_output" || sub == "visn_inter" || sub == "visn_output";
    if (lxmert_attention || lxmert_ffn) {
      if (module == "LayerNorm") return Placed{Block::Norm, "norm"};
      if (lxmert_attention)
        return Placed{sub == "visual_attention" ? Block::CrossAttention : Block::Attention, role};
      return Placed{Block::Mlp, sub.ends_with("_inter") ? "up" : "down"};
    }
  }
  // Conditional DETR's decoder layers project the self-attention's queries, keys and values outside it
  // (sa_qcontent_proj, sa_kpos_proj, sa_v_proj, ...) and the cross-attention's likewise (ca_*_proj).
  const bool outer_projection =
      in_layer && module.ends_with("_proj") && (module.starts_with("sa_") || module.starts_with("ca_"));
  // SAM 3.1's memory-attention layers keep their attentions' projections on the layer too
  // (self_attn_q_proj, cross_attn_out_proj, image_cross_attn_k_proj).
  const bool flat_attention_projection = in_layer && module.ends_with("_proj") && contains(module, "attn_");
  // ESPnet's Conformer layers (FastSpeech2Conformer's) with concat_after mix the attention's input and output
  // in concat_linear, beside the attention.
  const bool concat_after = in_layer && module == "concat_linear";
  // TimeSformer's temporal_dense maps its temporal attention's output back into the residual stream.
  const bool temporal_output = in_layer && module == "temporal_dense";
  // X-CLIP's message_fc turns each frame's class token into the message token its message_attn mixes.
  const bool message_token = in_layer && module == "message_fc";
  if (any_part_in(inner, kAttentionParts) || outer_projection || flat_attention_projection || concat_after ||
      temporal_output || message_token ||
      in(module, std::array<std::string_view, 7>{"q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj",
                                                 "query_key_value", "Wqkv"})) {
    bool norm = contains(module, "norm") || contains(module, "ln");
    // Pix2Struct's decoder calls its cross-attention encoder_decoder_attention, torch's
    // nn.TransformerDecoderLayer multihead_attn; Grounding DINO's decoder attends to the text in
    // encoder_attn_text.
    bool cross =
        any_part_in(inner, std::array<std::string_view, 8>{"EncDecAttention", "encoder_attn", "cross_attn",
                                                           "crossattention", "cross_attention",
                                                           "encoder_decoder_attention", "multihead_attn",
                                                           "encoder_attn_text"}) ||
        (outer_projection && module.starts_with("ca_")) ||
        (flat_attention_projection && contains(module, "cross_attn"));
    // Their role is that of the projection's own name after the attention's (q_proj, out_proj), where it
    // names one (DAB-DETR's self_attn_query_content_proj keeps its whole name).
    if (flat_attention_projection) {
      const std::string_view own = module.substr(module.rfind("attn_") + 5);
      if (std::string known = role_of(own); known != own) role = std::move(known);
    }
    return Placed{
        norm && !contains(module, "proj") ? Block::Norm : (cross ? Block::CrossAttention : Block::Attention),
        role};
  }
  // torch's nn.TransformerEncoderLayer / nn.TransformerDecoderLayer keep their FFN's linear1 and linear2
  // directly on the layer (OneFormer's query transformer); deeper ones belong to their own module (Voxtral
  // Realtime's ada_rms_norm.linear1). (DAB-DETR's encoder layers hold their PReLU, one learned weight, as
  // activation_fn.)
  const bool torch_layer_ffn = in_layer && inner.size() == 3 && (module == "linear1" || module == "linear2");
  if (any_part_in(inner, kMlpParts) || torch_layer_ffn ||
      in(module, std::array<std::string_view, 7>{"gate_proj", "up_proj", "down_proj", "fc1_latent_proj",
                                                 "fc2_latent_proj", "ffn_output", "activation_fn"})) {
    bool bert_up = module == "dense" && any_part_in(inner, std::array<std::string_view, 1>{"intermediate"});
    bool bert_down = module == "dense" && any_part_in(inner, std::array<std::string_view, 1>{"output"});
    // Funnel's ffn (linear_1, linear_2, layer_norm), MobileBERT's extra ffn.N (its output.LayerNorm),
    // XLNet's ff (layer_1, layer_2) and Pix2Struct's mlp (DenseReluDense, layer_norm): the LayerNorm in the
    // block is a norm.
    // DAB-DETR's decoder layers keep final_layer_norm in their mlp.
    if (any_part_in(inner, std::array<std::string_view, 3>{"ffn", "ff", "mlp"}) &&
        (module == "LayerNorm" || module == "layer_norm" || module == "final_layer_norm")) {
      return Placed{Block::Norm, "norm"};
    }
    if (module == "linear_1" || module == "layer_1") role = "up";
    if (module == "linear_2" || module == "layer_2") role = "down";
    // GPT-2's and Qwen-1's MLP output is c_proj, which names the attention output elsewhere.
    return Placed{Block::Mlp, bert_up ? "up" : bert_down || module == "c_proj" ? "down" : role};
  }
  // BERT / ViT checkpoints: the FFN's down projection is "layer.N.output.dense" (its attention twin,
  // "attention.output.dense", was placed above); Swin's blocks nest the same modules one list deeper, in
  // stages ("layers.S.blocks.B.output.dense"): "output" follows the innermost index.
  size_t innermost = 0;
  for (size_t i = 0; i < inner.size(); ++i)
    if (all_digits(inner[i])) innermost = i;
  if (in_layer && inner.size() >= innermost + 3 && inner[innermost + 1] == "output") {
    bool norm = contains(module, "LayerNorm") || contains(module, "layernorm");  // SqueezeBERT's lower case
    return Placed{norm ? Block::Norm : Block::Mlp, norm ? "norm" : "down"};
  }
  // LiLT's layout stream repeats the feed-forward block beside the text's: layer.N.layout_intermediate.dense
  // and layer.N.layout_output.dense.
  if (in_layer && inner.size() >= innermost + 3 && module == "dense" &&
      (inner[innermost + 1] == "layout_intermediate" || inner[innermost + 1] == "layout_output")) {
    return Placed{Block::Mlp, inner[innermost + 1] == "layout_intermediate" ? "up" : "down"};
  }
  // BLIP-2's Q-Former runs its queries through a feed-forward block of their own beside the text's:
  // layer.N.intermediate_query.dense and layer.N.output_query.dense (Blip2QFormerModel configured alone).
  if (in_layer && inner.size() >= innermost + 3 && module == "dense" &&
      (inner[innermost + 1] == "intermediate_query" || inner[innermost + 1] == "output_query")) {
    return Placed{Block::Mlp, inner[innermost + 1] == "intermediate_query" ? "up" : "down"};
  }
  return std::nullopt;
}

std::optional<std::pair<Block, std::string>> lone_cross_layer_block(const Parts& parts,
                                                                    std::string_view module, bool in_layer,
                                                                    const std::string& role) {
  if (in_layer) return std::nullopt;
  for (size_t i = 0; i + 2 < parts.size(); ++i) {
    if (parts[i] != "cross_attention" && parts[i] != "decoding_cross_attention") continue;
    const std::string_view sub = parts[i + 1];
    if (contains(module, "norm")) return std::pair{Block::Norm, std::string("norm")};
    if (sub == "attention") return std::pair{Block::CrossAttention, role};
    if (sub == "mlp") return std::pair{Block::Mlp, role};
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ma::placement

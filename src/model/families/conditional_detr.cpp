// Conditional DETR (model_type conditional_detr; microsoft/conditional-detr-resnet-50): DETR's backbone and
// encoder (detr_body.cpp) with a decoder whose layers project queries and keys outside the attention
// (ConditionalDetrAttention holds only out_proj): content and position projections for the self-attention,
// and for the cross-attention a second, sine-embedded reference-point query concatenated per head to the
// content one, so its attention is 2 x d_model wide in the query and key but d_model in the value.
// ConditionalDetrForObjectDetection's classifier has no "no object" class (sigmoid focal loss).
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// ConditionalDetrDecoderLayer in registration order. Only the first layer keeps ca_qpos_proj:
// ConditionalDetrDecoder sets it to None in layers 1.., which drops it from the parameters and state_dict.
void conditional_detr_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l, bool first) {
  const uint64_t d = l.hidden;
  for (const char* proj :
       {"sa_qcontent_proj", "sa_qpos_proj", "sa_kcontent_proj", "sa_kpos_proj", "sa_v_proj"})
    blocks::linear(t, p + proj, d, d, true);
  blocks::linear(t, p + "self_attn.out_proj", d, d, true);
  blocks::norm(t, p + "self_attn_layer_norm", d, true);
  blocks::linear(t, p + "ca_qcontent_proj", d, d, true);
  if (first) blocks::linear(t, p + "ca_qpos_proj", d, d, true);
  for (const char* proj : {"ca_kcontent_proj", "ca_kpos_proj", "ca_v_proj", "ca_qpos_sine_proj"})
    blocks::linear(t, p + proj, d, d, true);
  // ConditionalDetrAttention(2 * d_model, d_model, heads): out_proj maps out_dim to out_dim.
  blocks::linear(t, p + "encoder_attn.out_proj", d, d, true);
  blocks::norm(t, p + "encoder_attn_layer_norm", d, true);
  blocks::linear(t, p + "fc1", d, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, d, true);
  blocks::norm(t, p + "final_layer_norm", d, true);
}

// ConditionalDetrDecoder under `p`: its layers, the final LayerNorm, then query_scale (MLP(d, d, d, 2): the
// transformation of the reference points' sine embedding per layer) and ref_point_head (MLP(d, d, 2, 2): the
// reference points from the query position embeddings).
void conditional_detr_decoder(const std::string& p, const StackDims& dims, ModelTemplate& t) {
  const uint64_t d = dims.layer.hidden;
  for (uint64_t i = 0; i < dims.layers; ++i)
    conditional_detr_decoder_layer(t, p + "layers." + std::to_string(i) + ".", dims.layer, i == 0);
  blocks::norm(t, p + "layernorm", d, true);
  blocks::linear(t, p + "query_scale.layers.0", d, d, true);
  blocks::linear(t, p + "query_scale.layers.1", d, d, true);
  blocks::linear(t, p + "ref_point_head.layers.0", d, d, true);
  blocks::linear(t, p + "ref_point_head.layers.1", d, 2, true);
}

}  // namespace

void build_conditional_detr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ConditionalDetrModel");
  const std::string task =
      supported_task(cfg, cls, "ConditionalDetr", {"Model", "ForObjectDetection", "ForSegmentation"});
  t.arch.architecture = cls;
  // ConditionalDetrConfig's num_queries defaults to 300 (DETR's to 100).
  const DetrBodyStyle style{.default_queries = 300, .decoder = conditional_detr_decoder};
  if (task == "Model") {
    detr_model_body(cfg, "", style, t);
    return;
  }
  // ConditionalDetrForSegmentation wraps a whole ConditionalDetrForObjectDetection as conditional_detr.
  const std::string heads = task == "ForSegmentation" ? "conditional_detr." : "";
  const std::vector<uint64_t> channels = detr_model_body(cfg, heads + "model.", style, t);
  detr_detection_heads(cfg, heads, t, false);
  if (task == "ForSegmentation") detr_segmentation_heads(cfg, channels, t);
}

}  // namespace ma::families

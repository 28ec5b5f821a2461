// Builders of DETR and its close relatives (group detr, family_groups.h): DETR (detr_model.cpp), Table
// Transformer (table_transformer.cpp) and Conditional DETR (conditional_detr.cpp), which share the
// convolutional backbone (detr_backbone.cpp) and the encoder-decoder body with its detection heads
// (detr_body.cpp); Deformable DETR (deformable_detr.cpp) on DETR's backbone; RT-DETR and RT-DETR v2
// (rt_detr_model.cpp), with their own ResNet (rt_detr_resnet.cpp) and hybrid encoder (rt_detr_encoder.cpp),
// DETR's frozen batch norms and a Deformable DETR decoder. DAB-DETR (dab_detr.cpp) on DETR's backbone;
// D-FINE (d_fine.cpp) on an HGNetV2 with RT-DETR's AIFI, query selection and heads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/model_template.h"

namespace ma::families {

void build_detr(const ModelConfig& cfg,
                ModelTemplate& t);  // DetrModel / ForObjectDetection / ForSegmentation
void build_table_transformer(const ModelConfig& cfg,
                             ModelTemplate& t);  // TableTransformerModel / ForObjectDetection
void build_conditional_detr(const ModelConfig& cfg,
                            ModelTemplate& t);  // ConditionalDetrModel / ForObjectDetection / ForSegmentation
void build_deformable_detr(const ModelConfig& cfg,
                           ModelTemplate& t);  // DeformableDetrModel / DeformableDetrForObjectDetection
void build_rt_detr(const ModelConfig& cfg, ModelTemplate& t);  // RTDetrModel / RTDetrForObjectDetection
void build_rt_detr_v2(const ModelConfig& cfg,
                      ModelTemplate& t);                        // RTDetrV2Model / RTDetrV2ForObjectDetection
void build_dab_detr(const ModelConfig& cfg, ModelTemplate& t);  // DabDetrModel / DabDetrForObjectDetection
void build_d_fine(const ModelConfig& cfg, ModelTemplate& t);    // DFineModel / DFineForObjectDetection
void build_omdet_turbo(const ModelConfig& cfg, ModelTemplate& t);  // OmDetTurboForObjectDetection

// A BatchNorm2d under `p`: frozen (DetrFrozenBatchNorm2d, what replace_batch_norm puts in a DETR backbone),
// weight, bias, running_mean and running_var, all buffers; otherwise nn.BatchNorm2d's weight and bias, then
// its running statistics and num_batches_tracked as buffers.
void detr_batch_norm(ModelTemplate& t, const std::string& p, uint64_t channels, bool frozen);
// A bias-free nn.Conv2d (every convolution of a ResNet body) followed by its batch norm.
void detr_conv_norm(ModelTemplate& t, const std::string& conv, const std::string& norm, uint64_t in,
                    uint64_t out, uint64_t kernel, bool frozen = true);
// replace_batch_norm over the tensors from index `first` on (a backbone built with trainable batch norms):
// every BatchNorm2d becomes a DetrFrozenBatchNorm2d, its weight and bias buffers, its num_batches_tracked
// gone.
void detr_replace_batch_norms(ModelTemplate& t, size_t first);
// BackboneMixin's choice of the feature maps a backbone hands on: out_features by stage name ("stem",
// "stage1", ...), else out_indices, else the last stage. `features`: the stem's channels, then each stage's.
std::vector<uint64_t> detr_backbone_channels(const ModelConfig& bb, const std::vector<uint64_t>& features);

// A transformers ResNet's shape (ResNetConfig's and RTDetrResNetConfig's fields, ResNet-50's by default):
// the stem's width, each stage's width and depth, bottleneck or basic layers.
struct ResNetShape {
  uint64_t embedding = 64;
  std::vector<uint64_t> widths, depths;
  bool bottleneck = true;
};
ResNetShape read_resnet_shape(const ModelConfig& bb);
// transformers' ResNet body (ResNetModel's embedder and encoder, resnet.cpp) under `prefix`: the 7 x 7 stem,
// then every stage's ResNetBottleNeckLayer / ResNetBasicLayer, batch norms `frozen` (DETR) or trainable.
// Returns the channels of the stem and of each stage, in order.
std::vector<uint64_t> transformers_resnet_body(const ModelConfig& bb, const std::string& prefix, bool frozen,
                                               ModelTemplate& t);

// DetrConvEncoder's backbone under `prefix` ("model.backbone.conv_encoder.model."): timm's ResNet as
// create_model(features_only=True) builds it, or transformers' ResNetBackbone (use_timm_backbone false), with
// every BatchNorm2d replaced by a frozen batch norm whose four tensors are all buffers. Returns the channels
// of the feature maps it hands on, in order (intermediate_channel_sizes).
// `default_out_indices`: the timm feature maps taken when backbone_kwargs names none (DETR's 1 to 4).
std::vector<uint64_t> detr_conv_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t,
                                         const std::vector<uint64_t>& default_out_indices = {1, 2, 3, 4});

// How DETR's relatives differ in the body: Table Transformer's layers normalise before each block
// (normalize_before) and its encoder ends with a LayerNorm; Conditional DETR builds its own decoder under
// `prefix`decoder. (its layers, final LayerNorm and decoder-level MLPs) and defaults to 300 queries.
struct DetrBodyStyle {
  bool pre_norm = false;
  uint64_t default_queries = 100;  // DetrConfig's num_queries
  void (*decoder)(const std::string& prefix, const StackDims& dims, ModelTemplate& t) = nullptr;
};

// The backbone's position embedding under `prefix`backbone.position_embedding: parameters only when
// learned (50 rows and 50 columns of d_model / 2), the sine one being computed. Returns its type.
std::string detr_position_embedding(const ModelConfig& cfg, const std::string& prefix, uint64_t d,
                                    ModelTemplate& t);
// The record of a DETR-style transformer: its encoder and decoder stacks under `prefix`, post- or pre-norm
// LayerNorms, biased projections, learned or sine positions (`positions`).
void describe_detr_transformer(const ModelConfig& cfg, const std::string& prefix,
                               const std::string& positions, bool post_norm, const StackDims& enc,
                               const StackDims& dec, ModelTemplate& t);

// DetrModel's modules under `prefix` ("model.", "detr.model." or ""): the backbone and its position
// embedding, input_projection, query_position_embeddings, the encoder and the decoder; the record's stacks
// and dimensions. Returns the backbone's feature channels.
std::vector<uint64_t> detr_model_body(const ModelConfig& cfg, const std::string& prefix,
                                      const DetrBodyStyle& s, ModelTemplate& t);
// DetrForObjectDetection's heads under `prefix` ("" or "detr."): class_labels_classifier (the labels and a
// "no object" class, unless `no_object_class` is false: Conditional DETR's sigmoid focal loss has none) and
// the three-layer bbox_predictor.
void detr_detection_heads(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t,
                          bool no_object_class = true);
// DetrForSegmentation's modules beside its DetrForObjectDetection (and Conditional DETR's, a copy): the mask
// head over the backbone's first three feature maps (`channels`) and the bbox attention.
void detr_segmentation_heads(const ModelConfig& cfg, const std::vector<uint64_t>& channels, ModelTemplate& t);

// RTDetrResNetBackbone (backbone_config of model_type rt_detr_resnet) under `prefix`: a ResNet-vd (three
// 3 x 3 stem convolutions, average-pooled shortcuts), batch norms `frozen` or not. Returns the channels of
// the feature maps it hands on.
std::vector<uint64_t> rt_detr_resnet_backbone(const ModelConfig& bb, const std::string& prefix, bool frozen,
                                              ModelTemplate& t);
// RTDetrHybridEncoder under `prefix` ("model.encoder."): the AIFI transformer encoders over the chosen
// feature levels and the CCFM (top-down FPN, bottom-up PAN of CSP-RepVGG blocks). Returns the AIFI stack.
StackDims rt_detr_hybrid_encoder(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);
// The CCFM part alone, under `prefix`: lateral_convs, fpn_blocks, downsample_convs and pan_blocks over the
// encoder_in_channels levels (OmDet-Turbo's hybrid encoder has the same neck after its own AIFI layers).
void rt_detr_ccfm_neck(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);
// The AIFI part alone: one RTDetrEncoder per encode_proj_layers entry under `prefix`encoder.N. (D-FINE's
// hybrid encoder opens with the same). Returns its stack.
StackDims rt_detr_aifi_encoders(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);
// RTDetrConvNormLayer under `p`: a bias-free convolution (conv) and a trainable BatchNorm2d (norm); its
// activation holds no parameter.
void rt_detr_conv_norm(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel);
// RTDetrCSPRepLayer under `p` (and D-FINE's): two 1 x 1 convolutions from `in` to `hidden` channels, `blocks`
// RepVGG blocks (a 3 x 3 and a 1 x 1 branch each) on the first, and a 1 x 1 convolution to `out` when
// hidden_expansion made it differ from `hidden` (nn.Identity otherwise).
void rt_detr_csp_rep_layer(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                           uint64_t blocks);
// RTDetrMLPPredictionHead(in, hidden, out, layers) under `p`: `layers` biased linears under p.layers.N.
void rt_detr_prediction_head(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden,
                             uint64_t out, uint64_t layers);
// RTDetrModel's two-stage query selection under `prefix`: the denoising label table (num_denoising > 0), the
// learned initial queries (learn_initial_query), enc_output, enc_score_head and enc_bbox_head.
void rt_detr_query_selection(const ModelConfig& cfg, const std::string& prefix, uint64_t d, ModelTemplate& t);
// The record of an RT-DETR-style detector: the backbone's vision stack, AIFI as the encoder, the decoder.
void describe_rt_detr(const ModelConfig& cfg, const std::string& prefix, uint64_t backbone_width,
                      const StackDims& aifi, const StackDims& dec, ModelTemplate& t);
// The per-layer heads the detector sets on its decoder (model.decoder.class_embed / bbox_embed), listed again
// under the detector's own class_embed / bbox_embed: tied copies, stored once under model.decoder.
void rt_detr_tie_heads_to_decoder(ModelTemplate& t);
// timm's Swin (a named variant, swin_tiny_patch4_window7_224 ...) as TimmBackbone builds it with
// features_only under `prefix` ("..._backbone."): patch_embed and the stages up to the last of `out_indices`
// (0 to 3). `image`: img_size; `always_partition`: keep the window on grids smaller than it. Returns the
// channels of the stages handed on (omdet_turbo_timm_swin.cpp).
std::vector<uint64_t> omdet_timm_swin_backbone(const ModelConfig& cfg, const std::string& name,
                                               const std::vector<uint64_t>& out_indices, uint64_t image,
                                               bool always_partition, const std::string& prefix,
                                               ModelTemplate& t);
// Deformable DETR's MultiscaleDeformableAttention under `p` (its attn kernel holds no parameter):
// sampling_offsets (heads x levels x points x 2 per query), attention_weights (heads x levels x points),
// value_proj and output_proj.
void detr_deformable_attention(ModelTemplate& t, const std::string& p, uint64_t d_model, uint64_t heads,
                               uint64_t levels, uint64_t points);
// Deformable DETR's input projections under `list` ("model.input_proj."; Grounding DINO's input_proj_vision):
// per feature map in `maps` a 1 x 1 convolution to d_model and GroupNorm(32, d_model) (list.N.0, list.N.1),
// then, up to `levels`, stride-2 3 x 3 ones from the last map's channels (d_model after the first). Lives in
// deformable_detr.cpp.
void detr_multiscale_input_projections(ModelTemplate& t, const std::string& list,
                                       const std::vector<uint64_t>& maps, uint64_t levels, uint64_t d);

}  // namespace ma::families

// Builders of DETR and its close relatives (group detr, family_groups.h): DETR (detr_model.cpp), Table
// Transformer (table_transformer.cpp) and Conditional DETR (conditional_detr.cpp), which share the
// convolutional backbone (detr_backbone.cpp) and the encoder-decoder body with its detection heads
// (detr_body.cpp).
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

// DetrConvEncoder's backbone under `prefix` ("model.backbone.conv_encoder.model."): timm's ResNet as
// create_model(features_only=True) builds it, or transformers' ResNetBackbone (use_timm_backbone false), with
// every BatchNorm2d replaced by a frozen batch norm whose four tensors are all buffers. Returns the channels
// of the feature maps it hands on, in order (intermediate_channel_sizes).
std::vector<uint64_t> detr_conv_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);

// How DETR's relatives differ in the body: Table Transformer's layers normalise before each block
// (normalize_before) and its encoder ends with a LayerNorm; Conditional DETR builds its own decoder under
// `prefix`decoder. (its layers, final LayerNorm and decoder-level MLPs) and defaults to 300 queries.
struct DetrBodyStyle {
  bool pre_norm = false;
  uint64_t default_queries = 100;  // DetrConfig's num_queries
  void (*decoder)(const std::string& prefix, const StackDims& dims, ModelTemplate& t) = nullptr;
};

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

}  // namespace ma::families

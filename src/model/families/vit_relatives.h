// Builders of the ViT relatives (group vit_relatives, family_groups.h): BEiT and data2vec-vision
// (beit_model.cpp, transformers 5's BEiT layout), ViT-MAE (vit_mae.cpp), ViT-MSN and I-JEPA
// (vit_msn_ijepa.cpp), both ViT's body with another head, and DINOv2 with registers
// (dinov2_with_registers.cpp). Also DPT (dpt_model.cpp), YOLOS (yolos.cpp) and VideoMAE (videomae.cpp), ViT
// copies that keep transformers 4's layer modules (vit_transformers4.cpp), and the video ViTs ViViT
// (vivit.cpp, ViT's transformers 5 layers) and TimeSformer (timesformer.cpp, divided space-time attention).
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/family_registry.h"
#include "model/model_template.h"

namespace ma::families {

void build_beit(const ModelConfig& cfg, ModelTemplate& t);             // BeitModel and its four heads
void build_data2vec_vision(const ModelConfig& cfg, ModelTemplate& t);  // Data2VecVisionModel and its heads
void build_vit_mae(const ModelConfig& cfg, ModelTemplate& t);          // ViTMAEModel / ViTMAEForPreTraining
void build_vit_msn(const ModelConfig& cfg, ModelTemplate& t);  // ViTMSNModel / ViTMSNForImageClassification
void build_ijepa(const ModelConfig& cfg, ModelTemplate& t);    // IJepaModel / IJepaForImageClassification
void build_dinov2_with_registers(const ModelConfig& cfg, ModelTemplate& t);  // Dinov2WithRegisters*
void build_dpt(const ModelConfig& cfg,
               ModelTemplate& t);  // DPTModel / ForDepthEstimation / ForSemanticSegmentation
void build_yolos(const ModelConfig& cfg, ModelTemplate& t);     // YolosModel / YolosForObjectDetection
void build_videomae(const ModelConfig& cfg, ModelTemplate& t);  // VideoMAEModel and its two heads
void build_vivit(const ModelConfig& cfg, ModelTemplate& t);     // VivitModel / VivitForVideoClassification
void build_timesformer(const ModelConfig& cfg,
                       ModelTemplate& t);  // TimesformerModel / ...ForVideoClassification

// How a transformers 4 ViT layer biases its query, key and value: ViT's three biased linears (when
// qkv_bias), or VideoMAE's bias-free linears beside q_bias / v_bias parameters (when qkv_bias; keys never).
enum class Vit4QkvBias { Linears, QueryValueParameters };
// One ViT layer under `p` ("encoder.layer.N") in transformers 4's modules and order: attention.attention.
// {query,key,value}, attention.output.dense, intermediate.dense, output.dense, layernorm_before/after.
void vit4_layer(ModelTemplate& t, const std::string& p, const LayerDims& d, Vit4QkvBias bias);
// `layers` such layers under `path` ("encoder.layer"), recorded as an encoder stack of their widths.
void vit4_encoder(ModelTemplate& t, const std::string& path, uint64_t layers, const LayerDims& d,
                  Vit4QkvBias bias);

}  // namespace ma::families

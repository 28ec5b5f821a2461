// Group bert_docs: encoders built of BERT's layers for documents, retrieval and characters. LayoutLMv3
// (layoutlmv3.cpp), DPR (dpr.cpp), Splinter (splinter.cpp), CANINE (canine.cpp), LiLT (lilt.cpp) and
// MarkupLM (markuplm.cpp) each build their model_type; bert_docs.cpp lists them, with ImageGPT
// (imagegpt.cpp) and the Decision Transformer (decision_transformer.cpp), GPT-2's decoder over pixels and
// over trajectories, which the same task brought.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/model_template.h"

namespace ma::families {

void build_layoutlmv3(const ModelConfig& cfg, ModelTemplate& t);  // LayoutLMv3 (text, layout and patches)
void build_layoutlmv2(const ModelConfig& cfg, ModelTemplate& t);  // LayoutLMv2, LayoutXLM (+ detectron2 FPN)
void build_dpr(const ModelConfig& cfg, ModelTemplate& t);         // DPR question / context encoders, reader
void build_splinter(const ModelConfig& cfg, ModelTemplate& t);    // Splinter (question-aware span selection)
void build_canine(const ModelConfig& cfg, ModelTemplate& t);      // CANINE (hashed characters, molecules)
void build_lilt(const ModelConfig& cfg, ModelTemplate& t);        // LiLT (text and layout streams)
void build_markuplm(const ModelConfig& cfg, ModelTemplate& t);    // MarkupLM (XPath embeddings)
void build_imagegpt(const ModelConfig& cfg, ModelTemplate& t);    // ImageGPT (GPT-2 over colour clusters)
void build_decision_transformer(const ModelConfig& cfg, ModelTemplate& t);  // Decision Transformer

// BERT's post-LayerNorm layers (no cross-attention) under `prefix`encoder.layer, recorded as an encoder
// stack of `d` (CANINE's initial_char_encoder: prefix "initial_char_").
void bert_docs_encoder(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d);

// The layout models' four box tables under `e` (LayoutLMv2's and LayoutLMv3's embeddings), whose outputs are
// concatenated to the hidden size: x and y coordinate_size wide, h and w shape_size wide, each
// max_2d_position_embeddings rows.
void layout_box_tables(const ModelConfig& cfg, ModelTemplate& t, const std::string& e);
// Their relative position biases under `p`encoder., Linear(bins, heads) without bias, shared by every layer:
// 1-D over positions (has_relative_attention_bias) and 2-D over the boxes (has_spatial_attention_bias).
void layout_relative_biases(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t heads);

// RoBERTa's two-layer classification head under `name`: dense over the hidden size, then out_proj to
// `labels` (LayoutLMv3's and LiLT's sequence classifiers, LayoutLMv3's QA and wide token heads).
void bert_docs_classification_head(ModelTemplate& t, const std::string& name, uint64_t hidden,
                                   uint64_t labels);

}  // namespace ma::families

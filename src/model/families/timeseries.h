// The time-series forecasters in group timeseries (timesfm.cpp, patchtst.cpp, patchtsmixer.cpp,
// time_series_transformer.cpp): each file builds its model_types; timeseries.cpp lists them, and
// timeseries_parts.cpp holds the pieces several of them share. None has a vocabulary: values, not tokens, go
// in and come out.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_timesfm(const ModelConfig& cfg, ModelTemplate& t);                  // TimesFM
void build_patchtst(const ModelConfig& cfg, ModelTemplate& t);                 // PatchTST
void build_patchtsmixer(const ModelConfig& cfg, ModelTemplate& t);             // PatchTSMixer
void build_time_series_transformer(const ModelConfig& cfg, ModelTemplate& t);  // Time Series Transformer
void build_informer(const ModelConfig& cfg, ModelTemplate& t);                 // Informer
void build_autoformer(const ModelConfig& cfg, ModelTemplate& t);               // Autoformer

// nn.BatchNorm1d(dim) under `prefix`: weight and bias, then the running_mean, running_var and
// num_batches_tracked buffers state_dict() lists after them.
void time_series_batch_norm(ModelTemplate& t, const std::string& prefix, uint64_t dim);

// The parameter projection of a distribution head (time_series_utils' ParameterProjection): one biased
// Linear(in, dim) per parameter of config.json's distribution_output, under `prefix`.proj.{i}: student_t
// (df, loc, scale), normal (loc, scale) or negative_binomial (total_count, logits). `dflt`: the config
// class's default distribution.
void distribution_projection(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix, uint64_t in,
                             uint64_t dim, std::string_view dflt = "student_t");

// Whether the head is the distribution head: transformers builds it unless config.json's `loss` is "mse"
// (`dflt`: the config class's default loss).
bool time_series_distribution_loss(const ModelConfig& cfg, std::string_view dflt);

}  // namespace ma::families

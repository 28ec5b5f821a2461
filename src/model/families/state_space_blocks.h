// Building blocks of state-space families: the selective-scan mixers of Mamba-1 and Mamba-2, as transformers
// builds them, so that pure SSMs and hybrids (Jamba, Nemotron-H, Granite-4) compose the same tensors.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families::ssm {

// Mamba-1 (MambaMixer, JambaMambaMixer): per-channel A [inner, state] and a low-rank dt projection.
struct Mamba1Mixer {
  uint64_t hidden = 0;
  uint64_t inner = 0;  // expand * hidden
  uint64_t state = 16;
  uint64_t conv = 4;  // depthwise convolution kernel
  uint64_t dt_rank = 0;
  bool proj_bias = false;  // in_proj / out_proj
  bool conv_bias = true;
  bool dt_norms = false;  // Jamba: RMSNorms on dt, B and C
};
void mamba1_mixer(ModelTemplate& t, const std::string& prefix, const Mamba1Mixer& m);
// What a Mamba-1 layer keeps per sequence: the conv window over d_inner channels and d_inner x d_state.
StateShape state_of(const Mamba1Mixer& m);

// Mamba-2 (Mamba2Mixer, BambaMixer, NemotronHMamba2Mixer): scalar A per head, grouped B/C, gated RMSNorm.
struct Mamba2Mixer {
  uint64_t hidden = 0;
  uint64_t inner = 0;  // heads * head_dim in well-formed configs
  uint64_t heads = 0;
  uint64_t head_dim = 0;  // of the SSM state; 0: inner / heads
  uint64_t groups = 1;
  uint64_t state = 128;
  uint64_t conv = 4;
  uint64_t chunk = 0;            // as the config states it (chunk_size, mamba_chunk_size); 0: not stated
  bool proj_bias = false;        // in_proj's, and out_proj's unless out_bias says otherwise
  std::optional<bool> out_bias;  // Falcon-H1: out_proj's bias follows projectors_bias
  bool conv_bias = true;
  bool gated_norm = true;  // Falcon-H1 has the gated RMSNorm only with mamba_rms_norm
};
void mamba2_mixer(ModelTemplate& t, const std::string& prefix, const Mamba2Mixer& m);
// What a Mamba-2 layer keeps per sequence: the conv window over d_inner + 2 x groups x d_state channels and
// heads x head_dim x d_state.
StateShape state_of(const Mamba2Mixer& m);

// A positive integer, or the string "auto" standing for `auto_value` (Mamba's time_step_rank, Jamba's
// mamba_dt_rank, Granite's mamba_d_head).
uint64_t dim_or_auto(const ModelConfig& cfg, std::string_view key, uint64_t auto_value);
// int(expand * hidden) with expand read from `key` (default `dflt`), as the config classes size the SSM.
uint64_t expanded_width(const ModelConfig& cfg, std::string_view key, double dflt, uint64_t hidden);

}  // namespace ma::families::ssm

// What `spectrum` prints and writes: seed 004's "LAYER-BY-LAYER MATRIX ANALYSIS" console (one table per
// layer, a row per matrix with its module class), the JSON (`tensors[]` with the names), and seed
// 004's CSV columns with the spectral ones after them. Every figure the console shows is in the JSON under
// the name the CSV uses.
#pragma once
#include <string>
#include <string_view>

#include "analysis/spectrum/model_spectrum.h"
#include "core/json_writer.h"
#include "report/run_info.h"

namespace ma {

std::string_view spectrum_method_name(SpectrumMethod m);  // "svd", "gram", "randomized"

std::string render_spectrum_console(const ModelSpectrum& s, bool color);
std::string render_spectrum_markdown(const ModelSpectrum& s, const RunInfo& run);
// `values`: each matrix's singular values too (--values).
void stream_spectrum_json(const ModelSpectrum& s, const RunInfo& run, bool values,
                          const JsonWriter::Sink& sink);
std::string render_spectrum_csv(const ModelSpectrum& s, std::string_view model_path,
                                std::string_view revision, std::string_view created_at);

// "128/512 (25.0%)", or "≥ 128/512" for a lower bound from a truncated spectrum.
std::string rank_text(const std::optional<uint64_t>& rank, const std::optional<uint64_t>& lower_bound,
                      uint64_t design_rank);

}  // namespace ma

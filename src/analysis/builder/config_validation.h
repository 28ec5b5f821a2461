// Seed 003 step 2: the built config checked against what the user expects (--expect-params, --expect-layers)
// and what the model's publishers claim (a PARAM_COUNTS.tsv row: "70B", "117B total / 5.1B active",
// "32.5B (31.0B non-embedding)"). A claim passes when our count lies in its rounding interval ("70B": 69.5B
// to 70.5B; an exact one: the count itself) or within the tolerance of the published number (seed 003's
// checklist: "Parameter count matches public claims (within 1%)"; --tolerance, default 1%, the same as for
// --expect-params): model cards truncate ("1.23B" for 1,235,814,400) and count the odd tensor differently.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/builder/simulator_config.h"

namespace ma {

// Which of the model's figures a claim is about.
enum class ClaimedFigure : uint8_t { Total, Active, NonEmbedding };
std::string_view claimed_figure_name(ClaimedFigure f);  // total, active, non-embedding

struct PublishedClaim {
  ClaimedFigure figure = ClaimedFigure::Total;
  std::string text;          // as published: "70B"
  double value = 0;          // the number published, in parameters: 70e9
  double low = 0, high = 0;  // what rounds to it (low == high == value for an exact claim)
  std::string source;        // the file's source column
};

// The claims of the row whose model_dir is `model_dir` (none when the model is not listed). Throws
// Error(Malformed) naming the file, line and column for a file without the model_dir, params, exactness and
// source columns, and for the model's row when it is listed twice, lacks a cell, has an exactness other
// than exact or rounded, or a params cell with no number or a word after a number that is neither a unit
// nor a figure ("70 bn").
std::vector<PublishedClaim> published_claims(const std::string& path, const std::string& model_dir);

struct Expectations {
  std::optional<double> parameters;  // --expect-params
  std::optional<uint64_t> layers;    // --expect-layers
  double tolerance = 0.01;           // --tolerance, as a fraction: for --expect-params and published claims
};

struct ConfigValidation {
  bool validated = false;            // at least one check, and every check passed
  bool failed = false;               // a check failed (the command's exit code says so)
  std::vector<std::string> notes;    // one line per check, confirmed or not
  std::vector<std::string> sources;  // where each claim came from
};

ConfigValidation validate_config(const SimulatorConfig& cfg, const Expectations& expected,
                                 const std::vector<PublishedClaim>& claims, const std::string& claims_file);

}  // namespace ma

// Seed 003 step 2: the built config checked against what the user expects (--expect-params, --expect-layers)
// and what the model's publishers claim (a PARAM_COUNTS.tsv row: "70B", "117B total / 5.1B active",
// "32.5B (31.0B non-embedding)"). A claim passes when our count lies within the tolerance of the number
// published (seed 003's checklist: "Parameter count matches public claims (within 1%)", its example "70B ...
// 69.5B actual, 0.7% diff"; --tolerance, default 1%, the same as for --expect-params), however many digits
// the claim has: "3B" and "3.00B" both pass 2.97B to 3.03B at 1%. (A rounding window would let "3B" accept
// 3.48B, +16%, and refuse 70B's 68.98B at -1.46% only because "70B" has more digits.)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/builder/simulator_config.h"

namespace ma {

// Which of the model's figures a claim is about.
enum class ClaimedFigure : uint8_t { Total, Active, NonEmbedding };
std::string_view claimed_figure_name(ClaimedFigure f);  // total, active, non-embedding

struct PublishedClaim {
  ClaimedFigure figure = ClaimedFigure::Total;
  std::string text;    // as published: "70B"
  double value = 0;    // the number published, in parameters: 70e9
  std::string source;  // for validation_sources: the reference cited, then the claims file's name and line
};

// The claims of the row whose model_dir is `model_dir` (none when the model is not listed). Throws
// Error(Malformed) naming the file, line and column for a file without the model_dir, params, exactness and
// source columns, and for the model's row when it is listed twice, lacks a cell, has an exactness other
// than exact or rounded (the column says how the publisher wrote the count; it widens no check), or a
// params cell with no number or a word after a number that is neither a unit nor a figure ("70 bn").
std::vector<PublishedClaim> published_claims(const std::string& path, const std::string& model_dir);

// One count written as a claims file writes it: digits with thousands separators and decimals, then
// optionally a unit letter or word ("70B", "1.5B", "70.55 billion", "70,553,706,496"), and nothing else;
// nullopt for any other text. --expect-params reads these spellings too.
std::optional<double> parse_parameter_count(std::string_view text);

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

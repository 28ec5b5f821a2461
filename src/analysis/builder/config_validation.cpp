#include "analysis/builder/config_validation.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/units.h"
#include "io/file_source.h"

namespace ma {
namespace {

constexpr uint64_t kMaxClaimsBytes = 16 << 20;

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, '\t');) cells.push_back(cell);
  return cells;
}

// The units a claimed count is written in: a letter ("70B") or a word ("70.55 billion", any case).
struct ClaimUnit {
  std::string_view name;
  double multiplier;
};
constexpr std::array<ClaimUnit, 8> kClaimUnits = {{{"K", 1e3},
                                                   {"M", 1e6},
                                                   {"B", 1e9},
                                                   {"T", 1e12},
                                                   {"thousand", 1e3},
                                                   {"million", 1e6},
                                                   {"billion", 1e9},
                                                   {"trillion", 1e12}}};

double multiplier_of(std::string_view word) {
  std::string lower(word);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const ClaimUnit& u : kClaimUnits)
    if (u.name.size() == 1 ? word == u.name : lower == u.name) return u.multiplier;
  return 0;
}

// The word starting at `at` (letters and hyphens: "billion", "non-embedding"); empty when none starts there.
std::string_view word_at(std::string_view cell, size_t at) {
  if (at >= cell.size()) return {};
  size_t end = at;
  while (end < cell.size() && (std::isalpha(static_cast<unsigned char>(cell[end])) || cell[end] == '-'))
    ++end;
  return cell.substr(at, end - at);
}

size_t skip_spaces(std::string_view cell, size_t at) {
  while (at < cell.size() && cell[at] == ' ') ++at;
  return at;
}

bool digits_at(std::string_view cell, size_t at, size_t n) {
  if (at + n > cell.size()) return false;
  for (size_t k = at; k < at + n; ++k)
    if (!std::isdigit(static_cast<unsigned char>(cell[k]))) return false;
  return true;
}

// A count written at `at` (a digit): digits, thousands separators (a comma before a group of exactly three
// digits), decimals, then optionally a unit ("70B", "70.55 billion"). `error` says why the text there is
// no count that can be read for sure ("1,5B"): never guessed at.
struct WrittenCount {
  double value = 0;       // in parameters
  size_t number_end = 0;  // just past the digits
  size_t end = 0;         // just past the unit, or the digits when there is none
  bool has_unit = false;
  std::string error;
};

WrittenCount read_count(std::string_view cell, size_t at) {
  WrittenCount w;
  size_t i = at;
  std::string digits;
  while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]))) digits += cell[i++];
  while (i < cell.size() && cell[i] == ',' && digits_at(cell, i + 1, 3) && !digits_at(cell, i + 4, 1)) {
    digits += cell.substr(i + 1, 3);
    i += 4;
  }
  if (i + 1 < cell.size() && cell[i] == ',' && digits_at(cell, i + 1, 1))
    w.error = "a comma inside a number separates thousands, groups of three digits";
  if (i + 1 < cell.size() && cell[i] == '.' && digits_at(cell, i + 1, 1)) {
    digits += cell[i++];
    while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]))) digits += cell[i++];
  }
  w.number_end = w.end = i;
  w.value = std::strtod(digits.c_str(), nullptr);  // no throw: 400 digits are infinity, refused below
  if (!std::isfinite(w.value)) w.error = "a number too large for any parameter count";
  const size_t word_start = skip_spaces(cell, i);
  const std::string_view word = word_at(cell, word_start);
  if (const double m = multiplier_of(word); m > 0) {
    w.value *= m;
    w.end = word_start + word.size();
    w.has_unit = true;
  }
  return w;
}

// The claims of one params cell: each number with its unit and the word after it ("total", "active",
// "activated", "non-embedding", "parameters"; none means total). Anything else after a number ("70 bn",
// "1,5B") is not read as a guess: Error(Malformed) naming `field` of `path`.
std::vector<PublishedClaim> parse_cell(const std::string& cell, const std::string& source,
                                       const std::string& path, const std::string& field) {
  auto refuse = [&](const std::string& rule) {
    throw Error(ErrorKind::Malformed, path, field, rule + ": '" + printable(cell) + "'");
  };
  std::vector<PublishedClaim> claims;
  size_t i = 0;
  while (i < cell.size()) {
    if (!std::isdigit(static_cast<unsigned char>(cell[i]))) {
      ++i;
      continue;
    }
    const WrittenCount w = read_count(cell, i);
    if (!w.error.empty()) refuse(w.error);
    const std::string text = cell.substr(i, (w.has_unit ? w.end : w.number_end) - i);
    const std::string_view word = word_at(cell, skip_spaces(cell, w.end));
    PublishedClaim c;
    if (word.starts_with("activ"))
      c.figure = ClaimedFigure::Active;
    else if (word.starts_with("non-emb"))
      c.figure = ClaimedFigure::NonEmbedding;
    else if (word.empty() || word == "total" || word.starts_with("param"))
      c.figure = ClaimedFigure::Total;
    else
      refuse("'" + std::string(word) + "' after " + text +
             " is no unit (K, M, B, T, thousand, million, billion, trillion) nor total, active or "
             "non-embedding");
    c.text = text;
    c.value = w.value;
    c.source = source;
    claims.push_back(std::move(c));
    i = w.has_unit ? w.end : skip_spaces(cell, w.number_end);
  }
  return claims;
}

// validation_sources is a list of URLs (reference/mantile.md) in a file meant to be committed elsewhere: the
// reference a claim cites comes first, as a URL where it names a GitHub file ("github:owner/repo/path@commit"
// is https://github.com/owner/repo/blob/commit/path), and the claims file is named by its file name and
// line, never by its path on this machine.
std::string github_url(std::string_view reference) {
  constexpr std::string_view kScheme = "github:";
  const size_t at = reference.rfind('@');
  if (!reference.starts_with(kScheme) || at == std::string_view::npos) return "";
  const std::string_view where = reference.substr(kScheme.size(), at - kScheme.size());
  const std::string_view commit = reference.substr(at + 1);
  const size_t owner_end = where.find('/');
  const size_t repo_end = owner_end == std::string_view::npos ? owner_end : where.find('/', owner_end + 1);
  const bool hex = !commit.empty() && std::all_of(commit.begin(), commit.end(), [](char ch) {
    return std::isxdigit(static_cast<unsigned char>(ch));
  });
  if (repo_end == std::string_view::npos || owner_end == 0 || repo_end == owner_end + 1 ||
      repo_end + 1 >= where.size() || !hex)
    return "";
  return "https://github.com/" + std::string(where.substr(0, repo_end)) + "/blob/" + std::string(commit) +
         "/" + std::string(where.substr(repo_end + 1));
}

std::string claim_source(std::string_view cited, const std::string& path, size_t line) {
  const size_t space = cited.find(' ');
  const std::string_view reference = cited.substr(0, space);
  const std::string url = github_url(reference);
  const std::string rest = space == std::string_view::npos ? "" : std::string(cited.substr(space));
  return (url.empty() ? std::string(reference) : url) + rest + " [" +
         std::filesystem::path(path).filename().string() + " line " + std::to_string(line) + "]";
}

// "70.5537B", "72.5939M": six significant digits in the unit claims are written in; below a million the
// count itself ("1", not "1e-06M").
std::string billions(double v) {
  if (v >= 1e9) return short_number(v / 1e9) + "B";
  if (v >= 1e6) return short_number(v / 1e6) + "M";
  return rounded_with_thousands(v);
}

// "+0.472%", "-1.46%": how far a count lies from a published number.
std::string signed_percent(double fraction) {
  return (fraction > 0 ? "+" : "") + percent_text(fraction);
}

struct Check {
  ConfigValidation& v;
  void record(bool ok, const std::string& line) {
    v.notes.push_back(std::string(ok ? "confirmed: " : "DISCREPANCY: ") + line);
    v.failed = v.failed || !ok;
  }
};

}  // namespace

std::string_view claimed_figure_name(ClaimedFigure f) {
  switch (f) {
    case ClaimedFigure::Active:
      return "active";
    case ClaimedFigure::NonEmbedding:
      return "non-embedding";
    case ClaimedFigure::Total:
      break;
  }
  return "total";
}

std::vector<PublishedClaim> published_claims(const std::string& path, const std::string& model_dir) {
  std::stringstream in(read_small_file(path, kMaxClaimsBytes));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_tabs(line);
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw Error(
        ErrorKind::Malformed, path, "line 1",
        "the header has no '" + name + "' column (tab-separated: model_dir, params, exactness, source)");
  };
  const size_t dir_col = column("model_dir"), params_col = column("params"), exact_col = column("exactness"),
               source_col = column("source");
  std::vector<PublishedClaim> claims;
  size_t found = 0;  // the line of the model's row
  size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    const std::vector<std::string> cells = split_tabs(line);
    if (cells.size() <= dir_col || cells[dir_col] != model_dir) continue;
    const std::string row = "line " + std::to_string(line_no);
    // The model's row is read whole or refused: a second row, a missing cell or an exactness that says
    // neither would make the check a guess.
    if (found)
      throw Error(ErrorKind::Malformed, path, row + ": model_dir",
                  "a second row for '" + printable(model_dir) + "' (the first is line " +
                      std::to_string(found) + "): one row a model");
    if (cells.size() < header.size())
      throw Error(ErrorKind::Malformed, path, row,
                  "has " + std::to_string(cells.size()) + " cells where the header names " +
                      std::to_string(header.size()) + " columns");
    if (cells[exact_col] != "exact" && cells[exact_col] != "rounded")
      throw Error(ErrorKind::Malformed, path, row + ": exactness",
                  "must be 'exact' or 'rounded', not '" + printable(cells[exact_col]) + "'");
    found = line_no;
    claims =
        parse_cell(cells[params_col], claim_source(cells[source_col], path, line_no), path, row + ": params");
    if (claims.empty())
      throw Error(ErrorKind::Malformed, path, row + ": params",
                  "holds no number: '" + printable(cells[params_col]) + "'");
  }
  return claims;
}

std::optional<double> parse_parameter_count(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return std::nullopt;
  const WrittenCount w = read_count(text, 0);
  if (!w.error.empty() || w.end != text.size()) return std::nullopt;
  return w.value;
}

ConfigValidation validate_config(const SimulatorConfig& cfg, const Expectations& expected,
                                 const std::vector<PublishedClaim>& claims, const std::string& claims_file) {
  ConfigValidation v;
  Check check{v};
  const ParameterCounts& p = cfg.parameters;
  const double total = static_cast<double>(p.total);
  if (expected.parameters) {
    const double want = *expected.parameters;
    const double off = (total - want) / want;
    check.record(std::fabs(off) <= expected.tolerance,
                 "total parameters " + with_thousands(p.total) + " (" + billions(total) +
                     ") against --expect-params " + billions(want) + ": " + percent_text(off) +
                     " off, tolerance " + percent_text(expected.tolerance));
    v.sources.push_back("--expect-params " + billions(want) + " (command line)");
  }
  if (expected.layers) {
    check.record(cfg.num_layers == *expected.layers, "layers " + std::to_string(cfg.num_layers) +
                                                         " against --expect-layers " +
                                                         std::to_string(*expected.layers));
    v.sources.push_back("--expect-layers " + std::to_string(*expected.layers) + " (command line)");
  }
  uint64_t head = 0;
  for (const BlockParameters& b : p.by_block)
    if (b.block == Block::LmHead) head = b.parameters;
  for (const PublishedClaim& c : claims) {
    // "Active" and "non-embedding" are quoted with or without the embedding tables / the untied head;
    // the convention nearest the claim is the one checked, and the note says which one matched.
    std::vector<std::pair<std::string, uint64_t>> ours;
    switch (c.figure) {
      case ClaimedFigure::Total:
        ours = {{"total", p.total}};
        break;
      case ClaimedFigure::Active:
        // A dense model runs every parameter for every token: its active count is its total (the report's
        // num_parameters_active says so too).
        ours.emplace_back("active", p.active.value_or(p.total));
        ours.emplace_back("active without embeddings", p.active_non_embedding.value_or(p.non_embedding));
        break;
      case ClaimedFigure::NonEmbedding:
        ours = {{"non-embedding", p.non_embedding}};
        if (head) ours.emplace_back("non-embedding without the head", p.non_embedding - head);
        break;
    }
    const double tolerance = expected.tolerance;
    auto off = [&](uint64_t n) { return (static_cast<double>(n) - c.value) / c.value; };
    std::string figures;
    const std::pair<std::string, uint64_t>* nearest = nullptr;
    for (const auto& convention : ours) {
      const uint64_t n = convention.second;
      figures += (figures.empty() ? "" : ", ") + convention.first + " " + billions(static_cast<double>(n)) +
                 (c.value > 0 ? " (" + signed_percent(off(n)) + ")" : "");
      if (!nearest || (c.value > 0 && std::fabs(off(n)) < std::fabs(off(nearest->second))))
        nearest = &convention;
    }
    const bool ok =
        nearest && (c.value > 0 ? std::fabs(off(nearest->second)) <= tolerance : nearest->second == 0);
    const std::string allowed = tolerance > 0 ? "within " + percent_text(tolerance) + ": " +
                                                    billions(c.value * (1 - tolerance)) + " to " +
                                                    billions(c.value * (1 + tolerance))
                                              : "exactly";
    check.record(
        ok, "published " + std::string(claimed_figure_name(c.figure)) + " " + c.text + " (" + allowed +
                ") against " + (figures.empty() ? "nothing" : figures) +
                (ok ? " (" + nearest->first + " matches within the " + percent_text(tolerance) + " tolerance)"
                    : ""));
    if (std::find(v.sources.begin(), v.sources.end(), c.source) == v.sources.end())
      v.sources.push_back(c.source);
  }
  if (v.notes.empty())
    v.notes.push_back(
        "nothing to validate against: no --expect-params or --expect-layers, and " +
        (claims_file.empty() ? std::string("no published-claims file") : "no row in " + claims_file));
  v.validated = !v.failed && !v.sources.empty();
  return v;
}

}  // namespace ma

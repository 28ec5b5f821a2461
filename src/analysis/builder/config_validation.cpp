#include "analysis/builder/config_validation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
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

double multiplier_of(char unit) {
  switch (unit) {
    case 'K':
      return 1e3;
    case 'M':
      return 1e6;
    case 'B':
      return 1e9;
    case 'T':
      return 1e12;
    default:
      return 0;
  }
}

// The claims of one params cell: each number with its unit and the word after it ("total", "active",
// "activated", "non-embedding"; none means total). A rounded number covers half a unit of its last digit.
std::vector<PublishedClaim> parse_cell(const std::string& cell, bool exact, const std::string& source) {
  std::vector<PublishedClaim> claims;
  size_t i = 0;
  while (i < cell.size()) {
    if (!std::isdigit(static_cast<unsigned char>(cell[i]))) {
      ++i;
      continue;
    }
    const size_t start = i;
    size_t decimals = 0;
    bool point = false;
    while (i < cell.size() &&
           (std::isdigit(static_cast<unsigned char>(cell[i])) || (cell[i] == '.' && !point))) {
      if (point) ++decimals;
      point = point || cell[i] == '.';
      ++i;
    }
    const double number = std::stod(cell.substr(start, i - start));
    size_t j = i;
    while (j < cell.size() && cell[j] == ' ') ++j;
    double unit = 1;
    if (j < cell.size() && multiplier_of(cell[j]) > 0) unit = multiplier_of(cell[j++]);
    const std::string text = cell.substr(start, j - start);
    while (j < cell.size() && cell[j] == ' ') ++j;
    const std::string word = cell.substr(j, cell.find_first_of(" /)", j) - j);
    PublishedClaim c;
    c.figure = word.rfind("activ", 0) == 0     ? ClaimedFigure::Active
               : word.rfind("non-emb", 0) == 0 ? ClaimedFigure::NonEmbedding
                                               : ClaimedFigure::Total;
    c.text = text;
    const double half = exact ? 0 : 0.5 * std::pow(10.0, -static_cast<double>(decimals)) * unit;
    c.low = number * unit - half;
    c.high = number * unit + half;
    c.source = source;
    claims.push_back(std::move(c));
    i = j;
  }
  return claims;
}

// "70.5537B", "72.5939M": six significant digits in the unit claims are written in; below a million the
// count itself ("1", not "1e-06M").
std::string billions(double v) {
  if (v >= 1e9) return short_number(v / 1e9) + "B";
  if (v >= 1e6) return short_number(v / 1e6) + "M";
  return rounded_with_thousands(v);
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
  const size_t dir_col = column("model_dir"), params_col = column("params");
  size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    const std::vector<std::string> cells = split_tabs(line);
    if (cells.size() <= std::max(dir_col, params_col) || cells[dir_col] != model_dir) continue;
    auto cell = [&](const std::string& name) {
      for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
        if (header[i] == name) return cells[i];
      return std::string();
    };
    const std::string source = path + " line " + std::to_string(line_no) + ": " + cell("source");
    std::vector<PublishedClaim> claims = parse_cell(cells[params_col], cell("exactness") == "exact", source);
    if (claims.empty())
      throw Error(ErrorKind::Malformed, path, "line " + std::to_string(line_no) + ": params",
                  "holds no number: '" + printable(cells[params_col]) + "'");
    return claims;
  }
  return {};
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
    // either convention confirms the claim, and the note says which one matched.
    std::vector<std::pair<std::string, uint64_t>> ours;
    switch (c.figure) {
      case ClaimedFigure::Total:
        ours = {{"total", p.total}};
        break;
      case ClaimedFigure::Active:
        if (p.active) ours.emplace_back("active", *p.active);
        if (p.active_non_embedding) ours.emplace_back("active without embeddings", *p.active_non_embedding);
        break;
      case ClaimedFigure::NonEmbedding:
        ours = {{"non-embedding", p.non_embedding}};
        if (head) ours.emplace_back("non-embedding without the head", p.non_embedding - head);
        break;
    }
    std::string matched, figures;
    for (const auto& [what, n] : ours) {
      figures += (figures.empty() ? "" : ", ") + what + " " + billions(static_cast<double>(n));
      const double x = static_cast<double>(n);
      if (matched.empty() && x >= c.low && x <= c.high) matched = what;
    }
    const std::string range = c.low == c.high ? with_thousands(static_cast<uint64_t>(c.low))
                                              : billions(c.low) + " to " + billions(c.high);
    check.record(!matched.empty(), "published " + std::string(claimed_figure_name(c.figure)) + " " + c.text +
                                       " (" + range + ") against " + (figures.empty() ? "nothing" : figures) +
                                       (matched.empty() ? "" : " (" + matched + " matches)"));
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

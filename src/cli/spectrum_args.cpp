#include "cli/spectrum_args.h"

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "cli/selection_options.h"
#include "core/error.h"

namespace ma::cli {

CommandSpec spectrum_spec(SpectrumArgs& a) {
  CommandSpec s;
  s.name = "spectrum";
  s.operands = "MODEL";
  s.summary =
      "Singular values of every weight matrix (LAPACK): numerical rank, 90% energy rank, stable and\n"
      "effective rank, spectral norm, condition number, power-law alpha; by layer and module class.";
  s.operand = one_operand(a.model, s.name);
  add_result_output_options(s, a.outputs,
                            "rank ratio and alpha by layer: .png or .svg (- for SVG on stdout)");
  SpectrumOptions& o = a.options;
  // clang-format off
  const std::vector<Option> own = {
      {{"--method"}, "M", "svd (default: every σ, LAPACK sgesdd) or gram (eigenvalues of WᵀW: ~3x faster, σ "
                          "below sqrt(n·eps)·σ_max unresolved)",
       [&o](const std::string& v) {
         o.method = choice_arg("--method", v, {"svd", "gram"}) == "gram" ? SpectrumMethod::Gram : SpectrumMethod::Svd;
       }},
      {{"--rank-k"}, "K", "only the top K singular values, by randomized SVD (ranks beyond K read >= K)",
       [&o](const std::string& v) {
         o.method = SpectrumMethod::Randomized;
         o.randomized.k = static_cast<uint32_t>(integer_arg("--rank-k", v, 1, 1u << 20));
       }},
      {{"--oversample"}, "P", "randomized SVD: extra sketch columns (default 10)",
       [&o](const std::string& v) { o.randomized.oversample = static_cast<uint32_t>(integer_arg("--oversample", v, 2, 4096)); }},
      {{"--power-iterations"}, "Q", "randomized SVD: power iterations (default 2)",
       [&o](const std::string& v) { o.randomized.power_iterations = static_cast<uint32_t>(integer_arg("--power-iterations", v, 0, 64)); }},
      {{"--seed"}, "S", "randomized SVD: the sketch's seed (default 0)",
       [&o](const std::string& v) { o.randomized.seed = integer_arg("--seed", v, 0, UINT64_MAX); }},
      {{"--energy"}, "E", "the energy rank's target besides 0.9, in (0, 1]",
       [&o](const std::string& v) { o.energy = positive_number_arg("--energy", v, 1); }},
      {{"--rank-tol"}, "T", "σ > T counts toward actual_rank (default: numpy's matrix_rank rule, "
                            "σ_max·max(m,n)·eps of float32, whatever the stored dtype; storage_rank keeps its own)",
       [&o](const std::string& v) { o.tolerance = number_arg("--rank-tol", v, 0, 1e300); }},
      {{"--eps"}, "E", "|x| <= E counts toward sparsity (default 1e-6)",
       [&o](const std::string& v) { o.eps = number_arg("--eps", v, 0, 1e300); }},
      {{"--values"}, "", "each matrix's singular values in the JSON", [&a](const std::string&) { a.values = true; }},
      {{"--spectrum-plot"}, "FILE", "the singular values of the --show matrices: .png or .svg",
       [&a](const std::string& v) { a.spectrum_plot = image_path_arg("--spectrum-plot", v); }},
      {{"--show"}, "GLOB", "matrices --spectrum-plot draws (repeatable; default: layer 0's)",
       [&a](const std::string& v) { a.show.push_back(v); }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_selection_options(s, a.selection);
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

SpectrumArgs parse_spectrum_args(const Args& args) {
  SpectrumArgs a = parse_model_command(args, spectrum_spec);
  if (a.options.method == SpectrumMethod::Randomized && a.options.randomized.k == 0)
    throw Error(ErrorKind::Usage, "", "--rank-k", "K must be at least 1");
  require_distinct_outputs(output_claims(a.outputs, {{a.spectrum_plot, "--spectrum-plot"}}));
  return a;
}

}  // namespace ma::cli

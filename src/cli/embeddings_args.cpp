#include "cli/embeddings_args.h"

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "core/error.h"

namespace ma::cli {
namespace {

constexpr uint64_t kMaxK = 4096;

}  // namespace

CommandSpec embeddings_spec(EmbeddingsArgs& a) {
  CommandSpec s;
  s.name = "embeddings";
  s.operands = "MODEL";
  s.summary =
      "How the token embedding is organised: k-means clusters with example tokens, the elbow and the\n"
      "silhouette, row norms, outlier / near-zero / duplicate rows (untrained tokens), a PCA projection.";
  s.operand = one_operand(a.model, s.name);
  add_result_output_options(s, a.outputs, "rows on the two principal components by cluster: .png or .svg");
  EmbeddingOptions& o = a.options;
  // clang-format off
  const std::vector<Option> own = {
      {{"--k"}, "N|A-B", "clusters (default 8), or a range whose elbow (Kneedle) is chosen",
       [&o](const std::string& v) {
         // A range is A-B; a leading '-' is a negative number, named whole in the error (not its empty "A").
         const size_t dash = v.find('-', 1);
         o.k_min = static_cast<uint32_t>(integer_arg("--k", v.substr(0, dash), 1, kMaxK));
         o.k_max = dash == std::string::npos ? o.k_min : static_cast<uint32_t>(integer_arg("--k", v.substr(dash + 1), 1, kMaxK));
         if (o.k_max < o.k_min) throw Error(ErrorKind::Usage, "", "--k", "the range's start is after its end");
       }},
      {{"--seed"}, "S", "k-means++ and the samples' seed (default 0)",
       [&o](const std::string& v) { o.seed = integer_arg("--seed", v, 0, UINT64_MAX); }},
      {{"--max-iter"}, "N", "Lloyd iterations at most (default 300, as scikit-learn)",
       [&o](const std::string& v) { o.max_iter = static_cast<uint32_t>(integer_arg("--max-iter", v, 1, 100000)); }},
      {{"--matrix"}, "M", "embedding (default) or head (the untied LM head)",
       [&o](const std::string& v) { o.matrix = choice_arg("--matrix", v, {"embedding", "head"}); }},
      {{"--silhouette-sample"}, "N", "rows the silhouette is computed over (default 2000; all when fewer)",
       [&o](const std::string& v) { o.silhouette_sample = integer_arg("--silhouette-sample", v, 2, 1u << 20); }},
      {{"--examples"}, "N", "tokens shown per cluster, nearest its centre first (default 5)",
       [&o](const std::string& v) { o.examples = static_cast<uint32_t>(integer_arg("--examples", v, 0, 1000)); }},
      {{"--elbow-plot"}, "FILE", "inertia by k with the elbow marked: .png or .svg",
       [&a](const std::string& v) { a.elbow_plot = image_path_arg("--elbow-plot", v); }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

EmbeddingsArgs parse_embeddings_args(const Args& args) {
  EmbeddingsArgs a = parse_model_command(args, embeddings_spec);
  require_distinct_outputs(output_claims(a.outputs, {{a.elbow_plot, "--elbow-plot"}}));
  return a;
}

}  // namespace ma::cli

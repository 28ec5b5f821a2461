#include "cli/tensors_args.h"

#include "cli/hub_options.h"
#include "cli/output_options.h"
#include "core/error.h"

namespace ma::cli {

CommandSpec tensors_spec(TensorsArgs& a) {
  CommandSpec s;
  s.name = "tensors";
  s.operands = "MODEL";
  s.summary = "Every tensor: name, shape, dtype, parameters, bytes, layer, block, role, kind.";
  s.operand = one_operand(a.model, s.name);
  // clang-format off
  s.options = {
      {{"--json"}, "", "one JSON object on stdout", [&a](const std::string&) { a.json = true; }},
      {{"--csv"}, "FILE", "the dry-run CSV (kind,name,shape,dtype,...; - for stdout)",
       [&a](const std::string& v) { a.csv_path = v; }},
  };
  // clang-format on
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

TensorsArgs parse_tensors_args(const Args& args) {
  TensorsArgs a = parse_model_command(args, tensors_spec);
  require_distinct_outputs({{a.json ? "-" : "", "--json"}, {a.csv_path, "--csv"}});
  return a;
}

}  // namespace ma::cli

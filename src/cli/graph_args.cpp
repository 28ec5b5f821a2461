#include "cli/graph_args.h"

#include "cli/hub_options.h"

namespace ma::cli {

CommandSpec graph_spec(GraphArgs& a) {
  CommandSpec s;
  s.name = "graph";
  s.operands = "MODEL";
  s.summary =
      "An ONNX model's graph: opsets, nodes by op type, inputs and outputs, depth and fan-out, precision "
      "(weight types, QDQ, MatMulNBits), nodes and weights per layer, inferred shapes.";
  s.operand = one_operand(a.model, s.name);
  // clang-format off
  s.options = {
      {{"--json"}, "", "one JSON object on stdout", [&a](const std::string&) { a.json = true; }},
      {{"--edges"}, "", "list every intermediate value with its inferred type and shape",
       [&a](const std::string&) { a.edges = true; }},
  };
  // clang-format on
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

GraphArgs parse_graph_args(const Args& args) {
  GraphArgs a;
  const CommandSpec spec = graph_spec(a);
  parse_command_line(args, spec);
  require_operand(a.model, spec);
  return a;
}

}  // namespace ma::cli

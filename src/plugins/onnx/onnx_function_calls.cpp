#include "plugins/onnx/onnx_function_calls.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/checked.h"
#include "core/error.h"

namespace ma {
namespace {

// The model's local functions (ModelProto.functions) as ONNX's shape inference expands them: a node calls one
// when no operator schema answers its domain and op type at the version its graph or function imports, and
// inference then walks the function's body afresh at every call. A function that calls itself, directly or
// through others, recurses until the stack runs out; one that calls another twice, nested 23 deep, is 8
// million bodies from a 2 KB file. Both are found on the call graph before inference runs.
class FunctionCalls {
 public:
  FunctionCalls(const onnx::ModelProto& m, const std::string& file, uint64_t max_nodes, int max_nesting)
      : m_(m), file_(file), max_nodes_(max_nodes), max_nesting_(max_nesting) {
    for (int i = 0; i < m.functions_size(); ++i) {
      const onnx::FunctionProto& f = m.functions(i);
      // The first of two functions with one name is the one inference calls (it keeps the first).
      index_.try_emplace(f.domain() + ":" + f.name(), static_cast<size_t>(i));
      opsets_.push_back(opsets_of(f));
    }
  }

  // Refuses a cycle of calls (Malformed), and inference deeper or larger than the caps (Limit).
  void check() {
    costs_.assign(opsets_.size(), Cost{});
    visit_all();
    const Cost main = cost_of(m_.graph().node(), opsets_of(m_));
    if (main.depth > static_cast<uint64_t>(max_nesting_))
      throw Error(ErrorKind::Limit, file_, "functions",
                  "function calls and subgraphs nested deeper than " + std::to_string(max_nesting_) +
                      " levels: the cap");
    if (main.nodes > max_nodes_)
      throw Error(ErrorKind::Limit, file_, "functions",
                  "more than " + std::to_string(max_nodes_) +
                      " nodes once its local functions are expanded at every call: the cap");
  }

 private:
  using Opsets = std::unordered_map<std::string, int64_t>;
  using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

  // What inferring a list of nodes walks: nodes (each call's body anew), the graphs a caller hands down that
  // a body instantiates by attribute reference (each use, at every call), and levels of calls and subgraphs.
  struct Cost {
    uint64_t nodes = 0, references = 0, depth = 0;
  };

  // A function on the depth-first path, with the calls its body makes and the next to follow.
  struct Frame {
    size_t f;
    std::vector<size_t> callees;
    size_t next = 0;
  };

  template <typename P>
  static Opsets opsets_of(const P& proto) {
    Opsets out;
    for (const onnx::OperatorSetIdProto& o : proto.opset_import()) out[o.domain()] = o.version();
    return out;
  }

  // The function node n calls, as inference resolves it.
  std::optional<size_t> callee(const onnx::NodeProto& n, const Opsets& opsets) const {
    if (index_.empty()) return std::nullopt;
    auto version = opsets.find(n.domain());
    if (version == opsets.end() && n.domain().empty()) version = opsets.find("ai.onnx");
    if (version == opsets.end()) return std::nullopt;
    const int v = static_cast<int>(std::clamp<int64_t>(version->second, INT_MIN, INT_MAX));
    if (onnx::OpSchemaRegistry::Schema(n.op_type(), v, n.domain())) return std::nullopt;
    auto it = index_.find(n.domain() + ":" + n.op_type());
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

  std::string name_of(size_t f) const {
    return printable(
        m_.functions(static_cast<int>(f)).domain() + ":" + m_.functions(static_cast<int>(f)).name(), 80);
  }

  // The functions a body calls, its subgraphs' nodes included.
  void add_callees(const Nodes& nodes, const Opsets& opsets, std::vector<size_t>& out) const {
    for (const onnx::NodeProto& n : nodes) {
      if (std::optional<size_t> f = callee(n, opsets)) out.push_back(*f);
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.has_g()) add_callees(a.g().node(), opsets, out);
        for (const onnx::GraphProto& g : a.graphs()) add_callees(g.node(), opsets, out);
      }
    }
  }

  // Depth-first over the call graph, without recursion (a chain of calls may be as long as the file allows):
  // a call back into a function still on the path is a cycle; each function's cost follows its callees'.
  void visit_all() {
    enum class State : uint8_t { New, OnPath, Done };
    std::vector<State> state(opsets_.size(), State::New);
    std::vector<Frame> path;
    auto enter = [&](size_t f) {
      state[f] = State::OnPath;
      Frame frame{f, {}, 0};
      add_callees(m_.functions(static_cast<int>(f)).node(), opsets_[f], frame.callees);
      path.push_back(std::move(frame));
    };
    for (size_t root = 0; root < opsets_.size(); ++root) {
      if (state[root] != State::New) continue;
      enter(root);
      while (!path.empty()) {
        Frame& top = path.back();
        if (top.next == top.callees.size()) {
          const size_t f = top.f;
          costs_[f] = cost_of(m_.functions(static_cast<int>(f)).node(), opsets_[f]);
          state[f] = State::Done;
          path.pop_back();
          continue;
        }
        const size_t g = top.callees[top.next++];
        if (state[g] == State::Done) continue;
        if (state[g] == State::OnPath) throw cycle(path, g);
        enter(g);
      }
    }
  }

  // "local:F calls itself", or the cycle from the function called back to the call back.
  Error cycle(const std::vector<Frame>& path, size_t back_to) const {
    const std::string field = "function '" + name_of(back_to) + "'";
    if (path.back().f == back_to) return Error(ErrorKind::Malformed, file_, field, "calls itself");
    std::string chain;
    size_t i = path.size();
    while (path[i - 1].f != back_to) --i;
    for (; i <= path.size(); ++i) chain += name_of(path[i - 1].f) + " -> ";
    return Error(ErrorKind::Malformed, file_, field,
                 "calls itself through other functions (" + chain + name_of(back_to) + ")");
  }

  // The cost of inferring nodes whose callees' costs are known.
  Cost cost_of(const Nodes& nodes, const Opsets& opsets) const {
    Cost total;
    for (const onnx::NodeProto& n : nodes) {
      Cost self{1, 0, 1};
      // A body that refers to a caller's graph attribute infers that graph at each reference.
      uint64_t uses = 1;
      const std::optional<size_t> f = callee(n, opsets);
      if (f) {
        const Cost& body = costs_[*f];
        self = Cost{saturating_add(1, body.nodes), 0, saturating_add(1, body.depth)};
        uses = std::max<uint64_t>(1, body.references);
      }
      Cost graphs;
      uint64_t references = 0;
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (!a.ref_attr_name().empty()) ++references;
        auto add = [&](const onnx::GraphProto& g) {
          const Cost c = cost_of(g.node(), opsets);
          graphs.nodes = saturating_add(graphs.nodes, c.nodes);
          graphs.references = saturating_add(graphs.references, c.references);
          graphs.depth = std::max(graphs.depth, c.depth);
        };
        if (a.has_g()) add(a.g());
        for (const onnx::GraphProto& g : a.graphs()) add(g);
      }
      self.nodes = saturating_add(self.nodes, saturating_mul(uses, graphs.nodes));
      self.references = saturating_mul(uses, saturating_add(graphs.references, references));
      // A graph handed to a function is inferred somewhere inside its body: at most the body's depth down.
      self.depth = saturating_add(self.depth, graphs.depth);
      total.nodes = saturating_add(total.nodes, self.nodes);
      total.references = saturating_add(total.references, self.references);
      total.depth = std::max(total.depth, self.depth);
    }
    return total;
  }

  const onnx::ModelProto& m_;
  const std::string& file_;
  const uint64_t max_nodes_;
  const int max_nesting_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<Opsets> opsets_;  // each function's
  std::vector<Cost> costs_;     // each function's body, once visited
};

}  // namespace

void check_function_calls(const onnx::ModelProto& m, const std::string& file, uint64_t max_nodes,
                          int max_nesting) {
  FunctionCalls(m, file, max_nodes, max_nesting).check();
}

}  // namespace ma

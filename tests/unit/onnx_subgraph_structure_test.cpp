// onnx.checker's structure rules inside subgraphs (If branches, Loop and Scan bodies), with ONNX's scoping: a
// subgraph reads its own values and those the graphs around it define before the node holding it. A branch
// reading a value a later outer node makes, or one nothing defines, was accepted (only the main graph was
// walked); the README promises exit 3 (Malformed) for "a value read before the node that makes it, read but
// never defined". And a node holding subgraphs depends on the outer values its bodies read: the depth counts
// them (an If whose branch reads the last MatMul's output comes after it: depth 6, not 5), the layers do not.
// Models written by Debian's python3-onnx in the test, each with onnx.checker's own verdict, which ours must
// match; skipped, visibly, without /usr/bin/python3 and its onnx package.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "analysis/onnx_graph.h"
#include "core/error.h"
#include "core/json.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// Writes OUT/NAME/model.onnx for each model and OUT/verdicts.json: {NAME: "ok" or the checker's message}.
// Exit 2 without the onnx package.
constexpr const char* kSubgraphModelsScript = R"PY(
import json, os, sys
try:
    import numpy as np
    import onnx
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(2)
out = sys.argv[1]
OPSET = [h.make_opsetid('', 17)]
F = lambda name: h.make_tensor_value_info(name, T.FLOAT, [2])
cond = nh.from_array(np.array(True), 'cond')

def branch(nodes, output, name, inputs=(), inits=()):
    return h.make_graph(nodes, name, list(inputs), [F(output)], list(inits))

def model(nodes, inits=(), outputs=('y',)):
    g = h.make_graph(nodes, 'g', [F('x')], [F(o) for o in outputs], [cond] + list(inits))
    return h.make_model(g, opset_imports=OPSET, producer_name='onnx_subgraph_structure_test')

def if_node(then_nodes, then_out, else_nodes, else_out, output='y', name='if', **kw):
    return h.make_node('If', ['cond'], [output], name=name,
                       then_branch=branch(then_nodes, then_out, 'then'),
                       else_branch=branch(else_nodes, else_out, 'else'), **kw)

ident = lambda i, o, n=None: h.make_node('Identity', [i], [o], name=n or o)
relu = lambda i, o, n=None: h.make_node('Relu', [i], [o], name=n or o)
models = {}
# A branch reads 'late', which a Relu after the If makes (the review's bad_sub.onnx).
models['bad_late'] = model([if_node([ident('late', 't')], 't', [ident('x', 'e')], 'e'), relu('x', 'late')])
# A branch reads a name nothing defines (bad_sub2.onnx).
models['bad_undefined'] = model([if_node([ident('nowhere', 't')], 't', [ident('x', 'e')], 'e')])
# A branch reads the If's own output, or its sibling branch's value.
models['bad_own_output'] = model([if_node([ident('y', 't')], 't', [ident('x', 'e')], 'e')])
models['bad_sibling'] = model([if_node([ident('e', 't')], 't', [ident('x', 'e')], 'e')])
# Inside a branch, nodes out of order.
models['bad_order_inside'] = model([if_node([relu('t1', 't'), relu('x', 't1')], 't', [ident('x', 'e')], 'e')])
# A branch node makes 'x', the main graph's input (SSA).
models['bad_shadow'] = model([if_node([relu('x', 'x', 'shadow')], 'x', [ident('x', 'e')], 'e')])
# Two levels down: a Loop's body holds an If whose branch reads 'late', made after the Loop.
def loop(body_nodes, body_out, output='y'):
    body = h.make_graph(body_nodes, 'body',
                        [h.make_tensor_value_info('i', T.INT64, []), h.make_tensor_value_info('c_in', T.BOOL, [])],
                        [h.make_tensor_value_info('c_out', T.BOOL, []), F(body_out)])
    return h.make_node('Loop', ['trip', 'cond'], [output], name='loop', body=body)
trip = nh.from_array(np.array(2, dtype=np.int64), 'trip')
inner_if = lambda reads: if_node([ident(reads, 'it')], 'it', [ident(reads, 'ie')], 'ie', output='s', name='inner_if')
models['bad_nested_late'] = model([loop([ident('c_in', 'c_out'), inner_if('late')], 's'), relu('x', 'late')],
                                  inits=[trip])
# Accepted: values read from two levels up, defined before the holder; the body's own inputs; a subgraph
# initializer shadowing an outer name; a branch value named like a later outer one (onnx.checker allows it).
# 'c' is read by the Loop (through its If) and by d2; the Loop's output y feeds d.
models['good_nested'] = model([relu('x', 'a'), relu('a', 'b'), relu('b', 'c'),
                               loop([ident('c_in', 'c_out'), inner_if('c')], 's'), relu('x', 'late'),
                               relu('c', 'd2'), relu('y', 'd')],
                              inits=[trip], outputs=('d', 'late', 'd2'))
shadowing = branch([h.make_node('Add', ['x', 'x'], ['t'], name='t')], 't', 'then',
                   inits=[nh.from_array(np.ones(2, dtype=np.float32), 'x')])
models['good_scoping'] = model([h.make_node('If', ['cond'], ['y'], name='if', then_branch=shadowing,
                                            else_branch=branch([ident('x', 'late')], 'late', 'else')),
                                relu('x', 'late')], outputs=('y', 'late'))
# The review's m1.onnx, its chain of five main-graph nodes, then an If whose branches read y1: depth 6.
W = nh.from_array(np.ones((2, 2), dtype=np.float32), 'model.layers.0.w')
W1 = nh.from_array(np.ones((2, 2), dtype=np.float32), 'model.layers.1.w')
chain = [h.make_node('Relu', ['x'], ['a0'], name='/model/layers.0/Relu'),
         h.make_node('MatMul', ['a0', 'model.layers.0.w'], ['y0'], name='/model/layers.0/MatMul'),
         h.make_node('Neg', ['y0'], ['n0'], name='/model/layers.1/Neg'),
         h.make_node('MatMul', ['n0', 'model.layers.1.w'], ['m1'], name='/model/layers.1/MatMul'),
         h.make_node('Relu', ['m1'], ['y1'], name='/model/layers.1/Relu'),
         if_node([relu('y1', 't'), h.make_node('Neg', ['t'], ['t2'], name='t2')], 't2', [ident('y1', 'e')], 'e')]
models['good_depth'] = model(chain, inits=[W, W1])
verdicts = {}
for name, m in models.items():
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(m, os.path.join(out, name, 'model.onnx'))
    try:
        onnx.checker.check_model(m)
        verdicts[name] = 'ok'
    except Exception as e:
        verdicts[name] = str(e).splitlines()[0]
json.dump(verdicts, open(os.path.join(out, 'verdicts.json'), 'w'))
)PY";

class OnnxSubgraphStructure : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::TempDir>();
    test::write_file(dir_->path() / "models.py", kSubgraphModelsScript);
    const test::CommandResult r =
        test::run_shell(std::string(test::kPython) + " " + test::quoted(dir_->path() / "models.py") + " " +
                        test::quoted(dir_->path()));
    if (r.exit_code == 2 || r.exit_code == 127) {
      skip_ =
          std::string(test::kPython) + " with the onnx package (Debian: python3-onnx) is not here: " + r.err;
      return;
    }
    if (r.exit_code != 0) {
      failure_ = "the model script failed (" + std::to_string(r.exit_code) + "): " + r.err;
      return;
    }
    verdicts_ = std::make_unique<json::Document>(test::parse_json_file(dir_->path() / "verdicts.json"));
  }
  static void TearDownTestSuite() {
    verdicts_.reset();
    dir_.reset();
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(failure_.empty()) << failure_;
  }

  static std::string verdict(const std::string& model) {
    return std::string(verdicts_->root().find(model)->as_string());
  }
  static LocalModelFiles files(const std::string& model) {
    return locate_local_model((dir_->path() / model / "model.onnx").string());
  }
  // Our reader's verdict: "ok", or the error it refuses the model with (kind Malformed expected).
  static std::string our_verdict(const std::string& model, ErrorKind* kind = nullptr) {
    try {
      const Checkpoint ck = read_checkpoint(files(model));
      return ck.onnx ? "ok" : "no graph";
    } catch (const Error& e) {
      if (kind) *kind = e.kind();
      return e.what();
    }
  }
  static OnnxGraphSummary summary(const std::string& model) {
    const Checkpoint ck = read_checkpoint(files(model));
    return summarize_onnx_graph(*ck.onnx, ck);
  }

  static std::unique_ptr<test::TempDir> dir_;
  static std::unique_ptr<json::Document> verdicts_;
  static std::string skip_, failure_;
};
std::unique_ptr<test::TempDir> OnnxSubgraphStructure::dir_;
std::unique_ptr<json::Document> OnnxSubgraphStructure::verdicts_;
std::string OnnxSubgraphStructure::skip_, OnnxSubgraphStructure::failure_;

// Every model: refused (Malformed: exit 3) exactly when onnx.checker refuses it.
TEST_F(OnnxSubgraphStructure, OursAgreesWithOnnxChecker) {
  size_t refused = 0, accepted = 0;
  for (const json::Member& m : verdicts_->root().members()) {
    const std::string name(m.key);
    SCOPED_TRACE(name + ": onnx.checker says " + verdict(name));
    ErrorKind kind = ErrorKind::Internal;
    const std::string ours = our_verdict(name, &kind);
    if (verdict(name) == "ok") {
      EXPECT_EQ(ours, "ok");
      ++accepted;
    } else {
      EXPECT_NE(ours, "ok");
      EXPECT_EQ(kind, ErrorKind::Malformed) << ours;
      ++refused;
    }
    EXPECT_EQ(name.starts_with("good"), verdict(name) == "ok") << "the script's own labels";
  }
  EXPECT_EQ(refused, 7u);
  EXPECT_EQ(accepted, 3u);
}

// The refusals name the node inside its subgraph and say why.
TEST_F(OnnxSubgraphStructure, RefusalsNameTheNodeInsideItsSubgraph) {
  const std::string late = our_verdict("bad_late");
  EXPECT_NE(late.find("graph.node[0] (If 'if').then_branch.node[0] (Identity 't'): reads 'late'"),
            std::string::npos)
      << late;
  EXPECT_NE(late.find("only at or after the node holding it"), std::string::npos) << late;
  const std::string undefined = our_verdict("bad_undefined");
  EXPECT_NE(
      undefined.find("reads 'nowhere', which no input, initializer or node of this subgraph or the graphs "
                     "around it defines"),
      std::string::npos)
      << undefined;
  const std::string own = our_verdict("bad_own_output");
  EXPECT_NE(own.find("reads 'y'"), std::string::npos) << own;
  const std::string order = our_verdict("bad_order_inside");
  EXPECT_NE(order.find("which a later node makes: the nodes are not topologically sorted"), std::string::npos)
      << order;
  const std::string shadow = our_verdict("bad_shadow");
  EXPECT_NE(shadow.find("makes 'x', which is already defined"), std::string::npos) << shadow;
  const std::string nested = our_verdict("bad_nested_late");
  // (onnx.helper writes attributes sorted by name: the else branch is walked first.)
  EXPECT_NE(nested.find("graph.node[0] (Loop 'loop').body.node[1] (If 'inner_if').else_branch.node[0] "
                        "(Identity 'ie'): reads 'late'"),
            std::string::npos)
      << nested;
}

// Depth follows what the bodies read: the If after y1 is the sixth node of the chain (the review's m1.onnx
// said 5); the Loop reading c (through its If, two levels down) is the fourth, and d after it the fifth. The
// If's branches read layer 1's output, yet the If itself, named outside the layers, stays out of layer 1:
// layers read a node's own inputs (its branch nodes follow y1 into layer 1, as before).
TEST_F(OnnxSubgraphStructure, DepthCountsWhatSubgraphsReadAndLayersDoNot) {
  const OnnxGraphSummary m1 = summary("good_depth");
  EXPECT_EQ(m1.depth, 6u);
  ASSERT_EQ(m1.layers.size(), 3u);
  EXPECT_EQ(m1.layers[1].layer, 1u);
  EXPECT_EQ(m1.layers[1].nodes, 3u + 3u) << "Neg, MatMul and Relu named /model/layers.1/, the branch nodes";
  EXPECT_FALSE(m1.layers[2].layer);
  EXPECT_EQ(m1.layers[2].nodes, 1u) << "the If";

  const OnnxGraphSummary nested = summary("good_nested");
  EXPECT_EQ(nested.depth, 5u);
  // c is read by d2 and by the Loop (its inner If's branch): two readers, as many as x, first by name.
  EXPECT_EQ(nested.max_fan_out, 2u);
  EXPECT_EQ(nested.max_fan_out_value, "c");
}

}  // namespace
}  // namespace ma

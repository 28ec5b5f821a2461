#!/usr/bin/python3
"""Writes small ONNX models with Debian's python3-onnx and, beside each, what the onnx package itself reads
from it: nodes and op types (subgraph bodies included), opsets, graph inputs and outputs, every initializer (type, dims, where its bytes
are and what they are) and every intermediate value's shape from onnx.shape_inference.infer_shapes. The C++
tests (tests/unit/onnx_oracle_test.cpp) read the same files with our reader and must find the same.

usage: onnx_models.py OUT_DIR     exit 2 when the onnx package is missing (the tests then skip)
"""
import json
import os
import re
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper, shape_inference
except ImportError as e:
    print(f"onnx_models.py: {e}", file=sys.stderr)
    sys.exit(2)

OPSET = [helper.make_opsetid("", 17)]
rng = np.random.default_rng(7)


def mlp_model():
    """Two numbered layers named like exporters name them, a symbolic batch, f32 and f16 weights, an int64
    shape constant: the usual content of a torch.onnx export."""
    inits, nodes = [], []
    x = "x"
    for layer in range(2):
        p = f"model.layers.{layer}.mlp"
        n = f"/model/layers.{layer}/mlp"
        up = rng.standard_normal((8, 16)).astype(np.float32)
        down = rng.standard_normal((16, 8)).astype(np.float32)
        scale = rng.standard_normal((8,)).astype(np.float16)
        inits += [numpy_helper.from_array(up, f"{p}.up_proj.weight"),
                  numpy_helper.from_array(down, f"{p}.down_proj.weight"),
                  numpy_helper.from_array(scale, f"{p}.scale")]
        nodes += [helper.make_node("MatMul", [x, f"{p}.up_proj.weight"], [f"{n}/up"], name=f"{n}/up_proj/MatMul"),
                  helper.make_node("Relu", [f"{n}/up"], [f"{n}/act"], name=f"{n}/act/Relu"),
                  helper.make_node("MatMul", [f"{n}/act", f"{p}.down_proj.weight"], [f"{n}/down"],
                                   name=f"{n}/down_proj/MatMul"),
                  helper.make_node("Cast", [f"{p}.scale"], [f"{n}/scale32"], to=TensorProto.FLOAT,
                                   name=f"{n}/Cast"),
                  helper.make_node("Mul", [f"{n}/down", f"{n}/scale32"], [f"{n}/out"], name=f"{n}/Mul")]
        x = f"{n}/out"
    inits.append(numpy_helper.from_array(np.array([-1, 2, 4], dtype=np.int64), "shape_constant"))
    nodes.append(helper.make_node("Reshape", [x, "shape_constant"], ["y"], name="/Reshape"))
    graph = helper.make_graph(nodes, "mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 2, 4])], inits)
    return helper.make_model(graph, opset_imports=OPSET, producer_name="onnx_models.py")


def typed_model():
    """Initializers in protobuf's typed fields instead of raw_data: packed floats (contiguous bytes) and
    varint integers (no byte range)."""
    w = helper.make_tensor("w_float_data", TensorProto.FLOAT, [4, 3], rng.standard_normal(12).tolist())
    idx = helper.make_tensor("idx_int64_data", TensorProto.INT64, [3], [2, 0, 1])
    half = helper.make_tensor("half_int32_data", TensorProto.FLOAT16, [3],
                              np.array([1.5, -2.0, 0.25], dtype=np.float16).view(np.uint16).astype(np.int32))
    nodes = [helper.make_node("Gather", ["w_float_data", "idx_int64_data"], ["g"], axis=0, name="gather"),
             helper.make_node("Cast", ["half_int32_data"], ["h"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Add", ["g", "h"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "typed", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3])],
                              [w, idx, half])
    return helper.make_model(graph, opset_imports=OPSET, producer_name="onnx_models.py")


def quant_model():
    """Precision markers: a QDQ int8 weight, ONNX Runtime's 4-bit MatMulNBits, and an If with two subgraph
    bodies."""
    w8 = rng.integers(-128, 127, (8, 8), dtype=np.int8)
    k, n, block = 64, 16, 32
    packed = rng.integers(0, 255, (n, k // block, block // 2), dtype=np.uint8)
    inits = [numpy_helper.from_array(w8, "w_int8"),
             numpy_helper.from_array(np.array(0.05, dtype=np.float32), "w_scale"),
             numpy_helper.from_array(np.array(0, dtype=np.int8), "w_zero_point"),
             numpy_helper.from_array(packed, "nbits_weight"),
             numpy_helper.from_array(rng.standard_normal(n * (k // block)).astype(np.float32), "nbits_scales"),
             numpy_helper.from_array(np.array(True), "cond")]
    then_g = helper.make_graph([helper.make_node("Identity", ["a"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, ["batch", 8])])
    else_g = helper.make_graph([helper.make_node("Neg", ["a"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["batch", 8])])
    nodes = [helper.make_node("DequantizeLinear", ["w_int8", "w_scale", "w_zero_point"], ["w"], name="dq"),
             helper.make_node("MatMul", ["x", "w"], ["a"], name="mm"),
             helper.make_node("MatMulNBits", ["z", "nbits_weight", "nbits_scales"], ["b"], domain="com.microsoft",
                              K=k, N=n, bits=4, block_size=block, name="nbits"),
             helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g, name="if")]
    graph = helper.make_graph(nodes, "quant",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8]),
                               helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8]),
                               helper.make_tensor_value_info("b", TensorProto.FLOAT, ["batch", n])], inits)
    return helper.make_model(graph, opset_imports=OPSET + [helper.make_opsetid("com.microsoft", 1)],
                             producer_name="onnx_models.py")


def merged_model():
    """A merged decoder as optimum writes one: the layers' weights in the main graph, one If choosing between
    two bodies (with and without a KV cache) that hold every layer's nodes, module-path named and reading the
    weights from the main graph, with a 4-bit MatMulNBits each and a small shape constant kept inside."""
    k, n, block = 8, 8, 8
    inits = [numpy_helper.from_array(np.array(True), "use_cache_branch")]
    for layer in range(2):
        inits += [numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32),
                                          f"model.layers.{layer}.up_proj.weight"),
                  numpy_helper.from_array(rng.integers(0, 255, (n, k // block, block // 2), dtype=np.uint8),
                                          f"model.layers.{layer}.down_proj.qweight"),
                  numpy_helper.from_array(rng.standard_normal(n * (k // block)).astype(np.float32),
                                          f"model.layers.{layer}.down_proj.scales")]

    def body(name, layers_with_add):
        nodes, x = [], "x"
        for layer in range(2):
            p, m = f"model.layers.{layer}", f"/model/layers.{layer}"
            nodes += [helper.make_node("MatMul", [x, f"{p}.up_proj.weight"], [f"{name}{m}/up"],
                                       name=f"{m}/up_proj/MatMul"),
                      helper.make_node("MatMulNBits", [f"{name}{m}/up", f"{p}.down_proj.qweight",
                                                       f"{p}.down_proj.scales"], [f"{name}{m}/down"],
                                       domain="com.microsoft", K=k, N=n, bits=4, block_size=block,
                                       name=f"{m}/down_proj/MatMulNBits")]
            x = f"{name}{m}/down"
            if layer in layers_with_add:
                nodes.append(helper.make_node("Add", [x, x], [f"{name}{m}/twice"], name=f"{m}/Add"))
                x = f"{name}{m}/twice"
        shape = numpy_helper.from_array(np.array([-1, 8], dtype=np.int64), f"{name}_shape")
        nodes.append(helper.make_node("Reshape", [x, f"{name}_shape"], [f"{name}_out"], name=f"/{name}/Reshape"))
        return helper.make_graph(nodes, name, [],
                                 [helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, ["batch", 8])],
                                 [shape])

    nodes = [helper.make_node("If", ["use_cache_branch"], ["y"], then_branch=body("with_past", {0, 1}),
                              else_branch=body("no_past", {1}), name="optimum::if")]
    graph = helper.make_graph(nodes, "merged", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])], inits)
    return helper.make_model(graph, opset_imports=OPSET + [helper.make_opsetid("com.microsoft", 1)],
                             producer_name="onnx_models.py")


def subgraphs(node):
    for a in node.attribute:
        if a.HasField("g"):
            yield a.g
        yield from a.graphs


def body_contents(graph):
    """The nodes and initializers of every If / Loop / Scan body below `graph`, at any depth."""
    nodes, inits = [], 0
    for n in graph.node:
        for g in subgraphs(n):
            nodes += list(g.node)
            inits += len(g.initializer)
            inner_nodes, inner_inits = body_contents(g)
            nodes += inner_nodes
            inits += inner_inits
    return nodes, inits


def shape_of(type_proto):
    t = type_proto.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim]


def value(v):
    return {"name": v.name, "elem_type": v.type.tensor_type.elem_type, "shape": shape_of(v.type)}


def describe(model, arrays, path):
    """What onnx reads from the saved file (loaded back without its external data)."""
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    inferred = shape_inference.infer_shapes(m, data_prop=True).graph
    inits = {t.name for t in g.initializer}
    body_nodes, body_inits = body_contents(g)
    out = {
        "nodes": len(g.node),
        "subgraph_nodes": len(body_nodes),
        "subgraph_initializers": body_inits,
        "ops": {},
        "opsets": [[o.domain, o.version] for o in m.opset_import],
        "inputs": [value(v) for v in g.input if v.name not in inits],
        "outputs": [value(v) for v in g.output],
        "edges": [value(v) for v in inferred.value_info if v.name not in inits],
        "initializers": [],
    }
    layer_nodes = {}
    for n in list(g.node) + body_nodes:
        op = n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}"
        out["ops"][op] = out["ops"].get(op, 0) + 1
        layer = re.match(r"/model/layers\.(\d+)/", n.name)
        if layer:
            layer_nodes[layer.group(1)] = layer_nodes.get(layer.group(1), 0) + 1
    out["layer_nodes"] = layer_nodes
    for t in g.initializer:
        ext = {e.key: e.value for e in t.external_data}
        raw = t.HasField("raw_data") or t.data_location == TensorProto.EXTERNAL
        contiguous = raw or len(t.float_data) > 0 or len(t.double_data) > 0
        out["initializers"].append({
            "name": t.name, "data_type": t.data_type, "dims": list(t.dims),
            "location": ext.get("location"),
            "bytes_hex": arrays[t.name].tobytes().hex() if contiguous else None,
            "nbytes": arrays[t.name].nbytes,
        })
    return out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    summary = {}
    for name, build, external in [("mlp", mlp_model, False), ("mlp_external", mlp_model, True),
                                  ("typed", typed_model, False), ("quant", quant_model, False),
                                  ("merged", merged_model, False)]:
        rng.bit_generator.state = np.random.default_rng(7).bit_generator.state
        model = build()
        if "com.microsoft" not in {o.domain for o in model.opset_import}:
            onnx.checker.check_model(model)
        arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        if external:
            os.makedirs(os.path.join(folder, "data"), exist_ok=True)
            onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                            location="data/weights.bin", size_threshold=0)
        else:
            onnx.save_model(model, path)
        summary[name] = describe(model, arrays, path)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

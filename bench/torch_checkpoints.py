#!/usr/bin/env python3
# The PyTorch-checkpoint benchmark's Python side (bench/torch_checkpoint_bench.cpp runs it):
#   make WORK   writes WORK/llama70b/pytorch_model.bin (Llama-3-70B's 723 tensor names, shapes / 128, bf16),
#               WORK/big/model.pt and WORK/big-st/model.safetensors (the same 16 x 32 MB float32 tensors)
#   peer FILE   the peer: Python's pickle.Unpickler with torch.load(weights_only=True)'s restriction (an
#               allowlist in find_class, storages by persistent id), as torch runs it, minus torch itself
#   torch FILE  torch itself, where this interpreter can import it: torch.load(FILE, weights_only=True), five
#               times, with mmap=True where torch has it; one line of JSON (tensors, parameters, the median load
#               in ms, whether mapped, torch's version); exit 3 without torch
# Fake modules make pickle write the globals and persistent ids torch.save does (torch is not needed to write),
# and the files hold the records torch.load asks for (version, byteorder), so real torch reads them.
import collections, io, json, os, pickle, statistics, struct, sys, time, types, zipfile

torch = types.ModuleType("torch"); utils = types.ModuleType("torch._utils")
if sys.argv[1:2] != ["torch"]:  # the torch mode imports the real one
    sys.modules["torch"] = torch; sys.modules["torch._utils"] = utils; torch._utils = utils
def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks, metadata=None):
    return (storage, offset, size, stride)
_rebuild_tensor_v2.__module__ = "torch._utils"; utils._rebuild_tensor_v2 = _rebuild_tensor_v2
class FloatStorage: pass
class BFloat16Storage: pass
for c in (FloatStorage, BFloat16Storage): c.__module__ = "torch"; setattr(torch, c.__name__, c)

class Storage:
    def __init__(s, cls, key, n): s.cls, s.key, s.n = cls, key, n
class Tensor:
    def __init__(s, st, size): s.a = (st, 0, size)
    def __reduce__(s):
        size = s.a[2]; stride = [1] * len(size)
        for i in range(len(size) - 2, -1, -1): stride[i] = stride[i + 1] * size[i + 1]
        return (_rebuild_tensor_v2, (s.a[0], 0, size, tuple(stride), False, collections.OrderedDict()))
class P(pickle.Pickler):
    def persistent_id(s, o):
        return ("storage", o.cls, o.key, "cpu", o.n) if isinstance(o, Storage) else None

def write_zip(path, tensors, cls, elem, data_of):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    state, storages = collections.OrderedDict(), []
    for i, (name, size) in enumerate(tensors):
        n = 1
        for d in size: n *= d
        st = Storage(cls, str(i), n); storages.append(st); state[name] = Tensor(st, size)
    f = io.BytesIO(); P(f, protocol=2).dump(state)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", f.getvalue()); z.writestr("archive/byteorder", "little")
        z.writestr("archive/version", "3\n")
        for st in storages: z.writestr("archive/data/" + st.key, data_of(st.n * elem))

def make(work):
    h, inter, vocab, layers, kv = 8192 // 128, 28672 // 128, 128256 // 128, 80, 1024 // 128
    t = [("model.embed_tokens.weight", (vocab, h))]
    for i in range(layers):
        p = "model.layers.%d." % i
        t += [(p + "self_attn.q_proj.weight", (h, h)), (p + "self_attn.k_proj.weight", (kv, h)),
              (p + "self_attn.v_proj.weight", (kv, h)), (p + "self_attn.o_proj.weight", (h, h)),
              (p + "mlp.gate_proj.weight", (inter, h)), (p + "mlp.up_proj.weight", (inter, h)),
              (p + "mlp.down_proj.weight", (h, inter)), (p + "input_layernorm.weight", (h,)),
              (p + "post_attention_layernorm.weight", (h,))]
    t += [("model.norm.weight", (h,)), ("lm_head.weight", (vocab, h))]
    write_zip(os.path.join(work, "llama70b", "pytorch_model.bin"), t, BFloat16Storage, 2, lambda n: bytes(n))
    try:
        import numpy as np
        rng = np.random.default_rng(0)
        data = lambda n: rng.standard_normal(n // 4, dtype=np.float32).tobytes()
    except ImportError:
        data = lambda n: struct.pack("<f", 0.5) * (n // 4)
    big = [("layers.%d.weight" % i, (4096, 2048)) for i in range(16)]
    blobs = [data(4096 * 2048 * 4) for _ in big]
    it = iter(blobs)
    write_zip(os.path.join(work, "big", "model.pt"), big, FloatStorage, 4, lambda n: next(it))
    header, off = {}, 0
    for (name, size), b in zip(big, blobs):
        header[name] = {"dtype": "F32", "shape": list(size), "data_offsets": [off, off + len(b)]}; off += len(b)
    hj = json.dumps(header).encode(); hj += b" " * (-len(hj) % 8)
    os.makedirs(os.path.join(work, "big-st"), exist_ok=True)
    with open(os.path.join(work, "big-st", "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hj))); f.write(hj)
        for b in blobs: f.write(b)
    print(len(t), "tensors;", 16 * 4096 * 2048 * 4, "bytes of float32")

ALLOWED = {("collections", "OrderedDict"), ("torch._utils", "_rebuild_tensor_v2"),
           ("torch", "FloatStorage"), ("torch", "BFloat16Storage")}
class Restricted(pickle.Unpickler):
    def find_class(s, module, name):
        if (module, name) not in ALLOWED: raise pickle.UnpicklingError("%s.%s" % (module, name))
        return super().find_class(module, name)
    def persistent_load(s, pid):
        return pid[2]

def peer(path):
    with zipfile.ZipFile(path) as z:
        pkl = next(n for n in z.namelist() if n.endswith("/data.pkl"))
        state = Restricted(io.BytesIO(z.read(pkl))).load()
    print(len(state))

def real_torch(path):
    try:
        import torch as real
    except ImportError:
        sys.exit(3)
    # mmap (torch >= 2.1) maps the data rather than reading it, the nearest torch comes to reading a header
    mmap = "mmap" in real.load.__code__.co_varnames
    times = []
    for _ in range(5):
        t = time.perf_counter()
        state = real.load(path, weights_only=True, map_location="cpu", **({"mmap": True} if mmap else {}))
        times.append(time.perf_counter() - t)
    print(json.dumps({"tensors": len(state), "parameters": sum(v.numel() for v in state.values()),
                      "load_ms": statistics.median(times) * 1e3, "mmap": mmap, "version": real.__version__}))

if __name__ == "__main__":
    {"make": make, "peer": peer, "torch": real_torch}[sys.argv[1]](sys.argv[2])

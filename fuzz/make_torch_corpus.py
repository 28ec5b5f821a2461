#!/usr/bin/env python3
# Regenerates fuzz/corpus/torch_checkpoint_fuzzer (run: python3 fuzz/make_torch_corpus.py fuzz/corpus/torch_checkpoint_fuzzer).
# Writes small PyTorch-format checkpoints for the fuzz corpus with the standard library only: fake torch
# modules make pickle emit the same globals and persistent ids torch.save does.
import io, pickle, struct, sys, types, zipfile, collections, hashlib, os

torch = types.ModuleType("torch"); utils = types.ModuleType("torch._utils")
sys.modules["torch"] = torch; sys.modules["torch._utils"] = utils; torch._utils = utils
def _rebuild_tensor_v2(*a): pass
_rebuild_tensor_v2.__module__ = "torch._utils"; utils._rebuild_tensor_v2 = _rebuild_tensor_v2
class FloatStorage: pass
class HalfStorage: pass
for c in (FloatStorage, HalfStorage): c.__module__ = "torch"; setattr(torch, c.__name__, c)

class Storage:
    def __init__(s, cls, key, n): s.cls, s.key, s.n = cls, key, n
class Tensor:
    def __init__(s, st, off, size, stride): s.a = (st, off, size, stride, False, collections.OrderedDict())
    def __reduce__(s): return (_rebuild_tensor_v2, s.a)

class P(pickle.Pickler):
    def __init__(s, f, legacy): super().__init__(f, protocol=2); s.legacy = legacy
    def persistent_id(s, o):
        if isinstance(o, Storage):
            return ("storage", o.cls, o.key, "cpu", o.n) + ((None,) if s.legacy else ())
        return None

def state(legacy):
    a, b = Storage(FloatStorage, "0", 6), Storage(HalfStorage, "1", 4)
    return collections.OrderedDict([("w", Tensor(a, 0, (2, 3), (3, 1))), ("t", Tensor(a, 0, (2, 3), (3, 1))),
                                    ("h", Tensor(b, 1, (3,), (1,))), ("v", Tensor(a, 0, (3, 2), (1, 3)))])

def dump(obj, legacy):
    f = io.BytesIO(); P(f, legacy).dump(obj); return f.getvalue()

out = sys.argv[1]
z = io.BytesIO()
with zipfile.ZipFile(z, "w", zipfile.ZIP_STORED) as zf:
    zf.writestr("archive/data.pkl", dump(state(False), False))
    zf.writestr("archive/byteorder", "little")
    zf.writestr("archive/data/0", struct.pack("<6f", *range(6)))
    zf.writestr("archive/data/1", struct.pack("<4e", 1, 2, 3, 4))
zipped = z.getvalue()
nested = io.BytesIO()
with zipfile.ZipFile(nested, "w", zipfile.ZIP_STORED) as zf:
    zf.writestr("ckpt/data.pkl", dump({"model_state_dict": state(False), "epoch": 3, "lr": 0.5, "t": (1, [2])}, False))
    zf.writestr("ckpt/data/0", struct.pack("<6f", *range(6)))
    zf.writestr("ckpt/data/1", struct.pack("<4e", 1, 2, 3, 4))
magic = 0x1950a86a20f9469cfc6c
legacy = (pickle.dumps(magic, 2) + pickle.dumps(1001, 2) + pickle.dumps({"protocol_version": 1001, "little_endian": True}, 2)
          + dump(state(True), True) + pickle.dumps(["0", "1"], 2)
          + struct.pack("<q", 6) + struct.pack("<6f", *range(6)) + struct.pack("<q", 4) + struct.pack("<4e", 1, 2, 3, 4))
evil = b"\x80\x02cposix\nsystem\nq\x00X\x05\x00\x00\x00touchq\x01\x85q\x02Rq\x03."
cases = {"zip": zipped, "nested": nested.getvalue(), "legacy": legacy, "evil": evil,
         "zip-truncated": zipped[: len(zipped) // 2], "legacy-truncated": legacy[:-9]}
for name, data in cases.items():
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f: f.write(data)
    print(name, len(data))

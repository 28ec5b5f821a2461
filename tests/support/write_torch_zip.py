#!/usr/bin/python3
"""Writes a small PyTorch zip checkpoint whose state dict has the keys a test asks for, with the standard
library only (fake torch modules make pickle emit the globals and persistent ids torch.save does, as
fuzz/make_torch_corpus.py does).

usage: write_torch_zip.py OUT.pt KEY...   (int:N is the int key N, anything else a str key with Python's
                                           escapes decoded, so 'x\x1b' holds an ESC; each key maps to its own
                                           2-element float tensor)
       write_torch_zip.py OUT.pt --views N  (N keys, every one the same view of one storage: N - 1 ties)
       write_torch_zip.py OUT.pt --byteorder VALUE KEY...  (the byteorder record says VALUE)
"""
import codecs
import collections
import io
import pickle
import sys
import types
import zipfile

torch = types.ModuleType("torch")
utils = types.ModuleType("torch._utils")
sys.modules["torch"] = torch
sys.modules["torch._utils"] = utils
torch._utils = utils


def _rebuild_tensor_v2(*args):
    pass


_rebuild_tensor_v2.__module__ = "torch._utils"
utils._rebuild_tensor_v2 = _rebuild_tensor_v2


class FloatStorage:
    pass


FloatStorage.__module__ = "torch"
torch.FloatStorage = FloatStorage


class Storage:
    def __init__(self, key):
        self.key = key


class Tensor:
    def __init__(self, storage):
        self.args = (storage, 0, (2,), (1,), False, collections.OrderedDict())

    def __reduce__(self):
        return (_rebuild_tensor_v2, self.args)


class Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return ("storage", FloatStorage, obj.key, "cpu", 2)
        return None


def main():
    out, keys = sys.argv[1], sys.argv[2:]
    byteorder = "little"
    if keys[:1] == ["--byteorder"]:
        byteorder, keys = keys[1], keys[2:]
    state = collections.OrderedDict()
    if keys[:1] == ["--views"]:
        shared = Storage("0")
        for i in range(int(keys[1])):
            state[f"w{i}"] = Tensor(shared)
        keys = ["w"]  # one storage file below
    for i, key in enumerate(keys if not state else []):
        name = int(key[4:]) if key.startswith("int:") else codecs.decode(key, "unicode_escape")
        state[name] = Tensor(Storage(str(i)))
    data = io.BytesIO()
    Pickler(data, protocol=2).dump(state)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", data.getvalue())
        z.writestr("archive/byteorder", byteorder)
        for i in range(len(keys)):
            z.writestr(f"archive/data/{i}", b"\0" * 8)


main()

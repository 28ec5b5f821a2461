#!/usr/bin/python3
"""Writes, with torch.save itself (Debian's python3-torch), the PyTorch checkpoints whose reading once went
wrong: each case is one file, DIR/CASE.pt, as torch writes it (one run for all: importing torch takes ~1.5 s).

usage: write_torch_cases.py DIR [CASE...]   (no CASE: every one)
  tutorial         PyTorch's "saving a general checkpoint" recipe: epoch, model and optimizer state dicts and
                   the loss, a tensor, beside them (a 4x3 Linear: 15 parameters)
  shared-dict      one state dict saved under two keys: {"swa": {"averaged": sd}, "model_state_dict": sd}
  legacy-boundary  a legacy (pre-1.6) file whose GLOBAL 'torch LongStorage' straddles byte 1 MiB
  tied             a state dict whose second key is the first one's tensor (tied weights)
  expanded         five expanded views of 2^62 elements each, over one-element storages
  gapped           one tensor only, a view that repeats its storage's elements (expand: stride 0)
  long-keys        a 4,000-byte key naming a list of one tensor 65,000 times (memoized references)
  stored-dtype     a training checkpoint that keeps its dtype and a layout beside the model's state dict
                   ({"model": sd, "dtype": torch.float16, "layout": torch.strided}): torch.load(weights_only=True)
                   reads it (checked here)
  newer-values     values a current torch's weights_only reads (torch 1.13's refuses them): a device, a set, a
                   complex number, bytes and a bytearray beside a tensor
  sparse           a dense tensor "w" and a sparse one "s" (torch 1.13's weights_only reads it: checked here)
  meta             a meta tensor "m" (no data) beside a dense "w" (weights_only reads it: checked here)
  quantized        a quantized tensor "q" beside a dense "w" (a current torch's weights_only reads it)
  overlapping-views  120 overlapping slices of one 1 MiB storage, each 920 KB: a 1 MB file whose tensors
                   cover 110 MB (torch.load reads it: checked here)
"""
import sys

import torch


def tutorial(out):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    optimizer = torch.optim.Adam(model.parameters())
    loss = model(torch.ones(2, 4)).sum()
    loss.backward()
    optimizer.step()
    torch.save({"epoch": 3, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": loss.detach()}, out)


def shared_dict(out):
    sd = torch.nn.Linear(4, 3).state_dict()
    torch.save({"swa": {"averaged": sd}, "model_state_dict": sd}, out)


def legacy_boundary(out):
    # 1,100 tensors with long keys fill about 1 MiB of pickle; the keys are lengthened evenly (every key stays
    # far under the 4 KiB cap) until the first 'ctorch\nLongStorage\n' line straddles byte 1 MiB.
    global_line = b"ctorch\nLongStorage\n"
    count, target = 1100, (1 << 20) - 8  # the cut falls in the middle of the line

    def write(extra):
        sd = {}
        for i in range(count):
            sd[f"layers.{i}." + "x" * (840 + extra // count + (i < extra % count)) + ".weight"] = torch.ones(2)
        sd["position_ids"] = torch.arange(4)  # int64: the first LongStorage GLOBAL comes here
        torch.save(sd, out, _use_new_zipfile_serialization=False)
        with open(out, "rb") as f:
            return f.read().find(global_line)

    extra = 0
    for _ in range(4):
        at = write(extra)
        if at < (1 << 20) < at + len(global_line):
            return
        extra += target - at
        assert extra >= 0, at
    raise AssertionError("the GLOBAL line could not be placed across 1 MiB")


def tied(out):
    w = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    torch.save({"model.embed_tokens.weight": w, "lm_head.weight": w, "model.norm.weight": torch.ones(4)}, out)


def expanded(out):
    torch.save({f"w{i}": torch.zeros(1).expand(2**40, 2**22) for i in range(5)}, out)


def gapped(out):
    torch.save({"w": torch.arange(3, dtype=torch.float32).expand(2, 3)}, out)


def long_keys(out):
    t = torch.ones(2)
    torch.save({"k" * 4000: [t] * 65000}, out)


def stored_dtype(out):
    sd = {"w": torch.ones(2, 2), "b": torch.zeros(2)}
    torch.save({"model": sd, "dtype": torch.float16, "layout": torch.strided}, out)
    torch.load(out, weights_only=True)


def newer_values(out):
    torch.save({"w": torch.ones(3), "device": torch.device("cpu"), "ids": {1, 2}, "c": complex(1, 2),
                "b": b"ab", "ba": bytearray(b"x")}, out)


def sparse(out):
    torch.save({"w": torch.ones(2), "s": torch.eye(3).to_sparse()}, out)
    torch.load(out, weights_only=True)


def meta(out):
    torch.save({"w": torch.ones(2), "m": torch.empty(2, device="meta")}, out)
    torch.load(out, weights_only=True)


def quantized(out):
    torch.save({"w": torch.ones(2), "q": torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.qint8)}, out)


def overlapping_views(out):
    base = torch.arange(262144, dtype=torch.float32)
    torch.save({f"v{i}": base[i * 200:i * 200 + 230000] for i in range(120)}, out)
    torch.load(out, weights_only=True)


CASES = {"tutorial": tutorial, "shared-dict": shared_dict, "legacy-boundary": legacy_boundary, "tied": tied,
         "expanded": expanded, "gapped": gapped, "long-keys": long_keys, "stored-dtype": stored_dtype,
         "newer-values": newer_values, "sparse": sparse, "meta": meta, "quantized": quantized,
         "overlapping-views": overlapping_views}

if __name__ == "__main__":
    if len(sys.argv) < 2 or any(c not in CASES for c in sys.argv[2:]):
        sys.exit(__doc__)
    for case in sys.argv[2:] or CASES:
        CASES[case](f"{sys.argv[1]}/{case}.pt")

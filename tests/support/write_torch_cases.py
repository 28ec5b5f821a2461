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


CASES = {"tutorial": tutorial, "shared-dict": shared_dict, "legacy-boundary": legacy_boundary, "tied": tied,
         "expanded": expanded, "gapped": gapped, "long-keys": long_keys}

if __name__ == "__main__":
    if len(sys.argv) < 2 or any(c not in CASES for c in sys.argv[2:]):
        sys.exit(__doc__)
    for case in sys.argv[2:] or CASES:
        CASES[case](f"{sys.argv[1]}/{case}.pt")

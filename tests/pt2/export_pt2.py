# SPDX-License-Identifier: GPL-3.0-or-later
"""Exports small models with torch.export.save for tst_pt2torch, next to a JSON
description of each program taken from the ExportedProgram in Python (what the C++
reader must find in the archive). Usage: export_pt2.py OUT_DIR"""
import json
import os
import sys

import torch
from torch.export import Dim


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)
        self.register_buffer("scale", torch.ones(4))
        self.register_buffer("scratch", torch.zeros(3), persistent=False)

    def forward(self, x, y):
        z = self.lin(x) * self.scale
        return z.sum(-1), y[:, 1:].sum()


class NestedCache(torch.nn.Module):
    def forward(self, input_ids, cache, mask=None):
        total = input_ids.float().sum()
        for k, v in zip(cache["keys"], cache["values"]):
            total = total + k.sum() + v.mean()
        return total + mask.float().sum()


def describe(ep):
    """User inputs (placeholder name, dtype, str() of each size), ranges."""
    specs = [s for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    nodes = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    inputs = []
    for s in specs:
        val = nodes[s.arg.name].meta.get("val")
        inputs.append({
            "name": s.arg.name,
            "dtype": str(val.dtype).replace("torch.", ""),
            "sizes": [str(d) for d in val.shape],
        })
    ranges = {}
    for sym, vr in ep.range_constraints.items():
        upper = int(vr.upper) if vr.upper.is_Integer else None  # int_oo: unbounded
        ranges[str(sym)] = [int(vr.lower), upper]
    params = [s.target for s in ep.graph_signature.input_specs if s.kind.name == "PARAMETER"]
    buffers = [s.target for s in ep.graph_signature.input_specs if s.kind.name == "BUFFER"]
    return {"inputs": inputs, "ranges": ranges, "parameters": params, "buffers": buffers}


def main(out):
    os.makedirs(out, exist_ok=True)
    batch = Dim("batch", min=2, max=32)
    seq = Dim("seq", min=2, max=100)
    ep = torch.export.export(
        Mlp(), (torch.randn(3, 5, 8), torch.randn(3, 6)),
        dynamic_shapes={"x": {0: batch, 1: seq}, "y": {0: batch, 1: seq + 1}}, strict=False)
    torch.export.save(ep, os.path.join(out, "mlp.pt2"))
    described = {"mlp.pt2": describe(ep)}

    past = Dim("past", min=2)  # no max: unbounded
    layers = 2
    cache = {"keys": [torch.randn(3, 2, 4, 8) for _ in range(layers)],
             "values": [torch.randn(3, 2, 4, 8) for _ in range(layers)]}
    ids = torch.ones(3, 5, dtype=torch.int64)
    mask = torch.ones(3, 9, dtype=torch.bool)
    kv = {0: batch, 2: past}
    ep = torch.export.export(
        NestedCache(), (ids, cache), {"mask": mask},
        dynamic_shapes={"input_ids": {0: batch, 1: seq},
                        "cache": {"keys": [kv] * layers, "values": [kv] * layers},
                        "mask": {0: batch, 1: Dim("total")}},
        strict=False)
    torch.export.save(ep, os.path.join(out, "nested.pt2"))
    described["nested.pt2"] = describe(ep)

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(described, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])

# SPDX-License-Identifier: GPL-3.0-or-later
"""The batch-1 slice of a recorded call (issue 27 item 3).

dimscope proposes a batch Dim from 1 (core/inference/dimranges.cpp): torch 2.6 and 2.14
take `Dim('batch', min=1)`, trace the batch as >= 2 all the same, and check a lower
bound at run time only above 2, so the program runs batch-1 calls. torch does not
promise that those are right (a model that branches on `batch == 1` is traced on the
other branch), so verification runs row 0 of the example call through the program and
the eager model and compares them. The slice is not a recorded call: it is reported
on its own (`batch_slice` in the worker's result), never in `verification`."""

import copy

from . import spec as speclib


def _tensor_entries(node, out):
    """(dim index, Dim name) of every tensor node of a spec document's tree."""
    if not isinstance(node, dict) or len(node) != 1:
        return
    (kind, body), = node.items()
    if kind == "tensor" and isinstance(body, dict):
        out.extend((k, v) for k, v in body.items() if isinstance(v, str))
    elif kind == "dict" and isinstance(body, dict):
        for child in body.values():
            _tensor_entries(child, out)
    elif kind in ("list", "tuple") and isinstance(body, list):
        for child in body:
            _tensor_entries(child, out)


def batch_dim(spec_doc):
    """(name, None) of the spec's batch Dim: a root Dim declared from 0 or 1 that is
    dim 0 of every tensor it sizes and the root of no derived Dim (among several, the
    one named `batch`); else (None, why nothing is sliced)."""
    dims = [d for d in spec_doc.get("dims", []) if isinstance(d, dict)]
    roots = {d["name"]: d for d in dims if "root" not in d and isinstance(d.get("name"), str)}
    derived_from = {d.get("root") for d in dims if "root" in d}
    entries = []
    _tensor_entries(spec_doc.get("dynamic_shapes"), entries)
    at = {}
    for index, name in entries:
        at.setdefault(name, set()).add(index)
    candidates = [n for n in roots if at.get(n) == {"0"} and n not in derived_from]
    if not candidates:
        return None, "no Dim sizes only dim 0 of the inputs (no batch Dim): nothing is sliced"
    if len(candidates) > 1:
        if "batch" not in candidates:
            return None, ("Dims %s each size only dim 0 of the inputs; which one is the batch is unclear: "
                          "nothing is sliced" % ", ".join(sorted(candidates)))
        candidates = ["batch"]
    name = candidates[0]
    lo = roots[name].get("min")
    if lo is not None and lo > 1:
        return None, "%s is declared from %d: the program does not serve batch 1, nothing is sliced" % (name, lo)
    return name, None


def _batched_tensors(shapes, inputs, name):
    """ids of the input tensors whose dim 0 is the Dim `name` and holds 2 or more rows."""
    ids = set()
    for _path, tensor, dims in speclib.walk(shapes, inputs):
        entry = dims.get(0)
        if getattr(entry, "__name__", None) == name and tensor.dim() > 0 and tensor.shape[0] >= 2:
            ids.add(id(tensor))
    return ids


def sliced_arguments(shapes, bound, args, kwargs, name):
    """(args, kwargs) with row 0 of every tensor batched on `name` (deep copies), or
    None when no input is batched on it with 2 or more rows."""
    from torch.utils import _pytree as pytree

    ids = _batched_tensors(shapes, bound, name)
    if not ids:
        return None

    def row0(leaf):
        return leaf[:1].clone() if id(leaf) in ids else copy.deepcopy(leaf)

    return pytree.tree_map(row0, (tuple(args), dict(kwargs)))


def check(model, module, call_index, spec_doc, shapes, bound, args, kwargs, compare, guards_suppressed, log):
    """Runs the batch-1 slice of call `call_index` through the program's `module` and
    the eager model; returns the `batch_slice` row (docs/worker-protocol.md)."""
    import torch

    name, why = batch_dim(spec_doc)
    row = {"call": call_index, "dim": name, "status": "skipped", "message": why, "outputs": []}
    if name is None:
        log("batch-1 slice: " + why)
        return row
    sliced = sliced_arguments(shapes, bound, args, kwargs, name)
    if sliced is None:
        row["message"] = "no input of call %d is batched on %s with 2 or more rows: nothing is sliced" % (
            call_index, name)
        log("batch-1 slice: " + row["message"])
        return row
    s_args, s_kwargs = sliced
    with torch.no_grad():
        try:
            expected = model(*copy.deepcopy(s_args), **copy.deepcopy(s_kwargs))
        except Exception as e:  # noqa: BLE001 - the model's own failure is the verdict
            row.update(status="eager_failed", message="%s: %s" % (type(e).__name__, e))
            return _logged(row, log)
        try:
            with guards_suppressed(module):
                actual = module(*s_args, **s_kwargs)
        except Exception as e:  # noqa: BLE001 - the program's guard is the verdict
            row.update(status="rejected", message="%s: %s" % (type(e).__name__, str(e).strip()))
            return _logged(row, log)
    leaves, ok, message = compare(expected, actual)
    row.update(status="ok" if ok else "mismatch", message=None if ok else (
        message or "outputs differ beyond atol=1e-4, rtol=1e-3"), outputs=leaves)
    return _logged(row, log)


def _logged(row, log):
    what = "batch-1 slice of call %d (row 0 of every input batched on %s; synthesized, not a recorded call)" % (
        row["call"], row["dim"])
    if row["status"] == "ok":
        log("%s: the program agrees with the eager model" % what)
    else:
        log("%s: %s: %s; the program declares %s from 1 but does not serve batch 1 correctly: declare %s "
            "from 2 (min 2)" % (what, row["status"], row["message"], row["dim"], row["dim"]), stream="warning")
    return row

# SPDX-License-Identifier: GPL-3.0-or-later
"""The Dim names of an exported program's symbols, stored in the ``.pt2``.

torch keeps no Dim names in a program: its sizes read ``s23 × s53``. At export time the
worker knows which Dim of the spec each symbol stands for (explain.LeafMap maps torch's
input sources to the spec's Dim names; the ShapeEnv says which sources each symbol
came from), and stores that beside the programs as the extra file ``dimscope_dims.json``
(docs/capture-format.md), so that the desktop app shows a ``.pt2`` opened on its own in
Dim names. Like every extra file it is data only: nothing reads it to run code."""

import json

RECORD = "dimscope_dims.json"
FORMAT = "dimscope.pt2_dims"
_ATTRIBUTE = "_dimscope_dim_names"  # where run_export leaves the names on the program


def _source_name(source):
    name = getattr(source, "name", None)
    return name() if callable(name) else name


def _input_symbols(program):
    """(symbol, its ShapeEnv) for every free symbol of the user inputs' sizes."""
    import torch

    users = set(program.graph_signature.user_inputs)
    found = {}
    for node in program.graph.nodes:
        if node.op != "placeholder" or node.name not in users:
            continue
        value = node.meta.get("val")
        sizes = getattr(value, "shape", None) or ([value] if isinstance(value, torch.SymInt) else [])
        for size in sizes:
            if isinstance(size, torch.SymInt):
                for symbol in size.node.expr.free_symbols:
                    found.setdefault(symbol, size.node.shape_env)
    return found


def symbol_names(program, leaves):
    """{torch symbol: Dim name} for the symbols of the program's inputs whose sources
    `leaves` (explain.LeafMap of the export) names; derived Dims give their root's name,
    Dim.AUTO and Dim.DYNAMIC none. Never fails an export: {} when torch keeps no sources."""
    names = {}
    try:
        for symbol, shape_env in _input_symbols(program).items():
            for source in getattr(shape_env, "var_to_sources", {}).get(symbol, []):
                hit = leaves.lookup(_source_name(source))
                if hit and hit.get("dim_name"):
                    names[str(symbol)] = hit["dim_name"]
                    break
    except Exception:  # noqa: BLE001 - names are shown, never needed
        return {}
    return names


def input_names(program, shapes, call, inputs):
    """{symbol: Dim name} of the symbols of `inputs` (resizedcalls.user_inputs of `call`):
    the names remember() left on the program, else read from the spec `shapes` (a
    program loaded from a file, or exported elsewhere); {} without either."""
    remembered = getattr(program, _ATTRIBUTE, None) or {}
    names = _spec_names(shapes, call, inputs) if shapes is not None else {}
    for symbol in list(names) + [s for s in _input_symbols(program) if s not in names]:
        if str(symbol) in remembered:
            names[symbol] = remembered[str(symbol)]
    return names


def _spec_names(shapes, call, inputs):
    """{symbol: Dim name} from the spec's entries at the same tensors (by identity:
    the call's values are the capture's objects) and dims as the program's symbols."""
    import torch

    from . import spec as speclib
    from .exporter import bound_inputs, with_constants

    by_tensor = {}
    try:
        bound = bound_inputs(call)
        for _path, tensor, dims in speclib.walk(with_constants(shapes, bound), bound):
            by_tensor[id(tensor)] = dims
    except Exception:  # noqa: BLE001 - no names: the symbols are named as torch names them
        return {}
    names = {}
    for _path, shape, value in inputs:
        dims = by_tensor.get(id(value))
        if shape is None or not dims:
            continue
        for d, size in enumerate(shape):
            expr = size.node.expr if isinstance(size, torch.SymInt) else None
            name = getattr(dims.get(d), "__name__", None)
            if expr is not None and expr.is_Symbol and isinstance(name, str):
                names.setdefault(expr, name)
    return names


def remember(program, leaves):
    """Keeps the names on the program until it is saved (record())."""
    try:
        setattr(program, _ATTRIBUTE, symbol_names(program, leaves))
    except AttributeError:
        pass


def record(programs):
    """The extra file for `programs` ({archive name: ExportedProgram}): each program's
    names, as remember() left them (a program saved without them has none)."""
    return {RECORD: json.dumps({"format": FORMAT, "version": 1,
                                "programs": {name: {"symbols": getattr(program, _ATTRIBUTE, None) or {}}
                                             for name, program in programs.items()}}, sort_keys=True)}

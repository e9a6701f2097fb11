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

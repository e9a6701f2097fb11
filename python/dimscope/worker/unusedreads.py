# SPDX-License-Identifier: GPL-3.0-or-later
"""Scalar reads that nothing uses, dropped from a program before it is saved.

A traced ``.tolist()`` or ``.item()`` whose value torch knew (a keyed input,
keyedinputs.py) or whose decision draft_export took from the example call (LightOnOCR's
and MiniMax-M3-VL's image sizes) can leave an ``aten.item`` node without users in the
graph. torch (2.14) saves such a node with no output, and its deserializer then refuses
the whole program in a new interpreter: ``SerializeError: Failed deserializing node
Node(target='torch.ops.aten.item.default', ..., outputs=[Argument(as_none=True)])``.

The node computes nothing the program uses and has no effect: torch's own dead-code
elimination removes it (with any other unused node free of side effects; runtime
assertions, in-place updates and the outputs stay). Programs without such a node are not
touched."""

_READS = ("aten.item", "aten._local_scalar_dense")


def _unused_reads(graph):
    return [n for n in graph.nodes
            if n.op == "call_function" and not n.users and any(r in str(n.target) for r in _READS)]


def drop(program, log=None):
    """Removes unused scalar reads (and what only they used) from every graph of
    `program`; returns how many nodes went."""
    import torch

    removed = 0
    for module in program.graph_module.modules():
        graph = getattr(module, "graph", None)
        if not isinstance(module, torch.fx.GraphModule) or graph is None or not _unused_reads(graph):
            continue
        before = len(graph.nodes)
        graph.eliminate_dead_code()
        module.recompile()
        removed += before - len(graph.nodes)
    if removed and log is not None:
        log("removed %d unused node(s) from the program, among them scalar reads (aten.item) whose value "
            "nothing uses: torch saves such a node without an output and cannot load the program back" % removed)
    return removed

# SPDX-License-Identifier: GPL-3.0-or-later
"""A recorded call read against an exported program's inputs, and resized: the symbols
its sizes give, and the call with some of them moved. Shared by the range probes
(probes.py) and the AOTInductor step's probes outside the declared ranges (aoti.py)."""


def user_inputs(program, call):
    """[(key path text, placeholder shape, value)] of the program's user inputs against
    `call`'s values (matched by the program's input tree: by key path, else by position
    with the keyword arguments in the program's order, for classes registered without
    key paths), or None when the call's structure is not the program's."""
    from torch.utils import _pytree as pytree

    from .exporter import call_arguments

    spec = program.call_spec.in_spec
    args, kwargs = call_arguments(call)
    nodes = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    # A constant input (transformers' use_cache=True) is its value in user_inputs, not a name.
    names = program.graph_signature.user_inputs
    placeholders = [nodes.get(name) if isinstance(name, str) else None for name in names]
    if any(n is None and isinstance(name, str) for n, name in zip(placeholders, names)):
        return None
    try:
        values = pytree.tree_flatten_with_path((args, kwargs))[0]
        by_path = {pytree.keystr(p): v for p, v in values}
        paths = [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(
            pytree.tree_unflatten(list(range(spec.num_leaves)), spec))[0]]
        leaves = [by_path[p] for p in paths] if all(p in by_path for p in paths) else None
    except Exception:  # noqa: BLE001 - a class without key paths: by position below
        leaves = None
    if leaves is None:
        try:
            from torch.export._tree_utils import reorder_kwargs

            leaves = pytree.tree_flatten((args, reorder_kwargs(kwargs, spec)))[0]
        except Exception:  # noqa: BLE001 - another structure: not this program's call
            return None
        paths = ["input %d" % n for n in range(len(leaves))]
    if len(placeholders) != len(leaves):
        return None
    return [(p, getattr(n.meta.get("val"), "shape", None) if n is not None else None, v)
            for p, n, v in zip(paths, placeholders, leaves)]


def path_text(keystr):
    """`[1]['x']` (a kwarg of the (args, kwargs) tree) -> `x`; `[0][2]` -> `args[2]`."""
    if keystr.startswith("[1]['"):
        end = keystr.index("']", 5)
        return keystr[5:end] + keystr[end + 2:]
    if keystr.startswith("[0]"):
        return "args" + keystr[3:]
    return keystr


def symbol_values(inputs):
    """{symbol: size} read off the dims that are one symbol; None on a conflict or a
    static size the call does not have."""
    import torch

    values = {}
    for _, shape, value in inputs:
        if shape is None or not isinstance(value, torch.Tensor):
            continue
        if len(shape) != value.dim():
            return None
        for size, actual in zip(shape, value.shape):
            expr = size.node.expr if isinstance(size, torch.SymInt) else int(size)
            if isinstance(expr, int):
                if expr != actual:
                    return None
            elif expr.is_Symbol:
                if values.setdefault(expr, actual) != actual:
                    return None
    return values


def finite(bound):
    """A range bound as an int; None for torch's infinities (int_oo is no sympy Integer)."""
    return int(bound) if getattr(bound, "is_Integer", False) else None


def integers(values):
    """{symbol: sympy Integer} of {symbol: int}, for evaluate()."""
    import sympy

    return {s: sympy.Integer(v) for s, v in values.items()}


def evaluate(expr, ints):
    """`expr` with the symbols of `ints` replaced: a sympy Integer when none is left.
    xreplace, not subs: subs sympifies and sorts on every call, and a probe evaluates
    every size of every input (a third of probing's time on a cache of 4 tensors)."""
    if expr.is_Symbol:
        return ints.get(expr, expr)
    return expr.xreplace(ints)


def resized_shapes(inputs, values):
    """{path: new shape} of the tensors of `inputs` that `values` resize (their
    placeholder's sizes under `values`), computed without making them; None when a size
    would not be a non-negative integer or a dim of size 0 would have to grow (it has
    nothing to repeat)."""
    import torch

    shapes, ints = {}, integers(values)
    for path, shape, value in inputs:
        if shape is None or not isinstance(value, torch.Tensor):
            continue
        sizes = list(value.shape)
        for dim, size in enumerate(shape):
            if not isinstance(size, torch.SymInt):
                continue
            target = evaluate(size.node.expr, ints)
            if not target.is_Integer or int(target) < 0:
                return None
            if int(target) != sizes[dim]:
                if sizes[dim] == 0:
                    return None
                sizes[dim] = int(target)
        if sizes != list(value.shape):
            shapes[path] = sizes
    return shapes


def moved_elements(inputs, shapes, elements):
    """The elements a call holding `elements` holds once `resized_shapes`' `shapes` are
    applied to its `inputs`: what a probe's inputs will hold, known before they are made
    (a cache resized to a Dim's cap can hold gigabytes)."""
    import math

    return elements + sum(math.prod(shapes[path]) - value.numel() for path, _shape, value in inputs
                          if path in shapes)


def moved_call(program, call, inputs, values, shapes=None):
    """`call` with every tensor resized to the sizes its placeholder's shape gives under
    `values` (cut, or repeated along the dim: ids and masks keep recorded values); None
    when a size would not be a positive integer. `shapes`: `resized_shapes(inputs,
    values)` when the caller has it."""
    import torch
    from torch.utils import _pytree as pytree

    from .exporter import call_arguments

    shapes = resized_shapes(inputs, values) if shapes is None else shapes
    if shapes is None:
        return None
    new = {}
    for path, _shape, value in inputs:
        for dim, target in enumerate(shapes.get(path, ())):
            n = value.shape[dim]
            if target != n:
                value = value.index_select(dim, torch.arange(target, device=value.device) % n)
        if path in shapes:
            new[path] = value
    args, kwargs = call_arguments(call)
    if inputs and inputs[0][0].startswith("input "):  # matched by position (user_inputs)
        from torch.export._tree_utils import reorder_kwargs

        args, kwargs = args, reorder_kwargs(kwargs, program.call_spec.in_spec)
        leaves, spec = pytree.tree_flatten((args, kwargs))
        return pytree.tree_unflatten([new.get("input %d" % n, v) for n, v in enumerate(leaves)], spec)
    leaves = pytree.tree_flatten_with_path((args, kwargs))[0]
    moved = [new.get(pytree.keystr(p), v) for p, v in leaves]
    return pytree.tree_unflatten(moved, pytree.tree_structure((args, kwargs)))

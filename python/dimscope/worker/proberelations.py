# SPDX-License-Identifier: GPL-3.0-or-later
"""The equalities between a program's symbols that its input check enforces (range
probes, probes.py): newer torch (2.14 here) keeps sizes that the trace found equal or
summed as symbols of their own and checks the relation when a call comes in (the program's
`_guards_code`: `L['attention_mask'].size()[1] <= L['past_key_values']['key_cache'][0].size()[2]
+ L['input_ids'].size()[1]` with its reverse, `(A + S) == (B + S)`). A probe that moves
one Dim must move the sizes tied to it, or it tests a call no user can make.

The guards are read with `ast` (never evaluated): sizes `L[...].size()[d]`, integers,
+, -, * and one comparison. A guard with anything else is left out. torch 2.6 keeps
such relations in the shapes themselves (one symbol, or `s0 + s1`): nothing to read."""

import ast
import functools


def _size_source(node):
    """`L['x']['k'][0]`, d of a `L[...].size()[d]` node; else None."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "size"
            and not node.value.args and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
        return None
    return ast.unparse(node.value.func.value), node.slice.value


def _expr(node, symbols):
    """The sympy expression of an ast node over `symbols` ({(source, dim): symbol})."""
    import sympy

    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return sympy.Integer(node.value)
    size = _size_source(node)
    if size is not None:
        if size not in symbols:
            raise ValueError(size)
        return symbols[size]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_expr(node.operand, symbols)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        a, b = _expr(node.left, symbols), _expr(node.right, symbols)
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
    raise ValueError(ast.dump(node)[:80])


def equalities(program, sources, recorded=()):
    """[expr] each == 0 for every call the program accepts: its `==` guards, and pairs
    of `<=` guards that bound one difference from both sides. `sources`: {("L['x']", d):
    symbol} of the inputs' sizes. `recorded`: [{symbol: size}] of the served calls; a
    one-sided guard that every one of them meets with equality is taken as an equality
    too (Gemma3's continuation program checks only `mask >= full + seq`: every call
    generate() makes has mask == full + seq, and a probe that moves the cache without the
    mask is one it never makes)."""
    import sympy

    from .resizedcalls import evaluate, integers

    at_most, equal = [], []
    for text in getattr(program, "_guards_code", None) or []:
        try:
            tree = ast.parse(text, mode="eval").body
            if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1):
                continue
            lhs, rhs = _expr(tree.left, sources), _expr(tree.comparators[0], sources)
        except (SyntaxError, ValueError, TypeError, RecursionError):
            continue
        op = tree.ops[0]
        difference = sympy.expand(lhs - rhs)
        if not difference.free_symbols:
            continue
        if isinstance(op, ast.Eq):
            equal.append(difference)
        elif isinstance(op, ast.LtE):
            at_most.append(difference)
        elif isinstance(op, ast.GtE):
            at_most.append(-difference)
    for e in at_most:
        if any(sympy.expand(e - g) == 0 or sympy.expand(e + g) == 0 for g in equal):
            continue
        if any(sympy.expand(e + f) == 0 for f in at_most):
            equal.append(e)
        elif recorded and all(e.free_symbols <= set(v) and evaluate(e, integers(v)) == 0 for v in recorded):
            equal.append(e)
    return equal


def followers(equal, order):
    """The symbols probed only through others: one that an equality gives as the sum of
    others (a mask's length, past + seq), and the later of two an equality makes equal
    (the cache length of layer 1 beside layer 0's). `order`: the symbols in input order."""
    out = set()
    rank = {s: n for n, s in enumerate(order)}
    for e in equal:
        coeffs = e.as_coefficients_dict()
        syms = [s for s in e.free_symbols]
        for s in syms:
            c = coeffs.get(s, 0)
            others = [t for t in syms if t != s]
            if others and all(coeffs.get(t, 0) == -c for t in others):
                if len(others) >= 2:
                    out.add(s)
                elif rank.get(s, 0) > rank.get(others[0], 0):
                    out.add(s)
    return out


@functools.lru_cache(maxsize=256)
def _linear(e, s):
    """(c, rest) with e == c * s + rest: computed once per equality and symbol, not per
    probe (sympy's expand is most of consistent()'s time)."""
    import sympy

    c = sympy.diff(e, s)
    return c, sympy.expand(e - c * s)


def consistent(values, moved, equal, prefer):
    """`values` ({symbol: size}) with `moved` (a symbol, or a set of the symbols a probe
    moves together) fixed and the other symbols changed so that every equality holds
    (each solved for one symbol not yet fixed, `prefer`red first); None when they cannot
    all hold."""
    from .resizedcalls import evaluate, integers

    values, fixed = dict(values), set(moved) if isinstance(moved, (set, frozenset)) else {moved}

    def holds(e):
        return evaluate(e, integers(values)) == 0

    for _ in range(2 * len(equal) + 1):
        broken = [e for e in equal if not holds(e)]
        if not broken:
            return values
        e = broken[0]
        free = sorted((s for s in e.free_symbols if s not in fixed), key=lambda s: (s not in prefer, str(s)))
        solved = False
        for s in free:
            c, rest = _linear(e, s)
            if c.free_symbols or c == 0:
                continue
            # e is c * s + rest, rest without s: s = -rest / c where that is an integer
            rest = evaluate(rest, integers({k: val for k, val in values.items() if k != s}))
            if rest.is_Integer and c.is_Integer and int(rest) % int(c) == 0:
                values[s] = -int(rest) // int(c)
                fixed.add(s)
                solved = True
                break
        if not solved:
            return None
    return values if all(holds(e) for e in equal) else None


# ---------------------------------------------------------------- sliding-window layers

def _caches(node, out, depth=0):
    """The layer-based caches in a call's arguments (an encoder-decoder's self-attention
    cache too)."""
    if depth > 4:
        return
    if isinstance(node, dict):
        for child in node.values():
            _caches(child, out, depth + 1)
    elif isinstance(node, (list, tuple)):
        for child in node:
            _caches(child, out, depth + 1)
    elif isinstance(getattr(node, "layers", None), (list, tuple)):
        out.append(node)
    elif getattr(node, "self_attention_cache", None) is not None:
        _caches(node.self_attention_cache, out, depth + 1)


def windows(call_args, inputs, measured):
    """[(stored, seen, keep)]: a sliding-window layer's cache length `stored` is
    min(`seen`, `keep`) in every call transformers makes (DynamicSlidingWindowLayer keeps
    its last window - 1 tokens, `keep`; `seen`, the tokens the layer has seen, is the
    length of the cache's first full-attention layer, else the layer's `tokens_seen`
    count: cachelayers.py). A probe that moves one without the other is a call no
    generate() makes (Gemma3: a sliding layer of 256 tokens beside a shorter full layer).
    `call_args`: the call's (args, kwargs); `inputs`: resizedcalls.user_inputs of it;
    `measured`: [(call, inputs, {symbol: size})] of the served calls, on each of which the
    relation must hold (else it is not used)."""
    import torch

    from .. import cachelayers

    symbol_of = {}
    for _path, shape, value in inputs:
        if shape is not None and isinstance(value, torch.Tensor):
            symbol_of[id(value)] = [s.node.expr if isinstance(s, torch.SymInt) and s.node.expr.is_Symbol else None
                                    for s in shape]
    caches = []
    _caches(call_args, caches)
    out = []
    for cache in caches:
        kinds = cachelayers.describe_layers(cache, seen=False) or []
        layers = list(cache.layers)
        full = next((layer for layer, d in zip(layers, kinds) if d["type"] == cachelayers.FULL), None)
        for layer, d in zip(layers, kinds):
            if d["type"] != cachelayers.SLIDING:
                continue
            stored = (symbol_of.get(id(getattr(layer, "keys", None))) or [None, None])[-2]
            counted = getattr(layer, "_dimscope_tokens_seen", None)
            if counted is not None and id(counted) in symbol_of:
                seen = symbol_of[id(counted)][0]
            elif full is not None:
                seen = (symbol_of.get(id(getattr(full, "keys", None))) or [None, None])[-2]
            else:
                seen = None
            keep = int(d["sliding_window"]) - 1
            if stored is None or seen is None or stored == seen or keep < 1:
                continue
            if all(stored in v and seen in v and v[stored] == min(v[seen], keep) for _c, _i, v in measured):
                out.append((stored, seen, keep))
    return out


def within_windows(values, windows_):
    """`values` with each sliding layer's length set from the tokens its layer has seen."""
    values = dict(values)
    for stored, seen, keep in windows_:
        if seen in values:
            values[stored] = min(values[seen], keep)
    return values

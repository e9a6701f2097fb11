# SPDX-License-Identifier: GPL-3.0-or-later
"""Guards torch could not decide over a Dim's range, checked value by value.

torch.export raises a constraint violation ("Not all values of seq_len = L['x'].size()[1]
in the specified range ... satisfy the generated guard G") when it cannot prove a guard
for every value of a Dim's range, also when the guard does hold for all of them: torch
2.11 cannot prove ``min(8 + 8*s, 16 + 16*s) == 8 + 8*s`` (two strides of a KV cache),
and torch 2.11 and 2.14 cannot prove ``s*(8 + s - s % 8) > 1`` (transformers' attention
on a prompt), and then suggest a "fix" such as ``seq_len = 8*_seq_len - 3`` that keeps one
size in eight. When every violated guard is over one Dim and holds for every value of
that Dim's declared range that is checked here, the worker exports again with
``prefer_deferred_runtime_asserts_over_guards=True``: the program checks those guards
when it runs (an ``_assert_scalar`` node each) instead of refusing the Dims, and every
captured call is still replayed through it.

A guard is read with :mod:`ast` and evaluated by the small interpreter below (integers,
``+ - * // %``, comparisons, ``and``/``or``/``not``, ``min``/``max``, sympy's ``Eq``,
``Ne``, ``Mod``, ``FloorDiv``, ``IntInfinity()``); anything else is not checked and the
violation stands. Nothing is passed to ``eval``.
"""

import ast
import math
import re
from typing import Any, Dict, List, Optional

# One violation line of torch's "Constraints violated" message.
_VIOLATION = re.compile(r"^Not all values of (?P<dim>[A-Za-z_]\w*) = (?P<source>L\[.+?\]\.size\(\)\[\d+\]) "
                        r"in the specified range(?: .*?)? satisfy the generated guard (?P<guard>.+?)\.?$")
_SOURCE = re.compile(r"L\[[^\s]*?\]\.size\(\)\[\d+\]")

# How many values of an unbounded (or very long) range are checked: the first ones
# (where sizes usually are) and powers of two up to 2**40.
FIRST_VALUES = 20000
DEFAULT_MIN = 2  # torch specializes 0 and 1: a Dim without a min is traced from 2


def _unreadable(what: str) -> ValueError:
    # The guard uses something this interpreter does not evaluate.
    return ValueError("cannot evaluate %s" % what)


def violation_lines(message: str) -> List[str]:
    """The `  - ` lines of torch's "Constraints violated" message, before its fixes."""
    lines = []
    for line in message.splitlines():
        if line.startswith("Suggested fixes"):
            break
        if line.lstrip().startswith("- "):
            lines.append(line.strip()[2:].strip())
    return lines


def _evaluate(node: ast.AST, value: int) -> Any:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, value)
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id == "v":
        return value
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, value)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.Not):
            return not operand
        raise _unreadable(type(node.op).__name__)
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, value), _evaluate(node.right, value)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.FloorDiv):
            return a // b
        if isinstance(node.op, ast.Mod):
            return a % b
        raise _unreadable(type(node.op).__name__)
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(v, value) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, value)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(right_node, value)
            ok = {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right, ast.GtE: left >= right,
                  ast.Eq: left == right, ast.NotEq: left != right}.get(type(op))
            if ok is None:
                raise _unreadable(type(op).__name__)
            if not ok:
                return False
            left = right
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name = node.func.id
        if name == "IntInfinity" and not node.args:
            return math.inf
        args = [_evaluate(a, value) for a in node.args]
        if name in ("min", "Min") and args:
            return min(args)
        if name in ("max", "Max") and args:
            return max(args)
        if name == "Eq" and len(args) == 2:
            return args[0] == args[1]
        if name == "Ne" and len(args) == 2:
            return args[0] != args[1]
        if name in ("Mod", "PythonMod") and len(args) == 2:
            return args[0] % args[1]
        if name == "FloorDiv" and len(args) == 2:
            return args[0] // args[1]
        raise _unreadable(name)
    raise _unreadable(type(node).__name__)


def _values(low: int, high: Optional[int]):
    if high is not None and high - low < FIRST_VALUES:
        return range(low, high + 1), "every value in [%d, %d]" % (low, high)
    first = range(low, low + FIRST_VALUES)
    powers = [2 ** k for k in range(15, 41) if 2 ** k >= low + FIRST_VALUES and (high is None or 2 ** k <= high)]
    extra = powers + ([high] if high is not None else [])
    return list(first) + extra, "%d..%d and %d larger values up to %s" % (
        low, low + FIRST_VALUES - 1, len(extra), high if high is not None else "2^40")


def holds_everywhere(guard: str, source_dims: Dict[str, str], dim: str, low: int, high: Optional[int]):
    """(True, how it was checked) when `guard`, whose sources all belong to `dim`, holds
    for every value checked in [low, high]; (False, why not) otherwise."""
    sources = set(_SOURCE.findall(guard))
    if not sources or any(source_dims.get(s) != dim for s in sources):
        return False, "the guard involves other dims"
    text = _SOURCE.sub("v", guard)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False, "the guard could not be read"
    values, how = _values(low, high)
    try:
        for value in values:
            if not _evaluate(tree, value):
                return False, "it fails at %s = %d" % (dim, value)
    except (ValueError, ZeroDivisionError, OverflowError, RecursionError) as e:
        return False, "the guard could not be evaluated (%s)" % e
    return True, how


def judge(message: str, source_dims: Dict[str, str], ranges: Dict[str, tuple]) -> List[tuple]:
    """Each violation of torch's message, checked once: (line, dim, entry), where `dim`
    is None for a violation that is no one-Dim range guard, and `entry`
    ({expression, torch_guard, dim, checked}) is None when the guard fails somewhere."""
    verdicts = []
    for line in violation_lines(message):
        m = _VIOLATION.match(line)
        if not m or m.group("dim") not in ranges:
            verdicts.append((line, None, None))
            continue
        dim = m.group("dim")
        dims = dict(source_dims)
        dims.setdefault(m.group("source"), dim)
        low, high = ranges[dim]
        ok, how = holds_everywhere(m.group("guard"), dims, dim, DEFAULT_MIN if low is None else max(low, 0), high)
        entry = {"expression": _SOURCE.sub(lambda s: dims.get(s.group(0), s.group(0)), m.group("guard")),
                 "torch_guard": m.group("guard"), "dim": dim, "checked": how} if ok else None
        verdicts.append((line, dim, entry))
    return verdicts


def deferrable(message: str, source_dims: Dict[str, str], ranges: Dict[str, tuple]):
    """The violations of torch's message as [{guard, dim, source, checked}] when each one
    is a guard over one root Dim that holds on every value checked in that Dim's range;
    None when any violation is of another kind or fails somewhere (the violation stands)."""
    return all_deferrable(judge(message, source_dims, ranges))


def all_deferrable(verdicts: List[tuple]):
    """`deferrable` from verdicts `judge` made."""
    if not verdicts or any(entry is None for _line, _dim, entry in verdicts):
        return None
    return [entry for _line, _dim, entry in verdicts]


def deferrable_dims(message: str, source_dims: Dict[str, str], ranges: Dict[str, tuple]) -> List[str]:
    """The Dims whose every violation in torch's message is a guard that holds on every
    value checked in the Dim's range, when other violations (a specialization of another
    Dim, say) keep the export from being deferred as a whole. torch's suggested fixes for
    these Dims (``seq_len = 8*_seq_len - 6``) would keep one size in eight for nothing:
    once the other violations are fixed, the guards are deferred instead."""
    return dims_deferrable(judge(message, source_dims, ranges))


def dims_deferrable(verdicts: List[tuple]) -> List[str]:
    """`deferrable_dims` from verdicts `judge` made."""
    verdict: Dict[str, bool] = {}
    others = []
    for line, dim, entry in verdicts:
        if dim is None:
            others.append(line)
        else:
            verdict[dim] = verdict.get(dim, True) and entry is not None
    named_elsewhere = {d for d in verdict for line in others if re.search(r"\b%s\b" % re.escape(d), line)}
    return sorted(d for d, ok in verdict.items() if ok and d not in named_elsewhere)


def sources_in(message: str) -> List[str]:
    """Every `L[...].size()[D]` source torch's message names."""
    return sorted(set(_SOURCE.findall(message)))


def root_ranges(spec_doc: Dict[str, Any]) -> Dict[str, tuple]:
    """{Dim name: (min, max)} of the spec document's root Dims (derived ones are left out)."""
    out = {}
    for d in spec_doc.get("dims", []) if isinstance(spec_doc, dict) else []:
        if isinstance(d, dict) and isinstance(d.get("name"), str) and "root" not in d:
            out[d["name"]] = (d.get("min"), d.get("max"))
    return out

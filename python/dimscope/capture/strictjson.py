# SPDX-License-Identifier: GPL-3.0-or-later
"""JSON read by the rules of dimscope's C++ reader (core/json/jsoncursor.h), so that
both readers accept the same captures (docs/capture-format.md, "Numbers and JSON"):

- integers (no fraction, no exponent) lie in -2**63 .. 2**63-1;
- other numbers are doubles: one too large for a double (``1e400``), or too small to
  be anything but 0 (``1e-400``), is refused rather than read as ``inf`` or 0;
- ``NaN``, ``Infinity`` and ``-Infinity`` only where the caller allows them (the
  manifest, which Python's json module may have written; never the safetensors header);
- no object names a member twice; no string holds an unpaired surrogate (``"\\ud800"``);
- at most 256 objects and lists nested in one another.

Python's own json module reads all of these (``1e400`` as ``inf``, a duplicate member
as its last value, any nesting its recursion allows). Numbers and duplicates are marked
while parsing and the document is walked only when something was marked, to name the
place of the first problem (``calls[0].inputs.children[1].value``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, List, Optional, Tuple

from ..exceptions import CaptureError

INT_MIN = -(2 ** 63)
INT_MAX = 2 ** 63 - 1
MAX_DEPTH = 256


# The text is not JSON, or breaks one of the rules above; the message says where (not
# which file: the caller adds that).
JsonError = CaptureError


class _Bad:
    """Put where a value breaks a rule; the walk finds it and names its place."""

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem = problem


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Every integer out of -2^63..2^63-1 has 19 digits in a row, every double out of range
# a 3-digit exponent or such a run (zeros before its first digit). Searched for with
# the digits made one character first: a regular expression over the text took 0.3 s
# for a 33,280-leaf capture's header.
_ONE_DIGIT = str.maketrans("123456789", "000000000")
_EXPONENT_3 = re.compile(r"[eE][+-]?000")


def _maybe_out_of_range(text: str) -> bool:
    digits = text.translate(_ONE_DIGIT)
    return "0" * 19 in digits or _EXPONENT_3.search(digits) is not None


class _Reader:
    def __init__(self, allow_non_finite: bool) -> None:
        self.allow_non_finite = allow_non_finite
        self.marked = 0

    def _mark(self, problem: str) -> _Bad:
        self.marked += 1
        return _Bad(problem)

    def parse_int(self, text: str) -> Any:
        # Checked by length first: int() of a 100,000-digit literal is slow, and Python
        # refuses literals over 4300 digits with a ValueError of its own.
        if len(text) > 20 or not INT_MIN <= int(text) <= INT_MAX:
            shown = text if len(text) <= 30 else text[:12] + "..." + text[-12:]
            return self._mark(f"integer {shown} is out of range (a JSON integer here lies in -2^63 .. 2^63-1)")
        return int(text)

    def parse_float(self, text: str) -> Any:
        value = float(text)
        if math.isinf(value) or (value == 0.0 and re.search("[1-9]", re.split("[eE]", text)[0])):
            shown = text if len(text) <= 30 else text[:12] + "..." + text[-12:]
            return self._mark(f"number {shown} is out of range (beyond what a double holds)")
        return value

    def parse_constant(self, name: str) -> Any:
        if not self.allow_non_finite:
            raise JsonError(f"{name} is not JSON (NaN and Infinity are not allowed here)")
        return float(name)

    def object_pairs(self, pairs: List[Tuple[str, Any]]) -> Any:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    return self._mark(f"the member {key!r} appears twice in one object")
                seen.add(key)
        return obj


def _place(path: List[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the top level"


def _first_problem(value: Any, check_strings: bool) -> Optional[Tuple[str, str]]:
    """(place, problem) of the first marked value or bad string in document order. The
    place is the JSON path, and the key path of the capture's leaf when the value is a
    member of a node that has one ("calls[1]...value (leaf extra[0])")."""
    stack: List[Tuple[Any, List[Any], Any]] = [(value, [], None)]
    while stack:
        v, path, owner = stack.pop()
        if isinstance(v, _Bad):
            leaf = owner.get("path") if isinstance(owner, dict) else None
            return _place(path) + (f" (leaf {leaf})" if isinstance(leaf, str) else ""), v.problem
        if isinstance(v, str):
            if check_strings and _SURROGATE.search(v):
                return _place(path), "a string holds an unpaired UTF-16 surrogate (a \\ud800-\\udfff escape)"
        elif isinstance(v, dict):
            for key in reversed(list(v)):
                if check_strings and _SURROGATE.search(key):
                    return _place(path), f"the member name {key!r} holds an unpaired UTF-16 surrogate"
                stack.append((v[key], path + [key], v))
        elif isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                stack.append((v[i], path + [i], v))
    return None


def nesting_depth(value: Any) -> int:
    """The deepest nesting of objects and lists in a parsed JSON ``value`` (walked by its
    containers: the text's length, mostly the manifest's string inside the header, does
    not count)."""
    deepest = 0
    stack = [(value, 1)] if type(value) in (dict, list) else []
    while stack:
        v, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in (v.values() if type(v) is dict else v):
            if type(child) in (dict, list):
                stack.append((child, depth + 1))
    return deepest


def loads(text: str, allow_non_finite: bool = False) -> Any:
    """``text`` parsed by the rules above; raises JsonError naming the place."""
    reader = _Reader(allow_non_finite)
    # Numbers go through the hooks only when the text may hold one out of range (19
    # digits in a row, a 3-digit exponent): the hooks cost a Python call a number.
    numbers = {"parse_int": reader.parse_int, "parse_float": reader.parse_float} if _maybe_out_of_range(text) else {}
    try:
        value = json.loads(text, parse_constant=reader.parse_constant, object_pairs_hook=reader.object_pairs, **numbers)
    except json.JSONDecodeError as exc:
        raise JsonError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise JsonError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(value) > MAX_DEPTH:
        raise JsonError(f"JSON nested more than {MAX_DEPTH} levels deep")
    check_strings = _SURROGATE_ESCAPE.search(text) is not None
    if reader.marked or check_strings:
        found = _first_problem(value, check_strings)
        if found is not None:
            raise JsonError(f"{found[0]}: {found[1]}")
    return value

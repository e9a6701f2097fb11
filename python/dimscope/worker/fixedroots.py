# SPDX-License-Identifier: GPL-3.0-or-later
"""torch's suggested fixes when a new root Dim can take one value only.

A guard like ``seq_len % 4 == 1`` makes torch suggest a derived Dim on a new root
(``seq_len = 4*_seq_len + 1``) and give the root the range that keeps the derived Dim's
range. When other guards leave that root a single value (DeepSeek-V4's compressor:
``(seq_len//4) == 1`` as well, so ``_seq_len`` is 1 and ``seq_len`` is 5), torch 2.14
builds ``Dim('_seq_len', min=1, max=1)`` while writing its message and fails with its own
``AssertionError: Cannot create Dim with inconsistent min=1, max=1``: the constraint
violation it was about to raise, with its list of violations, is lost, and so is the
fix.

Within `fixed_roots()`, before torch resolves the new roots
(``DimConstraints._process_derived_dim_roots``), each suggestion whose new root can take
one value only becomes that value: the derived Dim is specialized (``seq_len = 5``),
which is what such guards mean, and torch raises its constraint violation with that
fix. The fix loop applies it like any other specialization, and verification then
separates the recorded calls the specialized program rejects into their own phase.
The root's range is computed with torch's own formula (the same lines of that method);
a torch without the method is left alone."""

import contextlib
import math

from . import torchpatch


@contextlib.contextmanager
def fixed_roots():
    """Within: torch writes a single-valued new root's derived Dim as that value."""
    def make(original):
        def process(self, results, name_to_dim):
            specialize_single_valued(results, name_to_dim)
            return original(self, results, name_to_dim)
        return process

    with torchpatch.replaced("torch.fx.experimental.symbolic_shapes", "DimConstraints", "_process_derived_dim_roots",
                             make):
        yield


def specialize_single_valued(results, name_to_dim):
    """In torch's {name: {"eq": expr, "min": .., "max": ..}} suggestions, replaces each
    derived suggestion on a new root that can take one value only by that value."""
    import sympy

    for name, c in list(results.items()):
        expr = c.get("eq")
        if not isinstance(expr, sympy.Expr) or len(expr.free_symbols) != 1:
            continue
        root = next(iter(expr.free_symbols))
        if str(root) in name_to_dim:
            continue  # an existing root: torch handles it
        value = single_root_value(expr, root, c.get("min", 2), c.get("max"))
        if value is not None:
            results[name] = {"eq": int(expr.subs(root, value))}


def _is_int(value):
    return (isinstance(value, int) and not isinstance(value, bool)) or getattr(value, "is_Integer", False) is True


def single_root_value(expr, root, low, high):
    """The one value of `root` that keeps `expr` within [low, high] (torch's formula), or
    None where there are several (or none: torch reports that itself)."""
    import sympy

    modulus, remainder = sympy.polys.polytools.div(expr, root)
    if not (modulus.is_number and remainder.is_number) or modulus <= 0:
        return None
    if not (_is_int(low) and _is_int(high)):
        return None  # unbounded (torch's int_oo): many values
    try:
        first = math.ceil((low - remainder) / modulus)
        last = math.floor((high - remainder) / modulus)
    except (TypeError, ValueError, OverflowError):
        return None
    return first if first == last else None

# SPDX-License-Identifier: GPL-3.0-or-later
"""Programs keyed to the value of a small integer input (issue 20: LLaVA-NeXT's
``image_sizes``, Pixtral's, a vision tower's ``image_grid_thw``).

Some vision-language models turn such an input into Python numbers that decide shapes:
LLaVA-NeXT's anyres code picks each image's patch grid from ``image_sizes.tolist()``.
torch.export cannot trace that for every value (data-dependent code), and
draft_export's assertions on those values often cannot be traced or loaded either. When
the input holds the same value in every recorded call that passes it, the program can be
keyed to that value, as torch specializes a size that never changed:

- the model is traced with the value as a tensor made inside the trace, whose values
  torch's fake tensors then carry (torch keeps the values of tensors of at most one
  element, ``CONSTANT_NUMEL_LIMIT``; raised to 64 for that trace only), so the shapes
  it decides are plain numbers;
- the program checks at its start that the input equals the value
  (``aten._assert_async`` on a CPU copy of the input, which raises at once also for a
  CUDA program): a call with another value fails loudly, never returns wrong numbers.

Tried only after an export stopped on data-dependent code, and only for integer inputs
of at most 64 elements that every recorded call passing them (at least two) passes with
the same shape and values; such an input is traced with a static shape. Each keyed input
is reported as an assumption (docs/worker-protocol.md, "Keyed inputs")."""

import contextlib
import inspect
import logging
import re
import types

MAX_ELEMENTS = 64
_INTEGER_DTYPES = ("int8", "int16", "int32", "int64", "uint8")
_VALUE_DEPENDENT = ("GuardOnDataDependentSymNode", "PendingUnbackedSymbolNotFound", "TraceError",
                    "DataDependentOutputException")
_MISSING = object()


def value_dependent(error):
    """Whether an export failure (or one it was raised from) is torch stopping on a
    value read from a tensor."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if type(error).__name__ in _VALUE_DEPENDENT or "data-dependent" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def _keyable(value):
    import torch

    return (isinstance(value, torch.Tensor) and 0 < value.numel() <= MAX_ELEMENTS
            and str(value.dtype).replace("torch.", "") in _INTEGER_DTYPES)


def candidates(calls, example):
    """{name: tensor} of the example call's top-level inputs a program can be keyed to:
    integer, at most MAX_ELEMENTS elements, and the same shape and values in every
    recorded call that passes them (a value only substituted for a missing input does
    not count), at least two."""
    import torch

    found = {}
    for name, value in example.kwargs.items():
        if name in getattr(example, "filled", ()) or not _keyable(value):
            continue
        passing = [c.kwargs[name] for c in calls
                   if name in c.kwargs and name not in getattr(c, "filled", ())]
        if len(passing) >= 2 and all(
                isinstance(v, torch.Tensor) and v.shape == value.shape and v.dtype == value.dtype
                and torch.equal(v.cpu(), value.cpu()) for v in passing):
            found[name] = value
    return found


def reads_values(program):
    """Whether the program reads a tensor's values into numbers (``aten.item``,
    ``_local_scalar_dense``) in any of its graphs."""
    import torch

    for module in program.graph_module.modules():
        graph = getattr(module, "graph", None)
        if isinstance(module, torch.fx.GraphModule) and graph is not None and any(
                n.op == "call_function" and ("aten.item" in str(n.target) or "_local_scalar_dense" in str(n.target))
                for n in graph.nodes):
            return True
    return False


def load_problem(program):
    """None when torch loads `program` back from its saved bytes (in memory), else
    torch's error in one line."""
    import io

    import torch

    buffer = io.BytesIO()
    with _torch_warnings_kept() as warned:
        try:
            torch.export.save(program, buffer)
            buffer.seek(0)
            torch.export.load(buffer)
            return None
        except Exception as e:  # noqa: BLE001 - any failure to load back is the answer
            # torch 2.14 says only "check the warnings above": the cause is in them.
            cause = next((w for w in warned if "rror" in w), None)
            return cause or "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:300])


class _torch_warnings_kept(logging.Handler):
    """Within the block torch's log records are kept (their raw text: one of the
    deserializer's has a broken format string) instead of printed."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.texts = []

    def emit(self, record):
        error = record.exc_info[1] if record.exc_info else None
        text = "%s: %s" % (type(error).__name__, error) if error is not None else str(record.msg)
        self.texts.append(" ".join(text.split())[:300])

    def __enter__(self):
        # torch._logging gives some of torch's loggers handlers of their own
        # (torch._export.serde's, whose record has the broken format string).
        names = ["torch"] + [name for name, lg in logging.root.manager.loggerDict.items()
                             if name.startswith("torch.") and isinstance(lg, logging.Logger) and lg.handlers]
        self.loggers = [logging.getLogger(name) for name in names]
        self.saved = [(lg.handlers[:], lg.propagate) for lg in self.loggers]
        for lg in self.loggers:
            lg.handlers[:] = [self]  # torch's own handlers too: nothing printed
            lg.propagate = False
        return self.texts

    def __exit__(self, *exc):
        for lg, (handlers, propagate) in zip(self.loggers, self.saved):
            lg.handlers[:], lg.propagate = handlers, propagate


def constant_inputs(violation, shapes):
    """Top-level inputs of `shapes` whose Dims a keyed trace found constant: where every
    violation of the parsed constraint violation is `dynamic_specialized`, the inputs
    whose spec entry uses a Dim (or the root of a derived Dim) it names; else none."""
    if not violation or not violation["violations"] or not isinstance(shapes, dict) or any(
            v.get("kind") != "dynamic_specialized" for v in violation["violations"]):
        return set()
    named = set(re.findall(r"[A-Za-z_]\w*", " ".join(violation["names"])))
    found = set()
    for name, entry in shapes.items():
        dims = entry.values() if isinstance(entry, dict) else entry if isinstance(entry, (list, tuple)) else ()
        for dim in dims:
            root = getattr(dim, "root", dim)
            if getattr(root, "__name__", None) in named:
                found.add(name)
    return found


def static_spec(shapes, names):
    """The spec with `names` traced with static shapes (a keyed input has one shape)."""
    if not isinstance(shapes, dict):
        return shapes
    return {k: (None if k in names else v) for k, v in shapes.items()}


def described(values):
    return ", ".join("%s == %s" % (name, value.tolist()) for name, value in values.items())


def assumptions(values, calls, location=None):
    """Explanation dicts (kind `assumption`, reason `keyed_input`) for the keyed inputs;
    `location`: the model's line where the export stopped on their values."""
    out = []
    for name, value in values.items():
        passing = [c.index for c in calls if name in c.kwargs and name not in getattr(c, "filled", ())]
        text = ("%s == %s: the value of every recorded call that passes it (calls %s); the program is keyed to "
                "it" % (name, value.tolist(), ", ".join(map(str, passing))))
        out.append({"kind": "assumption", "expression": text, "torch_expression": "",
                    "assertion": "%s equals it, checked at the program's start (aten._assert_async): a call with "
                                 "another value fails" % name,
                    "result": "True", "occurrences": None, "dims": [], "symbols": [], "value": None,
                    "reason": "keyed_input", "sources": [{"path": name, "dim": None, "source": name}],
                    "location": location, "stack": [location] if location else []})
    return out


@contextlib.contextmanager
def _values_kept_up_to(elements):
    """Within the block torch's fake tensors keep the values of tensors of up to
    `elements` elements (made from Python numbers, or computed from such)."""
    from torch._subclasses import fake_tensor

    saved = fake_tensor.CONSTANT_NUMEL_LIMIT
    fake_tensor.CONSTANT_NUMEL_LIMIT = max(saved, elements)
    try:
        yield
    finally:
        fake_tensor.CONSTANT_NUMEL_LIMIT = saved


def supported():
    """Whether this torch keeps fake tensors' values under a limit dimscope can raise."""
    try:
        from torch._subclasses import fake_tensor

        return isinstance(getattr(fake_tensor, "CONSTANT_NUMEL_LIMIT", None), int)
    except Exception:  # noqa: BLE001 - no such torch internals: nothing is keyed
        return False


class keyed:
    """Within the block, model.forward (same signature) checks that each keyed input
    equals its value and passes the model that value as a tensor torch knows."""

    def __init__(self, model, values):
        self.model, self.values = model, values
        self.saved = _MISSING
        self.limit = None

    def __enter__(self):
        import torch

        model, values = self.model, self.values
        original = model.forward
        signature = inspect.signature(original)
        plain = {name: (value.tolist(), value.dtype) for name, value in values.items()}

        def forward(_self, *args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, (numbers, dtype) in plain.items():
                given = bound.arguments.get(name)
                if not isinstance(given, torch.Tensor):
                    continue
                known = torch.tensor(numbers, dtype=dtype)
                # Compared on the CPU: there a failed _assert_async raises at once; on a
                # GPU it is a device-side assert that leaves the process's CUDA unusable.
                torch._assert_async(torch.all(given.cpu() == known),
                                    "dimscope: this program is keyed to %s == %s (the value of every recorded "
                                    "call); a call with another value needs a program of its own" % (name, numbers))
                bound.arguments[name] = known.to(given.device)
            return original(*bound.args, **bound.kwargs)

        forward.__signature__ = signature.replace(
            parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
            + list(signature.parameters.values()))
        forward.__name__ = getattr(original, "__name__", "forward")
        self.saved = model.__dict__.get("forward", _MISSING)
        model.forward = types.MethodType(forward, model)
        self.limit = _values_kept_up_to(MAX_ELEMENTS)
        self.limit.__enter__()
        return model

    def __exit__(self, *exc):
        self.limit.__exit__(*exc)
        if self.saved is _MISSING:
            self.model.__dict__.pop("forward", None)
        else:
            self.model.forward = self.saved

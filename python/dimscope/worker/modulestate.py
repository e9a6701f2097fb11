# SPDX-License-Identifier: GPL-3.0-or-later
"""State a model keeps in its modules, outside its inputs.

A program takes only its inputs: a tensor that forward stores on a module and reads on
the next call (RecurrentGemma's recurrent blocks: ``self.recurrent_states =
recurrent_states``, ``modeling_recurrent_gemma.py:324``; the cache holds only the
attention layers) is a constant of the trace, and a recorded call rebuilt from its
inputs alone runs the model from another state. Verification then says
``rebuilt_differs``; `watch()` finds which attributes a forward stored, so that the
message names them and the model line that stores each, instead of a guess."""

import contextlib
import inspect


def _plain_tensors(model):
    """{(module path, attribute): (module, tensor)} of every tensor held as a plain
    attribute (not a registered parameter or buffer, which nn.Module keeps apart)."""
    import torch

    found = {}
    for path, module in model.named_modules():
        for attr, value in vars(module).items():
            if isinstance(value, torch.Tensor):
                found[(path, attr)] = (module, value)
    return found


@contextlib.contextmanager
def watch(model):
    """Within: the model runs; after: the yielded list holds one entry per module class and
    attribute that the run stored a tensor in, or changed in place."""
    before = {key: (id(t), t._version) for key, (_, t) in _plain_tensors(model).items()}
    stored = []
    try:
        yield stored
    finally:
        seen = set()
        for (path, attr), (module, t) in _plain_tensors(model).items():
            if before.get((path, attr)) == (id(t), t._version):
                continue
            cls = type(module)
            if (cls, attr) in seen:
                continue
            seen.add((cls, attr))
            stored.append(dict(module=path, cls=cls.__name__, attribute=attr, **_storing_line(cls, attr)))


def _storing_line(cls, attr):
    """{"file", "line"} of the last `self.ATTR =` (not `= None`) in the first method of
    `cls` other than __init__ that has one (where forward stores it), else {}."""
    needle = "self.%s =" % attr
    for klass in cls.__mro__:
        if klass.__module__.startswith("torch."):
            break  # nn.Module and its bases: not the model's code
        for name, function in vars(klass).items():
            if name == "__init__" or not inspect.isfunction(function):
                continue
            try:
                lines, first = inspect.getsourcelines(function)
                filename = inspect.getsourcefile(function)
            except (OSError, TypeError):
                continue
            found = [offset for offset, text in enumerate(lines) if text.strip().startswith(needle)]
            # The last one that stores a value (a forward first makes the state, then stores
            # its new value; `= None` drops it, RecurrentGemma's path without a cache).
            stores = [o for o in found if lines[o].strip() != needle + " None"] or found
            if stores:
                return {"file": filename, "line": first + stores[-1]}
    return {}


def describe(stored):
    """One phrase for the message: each class.attribute, with the model line storing it."""
    return ", ".join("%s.%s%s" % (s["cls"], s["attribute"], " (%s:%d)" % (s["file"], s["line"]) if s.get("file")
                                  else "") for s in stored)


@contextlib.contextmanager
def kept(model):
    """Within: an export traces the model; after: each plain tensor attribute (or None)
    of its modules holds what it held before. Tracing runs forward, and a forward that
    stores state would otherwise leave the trace's value there: torch 2.6's non-strict
    export leaves a fake tensor, which the next eager run of the model cannot use."""
    import torch

    saved = []
    for _path, module in model.named_modules():
        for attr, value in vars(module).items():
            if value is None or isinstance(value, torch.Tensor):
                saved.append((module, attr, value))
    try:
        yield
    finally:
        for module, attr, value in saved:
            if vars(module).get(attr, value) is not value:
                vars(module)[attr] = value

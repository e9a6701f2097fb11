# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.export.export for a call that passes entries through forward's ``**kwargs``
(``return_dict=True``, which ``generate()`` passes and most transformers models take
through ``**kwargs``), on every torch.

``dynamic_shapes`` must nest those entries under the ``**kwargs`` parameter's name, as
torch binds them, and torch checks the spec that way. Some torch releases (seen on 2.11)
then build the range constraints from the call's arguments with the ``**kwargs`` entries
at the top level, so the two trees differ after tracing has already succeeded:
``AssertionError: Must provide a tree_name when there might be a mismatch`` (torch 2.6 and
2.14 build both trees the same way). Whether the running torch does this is found out
once per process with a one-operation export, not from its version or its private names.

Where it does, the export runs with the entries as keyword-only parameters of forward
(an instance attribute with a ``__signature__``, restored afterwards) and the spec's
``**kwargs`` entries lifted to its top level, so both of torch's trees agree. The program
is the same: its input spec is built from the call as passed (the same keyword names in
the same order), its weights keep their names, and callers pass the same arguments."""

import inspect
import types

from . import fixedroots, masks, maskshortcut, modulestate, parambuffers

_MISSING = object()
_flattening_needed = None


def export(model, args, kwargs, shapes, strict, log=None, exporter=None, **options):
    """torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=shapes, ...), or
    `exporter` (torch.export.draft_export, which takes the same arguments)."""
    import torch

    exporter = exporter or torch.export.export
    # Every export: transformers' masks without vmap, so the program can be saved (masks.py);
    # buffers holding a Parameter as plain tensors, so it can be run (parambuffers.py);
    # hybrid models' padding-mask shortcut decided as "keep the mask" (maskshortcut.py);
    # torch's fixes written when a new root Dim has one value left (fixedroots.py); state a
    # forward stores on the modules as it was before the trace (modulestate.py).
    with masks.index_based(log), parambuffers.as_plain_tensors(model, log), maskshortcut.mask_kept(model, log), \
            fixedroots.fixed_roots(), modulestate.kept(model):
        var = var_keyword_entries(model, shapes)
        if var is None or not needs_flattening():
            return exporter(model, args, kwargs=kwargs, dynamic_shapes=shapes, strict=strict, **options)
        name, entries = var
        if log is not None:
            log("this torch checks dynamic_shapes with forward's **%s entries nested and builds its range "
                "constraints with them flat; exporting with %s as keyword-only parameters of forward"
                % (name, ", ".join(entries)))
        with keyword_only_forward(model, list(entries)):
            return exporter(model, args, kwargs=kwargs, dynamic_shapes=lifted(shapes, name), strict=strict,
                            **options)


def var_keyword_entries(model, shapes):
    """(name of forward's **kwargs parameter, its entries in the spec), or None when the
    spec has none."""
    if not isinstance(shapes, dict):
        return None
    try:
        parameters = inspect.signature(model.forward).parameters.values()
    except (TypeError, ValueError):
        return None
    for p in parameters:
        if p.kind == inspect.Parameter.VAR_KEYWORD:
            entries = shapes.get(p.name)
            if isinstance(entries, dict) and entries:
                return p.name, entries
    return None


def lifted(shapes, name):
    """The spec with the entries under `name` moved to its top level."""
    out = {k: v for k, v in shapes.items() if k != name}
    out.update(shapes[name])
    return out


class keyword_only_forward:
    """Within the block, model.forward has `names` as keyword-only parameters before its
    **kwargs, and passes everything on to the real forward unchanged."""

    def __init__(self, model, names):
        self.model, self.names = model, names
        self.saved = _MISSING

    def __enter__(self):
        model = self.model
        original = model.forward
        signature = inspect.signature(original)
        params = [p for p in signature.parameters.values() if p.kind != inspect.Parameter.VAR_KEYWORD]
        var = [p for p in signature.parameters.values() if p.kind == inspect.Parameter.VAR_KEYWORD]
        params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in self.names]
        self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)

        def forward(_self, *args, **kwargs):
            return original(*args, **kwargs)

        forward.__signature__ = signature.replace(parameters=[self_param] + params + var)
        forward.__name__ = getattr(original, "__name__", "forward")
        self.saved = model.__dict__.get("forward", _MISSING)
        model.forward = types.MethodType(forward, model)
        return model

    def __exit__(self, *exc):
        if self.saved is _MISSING:
            self.model.__dict__.pop("forward", None)
        else:
            self.model.forward = self.saved
        return False


def needs_flattening():
    """Whether this torch fails to export a spec with a **kwargs entry (found once)."""
    global _flattening_needed
    if _flattening_needed is None:
        _flattening_needed = _probe()
    return _flattening_needed


def _probe():
    import torch

    class Probe(torch.nn.Module):
        def forward(self, x, **kwargs):
            return x * 2 if kwargs.get("flag") else x

    shapes = {"x": {0: torch.export.Dim("dimscope_probe", min=2, max=64)}, "kwargs": {"flag": None}}
    try:
        torch.export.export(Probe(), (), kwargs={"x": torch.ones(3), "flag": True}, dynamic_shapes=shapes,
                            strict=False)
    except AssertionError as e:
        return "tree_name" in str(e)
    except Exception:  # noqa: BLE001 - any other failure is not this one: export as given
        return False
    return False

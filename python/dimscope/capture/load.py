# SPDX-License-Identifier: GPL-3.0-or-later
"""Loading a capture back: ``load_capture`` checks the manifest against the file's
tensors and rebuilds every recorded call (``Capture``, ``CapturedCall``)."""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..exceptions import CaptureError
from .file import manifest_from_header, read_header, read_tensors
from .tree import Rebuilder, iter_leaves


class CapturedCall:
    """One recorded call, rebuilt: ``kwargs`` maps parameter names to values."""

    def __init__(self, capture: "Capture", entry: Dict[str, Any], kwargs: Dict[str, Any],
                 outputs: Any, index: int = 0) -> None:
        self._capture = capture
        self.index: int = entry.get("index", index)  # optional: a call's place in 'calls' is its index
        self.num_positional: int = entry.get("num_positional", 0)
        self.kwargs: Dict[str, Any] = kwargs
        self.outputs: Any = outputs
        self.missing: List[str] = list(entry.get("missing", []))
        self.filled: List[str] = list(entry.get("filled", []))
        self.constant_kwargs: Dict[str, Any] = dict(entry.get("constant_kwargs", {}))
        self.entry = entry

    def call_arguments(self, include_constants: bool = True) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        """``(args, kwargs)`` to replay the call: positional-only parameters and ``*args``
        go positionally, everything else by name; constant kwargs are added back."""
        args: List[Any] = []
        kwargs: Dict[str, Any] = {}
        kinds = {p["name"]: p.get("kind") for p in self._capture.manifest["model"].get("signature", [])}
        for name, value in self.kwargs.items():
            kind = kinds.get(name)
            if kind == "POSITIONAL_ONLY":
                args.append(value)
            elif kind == "VAR_POSITIONAL":
                args.extend(value)
            else:
                kwargs[name] = value
        if include_constants:
            kwargs.update(self.constant_kwargs)
        return tuple(args), kwargs

    def without(self, names: List[str]) -> "CapturedCall":
        """The call without the inputs ``names`` it had only substituted
        (``value_if_missing``, its ``filled``): as the model was called. Inputs the call
        passed stay. The same call when it substituted none of them."""
        drop = [name for name in names if name in self.filled]
        if not drop:
            return self
        entry = dict(self.entry)
        root = entry["inputs"]
        pairs = [(k, c) for k, c in zip(root["keys"], root["children"]) if k not in drop]
        entry["inputs"] = dict(root, keys=[k for k, _ in pairs], children=[c for _, c in pairs])
        entry["filled"] = [name for name in self.filled if name not in drop]
        entry["missing"] = self.missing + [name for name in drop if name not in self.missing]
        kwargs = {k: v for k, v in self.kwargs.items() if k not in drop}
        return CapturedCall(self._capture, entry, kwargs, self.outputs, self.index)

    def input_leaf(self, path: str) -> Any:
        """The value of the input leaf at the capture key path ``path``
        (``"past_key_values.key_cache[0]"``, docs/capture-format.md) as it is inside
        ``kwargs``: the very object, also inside a cache class, so that
        ``torch.export.ShapesCollection`` finds it when export flattens the call. Found
        by flattening ``kwargs`` with torch's pytree (a cache class must be registered,
        as export needs it anyway) beside the manifest's leaves. Raises CaptureError
        naming the call and the path when the call has no such leaf or the two
        flattenings disagree."""
        import torch.utils._pytree as pytree

        where = f"{self._capture.path}: call {self.index}"
        recorded = [leaf for leaf in self.leaves() if leaf.get("kind") != "none"]  # None has no pytree leaf
        values = pytree.tree_leaves(self.kwargs)
        if len(values) != len(recorded):
            raise CaptureError(f"{where}: its inputs flatten to {len(values)} leaves in this process, the capture "
                               f"records {len(recorded)} (is every cache class registered with torch's pytree?)")
        for leaf, value in zip(recorded, values):
            if leaf.get("path") != path:
                continue
            if leaf.get("kind") == "tensor" and list(getattr(value, "shape", [])) != leaf.get("shape"):
                raise CaptureError(f"{where}, leaf {path!r}: the capture records shape {leaf.get('shape')}, the "
                                   f"rebuilt inputs hold {type(value).__name__} {list(getattr(value, 'shape', []))}")
            return value
        raise CaptureError(f"{where}: no input leaf {path!r}")

    def leaves(self, outputs: bool = False) -> List[Dict[str, Any]]:
        """The manifest's leaf nodes of this call, in flattening order."""
        root = self.entry["outputs"] if outputs else self.entry["inputs"]
        return list(iter_leaves(root)) if root is not None else []


class Capture:
    """A loaded capture: ``manifest`` (dict), ``calls`` (list of CapturedCall)."""

    def __init__(self, path: str, manifest: Dict[str, Any]) -> None:
        self.path = path
        self.manifest = manifest
        self.calls: List[CapturedCall] = []
        # (call, key path, layer, tokens seen when recorded, as rebuilt) for the
        # sliding-window layers of the calls' inputs whose tokens seen the rebuild could
        # not restore (a cache without a full-attention layer, past the window).
        self.inexact: List[Tuple[int, str, int, int, int]] = []

    @property
    def signature(self) -> List[Dict[str, Any]]:
        return self.manifest["model"]["signature"]

    @property
    def flattening(self) -> Dict[str, str]:
        return dict(self.manifest.get("flattening") or {})


def _check_leaves(path: str, call: Dict[str, Any], header: Dict[str, Any]) -> List[str]:
    names = []
    for root in (call.get("inputs"), call.get("outputs")):
        if root is None:
            continue
        for leaf in iter_leaves(root):
            if leaf.get("kind") != "tensor":
                continue
            name = leaf["tensor"]
            info = header.get(name)
            where = f"{path}: call {call.get('index')} leaf {leaf.get('path')!r}"
            if not isinstance(info, dict):
                raise CaptureError(f"{where}: tensor {name!r} is not in the file")
            if info.get("dtype") != leaf.get("dtype") or list(info.get("shape", [])) != leaf.get("shape"):
                raise CaptureError(f"{where}: manifest says {leaf.get('dtype')}{leaf.get('shape')}, "
                                   f"the file holds {info.get('dtype')}{info.get('shape')}")
            names.append(name)
    return names


def load_capture(path: "os.PathLike[str] | str", device: Any = "cpu", reader: str = "auto",
                 factories: Optional[Dict[str, Callable[[List[Any], Any], Any]]] = None) -> Capture:
    """Loads a capture: validates the format id and version, reads the tensors onto
    ``device`` and rebuilds each call's inputs (containers and custom cache classes).

    ``reader``: ``"safetensors"``, ``"builtin"`` or ``"auto"``. ``factories``:
    ``{qualified type name: fn(children, context)}`` to rebuild classes dimscope cannot
    build on its own (e.g. a StaticCache without transformers' registration). A call's
    ``outputs`` are None when they were not recorded or cannot be rebuilt here."""
    path = os.fspath(path)
    header, data_start = read_header(path)
    manifest = manifest_from_header(path, header)
    entries = manifest.get("calls") or []
    names: List[str] = []
    for entry in entries:
        names.extend(_check_leaves(path, entry, header))
    tensors = read_tensors(path, header, data_start, names, reader)
    capture = Capture(path, manifest)
    rebuilder = Rebuilder(path, tensors, device, factories)
    for index, entry in enumerate(entries):
        inputs = rebuilder.build(entry["inputs"])
        capture.inexact.extend((index, *note) for note in rebuilder.inexact)
        outputs = None
        if entry.get("outputs") is not None:
            try:
                outputs = rebuilder.build(entry["outputs"])
            except CaptureError:
                outputs = None
        rebuilder.inexact.clear()
        capture.calls.append(CapturedCall(capture, entry, inputs, outputs, index))
    if capture.inexact:
        import warnings
        warnings.warn(inexact_text(capture))
    return capture


def inexact_text(capture: Capture) -> str:
    """What `Capture.inexact` means, in one message."""
    calls = sorted({c for c, *_ in capture.inexact})
    seen = sorted({s for *_, s, _ in capture.inexact})
    rebuilt = sorted({r for *_, r in capture.inexact})
    return (f"{capture.path}: in call(s) {', '.join(map(str, calls))} sliding-window cache layers had seen "
            f"{'-'.join(map(str, sorted({seen[0], seen[-1]})))} tokens; their cache has no full-attention layer "
            f"to restore that from, so they are rebuilt as having seen {', '.join(map(str, rebuilt))} (the "
            f"tokens they hold): past the window, the rebuilt calls (and programs exported from them) read "
            f"the padding of the 2D attention mask from its start instead of from its end")

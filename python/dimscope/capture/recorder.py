# SPDX-License-Identifier: GPL-3.0-or-later
"""``InputRecorder``: wraps a model's ``forward`` and records its first calls (inputs as
the signature names them, outputs, what was missing or filled in) as manifest entries
plus the tensors they name."""

from __future__ import annotations

import functools
import inspect
import math
import os
import sys
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

import torch

from .. import __version__
from ..caches import qualified_name, recorded_registrations
from ..exceptions import CaptureError
from .file import FORMAT_ID, FORMAT_VERSION, write_capture
from .tree import Flattener

_CONSTANT_TYPES = (bool, int, float, str)


def _default_json(param: inspect.Parameter) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"name": param.name, "kind": param.kind.name,
                             "has_default": param.default is not inspect.Parameter.empty}
    if entry["has_default"]:
        d = param.default
        if d is None or (isinstance(d, _CONSTANT_TYPES) and
                         not (isinstance(d, float) and not math.isfinite(d))):
            entry["default"] = d
        else:
            entry["default_repr"] = repr(d)
    return entry


def _is_constant(value: Any) -> bool:
    return isinstance(value, _CONSTANT_TYPES)


class _RecordedCall:
    __slots__ = ("manifest", "tensors", "flattening", "flattener")

    def __init__(self, manifest: Dict[str, Any], flattener: Flattener) -> None:
        self.manifest = manifest
        self.tensors = flattener.tensors
        self.flattening = flattener.flattening
        self.flattener = flattener  # kept until the call returns: empty caches to fill


class InputRecorder:
    """Records up to ``store_n_calls`` forward calls of a model.

    ``value_if_missing``: ``{parameter name: value}`` recorded in place of an optional
    input a call did not pass (the seeds' ``pixel_values`` present only in the prefill
    call), so that every call has the input and shape inference can compare it.
    """

    def __init__(self, store_n_calls: int = 3, value_if_missing: Optional[Dict[str, Any]] = None,
                 record_outputs: bool = True) -> None:
        if store_n_calls < 1:
            raise ValueError("store_n_calls must be >= 1")
        self.store_n_calls = store_n_calls
        self.value_if_missing = dict(value_if_missing or {})
        self.record_outputs = record_outputs
        self._calls: List[_RecordedCall] = []
        self._model: Any = None
        self._signature: Optional[inspect.Signature] = None

    # -- context manager ----------------------------------------------------

    def __call__(self, model: Any) -> "InputRecorder._Context":
        return InputRecorder._Context(self, model)

    class _Context:
        def __init__(self, recorder: "InputRecorder", model: Any) -> None:
            self.recorder = recorder
            self.model = model
            self.had_instance_forward = False
            self.saved_forward: Any = None

        def __enter__(self) -> "InputRecorder":
            model = self.model
            self.had_instance_forward = "forward" in vars(model)
            self.saved_forward = vars(model).get("forward")
            original = model.forward
            signature = inspect.signature(original)
            self.recorder._attach(model, signature)

            @functools.wraps(original)
            def recording_forward(*args: Any, **kwargs: Any) -> Any:
                entry = self.recorder._record_inputs(args, kwargs)
                out = original(*args, **kwargs)
                if entry is not None:
                    self.recorder._fill_empty_caches(entry)
                    self.recorder._record_outputs(entry, out)
                return out

            # transformers' generate() inspects forward's signature to decide what it passes.
            recording_forward.__signature__ = signature
            model.forward = recording_forward
            return self.recorder

        def __exit__(self, *exc: Any) -> None:
            if self.had_instance_forward:
                self.model.forward = self.saved_forward
            else:
                try:
                    del self.model.forward
                except AttributeError:
                    pass

    def _attach(self, model: Any, signature: inspect.Signature) -> None:
        if self._model is not None and self._model is not model:
            raise CaptureError("this InputRecorder already recorded calls of another model")
        self._model = model
        self._signature = signature

    # -- recording ----------------------------------------------------------

    @property
    def num_calls(self) -> int:
        return len(self._calls)

    def _record_inputs(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Optional[_RecordedCall]:
        if len(self._calls) >= self.store_n_calls:
            return None
        signature = self._signature
        assert signature is not None
        index = len(self._calls)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return None  # the real forward raises its own error for these arguments
        params = signature.parameters
        inputs: "OrderedDict[str, Any]" = OrderedDict()
        missing: List[str] = []
        filled: List[str] = []
        constants: Dict[str, Any] = {}

        def consider(name: str, value: Any) -> None:
            if value is None:
                missing.append(name)
            elif _is_constant(value):
                # Constants are not inputs of the exported program, but the call passed
                # them: replaying it (and exporting with it) must pass them too, even
                # when they equal the default (transformers passes use_cache=True).
                constants[name] = value
            else:
                inputs[name] = value

        for name, param in params.items():
            if param.kind == inspect.Parameter.VAR_KEYWORD:
                for k, v in bound.arguments.get(name, {}).items():
                    consider(k, v)
                continue
            if name in bound.arguments:
                value = bound.arguments[name]
                if param.kind == inspect.Parameter.VAR_POSITIONAL:
                    if value:
                        inputs[name] = value
                    continue
                consider(name, value)
            elif param.kind != inspect.Parameter.VAR_POSITIONAL and \
                    param.default is not inspect.Parameter.empty and \
                    not _is_constant(param.default):
                missing.append(name)

        for name in missing:
            if name in self.value_if_missing:
                inputs[name] = self.value_if_missing[name]
                filled.append(name)
        # Keep the signature order for filled inputs (kwargs extras stay last).
        order = {n: i for i, n in enumerate(params)}
        inputs = OrderedDict(sorted(inputs.items(), key=lambda kv: order.get(kv[0], len(order))))

        flattener = Flattener(index, "in")
        tree = flattener.node(inputs, "", top=True)
        entry = {
            "index": index,
            "num_positional": len(args),
            "inputs": tree,
            "missing": missing,
            "filled": filled,
            "constant_kwargs": constants,
            "empty_caches": [],
            "outputs": None,
        }
        call = _RecordedCall(entry, flattener)
        self._calls.append(call)
        return call

    def _fill_empty_caches(self, call: _RecordedCall) -> None:
        """A cache passed empty (generate()'s prefill call) is a cache of length 0, not
        another structure: once the call has filled it, record one zero-length tensor per
        layer it filled, shaped like that layer with its sequence dim (-2) at 0."""
        flattener, call.flattener = call.flattener, None
        if flattener is None:
            return
        for pending in flattener.empty_caches:
            if pending.fill(flattener):
                call.manifest["empty_caches"].append(pending.path)

    def _record_outputs(self, call: _RecordedCall, out: Any) -> None:
        if not self.record_outputs:
            return
        flattener = Flattener(call.manifest["index"], "out")
        out = self._without_model_state(out, call.manifest["index"])
        try:
            tree = flattener.node(out, "output")
        except CaptureError as exc:
            import warnings
            warnings.warn(f"dimscope: outputs of call {call.manifest['index']} not recorded: {exc}")
            return
        call.manifest["outputs"] = tree
        call.tensors.update(flattener.tensors)
        call.flattening.update(flattener.flattening)

    def _without_model_state(self, out: Any, index: int) -> Any:
        """The outputs without the entries that are the model's own state: a tensor a
        module keeps as a plain attribute between calls and returns as it is (Qwen2-VL's
        ``rope_deltas``, set by generate() before forward). Such an entry is not computed
        from the call's inputs, so no program of the call can return it; recording it
        would make every replay of the call differ from its recording."""
        if not isinstance(out, dict) or self._model is None:
            return out
        state = {}
        for name, module in self._model.named_modules():
            for attr, value in vars(module).items():
                if isinstance(value, torch.Tensor):
                    state[id(value)] = f"{type(module).__name__}.{attr}" + (f" ({name})" if name else "")
        kept = {k: v for k, v in out.items() if not (isinstance(v, torch.Tensor) and id(v) in state)}
        if len(kept) == len(out):
            return out
        import warnings
        for k in [k for k in out.keys() if k not in kept]:
            warnings.warn(f"dimscope: output {k!r} of call {index} not recorded: it is the model's attribute "
                          f"{state[id(out[k])]}, kept between calls and returned as it is, not computed from "
                          f"the call's inputs")
        return kept

    # -- saving -------------------------------------------------------------

    def manifest(self) -> Dict[str, Any]:
        if self._model is None or self._signature is None:
            raise CaptureError("no model was recorded (use `with recorder(model): ...`)")
        flattening: Dict[str, str] = {}
        for call in self._calls:
            for type_name, flavour in call.flattening.items():
                if flattening.setdefault(type_name, flavour) != flavour:
                    raise CaptureError(f"{type_name} was flattened as {flattening[type_name]} and as {flavour} "
                                       f"(call {call.manifest['index']}); a capture records one flattening per class")
        transformers = sys.modules.get("transformers")
        return {
            "format": FORMAT_ID,
            "version": FORMAT_VERSION,
            "producer": f"dimscope {__version__} InputRecorder",
            "torch_version": torch.__version__,
            "transformers_version": getattr(transformers, "__version__", None),
            "model": {
                "class": qualified_name(type(self._model)),
                "signature": [_default_json(p) for p in self._signature.parameters.values()],
            },
            "flattening": dict(sorted(flattening.items())),
            "pytree_registrations": recorded_registrations(flattening),
            "value_if_missing": list(self.value_if_missing),
            "calls": [call.manifest for call in self._calls],
        }

    def save(self, path: "os.PathLike[str] | str", writer: str = "auto") -> None:
        """Writes the capture atomically (temp file in the same folder, then rename).

        ``writer``: ``"safetensors"`` (the official library), ``"builtin"`` (dimscope's
        own writer) or ``"auto"`` (the official one when importable)."""
        manifest = self.manifest()
        tensors: Dict[str, torch.Tensor] = {}
        for call in self._calls:
            tensors.update(call.tensors)
        write_capture(path, manifest, tensors, writer=writer)

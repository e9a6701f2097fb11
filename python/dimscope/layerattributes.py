# SPDX-License-Identifier: GPL-3.0-or-later
"""Cache layers of classes dimscope has no kind for, recorded by their attributes (layer
kind ``attributes`` of a ``dynamic_layers`` cache, docs/capture-format.md): DeepSeek-V4's
``DeepseekV4HCACache`` and ``DeepseekV4CSACache`` (a sliding-window layer plus a
compressor's buffers, running entries and entry counts, in dicts keyed by entry name),
and any other layer class a transformers model defines.

A layer is recorded as one dict keyed by attribute name, in the layer's attribute order
(``vars(layer)``: a rebuilt layer has them in that order, so it flattens as recorded),
each value wrapped in a one-entry dict that says what it was:

``{"tensor": value}``
    a tensor, or a list or tuple of tensors and ``None`` (nested), as it is;
``{"none": None}``
    ``None`` (a layer before its first update). ``None`` stays ``None``, never a
    zero-size tensor, so that the rebuilt layer is the recorded one; a value that is a
    tensor in one call and ``None`` in another is two paths (``…['tensor']``,
    ``…['none']``), one per call structure: the calls differ in structure, as when an
    input is left out, not in a leaf's kind;
``{"size": t}``
    an int, as a 1-d uint8 tensor of zeros of that length: a count that changes from
    call to call (the tokens a layer has seen, the entries a compressor has emitted) is
    then a size an exported program takes as an input, never a constant baked into it;
    a count that never changes is a static size;
``{"flag": t}``
    a bool, as such a tensor of length 0 or 1;
``{"dict": {key: wrapped}}``
    a str-keyed dict of such values (DeepSeek-V4's ``{"compressor": …, "indexer": …}``).

The dtype and device a layer keeps (what transformers' ``lazy_initialization`` sets) are
not recorded: they are restored from the layer's ``keys``. A layer holding any other
value (a config object, a quantizer) is not recorded this way (`unrecordable`): it is an
``other`` layer, which loading refuses naming the attribute; the recording succeeds.

Rebuilding never calls the class with anything from a capture: the class must be a cache
layer class of the loaded transformers (`is_attribute_layer`, looked up by its qualified
name among loaded modules, never imported); the layer is ``cls.__new__(cls)`` with the
recorded attributes written into its ``__dict__`` (a size as the tensor's length: a
symbolic size while torch traces).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional

import torch

from .exceptions import CaptureError
from .typenames import qualified_name

ATTRIBUTES = "attributes"

_LAYER_BASE = "transformers.cache_utils.CacheLayerMixin"
_HELD = "_dimscope_sizes"  # the size tensors a flattening made, reused while a count stays the same
_RESTORED = ("dtype", "device")


def is_attribute_layer(cls: Any) -> bool:
    """A cache layer class of the loaded transformers: defined in one of its modules,
    with transformers' ``CacheLayerMixin`` among its bases."""
    return isinstance(cls, type) and cls.__module__.startswith("transformers.") and \
        any(qualified_name(c) == _LAYER_BASE for c in cls.__mro__)


def loaded_layer_class(name: str, where: str = "") -> type:
    """The layer class named ``name`` (``module.QualName``) among the loaded modules;
    CaptureError when it is not loaded or is no cache layer class of transformers."""
    prefix = f"{where}: " if where else ""
    parts = str(name).split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:i]))
        if module is None:
            continue
        obj: Any = module
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
        if is_attribute_layer(obj) and qualified_name(obj) == name:
            return obj
        break
    raise CaptureError(f"{prefix}the cache layer class {name} is not loaded here, or is no cache layer class "
                       f"of transformers (load the model first; dimscope imports nothing a capture names)")


# ---------------------------------------------------------------------------- record

TENSOR, NONE, SIZE, FLAG, DICT = "tensor", "none", "size", "flag", "dict"
WRAPPERS = (TENSOR, NONE, SIZE, FLAG, DICT)


def _is_tensor_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and \
        all(v is None or isinstance(v, torch.Tensor) or _is_tensor_list(v) for v in value)


def _size_tensor(layer: Any, key: tuple, count: Any, device: torch.device) -> torch.Tensor:
    """A uint8 tensor of zeros, ``count`` long. The same object while the count is the
    same: torch.export attaches a spec to the tensors one flattening gives and fakes
    those another gives, so a new tensor per flattening would stay static."""
    held = vars(layer).setdefault(_HELD, {})
    tensor = held.get(key)
    if isinstance(tensor, torch.Tensor):
        if tensor.shape[0] is count:
            return tensor
        if not isinstance(count, torch.SymInt) and not isinstance(tensor.shape[0], torch.SymInt) and \
                tensor.shape[0] == count:
            return tensor
    if not isinstance(count, torch.SymInt) and count < 0:
        raise CaptureError(f"{'.'.join(map(str, key))} is {count}: a count recorded as a size cannot be negative")
    tensor = torch.zeros(count, dtype=torch.uint8, device=device)  # a SymInt stays symbolic
    held[key] = tensor
    return tensor


def _first_device(state: Dict[str, Any]) -> torch.device:
    for value in state.values():
        if isinstance(value, torch.Tensor):
            return value.device
    return torch.device("cpu")


_NOT_RECORDED = "dimscope records a cache layer's tensors, ints, bools, None, and lists and str-keyed dicts of them"


def _wrapper(value: Any) -> Optional[str]:
    """How ``value`` is recorded (one of WRAPPERS; a dict only when all its values are
    recorded too), or None when it cannot be."""
    if value is None:
        return NONE
    if isinstance(value, torch.Tensor) or _is_tensor_list(value):
        return TENSOR
    if isinstance(value, bool):
        return FLAG
    if isinstance(value, (int, torch.SymInt)):
        return SIZE
    if isinstance(value, dict) and all(isinstance(k, str) for k in value) and \
            all(_wrapper(v) is not None for v in value.values()):
        return DICT
    return None


def _unrecorded_type(value: Any) -> str:
    """The type name of what in ``value`` cannot be recorded (a dict's first such value)."""
    if isinstance(value, dict):
        return next((_unrecorded_type(v) for v in value.values() if _wrapper(v) is None), type(value).__name__)
    return type(value).__name__


def _wrapped(layer: Any, key: tuple, value: Any, device: torch.device, where: str) -> Dict[str, Any]:
    kind = _wrapper(value)
    if kind in (NONE, TENSOR):
        return {kind: value}
    if kind in (FLAG, SIZE):
        return {kind: _size_tensor(layer, key, int(value) if kind == FLAG else value, device)}
    if kind == DICT:
        return {DICT: {k: _wrapped(layer, key + (k,), v, device, f"{where}[{k!r}]") for k, v in value.items()}}
    raise CaptureError(f"{where} is a {_unrecorded_type(value)}: {_NOT_RECORDED}")


def unrecordable(layer: Any) -> Optional[str]:
    """Why this layer cannot be recorded by its attributes (None when it can): a
    transformers layer holding anything else (a quantized cache's quantizer) is then
    recorded as an ``other`` layer, which loading refuses saying why; the recording
    itself still succeeds."""
    try:
        state = vars(layer)
    except TypeError:
        return "it keeps no attribute dict (__slots__)"
    for attr, value in _recorded_state(state):
        if _wrapper(value) is None:
            return f"its {attr!r} is a {_unrecorded_type(value)}: {_NOT_RECORDED}"
    return None


def _recorded_state(state: Dict[str, Any]):
    """(attribute, value) of the attributes recorded: not dimscope's own, nor the dtype
    and device restored from the keys."""
    for attr, value in list(state.items()):
        if attr.startswith("_dimscope_") or attr in _RESTORED and isinstance(value, (torch.dtype, torch.device)):
            continue
        yield attr, value


def describe(layer: Any, where: str = "") -> Dict[str, Dict[str, Any]]:
    """The layer's attributes, each wrapped as the module docstring says."""
    name = type(layer).__name__
    try:
        state = vars(layer)
    except TypeError:
        raise CaptureError(f"{where + ': ' if where else ''}a {name} cache layer keeps no attribute dict "
                           f"(__slots__): dimscope cannot record it") from None
    device = _first_device(state)
    out: Dict[str, Dict[str, Any]] = {}
    for attr, value in _recorded_state(state):
        out[attr] = _wrapped(layer, (attr,), value, device, f"{where + ': ' if where else ''}a {name} cache "
                                                             f"layer's {attr!r}")
    return out


# ---------------------------------------------------------------------------- rebuild


def _length(tensor: Any, where: str) -> Any:
    if not isinstance(tensor, torch.Tensor) or tensor.dim() != 1:
        raise CaptureError(f"{where}: expected a 1-d tensor whose length is the value")
    return tensor.shape[0]


def _check_name(attr: Any, where: str) -> None:
    if not isinstance(attr, str) or not attr.isidentifier() or attr.startswith("__") or attr.startswith("_dimscope_"):
        raise CaptureError(f"{where}: {attr!r} is not an attribute name a layer can have "
                           f"(an identifier, not starting with '__' or '_dimscope_')")


def _unwrapped(wrapped: Any, key: tuple, held: Dict[tuple, torch.Tensor], where: str) -> Any:
    if not isinstance(wrapped, dict) or len(wrapped) != 1 or next(iter(wrapped)) not in WRAPPERS:
        raise CaptureError(f"{where}: expected one of {', '.join(WRAPPERS)}, as a one-entry object")
    kind, value = next(iter(wrapped.items()))
    if kind == NONE:
        if value is not None:
            raise CaptureError(f"{where}: 'none' holds None")
        return None
    if kind == TENSOR:
        if not (isinstance(value, torch.Tensor) or _is_tensor_list(value)):
            raise CaptureError(f"{where}: 'tensor' holds a tensor, or a list of tensors and None")
        return value
    if kind == DICT:
        if not isinstance(value, dict):
            raise CaptureError(f"{where}: 'dict' holds an object")
        return {k: _unwrapped(v, key + (k,), held, f"{where}[{k!r}]") for k, v in value.items()}
    length = _length(value, f"{where}: {kind!r}")
    held[key] = value
    if kind == SIZE:
        return length
    if not isinstance(length, torch.SymInt) and length not in (0, 1):
        raise CaptureError(f"{where}: a flag's length is 0 or 1, got {length}")
    return bool(length)


def rebuild(cls: type, recorded: Any, where: str = "") -> Any:
    """A ``cls`` layer (as `loaded_layer_class` found it) holding the recorded attributes."""
    if not isinstance(recorded, dict):
        raise CaptureError(f"{where}: an {ATTRIBUTES} layer is an object of its attributes")
    layer = cls.__new__(cls)
    state = vars(layer)
    held: Dict[tuple, torch.Tensor] = {}
    for attr, wrapped in recorded.items():
        _check_name(attr, where)
        state[attr] = _unwrapped(wrapped, (attr,), held, f"{where}: {attr}")
    keys = state.get("keys")
    if isinstance(keys, torch.Tensor):
        state.setdefault("dtype", keys.dtype)
        state.setdefault("device", keys.device)
    state[_HELD] = held
    return layer


def layer_modules(layouts: Any) -> Dict[str, None]:
    """The modules defining the ``attributes`` layer classes of these layer layouts (a
    user imports them before loading a program whose cache has such layers)."""
    out: Dict[str, None] = {}
    for layers in layouts or []:
        for d in layers or []:
            if isinstance(d, dict) and d.get("type") == ATTRIBUTES and isinstance(d.get("class"), str):
                cls: Optional[type] = None
                try:
                    cls = loaded_layer_class(d["class"])
                except CaptureError:
                    pass
                if cls is not None:
                    out[cls.__module__] = None
    return out

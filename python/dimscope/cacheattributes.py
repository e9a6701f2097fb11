# SPDX-License-Identifier: GPL-3.0-or-later
"""transformers cache classes dimscope has no specific flavour for, recorded by their
attributes (flavour ``cache_attributes``, docs/capture-format.md): MiniMax's
``MiniMaxCache`` (a ``DynamicCache`` subclass with a ``linear_cache`` list), OLMo-Hybrid's
``OlmoHybridDynamicCache`` (a plain class of per-layer lists), and any other such class.

A cache is a pytree of tensors plus metadata. Each attribute of the instance
(``vars(cache)``, in order) is either

- a *tensor tree* (a tensor, ``None``, or a list or tuple of tensor trees) holding a
  tensor or ``None``: a child, named by the attribute. ``None`` stays ``None`` (a
  ``none`` leaf), never a zero-size tensor, so that the rebuilt object is the recorded
  one: OLMo-Hybrid's ``has_previous_state()`` asks whether a state ``is not None``, and
  a cache passed before its first update (all ``None``) is rebuilt so;
- JSON metadata (``None``, bool, int, str, finite float, lists and str-keyed dicts of
  them; tuples become lists): in the node's context, as a constant of the program.

Anything else (a config object, a class) is refused, naming the attribute.

A ``DynamicCache`` subclass keeps its layers as two more children, first:
``key_cache`` and ``value_cache``, one entry per layer, in layer order: the layer's
tensor, or ``None`` for a layer that holds none (MiniMax's cache has a layer object for
each attention layer below the last one updated, lightning-attention ones included).
Only full-attention layers (``DynamicLayer``) are recorded; the other attributes
``DynamicCache()`` sets (``layer_class_to_replicate``, ``offloading``) must be what it
sets, since the rebuild runs ``DynamicCache.__init__`` for them.

Context: ``{"layers": N or null, "children": [child names], "attributes": {name: JSON}}``
(``layers``: the number of layers of a ``DynamicCache`` subclass). It is the pytree
context too, so the registration needs no state of its own, and a ``.pt2``'s input spec
holds it as JSON.

Rebuilding never calls the class with arguments from a capture: the class must be a
cache class of the loaded transformers (`is_attribute_cache`, checked by
`caches.resolve_type`); the instance is made with ``cls.__new__(cls)`` (plus
``DynamicCache.__init__`` for a ``DynamicCache`` subclass), its layers are
``DynamicLayer()`` of the loaded ``transformers.cache_utils``, and the recorded
attributes are written into its ``__dict__`` (no property or ``__setattr__`` runs).
"""

from __future__ import annotations

import math
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from .exceptions import CaptureError
from .typenames import qualified_name

CACHE_ATTRIBUTES = "cache_attributes"

KEY_NAMES = ("key_cache", "value_cache")
CONTEXT_KEYS = ("layers", "children", "attributes")

_CACHE_UTILS = "transformers.cache_utils"
_DYNAMIC_CACHE = "transformers.cache_utils.DynamicCache"
_DYNAMIC_LAYER = "transformers.cache_utils.DynamicLayer"


# ---------------------------------------------------------------------------- which classes


def _cache_utils_class(name: str) -> Optional[type]:
    """A class of the loaded transformers.cache_utils (never imported here)."""
    cls = getattr(sys.modules.get(_CACHE_UTILS), name, None)
    return cls if isinstance(cls, type) else None


def dynamic_cache_base(cls: type) -> Optional[type]:
    """transformers' DynamicCache when ``cls`` is a subclass of it, else None."""
    return next((c for c in cls.__mro__ if qualified_name(c) == _DYNAMIC_CACHE), None)


def is_attribute_cache(cls: type) -> bool:
    """A cache class of the loaded transformers that this flavour may record and build:
    a subclass of its ``Cache`` base, or a class of one of its model modules named
    ``…Cache`` with a ``get_seq_length`` method (OLMo-Hybrid's cache is no ``Cache``)."""
    if not isinstance(cls, type) or not cls.__module__.startswith("transformers."):
        return False
    base = _cache_utils_class("Cache")
    if base is not None and issubclass(cls, base):
        return True
    return cls.__module__.startswith("transformers.models.") and cls.__name__.endswith("Cache") and \
        callable(getattr(cls, "get_seq_length", None))


# ---------------------------------------------------------------------------- record


def _holds(value: Any, kinds: Tuple[type, ...]) -> bool:
    """Whether ``value`` is, or its lists and tuples hold, a value of ``kinds``."""
    if isinstance(value, kinds):
        return True
    return isinstance(value, (list, tuple)) and any(_holds(v, kinds) for v in value)


def _is_tensor_tree(value: Any) -> bool:
    if value is None or isinstance(value, torch.Tensor):
        return True
    return isinstance(value, (list, tuple)) and all(_is_tensor_tree(v) for v in value)


def _as_json(value: Any, where: str) -> Any:
    """``value`` as JSON (tuples become lists); CaptureError when it has no JSON form."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, (list, tuple)):
        return [_as_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _as_json(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise CaptureError(f"{where} is a {type(value).__name__}: dimscope records a cache's attributes "
                       f"that hold tensors, and JSON metadata (None, bool, int, str, float, lists, dicts)")


def _layer_children(cache: Any, name: str) -> List[List[Optional[torch.Tensor]]]:
    """``[key_cache, value_cache]``: each layer's tensor, or None where it holds none."""
    keys: List[Optional[torch.Tensor]] = []
    values: List[Optional[torch.Tensor]] = []
    for i, layer in enumerate(cache.layers):
        if qualified_name(type(layer)) != _DYNAMIC_LAYER:
            raise CaptureError(f"{name}.layers[{i}] is a {qualified_name(type(layer))}; dimscope records the "
                               f"layers of a DynamicCache subclass when they are DynamicLayer")
        k, v = getattr(layer, "keys", None), getattr(layer, "values", None)
        # transformers' lazy initialization leaves a 1-d empty tensor before the first update
        held = isinstance(k, torch.Tensor) and k.dim() >= 2 and isinstance(v, torch.Tensor)
        keys.append(k if held else None)
        values.append(v if held else None)
    return [keys, values]


def _base_attributes(cache: Any, base: type, name: str) -> List[str]:
    """The attributes ``DynamicCache()`` sets, checked to be what it sets (the rebuild
    sets them with ``DynamicCache.__init__``)."""
    fresh = vars(base())
    for attr, expected in fresh.items():
        if attr == "layers":
            continue
        value = vars(cache).get(attr, expected)
        if value is not expected and value != expected:
            raise CaptureError(f"{name}.{attr} is {value!r}; dimscope rebuilds a DynamicCache subclass with "
                               f"what DynamicCache() sets ({expected!r})")
    return list(fresh)


def describe(cache: Any) -> Tuple[List[str], Dict[str, Any], List[Any]]:
    """(child names, context, children) of a cache recorded by its attributes."""
    name = type(cache).__name__
    try:
        state = vars(cache)
    except TypeError:
        raise CaptureError(f"{name} keeps no attribute dict (__slots__): dimscope cannot record it") from None
    names: List[str] = []
    children: List[Any] = []
    skip: List[str] = []
    base = dynamic_cache_base(type(cache))
    if base is not None:
        skip = _base_attributes(cache, base, name)
        names.extend(KEY_NAMES)
        children.extend(_layer_children(cache, name))
    attributes: Dict[str, Any] = {}
    for attr, value in state.items():
        if attr in skip:
            continue
        if attr in KEY_NAMES and base is not None:
            raise CaptureError(f"{name}.{attr}: the name of the children that hold the layers' tensors")
        if _is_tensor_tree(value) and _holds(value, (torch.Tensor, type(None))):
            names.append(attr)
            children.append(value)
        elif _holds(value, (torch.Tensor,)):
            raise CaptureError(f"{name}.{attr} mixes tensors with other values; dimscope records tensors, "
                               f"and lists of tensors and None, as a cache's children")
        else:
            attributes[attr] = _as_json(value, f"{name}.{attr}")
    layers = len(cache.layers) if base is not None else None
    context = {"layers": layers, "children": list(names), "attributes": attributes}
    return names, context, children


# ---------------------------------------------------------------------------- rebuild


def _check_name(attr: Any, prefix: str) -> None:
    if not isinstance(attr, str) or not attr.isidentifier() or attr.startswith("__"):
        raise CaptureError(f"{prefix}{attr!r} is not an attribute name a cache can have "
                           f"(an identifier, not starting with '__')")


def _check_tensor_tree(value: Any, where: str) -> None:
    if value is None or isinstance(value, torch.Tensor):
        return
    if not isinstance(value, (list, tuple)):
        raise CaptureError(f"{where}: expected a tensor, None, or a list of them, got {type(value).__name__}")
    for i, v in enumerate(value):
        _check_tensor_tree(v, f"{where}[{i}]")


def _checked_context(names: Sequence[str], children: Sequence[Any], context: Any,
                     prefix: str) -> Tuple[Optional[int], Dict[str, Any]]:
    """(layer count, attributes) of a context from a file, checked."""
    if not isinstance(context, dict) or sorted(context) != sorted(CONTEXT_KEYS):
        raise CaptureError(f"{prefix}a {CACHE_ATTRIBUTES} context is an object with "
                           f"{', '.join(CONTEXT_KEYS)}, got {context!r:.200}")
    layers, attributes = context["layers"], context["attributes"]
    if list(context["children"]) != list(names) or len(names) != len(children):
        raise CaptureError(f"{prefix}the context names children {context['children']!r}, the node "
                           f"{list(names)!r} with {len(children)} children")
    if layers is not None and (isinstance(layers, bool) or not isinstance(layers, int) or layers < 0):
        raise CaptureError(f"{prefix}'layers' must be a count or null, got {layers!r}")
    if not isinstance(attributes, dict):
        raise CaptureError(f"{prefix}'attributes' must be an object")
    for attr in list(names) + list(attributes):
        _check_name(attr, prefix)
    if len(set(names) | set(attributes)) != len(names) + len(attributes):
        raise CaptureError(f"{prefix}an attribute is named twice")
    for attr, child in zip(names, children):
        _check_tensor_tree(child, f"{prefix}{attr}")
    return layers, attributes


def _dynamic_layers(count: int, keys: Sequence[Any], values: Sequence[Any], prefix: str) -> List[Any]:
    layer_cls = _cache_utils_class("DynamicLayer")
    if layer_cls is None:
        raise CaptureError(f"{prefix}transformers.cache_utils has no DynamicLayer")
    if not (isinstance(keys, list) and isinstance(values, list) and len(keys) == len(values) == count):
        raise CaptureError(f"{prefix}key_cache and value_cache must hold one entry per layer ({count})")
    layers = []
    for i, (k, v) in enumerate(zip(keys, values)):
        layer = layer_cls()
        if not (k is v is None or isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor)):
            raise CaptureError(f"{prefix}layer {i}: a key and a value tensor, or neither")
        if k is not None:
            layer.lazy_initialization(k, v)
            layer.keys, layer.values = k, v
        layers.append(layer)
    return layers


def rebuild(cls: type, names: Sequence[str], children: Sequence[Any], context: Any, where: str = "") -> Any:
    """A ``cls`` instance holding the recorded attributes (``cls`` as
    `caches.resolve_type` accepted it)."""
    prefix = f"{where}: " if where else ""
    layers, attributes = _checked_context(names, children, context, prefix)
    base = dynamic_cache_base(cls)
    if (base is None) != (layers is None):
        raise CaptureError(f"{prefix}{qualified_name(cls)} is {'a' if base else 'no'} DynamicCache subclass; "
                           f"the context has {'no ' if layers is None else ''}layers")
    cache = cls.__new__(cls)
    state = dict(zip(names, children))
    if base is not None:
        if list(names[:2]) != list(KEY_NAMES):
            raise CaptureError(f"{prefix}a DynamicCache subclass's first children are {', '.join(KEY_NAMES)}")
        base.__init__(cache)  # what DynamicCache() sets: the rest is from the capture
        if set(vars(cache)) & (set(names[2:]) | set(attributes)):
            raise CaptureError(f"{prefix}an attribute of the capture is one DynamicCache() sets")
        cache.layers = _dynamic_layers(layers, state.pop(KEY_NAMES[0]), state.pop(KEY_NAMES[1]), prefix)
    vars(cache).update(_copied(attributes))
    vars(cache).update(state)
    return cache


def _copied(value: Any) -> Any:
    """JSON values, copied: a rebuilt cache must not share lists with the context (the
    model appends to them; the context of a program's input spec must stay as it is)."""
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------------------- registration


def make_registration(cls: type):
    """(flatten, unflatten, flatten_with_keys) of ``cls`` as this flavour records it."""
    import torch.utils._pytree as pytree

    def flatten(cache: Any):
        _, context, children = describe(cache)
        return children, context

    def unflatten(children: Any, context: Any) -> Any:
        return rebuild(cls, list(context["children"]), list(children), context)

    def flatten_with_keys(cache: Any):
        names, context, children = describe(cache)
        return [(pytree.MappingKey(n), c) for n, c in zip(names, children)], context

    return flatten, unflatten, flatten_with_keys

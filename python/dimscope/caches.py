# SPDX-License-Identifier: GPL-3.0-or-later
"""How dimscope flattens custom classes (KV caches and other pytree nodes).

A capture records, for every custom class it contains, the *flavour* of flattening used
(docs/capture-format.md, "Custom classes"). The flavours follow transformers' own pytree
registrations, so that a ``dynamic_shapes`` spec written against a capture matches what
``torch.export`` sees once the same registration is active:

``key_value_dict``
    DynamicCache (attribute-based ``key_cache``/``value_cache`` or layer-based
    ``.layers[i].keys/.values``) and classes registered with :func:`register_key_value_cache`
    (the demo's own cache): children ``[key_cache_list, value_cache_list]``, context
    ``["key_cache", "value_cache"]``.
``dynamic_layers``
    a layer-based DynamicCache with layers that are not full-attention layers
    (sliding-window, linear-attention: transformers 5.x), flattened and rebuilt by
    dimscope's own registration with the recorded layer kinds (module cachelayers):
    children ``key_cache``/``value_cache`` (attention layers) and
    ``conv_states``/``recurrent_states`` (linear-attention layers).
``static_layers``
    a static cache (transformers 5.x StaticCache; 4.4x StaticCache and HybridCache),
    flattened and rebuilt by dimscope's own registration (module staticcache):
    children ``key_cache``, ``value_cache`` and, for 5.x caches, ``cumulative_length``
    (the tokens each layer has seen); the layer kinds are in the context.
``static_key_value_dict``
    StaticCache as captures before ``static_layers`` recorded it: children
    ``key_cache``/``value_cache``, rebuilt only through an existing registration.
``encoder_decoder``
    EncoderDecoderCache: children ``[self_attention_cache, cross_attention_cache]``.
``pytree``
    any other class registered with ``torch.utils._pytree``: its own flatten function.
``cache_attributes``
    any other cache class of transformers (MiniMax's, OLMo-Hybrid's), by its attributes:
    tensors and lists of them as children, JSON metadata in the context, a
    DynamicCache subclass's layers as ``key_cache``/``value_cache`` (module
    cacheattributes, dimscope's registration).

transformers is never imported here: its caches are recognised by their qualified class
name (an instance can only exist once transformers is loaded), and rebuilt by importing
the class only when a capture containing one is loaded.

Works with torch 2.1+ (private pytree APIs differ between versions; see ``_register``).
"""

from __future__ import annotations

import collections
import inspect
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.utils._pytree as _pytree

from . import cacheattributes, cachelayers, staticcache
# Defined in dimscope.exceptions; imported here, where the worker and users' code
# (``dimscope.caches.CaptureError``) look for it.
from .exceptions import CaptureError  # noqa: F401
# Defined in the leaf module typenames; imported here, where users' code and the
# recorder look for it.
from .typenames import qualified_name

KEY_VALUE_DICT = "key_value_dict"
DYNAMIC_LAYERS = "dynamic_layers"
STATIC_KEY_VALUE_DICT = "static_key_value_dict"
STATIC_LAYERS = "static_layers"
ENCODER_DECODER = "encoder_decoder"
PYTREE = "pytree"
CACHE_ATTRIBUTES = cacheattributes.CACHE_ATTRIBUTES

KEY_VALUE_CONTEXT = ["key_cache", "value_cache"]
ENCODER_DECODER_CONTEXT = ["self_attention_cache", "cross_attention_cache"]

DYNAMIC_CACHE = "transformers.cache_utils.DynamicCache"
STATIC_CACHE = "transformers.cache_utils.StaticCache"
HYBRID_CACHE = "transformers.cache_utils.HybridCache"  # transformers 4.4x
ENCODER_DECODER_CACHE = "transformers.cache_utils.EncoderDecoderCache"

_TRANSFORMERS_FLAVOURS = {
    DYNAMIC_CACHE: KEY_VALUE_DICT,
    STATIC_CACHE: STATIC_LAYERS,
    HYBRID_CACHE: STATIC_LAYERS,
    ENCODER_DECODER_CACHE: ENCODER_DECODER,
}

# Containers torch registers itself; captures record them as dict/list/tuple nodes.
_BUILTIN_CONTAINERS = (dict, list, tuple, collections.OrderedDict, collections.defaultdict)

# Classes registered through register_key_value_cache(): flattened as key_value_dict.
_KEY_VALUE_CLASSES: Dict[type, None] = {}
# Classes registered through register_encoder_decoder_cache().
_ENCODER_DECODER_CLASSES: Dict[type, None] = {}


def loaded_object(name: str) -> Any:
    """The object ``pkg.module.Outer.Inner`` names, looked up in modules this process
    has already imported; None when there is none. Never imports anything: a capture
    may come from anyone, and a name it gives must not make the worker run a module."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        obj = sys.modules.get(".".join(parts[:cut]))
        if obj is None:
            continue
        try:
            # Static lookups only: getattr would call a module's __getattr__, and
            # torch's and transformers' import submodules lazily there
            # (`torch.onnx.X` ran torch/onnx/__init__.py), or a class's descriptors.
            for attr in parts[cut:]:
                obj = inspect.getattr_static(obj, attr)
        except AttributeError:
            continue
        return obj
    return None


def _registered_type(name: str) -> Optional[type]:
    """A class registered with torch.utils._pytree under this qualified (or serialized)
    name."""
    for cls, node in list(_pytree.SUPPORTED_NODES.items()):
        if qualified_name(cls) == name or getattr(node, "serialized_type_name", None) == name:
            return cls
    return None


def _is_transformers_cache(cls: type) -> bool:
    """A cache class of the loaded transformers: one of the caches dimscope knows by
    name, or any subclass of its ``Cache`` base."""
    if qualified_name(cls) in _TRANSFORMERS_FLAVOURS:
        return True
    cache_utils = sys.modules.get("transformers.cache_utils")
    base = getattr(cache_utils, "Cache", None)
    return isinstance(base, type) and issubclass(cls, base)


def resolve_type(name: str, flavour: Optional[str], where: str = "") -> type:
    """The class a capture names, if this process may build it: a class registered with
    torch.utils._pytree, a cache class of the loaded transformers, a key/value cache
    class registered through dimscope, or (flavour ``"namedtuple"``) a named tuple
    class of a loaded module. Anything else, a function named as a type included,
    raises CaptureError naming ``where``."""
    prefix = f"{where}: " if where else ""
    obj = _registered_type(name) if flavour == PYTREE else None
    if obj is None:
        obj = loaded_object(name)
    if not isinstance(obj, type) or qualified_name(obj) != name and _registered_type(name) is not obj:
        raise CaptureError(
            f"{prefix}{name} is not a class loaded in this process (dimscope never imports a "
            f"module a capture names: load the model, or import the module that defines "
            f"{name.rsplit('.', 1)[-1]}, first)")
    if flavour == "namedtuple":
        ok = issubclass(obj, tuple) and isinstance(getattr(obj, "_fields", None), tuple)
    elif flavour in (DYNAMIC_LAYERS, STATIC_LAYERS):
        ok = _is_transformers_cache(obj)
    elif flavour in (KEY_VALUE_DICT, STATIC_KEY_VALUE_DICT):
        ok = obj in _KEY_VALUE_CLASSES or _is_transformers_cache(obj) or obj in _pytree.SUPPORTED_NODES
    elif flavour == ENCODER_DECODER:
        ok = obj in _ENCODER_DECODER_CLASSES or _is_transformers_cache(obj) or obj in _pytree.SUPPORTED_NODES
    elif flavour == CACHE_ATTRIBUTES:
        # not a class with a flavour of its own: the recorder never gives those this one
        ok = cacheattributes.is_attribute_cache(obj) and qualified_name(obj) not in _TRANSFORMERS_FLAVOURS
    else:
        ok = obj in _pytree.SUPPORTED_NODES
    if not ok:
        raise CaptureError(f"{prefix}{name} is not a {flavour or 'pytree'} class dimscope may build "
                           f"(it must be registered with torch.utils._pytree or be a transformers cache)")
    return obj


# ---------------------------------------------------------------------------- describe


class CustomParts:
    """How one custom-class instance flattens: its flavour, child keys, context, children."""

    __slots__ = ("type_name", "flavour", "keys", "context", "children", "layers")

    def __init__(self, type_name: str, flavour: str, keys: List[str], context: Any,
                 children: List[Any], layers: Optional[List[Dict[str, Any]]] = None) -> None:
        self.type_name = type_name
        self.flavour = flavour
        self.keys = keys
        self.context = context
        self.children = children
        self.layers = layers  # a layer-based DynamicCache's layer kinds (cachelayers)


def _layer_tensors(cache: Any, attr: str) -> List[torch.Tensor]:
    # Layer-based caches (transformers 4.54+): transformers' registration keeps the layers
    # whose tensors are set, in order.
    out = []
    for layer in cache.layers:
        value = getattr(layer, attr, None)
        if value is not None:
            out.append(value)
    return out


def key_value_lists(cache: Any) -> Tuple[List[Any], List[Any]]:
    """The ``key_cache``/``value_cache`` lists of a DynamicCache-like object."""
    if isinstance(getattr(cache, "layers", None), (list, tuple)):
        return _layer_tensors(cache, "keys"), _layer_tensors(cache, "values")
    if hasattr(cache, "key_cache") and hasattr(cache, "value_cache"):
        return list(cache.key_cache), list(cache.value_cache)
    raise CaptureError(
        f"{qualified_name(type(cache))} has neither .layers nor key_cache/value_cache")


def _dynamic_cache_layers(value: Any, seen: bool = True) -> Optional[List[Dict[str, Any]]]:
    if qualified_name(type(value)) != DYNAMIC_CACHE:
        return None
    return cachelayers.describe_layers(value, seen)


def _flavour_of(value: Any) -> Optional[str]:
    cls = type(value)
    flavour = _TRANSFORMERS_FLAVOURS.get(qualified_name(cls))
    if flavour == KEY_VALUE_DICT:
        if cachelayers.is_layered(_dynamic_cache_layers(value, seen=False)):
            return DYNAMIC_LAYERS
    if flavour is not None:
        return flavour
    if cls in _KEY_VALUE_CLASSES:
        return KEY_VALUE_DICT
    if cls in _BUILTIN_CONTAINERS:
        return None
    if cacheattributes.is_attribute_cache(cls) and \
            (cls not in _pytree.SUPPORTED_NODES or registration_module(cls) == "dimscope.cacheattributes"):
        # dimscope's own registration (active once a capture of it was loaded) records
        # it as it was: not as a class with a registration of its own
        return CACHE_ATTRIBUTES
    if cls in _pytree.SUPPORTED_NODES:
        return PYTREE
    return None


def is_custom(value: Any) -> bool:
    return _flavour_of(value) is not None


def _key_string(entry: Any) -> str:
    for attr in ("key", "name", "idx"):
        if hasattr(entry, attr):
            return str(getattr(entry, attr))
    return str(entry)


def _jsonable(context: Any) -> Any:
    """The context as JSON (tuples become lists), or None when it has no JSON form."""
    def convert(obj: Any) -> Any:
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, float):
            if obj != obj or obj in (float("inf"), float("-inf")):
                raise TypeError("non-finite float")
            return obj
        if isinstance(obj, (list, tuple)):
            return [convert(x) for x in obj]
        if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
            return {k: convert(v) for k, v in obj.items()}
        raise TypeError(type(obj).__name__)
    try:
        return convert(context)
    except TypeError:
        return None


def describe_custom(value: Any) -> Optional[CustomParts]:
    """How ``value`` flattens when it is a custom class dimscope knows, else None."""
    flavour = _flavour_of(value)
    if flavour is None:
        return None
    type_name = qualified_name(type(value))
    if flavour == DYNAMIC_LAYERS:
        layers = _dynamic_cache_layers(value)
        children, names = cachelayers.flatten_layers(value, layers)
        return CustomParts(type_name, flavour, list(names), list(names), children, layers)
    if flavour == STATIC_LAYERS:
        children, context = staticcache.flatten(value)
        return CustomParts(type_name, flavour, list(context["children"]), context, children)
    if flavour in (KEY_VALUE_DICT, STATIC_KEY_VALUE_DICT):
        keys, values = key_value_lists(value)
        return CustomParts(type_name, flavour, list(KEY_VALUE_CONTEXT), list(KEY_VALUE_CONTEXT),
                           [keys, values], _dynamic_cache_layers(value))
    if flavour == CACHE_ATTRIBUTES:
        names, context, children = cacheattributes.describe(value)
        return CustomParts(type_name, flavour, names, context, children)
    if flavour == ENCODER_DECODER:
        children = [value.self_attention_cache, value.cross_attention_cache]
        return CustomParts(type_name, flavour, list(ENCODER_DECODER_CONTEXT),
                           list(ENCODER_DECODER_CONTEXT), children)
    node = _pytree.SUPPORTED_NODES[type(value)]
    with_keys = getattr(node, "flatten_with_keys_fn", None)
    if with_keys is not None:
        pairs, context = with_keys(value)
        keys = [_key_string(k) for k, _ in pairs]
        children = [v for _, v in pairs]
    else:
        # No keyed flattening (transformers' ModelOutput classes): the names the worker's
        # keyed flattening gives the children (_ensure_flatten_with_keys), so that a
        # leaf's path here is the program input's key path (encoder_outputs.last_hidden_state).
        children, context = node.flatten_fn(value)
        children = list(children)
        keys = _context_names(context, len(children)) or [str(i) for i in range(len(children))]
    return CustomParts(type_name, PYTREE, keys, _jsonable(context), children)


# ---------------------------------------------------------------------------- rebuild


def build_key_value_cache(cls: type, keys: Sequence[Any], values: Sequence[Any]) -> Any:
    """A ``cls()`` cache holding one (key, value) pair per layer.

    Layer-based transformers caches are filled through ``update`` (as transformers'
    own unflatten does); attribute-based ones get their lists set (as the older
    registration did)."""
    cache = cls()
    if isinstance(getattr(cache, "layers", None), list) and hasattr(cache, "update"):
        for idx, (k, v) in enumerate(zip(keys, values)):
            cache.update(k, v, idx)
        return cache
    cache.key_cache = list(keys)
    cache.value_cache = list(values)
    return cache


def rebuild_custom(type_name: str, flavour: str, children: List[Any], context: Any,
                   factories: Optional[Dict[str, Callable[[List[Any], Any], Any]]] = None,
                   where: str = "", keys: Optional[List[str]] = None,
                   layers: Optional[List[Dict[str, Any]]] = None, restored: Any = None) -> Any:
    """Rebuilds a custom-class instance from its flattened children. Only classes
    `resolve_type` accepts are built (``where``, the node's key path, names the place
    in errors). ``keys``, ``layers``: the node's child names and layer kinds (flavour
    ``dynamic_layers``); ``restored`` collects what such a rebuild inferred."""
    if factories and type_name in factories:
        return factories[type_name](children, context)
    cls = resolve_type(type_name, flavour, where)
    if flavour == DYNAMIC_LAYERS:
        if not isinstance(layers, list) or not all(isinstance(d, dict) for d in layers):
            raise CaptureError(f"{where}: a {DYNAMIC_LAYERS} node needs its 'layers'")
        names = list(keys if keys is not None else context or [])
        return cachelayers.build_layered_cache(cls, names, children, layers, where, restored=restored)
    if flavour == KEY_VALUE_DICT:
        return build_key_value_cache(cls, children[0], children[1])
    if flavour == STATIC_LAYERS:
        return staticcache.rebuild(cls, children, context, where)
    if flavour == CACHE_ATTRIBUTES:
        return cacheattributes.rebuild(cls, list(keys if keys is not None else []), children, context, where)
    if flavour == ENCODER_DECODER:
        return cls(children[0], children[1])
    node = _pytree.SUPPORTED_NODES.get(cls)
    if flavour == STATIC_KEY_VALUE_DICT:
        # A StaticCache needs its model config to be built; only transformers' own
        # registration (or a factory) knows how.
        if node is None:
            raise CaptureError(
                f"cannot rebuild {type_name}: it is not registered with torch.utils._pytree; "
                f"pass a factory for it")
        return node.unflatten_fn(children, context)
    if flavour == PYTREE:
        if node is None:
            raise CaptureError(
                f"cannot rebuild {type_name}: it is not registered with torch.utils._pytree "
                f"(import the module that registers it first)")
        try:
            return node.unflatten_fn(children, context)
        except Exception as exc:  # the registration's own error, with our context
            raise CaptureError(f"cannot rebuild {type_name} from its recorded context: {exc}") from exc
    raise CaptureError(f"unknown flattening flavour {flavour!r} for {type_name}")


# ---------------------------------------------------------------------------- register


def _register(cls: type, flatten_fn: Callable, unflatten_fn: Callable,
              flatten_with_keys_fn: Optional[Callable]) -> None:
    """register_pytree_node across torch versions.

    torch 2.1 only has the private ``_register_pytree_node`` (no key paths, no serialized
    type name); 2.2 adds the public function; 2.3 ``flatten_with_keys_fn``."""
    register = getattr(_pytree, "register_pytree_node", None) or _pytree._register_pytree_node
    accepted = inspect.signature(register).parameters
    kwargs: Dict[str, Any] = {}
    if "serialized_type_name" in accepted:
        kwargs["serialized_type_name"] = qualified_name(cls)
    if "flatten_with_keys_fn" in accepted and flatten_with_keys_fn is not None:
        kwargs["flatten_with_keys_fn"] = flatten_with_keys_fn
    register(cls, flatten_fn, unflatten_fn, **kwargs)
    _ensure_fx_flatten_spec(cls)


def _ensure_fx_flatten_spec(cls: type) -> None:
    """torch < 2.7 runs exported modules through torch.fx._pytree, which needs its own
    flatten spec for custom classes (transformers registers one too; a class registered
    with register_pytree_node alone has none, and the exported program then rejects
    every call that passes it)."""
    try:
        import torch.fx._pytree as fx_pytree
        node = _pytree.SUPPORTED_NODES.get(cls)
        if node is not None and cls not in getattr(fx_pytree, "SUPPORTED_NODES", {}):
            flatten_fn = node.flatten_fn
            fx_pytree.register_pytree_flatten_spec(cls, lambda obj, _spec: flatten_fn(obj)[0])
    except (ImportError, AttributeError):
        pass


def _with_keys(flatten_fn: Callable) -> Optional[Callable]:
    mapping_key = getattr(_pytree, "MappingKey", None)
    if mapping_key is None:
        return None

    def flatten_with_keys(obj: Any):
        children, context = flatten_fn(obj)
        return [(mapping_key(k), v) for k, v in zip(context, children)], context
    return flatten_with_keys


def is_registered(cls: type) -> bool:
    return cls in _pytree.SUPPORTED_NODES


def register_key_value_cache(cls: type) -> None:
    """Registers ``cls`` as a pytree node the way transformers registers DynamicCache.

    Flatten: ``[key_cache_list, value_cache_list]`` with context
    ``["key_cache", "value_cache"]``; unflatten: ``cls()`` filled again. Captures record
    instances of ``cls`` with the ``key_value_dict`` flavour. No-op when already registered."""
    _KEY_VALUE_CLASSES[cls] = None
    if is_registered(cls):
        return

    def flatten(cache: Any):
        keys, values = key_value_lists(cache)
        return [keys, values], list(KEY_VALUE_CONTEXT)

    def unflatten(children: Any, context: Any) -> Any:
        children = list(children)
        return build_key_value_cache(cls, children[0], children[1])

    _register(cls, flatten, unflatten, _with_keys(flatten))


def register_encoder_decoder_cache(cls: type) -> None:
    """Registers ``cls`` the way transformers registers EncoderDecoderCache."""
    _ENCODER_DECODER_CLASSES[cls] = None
    if is_registered(cls):
        return

    def flatten(cache: Any):
        return ([cache.self_attention_cache, cache.cross_attention_cache],
                list(ENCODER_DECODER_CONTEXT))

    def unflatten(children: Any, context: Any) -> Any:
        children = list(children)
        return cls(children[0], children[1])

    _register(cls, flatten, unflatten, _with_keys(flatten))


def _context_names(context: Any, count: int) -> Optional[List[str]]:
    """The children's names when a pytree context names them (a ModelOutput's field
    names: one distinct string per child), else None."""
    if not isinstance(context, (list, tuple)) or len(context) != count or \
            not all(isinstance(k, str) for k in context) or len(set(context)) != count:
        return None
    return list(context)


def _ensure_flatten_with_keys(cls: type) -> None:
    """torch.export needs a flatten-with-keys function for every pytree class among
    the inputs; transformers registers its ModelOutput classes (``encoder_outputs``)
    without one. Keys from the context when it names the children (a ModelOutput's
    field names), else positions."""
    node = _pytree.SUPPORTED_NODES.get(cls)
    if node is None or getattr(node, "flatten_with_keys_fn", "absent") is not None:
        return
    mapping_key, sequence_key = getattr(_pytree, "MappingKey", None), getattr(_pytree, "SequenceKey", None)
    if mapping_key is None or not hasattr(node, "_replace"):
        return
    flatten_fn = node.flatten_fn

    def flatten_with_keys(obj: Any):
        children, context = flatten_fn(obj)
        children = list(children)
        names = _context_names(context, len(children))
        keys = [mapping_key(n) for n in names] if names else [sequence_key(i) for i in range(len(children))]
        return list(zip(keys, children)), context

    _pytree.SUPPORTED_NODES[cls] = node._replace(flatten_with_keys_fn=flatten_with_keys)


def registration_module(cls: type) -> Optional[str]:
    """The module whose function flattens ``cls`` in this process's torch.utils._pytree
    registry (``transformers.integrations.executorch`` for transformers' DynamicCache
    registration, ``dimscope.caches``/``dimscope.cachelayers`` for dimscope's), or None
    when ``cls`` is not registered."""
    node = _pytree.SUPPORTED_NODES.get(cls)
    if node is None:
        return None
    return getattr(node.flatten_fn, "__module__", None) or "?"


# The registration a capture's nodes follow (manifest "pytree_registrations").
FOLLOWS_TRANSFORMERS = "transformers"  # transformers.integrations.executorch (DynamicCache)
FOLLOWS_DIMSCOPE = "dimscope"          # dimscope.caches / dimscope.cachelayers
FOLLOWS_OWN = "own"                    # the class's own registration (flavour pytree)


def follows(type_name: str, flavour: str) -> str:
    """Which registration the flattening of a class with this flavour follows: the one
    the worker makes active for it."""
    if flavour == PYTREE or flavour == STATIC_KEY_VALUE_DICT:
        return FOLLOWS_OWN
    if flavour == KEY_VALUE_DICT and type_name == DYNAMIC_CACHE:
        return FOLLOWS_TRANSFORMERS
    # STATIC_LAYERS: dimscope's (transformers 5.x registers no StaticCache flattening)
    return FOLLOWS_DIMSCOPE


def recorded_registrations(flattening: Dict[str, str]) -> Dict[str, Dict[str, Any]]:
    """The manifest's ``pytree_registrations`` for the classes of ``flattening``:
    ``{"follows": …, "recording": module or None}``."""
    out: Dict[str, Dict[str, Any]] = {}
    for type_name, flavour in sorted(flattening.items()):
        cls = loaded_object(type_name)
        recording = registration_module(cls) if isinstance(cls, type) else None
        out[type_name] = {"follows": follows(type_name, flavour), "recording": recording}
    return out


def _deregister(cls: type) -> None:
    """Removes ``cls``'s registration (to replace it with another flattening)."""
    deregister = getattr(_pytree, "_deregister_pytree_node", None)
    if deregister is not None:
        deregister(cls)
    else:  # torch < 2.3
        _pytree.SUPPORTED_NODES.pop(cls, None)
        node = getattr(_pytree, "SUPPORTED_SERIALIZED_TYPES", {}).pop(cls, None)
        if node is not None:
            getattr(_pytree, "SERIALIZED_TYPE_TO_PYTHON_TYPE", {}).pop(
                getattr(node, "serialized_type_name", None), None)
    try:
        import torch.fx._pytree as fx_pytree
        for table in ("SUPPORTED_NODES", "SUPPORTED_NODES_EXACT_MATCH"):
            getattr(fx_pytree, table, {}).pop(cls, None)
    except ImportError:
        pass


def _register_transformers_dynamic_cache(cls: type) -> bool:
    """transformers' own DynamicCache registration (its executorch integration), when
    the loaded transformers has one: programs exported with it load where transformers
    registers the cache the same way. Returns True when it registered ``cls``."""
    if qualified_name(cls) != DYNAMIC_CACHE or "transformers" not in sys.modules:
        return False
    try:
        from transformers.integrations.executorch import register_dynamic_cache_export_support
    except ImportError:
        return False
    register_dynamic_cache_export_support()
    return is_registered(cls)


def _capture_layouts(manifest: Dict[str, Any], type_name: str) -> List[List[Dict[str, Any]]]:
    """The layer layouts of every ``dynamic_layers`` node of ``type_name`` in the
    capture (inputs and outputs of every call)."""
    found: Dict[str, List[Dict[str, Any]]] = {}

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        if node.get("kind") == "custom" and node.get("type") == type_name and \
                node.get("flavour") == DYNAMIC_LAYERS and isinstance(node.get("layers"), list):
            found.setdefault(repr(cachelayers.layout_of(node["layers"])), node["layers"])
        for child in node.get("children") or []:
            walk(child)

    for call in manifest.get("calls") or []:
        walk(call.get("inputs"))
        walk(call.get("outputs"))
    return list(found.values())


def register_dynamic_layers(cls: type, layers: Sequence[Dict[str, Any]]) -> str:
    """Makes dimscope's layer-aware flattening of ``cls`` (a layer-based DynamicCache)
    active with these layer kinds, replacing any other registration of ``cls`` (see
    cachelayers). Returns what it did."""
    before = registration_module(cls)
    if before == "dimscope.cachelayers" and cachelayers.registered_layout(cls) is not None and \
            cachelayers.layout_of(cachelayers.registered_layout(cls)) == cachelayers.layout_of(layers):
        return "already registered"
    flatten, unflatten, with_keys = cachelayers.make_registration(cls, layers)
    if before is not None:
        _deregister(cls)
    _register(cls, flatten, unflatten, with_keys)
    return "registered" if before is None else f"registered in place of {before}'s registration"


def _register_from(cls: type, module: Any) -> str:
    """Makes the flattening ``module.make_registration(cls)`` gives active, replacing any
    other registration of ``cls``. Returns what it did."""
    before = registration_module(cls)
    if before == module.__name__:
        return "already registered"
    flatten, unflatten, with_keys = module.make_registration(cls)
    if before is not None:
        _deregister(cls)
    _register(cls, flatten, unflatten, with_keys)
    return "registered" if before is None else f"registered in place of {before}'s registration"


def register_static_layers(cls: type) -> str:
    """Makes dimscope's flattening of a static cache class active (module staticcache),
    replacing any other registration of ``cls``. Returns what it did."""
    return _register_from(cls, staticcache)


def register_cache_attributes(cls: type) -> str:
    """Makes dimscope's flattening of a cache class recorded by its attributes active
    (module cacheattributes), replacing any other registration of ``cls``. Returns what
    it did."""
    return _register_from(cls, cacheattributes)


def layers_text(layers: Sequence[Dict[str, Any]]) -> str:
    """``sliding(8), full`` for messages."""
    parts = []
    for d in layers:
        kind = d.get("type")
        if kind == "sliding":
            parts.append(f"sliding({d.get('sliding_window')})")
        elif kind == "other":
            parts.append(str(d.get("class")))
        elif kind == cachelayers.ATTRIBUTES:
            parts.append(f"{d.get('class')} (by its attributes)")
        else:
            parts.append(str(kind))
    return ", ".join(parts)


def register_capture_flattening(manifest: Dict[str, Any]) -> Dict[str, str]:
    """Makes the flattening a capture recorded active in this process.

    For each entry of ``manifest["flattening"]``: finds the class among those this
    process has loaded (`resolve_type`: nothing is imported because a capture names
    it); registers it with torch.utils._pytree when it is not registered yet:
    transformers' own registration for DynamicCache when transformers has one, else
    dimscope's flavour; a ``dynamic_layers`` DynamicCache always gets dimscope's
    layer-aware registration with the capture's layer kinds (replacing transformers',
    which rebuilds every layer as a full layer), a ``static_layers`` cache always gets
    dimscope's static-cache registration (module staticcache), a ``cache_attributes`` one
    dimscope's attribute registration (module cacheattributes), and a ``key_value_dict`` one gets
    transformers' back when dimscope's layer-aware one is active. ``pytree`` classes
    must already be registered (importing their module, e.g. loading the model, does
    it). Returns ``{type name: what was done}``; raises CaptureError when a class is
    unknown here or cannot be registered."""
    actions: Dict[str, str] = {}
    for type_name, flavour in (manifest.get("flattening") or {}).items():
        where = f"flattening[{type_name!r}]"
        if flavour == PYTREE:
            cls = resolve_type(type_name, PYTREE, where)
            _ensure_flatten_with_keys(cls)
            _ensure_fx_flatten_spec(cls)
            actions[type_name] = "already registered"
            continue
        if flavour == DYNAMIC_LAYERS:
            cls = resolve_type(type_name, flavour, where)
            layouts = _capture_layouts(manifest, type_name)
            if len(layouts) != 1:
                raise CaptureError(
                    f"{where}: the capture's {type_name} nodes record "
                    + ("no layer kinds" if not layouts else
                       "different layer kinds (" + "; ".join(layers_text(l) for l in layouts) + ")"))
            done = register_dynamic_layers(cls, layouts[0])
            actions[type_name] = f"{done} by dimscope (layers: {layers_text(layouts[0])})"
            continue
        if flavour == STATIC_LAYERS:
            cls = resolve_type(type_name, flavour, where)
            actions[type_name] = register_static_layers(cls) + " by dimscope"
            continue
        if flavour == CACHE_ATTRIBUTES:
            cls = resolve_type(type_name, flavour, where)
            actions[type_name] = register_cache_attributes(cls) + " by dimscope"
            continue
        cls = loaded_object(type_name)
        if not isinstance(cls, type) or qualified_name(cls) != type_name:
            resolve_type(type_name, flavour, where)  # raises the error that says why
        if is_registered(cls) and registration_module(cls) == "dimscope.cachelayers":
            # A previous capture's layer-aware registration: not this capture's flattening.
            _deregister(cls)
        if is_registered(cls):
            resolve_type(type_name, flavour, where)
            if flavour == KEY_VALUE_DICT and cls not in _KEY_VALUE_CLASSES and type_name != DYNAMIC_CACHE:
                _KEY_VALUE_CLASSES[cls] = None
            _ensure_fx_flatten_spec(cls)
            actions[type_name] = "already registered"
            continue
        if flavour == KEY_VALUE_DICT:
            if _register_transformers_dynamic_cache(cls):
                actions[type_name] = "registered by transformers"
                continue
            resolve_type(type_name, flavour, where)
            register_key_value_cache(cls)
        elif flavour == ENCODER_DECODER:
            resolve_type(type_name, flavour, where)
            register_encoder_decoder_cache(cls)
        elif flavour == STATIC_KEY_VALUE_DICT:
            raise CaptureError(
                f"{type_name} is not registered with torch.utils._pytree; a StaticCache can "
                f"only be rebuilt by transformers' own registration (transformers >= 4.50)")
        else:
            raise CaptureError(f"{where}: unknown flattening flavour {flavour!r}")
        actions[type_name] = "registered"
    return actions


def registration_report(manifest: Dict[str, Any]) -> List[str]:
    """Lines comparing the registrations the capture recorded (manifest
    ``pytree_registrations``) with the ones active now, for the classes whose
    registration differs from the one active when the capture was recorded."""
    lines = []
    for type_name, entry in sorted((manifest.get("pytree_registrations") or {}).items()):
        if not isinstance(entry, dict):
            continue
        cls = loaded_object(type_name)
        now = registration_module(cls) if isinstance(cls, type) else None
        recording = entry.get("recording")
        if recording is not None and now != recording:
            lines.append(f"{type_name}: registered by {recording} when the capture was recorded, "
                         f"by {now or 'nothing'} here (the capture's flattening follows "
                         f"{entry.get('follows')}'s)")
    return lines

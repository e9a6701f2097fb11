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
``static_key_value_dict``
    StaticCache, same children.
``encoder_decoder``
    EncoderDecoderCache: children ``[self_attention_cache, cross_attention_cache]``.
``pytree``
    any other class registered with ``torch.utils._pytree``: its own flatten function.

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

KEY_VALUE_DICT = "key_value_dict"
STATIC_KEY_VALUE_DICT = "static_key_value_dict"
ENCODER_DECODER = "encoder_decoder"
PYTREE = "pytree"

KEY_VALUE_CONTEXT = ["key_cache", "value_cache"]
ENCODER_DECODER_CONTEXT = ["self_attention_cache", "cross_attention_cache"]

DYNAMIC_CACHE = "transformers.cache_utils.DynamicCache"
STATIC_CACHE = "transformers.cache_utils.StaticCache"
ENCODER_DECODER_CACHE = "transformers.cache_utils.EncoderDecoderCache"

_TRANSFORMERS_FLAVOURS = {
    DYNAMIC_CACHE: KEY_VALUE_DICT,
    STATIC_CACHE: STATIC_KEY_VALUE_DICT,
    ENCODER_DECODER_CACHE: ENCODER_DECODER,
}

# Containers torch registers itself; captures record them as dict/list/tuple nodes.
_BUILTIN_CONTAINERS = (dict, list, tuple, collections.OrderedDict, collections.defaultdict)

# Classes registered through register_key_value_cache(): flattened as key_value_dict.
_KEY_VALUE_CLASSES: Dict[type, None] = {}
# Classes registered through register_encoder_decoder_cache().
_ENCODER_DECODER_CLASSES: Dict[type, None] = {}


class CaptureError(ValueError):
    """A value cannot be captured, or a capture cannot be read or rebuilt."""


def qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


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
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
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
    elif flavour in (KEY_VALUE_DICT, STATIC_KEY_VALUE_DICT):
        ok = obj in _KEY_VALUE_CLASSES or _is_transformers_cache(obj) or obj in _pytree.SUPPORTED_NODES
    elif flavour == ENCODER_DECODER:
        ok = obj in _ENCODER_DECODER_CLASSES or _is_transformers_cache(obj) or obj in _pytree.SUPPORTED_NODES
    else:
        ok = obj in _pytree.SUPPORTED_NODES
    if not ok:
        raise CaptureError(f"{prefix}{name} is not a {flavour or 'pytree'} class dimscope may build "
                           f"(it must be registered with torch.utils._pytree or be a transformers cache)")
    return obj


# ---------------------------------------------------------------------------- describe


class CustomParts:
    """How one custom-class instance flattens: its flavour, child keys, context, children."""

    __slots__ = ("type_name", "flavour", "keys", "context", "children")

    def __init__(self, type_name: str, flavour: str, keys: List[str], context: Any,
                 children: List[Any]) -> None:
        self.type_name = type_name
        self.flavour = flavour
        self.keys = keys
        self.context = context
        self.children = children


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


def _flavour_of(value: Any) -> Optional[str]:
    cls = type(value)
    flavour = _TRANSFORMERS_FLAVOURS.get(qualified_name(cls))
    if flavour is not None:
        return flavour
    if cls in _KEY_VALUE_CLASSES:
        return KEY_VALUE_DICT
    if cls in _BUILTIN_CONTAINERS:
        return None
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
    if flavour in (KEY_VALUE_DICT, STATIC_KEY_VALUE_DICT):
        keys, values = key_value_lists(value)
        return CustomParts(type_name, flavour, list(KEY_VALUE_CONTEXT), list(KEY_VALUE_CONTEXT),
                           [keys, values])
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
        children, context = node.flatten_fn(value)
        children = list(children)
        keys = [str(i) for i in range(len(children))]
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
                   where: str = "") -> Any:
    """Rebuilds a custom-class instance from its flattened children. Only classes
    `resolve_type` accepts are built (``where``, the node's key path, names the place
    in errors)."""
    if factories and type_name in factories:
        return factories[type_name](children, context)
    cls = resolve_type(type_name, flavour, where)
    if flavour == KEY_VALUE_DICT:
        return build_key_value_cache(cls, children[0], children[1])
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
        names = context if isinstance(context, (list, tuple)) and len(context) == len(children) and \
            all(isinstance(k, str) for k in context) else None
        keys = [mapping_key(n) for n in names] if names else [sequence_key(i) for i in range(len(children))]
        return list(zip(keys, children)), context

    _pytree.SUPPORTED_NODES[cls] = node._replace(flatten_with_keys_fn=flatten_with_keys)


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


def register_capture_flattening(manifest: Dict[str, Any]) -> Dict[str, str]:
    """Makes the flattening a capture recorded active in this process.

    For each entry of ``manifest["flattening"]``: finds the class among those this
    process has loaded (`resolve_type`: nothing is imported because a capture names
    it); registers it with torch.utils._pytree when it is not registered yet:
    transformers' own registration for DynamicCache when transformers has one, else
    dimscope's flavour. ``pytree`` classes must already be registered (importing
    their module, e.g. loading the model, does it). Returns ``{type name:
    "registered" | "registered by transformers" | "already registered"}``; raises
    CaptureError when a class is unknown here or cannot be registered."""
    actions: Dict[str, str] = {}
    for type_name, flavour in (manifest.get("flattening") or {}).items():
        where = f"flattening[{type_name!r}]"
        if flavour == PYTREE:
            cls = resolve_type(type_name, PYTREE, where)
            _ensure_flatten_with_keys(cls)
            _ensure_fx_flatten_spec(cls)
            actions[type_name] = "already registered"
            continue
        cls = loaded_object(type_name)
        if not isinstance(cls, type) or qualified_name(cls) != type_name:
            resolve_type(type_name, flavour, where)  # raises the error that says why
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

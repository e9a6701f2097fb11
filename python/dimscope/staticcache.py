# SPDX-License-Identifier: GPL-3.0-or-later
"""Static key/value caches: transformers 5.x ``StaticCache`` (``StaticLayer`` and
``StaticSlidingWindowLayer`` layers, what ``generate(cache_implementation="static")``
builds) and the attribute-based static caches of transformers 4.4x (``StaticCache``,
``HybridCache``, ``SlidingWindowCache``: ``key_cache``/``value_cache`` lists of
preallocated tensors, ``is_sliding``), all recorded with the ``static_layers`` flavour
(docs/capture-format.md).

A static cache holds tensors of a fixed length (``max_cache_len``, the window for a
sliding layer) that the model writes into in place; the number of tokens a layer has
seen is not in their shape. transformers 5.x keeps it per layer (``cumulative_length``,
a one-element tensor; a sliding layer also as a Python int, which its ``update`` branches
on), so it travels as a third child, ``cumulative_length``: one 0-d int64 tensor per
layer, an input of the exported program like the keys (0-d: it has no dim that
dimscope could take for the batch dim 0 of a transformers model's inputs). transformers 4.4x
caches take the positions from the model's ``cache_position`` input and have no such
child.

No class is imported or called because a capture names it: the cache class must be a
cache class of the loaded transformers (`caches.resolve_type`), and its layers are
built from the classes of that class's own, already loaded module, chosen among the two
kinds this module knows. The model config is not needed: a layer's length is its
tensors' length.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from .typenames import qualified_name
from .exceptions import CaptureError

STATIC = "static"
STATIC_SLIDING = "static_sliding"

KEY_NAMES = ["key_cache", "value_cache"]
SEEN_NAME = "cumulative_length"

# transformers 5.x layer classes, by name in transformers.cache_utils.
_LAYER_CLASSES = {"StaticLayer": STATIC, "StaticSlidingWindowLayer": STATIC_SLIDING}
_CLASS_OF_KIND = {kind: name for name, kind in _LAYER_CLASSES.items()}


def _layer_kind(layer: Any) -> str:
    kind = getattr(type(layer), "_dimscope_kind", None)  # dimscope's export stand-in
    if kind is not None:
        return kind
    for cls in type(layer).__mro__:
        if cls.__module__ == "transformers.cache_utils" and cls.__name__ in _LAYER_CLASSES:
            return _LAYER_CLASSES[cls.__name__]
    raise CaptureError(f"{qualified_name(type(layer))} is not a static cache layer dimscope can record "
                       f"(StaticLayer, StaticSlidingWindowLayer)")


def is_layer_based(cache: Any) -> bool:
    return isinstance(getattr(cache, "layers", None), (list, tuple))


def layer_kinds(cache: Any) -> List[str]:
    """One kind per layer: ``static`` or ``static_sliding``."""
    if is_layer_based(cache):
        return [_layer_kind(layer) for layer in cache.layers]
    sliding = getattr(cache, "is_sliding", None)
    count = len(getattr(cache, "key_cache", []) or [])
    if sliding is None:
        return [STATIC] * count
    return [STATIC_SLIDING if bool(s) else STATIC for s in list(sliding)[:count] or sliding]


def _seen_tensor(layer: Any) -> torch.Tensor:
    """The tokens a layer has seen, as a 0-d int64 tensor. transformers' sliding
    layer keeps the exact count in ``cumulative_length_int`` only (its tensor stops
    counting once the window is full); a stand-in being traced keeps it in its tensor."""
    exact = getattr(layer, "cumulative_length_int", None)
    if isinstance(exact, int) and not getattr(type(layer), "_dimscope_kind", None):
        return torch.tensor(exact, dtype=torch.int64)
    value = getattr(layer, "cumulative_length", None)
    if isinstance(value, torch.Tensor):
        return getattr(layer, "_dimscope_seen", None) if _is_view_of_seen(layer, value) else value.reshape(())
    return torch.tensor(int(value or 0), dtype=torch.int64)


def _is_view_of_seen(layer: Any, value: torch.Tensor) -> bool:
    # A rebuilt layer counts in a [1] view of its recorded 0-d tensor: flattening it
    # again gives that tensor itself (torch.export matches outputs to mutated inputs).
    return getattr(layer, "_dimscope_seen", None) is not None and value is getattr(layer, "_dimscope_view", None)


def child_names(cache: Any) -> List[str]:
    return KEY_NAMES + [SEEN_NAME] if is_layer_based(cache) else list(KEY_NAMES)


def flatten(cache: Any) -> Tuple[List[List[torch.Tensor]], Dict[str, Any]]:
    """(children, context). Layers that hold no tensors yet (generate()'s first call
    passes a cache it has not filled) give no children; the recorder records them once
    the call has filled them (`empty_children`)."""
    names = child_names(cache)
    kinds = layer_kinds(cache)
    if is_layer_based(cache):
        keys, values, seen = [], [], []
        for layer in cache.layers:
            if getattr(layer, "keys", None) is None or not getattr(layer, "is_initialized", True):
                continue
            keys.append(layer.keys)
            values.append(layer.values)
            seen.append(_seen_tensor(layer))
        children = [keys, values, seen]
    else:
        children = [list(cache.key_cache), list(cache.value_cache)]
    return children, {"children": names, "layers": kinds}


def empty_children(cache: Any) -> List[List[torch.Tensor]]:
    """What an unfilled cache is, once the call has filled ``cache``: zero tensors of the
    layers' lengths and no token seen. A layer rebuilt from those behaves as one not
    filled yet (transformers fills a new layer with zeros), and every call of a capture
    then has the same structure."""
    children, _ = flatten(cache)
    out = [[torch.zeros_like(t) for t in group] for group in children[:2]]
    if len(children) > 2:
        out.append([torch.zeros((), dtype=torch.int64) for _ in children[2]])
    return out


def _check_context(context: Any, children: Sequence[Any], where: str) -> Tuple[List[str], List[str]]:
    prefix = f"{where}: " if where else ""
    if not isinstance(context, dict) or not isinstance(context.get("children"), list) or \
            not isinstance(context.get("layers"), list):
        raise CaptureError(f"{prefix}a static_layers node needs a context with 'children' and 'layers'")
    names, kinds = context["children"], context["layers"]
    if names not in (KEY_NAMES, KEY_NAMES + [SEEN_NAME]) or len(children) != len(names):
        raise CaptureError(f"{prefix}static cache children {names!r} for {len(children)} children")
    bad = [k for k in kinds if k not in (STATIC, STATIC_SLIDING)]
    if bad:
        raise CaptureError(f"{prefix}unknown static cache layer kind {bad[0]!r}")
    counts = {len(group) for group in children}
    if counts != {len(kinds)}:
        raise CaptureError(f"{prefix}{sorted(counts)} tensors per child for {len(kinds)} layers")
    return names, kinds


def rebuild(cache_cls: type, children: Sequence[Any], context: Any, where: str = "",
            export: bool = False) -> Any:
    """A ``cache_cls`` instance holding ``children`` (the recorded tensors are the
    cache's tensors: the model writes into them in place, as into the original's).
    ``export``: dimscope's stand-in for transformers' sliding layer (see
    `export_sliding_layer_class`), for tracing."""
    names, kinds = _check_context(context, children, where)
    children = [list(group) for group in children]
    if SEEN_NAME in names:
        return _rebuild_layers(cache_cls, children, kinds, where, export)
    return _rebuild_attribute_based(cache_cls, children, kinds)


def _layer_class(cache_cls: type, kind: str, where: str) -> type:
    module = sys.modules.get(cache_cls.__module__)
    cls = getattr(module, _CLASS_OF_KIND[kind], None)
    if not isinstance(cls, type):
        raise CaptureError(f"{where}: {cache_cls.__module__} has no {_CLASS_OF_KIND[kind]} class "
                           f"for a {kind!r} cache layer")
    return cls


def _fill_layer(layer: Any, keys: torch.Tensor, values: torch.Tensor, seen: torch.Tensor) -> None:
    # What StaticLayer.lazy_initialization sets, with the recorded tensors in place of
    # its zeros (it would also mark them as static addresses, which tracing refuses).
    layer.dtype, layer.device = keys.dtype, keys.device
    layer.max_batch_size, layer.num_heads = keys.shape[0], keys.shape[1]
    layer.k_head_dim, layer.v_head_dim = keys.shape[-1], values.shape[-1]
    layer.keys, layer.values = keys, values
    # transformers counts in a [1] tensor, updated in place: a view of the recorded
    # 0-d tensor, so that the update reaches the cache's flattened child.
    layer._dimscope_seen, layer._dimscope_view = seen, seen.view(1)
    layer.cumulative_length = layer._dimscope_view
    layer.is_initialized = True


def _rebuild_layers(cache_cls: type, children: List[List[Any]], kinds: List[str], where: str,
                    export: bool) -> Any:
    keys, values, seen = children
    layers = []
    for kind, k, v, s in zip(kinds, keys, values, seen):
        length = k.shape[-2]  # symbolic while tracing: int() would specialize it
        base = _layer_class(cache_cls, kind, where)
        if kind == STATIC_SLIDING:
            cls = export_sliding_layer_class(base) if export else base
            # The recorded length is already min(window, max_cache_len).
            layer = cls(max_cache_len=length, sliding_window=length)
        else:
            layer = base(max_cache_len=length)
        _fill_layer(layer, k, v, s)
        if kind == STATIC_SLIDING and not export:
            layer.cumulative_length_int = int(s)
        layers.append(layer)
    # StaticCache's own __init__ derives the layers from a model config; the layers are
    # known here, so the cache is made with its base class's __init__ (transformers'
    # Cache, which takes them).
    cache = cache_cls.__new__(cache_cls)
    super(cache_cls, cache).__init__(layers=layers)
    return cache


def _rebuild_attribute_based(cache_cls: type, children: List[List[Any]], kinds: List[str]) -> Any:
    # transformers 4.4x: the cache is its lists plus what its methods read from them.
    keys, values = children
    cache = cache_cls.__new__(cache_cls)
    try:
        super(cache_cls, cache).__init__()
    except TypeError:
        pass
    cache.key_cache, cache.value_cache = keys, values
    cache.is_sliding = [k == STATIC_SLIDING for k in kinds]
    if keys:
        cache.max_cache_len = max(int(k.shape[-2]) for k in keys)
        cache.max_batch_size = cache.batch_size = int(keys[0].shape[0])
        cache.dtype = keys[0].dtype
    return cache


# ---------------------------------------------------------------------------- export stand-in

_EXPORT_CLASSES: Dict[type, type] = {}


def export_sliding_layer_class(base: type) -> type:
    """dimscope's export stand-in for transformers' ``StaticSlidingWindowLayer``.

    transformers' layer branches on its Python int count of tokens seen (window full or
    not: roll the window, or write at the count), so a traced program would take the
    branch of its example call for every call. The stand-in keeps the count in its
    ``cumulative_length`` tensor (an input of the program) and computes, without a
    branch, the window transformers returns whenever that window has the layer's length
    (one new token; or several with ``seen + new <= window``): slot ``i`` of the result
    holds token ``i + max(seen + new - W, 0)``: a kept token, a new one, or (not yet
    written) the slot's zeros. A call with several new tokens that overflow the window
    (transformers then returns more than the window) fails the program's runtime check
    instead of giving other values."""
    cls = _EXPORT_CLASSES.get(base)
    if cls is not None:
        return cls

    def update(self, key_states, value_states, *args, **kwargs):
        width = self.max_cache_len
        new = key_states.shape[-2]
        seen = self.cumulative_length
        # A runtime check of the program, not a Python branch (it would become a guard on
        # the number of new tokens, or take the example call's side): the count is a
        # tensor value.
        one_token = torch.full_like(seen, new) == 1
        torch._assert_async(((seen + new <= width) | one_token).all(),
                            "dimscope: a static sliding-window layer given several tokens past its window")
        slot = torch.arange(width, device=key_states.device)
        token = slot + (seen + new - width).clamp(min=0)
        stored_from = (seen - width).clamp(min=0)  # the token in slot 0 before this call
        kept = token < seen
        written = (token >= seen) & (token < seen + new)
        index = torch.where(kept, token - stored_from, torch.where(written, width + token - seen, slot))
        index = index.clamp(0, width + new - 1)
        keys = torch.cat([self.keys, key_states], dim=-2).index_select(-2, index)
        values = torch.cat([self.values, value_states], dim=-2).index_select(-2, index)
        # In place, as transformers does: the cache's tensors are the program's inputs.
        self.keys.copy_(keys)
        self.values.copy_(values)
        self.cumulative_length.add_(new)
        return self.keys, self.values

    def get_seq_length(self):
        return self.cumulative_length

    def get_mask_sizes(self, query_length):
        raise CaptureError("dimscope's export stand-in for StaticSlidingWindowLayer has no mask sizes: the "
                           "calls must pass the 4D attention masks generate() passes with a static cache")

    body = {"update": update, "get_seq_length": get_seq_length, "get_mask_sizes": get_mask_sizes,
            "_dimscope_kind": STATIC_SLIDING, "__module__": __name__,
            "__qualname__": "ExportStaticSlidingWindowLayer", "__doc__": export_sliding_layer_class.__doc__}
    cls = type("ExportStaticSlidingWindowLayer", (base,), body)
    _EXPORT_CLASSES[base] = cls
    return cls


# ---------------------------------------------------------------------------- registration


def make_registration(cls: type):
    """(flatten, unflatten, flatten_with_keys) for dimscope's registration of a static
    cache class. The layer kinds travel in the pytree context, so a ``.pt2`` carries
    what its unflatten needs."""
    import torch.utils._pytree as pytree

    def unflatten(children: Any, context: Any) -> Any:
        return rebuild(cls, list(children), context, qualified_name(cls), export=True)

    def flatten_with_keys(cache: Any):
        children, context = flatten(cache)
        return [(pytree.MappingKey(n), c) for n, c in zip(context["children"], children)], context

    return flatten, unflatten, flatten_with_keys

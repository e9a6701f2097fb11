# SPDX-License-Identifier: GPL-3.0-or-later
"""Layer-based DynamicCaches whose layers are not all full-attention layers
(transformers 5.x): sliding-window layers (Gemma2, Mistral) and linear-attention layers
(the convolution and recurrent states of a state-space model such as Mamba).

transformers' own pytree registration of ``DynamicCache`` (its executorch integration)
flattens the keys and values of every layer and rebuilds every layer as a full
``DynamicLayer``: a sliding-window layer loses its window and the number of tokens it
has seen, and a linear-attention layer cannot be flattened at all. Captures of such
caches use the ``dynamic_layers`` flavour (docs/capture-format.md): their nodes record
each layer's kind, and the worker registers dimscope's own ``DynamicCache`` flattening,
which rebuilds the same kinds of layers.

Children, by the kinds of layers the cache has (context: the child names):

``key_cache``, ``value_cache``
    one tensor per full-attention or sliding-window layer that holds keys, in layer
    order (exactly what transformers' registration gives, so leaf paths such as
    ``past_key_values.key_cache[0]`` and the ``.pt2``'s input spec are the same);
``conv_states``, ``recurrent_states``
    one tensor per linear-attention layer that holds states (only when the cache has
    linear-attention layers);
``tokens_seen``
    one uint8 tensor per sliding-window layer that holds keys, whose length is the
    number of tokens the layer has seen (its ``cumulative_length``; the values are
    zeros), only in a cache without a full-attention layer (Mistral), whose layers'
    descriptors say ``"tokens_seen": true``. Its size is the count, so an exported
    program takes it as a symbolic size: the mask's offset past the window is an input
    of the program instead of a constant the rebuild had to guess.

A cache passed without states (generate()'s first call) is recorded, like an empty
key/value cache, with zero-size tensors: keys and values with their sequence dim at 0,
convolution and recurrent states with their last dim at 0 (a linear-attention layer
rebuilt from those has no state yet), so that every call has the same structure.

Layer kinds recorded in a node's ``layers`` (one entry per layer):
``{"type": "full"}``, ``{"type": "sliding", "sliding_window": W, "seen": N}``
(``seen``: the tokens the layer had seen when the call was recorded, for checking the
rebuild; ``"tokens_seen": true`` where the count is a ``tokens_seen`` child),
``{"type": "linear"}``, ``{"type": "hybrid"}`` (transformers'
``LinearAttentionAndFullAttentionLayer``: Zamba2, Falcon-H1; its keys and values are in
``key_cache``/``value_cache`` and its states in ``conv_states``/``recurrent_states``, each
in layer order among the layers holding such tensors), ``{"type": "indexed"}``
(transformers' ``DynamicIndexedLayer``: GLM-MoE-DSA's sparse attention; its keys and
values as a full layer's, its indexer's keys in an ``indexer_keys`` child, one 3-d tensor
per such layer), and ``{"type": "other", "class": NAME}`` for layer classes dimscope
does not rebuild.

A sliding-window layer keeps only its last ``W - 1`` tokens, so the number of tokens it
has seen (its ``cumulative_length``, which sets the mask's offset into the 2D attention
mask) is not in its keys and values. It is restored from its ``tokens_seen`` child where
the cache has one; else as the length of the cache's first full-attention layer (every
layer sees the same tokens); in a cache recorded without either (all layers sliding,
captures before ``tokens_seen``) as the layer's own length, which is exact until the
layer has seen ``W - 1`` tokens (``Capture.inexact`` lists where it is not).

Programs are traced with two stand-ins for transformers' attention layers that compute
the same values without Python branches on sizes (see `export_layer_class`).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from . import layerattributes
from .typenames import qualified_name
from .exceptions import CaptureError

FULL = "full"
SLIDING = "sliding"
LINEAR = "linear"
HYBRID = "hybrid"  # both: keys and values, and linear-attention states (Zamba2, Falcon-H1)
INDEXED = "indexed"  # a full layer with a sparse-attention indexer's keys (GLM-MoE-DSA)
ATTRIBUTES = layerattributes.ATTRIBUTES  # another transformers layer class, by its attributes (DeepSeek-V4)
OTHER = "other"
# The kinds whose layers hold keys and values, and those that hold states.
ATTENTION_KINDS = (FULL, SLIDING, HYBRID, INDEXED)
STATE_KINDS = (LINEAR, HYBRID)

KEY_NAMES = ("key_cache", "value_cache")
STATE_NAMES = ("conv_states", "recurrent_states")
SEEN_NAME = "tokens_seen"
INDEXER_NAME = "indexer_keys"
ATTRIBUTES_NAME = "layer_attributes"
SEEN_FLAG = "tokens_seen"  # a sliding layer's descriptor: its count is a tokens_seen child
NO_KEYS = "no_keys"  # an attention layer's descriptor: the layer holds no keys (never updated)

# transformers' layer classes, by the name they have in transformers.cache_utils.
_LAYER_CLASSES = {"DynamicLayer": FULL, "DynamicSlidingWindowLayer": SLIDING,
                  "LinearAttentionLayer": LINEAR, "LinearAttentionAndFullAttentionLayer": HYBRID,
                  "DynamicIndexedLayer": INDEXED}
_CLASS_OF_KIND = {kind: name for name, kind in _LAYER_CLASSES.items()}


def _kind_of(layer: Any) -> str:
    kind = getattr(type(layer), "_dimscope_kind", None)  # dimscope's export layers
    if kind is not None:
        return kind
    cls = type(layer)
    if cls.__name__ in _LAYER_CLASSES and cls.__module__ == "transformers.cache_utils":
        return _LAYER_CLASSES[cls.__name__]
    recordable = layerattributes.is_attribute_layer(cls) and layerattributes.unrecordable(layer) is None
    return ATTRIBUTES if recordable else OTHER


def describe_layers(cache: Any, seen: bool = True) -> Optional[List[Dict[str, Any]]]:
    """One descriptor per layer of a layer-based cache (None for other caches).
    ``seen``: include the tokens a sliding-window layer has seen (not while tracing: it
    is a symbolic size there)."""
    layers = getattr(cache, "layers", None)
    if not isinstance(layers, (list, tuple)):
        return None
    out: List[Dict[str, Any]] = []
    # Without a full-attention layer nothing else holds the count: it becomes a child.
    kinds = [_kind_of(layer) for layer in layers]
    carried = FULL not in kinds
    # Where some attention layers hold keys and others none (RecurrentGemma: its cache has
    # a layer for each block, and only the attention blocks update theirs), the empty
    # ones say so: they are rebuilt empty, and the keys go to the others.
    keyed = [_holds_keys(layer) for layer in layers]
    partly = any(keyed) and not all(k for k, kind in zip(keyed, kinds) if kind in ATTENTION_KINDS)
    for layer, kind, holds in zip(layers, kinds, keyed):
        if kind == SLIDING:
            d = {"type": SLIDING, "sliding_window": int(layer.sliding_window)}
            if carried:
                d[SEEN_FLAG] = True
            if seen:
                d["seen"] = int(getattr(layer, "cumulative_length", 0) or 0)
            out.append(d)
        elif kind in (OTHER, ATTRIBUTES):
            out.append({"type": kind, "class": qualified_name(type(layer))})
            if kind == OTHER and layerattributes.is_attribute_layer(type(layer)):
                out[-1]["why"] = layerattributes.unrecordable(layer)  # for the message that refuses it
        else:
            out.append({"type": kind})
        if partly and kind in ATTENTION_KINDS and not holds:
            out[-1][NO_KEYS] = True
    return out


def _holds_keys(layer: Any) -> bool:
    """Whether an attention layer holds keys (a layer transformers initialized but never
    updated holds a 1-D empty tensor)."""
    keys = getattr(layer, "keys", None)
    return isinstance(keys, torch.Tensor) and keys.dim() >= 2


def is_layered(layers: Optional[Sequence[Dict[str, Any]]]) -> bool:
    """Whether a cache with these layers needs the ``dynamic_layers`` flattening: it has
    a layer that is not a full-attention layer."""
    return bool(layers) and any(d.get("type") != FULL for d in layers)


def layout_of(layers: Sequence[Dict[str, Any]]) -> List[Tuple[str, Optional[int], bool]]:
    """The kinds (and windows, and the classes of ``attributes`` layers) of the layers,
    without what changes from call to call."""
    return [(d.get("type"), d.get("sliding_window"), bool(d.get(SEEN_FLAG)),
             d.get("class") if d.get("type") == ATTRIBUTES else None, bool(d.get(NO_KEYS))) for d in layers]


def carries_seen(layers: Sequence[Dict[str, Any]]) -> bool:
    """Whether the cache flattens its sliding layers' tokens seen (``tokens_seen``)."""
    return any(d.get("type") == SLIDING and d.get(SEEN_FLAG) for d in layers)


def child_names(layers: Sequence[Dict[str, Any]]) -> List[str]:
    kinds = {d.get("type") for d in layers}
    names: List[str] = []
    if kinds & set(ATTENTION_KINDS) or not kinds & set(STATE_KINDS + (ATTRIBUTES,)):
        names.extend(KEY_NAMES)
    if kinds & set(STATE_KINDS):
        names.extend(STATE_NAMES)
    if carries_seen(layers):
        names.append(SEEN_NAME)
    if INDEXED in kinds:
        names.append(INDEXER_NAME)
    if ATTRIBUTES in kinds:
        names.append(ATTRIBUTES_NAME)
    return names


def _seen_tensor(layer: Any, like: torch.Tensor) -> torch.Tensor:
    """The layer's tokens seen as a tensor of that length. The same object while the count
    is unchanged: torch.export attaches a spec to the tensors one flattening gives and
    fakes those another gives, so a new tensor per flattening would stay static."""
    seen = layer.cumulative_length
    held = getattr(layer, "_dimscope_tokens_seen", None)
    if isinstance(held, torch.Tensor) and held.shape[0] is seen:
        return held
    if isinstance(held, torch.Tensor) and not isinstance(seen, torch.SymInt) and held.shape[0] == seen:
        return held
    held = torch.zeros(seen, dtype=torch.uint8, device=like.device)  # a SymInt stays symbolic
    layer._dimscope_tokens_seen = held
    return held


def _set(layer: Any, attr: str) -> Optional[torch.Tensor]:
    value = getattr(layer, attr, None)
    if isinstance(value, dict):
        # transformers >= 5.17: a linear-attention layer keeps its states per state
        # index ({0: tensor}); dimscope records layers with one state.
        held = {k: v for k, v in value.items() if v is not None}
        if len(held) > 1:
            raise CaptureError(f"a {type(layer).__name__} cache layer keeps {len(held)} {attr}; dimscope "
                               f"records linear-attention layers with one state")
        value = next(iter(held.values()), None)
    return value if isinstance(value, torch.Tensor) else None


def _set_state(layer: Any, attr: str, value: Any) -> None:
    """Sets a linear-attention layer's attribute, in state 0 where the layer keeps one
    value per state (transformers >= 5.17), else the attribute itself."""
    current = getattr(layer, attr, None)
    if isinstance(current, dict):
        current[0] = value
    else:
        setattr(layer, attr, value)


def flatten_layers(cache: Any, layers: Optional[Sequence[Dict[str, Any]]] = None
                   ) -> Tuple[List[List[torch.Tensor]], List[str]]:
    """(children, names): the tensors of the layers that hold some, grouped as the
    module docstring says."""
    if layers is None:
        layers = describe_layers(cache, seen=False) or []
    names = child_names(layers)
    groups: Dict[str, List[torch.Tensor]] = {n: [] for n in names}
    for i, (layer, d) in enumerate(zip(cache.layers, layers)):
        if d["type"] == ATTRIBUTES and ATTRIBUTES_NAME in groups:
            groups[ATTRIBUTES_NAME].append(layerattributes.describe(layer, f"layer {i}"))
        if d["type"] in STATE_KINDS:
            for name, attr in zip(STATE_NAMES, ("conv_states", "recurrent_states")):
                value = _set(layer, attr)
                if value is not None and name in groups:
                    groups[name].append(value)
        if d["type"] in ATTENTION_KINDS:
            for name, attr in zip(KEY_NAMES, ("keys", "values")):
                value = _set(layer, attr)
                # a layer initialized by transformers but never updated holds a 1-D empty tensor
                if value is not None and value.dim() >= 2 and name in groups:
                    groups[name].append(value)
            indexer = _set(layer, "indexer_keys") if d["type"] == INDEXED else None
            if indexer is not None and indexer.dim() >= 2 and INDEXER_NAME in groups:
                groups[INDEXER_NAME].append(indexer)
            keys = _set(layer, "keys")
            if d["type"] == SLIDING and d.get(SEEN_FLAG) and SEEN_NAME in groups and \
                    keys is not None and keys.dim() >= 2:
                groups[SEEN_NAME].append(_seen_tensor(layer, keys))
    return [groups[n] for n in names], names


# ---------------------------------------------------------------------------- rebuild


def _layer_class(cache_cls: type, kind: str, where: str) -> type:
    """transformers' class for a layer kind, from the module of the cache class (loaded
    by the model; nothing is imported here)."""
    module = sys.modules.get(cache_cls.__module__)
    cls = getattr(module, _CLASS_OF_KIND.get(kind, ""), None)
    if not isinstance(cls, type):
        raise CaptureError(f"{where}: {cache_cls.__module__} has no {_CLASS_OF_KIND.get(kind, kind)} "
                           f"class for a {kind!r} cache layer")
    return cls


class Restored:
    """What a rebuild had to infer: a sliding layer's tokens seen (cumulative_length)."""

    def __init__(self) -> None:
        self.notes: List[Tuple[int, int, int]] = []  # (layer, recorded seen, restored)


def build_layered_cache(cache_cls: type, names: Sequence[str], children: Sequence[Any],
                        layers: Sequence[Dict[str, Any]], where: str = "",
                        export: bool = False, restored: Optional[Restored] = None) -> Any:
    """A ``cache_cls()`` whose layers are of the recorded kinds, holding ``children``.

    ``export``: dimscope's export layers (`export_layer_class`) in place of
    transformers' attention layers (what the pytree registration builds for
    torch.export); otherwise transformers' own classes (the reference the exported
    program is compared with)."""
    prefix = f"{where}: " if where else ""
    if len(names) != len(children):
        raise CaptureError(f"{prefix}{len(children)} children for {len(names)} names {list(names)}")
    groups = {n: list(c) for n, c in zip(names, children)}
    for n in groups:
        if n not in KEY_NAMES + STATE_NAMES + (SEEN_NAME, INDEXER_NAME, ATTRIBUTES_NAME):
            raise CaptureError(f"{prefix}unknown cache child {n!r}")
    keys, values = groups.get("key_cache", []), groups.get("value_cache", [])
    conv, recurrent = groups.get("conv_states", []), groups.get("recurrent_states", [])
    for i, d in enumerate(layers):
        if d.get("type") not in ATTENTION_KINDS + STATE_KINDS + (ATTRIBUTES,):
            why = f" ({d['why']})" if isinstance(d.get("why"), str) else ""
            raise CaptureError(
                f"{prefix}layer {i} is a {d.get('class', d.get('type'))} cache layer{why}; dimscope rebuilds "
                f"full-attention, sliding-window, linear-attention, hybrid and indexed layers, and other "
                f"layer classes of transformers by their attributes")
    attention = [i for i, d in enumerate(layers) if d["type"] in ATTENTION_KINDS and not d.get(NO_KEYS)]
    linear = [i for i, d in enumerate(layers) if d["type"] in STATE_KINDS]
    if len(keys) != len(values) or len(keys) not in (0, len(attention)):
        raise CaptureError(f"{prefix}{len(keys)} key and {len(values)} value tensors for "
                           f"{len(attention)} attention layers")
    if len(conv) not in (0, len(linear)) or len(recurrent) not in (0, len(linear)):
        raise CaptureError(f"{prefix}{len(conv)} convolution and {len(recurrent)} recurrent states for "
                           f"{len(linear)} linear-attention layers")
    indexed = [i for i, d in enumerate(layers) if d["type"] == INDEXED]
    indexers = groups.get(INDEXER_NAME, [])
    if len(indexers) not in (0, len(indexed)):
        raise CaptureError(f"{prefix}{len(indexers)} indexer key tensors for {len(indexed)} indexed attention layers")
    indexer_slot = {i: n for n, i in enumerate(indexed)} if indexers else {}
    by_attributes = [i for i, d in enumerate(layers) if d["type"] == ATTRIBUTES]
    recorded = groups.get(ATTRIBUTES_NAME, [])
    if len(recorded) != len(by_attributes):
        raise CaptureError(f"{prefix}{len(recorded)} {ATTRIBUTES_NAME} entries for {len(by_attributes)} layers "
                           f"recorded by their attributes")
    attributes_slot = {i: n for n, i in enumerate(by_attributes)}
    counted = [i for i in attention if layers[i]["type"] == SLIDING and layers[i].get(SEEN_FLAG)]
    counts = groups.get(SEEN_NAME, [])
    if SEEN_NAME in groups and len(counts) != (len(counted) if keys else 0):
        raise CaptureError(f"{prefix}{len(counts)} tokens_seen tensors for {len(counted)} sliding-window layers "
                           f"that carry their count")
    if SEEN_NAME in groups and not all(isinstance(t, torch.Tensor) and t.dim() == 1 for t in counts):
        raise CaptureError(f"{prefix}tokens_seen: expected one 1-d tensor per sliding-window layer")
    count_slot = {i: n for n, i in enumerate(counted)} if counts else {}
    seen = None
    if keys:
        full = [n for n, i in enumerate(attention) if layers[i]["type"] == FULL]
        if full:
            seen = keys[full[0]].shape[-2]
    built: List[Any] = []
    slot = {i: n for n, i in enumerate(attention)}
    state_slot = {i: n for n, i in enumerate(linear)}
    for i, d in enumerate(layers):
        kind = d["type"]
        if kind == ATTRIBUTES:
            here = f"{prefix}{ATTRIBUTES_NAME}[{attributes_slot[i]}]"
            layer_cls = layerattributes.loaded_layer_class(d.get("class"), here)
            built.append(layerattributes.rebuild(layer_cls, recorded[attributes_slot[i]], here))
            continue
        base = _layer_class(cache_cls, kind, where)
        cls = export_layer_class(base, kind) if export and kind in ATTENTION_KINDS else base
        if kind == SLIDING:
            layer = cls(sliding_window=int(d["sliding_window"]))
        else:
            layer = cls()
        if kind in STATE_KINDS:
            n = state_slot[i]
            c = conv[n] if conv else None
            r = recurrent[n] if recurrent else None
            if c is not None and c.shape[-1] == 0:
                # Recorded empty (generate()'s first call): no state yet. The zero-size
                # tensors stay as placeholders, so that the cache flattens as recorded;
                # the layer is not initialized, and the model's first update replaces them.
                _set_state(layer, "conv_states", c)
                _set_state(layer, "recurrent_states", r)
                _set_state(layer, "has_previous_state", False)
            else:
                if c is not None:
                    layer.dtype, layer.device = c.dtype, c.device
                    layer.max_batch_size = c.shape[0]
                    _set_state(layer, "conv_kernel_size", c.shape[-1])
                    _set_state(layer, "conv_states", c)
                    _set_state(layer, "is_conv_states_initialized", True)
                if r is not None:
                    _set_state(layer, "recurrent_states", r)
                    _set_state(layer, "is_recurrent_states_initialized", True)
                # A recorded state is a state from a previous call.
                _set_state(layer, "has_previous_state", c is not None or r is not None)
        if kind in ATTENTION_KINDS and keys and i in slot:
            n = slot[i]
            k, v = keys[n], values[n]
            layer.lazy_initialization(k, v)
            layer.keys, layer.values = k, v
            if i in indexer_slot:
                layer.lazy_initialization_indexer(indexers[indexer_slot[i]])
                layer.indexer_keys = indexers[indexer_slot[i]]
            if kind == SLIDING and i in count_slot:
                counted_seen = counts[count_slot[i]]
                layer.cumulative_length = counted_seen.shape[0]
                layer._dimscope_tokens_seen = counted_seen
            elif kind == SLIDING:
                layer.cumulative_length = seen if seen is not None else k.shape[-2]
                if restored is not None and "seen" in d and not export and \
                        int(layer.cumulative_length) != int(d["seen"]):
                    restored.notes.append((i, int(d["seen"]), int(layer.cumulative_length)))
        built.append(layer)
    cache = cache_cls()
    cache.layers = built
    if hasattr(cache, "layer_class_to_replicate"):
        cache.layer_class_to_replicate = None
    return cache


# ---------------------------------------------------------------------------- export layers

_EXPORT_CLASSES: Dict[Tuple[type, str], type] = {}


def export_layer_class(base: type, kind: str) -> type:
    """dimscope's export stand-in for transformers' ``DynamicLayer`` or
    ``DynamicSlidingWindowLayer`` (a subclass; the model sees the same interface).

    For every state a sliding-window layer can be in (it stores ``min(seen, W - 1)``
    tokens), the stand-in returns the same tensors and mask sizes as transformers'
    layer, computed without a Python branch on a size, so that one traced program serves
    calls below and past the window:

    - ``get_mask_sizes``: ``kv_length = stored + query_length``, ``kv_offset = seen -
      stored`` (transformers: ``W - 1 + q`` and ``seen - W + 1`` once ``seen >= W``,
      else ``seen + q`` and 0; equal since ``stored = min(seen, W - 1)``);
    - ``update``: keeps the last ``min(total, W - 1)`` tokens with ``index_select``
      (transformers slices ``[-W + 1:]``, a guard on the total length when traced).

    Both stand-ins report ``is_compileable``: transformers' mask functions then build
    the mask without first comparing the 2D mask's length with ``kv_length`` to see if
    the mask can be skipped, a comparison that becomes a guard (``seen <= stored``, i.e.
    below the window) when traced; while tracing transformers never skips the mask, so
    the program is the same."""
    key = (base, kind)
    cls = _EXPORT_CLASSES.get(key)
    if cls is not None:
        return cls
    if kind == SLIDING:
        def update(self, key_states, value_states, *args, **kwargs):
            if not self.is_initialized:
                self.lazy_initialization(key_states, value_states)
            self.cumulative_length = self.cumulative_length + key_states.shape[-2]
            full_keys = torch.cat([self.keys, key_states], dim=-2)
            full_values = torch.cat([self.values, value_states], dim=-2)
            total = full_keys.shape[-2]
            kept = torch.sym_min(total, self.sliding_window - 1)
            index = torch.arange(kept, device=full_keys.device) + (total - kept)
            self.keys = full_keys.index_select(-2, index)
            self.values = full_values.index_select(-2, index)
            return full_keys, full_values

        def get_mask_sizes(self, query_length):
            keys = self.keys
            stored = keys.shape[-2] if self.is_initialized and keys is not None and keys.dim() >= 2 else 0
            return stored + query_length, self.cumulative_length - stored

        body = {"update": update, "get_mask_sizes": get_mask_sizes}
        name = "ExportSlidingWindowLayer"
    elif kind in (FULL, HYBRID, INDEXED):
        # A hybrid or indexed layer's attention part is transformers' DynamicLayer: the same stand-in.
        body = {}
        name = {FULL: "ExportDynamicLayer", HYBRID: "ExportHybridLayer", INDEXED: "ExportIndexedLayer"}[kind]
    else:
        raise CaptureError(f"no export stand-in for {kind!r} cache layers")
    body.update({"is_compileable": True, "_dimscope_kind": kind, "__module__": __name__,
                 "__qualname__": name, "__doc__": export_layer_class.__doc__})
    cls = type(name, (base,), body)
    _EXPORT_CLASSES[key] = cls
    return cls


# ---------------------------------------------------------------------------- registration

# cache class -> the layer kinds its registration rebuilds (one layout per capture).
_LAYOUTS: Dict[type, List[Dict[str, Any]]] = {}


def registered_layout(cls: type) -> Optional[List[Dict[str, Any]]]:
    return _LAYOUTS.get(cls)


def make_registration(cls: type, layers: Sequence[Dict[str, Any]]):
    """(flatten, unflatten, flatten_with_keys) for dimscope's layer-aware registration
    of ``cls`` with this layout. The layout is kept per class (`set_layout`): the pytree
    context holds only the child names, so that the ``.pt2``'s input spec is the one
    transformers' registration gives (and dimscope-cli reads its leaf paths)."""
    set_layout(cls, layers)
    import torch.utils._pytree as pytree

    def flatten(cache: Any):
        # As registered: a capture recorded before tokens_seen keeps its structure.
        return flatten_layers(cache, _LAYOUTS.get(cls))

    def unflatten(children: Any, context: Any) -> Any:
        layout = _LAYOUTS.get(cls)
        if layout is None:
            raise CaptureError(f"no layer layout registered for {qualified_name(cls)}")
        return build_layered_cache(cls, list(context), list(children), layout, export=True)

    def flatten_with_keys(cache: Any):
        children, names = flatten_layers(cache, _LAYOUTS.get(cls))
        return [(pytree.MappingKey(n), c) for n, c in zip(names, children)], names

    return flatten, unflatten, flatten_with_keys


def set_layout(cls: type, layers: Sequence[Dict[str, Any]]) -> None:
    _LAYOUTS[cls] = [{k: v for k, v in d.items() if k != "seen"} for d in layers]

# SPDX-License-Identifier: GPL-3.0-or-later
"""The value trees of a capture's manifest (docs/capture-format.md, "Nodes"): how one
call's inputs or outputs become nodes plus the tensors their leaves name, and how nodes
become values again when a capture is loaded."""

from __future__ import annotations

import keyword
import math
from collections import namedtuple
from typing import Any, Callable, Dict, Iterator, List, Optional

import torch

from ..caches import (DYNAMIC_LAYERS, KEY_VALUE_DICT, STATIC_KEY_VALUE_DICT, STATIC_LAYERS,
                     describe_custom, key_value_lists, loaded_object, qualified_name, rebuild_custom,
                     resolve_type)
from ..cachelayers import NO_KEYS, Restored, describe_layers, flatten_layers
from ..exceptions import CaptureError
from ..staticcache import empty_children

DTYPE_TO_ST: Dict[torch.dtype, str] = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16",
    torch.int32: "I32", torch.int64: "I64", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.float32: "F32", torch.float64: "F64",
}
# Newer dtypes exist only in some torch versions.
for _attr, _name in (("uint16", "U16"), ("uint32", "U32"), ("uint64", "U64"),
                     ("float8_e4m3fn", "F8_E4M3"), ("float8_e5m2", "F8_E5M2")):
    if hasattr(torch, _attr):
        DTYPE_TO_ST[getattr(torch, _attr)] = _name
ST_TO_DTYPE = {v: k for k, v in DTYPE_TO_ST.items()}
ST_ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "I32": 4, "U32": 4, "I64": 8,
               "U64": 8, "F16": 2, "BF16": 2, "F32": 4, "F64": 8, "F8_E4M3": 1, "F8_E5M2": 1}


class EmptyCache:
    """A key/value cache that held no tensors when the call was recorded, with the
    manifest node recorded for it; `fill` records it as zero-length layers once the
    model has filled the cache object in place (keys and values, and a sparse-attention
    indexer's keys, with their sequence dim -2 at 0; the states of linear-attention
    layers with their last dim at 0)."""

    def __init__(self, cache: Any, node: Dict[str, Any], path: str) -> None:
        self.cache = cache
        self.node = node
        self.path = path

    def fill(self, flattener: "Flattener") -> bool:
        names = self.node.get("keys") or []
        if self.node.get("flavour") == DYNAMIC_LAYERS:
            return self._fill_layers(flattener, names)
        if self.node.get("flavour") == STATIC_LAYERS:
            return self._fill_static(flattener, names)
        try:
            keys, values = key_value_lists(self.cache)
        except CaptureError:
            return False
        if not keys or len(keys) != len(values):
            return False  # still empty
        if "key_cache" not in names or "value_cache" not in names:
            return False
        if "layers" in self.node and not self.node["layers"]:
            # A cache that creates its layers as they are updated: their kinds are known
            # now; before the call they had seen no token.
            layers = describe_layers(self.cache) or []
            for d in layers:
                if "seen" in d:
                    d["seen"] = 0
            self.node["layers"] = layers
        for attr, tensors in (("key_cache", keys), ("value_cache", values)):
            self._append(flattener, names, attr, tensors, -2)
        return True

    def _append(self, flattener: "Flattener", names: List[str], attr: str, tensors: List[torch.Tensor],
                dim: int) -> None:
        child = self.node["children"][names.index(attr)]
        for i, t in enumerate(tensors):
            shape = list(t.shape)
            shape[dim] = 0
            child["children"].append(flattener.node(t.new_empty(shape), f"{self.path}.{attr}[{i}]"))

    def _fill_static(self, flattener: "Flattener", names: List[str]) -> bool:
        # A static cache is never shorter: not filled yet, it is its zeros (staticcache).
        children = empty_children(self.cache)
        if len(children) != len(names) or not any(children):
            return False
        for attr, tensors in zip(names, children):
            child = self.node["children"][names.index(attr)]
            for i, t in enumerate(tensors):
                child["children"].append(flattener.node(t, f"{self.path}.{attr}[{i}]"))
        return True

    def _fill_layers(self, flattener: "Flattener", names: List[str]) -> bool:
        children, now = flatten_layers(self.cache)
        if list(now) != list(names) or not any(children):
            return False
        # The layers the call left without keys (a recurrent block's) say so, as they do
        # in the calls after it.
        after = describe_layers(self.cache, seen=False) or []
        for d, filled in zip(self.node.get("layers") or [], after):
            if filled.get(NO_KEYS):
                d[NO_KEYS] = True
        for attr, tensors in zip(names, children):
            # Keys, values and an indexer's keys grow along dim -2; states (and tokens seen) are empty along -1.
            self._append(flattener, names, attr, tensors,
                         -2 if attr in ("key_cache", "value_cache", "indexer_keys") else -1)
        return True


class Flattener:
    """Turns one call's inputs (or outputs) into a manifest node and the tensors it names."""

    def __init__(self, call_index: int, part: str) -> None:
        self.prefix = f"c{call_index}/{part}/"
        self.tensors: Dict[str, torch.Tensor] = {}
        self.flattening: Dict[str, str] = {}
        self.num_leaves = 0
        self.empty_caches: List[EmptyCache] = []

    def _leaf(self, kind: str, path: str, **fields: Any) -> Dict[str, Any]:
        self.num_leaves += 1
        node = {"kind": kind}
        node.update(fields)
        node["path"] = path
        return node

    def node(self, value: Any, path: str, top: bool = False) -> Dict[str, Any]:
        if isinstance(value, torch.Tensor):
            return self._tensor(value, path)
        if value is None:
            return self._leaf("none", path)
        if isinstance(value, bool):
            return self._leaf("bool", path, value=value)
        if isinstance(value, int):
            return self._leaf("int", path, value=value)
        if isinstance(value, float):
            if math.isfinite(value):
                return self._leaf("float", path, value=value)
            # JSON has no NaN/Infinity: the value is null and repr says which.
            return self._leaf("float", path, value=None, repr=repr(value))
        if isinstance(value, str):
            return self._leaf("str", path, value=value)
        try:
            custom = describe_custom(value)
        except CaptureError as exc:
            raise CaptureError(f"{path}: {exc}") from exc
        if custom is not None:
            self.flattening[custom.type_name] = custom.flavour
            children = [self.node(c, f"{path}.{k}") for k, c in zip(custom.keys, custom.children)]
            node = {"kind": "custom", "type": custom.type_name, "flavour": custom.flavour,
                    "keys": custom.keys, "context": custom.context, "children": children}
            if custom.layers is not None:
                node["layers"] = custom.layers
            if custom.flavour in (KEY_VALUE_DICT, STATIC_KEY_VALUE_DICT, DYNAMIC_LAYERS, STATIC_LAYERS) and \
                    not any(c["children"] for c in children):
                self.empty_caches.append(EmptyCache(value, node, path))
            return node
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            fields = [str(f) for f in type(value)._fields]
            children = [self.node(c, f"{path}.{f}") for f, c in zip(fields, value)]
            return {"kind": "namedtuple", "type": qualified_name(type(value)),
                    "fields": fields, "children": children}
        if isinstance(value, (list, tuple)):
            children = [self.node(c, f"{path}[{i}]") for i, c in enumerate(value)]
            return {"kind": "list" if isinstance(value, list) else "tuple", "children": children}
        if isinstance(value, dict):
            keys = list(value.keys())
            for k in keys:
                if not isinstance(k, str):
                    raise CaptureError(f"{path}: unsupported dict key {k!r} "
                                       f"({type(k).__name__}); only str keys can be captured")
            children = [self.node(value[k], k if top else f"{path}[{k!r}]") for k in keys]
            return {"kind": "dict", "keys": keys, "children": children}
        raise CaptureError(f"{path}: unsupported type {type(value).__qualname__}")

    def _tensor(self, value: torch.Tensor, path: str) -> Dict[str, Any]:
        if value.layout != torch.strided:
            raise CaptureError(f"{path}: unsupported tensor layout {value.layout}")
        if value.is_quantized or value.dtype not in DTYPE_TO_ST:
            raise CaptureError(f"{path}: unsupported tensor dtype {value.dtype}")
        name = f"{self.prefix}{self.num_leaves}"
        device = str(value.device)
        # A copy: caches are updated in place by the model after this call.
        data = value.detach().to("cpu", copy=True).contiguous()
        self.tensors[name] = data
        return self._leaf("tensor", path, tensor=name, dtype=DTYPE_TO_ST[value.dtype],
                          shape=list(data.shape), device=device)


def iter_leaves(node: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
    if "children" in node:
        for child in node["children"]:
            yield from iter_leaves(child)
    else:
        yield node


def _namedtuple_type(type_name: str, fields: List[str], where: str) -> type:
    """The named tuple class of a loaded module with these fields, else a plain
    namedtuple with the recorded name and fields (built from data, no code)."""
    obj = loaded_object(type_name)
    if obj is not None:
        # Something by that name is loaded: only a named tuple class of it is used
        # (a function named as a type, `os.system`, is refused, never called).
        cls = resolve_type(type_name, "namedtuple", where)
        if list(cls._fields) == list(fields):
            return cls
    for f in fields:
        # What collections.namedtuple accepts, checked here so that a bad name is a
        # CaptureError naming the place, not namedtuple's ValueError.
        if not (isinstance(f, str) and f.isidentifier()) or keyword.iskeyword(f) or f.startswith("_"):
            raise CaptureError(f"{where}: named tuple field {f!r} is not a field name a named tuple can have "
                               f"(an identifier, not a keyword, not starting with '_')")
    short = type_name.rsplit(".", 1)[-1]
    usable = short.isidentifier() and not keyword.iskeyword(short)
    return namedtuple(short if usable else "CapturedTuple", fields)  # type: ignore[misc]


def _node_path(node: Dict[str, Any]) -> str:
    """A container's key path: its first leaf's path without the last segment (for
    messages only)."""
    for leaf in iter_leaves(node):
        path = leaf.get("path")
        if isinstance(path, str):
            return path
    return "<inputs>"


class Rebuilder:
    """Turns manifest nodes back into values, with the file's tensors moved to ``device``.

    Builds only data and classes this process already has (docs/security.md): a type a
    node names is never imported or called unless `caches.resolve_type` accepts it."""

    def __init__(self, path: str, tensors: Dict[str, torch.Tensor], device: Any,
                 factories: Optional[Dict[str, Callable[[List[Any], Any], Any]]]) -> None:
        self.path = path
        self.tensors = tensors
        self.device = device
        self.factories = factories
        # (key path, layer, tokens seen when recorded, as rebuilt): sliding-window layers
        # whose tokens seen could not be restored from the cache (cachelayers).
        self.inexact: List[Any] = []

    def build(self, node: Dict[str, Any]) -> Any:
        kind = node.get("kind")
        if kind == "tensor":
            return self.tensors[node["tensor"]].to(self.device)
        if kind == "none":
            return None
        if kind in ("int", "bool", "str"):
            return node["value"]
        if kind == "float":
            return float(node["repr"]) if node.get("value") is None else float(node["value"])
        children = [self.build(c) for c in node.get("children", [])]
        if kind == "dict":
            return dict(zip(node["keys"], children))
        if kind == "list":
            return children
        if kind == "tuple":
            return tuple(children)
        if kind == "namedtuple":
            where = f"{self.path}: {_node_path(node)}"
            return _namedtuple_type(node["type"], node["fields"], where)(*children)
        if kind == "custom":
            where = f"{self.path}: {_node_path(node)}"
            try:
                return self._custom(node, children, where)
            except CaptureError:
                raise
            except Exception as exc:
                # A class resolve_type allows, given children it cannot take (a
                # key_value_dict node of an OrderedDict, a list where tensors belong):
                # its own error, with the file and the place.
                raise CaptureError(f"{where}: cannot rebuild {node['type']} ({node['flavour']}) from the recorded "
                                   f"children: {type(exc).__name__}: {exc}") from exc
        raise CaptureError(f"{self.path}: unknown node kind {kind!r}")

    def _custom(self, node: Dict[str, Any], children: List[Any], where: str) -> Any:
        """A custom node: its class (as resolve_type allows it) rebuilt from the children."""
        if node.get("flavour") != DYNAMIC_LAYERS:
            return rebuild_custom(node["type"], node["flavour"], children, node.get("context"),
                                  self.factories, where, keys=node.get("keys"))
        restored = Restored()
        value = rebuild_custom(node["type"], node["flavour"], children, node.get("context"),
                               self.factories, where, keys=node.get("keys"), layers=node.get("layers"),
                               restored=restored)
        cache_path = _node_path(node).rsplit(".", 1)[0]  # past_key_values.key_cache[0] -> past_key_values
        self.inexact.extend((cache_path, *note) for note in restored.notes)
        return value

"""The value trees of a capture's manifest (docs/capture-format.md, "Nodes"): how one
call's inputs or outputs become nodes plus the tensors their leaves name, and how nodes
become values again when a capture is loaded."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Callable, Dict, Iterator, List, Optional

import torch

from .caches import CaptureError, describe_custom, import_qualified, qualified_name, rebuild_custom

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


class Flattener:
    """Turns one call's inputs (or outputs) into a manifest node and the tensors it names."""

    def __init__(self, call_index: int, part: str) -> None:
        self.prefix = f"c{call_index}/{part}/"
        self.tensors: Dict[str, torch.Tensor] = {}
        self.flattening: Dict[str, str] = {}
        self.num_leaves = 0

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
        custom = describe_custom(value)
        if custom is not None:
            self.flattening[custom.type_name] = custom.flavour
            children = [self.node(c, f"{path}.{k}") for k, c in zip(custom.keys, custom.children)]
            return {"kind": "custom", "type": custom.type_name, "flavour": custom.flavour,
                    "keys": custom.keys, "context": custom.context, "children": children}
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


def _dynamic_namedtuple(type_name: str, fields: List[str]) -> type:
    return namedtuple(type_name.rsplit(".", 1)[-1], fields)  # type: ignore[misc]


class Rebuilder:
    """Turns manifest nodes back into values, with the file's tensors moved to ``device``."""

    def __init__(self, path: str, tensors: Dict[str, torch.Tensor], device: Any,
                 factories: Optional[Dict[str, Callable[[List[Any], Any], Any]]]) -> None:
        self.path = path
        self.tensors = tensors
        self.device = device
        self.factories = factories

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
            try:
                cls = import_qualified(node["type"])
            except CaptureError:
                cls = _dynamic_namedtuple(node["type"], node["fields"])
            return cls(*children)
        if kind == "custom":
            return rebuild_custom(node["type"], node["flavour"], children, node.get("context"),
                                  self.factories)
        raise CaptureError(f"{self.path}: unknown node kind {kind!r}")

# SPDX-License-Identifier: GPL-3.0-or-later
"""What a capture must be to be read, checked the way the C++ reader checks it
(docs/capture-format.md, "What the reader checks"; core/capture/safetensorsheader.cpp
and manifestparser.cpp): the two readers accept exactly the same files, and the
differential test (tests/python/test_reader_agreement.py) holds them to it.

Only the reading is checked here: whether a ``custom`` node's class may be built is the
rebuild's question (``caches.resolve_type``), asked when a capture is loaded."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..exceptions import CaptureError

ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "I32": 4, "U32": 4, "I64": 8, "U64": 8,
            "F16": 2, "BF16": 2, "F32": 4, "F64": 8, "F8_E4M3": 1, "F8_E5M2": 1}
INT64_MAX = 2 ** 63 - 1
NUM_POSITIONAL_MAX = 2 ** 31 - 1
MAX_TREE_DEPTH = 128
PARAMETER_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")
CONTAINER_KINDS = ("dict", "list", "tuple", "namedtuple", "custom")
LEAF_KINDS = ("tensor", "none", "int", "float", "bool", "str")
NON_FINITE_REPRS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


_INT_ONLY = {int}
_STR_ONLY = {str}


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_number(v: Any) -> bool:
    return type(v) in (int, float)


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


def _quoted(text: str) -> str:
    return "'" + "".join(c if ord(c) >= 0x20 else f"\\x{ord(c):02x}" for c in text) + "'"


# ============================================================================ header


def check_header(path: str, header: Any, data_size: int) -> None:
    """The safetensors header's rules: every tensor entry well formed, inside the data
    area, of the byte size its dtype and shape need, no two overlapping; a
    ``__metadata__`` object of strings with the manifest in it."""
    if not isinstance(header, dict):
        raise CaptureError(f"{path}: header is not a JSON object (found {_type_name(header)})")
    spans = []
    for name, entry in header.items():
        if name == "__metadata__":
            _check_metadata(path, entry)
            continue
        begin, end = _check_tensor(path, name, entry, data_size)
        if end > begin:
            spans.append((begin, name, end))
    spans.sort()
    for (b0, n0, e0), (b1, n1, e1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise CaptureError(f"{path}: tensors {_quoted(n0)} [{b0}, {e0}) and {_quoted(n1)} [{b1}, {e1}) overlap")
    if "__metadata__" not in header:
        raise CaptureError(f"{path}: not a dimscope capture (no __metadata__ in the header: a plain safetensors file)")
    if "dimscope.manifest" not in header["__metadata__"]:
        raise CaptureError(f"{path}: not a dimscope capture (no 'dimscope.manifest' in __metadata__)")


def _check_metadata(path: str, metadata: Any) -> None:
    if not isinstance(metadata, dict):
        raise CaptureError(f"{path}: __metadata__ must be an object of strings")
    for key, value in metadata.items():
        if not isinstance(value, str):
            raise CaptureError(f"{path}: __metadata__[{_quoted(key)}] is not a string")


def _non_negative_ints(v: Any, max_count: Optional[int] = None) -> Optional[List[int]]:
    if not isinstance(v, list) or (max_count is not None and len(v) > max_count):
        return None
    if v and (not set(map(type, v)) <= _INT_ONLY or min(v) < 0):  # map/min: one Python call a list
        return None
    return v


def _check_tensor(path: str, name: str, entry: Any, data_size: int) -> tuple:
    where = f"{path}: tensor {_quoted(name)}"
    if not isinstance(entry, dict):
        raise CaptureError(f"{where}: entry must be an object with dtype, shape and data_offsets")
    for member in ("dtype", "shape", "data_offsets"):
        if member not in entry:
            raise CaptureError(f"{where}: no {member}")
    dtype = entry["dtype"]
    if not isinstance(dtype, str):
        raise CaptureError(f"{where}: dtype must be a string")
    if dtype not in ITEMSIZE:
        raise CaptureError(f"{where}: unknown dtype {_quoted(dtype)}")
    shape = _non_negative_ints(entry["shape"])
    if shape is None:
        raise CaptureError(f"{where}: shape must be a list of non-negative integers")
    offsets = _non_negative_ints(entry["data_offsets"], 2)
    if offsets is None or len(offsets) != 2 or offsets[0] > offsets[1]:
        raise CaptureError(f"{where}: data_offsets must be [begin, end] with 0 <= begin <= end")
    begin, end = offsets
    if end > data_size:
        raise CaptureError(f"{where}: data_offsets [{begin}, {end}] run past the end of the data area "
                           f"({data_size} bytes)")
    # As the C++ reader: zeros count as 1 in the overflow check (a shape whose other
    # dimensions overflow 64 bits is refused even when a 0 makes it empty).
    size = ITEMSIZE[dtype]
    for d in shape:
        size *= max(d, 1)
        if size > INT64_MAX:
            raise CaptureError(f"{where}: shape {shape} is too large (its byte size overflows)")
    if 0 in shape:
        size = 0
    if size != end - begin:
        raise CaptureError(f"{where}: data_offsets [{begin}, {end}] hold {end - begin} bytes but shape "
                           f"{shape} of {dtype} needs {size}")
    return begin, end


# ============================================================================ manifest


class _ManifestChecker:
    def __init__(self, path: str, header: Dict[str, Any]) -> None:
        self.path = path
        self.header = header

    def fail(self, message: str) -> CaptureError:
        return CaptureError(f"{self.path}: {message}")

    def string_list(self, v: Any, what: str) -> List[str]:
        if not isinstance(v, list) or not set(map(type, v)) <= _STR_ONLY:
            raise self.fail(f"{what} must be a list of strings, not {_type_name(v)}")
        return v

    def optional_string(self, obj: Dict[str, Any], key: str, what: str) -> None:
        if key in obj and obj[key] is not None and not isinstance(obj[key], str):
            raise self.fail(f"{what} must be a string or null, not {_type_name(obj[key])}")

    def check(self, m: Any) -> None:
        if not isinstance(m, dict):
            raise self.fail(f"manifest is not a JSON object (found {_type_name(m)})")
        if "format" in m:
            if not isinstance(m["format"], str):
                raise self.fail(f"manifest 'format' must be a string, not {_type_name(m['format'])}")
            if m["format"] != "dimscope.capture":
                raise self.fail(f"manifest format is '{m['format']}', expected 'dimscope.capture'")
        if "version" in m and not _is_int(m["version"]):
            raise self.fail(f"manifest 'version' must be an integer, not {_type_name(m['version'])}")
        for key in ("producer", "torch_version", "transformers_version"):
            self.optional_string(m, key, f"manifest '{key}'")
        if m.get("recording") is not None and not isinstance(m["recording"], dict):
            raise self.fail(f"manifest 'recording' must be an object, not {_type_name(m['recording'])}")
        if "model" in m:
            self.model(m["model"])
        if "flattening" in m:
            if not isinstance(m["flattening"], dict) or not all(isinstance(v, str) for v in m["flattening"].values()):
                raise self.fail("manifest 'flattening' must be an object of strings")
        if m.get("value_if_missing") is not None:
            self.string_list(m["value_if_missing"], "manifest 'value_if_missing'")
        if "calls" in m and not isinstance(m["calls"], list):
            raise self.fail(f"manifest 'calls' must be a list, not {_type_name(m['calls'])}")
        if "format" not in m:
            raise self.fail("manifest has no 'format' (expected 'dimscope.capture')")
        if "version" not in m:
            raise self.fail("manifest has no 'version'")
        if "model" not in m:
            raise self.fail("manifest has no 'model'")
        if m["version"] != 1:
            raise self.fail(f"capture format version {m['version']} is not supported (this dimscope reads version 1)")
        if "calls" not in m:
            raise self.fail("manifest has no 'calls'")
        for i, call in enumerate(m["calls"]):
            self.call(i, call)
        if not m["calls"]:
            raise self.fail("manifest 'calls' is empty: a capture holds at least one call")

    def model(self, model: Any) -> None:
        if not isinstance(model, dict):
            raise self.fail(f"manifest 'model' must be an object, not {_type_name(model)}")
        if "class" in model and not isinstance(model["class"], str):
            raise self.fail(f"model 'class' must be a string, not {_type_name(model['class'])}")
        if "signature" in model:
            if not isinstance(model["signature"], list):
                raise self.fail(f"model 'signature' must be a list, not {_type_name(model['signature'])}")
            for i, p in enumerate(model["signature"]):
                self.parameter(f"model signature parameter {i}", p)
        if "class" not in model:
            raise self.fail("manifest 'model' has no 'class'")

    def parameter(self, where: str, p: Any) -> None:
        if not isinstance(p, dict):
            raise self.fail(f"{where} must be an object, not {_type_name(p)}")
        if "name" in p and not isinstance(p["name"], str):
            raise self.fail(f"{where} 'name' must be a string, not {_type_name(p['name'])}")
        if "kind" in p:
            if not isinstance(p["kind"], str):
                raise self.fail(f"{where} 'kind' must be a string, not {_type_name(p['kind'])}")
            if p["kind"] not in PARAMETER_KINDS:
                raise self.fail(f"{where}: unknown parameter kind '{p['kind']}'")
        if "has_default" in p and not isinstance(p["has_default"], bool):
            raise self.fail(f"{where} 'has_default' must be a boolean, not {_type_name(p['has_default'])}")
        self.optional_string(p, "default_repr", f"{where} 'default_repr'")
        if "name" not in p:
            raise self.fail(f"{where} has no 'name'")

    def call(self, index: int, call: Any) -> None:
        where = f"call {index}"
        if not isinstance(call, dict):
            raise self.fail(f"{where} must be an object, not {_type_name(call)}")
        if "index" in call:
            if not _is_int(call["index"]):
                raise self.fail(f"{where} 'index' must be an integer, not {_type_name(call['index'])}")
            if call["index"] != index:
                raise self.fail(f"{where}: 'index' is {call['index']}, expected {index} (calls are listed in order)")
        if "num_positional" in call:
            n = call["num_positional"]
            if not _is_int(n):
                raise self.fail(f"{where} 'num_positional' must be an integer, not {_type_name(n)}")
            if not 0 <= n <= NUM_POSITIONAL_MAX:
                raise self.fail(f"{where} 'num_positional' is {n}, outside 0 .. {NUM_POSITIONAL_MAX}")
        if "inputs" in call:
            self.tree(call["inputs"], where, outputs=False)
            if call["inputs"]["kind"] != "dict":
                raise self.fail(f"{where}: 'inputs' must be a dict node keyed by parameter name")
        if call.get("outputs") is not None:
            self.tree(call["outputs"], where, outputs=True)
        missing = self.string_list(call["missing"], f"{where} 'missing'") if "missing" in call else []
        filled = self.string_list(call["filled"], f"{where} 'filled'") if "filled" in call else []
        if "constant_kwargs" in call and not isinstance(call["constant_kwargs"], dict):
            raise self.fail(f"{where} 'constant_kwargs' must be an object, not {_type_name(call['constant_kwargs'])}")
        if "inputs" not in call:
            raise self.fail(f"{where} has no 'inputs'")
        for name in filled:
            if name not in missing:
                raise self.fail(f"{where}: filled input '{name}' is not listed in 'missing'")

    # ------------------------------------------------------------------ trees

    def tree(self, root: Any, call_where: str, outputs: bool) -> None:
        self.node(root, f"{call_where}, {'outputs' if outputs else 'inputs'}", 0)
        self.paths(root, "output" if outputs else "", not outputs, call_where)

    def node(self, node: Any, where: str, depth: int) -> None:
        if depth > MAX_TREE_DEPTH:
            raise self.fail(f"{where}: the tree is nested more than {MAX_TREE_DEPTH} levels deep")
        if not isinstance(node, dict):
            raise self.fail(f"{where} must be a node object, not {_type_name(node)}")
        kind = node.get("kind")
        if "kind" in node:
            if not isinstance(kind, str):
                raise self.fail(f"{where}: 'kind' must be a string, not {_type_name(kind)}")
            if kind not in CONTAINER_KINDS and kind not in LEAF_KINDS:
                raise self.fail(f"{where}: unknown node kind {_quoted(kind)}")
        for key in ("keys", "fields"):
            if key in node:
                self.string_list(node[key], f"{where}: '{key}'")
        if "children" in node:
            if not isinstance(node["children"], list):
                raise self.fail(f"{where}: 'children' must be a list of nodes, not {_type_name(node['children'])}")
            for i, child in enumerate(node["children"]):
                self.node(child, f"{where} child {i}", depth + 1)
        for key in ("type", "flavour", "tensor", "dtype", "device", "path", "repr"):
            if key in node and not isinstance(node[key], str):
                raise self.fail(f"{where}: '{key}' must be a string, not {_type_name(node[key])}")
        if "shape" in node and _non_negative_ints(node["shape"]) is None:
            raise self.fail(f"{where}: 'shape' must be a list of non-negative integers")
        if kind is None:
            raise self.fail(f"{where}: node has no 'kind'")
        if kind in LEAF_KINDS:
            self.leaf(node, kind, where)
        else:
            self.container(node, kind, where)

    def container(self, node: Dict[str, Any], kind: str, where: str) -> None:
        if "children" not in node:
            raise self.fail(f"{where}: {'custom' if kind == 'custom' else 'container'} node has no 'children'")
        if kind == "dict" and "keys" not in node:
            raise self.fail(f"{where}: dict node has no 'keys'")
        if kind == "namedtuple" and not ("type" in node and "fields" in node):
            raise self.fail(f"{where}: namedtuple node needs 'type' and 'fields'")
        if kind == "custom" and not ("type" in node and "flavour" in node and "keys" in node):
            raise self.fail(f"{where}: custom node needs 'type', 'flavour' and 'keys'")
        if kind in ("dict", "namedtuple", "custom"):
            names = node["fields"] if kind == "namedtuple" else node["keys"]
            what = "fields" if kind == "namedtuple" else "keys"
            if len(names) != len(node["children"]):
                raise self.fail(f"{where}: {len(names)} {what} for {len(node['children'])} children")
            if len(set(names)) != len(names):
                seen = set()
                twice = next(n for n in names if n in seen or seen.add(n))
                raise self.fail(f"{where}: {what[:-1]} {_quoted(twice)} appears twice")

    def leaf(self, node: Dict[str, Any], kind: str, where: str) -> None:
        if "children" in node:
            raise self.fail(f"{where}: a leaf node cannot have 'children'")
        if "path" not in node:
            raise self.fail(f"{where}: leaf has no 'path'")
        where = f"{where.split(',')[0]} leaf {node['path']!r}"
        if kind == "tensor":
            if not all(k in node for k in ("tensor", "dtype", "shape")):
                raise self.fail(f"{where}: tensor leaf needs 'tensor', 'dtype' and 'shape'")
            name = node["tensor"]
            entry = self.header.get(name) if name != "__metadata__" else None
            if entry is None:
                raise self.fail(f"{where}: tensor {name!r} is not in the file")
            if node["dtype"] not in ITEMSIZE:
                raise self.fail(f"{where}: unknown dtype {_quoted(node['dtype'])}")
            if node["dtype"] != entry["dtype"] or node["shape"] != entry["shape"]:
                raise self.fail(f"{where}: manifest says {node['dtype']}{node['shape']}, the file holds "
                                f"{entry['dtype']}{entry['shape']} (tensor {name!r})")
            return
        if kind == "none":
            return
        if "value" not in node:
            raise self.fail(f"{where}: {kind} leaf has no 'value'")
        value = node["value"]
        if kind == "int":
            good, expected = _is_int(value), "an integer (written without fraction or exponent)"
        elif kind == "float":
            good = _is_number(value) or (value is None and isinstance(node.get("repr"), str)
                                          and node["repr"] in NON_FINITE_REPRS)
            expected = "a number, or null with 'repr' \"nan\", \"inf\" or \"-inf\""
        elif kind == "bool":
            good, expected = isinstance(value, bool), "a boolean"
        else:
            good, expected = isinstance(value, str), "a string"
        if not good:
            raise self.fail(f"{where}: 'value' must be {expected}")

    def paths(self, root: Dict[str, Any], start: str, top_level: bool, call_where: str) -> None:
        """Every leaf's path is the one its place gives (docs: "Nodes"), as the C++
        reader's checkLeafPaths; iterative: a tree may be 128 levels deep."""
        stack = [(root, start, top_level)]
        while stack:
            node, path, top = stack.pop()
            kind = node["kind"]
            if kind in LEAF_KINDS:
                if node["path"] != path:
                    raise self.fail(f"{call_where}, leaf {node['path']}: path does not match its place in the "
                                    f"tree (expected {path})")
                continue
            names = node.get("fields") if kind == "namedtuple" else node.get("keys")
            children = node["children"]
            for i in range(len(children) - 1, -1, -1):
                if kind == "dict":
                    segment = names[i] if top else f"['{names[i]}']"
                elif kind in ("namedtuple", "custom"):
                    segment = f".{names[i]}"
                else:
                    segment = f"[{i}]"
                stack.append((children[i], path + segment, False))


def check_manifest(path: str, manifest: Any, header: Dict[str, Any]) -> None:
    """The manifest's rules (docs/capture-format.md, "What the reader checks"), its
    tensor leaves checked against ``header`` (already checked by ``check_header``)."""
    _ManifestChecker(path, header).check(manifest)

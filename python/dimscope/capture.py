"""Record real forward calls of a model into a dimscope capture, and load captures back.

    rec = InputRecorder(store_n_calls=3)
    with rec(model):
        model.generate(...)
    rec.save("calls.safetensors")

    capture = load_capture("calls.safetensors")
    for call in capture.calls:
        args, kwargs = call.call_arguments()
        model(*args, **kwargs)

The file format is docs/capture-format.md (version 1). No pickle is used: a capture is a
standard safetensors file whose ``__metadata__`` holds a JSON manifest.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import os
import struct
import sys
import tempfile
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import torch

from . import __version__
from .caches import CaptureError, describe_custom, import_qualified, qualified_name, rebuild_custom

FORMAT_ID = "dimscope.capture"
FORMAT_VERSION = 1
SUPPORTED_VERSIONS = (1,)
MANIFEST_KEY = "dimscope.manifest"

__all__ = [
    "CaptureError", "InputRecorder", "Capture", "CapturedCall", "load_capture",
    "FORMAT_ID", "FORMAT_VERSION",
]

_DTYPE_TO_ST: Dict[torch.dtype, str] = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16",
    torch.int32: "I32", torch.int64: "I64", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.float32: "F32", torch.float64: "F64",
}
# Newer dtypes exist only in some torch versions.
for _attr, _name in (("uint16", "U16"), ("uint32", "U32"), ("uint64", "U64"),
                     ("float8_e4m3fn", "F8_E4M3"), ("float8_e5m2", "F8_E5M2")):
    if hasattr(torch, _attr):
        _DTYPE_TO_ST[getattr(torch, _attr)] = _name
_ST_TO_DTYPE = {v: k for k, v in _DTYPE_TO_ST.items()}
_ST_ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "I32": 4, "U32": 4, "I64": 8,
                "U64": 8, "F16": 2, "BF16": 2, "F32": 4, "F64": 8, "F8_E4M3": 1, "F8_E5M2": 1}

_CONSTANT_TYPES = (bool, int, float, str)


# ============================================================================ flattening


class _Flattener:
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
        if value.is_quantized or value.dtype not in _DTYPE_TO_ST:
            raise CaptureError(f"{path}: unsupported tensor dtype {value.dtype}")
        name = f"{self.prefix}{self.num_leaves}"
        device = str(value.device)
        # A copy: caches are updated in place by the model after this call.
        data = value.detach().to("cpu", copy=True).contiguous()
        self.tensors[name] = data
        return self._leaf("tensor", path, tensor=name, dtype=_DTYPE_TO_ST[value.dtype],
                          shape=list(data.shape), device=device)


# ============================================================================ recorder


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
    __slots__ = ("manifest", "tensors", "flattening")

    def __init__(self, manifest: Dict[str, Any], tensors: Dict[str, torch.Tensor],
                 flattening: Dict[str, str]) -> None:
        self.manifest = manifest
        self.tensors = tensors
        self.flattening = flattening


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

        def consider(name: str, value: Any, param: Optional[inspect.Parameter]) -> None:
            default = param.default if param is not None else inspect.Parameter.empty
            if value is None:
                missing.append(name)
            elif _is_constant(value):
                # Constants are not inputs of the exported program.
                if default is inspect.Parameter.empty or type(default) is not type(value) \
                        or default != value:
                    constants[name] = value
            else:
                inputs[name] = value

        for name, param in params.items():
            if param.kind == inspect.Parameter.VAR_KEYWORD:
                for k, v in bound.arguments.get(name, {}).items():
                    consider(k, v, None)
                continue
            if name in bound.arguments:
                value = bound.arguments[name]
                if param.kind == inspect.Parameter.VAR_POSITIONAL:
                    if value:
                        inputs[name] = value
                    continue
                consider(name, value, param)
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

        flattener = _Flattener(index, "in")
        tree = flattener.node(inputs, "", top=True)
        entry = {
            "index": index,
            "num_positional": len(args),
            "inputs": tree,
            "missing": missing,
            "filled": filled,
            "constant_kwargs": constants,
            "outputs": None,
        }
        call = _RecordedCall(entry, flattener.tensors, flattener.flattening)
        self._calls.append(call)
        return call

    def _record_outputs(self, call: _RecordedCall, out: Any) -> None:
        if not self.record_outputs:
            return
        flattener = _Flattener(call.manifest["index"], "out")
        try:
            tree = flattener.node(out, "output")
        except CaptureError as exc:
            import warnings
            warnings.warn(f"dimscope: outputs of call {call.manifest['index']} not recorded: {exc}")
            return
        call.manifest["outputs"] = tree
        call.tensors.update(flattener.tensors)
        call.flattening.update(flattener.flattening)

    # -- saving -------------------------------------------------------------

    def manifest(self) -> Dict[str, Any]:
        if self._model is None or self._signature is None:
            raise CaptureError("no model was recorded (use `with recorder(model): ...`)")
        flattening: Dict[str, str] = {}
        for call in self._calls:
            flattening.update(call.flattening)
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


# ============================================================================ writing


def _official_writer() -> Optional[Callable[..., None]]:
    try:
        from safetensors.torch import save_file
    except ImportError:
        return None
    return save_file


def _official_dtypes() -> Optional[set]:
    """The dtypes the installed safetensors package handles (older ones lack U16/U32/U64),
    or None when it does not say."""
    try:
        import safetensors.torch as st
    except ImportError:
        return None
    types = getattr(st, "_TYPES", None)
    return set(types.values()) if isinstance(types, dict) else None


def _official_lacks(dtypes: Sequence[torch.dtype]) -> List[torch.dtype]:
    known = _official_dtypes()
    return [] if known is None else sorted({d for d in dtypes if d not in known}, key=str)


def _tensor_bytes(t: torch.Tensor) -> bytes:
    if sys.byteorder != "little":
        raise CaptureError("the builtin safetensors writer needs a little-endian machine")
    flat = t.detach().to("cpu").contiguous().reshape(-1)
    if flat.numel() == 0:
        return b""
    raw = flat.view(torch.uint8)
    try:
        return raw.numpy().tobytes()
    except (RuntimeError, TypeError):  # torch built without numpy
        return bytes(raw.tolist())


def _write_builtin(tensors: Dict[str, torch.Tensor], path: str, metadata: Dict[str, str]) -> None:
    header: Dict[str, Any] = {"__metadata__": metadata}
    blobs = []
    offset = 0
    for name, t in tensors.items():
        data = _tensor_bytes(t)
        header[name] = {"dtype": _DTYPE_TO_ST[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # keeps the data area 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_capture(path: "os.PathLike[str] | str", manifest: Dict[str, Any],
                  tensors: Dict[str, torch.Tensor], writer: str = "auto") -> None:
    """Writes ``tensors`` and ``manifest`` as a capture file, atomically."""
    if writer not in ("auto", "safetensors", "builtin"):
        raise ValueError(f"unknown writer {writer!r}")
    official = _official_writer() if writer in ("auto", "safetensors") else None
    if writer == "safetensors" and official is None:
        raise CaptureError("the safetensors package is not importable")
    lacking = _official_lacks([t.dtype for t in tensors.values()]) if official else []
    if lacking:
        if writer == "safetensors":
            raise CaptureError("the installed safetensors package cannot write "
                               + ", ".join(map(str, lacking)))
        official = None  # the builtin writer handles every dtype of the format
    path = os.fspath(path)
    metadata = {MANIFEST_KEY: json.dumps(manifest, separators=(",", ":"), allow_nan=False)}
    tensors = {k: v.contiguous() for k, v in tensors.items()}
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        if official is not None:
            official(tensors, tmp, metadata=metadata)
        else:
            _write_builtin(tensors, tmp, metadata)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a capture is a normal file
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ============================================================================ loading


class CapturedCall:
    """One recorded call, rebuilt: ``kwargs`` maps parameter names to values."""

    def __init__(self, capture: "Capture", entry: Dict[str, Any], kwargs: Dict[str, Any],
                 outputs: Any) -> None:
        self._capture = capture
        self.index: int = entry["index"]
        self.num_positional: int = entry.get("num_positional", 0)
        self.kwargs: Dict[str, Any] = kwargs
        self.outputs: Any = outputs
        self.missing: List[str] = list(entry.get("missing", []))
        self.filled: List[str] = list(entry.get("filled", []))
        self.constant_kwargs: Dict[str, Any] = dict(entry.get("constant_kwargs", {}))
        self.entry = entry

    def call_arguments(self, include_constants: bool = True) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        """``(args, kwargs)`` to replay the call: positional-only parameters and ``*args``
        go positionally, everything else by name; constant kwargs are added back."""
        args: List[Any] = []
        kwargs: Dict[str, Any] = {}
        kinds = {p["name"]: p["kind"] for p in self._capture.manifest["model"]["signature"]}
        for name, value in self.kwargs.items():
            kind = kinds.get(name)
            if kind == "POSITIONAL_ONLY":
                args.append(value)
            elif kind == "VAR_POSITIONAL":
                args.extend(value)
            else:
                kwargs[name] = value
        if include_constants:
            kwargs.update(self.constant_kwargs)
        return tuple(args), kwargs

    def leaves(self, outputs: bool = False) -> List[Dict[str, Any]]:
        """The manifest's leaf nodes of this call, in flattening order."""
        root = self.entry["outputs"] if outputs else self.entry["inputs"]
        return list(_iter_leaves(root)) if root is not None else []


class Capture:
    """A loaded capture: ``manifest`` (dict), ``calls`` (list of CapturedCall)."""

    def __init__(self, path: str, manifest: Dict[str, Any]) -> None:
        self.path = path
        self.manifest = manifest
        self.calls: List[CapturedCall] = []

    @property
    def signature(self) -> List[Dict[str, Any]]:
        return self.manifest["model"]["signature"]

    @property
    def flattening(self) -> Dict[str, str]:
        return dict(self.manifest.get("flattening") or {})


def _iter_leaves(node: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
    if "children" in node:
        for child in node["children"]:
            yield from _iter_leaves(child)
    else:
        yield node


def _read_header(path: str) -> Tuple[Dict[str, Any], int]:
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CaptureError(f"{path}: not a safetensors file (shorter than 8 bytes)")
        (n,) = struct.unpack("<Q", head)
        if n > size - 8:
            raise CaptureError(f"{path}: header length {n} runs past the end of the file ({size} bytes)")
        text = f.read(n)
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CaptureError(f"{path}: the safetensors header is not valid JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise CaptureError(f"{path}: the safetensors header is not a JSON object")
    return header, 8 + n


def _read_tensors_builtin(path: str, header: Dict[str, Any], data_start: int,
                          names: Sequence[str]) -> Dict[str, torch.Tensor]:
    out: Dict[str, torch.Tensor] = {}
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        for name in names:
            info = header[name]
            dtype = info["dtype"]
            if dtype not in _ST_TO_DTYPE:
                raise CaptureError(f"{path}: tensor {name!r} has a dtype this torch lacks: {dtype}")
            begin, end = info["data_offsets"]
            shape = [int(d) for d in info["shape"]]
            expected = math.prod(shape) * _ST_ITEMSIZE[dtype]
            if end - begin != expected or begin < 0 or data_start + end > size:
                raise CaptureError(f"{path}: tensor {name!r} has inconsistent data_offsets")
            f.seek(data_start + begin)
            raw = bytearray(f.read(end - begin))
            flat = torch.frombuffer(raw, dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
            out[name] = flat.view(_ST_TO_DTYPE[dtype]).reshape(shape).clone()
    return out


def _read_tensors(path: str, header: Dict[str, Any], data_start: int, names: Sequence[str],
                  reader: str) -> Dict[str, torch.Tensor]:
    if reader in ("auto", "safetensors"):
        try:
            from safetensors import safe_open
        except ImportError:
            if reader == "safetensors":
                raise CaptureError("the safetensors package is not importable")
            safe_open = None
        dtypes = [_ST_TO_DTYPE[header[n]["dtype"]] for n in names if header[n]["dtype"] in _ST_TO_DTYPE]
        lacking = _official_lacks(dtypes) if safe_open is not None else []
        if lacking and reader == "safetensors":
            raise CaptureError(f"{path}: the installed safetensors package cannot read "
                               + ", ".join(map(str, lacking)))
        if safe_open is not None and not lacking:
            with safe_open(path, framework="pt", device="cpu") as f:
                return {name: f.get_tensor(name) for name in names}
    return _read_tensors_builtin(path, header, data_start, names)


def _dynamic_namedtuple(type_name: str, fields: List[str]) -> type:
    return namedtuple(type_name.rsplit(".", 1)[-1], fields)  # type: ignore[misc]


class _Rebuilder:
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


def _check_leaves(path: str, call: Dict[str, Any], header: Dict[str, Any]) -> List[str]:
    names = []
    for root in (call.get("inputs"), call.get("outputs")):
        if root is None:
            continue
        for leaf in _iter_leaves(root):
            if leaf.get("kind") != "tensor":
                continue
            name = leaf["tensor"]
            info = header.get(name)
            where = f"{path}: call {call.get('index')} leaf {leaf.get('path')!r}"
            if not isinstance(info, dict):
                raise CaptureError(f"{where}: tensor {name!r} is not in the file")
            if info.get("dtype") != leaf.get("dtype") or list(info.get("shape", [])) != leaf.get("shape"):
                raise CaptureError(f"{where}: manifest says {leaf.get('dtype')}{leaf.get('shape')}, "
                                   f"the file holds {info.get('dtype')}{info.get('shape')}")
            names.append(name)
    return names


def read_manifest(path: "os.PathLike[str] | str") -> Dict[str, Any]:
    """The validated manifest of a capture file (reads only the header)."""
    path = os.fspath(path)
    header, _ = _read_header(path)
    return _manifest_from_header(path, header)


def _manifest_from_header(path: str, header: Dict[str, Any]) -> Dict[str, Any]:
    metadata = header.get("__metadata__") or {}
    text = metadata.get(MANIFEST_KEY) if isinstance(metadata, dict) else None
    if text is None:
        raise CaptureError(f"{path}: not a dimscope capture (no {MANIFEST_KEY!r} in __metadata__)")
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaptureError(f"{path}: the manifest is not valid JSON: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_ID:
        raise CaptureError(f"{path}: the manifest's format is not {FORMAT_ID!r}")
    version = manifest.get("version")
    if version not in SUPPORTED_VERSIONS:
        raise CaptureError(f"{path}: capture format version {version!r} is not supported "
                           f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
    return manifest


def load_capture(path: "os.PathLike[str] | str", device: Any = "cpu", reader: str = "auto",
                 factories: Optional[Dict[str, Callable[[List[Any], Any], Any]]] = None) -> Capture:
    """Loads a capture: validates the format id and version, reads the tensors onto
    ``device`` and rebuilds each call's inputs (containers and custom cache classes).

    ``reader``: ``"safetensors"``, ``"builtin"`` or ``"auto"``. ``factories``:
    ``{qualified type name: fn(children, context)}`` to rebuild classes dimscope cannot
    build on its own (e.g. a StaticCache without transformers' registration). A call's
    ``outputs`` are None when they were not recorded or cannot be rebuilt here."""
    path = os.fspath(path)
    header, data_start = _read_header(path)
    manifest = _manifest_from_header(path, header)
    entries = manifest.get("calls") or []
    names: List[str] = []
    for entry in entries:
        names.extend(_check_leaves(path, entry, header))
    tensors = _read_tensors(path, header, data_start, names, reader)
    capture = Capture(path, manifest)
    rebuilder = _Rebuilder(path, tensors, device, factories)
    for entry in entries:
        inputs = rebuilder.build(entry["inputs"])
        outputs = None
        if entry.get("outputs") is not None:
            try:
                outputs = rebuilder.build(entry["outputs"])
            except CaptureError:
                outputs = None
        capture.calls.append(CapturedCall(capture, entry, inputs, outputs))
    return capture

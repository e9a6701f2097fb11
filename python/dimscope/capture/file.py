# SPDX-License-Identifier: GPL-3.0-or-later
"""The capture file itself (docs/capture-format.md, "Container"): a safetensors file whose
``__metadata__`` holds the JSON manifest. Writes it atomically with the official
safetensors package or dimscope's own writer, reads the header, the manifest and the
tensors back."""

from __future__ import annotations

import json
import math
import os
import struct
import sys
import tempfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from ..exceptions import CaptureError
from . import strictjson, validate
from .tree import DTYPE_TO_ST, ST_ITEMSIZE, ST_TO_DTYPE

FORMAT_ID = "dimscope.capture"
FORMAT_VERSION = 1
SUPPORTED_VERSIONS = (1,)
MANIFEST_KEY = "dimscope.manifest"


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
        header[name] = {"dtype": DTYPE_TO_ST[t.dtype], "shape": list(t.shape),
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


# ============================================================================ reading


# The longest header read, as the C++ reader's (CaptureReader::kMaxHeaderBytes) and the
# safetensors library's: a longer declared length is refused before anything is read.
MAX_HEADER_BYTES = 100_000_000


def read_header(path: str) -> Tuple[Dict[str, Any], int]:
    """The safetensors header (a dict, checked as the C++ reader checks it: validate.py)
    and the offset where the data area starts."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CaptureError(f"{path}: not a safetensors file (shorter than 8 bytes)")
        (n,) = struct.unpack("<Q", head)
        if n == 0:
            raise CaptureError(f"{path}: header length is 0 (a safetensors header is a JSON object)")
        if n > size - 8:
            raise CaptureError(f"{path}: header length {n} runs past the end of the file ({size} bytes)")
        if n > MAX_HEADER_BYTES:
            raise CaptureError(f"{path}: header is longer than {MAX_HEADER_BYTES} bytes, "
                               "the most a capture may have (docs/capture-format.md)")
        text = f.read(n)
    try:
        header = strictjson.loads(text.decode("utf-8"), allow_non_finite=False)
    except UnicodeDecodeError as exc:
        raise CaptureError(f"{path}: the safetensors header is not valid UTF-8: {exc}") from None
    except strictjson.JsonError as exc:
        raise CaptureError(f"{path}: the safetensors header: {exc}") from None
    validate.check_header(path, header, size - 8 - n)
    return header, 8 + n


def _read_tensors_builtin(path: str, header: Dict[str, Any], data_start: int,
                          names: Sequence[str]) -> Dict[str, torch.Tensor]:
    out: Dict[str, torch.Tensor] = {}
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        for name in names:
            info = header[name]
            dtype = info["dtype"]
            if dtype not in ST_TO_DTYPE:
                raise CaptureError(f"{path}: tensor {name!r} has a dtype this torch lacks: {dtype}")
            begin, end = info["data_offsets"]
            shape = [int(d) for d in info["shape"]]
            expected = math.prod(shape) * ST_ITEMSIZE[dtype]
            if end - begin != expected or begin < 0 or data_start + end > size:
                raise CaptureError(f"{path}: tensor {name!r} has inconsistent data_offsets")
            f.seek(data_start + begin)
            raw = bytearray(f.read(end - begin))
            flat = torch.frombuffer(raw, dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
            out[name] = flat.view(ST_TO_DTYPE[dtype]).reshape(shape).clone()
    return out


def read_tensors(path: str, header: Dict[str, Any], data_start: int, names: Sequence[str],
                 reader: str) -> Dict[str, torch.Tensor]:
    """The tensors called ``names``, on the CPU; ``reader`` as in ``load_capture``."""
    if reader in ("auto", "safetensors"):
        try:
            from safetensors import safe_open
        except ImportError:
            if reader == "safetensors":
                raise CaptureError("the safetensors package is not importable")
            safe_open = None
        dtypes = [ST_TO_DTYPE[header[n]["dtype"]] for n in names if header[n]["dtype"] in ST_TO_DTYPE]
        lacking = _official_lacks(dtypes) if safe_open is not None else []
        if lacking and reader == "safetensors":
            raise CaptureError(f"{path}: the installed safetensors package cannot read "
                               + ", ".join(map(str, lacking)))
        if safe_open is not None and not lacking:
            with safe_open(path, framework="pt", device="cpu") as f:
                return {name: f.get_tensor(name) for name in names}
    return _read_tensors_builtin(path, header, data_start, names)


def manifest_from_header(path: str, header: Dict[str, Any]) -> Dict[str, Any]:
    """The manifest in ``header``'s ``__metadata__`` (a header ``read_header`` returned),
    checked as the C++ reader checks it (validate.py): format id, version, calls, nodes,
    key paths, values, and its tensor leaves against the header."""
    metadata = header.get("__metadata__") or {}
    text = metadata.get(MANIFEST_KEY) if isinstance(metadata, dict) else None
    if not isinstance(text, str):
        raise CaptureError(f"{path}: not a dimscope capture (no {MANIFEST_KEY!r} in __metadata__)")
    try:
        manifest = strictjson.loads(text, allow_non_finite=True)
    except strictjson.JsonError as exc:
        raise CaptureError(f"{path}: the manifest: {exc}") from None
    if isinstance(manifest, dict) and manifest.get("format") != FORMAT_ID:
        raise CaptureError(f"{path}: the manifest's format is not {FORMAT_ID!r}")
    version = manifest.get("version") if isinstance(manifest, dict) else None
    if isinstance(manifest, dict) and "version" in manifest and version not in SUPPORTED_VERSIONS:
        raise CaptureError(f"{path}: capture format version {version!r} is not supported "
                           f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
    validate.check_manifest(path, manifest, header)
    return manifest


def read_manifest(path: "os.PathLike[str] | str") -> Dict[str, Any]:
    """The validated manifest of a capture file (reads only the header)."""
    path = os.fspath(path)
    header, _ = read_header(path)
    return manifest_from_header(path, header)

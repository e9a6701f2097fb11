# SPDX-License-Identifier: GPL-3.0-or-later
"""Record real forward calls of a model into a dimscope capture, and load captures back.

    from dimscope.capture import InputRecorder, load_capture

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

The modules: ``recorder`` (InputRecorder), ``tree`` (a call's values as the manifest's
nodes and back), ``file`` (the safetensors container: header, manifest, tensors) and
``load`` (load_capture). This package is the place to import from.

How custom classes (KV caches) flatten is not here but in the top-level modules
``dimscope.caches``, ``dimscope.cachelayers`` and ``dimscope.staticcache``: the recorder
uses them to describe a cache, but the export worker registers the same flattening with
torch's pytree before it exports, and ``dimscope.program.load_program`` registers it from
a ``.pt2`` with no capture at all, so they belong to the package, not to the capture file.
"""

from ..exceptions import CaptureError
from .file import (FORMAT_ID, FORMAT_VERSION, MANIFEST_KEY, SUPPORTED_VERSIONS, manifest_from_header,
                   read_header, read_manifest, read_tensors, write_capture)
from .load import Capture, CapturedCall, inexact_text, load_capture
from .recorder import InputRecorder
from .tree import Rebuilder, iter_leaves

__all__ = [
    "CaptureError", "InputRecorder", "Capture", "CapturedCall", "load_capture", "read_manifest",
    "FORMAT_ID", "FORMAT_VERSION",
]

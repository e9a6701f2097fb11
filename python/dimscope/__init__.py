"""dimscope's Python side: record forward calls into a capture, run the export worker.

``import dimscope`` does not import torch; the names below load on first use:
``InputRecorder``, ``load_capture``, ``CaptureError`` (dimscope.capture),
``register_capture_flattening`` (dimscope.caches), ``load_program`` (dimscope.program).
"""

__version__ = "0.1.0"

_LAZY = {
    "InputRecorder": "capture",
    "load_capture": "capture",
    "read_manifest": "capture",
    "CaptureError": "caches",
    "register_capture_flattening": "caches",
    "register_key_value_cache": "caches",
    "load_program": "program",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dimscope' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"dimscope.{module}"), name)

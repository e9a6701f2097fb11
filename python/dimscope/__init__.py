# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope's Python side: record forward calls into a capture, run the export worker.

``import dimscope`` does not import torch; the names below load on first use:
``InputRecorder``, ``load_capture``, ``read_manifest`` (dimscope.capture),
``register_capture_flattening`` (dimscope.caches), ``load_program``, ``load_programs``, ``save_program`` and
``program_names`` (dimscope.program), ``load_model`` (a model reference as the export
worker loads it: dimscope.worker.modelref),
and the exception classes (dimscope.exceptions: ``DimscopeError``, ``CaptureError``, ...).

Layout: ``capture/`` (recorder, file, tree, load) writes and reads captures;
``caches``, ``cachelayers``, ``staticcache`` flatten custom cache classes for the recorder,
the worker and ``program`` (``typenames`` is the leaf they share); ``customops`` records
the custom operators a program calls and the modules that register them; ``worker/`` is the
export worker (``python -m dimscope.worker``: server, modelref, spec, exporter,
guardcheck, explain, errors, freshcheck, archive: several programs in one PT2 archive);
``exceptions`` defines every exception class.
"""

# The project VERSION of CMakeLists.txt; python/pyproject.toml reads it from here.
__version__ = "0.1.0"

_LAZY = {
    "InputRecorder": "capture",
    "load_capture": "capture",
    "read_manifest": "capture",
    "DimscopeError": "exceptions",
    "CaptureError": "exceptions",
    "SpecError": "exceptions",
    "WorkerError": "exceptions",
    "register_capture_flattening": "caches",
    "register_key_value_cache": "caches",
    "load_program": "program",
    "load_programs": "program",
    "save_program": "program",
    "load_model": "worker.modelref",
    "program_names": "program",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dimscope' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"dimscope.{module}"), name)

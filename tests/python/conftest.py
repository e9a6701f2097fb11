# SPDX-License-Identifier: GPL-3.0-or-later
import contextlib
import json
import os
import pathlib
import subprocess
import sys

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# scripts/torch-python: the provisioned runtime (started through its own loader).
LAUNCHER = ROOT / "scripts" / "torch-python"
# The built dimscope-cli (ctest sets it); `pytestmark = needs_cli` skips a file without it.
CLI = os.environ.get("DIMSCOPE_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="DIMSCOPE_CLI is not set (run through ctest)")


def same(a, b, path="value"):
    """Recursive equality of recorded and loaded values (tensors with torch.equal)."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor), f"{path}: {type(b)} is not a tensor"
        assert a.dtype == b.dtype and a.shape == b.shape, f"{path}: {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
        assert torch.equal(a.cpu(), b.cpu()), f"{path}: values differ"
        return
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} vs {list(b) if isinstance(b, dict) else b}"
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
        return
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) or (hasattr(type(a), "_fields") and tuple(type(a)._fields) == tuple(type(b)._fields)), f"{path}: {type(a)} vs {type(b)}"
        assert len(a) == len(b), f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
        return
    if hasattr(a, "key_cache"):
        assert type(a) is type(b), f"{path}: {type(a)} vs {type(b)}"
        same(list(a.key_cache), list(b.key_cache), f"{path}.key_cache")
        same(list(a.value_cache), list(b.value_cache), f"{path}.value_cache")
        return
    assert a == b and type(a) is type(b), f"{path}: {a!r} vs {b!r}"


def leaves(node):
    if "children" in node:
        for c in node["children"]:
            yield from leaves(c)
    else:
        yield node


def torch_python(*args, **kwargs):
    """Runs scripts/torch-python (a fresh interpreter, python/ importable)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pathlib.Path(__file__).resolve().parent)
    return subprocess.run([str(ROOT / "scripts" / "torch-python"), *args], capture_output=True,
                          text=True, env=env, timeout=600, **kwargs)


def cli(*args, timeout=900, cwd=None):
    """Runs the built dimscope-cli with tests/python importable: the worker imports the
    test models' cache classes (capture_models) by name."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def model_file(path, source):
    """Writes a model's source to `path` and runs it as that file (so that tracebacks and
    explanations name it); returns its namespace."""
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


def record(model, calls, capture, no_grad=False):
    """Records `calls` (each a tuple of positional arguments) of `model` into the capture
    file `capture`, every call stored; returns `capture`."""
    from dimscope.capture import InputRecorder

    rec = InputRecorder(store_n_calls=len(calls))
    with rec(model), (torch.no_grad() if no_grad else contextlib.nullcontext()):
        for args in calls:
            model(*args)
    rec.save(capture)
    return capture


def constraints_file(path, dims, leaves):
    """Writes a dimscope.constraints file: `dims` are names (unbounded) or (name, min,
    max) triples, `leaves` maps a key path to its Dim names per axis."""
    rows = [{"name": d, "min": None, "max": None} if isinstance(d, str) else {"name": d[0], "min": d[1], "max": d[2]}
            for d in dims]
    path.write_text(json.dumps({"format": "dimscope.constraints", "version": 1, "dims": rows, "leaves": leaves}))
    return path


@pytest.fixture
def root():
    return ROOT

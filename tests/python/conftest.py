# SPDX-License-Identifier: GPL-3.0-or-later
import os
import pathlib
import subprocess
import sys

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


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


@pytest.fixture
def root():
    return ROOT

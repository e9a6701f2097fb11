# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers of the tests that record transformers caches (test_cache_attributes,
test_cache_layers, test_layer_attributes): the sweep's tiny models, recording generate(),
a call's cache node, the logits of a replayed call, and a capture rewritten with an
edited manifest."""

import copy
import pathlib
import sys

import torch
import torch.utils._pytree as pytree

from dimscope import caches
from dimscope.capture import InputRecorder, read_manifest
from dimscope.capture.file import read_header, read_tensors, write_capture

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "realmodels"))
import sweep  # noqa: E402


def drop_registrations(module):
    """Removes every pytree registration made by dimscope's ``module`` (loading a capture
    registers its cache class), so that a test records as a process that loaded none."""
    for cls in list(pytree.SUPPORTED_NODES):
        if caches.registration_module(cls) == module:
            caches._deregister(cls)


def record(model, run, path):
    """Records what ``run()`` calls of ``model`` into ``path``."""
    rec = InputRecorder(store_n_calls=64)
    with torch.no_grad(), rec(model):
        run()
    rec.save(path)
    return path


def record_generate(model, path):
    """The sweep's two generate() calls of ``model``, recorded into ``path``."""
    return record(model, lambda: sweep.run_generate(model), path)


def cache_node(manifest, call):
    inputs = manifest["calls"][call]["inputs"]
    return inputs["children"][inputs["keys"].index("past_key_values")]


def logits(model, call, cache=None):
    """The model's logits on a loaded call (with another cache where given)."""
    kwargs = copy.deepcopy(call.call_arguments()[1])
    if cache is not None:
        kwargs["past_key_values"] = cache
    with torch.no_grad():
        return model(**kwargs).logits


def rewritten(tmp_path, path, edit):
    """The capture at ``path`` with its manifest changed by ``edit``."""
    manifest = read_manifest(path)
    header, start = read_header(path)
    tensors = read_tensors(path, header, start, [k for k in header if k != "__metadata__"], "builtin")
    manifest = edit(manifest)
    bad = tmp_path / "bad.safetensors"
    write_capture(bad, manifest, tensors, writer="builtin")
    return bad

# SPDX-License-Identifier: GPL-3.0-or-later
"""Round trip: what the Python recorder wrote is what the C++ reader reports.

Each scenario is recorded with InputRecorder, then read back by the real C++ reader
through `dimscope-cli inspect --json` ($DIMSCOPE_CLI, set by ctest). Paths, kinds,
dtypes, shapes, devices, missing/filled inputs and constants must agree with the
manifest and with the tensors Python loads back; the reader must also have found every
tensor in the file at the name the manifest gives.
"""

import json
import os
import subprocess

import pytest
import torch

from capture_models import AddModel, LLMLikeModel, MultimodalModel, kv_pairs, make_kv_cache
from conftest import leaves
from dimscope.capture import InputRecorder, load_capture

CLI = os.environ.get("DIMSCOPE_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="DIMSCOPE_CLI is not set (run through ctest)")

TORCH_TO_ST = {torch.float32: "F32", torch.int64: "I64", torch.float16: "F16", torch.bfloat16: "BF16",
               torch.bool: "BOOL", torch.int32: "I32", torch.uint8: "U8", torch.float64: "F64"}


def inspect_json(path):
    done = subprocess.run([CLI, "inspect", str(path), "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def flat_tensors(value, prefix):
    """(path, tensor) pairs of a loaded call's kwargs, in the recorder's path notation."""
    if isinstance(value, torch.Tensor):
        yield prefix, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from flat_tensors(v, f"{prefix}['{k}']" if prefix else k)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from flat_tensors(v, f"{prefix}[{i}]")
    elif hasattr(value, "key_cache"):
        yield from flat_tensors(list(value.key_cache), f"{prefix}.key_cache")
        yield from flat_tensors(list(value.value_cache), f"{prefix}.value_cache")


def check_round_trip(path):
    report = inspect_json(path)
    capture = load_capture(path)
    manifest = capture.manifest
    assert report["format_version"] == manifest["version"]
    assert report["model"]["class"] == manifest["model"]["class"]
    assert [p["name"] for p in report["model"]["signature"]] == [p["name"] for p in manifest["model"]["signature"]]
    assert report["flattening"] == manifest["flattening"]
    assert len(report["calls"]) == len(manifest["calls"]) == len(capture.calls)
    by_path = {leaf["path"]: leaf for leaf in report["leaves"]}

    for i, (mcall, loaded) in enumerate(zip(manifest["calls"], capture.calls)):
        rcall = report["calls"][i]
        assert rcall["missing"] == mcall["missing"]
        assert rcall["filled"] == mcall["filled"]
        assert rcall["constant_kwargs"] == mcall["constant_kwargs"]
        mleaves = list(leaves(mcall["inputs"]))
        assert rcall["num_leaves"] == len(mleaves)
        for m in mleaves:
            r = by_path[m["path"]]["calls"][i]
            assert r is not None, f"call {i}: reader lost {m['path']}"
            assert r["kind"] == m["kind"]
            if m["kind"] == "tensor":
                assert (r["dtype"], r["shape"], r["device"], r["tensor"]) == (m["dtype"], m["shape"], m["device"], m["tensor"])
        # Paths the reader reports for this call are exactly the manifest's.
        present = {p for p, leaf in by_path.items() if leaf["calls"][i] is not None}
        assert present == {m["path"] for m in mleaves}
        # And they describe the tensors Python loads back.
        for p, tensor in flat_tensors(loaded.kwargs, ""):
            r = by_path[p]["calls"][i]
            assert r["shape"] == list(tensor.shape), p
            assert r["dtype"] == TORCH_TO_ST[tensor.dtype], p
    return report


def test_add_model(tmp_path):
    model = AddModel()
    rec = InputRecorder()
    with rec(model):
        for b, s in ((2, 6), (3, 7), (4, 8)):
            model(torch.randn(b, s), torch.randn(1, s))
    rec.save(tmp_path / "add.safetensors")
    report = check_round_trip(tmp_path / "add.safetensors")
    assert [leaf["path"] for leaf in report["leaves"]] == ["x", "y"]
    assert [c["shape"] for c in report["leaves"][0]["calls"]] == [[2, 6], [3, 7], [4, 8]]


def test_llm_like_cache(tmp_path):
    model = LLMLikeModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.randint(0, 1000, (1, 10)), attention_mask=torch.ones(1, 10, dtype=torch.int64))
        for step in (0, 1):
            model(torch.randint(0, 1000, (1, 1)), attention_mask=torch.ones(1, 11 + step, dtype=torch.int64),
                  past_key_values=make_kv_cache(kv_pairs(1, 4, 10 + step, 32, 2, seed=step)))
    rec.save(tmp_path / "llm.safetensors")
    report = check_round_trip(tmp_path / "llm.safetensors")
    by = {leaf["path"]: leaf for leaf in report["leaves"]}
    assert by["past_key_values.key_cache[1]"]["calls"][0] is None
    assert by["past_key_values.value_cache[0]"]["calls"][2]["shape"] == [1, 4, 11, 32]
    assert "KVCache(key_cache=#2[" in report["calls"][1]["summary"]


def test_multimodal_value_if_missing(tmp_path):
    model = MultimodalModel()
    rec = InputRecorder(value_if_missing=dict(pixel_values=torch.empty((0, 3, 224, 224))))
    with rec(model):
        model(torch.randint(0, 1000, (1, 20)), pixel_values=torch.rand(1, 3, 224, 224),
              attention_mask=torch.ones(1, 20, dtype=torch.int64))
        model(torch.randint(0, 1000, (1, 1)), attention_mask=torch.ones(1, 21, dtype=torch.int64),
              past_key_values=make_kv_cache(kv_pairs(1, 4, 20, 32, 2, seed=3)))
    rec.save(tmp_path / "mm.safetensors")
    report = check_round_trip(tmp_path / "mm.safetensors")
    pixels = {leaf["path"]: leaf for leaf in report["leaves"]}["pixel_values"]
    assert [c["shape"] for c in pixels["calls"]] == [[1, 3, 224, 224], [0, 3, 224, 224]]
    assert report["calls"][1]["filled"] == ["pixel_values"]


def test_demo_capture(root):
    check_round_trip(root / "resources" / "demo" / "demo-capture.safetensors")


def test_reader_rejects_a_truncated_recording(tmp_path):
    model = AddModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.randn(2, 3), torch.randn(1, 3))
    path = tmp_path / "cut.safetensors"
    rec.save(path)
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    done = subprocess.run([CLI, "inspect", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert str(path.name) in done.stderr and done.stderr.count("\n") == 1

# SPDX-License-Identifier: GPL-3.0-or-later
"""Integration: the dynamic_shapes dimscope-cli analyze emits (Python snippet and JSON
spec through dimscope.worker.spec) are accepted by torch.export.export(strict=False) on the
recorded inputs, and every dimension inferred dynamic is symbolic in the program."""

import json
import os
import re
import subprocess

import pytest
import torch

from capture_models import AddModel, CacheSumModel, MultimodalModel, kv_pairs, make_kv_cache
from dimscope import demo
from dimscope.capture import InputRecorder, load_capture
from dimscope.worker.spec import load_dynamic_shapes

CLI = os.environ.get("DIMSCOPE_CLI")


# ctest sets DIMSCOPE_CLI; run by hand without it, these tests are skipped (never
# silently when the CLI is set but broken: then they fail).
pytestmark = pytest.mark.skipif(not CLI, reason="DIMSCOPE_CLI is not set (run through ctest)")


def analyze(path, *options):
    proc = subprocess.run([CLI, "analyze", str(path), *options], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"analyze {options} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def placeholder(path):
    """The placeholder name torch gives the input at a key path (past_key_values.key_cache[0])."""
    return re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z_]", "_", path)).strip("_")


def dynamic_dims(constraints, keep=lambda e: e != "static"):
    return {path: [i for i, e in enumerate(entries) if keep(e)]
            for path, entries in constraints["leaves"].items() if any(keep(e) for e in entries)}


def symbolic_dims(constraints):
    """Dims that must stay symbolic: named Dims and Dim.DYNAMIC (Dim.AUTO may specialize)."""
    return dynamic_dims(constraints, lambda e: e not in ("static", "auto"))


def export_and_check(model, capture_path, dynamic_shapes, example, expected):
    capture = load_capture(capture_path)
    args, kwargs = capture.calls[example].call_arguments()
    ep = torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=dynamic_shapes, strict=False)
    shapes = {n.name: n.meta["val"].shape for n in ep.graph.nodes if n.op == "placeholder"}
    for path, dims in expected.items():
        name = placeholder(path)
        assert name in shapes, f"{path}: no placeholder {name} in {sorted(shapes)}"
        for d in dims:
            assert isinstance(shapes[name][d], torch.SymInt), f"{path} dim {d} is static in the program: {shapes[name]}"
    return ep


def check_capture(model, path, *options, expect_dynamic=None):
    constraints = json.loads(analyze(path, "--format", "json", *options))
    if expect_dynamic is not None:
        assert dynamic_dims(constraints) == expect_dynamic
    dyn = symbolic_dims(constraints)
    python = analyze(path, "--format", "python", *options)
    example = int(re.search(r"example call (\d+)", python).group(1))
    namespace = {}
    exec(compile(python, "dynamic_shapes.py", "exec"), namespace)  # the snippet a user pastes
    export_and_check(model, path, namespace["dynamic_shapes"], example, dyn)
    spec = json.loads(analyze(path, "--format", "spec", *options))
    export_and_check(model, path, load_dynamic_shapes(spec), example, dyn)
    return constraints, python


def test_seed_add_model(tmp_path):
    model = AddModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.randn(5, 6), torch.randn(1, 6))
        model(torch.randn(7, 8), torch.randn(1, 8))
    path = tmp_path / "add.safetensors"
    rec.save(path)
    check_capture(model, path, expect_dynamic={"x": [0, 1], "y": [1]})


def test_seed_cache_batch_and_length(tmp_path):
    model = CacheSumModel()
    rec = InputRecorder(store_n_calls=3)
    with rec(model):
        model(torch.randint(0, 9, (2, 3)), past_key_values=make_kv_cache(kv_pairs(2, 4, 3, 8, 2, seed=1)))
        model(torch.randint(0, 9, (3, 2)), past_key_values=make_kv_cache(kv_pairs(3, 4, 5, 8, 2, seed=2)))
        model(torch.randint(0, 9, (4, 4)), past_key_values=make_kv_cache(kv_pairs(4, 4, 6, 8, 2, seed=3)))
    path = tmp_path / "cache.safetensors"
    rec.save(path)
    constraints, python = check_capture(model, path)
    dyn = dynamic_dims(constraints)
    # The seed's answer: cache dims 0 and 2.
    for part in ("key_cache", "value_cache"):
        for layer in (0, 1):
            assert dyn[f"past_key_values.{part}[{layer}]"] == [0, 2]
    assert "\"past_key_values\": [\n        [\n" in python


def test_seed_cache_batch_forced(tmp_path):
    model = CacheSumModel()
    rec = InputRecorder(store_n_calls=3)
    with rec(model):
        for seq in (3, 5, 6):
            model(torch.randint(0, 9, (2, seq)), past_key_values=make_kv_cache(kv_pairs(2, 4, seq + 1, 8, 2, seed=seq)))
    path = tmp_path / "cache-batch.safetensors"
    rec.save(path)
    constraints = json.loads(analyze(path, "--format", "json"))
    assert dynamic_dims(constraints)["past_key_values.key_cache[0]"] == [2]
    # Batch 2 in every call: forcing it makes dim 0 dynamic everywhere, one `batch` Dim.
    constraints, _ = check_capture(model, path, "--batch-dim", "all")
    assert constraints["leaves"]["past_key_values.key_cache[1]"][0] == "batch"
    assert constraints["leaves"]["input_ids"][0] == "batch"


def test_seed_multimodal_value_if_missing(tmp_path):
    model = MultimodalModel()
    rec = InputRecorder(store_n_calls=3, value_if_missing=dict(pixel_values=torch.empty((0, 3, 8, 8))))
    with rec(model):
        model(input_ids=torch.randint(0, 9, (2, 4)), attention_mask=torch.ones(2, 4, dtype=torch.int64))
        model(input_ids=torch.randint(0, 9, (2, 6)), pixel_values=torch.rand(2, 3, 8, 8),
              attention_mask=torch.ones(2, 6, dtype=torch.int64))
        model(input_ids=torch.randint(0, 9, (2, 5)), pixel_values=torch.rand(3, 3, 8, 8),
              attention_mask=torch.ones(2, 5, dtype=torch.int64))
    path = tmp_path / "mm.safetensors"
    rec.save(path)
    table = analyze(path)
    assert "pixel_values" in table and "is 0 in call(s) 0" in table
    constraints, python = check_capture(model, path)
    assert dynamic_dims(constraints)["pixel_values"] == [0]
    assert "example call 1" in python


def test_demo_model_generation(tmp_path):
    model = demo.make_model()
    rec = InputRecorder(store_n_calls=5)
    with rec(model), torch.no_grad():
        ids, mask = demo.demo_prompt(batch=2, prefill=5)
        _, cache = model(ids, attention_mask=mask)
        for new in (3, 2):
            ids = torch.randint(1, demo.VOCAB, (2, new))
            mask = torch.cat([mask, torch.ones(2, new, dtype=torch.int64)], dim=1)
            _, cache = model(ids, attention_mask=mask, past_key_values=cache)
        ids, mask = demo.demo_prompt(batch=3, prefill=4, seed=3)
        _, cache = model(ids, attention_mask=mask)
        model(torch.randint(1, demo.VOCAB, (3, 2)), attention_mask=torch.ones(3, 6, dtype=torch.int64),
              past_key_values=cache)
    path = tmp_path / "demo.safetensors"
    rec.save(path)
    table = analyze(path)
    # The mask length is past + new tokens: reported, not expressible.
    assert "'total_len' = 'seq_len' + 'past_len'" in table
    constraints, python = check_capture(model, path)
    dyn = dynamic_dims(constraints)
    assert dyn["input_ids"] == [0, 1] and dyn["attention_mask"] == [0, 1]
    assert dyn["past_key_values.key_cache[0]"] == [0, 2]
    assert "past_len = Dim(\"past_len\", min=2)" in python


def test_bundled_demo_capture():
    """The bundled demo capture (resources/demo): whatever it holds, the emitted spec exports
    and keeps every named dim symbolic; the cache length is one Dim across all layers."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "resources", "demo", "demo-capture.safetensors")
    if not os.path.exists(path):
        pytest.skip("no bundled demo capture")
    analyze(path)  # the table: exit status 0 (no structure errors)
    constraints, python = check_capture(demo.make_model(), path)
    cache_dims = {tuple(constraints["leaves"][f"past_key_values.{part}[{layer}]"])
                  for part in ("key_cache", "value_cache") for layer in (0, 1)}
    assert len(cache_dims) == 1 and "past_len" in cache_dims.pop()
    assert "past_len = Dim(\"past_len\"" in python

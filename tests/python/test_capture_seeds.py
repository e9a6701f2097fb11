# SPDX-License-Identifier: GPL-3.0-or-later
"""The three seed scenarios of InputObserver, recorded with dimscope's InputRecorder."""

import json
import struct

import torch

from capture_models import AddModel, KVCache, LLMLikeModel, MultimodalModel, kv_pairs, make_kv_cache
from conftest import leaves, same
from dimscope.capture import InputRecorder, load_capture


def read_header(path):
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n])


def test_add_model_three_shapes(tmp_path):
    model = AddModel()
    inputs = [(torch.randn(2, 6), torch.randn(1, 6)),
              (torch.randn(3, 7), torch.randn(1, 7)),
              (torch.randn(4, 8), torch.randn(1, 8))]
    rec = InputRecorder()
    with rec(model):
        for x, y in inputs:
            model(x, y)
    assert rec.num_calls == 3
    path = tmp_path / "add.safetensors"
    rec.save(path)

    header = read_header(path)
    manifest = json.loads(header["__metadata__"]["dimscope.manifest"])
    assert manifest["format"] == "dimscope.capture" and manifest["version"] == 1
    assert manifest["model"]["class"] == "capture_models.AddModel"
    assert manifest["model"]["signature"] == [
        {"name": "x", "kind": "POSITIONAL_OR_KEYWORD", "has_default": False},
        {"name": "y", "kind": "POSITIONAL_OR_KEYWORD", "has_default": False}]
    assert manifest["flattening"] == {}
    assert manifest["torch_version"] == torch.__version__
    for i, (call, (x, y)) in enumerate(zip(manifest["calls"], inputs)):
        assert call["index"] == i and call["num_positional"] == 2
        assert call["inputs"]["kind"] == "dict" and call["inputs"]["keys"] == ["x", "y"]
        got = [(l["path"], l["kind"], l["dtype"], l["shape"], l["device"]) for l in leaves(call["inputs"])]
        assert got == [("x", "tensor", "F32", list(x.shape), "cpu"), ("y", "tensor", "F32", list(y.shape), "cpu")]
        assert call["missing"] == [] and call["filled"] == [] and call["constant_kwargs"] == {}
        out = call["outputs"]
        assert out["kind"] == "tensor" and out["path"] == "output" and out["shape"] == list(x.shape)
        # Each leaf names its tensor, whose header entry agrees with it.
        for leaf in list(leaves(call["inputs"])) + [out]:
            entry = header[leaf["tensor"]]
            assert entry["dtype"] == leaf["dtype"] and entry["shape"] == leaf["shape"]

    capture = load_capture(path)
    assert len(capture.calls) == 3
    for call, (x, y) in zip(capture.calls, inputs):
        same({"x": x, "y": y}, call.kwargs)
        same(x + y, call.outputs)
        args, kwargs = call.call_arguments()
        assert args == () and set(kwargs) == {"x", "y"}
        same(x + y, model(*args, **kwargs))


def llm_inputs():
    return [
        dict(input_ids=torch.randint(0, 1000, (1, 10)),
             attention_mask=torch.ones(1, 10, dtype=torch.int64)),
        dict(input_ids=torch.randint(0, 1000, (1, 1)),
             attention_mask=torch.ones(1, 11, dtype=torch.int64),
             past_key_values=make_kv_cache(kv_pairs(1, 4, 10, 32, 2, seed=1))),
        dict(input_ids=torch.randint(0, 1000, (1, 1)),
             attention_mask=torch.ones(1, 12, dtype=torch.int64),
             past_key_values=make_kv_cache(kv_pairs(1, 4, 11, 32, 2, seed=2))),
    ]


def test_llm_like_model_with_registered_cache(tmp_path):
    model = LLMLikeModel()
    inputs = llm_inputs()
    rec = InputRecorder()
    with rec(model):
        for kwargs in inputs:
            model(**kwargs)
    path = tmp_path / "llm.safetensors"
    rec.save(path)
    capture = load_capture(path)
    manifest = capture.manifest

    assert manifest["flattening"] == {"capture_models.KVCache": "pytree"}
    assert [p["name"] for p in manifest["model"]["signature"]] == ["input_ids", "attention_mask", "past_key_values"]
    assert manifest["model"]["signature"][2] == {"name": "past_key_values", "kind": "POSITIONAL_OR_KEYWORD",
                                                "has_default": True, "default": None}
    prefill, decode = manifest["calls"][0], manifest["calls"][1]
    assert prefill["missing"] == ["past_key_values"] and prefill["num_positional"] == 0
    assert prefill["inputs"]["keys"] == ["input_ids", "attention_mask"]
    assert decode["missing"] == []
    cache = decode["inputs"]["children"][2]
    assert cache["kind"] == "custom" and cache["type"] == "capture_models.KVCache"
    assert cache["flavour"] == "pytree"
    assert cache["keys"] == ["key_cache", "value_cache"]
    assert cache["context"] == ["key_cache", "value_cache"]
    assert [c["kind"] for c in cache["children"]] == ["list", "list"]
    got = [(l["path"], l["dtype"], l["shape"]) for l in leaves(decode["inputs"])]
    assert got == [("input_ids", "I64", [1, 1]), ("attention_mask", "I64", [1, 11]),
                   ("past_key_values.key_cache[0]", "F32", [1, 4, 10, 32]),
                   ("past_key_values.key_cache[1]", "F32", [1, 4, 10, 32]),
                   ("past_key_values.value_cache[0]", "F32", [1, 4, 10, 32]),
                   ("past_key_values.value_cache[1]", "F32", [1, 4, 10, 32])]
    # Tensor names follow c<CALL>/in/<LEAF>.
    assert [l["tensor"] for l in leaves(decode["inputs"])] == [f"c1/in/{i}" for i in range(6)]
    out_paths = [l["path"] for l in leaves(decode["outputs"])]
    assert out_paths[0] == "output[0]" and out_paths[1] == "output[1].key_cache[0]"

    for recorded, call in zip(inputs, capture.calls):
        same(recorded, call.kwargs)
    assert isinstance(capture.calls[1].kwargs["past_key_values"], KVCache)
    # The pytree flattening of the rebuilt cache is the one recorded.
    flat, _ = torch.utils._pytree.tree_flatten(capture.calls[2].kwargs["past_key_values"])
    same(inputs[2]["past_key_values"].key_cache + inputs[2]["past_key_values"].value_cache, flat)


def test_cache_snapshot_taken_at_call_time(tmp_path):
    """A model that updates its cache in place must not change what was recorded."""
    class Appending(torch.nn.Module):
        def forward(self, input_ids, past_key_values=None):
            k = torch.ones(1, 2, input_ids.shape[1], 4)
            past_key_values.update(k, k, 0)
            return past_key_values

    model = Appending()
    cache = make_kv_cache([(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4))])
    rec = InputRecorder()
    with rec(model):
        model(torch.zeros(1, 2, dtype=torch.int64), past_key_values=cache)
        model(torch.zeros(1, 1, dtype=torch.int64), past_key_values=cache)
    rec.save(tmp_path / "c.safetensors")
    calls = load_capture(tmp_path / "c.safetensors").calls
    assert calls[0].kwargs["past_key_values"].key_cache[0].shape == (1, 2, 3, 4)
    assert calls[0].outputs.key_cache[0].shape == (1, 2, 5, 4)
    assert calls[1].kwargs["past_key_values"].key_cache[0].shape == (1, 2, 5, 4)
    assert calls[1].outputs.key_cache[0].shape == (1, 2, 6, 4)


def test_multimodal_value_if_missing(tmp_path):
    model = MultimodalModel()
    empty_pixels = torch.empty((0, 3, 224, 224), dtype=torch.float32)
    pixels = torch.rand(1, 3, 224, 224)
    calls = [
        dict(input_ids=torch.randint(0, 1000, (1, 20)), pixel_values=pixels,
             attention_mask=torch.ones(1, 20, dtype=torch.int64)),
        dict(input_ids=torch.randint(0, 1000, (1, 1)), attention_mask=torch.ones(1, 21, dtype=torch.int64),
             past_key_values=make_kv_cache(kv_pairs(1, 4, 20, 32, 2, seed=3))),
        dict(input_ids=torch.randint(0, 1000, (1, 1)), attention_mask=torch.ones(1, 22, dtype=torch.int64),
             past_key_values=make_kv_cache(kv_pairs(1, 4, 21, 32, 2, seed=4))),
    ]
    rec = InputRecorder(value_if_missing=dict(pixel_values=empty_pixels))
    with rec(model):
        for kwargs in calls:
            model(**kwargs)
    path = tmp_path / "mm.safetensors"
    rec.save(path)
    capture = load_capture(path)
    manifest = capture.manifest
    assert manifest["value_if_missing"] == ["pixel_values"]
    first, second, third = manifest["calls"]
    assert first["missing"] == ["past_key_values"] and first["filled"] == []
    assert first["inputs"]["keys"] == ["input_ids", "pixel_values", "attention_mask"]
    for call in (second, third):
        assert call["missing"] == ["pixel_values"] and call["filled"] == ["pixel_values"]
        # Filled inputs keep the signature order.
        assert call["inputs"]["keys"] == ["input_ids", "pixel_values", "attention_mask", "past_key_values"]
        pixel_leaf = call["inputs"]["children"][1]
        assert pixel_leaf["shape"] == [0, 3, 224, 224] and pixel_leaf["dtype"] == "F32"
    loaded = capture.calls
    same(pixels, loaded[0].kwargs["pixel_values"])
    same(empty_pixels, loaded[1].kwargs["pixel_values"])
    assert loaded[1].filled == ["pixel_values"] and loaded[1].missing == ["pixel_values"]
    expected = dict(calls[1])
    expected = {k: expected[k] if k != "pixel_values" else empty_pixels
                for k in ["input_ids", "pixel_values", "attention_mask", "past_key_values"]}
    same(expected, loaded[1].kwargs)

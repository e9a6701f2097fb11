# SPDX-License-Identifier: GPL-3.0-or-later
"""Flattening of transformers' caches and of classes registered through dimscope.

transformers is not installed in dimscope's test runtime, so its cache classes are
emulated here with their two public layouts (attribute-based ``key_cache``/``value_cache``
up to 4.5x, layer-based ``.layers[i].keys/.values`` after), under their real qualified
names in a stand-in ``transformers.cache_utils`` module installed only for the test."""

import collections
import json
import types

import pytest
import torch

from capture_models import CacheSumModel, PlainKV, kv_pairs, make_kv_cache
from conftest import leaves, same, torch_python
from dimscope import caches
from dimscope.capture import CaptureError, InputRecorder, load_capture


def attribute_module():
    module = types.ModuleType("transformers.cache_utils")

    class DynamicCache:
        def __init__(self):
            self.key_cache, self.value_cache = [], []

        def update(self, k, v, idx):
            if len(self.key_cache) <= idx:
                self.key_cache.append(k)
                self.value_cache.append(v)
            return self.key_cache[idx], self.value_cache[idx]

    class StaticCache:
        def __init__(self, key_cache, value_cache):
            self.key_cache, self.value_cache = key_cache, value_cache

    class EncoderDecoderCache:
        def __init__(self, self_attention_cache, cross_attention_cache):
            self.self_attention_cache = self_attention_cache
            self.cross_attention_cache = cross_attention_cache

    for cls in (DynamicCache, StaticCache, EncoderDecoderCache):
        cls.__module__, cls.__qualname__ = module.__name__, cls.__name__
        setattr(module, cls.__name__, cls)
    return module


def layer_module():
    module = types.ModuleType("transformers.cache_utils")

    class DynamicLayer:
        def __init__(self):
            self.keys = self.values = None

    class DynamicCache:
        def __init__(self):
            self.layers = []

        def update(self, k, v, idx):
            while len(self.layers) <= idx:
                self.layers.append(DynamicLayer())
            layer = self.layers[idx]
            if layer.keys is None:
                layer.keys, layer.values = k, v
            else:
                layer.keys = torch.cat([layer.keys, k], dim=-2)
                layer.values = torch.cat([layer.values, v], dim=-2)
            return layer.keys, layer.values

    for cls in (DynamicLayer, DynamicCache):
        cls.__module__, cls.__qualname__ = module.__name__, cls.__name__
        setattr(module, cls.__name__, cls)
    return module


class CacheModel(torch.nn.Module):
    def forward(self, input_ids, past_key_values=None):
        return input_ids


def record(model, *calls):
    rec = InputRecorder()
    with rec(model):
        for kwargs in calls:
            model(**kwargs)
    return rec


def cache_leaves(manifest, call=0):
    node = manifest["calls"][call]["inputs"]["children"][1]
    return node, [(l["path"], l.get("shape")) for l in leaves(node)]


@pytest.mark.parametrize("make_module", [attribute_module, layer_module], ids=["attributes", "layers"])
def test_dynamic_cache_flattens_like_transformers(tmp_path, monkeypatch, make_module):
    module = make_module()
    monkeypatch.setitem(__import__("sys").modules, "transformers.cache_utils", module)
    assert not caches.is_registered(module.DynamicCache)
    pairs = kv_pairs(2, 3, 4, 5, 2, seed=0)
    cache = make_kv_cache(pairs, cls=module.DynamicCache)
    ids = torch.ones(2, 1, dtype=torch.int64)
    rec = record(CacheModel(), dict(input_ids=ids, past_key_values=cache))
    path = tmp_path / "c.safetensors"
    rec.save(path)
    capture = load_capture(path)
    assert capture.manifest["flattening"] == {"transformers.cache_utils.DynamicCache": "key_value_dict"}
    node, got = cache_leaves(capture.manifest)
    assert node["type"] == "transformers.cache_utils.DynamicCache"
    assert node["keys"] == node["context"] == ["key_cache", "value_cache"]
    assert got == [(f"past_key_values.{kind}[{i}]", [2, 3, 4, 5])
                   for kind in ("key_cache", "value_cache") for i in range(2)]
    rebuilt = capture.calls[0].kwargs["past_key_values"]
    assert type(rebuilt) is module.DynamicCache
    keys, values = caches.key_value_lists(rebuilt)
    same([k for k, _ in pairs], keys)
    same([v for _, v in pairs], values)


def test_encoder_decoder_and_static_caches(tmp_path, monkeypatch):
    module = attribute_module()
    monkeypatch.setitem(__import__("sys").modules, "transformers.cache_utils", module)
    self_cache = make_kv_cache(kv_pairs(1, 2, 3, 4, 1, seed=1), cls=module.DynamicCache)
    cross_cache = make_kv_cache(kv_pairs(1, 2, 7, 4, 1, seed=2), cls=module.DynamicCache)
    enc_dec = module.EncoderDecoderCache(self_cache, cross_cache)
    pairs = kv_pairs(1, 2, 16, 4, 2, seed=3)
    static = module.StaticCache([k for k, _ in pairs], [v for _, v in pairs])
    rec = record(CacheModel(), dict(input_ids=torch.ones(1, 1), past_key_values=enc_dec),
                 dict(input_ids=torch.ones(1, 1), past_key_values=static))
    path = tmp_path / "c.safetensors"
    rec.save(path)
    manifest = json.loads(json.dumps(caches_manifest(path)))
    assert manifest["flattening"] == {
        "transformers.cache_utils.DynamicCache": "key_value_dict",
        "transformers.cache_utils.EncoderDecoderCache": "encoder_decoder",
        "transformers.cache_utils.StaticCache": "static_layers"}
    node, got = cache_leaves(manifest, 0)
    assert node["keys"] == ["self_attention_cache", "cross_attention_cache"]
    assert [c["kind"] for c in node["children"]] == ["custom", "custom"]
    assert got == [("past_key_values.self_attention_cache.key_cache[0]", [1, 2, 3, 4]),
                   ("past_key_values.self_attention_cache.value_cache[0]", [1, 2, 3, 4]),
                   ("past_key_values.cross_attention_cache.key_cache[0]", [1, 2, 7, 4]),
                   ("past_key_values.cross_attention_cache.value_cache[0]", [1, 2, 7, 4])]
    node, got = cache_leaves(manifest, 1)
    # An attribute-based static cache (transformers 4.4x's layout): keys and values only,
    # the positions come from the model's cache_position input.
    assert node["flavour"] == "static_layers" and len(got) == 4
    assert node["context"] == {"children": ["key_cache", "value_cache"], "layers": ["static", "static"]}

    capture = load_capture(path)
    static_rebuilt = capture.calls[1].kwargs["past_key_values"]
    assert type(static_rebuilt) is module.StaticCache and static_rebuilt.max_cache_len == 16
    same(static.value_cache, static_rebuilt.value_cache)
    # A factory still takes precedence.
    capture = load_capture(path, factories={
        "transformers.cache_utils.StaticCache": lambda children, context: module.StaticCache(*children)})
    rebuilt = capture.calls[0].kwargs["past_key_values"]
    assert type(rebuilt) is module.EncoderDecoderCache
    same(self_cache.key_cache, rebuilt.self_attention_cache.key_cache)
    same(cross_cache.value_cache, rebuilt.cross_attention_cache.value_cache)
    same(static.key_cache, capture.calls[1].kwargs["past_key_values"].key_cache)


def caches_manifest(path):
    from dimscope.capture import read_manifest
    return read_manifest(path)


def test_unregistered_custom_class_is_unsupported():
    class Opaque:
        key_cache = []
        value_cache = []

    with pytest.raises(CaptureError, match=r"^past_key_values: unsupported type .*Opaque"):
        record(CacheModel(), dict(input_ids=torch.ones(1), past_key_values=Opaque()))


def test_pytree_class_without_keys_gets_index_keys(tmp_path):
    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    torch.utils._pytree.register_pytree_node(
        Box, lambda box: ([box.a, box.b], None), lambda values, ctx: Box(*values))
    try:
        rec = record(CacheModel(), dict(input_ids=torch.ones(1), past_key_values=Box(torch.ones(2), 3)))
        rec.save(tmp_path / "c.safetensors")
        node, got = cache_leaves(caches_manifest(tmp_path / "c.safetensors"))
        assert node["flavour"] == "pytree" and node["keys"] == ["0", "1"] and node["context"] is None
        assert [p for p, _ in got] == ["past_key_values.0", "past_key_values.1"]
    finally:
        torch.utils._pytree.SUPPORTED_NODES.pop(Box, None)


class Outputs(collections.OrderedDict):
    """A dict subclass registered the way transformers registers its ModelOutput classes:
    the field names as the context, and no flatten-with-keys function."""


def test_a_model_output_is_recorded_under_its_field_names(tmp_path):
    """An encoder-decoder's encoder_outputs (issue 24): its leaves are named by their
    field names, as the worker's keyed flattening names the program's inputs, so the
    read-back matches the program input with its leaf (the capture said
    encoder_outputs.0, and the read-back noted encoder_outputs_last_hidden_state as
    matching none of the given leaves)."""
    pytree = torch.utils._pytree
    pytree.register_pytree_node(Outputs, lambda o: (list(o.values()), list(o.keys())),
                                lambda values, keys: Outputs(zip(keys, values)))
    try:
        state = Outputs(last_hidden_state=torch.ones(2, 5, 3))
        rec = record(CacheModel(), dict(input_ids=torch.ones(1), past_key_values=state))
        rec.save(tmp_path / "c.safetensors")
        node, got = cache_leaves(caches_manifest(tmp_path / "c.safetensors"))
        assert node["flavour"] == "pytree" and node["keys"] == ["last_hidden_state"], node
        assert got == [("past_key_values.last_hidden_state", [2, 5, 3])]
        caches._ensure_flatten_with_keys(Outputs)  # what the worker registers before exporting
        (path, _), = pytree.tree_flatten_with_path({"past_key_values": state})[0]
        assert pytree.keystr(path) == "['past_key_values']['last_hidden_state']"
        rebuilt = load_capture(tmp_path / "c.safetensors").calls[0].kwargs["past_key_values"]
        assert type(rebuilt) is Outputs and list(rebuilt) == ["last_hidden_state"]
    finally:
        pytree.SUPPORTED_NODES.pop(Outputs, None)


EXPORT_IN_FRESH_PROCESS = r"""
import json, sys, torch
import torch.utils._pytree as pytree
from torch.export import Dim
from dimscope.capture import load_capture
from dimscope.caches import register_capture_flattening
import capture_models

from dimscope.caches import CaptureError, register_key_value_cache

before = capture_models.PlainKV in pytree.SUPPORTED_NODES
# A capture never makes the worker build a class nobody registered.
try:
    load_capture(sys.argv[1])
    refused = None
except CaptureError as e:
    refused = str(e)
register_key_value_cache(capture_models.PlainKV)  # what the user's model code does
capture = load_capture(sys.argv[1])
actions = register_capture_flattening(capture.manifest)
again = register_capture_flattening(capture.manifest)
call = capture.calls[0]
batch, seq = Dim("batch"), Dim("seq")
cache_spec = [[{0: batch, 2: seq}] * 2, [{0: batch, 2: seq}] * 2]
model = capture_models.CacheSumModel()
ep = torch.export.export(model, (), dict(call.kwargs), strict=False,
                         dynamic_shapes={"input_ids": {0: batch}, "past_key_values": cache_spec})
other = capture.calls[1].kwargs
print(json.dumps({"before": before, "refused": refused, "actions": actions, "again": again,
                  "placeholders": [str(list(n.meta["val"].shape)) for n in ep.graph.nodes
                                   if n.op == "placeholder"],
                  "replay_equal": bool(torch.allclose(ep.module()(**other), model(**other)))}))
"""


def test_worker_uses_the_registered_flattening(tmp_path):
    caches.register_key_value_cache(PlainKV)
    model = CacheSumModel()
    rec = record(model,
                 dict(input_ids=torch.ones(2, 1, dtype=torch.int64),
                      past_key_values=make_kv_cache(kv_pairs(2, 3, 4, 5, 2, seed=5), cls=PlainKV)),
                 dict(input_ids=torch.ones(3, 1, dtype=torch.int64),
                      past_key_values=make_kv_cache(kv_pairs(3, 3, 6, 5, 2, seed=6), cls=PlainKV)))
    path = tmp_path / "plain.safetensors"
    rec.save(path)
    assert caches_manifest(path)["flattening"] == {"capture_models.PlainKV": "key_value_dict"}
    result = torch_python("-c", EXPORT_IN_FRESH_PROCESS, str(path))
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["before"] is False
    assert "past_key_values.key_cache[0]: capture_models.PlainKV is not a key_value_dict class" in report["refused"]
    assert report["actions"] == {"capture_models.PlainKV": "already registered"}
    assert report["again"] == {"capture_models.PlainKV": "already registered"}
    # The cache tensors are graph inputs sharing input_ids' symbolic batch, with a
    # symbolic sequence length (symbol numbering varies between torch versions).
    import re
    batch = re.fullmatch(r"\[(s\d+), 1\]", report["placeholders"][0]).group(1)
    cache_shapes = set(report["placeholders"][1:])
    assert len(report["placeholders"]) == 5 and len(cache_shapes) == 1, report
    assert re.fullmatch(rf"\[{batch}, 3, s\d+, 5\]", cache_shapes.pop()), report
    assert report["replay_equal"] is True


def test_register_capture_flattening_errors():
    with pytest.raises(CaptureError, match="no_such_module.Cache is not a class loaded in this process"):
        caches.register_capture_flattening({"flattening": {"no_such_module.Cache": "key_value_dict"}})
    with pytest.raises(CaptureError, match="capture_models.AddModel is not a pytree class dimscope may build"):
        caches.register_capture_flattening({"flattening": {"capture_models.AddModel": "pytree"}})

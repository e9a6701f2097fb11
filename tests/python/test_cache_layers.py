# SPDX-License-Identifier: GPL-3.0-or-later
"""Layer-based DynamicCaches of transformers 5.x whose layers are not all full-attention
layers (Gemma2's sliding-window layers, Mamba's linear-attention layers): the capture
records each layer's kind, loading rebuilds the same kinds, dimscope's registration
flattens them the way the capture does, and dimscope's export layers compute exactly
what transformers' layers compute. Needs transformers (the sid runtime)."""

import copy
import warnings

import pytest
import torch
import torch.utils._pytree as pytree

transformers = pytest.importorskip("transformers", reason="transformers' cache layers are tested on the sid runtime")
from transformers.cache_utils import (DynamicCache, DynamicLayer,  # noqa: E402
                                      DynamicSlidingWindowLayer, LinearAttentionLayer)

from dimscope import cachelayers, caches  # noqa: E402
from dimscope.capture import CaptureError, InputRecorder, load_capture, read_manifest  # noqa: E402
from dimscope.capture.file import write_capture  # noqa: E402

from cachecaptures import cache_node, logits, record_generate, sweep  # noqa: E402

W = 4  # sliding window: a sliding layer keeps its last W - 1 tokens
DYNAMIC_CACHE = "transformers.cache_utils.DynamicCache"


@pytest.fixture(autouse=True)
def keep_registrations():
    """These tests change DynamicCache's pytree registration: put back what was there."""
    node = pytree.SUPPORTED_NODES.get(DynamicCache)
    yield
    if pytree.SUPPORTED_NODES.get(DynamicCache) is not node:
        if DynamicCache in pytree.SUPPORTED_NODES:
            caches._deregister(DynamicCache)
        if node is not None:
            caches._register(DynamicCache, node.flatten_fn, node.unflatten_fn, node.flatten_with_keys_fn)


def cache_of(*layers):
    cache = DynamicCache()
    cache.layers = list(layers)
    cache.layer_class_to_replicate = None
    return cache


def kv(n, seed, batch=2):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 2, n, 3, generator=g), torch.randn(batch, 2, n, 3, generator=g)


class Step(torch.nn.Module):
    """A decoder step: appends `keys` to every attention layer of the cache."""

    def forward(self, keys, past_key_values=None):
        for i in range(len(past_key_values.layers)):
            past_key_values.update(keys, keys + 1, i)
        return keys.sum()


def record_steps(tmp_path, make_cache, prompt=3, steps=3, name="c.safetensors"):
    """generate()-like: a cache passed empty with a prompt, then one token per call."""
    model, rec = Step(), InputRecorder(store_n_calls=1 + steps)
    cache = make_cache()
    with rec(model):
        model(kv(prompt, 0)[0], past_key_values=cache)
        for s in range(steps):
            model(kv(1, s + 1)[0], past_key_values=cache)
    path = tmp_path / name
    rec.save(path)
    return path


def test_sliding_and_full_layers_are_recorded_and_rebuilt(tmp_path):
    path = record_steps(tmp_path, lambda: cache_of(DynamicSlidingWindowLayer(sliding_window=W), DynamicLayer()))
    manifest = read_manifest(path)
    assert manifest["flattening"][DYNAMIC_CACHE] == "dynamic_layers"
    assert manifest["pytree_registrations"][DYNAMIC_CACHE]["follows"] == "dimscope"
    seen = [0, 3, 4, 5]
    for call, n in enumerate(seen):
        node = cache_node(manifest, call)
        assert node["keys"] == node["context"] == ["key_cache", "value_cache"]
        assert node["layers"] == [{"type": "sliding", "sliding_window": W, "seen": n}, {"type": "full"}]
        # the sliding layer holds its last W - 1 tokens, the full layer all of them
        assert [leaf["shape"][2] for leaf in node["children"][0]["children"]] == [min(n, W - 1), n]
    assert manifest["calls"][0]["empty_caches"] == ["past_key_values"]

    capture = load_capture(path)
    assert capture.inexact == []
    for call, n in zip(capture.calls, seen):
        cache = call.kwargs["past_key_values"]
        assert [type(layer) for layer in cache.layers] == [DynamicSlidingWindowLayer, DynamicLayer]
        assert cache.layers[0].sliding_window == W
        assert cache.layers[0].cumulative_length == n == cache.get_seq_length()
    # Replaying a rebuilt call gives what the recorded call gave.
    last = capture.calls[-1]
    out = Step()(**copy.deepcopy(last.call_arguments()[1]))
    assert torch.equal(out, last.outputs)


def test_registration_flattens_like_the_capture_and_gives_way_to_transformers(tmp_path):
    path = record_steps(tmp_path, lambda: cache_of(DynamicSlidingWindowLayer(sliding_window=W), DynamicLayer()))
    capture = load_capture(path)
    actions = caches.register_capture_flattening(capture.manifest)
    assert "by dimscope (layers: sliding(4), full)" in actions[DYNAMIC_CACHE]
    assert caches.registration_module(DynamicCache) == "dimscope.cachelayers"
    cache = capture.calls[2].kwargs["past_key_values"]
    leaves, spec = pytree.tree_flatten(cache)
    assert spec.context == ["key_cache", "value_cache"]  # the .pt2's input spec, as transformers'
    assert [tuple(t.shape) for t in leaves] == [(2, 2, 3, 3), (2, 2, 4, 3)] * 2
    paths = [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(cache)[0]]
    assert paths[0] == "['key_cache'][0]"
    rebuilt = pytree.tree_unflatten(leaves, spec)
    assert [cachelayers._kind_of(layer) for layer in rebuilt.layers] == ["sliding", "full"]
    assert rebuilt.layers[0].cumulative_length == 4 and rebuilt.is_compileable

    # A capture of full layers only gets transformers' registration back.
    caches.register_capture_flattening({"flattening": {DYNAMIC_CACHE: "key_value_dict"}})
    assert caches.registration_module(DynamicCache) == "transformers.integrations.executorch"


def real_sliding(seen, seed):
    layer = DynamicSlidingWindowLayer(sliding_window=W)
    k, v = kv(0, seed)
    layer.update(k, v)
    for t in range(seen):
        k, v = kv(1, seed * 100 + t)
        layer.update(k, v)
    return layer


@pytest.mark.parametrize("with_full,counted", [(True, False), (False, True), (False, False)],
                         ids=["with-full-layer", "all-sliding", "all-sliding-recorded-without-tokens-seen"])
def test_export_layers_compute_what_transformers_layers_compute(with_full, counted):
    sliding = {"type": "sliding", "sliding_window": W, **({"tokens_seen": True} if counted else {})}
    caches.register_dynamic_layers(DynamicCache, [sliding] + ([{"type": "full"}] if with_full else []))
    for seen in range(0, 3 * W):
        if not with_full and not counted and seen > W - 1:
            break  # a layout recorded without tokens_seen restores them only up to the window
        for q in (1, 2, W + 1):
            real = real_sliding(seen, seed=seen)
            layers = [real]
            if with_full:
                full = DynamicLayer()
                full.update(*kv(seen, 7))
                layers.append(full)
            leaves, spec = pytree.tree_flatten(cache_of(*layers))
            stand_in = pytree.tree_unflatten(leaves, spec).layers[0]
            assert type(stand_in).__name__ == "ExportSlidingWindowLayer"
            where = f"seen={seen} q={q}"
            assert stand_in.get_seq_length() == real.get_seq_length() == seen, where
            assert stand_in.get_mask_sizes(q) == real.get_mask_sizes(q), where
            k, v = kv(q, 1000 + seen)
            for a, b in zip(stand_in.update(k, v), real.update(k, v)):
                assert torch.equal(a, b), where
            assert torch.equal(stand_in.keys, real.keys) and torch.equal(stand_in.values, real.values), where
            assert stand_in.cumulative_length == real.cumulative_length, where
            assert stand_in.get_mask_sizes(1) == real.get_mask_sizes(1), where


def test_all_sliding_cache_carries_its_tokens_seen_past_the_window(tmp_path):
    """Issue 27 item 4: a cache without a full-attention layer records each sliding
    layer's tokens seen as a tensor of that length (tokens_seen), so that calls past the
    window are rebuilt exactly and a program takes the count as a symbolic size."""
    path = record_steps(tmp_path, lambda: cache_of(DynamicSlidingWindowLayer(sliding_window=W),
                                                   DynamicSlidingWindowLayer(sliding_window=W)), steps=3)
    manifest = read_manifest(path)
    for call, n in enumerate([0, 3, 4, 5]):
        node = cache_node(manifest, call)
        assert node["keys"] == ["key_cache", "value_cache", "tokens_seen"], node["keys"]
        assert [d["tokens_seen"] for d in node["layers"]] == [True, True]
        assert [leaf["shape"] for leaf in node["children"][2]["children"]] == [[n], [n]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        capture = load_capture(path)
    assert capture.inexact == [] and not any("no full-attention layer" in str(w.message) for w in caught)
    for call, n in zip(capture.calls, [0, 3, 4, 5]):
        cache = call.kwargs["past_key_values"]
        assert [layer.cumulative_length for layer in cache.layers] == [n, n]
        assert [layer.keys.shape[-2] for layer in cache.layers] == [min(n, W - 1)] * 2
    # The registration flattens it as recorded: a program's input is the count's size.
    caches.register_capture_flattening(capture.manifest)
    leaves, spec = pytree.tree_flatten(capture.calls[3].kwargs["past_key_values"])
    assert spec.context == ["key_cache", "value_cache", "tokens_seen"]
    assert [tuple(t.shape) for t in leaves][-2:] == [(5,), (5,)]
    assert pytree.tree_unflatten(leaves, spec).layers[1].cumulative_length == 5
    last = capture.calls[-1]
    assert torch.equal(Step()(**copy.deepcopy(last.call_arguments()[1])), last.outputs)


class StateStep(torch.nn.Module):
    """A state-space step: the first call fills the states, later calls update them."""

    def forward(self, x, cache_params=None):
        for i in range(len(cache_params.layers)):
            if not cache_params.has_previous_state(i):
                cache_params.update_conv_state(x.new_zeros(x.shape[0], 5, 4) + x.sum(), i)
            else:
                cache_params.update_conv_state(x.new_ones(x.shape[0], 5, 1), i)
            cache_params.update_recurrent_state(x.new_ones(x.shape[0], 5, 3) * (i + 1), i)
        return cache_params.layers[0].conv_states.sum() + x.sum()


def test_linear_attention_states_are_recorded_and_rebuilt(tmp_path):
    model, rec = StateStep(), InputRecorder(store_n_calls=3)
    cache = cache_of(LinearAttentionLayer(), LinearAttentionLayer())
    with rec(model):
        for n in (3, 1, 1):
            model(torch.ones(2, n), cache_params=cache)
    path = tmp_path / "s.safetensors"
    rec.save(path)
    manifest = read_manifest(path)
    assert manifest["flattening"][DYNAMIC_CACHE] == "dynamic_layers"
    shapes = []
    for call in range(3):
        inputs = manifest["calls"][call]["inputs"]
        node = inputs["children"][inputs["keys"].index("cache_params")]
        assert node["keys"] == ["conv_states", "recurrent_states"]
        assert node["layers"] == [{"type": "linear"}, {"type": "linear"}]
        shapes.append([leaf["shape"] for child in node["children"] for leaf in child["children"]])
    # the first call's empty states are recorded with their last dim at 0
    assert shapes[0] == [[2, 5, 0]] * 2 + [[2, 5, 0]] * 2
    assert shapes[1] == shapes[2] == [[2, 5, 4]] * 2 + [[2, 5, 3]] * 2

    capture = load_capture(path)
    first, second = (capture.calls[i].kwargs["cache_params"] for i in (0, 1))
    assert [layer.has_previous_state for layer in first.layers] == [False, False]
    assert not first.layers[0].is_conv_states_initialized
    assert [layer.has_previous_state for layer in second.layers] == [True, True]
    for call in capture.calls:
        out = model(**copy.deepcopy(call.call_arguments()[1]))
        assert torch.equal(out, call.outputs)
    # dimscope's registration flattens a rebuilt cache as the capture did
    caches.register_capture_flattening(capture.manifest)
    assert [tuple(t.shape) for t in pytree.tree_leaves(first)] == [(2, 5, 0)] * 4
    leaves, spec = pytree.tree_flatten(second)
    again = pytree.tree_unflatten(leaves, spec)
    assert spec.context == ["conv_states", "recurrent_states"]
    assert all(layer.has_previous_state and layer.conv_kernel_size == 4 for layer in again.layers)


def test_states_kept_per_state_index_are_flattened_and_set_in_state_0():
    # transformers 5.17's linear-attention layers keep each attribute per state index
    # ({0: tensor}); seen on the device machine (docs/real-models.md), where Mamba then
    # records and exports. Here: the same layout on 5.12's layer class.
    conv, recurrent = torch.randn(2, 5, 4), torch.randn(2, 5, 3)
    layer = LinearAttentionLayer()
    layer.conv_states, layer.recurrent_states = {0: conv}, {0: recurrent}
    layer.has_previous_state, layer.conv_kernel_size = {0: False}, {0: None}
    layers = [{"type": "linear"}]
    children, names = cachelayers.flatten_layers(cache_of(layer), layers)
    assert names == ["conv_states", "recurrent_states"]
    assert children[0][0] is conv and children[1][0] is recurrent
    cachelayers._set_state(layer, "has_previous_state", True)
    cachelayers._set_state(layer, "conv_kernel_size", 4)
    assert layer.has_previous_state == {0: True} and layer.conv_kernel_size == {0: 4}
    layer.conv_states = {0: conv, 1: conv}
    with pytest.raises(CaptureError, match="keeps 2 conv_states; dimscope records linear-attention layers with one state"):
        cachelayers.flatten_layers(cache_of(layer), layers)


def test_layer_kinds_never_name_a_class(tmp_path):
    """A capture chooses among the kinds dimscope knows; a layer it calls `other` (or
    anything else) is refused, whatever class it names."""
    path = record_steps(tmp_path, lambda: cache_of(DynamicSlidingWindowLayer(sliding_window=W), DynamicLayer()),
                        steps=1)
    manifest = read_manifest(path)
    from dimscope.capture.file import read_header, read_tensors
    header, start = read_header(path)
    names = [k for k in header if k != "__metadata__"]
    tensors = read_tensors(path, header, start, names, "builtin")
    marker = tmp_path / "ran"
    for layers in ([{"type": "other", "class": "os.system"}, {"type": "full"}],
                   [{"type": "os.system", "sliding_window": f"touch {marker}"}, {"type": "full"}]):
        for call in manifest["calls"]:
            cache_node(manifest, call["index"])["layers"] = layers
        bad = tmp_path / "bad.safetensors"
        write_capture(bad, manifest, tensors, writer="builtin")
        with pytest.raises(CaptureError, match="rebuilds full-attention, sliding-window, linear-attention, hybrid and indexed"):
            load_capture(bad)
    assert not marker.exists()


@pytest.mark.parametrize("model_type, kind", [("zamba2", "hybrid"), ("falcon_h1", "hybrid"),
                                              ("glm_moe_dsa", "indexed")])
def test_hybrid_and_indexed_layers_of_real_models_are_recorded_and_rebuilt(tmp_path, model_type, kind):
    """transformers' LinearAttentionAndFullAttentionLayer (Zamba2, Falcon-H1: keys and
    values, and states, in one layer) and DynamicIndexedLayer (GLM-MoE-DSA: a sparse
    attention indexer's keys beside them), in tiny models of the sweep's generic config:
    generate() is recorded, every call replays through the rebuilt cache with the
    recorded logits, and dimscope's registration flattens and rebuilds them the same."""
    model = sweep.build_model(model_type)
    path = record_generate(model, tmp_path / "c.safetensors")
    manifest = read_manifest(path)
    assert manifest["flattening"][DYNAMIC_CACHE] == "dynamic_layers"
    decode = cache_node(manifest, 1)
    assert kind in [d["type"] for d in decode["layers"]]
    if kind == "indexed":
        assert "indexer_keys" in decode["keys"]
        prefill = cache_node(manifest, 0)
        indexer = prefill["children"][prefill["keys"].index("indexer_keys")]["children"]
        assert indexer and all(leaf["shape"][1] == 0 for leaf in indexer)  # empty: its sequence dim at 0
    capture = load_capture(path)
    assert len(capture.calls) == 8
    for call in capture.calls:
        assert torch.equal(logits(model, call), call.outputs["logits"]), call.index
    caches.register_capture_flattening(capture.manifest)
    second = capture.calls[1]
    leaves, spec = pytree.tree_flatten(copy.deepcopy(second.kwargs["past_key_values"]))
    assert spec.context == decode["keys"]
    assert torch.equal(logits(model, second, pytree.tree_unflatten(leaves, spec)), second.outputs["logits"])


def test_attention_layers_without_keys_are_rebuilt_empty(tmp_path):
    """RecurrentGemma's cache has a sliding-window layer for every block, and only its
    attention block updates one: the others say `no_keys` (from the prefill on, once the
    model filled the cache), the keys go to the layer that holds them, and the others
    are rebuilt empty. (Its recurrent blocks keep their state in the model's modules,
    outside the cache: a decode call replayed alone is not the recorded one, which the
    export reports as `rebuilt_differs`.)"""
    model = sweep.build_model("recurrent_gemma")
    path = record_generate(model, tmp_path / "c.safetensors")
    manifest = read_manifest(path)
    for call in (0, 1):
        layers = cache_node(manifest, call)["layers"]
        assert [d.get(cachelayers.NO_KEYS, False) for d in layers] == [True, False], call
        assert len(cache_node(manifest, call)["children"][0]["children"]) == 1
    capture = load_capture(path)
    cache = capture.calls[1].kwargs["past_key_values"]
    assert cache.layers[0].keys is None and not cache.layers[0].is_initialized
    assert cache.layers[1].keys.shape[-2] == 5 and cache.get_seq_length(1) == 5
    # the prefill needs nothing from outside the cache: it replays as recorded
    first = capture.calls[0]
    assert torch.equal(logits(model, first), first.outputs["logits"])

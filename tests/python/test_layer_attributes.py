# SPDX-License-Identifier: GPL-3.0-or-later
"""Cache layers recorded by their attributes (layer kind ``attributes`` of a
``dynamic_layers`` cache, module layerattributes): DeepSeek-V4's DeepseekV4HCACache and
DeepseekV4CSACache, whose compressors keep buffers, running entries and entry counts in
dicts keyed by entry name, in a tiny model of the sweep's generic config. Needs
transformers (the sid runtime)."""

import copy
import json

import pytest
import torch
import torch.utils._pytree as pytree

transformers = pytest.importorskip("transformers", reason="transformers' cache layers are tested on the sid runtime")

from dimscope import caches, layerattributes, program  # noqa: E402
from dimscope.capture import CaptureError, InputRecorder, load_capture, read_manifest  # noqa: E402

from cachecaptures import cache_node, drop_registrations, logits, record_generate, rewritten, sweep  # noqa: E402

MODULE = "transformers.models.deepseek_v4.modeling_deepseek_v4"
HCA, CSA = MODULE + ".DeepseekV4HCACache", MODULE + ".DeepseekV4CSACache"
DYNAMIC_CACHE = "transformers.cache_utils.DynamicCache"


@pytest.fixture(autouse=True)
def keep_registrations():
    """Loading a capture registers dimscope's flattening of the DynamicCache: remove it,
    so that every test records as a process that loaded none."""
    yield
    drop_registrations("dimscope.cachelayers")


@pytest.fixture(scope="module")
def model():
    if "deepseek_v4" not in transformers.models.auto.modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        pytest.skip("this transformers has no DeepSeek-V4")
    return sweep.build_model("deepseek_v4")


@pytest.fixture(scope="module")
def recorded(model, tmp_path_factory):
    return record_generate(model, tmp_path_factory.mktemp("deepseek_v4") / "c.safetensors")


def layer_entry(node, layer):
    attributes = node["children"][node["keys"].index("layer_attributes")]
    return attributes["children"][layer]


def member(entry, *names):
    for name in names:
        entry = entry["children"][entry["keys"].index(name)]
    return entry


def test_generate_replays_through_the_rebuilt_layers(model, recorded):
    """Every call of generate() replays with the recorded logits through the cache rebuilt
    from the capture: the layers are the loaded classes again, with their counts as ints
    and their states None before the first update, and dimscope's registration flattens a
    rebuilt cache as the capture did."""
    manifest = read_manifest(recorded)
    assert manifest["flattening"][DYNAMIC_CACHE] == "dynamic_layers"
    prefill, decode = cache_node(manifest, 0), cache_node(manifest, 2)
    assert decode["layers"] == [{"type": "attributes", "class": HCA}, {"type": "attributes", "class": CSA}]
    assert decode["keys"] == ["layer_attributes"]
    # before the first update: None, never a zero-size tensor
    assert member(layer_entry(prefill, 0), "keys")["keys"] == ["none"]
    assert member(layer_entry(decode, 0), "keys")["keys"] == ["tensor"]
    # a count is a size: the CSA layer's compressor has emitted entries by call 2
    count = member(layer_entry(decode, 1), "entry_count", "dict", "compressor", "size")
    assert count["kind"] == "tensor" and count["dtype"] == "U8" and count["shape"][0] > 0
    assert member(layer_entry(decode, 0), "is_initialized", "flag")["shape"] == [1]

    capture = load_capture(recorded)
    assert len(capture.calls) == 8
    for call in capture.calls:
        assert torch.equal(logits(model, call), call.outputs["logits"]), call.index
    layers = capture.calls[2].kwargs["past_key_values"].layers
    assert [type(layer).__name__ for layer in layers] == ["DeepseekV4HCACache", "DeepseekV4CSACache"]
    assert layers[1].entry_count["compressor"] == count["shape"][0]
    assert isinstance(layers[0].cumulative_length, int) and layers[0].is_initialized is True
    first = capture.calls[0].kwargs["past_key_values"].layers[0]
    assert first.keys is None and first.is_initialized is False and first.buffer_kv == {"compressor": None}

    caches.register_capture_flattening(capture.manifest)
    cache = capture.calls[2].kwargs["past_key_values"]
    leaves, spec = pytree.tree_flatten(copy.deepcopy(cache))
    paths = [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(cache)[0]]
    assert "['layer_attributes'][1]['entry_count']['dict']['compressor']['size']" in paths
    again = pytree.tree_unflatten(leaves, spec)
    assert torch.equal(logits(model, capture.calls[2], again), capture.calls[2].outputs["logits"])
    # what a .pt2 records, and the line a user imports before a plain torch.export.load
    record = program._flavour_registered(type(cache))
    assert record["layers"] == decode["layers"]
    assert list(layerattributes.layer_modules([record["layers"]])) == [MODULE]


def test_a_capture_never_names_a_layer_class_that_is_built(tmp_path, model, recorded):
    """Only a cache layer class of the loaded transformers is built: a class not loaded,
    one not of transformers, a transformers class that is no cache layer, or attribute
    names a layer cannot have, are refused naming the file and the place; nothing runs."""
    marker = tmp_path / "ran"
    refused = ["transformers.models.nomodel.modeling_nomodel.NoModelCache", "os.system",
               MODULE + ".DeepseekV4Model", DYNAMIC_CACHE]
    for name in refused:
        bad = rewritten(tmp_path, recorded, lambda m: json.loads(json.dumps(m).replace(json.dumps(HCA),
                                                                                      json.dumps(name))))
        with pytest.raises(CaptureError, match=rf"{bad}: .*layer_attributes\[0\]: the cache layer class "
                                               rf"{name} is not loaded here, or is no cache layer class"):
            load_capture(bad)

    def bad_attribute(manifest):
        entry = layer_entry(cache_node(manifest, 2), 0)
        entry["keys"][entry["keys"].index("sliding_window")] = "__class__"
        renamed = json.loads(json.dumps(entry).replace("['sliding_window']", "['__class__']"))
        entry.clear()
        entry.update(renamed)
        return manifest

    bad = rewritten(tmp_path, recorded, bad_attribute)
    with pytest.raises(CaptureError, match=rf"{bad}: .*'__class__' is not an attribute name a layer can have"):
        load_capture(bad)
    assert not marker.exists()


def test_a_layer_holding_another_kind_of_value_is_recorded_and_refused_when_loaded(model, tmp_path):
    """A layer attribute that is neither tensors, counts, flags nor None (a config, as a
    quantized cache's quantizer would be): the recording still succeeds (the capture can
    be looked at), the layer is an `other` layer, and loading refuses it saying which
    attribute and why."""
    cache = transformers.DynamicCache(config=model.config)
    cache.layers[0].config = model.config
    ids, mask = sweep.prompt(5)
    rec = InputRecorder()
    with torch.no_grad(), rec(model):
        model(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True)
    path = tmp_path / "c.safetensors"
    rec.save(path)
    layers = cache_node(read_manifest(path), 0)["layers"]
    assert layers[0]["type"] == "other" and "'config' is a DeepseekV4Config" in layers[0]["why"]
    assert layers[1] == {"type": "attributes", "class": CSA}
    with pytest.raises(CaptureError, match=r"layer 0 is a .*DeepseekV4HCACache cache layer \(its 'config' is a "
                                           r"DeepseekV4Config: dimscope records"):
        load_capture(path)


def test_inference_counts_are_sizes_not_batches(recorded):
    """What dimscope-cli proposes for the capture: a layer's token count is the cache's
    past_len, the CSA compressor's entry count a Dim of its own, and the window and the
    compression rates, the same in every call, static (a count is never a batch dim)."""
    import os
    import subprocess

    cli = os.environ.get("DIMSCOPE_CLI")
    if not cli:
        pytest.skip("DIMSCOPE_CLI is not set (the tests' ctest entries set it)")
    done = subprocess.run([cli, "analyze", str(recorded), "--format", "json"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    leaves = json.loads(done.stdout)["leaves"]
    layer = "past_key_values.layer_attributes[{}]['{}']['size']"
    for i in (0, 1):
        assert leaves[layer.format(i, "sliding_window")] == ["static"]
        assert leaves[layer.format(i, "compress_rate")] == ["static"]
        assert leaves[layer.format(i, "cumulative_length")] == ["past_len"]
    counts = leaves["past_key_values.layer_attributes[1]['entry_count']['dict']['compressor']['size']"]
    assert counts[0] not in ("static", "auto")
    # the prefill's states are None: a change of structure, reported once per call set
    assert "leaves of 'past_key_values'" in done.stderr and "changes between calls" in done.stderr

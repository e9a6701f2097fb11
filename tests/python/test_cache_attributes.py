# SPDX-License-Identifier: GPL-3.0-or-later
"""transformers cache classes recorded by their attributes (flavour cache_attributes,
module cacheattributes): MiniMax's MiniMaxCache (a DynamicCache subclass with a
linear_cache list) and OLMo-Hybrid's OlmoHybridDynamicCache (a plain class of per-layer
lists holding tensors or None), in tiny models of the sweep's generic config. Needs
transformers (the sid runtime)."""

import copy
import json
import sys

import pytest
import torch
import torch.utils._pytree as pytree

transformers = pytest.importorskip("transformers", reason="transformers' cache classes are tested on the sid runtime")

from dimscope import caches, program  # noqa: E402
from dimscope.capture import CaptureError, InputRecorder, load_capture, read_manifest  # noqa: E402

from cachecaptures import cache_node, drop_registrations, logits, record, rewritten, sweep  # noqa: E402

MINIMAX = "transformers.models.minimax.modeling_minimax.MiniMaxCache"
OLMO_HYBRID = "transformers.models.olmo_hybrid.modeling_olmo_hybrid.OlmoHybridDynamicCache"
CACHE_OF = {"minimax": MINIMAX, "olmo_hybrid": OLMO_HYBRID}


@pytest.fixture(autouse=True)
def keep_registrations():
    """Loading a capture registers dimscope's flattening of its cache class: remove it,
    so that every test records as a process that loaded none."""
    yield
    drop_registrations("dimscope.cacheattributes")


@pytest.fixture(scope="module")
def models():
    return {}


def tiny(models, model_type):
    if model_type not in models:
        models[model_type] = sweep.build_model(model_type)
    return models[model_type]


@pytest.mark.parametrize("model_type", ["minimax", "olmo_hybrid"])
def test_generate_replays_through_the_rebuilt_cache(tmp_path, models, model_type):
    """Every call of generate() replays with the recorded logits through the cache
    rebuilt from the capture, and dimscope's registration flattens a rebuilt cache as
    the capture did and rebuilds it (the .pt2's input spec holds the same context)."""
    model = tiny(models, model_type)
    path = record(model, lambda: sweep.run_generate(model), tmp_path / "c.safetensors")
    manifest = read_manifest(path)
    assert manifest["flattening"][CACHE_OF[model_type]] == "cache_attributes"
    assert manifest["pytree_registrations"][CACHE_OF[model_type]]["follows"] == "dimscope"
    decode = cache_node(manifest, 1)
    if model_type == "minimax":
        # the DynamicCache layers (one full-attention layer) first, then linear_cache:
        # [] for the attention layer, the lightning-attention layer's state
        assert decode["keys"] == ["key_cache", "value_cache", "linear_cache"]
        assert decode["context"] == {"layers": 1, "children": decode["keys"], "attributes": {}}
        assert [c["kind"] for c in decode["children"][2]["children"]] == ["list", "tensor"]
    else:
        assert decode["keys"] == ["recurrent_states", "key_cache", "value_cache",
                                  "conv_states_q", "conv_states_k", "conv_states_v"]
        assert decode["context"]["attributes"] == {"layer_types": ["linear_attention", "full_attention"],
                                                   "transformer_layers": [1], "last_linear_layer": 0}
        # a layer without a state holds None: a none leaf, not a zero-size tensor
        assert [c["kind"] for c in decode["children"][1]["children"]] == ["none", "tensor"]

    capture = load_capture(path)
    assert len(capture.calls) == 8
    for call in capture.calls:
        assert torch.equal(logits(model, call), call.outputs["logits"]), call.index
    if model_type == "olmo_hybrid":
        rebuilt = capture.calls[1].kwargs["past_key_values"]
        assert rebuilt.has_previous_state() and rebuilt.key_cache[0] is None

    actions = caches.register_capture_flattening(capture.manifest)
    assert actions[CACHE_OF[model_type]] in ("registered by dimscope", "already registered by dimscope")
    assert caches.registration_module(type(capture.calls[1].kwargs["past_key_values"])) == "dimscope.cacheattributes"
    # what a .pt2 records of it, and load_program registers from that record
    cache_cls = type(capture.calls[1].kwargs["past_key_values"])
    pt2_record = {CACHE_OF[model_type]: program._flavour_registered(cache_cls)}
    assert pt2_record[CACHE_OF[model_type]] == {"flavour": "cache_attributes"}
    assert caches.register_capture_flattening(program._as_manifest(pt2_record)) == \
        {CACHE_OF[model_type]: "already registered by dimscope"}
    second = capture.calls[1]
    leaves, spec = pytree.tree_flatten(copy.deepcopy(second.kwargs["past_key_values"]))
    assert spec.context == decode["context"]
    assert [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(second.kwargs["past_key_values"])[0]][0] == \
        f"['{decode['keys'][0]}'][0]"
    again = pytree.tree_unflatten(leaves, spec)
    assert type(again) is type(second.kwargs["past_key_values"])
    assert torch.equal(logits(model, second, again), second.outputs["logits"])
    # with dimscope's registration active, a recording still names this flavour
    kwargs = copy.deepcopy(second.call_arguments()[1])
    path = record(model, lambda: model(**kwargs), tmp_path / "again.safetensors")
    assert read_manifest(path)["flattening"][CACHE_OF[model_type]] == "cache_attributes"


def test_a_cache_passed_empty_is_rebuilt_empty(tmp_path, models):
    """A cache passed before any state (a caller's own prefill): its None entries are
    recorded as None, so the rebuilt OLMo-Hybrid cache has no previous state and the
    model takes the prefill path, as recorded; a fresh MiniMaxCache stays empty."""
    olmo, minimax = tiny(models, "olmo_hybrid"), tiny(models, "minimax")
    cache_cls = sys.modules[type(olmo).__module__].OlmoHybridDynamicCache
    ids, mask = sweep.prompt(5)
    path = record(olmo, lambda: olmo(input_ids=ids, attention_mask=mask, past_key_values=cache_cls(olmo.config),
                                     use_cache=True), tmp_path / "olmo.safetensors")
    call = load_capture(path).calls[0]
    cache = call.kwargs["past_key_values"]
    assert not cache.has_previous_state() and cache.conv_states_q == [None, None]
    assert torch.equal(logits(olmo, call), call.outputs["logits"])

    minimax_cls = sys.modules[type(minimax).__module__].MiniMaxCache
    path = record(minimax, lambda: minimax(input_ids=ids, attention_mask=mask, past_key_values=minimax_cls(),
                                           use_cache=True), tmp_path / "minimax.safetensors")
    call = load_capture(path).calls[0]
    cache = call.kwargs["past_key_values"]
    assert cache.layers == [] and cache.linear_cache == [] and cache.get_seq_length() == 0
    assert torch.equal(logits(minimax, call), call.outputs["logits"])


def test_an_attribute_without_a_json_form_is_refused(models):
    olmo = tiny(models, "olmo_hybrid")
    cache = sys.modules[type(olmo).__module__].OlmoHybridDynamicCache(olmo.config)
    cache.config = olmo.config
    rec = InputRecorder()
    ids, mask = sweep.prompt(5)
    with pytest.raises(CaptureError, match=r"past_key_values: OlmoHybridDynamicCache.config is a OlmoHybridConfig"):
        with torch.no_grad(), rec(olmo):
            olmo(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True)


def renamed(name):
    return lambda manifest: json.loads(json.dumps(manifest).replace(json.dumps(OLMO_HYBRID), json.dumps(name)))


def test_a_capture_never_names_a_class_that_is_built(tmp_path, models):
    """Only a cache class of the loaded transformers is built: a class not loaded, one
    not of transformers, a transformers class that is no cache, or attribute names a
    cache cannot have, are refused naming the file and the place."""
    olmo = tiny(models, "olmo_hybrid")
    cache_cls = sys.modules[type(olmo).__module__].OlmoHybridDynamicCache
    ids, mask = sweep.prompt(5)
    path = record(olmo, lambda: olmo(input_ids=ids, attention_mask=mask, past_key_values=cache_cls(olmo.config),
                                     use_cache=True), tmp_path / "c.safetensors")
    marker = tmp_path / "ran"
    refused = [
        ("transformers.models.nomodel.modeling_nomodel.NoModelCache", "is not a class loaded in this process"),
        ("collections.OrderedDict", "is not a cache_attributes class dimscope may build"),
        ("os.system", "is not a class loaded in this process"),
        ("transformers.models.olmo_hybrid.modeling_olmo_hybrid.OlmoHybridModel",
         "is not a cache_attributes class dimscope may build"),
        ("transformers.cache_utils.DynamicCache", "is not a cache_attributes class dimscope may build"),
    ]
    for name, problem in refused:
        bad = rewritten(tmp_path, path, renamed(name))
        with pytest.raises(CaptureError, match=rf"{bad}: past_key_values\.recurrent_states\[0\]: .*{problem}"):
            load_capture(bad)

    with pytest.raises(CaptureError, match=r"flattening\['collections.OrderedDict'\]: collections.OrderedDict is not "
                                           r"a cache_attributes class"):
        caches.register_capture_flattening({"flattening": {"collections.OrderedDict": "cache_attributes"}})

    def bad_attribute(manifest):
        node = cache_node(manifest, 0)
        node["context"]["attributes"]["__class__"] = f"touch {marker}"
        return manifest

    bad = rewritten(tmp_path, path, bad_attribute)
    with pytest.raises(CaptureError, match=rf"{bad}: past_key_values.*'__class__' is not an attribute name"):
        load_capture(bad)
    assert not marker.exists()

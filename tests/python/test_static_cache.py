# SPDX-License-Identifier: GPL-3.0-or-later
"""transformers 5.x static caches (StaticCache with StaticLayer and
StaticSlidingWindowLayer layers): recorded with the ``static_layers`` flavour, rebuilt
without the model config, and dimscope's export stand-in for the sliding layer computes
what transformers' layer computes. Needs transformers (the sid runtime)."""

import pytest
import torch
import torch.utils._pytree as pytree

transformers = pytest.importorskip("transformers", reason="transformers' static caches are tested on the sid runtime")
from transformers.cache_utils import StaticCache, StaticLayer, StaticSlidingWindowLayer  # noqa: E402

from dimscope import caches, staticcache  # noqa: E402
from dimscope.capture import CaptureError  # noqa: E402

W = 4  # the sliding layer's window


def tokens(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(1, 2, n, 3, generator=g), torch.randn(1, 2, n, 3, generator=g)


def static_cache(max_len=8):
    cache = StaticCache.__new__(StaticCache)
    super(StaticCache, cache).__init__(layers=[StaticLayer(max_cache_len=max_len),
                                               StaticSlidingWindowLayer(max_cache_len=max_len, sliding_window=W)])
    return cache


def test_flatten_records_kinds_and_tokens_seen():
    cache = static_cache()
    for seed, n in enumerate((3, 1, 1)):
        k, v = tokens(n, seed)
        for layer in range(2):
            cache.update(k, v, layer)
    children, context = staticcache.flatten(cache)
    assert context == {"children": ["key_cache", "value_cache", "cumulative_length"],
                       "layers": ["static", "static_sliding"]}
    assert [tuple(t.shape) for t in children[0]] == [(1, 2, 8, 3), (1, 2, W, 3)]
    # The sliding layer's tensor count stops once its window is full: the int is exact.
    assert [int(s) for s in children[2]] == [5, 5] and all(s.dim() == 0 for s in children[2])


@pytest.mark.parametrize("steps", [(3, 1, 1, 1, 1), (4, 1, 1), (2, 2, 1, 1, 1), (1, 1, 1, 1, 1, 1)])
def test_rebuilt_cache_and_stand_in_match_transformers(steps):
    """Record the cache before each step, rebuild it (transformers' classes, and the
    export stand-in), and compare every step's returned keys and values and the state
    after it with the original's: below, at and past the window."""
    cache = static_cache()
    for seed, n in enumerate(steps):
        children, context = staticcache.flatten(cache) if cache.layers[0].is_initialized else \
            (staticcache.empty_children(_filled_like(cache)), staticcache.flatten(_filled_like(cache))[1])
        children = [[t.clone() for t in group] for group in children]
        rebuilt = staticcache.rebuild(StaticCache, [[t.clone() for t in g] for g in children], context)
        stand_in = staticcache.rebuild(StaticCache, [[t.clone() for t in g] for g in children], context, export=True)
        assert type(stand_in.layers[1]).__name__ == "ExportStaticSlidingWindowLayer"
        k, v = tokens(n, seed)
        for layer in range(2):
            want = cache.update(k, v, layer)
            for other in (rebuilt, stand_in):
                got = other.update(k, v, layer)
                if other is stand_in and layer == 1 and want[0].shape != got[0].shape:
                    pytest.fail(f"step {seed}: the stand-in returned {got[0].shape}, transformers {want[0].shape}")
                assert all(torch.equal(a, b) for a, b in zip(want, got)), (seed, layer)
        after = staticcache.flatten(cache)[0]
        for other in (rebuilt, stand_in):
            got = staticcache.flatten(other)[0]
            assert all(torch.equal(a, b) for ga, gb in zip(after, got) for a, b in zip(ga, gb)), seed


def _filled_like(cache):
    # A cache not filled yet is recorded as the zeros of a filled one (generate()'s first call).
    filled = static_cache()
    k, v = tokens(1, 99)
    for layer in range(2):
        filled.update(k, v, layer)
    return filled


def test_stand_in_refuses_several_tokens_past_its_window():
    cache = static_cache()
    k, v = tokens(3, 0)
    for layer in range(2):
        cache.update(k, v, layer)
    children, context = staticcache.flatten(cache)
    stand_in = staticcache.rebuild(StaticCache, children, context, export=True)
    k, v = tokens(2, 1)  # 3 + 2 > W: transformers returns 5 tokens, not the window
    with pytest.raises(RuntimeError, match="several tokens past its window"):
        stand_in.update(k, v, 1)


def test_bad_context_is_refused_with_its_place():
    with pytest.raises(CaptureError, match="past_key_values: unknown static cache layer kind 'rolling'"):
        staticcache.rebuild(StaticCache, [[], [], []], {"children": ["key_cache", "value_cache", "cumulative_length"],
                                                        "layers": ["rolling"]}, "past_key_values")
    with pytest.raises(CaptureError, match="needs a context"):
        staticcache.rebuild(StaticCache, [[], []], None, "past_key_values")


def test_registration_round_trips_through_pytree():
    cache = static_cache()
    k, v = tokens(2, 0)
    for layer in range(2):
        cache.update(k, v, layer)
    node = pytree.SUPPORTED_NODES.get(StaticCache)
    try:
        caches.register_static_layers(StaticCache)
        leaves, spec = pytree.tree_flatten(cache)
        assert len(leaves) == 6
        back = pytree.tree_unflatten(leaves, spec)
        assert [type(layer).__name__ for layer in back.layers] == ["StaticLayer", "ExportStaticSlidingWindowLayer"]
        assert torch.equal(back.layers[0].keys, cache.layers[0].keys)
    finally:
        if StaticCache in pytree.SUPPORTED_NODES:
            caches._deregister(StaticCache)
        if node is not None:
            caches._register(StaticCache, node.flatten_fn, node.unflatten_fn, node.flatten_with_keys_fn)

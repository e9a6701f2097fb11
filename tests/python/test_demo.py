"""The demo model and the committed demo capture."""

import torch
from torch.export import Dim

from conftest import leaves, same
from dimscope import demo
from dimscope.capture import load_capture


def test_model_is_small_and_deterministic():
    a, b = demo.make_model(), demo.make_model()
    n = sum(p.numel() for p in a.parameters())
    assert 1000 <= n <= 10000
    torch.manual_seed(123)  # the global RNG must not matter
    c = demo.make_model()
    for (name, x), (_, y), (_, z) in zip(a.state_dict().items(), b.state_dict().items(), c.state_dict().items()):
        assert torch.equal(x, y) and torch.equal(x, z), name
    assert not a.training


def test_cache_decoding_matches_full_recompute():
    """Logits of a decode step with the cache equal those of the whole sequence at once."""
    model = demo.make_model()
    ids, mask = demo.demo_prompt()
    with torch.no_grad():
        logits, cache = model(ids, attention_mask=mask)
        next_ids = logits[:, -1].argmax(-1, keepdim=True)
        step, _ = model(next_ids, attention_mask=torch.cat([mask, torch.ones_like(next_ids)], 1),
                        past_key_values=cache)
        full, _ = model(torch.cat([ids, next_ids], 1), attention_mask=torch.cat([mask, torch.ones_like(next_ids)], 1))
    assert torch.allclose(step[:, -1], full[:, -1], atol=1e-5)
    assert isinstance(cache, demo.cache_class())


def decode_inputs(batch, seq, past, seed):
    gen = torch.Generator().manual_seed(seed)
    pairs = [(torch.randn(batch, demo.HEADS, past, demo.HEAD_DIM, generator=gen),
              torch.randn(batch, demo.HEADS, past, demo.HEAD_DIM, generator=gen)) for _ in range(demo.LAYERS)]
    return dict(input_ids=torch.randint(0, demo.VOCAB, (batch, seq), generator=gen),
                attention_mask=torch.ones(batch, past + seq, dtype=torch.int64),
                past_key_values=demo.make_cache(pairs))


def copy_inputs(kwargs):
    keys, values = zip(*[(k.clone(), v.clone()) for k, v in
                         zip(*__import__("dimscope.caches").caches.key_value_lists(kwargs["past_key_values"]))])
    out = dict(kwargs)
    out["past_key_values"] = demo.make_cache(list(zip(keys, values)))
    return out


def export_decode(model):
    batch, seq, past = Dim("batch"), Dim("seq"), Dim("past")
    per_layer = [{0: batch, 2: past}] * demo.LAYERS
    dynamic_shapes = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: Dim.DYNAMIC},
                      "past_key_values": [per_layer, per_layer]}
    return torch.export.export(model, (), decode_inputs(2, 2, 3, seed=0), dynamic_shapes=dynamic_shapes,
                               strict=False)


def test_decode_step_exports_with_dynamic_batch_seq_past():
    model = demo.make_model()
    ep = export_decode(model)
    shapes = [n.meta["val"].shape for n in ep.graph.nodes if n.op == "placeholder" and "val" in n.meta]
    user = shapes[-(2 + 2 * demo.LAYERS):]
    assert all(not isinstance(d, int) for d in user[0]), user  # input_ids: (batch, seq)
    for cache_shape in user[2:]:
        assert not isinstance(cache_shape[0], int) and not isinstance(cache_shape[2], int), user
        assert cache_shape[1] == demo.HEADS and cache_shape[3] == demo.HEAD_DIM
    for batch, seq, past in [(3, 4, 7), (2, 2, 3), (5, 3, 2)]:
        inputs = decode_inputs(batch, seq, past, seed=batch)
        got_logits, got_cache = ep.module()(**copy_inputs(inputs))
        want_logits, want_cache = model(**inputs)
        assert got_logits.shape == (batch, seq, demo.VOCAB)
        assert torch.allclose(got_logits, want_logits, atol=1e-5)


def test_committed_demo_capture_is_reproducible(tmp_path, root):
    committed = root / "resources" / "demo" / "demo-capture.safetensors"
    assert committed.stat().st_size < 1 << 20
    fresh = tmp_path / "demo.safetensors"
    demo.record_demo_capture(str(fresh))
    a, b = load_capture(committed), load_capture(fresh)
    assert len(a.calls) == len(b.calls) == demo.DEMO_DECODE_STEPS + 1
    assert a.manifest["model"] == b.manifest["model"]
    for ca, cb in zip(a.manifest["calls"], b.manifest["calls"]):
        for part in ("inputs", "outputs"):
            la = [(l["path"], l["kind"], l.get("dtype"), l.get("shape")) for l in leaves(ca[part])]
            lb = [(l["path"], l["kind"], l.get("dtype"), l.get("shape")) for l in leaves(cb[part])]
            assert la == lb
        assert (ca["missing"], ca["filled"], ca["constant_kwargs"]) == (cb["missing"], cb["filled"], cb["constant_kwargs"])
    for ca, cb in zip(a.calls, b.calls):
        same(ca.kwargs["input_ids"], cb.kwargs["input_ids"])
        same(ca.kwargs["attention_mask"], cb.kwargs["attention_mask"])
        # Float results may differ in the last bits between torch builds.
        assert torch.allclose(ca.outputs[0], cb.outputs[0], atol=1e-5)


def test_demo_capture_contents(root):
    capture = load_capture(root / "resources" / "demo" / "demo-capture.safetensors")
    manifest = capture.manifest
    assert manifest["model"]["class"] == "dimscope.demo.TinyDecoderLM"
    assert list(manifest["flattening"].values()) == ["key_value_dict"]
    prefill = capture.calls[0]
    assert prefill.missing == ["past_key_values"]
    assert tuple(prefill.kwargs["input_ids"].shape) == (2, 5)
    for step, call in enumerate(capture.calls[1:], start=1):
        assert tuple(call.kwargs["input_ids"].shape) == (2, 1)
        assert tuple(call.kwargs["attention_mask"].shape) == (2, 5 + step)
        cache = call.kwargs["past_key_values"]
        assert [tuple(k.shape) for k in cache.key_cache] == [(2, demo.HEADS, 4 + step, demo.HEAD_DIM)] * demo.LAYERS


def test_demo_capture_replays_through_the_export():
    """The decode calls of a fresh demo recording run through the exported decode step."""
    model = demo.make_model()
    ep = export_decode(model)
    import tempfile, os
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "demo.safetensors")
        demo.record_demo_capture(path)
        capture = load_capture(path)
    for call in capture.calls[1:]:
        args, kwargs = call.call_arguments()
        logits, _ = ep.module()(*args, **kwargs)
        assert torch.allclose(logits, call.outputs[0], atol=1e-5)

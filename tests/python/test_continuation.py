# SPDX-License-Identifier: GPL-3.0-or-later
"""The continuation program's example calls (issue 27 item 2; worker/continuation.py):
synthesized from the demo's recorded prefill, each is the rest of the prompt on the
cache its prefix left, and the model gives on it what it gave for those tokens in the
prefill itself; a capture without a generate() cache is told why not. (The program
itself, exported from such calls and run on a real chat continuation in a new
interpreter: tests/realmodels/test_real_models.py.)"""

import torch

from dimscope import demo
from dimscope.caches import register_capture_flattening
from dimscope.capture import load_capture
from dimscope.worker import continuation

from conftest import record


def test_splits_vary_cache_new_tokens_and_mask():
    assert continuation.splits(3) == [(1, 2)]
    assert continuation.splits(4) == [(1, 3), (1, 2), (2, 2)]
    assert continuation.splits(5) == [(2, 3), (2, 2), (3, 2)]
    assert continuation.splits(8) == [(2, 6), (2, 5), (3, 5)]


def test_demo_prefill_gives_continuations_that_agree_with_it(tmp_path):
    capture_path = tmp_path / "demo.safetensors"
    demo.record_demo_capture(str(capture_path))
    capture = load_capture(str(capture_path))
    register_capture_flattening(capture.manifest)
    model = demo.make_model()
    logs = []
    out = tmp_path / "continuation.safetensors"
    result = continuation.synthesize(model, capture.calls, str(out), logs.append)
    assert result["synthesized"] and result["from_call"] == 0, (result, logs)
    assert [(c["cached"], c["new"]) for c in result["calls"]] == [(2, 3), (2, 2), (3, 2)]
    prefill_logits = capture.calls[0].outputs[0]  # (batch, 5 prompt tokens, vocab)
    synthesized = load_capture(str(out))
    assert len(synthesized.calls) == 3
    for call, (cached, new) in zip(synthesized.calls, [(2, 3), (2, 2), (3, 2)]):
        ids, mask, cache = call.kwargs["input_ids"], call.kwargs["attention_mask"], call.kwargs["past_key_values"]
        assert tuple(ids.shape) == (2, new) and tuple(mask.shape) == (2, cached + new), call.index
        assert cache.get_seq_length() == cached, call.index
        # The same tokens, the same positions and mask as in the prefill: the same logits.
        assert torch.allclose(call.outputs[0], prefill_logits[:, cached:cached + new], atol=1e-5), call.index


def test_a_capture_without_a_generate_cache_is_told_why_not(tmp_path):
    model = torch.nn.Linear(4, 4)
    capture = load_capture(str(record(model, [(torch.randn(2, 4),), (torch.randn(3, 4),)],
                                      tmp_path / "linear.safetensors")))
    logs = []
    out = tmp_path / "continuation.safetensors"
    result = continuation.synthesize(model, capture.calls, str(out), logs.append)
    assert result == {"synthesized": False, "why": "no call passes one new token on a non-empty past_key_values: "
                                                    "not a capture of a decoder's generate() with a cache"}
    assert logs == ["continuation program: not synthesized: " + result["why"]] and not out.exists()

# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 20 item 3: inputs recorded from InputRecorder's value_if_missing (the calls'
`filled`) are left out where a program is exported for calls that never passed them:
CapturedCall.without, and the worker's export request `without_inputs` (the phased
export sends it, SubstitutedInputs on the C++ side)."""

import os

import pytest
import torch

from dimscope.capture import InputRecorder, load_capture
from capture_models import make_image_text_model
from workerproc import WorkerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "capture_models.py") + ":make_image_text_model"
DECODE = [1, 2, 4, 5]  # the calls without images


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    """Two prompts with images, each followed by two decode steps without: recorded with
    an empty pixel_values in their place, as the InputObserver documentation shows."""
    model = make_image_text_model()
    rec = InputRecorder(store_n_calls=6, value_if_missing={"pixel_values": torch.zeros(0, 3, 4, 4)})
    with torch.no_grad(), rec(model):
        for prompt in (5, 7):
            model(torch.randint(0, 50, (2, prompt)), pixel_values=torch.randn(2, 3, 4, 4))
            for _ in range(2):
                model(torch.randint(0, 50, (2, 1)))
    path = tmp_path_factory.mktemp("substituted") / "image_text.safetensors"
    rec.save(str(path))
    return path


def test_a_call_without_its_substituted_input(capture):
    calls = load_capture(capture).calls
    assert [c.index for c in calls if c.filled == ["pixel_values"]] == DECODE
    decode = calls[1].without(["pixel_values"])
    assert list(decode.kwargs) == ["input_ids"] and decode.filled == [] and "pixel_values" in decode.missing
    assert [leaf["path"] for leaf in decode.leaves()] == ["input_ids"]
    assert decode.call_arguments() == ((), {"input_ids": calls[1].kwargs["input_ids"]})
    assert calls[1].filled == ["pixel_values"] and "pixel_values" in calls[1].kwargs  # the call itself is kept
    # A call that passed the input keeps it.
    assert calls[0].without(["pixel_values"]) is calls[0]


def static_spec():
    return {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [],
            "dynamic_shapes": {"dict": {"input_ids": {"tensor": {}}}}}


def test_the_worker_exports_and_replays_the_decode_calls_without_it(capture, tmp_path):
    w = WorkerProcess()
    try:
        # With the empty substitute, the model's image encoder runs on 0 images and fails.
        ev, _ = w.request("export", model=MODEL, capture=str(capture), spec=static_spec(), calls=DECODE,
                          output=str(tmp_path / "fed.pt2"))
        assert ev["event"] == "error" and "cannot reshape tensor of 0 elements" in ev["error"]["message"], ev
        ev, _ = w.request("export", model=MODEL, capture=str(capture), spec=static_spec(), calls=DECODE,
                          without_inputs=["pixel_values"], output=str(tmp_path / "decode.pt2"))
        assert ev["event"] == "result", ev
        res = ev["result"]
        assert [i["name"] for i in res["inputs"]] == ["input_ids"], res["inputs"]
        assert [(r["call"], r["status"]) for r in res["verification"]] == [(c, "ok") for c in DECODE]
        assert all(r["recorded"] == "compared" for r in res["verification"]), res["verification"]
        assert res["verified"] is True
        ev, _ = w.request("export", model=MODEL, capture=str(capture), spec=static_spec(), calls=DECODE,
                          without_inputs="pixel_values", output=str(tmp_path / "bad.pt2"))
        assert ev["event"] == "error" and ev["error"]["kind"] == "bad_request", ev
        assert "without_inputs must be a list of parameter names" in ev["error"]["message"], ev
    finally:
        w.close()

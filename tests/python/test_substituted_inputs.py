# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 20 item 3: inputs recorded from InputRecorder's value_if_missing (the calls'
`filled`) are left out where a program is exported for calls that never passed them:
CapturedCall.without, and the worker's export request `without_inputs` (the phased
export sends it, SubstitutedInputs on the C++ side)."""

import json
import os
import re
import subprocess

import pytest
import torch

from dimscope.capture import InputRecorder, load_capture
from capture_models import make_image_text_model
from workerproc import WorkerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "capture_models.py") + ":make_image_text_model"
DECODE = [1, 2, 4, 5]  # the calls without images


def record(path, prompts):
    """A prompt with images, then two decode steps without, per prompt length: recorded
    with an empty pixel_values in their place, as the InputObserver documentation shows."""
    model = make_image_text_model()
    rec = InputRecorder(store_n_calls=3 * len(prompts), value_if_missing={"pixel_values": torch.zeros(0, 3, 4, 4)})
    with torch.no_grad(), rec(model):
        for prompt in prompts:
            model(torch.randint(0, 50, (2, prompt)), pixel_values=torch.randn(2, 3, 4, 4))
            for _ in range(2):
                model(torch.randint(0, 50, (2, 1)))
    rec.save(str(path))
    return path


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    return record(tmp_path_factory.mktemp("substituted") / "image_text.safetensors", (5, 7))


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


def read_back_inputs(text):
    """{program as the CLI names it: [its input names]} from the CLI's read-back sections."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"read back (\S+\.pt2(?:, program \w+)?) \(", line)
        if m:
            current = out.setdefault(m.group(1), [])
            continue
        m = re.match(r"  (\S+)\s+\w+\[.*\]$", line)
        if current is not None and m:
            current.append(m.group(1))
        elif current is not None and not line.startswith("  "):
            current = None
    return out


def test_the_phased_export_serves_every_call_without_the_substitute(capture, tmp_path):
    """The CLI's --fix-loop: the decode calls are a phase of their own, exported and
    replayed without pixel_values (on torch 2.6 too, where each program is a file of its
    own), the prefill program keeps it, and the export says so. Held-out calls recorded
    the same way (--verify-with) are served too."""
    cli = os.environ.get("DIMSCOPE_CLI")
    if not cli:
        pytest.skip("DIMSCOPE_CLI is not set (ctest sets it)")
    report = tmp_path / "export.json"
    held_out = record(tmp_path / "held_out.safetensors", (6,))
    result = subprocess.run([cli, "export", "--model", MODEL, "--capture", str(capture), "--fix-loop",
                             "--no-continuation", "--no-probe", "--verify-with", str(held_out), "--json", str(report),
                             "-o", str(tmp_path / "m.pt2")], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    assert "every captured call (6) replays" in result.stdout, result.stdout[-3000:]
    exported = json.loads(report.read_text())
    programs = {tuple(p["calls"]): p["without_inputs"] for p in exported["programs"]}
    assert programs == {tuple(DECODE): ["pixel_values"], (0, 3): []}, programs
    assert "  without pixel_values: none of its calls passed it (recorded from value_if_missing); exported and " \
           "replayed without it" in result.stdout, result.stdout[-3000:]
    assert re.search(r"^== phase \d: calls 1-2, 4-5 \(.*without pixel_values\) ==$", result.stdout, re.M), \
        result.stdout[:3000]
    inputs = sorted(read_back_inputs(result.stdout).values())
    assert inputs == [["input_ids"], ["input_ids", "pixel_values"]], read_back_inputs(result.stdout)
    # A held-out run recorded the same way: each call replayed through the program that
    # takes it, the decode calls without their substitute, and compared with the model
    # run as it was called.
    # (Held-out calls go through the programs of one archive: torch 2.8+; on torch 2.6
    # each program is a file of its own and the replay is skipped, saying so.)
    held = exported["held_out"]
    if tuple(int(x) for x in torch.__version__.split(".")[:2]) < (2, 8):
        assert not held["replayed"] and "files of their own" in held["skipped"], held
        return
    rows = held["calls"]
    assert [(r["call"], r["status"]) for r in rows] == [(c, "served") for c in range(3)], held
    assert held["wrong"] == 0 and all(r["max_abs"] < 1e-4 for r in rows), rows

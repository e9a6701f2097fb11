# SPDX-License-Identifier: GPL-3.0-or-later
"""Exports of captured models through the real worker (needs dimscope.capture)."""

import json
import os
import shutil

import pytest

pytest.importorskip("dimscope.capture")
pytest.importorskip("dimscope.demo")

from workerproc import WorkerProcess  # noqa: E402

MODEL = "dimscope.demo:make_model"


def demo_spec(seq_max=None, batch_min=None):
    """Batch static (always 2), or with `batch_min` a Dim from that min (what inference
    proposes for a transformers model: 1); input, cache and mask lengths their own Dims."""
    b = {"0": "batch"} if batch_min is not None else {}
    layer = {"list": [{"tensor": dict(b, **{"2": "past_len"})}, {"tensor": dict(b, **{"2": "past_len"})}]}
    return {"format": "dimscope.dynamic_shapes", "version": 1,
            "dims": [{"name": "seq_len", "min": 1, "max": seq_max}, {"name": "past_len", "min": 0, "max": None},
                     {"name": "mask_len", "min": 1, "max": None}]
            + ([{"name": "batch", "min": batch_min, "max": None}] if b else []),
            "dynamic_shapes": {"dict": {"input_ids": {"tensor": dict(b, **{"1": "seq_len"})},
                                        "attention_mask": {"tensor": dict(b, **{"1": "mask_len"})},
                                        "past_key_values": {"list": [layer, layer]}}}}


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    from dimscope.demo import record_demo_capture
    path = tmp_path_factory.mktemp("cap") / "demo.safetensors"
    record_demo_capture(str(path))
    return path


def test_demo_export_verifies_and_warm_reexport_reuses(capture, tmp_path):
    w = WorkerProcess()
    try:
        out = tmp_path / "demo.pt2"
        ev, events = w.request("export", model=MODEL, capture=str(capture), spec=demo_spec(64), output=str(out))
        stages = [e["stage"] for e in events if e["event"] == "progress"]
        assert stages[:4] == ["load_model", "load_capture", "export", "save"] and "verify" in stages
        assert ev["event"] == "result", ev
        res = ev["result"]
        assert out.is_file() and res["output"] == str(out)
        assert res["example_call"] == 4  # the second user turn: the only call with all dims >= 2
        rows = {r["call"]: r for r in res["verification"]}
        assert sorted(rows) == list(range(6))
        for row in rows.values():  # the prefill (empty cache) included
            assert row["status"] == "ok", row
            assert all(o["max_abs"] <= 1e-4 for o in row["outputs"] if "max_abs" in o)
            # and with the outputs recorded at capture time (issue 27 item 4)
            assert row["recorded"] == "compared" and all(o["ok"] for o in row["recorded_outputs"]), row
        assert res["verified"] is True
        shapes = {i["name"]: i["shape"] for i in res["inputs"]}
        assert shapes["input_ids"][0] == 2 and isinstance(shapes["input_ids"][1], str)  # batch static
        # The .pt2 records each symbol's Dim name, for the desktop app's program opened alone
        # (issue 28 problem 10): the symbols of input_ids dim 1 and the cache's dim 2.
        import zipfile
        with zipfile.ZipFile(out) as z:
            record = json.loads(z.read(next(n for n in z.namelist() if n.endswith("dimscope_dims.json"))))
        assert record["format"] == "dimscope.pt2_dims" and record["version"] == 1
        symbols = record["programs"]["model"]["symbols"]
        assert symbols[shapes["input_ids"][1]] == "seq_len", (symbols, shapes)
        assert symbols[shapes["past_key_values_key_cache_0"][2]] == "past_len", (symbols, shapes)
        # torch writes the mask's length as past_len + seq_len: no symbol of its own
        import re
        assert all(symbols.get(s) for s in re.findall(r"[a-z]\d+", shapes["attention_mask"][1])), (symbols, shapes)
        assert isinstance(shapes["past_key_values_key_cache_0"][2], str)
        # no Dim sizes only dim 0: no batch-1 slice (issue 27 item 3)
        assert res["batch_slice"]["status"] == "skipped" and "no batch Dim" in res["batch_slice"]["message"]
        # edit -> re-export: no model or capture reload; a batch Dim from 1 as inference
        # proposes it: the program declares batch from 1 and its batch-1 slice is verified
        ev2, events2 = w.request("export", model=MODEL, capture=str(capture), spec=demo_spec(None, batch_min=1),
                                 output=str(out))
        res2 = ev2["result"] if ev2["event"] == "result" else ev2["error"]["result"]
        assert res2["model_reused"] is True and res2["capture_reused"] is True
        # every call agrees with its recording: neither export runs the eager model on a
        # recorded call (issue 29), so there are no warm eager outputs to reuse either
        # (test_the_eager_model_runs_only_where_the_program_differs_from_the_recording)
        assert res["eager_calls"] == 0 and res2["eager_calls"] == 0 and res2["eager_reused"] is False
        assert any(e.get("text", "").startswith("verification ran the eager model on 0 of 6 call(s)")
                   for e in events2), events2
        assert [r["status"] for r in res2["verification"]] == ["ok"] * 6
        batch = {i["name"]: i["shape"] for i in res2["inputs"]}["input_ids"][0]
        assert res2["range_constraints"][batch] == [1, None], res2["range_constraints"]
        sliced = res2["batch_slice"]
        assert sliced["status"] == "ok" and sliced["call"] == 4 and sliced["dim"] == "batch", sliced
        assert sliced["outputs"] and all(o.get("ok", True) for o in sliced["outputs"])
        assert any("batch-1 slice of call 4 (row 0 of every input batched on batch; synthesized, not a recorded "
                   "call): the program agrees with the eager model" in e.get("text", "") for e in events2), events2
        # a reloaded model is run again
        ev4, _ = w.request("export", model=MODEL, capture=str(capture), spec=demo_spec(None), output=str(out),
                           reload=True)
        assert ev4["event"] == "result", ev4
        assert ev4["result"]["model_reused"] is False and ev4["result"]["eager_reused"] is False
        assert not [e for e in events2 if e["event"] == "progress" and e["stage"] in ("load_model", "load_capture")]
        # a spec that does not fit the inputs: structured error, worker alive
        bad = demo_spec()
        bad["dynamic_shapes"]["dict"]["past_key_values"]["list"].pop()
        ev3, _ = w.request("export", capture=str(capture), spec=bad, output=str(tmp_path / "bad.pt2"))
        assert ev3["error"]["kind"] == "structure_mismatch" and "past_key_values" in ev3["error"]["message"]
        assert not (tmp_path / "bad.pt2").exists()
        ev4, _ = w.request("hello")
        assert ev4["event"] == "result"
    finally:
        w.close()


def test_save_failures_are_one_line_and_stale_saves_are_removed(tmp_path):
    """The output is a folder: a one-line save_failed before any export work. A staging
    folder left by a killed worker (a pid that no longer runs, dimscope's marker inside)
    is removed; one of this process is not (tests/python/test_cli_outputs.py has the
    files and folders of other programs that are never removed)."""
    import subprocess
    from dimscope.worker.errors import WorkerError
    import torch
    from dimscope.worker.exporter import check_output, save_atomically

    (tmp_path / "out.pt2").mkdir()
    with pytest.raises(WorkerError) as e:
        check_output(str(tmp_path / "out.pt2"))
    assert e.value.kind == "save_failed" and "\n" not in str(e.value) and "out.pt2" in str(e.value)

    def staging(pid):
        folder = tmp_path / (".dimscope-save-%d-abc123" % pid)
        folder.mkdir()
        (folder / "dimscope-staging-folder.marker").write_text("dimscope export staging folder of pid %d\n" % pid)
        (folder / "x.pt2").write_bytes(b"half a file")
        return folder

    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = staging(gone.pid)
    mine = staging(os.getpid())
    check_output(str(tmp_path / "x.pt2"))
    assert not stale.exists() and mine.exists()

    # A real save: the archive inside is named like the file, nothing is left beside it.
    class Tiny(torch.nn.Module):
        def forward(self, x):
            return x + 1
    program = torch.export.export(Tiny(), (torch.randn(2),))
    shutil.rmtree(mine)
    save_atomically(program, str(tmp_path / "tiny.pt2"))
    import zipfile
    names = zipfile.ZipFile(tmp_path / "tiny.pt2").namelist()
    # torch 2.6 writes flat records (and extra files, dimscope's flattening record, under
    # extra_files/); newer torch one folder, named after the file.
    assert {n.split("/")[0] for n in names if "/" in n} <= {"tiny", "extra_files"}, names[:3]
    assert any(n.endswith("dimscope_flattening.json") for n in names), names
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pt2", "tiny.pt2"]


def test_violations_name_capture_key_paths_and_dim_names(capture, tmp_path):
    """A violation through the worker names its leaves as the capture does (the cache
    tensors by their key paths, not torch's `['key_cache'][0]`) with the spec's Dims:
    the values' length as its own Dim, which the attention ties to the keys'."""
    spec = demo_spec(None)
    spec["dims"].append({"name": "v_len", "min": 0, "max": None})
    for layer in spec["dynamic_shapes"]["dict"]["past_key_values"]["list"]:
        layer["list"][1]["tensor"]["2"] = "v_len"
    w = WorkerProcess()
    try:
        ev, _ = w.request("export", model=MODEL, capture=str(capture), spec=spec, output=str(tmp_path / "v.pt2"))
    finally:
        w.close()
    assert ev["event"] == "error" and ev["error"]["kind"] == "constraint_violation", ev
    sources = [s for v in ev["error"]["violations"] for s in v["sources"]]
    assert all(s["path"].startswith("past_key_values.") and "['" not in s["path"] for s in sources), sources
    assert {s["dim_name"] for s in sources} == {"past_len", "v_len"}, json.dumps(ev["error"]["violations"])
    for v in ev["error"]["violations"]:
        keys = [(s["path"], s["dim"]) for s in v["sources"]]
        assert len(keys) == len(set(keys)), v



def test_calls_whose_model_differs_from_the_recording_are_not_verified(capture):
    """Issue 27 item 4 (a): verification compares the eager model on the rebuilt call
    with the outputs recorded at capture time. A model that gives other outputs than it
    gave when recording (here: the demo's classes with other weights) makes every call
    `rebuilt_differs`, with the largest difference and its output path, although the
    program agrees with that eager model on every call. In process (the worker's own
    verify on a program exported as run_export does; the realmodels suite's Mistral
    covers the CLI): seconds, not a worker and a fresh process."""
    import torch

    from dimscope.caches import register_capture_flattening
    from dimscope.capture import load_capture
    from dimscope.demo import TinyDecoderLM
    from dimscope.worker import exporter
    from dimscope.worker import spec as speclib

    loaded = load_capture(capture)
    register_capture_flattening(loaded.manifest)
    model = TinyDecoderLM(seed=4242).eval()  # not the weights recorded
    example = loaded.calls[4]
    shapes = exporter.with_constants(speclib.load_dynamic_shapes(demo_spec(64)), exporter.bound_inputs(example))
    args, kwargs = exporter.call_arguments(example)
    program = torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=shapes, strict=False)
    rows = exporter.verify(model, program, loaded.calls)
    assert [r["status"] for r in rows] == ["rebuilt_differs"] * 6, rows
    for row in rows:
        assert row["recorded"] == "compared"
        assert row["rebuilt_difference"]["path"].startswith("output") and row["rebuilt_difference"]["max_abs"] > 1e-3
        assert "differ from those recorded at capture time (max abs " in row["message"], row["message"]
        assert "the loaded model is not the one recorded" in row["message"]
        assert all(o.get("ok", True) for o in row["outputs"]), row["outputs"]  # the program = that eager model
    # The recorded weights: every call verified, against the eager model and the recording.
    model = TinyDecoderLM().eval()
    program = torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=shapes, strict=False)
    rows = exporter.verify(model, program, loaded.calls)
    assert [r["status"] for r in rows] == ["ok"] * 6, rows
    assert all(r["recorded"] == "compared" and r["recorded_outputs"] for r in rows)


class EagerRuns:
    """Counts the model's forward calls on real tensors (torch.export traces forward on
    fake ones): the eager runs verification makes."""

    def __init__(self, model):
        import torch

        self.count = 0

        def count(_module, _args, kwargs):
            if type(kwargs.get("input_ids")) is torch.Tensor:
                self.count += 1
        model.register_forward_pre_hook(count, with_kwargs=True)


def test_the_eager_model_runs_only_where_the_program_differs_from_the_recording(capture):
    """Issue 29: a call whose program agrees with the outputs recorded at capture time is
    verified without re-running the eager model on it; where the program and the
    recording differ, the eager model runs and tells a rebuilt call that differs
    (`rebuilt_differs`) from a wrong program (`mismatch`), as before. In process, on the
    demo: seconds."""
    import copy

    import torch

    from dimscope.caches import register_capture_flattening
    from dimscope.capture import load_capture
    from dimscope.demo import TinyDecoderLM
    from dimscope.worker import exporter
    from dimscope.worker import spec as speclib

    loaded = load_capture(capture)
    register_capture_flattening(loaded.manifest)
    example = loaded.calls[4]
    shapes = exporter.with_constants(speclib.load_dynamic_shapes(demo_spec(64)), exporter.bound_inputs(example))
    args, kwargs = exporter.call_arguments(example)
    model = TinyDecoderLM().eval()
    program = torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=shapes, strict=False)
    runs, stats = EagerRuns(model), {}
    rows = exporter.verify(model, program, loaded.calls, stats=stats)
    assert [r["status"] for r in rows] == ["ok"] * 6, rows
    assert runs.count == 0 and stats == {"eager_runs": 0, "eager_cached": 0}
    for row in rows:  # measured against the recording: the eager model's outputs on the call itself
        assert row["eager_run"] is False and row["recorded"] == "compared", row
        assert row["outputs"] == row["recorded_outputs"] and all(o["max_abs"] <= 1e-4 for o in row["outputs"])

    # Call 2's recording altered: the program differs from it, so the eager model runs on
    # that call alone and finds that it differs too: the rebuilt call is not the recorded one.
    calls = list(loaded.calls)
    calls[2] = copy.copy(calls[2])
    logits, cache = calls[2].outputs
    calls[2].outputs = (logits + 0.5, cache)
    warm = {}
    rows = exporter.verify(model, program, calls, eager_cache=warm, stats=stats)
    assert [r["status"] for r in rows] == ["ok", "ok", "rebuilt_differs", "ok", "ok", "ok"], rows
    assert runs.count == 1 and stats == {"eager_runs": 1, "eager_cached": 0} and list(warm) == [2]
    assert rows[2]["eager_run"] is True and abs(rows[2]["rebuilt_difference"]["max_abs"] - 0.5) < 1e-3, rows[2]
    assert all(o["ok"] for o in rows[2]["outputs"]), rows[2]  # the program agrees with the eager model
    # A warm re-export takes that call's eager outputs from the worker's cache.
    rows = exporter.verify(model, program, calls, eager_cache=warm, stats=stats)
    assert rows[2]["status"] == "rebuilt_differs" and runs.count == 1
    assert stats == {"eager_runs": 0, "eager_cached": 1}

    # A wrong program (other weights): it differs from every recording, the eager model
    # runs on every call, agrees with the recording, and the program is a mismatch.
    wrong = torch.export.export(TinyDecoderLM(seed=4242).eval(), args, kwargs=kwargs, dynamic_shapes=shapes,
                                strict=False)
    rows = exporter.verify(model, wrong, loaded.calls, stats=stats)
    assert [r["status"] for r in rows] == ["mismatch"] * 6, rows
    assert runs.count == 7 and stats["eager_runs"] == 6
    for row in rows:
        assert row["eager_run"] is True and max(o["max_abs"] for o in row["outputs"]) > 1e-3, row
        assert "outputs differ beyond atol=1e-4, rtol=1e-3" in row["message"], row

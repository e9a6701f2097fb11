"""Exports of captured models through the real worker (needs dimscope.capture)."""

import json

import pytest

pytest.importorskip("dimscope.capture")
pytest.importorskip("dimscope.demo")

from workerproc import WorkerProcess  # noqa: E402

MODEL = "dimscope.demo:make_model"


def demo_spec(batch_max=None):
    layer = {"list": [{"tensor": {"0": "batch", "2": "past"}}, {"tensor": {"0": "batch", "2": "past"}}]}
    return {"format": "dimscope.dynamic_shapes", "version": 1,
            "dims": [{"name": "batch", "min": None, "max": batch_max}, {"name": "past", "min": None, "max": None},
                     {"name": "total", "root": "past", "a": 1, "b": 1}],
            "dynamic_shapes": {"dict": {"input_ids": {"tensor": {"0": "batch"}},
                                        "attention_mask": {"tensor": {"0": "batch", "1": "total"}},
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
        res = ev["result"] if ev["event"] == "result" else ev["error"]["result"]
        assert out.is_file() and res["output"] == str(out)
        assert res["example_call"] >= 1  # the first call with a cache; the prefill has none
        rows = {r["call"]: r for r in res["verification"]}
        assert len(rows) == 4
        for i in (1, 2, 3):
            assert rows[i]["status"] == "ok", rows[i]
            assert all(o["max_abs"] <= 1e-4 for o in rows[i]["outputs"])
        if rows[0]["status"] != "ok":
            # the prefill passes no cache: the program cannot take it, and the user is told
            assert ev["event"] == "error" and ev["error"]["kind"] == "verification_failed"
            assert rows[0]["reason"] == "structure" and "past_key_values" in rows[0]["message"]
        shapes = {i["name"]: i["shape"] for i in res["inputs"]}
        assert isinstance(shapes["input_ids"][0], str)  # batch stayed symbolic
        assert isinstance(shapes["past_key_values_key_cache_0"][2], str)
        # edit -> re-export: no model or capture reload
        ev2, events2 = w.request("export", model=MODEL, capture=str(capture), spec=demo_spec(None), output=str(out))
        res2 = ev2["result"] if ev2["event"] == "result" else ev2["error"]["result"]
        assert res2["model_reused"] is True and res2["capture_reused"] is True
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

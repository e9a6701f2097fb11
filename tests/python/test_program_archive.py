# SPDX-License-Identifier: GPL-3.0-or-later
"""Several programs of one model in one PT2 archive, each weight stored once (issue 29
item 2): the worker's `archive` request parameter, dimscope.load_program(path, name=...)
and the registrations docs/real-models.md gives for plain torch. On torch without PT2
archives (2.6) the worker writes one file per program, as before."""

import copy
import zipfile

import pytest
import torch

pytest.importorskip("dimscope.demo")
import dimscope  # noqa: E402
from dimscope import demo  # noqa: E402
from dimscope.capture import load_capture  # noqa: E402
from dimscope.exceptions import CaptureError  # noqa: E402
from dimscope.worker import archive, exporter  # noqa: E402
from test_demo import demo_export_spec  # noqa: E402
from workerproc import WorkerProcess  # noqa: E402

MODEL = "dimscope.demo:make_model"
PHASE2_CALLS = [3, 4]
needs_archive = pytest.mark.skipif(not archive.supported(), reason="torch %s has no PT2 archive of several programs "
                                   "(torch >= 2.8): the worker writes one file per program" % torch.__version__)


@pytest.fixture(scope="module")
def capture_path(tmp_path_factory):
    from dimscope.demo import record_demo_capture

    path = tmp_path_factory.mktemp("cap") / "demo.safetensors"
    record_demo_capture(str(path))
    return path


@pytest.fixture(scope="module")
def exported(capture_path, tmp_path_factory):
    """Two programs of the demo written as the phased export writes them: `model` (every
    call) and `phase2` (calls 3 and 4), asked into one archive."""
    folder = tmp_path_factory.mktemp("out")
    out, phase2 = folder / "demo.pt2", folder / "demo.phase2.pt2"
    w = WorkerProcess()
    try:
        spec = demo_export_spec(1, 0, 1)
        first, _ = w.request("export", model=MODEL, capture=str(capture_path), spec=spec, output=str(out),
                             archive={"path": str(out), "program": "model"})
        second, events = w.request("export", model=MODEL, capture=str(capture_path), spec=spec, output=str(phase2),
                                   calls=PHASE2_CALLS, archive={"path": str(out), "program": "phase2"})
        orphan, _ = w.request("export", model=MODEL, capture=str(capture_path), spec=spec,
                              output=str(folder / "other.phase2.pt2"),
                              archive={"path": str(folder / "other.pt2"), "program": "phase2"})
    finally:
        w.close()
    assert first["event"] == "result", first
    assert second["event"] == "result", second
    return out, phase2, first["result"], second["result"], events, orphan


@needs_archive
def test_the_programs_share_one_archive_and_its_weights(exported):
    out, phase2, first, second, events, _ = exported
    assert not phase2.exists()
    assert first["output"] == second["output"] == str(out)
    assert (first["program"], second["program"]) == ("model", "phase2")
    assert second["archive_programs"] == ["model", "phase2"]
    assert dimscope.program_names(out) == ["model", "phase2"]
    assert second["shared_weights"]["files"] > 0, second
    assert any("written once" in e.get("text", "") for e in events if e["event"] == "log")
    # Today's layout, one file per program, from the same programs: each file holds the
    # weights again. The archive holds them once (the demo's program JSON outweighs its
    # weights, so the whole file shrinks by one copy of the weights, not by half).
    separate, separate_weights = 0, 0
    for name in ("model", "phase2"):
        path = out.parent / ("alone-%s.pt2" % name)
        torch.export.save(dimscope.load_program(out, name=name), str(path))
        separate += path.stat().st_size
        separate_weights += weight_bytes(path)
    assert weight_bytes(out) == separate_weights / 2 > 0
    assert out.stat().st_size <= separate - 0.9 * separate_weights / 2, (out.stat().st_size, separate)


def weight_bytes(path):
    with zipfile.ZipFile(path) as z:
        return sum(i.file_size for i in z.infolist() if "/data/weights/weight_" in i.filename)


@needs_archive
def test_every_program_is_checked_in_a_fresh_process_by_name(exported):
    _, _, first, second, _, _ = exported
    assert first["fresh_process"]["program"] == "model"
    assert second["fresh_process"]["program"] == "phase2"
    assert second["fresh_process"]["call"] in PHASE2_CALLS
    for result in (first, second):
        assert result["fresh_process"]["plain_load"]["status"] == "ok", result["fresh_process"]


@needs_archive
def test_each_program_loaded_by_name_gives_the_eager_models_outputs(exported, capture_path):
    out = exported[0]
    model = demo.make_model()
    calls = load_capture(capture_path).calls
    for name, served in (("model", range(len(calls))), ("phase2", PHASE2_CALLS)):
        module = dimscope.load_program(out, name=name).module()
        for i in served:
            args, kwargs = exporter.call_arguments(calls[i])
            with torch.no_grad():  # the demo's cache grows in place: each run gets a copy
                expected = model(*copy.deepcopy(args), **copy.deepcopy(kwargs))
                actual = module(*copy.deepcopy(args), **copy.deepcopy(kwargs))
            _, ok, message = exporter.compare_outputs(expected, actual, atol=1e-5, rtol=1e-5)
            assert ok, (name, i, message)


@needs_archive
def test_plain_torch_loads_every_program_with_the_documented_registrations(exported):
    """docs/real-models.md: torch.export.load returns `model`; torch's load_pt2 gives
    every program by name."""
    out = exported[0]
    from torch.export.pt2_archive._package import load_pt2

    import dimscope.demo
    from dimscope.caches import register_key_value_cache
    register_key_value_cache(dimscope.demo.DemoCache)
    programs = load_pt2(str(out)).exported_programs
    assert sorted(programs) == ["model", "phase2"]
    assert len(torch.export.load(str(out)).graph.nodes) == len(programs["model"].graph.nodes)


@needs_archive
def test_a_later_program_needs_the_first_written_by_this_worker(exported):
    orphan = exported[5]
    assert orphan["event"] == "error" and orphan["error"]["kind"] == "bad_request", orphan
    assert "other.pt2" in orphan["error"]["message"] and "model" in orphan["error"]["message"]


def test_a_program_name_the_file_does_not_hold_is_refused(exported):
    out = exported[0]
    with pytest.raises(CaptureError, match=r"demo\.pt2: no program named 'phase9'; the file holds: model"):
        dimscope.load_program(out, name="phase9")


@pytest.mark.skipif(archive.supported(), reason="torch %s writes PT2 archives: the one-file-per-program layout "
                    "is tested there through --separate-programs" % torch.__version__)
def test_without_pt2_archives_each_program_keeps_its_own_file(exported, capture_path):
    out, phase2, first, second, events, _ = exported
    assert first["output"] == str(out) and second["output"] == str(phase2)
    assert first["program"] == second["program"] == "model"
    assert any("no PT2 archive with several programs" in e.get("text", "") for e in events if e["event"] == "log")
    assert dimscope.program_names(phase2) == ["model"]
    model, calls = demo.make_model(), load_capture(capture_path).calls
    module = dimscope.load_program(phase2).module()
    for i in PHASE2_CALLS:
        args, kwargs = exporter.call_arguments(calls[i])
        with torch.no_grad():
            _, ok, message = exporter.compare_outputs(model(*copy.deepcopy(args), **copy.deepcopy(kwargs)),
                                                      module(*copy.deepcopy(args), **copy.deepcopy(kwargs)),
                                                      atol=1e-5, rtol=1e-5)
        assert ok, (i, message)

# SPDX-License-Identifier: GPL-3.0-or-later
"""Several programs of one model in one PT2 archive, each weight stored once (issue 29
item 2): `dimscope-cli export --fix-loop` writes the programs of its phases into OUT.pt2
(torch >= 2.8), `--separate-programs` keeps one file per program; each program loads
through dimscope.load_program(path, name=...) and through plain torch with the
registrations docs/real-models.md gives. On torch without PT2 archives (2.6) the export
writes one file per program, as before."""

import copy
import json
import os
import zipfile

import pytest
import torch

pytest.importorskip("dimscope.capture")
import dimscope  # noqa: E402
from conftest import cli, model_file, needs_cli, record  # noqa: E402
from dimscope.capture import load_capture  # noqa: E402
from dimscope.exceptions import CaptureError  # noqa: E402
from dimscope.worker import archive, exporter  # noqa: E402
from workerproc import WorkerProcess  # noqa: E402

needs_archive = pytest.mark.skipif(not archive.supported(), reason="torch %s has no PT2 archive of several programs "
                                   "(torch >= 2.8): the export writes one file per program" % torch.__version__)

# Two structures (with and without `past`): two phases, two programs of one model whose
# weights (two 256 x 256 layers, 0.5 MB) outweigh its program JSON.
TWO_PHASE_MODEL = '''
import torch


class TwoPhase(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(256, 256)
        self.out = torch.nn.Linear(256, 256)

    def forward(self, x, past=None):
        h = self.proj(x)
        if past is not None:
            h = torch.cat([past, h], dim=1)
        return self.out(h)


def make():
    torch.manual_seed(0)
    return TwoPhase().eval()
'''


@pytest.fixture(scope="module")
def two_phase(tmp_path_factory):
    folder = tmp_path_factory.mktemp("twophase")
    source = folder / "twophase.py"
    model = model_file(source, TWO_PHASE_MODEL)["make"]()
    g = torch.Generator().manual_seed(1)
    calls = [(torch.randn(2, n, 256, generator=g),) for n in (3, 4, 5)]
    calls += [(torch.randn(2, n, 256, generator=g), torch.randn(2, p, 256, generator=g)) for n, p in ((2, 3), (3, 4))]
    capture = record(model, calls, folder / "twophase.safetensors", no_grad=True)
    return folder, "%s:make" % source, capture, model


def export(two_phase, out, *extra):
    folder, ref, capture, _ = two_phase
    done = cli("export", "--model", ref, "--capture", capture, "--fix-loop", "--json", out.with_suffix(".json"),
               *extra, "-o", out)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done, json.loads(out.with_suffix(".json").read_text())


@pytest.fixture(scope="module")
def exported(two_phase):
    """The archive, exported with held-out calls (--verify-with, issue 24 item 4): a second
    recording of the model with a prompt and a past of lengths never recorded (each
    served by its phase's program), and a batch of 3 where every recorded call had 2
    (rejected by both programs: the batch is static)."""
    folder, _, _, model = two_phase
    out = folder / "archive" / "tp.pt2"
    out.parent.mkdir()
    g = torch.Generator().manual_seed(2)
    held_out = record(model, [(torch.randn(2, 7, 256, generator=g),),
                              (torch.randn(2, 2, 256, generator=g), torch.randn(2, 6, 256, generator=g)),
                              (torch.randn(3, 4, 256, generator=g),)],
                      folder / "held_out.safetensors", no_grad=True)
    return out, *export(two_phase, out, "--verify-with", held_out)


def weight_bytes(path):
    with zipfile.ZipFile(path) as z:
        return sum(i.file_size for i in z.infolist() if "/data/weights/weight_" in i.filename)


@needs_cli
@needs_archive
def test_the_cli_writes_both_programs_into_one_archive_and_names_each(exported):
    out, done, report = exported
    assert not (out.parent / "tp.phase2.pt2").exists()
    assert dimscope.program_names(out) == ["model", "phase2"]
    programs = [(p["output"], p["program"]) for p in report["programs"]]
    assert programs == [(str(out), "model"), (str(out), "phase2")], report["programs"]
    assert "\nprograms (2):\n  %s, program model  calls 0-2" % out in done.stdout, done.stdout[-3000:]
    assert "\n  %s, program phase2  calls 3-4" % out in done.stdout
    assert "read back %s, program phase2 (PT2 archive" % out in done.stdout
    # Checked as docs/real-models.md gives an archive's programs: all at once, each
    # weight read once (issue 29: one read of the weights, not one a program).
    assert "tp.pt2, program phase2, loads through dimscope.load_programs and replays" in done.stderr
    assert "tp.pt2, program model, loads through dimscope.load_programs and replays" in done.stderr
    # The archive is written once, when the export ends, and its programs checked in one
    # new interpreter: each program loaded there once (issue 29; before, `model` was
    # written and checked again with phase2, in a second interpreter).
    assert done.stderr.count("program 'model' kept for") == 1 and "program 'phase2' kept for" in done.stderr
    assert "wrote %s once: 2 program(s) (model, phase2)" % out in done.stderr, done.stderr[-3000:]
    assert "written once; 1 new interpreter(s) checked them" in done.stderr
    assert done.stderr.count("loads through dimscope.load_programs") == 2, done.stderr[-3000:]
    assert report["fresh_interpreters"] == 1 and report["left_out_of_archive"] == [], report
    assert [p["fresh_process"]["status"] for p in report["programs"]] == ["ok", "ok"], report["programs"]
    assert "plain torch.export.pt2_archive._package.load_pt2 of tp.pt2, program phase2, works after" in done.stderr


@needs_cli
@needs_archive
def test_held_out_calls_replay_through_the_first_program_that_accepts_them(exported):
    """In the archive's one new interpreter (still one): a call each program serves, and
    one every program rejects, named with each program's guard, in the summary and --json."""
    out, done, report = exported
    held = report["held_out"]
    assert held["file"].endswith("held_out.safetensors") and held["programs"] == ["model", "phase2"], held
    assert [(c["call"], c["status"], c["program"]) for c in held["calls"]] == [
        (0, "served", "model"), (1, "served", "phase2"), (2, "rejected", None)], held["calls"]
    assert held["served"] == 2 and held["wrong"] == 0 and held["calls"][0]["max_abs"] < 1e-4, held
    rejected = held["calls"][2]["rejections"]
    # model: the static batch ("x.size()[0] == 2" on torch 2.14); phase2: the missing `past`
    assert [r["program"] for r in rejected] == ["model", "phase2"] and "2" in rejected[0]["guard"], rejected
    assert "past" in rejected[1]["guard"], rejected
    assert "held-out held_out.safetensors: 2 of 3 calls served (call 0 by model, call 1 by phase2)\n" in done.stdout
    line = "held-out held_out.safetensors: call 2 rejected by every program: model: %s; phase2: %s\n" % (
        rejected[0]["guard"], rejected[1]["guard"])
    assert line in done.stdout, done.stdout[-3000:]
    assert report["fresh_interpreters"] == 1 and report["ok"], report


@needs_cli
@needs_archive
def test_separate_programs_keeps_one_file_each_with_the_weights_again(exported, two_phase):
    out = exported[0]
    separate = two_phase[0] / "separate" / "tp.pt2"
    separate.parent.mkdir()
    done, report = export(two_phase, separate, "--separate-programs")
    phase2 = separate.parent / "tp.phase2.pt2"
    assert [(p["output"], p["program"]) for p in report["programs"]] == [(str(separate), "model"),
                                                                         (str(phase2), "model")]
    assert "\n  %s  calls 3-4" % phase2 in done.stdout
    assert weight_bytes(out) * 2 == weight_bytes(separate) + weight_bytes(phase2)
    # The model's weights outweigh its programs: the archive is about half the two files.
    both = separate.stat().st_size + phase2.stat().st_size
    assert out.stat().st_size < 0.6 * both, (out.stat().st_size, both)


@needs_cli
@needs_archive
def test_each_program_of_the_archive_gives_the_eager_models_outputs(exported, two_phase):
    out = exported[0]
    assert_served_like_the_model(two_phase, {name: dimscope.load_program(out, name=name)
                                             for name in ("model", "phase2")}, {"model": (0, 1, 2), "phase2": (3, 4)})


def assert_served_like_the_model(two_phase, programs, served):
    """Each program ({name: ExportedProgram}) gives the eager model's outputs on the
    recorded calls `served` names for it ({name: call indices})."""
    model, calls = two_phase[3], load_capture(two_phase[2]).calls
    for name, indices in served.items():
        module = programs[name].module()
        for i in indices:
            args, kwargs = exporter.call_arguments(calls[i])
            with torch.no_grad():
                _, ok, message = exporter.compare_outputs(model(*copy.deepcopy(args), **copy.deepcopy(kwargs)),
                                                          module(*args, **kwargs), atol=1e-5, rtol=1e-5)
            assert ok, (name, i, message)


@needs_cli
@needs_archive
def test_load_programs_reads_each_weight_once_and_the_programs_share_it(exported, two_phase):
    """dimscope.load_programs: every program of the archive by name, the weights the
    archive stores once in memory once (torch's load_pt2 gives each program a copy),
    and each program as right as dimscope.load_program's."""
    from torch.export.pt2_archive._package import load_pt2

    out = exported[0]
    programs = dimscope.load_programs(out)
    assert list(programs) == ["model", "phase2"]

    def storages(program):
        return {k: v.untyped_storage().data_ptr() for k, v in program.state_dict.items()}

    first, second = storages(programs["model"]), storages(programs["phase2"])
    assert sorted(first) == sorted(second) == ["out.bias", "out.weight", "proj.bias", "proj.weight"]
    assert first == second  # one tensor a weight, held by both programs
    plain = load_pt2(str(out)).exported_programs
    assert not set(storages(plain["model"]).values()) & set(storages(plain["phase2"]).values())
    assert_served_like_the_model(two_phase, programs, {"model": (0, 2), "phase2": (3, 4)})


def test_load_programs_of_a_file_of_one_program(two_phase, tmp_path):
    """A file of one program (a plain export; torch 2.6 writes nothing else) is {"model": ...}."""
    x = torch.randn(2, 3, 256)
    dimscope.save_program(torch.export.export(two_phase[3], (x,)), tmp_path / "one.pt2")
    programs = dimscope.load_programs(tmp_path / "one.pt2")
    assert list(programs) == ["model"]
    with torch.no_grad():
        assert torch.equal(programs["model"].module()(x), two_phase[3](x))


@needs_cli
@needs_archive
def test_plain_torch_loads_every_program(exported):
    """docs/real-models.md: torch.export.load returns `model`, torch's load_pt2 every
    program by name (this model's inputs need no registration)."""
    from torch.export.pt2_archive._package import load_pt2

    out = exported[0]
    programs = load_pt2(str(out)).exported_programs
    assert sorted(programs) == ["model", "phase2"]
    x = torch.randn(2, 3, 256)
    assert torch.equal(torch.export.load(str(out)).module()(x=x), programs["model"].module()(x=x))


@needs_cli
@needs_archive
def test_the_cpp_reader_shows_every_program_of_the_archive(exported):
    out = exported[0]
    done = cli("pt2", out)
    assert done.returncode == 0, done.stderr
    assert "%s, program model\n" % out in done.stdout and "%s, program phase2\n" % out in done.stdout
    assert done.stdout.count("inputs (") == 2
    done = cli("pt2", out, "--json")
    assert [p["model"] for p in json.loads(done.stdout)["programs"]] == ["model", "phase2"]


@needs_cli
def test_a_program_name_the_file_does_not_hold_is_refused(exported):
    out = exported[0]
    held = "model, phase2" if archive.supported() else "model"
    with pytest.raises(CaptureError, match=r"tp\.pt2: no program named 'phase9'; the file holds: %s$" % held):
        dimscope.load_program(out, name="phase9")


@needs_cli
@pytest.mark.skipif(archive.supported(), reason="torch %s writes PT2 archives: there the one-file-per-program "
                    "layout is --separate-programs" % torch.__version__)
def test_without_pt2_archives_each_program_keeps_its_own_file(exported, two_phase):
    out, done, report = exported
    phase2 = out.parent / "tp.phase2.pt2"
    assert [(p["output"], p["program"]) for p in report["programs"]] == [(str(out), "model"), (str(phase2), "model")]
    assert "no PT2 archive with several programs" in done.stderr
    model, calls = two_phase[3], load_capture(two_phase[2]).calls
    module = dimscope.load_program(phase2).module()
    args, kwargs = exporter.call_arguments(calls[4])
    with torch.no_grad():
        _, ok, message = exporter.compare_outputs(model(*args, **kwargs), module(*args, **kwargs), atol=1e-5, rtol=1e-5)
    assert ok, message


@needs_archive
def test_a_later_program_needs_the_first_written_by_this_worker(tmp_path):
    """Refused before anything is traced: the worker holds the archive's earlier
    programs (it rewrites the archive with all of them)."""
    from dimscope.demo import record_demo_capture

    capture = tmp_path / "demo.safetensors"
    record_demo_capture(str(capture))
    w = WorkerProcess()
    try:
        ev, _ = w.request("export", model="dimscope.demo:make_model", capture=str(capture), spec={},
                          output=str(tmp_path / "other.phase2.pt2"),
                          archive={"path": str(tmp_path / "other.pt2"), "program": "phase2"})
        bad, _ = w.request("export", model="dimscope.demo:make_model", capture=str(capture), spec={},
                           output=str(tmp_path / "x.pt2"), archive={"path": str(tmp_path / "x.pt2"), "program": "a b"})
    finally:
        w.close()
    assert ev["event"] == "error" and ev["error"]["kind"] == "bad_request", ev
    assert "other.pt2" in ev["error"]["message"] and "program model" in ev["error"]["message"], ev
    assert bad["event"] == "error" and "letters, digits and _" in bad["error"]["message"], bad
    assert not (tmp_path / "other.pt2").exists() and not (tmp_path / "other.phase2.pt2").exists()


@needs_archive
def test_the_archive_holds_each_weight_as_torch_writes_it_without_copying_it(two_phase, tmp_path, monkeypatch):
    """archive.write takes each weight file's bytes from its storage (torch's writer
    copies every storage into a `bytes` first: a page fault a page, for each program
    holding the weights, issue 29): the first program's weight files are byte for byte
    the ones torch's package_pt2 writes for it, the second program's point at them, and
    torch's copy ran for none of them."""
    from torch.export.pt2_archive import _package

    model = two_phase[3]
    programs = {"model": torch.export.export(model, (torch.randn(2, 3, 256),)),
                "phase2": torch.export.export(model, (torch.randn(2, 2, 256), torch.randn(2, 3, 256)))}
    _package.package_pt2(str(tmp_path / "torch.pt2"), exported_programs={"model": programs["model"]})
    copies = []
    original = _package._get_raw_tensor_bytes
    monkeypatch.setattr(_package, "_get_raw_tensor_bytes", lambda t: copies.append(t) or original(t))
    shared = archive.write(str(tmp_path / "ours.pt2"), programs)
    assert copies == []
    assert shared == (4, sum(p.numel() * 4 for p in model.parameters()))

    def weights(path):
        with zipfile.ZipFile(path) as z:
            return {i.filename.split("/data/weights/", 1)[1]: z.read(i) for i in z.infolist()
                    if "/data/weights/weight_" in i.filename}

    assert weights(tmp_path / "ours.pt2") == weights(tmp_path / "torch.pt2")
    loaded = dimscope.load_programs(tmp_path / "ours.pt2")
    for name, program in programs.items():
        assert loaded[name].state_dict.keys() == program.state_dict.keys()
        assert all(torch.equal(loaded[name].state_dict[k], v) for k, v in program.state_dict.items()), name


@needs_cli
@needs_archive
def test_the_documented_snippet_loads_every_program(exported):
    """docs/real-models.md's block for an archive of several programs, as written, on
    this archive (in a new interpreter: the registrations stay out of this one)."""
    from conftest import ROOT, torch_python

    pytest.importorskip("transformers")
    text = (ROOT / "docs" / "real-models.md").read_text()
    block = text.split("<!-- tests/python/test_program_archive.py runs this block", 1)[1]
    block = block.split("```python\n", 1)[1].split("```", 1)[0]
    snippet = block.replace('"llama.pt2"', repr(str(exported[0])))
    done = torch_python("-c", snippet + "\nprint(sorted(programs), type(decode).__name__, type(prefill).__name__)\n")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[-2].startswith("['model', 'phase2']"), done.stdout


class _Lin(torch.nn.Module):
    def __init__(self, lin, twice=False):
        super().__init__()
        self.lin, self.twice = lin, twice

    def forward(self, x):
        return _twice_op()(self.lin(x)) if self.twice else self.lin(x)


_TWICE = []


def _twice_op():
    """An operator registered in this process only (torch.library): a program calling it
    loads here, and in a new interpreter fails to load on its own, the others loading."""
    if not _TWICE:
        @torch.library.custom_op("dimscope_test_archive::twice", mutates_args=())
        def twice(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        @twice.register_fake
        def _(x):
            return torch.empty_like(x)

        _TWICE.append(twice)
    return _TWICE[0]


def _held_programs():
    """model and phase3 (plain), phase2 (calls an operator only this process has), one
    Linear's weights."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(8, 8)
    x, y, wide = torch.randn(2, 8), torch.randn(3, 8), torch.randn(5, 8)
    return {"model": archive.Held(torch.export.export(_Lin(lin), (x,)), (x,), {}, 0, "cpu"),
            "phase2": archive.Held(torch.export.export(_Lin(lin, twice=True), (y,)), (y,), {}, 1, "cpu"),
            "phase3": archive.Held(torch.export.export(_Lin(lin), (wide,)), (wide,), {}, 2, "cpu")}


@needs_archive
def test_a_program_that_fails_the_fresh_check_is_left_out_of_the_archive(tmp_path):
    """The archive is written once and checked in one new interpreter; a program that
    loads only in the worker is left out, the rest written again and checked again
    (issue 29 / issue 24 item 1): the file never holds it, and the result says why."""
    out, lines, held = tmp_path / "tp.pt2", [], _held_programs()
    result = archive.write_held(str(out), ["model", "phase2", "phase3"], held,
                                log=lambda text, stream=None: lines.append(text))
    assert result["archive_programs"] == ["model", "phase3"] and result["left_out"] == ["phase2"], result
    assert result["fresh_interpreters"] == 2, result
    checks = {p["program"]: p["fresh_process"] for p in result["programs"]}
    assert checks["model"]["status"] == checks["phase3"]["status"] == "ok", checks
    assert checks["phase2"]["status"] == "failed" and "twice" in checks["phase2"]["message"], checks
    assert "(program phase2, call 1)" in checks["phase2"]["message"], checks
    assert dimscope.program_names(out) == ["model", "phase3"]
    x = torch.randn(5, 8)
    assert torch.allclose(dimscope.load_program(out, name="phase3").module()(x), held["phase3"].program.module()(x))
    assert any("again without phase2" in line for line in lines), lines
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dimscope-save")]


@needs_archive
def test_when_the_first_program_fails_the_fresh_check_nothing_is_written(tmp_path):
    """`model` is the program torch.export.load returns: an archive without it is no
    archive a user can load plainly. (A class in the archive's flattening record that a
    new interpreter cannot register fails every program the same way.)"""
    from dimscope.exceptions import WorkerError

    out, held = tmp_path / "tp.pt2", _held_programs()
    held["model"] = held.pop("phase2")
    with pytest.raises(WorkerError, match=r"tp\.pt2 does not load and run in a new interpreter through "
                                          r"dimscope\.load_programs \(program model, call 1\): .*twice.*nothing "
                                          r"was written") as caught:
        archive.write_held(str(out), ["model", "phase3"], held)
    assert caught.value.kind == "fresh_process"
    assert caught.value.fields["result"]["fresh_interpreters"] == 1
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".dimscope-save")]


def _deferred_probes(ran, name):
    """A program's probes as an archive export leaves them to write_held: the job records
    whether a check's request was in flight (its folder of calls written, its answer not
    yet read) when it ran."""
    import tempfile

    def job():
        in_flight = any(p.startswith("dimscope-fresh-") for p in os.listdir(tempfile.gettempdir()))
        ran.append((name, in_flight))
        return {"dims": [], "probes": [], "seconds": 0.0, "runs": 0}, [], {"probe": 0.5, "probe_cpu": 0.4}

    return job


@needs_archive
def test_an_archives_programs_are_probed_once_while_its_new_interpreter_checks_it(tmp_path, monkeypatch):
    """Issue 29: the range probes of an archive's programs run in the worker while the new
    interpreter loads and replays the archive (two cores, the loads and the probes side by
    side), each program's once, even when a program is left out and the rest checked
    again; write_archive's result carries them, with their timings."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    out, ran, held = tmp_path / "tp.pt2", [], _held_programs()
    for name in held:
        held[name].deferred_probes = _deferred_probes(ran, name)
    said = []
    result = archive.write_held(str(out), ["model", "phase2", "phase3"], held,
                                progress=lambda stage, message, fraction: said.append((stage, message)))
    assert result["left_out"] == ["phase2"] and result["fresh_interpreters"] == 2, result
    assert ran == [("model", True), ("phase2", True), ("phase3", True)], ran
    # The wait after the probes is said as what it is, once: the second check has none.
    done = ("fresh_process", "range probes done; the new interpreter is still loading and replaying the 3 "
            "program(s) of %s" % out)
    assert [stage for stage, _ in said] == ["save", "fresh_process", "probe", "probe", "probe", "fresh_process",
                                            "save", "fresh_process"], said
    assert said[5] == done and said.count(done) == 1, said
    entries = {p["program"]: p for p in result["programs"]}
    assert entries["model"]["probes"]["runs"] == 0 and entries["model"]["timings"] == {"probe": 0.5, "probe_cpu": 0.4}
    assert "probes" in entries["phase3"] and "probes" not in entries["phase2"], entries


@needs_archive
def test_without_the_check_an_archives_programs_are_probed_after_the_write(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # no other test's checks in it
    (tmp_path / "tmp").mkdir()
    out, ran, held = tmp_path / "tp.pt2", [], _held_programs()
    held["model"].deferred_probes = _deferred_probes(ran, "model")
    result = archive.write_held(str(out), ["model", "phase3"], held, verify=False)
    assert ran == [("model", False)] and result["programs"][0]["probes"]["runs"] == 0, result
    assert "probe" in result["timings"] and result["fresh_interpreters"] == 0, result


@needs_archive
def test_on_an_accelerator_an_archives_programs_are_probed_before_the_write(tmp_path):
    """On CUDA the probes do not run beside the check, whose new interpreter loads the
    programs onto the same device: they run before the archive is written. (The device is
    only named here; without verify nothing is loaded onto it.)"""
    out, seen, held = tmp_path / "tp.pt2", [], _held_programs()
    for name in ("model", "phase3"):
        held[name].device = "cuda:0"

        def job(name=name):
            seen.append((name, out.exists()))
            return {"dims": [], "probes": [], "seconds": 0.0, "runs": 0}, [], {"probe": 0.1, "probe_cpu": 0.1}

        held[name].deferred_probes = job
    result = archive.write_held(str(out), ["model", "phase3"], held, verify=False)
    assert seen == [("model", False), ("phase3", False)] and out.exists(), seen
    assert [p["probes"]["runs"] for p in result["programs"]] == [0, 0], result

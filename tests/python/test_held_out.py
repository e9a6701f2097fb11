# SPDX-License-Identifier: GPL-3.0-or-later
"""Held-out calls (issue 24 item 4): the calls of a second capture of the same model,
replayed through the exported programs in the new interpreter that checks them (one
interpreter for the archive), each by the first program that accepts it, compared there
with the eager model's outputs computed in the worker; served, rejected by every program
(with each program's guard) or WRONG. The CLI side (--verify-with) is tested with the
real-model suite's Llama export (tests/realmodels/test_real_models.py)."""

import pytest
import torch

pytest.importorskip("dimscope.capture")
from conftest import cli, needs_cli, record  # noqa: E402
from dimscope.worker import archive, heldout  # noqa: E402

needs_archive = pytest.mark.skipif(not archive.supported(), reason="torch %s has no PT2 archive of several programs"
                                   % torch.__version__)


class _Lin(torch.nn.Module):
    def __init__(self, lin):
        super().__init__()
        self.lin = lin

    def forward(self, x):
        return self.lin(x)


def _programs():
    """Two programs of one Linear with static batches, 2 (model) and 5 (phase2)."""
    torch.manual_seed(0)
    model = _Lin(torch.nn.Linear(8, 8)).eval()
    x, wide = torch.randn(2, 8), torch.randn(5, 8)
    # By name, as the worker exports a captured call (exporter.call_arguments).
    return model, {"model": archive.Held(torch.export.export(model, (), {"x": x}), (), {"x": x}, 0, "cpu"),
                   "phase2": archive.Held(torch.export.export(model, (), {"x": wide}), (), {"x": wide}, 1, "cpu")}


def _held_out_capture(model, path):
    g = torch.Generator().manual_seed(3)
    return record(model, [(torch.randn(n, 8, generator=g),) for n in (2, 5, 3)], path, no_grad=True)


@needs_archive
def test_each_held_out_call_goes_to_the_first_program_that_accepts_it(tmp_path):
    model, held = _programs()
    replay = heldout.Replay(str(_held_out_capture(model, tmp_path / "other.safetensors")), model, "cpu")
    result = archive.write_held(str(tmp_path / "lin.pt2"), ["model", "phase2"], held, held_out=replay)
    assert result["fresh_interpreters"] == 1, result  # the held-out calls ran in the archive's one interpreter
    report = result["held_out"]
    assert report["file"] == str(tmp_path / "other.safetensors") and report["programs"] == ["model", "phase2"]
    rows = report["calls"]
    assert [(r["call"], r["status"], r["program"]) for r in rows] == [
        (0, "served", "model"), (1, "served", "phase2"), (2, "rejected", None)], rows
    assert rows[0]["max_abs"] < 1e-5 and rows[1]["rejections"][0]["program"] == "model", rows
    # Rejected by every program: each program's guard, in the archive's order.
    assert [r["program"] for r in rows[2]["rejections"]] == ["model", "phase2"], rows[2]
    guards = [r["guard"] for r in rows[2]["rejections"]]
    assert "2" in guards[0] and "5" in guards[1], guards  # torch 2.14: "x.size()[0] == 2"


@needs_archive
def test_a_served_call_whose_outputs_differ_is_wrong(tmp_path):
    """The eager model the calls are compared with is not the one the programs were
    exported from (another Linear): every served call is WRONG, with the difference."""
    model, held = _programs()
    torch.manual_seed(1)
    other = _Lin(torch.nn.Linear(8, 8)).eval()
    lines = []
    replay = heldout.Replay(str(_held_out_capture(model, tmp_path / "other.safetensors")), other, "cpu",
                            log=lambda text, stream=None: lines.append((stream, text)))
    result = archive.write_held(str(tmp_path / "lin.pt2"), ["model", "phase2"], held, held_out=replay)
    rows = result["held_out"]["calls"]
    assert [r["status"] for r in rows] == ["wrong", "wrong", "rejected"], rows
    assert rows[0]["max_abs"] > 1e-3 and "served by program model with outputs that differ" in rows[0]["message"]
    assert any(stream == "warning" and "call 1 WRONG: program phase2" in text for stream, text in lines), lines


def test_a_held_out_file_that_is_no_capture_is_named(tmp_path):
    from dimscope.exceptions import WorkerError

    bad = tmp_path / "notes.safetensors"
    bad.write_bytes(b"not a capture")
    with pytest.raises(WorkerError, match=r"held-out capture .*notes\.safetensors"):
        heldout.Replay(str(bad), None, "cpu")


@needs_cli
def test_a_held_out_capture_of_another_structure_is_refused_before_exporting(tmp_path):
    """Checked against the recorded capture before the worker starts: the file and the leaf."""
    torch.manual_seed(0)
    model = _Lin(torch.nn.Linear(8, 8)).eval()
    recorded = record(model, [(torch.randn(n, 8),) for n in (2, 3)], tmp_path / "rec.safetensors", no_grad=True)
    other = record(model, [(torch.randn(2, 4, 8),)], tmp_path / "other.safetensors", no_grad=True)
    done = cli("export", "--model", "nonexistent.py:make", "--capture", recorded, "--verify-with", other,
               "-o", tmp_path / "x.pt2")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "other.safetensors" in done.stderr and "call 0" in done.stderr and "leaf x" in done.stderr, done.stderr
    assert "rank 3" in done.stderr and "rank 2" in done.stderr, done.stderr
    assert not (tmp_path / "x.pt2").exists()

# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope-cli aoti (issue 24 item 5): the programs of a .pt2 compiled with AOTInductor
by the worker, then package and program run side by side in a new interpreter on the
capture's calls and range probes; calls whose results differ and lost guards (a call
the program rejects that the package runs) are reported. Compiling is the slow part
(~40 s for the demo on 2 cores, less once inductor's cache is warm): two compiles here."""

import json

import pytest
import torch

from conftest import ROOT, cli, needs_cli, record

pytestmark = needs_cli
DEMO_CAPTURE = ROOT / "resources" / "demo" / "demo-capture.safetensors"


def _can_compile():
    """Whether this runtime has what AOTInductor needs (scripts/setup gives it to sid)
    and its packages check inputs when asked (not torch 2.6's: the compiling tests run
    on sid, each compile costs CI most of a minute)."""
    from dimscope.worker import aoti, rootlaunch
    from dimscope.exceptions import WorkerError

    if aoti.supported() is not None or not aoti.checks_inputs_at_run_time():
        return False
    try:
        rootlaunch.compiler()
    except WorkerError:
        return False
    return True


needs_compiler = pytest.mark.skipif(not _can_compile(), reason="no AOTInductor toolchain in this runtime")


@needs_compiler
def test_demo_compiles_and_every_call_matches_the_program(tmp_path):
    program, package, report = tmp_path / "demo.pt2", tmp_path / "demo.aoti.pt2", tmp_path / "aoti.json"
    done = cli("export", "--model", "dimscope.demo:make_model", "--capture", DEMO_CAPTURE, "-o", program)
    assert done.returncode == 0, done.stderr[-2000:]
    done = cli("aoti", program, "--capture", DEMO_CAPTURE, "--model", "dimscope.demo:make_model", "--json", report)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads(report.read_text())
    assert package.is_file() and result["programs"][0]["package"] == str(package)
    rows = result["programs"][0]["calls"]
    assert [r["call"] for r in rows if r["kind"] == "call"] == list(range(6))
    assert all(r["status"] == "match" for r in rows), rows
    assert any(r["kind"] == "probe" for r in rows), rows  # seq_len at its min - 1
    assert result["differs"] == 0 and result["lost_guards"] == 0
    assert "7 call(s) and probe(s) served by the program: 7 match the package" in done.stdout, done.stdout
    # every process the worker started ran through the runtime's loader
    assert "GLIBC" not in done.stderr and "resource_tracker" not in done.stderr, done.stderr[-3000:]
    again = cli("aoti", program, "--capture", DEMO_CAPTURE, "--model", "dimscope.demo:make_model")
    assert again.returncode == 2 and "exists; give --overwrite" in again.stderr, again.stderr


class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(x)


def _programs(tmp_path):
    """One Linear exported twice: batch declared 3..8 (narrow) and 3..64 (wide), and a
    capture of two calls both serve. (A min of 3: torch's program does not check a min
    of 2, which a package checking its inputs does.)"""
    torch.manual_seed(0)
    model = Lin().eval()
    x = torch.randn(3, 8)
    paths = {}
    for name, top in (("narrow", 8), ("wide", 64)):
        batch = torch.export.Dim("batch", min=3, max=top)
        paths[name] = tmp_path / ("%s.pt2" % name)
        torch.export.save(torch.export.export(model, (), {"x": x}, dynamic_shapes={"x": {0: batch}}), paths[name])
    g = torch.Generator().manual_seed(1)
    capture = record(model, [(torch.randn(n, 8, generator=g),) for n in (3, 5)], tmp_path / "lin.safetensors",
                     no_grad=True)
    return paths["narrow"], paths["wide"], capture


def _lost(report):
    return [(r["probe"], r["message"]) for p in report["programs"] for r in p["lost_guards"]]


@needs_compiler
def test_a_package_that_accepts_what_the_program_rejects_is_a_lost_guard(tmp_path):
    narrow, wide, capture = _programs(tmp_path)
    package = tmp_path / "wide.aoti.pt2"
    done = cli("aoti", wide, "--capture", capture, "--json", tmp_path / "wide.json")
    # AOTInductor checks no input unless AOTI_RUNTIME_CHECK_INPUTS=1: the wide package
    # runs batch 2 and batch 65, which its program rejects.
    assert done.returncode == 3, done.stdout + done.stderr[-3000:]
    lost = _lost(json.loads((tmp_path / "wide.json").read_text()))
    assert sorted(p.rsplit(" ", 3)[1:] for p, _ in lost) == [["3..64)", "=", "2"], ["3..64)", "=", "65"]], lost
    # torch's guard text: "x.size()[0] <= 64" (2.14), "Expected input at 'x'.shape[0] to be <= 64" (2.6)
    assert "<= 64" in lost[-1][1] and lost[-1][1].endswith("but the package runs it"), lost
    assert "AOTI_RUNTIME_CHECK_INPUTS=1" in done.stdout

    # Checking its inputs, the wide package keeps its own program's guard...
    done = cli("aoti", wide, "--capture", capture, "--package", package, "--check-inputs", "--json",
               tmp_path / "kept.json")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    rows = json.loads((tmp_path / "kept.json").read_text())["programs"][0]["calls"]
    assert [r["status"] for r in rows if r["kind"] == "probe"] == ["guard_kept", "guard_kept"], rows

    # ...but checked against the narrow program (batch 2..8) it runs batch 9: made on
    # purpose, a package that lost the guard of the program under test.
    done = cli("aoti", narrow, "--capture", capture, "--package", package, "--check-inputs", "--json",
               tmp_path / "lost.json")
    assert done.returncode == 3, done.stdout + done.stderr[-3000:]
    lost = _lost(json.loads((tmp_path / "lost.json").read_text()))
    assert len(lost) == 1 and lost[0][0].endswith("declared 3..8) = 9"), lost
    assert lost[0][1].startswith("the program rejects it (") and "<= 8" in lost[0][1], lost
    assert lost[0][1].endswith("but the package runs it"), lost
    assert "LOST GUARD probe call 0 with x.size()[0]" in done.stdout and "= 9: the program rejects it" in done.stdout


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_asked_without_cuda_is_a_clear_error(tmp_path):
    narrow, _, capture = _programs(tmp_path)
    done = cli("aoti", narrow, "--capture", capture, "--device", "cuda")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no_cuda: aoti: CUDA was asked for, but torch" in done.stderr and "sees no CUDA device" in done.stderr, \
        done.stderr
    assert not (tmp_path / "narrow.aoti.pt2").exists()

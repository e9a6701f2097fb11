# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/device-plan and scripts/device-export, the GPU machine's check (issue 23),
run here on the CPU: the plan holds the requests dimscope-cli sent, the driver sends the
same ones to the worker and loads each program in a fresh interpreter; and the request
the CLI sends for `--device cuda` (the GUI's Export on CUDA builds the same
ExportRequest) is the driver's request with `device` changed, nothing else."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("DIMSCOPE_CLI")

pytestmark = pytest.mark.skipif(os.environ.get("DIMSCOPE_RUNTIME", "sid") != "sid",
                                reason="one runtime is enough for the driver (it runs the default one)")


@pytest.fixture(scope="module")
def plan_dir():
    assert CLI, "DIMSCOPE_CLI is not set (ctest sets it)"
    # device-plan names files relative to the repository: its folder must be inside it.
    folder = REPO / "build" / ("test-device-plan-%d" % os.getpid())
    shutil.rmtree(folder, ignore_errors=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def device_plan(folder, device="cpu"):
    env = dict(os.environ, DIMSCOPE_CLI=CLI, DIMSCOPE_PLAN_DEVICE=device)
    env.pop("DIMSCOPE_PYTHON", None)
    return subprocess.run(["bash", str(REPO / "scripts" / "device-plan"), str(folder), "tutorial"],
                          capture_output=True, text=True, env=env, timeout=600)


def driver(*args):
    """scripts/device-export under the host's python3 (it needs no torch): without this
    runtime's PYTHONHOME, which would point that interpreter at the wrong library."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "PYTHONPATH", "DIMSCOPE_PYTHON")}
    return subprocess.run([str(REPO / "scripts" / "device-export"), *map(str, args)],
                          capture_output=True, text=True, timeout=900, env=env)


def requests(folder):
    lines = (folder / "requests" / "tutorial.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_the_driver_replays_the_plan_and_loads_each_program_fresh(plan_dir, tmp_path):
    made = device_plan(plan_dir)
    assert made.returncode == 0, made.stderr[-3000:]
    plan = json.loads((plan_dir / "plan.json").read_text())
    (job,) = plan["jobs"]
    assert job["family"] == "tutorial" and len(job["programs"]) == 1
    assert job["programs"][0]["serves"] == [0, 1, 2]
    # The plan's request is the CLI's last export request, paths made relative.
    sent = [r for r in requests(plan_dir) if r["method"] == "export"][-1]["params"]
    planned = job["programs"][0]["params"]
    assert {k: v for k, v in planned.items() if k not in ("capture", "output")} == \
        {k: v for k, v in sent.items() if k not in ("capture", "output", "model", "archive")}
    assert "archive" not in planned  # the driver writes each program to a file of its own

    run = driver(plan_dir / "plan.json", "--device", "cpu", "--out", tmp_path / "out")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    (record,) = results["records"]
    (program,) = record["programs"]
    assert program["ok"] and program["served"] == [0, 1, 2]
    # Loaded from the .pt2 alone in a new interpreter, the program gives the eager model's outputs.
    assert program["fresh"]["ok"] and program["fresh"]["max_abs_vs_cpu_eager"] <= 1e-4
    assert "| tutorial | cpu |" in (tmp_path / "out" / "results.md").read_text()


def test_the_cli_asks_for_cuda_with_the_drivers_request(plan_dir, tmp_path):
    if not (plan_dir / "plan.json").exists():
        assert device_plan(plan_dir).returncode == 0
    planned = json.loads((plan_dir / "plan.json").read_text())["jobs"][0]["programs"][0]["params"]
    cuda_dir = plan_dir.parent / (plan_dir.name + "-cuda")
    shutil.rmtree(cuda_dir, ignore_errors=True)
    try:
        device_plan(cuda_dir, "cuda")  # here without CUDA: the worker refuses, the request is logged
        first = [r for r in requests(cuda_dir) if r["method"] == "export"][0]["params"]
    finally:
        shutil.rmtree(cuda_dir, ignore_errors=True)
    # What the driver sends for cuda: the plan's request with device (and output) replaced.
    assert first["device"] == "cuda"
    first_round = [r for r in requests(plan_dir) if r["method"] == "export"][0]["params"]
    skipped = ("capture", "output", "model", "device", "archive")  # where it is written aside
    assert {k: v for k, v in first.items() if k not in skipped} == \
        {k: v for k, v in first_round.items() if k not in skipped}
    assert (first.get("archive") or {}).get("program") == (first_round.get("archive") or {}).get("program")
    assert set(planned) - {"device"} <= set(first)


def test_the_driver_says_when_the_worker_has_no_cuda(plan_dir, tmp_path):
    if not (plan_dir / "plan.json").exists():
        assert device_plan(plan_dir).returncode == 0
    run = driver(plan_dir / "plan.json", "--device", "cuda", "--out", tmp_path / "out", "--no-fresh-load")
    if "cuda_unavailable" not in run.stdout:
        pytest.skip("this worker has CUDA")
    assert run.returncode == 1
    (record,) = json.loads((tmp_path / "out" / "results.json").read_text())["records"]
    assert record["programs"][0]["kind"] == "cuda_unavailable"
    assert "sees no CUDA device" in record["programs"][0]["message"]


def test_the_plan_takes_each_program_of_a_phased_archive(tmp_path):
    """A phased export keeps its programs for one archive: each export request names its
    own output file and the archive's path and program. The plan takes each program's
    last request by archive path and name, with the calls the report says it serves, and
    leaves out a program that serves no recorded call (failed before: every program of an
    archive was 'missing')."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("device_plan", REPO / "scripts" / "device_plan.py")
    device_plan_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(device_plan_module)
    out = tmp_path
    for sub in ("cpu", "requests", "captures"):
        (out / sub).mkdir()
    archive = str(out / "cpu" / "m.pt2")
    (out / "captures" / "m.model").write_text("dimscope.demo:make_model\n")
    (out / "cpu" / "m.log").write_text("")
    (out / "cpu" / "m.json").write_text(json.dumps({"ok": True, "programs": [
        {"output": archive, "program": "model", "calls": [1, 2]},
        {"output": archive, "program": "phase2", "calls": [0]},
        {"output": archive, "program": "phase3", "calls": []}]}))
    sent = []
    for name, output, spec_text in (("model", "m.pt2", "first"), ("model", "m.pt2", "last"),
                                    ("phase2", "m.phase2.pt2", "p2"), ("phase3", "m.phase3.pt2", "p3")):
        sent.append({"method": "export", "params": {
            "capture": str(out / "captures" / "m.safetensors"), "output": str(out / "cpu" / output),
            "spec": spec_text, "archive": {"path": archive, "program": name}}})
    (out / "requests" / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sent))
    assert device_plan_module.plan(str(out), ["m"]) == 0
    programs = json.loads((out / "plan.json").read_text())["jobs"][0]["programs"]
    assert [(p["params"]["output"], p["params"]["spec"], p["serves"]) for p in programs] == [
        ("m.pt2", "last", [1, 2]), ("m.phase2.pt2", "p2", [0])]
    assert all("archive" not in p["params"] for p in programs)

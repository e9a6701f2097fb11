# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope-cli export --fix-loop against the hand-written floor (issue 29), as a user
sees it: whole processes, alternated in one run, on one capture of two `generate()` calls.

Sides (each a fresh process, timed from start to exit):
- dimscope: `dimscope-cli export --fix-loop --no-continuation --model REF --capture
  CAPTURE -o OUT.pt2 --json OUT.json`, as a user runs it for the same two programs the
  floor writes (the continuation program, issue 27 item 2, is a third program the floor
  does not make: with it the sides would not compare the same work);
- floor: handwritten_export.py, a user's own script: load the model and the capture,
  export the same programs (prefill and decode) with a hand-written `dynamic_shapes`,
  save each with torch.export.save, replay each recorded call once through its program;
- shared floor (torch >= 2.8 only): the same, with both programs in one PT2 archive and
  the weights written once (handwritten_export.py --shared);
- certified floor (torch >= 2.8 only): the shared floor, whose calls are replayed in a new
  interpreter that loads the archive (load_pt2), instead of in the exporting one
  (handwritten_export.py --shared --fresh): the certainty of dimscope's fresh-process
  check, written by hand. No target: it says how much of dimscope's time is that
  certainty (the range probes and the check through dimscope.load_programs are not in it).
Each floor checks every call's logits against those recorded; after its first round,
the archive the shared floor wrote by hand is loaded back with load_pt2 and every call
replayed through its programs (untimed, handwritten_export.py --check-only). The rounds
rotate the order of the sides.

Models (DIMSCOPE_BENCH_MODEL): `llama` (default; the real-model suite's tiny Llama,
tests/realmodels/tinymodels.py:llama) or `qwen05b` (Qwen2.5-0.5B's sizes, random weights,
tests/bench/benchmodels.py:qwen05b; minutes a round). Quick mode (default, for CI):
1 round. Full mode: DIMSCOPE_BENCH_FULL=1, 7 rounds. DIMSCOPE_BENCH_N=K sets the rounds.
The CLI: argv[1], else $DIMSCOPE_CLI, else build/app/dimscope-cli.
Before/after a change: DIMSCOPE_BENCH_BASELINE_CLI=PATH adds the side `baseline`, that
CLI run the same way in the same rotation (an installed copy of the code before the change:
PATH/../share/dimscope/python is the worker it runs), and the ratio dimscope/baseline.

Prints one JSON line: per side the times, median, min and max; the ratios
dimscope/floor, dimscope/shared-floor and dimscope/certified-floor (of the medians, and of the fastest runs); the
torch.export calls per program dimscope made (its --json report); where dimscope's time
went (per stage, from the times its progress lines arrived, and the worker's own phase
timings per program from its --json report; an archive's fresh-process check is one,
given with each program); the bytes each side wrote; each side's CPU time (its process tree's, user + system: a
check on the wall times when the machine is shared, not the measure); the machine. Exits 1
when a side fails, or (tiny Llama) when a program took more than one torch.export call,
and in full mode when a target is missed: tiny Llama, dimscope/floor <= 1.0; qwen05b,
dimscope/floor <= 0.9 and dimscope/shared-floor <= 1.05.
"""

import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LAUNCHER = os.path.join(ROOT, "scripts", "torch-python")
FLOOR = os.path.join(HERE, "handwritten_export.py")

MODELS = {
    "llama": {"ref": os.path.join(ROOT, "tests", "realmodels", "tinymodels.py") + ":llama",
              "record": "import sys; sys.path.insert(0, %r); import tinymodels; tinymodels.record('llama', %%r)"
                        % os.path.join(ROOT, "tests", "realmodels"),
              "targets": {"floor": 1.0}, "one_trace": True},
    "qwen05b": {"ref": os.path.join(HERE, "benchmodels.py") + ":qwen05b",
                "record": "import sys; sys.path.insert(0, %r); import benchmodels; benchmodels.record('qwen05b', %%r)"
                          % HERE,
                "targets": {"floor": 0.9, "shared_floor": 1.05}, "one_trace": False},
}

# A line of the CLI's output that starts a stage: its progress events ("[export] ...")
# and the lines it prints between them.
STAGE_LINE = re.compile(r"^(?:\[(\w+)\]|(== phase)|(fix loop:)|(read back)|(programs \())")
STAGE_NAMES = {2: "phase_start", 3: "fix_loop_end", 4: "read_back", 5: "summary"}


def cli_path(argv):
    return argv[1] if len(argv) > 1 else os.environ.get("DIMSCOPE_CLI") or os.path.join(ROOT, "build", "app",
                                                                                         "dimscope-cli")


def machine():
    model = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    return {"nproc": len(os.sched_getaffinity(0)), "cpu": model,
            "loadavg_1min_at_end": round(os.getloadavg()[0], 2)}  # > nproc: others shared the machine


def folder_bytes(folder):
    return sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)
               if n.endswith(".pt2"))


def children_cpu():
    """CPU seconds (user + system) of this process's waited-for descendants so far: a
    process's own and those of the processes it waited for (the CLI's worker, the
    worker's fresh-process checkers). Other work on a shared machine disturbs it less
    than the wall clock."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_dimscope(cli, ref, capture, out):
    """One `dimscope-cli export --fix-loop` process: (seconds, CPU seconds, report, stage seconds)."""
    report = os.path.join(out, "report.json")
    cpu = children_cpu()
    t0 = time.perf_counter()
    with open(os.path.join(out, "stderr.txt"), "w") as err:
        proc = subprocess.Popen([cli, "export", "--fix-loop", "--no-continuation", "--model", ref, "--capture", capture,
                                 "-o", os.path.join(out, "model.pt2"), "--json", report],
                                stdout=subprocess.PIPE, stderr=err, text=True)
        stages, stage, since, lines = {}, "start", t0, []
        for line in proc.stdout:
            now = time.perf_counter()
            lines.append(line)
            m = STAGE_LINE.match(line)
            if m:
                stages[stage] = stages.get(stage, 0.0) + now - since
                stage = m.group(1) or STAGE_NAMES[m.lastindex]
                since = now
        end_of_output = time.perf_counter()
        rc = proc.wait()
    seconds = time.perf_counter() - t0
    cpu = children_cpu() - cpu
    stages[stage] = stages.get(stage, 0.0) + end_of_output - since
    stages["exit"] = seconds - (end_of_output - t0)  # stdout closed -> process gone
    if rc != 0:
        with open(os.path.join(out, "stderr.txt")) as f:
            raise RuntimeError("dimscope-cli export exited %d:\n%s\n%s" % (rc, "".join(lines)[-4000:], f.read()[-3000:]))
    with open(report, encoding="utf-8") as f:
        return seconds, cpu, json.load(f), stages


def run_floor(ref, capture, out, *flags):
    """One run of the hand-written script: (seconds, CPU seconds)."""
    cpu = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run([LAUNCHER, FLOOR, ref, capture, out, *flags], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    seconds, cpu = time.perf_counter() - t0, children_cpu() - cpu
    if proc.returncode != 0:
        raise RuntimeError("%s %s exited %d:\n%s" % (FLOOR, " ".join(flags), proc.returncode, proc.stderr[-4000:]))
    return seconds, cpu


def summary(times):
    return {"s": [round(x, 3) for x in times], "median_s": round(statistics.median(times), 3),
            "min_s": round(min(times), 3), "max_s": round(max(times), 3)}


def main(argv):
    full = os.environ.get("DIMSCOPE_BENCH_FULL") == "1"
    name = os.environ.get("DIMSCOPE_BENCH_MODEL", "llama")
    if name not in MODELS:
        print("DIMSCOPE_BENCH_MODEL must be one of %s" % ", ".join(MODELS), file=sys.stderr)
        return 2
    model = MODELS[name]
    rounds = int(os.environ.get("DIMSCOPE_BENCH_N") or (7 if full else 1))
    cli = cli_path(argv)
    tmp = tempfile.mkdtemp(prefix="dimscope-bench-handwritten-")
    try:
        return measure(cli, name, model, rounds, full, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(cli, name, model, rounds, full, tmp):
    capture = os.path.join(tmp, name + ".safetensors")
    # The recording's interpreter also says the versions and whether this torch has the PT2
    # archive format that the shared floor needs (torch >= 2.8; without it that side is left out).
    versions = subprocess.run([LAUNCHER, "-c", model["record"] % capture + "; import torch, transformers; "
                               "sys.path.insert(0, %r); import handwritten_export as h; "
                               "print(torch.__version__, transformers.__version__, h.has_archive_format())" % HERE],
                              check=True, stdout=subprocess.PIPE, text=True).stdout.split()
    baseline = os.environ.get("DIMSCOPE_BENCH_BASELINE_CLI")
    sides = ["dimscope"] + (["baseline"] if baseline else []) + ["floor"] + (
        ["shared_floor", "certified_floor"] if versions[-1] == "True" else [])
    flags = {"floor": (), "shared_floor": ("--shared",), "certified_floor": ("--shared", "--fresh")}
    times = {side: [] for side in sides}
    cpu_times = {side: [] for side in sides}
    written = {side: [] for side in sides}
    stage_times, worker_times, traces, failed, programs, baseline_traces = {}, {}, [], [], 0, None
    for r in range(rounds):
        order = sides[r % len(sides):] + sides[:r % len(sides)]
        for side in order:
            out = tempfile.mkdtemp(dir=tmp)
            if side == "baseline":
                seconds, cpu, report, _ = run_dimscope(baseline, model["ref"], capture, out)
                baseline_traces = [p["torch_export_calls"] for p in report["programs"]]
            elif side == "dimscope":
                seconds, cpu, report, stages = run_dimscope(cli, model["ref"], capture, out)
                for stage, s in stages.items():
                    stage_times.setdefault(stage, []).append(s)
                for p in report["programs"]:
                    for phase, s in (p.get("timings") or {}).items():
                        worker_times.setdefault("%s.%s" % (p.get("program") or "model", phase), []).append(s)
                traces = [p["torch_export_calls"] for p in report["programs"]]
                failed = report.get("failed_torch_export_calls") or []
                programs = len(report["programs"])
            else:
                seconds, cpu = run_floor(model["ref"], capture, out, *flags[side])
                if side == "shared_floor" and r == 0:  # untimed: the archive written by hand loads back
                    run_floor(model["ref"], capture, out, "--check-only", *flags[side])
            times[side].append(seconds)
            cpu_times[side].append(cpu)
            written[side].append(folder_bytes(out))
            shutil.rmtree(out)
    medians = {side: statistics.median(t) for side, t in times.items()}
    ratios = {side: round(medians["dimscope"] / medians[side], 3) for side in sides[1:]}
    # The fastest run of each side: on a machine others share, the least disturbed one.
    min_ratios = {side: round(min(times["dimscope"]) / min(times[side]), 3) for side in sides[1:]}
    cpu_medians = {side: statistics.median(t) for side, t in cpu_times.items()}
    targets = {side: {"target": limit, "ratio": ratios.get(side),
                      "met": None if side not in ratios else ratios[side] <= limit}
               for side, limit in model["targets"].items()}
    one_trace = all(n == 1 for n in traces) and not failed
    print(json.dumps({
        "model": name, "mode": "full" if full else "quick", "n": rounds,
        "times": {side: summary(t) for side, t in times.items()},
        "ratio_dimscope_over_floor": ratios.get("floor"),
        "ratio_dimscope_over_shared_floor": ratios.get("shared_floor"),
        "ratio_dimscope_over_certified_floor": ratios.get("certified_floor"),
        "ratio_dimscope_over_baseline": ratios.get("baseline"),
        "baseline_torch_export_calls_per_program": baseline_traces,
        "ratios_of_min_times": min_ratios,
        "cpu_times": {side: summary(t) for side, t in cpu_times.items()},
        "cpu_ratios": {side: round(cpu_medians["dimscope"] / cpu_medians[side], 3) for side in sides[1:]},
        "targets": {side: dict(t, met={True: "met", False: "MISSED", None: "not measured"}[t["met"]])
                    for side, t in targets.items()},
        "dimscope_programs": programs, "torch_export_calls_per_program": traces,
        "failed_torch_export_calls": failed,
        "dimscope_stage_median_s": {k: round(statistics.median(v), 3) for k, v in stage_times.items()},
        "dimscope_worker_timings_median_s": {k: round(statistics.median(v), 3) for k, v in worker_times.items()},
        "written_bytes": {side: max(b) for side, b in written.items()},
        "machine": machine(), "torch": versions[-3], "transformers": versions[-2], "cli": cli}))
    if model["one_trace"] and not one_trace:
        print("bench_handwritten: expected one torch.export call per program, got %s (failed: %s)"
              % (traces, failed), file=sys.stderr)
        return 1
    missed = [side for side, t in targets.items() if t["met"] is False]
    # A report, not a timed unit test: only the full mode enforces the targets.
    return 1 if full and missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

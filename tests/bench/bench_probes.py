# SPDX-License-Identifier: GPL-3.0-or-later
"""What range probing costs next to verification (issue 24 item 3, Done-when: "probing
adds at most 1.5x the time of verification"), measured inside the same export run: the
worker's own timings of each program (`--json` programs[].timings: `verify` and
`verify_cpu`, the recorded calls replayed and checked with the batch-1 slice; `probe` and
`probe_cpu`, the synthesized calls, plus `probe_elsewhere`, the rejected ones tried on
the archive's other programs), summed over the programs of
`dimscope-cli export --fix-loop --model REF --capture CAPTURE --json OUT.json`.

Models: the demo (dimscope.demo:make_model, its two-turn capture) and, in full mode, the
real-model suite's tiny Llama (tests/realmodels/tinymodels.py:llama: prefill, decode and
continuation programs). The ratio is of CPU seconds (the worker process's, which other
work on a shared machine disturbs less than the wall clock); the wall ratio is printed
beside it. Quick mode (default, for CI): the demo, 1 run. Full mode: DIMSCOPE_BENCH_FULL=1,
both models, 3 runs each (the median run's ratio per model); DIMSCOPE_BENCH_N=K sets the
runs; DIMSCOPE_BENCH_MODELS=llama (comma-separated: demo, llama) picks the models of
either mode (the tiny Llama alone: DIMSCOPE_BENCH_FULL=1 DIMSCOPE_BENCH_MODELS=llama;
the ctest entry stays the demo's quick run). The CLI: argv[1], else
$DIMSCOPE_CLI, else build/app/dimscope-cli.

Prints one JSON line per model and a summary line; exits 1 when an export fails or a
program reports no probe or verification timing (probing did not run: broken, not just
slow), and in full mode when a model's ratio is above the target.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LAUNCHER = os.path.join(ROOT, "scripts", "torch-python")
TARGET = 1.5

MODELS = {
    "demo": {"ref": "dimscope.demo:make_model",
             "record": "from dimscope import demo; demo.record_demo_capture(%r)"},
    "llama": {"ref": os.path.join(ROOT, "tests", "realmodels", "tinymodels.py") + ":llama",
              "record": "import sys; sys.path.insert(0, %r); import tinymodels; tinymodels.record('llama', %%r)"
                        % os.path.join(ROOT, "tests", "realmodels")},
}


def cli_path(argv):
    return argv[1] if len(argv) > 1 else os.environ.get("DIMSCOPE_CLI") or os.path.join(ROOT, "build", "app",
                                                                                         "dimscope-cli")


def one_run(cli, model, capture, folder, n):
    """{verify, verify_cpu, probe, probe_cpu, probes}: one export's sums over its programs."""
    out, report = os.path.join(folder, "%s-%d.pt2" % (model, n)), os.path.join(folder, "%s-%d.json" % (model, n))
    done = subprocess.run([cli, "export", "--fix-loop", "--model", MODELS[model]["ref"], "--capture", capture,
                           "-o", out, "--json", report], capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError("%s: dimscope-cli export exited %d:\n%s" % (model, done.returncode, done.stderr[-3000:]))
    with open(report, encoding="utf-8") as f:
        programs = json.load(f)["programs"]
    sums = {"verify": 0.0, "verify_cpu": 0.0, "probe": 0.0, "probe_cpu": 0.0, "probes": 0, "programs": len(programs)}
    for p in programs:
        timings = p.get("timings") or {}
        if "verify_cpu" not in timings or "probe_cpu" not in timings:
            raise RuntimeError("%s: program %s reports no verification or probe timing: %r"
                               % (model, p.get("program"), timings))
        sums["verify"] += timings["verify"]
        sums["verify_cpu"] += timings["verify_cpu"]
        sums["probe"] += timings["probe"] + timings.get("probe_elsewhere", 0.0)
        sums["probe_cpu"] += timings["probe_cpu"] + timings.get("probe_elsewhere_cpu", 0.0)
        sums["probes"] += len((p.get("probes") or {}).get("probes") or [])
    if not sums["probes"]:
        raise RuntimeError("%s: no probe was reported" % model)
    sums["ratio_cpu"] = sums["probe_cpu"] / sums["verify_cpu"]
    sums["ratio_wall"] = sums["probe"] / sums["verify"]
    return sums


def main(argv):
    full = os.environ.get("DIMSCOPE_BENCH_FULL") == "1"
    cli = cli_path(argv)
    models, runs = (["demo", "llama"], 3) if full else (["demo"], 1)
    runs = int(os.environ.get("DIMSCOPE_BENCH_N", runs))
    if os.environ.get("DIMSCOPE_BENCH_MODELS"):
        models = [m.strip() for m in os.environ["DIMSCOPE_BENCH_MODELS"].split(",") if m.strip()]
        unknown = [m for m in models if m not in MODELS]
        if unknown or not models:
            print("DIMSCOPE_BENCH_MODELS: unknown model(s) %s; known: %s" % (", ".join(unknown) or "(none given)",
                                                                          ", ".join(sorted(MODELS))), file=sys.stderr)
            return 2
    folder = tempfile.mkdtemp(prefix="dimscope-bench-probes-")
    failed, results = False, {}
    for model in models:
        capture = os.path.join(folder, model + ".safetensors")
        subprocess.run([LAUNCHER, "-c", MODELS[model]["record"] % capture], check=True, timeout=600)
        try:
            done = [one_run(cli, model, capture, folder, n) for n in range(runs)]
        except RuntimeError as e:
            print(str(e), file=sys.stderr)
            return 1
        median = sorted(done, key=lambda r: r["ratio_cpu"])[len(done) // 2]
        results[model] = median["ratio_cpu"]
        print(json.dumps({"model": model, "runs": len(done), "programs": median["programs"],
                          "probes": median["probes"],
                          "verify_cpu_s": [round(r["verify_cpu"], 3) for r in done],
                          "probe_cpu_s": [round(r["probe_cpu"], 3) for r in done],
                          "verify_wall_s": [round(r["verify"], 3) for r in done],
                          "probe_wall_s": [round(r["probe"], 3) for r in done],
                          "ratio_cpu": round(median["ratio_cpu"], 3),
                          "ratio_wall_median": round(statistics.median(r["ratio_wall"] for r in done), 3),
                          "target": TARGET, "mode": "full" if full else "quick"}))
        failed = failed or (full and median["ratio_cpu"] > TARGET)
    print(json.dumps({"ratios_cpu": {m: round(r, 3) for m, r in results.items()}, "target": TARGET,
                      "met": all(r <= TARGET for r in results.values())}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

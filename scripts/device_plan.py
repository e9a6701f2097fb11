# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python half of scripts/device-plan (run through scripts/torch-python).

    device_plan.py record FAMILY OUT_DIR   records FAMILY's capture into OUT_DIR/captures
    device_plan.py plan OUT_DIR FAMILY...  writes OUT_DIR/plan.json from the requests the
                                           CLI sent (OUT_DIR/requests/FAMILY.jsonl) and
                                           the programs it wrote (OUT_DIR/cpu/FAMILY.json)
"""

import json
import os
import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "realmodels"))

# The tutorial of docs/gui-export.md, with its constant made on the inputs' device
# (`torch.ones(4)` alone is a CPU tensor: the model itself fails on CUDA, eagerly).
TUTORIAL_MODEL = '''import torch


class Tutorial(torch.nn.Module):
    def forward(self, x, y):
        w = x + y
        return w + torch.ones(4, device=w.device)
'''
TUTORIAL_CONSTRAINTS = {
    "format": "dimscope.constraints", "version": 1,
    "dims": [{"name": "dx", "min": None, "max": None}, {"name": "dy", "min": None, "max": None},
             {"name": "d1", "min": None, "max": None}],
    "leaves": {"x": ["dx", "d1"], "y": ["dy", "d1"]},
}

# The module whose import registers a family's output and cache classes, imported before
# a program is loaded in a fresh interpreter (as a user who has the model's code does).
MODEL_MODULES = {
    "llama": "transformers.models.llama.modeling_llama",
    "qwen2": "transformers.models.qwen2.modeling_qwen2",
    "mistral": "transformers.models.mistral.modeling_mistral",
    "gemma2": "transformers.models.gemma2.modeling_gemma2",
    "gpt2": "transformers.models.gpt2.modeling_gpt2",
    "t5": "transformers.models.t5.modeling_t5",
    "llava": "transformers.models.llava.modeling_llava",
    "mamba": "transformers.models.mamba.modeling_mamba",
    "llama_static": "transformers.models.llama.modeling_llama",
    "gemma2_static": "transformers.models.gemma2.modeling_gemma2",
}


def wrote(params, program):
    """Whether an export request wrote this program of the CLI's --json report: the same
    output file and, where the programs share one archive, the same program name."""
    archive = params.get("archive")
    # A program kept for an archive names the archive's path; its own output is unused.
    if (archive or {}).get("path", params.get("output")) != program["output"]:
        return False
    return not archive or not program.get("program") or archive.get("program") == program["program"]


def relative(path):
    return os.path.relpath(os.path.abspath(path), REPO)


def record(family, out):
    captures = Path(out) / "captures"
    capture = captures / ("%s.safetensors" % family)
    if family == "demo":
        shutil.copyfile(REPO / "resources" / "demo" / "demo-capture.safetensors", capture)
        model = "dimscope.demo:make_model"
    elif family == "tutorial":
        import torch
        from dimscope.capture import InputRecorder
        source = captures / "tutorial.py"
        source.write_text(TUTORIAL_MODEL)
        namespace = {}
        exec(compile(TUTORIAL_MODEL, str(source), "exec"), namespace)
        torch.manual_seed(0)
        net = namespace["Tutorial"]()
        rec = InputRecorder(store_n_calls=3)
        with rec(net):
            for n in (5, 7, 6):
                net(torch.randn(n, 4), torch.randn(n, 4))
        rec.save(capture)
        (captures / "tutorial.constraints.json").write_text(json.dumps(TUTORIAL_CONSTRAINTS))
        model = "%s:Tutorial" % source
    else:
        import tinymodels
        tinymodels.record(family, capture)
        model = "%s:%s" % (REPO / "tests" / "realmodels" / "tinymodels.py", family)
    (captures / ("%s.model" % family)).write_text(model)


def requests_of(log):
    out = []
    for line in Path(log).read_text(encoding="utf-8").splitlines():
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if isinstance(req, dict):
            out.append(req)
    return out


def served_calls(log):
    """{program path: [calls]} from the CLI's closing list (`programs (N):`)."""
    text = Path(log).read_text(encoding="utf-8", errors="replace")
    served = {}
    if "\nprograms (" not in text:
        return served
    for line in text.split("\nprograms (", 1)[1].splitlines()[1:]:
        m = re.match(r"  (\S+\.pt2)  calls ([0-9, -]+)", line)
        if not m:
            break
        calls = []
        for part in m.group(2).split(","):
            a, _, b = part.strip().partition("-")
            calls.extend(range(int(a), int(b or a) + 1))
        served[m.group(1)] = calls
    return served


def plan(out, families):
    out = Path(out)
    jobs, missing = [], []
    for family in families:
        report = out / "cpu" / ("%s.json" % family)
        if not report.exists():
            missing.append("%s: the CLI wrote no report (see cpu/%s.log)" % (family, family))
            continue
        cli = json.loads(report.read_text(encoding="utf-8"))
        requests = requests_of(out / "requests" / ("%s.jsonl" % family))
        served = served_calls(out / "cpu" / ("%s.log" % family))
        exports = [r for r in requests if r.get("method") == "export"]
        model = (out / "captures" / ("%s.model" % family)).read_text().strip()
        path, _, attr = model.rpartition(":")
        if path.endswith(".py"):
            model = "%s:%s" % (relative(path), attr)
        programs = []
        for program in cli.get("programs", []):
            # The program's last export request: the spec the fix loop ended with.
            sent = [r for r in exports if wrote(r.get("params", {}), program)]
            if not sent:
                missing.append("%s: no export request wrote %s" % (family, program["output"]))
                continue
            params = dict(sent[-1]["params"])
            params["capture"] = relative(params["capture"])
            params.pop("model", None)
            params["output"] = os.path.basename(params["output"])
            # The device driver writes each program to a file of its own, loaded fresh alone.
            params.pop("archive", None)
            # The report's calls; the closing list's where a report has none (older CLIs).
            serves = program["calls"] if "calls" in program else served.get(program["output"], [])
            if serves:  # a program for calls that come next (the continuation) serves none recorded
                programs.append({"params": params, "serves": serves})
        imports = ["dimscope.demo"] if family == "demo" else [MODEL_MODULES[family]] if family in MODEL_MODULES else []
        jobs.append({"family": family, "model": model, "imports": imports, "cli_ok": cli.get("ok"),
                     "programs": programs})
    document = {"format": "dimscope.device-plan", "version": 1, "jobs": jobs}
    (out / "plan.json").write_text(json.dumps(document, indent=1))
    for line in missing:
        print("device-plan: " + line, file=sys.stderr)
    print("device-plan: %s: %d families, %d programs" % (out / "plan.json", len(jobs),
                                                         sum(len(j["programs"]) for j in jobs)), file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    if sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "plan":
        sys.exit(plan(sys.argv[2], sys.argv[3:]))
    else:
        sys.exit("usage: device_plan.py record FAMILY OUT_DIR | plan OUT_DIR FAMILY...")

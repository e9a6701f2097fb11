# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 12: `dimscope-cli export` says which line of the model made torch specialize,
cap, tie or guard a Dim (`FILE:LINE: kind: expression` and the code), on failure, with
each fix --fix-loop applies, with --explain after a success, and as data in --json.
Models defined here, captured here, exported by the real CLI and worker (both runtimes)."""

import json
import re

import pytest
import torch

pytest.importorskip("dimscope.capture")
from conftest import cli, constraints_file, model_file, needs_cli, record  # noqa: E402

pytestmark = needs_cli

MODELS = '''\
import torch
import torch.nn.functional as F


def double_if_four(h):
    if h.shape[1] == 4:
        return h * 2
    return h


class Specializes(torch.nn.Module):
    """Its own code specializes seq_len (the example call has 4) and caps n at 16."""

    def forward(self, x, y):
        h = x + 1
        h = double_if_four(h)
        if y.shape[0] > 16:
            raise ValueError("y is too long")
        return h.sum(-1) + y.sum()


class Ties(torch.nn.Module):
    def forward(self, a, b):
        return a + b


class InLibrary(torch.nn.Module):
    """torch's linear checks x's last dim against the weight: the guard is inside the
    library, the line to show is the call."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3, 8, generator=torch.Generator().manual_seed(0)))

    def forward(self, x):
        return F.linear(x, self.weight)


class Explained(torch.nn.Module):
    """Exports, but caps y's length: what --explain shows after a success."""

    def forward(self, x, y):
        if y.shape[0] > 32:
            raise ValueError("y is too long")
        return x.sum() + y.sum()
'''


def line_of(code):
    """1-based line number of `code` in MODELS (unique)."""
    hits = [i + 1 for i, line in enumerate(MODELS.splitlines()) if line.strip() == code]
    assert len(hits) == 1, (code, hits)
    return hits[0]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("explain")
    path = folder / "explain_models.py"
    return path, model_file(path, MODELS)


def explained(text, path, code, kind, expression):
    """The compiler-style line for `code` in the model file and the code line below it."""
    pattern = r"^\s*%s:%d: %s: %s\n\s+%s$" % (re.escape(str(path)), line_of(code), re.escape(kind),
                                               re.escape(expression), re.escape(code))
    return re.search(pattern, text, re.M)


@pytest.fixture(scope="module")
def specializes(models, tmp_path_factory):
    path, ns = models
    folder = tmp_path_factory.mktemp("specializes")
    # seq_len 4 in the example call (call 0), other lengths later: the model's
    # `if h.shape[1] == 4:` specializes it; y's length (n) is capped at 16 by the model.
    capture = record(ns["Specializes"](), [(torch.randn(3, 4), torch.randn(8)),
                                           (torch.randn(5, 6), torch.randn(10)),
                                           (torch.randn(2, 7), torch.randn(12))],
                     folder / "specializes.safetensors", no_grad=True)
    cons = constraints_file(folder / "specializes-constraints.json", ["batch", "seq_len", "n"],
                            {"x": ["batch", "seq_len"], "y": ["n"]})
    return "%s:Specializes" % path, capture, cons, path


def test_failure_names_the_model_lines(specializes, tmp_path):
    model, capture, cons, path = specializes
    report = tmp_path / "report.json"
    done = cli("export", "--model", model, "--capture", capture, "--constraints", cons, "--json", report,
               "-o", tmp_path / "s.pt2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "export failed: constraint_violation" in done.stderr, done.stderr
    assert "why: torch's shape decisions" in done.stderr, done.stderr
    # the user's line, in the helper the forward calls, not torch's
    assert explained(done.stderr, path, "if h.shape[1] == 4:", "specialized", "seq_len == 4"), done.stderr
    assert explained(done.stderr, path, "if y.shape[0] > 16:", "range narrowed", "n <= 16"), done.stderr
    assert "/torch/" not in "".join(l for l in done.stderr.splitlines() if re.match(r"^\s+\S+:\d+: ", l))

    data = json.loads(report.read_text())
    assert data["format"] == "dimscope.export" and data["ok"] is False
    assert data["failure"]["kind"] == "constraint_violation"
    by_kind = {e["kind"]: e for e in data["explanations"]}
    spec = by_kind["specialized"]
    assert spec["expression"] == "seq_len == 4" and spec["value"] == 4 and spec["dims"] == ["seq_len"]
    assert spec["location"] == {"file": str(path), "line": line_of("if h.shape[1] == 4:"),
                                "function": "double_if_four", "code": "if h.shape[1] == 4:"}
    assert {"path": "x", "dim": 1} == {k: spec["sources"][0][k] for k in ("path", "dim")}
    # the frames above it: the forward's call of the helper, then the helper
    user = [(f["function"], f["line"]) for f in spec["stack"] if not f["library"]]
    assert user[-2:] == [("forward", line_of("h = double_if_four(h)")),
                         ("double_if_four", line_of("if h.shape[1] == 4:"))], spec["stack"]
    assert by_kind["range_narrowed"]["expression"] == "n <= 16"
    assert by_kind["range_narrowed"]["sources"][0]["path"] == "y"


def test_fix_loop_says_what_caused_each_fix(specializes, tmp_path):
    model, capture, cons, path = specializes
    report = tmp_path / "report.json"
    done = cli("export", "--model", model, "--capture", capture, "--constraints", cons, "--fix-loop",
               "--json", report, "-o", tmp_path / "s.pt2")
    out = done.stdout
    assert "applied: seq_len = 4" in out, out + done.stderr
    block = out.split("applied: seq_len = 4\n", 1)[1]
    assert block.startswith("  because:\n"), block[:400]
    assert explained(block.split("\napplied", 1)[0], path, "if h.shape[1] == 4:", "specialized",
                     "seq_len == 4"), block[:600]
    m = re.search(r"^applied: n = Dim\('n'.*max=16\)\n  because:\n(.*\n.*)$", out, re.M)
    assert m, out
    assert explained(m.group(1), path, "if y.shape[0] > 16:", "range narrowed", "n <= 16"), m.group(1)

    data = json.loads(report.read_text())
    first = data["rounds"][0]
    assert first["failure"]["kind"] == "constraint_violation"
    fixes = {a["fix"].split(" = ")[0]: a for a in first["applied"]}
    assert fixes["seq_len"]["explanations"][0]["location"]["line"] == line_of("if h.shape[1] == 4:")
    assert fixes["n"]["explanations"][0]["expression"] == "n <= 16"


def test_tied_dims_name_the_line(models, tmp_path):
    path, ns = models
    capture = record(ns["Ties"](), [(torch.randn(3), torch.randn(3)), (torch.randn(5), torch.randn(5))],
                     tmp_path / "ties.safetensors", no_grad=True)
    cons = constraints_file(tmp_path / "ties-constraints.json", ["da", "db"], {"a": ["da"], "b": ["db"]})
    done = cli("export", "--model", "%s:Ties" % path, "--capture", capture, "--constraints", cons,
               "-o", tmp_path / "t.pt2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert explained(done.stderr, path, "return a + b", "equality", "da == db"), done.stderr

    done = cli("export", "--model", "%s:Ties" % path, "--capture", capture, "--constraints", cons, "--fix-loop",
               "-o", tmp_path / "t.pt2")
    assert done.returncode == 0, done.stdout + done.stderr
    m = re.search(r"^applied: (db = da|da = db)\n  because:\n(.*\n.*)$", done.stdout, re.M)
    assert m, done.stdout
    assert explained(m.group(2), path, "return a + b", "equality", "da == db"), m.group(2)


def test_guard_inside_a_library_call_shows_the_users_line(models, tmp_path):
    path, ns = models
    # k (x's last dim) is 8 in every call; the constraints make it dynamic anyway: torch's
    # linear specializes it to the weight's 8, inside torch.
    capture = record(ns["InLibrary"](), [(torch.randn(3, 8),), (torch.randn(5, 8),)],
                     tmp_path / "library.safetensors", no_grad=True)
    cons = constraints_file(tmp_path / "library-constraints.json", ["batch", "k"], {"x": ["batch", "k"]})
    done = cli("export", "--model", "%s:InLibrary" % path, "--capture", capture, "--constraints", cons,
               "-o", tmp_path / "l.pt2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert explained(done.stderr, path, "return F.linear(x, self.weight)", "specialized", "k == 8"), done.stderr

    done = cli("export", "--model", "%s:InLibrary" % path, "--capture", capture, "--constraints", cons,
               "--fix-loop", "-o", tmp_path / "l.pt2")
    assert done.returncode == 0, done.stdout + done.stderr
    block = done.stdout.split("applied: k = 8\n", 1)[1]
    assert explained(block.split("\napplied", 1)[0], path, "return F.linear(x, self.weight)", "specialized",
                     "k == 8"), block[:600]


def test_explain_after_a_success(models, tmp_path):
    path, ns = models
    capture = record(ns["Explained"](), [(torch.randn(3, 4), torch.randn(8)), (torch.randn(5, 6), torch.randn(10))],
                     tmp_path / "explained.safetensors", no_grad=True)
    # y's length left to torch (Dim.AUTO): the model caps it at 32 without an error
    cons = constraints_file(tmp_path / "explained-constraints.json", ["batch", "seq_len"],
                            {"x": ["batch", "seq_len"], "y": ["auto"]})
    base = ["export", "--model", "%s:Explained" % path, "--capture", capture, "--constraints", cons]
    quiet = cli(*base, "-o", tmp_path / "e.pt2")
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    assert "explain:" not in quiet.stdout
    report = tmp_path / "report.json"
    done = cli(*base, "--explain", "--json", report, "-o", tmp_path / "e.pt2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "explain: torch's shape decisions on the dynamic dims" in done.stdout, done.stdout
    assert explained(done.stdout, path, "if y.shape[0] > 32:", "range narrowed", "y.size(0) <= 32"), done.stdout
    data = json.loads(report.read_text())
    assert data["ok"] is True and data["failure"] is None
    assert data["programs"][0]["output"] == str(tmp_path / "e.pt2")
    for e in data["explanations"]:
        # every explanation printed, each at a line of the model
        assert e["location"]["file"] == str(path), e
        assert "%s:%d: " % (path, e["location"]["line"]) in done.stdout

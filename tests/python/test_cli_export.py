# SPDX-License-Identifier: GPL-3.0-or-later
"""`dimscope-cli export` end to end: the built CLI ($DIMSCOPE_CLI, set by ctest) drives
the real export worker on CPU (torch runtime), reads the .pt2 back with the C++
Pt2Reader and checks it against the constraints. No mocks: every model is exported by
torch.export, every captured call is replayed through the exported program."""

import json
import os
import re
import textwrap

import pytest
import torch

pytest.importorskip("dimscope.capture")
from conftest import ROOT, cli, constraints_file, model_file, needs_cli, record  # noqa: E402
from dimscope.capture import InputRecorder  # noqa: E402

pytestmark = needs_cli

DEMO_CAPTURE = ROOT / "resources" / "demo" / "demo-capture.safetensors"
DEMO_PROJECT = ROOT / "resources" / "demo" / "demo.dimscope"


def verification_rows(out):
    """{call: status} from the verification table(s); the last table wins."""
    tables = out.split("verification (* = example call):\n")
    assert len(tables) > 1, out
    rows = {}
    for line in tables[-1].splitlines()[1:]:
        m = re.match(r"^(\d+)\*?\s+(\w+)", line)
        if not m:
            break
        rows[int(m.group(1))] = m.group(2)
    return rows


def read_back(out):
    """The read-back section: {leaf path: [size texts]} (sizes as printed, Dim names mapped)."""
    section = out.split("\nread back ", 1)
    assert len(section) == 2, out
    leaves = {}
    for line in section[1].splitlines()[1:]:
        m = re.match(r"^  (\S+)\s+\w+\[(.*)\]$", line)
        if not m:
            break
        leaves[m.group(1)] = [s.strip() for s in m.group(2).split(", ")] if m.group(2) else []
    return leaves


def named_dims(constraints):
    """[(leaf, dim, Dim name)] of every dim a constraint set makes dynamic under a name."""
    out = []
    for leaf, dims in constraints["leaves"].items():
        for d, entry in enumerate(dims):
            if entry not in ("static", "auto", "dynamic"):
                out.append((leaf, d, entry))
    return out


def check_symbols_for_dynamic_dims(out, constraints):
    leaves = read_back(out)
    derived = {d["name"] for d in constraints["dims"] if "root" in d}
    wanted = named_dims(constraints)
    assert wanted, constraints
    for leaf, d, name in wanted:
        assert leaf in leaves, (leaf, leaves)
        size = leaves[leaf][d]
        # a symbol: "NAME (s0)"; a Dim torch expressed through others:
        # "total_len = past_len + seq_len (s2 + s5)"; a derived Dim: its expression
        assert re.search(r"\bs\d+\b", size), (leaf, d, name, size)
        if name not in derived:
            assert size.startswith(name + " (") or size.startswith(name + " = "), (leaf, d, name, size)
    assert "came out static" not in out


# --- (a) the demo model --------------------------------------------------------------

def project_naming_another_model(folder):
    """The bundled project with its model replaced by one that leaves a mark when imported
    (and its capture made absolute): (project file, marker)."""
    marker = folder / "ran"
    (folder / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\ndef make():\n    raise SystemExit\n")
    project = json.loads(DEMO_PROJECT.read_text())
    project["model"] = f"{folder / 'evil.py'}:make"
    project["capture"] = str(DEMO_CAPTURE)
    (folder / "evil.dimscope").write_text(json.dumps(project))
    return folder / "evil.dimscope", marker


@pytest.mark.parametrize("source", ["inferred", "project"])
def test_demo_export_replays_and_reads_back_symbols(source, tmp_path):
    """The demo exported with the constraints inferred from its capture, or with those of
    a project given as --constraints. The project contributes its constraints only: the
    model it names (one that leaves a mark when imported) is never run, the CLI runs the
    model its arguments name. (One export does both: CI time.)"""
    out_pt2 = tmp_path / "demo.pt2"
    args = ["export", "--model", "dimscope.demo:make_model", "--capture", DEMO_CAPTURE, "-o", out_pt2]
    if source == "inferred":
        done = cli("analyze", DEMO_CAPTURE, "--format", "json")
        assert done.returncode == 0, done.stderr
        constraints = json.loads(done.stdout)
    else:
        project, marker = project_naming_another_model(tmp_path)
        args += ["--constraints", project]
        constraints = json.loads(project.read_text())["constraints"]
    done = cli(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out_pt2.is_file()
    assert ("inferred from the capture" in done.stdout) == (source == "inferred")
    rows = verification_rows(done.stdout)
    assert sorted(rows) == list(range(6)) and set(rows.values()) == {"ok"}, rows
    check_symbols_for_dynamic_dims(done.stdout, constraints)
    assert "range constraints:" in done.stdout
    if source == "project":
        assert not marker.exists()
        assert "evil.py" not in done.stdout + done.stderr


def test_demo_dynamic_shapes_spec_is_still_accepted(tmp_path):
    spec = tmp_path / "spec.json"
    done = cli("analyze", DEMO_CAPTURE, "--format", "spec")
    assert done.returncode == 0, done.stderr
    spec.write_text(done.stdout)
    # --verify-with: with a spec, one program in a file of its own replays the held-out
    # calls in its fresh-process check (here the capture's own calls, issue 24 item 4)
    done = cli("export", "--model", "dimscope.demo:make_model", "--capture", DEMO_CAPTURE, "--constraints", spec,
               "--verify-with", DEMO_CAPTURE, "-o", tmp_path / "demo.pt2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dynamic_shapes spec, used as is" in done.stdout
    assert "held-out demo-capture.safetensors: 6 of 6 calls served (calls 0-5)\n" in done.stdout, done.stdout[-2000:]
    assert set(verification_rows(done.stdout).values()) == {"ok"}
    # the spec's Dims are mapped back through the leaves the spec names
    assert read_back(done.stdout)["input_ids"][1].startswith("seq_len (")
    # --fix-loop needs a constraint set to change
    done = cli("export", "--model", "dimscope.demo:make_model", "--capture", DEMO_CAPTURE, "--constraints", spec,
               "--fix-loop", "-o", tmp_path / "demo.pt2")
    assert done.returncode == 2 and "--fix-loop needs a constraint set" in done.stderr


# --- (b) the tutorial's failing model ------------------------------------------------

TUTORIAL_MODEL = '''
import torch


class Foo(torch.nn.Module):
    def forward(self, x, y):
        w = x + y
        return w + torch.ones(4)


def make():
    return Foo()
'''


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    """The model file, a capture recorded from it, and the tutorial's constraints
    (dx, dy, d1 with x: (dx, d1), y: (dy, d1))."""
    folder = tmp_path_factory.mktemp("tutorial")
    path = folder / "tutorial_model.py"
    model = model_file(path, TUTORIAL_MODEL)["make"]()
    capture = record(model, [(torch.randn(n, 4), torch.randn(n, 4)) for n in (6, 8, 5)],
                     folder / "tutorial.safetensors")
    constraints = constraints_file(folder / "tutorial-constraints.json", ["dx", "dy", "d1"],
                                   {"x": ["dx", "d1"], "y": ["dy", "d1"]})
    return "%s:make" % path, capture, constraints


def test_tutorial_fails_with_violations_and_fixes(tutorial, tmp_path):
    model, capture, constraints = tutorial
    out_pt2 = tmp_path / "foo.pt2"
    done = cli("export", "--model", model, "--capture", capture, "--constraints", constraints, "-o", out_pt2)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "export failed: constraint_violation" in done.stderr, done.stderr
    assert "violations:" in done.stderr and "suggested fixes:" in done.stderr
    # the leaf dims of the dx/dy equality, named as the GUI names them
    assert re.search(r"^\s+leaf dims: .*\bx dim 0 \(dx\)", done.stderr, re.M), done.stderr
    assert re.search(r"^\s+leaf dims: .*\by dim 0 \(dy\)", done.stderr, re.M), done.stderr
    assert re.search(r"^\s+d1 = 4$", done.stderr, re.M), done.stderr
    assert re.search(r"^\s+(dy = dx|dx = dy)$", done.stderr, re.M), done.stderr
    assert not out_pt2.exists()


def test_tutorial_fix_loop_applies_fixes_and_exports(tutorial, tmp_path):
    model, capture, constraints = tutorial
    out_pt2 = tmp_path / "foo.pt2"
    # --probe-cap: the largest size probed where a Dim has no max (issue 24 item 3)
    done = cli("export", "--model", model, "--capture", capture, "--constraints", constraints, "--fix-loop",
               "--probe-cap", "12", "--json", tmp_path / "foo.json", "-o", out_pt2)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "== fix loop round 1 ==" in done.stdout and "== fix loop round 2 ==" in done.stdout
    # d1 is shared by x and y: the loop splits it per input first (d1_y), torch then
    # specializes both (`w + torch.ones(4)` needs x's and y's dim 1).
    assert "applied: d1 = 4 (split first: d1 is shared by x, y; y now has its own Dim, d1_y)" in done.stdout
    assert re.search(r"^applied: d1 = 4$", done.stdout, re.M), done.stdout
    assert re.search(r"^applied: d1_y = 4$", done.stdout, re.M), done.stdout
    assert re.search(r"^applied: (dy = dx|dx = dy)$", done.stdout, re.M), done.stdout
    assert "not applied:" not in done.stdout
    assert "exported after 2 rounds of fixes" in done.stdout
    assert out_pt2.is_file()
    assert set(verification_rows(done.stdout).values()) == {"ok"}
    # The constraint set that exported: one Dim shared by x and y, dim 1 static.
    kept = json.loads(done.stdout.split("constraints that exported (dimscope.constraints):\n", 1)[1]
                      .split("\nread back", 1)[0].split("\nexported ", 1)[0])
    (name,) = [d["name"] for d in kept["dims"]]
    assert kept["leaves"] == {"x": [name, "static"], "y": [name, "static"]}
    check_symbols_for_dynamic_dims(done.stdout, kept)
    assert read_back(done.stdout)["x"][1] == "4"
    probes = json.loads((tmp_path / "foo.json").read_text())["programs"][0]["probes"]
    dim, = probes["dims"]
    assert (dim["cap"], dim["cap_source"], dim["declared"][1]) == (12, "the request's probe_cap", None), dim
    assert max(dim["probed"]) == 12 and dim["served"] == dim["probed"], dim
    assert re.search(r"^probes: %s \(declared \d+\.\.oo\): \d+\.\.12 served \(cap 12: the request's probe_cap\)$"
                     % dim["dim"], done.stdout, re.M), done.stdout[-2000:]


@pytest.mark.parametrize("extra,message", [
    (["--fix-loop", "--probe-cap", "0"], "--probe-cap needs a size >= 1, not '0'"),
    (["--probe-cap", "8"], "--probe-cap needs probing (--probe, or --fix-loop without --no-probe)"),
    (["--fix-loop", "--no-probe", "--probe-cap", "8"], "--probe-cap needs probing"),
])
def test_a_probe_cap_without_probing_or_below_one_is_refused(tutorial, tmp_path, extra, message):
    model, capture, constraints = tutorial
    done = cli("export", "--model", model, "--capture", capture, "--constraints", constraints, *extra,
               "-o", tmp_path / "foo.pt2")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / "foo.pt2").exists()


# --- (c) an LLM-like model with a DynamicCache-style cache ---------------------------

CACHE_MODEL = '''
import torch

from capture_models import KVCache


class CacheLM(torch.nn.Module):
    """Attention over a DynamicCache look-alike: the past keys and values are
    concatenated with the new ones, as a decoder layer does."""

    def __init__(self, layers=2, heads=2, dim=4, vocab=50):
        super().__init__()
        torch.manual_seed(0)
        self.heads, self.dim = heads, dim
        self.embed = torch.nn.Embedding(vocab, heads * dim)
        self.qkv = torch.nn.ModuleList(torch.nn.Linear(heads * dim, 3 * heads * dim) for _ in range(layers))
        self.head = torch.nn.Linear(heads * dim, vocab)

    def forward(self, input_ids, attention_mask=None, past_key_values=None):
        b, s = input_ids.shape
        h = self.embed(input_ids)
        new_cache = KVCache()
        for i, proj in enumerate(self.qkv):
            q, k, v = proj(h).view(b, s, 3, self.heads, self.dim).permute(2, 0, 3, 1, 4)
            k = torch.cat([past_key_values.key_cache[i], k], dim=-2)
            v = torch.cat([past_key_values.value_cache[i], v], dim=-2)
            new_cache.update(k, v, i)
            att = torch.softmax(q @ k.transpose(-1, -2) / self.dim ** 0.5, dim=-1)
            h = h + (att @ v).transpose(1, 2).reshape(b, s, self.heads * self.dim)
        logits = self.head(h) + attention_mask.float().sum(-1)[:, None, None]
        return logits, new_cache.key_cache, new_cache.value_cache


def make():
    return CacheLM()
'''


def test_llm_like_cache_model_exports_non_strict_with_inferred_constraints(tmp_path):
    import sys

    from capture_models import kv_pairs, make_kv_cache

    model_file = tmp_path / "cache_lm.py"
    model_file.write_text(CACHE_MODEL)
    sys.path.insert(0, str(tmp_path))
    try:
        import cache_lm
    finally:
        sys.path.remove(str(tmp_path))
    model = cache_lm.make().eval()
    rec = InputRecorder(store_n_calls=3)  # keyword arguments: recorded here, not by record()
    with rec(model), torch.no_grad():
        # prompt of 3 after a past of 4, then two decoding steps (batch 2 throughout)
        for step, (seq, past) in enumerate([(3, 4), (1, 7), (1, 8)]):
            cache = make_kv_cache(kv_pairs(2, 2, past, 4, 2, seed=step))
            model(torch.randint(0, 50, (2, seq)), attention_mask=torch.ones(2, past + seq, dtype=torch.int64),
                  past_key_values=cache)
    capture = tmp_path / "cache.safetensors"
    rec.save(capture)
    done = cli("analyze", capture, "--format", "json")
    assert done.returncode == 0, done.stderr
    constraints = json.loads(done.stdout)
    assert constraints["leaves"]["past_key_values.key_cache[0]"][2] not in ("static", "auto")

    out_pt2 = tmp_path / "cache.pt2"
    done = cli("export", "--model", "%s:make" % model_file, "--capture", capture, "-o", out_pt2)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "non-strict" in done.stdout
    assert set(verification_rows(done.stdout).values()) == {"ok"}
    check_symbols_for_dynamic_dims(done.stdout, constraints)


# --- (d) clear errors ---------------------------------------------------------------

def test_cuda_requested_without_cuda(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    done = cli("export", "--model", "dimscope.demo:make_model", "--capture", DEMO_CAPTURE, "--device", "cuda",
               "-o", tmp_path / "demo.pt2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cuda_unavailable" in done.stderr and "CUDA was requested" in done.stderr, done.stderr
    assert not (tmp_path / "demo.pt2").exists()


def test_model_that_does_not_import_shows_the_traceback(tmp_path):
    broken = tmp_path / "broken_model.py"
    broken.write_text(textwrap.dedent('''
        import torch

        def helper():
            raise RuntimeError("the model file is broken on purpose")

        helper()

        def make():
            return torch.nn.Identity()
    '''))
    done = cli("export", "--model", "%s:make" % broken, "--capture", DEMO_CAPTURE, "-o", tmp_path / "x.pt2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "export failed: model_import" in done.stderr, done.stderr
    assert "Traceback (most recent call last)" in done.stderr
    assert "broken_model.py" in done.stderr and "the model file is broken on purpose" in done.stderr


# --- a Dim torch 2.6 cannot bound -----------------------------------------------------

SLICE_MODEL = '''
import torch

class SliceFromPast(torch.nn.Module):
    """Takes the new tokens' part of a mask that covers past + new tokens, as
    transformers' attention code does: torch 2.6 cannot bound the past length."""
    def forward(self, past, mask):
        return mask[:, past.shape[2]:].float().sum(-1) + past.sum((1, 2, 3))
'''


def test_fix_loop_gives_an_unbounded_dim_a_finite_max(tmp_path):
    (tmp_path / "slicemodel.py").write_text(SLICE_MODEL)
    import importlib.util
    spec = importlib.util.spec_from_file_location("slicemodel", tmp_path / "slicemodel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.SliceFromPast()
    capture = record(model, [(torch.randn(2, 2, past, 8), torch.ones(2, past + 1)) for past in (3, 4, 5, 6)],
                     tmp_path / "slice.safetensors")
    out_pt2 = tmp_path / "slice.pt2"
    done = cli("export", "--model", f"{tmp_path / 'slicemodel.py'}:SliceFromPast", "--capture", capture,
               "--fix-loop", "-o", out_pt2)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "every captured call (4) replays" in done.stdout
    assert "9223372036854775807)" not in done.stdout.split("applied:", 1)[-1].split("\n", 1)[0]
    if tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 7):
        # torch 2.6 suggests max=2^63-1; the loop applies a finite max instead, and says why.
        assert re.search(r"^applied: past_len = Dim\('past_len', min=\d+, max=4096\)$", done.stdout, re.M), \
            done.stdout[-4000:]
        assert "dimscope's default" in done.stderr


# --- a Dim two inputs share, that only one input's code needs constant -----------------

PER_IMAGE_MODEL = '''
import torch


class PerImage(torch.nn.Module):
    """Like LLaVA: the text's batch and the number of images are one Dim (equal in every
    call), and only the images are turned into a Python list (which specializes them)."""
    def forward(self, x, images):
        per_image = torch.stack([image.mean() for image in images])
        return x.sum(-1) + per_image.sum()


def make():
    return PerImage()
'''


def test_fix_loop_splits_a_shared_dim_before_specializing_it(tmp_path):
    path = tmp_path / "perimage.py"
    model = model_file(path, PER_IMAGE_MODEL)["make"]()
    capture = record(model, [(torch.randn(2, seq), torch.randn(2, 3, 4, 4)) for seq in (5, 6, 7)],
                     tmp_path / "perimage.safetensors")
    constraints = constraints_file(tmp_path / "perimage-constraints.json", [("batch", None, 64), "seq_len"],
                                   {"x": ["batch", "seq_len"], "images": ["batch", "static", "static", "static"]})
    out_pt2 = tmp_path / "perimage.pt2"
    done = cli("export", "--model", f"{path}:make", "--capture", capture, "--constraints", constraints,
               "--fix-loop", "-o", out_pt2)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert re.search(r"^applied: batch = 2 \(split first: batch is shared by x, images; images now has its own "
                     r"Dim, batch_images\)$", done.stdout, re.M), done.stdout[-4000:]
    assert re.search(r"^applied: batch_images = 2$", done.stdout, re.M), done.stdout[-4000:]
    assert set(verification_rows(done.stdout).values()) == {"ok"}
    leaves = read_back(done.stdout)
    assert leaves["x"][0].startswith("batch ("), leaves  # the text's batch stays symbolic
    assert leaves["images"][0] == "2", leaves  # only the images are specialized


def test_constraints_fifo_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "constraints.json"
    os.mkfifo(fifo)
    done = cli("export", "--model", "dimscope.demo:make_model", "--capture", DEMO_CAPTURE,
               "--constraints", fifo, "-o", tmp_path / "x.pt2", timeout=60)
    assert done.returncode == 2
    assert "is a FIFO (named pipe), not a regular file" in done.stderr


def test_analyze_constraints_fifo_is_refused(tmp_path):
    fifo = tmp_path / "set.json"
    os.mkfifo(fifo)
    done = cli("analyze", DEMO_CAPTURE, "--constraints", fifo, timeout=60)
    assert done.returncode == 2 and "is a FIFO (named pipe), not a regular file" in done.stderr, done.stderr

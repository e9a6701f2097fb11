# SPDX-License-Identifier: GPL-3.0-or-later
"""The Spec tab's scripts (issue 28 problem 11): `dimscope-cli spec --dialect NAME` prints
the export dimscope runs for a project as a Python script; for the bundled demo project each
dialect's script runs here as printed (model, capture, torch.export.export, save_program,
load_program) and gives a program with the same symbolic dims as the named Dims'.

Where the dialects differ by design (docs/spec-format.md, "The export as a script"): a
Dim.DYNAMIC hint's range is intersected with what torch traces (a min below 2 reads as 2),
and AdditionalInputs keeps static what never varies among the captured calls (the demo's
batch)."""

import re

import pytest
import sympy
import torch
import torch.utils._pytree as pytree

import dimscope
from conftest import ROOT, cli, needs_cli

DEMO_PROJECT = ROOT / "resources" / "demo" / "demo.dimscope"
DEMO_CAPTURE = ROOT / "resources" / "demo" / "demo-capture.safetensors"
HAS_ADDITIONAL_INPUTS = hasattr(torch.export, "AdditionalInputs")


def spec_text(dialect, *options):
    proc = cli("spec", DEMO_PROJECT, "--dialect", dialect, *options, timeout=120)
    assert proc.returncode == 0, f"spec --dialect {dialect} failed ({proc.returncode}):\n{proc.stderr}"
    return proc.stdout


def run_script(text, folder, monkeypatch):
    """Runs a script as printed, in `folder` (where it saves demo.pt2); returns the
    program it exported and the one it loaded back."""
    monkeypatch.chdir(folder)
    namespace = {"__name__": "__spec__"}
    exported = {}
    real_export = torch.export.export

    def export(*args, **kwargs):
        exported["program"] = real_export(*args, **kwargs)
        return exported["program"]

    monkeypatch.setattr(torch.export, "export", export)
    exec(compile(text, str(folder / "spec.py"), "exec"), namespace)
    assert (folder / "demo.pt2").is_file()
    return exported["program"], namespace["program"]


def _expr(size):
    return size.node.expr if isinstance(size, torch.SymInt) else sympy.Integer(size)


def user_input_shapes(program):
    """The program's user inputs as lists of sympy expressions, in order."""
    names = set(program.graph_signature.user_inputs)
    return [[_expr(s) for s in node.meta["val"].shape]
            for node in program.graph.nodes if node.op == "placeholder" and node.name in names]


def canonical(shapes, ranges):
    """Shapes and root ranges with the symbols renamed d0, d1, ... in order of first use,
    so that programs traced separately compare."""
    renamed = {}
    for shape in shapes:
        for expr in shape:
            for sym in sorted(expr.free_symbols, key=lambda s: str(s)):
                renamed.setdefault(sym, sympy.Symbol(f"d{len(renamed)}", integer=True))
    text = [[str(expr.xreplace(renamed)) for expr in shape] for shape in shapes]
    roots = {str(renamed[k]): (int(v.lower), v.upper) for k, v in ranges.items() if k in renamed}
    return text, roots


def program_dims(program):
    return canonical(user_input_shapes(program), program.range_constraints)


@pytest.fixture(scope="module")
def named_program(tmp_path_factory):
    """The named dialect's program: what dimscope exports with, the reference."""
    text = spec_text("named")
    with pytest.MonkeyPatch.context() as mp:
        return run_script(text, tmp_path_factory.mktemp("named"), mp)


pytestmark = needs_cli


def test_named_dims_script_exports_and_loads(named_program):
    exported, loaded = named_program
    shapes, roots = program_dims(exported)
    assert program_dims(loaded) == (shapes, roots)
    # batch, seq_len, past_len symbolic; the mask length tied to seq_len + past_len.
    assert shapes[0] == ["d0", "d1"] and shapes[1][0] == "d0" and len(shapes[1][1].split("+")) == 2
    assert roots["d1"][0] == 1  # seq_len's min=1 kept


def test_shapes_collection_exports_the_same_program(named_program, tmp_path, monkeypatch):
    text = spec_text("shapes-collection")
    assert "shapes[call.input_leaf(\"past_key_values.key_cache[0]\")] = {0: batch, 2: past_len}" in text
    exported, loaded = run_script(text, tmp_path, monkeypatch)
    assert program_dims(exported) == program_dims(named_program[0])
    assert program_dims(loaded) == program_dims(named_program[0])


def test_dim_hints_export_the_same_symbolic_dims(named_program, tmp_path, monkeypatch):
    """Without a known torch version the script checks at run time whether hints take a
    range; either way the same dims are symbolic, each range the named one from 2 up."""
    text = spec_text("hints")
    assert "seq_len = bounded(Dim.DYNAMIC, min=1)" in text
    exported, _ = run_script(text, tmp_path, monkeypatch)
    named_shapes, named_roots = program_dims(named_program[0])
    shapes, roots = program_dims(exported)
    assert shapes == named_shapes
    assert roots == {k: (max(lo, 2), hi) for k, (lo, hi) in named_roots.items()}


def test_dim_hints_follow_the_known_torch_version():
    text = spec_text("hints", "--torch-version", torch.__version__)
    compile(text, "spec.py", "exec")
    if callable(torch.export.Dim.DYNAMIC):
        assert "seq_len = Dim.DYNAMIC(min=1)" in text and "bounded" not in text
    else:
        assert re.search(r"seq_len = Dim.DYNAMIC  # min=1: torch 2\.\d+\S* takes no range on a hint", text)


def steady_symbols(program):
    """{symbol: size} for the program's root symbols whose every bare use has one size
    in all captured calls (the program's user inputs are the calls' tensors, in order)."""
    calls = dimscope.load_capture(DEMO_CAPTURE).calls
    tensors = [[t for t in pytree.tree_leaves(c.call_arguments()) if isinstance(t, torch.Tensor)] for c in calls]
    shapes = user_input_shapes(program)
    assert all(len(t) == len(shapes) for t in tensors)
    sizes = {}
    for i, shape in enumerate(shapes):
        for axis, expr in enumerate(shape):
            if isinstance(expr, sympy.Symbol):
                sizes.setdefault(expr, set()).update(int(call[i].shape[axis]) for call in tensors)
    return {sym: sympy.Integer(values.pop()) for sym, values in sizes.items() if len(values) == 1}


@pytest.mark.skipif(not HAS_ADDITIONAL_INPUTS,
                    reason=f"torch {torch.__version__} has no torch.export.AdditionalInputs (the script says so)")
def test_additional_inputs_export_the_dims_that_vary(named_program, tmp_path, monkeypatch):
    """AdditionalInputs makes dynamic what varies among the calls: the named program with
    its steady Dims (the demo's batch: 2 in every call) at their size."""
    text = spec_text("additional-inputs")
    assert "static here (the named dialect keeps it dynamic): batch" in text
    exported, loaded = run_script(text, tmp_path, monkeypatch)
    steady = steady_symbols(named_program[0])
    assert list(map(str, steady)) and set(steady.values()) == {2}
    named_shapes = [[e.xreplace(steady) for e in shape] for shape in user_input_shapes(named_program[0])]
    named_ranges = {k: v for k, v in named_program[0].range_constraints.items() if k not in steady}
    expected_shapes, expected_roots = canonical(named_shapes, named_ranges)
    shapes, roots = program_dims(exported)
    assert shapes == expected_shapes
    assert roots == {k: (max(lo, 2), hi) for k, (lo, hi) in expected_roots.items()}
    assert program_dims(loaded) == (shapes, roots)


@pytest.mark.skipif(HAS_ADDITIONAL_INPUTS, reason="this torch has torch.export.AdditionalInputs")
def test_additional_inputs_script_says_this_torch_lacks_it(tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="has no torch.export.AdditionalInputs"):
        run_script(spec_text("additional-inputs"), tmp_path, monkeypatch)


def test_input_leaf_is_the_object_export_flattens():
    call = dimscope.load_capture(DEMO_CAPTURE).calls[4]
    leaf = call.input_leaf("past_key_values.value_cache[1]")
    assert leaf is call.kwargs["past_key_values"].value_cache[1]
    assert call.input_leaf("input_ids") is call.call_arguments()[1]["input_ids"]
    with pytest.raises(dimscope.CaptureError, match=r"call 4: no input leaf 'nope'"):
        call.input_leaf("nope")


def test_spec_refuses_an_unknown_dialect():
    proc = cli("spec", DEMO_PROJECT, "--dialect", "yaml", timeout=60)
    assert proc.returncode == 2 and "--dialect needs one of: named, hints, shapes-collection, additional-inputs" in proc.stderr

# SPDX-License-Identifier: GPL-3.0-or-later
"""The export worker as a real subprocess: protocol, hello, model references, errors,
failure classification of real torch.export failures."""

import json
import os
import textwrap

import pytest
import torch
from torch.export import Dim

from dimscope.worker.errors import classify, parse_constraint_violation
from workerproc import WorkerProcess


@pytest.fixture(scope="module")
def worker():
    w = WorkerProcess()
    yield w
    w.close()


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    (d / "tut.py").write_text(textwrap.dedent("""
        import sys, warnings
        import torch
        class Foo(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(4, 4)
            def forward(self, x, y, scale: float = 1.0):
                print("forward says hi")
                return self.lin(x + y) * scale
        def make():
            print("building the model")
            print("to stderr", file=sys.stderr)
            warnings.warn("a user warning")
            return Foo()
        def not_a_module():
            return 42
        def raises():
            return helper()
        def helper():
            raise RuntimeError("constructor exploded")
    """))
    (d / "broken.py").write_text("import os\nimport no_such_module_for_dimscope\n")
    (d / "hf").mkdir()
    (d / "hf" / "config.json").write_text("{}")
    return d


def test_ready_and_hello(worker):
    assert worker.ready["protocol"] == 1 and worker.ready["torch"] == torch.__version__
    ev, events = worker.request("hello")
    assert ev["event"] == "result" and len(events) == 1
    r = ev["result"]
    assert r["torch"] == torch.__version__ and r["python"].count(".") == 2
    assert r["cuda"]["available"] == torch.cuda.is_available()
    assert len(r["cuda"]["devices"]) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    assert "transformers" in r


def test_load_describe_and_reuse_with_user_output_as_logs(worker, models):
    ref = "%s:make" % (models / "tut.py")
    ev, events = worker.request("load_model", model=ref)
    assert ev["event"] == "result", ev
    assert ev["result"]["reused"] is False and ev["result"]["class"].endswith(".Foo")
    logs = [(e["stream"], e["text"]) for e in events if e["event"] == "log"]
    assert ("stdout", "building the model") in logs
    assert ("stderr", "to stderr") in logs
    assert any(s == "warning" and "a user warning" in t for s, t in logs)
    ev, _ = worker.request("load_model", model=ref)
    assert ev["result"]["reused"] is True
    ev, _ = worker.request("describe")
    d = ev["result"]
    assert [p["name"] for p in d["signature"]] == ["x", "y", "scale"]
    assert d["signature"][2] == {"name": "scale", "kind": "POSITIONAL_OR_KEYWORD", "has_default": True,
                                 "default": 1.0, "annotation": "builtins.float"}
    assert d["parameters"] == 4 * 4 + 4 and d["dtypes"] == ["float32"] and d["devices"] == ["cpu"]


def test_module_class_reference(worker, models):
    ev, _ = worker.request("load_model", model="%s:Foo" % (models / "tut.py"))
    assert ev["event"] == "result" and ev["result"]["class"].endswith(".Foo")
    ev, _ = worker.request("load_model", model="torch.nn:Identity")
    assert ev["result"]["class"] == "torch.nn.modules.linear.Identity"


@pytest.mark.parametrize("ref, kind, needle", [
    ("{d}/broken.py:Model", "model_import", "no_such_module_for_dimscope"),
    ("{d}/missing.py:Model", "model_import", "does not exist"),
    ("no_such_package_xyz.models:Model", "model_import", "No module named 'no_such_package_xyz'"),
    ("{d}/tut.py:NoSuchThing", "model_import", "no attribute 'NoSuchThing'"),
    ("{d}/tut.py:not_a_module", "model_load", "not a torch.nn.Module"),
    ("{d}/tut.py:raises", "model_load", "constructor exploded"),
    ("just-a-word", "bad_model_ref", "expected 'package.module:callable'"),
])
def test_model_reference_errors(worker, models, ref, kind, needle):
    ev, _ = worker.request("load_model", model=ref.format(d=models))
    assert ev["event"] == "error"
    err = ev["error"]
    assert err["kind"] == kind, err
    assert needle in err["message"]
    if ref.endswith("broken.py:Model"):
        # the user's traceback points into their file
        assert "broken.py\", line 2" in err["traceback"] and "ModuleNotFoundError" in err["traceback"]
    if kind == "model_load" and "raises" in ref:
        assert "in helper" in err["traceback"]


def test_hf_directory_without_transformers(worker, models):
    ev, _ = worker.request("load_model", model=str(models / "hf"))
    import importlib.util
    if importlib.util.find_spec("transformers") is None:
        assert ev["error"]["kind"] == "transformers_missing"
        assert "transformers" in ev["error"]["message"] and str(models / "hf") in ev["error"]["message"]
    else:
        assert ev["event"] == "error" and ev["error"]["kind"] == "model_load"


def test_bad_requests_and_survival(worker, models):
    worker.proc.stdin.write("this is not json\n")
    worker.proc.stdin.flush()
    ev = worker._read()
    assert ev["event"] == "error" and ev["error"]["kind"] == "bad_request" and ev["id"] is None
    ev, _ = worker.request("frobnicate")
    assert ev["error"]["kind"] == "bad_request" and "frobnicate" in ev["error"]["message"]
    ev, _ = worker.request("export", model="torch.nn:Identity", capture="/nonexistent.safetensors",
                           spec={}, output="/tmp/x.pt2")
    assert ev["error"]["kind"] == "bad_request" and "/nonexistent.safetensors" in ev["error"]["message"]
    ev, _ = worker.request("hello")
    assert ev["event"] == "result"


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_requested_without_cuda(worker):
    ev, _ = worker.request("export", model="torch.nn:Identity", capture="c.safetensors", spec={},
                           output="o.pt2", device="cuda")
    assert ev["error"]["kind"] == "cuda_unavailable"
    assert "CUDA was requested" in ev["error"]["message"]


@pytest.mark.parametrize("ending", ["shutdown", "end of input"])
def test_worker_ends_without_python_teardown(ending):
    """After its last answer the worker ends at once (issue 29 item 4): Python's
    teardown (atexit handlers, module clean-up: seconds with torch loaded) never runs,
    so a client waiting for the exit does not wait for it. An atexit handler that the
    teardown would run marks it on stderr."""
    import subprocess
    from workerproc import LAUNCHER

    code = ("import atexit, os; atexit.register(lambda: os.write(2, b'TEARDOWN-RAN\\n'));"
            "from dimscope.worker.server import main; main()")
    proc = subprocess.Popen([LAUNCHER, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert json.loads(proc.stdout.readline())["event"] == "ready"
    if ending == "shutdown":
        proc.stdin.write(json.dumps({"id": 1, "method": "shutdown"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["result"] == {"bye": True}
    out, err = proc.communicate(timeout=60)  # closes stdin: the end of input
    assert proc.returncode == 0, err
    assert out == ""  # nothing after the last answer
    assert "TEARDOWN-RAN" not in err


# --- failure classification on real torch.export failures ----------------------------

class Tutorial(torch.nn.Module):
    """The tutorial's failing model: x + y + torch.ones(4) with dx, dy, d1."""

    def forward(self, x, y):
        w = x + y
        return w + torch.ones(4)


def tutorial_spec():
    dx, dy, d1 = torch.export.dims("dx", "dy", "d1")
    return {"x": (dx, d1), "y": (dy, d1)}


def export_error(model, kwargs, shapes, strict=False):
    with pytest.raises(Exception) as e:
        torch.export.export(model, (), kwargs, dynamic_shapes=shapes, strict=strict)
    return classify(e.value), e.value


def test_tutorial_violations_and_fixes_then_refine_and_reexport():
    kwargs = {"x": torch.randn(5, 4), "y": torch.randn(5, 4)}
    shapes = tutorial_spec()
    err, exc = export_error(Tutorial(), kwargs, shapes)
    assert err["kind"] == "constraint_violation"
    assert sorted(err["names"]) == ["d1", "dy"]
    assert err["fixes"] == ["d1 = 4", "dy = dx"]
    kinds = sorted(v["kind"] for v in err["violations"])
    assert sorted(set(kinds)) == ["constant", "equal"], kinds
    texts = [v["text"] for v in err["violations"]]
    assert len(texts) == len(set(texts)), texts  # torch 2.8+ repeats the d1 line: listed once
    eq = [v for v in err["violations"] if v["kind"] == "equal"][0]
    assert eq["dims"] == ["dx", "dy"]
    assert {(s["path"], s["dim"]) for s in eq["sources"]} == {("x", 0), ("y", 0)}
    assert err["raw"] == str(exc)
    # torch's own refinement of the same message, then the re-export succeeds
    from torch.export.dynamic_shapes import refine_dynamic_shapes_from_suggested_fixes
    # torch 2.8+ appends a draft_export() hint its own refinement cannot parse.
    refined = refine_dynamic_shapes_from_suggested_fixes(err["raw"].split("\n\nThe error above occurred")[0],
                                                         shapes)
    ep = torch.export.export(Tutorial(), (), kwargs, dynamic_shapes=refined, strict=False)
    assert ep.module()(x=torch.randn(7, 4), y=torch.randn(7, 4)).shape == (7, 4)


def test_parse_range_and_derived_fix_blocks():
    text = ("Constraints violated (dx)! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
            "  - Not all values of dx = L['args'][0][0].size()[0] in the specified range dx <= 1024 satisfy "
            "the generated guard (L['args'][0][0].size()[0] // 2) != 1.\n"
            "Suggested fixes:\n  _dx = Dim('_dx', min=1, max=512)\n  dx = 2*_dx\n"
            "\nThe error above occurred when calling torch.export.export. If you would like to view some "
            "more information about this error, and get a list of all other errors that may occur in your "
            "export call, you can replace your `export()` call with `draft_export()`.\n")
    p = parse_constraint_violation(text)
    assert p["fixes"] == ["_dx = Dim('_dx', min=1, max=512)", "dx = 2*_dx"]
    assert p["violations"][0]["kind"] == "range" and p["violations"][0]["sources"][0]["path"] == "args[0]"
    assert parse_constraint_violation("some other error") is None


def test_dynamic_specialization():
    class Sp(torch.nn.Module):
        def forward(self, x):
            return x.reshape(4, -1)

    err, _ = export_error(Sp(), {"x": torch.randn(4, 3)}, {"x": {0: Dim.DYNAMIC}})
    assert err["kind"] == "dynamic_specialized"
    assert err["violations"][0]["sources"][0]["path"] == "x"


def test_data_dependent_points_at_user_line():
    class DD(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # the data-dependent branch
                return x + 1
            return x - 1

    err, _ = export_error(DD(), {"x": torch.randn(3, 3)}, None)
    assert err["kind"] == "data_dependent"
    assert err["source"]["file"] == __file__
    assert "the data-dependent branch" in err["source"]["code"]
    assert "torch._check" in err["hint"]


def test_another_export_failure_names_the_models_line():
    """A failure torch raises inside an op the model calls (Aria's experts loop:
    PendingUnbackedSymbolNotFound) names the model's innermost line, so the fix loop's
    last word carries it."""
    class Fails(torch.nn.Module):
        def forward(self, x):
            return torch.matmul(x, torch.ones(5, 2))  # the failing line

    err, exc = export_error(Fails(), {"x": torch.randn(3, 4)}, None)
    assert err["kind"] == "export_failed", err
    assert err["source"]["file"] == __file__ and "the failing line" in err["source"]["code"]
    # Raised again from torch's own frames (draft_export does): the cause's line. The
    # raising function is compiled as if it were torch's file.
    scope = {}
    exec(compile("def again(exc):\n"
                 "    try:\n"
                 "        raise RuntimeError('raised again') from exc\n"
                 "    except RuntimeError as e:\n"
                 "        return e\n", "/x/torch/export/again.py", "exec"), scope)
    assert classify(scope["again"](exc))["source"] == err["source"]


def test_unregistered_pytree_type():
    class Box:
        def __init__(self, t):
            self.t = t

    class M(torch.nn.Module):
        def forward(self, x, box):
            return x + box.t

    err, _ = export_error(M(), {"x": torch.randn(2), "box": Box(torch.randn(2))}, None)
    assert err["kind"] == "unregistered_pytree"
    assert err["type"].endswith("Box") and "register_pytree_node" in err["hint"]


def test_structure_mismatch():
    class M(torch.nn.Module):
        def forward(self, x, ys):
            return x + ys[0]

    err, _ = export_error(M(), {"x": torch.randn(3), "ys": [torch.randn(3), torch.randn(3)]},
                          {"x": {0: Dim("b")}, "ys": [{0: Dim("b")}]})
    assert err["kind"] == "structure_mismatch" and "has 2 elements" in err["message"]


def test_user_stack_blocks_become_the_violation_source():
    """torch 2.8+ (strict) follows a violation with a `User stack:` block and repeats
    lines: the stack is attached to its line (innermost user frame as `source`), the
    repeat dropped, and the block is not glued into the violation text."""
    from dimscope.worker.errors import parse_constraint_violation
    violation = ("You marked d1 as dynamic but your code specialized it to be a constant (4). If you're "
                 "using mark_dynamic, either remove it or use maybe_mark_dynamic.")
    message = (
        'Constraints violated (d1, dy)! For more information, run with TORCH_LOGS="+dynamic".\n'
        f"  - {violation}\n\nUser stack:\n"
        '  File "/usr/lib/python3/dist-packages/torch/_dynamo/functional_export.py", line 243, in forward\n'
        "    res = self._export_root(*args, **kwargs)\n"
        '  File "/home/me/tutorial.py", line 6, in forward\n'
        "    return w + torch.ones(4)\n"
        "           ~~^~~~~~~~~~~~~~~\n\n"
        f"  - {violation}\n"
        "  - The values of dy = L['y'].size()[0] and dx = L['x'].size()[0] must always be equal.\n"
        "Suggested fixes:\n  d1 = 4\n  dy = dx\n\nThe error above occurred when calling torch.export.export.")
    parsed = parse_constraint_violation(message)
    assert [v["text"] for v in parsed["violations"]] == [
        violation, "The values of dy = L['y'].size()[0] and dx = L['x'].size()[0] must always be equal."]
    first = parsed["violations"][0]
    assert first["kind"] == "constant" and first["dims"] == ["d1"]
    assert first["source"] == {"file": "/home/me/tutorial.py", "line": 6, "function": "forward",
                               "code": "return w + torch.ones(4)"}
    assert len(first["stack"]) == 2
    assert "source" not in parsed["violations"][1]
    assert parsed["fixes"] == ["d1 = 4", "dy = dx"]


def test_violation_sources_are_capture_key_paths_with_dim_names_once_each():
    """A violation names its leaf dims as the capture does (a cache's `.key_cache[0]`,
    not torch's `['key_cache'][0]`) with the spec's Dim, each leaf dim once although
    torch's line mentions `input_ids.size()[1]` three times."""
    from capture_models import kv_pairs, make_kv_cache
    from dimscope.worker.explain import LeafMap
    ids = torch.zeros(2, 3, dtype=torch.int64)
    kwargs = {"input_ids": ids, "past_key_values": make_kv_cache(kv_pairs(2, 2, 5, 4, 1, seed=0))}
    shapes = {"input_ids": {0: Dim("batch"), 1: Dim("q_len")}, "past_key_values": [[{0: Dim("b2")}], [None]]}
    ids_src, cache_src = "L['args'][1]['input_ids'].size()", "L['args'][1]['past_key_values']['key_cache'][0].size()"
    message = (
        'Constraints violated (q_len, b2)! For more information, run with TORCH_LOGS="+dynamic".\n'
        f"  - Not all values of q_len = {ids_src}[1] in the specified range q_len <= 8 satisfy the generated "
        f"guard {ids_src}[1] != 1 and {ids_src}[1] <= 7.\n"
        f"  - The values of b2 = {cache_src}[0] and batch = {ids_src}[0] must always be equal.\n"
        "Suggested fixes:\n  b2 = batch\n")
    leaves = LeafMap.build((), kwargs, shapes, kwargs)
    ranged, equal = parse_constraint_violation(message, leaves)["violations"]
    assert [(s["path"], s["dim"], s["dim_name"]) for s in ranged["sources"]] == [("input_ids", 1, "q_len")]
    assert [(s["path"], s["dim"], s["dim_name"]) for s in equal["sources"]] == [
        ("past_key_values.key_cache[0]", 0, "b2"), ("input_ids", 0, "batch")]
    # Without the export's leaves (a parse on its own): torch's path, still once.
    alone = parse_constraint_violation(message)["violations"][0]
    assert [(s["path"], s["dim"], s["dim_name"]) for s in alone["sources"]] == [("input_ids", 1, None)]


def test_unbounded_max_fix_becomes_the_models_max_positions():
    """torch 2.6's `Dim('past_len', max=9223372036854775807)` changes nothing; the
    worker offers the model's config.max_position_embeddings instead, keeping min."""
    from types import SimpleNamespace
    from dimscope.worker.errors import bound_unbounded_fixes, max_positions
    model = SimpleNamespace(config=SimpleNamespace(max_position_embeddings=256))
    limit, why = max_positions(model)
    assert (limit, why) == (256, "the model's config.max_position_embeddings")
    assert max_positions(object())[0] == 4096
    err = {"kind": "constraint_violation", "fixes": [
        "past_len = Dim('past_len', max=9223372036854775807)", "total_len = past_len + 1", "d1 = 4"]}
    spec = {"dims": [{"name": "past_len", "min": 0, "max": None}]}
    out = bound_unbounded_fixes(err, spec, limit, why)
    assert out["fixes"] == ["past_len = Dim('past_len', min=0, max=256)", "total_len = past_len + 1", "d1 = 4"]
    assert "config.max_position_embeddings" in out["notes"][0] and out["hint"]


def test_guard_failures_name_the_leaf_dims():
    """torch 2.14's exported module rejects a call with `Guard failed: EXPR` in the
    user's input paths; the worker gives the leaf dims in capture key paths."""
    from dimscope.worker.errors import parse_guard_failure
    g = parse_guard_failure("AssertionError: Guard failed: past_key_values['key_cache'][0].size()[2] <= 7")
    assert g["text"] == "past_key_values.key_cache[0] dim 2 <= 7"
    assert g["sources"] == [{"source": "past_key_values['key_cache'][0].size()[2]",
                             "path": "past_key_values.key_cache[0]", "dim": 2}]
    assert parse_guard_failure("Guard failed: x.size()[0] == y.size()[0]")["text"] == "x dim 0 == y dim 0"
    assert parse_guard_failure("RuntimeError: Expected input at 'x'.shape[1]") is None

# SPDX-License-Identifier: GPL-3.0-or-later
"""Model references are decided on what they resolve to (issue 26, items 1 and 3;
docs/security.md, "Model references"): a reference that claims dimscope's own package
but holds a path is refused by the worker itself, and resolving a reference runs
nothing (checked with an audit hook in a fresh interpreter, and with marker files that
hostile models write when they run)."""

import json
import os
import pathlib
import subprocess
import textwrap

import pytest

import dimscope
from conftest import torch_python
from dimscope.worker import modelref
from dimscope.worker.errors import WorkerError

HOSTILE = 'import pathlib\npathlib.Path(%r).write_text("ran")\n\ndef make():\n    return None\n'


@pytest.fixture
def hostile(tmp_path):
    """A folder with evil_model.py, a package evilpkg (its __init__ and a submodule)
    and where/ (a folder to start from); each writes its marker when it runs."""
    markers = {name: tmp_path / ("ran-" + name) for name in ("file", "package", "submodule")}
    (tmp_path / "evil_model.py").write_text(HOSTILE % str(markers["file"]))
    (tmp_path / "evilpkg").mkdir()
    (tmp_path / "evilpkg" / "__init__.py").write_text(HOSTILE % str(markers["package"]))
    (tmp_path / "evilpkg" / "sub.py").write_text(HOSTILE % str(markers["submodule"]))
    (tmp_path / "where").mkdir()
    return tmp_path, markers


@pytest.mark.parametrize("ref, place", [
    ("dimscope./../evil_model.py:make", "'/' at character 10"),
    ("dimscope.\\..\\evil_model.py:make", "'\\\\' at character 10"),
    ("dimscope..evil_model:make", "'..' at character 9"),
    ("dimscope.evil_model.py:make", "is a .py file path"),
    ("dimscope.evilpkg.sub:make", "not a module of dimscope's package"),
])
def test_worker_refuses_a_path_that_claims_dimscope(hostile, monkeypatch, ref, place):
    folder, markers = hostile
    monkeypatch.chdir(folder)  # where "dimscope./../evil_model.py" would find the file
    monkeypatch.syspath_prepend(str(folder))  # evilpkg importable: only the package check stops it
    with pytest.raises(WorkerError) as refused:
        modelref.load_model(ref)
    assert refused.value.kind == "bad_model_ref"
    assert ref in str(refused.value) or repr(ref) in str(refused.value)
    assert place in str(refused.value), str(refused.value)
    assert not any(m.exists() for m in markers.values())


def test_an_absolute_path_behind_dimscope_is_refused(hostile, monkeypatch):
    folder, markers = hostile
    monkeypatch.chdir(folder / "where")
    ref = "dimscope./../../../../../../../../.." + str(folder / "evil_model.py") + ":make"
    with pytest.raises(WorkerError) as refused:
        modelref.load_model(ref)
    assert refused.value.kind == "bad_model_ref" and "'/' at character 10" in str(refused.value)
    assert not markers["file"].exists()


def test_dimscope_demo_resolves_inside_the_package():
    resolved = modelref.resolve("dimscope.demo:make_model")
    assert resolved.kind == "module" and resolved.attr == "make_model"
    assert resolved.origin == str(__import__("pathlib").Path(dimscope.__file__).resolve().parent / "demo.py")


def test_a_file_reference_resolves_on_disk_not_in_the_text(hostile, monkeypatch):
    folder, markers = hostile
    # where/link -> evilpkg: "link/../evil_model.py" is evilpkg's parent's file on disk,
    # which abspath would have cut to where/evil_model.py.
    (folder / "where" / "link").symlink_to(folder / "evilpkg")
    monkeypatch.chdir(folder / "where")
    resolved = modelref.resolve("link/../evil_model.py:make")
    assert resolved.kind == "file" and resolved.target == str(folder / "evil_model.py")
    assert not any(m.exists() for m in markers.values())


# Runs in a fresh interpreter: an audit hook cannot be removed once added.
AUDIT_SCRIPT = textwrap.dedent('''
    import json, os, sys
    folder = sys.argv[1]
    sys.path.insert(0, folder)
    from dimscope.worker import modelref
    from dimscope.worker.errors import WorkerError
    seen = []
    WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    def hook(event, args):
        if event in ("exec", "compile", "import", "subprocess.Popen", "os.system", "os.exec",
                     "os.posix_spawn", "os.fork", "os.spawn", "ctypes.dlopen"):
            seen.append([event, repr(args)[:200]])
        elif event == "open":
            mode, flags = args[1], args[2]
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (flags or 0) & WRITES:
                seen.append([event, repr(args)[:200]])
    refs = sys.argv[2:]
    sys.addaudithook(hook)
    outcomes = []
    for ref in refs:
        try:
            r = modelref.resolve(ref)
            outcomes.append([ref, r.kind, r.origin])
        except WorkerError as e:
            outcomes.append([ref, "refused", e.kind])
    print(json.dumps({"seen": seen, "outcomes": outcomes}))
''')


def test_resolving_references_runs_nothing(hostile):
    folder, markers = hostile
    refs = [
        str(folder / "evil_model.py") + ":make",
        "evilpkg:make",
        "evilpkg.sub:make",              # find_spec would run evilpkg/__init__.py
        "evil_model:make",
        "dimscope./../evil_model.py:make",
        "dimscope.evilpkg.sub:make",
        "dimscope.demo:make_model",
        "no_such_module_xyz.sub:make",
        str(folder / "where"),
        "just-a-word",
    ]
    done = torch_python("-c", AUDIT_SCRIPT, str(folder), *refs)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["seen"] == [], report["seen"]
    assert not any(m.exists() for m in markers.values())
    outcomes = {ref: (kind, detail) for ref, kind, detail in report["outcomes"]}
    assert outcomes["evilpkg.sub:make"] == ("module", str(folder / "evilpkg" / "sub.py"))
    assert outcomes["evil_model:make"] == ("module", str(folder / "evil_model.py"))
    assert outcomes["dimscope./../evil_model.py:make"] == ("refused", "bad_model_ref")
    assert outcomes["dimscope.evilpkg.sub:make"] == ("refused", "bad_model_ref")
    assert outcomes["dimscope.demo:make_model"][0] == "module"
    assert outcomes["no_such_module_xyz.sub:make"] == ("module", None)
    assert outcomes[str(folder / "where")] == ("folder", str(folder / "where"))
    assert outcomes["just-a-word"] == ("refused", "bad_model_ref")


@pytest.mark.skipif(not os.environ.get("DIMSCOPE_CLI"), reason="DIMSCOPE_CLI is not set (run through ctest)")
def test_cli_refuses_a_path_that_claims_dimscope(hostile):
    """`dimscope-cli export --model dimscope./../evil_model.py:make`, started in the
    folder that holds evil_model.py: refused before any worker starts (the worker
    resolved it against that folder and ran it)."""
    folder, markers = hostile
    demo = pathlib.Path(__file__).resolve().parents[2] / "resources" / "demo" / "demo-capture.safetensors"
    done = subprocess.run([os.environ["DIMSCOPE_CLI"], "export", "--model", "dimscope./../evil_model.py:make",
                           "--capture", str(demo), "-o", str(folder / "out.pt2")],
                          cwd=folder, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "names dimscope's own package" in done.stderr and "'/' at character 10" in done.stderr, done.stderr
    assert not markers["file"].exists()
    assert not (folder / "out.pt2").exists()

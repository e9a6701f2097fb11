# SPDX-License-Identifier: GPL-3.0-or-later
"""python/ is a pip-installable package (python/pyproject.toml): pip builds and installs
it into a fresh --target folder, and a fresh interpreter that sees only that folder (not
the repository's python/) records a model with `from dimscope.capture import
InputRecorder` and reads the capture back."""

import ast
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_SOURCE = ROOT / "python"
LAUNCHER = ROOT / "scripts" / "torch-python"
PIP_TIMEOUT_S = 600  # a loaded 2-core machine


def _cmake_project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"^project\(dimscope VERSION (\S+)", text, re.MULTILINE)
    assert match, "CMakeLists.txt: no 'project(dimscope VERSION ...)' line"
    return match.group(1)


def _package_version():
    """dimscope.__version__ as setuptools reads it: statically, from the source."""
    tree = ast.parse((PACKAGE_SOURCE / "dimscope" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__version__"]:
            return ast.literal_eval(node.value)
    raise AssertionError("python/dimscope/__init__.py: no __version__ = '...' assignment")


def test_pyproject_names_the_package_and_the_project_version():
    tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11")
    project = tomllib.loads((PACKAGE_SOURCE / "pyproject.toml").read_text())
    assert project["build-system"]["build-backend"] == "setuptools.build_meta"
    assert project["project"]["name"] == "dimscope"
    assert project["project"]["requires-python"] == ">=3.9"
    assert project["project"]["dependencies"] == ["torch>=2.1"]
    assert "transformers" in project["project"]["optional-dependencies"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "dimscope.__version__"}
    assert _package_version() == _cmake_project_version()


def _copy_source(dest):
    # Building writes build/ and dimscope.egg-info next to pyproject.toml: build from a
    # copy so that the shared checkout stays as it is.
    shutil.copytree(PACKAGE_SOURCE, dest,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    return dest


def _pip_install(source, target):
    # The provisioned runtimes start only through scripts/torch-python (their root's
    # dynamic loader); pip starts the build backend with sys.executable, so point that
    # at the launcher. --no-index --no-deps: nothing is downloaded, torch is the runtime's.
    env = dict(os.environ, PYTHONEXECUTABLE=str(LAUNCHER))
    done = subprocess.run([str(LAUNCHER), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                           "--no-compile", "--target", str(target), str(source)],
                          env=env, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    assert done.returncode == 0, f"pip install {source} failed:\n{done.stdout}\n{done.stderr}"


RECORD_AND_READ_BACK = r'''
import json, os, sys
target, capture_path = sys.argv[1], sys.argv[2]
sys.path.insert(0, target)
import torch
import dimscope
from dimscope.capture import CaptureError, InputRecorder, load_capture, read_manifest


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 3)

    def forward(self, x, scale=1.0):
        return self.proj(x) * scale


torch.manual_seed(0)
model = Tiny().eval()
rec = InputRecorder(store_n_calls=2)
with torch.no_grad(), rec(model):
    outputs = [model(torch.randn(2, 4)), model(torch.randn(5, 4), scale=2.0)]
rec.save(capture_path)

capture = load_capture(capture_path)
replayed = []
with torch.no_grad():
    for call in capture.calls:
        args, kwargs = call.call_arguments()
        replayed.append(model(*args, **kwargs))
print(json.dumps({
    "package": os.path.dirname(dimscope.__file__),
    "version": dimscope.__version__,
    "capture_error_is_value_error": issubclass(CaptureError, ValueError),
    "format": read_manifest(capture_path)["format"],
    "batch_sizes": [call.kwargs["x"].shape[0] for call in capture.calls],
    "replays_match": all(torch.equal(a, b) for a, b in zip(outputs, replayed)),
    "outputs_match": all(torch.equal(a, call.outputs) for a, call in zip(outputs, capture.calls)),
}))
'''


def test_installed_package_records_and_reads_back(tmp_path):
    for module in ("pip", "setuptools"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed in this runtime ({sys.executable}); "
                        "scripts/setup adds python3-pip and python3-setuptools to the runtimes")
    target = tmp_path / "site"
    _pip_install(_copy_source(tmp_path / "source"), target)
    assert (target / "dimscope" / "capture" / "recorder.py").is_file()
    assert [p.name for p in target.glob("dimscope-*.dist-info")] == [f"dimscope-{_package_version()}.dist-info"]

    # -I: no PYTHONPATH (which scripts/torch-python points at the repository's python/),
    # no script folder, no user site: dimscope can come only from the installed folder.
    capture = tmp_path / "tiny.safetensors"
    done = subprocess.run([str(LAUNCHER), "-I", "-c", RECORD_AND_READ_BACK, str(target), str(capture)],
                          capture_output=True, text=True, timeout=PIP_TIMEOUT_S, cwd=tmp_path)
    assert done.returncode == 0, f"recording with the installed package failed:\n{done.stdout}\n{done.stderr}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {
        "package": str(target / "dimscope"),
        "version": _cmake_project_version(),
        "capture_error_is_value_error": True,
        "format": "dimscope.capture",
        "batch_sizes": [2, 5],
        "replays_match": True,
        "outputs_match": True,
    }


def test_every_exception_class_is_defined_in_dimscope_exceptions():
    import importlib
    import inspect
    import pkgutil

    import dimscope
    from dimscope import exceptions

    found = {}
    for info in pkgutil.walk_packages(dimscope.__path__, "dimscope."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__.startswith("dimscope"):
                found[f"{info.name}.{name}"] = value
    defined_elsewhere = {where: cls.__module__ for where, cls in found.items() if cls.__module__ != "dimscope.exceptions"}
    assert defined_elsewhere == {}
    # The places users and the worker import them from still have them.
    assert {"dimscope.capture.CaptureError", "dimscope.caches.CaptureError", "dimscope.worker.spec.SpecError",
            "dimscope.worker.spec.StructureMismatch", "dimscope.worker.errors.WorkerError"} <= set(found)
    assert all(issubclass(cls, exceptions.DimscopeError) for cls in found.values())

# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope.load_program refuses a .pt2 whose flattening record is bad or names
something that is not a class loaded here, naming the file; it never imports or calls
what the record names, and never unpickles (issue 24 item 1): a .pt2 dimscope writes
needs no pickle to load. (Loading real programs: tests/realmodels.)"""

import json
import os
import subprocess
import zipfile

import pytest
import torch

from conftest import LAUNCHER, ROOT
from dimscope import demo
from dimscope.caches import CaptureError
from dimscope.capture import load_capture
from dimscope.program import EXTRA_FILE, load_program, read_flattening
from dimscope.worker import exporter
from test_demo import demo_export_spec


def archive(tmp_path, record_text):
    path = tmp_path / "model.pt2"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"model/extra/{EXTRA_FILE}", record_text)
    return path


def test_a_function_named_as_a_class_is_refused(tmp_path):
    path = archive(tmp_path, json.dumps({"os.system": {"flavour": "pytree"}}))
    with pytest.raises(CaptureError, match=r"model\.pt2: .*os\.system is not a class loaded in this process"):
        load_program(path)


def test_a_module_not_loaded_is_not_imported(tmp_path):
    import sys
    path = archive(tmp_path, json.dumps({"antigravity.Fly": {"flavour": "static_layers"}}))
    with pytest.raises(CaptureError, match="not a class loaded in this process"):
        load_program(path)
    assert "antigravity" not in sys.modules


@pytest.mark.parametrize("text, message", [
    ("{", "not JSON"),
    ("[]", "not an object"),
    (json.dumps({"a.B": {"flavour": "eval"}}), "unknown flavour"),
    (json.dumps({"a.B": {"flavour": "dynamic_layers"}}), "needs its 'layers'"),
])
def test_bad_records_name_the_file_and_the_problem(tmp_path, text, message):
    path = archive(tmp_path, text)
    with pytest.raises(CaptureError, match=f"model.pt2: {EXTRA_FILE}: .*{message}"):
        read_flattening(str(path))


def test_not_an_archive(tmp_path):
    path = tmp_path / "x.pt2"
    path.write_text("hello")
    with pytest.raises(CaptureError, match=r"x\.pt2: not a readable \.pt2 archive"):
        load_program(path)


PLAIN_LOAD = r'''
import logging, sys
import torch
import dimscope.demo  # the model's module: registers DemoCache, as a user's model code does
messages = []
class Keep(logging.Handler):
    def emit(self, record):
        messages.append(str(record.msg))
logging.getLogger("torch").addHandler(Keep())
program = torch.export.load(sys.argv[1])
print("example inputs kept:", program.example_inputs is not None)
print("fallbacks:", [m for m in messages if "weights_only" in m])
'''


def test_a_dimscope_program_loads_with_weights_only_and_no_fallback(tmp_path):
    """The demo's example inputs hold its cache class: saved as torch saves them, plain
    torch.export.load unpickles them (torch 2.6), or falls back to it after a failed
    weights_only load and prints a logging error (torch 2.14)."""
    capture = load_capture(ROOT / "resources" / "demo" / "demo-capture.safetensors")
    out = tmp_path / "demo.pt2"
    exporter.run_export(demo.make_model(), capture.calls, demo_export_spec(1, 0, 1), str(out), verify_calls=False)
    script = tmp_path / "plain_load.py"
    script.write_text(PLAIN_LOAD)
    # Every torch.load reads tensors and plain values only, also where torch asks for more.
    env = dict(os.environ, TORCH_FORCE_WEIGHTS_ONLY_LOAD="1")
    env.pop("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", None)
    done = subprocess.run([str(LAUNCHER), str(script), str(out)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "example inputs kept: False" in done.stdout and "fallbacks: []" in done.stdout, done.stdout
    assert "Fallback to weights_only=False" not in done.stderr and "Logging error" not in done.stderr, done.stderr
    assert load_program(out).example_inputs is None


class RunsWhenUnpickled:
    """Unpickling it writes a marker file: what a hostile .pt2 would do instead."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, ("open(%r, 'w').write('ran')" % self.marker,))


def test_load_program_never_unpickles(tmp_path):
    program = torch.export.export(torch.nn.Linear(2, 2), (torch.randn(3, 2),))
    marker = tmp_path / "ran"
    program._example_inputs = ((RunsWhenUnpickled(marker),), {})  # torch.export.save pickles them
    path = tmp_path / "hostile.pt2"
    torch.export.save(program, str(path))
    with pytest.raises(CaptureError, match=r"hostile\.pt2: part of the archive needs full pickle to load "
                                           r"\(Unsupported global: GLOBAL (builtins\.)?exec\)"):
        load_program(path)
    assert not marker.exists()

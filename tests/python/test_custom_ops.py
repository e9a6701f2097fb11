# SPDX-License-Identifier: GPL-3.0-or-later
"""A program that calls a custom operator registered from Python (transformers'
`transformers::grouped_mm_fallback` in its mixture-of-experts layers, issue 20's afmoe):
the export records the operator and the module that registered it in the .pt2, the
fresh-process check imports that module as a user would, the plain-load registrations
name it, and dimscope.load_program without it says which module to import, never
importing it itself."""

import importlib.util
import json
import subprocess
import sys
import zipfile

import pytest
import torch

from conftest import LAUNCHER
from dimscope import customops
from dimscope.exceptions import CaptureError
from dimscope.program import read_custom_ops
from dimscope.worker import exporter, freshcheck

# The operator's namespace is unique to this file: a process registers an operator once.
OPS_MODULE = '''
import torch


@torch.library.custom_op("dimscope_test_ops::scaled_add", mutates_args=())
def scaled_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + 2 * y


@scaled_add.register_fake
def _(x, y):
    return torch.empty_like(x)


# The older way: a schema, a kernel and a fake function registered one by one.
torch.library.define("dimscope_test_ops::shift", "(Tensor x) -> Tensor")


@torch.library.impl("dimscope_test_ops::shift", "cpu")
def shift(x):
    return x + 1


@torch.library.register_fake("dimscope_test_ops::shift")
def shift_fake(x):
    return torch.empty_like(x)


class ScaledAdd(torch.nn.Module):
    def forward(self, x, y):
        return torch.ops.dimscope_test_ops.shift(torch.ops.dimscope_test_ops.scaled_add(x.relu(), y)) * 3
'''
MODULE_NAME = "dimscope_test_ops_model"
OP, SHIFT = "dimscope_test_ops::scaled_add", "dimscope_test_ops::shift"
RECORDED = {OP: {"module": MODULE_NAME, "overloads": ["default"]},
            SHIFT: {"module": MODULE_NAME, "overloads": ["default"]}}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The module loaded from its file under a name of its own (as the worker loads a
    model file), its program exported and saved as run_export saves it, checked in a new
    interpreter before the rename."""
    folder = tmp_path_factory.mktemp("ops")
    (folder / "ops_model.py").write_text(OPS_MODULE)
    spec = importlib.util.spec_from_file_location(MODULE_NAME, folder / "ops_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    spec.loader.exec_module(module)
    args = (torch.randn(3, 4), torch.randn(3, 4))
    program = torch.export.export(module.ScaledAdd(), args)
    path = folder / "ops.pt2"
    fresh = {}
    exporter.save_atomically(program, str(path), check=lambda saved: fresh.update(
        freshcheck.check(program, saved, args, {}, "cpu", 0, shown_as=str(path))))
    torch.export.save(program, str(folder / "plain.pt2"))  # without dimscope's records
    yield program, path, fresh, folder
    sys.modules.pop(MODULE_NAME, None)


def test_the_export_records_the_operator_and_its_module(exported):
    program, path, _, folder = exported
    assert customops.program_ops(program) == RECORDED
    assert read_custom_ops(str(path), "model") == RECORDED
    assert freshcheck.needed_imports(program) == [(MODULE_NAME, str(folder / "ops_model.py"))]


def test_the_fresh_check_passes_through_the_recorded_module(exported):
    _, _, fresh, _ = exported
    assert fresh["status"] == "ok" and fresh["imports"] == [MODULE_NAME], fresh
    plain = fresh["plain_load"]
    assert plain == {"status": "ok", "message": None, "registrations": [f"import {MODULE_NAME}"]}, plain


def test_torch_own_operators_are_not_recorded(tmp_path):
    program = torch.export.export(torch.nn.Linear(4, 2), (torch.randn(3, 4),))
    assert customops.called_ops(program) == {}
    exporter.save_atomically(program, str(tmp_path / "linear.pt2"))
    assert read_custom_ops(str(tmp_path / "linear.pt2")) == {}
    with zipfile.ZipFile(tmp_path / "linear.pt2") as z:
        assert not [n for n in z.namelist() if n.endswith(customops.RECORD)]


def _load_in_new_interpreter(*paths):
    code = "import dimscope, sys\n"
    for path in paths:
        code += (f"try:\n    dimscope.load_program({str(path)!r})\n"
                 f"except dimscope.CaptureError as e:\n    print('CaptureError:', e)\n")
    code += f"print('imported:', {MODULE_NAME!r} in sys.modules)\n"
    done = subprocess.run([str(LAUNCHER), "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_load_program_without_the_module_names_file_op_and_module(exported):
    """The file names the module; loading does not import it (the record is data only).
    A file saved by plain torch.export.save has no record: once torch fails to load it,
    the error names the operator its graph calls (torch 2.14 says only "check the warnings")."""
    _, path, _, folder = exported
    out = _load_in_new_interpreter(path, folder / "plain.pt2")
    assert (f"CaptureError: {path}: {customops.RECORD}: program 'model' calls "
            f"torch.ops.dimscope_test_ops.scaled_add.default, which is not registered in this process "
            f"(dimscope never imports a module a file names: import {MODULE_NAME} first)") in out, out
    assert (f"CaptureError: {folder / 'plain.pt2'}: program 'model' calls torch.ops.dimscope_test_ops.scaled_add."
            f"default, which is not registered in this process (the file records no module") in out, out
    assert "imported: False" in out, out


def _record_archive(tmp_path, record):
    path = tmp_path / "model.pt2"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"model/extra/{customops.RECORD}", record if isinstance(record, str) else json.dumps(record))
    return path


def _record(ops):
    return {"format": customops.FORMAT, "version": customops.VERSION, "programs": {"model": ops}}


@pytest.mark.parametrize("record, message", [
    ("{", "not JSON"),
    ({"format": "other"}, "not a dimscope.pt2_custom_ops record"),
    ({"format": customops.FORMAT, "version": customops.VERSION, "programs": []}, "'programs' is not an object"),
    (_record([]), r"programs\['model'\] is not an object"),
    (_record({"os.system": {"module": None, "overloads": ["default"]}}), "is not an operator name"),
    (_record({"a::b": {"module": "os; rm -rf /", "overloads": ["default"]}}), "'module' is not a module name"),
    (_record({"a::b": {"module": "m", "overloads": []}}), "'overloads' is not a list"),
])
def test_a_bad_record_names_the_file_and_the_place(tmp_path, record, message):
    path = _record_archive(tmp_path, record)
    with pytest.raises(CaptureError, match=rf"model\.pt2: {customops.RECORD}: .*{message}"):
        read_custom_ops(str(path), "model")


def test_an_operator_without_a_known_module_says_so(tmp_path):
    path = _record_archive(tmp_path, _record({"dimscope_test_nowhere::op": {"module": None, "overloads": ["x"]}}))
    with pytest.raises(CaptureError, match=r"program 'model' calls torch\.ops\.dimscope_test_nowhere\.op\.x, which "
                                           r"is not registered in this process .*recorded no module"):
        customops.check_registered(read_custom_ops(str(path), "model"), str(path), "model")


def test_an_operator_registered_at_run_time_has_no_module():
    """Importing the module of a function that registers an operator when called would not
    register it: no module is recorded (the check and load_program then say so)."""
    @torch.library.custom_op("dimscope_test_ops_local::neg", mutates_args=())
    def neg(x: torch.Tensor) -> torch.Tensor:
        return -x

    assert customops.defining_module("dimscope_test_ops_local::neg") is None

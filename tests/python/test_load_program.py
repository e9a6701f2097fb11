# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope.load_program refuses a .pt2 whose flattening record is bad or names
something that is not a class loaded here, naming the file; it never imports or calls
what the record names. (Loading real programs: tests/realmodels.)"""

import json
import zipfile

import pytest

from dimscope.caches import CaptureError
from dimscope.program import EXTRA_FILE, load_program, read_flattening


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

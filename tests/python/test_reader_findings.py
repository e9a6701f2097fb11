# SPDX-License-Identifier: GPL-3.0-or-later
"""What the Python reader's fuzz target (test_reader_fuzz.py) and the differential test
(test_reader_agreement.py) found, each as a case of its own: the Python reader took
numbers the C++ reader refused or read differently, and some valid or hostile manifests
ended in a KeyError, a TypeError or a module import instead of a CaptureError."""

import json
import os
import re
import subprocess
import sys

import pytest

import readercases
from dimscope.capture import CaptureError, load_capture, read_manifest


def write(tmp_path, manifest, header=None, name="c.safetensors"):
    seed_header, _, area = readercases.split(readercases.seed("scalars"))
    path = tmp_path / name
    path.write_bytes(readercases.assemble(seed_header if header is None else header, manifest, area))
    return path


def scalars():
    return readercases.split(readercases.seed("scalars"))[1]


def int_leaf(manifest):
    return next(n for n in readercases.scalar_leaves(manifest) if n["kind"] == "int")


@pytest.mark.parametrize("literal", ["1e400", "1.0", "1e2", "9223372036854775808", "-9223372036854775809",
                                     pytest.param("1" + "0" * 5000, id="10^5000")])
def test_an_int_leaf_that_is_no_64_bit_integer_is_refused_naming_the_leaf(tmp_path, literal):
    """`1e400` reached the model as the float inf (the GUI showed 0); `1.0` as a float."""
    m = scalars()
    int_leaf(m)["value"] = readercases.Lit(literal)
    with pytest.raises(CaptureError, match=r"c\.safetensors: .*(extra\[0\]|calls\[1\]\.inputs)"):
        load_capture(write(tmp_path, m))


def test_int_leaves_and_constants_keep_every_digit(tmp_path):
    m = scalars()
    int_leaf(m)["value"] = readercases.Lit("9007199254740993")
    m["calls"][0]["constant_kwargs"]["scale"] = readercases.Lit("9223372036854775807")
    capture = load_capture(write(tmp_path, m))
    assert capture.calls[1].kwargs["extra"][0] == 2 ** 53 + 1
    assert capture.calls[0].constant_kwargs["scale"] == 2 ** 63 - 1


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "1e-400", "1e99999999999999999999"])
def test_a_number_beyond_a_double_is_refused_anywhere(tmp_path, literal):
    m = scalars()
    m["calls"][0]["constant_kwargs"]["scale"] = readercases.Lit(literal)
    with pytest.raises(CaptureError, match=r"calls\[0\]\.constant_kwargs\.scale: number .* is out of range"):
        read_manifest(write(tmp_path, m))


def test_a_member_named_twice_is_refused(tmp_path):
    """Python's json kept the last of two members; the C++ reader appended both
    `children` lists, or took either: neither may guess."""
    m = scalars()
    m["calls"][0]["constant_kwargs"] = readercases.Pairs([("mode", "a"), ("mode", "b")])
    with pytest.raises(CaptureError, match=r"calls\[0\]\.constant_kwargs: the member 'mode' appears twice"):
        read_manifest(write(tmp_path, m))


def test_a_non_finite_float_leaf_as_the_recorder_writes_it_is_read(tmp_path):
    """value null and repr "nan": the recorder's spelling, which the C++ reader refused."""
    m = scalars()
    leaf = next(n for n in readercases.scalar_leaves(m) if n["kind"] == "float")
    leaf["value"], leaf["repr"] = None, "-inf"
    assert load_capture(write(tmp_path, m)).calls[1].kwargs["extra"][1][0] == float("-inf")
    leaf["repr"] = "Infinity"
    with pytest.raises(CaptureError, match=r"extra\[1\]\[0\]'?: 'value' must be a number"):
        load_capture(write(tmp_path, m, name="d.safetensors"))


def test_num_positional_out_of_range_is_refused(tmp_path):
    m = scalars()
    m["calls"][0]["num_positional"] = 2 ** 31
    with pytest.raises(CaptureError, match=r"call 0 'num_positional' is 2147483648, outside 0 \.\. 2147483647"):
        read_manifest(write(tmp_path, m))


def test_a_call_without_index_or_a_parameter_without_kind_loads(tmp_path):
    """Both members are optional to the C++ reader; load_capture raised KeyError."""
    m = scalars()
    del m["calls"][1]["index"]
    del m["model"]["signature"][0]["kind"]
    capture = load_capture(write(tmp_path, m))
    assert capture.calls[1].index == 1
    args, kwargs = capture.calls[0].call_arguments()
    assert args == () and "x" in kwargs


def test_a_type_name_never_runs_a_lazy_module_import(tmp_path):
    """`torch.onnx.X` named in a capture made torch's module __getattr__ import (run)
    torch/onnx/__init__.py while dimscope looked the class up."""
    lazy = "torch.onnx"
    if lazy in sys.modules:
        pytest.skip("torch.onnx is already imported in this process")
    m = scalars()
    m["calls"][1]["inputs"]["children"][1] = {
        "kind": "custom", "type": "torch.onnx.ExportOptions", "flavour": "pytree", "keys": ["a"],
        "context": None, "children": [{"kind": "int", "value": 1, "path": "extra.a"}]}
    with pytest.raises(CaptureError, match="torch.onnx.ExportOptions is not a class loaded in this process"):
        load_capture(write(tmp_path, m))
    assert lazy not in sys.modules


@pytest.mark.parametrize("field", ["class", "_x", "None"])
def test_a_named_tuple_field_namedtuple_refuses_is_a_capture_error(tmp_path, field):
    m = scalars()
    m["calls"][1]["inputs"]["children"][1] = {
        "kind": "namedtuple", "type": "somewhere.Unloaded", "fields": [field],
        "children": [{"kind": "int", "value": 1, "path": f"extra.{field}"}]}
    with pytest.raises(CaptureError, match=f"named tuple field '{field}'"):
        load_capture(write(tmp_path, m))


def test_a_registered_class_given_children_it_cannot_take_is_a_capture_error(tmp_path):
    """OrderedDict is a pytree node, so resolve_type lets a key_value_dict node name it;
    building it from two lists raised TypeError."""
    m = scalars()
    m["calls"][1]["inputs"]["children"][1] = {
        "kind": "custom", "type": "collections.OrderedDict", "flavour": "key_value_dict",
        "keys": ["key_cache", "value_cache"], "context": None,
        "children": [{"kind": "int", "value": 1, "path": "extra.key_cache"},
                     {"kind": "int", "value": 2, "path": "extra.value_cache"}]}
    with pytest.raises(CaptureError, match=r"extra\S*: cannot rebuild collections\.OrderedDict \(key_value_dict\)"):
        load_capture(write(tmp_path, m))


@pytest.mark.skipif(not os.environ.get("DIMSCOPE_CLI"), reason="DIMSCOPE_CLI is not set (run through ctest)")
def test_the_cli_shows_a_non_finite_float_leaf_as_python_writes_it(tmp_path):
    """The C++ reader refused what the recorder writes for nan; now it reads it, and
    `inspect` shows nan (and --json null: JSON has no NaN) rather than failing."""
    m = scalars()
    leaf = next(n for n in readercases.scalar_leaves(m) if n["kind"] == "float")
    leaf["value"], leaf["repr"] = None, "nan"
    path = write(tmp_path, m)
    cli = os.environ["DIMSCOPE_CLI"]
    text = subprocess.run([cli, "inspect", str(path)], capture_output=True, text=True, timeout=60)
    assert text.returncode == 0, text.stderr
    assert re.search(r"extra\[1\]\[0\].*float=nan", text.stdout), text.stdout
    report = subprocess.run([cli, "inspect", str(path), "--json"], capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    row = next(r for r in json.loads(report.stdout)["leaves"] if r["path"] == "extra[1][0]")
    assert row["calls"][1] == {"kind": "float", "value": None}

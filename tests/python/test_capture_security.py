# SPDX-License-Identifier: GPL-3.0-or-later
"""A capture is data: loading one (as the export worker does) never imports a module
or calls a function because the capture names it (issue: a capture runs code when it is
exported). Each hostile capture must fail with a CaptureError naming the place, and the
code it names must not have run."""

import collections
import sys

import pytest
import torch

from dimscope import caches
from dimscope.capture import CaptureError, InputRecorder, load_capture, read_manifest
from dimscope.capture.file import write_capture


class Model(torch.nn.Module):
    def forward(self, x, extra=None):
        return x


def base_capture(tmp_path):
    rec, model = InputRecorder(record_outputs=False), Model()
    with rec(model):
        model(torch.ones(2, 3), extra=torch.zeros(1))
    path = tmp_path / "base.safetensors"
    rec.save(path)
    manifest = read_manifest(path)
    tensors = {"c0/in/0": torch.ones(2, 3), "c0/in/1": torch.zeros(1)}
    return manifest, tensors


def hostile(tmp_path, manifest, tensors, name="hostile.safetensors"):
    path = tmp_path / name
    write_capture(path, manifest, tensors, writer="builtin")
    return path


def test_namedtuple_typed_as_a_function_is_refused(tmp_path):
    marker = tmp_path / "ran"
    manifest, tensors = base_capture(tmp_path)
    call = manifest["calls"][0]
    call["inputs"]["children"][1] = {
        "kind": "namedtuple", "type": "os.system", "fields": ["command"],
        "children": [{"kind": "str", "value": f"touch {marker}", "path": "extra.command"}]}
    del tensors["c0/in/1"]
    with pytest.raises(CaptureError, match=r"extra\.command: os\.system is not a class"):
        load_capture(hostile(tmp_path, manifest, tensors))
    assert not marker.exists()


def test_custom_node_typed_as_exec_is_refused(tmp_path):
    manifest, tensors = base_capture(tmp_path)
    call = manifest["calls"][0]
    code = "import pathlib; pathlib.Path(%r).write_text('x')" % str(tmp_path / "ran")
    call["inputs"]["children"][1] = {
        "kind": "custom", "type": "builtins.exec", "flavour": "encoder_decoder",
        "keys": ["self_attention_cache", "cross_attention_cache"], "context": None,
        "children": [{"kind": "str", "value": code, "path": "extra.self_attention_cache"},
                     {"kind": "none", "path": "extra.cross_attention_cache"}]}
    del tensors["c0/in/1"]
    with pytest.raises(CaptureError, match=r"extra\.self_attention_cache: builtins\.exec is not a class"):
        load_capture(hostile(tmp_path, manifest, tensors))
    assert not (tmp_path / "ran").exists()


def test_flattening_key_never_imports_a_module(tmp_path, monkeypatch):
    # A module in the working directory that would leave a mark when imported.
    (tmp_path / "evil_cache_module.py").write_text(
        "import pathlib\npathlib.Path(%r).write_text('imported')\nclass Cache: pass\n" % str(tmp_path / "ran"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    manifest, tensors = base_capture(tmp_path)
    for flavour in ("key_value_dict", "dynamic_layers", "encoder_decoder", "pytree"):
        manifest = dict(manifest, flattening={"evil_cache_module.Cache": flavour})
        with pytest.raises(CaptureError, match="evil_cache_module.Cache is not a class loaded in this process"):
            caches.register_capture_flattening(manifest)
    assert "evil_cache_module" not in sys.modules
    assert not (tmp_path / "ran").exists()


def test_loaded_class_that_is_no_cache_is_refused(tmp_path):
    # subprocess.Popen is a loaded class, but no pytree node and no cache: never built.
    import subprocess  # noqa: F401 - loaded, as it is in any worker
    manifest, tensors = base_capture(tmp_path)
    call = manifest["calls"][0]
    call["inputs"]["children"][1] = {
        "kind": "custom", "type": "subprocess.Popen", "flavour": "key_value_dict",
        "keys": ["key_cache", "value_cache"], "context": ["key_cache", "value_cache"],
        "children": [{"kind": "list", "children": []}, {"kind": "list", "children": []}],
        "path": "extra"}
    call["inputs"]["children"][1]["children"][0]["children"] = [
        {"kind": "str", "value": "true", "path": "extra.key_cache[0]"}]
    del tensors["c0/in/1"]
    with pytest.raises(CaptureError, match=r"subprocess\.Popen is not a key_value_dict class dimscope may build"):
        load_capture(hostile(tmp_path, manifest, tensors))


Size = collections.namedtuple("Size", ["columns", "lines"])


def test_named_tuple_of_a_loaded_module_is_rebuilt(tmp_path):
    # The legitimate case keeps working: a namedtuple class the process has.
    manifest, tensors = base_capture(tmp_path)
    call = manifest["calls"][0]
    call["inputs"]["children"][1] = {
        "kind": "namedtuple", "type": caches.qualified_name(Size), "fields": ["columns", "lines"],
        "children": [{"kind": "int", "value": 80, "path": "extra.columns"},
                     {"kind": "int", "value": 24, "path": "extra.lines"}]}
    del tensors["c0/in/1"]
    capture = load_capture(hostile(tmp_path, manifest, tensors))
    extra = capture.calls[0].kwargs["extra"]
    assert type(extra) is Size and tuple(extra) == (80, 24)


def test_header_longer_than_the_limit_is_refused_unread(tmp_path):
    # A 3 GB header declared in a sparse file of a few KB of data: refused from its
    # length (the C++ reader's and the safetensors library's limit), not read whole.
    path = tmp_path / "sparse.safetensors"
    with open(path, "wb") as f:
        f.write((3 << 30).to_bytes(8, "little"))
        f.write(b'{"__metadata__":')
        f.truncate(8 + (3 << 30) + 4096)
    with pytest.raises(CaptureError, match="header is longer than 100000000 bytes"):
        read_manifest(path)

# SPDX-License-Identifier: GPL-3.0-or-later
"""InputRecorder behaviour: forward swapping, limits, argument binding, errors."""

import collections
import inspect
import os

import pytest
import torch

from capture_models import AddModel, FlagModel, VarModel
from conftest import leaves, same
from dimscope.capture import CaptureError, InputRecorder, load_capture

Pair = collections.namedtuple("Pair", ["left", "right"])


def test_forward_swapped_with_signature_and_restored():
    model = AddModel()
    original = model.forward
    seen = {}
    rec = InputRecorder()
    with rec(model):
        assert "forward" in vars(model)
        seen["signature"] = inspect.signature(model.forward)
    assert "forward" not in vars(model)
    assert model.forward == original
    assert list(seen["signature"].parameters) == ["x", "y"]


def test_forward_restored_after_exception():
    model = AddModel()
    rec = InputRecorder()
    with pytest.raises(RuntimeError):
        with rec(model):
            model(torch.ones(2, 3), torch.ones(4, 5))  # shapes do not broadcast
    assert "forward" not in vars(model)
    # The failing call was recorded before forward raised; nothing else was.
    assert rec.num_calls == 1
    assert torch.equal(model(torch.ones(2), torch.ones(2)), torch.full((2,), 2.0))


def test_instance_forward_restored():
    model = AddModel()
    patched = lambda x, y: x - y  # noqa: E731
    model.forward = patched
    with InputRecorder()(model):
        pass
    assert vars(model)["forward"] is patched


def test_store_n_calls_limit(tmp_path):
    model = AddModel()
    rec = InputRecorder(store_n_calls=2)
    with rec(model):
        outs = [model(torch.full((i + 1,), float(i)), torch.ones(1)) for i in range(5)]
    assert rec.num_calls == 2
    assert torch.equal(outs[4], torch.full((5,), 5.0))  # later calls still run
    rec.save(tmp_path / "c.safetensors")
    capture = load_capture(tmp_path / "c.safetensors")
    assert [c.index for c in capture.calls] == [0, 1]
    assert capture.calls[1].kwargs["x"].shape == (2,)


def test_constants_none_and_defaults(tmp_path):
    model = FlagModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.ones(2), use_cache=True, scale=2.0, mode="a", extra=None)
        model(torch.ones(3), False, 1.0, "b", extra=torch.zeros(1))
    rec.save(tmp_path / "c.safetensors")
    capture = load_capture(tmp_path / "c.safetensors")
    first, second = capture.manifest["calls"]
    assert first["inputs"]["keys"] == ["x"]
    # Every constant the call passed, also those equal to their defaults (use_cache, mode).
    assert first["constant_kwargs"] == {"use_cache": True, "scale": 2.0, "mode": "a"}
    assert first["missing"] == ["extra"]               # passed as None
    assert second["num_positional"] == 4
    assert second["inputs"]["keys"] == ["x", "extra"]
    assert second["constant_kwargs"] == {"use_cache": False, "scale": 1.0, "mode": "b"}
    assert second["missing"] == []
    sig = {p["name"]: p for p in capture.manifest["model"]["signature"]}
    assert sig["scale"]["default"] == 1.0 and sig["extra"]["kind"] == "KEYWORD_ONLY"
    args, kwargs = capture.calls[1].call_arguments()
    assert args == () and kwargs["use_cache"] is False and kwargs["mode"] == "b"
    assert torch.equal(model(*args, **kwargs), torch.ones(3))


def test_var_positional_and_var_keyword(tmp_path):
    model = VarModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.ones(2), torch.zeros(3), torch.zeros(4), mask=torch.ones(5), flag=True)
    rec.save(tmp_path / "c.safetensors")
    capture = load_capture(tmp_path / "c.safetensors")
    call = capture.manifest["calls"][0]
    assert call["inputs"]["keys"] == ["x", "rest", "mask"]
    assert call["constant_kwargs"] == {"flag": True}
    assert [l["path"] for l in leaves(call["inputs"])] == ["x", "rest[0]", "rest[1]", "mask"]
    kinds = [p["kind"] for p in capture.manifest["model"]["signature"]]
    assert kinds == ["POSITIONAL_ONLY", "VAR_POSITIONAL", "VAR_KEYWORD"]
    args, kwargs = capture.calls[0].call_arguments()
    assert len(args) == 3 and set(kwargs) == {"mask", "flag"}


def test_nested_containers_and_scalar_leaves(tmp_path):
    class Nested(torch.nn.Module):
        def forward(self, inputs, pair=None):
            return {"sum": inputs["a"][0] + pair.left, "n": len(inputs["a"])}

    model = Nested()
    value = {"a": [torch.ones(2), torch.arange(3)], "b": (3, 2.5, True, "s", None, float("nan"))}
    pair = Pair(torch.zeros(2, dtype=torch.float64), torch.ones(1, dtype=torch.bfloat16))
    rec = InputRecorder()
    with rec(model):
        model(value, pair=pair)
    rec.save(tmp_path / "c.safetensors")
    capture = load_capture(tmp_path / "c.safetensors")
    call = capture.manifest["calls"][0]
    got = [(l["path"], l["kind"]) for l in leaves(call["inputs"])]
    assert got == [("inputs['a'][0]", "tensor"), ("inputs['a'][1]", "tensor"), ("inputs['b'][0]", "int"),
                   ("inputs['b'][1]", "float"), ("inputs['b'][2]", "bool"), ("inputs['b'][3]", "str"),
                   ("inputs['b'][4]", "none"), ("inputs['b'][5]", "float"),
                   ("pair.left", "tensor"), ("pair.right", "tensor")]
    pair_node = call["inputs"]["children"][1]
    assert pair_node["kind"] == "namedtuple" and pair_node["fields"] == ["left", "right"]
    assert pair_node["type"] == "test_recorder.Pair"
    assert [l["dtype"] for l in leaves(pair_node)] == ["F64", "BF16"]
    assert [l["path"] for l in leaves(call["outputs"])] == ["output['sum']", "output['n']"]
    loaded = capture.calls[0].kwargs
    b = loaded["inputs"]["b"]
    assert b[:5] == (3, 2.5, True, "s", None) and b[5] != b[5]
    same(value["a"], loaded["inputs"]["a"])
    same(pair, loaded["pair"])


class Foo:
    pass


def test_unsupported_leaf_names_its_key_path():
    class Model(torch.nn.Module):
        def forward(self, x, past_key_values=None):
            return x

    model = Model()
    rec = InputRecorder()
    with pytest.raises(CaptureError, match=r"past_key_values\['foo'\]\[2\]: unsupported type Foo"):
        with rec(model):
            model(torch.ones(1), past_key_values={"foo": [torch.ones(1), 1, Foo()]})
    assert "forward" not in vars(model)


def test_unsupported_dtype_names_its_key_path():
    model = AddModel()
    with pytest.raises(CaptureError, match=r"^y: unsupported tensor dtype torch.complex64"):
        with InputRecorder()(model):
            model(torch.ones(1), torch.ones(1, dtype=torch.complex64))


def test_save_is_atomic(tmp_path, monkeypatch):
    model = AddModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.ones(2), torch.ones(2))
    target = tmp_path / "c.safetensors"
    target.write_bytes(b"previous content")

    import dimscope.capture.file as capture_module  # where write_capture looks these up

    def failing_writer(tensors, path, metadata):
        with open(path, "wb") as f:
            f.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(capture_module, "_official_writer", lambda: failing_writer)
    with pytest.raises(OSError, match="disk full"):
        rec.save(target)
    assert target.read_bytes() == b"previous content"
    assert sorted(os.listdir(tmp_path)) == ["c.safetensors"]

    monkeypatch.setattr(capture_module, "_tensor_bytes", lambda t: (_ for _ in ()).throw(OSError("io")))
    with pytest.raises(OSError, match="io"):
        rec.save(tmp_path / "new.safetensors", writer="builtin")
    assert sorted(os.listdir(tmp_path)) == ["c.safetensors"]


def test_saved_file_permissions_follow_umask(tmp_path):
    model = AddModel()
    rec = InputRecorder()
    with rec(model):
        model(torch.ones(2), torch.ones(2))
    old = os.umask(0o022)
    try:
        rec.save(tmp_path / "c.safetensors")
    finally:
        os.umask(old)
    assert (os.stat(tmp_path / "c.safetensors").st_mode & 0o777) == 0o644


def test_save_without_recording_is_an_error(tmp_path):
    with pytest.raises(CaptureError, match="no model was recorded"):
        InputRecorder().save(tmp_path / "c.safetensors")


def test_unsupported_outputs_are_left_out_with_a_warning(tmp_path):
    class Model(torch.nn.Module):
        def forward(self, x):
            return x, Foo()

    model = Model()
    rec = InputRecorder()
    with pytest.warns(UserWarning, match=r"outputs of call 0 not recorded: output\[1\]: unsupported type Foo"):
        with rec(model):
            model(torch.ones(1))
    rec.save(tmp_path / "c.safetensors")
    call = load_capture(tmp_path / "c.safetensors").calls[0]
    assert call.outputs is None and call.entry["outputs"] is None
    same({"x": torch.ones(1)}, call.kwargs)


def test_an_output_that_is_the_models_state_is_left_out_with_a_warning(tmp_path):
    """Qwen2-VL returns ``rope_deltas``, a tensor its model keeps as an attribute between
    calls (generate() sets it before forward): not computed from the call, so no program
    of the call returns it. It is not recorded; what forward computes is."""
    class Inner(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.tensor(2.0))
            self.rope_deltas = None

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = Inner()

        def forward(self, x):
            return {"logits": x * self.model.scale, "rope_deltas": self.model.rope_deltas, "scale": self.model.scale}

    model = Model()
    model.model.rope_deltas = torch.tensor([[3]])
    rec = InputRecorder()
    with pytest.warns(UserWarning, match=r"output 'rope_deltas' of call 0 not recorded: it is the model's attribute "
                                         r"Inner.rope_deltas \(model\)"):
        with rec(model):
            model(torch.ones(2))
    rec.save(tmp_path / "c.safetensors")
    outputs = load_capture(tmp_path / "c.safetensors").calls[0].outputs
    assert list(outputs) == ["logits", "scale"]  # a buffer returned as it is stays: it is the model's weight
    same({"logits": torch.full((2,), 2.0), "scale": torch.tensor(2.0)}, outputs)


def test_one_recorder_one_model():
    rec = InputRecorder()
    with rec(AddModel()):
        pass
    with pytest.raises(CaptureError, match="already recorded calls of another model"):
        with rec(AddModel()):
            pass


def test_package_exports_lazily():
    import dimscope
    assert dimscope.InputRecorder is InputRecorder and dimscope.load_capture is load_capture
    with pytest.raises(AttributeError):
        dimscope.no_such_name

# SPDX-License-Identifier: GPL-3.0-or-later
"""State a model keeps on its modules, outside its inputs (modulestate.py): a recorded call
rebuilt from its inputs runs the model from another state, and verification says which
attribute the forward stored and where, instead of a guess (RecurrentGemma's
recurrent blocks, issue 20)."""

import inspect

import torch

from dimscope.capture import InputRecorder, load_capture
from dimscope.worker import exporter, modulestate


class Running(torch.nn.Module):
    """A running sum kept on the module between calls, as RecurrentGemma's blocks do."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(4))
        self.total = None

    def forward(self, x, keep=True):
        if self.total is None or self.total.shape != x.shape:
            self.total = torch.zeros_like(x)
        self.total = self.total + x * self.scale
        out = self.total * 1.0
        if not keep:  # dropped: not where the state is stored
            self.total = None
        return out


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Running()

    def forward(self, x):
        return self.block(x) + 1


STORE_LINE = inspect.getsourcelines(Running.forward)[1] + 3
# Static: the state's size is a constant of the trace, so torch would specialize a Dim.
SPEC = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [],
        "dynamic_shapes": {"dict": {"x": {"tensor": {}}}}}


def test_a_call_rebuilt_without_the_models_state_names_the_attribute(tmp_path):
    model = Outer()
    rec = InputRecorder(store_n_calls=3)
    with rec(model):
        for n in (3, 3, 3):
            model(torch.randn(n, 4))
    rec.save(tmp_path / "calls.safetensors")
    cap = load_capture(tmp_path / "calls.safetensors")
    result = exporter.run_export(model, cap.calls, SPEC, str(tmp_path / "m.pt2"))
    differing = [r for r in result["verification"] if r["status"] == "rebuilt_differs"]
    assert differing, result["verification"]
    for row in differing:
        assert row["module_state"] == [{"cls": "Running", "attribute": "total", "file": __file__,
                                        "line": STORE_LINE}], row
        assert "the model keeps state of its own outside its inputs" in row["message"]
        assert "Running.total (%s:%d)" % (__file__, STORE_LINE) in row["message"], row["message"]


def test_parameters_buffers_and_untouched_attributes_are_not_state():
    model = Outer()
    model.block.register_buffer("seen", torch.zeros(1))
    model.block.constant = torch.ones(2)  # a plain tensor forward only reads
    model(torch.randn(2, 4))  # total exists before the watch
    with modulestate.watch(model) as stored:
        model.block.seen += 1  # a buffer changed in place: an input of the program, not hidden state
        model.block.scale.data += 1
    assert stored == []
    with modulestate.watch(model) as stored:
        model(torch.randn(2, 4))
    assert [(s["module"], s["attribute"]) for s in stored] == [("block", "total")]


def test_an_export_leaves_the_models_state_as_it_was():
    """Tracing runs forward: the state it stores is put back (torch 2.6's non-strict export
    left a fake tensor there, and the next eager run failed on it)."""
    from dimscope.worker import varkeyword

    model = Outer()
    model(torch.randn(3, 4))
    before = model.block.total
    varkeyword.export(model, (torch.randn(3, 4),), {}, None, False)
    assert model.block.total is before
    assert type(model.block.total) is torch.Tensor

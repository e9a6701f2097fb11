# SPDX-License-Identifier: GPL-3.0-or-later
"""Exports whose call passes entries through forward's **kwargs (return_dict=True from
generate()): the keyword-only forward that torch 2.11 needs gives the same program as the
plain export, on the torch that runs here (dimscope.worker.varkeyword)."""
import inspect

import pytest
import torch

from dimscope.worker import varkeyword


class TakesKwargs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x, mask=None, **kwargs):
        y = self.proj(x) * 2
        if mask is not None:
            y = y * mask[..., None]
        return {"y": y} if kwargs.get("return_dict") else y


def _call():
    torch.manual_seed(0)
    return {"x": torch.randn(2, 5, 4), "mask": torch.ones(2, 5), "return_dict": True}


def _shapes():
    seq = torch.export.Dim("seq_len", min=2, max=64)
    return {"x": {1: seq}, "mask": {1: seq}, "kwargs": {"return_dict": None}}


def _export(model, forced):
    saved = varkeyword._flattening_needed
    varkeyword._flattening_needed = forced
    try:
        return varkeyword.export(model, (), _call(), _shapes(), strict=False)
    finally:
        varkeyword._flattening_needed = saved


def test_keyword_only_forward_exports_the_same_program():
    model = TakesKwargs().eval()
    plain = _export(model, False)
    flat = _export(model, True)
    assert flat.call_spec.in_spec == plain.call_spec.in_spec
    assert list(flat.state_dict) == list(plain.state_dict) == ["proj.weight", "proj.bias"]
    assert [str(v) for v in flat.range_constraints.values()] == [str(v) for v in plain.range_constraints.values()]
    longer = {"x": torch.randn(2, 9, 4), "mask": torch.ones(2, 9), "return_dict": True}
    expected = model(**longer)["y"]
    for program in (plain, flat):
        assert torch.allclose(program.module()(**longer)["y"], expected, atol=1e-6)


def test_forward_is_restored_also_when_the_export_fails():
    model = TakesKwargs()
    with pytest.raises(RuntimeError):
        with varkeyword.keyword_only_forward(model, ["return_dict"]):
            assert "return_dict" in inspect.signature(model.forward).parameters
            raise RuntimeError("export failed")
    assert "forward" not in model.__dict__
    assert "return_dict" not in inspect.signature(model.forward).parameters


def test_the_spec_entries_under_kwargs_are_found_and_lifted():
    model = TakesKwargs()
    assert varkeyword.var_keyword_entries(model, _shapes()) == ("kwargs", {"return_dict": None})
    assert varkeyword.var_keyword_entries(model, {"x": None}) is None
    lifted = varkeyword.lifted(_shapes(), "kwargs")
    assert list(lifted) == ["x", "mask", "return_dict"]


def test_the_probe_tells_whether_the_plain_export_fails_on_this_torch():
    # torch 2.6 and 2.14 (the runtimes here) build both trees alike; 2.11 does not.
    try:
        torch.export.export(TakesKwargs(), (), kwargs=_call(), dynamic_shapes=_shapes(), strict=False)
        plain_fails = False
    except AssertionError as e:
        plain_fails = "tree_name" in str(e)
    assert varkeyword.needs_flattening() is plain_fails
    # Either way, the export of a spec with a **kwargs entry succeeds.
    program = varkeyword.export(TakesKwargs(), (), _call(), _shapes(), strict=False)
    assert "return_dict" in str(program.call_spec.in_spec)

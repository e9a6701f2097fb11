# SPDX-License-Identifier: GPL-3.0-or-later
"""Hybrid models' padding-mask shortcut (issue 20: Jamba, Qwen3-Next, Qwen3.5-MoE): their
``_update_linear_attn_mask`` / ``_update_mamba_mask`` return None when
``torch.all(attention_mask == 1)``, a branch on an input's values that torch.export cannot
trace. Through dimscope's export (varkeyword.export, which every export of the worker
runs) the program keeps the mask, gives the model's outputs on padded and unpadded
masks, and the log says what was decided (dimscope.worker.maskshortcut)."""

import pytest
import torch

from dimscope.worker import maskshortcut, varkeyword


class Cache:
    def __init__(self, previous):
        self.previous = previous

    def has_previous_state(self):
        return self.previous


class LinearLayers(torch.nn.Module):
    """transformers' pattern (Qwen3NextModel._update_linear_attn_mask, apply_mask_to_padding_states)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def _update_linear_attn_mask(self, attention_mask, past_key_values):
        linear_attn_mask = attention_mask
        if (past_key_values is not None and past_key_values.has_previous_state()) or (
            attention_mask is not None and torch.all(attention_mask == 1)
        ):
            linear_attn_mask = None
        return linear_attn_mask

    def forward(self, x, attention_mask):
        mask = self._update_linear_attn_mask(attention_mask, Cache(False))
        if mask is not None:
            x = x * mask[:, :, None].to(x.dtype)
        return self.proj(x).cumsum(1)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = LinearLayers()

    def forward(self, x, attention_mask):
        return self.model(x, attention_mask)


def _calls():
    torch.manual_seed(0)
    padded = torch.ones(2, 6, dtype=torch.long)
    padded[0, :2] = 0
    return [(torch.randn(2, 6, 4), padded), (torch.randn(3, 9, 4), torch.ones(3, 9, dtype=torch.long))]


def test_the_shortcut_is_data_dependent_for_torch_export():
    x, mask = _calls()[0]
    with pytest.raises(Exception, match="data-dependent|Could not guard|Eq\\(u0, 1\\)"):
        torch.export.export(Model().eval(), (), {"x": x, "attention_mask": mask}, strict=False)


def test_the_program_keeps_the_mask_and_serves_padded_and_unpadded_calls():
    model = Model().eval()
    (x, mask), other = _calls()
    batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=64)
    shapes = {"x": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
    lines = []
    program = varkeyword.export(model, (), {"x": x, "attention_mask": mask}, shapes, strict=False, log=lines.append)
    said = [line for line in lines if "padding-mask shortcut" in line]
    assert len(said) == 1 and "LinearLayers._update_linear_attn_mask" in said[0], lines
    assert "_update_linear_attn_mask" not in vars(model.model)  # the model is as it was
    module = program.module()
    with torch.no_grad():
        for x_, mask_ in ((x, mask), other):
            assert torch.allclose(module(x=x_, attention_mask=mask_), model(x=x_, attention_mask=mask_), atol=1e-6)
    assert maskshortcut.METHODS == ("_update_mamba_mask", "_update_linear_attn_mask")


def test_a_model_without_the_shortcut_is_not_touched():
    lines = []
    model = torch.nn.Linear(4, 4)
    with maskshortcut.mask_kept(model, lines.append):
        assert torch.all(torch.ones(2) == 1)
    assert lines == []

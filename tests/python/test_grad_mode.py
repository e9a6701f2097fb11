# SPDX-License-Identifier: GPL-3.0-or-later
"""Model code that switches grad mode inside forward (issue 20: Phi-4-multimodal's
towers run under torch.no_grad()). Traced with grad enabled, torch.export keeps the
switch in the program, and torch 2.14's torch.export.load refuses that program in a new
interpreter; the worker traces again under torch.no_grad() (dimscope.worker.gradmode),
says so, and the program loads and replays where users load it."""

import torch

from dimscope.capture import InputRecorder, load_capture
from dimscope.worker import exporter, gradmode


class FrozenTower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.tower = torch.nn.Linear(4, 4)
        self.head = torch.nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():  # the pattern: a frozen tower inside forward
            features = self.tower(x)
        return self.head(x + features)


SPEC = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [{"name": "n", "min": 2, "max": 256}],
        "dynamic_shapes": {"dict": {"x": {"tensor": {"0": "n"}}}}}


def test_a_grad_mode_switch_is_traced_away_and_the_program_loads_in_a_fresh_process(tmp_path):
    model = FrozenTower()
    recorder = InputRecorder(store_n_calls=2)
    with recorder(model):
        for n in (5, 9):
            model(torch.randn(n, 4))
    recorder.save(tmp_path / "calls.safetensors")
    calls = load_capture(tmp_path / "calls.safetensors").calls
    lines = []
    result = exporter.run_export(model, calls, SPEC, str(tmp_path / "tower.pt2"),
                                 log=lambda text, **_: lines.append(text))
    said = [line for line in lines if "switches grad mode inside forward" in line]
    assert len(said) == 1 and "torch.no_grad()" in said[0], lines
    assert result["fresh_process"]["status"] == "ok", result["fresh_process"]
    assert all(row["status"] == "ok" for row in result["verification"]), result["verification"]
    program = torch.export.load(str(tmp_path / "tower.pt2"))
    assert gradmode.switch_in(program) is None
    x = torch.randn(7, 4)
    assert torch.allclose(program.module()(x=x), model(x), atol=1e-6)


def test_a_program_without_a_switch_is_traced_once():
    program = torch.export.export(torch.nn.Linear(4, 4), (torch.randn(3, 4),))
    assert gradmode.switch_in(program) is None


def test_a_model_found_switching_is_traced_once_afterwards():
    model = FrozenTower()
    program = torch.export.export(model, (torch.randn(3, 4),))
    assert gradmode.switch_in(program) is not None or not torch.is_grad_enabled()
    assert not gradmode.switches(model)
    gradmode.remember(model)
    assert gradmode.switches(model) and not gradmode.switches(FrozenTower())

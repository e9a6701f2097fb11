# SPDX-License-Identifier: GPL-3.0-or-later
"""A module that registers an nn.Parameter as a non-persistent buffer (transformers'
Falcon-Mamba mixer, issue 20's falcon_mamba): torch 2.14 exports it but the program's
module() fails ("attribute ... already exists"), torch 2.6 fails in the export. Through
dimscope's export (varkeyword.export, which every export of the worker runs) the program
runs, serves a call of another length, saves and loads in a new interpreter, and the
model keeps its Parameter (dimscope.worker.parambuffers)."""

import torch

from dimscope.worker import exporter, freshcheck, parambuffers, varkeyword


class ParameterBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.inner = torch.nn.Module()
        self.inner.register_buffer("scale", torch.nn.Parameter(torch.arange(1.0, 5.0), requires_grad=False),
                                   persistent=False)

    def forward(self, x):
        return self.proj(x) * self.inner.scale


def _export(model, lines):
    torch.manual_seed(0)
    x = torch.randn(2, 5, 4)
    shapes = {"x": {1: torch.export.Dim("seq_len", min=2, max=64)}}
    return varkeyword.export(model, (), {"x": x}, shapes, strict=False, log=lines.append), x


def test_the_program_of_a_parameter_buffer_runs_and_loads_in_a_new_interpreter(tmp_path):
    model = ParameterBuffer().eval()
    lines = []
    program, x = _export(model, lines)
    assert any("inner.scale" in line and "nn.Parameter" in line for line in lines), lines
    # The loaded model is unchanged: its buffer is the same Parameter again.
    assert isinstance(model.inner._buffers["scale"], torch.nn.Parameter)
    assert parambuffers.parameter_buffers(model)[0][2] == "inner.scale"
    longer = torch.randn(2, 9, 4)
    module = program.module()
    with torch.no_grad():
        assert torch.allclose(module(x=longer), model(longer), atol=1e-6)
        assert torch.allclose(module(x=x), model(x), atol=1e-6)
    path = tmp_path / "model.pt2"
    fresh = {}
    exporter.save_atomically(program, str(path), check=lambda saved: fresh.update(
        freshcheck.check(program, saved, (), {"x": x}, "cpu", 0, shown_as=str(path))))
    assert fresh["status"] == "ok", fresh
    loaded = torch.export.load(str(path)).module()
    with torch.no_grad():
        assert torch.allclose(loaded(x=longer), model(longer), atol=1e-6)


def test_the_parameter_comes_back_when_the_export_fails():
    model = ParameterBuffer()
    try:
        with parambuffers.as_plain_tensors(model):
            assert not isinstance(model.inner.scale, torch.nn.Parameter)
            raise RuntimeError("export failed")
    except RuntimeError:
        pass
    assert isinstance(model.inner._buffers["scale"], torch.nn.Parameter)

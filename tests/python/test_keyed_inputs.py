# SPDX-License-Identifier: GPL-3.0-or-later
"""Programs keyed to the value of a small integer input (issue 20: LLaVA-NeXT's anyres
code picks each image's patch grid from ``image_sizes.tolist()``). torch.export stops on
that data-dependent code; when every recorded call passes the input with the same value,
the worker traces again with the program keyed to it (dimscope.worker.keyedinputs): the
program checks the input at its start, refuses another value loudly, and loads and
replays in a new interpreter."""

import pytest
import torch

from dimscope.capture import InputRecorder, load_capture
from dimscope.worker import exporter, keyedinputs


class AnyRes(torch.nn.Module):
    """The anyres pattern: an integer input's values decide the grid, and so shapes."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.wide = torch.nn.Linear(8, 16)
        self.narrow = torch.nn.Linear(8, 16)

    def forward(self, x, image_sizes):
        height, width = image_sizes[0].tolist()
        cells = height * width
        if cells > 4:  # the branch the image's size picks
            return self.wide(x)[:, :cells]
        return self.narrow(x)[:, :cells]


BRANCH_LINE = AnyRes.forward.__code__.co_firstlineno + 3  # if cells > 4
SPEC = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [{"name": "n", "min": 2, "max": 256}],
        "dynamic_shapes": {"dict": {"x": {"tensor": {"0": "n"}}, "image_sizes": None}}}


def record(tmp_path, sizes):
    model = AnyRes()
    recorder = InputRecorder(store_n_calls=len(sizes))
    with recorder(model):
        for n, size in zip((3, 5, 7), sizes):
            model(torch.randn(n, 8), image_sizes=torch.tensor([size]))
    recorder.save(tmp_path / "calls.safetensors")
    return model, load_capture(tmp_path / "calls.safetensors").calls


def test_an_input_every_call_passes_alike_keys_the_program(tmp_path):
    model, calls = record(tmp_path, [[2, 3]] * 3)
    lines = []
    output = str(tmp_path / "anyres.pt2")
    result = exporter.run_export(model, calls, SPEC, output, log=lambda text, **_: lines.append(text))
    assert result["keyed_inputs"] == {"image_sizes": [[2, 3]]}
    assert any("stopped on data-dependent code" in line and "image_sizes == [[2, 3]]" in line for line in lines), lines
    assumed = [e for e in result["explanations"] if e["kind"] == "assumption"]
    assert [e["reason"] for e in assumed] == ["keyed_input"]
    assert "calls 0, 1, 2" in assumed[0]["expression"] and "fails" in assumed[0]["assertion"]
    # Where torch stopped on the values: the model's branch on them.
    assert (assumed[0]["location"]["file"], assumed[0]["location"]["line"]) == (__file__, BRANCH_LINE)
    assert all(row["status"] == "ok" for row in result["verification"]), result["verification"]
    assert result["fresh_process"]["status"] == "ok", result["fresh_process"]

    program = torch.export.load(output).module()  # as a user loads it
    x = torch.randn(9, 8)
    sizes = torch.tensor([[2, 3]])
    assert torch.allclose(program(x=x, image_sizes=sizes), model(x, sizes), atol=1e-6)
    with pytest.raises(Exception, match="keyed to image_sizes == \\[\\[2, 3\\]\\]"):
        program(x=x, image_sizes=torch.tensor([[1, 2]]))


def test_an_input_whose_value_changes_is_not_keyed_and_the_first_failure_stands(tmp_path):
    model, calls = record(tmp_path, [[2, 3], [1, 2], [2, 3]])
    lines = []
    with pytest.raises(Exception, match="data-dependent"):
        exporter.run_export(model, calls, SPEC, str(tmp_path / "anyres.pt2"), verify_calls=False,
                            log=lambda text, **_: lines.append(text))
    assert not any("keyed" in line for line in lines), lines
    assert not (tmp_path / "anyres.pt2").exists()


def test_only_small_integer_inputs_passed_alike_by_two_calls_are_candidates(tmp_path):
    _, calls = record(tmp_path, [[2, 3]] * 3)
    assert set(keyedinputs.candidates(calls, calls[0])) == {"image_sizes"}  # x changes shape
    assert keyedinputs.candidates(calls[:1], calls[0]) == {}  # one call proves nothing
    _, changing = record(tmp_path, [[2, 3], [2, 3], [3, 3]])
    assert keyedinputs.candidates(changing, changing[0]) == {}


def test_the_model_forward_is_restored_after_a_keyed_trace(tmp_path):
    model, calls = record(tmp_path, [[2, 3]] * 3)
    with keyedinputs.keyed(model, {"image_sizes": torch.tensor([[2, 3]])}):
        assert "forward" in model.__dict__
    assert "forward" not in model.__dict__
    x = torch.randn(4, 8)
    assert model(x, torch.tensor([[1, 2]])).shape == (4, 2)  # the model itself is not keyed


class BatchedAnyRes(AnyRes):
    """image_sizes has a row per image, one image per batch row: keyed, its static shape
    fixes the batch, which the spec declares dynamic."""

    def forward(self, x, image_sizes):
        height, width = image_sizes[0].tolist()
        cells = height * width
        scale = image_sizes[:, :1].to(x.dtype)  # ties image_sizes' rows to x's
        if cells > 4:
            return (self.wide(x) * scale)[:, :cells]
        return (self.narrow(x) * scale)[:, :cells]


def test_constraints_a_keyed_trace_needs_are_reported_for_the_fix_loop(tmp_path):
    model = BatchedAnyRes()
    recorder = InputRecorder(store_n_calls=2)
    with recorder(model):
        for _ in range(2):
            model(torch.randn(2, 8), image_sizes=torch.tensor([[2, 3], [2, 3]]))
    recorder.save(tmp_path / "calls.safetensors")
    calls = load_capture(tmp_path / "calls.safetensors").calls
    spec = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [{"name": "batch", "min": 1, "max": 64}],
            "dynamic_shapes": {"dict": {"x": {"tensor": {"0": "batch"}}, "image_sizes": {"tensor": {"0": "batch"}}}}}
    lines = []
    with pytest.raises(Exception, match="Constraints violated") as failure:
        exporter.run_export(model, calls, spec, str(tmp_path / "b.pt2"), verify_calls=False,
                            log=lambda text, **_: lines.append(text))
    assert any("torch reports constraints to fix first" in line for line in lines), lines
    assert "batch" in str(failure.value)
    # The fix applied (batch static, as torch suggests): the keyed trace exports.
    fixed = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [],
             "dynamic_shapes": {"dict": {"x": None, "image_sizes": None}}}
    result = exporter.run_export(model, calls, fixed, str(tmp_path / "b.pt2"))
    assert result["keyed_inputs"] == {"image_sizes": [[2, 3], [2, 3]]}
    assert result["fresh_process"]["status"] == "ok", result["fresh_process"]


class ReadsSizes(torch.nn.Module):
    """Reads image_sizes' values and slices with them: torch 2.14 traces this with
    unbacked sizes (no stop), a program that reads values."""

    def forward(self, x, image_sizes):
        height, width = image_sizes[0].tolist()
        return x[:, : height * width] * 2


def test_a_program_torch_cannot_load_back_is_keyed_instead(tmp_path):
    """The check behind minimax_m3_vl: a traced program that reads the values of an input
    every recorded call passes alike, and that torch cannot load back from its bytes, is
    traced again keyed to them, and the keyed one loads. The unloadable program here is a
    keyed trace left with its unused aten.item nodes (what unusedreads drops)."""
    from dimscope.worker import unusedreads

    model = ReadsSizes()
    recorder = InputRecorder(store_n_calls=2)
    with recorder(model):
        for n in (3, 5):
            model(torch.randn(n, 8), image_sizes=torch.tensor([[2, 3]]))
    recorder.save(tmp_path / "calls.safetensors")
    calls = load_capture(tmp_path / "calls.safetensors").calls
    args, kwargs = (), {"x": calls[0].kwargs["x"], "image_sizes": calls[0].kwargs["image_sizes"]}
    shapes = {"x": {0: torch.export.Dim("n", min=2, max=64)}, "image_sizes": None}
    keyed = {}

    def trace():
        with keyedinputs.keyed(model, keyed or {"image_sizes": kwargs["image_sizes"]}):
            return torch.export.export(model, args, kwargs, dynamic_shapes=shapes, strict=False)

    unloadable = trace()
    if keyedinputs.load_problem(unloadable) is None:
        pytest.skip("this torch loads unused aten.item nodes back")
    lines = []
    program, _ = exporter._keyed_if_unloadable(unloadable, None, trace, keyed, calls, 0,
                                               lambda text, **_: lines.append(text))
    assert program is not unloadable and keyed.keys() == {"image_sizes"}
    assert keyedinputs.load_problem(program) is None
    assert any("torch cannot load it back" in line for line in lines), lines
    assert unusedreads.drop(program) == 0  # nothing unused left

    # A program that loads is kept as it is, nothing keyed.
    keyed.clear()
    assert exporter._keyed_if_unloadable(program, None, trace, keyed, calls, 0, lambda *a, **k: None)[0] is program
    assert keyed == {}


def test_the_load_back_check_names_torchs_cause_and_prints_nothing(tmp_path, capfd):
    model = ReadsSizes()
    kwargs = {"x": torch.randn(3, 8), "image_sizes": torch.tensor([[2, 3]])}
    with keyedinputs.keyed(model, {"image_sizes": kwargs["image_sizes"]}):
        program = torch.export.export(model, (), kwargs, strict=False)
    problem = keyedinputs.load_problem(program)  # its unused aten.item nodes are still there
    if problem is None:
        pytest.skip("this torch loads unused aten.item nodes back")
    assert "item" in problem and "warnings above" not in problem, problem
    assert capfd.readouterr().err == ""


def test_inputs_whose_dims_the_keyed_values_fix_are_traced_static_too():
    """MiniMax-M3-VL: keyed to image_grid_thw, torch finds pixel_values' patch count
    (a derived Dim 4*_pixel_values_dim0) constant; pixel_values is traced static too.
    Only where every violation is such a specialization, and only inputs using those Dims."""
    root = torch.export.Dim("_pixel_values_dim0")
    batch = torch.export.Dim("batch")
    shapes = {"pixel_values": {0: 4 * root}, "input_ids": {0: batch}, "image_grid_thw": None}
    specialized = {"names": ["4*_pixel_values_dim0"], "violations": [{"kind": "dynamic_specialized"}], "fixes": []}
    assert keyedinputs.constant_inputs(specialized, shapes) == {"pixel_values"}
    mixed = dict(specialized, violations=[{"kind": "dynamic_specialized"}, {"kind": "constraint"}])
    assert keyedinputs.constant_inputs(mixed, shapes) == set()
    assert keyedinputs.constant_inputs(None, shapes) == set()

# SPDX-License-Identifier: GPL-3.0-or-later
"""The fix loop's route past data-dependent model code (draftexport.py, issue 20 item 3):
torch.export stops on a branch over a tensor's value; torch.export.draft_export (torch
2.7+) exports with the example call's branch and a runtime assertion for it, reported
as an `assumption` with the model's line; the program is verified like any other, and a
call that takes the other branch is rejected, never served with the other branch's
numbers. Where this torch has no draft_export, the failure says which workaround applies."""

import getpass
import glob
import inspect
import os
import tempfile

import pytest
import torch

from dimscope.capture import InputRecorder, load_capture
from dimscope.worker import draftexport, errors, exporter
from dimscope.worker.errors import WorkerError

HAS_DRAFT = callable(getattr(torch.export, "draft_export", None))


class LongRope(torch.nn.Module):
    """LongRoPE's shape of code: the factor depends on the largest position, a value."""

    def forward(self, x, position_ids):
        seq_len = torch.max(position_ids) + 1
        if seq_len > 64:  # the branch torch cannot decide
            return x * 4.0
        return x * 2.0


BRANCH_LINE = inspect.getsourcelines(LongRope.forward)[1] + 2
SPEC = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [{"name": "n", "min": 2, "max": 256}],
        "dynamic_shapes": {"dict": {"x": {"tensor": {"0": "n"}}, "position_ids": {"tensor": {"0": "n"}}}}}


def _torch_default_traces(temp_root):
    """The files in the folder draft_export writes its trace to when told nothing."""
    folder = os.path.join(temp_root, "export_" + getpass.getuser())
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def call(n, start=0):
    return torch.randn(n, 4), torch.arange(start, start + n)


@pytest.fixture
def capture(tmp_path):
    model = LongRope()
    rec = InputRecorder(store_n_calls=3)
    with rec(model):
        for n in (5, 8, 12):
            model(*call(n))
    rec.save(tmp_path / "calls.safetensors")
    return model, load_capture(tmp_path / "calls.safetensors")


def test_the_plain_export_stops_and_names_the_line_and_the_workaround(capture, tmp_path):
    model, cap = capture
    with pytest.raises(Exception) as info:
        exporter.run_export(model, cap.calls, SPEC, str(tmp_path / "p.pt2"))
    err = errors.classify(info.value)
    assert err["kind"] == "data_dependent", err["message"]
    assert err["source"]["line"] == BRANCH_LINE and err["source"]["file"] == __file__
    assert err["draft_export_available"] is HAS_DRAFT
    # A branch: torch.cond where both must serve, torch._check where one is enough.
    assert "torch.cond" in err["workaround"] and "torch._check" in err["workaround"]
    assert err["hint"] == "workaround: " + err["workaround"]


@pytest.mark.skipif(not HAS_DRAFT, reason="torch.export.draft_export is torch 2.7+")
def test_draft_export_reports_the_assumption_and_the_program_rejects_the_other_branch(capture, tmp_path, monkeypatch):
    model, cap = capture
    logs = []
    system_temp = tempfile.gettempdir()
    before = _torch_default_traces(system_temp)
    # The worker's private folder is made in a temporary folder of this test's own: other
    # processes (ctest runs entries side by side, and a killed worker cannot clean up) make
    # theirs in the system's.
    own_temp = tmp_path / "temp"
    own_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(own_temp))
    result = exporter.run_export(model, cap.calls, SPEC, str(tmp_path / "d.pt2"), draft_export=True,
                                 log=lambda text, stream=None: logs.append(text))
    # draft_export's trace file went to a private folder, removed: none left in torch's default one.
    assert _torch_default_traces(system_temp) == before
    assert _torch_default_traces(str(own_temp)) == []
    assert not glob.glob(os.path.join(str(own_temp), "dimscope-draft-trace-*"))
    assert result["draft_export"] is True
    assert [r["status"] for r in result["verification"]] == ["ok", "ok", "ok"]
    found = [e for e in result["explanations"] if e["kind"] == "assumption"]
    assert len(found) == 1, result["explanations"]
    a = found[0]
    assert (a["location"]["file"], a["location"]["line"]) == (__file__, BRANCH_LINE)
    assert a["location"]["code"] == "if seq_len > 64:  # the branch torch cannot decide"
    assert a["result"] == "False" and a["assertion"], a
    assert "runtime assertion: " + a["assertion"] in a["expression"]
    assert any("draft export: %s:%d" % (__file__, BRANCH_LINE) in line for line in logs), logs
    # The saved program serves the recorded branch and refuses the other one loudly.
    program = torch.export.load(str(tmp_path / "d.pt2"))
    x, pos = call(10)
    assert torch.equal(program.module()(x=x, position_ids=pos), x * 2.0)
    x, pos = call(10, start=100)
    with pytest.raises(RuntimeError, match="Runtime assertion failed"):
        program.module()(x=x, position_ids=pos)


@pytest.mark.skipif(not HAS_DRAFT, reason="torch.export.draft_export is torch 2.7+")
def test_a_recorded_call_on_the_other_branch_is_rejected_not_served(tmp_path):
    model = LongRope()
    rec = InputRecorder(store_n_calls=2)
    with rec(model):
        model(*call(5))
        model(*call(6, start=100))  # positions past 64: the other branch
    rec.save(tmp_path / "calls.safetensors")
    cap = load_capture(tmp_path / "calls.safetensors")
    result = exporter.run_export(model, cap.calls, SPEC, str(tmp_path / "r.pt2"), draft_export=True, call=0)
    rows = result["verification"]
    assert [r["status"] for r in rows] == ["ok", "rejected"], rows
    assert "Runtime assertion failed" in rows[1]["message"]


@pytest.mark.skipif(HAS_DRAFT, reason="this torch has torch.export.draft_export")
def test_without_draft_export_the_request_says_which_workarounds_apply(capture, tmp_path):
    model, cap = capture
    with pytest.raises(WorkerError) as info:
        exporter.run_export(model, cap.calls, SPEC, str(tmp_path / "n.pt2"), draft_export=True)
    assert "has no torch.export.draft_export (torch 2.7+)" in str(info.value)
    assert "torch._check" in str(info.value) and "torch.cond" in str(info.value)


def test_the_assumed_decision_is_the_expression_as_it_came_out():
    assert draftexport.negated("Eq(u0, 1)") == "Ne(u0, 1)"
    assert draftexport.negated("Ne(u0, s3)") == "Eq(u0, s3)"
    assert draftexport.negated("u0 > 64") == "u0 <= 64"
    assert draftexport.negated("u0 <= 64") == "u0 > 64"
    assert draftexport.negated("u0 + 1 > Max(2, s1)") == "Not(u0 + 1 > Max(2, s1))"
    assert draftexport._matching("Ne(u0, 1)", ["Ne(u0,1)", "u1 >= 0"]) == ["Ne(u0,1)"]
    assert draftexport._matching("u0 <= 64", ["u1 >= 0", "Ne(u0, 65)"]) == ["Ne(u0, 65)"]
    assert draftexport._matching("u0 <= 64", ["u1 >= 0"]) == []


def test_the_workaround_for_a_mixture_of_experts_loop_is_the_other_implementation():
    frames = [{"file": "modeling_x.py", "line": 3, "function": "forward", "code": "for expert_idx in expert_hit:"}]
    text = draftexport.workaround({"file": "modeling_x.py", "line": 4, "function": "forward",
                                   "code": "top_x = torch.where(mask)"}, frames)
    assert 'experts_implementation="batched_mm"' in text
    assert draftexport.workaround({"code": "n = int(x.sum())"}).startswith("torch._check(...)")


def test_an_experts_loop_without_other_implementations_gets_torch_check():
    """LongCat-Flash's experts loop over the experts hit and are not decorated with
    transformers' use_experts_implementation: experts_implementation changes nothing
    there, so the advice is torch._check or a batched form, naming the class."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.longcat_flash import modeling_longcat_flash as longcat
    from transformers.models.qwen3_moe import modeling_qwen3_moe as qwen3_moe

    def at(module, cls, needle):
        import inspect
        lines, start = inspect.getsourcelines(inspect.unwrap(cls.forward))
        n = next(i for i, text in enumerate(lines) if needle in text)
        return {"file": module.__file__, "line": start + n, "function": "forward", "code": lines[n].strip()}

    place = at(longcat, longcat.LongcatFlashExperts, "expert_idx_tensor.item()")
    text = draftexport.workaround(place)
    assert text.startswith("torch._check(...)") and "LongcatFlashExperts" in text
    assert "batched_mm" not in text
    # Aria's experts: a module-level loop called from AriaGroupedExpertsGemm.forward, below
    # the model's own forward: the innermost class is named.
    from transformers.models.aria import modeling_aria as aria
    frames = [at(aria, aria.AriaTextForCausalLM, "self.model("), at(aria, aria.AriaGroupedExpertsGemm, "sequential_experts_gemm(")]
    loop = inspect.getsourcelines(aria.sequential_experts_gemm)
    place = {"file": aria.__file__, "line": loop[1] + next(i for i, t in enumerate(loop[0]) if "start:end" in t),
             "function": "sequential_experts_gemm", "code": "tokens = token_states[start:end]"}
    text = draftexport.workaround(place, frames)
    assert "AriaGroupedExpertsGemm" in text and "batched_mm" not in text, text
    # Qwen3-MoE's experts offer batched_mm: the advice stays the other implementation.
    place = at(qwen3_moe, qwen3_moe.Qwen3MoeExperts, "expert_hit")
    assert 'experts_implementation="batched_mm"' in draftexport.workaround(place)


@pytest.mark.skipif(not HAS_DRAFT, reason="torch.export.draft_export is torch 2.7+")
def test_draft_export_traces_mixture_of_experts_with_batched_experts():
    """transformers' default grouped_mm experts sort the tokens by expert; with dynamic
    sizes torch 2.14's draft_export stops there (PendingUnbackedSymbolNotFound, Qwen3.5-MoE's
    vision-language prefill). While draft_export traces, the experts run transformers'
    batched_mm implementation; the model's own choice is restored after."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.Qwen3MoeConfig(vocab_size=100, hidden_size=32, intermediate_size=64, moe_intermediate_size=32,
                                      num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, num_experts=4,
                                      num_experts_per_tok=2, head_dim=16)
    torch.manual_seed(0)
    model = transformers.Qwen3MoeForCausalLM(cfg).eval()
    before = model.config._experts_implementation
    assert before != draftexport.BATCHED

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids):
            return self.model(input_ids=input_ids, use_cache=False).logits

    lines = []
    shapes = ({0: torch.export.Dim("b", min=1, max=64), 1: torch.export.Dim("s", min=2, max=64)},)
    with draftexport.batched_experts(model, lines.append):
        assert model.config._experts_implementation == draftexport.BATCHED
        program = torch.export.draft_export(Logits(), (torch.randint(0, 100, (2, 6)),), dynamic_shapes=shapes,
                                            strict=False)
    assert model.config._experts_implementation == before
    assert len(lines) == 1 and "'batched_mm' experts implementation instead of %r" % before in lines[0]
    other = torch.randint(0, 100, (3, 9))
    with torch.no_grad():
        assert torch.allclose(program.module()(other), Logits()(other), atol=1e-5)
    # A model without such experts is left as it is, and nothing is said.
    with draftexport.batched_experts(torch.nn.Linear(2, 2), lines.append):
        pass
    assert len(lines) == 1


_GENERATED = {}
exec(compile("def decide(value):\n    return 2 if value > 3 else 1\n", "<string>", "exec"), _GENERATED)


class GeneratedBranch(torch.nn.Module):
    def forward(self, x, position_ids):
        return x * _GENERATED["decide"](position_ids.max().item())  # the model's line


GENERATED_LINE = GeneratedBranch.forward.__code__.co_firstlineno + 1


def test_a_stop_inside_generated_code_names_the_models_line(tmp_path):
    """torch's message names the innermost frame, here code compiled from a string (as
    sympy's and torch's generated code are: LLaVA-NeXT's stop read '<string>:1'); the
    source is the model's own line instead."""
    model = GeneratedBranch()
    rec = InputRecorder(store_n_calls=2)
    with rec(model):
        for n in (5, 8):
            model(*call(n))
    rec.save(tmp_path / "calls.safetensors")
    with pytest.raises(Exception) as info:
        exporter.run_export(model, load_capture(tmp_path / "calls.safetensors").calls, SPEC, str(tmp_path / "g.pt2"))
    err = errors.classify(info.value)
    assert err["kind"] == "data_dependent", err["message"]
    assert (err["source"]["file"], err["source"]["line"]) == (__file__, GENERATED_LINE), err["source"]

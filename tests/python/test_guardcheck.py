# SPDX-License-Identifier: GPL-3.0-or-later
"""Guards torch cannot decide over a Dim's range (guardcheck.py): checked value by value,
and deferred to runtime checks in the program only when they hold everywhere checked."""

import inspect

import pytest
import torch

from dimscope.worker import errors, exporter, guardcheck
from dimscope.capture import InputRecorder, load_capture

SOURCE = "L['input_ids'].size()[1]"

# torch 2.11's message for the Llama prefill (seen on the device machine, issue 23).
PREFILL_MESSAGE = """Constraints violated (seq_len)! For more information, run with TORCH_LOGS="+dynamic".
  - Not all values of seq_len = L['input_ids'].size()[1] in the specified range satisfy the generated guard min(8*L['input_ids'].size()[1], 16*L['input_ids'].size()[1]) == (8*L['input_ids'].size()[1]).
  - Not all values of seq_len = L['input_ids'].size()[1] in the specified range satisfy the generated guard L['input_ids'].size()[1]*(8 + L['input_ids'].size()[1] + (-1)*(L['input_ids'].size()[1] % 8)) > 1.
Suggested fixes:
  _seq_len = Dim('_seq_len', min=1, max=oo)
  seq_len = 8*_seq_len - 3
"""


def test_torch_211s_prefill_guards_hold_on_every_size():
    found = guardcheck.deferrable(PREFILL_MESSAGE, {SOURCE: "seq_len"}, {"seq_len": (2, None)})
    assert [d["expression"] for d in found] == [
        "min(8*seq_len, 16*seq_len) == (8*seq_len)", "seq_len*(8 + seq_len + (-1)*(seq_len % 8)) > 1"]
    assert all(d["dim"] == "seq_len" for d in found)


# torch 2.11's message for LLaVA's prefill on CUDA (device machine, issue 23): the batch
# is specialized (not deferrable) beside seq_len's two guards, which hold everywhere.
MIXED_MESSAGE = PREFILL_MESSAGE.replace(
    "Constraints violated (seq_len)! For more information, run with TORCH_LOGS=\"+dynamic\".\n",
    "Constraints violated (batch, seq_len)! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
    "  - You marked batch as dynamic but your code specialized it to be a constant (2). If you're using "
    "mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with "
    "either Dim.STATIC or Dim.AUTO.\n").replace("  seq_len = 8*_seq_len - 3\n", "  batch = 2\n  seq_len = 8*_seq_len - 6\n")


def test_with_another_violation_beside_them_the_guards_fixes_are_left_out():
    ranges = {"seq_len": (2, None), "batch": (2, None)}
    assert guardcheck.deferrable(MIXED_MESSAGE, {SOURCE: "seq_len"}, ranges) is None  # the batch stands
    assert guardcheck.deferrable_dims(MIXED_MESSAGE, {SOURCE: "seq_len"}, ranges) == ["seq_len"]
    err = errors.drop_deferrable_fixes(
        {"kind": "constraint_violation", "fixes": ["_seq_len = Dim('_seq_len', min=1, max=oo)", "batch = 2",
                                                   "seq_len = 8*_seq_len - 6"]}, ["seq_len"])
    # What the fix loop applies: the batch only; seq_len stays whole for the next round.
    assert err["fixes"] == ["batch = 2"]
    assert "seq_len = 8*_seq_len - 6" in err["notes"][0] and "runtime" not in err["fixes"][0]


def test_a_dim_that_is_also_specialized_keeps_torchs_fixes():
    message = MIXED_MESSAGE.replace("You marked batch as dynamic", "You marked seq_len as dynamic")
    assert guardcheck.deferrable_dims(message, {SOURCE: "seq_len"}, {"seq_len": (2, None)}) == []
    failing = MIXED_MESSAGE.replace("> 1.", "> 100.")  # fails for small sizes: the fix stands
    assert guardcheck.deferrable_dims(failing, {SOURCE: "seq_len"}, {"seq_len": (2, None)}) == []


def test_a_range_guard_that_fails_inside_the_range_stands():
    message = ("Constraints violated (total_len)!\n  - Not all values of total_len = L['attention_mask'].size()[1] "
               "in the specified range satisfy the generated guard 3 <= L['attention_mask'].size()[1] and "
               "L['attention_mask'].size()[1] <= IntInfinity()\n")
    assert guardcheck.deferrable(message, {}, {"total_len": (2, None)}) is None
    # ...and holds when the range starts at 3.
    assert guardcheck.deferrable(message, {}, {"total_len": (3, None)}) is not None


def test_a_guard_on_two_dims_or_an_unknown_function_is_not_checked():
    two = ("Constraints violated (a)!\n  - Not all values of a = L['x'].size()[0] in the specified range satisfy "
           "the generated guard L['x'].size()[0] <= L['y'].size()[0]\n")
    assert guardcheck.deferrable(two, {"L['y'].size()[0]": "b"}, {"a": (2, None), "b": (2, None)}) is None
    odd = ("Constraints violated (a)!\n  - Not all values of a = L['x'].size()[0] in the specified range satisfy "
           "the generated guard __import__('os').system('true') == 0\n")
    assert guardcheck.deferrable(odd, {}, {"a": (2, None)}) is None


def test_a_bounded_range_is_checked_whole():
    ok, how = guardcheck.holds_everywhere("L['x'].size()[0] % 1000 != 999", {"L['x'].size()[0]": "n"}, "n", 2, 998)
    assert ok and how == "every value in [2, 998]"
    ok, why = guardcheck.holds_everywhere("L['x'].size()[0] % 1000 != 999", {"L['x'].size()[0]": "n"}, "n", 2, 999)
    assert not ok and why == "it fails at n = 999"


class Prompt(torch.nn.Module):
    """A guard torch 2.14 cannot decide either (the one transformers' attention makes)."""

    def forward(self, x):
        p = x.shape[0]
        if p * (8 + p - p % 8) > 1:
            return x * 2
        return x * 3


class Sevens(torch.nn.Module):
    """A guard that does not hold everywhere: the violation and torch's fix stand."""

    def forward(self, x):
        if x.shape[0] % 8 == 7:
            return x * 2
        return x * 3


SPEC = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [{"name": "p", "min": 2, "max": None}],
        "dynamic_shapes": {"dict": {"x": {"tensor": {"0": "p"}}}}}

needs_deferral = pytest.mark.skipif(
    "prefer_deferred_runtime_asserts_over_guards" not in inspect.signature(torch.export.export).parameters,
    reason="this torch cannot defer guards to runtime checks (torch 2.6)")


def capture_of(model, tmp_path):
    rec = InputRecorder(store_n_calls=3)
    with rec(model):
        for n in (7, 15, 23):
            model(torch.randn(n, 4))
    rec.save(tmp_path / "calls.safetensors")
    return load_capture(tmp_path / "calls.safetensors")


@needs_deferral
def test_an_undecided_guard_that_always_holds_becomes_a_check_in_the_program(tmp_path):
    model, logs = Prompt(), []
    capture = capture_of(model, tmp_path)
    result = exporter.run_export(model, capture.calls, SPEC, str(tmp_path / "p.pt2"),
                                 log=lambda text, stream=None: logs.append(text))
    assert [d["expression"] for d in result["deferred_guards"]] == ["p*p + 8*p + (-1)*p*(p % 8) > 1"]
    assert [r["status"] for r in result["verification"]] == ["ok", "ok", "ok"]
    assert any("runtime checks in the program" in line for line in logs), logs
    # The program still has the guard, as a check, and accepts sizes the fix would have refused.
    program = torch.export.load(str(tmp_path / "p.pt2"))
    assert any("_assert_scalar" in str(n.target) for n in program.graph.nodes)
    assert torch.equal(program.module()(x=torch.ones(10, 4)), torch.full((10, 4), 2.0))


def test_a_guard_that_fails_somewhere_is_still_a_violation(tmp_path):
    model = Sevens()
    capture = capture_of(model, tmp_path)
    with pytest.raises(Exception, match="Constraints violated"):
        exporter.run_export(model, capture.calls, SPEC, str(tmp_path / "s.pt2"))
    assert not (tmp_path / "s.pt2").exists()

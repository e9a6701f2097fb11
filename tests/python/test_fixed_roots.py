# SPDX-License-Identifier: GPL-3.0-or-later
"""A new root Dim torch can give one value only (fixedroots.py): torch's constraint
violation with the fix ``seq_len = 5`` instead of torch's own AssertionError, and the fix
loop serving every call (DeepSeek-V4's prefill, issue 20)."""

import json

import pytest
import torch

from conftest import CLI, cli, model_file, record
from dimscope.worker import fixedroots, varkeyword

# A compressor of windows of 4 (DeepSeek-V4's): a length of 1 more than a multiple of 4
# and under 8 takes one path. torch suggests seq_len = 4*_seq_len + 1 on a new root
# whose range [1, 1] has one value.
SOURCE = '''
import torch


class Compressor(torch.nn.Module):
    def forward(self, x):
        n = x.shape[1]
        if n // 4 == 0:  # a window of less than 4: nothing to compress
            return x - 1
        if n % 4 == 1 and n < 8:
            return x * 2
        return x + 1


def make():
    return Compressor()
'''


def _export_error(model, x, low):
    spec = {"x": {1: torch.export.Dim("seq_len", min=low, max=126)}}
    try:
        varkeyword.export(model, (x,), {}, spec, False)
    except Exception as e:  # noqa: BLE001 - the test reads it
        return e
    return None


def test_torch_states_the_single_value_as_its_fix(tmp_path):
    model = model_file(tmp_path / "compressor.py", SOURCE)["make"]()
    error = _export_error(model, torch.randn(2, 5), 4)
    assert error is not None and not isinstance(error, AssertionError), repr(error)
    assert "seq_len = 5" in str(error), str(error)
    # Outside the context, as dimscope restores it, torch's own method runs again.
    from torch.fx.experimental.symbolic_shapes import DimConstraints
    with fixedroots.fixed_roots():
        assert DimConstraints._process_derived_dim_roots.__name__ == "process"
    assert DimConstraints._process_derived_dim_roots.__name__ == "_process_derived_dim_roots"


def test_without_it_torch_fails_on_its_own_message(tmp_path):
    """Why fixedroots exists: the same export through torch alone."""
    model = model_file(tmp_path / "compressor.py", SOURCE)["make"]()
    spec = {"x": {1: torch.export.Dim("seq_len", min=4, max=126)}}
    with pytest.raises(Exception) as caught:
        torch.export.export(model, (torch.randn(2, 5),), dynamic_shapes=spec)
    if not isinstance(caught.value, AssertionError):
        pytest.skip("this torch (%s) writes the fix itself: %s" % (torch.__version__, str(caught.value)[-200:]))
    assert "Cannot create Dim with inconsistent" in str(caught.value)


def test_several_values_are_left_to_torch():
    import sympy

    root = sympy.Symbol("_seq_len", integer=True)
    results = {"seq_len": {"eq": 4 * root + 1, "min": 5, "max": 126}, "batch": {"min": 2}}
    fixedroots.specialize_single_valued(results, {"seq_len": None, "batch": None})
    assert results["seq_len"] == {"eq": 4 * root + 1, "min": 5, "max": 126}
    results = {"seq_len": {"eq": 4 * root - 3, "min": 4, "max": 7}}
    fixedroots.specialize_single_valued(results, {"seq_len": None})
    assert results == {"seq_len": {"eq": 5}}
    from torch.utils._sympy.numbers import int_oo
    results = {"seq_len": {"eq": 4 * root + 1, "min": 5, "max": int_oo}}
    fixedroots.specialize_single_valued(results, {"seq_len": None})
    assert results["seq_len"]["eq"] == 4 * root + 1


@pytest.mark.skipif(not CLI, reason="DIMSCOPE_CLI is not set (ctest sets it)")
def test_the_fix_loop_serves_both_lengths(tmp_path):
    """Lengths 5 and 9: the program for 5 is specialized by torch's fix, the call of
    length 9 gets a phase of its own; every call is served."""
    model = model_file(tmp_path / "compressor.py", SOURCE)["make"]()
    capture = record(model, [(torch.randn(2, 5),), (torch.randn(2, 9),), (torch.randn(3, 5),)],
                     tmp_path / "capture.safetensors")
    report = tmp_path / "export.json"
    done = cli("export", "--model", "%s:make" % (tmp_path / "compressor.py"), "--capture", capture, "--fix-loop",
               "--no-continuation", "--no-probe", "--json", report, "-o", tmp_path / "m.pt2")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    assert "Cannot create Dim" not in done.stdout + done.stderr
    served = sorted(c for p in json.loads(report.read_text())["programs"] for c in p["calls"])
    assert served == [0, 1, 2], done.stdout[-4000:]
    assert "applied: x_dim1 = 5" in done.stdout, done.stdout[-4000:]

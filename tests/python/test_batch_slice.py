# SPDX-License-Identifier: GPL-3.0-or-later
"""The batch-1 slice verification adds to an export (issue 27 item 3): which Dim is the
batch, and row 0 of a batched call through the program and the eager model. In
process, on modules of a few lines: seconds."""

import pytest

torch = pytest.importorskip("torch")

from dimscope.worker import batchslice, exporter  # noqa: E402
from dimscope.worker import spec as speclib  # noqa: E402


def doc(dims, shapes):
    return {"format": "dimscope.dynamic_shapes", "version": 1, "dims": dims,
            "dynamic_shapes": {"dict": shapes}}


XY = {"x": {"tensor": {"0": "batch", "1": "seq"}}, "mask": {"tensor": {"0": "batch"}}}


@pytest.mark.parametrize("dims,shapes,name,why", [
    ([{"name": "batch", "min": 1}, {"name": "seq", "min": 2}], XY, "batch", None),
    ([{"name": "rows", "min": None}, {"name": "seq", "min": 2}],
     {"x": {"tensor": {"0": "rows", "1": "seq"}}}, "rows", None),
    ([{"name": "batch", "min": 2}, {"name": "seq", "min": 2}], XY, None, "batch is declared from 2"),
    ([{"name": "seq", "min": 2}], {"x": {"tensor": {"1": "seq"}}}, None, "no batch Dim"),
    ([{"name": "n", "min": 1}, {"name": "seq", "min": 2}],
     {"x": {"tensor": {"0": "n", "1": "seq"}}, "mask": {"tensor": {"1": "n"}}}, None, "no batch Dim"),
    ([{"name": "n", "min": 1}, {"name": "n2", "root": "n", "a": 2}],
     {"x": {"tensor": {"0": "n"}}, "y": {"tensor": {"0": "n2"}}}, None, "no batch Dim"),
    ([{"name": "a", "min": 1}, {"name": "b", "min": 1}],
     {"x": {"tensor": {"0": "a"}}, "y": {"tensor": {"0": "b"}}}, None, "Dims a, b each size only dim 0"),
    ([{"name": "a", "min": 1}, {"name": "batch", "min": 1}],
     {"x": {"tensor": {"0": "a"}}, "y": {"tensor": {"0": "batch"}}}, "batch", None),
])
def test_the_batch_dim_sizes_only_dim_0_and_is_declared_from_1(dims, shapes, name, why):
    found, reason = batchslice.batch_dim(doc(dims, shapes))
    assert found == name
    assert (reason is None) if why is None else (why in reason), reason


class Branchy(torch.nn.Module):
    """Right at batch 1 only in eager mode: torch traces `batch == 1` as false."""

    def forward(self, x, mask):
        if x.shape[0] == 1:
            return x * 3 + mask[:, None]
        return x * 2 + mask[:, None]


class Plain(torch.nn.Module):
    def forward(self, x, mask):
        return x * 2 + mask[:, None]


def slice_check(model, min_batch=1):
    # A max: torch 2.6 guards `mask[:, None]` on an unbounded batch (`!= 2**63 - 1`).
    spec_doc = doc([{"name": "batch", "min": min_batch, "max": 64}, {"name": "seq", "min": 2}], XY)
    kwargs = {"x": torch.arange(12.0).reshape(3, 4), "mask": torch.tensor([1.0, 0.0, 1.0])}
    shapes = exporter.with_constants(speclib.load_dynamic_shapes(spec_doc), kwargs)
    program = torch.export.export(model, (), kwargs=kwargs, dynamic_shapes=shapes, strict=False)
    lows = sorted(int(r.lower) for r in program.range_constraints.values())
    logs = []
    row = batchslice.check(model, program.module(), 7, spec_doc, shapes, kwargs, (), kwargs,
                           exporter.compare_outputs, exporter._guards_suppressed,
                           lambda text, stream="log": logs.append((stream, text)))
    return row, lows, logs


def test_a_program_right_at_batch_1_is_verified_on_row_0():
    row, lows, logs = slice_check(Plain())
    assert lows == [1, 2]  # torch takes batch from 1 and says so
    assert row["status"] == "ok" and row["call"] == 7 and row["dim"] == "batch", row
    assert row["outputs"] and all(o["ok"] for o in row["outputs"])
    assert logs == [("log", "batch-1 slice of call 7 (row 0 of every input batched on batch; synthesized, not a "
                             "recorded call): the program agrees with the eager model")]


def test_a_program_wrong_at_batch_1_is_a_mismatch_with_a_warning():
    row, lows, logs = slice_check(Branchy())
    assert row["status"] == "mismatch", row
    assert [s for s, _ in logs] == ["warning"]
    assert "declares batch from 1 but does not serve batch 1 correctly: declare batch from 2" in logs[0][1]


def test_a_batch_declared_from_2_is_not_sliced():
    row, lows, logs = slice_check(Plain(), min_batch=2)
    assert lows == [2, 2] and row["status"] == "skipped" and "declared from 2" in row["message"]

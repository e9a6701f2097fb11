# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope.worker.spec: the dynamic_shapes document -> torch.export structure."""

import pytest
import torch
from torch.export import Dim

from dimscope.worker.spec import SpecError, StructureMismatch, load_dynamic_shapes, walk


def doc(dims, shapes):
    return {"format": "dimscope.dynamic_shapes", "version": 1, "dims": dims, "dynamic_shapes": {"dict": shapes}}


def test_roots_derived_and_hints():
    d = doc([{"name": "batch", "min": 2, "max": 64}, {"name": "past", "min": None, "max": None},
             {"name": "total", "root": "past", "a": 1, "b": 1}, {"name": "dbl", "root": "batch", "a": 2, "b": 0}],
            {"x": {"tensor": {"0": "batch", "1": "total"}},
             "cache": {"list": [{"list": [{"tensor": {"0": "batch", "2": "past"}}]}, {"tuple": [{"tensor": {}}]}]},
             "flag": None,
             "y": {"tensor": {"0": "dbl", "1": "auto", "2": "dynamic"}}})
    s = load_dynamic_shapes(d)
    assert set(s) == {"x", "cache", "flag", "y"}
    batch = s["x"][0]
    assert batch.__name__ == "batch" and batch.min == 2 and batch.max == 64
    # each root Dim is created once: every use is the same object
    assert s["cache"][0][0][0] is batch
    assert isinstance(s["cache"], list) and isinstance(s["cache"][1], tuple)
    assert s["cache"][1][0] == {}
    assert s["flag"] is None
    assert s["y"][1] is Dim.AUTO and s["y"][2] is Dim.DYNAMIC
    # derived dims are real torch derived dims: a*root + b
    assert s["x"][1].root is s["cache"][0][0][2] and s["x"][1].fn(5) == 6
    assert s["y"][0].fn(3) == 6


def test_derived_dims_export():
    class M(torch.nn.Module):
        def forward(self, x, y):
            return x[1:] + y

    d = doc([{"name": "n", "min": 2, "max": 100}, {"name": "n1", "root": "n", "a": 1, "b": 1}],
            {"x": {"tensor": {"0": "n1"}}, "y": {"tensor": {"0": "n"}}})
    ep = torch.export.export(M(), (), {"x": torch.randn(6), "y": torch.randn(5)},
                             dynamic_shapes=load_dynamic_shapes(d), strict=False)
    assert ep.module()(x=torch.randn(9), y=torch.randn(8)).shape == (8,)


@pytest.mark.parametrize("bad, where", [
    ({"format": "x", "version": 1, "dynamic_shapes": {"dict": {}}}, "format"),
    ({"format": "dimscope.dynamic_shapes", "version": 7, "dynamic_shapes": {"dict": {}}}, "version"),
    (doc([{"name": "b", "min": 5, "max": 2}], {}), "dims[0]"),
    (doc([{"name": "for"}], {}), "dims[0].name"),
    (doc([{"name": "d", "root": "nope", "a": 1, "b": 0}], {}), "dims[0].root"),
    (doc([{"name": "d", "root": "r", "a": 0, "b": 0}, {"name": "r"}], {}), "dims[0].a"),
    (doc([], {"x": {"tensor": {"0": "ghost"}}}), "dynamic_shapes['x'].tensor['0']"),
    (doc([], {"x": {"tensor": {"a": "auto"}}}), "dynamic_shapes['x'].tensor['a']"),
    (doc([], {"x": {"set": []}}), "dynamic_shapes['x']"),
    (doc([], {"x": {"list": [{"tensor": {"0": 3}}]}}), "dynamic_shapes['x'][0].tensor['0']"),
])
def test_bad_documents_name_the_place(bad, where):
    with pytest.raises(SpecError) as e:
        load_dynamic_shapes(bad)
    assert str(e.value).startswith(where), str(e.value)


def test_walk_reports_structure_mismatch_with_path():
    s = load_dynamic_shapes(doc([{"name": "b"}], {"x": {"tensor": {"0": "b"}},
                                                  "ys": {"list": [{"tensor": {"0": "b"}}]}}))
    inputs = {"x": torch.zeros(3, 2), "ys": [torch.zeros(3), torch.zeros(3)]}
    with pytest.raises(StructureMismatch) as e:
        list(walk(s, inputs))
    assert e.value.path == "ys" and "2 children" in str(e.value)
    inputs["ys"] = [torch.zeros(3)]
    found = list(walk(s, inputs))
    assert [(p, dict(d)) for p, _, d in found] == [("x", {0: s["x"][0]}), ("ys[0]", {0: s["x"][0]})]
    with pytest.raises(StructureMismatch) as e:
        list(walk(s, {"x": torch.zeros(3), "zz": []}))
    assert "keys" in str(e.value)

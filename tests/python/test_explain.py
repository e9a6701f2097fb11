# SPDX-License-Identifier: GPL-3.0-or-later
"""dimscope.worker.explain: torch's sources mapped to capture key paths and Dim names, events
turned into explanations, and the worker's export carrying them (both runtimes)."""

import collections
import traceback

import pytest
import torch

from dimscope.worker import explain
from dimscope.worker.explain import Explainer, LeafMap, build_explanations


def test_sources_of_every_form_map_to_key_paths_and_dim_names():
    x, a0, p = torch.zeros(2, 3), torch.zeros(4), torch.zeros(1, 2, 5)
    inputs = {"x": x, "past": {"layers": [p]}, "pair": (a0,)}
    b, s = torch.export.Dim("batch"), torch.export.Dim("seq_len")
    shapes = {"x": {0: b, 1: s}, "past": {"layers": [{2: torch.export.Dim("past_len")}]}, "pair": None}
    m = LeafMap.build((), inputs, shapes, inputs)
    assert m.lookup("L['args'][1]['x'].size()[1]") == {"source": "L['args'][1]['x'].size()[1]", "path": "x",
                                                       "dim": 1, "dim_name": "seq_len"}
    assert m.lookup("L['x'].size()[0]")["dim_name"] == "batch"
    assert m.lookup("L['kwargs']['past']['layers'][0].size()[2]")["path"] == "past['layers'][0]"
    assert m.lookup("L['past']['layers'][0].size()[2]")["dim_name"] == "past_len"
    assert m.lookup("L['pair'][0].size()[0]") == {"source": "L['pair'][0].size()[0]", "path": "pair[0]", "dim": 0,
                                                  "dim_name": None}
    assert m.lookup("L['x']._base.size()[0]") is None  # a view's base is no input leaf
    # positional arguments: torch 2.6 writes L['args'][0][i]
    pos = LeafMap.build((x,), {}, None, None, positional_names=["ids"])
    assert pos.lookup("L['args'][0][0].size()[1]")["path"] == "ids"
    assert pos.lookup("L['ids'].size()[1]")["path"] == "ids"


def test_strict_exports_flat_argument_sources():
    # torch 2.14 strict: L['flat_args'][i], i among the flattened (args, kwargs) leaves
    x, y = torch.zeros(2), torch.zeros(3)
    m = LeafMap.build((), {"x": x, "n": 3, "y": y})
    assert m.lookup("L['flat_args'][2].size()[0]")["path"] == "y"
    assert m.lookup("L['flat_args'][0].size()[0]")["path"] == "x"


def test_custom_classes_use_dot_keys_like_the_capture():
    Pair = collections.namedtuple("Pair", "keys values")
    k, v = torch.zeros(2), torch.zeros(3)
    m = LeafMap.build((), {"cache": Pair(k, v)})
    assert m.lookup("L['kwargs']['cache'].values.size()[0]")["path"] == "cache.values"


def _stack(path, line, function, code):
    return [traceback.FrameSummary(path, line, function, line=code)]


def test_events_become_explanations_in_dim_names(tmp_path):
    model = str(tmp_path / "m.py")
    x, y, z = torch.zeros(2, 4), torch.zeros(8), torch.zeros(4)
    seq_len = torch.export.Dim("seq_len")
    inputs = {"x": x, "y": y, "z": z}
    leaves = LeafMap.build((), inputs, {"x": {1: seq_len}, "y": {0: torch.export.Dim("n")}, "z": {0: seq_len}}, inputs)
    events = [
        ("create_symbol", {"symbol": "s1", "source": "L['x'].size()[1]"}, None),
        ("create_symbol", {"symbol": "s2", "source": "L['y'].size()[0]"}, None),
        ("create_symbol", {"symbol": "s3", "source": "L['z'].size()[0]"}, None),
        # two leaves of one Dim tied: what the spec says already, left out
        ("guard_added_fast", {"expr": "Eq(s1, s3)"}, _stack(model, 5, "forward", "x[0] + z")),
        ("guard_added", {"expr": "Eq(s1, 4)", "symbol_to_sources": {"s1": "L['x'].size()[1]"}},
         _stack(model, 6, "forward", "if x.shape[1] == 4:")),
        ("symbolic_shape_specialization", {"symbol": "s1", "sources": ["L['x'].size()[1]"], "value": "4",
                                           "reason": "range_refined_to_singleton"},
         _stack(model, 6, "forward", "if x.shape[1] == 4:")),
        ("guard_added", {"expr": "s2 <= 16"}, _stack(model, 8, "forward", "if y.shape[0] > 16:")),
        ("guard_added", {"expr": "Eq(s1, s2)"}, _stack(model, 9, "forward", "x + y")),
        ("guard_added", {"expr": "Ne(s2, 1)"}, _stack(model, 10, "forward", "y.view(-1)")),
        ("guard_added", {"expr": "Eq(u0, 1)"}, _stack(model, 11, "forward", "x.item()")),  # data-dependent: left out
        ("guard_added", {"expr": "s2 >= 2"}, None),  # no model line: torch's input check, left out
    ]
    got = [(e["kind"], e["expression"], e["location"] and e["location"]["line"])
           for e in build_explanations(events, leaves)]
    assert got == [("specialized", "seq_len == 4", 6), ("range_narrowed", "n <= 16", 8),
                   ("equality", "seq_len == n", 9), ("guard", "n != 1", 10)]


def test_explainer_leaves_torch_logging_as_it_was():
    import logging

    import torch._logging._internal as internal

    logger = logging.getLogger("torch.__trace")
    handlers, flag = list(logger.handlers), internal.GET_DTRACE_STRUCTURED
    with Explainer() as ex:
        # guard_added_fast is enough: the detailed trace slows transformers exports down
        assert ex.active and internal.GET_DTRACE_STRUCTURED == flag
    with Explainer(detailed=True):
        assert internal.GET_DTRACE_STRUCTURED
    assert logger.handlers == handlers and internal.GET_DTRACE_STRUCTURED == flag


def test_an_odd_torch_gives_no_explanations_and_no_failure(monkeypatch):
    monkeypatch.setattr(explain.logging, "getLogger", lambda name=None: 1 / 0)
    with Explainer() as ex:
        pass
    assert not ex.active and "not available" in ex.note
    monkeypatch.undo()
    monkeypatch.setattr(explain, "build_explanations", lambda *a: 1 / 0)
    lines = []
    ex.log = lines.append
    assert ex.explanations() == [] and "ZeroDivisionError" in lines[0]

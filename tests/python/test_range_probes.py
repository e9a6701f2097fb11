# SPDX-License-Identifier: GPL-3.0-or-later
"""Range probes (issue 24 item 3): synthesized calls across each Dim's declared range,
made from the recorded calls, run through the program and the eager model. In process:
a module of a few lines whose `if` on a size cuts the range it declares (built on
purpose), one that serves its whole range, and the demo model with its cache, whose
shared and derived sizes must move together. The CLI's lines and --json are checked on
the tiny Llama's --fix-loop export (test_cli_record.py)."""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("dimscope.capture")

from conftest import record  # noqa: E402
from dimscope import capture as capturelib  # noqa: E402
from dimscope.worker import exporter, probes  # noqa: E402
from dimscope.worker import spec as speclib  # noqa: E402

TORCH = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


@pytest.mark.parametrize("lower,upper,recorded,cap,expected", [
    (1, None, [3, 5], 20, [1, 2, 4, 6, 20]),          # min, min+1, between 3 and 5, past 5, the cap
    (2, 64, [4], 16, [2, 3, 5, 64]),                  # a declared max is the top, not the cap
    (0, None, [0, 5, 6, 7, 8, 11], 44, [1, 2, 12, 44]),  # recorded sizes are verification's, not probed
    (1, 6, [6], 24, [1, 2]),                          # nothing past the declared max
])
def test_the_sizes_probed_per_dim(lower, upper, recorded, cap, expected):
    assert probes.targets(lower, upper, recorded, cap) == expected


class SkipsFive(torch.nn.Module):
    """Another result at length 5 than at every other length: torch traces the branch of
    the example (4), so the program's guard (torch >= 2.7: `x.size()[1] != 5`) or its
    other branch (torch 2.6, which keeps no such guard) cuts the range [2, oo] it declares."""

    def forward(self, x):
        if x.shape[1] == 5:
            return x * 3
        return x * 2


class Doubles(torch.nn.Module):
    def forward(self, x):
        return x * 2


def _probe(tmp_path, model, lengths=(4,)):
    path = record(model, [(torch.randn(3, n),) for n in lengths], tmp_path / "cap.safetensors", no_grad=True)
    calls = capturelib.load_capture(str(path), device="cpu").calls
    args, kwargs = exporter.call_arguments(calls[0])
    # Dim.AUTO: torch declares what it traced ([2, oo]) instead of failing on the branch.
    program = torch.export.export(model, args, kwargs, dynamic_shapes={"x": {1: torch.export.Dim.AUTO}}, strict=False)
    spec_doc = {"format": "dimscope.dynamic_shapes", "version": 1, "dims": [{"name": "seq", "min": 2, "max": None}],
                "dynamic_shapes": {"dict": {"x": {"tensor": {"1": "seq"}}}}}
    shapes = speclib.load_dynamic_shapes(spec_doc)
    lines = []
    result = probes.probe(model, program, calls, list(range(len(calls))), shapes,
                          log=lambda text, stream="worker": lines.append((stream, text)))
    return result, lines


def test_a_guard_inside_the_declared_range_is_reported_with_its_text(tmp_path):
    result, lines = _probe(tmp_path, SkipsFive())
    dim, = result["dims"]
    assert (dim["dim"], dim["declared"], dim["recorded"]) == ("seq", [2, None], [4]), dim
    assert dim["probed"] == [2, 3, 5, 16] and dim["cap_source"] == "4x the largest recorded, 4", dim
    five, = [r for r in result["probes"] if r["value"] == 5]
    if TORCH >= (2, 7):
        assert five["status"] == "rejected" and five["guard"] == "x.size()[1] != 5", five
        assert dim["rejected"] == [5] and dim["served"] == [2, 3, 16], dim
        assert lines[-1] == ("warning", "range probes: seq (declared 2..oo): 2..16 served (cap 16: 4x the largest "
                                        "recorded, 4); 5 rejected (x.size()[1] != 5)"), lines
    else:  # the program runs 5 on the traced branch: twice x where the model gives three times
        assert five["status"] == "mismatch" and five["max_abs"] > 0.1, five
        assert dim["wrong"] == [5] and "5 WRONG (the program accepts it" in lines[-1][1], lines
    assert all(r["call"] == 0 for r in result["probes"])


@pytest.mark.skipif(TORCH < (2, 7), reason="torch 2.6 keeps no guard that rejects length 5")
def test_a_call_of_several_dims_that_is_rejected_is_probed_again_per_dim(tmp_path):
    """Two Dims probed in shared calls: the call holding length 5 is rejected, and each
    of its sizes is probed again alone, so the rejection names the length, not the
    batch size that shared the call; the calls served count for every Dim in them."""
    model = SkipsFive()
    path = record(model, [(torch.randn(3, 4),)], tmp_path / "cap.safetensors", no_grad=True)
    calls = capturelib.load_capture(str(path), device="cpu").calls
    args, kwargs = exporter.call_arguments(calls[0])
    auto = torch.export.Dim.AUTO
    program = torch.export.export(model, args, kwargs, dynamic_shapes={"x": {0: auto, 1: auto}}, strict=False)
    result = probes.probe(model, program, calls, [0], None)
    rows = {(r["dim"], r["value"]): r for r in result["probes"]}
    dims = {d["symbol"]: d for d in result["dims"]}
    assert len(dims) == 2, dims
    seq = next(d for d in dims.values() if d["where"] == "x.size()[1]")
    batch = next(d for d in dims.values() if d["where"] == "x.size()[0]")
    assert seq["rejected"] == [5] and batch["rejected"] == [] and batch["served"] == batch["probed"], (seq, batch)
    five = rows[(seq["dim"], 5)]
    assert five["status"] == "rejected" and five["guard"] == "x.size()[1] != 5" and "with" not in five, five
    # every other size was served in a call with the other Dim moved too: fewer calls than sizes
    assert all(r["with"] for r in result["probes"] if r["status"] == "served"), result["probes"]
    sizes = len(seq["probed"]) + len(batch["probed"])
    assert result["runs"] < sizes + 2, (result["runs"], sizes)


def test_a_program_that_serves_its_range_is_served_at_every_probe(tmp_path):
    result, lines = _probe(tmp_path, Doubles(), lengths=(4, 9))
    dim, = result["dims"]
    assert dim["probed"] == [2, 3, 6, 10, 36] and dim["served"] == dim["probed"], dim
    assert {r["status"] for r in result["probes"]} == {"served"}
    assert all(r["max_abs"] < 1e-6 for r in result["probes"])
    assert lines == [("worker", "range probes: seq (declared 2..oo): 2..36 served (cap 36: 4x the largest recorded, "
                                "9)")], lines


class DoublesWithPositions(Doubles):
    """A model whose config says how many positions it takes, as transformers' do."""

    def __init__(self):
        super().__init__()
        import types

        self.config = types.SimpleNamespace(max_position_embeddings=64)


def test_max_position_embeddings_caps_the_lengths_and_the_batch_goes_to_4x_its_largest(tmp_path):
    """issue 24: the config's max_position_embeddings caps Dims that index positions; the
    batch (dim 0 of every input it sizes) has nothing to do with positions and is probed
    up to 4x its largest recorded size, and each line says which cap applied."""
    model = DoublesWithPositions()
    path = record(model, [(torch.randn(3, 4),)], tmp_path / "cap.safetensors", no_grad=True)
    calls = capturelib.load_capture(str(path), device="cpu").calls
    args, kwargs = exporter.call_arguments(calls[0])
    auto = torch.export.Dim.AUTO
    program = torch.export.export(model, args, kwargs, dynamic_shapes={"x": {0: auto, 1: auto}}, strict=False)
    lines = []
    result = probes.probe(model, program, calls, [0], None, log=lambda text, stream="worker": lines.append(text))
    dims = {d["where"]: d for d in result["dims"]}
    batch, seq = dims["x.size()[0]"], dims["x.size()[1]"]
    assert (batch["cap"], batch["cap_source"], batch.get("batch_like")) == (12, "4x the largest recorded, 3", True)
    assert (seq["cap"], seq["cap_source"], seq.get("batch_like")) == (64, "config.max_position_embeddings", None)
    assert max(batch["probed"]) == 12 and max(seq["probed"]) == 64, (batch, seq)
    assert {r["status"] for r in result["probes"]} == {"served"}, result["probes"]
    assert lines == ["range probes: %s (declared 2..oo): 2..12 served (cap 12: 4x the largest recorded, 3)"
                     % batch["dim"], "range probes: %s (declared 2..oo): 2..64 served (cap 64: "
                     "config.max_position_embeddings)" % seq["dim"]], lines
    # --probe-cap overrides both
    capped = probes.probe(model, program, calls, [0], None, cap=6)
    assert {(d["cap"], d["cap_source"]) for d in capped["dims"]} == {(6, "the request's probe_cap")}, capped["dims"]


def test_a_probe_expected_to_end_past_the_time_budget_is_not_run_and_said_so(tmp_path):
    """issue 29: probing a 0.5B model up to its 32,768 positions took longer than the
    export. A probe whose estimate (a verified call's time, scaled by its inputs'
    elements) ends past the budget is not run; the smaller sizes are probed first and
    the line says which sizes were not probed and why."""
    model = DoublesWithPositions()
    path = record(model, [(torch.randn(3, 4),)], tmp_path / "cap.safetensors", no_grad=True)
    calls = capturelib.load_capture(str(path), device="cpu").calls
    args, kwargs = exporter.call_arguments(calls[0])
    program = torch.export.export(model, args, kwargs, dynamic_shapes={"x": {1: torch.export.Dim.AUTO}},
                                  strict=False)
    lines = []
    # 30 s of budget; a probe of the recorded call's size is expected to take 1 s: 64
    # positions (16x the recorded 4) would take about 16 s, which fits; at 2 s a probe of
    # the recorded size, 64 positions would take 32 s, which does not.
    result = probes.probe(model, program, calls, [0], None, time_budget=(30.0, 1.0),
                          log=lambda text, stream="worker": lines.append(text))
    dim, = result["dims"]
    assert dim["served"] == [2, 3, 5, 64] and result["over_budget"] == 0 and result["runs"] == 4, result
    result = probes.probe(model, program, calls, [0], None, time_budget=(30.0, 2.0),
                          log=lambda text, stream="worker": lines.append(text))
    dim, = result["dims"]
    assert dim["served"] == [2, 3, 5] and dim["unverified"] == [64], result  # 64 never ran
    assert result["over_budget"] == 1 and result["runs"] == 3 and result["budget_seconds"] == 30.0, result
    assert lines[-1] == ("range probes: %s (declared 2..oo): 2..5 served (cap 64: config.max_position_embeddings); "
                         "64 not probed (about 32 s to run (16x a verified call's inputs), past the probe budget "
                         "(30 s: 3x verification, at least 10 s))" % dim["dim"]), lines
    # A budget spent before probing began: the sizes no larger than the recorded call
    # (the min, min + 1: torch's 0/1 boundary) are probed all the same, the larger not.
    result = probes.probe(model, program, calls, [0], None, time_budget=(0.0, 100.0))
    dim, = result["dims"]
    assert dim["served"] == [2, 3] and dim["unverified"] == [5, 64] and result["over_budget"] == 2, result
    # 3x verification, at least 10 s; a probe of a verified call's size runs the program
    # and the eager model once each
    assert probes.budget(2.0, 4) == (10.0, 1.0) and probes.budget(40.0, 4) == (120.0, 20.0)


def _demo_exported(tmp_path):
    """The demo recorded, its model, and the spec of its three Dims exported to
    demo.pt2 and loaded back: (capture, model, spec document, export result, program)."""
    from dimscope import caches, demo

    path = tmp_path / "demo.safetensors"
    demo.record_demo_capture(str(path))
    cap = capturelib.load_capture(str(path), device="cpu")
    caches.register_capture_flattening(cap.manifest)
    model = demo.make_model().eval()
    spec_doc = {"format": "dimscope.dynamic_shapes", "version": 1,
                "dims": [{"name": "seq_len", "min": 1, "max": None}, {"name": "total_len", "min": 2, "max": None},
                         {"name": "past_len", "min": 0, "max": None}],
                "dynamic_shapes": {"dict": {
                    "input_ids": {"tensor": {"1": "seq_len"}}, "attention_mask": {"tensor": {"1": "total_len"}},
                    "past_key_values": {"list": [{"list": [{"tensor": {"2": "past_len"}}] * 2}] * 2}}}}
    result = exporter.run_export(model, cap.calls, spec_doc, str(tmp_path / "demo.pt2"), verify_calls=False)
    import dimscope

    return cap, model, spec_doc, result, dimscope.load_program(str(tmp_path / "demo.pt2"))


def test_the_demo_moves_shared_and_derived_sizes_together(tmp_path):
    """The demo's cache length is one Dim over 4 cache tensors and the mask's length is
    seq_len + past_len in the program: a probe of past_len resizes all of them, and the
    eager model agrees with the program on every probe (its learned positions stop at 64:
    the probes stay below)."""
    cap, model, spec_doc, result, program = _demo_exported(tmp_path)
    assert result["example_call"] == 4
    got = probes.probe(model, program, cap.calls, list(range(len(cap.calls))), speclib.load_dynamic_shapes(spec_doc))
    dims = {d["dim"]: d for d in got["dims"]}
    # total_len is seq_len + past_len in the program: not probed on its own, moved with them
    assert sorted(dims) == ["past_len", "seq_len"], dims
    assert dims["past_len"]["recorded"] == [0, 5, 6, 7, 8, 11] and dims["past_len"]["probed"] == [1, 2, 12, 44]
    assert dims["seq_len"]["recorded"] == [1, 3, 5] and dims["seq_len"]["probed"] == [2, 4, 6, 20]
    assert {r["status"] for r in got["probes"]} == {"served"}, [r for r in got["probes"] if r["status"] != "served"]
    # 4 calls for 8 sizes, each Dim's top (20, 44) beside the other Dim's smallest size (1, 2)
    tops = {r["dim"]: r["with"] for r in got["probes"] if r["value"] in (20, 44)}
    assert tops == {"seq_len": {"past_len": 1}, "past_len": {"seq_len": 2}}, tops
    assert got["runs"] == 4 and all(set(r["with"]) == set(dims) - {r["dim"]} for r in got["probes"]), got
    assert dims["past_len"]["where"] == "past_key_values['key_cache'][0].size()[2]", dims["past_len"]


def _peak_rss_reset():
    """Resets this process's peak resident size (VmHWM); False where the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def test_a_probe_too_large_to_run_is_refused_before_its_inputs_are_made(tmp_path):
    """issue 29: a 0.5B model's cache at its 32,768-position cap is 1.6 GB; probing made
    it (a third of the export's probing time) only to refuse it for its size. The size of
    a probe's inputs is computed from the program's shapes first (resized_shapes,
    moved_elements), and equals what the made call holds."""
    from dimscope.worker import resizedcalls

    cap, model, spec_doc, _result, program = _demo_exported(tmp_path)
    call = cap.calls[4]
    inputs = resizedcalls.user_inputs(program, call)
    values = resizedcalls.symbol_values(inputs)
    elements = probes._elements(exporter.call_arguments(call))
    for moves in ({}, {s: values[s] + 3 for s in values}, {s: 1 for s in values}):
        sizes = {**values, **moves}
        shapes = resizedcalls.resized_shapes(inputs, sizes)
        made = resizedcalls.moved_call(program, call, inputs, sizes)
        assert resizedcalls.moved_elements(inputs, shapes, elements) == probes._elements(made), sizes
    # The cap puts past_len at 10^7: the cache alone would hold gigabytes.
    measured = _peak_rss_reset()
    before = _peak_rss_kb()
    got = probes.probe(model, program, cap.calls, list(range(len(cap.calls))),
                       speclib.load_dynamic_shapes(spec_doc), cap=10 ** 7)
    top = [r for r in got["probes"] if r["value"] == 10 ** 7]
    assert top and all(r["status"] == "skipped" and "would hold more than 16777216 elements" in r["message"]
                       for r in top), top
    if measured:
        assert _peak_rss_kb() - before < 256 * 1024, (before, _peak_rss_kb())


class _Guards:
    """What proberelations reads of a program: torch 2.14's guard texts (`_guards_code`),
    here the tiny Llama continuation program's."""

    _guards_code = [
        "L['past_key_values']['key_cache'][0].size()[2] + L['input_ids'].size()[1] + "
        "((-1)*L['attention_mask'].size()[1]) <= 0",
        "L['attention_mask'].size()[1] <= L['past_key_values']['key_cache'][0].size()[2] + L['input_ids'].size()[1]",
        "(L['past_key_values']['key_cache'][0].size()[2] + L['input_ids'].size()[1]) == "
        "(L['past_key_values']['key_cache'][1].size()[2] + L['input_ids'].size()[1])",
        "L['input_ids'].size()[0] == L['input_ids'].size()[0]",
        "__import__('os').system('touch /tmp/dimscope-probe-ran') == 0",  # read, never run
    ]


def test_the_sizes_a_guard_ties_move_together():
    import os

    import sympy
    from dimscope.worker import proberelations

    seq, mask, past0, past1 = sympy.symbols("s70 s53 s11 s60", integer=True, positive=True)
    sources = {("L['input_ids']", 1): seq, ("L['attention_mask']", 1): mask,
               ("L['past_key_values']['key_cache'][0]", 2): past0, ("L['past_key_values']['key_cache'][1]", 2): past1}
    equal = proberelations.equalities(_Guards(), sources)
    assert not os.path.exists("/tmp/dimscope-probe-ran")
    assert len(equal) == 2 and {sympy.expand(e) for e in equal} <= {
        past0 - past1, past1 - past0, past0 + seq - mask, mask - past0 - seq}, equal
    # the mask's length is the sum of two others, layer 1's cache length follows layer 0's
    assert proberelations.followers(equal, [seq, mask, past0, past1]) == {mask, past1}
    moved = proberelations.consistent({seq: 5, mask: 7, past0: 64, past1: 2}, past0, equal, {mask, past1})
    assert moved == {seq: 5, mask: 69, past0: 64, past1: 64}, moved


@pytest.mark.skipif(TORCH < (2, 8), reason="torch %s: no PT2 archive of several programs (and 2.6 keeps no guard "
                    "that rejects the probe)" % torch.__version__)
def test_a_probe_one_program_rejects_is_tried_on_the_others_of_its_archive(tmp_path):
    """As a user's dispatcher would: the length 5 that the traced program rejects is
    served by the archive's program exported at length 5."""
    from dimscope.worker import archive

    model = SkipsFive()
    path = record(model, [(torch.randn(3, n),) for n in (4, 5)], tmp_path / "cap.safetensors", no_grad=True)
    calls = capturelib.load_capture(str(path), device="cpu").calls
    kept, held = [], {}
    for name, call in (("model", calls[0]), ("phase2", calls[1])):
        args, kwargs = exporter.call_arguments(call)
        shapes = {"x": {1: torch.export.Dim.AUTO}} if name == "model" else None
        program = torch.export.export(model, args, kwargs, dynamic_shapes=shapes, strict=False)
        held[name] = archive.Held(program, args, kwargs, call.index, "cpu")
    probes.probe(model, held["model"].program, calls, [0], None, keep_rejected=kept)
    held["model"].rejected_probes = kept
    lines = []
    result = archive.write_held(str(tmp_path / "skips.pt2"), ["model", "phase2"], held, model=model,
                                log=lambda text, stream="worker": lines.append(text))
    entries = {p["program"]: p for p in result["programs"]}
    assert [(e["value"], e["served_by"], e["status"]) for e in entries["model"]["probes_elsewhere"]] == [
        (5, "phase2", "served")], entries
    assert entries["phase2"]["probes_elsewhere"] == []
    assert any(line.startswith("range probes, program model: ") and line.endswith(
        " = 5 rejected, served by program phase2") for line in lines), lines


class WritesIntoItsInput(torch.nn.Module):
    """A static cache's update: the call's tensor `cache` is written in place."""

    def forward(self, x, cache):
        cache.index_copy_(1, torch.arange(x.shape[1]), x)
        return cache * 2


def test_a_program_that_writes_into_its_inputs_is_probed_on_copies():
    # The tiny static-cache Llama's program keeps aten.index_copy_ in its graph with no
    # mutation in its signature: probed on the call's own tensors, it wrote into the
    # recorded cache and every later probe and the fresh-process check failed.
    seq = torch.export.Dim("seq", min=2, max=8)
    writes = torch.export.export(WritesIntoItsInput(), (torch.ones(2, 3), torch.zeros(2, 8)),
                                 dynamic_shapes=({1: seq}, None), strict=False)
    assert probes._mutates_inputs(writes)
    pure = torch.export.export(Doubles(), (torch.ones(2, 3),), dynamic_shapes=({1: seq},), strict=False)
    assert not probes._mutates_inputs(pure)


class _OneSided:
    """Gemma3's continuation program: torch checks only that the mask covers the full
    layer's cache and the prompt, `mask >= full + seq`."""

    _guards_code = ["L['past_key_values']['key_cache'][1].size()[2] + L['input_ids'].size()[1] + "
                    "((-1)*L['attention_mask'].size()[1]) <= 0"]


def test_a_one_sided_guard_every_recorded_call_meets_exactly_ties_its_sizes():
    """generate() makes every call with mask == full + seq: a probe that moved the cache
    alone (a mask shorter than the guard allows, rejected) is a call it never makes."""
    import sympy
    from dimscope.worker import proberelations

    seq, mask, full = sympy.symbols("s70 s53 s52", integer=True, positive=True)
    sources = {("L['input_ids']", 1): seq, ("L['attention_mask']", 1): mask,
               ("L['past_key_values']['key_cache'][1]", 2): full}
    assert proberelations.equalities(_OneSided(), sources) == []  # a bound alone ties nothing
    exact = [{seq: 5, mask: 7, full: 2}, {seq: 5, mask: 8, full: 3}]
    equal = proberelations.equalities(_OneSided(), sources, exact)
    assert [sympy.expand(e) for e in equal] == [full + seq - mask], equal
    assert proberelations.consistent({seq: 5, mask: 7, full: 256}, full, equal, {mask}) == {seq: 5, mask: 261, full: 256}
    # a recorded call whose mask is longer: the guard is a bound, not a tie
    assert proberelations.equalities(_OneSided(), sources, exact + [{seq: 5, mask: 9, full: 3}]) == []


class _Layer:
    """A cache layer as cachelayers.describe_layers reads it (dimscope's export layers
    say their kind the same way)."""

    def __init__(self, keys, window=None):
        self.keys, self.sliding_window = keys, window


class _Sliding(_Layer):
    _dimscope_kind = "sliding"


class _Full(_Layer):
    _dimscope_kind = "full"


class _Cache:
    def __init__(self, layers):
        self.layers = layers


class _TwoLengths(torch.nn.Module):
    def forward(self, sliding, full):
        return sliding.sum() + full.sum()


def test_a_sliding_window_layer_follows_the_tokens_its_layer_has_seen():
    """Gemma2/Gemma3: the sliding layer (window 8) holds min(full, 7) tokens in every call
    transformers makes; the probes move the full layer's length and the sliding one
    follows, where every recorded call holds to it."""
    from dimscope.worker import proberelations
    from dimscope.worker.resizedcalls import symbol_values

    sliding, full = torch.zeros(1, 2, 7, 4), torch.zeros(1, 2, 10, 4)
    program = torch.export.export(_TwoLengths(), (sliding, full), strict=False,
                                  dynamic_shapes=({2: torch.export.Dim("past", min=1)},
                                                  {2: torch.export.Dim("full", min=1)}))
    shapes = [n.meta["val"].shape for n in program.graph.nodes if n.op == "placeholder"]
    inputs = [("sliding", shapes[0], sliding), ("full", shapes[1], full)]
    s_sliding, s_full = shapes[0][2].node.expr, shapes[1][2].node.expr
    call = ((), {"past_key_values": _Cache([_Sliding(sliding, window=8), _Full(full)])})
    below = {s_sliding: 5, s_full: 5}
    measured = [(None, inputs, symbol_values(inputs)), (None, inputs, below)]
    windows = proberelations.windows(call, inputs, measured)
    assert windows == [(s_sliding, s_full, 7)], windows
    assert proberelations.within_windows({s_sliding: 7, s_full: 256}, windows) == {s_sliding: 7, s_full: 256}
    assert proberelations.within_windows({s_sliding: 7, s_full: 2}, windows) == {s_sliding: 2, s_full: 2}
    # a recorded call that does not hold to it (a sliding layer shorter than min(full, 7)): no tie
    assert proberelations.windows(call, inputs, measured + [(None, inputs, {s_sliding: 3, s_full: 9})]) == []

# SPDX-License-Identifier: GPL-3.0-or-later
"""What the Why view's explanations cost (issue 29 item 3): the real-model suite's tiny
Llama, its decode call exported with torch.export.export as the worker exports it, with
dimscope's Explainer around the export and without, alternated in one process (after one
warm-up export of each). "With" includes building the explanations afterwards. Times
are the process's CPU time (every thread's), which other work on a shared machine
disturbs less than the wall clock.

Also counts the Python function calls of one export each way (deterministic, where the
times on a shared machine are not). Quick mode (default, for CI: it proves the hook sees
torch's decisions, its times mean little): 1 pair, no warm-up, no call counts. Full
mode: DIMSCOPE_BENCH_FULL=1 (a warm-up export each way, 12 pairs, the call counts).
Target: the hook adds under 2% to the export. Prints one JSON line with the medians,
the ratio of the medians, the median of the pairwise ratios and the events kept;
exits 1 when no event was kept (the hook saw nothing: broken, not just slow), and in full
mode when the target is missed.
"""

import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "realmodels"))

BATCH = {"0": "batch"}
CACHE = {"tensor": {"0": "batch", "2": "past_len"}}


def decode_spec():
    """The decode calls' constraints: total_len = past_len + 1 (what dimscope's inference
    proposes for them), batch from 2; the new token's length is 1 (static)."""
    layer = {"list": [CACHE, CACHE]}
    return {"format": "dimscope.dynamic_shapes", "version": 1,
            "dims": [{"name": "batch", "min": 2, "max": None}, {"name": "past_len", "min": 1, "max": None},
                     {"name": "total_len", "root": "past_len", "a": 1, "b": 1}],
            "dynamic_shapes": {"dict": {
                "input_ids": {"tensor": BATCH},
                "attention_mask": {"tensor": {"0": "batch", "1": "total_len"}},
                "position_ids": {"tensor": BATCH},
                "past_key_values": {"list": [layer, layer]},
                "use_cache": None, "logits_to_keep": None,
                "kwargs": {"dict": {"return_dict": None}}}}}


def count_calls(run):
    """Python function calls (and C functions called from Python) while `run` runs."""
    count = [0]

    def profile(frame, event, arg):
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count[0]


def main():
    import torch

    import tinymodels
    from dimscope import caches
    from dimscope.capture import load_capture
    from dimscope.worker import spec as speclib
    from dimscope.worker.exporter import bound_inputs, call_arguments, with_constants
    from dimscope.worker.explain import Explainer, LeafMap

    full = os.environ.get("DIMSCOPE_BENCH_FULL") == "1"
    pairs = 12 if full else 1
    path = os.path.join(tempfile.mkdtemp(prefix="dimscope-bench-"), "llama.safetensors")
    tinymodels.record("llama", path)
    model = tinymodels.llama()
    cap = load_capture(path)
    caches.register_capture_flattening(cap.manifest)
    call = cap.calls[1]  # the first decode call of the first generate()
    shapes = with_constants(speclib.load_dynamic_shapes(decode_spec()), bound_inputs(call))
    args, kwargs = call_arguments(call)
    events = []

    def plain():
        t = time.process_time()
        torch.export.export(model, args, kwargs, dynamic_shapes=shapes, strict=False)
        return time.process_time() - t

    def explained():
        t = time.process_time()
        explainer = Explainer()
        with explainer:
            torch.export.export(model, args, kwargs, dynamic_shapes=shapes, strict=False)
        explainer.explanations(LeafMap.build(args, kwargs, shapes, bound_inputs(call)))
        events.append(len(explainer.handler.events))
        return time.process_time() - t

    if full:
        plain(), explained()  # warm-up: torch's first export pays its imports and caches
    off, on = [], []
    for i in range(pairs):
        order = (plain, explained) if i % 2 == 0 else (explained, plain)
        for f in order:
            (off if f is plain else on).append(f())
    # The machine's noise can hide a few percent: the Python function calls of one export
    # each way are counted too (deterministic; torch's C++ work is the same both ways).
    calls_off, calls_on = (count_calls(plain), count_calls(explained)) if full else (None, None)
    ratio = statistics.median(on) / statistics.median(off)
    pairwise = statistics.median(b / a for a, b in zip(off, on))
    print(json.dumps({"without_cpu_s": [round(x, 3) for x in off], "with_cpu_s": [round(x, 3) for x in on],
                      "without_median_cpu_s": round(statistics.median(off), 3),
                      "with_median_cpu_s": round(statistics.median(on), 3),
                      "ratio": round(ratio, 4), "pairwise_ratio_median": round(pairwise, 4), "target": 1.02,
                      "python_calls_without": calls_off, "python_calls_with": calls_on,
                      "python_calls_ratio": round(calls_on / calls_off, 4) if full else None,
                      "events": events[-1], "torch": torch.__version__,
                      "mode": "full" if full else "quick"}))
    if not events[-1]:
        return 1
    return 0 if pairwise <= 1.02 or not full else 1


if __name__ == "__main__":
    sys.exit(main())

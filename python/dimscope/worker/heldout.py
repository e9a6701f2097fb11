# SPDX-License-Identifier: GPL-3.0-or-later
"""Held-out calls (issue 24 item 4; docs/worker-protocol.md, "Held-out calls"): the calls
of a second capture of the same model (another generate() run: other prompts, batch,
lengths), replayed through the exported programs as a user's dispatcher would run them.

Each call goes to the first program that accepts it, in the archive's order, in the new
interpreter that checks the programs (freshcheck: loaded through dimscope.load_program,
the documented path), so the archive is still checked in one interpreter. The eager
model's outputs on the call are computed here, in the worker, which has the model, and
compared with what the accepting program gave there (the tolerances of verification).
A call is `served` (by which program), `rejected` by every program (each program's
text), `wrong` (served with outputs that differ: the export fails), `eager_failed`, or
`rebuilt_differs` (the model's outputs on the rebuilt call differ from those recorded
in the held-out capture: the call cannot be verified).
"""

import copy
import json
import os
import time
import traceback

from .errors import WorkerError, guard_text
# One call's folder is laid out as the fresh check lays out its own call's.
from .freshcheck import _INPUTS, _OUTPUTS, _SPEC


def _noop(*_args, **_kwargs):
    pass


def _load(path, device):
    from .. import caches, capture

    if not isinstance(path, str) or not os.path.isfile(path):
        raise WorkerError("bad_request", "held-out capture %r does not exist" % (path,))
    try:
        cap = capture.load_capture(path, device=device)
        caches.register_capture_flattening(cap.manifest)
    except Exception as e:  # noqa: BLE001 - a bad file is the request's error, named with the file
        raise WorkerError("capture", "held-out capture %s: %s" % (path, e),
                          user_traceback=traceback.format_exc()) from e
    if not cap.calls:
        raise WorkerError("capture", "held-out capture %s has no calls" % path)
    return cap


class Replay:
    """The held-out calls of one capture: written for the new interpreter (`write`), the
    eager model's outputs on them here (once, however often the archive is checked), and
    the report (`read`, then `result`)."""

    def __init__(self, path, model, device, log=_noop):
        self.path = os.path.abspath(path)
        self.model, self.device, self.log = model, device, log
        self.calls = _load(path, device).calls
        self.expected = None  # call index -> (True, outputs) | (False, why the eager model failed)
        self.result = None

    def write(self, folder):
        """Each call's inputs into a folder of its own under `folder`, as freshcheck writes
        a program's call; the eager model runs here first. Returns the folders."""
        import torch
        from torch.utils import _pytree as pytree

        from .exporter import call_arguments

        self._run_eager()
        folders = []
        for call in self.calls:
            sub = os.path.join(folder, "held%d" % call.index)
            os.mkdir(sub)
            leaves, spec = pytree.tree_flatten(call_arguments(call))
            torch.save([x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in leaves],
                       os.path.join(sub, _INPUTS))
            with open(os.path.join(sub, _SPEC), "w", encoding="utf-8") as f:
                # `substituted`: inputs recorded from value_if_missing, left out for a
                # program that does not take them (replay_in_this_process).
                json.dump({"spec": pytree.treespec_dumps(spec), "device": str(self.device),
                           "substituted": list(call.filled)}, f)
            folders.append(sub)
        return folders

    def _run_eager(self):
        import torch

        from .exporter import call_arguments

        if self.expected is not None:
            return
        self.expected = {}
        for call in self.calls:
            # As the model was called: without the inputs value_if_missing substituted
            # (a program that takes them must give the same outputs with them).
            args, kwargs = call_arguments(call.without(call.filled))
            try:
                with torch.no_grad():
                    self.expected[call.index] = (True, self.model(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
            except Exception as e:  # noqa: BLE001 - reported for this call
                self.expected[call.index] = (False, "%s: %s" % (type(e).__name__, e))

    def read(self, folders, programs, seconds):
        """The new interpreter's answers (one per call) against the eager outputs:
        `result`, the `held_out` entry of the worker's result."""
        import torch

        rows = [self._row(call, torch.load(os.path.join(sub, _OUTPUTS), weights_only=True))
                for call, sub in zip(self.calls, folders)]
        self.result = {"file": self.path, "programs": list(programs), "calls": rows, "seconds": seconds}
        counts = {}
        for row in rows:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        self.log("held-out %s: %s of %d call(s) replayed through %s in the new interpreter"
                 % (self.path, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())), len(rows),
                    ", ".join(programs)), stream="warning" if set(counts) - {"served"} else "worker")
        for row in rows:
            if row["status"] == "wrong":
                self.log("held-out %s: call %d WRONG: program %s accepted it and gave other outputs than the eager "
                         "model: %s" % (self.path, row["call"], row["program"], row["message"]), stream="warning")
        return self.result

    def _row(self, call, got):
        from .exporter import _difference_text, _worst, compare_outputs, compare_with_recorded
        from .freshcheck import _leaves

        rejections = [{"program": name, "message": text, "guard": guard_text(text)}
                      for name, text in got["rejections"]]
        row = {"call": call.index, "status": "served", "program": got["program"], "message": None,
               "rejections": rejections}
        eager_ok, expected = self.expected[call.index]
        if got["program"] is None:
            row.update(status="rejected", message="rejected by every program")
            return row
        if not eager_ok:
            row.update(status="eager_failed", message="the eager model failed on the call: %s" % expected)
            return row
        leaves, ok, message = compare_outputs(_leaves(expected), got["outputs"])
        worst = _worst(leaves) or {}
        row.update(max_abs=worst.get("max_abs"), max_rel=worst.get("max_rel"), path=worst.get("path"))
        if not ok:
            row.update(status="wrong", message="served by program %s with outputs that differ from the eager "
                       "model's (%s)" % (got["program"], _difference_text(worst, message)))
            return row
        recorded = compare_with_recorded(call, expected)
        if recorded is not None and not recorded["ok"]:
            row.update(status="rebuilt_differs", message="the model's outputs on the rebuilt call differ from those "
                       "recorded in the held-out capture (%s): the call cannot be verified" % recorded["text"])
        return row


# ------------------------------------------------------------------ the new interpreter

def _without_substitutes(module, kwargs, substituted):
    """`kwargs` without the inputs value_if_missing substituted that the program does not
    take (its call's keyword inputs, from the loaded module's input spec): a decode
    program exported without the empty pixel_values of its calls (issue 20)."""
    spec = getattr(module, "_in_spec", None)
    try:
        takes = set(spec.children_specs[1].context) if spec is not None else None
    except (AttributeError, IndexError, TypeError):
        takes = None
    if not substituted or takes is None:
        return kwargs
    return {k: v for k, v in kwargs.items() if k in takes or k not in substituted}


def replay_in_this_process(pt2_path, programs, folders, loaded=None):
    """The checker's side: each held-out call ([folder]) through the programs of
    `pt2_path` ([(name, why it failed its own check or None)], in the archive's order),
    the first that accepts it serving it, as a user's dispatcher would; the answer goes
    into the call's folder. `loaded`: {name: program} the check loaded through
    dimscope.load_program and replayed its own call on, reused (torch >= 2.8: one load a
    program, issue 29); a program not in it is loaded again through dimscope.load_program,
    as on torch 2.6, where the check's own call has taught the loaded program's ShapeEnv
    its sizes (see below)."""
    import torch
    from torch.utils import _pytree as pytree

    import dimscope

    from .exporter import _guards_suppressed

    modules = []
    for name, error in programs:
        module = None
        if error is None:
            try:
                program = (loaded or {}).get(name) or dimscope.load_program(pt2_path, name=name)
                module = program.module()
            except Exception as e:  # noqa: BLE001 - it loaded a moment ago: said as this program's refusal
                error = "%s: %s" % (type(e).__name__, e)
        modules.append((name, module, error))
    for folder in folders:
        t = time.perf_counter()
        with open(os.path.join(folder, _SPEC), encoding="utf-8") as f:
            meta = json.load(f)
        leaves = torch.load(os.path.join(folder, _INPUTS), weights_only=True)
        device = torch.device(meta["device"])
        spec = pytree.treespec_loads(meta["spec"])
        answer = {"program": None, "outputs": None, "rejections": []}
        for name, module, error in modules:
            if module is None:
                answer["rejections"].append(
                    [name, "the program did not load or replay its own call in this interpreter: %s" % error])
                continue
            args, kwargs = pytree.tree_unflatten(
                [x.clone().to(device) if isinstance(x, torch.Tensor) else x for x in leaves], spec)
            kwargs = _without_substitutes(module, kwargs, meta.get("substituted") or [])
            try:
                # As verification runs a call: torch 2.6 would otherwise learn the first call's
                # sizes in the program's ShapeEnv and reject every later call of other sizes
                # (exporter._guards_suppressed); the program's guards still reject what it does not serve.
                with torch.no_grad(), _guards_suppressed(module):
                    outputs = module(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - the program's guard: the next program is tried
                answer["rejections"].append([name, ("%s: %s" % (type(e).__name__, str(e).strip()))[:4000]])
                continue
            answer.update(program=name, outputs=[x.detach().cpu() if isinstance(x, torch.Tensor) else x
                                                 for x in pytree.tree_flatten(outputs)[0]])
            break
        answer["seconds"] = time.perf_counter() - t
        torch.save(answer, os.path.join(folder, _OUTPUTS))

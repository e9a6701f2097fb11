# SPDX-License-Identifier: GPL-3.0-or-later
"""One export of a captured model: pick the example call, torch.export.export,
torch.export.save (atomically), then replay every captured call through the exported
program and compare with the eager model. Used by the worker (warm) and by plain
scripts (the cold baseline of the benchmark) alike."""

import contextlib
import copy
import functools
import logging
import os
import re
import shutil
import stat
import tempfile
import time

from . import (batchslice, dimnames, draftexport, freshcheck, gradmode, guardcheck, keyedinputs, modulestate,
               unusedreads, varkeyword)
from . import spec as speclib
from .errors import WorkerError, max_positions, model_line, parse_constraint_violation, parse_guard_failure
from .explain import Explainer, LeafMap


def _noop(*_args, **_kwargs):
    pass


def call_inputs(call):
    """A captured call's inputs by parameter name, constant kwargs included: what the
    spec's top-level dict is matched against."""
    kwargs = dict(call.kwargs)
    kwargs.update(getattr(call, "constant_kwargs", None) or {})
    return kwargs


def call_arguments(call):
    """(args, kwargs) to run a captured call with: positional-only parameters and
    *args positionally (the capture knows the signature), the rest by name."""
    if hasattr(call, "call_arguments"):
        args, kwargs = call.call_arguments(include_constants=True)
        return tuple(args), dict(kwargs)
    return (), call_inputs(call)


def _var_keyword(call):
    """The name of forward's `**kwargs` parameter and the named parameters, from the
    capture's signature (None, None when the call does not know its signature)."""
    capture = getattr(call, "_capture", None)
    if capture is None:
        return None, None
    signature = capture.manifest["model"]["signature"]
    named = [p["name"] for p in signature if p["kind"] != "VAR_KEYWORD"]
    var = [p["name"] for p in signature if p["kind"] == "VAR_KEYWORD"]
    return (var[0] if var else None), named


def bound_inputs(call):
    """The call's inputs as torch binds them to forward's parameters: named parameters
    at the top level, entries that only `**kwargs` takes nested under its name (what
    the top level of `dynamic_shapes` must match)."""
    flat = call_inputs(call)
    var, named = _var_keyword(call)
    if var is None:
        return flat
    out, extra = {}, {}
    for k, v in flat.items():
        (out if k in named else extra)[k] = v
    if extra:
        out[var] = extra
    return out


def with_constants(shapes, bound):
    """torch wants the top-level spec keys to be exactly the argument names, and a
    `**kwargs` spec to name every entry the call passes through it."""
    out = dict(shapes)
    for k, v in bound.items():
        if k not in out or out[k] is None:
            if isinstance(v, dict) and k not in out:
                out[k] = {kk: None for kk in v}
            else:
                out.setdefault(k, None)
        elif isinstance(v, dict) and isinstance(out[k], dict) and all(isinstance(x, str) for x in v):
            inner = dict(out[k])
            for kk in v:
                inner.setdefault(kk, None)
            out[k] = inner
    return out


def dynamic_sizes(shapes, kwargs):
    """[(path, dim, size)] of the dims the spec makes dynamic in these inputs."""
    out = []
    for path, tensor, dims in speclib.walk(shapes, kwargs):
        for d in sorted(dims):
            out.append((path, d, int(tensor.shape[d])))
    return out


def choose_example(shapes, calls, requested=None, log=_noop, among=None):
    """Index of the example call: `requested`, else the first call (of `among`, the
    indices of the calls this export serves; default all) whose structure fits the spec
    and whose dynamic dims are all >= 2 (torch specializes 0 and 1)."""
    among = list(range(len(calls))) if among is None else among
    if requested is not None:
        if not 0 <= requested < len(calls):
            raise WorkerError("bad_request", "call %d does not exist (the capture has %d calls)"
                              % (requested, len(calls)))
        kwargs = bound_inputs(calls[requested])
        try:
            sizes = dynamic_sizes(with_constants(shapes, kwargs), kwargs)
        except speclib.StructureMismatch as e:
            raise WorkerError("structure_mismatch", "call %d does not fit the spec: %s" % (requested, e),
                              path=e.path, call=requested) from e
        small = ["%s dim %d = %d" % s for s in sizes if s[2] < 2]
        if small:
            log("warning: example call %d has dynamic dims below 2 (%s); torch will specialize them"
                % (requested, ", ".join(small)))
        return requested
    first_fit, first_error = None, None
    for i in among:
        kwargs = bound_inputs(calls[i])
        try:
            sizes = dynamic_sizes(with_constants(shapes, kwargs), kwargs)
        except speclib.StructureMismatch as e:
            first_error = first_error or (i, e)
            continue
        if first_fit is None:
            first_fit = i
        if all(s[2] >= 2 for s in sizes):
            return i
    if first_fit is not None:
        log("warning: every call that fits the spec has a dynamic dim below 2; using call %d, "
            "torch will specialize those dims" % first_fit)
        return first_fit
    i, e = first_error
    raise WorkerError("structure_mismatch", "no captured call fits the spec; call %d: %s" % (i, e),
                      path=e.path, call=i)


def _flatten(tree):
    from torch.utils import _pytree as pytree

    if hasattr(pytree, "tree_flatten_with_path"):
        try:
            leaves, _ = pytree.tree_flatten_with_path(tree)
            return [("output" + pytree.keystr(p), v) for p, v in leaves]
        except ValueError:
            # A class registered without flatten_with_keys_fn (transformers'
            # ModelOutput classes): compare its leaves by position.
            pass
    leaves, _ = pytree.tree_flatten(tree)
    return [("output[%d]" % i, v) for i, v in enumerate(leaves)]


def compare_outputs(expected, actual, atol=1e-4, rtol=1e-3):
    """Per output leaf: max abs and max rel difference. Returns (leaves, ok, message)."""
    import torch

    exp, act = _flatten(expected), _flatten(actual)
    if len(exp) != len(act):
        return [], False, "the exported program returned %d output leaves, the model %d" % (len(act), len(exp))
    leaves, ok = [], True
    for (path, e), (_, a) in zip(exp, act):
        if isinstance(e, torch.Tensor) and isinstance(a, torch.Tensor):
            if e.shape != a.shape:
                leaves.append({"path": path, "shape_mismatch": [list(e.shape), list(a.shape)]})
                ok = False
                continue
            if e.numel() == 0:
                leaves.append({"path": path, "max_abs": 0.0, "max_rel": 0.0})
                continue
            ed, ad = e.detach().double().cpu(), a.detach().double().cpu()
            diff = (ed - ad).abs()
            max_abs = float(diff.max())
            max_rel = float((diff / ed.abs().clamp_min(1e-12)).max())
            leaf_ok = bool(torch.allclose(ad, ed, atol=atol, rtol=rtol, equal_nan=True))
            ok = ok and leaf_ok
            leaves.append({"path": path, "max_abs": max_abs, "max_rel": max_rel, "ok": leaf_ok})
        else:
            same = e == a
            ok = ok and bool(same)
            leaves.append({"path": path, "value_equal": bool(same)})
    return leaves, ok, None


def _guards_suppressed(module):
    """A context in which checking inputs against the exported program leaves its
    ShapeEnv alone. torch 2.6 checks a dim whose symbol is an expression of several Dims
    (the demo's attention mask: seq_len + past_len) with `arg_dim != node_dim` on the
    frozen ShapeEnv: the guard is "ignored" but still learned as a replacement, so once
    a call had the example's value every later call with another value is rejected."""
    import torch

    for node in module.graph.nodes:
        if node.op != "placeholder":
            continue
        for size in getattr(node.meta.get("val"), "shape", ()):
            if isinstance(size, torch.SymInt):
                return _quiet_suppressed(size.node.shape_env)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _quiet_suppressed(shape_env):
    # The frozen ShapeEnv also logs each of those comparisons as an "Ignored guard"
    # warning; they are the input check's, not the user's model's.
    logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with shape_env.suppress_guards():
            yield
    finally:
        logger.setLevel(level)


# The outputs recorded at capture time are compared with the same tolerances as the
# program with the eager model (atol=1e-4, rtol=1e-3: float32 on one CPU agrees far
# closer, and a wrong mask offset moves logits by 1e-2 and more). Outputs recorded on
# another kind of device (a CUDA capture verified on the CPU) differ by the devices'
# arithmetic (TF32, other kernels): ten times looser there.
RECORDED_TOLERANCE = {"atol": 1e-4, "rtol": 1e-3}
RECORDED_OTHER_DEVICE_TOLERANCE = {"atol": 1e-3, "rtol": 1e-2}


def _first_device_type(tree):
    from torch.utils import _pytree as pytree

    for leaf in pytree.tree_leaves(tree):
        if hasattr(leaf, "device"):
            return leaf.device.type
    return None


def _recorded_tolerance(call, eager_outputs):
    """The tolerance for comparing with `call`'s recorded outputs (RECORDED_TOLERANCE)."""
    recorded = {str(leaf.get("device", "cpu")).split(":")[0]
                for leaf in call.leaves(outputs=True) if leaf.get("kind") == "tensor"} \
        if hasattr(call, "leaves") else set()
    here = _first_device_type(eager_outputs)
    if here is not None and recorded and recorded != {here}:
        return RECORDED_OTHER_DEVICE_TOLERANCE
    return RECORDED_TOLERANCE


def _worst(leaves):
    """The leaf that differs most: {path, max_abs, max_rel} or a shape/value note."""
    bad = [leaf for leaf in leaves if leaf.get("ok") is False or "shape_mismatch" in leaf
           or leaf.get("value_equal") is False]
    pick = max(bad or leaves, key=lambda leaf: leaf.get("max_abs", float("inf")), default=None)
    return dict(pick) if pick else None


def _difference_text(worst, message):
    if message:
        return message
    if worst is None:
        return "no output leaves"
    if "shape_mismatch" in worst:
        return "%s has shape %s, recorded %s" % (worst["path"], worst["shape_mismatch"][1], worst["shape_mismatch"][0])
    if "max_abs" in worst:
        return "max abs %.3g, max rel %.3g at %s" % (worst["max_abs"], worst["max_rel"], worst["path"])
    return "%s has another value" % worst["path"]


def _rebuilt_cause(call, stored=()):
    """Why a rebuilt call may not be the recorded one, from what the eager run stored on
    the model's modules (modulestate.py) and what the capture knows."""
    if stored:
        return ("the model keeps state of its own outside its inputs, which a program does not take: its forward "
                "stored %s" % modulestate.describe(stored))
    capture = getattr(call, "_capture", None)
    notes = [n for n in (getattr(capture, "inexact", None) or []) if n[0] == call.index]
    if notes:
        seen = sorted({n[3] for n in notes})
        rebuilt = sorted({n[4] for n in notes})
        return ("its sliding-window cache layers had seen %s tokens, but a cache without a full-attention "
                "layer does not hold that count: rebuilt as %s, so the mask's offset is wrong past the window"
                % ("/".join(map(str, seen)), "/".join(map(str, rebuilt))))
    return "the capture does not rebuild everything the model saw, or the loaded model is not the one recorded"


def compare_with_recorded(call, eager_outputs):
    """The eager model's outputs on the rebuilt call against the outputs recorded at
    capture time: None when none were recorded (or cannot be rebuilt here), else
    {"ok", "leaves", "worst", "text", "tolerance"}."""
    recorded = getattr(call, "outputs", None)
    if recorded is None:
        return None
    tolerance = _recorded_tolerance(call, eager_outputs)
    leaves, ok, message = compare_outputs(recorded, eager_outputs, **tolerance)
    worst = _worst(leaves)
    return {"ok": ok, "leaves": leaves, "worst": worst, "text": _difference_text(worst, message),
            "tolerance": tolerance}


def _mark_rebuilt_differs(row, call, check, stored=()):
    """A call whose rebuilt inputs make the eager model differ from its recorded outputs
    is never verified: whatever the program did, it was compared with the wrong thing."""
    text = ("the model's outputs on the rebuilt call differ from those recorded at capture time (%s): %s; "
            "the call cannot be verified" % (check["text"], _rebuilt_cause(call, stored)))
    if stored:
        row["module_state"] = [{k: s[k] for k in ("cls", "attribute", "file", "line") if k in s} for s in stored]
    if row["status"] == "rejected":
        text += "; the program also rejected it: " + row["message"]
    row["status"] = "rebuilt_differs"
    row["message"] = text
    row["rebuilt_difference"] = check["worst"] or {"message": check["text"]}
    row.pop("reason", None)


def _check_program_against_recorded(row, check, actual):
    """The program's outputs against the recorded ones (when the rebuilt call matched)."""
    leaves, ok, message = compare_outputs(check["recorded"], actual, **check["tolerance"])
    row["recorded_outputs"] = leaves
    if not ok and row["status"] == "ok":
        row["status"] = "mismatch"
        row["message"] = "the program's outputs differ from those recorded at capture time (%s)" % _difference_text(
            _worst(leaves), message)


def _run_program(module, args, kwargs):
    """The program's outputs on a call: (outputs, None), or (None, the exception) when
    its input check or its code refused the call."""
    try:
        with _guards_suppressed(module):
            return module(*copy.deepcopy(args), **copy.deepcopy(kwargs)), None
    except Exception as e:
        return None, e


def _matches_recording(row, call, actual):
    """True, with the row filled as verified, when the program's outputs agree with the
    outputs recorded at capture time on this kind of device: the recording is the eager
    model's outputs on the call itself, so the eager model need not run on the rebuilt
    one. False (row untouched) when they differ or were not recorded here: then only the
    eager model tells a rebuilt call that differs from a wrong program."""
    recorded = getattr(call, "outputs", None)
    if recorded is None or _recorded_tolerance(call, actual) is not RECORDED_TOLERANCE:
        return False
    leaves, ok, _message = compare_outputs(recorded, actual, **RECORDED_TOLERANCE)
    if not ok:
        return False
    row.update(status="ok", message=None, outputs=leaves, recorded="compared", recorded_outputs=leaves,
               eager_run=False)
    row.pop("reason", None)
    return True


def verify(model, program, calls, progress=_noop, example_keys=None, eager_cache=None, among=None, stats=None,
           module=None):
    """Replays every captured call through the exported program and compares its outputs
    with the outputs recorded at capture time where the capture has them; the eager
    model runs on the rebuilt call only when they differ, when none were recorded, or
    when the program refused the call: a call whose rebuilt inputs make the eager model
    give other outputs than it gave then is `rebuilt_differs`, never `ok`, and a program
    that differs from an eager model that agrees with the recording is a `mismatch`.

    `eager_cache`: a dict (call index -> the eager model's outputs, or the exception
    text when it failed) that a warm worker keeps between exports of the same loaded
    model and capture, so a re-export runs only the exported program; filled here.
    `stats`: a dict given `eager_runs` (calls the eager model ran on here) and
    `eager_cached` (calls whose eager outputs came from `eager_cache`). `module`: the
    program's module when the caller has one."""
    import torch

    module = module if module is not None else program.module()
    rows = []
    cache = eager_cache if eager_cache is not None else {}
    stats = stats if stats is not None else {}
    stats.update(eager_runs=0, eager_cached=0)
    among = list(range(len(calls))) if among is None else among
    for n, i in enumerate(among):
        call = calls[i]
        progress("verify", "call %d (%d of %d)" % (i, n + 1, len(among)), (n + 1) / max(1, len(among)))
        args, kwargs = call_arguments(call)
        row = {"call": i, "status": "ok", "message": None, "outputs": []}
        if example_keys is not None and set(call_inputs(call)) != example_keys:
            missing = sorted(example_keys - set(call_inputs(call)))
            extra = sorted(set(call_inputs(call)) - example_keys)
            row["reason"] = "structure"
            row["message"] = "the call's inputs differ from the example call's (%s)" % ", ".join(
                (["missing: " + ", ".join(missing)] if missing else []) + (["extra: " + ", ".join(extra)] if extra else []))
        with torch.no_grad():
            ran = None
            if i not in cache and getattr(call, "outputs", None) is not None:
                ran = _run_program(module, args, kwargs)  # the program first: the recording may do
                if ran[1] is None and _matches_recording(row, call, ran[0]):
                    rows.append(row)
                    continue
            if i not in cache:
                stats["eager_runs"] += 1
                # What the run stores on the model's modules: named if the rebuilt call differs.
                with modulestate.watch(model) as stored:
                    try:
                        cache[i] = (True, model(*copy.deepcopy(args), **copy.deepcopy(kwargs)), stored)
                    except Exception as e:
                        cache[i] = (False, "%s: %s" % (type(e).__name__, e), stored)
            else:
                stats["eager_cached"] += 1
            row["eager_run"] = True
            eager_ok, expected, stored = cache[i]
            if not eager_ok:
                row.update(status="eager_failed", message=expected)
                rows.append(row)
                continue
            recorded = compare_with_recorded(call, expected)
            row["recorded"] = "compared" if recorded is not None else "not_recorded"
            actual, e = ran if ran is not None else _run_program(module, args, kwargs)
            if e is not None:
                # The exported program's guards: what the user must see.
                text = "%s: %s" % (type(e).__name__, str(e).strip())
                if row["message"]:
                    text = row["message"] + "; " + text
                else:
                    row["reason"] = "guard"
                row.update(status="rejected", message=text)
                guard = parse_guard_failure(str(e))
                if guard:
                    row["guard"] = guard
                if recorded is not None and not recorded["ok"]:
                    _mark_rebuilt_differs(row, call, recorded, stored)
                rows.append(row)
                continue
        row["message"] = None
        row.pop("reason", None)
        leaves, ok, message = compare_outputs(expected, actual)
        row["outputs"] = leaves
        if not ok:
            row.update(status="mismatch", message=message or "outputs differ beyond atol=1e-4, rtol=1e-3")
        if recorded is not None and recorded["ok"]:
            _check_program_against_recorded(row, dict(recorded, recorded=call.outputs), actual)
        elif recorded is not None:
            _mark_rebuilt_differs(row, call, recorded, stored)
        rows.append(row)
    return rows


def describe_program(program):
    """User inputs with their (symbolic) shapes and the range constraints."""
    ranges = {}
    for sym, vr in program.range_constraints.items():
        lo, hi = vr.lower, vr.upper

        def num(v):
            if v is None or "oo" in str(v):
                return None  # int_oo / oo: unbounded
            try:
                return int(v)
            except Exception:
                return None
        ranges[str(sym)] = [num(lo), num(hi)]
    inputs = []
    user = set(program.graph_signature.user_inputs)
    for node in program.graph.nodes:
        if node.op != "placeholder" or node.name not in user:
            continue
        val = node.meta.get("val")
        shape = None
        if hasattr(val, "shape"):
            shape = [int(s) if str(s).lstrip("-").isdigit() else str(s) for s in val.shape]
        inputs.append({"name": node.name, "shape": shape})
    return {"inputs": inputs, "range_constraints": ranges}


# Staging: a .pt2 is written into a folder dimscope makes beside the output, then renamed
# into place. The folder's name carries the worker's pid, and the first thing written
# into it is the marker file, whose text names that pid too. Cleanup removes a folder
# only when all three agree and the pid is gone: whatever else sits in the output
# folder (another program's ".notes.99998.tmp", a folder that happens to be named like
# a staging folder) is never touched (docs/security.md, "What dimscope writes and deletes").
_SAVE_PREFIX = ".dimscope-save-%d-"
_SAVE_FOLDER = re.compile(r"^\.dimscope-save-(\d+)-[A-Za-z0-9_]+$")
_MARKER = "dimscope-staging-folder.marker"
_MARKER_TEXT = "dimscope export staging folder of pid %d\n"


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # someone else's process; not a pid at all
        return True
    return True


def _is_staging_folder(path, pid):
    """`path` is a real folder (not a link) holding dimscope's marker for `pid`."""
    marker = os.path.join(path, _MARKER)
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode) or not stat.S_ISREG(os.lstat(marker).st_mode):
            return False
        with open(marker, "rb") as f:
            return f.read(200) == (_MARKER_TEXT % pid).encode("ascii")
    except OSError:
        return False


def remove_stale_saves(folder):
    """Removes the staging folders a killed worker left in `folder`: only folders named
    `.dimscope-save-PID-…` that hold dimscope's marker for that PID, when PID is gone."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        m = _SAVE_FOLDER.match(name)
        if not m:
            continue
        pid = int(m.group(1))
        path = os.path.join(folder, name)
        if pid == os.getpid() or _pid_alive(pid) or not _is_staging_folder(path, pid):
            continue
        remove_staging_folder(path)


def model_inputs(ref, model=None):
    """The files a model reference reads, as (role, path): the .py a `file.py:callable`
    reference names, and the source file of the model's class."""
    inputs = []
    target = (ref or "").rpartition(":")[0]
    if target.endswith(".py"):
        inputs.append(("the model file", target))
    if model is not None:
        import inspect

        try:
            inputs.append(("the model's source file", inspect.getfile(type(model))))
        except (TypeError, OSError):
            pass
    return inputs


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(output, inputs=()):
    """Before minutes of exporting: the .pt2 can be written there (one-line errors).
    `inputs`: (role, path) of the files the export reads; the output may be none of them."""
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):
        raise WorkerError("bad_request", "output folder %s does not exist" % folder)
    try:
        mode = os.stat(output).st_mode  # follows links: a link to /dev/null is a device
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise WorkerError("save_failed", "cannot save %s: %s" % (output, e.strerror or e)) from e
    if mode is not None and stat.S_ISDIR(mode):
        raise WorkerError("save_failed", "cannot save %s: it is a folder" % output)
    if mode is not None and not stat.S_ISREG(mode):
        # A rename over a device node, a FIFO or a socket would replace it with a regular file.
        raise WorkerError("save_failed", "cannot save %s: it is %s, not a regular file; dimscope writes its "
                          "outputs only as regular files" % (output, _kind_of(mode)))
    if _holds_device_nodes(folder):
        # /dev (devtmpfs, or a tmpfs in a container): no staging folder is made there.
        raise WorkerError("save_failed", "cannot save %s: it is in %s, a folder of device nodes; dimscope writes "
                          "its outputs only in ordinary folders" % (output, folder))
    for role, path in inputs:
        if path and _same_file(output, path):
            raise WorkerError("save_failed", "cannot save %s: it is %s %s, an input of this export; choose "
                              "another output file" % (output, role, path))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise WorkerError("save_failed", "cannot save %s: the folder is not writable" % output)
    remove_stale_saves(folder)


def _holds_device_nodes(folder):
    """A character or block device in `folder`. The entries' types come with the
    listing; only those that are not a file, a folder or a link are stat'ed."""
    try:
        with os.scandir(folder) as entries:
            for e in entries:
                if e.is_file(follow_symlinks=False) or e.is_dir(follow_symlinks=False) or e.is_symlink():
                    continue
                try:
                    mode = e.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                    return True
    except OSError:
        pass
    return False


def _kind_of(mode):
    for test, kind in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a file"


def _make_staging_folder(folder):
    """A new folder of this process beside the output, marked as dimscope's at once."""
    staging = tempfile.mkdtemp(prefix=_SAVE_PREFIX % os.getpid(), dir=folder)
    try:
        with open(os.path.join(staging, _MARKER), "x", encoding="ascii") as f:
            f.write(_MARKER_TEXT % os.getpid())
    except BaseException:
        # A full disk fails the marker itself: the folder is ours, and no one else
        # could recognise it later.
        remove_staging_folder(staging)
        raise
    return staging


def remove_staging_folder(staging):
    """Removes a staging folder with its marker last: a process stopped at any point of it
    leaves a folder still recognised as that pid's and removed later (the marker and what
    is left, or an empty folder: StagingFolders::removeLeftBy, remove_stale_saves).
    shutil.rmtree takes the entries in the directory's order, which can put the marker
    first and leave a recording's hard-linked capture in a folder nobody may delete."""
    try:
        names = os.listdir(staging)
    except OSError:
        return
    for name in sorted(names, key=lambda n: n == _MARKER):
        path = os.path.join(staging, name)
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(staging)
    except OSError:
        pass


def save_atomically(program, output, inputs=(), check=None, programs=None):
    """Saves into a private folder beside `output` under its final name (so the archive
    inside is named like the file), then renames it into place: an interrupted save
    leaves the previous file intact. A failure is one line naming the file and the cause.
    `check(path)`, when given, runs on the saved file before the rename; what it raises
    fails the save and leaves the previous file intact too. `programs` ({name: program},
    `program` among them): one PT2 archive of all of them, each weight once (archive.py)."""
    import torch

    check_output(output, inputs)
    folder = os.path.dirname(os.path.abspath(output))
    staging = None
    try:
        staging = _make_staging_folder(folder)
        tmp = os.path.join(staging, os.path.basename(output))
        # The cache flattening it takes, so that dimscope.load_program needs the .pt2 only.
        from ..program import example_inputs_only_if_weights_only, extra_files
        from . import archive
        if programs is not None:
            with contextlib.ExitStack() as stack:
                for each in programs.values():
                    stack.enter_context(example_inputs_only_if_weights_only(each))
                shared = archive.write(tmp, programs, extra_files=dict(extra_files(programs),
                                                                       **dimnames.record(programs)))
        else:
            files = dict(extra_files({"model": program}), **dimnames.record({"model": program}))
            with example_inputs_only_if_weights_only(program):
                if archive.supported():
                    # What torch.export.save writes (package_pt2 of one program named
                    # "model"), with the weights written from their storages instead of
                    # copied into bytes first (archive._SharingWriter: issue 29).
                    archive.write(tmp, {"model": program}, extra_files=files)
                else:
                    torch.export.save(program, tmp, extra_files=files)
        if check is not None:
            check(tmp)
        os.replace(tmp, output)
        return shared if programs is not None else None
    except OSError as e:
        raise WorkerError("save_failed", "cannot save %s: %s" % (output, e.strerror or e)) from e
    except RuntimeError as e:
        # torch 2.14's archive writer reports a failed write as a position check
        # ("[enforce fail at inline_container.cc] unexpected pos ..."), not an OSError.
        raise WorkerError("save_failed", "cannot save %s: %s" % (output, _write_failure(staging or folder, e))) from e
    finally:
        if staging is not None:
            remove_staging_folder(staging)


def _write_failure(folder, error):
    """The likely cause of a write torch's archive writer reported without an errno."""
    import resource

    try:
        st = os.statvfs(folder)
        if st.f_bavail * st.f_frsize < (1 << 20):
            return "no space left on the device"
    except OSError:
        pass
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY:
        return "the write failed (this process may write files of at most %d bytes: ulimit -f)" % limit
    return "torch could not write the archive (%s)" % str(error).strip().splitlines()[0]


def positional_names(call, count):
    """The capture key path of each positional argument call_arguments passes: the
    positional-only parameters' names, then `ARGS[j]` for forward's `*ARGS`."""
    capture = getattr(call, "_capture", None)
    if capture is None:
        return []
    signature = capture.manifest["model"]["signature"]
    names = [p["name"] for p in signature if p["kind"] == "POSITIONAL_ONLY" and p["name"] in call.kwargs]
    var = [p["name"] for p in signature if p["kind"] == "VAR_POSITIONAL"]
    if var:
        names += ["%s[%d]" % (var[0], j) for j in range(max(0, count - len(names)))]
    return names


def _leaf_map(call, args, kwargs, shapes, log):
    """torch's input sources -> the capture's key paths and the spec's Dim names."""
    try:
        return LeafMap.build(args, kwargs, shapes, bound_inputs(call), positional_names(call, len(args)))
    except Exception as e:  # noqa: BLE001 - explanations never fail an export
        log("explanations: could not map torch's sources to the capture (%s: %s)" % (type(e).__name__, e))
        return LeafMap()


def _explanations(explainer, leaves, log):
    """The explainer's events in the capture's key paths and the spec's Dim names."""
    if explainer.note:
        log("explanations: " + explainer.note)
    return explainer.explanations(leaves)


def _draft_assumptions(program, leaves, log):
    """draft_export's decisions (draftexport.assumptions), each said in the log."""
    found = draftexport.assumptions(program, leaves, log)
    for a in found:
        where = a["location"]
        log("draft export: %s%s" % ("%s:%s: " % (where["file"], where["line"]) if where else "", a["expression"]),
            stream="warning" if not a.get("assertion") else "worker")
    if not found:
        log("draft export: torch made no decision from the example call's values (nothing assumed)")
    return found


def _check_among(calls, among):
    if among is None:
        return None
    if not isinstance(among, list) or not among or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(calls) for i in among):
        raise WorkerError("bad_request", "calls must be a non-empty list of call indices below %d, got %r"
                          % (len(calls), among))
    return sorted(set(among))


def _can_defer_guards(error):
    """Whether `error` is a constraint violation and this torch can defer guards to
    runtime checks (torch 2.6 cannot)."""
    import inspect

    import torch

    if "Constraints violated" not in str(error):
        return False
    try:
        return "prefer_deferred_runtime_asserts_over_guards" in inspect.signature(torch.export.export).parameters
    except (TypeError, ValueError):
        return False


def _source_dims(error, leaves):
    """{torch source `L[...].size()[d]`: Dim name} for the sources the error names."""
    source_dims = {}
    for source in guardcheck.sources_in(str(error)):
        hit = leaves.lookup(source) if leaves is not None else None
        if hit and hit.get("dim_name"):
            source_dims[source] = hit["dim_name"]
    return source_dims


def _guard_verdicts(error, spec_doc, leaves):
    """The violated guards of a failed export, each checked once over its Dim's range
    (guardcheck.judge), when this torch can defer guards to runtime checks; else []."""
    if not _can_defer_guards(error):
        return []
    return guardcheck.judge(str(error), _source_dims(error, leaves), guardcheck.root_ranges(spec_doc))


def _keyed_attempt(trace, keyed, log):
    """trace() keyed; where torch finds Dims constant under the keyed values (a
    violation 'specialized it to be a constant' of every Dim it names: MiniMax-M3-VL's
    patch count follows its image_grid_thw), the inputs with those Dims are traced
    static too, once (keyedinputs.constant_inputs)."""
    try:
        return trace()
    except Exception as e:  # noqa: BLE001 - raised again unless some inputs turn static
        more = keyedinputs.constant_inputs(parse_constraint_violation(str(e), None), trace.shapes) - trace.static
        if not more:
            raise
    log("keyed to %s, torch finds the sizes of %s constant: traced static too"
        % (keyedinputs.described(keyed), ", ".join(sorted(more))), stream="warning")
    trace.static.update(more)
    return trace()


def _keyed_failure_is_for_the_fix_loop(error, keyed, otherwise, log):
    """Says why a keyed trace failed; True where torch reports constraints to fix (the
    fix loop applies them and asks again), False where the earlier outcome stands."""
    first_line = str(error).split("\n")[0][:300]
    if parse_constraint_violation(str(error), None) is not None:
        log("keyed to %s, torch reports constraints to fix first (%s)" % (keyedinputs.described(keyed), first_line),
            stream="warning")
        return True
    log("keyed to %s, the export failed too (%s: %s); %s"
        % (keyedinputs.described(keyed), type(error).__name__, first_line, otherwise), stream="warning")
    return False


def _keyed_trace(error, trace, keyed, calls, index, log, where):
    """After `error` stopped an export on data-dependent code: a trace keyed to the inputs
    every recorded call passes alike (filled into `keyed`). Returns (program, its
    explainer, None); (None, its explainer, its failure) where torch reports constraints
    to fix for it (keyed stays: the fix loop applies them and asks again); else (None,
    None, `error`) with `keyed` empty: none to key, this torch cannot, or it failed too."""
    if not keyedinputs.value_dependent(error) or not keyedinputs.supported():
        return None, None, error
    keyed.update(keyedinputs.candidates(calls, calls[index]))
    if not keyed:
        return None, None, error
    where["location"] = model_line(error)  # the model's line that read the value
    log("torch stopped on data-dependent code; %s in every recorded call that passes it: tracing again with the "
        "program keyed to that value (it checks the input at its start and refuses another value)"
        % keyedinputs.described(keyed), stream="warning")
    explainer = Explainer(log)
    try:
        with explainer:
            return _keyed_attempt(trace, keyed, log), explainer, None
    except Exception as e:  # noqa: BLE001 - classified by the caller, or the first failure stands
        if _keyed_failure_is_for_the_fix_loop(e, keyed, "the first failure stands", log):
            return None, explainer, e
        keyed.clear()
        trace.static.clear()
        return None, None, error


def _keyed_if_unloadable(program, explainer, trace, keyed, calls, index, log):
    """(program, explainer): `program` itself, unless it reads the values of inputs every
    recorded call passes alike and torch cannot load it back (minimax_m3_vl: an
    ``_assert_scalar`` on ``Eq(u6, 64*((s99//4)))`` its deserializer refuses); then a
    trace keyed to them (filled into `keyed`) where that one loads. Checked in memory,
    only for programs that read values (keyedinputs.reads_values)."""
    if not keyedinputs.reads_values(program) or not keyedinputs.supported():
        return program, explainer
    found = keyedinputs.candidates(calls, calls[index])
    problem = keyedinputs.load_problem(program) if found else None
    if problem is None:
        return program, explainer
    keyed.update(found)
    log("the program reads the values of %s and torch cannot load it back (%s); tracing again with the program "
        "keyed to them (it checks them at its start and refuses other values)"
        % (keyedinputs.described(keyed), problem), stream="warning")
    again = Explainer(log)
    try:
        with again:
            keyed_program = _keyed_attempt(trace, keyed, log)
        unusedreads.drop(keyed_program, log)
        later = keyedinputs.load_problem(keyed_program)
        if later is None:
            return keyed_program, again
        log("keyed to %s, torch cannot load the program back either (%s)" % (keyedinputs.described(keyed), later),
            stream="warning")
    except Exception as e:  # noqa: BLE001 - the first program stands, or the fix loop fixes the spec first
        if _keyed_failure_is_for_the_fix_loop(e, keyed, "the first program stands", log):
            raise
    keyed.clear()
    trace.static.clear()
    return program, explainer


# An archive's program is probed when the archive is written (write_archive's result
# has its probes); this stays its report only where no archive was written.
DEFERRED_PROBES = "probed when the archive is written, beside its check in a new interpreter; no archive was written"


def _probe_ranges(model, program, calls, served, shapes, cap, log, module, verify_cpu, runs, keep_rejected=True):
    """The declared ranges of `program`, probed from the calls verification served
    (probes.py). Returns (the result's `probes`, the rejected probes kept for an archive's
    other programs or None, {"probe": s, "probe_cpu": s}). Probing reports; it never
    fails an export."""
    from . import probes

    t, cpu = time.perf_counter(), time.process_time()
    kept = [] if keep_rejected else None
    try:
        found = probes.probe(model, program, calls, served, shapes, cap=cap, log=log, keep_rejected=kept,
                             module=module, time_budget=probes.budget(verify_cpu, runs))
    except Exception as e:  # noqa: BLE001 - probing reports; it never fails an export
        found = {"skipped": "probing failed: %s: %s" % (type(e).__name__, e), "dims": [], "probes": [],
                 "seconds": time.perf_counter() - t}
        log("range probes: " + found["skipped"], stream="warning")
    return found, kept, {"probe": time.perf_counter() - t, "probe_cpu": time.process_time() - cpu}


def run_export(model, calls, spec_doc, output, device="cpu", strict=False, call=None,
               verify_calls=True, progress=_noop, log=_noop, eager_cache=None, among=None, inputs=(),
               archive=None, held_out=None, probe=False, probe_cap=None, draft_export=False):
    """The whole export; returns the result dict, raises WorkerError or torch's exception.

    `draft_export`: trace with torch.export.draft_export (draftexport.py: the fix loop's
    route past data-dependent model code); its decisions are explanations of kind
    `assumption` and the result says `draft_export`.

    `probe`: after verification, synthesized calls across every Dim's declared range run
    through the program and the eager model (probes.py; result `probes`, never part of
    `verified`). `probe_cap`: the largest size probed where a Dim has no max.

    `archive`: an archive.Target whose path is `output`: the program is kept in the worker
    under its name, not written or checked in a new interpreter (the result says "held");
    archive.write_held writes the archive once with the programs named (default: a file
    of its own, saved and checked now).

    `among`: the indices of the calls this program serves (one phase of a capture whose
    calls one program cannot serve); the example call is one of them and only they are
    replayed. Default: every call. `inputs`: (role, path) of the files the export reads,
    which the output may not be (check_output). `held_out`: a heldout.Replay replayed
    through a file of its own in its fresh-process check (result `held_out`)."""
    among = _check_among(calls, among)
    import torch

    timings = {}
    t = time.perf_counter()
    try:
        shapes = speclib.load_dynamic_shapes(spec_doc)
    except speclib.SpecError as e:
        raise WorkerError("bad_spec", "the dynamic_shapes spec is invalid: %s" % e) from e
    check_output(output, inputs)
    index = choose_example(shapes, calls, call, log, among)
    named = call_inputs(calls[index])
    shapes = with_constants(shapes, bound_inputs(calls[index]))
    args, kwargs = call_arguments(calls[index])
    progress("export", "%s on call %d (%s, %s)" % ("torch.export.draft_export" if draft_export else "torch.export.export",
                                                  index, device, "strict" if strict else "non-strict"), None)

    keyed = {}  # inputs the program is keyed to by value (keyedinputs.py), after a data-dependent stop
    keyed_where = {}  # the model's line that stopped the export on their values
    keyed_static = set()  # inputs whose sizes the keyed values fix: traced static too

    def trace(**options):
        exporter = draftexport.export if draft_export else varkeyword.export
        spec = keyedinputs.static_spec(shapes, set(keyed) | keyed_static)
        with keyedinputs.keyed(model, keyed) if keyed else contextlib.nullcontext():
            if gradmode.switches(model):  # found by an earlier trace of this model: trace once
                with torch.no_grad():
                    return exporter(model, args, kwargs, spec, strict, log, **options)
            program = exporter(model, args, kwargs, spec, strict, log, **options)
            switch = gradmode.switch_in(program) if torch.is_grad_enabled() else None
            if switch is None:
                return program
            log(gradmode.reason(switch), stream="warning")
            gradmode.remember(model)
            with torch.no_grad():
                return exporter(model, args, kwargs, spec, strict, log, **options)
    trace.shapes, trace.static = shapes, keyed_static  # for _keyed_attempt
    t = time.perf_counter()
    # torch's shape decisions during this export, with the model's lines (explain.py).
    explainer = Explainer(log)
    deferred = program = failure = None
    try:
        with explainer:
            program = trace()
        # Unused aten.item nodes would make the saved program unloadable (unusedreads.py).
        unusedreads.drop(program, log)
        # A program that reads values torch cannot load back: keyed to them instead.
        program, explainer = _keyed_if_unloadable(program, explainer, trace, keyed, calls, index, log)
    except Exception as e:  # noqa: BLE001 - classified below, or raised again
        # Data-dependent code reading an input every recorded call passes alike: trace
        # again with the program keyed to that value (keyedinputs.py).
        program, keyed_explainer, failure = _keyed_trace(e, trace, keyed, calls, index, log, keyed_where)
        explainer = keyed_explainer or explainer
    if program is None:
        e = failure
        leaves = _leaf_map(calls[index], args, kwargs, shapes, log)
        verdicts = _guard_verdicts(e, spec_doc, leaves)
        # Guards torch could not decide but that hold on every value checked: all of
        # them (export again, deferred), or those of some Dims (leave their fixes out).
        deferred = guardcheck.all_deferrable(verdicts)
        if deferred is None:
            # What errors.classify needs to turn torch 2.6's unbounded max fixes into finite ones.
            e.dimscope_bounds = (spec_doc, *max_positions(model))
            # errors.classify names the violations' leaves and Dims with the same map.
            e.dimscope_leaves = leaves
            e.dimscope_deferrable = guardcheck.dims_deferrable(verdicts)
            e.dimscope_explanations = _explanations(explainer, e.dimscope_leaves, log)
            raise e
    if deferred is not None:
        # Guards torch could not decide but that hold on every checked value of their
        # Dims: export again with them as checks inside the program (guardcheck.py).
        log("torch could not prove %d guard(s) for every value of the Dims' ranges, though each holds on "
            "every value checked: %s; exporting again with them as runtime checks in the program "
            "(prefer_deferred_runtime_asserts_over_guards)" % (len(deferred), "; ".join(
                "%s (%s)" % (d["expression"], d["checked"]) for d in deferred)), stream="warning")
        explainer = Explainer(log)
        try:
            with explainer:
                program = trace(prefer_deferred_runtime_asserts_over_guards=True)
        except Exception as e:
            e.dimscope_bounds = (spec_doc, *max_positions(model))
            e.dimscope_leaves = _leaf_map(calls[index], args, kwargs, shapes, log)
            e.dimscope_explanations = _explanations(explainer, e.dimscope_leaves, log)
            raise
    timings["export"] = time.perf_counter() - t
    unusedreads.drop(program, log)  # after a keyed or deferred trace too
    leaves = _leaf_map(calls[index], args, kwargs, shapes, log)
    explanations = _explanations(explainer, leaves, log)
    if draft_export:
        # Each decision torch took from the example call's values, with its runtime assertion.
        explanations += _draft_assumptions(program, leaves, log)
    # Each input the program is keyed to, with the check it makes.
    explanations += keyedinputs.assumptions(keyed, calls, keyed_where.get("location"))
    # The Dim name of each of the program's symbols, saved in the .pt2 with it (dimnames.py).
    dimnames.remember(program, leaves)
    if verify_calls:
        # The waiting check interpreter imports the model's classes while this one saves and verifies.
        freshcheck.preload(program)
    t = time.perf_counter()
    fresh = {}
    if archive is None:
        progress("save", "saving %s" % output, None)

        def in_a_fresh_process(saved):
            # Loaded in a new interpreter the way users load it, before it replaces anything.
            progress("fresh_process", "loading %s in a new interpreter" % output, None)
            fresh.update(freshcheck.check(program, saved, args, kwargs, device, index, log, shown_as=output,
                                          held_out=held_out))

        save_atomically(program, output, inputs, check=in_a_fresh_process if verify_calls else None)
        timings["save"] = time.perf_counter() - t - fresh.get("seconds", 0.0)
    else:
        # Kept in the worker: the archive is written once, with every program that serves
        # calls, and checked in one new interpreter when the export ends (write_archive).
        archive.keep(program, args, kwargs, index, device)
        log("program %r kept for %s: nothing written yet; the archive is written once with every program "
            "that serves calls, and checked in one new interpreter, when the export ends" % (archive.name, output))
    result = {"output": os.path.abspath(output), "example_call": index, "device": device, "strict": strict,
              "program": archive.name if archive is not None else "model"}
    if archive is not None:
        result["held"] = True
    if fresh:
        timings["fresh_process"] = fresh["seconds"]
        result["fresh_process"] = fresh
    if held_out is not None and held_out.result is not None:
        result["held_out"] = held_out.result
    result.update(describe_program(program))
    result["explanations"] = explanations
    if draft_export:
        result["draft_export"] = True
    if keyed:
        result["keyed_inputs"] = {name: value.tolist() for name, value in keyed.items()}
        # Inputs whose sizes the keyed values fix, traced static with them.
        result["keyed_static"] = sorted(keyed_static)
    if deferred is not None:
        result["deferred_guards"] = deferred
    if verify_calls:
        t, cpu = time.perf_counter(), time.process_time()
        stats = {}
        module = program.module()  # one module for verification, the batch-1 slice and the probes
        rows = verify(model, program, calls, progress, example_keys=set(named), eager_cache=eager_cache,
                      among=among, stats=stats, module=module)
        log("verification ran the eager model on %d of %d call(s)%s; the others' outputs agreed with those "
            "recorded at capture time" % (stats["eager_runs"], len(rows), " (%d more from the warm worker's "
                                          "earlier run)" % stats["eager_cached"] if stats["eager_cached"] else ""))
        # Row 0 of the example call, when the program declares its batch from 1 (batchslice.py).
        result["batch_slice"] = batchslice.check(model, module, index, spec_doc, shapes,
                                                 bound_inputs(calls[index]), args, kwargs, compare_outputs,
                                                 _guards_suppressed, log)
        timings["verify"] = time.perf_counter() - t
        # CPU seconds too: on a shared machine they move less than the wall clock (bench_probes).
        timings["verify_cpu"] = time.process_time() - cpu
        if probe and any(r["status"] == "ok" for r in rows) and all(r["status"] in ("ok", "rejected") for r in rows):
            # The declared ranges, probed from the calls verification served (probes.py).
            # A program that rejects some calls is probed too: the phased export keeps it
            # for the calls it serves (an encoder-decoder's decode program, tried first on
            # every call, rejects the prefill's empty cross-attention cache), and it was
            # left unprobed. One that computes a call wrong is the fix loop's, not probed.
            # Its time budget from verification's: the program on every call, the eager
            # model where it ran, both on the batch-1 slice.
            runs = len(rows) + stats["eager_runs"] + (2 if result["batch_slice"]["status"] != "skipped" else 0)
            served = [r["call"] for r in rows if r["status"] == "ok"]
            job = functools.partial(_probe_ranges, model, program, calls, served, shapes, probe_cap, log, module,
                                    timings["verify_cpu"], runs)
            if archive is None:
                progress("probe", "probing the declared ranges of the program", None)
                result["probes"], _, probe_timings = job(keep_rejected=False)
                timings.update(probe_timings)
            else:
                # Run when the archive is written, while a new interpreter loads and checks
                # it: the worker's CPU probes, the other core loads (archive.write_held).
                archive.held[archive.name].deferred_probes = job
                result["probes"] = {"skipped": DEFERRED_PROBES, "dims": [], "probes": [], "seconds": 0.0}
        # The eager outputs verification needed all came from the warm worker's earlier run.
        result["eager_reused"] = stats["eager_cached"] > 0 and stats["eager_runs"] == 0
        result["eager_calls"] = stats["eager_runs"]
        result["verification"] = rows
        result["verified"] = all(r["status"] == "ok" for r in rows)
    result["timings"] = timings
    return result

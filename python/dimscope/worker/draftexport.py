# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.export.draft_export as the fix loop's route past data-dependent model code
(issue 20 item 3; docs/worker-protocol.md, "Draft export").

torch.export stops where the model branches on a value read from a tensor (Phi-3's
LongRoPE: ``if seq_len > original_max_position_embeddings`` on
``torch.max(position_ids) + 1``). ``torch.export.draft_export`` (torch 2.7+) traces with
the example call's real values: each such decision takes the branch the example call
takes, and torch puts a runtime assertion into the program that the decision holds.
Its report lists each decision with the model's line; `assumptions()` turns them into
explanations of kind ``assumption`` (the decision, the runtime assertion it became,
the line), shown like torch's other shape decisions. The program is then verified like
any other: a recorded call that violates an assertion is rejected, never served.

Where draft_export meets a constraint violation it exports with Dim.AUTO instead of the
spec's Dims; here that is not accepted: the same trace with real values runs through
torch.export.export, whose constraint violation (with torch's fixes) goes to the fix
loop, which applies them and asks for a draft export again."""

import contextlib
import gc
import os
import re
import shutil
import tempfile
import warnings

from . import torchpatch, varkeyword
from .errors import WorkerError

# torch 2.14's message of an exported program's runtime assertion.
_ASSERTION = re.compile(r"Runtime assertion failed for expression (.+?) on node '")
_UNBACKED = re.compile(r"\bu\d+\b")
_NEGATED = (("Eq(", "Ne("), ("Ne(", "Eq("))
_COMPARISONS = ((" <= ", " > "), (" >= ", " < "), (" < ", " >= "), (" > ", " <= "))


def available():
    """Whether this torch has the public torch.export.draft_export (torch 2.7+)."""
    try:
        import torch

        return callable(getattr(torch.export, "draft_export", None))
    except Exception:  # noqa: BLE001 - no torch: no draft export
        return False


@contextlib.contextmanager
def _private_trace_folder():
    """draft_export writes its structured trace to a file under $TORCH_DTRACE (default: a
    folder in the system's temporary folder, left behind): here a private folder,
    removed afterwards."""
    import torch._logging._internal as internal

    variable = getattr(internal, "DTRACE_ENV_VAR", "TORCH_DTRACE")
    folder = tempfile.mkdtemp(prefix="dimscope-draft-trace-")
    previous = os.environ.get(variable)
    os.environ[variable] = folder
    try:
        # torch drops its trace handler without closing the file: not the user's warning.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            try:
                yield
            finally:
                gc.collect()
    finally:
        if previous is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = previous
        shutil.rmtree(folder, ignore_errors=True)


def _real_tensor_config():
    """torch's settings under which draft_export traces (the real values propagated)."""
    import torch

    config = torch._functorch.config
    wanted = ("fake_tensor_propagate_real_tensors", "generate_fake_kernels_from_real_mismatches")
    return config.patch(**{k: True for k in wanted if hasattr(config, k)})


@contextlib.contextmanager
def _offsets_checked_without_guards():
    """While tracing with real values, torch checks each operator's fake output against
    the real one, and compares a symbolic storage offset with the real offset by `!=`
    (torch._subclasses.fake_utils._check_fake_real_tensors): a guard, which specializes
    the Dim. Every transformers prefill slices its last position
    (`hidden_states[:, -1:, :]`, offset (seq_len - 1) * hidden), so draft_export would
    pin seq_len to the example call's. Here torch's check runs with the shape
    environment's guards suppressed: the sizes are compared by their values on the
    example call (a real mismatch is still one), and no guard is added."""
    def make(original):
        def check(real_out, fake_out, *args, **kwargs):
            shape_env = getattr(getattr(fake_out, "fake_mode", None), "shape_env", None)
            with shape_env.suppress_guards() if shape_env is not None else contextlib.nullcontext():
                return original(real_out, fake_out, *args, **kwargs)
        return check

    with torchpatch.replaced("torch._subclasses.fake_utils", None, "_check_fake_real_tensors", make):
        yield


BATCHED = "batched_mm"


@contextlib.contextmanager
def batched_experts(model, log=None):
    """Within: a transformers model whose mixture-of-experts layers dispatch on
    ``experts_implementation`` (``use_experts_implementation``) runs transformers'
    ``batched_mm`` one. The default ``grouped_mm`` sorts the tokens by expert and
    ``eager`` loops over the experts hit: draft_export cannot trace the first
    (``PendingUnbackedSymbolNotFound``, Qwen3.5-MoE's vision-language model) and turns the
    second into runtime assertions of the example's routing. ``batched_mm`` computes the
    same values with one batched matmul per token and expert, sizes known from the input.
    The model's own choice is restored after."""
    config = getattr(model, "config", None)
    current = getattr(config, "_experts_implementation", None)
    setter = getattr(model, "set_experts_implementation", None)
    if current in (None, BATCHED) or not callable(setter) or \
            not any(_has_experts_implementations(type(m)) for m in model.modules()):
        yield
        return
    try:
        setter(BATCHED)
    except Exception as e:  # this transformers refuses it for the model: trace as it is
        if log is not None:
            log("the experts keep their %r implementation while tracing with torch.export.draft_export (%s: %s)"
                % (current, type(e).__name__, e))
        yield
        return
    if log is not None:
        log("while tracing with torch.export.draft_export, the mixture-of-experts layers run transformers' %r "
            "experts implementation instead of %r (set_experts_implementation): draft_export cannot trace tokens "
            "sorted or looped by expert; %r computes the same values with sizes known from the inputs, and the "
            "verification below compares them" % (BATCHED, current, BATCHED))
    try:
        yield
    finally:
        setter(current)


def _failure_type(failure):
    return str(getattr(failure, "failure_type", ""))


def export(model, args, kwargs, shapes, strict, log=None, **options):
    """torch.export.draft_export of the call; returns the program (its report on it).
    Raises torch's constraint violation where draft_export would have relaxed the spec's
    Dims to Dim.AUTO, and a WorkerError where this torch has no draft_export."""
    import torch

    if not available():
        raise WorkerError("bad_request", "this torch (%s) has no torch.export.draft_export (torch 2.7+): %s"
                          % (torch.__version__, WORKAROUNDS_TEXT))
    with _private_trace_folder(), _offsets_checked_without_guards(), batched_experts(model, log):
        program = varkeyword.export(model, args, kwargs, shapes, strict, log, exporter=torch.export.draft_export,
                                    **options)
    report = getattr(program, "_report", None)
    relaxed = [f for f in getattr(report, "failures", None) or [] if _failure_type(f) == "GUARD_ADDED"]
    if relaxed:
        # draft_export met a constraint violation and exported with Dim.AUTO: the same
        # trace through torch.export.export raises it, with torch's suggested fixes.
        with _real_tensor_config(), _offsets_checked_without_guards(), batched_experts(model):
            varkeyword.export(model, args, kwargs, shapes, strict, log, **options)
        raise WorkerError("export_failed", "torch.export.draft_export replaced the spec's Dims with Dim.AUTO "
                          "because of guard(s) %s, but the same trace through torch.export.export passed"
                          % "; ".join(str(f.data.get("expr")) for f in relaxed))
    return program


def runtime_assertions(program):
    """The expressions of the program's runtime assertions (in nested graphs too:
    a `torch.no_grad` region is a submodule)."""
    import torch

    found = []
    for module in program.graph_module.modules():
        graph = getattr(module, "graph", None)
        if not isinstance(module, torch.fx.GraphModule) or graph is None:
            continue
        for node in graph.nodes:
            if node.op == "call_function" and "_assert_scalar" in str(node.target) and len(node.args) > 1:
                m = _ASSERTION.search(str(node.args[1]))
                if m and m.group(1) not in found:
                    found.append(m.group(1))
    return found


def negated(expression):
    """torch's expression negated in its own printing (`Eq(u0, 1)` -> `Ne(u0, 1)`,
    `u0 > 64` -> `u0 <= 64`), else `Not(...)`."""
    e = expression.strip()
    for a, b in _NEGATED:
        if e.startswith(a) and e.endswith(")"):
            return b + e[len(a):]
    for a, b in _COMPARISONS:
        if e.count(a) == 1 and "(" not in e:
            return e.replace(a, b)
    return "Not(%s)" % e


def _held(expression, result):
    """What the program assumes: the expression as it came out on the example call."""
    return expression if str(result).strip() == "True" else negated(expression)


def _matching(assumed, assertions):
    """The program's assertion for an assumption: the same text, else those on the same
    data-dependent symbols."""
    flat = assumed.replace(" ", "")
    exact = [a for a in assertions if a.replace(" ", "") == flat]
    if exact:
        return exact
    symbols = set(_UNBACKED.findall(assumed))
    return [a for a in assertions if symbols and symbols & set(_UNBACKED.findall(a))]


def _named(text, names):
    """Input size symbols as the spec's Dim names."""
    return re.sub(r"\b(s\d+)\b", lambda m: names.get(m.group(1), m.group(1)), text)


def assumptions(program, leaves=None, log=None):
    """The draft export's decisions as explanation dicts (docs/worker-protocol.md,
    "explanations"): kind `assumption`, the decision and the runtime assertion it became,
    the model's line. Never raises (an empty list and a log line)."""
    try:
        return _assumptions(program, leaves)
    except Exception as e:  # noqa: BLE001 - the report is shown, never needed to export
        if log is not None:
            log("draft export: could not read torch's report (%s: %s)" % (type(e).__name__, e), stream="warning")
        return []


def _assumptions(program, leaves):
    from . import dimnames
    from .explain import _event_frames, _interned, _location, _torch_dir

    report = getattr(program, "_report", None)
    if report is None:
        return []
    names = dimnames.symbol_names(program, leaves) if leaves is not None else {}
    assertions = runtime_assertions(program)
    # File names are interned once per process: the report has those first seen in this trace.
    interned = _interned()
    interned.update(getattr(report, "str_to_filename", None) or {})
    torch_dir = _torch_dir()
    out = []
    for failure in report.failures:
        kind, data = _failure_type(failure), dict(failure.data or {})
        frames = _event_frames(data.get("user_stack"), interned, torch_dir)
        location = _location(frames)
        if kind == "DATA_DEPENDENT_ERROR":
            expr = str(data.get("expr") or "")
            assumed = _held(expr, data.get("result"))
            found = _matching(assumed, assertions)
            text = "%s is %s (as on the example call)" % (_named(expr, names), data.get("result"))
            text += ("; runtime assertion: %s" % _named(" and ".join(found), names) if found else
                     "; torch put no runtime assertion for it into the program: a call that decides it the "
                     "other way is not rejected")
            entry = {"expression": text, "torch_expression": expr, "assertion": " and ".join(found),
                     "result": str(data.get("result")), "occurrences": data.get("occurrences")}
        elif kind in ("MISSING_FAKE_KERNEL", "MISMATCHED_FAKE_KERNEL"):
            op = str(data.get("op"))
            why = "has no fake kernel" if kind == "MISSING_FAKE_KERNEL" else "has a fake kernel that disagrees " \
                "with its real one (%s)" % data.get("reason")
            entry = {"expression": "torch.ops.%s %s: its output shapes come from the example call's real run"
                                   % (op, why), "torch_expression": op, "assertion": ""}
        else:
            continue
        symbols = sorted(set(re.findall(r"\b[su]\d+\b", entry["torch_expression"])))
        entry.update(kind="assumption", dims=sorted({names[s] for s in symbols if s in names}), symbols=symbols,
                     value=None, reason="draft_export", sources=[], location=location, stack=frames)
        out.append(entry)
    return out


# The workarounds torch's and transformers' documentation give for data-dependent code.
WORKAROUNDS_TEXT = ("torch._check(...) on the value before the branch, torch.cond for a branch both ways must "
                    "serve, or the model's other implementation (transformers: experts_implementation for "
                    "mixture-of-experts layers)")


def _class_at(place):
    """The class, in a module already loaded, whose ``forward`` holds ``place`` ({file,
    line}); None when none does. Nothing is imported."""
    import inspect
    import os
    import sys

    path, line = (place or {}).get("file"), (place or {}).get("line")
    if not path or not isinstance(line, int):
        return None
    path = os.path.realpath(path)
    for module in list(sys.modules.values()):
        if os.path.realpath(getattr(module, "__file__", None) or "") != path:
            continue
        for value in list(vars(module).values()):
            forward = inspect.unwrap(vars(value).get("forward")) if isinstance(value, type) and \
                callable(vars(value).get("forward")) else None
            code = getattr(forward, "__code__", None)
            if code is not None and os.path.realpath(code.co_filename) == path and \
                    code.co_firstlineno <= line < code.co_firstlineno + _line_count(forward):
                return value
    return None


def _line_count(function):
    import inspect

    try:
        return len(inspect.getsourcelines(function)[0])
    except (OSError, TypeError):
        return 0


def _has_experts_implementations(cls):
    """Whether transformers' ``use_experts_implementation`` decorated the experts class
    (its forward dispatches on ``config._experts_implementation``)."""
    return hasattr(cls, "_apply_gate") and hasattr(vars(cls).get("forward"), "__wrapped__")


def workaround(source, frames=()):
    """Which documented workaround applies to data-dependent code at `source` ({file,
    line, function, code}), with `frames` the stack above it."""
    code = (source or {}).get("code") or ""
    texts = [code] + [(f.get("code") or "") + " " + (f.get("function") or "") for f in frames or []]
    texts.append((source or {}).get("function") or "")
    if any("expert" in t.lower() for t in texts):
        # The innermost class around the line (frames run outermost first).
        cls = _class_at(source) or next(filter(None, (_class_at(f) for f in reversed(list(frames or [])))), None)
        if cls is not None and not _has_experts_implementations(cls):
            return ("torch._check(...) on the values in the model's code, or a batched form of its experts: %s "
                    "loops over the experts the tokens were routed to (a loop over a tensor's values), and this "
                    "transformers offers no other experts implementation for it (experts_implementation applies "
                    "to experts classes decorated with use_experts_implementation)" % cls.__name__)
        return ("the model's other experts implementation: load it with experts_implementation=\"batched_mm\" "
                "(or \"grouped_mm\"); transformers' \"eager\" one loops over the experts the tokens were routed "
                "to, a loop over a tensor's values")
    if re.match(r"^\s*(if|elif|while)\b", code) or " if " in code:
        return ("torch.cond in the model's code where calls must take either branch (both are traced and the "
                "program chooses when it runs), or torch._check(...) on the value before the branch where one "
                "branch is enough (the program checks it when it runs)")
    return ("torch._check(...) on the value in the model's code (the torch.export tutorial, 'Data-dependent "
            "errors'), so that torch can decide the expression")

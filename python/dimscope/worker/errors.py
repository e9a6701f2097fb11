# SPDX-License-Identifier: GPL-3.0-or-later
"""Structured failures of the export worker (docs/worker-protocol.md, "Errors").

`classify(exc)` turns whatever torch.export raised into a dict with a `kind`, the
message, the traceback and kind-specific fields, so that the C++ side never parses
Python tracebacks itself.
"""

import os
import re
import traceback

# Defined in dimscope.exceptions; imported here, where the worker and tests look for it.
from ..exceptions import WorkerError  # noqa: F401


def _tb_text(exc):
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def error_dict(kind, message, traceback_text=None, **fields):
    d = {"kind": kind, "message": message, "traceback": traceback_text}
    d.update(fields)
    return d


# --- constraint violations -------------------------------------------------------

_SOURCE = re.compile(r"L\[[^\s]*?\.size\(\)\[\d+\]")


def source_to_path(source):
    """`L['args'][1]['x'].size()[0]` -> ("x", 0); `L['args'][0][1].size()[0]` -> ("args[1]", 0);
    strict mode's `L['x'].size()[0]` -> ("x", 0). None when the form is unknown."""
    m = re.match(r"^L(.*)\.size\(\)\[(\d+)\]$", source)
    if not m:
        return None
    rest, dim = m.group(1), int(m.group(2))
    if rest.startswith("['args'][1]"):
        rest = rest[len("['args'][1]"):]
    elif rest.startswith("['args'][0]"):
        rest = "args" + rest[len("['args'][0]"):]
    mk = re.match(r"^\['([^']+)'\](.*)$", rest)
    if mk:
        rest = mk.group(1) + mk.group(2)
    return rest, dim


def _violation_source(src, leaves):
    """{"source", "path", "dim", "dim_name"} of a torch source: the capture's key path and
    the spec's Dim name through `leaves` (explain.LeafMap of the export), else the path
    read from torch's text (`past_key_values['key_cache'][0]` for a kwarg cache: a
    form dimscope's key paths do not use, kept only when the leaf is unknown)."""
    hit = leaves.lookup(src) if leaves is not None else None
    if hit:
        return {"source": src, "path": hit["path"], "dim": hit["dim"], "dim_name": hit.get("dim_name")}
    p = source_to_path(src)
    return {"source": src, "path": p[0], "dim": p[1], "dim_name": None} if p else None


def _violation(text, leaves=None):
    v = {"text": text, "dims": [], "sources": [], "kind": "guard"}
    v["dims"] = sorted(set(re.findall(r"\b([A-Za-z_]\w*) = L\[", text)))
    seen = set()
    for src in _SOURCE.findall(text):
        entry = _violation_source(src, leaves)
        # torch names a leaf dim once per mention (`x = L[..]` and in the guard): once here.
        if entry and (entry["path"], entry["dim"]) not in seen:
            seen.add((entry["path"], entry["dim"]))
            v["sources"].append(entry)
    named = re.match(r"\s*(?:- )?You marked ([A-Za-z_]\w*) as dynamic but your code specialized it "
                     r"to be a constant", text)
    if named:
        # torch 2.8+'s wording of 2.6's "<name> ... inferred to be a constant" for a
        # named Dim (the Dim.DYNAMIC form names a source, not a Dim).
        v["kind"] = "constant"
        v["dims"] = sorted(set(v["dims"]) | {named.group(1)})
    elif "RelaxedUnspecConstraint" in text or "as dynamic but your code specialized" in text:
        v["kind"] = "dynamic_specialized"
    elif "inferred to be a constant" in text:
        v["kind"] = "constant"
    elif "must always be equal" in text:
        v["kind"] = "equal"
    elif "must always be related" in text:
        v["kind"] = "derived"
    elif "in the specified range" in text:
        v["kind"] = "range"
    return v


# dimscope's package folder (this module is in its worker/ subpackage): frames there are
# dimscope's, not the user's.
_PACKAGE_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (.+)$')


def _is_library_file(path):
    """torch's, transformers' and this package's own files: not where the user's code is."""
    f = os.path.abspath(path)
    here = _PACKAGE_FOLDER
    return (f.startswith(here) or "/site-packages/" in f or "/dist-packages/" in f
            or f.startswith("<") or "/torch/" in f)


def _stack_frames(lines):
    """Frames of a `User stack:` block (traceback.format lines): file, line, function, code."""
    frames = []
    for line in lines:
        m = _FRAME.match(line)
        if m:
            frames.append({"file": m.group(1), "line": int(m.group(2)), "function": m.group(3).strip(),
                           "code": ""})
        elif frames and not frames[-1]["code"] and line.strip() and not set(line.strip()) <= set("~^ "):
            frames[-1]["code"] = line.strip()
    return frames


def _attach_stack(violation, frames):
    """torch 2.8+ writes where a Dim was specialized as a `User stack:` block after
    the violation line: its frames, and the innermost one in the user's code."""
    if not frames:
        return
    violation["stack"] = frames
    user = [f for f in frames if not _is_library_file(f["file"])]
    violation["source"] = (user or frames)[-1]


def parse_constraint_violation(message, leaves=None):
    """Violation lines, suggested fix lines and the names from a ConstraintViolation text.
    Returns None when the text is not one. torch 2.8+ follows a violation with a
    `User stack:` (and `Framework stack:`) block and may repeat a violation; the stack
    becomes the violation's `stack` and `source`, repeats are dropped. `leaves`
    (explain.LeafMap) names the sources' leaves by capture key path and Dim name."""
    m = re.search(r"Constraints violated \((.*?)\)!", message)
    if not m:
        return None
    violations, stacks, fixes = [], [], []
    in_fixes = False
    stack = None  # lines of the stack block being read
    for line in message.splitlines():
        if line.startswith("Suggested fixes:"):
            in_fixes, stack = True, None
            continue
        if in_fixes:
            # The fix block is indented; newer torch appends unindented hints after it.
            if line.startswith("  ") and line.strip():
                fixes.append(line.strip())
                continue
            if fixes:
                in_fixes = False
            continue
        if line.strip() in ("User stack:", "Framework stack:"):
            stack = [] if line.strip() == "User stack:" and violations else None
            if stack is not None:
                stacks[-1] = stack
            continue
        if line.startswith("  - "):
            stack = None
            violations.append(line[4:].rstrip())
            stacks.append(None)
        elif stack is not None:
            stack.append(line)
        elif violations and line.startswith("    ") and line.strip():
            violations[-1] += " " + line.strip()
    parsed, seen = [], {}
    for text, lines in zip(violations, stacks):
        v = _violation(text, leaves)
        _attach_stack(v, _stack_frames(lines or []))
        if text in seen:  # a repeat: keep the first, with a stack if either has one
            if "stack" in v and "stack" not in seen[text]:
                seen[text].update(stack=v["stack"], source=v["source"])
            continue
        seen[text] = v
        parsed.append(v)
    return {
        "names": [n.strip() for n in m.group(1).split(",") if n.strip()],
        "violations": parsed,
        "fixes": fixes,
    }


# --- data-dependent guards ---------------------------------------------------------

def _user_frames(exc):
    """Frames of the traceback outside torch and this package: the user's code."""
    import torch

    torch_dir = os.path.dirname(torch.__file__)
    here = _PACKAGE_FOLDER
    frames = []
    for fs in traceback.extract_tb(exc.__traceback__):
        f = os.path.abspath(fs.filename)
        if f.startswith(torch_dir) or f.startswith(here) or "/site-packages/" in f or "/dist-packages/" in f:
            continue
        if _not_the_models(fs.filename):  # before abspath, which makes '<string>' a path
            continue
        frames.append({"file": fs.filename, "line": fs.lineno, "function": fs.name, "code": fs.line or ""})
    return frames


def _model_frames(exc):
    """Frames of the traceback outside torch and this package, installed packages'
    (transformers) included: where the model's code was."""
    if exc is None or exc.__traceback__ is None:
        return []
    return [{"file": fs.filename, "line": fs.lineno, "function": fs.name, "code": fs.line or ""}
            for fs in traceback.extract_tb(exc.__traceback__)
            if "/torch/" not in fs.filename and not os.path.abspath(fs.filename).startswith(_PACKAGE_FOLDER)
            and not _not_the_models(fs.filename)]


def _not_the_models(filename):
    """Frames torch runs on the model's behalf: sympy (its shape expressions) and code it
    generates (`<string>`, `<eval_with_key>`)."""
    return filename.startswith("<") or "/sympy/" in filename


def _chained_model_frames(exc):
    """The model's frames of `exc`, else of the exception it was raised from or while
    handling (draft_export raises torch's error again from its own frames)."""
    seen = set()
    while exc is not None and id(exc) not in seen and len(seen) < 16:
        seen.add(id(exc))
        frames = _model_frames(exc)
        if frames:
            return frames
        exc = exc.__cause__ or exc.__context__
    return []


def model_line(exc):
    """The innermost frame of the model's code in `exc` (or what it was raised from):
    {file, line, function, code}, or None."""
    frames = _chained_model_frames(exc)
    return frames[-1] if frames else None


def _data_dependent(message, exc):
    expr = None
    m = re.search(r"data-dependent expression (.+?)(?: \(unhinted|\.\s|\n|$)", message)
    if m:
        expr = m.group(1).strip()
    src = None
    m = re.search(r'The following call raised this error:\n\s*File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)', message)
    if m and not _not_the_models(m.group(1)):
        src = {"file": m.group(1), "line": int(m.group(2)), "function": m.group(3), "code": m.group(4).strip()}
    else:
        # The user's own code, else the model's (an installed package's, transformers').
        frames = _user_frames(exc) or _chained_model_frames(exc)
        if frames:
            src = frames[-1]
    from . import draftexport

    # Which documented workaround applies, and whether the fix loop can try
    # torch.export.draft_export instead (draftexport.py).
    workaround = draftexport.workaround(src, _model_frames(exc))
    return {"expression": expr, "source": src, "workaround": workaround,
            "draft_export_available": draftexport.available(), "hint": "workaround: " + workaround}


# --- the classifier ----------------------------------------------------------------

def classify(exc):
    """A structured error dict for an exception raised by torch.export.export, with the
    shape decisions torch made before it failed (`explanations`, set by
    exporter.run_export) when the export got that far."""
    err = _classify(exc)
    explanations = getattr(exc, "dimscope_explanations", None)
    if explanations is not None:
        err["explanations"] = explanations
    return err


def _classify(exc):
    if isinstance(exc, WorkerError):
        # The worker's own frames are noise here; the user's traceback, when any, is not.
        fields = dict(exc.fields)
        return error_dict(exc.kind, str(exc), fields.pop("user_traceback", None), **fields)
    message = str(exc)
    tb = _tb_text(exc)
    name = type(exc).__name__

    parsed = parse_constraint_violation(message, getattr(exc, "dimscope_leaves", None))
    if parsed is not None:
        kinds = {v["kind"] for v in parsed["violations"]}
        kind = "dynamic_specialized" if kinds == {"dynamic_specialized"} else "constraint_violation"
        err = error_dict(kind, message.splitlines()[0], tb, raw=message, **parsed)
        bounds = getattr(exc, "dimscope_bounds", None)  # set by exporter.run_export
        err = bound_unbounded_fixes(err, *bounds) if bounds else err
        return drop_deferrable_fixes(err, getattr(exc, "dimscope_deferrable", None))

    if name == "GuardOnDataDependentSymNode" or "data-dependent expression" in message:
        return error_dict("data_dependent", message.split("\n")[0], tb, raw=message,
                          **_data_dependent(message, exc))

    if ("Detected mismatch between the structure of `inputs` and `dynamic_shapes`" in message
            or "`dynamic_shapes` is specified as a dict, its top-level keys" in message
            or re.match(r"Node (arity|type) mismatch", message)):
        return error_dict("structure_mismatch", message.split("\nFor more information")[0], tb, raw=message)

    m = re.search(r"Unsupported input type <class '([^']+)'>", message) or \
        re.search(r"[Uu]nregistered.*?<class '([^']+)'>", message)
    if m:
        cls = m.group(1)
        return error_dict(
            "unregistered_pytree", message, tb, raw=message, type=cls,
            hint=("register %s with torch.utils._pytree.register_pytree_node(%s, flatten_fn, "
                  "unflatten_fn, flatten_with_keys_fn=...) before exporting (for transformers "
                  "caches, the registration the capture recorded)" % (cls, cls.rsplit(".", 1)[-1])))

    if "Untracked tensor used in export constraints" in message:
        return error_dict("constraint_violation", message.splitlines()[0], tb, raw=message,
                          names=[], violations=[_violation(message.splitlines()[0], getattr(exc, "dimscope_leaves", None))], fixes=[],
                          hint="strict mode lost the symbols of an input (often a cache class): "
                               "export with strict=False")
    # Where in the model's code torch gave up (Aria's experts loop for
    # PendingUnbackedSymbolNotFound): the innermost frame outside torch and dimscope.
    frames = _chained_model_frames(exc)
    where = {"source": frames[-1]} if frames else {}
    return error_dict("export_failed", "%s: %s" % (name, message.split("\n")[0]), tb, raw=message, **where)


# --- unbounded maxima (torch 2.6) ---------------------------------------------------

# torch 2.6 cannot bound some Dims that the model slices with (`mask[:, past_len:]`,
# transformers' cache handling): it suggests `Dim('past_len', max=9223372036854775807)`,
# which changes nothing, so the fix loop would stop. A finite max exports.
_UNBOUNDED = 2 ** 62
DEFAULT_MAX_POSITIONS = 4096
_FIX_DIM = re.compile(r"^(\w+) = Dim\('(\w+)'((?:,\s*\w+=-?\d+)*)\)$")
_POSITION_ATTRS = ("max_position_embeddings", "n_positions", "max_target_positions", "max_seq_len",
                   "seq_length", "n_ctx")


def max_positions(model):
    """(limit, why): the longest sequence the model's config allows, else dimscope's default."""
    config = getattr(model, "config", None)
    configs = [config]
    get_text = getattr(config, "get_text_config", None)
    if callable(get_text):
        try:
            configs.insert(0, get_text())
        except Exception:  # an odd config: the default below
            pass
    for cfg in configs:
        for attr in _POSITION_ATTRS:
            value = getattr(cfg, attr, None) if cfg is not None else None
            if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _UNBOUNDED:
                return value, "the model's config.%s" % attr
    return DEFAULT_MAX_POSITIONS, "dimscope's default (the model has no max_position_embeddings in its config)"


def bound_unbounded_fixes(err, spec_doc, limit, why):
    """Rewrites, in a classified constraint violation, every suggested fix that gives a
    Dim a max of 2^62 or more into the same Dim with max `limit` (and its min from the
    fix, else from the spec), and says so in `notes`. Returns `err`."""
    if err.get("kind") not in ("constraint_violation", "dynamic_specialized") or not err.get("fixes"):
        return err
    spec_min = {d.get("name"): d.get("min") for d in (spec_doc or {}).get("dims", []) if isinstance(d, dict)}
    fixes, notes = [], []
    for line in err["fixes"]:
        m = _FIX_DIM.match(line)
        if not m or m.group(1) != m.group(2):
            fixes.append(line)
            continue
        name = m.group(1)
        args = dict(kv.strip().split("=") for kv in m.group(3).split(",") if kv.strip())
        if int(args.get("max", 0)) < _UNBOUNDED:
            fixes.append(line)
            continue
        low = int(args["min"]) if "min" in args else spec_min.get(name)
        low_text = "min=%d, " % low if isinstance(low, int) else ""
        fixes.append("%s = Dim('%s', %smax=%d)" % (name, name, low_text, max(limit, low or 0)))
        notes.append("torch cannot bound %s (it suggested max=%s); dimscope sets its max to %d, %s"
                     % (name, args["max"], max(limit, low or 0), why))
    if notes:
        err["fixes"] = fixes
        err["notes"] = err.get("notes", []) + notes
        err["hint"] = "; ".join(filter(None, [err.get("hint"), *notes]))
    return err


_FIX_LHS = re.compile(r"^\s*([A-Za-z_]\w*)\s*=")


def drop_deferrable_fixes(err, dims):
    """Leaves out of a classified constraint violation torch's suggested fixes for `dims`
    (guardcheck.deferrable_dims: their guards hold on every value checked) and the helper
    Dims torch made for them (``_seq_len`` for ``seq_len``), and says so in `notes`: the
    next round exports with those guards as runtime checks instead. Returns `err`."""
    if not dims or err.get("kind") not in ("constraint_violation", "dynamic_specialized"):
        return err
    dropped_names = set(dims) | {"_" + d for d in dims}
    kept, dropped = [], []
    for line in err.get("fixes", []):
        m = _FIX_LHS.match(line)
        (dropped if m and m.group(1) in dropped_names else kept).append(line)
    if not dropped:
        return err
    note = ("torch's fixes %s were not applied: each guard behind them holds on every value of %s checked "
            "(guardcheck); once the other violations are fixed, the export keeps %s whole and checks those "
            "guards when the program runs" % ("; ".join(dropped), ", ".join(sorted(dims)), ", ".join(sorted(dims))))
    err["fixes"] = kept
    err["notes"] = err.get("notes", []) + [note]
    err["hint"] = "; ".join(filter(None, [err.get("hint"), note]))
    return err


# --- guards of the exported program (replay) ---------------------------------------

# torch 2.14's exported module checks its guards when called: `Guard failed:
# past_key_values['key_cache'][0].size()[2] <= 7` (the user's input path, not L[...]).
_GUARD_SIZE = re.compile(r"([A-Za-z_]\w*(?:\[(?:'[^']*'|\d+)\])*)\.size\(\)\[(\d+)\]")


def _guard_path(text):
    """`past_key_values['key_cache'][0]` -> `past_key_values.key_cache[0]` (capture key paths)."""
    return re.sub(r"\['([^']*)'\]", r".\1", text)


def parse_guard_failure(message):
    """{"expression", "text", "sources"} for an exported program's `Guard failed: EXPR`,
    `text` with each size written as `LEAF dim D`; None when the message is not one."""
    m = re.search(r"Guard failed: (.+)", message or "")
    if not m:
        return None
    expression = m.group(1).strip()
    sources = []
    for src in _GUARD_SIZE.finditer(expression):
        entry = {"source": src.group(0), "path": _guard_path(src.group(1)), "dim": int(src.group(2))}
        if entry not in sources:
            sources.append(entry)
    text = _GUARD_SIZE.sub(lambda s: "%s dim %s" % (_guard_path(s.group(1)), s.group(2)), expression)
    return {"expression": expression, "text": text, "sources": sources}


def guard_text(message):
    """The guard a program's rejection names ("input_ids.size()[1] <= 7"), else torch's
    first line without the exception's class ("Expected input at ..." from
    "RuntimeError: Expected input at ..."). Held-out calls, range probes and the
    AOTInductor step report rejections with it."""
    guard = parse_guard_failure(message)
    if guard:
        return guard["expression"]
    first = (message or "").strip().splitlines()[0][:500] if (message or "").strip() else ""
    kind, _, rest = first.partition(": ")
    return rest if kind.isidentifier() and kind.endswith(("Error", "Exception")) and rest else first

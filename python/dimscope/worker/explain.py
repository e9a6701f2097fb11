# SPDX-License-Identifier: GPL-3.0-or-later
"""Why a Dim came out static, narrowed, tied or guarded: the shape facts torch records
while it traces, each tied to the model's source line that caused it.

`Explainer` is a context manager around the one `torch.export.export` the worker runs
(no second export). While it is active, dimscope receives torch's
`symbolic_shape_specialization` and `guard_added_fast` events (`create_symbol` too, for
the symbols' sources) from torch's shape environment, and at each such event takes the
Python stack, which in non-strict export holds the model's own frames. `explanations()`
then turns the events into dicts (docs/worker-protocol.md, "explanations"): the kind,
torch's expression and the same in Dim names, the input leaves and dims involved, the
user's source line and the frames above it.

The events are taken where the shape environment sends them (its `trace_structured`,
wrapped while the export runs), not from torch's structured-trace logger
(`torch.__trace`): a handler there makes torch build every structured event of the
export (each fake tensor's description, a stack summary per event: 3-6% of an export,
issue 29 item 3). The stack is kept as (code, line) pairs; file lines are read only
when explanations are built. The logger is used where the wrapper cannot be (another
torch) and for the detailed trace (`guard_added`, which torch sends through the logger).

Everything here is best effort: a torch whose logging differs gives no explanations
(and a `log` line), never a failed export."""

import collections
import linecache
import logging
import os
import re
import sys
import sysconfig

_EVENTS = ("symbolic_shape_specialization", "guard_added", "guard_added_fast", "create_symbol")
# dimscope's package folder (this module is in its worker/ subpackage).
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"])


def _torch_dir():
    try:
        import torch

        return os.path.dirname(os.path.abspath(torch.__file__))
    except Exception:  # pragma: no cover - the worker has torch
        return None


def is_library_file(path, torch_dir=None):
    """torch's, installed packages' (transformers), Python's own and dimscope's files."""
    if not path or path.startswith("<"):
        return True
    f = os.path.abspath(path)
    return (_is_framework(path, torch_dir or _torch_dir()) or "/site-packages/" in f
            or "/dist-packages/" in f)


def _is_framework(path, torch_dir):
    """torch's, Python's and dimscope's files: never the line that explains a Dim."""
    if not path or path.startswith("<"):
        return True
    f = os.path.abspath(path)
    return ((torch_dir is not None and f.startswith(torch_dir + os.sep)) or f.startswith(_HERE + os.sep)
            or f.startswith(_STDLIB + os.sep) or "/torch/" in f)


class _Frame(collections.namedtuple("_Frame", "filename lineno name")):
    """One frame of a stack taken at an event; its line of code is read when needed."""

    line = None


def _stack_here():
    """The Python stack of the caller, outermost first, as (code, line) pairs: no file is
    read here (traceback.extract_stack reads every frame's line, at every event)."""
    frames, f = [], sys._getframe(1)
    while f is not None:
        frames.append((f.f_code, f.f_lineno))
        f = f.f_back
    frames.reverse()
    return frames


def _frame_summaries(stack):
    """Frames with filename, lineno, name and line; a stack of _stack_here's pairs is
    turned into them, one of traceback's FrameSummary objects is one already."""
    return [_Frame(f[0].co_filename, f[1], f[0].co_name) if isinstance(f, tuple) and len(f) == 2 else f
            for f in stack]


class _Handler(logging.Handler):
    """Keeps the events dimscope explains, with the Python stack at each of them."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.events = []

    def keep(self, key, metadata):
        if isinstance(metadata, dict):
            self.events.append((key, metadata, None if key == "create_symbol" else _stack_here()))

    def emit(self, record):
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict):
                return
            for key in _EVENTS:
                if key in metadata:
                    self.keep(key, metadata[key])
        except Exception:  # a logging handler must never raise into torch
            pass

    def handleError(self, record):  # noqa: N802 - logging's name
        pass


class _NoTraceback:
    """Stands in for torch's CapturedTraceback while an event's metadata is built for
    dimscope: its `stack` field (a summary of the whole stack, with every frame's line
    read) is the costliest part and unused here (the handler takes its own stack)."""

    @staticmethod
    def extract(*args, **kwargs):
        return _NoTraceback()

    def summary(self):
        return []


def _metadata_without_torch_stack(shapes, metadata_fn):
    real = getattr(shapes, "CapturedTraceback", None)
    if real is None:
        return metadata_fn()
    shapes.CapturedTraceback = _NoTraceback
    try:
        return metadata_fn()
    finally:
        shapes.CapturedTraceback = real


class Explainer:
    """with Explainer() as ex: torch.export.export(...); ex.explanations(leafmap)"""

    def __init__(self, log=None, detailed=False):
        self.handler = _Handler()
        self.log = log
        self.detailed = detailed
        self.active = False
        self.note = None
        self._prev_dtrace = None
        self._internal = None
        self._wrapped = None  # (module, torch's trace_structured) while the events are taken there

    def __enter__(self):
        try:
            import torch._logging._internal as internal

            self._internal = internal
            logger = logging.getLogger("torch.__trace")
            if not self.detailed and self._wrap_shape_events():
                self.active = True
                return self
            logger.addHandler(self.handler)
            if logger.level == logging.NOTSET or logger.level > logging.DEBUG:
                # torch sets DEBUG when it initializes logging; a handler alone would
                # otherwise see nothing.
                self._prev_level = logger.level
                logger.setLevel(logging.DEBUG)
            else:
                self._prev_level = None
            # Every guard comes as guard_added_fast. guard_added is the "detailed" twin
            # (with symbol_to_sources, frame locals), sent only when this flag is set,
            # as draft_export does; it slows a transformers export down tenfold
            # (every expression torch creates is traced with its stack), so it is
            # asked for only with detailed=True.
            if self.detailed and hasattr(internal, "GET_DTRACE_STRUCTURED"):
                self._prev_dtrace = internal.GET_DTRACE_STRUCTURED
                internal.GET_DTRACE_STRUCTURED = True
            self.active = True
        except Exception as e:  # another torch: no explanations
            self.note = "torch's structured trace is not available (%s: %s); no explanations" % (
                type(e).__name__, e)
        return self

    def _wrap_shape_events(self):
        """Takes the events the shape environment sends (its module's `trace_structured`)
        while the export runs, and passes every call on to torch's function (TORCH_TRACE
        and draft_export still see theirs). False where this torch has no such function."""
        import torch.fx.experimental.symbolic_shapes as shapes

        original = getattr(shapes, "trace_structured", None)
        if not callable(original):
            return False
        keep = self.handler.keep

        def trace_structured(name, metadata_fn=dict, **kwargs):
            if name in _EVENTS:
                try:
                    keep(name, _metadata_without_torch_stack(shapes, metadata_fn))
                except Exception:  # never raise into torch
                    pass
            return original(name, metadata_fn=metadata_fn, **kwargs)

        shapes.trace_structured = trace_structured
        self._wrapped = (shapes, original)
        return True

    def __exit__(self, *exc):
        if self.active and self._wrapped is not None:
            shapes, original = self._wrapped
            shapes.trace_structured = original
            self._wrapped = None
            self.active = False
        if self.active:
            logger = logging.getLogger("torch.__trace")
            logger.removeHandler(self.handler)
            if self._prev_level is not None:
                logger.setLevel(self._prev_level)
            if self._prev_dtrace is not None:
                self._internal.GET_DTRACE_STRUCTURED = self._prev_dtrace
            self.active = False
        return False

    def explanations(self, leaves=None):
        """The events as explanation dicts; never raises (an empty list and a log line)."""
        try:
            return build_explanations(self.handler.events, leaves or LeafMap())
        except Exception as e:
            if self.log:
                self.log("could not explain torch's shape decisions: %s: %s" % (type(e).__name__, e))
            return []


# --- input leaves ------------------------------------------------------------------

class LeafMap:
    """torch's input sources (`L['args'][1]['x'].size()[1]`, `L['x'].size()[1]`,
    `L['kwargs']['past_key_values'].layers[0].keys.size()[2]`) -> the capture's leaf key
    path, the dim and the Dim name of the spec the export got."""

    def __init__(self):
        self.by_source = {}  # torch tensor source (no .size()) -> (capture path, {dim: Dim name})

    @classmethod
    def build(cls, args, kwargs, shapes=None, bound=None, positional_names=()):
        """`args`, `kwargs`: what torch.export.export got; `shapes`/`bound`: the loaded
        dynamic_shapes and the inputs they match (exporter.with_constants /
        bound_inputs), for the Dim names; `positional_names`: the key path of each
        positional argument (the forward parameters they bind to)."""
        self = cls()
        names = {}
        if shapes is not None and bound is not None:
            try:
                from . import spec as speclib

                for _path, tensor, dims in speclib.walk(shapes, bound):
                    names.setdefault(id(tensor), {d: _dim_name(v) for d, v in dims.items()})
            except Exception:
                names = {}
        by_id = {}
        for i, value in enumerate(args):
            top = positional_names[i] if i < len(positional_names) else "args[%d]" % i
            for cap, inner, tensor in _tensor_leaves(value, top, ""):
                entry = (cap, names.get(id(tensor), {}))
                by_id.setdefault(id(tensor), entry)
                for prefix in ("L['args'][0][%d]" % i, "L['args'][%d]" % i, "L[%r]" % top):
                    self.by_source.setdefault(prefix + inner, entry)
                if "[" not in top:
                    self.by_source.setdefault("L[%r]" % top + inner, entry)
        for k, value in kwargs.items():
            for cap, inner, tensor in _tensor_leaves(value, k, ""):
                entry = (cap, names.get(id(tensor), {}))
                by_id.setdefault(id(tensor), entry)
                for prefix in ("L['args'][1][%r]" % k, "L['kwargs'][%r]" % k, "L[%r]" % k):
                    self.by_source.setdefault(prefix + inner, entry)
        try:
            # torch 2.14 strict export names the inputs by their place among the
            # flattened (args, kwargs) leaves: L['flat_args'][i].
            from torch.utils import _pytree as pytree

            for i, leaf in enumerate(pytree.tree_leaves((tuple(args), dict(kwargs)))):
                if id(leaf) in by_id:
                    self.by_source.setdefault("L['flat_args'][%d]" % i, by_id[id(leaf)])
        except Exception:
            pass
        return self

    def lookup(self, source):
        """{"source", "path", "dim", "dim_name"} for a `….size()[D]` source, or None."""
        m = re.match(r"^(.*)\.size\(\)\[(\d+)\]$", source or "")
        if not m:
            return None
        base, dim = m.group(1), int(m.group(2))
        entry = self.by_source.get(base)
        if entry is None:
            return None  # not an input leaf (a view's `._base`), or a form dimscope does not know
        path, names = entry
        return {"source": source, "path": path, "dim": dim, "dim_name": names.get(dim)}


def _dim_name(spec_entry):
    root = getattr(spec_entry, "root", None)
    name = getattr(spec_entry, "__name__", None)
    if name and root is not None and getattr(root, "__name__", None):
        # A derived Dim: torch's symbol is its root's.
        return root.__name__
    if isinstance(name, str):
        return name
    return None  # Dim.AUTO / Dim.DYNAMIC / static


def _tensor_leaves(value, cap_path, torch_path):
    """(capture key path, torch's key path text below the argument, tensor) of every
    tensor in `value`, following pytree's registrations (what torch flattens)."""
    import torch
    from torch.utils import _pytree as pytree

    if isinstance(value, torch.Tensor):
        yield cap_path, torch_path, value
        return
    t = type(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        for f in value._fields:
            yield from _tensor_leaves(getattr(value, f), "%s.%s" % (cap_path, f), "%s.%s" % (torch_path, f))
        return
    if t in (list, tuple):
        for i, c in enumerate(value):
            yield from _tensor_leaves(c, "%s[%d]" % (cap_path, i), "%s[%d]" % (torch_path, i))
        return
    if t in (dict, collections.OrderedDict, collections.defaultdict) or (
            isinstance(value, dict) and t not in pytree.SUPPORTED_NODES):
        for k, c in value.items():
            yield from _tensor_leaves(c, "%s[%r]" % (cap_path, k), "%s[%r]" % (torch_path, k))
        return
    entry = pytree.SUPPORTED_NODES.get(t)
    if entry is None:
        return
    keyed = getattr(entry, "flatten_with_keys_fn", None)
    if keyed is not None:
        pairs, _ = keyed(value)
    else:
        children, _ = entry.flatten_fn(value)
        pairs = [(pytree.SequenceKey(i), c) for i, c in enumerate(children)]
    for key, child in pairs:
        name = getattr(key, "key", getattr(key, "name", getattr(key, "idx", None)))
        yield from _tensor_leaves(child, "%s.%s" % (cap_path, name), torch_path + str(key))


# --- events -> explanations --------------------------------------------------------

_SYMBOL = re.compile(r"\b([su]\d+)\b")


def _interned():
    try:
        import torch._logging.structured as structured

        return {v: k for k, v in structured.INTERN_TABLE.items()}
    except Exception:
        return {}


def _split_top(text):
    """`a, b` at the top level of a call's arguments."""
    depth, parts, cur = 0, [], ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _readable(expr):
    """sympy's `Eq(a, b)` / `Ne(a, b)` as `a == b` / `a != b` (top level only)."""
    m = re.match(r"^(Eq|Ne)\((.*)\)$", expr.strip())
    if m:
        parts = _split_top(m.group(2))
        if len(parts) == 2:
            return "%s %s %s" % (parts[0], "==" if m.group(1) == "Eq" else "!=", parts[1])
    return expr.strip()


def _frames(stack, torch_dir):
    """The model's part of a Python stack: from the first frame outside torch and
    dimscope (the model's forward) to the innermost one, each frame marked `library`
    when it is torch's, an installed package's (transformers) or dimscope's."""
    if not stack:
        return []
    frames = [fs for fs in _frame_summaries(stack) if not (fs.filename or "").startswith("<")]
    # The model starts below the last dimscope frame (the worker's export call).
    ours = [i for i, fs in enumerate(frames) if os.path.abspath(fs.filename).startswith(_HERE + os.sep)
            and os.path.basename(fs.filename) != "explain.py"]
    if ours:
        frames = frames[ours[-1] + 1:]
    outside = [i for i, fs in enumerate(frames) if not _is_framework(fs.filename, torch_dir)]
    if not outside:
        return []
    out = []
    for fs in frames[outside[0]:outside[-1] + 1]:
        code = fs.line if fs.line is not None else linecache.getline(fs.filename, fs.lineno).strip()
        out.append({"file": fs.filename, "line": fs.lineno, "function": fs.name, "code": (code or "").strip(),
                    "library": is_library_file(fs.filename, torch_dir)})
    return out


def _event_frames(frames, interned, torch_dir):
    """The event's own `user_stack` (strict export: dynamo's view of the user's code)."""
    out = []
    for f in frames or []:
        if not isinstance(f, dict):
            continue
        name = f.get("filename")
        filename = interned.get(name, name) if isinstance(name, int) else name
        if not isinstance(filename, str) or filename.startswith("<"):
            continue
        line = int(f.get("line") or 0)
        code = f.get("loc") or linecache.getline(filename, line).strip()
        out.append({"file": filename, "line": line, "function": f.get("name") or "", "code": (code or "").strip(),
                    "library": is_library_file(filename, torch_dir)})
    return out


def _location(frames):
    """The user's line: the innermost frame that is not a library's; for a model that is
    itself a library's (transformers), the innermost frame outside torch and dimscope."""
    torch_dir = _torch_dir()
    frames = [f for f in frames or [] if not _is_framework(f["file"], torch_dir)]
    if not frames:
        return None
    user = [f for f in frames if not f["library"]]
    pick = (user or frames)[-1]
    return {k: pick[k] for k in ("file", "line", "function", "code")}


# One symbol (times a constant) compared with a constant: `s0 <= 16`, `2*s0 > 3`, `16 >= s0`.
_BOUND = re.compile(r"^(-?\d+\*?)?[su]\d+ *(<=|<|>=|>) *-?\d+$|^-?\d+ *(<=|<|>=|>) *(-?\d+\*?)?[su]\d+$")


def _classify_guard(expr, symbols):
    """(kind, value) of a guard: `Eq(s0, 4)` specialized, `s0 <= 16` range_narrowed,
    `Eq(s0, s1)` equality, anything else guard."""
    e = expr.strip()
    m = re.match(r"^Eq\(([su]\d+), (-?\d+)\)$", e) or re.match(r"^Eq\((-?\d+), ([su]\d+)\)$", e)
    if m:
        value = m.group(2) if m.group(1)[0] in "su" else m.group(1)
        return "specialized", int(value)
    if len(symbols) == 1 and _BOUND.match(e):
        return "range_narrowed", None
    if len(symbols) >= 2 and e.startswith("Eq("):
        return "equality", None
    return "guard", None


def build_explanations(events, leaves):
    torch_dir = _torch_dir()
    interned = _interned()
    symbol_sources = {}
    for key, md, _stack in events:
        if key == "create_symbol" and md.get("symbol") and md.get("source"):
            symbol_sources.setdefault(str(md["symbol"]), []).append(str(md["source"]))
    for key, md, _stack in events:
        if key in ("guard_added", "guard_added_fast"):
            for sym, src in (md.get("symbol_to_sources") or {}).items():
                if str(src) not in symbol_sources.setdefault(str(sym), []):
                    symbol_sources[str(sym)].append(str(src))
        elif key == "symbolic_shape_specialization":
            for src in md.get("sources") or []:
                if str(src) not in symbol_sources.setdefault(str(md.get("symbol")), []):
                    symbol_sources[str(md.get("symbol"))].append(str(src))

    def name_of(sym):
        for src in symbol_sources.get(sym, []):
            hit = leaves.lookup(src)
            if hit and hit.get("dim_name"):
                return hit["dim_name"]
        for src in symbol_sources.get(sym, []):
            hit = leaves.lookup(src)
            if hit and hit.get("path"):
                return "%s.size(%d)" % (hit["path"], hit["dim"])
        return sym

    out, seen, specialized = [], set(), set()
    for key, md, stack in events:
        if key == "create_symbol":
            continue
        if key == "symbolic_shape_specialization":
            sym = str(md.get("symbol"))
            expr = "Eq(%s, %s)" % (sym, md.get("value"))
            kind, value = "specialized", _int_or_none(md.get("value"))
            reason = md.get("reason")
        else:
            expr = str(md.get("expr") or "")
            syms = sorted(set(_SYMBOL.findall(expr)))
            kind, value = _classify_guard(expr, syms)
            reason = None
        syms = sorted(set(_SYMBOL.findall(expr)), key=lambda s: expr.index(s))
        # Only the input leaves' symbols: unbacked (data-dependent) ones and those of
        # torch's own views (`._base`) have no leaf.
        if not syms or not all(any(leaves.lookup(src) for src in symbol_sources.get(s, [])) for s in syms):
            continue
        frames = _frames(stack, torch_dir) or _event_frames(md.get("user_stack"), interned, torch_dir)
        location = _location(frames)
        if location is None and kind != "specialized":
            continue  # a guard of torch's input checks, not of the model's code
        names = {s: name_of(s) for s in syms}
        readable = _SYMBOL.sub(lambda m: names.get(m.group(1), m.group(1)), _readable(expr))
        if kind == "equality" and len(set(names.values())) == 1:
            continue  # two leaves of one Dim (`batch == batch`): what the spec already says
        sources = []
        for s in syms:
            for src in symbol_sources.get(s, []):
                hit = leaves.lookup(src)
                if hit is None:
                    continue
                hit = dict(hit, symbol=s)
                if hit not in sources:
                    sources.append(hit)
        ident = (kind, readable, location and (location["file"], location["line"]))
        if kind == "specialized":
            # torch logs a specialization twice (the Eq guard and the replacement):
            # one explanation, with whichever has the user's line.
            sid = (syms[0], value)
            if sid in specialized:
                if location:
                    for e in out:
                        if e["kind"] == "specialized" and e["symbols"] == syms and e["value"] == value \
                                and not e["location"]:
                            e.update(location=location, stack=frames)
                continue
            specialized.add(sid)
        if ident in seen:
            continue
        seen.add(ident)
        out.append({
            "kind": kind,
            "expression": readable,
            "torch_expression": expr,
            "dims": sorted({n for n in names.values() if n}),
            "symbols": syms,
            "value": value,
            "reason": reason,
            "sources": sources,
            "location": location,
            "stack": frames,
        })
    return out


def _int_or_none(v):
    try:
        return int(str(v))
    except (TypeError, ValueError):
        return None


def text_lines(explanations):
    """Compiler-style lines, `FILE:LINE: kind: expression` then the code, for logs."""
    lines = []
    for e in explanations:
        loc = e.get("location")
        head = "%s:%d: " % (loc["file"], loc["line"]) if loc else ""
        lines.append("%s%s: %s" % (head, e["kind"].replace("_", " "), e["expression"]))
        if loc and loc.get("code"):
            lines.append("    " + loc["code"])
    return lines

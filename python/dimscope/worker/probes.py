# SPDX-License-Identifier: GPL-3.0-or-later
"""Range probes (issue 24 item 3; docs/worker-protocol.md, "Range probes").

A program declares ranges (`batch [1, oo]`, `past_len [0, oo]`), but verification runs
only the recorded points. Probing synthesizes calls inside the declared range from the
program's recorded calls and runs each through the program and the eager model, compared
as verification compares: per Dim (one symbol of the program's inputs) its declared min,
min + 1, a value between two recorded values, one past the largest recorded value, and
its declared max or the cap (the request's `probe_cap`; else, for a Dim that indexes
positions, the model config's max_position_embeddings where it has one; for a batch-like
Dim, dim 0 of the batched inputs, and without the config, 4x the largest recorded value).

A probe moves one Dim; every size that is that Dim moves with it and sizes derived from
it follow (the program's own shapes give the relation), so the call stays consistent. A
sliding-window layer's cache length follows the tokens its layer has seen, as
min(seen, window - 1) (proberelations.windows), and is reported from the calls it took.
Tensors grow by repeating their recorded content along the dim (ids stay recorded ids,
caches and images hold recorded values), integer attention masks are ones. Probing
runs in the worker on the program and the model already loaded; it never changes the
program or the constraints: it reports.
"""

import copy
import time

from .resizedcalls import finite, moved_call, moved_elements, path_text, resized_shapes, symbol_values, user_inputs
from . import dimnames
from .errors import guard_text, max_positions

# A probe whose inputs would hold more elements than this is skipped (said so): probing
# must stay cheap next to verification.
_MAX_ELEMENTS = 1 << 24
_CAP_FACTOR = 4
# Probing's time, per program: BUDGET_FACTOR x the verification's, at least
# MIN_BUDGET_S. A probe whose estimated time (a verified call's, scaled by how many more
# input elements it holds) would end past it is not run, and said so: the top of a 0.5B
# model's position range (32,768 tokens through the program and the eager model on a
# CPU) took longer than the whole export (issue 29's benchmark). A cap, not the cost:
# probing a program that serves its ranges takes 1.2-1.4x verification (bench_probes).
# A probe no larger than the call it is made from runs whatever is left (`_Budget`).
# Counted in the worker's CPU seconds, as verification's: in an archive export the
# probes run while a new interpreter checks the archive (archive.write_held), and the
# wall clock would count that interpreter's work against them.
BUDGET_FACTOR = 3
MIN_BUDGET_S = 10.0


def _noop(*_args, **_kwargs):
    pass


def default_cap(model, largest, batch_like=False):
    """(cap, where it comes from) for a Dim whose largest recorded value is `largest`:
    max_position_embeddings caps the Dims that index positions (sequence and cache
    lengths); a batch-like Dim (`batch_like`: dim 0 of the batched inputs, _batch_like)
    has nothing to do with positions and gets 4x its largest recorded value, as does
    every Dim of a model without the config."""
    limit, why = max_positions(model)
    if why.startswith("the model's config") and not batch_like:
        return limit, why.replace("the model's ", "")
    return _CAP_FACTOR * max(1, largest), "%dx the largest recorded, %d" % (_CAP_FACTOR, largest)


def targets(lower, upper, recorded, cap):
    """The sizes probed for one Dim: min, min + 1, between recorded values, past the
    largest recorded value, and the top (the declared max, else `cap`), each within
    [lower, top], without the recorded values themselves (verification ran those)."""
    top = upper if upper is not None else max(cap, max(recorded))
    wanted = [lower, lower + 1]
    gaps = [(b - a, a, b) for a, b in zip(recorded, recorded[1:]) if b - a >= 2]
    if gaps:
        _, a, b = max(gaps)
        wanted.append((a + b) // 2)
    wanted += [max(recorded) + 1, top]
    return sorted({v for v in wanted if lower <= v <= top and v not in recorded})


def _masks_of_ones(args_kwargs, changed):
    """Integer or bool tensors named like an attention mask that were resized (`changed`:
    their ids) hold ones: a mask repeated from a padded one would pad mid-sequence."""
    import torch
    from torch.utils import _pytree as pytree

    def fill(path, leaf):
        if (isinstance(leaf, torch.Tensor) and id(leaf) in changed and not leaf.is_floating_point()
                and "attention_mask" in pytree.keystr(path)):
            return torch.ones_like(leaf)
        return leaf

    try:
        return pytree.tree_map_with_path(fill, args_kwargs)
    except Exception:  # noqa: BLE001 - a class without key paths (a cache): its masks stay as repeated
        return args_kwargs


def _elements(tree):
    import torch
    from torch.utils import _pytree as pytree

    return sum(x.numel() for x in pytree.tree_leaves(tree) if isinstance(x, torch.Tensor))


def _mutates_inputs(program):
    """Whether the program may write into its user inputs (then it runs on copies, so the
    eager model and later probes get the probe's own values); unknown: it does. The
    signature alone does not tell: a program torch did not functionalize keeps its
    in-place ops in the graph with no mutation in the signature (a static cache's
    `aten.index_copy_`: probes run on the call's own tensors wrote into the recorded
    cache, and every later call and the fresh-process check failed)."""
    import operator

    if getattr(program.graph_signature, "user_inputs_to_mutate", True):
        return True
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        schema = getattr(node.target, "_schema", None)
        if schema is not None:
            if schema.is_mutable:
                return True
        elif node.target is not operator.getitem and getattr(node.target, "__module__", None) not in ("_operator",
                                                                                                      "math"):
            return True  # a higher-order op or a Python function: it may mutate
    return False


def _run_probe(model, module, args, kwargs, compare, guards_suppressed, copy_inputs=True):
    """One probe through the program and the eager model: the row's status fields.
    `copy_inputs`: run the program on copies (False: it mutates none of its inputs)."""
    import torch

    with torch.no_grad():
        try:
            with guards_suppressed(module):
                if copy_inputs:
                    actual = module(*copy.deepcopy(args), **copy.deepcopy(kwargs))
                else:
                    actual = module(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the program's guard is the verdict
            text = ("%s: %s" % (type(e).__name__, str(e).strip()))[:4000]
            return {"status": "rejected", "message": text, "guard": guard_text(text)}
        try:
            expected = model(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        except Exception as e:  # noqa: BLE001 - the model's own failure: the probe cannot be verified
            return {"status": "eager_failed", "message": ("the eager model fails on it: %s: %s"
                                                          % (type(e).__name__, str(e).strip()))[:4000]}
    leaves, ok, message = compare(expected, actual)
    worst = max((leaf.get("max_abs", 0.0) for leaf in leaves), default=None)
    if ok:
        return {"status": "served", "message": None, "max_abs": worst}
    return {"status": "mismatch", "max_abs": worst,
            "message": "the program accepts it and its outputs differ from the eager model's (%s)"
                       % (message or "beyond atol=1e-4, rtol=1e-3")}


def budget(verify_seconds, program_runs):
    """(probing's budget in CPU seconds, the estimated CPU seconds of one probe of a
    verified call's size): verification took `verify_seconds` of this process's CPU time
    for `program_runs` runs of the program or the eager model, and a probe runs both."""
    per_run = verify_seconds / max(1, program_runs)
    return max(MIN_BUDGET_S, BUDGET_FACTOR * verify_seconds), 2 * per_run


def probe(model, program, calls, served, shapes, cap=None, log=_noop, compare=None, guards_suppressed=None,
          keep_rejected=None, module=None, time_budget=None):
    """Probes the declared range of `program` from its served calls (`served`: indices
    into `calls`). Returns the `probes` entry of the export result
    (docs/worker-protocol.md): {"dims": [...], "probes": [...], "seconds": ...}.
    `keep_rejected`: a list given (row, args, kwargs) of each rejected probe, for the
    archive's other programs to try (served_elsewhere). `module`: the program's module
    when the caller has one (verification's), else built here. `time_budget`: (seconds,
    estimated seconds of a probe the size of the call it is made from), see `budget`;
    None: no budget."""
    from .exporter import _guards_suppressed, compare_outputs

    compare = compare or compare_outputs
    guards_suppressed = guards_suppressed or _guards_suppressed
    t = time.perf_counter()
    result = {"dims": [], "probes": [], "seconds": 0.0}
    measured = []
    for i in served:
        inputs = user_inputs(program, calls[i])
        values = symbol_values(inputs) if inputs is not None else None
        if values is not None:
            measured.append((calls[i], inputs, values))
    if not measured:
        result["skipped"] = "no served call has the program's input structure: nothing to probe from"
        log("range probes: " + result["skipped"])
        return result
    names = dimnames.input_names(program, shapes, measured[0][0], measured[0][1])
    order = _symbol_order(measured[0][1])
    ties = _ties(program, measured[0][0], measured[0][1], order, measured)
    windowed = [w for w in ties["windows"] if w[0] not in ties["tied"]]
    names = _unique_names(names, [s for s in order if s not in ties["followers"]] + [w[0] for w in windowed])
    batched = _batch_like(measured[0][1], ties["equal"])
    plans = [plan for plan in (_plan_dim(model, program, s, names.get(s, str(s)), measured, cap, s in batched)
                               for s in order if s not in ties["followers"]) if plan is not None]
    runner = _Runner(model, program, module or program.module(), compare, guards_suppressed, ties, measured,
                     _Budget(time_budget) if time_budget is not None else None)
    rows = _probe_together(plans, runner)
    plans += _window_plans(program, windowed, names, plans, measured, runner, rows)
    for plan in plans:
        entry = plan["entry"]
        for row in sorted(rows[plan["symbol"]], key=lambda r: r["value"]):
            if row["status"] == "rejected" and keep_rejected is not None and id(row) in runner.kept:
                keep_rejected.append((row,) + runner.kept[id(row)])
            entry["probed"].append(row["value"])
            key = {"served": "served", "rejected": "rejected", "mismatch": "wrong"}.get(row["status"], "unverified")
            entry[key].append(row["value"])
            result["probes"].append(row)
        result["dims"].append(entry)
    result["seconds"] = time.perf_counter() - t
    result["runs"] = runner.runs
    if runner.budget is not None:
        result["budget_seconds"] = runner.budget.seconds
        result["over_budget"] = runner.budget.refused
    for line in summary_lines(result):
        log("range probes: " + line, stream="warning" if "rejected" in line or "WRONG" in line else "worker")
    return result


def _plan_dim(model, program, symbol, name, measured, cap, batch_like=False):
    """The report entry of one Dim and the sizes to probe it at; None for a symbol the
    program declares no range for. `batch_like`: the Dim is a batch (default_cap)."""
    r = program.range_constraints.get(symbol)
    if r is None:
        return None
    lower, upper = finite(r.lower) or 0, finite(r.upper)
    recorded = sorted({values[symbol] for _c, _i, values in measured if symbol in values})
    dim_cap, cap_source = (cap, "the request's probe_cap") if cap else default_cap(model, recorded[-1], batch_like)
    entry = {"dim": name, "symbol": str(symbol), "where": _where(measured[0][1], symbol), "declared": [lower, upper],
             "recorded": recorded, "cap": dim_cap, "cap_source": cap_source, "probed": [], "served": [],
             "rejected": [], "unverified": [], "wrong": []}
    if batch_like:
        entry["batch_like"] = True
    return {"symbol": symbol, "name": name, "entry": entry, "targets": targets(lower, upper, recorded, dim_cap)}


def _where(inputs, symbol):
    """`input_ids.size()[1]`: the first input size that is `symbol`."""
    return next(("%s.size()[%d]" % (path_text(p), d) for p, shape, _ in inputs if shape is not None
                 for d, s in enumerate(shape) if getattr(getattr(s, "node", None), "expr", None) == symbol), None)


def _batch_like(inputs, equal):
    """The symbols that size dim 0 and nothing else of the program's inputs, a tensor of
    2 or more dims among them, as the batch-1 slice's batch Dim (batchslice.py) sizes
    dim 0 of every tensor it sizes; a symbol an equality ties to one that sizes another
    dim is not one."""
    import torch

    dims, ranks = {}, {}
    for _path, shape, _value in inputs:
        for d, size in enumerate(shape or ()):
            if not isinstance(size, torch.SymInt):
                continue
            expr = size.node.expr
            for s in expr.free_symbols:
                dims.setdefault(s, set()).add(d if expr == s else -1)
                ranks[s] = max(ranks.get(s, 0), len(shape))
    out = {s for s, at in dims.items() if at == {0} and ranks[s] >= 2}
    for e in equal:
        if not e.free_symbols <= out:
            out -= e.free_symbols
    return out


def _probe_together(plans, runner):
    """{symbol: [row]}: every Dim's sizes, probed several Dims at once where one call
    can hold them. Call k holds Dim k's top (the declared max or the cap, the costly
    size) with every other Dim at one of its smaller sizes (each Dim's other sizes fill
    the calls that do not hold its top, smallest first, then its smallest again), so no
    call holds two Dims' tops. When such a call is served, each of its Dims is served at
    its size; otherwise each size is probed again on its own, as the Dim's own row, so
    that a rejection names the Dim it is about. A program that serves its ranges takes
    max(most sizes of one Dim, its Dims) calls instead of the sum of its Dims' sizes:
    probing stays within 1.5x of verification (tests/bench/bench_probes.py)."""
    rows = {plan["symbol"]: [] for plan in plans}
    probed = [plan for plan in plans if plan["targets"]]
    n = max([len(plan["targets"]) for plan in probed] + [len(probed)])
    slots = [[] for _ in range(n)]  # per call: (plan, size, whether this call probes that size)
    for i, plan in enumerate(probed):
        top, rest = plan["targets"][-1], plan["targets"][:-1]
        others = [k for k in range(n) if k != i]
        filler = rest[0] if rest else None  # a Dim with one size keeps its recorded one elsewhere
        slots[i].append((plan, top, True))
        for k, slot in enumerate(others):
            slots[slot].append((plan, rest[k], True) if k < len(rest) else (plan, filler, False))
    # The calls holding a Dim's top (slots[i], i < len(probed)), the costly sizes, run
    # last: under a time budget the smaller sizes are probed first.
    for slot in slots[len(probed):] + slots[:len(probed)]:
        sizes = {plan["symbol"]: value for plan, value, _probes in slot if value is not None}
        mine = [(plan, value) for plan, value, probes_it in slot if probes_it]
        together = runner.together(sizes) if len(sizes) > 1 else None
        for plan, value in mine:
            if together is not None and together["status"] == "served":
                row = {"dim": plan["name"], "value": value, **together,
                       "with": {p["name"]: v for p, v, _x in slot if p is not plan and v is not None}}
            else:
                row = {"dim": plan["name"], "value": value, **runner.alone(plan["symbol"], plan["name"], value)}
                runner.keep(row)
            rows[plan["symbol"]].append(row)
    return rows


class _Budget:
    """Probing's time budget for one program (`budget`): whether a probe whose inputs
    hold `elements`, made from a call whose inputs hold `source_elements`, is expected to
    end within it."""

    def __init__(self, time_budget):
        self.started = time.process_time()  # this process's threads, not the machine's other work
        self.seconds, self.per_probe = time_budget
        self.refused = 0

    def refusal(self, elements, source_elements):
        """None when the probe fits; else the reason it is not run. A probe whose inputs
        hold no more elements than the verified call it is made from always fits: it
        costs about that call's two runs, and those are the sizes at and below the
        recorded ones (each Dim's min and min + 1, torch's 0/1 boundary: batch 1, a
        1-token prompt), which pack beside another Dim's top in the calls run last."""
        if elements <= source_elements:
            return None
        scale = elements / max(1, source_elements)
        estimate = self.per_probe * scale
        left = self.seconds - (time.process_time() - self.started)
        if estimate <= left:
            return None
        self.refused += 1
        return ("about %.0f s to run (%.0fx a verified call's inputs), past the probe budget (%.0f s: %gx "
                "verification, at least %.0f s)" % (estimate, scale, self.seconds, BUDGET_FACTOR, MIN_BUDGET_S))


class _Runner:
    """Makes and runs probe calls for one program; a call whose input sizes another
    probe already had is not run again."""

    def __init__(self, model, program, module, compare, guards_suppressed, ties, measured, time_budget=None):
        self.model, self.program, self.module = model, program, module
        self.compare, self.guards_suppressed = compare, guards_suppressed
        self.budget = time_budget
        self.ties, self.measured = ties, measured
        self.seen, self.kept, self.runs = {}, {}, 0
        self.history = []  # (sizes, verdict, call index) of every call run, for _window_plans
        self.copy_inputs = _mutates_inputs(program)
        self._last = None

    def _sizes(self, values, moved):
        """`values` made consistent: sizes the guards tie (proberelations.consistent) and
        each sliding-window layer's length from the tokens its layer has seen."""
        from . import proberelations

        windows = self.ties["windows"]
        moved = set(moved) if isinstance(moved, (set, frozenset)) else {moved}
        values = proberelations.within_windows(values, windows)
        if not self.ties["equal"]:
            return values
        fixed = moved | {w[0] for w in windows}
        values = proberelations.consistent(values, fixed, self.ties["equal"], self.ties["followers"])
        if values is not None and windows:
            again = proberelations.within_windows(values, windows)
            if again != values:  # a guard moved the tokens seen: the windows follow once more
                values = proberelations.consistent(again, fixed, self.ties["equal"], self.ties["followers"])
        return values

    def _run(self, call, sizes):
        """(status fields, args, kwargs) of `call` resized to `sizes`; cached by sizes."""
        key = (call.index, tuple(sorted((str(s), v) for s, v in sizes.items())))
        if key in self.seen:
            return self.seen[key]
        from .exporter import call_arguments

        inputs = next(i for c, i, _v in self.measured if c is call)
        # The size of the probe's inputs is known before they are made: a probe refused
        # for its size is never built (a 0.5B model's cache at its 32768-token cap: 1.6 GB).
        shapes = resized_shapes(inputs, sizes)
        elements = moved_elements(inputs, shapes, _elements(call_arguments(call))) if shapes is not None else 0
        if shapes is None:
            out = ({"status": "skipped"}, None, None)
        elif elements > _MAX_ELEMENTS:
            out = ({"status": "skipped", "message": "the probe's inputs would hold more than %d elements"
                    % _MAX_ELEMENTS}, None, None)
        elif self.budget is not None and (refused := self.budget.refusal(elements, _elements(inputs))):
            out = ({"status": "skipped", "message": refused}, None, None)
        else:
            moved = moved_call(self.program, call, inputs, sizes, shapes)
            changed = {id(x) for x in _changed_leaves(moved, call)}
            args, kwargs = _masks_of_ones(moved, changed)
            self.runs += 1
            out = (_run_probe(self.model, self.module, args, kwargs, self.compare, self.guards_suppressed,
                              copy_inputs=self.copy_inputs), args, kwargs)
            self.history.append((sizes, out[0], call.index))
        self.seen[key] = out
        return out

    def together(self, wanted):
        """The verdict of one call with every Dim of `wanted` ({symbol: size}) moved, made
        from the served call with the most of them; None when no call can hold them."""
        ranked = sorted(self.measured, key=lambda m: -sum(m[2].get(s, 0) for s in wanted))
        for call, _inputs, values in ranked[:2]:
            sizes = self._sizes({**values, **wanted}, set(wanted))
            if sizes is None:
                return None
            verdict, _args, _kwargs = self._run(call, sizes)
            if verdict["status"] != "skipped" or "message" in verdict:
                return {**verdict, "call": call.index}
        return None

    def alone(self, symbol, name, value):
        """The verdict of the served call with the most of this Dim, with it moved to `value`."""
        call, _inputs, values = max(self.measured, key=lambda m: m[2].get(symbol, -1))
        sizes = self._sizes({**values, symbol: value}, {symbol})
        if sizes is None:
            self._last = None
            return {"call": call.index, "status": "skipped",
                    "message": "the call cannot be resized to %s = %d" % (name, value)}
        verdict, args, kwargs = self._run(call, sizes)
        self._last = (args, kwargs)
        if verdict["status"] == "skipped" and "message" not in verdict:
            verdict = {"status": "skipped", "message": "the call cannot be resized to %s = %d" % (name, value)}
        return {"call": call.index, **verdict}

    def keep(self, row):
        """Remembers the call of the row alone() just made (for keep_rejected)."""
        if self._last is not None:
            self.kept[id(row)] = self._last


def _window_plans(program, windows, names, plans, measured, runner, rows):
    """The report of each sliding-window layer's length (proberelations.windows): not
    probed on its own (no call holds it apart from the tokens its layer has seen), it took
    min(seen, window - 1) in the calls the other Dims' probes ran; each size it took that
    was not recorded is reported with the verdict of a call that held it (served where
    one was served). Fills `rows` and returns plans as _plan_dim's."""
    out = []
    for stored, seen, keep in windows:
        r = program.range_constraints.get(stored)
        if r is None:
            continue
        name, leader = names.get(stored, str(stored)), names.get(seen, str(seen))
        recorded = sorted({v[stored] for _c, _i, v in measured if stored in v})
        entry = {"dim": name, "symbol": str(stored), "where": _where(measured[0][1], stored),
                 "declared": [finite(r.lower) or 0, finite(r.upper)], "recorded": recorded, "cap": keep,
                 "cap_source": "min(%s, %d): a sliding-window layer keeps its last %d tokens (window %d)"
                               % (leader, keep, keep, keep + 1),
                 "follows": leader, "probed": [], "served": [], "rejected": [], "unverified": [], "wrong": []}
        held = {}
        for sizes, verdict, call in runner.history:
            value = sizes.get(stored)
            if value is None or value in recorded or verdict["status"] == "skipped":
                continue
            if value not in held or (verdict["status"] == "served") > (held[value][0]["status"] == "served"):
                held[value] = (verdict, call, sizes.get(seen))
        rows[stored] = [{"dim": name, "value": value, "call": call, **verdict, "with": {leader: at}}
                        for value, (verdict, call, at) in held.items()]
        out.append({"symbol": stored, "name": name, "entry": entry, "targets": sorted(held)})
    return out


def _symbol_order(inputs):
    """The symbols that are one input size on their own, in the inputs' order."""
    import torch

    order = []
    for _path, shape, _value in inputs:
        for size in shape or ():
            expr = size.node.expr if isinstance(size, torch.SymInt) else None
            if expr is not None and expr.is_Symbol and expr not in order:
                order.append(expr)
    return order


def _unique_names(names, order):
    """Two symbols the spec names alike (a Dim torch kept apart) are `past_len (s11)`."""
    counts = {}
    for s in order:
        counts[names.get(s, str(s))] = counts.get(names.get(s, str(s)), 0) + 1
    return {s: names.get(s, str(s)) if counts[names.get(s, str(s))] == 1 else "%s (%s)" % (names.get(s, str(s)), s)
            for s in order}


def _ties(program, call, inputs, order, measured):
    """The program's equalities between symbols (proberelations.py), its sliding-window
    layers' lengths (each min(tokens seen, window - 1): proberelations.windows) and the
    symbols that only follow others."""
    import torch
    from torch.utils import _pytree as pytree

    from . import proberelations
    from .exporter import call_arguments

    shape_of = {id(v): shape for _p, shape, v in inputs if shape is not None and isinstance(v, torch.Tensor)}
    sources = {}
    try:
        for path, leaf in pytree.tree_flatten_with_path(call_arguments(call))[0]:
            key = pytree.keystr(path)
            if key.startswith("[1]") and id(leaf) in shape_of:
                for d, size in enumerate(shape_of[id(leaf)]):
                    if isinstance(size, torch.SymInt) and size.node.expr.is_Symbol:
                        sources[("L" + key[3:], d)] = size.node.expr
    except Exception:  # noqa: BLE001 - a class without key paths: no relation is read
        sources = None
    recorded = [values for _c, _i, values in measured]
    equal = proberelations.equalities(program, sources, recorded) if sources is not None else []
    windows = proberelations.windows(call_arguments(call), inputs, measured)
    tied = proberelations.followers(equal, order)
    return {"equal": equal, "tied": tied, "followers": tied | {stored for stored, _seen, _keep in windows},
            "windows": windows}


def _changed_leaves(moved, call):
    """The tensors of `moved` that are not the call's own (resized ones)."""
    import torch
    from torch.utils import _pytree as pytree

    from .exporter import call_arguments

    own = {id(x) for x in pytree.tree_leaves(call_arguments(call)) if isinstance(x, torch.Tensor)}
    return [x for x in pytree.tree_leaves(moved) if isinstance(x, torch.Tensor) and id(x) not in own]


def _values_text(values):
    return ", ".join(str(v) for v in values)


def dim_line(dim, rows):
    """`batch (declared 1..oo): 1..8 served (cap 8: 4x the largest recorded, 2)`;
    `seq_len (declared 1..oo): 2..64 served (cap 64: config.max_position_embeddings); 1
    rejected (input_ids.size()[1] > 1)`."""
    served = sorted(set(dim["served"]) | set(dim["recorded"]))
    parts = []
    if dim["served"] or dim["recorded"]:
        parts.append("%s served" % ("%d..%d" % (served[0], served[-1]) if len(served) > 1 else served[0]))
    if dim["declared"][1] is None and dim.get("cap_source"):
        # Which cap stopped the probes where the program declares no max (default_cap).
        cap = "cap %s: %s" % (dim.get("cap"), dim["cap_source"])
        if parts:
            parts[0] += " (%s)" % cap
        else:
            parts.append(cap)
    by_guard = {}
    for row in rows:
        if row["status"] == "rejected":
            by_guard.setdefault(row.get("guard") or row["message"], []).append(row["value"])
    parts += ["%s rejected (%s)" % (_values_text(v), g) for g, v in by_guard.items()]
    for status, word in (("mismatch", "WRONG"), ("eager_failed", "not verified")):
        hit = [r for r in rows if r["status"] == status]
        if hit:
            parts.append("%s %s (%s)" % (_values_text([r["value"] for r in hit]), word, hit[0]["message"]))
    not_run = {}  # why -> sizes: too many elements, past the time budget, not resizable
    for row in rows:
        if row["status"] == "skipped":
            not_run.setdefault(row["message"], []).append(row["value"])
    parts += ["%s not probed (%s)" % (_values_text(v), why) for why, v in not_run.items()]
    declared = "%d..%s" % (dim["declared"][0], "oo" if dim["declared"][1] is None else dim["declared"][1])
    return "%s (declared %s): %s" % (dim["dim"], declared, "; ".join(parts) or "nothing probed")


def summary_lines(result):
    if result.get("skipped"):
        return [result["skipped"]]
    return [dim_line(d, [r for r in result["probes"] if r["dim"] == d["dim"]]) for d in result["dims"]]


def served_elsewhere(model, held, names, log=_noop):
    """The probes each program of an archive rejected, tried on the archive's other
    programs in its order (as a user's dispatcher would): {program: {"rows": [{"dim",
    "value", "served_by", "status", "message"}], "seconds", "cpu_seconds"}} (`served_by`
    null: no program accepts it; status
    `served`, `mismatch` (accepted with other outputs than the eager model's) or
    `eager_failed`). `held`: {name: archive.Held} whose `rejected_probes` probe() kept."""
    from .exporter import _guards_suppressed, compare_outputs

    modules, out = {}, {}
    for name in names:
        rows, t, cpu = [], time.perf_counter(), time.process_time()
        for row, args, kwargs in held[name].rejected_probes or []:
            answer = {"dim": row["dim"], "value": row["value"], "served_by": None, "status": "rejected",
                      "message": None}
            for other in names:
                if other == name:
                    continue
                if other not in modules:
                    modules[other] = held[other].program.module()
                verdict = _run_probe(model, modules[other], args, kwargs, compare_outputs, _guards_suppressed)
                if verdict["status"] != "rejected":
                    answer.update(served_by=other, status=verdict["status"], message=verdict["message"])
                    break
            rows.append(answer)
            log("range probes, program %s: %s = %d %s" % (
                name, row["dim"], row["value"], "rejected by every program" if answer["served_by"] is None
                else "rejected, served by program %s%s" % (answer["served_by"], "" if answer["status"] == "served"
                                                           else " (%s)" % answer["message"])))
        if rows:
            out[name] = {"rows": rows, "seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - cpu}
    return out

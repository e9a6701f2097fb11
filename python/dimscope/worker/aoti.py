# SPDX-License-Identifier: GPL-3.0-or-later
"""AOTInductor (issue 24 item 5; docs/worker-protocol.md, "aoti"): each program of a
`.pt2` compiled with `torch._inductor.aoti_compile_and_package` on the chosen device,
then, in a new interpreter started as the fresh-process check starts its own
(freshcheck.interpreter_command: the provisioned root's loader included), the package
loaded with `torch._inductor.aoti_load_package` as a user loads it and run on calls next
to the program itself (loaded there through dimscope.load_program).

The calls: the capture's, the held-out capture's when given, and per program the
range probes made here (`_range_probes`): a call the program serves with one Dim's
size moved just outside the range the program declares (its min - 1, its max + 1),
every size that is that Dim moving together and sizes derived from it following. Each
call is reported per program as
  `match`            both accept it, outputs agree (verification's tolerances);
  `differs`          both accept it, outputs differ: the package computes otherwise;
  `package_rejects`  the program serves it, the package fails on it;
  `lost_guard`       the program rejects it (its guard's text) and the package runs it:
                     the package lost the guard and will return garbage or crash;
  `guard_kept`       both reject it.
No eager model is loaded: the package is compared with the program it was made from.
AOTInductor checks inputs only when AOTI_RUNTIME_CHECK_INPUTS=1 is set where the
package runs; the new interpreter runs without it (as a user's process does) unless
`check_inputs` asks for it.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import traceback

from .errors import WorkerError
from .resizedcalls import finite, moved_call, path_text, symbol_values, user_inputs
from .freshcheck import _INPUTS, _SPEC, FIRST_PROGRAM, _import, _last_error, interpreter_command, needed_imports

_TIMEOUT_S = 900
_ANSWERS = "answers.json"
# A probe past a Dim's max is made only where that size stays small enough to build.
_PROBE_SIZE_CAP = 4096


def _noop(*_args, **_kwargs):
    pass


def supported():
    """None when the running torch compiles and loads AOTInductor packages, else why not."""
    import inspect

    import torch

    inductor = getattr(torch, "_inductor", None)
    compile_fn = getattr(inductor, "aoti_compile_and_package", None)
    if compile_fn is None or getattr(inductor, "aoti_load_package", None) is None:
        return ("torch %s has no torch._inductor.aoti_compile_and_package / aoti_load_package (AOTInductor "
                "packages need torch >= 2.6)" % torch.__version__)
    if "package_path" not in inspect.signature(compile_fn).parameters:
        return ("torch %s: torch._inductor.aoti_compile_and_package takes no package_path (AOTInductor packages "
                "need torch >= 2.6)" % torch.__version__)
    return None


def checks_inputs_at_run_time():
    """Whether this torch's packages check their inputs when AOTI_RUNTIME_CHECK_INPUTS=1
    is set where they run (torch 2.6 compiles the checks in only with
    aot_inductor.debug_compile, and reads no such variable)."""
    try:
        from torch._inductor.codegen import cpp_wrapper_cpu

        with open(cpp_wrapper_cpu.__file__, encoding="utf-8") as f:
            return "AOTI_RUNTIME_CHECK_INPUTS" in f.read()
    except (ImportError, OSError):
        return False


def package_paths(output, names):
    """The package of each program: `output` for the first, `<output stem>.<name>.pt2`
    beside it for the others of an archive."""
    stem = output[:-4] if output.endswith(".pt2") else output
    return {name: output if name == FIRST_PROGRAM else "%s.%s.pt2" % (stem, name) for name in names}


def run(params, progress=_noop, log=_noop):
    """The `aoti` request: compile (or take `package`), replay in a new interpreter, report."""
    import torch

    from .. import caches, capture
    from ..program import program_names

    program_path, capture_path = _path(params, "program"), _path(params, "capture")
    device = params.get("device") or "cpu"
    if device not in ("cpu", "cuda"):
        raise WorkerError("bad_request", "aoti: device must be cpu or cuda, not %r" % (device,))
    why = supported()
    if why is not None:
        raise WorkerError("aoti_unsupported", why)
    if device == "cuda" and not torch.cuda.is_available():
        raise WorkerError("no_cuda", "aoti: CUDA was asked for, but torch %s here sees no CUDA device "
                          "(torch.cuda.is_available() is False)" % torch.__version__)
    if params.get("check_inputs") and not checks_inputs_at_run_time():
        log("aoti: torch %s's packages read no AOTI_RUNTIME_CHECK_INPUTS (they check inputs only when compiled "
            "with aot_inductor.debug_compile): the replay runs them as they are" % torch.__version__, stream="warning")
    names = program_names(program_path)
    given = params.get("package")
    if given is not None and len(names) != 1:
        raise WorkerError("bad_request", "aoti: 'package' checks one program's package; %s holds %d programs"
                          % (program_path, len(names)))
    output = given or params.get("output") or (program_path[:-4] if program_path.endswith(".pt2")
                                               else program_path) + ".aoti.pt2"
    packages = {names[0]: os.path.abspath(given)} if given else package_paths(os.path.abspath(output), names)
    existing = [p for p in packages.values() if os.path.exists(p)] if given is None else []
    if existing and not params.get("overwrite"):
        raise WorkerError("output_exists", "aoti: %s exists; ask for overwrite to replace it" % ", ".join(existing))
    calls = []
    for kind, path in (("call", capture_path), ("held_out", params.get("held_out"))):
        if path:
            cap = _load_capture(capture, caches, path)
            calls += [(kind, call) for call in cap.calls]
    t = time.perf_counter()
    entries = [_program_entry(name, program_path, packages[name], calls, device, given is None, progress, log)
               for name in names]
    return _replay_and_report(entries, program_path, calls, device, bool(params.get("check_inputs")),
                              time.perf_counter() - t, progress, log)


def _path(params, key):
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise WorkerError("bad_request", "aoti needs %r (a path)" % key)
    if not os.path.isfile(value):
        raise WorkerError("bad_request", "aoti: %s %s does not exist" % (key, value))
    return os.path.abspath(value)


def _load_capture(capture, caches, path):
    try:
        cap = capture.load_capture(path, device="cpu")
        caches.register_capture_flattening(cap.manifest)
    except Exception as e:  # noqa: BLE001 - a bad file is the request's error, named with the file
        raise WorkerError("capture", "%s: %s" % (path, e), user_traceback=traceback.format_exc()) from e
    return cap


def _program_entry(name, program_path, package, calls, device, compile_it, progress, log):
    """One program: loaded, its range probes made, compiled into `package` (unless the
    package was given)."""
    import dimscope

    program = dimscope.load_program(program_path, name=name)
    probes = _range_probes(program, [c for kind, c in calls])
    seconds = None
    if compile_it:
        progress("aoti", "compiling program %s with AOTInductor on %s" % (name, device))
        seconds = _compile(program, package, device, calls, log)
        log("aoti: program %s compiled into %s in %.1f s" % (name, package, seconds))
    return {"name": name, "program": program, "package": package, "probes": probes, "compile_seconds": seconds}


def _compile(program, package, device, calls, log):
    """aoti_compile_and_package into a temporary file beside `package`, renamed into
    place once it is whole. Returns the seconds it took."""
    import torch

    from . import rootlaunch

    cxx = rootlaunch.compiler()
    if cxx is not None:
        from torch._inductor import config

        config.cpp.cxx = (None, cxx)
    if program.example_inputs is None:
        served = [c for _, c in calls if _fits(program, c)] or [c for _, c in calls if _runs(program, c)][:1]
        if not served:
            raise WorkerError("aoti", "the program records no example inputs and serves no call of the capture")
        from .exporter import call_arguments

        program.example_inputs = call_arguments(served[0])
    if device == "cuda":
        from torch.export.passes import move_to_device_pass

        program = move_to_device_pass(program, "cuda")
    folder = os.path.dirname(package) or "."
    fd, tmp = tempfile.mkstemp(prefix=".dimscope-aoti-", suffix=".pt2", dir=folder)
    os.close(fd)
    t = time.perf_counter()
    try:
        torch._inductor.aoti_compile_and_package(program, package_path=tmp)
        os.replace(tmp, package)
    except Exception as e:
        if isinstance(e, WorkerError):
            raise
        raise WorkerError("aoti", "AOTInductor failed to compile %s: %s: %s" % (
            os.path.basename(package), type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""),
            user_traceback=traceback.format_exc()) from e
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return time.perf_counter() - t


# ------------------------------------------------------------------ range probes

def _runs(program, call):
    """Whether the program runs the call (its own input check)."""
    import torch

    from .exporter import _guards_suppressed, call_arguments

    module = program.module()
    args, kwargs = call_arguments(call)
    try:
        with torch.no_grad(), _guards_suppressed(module):
            module(*args, **kwargs)
    except Exception:  # noqa: BLE001 - rejected: not this program's call
        return False
    return True


def _fits(program, call):
    """Whether the call has the program's structure and sizes in its declared ranges."""
    inputs = user_inputs(program, call)
    values = symbol_values(inputs) if inputs is not None else None
    if values is None:
        return False
    for symbol, value in values.items():
        r = program.range_constraints.get(symbol)
        lower, upper = (finite(r.lower) or 0, finite(r.upper)) if r is not None else (0, None)
        if value < lower or (upper is not None and value > upper):
            return False
    return True


def _range_probes(program, calls):
    """Per Dim (symbol) of the program's inputs: its first served call with that size
    moved to min - 1 and to max + 1 (where those are sizes, and max + 1 at most
    _PROBE_SIZE_CAP). Returns [(description, args, kwargs)]."""
    base = next((c for c in calls if _fits(program, c)), None)
    if base is None:
        return []
    inputs = user_inputs(program, base)
    values = symbol_values(inputs)
    probes = []
    for symbol in sorted(values, key=str):
        r = program.range_constraints.get(symbol)
        if r is None:
            continue
        lower, upper = finite(r.lower) or 0, finite(r.upper)
        targets = [lower - 1] if lower >= 1 else []
        if upper is not None and upper + 1 <= _PROBE_SIZE_CAP:
            targets.append(upper + 1)
        where = next("%s.size()[%d]" % (p, d) for p, shape, _ in inputs if shape is not None
                     for d, s in enumerate(shape) if getattr(getattr(s, "node", None), "expr", None) == symbol)
        for target in targets:
            moved = moved_call(program, base, inputs, {**values, symbol: target})
            if moved is not None:
                text = "call %d with %s (%s, declared %d..%s) = %d" % (
                    base.index, path_text(where), symbol, lower, "oo" if upper is None else upper, target)
                probes.append((text,) + moved)
    return probes


# ------------------------------------------------------------------ replay and report

def _write_call(folder, args, kwargs):
    import torch
    from torch.utils import _pytree as pytree

    os.mkdir(folder)
    leaves, spec = pytree.tree_flatten((args, kwargs))
    torch.save([x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in leaves],
               os.path.join(folder, _INPUTS))
    with open(os.path.join(folder, _SPEC), "w", encoding="utf-8") as f:
        json.dump({"spec": pytree.treespec_dumps(spec)}, f)
    return folder


def _work_items(entries, calls, folder):
    """[(program name, package, call folder, what the call is)]: every call of the
    captures through every program, then each program's probes through it."""
    from .exporter import call_arguments

    shared = [(kind, call.index, _write_call(os.path.join(folder, "c%d" % n), *call_arguments(call)))
              for n, (kind, call) in enumerate(calls)]
    items = []
    for p, entry in enumerate(entries):
        items += [(entry["name"], entry["package"], sub, {"kind": kind, "call": index}) for kind, index, sub in shared]
        for n, (text, args, kwargs) in enumerate(entry["probes"]):
            sub = _write_call(os.path.join(folder, "p%d_%d" % (p, n)), args, kwargs)
            items.append((entry["name"], entry["package"], sub, {"kind": "probe", "probe": text}))
    return items


def _replay(items, program_path, imports, device, check_inputs, folder, log):
    """Runs the items in new interpreters, one after another: when one dies (a package
    that crashes on a call it should have rejected), that item is reported as the crash
    and the next interpreter goes on after it. Returns one answer per item."""
    answers_path = os.path.join(folder, _ANSWERS)
    env = dict(os.environ)
    env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    if check_inputs:
        env["AOTI_RUNTIME_CHECK_INPUTS"] = "1"
    answers, interpreters = [], 0
    while len(answers) < len(items):
        request = {"pt2": program_path, "imports": imports, "device": device, "answers": answers_path,
                   "items": [[name, package, sub] for name, package, sub, _ in items[len(answers):]]}
        open(answers_path, "w").close()
        command = interpreter_command() + ["-P", "-m", "dimscope.worker.aoti", "--replay"]
        try:
            done = subprocess.run(command, input=json.dumps(request), capture_output=True, text=True, env=env,
                                  cwd=folder, timeout=_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired as e:
            raise WorkerError("fresh_process", "replaying AOTInductor packages in a new interpreter did not end "
                              "within %d s" % _TIMEOUT_S) from e
        interpreters += 1
        with open(answers_path, encoding="utf-8") as f:
            got = [json.loads(line) for line in f if line.strip()]
        finished = [a for a in got if "program" in a]
        answers += finished
        if done.returncode == 0 and len(finished) == len(request["items"]):
            break
        if not got or "program" in got[-1]:  # died outside a call: loading, importing
            raise WorkerError("fresh_process", "the new interpreter that loads the AOTInductor packages failed: %s"
                              % _last_error(done))
        # died inside the call it had started: that call's answer is the crash
        log("aoti: the new interpreter died running %s on a call (%s)" % (got[-1]["package"], _last_error(done)),
            stream="warning")
        answers.append({"program": got[-1]["program_accepts"], "program_message": got[-1]["program_message"],
                        "guard": got[-1].get("guard"), "package": False, "crashed": True,
                        "package_message": "the interpreter died (exit %d): %s" % (done.returncode,
                                                                                   _last_error(done))})
    return answers, interpreters


def _row(item, answer):
    _, _, _, what = item
    row = dict(what)
    program_ok, package_ok = answer["program"], answer["package"]
    row.update(program_message=answer.get("program_message"), package_message=answer.get("package_message"),
               max_abs=answer.get("max_abs"), path=answer.get("path"))
    if program_ok and package_ok:
        row["status"] = "match" if answer.get("same") else "differs"
        row["message"] = None if answer.get("same") else answer.get("difference")
    elif program_ok:
        row["status"], row["message"] = "package_rejects", answer.get("package_message")
    elif package_ok or answer.get("crashed"):
        row["status"] = "lost_guard"
        row["message"] = "the program rejects it (%s) but the package %s" % (
            answer.get("guard") or answer.get("program_message"),
            "crashed on it" if answer.get("crashed") else "runs it")
    else:
        row["status"], row["message"] = "guard_kept", answer.get("program_message")
    return row


def _replay_and_report(entries, program_path, calls, device, check_inputs, compile_seconds, progress, log):
    import torch

    progress("aoti", "replaying the calls through the packages in a new interpreter")
    imports = []
    for entry in entries:
        imports += [list(i) for i in needed_imports(entry["program"]) if list(i) not in imports]
    folder = tempfile.mkdtemp(prefix="dimscope-aoti-")
    t = time.perf_counter()
    try:
        items = _work_items(entries, calls, folder)
        answers, interpreters = _replay(items, program_path, imports, device, check_inputs, folder, log)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    seconds = time.perf_counter() - t
    programs = []
    for entry in entries:
        rows = [_row(item, answer) for item, answer in zip(items, answers) if item[0] == entry["name"]]
        programs.append({"name": entry["name"], "package": entry["package"],
                         "compile_seconds": entry["compile_seconds"], "calls": rows,
                         "served": sum(1 for r in rows if r["status"] in ("match", "differs", "package_rejects")),
                         "differs": [r for r in rows if r["status"] in ("differs", "package_rejects")],
                         "lost_guards": [r for r in rows if r["status"] == "lost_guard"]})
    result = {"program": program_path, "device": device, "torch": torch.__version__, "check_inputs": check_inputs,
              "compile_seconds": compile_seconds, "replay_seconds": seconds, "fresh_interpreters": interpreters,
              "programs": programs, "differs": sum(len(p["differs"]) for p in programs),
              "lost_guards": sum(len(p["lost_guards"]) for p in programs)}
    _log_report(result, log)
    return result


def _log_report(result, log):
    for p in result["programs"]:
        log("aoti: program %s -> %s: %d call(s) served, %d differ, %d lost guard(s)"
            % (p["name"], p["package"], p["served"], len(p["differs"]), len(p["lost_guards"])),
            stream="warning" if p["differs"] or p["lost_guards"] else "worker")


# ------------------------------------------------------------------ the new interpreter

def _answer(module, leaves, spec, device):
    """Runs one call through the program and the package; the answer's fields."""
    import torch
    from torch.utils import _pytree as pytree

    from .exporter import _guards_suppressed
    from .errors import guard_text

    def fresh(to):
        return pytree.tree_unflatten([x.clone().to(to) if isinstance(x, torch.Tensor) else x for x in leaves], spec)

    answer = {"program": True, "package": True}
    try:
        args, kwargs = fresh("cpu")
        with torch.no_grad(), _guards_suppressed(module):
            expected = module(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the program's guard
        text = ("%s: %s" % (type(e).__name__, str(e).strip()))[:4000]
        answer.update(program=False, program_message=text, guard=guard_text(text))
    return answer, (expected if answer["program"] else None), fresh(device)


def _run_package(package, answer, expected, inputs):
    import torch

    from .exporter import _difference_text, _worst, compare_outputs

    args, kwargs = inputs
    try:
        with torch.no_grad():
            got = package(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the package refused the call
        answer.update(package=False, package_message=("%s: %s" % (type(e).__name__, str(e).strip()))[:4000])
        return answer
    if expected is not None:
        leaves, ok, message = compare_outputs(expected, _to_cpu(got))
        worst = _worst(leaves) or {}
        answer.update(same=ok, max_abs=worst.get("max_abs"), path=worst.get("path"),
                      difference=None if ok else _difference_text(worst, message))
    return answer


def _to_cpu(tree):
    import torch
    from torch.utils import _pytree as pytree

    return pytree.tree_map(lambda x: x.detach().cpu() if isinstance(x, torch.Tensor) else x, tree)


def replay_in_this_process(request):
    """The new interpreter's side: the model's classes imported as a user imports them,
    each program loaded through dimscope.load_program and its package through
    torch._inductor.aoti_load_package, then each item's call through both; one JSON
    line per item in the answers file, and a line before a package runs a call the
    program rejected (so that a crash there is known)."""
    for name, path in request["imports"]:
        _import(name, path)
    import torch
    from torch.utils import _pytree as pytree

    import dimscope

    loaded = {}
    with open(request["answers"], "a", encoding="utf-8") as out:
        for name, package_path, folder in request["items"]:
            if name not in loaded:
                loaded[name] = (dimscope.load_program(request["pt2"], name=name).module(),
                                torch._inductor.aoti_load_package(package_path))
            module, package = loaded[name]
            with open(os.path.join(folder, _SPEC), encoding="utf-8") as f:
                spec = pytree.treespec_loads(json.load(f)["spec"])
            leaves = torch.load(os.path.join(folder, _INPUTS), weights_only=True)
            answer, expected, inputs = _answer(module, leaves, spec, request["device"])
            out.write(json.dumps({"started": True, "package": package_path, "program_accepts": answer["program"],
                                  "program_message": answer.get("program_message"),
                                  "guard": answer.get("guard")}) + "\n")
            out.flush()
            answer = _run_package(package, answer, expected, inputs)
            out.write(json.dumps(answer) + "\n")
            out.flush()


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--replay"]:
        replay_in_this_process(json.loads(sys.stdin.read()))

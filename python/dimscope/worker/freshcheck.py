# SPDX-License-Identifier: GPL-3.0-or-later
"""Fresh-process verification: a saved program is loaded in a new interpreter through
`dimscope.load_program`, the path docs/real-models.md gives users, and one call is
replayed there. A program that loads or runs only inside the worker (where the
model's classes and dimscope's registrations happen to be active already) fails the
export with that cause (docs/worker-protocol.md, "Fresh-process verification").

The worker side (`check`) writes the call's inputs as tensors and plain values
(torch.save, read back with weights_only=True) and the inputs' tree structure as
torch's JSON treespec, starts `python -m dimscope.worker.freshcheck` in a private
folder and compares what comes back with the program's outputs in the worker.
The new interpreter is started the way this one was started (the provisioned root's
loader included): a bare `sys.executable` in such a root fails on the host's glibc.

Most of a check's time is the new interpreter's `import torch`. So the worker starts the
checker ahead of time (`prepare`, when an export begins: it imports torch while the worker
traces), and the checker waits on its stdin for the program to load. It imports torch and
the empty `dimscope` package only, what the check's interpreter had imported anyway before
loading: no model code, none of dimscope's registrations, nothing of the worker's state.
A waiting checker serves one check: a file of one program, or every program of an archive
at once (a phased export writes its archive once and checks it once, issue 29).
"""

import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from .errors import WorkerError

_TIMEOUT_S = 600
_INPUTS, _SPEC, _OUTPUTS = "inputs.pt", "inputs_spec.json", "outputs.pt"
_BUILTIN_MODULES = ("builtins", "collections", "torch")
_DIFFER = "outputs differ beyond atol=1e-4, rtol=1e-3"
# dimscope.program.FIRST_PROGRAM, not imported: the waiting checker imports nothing of
# dimscope's beyond the package before the plain load runs.
FIRST_PROGRAM = "model"


def interpreter_command():
    """The command line that starts this interpreter again: the kernel's view of this
    process's arguments (/proc/self/cmdline, which keeps a dynamic loader and its
    options in front of the interpreter) without the interpreter's own options."""
    orig = list(getattr(sys, "orig_argv", None) or [])
    try:
        with open("/proc/self/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0")[:-1]]
    except OSError:
        argv = []
    if orig and len(argv) >= len(orig) and argv[len(argv) - len(orig) + 1:] == orig[1:]:
        return argv[:len(argv) - len(orig) + 1]
    return [sys.executable]


def _spec_classes(program):
    """The custom classes of the program's input and output specs."""
    from torch.utils import _pytree as pytree

    found, stack = [], [program.call_spec.in_spec, program.call_spec.out_spec]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        cls = getattr(node, "type", None)
        if isinstance(cls, type) and cls in pytree.SUPPORTED_NODES and cls not in found:
            found.append(cls)
        stack.extend(node.children() if callable(getattr(node, "children", None))
                     else getattr(node, "children_specs", None) or [])
    return found


def needed_imports(program):
    """[(module, file)] a user imports before loading the program: the modules that
    define its input and output classes (a cache class, a ModelOutput), then those that
    register the custom operators its graph calls (transformers' grouped_mm fallback of
    its experts: dimscope.customops), as this process has them. `file`: the module's
    source, for a module loaded from a path under a name of its own (a model file), which
    importing the name would not find."""
    from ..cachelayers import registered_layout
    from ..customops import needed_modules
    from ..layerattributes import layer_modules

    classes = _spec_classes(program)
    # a cache's layers recorded by their attributes: their classes' modules (the
    # registration finds the classes among loaded modules)
    layers = layer_modules([registered_layout(cls) for cls in classes])
    out = []
    for name in [cls.__module__ for cls in classes] + list(layers) + needed_modules(program):
        if name.split(".")[0] in _BUILTIN_MODULES or name in (m for m, _ in out):
            continue
        origin = getattr(getattr(sys.modules.get(name), "__spec__", None), "origin", None) or ""
        out.append((name, origin if origin.endswith(".py") else ""))
    return out


_waiting = None  # the checker started ahead of time (prepare), until a check takes it
_preloaded = None  # the imports `preload` asked the waiting checker for ([[module, file]])


def prepare():
    """Starts the next check's interpreter now, unless one is waiting already: it imports
    torch while the worker traces and saves, then waits for a program (`_wait_for_program`).
    One that is never used ends with the worker (its stdin closes)."""
    global _waiting
    if _waiting is None or _waiting.poll() is not None:
        _waiting = _start_checker()


def preload(program):
    """Asks the waiting checker to import now the modules a user imports before loading
    `program` (needed_imports: the model's cache and output classes, which pull in most
    of transformers, and its custom operators' modules) and those its plain-load
    registrations import (transformers' executorch integration), while the worker saves,
    verifies and exports the others. Once per checker: the check then gets this checker only if the modules are among its
    own programs' imports (`_take_waiting_checker`), so the new interpreter never holds
    a module its check would not have imported itself."""
    global _preloaded
    if _waiting is None or _preloaded is not None or _waiting.poll() is not None:
        return
    from ..program import plain_load_registrations

    imports = _check_imports(needed_imports(program), plain_load_registrations(program))
    if not imports:
        return
    try:
        _waiting.stdin.write(json.dumps({"imports": imports}) + "\n")
        _waiting.stdin.flush()
    except OSError:  # it died: the check starts another
        return
    _preloaded = imports


def _check_imports(imports, registrations):
    """[[module, file]] the check's interpreter imports, in its order: the program's
    classes (`imports`), then the modules its plain-load `registrations` import (by name)."""
    import ast

    out = [list(i) for i in imports]
    for node in ast.walk(ast.parse("\n".join(registrations))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(
            node, ast.ImportFrom) and node.level == 0 and node.module else []
        out += [[name, ""] for name in names if name not in (m for m, _ in out)]
    return out


def _take_waiting_checker(imports):
    """The checker `prepare` started, when it is still running (one that died, killed or
    failing to import torch, is not the program's fault: the check starts another) and
    imported ahead (`preload`) only modules among `imports`, those of the programs it
    checks (else it is ended and another started: it would hold more than a user's)."""
    global _waiting, _preloaded
    checker, preloaded, _waiting, _preloaded = _waiting, _preloaded or [], None, None
    if checker is None:
        return None
    stale = any(i not in imports for i in preloaded)
    if stale:
        checker.kill()
    if stale or checker.poll() is not None:
        checker.communicate()
        return None
    return checker


def _start_checker():
    """A new interpreter, started as this one was, waiting on its stdin for the program."""
    command = interpreter_command() + (["-P"] if sys.version_info >= (3, 11) else []) + [
        "-m", "dimscope.worker.freshcheck", "--wait"]
    return subprocess.Popen(command, cwd=tempfile.gettempdir(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _leaves(tree):
    from torch.utils import _pytree as pytree

    return pytree.tree_flatten(tree)[0]


def check(program, pt2_path, args, kwargs, device, call_index, log=lambda *a, **k: None, shown_as=None,
          held_out=None):
    """Loads `pt2_path` in a new interpreter and replays (args, kwargs) there; returns
    the result's `fresh_process` entry, raises WorkerError("fresh_process") when the
    program does not load or run there, or gives other outputs than here. `shown_as`:
    the file's name in messages (the output, while `pt2_path` is its staged copy).
    `held_out`: a heldout.Replay replayed there too (check_programs)."""
    return check_programs([(FIRST_PROGRAM, program, args, kwargs, call_index)], pt2_path, device, log, shown_as,
                          held_out=held_out)[0]


def check_programs(entries, pt2_path, device, log=lambda *a, **k: None, shown_as=None, per_program=False,
                   held_out=None, while_waiting=None):
    """`check` for every program of an archive in one new interpreter: `entries` are
    (name, program, args, kwargs, call index); each program is loaded by its name
    (dimscope.load_program(path, name=...)) and replays its call. Returns one
    `fresh_process` entry per program, in order. `per_program`: a program that does not
    load, run or agree there gets an entry {"status": "failed", "message": ...} instead
    of failing the check (the archive's writer leaves it out); an interpreter that dies
    fails the check either way. `held_out`: a heldout.Replay whose calls the same
    interpreter replays through the programs, after their own calls (its `result`).
    `while_waiting`: work for this process while the new interpreter loads and replays
    (the archive's range probes), called once the request is sent."""
    import torch

    shown = shown_as or pt2_path
    t = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="dimscope-fresh-")
    try:
        prepared = [_prepare_call(entry, os.path.join(folder, str(n)), device) for n, entry in enumerate(entries)]
        held = held_out.write(folder) if held_out is not None else []
        imports = [i for _, program_imports, registrations in prepared
                   for i in _check_imports(program_imports, registrations)]
        checker = _take_waiting_checker(imports) or _start_checker()
        request = [os.path.abspath(pt2_path), [[entry[0], os.path.join(folder, str(n))] for n, entry in enumerate(entries)],
                   held]
        try:
            _send(checker, json.dumps(request) + "\n")
            if while_waiting is not None:
                while_waiting()
            out, err = checker.communicate(timeout=_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            checker.kill()
            checker.communicate()
            raise WorkerError("fresh_process", "loading %s in a new interpreter did not end within %d s"
                              % (shown, _TIMEOUT_S)) from e
        done = subprocess.CompletedProcess(checker.args, checker.returncode, out, err)
        if done.returncode != 0:
            raise WorkerError("fresh_process", "%s does not load and run in a new interpreter through "
                              "dimscope.load_program (%s): %s" % (shown, _calls_text(entries), _last_error(done)))
        actual = [torch.load(os.path.join(folder, str(n), _OUTPUTS), weights_only=True) for n in range(len(entries))]
        if held_out is not None:
            held_out.read(held, [entry[0] for entry in entries], time.perf_counter() - t)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    seconds = time.perf_counter() - t
    several = [e[0] for e in entries] != [FIRST_PROGRAM]
    out = []
    for entry, (expected, imports, registrations), got in zip(entries, prepared, actual):
        try:
            out.append(_fresh_entry(entry, expected, got, imports, registrations, shown, seconds, log, several))
        except WorkerError as e:
            if not per_program:
                raise
            log("fresh process: %s" % e, stream="warning")
            out.append({"status": "failed", "call": entry[4], "seconds": seconds, "program": entry[0],
                        "message": str(e)})
    return out


def _send(checker, line):
    """Writes the request to a waiting checker without waiting for its answer; one
    that died meanwhile is found by communicate()."""
    try:
        checker.stdin.write(line)
        checker.stdin.flush()
    except (BrokenPipeError, OSError):
        pass


def _calls_text(entries, several=False):
    if [e[0] for e in entries] == [FIRST_PROGRAM] and not several:
        return "call %d" % entries[0][4]
    return ", ".join("program %s, call %d" % (e[0], e[4]) for e in entries)


def _prepare_call(entry, folder, device):
    """The program's outputs here on its call, and the call written into `folder` for
    the new interpreter. Returns (expected output leaves, imports, registrations)."""
    import torch
    from torch.utils import _pytree as pytree

    from ..program import plain_load_registrations
    from .exporter import _guards_suppressed

    _, program, args, kwargs, _ = entry
    module = program.module()
    # As verify runs it: torch 2.6 would otherwise learn this call's sizes in the
    # program's ShapeEnv and reject every later call of other sizes (exporter.verify).
    with torch.no_grad(), _guards_suppressed(module):
        expected = module(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    leaves, spec = pytree.tree_flatten((args, kwargs))
    imports = needed_imports(program)
    registrations = plain_load_registrations(program)
    os.mkdir(folder)
    torch.save([x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in leaves],
               os.path.join(folder, _INPUTS))
    with open(os.path.join(folder, _SPEC), "w", encoding="utf-8") as f:
        json.dump({"spec": pytree.treespec_dumps(spec), "device": str(device),
                   "imports": [list(i) for i in imports], "registrations": registrations}, f)
    expected = [x.cpu() if isinstance(x, torch.Tensor) else x for x in _leaves(expected)]
    return expected, imports, registrations


def _fresh_entry(entry, expected, actual, imports, registrations, shown, seconds, log, several):
    from .exporter import compare_outputs

    name, _, _, _, call_index = entry
    # "llama.pt2", or "llama.pt2, program phase2," in a file of several programs
    label = os.path.basename(shown) + (", program %s," % name if several else "")
    # dimscope.load_programs for an archive of several programs, load_program for one
    # (the checker's _load_together)
    way = "dimscope.load_programs" if several else "dimscope.load_program"
    if actual.get("error") is not None:  # this program alone did not load or run there
        raise WorkerError("fresh_process", "%s does not load and run in a new interpreter through "
                          "%s (%s): %s" % (shown, way, _calls_text([entry], several), actual["error"]))
    _, ok, message = compare_outputs(expected, actual["load_program"])
    if not ok:
        raise WorkerError("fresh_process", "%s gives other outputs in a new interpreter than in the worker "
                          "(%scall %d): %s" % (shown, "program %s, " % name if several else "", call_index,
                                               message or _DIFFER))
    log("fresh process: %s loads through %s and replays call %d in a new interpreter "
        "(%.1f s)" % (label, way, call_index, seconds))
    return {"status": "ok", "call": call_index, "seconds": seconds, "program": name,
            "imports": [n for n, _ in imports],
            "plain_load": _plain_load_entry(expected, actual, registrations, label, several, log)}


def _plain_load_entry(expected, actual, registrations, label, several, log):
    """How plain torch with `registrations` did in the new interpreter (before
    dimscope.load_program ran there): torch.export.load, or for a file of several
    programs torch's load_pt2 (docs/real-models.md). A user's way to load without
    dimscope's loader; reported, not an export failure: dimscope.load_program is the
    documented path."""
    from .exporter import compare_outputs

    message = actual.get("plain_error")
    if message is None:
        _, ok, text = compare_outputs(expected, actual["plain"])
        message = None if ok else (text or _DIFFER)
    snippet = "; ".join(registrations) or "no registration"
    how = "torch.export.pt2_archive._package.load_pt2" if several else "torch.export.load"
    if message is None:
        log("plain %s of %s works after: %s" % (how, label, snippet))
    else:
        log("plain %s of %s fails after %s: %s" % (how, label, snippet, message), stream="warning")
    return {"status": "ok" if message is None else "failed", "message": message, "registrations": registrations}


def _last_error(done):
    """The exception line of the child's last traceback, else the end of its output."""
    text = (done.stderr or "").strip() or (done.stdout or "").strip()
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last):")]
    if starts:
        for line in lines[starts[-1] + 1:]:
            if line.strip() and not line.startswith((" ", "\t")):
                return line.strip()[:2000]
    lines = [line for line in lines if line.strip()]
    return (lines[-1] if lines else "exit code %d" % done.returncode)[:2000]


# ------------------------------------------------------------------ the new interpreter

def _import(name, path):
    import importlib
    import importlib.util

    try:
        return importlib.import_module(name)
    except ImportError:
        if not path:
            raise
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(argv):
    """`python -m dimscope.worker.freshcheck PT2 FOLDER`: program `model`."""
    check_in_this_process(argv[1], [[FIRST_PROGRAM, argv[2]]])


def check_in_this_process(pt2_path, entries, held=()):
    """Replays each program's call ([name, folder]) loaded as a user loads it: plain torch
    (the registrations, then torch.export.load, or torch's load_pt2 for an archive of
    several programs), and dimscope.load_program(path, name=...). `held`: the folders of
    held-out calls, replayed then through the programs (heldout.replay_in_this_process).

    The two ways run side by side (issue 29: each costs a load of every program, seconds
    of torch's deserializer): plain torch in a child forked before anything of the check
    ran, so it starts from the same state a user's interpreter has, without the
    flattening dimscope.load_program registers; dimscope.load_program here. Without fork
    (another system) plain torch runs first, here."""
    metas = []
    for _, folder in entries:
        with open(os.path.join(folder, _SPEC), encoding="utf-8") as f:
            metas.append(json.load(f))
    for meta in metas:
        for name, path in meta["imports"]:  # what a user imports first: the model's classes, its ops' modules
            _import(name, path)
    import torch

    import dimscope

    plain_file = os.path.join(entries[0][1], "plain_load.pt")
    child = _fork(lambda: torch.save(_plain_load(pt2_path, entries, metas), plain_file))
    if child is None:
        torch.save(_plain_load(pt2_path, entries, metas), plain_file)
    failed, loaded = {}, {}  # name -> why it did not load or run; name -> the program dimscope loaded
    outputs = []
    together, together_error = _load_together(dimscope, pt2_path, entries)
    for (name, folder), meta in zip(entries, metas):
        # Each program on its own: one that does not load or run here is that program's
        # failure, not the others' (the archive's writer leaves it out).
        try:
            program = together[name] if together is not None else dimscope.load_program(pt2_path, name=name)
            outputs.append((_replay(program, folder, meta), None))
            if held:  # kept for the held-out calls; else let go (a program holds the model's weights)
                loaded[name] = program
            del program
        except Exception as e:  # noqa: BLE001 - reported to the worker as this program's failure
            failed[name] = _error_line(e)
            outputs.append((None, failed[name]))
    if together_error is not None and not failed:
        # Each program loads alone, yet not all at once: the documented way to load an
        # archive of several programs fails, for every program of it.
        failed = {name: "dimscope.load_programs: " + together_error for name, _ in entries}
        outputs = [(None, failed[name]) for name, _ in entries]
    del together
    plain, plain_error = _plain_result(child, plain_file, len(entries))
    for n, ((name, folder), (got, error)) in enumerate(zip(entries, outputs)):
        torch.save({"load_program": got, "error": error, "plain": plain[n] if plain_error is None else None,
                    "plain_error": plain_error}, os.path.join(folder, _OUTPUTS))
    if held:
        from .heldout import replay_in_this_process

        # torch 2.6 (no PT2 archives) learns the check's call's sizes in the loaded
        # program: there each program is loaded again for the held-out calls.
        from ..program import _reads_archives

        reuse = _reads_archives()
        replay_in_this_process(pt2_path, [(name, failed.get(name)) for name, _ in entries], held,
                               loaded=loaded if reuse else None)


def _load_together(dimscope, pt2_path, entries):
    """An archive of several programs loaded as docs/real-models.md gives it,
    `dimscope.load_programs(PT2)`: each weight read once, the programs sharing it (issue
    29: one read of the weights instead of one a program). Returns ({name: program}, None),
    or (None, why) when it raises: then each program is loaded alone (load_program), so
    that a program that fails is named, and the others still checked."""
    if [name for name, _ in entries] == [FIRST_PROGRAM]:
        return None, None
    try:
        programs = dimscope.load_programs(pt2_path)
    except Exception as e:  # noqa: BLE001 - each program is then loaded alone, to name the one that fails
        return None, _error_line(e)
    missing = [name for name, _ in entries if name not in programs]
    if missing:
        return None, "the archive has no program %s (it has %s)" % (", ".join(missing), ", ".join(programs))
    return programs, None


def _error_line(e):
    return traceback.format_exception_only(type(e), e)[-1].strip().splitlines()[0][:2000]


def _replay(program, folder, meta):
    """The program's outputs on the call written into `folder`, as leaves on the CPU."""
    import torch
    from torch.utils import _pytree as pytree

    leaves = torch.load(os.path.join(folder, _INPUTS), weights_only=True)
    device = torch.device(meta["device"])
    leaves = [x.to(device) if isinstance(x, torch.Tensor) else x for x in leaves]
    args, kwargs = pytree.tree_unflatten(leaves, pytree.treespec_loads(meta["spec"]))
    with torch.no_grad():
        outputs = program.module()(*args, **kwargs)
    return [x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in _leaves(outputs)]


def _plain_load(pt2_path, entries, metas):
    """As a user without dimscope's loader: the registrations, then plain torch, each
    program replaying its call. Returns {"plain": [outputs per program]} or {"error": why}."""
    import torch

    try:
        registrations = []
        for meta in metas:
            registrations += [line for line in meta["registrations"] if line not in registrations]
        exec("\n".join(registrations), {})  # the worker's own lines (plain_load_registrations)
        if [name for name, _ in entries] == [FIRST_PROGRAM]:
            programs = {FIRST_PROGRAM: torch.export.load(pt2_path)}
        else:
            from torch.export.pt2_archive._package import load_pt2
            programs = load_pt2(pt2_path).exported_programs
        return {"plain": [_replay(programs[name], folder, meta) for (name, folder), meta in zip(entries, metas)]}
    except Exception as e:  # noqa: BLE001 - reported, not an export failure: dimscope.load_program is the documented path
        return {"error": "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")}


def _fork(work):
    """Runs `work` in a forked child and returns its pid; None where this system has no
    fork (the caller runs it itself). The child ends without Python's teardown, its own
    output flushed first; it must not run the parent's exit handlers or flush its buffers."""
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return None
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        work()
    except BaseException:  # noqa: BLE001 - the parent reports a child that wrote nothing
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _plain_result(child, plain_file, count):
    """([outputs per program] or Nones, error or None) of the plain load, after its child
    (when there is one) has ended."""
    import torch

    if child is not None:
        _, status = os.waitpid(child, 0)
        if not os.path.exists(plain_file):
            return [None] * count, "the plain load's process ended without a result (wait status %d)" % status
    answer = torch.load(plain_file, weights_only=True)
    if "error" in answer:
        return [None] * count, answer["error"]
    return answer["plain"], None


def _wait_for_program():
    """The checker's side of `prepare`: torch imported first (the slow part, and what the
    check's interpreter imports anyway, loading included), then lines on stdin: at most
    one `{"imports": [[module, file], ...]}` (`preload`), imported at once, then
    `[pt2, [[program, folder], ...], held]`, the check; the end of stdin without one (the
    worker ended) ends the checker."""
    import importlib

    import torch  # noqa: F401
    import torch.export  # noqa: F401
    from torch.utils import _pytree  # noqa: F401

    import dimscope  # noqa: F401 - the package only: it imports nothing of dimscope's

    # torch's own modules that the first torch.export.load imports (its serializer, and
    # through export's tracer sympy, dynamo and networkx: 1,200 modules, seconds): the
    # check ends with the same modules loaded, only sooner.
    for name in ("torch._export.serde.serialize", "torch.export._trace"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass

    while True:
        line = sys.stdin.readline()
        if not line.strip():
            return
        request = json.loads(line)
        if isinstance(request, dict):  # preload: what the check imports first, imported now
            _preload(request["imports"])
            continue
        pt2_path, entries, *held = request
        os.chdir(entries[0][1])
        check_in_this_process(pt2_path, entries, held[0] if held else ())
        _end_now()


def _preload(imports):
    """The modules a user imports before loading the program, imported ahead. When one
    fails this checker ends: the check starts a new interpreter (`_take_waiting_checker`),
    which imports it from the start and reports why it fails."""
    for name, path in imports:
        try:
            _import(name, path)
        except Exception:  # noqa: BLE001 - the check's own interpreter reports it
            _end_now()


def _end_now():
    """Ends the checker without Python's teardown (a second or two of torch's and
    transformers' clean-up that the worker, and the user, would wait for: issue 29):
    every output was written and closed by torch.save."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1:] == ["--wait"]:
        _wait_for_program()
    else:
        main(sys.argv)

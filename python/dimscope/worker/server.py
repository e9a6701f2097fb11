# SPDX-License-Identifier: GPL-3.0-or-later
"""The export worker's protocol loop (`python -m dimscope.worker` runs `main`).

A long-lived process speaking JSON lines (docs/worker-protocol.md). stdout carries
protocol lines only: whatever user code prints goes out as `log` events, and native
writes to file descriptor 1 are sent to stderr. While a request runs, a heartbeat
thread proves the worker is alive (the client kills a worker that goes silent).
"""

import importlib.util
import io
import json
import os
import platform
import re
import sys
import threading
import time
import traceback
import warnings

PROTOCOL_VERSION = 1


class Channel:
    """Writes protocol lines on a private duplicate of the original stdout."""

    def __init__(self):
        fd = os.dup(1)
        os.dup2(2, 1)  # native code writing to fd 1 now lands on stderr
        self._out = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()
        self.request_id = None
        self.busy = False  # a request is being served: the heartbeat runs
        self.last_sent = time.monotonic()

    def send(self, event, rid=None, **fields):
        msg = {"id": self.request_id if rid is None else rid, "event": event}
        msg.update(fields)
        try:
            line = json.dumps(msg, default=str, allow_nan=False)
        except ValueError:  # NaN/inf: not JSON; Qt's parser rejects them
            line = json.dumps(_finite(msg), default=str, allow_nan=False)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()
            self.last_sent = time.monotonic()
            if event in ("result", "error"):  # the request's answer: no beat may follow it
                self.busy = False

    def beat(self, interval):
        """A heartbeat for the running request when nothing was sent for `interval`,
        decided under the write lock: a check made outside it could pass just before
        the request's answer and send a beat after it."""
        with self._lock:
            if not self.busy or time.monotonic() - self.last_sent < interval:
                return
            self._out.write(json.dumps({"id": self.request_id, "event": "heartbeat"}) + "\n")
            self._out.flush()
            self.last_sent = time.monotonic()


class Heartbeat:
    """Sends `heartbeat` events while a request runs, from a daemon thread: the thread
    keeps running while torch computes (kernels release the GIL) and while user code
    loops in Python (the interpreter switches threads between bytecodes), so only a
    stopped or deadlocked process goes silent. When the client is gone (the write
    fails) the worker exits: nobody would read its answer."""

    def __init__(self, channel, interval):
        self._channel, self._interval = channel, interval
        self._thread = threading.Thread(target=self._run, name="dimscope-heartbeat", daemon=True)

    @staticmethod
    def interval_from_env():
        try:
            value = float(os.environ.get("DIMSCOPE_WORKER_HEARTBEAT_S", "5"))
        except ValueError:
            value = 5.0
        return min(max(value, 0.05), 60.0)

    def start(self):
        self._thread.start()

    def _run(self):
        ch = self._channel
        while True:
            time.sleep(self._interval / 2)
            try:
                ch.beat(self._interval)
            except (OSError, ValueError):  # the client closed its end
                os._exit(70)


def _finite(obj):
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


class LogStream(io.TextIOBase):
    """sys.stdout / sys.stderr replacement: complete lines become log events."""

    def __init__(self, channel, stream):
        self._channel, self._stream, self._buf = channel, stream, ""

    def writable(self):
        return True

    def write(self, s):
        self._buf += s
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            self._channel.send("log", stream=self._stream, text=line)
        return len(s)

    def flush(self):
        if self._buf:
            self._channel.send("log", stream=self._stream, text=self._buf)
            self._buf = ""


class Worker:
    def __init__(self, channel):
        self.ch = channel
        self.model = None
        self.model_ref = None
        self.model_device = None
        self.capture_cache = {}  # (path, mtime, size, device) -> capture
        self.model_generation = 0  # bumped on every (re)load: eager outputs belong to one
        self.eager_key = None      # (model generation, capture key) of eager_outputs
        self.eager_outputs = {}    # without_inputs (a tuple) -> {call index -> the eager model's outputs} (exporter.verify)
        self.archives = {}         # archive path -> {name: archive.Held} this worker wrote there
        self.started = time.time()
        self.torch_import_s = None

    # --- events ---------------------------------------------------------------
    def progress(self, stage, message, fraction=None):
        self.ch.send("progress", stage=stage, message=message, fraction=fraction)

    def log(self, text, stream="worker"):
        self.ch.send("log", stream=stream, text=text)

    # --- requests -------------------------------------------------------------
    def hello(self, params):
        import torch

        from . import rootlaunch

        cuda = torch.cuda.is_available()
        transformers_version = None
        if importlib.util.find_spec("transformers") is not None:
            try:
                from importlib.metadata import version
                transformers_version = version("transformers")
            except Exception:
                transformers_version = "unknown"
        return {
            "protocol": PROTOCOL_VERSION,
            "pid": os.getpid(),
            "executable": rootlaunch.interpreter,  # not the launcher it routes subprocesses through
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers_version,
            "cuda": {
                "available": cuda,
                "built_with": torch.version.cuda,
                "devices": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else [],
            },
            "torch_import_s": self.torch_import_s,
        }

    def _ensure_model(self, ref, reload=False):
        from .modelref import load_model

        if not ref:
            if self.model is None:
                from .errors import WorkerError
                raise WorkerError("no_model", "no model is loaded: send load_model first or give 'model'")
            return True
        if self.model is not None and ref == self.model_ref and not reload:
            return True
        self.progress("load_model", "loading %s" % ref)
        self.model, self.model_ref, self.model_device = None, None, None
        model = load_model(ref)
        model.eval()
        self.model, self.model_ref, self.model_device = model, ref, "cpu"
        self.model_generation += 1
        self.archives = {}  # programs of the model loaded before
        return False

    def load_model(self, params):
        t = time.perf_counter()
        reused = self._ensure_model(params.get("model"), bool(params.get("reload")))
        return {"model": self.model_ref, "class": _qualname(type(self.model)), "reused": reused,
                "seconds": time.perf_counter() - t}

    def describe(self, params):
        import inspect

        reused = self._ensure_model(params.get("model"))
        m = self.model
        sig = []
        for p in inspect.signature(m.forward).parameters.values():
            entry = {"name": p.name, "kind": p.kind.name, "has_default": p.default is not p.empty}
            if p.default is not p.empty:
                if p.default is None or isinstance(p.default, (bool, int, float, str)):
                    entry["default"] = p.default
                else:
                    entry["default_repr"] = repr(p.default)
            if p.annotation is not p.empty:
                entry["annotation"] = p.annotation if isinstance(p.annotation, str) else _qualname(p.annotation)
            sig.append(entry)
        params_ = list(m.parameters())
        buffers = list(m.buffers())
        return {
            "model": self.model_ref, "class": _qualname(type(m)), "reused": reused,
            "signature": sig,
            "parameters": sum(p.numel() for p in params_),
            "buffers": sum(b.numel() for b in buffers),
            "dtypes": sorted({str(t.dtype).replace("torch.", "") for t in params_ + buffers}),
            "devices": sorted({str(t.device) for t in params_ + buffers}),
            "training": m.training,
        }

    def _capture(self, path, device):
        from .errors import WorkerError

        if not path or not os.path.isfile(path):
            raise WorkerError("bad_request", "capture file %r does not exist" % path)
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size, device)
        if key in self.capture_cache:
            return self.capture_cache[key], key, True
        try:
            from .. import caches, capture
        except ImportError as e:
            raise WorkerError("capture", "the dimscope capture reader is not available in this worker: %s" % e) from e
        self.progress("load_capture", "reading %s" % path)
        try:
            cap = capture.load_capture(path, device=device)
        except Exception as e:
            raise WorkerError("capture", "%s: %s" % (path, e), user_traceback=traceback.format_exc()) from e
        try:
            actions = caches.register_capture_flattening(cap.manifest)
        except caches.CaptureError as e:
            raise WorkerError("capture", "%s: %s" % (path, e)) from e
        for type_name, action in sorted(actions.items()):
            if cap.flattening.get(type_name) == caches.DYNAMIC_LAYERS:
                # The .pt2 then takes this class flattened by dimscope's registration.
                self.log("%s: %s; programs exported from this capture take it flattened that way "
                         "(docs/real-models.md)" % (type_name, action))
        for line in caches.registration_report(cap.manifest):
            self.log(line, stream="warning")
        self.capture_cache = {key: cap}  # keep one: captures can be large
        return cap, key, False

    def export(self, params):
        import torch

        from . import exporter
        from .errors import WorkerError

        device = params.get("device", "cpu")
        if device not in ("cpu", "cuda") and not str(device).startswith("cuda:"):
            raise WorkerError("bad_request", "device must be 'cpu' or 'cuda', got %r" % device)
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise WorkerError("cuda_unavailable",
                              "CUDA was requested, but this worker's torch %s sees no CUDA device "
                              "(built with CUDA: %s). Export on cpu, or point DIMSCOPE_PYTHON at a "
                              "CUDA-enabled Python." % (torch.__version__, torch.version.cuda or "no"))
        for key in ("capture", "spec", "output"):
            if key not in params:
                raise WorkerError("bad_request", "export needs %r" % key)
        if params.get("verify", True):
            # The saved program's check interpreter imports torch while this one traces.
            from . import freshcheck

            freshcheck.prepare()
        reused = self._ensure_model(params.get("model"), bool(params.get("reload")))
        cap, cap_key, capture_reused = self._capture(params["capture"], device)
        if self.model_device != device:
            self.progress("load_model", "moving the model to %s" % device)
            self.model.to(device)
            self.model_device = device
            self.archives = {}
        spec = params["spec"]
        if isinstance(spec, str):
            with open(spec, encoding="utf-8") as f:
                spec = json.load(f)
        # The eager outputs of the same loaded model on the same capture (and device)
        # do not change between exports: a re-export after a constraint edit replays
        # only the exported program. One set is kept, like the capture.
        eager_key = (self.model_generation, cap_key)
        if self.eager_key != eager_key:
            self.eager_key, self.eager_outputs = eager_key, {}
        # Inputs the calls had only substituted (value_if_missing), left out of this
        # program's calls: the model runs those calls as it was called. Their eager
        # outputs are kept apart from those of the calls with the substitute.
        without = self._without_inputs(params)
        calls = [call.without(without) for call in cap.calls]
        eager_outputs = self.eager_outputs.setdefault(tuple(without), {})
        # The files this export reads: the output may be none of them.
        inputs = [("the capture", params["capture"])] + exporter.model_inputs(self.model_ref, self.model)
        if isinstance(params["spec"], str):
            inputs.append(("the spec", params["spec"]))
        target = self._archive_target(params)
        # Held-out calls go through a file of its own here; an archive's, when it is written.
        held_out = self._held_out(params, device) if target is None else None
        result = exporter.run_export(
            self.model, calls, spec, target.path if target else params["output"], device=device,
            strict=bool(params.get("strict", False)), call=params.get("call"),
            verify_calls=params.get("verify", True), progress=self.progress, log=self.log,
            among=params.get("calls"),
            eager_cache=eager_outputs, inputs=inputs, archive=target, held_out=held_out,
            probe=bool(params.get("probe", False)), probe_cap=self._probe_cap(params),
            draft_export=bool(params.get("draft_export", False)))
        result["model_reused"] = reused
        result["capture_reused"] = capture_reused
        if result.get("verification") is not None and not result["verified"]:
            bad = [r for r in result["verification"] if r["status"] != "ok"]
            raise WorkerError(
                "verification_failed",
                "the program exported to %s, but %d of %d captured calls fail through it: %s"
                % (result["output"], len(bad), len(result["verification"]),
                   "; ".join("call %d %s" % (r["call"], r["status"]) for r in bad)),
                result=result)
        return result

    @staticmethod
    def _without_inputs(params):
        """The request's `without_inputs`: a list of parameter names (default none)."""
        from .errors import WorkerError

        names = params.get("without_inputs", [])
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise WorkerError("bad_request", "without_inputs must be a list of parameter names, got %r" % (names,))
        return sorted(set(names))

    @staticmethod
    def _probe_cap(params):
        """The request's `probe_cap`: a positive int, or None (probes.default_cap)."""
        from .errors import WorkerError

        cap = params.get("probe_cap")
        if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 1):
            raise WorkerError("bad_request", "probe_cap must be a positive integer, got %r" % (cap,))
        return cap

    def _held_out(self, params, device):
        """The held-out capture the request names (`held_out`: a capture file of the same
        model), read now, replayed through the programs in their fresh-process check
        (heldout.py; docs/worker-protocol.md, "Held-out calls"); None when none is named."""
        from . import heldout

        path = params.get("held_out")
        if path is None:
            return None
        return heldout.Replay(path, self.model, device, self.log)

    def _archive_target(self, params):
        """Where the program goes when the request names an archive ({"path", "program"}:
        several programs of one model in one PT2 archive, docs/worker-protocol.md): an
        archive.Target (the program is kept until write_archive), or None for a file of
        its own (no archive asked for, or a torch without PT2 archives: then `output`,
        saved and checked now, as before)."""
        from . import archive
        from .errors import WorkerError

        wanted = params.get("archive")
        if wanted is None:
            return None
        if not isinstance(wanted, dict) or not isinstance(wanted.get("path"), str) or not isinstance(
                wanted.get("program"), str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", wanted["program"]):
            raise WorkerError("bad_request", "archive must be {\"path\": a .pt2 path, \"program\": a name of "
                              "letters, digits and _}, got %r" % (wanted,))
        if not archive.supported():
            import torch

            self.log("torch %s has no PT2 archive with several programs: program %s is saved as %s"
                     % (torch.__version__, wanted["program"], params["output"]))
            return None
        path = os.path.abspath(wanted["path"])
        if wanted["program"] == archive.FIRST:
            self.archives[path] = {}
        elif archive.FIRST not in self.archives.get(path, {}):
            raise WorkerError("bad_request", "program %s goes into %s beside its program %s, which this worker "
                              "did not export (the worker was restarted, or the first program was not exported)"
                              % (wanted["program"], path, archive.FIRST))
        return archive.Target(path, wanted["program"], self.archives[path])

    def write_archive(self, params):
        """Writes the programs this worker kept for an archive (export requests with
        `archive`) into it once, and checks them in one new interpreter (archive.write_held;
        docs/worker-protocol.md, "Several programs in one archive")."""
        from . import archive
        from .errors import WorkerError

        path, names = params.get("path"), params.get("programs")
        if not isinstance(path, str) or not isinstance(names, list) or not names or not all(
                isinstance(n, str) for n in names) or len(set(names)) != len(names):
            raise WorkerError("bad_request", "write_archive needs \"path\" (a .pt2 path) and \"programs\" (a "
                              "non-empty list of distinct program names), got %r" % (params,))
        held = self.archives.get(os.path.abspath(path), {})
        missing = [n for n in names if n not in held]
        if missing or names[0] != archive.FIRST:
            raise WorkerError("bad_request", "write_archive: %s" % (
                "program(s) %s of %s were not exported by this worker (held: %s)"
                % (", ".join(missing), path, ", ".join(held) or "none") if missing
                else "the first program must be %s (the one torch.export.load returns), got %s"
                % (archive.FIRST, names[0])))
        verify = bool(params.get("verify", True))
        if verify:
            from . import freshcheck

            freshcheck.prepare()  # normally waiting already, started by the exports
        held_out = self._held_out(params, held[names[0]].device) if verify else None
        return archive.write_held(path, names, held, verify=verify, log=self.log, progress=self.progress,
                                  held_out=held_out, model=self.model)

    def synthesize_continuation(self, params):
        """Records the example calls of the continuation program (continuation.py) from a
        capture of a decoder's generate() into the capture file `output`; the result says
        why not where they cannot be made (docs/worker-protocol.md)."""
        from . import continuation
        from .errors import WorkerError

        for key in ("capture", "output"):
            if not isinstance(params.get(key), str):
                raise WorkerError("bad_request", "synthesize_continuation needs %r (a path)" % key)
        self._ensure_model(params.get("model"))
        device = self.model_device or "cpu"
        cap, _key, _reused = self._capture(params["capture"], device)
        return continuation.synthesize(self.model, cap.calls, params["output"], self.log)

    def record(self, params):
        """Runs generate() on prompts under dimscope's InputRecorder and writes the
        capture (recording.py; docs/worker-protocol.md, "record"). The model it loads
        is its own: the export's loaded model stays as it was."""
        from . import recording

        return recording.record(params, self.progress, self.log)

    def aoti(self, params):
        """Compiles the programs of a .pt2 with AOTInductor and replays the capture's calls
        and range probes through program and package in a new interpreter (aoti.py;
        docs/worker-protocol.md, "aoti")."""
        from . import aoti

        if params.get("model"):  # the classes the programs' inputs hold (a cache) come with the model
            self._ensure_model(params["model"])
        return aoti.run(params, self.progress, self.log)

    def shutdown(self, params):
        return {"bye": True}

    # --- loop -----------------------------------------------------------------
    def _log_warnings(self, caught):
        for w in caught:
            self.log("%s: %s" % (w.category.__name__, w.message), stream="warning")

    def handle(self, line):
        from .errors import classify, error_dict

        try:
            req = json.loads(line)
        except ValueError as e:
            self.ch.send("error", rid=None, error=error_dict("bad_request", "not JSON: %s" % e))
            return True
        if not isinstance(req, dict):
            self.ch.send("error", rid=None, error=error_dict("bad_request", "a request is a JSON object"))
            return True
        rid, method = req.get("id"), req.get("method")
        self.ch.request_id = rid
        self.ch.busy = True
        handler = getattr(self, method, None) if method in METHODS else None
        caught = []
        try:
            if handler is None:
                self.ch.send("error", error=error_dict("bad_request", "unknown method %r (known: %s)"
                                                       % (method, ", ".join(METHODS))))
                return True
            params = req.get("params") or {}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("default")
                result = handler(params)
            self._log_warnings(caught)
            sys.stdout.flush()
            sys.stderr.flush()
            self.ch.send("result", result=result)
        except BaseException as e:  # noqa: B902 - the worker must survive user code
            if isinstance(e, KeyboardInterrupt):
                raise
            # Warnings of a request that failed matter too (a capture is loaded once
            # and kept: its warnings are not raised again by the next request).
            self._log_warnings(caught or [])
            sys.stdout.flush()
            sys.stderr.flush()
            try:
                err = classify(e)
            except Exception:
                err = error_dict("internal", "%s: %s" % (type(e).__name__, e), traceback.format_exc())
            self.ch.send("error", error=err)
        finally:
            self.ch.busy = False
            self.ch.request_id = None
        return method != "shutdown"


METHODS = ("hello", "load_model", "describe", "export", "write_archive", "synthesize_continuation", "record",
           "aoti", "shutdown")


def _qualname(t):
    return "%s.%s" % (getattr(t, "__module__", "?"), getattr(t, "__qualname__", repr(t)))


def main():
    channel = Channel()
    sys.stdout = LogStream(channel, "stdout")
    sys.stderr = LogStream(channel, "stderr")
    worker = Worker(channel)
    # In a provisioned runtime, what this Python starts by sys.executable (the resource
    # tracker, inductor's compile workers) starts through the root's loader (rootlaunch.py).
    try:
        from .rootlaunch import route_subprocesses
        route_subprocesses()
    except OSError as e:
        channel.send("log", rid=None, stream="warning", text="cannot route subprocesses through the loader: %s" % e)
    t = time.perf_counter()
    try:
        import torch  # imported once, here: the point of staying warm
    except Exception as e:
        channel.send("error", rid=None, error={
            "kind": "torch_missing", "traceback": traceback.format_exc(),
            "message": "%s cannot import torch (%s: %s); dimscope needs torch >= 2.1"
                       % (sys.executable, type(e).__name__, e)})
        sys.exit(3)
    if tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2] if p.isdigit()) < (2, 1):
        channel.send("error", rid=None, error={
            "kind": "torch_too_old", "traceback": None,
            "message": "%s has torch %s; dimscope needs torch >= 2.1 (torch.export)"
                       % (sys.executable, torch.__version__)})
        sys.exit(3)
    worker.torch_import_s = time.perf_counter() - t
    Heartbeat(channel, Heartbeat.interval_from_env()).start()
    channel.send("ready", rid=None, protocol=PROTOCOL_VERSION, pid=os.getpid(), torch=torch.__version__)
    for line in sys.stdin:
        if not line.strip():
            continue
        if not worker.handle(line):
            break
    _exit_now()


def _exit_now():
    """Ends the worker without Python's teardown (1.5-2 s of module and torch clean-up
    that the client would wait for, issue 29 item 4): every answer was written and
    flushed when it was sent, every output renamed into place before its result, and
    nothing the worker holds needs a finalizer (a fresh-process checker waiting for a
    program sees its pipe close and ends; the client ends whatever else is left)."""
    for stream in (sys.stdout, sys.stderr, sys.__stderr__):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)  # no heartbeat can be half-written: none is sent once the answer is (busy)


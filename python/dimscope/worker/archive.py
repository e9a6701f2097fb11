# SPDX-License-Identifier: GPL-3.0-or-later
"""Several programs of one model in one PT2 archive, each weight stored once.

torch >= 2.8 writes several ExportedPrograms into one archive
(``torch.export.pt2_archive._package.package_pt2(f, exported_programs={name: ep})``),
but it writes each program's weights again even where the programs hold the very same
tensors (programs exported from one loaded model do: torch.export keeps the model's
parameters). Each program's ``data/weights/<name>_weights_config.json`` maps a
parameter to a weight file and the tensor's place in it (sizes, strides, offset into
the whole storage, which is what the file holds); so the writer here leaves out the
weights of a later program whose storage an earlier program's weight file holds already,
and points that program's entries at the earlier file. Sharing is decided by storage
identity (the same storage: data pointer, size and device), never by content: programs
exported from one loaded model share their parameters' storages.

A file of one program goes through the same writer (exporter.save_atomically): it is
what ``torch.export.save`` writes (``package_pt2`` of one program named ``model``), each
weight file taken from its storage instead of a copy of it (``_SharingWriter``).

The first program is named ``model``, which is the program ``torch.export.load`` returns;
the others keep their names (``phase2``, ...). On torch without the PT2 archive (2.6)
there is no such writer: ``supported()`` is False and the worker writes one file per
program, as before.
"""

import json
import time

from ..exceptions import ProgramsLeftOut

FIRST = "model"  # the program torch.export.load returns (dimscope.program.FIRST_PROGRAM)


def supported():
    """Whether this torch writes and reads PT2 archives with several programs (and has
    the pieces of its writer used here)."""
    try:
        from torch.export.pt2_archive import _package
    except ImportError:
        return False
    return all(hasattr(_package, n) for n in ("PT2ArchiveWriter", "_package_exported_programs",
                                              "_package_extra_files", "_get_raw_tensor_bytes",
                                              "_load_exported_programs", "PT2ArchiveReader"))


def _storage_key(tensor):
    """The storage a tensor's bytes come from: torch writes that whole storage as the
    tensor's weight file (PT2 archive's _get_raw_tensor_bytes)."""
    storage = tensor.untyped_storage()
    return (storage.data_ptr(), storage.nbytes(), str(tensor.device))


def _is_fake(tensor):
    from torch._subclasses.fake_tensor import FakeTensor

    return isinstance(tensor, FakeTensor)


class _SharingWriter:
    """Stands in for torch's PT2ArchiveWriter while programs are packaged: a weight file
    whose storage an earlier program's file holds already is not written, and the
    program's weights config points at the earlier file instead.

    torch writes a program's weight files (data/weights/weight_N, each the bytes of one
    storage, taken by _get_raw_tensor_bytes just before the write), then its weights
    config naming those files. `raw_bytes_of` stands in for _get_raw_tensor_bytes while
    packaging, so each write knows the storage its bytes came from. It copies nothing:
    the write that follows takes the bytes from the storage itself (`_write_storage`),
    and a storage written already is not read at all. torch's copy into a `bytes` costs
    a page fault a page of new memory (6.7 s for the 0.5B model's 1.9 GB on the 2-core
    machine, issue 29), once for each program that holds the weights."""

    def __init__(self, writer, programs):
        from torch.export.pt2_archive.constants import WEIGHTS_CONFIG_FILENAME_FORMAT, WEIGHTS_DIR

        self._writer = writer
        self._weights_dir = WEIGHTS_DIR
        self._configs = {WEIGHTS_CONFIG_FILENAME_FORMAT.format(name) for name in programs}
        self._storage = None   # the storage whose bytes the next write carries
        self._tensor = None    # the tensor whose storage the next write takes its bytes from
        self._claimed = set()  # weight file names torch used but that were left out
        self._written = {}     # storage key -> the weight file (name) holding it
        self._aliases = {}     # weight file left out -> the earlier one, for the next config
        self.shared = 0        # weight files left out
        self.shared_bytes = 0

    def __getattr__(self, name):
        return getattr(self._writer, name)

    def raw_bytes_of(self, original):
        self._original = original

        def raw_bytes(tensor):
            self._storage = _storage_key(tensor)
            if _is_fake(tensor) or not tensor.data_ptr():
                return original(tensor)  # no bytes (b""): nothing to copy
            self._tensor = tensor
            return b""  # stands for the storage's bytes; write_bytes takes them from it
        return raw_bytes

    def count_prefix(self, prefix):
        # torch numbers a program's weight files from this count: a file left out must
        # still count, or a later program would reuse a name that is written.
        return self._writer.count_prefix(prefix) + sum(1 for n in self._claimed if n.startswith(prefix))

    def write_bytes(self, name, data):
        storage, self._storage = self._storage, None
        tensor, self._tensor = self._tensor, None
        if name in self._configs:
            data = self._redirect(data)
        elif storage is not None and name.startswith(self._weights_dir):
            path_name = name[len(self._weights_dir):]
            earlier = self._written.get(storage)
            if earlier is not None:
                self._claimed.add(name)
                self._aliases[path_name] = earlier
                self.shared += 1
                self.shared_bytes += storage[1] if tensor is not None else len(data)  # _storage_key: its nbytes
                return
            self._written[storage] = path_name
        if tensor is not None:
            self._write_storage(name, tensor)
        else:
            self._writer.write_bytes(name, data)

    def _write_storage(self, name, tensor):
        """Writes the bytes _get_raw_tensor_bytes would give (the whole storage of the
        tensor on the CPU) straight from the storage, as torch.save writes its storages;
        through torch's own copy where the writer has no such record writer."""
        cpu = tensor.cpu()  # kept alive until written: a device tensor's copy
        record = getattr(getattr(self._writer, "archive_file", None), "write_record", None)
        if record is None:
            self._writer.write_bytes(name, self._original(cpu))
            return
        storage = cpu.untyped_storage()
        record(name, storage, storage.nbytes())

    def write_string(self, name, data):
        self.write_bytes(name, data.encode())

    def _redirect(self, config_bytes):
        """The program's weights config with the files left out replaced by the
        earlier files that hold the same storages."""
        if not self._aliases:
            return config_bytes
        config = json.loads(config_bytes)
        for meta in config["config"].values():
            if meta.get("path_name") in self._aliases:
                meta["path_name"] = self._aliases[meta["path_name"]]
        self._aliases.clear()
        return json.dumps(config).encode()


def write(path, programs, extra_files=None):
    """Writes `programs` ({name: ExportedProgram}, the first named "model") into one PT2
    archive at `path`, each storage once. Returns (files left out, bytes left out)."""
    from torch.export.pt2_archive import _package

    with _package.PT2ArchiveWriter(path) as writer:
        sharing = _SharingWriter(writer, programs)
        original = _package._get_raw_tensor_bytes
        _package._get_raw_tensor_bytes = sharing.raw_bytes_of(original)
        try:
            _package._package_exported_programs(sharing, programs)
        finally:
            _package._get_raw_tensor_bytes = original
        _package._package_extra_files(writer, extra_files)
    return sharing.shared, sharing.shared_bytes


class Held:
    """A program the worker exported for an archive and keeps until the archive is
    written (write_held), with the call its fresh-process check replays."""

    def __init__(self, program, args, kwargs, call, device):
        self.program, self.args, self.kwargs, self.call, self.device = program, args, kwargs, call, device
        # Its range probes, run by write_held (exporter._probe_ranges: a call with
        # keep_rejected), and what they found: the result's `probes`, the probes it
        # rejected (for the archive's other programs), their timings.
        self.deferred_probes = None
        self.probes, self.rejected_probes, self.probe_timings = None, None, {}

    def run_deferred_probes(self, progress, name):
        """Runs this program's range probes if the export left them to the archive's
        writing; once."""
        job, self.deferred_probes = self.deferred_probes, None
        if job is not None:
            progress("probe", "probing the declared ranges of program %s" % name, None)
            self.probes, self.rejected_probes, self.probe_timings = job()


class Target:
    """Where an export request's program goes: program `name` of the archive at `path`,
    beside the programs `held` ({name: Held}, in the order exported) that this worker
    exported for it before. Nothing is written per program: write_held writes the
    archive once, with the programs the client names."""

    def __init__(self, path, name, held):
        self.path, self.name, self.held = path, name, held

    def keep(self, program, args, kwargs, call, device):
        """This program is the archive's program `name` now (a fix-loop round replaces
        the one before)."""
        self.held[self.name] = Held(program, args, kwargs, call, device)


def _noop(*_args, **_kwargs):
    pass


def write_held(path, names, held, verify=True, log=_noop, progress=_noop, held_out=None, model=None):
    """Writes the programs `names` (of `held`, {name: Held}; "model" first) into one PT2
    archive at `path`, once, atomically (exporter.save_atomically: a staging folder beside
    it, renamed into place), and, with `verify`, checks every program of it in ONE new
    interpreter before the rename (freshcheck.check_programs). A program that fails that
    check is left out: the archive is written again without it and what remains checked
    again (a second interpreter, only then), so the file never holds a program that loads
    only in the worker. When `model` fails (the program torch.export.load returns, which
    the archive needs) nothing is written: WorkerError("fresh_process"), the previous file
    stays. `held_out`: a heldout.Replay replayed through the programs in that interpreter
    (its report is the result's `held_out`). `model`: the eager model, with which the
    probes a program rejected (probes.served_elsewhere) are tried on the programs written
    beside it. Returns the write_archive result (docs/worker-protocol.md)."""
    from .errors import WorkerError
    from .exporter import save_atomically
    from . import freshcheck

    t = time.perf_counter()
    names, checked, left_out, interpreters, seconds = list(names), {}, [], 0, [0.0]

    def probe_while_checking():
        # The programs' range probes (deferred by their exports), in this process while
        # the new interpreter loads the archive: on two cores, the loads and the probes
        # overlap instead of following each other (issue 29). The check's time includes them.
        for n in names:
            held[n].run_deferred_probes(progress, n)

    def probe_then_wait():
        """probe_while_checking, then the rest of the wait said as what it is (the
        progress said "probe" until the check ended)."""
        ran = any(held[n].deferred_probes is not None for n in names)
        probe_while_checking()
        if ran:
            progress("fresh_process", "range probes done; the new interpreter is still loading and replaying "
                     "the %d program(s) of %s" % (len(names), path), None)

    def probe_alone():
        """The seconds the programs' probes (those not run yet) took, run on their own."""
        started = time.perf_counter()
        probe_while_checking()
        return time.perf_counter() - started

    beside = str(held[names[0]].device).startswith("cpu")
    # On an accelerator the probes' activations and the new interpreter's programs would
    # share the device's memory at once: a check that runs out of it fails the export.
    # There they run first, as before issue 29's overlap.
    probed = 0.0 if beside else probe_alone()
    while True:
        def check(saved):
            nonlocal interpreters
            progress("fresh_process", "loading the %d program(s) of %s in one new interpreter" % (len(names), path),
                     None)
            interpreters += 1
            entries = [(n, held[n].program, held[n].args, held[n].kwargs, held[n].call) for n in names]
            results = freshcheck.check_programs(entries, saved, held[names[0]].device, log, shown_as=path,
                                                per_program=True, held_out=held_out,
                                                while_waiting=probe_then_wait if beside else None)
            seconds[0] += results[0]["seconds"]
            checked.update(zip(names, results))
            failed = [n for n in names if checked[n]["status"] != "ok"]
            if failed:
                raise ProgramsLeftOut(failed)

        progress("save", "writing %s (%s)" % (path, ", ".join(names)), None)
        try:
            shared = save_atomically(None, path, check=check if verify else None,
                                     programs={n: held[n].program for n in names})
            break
        except ProgramsLeftOut as e:
            left_out += e.names
            if FIRST in e.names:
                raise WorkerError("fresh_process", "%s; nothing was written (an archive needs its program %s, the "
                                  "one torch.export.load returns; the previous file stays)"
                                  % (checked[FIRST]["message"], FIRST),
                                  result=_result(path, [], (0, 0), checked, left_out, interpreters, t,
                                                 seconds[0])) from None
            names = [n for n in names if n not in e.names]
            log("writing %s again without %s (failed in the new interpreter), and checking %s again"
                % (path, ", ".join(e.names), ", ".join(names)), stream="warning")
    probed += probe_alone()  # not run during a check: nothing was checked (verify false)
    log("wrote %s once: %d program(s) (%s), %d weight file(s), %.1f MB, shared between them and written once; "
        "%d new interpreter(s) checked them" % (path, len(names), ", ".join(names), shared[0], shared[1] / 1e6,
                                                 interpreters))
    result = _result(path, names, shared, checked, left_out, interpreters, t, seconds[0], probed)
    for entry in result["programs"]:
        if entry["program"] in names and held[entry["program"]].probes is not None:
            entry["probes"] = held[entry["program"]].probes
            entry["timings"] = dict(held[entry["program"]].probe_timings)
    if model is not None and any(held[n].rejected_probes for n in names):
        from . import probes

        try:
            elsewhere = probes.served_elsewhere(model, held, names, log)
        except Exception as e:  # noqa: BLE001 - probing reports; it never fails the archive
            log("range probes: trying rejected probes on the archive's other programs failed: %s: %s"
                % (type(e).__name__, e), stream="warning")
            elsewhere = {}
        for entry in result["programs"]:
            tried = elsewhere.get(entry["program"], {})
            entry["probes_elsewhere"] = tried.get("rows", [])
            if tried:
                entry.setdefault("timings", {}).update(probe_elsewhere=tried["seconds"],
                                                       probe_elsewhere_cpu=tried["cpu_seconds"])
    if held_out is not None and held_out.result is not None:
        result["held_out"] = held_out.result
    return result


def _result(path, names, shared, checked, left_out, interpreters, started, fresh_seconds, probe_seconds=0.0):
    """`fresh_seconds`: the checks' time, the probes run beside them included;
    `probe_seconds`: probes run without a check beside them (verify false)."""
    import os

    timings = {"write": time.perf_counter() - started - fresh_seconds - probe_seconds, "fresh_process": fresh_seconds}
    if probe_seconds:
        timings["probe"] = probe_seconds
    return {"output": os.path.abspath(path), "archive_programs": names,
            "shared_weights": {"files": shared[0], "bytes": shared[1]},
            "programs": [{"program": n, "fresh_process": checked.get(n)} for n in names + left_out],
            "left_out": left_out, "fresh_interpreters": interpreters, "timings": timings}

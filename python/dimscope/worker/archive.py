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

The first program is named ``model``, which is the program ``torch.export.load`` returns;
the others keep their names (``phase2``, ...). On torch without the PT2 archive (2.6)
there is no such writer: ``supported()`` is False and the worker writes one file per
program, as before.
"""

import json

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


class _SharingWriter:
    """Stands in for torch's PT2ArchiveWriter while programs are packaged: a weight file
    whose storage an earlier program's file holds already is not written, and the
    program's weights config points at the earlier file instead.

    torch writes a program's weight files (data/weights/weight_N, each the bytes of one
    storage, taken by _get_raw_tensor_bytes just before the write), then its weights
    config naming those files. `raw_bytes_of` stands in for _get_raw_tensor_bytes while
    packaging, so each write knows the storage its bytes came from."""

    def __init__(self, writer, programs):
        from torch.export.pt2_archive.constants import WEIGHTS_CONFIG_FILENAME_FORMAT, WEIGHTS_DIR

        self._writer = writer
        self._weights_dir = WEIGHTS_DIR
        self._configs = {WEIGHTS_CONFIG_FILENAME_FORMAT.format(name) for name in programs}
        self._storage = None   # the storage whose bytes the next write carries
        self._claimed = set()  # weight file names torch used but that were left out
        self._written = {}     # storage key -> the weight file (name) holding it
        self._aliases = {}     # weight file left out -> the earlier one, for the next config
        self.shared = 0        # weight files left out
        self.shared_bytes = 0

    def __getattr__(self, name):
        return getattr(self._writer, name)

    def raw_bytes_of(self, original):
        def raw_bytes(tensor):
            self._storage = _storage_key(tensor)
            return original(tensor)
        return raw_bytes

    def count_prefix(self, prefix):
        # torch numbers a program's weight files from this count: a file left out must
        # still count, or a later program would reuse a name that is written.
        return self._writer.count_prefix(prefix) + sum(1 for n in self._claimed if n.startswith(prefix))

    def write_bytes(self, name, data):
        storage, self._storage = self._storage, None
        if name in self._configs:
            data = self._redirect(data)
        elif storage is not None and name.startswith(self._weights_dir):
            path_name = name[len(self._weights_dir):]
            earlier = self._written.get(storage)
            if earlier is not None:
                self._claimed.add(name)
                self._aliases[path_name] = earlier
                self.shared += 1
                self.shared_bytes += len(data)
                return
            self._written[storage] = path_name
        self._writer.write_bytes(name, data)

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
    """A program the worker wrote into an archive, with the call its fresh-process
    check replays (the archive is rewritten with every program it holds, and each is
    checked again in the rewritten file)."""

    def __init__(self, program, args, kwargs, call):
        self.program, self.args, self.kwargs, self.call = program, args, kwargs, call


class Target:
    """Where an export request's program goes: program `name` of the archive at `path`,
    beside the programs `held` ({name: Held}, in the order written) that this worker
    wrote there before. The archive is written whole each time (atomically, like every
    output): with this program added, or replacing its earlier version of that name."""

    def __init__(self, path, name, held):
        self.path, self.name, self.held = path, name, held

    def programs(self, program):
        """{name: program} to write, "model" first."""
        out = {n: h.program for n, h in self.held.items()}
        out[self.name] = program
        return out

    def check_entries(self, program, args, kwargs, call):
        """(name, program, args, kwargs, call) of every program of the archive, for
        freshcheck.check_programs; this program's entry last."""
        entries = [(n, h.program, h.args, h.kwargs, h.call) for n, h in self.held.items() if n != self.name]
        return entries + [(self.name, program, args, kwargs, call)]

    def keep(self, program, args, kwargs, call):
        """The archive on disk now holds this program too."""
        self.held[self.name] = Held(program, args, kwargs, call)

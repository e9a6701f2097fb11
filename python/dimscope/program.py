# SPDX-License-Identifier: GPL-3.0-or-later
"""Loading a ``.pt2`` that dimscope exported, outside dimscope.

A program whose inputs include a cache class that dimscope flattens its own way
(a ``DynamicCache`` with sliding-window or linear-attention layers, a ``StaticCache``)
can only be loaded once that class is registered with ``torch.utils._pytree`` the way
it was exported. The export worker stores that registration in the ``.pt2`` itself
(extra file ``dimscope_flattening.json``: for each class among the program's inputs,
its flavour and, for ``dynamic_layers``, the layer kinds; the classes of its outputs
too), and `load_program` makes it
active before ``torch.export.load``. Like loading a capture, this never imports a
module or calls anything the file names: a class must already be loaded (load the model,
or ``import transformers``, first), and only dimscope's own flattenings are registered.
The custom operators the programs call and their registering modules are a second
extra file (``dimscope_custom_ops.json``, module customops): `load_program` checks that
each is registered here and names the module to import when one is not.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import json
import os
import re
import threading
import zipfile
from typing import Any, Dict, List, Optional

import torch.utils._pytree as _pytree

from .cachelayers import registered_layout
from .layerattributes import layer_modules
from . import customops
from .caches import (CACHE_ATTRIBUTES, DYNAMIC_LAYERS, ENCODER_DECODER, KEY_VALUE_DICT, PYTREE, STATIC_LAYERS,
                     _ENCODER_DECODER_CLASSES, _KEY_VALUE_CLASSES, loaded_object, qualified_name,
                     register_capture_flattening, registration_module)
from .exceptions import CaptureError

EXTRA_FILE = "dimscope_flattening.json"
_BUILTIN_CONTAINERS = (dict, list, tuple, collections.OrderedDict, collections.defaultdict, collections.deque)
_FLAVOURS = (KEY_VALUE_DICT, DYNAMIC_LAYERS, STATIC_LAYERS, ENCODER_DECODER, CACHE_ATTRIBUTES, PYTREE)


# ---------------------------------------------------------------------------- export side


def _flavour_registered(cls: type) -> Optional[Dict[str, Any]]:
    """How ``cls`` is flattened in this process, as an entry of the extra file."""
    module = registration_module(cls)
    if module == "dimscope.cachelayers":
        return {"flavour": DYNAMIC_LAYERS, "layers": registered_layout(cls)}
    if module == "dimscope.staticcache":
        return {"flavour": STATIC_LAYERS}
    if module == "dimscope.cacheattributes":
        return {"flavour": CACHE_ATTRIBUTES}
    if cls in _ENCODER_DECODER_CLASSES or qualified_name(cls) == "transformers.cache_utils.EncoderDecoderCache":
        return {"flavour": ENCODER_DECODER}
    if cls in _KEY_VALUE_CLASSES or qualified_name(cls) == "transformers.cache_utils.DynamicCache":
        return {"flavour": KEY_VALUE_DICT}
    return {"flavour": PYTREE} if module is not None else None


def _children(spec: Any) -> List[Any]:
    """A treespec's child specs (torch 2.14 deprecates the children_specs attribute)."""
    children = getattr(spec, "children", None)
    return list(children()) if callable(children) else list(getattr(spec, "children_specs", None) or [])


def _spec_types(spec: Any) -> List[type]:
    """The classes of a treespec's nodes."""
    found, stack = [], [spec]
    while stack:
        node = stack.pop()
        if isinstance(getattr(node, "type", None), type):
            found.append(node.type)
        stack.extend(_children(node))
    return found


def flattening_record(program: Any) -> Dict[str, Dict[str, Any]]:
    """{class name: entry} for the custom classes of the program's input and output
    specs (loading needs the output classes too: a model's ModelOutput, registered by
    transformers when the model's module is imported)."""
    found: Dict[str, Dict[str, Any]] = {}
    stack = [program.call_spec.in_spec, program.call_spec.out_spec]
    while stack:
        node = stack.pop()
        cls = getattr(node, "type", None)
        # A class registered on its own: a cache, or a ModelOutput (transformers'
        # encoder_outputs), which is a dict subclass with a registration of its own that
        # loading needs too. Not the containers torch flattens itself, nor named tuples.
        if isinstance(cls, type) and cls not in _BUILTIN_CONTAINERS and cls in _pytree.SUPPORTED_NODES:
            entry = _flavour_registered(cls)
            if entry is not None:
                found[qualified_name(cls)] = entry
        stack.extend(_children(node))
    return found


_TRANSFORMERS_REGISTRATION = ["from transformers.integrations.executorch import register_dynamic_cache_export_support",
                              "register_dynamic_cache_export_support()"]
_DIMSCOPE_REGISTRATIONS = {KEY_VALUE_DICT: "register_key_value_cache",
                           ENCODER_DECODER: "register_encoder_decoder_cache",
                           DYNAMIC_LAYERS: "register_dynamic_layers", STATIC_LAYERS: "register_static_layers",
                           CACHE_ATTRIBUTES: "register_cache_attributes"}


def plain_load_registrations(program: Any) -> List[str]:
    """The Python lines a user runs before a plain ``torch.export.load`` of this program
    (without ``dimscope.load_program``): import the modules of its input and output
    classes (which registers a ModelOutput, or a class registering itself) and those that
    register the custom operators its graph calls (customops), then, per
    class, the registration active when it was exported: transformers' own
    (``register_dynamic_cache_export_support``) where transformers' flattening was the
    one, else dimscope's function for its flavour (transformers' flattening rebuilds
    every layer of a DynamicCache as a full layer, and has none for the other kinds)."""
    lines: List[str] = []
    calls: List[str] = []
    record = flattening_record(program)
    inputs = _spec_types(program.call_spec.in_spec)
    for name in sorted(record):
        cls = loaded_object(name)
        if not isinstance(cls, type):
            continue
        if f"import {cls.__module__}" not in lines:
            lines.append(f"import {cls.__module__}")
        entry, module = record[name], registration_module(cls) or ""
        flavour = entry["flavour"]
        if flavour == DYNAMIC_LAYERS:
            # the classes of layers recorded by their attributes: the registration looks
            # them up among loaded modules
            lines += [f"import {m}" for m in layer_modules([entry.get("layers")]) if f"import {m}" not in lines]
        if flavour in (KEY_VALUE_DICT, ENCODER_DECODER) and module.startswith("transformers."):
            calls += [line for line in _TRANSFORMERS_REGISTRATION if line not in calls]
        elif flavour in _DIMSCOPE_REGISTRATIONS:
            function = _DIMSCOPE_REGISTRATIONS[flavour]
            extra = f", {entry['layers']!r}" if flavour == DYNAMIC_LAYERS else ""
            calls += [f"from dimscope.caches import {function}", f"{function}({name}{extra})"]
        elif flavour == PYTREE and module.startswith("transformers.") and cls in inputs:
            # transformers registers a ModelOutput without the keyed flattening that the
            # input check of torch.export's module() needs (an encoder-decoder's
            # encoder_outputs): dimscope adds it, as load_program does. An output class
            # needs its module imported only.
            calls += ["from dimscope.caches import register_capture_flattening",
                      f"register_capture_flattening({{'flattening': {{{name!r}: 'pytree'}}}})"]
    lines += [f"import {m}" for m in customops.needed_modules(program) if f"import {m}" not in lines]
    return lines + calls


def extra_files(programs: Dict[str, Any]) -> Dict[str, str]:
    """What the worker saves beside the programs of one file ({name: program}; torch's
    extra_files): the classes of all of them (programs of one model flatten a class
    one way), and the custom operators each calls (customops.RECORD, when any does)."""
    record: Dict[str, Dict[str, Any]] = {}
    for program in programs.values():
        record.update(flattening_record(program))
    return {EXTRA_FILE: json.dumps(record, sort_keys=True), **customops.extra_file(programs)}


_WEIGHTS_ONLY_LEAVES = (int, float, bool, str, type(None))


def _weights_only_loadable(value):
    """Whether torch.load(weights_only=True) reads `value` back without a class of
    its own: tensors, numbers, strings and None in plain tuples, lists and dicts."""
    import torch

    if type(value) in (torch.Tensor, torch.nn.Parameter) or type(value) in _WEIGHTS_ONLY_LEAVES:
        return True
    if type(value) in (tuple, list):
        return all(_weights_only_loadable(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _weights_only_loadable(v) for k, v in value.items())
    return False


@contextlib.contextmanager
def example_inputs_only_if_weights_only(program):
    """torch.export.save stores the program's example inputs with full pickle; a cache
    object among them (DynamicCache) makes torch.export.load unpickle it (torch 2.6
    always, torch 2.14 after a failed weights_only load, printing a logging error).
    Such example inputs are left out of the archive (ep.example_inputs is then None);
    the capture holds every call anyway."""
    kept = getattr(program, "_example_inputs", None)
    drop = kept is not None and not _weights_only_loadable(kept)
    if drop:
        program._example_inputs = None  # the setter refuses None on torch 2.6
    try:
        yield
    finally:
        if drop:
            program._example_inputs = kept


def save_program(program: Any, pt2_path: "os.PathLike[str] | str") -> None:
    """Saves ``program`` the way dimscope's export does, so that `load_program` reads it
    in another process: the flattening record of its classes as an extra file, and its
    example inputs left out when they hold an object torch would pickle whole (a cache).
    Atomic: written in a private folder beside ``pt2_path`` under its final name (the
    archive inside is named like the file), then renamed into place."""
    import shutil
    import tempfile

    import torch

    path = os.fspath(pt2_path)
    staging = tempfile.mkdtemp(prefix=".dimscope-save-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        tmp = os.path.join(staging, os.path.basename(path))
        with example_inputs_only_if_weights_only(program):
            torch.export.save(program, tmp, extra_files=extra_files({FIRST_PROGRAM: program}))
        os.replace(tmp, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# ---------------------------------------------------------------------------- load side


def _extra_text(pt2_path: str, name: str) -> Optional[str]:
    """The text of extra file `name` of the archive, None when it has none."""
    try:
        with zipfile.ZipFile(pt2_path) as archive:
            # torch 2.8+: ARCHIVE/extra/NAME; torch 2.6's flat records: extra_files/NAME.
            names = [n for n in archive.namelist()
                     if n.endswith("/extra/" + name) or n in ("extra/" + name, "extra_files/" + name)]
            return archive.read(names[0]).decode("utf-8", "replace") if names else None
    except (OSError, zipfile.BadZipFile) as exc:
        raise CaptureError(f"{pt2_path}: not a readable .pt2 archive ({exc})") from exc


def read_custom_ops(pt2_path: str, name: str = "model") -> Dict[str, Dict[str, Any]]:
    """The custom operators program `name` of the file calls (customops record; {} when
    there is none: no custom operator, or a file saved by an older dimscope). A bad
    record raises CaptureError naming the file and the place."""
    text = _extra_text(pt2_path, customops.RECORD)
    return {} if text is None else customops.parse_record(text, f"{pt2_path}: {customops.RECORD}", name)


def read_flattening(pt2_path: str) -> Optional[Dict[str, Any]]:
    """The extra file's record, or None when the archive has none (a program saved by
    an older dimscope). A bad record raises CaptureError naming the file and the place."""
    text = _extra_text(pt2_path, EXTRA_FILE)
    if text is None:
        return None
    where = f"{pt2_path}: {EXTRA_FILE}"
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise CaptureError(f"{where}: not JSON ({exc})") from exc
    if not isinstance(record, dict):
        raise CaptureError(f"{where}: not an object")
    for name, entry in record.items():
        if not isinstance(entry, dict) or entry.get("flavour") not in _FLAVOURS:
            raise CaptureError(f"{where}: [{name!r}]: unknown flavour {entry!r}")
        if entry["flavour"] == DYNAMIC_LAYERS and not (
                isinstance(entry.get("layers"), list) and all(isinstance(d, dict) for d in entry["layers"])):
            raise CaptureError(f"{where}: [{name!r}]: a {DYNAMIC_LAYERS} class needs its 'layers'")
    return record


def _as_manifest(record: Dict[str, Any]) -> Dict[str, Any]:
    # register_capture_flattening reads a capture's flattening and the layer kinds of
    # its nodes: the record, put in that form, gets exactly the same checks and rules.
    nodes = [{"kind": "custom", "type": name, "flavour": entry["flavour"], "layers": entry["layers"],
              "children": []} for name, entry in record.items() if entry["flavour"] == DYNAMIC_LAYERS]
    return {"flattening": {name: entry["flavour"] for name, entry in record.items()},
            "calls": [{"inputs": {"kind": "dict", "keys": [str(i) for i in range(len(nodes))], "children": nodes}}]}


# What torch's archive keeps as pickled objects (torch 2.8+: data/constants/NAME);
# torch.export.load unpickles them without weights_only.
_PICKLED_OBJECTS = ("custom_obj_", "opaque_obj_")
_FORCE_WEIGHTS_ONLY = "TORCH_FORCE_WEIGHTS_ONLY_LOAD"
_FORCE_NO_WEIGHTS_ONLY = "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"


def _refuse_pickled_objects(pt2_path: str) -> None:
    try:
        with zipfile.ZipFile(pt2_path) as archive:
            pickled = [n for n in archive.namelist() if os.path.basename(n).startswith(_PICKLED_OBJECTS)]
    except (OSError, zipfile.BadZipFile) as exc:
        raise CaptureError(f"{pt2_path}: not a readable .pt2 archive ({exc})") from exc
    if pickled:
        raise CaptureError(f"{pt2_path}: {pickled[0]}: the archive holds a pickled object, which only full "
                           f"pickle reads; dimscope loads programs with weights_only=True and never unpickles")


@contextlib.contextmanager
def _weights_only_loads():
    """Every torch.load while the program loads reads tensors and plain values only
    (weights_only=True), also where torch asks for full pickle: torch 2.6 loads the
    weights, constants and example inputs with weights_only=False, torch 2.14 falls back
    to it when weights_only fails. torch reads these variables at each torch.load."""
    saved = {k: os.environ.get(k) for k in (_FORCE_WEIGHTS_ONLY, _FORCE_NO_WEIGHTS_ONLY)}
    os.environ[_FORCE_WEIGHTS_ONLY] = "1"
    os.environ.pop(_FORCE_NO_WEIGHTS_ONLY, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _torch_load(pt2_path: str, load=None):
    """torch.export.load (or `load`, a loader of one program of an archive) with
    weights_only=True wherever it takes the argument (torch 2.6 and 2.14 do not: there
    _weights_only_loads forces it), refusing what would need full pickle."""
    import pickle

    import torch

    kwargs = {}
    try:
        if "weights_only" in inspect.signature(torch.export.load).parameters:
            kwargs["weights_only"] = True
    except (TypeError, ValueError):
        pass
    _refuse_pickled_objects(pt2_path)
    with _weights_only_loads():
        try:
            return load() if load is not None else torch.export.load(pt2_path, **kwargs)
        except pickle.UnpicklingError as exc:
            raise CaptureError(f"{pt2_path}: part of the archive needs full pickle to load ({_unpickling_cause(exc)}); "
                               f"dimscope loads programs with weights_only=True and never unpickles") from exc


def _unpickling_cause(exc: Exception) -> str:
    """The line of torch's weights_only message that names what was refused."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    for line in text.splitlines():
        if "WeightsUnpickler error:" in line:
            cause = line.split("WeightsUnpickler error:", 1)[1].strip()
            return cause.split(" Please use", 1)[0].split(" was not an allowed global", 1)[0][:300]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:300] if lines else type(exc).__name__


FIRST_PROGRAM = "model"
_MODEL_RECORD = re.compile(r"^(?:[^/]+/)?models/([^/]+)\.json$")


def program_names(pt2_path: "os.PathLike[str] | str") -> List[str]:
    """The names of the programs in a ``.pt2``: ``model`` first (the program plain
    ``torch.export.load`` returns), then the others in the order they were written
    (``phase2``, ...). A file written by torch before 2.8 holds one program, ``model``.
    Raises CaptureError naming the file when it is not a readable archive."""
    pt2_path = os.fspath(pt2_path)
    try:
        with zipfile.ZipFile(pt2_path) as archive:
            entries = archive.namelist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise CaptureError(f"{pt2_path}: not a readable .pt2 archive ({exc})") from exc
    names = []
    for entry in entries:
        match = _MODEL_RECORD.match(entry)
        if match and match.group(1) not in names:
            names.append(match.group(1))
    if not names:
        return [FIRST_PROGRAM]  # torch 2.5-2.7: one serialized_exported_program.json
    return sorted(names, key=lambda n: n != FIRST_PROGRAM)


def _load_of_archive(pt2_path: str, names: List[str]) -> Dict[str, Any]:
    """Programs `names` of a PT2 archive (torch >= 2.8), their weights only: torch's
    load_pt2 (and torch.export.load, which calls it) reads every program's weights.
    Several programs are read with each weight and constant file read once
    (`_files_read_once`)."""
    from torch.export.pt2_archive import _package
    from torch.export.pt2_archive.constants import ARCHIVE_VERSION_PATH, ARCHIVE_VERSION_VALUE, MODELS_FILENAME_FORMAT

    with _package.PT2ArchiveReader(pt2_path) as reader:
        version = reader.read_string(ARCHIVE_VERSION_PATH)
        if version != ARCHIVE_VERSION_VALUE:
            raise CaptureError(f"{pt2_path}: archive version {version}, this torch reads {ARCHIVE_VERSION_VALUE}")
        with _files_read_once(_package, reader) if len(names) > 1 else contextlib.nullcontext():
            programs = _package._load_exported_programs(reader, [MODELS_FILENAME_FORMAT.format(n) for n in names],
                                                        None)
    return {name: programs[name] for name in names}


def _load_one_of_archive(pt2_path: str, name: str):
    return _load_of_archive(pt2_path, [name])[name]


@contextlib.contextmanager
def _files_read_once(package: Any, reader: Any):
    """Within: torch's archive loader reads each weight or constant file of `reader`
    once, and hands every later program that names it the tensor it made the first time
    (its parameters and buffers are views of that tensor, as the first program's are).
    dimscope's archive writer stores a tensor several programs held once and points each
    program at that one file (worker/archive.py); torch's reader would read it again for
    each program. Only this reader's files: a load on another thread passes through;
    two such loads take turns (`_READ_ONCE`), so that each puts back what it replaced.
    A torch whose loader has no `_build_file_map` loads as it does (a copy a program)."""
    import dataclasses

    with _READ_ONCE:
        original = getattr(package, "_build_file_map", None)
        if original is None:
            yield
            return
        read: Dict[tuple, Any] = {}
        package._build_file_map = _reading_once(original, reader, read, dataclasses.replace)
        try:
            yield
        finally:
            package._build_file_map = original


_READ_ONCE = threading.Lock()


def _reading_once(original: Any, reader: Any, read: Dict[tuple, Any], replace: Any) -> Any:
    """torch's `_build_file_map` (`original`), reading the files of `reader` it has not
    read yet (`read`: (folder, file) -> the tensor made of it)."""

    def build_file_map(archive_reader, config, base_dir):
        if archive_reader is not reader:
            return original(archive_reader, config, base_dir)
        entries = config.config
        unread = {key: meta for key, meta in entries.items() if (base_dir, meta.path_name) not in read}
        for path_name, tensor in original(archive_reader, replace(config, config=unread),
                                          base_dir).items():
            read[(base_dir, path_name)] = tensor
        return {meta.path_name: read[(base_dir, meta.path_name)] for meta in entries.values()
                if (base_dir, meta.path_name) in read}

    return build_file_map


def _reads_archives() -> bool:
    try:
        from torch.export.pt2_archive import _package
    except ImportError:
        return False
    return hasattr(_package, "_load_exported_programs") and hasattr(_package, "PT2ArchiveReader")


def load_program(pt2_path: "os.PathLike[str] | str", capture_path: "os.PathLike[str] | str | None" = None,
                 name: Optional[str] = None):
    """The ExportedProgram in ``pt2_path`` (``name``: which program of an archive that
    holds several, see `program_names`; default ``model``, the first), with the cache
    flattening it was exported with made active first: the one the ``.pt2`` records,
    else (older files) the one of the capture it was exported from (``capture_path``).
    Raises CaptureError naming the file when it holds no program of that name, when a
    class it needs is not loaded in this process or the record is bad, when a custom
    operator its programs call is not registered here (the error names the module that
    registered it at export: import it first; dimscope never imports it), or when part of
    the archive would need full pickle: loading never unpickles (every torch.load reads
    tensors and plain values only)."""
    pt2_path = os.fspath(pt2_path)
    names = program_names(pt2_path)
    name = FIRST_PROGRAM if name is None else name
    if name not in names:
        raise CaptureError(f"{pt2_path}: no program named {name!r}; the file holds: {', '.join(names)}")
    _ready_to_load(pt2_path, capture_path, names, [name])
    if len(names) > 1 or name != FIRST_PROGRAM:
        load = functools.partial(_load_one_of_archive, pt2_path, name)
    else:
        load = None
    return _load_naming_missing_operators(pt2_path, [name], load)


def load_programs(pt2_path: "os.PathLike[str] | str",
                  capture_path: "os.PathLike[str] | str | None" = None) -> Dict[str, Any]:
    """Every ExportedProgram in ``pt2_path`` by name, in `program_names`' order
    (``model`` first), each made ready as `load_program` makes it. From an archive of
    several programs each weight and constant file is read once: where the programs held
    the same tensor when they were exported (dimscope's archive stores it once), they
    hold the same tensor again, as the model did. So the weights are in memory once, and
    a buffer one program updates in place is updated for the others, as in the model;
    torch's ``load_pt2`` gives each program a copy. Raises CaptureError as
    `load_program` does."""
    pt2_path = os.fspath(pt2_path)
    names = program_names(pt2_path)
    if names == [FIRST_PROGRAM]:
        return {FIRST_PROGRAM: load_program(pt2_path, capture_path)}
    _ready_to_load(pt2_path, capture_path, names, names)
    return _load_naming_missing_operators(pt2_path, names, functools.partial(_load_of_archive, pt2_path, names))


def _ready_to_load(pt2_path: str, capture_path: Any, names: List[str], loading: List[str]) -> None:
    """What loading programs `loading` of the file needs first: their custom operators
    registered here, the cache flattening they were exported with made active, and a
    torch that reads the file. Raises CaptureError naming the file."""
    for name in loading:
        customops.check_registered(read_custom_ops(pt2_path, name), pt2_path, name)
    record = read_flattening(pt2_path)
    if record is not None:
        try:
            register_capture_flattening(_as_manifest(record))
        except CaptureError as exc:
            raise CaptureError(f"{pt2_path}: {exc}") from exc
    elif capture_path is not None:
        from .capture import read_manifest
        register_capture_flattening(read_manifest(capture_path))
    if (len(names) > 1 or loading != [FIRST_PROGRAM]) and not _reads_archives():
        raise CaptureError(f"{pt2_path}: holds several programs ({', '.join(names)}); this torch reads only "
                           f"one-program files (torch >= 2.8 reads PT2 archives)")


def _load_naming_missing_operators(pt2_path: str, names: List[str], load: Any) -> Any:
    """`_torch_load`; when torch fails, a CaptureError naming the custom operator a
    program of `names` calls that is not registered here, if there is one."""
    try:
        return _torch_load(pt2_path, load)
    except CaptureError:
        raise
    except Exception as exc:
        for name in names:
            _raise_if_an_operator_is_missing(pt2_path, name, exc)
        raise


def _raise_if_an_operator_is_missing(pt2_path: str, name: str, exc: Exception) -> None:
    """After torch failed to load program `name` of a file without the custom-operator
    record (torch 2.14 says only "check the warnings above"): a CaptureError naming the
    operator its graph calls that this process has not registered, if there is one."""
    try:
        with zipfile.ZipFile(pt2_path) as archive:
            for entry in archive.namelist():
                match = _MODEL_RECORD.match(entry)
                if (match and match.group(1) == name) or entry.endswith("serialized_exported_program.json"):
                    missing = customops.unregistered_target(archive.read(entry).decode("utf-8", "replace"))
                    if missing:
                        raise CaptureError(
                            f"{pt2_path}: program {name!r} calls {missing}, which is not registered in this process "
                            f"(the file records no module that registers it: import that module, or the model's "
                            f"code, first)") from exc
    except (OSError, zipfile.BadZipFile):
        return

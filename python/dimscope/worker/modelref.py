# SPDX-License-Identifier: GPL-3.0-or-later
"""Model references the worker understands (docs/worker-protocol.md, "Model references"):

- `package.module:callable`  - imported with importlib;
- `path/to/file.py:callable` - loaded from the file (its folder goes on sys.path so
  that sibling imports work);
- a Hugging Face model directory (has config.json) - transformers' from_pretrained.

The callable returns an `nn.Module`, or is an `nn.Module` class with a no-argument
constructor.

What a reference names is decided first, by `resolve`, which runs nothing: a file is
its canonical path on disk, a module is the file the import system would load, found
without importing it or its parent packages. A reference that starts with `dimscope.`
is always a module of dimscope's own package and must resolve inside it: one that
holds a path (`dimscope./../x.py:f`) is refused before anything is looked up. The GUI
decides consent the same way (core/project/modelreference.h, docs/security.md).
"""

import collections
import importlib
import importlib.machinery
import importlib.util
import os
import sys

from .errors import WorkerError


def _check_module(obj, ref):
    import torch

    if not isinstance(obj, torch.nn.Module):
        raise WorkerError("model_load", "%s returned a %s, not a torch.nn.Module"
                          % (ref, type(obj).__qualname__))
    return obj


# The classes a Hugging Face folder is loaded as, for recording (its generate()) and for
# export alike, so that the exported model is the recorded one (a T5 folder is a
# T5ForConditionalGeneration for both, not a T5Model for export).
AUTO_CLASSES = ("AutoModelForCausalLM", "AutoModelForSeq2SeqLM", "AutoModelForImageTextToText",
                "AutoModelForSpeechSeq2Seq")


def auto_class(config, transformers):
    """The transformers auto class for the folder's config: the first of AUTO_CLASSES
    that maps its config class to one of config.architectures, else the first that maps
    the config class at all."""
    architectures = list(getattr(config, "architectures", None) or [])
    candidates = []
    for name in AUTO_CLASSES:
        cls = getattr(transformers, name, None)
        mapping = getattr(cls, "_model_mapping", None)
        if mapping is None:
            continue
        try:
            model_class = mapping[type(config)]
        except KeyError:
            continue
        if getattr(model_class, "__name__", None) in architectures:
            return cls
        candidates.append(cls)
    if candidates:
        return candidates[0]
    raise WorkerError("model_load", "no transformers auto class (%s) generates with a %s (architectures: %s)"
                      % (", ".join(AUTO_CLASSES), type(config).__name__, ", ".join(architectures) or "none"),
                      field="architectures")


def _load_hf(directory):
    if importlib.util.find_spec("transformers") is None:
        raise WorkerError("transformers_missing",
                          "%s is a Hugging Face model directory (config.json), but the worker's "
                          "Python (%s) has no transformers package; install it there or point "
                          "DIMSCOPE_PYTHON at an interpreter that has it" % (directory, sys.executable))
    import transformers

    errors = []
    # The class recording uses (auto_class), else AutoModel for a model that generates
    # nothing. Off, not unset: unset, transformers asks on stdin (the protocol's channel)
    # whether to run a folder's auto_map code whose model type it does not know.
    try:
        classes = [auto_class(transformers.AutoConfig.from_pretrained(directory, trust_remote_code=False),
                              transformers)]
    except (WorkerError, ValueError, KeyError, OSError) as e:
        errors.append("AutoConfig: %s" % e)
        classes = []
    for cls in classes + [transformers.AutoModel]:
        try:
            return cls.from_pretrained(directory, trust_remote_code=False)
        except (ValueError, KeyError, OSError) as e:
            errors.append("%s: %s" % (cls.__name__, e))
    raise WorkerError("model_load", "transformers could not load %s:\n%s" % (directory, "\n".join(errors)))


_OWN_PREFIX = "dimscope."
# dimscope's package folder (this module is in its worker/ subpackage): `dimscope.<name>`
# references must resolve inside it.
_OWN_FOLDER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

Resolved = collections.namedtuple("Resolved", "kind target attr origin")
Resolved.__doc__ = """What a reference names. kind: "folder", "file" or "module"; target: the
folder or file (canonical path) or the module name; attr: the callable's dotted name
(None for a folder); origin: the file that would run (a file's own path, a module's
source or extension file; None when the module is not found or has no file)."""


def disguise(ref):
    """Why `ref` claims dimscope's own package but is not one of its modules (it holds
    '/', '\\' or '..', or names a .py file), or None. Such a reference is refused as
    it is: resolving it as a path would run a file outside dimscope without consent."""
    if not ref.startswith(_OWN_PREFIX):
        return None
    for i, c in enumerate(ref):
        if c in "/\\" or ref.startswith("..", i):
            return ("model reference %r names dimscope's own package ('dimscope.') but holds a path "
                    "(%r at character %d): refused, nothing was run" % (ref, ref[i:i + (2 if c == "." else 1)], i + 1))
    if ref.rpartition(":")[0].endswith(".py"):
        return ("model reference %r names dimscope's own package ('dimscope.') but is a .py file path: "
                "refused, nothing was run" % ref)
    return None


def find_module_origin(name):
    """The file `import name` would load, found without importing or running anything.

    importlib.util.find_spec imports a dotted name's parent packages (running their
    __init__.py); this reads parents that are already imported from sys.modules and
    looks the others up on disk with PathFinder, which only lists folders. Returns
    (spec or None, origin or None)."""
    parts = name.split(".")
    spec = None
    for i in range(1, len(parts) + 1):
        fullname = ".".join(parts[:i])
        module = sys.modules.get(fullname)
        if module is not None:  # imported already: nothing new runs for it
            spec = getattr(module, "__spec__", None)
            if spec is None:
                return None, getattr(module, "__file__", None)
            continue
        if i == 1:
            if fullname in sys.builtin_module_names:
                return importlib.machinery.ModuleSpec(fullname, importlib.machinery.BuiltinImporter), None
            search = None  # sys.path
        else:
            search = spec.submodule_search_locations
            if not search:  # the parent is no package
                return None, None
            search = list(search)
        spec = importlib.machinery.PathFinder.find_spec(fullname, search)
        if spec is None:
            return None, None
    return spec, (spec.origin if spec.has_location else None)


def _bad_ref(ref):
    return WorkerError("bad_model_ref",
                       "model reference %r: expected 'package.module:callable', "
                       "'path/to/file.py:callable' or a Hugging Face model directory" % ref)


def resolve(ref):
    """What `ref` names, decided without executing, importing or writing anything (the
    dry half of load_model). Raises WorkerError for a reference that is refused or
    malformed. Relative paths are relative to the current folder: clients send them
    absolute (the GUI resolves a project's against the project's folder)."""
    why = disguise(ref)
    if why:
        raise WorkerError("bad_model_ref", why)
    target, colon, attr = ref.rpartition(":")
    if not ref.startswith(_OWN_PREFIX) and (os.path.isdir(ref) or not colon):
        if not os.path.isdir(ref):
            raise _bad_ref(ref)
        folder = os.path.realpath(ref)
        return Resolved("folder", folder, None, folder)
    if not target or not attr:
        raise _bad_ref(ref)
    if target.endswith(".py"):
        # realpath, not abspath: '..' after a symbolic link is resolved on disk, as
        # the open will be, not by cutting the text.
        path = os.path.realpath(target)
        return Resolved("file", path, attr, path)
    if not all(part.isidentifier() for part in target.split(".")):
        raise _bad_ref(ref)
    _, origin = find_module_origin(target)
    if ref.startswith(_OWN_PREFIX):
        inside = origin is not None and os.path.realpath(origin).startswith(_OWN_FOLDER + os.sep)
        if not inside:
            raise WorkerError("bad_model_ref",
                              "model reference %r names dimscope's own package, but %s is not a module of "
                              "dimscope's package in %s: refused, nothing was run"
                              % (ref, target, _OWN_FOLDER))
    return Resolved("module", target, attr, origin)


_model_folder = None  # the folder the loaded file model put on sys.path


def _use_model_folder(folder):
    """Puts a file model's own folder first on sys.path (its sibling imports), taking
    off the one the previous model put there: each model imports from its own folder,
    and only once it is loaded (the worker starts with no user folder on sys.path)."""
    global _model_folder
    if _model_folder is not None and _model_folder != folder:
        if _model_folder in sys.path:
            sys.path.remove(_model_folder)
        _model_folder = None
    if folder is not None and folder not in sys.path:
        sys.path.insert(0, folder)
        _model_folder = folder


def _import_target(resolved, ref):
    if resolved.kind == "file":
        path = resolved.target
        if not os.path.isfile(path):
            raise WorkerError("model_import", "model file %s does not exist" % path)
        _use_model_folder(os.path.dirname(path))
        name = "dimscope_user_" + os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)  # exceptions carry the user's traceback
    else:
        _use_model_folder(None)
        module = importlib.import_module(resolved.target)
    obj = module
    for part in resolved.attr.split("."):
        if not hasattr(obj, part):
            raise WorkerError("model_import", "%s has no attribute %r" % (resolved.target, part))
        obj = getattr(obj, part)
    return obj


def load_model(ref):
    """Returns the nn.Module a reference names. Raises WorkerError, or the user's own
    exception for import-time failures (the caller reports those with their traceback)."""
    import torch

    resolved = resolve(ref)  # runs nothing; refuses a disguised "dimscope." path
    if resolved.kind == "folder":
        if not os.path.isfile(os.path.join(ref, "config.json")):
            raise WorkerError("bad_model_ref", "%s is a directory without config.json "
                              "(not a Hugging Face model directory)" % ref)
        return _load_hf(ref)
    try:
        obj = _import_target(resolved, ref)
    except WorkerError:
        raise
    except (Exception, SystemExit) as e:
        raise WorkerError("model_import", "importing %s failed: %s: %s" % (ref, type(e).__name__, e),
                          user_traceback=_format(e)) from e
    try:
        if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
            model = obj()
        elif callable(obj):
            model = obj()
        else:
            model = obj
    except (Exception, SystemExit) as e:
        raise WorkerError("model_load", "calling %s failed: %s: %s" % (ref, type(e).__name__, e),
                          user_traceback=_format(e)) from e
    return _check_module(model, ref)


def _format(e):
    import traceback

    return "".join(traceback.format_exception(type(e), e, e.__traceback__))

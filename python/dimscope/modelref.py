# SPDX-License-Identifier: GPL-3.0-or-later
"""Model references the worker understands (docs/worker-protocol.md, "Model references"):

- `package.module:callable`  - imported with importlib;
- `path/to/file.py:callable` - loaded from the file (its folder goes on sys.path so
  that sibling imports work);
- a Hugging Face model directory (has config.json) - transformers' from_pretrained.

The callable returns an `nn.Module`, or is an `nn.Module` class with a no-argument
constructor.
"""

import importlib
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


def _load_hf(directory):
    if importlib.util.find_spec("transformers") is None:
        raise WorkerError("transformers_missing",
                          "%s is a Hugging Face model directory (config.json), but the worker's "
                          "Python (%s) has no transformers package; install it there or point "
                          "DIMSCOPE_PYTHON at an interpreter that has it" % (directory, sys.executable))
    import transformers

    errors = []
    for cls_name in ("AutoModelForCausalLM", "AutoModel"):
        cls = getattr(transformers, cls_name)
        try:
            return cls.from_pretrained(directory)
        except (ValueError, KeyError, OSError) as e:
            errors.append("%s: %s" % (cls_name, e))
    raise WorkerError("model_load", "transformers could not load %s:\n%s" % (directory, "\n".join(errors)))


def _import_target(ref):
    target, _, attr = ref.rpartition(":")
    if not target or not attr:
        raise WorkerError("bad_model_ref",
                          "model reference %r: expected 'package.module:callable', "
                          "'path/to/file.py:callable' or a Hugging Face model directory" % ref)
    if target.endswith(".py"):
        path = os.path.abspath(target)
        if not os.path.isfile(path):
            raise WorkerError("model_import", "model file %s does not exist" % path)
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        name = "dimscope_user_" + os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)  # exceptions carry the user's traceback
    else:
        module = importlib.import_module(target)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise WorkerError("model_import", "%s has no attribute %r" % (target, part))
        obj = getattr(obj, part)
    return obj


def load_model(ref):
    """Returns the nn.Module a reference names. Raises WorkerError, or the user's own
    exception for import-time failures (the caller reports those with their traceback)."""
    import torch

    if os.path.isdir(ref):
        if not os.path.isfile(os.path.join(ref, "config.json")):
            raise WorkerError("bad_model_ref", "%s is a directory without config.json "
                              "(not a Hugging Face model directory)" % ref)
        return _load_hf(ref)
    try:
        obj = _import_target(ref)
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

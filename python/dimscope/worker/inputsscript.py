# SPDX-License-Identifier: GPL-3.0-or-later
"""The `record` request's inputs script (issue 21: "for anything else, an inputs script
(`file.py:calls`), a function that receives the model and runs it; every forward call it
makes is recorded").

The reference is `/abs/file.py:function` or `package.module:function`, resolved like a
model reference (modelref.resolve: nothing runs to decide it, a disguised `dimscope.`
path is refused). The function is called as `function(model, processor)`, or
`function(model)` when it takes one positional argument: `model` is the loaded model
with dimscope's InputRecorder around its forward, `processor` the folder's (or the
`tokenizer` folder's) AutoProcessor, its tokenizer when it has no processor, or None.
Its return value is ignored.

A script is code: the client runs one only because the user named it (the CLI's
command line; a GUI runs one it did not just get from the user only after consent, as
for a project's model). `inputs_script_sha256`, when given, is the content the consent
was for: a file that differs is refused before it is imported.

Failures are `inputs_script` failures with the place in the script: the innermost
frame of the traceback in the script's file (`file`, `line`, `function`, `code`), the
syntax error's own place for a file that does not compile.
"""

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import traceback

from . import modelref
from .errors import WorkerError

FIELD = "inputs_script"


class Script:
    """A resolved inputs script: `ref` as given, `origin` (the file that runs, or None
    for a module without one) and, once imported, `function`."""

    def __init__(self, ref, origin):
        self.ref, self.origin, self.function = ref, origin, None


def resolve(ref, sha256):
    """The script `ref` names, checked against the consented `sha256`; runs nothing."""
    if not isinstance(ref, str) or not ref:
        raise WorkerError("bad_request", "record: 'inputs_script' must be a reference 'file.py:function' or "
                          "'package.module:function', got %r" % (ref,))
    try:
        resolved = modelref.resolve(ref)
    except WorkerError as e:
        raise WorkerError(FIELD, "inputs script %s" % e, field=FIELD, stage="resolve") from e
    if resolved.kind == "folder":
        raise WorkerError(FIELD, "inputs script %r is a folder: expected 'file.py:function' or "
                          "'package.module:function'" % ref, field=FIELD, stage="resolve")
    if resolved.kind == "file" and not os.path.isfile(resolved.target):
        raise WorkerError(FIELD, "inputs script %s does not exist" % resolved.target, field=FIELD,
                          file=resolved.target, stage="resolve")
    if sha256 is not None:
        _check_consented(resolved.origin, sha256)
    script = Script(ref, resolved.origin)
    script.resolved = resolved
    return script


def _check_consented(origin, sha256):
    if not isinstance(sha256, str):
        raise WorkerError("bad_request", "record: 'inputs_script_sha256' must be a hex string, got %r" % (sha256,))
    try:
        with open(origin or "", "rb") as f:
            actual = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        raise WorkerError(FIELD, "inputs script %s cannot be read: %s" % (origin, e.strerror or e), field=FIELD,
                          file=origin, stage="consent") from e
    if actual != sha256.lower():
        raise WorkerError(FIELD, "inputs script %s changed since it was agreed to (sha256 %s, agreed to %s): "
                          "nothing of it ran; ask the user again" % (origin, actual, sha256), field=FIELD,
                          file=origin, stage="consent", sha256=actual)


def load(script):
    """Imports the script's module (its folder first on sys.path while it imports, for
    its sibling imports) and finds the function."""
    resolved = script.resolved
    try:
        with _folder_on_path(resolved):
            if resolved.kind == "file":
                name = "dimscope_inputs_" + os.path.splitext(os.path.basename(resolved.target))[0]
                spec = importlib.util.spec_from_file_location(name, resolved.target)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module  # as an import does: dataclasses and pickle look the module up there
                spec.loader.exec_module(module)
            else:
                module = importlib.import_module(resolved.target)
    except (Exception, SystemExit) as e:
        raise failure(e, script, "import") from e
    obj = module
    for part in resolved.attr.split("."):
        if not hasattr(obj, part):
            raise WorkerError(FIELD, "inputs script %s has no attribute %r" % (script.origin or script.ref, part),
                              field=FIELD, file=script.origin, stage="import")
        obj = getattr(obj, part)
    if not callable(obj):
        raise WorkerError(FIELD, "inputs script %s: %s is a %s, not a function" % (
            script.origin or script.ref, resolved.attr, type(obj).__name__), field=FIELD, file=script.origin,
            stage="import")
    script.function = obj


class _folder_on_path:
    """The file's folder first on sys.path for the import and the call, and taken off
    afterwards: the script's sibling imports work, and the worker's path is unchanged."""

    def __init__(self, resolved):
        self.folder = os.path.dirname(resolved.target) if resolved.kind == "file" else None

    def __enter__(self):
        self.added = self.folder is not None and self.folder not in sys.path
        if self.added:
            sys.path.insert(0, self.folder)

    def __exit__(self, *exc):
        if self.added and self.folder in sys.path:
            sys.path.remove(self.folder)


def takes_processor(function):
    """Whether `function` takes a second positional argument (the processor)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return True
    try:
        signature.bind(None, None)
        return True
    except TypeError:
        return False


def run(script, model, processor):
    """Calls the script's function on the model; its exceptions become `inputs_script`
    failures with the place in the script."""
    args = (model, processor) if takes_processor(script.function) else (model,)
    try:
        with _folder_on_path(script.resolved):
            script.function(*args)
    except (Exception, SystemExit) as e:
        raise failure(e, script, "call") from e


def _place(e, origin):
    """(file, line, function, code) of the exception's innermost frame in the script's
    file; a syntax error's own place; else the innermost frame."""
    if isinstance(e, SyntaxError) and e.filename:
        return e.filename, e.lineno, None, (e.text or "").strip() or None
    frames = traceback.extract_tb(e.__traceback__)
    real = os.path.realpath(origin) if origin else None
    inside = [f for f in frames if real is not None and os.path.realpath(f.filename) == real]
    frame = (inside or frames or [None])[-1]
    if frame is None:
        return origin, None, None, None
    return frame.filename, frame.lineno, frame.name, frame.line or None


def failure(e, script, stage):
    file, line, function, code = _place(e, script.origin)
    where = "%s:%s" % (file, line) if line else (file or script.ref)
    if function and function != "<module>":
        where += " in %s()" % function
    doing = "importing the script" if stage == "import" else "calling %s" % script.resolved.attr
    text = str(e).splitlines()[0] if str(e) else ""
    message = "inputs script %s: %s%s (while %s)" % (where, type(e).__name__, ": " + text if text else "", doing)
    if code:
        message += "\n    %s" % code
    return WorkerError(FIELD, message, field=FIELD, stage=stage, file=file, line=line, function=function, code=code,
                       user_traceback="".join(traceback.format_exception(type(e), e, e.__traceback__)))

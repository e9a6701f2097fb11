# SPDX-License-Identifier: GPL-3.0-or-later
"""Every exception class dimscope's Python package raises, in one place.

They share one base, ``DimscopeError``, so that a caller can catch all of dimscope's own
failures at once; the ValueError ones stay ValueErrors so that code written against the
older classes (``except ValueError``) keeps catching them. The modules that raise them
re-export them where they used to be defined (``dimscope.capture.CaptureError``,
``dimscope.caches.CaptureError``, ``dimscope.worker.spec.SpecError``, ``dimscope.worker.errors.WorkerError``).

Nothing here imports torch: ``dimscope.worker.spec`` and the worker's error handling use these
classes in processes that may not have loaded it yet.
"""

__all__ = ["DimscopeError", "CaptureError", "SpecError", "StructureMismatch", "WorkerError", "ProgramsLeftOut"]


class DimscopeError(Exception):
    """The base of every exception dimscope's Python package defines."""


class CaptureError(DimscopeError, ValueError):
    """A value cannot be captured, or a capture cannot be read or rebuilt."""


class SpecError(DimscopeError, ValueError):
    """A malformed spec document (docs/spec-format.md); the message names the JSON place."""


class StructureMismatch(DimscopeError, ValueError):
    """The spec does not fit the inputs; ``path`` is the key path of the first mismatch."""

    def __init__(self, path, message):
        super().__init__("%s: %s" % (path or "<inputs>", message))
        self.path = path
        self.detail = message


class WorkerError(DimscopeError):
    """An error the export worker reports as is (docs/worker-protocol.md, "Errors"):
    ``kind`` plus the kind's extra fields."""

    def __init__(self, kind, message, **fields):
        super().__init__(message)
        self.kind = kind
        self.fields = fields


class ProgramsLeftOut(DimscopeError):
    """Inside the worker only: programs of a staged archive that failed their
    fresh-process check (``names``); the archive is written again without them
    (``dimscope.worker.archive.write_held``), so this never reaches a client."""

    def __init__(self, names):
        super().__init__(", ".join(names))
        self.names = names

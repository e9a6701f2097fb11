# SPDX-License-Identifier: GPL-3.0-or-later
"""A private torch function replaced for the length of a trace, and put back after.

dimscope wraps two of torch's private functions while it exports (draftexport.py:
the fake/real offset check; fixedroots.py: the resolution of new root Dims). Both are
looked up by name on each call: a torch without the function (or without its module)
runs as it is."""

import contextlib
import importlib


@contextlib.contextmanager
def replaced(module_name, owner_name, name, make):
    """Within: `module_name`'s `owner_name` (the module itself when None) has its
    callable `name` replaced by make(original); the original is restored after."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        module = None
    owner = getattr(module, owner_name, None) if owner_name else module
    original = getattr(owner, name, None) if owner is not None else None
    if not callable(original):
        yield
        return
    setattr(owner, name, make(original))
    try:
        yield
    finally:
        setattr(owner, name, original)

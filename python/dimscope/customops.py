# SPDX-License-Identifier: GPL-3.0-or-later
"""The custom operators a program calls, and the Python modules that register them.

A program whose graph calls an operator registered from Python (``torch.library.custom_op``,
``torch.library.define``: transformers' ``transformers::grouped_mm_fallback`` for its
mixture-of-experts layers) loads only in a process where that operator is registered
again: torch's deserializer looks each node's target up in ``torch.ops`` and fails on a
missing one. At export time the worker knows every such operator and the module that
registered it; it stores them beside the programs (extra file ``dimscope_custom_ops.json``,
docs/capture-format.md) so that the fresh-process check imports those modules the way a
user would, the plain-load registrations name them, and ``dimscope.load_program`` says
which module to import when one is missing. Loading never imports a module the file
names: the record is data only.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Dict, List, Optional

from .exceptions import CaptureError

RECORD = "dimscope_custom_ops.json"
FORMAT = "dimscope.pt2_custom_ops"
VERSION = 1
# Namespaces whose operators `import torch` registers (torch 2.6 and 2.14's op registry
# after a bare import): a program calling them needs nothing imported.
TORCH_NAMESPACES = frozenset((
    "aten", "prims", "_prims", "higher_order", "rngprims", "debugprims", "inductor", "inductor_prims",
    "quantized", "_quantized", "quantization", "prepacked", "mkldnn", "mkldnn_prepacked", "onednn",
    "sparse", "profiler", "static_runtime", "symm_mem", "vulkan_prepack", "vulkan_quantized",
    "_c10d_functional", "_c10d_functional_autograd", "c10d", "_dtensor", "_native", "_test", "export",
    "debug_mode_ops", "coor"))
_OP = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*$")
_OVERLOAD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


# ---------------------------------------------------------------------------- export side


def called_ops(*programs: Any) -> Dict[str, List[str]]:
    """{``ns::name``: [overload, ...]} of the operators outside torch's own namespaces
    that the programs' graphs call (subgraphs of control flow included), in the order
    they first appear."""
    import torch

    found: Dict[str, List[str]] = {}
    for program in programs:
        for module in program.graph_module.modules():
            if not isinstance(module, torch.fx.GraphModule):
                continue
            for node in module.graph.nodes:
                target = node.target
                if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
                    continue
                if target.namespace in TORCH_NAMESPACES:
                    continue
                overloads = found.setdefault(target._schema.name, [])
                if target._overloadname not in overloads:
                    overloads.append(target._overloadname)
    return found


def _registering_module(function: Any) -> Optional[str]:
    """The module of `function` when importing it registers the operator: the function is
    defined at the module's top level (one defined inside a function is registered when
    that function runs, not on import), and the module is not ``__main__`` (a script's own)
    nor torch's wrapper around the registered function."""
    if function is None or "<locals>" in (getattr(function, "__qualname__", None) or "<locals>"):
        return None
    return _importable(getattr(function, "__module__", None))


def _unwrapped(function: Any) -> Any:
    """The user's function inside torch's wrapper around it (torch 2.14 registers a fake
    function as a closure, ``_check_pystubs_once.<locals>.inner``), else `function`."""
    if not str(getattr(function, "__module__", "")).startswith("torch."):
        return function
    for cell in getattr(function, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if callable(inner) and hasattr(inner, "__code__") and not str(
                getattr(inner, "__module__", "")).startswith("torch"):
            return inner
    return function


def _importable(name: Any) -> Optional[str]:
    if not isinstance(name, str) or not _MODULE.match(name) or name == "__main__":
        return None
    if name in ("torch", "torch.library") or name.startswith("torch._library"):
        return None
    return name


def defining_module(qualname: str) -> Optional[str]:
    """The module whose import registers operator ``ns::name`` in this process: that of
    the top-level function ``torch.library.custom_op`` wraps, else of its fake (meta)
    function, else the module a C++ registration names for it (``impl_abstract_pystub``),
    else the namespace itself when a module of that name is loaded (an extension that
    loads its operators on import). None when none is known (an operator registered by a
    script, or by a function at run time)."""
    import torch

    try:
        from torch._library import custom_ops
        opdef = getattr(custom_ops, "OPDEFS", {}).get(qualname)
        module = _registering_module(getattr(opdef, "_init_fn", None))
        if opdef is not None:
            return module
    except ImportError:
        pass
    try:
        from torch._library.simple_registry import singleton
        entry = singleton.find(qualname)
        holder = getattr(entry, "fake_impl", None) or getattr(entry, "abstract_impl", None)
        module = _registering_module(_unwrapped(getattr(getattr(holder, "kernel", None), "func", None)))
        if module:
            return module
    except (ImportError, AttributeError):
        pass
    try:
        stub = torch._C._dispatch_pystub(qualname, "")
        module = _importable(stub[0] if stub else None)
        if module:
            return module
    except (AttributeError, RuntimeError, TypeError):
        pass
    namespace = qualname.split("::", 1)[0]
    return _importable(namespace) if namespace in sys.modules else None


def program_ops(program: Any) -> Dict[str, Dict[str, Any]]:
    """{``ns::name``: {"module": its registering module or None, "overloads": [...]}}."""
    return {name: {"module": defining_module(name), "overloads": overloads}
            for name, overloads in called_ops(program).items()}


def needed_modules(program: Any) -> List[str]:
    """The modules a process imports to register every custom operator of the program,
    in order, each once."""
    out: List[str] = []
    for entry in program_ops(program).values():
        if entry["module"] and entry["module"] not in out:
            out.append(entry["module"])
    return out


def extra_file(programs: Dict[str, Any]) -> Dict[str, str]:
    """{RECORD: its JSON} when programs ({name: program}, the names a file's programs
    have) call custom operators, else {} (no file): each program's own operators, so that
    one program of an archive loads where another's operator is missing."""
    per_program = {name: ops for name, ops in ((n, program_ops(p)) for n, p in programs.items()) if ops}
    if not per_program:
        return {}
    return {RECORD: json.dumps({"format": FORMAT, "version": VERSION, "programs": per_program}, sort_keys=True)}


# ---------------------------------------------------------------------------- load side


def parse_record(text: str, where: str, program: str) -> Dict[str, Dict[str, Any]]:
    """The operators the record lists for `program` ({} for none); a bad record raises
    CaptureError naming ``where`` and the place (names are checked against Python's and
    torch's name rules before any message shows them)."""
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise CaptureError(f"{where}: not JSON ({exc})") from exc
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise CaptureError(f"{where}: not a {FORMAT} record")
    if record.get("version") != VERSION:
        raise CaptureError(f"{where}: version {record.get('version')!r}, this dimscope reads {VERSION}")
    programs = record.get("programs")
    if not isinstance(programs, dict):
        raise CaptureError(f"{where}: 'programs' is not an object")
    ops = programs.get(program, {})
    if not isinstance(ops, dict):
        raise CaptureError(f"{where}: programs[{program!r}] is not an object")
    for name, entry in ops.items():
        place = f"{where}: programs[{program!r}]"
        if not _OP.match(name):
            raise CaptureError(f"{place}: {name!r} is not an operator name (namespace::name)")
        module = entry.get("module") if isinstance(entry, dict) else None
        overloads = entry.get("overloads") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or module is not None and not (isinstance(module, str) and _MODULE.match(module)):
            raise CaptureError(f"{place}[{name!r}]: 'module' is not a module name")
        if not (isinstance(overloads, list) and overloads and all(
                isinstance(o, str) and _OVERLOAD.match(o) for o in overloads)):
            raise CaptureError(f"{place}[{name!r}]: 'overloads' is not a list of overload names")
    return ops


def _registered(name: str, overload: str) -> bool:
    import torch

    try:
        torch._C._dispatch_find_schema_or_throw(name, "" if overload == "default" else overload)
    except RuntimeError:
        return False
    except AttributeError:  # a torch without the lookup: its own loader says what is missing
        return True
    return True


def check_registered(ops: Dict[str, Dict[str, Any]], pt2_path: str, program: str) -> None:
    """Raises CaptureError naming the file, the program, the first operator of ``ops``
    this process has not registered, and the module the export recorded for it (to
    import first: dimscope never imports a module a file names)."""
    for name, entry in ops.items():
        missing = [o for o in entry["overloads"] if not _registered(name, o)]
        if not missing:
            continue
        namespace, op = name.split("::", 1)
        where = f"torch.ops.{namespace}.{op}.{missing[0]}"
        module = entry.get("module")
        hint = (f"import {module} first" if module else
                "the export recorded no module that registers it: register it first, as the model's code does")
        raise CaptureError(f"{pt2_path}: {RECORD}: program {program!r} calls {where}, which is not registered "
                           f"in this process (dimscope never imports a module a file names: {hint})")


_TARGET = re.compile(r'"target":\s*"torch\.ops\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)"')


def unregistered_target(graph_text: str) -> Optional[str]:
    """The first operator outside torch's namespaces that a program's serialized graph
    (torch's JSON) calls and this process has not registered, as ``torch.ops.ns.name.overload``;
    None when there is none. For a file without the record (saved by torch.export.save,
    or by an older dimscope), once torch failed to load it."""
    seen = set()
    for match in _TARGET.finditer(graph_text):
        namespace, name, overload = match.groups()
        if namespace in TORCH_NAMESPACES or match.group(0) in seen:
            continue
        seen.add(match.group(0))
        if not _registered(f"{namespace}::{name}", overload):
            return f"torch.ops.{namespace}.{name}.{overload}"
    return None

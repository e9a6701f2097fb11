# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn a `dimscope.dynamic_shapes` document (docs/spec-format.md) into the nested
structure `torch.export.export(dynamic_shapes=...)` expects, and walk it alongside
real inputs.

Works on torch 2.1+; `"auto"` / `"dynamic"` entries need a torch whose `Dim` has
`AUTO` / `DYNAMIC` (2.4 or so) and raise a clear error on older ones.
"""

import collections
import keyword

# Defined in dimscope.exceptions; imported here, where exporter and tests look for them.
from ..exceptions import SpecError, StructureMismatch  # noqa: F401

SPEC_FORMAT = "dimscope.dynamic_shapes"
SPEC_VERSIONS = (1,)
_KEYWORDS = ("static", "auto", "dynamic")
# Containers torch flattens itself; captures record them as dict/list/tuple nodes.
_BUILTIN_CONTAINERS = (dict, list, tuple, collections.OrderedDict, collections.defaultdict)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _load_dims(doc, torch_dim):
    dims_json = doc.get("dims", [])
    if not isinstance(dims_json, list):
        raise SpecError("dims: expected a list, got %s" % type(dims_json).__name__)
    roots, derived_json, out = {}, {}, {}
    for i, d in enumerate(dims_json):
        where = "dims[%d]" % i
        if not isinstance(d, dict):
            raise SpecError("%s: expected an object" % where)
        name = d.get("name")
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or name in _KEYWORDS:
            raise SpecError("%s.name: %r is not a usable Dim name (a Python identifier, not %s)"
                            % (where, name, "/".join(_KEYWORDS)))
        if name in roots or name in derived_json:
            raise SpecError("%s.name: Dim %r is defined twice" % (where, name))
        if "root" in d:
            a, b = d.get("a", 1), d.get("b", 0)
            if not _is_int(a) or a <= 0:
                raise SpecError("%s.a: expected an integer > 0, got %r" % (where, a))
            if not _is_int(b):
                raise SpecError("%s.b: expected an integer, got %r" % (where, b))
            derived_json[name] = (where, d["root"], a, b)
            continue
        lo, hi = d.get("min"), d.get("max")
        for key, v in (("min", lo), ("max", hi)):
            if v is not None and not _is_int(v):
                raise SpecError("%s.%s: expected an integer or null, got %r" % (where, key, v))
        if lo is not None and hi is not None and hi <= lo:
            raise SpecError("%s: max (%d) must be greater than min (%d)" % (where, hi, lo))
        kwargs = {}
        if lo is not None:
            kwargs["min"] = lo
        if hi is not None:
            kwargs["max"] = hi
        try:
            roots[name] = torch_dim(name, **kwargs)
        except Exception as e:  # torch validates ranges too
            raise SpecError("%s: torch rejected Dim %r: %s" % (where, name, e)) from e
    out.update(roots)
    for name, (where, root, a, b) in derived_json.items():
        if root not in roots:
            raise SpecError("%s.root: %r is not a root Dim of this document" % (where, root))
        dim = roots[root]
        if a != 1:
            dim = a * dim
        if b:
            dim = dim + b
        out[name] = dim
    return out


def _hint(torch_dim, which, where):
    h = getattr(torch_dim, which.upper(), None)
    if h is None:
        import torch
        raise SpecError("%s: %r needs torch.export.Dim.%s, which torch %s does not have (use a named Dim)"
                        % (where, which, which.upper(), torch.__version__))
    return h


def _load_node(node, dims, torch_dim, where):
    if node is None:
        return None
    if not isinstance(node, dict) or len(node) != 1:
        raise SpecError("%s: expected null or an object with one key (dict/list/tuple/tensor), got %r"
                        % (where, node if not isinstance(node, dict) else list(node)))
    (kind, body), = node.items()
    if kind == "dict":
        if not isinstance(body, dict):
            raise SpecError("%s.dict: expected an object" % where)
        return {k: _load_node(v, dims, torch_dim, "%s[%r]" % (where, k)) for k, v in body.items()}
    if kind in ("list", "tuple"):
        if not isinstance(body, list):
            raise SpecError("%s.%s: expected an array" % (where, kind))
        items = [_load_node(v, dims, torch_dim, "%s[%d]" % (where, i)) for i, v in enumerate(body)]
        return items if kind == "list" else tuple(items)
    if kind == "tensor":
        if not isinstance(body, dict):
            raise SpecError("%s.tensor: expected an object {dim index: entry}" % where)
        out = {}
        for k, entry in body.items():
            here = "%s.tensor[%r]" % (where, k)
            if not (isinstance(k, str) and k.isdigit()):
                raise SpecError("%s: dimension index must be a non-negative integer" % here)
            if entry == "auto" or entry == "dynamic":
                out[int(k)] = _hint(torch_dim, entry, here)
            elif entry == "static":
                continue
            elif isinstance(entry, str):
                if entry not in dims:
                    raise SpecError("%s: unknown Dim %r (not in dims)" % (here, entry))
                out[int(k)] = dims[entry]
            else:
                raise SpecError("%s: expected a Dim name, \"auto\" or \"dynamic\", got %r" % (here, entry))
        return out
    raise SpecError("%s: unknown node kind %r (expected dict, list, tuple or tensor)" % (where, kind))


def check_header(doc):
    if not isinstance(doc, dict):
        raise SpecError("spec: expected a JSON object")
    if doc.get("format") != SPEC_FORMAT:
        raise SpecError("format: expected %r, got %r" % (SPEC_FORMAT, doc.get("format")))
    if doc.get("version") not in SPEC_VERSIONS:
        raise SpecError("version: %r is not supported (supported: %s)"
                        % (doc.get("version"), ", ".join(map(str, SPEC_VERSIONS))))
    if "dynamic_shapes" not in doc:
        raise SpecError("dynamic_shapes: missing")


def load_dynamic_shapes(doc):
    """Returns the torch.export `dynamic_shapes` structure for a spec document."""
    import torch.export

    check_header(doc)
    torch_dim = torch.export.Dim
    dims = _load_dims(doc, torch_dim)
    top = doc["dynamic_shapes"]
    if not (isinstance(top, dict) and list(top) == ["dict"]):
        raise SpecError("dynamic_shapes: the top level must be a {\"dict\": {...}} node")
    return _load_node(top, dims, torch_dim, "dynamic_shapes")


def dim_names(doc):
    """Name of every Dim object created by load_dynamic_shapes, for messages."""
    return [d.get("name") for d in doc.get("dims", []) if isinstance(d, dict)]


def _children(value):
    """Flattened children of a pytree-registered custom object, or None."""
    from torch.utils import _pytree as pytree

    node_type = type(value)
    entry = pytree.SUPPORTED_NODES.get(node_type)
    if entry is None:
        return None
    children, _ = entry.flatten_fn(value)
    return list(children)


def walk(spec, value, path=""):
    """Yields (key path, tensor, {dim: spec entry}) for every tensor of `value` with its
    spec (the loaded structure), raising StructureMismatch where they disagree."""
    import torch

    if isinstance(value, torch.Tensor):
        if spec is None:
            yield path, value, {}
            return
        if isinstance(spec, (list, tuple)):
            spec = {i: s for i, s in enumerate(spec) if s is not None}
        if not isinstance(spec, dict):
            raise StructureMismatch(path, "is a tensor, but its spec is a %s" % type(spec).__name__)
        for d in spec:
            if not isinstance(d, int) or d >= value.dim():
                raise StructureMismatch(path, "the spec names dimension %s of a %d-d tensor %s"
                                        % (d, value.dim(), tuple(value.shape)))
        yield path, value, spec
        return
    if spec is None:
        return  # None covers any non-tensor subtree as static
    # A registered dict subclass (transformers' ModelOutput) flattens through its own
    # registration, so its spec is the list of its children, as for any custom class.
    custom = None if type(value) in _BUILTIN_CONTAINERS else _children(value)
    if isinstance(value, dict) and custom is None:
        if not isinstance(spec, dict):
            raise StructureMismatch(path, "is a dict, but its spec is a %s" % type(spec).__name__)
        if set(spec) != set(value):
            raise StructureMismatch(path, "the inputs have keys %s, the spec has %s"
                                    % (sorted(value), sorted(spec)))
        for k in value:
            sub = ("%s['%s']" % (path, k)) if path else k
            yield from walk(spec[k], value[k], sub)
        return
    if custom is not None:
        children = custom
    elif isinstance(value, (list, tuple)):
        children = list(value)
    elif isinstance(value, (int, float, bool, str)) or value is None:
        return  # constants: a spec entry for them is ignored by torch
    else:
        raise StructureMismatch(path, "%s.%s is not a pytree-registered class"
                                % (type(value).__module__, type(value).__qualname__))
    if not isinstance(spec, (list, tuple)):
        raise StructureMismatch(path, "is a %s with %d children, but its spec is a %s"
                                % (type(value).__name__, len(children), type(spec).__name__))
    if len(spec) != len(children):
        raise StructureMismatch(path, "is a %s with %d children, but its spec has %d"
                                % (type(value).__name__, len(children), len(spec)))
    for i, (s, c) in enumerate(zip(spec, children)):
        yield from walk(s, c, "%s[%d]" % (path, i))

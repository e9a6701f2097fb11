# SPDX-License-Identifier: GPL-3.0-or-later
"""Capture files made from the fuzz seeds (fuzz/corpus/capture) for the tests that hold
the readers to docs/capture-format.md: the numbers at every place a manifest or header
holds one, hostile structures, and deterministic mutations of the seeds. Every case is
(name, bytes of a whole capture file). No torch needed: the seeds are taken apart and
put together as bytes and JSON text."""

import copy
import json
import pathlib
import random
import struct

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEEDS = sorted((ROOT / "fuzz" / "corpus" / "capture").glob("*.safetensors"))

# Number literals at the edges of what the readers hold: doubles' range, 2^53, 2^63,
# 2^31, signs, the spellings JSON allows (and some it does not).
EDGE_NUMBERS = [
    "0", "-0", "1", "-1", "0.0", "-0.0", "1.0", "1e2", "1E2", "1e+2", "1.5", "-2.5",
    "2147483647", "2147483648", "4294967296", "9007199254740992", "9007199254740993",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551616", "1" + "0" * 400, "-" + "9" * 5000,
    "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "1.8e308", "1e400", "-1e400",
    "1e99999999999999999999", "4e-320", "5e-324", "3e-324", "2e-324", "1e-400", "-1e-400", "0e400",
    "0.000e-999", "1e-99999999999999999999", "123456789012345678901234567890e-10",
    "NaN", "Infinity", "-Infinity", "nan", "inf",
    "01", "00", "-01", "1.", ".5", "+1", "0x10", "1e", "1e+", "--1", "- 1",
]


class Lit:
    """JSON text written as it is (a number literal, or anything)."""

    def __init__(self, text):
        self.text = text


class Pairs:
    """An object written from a list of (key, value) pairs: a key may appear twice."""

    def __init__(self, pairs):
        self.pairs = pairs


def dumps(value):
    """JSON text of ``value``, with Lit and Pairs written as they say."""
    if isinstance(value, Lit):
        return value.text
    if isinstance(value, Pairs):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(v) for k, v in value.pairs) + "}"
    if isinstance(value, dict):
        return dumps(Pairs(list(value.items())))
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return json.dumps(value)


def split(data):
    """(header dict, manifest dict, data area) of a well-formed capture file."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    return header, json.loads(header["__metadata__"]["dimscope.manifest"]), data[8 + n:]


def assemble(header, manifest, area):
    """A capture file: ``manifest`` (a value or its text) put into ``header``."""
    header = dict(header)
    text = manifest if isinstance(manifest, str) else dumps(manifest)
    header["__metadata__"] = Pairs([("dimscope.manifest", text)])
    return assemble_header(dumps(header), area)


def assemble_header(header_text, area):
    raw = header_text.encode("utf-8", "surrogatepass")
    return struct.pack("<Q", len(raw)) + raw + area


def seed(name):
    return (ROOT / "fuzz" / "corpus" / "capture" / f"{name}.safetensors").read_bytes()


def scalar_leaves(manifest):
    """The int and float leaf nodes of a manifest (dicts, changed in place by callers)."""
    out = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("kind") in ("int", "float"):
                out.append(node)
            for child in node.get("children", []):
                walk(child)

    for call in manifest["calls"]:
        walk(call["inputs"])
        if call.get("outputs"):
            walk(call["outputs"])
    return out


def number_cases():
    """Every edge number at every place a capture holds a number."""
    header, manifest, area = split(seed("scalars"))
    cases = []

    def manifest_with(name, change):
        for literal in EDGE_NUMBERS:
            m = copy.deepcopy(manifest)
            change(m, Lit(literal))
            cases.append((f"{name}={literal[:40]}", assemble(header, m, area)))

    def int_leaf(m, lit):
        next(n for n in scalar_leaves(m) if n["kind"] == "int")["value"] = lit

    def float_leaf(m, lit):
        next(n for n in scalar_leaves(m) if n["kind"] == "float")["value"] = lit

    manifest_with("int leaf", int_leaf)
    manifest_with("float leaf", float_leaf)
    manifest_with("constant", lambda m, lit: m["calls"][0]["constant_kwargs"].update(scale=lit))
    manifest_with("num_positional", lambda m, lit: m["calls"][0].update(num_positional=lit))
    manifest_with("version", lambda m, lit: m.update(version=lit))
    manifest_with("index", lambda m, lit: m["calls"][1].update(index=lit))
    manifest_with("default", lambda m, lit: m["model"]["signature"][2].update(default=lit))
    manifest_with("unknown member", lambda m, lit: m.update(later_addition=[lit]))
    manifest_with("leaf shape", lambda m, lit: m["calls"][0]["inputs"]["children"][0].update(shape=[lit]))

    def header_with(name, change):
        for literal in EDGE_NUMBERS:
            h = copy.deepcopy(header)
            change(h, Lit(literal))
            cases.append((f"{name}={literal[:40]}", assemble(h, manifest, area)))

    header_with("header shape", lambda h, lit: h["c0/in/0"].update(shape=[lit]))
    header_with("header offset", lambda h, lit: h["c0/in/0"].update(data_offsets=[lit, h["c0/in/0"]["data_offsets"][1]]))
    header_with("header unknown member", lambda h, lit: h["c0/in/0"].update(note=lit))
    return cases


def nested(depth, inner):
    value = inner
    for _ in range(depth):
        value = [value]
    return value


def leaf_at_depth(manifest, depth):
    """The scalars seed's call 1 with its int leaf ``depth`` lists below the inputs."""
    m = copy.deepcopy(manifest)
    path = "extra"
    node = {"kind": "int", "value": 1}
    for _ in range(depth - 1):
        path += "[0]"
    node["path"] = path
    for _ in range(depth - 1):
        node = {"kind": "list", "children": [node]}
    call = m["calls"][1]
    call["inputs"]["children"][1] = node
    return m


def structure_cases():
    """Hostile structures: duplicates, nesting at the limits, surrogates, non-finite floats."""
    header, manifest, area = split(seed("scalars"))
    cases = []

    def add(name, m=None, h=None):
        cases.append((name, assemble(header if h is None else h, manifest if m is None else m, area)))

    for depth in (254, 255, 256, 257, 300):  # the manifest object is level 1
        m = copy.deepcopy(manifest)
        m["later_addition"] = nested(depth, 0)
        add(f"nested lists {depth}", m)
    for depth in (120, 125, 126, 127, 129):
        add(f"leaf at tree depth {depth}", leaf_at_depth(manifest, depth))
    # Members named twice, at every level.
    m = copy.deepcopy(manifest)
    add("version twice", Pairs([("version", 1)] + list(m.items())))
    leaf = scalar_leaves(m)[0]
    add("value twice", _replace_leaf(m, leaf, Pairs(list(leaf.items()) + [("value", Lit("2"))])))
    m = copy.deepcopy(manifest)
    call = m["calls"][0]
    call["constant_kwargs"] = Pairs([("mode", "a"), ("mode", "b")])
    add("constant twice", m)
    m = copy.deepcopy(manifest)
    m["calls"][1]["inputs"] = Pairs(list(m["calls"][1]["inputs"].items()) + [("children", [])])
    add("children twice", m)
    m = copy.deepcopy(manifest)
    m["model"]["signature"][0] = Pairs([("name", "x"), ("kind", "POSITIONAL_OR_KEYWORD"), ("name", "y")])
    add("parameter name twice", m)
    m = copy.deepcopy(manifest)
    m["later_addition"] = Pairs([("a", 1), ("a", 1)])
    add("unknown member's object names a member twice", m)
    h = copy.deepcopy(header)
    h["c0/in/0"] = Pairs(list(h["c0/in/0"].items()) + [("dtype", h["c0/in/0"]["dtype"])])
    add("header entry names dtype twice", h=h)
    text = dumps(header)
    entry = dumps(header["c0/in/0"])
    cases.append(("header names a tensor twice",
                  assemble_header(text[:-1] + ',"c0/in/0":' + entry + "}", area)))
    # Unpaired surrogates (JSON's \u escapes can spell them; UTF-8 cannot).
    for where, change in (("manifest path", lambda m: scalar_leaves(m)[0].update(path=Lit('"extra[0]\\ud800"'))),
                          ("manifest unknown member", lambda m: m.update(note=Lit('"\\udc00"'))),
                          ("manifest member name", lambda m: m.update({"\ud83d": 1})),
                          ("manifest surrogate pair", lambda m: m.update(note=Lit('"\\ud83d\\ude00"')))):
        m = copy.deepcopy(manifest)
        change(m)
        add(f"surrogate in {where}", m)
    # Non-finite floats: JSON has none; the recorder writes null and a repr.
    for value, repr_ in ((None, "nan"), (None, "inf"), (None, "-inf"), (None, "Infinity"), (None, None),
                         (None, 1), (Lit("NaN"), None), (Lit("-Infinity"), "nan"), (2.5, "nan")):
        m = copy.deepcopy(manifest)
        leaf = next(n for n in scalar_leaves(m) if n["kind"] == "float")
        leaf["value"] = value
        if repr_ is not None:
            leaf["repr"] = repr_
        add(f"float leaf value {dumps(value)} repr {repr_!r}", m)
    h = copy.deepcopy(header)
    h["c0/in/0"]["note"] = Lit("NaN")
    add("NaN in the header", h=h)
    # The optional 'recording' (what a `record` request ran): an object or null, else refused.
    for name, value in (("an object", {"model": "/m", "batches": [["a b", "c\u202e"]], "max_calls": None}),
                        ("null", None), ("a string", "x"), ("a list", [{"model": "/m"}]), ("a number", Lit("1")),
                        ("a boolean", True)):
        m = copy.deepcopy(manifest)
        m["recording"] = value
        add(f"recording is {name}", m)
    return cases


def _replace_leaf(manifest, leaf, replacement):
    def walk(node):
        if isinstance(node, dict):
            children = node.get("children", [])
            for i, child in enumerate(children):
                if child is leaf:
                    children[i] = replacement
                else:
                    walk(child)

    for call in manifest["calls"]:
        walk(call["inputs"])
    return manifest


# ---------------------------------------------------------------- mutations

_VALUES = [Lit(t) for t in ("1e400", "1.0", "9223372036854775808", "-1", "0", "NaN", "2147483648")] + [
    None, True, "", "x", "dict", "tensor", "int", "float", "custom", [], {}, ["a"], [0], {"kind": "none"}]


def _containers(value, out, parent=None, key=None):
    if isinstance(value, dict):
        out.append(value)
        for k, v in list(value.items()):
            _containers(v, out, value, k)
    elif isinstance(value, list):
        out.append(value)
        for i, v in enumerate(value):
            _containers(v, out, value, i)
    return out


def mutate(manifest, rng):
    """One to three random changes to a copy of ``manifest``: members deleted, values
    replaced, children swapped or duplicated, strings edited, numbers pushed to edges."""
    m = copy.deepcopy(manifest)
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(_containers(m, []))
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        op = rng.randrange(7)
        if not keys:
            if isinstance(target, list):
                target.append(copy.deepcopy(rng.choice(_VALUES)))
            else:
                target["kind"] = rng.choice(["int", "list", "none"])
            continue
        k = rng.choice(keys)
        if op == 0:
            del target[k]
        elif op == 1:
            target[k] = copy.deepcopy(rng.choice(_VALUES))
        elif op == 2 and isinstance(target[k], str):
            target[k] = target[k] + rng.choice(["x", "]", "'", "[0]", ".a", ""]) if rng.random() < 0.7 else target[k][:-1]
        elif op == 3 and isinstance(target, list):
            target.insert(rng.randrange(len(target) + 1), copy.deepcopy(target[k]))
        elif op == 4 and isinstance(target, list) and len(target) > 1:
            i, j = rng.sample(range(len(target)), 2)
            target[i], target[j] = target[j], target[i]
        elif op == 5 and isinstance(target[k], (int, float)) and not isinstance(target[k], bool):
            target[k] = Lit(rng.choice(EDGE_NUMBERS[:40]))
        else:
            other = rng.choice(_containers(m, []))
            target[k] = copy.deepcopy(other) if other is not m else None
    return m


def mutation_cases(count_per_seed=120, seed_value=26):
    """Deterministic mutations of every seed's manifest, and of its raw header bytes."""
    rng = random.Random(seed_value)
    cases = []
    for path in SEEDS:
        data = path.read_bytes()
        header, manifest, area = split(data)
        for i in range(count_per_seed):
            cases.append((f"{path.stem} manifest mutation {i}", assemble(header, mutate(manifest, rng), area)))
        for i in range(count_per_seed // 4):
            raw = bytearray(data)
            (n,) = struct.unpack("<Q", data[:8])
            for _ in range(rng.randint(1, 4)):
                raw[8 + rng.randrange(n)] = rng.choice(b'{}[]",:0123456789-.eE \\nu"')
            cases.append((f"{path.stem} header byte mutation {i}", bytes(raw)))
    return cases


def seed_cases():
    return [(p.stem, p.read_bytes()) for p in SEEDS]

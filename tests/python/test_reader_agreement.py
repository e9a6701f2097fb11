# SPDX-License-Identifier: GPL-3.0-or-later
"""The C++ reader (what the GUI and the CLI show) and the worker's Python reader (what the
model is called with) accept exactly the same captures and read the same values from
them (issue 26 item 10; docs/capture-format.md, "Numbers and JSON").

The cases (readercases.py): the fuzz seeds, every edge number at every place a capture
holds a number, hostile structures (members named twice, nesting at the limits, unpaired
surrogates, non-finite floats) and deterministic mutations of the seeds. The C++ side is
`capture_readerdump` ($DIMSCOPE_READER_DUMP, set by ctest's reader_agreement test), which
runs CaptureReader::open; the Python side is `read_manifest`, which `load_capture` and the
worker read captures with. A file one accepts and the other refuses, or a value that
differs (an int leaf the GUI shows as 0 and the model gets as inf), fails the test.
"""

import json
import math
import os
import subprocess

import pytest

import readercases
from dimscope.capture import CaptureError, load_capture, read_manifest

DUMP = os.environ.get("DIMSCOPE_READER_DUMP")
pytestmark = pytest.mark.skipif(not DUMP, reason="DIMSCOPE_READER_DUMP is not set (ctest's reader_agreement runs this)")


def cpp_read(paths):
    """What the C++ reader makes of each file: one dict per path."""
    out = []
    for start in range(0, len(paths), 200):
        chunk = [str(p) for p in paths[start:start + 200]]
        done = subprocess.run([DUMP, *chunk], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) == len(chunk), done.stderr
        out.extend(json.loads(line) for line in lines)
    return out


def untag(v):
    """A dump value back to Python: "i:N" -> int, "f:X" -> float, "s:..." -> str."""
    if isinstance(v, str):
        tag, _, text = v.partition(":")
        return int(text) if tag == "i" else float(text) if tag == "f" else text
    if isinstance(v, list):
        return [untag(e) for e in v]
    if isinstance(v, dict):
        return {k: untag(e) for k, e in v.items()}
    return v


def same_value(a, b):
    """Equal as the model sees values: numbers by value (NaN equals NaN; the C++ reader
    keeps 1.0 as 1 and -0.0 as 0, Python's json the same number), bools not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(same_value(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b)


def python_leaves(root):
    if root is None:
        return None
    out = []
    for leaf in readercases_leaves(root):
        entry = {"path": leaf["path"], "kind": leaf["kind"]}
        if leaf["kind"] == "tensor":
            entry.update(tensor=leaf["tensor"], dtype=leaf["dtype"], shape=leaf["shape"], device=leaf.get("device", "cpu"))
        elif leaf["kind"] != "none":
            value = leaf["value"]
            entry["value"] = float(leaf["repr"]) if leaf["kind"] == "float" and value is None else value
        out.append(entry)
    return out


def readercases_leaves(node):
    if "children" in node:
        for child in node["children"]:
            yield from readercases_leaves(child)
    else:
        yield node


def python_view(m):
    """What the Python reader read, in the dump's shape."""
    return {
        "version": m["version"],
        "model_class": m["model"]["class"],
        "signature": [{"name": p["name"], "kind": p.get("kind") or "", "has_default": p.get("has_default", False),
                       "default": p.get("default")} for p in m["model"].get("signature", [])],
        "flattening": m.get("flattening") or {},
        "value_if_missing": m.get("value_if_missing") or [],
        "calls": [{"index": i, "num_positional": c.get("num_positional", 0), "missing": c.get("missing", []),
                   "filled": c.get("filled", []), "constant_kwargs": c.get("constant_kwargs", {}),
                   "inputs": python_leaves(c["inputs"]), "outputs": python_leaves(c.get("outputs"))}
                  for i, c in enumerate(m["calls"])],
    }


def decode(cpp):
    """The dump's reading in Python values (its tagged numbers and strings untagged)."""
    def leaves(entries):
        if entries is None:
            return None
        out = []
        for leaf in entries:
            leaf = dict(leaf)
            if "value" in leaf:
                leaf["value"] = untag(leaf["value"])
            if "shape" in leaf:
                leaf["shape"] = untag(leaf["shape"])
            out.append(leaf)
        return out

    return {
        "version": untag(cpp["version"]),
        "model_class": cpp["model_class"],
        "signature": [dict(p, kind=p["kind"] or "", default=untag(p["default"])) for p in cpp["signature"]],
        "flattening": cpp["flattening"],
        "value_if_missing": cpp["value_if_missing"],
        "calls": [{"index": untag(c["index"]), "num_positional": untag(c["num_positional"]), "missing": c["missing"],
                   "filled": c["filled"], "constant_kwargs": untag(c["constant_kwargs"]),
                   "inputs": leaves(c["inputs"]), "outputs": leaves(c["outputs"])} for c in cpp["calls"]],
    }


def differences(cpp, py):
    """Where the two readings differ (empty when they agree)."""
    found = []

    def compare(a, b, where):
        if isinstance(a, dict) and isinstance(b, dict) and not ({"path", "kind"} <= set(a)):
            for k in sorted(set(a) | set(b)):
                compare(a.get(k), b.get(k), f"{where}.{k}")
        elif isinstance(a, list) and isinstance(b, list) and a and isinstance(a[0], dict):
            if len(a) != len(b):
                found.append(f"{where}: {len(a)} vs {len(b)} entries")
            for i, (x, y) in enumerate(zip(a, b)):
                compare(x, y, f"{where}[{i}]")
        elif isinstance(a, dict) and isinstance(b, dict):  # a leaf
            if a.get("kind") == "int" and not (type(b.get("value")) is int and a.get("value") == b.get("value")):
                found.append(f"{where} (int leaf {a.get('path')}): C++ {a.get('value')!r}, Python {b.get('value')!r}")
            elif not same_value(a, b):
                found.append(f"{where}: C++ {a!r}, Python {b!r}")
        elif not same_value(a, b):
            found.append(f"{where}: C++ {a!r}, Python {b!r}")

    compare(decode(cpp), py, "capture")
    return found


def check_agreement(cases, tmp_path):
    paths = []
    for i, (_, data) in enumerate(cases):
        path = tmp_path / f"case{i}.safetensors"
        path.write_bytes(data)
        paths.append(path)
    cpp = cpp_read(paths)
    problems = []
    for (name, _), path, c in zip(cases, paths, cpp):
        try:
            manifest, py_error = read_manifest(path), None
        except CaptureError as exc:
            manifest, py_error = None, str(exc)
        except Exception as exc:  # a crash is no answer at all
            problems.append(f"{name}: Python raised {type(exc).__name__}: {exc}"[:300])
            continue
        if manifest is not None:
            try:
                py = python_view(manifest)
            except Exception as exc:
                problems.append(f"{name}: Python accepted a manifest it cannot use: {type(exc).__name__}: {exc}"[:300])
                continue
        if c["ok"] != (py_error is None):
            problems.append(f"{name}: C++ {'accepts' if c['ok'] else 'refuses (' + c['error'] + ')'}, "
                            f"Python {'accepts' if py_error is None else 'refuses (' + py_error + ')'}")
        elif c["ok"]:
            problems.extend(f"{name}: {d}" for d in differences(c, py))
    return problems


def test_seeds_are_read_alike(tmp_path):
    cases = readercases.seed_cases()
    assert len(cases) >= 4
    assert check_agreement(cases, tmp_path) == []
    assert all(c["ok"] for c in cpp_read([p for p in readercases.SEEDS]))


def test_numbers_are_read_alike(tmp_path):
    problems = check_agreement(readercases.number_cases(), tmp_path)
    assert problems == [], "\n".join(problems[:40])


def test_hostile_structures_are_read_alike(tmp_path):
    problems = check_agreement(readercases.structure_cases(), tmp_path)
    assert problems == [], "\n".join(problems[:40])


def test_recording_is_an_object_or_null_in_both_readers(tmp_path):
    """The manifest's optional `recording` (what `dimscope-cli record` ran): both readers
    take an object or null and refuse anything else, naming the member."""
    cases = [c for c in readercases.structure_cases() if c[0].startswith("recording is ")]
    assert len(cases) == 6
    assert check_agreement(cases, tmp_path) == []
    paths = [tmp_path / f"case{i}.safetensors" for i in range(len(cases))]
    for (name, _), c in zip(cases, cpp_read(paths)):
        accepted = name in ("recording is an object", "recording is null")
        assert c["ok"] == accepted, (name, c)
        if not accepted:
            assert "manifest 'recording' must be an object, not " in c["error"], (name, c["error"])


def test_mutated_seeds_are_read_alike(tmp_path):
    cases = readercases.mutation_cases()
    problems = check_agreement(cases, tmp_path)
    assert problems == [], "\n".join(problems[:40])


@pytest.mark.parametrize("literal,expected", [("1e400", None), ("1.0", None), ("9223372036854775808", None),
                                              ("9223372036854775807", 2 ** 63 - 1), ("-0", 0),
                                              ("9007199254740993", 2 ** 53 + 1)])
def test_an_int_leaf_reaches_the_model_as_the_int_the_gui_shows(tmp_path, literal, expected):
    """The issue's case: `1e400` written as an int leaf was shown as 0 by the GUI and
    passed to the model as the float inf. Now both refuse it, naming the leaf; an int
    that fits is the same int in both, down to the last digit."""
    header, manifest, area = readercases.split(readercases.seed("scalars"))
    leaf = next(n for n in readercases.scalar_leaves(manifest) if n["kind"] == "int")
    leaf["value"] = readercases.Lit(literal)
    path = tmp_path / "c.safetensors"
    path.write_bytes(readercases.assemble(header, manifest, area))
    (cpp,) = cpp_read([path])
    if expected is None:
        assert not cpp["ok"] and "extra[0]" in cpp["error"], cpp
        with pytest.raises(CaptureError, match=r"extra"):
            load_capture(path)
        return
    assert cpp["ok"], cpp
    cpp_leaf = next(l for l in cpp["calls"][1]["inputs"] if l["path"] == "extra[0]")
    assert untag(cpp_leaf["value"]) == expected and cpp_leaf["value"].startswith("i:")
    value = load_capture(path).calls[1].kwargs["extra"][0]
    assert type(value) is int and value == expected

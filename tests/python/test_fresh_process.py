# SPDX-License-Identifier: GPL-3.0-or-later
"""Fresh-process verification (issue 24 item 1): every export is loaded in a new
interpreter through dimscope.load_program, the path users load it by, and replays its
example call there; a program that does not load or run there fails the export.
(Loading without unpickling: test_load_program.py.)"""

import subprocess
import sys

import pytest
import torch

from conftest import ROOT
from dimscope import caches, demo
from dimscope.capture import load_capture
from dimscope.exceptions import WorkerError
from dimscope.worker import exporter, freshcheck
from test_demo import demo_export_spec


@pytest.fixture(scope="module")
def demo_program(tmp_path_factory):
    """The demo exported as the worker exports it: its example inputs hold DemoCache."""
    capture = load_capture(ROOT / "resources" / "demo" / "demo-capture.safetensors")
    out = tmp_path_factory.mktemp("demo") / "demo.pt2"
    result = exporter.run_export(demo.make_model(), capture.calls, demo_export_spec(1, 0, 1), str(out))
    return out, result


def test_every_export_loads_and_replays_in_a_fresh_process(demo_program):
    _, result = demo_program
    fresh = result["fresh_process"]
    assert fresh["status"] == "ok" and fresh["call"] == result["example_call"], fresh
    assert fresh["imports"] == ["dimscope.demo"] and fresh["seconds"] > 0, fresh


def test_the_registrations_for_plain_torch_export_load_work(demo_program):
    """What a user runs before torch.export.load without dimscope.load_program (issue 27
    item 5), run in the new interpreter before dimscope's loader: the demo's cache
    flattens the way dimscope registers it."""
    _, result = demo_program
    plain = result["fresh_process"]["plain_load"]
    assert plain == {"status": "ok", "message": None, "registrations": [
        "import dimscope.demo", "from dimscope.caches import register_key_value_cache",
        "register_key_value_cache(dimscope.demo.DemoCache)"]}, plain


class AddsTheCache(torch.nn.Module):
    def forward(self, x, cache):
        return x + cache.layers[0].keys.sum() + cache.layers[0].values.sum()


def test_plain_torch_loads_without_what_dimscope_load_program_registers(tmp_path, monkeypatch):
    """The check's two loads run side by side (issue 29), plain torch in a process of its
    own forked before dimscope.load_program ran: given no registration lines it fails on
    transformers' DynamicCache, which dimscope.load_program registers from the file's
    record in the interpreter the plain load was forked from; the documented path passes."""
    transformers_cache = pytest.importorskip("transformers.cache_utils")
    from dimscope import program as programlib

    cls = transformers_cache.DynamicCache
    registered = cls in torch.utils._pytree.SUPPORTED_NODES
    if not registered:
        caches.register_key_value_cache(cls)
    try:
        cache = cls()
        cache.update(torch.randn(1, 2, 4, 8), torch.randn(1, 2, 4, 8), 0)
        args = (torch.randn(2, 3), cache)
        program = torch.export.export(AddsTheCache(), args, strict=False)
        monkeypatch.setattr(programlib, "plain_load_registrations", lambda _program: [])
        fresh = {}
        exporter.save_atomically(program, str(tmp_path / "cache.pt2"), check=lambda saved: fresh.update(
            freshcheck.check(program, saved, args, {}, "cpu", 0)))
        assert fresh["status"] == "ok", fresh
        plain = fresh["plain_load"]
        # torch 2.14 says only "error when deserializing the saved file"
        assert plain["status"] == "failed" and plain["message"], plain
    finally:
        if not registered:
            caches._deregister(cls)


PAIR_MODULE = '''
import torch


class Pair:
    """Registered with torch's pytree by whoever loaded this module, not by the module."""

    def __init__(self, a, b):
        self.a, self.b = a, b


class AddPair(torch.nn.Module):
    def forward(self, pair):
        return pair.a + pair.b
'''


def test_a_program_that_loads_only_in_the_worker_fails(tmp_path):
    import importlib.util

    import torch.utils._pytree as pytree

    (tmp_path / "pair_model.py").write_text(PAIR_MODULE)
    spec = importlib.util.spec_from_file_location("dimscope_test_pair_model", tmp_path / "pair_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    pytree.register_pytree_node(module.Pair, lambda p: ([p.a, p.b], None), lambda c, _: module.Pair(*c),
                                serialized_type_name="dimscope_test_pair_model.Pair",
                                flatten_with_keys_fn=lambda p: ([(pytree.GetAttrKey("a"), p.a),
                                                                 (pytree.GetAttrKey("b"), p.b)], None))
    caches._ensure_fx_flatten_spec(module.Pair)  # torch 2.6's program.module() needs it
    try:
        args = (module.Pair(torch.randn(2), torch.randn(2)),)
        program = torch.export.export(module.AddPair(), args)
        path = tmp_path / "pair.pt2"
        assert freshcheck.needed_imports(program) == [(spec.name, str(tmp_path / "pair_model.py"))]
        with pytest.raises(WorkerError, match=r"pair\.pt2 does not load and run in a new interpreter through "
                                              r"dimscope\.load_program \(call 0\): .*Pair"):
            # as run_export saves: checked before the rename, so nothing is left behind
            exporter.save_atomically(program, str(path), check=lambda saved: freshcheck.check(
                program, saved, args, {}, "cpu", 0, shown_as=str(path)))
        assert not path.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".dimscope-save")]
    finally:
        caches._deregister(module.Pair)
        sys.modules.pop(spec.name, None)


def test_the_new_interpreter_starts_like_this_one():
    """Started through the provisioned root's loader when this one was: a bare
    sys.executable there dies on the host's glibc."""
    command = freshcheck.interpreter_command()
    with open("/proc/self/cmdline", "rb") as f:
        first = f.read().split(b"\0")[0].decode()
    assert command[0] == first, (command, first)
    done = subprocess.run(command + ["-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == torch.__version__, done.stderr


def _check_linear(tmp_path):
    """A small program saved as run_export saves it, checked in a new interpreter."""
    x = torch.randn(3, 4)
    program = torch.export.export(torch.nn.Linear(4, 2), (x,))
    fresh = {}
    exporter.save_atomically(program, str(tmp_path / "linear.pt2"), check=lambda saved: fresh.update(
        freshcheck.check(program, saved, (x,), {}, "cpu", 0)))
    return fresh


def test_a_checker_started_ahead_serves_one_program(tmp_path):
    """prepare() starts the next check's interpreter while the worker traces (issue 29: the
    check's time was mostly its `import torch`); the check hands it the program, and it
    ends after that one: the next program gets another new interpreter."""
    freshcheck.prepare()
    waiting = freshcheck._waiting
    assert waiting is not None and waiting.poll() is None
    freshcheck.prepare()  # one waits at most
    assert freshcheck._waiting is waiting
    assert _check_linear(tmp_path)["status"] == "ok"
    assert waiting.returncode == 0 and freshcheck._waiting is None
    assert _check_linear(tmp_path)["status"] == "ok"  # none waiting: one is started for it


def test_a_waiting_checker_that_died_is_not_the_programs_failure(tmp_path):
    freshcheck.prepare()
    freshcheck._waiting.kill()
    freshcheck._waiting.wait()
    assert _check_linear(tmp_path)["status"] == "ok"


def test_a_waiting_checker_ends_when_the_worker_does():
    """Its stdin closes with the worker (the end of the worker's process closes the pipe)."""
    freshcheck.prepare()
    waiting, freshcheck._waiting = freshcheck._waiting, None
    out, err = waiting.communicate("", timeout=300)
    assert waiting.returncode == 0 and out == "", err


HALVES_MODULE = '''
import atexit
import os

import torch
import torch.utils._pytree as pytree

with open({log!r}, "a") as f:
    f.write("imported %d\\n" % os.getpid())
atexit.register(lambda: open({log!r}, "a").write("teardown %d\\n" % os.getpid()))


class Halves:
    def __init__(self, a, b):
        self.a, self.b = a, b


pytree.register_pytree_node(
    Halves, lambda h: ([h.a, h.b], None), lambda c, _: Halves(*c), serialized_type_name={name!r} + ".Halves",
    flatten_with_keys_fn=lambda h: ([(pytree.GetAttrKey("a"), h.a), (pytree.GetAttrKey("b"), h.b)], None))


class Split(torch.nn.Module):
    def forward(self, x):
        return Halves(x[:1] * 2, x[1:] + 1)
'''


@pytest.fixture
def halves(tmp_path):
    """A model file whose output class the fresh interpreter imports first (needed_imports),
    logging each import and each Python teardown with the process id."""
    import importlib.util

    log = tmp_path / "halves.log"
    name = "dimscope_test_halves_model"
    (tmp_path / "halves_model.py").write_text(HALVES_MODULE.format(log=str(log), name=name))
    spec = importlib.util.spec_from_file_location(name, tmp_path / "halves_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    caches._ensure_fx_flatten_spec(module.Halves)  # torch 2.6's program.module() needs it
    x = torch.randn(3, 2)
    program = torch.export.export(module.Split(), (x,))
    try:
        yield program, x, log
    finally:
        caches._deregister(module.Halves)
        sys.modules.pop(name, None)


def _lines_of(log, pid):
    return [line.split()[0] for line in log.read_text().splitlines() if line.split()[1] == str(pid)]


def test_a_waiting_checker_imports_the_programs_classes_ahead_and_ends_without_teardown(halves, tmp_path):
    """preload() hands the waiting checker the modules a user imports before loading (the
    model's classes: most of transformers for a decoder) as soon as the program is traced,
    so their import overlaps the save and the verification; the check then imports nothing
    more and the checker ends without Python's teardown, which the worker would wait for
    (issue 29)."""
    import time

    program, x, log = halves
    freshcheck.prepare()
    waiting = freshcheck._waiting
    freshcheck.preload(program)
    deadline = time.monotonic() + 300
    while not _lines_of(log, waiting.pid) and time.monotonic() < deadline and waiting.poll() is None:
        time.sleep(0.2)
    assert _lines_of(log, waiting.pid) == ["imported"], log.read_text()  # before any check was asked
    fresh = {}
    exporter.save_atomically(program, str(tmp_path / "halves.pt2"), check=lambda saved: fresh.update(
        freshcheck.check(program, saved, (x,), {}, "cpu", 0)))
    assert fresh["status"] == "ok" and fresh["imports"] == ["dimscope_test_halves_model"], fresh
    assert waiting.returncode == 0 and freshcheck._waiting is None
    assert _lines_of(log, waiting.pid) == ["imported"], log.read_text()  # once, and no teardown


def test_a_checker_that_imported_more_than_the_check_needs_is_not_used(halves, tmp_path):
    """The new interpreter holds only what its check imports: one that preloaded a module
    the programs it checks do not need is ended, and a new one checks them."""
    program, _, log = halves
    freshcheck.prepare()
    waiting = freshcheck._waiting
    freshcheck.preload(program)
    assert _check_linear(tmp_path)["status"] == "ok"  # a Linear needs no module
    assert waiting.returncode is not None and waiting.returncode != 0  # killed, not used
    assert freshcheck._waiting is None and freshcheck._preloaded is None


def test_the_modules_imported_ahead_are_those_the_check_imports_in_its_order():
    """The classes' modules first, then those the plain-load registrations import: the
    same modules, in the same order, as the check's interpreter imports them itself."""
    assert freshcheck._check_imports([("dimscope.demo", "/x/demo.py")], [
        "import dimscope.demo", "from dimscope.caches import register_key_value_cache",
        "register_key_value_cache(dimscope.demo.DemoCache)"]) == [["dimscope.demo", "/x/demo.py"],
                                                                  ["dimscope.caches", ""]]
    assert freshcheck._check_imports([], []) == []

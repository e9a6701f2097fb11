# SPDX-License-Identifier: GPL-3.0-or-later
"""What `dimscope-cli export` and the worker write and delete (issue 26, items 4-6;
docs/security.md, "What dimscope writes and deletes"), with the built CLI
($DIMSCOPE_CLI, set by ctest) and the real worker:

- an output that is one of the command's inputs (the capture, the model's .py, the
  constraints, -o for --json), however it is spelled, is refused with exit 2 and the
  input is left byte for byte as it was;
- an existing output that is not a regular file (a FIFO, a device node) is refused and
  stays what it is, with no staging folder made beside it;
- `--json` on a full disk or in a read-only folder says so and leaves the old report
  whole (the disk: a 64 KiB tmpfs in a private mount namespace, see small_disk());
- an export deletes only its own staging folders: never another program's
  `.notes.99998.tmp` or `.precious.99999.tmp/`, only a dimscope staging folder (its
  marker file inside) of a worker that is gone.
"""

import base64
import os
import pathlib
import re
import shutil
import stat
import subprocess

import pytest

CLI = os.environ.get("DIMSCOPE_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="DIMSCOPE_CLI is not set (run through ctest)")

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO_CAPTURE = ROOT / "resources" / "demo" / "demo-capture.safetensors"
DEMO_MODEL = "dimscope.demo:make_model"
MODEL_PY = "import torch\n\n\ndef make():\n    return torch.nn.Identity()\n"


TINY_MODEL = "import torch\n\n\nclass Double(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n\ndef make():\n    return Double()\n"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A model that exports in a second and a capture of it: (model reference, capture)."""
    import torch
    from dimscope.capture import InputRecorder

    folder = tmp_path_factory.mktemp("tiny")
    (folder / "tiny_model.py").write_text(TINY_MODEL)
    ns = {}
    exec(compile(TINY_MODEL, str(folder / "tiny_model.py"), "exec"), ns)
    model = ns["make"]()
    rec = InputRecorder(store_n_calls=2)
    with rec(model):
        for n in (3, 5):
            model(torch.randn(n, 4))
    rec.save(folder / "tiny.safetensors")
    return "%s:make" % (folder / "tiny_model.py"), folder / "tiny.safetensors"


def cli(*args, timeout=600):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def export(*args, **kw):
    return cli("export", *args, **kw)


@pytest.fixture
def inputs(tmp_path):
    """A copy of the demo capture and a model file, in a folder of their own."""
    capture = tmp_path / "calls.safetensors"
    shutil.copyfile(DEMO_CAPTURE, capture)
    model = tmp_path / "model.py"
    model.write_text(MODEL_PY)
    (tmp_path / "sub").mkdir()
    return capture, model


def snapshot(folder):
    """{name: bytes or kind} of everything in `folder`, to compare before and after."""
    out = {}
    for p in sorted(pathlib.Path(folder).iterdir()):
        mode = os.lstat(p).st_mode
        out[p.name] = p.read_bytes() if stat.S_ISREG(mode) else stat.S_IFMT(mode)
    return out


def refused(done, *words):
    assert done.returncode == 2, done.stdout + done.stderr
    assert any(w in done.stderr for w in ("an input of this command", "not a regular file", "a folder of device nodes")), \
        done.stderr
    for w in words:
        assert str(w) in done.stderr, (w, done.stderr)
    assert "worker:" not in done.stdout, "the worker was started: " + done.stdout


# --- outputs that are inputs (item 5) --------------------------------------------------

@pytest.mark.parametrize("spelling", ["same", "other spelling", "symlink"])
def test_output_that_is_the_capture_is_refused(inputs, tmp_path, spelling):
    capture, model = inputs
    out = {"same": capture, "other spelling": tmp_path / "sub" / ".." / "calls.safetensors",
           "symlink": tmp_path / "out.pt2"}[spelling]
    if spelling == "symlink":
        out.symlink_to(capture)
    before = snapshot(tmp_path)
    refused(export("--model", DEMO_MODEL, "--capture", capture, "-o", out), "-o %s" % out, "--capture")
    assert snapshot(tmp_path) == before


def test_output_that_is_the_model_file_is_refused(inputs, tmp_path):
    capture, model = inputs
    before = snapshot(tmp_path)
    refused(export("--model", "%s:make" % model, "--capture", capture, "-o", model), "the model file of --model")
    assert snapshot(tmp_path) == before


def test_output_that_is_the_constraints_is_refused(inputs, tmp_path):
    capture, _ = inputs
    constraints = tmp_path / "constraints.json"
    constraints.write_text('{"format": "dimscope.constraints", "version": 1, "dims": [], "leaves": {}}')
    before = snapshot(tmp_path)
    refused(export("--model", DEMO_MODEL, "--capture", capture, "--constraints", constraints, "-o", constraints),
            "--constraints")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("target", ["capture", "model", "output"])
def test_json_report_that_is_an_input_or_the_output_is_refused(inputs, tmp_path, target):
    capture, model = inputs
    out = tmp_path / "out.pt2"
    json_path = {"capture": capture, "model": model, "output": tmp_path / "sub" / ".." / "out.pt2"}[target]
    before = snapshot(tmp_path)
    refused(export("--model", "%s:make" % model, "--capture", capture, "--json", json_path, "-o", out),
            "--json %s" % json_path)
    assert snapshot(tmp_path) == before


# --- outputs that are not regular files (item 5) ---------------------------------------

def make_node(path, kind):
    if kind == "fifo":
        os.mkfifo(path)
        return
    try:  # /dev/null's numbers, in the test's own folder (never the machine's /dev/null)
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD (root); the FIFO case covers the same path")


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("flag", ["-o", "--json"])
def test_output_that_is_not_a_regular_file_is_refused(inputs, tmp_path, kind, flag):
    capture, _ = inputs
    node = tmp_path / "sub" / "null"
    make_node(node, kind)
    args = ["-o", node] if flag == "-o" else ["--json", node, "-o", tmp_path / "out.pt2"]
    done = export("--model", DEMO_MODEL, "--capture", capture, *args)
    refused(done, "%s %s" % (flag, node), "not a regular file")
    mode = os.lstat(node).st_mode
    assert (stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)), "the node was replaced"
    assert os.listdir(tmp_path / "sub") == ["null"], "something was made beside the node"


def test_new_output_in_a_folder_of_device_nodes_is_refused(inputs, tmp_path):
    """/dev is judged by what it holds (a container's /dev is a tmpfs): no output and no
    staging folder is made beside device nodes, by the CLI or by the worker."""
    from dimscope.worker.errors import WorkerError
    from dimscope.worker.exporter import check_output

    capture, _ = inputs
    devices = tmp_path / "sub"
    make_node(devices / "null", "device")
    for flag in ("-o", "--json"):
        args = ["-o", devices / "out.pt2"] if flag == "-o" else ["--json", devices / "r.json", "-o", tmp_path / "o.pt2"]
        refused(export("--model", DEMO_MODEL, "--capture", capture, *args), "a folder of device nodes")
    with pytest.raises(WorkerError) as e:
        check_output(str(devices / "out.pt2"))
    assert "a folder of device nodes" in str(e.value), str(e.value)
    assert os.listdir(devices) == ["null"]


def test_worker_refuses_a_device_and_the_capture_before_any_staging(tmp_path):
    """The worker's own check (the GUI and phased exports reach it without the CLI's)."""
    from dimscope.worker.errors import WorkerError
    from dimscope.worker.exporter import check_output

    capture = tmp_path / "calls.safetensors"
    capture.write_bytes(b"capture")
    node = tmp_path / "null"
    make_node(node, "fifo")
    link = tmp_path / "link.pt2"
    link.symlink_to(capture)
    for output, words in ((node, "a FIFO (named pipe), not a regular file"),
                          (link, "the capture %s" % capture)):
        with pytest.raises(WorkerError) as e:
            check_output(str(output), [("the capture", str(capture))])
        assert e.value.kind == "save_failed" and words in str(e.value), str(e.value)
    assert sorted(os.listdir(tmp_path)) == ["calls.safetensors", "link.pt2", "null"]
    assert capture.read_bytes() == b"capture"


# --- --json on a full disk and in a read-only folder (item 4) --------------------------

ORIGINAL_REPORT = b'{"format": "dimscope.export", "the previous report": true}\n' * 20
ORIGINAL_PROGRAM = b"PK the previous program's bytes\n" * 40

SMALL_DISK = r'''
# Inside `unshare -m` (root) or `unshare -Urm` (a user namespace): a 64 KiB tmpfs of
# this process only, holding the previous report, then made full or read-only.
mount -t tmpfs -o size=64k dimscope-small-disk "$DISK" || exit 77
printf '%s' "$ORIGINAL" | base64 -d > "$DISK/$NAME"
case "$MODE" in
  full) dd if=/dev/zero of="$DISK/filler" bs=4096 2>/dev/null
        dd if=/dev/zero of="$DISK/filler" bs=1 oflag=append conv=notrunc 2>/dev/null ;;
  read-only) mount -o remount,ro "$DISK" || exit 77 ;;
esac
"$@" >"$LOG" 2>&1
echo "exit=$?"
echo "files=$(ls -A "$DISK" | grep -vx filler | tr '\n' ' ')"
echo "report=$(base64 -w0 "$DISK/$NAME")"
'''


def small_disk(mode, command, tmp_path, name="report.json", original=ORIGINAL_REPORT):
    """Runs `command` with $DISK a full (or read-only) 64 KiB tmpfs holding `name` (the
    `original` bytes); returns {exit, files, report: the bytes of `name` after} and the
    command's output. The disk is made in
    a private mount namespace: `unshare -m` as root (CI), else `unshare -Urm`; skipped,
    saying why, only where neither can mount a tmpfs."""
    disk = tmp_path / "disk"
    disk.mkdir()
    log = tmp_path / "log.txt"
    env = dict(os.environ, DISK=str(disk), MODE=mode, LOG=str(log), NAME=name,
               ORIGINAL=base64.b64encode(original).decode())
    tried = []
    for flag in (["-m"] if os.geteuid() == 0 else []) + ["-Urm"]:
        done = subprocess.run(["unshare", flag, "--propagation", "private", "--", "/bin/sh", "-c", SMALL_DISK, "sh",
                               *map(str, command)], capture_output=True, text=True, env=env, timeout=600)
        if done.returncode == 0 and "exit=" in done.stdout:
            fields = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
            return {"exit": int(fields["exit"]), "files": fields["files"].split(),
                    "report": base64.b64decode(fields["report"])}, log.read_text()
        tried.append("unshare %s: %s" % (flag, (done.stderr or done.stdout).strip()))
    pytest.skip("no private mount namespace with a small tmpfs can be made here (%s)" % "; ".join(tried))


# A read-only folder is refused before the worker starts (exit 2, OutputTarget::folderReason);
# a full disk is found only when the file is written (exit 1).
READ_ONLY_REFUSAL = "%s %s is in %s, a folder this user cannot write to (Read-only file system); choose another output file"


@pytest.mark.parametrize("mode,reason", [("full", "No space left on device"), ("read-only", "Read-only file system")])
def test_json_report_on_a_full_disk_keeps_the_previous_report(tmp_path, mode, reason):
    # A model that fails to load: the export ends at once, and the report is written.
    model = tmp_path / "broken_model.py"
    model.write_text("def make():\n    raise RuntimeError('this model does not load')\n")
    report = tmp_path / "disk" / "report.json"
    result, log = small_disk(mode, [CLI, "export", "--model", "%s:make" % model, "--capture", DEMO_CAPTURE,
                                    "--json", report, "-o", tmp_path / "out.pt2"], tmp_path)
    if mode == "read-only":
        assert result["exit"] == 2, log
        assert READ_ONLY_REFUSAL % ("--json", report, report.parent) in log, log
    else:
        assert result["exit"] == 1, log
        assert "cannot write %s: %s" % (report, reason) in log, log
    assert result["report"] == ORIGINAL_REPORT, "the previous report was replaced: %r" % result["report"][:80]
    assert result["files"] == ["report.json"], result["files"]


@pytest.mark.parametrize("mode,reason", [("full", "(No space left on device|no space left on the device)"),
                                         ("read-only", "the folder is not writable")])
def test_program_on_a_full_disk_keeps_the_previous_program(tiny, tmp_path, mode, reason):
    model, capture = tiny
    program = tmp_path / "disk" / "demo.pt2"
    result, log = small_disk(mode, [CLI, "export", "--model", model, "--capture", capture, "-o", program],
                             tmp_path, name="demo.pt2", original=ORIGINAL_PROGRAM)
    if mode == "read-only":
        assert result["exit"] == 2, log
        assert READ_ONLY_REFUSAL % ("-o", program, program.parent) in log, log
    else:
        assert result["exit"] == 1, log
        assert re.search("save_failed: cannot save %s: %s" % (re.escape(str(program)), reason), log), log
    assert result["report"] == ORIGINAL_PROGRAM, "the previous program was replaced"
    assert result["files"] == ["demo.pt2"], result["files"]  # no staging folder left


# --- what an export deletes (item 6) ---------------------------------------------------

def dead_pid():
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


def staging_folder(folder, pid, marker_pid=None):
    """A staging folder as a worker of `pid` makes it (python/dimscope/exporter.py)."""
    path = folder / (".dimscope-save-%d-k3j2x8q1" % pid)
    path.mkdir()
    (path / "dimscope-staging-folder.marker").write_text(
        "dimscope export staging folder of pid %d\n" % (pid if marker_pid is None else marker_pid))
    (path / "half.pt2").write_bytes(b"half an archive")
    return path


def test_export_deletes_only_dimscope_staging_folders_of_dead_workers(tiny, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    notes = out / ".notes.99998.tmp"
    notes.write_text("another program's notes")
    precious = out / ".precious.99999.tmp"
    precious.mkdir()
    (precious / "data").write_text("another program's data")
    gone = dead_pid()
    lookalike = out / (".dimscope-save-%d" % gone)  # the old name, no marker: not ours to judge
    lookalike.mkdir()
    (lookalike / "keep").write_text("x")
    unmarked = out / (".dimscope-save-%d-unmarked" % gone)
    unmarked.mkdir()
    (unmarked / "keep").write_text("x")
    other_pid = staging_folder(out, gone, marker_pid=gone + 1)
    stale = staging_folder(out, dead_pid())
    live = staging_folder(out, os.getppid())  # a running process's save in progress

    model, capture = tiny
    done = export("--model", model, "--capture", capture, "-o", out / "demo.pt2")
    assert done.returncode == 0, done.stdout + done.stderr

    assert not stale.exists(), "the dead worker's staging folder is still there"
    assert notes.read_text() == "another program's notes"
    assert (precious / "data").read_text() == "another program's data"
    for kept in (lookalike, unmarked, other_pid, live):
        assert kept.is_dir(), kept
    assert (out / "demo.pt2").is_file()
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["demo.pt2", notes.name, precious.name, lookalike.name, unmarked.name, other_pid.name,
                            live.name]), names


class _Killed(BaseException):
    """The worker's death at that point: nothing after it runs (no except, no finally)."""


class _Listing(list):
    """os.scandir's answer, in an order of the test's choosing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self):
        pass


@pytest.mark.parametrize("deaths", range(6))
def test_staging_folder_stopped_anywhere_in_its_removal_is_still_recognised(tmp_path, monkeypatch, deaths):
    """A worker killed while it removes its staging folder (a recording's capture is
    still there, hard-linked to the output) leaves either the folder with its whole
    marker, which the client's reaper removes as this pid's, or an empty folder (which
    it removes too), even when the folder lists its marker first."""
    from dimscope.worker import exporter

    staging = exporter._make_staging_folder(str(tmp_path))
    for name in ("a-capture.safetensors", "z-capture.safetensors"):
        with open(os.path.join(staging, name), "wb") as f:
            f.write(b"recorded tensors")
    os.mkdir(os.path.join(staging, "m-folder"))
    first = exporter._MARKER
    scandir, listdir, removals = os.scandir, os.listdir, []

    def dying(real):
        def removal(path, *args, **kwargs):
            if len(removals) == deaths:
                raise _Killed()
            removals.append(os.path.basename(path))
            return real(path, *args, **kwargs)
        return removal

    monkeypatch.setattr(os, "scandir", lambda *a, **k: _Listing(sorted(scandir(*a, **k), key=lambda e: e.name != first)))
    monkeypatch.setattr(os, "listdir", lambda *a, **k: sorted(listdir(*a, **k), key=lambda n: n != first))
    monkeypatch.setattr(os, "unlink", dying(os.unlink))
    monkeypatch.setattr(os, "rmdir", dying(os.rmdir))
    try:
        exporter.remove_staging_folder(staging)
    except _Killed:
        pass
    monkeypatch.undo()
    if deaths == 5:  # every entry, then the folder
        assert not os.path.exists(staging), removals
    else:
        left = os.listdir(staging)
        assert left == [] or exporter._is_staging_folder(staging, os.getpid()), (removals, left)


def test_staging_folder_is_marked_before_anything_is_written(tmp_path):
    """The marker is the first file in a new staging folder; a symlink named like one
    is never followed into."""
    from dimscope.worker import exporter

    staging = exporter._make_staging_folder(str(tmp_path))
    try:
        assert os.listdir(staging) == ["dimscope-staging-folder.marker"]
        assert os.path.basename(staging).startswith(".dimscope-save-%d-" % os.getpid())
    finally:
        shutil.rmtree(staging)
    gone = dead_pid()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "dimscope-staging-folder.marker").write_text("dimscope export staging folder of pid %d\n" % gone)
    (tmp_path / (".dimscope-save-%d-link" % gone)).symlink_to(victim)
    exporter.remove_stale_saves(str(tmp_path))
    assert (victim / "dimscope-staging-folder.marker").exists()

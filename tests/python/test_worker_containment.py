# SPDX-License-Identifier: GPL-3.0-or-later
"""What the export worker may import, and what it may leave behind (issue 26, items 2
and 9), against the real CLI ($DIMSCOPE_CLI, set by ctest) and worker.

- The folder `dimscope-cli export` is started in may hold a json.py, a torch.py, a
  runpy.py or a dimscope/ package (a downloaded bundle): none of them runs. The worker
  starts isolated (-P where the interpreter is known to be 3.11+, else a first line
  that takes the current folder off sys.path) in a private working folder. Both ways
  are run: the provisioned runtime found by name (-P) and scripts/torch-python as
  DIMSCOPE_PYTHON (a launcher whose version is not known: the first line).
- A model that forks a child that keeps sleeping, or that starts a daemon by a double
  fork with setsid(), leaves nothing running once the CLI has exited after a
  successful export: the worker's descendants are ended also after a normal exit.
"""

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest
import torch

pytest.importorskip("dimscope.capture")
from dimscope.capture import InputRecorder  # noqa: E402

CLI = os.environ.get("DIMSCOPE_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="DIMSCOPE_CLI is not set (run through ctest)")

ROOT = pathlib.Path(__file__).resolve().parents[2]
TIMEOUT_S = 300

MODELS = r'''
import os
import time

import torch


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)  # the worker's copy is the model that was recorded
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(x)


def tiny():
    return Tiny()


def _note(pid):
    with open(os.environ["CONTAINMENT_PID_FILE"], "w") as f:
        f.write(str(pid))


def forks_a_sleeper():
    """A child that stays in the worker's process group and sleeps on."""
    pid = os.fork()
    if pid == 0:
        try:
            time.sleep(600)
        finally:
            os._exit(0)
    _note(pid)
    return Tiny()


def starts_a_daemon():
    """A double fork with setsid(): the daemon leaves the worker's session and group,
    and its parent exits at once."""
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.write(w, str(os.getpid()).encode())
                os.close(w)  # the reader sees the end of the pipe
                time.sleep(600)
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(middle, 0)
    with os.fdopen(r) as f:
        _note(int(f.read()))
    return Tiny()
'''

# Each writes the path of the file that ran into the marker file when imported.
PLANTED = ("json.py", "torch.py", "runpy.py", "dimscope/__init__.py")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The model file and a capture of two calls of Tiny, in their own folder."""
    folder = tmp_path_factory.mktemp("models")
    model_file = folder / "containment_models.py"
    model_file.write_text(MODELS)
    ns = {}
    exec(compile(MODELS, str(model_file), "exec"), ns)
    rec = InputRecorder(store_n_calls=2)
    model = ns["tiny"]()
    with rec(model):
        for n in (3, 5):
            model(torch.randn(n, 8))
    capture = folder / "tiny.safetensors"
    rec.save(capture)
    return model_file, capture


def export(model_ref, capture, output, cwd, extra_env=None):
    env = dict(os.environ)
    env.pop("DIMSCOPE_PYTHON", None)
    env.update(extra_env or {})
    return subprocess.run([CLI, "export", "--model", model_ref, "--capture", str(capture), "-o", str(output)],
                          capture_output=True, text=True, timeout=TIMEOUT_S, env=env, cwd=str(cwd))


@pytest.mark.parametrize("interpreter", ["provisioned runtime", "launcher"])
def test_nothing_in_the_current_folder_runs(models, tmp_path, interpreter):
    model_file, capture = models
    bundle = tmp_path / "bundle"
    marker = tmp_path / "ran.txt"
    for name in PLANTED:
        path = bundle / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("with open(%r, 'a') as f:\n    f.write(__file__ + '\\n')\n" % str(marker))
    env = {"DIMSCOPE_PYTHON": str(ROOT / "scripts" / "torch-python")} if interpreter == "launcher" else {}
    done = export("%s:tiny" % model_file, capture, tmp_path / "tiny.pt2", bundle, env)
    assert not marker.exists(), "ran from the current folder:\n" + marker.read_text()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "tiny.pt2").is_file()


def test_a_relative_model_file_is_the_one_in_the_current_folder(models, tmp_path):
    """The worker runs elsewhere, so the CLI makes `--model file.py:f` absolute against
    the folder it was started in, as the user meant it."""
    model_file, capture = models
    done = export("%s:tiny" % model_file.name, capture, tmp_path / "tiny.pt2", model_file.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "tiny.pt2").is_file()


def test_a_model_folder_is_on_sys_path_for_that_model_only(tmp_path):
    """In one worker, a later model does not import from an earlier model's folder."""
    from dimscope.worker import modelref

    folders = [os.path.realpath(tmp_path / name) for name in ("a", "b")]
    for folder in folders:
        os.mkdir(folder)
        with open(os.path.join(folder, "folder_model.py"), "w") as f:
            f.write("import torch\n\ndef make():\n    return torch.nn.Identity()\n")
    before = list(sys.path)
    try:
        modelref.load_model("%s:make" % os.path.join(folders[0], "folder_model.py"))
        assert sys.path[0] == folders[0]
        modelref.load_model("%s:make" % os.path.join(folders[1], "folder_model.py"))
        assert sys.path[0] == folders[1] and folders[0] not in sys.path
        modelref.load_model("dimscope.demo:make_model")
        assert folders[1] not in sys.path
    finally:
        sys.path[:] = before


def alive(pid):
    """Running (a zombie waiting for a parent that does not reap it counts as gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# The CLI ends the worker's descendants (core/export/workerdescendants.cpp), whatever
# torch the worker imported: tested under the default runtime only, not again under
# trixie (CI time: about 30 s of the trixie suite on a loaded 2-core machine).
@pytest.mark.skipif(os.environ.get("DIMSCOPE_RUNTIME", "sid") != "sid",
                    reason="the CLI's supervision of its worker: tested under the default runtime (sid)")
@pytest.mark.parametrize("factory", ["forks_a_sleeper", "starts_a_daemon"])
def test_what_the_model_started_ends_with_the_export(models, tmp_path, factory):
    model_file, capture = models
    pid_file = tmp_path / "pid"
    done = export("%s:%s" % (model_file, factory), capture, tmp_path / "tiny.pt2", tmp_path,
                  {"CONTAINMENT_PID_FILE": str(pid_file)})
    pid = int(pid_file.read_text())
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid), "process %d that the model started outlived the export" % pid
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)

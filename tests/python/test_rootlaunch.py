# SPDX-License-Identifier: GPL-3.0-or-later
"""Every program a provisioned runtime's Python starts goes through its root's loader
(python/dimscope/worker/rootlaunch.py, issue 24 item 5): a child started by
sys.executable (multiprocessing's resource tracker, inductor's compile workers) and the
root's C++ compiler run; an ordinary Python is left as it is."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from dimscope.worker import rootlaunch

in_root = pytest.mark.skipif(not rootlaunch.loader_prefix(), reason="this Python is not started behind a loader")

CHILDREN = r'''
import multiprocessing, subprocess, sys
from dimscope.worker import rootlaunch


def main():
    if sys.argv[1] == "route":
        rootlaunch.route_subprocesses()
    done = subprocess.run([sys.executable, "-c", "import sys; print('child', sys.version_info[0])"],
                          capture_output=True, text=True)
    print("subprocess", done.returncode, done.stdout.strip(), done.stderr.strip()[-200:], flush=True)
    if sys.argv[1] == "route":  # (a bare Pool would restart its dying workers for ever)
        with multiprocessing.get_context("spawn").Pool(1) as pool:  # started by the executable it was given
            print("pool", pool.apply(abs, (-3,)), flush=True)


if __name__ == "__main__":
    main()
'''


@in_root
def test_children_started_by_sys_executable_run_once_routed(tmp_path):
    script = tmp_path / "children.py"
    script.write_text(CHILDREN)
    bare = subprocess.run([str(ROOT / "scripts" / "torch-python"), str(script), "bare"], capture_output=True,
                          text=True, timeout=120)
    # Without routing the bare interpreter dies on the host's glibc.
    assert "subprocess 1" in bare.stdout and "GLIBC" in bare.stdout, bare.stdout + bare.stderr[-2000:]
    routed = subprocess.run([str(ROOT / "scripts" / "torch-python"), str(script), "route"], capture_output=True,
                            text=True, timeout=120)
    assert routed.returncode == 0, routed.stdout + routed.stderr[-2000:]
    assert "subprocess 0 child 3" in routed.stdout and "pool 3" in routed.stdout, routed.stdout + routed.stderr
    assert "GLIBC" not in routed.stderr and "resource_tracker" not in routed.stderr, routed.stderr[-2000:]


@in_root
def test_the_roots_compiler_runs_through_the_loader(tmp_path):
    from dimscope.exceptions import WorkerError

    try:
        cxx = rootlaunch.compiler()
    except WorkerError as e:
        pytest.skip(str(e))
    assert cxx is not None and os.access(cxx, os.X_OK)
    source = tmp_path / "one.cpp"
    source.write_text("#include <Python.h>\n#include <vector>\nextern \"C\" int one() { return std::vector<int>{1}.size(); }\n")
    include = "-I/usr/include/python%d.%d" % sys.version_info[:2]  # a host-style path: rewritten to the root's
    done = subprocess.run([cxx, "-shared", "-fPIC", include, str(source), "-o", str(tmp_path / "one.so")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    import ctypes

    assert ctypes.CDLL(str(tmp_path / "one.so")).one() == 1


def test_an_ordinary_python_is_left_alone(tmp_path):
    """The host's python3 (no loader in front of it): nothing is routed."""
    host = "/usr/bin/python3"
    if not os.path.exists(host):
        pytest.skip("no host python3")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    env.pop("PYTHONHOME", None)
    env.pop("PYTHONEXECUTABLE", None)
    done = subprocess.run([host, "-c", "import sys; from dimscope.worker import rootlaunch; "
                           "e = sys.executable; print(rootlaunch.route_subprocesses(), rootlaunch.compiler(), "
                           "sys.executable == e)"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["None", "None", "True"], done.stdout


@in_root
def test_scripts_torch_python_maps_only_the_roots_libraries():
    """BLAS and LAPACK included: the root's usr/lib links them through /etc/alternatives,
    which the loader would resolve on the host (scripts/torch-python lists the folders
    the root's alternatives choose first; core/export/pythonruntime.cpp does the same,
    tests/export/tst_pythonruntime)."""
    code = ("import torch\n"
            "torch.mm(torch.ones(64, 64), torch.ones(64, 64))\n"
            "print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if '.so' in l.split()[-1]})))")
    done = subprocess.run([str(ROOT / "scripts" / "torch-python"), "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    root = rootlaunch.loader_prefix()[0].rsplit("/lib64/", 1)[0]  # ROOT/lib64/ld-linux-x86-64.so.2
    mapped = [os.path.realpath(p) for p in done.stdout.split()]
    assert any("blas" in os.path.basename(p) for p in mapped), mapped
    assert [p for p in mapped if not p.startswith(os.path.realpath(root) + "/")] == []

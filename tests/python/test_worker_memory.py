# SPDX-License-Identifier: GPL-3.0-or-later
"""The worker asks torch's CPU allocator for transparent huge pages (issue 29,
docs/worker-protocol.md "Transport"): THP_MEM_ALLOC_ENABLE=1 is set before torch is
imported, unless the user set it, and a large tensor the model makes is then backed by
huge pages where the kernel gives them on request (`madvise`)."""

import json
import os

import pytest

from workerproc import WorkerProcess

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"),
                                reason="needs Linux's /proc/self/smaps_rollup")

# The model reports what it finds in the worker: the variable, and the huge pages of the
# process once it holds 64 MB of fresh tensor memory.
MODEL = '''
import json
import os

import torch


def make():
    big = torch.ones(16 << 20)
    with open("/proc/self/smaps_rollup") as f:
        huge_kb = next(int(line.split()[1]) for line in f if line.startswith("AnonHugePages:"))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "seen.json"), "w") as f:
        json.dump({"variable": os.environ.get("THP_MEM_ALLOC_ENABLE"), "huge_kb": huge_kb,
                   "sum": float(big.sum())}, f)
    return torch.nn.Linear(2, 2)
'''


def kernel_huge_pages():
    """'always', 'madvise' or 'never' (None where the kernel does not say)."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[", 1)[1].split("]", 1)[0]
    except (OSError, IndexError):
        return None


def seen_by_a_worker(tmp_path, env):
    (tmp_path / "bigmodel.py").write_text(MODEL)
    w = WorkerProcess(env=env)
    try:
        ev, _ = w.request("load_model", model="%s:make" % (tmp_path / "bigmodel.py"))
    finally:
        w.close()
    assert ev["event"] == "result", ev
    return json.loads((tmp_path / "seen.json").read_text())


def test_the_worker_backs_large_tensors_with_huge_pages(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "THP_MEM_ALLOC_ENABLE"}
    seen = seen_by_a_worker(tmp_path, env)
    assert seen["variable"] == "1" and seen["sum"] == 16 << 20
    if kernel_huge_pages() == "madvise":  # 'always' backs it anyway, 'never' never does
        assert seen["huge_kb"] >= 32 << 10, seen


def test_a_users_own_setting_is_kept(tmp_path):
    seen = seen_by_a_worker(tmp_path, dict(os.environ, THP_MEM_ALLOC_ENABLE="0"))
    assert seen["variable"] == "0"
    if kernel_huge_pages() == "madvise":
        assert seen["huge_kb"] < 2 << 10, seen

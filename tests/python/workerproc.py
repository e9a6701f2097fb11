# SPDX-License-Identifier: GPL-3.0-or-later
"""A test-side client for `python -m dimscope.worker`: starts it as a real subprocess
and reads its JSON lines."""

import json
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# sys.executable may need the private runtime's loader: start through the launcher.
LAUNCHER = os.path.join(ROOT, "scripts", "torch-python")


class WorkerProcess:
    def __init__(self, env=None):
        """`env`: the worker's environment (default: this process's)."""
        self.proc = subprocess.Popen([LAUNCHER, "-m", "dimscope.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.next_id = 1
        self.ready = self._read()
        assert self.ready["event"] == "ready", self.ready

    def _read(self):
        line = self.proc.stdout.readline()
        assert line, "worker closed stdout; stderr: %s" % self.proc.stderr.read()
        return json.loads(line)  # every stdout line must be JSON

    def request(self, method, **params):
        """Sends a request; returns (final event, [all events of the request])."""
        rid = self.next_id
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"id": rid, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        events = []
        while True:
            ev = self._read()
            events.append(ev)
            if ev["event"] in ("result", "error") and ev["id"] == rid:
                return ev, events

    def close(self):
        if self.proc.poll() is None:
            try:
                self.request("shutdown")
            except Exception:
                pass
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A worker answer shared by the suites that show an export's verification (the
// result models, the result tables), so that they read the same replay.

namespace dimscope::test {

// A verification_failed answer as the worker sends it (docs/worker-protocol.md):
// call 0 replays, call 1 is refused by a guard on input_ids dim 1, call 2 by an error
// whose message has a second line, call 3's outputs differ.
inline constexpr char kVerificationFailed[] = R"J({"kind": "verification_failed", "message": "3 of 4 calls fail",
  "result": {"output": "/tmp/model.pt2", "example_call": 0, "device": "cpu",
    "verification": [
      {"call": 0, "status": "ok", "outputs": [{"path": "output", "max_abs": 1.5e-7, "max_rel": 2e-6, "ok": true}]},
      {"call": 1, "status": "rejected", "message": "Guard failed: input_ids.size()[1] == 1",
       "guard": {"expression": "input_ids.size()[1] == 1", "text": "input_ids dim 1 == 1",
                 "sources": [{"source": "input_ids.size()[1]", "path": "input_ids", "dim": 1}]}, "outputs": []},
      {"call": 2, "status": "rejected", "message": "RuntimeError: Expected input at *args[1].shape[0] to be equal to 2, but got 3\nmore", "outputs": []},
      {"call": 3, "status": "mismatch", "outputs": [{"path": "output.logits", "max_abs": 0.25, "max_rel": 0.5, "ok": false, "value_equal": false}]}]}})J";

} // namespace dimscope::test

# SPDX-License-Identifier: GPL-3.0-or-later
"""The cold baseline of bench_reexport: what a user's own `python export_script.py`
does for one export - import torch, load the model and the capture, export, save,
replay every call. Same steps as the worker, in a fresh process.

usage: export_script.py MODEL_REF CAPTURE SPEC_JSON OUTPUT
"""

import json
import sys


def main(argv):
    model_ref, capture_path, spec_path, output = argv
    import torch  # noqa: F401 - part of the cold cost

    from dimscope import caches, capture
    from dimscope.worker import exporter
    from dimscope.worker.modelref import load_model

    model = load_model(model_ref).eval()
    cap = capture.load_capture(capture_path)
    caches.register_capture_flattening(cap.manifest)
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    result = exporter.run_export(model, cap.calls, spec, output)
    print(json.dumps({"example_call": result["example_call"],
                      "verification": [r["status"] for r in result["verification"]]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

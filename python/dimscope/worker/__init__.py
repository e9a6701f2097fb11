# SPDX-License-Identifier: GPL-3.0-or-later
"""The export worker the C++ side drives: `python -m dimscope.worker`
(docs/worker-protocol.md).

``server`` speaks the JSON-lines protocol; ``modelref`` resolves and loads the model;
``spec`` turns a dimscope.dynamic_shapes document into torch.export's structure;
``exporter`` exports, saves and verifies the programs; ``guardcheck`` reads the guards a
program carries; ``explain`` ties torch's shape decisions to the model's lines; ``errors``
turns torch's failures into structured errors.

Importing this package imports nothing else (no torch): the modules load on use.
"""

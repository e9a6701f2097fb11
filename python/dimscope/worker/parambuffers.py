# SPDX-License-Identifier: GPL-3.0-or-later
"""Buffers whose value is an ``nn.Parameter``, exported as the plain tensors they hold.

A module may register a Parameter as a buffer (transformers' Falcon-Mamba mixer:
``register_buffer("b_c_rms", nn.Parameter(..., requires_grad=False), persistent=False)``,
for its Triton kernels). torch.export cannot handle such a buffer: torch 2.14 exports it,
but ``program.module()`` then fails (``KeyError: "attribute 'b_c_rms' already exists"``:
unlifting sets the Parameter as a parameter, then registers the same name as a buffer),
so neither dimscope nor a user can run the program; torch 2.6 fails in the export itself
(``KeyError: 'L__self___b_c_rms'``). A buffer is state, not a weight: while dimscope
exports, each such buffer holds its Parameter's tensor (``detach()``: the same storage
and values, not a Parameter), and gets its Parameter back afterwards, so the loaded
model is unchanged and the program holds an ordinary buffer of the same name. The log
names the buffers."""

import contextlib


def parameter_buffers(model):
    """[(module, buffer name, qualified name)] of the buffers that hold an nn.Parameter."""
    import torch

    found = []
    for prefix, module in model.named_modules():
        for name, value in module._buffers.items():
            if isinstance(value, torch.nn.Parameter):
                found.append((module, name, prefix + "." + name if prefix else name))
    return found


@contextlib.contextmanager
def as_plain_tensors(model, log=None):
    """Within: every buffer of `model` that holds an nn.Parameter holds its tensor."""
    found = parameter_buffers(model) if hasattr(model, "named_modules") else []
    saved = [(module, name, module._buffers[name]) for module, name, _ in found]
    try:
        for module, name, value in saved:
            module._buffers[name] = value.detach()
        if found and log is not None:
            log("buffer(s) %s hold an nn.Parameter, which torch.export cannot unlift (program.module() fails "
                "with 'attribute already exists'); exported as plain tensors with the same values, the loaded "
                "model unchanged" % ", ".join(q for _, _, q in found))
        yield
    finally:
        for module, name, value in saved:
            module._buffers[name] = value

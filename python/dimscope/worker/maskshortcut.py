# SPDX-License-Identifier: GPL-3.0-or-later
"""transformers' padding-mask shortcut of hybrid models decided while exporting.

Models with state-space or linear-attention layers (Jamba, Bamba, Falcon-H1,
GraniteMoeHybrid, Nemotron-H, Qwen3-Next, Qwen3.5, OLMo-Hybrid) zero the padded positions
of those layers' inputs with the attention mask, and skip that when nothing is padded:
their ``_update_mamba_mask`` / ``_update_linear_attn_mask`` return None when
``torch.all(attention_mask == 1)``. That is a branch on the values of an input, which
torch.export cannot trace (data-dependent code, ``Eq(u0, 1)``); draft_export then decides
it as the example call does, and for mixtures of experts fails further on in torch
(``PendingUnbackedSymbolNotFound`` in transformers' grouped experts).

The mask is applied by multiplying (``apply_mask_to_padding_states``): a mask of all ones
changes nothing, so keeping the mask is right for every call, padded or not. While
dimscope exports, ``torch.all`` inside those two methods answers "not all ones" (a
Python False), so the program always applies the mask; the other condition of the shortcut
(a cache that has a previous state: decoding) is the model's own and stays traced. The
log says so when the shortcut was reached, and the program's verification against the
recorded outputs and the eager model checks the result."""

import contextlib
import functools

# transformers' names for the shortcut (transformers 5.x).
METHODS = ("_update_mamba_mask", "_update_linear_attn_mask")


@contextlib.contextmanager
def mask_kept(model, log=None):
    """Within: each submodule of `model` with one of METHODS gets, as an instance
    attribute, that method with `torch.all` answering False during its call."""
    import torch

    reached, patched = [], []
    for module in model.modules():
        for name in METHODS:
            method = getattr(type(module), name, None)
            if callable(method) and name not in vars(module):
                setattr(module, name, _kept(torch, method.__get__(module), "%s.%s" % (type(module).__name__, name),
                                            reached))
                patched.append((module, name))
    try:
        yield
    finally:
        for module, name in patched:
            delattr(module, name)
        if reached and log is not None:
            log("transformers' padding-mask shortcut (%s: None when torch.all(attention_mask == 1), a branch on an "
                "input's values that torch.export cannot trace) was taken as 'not all ones' while exporting: the "
                "program always multiplies the padded positions by the mask, which for a mask of all ones changes "
                "nothing; the verification below compares the program with the recorded outputs"
                % ", ".join(sorted(set(reached))))


def _kept(torch, bound, label, reached):
    @functools.wraps(bound)
    def update(*args, **kwargs):
        real_all = torch.all

        def not_all_ones(*_args, **_kwargs):
            reached.append(label)
            return False  # a Python bool: a tensor made while tracing would be traced again

        torch.all = not_all_ones
        try:
            return bound(*args, **kwargs)
        finally:
            torch.all = real_all

    return update

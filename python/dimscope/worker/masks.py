# SPDX-License-Identifier: GPL-3.0-or-later
"""transformers' attention masks built without torch.vmap while exporting.

transformers builds a model's attention mask with torch.vmap where the model passes a
mask function of its own (Falcon's ``and_mask_function`` for ALiBi, any ``or_mask``):
``use_vmap=True``. torch.export traces that into ``flat_apply`` nodes over a
``ModIndex`` function, which torch's serializer cannot write (``Failed serializing node
flat_apply``), so the program exports and verifies but cannot be saved. Mask functions
of transformers' own kind are index-based and give the same mask by broadcasting
(transformers' default, ``use_vmap=False``); earlier transformers shipped an export
variant of its sdpa mask that did exactly this. While dimscope exports, the sdpa and
eager mask builders are called with ``use_vmap=False``; the log says so when a model
asked for vmap, and the program's verification against the recorded outputs (and the
eager model) checks that the mask it traced is the model's."""

import contextlib
import sys

# The mask builders of transformers.masking_utils.ALL_MASK_ATTENTION_FUNCTIONS that take use_vmap.
_BUILDERS = ("sdpa", "eager")


@contextlib.contextmanager
def index_based(log=None):
    """Within: transformers' sdpa and eager masks built without vmap. A model that does
    not use transformers' masks (transformers.masking_utils not imported) is untouched."""
    masking = sys.modules.get("transformers.masking_utils")
    interface = getattr(masking, "ALL_MASK_ATTENTION_FUNCTIONS", None)
    local = getattr(interface, "_local_mapping", None)
    if not isinstance(local, dict):
        yield
        return
    asked = []
    previous = {key: local[key] for key in _BUILDERS if key in local}
    try:
        for key in _BUILDERS:
            try:
                builder = interface[key]
            except KeyError:
                continue
            local[key] = _without_vmap(builder, key, asked)
        yield
    finally:
        for key in _BUILDERS:
            local.pop(key, None)
        local.update(previous)
        if asked and log is not None:
            log("transformers built the %s attention mask with torch.vmap (the model passes a mask function of "
                "its own); torch cannot save the flat_apply nodes vmap traces into, so dimscope exported it with "
                "transformers' index-based mask instead (use_vmap=False, as transformers' export variant of the "
                "mask did); the verification below compares the program with the recorded outputs"
                % " and ".join(sorted(set(asked))))


def _without_vmap(builder, key, asked):
    def build(*args, **kwargs):
        if kwargs.get("use_vmap"):
            asked.append(key)
            kwargs["use_vmap"] = False
        return builder(*args, **kwargs)

    return build

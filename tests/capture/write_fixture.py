# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a dimscope capture with the official safetensors library (test fixture).

usage: write_fixture.py OUT.safetensors

Three calls of an LLM-like forward (prefill then two decode steps, batch 2, two
layers), with a DynamicCache-style custom node, scalar leaves, a bfloat16 tensor and
an empty cache in the first call. Tensor values are arange() so the C++ test can
check the bytes it maps.
"""
import json
import sys

import torch
from safetensors.torch import save_file


def tensor_leaf(tensors, call, path, t):
    name = "c%d/in/%d" % (call, len(tensors[call]))
    tensors[call].append((name, t))
    return {"kind": "tensor", "tensor": name, "dtype": DTYPES[t.dtype], "shape": list(t.shape),
            "device": "cpu", "path": path}


DTYPES = {torch.int64: "I64", torch.float32: "F32", torch.bfloat16: "BF16", torch.bool: "BOOL"}


def main(out):
    tensors = {0: [], 1: [], 2: []}
    calls = []
    for call, (seq, past) in enumerate([(3, 0), (1, 3), (1, 4)]):
        ids = torch.arange(2 * seq, dtype=torch.int64).reshape(2, seq) + call
        mask = torch.ones(2, seq + past, dtype=torch.int64)
        children = [tensor_leaf(tensors, call, "input_ids", ids),
                    tensor_leaf(tensors, call, "attention_mask", mask)]
        keys = []
        for kind in ("key_cache", "value_cache"):
            layers = []
            for layer in range(2):
                t = torch.arange(2 * 4 * past * 8, dtype=torch.float32).reshape(2, 4, past, 8) / 7 + layer
                layers.append(tensor_leaf(tensors, call, "past_key_values.%s[%d]" % (kind, layer), t))
            keys.append({"kind": "list", "children": layers})
        children.append({"kind": "custom", "type": "transformers.cache_utils.DynamicCache",
                         "flavour": "key_value_dict", "keys": ["key_cache", "value_cache"],
                         "context": ["key_cache", "value_cache"], "children": keys})
        children.append(tensor_leaf(tensors, call, "position_bias",
                                    torch.tensor([[1.5, -2.25, float("nan")]], dtype=torch.bfloat16)))
        children.append({"kind": "int", "value": 7, "path": "cache_position"})
        children.append({"kind": "none", "path": "token_type_ids"})
        calls.append({
            "index": call, "num_positional": 1,
            "inputs": {"kind": "dict",
                       "keys": ["input_ids", "attention_mask", "past_key_values", "position_bias",
                                "cache_position", "token_type_ids"],
                       "children": children},
            "missing": ["past_key_values"] if call == 0 else [],
            "filled": [],
            "constant_kwargs": {"use_cache": True},
            "outputs": None,
        })
    manifest = {
        "format": "dimscope.capture", "version": 1,
        "producer": "tests/capture/write_fixture.py", "torch_version": torch.__version__,
        "transformers_version": None,
        "model": {"class": "tests.FakeLM", "signature": [
            {"name": "input_ids", "kind": "POSITIONAL_OR_KEYWORD", "has_default": False},
            {"name": "attention_mask", "kind": "POSITIONAL_OR_KEYWORD", "has_default": True, "default": None},
            {"name": "past_key_values", "kind": "POSITIONAL_OR_KEYWORD", "has_default": True, "default": None},
            {"name": "use_cache", "kind": "KEYWORD_ONLY", "has_default": True, "default": False},
        ]},
        "flattening": {"transformers.cache_utils.DynamicCache": "key_value_dict"},
        "value_if_missing": [],
        "calls": calls,
    }
    flat = {name: t.contiguous() for per_call in tensors.values() for name, t in per_call}
    save_file(flat, out, metadata={"dimscope.manifest": json.dumps(manifest), "other": "ignored"})


if __name__ == "__main__":
    main(sys.argv[1])

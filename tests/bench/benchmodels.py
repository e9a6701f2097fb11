# SPDX-License-Identifier: GPL-3.0-or-later
"""Models of bench_handwritten beyond the real-model suite's tiny ones, built in code from
a transformers config with random, seeded weights (no hub, no download). Each factory is
a model reference the CLI loads (``tests/bench/benchmodels.py:qwen05b``): it seeds torch,
so the worker's model has the weights the capture was recorded with.

``qwen05b``: a decoder with Qwen2.5-0.5B's sizes (hidden 896, 24 layers, 14 attention
heads, 2 KV heads, intermediate 4864, vocabulary 151936, tied embeddings; 494M
parameters, 1.98 GB in float32).

``python benchmodels.py NAME CAPTURE`` records ``generate()`` of model NAME the way the
real-model suite records its tiny models (tinymodels.record: two prompts, batch 2, left
padding, 4 new tokens each)."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "realmodels"))


def qwen05b():
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(0)
    cfg = Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                      num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                      tie_word_embeddings=True, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    model = Qwen2ForCausalLM(cfg)
    model.eval()
    return model


FACTORIES = {"qwen05b": qwen05b}


def record(name, path, prompt_lengths=(5, 8), new_tokens=4):
    """Records `generate()` of model `name` into `path`, as tinymodels.record does."""
    import tinymodels
    from dimscope.capture import InputRecorder

    model = FACTORIES[name]()
    rec = InputRecorder(store_n_calls=len(prompt_lengths) * new_tokens)
    with torch.no_grad(), rec(model):
        for length in prompt_lengths:
            model.generate(**tinymodels.generate_kwargs(name, length), max_new_tokens=new_tokens,
                           min_new_tokens=new_tokens, do_sample=False)
    rec.save(path)
    return rec


if __name__ == "__main__":
    record(sys.argv[1], sys.argv[2])

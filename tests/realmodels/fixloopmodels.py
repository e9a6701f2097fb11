# SPDX-License-Identifier: GPL-3.0-or-later
"""Tiny random-weight transformers models for the fix-loop cases of issue 20
(test_fixloop_families.py), built from configs in code (no hub), seeded like
tinymodels.py so the worker's model has the weights the capture was recorded with.
Each is a model reference dimscope can load (``tests/realmodels/fixloopmodels.py:falcon``)."""

import torch

VOCAB = 128
_TOKENS = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)


def _finish(model):
    model.eval()
    return model


def openai_gpt():
    """n_positions 256: its causal-bias slice makes torch state `seq_len != 256` with no fix."""
    from transformers import OpenAIGPTConfig, OpenAIGPTLMHeadModel
    torch.manual_seed(0)
    return _finish(OpenAIGPTLMHeadModel(OpenAIGPTConfig(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4,
                                                        n_positions=256, **_TOKENS)))


def gpt_neo():
    from transformers import GPTNeoConfig, GPTNeoForCausalLM
    torch.manual_seed(0)
    return _finish(GPTNeoForCausalLM(GPTNeoConfig(vocab_size=VOCAB, hidden_size=32, num_layers=2, num_heads=4,
                                                  attention_types=[[["global", "local"], 1]], window_size=16,
                                                  max_position_embeddings=256, **_TOKENS)))


def mpt():
    from transformers import MptConfig, MptForCausalLM
    torch.manual_seed(0)
    return _finish(MptForCausalLM(MptConfig(vocab_size=VOCAB, d_model=32, n_heads=4, n_layers=2, max_seq_len=256,
                                            use_cache=True, **_TOKENS)))


def falcon():
    """Passes a mask function of its own (for ALiBi): transformers builds its mask with vmap."""
    from transformers import FalconConfig, FalconForCausalLM
    torch.manual_seed(0)
    return _finish(FalconForCausalLM(FalconConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                                  num_attention_heads=4, **_TOKENS)))


def phi3_longrope():
    """LongRoPE (Phi-3's long-context rotary embedding): transformers picks the short or
    the long factors with `if seq_len > original_max_position_embeddings`, where seq_len is
    `torch.max(position_ids) + 1`, a value of a tensor: data-dependent code that
    torch.export stops on. original_max_position_embeddings 64, so recorded calls stay below."""
    from transformers import Phi3Config, Phi3ForCausalLM
    torch.manual_seed(0)
    half_head = 4  # head_dim 8 (hidden 32, 4 heads): one factor per rotary frequency
    return _finish(Phi3ForCausalLM(Phi3Config(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, original_max_position_embeddings=64,
        rope_parameters={"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": [1.0] * half_head,
                         "long_factor": [4.0] * half_head}, **_TOKENS)))


def xlnet():
    """Relative attention over its memories: torch guards the sizes with expressions such as
    `Mod(2*mems_0_dim0 + 6, mems_0_dim0 + 3) == 0` that hold for every size but that it
    cannot decide over a named Dim's range, and states no fix."""
    from transformers import XLNetConfig, XLNetLMHeadModel
    torch.manual_seed(0)
    return _finish(XLNetLMHeadModel(XLNetConfig(vocab_size=VOCAB, d_model=32, n_layer=2, n_head=4, d_inner=64,
                                                **_TOKENS)))

# SPDX-License-Identifier: GPL-3.0-or-later
"""Tiny random-weight Hugging Face models, built from configs in code (no hub, no
downloads), for the real-model suite. Each factory is a model reference dimscope can
load (``tests/realmodels/tinymodels.py:llama``): it seeds torch, so the worker's model
has the weights the capture was recorded with.

``RECIPES`` says how a user would drive each model: ``generate()`` twice (prompts of 5
and 8 tokens, batch 2, left padding, 4 new tokens each), a vision-language model with
images in both prompts, ``*_static`` families with ``cache_implementation="static"``."""

import torch

VOCAB = 128


def _seed():
    torch.manual_seed(0)


def _finish(model):
    model.eval()
    return model


def _decoder_common(**extra):
    common = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                  pad_token_id=0, bos_token_id=1, eos_token_id=2)
    common.update(extra)
    return common


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    _seed()
    return _finish(LlamaForCausalLM(LlamaConfig(**_decoder_common())))


def qwen2():
    from transformers import Qwen2Config, Qwen2ForCausalLM
    _seed()
    return _finish(Qwen2ForCausalLM(Qwen2Config(**_decoder_common())))


def mistral():
    from transformers import MistralConfig, MistralForCausalLM
    _seed()
    return _finish(MistralForCausalLM(MistralConfig(**_decoder_common(sliding_window=8))))


def gemma2():
    from transformers import Gemma2Config, Gemma2ForCausalLM
    _seed()
    cfg = Gemma2Config(**_decoder_common(head_dim=8, sliding_window=8, query_pre_attn_scalar=8))
    return _finish(Gemma2ForCausalLM(cfg))


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    _seed()
    cfg = GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=256,
                     bos_token_id=1, eos_token_id=2, pad_token_id=0)
    return _finish(GPT2LMHeadModel(cfg))


def t5():
    from transformers import T5Config, T5ForConditionalGeneration
    _seed()
    cfg = T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                   decoder_start_token_id=0, pad_token_id=0, eos_token_id=2)
    return _finish(T5ForConditionalGeneration(cfg))


def bart():
    """BART: learned positions (offset 2) in both stacks, the decoder starting from the
    end-of-sequence token; no forced first or last token, so every generate() call gives
    its min_new_tokens."""
    from transformers import BartConfig, BartForConditionalGeneration
    _seed()
    cfg = BartConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                     pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=2,
                     forced_bos_token_id=None, forced_eos_token_id=None)
    return _finish(BartForConditionalGeneration(cfg))


IMAGE_TOKEN = 100


def llava():
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig, LlavaForConditionalGeneration
    _seed()
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, image_size=16, patch_size=8, projection_dim=32)
    text = LlamaConfig(**_decoder_common())
    cfg = LlavaConfig(vision_config=vision, text_config=text, image_token_index=IMAGE_TOKEN,
                      vision_feature_layer=-1, vision_feature_select_strategy="full")
    return _finish(LlavaForConditionalGeneration(cfg))


# The same models driven with a static cache (generate(cache_implementation="static")).
llama_static = llama
gemma2_static = gemma2


def mamba():
    from transformers import MambaConfig, MambaForCausalLM
    _seed()
    cfg = MambaConfig(vocab_size=VOCAB, hidden_size=32, state_size=8, num_hidden_layers=2,
                      expand=2, conv_kernel=4, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return _finish(MambaForCausalLM(cfg))


def qwen3():
    from transformers import Qwen3Config, Qwen3ForCausalLM
    _seed()
    return _finish(Qwen3ForCausalLM(Qwen3Config(**_decoder_common(head_dim=8))))


def gemma3():
    """Gemma3's text model: a sliding-window layer (window 8) and a full-attention layer
    (Gemma3TextConfig's own pattern would make both sliding at 2 layers)."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig
    _seed()
    cfg = Gemma3TextConfig(**_decoder_common(head_dim=8, sliding_window=8, query_pre_attn_scalar=8,
                                             layer_types=["sliding_attention", "full_attention"]))
    return _finish(Gemma3ForCausalLM(cfg))


def qwen3_moe():
    """A mixture of experts in every layer (4 experts, 2 per token), with transformers'
    default experts implementation on the CPU (grouped_mm): the "eager" one loops over
    the experts a batch hits, a data-dependent loop torch.export cannot trace
    (docs/real-models.md)."""
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM
    _seed()
    cfg = Qwen3MoeConfig(**_decoder_common(head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16))
    return _finish(Qwen3MoeForCausalLM(cfg))


# ------------------------------------------------------------------------ recording


def prompt(length, batch=2, pad=2, image_tokens=0):
    """Left-padded token ids and attention mask: row 0 has `pad` pad tokens."""
    g = torch.Generator().manual_seed(length)
    ids = torch.randint(3, IMAGE_TOKEN, (batch, length), generator=g)
    mask = torch.ones(batch, length, dtype=torch.long)
    ids[0, :pad] = 0
    mask[0, :pad] = 0
    if image_tokens:
        ids[:, pad:pad + image_tokens] = IMAGE_TOKEN
    return ids, mask


def generate_kwargs(name, length):
    if name == "llava":
        # 16x16 images with 8x8 patches: 4 patch tokens (+ CLS, kept by "full").
        ids, mask = prompt(length + 5, image_tokens=5)
        g = torch.Generator().manual_seed(length)
        return dict(input_ids=ids, attention_mask=mask,
                    pixel_values=torch.randn(2, 3, 16, 16, generator=g))
    ids, mask = prompt(length)
    kwargs = dict(input_ids=ids, attention_mask=mask)
    if name.endswith("_static"):
        kwargs["cache_implementation"] = "static"
    return kwargs


FACTORIES = {
    "llama": llama, "qwen2": qwen2, "mistral": mistral, "gemma2": gemma2, "gpt2": gpt2,
    "t5": t5, "bart": bart, "llava": llava, "mamba": mamba, "llama_static": llama_static,
    "gemma2_static": gemma2_static,
    "qwen3": qwen3, "gemma3": gemma3, "qwen3_moe": qwen3_moe,
}


def record(name, path, prompt_lengths=(5, 8), new_tokens=4, value_if_missing=None):
    """Records `generate()` of model `name` the way a user would, into `path`
    (`value_if_missing`: InputRecorder's, for the inputs a call leaves out)."""
    from dimscope.capture import InputRecorder

    model = FACTORIES[name]()
    rec = InputRecorder(store_n_calls=len(prompt_lengths) * new_tokens, value_if_missing=value_if_missing)
    with torch.no_grad(), rec(model):
        for length in prompt_lengths:
            model.generate(**generate_kwargs(name, length), max_new_tokens=new_tokens,
                           min_new_tokens=new_tokens, do_sample=False)
    rec.save(path)
    return rec


def held_out_kwargs(name, length, batch, pad):
    """generate()'s inputs for a held-out call: `batch` prompts of `length` tokens, row 0
    left-padded by `pad`; LLaVA's with an image per prompt."""
    if name == "llava":
        ids, mask = prompt(length + 5, batch=batch, pad=pad, image_tokens=5)
        g = torch.Generator().manual_seed(length)
        return dict(input_ids=ids, attention_mask=mask, pixel_values=torch.randn(batch, 3, 16, 16, generator=g))
    ids, mask = prompt(length, batch=batch, pad=pad)
    kwargs = dict(input_ids=ids, attention_mask=mask)
    if name.endswith("_static"):
        kwargs["cache_implementation"] = "static"
    return kwargs


# (prompt length, batch, left padding of row 0, new tokens) of each held-out generate():
# batch 1 with a prompt longer than any recorded and a longer generation, batch 4
# left-padded, and (for decoders of text alone) a 1-token prompt with its decode step.
HELD_OUT_RUNS = ((13, 1, 0, 6), (7, 4, 3, 3), (1, 1, 0, 2))


# Encoder-decoders: the prompt is the encoder's input, so the held-out prompts of 13 and
# 7 tokens are encoder lengths never recorded (5 and 8 were).
ENCODER_DECODERS = ("t5", "bart")


def held_out_runs(name):
    return HELD_OUT_RUNS if name not in ("llava", *ENCODER_DECODERS) else HELD_OUT_RUNS[:2]


# A chat continuation after the held-out runs, for decoders of text alone with a cache
# that grows: a first turn (batch 2, 6-token prompts, 3 new tokens), then a second
# generate() given its cache with 4 new tokens, whose first forward call passes several
# new tokens on a non-empty cache (issue 27 item 2), and one decode step after it.
CHAT_TURNS = (6, 3, 4, 2)  # prompt, first turn's new tokens, second turn's new tokens, its generated ones


def has_chat_turn(name):
    return name not in ("llava", "mamba", *ENCODER_DECODERS) and not name.endswith("_static")


def held_out_call_count(name):
    first, second = CHAT_TURNS[1], CHAT_TURNS[3]
    return sum(new for *_, new in held_out_runs(name)) + (first + second if has_chat_turn(name) else 0)


def _chat_turns(model):
    prompt_len, first_new, added, second_new = CHAT_TURNS
    first_turn = generate_kwargs("llama", prompt_len)  # text only: ids and mask
    first = model.generate(**first_turn, max_new_tokens=first_new, min_new_tokens=first_new, do_sample=False,
                           return_dict_in_generate=True)
    new = torch.randint(3, 100, (2, added), generator=torch.Generator().manual_seed(1))
    ids = torch.cat([first.sequences, new], dim=1)
    mask = first_turn["attention_mask"]
    mask = torch.cat([mask, torch.ones(2, ids.shape[1] - mask.shape[1], dtype=mask.dtype)], dim=1)
    model.generate(input_ids=ids, attention_mask=mask, past_key_values=first.past_key_values,
                   max_new_tokens=second_new, min_new_tokens=second_new, do_sample=False)


def record_held_out(name, path):
    """A second recording of `name` for `export --verify-with` (issue 24 item 4, issue 27's
    held-out check): calls the first recording has not seen (HELD_OUT_RUNS)."""
    from dimscope.capture import InputRecorder

    model = FACTORIES[name]()
    rec = InputRecorder(store_n_calls=held_out_call_count(name))
    with torch.no_grad(), rec(model):
        for length, batch, pad, new_tokens in held_out_runs(name):
            model.generate(**held_out_kwargs(name, length, batch, pad), max_new_tokens=new_tokens,
                           min_new_tokens=new_tokens, do_sample=False)
        if has_chat_turn(name):
            _chat_turns(model)
    rec.save(path)
    return path


if __name__ == "__main__":
    # tinymodels.py NAME CAPTURE [HELD_OUT_CAPTURE]: the recording, and the held-out one.
    import sys
    record(sys.argv[1], sys.argv[2])
    if len(sys.argv) > 3:
        record_held_out(sys.argv[1], sys.argv[3])

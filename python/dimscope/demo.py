# SPDX-License-Identifier: GPL-3.0-or-later
"""A tiny decoder-only language model with a KV cache: dimscope's demo and test model.

Embedding + learned positions, 2 pre-norm attention layers (with a small MLP), LM head,
about 5,000 parameters, deterministic initialisation. ``forward(input_ids,
attention_mask=None, past_key_values=None)`` returns ``(logits, past_key_values)``.

The cache is transformers' ``DynamicCache`` when transformers is installed, otherwise
:class:`DemoCache`, registered as a pytree node the way transformers registers
DynamicCache (children ``[key_cache, value_cache]``), so captures and ``dynamic_shapes``
look the same either way.

The attention is written for ``torch.export`` (non-strict) with dynamic batch, sequence
and past lengths: sizes come from tensor shapes, never from tensor values.

Load it by reference: ``dimscope.demo:make_model``.

:func:`record_demo_capture` records the bundled demo capture: a two-turn conversation
whose every call, the prefill included, replays through one program exported from the
second turn with batch static, ``seq_len`` Dim(min=1), ``past_len`` Dim(min=0) and the
attention-mask length its own Dim (torch 2.6 accepts the zero-length cache of the
prefill at runtime; it ties the mask length to ``seq_len + past_len``).
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import torch
from torch import nn

from .caches import register_key_value_cache

VOCAB = 32
HIDDEN = 16
HEADS = 2
HEAD_DIM = HIDDEN // HEADS
LAYERS = 2
MAX_POSITIONS = 64
SEED = 20240611


class DemoCache:
    """A minimal DynamicCache: per-layer key and value tensors ``(batch, heads, seq, dim)``."""

    def __init__(self) -> None:
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []

    def update(self, key: torch.Tensor, value: torch.Tensor, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key)
            self.value_cache.append(value)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx: int = 0) -> int:
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]

    def __len__(self) -> int:
        return len(self.key_cache)

    def __repr__(self) -> str:
        shapes = [tuple(k.shape) for k in self.key_cache]
        return f"DemoCache(layers={len(shapes)}, key_shapes={shapes})"


register_key_value_cache(DemoCache)


def cache_class() -> type:
    """The demo's cache class: always DemoCache, so the demo behaves the same whichever
    transformers (or none) the runtime has (transformers 5.x registers no DynamicCache
    pytree node, and its layer-based cache is another structure)."""
    return DemoCache


def make_cache(pairs: List[Tuple[torch.Tensor, torch.Tensor]]) -> Any:
    """A cache of :func:`cache_class` holding one (key, value) pair per layer."""
    cache = cache_class()()
    for idx, (k, v) in enumerate(pairs):
        cache.update(k, v, idx)
    return cache


def _positions(like: torch.Tensor) -> torch.Tensor:
    """``0, 1, …, len(like) - 1`` as int64."""
    return torch.ones_like(like, dtype=torch.int64).cumsum(0) - 1


class _Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(HIDDEN)
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN, bias=False)
        self.out = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.norm2 = nn.LayerNorm(HIDDEN)
        self.up = nn.Linear(HIDDEN, 2 * HIDDEN)
        self.down = nn.Linear(2 * HIDDEN, HIDDEN)

    def forward(self, x: torch.Tensor, new_pos: torch.Tensor, attention_mask: Optional[torch.Tensor],
                cache: Any, layer_idx: int) -> torch.Tensor:
        batch, seq = x.shape[0], x.shape[1]
        q, k, v = self.qkv(self.norm1(x)).split(HIDDEN, dim=-1)
        q, k, v = (t.reshape(batch, seq, HEADS, HEAD_DIM).transpose(1, 2) for t in (q, k, v))
        k, v = cache.update(k, v, layer_idx)
        # allowed[b, 0, i, j]: query i (absolute position new_pos[i]) may see key j.
        key_pos = _positions(k.select(0, 0).select(0, 0).select(-1, 0))
        allowed = (key_pos.unsqueeze(0) <= new_pos.unsqueeze(1)).unsqueeze(0).unsqueeze(0)
        if attention_mask is not None:
            allowed = allowed & attention_mask.bool().unsqueeze(1).unsqueeze(2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
        # A finite fill keeps fully masked (padding) rows NaN-free.
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        attn = torch.matmul(scores.softmax(dim=-1), v)
        x = x + self.out(attn.transpose(1, 2).reshape(batch, seq, HIDDEN))
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


class TinyDecoderLM(nn.Module):
    """The demo model; see the module documentation."""

    def __init__(self, seed: int = SEED) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.positions = nn.Embedding(MAX_POSITIONS, HIDDEN)
        self.blocks = nn.ModuleList(_Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(HIDDEN)
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)
        self._init_weights(seed)

    @torch.no_grad()
    def _init_weights(self, seed: int) -> None:
        # One private generator: the weights do not depend on the global RNG state.
        gen = torch.Generator().manual_seed(seed)
        for name, param in sorted(self.named_parameters()):
            if name.endswith("bias"):
                param.zero_()
            elif "norm" in name:
                param.fill_(1.0)
            else:
                param.copy_(torch.randn(param.shape, generator=gen) * 0.2)

    def forward(self, input_ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None,
                past_key_values: Any = None) -> Tuple[torch.Tensor, Any]:
        if past_key_values is None:
            past_key_values = cache_class()()
        past = past_key_values.get_seq_length()
        # No `t[:, None]` / `t[..., :]` indexing on dynamic tensors in this model: torch
        # 2.6 turns the open slice into a "size != int64 max" guard that fails export
        # with unbounded Dims. unsqueeze/select/cumsum instead.
        new_pos = _positions(input_ids.select(0, 0)) + past
        x = self.embed(input_ids) + self.positions(new_pos).unsqueeze(0)
        for idx, block in enumerate(self.blocks):
            x = block(x, new_pos, attention_mask, past_key_values, idx)
        return self.lm_head(self.norm(x)), past_key_values


def make_model() -> TinyDecoderLM:
    """The demo model in eval mode (reference ``dimscope.demo:make_model``)."""
    return TinyDecoderLM().eval()


def demo_prompt(batch: int = 2, prefill: int = 5, seed: int = 7) -> Tuple[torch.Tensor, torch.Tensor]:
    """Deterministic ``(input_ids, attention_mask)`` for a prefill; the second sequence
    is left-padded by one token."""
    gen = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(1, VOCAB, (batch, prefill), generator=gen)
    attention_mask = torch.ones(batch, prefill, dtype=torch.int64)
    if batch > 1:
        attention_mask[1, 0] = 0
        input_ids[1, 0] = 0
    return input_ids, attention_mask


def run_generation(model: nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                   decode_steps: int, past_key_values: Any = None) -> Tuple[torch.Tensor, Any, torch.Tensor]:
    """Greedy generation through ``model.forward``: one call on ``input_ids`` (a prefill,
    or a new user turn when ``past_key_values`` holds the conversation so far), then one
    call per new token with the growing cache. Returns ``(tokens, cache,
    attention_mask)``: the generated tokens ``(batch, decode_steps + 1)``, the cache after
    the last call and the attention mask covering the cache plus the last token (what the
    next call of the conversation extends)."""
    cache = past_key_values
    tokens = []
    with torch.no_grad():
        for _ in range(decode_steps + 1):
            logits, cache = model(input_ids, attention_mask=attention_mask, past_key_values=cache)
            next_ids = logits[:, -1].argmax(dim=-1, keepdim=True)
            tokens.append(next_ids)
            input_ids = next_ids
            attention_mask = torch.cat(
                [attention_mask, torch.ones_like(next_ids, dtype=attention_mask.dtype)], dim=1)
    return torch.cat(tokens, dim=1), cache, attention_mask


def empty_cache(batch: int = 2) -> Any:
    """A cache of :func:`cache_class` holding, for every layer, zero-length key and value
    tensors ``(batch, HEADS, 0, HEAD_DIM)``: what "no cache yet" looks like as tensors.
    The model gives the same results for it as for ``past_key_values=None``."""
    return make_cache([(torch.zeros(batch, HEADS, 0, HEAD_DIM), torch.zeros(batch, HEADS, 0, HEAD_DIM))
                       for _ in range(LAYERS)])


DEMO_BATCH = 2
DEMO_PREFILL = 5
DEMO_DECODE_STEPS = 3
DEMO_TURN_TOKENS = 3
DEMO_TURN_DECODE_STEPS = 1


def demo_turn(batch: int = DEMO_BATCH, tokens: int = DEMO_TURN_TOKENS, seed: int = 11) -> torch.Tensor:
    """Deterministic ``input_ids`` of the second user turn, appended to the conversation."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(1, VOCAB, (batch, tokens), generator=gen)


def demo_call_count() -> int:
    return DEMO_DECODE_STEPS + 1 + DEMO_TURN_DECODE_STEPS + 1


def record_demo_capture(path: str, writer: str = "auto") -> None:
    """Records a two-turn conversation of the demo model, batch 2, with outputs, into the
    capture ``path``. Deterministic. The calls (input_ids / attention_mask / cache length):

    0. prefill: ``(2, 5)`` / ``(2, 5)`` / 0 -- one row left-padded; the model is called
       with ``past_key_values=None``, the capture records :func:`empty_cache` in its
       place (``value_if_missing``, the seeds' pattern), so every call has the same
       structure and a program exported with a cache takes the prefill too;
    1-3. greedy decode steps: ``(2, 1)`` / ``(2, 6..8)`` / 5..7;
    4. second user turn, 3 tokens (the last generated token, not yet in the cache, and 2
       user tokens): ``(2, 3)`` / ``(2, 11)`` / 8 -- the call whose
       dynamic dims (seq_len 3, past_len 8, mask length 11) are all >= 2, the example
       call an export picks (torch specializes dims of size 0 and 1);
    5. decode step: ``(2, 1)`` / ``(2, 12)`` / 11.
    """
    from .capture import InputRecorder

    model = make_model()
    input_ids, attention_mask = demo_prompt(DEMO_BATCH, DEMO_PREFILL)
    recorder = InputRecorder(store_n_calls=demo_call_count(),
                             value_if_missing={"past_key_values": empty_cache(DEMO_BATCH)})
    with recorder(model):
        generated, cache, attention_mask = run_generation(model, input_ids, attention_mask, DEMO_DECODE_STEPS)
        # The last generated token is not in the cache yet: the new turn starts with it.
        turn = torch.cat([generated[:, -1:], demo_turn(DEMO_BATCH, DEMO_TURN_TOKENS - 1)], dim=1)
        turn_mask = torch.cat([attention_mask, torch.ones(DEMO_BATCH, DEMO_TURN_TOKENS - 1, dtype=attention_mask.dtype)], dim=1)
        run_generation(model, turn, turn_mask, DEMO_TURN_DECODE_STEPS, past_key_values=cache)
    recorder.save(path, writer=writer)


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m dimscope.demo",
                                     description="Record the demo model's capture.")
    parser.add_argument("output", help="capture file to write (.safetensors)")
    parser.add_argument("--writer", choices=("auto", "safetensors", "builtin"), default="auto")
    args = parser.parse_args(argv)
    # Under `python -m dimscope.demo` this module is __main__: record with the classes of
    # the importable dimscope.demo so the capture names them by their real module.
    from dimscope.demo import record_demo_capture as record
    record(args.output, writer=args.writer)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

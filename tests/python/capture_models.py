# SPDX-License-Identifier: GPL-3.0-or-later
"""Models and cache classes of the seed scenarios (InputObserver examples), importable by
qualified name so that captures recorded from them can be rebuilt in another process."""

from typing import Any, Dict, List, Tuple

import torch
import torch.utils._pytree as pytree


class AddModel(torch.nn.Module):
    def forward(self, x, y):
        return x + y


class KVCache:
    """A DynamicCache look-alike: ``key_cache``/``value_cache`` lists, one tensor per layer."""

    def __init__(self) -> None:
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []

    def update(self, key, value, layer_idx):
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key)
            self.value_cache.append(value)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]


def make_kv_cache(pairs, cls=KVCache):
    cache = cls()
    for i, (k, v) in enumerate(pairs):
        cache.update(k, v, i)
    return cache


# Registered exactly the way transformers (4.50+) registers DynamicCache.
def _flatten_kv(cache: KVCache) -> Tuple[List[Any], Any]:
    dictionary = {"key_cache": cache.key_cache, "value_cache": cache.value_cache}
    return pytree._dict_flatten(dictionary)


def _flatten_with_keys_kv(cache: KVCache):
    dictionary = {"key_cache": cache.key_cache, "value_cache": cache.value_cache}
    return pytree._dict_flatten_with_keys(dictionary)


def _unflatten_kv(values, context) -> KVCache:
    dictionary = pytree._dict_unflatten(values, context)
    cache = KVCache()
    for k, v in dictionary.items():
        setattr(cache, k, v)
    return cache


pytree.register_pytree_node(
    KVCache, _flatten_kv, _unflatten_kv,
    serialized_type_name=f"{KVCache.__module__}.{KVCache.__name__}",
    flatten_with_keys_fn=_flatten_with_keys_kv)


class PlainKV(KVCache):
    """Not registered anywhere at import: the recorder test registers it through
    dimscope.caches.register_key_value_cache, a fresh process through the capture."""


class LLMLikeModel(torch.nn.Module):
    def forward(self, input_ids, attention_mask=None, past_key_values=None):
        return input_ids, past_key_values


class CacheSumModel(torch.nn.Module):
    """Uses every cache tensor, so torch.export sees the cache's dims."""

    def forward(self, input_ids, past_key_values=None):
        total = input_ids.float().sum()
        for k, v in zip(past_key_values.key_cache, past_key_values.value_cache):
            total = total + k.sum() + v.sum()
        return total


class MultimodalModel(torch.nn.Module):
    def forward(self, input_ids, pixel_values=None, attention_mask=None, past_key_values=None):
        return input_ids, past_key_values


class ImageTextModel(torch.nn.Module):
    """A vision-language model in miniature: images, when given, are encoded and added to
    every token. Like LLaVA's vision tower, the encoder reshapes by -1, which fails on 0
    images (`cannot reshape tensor of 0 elements`): the empty pixel_values that
    value_if_missing substitutes in decode calls must not reach it."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = torch.nn.Embedding(50, 8)
        self.vision = torch.nn.Linear(3 * 4 * 4, 8)

    def forward(self, input_ids, pixel_values=None):
        hidden = self.embed(input_ids)
        if pixel_values is not None:
            hidden = hidden + self.vision(pixel_values.reshape(pixel_values.shape[0], -1)).mean(0)
        return hidden.sum(-1)


def make_image_text_model() -> ImageTextModel:
    return ImageTextModel().eval()


class FlagModel(torch.nn.Module):
    def forward(self, x, use_cache: bool = True, scale: float = 1.0, mode: str = "a", *, extra=None):
        return x * scale


class VarModel(torch.nn.Module):
    def forward(self, x, /, *rest, **options):
        return x


def kv_pairs(batch: int, heads: int, seq: int, dim: int, layers: int, seed: int) -> List[Tuple[torch.Tensor, torch.Tensor]]:
    gen = torch.Generator().manual_seed(seed)
    return [(torch.rand(batch, heads, seq, dim, generator=gen),
             torch.rand(batch, heads, seq, dim, generator=gen)) for _ in range(layers)]

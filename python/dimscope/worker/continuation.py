# SPDX-License-Identifier: GPL-3.0-or-later
"""Example calls for the continuation program (issue 27 item 2).

A second `generate()` given the first one's cache starts with several new tokens on a
non-empty cache. A capture of `generate()` has no such call: its prefill passes the
prompt on an empty cache, its decode steps one token each. So the worker makes them:
the model runs on a prefix of a recorded prefill's prompt (the cache a first turn
would leave), and the rest of the prompt is passed with that cache, the mask over
prefix and rest, the position ids the prefill had for those tokens: what generate()
passes on a continuation. Those calls are recorded with dimscope's own InputRecorder
(inputs and the eager model's outputs) into a capture file of their own, which the
client infers constraints from and exports like any phase (docs/worker-protocol.md,
`synthesize_continuation`). Where it cannot be done, the result says why; nothing fails."""

import copy

# The inputs a prefill passes per prompt token, and the dim that runs over the tokens.
# attention_mask covers the cache too: the continuation's mask is prefix + rest.
_PER_TOKEN = {"input_ids": 1, "attention_mask": 1, "position_ids": -1, "cache_position": 0, "token_type_ids": 1}
_CACHE = "past_key_values"
# Caches that grow with every call, one entry per token: transformers' DynamicCache and
# dimscope.demo's stand-in for it where transformers is absent. A static cache's one
# program serves every call already; other classes (Mamba's states) hold no tokens.
_GROWING_CACHES = ("DynamicCache", "DemoCache")


def _is_tensor(value):
    import torch

    return isinstance(value, torch.Tensor)


def _cache_length(cache):
    try:
        return int(cache.get_seq_length())
    except Exception:  # noqa: BLE001 - a cache class without it is not one this handles
        return None


def _prompt_length(call):
    ids = call.kwargs.get("input_ids")
    return int(ids.shape[1]) if _is_tensor(ids) and ids.dim() == 2 else None


def _roles(calls):
    """(prefill calls, decode calls): an empty cache and a prompt; one new token on a
    non-empty cache."""
    prefill, decode = [], []
    for call in calls:
        cache = call.kwargs.get(_CACHE)
        length = _cache_length(cache) if cache is not None else None
        tokens = _prompt_length(call)
        if length == 0 and tokens is not None:
            prefill.append(call)
        elif length is not None and length > 0 and tokens == 1:
            decode.append(call)
    return prefill, decode


def _unusable(model, calls):
    """Why no continuation can be synthesized from this capture (None when it can),
    and the prefill call to synthesize from."""
    if getattr(getattr(model, "config", None), "is_encoder_decoder", False):
        return "the model is an encoder-decoder: only a decoder's generate() is continued", None
    prefill, decode = _roles(calls)
    if not decode:
        return ("no call passes one new token on a non-empty %s: not a capture of a decoder's generate() "
                "with a cache" % _CACHE), None
    if not prefill:
        return "no call passes a prompt on an empty %s (no prefill call)" % _CACHE, None
    cache_type = type(decode[0].kwargs[_CACHE]).__name__
    if cache_type not in _GROWING_CACHES:
        return ("the cache is a %s: continuations are synthesized for DynamicCache only (a fixed-size cache's "
                "program is exported for its every call)" % cache_type), None
    longest = max(prefill, key=lambda c: (_prompt_length(c), -c.index))
    if _prompt_length(longest) < 3:
        return ("the longest recorded prompt (call %d) has %d token(s): a continuation needs 3 (1 cached, 2 new)"
                % (longest.index, _prompt_length(longest))), None
    names = set(longest.kwargs)
    other = sorted(n for n in names if n != _CACHE and n not in _PER_TOKEN and _is_tensor(longest.kwargs[n]))
    if other:
        return ("prefill call %d passes %s, which dimscope does not split between a cached prefix and the rest"
                % (longest.index, ", ".join(other))), None
    if set(decode[0].kwargs) != names:
        return ("the decode calls pass other inputs (%s) than prefill call %d (%s)"
                % (", ".join(sorted(decode[0].kwargs)), longest.index, ", ".join(sorted(names)))), None
    if longest.call_arguments(include_constants=False)[0]:
        return "prefill call %d passes positional-only arguments" % longest.index, None
    return None, longest


def splits(length):
    """(cached, new) token counts for a prompt of `length` tokens: up to three, with
    the new tokens >= 2, so that the cache's length, the new tokens and the mask's
    length each vary and the mask is always their sum; cached >= 2 where the prompt
    allows (torch specializes a size of 1)."""
    first = 2 if length >= 5 else 1
    out = [(first, length - first)]
    if length - first - 1 >= 2:
        out += [(first, length - first - 1), (first + 1, length - first - 1)]
    return out


def _sliced(kwargs, start, stop, mask_stop):
    out = {}
    for name, value in kwargs.items():
        dim = _PER_TOKEN.get(name)
        if dim is None or not _is_tensor(value):
            out[name] = value
            continue
        index = [slice(None)] * value.dim()
        index[dim] = slice(0, mask_stop) if name == "attention_mask" else slice(start, stop)
        out[name] = value[tuple(index)].clone()
    return out


def synthesize(model, calls, path, log):
    """Records the continuation calls synthesized from the capture's `calls` into the
    capture file `path`; returns the request's result (docs/worker-protocol.md)."""
    import torch

    from ..capture import InputRecorder

    why, prefill = _unusable(model, calls)
    if why is not None:
        log("continuation program: not synthesized: " + why)
        return {"synthesized": False, "why": why}
    length = _prompt_length(prefill)
    _, kwargs = prefill.call_arguments(include_constants=True)
    made = splits(length)
    recorder = InputRecorder(store_n_calls=len(made))
    with torch.no_grad():
        for cached, new in made:
            prefix = _sliced(copy.deepcopy(kwargs), 0, cached, cached)
            out = model(**prefix)
            # A growing cache is filled in place (and returned, by transformers' models).
            cache = prefix[_CACHE] if _cache_length(prefix[_CACHE]) == cached else getattr(out, _CACHE, None)
            if cache is None or _cache_length(cache) != cached:
                why = "the model returned no cache of %d tokens for the prefix of call %d" % (cached, prefill.index)
                log("continuation program: not synthesized: " + why)
                return {"synthesized": False, "why": why}
            rest = _sliced(kwargs, cached, cached + new, cached + new)
            rest[_CACHE] = cache
            with recorder(model):
                model(**rest)
    recorder.save(path)
    rows = [{"from_call": prefill.index, "cached": c, "new": n} for c, n in made]
    log("continuation program: %d example call(s) synthesized from prefill call %d (%d tokens): %s "
        "(cached + new tokens; mask over both, position ids as the prefill had them)"
        % (len(rows), prefill.index, length, ", ".join("%d + %d" % (c, n) for c, n in made)))
    return {"synthesized": True, "path": path, "from_call": prefill.index, "calls": rows}

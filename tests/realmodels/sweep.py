# SPDX-License-Identifier: GPL-3.0-or-later
"""The architecture sweep (issue 20 item 1): every causal-LM architecture of the installed
transformers (``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES``), built tiny and generically from its
type's default config, driven with two ``generate()`` calls recorded by dimscope's
``InputRecorder``, and exported with one ``dimscope-cli export --fix-loop``. The result is
a table: built / generate ok / recorded / served, the failure class and its decisive line.

Run it through ``scripts/sweep-architectures`` (the sid runtime, the built CLI):

    scripts/sweep-architectures [--only llama,gpt2] [--limit N] [--jobs N]
                                [--timeout S] [--work DIR] [--out docs/architectures.md] [--merge]

Each architecture runs in its own interpreter (``sweep.py --worker TYPE``) under a
timeout, so a crash or a hang is one row. The model the CLI's worker loads is a factory
module written per architecture into the work folder (``arch_TYPE.py:make``) that rebuilds
the same seeded model from the same generic config. Nothing runs code because a file says
so: configs come from the installed transformers only, never with trust_remote_code."""

import argparse
import concurrent.futures
import datetime
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent

PROMPT_LENGTHS = (5, 8)
DEFAULT_TIMEOUT = 300  # seconds an architecture may take, build to export
NEW_TOKENS = 4
BATCH = 2

# The generic shrinking: common config fields (by their stored names) and their tiny value.
LAYERS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers", "decoder_layers", "encoder_layers",
          "num_decoder_layers", "num_encoder_layers")
HIDDEN = ("hidden_size", "n_embd", "d_model", "emb_dim", "hidden_size_global",
          "cross_attention_hidden_size")  # T5Gemma's decoder attends to the encoder's width
HEADS = ("num_attention_heads", "n_head", "num_heads", "encoder_attention_heads", "decoder_attention_heads")
FFN = ("intermediate_size", "d_ff", "ffn_dim", "encoder_ffn_dim", "decoder_ffn_dim", "moe_intermediate_size",
       "shared_expert_intermediate_size", "shared_intermediate_size", "moe_shared_expert_intermediate_size")
POSITIONS = ("max_position_embeddings", "n_positions", "n_ctx", "max_seq_len")
EXPERTS = ("num_experts", "num_local_experts", "n_routed_experts")
TINY = dict(layers=2, hidden=64, heads=4, kv_heads=2, ffn=128, vocab=1000, positions=256, experts=4, experts_per_tok=2)
TOKEN_IDS = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=0)
# Sub-configs shrunk the same way: a multimodal type's text model, an encoder-decoder's
# two halves stored as `encoder` and `decoder` (T5Gemma: 26 layers of width 2304 each;
# T5Gemma 2 built 18 GB), and any other nested config (`*_config`: BLT's
# patcher/encoder/decoder/global models, a vision tower).
NESTED = ("text_config", "encoder", "decoder")

# The kinds of generating model the sweep covers (--kind): the Auto mapping it walks, the
# Auto class that builds each entry, and the page's section title.
KINDS = {
    "causal": ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "AutoModelForCausalLM", "Causal LMs"),
    "seq2seq": ("MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "AutoModelForSeq2SeqLM", "Encoder-decoders"),
    "vlm": ("MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES", "AutoModelForImageTextToText", "Image-text-to-text models"),
}
# A vision-language prompt holds an image's tokens (576 for a 336-pixel CLIP tower): the
# text model's positions are not made tiny there.
VLM_POSITIONS = 4096
# Config fields sizing what a vision tower hands the text model: the text model's width.
VLM_WIDTHS = ("projection_dim", "mm_hidden_size", "text_hidden_size", "out_hidden_size")
# Text tokens of a vision-language prompt are drawn below this; its special tokens above.
VLM_TEXT_IDS = 900

FAILURE_CLASSES = ("build_failed", "generate_failed", "record_failed", "export_failed", "not_all_served",
                   "export_not_ok", "timeout", "crashed")


# ------------------------------------------------------------------ tiny configs


def _layer_types(types, layers):
    """`layer_types` for `layers` layers: one of each kind first (a hybrid keeps both its
    attention and its linear/sliding layers), in the order they first appear."""
    kinds = []
    for t in types:
        if t not in kinds:
            kinds.append(t)
    picked = kinds[:layers]
    while len(picked) < layers:
        picked.append(types[len(picked) % len(types)])
    return picked


def _layer_count(values):
    for k in LAYERS:
        if isinstance(values.get(k), int) and not isinstance(values.get(k), bool):
            return values[k]
    return None


def _per_layer_lists(values, out):
    """A list as long as the default layer count is per layer (`layer_types`,
    `layers_block_type`, a per-layer `intermediate_size`), and so is a shorter pattern of
    layer kinds that repeats (RecurrentGemma's `block_types`, two recurrent blocks to one
    attention block): two entries, one of each kind first; a per-layer feed-forward size
    gets the tiny size."""
    count = _layer_count(values)
    for k, v in values.items():
        if not isinstance(v, list) or not v:
            continue
        kinds = k == "layer_types" or (k.endswith(("_types", "block_type")) and all(isinstance(x, str) for x in v))
        if len(v) != count and not kinds:
            continue
        picked = _layer_types(v, TINY["layers"])
        out[k] = [TINY["ffn"]] * len(picked) if k in FFN else picked


def sub_configs(values):
    return [k for k, v in values.items() if isinstance(v, dict) and (k in NESTED or k.endswith("_config"))]


def shrink(values, kind="causal"):
    """Overrides that make the config dict `values` tiny: only the common fields it has."""
    out = {}

    def put(keys, value):
        for k in keys:
            if k in values and isinstance(values[k], int) and not isinstance(values[k], bool):
                out[k] = value

    put(LAYERS, TINY["layers"])
    put(HIDDEN, TINY["hidden"])
    put(HEADS, TINY["heads"])
    # Multi-head latent attention (DeepSeek, GLM-MoE-Lite: a kv_lora_rank) has as many
    # key/value heads as query heads; grouping them fails in its attention.
    put(("num_key_value_heads",), TINY["heads"] if "kv_lora_rank" in values else TINY["kv_heads"])
    put(FFN, TINY["ffn"])
    # Any vocabulary: BLT's hash-byte embeddings have 500002 rows of their own.
    put([k for k in values if k == "vocab_size" or k.endswith("_vocab")], TINY["vocab"])
    put(EXPERTS, TINY["experts"])
    put(("num_experts_per_tok", "top_k"), TINY["experts_per_tok"])
    put(("n_groups", "mamba_n_groups"), 1)
    # Layer kinds placed by period and offset (Jamba: attention every 8th layer from 4):
    # a period of at most 2, so 2 layers hold one of each kind.
    for k in values:
        if k.endswith("_layer_period") and isinstance(values[k], int) and values[k] > 2:
            offset = k[:-len("period")] + "offset"
            out[k] = 2
            if isinstance(values.get(offset), int):
                out[offset] = values[offset] % 2
    # Gated delta-net layers (Qwen3-Next, Qwen3.5): 16 key and 32 value heads of 128 made a
    # 62 MB capture and an export past the timeout; value heads a multiple of key heads.
    put(("linear_num_key_heads",), TINY["kv_heads"])
    put(("linear_num_value_heads",), TINY["heads"])
    put(("linear_key_head_dim", "linear_value_head_dim"), TINY["hidden"] // TINY["heads"])
    # Layers that reuse an earlier layer's cache (Gemma-3n: 15 of 30): none of 2 layers.
    put(("num_kv_shared_layers",), 0)
    if "is_decoder" in values and kind == "causal":
        out["is_decoder"] = True  # a causal LM is the decoder (BERT-like and Reformer LM heads refuse otherwise)
    if isinstance(values.get("head_dim"), int) and "qk_rope_head_dim" not in values:
        # A state-space model's heads span hidden * expand (Mamba-2's check); latent
        # attention's head_dim is its rotary part (qk_rope_head_dim) and stays as it is.
        expand = values.get("expand") if isinstance(values.get("expand"), int) else 1
        out["head_dim"] = TINY["hidden"] * expand // TINY["heads"]
    if isinstance(values.get("rotary_dim"), int):
        # Rotary embedding over part of a head (GPT-J, CodeGen): at most the tiny head size.
        out["rotary_dim"] = TINY["hidden"] // TINY["heads"]
    # A Mamba-2 mixer (the hybrids' state-space layers): heads x head size = expand x hidden,
    # and a small state. Their defaults (128 heads, a state of 256) made Falcon-H1's
    # generate() run past the timeout on the naive path.
    expand = next((values[k] for k in ("mamba_expand", "expand") if isinstance(values.get(k), int)), 2)
    put(("mamba_n_heads", "mamba_num_heads"), TINY["heads"])
    put(("mamba_d_head", "mamba_head_dim"), TINY["hidden"] * expand // TINY["heads"])
    put(("mamba_d_ssm",), TINY["hidden"] * expand)
    put(("mamba_d_state", "ssm_state_size"), 16)
    for k in POSITIONS:
        if isinstance(values.get(k), int):
            out[k] = VLM_POSITIONS if kind == "vlm" else TINY["positions"]
    if kind == "vlm":
        # Vision towers named the ViT way (Qwen2-VL's 32 blocks of width 1280).
        put(("depth",), TINY["layers"])
        put(("embed_dim",), TINY["hidden"])
        _vlm_fields(values, out)
    for k, v in TOKEN_IDS.items():
        # pad_token_id also where the default has none: the prompts are left-padded with 0.
        if k in values and (values[k] is not None or k == "pad_token_id"):
            out[k] = v
    _per_layer_lists(values, out)
    for k in sub_configs(values):
        if isinstance(values.get(k), dict):
            nested = dict(values[k])
            nested.update(shrink(nested, kind))
            out[k] = nested
    return out


def _vlm_fields(values, out):
    """A vision-language config's own fields: the tower's output width is the text
    model's; an image's tokens after pooling (Gemma 3's 256 from 64x64 patches) a few;
    and its special tokens (an image token of id 262144) inside the tiny vocabulary,
    from its top down."""
    for k in VLM_WIDTHS:
        if isinstance(values.get(k), int) and not isinstance(values.get(k), bool):
            out[k] = TINY["hidden"]
    if isinstance(values.get("mm_tokens_per_image"), int):
        out["mm_tokens_per_image"] = 16
    top = TINY["vocab"] - 1
    for k in sorted(values):
        v = values[k]
        special = k.endswith(("token_id", "token_index")) and k not in TOKEN_IDS
        if special and (v is None and k.startswith("image_") or isinstance(v, int) and not isinstance(v, bool)
                        and (v < 0 or v >= VLM_TEXT_IDS)):
            out[k] = top
            top -= 1


def tiny_config(model_type, kind="causal"):
    """The type's default config with the common fields made tiny (transformers only,
    never remote code)."""
    from transformers import AutoConfig

    default = AutoConfig.for_model(model_type)
    overrides = shrink(default.to_dict(), kind)
    text_type = getattr(getattr(default, "text_config", None), "model_type", None)
    if kind == "vlm" and _uses_multimodal_rope(model_type, text_type):
        _multimodal_rope_sections(default.to_dict(), overrides)
    return AutoConfig.for_model(model_type, **overrides)


def _uses_multimodal_rope(model_type, text_type=None):
    """Whether the type's modeling code, or that of its text model's type (GLM-4.6V's
    text model is GLM-4V's), reads `mrope_section` (Qwen2-VL, GLM-4V, ...)."""
    import importlib
    import inspect

    from transformers.models.auto import modeling_auto

    names = (modeling_auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(model_type),
             modeling_auto.MODEL_MAPPING_NAMES.get(text_type or ""))
    for name in names:
        try:
            module = importlib.import_module(getattr(__import__("transformers"), name).__module__)
            if "mrope_section" in inspect.getsource(module):
                return True
        except (AttributeError, TypeError, ImportError, OSError):
            pass
    return False


def _multimodal_rope_sections(values, out):
    """The rotary embedding's sections for time, height and width (Qwen2-VL's 16, 24, 24)
    for the tiny head: they sum to half of it. A default config names none, or those of
    a 128-wide head."""
    target = out.setdefault("text_config", dict(values["text_config"])) if isinstance(values.get("text_config"), dict) \
        else out
    source = values.get("text_config") if target is not out else values
    head = target.get("head_dim") or source.get("head_dim")
    hidden = target.get("hidden_size") or source.get("hidden_size")
    heads = target.get("num_attention_heads") or source.get("num_attention_heads")
    if not isinstance(head, int):
        head = hidden // heads if isinstance(hidden, int) and isinstance(heads, int) and heads else None
    rope = target.get("rope_parameters") or source.get("rope_parameters")
    if not isinstance(head, int) or not isinstance(rope, dict):
        return
    half = head // 2
    first = half // 4
    rest = half - first
    target["rope_parameters"] = dict(rope, mrope_section=[first, rest // 2, rest - rest // 2])


def build_model(model_type, kind="causal"):
    """The seeded tiny model of `model_type` (seed 0) built by `kind`'s Auto class, in
    eval mode: the same weights in the recording process and in the CLI's worker."""
    import torch
    import transformers

    config = tiny_config(model_type, kind)
    torch.manual_seed(0)
    model = getattr(transformers, KINDS[kind][1]).from_config(config, trust_remote_code=False)
    return model.eval()


FACTORY = '''# Generated by tests/realmodels/sweep.py: the tiny seeded {model_type!r} model.
import sys
sys.path.insert(0, {here!r})
import sweep


def make():
    return sweep.build_model({model_type!r}, {kind!r})
'''


def write_factory(folder, model_type, kind):
    name = "arch_" + re.sub(r"\W", "_", model_type) + ".py"
    path = pathlib.Path(folder) / name
    path.write_text(FACTORY.format(model_type=model_type, kind=kind, here=str(HERE)))
    return path


# ------------------------------------------------------------------ decisive lines

# A transformers or torch source line as the CLI prints a decision (`.../transformers/x.py:12: ...`)
# and as a traceback frame (`File ".../torch/y.py", line 34, in f`).
WHY_LINE = re.compile(r"\S*?((?:transformers|torch)/[\w./-]+\.py):(\d+): (.*)")
FRAME_LINE = re.compile(r'File "\S*?((?:transformers|torch)/[\w./-]+\.py)", line (\d+)')
# A phase whose export itself failed, and the model line torch stopped on before draft_export.
EXPORT_FAILED_LINE = "fix loop: the export failed "
DATA_DEPENDENT = re.compile(r"torch stopped on data-dependent code at \S*?((?:transformers|torch)/[\w./-]+\.py):(\d+)")
# A phase whose program failed the fresh-process check and was left out of the archive.
LEFT_OUT_LINE = re.compile(r"failed the fresh-process check, so left out of the archive: program (\S+) \(([^)]*)\): "
                           r".*? in a new interpreter through dimscope\.load_programs? \([^)]*\): (.*)$")
# A phase the fix loop ended on data-dependent code (draft_export stopped there too, or
# this torch has none): the model line and the rest of the loop's last word.
STOPPED_LINE = re.compile(r"^fix loop: (torch(?:\.export\.draft_export)? stopped on data-dependent code) at "
                          r"\S*?((?:transformers|torch)/[\w./-]+\.py):(\d+)(.*)$")


def one_line(text, limit=160):
    """`text` as one terminal-safe line of at most `limit` characters (control
    characters escaped); `cell` makes it a Markdown table cell."""
    out = []
    for ch in str(text):
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append(" ")
        elif ord(ch) < 32 or 127 <= ord(ch) < 160:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    line = "".join(out).strip()
    return line if len(line) <= limit else line[:limit - 1] + "…"


def short_path(filename):
    """`transformers/...` or `torch/...` of an installed file, else the path as given."""
    path = filename.replace(os.sep, "/")
    for lib in ("transformers/", "torch/"):
        if "/" + lib in path:
            return lib + path.rsplit("/" + lib, 1)[1]
    return path


def exception_line(exc):
    """`FILE:LINE: Type: message`: the innermost frame in transformers or torch."""
    where = None
    for frame in traceback.extract_tb(exc.__traceback__):
        short = short_path(frame.filename)
        if short.startswith(("transformers/", "torch/")):
            where = "%s:%d" % (short, frame.lineno)
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()] or [""]
    # "Validation error for field 'x':" says what only with the line after it.
    message = " ".join(lines[:2]) if lines[0].endswith(":") else lines[0]
    head = "%s: %s" % (type(exc).__name__, message)
    return "%s: %s" % (where, head) if where else head


def _failure_place(stderr, head):
    """Where the failure `head` (`KIND: MESSAGE`) happened, from the block the CLI printed
    for it: the innermost transformers/torch frame of its traceback, else the first model
    line torch named for it."""
    at = stderr.rfind("export failed: " + head)
    if at < 0:
        return ""
    block = stderr[at:].split("\nexport failed: ", 1)[0]
    frames = FRAME_LINE.findall(block)
    if frames:
        return "%s:%s" % (short_path(frames[-1][0]), frames[-1][1])
    why = WHY_LINE.search(block)
    return "%s:%s: %s" % why.groups() if why else ""


def _source_place(source):
    """`FILE:LINE` of the model line a failure names (the worker's `source`), else ""."""
    if not isinstance(source, dict) or not source.get("file") or not isinstance(source.get("line"), int):
        return ""
    return "%s:%d" % (short_path(str(source["file"])), source["line"])


MODEL_CODE = re.compile(r"\(in the model's code at \S*?((?:transformers|torch)/[\w./-]+\.py):(\d+)\)")


def _model_code_place(text, message):
    """`FILE:LINE` the fix loop's last word gives for this failure (`in the model's code at
    ...`; the CLI's --json report does not carry the worker's source), else ""."""
    head = (message.strip().splitlines() or [""])[0][:60]
    for line in text.splitlines():
        found = MODEL_CODE.search(line)
        if found and head and head in line:
            return "%s:%s" % found.groups()
    return ""


REJECTED_ROW = re.compile(r"^(\d+)\*?\s+rejected\s+-\s+-\s+(.+)$")
CALLS_FAILING = re.compile(r"(\d+ of \d+) captured calls fail through it")
# A row of the verification table whose call no program can serve as it was rebuilt.
DIFFERING_ROW = re.compile(r"^(\d+)\*?\s+rebuilt_differs\s+\S+\s+\S+\s+(.+)$")


def _first_rejection(stdout, message, stderr=""):
    """A verification failure whose calls the program rejects: how many, and the first
    rejected call's reason from the verification table (a draft program's runtime
    assertion), not a guard of an earlier round; "" when no call was rejected."""
    # The failure's own calls (a later phase's table may follow an earlier one's).
    named = set(re.findall(r"call (\d+) rejected", message))
    rows = [REJECTED_ROW.match(line.strip()) for line in stdout.splitlines()]
    rows = [row for row in rows if row]
    for row in [row for row in rows if row.group(1) in named] or rows:
        if row:
            count = CALLS_FAILING.search(message)
            line = "verification_failed: %s captured calls fail through the program; call %s rejected: %s" % (
                count.group(1) if count else "some", row.group(1), row.group(2).strip())
            place = _rejection_place(stdout[:stdout.find(row.group(0))], row.group(2).strip(), stderr)
            if not place:
                return line
            # Shorter, so that the reason and the place fit the row's 160 characters.
            line = "verification_failed: call %s rejected (%s calls fail): %s" % (
                row.group(1), count.group(1) if count else "some", row.group(2).strip())
            return "%s (at %s)" % (one_line(line, max(60, 154 - len(place))), place)
    return ""


ASSERTION_FAILED = re.compile(r"Runtime assertion failed for expression (.+?) on node ")
DRAFT_LINE = re.compile(r"^draft export: \S*?((?:transformers|torch)/[\w./-]+\.py):(\d+): (.*)$")
# How torch writes an operation in a program's guard, and in the decisions the CLI prints.
GUARD_OPERATIONS = (("math.ceil(", "CeilToInt("), ("torch.sym_float(", "ToFloat("), (" % ", "Mod("),
                    (" // ", "FloorDiv("), ("min(", "Min("), ("max(", "Max("))
CONSTANT_GUARD = re.compile(r"^guard failed: \S+ dim \d+ == -?\d+$")  # one size, one value


def _rejection_place(before, reason, stderr=""):
    """The model line behind a rejection, from the decisions of the export that made the
    program (`before`: the CLI's output up to the verification table, from the phase's
    header on): a draft program's runtime assertion, by the assumption that became it;
    a guard pinning a size to a constant, by the first specialization; another guard, by
    the first decision using the same operations (ceil, float, mod...). "" when none."""
    block = before[before.rfind("\n== phase "):] if "\n== phase " in before else before
    lines = [line.strip() for line in block.splitlines()]
    assertion = ASSERTION_FAILED.search(reason)
    if assertion:
        # The worker logs the assumptions on stderr (`worker: draft export: ...`).
        drafts = [DRAFT_LINE.match(re.sub(r"^worker: ", "", line.strip())) for line in (block + "\n" + stderr).splitlines()]
        drafts = [d for d in drafts if d]
        # The assumption that became this assertion; else the first one: torch made
        # more assertions than assumptions it reports, all from the same data-dependent code.
        found = next((d for d in drafts if assertion.group(1) in d.group(3)), drafts[0] if drafts else None)
        return "%s:%s" % (short_path(found.group(1)), found.group(2)) if found else ""
    decisions = [WHY_LINE.search(line) for line in lines]
    decisions = [d for d in decisions if d]
    if CONSTANT_GUARD.match(reason):
        wanted = lambda text: text.startswith("specialized:")  # noqa: E731
    else:
        operations = [sympy_name for guard_name, sympy_name in GUARD_OPERATIONS if guard_name in reason]
        if not operations:
            return ""
        wanted = lambda text: all(op in text for op in operations)  # noqa: E731
    found = next((d for d in decisions if wanted(d.group(3))), None)
    return "%s:%s" % (short_path(found.group(1)), found.group(2)) if found else ""


def _first_differing(stdout, message):
    """A verification failure whose calls differ already when rebuilt and run eagerly
    (the model keeps state outside its inputs): how many, and the first such call's note
    from the verification table; "" when none does."""
    named = re.findall(r"call (\d+) rebuilt_differs", message)
    rows = [DIFFERING_ROW.match(line.strip()) for line in stdout.splitlines()]
    for row in rows:
        if row and row.group(1) in named[:1]:
            state = MODULE_STATE.search(row.group(2))
            if state:
                # The worker found the state the model keeps on its modules: the attribute, at its line.
                place = "%s:%s" % (short_path(state.group(2)), state.group(3))
                text = "rebuilt_differs: state kept in %s" % state.group(1)  # short: the place fits
                return "%s (at %s)" % (one_line(text, max(60, 154 - len(place))), place)
            count = CALLS_FAILING.search(message)
            return "verification_failed: %s captured calls fail through the program; call %s rebuilt_differs: %s" % (
                count.group(1) if count else "some", row.group(1), row.group(2).strip())
    return ""


# The worker's words for state a forward stored on the model's modules (modulestate.py).
MODULE_STATE = re.compile(r"the model keeps state of its own outside its inputs, which a program does not take: "
                          r"its forward stored ([\w.]+) \((\S+?\.py):(\d+)\)")


def _phase_failure(stdout, cause, stderr=""):
    """A phase's failed export: for a verification failure, the first failing call and
    why (its rejection, or its rebuilt call differing), else the line as the CLI says it."""
    if "(verification_failed)" not in cause:
        return cause
    first = re.search(r"call (\d+) (rejected|rebuilt_differs)", cause)
    if not first:
        return cause
    if first.group(2) == "rejected":
        return _first_rejection(stdout, cause, stderr) or cause
    return _first_differing(stdout, cause) or cause


def cli_line(stdout, stderr, report):
    """The CLI's decisive line. A failed export: its kind and message and where (the
    innermost transformers/torch frame, or the model line torch named). Otherwise the
    first decision naming a transformers/torch FILE:LINE, else the CLI's own one-line
    summary (`fix loop: ...`, `calls ... are served by no exported program ...`). A
    phase whose export failed comes before any decision: its failure, with the model line
    torch stopped on when it was data-dependent code (draft_export's round)."""
    failure = (report or {}).get("failure") or {}
    if failure.get("kind") == "verification_failed":
        rejected = _first_rejection(stdout, failure.get("message") or "", stderr)
        if rejected:
            return rejected
    if failure.get("message"):
        line = "%s: %s" % (failure.get("kind"), (failure["message"].strip().splitlines() or [""])[0])
        # The model's line where the worker names one (Aria's experts loop), else torch's frame.
        place = _source_place(failure.get("source")) or _model_code_place(stdout + "\n" + stderr, failure["message"]) \
            or _failure_place(stderr, line)
        # The place survives the row's 160 characters: the message is cut instead.
        return "%s (at %s)" % (one_line(line, max(60, 150 - len(place))), place) if place else line
    text = stderr + "\n" + stdout
    # A phase whose export failed (the run served some calls with the others' programs):
    # that failure, not a decision of a round before it, is why calls are unserved.
    failed = next((line.strip() for line in text.splitlines() if line.startswith(EXPORT_FAILED_LINE)), None)
    if failed:
        cause = _phase_failure(stdout, failed[len("fix loop: "):], stderr)
        stopped = DATA_DEPENDENT.search(text)
        return "%s:%s: data-dependent code, then %s" % (stopped.group(1), stopped.group(2), cause) if stopped else cause
    for line in text.splitlines():
        left_out = LEFT_OUT_LINE.search(line)
        if left_out:
            return "fresh_process: program %s (%s) does not load and run in a new interpreter: %s" % left_out.groups()
    for line in text.splitlines():
        stopped = STOPPED_LINE.match(line.strip())
        if stopped:
            return "%s:%s: %s%s" % (stopped.group(2), stopped.group(3), stopped.group(1), stopped.group(4))
    for line in text.splitlines():
        why = WHY_LINE.match(line.strip())
        if why:
            return "%s:%s: %s" % why.groups()
    for line in (stderr + "\n" + stdout).splitlines():
        if line.startswith(("fix loop: ", "calls ")) or "served by no exported program" in line:
            return line.strip()
    tail = [line for line in stderr.splitlines() if line.strip()]
    return tail[-1].strip() if tail else ""


# ------------------------------------------------------------------ one architecture (worker)


def prompt(length):
    """Left-padded batch: row 0 has 2 pad tokens (id 0)."""
    import torch

    g = torch.Generator().manual_seed(length)
    ids = torch.randint(3, TINY["vocab"], (BATCH, length), generator=g)
    mask = torch.ones(BATCH, length, dtype=torch.long)
    ids[0, :2] = 0
    mask[0, :2] = 0
    return ids, mask


def run_generate(model, model_type=None, kind="causal"):
    # An encoder-decoder's first decoder token: transformers 5 keeps it in the generation
    # config, which a config built from defaults may leave empty (T5).
    start = dict(decoder_start_token_id=TOKEN_IDS["decoder_start_token_id"]) if model.config.is_encoder_decoder else {}
    for length in PROMPT_LENGTHS:
        if kind == "vlm":
            ids, mask, images = vlm_prompt(model, model_type, length)
        else:
            (ids, mask), images = prompt(length), {}
        model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS,
                       do_sample=False, pad_token_id=0, **start, **images)


# ------------------------------------------------------------------ one image per row (vlm)


def images(length):
    """One image per row of the batch, of two sizes (the processor resizes them)."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(length)
    return [Image.fromarray(rng.integers(0, 256, (48 + 16 * row, 64, 3), dtype=np.uint8)) for row in range(BATCH)]


def image_processor(model_type, config):
    """The type's image processor of the installed transformers, with its defaults, sized
    to the config's vision tower (its image size, patch and merge sizes)."""
    import transformers
    from transformers.models.auto import image_processing_auto

    names = image_processing_auto.IMAGE_PROCESSOR_MAPPING_NAMES.get(model_type) or {}
    name = next((names[b] for b in ("torchvision", "pil") if names.get(b)), None)
    if name is None:
        raise ValueError("transformers names no image processor for %s" % model_type)
    vision = getattr(config, "vision_config", None)
    cls = getattr(transformers, name)
    processor = cls()
    size = getattr(vision, "image_size", None)
    size = size[0] if isinstance(size, (list, tuple)) and size else size
    if isinstance(size, int):
        # In the processor's own terms: a fixed height and width, or a shortest edge; a
        # range of pixel counts (Qwen2-VL, GLM-4V: any resolution) stays as it is.
        kwargs = {k: _sized(getattr(processor, k, None), size) for k in ("size", "crop_size")}
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        if kwargs:
            processor = cls(**kwargs)
    for attr in ("patch_size", "temporal_patch_size", "merge_size", "spatial_merge_size"):
        value = getattr(vision, attr, None)
        if isinstance(value, int) and isinstance(getattr(processor, attr, None), int):
            setattr(processor, attr, value)
    return processor


def _sized(default, size):
    """A processor's size setting (`size`, `crop_size`) set to `size` pixels square."""
    keys = {k for k in ("height", "width", "shortest_edge", "longest_edge")
            if isinstance(default, dict) and default.get(k) is not None
            or not isinstance(default, dict) and getattr(default, k, None) is not None}
    if {"height", "width"} <= keys:
        return {"height": size, "width": size}
    if keys == {"shortest_edge"}:
        return {"shortest_edge": size}
    return None


def _feature_count(features, n_images):
    """Image tokens per image from what get_image_features returns (a tensor, a list of
    one per image, or a model output holding one)."""
    for attr in ("pooler_output", "last_hidden_state"):
        if getattr(features, attr, None) is not None:
            features = getattr(features, attr)
            break
    if isinstance(features, (list, tuple)):
        return [f.reshape(-1, f.shape[-1]).shape[0] for f in features]
    total = features.reshape(-1, features.shape[-1]).shape[0]
    return [total // n_images] * n_images


def image_token_id(config):
    for k in ("image_token_id", "image_token_index"):
        if isinstance(getattr(config, k, None), int):
            return getattr(config, k)
    raise ValueError("the config has no image token id (image_token_id, image_token_index)")


def vlm_prompt(model, model_type, length):
    """A left-padded batch with one image per row: the image's tokens (as many as the
    model's get_image_features gives for it), then `length` text tokens (row 0: 2 fewer,
    and 2 pad tokens); and the image processor's tensors that the model's forward takes."""
    import inspect

    import torch

    enc = image_processor(model_type, model.config)(images(length), return_tensors="pt")
    accepted = inspect.signature(model.forward).parameters
    extra = {k: v for k, v in enc.items() if k in accepted}
    inner = next((m for m in (model, getattr(model, "model", None)) if hasattr(m, "get_image_features")), None)
    if inner is None:
        raise ValueError("%s has no get_image_features" % type(model).__name__)
    with torch.no_grad():
        counts = _feature_count(inner.get_image_features(**extra), BATCH)
    image = image_token_id(model.config)
    g = torch.Generator().manual_seed(length)
    # Row 0 has 2 text tokens fewer, padded on the left, as in the text prompts (prompt()).
    rows = [torch.cat([torch.full((count,), image), torch.randint(3, VLM_TEXT_IDS, (length - (2 if i == 0 else 0),),
                                                                  generator=g)])
            for i, count in enumerate(counts)]
    width = max(r.shape[0] for r in rows)
    ids = torch.zeros(BATCH, width, dtype=torch.long)
    mask = torch.zeros(BATCH, width, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, width - r.shape[0]:] = r
        mask[i, width - r.shape[0]:] = 1
    return ids, mask, extra


class Row(dict):
    def fail(self, cls, line):
        self["failure"] = cls
        self["line"] = one_line(line)
        return self


def work_one(model_type, kind, folder, cli, cli_args, save):
    """Builds, records and exports one architecture; `save(row)` after each stage so
    that the parent knows how far a worker that was killed got."""
    import torch
    from dimscope.capture import InputRecorder

    row = Row(architecture=model_type, kind=kind, built=False, generate=False, recorded=False, calls=0, served=0,
              programs=0, failure="", line="", seconds={})
    started = time.monotonic()
    try:
        model = build_model(model_type, kind)
        row["built"] = True
    except Exception as exc:  # noqa: BLE001 - one row per architecture, whatever failed
        return row.fail("build_failed", exception_line(exc))
    finally:
        row["seconds"]["build"] = round(time.monotonic() - started, 1)
        save(row)
    started = time.monotonic()
    capture = pathlib.Path(folder) / "capture.safetensors"
    rec = InputRecorder(store_n_calls=64)
    try:
        with torch.no_grad(), rec(model):
            run_generate(model, model_type, kind)
        row["generate"] = True
        if rec.num_calls == 0:
            return row.fail("record_failed", "generate() ran, but the recorder saw no call of the model")
        rec.save(capture)
        row["recorded"] = True
        row["calls"] = rec.num_calls
    except Exception as exc:  # noqa: BLE001
        line = exception_line(exc)
        if not row["generate"]:
            try:  # the recorder or the model? generate() alone tells
                with torch.no_grad():
                    run_generate(model, model_type, kind)
                row["generate"] = True
            except Exception as plain:  # noqa: BLE001
                line = exception_line(plain)
        return row.fail("record_failed" if row["generate"] else "generate_failed", line)
    finally:
        row["seconds"]["generate+record"] = round(time.monotonic() - started, 1)
        save(row)
    return export_one(row, model_type, kind, folder, capture, cli, cli_args)


def export_one(row, model_type, kind, folder, capture, cli, cli_args):
    folder = pathlib.Path(folder)
    factory = write_factory(folder, model_type, kind)
    report_path = folder / "export.json"
    started = time.monotonic()
    # Written as the export goes, so that a timeout row can say how far it got (`so_far`).
    with open(folder / "export.stdout", "w") as out, open(folder / "export.stderr", "w") as err:
        done = subprocess.run([cli, "export", "--model", "%s:make" % factory, "--capture", str(capture), "--fix-loop",
                               "--json", str(report_path), "-o", str(folder / "model.pt2"), *cli_args],
                              stdout=out, stderr=err)
    row["seconds"]["export"] = round(time.monotonic() - started, 1)
    done.stdout = (folder / "export.stdout").read_text(errors="replace")
    done.stderr = (folder / "export.stderr").read_text(errors="replace")
    try:
        report = json.loads(report_path.read_text())
    except (OSError, ValueError):
        report = None
    served = set()
    for program in (report or {}).get("programs", []):
        served.update(program.get("calls") or [])
    row["served"] = len(served)
    row["programs"] = len((report or {}).get("programs", []))
    row["exit"] = done.returncode
    line = cli_line(done.stdout, done.stderr, report)
    if report is None or (not row["programs"] and (report.get("failure") or done.returncode)):
        kind = ((report or {}).get("failure") or {}).get("kind") or "no report, exit %d" % done.returncode
        return row.fail("export_failed", line if line.startswith(kind) else "%s: %s" % (kind, line))
    if row["served"] < row["calls"]:
        return row.fail("not_all_served", line)
    if done.returncode != 0 or not report.get("ok"):
        return row.fail("export_not_ok", line)
    return row


def worker_main(model_type, kind, folder, cli, cli_args):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    result = folder / "row.json"

    def save(row):
        tmp = result.with_suffix(".tmp")
        tmp.write_text(json.dumps(row))
        os.replace(tmp, result)

    save(work_one(model_type, kind, folder, cli, cli_args, save))
    return 0


# ------------------------------------------------------------------ the sweep (parent)


def run_one(model_type, kind, work, cli, cli_args, timeout):
    """One architecture in its own interpreter, in its own process group (killed whole on
    timeout); the row it saved last, or a timeout/crash row from where it got."""
    prefix = "" if kind == "causal" else kind + "-"
    folder = pathlib.Path(work) / re.sub(r"[^\w.-]", "_", prefix + model_type)
    folder.mkdir(parents=True, exist_ok=True)
    command = [str(REPO / "scripts" / "torch-python"), str(pathlib.Path(__file__).resolve()), "--worker", model_type,
               "--kind", kind, "--work", str(folder), "--cli", cli, *(["--cli-arg=" + a for a in cli_args])]
    started = time.monotonic()
    with open(folder / "worker.log", "w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
    try:
        row = json.loads((folder / "row.json").read_text())
    except (OSError, ValueError):
        row = dict(architecture=model_type, kind=kind, built=False, generate=False, recorded=False, calls=0, served=0,
                   programs=0, failure="", line="", seconds={})
    row["seconds"]["total"] = round(time.monotonic() - started, 1)
    # The page names a file by its place in the work folder, not by this machine's path.
    row["line"] = row.get("line", "").replace(str(pathlib.Path(work).resolve()) + os.sep, "").replace(
        str(pathlib.Path(work)) + os.sep, "")
    if rc is None:
        row["failure"], row["line"] = "timeout", one_line("no result after %d s (%s)%s" % (
            timeout, stage(row), so_far(folder)))
    elif rc != 0 or not row.get("failure") and not served_all(row):
        tail = [l for l in (folder / "worker.log").read_text(errors="replace").splitlines() if l.strip()]
        row["failure"], row["line"] = "crashed", one_line("exit %s after %s: %s" % (rc, stage(row), tail[-1] if tail else ""))
    return row


def so_far(folder):
    """What a timed-out export had printed: its decisive line so far, as `; so far: LINE`."""
    try:
        stdout = (folder / "export.stdout").read_text(errors="replace")
        stderr = (folder / "export.stderr").read_text(errors="replace")
    except OSError:
        return ""
    line = cli_line(stdout, stderr, None) if stdout.strip() or stderr.strip() else ""
    return "; so far: " + line if line else ""


def stage(row):
    for key, name in (("recorded", "recording"), ("generate", "generate"), ("built", "build")):
        if row.get(key):
            return "after " + name
    return "before the model was built"


def served_all(row):
    return row.get("recorded") and row.get("calls", 0) > 0 and row.get("served") == row.get("calls")


def totals(rows):
    ran = [r for r in rows if r.get("generate")]
    good = [r for r in ran if not r.get("failure")]
    return dict(architectures=len(rows), built=sum(1 for r in rows if r.get("built")), generate_ok=len(ran),
                served_all=len(good), percent=round(100.0 * len(good) / len(ran), 1) if ran else 0.0)


def cell(text):
    return one_line(text).replace("|", "\\|")


def yes(flag):
    return "yes" if flag else "no"


SECTION_INTRO = {
    "causal": "Every entry of transformers' `MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`, built tiny from its type's default "
              "config (2 layers, hidden 64, 4 heads, vocabulary 1000, seed 0), two `generate()` calls (batch 2, left "
              "padding, prompts of 5 and 8 tokens, 4 new tokens) recorded with `InputRecorder`, then one "
              "`dimscope-cli export --fix-loop`.",
    "seq2seq": "Every entry of `MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES`, built with `AutoModelForSeq2SeqLM` from "
               "the same tiny config, two `generate()` calls on encoder prompts (batch 2, left padding, 5 and 8 "
               "tokens, 4 new tokens), recorded and exported the same way. Speech and audio entries need audio "
               "features, not token ids: their `generate()` on a text prompt fails, and they count as not running.",
    "vlm": "Every entry of `MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES`, built with `AutoModelForImageTextToText` "
           "from the same tiny config (text and vision towers alike; the text model keeps 4096 positions for the "
           "image tokens, and the config's special token ids are moved into the vocabulary), two `generate()` "
           "calls with one image per row (batch 2, left padding: the image's tokens, then 5 or 8 text tokens, "
           "4 new tokens), recorded and exported the same way. The pixels come from the type's own image "
           "processor with its defaults, sized to the vision tower; an image's tokens are as many as the model's "
           "`get_image_features` gives. Where that generic input is not the model's (no image processor, no "
           "`get_image_features`, inputs of its own), `generate()` fails and the row counts as not running.",
}


def markdown(rows, header):
    lines = [
        "# Text-generation architectures: the sweep",
        "",
        "Made by tests/realmodels/sweep.py (`scripts/sweep-architectures`); each architecture is built, recorded "
        "and exported in its own interpreter under a timeout.",
        "",
        "- date: %s" % header["date"],
        "- torch %s, transformers %s, dimscope %s, `dimscope-cli export` arguments added: %s" % (
            header["torch"], header["transformers"], header.get("dimscope", "unknown"),
            " ".join(header["cli_args"]) or "none"),
        "- machine: %d CPUs (nproc), %d job(s) at once, %d s timeout per architecture, %.0f s in all" % (
            header["nproc"], header["jobs"], header["timeout"], header["seconds"]),
    ]
    for rerun in header.get("reruns", []):
        lines.append("- rows run again on %s (%d job(s), %.0f s): %s" % (
            rerun["stamp"], rerun.get("jobs", 1), rerun["seconds"], ", ".join(rerun["architectures"])))
    for note in header.get("notes", []):
        lines.append("- %s" % one_line(note, 1000))
    for kind in KINDS:
        of_kind = [r for r in rows if r.get("kind", "causal") == kind]
        if of_kind:
            lines += [""] + section(kind, of_kind)
    return "\n".join(lines) + "\n"


def section(kind, rows):
    t = totals(rows)
    lines = [
        "## %s" % KINDS[kind][2],
        "",
        SECTION_INTRO[kind],
        "",
        "%d architectures, %d built, %d whose generate() runs; of those, %d (%.1f %%) record and export with "
        "every call served." % (t["architectures"], t["built"], t["generate_ok"], t["served_all"], t["percent"]),
        "",
        "| architecture | built | generate | recorded | served (programs) | failure | decisive line |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        served = "%d of %d (%d)" % (r.get("served", 0), r.get("calls", 0), r.get("programs", 0)) if r.get("recorded") else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            cell(r["architecture"]), yes(r.get("built")), yes(r.get("generate")), yes(r.get("recorded")), served,
            r.get("failure") or "", cell(r.get("line") or "")))
    return lines


def write_atomically(path, text):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def architectures(kind, only, limit):
    from transformers.models.auto import modeling_auto

    mapping = getattr(modeling_auto, KINDS[kind][0])
    names = list(mapping)
    if only:
        unknown = [n for n in only if n not in mapping]
        if unknown:
            raise SystemExit("sweep: not in %s: %s" % (KINDS[kind][0], ", ".join(unknown)))
        names = [n for n in names if n in only]
    return names[:limit] if limit else names


def dimscope_commit():
    try:
        done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


def sweep_main(args):
    import torch
    import transformers

    names = architectures(args.kind, [n for n in (args.only or "").split(",") if n], args.limit)
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="dimscope-sweep-"))
    work.mkdir(parents=True, exist_ok=True)
    print("sweep: %d architecture(s), work folder %s" % (len(names), work), flush=True)
    started = time.monotonic()
    rows = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_one, n, args.kind, work, args.cli, args.cli_arg, args.timeout): n for n in names}
        for future in concurrent.futures.as_completed(futures):
            row = future.result()
            rows[row["architecture"]] = row
            print("sweep: %-28s %-16s %6.1f s  %s" % (row["architecture"], row.get("failure") or "served",
                                                      row["seconds"].get("total", 0), row.get("line", "")), flush=True)
    ordered = [rows[n] for n in names]
    header = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  torch=torch.__version__, transformers=transformers.__version__, dimscope=dimscope_commit(),
                  nproc=os.cpu_count() or 0,
                  jobs=args.jobs, timeout=args.timeout, cli_args=args.cli_arg,
                  seconds=round(time.monotonic() - started, 1))
    out = pathlib.Path(args.out) if args.out else work / "architectures.md"
    if args.merge:
        header, ordered = merged(out.with_suffix(".json"), header, ordered)
    header["totals"] = {kind: totals([r for r in ordered if r.get("kind", "causal") == kind])
                        for kind in KINDS if any(r.get("kind", "causal") == kind for r in ordered)}
    text = markdown(ordered, header)
    data = json.dumps(dict(header=header, rows=ordered), indent=1) + "\n"
    write_atomically(out, text)
    write_atomically(out.with_suffix(".json"), data)
    print("sweep: %s and %s; %s" % (out, out.with_suffix(".json"), header["totals"]), flush=True)
    return 0


def row_key(row):
    """A row's place on the page: its kind and architecture (BART is in both mappings)."""
    return row.get("kind", "causal"), row["architecture"]


def merged(previous_json, header, rows):
    """The page `previous_json` holds with `rows` run again: the earlier header (its
    date, machine and time are the whole sweep's) and rows in their order, each re-run
    row replaced and stamped with this run's date and dimscope commit, listed in the
    header's `reruns`. Refused when the earlier sweep ran on another torch or
    transformers: a page states one pair of versions."""
    try:
        before = json.loads(pathlib.Path(previous_json).read_text())
        old_header, old_rows = before["header"], before["rows"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit("sweep: --merge needs the page's rows in %s: %s" % (previous_json, exc))
    for key in ("torch", "transformers"):
        if old_header.get(key) != header[key]:
            raise SystemExit("sweep: %s holds a sweep on %s %s; this one runs %s: run the whole sweep again"
                             % (previous_json, key, old_header.get(key), header[key]))
    stamp = "%s, dimscope %s" % (header["date"], header["dimscope"])
    fresh = {row_key(r): dict(r, rerun=stamp) for r in rows}
    out = [fresh.pop(row_key(r), r) for r in old_rows]
    out.extend(fresh.values())
    kind = rows[0].get("kind", "causal") if rows else "causal"
    entry = dict(stamp=stamp, architectures=[r["architecture"] for r in rows], seconds=header["seconds"], kind=kind,
                 jobs=header["jobs"])
    reruns = []
    for earlier in old_header.get("reruns", []):
        if earlier.get("stamp") != stamp or earlier.get("kind", "causal") != kind:
            reruns.append(earlier)
            continue
        # Two runs of one kind in the same minute from the same commit: one entry listing both.
        names = list(earlier.get("architectures", []))
        entry["architectures"] = names + [n for n in entry["architectures"] if n not in names]
        entry["seconds"] = round(earlier.get("seconds", 0) + entry["seconds"], 1)
    reruns.append(entry)
    merged_header = dict(old_header, reruns=reruns)
    merged_header.pop("totals", None)
    return merged_header, out


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", help="comma-separated model types (a subset of the mapping)")
    p.add_argument("--limit", type=int, default=0, help="the first N architectures only")
    p.add_argument("--jobs", type=int, default=1, help="architectures at once (default 1)")
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                   help="seconds per architecture (default %d)" % DEFAULT_TIMEOUT)
    p.add_argument("--work", help="folder for captures, exports and logs (default: a new temporary folder)")
    p.add_argument("--out", help="the Markdown page (a .json of the rows beside it); default WORK/architectures.md")
    p.add_argument("--kind", choices=sorted(KINDS), default="causal",
                   help="which mapping to sweep: causal (the default), seq2seq (encoder-decoders) or vlm "
                        "(image-text-to-text, one image per row)")
    p.add_argument("--merge", action="store_true",
                   help="fold this run's rows into the page --out names (its .json), keeping the other rows")
    p.add_argument("--cli", default=os.environ.get("DIMSCOPE_CLI", ""), help="dimscope-cli (default $DIMSCOPE_CLI)")
    p.add_argument("--cli-arg", action="append", default=[], help="one more argument for dimscope-cli export")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not args.cli:
        p.error("no dimscope-cli: pass --cli or set DIMSCOPE_CLI")
    return args


def main(argv=None):
    args = parse(argv if argv is not None else sys.argv[1:])
    if args.worker:
        return worker_main(args.worker, args.kind, args.work, args.cli, args.cli_arg)
    return sweep_main(args)


if __name__ == "__main__":
    sys.exit(main())

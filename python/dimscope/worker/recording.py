# SPDX-License-Identifier: GPL-3.0-or-later
"""The worker's `record` request (docs/worker-protocol.md, "record"; issue 21 item 2):
a model folder or factory and some prompts in, a capture out, with no Python written by
the user. Each batch of prompts is tokenized the way the folder's tokenizer says (left
padding for a decoder-only model), `generate()` runs on it under dimscope's own
`InputRecorder`, and the capture is written into a staging folder beside the output and
renamed into place: a killed worker never leaves a partial capture under the output's
name, and an existing file is replaced only when the request says so.

Nothing here runs code because a file says so: a folder whose config.json or
tokenizer_config.json has `auto_map` (transformers' remote code) is refused unless the
request carries the client's consent for exactly the files that would run.
"""

import hashlib
import json
import os
import resource
import sys
import time

from . import audio, exporter, inputsscript, modelref
from .errors import WorkerError

# Files a transformers tokenizer is read from; a folder with none of them has no tokenizer.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "spiece.model",
                   "vocab.json", "vocab.txt", "sentencepiece.bpe.model")
# The auto classes a folder's architecture is looked up in, in this order (issue 21:
# causal LM first). Each is one transformers knows; none runs a folder's code.
MAX_PROMPT_CHARS = 1 << 20  # one prompt of more than a MiB is not a prompt


class Settings:
    """The request's parameters, checked before anything is loaded. Errors name the field."""

    def __init__(self, params):
        self.model = _string(params, "model")
        self.output = os.path.abspath(_string(params, "output"))
        self.tokenizer = params.get("tokenizer")
        if self.tokenizer is not None and not isinstance(self.tokenizer, str):
            raise WorkerError("bad_request", "record: 'tokenizer' must be a folder path, got %r" % (self.tokenizer,))
        self.inputs_script = params.get("inputs_script")
        self.inputs_script_sha256 = params.get("inputs_script_sha256")
        if self.inputs_script is not None:
            _nothing_a_script_replaces(params)
            self.batches = self.images = self.audio = None
        else:
            self.batches = _batches(params.get("batches"))
            self.images = _per_prompt(params.get("images"), self.batches, "images", "image")
            self.audio = _per_prompt(params.get("audio"), self.batches, "audio", "WAV file")
            if self.images is not None and self.audio is not None:
                raise WorkerError("record_input", "record takes 'images' or 'audio', not both", field="audio")
        scripted = self.inputs_script is not None
        self.max_new_tokens = None if scripted else _positive(params, "max_new_tokens", 8)
        self.num_beams = None if scripted else _positive(params, "num_beams", 1)
        self.max_calls = params.get("calls")
        if self.max_calls is not None:
            self.max_calls = _positive(params, "calls", None)
        self.overwrite = bool(params.get("overwrite", False))
        self.trust_remote_code = params.get("trust_remote_code", False)
        if not isinstance(self.trust_remote_code, (bool, dict)):
            raise WorkerError("bad_request", "record: 'trust_remote_code' must be true, false or {file: sha256}, "
                              "got %r" % (self.trust_remote_code,))


def _string(params, key):
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise WorkerError("bad_request", "record needs %r (a non-empty string), got %r" % (key, value))
    return value


def _positive(params, key, default):
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WorkerError("bad_request", "record: %r must be an integer >= 1, got %r" % (key, value))
    return value


def _batches(batches):
    if not isinstance(batches, list) or not batches:
        raise WorkerError("record_input", "record needs 'batches': a non-empty list of prompt batches "
                          "(one generate() call each)", field="batches")
    for b, batch in enumerate(batches):
        if not isinstance(batch, list) or not batch:
            raise WorkerError("record_input", "batches[%d] is an empty prompt batch: each generate() call needs "
                              "at least one prompt" % b, field="batches[%d]" % b, batch=b)
        for p, prompt in enumerate(batch):
            if not isinstance(prompt, str) or not prompt.strip() or len(prompt) > MAX_PROMPT_CHARS:
                raise WorkerError("record_input", "batches[%d][%d] must be a prompt: text that is not empty or "
                                  "only spaces, at most %d characters" % (b, p, MAX_PROMPT_CHARS),
                                  field="batches[%d][%d]" % (b, p), batch=b, prompt=p)
    return batches


def _per_prompt(files, batches, key, what):
    """None, or one file path per prompt (`images`, `audio`): a list per batch, like `batches`."""
    if files is None:
        return None
    if not isinstance(files, list) or len(files) != len(batches):
        raise WorkerError("record_input", "%r must be a list with one list of %s paths per batch (%d), got %r"
                          % (key, what, len(batches), files), field=key)
    for b, (paths, batch) in enumerate(zip(files, batches)):
        if not isinstance(paths, list) or len(paths) != len(batch) or not all(
                isinstance(path, str) and path for path in paths):
            raise WorkerError("record_input", "%s[%d] must hold one %s path per prompt of batches[%d] (%d)"
                              % (key, b, what, b, len(batch)), field="%s[%d]" % (key, b), batch=b)
    return files


# What an inputs script does itself: the request may not also ask for it.
_SCRIPT_RUNS = ("batches", "images", "audio", "max_new_tokens", "num_beams")


def _nothing_a_script_replaces(params):
    given = [key for key in _SCRIPT_RUNS if params.get(key) is not None]
    if given:
        raise WorkerError("bad_request", "record: an 'inputs_script' runs the model itself; %s cannot be given with "
                          "it" % ", ".join(repr(k) for k in given), field=given[0])


# --- the output -------------------------------------------------------------------


def check_output(settings, inputs):
    """Before the model loads: the capture can be written there and does not replace
    a file the request did not allow it to replace."""
    exporter.check_output(settings.output, inputs)
    if os.path.lexists(settings.output) and not settings.overwrite:
        raise WorkerError("output_exists", "%s exists; the recording would replace it (allow overwriting, or "
                          "choose another file)" % settings.output, field="output")


def write_capture(recorder, settings, recording):
    """Writes the capture into a staging folder beside the output (the export's kind,
    which a client that kills the worker removes), then moves it into place: with
    `overwrite` by rename over the old file, else by a hard link that fails when a file
    appeared meanwhile."""
    from ..capture.file import write_capture as write

    manifest = recorder.manifest()
    manifest["recording"] = recording
    tensors = {}
    for call in recorder._calls:
        tensors.update(call.tensors)
    folder = os.path.dirname(settings.output)
    staging = exporter._make_staging_folder(folder)  # the export's staging folder: one cleanup for both
    try:
        tmp = os.path.join(staging, os.path.basename(settings.output))
        write(tmp, manifest, tensors)
        if settings.overwrite:
            os.replace(tmp, settings.output)
        else:
            _link_new(tmp, settings.output)
    except FileExistsError as e:
        raise WorkerError("output_exists", "%s appeared while recording; it was left as it is" % settings.output,
                          field="output") from e
    except OSError as e:
        raise WorkerError("save_failed", "cannot write %s: %s" % (settings.output, e.strerror or e)) from e
    finally:
        exporter.remove_staging_folder(staging)


def _link_new(tmp, output):
    try:
        os.link(tmp, output)  # never replaces: FileExistsError when the output exists
    except OSError as e:
        if isinstance(e, FileExistsError) or os.path.lexists(output):
            raise FileExistsError(output) from e
        os.rename(tmp, output)  # a file system without hard links


# --- the model folder -------------------------------------------------------------


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError) as e:
        raise WorkerError("bad_model_ref", "%s: cannot read %s: %s" % (path, what, e), field=path) from e
    if not isinstance(value, dict):
        raise WorkerError("bad_model_ref", "%s: %s is not a JSON object" % (path, what), field=path)
    return value


def remote_code_files(folder):
    """{file name: sha256} of the Python files the folder's `auto_map` entries (in
    config.json and tokenizer_config.json) would make transformers run, and the JSON
    files that name them."""
    named, sources = set(), []
    for name in ("config.json", "tokenizer_config.json"):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        auto_map = _read_json(path, name).get("auto_map")
        if not auto_map:
            continue
        sources.append(path)
        for value in _auto_map_values(auto_map):
            module = value.split("--")[-1].rpartition(".")[0]
            if module:
                named.add(module.replace(".", os.sep) + ".py")
    files = {}
    for name in sorted(named):
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as f:
                files[name] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            files[name] = None  # named but absent: transformers would look for it elsewhere
    return files, sources


def _auto_map_values(auto_map):
    if isinstance(auto_map, str):
        yield auto_map
    elif isinstance(auto_map, (list, tuple)):
        for v in auto_map:
            yield from _auto_map_values(v)
    elif isinstance(auto_map, dict):
        for v in auto_map.values():
            yield from _auto_map_values(v)


def consent_to_remote_code(folder, settings, log):
    """Whether transformers may run the folder's own code: False when it has none; True
    when it has some and the request consents to exactly those files; else an error
    that names the files, their hashes and the field that asks for them."""
    files, sources = remote_code_files(folder)
    if not sources:
        return False
    listing = ", ".join("%s (sha256 %s)" % (name, digest or "missing") for name, digest in files.items())
    consent = settings.trust_remote_code
    if consent is True or (isinstance(consent, dict) and consent == files):
        for name, digest in files.items():
            log("running the model folder's own code, with consent: %s (sha256 %s)"
                % (os.path.join(folder, name), digest))
        return True
    why = ("the consent given was for other files or contents (%s)" % json.dumps(consent, sort_keys=True)
           if isinstance(consent, dict) else "no consent was given")
    raise WorkerError("remote_code", "%s: field auto_map asks transformers to run the folder's own Python code: %s. "
                      "dimscope runs no code because a file says so, and %s (trust_remote_code stays off): "
                      "give consent for these files (dimscope-cli record --trust-remote-code) or use a folder "
                      "without auto_map" % (sources[0], listing or "no file named", why),
                      field="auto_map", file=sources[0], code_files=files)


def load_folder(folder, settings, log):
    """(model, config, auto class name, trusted) of a Hugging Face folder."""
    if not os.path.isfile(os.path.join(folder, "config.json")):
        raise WorkerError("bad_model_ref", "%s is a folder without config.json (not a Hugging Face model folder)"
                          % folder, field="model")
    trusted = consent_to_remote_code(folder, settings, log)
    if not _has_transformers():
        modelref._load_hf(folder)  # raises transformers_missing with its message
    import transformers

    try:
        config = transformers.AutoConfig.from_pretrained(folder, trust_remote_code=trusted)
        cls = modelref.auto_class(config, transformers)
        model = cls.from_pretrained(folder, trust_remote_code=trusted)
    except WorkerError:
        raise
    except (ValueError, KeyError, OSError, ImportError) as e:
        raise WorkerError("model_load", "transformers could not load %s: %s" % (folder, e)) from e
    model.eval()
    return model, config, cls.__name__, trusted


def _has_transformers():
    import importlib.util

    return importlib.util.find_spec("transformers") is not None


def load_tokenizer(folder, trusted, what):
    if folder is None:
        raise WorkerError("no_tokenizer", "%s has no tokenizer: give a tokenizer folder ('tokenizer', "
                          "dimscope-cli record --tokenizer FOLDER)" % what, field="tokenizer")
    if not any(os.path.isfile(os.path.join(folder, name)) for name in TOKENIZER_FILES):
        raise WorkerError("no_tokenizer", "%s has no tokenizer (none of %s): record turns the prompts into "
                          "input_ids with the folder's own tokenizer" % (folder, ", ".join(TOKENIZER_FILES)),
                          field="tokenizer", file=folder)
    import transformers

    try:
        return transformers.AutoTokenizer.from_pretrained(folder, trust_remote_code=trusted)
    except (ValueError, KeyError, OSError, ImportError, TypeError) as e:
        raise WorkerError("no_tokenizer", "%s: transformers could not load its tokenizer: %s" % (folder, e),
                          field="tokenizer", file=folder) from e


# --- recording --------------------------------------------------------------------


def max_positions(config):
    for name in ("max_position_embeddings", "n_positions", "max_target_positions", "max_sequence_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return name, value
    text = getattr(config, "text_config", None)
    return max_positions(text) if text is not None else (None, None)


def prepare_tokenizer(tokenizer, model, decoder_only, log):
    """Padding as the folder says, left for a decoder-only model (generate() continues
    every row from its last column), and a pad token where the tokenizer has none."""
    if decoder_only and tokenizer.padding_side != "left":
        log("padding the prompts on the left (the tokenizer says %r): %s is decoder-only, and generate() "
            "continues each row from its last token" % (tokenizer.padding_side, type(model).__name__))
        tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        pad_id = getattr(model.generation_config, "pad_token_id", None)
        if isinstance(pad_id, int):
            tokenizer.pad_token_id = pad_id
        elif tokenizer.eos_token is not None:
            log("the tokenizer has no pad token: padding with its end-of-sequence token %r" % tokenizer.eos_token)
            tokenizer.pad_token = tokenizer.eos_token
        else:
            raise WorkerError("no_tokenizer", "the tokenizer has neither a pad token nor an end-of-sequence token, "
                              "and generation_config has no pad_token_id: batches cannot be padded",
                              field="pad_token")


def load_processor(folder, trusted):
    """The folder's processor (a vision-language model's: its image processor and tokenizer)."""
    import transformers

    try:
        return transformers.AutoProcessor.from_pretrained(folder, trust_remote_code=trusted)
    except (ValueError, KeyError, OSError, ImportError, TypeError) as e:
        raise WorkerError("no_processor", "%s: transformers could not load its processor, which prepares the "
                          "images: %s" % (folder, e), field="processor", file=folder) from e


def open_image(path, b, p):
    """An image file as RGB, read with Pillow (a transformers image processor's own input)."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError as e:
        raise WorkerError("bad_image", "images[%d][%d] %s: the worker's Python has no Pillow to read images"
                          % (b, p, path), field="images[%d][%d]" % (b, p), batch=b, prompt=p, file=path) from e
    try:
        with Image.open(path) as image:
            return image.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError) as e:
        raise WorkerError("bad_image", "images[%d][%d] %s: cannot read the image: %s" % (b, p, path, e),
                          field="images[%d][%d]" % (b, p), batch=b, prompt=p, file=path) from e


def _encode(prepare, settings, b, log):
    """One batch through the tokenizer, the processor with its images, or the feature
    extractor with its audio."""
    batch = settings.batches[b]
    if settings.audio is not None:
        return _encode_audio(prepare, settings, b, log)
    if settings.images is None:
        return prepare(batch, return_tensors="pt", padding=True)
    images = [open_image(path, b, p) for p, path in enumerate(settings.images[b])]
    try:
        return prepare(text=batch, images=images, return_tensors="pt", padding=True)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise WorkerError("bad_image", "images[%d]: the processor rejected batches[%d] with its images: %s"
                          % (b, b, _first_line(e)), field="images[%d]" % b, batch=b) from e


def _first_line(e):
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def load_feature_extractor(folder, trusted):
    """The folder's feature extractor (preprocessor_config.json), which turns audio into
    the speech model's input features."""
    import transformers

    try:
        return transformers.AutoFeatureExtractor.from_pretrained(folder, trust_remote_code=trusted)
    except (ValueError, KeyError, OSError, ImportError, TypeError) as e:
        raise WorkerError("no_processor", "%s: transformers could not load its feature extractor, which prepares "
                          "the audio: %s" % (folder, e), field="feature_extractor", file=folder) from e


def _encode_audio(extractor, settings, b, log):
    rate = getattr(extractor, "sampling_rate", None)
    clips = [audio.read_wav(path, b, p, rate, log) for p, path in enumerate(settings.audio[b])]
    try:
        return extractor(clips, sampling_rate=rate, return_tensors="pt", return_attention_mask=True)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise WorkerError("bad_audio", "audio[%d]: the feature extractor rejected the audio of batches[%d]: %s"
                          % (b, b, _first_line(e)), field="audio[%d]" % b, batch=b) from e


def encode_batches(prepare, model, config, settings, where, log):
    """The prepared batches (`prepare`: the tokenizer, the processor for prompts with
    images, the feature extractor for audio), each prompt's tokens checked against the
    model's position limit."""
    import inspect

    accepted = set(inspect.signature(model.forward).parameters)
    field, limit = max_positions(config)
    encoded = []
    for b, batch in enumerate(settings.batches):
        enc = dict(_encode(prepare, settings, b, log))
        enc = {k: v for k, v in enc.items() if k in accepted or k in ("input_ids", "attention_mask")}
        if limit is not None and "input_ids" in enc:
            for p, prompt in enumerate(batch):
                # the tokens the model sees: an image's placeholder expanded, no padding
                n = int(enc["attention_mask"][p].sum()) if "attention_mask" in enc else int(enc["input_ids"].shape[1])
                if n + settings.max_new_tokens > limit:
                    raise WorkerError(
                        "prompt_too_long", "batches[%d][%d]: %d tokens + %d new tokens > %s %d of %s"
                        % (b, p, n, settings.max_new_tokens, field, limit, where),
                        field="batches[%d][%d]" % (b, p), batch=b, prompt=p, tokens=n, limit=limit,
                        limit_field=field)
        encoded.append(enc)
    return encoded


class ForwardCounter:
    """Progress per forward call: a forward hook on the model (the recorder wraps the
    instance's forward; a hook runs around it on every call generate() or the inputs
    script makes). `what` names the part running ("generate() call 1 of 2")."""

    def __init__(self, settings, progress):
        self.settings, self.progress = settings, progress
        self.seen, self.what = 0, ""

    def __call__(self, module, args, output):
        self.seen += 1
        cap = self.settings.max_calls
        kept = self.seen if cap is None else min(self.seen, cap)
        self.progress("record", "%s: forward call %d (%d kept)" % (self.what, self.seen, kept), None)


# torch's allocator failure (CUDA, large CPU tensors) and Python's own.
_OUT_OF_MEMORY = (MemoryError,)


def _batch_text(enc):
    """'2 prompt(s), 6 token(s) each', or for audio '2 clip(s), 100 feature frame(s) each'."""
    if "input_ids" in enc:
        return "%d prompt(s), %d token(s) each" % tuple(enc["input_ids"].shape[:2])
    features = next(v for k, v in enc.items() if k != "attention_mask")
    return "%d clip(s), %d feature frame(s) each" % (features.shape[0], features.shape[-1])


def run_generate(model, encoded, settings, counter, progress, where):
    import torch

    out_of_memory = tuple(getattr(torch, n) for n in ("OutOfMemoryError",) if hasattr(torch, n)) + _OUT_OF_MEMORY
    pad_id = getattr(model.generation_config, "pad_token_id", None)
    for b, enc in enumerate(encoded):
        counter.what = "generate() call %d of %d" % (b + 1, len(encoded))
        progress("generate", "%s: %s" % (counter.what, _batch_text(enc)), b / len(encoded))
        try:
            with torch.no_grad():
                model.generate(**enc, max_new_tokens=settings.max_new_tokens, num_beams=settings.num_beams,
                               do_sample=False, pad_token_id=pad_id)
        except out_of_memory as e:
            raise WorkerError("out_of_memory", "batches[%d]: generate() ran out of memory on %s (%s, %d new "
                              "token(s), %d beam(s)): %s" % (b, where, _batch_text(enc), settings.max_new_tokens,
                                                             settings.num_beams, _first_line(e)),
                              field="batches[%d]" % b, batch=b) from e
    progress("generate", "%d generate() call(s) done" % len(encoded), 1.0)


class PeakMemory:
    """The worker's peak resident memory over one request. Linux resets a process's
    high-water mark (VmHWM) when "5" is written to /proc/self/clear_refs: the peak is
    then this request's, not that of an export the same worker ran before (`scope`
    "request"). Elsewhere, or where that is refused, it is the process's peak since it
    started (getrusage; `scope` "process")."""

    def __init__(self):
        self.scope = "process"
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.scope = "request"
        except OSError:
            pass

    def peak_bytes(self):
        if self.scope == "request":
            try:
                with open("/proc/self/status") as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            return int(line.split()[1]) * 1024
            except (OSError, ValueError, IndexError):
                pass
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere


def load_model(settings, resolved, log):
    """(model, config, auto class name or None, trusted, tokenizer folder or None)."""
    if resolved.kind == "folder":
        model, config, auto_name, trusted = load_folder(resolved.target, settings, log)
        return model, config, auto_name, trusted, settings.tokenizer or resolved.target
    model = modelref.load_model(settings.model)
    model.eval()
    return model, getattr(model, "config", None), None, False, settings.tokenizer


def record_generate(model, config, settings, folder, trusted, where, recorder, counter, progress, log):
    """generate() on each batch, under the recorder; what the recording's metadata adds."""
    if not hasattr(model, "generate"):
        raise WorkerError("model_load", "%s is a %s, which has no generate(): record drives generate() (an inputs "
                          "script can run it otherwise)" % (settings.model, type(model).__name__), field="model")
    if settings.audio is not None:
        if folder is None:
            raise WorkerError("no_processor", "%s has no feature extractor to prepare the audio: give the folder "
                              "that has it ('tokenizer', dimscope-cli record --tokenizer FOLDER)" % settings.model,
                              field="tokenizer")
        prepare, padding_side = load_feature_extractor(folder, trusted), None
    else:
        tokenizer = load_tokenizer(folder, trusted, settings.model)
        processor = load_processor(folder, trusted) if settings.images is not None else None
        if processor is not None and getattr(processor, "tokenizer", None) is not None:
            tokenizer = processor.tokenizer  # the one the processor pads with
        prepare_tokenizer(tokenizer, model, not getattr(config, "is_encoder_decoder", False), log)
        prepare, padding_side = processor or tokenizer, tokenizer.padding_side
    encoded = encode_batches(prepare, model, config, settings, where, log)
    with recorder(model):
        run_generate(model, encoded, settings, counter, progress, "cpu")
    return {"padding_side": padding_side, "generate_calls": len(encoded)}


def script_processor(folder, trusted):
    """What an inputs script gets besides the model: the folder's processor, its
    tokenizer when it has none, or None (no folder, or nothing loads)."""
    if folder is None or not any(os.path.isfile(os.path.join(folder, name))
                                 for name in TOKENIZER_FILES + ("processor_config.json", "preprocessor_config.json")):
        return None
    try:
        return load_processor(folder, trusted)
    except WorkerError:
        return load_tokenizer(folder, trusted, folder)


def record_script(model, settings, script, folder, trusted, recorder, counter, progress):
    processor = script_processor(folder, trusted)
    inputsscript.load(script)
    counter.what = "inputs script"
    progress("run_script", "running %s on %s" % (script.ref, type(model).__name__), None)
    with recorder(model):
        inputsscript.run(script, model, processor)
    return {"padding_side": getattr(processor, "padding_side", None), "generate_calls": None,
            "processor_class": None if processor is None else type(processor).__name__}


def record(params, progress, log):
    """Serves a `record` request; returns its result (docs/worker-protocol.md)."""
    from ..capture import InputRecorder

    started, memory = time.perf_counter(), PeakMemory()
    settings = Settings(params)
    resolved = modelref.resolve(settings.model)
    script = (inputsscript.resolve(settings.inputs_script, settings.inputs_script_sha256)
              if settings.inputs_script is not None else None)
    inputs = [("the model", os.path.join(resolved.target, "config.json")) if resolved.kind == "folder"
              else ("the model file", resolved.origin or "")]
    check_output(settings, inputs + ([("the inputs script", script.origin or "")] if script else []))
    if settings.audio is not None:
        audio.check_files(settings.audio)  # a missing or unreadable file is named before a model loads
    progress("load_model", "loading %s" % settings.model, None)
    model, config, auto_name, trusted, folder = load_model(settings, resolved, log)
    where = os.path.join(resolved.target, "config.json") if resolved.kind == "folder" else settings.model
    recorder = InputRecorder(store_n_calls=settings.max_calls or (1 << 30))
    counter = ForwardCounter(settings, progress)
    hook = model.register_forward_hook(counter)
    try:
        if script is not None:
            ran = record_script(model, settings, script, folder, trusted, recorder, counter, progress)
        else:
            ran = record_generate(model, config, settings, folder, trusted, where, recorder, counter, progress, log)
    finally:
        hook.remove()
    if recorder.num_calls == 0:
        raise WorkerError("record_input", "%s made no forward call of the model: nothing was recorded"
                          % ("the inputs script" if script else "generate()"),
                          field="inputs_script" if script else "batches")
    recording = {
        "model": settings.model, "model_kind": resolved.kind, "auto_class": auto_name,
        "model_class": "%s.%s" % (type(model).__module__, type(model).__qualname__),
        "tokenizer": folder, "padding_side": ran["padding_side"], "batches": settings.batches,
        "images": settings.images, "audio": settings.audio,
        "inputs_script": settings.inputs_script,
        "inputs_script_sha256": _sha256_of(script.origin) if script and script.origin else None,
        "max_new_tokens": settings.max_new_tokens, "num_beams": settings.num_beams,
        "max_calls": settings.max_calls, "forward_calls": counter.seen, "generate_calls": ran["generate_calls"],
        "trust_remote_code": trusted,
    }
    progress("save", "writing %s" % settings.output, None)
    write_capture(recorder, settings, recording)
    return {"output": settings.output, "calls": recorder.num_calls, "forward_calls": counter.seen,
            "generate_calls": ran["generate_calls"], "model_class": recording["model_class"], "auto_class": auto_name,
            "padding_side": ran["padding_side"], "inputs_script": settings.inputs_script,
            "seconds": time.perf_counter() - started, "max_rss_bytes": memory.peak_bytes(),
            "max_rss_scope": memory.scope}


def _sha256_of(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None

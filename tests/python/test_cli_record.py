# SPDX-License-Identifier: GPL-3.0-or-later
"""`dimscope-cli record` end to end (issue 21 items 2 and 5): real tiny Llama, T5,
LLaVA and Whisper folders made at test time (seeded configs saved with save_pretrained,
a word-level tokenizer trained with the `tokenizers` library, a CLIP image processor, a
Whisper feature extractor), two prompt blocks (or WAV files, or an inputs script)
recorded by the export worker's `record` request, the capture inspected, exported with
--fix-loop (every call served), and the refusals that must leave no file behind. One
recording per model, shared by the module's tests. Nothing is mocked."""

import hashlib
import json
import os
import re
import signal
import subprocess
import time

import pytest

pytest.importorskip("transformers")
pytest.importorskip("tokenizers")
from conftest import CLI, HERE, cli, needs_cli  # noqa: E402
import modelfolders  # noqa: E402

pytestmark = needs_cli

PROMPTS = "the cat sat on the mat\na dog ran\n\nwhat is the shape of a tensor\nthe bird sang a song in the tree\n"
BATCHES = [["the cat sat on the mat", "a dog ran"],
           ["what is the shape of a tensor", "the bird sang a song in the tree"]]
NEW_TOKENS = 3


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return modelfolders.llama(str(tmp_path_factory.mktemp("models") / "tiny-llama"))


@pytest.fixture(scope="module")
def recorded(folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("recorded")
    prompts = out / "prompts.txt"
    prompts.write_text(PROMPTS)
    capture, project = out / "tiny-llama.safetensors", out / "tiny-llama.dimscope"
    done = cli("record", "--model", folder, "--prompts", prompts, "--max-new-tokens", NEW_TOKENS,
               "-o", capture, "--project", project, timeout=600)
    return done, out, capture, project


def left_in(folder):
    return sorted(os.listdir(folder))


def test_record_writes_the_capture_and_the_project(recorded, folder):
    done, out, capture, project = recorded
    assert done.returncode == 0, done.stdout + done.stderr
    # progress per generate() call and per forward call, on stderr
    assert "[generate] generate() call 1 of 2: 2 prompt(s)" in done.stderr, done.stderr
    assert "[generate] generate() call 2 of 2: 2 prompt(s)" in done.stderr, done.stderr
    assert re.search(r"^\[record\] generate\(\) call 2 of 2: forward call 6 \(6 kept\)$", done.stderr, re.M), done.stderr
    assert "recorded 6 of 6 forward call(s) in 2 generate() call(s) into %s" % capture in done.stdout, done.stdout
    assert "padding left" in done.stdout
    # wall time and the worker's peak memory while it recorded (issue 21 item 2)
    assert re.search(r"^  time \d+\.\d s, peak memory \d+ MiB \(the worker, while recording\)$", done.stdout, re.M), \
        done.stdout
    # the capture, the project and the prompts: no staging folder or temporary file left
    assert left_in(out) == ["prompts.txt", "tiny-llama.dimscope", "tiny-llama.safetensors"]
    proj = json.loads(project.read_text())
    assert proj["format"] == "dimscope.project", proj
    assert os.path.realpath(os.path.join(out, proj["model"])) == os.path.realpath(folder), proj["model"]
    assert proj["capture"] == "tiny-llama.safetensors", proj
    assert {d["name"] for d in proj["constraints"]["dims"]} >= {"batch", "past_len"}, proj["constraints"]


def test_inspect_shows_the_calls_and_what_made_them(recorded, folder):
    _, _, capture, _ = recorded
    done = cli("inspect", capture, "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    # two generate() calls of 3 new tokens: a prefill and two decode steps each
    assert len(info["calls"]) == 6, [c["summary"] for c in info["calls"]]
    paths = [leaf["path"] for leaf in info["leaves"]]
    assert paths[:2] == ["input_ids", "attention_mask"], paths
    assert any(p.startswith("past_key_values.") for p in paths), paths
    ids = next(leaf for leaf in info["leaves"] if leaf["path"] == "input_ids")
    # left-padded batches of 2: 6 and 8 tokens (words), then one token per step
    assert [c["shape"] for c in ids["calls"]] == [[2, 6], [2, 1], [2, 1], [2, 8], [2, 1], [2, 1]], ids["calls"]
    recording = info["recording"]
    assert recording["batches"] == BATCHES
    assert recording["model"] == folder and recording["auto_class"] == "AutoModelForCausalLM"
    assert (recording["max_new_tokens"], recording["num_beams"], recording["max_calls"]) == (NEW_TOKENS, 1, None)
    assert recording["padding_side"] == "left" and recording["forward_calls"] == 6
    human = cli("inspect", capture)
    assert human.returncode == 0, human.stderr
    assert "recorded:    %s (AutoModelForCausalLM), max_new_tokens 3, num_beams 1" % folder in human.stdout
    assert "  generate() call 2: 'what is the shape of a tensor' | 'the bird sang a song in the tree'" in human.stdout


def test_the_recording_exports_with_every_call_served(recorded, folder, tmp_path):
    """`record` then `export`, as a user types them in the capture's folder: relative
    --capture and -o (the continuation program's request carried the relative capture
    into the worker's private folder: 'phase skipped: … capture file … does not exist')."""
    _, out, capture, _ = recorded
    os.symlink(capture, tmp_path / capture.name)
    done = cli("export", "--model", folder, "--capture", capture.name, "--fix-loop", "--json", "llama.json",
               "-o", "llama.pt2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "every captured call (6) replays" in done.stdout, done.stdout[-3000:]
    assert "phase skipped" not in done.stderr, done.stderr[-3000:]
    assert "continuation: several new tokens on a non-empty cache" in done.stdout + done.stderr, done.stdout[-3000:]
    # --fix-loop probes every program's declared ranges (issue 24 item 3): the tiny Llama's
    # prefill, decode and continuation programs serve every probe, the lengths up to the
    # config's max_position_embeddings (64), the batch up to 4x its largest recorded size
    # (positions say nothing of it), the continuation's mask length moved with its cache and input
    report = json.loads((tmp_path / "llama.json").read_text())
    for program in report["programs"]:
        probes = program["probes"]
        assert probes["dims"] and {p["status"] for p in probes["probes"]} == {"served"}, probes
        dims = {d["dim"]: d for d in probes["dims"]}
        batch = dims.pop("batch")
        assert batch["declared"] == [1, None] and batch.get("batch_like"), batch
        largest = max(batch["recorded"])
        assert (batch["cap"], batch["cap_source"]) == (4 * largest, "4x the largest recorded, %d" % largest), batch
        assert max(batch["served"]) == 4 * largest, batch
        assert all(d["cap"] == 64 and d["cap_source"] == "config.max_position_embeddings" and not d.get("batch_like")
                   for d in dims.values()), dims
    assert re.search(r"^probes, \S+llama.pt2, program phase2: seq_len \(declared 2\.\.oo\): 2\.\.64 served "
                     r"\(cap 64: config\.max_position_embeddings\)$", done.stdout, re.M), done.stdout[-3000:]
    assert re.search(r"^probes, \S+llama.pt2, program phase2: batch \(declared 1\.\.oo\): 1\.\.(\d+) served "
                     r"\(cap \1: 4x the largest recorded, \d+\)$", done.stdout, re.M), done.stdout[-3000:]



def test_export_loads_a_folder_as_the_class_recording_used(tmp_path):
    """The worker's export loads a model folder through the same auto class as record
    (modelref.auto_class): a T5 folder is a T5ForConditionalGeneration for both, where
    export used to fall back to AutoModel's T5Model (no LM head: another model than the
    one recorded)."""
    from dimscope.worker import modelref

    t5 = modelfolders.t5(str(tmp_path / "tiny-t5"))
    assert type(modelref._load_hf(t5)).__name__ == "T5ForConditionalGeneration"

@pytest.fixture(scope="module")
def t5_recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("t5")
    t5 = modelfolders.t5(str(out / "tiny-t5"))
    prompts = out / "prompts.txt"
    prompts.write_text(PROMPTS)
    capture = out / "t5.safetensors"
    done = cli("record", "--model", t5, "--prompts", prompts, "--max-new-tokens", 2, "--num-beams", 2,
               "-o", capture, timeout=600)
    return done, t5, capture


def test_an_encoder_decoder_folder_records_with_beams(t5_recorded):
    """T5: the seq2seq auto class, the tokenizer's own (right) padding, two beams."""
    done, t5, capture = t5_recorded
    assert done.returncode == 0, done.stdout + done.stderr
    assert "padding right" in done.stdout
    info = json.loads(cli("inspect", capture, "--json").stdout)
    assert info["recording"]["auto_class"] == "AutoModelForSeq2SeqLM" and info["recording"]["num_beams"] == 2
    ids = {leaf["path"]: leaf for leaf in info["leaves"]}["decoder_input_ids"]
    # the decoder's start token, then one token per step, for 2 prompts x 2 beams
    assert [c["shape"] for c in ids["calls"]] == [[4, 1]] * 4, ids["calls"]
    analyzed = cli("analyze", capture)
    assert analyzed.returncode == 0, analyzed.stdout + analyzed.stderr


def exports_every_call(model, capture, out, calls, *extra):
    """`dimscope-cli export --fix-loop` of a recording (issue 21: "record from each folder
    ..., then analyze and export --fix-loop: every call served")."""
    done = cli("export", "--model", model, "--capture", capture, "--fix-loop", *extra, "-o", out / "program.pt2")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "every captured call (%d) replays" % calls in done.stdout, done.stdout[-3000:]
    return done


def test_the_t5_recording_exports_with_every_call_served(t5_recorded, tmp_path):
    """An encoder-decoder has no continuation program (--no-continuation: nothing to skip)."""
    done, t5, capture = t5_recorded
    assert done.returncode == 0, done.stdout + done.stderr
    exports_every_call(t5, capture, tmp_path, 4, "--no-continuation")


@pytest.fixture(scope="module")
def llava(tmp_path_factory):
    pytest.importorskip("PIL")
    folder = tmp_path_factory.mktemp("vlm")
    model = modelfolders.llava(str(folder / "tiny-llava"))
    images = [modelfolders.image(str(folder / name), size, colour)
              for name, size, colour in (("red.png", (20, 24), (200, 30, 40)), ("blue.png", (16, 16), (0, 0, 255)),
                                         ("grey.png", (32, 20), (90, 90, 90)))]
    return model, images


@pytest.fixture(scope="module")
def llava_recorded(llava, tmp_path_factory):
    model, (red, blue, grey) = llava
    out = tmp_path_factory.mktemp("llava-recorded")
    prompts = out / "prompts.txt"
    prompts.write_text("<image> the cat sat\n<image> a dog\n\n<image> what is the shape of a tensor\n")
    capture = out / "llava.safetensors"
    done = cli("record", "--model", model, "--prompts", prompts, "--image", red, "--image", blue, "--image", grey,
               "--max-new-tokens", 2, "-o", capture, timeout=600)
    return done, capture


def test_a_vision_language_folder_records_an_image_per_prompt(llava, llava_recorded):
    """LLaVA: the image-text-to-text auto class, the folder's processor prepares each
    prompt's image, the prompts are padded on the left."""
    model, (red, blue, grey) = llava
    done, capture = llava_recorded
    assert done.returncode == 0, done.stdout + done.stderr
    assert "padding left" in done.stdout
    info = json.loads(cli("inspect", capture, "--json").stdout)
    recording = info["recording"]
    assert recording["auto_class"] == "AutoModelForImageTextToText", recording
    assert recording["images"] == [[red, blue], [grey]], recording
    leaves = {leaf["path"]: leaf for leaf in info["leaves"]}
    # one 16x16 image per prompt in each prefill, none in the decode steps
    shapes = [c and c["shape"] for c in leaves["pixel_values"]["calls"]]
    assert shapes == [[2, 3, 16, 16], None, [1, 3, 16, 16], None], shapes
    # the image placeholder expands to 5 tokens (4 patches and the class token)
    assert [c["shape"] for c in leaves["input_ids"]["calls"]] == [[2, 8], [2, 1], [1, 12], [1, 1]], leaves["input_ids"]


def test_the_llava_recording_exports_with_every_call_served(llava, llava_recorded, tmp_path):
    """Batch 2 then batch 1, each with its images: the prefill at batch 1 gets a program
    of its own. No continuation program (the cheapest export that serves every call)."""
    done, capture = llava_recorded
    assert done.returncode == 0, done.stdout + done.stderr
    exports_every_call(llava[0], capture, tmp_path, 4, "--no-continuation")


def test_a_missing_image_names_its_prompt(llava, tmp_path):
    model, (red, _, _) = llava
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("<image> the cat\n<image> a dog\n")
    missing = tmp_path / "gone.png"
    err = record_fails("--model", model, "--prompts", prompts, "--image", red, "--image", missing,
                       "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: bad_image: prompts.txt:2: images[0][1] %s: cannot read the image" % missing in err, err
    err = record_fails("--model", model, "--prompts", prompts, "--image", red, "-o", tmp_path / "c.safetensors",
                       out=tmp_path)
    assert "dimscope-cli record: 1 --image for 2 prompt(s): give one image per prompt" in err, err


def record_fails(*args, out):
    """Runs record expecting a refusal: exit 2, one error line, nothing left in `out`."""
    before = left_in(out)
    done = cli("record", *args, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert left_in(out) == before, done.stderr
    return done.stderr


def test_folder_without_tokenizer_is_refused(tmp_path):
    bare = modelfolders.llama(str(tmp_path / "no-tokenizer"), with_tokenizer=False)
    err = record_fails("--model", bare, "--prompt", "the cat", "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: no_tokenizer: %s has no tokenizer (none of tokenizer.json" % bare in err, err


def test_empty_prompt_block_is_refused_before_anything_runs(folder, tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("the cat\n\n\na dog\n")
    err = record_fails("--model", folder, "--prompts", prompts, "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: %s:3: an empty prompt block" % prompts in err, err
    assert "[generate]" not in err


def test_existing_output_is_kept_without_overwrite(folder, tmp_path):
    existing = tmp_path / "c.safetensors"
    existing.write_text("mine")
    err = record_fails("--model", folder, "--prompt", "the cat", "-o", existing, out=tmp_path)
    assert "-o %s exists; give --overwrite to replace it" % existing in err, err
    assert existing.read_text() == "mine"


def test_prompt_longer_than_the_model_takes_names_its_line(folder, tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("the cat\n\na dog\n" + " ".join(["the cat sat on the mat"] * 11) + "\n")
    err = record_fails("--model", folder, "--prompts", prompts, "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert re.search(r"dimscope-cli record: prompt_too_long: prompts.txt:4: batches\[1\]\[1\]: 66 tokens \+ 8 new "
                     r"tokens > max_position_embeddings 64 of .*config.json", err), err


def test_auto_map_folder_runs_no_code_without_consent(tmp_path):
    remote = modelfolders.llama(str(tmp_path / "remote"))
    marker = tmp_path / "ran.txt"
    modelfolders.add_auto_map(remote, marker)
    err = record_fails("--model", remote, "--prompt", "the cat", "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: remote_code: %s: field auto_map asks transformers to run the folder's own " \
           "Python code: modeling_custom.py (sha256 " % os.path.join(remote, "config.json") in err, err
    assert "no consent was given" in err
    assert not marker.exists()


def test_the_worker_refuses_what_the_cli_would_have(folder, tmp_path):
    """The `record` request checks its own params (a GUI or another client sends them):
    an empty batch, and an existing output without overwrite, before any model loads."""
    from workerproc import WorkerProcess

    existing = tmp_path / "c.safetensors"
    existing.write_text("mine")
    worker = WorkerProcess()
    try:
        ev, _ = worker.request("record", model=folder, batches=[["the cat"], []], output=str(tmp_path / "n.st"))
        assert ev["event"] == "error" and ev["error"]["kind"] == "record_input", ev
        assert (ev["error"]["field"], ev["error"]["batch"]) == ("batches[1]", 1), ev
        ev, _ = worker.request("record", model=folder, batches=[["the cat"]], output=str(existing))
        assert ev["event"] == "error" and ev["error"]["kind"] == "output_exists", ev
        assert ev["error"]["message"].startswith("%s exists" % existing), ev
        # consent given for other contents than the folder's code has now: refused
        remote = modelfolders.llama(str(tmp_path / "remote"))
        modelfolders.add_auto_map(remote, tmp_path / "ran.txt")
        ev, _ = worker.request("record", model=remote, batches=[["the cat"]], output=str(tmp_path / "n.st"),
                               trust_remote_code={"modeling_custom.py": "0" * 64})
        assert ev["event"] == "error" and ev["error"]["kind"] == "remote_code", ev
        assert "the consent given was for other files or contents" in ev["error"]["message"], ev
        assert list(ev["error"]["code_files"]) == ["modeling_custom.py"], ev
        # audio for a factory model: the feature extractor is in the folder 'tokenizer' names
        factory = tmp_path / "factory.py"
        factory.write_text(SLOW_FACTORY.replace("time.sleep(1.5)", "None") % folder)
        clip = modelfolders.wav(str(tmp_path / "a.wav"), 0.1)
        ev, _ = worker.request("record", model="%s:make" % factory, batches=[["a clip"]], audio=[[clip]],
                               output=str(tmp_path / "n.st"))
        assert ev["event"] == "error" and ev["error"]["kind"] == "no_processor", ev
        assert ev["error"]["field"] == "tokenizer" and "no feature extractor" in ev["error"]["message"], ev
    finally:
        worker.close()
    assert left_in(tmp_path) == ["a.wav", "c.safetensors", "factory.py", "remote"] and existing.read_text() == "mine"
    assert not (tmp_path / "ran.txt").exists()


def test_export_of_an_auto_map_folder_never_asks_on_the_protocol(recorded, tmp_path):
    """A folder whose auto_map names a model type transformers does not know: the export
    fails with model_load; transformers is told no rather than left to ask on stdin
    (the worker's protocol channel), and nothing of the folder runs."""
    _, _, capture, _ = recorded
    remote = modelfolders.llama(str(tmp_path / "remote"))
    marker = tmp_path / "ran.txt"
    modelfolders.add_auto_map(remote, marker)
    config = json.loads((tmp_path / "remote" / "config.json").read_text())
    config["model_type"] = "dimscope-test-unknown"
    config["auto_map"]["AutoConfig"] = "modeling_custom.CustomConfig"  # only the folder's code can read it
    (tmp_path / "remote" / "config.json").write_text(json.dumps(config))
    done = cli("export", "--model", remote, "--capture", capture, "-o", tmp_path / "x.pt2", timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "model_load" in done.stderr and "trust_remote_code" in done.stderr, done.stderr
    assert "Do you wish to run the custom code" not in done.stdout + done.stderr
    assert not marker.exists() and not (tmp_path / "x.pt2").exists()


CONSENTED_CODE = '''
from transformers import LlamaForCausalLM

open(%r, "w").write("ran")


class CustomForCausalLM(LlamaForCausalLM):
    pass
'''


def test_auto_map_folder_runs_its_code_with_consent(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "modules"))  # where transformers copies the code
    remote = modelfolders.llama(str(tmp_path / "remote"))
    marker = tmp_path / "ran.txt"
    modelfolders.add_auto_map(remote, marker)
    (tmp_path / "remote" / "modeling_custom.py").write_text(CONSENTED_CODE % str(marker))
    capture = tmp_path / "c.safetensors"
    done = cli("record", "--model", remote, "--prompt", "the cat", "--prompt", "a dog ran", "--max-new-tokens", 2,
               "--trust-remote-code", "-o", capture, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert marker.read_text() == "ran"
    assert re.search(r"running the model folder's own code, with consent: .*/remote/modeling_custom.py "
                     r"\(sha256 [0-9a-f]{64}\)", done.stderr), done.stderr
    assert "model: transformers_modules." in done.stdout and ".CustomForCausalLM" in done.stdout, done.stdout
    info = json.loads(cli("inspect", capture, "--json").stdout)
    assert info["recording"]["trust_remote_code"] is True


SLOW_FACTORY = '''
import time
from transformers import AutoModelForCausalLM


def make():
    model = AutoModelForCausalLM.from_pretrained(%r)
    model.register_forward_pre_hook(lambda module, args: time.sleep(1.5))
    return model
'''


def test_interrupt_stops_the_worker_and_leaves_no_file(folder, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    factory = tmp_path / "slow_model.py"
    factory.write_text(SLOW_FACTORY % folder)
    env = dict(os.environ, PYTHONPATH=str(HERE))
    proc = subprocess.Popen([CLI, "record", "--model", "%s:make" % factory, "--tokenizer", folder,
                             "--prompt", "the cat", "--prompt", "a dog ran", "--max-new-tokens", "8",
                             "-o", str(out / "c.safetensors")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    err = ""
    deadline = time.monotonic() + 120
    while "forward call 1 " not in err and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        err += line
    assert "[record] generate() call 1 of 1: forward call 1 (1 kept)" in err, err
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=60)
    err += rest
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "dimscope-cli record: interrupted by SIGINT: the worker was stopped, nothing was written" in err, err
    assert left_in(out) == [], left_in(out)


# --- an inputs script (issue 21 item 1: "for anything else, an inputs script") -------

INPUTS_SCRIPT = '''
from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class Batch:  # a dataclass looks its module up in sys.modules: the script is imported as a module
    prompts: list[str]


def calls(model, tokenizer):
    """Forward calls generate() would not make: whole prompts without a cache, at batch 2
    and then 3."""
    for batch in (Batch(["the cat sat on the mat", "a dog ran"]),
                  Batch(["what is the shape of a tensor", "the bird sang", "a small model reads short prompts"])):
        enc = tokenizer(batch.prompts, return_tensors="pt", padding=True)
        model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], use_cache=False)
'''

FAILING_SCRIPT = '''
def calls(model):
    model.config.vocab_size  # the model is there
    raise ValueError("no prompts today\\x1b[2J")
'''


@pytest.fixture(scope="module")
def script_recorded(folder, tmp_path_factory):
    """The Llama folder driven by an inputs script named relative to the folder the
    command runs in, as a user types it."""
    out = tmp_path_factory.mktemp("scripted")
    (out / "calls.py").write_text(INPUTS_SCRIPT)
    done = cli("record", "--model", folder, "--inputs-script", "calls.py:calls", "-o", "scripted.safetensors",
               timeout=600, cwd=out)
    return done, out


def test_an_inputs_script_records_every_forward_call_it_makes(script_recorded, folder):
    done, out = script_recorded
    assert done.returncode == 0, done.stdout + done.stderr
    script = "%s:calls" % (out / "calls.py")
    assert "[run_script] running %s on LlamaForCausalLM" % script in done.stderr, done.stderr
    assert re.search(r"^\[record\] inputs script: forward call 2 \(2 kept\)$", done.stderr, re.M), done.stderr
    assert "recorded 2 of 2 forward call(s) of the inputs script %s into %s" % (
        script, out / "scripted.safetensors") in done.stdout, done.stdout
    assert re.search(r"^  time \d+\.\d s, peak memory \d+ MiB \(the worker, while recording\)$", done.stdout, re.M)
    info = json.loads(cli("inspect", out / "scripted.safetensors", "--json").stdout)
    recording = info["recording"]
    assert recording["inputs_script"] == script and recording["batches"] is None, recording
    assert recording["inputs_script_sha256"] == hashlib.sha256((out / "calls.py").read_bytes()).hexdigest()
    assert (recording["max_new_tokens"], recording["generate_calls"]) == (None, None), recording
    ids = {leaf["path"]: leaf for leaf in info["leaves"]}["input_ids"]
    assert [c["shape"] for c in ids["calls"]] == [[2, 6], [3, 7]], ids["calls"]
    human = cli("inspect", out / "scripted.safetensors").stdout
    assert "  inputs script: %s (sha256 %s)" % (script, recording["inputs_script_sha256"]) in human, human


def test_the_inputs_script_recording_exports_with_every_call_served(script_recorded, folder, tmp_path):
    done, out = script_recorded
    assert done.returncode == 0, done.stdout + done.stderr
    exports_every_call(folder, out / "scripted.safetensors", tmp_path, 2)


def test_an_inputs_script_that_raises_names_its_line(folder, tmp_path):
    """The script's exception comes back with its file and line, escaped; exit 1 (the run
    failed, as a factory that raises), nothing written. A missing script and prompts
    given with a script are the user's mistakes (exit 2), refused before a model loads."""
    script = tmp_path / "failing.py"
    script.write_text(FAILING_SCRIPT)
    before = left_in(tmp_path)
    done = cli("record", "--model", folder, "--inputs-script", "%s:calls" % script, "-o", tmp_path / "c.safetensors",
               timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("dimscope-cli record: inputs_script: inputs script %s:4 in calls(): ValueError: no prompts today\\x1b[2J "
            "(while calling calls)\n" % script) in done.stderr, done.stderr
    assert '    raise ValueError("no prompts today\\x1b[2J")' in done.stderr, done.stderr
    assert "\x1b" not in done.stderr and left_in(tmp_path) == before
    err = record_fails("--model", folder, "--inputs-script", "%s:calls" % (tmp_path / "gone.py"),
                       "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: inputs_script: inputs script %s does not exist" % (tmp_path / "gone.py") in err, err
    err = record_fails("--model", folder, "--inputs-script", "%s:calls" % script, "--prompt", "the cat",
                       "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: --inputs-script runs the model itself: --prompt cannot be given with it" in err, err


def test_the_worker_runs_only_the_script_agreed_to(folder, tmp_path):
    """`inputs_script_sha256` (a GUI's consent to a script it did not just get from the
    user): another content is refused before the script is imported; the content agreed
    to runs, and the result says how long the recording took and its peak memory."""
    from workerproc import WorkerProcess

    marker = tmp_path / "imported.txt"
    script = tmp_path / "calls.py"
    script.write_text(INPUTS_SCRIPT.replace("import dataclasses\n", "import dataclasses\n\nopen(%r, 'w').write('ran')\n"
                                            % str(marker)))
    agreed = hashlib.sha256(script.read_bytes()).hexdigest()
    worker = WorkerProcess()
    try:
        ev, _ = worker.request("record", model=folder, inputs_script="%s:calls" % script, output=str(tmp_path / "c.st"),
                               inputs_script_sha256="0" * 64)
        assert ev["event"] == "error" and ev["error"]["kind"] == "inputs_script", ev
        assert (ev["error"]["stage"], ev["error"]["sha256"]) == ("consent", agreed), ev
        assert not marker.exists()
        ev, _ = worker.request("record", model=folder, inputs_script="%s:calls" % script, batches=[["the cat"]],
                               output=str(tmp_path / "c.st"))
        assert ev["event"] == "error" and ev["error"]["kind"] == "bad_request", ev
        ev, _ = worker.request("record", model=folder, inputs_script="%s:calls" % script, output=str(tmp_path / "c.st"),
                               inputs_script_sha256=agreed)
        assert ev["event"] == "result", ev
        result = ev["result"]
        assert (result["calls"], result["generate_calls"], result["max_rss_scope"]) == (2, None, "request"), result
        assert result["seconds"] > 0 and result["max_rss_bytes"] > (64 << 20), result
    finally:
        worker.close()
    assert marker.read_text() == "ran"


# --- speech: a WAV file per prompt (issue 21 item 1) -----------------------------------


@pytest.fixture(scope="module")
def whisper(tmp_path_factory):
    out = tmp_path_factory.mktemp("speech")
    model = modelfolders.whisper(str(out / "tiny-whisper"))
    clips = [modelfolders.wav(str(out / name), seconds, width=width, channels=channels, pitch=pitch)
             for name, seconds, width, channels, pitch in (("a16.wav", 0.5, 2, 1, 440.0), ("b8.wav", 0.3, 1, 2, 220.0),
                                                           ("c24.wav", 0.7, 3, 1, 330.0), ("d32.wav", 0.2, 4, 1, 550.0))]
    prompts = out / "clips.txt"
    prompts.write_text("clip one\nclip two\n\nclip three\nclip four\n")
    capture = out / "whisper.safetensors"
    done = cli("record", "--model", model, "--prompts", prompts, *[a for c in clips for a in ("--audio", c)],
               "--max-new-tokens", 3, "-o", capture, timeout=600)
    return done, model, clips, capture


def test_a_speech_folder_records_a_wav_per_prompt(whisper):
    """Whisper: the speech seq2seq auto class; 8-, 16-, 24- and 32-bit PCM read with the
    standard library, stereo averaged, the folder's feature extractor prepares them."""
    done, model, clips, capture = whisper
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[generate] generate() call 1 of 2: 2 clip(s), 100 feature frame(s) each" in done.stderr, done.stderr
    assert "audio[0][1] %s: 2 channels, averaged into one" % clips[1] in done.stderr, done.stderr
    info = json.loads(cli("inspect", capture, "--json").stdout)
    recording = info["recording"]
    assert recording["auto_class"] == "AutoModelForSpeechSeq2Seq", recording
    assert recording["audio"] == [clips[:2], clips[2:]] and recording["padding_side"] is None, recording
    leaves = {leaf["path"]: leaf for leaf in info["leaves"]}
    # generate() runs the encoder once and passes its outputs: the 100 frames, halved
    assert [c["shape"] for c in leaves["encoder_outputs.last_hidden_state"]["calls"]] == [[2, 50, 32]] * 6, leaves.keys()
    assert [c["shape"] for c in leaves["attention_mask"]["calls"]] == [[2, 100]] * 6


def test_the_speech_recording_exports_with_every_call_served(whisper, tmp_path):
    done, model, _, capture = whisper
    assert done.returncode == 0, done.stdout + done.stderr
    exports_every_call(model, capture, tmp_path, 6, "--no-continuation")


def test_audio_that_cannot_be_used_is_named_with_its_file(whisper, tmp_path):
    """Each refusal names the prompt's place and the file and leaves nothing behind: a
    missing file (given alone: --audio files are one batch named by their file names), a
    file that is no WAV, a sample width the reader does not know (a WAV header that says
    48 bits), a sampling rate the feature extractor does not take."""
    _, model, clips, _ = whisper
    err = record_fails("--model", model, "--audio", clips[0], "--audio", tmp_path / "gone.wav",
                       "-o", tmp_path / "c.safetensors", out=tmp_path)
    assert "dimscope-cli record: bad_audio: --audio 2: audio[0][1] %s: no such file" % (tmp_path / "gone.wav") in err, err
    not_wav = tmp_path / "notes.wav"
    not_wav.write_text("not audio")
    fast = modelfolders.wav(str(tmp_path / "fast.wav"), 0.1, rate=44100)
    wide = tmp_path / "wide.wav"
    wide.write_bytes(_wav_header(bits=48) + bytes(6 * 10))
    prompts = tmp_path / "p.txt"
    prompts.write_text("one\n\ntwo\n\nthree\n")
    # what the file itself tells is refused before the model loads; the rate needs its feature extractor
    for clip, problem, loaded in (
            (not_wav, "not a PCM WAV file the standard library's wave module reads: file does not start with RIFF id",
             False),
            (wide, "sample width 6 bytes (48-bit): dimscope reads 8-, 16-, 24- and 32-bit PCM", False),
            (fast, "sampled at 44100 Hz; the model's feature extractor takes 16000 Hz", True)):
        err = record_fails("--model", model, "--prompts", prompts, "--audio", clips[0], "--audio", clips[1],
                           "--audio", clip, "-o", tmp_path / "c.safetensors", out=tmp_path)
        assert "dimscope-cli record: bad_audio: p.txt:5: audio[2][0] %s: %s" % (clip, problem) in err, err
        assert ("[load_model]" in err) == loaded, err


def _wav_header(bits, rate=16000, channels=1, frames=10):
    """A PCM WAV header as the standard says, for a sample width `wave` cannot write."""
    import struct

    width = (bits + 7) // 8
    data = frames * width * channels
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * width * channels, width * channels, bits)
    return (b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + data) + b"WAVE" + b"fmt " + struct.pack("<I", len(fmt))
            + fmt + b"data" + struct.pack("<I", data))

# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the fuzz targets' seed corpus (fuzz/corpus/<format>/): small real files of
every kind the readers meet. Run with the torch runtime, from the repository root:

    scripts/torch-python fuzz/make-seeds.py            # torch 2.14: the 2.8+ .pt2 layout
    DIMSCOPE_RUNTIME=trixie scripts/torch-python fuzz/make-seeds.py --pt2-only

Captures are recorded with dimscope's InputRecorder from the test models
(tests/python/capture_models.py) with tiny tensors; .pt2 files are exported from one
of them and their program JSON is kept as a seed of its own (fuzz_pt2 reads non-zip
inputs as program JSON). Projects and constraint sets are the documented examples
and their edge cases. Seeds are a few KB each: the targets' -max_len is small.
"""

import json
import pathlib
import sys
import zipfile

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from capture_models import (AddModel, CacheSumModel, FlagModel, LLMLikeModel,  # noqa: E402
                            MultimodalModel, kv_pairs, make_kv_cache)
from dimscope.capture import InputRecorder  # noqa: E402

CORPUS = ROOT / "fuzz" / "corpus"


def record(name, model, calls, **recorder_options):
    rec = InputRecorder(**recorder_options)
    with rec(model):
        for args, kwargs in calls:
            model(*args, **kwargs)
    rec.save(CORPUS / "capture" / f"{name}.safetensors")


def ids(n):
    return torch.arange(n, dtype=torch.int64).reshape(1, n)


def write_captures():
    record("add", AddModel(), [((torch.zeros(2, 3), torch.zeros(1, 3)), {}),
                               ((torch.zeros(3, 4), torch.zeros(1, 4)), {})])
    record("llm-cache", LLMLikeModel(), [
        ((), dict(input_ids=ids(3), attention_mask=torch.ones(1, 3, dtype=torch.int64))),
        ((), dict(input_ids=ids(1), attention_mask=torch.ones(1, 4, dtype=torch.int64),
                  past_key_values=make_kv_cache(kv_pairs(1, 1, 3, 2, 2, seed=1)))),
    ])
    record("multimodal", MultimodalModel(), [
        ((), dict(input_ids=ids(2), pixel_values=torch.zeros(1, 3, 2, 2))),
        ((), dict(input_ids=ids(1), past_key_values=make_kv_cache(kv_pairs(1, 1, 2, 2, 1, seed=2)))),
    ], value_if_missing=dict(pixel_values=torch.empty((0, 3, 2, 2))))
    record("scalars", FlagModel(), [
        ((torch.zeros(2, dtype=torch.float16),), dict(use_cache=False, scale=0.5, mode="b")),
        ((torch.zeros(3, dtype=torch.float16),), dict(extra=[1, (2.5, None)])),
    ])


def write_pt2():
    model = CacheSumModel()
    cache = make_kv_cache(kv_pairs(1, 1, 3, 2, 1, seed=3))
    seq = torch.export.Dim("seq", min=2, max=64)
    past = torch.export.Dim("past", min=2, max=64)
    program = torch.export.export(
        model, (), dict(input_ids=ids(3), past_key_values=cache),
        dynamic_shapes=dict(input_ids={1: seq}, past_key_values=[[{2: past}], [{2: past}]]))
    major, minor = (int(p) for p in torch.__version__.split(".")[:2])
    name = f"cache-sum-torch-{major}.{minor}"
    path = CORPUS / "pt2" / f"{name}.pt2"
    torch.export.save(program, path)
    with zipfile.ZipFile(path) as archive:
        record_name = next(n for n in archive.namelist()
                           if n.endswith("serialized_exported_program.json")
                           or (n.count("/models/") == 1 and n.endswith(".json")))
        (CORPUS / "pt2" / f"{name}.json").write_bytes(archive.read(record_name))


CONSTRAINTS = {
    "format": "dimscope.constraints",
    "version": 1,
    "dims": [
        {"name": "batch", "min": 2, "max": 64},
        {"name": "past_len", "min": 2, "max": None},
        {"name": "total_len", "root": "past_len", "a": 1, "b": 1},
        {"name": "seq_len", "min": None, "max": None},
    ],
    "leaves": {
        "input_ids": ["batch", "seq_len"],
        "attention_mask": ["batch", "total_len"],
        "past_key_values.key_cache[0]": ["batch", "static", "past_len", "static"],
        "pixel_values": ["dynamic", "auto", "static", "static"],
    },
}


def write_documents():
    out = CORPUS / "constraints"
    (out / "example.json").write_text(json.dumps(CONSTRAINTS, indent=2) + "\n")
    (out / "empty.json").write_text(json.dumps(
        {"format": "dimscope.constraints", "version": 1, "dims": [], "leaves": {}}) + "\n")
    derived_first = dict(CONSTRAINTS, dims=[CONSTRAINTS["dims"][2]] + CONSTRAINTS["dims"][:2])
    derived_first["leaves"] = {"x": ["total_len", "past_len"]}
    (out / "derived-first.json").write_text(json.dumps(derived_first) + "\n")

    out = CORPUS / "project"
    project = {"format": "dimscope.project", "version": 1, "capture": "calls.safetensors",
               "model": "package.module:make_model", "constraints": CONSTRAINTS,
               "export": {"device": "cuda", "call": 1, "strict": True, "fix_loop": False}}
    (out / "full.dimscope").write_text(json.dumps(project, indent=4) + "\n")
    (out / "minimal.dimscope").write_text(json.dumps(
        {"format": "dimscope.project", "version": 1, "capture": None, "model": None,
         "constraints": None, "export": None}) + "\n")
    (out / "demo.dimscope").write_bytes((ROOT / "resources" / "demo" / "demo.dimscope").read_bytes())
    # json.dumps writes the lone surrogate as \ud800: a path that is no Unicode text,
    # which the reader must refuse rather than save back as '?' (found by fuzz_project).
    (out / "unpaired-surrogate.dimscope").write_text(
        json.dumps(dict(project, capture="calls\ud800.safetensors"), indent=4) + "\n")
    # A leading ':' is a Qt resource path to QDir, a file name here.
    (out / "colon-capture.dimscope").write_text(json.dumps(dict(project, capture=":c.safetensors"), indent=4) + "\n")
    # Model references (issue 26 items 1 and 3): a file beside the project, read back
    # absolute and written relative; a path dressed as dimscope's package, kept as
    # written; a file in a folder whose name starts with "dimscope.", written with "./".
    for name, model in (("model-file", "models/../model.py:Factory.build"),
                        ("model-disguised", "dimscope./../evil_model.py:make"),
                        ("model-dimscope-folder", "./dimscope.x/m.py:make"),
                        ("model-folder", "hf-model")):
        (out / (name + ".dimscope")).write_text(json.dumps(dict(project, model=model), indent=4) + "\n")


if __name__ == "__main__":
    if "--pt2-only" not in sys.argv:
        write_captures()
        write_documents()
    write_pt2()

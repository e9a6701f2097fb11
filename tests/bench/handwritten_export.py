# SPDX-License-Identifier: GPL-3.0-or-later
"""The hand-written floor of bench_handwritten (issue 29): what a user who knows
torch.export writes by hand for a decoder's `generate()` capture, without dimscope's
export. It loads the model and the recorded calls, exports the two programs dimscope
exports for such a capture (prefill: an empty cache, the prompt's length dynamic; decode:
one new token, `total_len = past_len + 1`) with a correct hand-written `dynamic_shapes`,
saves them, and replays each recorded call once through its program, checking the
logits against those recorded. No fresh-process check, no explanations.

Two ways of saving:
- default: each program on its own with `torch.export.save` (OUTDIR/prefill.pt2,
  OUTDIR/decode.pt2), each carrying every weight;
- `--shared`: both programs in one PT2 archive (torch >= 2.8,
  `torch.export.pt2_archive`), the weights written once: the decode program's
  `<name>_weights_config.json` entries point at the prefill program's weight files
  (same storage), written here by hand (OUTDIR/programs.pt2).
`--check` (not timed by the bench) then loads what was saved in this process
(`torch.export.load` / `load_pt2`) and replays every call through the loaded programs;
`--check-only` does only that, on what an earlier run saved in OUTDIR.
`--fresh` (the bench's certified floor): instead of replaying the calls here, a new
interpreter loads what was saved (`--check-only`) and replays every call there: what a
user writes who wants to know that the saved programs load and run where they will be
used, the certainty dimscope's fresh-process check gives (docs/worker-protocol.md).

usage: handwritten_export.py MODEL_REF CAPTURE OUTDIR [--shared] [--check | --check-only | --fresh]
MODEL_REF: path/to/file.py:callable or package.module:callable (returns the model).
Exit 0 when every call replays with the recorded logits; 3 when --shared is asked on a
torch without the PT2 archive format.
"""

import importlib
import importlib.util
import os
import sys


def load_model(ref):
    where, name = ref.rsplit(":", 1)
    if where.endswith(".py"):
        spec = importlib.util.spec_from_file_location("bench_model_module", where)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    return getattr(module, name)().eval()


def cache_length(kwargs):
    cache = kwargs.get("past_key_values")
    return cache.layers[0].keys.shape[2] if cache is not None and cache.layers else 0


def dynamic_shapes(phase, layers):
    """The spec a user writes for the two phases of generate() (batch dynamic too)."""
    from torch.export import Dim

    batch = Dim("batch")
    if phase == "prefill":
        seq = Dim("seq_len")
        tokens = {0: batch, 1: seq}
        mask = {0: batch, 1: seq}
        cache = {0: batch}  # the empty cache: length 0 stays static
    else:
        past = Dim("past_len")
        tokens = {0: batch}  # one new token
        mask = {0: batch, 1: past + 1}
        cache = {0: batch, 2: past}
    return {"input_ids": tokens, "attention_mask": mask, "position_ids": tokens,
            "past_key_values": [[cache] * layers, [cache] * layers],
            "use_cache": None, "logits_to_keep": None, "kwargs": {"return_dict": None}}


def logits_of(outputs):
    return outputs["logits"] if isinstance(outputs, dict) or hasattr(outputs, "keys") else outputs[0]


def replay(programs, phases):
    import torch

    for name, calls in phases.items():
        module = programs[name].module()
        for call in calls:
            args, kwargs = call.call_arguments()
            out = module(*args, **kwargs)
            if call.outputs is not None:
                torch.testing.assert_close(logits_of(out), logits_of(call.outputs), atol=1e-4, rtol=1e-3)


def save_shared(programs, path):
    """One PT2 archive with both programs, each weight written once: the first program's
    weights as torch writes them; a later program's weight whose storage the first one
    already wrote points at that file in its weights config."""
    import torch
    from torch.export import pt2_archive
    from torch.export.pt2_archive import _package as pkg
    from torch.export.pt2_archive._package_weights import TensorProperties
    from torch._export.serde import schema
    from torch._export.serde.serialize import serialize, serialize_tensor_meta

    constants = pt2_archive.constants
    written = {}  # storage pointer -> weight file
    with pkg.PT2ArchiveWriter(path) as archive:
        for name, ep in programs.items():
            config, fresh = {}, {}
            for fqn, tensor in ep.state_dict.items():
                file = written.get(tensor.untyped_storage().data_ptr())
                if file is None:
                    fresh[fqn] = (tensor, TensorProperties(tensor))
                else:
                    config[fqn] = schema.PayloadMeta(path_name=file, is_param=isinstance(tensor, torch.nn.Parameter),
                                                     use_pickle=False, tensor_meta=serialize_tensor_meta(tensor))
            index = archive.count_prefix(os.path.join(constants.WEIGHTS_DIR, constants.WEIGHT_FILENAME_PREFIX))
            own = {}
            pkg._save_raw_tensors(fresh, name, archive, own, constants.WEIGHTS_DIR,
                                  constants.WEIGHT_FILENAME_PREFIX, index)
            for fqn, meta in own.items():
                written[ep.state_dict[fqn].untyped_storage().data_ptr()] = meta.path_name
            config.update(own)
            pkg._package_payload_config(archive, schema.PayloadConfig(config=config),
                                        constants.WEIGHTS_CONFIG_FILENAME_FORMAT.format(name))
            pkg._package_payload_config(archive, pkg._package_constants(name, ep, archive),
                                        constants.CONSTANTS_CONFIG_FILENAME_FORMAT.format(name))
            artifact = serialize(ep, None, serialize_state_dict=False, serialize_constants=False)
            archive.write_bytes(constants.MODELS_FILENAME_FORMAT.format(name), artifact.exported_program)
            archive.write_bytes(constants.SAMPLE_INPUTS_FILENAME_FORMAT.format(name), artifact.example_inputs)


def has_archive_format():
    try:
        from torch.export.pt2_archive import _package  # noqa: F401
        from torch.export.pt2_archive._package import load_pt2, package_pt2  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv):
    flags = {a for a in argv if a.startswith("--")}
    model_ref, capture_path, outdir = [a for a in argv if not a.startswith("--")]
    shared = "--shared" in flags
    import torch
    import transformers.modeling_outputs  # noqa: F401 - registers the programs' output class with pytree
    from transformers.integrations.executorch import register_dynamic_cache_export_support

    from dimscope.capture import load_capture

    if shared and not has_archive_format():
        print("this torch (%s) has no PT2 archive format" % torch.__version__, file=sys.stderr)
        return 3
    register_dynamic_cache_export_support()
    calls = load_capture(capture_path).calls
    phases = {"prefill": [c for c in calls if cache_length(c.kwargs) == 0],
              "decode": [c for c in calls if cache_length(c.kwargs) > 0]}
    if "--check-only" not in flags:
        programs = export_and_save(load_model(model_ref), phases, outdir, shared)
        if "--fresh" in flags:
            return check_in_new_interpreter(argv)
        replay(programs, phases)
    if flags & {"--check", "--check-only"}:
        if shared:
            from torch.export.pt2_archive._package import load_pt2
            loaded = load_pt2(os.path.join(outdir, "programs.pt2")).exported_programs
        else:
            loaded = {name: torch.export.load(os.path.join(outdir, name + ".pt2")) for name in phases}
        replay(loaded, phases)
    return 0


def check_in_new_interpreter(argv):
    """Runs this script with --check-only in a new interpreter, started as this one was
    (in a provisioned root, `sys.executable` alone would fail on the host's glibc)."""
    import subprocess

    from dimscope.worker.freshcheck import interpreter_command

    args = [a for a in argv if a != "--fresh"] + ["--check-only"]
    return subprocess.run(interpreter_command() + [os.path.abspath(__file__)] + args).returncode


def export_and_save(model, phases, outdir, shared):
    import torch

    layers = model.config.num_hidden_layers
    programs = {}
    for name, members in phases.items():
        args, kwargs = members[0].call_arguments()
        programs[name] = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes(name, layers),
                                             strict=False)
    if shared:
        save_shared(programs, os.path.join(outdir, "programs.pt2"))
    else:
        for name, ep in programs.items():
            torch.export.save(ep, os.path.join(outdir, name + ".pt2"))
    return programs


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

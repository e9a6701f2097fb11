# SPDX-License-Identifier: GPL-3.0-or-later
"""The fix-loop cases of issue 20 (item 3) on tiny transformers 5.12 models
(fixloopmodels.py), each recorded around `generate()` once and exported with one
`dimscope-cli export --fix-loop`, kept cheap (two layers, hidden 32, a few calls):

- OpenAI GPT: torch narrows seq_len to n_positions (256), then states the guard
  `seq_len != 256` with no fix; the loop applies the range where the guard holds.
- MPT (max_seq_len 256): in the decode phase torch states its position-bias guard
  `256 != 256 - Max(0, 255 - past_len)` with no fix; the loop applies past_len <= 254.
  (The two-Dim case, masking_utils.py's `past_len - total_len + 1 <= 0` -> total_len =
  past_len + 1, is tst_guardfixes' with the worker's exact text.)
- Falcon: transformers builds its mask with vmap, whose trace torch cannot save; the
  worker exports with the index-based mask and says so, and the program is written.
- Phi-3 with LongRoPE: torch stops on `if seq_len > original_max_position_embeddings`
  (a value of position_ids); the loop exports with torch.export.draft_export, reports
  the assumption with transformers' line and its runtime assertion, and the program
  rejects a call that takes the other branch.
- XLNet: torch guards its relative attention's sizes with expressions it cannot decide
  over a named Dim's range (`Mod(2*mems_0_dim0 + 6, mems_0_dim0 + 3) == 0`) and states no
  fix; the loop exports those Dims as Dim.DYNAMIC, and the calls a program's guards
  reject get a program of their own.
Before these fixes each ended with no program (exit 1); XLNet served 2 of 8 calls."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

transformers = pytest.importorskip("transformers", reason="the fix-loop families need transformers (sid runtime)")
import torch  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fixloopmodels  # noqa: E402
import tinymodels  # noqa: E402

CLI = os.environ.get("DIMSCOPE_CLI")


def cli(*args, timeout=600):
    assert CLI, "DIMSCOPE_CLI is not set (ctest sets it)"
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout, env=dict(os.environ))


def record(name, path, prompt_lengths, new_tokens):
    """`generate()` of fixloopmodels.NAME as a user would drive it (left-padded batch of 2)."""
    from dimscope.capture import InputRecorder

    model = getattr(fixloopmodels, name)()
    rec = InputRecorder(store_n_calls=len(prompt_lengths) * new_tokens)
    with torch.no_grad(), rec(model):
        for length in prompt_lengths:
            ids, mask = tinymodels.prompt(length)
            model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=new_tokens,
                           min_new_tokens=new_tokens, do_sample=False)
    rec.save(path)


def export(name, capture, out, *extra):
    # These cases are about torch's guards: no continuation program (issue 27 item 2,
    # checked on Llama by test_real_models.py), which would cost a program each.
    return cli("export", "--model", "%s:%s" % (HERE / "fixloopmodels.py", name), "--capture", str(capture),
               "--fix-loop", "--no-continuation", "-o", str(out), *extra)


def export_reported(name, workdir, prompt_lengths, new_tokens):
    """Records NAME's generate() calls, exports them with --json; the CLI's output and
    the report's programs, once the export succeeded."""
    capture = workdir / ("%s.safetensors" % name)
    record(name, capture, prompt_lengths, new_tokens)
    report_file = workdir / ("%s.json" % name)
    result = export(name, capture, workdir / ("%s.pt2" % name), "--json", str(report_file))
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-4000:]
    return capture, result.stdout, json.loads(report_file.read_text())["programs"]


def loaded_module(program):
    """A program of the report, loaded the way docs/real-models.md tells users to."""
    import dimscope
    return dimscope.load_program(program["output"], name=program["program"]).module()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fixloop")


def test_openai_gpt_guard_without_fix_narrows_the_range(workdir):
    # Two prefill calls (prompts of 5 and 8, one new token each): one program, seq_len dynamic.
    capture = workdir / "openai_gpt.safetensors"
    record("openai_gpt", capture, (5, 8), 1)
    result = export("openai_gpt", capture, workdir / "openai_gpt.pt2")
    out = result.stdout
    assert result.returncode == 0, out[-4000:] + result.stderr[-4000:]
    assert "applied: seq_len = Dim('seq_len', max=256)" in out, out[-4000:]  # torch's own fix first
    line = next((l for l in out.splitlines() if l.startswith("applied: seq_len = Dim('seq_len', max=255)")), None)
    assert line is not None, out[-4000:]
    assert "torch stated the guard 256 != seq_len (openai/modeling_openai.py:72) and no fix" in line, line
    assert "which has every recorded seq_len (5..8)" in line, line
    # The constraints that exported and the read-back show the narrowed range.
    exported = out[out.index("constraints that exported"):]
    assert re.search(r'\{"name": "seq_len", "min": [^,]*, "max": 255\}', exported), exported[:2000]
    assert re.search(r"^\s*seq_len \(s\d+\)\s+\[\d+, 255\]", exported, re.M), exported[-3000:]
    assert "every captured call (2) replays" in out, out[-3000:]


def test_mpt_position_bias_guard_without_fix_narrows_the_cache(workdir):
    # One prompt, three new tokens: a prefill and two decode calls (past_len 5, 6).
    capture = workdir / "mpt.safetensors"
    record("mpt", capture, (5,), 3)
    result = export("mpt", capture, workdir / "mpt.pt2")
    out = result.stdout
    assert result.returncode == 0, out[-4000:] + result.stderr[-4000:]
    line = next((l for l in out.splitlines() if l.startswith("applied: past_len = Dim('past_len'")), None)
    assert line is not None, out[-5000:]
    assert "max=254) (torch stated the guard 256 != 256 - Max(0, 255 - past_len) (mpt/modeling_mpt.py:119) and no fix" \
        in line, line
    assert "every captured call (3) replays" in out, out[-3000:]


def test_falcon_vmap_mask_is_exported_index_based_and_saved(workdir):
    capture = workdir / "falcon.safetensors"
    record("falcon", capture, (5, 8), 1)
    out_file = workdir / "falcon.pt2"
    result = export("falcon", capture, out_file)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "transformers built the sdpa attention mask with torch.vmap" in result.stderr, result.stderr[-4000:]
    assert "index-based mask instead (use_vmap=False" in result.stderr
    assert "every captured call (2) replays" in result.stdout, result.stdout[-3000:]
    assert out_file.is_file()


def test_phi3_longrope_data_dependent_branch_is_exported_with_draft_export(workdir):
    # Two generate() calls (prompts of 5 and 8, two new tokens each): a prefill and a decode
    # phase. torch.export stops on LongRoPE's `if seq_len > original_max_position_embeddings`
    # (a value of position_ids); the fix loop exports with torch.export.draft_export.
    capture, out, programs = export_reported("phi3_longrope", workdir, (5, 8), 2)
    assert "draft export: torch stopped on data-dependent code at " in out, out[-5000:]
    assert "modeling_rope_utils.py:64 (Eq(u0, 1)); the next round traces with torch.export.draft_export" in out
    assert "every captured call (4) replays" in out, out[-3000:]
    # The assumption, with transformers' line and the runtime assertion, under every program.
    listed = re.findall(r"^  (\S+modeling_rope_utils\.py:64): assumption: Eq\(u0, 1\) is False \(as on the example "
                        r"call\); runtime assertion: Ne\(u0, 1\)\n      if seq_len > original_max_position_embeddings:",
                        out, re.M)
    assert len(listed) == len(programs) >= 2, out[-5000:]
    served = sorted(c for p in programs for c in p["calls"])
    assert served == [0, 1, 2, 3], programs
    for p in programs:
        assert p["draft_export"] is True
        assumptions = [e for e in p["explanations"] if e["kind"] == "assumption"]
        assert [(a["location"]["line"], a["assertion"]) for a in assumptions] == [(64, "Ne(u0, 1)")], assumptions
        assert assumptions[0]["location"]["file"].endswith("transformers/modeling_rope_utils.py")
    # A call whose positions pass original_max_position_embeddings (64) takes the other
    # branch: the program rejects it with its runtime assertion, never serves it with the
    # short factors. (The probes keep the recorded positions, so they stay on this branch.)
    from dimscope.capture import load_capture
    module = loaded_module(next(p for p in programs if 1 in p["calls"]))
    args, kwargs = load_capture(capture).calls[1].call_arguments()
    with torch.no_grad():
        assert module(*args, **kwargs).logits.shape[1] == 1
        kwargs["position_ids"] = kwargs["position_ids"] + 100
        with pytest.raises(RuntimeError, match=r"Runtime assertion failed for expression Ne\(u0, 1\)"):
            module(*args, **kwargs)


def test_xlnet_undecidable_guards_export_as_dim_dynamic(workdir):
    # Two generate() calls (prompts of 5 and 8, three new tokens each): two prefill calls
    # and four decode calls whose memories (4, 5, 7, 8) fall on both sides of the
    # relative shift's divisibility guard.
    capture, out, programs = export_reported("xlnet", workdir, (5, 8), 3)
    assert "applied: seq_len = Dim.DYNAMIC (torch could not decide its guards on seq_len over the Dim's range " \
        "and suggested no fix" in out, out[-5000:]
    assert "every captured call (6) replays" in out, out[-3000:]
    assert sorted(c for p in programs for c in p["calls"]) == [0, 1, 2, 3, 4, 5], programs
    # The prefill program serves both prompt lengths and one it never saw: the same
    # numbers as the model for a 7-token prompt, in a fresh load through dimscope.
    from dimscope.capture import load_capture
    module = loaded_module(next(p for p in programs if p["calls"] == [0, 3]))
    args, kwargs = load_capture(capture).calls[3].call_arguments()
    kwargs["input_ids"] = kwargs["input_ids"][:, :7]
    kwargs["perm_mask"] = kwargs["perm_mask"][:, :7, :7]
    kwargs["target_mapping"] = kwargs["target_mapping"][:, :, :7]
    model = fixloopmodels.xlnet()
    with torch.no_grad():
        expected = model(*args, **kwargs).logits
        got = module(*args, **kwargs).logits
    assert got.shape == expected.shape == (2, 1, fixloopmodels.VOCAB)
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5)

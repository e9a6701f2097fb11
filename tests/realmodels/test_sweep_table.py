# SPDX-License-Identifier: GPL-3.0-or-later
"""The architecture sweep's pieces that need no export (issue 20 item 1, sweep.py): the
generic tiny config of a model type and the table it writes. Cheap (configs only, no
model is built, nothing exported); the sweep itself runs by hand (scripts/README.md)."""

import json
import pathlib
import sys

import pytest

pytest.importorskip("transformers", reason="the sweep's configs need transformers (sid runtime)")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sweep  # noqa: E402


def test_llama_config_is_made_tiny_from_its_default():
    cfg = sweep.tiny_config("llama")
    assert (cfg.num_hidden_layers, cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads) == (2, 64, 4, 2)
    assert (cfg.intermediate_size, cfg.vocab_size, cfg.max_position_embeddings) == (128, 1000, 256)
    assert (cfg.pad_token_id, cfg.bos_token_id, cfg.eos_token_id) == (0, 1, 2)


def test_gpt2_names_its_fields_otherwise_and_gets_the_same_sizes():
    cfg = sweep.tiny_config("gpt2")
    assert (cfg.n_layer, cfg.n_embd, cfg.n_head, cfg.vocab_size, cfg.n_positions) == (2, 64, 4, 1000, 256)
    assert cfg.bos_token_id < cfg.vocab_size and cfg.eos_token_id < cfg.vocab_size


def test_a_hybrid_keeps_one_layer_of_each_kind():
    # Qwen3-Next's default is three linear-attention layers to one full-attention layer:
    # the first two layers would be linear only.
    cfg = sweep.tiny_config("qwen3_next")
    assert cfg.num_hidden_layers == 2
    assert sorted(cfg.layer_types) == ["full_attention", "linear_attention"], cfg.layer_types


def test_a_failure_row_is_one_escaped_line_in_the_table(tmp_path):
    error = "modeling_x.py:12: RuntimeError: bad | shape\n  second line\x1b[31m" + "x" * 300
    rows = [dict(architecture="llama", built=True, generate=True, recorded=True, calls=8, served=8, programs=2,
                 failure="", line=""),
            dict(architecture="odd", built=True, generate=True, recorded=True, calls=8, served=5, programs=1,
                 failure="not_all_served", line=sweep.one_line(error)),
            dict(architecture="musicgen", built=False, generate=False, recorded=False, calls=0, served=0,
                 programs=0, failure="build_failed", line="x")]
    header = dict(date="2026-11-26 19:00 UTC", torch="2.14", transformers="5.12.1", nproc=2, jobs=1, timeout=300,
                  cli_args=[], seconds=12.0, totals=sweep.totals(rows))
    assert header["totals"] == dict(architectures=3, built=2, generate_ok=2, served_all=1, percent=50.0)
    page = sweep.markdown(rows, header)
    row = [line for line in page.splitlines() if line.startswith("| odd |")]
    assert len(row) == 1, page
    assert "bad \\| shape\\n  second line\\x1b[31m" in row[0]
    assert len(sweep.one_line(error)) == 160 and sweep.one_line(error).endswith("…")
    assert "| llama | yes | yes | yes | 8 of 8 (2) |  |  |" in page
    assert "| musicgen | no | no | no | - | build_failed | x |" in page
    assert "of those, 1 (50.0 %) record and export with every call served" in page
    out = tmp_path / "architectures.md"
    sweep.write_atomically(out, page)
    sweep.write_atomically(out.with_suffix(".json"), json.dumps(rows))
    assert out.read_text() == page and sorted(p.name for p in tmp_path.iterdir()) == ["architectures.json",
                                                                                      "architectures.md"]


def test_the_decisive_line_is_the_one_naming_a_library_file():
    stderr = "[export] round 1\nwhy: torch's shape decisions:\n  /x/site-packages/transformers/masking_utils.py:208: " \
             "guard: past_len - total_len + 1 <= 0\nfix loop: stopped\n"
    assert sweep.cli_line("", stderr, None) == "transformers/masking_utils.py:208: guard: past_len - total_len + 1 <= 0"
    report = dict(failure=dict(kind="save_failed", message="torch could not write the archive\nmore"))
    assert sweep.cli_line("", "plain\n", report) == "save_failed: torch could not write the archive"
    # A failure with a traceback: where in torch it was raised (the innermost frame).
    stderr = ('export failed: export_failed: KeyError: "b"\nTraceback (most recent call last):\n'
              '  File "/w/python/dimscope/worker/exporter.py", line 359, in verify\n'
              '  File "/r/dist-packages/torch/export/_unlift.py", line 593, in f\n'
              '  File "/r/dist-packages/torch/nn/modules/module.py", line 573, in register_buffer\n'
              'KeyError: "b"\n\nexport failed: constraint_violation: other\n')
    report = dict(failure=dict(kind="export_failed", message='KeyError: "b"'))
    assert sweep.cli_line("", stderr, report) == 'export_failed: KeyError: "b" (at torch/nn/modules/module.py:573)'
    # The model's line the worker names comes first, and survives a long message.
    report = dict(failure=dict(kind="export_failed", message="PendingUnbackedSymbolNotFound: " + "x" * 300,
                               source=dict(file="/r/dist-packages/transformers/models/aria/modeling_aria.py", line=270)))
    line = sweep.cli_line("", "", report)
    assert line.endswith("(at transformers/models/aria/modeling_aria.py:270)") and len(line) <= 160, line
    # The CLI's --json report has no source: the fix loop's last word names the line.
    report = dict(failure=dict(kind="export_failed", message="PendingUnbackedSymbolNotFound: Pending unbacked"))
    stdout = ("fix loop: the export failed (export_failed) without suggested fixes: PendingUnbackedSymbolNotFound: "
              "Pending unbacked (in the model's code at /r/dist-packages/transformers/models/aria/modeling_aria.py:374)\n")
    assert sweep.cli_line(stdout, "", report).endswith("(at transformers/models/aria/modeling_aria.py:374)")


def test_a_phase_whose_export_failed_is_the_decisive_line_not_an_earlier_decision():
    """Qwen3-Next's prefill: a round's decision names masking_utils.py:208, then torch stops
    on the model's data-dependent mask shortcut and draft_export fails; the row says the
    latter, with the model's line."""
    stdout = ("== phase 2: calls 0, 4 ==\n"
              "draft export: torch stopped on data-dependent code at /r/dist-packages/transformers/models/qwen3_next/"
              "modeling_qwen3_next.py:999 (Eq(u0, 1)); the next round traces with torch.export.draft_export\n"
              "applied: seq_len = Dim('seq_len', min=2, max=64)\n  because:\n"
              "    /r/dist-packages/transformers/masking_utils.py:208: guard: -seq_len + seq_len <= 0\n"
              "fix loop: the export failed (export_failed) without suggested fixes: PendingUnbackedSymbolNotFound: "
              "Pending unbacked symbols {u1}\n")
    assert sweep.cli_line(stdout, "calls 0, 4 (2 of 8) are served by no exported program\n", None) == (
        "transformers/models/qwen3_next/modeling_qwen3_next.py:999: data-dependent code, then the export failed "
        "(export_failed) without suggested fixes: PendingUnbackedSymbolNotFound: Pending unbacked symbols {u1}")
    without = stdout.replace("draft export: torch stopped on data-dependent code at", "draft export: see")
    assert sweep.cli_line(without, "", None).startswith("the export failed (export_failed) without suggested fixes")


def test_an_encoder_family_lm_head_is_made_a_decoder():
    # BERT's causal-LM head in the mapping is a decoder; its default config says it is not.
    cfg = sweep.tiny_config("bert")
    assert cfg.is_decoder is True and (cfg.num_hidden_layers, cfg.hidden_size) == (2, 64)


def _page(tmp_path, rows, torch_version="2.14"):
    header = dict(date="2026-11-27 07:15 UTC", torch=torch_version, transformers="5.12.1", dimscope="aaaa", nproc=2,
                  jobs=2, timeout=300, cli_args=[], seconds=3300.0)
    path = tmp_path / "architectures.json"
    path.write_text(json.dumps(dict(header=dict(header, totals=sweep.totals(rows)), rows=rows)))
    return path, header


def test_a_rerun_replaces_its_rows_and_keeps_the_others_in_order(tmp_path):
    def row(name, failure=""):
        return dict(architecture=name, built=True, generate=True, recorded=True, calls=8,
                    served=8 if not failure else 0, programs=2, failure=failure, line="x" if failure else "")
    path, header = _page(tmp_path, [row("afmoe", "export_failed"), row("llama"), row("mixtral", "export_failed")])
    now = dict(header, date="2026-11-27 09:00 UTC", dimscope="bbbb", seconds=80.0)
    merged_header, rows = sweep.merged(path, now, [row("mixtral"), row("afmoe")])
    assert [r["architecture"] for r in rows] == ["afmoe", "llama", "mixtral"]
    assert [r["failure"] for r in rows] == ["", "", ""]
    assert rows[0]["rerun"] == "2026-11-27 09:00 UTC, dimscope bbbb" and "rerun" not in rows[1]
    # The page keeps the whole sweep's date, machine and time, and says what ran again.
    assert merged_header["date"] == "2026-11-27 07:15 UTC" and merged_header["seconds"] == 3300.0
    merged_header["totals"] = sweep.totals(rows)
    page = sweep.markdown(rows, merged_header)
    assert "- rows run again on 2026-11-27 09:00 UTC, dimscope bbbb (2 job(s), 80 s): mixtral, afmoe" in page
    assert "of those, 3 (100.0 %) record and export" in page


def test_reruns_in_the_same_minute_are_all_listed(tmp_path):
    def row(name, kind="causal"):
        return dict(architecture=name, kind=kind, built=True, generate=True, recorded=True, calls=8, served=8,
                    programs=2, failure="", line="")
    path, header = _page(tmp_path, [row("llama"), row("trocr"), row("prophetnet", "seq2seq")])
    now = dict(header, date="2026-11-28 11:40 UTC", dimscope="bbbb", seconds=100.0, jobs=1)
    for rerun in ([row("prophetnet", "seq2seq")], [row("trocr")], [row("llama")]):
        merged_header, rows = sweep.merged(path, now, rerun)
        path.write_text(json.dumps(dict(header=merged_header, rows=rows)))
    merged_header["totals"] = sweep.totals(rows)
    page = sweep.markdown(rows, merged_header)
    assert "- rows run again on 2026-11-28 11:40 UTC, dimscope bbbb (1 job(s), 100 s): prophetnet" in page, page
    assert "- rows run again on 2026-11-28 11:40 UTC, dimscope bbbb (1 job(s), 200 s): trocr, llama" in page, page


def test_a_rerun_on_another_torch_is_refused(tmp_path):
    path, header = _page(tmp_path, [], torch_version="2.6")
    with pytest.raises(SystemExit, match="torch 2.6; this one runs 2.14"):
        sweep.merged(path, dict(header, torch="2.14"), [])
    with pytest.raises(SystemExit, match="--merge needs the page's rows"):
        sweep.merged(tmp_path / "missing.json", header, [])


def test_encoder_decoders_get_their_own_section_and_bart_is_in_both():
    assert sweep.architectures("seq2seq", ["t5", "bart"], 0) == ["bart", "t5"]
    with pytest.raises(SystemExit, match="not in MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES: llama"):
        sweep.architectures("seq2seq", ["llama"], 0)
    # An encoder-decoder stays one: only a causal LM head is made a decoder.
    cfg = sweep.tiny_config("bart", "seq2seq")
    assert not cfg.is_decoder and (cfg.encoder_layers, cfg.decoder_layers, cfg.d_model) == (2, 2, 64)
    rows = [dict(architecture="bart", kind="causal", built=True, generate=True, recorded=True, calls=8, served=8,
                 programs=2, failure="", line=""),
            dict(architecture="bart", kind="seq2seq", built=True, generate=True, recorded=True, calls=8, served=5,
                 programs=1, failure="not_all_served", line="why")]
    header = dict(date="d", torch="2.14", transformers="5.12.1", nproc=2, jobs=1, timeout=300, cli_args=[],
                  seconds=1.0)
    page = sweep.markdown(rows, header)
    causal, seq2seq = page.split("## Causal LMs")[1].split("## Encoder-decoders")
    assert "| bart | yes | yes | yes | 8 of 8 (2) |  |  |" in causal and "of those, 1 (100.0 %)" in causal
    assert "| bart | yes | yes | yes | 5 of 8 (1) | not_all_served | why |" in seq2seq and "of those, 0 (0.0 %)" in seq2seq


def test_a_partial_rotary_dim_fits_the_tiny_head():
    # CodeGen's default rotary_dim (64) is wider than a tiny head (16): generate() failed.
    cfg = sweep.tiny_config("codegen")
    assert cfg.rotary_dim == cfg.n_embd // cfg.n_head == 16


def test_every_nested_config_is_made_tiny():
    # BLT's four sub-models kept their default sizes: building it ran past the timeout.
    cfg = sweep.tiny_config("blt")
    for sub in (cfg.patcher_config, cfg.encoder_config, cfg.decoder_config, cfg.global_config):
        sub = sub if isinstance(sub, dict) else sub.to_dict()
        assert sub.get("hidden_size", 64) <= 64 and sub.get("num_hidden_layers", 2) <= 2, sub
    assert cfg.encoder_hash_byte_group_vocab == 1000


def test_a_mamba2_mixer_is_made_tiny_and_consistent():
    # Falcon-H1's default mixer (128 heads, state 256) made generate() run past the timeout.
    cfg = sweep.tiny_config("falcon_h1")
    assert (cfg.mamba_n_heads, cfg.mamba_d_state) == (4, 16)
    assert cfg.mamba_n_heads * cfg.mamba_d_head == cfg.mamba_d_ssm == cfg.mamba_expand * cfg.hidden_size
    cfg = sweep.tiny_config("nemotron_h")
    assert cfg.mamba_num_heads * cfg.mamba_head_dim == cfg.expand * cfg.hidden_size and cfg.ssm_state_size == 16


def test_latent_attention_keeps_its_heads_ungrouped_and_its_rotary_head():
    # DeepSeek-V3's generate() failed with 2 key/value heads for 4 query heads, and with
    # head_dim (its rotary part) cut apart from qk_rope_head_dim.
    cfg = sweep.tiny_config("deepseek_v3")
    assert cfg.num_key_value_heads == cfg.num_attention_heads == 4
    assert cfg.head_dim == cfg.qk_rope_head_dim
    assert sweep.tiny_config("llama").num_key_value_heads == 2


def test_no_layer_shares_a_cache_in_a_two_layer_model():
    # Gemma-3n's default shares 15 layers' caches: with 2 layers its build failed.
    assert sweep.tiny_config("gemma3n_text").num_kv_shared_layers == 0


def test_layer_kinds_placed_by_period_keep_one_of_each():
    # Jamba's attention layer (every 8th from 4) fell outside 2 layers: generate() failed
    # in transformers' cache with linear-attention layers only.
    cfg = sweep.tiny_config("jamba")
    kinds = ["attention" if i % cfg.attn_layer_period == cfg.attn_layer_offset else "mamba" for i in range(2)]
    assert sorted(kinds) == ["attention", "mamba"]


def test_gated_delta_net_layers_are_made_tiny():
    # Qwen3-Next's default linear-attention heads (16 and 32 of 128) made a 62 MB capture
    # of two generate() calls and an export past the timeout.
    cfg = sweep.tiny_config("qwen3_next")
    assert (cfg.linear_num_key_heads, cfg.linear_num_value_heads) == (2, 4)
    assert cfg.linear_key_head_dim == cfg.linear_value_head_dim == 16


def test_a_repeating_pattern_of_layer_kinds_keeps_one_of_each():
    # RecurrentGemma repeats (recurrent, recurrent, attention): its first two layers had no
    # attention and generate() failed.
    assert sorted(sweep.tiny_config("recurrent_gemma").block_types) == ["attention", "recurrent"]


def test_every_default_config_of_the_mapping_shrinks():
    # A `*_types` field that is not a list (a count) broke the shrinking of every config.
    from transformers import AutoConfig

    for name in sweep.architectures("causal", [], 0) + sweep.architectures("seq2seq", [], 0):
        try:
            values = AutoConfig.for_model(name).to_dict()
        except Exception:  # noqa: BLE001 - a type whose default config does not build is its own row
            continue
        sweep.shrink(values)


def test_a_vision_language_config_keeps_its_special_tokens_inside_the_vocabulary():
    """Gemma 3's image token is id 262144 by default; in a vocabulary of 1000 it is the
    top id, the tower's output is the text width, and an image is a few tokens."""
    cfg = sweep.tiny_config("gemma3", "vlm")
    text = cfg.text_config
    assert text.vocab_size == 1000 and text.hidden_size == 64
    assert sweep.VLM_TEXT_IDS <= cfg.image_token_id < text.vocab_size
    assert cfg.boi_token_id < text.vocab_size and cfg.eoi_token_id < text.vocab_size
    assert len({cfg.image_token_id, cfg.boi_token_id, cfg.eoi_token_id}) == 3
    assert cfg.mm_tokens_per_image == 16
    assert text.max_position_embeddings == sweep.VLM_POSITIONS
    assert cfg.vision_config.num_hidden_layers == 2 and cfg.vision_config.hidden_size == 64


def test_a_llava_prompt_holds_one_image_per_row_with_as_many_tokens_as_its_features():
    import torch

    model = sweep.build_model("llava", "vlm")
    ids, mask, extra = sweep.vlm_prompt(model, "llava", 5)
    assert set(extra) == {"pixel_values"} and extra["pixel_values"].shape[:2] == (2, 3)
    size = model.config.vision_config.image_size
    assert tuple(extra["pixel_values"].shape[2:]) == (size, size)
    per_image = (size // model.config.vision_config.patch_size) ** 2  # CLIP's patches, its class token dropped
    image = model.config.image_token_id
    assert [(row == image).sum().item() for row in ids] == [per_image, per_image]
    # Left padding: row 0 has 2 pad tokens, then the image's tokens, then 3 text tokens.
    assert mask[0, :2].tolist() == [0, 0] and bool(mask[0, 2:].all()) and bool(mask[1].all())
    assert ids.shape[1] == per_image + 5
    assert bool((ids[0, -3:] < sweep.VLM_TEXT_IDS).all()) and bool((ids[1, -5:] < sweep.VLM_TEXT_IDS).all())
    with torch.no_grad():
        model(input_ids=ids, attention_mask=mask, **extra)  # the model takes it as it is


def test_every_kind_has_its_section_on_the_page():
    rows = [dict(architecture="x", kind=kind, built=True, generate=True, recorded=True, calls=8, served=8,
                 programs=2, failure="", line="", seconds={}) for kind in sweep.KINDS]
    header = dict(date="d", torch="t", transformers="tf", nproc=2, jobs=1, timeout=300, cli_args=[], seconds=1.0)
    page = sweep.markdown(rows, header)
    for kind, (_, _, title) in sweep.KINDS.items():
        assert "## %s" % title in page and sweep.SECTION_INTRO[kind] in page


def test_a_multimodal_rope_gets_sections_for_the_tiny_head_and_a_tiny_vision_tower():
    """Qwen2-VL's default config names no rotary sections (its checkpoints do: 16, 24,
    24 for a 128-wide head) and a vision tower of 32 blocks of width 1280."""
    cfg = sweep.tiny_config("qwen2_vl", "vlm")
    text = cfg.text_config
    sections = text.rope_parameters["mrope_section"]
    assert len(sections) == 3 and sum(sections) == (text.hidden_size // text.num_attention_heads) // 2
    assert (cfg.vision_config.depth, cfg.vision_config.embed_dim) == (2, 64)
    assert "mrope_section" not in (sweep.tiny_config("llava", "vlm").text_config.rope_parameters or {})


def test_a_text_model_of_another_type_that_reads_rotary_sections_gets_them():
    """GLM-4.6V's text model is GLM-4V's, whose modeling code reads the sections (default
    8, 12, 12 for a 64-wide rotary half): GLM-4.6V's own module does not name them."""
    cfg = sweep.tiny_config("glm46v", "vlm")
    text = cfg.text_config
    head = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    assert sum(text.rope_parameters["mrope_section"]) == head // 2


def test_a_timed_out_export_says_how_far_it_got(tmp_path):
    """The export writes its output as it goes: a timeout row carries its decisive line so far."""
    assert sweep.so_far(tmp_path) == ""
    (tmp_path / "export.stdout").write_text("== phase 1 ==\nfix loop: the export failed (verification_failed) without "
                                            "suggested fixes: 6 of 6 captured calls fail\n")
    (tmp_path / "export.stderr").write_text("")
    assert sweep.so_far(tmp_path) == ("; so far: the export failed (verification_failed) without suggested fixes: "
                                      "6 of 6 captured calls fail")


def test_a_phase_ended_on_data_dependent_code_names_the_model_line():
    """PaddleOCR-VL's prefill: draft_export stopped there too; that phase is why calls are
    unserved, not a specialization decided in the decode phase before it."""
    stdout = ("/r/dist-packages/transformers/models/paddleocr_vl/modeling_paddleocr_vl.py:513: specialized: "
              "position_ids_dim0 == 4\n"
              "fix loop: torch.export.draft_export stopped on data-dependent code at /r/dist-packages/transformers/"
              "models/paddleocr_vl/modeling_paddleocr_vl.py:623 (Ne(u7, 49152)) too; workaround: torch._check\n")
    assert sweep.cli_line(stdout, "", None) == (
        "transformers/models/paddleocr_vl/modeling_paddleocr_vl.py:623: torch.export.draft_export stopped on "
        "data-dependent code (Ne(u7, 49152)) too; workaround: torch._check")


def test_a_program_left_out_after_the_fresh_process_check_is_the_decisive_line():
    """LightOnOCR's prefill program verified, then failed to load in a new interpreter
    (torch's deserializer): that, not the decode phase's specialization, leaves calls unserved."""
    stderr = ("why: torch's shape decisions:\n  /r/dist-packages/transformers/models/pixtral/modeling_pixtral.py:454: "
              "specialized: batch == 2\n"
              "calls 0, 4 (2 of 8) are served by no exported program; failed the fresh-process check, so left out of "
              "the archive: program phase2 (calls 0, 4): /w/model.pt2 does not load and run in a new interpreter "
              "through dimscope.load_program (program phase2, call 0): torch._export.serde.serialize.SerializeError: "
              "Failed deserializing node\n")
    expected = ("fresh_process: program phase2 (calls 0, 4) does not load and run in a new interpreter: "
                "torch._export.serde.serialize.SerializeError: Failed deserializing node")
    assert sweep.cli_line("", stderr, None) == expected
    # An archive's programs are checked through dimscope.load_programs since issue 29.
    assert sweep.cli_line("", stderr.replace("load_program (", "load_programs ("), None) == expected


def test_a_program_that_rejects_the_calls_names_the_first_rejection():
    """LongCat-Flash: the draft program rejects even its example call; the row says why
    (the runtime assertion), not a guard an earlier round met."""
    stdout = ("verification (* = example call):\n"
              "call   status        max abs     max rel     note\n"
              "1*     rejected      -           -           RuntimeError: Runtime assertion failed for expression "
              "u50 >= 33 on node 'ge_50'\n"
              "2      rejected      -           -           RuntimeError: Runtime assertion failed for expression "
              "u0 >= 24 on node 'ge'\n")
    report = {"failure": {"kind": "verification_failed", "message": "the program exported to m.pt2, but 6 of 6 "
                          "captured calls fail through it: call 1 rejected; call 2 rejected"}}
    stderr = "why: transformers/masking_utils.py:208: guard: -seq_len + seq_len <= 0\n"
    assert sweep.cli_line(stdout, stderr, report) == (
        "verification_failed: 6 of 6 captured calls fail through the program; call 1 rejected: RuntimeError: "
        "Runtime assertion failed for expression u50 >= 33 on node 'ge_50'")
    # Calls that differ (mismatch), none rejected: the failure's own line, as before.
    assert sweep.cli_line("0*     mismatch      0.5   0.1\n", "", report).startswith("verification_failed: the program")
    # The failure is a later phase's: its own calls' rejection, not the first table's.
    later = {"failure": {"kind": "verification_failed", "message": "the program exported to m.pt2, but 2 of 2 "
                         "captured calls fail through it: call 0 rejected; call 4 rejected"}}
    both = stdout + "0*     rejected      -           -           RuntimeError: u145 <= 80\n"
    assert sweep.cli_line(both, stderr, later) == (
        "verification_failed: 2 of 2 captured calls fail through the program; call 0 rejected: RuntimeError: "
        "u145 <= 80")


def test_a_phase_that_fails_verification_names_its_first_failing_call():
    """A phased export whose phase fails verification (the CLI's `fix loop: the export
    failed (verification_failed) ...` line): the row names the first failing call and
    why, from the verification table, past the 160 characters the CLI's line would use
    up on the archive's path. RecurrentGemma: the rebuilt decode call differs (its
    recurrent blocks keep their state outside the cache); DeepSeek-V4: a guard."""
    differs = ("verification (* = example call):\n"
               "call   status        max abs     max rel     note\n"
               "1*     rebuilt_differs  0           0           the model's outputs on the rebuilt call differ from "
               "those recorded at capture time (max abs 0.206)\n"
               "2      rebuilt_differs  0.0797      70.9        the model's outputs differ (max abs 0.179)\n")
    stdout = differs + ("fix loop: the export failed (verification_failed) without suggested fixes: the program "
                        "exported to /w/model.pt2, but 6 of 6 captured calls fail through it: call 1 rebuilt_differs; "
                        "call 2 rebuilt_differs (torch.export calls: 1)\n")
    assert sweep.cli_line(stdout, "", None) == (
        "verification_failed: 6 of 6 captured calls fail through the program; call 1 rebuilt_differs: the model's "
        "outputs on the rebuilt call differ from those recorded at capture time (max abs 0.206)")
    rejected = ("3      rejected      -           -           guard failed: Mod(buffer dim 1, 4) == 0\n"
                "fix loop: the export failed (verification_failed) without suggested fixes: the program exported to "
                "/w/model.pt2, but 3 of 5 captured calls fail through it: call 3 rejected (torch.export calls: 3)\n")
    assert sweep.cli_line(rejected, "", None) == (
        "verification_failed: 3 of 5 captured calls fail through the program; call 3 rejected: guard failed: "
        "Mod(buffer dim 1, 4) == 0")
    # Another kind of phase failure: the CLI's line, as before.
    other = "fix loop: the export failed (export_failed) without suggested fixes: AssertionError: x\n"
    assert sweep.cli_line(other, "", None) == "the export failed (export_failed) without suggested fixes: AssertionError: x"


def test_a_rejection_names_the_model_line_of_the_decision_behind_it():
    """The rejected calls' guard, traced back to the model line in the decisions of the
    export that made the program: ProphetNet's `int()` pins the past length (the guard is a
    size == constant: the first specialization), XLNet's relative shift (a guard with
    ceil/float/mod: the first decision with the same operations), LongCat-Flash's
    draft program (its runtime assertion: the assumption that became it)."""
    def table(reason):
        return ("verification (* = example call):\ncall   status        max abs     max rel     note\n"
                "1*     ok            0           0\n2      rejected      -           -           %s\n" % reason)
    report = {"failure": {"kind": "verification_failed", "message": "the program exported to m.pt2, but 1 of 2 "
                          "captured calls fail through it: call 2 rejected"}}
    decisions = (
        "== phase 1: calls 1-2 ==\n"
        "applied: past_len = 5\n  because:\n"
        "    /r/transformers/models/prophetnet/modeling_prophetnet.py:360: guard: past_len + 1 == 6\n"
        "    /r/transformers/models/prophetnet/modeling_prophetnet.py:360: specialized: past_len == 5\n"
        "    /r/transformers/models/xlnet/modeling_xlnet.py:84: guard: Mod(seq_len, 4) != 0\n"
        "    /r/transformers/models/xlnet/modeling_xlnet.py:181: guard: Mod(CeilToInt(FloatTrueDiv(ToFloat("
        "-m - 2*seq_len), -1.0)), seq_len) != 0\n"
        "draft export: /r/transformers/models/longcat_flash/modeling_longcat_flash.py:206: Eq(u3, 1); "
        "runtime assertion: u145 <= 80\n")
    line = sweep.cli_line(decisions + table("guard failed: attention_mask dim 1 == 6"), "", report)
    assert line == ("verification_failed: call 2 rejected (1 of 2 calls fail): guard failed: attention_mask dim 1 "
                    "== 6 (at transformers/models/prophetnet/modeling_prophetnet.py:360)"), line
    shift = "guard failed: (-1 + math.ceil(torch.sym_float(-1 * mems[0] dim 0) / -1.0)) % perm_mask dim 1 == 0"
    line = sweep.cli_line(decisions + table(shift), "", report)
    assert line.endswith("(at transformers/models/xlnet/modeling_xlnet.py:181)") and len(line) <= 160, line
    draft = "RuntimeError: Runtime assertion failed for expression u145 <= 80 on node 'le_3'"
    line = sweep.cli_line(decisions + table(draft), "", report)
    assert line.endswith("(at transformers/models/longcat_flash/modeling_longcat_flash.py:206)"), line
    # No decision of that kind: the rejection as it is, without a place.
    assert sweep.cli_line(table(shift), "", report).endswith(shift)
    other = "RuntimeError: Runtime assertion failed for expression u9 <= 1 on node 'x'"
    assert sweep.cli_line(table(other), "", report).endswith("on node 'x'")
    # An assertion no reported assumption names (torch asserts more than it reports): the
    # first assumption, from the worker's lines on stderr.
    stderr = ("  worker: draft export: /r/transformers/models/longcat_flash/modeling_longcat_flash.py:207: Eq(u0, 0) "
              "is False (as on the example call); runtime assertion: Ne(u0, 0)\n"
              "  worker: draft export: /r/transformers/models/longcat_flash/modeling_longcat_flash.py:208: u1 is 11\n")
    line = sweep.cli_line(table(other), stderr, report)
    assert line.endswith("(at transformers/models/longcat_flash/modeling_longcat_flash.py:207)"), line


def test_state_kept_on_the_models_modules_is_named_with_its_line():
    """RecurrentGemma: the worker names the attribute its recurrent blocks store between
    calls (modulestate.py); the row gives it with the model line."""
    note = ("the model's outputs on the rebuilt call differ from those recorded at capture time (max abs 0.206): the "
            "model keeps state of its own outside its inputs, which a program does not take: its forward stored "
            "RecurrentGemmaRglru.recurrent_states (/r/usr/lib/python3/dist-packages/transformers/models/"
            "recurrent_gemma/modeling_recurrent_gemma.py:324), RecurrentGemmaRecurrentBlock.conv1d_state (/r/x.py:437); "
            "the call cannot be verified")
    stdout = ("verification (* = example call):\ncall   status        max abs     max rel     note\n"
              "1*     rebuilt_differs  0           0           %s\n"
              "fix loop: the export failed (verification_failed) without suggested fixes: the program exported to "
              "/w/model.pt2, but 6 of 6 captured calls fail through it: call 1 rebuilt_differs (torch.export calls: 1)\n"
              % note)
    line = sweep.cli_line(stdout, "", None)
    assert line.startswith("rebuilt_differs: state kept in RecurrentGemmaRglru.recurrent_states "), line
    assert line.endswith(" (at transformers/models/recurrent_gemma/modeling_recurrent_gemma.py:324)"), line
    assert len(line) <= 160 and sweep.one_line(line) == line

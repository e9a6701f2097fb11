# SPDX-License-Identifier: GPL-3.0-or-later
"""CI's sample of the architecture sweep (issue 20 item 1): a fixed set of architectures
that covers each cache kind, each swept exactly as `scripts/sweep-architectures` sweeps
it (sweep.run_one: built tiny, two generate() calls recorded, one
`dimscope-cli export --fix-loop`, in its own interpreter under the sweep's timeout), and
its outcome compared with the row docs/architectures.json holds for it. A sample row that
no longer matches the committed page fails: fix the regression, or sweep again and commit
the page (`--merge`). Its own ctest entry (real_models_sweep_sample)."""

import functools
import json
import os
import pathlib
import sys

import pytest

pytest.importorskip("transformers", reason="the sweep needs transformers (sid runtime)")

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import sweep  # noqa: E402

PAGE = REPO / "docs" / "architectures.json"

# (kind, architecture): the cache kind or path it stands for. A static cache is not a
# default of any entry (generate() picks it only when asked): the suite's llama_static
# and gemma2_static cover it (real_models).
SAMPLE = {
    ("causal", "llama"): "full attention, grouped key/value heads, rotary positions",
    ("causal", "gpt2"): "full attention, learned positions, the legacy cache layout",
    ("causal", "gpt_neox"): "full attention, partial rotary",
    ("causal", "bert"): "an encoder family's causal-LM head (is_decoder)",
    ("causal", "bloom"): "ALiBi position bias",
    ("causal", "cohere2"): "sliding-window layers beside full layers",
    ("causal", "mamba"): "state-space layers only (convolution and recurrent states)",
    ("causal", "lfm2"): "a hybrid: short-convolution layers beside attention",
    ("causal", "minimax"): "a hybrid: lightning (linear) attention beside attention, mixture of experts, its own "
                           "cache class (MiniMaxCache, recorded by its attributes)",
    ("causal", "mixtral"): "mixture of experts",
    ("causal", "phi3"): "fused projections",
    ("seq2seq", "t5"): "an encoder-decoder: relative position bias, cross-attention cache",
    ("seq2seq", "marian"): "an encoder-decoder: sinusoidal positions",
}


@functools.lru_cache(maxsize=1)
def committed_page():
    """docs/architectures.json, read once for the whole sample."""
    return json.loads(PAGE.read_text())


def committed_rows():
    return {sweep.row_key(r): r for r in committed_page()["rows"]}


def committed_cli_args():
    """The CLI arguments the page's whole run passed (`--cli-arg`): the sample runs as it did."""
    return list(committed_page()["header"].get("cli_args") or [])


def outcome(row):
    """What the page states of a row: served, or its failure class and the calls served."""
    if not row.get("failure"):
        return "served %d of %d" % (row["served"], row["calls"])
    return "%s (%d of %d served)" % (row["failure"], row.get("served", 0), row.get("calls", 0))


def test_the_sample_covers_every_cache_kind():
    rows = committed_rows()
    assert set(SAMPLE) <= set(rows), "sample rows missing from %s: %s" % (PAGE, set(SAMPLE) - set(rows))
    assert len(SAMPLE) >= 12


@pytest.mark.parametrize("key", sorted(SAMPLE), ids=lambda k: "%s-%s" % k)
def test_a_sampled_architecture_is_what_the_page_says(key, tmp_path):
    kind, name = key
    cli = os.environ["DIMSCOPE_CLI"]
    row = sweep.run_one(name, kind, tmp_path, cli, committed_cli_args(), sweep.DEFAULT_TIMEOUT)
    expected = committed_rows()[key]
    assert outcome(row) == outcome(expected), (
        "%s (%s, %s): the page says %s (%s), this run: %s (%s); logs in %s"
        % (name, kind, SAMPLE[key], outcome(expected), expected.get("line"), outcome(row), row.get("line"), tmp_path))

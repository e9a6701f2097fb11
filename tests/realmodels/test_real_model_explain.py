# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 12 on a real transformers model: Mamba's prefill runs a Python loop over the
prompt (the sequential scan), so torch specializes the prompt length; the export's
explanation names transformers' own line (FILE:LINE and its code), not torch's."""

import pathlib
import re

import pytest

pytest.importorskip("transformers", reason="needs transformers (sid runtime)")

from test_real_models import cli, tinymodels  # noqa: E402


@pytest.fixture(scope="module")
def mamba_capture(tmp_path_factory):
    path = tmp_path_factory.mktemp("mamba-explain") / "mamba.safetensors"
    tinymodels.record("mamba", path, prompt_lengths=(5, 8), new_tokens=2)
    return path


def test_mamba_prefill_specialization_names_the_transformers_line(mamba_capture, tmp_path):
    # call 0: the first prefill (prompt of 5)
    done = cli("export", "--model", "%s:mamba" % (pathlib.Path(tinymodels.__file__)), "--capture",
               str(mamba_capture), "--call", "0", "-o", str(tmp_path / "m.pt2"))
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    why = done.stderr.split("why: torch's shape decisions", 1)
    assert len(why) == 2, done.stderr[-4000:]
    lines = re.findall(r"^  (\S*/transformers/models/mamba/modeling_mamba\.py):(\d+): specialized: (.+) == 5\n"
                       r"      (.+)$", why[1], re.M)
    assert lines, why[1]
    for file, line, _expr, code in lines:
        # the code shown is that line of transformers' file
        assert pathlib.Path(file).read_text().splitlines()[int(line) - 1].strip() == code
    assert "/torch/" not in "".join(f for f, *_ in lines)

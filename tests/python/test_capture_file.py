# SPDX-License-Identifier: GPL-3.0-or-later
"""The capture file: both writers, both readers, validation on load."""

import json
import struct

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from conftest import same
from dimscope.capture import CaptureError, InputRecorder, load_capture, read_manifest

WRITERS = ["safetensors", "builtin"]
READERS = ["safetensors", "builtin"]


class Everything(torch.nn.Module):
    def forward(self, tensors):
        return tensors[0]


def official_dtypes():
    import safetensors.torch as st
    return set(getattr(st, "_TYPES", {}).values())


def all_dtype_tensors():
    values = [
        torch.tensor([True, False, True]),
        torch.arange(6, dtype=torch.uint8).reshape(2, 3),
        torch.tensor([-3, 4], dtype=torch.int8),
        torch.tensor([-300, 400], dtype=torch.int16),
        torch.tensor([[-70000], [80000]], dtype=torch.int32),
        torch.tensor([-(2 ** 40), 2 ** 40]),
        torch.tensor([1.5, -2.25], dtype=torch.float16),
        torch.tensor([1.5, -2.25], dtype=torch.bfloat16),
        torch.randn(2, 3, 4),
        torch.randn(3, dtype=torch.float64),
        torch.tensor(7.0),                       # 0-dim
        torch.empty(0, 3),                       # no elements
        torch.randn(4, 6).t(),                   # not contiguous
    ]
    for name in ("uint16", "uint32", "uint64"):
        if hasattr(torch, name):
            values.append(torch.tensor([1, 2, 3], dtype=getattr(torch, name)))
    for name in ("float8_e4m3fn", "float8_e5m2"):
        if hasattr(torch, name):
            values.append(torch.tensor([0.5, -1.0]).to(getattr(torch, name)))
    return values


def record_everything(official_only=False):
    model = Everything()
    values = all_dtype_tensors()
    if official_only:
        values = [v for v in values if v.dtype in official_dtypes()]
    rec = InputRecorder(record_outputs=False)
    with rec(model):
        model(values)
    return rec, values


def as_bits(t):
    # float8 has no torch.equal on some versions: compare the raw bytes.
    return t.contiguous().view(torch.uint8) if t.dtype.itemsize == 1 and t.is_floating_point() else t


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("reader", READERS)
def test_writers_and_readers_round_trip_every_dtype(tmp_path, writer, reader):
    # The official package may lack a few dtypes (U16/U32/U64 before 0.5): those are
    # covered by the builtin writer and reader below.
    rec, values = record_everything(official_only="safetensors" in (writer, reader))
    path = tmp_path / f"{writer}.safetensors"
    rec.save(path, writer=writer)
    loaded = load_capture(path, reader=reader).calls[0].kwargs["tensors"]
    assert len(loaded) == len(values)
    for original, got in zip(values, loaded):
        assert got.dtype == original.dtype and got.shape == original.shape
        same(as_bits(original), as_bits(got))
        assert got.is_contiguous()


def test_builtin_writer_output_is_standard_safetensors(tmp_path):
    rec, values = record_everything()
    path = tmp_path / "builtin.safetensors"
    rec.save(path, writer="builtin")
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    assert (8 + n) % 8 == 0
    header = json.loads(data[8:8 + n])
    entries = sorted((v["data_offsets"] for k, v in header.items() if k != "__metadata__"))
    # Tensors are packed back to back and fill the data area exactly.
    assert entries[0][0] == 0 and entries[-1][1] == len(data) - 8 - n
    assert all(a[1] == b[0] for a, b in zip(entries, entries[1:]))
    # The official library reads it, metadata included.
    with safe_open(str(path), framework="pt") as f:
        assert set(f.metadata()) == {"dimscope.manifest"}
        for i, original in enumerate(values):
            if original.dtype in official_dtypes():
                same(as_bits(original), as_bits(f.get_tensor(f"c0/in/{i}")))


def test_every_format_dtype_round_trips_with_auto(tmp_path):
    rec, values = record_everything()
    rec.save(tmp_path / "auto.safetensors")
    loaded = load_capture(tmp_path / "auto.safetensors").calls[0].kwargs["tensors"]
    for original, got in zip(values, loaded):
        same(as_bits(original), as_bits(got))


@pytest.mark.skipif(not hasattr(torch, "uint16"), reason="torch.uint16 appeared in torch 2.3")
def test_official_writer_lacking_a_dtype_is_a_clear_error(tmp_path):
    model = torch.nn.Identity()
    rec = InputRecorder()
    with rec(model):
        model(torch.tensor([1, 2], dtype=torch.uint16))
    if torch.uint16 in official_dtypes():
        rec.save(tmp_path / "c.safetensors", writer="safetensors")
        return
    with pytest.raises(CaptureError, match="safetensors package cannot write torch.uint16"):
        rec.save(tmp_path / "c.safetensors", writer="safetensors")
    rec.save(tmp_path / "c.safetensors", writer="builtin")
    with pytest.raises(CaptureError, match="safetensors package cannot read torch.uint16"):
        load_capture(tmp_path / "c.safetensors", reader="safetensors")


def test_both_writers_store_the_same_tensors_and_manifest(tmp_path):
    rec, _ = record_everything(official_only=True)
    rec.save(tmp_path / "a.safetensors", writer="safetensors")
    rec.save(tmp_path / "b.safetensors", writer="builtin")
    assert read_manifest(tmp_path / "a.safetensors") == read_manifest(tmp_path / "b.safetensors")


def write_with_manifest(path, manifest, tensors=None):
    metadata = {} if manifest is None else {"dimscope.manifest": json.dumps(manifest)}
    save_file(tensors or {"c0/in/0": torch.ones(2)}, str(path), metadata=metadata)


def small_manifest(tmp_path):
    model = torch.nn.Identity()
    rec = InputRecorder()
    with rec(model):
        model(torch.ones(2))
    rec.save(tmp_path / "ok.safetensors")
    return read_manifest(tmp_path / "ok.safetensors")


def test_load_rejects_unknown_version(tmp_path):
    manifest = small_manifest(tmp_path)
    manifest["version"] = 2
    write_with_manifest(tmp_path / "v2.safetensors", manifest)
    with pytest.raises(CaptureError, match=r"v2.safetensors: capture format version 2 is not supported \(supported: 1\)"):
        load_capture(tmp_path / "v2.safetensors")


def test_load_rejects_wrong_format_and_missing_manifest(tmp_path):
    manifest = small_manifest(tmp_path)
    manifest["format"] = "something.else"
    write_with_manifest(tmp_path / "f.safetensors", manifest)
    with pytest.raises(CaptureError, match="format is not 'dimscope.capture'"):
        load_capture(tmp_path / "f.safetensors")
    write_with_manifest(tmp_path / "plain.safetensors", None)
    with pytest.raises(CaptureError, match="plain.safetensors: not a dimscope capture"):
        load_capture(tmp_path / "plain.safetensors")


def test_load_rejects_manifest_tensor_disagreement(tmp_path):
    manifest = small_manifest(tmp_path)
    write_with_manifest(tmp_path / "absent.safetensors", manifest, {"other": torch.ones(2)})
    with pytest.raises(CaptureError, match=r"leaf 'input': tensor 'c0/in/0' is not in the file"):
        load_capture(tmp_path / "absent.safetensors")
    write_with_manifest(tmp_path / "shape.safetensors", manifest,
                        {"c0/in/0": torch.ones(3), "c0/out/1": torch.ones(2)})
    with pytest.raises(CaptureError, match=r"manifest says F32\[2\], the file holds F32\[3\]"):
        load_capture(tmp_path / "shape.safetensors")


def test_load_rejects_truncated_files(tmp_path):
    (tmp_path / "short").write_bytes(b"abc")
    with pytest.raises(CaptureError, match="shorter than 8 bytes"):
        load_capture(tmp_path / "short")
    (tmp_path / "long").write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(CaptureError, match="header length 1000 runs past the end"):
        load_capture(tmp_path / "long")
    (tmp_path / "json").write_bytes(struct.pack("<Q", 2) + b"{]")
    with pytest.raises(CaptureError, match="not valid JSON"):
        load_capture(tmp_path / "json")


def test_load_onto_a_device(tmp_path):
    manifest_path = tmp_path / "ok.safetensors"
    small_manifest(tmp_path)
    call = load_capture(manifest_path, device="meta").calls[0]
    assert call.kwargs["input"].device.type == "meta"

"""mg.save is atomic, mg.load checks every byte it believes, load_state_dict is all or nothing."""

import errno
import io
import json
import os
import struct
import zipfile

import numpy as np
import pytest

import minigrad as mg
from minigrad.nn import serialization


def checkpoint_bytes(obj=None):
    buffer = io.BytesIO()
    mg.save(obj if obj is not None else {"w": mg.ones(2, 3), "n": mg.arange(4)}, buffer)
    return buffer.getvalue()


def npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def archive(entries, compression=zipfile.ZIP_STORED):
    """A zip of raw entries: name -> bytes (crafted .npy files among them)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def with_header(header, arrays):
    entries = {f"t{i}.npy": npy(a) for i, a in enumerate(arrays)}
    text = header if isinstance(header, str) else json.dumps(header)
    entries["__minigrad__.npy"] = npy(np.array(text))
    return archive(entries)


def good_header(n, **changes):
    header = {"format": 1, "kind": "dict", "names": [f"x{i}" for i in range(n)],
              "devices": ["cpu"] * n, "requires_grad": [False] * n}  # fmt: skip
    header.update(changes)
    return header


def refuses(data, tmp_path, name="model.npz"):
    """mg.load(data) raises ValueError naming the file, and nothing else."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError, match=f"mg.load: .*{name}") as info:
        mg.load(path)
    return str(info.value)


# -- mg.save: a temporary file, then a rename ----------------------------------------------
def test_a_failed_save_leaves_the_old_checkpoint_loadable(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.npz"
    old = {"w": mg.arange(6.0).reshape(2, 3)}
    mg.save(old, path)

    def disk_full(file, **arrays):  # writes part of an archive, then the disk is full
        file.write(b"PK\x03\x04 half an archive")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(serialization.np, "savez", disk_full)
    with pytest.raises(OSError, match="No space left"):
        mg.save({"w": mg.zeros(2, 3)}, path)
    monkeypatch.undo()
    np.testing.assert_array_equal(mg.load(path)["w"].numpy(), old["w"].numpy())
    assert sorted(os.listdir(tmp_path)) == ["ckpt.npz"]  # no temporary file left behind


def test_save_replaces_through_a_symlink_and_keeps_permissions(tmp_path):
    real, link = tmp_path / "real.npz", tmp_path / "link.npz"
    mg.save(mg.zeros(1), real)
    os.chmod(real, 0o640)
    link.symlink_to(real)
    mg.save(mg.ones(1), link)
    assert link.is_symlink() and mg.load(real).tolist() == [1.0]
    assert (os.stat(real).st_mode & 0o777) == 0o640
    umask = os.umask(0o022)
    try:
        mg.save(mg.ones(1), tmp_path / "new.npz")
    finally:
        os.umask(umask)
    assert (os.stat(tmp_path / "new.npz").st_mode & 0o777) == 0o644


# -- mg.load: every malformed input is a ValueError naming the file ---------------------------
def test_a_header_claiming_terabytes_in_a_tiny_file_is_refused_without_allocating(tmp_path):
    real = npy(np.zeros(2, np.float64))
    huge = real.replace(b"(2,)", b"(10000000000000,)")
    data = archive({"t0.npy": huge, "__minigrad__.npy": npy(np.array(json.dumps(good_header(1))))})
    assert len(data) < 1000
    message = refuses(data, tmp_path)
    assert "claims shape (10000000000000,)" in message


def test_an_entry_claiming_more_than_compression_can_give_is_refused(tmp_path):
    data = bytearray(archive({"w.npy": npy(np.zeros(3))}))
    central = data.index(b"PK\x01\x02")  # the central directory's record of the entry
    struct.pack_into("<I", data, central + 24, 2**32 - 1)  # its uncompressed size: 4 GiB
    assert "more than any compression gives" in refuses(bytes(data), tmp_path)


def test_every_truncation_of_a_checkpoint_is_a_value_error(tmp_path):
    data = checkpoint_bytes()
    for n in range(len(data)):
        refuses(data[:n], tmp_path)


def test_every_single_byte_change_loads_or_is_a_value_error(tmp_path):
    data = checkpoint_bytes()
    rng = np.random.default_rng(0)
    for position in range(len(data)):
        changed = bytearray(data)
        changed[position] ^= int(rng.integers(1, 256))
        path = tmp_path / "flipped.npz"
        path.write_bytes(bytes(changed))
        try:
            mg.load(path)
        except ValueError as error:
            assert "flipped.npz" in str(error)


@pytest.mark.parametrize(
    "header, arrays",
    [
        ("not json", [np.zeros(1)]),
        ("[" * 100000 + "]" * 100000, [np.zeros(1)]),
        ([1, 2], [np.zeros(1)]),
        (good_header(1, format=2), [np.zeros(1)]),
        (good_header(1, kind="list"), [np.zeros(1)]),
        (good_header(1, names="x0"), [np.zeros(1)]),
        (good_header(1, names=[5]), [np.zeros(1)]),
        (good_header(2, names=["a", "a"]), [np.zeros(1), np.zeros(1)]),
        (good_header(2), [np.zeros(1)]),
        (good_header(1), [np.zeros(1), np.zeros(1)]),
        (good_header(1, devices=["tpu"]), [np.zeros(1)]),
        (good_header(1, requires_grad=["yes"]), [np.zeros(1)]),
        (good_header(1, requires_grad=[True]), [np.arange(3)]),
        (good_header(1, kind="tensor"), [np.zeros(1)]),
        (good_header(1), [np.array(["text"])]),
        (good_header(1), [np.zeros(2, np.int16)]),
        (good_header(1, bfloat16=[0]), [np.zeros(2, np.float32)]),
        (good_header(1, bfloat16=[1]), [np.zeros(2, np.uint16)]),
        (good_header(1, bfloat16="t0"), [np.zeros(2, np.uint16)]),
        (good_header(1), [np.zeros(2, dtype=[("a", "f4")])]),
        (good_header(1), [np.array([{"x": 1}], dtype=object)]),
        (good_header(1), [np.zeros(1, np.complex128)]),
    ],
)
def test_crafted_headers_and_arrays_are_value_errors(header, arrays, tmp_path):
    refuses(with_header(header, arrays), tmp_path)


def test_crafted_npy_entries_and_archives_are_value_errors(tmp_path):
    good = npy(np.zeros(4, np.float32))
    for entries in [
        {"w.npy": good[:20]},  # the header cut short
        {"w.npy": b"\x93NUMPY\x09\x00" + good[8:]},  # an unknown format version
        {"w.npy": good.replace(b"'<f4'", b"'<f9'")},  # an unknown dtype
        {"w.npy": good.replace(b"(4,)", b"(-4,)")},  # a negative size
        {"w.npy": good.replace(b"(4,)", b"'ab'")},  # a shape that is no tuple
        {"w.npy": good + b"extra"},  # more bytes than the header claims
        {"w.npy": good[:-1]},  # fewer
        {"w.npy": good, "notes.txt": b"hello"},  # something other than arrays
        {"__minigrad__.npy": npy(np.array(3))},  # a description that is not a string
    ]:
        refuses(archive(entries), tmp_path)
    refuses(b"", tmp_path)
    refuses(npy(np.zeros(3)), tmp_path)  # a lone .npy file, not an archive
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="map_location"):
        mg.load(io.BytesIO(checkpoint_bytes()), map_location="tpu")


def test_what_mg_save_and_np_savez_write_still_loads(tmp_path):
    data = checkpoint_bytes({"w": mg.ones(2, 3), "n": mg.arange(4), "e": mg.zeros(0, 5)})
    back = mg.load(io.BytesIO(data))
    assert list(back) == ["w", "n", "e"] and back["e"].shape == (0, 5)
    np.savez_compressed(tmp_path / "c.npz", a=np.zeros((100, 100)), b=np.arange(3).astype(">i8"))
    plain = mg.load(tmp_path / "c.npz")
    assert plain["a"].shape == (100, 100) and plain["b"].tolist() == [0, 1, 2]
    np.save(tmp_path / "f.npy", np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    fortran = np.load(tmp_path / "f.npy")
    np.savez(tmp_path / "f.npz", f=fortran)
    np.testing.assert_array_equal(mg.load(tmp_path / "f.npz")["f"].numpy(), fortran)


# -- load_state_dict: all or nothing -----------------------------------------------------------
def test_load_state_dict_with_an_uncastable_value_changes_nothing():
    layer = mg.nn.Linear(2, 3)
    before = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    state = {"weight": np.ones((3, 2), np.float32), "bias": np.array(["a", "b", "c"])}
    with pytest.raises(RuntimeError, match="Error\\(s\\) in loading state_dict for Linear"):
        layer.load_state_dict(state)
    for k, v in layer.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_floats_round_trip_exactly(dtype, tmp_path):
    # NumPy's files have no bfloat16: it is stored as its words, and the header says so.
    model = mg.nn.Linear(3, 2).to(dtype)
    weird = mg.tensor([float("nan"), float("inf"), -0.0, 1e-7, 65504.0]).to(dtype)
    mg.save({**model.state_dict(), "weird": weird.requires_grad_()}, tmp_path / "m.npz")
    loaded = mg.load(tmp_path / "m.npz")
    assert loaded["weight"].dtype == loaded["weird"].dtype == getattr(mg, dtype)
    assert loaded["weird"].requires_grad
    for name in ("weight", "bias", "weird"):
        want = {**model.state_dict(), "weird": weird}[name].detach().numpy().view(np.uint16)
        np.testing.assert_array_equal(loaded[name].detach().numpy().view(np.uint16), want)
    plain = np.load(tmp_path / "m.npz")  # readable by NumPy alone: the words
    assert plain["t0"].dtype == (np.uint16 if dtype == "bfloat16" else np.float16)

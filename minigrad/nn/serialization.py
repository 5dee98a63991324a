"""``mg.save`` and ``mg.load``: tensors and state dicts in a NumPy ``.npz`` file (lesson 06).

A trained model is its state dict: names -> tensors (``model.state_dict()``).
``mg.save`` writes one NumPy array per tensor into a ``.npz`` archive (a zip
of ``.npy`` files, readable by ``np.load`` anywhere), plus one small entry of
its own that says what was saved: a single tensor or a dict, the order of
the names, and each tensor's device and ``requires_grad``. NumPy's files have
no bfloat16 (lesson 15): such a tensor is stored as its 16-bit words
(``uint16``), and the header lists which entries those are.

Only numbers are stored, never Python objects: ``mg.load`` reads the file
with ``allow_pickle=False``, so loading a file from someone else cannot run
their code (PyTorch's ``torch.load`` unpickles, which can).

    >>> import io, minigrad as mg
    >>> model = mg.nn.Linear(3, 2)
    >>> buffer = io.BytesIO()
    >>> mg.save(model.state_dict(), buffer)
    >>> _ = buffer.seek(0)
    >>> copy = mg.nn.Linear(3, 2)
    >>> copy.load_state_dict(mg.load(buffer))
    <All keys matched successfully>
    >>> bool((copy.weight == model.weight).all())
    True
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import sys
import tempfile
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from minigrad.tensor import factories
from minigrad.tensor.tensor import Tensor

#: The archive entry that describes the rest (a JSON string, not a pickle).
HEADER = "__minigrad__"
FORMAT = 1

Path = str | os.PathLike | IO[bytes]


def save(obj: Tensor | Mapping[str, Tensor], f: Path) -> None:
    """Write a tensor, or a dict of tensors such as ``model.state_dict()``, to ``f``.

    ``f`` is a path (written exactly as given: no ``.npz`` is added) or a
    binary file object. Shapes, dtypes, devices and ``requires_grad`` come
    back from ``mg.load``.

    >>> import io, minigrad as mg
    >>> buffer = io.BytesIO()
    >>> mg.save(mg.tensor([[1, 2]]), buffer)
    >>> _ = buffer.seek(0)
    >>> mg.load(buffer)
    tensor([[1, 2]])
    """
    if isinstance(obj, Tensor):
        kind, tensors = "tensor", {"tensor": obj}
    elif isinstance(obj, Mapping):
        kind, tensors = "dict", dict(obj)
        for name, value in tensors.items():
            if not isinstance(name, str) or name == HEADER:
                raise TypeError(
                    f"mg.save: dict keys must be strings other than {HEADER!r}; got {name!r}"
                )
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"mg.save stores tensors only; the entry {name!r} is a "
                    f"{type(value).__name__}\n(a state dict, model.state_dict(), holds tensors)"
                )
    else:
        raise TypeError(
            f"mg.save stores a Tensor or a dict of Tensors (e.g. model.state_dict()); got a "
            f"{type(obj).__name__}\nNo other Python objects: the file holds numbers only, so "
            "that loading it cannot run code"
        )
    header = {
        "format": FORMAT,
        "kind": kind,
        "names": list(tensors),
        "devices": [t.device for t in tensors.values()],
        "requires_grad": [bool(t.requires_grad) for t in tensors.values()],
    }
    # Archive entries are numbered, so any name (with dots, slashes, ...) is safe.
    arrays = {f"t{i}": t.detach().numpy() for i, t in enumerate(tensors.values())}
    words = [i for i, t in enumerate(tensors.values()) if t.dtype.name == "bfloat16"]
    if words:
        header["bfloat16"] = words
        for i in words:
            arrays[f"t{i}"] = arrays[f"t{i}"].view(np.uint16)
    arrays[HEADER] = np.array(json.dumps(header))
    if isinstance(f, (str, os.PathLike)):
        _write_atomically(f, arrays)
    else:
        np.savez(f, **arrays)


def _write_atomically(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Write the archive beside ``path``, then rename it over ``path`` in one step.

    Opening ``path`` for writing would empty the old checkpoint at once; a
    save that then fails (a full disk, a crash) would leave neither the old
    nor the new one. A rename is atomic: readers see the old file or the
    whole new one, never a part. The new file gets the old one's permission
    bits (or the usual ones for a new file: 0o666 less the umask).
    """
    target = os.path.realpath(path)  # through a symlink, as open() would write
    folder = os.path.dirname(target)
    handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode_for(target: str) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:  # a new file
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def load(f: Path, map_location: str | None = None) -> Tensor | OrderedDict[str, Tensor]:
    """Read what ``mg.save`` wrote: a tensor, or an ordered dict of tensors.

    Tensors go back to the device they were saved from, or to
    ``map_location`` (``"cpu"``, ``"cuda"``) if given. A ``.npz`` written by
    ``np.savez`` loads too, as a dict of its arrays.

    The file is checked before anything is believed: every entry must be a
    ``.npy`` array of numbers whose header claims exactly the bytes the entry
    holds, and the description must name exactly the entries there are. So a
    damaged or crafted file raises ``ValueError`` naming the file, and never
    makes ``load`` allocate more memory than the file's contents can fill.
    """
    if map_location not in (None, "cpu", "cuda"):
        raise ValueError(f"mg.load: map_location must be 'cpu' or 'cuda', not {map_location!r}")
    with contextlib.ExitStack() as stack:
        # A missing file is FileNotFoundError, as from open(); only the contents are checked.
        file = stack.enter_context(open(f, "rb")) if isinstance(f, (str, os.PathLike)) else f
        try:
            archive = stack.enter_context(zipfile.ZipFile(file))
        except (OSError, ValueError, zipfile.BadZipFile, EOFError, NotImplementedError) as error:
            raise ValueError(
                f"mg.load: {_name(f)} is not a NumPy .npz archive written by mg.save ({error})"
            ) from error
        try:
            arrays = {_entry_name(i, f): _read_npy(archive, i, f) for i in archive.infolist()}
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError,
                zlib.error, KeyError) as error:  # fmt: skip
            raise ValueError(f"mg.load: {_name(f)} is a damaged archive ({error})") from error
    return _unpack(arrays, f, map_location)


def _entry_name(info: zipfile.ZipInfo, f: Path) -> str:
    if not info.filename.endswith(".npy"):
        raise ValueError(
            f"mg.load: {_name(f)} holds {info.filename!r}, which is not a .npy array; "
            "an archive from mg.save or np.savez holds nothing else"
        )
    return info.filename[: -len(".npy")]


#: Deflate shrinks data at most about 1032 times, so an entry that claims to
#: unpack to more than this many times its compressed size is lying.
MAX_RATIO = 1100


def _read_npy(archive: zipfile.ZipFile, info: zipfile.ZipInfo, f: Path) -> np.ndarray:
    """One ``.npy`` entry, its header checked against the bytes the entry really holds."""
    if info.file_size > MAX_RATIO * info.compress_size + 4096:
        raise ValueError(
            f"mg.load: in {_name(f)}, the entry {info.filename!r} claims {info.file_size} bytes "
            f"from {info.compress_size} compressed ones, more than any compression gives"
        )
    with archive.open(info) as entry:
        try:
            version = np.lib.format.read_magic(entry)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)  # fmt: skip
            shape, fortran_order, dtype = read_header(entry)
        except (ValueError, TypeError, SyntaxError, KeyError, OverflowError) as error:
            raise ValueError(
                f"mg.load: in {_name(f)}, the entry {info.filename!r} has a damaged .npy "
                f"header ({error})"
            ) from error
        if dtype.hasobject:
            raise ValueError(
                f"mg.load: {_name(f)} holds Python objects, not only numbers (entry "
                f"{info.filename!r}); mg.load does not unpickle them, since that could run code"
            )
        if dtype.kind not in "biufU" or dtype.fields is not None or dtype.subdtype is not None:
            raise ValueError(
                f"mg.load: in {_name(f)}, the entry {info.filename!r} has dtype {dtype}, "
                "which is not an array of numbers"
            )
        claimed = math.prod(shape) * dtype.itemsize
        held = info.file_size - entry.tell()
        if claimed != held:
            raise ValueError(
                f"mg.load: in {_name(f)}, the header of {info.filename!r} claims shape "
                f"{shape} of {dtype} ({claimed} bytes), but the entry holds {held} bytes"
            )
        data = bytearray(claimed)
        if entry.readinto(data) != claimed:
            raise ValueError(f"mg.load: {_name(f)} ends inside the entry {info.filename!r}")
    order = "F" if fortran_order else "C"
    return np.frombuffer(data, dtype=dtype).reshape(shape, order=order)


def _unpack(arrays: dict[str, np.ndarray], f: Path, map_location: str | None) -> Any:
    """The tensors of the archive's arrays: as saved, or (a plain ``np.savez``) by array name."""
    if HEADER not in arrays:
        return OrderedDict(
            (name, _tensor(array, name, f, map_location or "cpu", False))
            for name, array in arrays.items()
        )
    header = _read_header(arrays, f)
    entries = zip(header["names"], header["devices"], header["requires_grad"], strict=True)
    words = set(header.get("bfloat16", []))
    tensors = OrderedDict()
    for i, (name, device, grad) in enumerate(entries):
        array = arrays[f"t{i}"]
        array = _bfloat16(array, name, f) if i in words else array
        tensors[name] = _tensor(array, name, f, map_location or device, grad)
    return tensors["tensor"] if header["kind"] == "tensor" else tensors


def _read_header(arrays: dict[str, np.ndarray], f: Path) -> dict:
    """The description ``mg.save`` wrote, every field checked against the archive."""
    try:
        text = arrays[HEADER]
        if text.dtype.kind != "U" or text.shape != ():
            raise ValueError(f"it is a {text.dtype} array of shape {text.shape}, not a string")
        header = json.loads(str(text))
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError(
                f"unknown format {header.get('format') if isinstance(header, dict) else header!r}"
            )
        names, devices, grads = (
            header.get("names"),
            header.get("devices"),
            header.get("requires_grad"),
        )
        n = len(arrays) - 1
        if header.get("kind") not in ("tensor", "dict"):
            raise ValueError(f"unknown kind {header.get('kind')!r}")
        if not all(isinstance(x, list) and len(x) == n for x in (names, devices, grads)):
            raise ValueError(f"names, devices and requires_grad must list the {n} arrays held")
        if sorted(set(arrays) - {HEADER}) != sorted(f"t{i}" for i in range(n)):
            raise ValueError(f"the arrays are not t0 .. t{n - 1}")
        if not all(isinstance(x, str) for x in names) or len(set(names)) != n:
            raise ValueError("the names must be distinct strings")
        if not all(d in ("cpu", "cuda") for d in devices):
            raise ValueError(f"unknown device among {devices}")
        if not all(isinstance(g, bool) for g in grads):
            raise ValueError("requires_grad must list booleans")
        words = header.get("bfloat16", [])
        if not isinstance(words, list) or not all(type(i) is int and 0 <= i < n for i in words):
            raise ValueError(f"bfloat16 must list entry numbers below {n}")
        if header["kind"] == "tensor" and names != ["tensor"]:
            raise ValueError("a single tensor must be saved under the name 'tensor'")
        return header
    except (KeyError, TypeError, ValueError, RecursionError) as error:
        raise ValueError(
            f"mg.load: the header of {_name(f)} is damaged or from a newer minigrad ({error})"
        ) from error


def _bfloat16(words: np.ndarray, name: str, f: Path) -> np.ndarray:
    """The bfloat16 numbers that ``mg.save`` stored as their 16-bit words."""
    if words.dtype.kind != "u" or words.dtype.itemsize != 2:
        raise ValueError(
            f"mg.load: in {_name(f)}, the bfloat16 array {name!r} is stored as {words.dtype}, "
            "not as 16-bit words (uint16)"
        )
    from minigrad.tensor import dtypes

    return words.astype(np.dtype("<u2")).view(dtypes.bfloat16)


def _tensor(array: np.ndarray, name: str, f: Path, device: str, requires_grad: bool) -> Tensor:
    if array.dtype.kind == "U":
        raise ValueError(f"mg.load: in {_name(f)}, the array {name!r} holds text, not numbers")
    if requires_grad and array.dtype.kind != "f" and array.dtype.name != "bfloat16":
        raise ValueError(
            f"mg.load: in {_name(f)}, the {array.dtype} array {name!r} is marked requires_grad, "
            "which only floating point tensors can be"
        )
    try:
        if array.dtype.byteorder == ">" or (
            array.dtype.byteorder == "=" and sys.byteorder == "big"
        ):
            array = array.astype(array.dtype.newbyteorder("="))
        return factories.tensor(array, requires_grad=requires_grad, device=device)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"mg.load: in {_name(f)}, the array {name!r} cannot be a tensor ({error})"
        ) from error


def _name(f: Path) -> str:
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"

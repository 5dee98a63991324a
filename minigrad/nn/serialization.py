"""``mg.save`` and ``mg.load``: tensors and state dicts in a NumPy ``.npz`` file (lesson 06).

A trained model is its state dict: names -> tensors (``model.state_dict()``).
``mg.save`` writes one NumPy array per tensor into a ``.npz`` archive (a zip
of ``.npy`` files, readable by ``np.load`` anywhere), plus one small entry of
its own that says what was saved: a single tensor or a dict, the order of
the names, and each tensor's device and ``requires_grad``.

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

import json
import os
import zipfile
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
    arrays[HEADER] = np.array(json.dumps(header))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            np.savez(file, **arrays)
    else:
        np.savez(f, **arrays)


def load(f: Path, map_location: str | None = None) -> Tensor | OrderedDict[str, Tensor]:
    """Read what ``mg.save`` wrote: a tensor, or an ordered dict of tensors.

    Tensors go back to the device they were saved from, or to
    ``map_location`` (``"cpu"``, ``"cuda"``) if given. A ``.npz`` written by
    ``np.savez`` loads too, as a dict of its arrays.
    """
    try:
        archive = np.load(f, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ValueError(
            f"mg.load: {_name(f)} is not a NumPy .npz archive written by mg.save ({error})"
        ) from error
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(
            f"mg.load: {_name(f)} holds one NumPy array (a .npy file), not a .npz archive; "
            "read it with np.load"
        )
    with archive:
        try:
            return _unpack(archive, f, map_location)
        except ValueError as error:
            if "allow_pickle" not in str(error):
                raise
            raise ValueError(
                f"mg.load: {_name(f)} holds Python objects, not only numbers; mg.load does not "
                f"unpickle them, since that could run code ({error})"
            ) from error


def _unpack(archive: Any, f: Path, map_location: str | None) -> Any:
    """The tensors of an open archive: as saved, or (a plain ``np.savez``) by array name."""
    if HEADER not in archive.files:
        return OrderedDict(
            (name, _tensor(archive[name], map_location or "cpu", False)) for name in archive.files
        )
    header = _read_header(archive, f)
    entries = zip(header["names"], header["devices"], header["requires_grad"])
    tensors = OrderedDict(
        (name, _tensor(archive[f"t{i}"], map_location or device, grad))
        for i, (name, device, grad) in enumerate(entries)
    )
    return tensors["tensor"] if header["kind"] == "tensor" else tensors


def _read_header(archive: Any, f: Path) -> dict:
    try:
        header = json.loads(str(archive[HEADER]))
        if header["format"] != FORMAT or header["kind"] not in ("tensor", "dict"):
            raise ValueError(f"unknown format {header['format']!r} or kind {header['kind']!r}")
        return header
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(
            f"mg.load: the header of {_name(f)} is damaged or from a newer minigrad ({error})"
        ) from error


def _tensor(array: np.ndarray, device: str, requires_grad: bool) -> Tensor:
    return factories.tensor(array, requires_grad=requires_grad, device=device)


def _name(f: Path) -> str:
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"

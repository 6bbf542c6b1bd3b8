"""Saving and loading an MLP: its architecture and weights as JSON.

The file holds values, not the graph::

    {"format": "micrograd-nn", "version": 1,
     "architecture": {"type": "MLP", "nin": 2, "nouts": [16, 16, 1],
                      "activations": ["relu", "relu", "linear"]},
     "parameters": {"layers.0.neurons.0.w.0": 0.23, ...}}

Floats are written with ``repr``, which reads back to the same float.  A save
writes a temporary file in the same directory, flushes it to disk and renames
it over the target, so a crash or a full disk mid-save leaves the previous file
whole; saving to a symlink writes through it to its target, and a missing
directory is an error naming the path (``save`` creates no directories).  A load
checks everything (JSON, format, version, architecture, every parameter) before
it builds or changes any model, and names the problem in a message of a few
lines: an architecture claiming far more parameters than the file holds is
refused before anything is allocated for it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import random
import reprlib
import stat
from typing import TYPE_CHECKING, Any

from micrograd.files import write_atomically

if TYPE_CHECKING:  # for the type checker only: nn.layers imports this module, not the other way round
    from .layers import MLP

FORMAT = "micrograd-nn"
VERSION = 1
PathLike = str | os.PathLike[str]


# The model class this module saves and rebuilds, with its activation names: nn.layers registers
# MLP when it is imported (it imports this module; this module never imports it).
_MODEL: dict[str, Any] = {}


def register_model(cls: type, activations: Any) -> None:
    """Called by ``nn.layers``: the class that files of type ``cls.__name__`` hold."""
    _MODEL.update(cls=cls, activations=activations)


def _mlp() -> Any:
    return _MODEL["cls"]


class ModelFileError(ValueError):
    """A model file that cannot be loaded: truncated, corrupted, from another
    format version, or holding another architecture (the message says which)."""


def _architecture(model: MLP) -> dict[str, Any]:
    return {"type": "MLP", "nin": model.nin, "nouts": model.nouts, "activations": model.activations}


def save(model: MLP, path: PathLike) -> None:
    """Write ``model`` to ``path`` atomically; refuses non-finite weights.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> from nn import MLP
    >>> model = MLP(2, [4, 1], seed=0)
    >>> save(model, path)
    >>> load(path).state_dict() == model.state_dict()
    True
    """
    if not isinstance(model, _mlp()):
        raise TypeError(f"save() writes an MLP, got {type(model).__name__}; use state_dict() for others")
    params = model.state_dict()
    bad = [name for name, v in params.items() if not math.isfinite(v)]
    if bad:
        raise ValueError(
            f"refusing to save a model with non-finite weights: {len(bad)} of them, first {bad[0]!r} = "
            f"{params[bad[0]]}: training diverged (a learning rate too high), "
            "or nan/inf came in with the data or the loss (check the inputs with math.isfinite)"
        )
    doc = {"format": FORMAT, "version": VERSION, "architecture": _architecture(model), "parameters": params}
    text = json.dumps(doc, allow_nan=False, indent=1) + "\n"
    _atomic_write(os.fspath(path), text.encode("utf-8"))


def _atomic_write(path: str, data: bytes) -> None:
    given = path
    path = os.path.realpath(path)  # a symlink is written through: its target gets the new contents
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        if os.path.exists(directory):
            raise OSError(errno.ENOTDIR, f"save: {directory!r} is a file, not a directory", given)
        raise OSError(
            errno.ENOENT,
            f"save: the directory {directory!r} does not exist (create it first, e.g. with os.makedirs)",
            given,
        )
    write_atomically(given, data, "save")


def _reject_constant(name: str) -> float:
    raise ValueError(f"non-finite number {name}")


MAX_BYTES = 256 * 2**20  # a model file larger than this is refused before it is read


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for key, value in pairs:
        if key in doc:
            raise ValueError(f"the key {_short(key)} appears twice")
        doc[key] = value
    return doc


def _read_bytes(where: str) -> bytes:
    """The file's bytes: a regular file only (a FIFO or a device would block or never end), and
    at most MAX_BYTES of it."""
    # O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever
    fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ModelFileError(
                f"{where}: not a regular file (a directory, pipe or device); give a model file"
            )
        if info.st_size > MAX_BYTES:
            raise ModelFileError(
                f"{where}: {info.st_size:,} bytes, more than a model file may have ({MAX_BYTES:,}); not read"
            )
        raw = f.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ModelFileError(f"{where}: grew past {MAX_BYTES:,} bytes while being read; not read")
    return raw


def _read(path: PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checked architecture and parameters of a model file."""
    where = os.fspath(path)
    raw = _read_bytes(where)
    if not raw.strip():
        raise ModelFileError(f"{where}: the file is empty (an interrupted copy?)")
    try:
        doc = json.loads(
            raw.decode("utf-8"), parse_constant=_reject_constant, object_pairs_hook=_no_duplicates
        )
    except UnicodeDecodeError as e:
        raise ModelFileError(f"{where}: corrupted, not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        cut = " (truncated?)" if e.pos >= len(raw.rstrip()) - 1 else ""
        raise ModelFileError(
            f"{where}: not valid JSON{cut}: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None
    except ValueError as e:
        raise ModelFileError(f"{where}: corrupted: {e}") from None
    except RecursionError:
        raise ModelFileError(f"{where}: corrupted: JSON nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f'{where}: not a {FORMAT} model file (no "format": "{FORMAT}" field)')
    version = doc.get("version")
    if version != VERSION or isinstance(version, bool):
        raise ModelFileError(
            f"{where}: unsupported format version {_short(version)}; this version reads {VERSION}"
        )
    arch = doc.get("architecture")
    params = doc.get("parameters")
    if not isinstance(arch, dict):
        raise ModelFileError(f'{where}: the "architecture" field is missing or not an object')
    if not isinstance(params, dict):
        raise ModelFileError(f'{where}: the "parameters" field is missing or not an object')
    _check_architecture(where, arch, len(params))
    return arch, params


def _short(x: object) -> str:
    """A repr of at most ~100 characters: error messages never quote a whole corrupted file."""
    return reprlib.repr(x)


def _check_architecture(where: str, arch: dict[str, Any], n_params: int) -> None:
    if arch.get("type") != "MLP":
        raise ModelFileError(
            f"{where}: unknown architecture type {_short(arch.get('type'))} (expected 'MLP')"
        )
    nin, nouts, acts = arch.get("nin"), arch.get("nouts"), arch.get("activations")

    def size(n: object) -> bool:
        return isinstance(n, int) and not isinstance(n, bool) and n >= 1

    if not size(nin):
        raise ModelFileError(f"{where}: architecture nin must be a positive int, got {_short(nin)}")
    if not isinstance(nouts, list) or not nouts or not all(size(n) for n in nouts):
        raise ModelFileError(
            f"{where}: architecture nouts must be a list of positive ints, got {_short(nouts)}"
        )
    if (
        not isinstance(acts, list)
        or len(acts) != len(nouts)
        or not all(a in _MODEL["activations"] for a in acts)
    ):
        raise ModelFileError(
            f"{where}: architecture activations must name one of {sorted(_MODEL['activations'])} per layer, "
            f"got {_short(acts)}"
        )
    # Checked before the model is built: an architecture claiming far more parameters than the file
    # holds (a corrupted size, nouts: [10**9]) is refused here instead of allocating a huge model.
    # A small mismatch is left to the key-by-key check, which names the missing and unexpected keys.
    expected = sum((fan_in + 1) * fan_out for fan_in, fan_out in zip([nin, *nouts], nouts))
    if expected > 2 * n_params + 10_000:
        raise ModelFileError(
            f"{where}: corrupted: the architecture MLP({nin}, {_short(nouts)}) has {expected} parameters "
            f"but the file holds {n_params}"
        )


def _fill(where: str, model: MLP, params: dict[str, Any]) -> None:
    try:
        model.load_state_dict(params, strict=True)
    except KeyError as e:
        raise ModelFileError(f"{where}: parameters do not match the architecture: {e.args[0]}") from None
    except (TypeError, ValueError) as e:
        raise ModelFileError(f"{where}: bad parameter value: {e}") from None


def load(path: PathLike) -> MLP:
    """A new MLP with the architecture and weights stored in ``path`` (see ``save``).

    Raises ``ModelFileError`` for a truncated, corrupted, wrong-version or
    inconsistent file, and ``FileNotFoundError`` for a missing one.
    """
    arch, params = _read(path)
    # A private generator: loading never advances Python's global random state.
    model: MLP = _mlp()(arch["nin"], arch["nouts"], activation=arch["activations"], rng=random.Random(0))
    _fill(os.fspath(path), model, params)
    return model


def load_into(model: MLP, path: PathLike) -> None:
    """Load the weights stored in ``path`` into an existing ``model`` of the same
    architecture.  On any error the model is left exactly as it was.
    """
    if not isinstance(model, _mlp()):
        raise TypeError(f"load_into() fills an MLP, got {type(model).__name__}")
    where = os.fspath(path)
    arch, params = _read(path)
    mine = _architecture(model)
    if {k: arch.get(k) for k in mine} != mine:
        raise ModelFileError(
            f"{where}: architecture mismatch: the file holds MLP({arch['nin']}, {_short(arch['nouts'])}, "
            f"activation={_short(arch['activations'])}), the model is {_short(model)}"
        )
    _fill(where, model, params)

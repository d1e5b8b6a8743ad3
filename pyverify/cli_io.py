"""Where a command writes and which device it may run on, checked before any work is done (an unusable
``--out`` or ``--device`` is exit 2 with the path or device named, never a traceback after a long run)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .atomic import write_text_atomic

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


def device_problem(spec: str) -> str | None:
    """Why ``--device spec`` cannot run the checks here (None: it can): checked before any work."""
    import torch

    try:
        device = torch.device(spec)
    except (RuntimeError, ValueError):
        return f"--device {spec}: not a device; give cpu or cuda[:N]"
    if device.type == "cpu":
        return None
    if device.type != "cuda":
        return f"--device {spec}: the checks run on cpu or cuda[:N], not {device.type}"
    if not torch.cuda.is_available():
        return f"--device {spec} was asked for, but no CUDA device is available (torch {torch.__version__})"
    if device.index is not None and device.index >= torch.cuda.device_count():
        return f"--device {spec}: there is no CUDA device {device.index} ({torch.cuda.device_count()} available)"
    return None


def usage_error(msg: str) -> int:
    print(f"pyverify: {msg}", file=sys.stderr)
    return EXIT_INPUT


class OutputPathError(ValueError):
    """An --out path that cannot be written (checked before any work is done)."""


def output_file(path: str | None) -> None:
    """A file to write: its folder is created and shown to take a file before any work is done; a
    folder in its place is refused."""
    if path is None:
        return
    target = Path(path)
    if not path or target.is_dir():
        raise OutputPathError(f"--out {path}: is a folder; give a file name")
    _make_folder(target.parent, path)
    try:  # a real write: permissions, a read-only mount, a full disk
        probe = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".probe")
        probe.close()
    except OSError as exc:
        raise OutputPathError(f"--out {path}: cannot write in the folder {target.parent}: {exc.strerror or exc}") from None


def write_output(path: str, text: str) -> int:
    """The final write of an --out file; EXIT_INPUT (naming the path) when it fails, so that a job that
    reads the file later does not go on without it."""
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        print(f"pyverify: --out {path}: the result could not be written: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK


def output_folder(path: str) -> None:
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputPathError(f"--out {path}: is a file, not a folder; give a folder (it is created if missing)")
    _make_folder(target, path)


def _make_folder(folder: Path, shown: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"--out {shown}: cannot create the folder {folder}: {exc.strerror or exc}") from None

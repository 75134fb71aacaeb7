"""Files for the CLI and the tables: JSON from a path or stdin, capped and checked reads,
one writer per file (an exclusive lock), and writes that fail in one line.

Named ``files`` (not ``io``) so it never shadows the standard library's ``io``.

Every read goes through :func:`read_bytes`: a path with a NUL byte or an over-long name, a
FIFO, ``/dev/zero`` or a folder, and anything over the cap is one :class:`InputError`,
never a hang or a MemoryError. Every file a table keeps (a journal, a saved game) is held
with :func:`lock_exclusive` for the table's lifetime, so a second table on it is refused
with the process that holds it; every write failure is a :class:`WriteError` saying what
is safe.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.data import MAX_READ_BYTES as MAX_READ_BYTES
from companion.data import check_path as check_path
from companion.data import read_bytes as read_bytes
from companion.errors import BusyError, InputError, WriteError


def source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_stdin(limit: int = MAX_READ_BYTES) -> str:
    """Standard input as UTF-8 text, capped; bad bytes are one InputError."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a test's StringIO
        text = sys.stdin.read(limit + 1)
        raw = None
    else:
        raw = stream.read(limit + 1)
        text = ""
    if raw is not None:
        if len(raw) > limit:
            raise InputError("", f"over {limit} bytes on standard input", "<stdin>")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"byte {exc.start}", "not UTF-8 text", "<stdin>") from None
    elif len(text) > limit:
        raise InputError("", f"over {limit} characters on standard input", "<stdin>")
    return text


def tolerant_stdin() -> None:
    """A line mode reads any typed line: bytes that are not UTF-8 (the Pi's en_GB.UTF-8
    locale decodes strictly) become U+FFFD, so the line is answered as any unknown line
    is, never a UnicodeDecodeError out of the loop."""
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="replace")


def read_text(path: str) -> str:
    """The whole text of ``path`` (``-`` is stdin); a missing, binary or special file is
    an InputError."""
    if path == "-":
        return read_stdin()
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"byte {exc.start}", "not UTF-8 text", path) from None


def parse_json(text: str, source: str) -> Any:
    """JSON with errors naming the place; numbers that no file of ours holds (a 5,000-digit
    integer, NaN, Infinity) are refused here, once for every reader."""
    try:
        return json.loads(
            text, parse_constant=_no_constant, parse_int=_checked_int, parse_float=_checked_float
        )
    except json.JSONDecodeError as exc:
        raise InputError(
            f"line {exc.lineno} column {exc.colno}", f"not JSON: {exc.msg}", source
        ) from None
    except RecursionError:
        raise InputError("", "nested too deeply to be a companion file", source) from None
    except InputError as exc:
        raise exc.in_source(source) from None


MAX_INT_DIGITS = 30  # any count, stamp or seed of ours fits; beyond is not a number of ours


def _checked_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InputError("", f"a number of {len(text)} digits is too big for a companion file")
    return int(text)


def _checked_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError("", f"{text} is too big to be a number of a companion file")
    return value


def _no_constant(name: str) -> Any:
    raise InputError("", f"{name} is not a number a companion file holds")


def read_json(path: str) -> Any:
    return parse_json(read_text(path), source_name(path))


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


# -- writing ---------------------------------------------------------------------------------


def write_atomic(path: str | Path, text: str | bytes, safe: str = "the file is unchanged") -> None:
    """Write a whole file: a temporary beside it, synced, then renamed over it, so the old
    file stays whole until the new one is. A failure is one WriteError, the temporary gone."""
    target = Path(check_path(path))
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        with tmp.open("wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise WriteError(f"{target}: cannot write ({exc.strerror or exc}); {safe}") from None


# -- one writer per file ---------------------------------------------------------------------


@dataclass
class LockedFile:
    """An open file held with an exclusive lock until :meth:`release` (or the process ends)."""

    path: Path
    fd: int

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the last descriptor releases the lock
            self.fd = -1


def make_room(path: Path, new: bool) -> Path | None:
    """Before a new game is saved at ``path``: a game already there is refused in one line
    unless ``new`` says to start another, and then set aside, never deleted. Returns the
    name it was kept under (None when the place was free)."""
    if not path.exists():
        return None
    if not new:
        raise InputError(
            "",
            "holds a game: --resume continues it, --new starts a new game (the old file is kept)",
            str(path),
        )
    from companion.data import archive

    return archive(path)


def holder_of(path: Path) -> str:
    """Which process holds a lock on ``path``, from /proc/locks (Linux), for the message."""
    try:
        st = path.stat()
        wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted:
                pid = fields[4]
                return f"process {pid} ({_command_of(pid)})"
    except (OSError, ValueError):
        pass
    return "another process"


def _command_of(pid: str) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    return " ".join(Path(words[0]).name if i == 0 else w for i, w in enumerate(words))[:80]


def lock_beside(path: Path, what: str) -> LockedFile:
    """Hold a file that is replaced whole at every save (a saved game) through a lock file
    beside it (``.NAME.lock``), whose name never changes; errors name the file itself."""
    lock = path.with_name(f".{path.name}.lock")
    try:
        return lock_exclusive(lock, what, shown_as=path)
    except BusyError as exc:
        raise BusyError(str(exc).replace(str(lock), str(path), 1)) from None


def lock_exclusive(
    path: Path, what: str, flags: int = os.O_RDWR | os.O_CREAT, shown_as: Path | None = None
) -> LockedFile:
    """Open ``path`` and hold an exclusive lock on it, or one BusyError naming the holder.

    The path must be a regular file (or not yet exist). The lock is taken on the file the
    name points to once locked: a file renamed away meanwhile is let go and taken again.
    """
    text = check_path(path)
    for _ in range(5):
        try:
            fd = os.open(text, flags | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
        except IsADirectoryError:
            raise InputError("", f"is a folder: name a {what} file in it", text) from None
        except OSError as exc:
            raise WriteError(f"{text}: cannot open the {what} ({exc.strerror or exc})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise InputError("", f"not a regular file (a device or a pipe): not a {what}", text)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BusyError(
                f"{shown_as or text}: the {what} is in use by {holder_of(path)}: "
                "one table per file; stop that one first"
            ) from None
        try:
            same = os.stat(text).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.set_blocking(fd, True)
            return LockedFile(path, fd)
        os.close(fd)
    raise BusyError(f"{text}: the {what} keeps being replaced by another process")

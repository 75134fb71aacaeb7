"""Files for the CLI and the tables: JSON from a path or stdin, capped and checked reads,
one writer per file (an exclusive lock), and writes that fail in one line.

Named ``files`` (not ``io``) so it never shadows the standard library's ``io``.

Every read goes through :func:`read_bytes`: a path with a NUL byte or an over-long name, a
FIFO, ``/dev/zero`` or a folder, and anything over the cap is one :class:`InputError`,
never a hang or a MemoryError. Every file a table keeps (a journal, a saved game) is held
with :func:`lock_exclusive` for the table's lifetime, so a second table on it is refused
with the process that holds it; every write failure is a :class:`WriteError` saying what
is safe. Every write goes only where nothing is or a regular file is
(:func:`check_target`): a device, a FIFO, a socket, a folder or a symbolic link there is
one InputError, never replaced, renamed aside or written through.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import text as gate
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


def parse_json(
    text: str, source: str, pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """JSON with errors naming the place; numbers that no file of ours holds (a 5,000-digit
    integer, NaN, Infinity), nesting deeper than a file of ours and any string the gate for
    outside text refuses (companion/text.py) are refused here, once for every reader.
    ``pairs_hook`` builds each object (a reader that wants to see a key given twice)."""
    try:
        value = json.loads(
            text,
            parse_constant=_no_constant,
            parse_int=_checked_int,
            parse_float=_checked_float,
            object_pairs_hook=pairs_hook,
        )
        gate.clean_tree(value)  # every string in it, once, for every reader
        return value
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

_NOT_A_FILE = (
    (stat.S_ISLNK, "is a symbolic link, not a file: give the file's own path"),
    (stat.S_ISDIR, "is a folder, not a file: give a file's path"),
    (stat.S_ISCHR, "is a device, not a file: give a file's path"),
    (stat.S_ISBLK, "is a device, not a file: give a file's path"),
    (stat.S_ISFIFO, "is a named pipe, not a file: give a file's path"),
    (stat.S_ISSOCK, "is a socket, not a file: give a file's path"),
)


def check_target(path: str | Path) -> str:
    """The path as text if a file may be written there: nothing yet, or a regular file.

    Anything else (a device, a FIFO, a socket, a folder, a symbolic link even to a file)
    is one InputError naming the path, so no write replaces, renames aside or writes
    through it: a symlink is refused rather than followed, as the one rule that cannot
    surprise (``/dev/full``, a loop, a link into another folder). ``lstat`` looks at the
    name itself; the opens that follow add O_NOFOLLOW, so a link swapped in is refused too.
    """
    text = check_path(path)
    if not text or text.endswith("/"):
        raise InputError("", "is a folder, not a file: give a file's path", text or "''")
    try:
        mode = os.lstat(text).st_mode
    except FileNotFoundError:
        return text
    except OSError as exc:
        raise InputError("", f"cannot write here: {exc.strerror or exc}", text) from None
    for test, message in _NOT_A_FILE:
        if test(mode):
            raise InputError("", message, text)
    return text


WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_atomic(
    path: str | Path, text: str | bytes, safe: str = "the file is unchanged", mode: int = 0o666
) -> None:
    """Write a whole file: a temporary beside it, synced, then renamed over it, so the old
    file stays whole until the new one is. A failure is one WriteError, the temporary gone;
    a place that is not a file (:func:`check_target`) is one InputError, left untouched.
    ``mode`` (less the umask) is the new file's from its creation (0o600: a secret)."""
    target = Path(check_target(path))
    tmp = target.with_name(f".{target.name}.tmp")
    made = False
    try:
        fd = _create(tmp, mode)
        made = True
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        check_target(target)  # again, just before: a node put there meanwhile stays
        os.replace(tmp, target)
    except (OSError, InputError) as exc:
        if made:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
        if isinstance(exc, InputError):
            raise exc from None
        raise WriteError(f"{target}: cannot write ({exc.strerror or exc}); {safe}") from None


def _create(tmp: Path, mode: int = 0o666) -> int:
    """A new temporary, created here and nowhere else (O_EXCL, O_NOFOLLOW); a regular file
    left by a write that was cut off is ours and replaced, anything else is refused."""
    try:
        return os.open(tmp, WRITE_FLAGS, mode)  # less the umask, as open() gives
    except FileExistsError:
        check_target(tmp)
        tmp.unlink()
        return os.open(tmp, WRITE_FLAGS, mode)  # less the umask, as open() gives


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
    name it was kept under (None when the place was free). A device, a FIFO or a link
    there is refused (:func:`check_target`), never renamed aside."""
    check_target(path)
    if not os.path.lexists(path):
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
    beside it (``.NAME.lock``), whose name never changes; errors name the file itself.
    The file must be one a save may replace (:func:`check_target`)."""
    check_target(path)
    lock = path.with_name(f".{path.name}.lock")
    try:
        return lock_exclusive(lock, what, shown_as=path)
    except BusyError as exc:
        raise BusyError(str(exc).replace(str(lock), str(path), 1)) from None


def lock_exclusive(
    path: Path, what: str, flags: int = os.O_RDWR | os.O_CREAT, shown_as: Path | None = None
) -> LockedFile:
    """Open ``path`` and hold an exclusive lock on it, or one BusyError naming the holder.

    The path must be a regular file (or not yet exist): anything else, a symbolic link
    too, is refused (:func:`check_target`; O_NOFOLLOW on the open). The lock is taken on
    the file the name points to once locked: a file renamed away meanwhile is let go and
    taken again.
    """
    text = check_target(path)
    for _ in range(5):
        try:
            fd = os.open(text, flags | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW, 0o644)
        except IsADirectoryError:
            raise InputError("", "is a folder, not a file: give a file's path", text) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a link put there since the check
                check_target(text)
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

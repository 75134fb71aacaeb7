"""The table on everyone's phone: web pages served by the Pi (docs/web.md).

:mod:`.hub` is the generic table hub (a table publishes its state, receives actions);
:mod:`.land`, :mod:`.photo` and :mod:`.sheet` are the pages that need no live table;
:mod:`.app` is the Starlette application and :mod:`.serve` runs it under uvicorn;
:mod:`.bench` is ``companion bench web``. The live tables' pages are beside their tables
(``tables/chomp/web.py``, ``tables/getbit/web.py``, ``tables/chips/web.py``), stdlib only.
Starlette, uvicorn and segno come with the ``web`` extra and are imported only by
:mod:`.app` and :mod:`.serve`, so ``companion --help`` never loads them.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path

from companion import text as gate
from companion.errors import CompanionError, InputError

DEFAULT_HOST, DEFAULT_PORT = "0.0.0.0", 8080
CODE_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud or typed
CODE_LENGTH = 8  # 40 bits: enough on a home network, short enough to type
CODE_FORM = re.compile(f"[{CODE_LETTERS}]{{{CODE_LENGTH}}}")
INSTALL_HINT = "the web pages need the web extra: .venv/bin/pip install -e '.[web]'"


class WebUnavailable(CompanionError, ImportError):
    """Starlette, uvicorn or segno is missing: the web extra is not installed."""

    def __init__(self) -> None:
        super().__init__(INSTALL_HINT)


class RootRefused(CompanionError, PermissionError):
    """The server is not run as root: a page bug must not own the Pi."""

    def __init__(self) -> None:
        super().__init__(
            "the web server does not run as root: start it as an ordinary user "
            "(the pi user, or the systemd unit's User=)"
        )


def require_web() -> None:
    """Import the web extra's packages, or raise WebUnavailable saying how to get them."""
    try:
        import segno  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise WebUnavailable() from None


def parse_listen(text: str, where: str = "--web") -> tuple[str, int]:
    """``[HOST:]PORT`` (``8080``, ``0.0.0.0:8080``, ``[::]:8080``)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = DEFAULT_HOST, text
    host = host.strip("[]") or DEFAULT_HOST
    number = gate.number_or_none(port, low=0, high=65535)
    if number is None:
        raise InputError(where, f"{text!r}: write [HOST:]PORT, a port number up to 65535")
    return host, number


def check_web(listen: str | None) -> None:
    """``--web`` on a table's command, checked before the table opens anything: the
    extra, the address, and that this is not root (the server would refuse later)."""
    if listen is not None:
        require_web()
        parse_listen(listen)
        if os.geteuid() == 0:
            raise RootRefused()


# --------------------------------------------------------------------------------------
# The join code, kept across restarts of the same table (docs/web.md#join-codes)
# --------------------------------------------------------------------------------------


def new_code() -> str:
    """A random join code."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str:
    """A code as typed, in its one form: no spaces anywhere, lower case ("AB CD" = "abcd")."""
    return "".join(text.split()).lower()


def state_folder() -> Path:
    """The user's state folder for companion: ``$XDG_STATE_HOME/companion``, else
    ``~/.local/state/companion`` (where ``companion web`` alone keeps its code)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "companion"


def kept_code(
    path: Path | None, renew: bool = False, warn: Callable[[str], None] = lambda _: None
) -> str:
    """The table's join code: the one in ``path`` (kept from its last start), or a new one
    written there (mode 0600) when there is none, ``renew`` asks for one, or the file is
    damaged (then ``warn`` gets one line). A code that cannot be written holds until the
    server stops (one warning); nothing here raises."""
    if path is None:
        return new_code()
    if not renew and (path.exists() or path.is_symlink()):
        from companion.files import read_text

        try:
            code = normal_code(read_text(str(path)))
        except CompanionError as exc:
            warn(f"{path}: the join code file is unreadable ({exc}): a new join code")
        else:
            if CODE_FORM.fullmatch(code):
                return code
            warn(f"{path}: the join code file is damaged: a new join code")
    code = new_code()
    save_code(path, code, warn)
    return code


def save_code(path: Path, code: str, warn: Callable[[str], None] = lambda _: None) -> None:
    """Write ``code`` to ``path`` for the next start (mode 0600: the code is a secret)."""
    from companion.files import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, code + "\n", "the code holds until the server stops", mode=0o600)
    except (CompanionError, OSError) as exc:
        warn(f"{path}: the join code cannot be kept ({exc}): it holds until the server stops")

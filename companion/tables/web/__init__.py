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

from companion import text as gate
from companion.errors import CompanionError, InputError

DEFAULT_HOST, DEFAULT_PORT = "0.0.0.0", 8080
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

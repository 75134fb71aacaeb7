"""The ``[web]`` and ``[history]`` tables any table's config may hold.

A table that lives on the Pi is started by a systemd unit with ``--config FILE`` and
nothing else, so whether it serves the phones' page and where it records its games belong
in that file, not only on the command line. Every table's config reads them the same way
(CHOMP!, Get Bit!, Chips); the command line wins over the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from companion import data
from companion.tables.web import DEFAULT_PORT, parse_listen

SETTINGS_KEYS = ("web", "history")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What the config says about the page and the history."""

    web_listen: str | None = None  # "[HOST:]PORT" (a bare [web]: 8080); None: only with --web
    history_db: Path | None = None  # None: the default database (docs/history.md)
    record: bool = True

    def listen(self, given: str | None) -> str | None:
        """Where the page is served: ``--web`` wins over ``[web] listen``."""
        return given if given is not None else self.web_listen

    def database(self, given: str | None) -> str | None:
        """The history database: ``--db`` wins over ``[history] db``."""
        if given is not None or self.history_db is None:
            return given
        return str(self.history_db)

    def recording(self, refused: bool) -> bool:
        """Whether a finished game is recorded: ``--no-history`` or ``record = false``."""
        return self.record and not refused

    def relative_to(self, folder: Path) -> TableSettings:
        """A relative database path is read from the config's folder, like the journal."""
        if self.history_db is None or self.history_db.is_absolute():
            return self
        return TableSettings(self.web_listen, folder / self.history_db, self.record)


def settings_from(raw: Mapping[str, object]) -> TableSettings:
    """The settings of a parsed config: its top-level ``[web]`` and ``[history]``."""
    web_path, history_path = SETTINGS_KEYS
    listen = None
    if "web" in raw:
        web = data.obj(raw["web"], web_path, optional=("listen",))
        here = data.at(web_path, "listen")
        listen = data.name(web.get("listen", str(DEFAULT_PORT)), here, "address")
        parse_listen(listen, here)
    db, record = None, True
    if "history" in raw:
        history = data.obj(raw["history"], history_path, optional=("db", "record"))
        if "db" in history:
            db = Path(data.name(history["db"], data.at(history_path, "db"), "path"))
        record = data.boolean(history.get("record", True), data.at(history_path, "record"))
    return TableSettings(listen, db, record)

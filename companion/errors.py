"""One exception family for the whole project.

Every error the project raises on purpose derives from :class:`CompanionError`, and each
also subclasses the builtin a caller would naturally catch (``ValueError`` for bad data,
``RuntimeError`` for hardware trouble), as gpiozero does.  The CLI turns any of them into
one line on stderr and exit status 2.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error raised by companion."""


class InputError(CompanionError, ValueError):
    """Bad data from outside: a file, a config, a typed grid, bytes off a wire.

    ``where`` names the place (a JSON path, ``line 3 column 7``, a config key) so the
    message can point a person straight at it.
    """

    def __init__(self, where: str, message: str, source: str | None = None) -> None:
        self.where = where
        self.message = message
        self.source = None if source is None else str(source)  # a Path names its file too
        super().__init__(self.__str__())

    def in_source(self, source: str) -> InputError:
        """The same error, naming the file it came from."""
        return type(self)(self.where, self.message, source)

    def __str__(self) -> str:
        parts = [p for p in (self.source, self.where) if p]
        return ": ".join([*parts, self.message])


class RuleError(CompanionError, ValueError):
    """A move the rules do not allow (a card not in hand, a round after the game ended)."""


class ConfigError(InputError):
    """A configuration file that cannot be used as it stands."""


class HardwareError(CompanionError, RuntimeError):
    """A device that is missing, busy or misbehaving."""


class BusyError(CompanionError, RuntimeError):
    """A file another process is using (a journal or a save file held by a running table)."""


class WriteError(CompanionError, OSError):
    """A file that could not be written (a full disk, an I/O error): the message says what
    failed and what is safe, since the table stops rather than lose a line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

"""Reading input files for the CLI: JSON from a path or stdin, errors naming the file.

Named ``files`` (not ``io``) so it never shadows the standard library's ``io``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from companion.errors import InputError


def source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_text(path: str) -> str:
    """The whole text of ``path`` (``-`` is stdin); a missing or binary file is an InputError."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("", "no such file", path) from None
    except IsADirectoryError:
        raise InputError("", "is a directory, not a file", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"byte {exc.start}", "not UTF-8 text", path) from None
    except OSError as exc:
        raise InputError("", exc.strerror or str(exc), path) from None


def parse_json(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"line {exc.lineno} column {exc.colno}", f"not JSON: {exc.msg}", source
        ) from None
    except RecursionError:
        raise InputError("", "nested too deeply to be a companion file", source) from None


def read_json(path: str) -> Any:
    return parse_json(read_text(path), source_name(path))


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)

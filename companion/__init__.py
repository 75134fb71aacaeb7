"""companion: a Raspberry Pi tabletop companion for five physical games.

The names exported here are the supported Python surface (docs/api.md shows them at
work): open a CHOMP! table, referee its rounds, read and audit its journal, judge a round
or score a Chomp land from data. Everything else in the package may change.

Each name is imported from its home on first use (module ``__getattr__``), so
``import companion`` and ``companion --help`` load no engine, no referee and no gpiozero.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> (module, name in that module)
_EXPORTS: dict[str, tuple[str, str]] = {
    # a CHOMP! table: its config, opening it, what it takes and shows
    "ChompConfig": ("companion.tables.chomp.config", "ChompConfig"),
    "PlayerConfig": ("companion.tables.chomp.config", "PlayerConfig"),
    "load_chomp_config": ("companion.tables.chomp.config", "load_config"),
    "LedConfig": ("companion.devices.wiring", "LedConfig"),
    "LedKind": ("companion.devices.wiring", "LedKind"),
    "BuzzerConfig": ("companion.devices.wiring", "BuzzerConfig"),
    "ChompSession": ("companion.tables.chomp.session", "ChompSession"),
    "TablePin": ("companion.tables.chomp.session", "TablePin"),
    "open_chomp_session": ("companion.tables.chomp.session", "open_chomp_session"),
    # its referee's loop: the inputs it takes, what it says back
    "RefereeDaemon": ("companion.referee.daemon", "RefereeDaemon"),
    "StartRound": ("companion.referee.daemon", "StartRound"),
    "Cards": ("companion.referee.daemon", "Cards"),
    "Shutdown": ("companion.referee.daemon", "Shutdown"),
    "RefereeStatus": ("companion.referee.daemon", "RefereeStatus"),
    "RefereeStep": ("companion.referee.core", "RefereeStep"),
    "Phase": ("companion.referee.core", "Phase"),
    "RevealStamp": ("companion.signals", "RevealStamp"),
    "RevealBy": ("companion.signals", "RevealBy"),
    "TimingClass": ("companion.signals", "TimingClass"),
    "Cue": ("companion.signals", "Cue"),
    "Signal": ("companion.signals", "Signal"),
    # the journal, and a dispute settled from it
    "read_journal": ("companion.referee.journal", "read_journal"),
    "audit": ("companion.referee.audit", "audit"),
    # CHOMP!'s rules, from data
    "Card": ("companion.games.chomp", "Card"),
    "Mode": ("companion.games.chomp", "Mode"),
    "TwoPlayerEnd": ("companion.games.chomp", "TwoPlayerEnd"),
    "Slap": ("companion.games.chomp", "Slap"),
    "Verdict": ("companion.games.chomp", "Verdict"),
    "RoundResult": ("companion.games.chomp", "RoundResult"),
    "judge": ("companion.games.chomp", "judge"),
    "headline": ("companion.games.chomp.text", "headline"),
    # Chomp, the dinosaur land game, from data
    "land_from_dict": ("companion.games.dino.formats", "land_from_dict"),
    "score_land": ("companion.games.dino", "score"),
    # errors: one family, each also the builtin a caller would catch
    "CompanionError": ("companion.errors", "CompanionError"),
    "InputError": ("companion.errors", "InputError"),
    "ConfigError": ("companion.errors", "ConfigError"),
    "RuleError": ("companion.errors", "RuleError"),
    "HardwareError": ("companion.errors", "HardwareError"),
}

__all__ = [
    "BuzzerConfig",
    "Card",
    "Cards",
    "ChompConfig",
    "ChompSession",
    "CompanionError",
    "ConfigError",
    "Cue",
    "HardwareError",
    "InputError",
    "LedConfig",
    "LedKind",
    "Mode",
    "Phase",
    "PlayerConfig",
    "RefereeDaemon",
    "RefereeStatus",
    "RefereeStep",
    "RevealBy",
    "RevealStamp",
    "RoundResult",
    "RuleError",
    "Shutdown",
    "Signal",
    "Slap",
    "StartRound",
    "TablePin",
    "TimingClass",
    "TwoPlayerEnd",
    "Verdict",
    "audit",
    "headline",
    "judge",
    "land_from_dict",
    "load_chomp_config",
    "open_chomp_session",
    "read_journal",
    "score_land",
]

if TYPE_CHECKING:
    from companion.devices.wiring import BuzzerConfig, LedConfig, LedKind
    from companion.errors import (
        CompanionError,
        ConfigError,
        HardwareError,
        InputError,
        RuleError,
    )
    from companion.games.chomp import (
        Card,
        Mode,
        RoundResult,
        Slap,
        TwoPlayerEnd,
        Verdict,
        judge,
    )
    from companion.games.chomp.text import headline
    from companion.games.dino import score as score_land
    from companion.games.dino.formats import land_from_dict
    from companion.referee.audit import audit
    from companion.referee.core import Phase, RefereeStep
    from companion.referee.daemon import (
        Cards,
        RefereeDaemon,
        RefereeStatus,
        Shutdown,
        StartRound,
    )
    from companion.referee.journal import read_journal
    from companion.signals import Cue, RevealBy, RevealStamp, Signal, TimingClass
    from companion.tables.chomp.config import ChompConfig, PlayerConfig
    from companion.tables.chomp.config import load_config as load_chomp_config
    from companion.tables.chomp.session import ChompSession, TablePin, open_chomp_session


def __getattr__(name: str) -> Any:
    """Import an exported name from its home the first time it is asked for."""
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'companion' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])

"""Made-up CHOMP! journals, as the referee writes them, for the benchmark, the tests and
the README's plot. Every round is judged and settled by the rules (``games.chomp``), so
the verdicts are the ones the referee would give; only the players are invented.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from companion.games.chomp import ChompGame, Round, Slap, TwoPlayerEnd, new_deck

# A player's typical reaction after the reveal (ms), how much it varies, how keen she is
# to slap, and how often she jumps the gun.
PLAYERS: dict[str, tuple[float, float, float, float]] = {
    "ann": (330.0, 60.0, 0.8, 0.02),
    "bob": (390.0, 90.0, 0.7, 0.05),
    "cat": (360.0, 50.0, 0.9, 0.01),
    "dan": (440.0, 110.0, 0.6, 0.03),
}
MS = 1_000_000
START = {
    "type": "start",
    "version": 1,
    "mode": "standard",
    "tie_window_us": 500,
    "effective_tie_window_us": 500,
    "sources": [
        {"name": "gpio", "timing": "kernel_edge", "uncertainty_us": 20, "detail": "made up"}
    ],
    "lockout_ms": 150.0,
    "settle_ms": 5.0,
}


def _reaction_us(rng: random.Random, who: tuple[float, float, float, float]) -> int | None:
    mean, sd, keen, jumpy = who
    if rng.random() > keen:
        return None
    if rng.random() < jumpy:
        return -rng.randrange(1_000, 150_000)  # a false start (C4)
    return max(120_000, round(rng.gauss(mean, sd) * 1000))


def journal(
    rng: random.Random,
    rounds: int = 40,
    players: Mapping[str, tuple[float, float, float, float]] = PLAYERS,
    two_player_end: str = "quick_chomp",
) -> list[dict[str, Any]]:
    """One game's journal entries: up to ``rounds`` rounds, or until the game is over
    (with two left the game goes on as quick_chomp by default: games of about 40 rounds)."""
    names = list(players)
    game = ChompGame.new(names, two_player_end=TwoPlayerEnd(two_player_end))
    deck = new_deck()
    clock = rng.randrange(1, 10**6) * MS
    seq = 0
    entries: list[dict[str, Any]] = [
        {**START, "players": names, "deal": dict(game.counts), "two_player_end": two_player_end}
    ]
    for n in range(1, rounds + 1):
        if game.over:
            break
        opened = clock
        reveal = opened + 1800 * MS
        cards = {p: (rng.choice(deck),) for p in game.active}
        slaps = []
        for p in game.active:
            t_us = _reaction_us(rng, players[p])
            if t_us is not None:
                slaps.append(Slap(p, t_us))
        entries.append({"type": "round", "n": n, "mode": str(game.mode), "opened_ns": opened})
        entries.append({"type": "reveal", "n": n, "stamp_ns": reveal, "how": "countdown"})
        for slap in sorted(slaps, key=lambda s: s.t_us):
            down = reveal + slap.t_us * 1000
            for pressed, stamp, use in ((True, down, "press"), (False, down + 180 * MS, "release")):
                entries.append(
                    {
                        "type": "edge",
                        "n": n,
                        "player": slap.player,
                        "pressed": pressed,
                        "stamp_ns": stamp,
                        "source": "gpio",
                        "seq": seq,
                        "use": use,
                    }
                )
                seq += 1
        entries.append(
            {"type": "cards", "n": n, "cards": {p: [str(c) for c in h] for p, h in cards.items()}}
        )
        result = game.play(Round(cards, tuple(slaps)))
        entries.append(
            {"type": "verdict", "n": n, "verdict": result.verdict.to_dict(), **game.to_dict()}
        )
        clock = reveal + 2500 * MS
    return entries


def journals(count: int, seed: int = 1, rounds: int = 40) -> Iterator[list[dict[str, Any]]]:
    rng = random.Random(seed)
    for _ in range(count):
        yield journal(rng, rounds)


def write_journals(folder: Path, count: int, seed: int = 1, rounds: int = 40) -> list[Path]:
    """``count`` journal files in ``folder``, named game-0001.jsonl and on."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, entries in enumerate(journals(count, seed, rounds), 1):
        path = folder / f"game-{i:04d}.jsonl"
        path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
        paths.append(path)
    return paths


__all__ = ["PLAYERS", "journal", "journals", "write_journals"]


def example_plot(path: Path, games: int = 6, seed: int = 3) -> str:
    """The README's plot: reaction times of ``games`` made-up games (the same every run)."""
    import tempfile

    from companion.history import import_files
    from companion.history.db import connect
    from companion.history.plots import reaction_svg

    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(":memory:")
        import_files(write_journals(Path(tmp), games, seed), conn, "2026-01-01T20:00:00+00:00")
        svg = reaction_svg(conn)
    path.write_text(svg, encoding="utf-8")
    return svg


if __name__ == "__main__":  # python -m companion.history.generate docs/history-reactions.svg
    import sys

    example_plot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/history-reactions.svg"))

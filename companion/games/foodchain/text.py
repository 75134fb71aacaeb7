"""Food Chain in words: the score report and the catalog summary, for commands and tables."""

from __future__ import annotations

from collections.abc import Mapping

from companion.games.foodchain.cards import Catalog, to_roman
from companion.games.foodchain.score import PlayerScore


def columns(s: PlayerScore, optional: bool) -> tuple[str, str, str]:
    """Eaten, tokens (or cards taken) and total, as the report's columns."""
    plural = "" if len(s.kept) == 1 else "s"
    eaten = f"eaten {s.eaten_points} ({len(s.kept)} card{plural})"
    if optional:
        names = "; ".join(f"{e.label()} from {who}" for who, e in s.taken)
        extra = f"taken {s.taken_points}" + (f" ({names})" if names else "")
    else:
        captured = f" ({s.captured} captured)" if s.captured else ""
        extra = f"tokens {s.tokens}{captured}"
    return eaten, extra, f"total {s.total}"


def score_lines(
    scores: Mapping[str, PlayerScore], best: tuple[str, ...], optional: bool = False
) -> list[str]:
    """One line per player, then who wins (F12: equal totals share the victory)."""
    rows = [(p, *columns(s, optional)) for p, s in scores.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        lines.append(f"  {'  '.join(cells)}   {row[3]}".rstrip())
    total = scores[best[0]].total
    if len(best) == 1:
        lines.append(f"{best[0]} wins with {total} points.")
    else:
        lines.append(f"Shared victory: {', '.join(best)} with {total} points each.")
    return lines


def catalog_summary(catalog: Catalog) -> str:
    """Cards, kinds, levels and points of a catalog, in three lines."""
    creatures = [k for k in catalog.kinds if k.bonus is None]
    n = sum(k.copies for k in creatures)
    levels = sorted({k.level for k in creatures})
    lines = [
        f"  {catalog.size} cards: {n} creatures and plants of {len(creatures)} kinds, "
        f"the Huntsman, the Swarm",
        f"  levels {to_roman(levels[0])} to {to_roman(levels[-1])}; "
        f"the Huntsman is level {to_roman(catalog.huntsman_level())}",
        f"  points {min(k.points for k in creatures)} to {max(k.points for k in creatures)}",
    ]
    return "\n".join(lines)

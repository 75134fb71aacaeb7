"""``companion bench history``: import generated CHOMP! games, then time ``history stats``.

Figures: games imported per second (reading the journal files and writing each game in
its own transaction), the database's size, and the latency of one player's stats over
the whole database (p50, p99). Goal: stats p99 under 200 ms.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.figures import percentiles
from companion.history import import_files
from companion.history.db import connect
from companion.history.generate import PLAYERS, write_journals
from companion.history.stats import player_stats

GOALS = {"stats_ms_p99": 200}


def _db_bytes(conn: sqlite3.Connection, path: Path) -> int:
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def bench_history(
    games: int = 1000, rounds: int = 40, stats_calls: int = 100, seed: int = 1
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="companion-bench-history-") as tmp:
        folder = Path(tmp)
        paths = write_journals(folder / "journals", games, seed, rounds)
        db_path = folder / "history.sqlite3"
        conn = connect(db_path)
        try:
            start = time.perf_counter()
            import_files(paths, conn, "2026-01-01T20:00:00+00:00")
            import_s = time.perf_counter() - start
            counts = dict(
                zip(
                    ("games", "rounds", "presses"),
                    (
                        conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                        for t in ("games", "rounds", "presses")
                    ),
                    strict=True,
                )
            )
            player = next(iter(PLAYERS))
            latencies = []
            for _ in range(stats_calls):
                t0 = time.perf_counter()
                player_stats(conn, player)
                latencies.append((time.perf_counter() - t0) * 1000)
            size = _db_bytes(conn, db_path)
        finally:
            conn.close()
    return {
        "games": games,
        "rounds_per_game": round(counts["rounds"] / max(counts["games"], 1), 1),
        **counts,
        "import_s": round(import_s, 2),
        "games_per_s": round(games / import_s, 1),
        "db_bytes": size,
        "stats_player": player,
        "stats_calls": stats_calls,
        "stats_ms": percentiles(latencies),
        "goals": GOALS,
    }

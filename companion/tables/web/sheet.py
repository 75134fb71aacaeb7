"""The Food Chain score sheet as a form: the engine of ``companion foodchain score``.

The page sends the sheet of docs/formats.md (players, what each ate, the tokens each
holds). Card names need a catalog: the one the server was started with
(``--foodchain-catalog``), or one written inside the sheet; a catalog *file name* from a
page is refused, as the Pi's files are not the page's to open.

The optional rule draws cards at random: the page sends back the seed of its first draw
while the sheet stays the same, so scoring the same sheet again gives the same winner.
"""

from __future__ import annotations

import random
from typing import Any

from companion.errors import InputError
from companion.games.foodchain import (
    Catalog,
    catalog_from_dict,
    score,
    score_optional,
    sheet_catalog,
    sheet_from_dict,
    winners,
)
from companion.games.foodchain.text import columns, score_lines


def score_sheet(
    raw: object, catalog: Catalog | None, optional: bool = False, seed: int | None = None
) -> dict[str, Any]:
    """The ``--json`` object of ``companion foodchain score`` for a sheet sent by a page,
    plus ``report``: its rows and last line in the terminal's words. ``seed`` repeats an
    optional draw (as ``--seed`` does); without it a new one is drawn."""
    if seed is not None and not optional:
        raise InputError("seed", "the seed is for the optional rule's draw")
    given = sheet_catalog(raw)
    if isinstance(given, str):
        raise InputError(
            "catalog", "a page cannot name a file: write the catalog in, or start the server "
            "with --foodchain-catalog FILE"
        )  # fmt: skip
    if given is not None:
        try:
            catalog = catalog_from_dict(given)
        except InputError as exc:
            raise InputError(f"catalog.{exc.where}", exc.message) from None
    tally = sheet_from_dict(raw, catalog)
    if optional:
        if seed is None:
            seed = random.SystemRandom().randrange(10**6)
        scores = score_optional(tally, random.Random(seed))
    else:
        scores = score(tally)
    exchanged = tally.exchanged().tokens != {p: +tally.tokens[p] for p in tally.players}
    best = winners(scores)
    return {
        "rule": "optional" if optional else "standard",
        "seed": seed,
        "players": {p: s.to_dict() for p, s in scores.items()},
        "winners": list(best),
        "tokens_exchanged": exchanged,
        "report": {
            "rows": [[p, *columns(s, optional)] for p, s in scores.items()],
            "result": score_lines(scores, best, optional)[-1],
        },
    }

"""Food Chain's optional rule on the page: the draw is made once for a sheet and kept.

Before, each Score tap drew again (the winner changed between two taps of the same sheet)
and a card taken without a name was shown as ``null (3)``. The page now sends back the
seed of its first draw while the sheet is the same; the server repeats the draw from it,
exactly as ``companion foodchain score --optional --seed N`` does, and says each row in
the terminal's words (games/foodchain/text.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.tables.web.sheet import score_sheet

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ORIGIN = {"origin": "http://testserver"}
# Points only (no card names): the cards taken in the draw have no name to show.
SHEET: dict[str, Any] = {
    "players": {
        "ann": {"colour": "red", "eaten": [4, 3, 2], "tokens": {"red": 4}},
        "bob": {"colour": "blue", "eaten": [5, 2, 1], "tokens": {"blue": 4}},
        "cat": {"colour": "green", "eaten": [3, 3, 1, 2], "tokens": {"green": 4}},
    }
}


@pytest.fixture()
def player() -> TestClient:
    site = build_site(None, str(EXAMPLES / "foodchain-catalog.example.json"))
    site.code = "joincode"
    client = TestClient(create_app(site))
    client.get("/?code=joincode", follow_redirects=False)
    return client


def one_line(response: Any) -> str:
    text = str(response.text)
    assert text.endswith("\n") and text.count("\n") == 1, text
    return text.strip()


def test_f13_optional_draw_sent_back_is_the_same_draw_and_the_same_winner(
    player: TestClient,
) -> None:
    first = player.post("/api/foodchain/score?rule=optional", json=SHEET, headers=ORIGIN)
    assert first.status_code == 200
    seed = first.json()["seed"]
    for _ in range(3):  # each Score tap of the same sheet
        again = player.post(
            f"/api/foodchain/score?rule=optional&seed={seed}", json=SHEET, headers=ORIGIN
        )
        assert again.status_code == 200
        assert again.json() == first.json()


def test_f13_optional_draw_on_the_page_is_the_terminals_draw_for_that_seed(
    player: TestClient,
) -> None:
    sheet = json.loads((EXAMPLES / "foodchain-score.json").read_text())
    del sheet["catalog"]
    page = player.post("/api/foodchain/score?rule=optional&seed=4242", json=sheet, headers=ORIGIN)
    command = ["foodchain", "score", "--json", "--optional", "--seed", "4242", "--no-history"]
    cli = subprocess.run(
        [sys.executable, "-m", "companion", *command, "examples/foodchain-score.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert cli.returncode == 0, cli.stderr
    shown = page.json()
    shown.pop("report")
    assert shown == json.loads(cli.stdout)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9))
def test_f13_optional_draw_rows_say_taken_cards_as_the_terminal_does(seed: int) -> None:
    first = score_sheet(SHEET, None, optional=True, seed=seed)
    assert score_sheet(SHEET, None, optional=True, seed=seed) == first  # kept: no new draw
    for player, eaten, taken, total in first["report"]["rows"]:
        assert eaten.startswith("eaten ") and taken.startswith("taken ")
        assert total == f"total {first['players'][player]['total']}"
        assert "null" not in taken and "None" not in taken  # unnamed cards: "3 from bob"
        for card in first["players"][player]["taken"]:
            assert f"{card['points']} from {card['from']}" in taken
    best = first["winners"]
    assert first["report"]["result"].startswith(best[0] if len(best) == 1 else "Shared victory")


def test_f13_a_seed_without_the_optional_rule_or_not_a_number_is_one_line(
    player: TestClient,
) -> None:
    standard = player.post("/api/foodchain/score?rule=standard&seed=3", json=SHEET, headers=ORIGIN)
    assert standard.status_code == 400
    assert one_line(standard) == "seed: the seed is for the optional rule's draw"
    for bad in ("x", "-1", "²", "1" * 30):
        response = player.post(
            f"/api/foodchain/score?rule=optional&seed={bad}", json=SHEET, headers=ORIGIN
        )
        assert response.status_code == 400
        assert one_line(response).startswith("seed: ")
    with pytest.raises(InputError, match="seed"):
        score_sheet(SHEET, None, optional=False, seed=1)

"""``companion web``'s API on Starlette's test client: who may change, limits, one-line errors.

The live-update stream is tested on a real uvicorn server in tests/test_web_live.py and
the pages in a real browser in tests/test_web_browser.py.
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
from companion.games.dino.formats import land_from_dict
from companion.tables.web.land import PALETTE, LandTable

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.cli import main  # noqa: E402
from companion.tables.web.app import MB, Limits, Site, create_app  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ORIGIN = {"origin": "http://testserver"}


def make_site(limits: Limits | None = None) -> Site:
    site = build_site(
        str(EXAMPLES / "dino-catalog.example.json"),
        str(EXAMPLES / "foodchain-catalog.example.json"),
    )
    site.code = "joincode"
    if limits is not None:
        site.limits = limits
    return site


@pytest.fixture()
def site() -> Site:
    return make_site()


@pytest.fixture()
def watcher(site: Site) -> TestClient:
    """A phone that has not joined: it may watch only."""
    return TestClient(create_app(site))


@pytest.fixture()
def player(site: Site) -> TestClient:
    """A phone that opened the page with ?code= once: it holds the cookie."""
    client = TestClient(create_app(site))
    first = client.get("/?code=joincode", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"].lower()
    assert "companion_code=joincode" in cookie and "httponly" in cookie
    assert "samesite=strict" in cookie
    return client


def paint(client: TestClient, x: int, y: int, token: str, **headers: str) -> Any:
    action = {"type": "paint", "cell": [x, y], "token": token}
    return client.post("/api/tables/land/actions", json=action, headers={**ORIGIN, **headers})


def one_line(response: Any) -> str:
    """The body of a refusal: exactly one line, returned without its newline."""
    text = str(response.text)
    assert text.endswith("\n") and text.count("\n") == 1, text
    return text.strip()


# --------------------------------------------------------------------------------------
# Who may change things
# --------------------------------------------------------------------------------------


def test_anyone_may_watch_without_the_code(watcher: TestClient) -> None:
    assert watcher.get("/").status_code == 200
    assert watcher.get("/api/tables/land").json()["version"] == 1
    me = watcher.get("/api/me").json()
    assert me["can_change"] is False and me["tables"] == ["land", "photo"]
    assert me["limits"]["photo_bytes"] == 20 * MB


def test_a_change_needs_the_join_code(watcher: TestClient, player: TestClient) -> None:
    refused = paint(watcher, 0, 0, "P")
    assert refused.status_code == 403
    assert one_line(refused).startswith("code: changing the table needs its join code")
    assert watcher.get("/api/tables/land").json()["version"] == 1  # nothing changed
    done = paint(player, 0, 0, "P")
    assert done.status_code == 200 and done.json()["version"] == 2
    assert player.get("/api/me").json()["can_change"] is True


def test_a_wrong_code_is_refused_and_sets_no_cookie(watcher: TestClient) -> None:
    wrong = watcher.get("/?code=guess", follow_redirects=False)
    assert wrong.status_code == 303 and "set-cookie" not in wrong.headers
    assert wrong.headers["location"] == "/?refused=code"  # the app says it in one line
    assert paint(watcher, 0, 0, "P").status_code == 403


def test_the_origin_is_checked_on_every_change(player: TestClient) -> None:
    action = {"type": "paint", "cell": [0, 0], "token": "P"}
    bare = player.post("/api/tables/land/actions", json=action)
    assert bare.status_code == 403 and one_line(bare).startswith("origin: ")
    other = paint(player, 0, 0, "P", origin="http://evil.example")
    assert other.status_code == 403
    assert one_line(other) == "origin: http://evil.example is not this server (testserver)"
    for url in ("/api/photo", "/api/foodchain/score"):
        assert player.post(url, content=b"{}").status_code == 403


def test_the_qr_code_carries_the_join_code_only_for_who_has_it(
    watcher: TestClient, player: TestClient
) -> None:
    import io

    import segno

    def svg(url: str) -> bytes:
        out = io.BytesIO()
        segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False)
        return out.getvalue()

    assert watcher.get("/qr.svg").content == svg("http://testserver/")
    assert player.get("/qr.svg").content == svg("http://testserver/?code=joincode")


# --------------------------------------------------------------------------------------
# Limits and one-line errors
# --------------------------------------------------------------------------------------


def test_bodies_over_the_limit_are_refused_with_413() -> None:
    site = make_site(Limits(body_bytes=200, photo_bytes=1000))
    client = TestClient(create_app(site))
    client.get("/?code=joincode")
    big = {"type": "grid", "text": "P " * 200}
    refused = client.post("/api/tables/land/actions", json=big, headers=ORIGIN)
    assert refused.status_code == 413 and one_line(refused).startswith("body: ")

    def chunks() -> Any:  # no Content-Length: counted as it arrives
        for _ in range(20):
            yield b"x" * 100

    photo = client.post(
        "/api/photo", content=chunks(), headers={**ORIGIN, "content-type": "image/jpeg"}
    )
    assert photo.status_code == 413
    assert one_line(photo) == "body: more than the 1000 bytes allowed"


def test_the_default_limits_take_a_20_mb_photo_and_not_more() -> None:
    assert Limits().photo_bytes == 20 * 1024 * 1024
    client = TestClient(create_app(make_site()))
    client.get("/?code=joincode")
    headers = {**ORIGIN, "content-type": "image/jpeg", "content-length": str(20 * MB + 1)}
    refused = client.post("/api/photo", content=b"", headers=headers)
    assert refused.status_code == 413
    assert one_line(refused) == f"body: {20 * MB + 1} bytes, more than the {20 * MB} allowed"


@pytest.mark.parametrize(
    ("action", "line"),
    [
        ({"type": "paint", "cell": [0], "token": "P"}, "cell: a cell is [x, y], two whole numbers"),
        ({"type": "paint", "cell": [0, 99], "token": "P"}, "cell: [0, 99] is off the grid"),
        ({"type": "paint", "cell": [0, 0], "token": "Q"}, "token: unknown token 'Q'"),
        ({"type": "join", "a": [0, 0], "b": [2, 0]}, "b: the two cells of an edge are side by"),
        ({"type": "join", "a": [0, 0], "b": [1, 0]}, "b: only two cells with something on them"),
        ({"type": "fly"}, "type: unknown action 'fly'"),
        ({"cell": [0, 0]}, "type: an action names its type"),
        ([1, 2], "action: an action is a JSON object"),
        ({"type": "grid", "text": "lh P"}, "text: line 1 column 1: a large herbivore covers"),
    ],
)
def test_bad_input_is_a_400_with_one_line_naming_the_field(
    player: TestClient, action: object, line: str
) -> None:
    response = player.post("/api/tables/land/actions", json=action, headers=ORIGIN)
    assert response.status_code == 400
    assert one_line(response).startswith(line)


def test_other_refusals_are_one_line_too(player: TestClient) -> None:
    not_json = player.post("/api/tables/land/actions", content=b"{", headers=ORIGIN)
    assert not_json.status_code == 400 and one_line(not_json).startswith("body: not JSON")
    no_table = player.post("/api/tables/moon/actions", json={"type": "x"}, headers=ORIGIN)
    assert no_table.status_code == 404 and one_line(no_table) == "table: no table named 'moon'"
    assert one_line(player.get("/nowhere")) == "path: nothing at /nowhere"
    wrong = player.get("/api/tables/land/actions")
    assert wrong.status_code == 405 and one_line(wrong).startswith("method: GET")


# --------------------------------------------------------------------------------------
# The Chomp land, tapped in
# --------------------------------------------------------------------------------------


def state_after(client: TestClient, *actions: dict[str, Any]) -> Any:
    state = None
    for action in actions:
        response = client.post("/api/tables/land/actions", json=action, headers=ORIGIN)
        assert response.status_code == 200, response.text
        state = response.json()["state"]
    return state


def test_d1_a_large_dino_on_one_cell_is_a_problem_until_its_other_half_is_tapped(
    player: TestClient,
) -> None:
    half = state_after(player, {"type": "paint", "cell": [0, 0], "token": "lh"})
    assert half["score"] is None
    assert half["problem"] == "A1: a large herbivore covers exactly 2 cells (half a card), not 1"
    whole = state_after(
        player,
        {"type": "paint", "cell": [1, 0], "token": "lh"},  # joins the lone half by itself
        {"type": "paint", "cell": [2, 0], "token": "P"},
    )
    assert whole["problem"] is None and whole["joins"] == [[[0, 0], [1, 0]]]
    assert whole["score"]["total"] == 3 and whole["score"]["herds"][0]["why"] == "plants"
    assert whole["grid"].splitlines()[1].split() == ["1", "lh", "=", "lh", "P"]


def test_d2_a_mountain_drawn_on_an_edge_keeps_the_herd_from_its_plants(
    player: TestClient,
) -> None:
    state_after(
        player,
        {"type": "paint", "cell": [0, 0], "token": "sh"},
        {"type": "paint", "cell": [1, 0], "token": "P"},
    )
    walled = state_after(player, {"type": "mountain", "a": [0, 0], "b": [1, 0]})
    herd = walled["score"]["herds"][0]
    assert (herd["why"], walled["score"]["total"]) == ("no_plants", 0)
    assert walled["mountains"] == [[[0, 0], [1, 0]]]
    opened = state_after(player, {"type": "mountain", "a": [1, 0], "b": [0, 0]})  # toggles
    assert opened["mountains"] == [] and opened["score"]["total"] == 1


def test_joined_cells_are_one_section_and_a_mismatch_is_refused(player: TestClient) -> None:
    state_after(
        player,
        {"type": "paint", "cell": [0, 0], "token": "P"},
        {"type": "paint", "cell": [0, 1], "token": "P"},
    )
    joined = state_after(player, {"type": "join", "a": [0, 0], "b": [0, 1]})
    assert [s["cells"] for s in joined["land"]["sections"]] == [[[0, 0], [0, 1]]]
    state_after(player, {"type": "paint", "cell": [1, 0], "token": "T"})
    mixed = player.post(
        "/api/tables/land/actions",
        json={"type": "join", "a": [0, 0], "b": [1, 0]},
        headers=ORIGIN,
    )
    assert one_line(mixed) == "b: one section shows one thing: P and T differ"


def test_the_worked_example_scores_on_the_phone_as_dino_score_does(player: TestClient) -> None:
    example = EXAMPLES / "dino-worked-example.txt"
    text = example.read_text()
    state = state_after(player, {"type": "grid", "text": text})
    cli = json.loads(
        subprocess.run(
            [sys.executable, "-m", "companion", "dino", "score", "--json", str(example)],
            capture_output=True,
            text=True,
        ).stdout
    )
    assert state["score"]["total"] == cli["total"] == 29
    assert [h["why"] for h in state["score"]["herds"]] == [h["why"] for h in cli["herds"]]
    assert [h["explain"] for h in state["score"]["herds"]] == [h["explain"] for h in cli["herds"]]
    cleared = state_after(player, {"type": "clear"})
    assert cleared["cells"] == [] and cleared["score"]["total"] == 0


# --------------------------------------------------------------------------------------
# Food Chain
# --------------------------------------------------------------------------------------


def test_the_food_chain_sheet_scores_as_foodchain_score_does(player: TestClient) -> None:
    sheet = json.loads((EXAMPLES / "foodchain-score.json").read_text())
    del sheet["catalog"]  # the server's own catalog (--foodchain-catalog) names the cards
    response = player.post("/api/foodchain/score", json=sheet, headers=ORIGIN)
    command = ["foodchain", "score", "--json", "examples/foodchain-score.json"]
    cli = subprocess.run(
        [sys.executable, "-m", "companion", *command],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert response.status_code == 200
    page = response.json()
    assert page.pop("report")["result"] == "ann wins with 19 points."  # the terminal's words
    assert page == json.loads(cli.stdout)


def test_a_shared_food_chain_win_and_bad_sheets_name_the_field(player: TestClient) -> None:
    sheet = {
        "players": {
            "ann": {"colour": "red", "eaten": [4, 3], "tokens": {"red": 4}},
            "bob": {"colour": "blue", "eaten": [5, 2], "tokens": {"blue": 4}},
        }
    }
    shared = player.post("/api/foodchain/score", json=sheet, headers=ORIGIN).json()
    assert shared["winners"] == ["ann", "bob"]
    sheet["players"]["ann"]["eaten"] = [4, "unicorn"]
    bad = player.post("/api/foodchain/score", json=sheet, headers=ORIGIN)
    assert bad.status_code == 400
    assert one_line(bad) == "players.ann.eaten[1]: no card named 'unicorn' in the catalog"
    file_named = {**sheet, "catalog": "/etc/passwd"}
    named = player.post("/api/foodchain/score", json=file_named, headers=ORIGIN)
    assert one_line(named).startswith("catalog: a page cannot name a file")
    rule = player.post("/api/foodchain/score?rule=odd", json=sheet, headers=ORIGIN)
    assert one_line(rule) == "rule: standard or optional"


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------


def test_help_and_registering_web_import_no_web_module() -> None:
    probe = (
        "import sys; from companion.cli import build_parser; build_parser([]); "
        "build_parser(['web']); "
        "print(sorted(m for m in sys.modules if m.startswith(('companion.tables', 'starlette', "
        "'uvicorn', 'segno', 'companion.games'))))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


def test_without_the_extra_companion_web_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["web"]) == 2
    err = capsys.readouterr().err
    assert err == "companion: the web pages need the web extra: .venv/bin/pip install -e '.[web]'\n"


def test_the_server_refuses_to_run_as_root(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert main(["web", "--web", "127.0.0.1:0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion: the web server does not run as root") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("given", "line"),
    [
        (["--web", "host:port"], "companion: --web: 'host:port': write [HOST:]PORT"),
        (["--web", "99999"], "companion: --web: '99999': write [HOST:]PORT"),
        (["--catalog", "nowhere.json"], "companion: nowhere.json: "),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], given: list[str], line: str
) -> None:
    assert main(["web", *given]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and err.count("\n") == 1


def test_the_config_names_the_address(tmp_path: Path) -> None:
    from companion.errors import ConfigError
    from companion.tables.web.serve import parse_listen, read_web_config

    assert parse_listen("8080") == ("0.0.0.0", 8080)
    assert parse_listen("127.0.0.1:9000") == ("127.0.0.1", 9000)
    assert parse_listen("[::]:8081") == ("::", 8081)
    config = tmp_path / "table.toml"
    config.write_text('[web]\nlisten = "192.168.1.5:8000"\n')
    assert read_web_config(str(config)) == ("192.168.1.5", 8000)
    config.write_text("[web]\nlisten = 8000\n")
    with pytest.raises(ConfigError, match=r"table.toml: web.listen: "):
        read_web_config(str(config))
    config.write_text("[referee]\n")
    assert read_web_config(str(config)) is None


def test_every_asset_ships_in_the_package_and_nothing_comes_from_outside() -> None:
    import re

    static = ROOT / "companion" / "tables" / "web" / "static"
    names = sorted(p.name for p in static.iterdir())
    scripts = ["app.js", "chips.js", "chomp.js", "getbit.js", "history.js", "setup.js"]
    assert names == sorted([*scripts, "index.html", "style.css", "chomp.css"])
    assert '"tables/web/static/*"' in (ROOT / "pyproject.toml").read_text()
    html = (static / "index.html").read_text()
    for ref in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert ref.startswith(("/static/", "#", "data:")), ref
    for name in scripts:
        script = (static / name).read_text()
        urls = set(re.findall(r"https?://[^\s\"'`]+", script))
        assert urls <= {"http://www.w3.org/2000/svg"}  # a namespace name, never fetched
    for sheet in ("style.css", "chomp.css"):
        assert "http" not in (static / sheet).read_text()


# --------------------------------------------------------------------------------------
# Whatever is tapped, the land table stays readable
# --------------------------------------------------------------------------------------

CELLS = st.tuples(st.integers(0, 3), st.integers(0, 2)).map(list)
ACTIONS = st.one_of(
    st.builds(
        lambda c, t: {"type": "paint", "cell": c, "token": t}, CELLS, st.sampled_from(PALETTE)
    ),
    st.builds(
        lambda c, d, kind: {"type": kind, "a": c, "b": [c[0] + d[0], c[1] + d[1]]},
        CELLS,
        st.sampled_from([(1, 0), (0, 1)]),
        st.sampled_from(["join", "mountain"]),
    ),
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(ACTIONS, max_size=25))
def test_any_taps_leave_a_land_that_scores_or_one_line_saying_why(
    actions: list[dict[str, Any]],
) -> None:
    table = LandTable()
    for action in actions:
        try:
            table.act(action)
        except InputError as exc:  # refused taps change nothing and name their field
            assert exc.where in ("cell", "a", "b", "token") and "\n" not in str(exc)
    state = table.state()
    json.dumps(state)  # what goes down the event stream
    if state["problem"] is not None:
        assert state["score"] is None and "\n" not in state["problem"]
        return
    # The land it shows is a formats.md land: read back (moved to A1) it scores the same.
    again = LandTable()
    again.load(land_from_dict(state["land"]))

    def fates(score: dict[str, Any]) -> list[tuple[Any, ...]]:
        return sorted((h["dino"], h["dinos"], h["why"], h["points"]) for h in score["herds"])

    moved = again.state()["score"]
    assert (moved["total"], fates(moved)) == (state["score"]["total"], fates(state["score"]))
    painted = {tuple(c["cell"]) for c in state["cells"]}
    assert {tuple(c) for s in state["land"]["sections"] for c in s["cells"]} == painted

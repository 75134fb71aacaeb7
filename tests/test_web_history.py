"""The history tab's API on Starlette's test client, over a real history database.

The database is made by the history package's own recording functions (generated CHOMP!
journals recorded with ``record_chomp_journal``, a Chips game with ``record_chips``); every
request is checked to leave its bytes as they were. The tab in a browser is at the end.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.history import record_chips, record_chomp_journal
from companion.history.db import connect, read
from companion.history.generate import write_journals
from companion.history.stats import all_stats
from companion.history.store import list_games

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import Site, create_app  # noqa: E402
from companion.tables.web.history import LAST_GAMES, closest_call  # noqa: E402
from companion.tables.web.serve import build_site  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

GAMES = 24  # more than the tab lists: the list is bounded


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A history of GAMES CHOMP! games and one Chips game, recorded as the tables do."""
    folder = tmp_path_factory.mktemp("history")
    db = folder / "history.sqlite3"
    for i, journal in enumerate(write_journals(folder / "journals", GAMES, seed=5, rounds=60)):
        record_chomp_journal(journal, db=db, played_at=f"2026-11-{1 + i % 28:02d}T20:00:00+00:00")
    record_chips(["ann", "bob", "<b>cat</b>"], "bob", ["ann"], db=db)
    return db


def digest(path: Path) -> tuple[str, list[str]]:
    """The database's bytes and the files beside it: what must not change."""
    beside = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name))
    return hashlib.sha256(path.read_bytes()).hexdigest(), beside


def client_for(db: Path | str | None) -> TestClient:
    site: Site = build_site()
    site.history_db = None if db is None else str(db)
    return TestClient(create_app(site))


def one_line(response: Any) -> str:
    text = str(response.text)
    assert text.endswith("\n") and text.count("\n") == 1, text
    return text.strip()


def test_summary_is_history_stats_and_list(history: Path) -> None:
    before = digest(history)
    answer = client_for(history).get("/api/history")
    assert answer.status_code == 200
    tab = answer.json()
    assert tab["state"] == "ok" and tab["database"] == "history.sqlite3"
    figures = read(history, all_stats)
    games = read(history, list_games)
    # the leaderboard: history stats' games played and won, the most wins first
    chomp = next(b for b in tab["leaderboard"] if b["kind"] == "chomp")
    expected = {f["player"]: f["games"]["chomp"] for f in figures if "chomp" in f["games"]}
    assert {r["player"]: {"played": r["played"], "won": r["won"]} for r in chomp["rows"]} == (
        expected
    )
    wins = [r["won"] for r in chomp["rows"]]
    assert wins == sorted(wins, reverse=True)
    chips = next(b for b in tab["leaderboard"] if b["kind"] == "chips")
    assert chips["rows"][0] == {"player": "bob", "played": 1, "won": 1}
    # the last games, newest first, bounded, each line as `history list` prints it
    assert tab["games_stored"] == len(games) == GAMES + 1
    assert len(tab["last_games"]) == LAST_GAMES
    assert [g["id"] for g in tab["last_games"]] == [g.id for g in games[::-1][:LAST_GAMES]]
    # the plots: every player with slaps; the closest call: the least of their leads
    assert {p["player"] for p in tab["plots"]} == {
        f["player"] for f in figures if f.get("chomp") and f["chomp"]["reaction_us"]
    }
    leads = [
        f["chomp"]["closest_lead"]["us"] for f in figures if f.get("chomp", {}).get("closest_lead")
    ]
    assert tab["closest_call"]["us"] == min(leads)
    assert digest(history) == before


def test_closest_call_is_the_least_lead_and_names_its_winner() -> None:
    figures = [
        {"player": "ann", "chomp": {"closest_lead": {"us": 900.0, "game": 1, "round": 2}}},
        {"player": "bob", "chomp": {"closest_lead": {"us": 120.0, "game": 3, "round": 7}}},
        {"player": "cat", "chomp": {"closest_lead": None}},
        {"player": "dan", "games": {}},
    ]
    assert closest_call(figures) == {"player": "bob", "us": 120.0, "game": 3, "round": 7}
    assert closest_call(figures[2:]) is None


def test_closest_call_matches_the_rounds_table(history: Path) -> None:
    """The closest call is the smallest winning lead of any CHOMP! round in the database."""

    def smallest(conn: sqlite3.Connection) -> tuple[float, str]:
        lead, name = conn.execute(
            "SELECT r.lead_ns, p.name FROM rounds r JOIN players p ON p.id = r.winner_id"
            " WHERE r.outcome = 'win' AND r.lead_ns IS NOT NULL ORDER BY r.lead_ns LIMIT 1"
        ).fetchone()
        return lead / 1000, name

    us, name = read(history, smallest)
    tab = client_for(history).get("/api/history").json()
    assert (tab["closest_call"]["us"], tab["closest_call"]["player"]) == (us, name)


def test_a_second_look_reads_the_database_once_until_a_game_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.tables.web.history as tab

    db = tmp_path / "h.sqlite3"
    record_chips(["ann", "bob"], "ann", db=db)
    reads: list[Path] = []
    real = tab.reading

    def counted(path: Path, work: Any) -> Any:
        reads.append(path)
        return real(path, work)

    monkeypatch.setattr(tab, "reading", counted)
    client = client_for(db)
    first = client.get("/api/history").json()
    assert client.get("/api/history").json() == first and len(reads) == 1
    record_chips(["ann", "cat"], "cat", db=db)
    again = client.get("/api/history").json()
    assert again["games_stored"] == 2 and len(reads) == 2


def test_a_game_opens_as_history_show_prints_it(history: Path) -> None:
    from companion.history.store import game_rounds, get_game
    from companion.history.text import show_lines

    before = digest(history)
    client = client_for(history)
    answer = client.get("/api/history/games/3")
    assert answer.status_code == 200
    game = answer.json()
    expected = read(history, lambda c: show_lines(get_game(c, 3), game_rounds(c, 3)))
    assert game["id"] == 3 and game["lines"] == expected
    assert one_line(client.get("/api/history/games/9999")) == "game: no game #9999 in the history"
    assert client.get("/api/history/games/9999").status_code == 404
    for bad in ("0", "x", "-1", "99999999999999999999", "%C2%B2"):
        refused = client.get(f"/api/history/games/{bad}")
        assert refused.status_code == 400, bad
        assert one_line(refused).startswith("game: ")
    assert digest(history) == before


def test_reaction_plot_per_player_is_svg_with_the_name_as_text(history: Path) -> None:
    before = digest(history)
    client = client_for(history)
    tab = client.get("/api/history").json()
    name = tab["plots"][0]["player"]
    plot = client.get("/api/history/reaction.svg", params={"player": name})
    assert plot.status_code == 200 and plot.headers["content-type"].startswith("image/svg+xml")
    assert plot.text.startswith("<svg") and 'class="slap"' in plot.text
    assert f">{name} (" in plot.text  # the column is named in words, not by colour alone
    missing = client.get("/api/history/reaction.svg", params={"player": "nobody"})
    assert missing.status_code == 404 and "no player called" in one_line(missing)
    # bob played Chips only: no slaps to plot, one line
    no_slaps = client.get("/api/history/reaction.svg", params={"player": "<b>cat</b>"})
    assert no_slaps.status_code == 404
    bad = client.get("/api/history/reaction.svg", params={"player": "a\u202eb"})
    assert bad.status_code == 400 and one_line(bad).startswith("player")
    assert digest(history) == before


def test_no_database_yet_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite3"
    client = client_for(db)
    tab = client.get("/api/history").json()
    assert tab == {
        "state": "none",
        "message": "No history yet: a finished game is recorded in none.sqlite3.",
    }
    assert client.get("/api/history/games/1").status_code == 404
    assert client.get("/api/history/reaction.svg").status_code == 404
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_the_default_database_when_no_db_is_given(
    history: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPANION_HISTORY_DB", str(history))
    tab = client_for(None).get("/api/history").json()
    assert tab["state"] == "ok" and tab["games_stored"] == GAMES + 1


def test_a_live_table_on_the_hub_names_the_database_it_records_into(
    history: Path, tmp_path: Path
) -> None:
    """``referee --web`` with ``[history] db`` (or ``--db``): the tab reads that database,
    not the default one; ``companion web --db`` wins over it."""
    from companion.tables.web.land import LandTable

    class Recording(LandTable):
        name = "recording"
        history_db: str | None = str(history)

    site = build_site()
    site.hub.add(Recording())
    tab = TestClient(create_app(site)).get("/api/history").json()
    assert tab["state"] == "ok" and tab["games_stored"] == GAMES + 1
    site.history_db = str(tmp_path / "other.sqlite3")
    assert TestClient(create_app(site)).get("/api/history").json()["state"] == "none"


def test_companion_web_config_gives_its_history_db(tmp_path: Path) -> None:
    from companion.tables.web.history import config_database

    config = tmp_path / "table.toml"
    config.write_text('[web]\nlisten = "8080"\n[history]\ndb = "games/h.sqlite3"\n')
    assert config_database(str(config)) == str(tmp_path.resolve() / "games" / "h.sqlite3")
    config.write_text('[web]\nlisten = "8080"\n')
    assert config_database(str(config)) is None


def test_companion_web_a_bad_history_table_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.cli import main

    config = tmp_path / "table.toml"
    config.write_text("[history]\ndb = 5\n")
    assert main(["web", "--config", str(config), "--web", "127.0.0.1:0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "history.db" in err and str(config) in err, err


def test_chips_and_getbit_pages_carry_the_database_they_record_into(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``chips --web`` and ``getbit play --web`` hand their ``--db`` / ``[history] db``
    to the page they serve, where the History tab finds it."""
    import companion.tables.web.serve as serve
    from companion.games.chips import ChipsTable
    from companion.games.getbit import Setup
    from companion.tables.chips.session import ChipsHelper
    from companion.tables.chips.web import serve_web as serve_chips
    from companion.tables.getbit.app import _serve_web as serve_getbit
    from companion.tables.getbit.session import open_getbit_table

    served: list[Any] = []
    monkeypatch.setattr(serve, "serve_page", lambda page, *rest: served.append(page))
    helper = ChipsHelper.open(
        tmp_path / "chips.json", ChipsTable.new(["ann", "bob"]), False, False, None
    )
    serve_chips(helper, "8080", db="chips.sqlite3")
    players = ("ann", "bob", "cat", "dan")
    table = open_getbit_table(tmp_path / "g.json", Setup({p: p for p in players}, players))
    serve_getbit("8080", table, db="getbit.sqlite3")
    assert [page.history_db for page in served] == ["chips.sqlite3", "getbit.sqlite3"]


def test_every_live_page_can_say_its_database() -> None:
    from companion.tables.chips.web import ChipsWebTable
    from companion.tables.chomp.web import ChompWebTable
    from companion.tables.getbit.web import GetBitWebTable

    for table in (ChipsWebTable, ChompWebTable, GetBitWebTable):
        assert table.history_db is None  # the default database until the app says


def foreign_databases(folder: Path) -> list[Path]:
    """Files that are not a history: another program's SQLite, text, a truncated history,
    a folder, random bytes after a SQLite header."""
    theirs = folder / "theirs.sqlite3"
    conn = sqlite3.connect(theirs)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()
    text = folder / "text.sqlite3"
    text.write_text("not a database\n")
    ours = folder / "ours.sqlite3"
    record_chips(["ann", "bob"], "ann", db=ours)
    torn = folder / "torn.sqlite3"
    torn.write_bytes(ours.read_bytes()[:1500])
    noise = folder / "noise.sqlite3"
    noise.write_bytes(ours.read_bytes()[:100] + bytes(range(256)) * 40)
    a_folder = folder / "folder.sqlite3"
    a_folder.mkdir()
    return [theirs, text, torn, noise, a_folder]


def test_a_foreign_or_damaged_database_is_one_line_never_a_500(tmp_path: Path) -> None:
    for db in foreign_databases(tmp_path):
        before = digest(db) if db.is_file() else None
        client = client_for(db)
        answer = client.get("/api/history")
        assert answer.status_code == 200, db
        tab = answer.json()
        assert tab["state"] == "unreadable", (db, tab)
        assert tab["message"].startswith(f"The history cannot be read: {db.name}: ")
        assert "\n" not in tab["message"] and str(tmp_path) not in tab["message"]
        for path in ("/api/history/games/1", "/api/history/reaction.svg"):
            other = client.get(path)
            assert 400 <= other.status_code < 600 and other.status_code != 500, (db, path)
            one_line(other)
        if before is not None:
            assert digest(db) == before, db


@pytest.fixture(scope="module")
def small_history(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a small history (two CHOMP! games, one Chips game) to damage."""
    folder = tmp_path_factory.mktemp("small")
    db = folder / "small.sqlite3"
    for journal in write_journals(folder / "journals", 2, seed=9, rounds=8):
        record_chomp_journal(journal, db=db, played_at="2026-11-01T20:00:00+00:00")
    record_chips(["ann", "bob"], "ann", db=db)
    return db.read_bytes()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    damage=st.lists(
        st.tuples(st.integers(min_value=0, max_value=10**6), st.integers(0, 255)),
        min_size=1,
        max_size=12,
    ),
    cut=st.one_of(st.none(), st.integers(min_value=0, max_value=10**6)),
)
def test_fuzz_damaged_history_bytes_never_a_500_never_written(
    small_history: bytes, damage: list[tuple[int, int]], cut: int | None
) -> None:
    """A history with bytes changed (and perhaps cut short): every endpoint answers a
    state or one line, never a 500, and the file is as it was after every request."""
    import tempfile

    raw = bytearray(small_history)
    for offset, value in damage:
        raw[offset % len(raw)] = value
    if cut is not None:
        raw = raw[: cut % len(raw)]
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "damaged.sqlite3"
        db.write_bytes(bytes(raw))
        before = digest(db)
        client = client_for(db)
        tab = client.get("/api/history")
        assert tab.status_code == 200
        assert tab.json()["state"] in ("ok", "unreadable", "none")
        if tab.json()["state"] != "ok":
            assert "\n" not in tab.json()["message"]
        for path in ("/api/history/games/1", "/api/history/reaction.svg?player=ann"):
            answer = client.get(path)
            assert answer.status_code != 500, (path, answer.text)
            if answer.status_code >= 400:
                one_line(answer)
        assert digest(db) == before


@settings(max_examples=examples(80), deadline=None)
@given(word=st.text(max_size=40) | st.sampled_from(["²", "٣", "1e3", " 1", "0x1", "9" * 30]))
def test_fuzz_game_and_player_from_the_address(history: Path, word: str) -> None:
    """Whatever a page puts in the address: a game, a 4xx with one line, never a 500."""
    from urllib.parse import quote

    client = client_for(history)
    for path in (
        f"/api/history/games/{quote(word, safe='')}",
        f"/api/history/reaction.svg?player={quote(word, safe='')}",
    ):
        answer = client.get(path)
        assert answer.status_code in (200, 400, 404, 405), (path, answer.status_code)
        if answer.status_code != 200:
            one_line(answer)


def test_a_damaged_row_is_left_out_and_counted_in_one_line(tmp_path: Path) -> None:
    """As ``history list`` does: the good rows are shown, the damaged ones counted."""
    db = tmp_path / "h.sqlite3"
    record_chips(["ann", "bob"], "ann", db=db)
    record_chips(["ann", "cat"], "cat", db=db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE games SET detail = '{not json' WHERE id = 1")
    conn.commit()
    conn.close()
    before = digest(db)
    tab = client_for(db).get("/api/history").json()
    assert tab["state"] == "ok" and tab["games_stored"] == 1
    assert tab["note"] == "1 damaged row(s) of h.sqlite3 left out."
    assert [g["id"] for g in tab["last_games"]] == [2]
    assert digest(db) == before


def test_only_get_the_history_is_never_written(history: Path) -> None:
    client = client_for(history)
    for path in ("/api/history", "/api/history/games/1", "/api/history/reaction.svg"):
        refused = client.post(path, headers={"origin": "http://testserver"})
        assert refused.status_code == 405, path
        assert one_line(refused).startswith("method: ")


def test_the_answer_is_ascii_json_whatever_a_name_holds(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite3"
    record_chips(["Zoë", '"</script>', "ann"], "Zoë", db=db)
    answer = client_for(db).get("/api/history")
    assert answer.content.isascii()
    rows = answer.json()["leaderboard"][0]["rows"]
    assert {r["player"] for r in rows} == {"Zoë", '"</script>', "ann"}
    assert json.loads(answer.content)["last_games"][0]["players"][1]["name"] == '"</script>'


def test_companion_web_takes_db(tmp_path: Path) -> None:
    from companion.cli import build_parser

    argv = ["web", "--db", str(tmp_path / "h.sqlite3")]
    args = build_parser(argv).parse_args(argv)
    assert args.db == str(tmp_path / "h.sqlite3")


def test_connect_was_not_needed_to_read(tmp_path: Path) -> None:
    """Reading a history made by connect() leaves no -wal or -shm beside it."""
    db = tmp_path / "h.sqlite3"
    connect(db).close()
    before = digest(db)
    client_for(db).get("/api/history")
    assert digest(db) == before


# --------------------------------------------------------------------------------------
# The tab in a browser (Debian's chromium, Playwright), at 360 x 740
# --------------------------------------------------------------------------------------

SMALL_PHONE: ViewportSize = {"width": 360, "height": 740}
CHROMIUM = "/usr/bin/chromium"


def _why_no_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return "Playwright or the web extra is not installed"
    return None if Path(CHROMIUM).is_file() else "no chromium at /usr/bin/chromium"


def _axe_violations(page: Any) -> list[str]:
    """axe-core's critical and serious violations on what the page shows, by rule."""
    try:
        from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
    except ImportError:
        return []  # the test extra's axe is optional here; the lead adds it
    results = Axe().run(page)
    found = results.response["violations"]
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("critical", "serious")]


@pytest.mark.browser
@pytest.mark.slow
def test_history_tab_on_a_phone_shows_leaderboard_games_and_a_plot(
    history: Path, tmp_path: Path
) -> None:
    import os

    if (reason := _why_no_browser()) is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    from companion.tables.web.serve import start

    before = digest(history)
    site = build_site()
    site.history_db = str(history)
    running = start(site, "127.0.0.1", 0, refuse_root=False)
    shots = Path(os.environ.get("COMPANION_SCREENSHOTS") or tmp_path)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
            context = browser.new_context(viewport=SMALL_PHONE, device_scale_factor=2)
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.goto(f"http://127.0.0.1:{running.port}/")
            page.click('nav a[data-tab="history"]')
            page.wait_for_selector("#history-leaders table.scores caption")
            captions = page.locator("#history-leaders caption").all_inner_texts()
            assert captions == ["CHOMP!", "The Great Chips Escape"]
            assert page.locator("#history-games details").count() == LAST_GAMES
            assert "won round" in page.inner_text("#history-closest")
            plot = page.locator("#history-plots img").first
            plot.scroll_into_view_if_needed()
            page.wait_for_function(
                "() => { const i = document.querySelector('#history-plots img');"
                " return i && i.complete && i.naturalWidth > 0; }"
            )
            assert "median" in page.locator("#history-plots figcaption").first.inner_text()
            figure = page.locator("#history-plots figure").first
            figure.screenshot(path=str(shots / "web-history-plot-phone.png"))
            page.locator("#history-games summary").nth(1).click()  # the newest CHOMP! game
            page.wait_for_selector("#history-games details[open] pre:has-text('round   1')")
            width = page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            assert width, "the page scrolls sideways at 360 px"
            small = page.evaluate(
                "[...document.querySelectorAll('#tab-history button, #tab-history summary,"
                " nav a[data-tab=history]')].map(e => e.getBoundingClientRect())"
                ".filter(r => r.width < 48 || r.height < 48).length"
            )
            assert small == 0, "a tap target under 48 x 48 px"
            assert _axe_violations(page) == []
            page.locator("#history-games summary").nth(1).click()  # closed again for the shot
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(shots / "web-history-phone.png"), full_page=False)
            context.close()
            browser.close()
    finally:
        running.stop()
    assert digest(history) == before

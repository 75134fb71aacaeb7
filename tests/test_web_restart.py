"""Restart-safe tables (docs/web.md, "Join codes across restarts"): the join code kept in
a file of the table's own, ``--new-code`` and the page's "New join code", codes typed in
any case with spaces, the code never in what a watcher gets, the server's instance id and
the table's game id in every update, and "New game" on Get Bit! and Chips."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import build_parser
from companion.games.chips import ChipsTable
from companion.games.getbit import Setup
from companion.tables.chips.session import ChipsHelper
from companion.tables.chips.web import ChipsWebTable
from companion.tables.getbit.session import open_getbit_table
from companion.tables.getbit.web import GetBitWebTable
from companion.tables.web import CODE_FORM, kept_code, new_code, normal_code, state_folder

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from companion.tables.web.app import HIDDEN_CODE, Site, create_app  # noqa: E402
from companion.tables.web.serve import build_site, table_code_file  # noqa: E402

ORIGIN = {"origin": "http://testserver"}
PLAYERS = ("ann", "bob", "cat")


def joined(site: Site, code: str | None = None) -> TestClient:
    client = TestClient(create_app(site))
    assert client.get(f"/?code={code or site.code}", follow_redirects=False).status_code == 303
    return client


# --------------------------------------------------------------------------------------
# The code file
# --------------------------------------------------------------------------------------


def test_the_join_code_is_kept_across_restarts_in_a_file_only_its_owner_reads(
    tmp_path: Path,
) -> None:
    code_file = tmp_path / "game.jsonl.code"
    first = build_site(code_file=code_file)
    again = build_site(code_file=code_file)  # the same table started again
    assert first.code == again.code and CODE_FORM.fullmatch(first.code)
    assert code_file.read_text() == first.code + "\n"
    assert stat.S_IMODE(code_file.stat().st_mode) == 0o600
    assert first.hub.instance != again.hub.instance  # a new server instance all the same


def test_new_code_asks_for_a_new_code_which_is_kept_from_then_on(tmp_path: Path) -> None:
    code_file = tmp_path / "save.json.code"
    old = build_site(code_file=code_file).code
    renewed = build_site(code_file=code_file, renew=True).code
    assert renewed != old and build_site(code_file=code_file).code == renewed


@pytest.mark.parametrize(
    "content",
    [b"", b"\xff\xfe not text", b"short", b"abcdefgh0", b"x" * 100_000, b"abcd efgh\nmore"],
)
def test_a_damaged_code_file_is_one_warning_and_a_new_code(tmp_path: Path, content: bytes) -> None:
    code_file = tmp_path / "web.code"
    code_file.write_bytes(content)
    said: list[str] = []
    code = kept_code(code_file, warn=said.append)
    assert CODE_FORM.fullmatch(code) and len(said) == 1 and str(code_file) in said[0]
    assert "\n" not in said[0]
    assert kept_code(code_file, warn=said.append) == code and len(said) == 1  # now whole


def test_a_code_file_that_is_a_folder_or_a_fifo_is_one_warning_never_a_crash(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "folder.code"
    folder.mkdir()
    fifo = tmp_path / "fifo.code"
    os.mkfifo(fifo)
    for place in (folder, fifo):
        said: list[str] = []
        assert CODE_FORM.fullmatch(kept_code(place, warn=said.append))
        assert said and all(str(place) in line for line in said)
        assert not stat.S_ISREG(os.lstat(place).st_mode)  # left as it was, never replaced


def test_a_code_written_by_hand_in_capitals_with_spaces_is_read_as_typed(
    tmp_path: Path,
) -> None:
    code_file = tmp_path / "web.code"
    code_file.write_text("ABCD EFGH\n")
    assert kept_code(code_file) == "abcdefgh"


def test_each_table_keeps_its_code_beside_its_file_or_in_the_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert table_code_file(tmp_path / "getbit.json", "getbit") == tmp_path / "getbit.json.code"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert state_folder() == tmp_path / "state" / "companion"
    assert table_code_file(None, "demo") == tmp_path / "state" / "companion" / "demo.code"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/not/allowed")
    assert state_folder() == Path.home() / ".local" / "state" / "companion"


@pytest.mark.parametrize(
    "argv",
    [
        ["web", "--new-code"],
        ["demo", "--web", "--new-code"],
        ["referee", "--config", "x.toml", "--web", "--new-code"],
        ["getbit", "play", "--players", "a,b", "--web", "--new-code"],
        ["chips", "play", "--players", "a,b", "--web", "--new-code"],
    ],
)
def test_new_code_is_taken_by_every_command_that_serves_a_page(argv: list[str]) -> None:
    args = build_parser(argv).parse_args(argv)
    assert args.new_code is True
    without = [a for a in argv if a != "--new-code"]
    assert build_parser(without).parse_args(without).new_code is False


# --------------------------------------------------------------------------------------
# Codes as people type them
# --------------------------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", ""]), min_size=8, max_size=8), st.booleans())
def test_codes_compare_without_case_or_spaces(spaces: list[str], upper: bool) -> None:
    code = new_code()
    typed = "".join(s + (c.upper() if upper else c) for s, c in zip(spaces, code, strict=True))
    assert normal_code(f" {typed} ") == code


def test_the_right_code_in_capitals_with_spaces_joins(tmp_path: Path) -> None:
    site = build_site(code_file=tmp_path / "web.code")
    client = TestClient(create_app(site))
    typed = " ".join(site.code.upper()[i : i + 4] for i in (0, 4))
    got = client.get("/", params={"code": typed}, follow_redirects=False)
    assert got.status_code == 303 and got.headers["location"] == "/"
    assert client.get("/api/me").json()["can_change"] is True


def test_a_wrong_code_comes_back_to_the_app_which_says_it_in_one_line() -> None:
    client = TestClient(create_app(build_site()))
    got = client.get("/?code=nottheone", follow_redirects=False)
    assert got.status_code == 303 and got.headers["location"] == "/?refused=code"
    assert "companion_code" not in got.headers.get("set-cookie", "")
    page = client.get("/?refused=code")
    assert page.status_code == 200 and '<p id="error"' in page.text  # the whole app


# --------------------------------------------------------------------------------------
# The code is a secret
# --------------------------------------------------------------------------------------


def getbit_site(tmp_path: Path) -> tuple[Site, GetBitWebTable]:
    four = (*PLAYERS, "dan")  # one robot each, named for its player
    table = open_getbit_table(tmp_path / "game.json", Setup({p: p for p in four}, four))
    page = GetBitWebTable(table)
    site = build_site()
    site.hub.add(page)
    return site, page


def test_f_secret_a_watcher_never_gets_the_join_code_from_get_bit(tmp_path: Path) -> None:
    site, page = getbit_site(tmp_path)
    page.table.notify(f"web: http://10.0.0.2:8080/ join code {site.code}")  # serve_page's
    site.hub.publish("getbit")
    watcher = TestClient(create_app(site))
    player = joined(site)
    for client in (watcher, player):
        answer = client.get("/api/tables/getbit").text
        assert site.code not in answer.lower() and HIDDEN_CODE in answer
    assert site.code not in site.event_text(site.hub.snapshot("getbit"))
    assert site.code not in watcher.get("/").text
    assert watcher.get("/api/me").json()["code"] is None
    assert player.get("/api/me").json()["code"] == site.code  # who has it may show it
    page.table.close()


def test_f_secret_a_watcher_never_gets_the_join_code_from_chips(tmp_path: Path) -> None:
    helper = ChipsHelper.open(tmp_path / "chips.json", ChipsTable.new(PLAYERS), False, False, None)
    site = build_site()
    site.hub.add(ChipsWebTable(helper))
    helper.messages.append(f"web: http://pi:8080/ join code {site.code.upper()}")
    site.hub.publish("chips")
    answer = TestClient(create_app(site)).get("/api/tables/chips").text
    assert site.code not in answer.lower() and HIDDEN_CODE in answer
    helper.release()


def test_the_code_is_hidden_only_as_a_word_of_its_own() -> None:
    site = build_site()
    site.code = "abcdefgh"
    site.hub.add(_Said(["xabcdefghx", "ABCD EFGH", "join code abcdefgh."]))
    text = TestClient(create_app(site)).get("/api/tables/said").text
    assert "xabcdefghx" in text and text.count(HIDDEN_CODE) == 2


class _Said:
    name = "said"

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def state(self) -> dict[str, object]:
        return {"lines": self.lines}

    def act(self, action: object) -> None:
        pass


# --------------------------------------------------------------------------------------
# New join code, the instance id and the game id
# --------------------------------------------------------------------------------------


def test_a_new_join_code_from_the_holder_shuts_out_every_other_page(tmp_path: Path) -> None:
    code_file = tmp_path / "web.code"
    site = build_site(code_file=code_file)
    holder, other, watcher = joined(site), joined(site), TestClient(create_app(site))
    assert watcher.post("/api/code", headers=ORIGIN).status_code == 403
    old = site.code
    answer = holder.post("/api/code", headers=ORIGIN)
    assert answer.status_code == 200 and answer.json()["code"] == site.code != old
    assert code_file.read_text() == site.code + "\n"  # kept for the next start
    assert holder.get("/api/me").json()["can_change"] is True
    assert other.get("/api/me").json()["can_change"] is False
    assert build_site(code_file=code_file).code == site.code


def test_every_update_carries_the_instance_and_the_game(tmp_path: Path) -> None:
    site, page = getbit_site(tmp_path)
    client = joined(site)
    me = client.get("/api/me").json()
    snap = client.get("/api/tables/getbit").json()
    assert snap["instance"] == me["instance"] == site.hub.instance and snap["game"] == "1"
    assert client.get("/api/tables/land").json()["game"] is None  # a page with no games
    assert f'"instance":"{site.hub.instance}"' in site.event_text(site.hub.snapshot("getbit"))
    page.table.close()


def test_new_game_on_get_bit_keeps_the_old_save_and_changes_the_game_id(
    tmp_path: Path,
) -> None:
    site, page = getbit_site(tmp_path)
    client = joined(site)
    played = client.post(
        "/api/tables/getbit/actions",
        json={"type": "play", "cards": {"ann": 1, "bob": 2, "cat": 3, "dan": 4}},
        headers=ORIGIN,
    )
    assert played.status_code == 200 and played.json()["state"]["round"] == 2
    fresh = client.post("/api/tables/getbit/actions", json={"type": "new_game"}, headers=ORIGIN)
    assert fresh.status_code == 200
    snap = fresh.json()
    assert snap["state"]["round"] == 1 and snap["game"] == "2" and not snap["state"]["undo"]
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("game") and p.name != "game.json"]
    assert kept, "the game before is kept aside"
    page.table.close()


def test_new_game_on_chips_keeps_the_old_save_and_changes_the_game_id(tmp_path: Path) -> None:
    helper = ChipsHelper.open(tmp_path / "chips.json", ChipsTable.new(PLAYERS), False, False, None)
    site = build_site()
    site.hub.add(ChipsWebTable(helper))
    client = joined(site)

    def send(action: dict[str, object]) -> dict[str, object]:
        got = client.post("/api/tables/chips/actions", json=action, headers=ORIGIN)
        assert got.status_code == 200, got.text
        answer: dict[str, object] = got.json()
        return answer

    send({"type": "command", "line": "top 5"})
    assert helper.turns
    snap = send({"type": "new_game"})
    assert snap["game"] == "2" and not helper.turns and helper.table.top is None
    assert len([p for p in tmp_path.iterdir() if p.name.startswith("chips")]) >= 2
    helper.release()


# --------------------------------------------------------------------------------------
# Fuzz: every code file and every typed code
# --------------------------------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=64) | st.text(max_size=40).map(str.encode))
def test_fuzz_any_code_file_gives_a_code_and_at_most_one_warning(content: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        code_file = Path(folder) / "web.code"
        code_file.write_bytes(content)
        said: list[str] = []
        code = kept_code(code_file, warn=said.append)
        assert CODE_FORM.fullmatch(code) and len(said) <= 1
        whole = CODE_FORM.fullmatch(normal_code(content.decode("utf-8", "replace")))
        assert (code == normal_code(content.decode())) if whole else len(said) == 1
        assert kept_code(code_file) == code  # what was read or made is what is kept


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=30))
def test_fuzz_any_typed_code_comes_back_to_the_app(typed: str) -> None:
    site = build_site()
    client = TestClient(create_app(site))
    got = client.get("/", params={"code": typed}, follow_redirects=False)
    assert got.status_code == 303
    assert got.headers["location"] in ("/", "/?refused=code") or got.headers["location"].startswith(
        "/?refused=wait&s="
    )


class _Page(_Said):
    """A live table's page: serve_page stops it with the server."""

    def close(self) -> None:
        pass


def test_a_live_table_says_a_damaged_code_file_on_its_own_screen_and_keeps_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.tables.web.serve import serve_page

    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # CI runs as root; the Pi does not
    code_file = table_code_file(tmp_path / "chips-game.json", "chips")
    code_file.write_text("not a code\n")
    codes = []
    for renew in (False, False, True):
        said: list[str] = []
        stop = serve_page(_Page([]), "127.0.0.1:0", said.append, code_file, renew)
        stop()
        codes.append(said[-1].rsplit(" ", 1)[1])
        if not codes[1:]:  # the first start: the damaged file, said on the table's screen
            assert len(said) == 2 and "join code file is damaged" in said[0]
        else:
            assert len(said) == 1
    assert codes[0] == codes[1] != codes[2] and code_file.read_text() == codes[2] + "\n"
    assert "companion: warning: " in capsys.readouterr().err  # and in the log

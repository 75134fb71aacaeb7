"""``companion getbit play --tags FILE --reader SPEC``: the round's cards from the cards'
tags (docs/getbit.md). Unknown tags, a card read twice, a robot without a card and a card
the robot cannot play are prompts; a complete round is played as typed cards are.

The table's logic is tested without threads: reads go through ``runner.feed`` on the
test's thread, and their events are taken with ``GetBitTable.pending_tags``. The sessions run
whole, in line mode, with the Pico bridge's reader (a ``CallbackReader`` reached through
its hook) or a serial scanner on a pseudo-terminal; they wait only in bounded polls.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.getbit import RoundResult, Setup
from companion.tables.getbit.entry import entry_order
from companion.tables.getbit.saved import SavedGame
from companion.tables.getbit.screen import run_lines
from companion.tables.getbit.table import GetBitTable
from companion.tables.getbit.tags import TableTags, TagCards, TagPrompt
from companion.tags import readers
from companion.tags.readers import CallbackReader, TagKind, TagRead
from companion.tags.tagfile import GETBIT_COLOURS, TagFile, load_tagfile, save_tagfile

WaitFor = Callable[..., bool]  # the conftest fixture: poll until true, or fail

ROOT = Path(__file__).resolve().parent.parent
RULEBOOK = json.loads((ROOT / "examples" / "getbit-rulebook.json").read_text())
TWO_PLAYERS = json.loads((ROOT / "examples" / "getbit-two-players.json").read_text())
FOUR = ["--players", "john,anne,beth,ted", "--line", "ted,anne,beth,john"]
COLOURS = {"john": "red", "anne": "blue", "beth": "green", "ted": "yellow"}
TYPED = ["3 2 5 1", "4 1 1 2"]  # the rulebook example's first two rounds


def uid(colour: str, n: int) -> str:
    """The made-up NFC UID on a card: 05, the colour's number, 00, the card's number."""
    return f"05{GETBIT_COLOURS.index(colour) + 1:02X}00{n:02X}"


def deck(tmp_path: Path, leave_out: tuple[str, ...] = ()) -> Path:
    """A Get Bit! tag file: every card has an NFC tag and a barcode ``GB-<card>``."""
    tags = TagFile("getbit", source=str(tmp_path / "getbit-tags.json"))
    for colour in GETBIT_COLOURS:
        for n in range(1, 8):
            card = f"{colour}-{n}"
            if card not in leave_out:
                tags.add(uid(colour, n), card)
                tags.add(f"code:GB-{card}", card)
    path = tmp_path / "getbit-tags.json"
    save_tagfile(tags, path)
    return path


def nfc(colour: str, n: int, index: int = 0) -> TagRead:
    return TagRead("bridge", index, uid(colour, n))


def round_reads(cards: str, colours: dict[str, str] = COLOURS) -> list[tuple[str, int]]:
    """A typed round (``3 2 5 1``, john anne beth ted) as the cards to scan."""
    return [(colours[r], int(c)) for r, c in zip(colours, cards.split(), strict=True)]


def saved(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text()))


def rounds_saved(path: Path) -> int:
    return len(saved(path)["rounds"]) if path.exists() else 0


# ----------------------------------------------------------- the table, no threads ------


@pytest.fixture
def tag_table(tmp_path: Path) -> Iterator[Callable[..., GetBitTable]]:
    made: list[TableTags] = []

    def build(
        colours: dict[str, str] | None = None,
        seats: dict[int, str] | None = None,
        memory: bool = False,
        rounds: int = 0,
    ) -> GetBitTable:
        setup = Setup({r: r for r in COLOURS}, ("ted", "anne", "beth", "john"), memory=memory)
        session, _ = SavedGame.open(tmp_path / "game.json", setup, resume=False, new=False)
        for cards in TYPED[:rounds]:
            session.play(dict(zip(COLOURS, map(int, cards.split()), strict=True)))
        tags = TableTags(load_tagfile(deck(tmp_path)), [CallbackReader()], session, seats, colours)
        made.append(tags)
        return GetBitTable(session, tags=tags)

    yield build
    for tags in made:
        tags.close()


def scan(table: GetBitTable, *reads: TagRead) -> list[RoundResult]:
    """Feed reads as the runner's thread would, then take their events as the table does:
    the rounds they played."""
    assert table.tags is not None
    for read in reads:
        table.tags.runner.feed(read)
    played = [table.tag_event(event) for event in table.pending_tags()]
    return [result for result in played if result is not None]


def test_a_round_read_from_tags_is_played_as_typed(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table()
    assert table.tags is not None
    assert table.tags.status_line() == "john _ · anne _ · beth _ · ted _  (scan john)"
    results = scan(table, *(nfc(c, n) for c, n in round_reads("3 2 5 1")))
    assert [r.number for r in results] == [1]
    assert table.announced[0] == "Round 1: john 3 · anne 2 · beth 5 · ted 1"
    assert saved(table.session.path)["rounds"] == RULEBOOK["rounds"][:1]
    # re-armed for round 2 at once, the same robots in the same order
    assert table.tags.status_line() == "john _ · anne _ · beth _ · ted _  (scan john)"


def test_unknown_tag_is_a_prompt_and_nothing_is_played(
    tag_table: Callable[..., GetBitTable],
) -> None:
    table = tag_table()
    assert scan(table, nfc("red", 3), TagRead("bridge", 0, "04A1B2C3D4")) == []
    assert table.messages == [
        "tag 04A1B2C3D4 is not in getbit-tags.json: scan again or type the card for anne"
    ]
    assert scan(table, TagRead("serial", 0, "GB-pink-2", TagKind.CODE)) == []
    assert table.messages[-1] == (
        "code 'GB-pink-2' is not in getbit-tags.json: scan again or type the card for anne"
    )
    assert rounds_saved(table.session.path) == 0


def test_a_card_read_twice_is_a_prompt_to_rescan(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table()
    scan(table, nfc("red", 3), nfc("red", 3))
    assert table.messages == ["red-3 read twice (seat john and anne): rescan anne"]
    scan(table, nfc("blue", 2), nfc("green", 5))
    assert rounds_saved(table.session.path) == 0
    scan(table, nfc("yellow", 1))
    assert saved(table.session.path)["rounds"] == RULEBOOK["rounds"][:1]


def test_a_robot_without_a_card_when_demanded(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table()
    assert table.tags is not None
    scan(table, nfc("red", 3), nfc("blue", 2))
    assert table.tags.demand() == [TagPrompt("no card read for beth, ted")]
    assert rounds_saved(table.session.path) == 0


def test_a_card_not_in_the_robots_hand_is_refused_and_nothing_changes(
    tag_table: Callable[..., GetBitTable],
) -> None:
    table = tag_table(rounds=1)  # john played 3 in round 1
    before = saved(table.session.path)
    assert scan(table, nfc("red", 3)) == []
    assert table.messages == [
        "round 2: john cannot play 3: not in its hand (1, 2, 4, 5): rescan john"
    ]
    assert table.tags is not None and table.tags.status_line().endswith("(scan john)")
    assert saved(table.session.path) == before  # nothing changed
    scan(table, nfc("red", 4), nfc("blue", 1), nfc("green", 1), nfc("yellow", 2))
    assert saved(table.session.path)["rounds"] == RULEBOOK["rounds"][:2]


def test_memory_game_refusal_names_no_card(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table(memory=True, rounds=1)
    scan(table, nfc("red", 3))
    assert table.messages == ["round 2: john cannot play that card: rescan john"]


def test_colours_refuse_another_robots_card(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table(colours=COLOURS)
    scan(table, nfc("blue", 3))
    assert table.messages == ["blue-3 is not john's colour (red): rescan john"]
    assert rounds_saved(table.session.path) == 0


def test_one_reader_per_robot_in_any_order(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table(seats={0: "john", 1: "anne", 2: "beth", 3: "ted"})
    scan(table, nfc("yellow", 1, 3), nfc("green", 5, 2), nfc("red", 3, 0))
    assert rounds_saved(table.session.path) == 0
    scan(table, nfc("blue", 2, 1))
    assert saved(table.session.path)["rounds"] == RULEBOOK["rounds"][:1]


def test_cards_of_a_round_already_played_are_dropped(tag_table: Callable[..., GetBitTable]) -> None:
    table = tag_table()
    assert table.tags is not None
    stale = TagCards({"john": 3, "anne": 2, "beth": 5, "ted": 1}, table.tags.generation)
    table.play({"john": 3, "anne": 2, "beth": 5, "ted": 1})  # typed meanwhile
    assert table.tag_event(stale) is None
    assert rounds_saved(table.session.path) == 1


def test_cards_refused_at_play_time_are_read_again(tag_table: Callable[..., GetBitTable]) -> None:
    """The reveal refuses such a card as it is read; should one get through, the engine
    refuses the round, nothing changes, and the round's cards are asked for again."""
    table = tag_table(rounds=1)
    assert table.tags is not None
    scan(table, nfc("red", 4))
    bad = TagCards({"john": 3, "anne": 1, "beth": 1, "ted": 2}, table.tags.generation)
    assert table.tag_event(bad) is None
    assert table.messages == [
        "round 2: john cannot play 3: not in its hand (1, 2, 4, 5)",
        "scan the cards for john anne beth ted again",
    ]
    assert table.tags.status_line().startswith("john _ ·")  # forgotten: read them again
    assert rounds_saved(table.session.path) == 1


def test_undo_rearms_for_the_round_undone_and_disarmed_reads_are_ignored(
    tag_table: Callable[..., GetBitTable],
) -> None:
    table = tag_table(rounds=2)
    assert table.tags is not None
    scan(table, nfc("red", 5))  # a round 3 card, then round 2 is undone: forgotten
    table.undo()
    assert table.tags.status_line() == "john _ · anne _ · beth _ · ted _  (scan john)"
    scan(table, *(nfc(c, n) for c, n in round_reads("4 1 1 2")))
    assert saved(table.session.path)["rounds"] == RULEBOOK["rounds"][:2]
    table.tags.disarm()
    assert scan(table, nfc("red", 5), TagRead("bridge", 0, "04A1B2C3D4")) == []
    assert table.tags.demand() == []
    assert table.messages == []


def test_describe_names_readers_colours_and_missing_cards(tmp_path: Path) -> None:
    setup = Setup({r: r for r in COLOURS}, ("ted", "anne", "beth", "john"))
    session, _ = SavedGame.open(tmp_path / "game.json", setup, resume=False, new=False)
    tagfile = TagFile("getbit", {uid("red", 1): "red-1"}, source=str(tmp_path / "few.json"))
    tags = TableTags(tagfile, [CallbackReader()], session, {0: "john"}, {"john": "red"})
    try:
        assert tags.describe(setup) == [
            "cards from the tags of few.json: one reader per robot: john on bridge reader 0; "
            "robot colours: john=red",
            "not in few.json (type them): red-2, red-3, red-4, red-5",
        ]
    finally:
        tags.close()


# ------------------------------------------------------- whole sessions, line mode ------


class Script(io.TextIOBase):
    """Standard input that runs steps between its lines: a step is a line to type, or a
    function to call (scan cards, wait for something) before the next line is read.

    A failing step ends the session (``quit``) and is raised again by :meth:`check`.
    """

    def __init__(self, *steps: str | Callable[[], object]) -> None:
        self.steps = list(steps)
        self.error: BaseException | None = None

    def readable(self) -> bool:
        return True

    # typeshed's TextIOBase inherits _IOBase.readline (-> bytes) beside its own (-> str),
    # so any str readline conflicts with the first: the stub, not this class, is at fault.
    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]
        while self.steps:
            step = self.steps.pop(0)
            if isinstance(step, str):
                return step + "\n"
            try:
                step()
            except BaseException as exc:
                self.error = exc
                self.steps = []
                return "quit\n"
        return ""

    def check(self) -> None:
        if self.error is not None:
            raise self.error


class Console:
    """``companion ARGV`` with a scripted stdin, and a stdout the script's steps can watch
    while the session runs (a prompt is how a step knows its reads were taken)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, wait_for: WaitFor) -> None:
        self.monkeypatch = monkeypatch
        self.wait_for = wait_for
        self.out = io.StringIO()

    def __call__(self, *argv: str, stdin: io.TextIOBase | str = "") -> tuple[int, str, str]:
        self.out, err = io.StringIO(), io.StringIO()
        stream = io.StringIO(stdin) if isinstance(stdin, str) else stdin
        self.monkeypatch.setattr("sys.stdin", stream)
        self.monkeypatch.setattr("sys.stdout", self.out)
        self.monkeypatch.setattr("sys.stderr", err)
        status = main(list(argv))
        return status, self.out.getvalue(), err.getvalue()

    def shows(self, text: str) -> Callable[[], bool]:
        """A step: wait until the session has printed ``text``."""
        return lambda: self.wait_for(lambda: text in self.out.getvalue())


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, wait_for: WaitFor) -> Console:
    return Console(monkeypatch, wait_for)


@pytest.fixture
def bridge() -> Iterator[list[CallbackReader]]:
    """The Pico bridge's hook: ``--reader bridge`` connects, and the test pushes reads."""
    connected: list[CallbackReader] = []
    stopped: list[bool] = []

    def hook(reader: CallbackReader) -> Callable[[], None]:
        connected.append(reader)
        return lambda: stopped.append(True)

    readers.set_bridge_hook(hook)
    try:
        yield connected
    finally:
        readers.set_bridge_hook(None)
    assert len(stopped) == len(connected)  # every session closed its reader


def push_round(
    bridge: list[CallbackReader], cards: str, cli: Console, rounds: int, seats: bool = False
) -> Callable[[], None]:
    """A step: scan a round's cards, then wait until the next round is asked for (the
    save is written a moment before the tags are armed for the next round)."""

    def step() -> None:
        for i, (colour, n) in enumerate(round_reads(cards)):
            bridge[0].push(i if seats else 0, bytes.fromhex(uid(colour, n)))
        cli.wait_for(lambda: f"round {rounds + 1} cards for" in cli.out.getvalue())

    return step


def test_tags_in_line_mode_end_in_the_same_save_as_typing(
    cli: Console, tmp_path: Path, bridge: list[CallbackReader]
) -> None:
    typed, tagged = tmp_path / "typed.json", tmp_path / "tagged.json"
    status, _, _ = cli("getbit", "play", *FOUR, "--save", str(typed), stdin="\n".join(TYPED))
    assert status == 0
    script = Script(
        push_round(bridge, TYPED[0], cli, 1),
        push_round(bridge, TYPED[1], cli, 2),
        "quit",
    )
    status, out, err = cli(
        "getbit", "play", *FOUR, "--save", str(tagged), "--tags", str(deck(tmp_path)),
        "--reader", "bridge", stdin=script,
    )  # fmt: skip
    script.check()
    assert status == 0, err
    assert saved(tagged) == saved(typed) == {**RULEBOOK, "rounds": RULEBOOK["rounds"][:2]}
    assert "cards from the tags of getbit-tags.json: one reader (bridge) for the table" in out
    assert "round 3 cards for john anne beth ted (tags, or type them):" in out
    assert "Round 2: john 4 · anne 1 · beth 1 · ted 2" in out
    assert "  the shark bites anne: 3 limbs left;" in out
    assert f"saved {tagged} (after round 2)" in err


def test_one_bridge_reader_per_robot_with_colours(
    cli: Console, tmp_path: Path, bridge: list[CallbackReader]
) -> None:
    save = tmp_path / "game.json"
    script = Script(push_round(bridge, TYPED[0], cli, 1, seats=True), "quit")
    status, out, err = cli(
        "getbit", "play", *FOUR, "--save", str(save), "--tags", str(deck(tmp_path)),
        "--reader", "bridge", "--reader-seats", "john,anne,beth,ted",
        "--colours", "john=red,anne=blue,beth=green,ted=yellow", stdin=script,
    )  # fmt: skip
    script.check()
    assert status == 0, err
    assert saved(save)["rounds"] == RULEBOOK["rounds"][:1]
    assert (
        "one reader per robot: john on bridge reader 0, anne on bridge reader 1, beth on "
        "bridge reader 2, ted on bridge reader 3; robot colours: john=red, anne=blue, "
        "beth=green, ted=yellow" in out
    )


def test_a_serial_scanner_on_a_pty(wait_for: WaitFor, cli: Console, tmp_path: Path) -> None:
    master, slave = os.openpty()
    save = tmp_path / "game.json"

    def scan_round() -> None:
        for colour, n in round_reads(TYPED[0]):
            os.write(master, f"GB-{colour}-{n}\r\n".encode())
        wait_for(lambda: rounds_saved(save) == 1)

    script = Script(scan_round, "quit")
    try:
        status, out, err = cli(
            "getbit", "play", *FOUR, "--save", str(save), "--tags", str(deck(tmp_path)),
            "--reader", f"serial:{os.ttyname(slave)}", stdin=script,
        )  # fmt: skip
    finally:
        os.close(master)
        os.close(slave)
    script.check()
    assert status == 0, err
    assert saved(save)["rounds"] == RULEBOOK["rounds"][:1]
    assert "cards from the tags of getbit-tags.json: one reader (serial:/dev/" in out


def test_line_mode_prompts_demand_and_corrections(
    cli: Console, tmp_path: Path, bridge: list[CallbackReader]
) -> None:
    """An unknown tag and a card read twice are said at once; ``demand`` names the robot
    without a card; ``ted=1`` corrects that robot and completes the round."""
    save = tmp_path / "game.json"

    def scan_some() -> None:
        for tag in (uid("red", 3), uid("blue", 2), uid("green", 5), "04A1B2C3D4", uid("red", 3)):
            bridge[0].push(0, bytes.fromhex(tag))

    script = Script(
        scan_some,
        cli.shows("red-3 read twice (seat john and ted): rescan ted"),
        "show",
        "demand",
        cli.shows("no card read for ted"),
        "ted=1",
        "quit",
    )
    status, out, err = cli(
        "getbit", "play", *FOUR, "--save", str(save), "--tags", str(deck(tmp_path)),
        "--reader", "bridge", stdin=script,
    )  # fmt: skip
    script.check()
    assert status == 0, err
    assert "tag 04A1B2C3D4 is not in getbit-tags.json: scan again or type the card for ted" in out
    assert "tags: john red-3 · anne blue-2 · beth green-5 · ted _  (scan ted)" in out
    assert rounds_saved(save) == 1
    assert "Round 1: john 3 · anne 2 · beth 5 · ted 1" in out
    assert saved(save)["rounds"] == RULEBOOK["rounds"][:1]


def test_typed_cards_still_play_the_round(
    cli: Console, tmp_path: Path, bridge: list[CallbackReader]
) -> None:
    """Typed cards for every robot are the correction path: they play the round whatever
    the tags read so far, and the tags wait for the next round."""
    save = tmp_path / "game.json"
    script = Script(
        lambda: bridge[0].push(0, bytes.fromhex(uid("red", 5))),
        lambda: bridge[0].push(0, bytes.fromhex("04A1B2C3D4")),
        cli.shows("type the card for anne"),  # john has red-5 from the tags: typed over
        "3 2 5 1",
        cli.shows("round 2 cards for"),
        push_round(bridge, TYPED[1], cli, 2),
        "quit",
    )
    status, _, err = cli(
        "getbit", "play", *FOUR, "--save", str(save), "--tags", str(deck(tmp_path)),
        "--reader", "bridge", stdin=script,
    )  # fmt: skip
    script.check()
    assert status == 0, err
    assert saved(save)["rounds"] == RULEBOOK["rounds"][:2]


def test_after_the_end_of_input_the_tags_play_on_to_the_end(
    wait_for: WaitFor, tmp_path: Path
) -> None:
    """A service has no input: the game goes on from the tags until it is over."""
    save = tmp_path / "game.json"
    save.write_text(json.dumps({**TWO_PLAYERS, "rounds": TWO_PLAYERS["rounds"][:4]}))
    session, _ = SavedGame.open(save, None, resume=True, new=False)
    tagfile = load_tagfile(deck(tmp_path))
    reader = CallbackReader()
    colours = {r: r for r in session.setup.robots}  # red, blue, green, yellow
    tags = TableTags(tagfile, [reader], session, colours=colours, poll_s=0.02)
    table = GetBitTable(session, tags=tags)
    out = io.StringIO()

    failed: list[BaseException] = []

    def scan_last_round() -> None:
        try:
            wait_for(lambda: "end of input" in out.getvalue())
        except AssertionError as exc:
            failed.append(exc)
        cards = TWO_PLAYERS["rounds"][4]
        for robot in entry_order(session.state):  # red, green (ann's), blue, yellow (bob's)
            reader.push(0, bytes.fromhex(uid(robot, cards[robot])))

    pusher = threading.Thread(target=scan_last_round)
    session_thread = threading.Thread(
        target=run_lines, args=(table, io.StringIO(""), out), daemon=True
    )
    tags.start()
    try:
        pusher.start()
        session_thread.start()
        session_thread.join(5)  # it returns by itself when the game is over
    finally:
        tags.close()
        pusher.join(5)
    assert not session_thread.is_alive(), out.getvalue()
    assert not failed
    assert "end of input: the cards keep coming from the tags until the game is over" in (
        out.getvalue()
    )
    assert saved(save) == TWO_PLAYERS
    assert "  ann wins the game!" in out.getvalue()
    assert reader.finished


# ------------------------------------------------------------------ the options ---------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--reader", "bridge"], "--reader: reads the cards' tags: give the tag file with --tags"),
        (["--colours", "john=red"], "--colours: reads the cards' tags: give the tag file"),
        (["--tags", "T"], "--tags: name the reader with --reader"),
        (["--tags", "T", "--reader", "keyboard"], "--reader: keyboard: a keyboard-wedge scanner"),
        (
            ["--tags", "T", "--reader", "bridge", "--reader-seats", "john,anne"],
            "--reader-seats: each robot needs its reader; none for beth, ted",
        ),
        (
            ["--tags", "T", "--reader", "bridge", "--reader-seats", "john,anne,beth,bob"],
            "--reader-seats: not a robot of this game: bob",
        ),
        (
            ["--tags", "T", "--reader", "bridge", "--colours", "john=pink"],
            "--colours: unknown colour 'pink'",
        ),
        (
            ["--tags", "T", "--reader", "bridge", "--colours", "john=red,anne=red"],
            "--colours: two robots with one colour: john, anne",
        ),
        (
            ["--tags", "T", "--reader", "bridge", "--colours", "red"],
            "--colours: write ROBOT=COLOUR, not 'red'",
        ),
        (
            ["--tags", "T", "--reader", "serial:/dev/a", "--reader-seats", "john,anne,beth,ted"],
            "--reader-seats: one robot per --reader: 1 reader(s) for 4 robots",
        ),
    ],
)
def test_option_mistakes_are_one_line_and_leave_no_game(
    cli: Console, tmp_path: Path, argv: list[str], message: str, bridge: list[CallbackReader]
) -> None:
    tagfile = str(deck(tmp_path))
    save = tmp_path / "game.json"
    argv = [tagfile if a == "T" else a for a in argv]
    status, out, err = cli("getbit", "play", *FOUR, "--save", str(save), *argv)
    assert status == 2 and out == ""
    assert err.startswith(f"companion: {message}") and err.count("\n") == 1
    assert not save.exists()


def test_a_chomp_tag_file_is_refused(cli: Console, tmp_path: Path) -> None:
    path = tmp_path / "chomp-tags.json"
    path.write_text(json.dumps({"game": "chomp", "tags": {"04000001": "seal"}}))
    status, _, err = cli(
        "getbit", "play", *FOUR, "--save", str(tmp_path / "g.json"), "--tags", str(path),
        "--reader", "bridge",
    )  # fmt: skip
    assert status == 2
    assert err == f"companion: {path}: game: this is a CHOMP! tag file; Get Bit! needs its own\n"

"""``companion chips``, the table helper, as the table uses it: the command grammar, undo,
the line mode (the session in docs/chips.md is replayed here), the config file, one-line
errors with exit status 2, and the LEDs on mock pins."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from companion.devices.outputs import TableOutputs
from companion.devices.pins import OpenedFactory
from companion.errors import InputError, RuleError
from companion.games.chips import ChipsStep, ChipsTable
from companion.signals import Cue, Signal
from companion.tables.chips.config import config_from_dict
from companion.tables.chips.screen import CommandLine
from companion.tables.chips.session import ChipsHelper, status_text
from companion.tables.chips.typed import execute

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "chips.md"
Run = Callable[..., tuple[int, str, str]]  # the conftest run_cli fixture
EXAMPLE = ROOT / "examples" / "chips-table.toml"


@pytest.fixture(autouse=True)
def in_a_scratch_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper saves its game in the current folder: keep that out of the checkout."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)


def started(players: str = "ann,bob,cat", top: int = 5) -> ChipsTable:
    table = ChipsTable.new(players.split(","), strict=True)
    table.start(top)
    return table


def run(run_cli: Run, argv: Sequence[str], lines: Sequence[str] = ()) -> tuple[int, str, str]:
    """The conftest run_cli with ``lines`` typed at the table, one a line."""
    return run_cli(*argv, stdin="".join(f"{line}\n" for line in lines))


def bad_input(run_cli: Run, *argv: str) -> str:
    code, out, err = run(run_cli, argv)
    assert (code, out) == (2, ""), err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


# ---------------------------------------------------------------- what the players type -


def test_grammar_a_number_discards_and_a_word_names_the_special_card() -> None:
    table = started()
    assert execute(table, ["5"]) == "ann discards 5."
    assert execute(table, ["6", "triple"]) == "bob discards 6 Triple Chips."
    assert table.pending is not None and table.pending.step is ChipsStep.TRIPLE
    assert execute(table, ["done"]) == ""
    assert table.turn == "cat"


def test_grammar_every_special_card() -> None:
    table = started(top=4)
    execute(table, ["3", "everyone"])
    assert table.hands == {"ann": 7, "bob": 9, "cat": 9}
    execute(table, ["3", "sir"])  # bob: Sir Fries 3 lets him play a 6 or a 9
    assert table.pending is not None and table.pending.numbers == (6, 9)
    execute(table, ["9", "spy"])
    assert table.pending is not None and table.pending.step is ChipsStep.SPY_FRY
    assert execute(table, ["cat"]).startswith("bob looks at cat's hand")
    execute(table, ["9", "knight"])
    assert table.turn == "ann" and table.pending is None
    execute(table, ["1", "time", "any"])
    execute(table, ["choose", "bob"])
    assert table.actor == "bob"
    execute(table, ["mad", "1"])
    execute(table, ["k"])
    assert table.knights["bob"] == 1 and table.turn == "cat"


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["12"], "cards show 1 to 9, not '12'"),
        (["5", "dragon"], "unknown card 'dragon'"),
        (["5", "triple", "now"], "nothing goes after '5 triple'"),
        (["5", "time", "soon"], "'5 time' takes only 'any' after it"),
        (["3", "sir", "x"], "cards show 1 to 9, not 'x'"),
        (["mad"], "say how many cards the Mad Fish makes her draw: mad 2"),
        (["bob"], "nobody needs a player's name now"),
        (["jump"], "not a command: 'jump'"),
    ],
)
def test_grammar_mistakes_are_refused_with_the_reason(words: list[str], message: str) -> None:
    table = started()
    before = table.to_dict()
    with pytest.raises(RuleError, match=re.escape(message)):
        execute(table, words)
    assert table.to_dict() == before


def test_grammar_before_the_first_card_only_its_number() -> None:
    table = ChipsTable.new(["ann", "bob"])
    with pytest.raises(RuleError, match="first turn over the deck's top card"):
        execute(table, ["draw"])
    assert execute(table, ["top", "3"]) == "Top card 3. ann begins."


def test_helper_undo_goes_back_a_turn() -> None:
    helper = ChipsHelper(started())
    assert helper.command("undo") == "nothing to undo"
    helper.command("5")
    helper.command("draw")
    assert helper.table.turn == "cat"
    assert helper.command("undo") == "undone: back to the start of bob's turn."
    assert helper.table.turn == "bob" and helper.table.hands["bob"] == 8
    helper.command("6 triple")
    helper.command("7")
    assert helper.table.pending is not None
    assert helper.command("u") == "undone: back to the start of bob's turn."
    assert helper.table.pending is None and helper.table.top == 5 and helper.table.hands["bob"] == 8
    assert helper.command("undo") == "undone: back to the start of ann's turn."
    assert helper.command("undo") == "nothing to undo"
    assert helper.command("undo now") == "no: undo takes nothing after it"


def test_helper_refused_commands_change_nothing_and_are_not_undone() -> None:
    helper = ChipsHelper(started())
    helper.command("5")
    assert helper.command("9") == "no: a 9 cannot go on a 5: play a 4, 5 or 6"
    helper.command("undo")
    assert helper.table.turn == "ann"


def test_helper_help_status_and_quit() -> None:
    helper = ChipsHelper(started())
    assert "reveal mad 2" in (helper.command("help") or "")
    assert helper.command("status") == status_text(helper.table)
    assert helper.command("quit") is None and helper.command("") == ""


def test_full_screen_keys_type_a_command_and_quit_asks_first() -> None:
    line = CommandLine(ChipsHelper(started()))
    for key in "5x":
        assert line.key(key)
    assert line.key("\x7f") and line.typed == "5"  # Backspace
    assert line.key("\n") and line.helper.table.turn == "bob" and line.typed == ""
    for key in "help\n":
        line.key(key)
    assert "reveal mad 2" in line.last  # a long reply stays on screen
    for key in "quit\n":
        line.key(key)
    assert line.quit_armed and line.key("n") and not line.quit_armed  # not left yet
    for key in "quit\n":
        line.key(key)
    assert not line.key("y")  # left


# ---------------------------------------------------------------- the lights ------------


def test_lights_follow_whoever_must_act() -> None:
    shown: list[list[Cue]] = []
    helper = ChipsHelper(ChipsTable.new(["ann", "bob"]), lambda cues: shown.append(list(cues)))
    assert shown == [[Cue(Signal.READY)]]  # no top card yet: nobody to light
    helper.command("5")
    assert shown[-1] == [Cue(Signal.READY), Cue(Signal.TURN, "ann")]
    helper.command("5 time")  # bob must reveal now
    assert shown[-1] == [Cue(Signal.READY), Cue(Signal.TURN, "bob")]
    count = len(shown)
    helper.command("9")  # refused: nothing changes, nothing is sent
    assert len(shown) == count


def test_lights_show_an_elimination_and_the_end() -> None:
    shown: list[list[Cue]] = []
    table = started("ann,bob,cat")
    table.mad["ann"] = 2
    helper = ChipsHelper(table, lambda cues: shown.append(list(cues)))
    helper.command("mad 1")
    helper.command("no")
    assert shown[-1] == [Cue(Signal.READY), Cue(Signal.ELIMINATED, "ann"), Cue(Signal.TURN, "bob")]
    helper.table.mad["bob"] = 2
    helper.command("mad 1")
    helper.command("no")
    assert shown[-1] == [
        Cue(Signal.READY),
        Cue(Signal.ELIMINATED, "bob"),
        Cue(Signal.GAME_OVER, "cat"),
    ]


def test_lights_on_mock_pins_one_led_per_player(opened: OpenedFactory) -> None:
    config = config_from_dict(tomllib.loads(EXAMPLE.read_text("utf-8")))
    outputs = TableOutputs(config.leds, None, config.status_led, opened)
    try:
        helper = ChipsHelper(started("ann,bob,cat"), outputs.render)
        pins = {"ann": 5, "bob": 6, "cat": 13}

        def lit() -> list[str]:
            return [p for p, pin in pins.items() if opened.factory.pin(pin).state]

        assert lit() == ["ann"] and opened.factory.pin(20).state
        helper.command("4")
        assert lit() == ["bob"]
        helper.command("draw")
        assert lit() == ["cat"]
    finally:
        outputs.close()


# ---------------------------------------------------------------- the command -----------


def session_from_docs() -> tuple[list[str], list[str], str]:
    """The docs' session: its command line, the commands typed, and the whole output."""
    block = next(
        b
        for b in re.findall(r"```text\n(.*?)```", DOCS.read_text("utf-8"), re.S)
        if b.startswith("$ companion chips")
    )
    first, *rest = block.rstrip("\n").splitlines()
    typed = [line[2:] for line in rest if line.startswith("> ")]
    return shlex.split(first[2:])[1:], typed, "\n".join(rest)


def test_docs_session_replays_exactly(run_cli: Run) -> None:
    argv, typed, expected = session_from_docs()
    code, out, err = run(run_cli, argv, typed)
    assert (code, err) == (0, "")
    assert out.rstrip("\n") == expected


def test_line_mode_ends_at_the_end_of_input(run_cli: Run) -> None:
    code, out, _ = run(run_cli, ["chips", "--players", "ann,bob", "--top", "9"], ["1", "2"])
    assert code == 0
    assert out.splitlines()[1:] == [
        "new game, saved after every turn to chips-game.json",
        "ann's turn: discard an 8, 9 or 1, reveal a fish-or-chips card or draw.",
        "> 1",
        "ann discards 1.",
        "bob's turn: discard a 9, 1 or 2, reveal a fish-or-chips card or draw.",
        "> 2",
        "bob discards 2.",
        "ann's turn: discard a 1, 2 or 3, reveal a fish-or-chips card or draw.",
    ]


def test_config_players_and_mock_leds(run_cli: Run) -> None:
    argv = ["chips", "--config", "examples/chips-table.toml", "--pin-factory", "mock", "--top", "4"]
    code, out, _ = run(run_cli, argv, ["3"])
    assert code == 0
    assert out.splitlines()[:4] == [
        "The Great Chips Escape · ann, bob, cat. Type help for the commands.",
        "new game, saved after every turn to chips-game.json",
        "LEDs on mock pins",
        "ann's turn: discard a 3, 4 or 5, reveal a fish-or-chips card or draw.",
    ]


def test_example_config_is_the_default_deck() -> None:
    from companion.games.chips import ChipsRules

    config = config_from_dict(tomllib.loads(EXAMPLE.read_text("utf-8")))
    assert config.rules == ChipsRules() and config.first == "ann" and config.has_outputs


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chips"], "companion: --players: name the players in turn order (--players ann,bob,cat)"),
        (
            ["chips", "--players", "ann"],
            "companion: --players: these rules seat 2 to 7 players, not 1",
        ),
        (["chips", "--players", "ann,draw"], "companion: --players[1]: 'draw' reads as a command"),
        (
            ["chips", "--players", "ann,bob", "--first", "zed"],
            "companion: --first: 'zed' is not at the table",
        ),
        (
            ["chips", "--players", "ann,bob", "--top", "0"],
            "companion: --top: cards show 1 to 9, not 0",
        ),
        (["chips", "--config", "nowhere.toml"], "companion: nowhere.toml: no such config file"),
    ],
)
def test_bad_command_line_is_one_line(argv: list[str], message: str, run_cli: Run) -> None:
    assert bad_input(run_cli, *argv).startswith(message)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace("led = 6 ", "led = 5 "),
            "players[1].led: GPIO5 is already used by players[0].led",
        ),
        (
            lambda t: t.replace('name = "bob"', 'name = "ann"'),
            "players[1].name: player 'ann' is named twice",
        ),
        (
            lambda t: t + "\n[rules]\nhand_size = 0\n",
            "rules.hand_size: must be at least 1",
        ),
        (lambda t: t.replace("[game]", "[game]\nspeed = 3"), "game.speed: unknown key"),
        (
            lambda t: t.replace('first = "ann"', 'first = "zed"'),
            "game.first: 'zed' is not one of the players",
        ),
        (
            lambda t: t.replace('pin_factory = "auto"', 'pin_factory = "pigeon"'),
            "gpio.pin_factory: unknown pin factory",
        ),
        (lambda t: t + "\n[oops", "not TOML"),
    ],
)
def test_bad_config_is_one_line_naming_file_and_key(
    tmp_path: Path, edit: Callable[[str], str], message: str, run_cli: Run
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(edit(EXAMPLE.read_text("utf-8")), encoding="utf-8")
    line = bad_input(run_cli, "chips", "--config", str(path), "--pin-factory", "mock")
    assert line.startswith(f"companion: {path}: {message}")


def test_config_players_must_match_the_command_line(run_cli: Run) -> None:
    line = bad_input(run_cli, "chips", "--config", "examples/chips-table.toml", "--players", "x,y")
    assert line == "companion: --players: the config seats ann, bob, cat"


def test_config_from_dict_names_rgb_and_pwm_leds() -> None:
    config = config_from_dict(
        {
            "players": [
                {"name": "ann", "led": {"red": 5, "green": 6, "blue": 13}},
                {"name": "bob", "led": {"pin": "GPIO19", "kind": "pwm"}},
            ]
        }
    )
    assert [led.pins for led in config.leds.values() if led] == [(5, 6, 13), (19,)]
    with pytest.raises(InputError, match=re.escape("players[0].led.red")):
        config_from_dict(
            {
                "players": [
                    {"name": "ann", "led": {"red": 99, "green": 6, "blue": 13}},
                    {"name": "b"},
                ]
            }
        )


@pytest.mark.parametrize(
    "line", ["reveal", "²", "5²", "10**400", "1" * 400, "mad ²", "mad " + "9" * 400, "5 sir 2,8 x"]
)
def test_every_typed_line_is_done_or_refused_with_one_line(line: str) -> None:
    helper = ChipsHelper(started())
    before = helper.table.to_dict()
    reply = helper.command(line)
    assert reply is not None and reply.startswith("no: ") and "\n" not in reply
    assert len(reply) < 120 and helper.table.to_dict() == before


def test_an_empty_line_does_nothing() -> None:
    helper = ChipsHelper(started())
    before = helper.table.to_dict()
    assert helper.command("") == "" and helper.command("   ") == ""
    assert helper.table.to_dict() == before and not helper.turns


def test_e4_typed_sir_fries_numbers_in_either_order() -> None:
    for numbers in ("8,2", "2,8", "2/8"):
        table = started(top=5)
        execute(table, ["5", "sir", numbers])
        assert table.pending is not None and set(table.pending.numbers) == {2, 8}


def test_e13_a_rules_table_in_the_config_makes_the_helper_strict() -> None:
    players = [{"name": "ann"}, {"name": "bob"}]
    assert not config_from_dict({"players": players}).strict
    assert config_from_dict({"players": players, "rules": {}}).strict


# ---------------------------------------------------------------- save and resume -------


def test_the_game_is_saved_after_every_turn_and_resumes(tmp_path: Path, run_cli: Run) -> None:
    argv = ["chips", "--players", "ann,bob", "--top", "5"]
    code, _, _ = run(run_cli, argv, ["5", "6 triple", "7"])
    assert code == 0
    code, out, _ = run(run_cli, ["chips", "--resume"], ["status", "8", "done", "undo"])
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "resumed chips-game.json after 2 turn(s)"
    assert lines[2] == "bob: Triple Chips, discard up to 2 more (a 6, 7 or 8), or done."
    assert "undone: back to the start of bob's turn." in lines
    saved = json.loads((tmp_path / "chips-game.json").read_text("utf-8"))
    assert saved["format"] == "companion/chips-game/1" and saved["table"]["turn"] == "bob"
    assert saved["table"]["top"] == 5 and len(saved["turns"]) == 1


def test_a_saved_game_is_never_overwritten(tmp_path: Path, run_cli: Run) -> None:
    argv = ["chips", "--players", "ann,bob", "--top", "5"]
    run(run_cli, argv, ["5"])
    line = bad_input(run_cli, *argv)
    assert line.startswith("companion: chips-game.json: holds a game: --resume continues it")
    code, out, _ = run(run_cli, [*argv, "--new"])
    assert code == 0 and "previous game kept as chips-game." in out
    assert len(list(tmp_path.glob("chips-game.*.json"))) == 1


@pytest.mark.parametrize(
    ("argv", "save", "message"),
    [
        (["--resume"], None, "companion: chips-game.json: no saved game here to resume"),
        (["--resume", "--top", "3"], None, "companion: --top: the game comes from the save file"),
        (
            ["--resume"],
            {"format": "x"},
            "companion: chips-game.json: top level: missing key 'table'",
        ),
        (
            ["--resume"],
            {"format": "companion/chips-game/1", "table": {}, "turns": []},
            "companion: chips-game.json: table: missing key 'players'",
        ),
    ],
)
def test_resume_problems_are_one_line(
    tmp_path: Path, argv: list[str], save: object, message: str, run_cli: Run
) -> None:
    if save is not None:
        (tmp_path / "chips-game.json").write_text(json.dumps(save), "utf-8")
    assert bad_input(run_cli, "chips", *argv).startswith(message)


def test_e13_the_example_deck_file_is_commented_out_and_valid() -> None:
    text = EXAMPLE.read_text("utf-8")
    deck = text[text.index("# [rules]") :]
    uncommented = "\n".join(line.removeprefix("#").removeprefix(" ") for line in deck.splitlines())
    from companion.games.chips import ChipsRules

    config = config_from_dict(
        {**tomllib.loads(text), **tomllib.loads(uncommented)}  # the deck file switched on
    )
    assert config.strict and config.rules == ChipsRules()
    assert not config_from_dict(tomllib.loads(text)).strict

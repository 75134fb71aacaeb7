"""Typing the round's cards (CardEntry) and the table view's keys and card line (TableView).

The view only puts inputs on the daemon's queue; these tests read that queue back.
"""

from __future__ import annotations

import io
import queue

import pytest

from companion.games.chomp import Card, ChompGame, Hand, Mode
from companion.referee.clock import ManualClock
from companion.referee.core import Phase, Referee, Timing
from companion.referee.daemon import Cards, Input, RefereeDaemon, StartRound
from companion.signals import RevealStamp, SourceInfo, TimingClass
from companion.tables.chomp.card_entry import KEYS, LEGEND, UNDO_KEYS, CardEntry
from companion.tables.chomp.screen import TableView, parse_cards_line, run_lines

MS = 1_000_000
PLAYERS = ("ann", "bob", "cat")
KERNEL = SourceInfo("gpio", TimingClass.KERNEL_EDGE, 20)


def entry(*seats: str, n: int = 1) -> CardEntry:
    return CardEntry([(p, n) for p in seats or PLAYERS])


def feed(e: CardEntry, keys: str | list[str]) -> list[bool]:
    return [e.key(k) for k in keys]


# -- CardEntry -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("digit", "letter", "card"),
    [
        ("1", "p", Card.PLANKTON),
        ("2", "s", Card.SHRIMP),
        ("3", "l", Card.LITTLE_FISH),
        ("4", "b", Card.BIG_FISH),
        ("5", "e", Card.SEAL),
        ("6", "k", Card.SHARK),
        ("7", "o", Card.OCTOPUS),
        ("8", "z", Card.ELECTRIC_EEL),
    ],
)
def test_a_digit_and_a_letter_in_either_case_name_each_card(
    digit: str, letter: str, card: Card
) -> None:
    for key in (digit, letter, letter.upper()):
        e = CardEntry([("ann", 1)])
        assert e.key(key) is True
        assert e.cards() == {"ann": (card,)}


def test_the_keys_follow_the_food_chain_and_the_legend_lists_them_all() -> None:
    assert [KEYS[str(i)] for i in range(1, 9)] == list(Card)[:8]
    for key in KEYS:
        assert key in LEGEND


def test_cards_go_to_the_seats_in_order() -> None:
    e = entry()
    assert e.needed == 3 and not e.complete and e.next_seat() == "ann"
    assert feed(e, "5") == [True]
    assert e.cards() == {"ann": (Card.SEAL,)} and e.next_seat() == "bob"
    feed(e, "K1")
    assert e.complete and e.next_seat() is None
    assert e.cards() == {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}


@pytest.mark.parametrize("undo", UNDO_KEYS)
def test_each_backspace_variant_takes_the_last_card_back(undo: str) -> None:
    e = entry()
    feed(e, "56")
    assert e.key(undo) is True
    assert e.cards() == {"ann": (Card.SEAL,)} and e.next_seat() == "bob"
    assert e.key(undo) is True
    assert e.cards() == {} and e.next_seat() == "ann"
    assert e.key(undo) is False  # nothing left to take back


def test_undo_after_complete_reopens_the_last_seat() -> None:
    e = entry()
    feed(e, "561")
    e.key("\x7f")
    assert not e.complete and e.next_seat() == "cat"
    feed(e, "2")
    assert e.cards()["cat"] == (Card.SHRIMP,)


def test_keys_that_name_no_card_are_not_used() -> None:
    e = entry()
    assert feed(e, ["9", "0", "x", " ", "\n", "KEY_ENTER", "KEY_UP", "ee", ""]) == [False] * 9
    assert e.cards() == {}


def test_extra_card_keys_are_ignored_once_complete() -> None:
    e = entry()
    feed(e, "561")
    assert feed(e, "8p") == [False, False]
    assert e.cards() == {"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)}


def test_double_chomp_seats_take_two_cards_each() -> None:
    e = CardEntry([("ann", 2), ("bob", 2)])
    assert e.needed == 4
    feed(e, "5")
    assert e.next_seat() == "ann" and e.cards() == {"ann": (Card.SEAL,)}
    feed(e, "6")
    assert e.next_seat() == "bob"
    feed(e, "1")
    assert e.cards() == {"ann": (Card.SEAL, Card.SHARK), "bob": (Card.PLANKTON,)}
    feed(e, "2")
    assert e.complete and e.next_seat() is None
    e.key("u")
    e.key("u")
    assert e.next_seat() == "bob" and e.cards() == {"ann": (Card.SEAL, Card.SHARK)}
    e.key("u")
    assert e.next_seat() == "ann" and e.cards() == {"ann": (Card.SEAL,)}


def test_a_table_with_no_seats_is_complete_at_once() -> None:
    e = CardEntry([])
    assert e.complete and e.next_seat() is None and e.key("1") is False


# -- parse_cards_line ------------------------------------------------------------------------


def test_parse_cards_line_reads_player_equals_card() -> None:
    assert parse_cards_line(["ann=seal", "bob=shark", "cat=electric_eel"]) == {
        "ann": (Card.SEAL,),
        "bob": (Card.SHARK,),
        "cat": (Card.ELECTRIC_EEL,),
    }
    assert parse_cards_line([]) == {}


def test_parse_cards_line_reads_two_cards_for_double_chomp() -> None:
    assert parse_cards_line(["ann=seal,shark", "bob=plankton,little_fish"]) == {
        "ann": (Card.SEAL, Card.SHARK),
        "bob": (Card.PLANKTON, Card.LITTLE_FISH),
    }


@pytest.mark.parametrize(
    "word", ["ann=whale", "ann=", "=seal", "ann", "ann=seal,whale", "ann=Seal", "ann:seal"]
)
def test_parse_cards_line_refuses_a_bad_word_naming_it(word: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_cards_line(["bob=shark", word])
    assert repr(word) in str(caught.value)
    assert "player=card" in str(caught.value)


# -- TableView -------------------------------------------------------------------------------


def make_daemon(mode: Mode = Mode.STANDARD, players: tuple[str, ...] = PLAYERS) -> RefereeDaemon:
    game = ChompGame.new(players, mode, deal=dict.fromkeys(players, 10))
    return RefereeDaemon(Referee(game, Timing.from_ms(500), [KERNEL]), ManualClock())


def drain(daemon: RefereeDaemon) -> list[Input]:
    items: list[Input] = []
    while True:
        try:
            items.append(daemon.inbox.get_nowait())
        except queue.Empty:
            return items


def reveal(daemon: RefereeDaemon) -> None:
    """Cards are up, waiting for the cards to be typed."""
    daemon.put(RevealStamp(daemon.clock.now_ns(), "key"))
    daemon.pump()
    assert daemon.referee.phase is Phase.REVEALED and daemon.referee.waiting_for_cards()


def press(view: TableView, keys: str | list[str]) -> list[bool]:
    return [view.key(k, view.daemon.status()) for k in keys]


def test_space_and_enter_start_a_round_only_when_ready() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    assert press(view, " ") == [True]
    assert drain(daemon) == [StartRound()]
    assert press(view, ["\n", "\r", "KEY_ENTER"]) == [True, True, True]
    assert drain(daemon) == [StartRound()] * 3
    reveal(daemon)
    press(view, [" ", "\n"])
    assert drain(daemon) == []


def test_r_reveals_only_when_ready() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    press(view, "r")
    (item,) = drain(daemon)
    assert isinstance(item, RevealStamp) and item.how == "key"
    reveal(daemon)
    press(view, "r")
    assert drain(daemon) == []


def test_enter_submits_the_cards_only_when_every_seat_has_one() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    reveal(daemon)
    press(view, "56")
    press(view, "\n")  # cat has no card yet: nothing is sent
    assert drain(daemon) == []
    press(view, "1\n")
    expected: dict[str, Hand] = {
        "ann": (Card.SEAL,),
        "bob": (Card.SHARK,),
        "cat": (Card.PLANKTON,),
    }
    assert drain(daemon) == [Cards(expected)]


def test_typed_cards_are_decided_by_the_referee() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    reveal(daemon)
    press(view, "561\n")
    daemon.pump()  # the cards; no slap, so the round waits for its timeout
    assert daemon.referee.round is not None and daemon.referee.round.cards is not None
    assert not daemon.status().waiting_for_cards
    press(view, "\n")  # the cards are in: Enter sends nothing more
    assert drain(daemon) == []


def test_card_keys_are_ignored_unless_cards_are_awaited() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    assert press(view, "56") == [True, True]  # not a quit key, but not used either
    assert view.entry is None and drain(daemon) == []


def test_backspace_at_the_screen_undoes_the_last_card() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    reveal(daemon)
    press(view, ["5", "6", "KEY_BACKSPACE", "4"])
    assert view.entry is not None
    assert view.entry.cards() == {"ann": (Card.SEAL,), "bob": (Card.BIG_FISH,)}


def test_q_quits_and_other_keys_do_not() -> None:
    view = TableView(make_daemon())
    status = view.daemon.status()
    assert view.key("q", status) is False and view.key("Q", status) is False
    assert view.key("x", status) is True and view.key("KEY_UP", status) is True


def test_slap_keys_are_left_to_the_demo() -> None:
    daemon = make_daemon()
    view = TableView(daemon, slap_keys={"a": "ann", "l": "bob"})
    reveal(daemon)
    press(view, "al")  # "l" would be little_fish, but here it is bob's button
    assert view.entry is None or view.entry.cards() == {}
    assert drain(daemon) == []


def test_no_card_entry_when_a_reveal_source_supplies_the_cards() -> None:
    daemon = make_daemon()
    view = TableView(daemon, type_cards=False)
    reveal(daemon)
    press(view, "561\n")
    assert view.entry is None and drain(daemon) == []
    assert view.card_line(daemon.status()) == ""


def test_each_round_gets_a_fresh_entry() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    reveal(daemon)
    press(view, "561\n")
    daemon.pump()
    first = view.entry
    clock = daemon.clock
    assert isinstance(clock, ManualClock)
    clock.advance(20_000 * MS)
    daemon.pump()  # the round times out: no winner
    assert daemon.referee.phase is Phase.READY
    reveal(daemon)
    assert view.ensure_entry(daemon.status()) is not first
    assert view.entry is not None and view.entry.cards() == {}


def test_card_line_marks_the_next_seat_and_says_when_to_confirm() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    assert view.card_line(daemon.status()) == ""  # no round: no card line
    reveal(daemon)
    line = view.card_line(daemon.status())
    assert line.startswith("Cards  ▸ann: _   bob: _   cat: _")
    assert "type each seat's card" in line and "Backspace undoes" in line
    press(view, "5")
    line = view.card_line(daemon.status())
    assert " ann: seal  ▸bob: _  " in line
    press(view, "61")
    line = view.card_line(daemon.status())
    assert "ann: seal   bob: shark   cat: plankton" in line and "▸" not in line
    assert "Enter to confirm" in line
    press(view, "\n")
    daemon.pump()
    assert view.card_line(daemon.status()) == ""  # the cards are in


def test_double_chomp_card_line_and_submission() -> None:
    daemon = make_daemon(Mode.DOUBLE_CHOMP, ("ann", "bob"))
    view = TableView(daemon)
    reveal(daemon)
    press(view, "56")
    line = view.card_line(daemon.status())
    assert "ann: seal + shark  ▸bob: _" in line
    press(view, "1\n")
    assert drain(daemon) == []  # bob has one of his two cards
    press(view, "2\n")
    expected: dict[str, Hand] = {
        "ann": (Card.SEAL, Card.SHARK),
        "bob": (Card.PLANKTON, Card.SHRIMP),
    }
    assert drain(daemon) == [Cards(expected)]


def test_an_out_player_gets_no_seat() -> None:
    daemon = make_daemon()
    daemon.referee.game.out.append("bob")
    view = TableView(daemon)
    reveal(daemon)
    entry = view.ensure_entry(daemon.status())
    assert entry is not None and [p for p, _ in entry.seats] == ["ann", "cat"]


def test_the_view_keeps_the_last_six_messages() -> None:
    view = TableView(make_daemon())
    for i in range(8):
        view.notify(f"m{i}")
    assert list(view.messages) == [f"m{i}" for i in range(2, 8)]


# -- line mode -------------------------------------------------------------------------------


def test_line_mode_puts_each_command_on_the_queue_until_quit() -> None:
    daemon = make_daemon()
    view = TableView(daemon)
    script = (
        "start\n\nreveal\ncards ann=seal bob=shark cat=plankton\nbogus\ncards ann=whale\n"
        "status\nQUIT\nstart\n"
    )
    out = io.StringIO()
    run_lines(view, io.StringIO(script), out)
    items = drain(daemon)
    assert [type(i) for i in items] == [StartRound, RevealStamp, Cards]
    assert items[2] == Cards({"ann": (Card.SEAL,), "bob": (Card.SHARK,), "cat": (Card.PLANKTON,)})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("unknown command 'bogus'")
    assert lines[1].startswith("not a card: 'ann=whale'")
    assert lines[2].startswith("{'phase': 'ready', 'round': 0,")
    assert len(lines) == 3  # nothing after quit is read


@pytest.mark.parametrize("arg", ["soon", "-1", "nan"])
def test_line_mode_wait_with_a_bad_number_is_a_message_not_a_crash(arg: str) -> None:
    """``wait soon`` raises ValueError out of run_lines: the referee exits with a traceback."""
    daemon = make_daemon()
    out = io.StringIO()
    run_lines(TableView(daemon), io.StringIO(f"wait {arg}\nstart\n"), out)
    assert out.getvalue() and drain(daemon) == [StartRound()]

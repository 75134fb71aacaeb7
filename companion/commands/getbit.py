"""``companion getbit replay`` and ``companion getbit play``: Get Bit! from a file, at the table.

The table itself is put together in :mod:`companion.tables.getbit.app` (docs/getbit.md).
"""

from __future__ import annotations

import argparse

from companion.commands.camera import add_stickers
from companion.commands.options import (
    add_history_options,
    add_web_option,
    checked_names,
    checked_pairs,
)
from companion.errors import InputError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    getbit = commands.add_parser("getbit", help="Get Bit!, the robot and shark game")
    sub = getbit.add_subparsers(dest="getbit_command", metavar="COMMAND", required=True)

    replay = sub.add_parser(
        "replay",
        help="replay a game from a JSON file: the line, limbs, hands, who is out",
        description="Replay a Get Bit! game round by round (the JSON of docs/formats.md).",
    )
    replay.add_argument("file", metavar="FILE|-", help="game JSON, or - for stdin")
    replay.add_argument("--json", action="store_true", help="print the result as JSON")
    replay.set_defaults(handler=run_replay)

    _register_play(sub)
    add_stickers(sub, "getbit", "Get Bit!")


def _register_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser(
        "play",
        help="track a game at the table: cards in, moves and bites announced, saved each round",
        description="Keep a Get Bit! game at the table (docs/getbit.md): type the cards "
        "after each reveal, and the companion moves the line, bites, counts limbs and "
        "hands, and saves the game after every round (a file `getbit replay` reads).",
    )
    _register_new_game(play)
    play.add_argument(
        "--secret",
        action="store_true",
        help="each player types their own card, hidden, player by player",
    )
    play.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="where the game is saved after every round (default getbit-game.json)",
    )
    group = play.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="continue the saved game")
    group.add_argument(
        "--new", action="store_true", help="start a new game; an existing save is kept aside"
    )
    play.add_argument(
        "--config",
        metavar="TOML",
        help="LEDs, buzzer and lock-in buttons: a [getbit] table "
        "(examples/getbit-table.example.toml)",
    )
    play.add_argument(
        "--pin-factory", metavar="NAME", help="override the config's pin_factory (e.g. mock)"
    )
    add_web_option(play)
    add_history_options(play)
    _register_tags(play)
    play.set_defaults(handler=run_play)


def _register_new_game(play: argparse.ArgumentParser) -> None:
    """The options that set up a new game (a resumed one comes from its save)."""
    who = play.add_argument_group("a new game")
    who.add_argument(
        "--players",
        metavar="A,B,...",
        help="2 to 6 players; with 4-6 each robot is named after its player, with 2-3 each "
        "player gets two robots, A-1 and A-2",
    )
    who.add_argument(
        "--robots",
        metavar="ROBOT=PLAYER,...",
        help="name the robots and who plays each, in seat order (e.g. red=ann,blue=bob,...)",
    )
    who.add_argument("--line", metavar="R,R,...", help="starting line, front first")
    who.add_argument("--seed", type=int, help="seed for the random starting line")
    who.add_argument(
        "--longer-games", action="store_true", help="a bite takes half a limb (variant)"
    )
    who.add_argument(
        "--memory", action="store_true", help="played cards are not shown (variant, G6)"
    )
    who.add_argument(
        "--pickup-at",
        type=int,
        default=None,
        metavar="N",
        help="a robot left with N cards takes back its played cards (default 1, ruling G4)",
    )


def _register_tags(play: argparse.ArgumentParser) -> None:
    tags = play.add_argument_group(
        "cards from tags", "read each round's cards from the cards' tags (docs/getbit.md)"
    )
    tags.add_argument(
        "--tags", metavar="FILE", help="a Get Bit! tag file (companion tags learn --game getbit)"
    )
    tags.add_argument(
        "--reader",
        action="append",
        metavar="SPEC",
        help="serial:PORT[@BAUD], pn532:PORT[@BAUD] or bridge; repeat for more readers "
        "(keyboard is refused: the keyboard is the table's own input)",
    )
    tags.add_argument(
        "--reader-seats",
        metavar="ROBOT,...",
        help="one reader per robot: the robots in reader order (the Nth --reader, or the "
        "bridge's reader N-1); default: one reader, cards read in the order they are typed",
    )
    tags.add_argument(
        "--colours",
        metavar="ROBOT=COLOUR,...",
        help="each robot's card colour (red, orange, yellow, green, blue, purple), so another "
        "robot's card is refused; default: a robot named after a colour has it; none: no colours",
    )


def run_replay(args: argparse.Namespace) -> int:
    from companion.files import dump_json, read_json, source_name
    from companion.games.getbit import GetBit
    from companion.games.getbit.formats import replay_from_dict
    from companion.games.getbit.text import cards_text, limbs_text, next_lines, table_lines

    try:
        game = replay_from_dict(read_json(args.file))
    except InputError as exc:
        raise (exc if exc.source else exc.in_source(source_name(args.file))) from None
    if args.json:
        print(dump_json(game.to_dict()))
        return 0
    setup = game.setup
    players = ", ".join(setup.players)
    print(f"Get Bit!: {players} · {len(setup.robots)} robots, cards 1-{setup.hand_size}")
    if setup.memory:
        print("memory game: cards are not shown (--json shows the hands)")
    state = GetBit.new(setup)
    for cards, result in zip(game.rounds, game.results, strict=True):
        state, _ = state.play(cards)
        parts = [f"moved {', '.join(result.moved)}" if result.moved else "nobody moved"]
        if result.bitten is None:
            parts.append("no bite")
        elif result.bitten in result.out:
            parts.append(f"{result.bitten} bitten and out")
        else:
            parts.append(f"{result.bitten} bitten ({limbs_text(state.limbs(result.bitten))} left)")
        if result.eaten is not None:
            parts.append(f"the shark eats {result.eaten}")
        elif result.winner is not None:
            parts.append(f"{setup.robots[result.out[0]]} loses")
        if result.picked_up:
            parts.append(f"picked up: {', '.join(result.picked_up)}")
        shown = "" if setup.memory else cards_text(result.cards) + "  "
        print(f"round {result.number:>3}  {shown}{'; '.join(parts)}")
    print()
    for line in table_lines(game.state):
        print(line)
    print(next_lines(game.state)[0])
    return 0


def run_play(args: argparse.Namespace) -> int:
    from companion.files import tolerant_stdin

    tolerant_stdin()
    from companion.tables.getbit.app import GetBitOptions, run

    return run(
        GetBitOptions(
            players=checked_names(args.players, "--players"),
            robots=checked_pairs(args.robots, "--robots"),
            line=args.line,
            seed=args.seed,
            longer_games=args.longer_games,
            memory=args.memory,
            pickup_at=args.pickup_at,
            secret=args.secret,
            save=args.save,
            resume=args.resume,
            new=args.new,
            config=args.config,
            pin_factory=args.pin_factory,
            web=args.web,
            new_code=args.new_code,
            tags=args.tags,
            readers=tuple(args.reader or ()),
            reader_seats=checked_names(args.reader_seats, "--reader-seats"),
            colours=checked_pairs(args.colours, "--colours"),
            db=args.db,
            history=not args.no_history,
        )
    )

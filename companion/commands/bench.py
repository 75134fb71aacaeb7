"""``companion bench``: print measured figures (goals are checked by reading them)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from companion.commands.options import counted
from companion.files import dump_json

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

SEED_HELP = "seed of the random generator: the same figures' inputs every time (1)"


def register(commands: Subparsers) -> None:
    bench = commands.add_parser(
        "bench",
        help="measure the referee, the bridge, the scorers and print figures",
        description="Every measurement lives here: companion bench WHAT (--json for one "
        "JSON object). The figures are read against the goals in README.md.",
    )
    sub = bench.add_subparsers(dest="bench_command", metavar="WHAT", required=True)
    _referee(sub)
    _bridge(sub)
    _history(sub)
    _web(sub)
    _loopback(sub)
    from companion.commands.scan import register_bench  # photos: OpenCV stays lazy

    register_bench(sub)
    from companion.commands.dino import register_bench_dino  # the Chomp scorer's bench

    register_bench_dino(sub)
    _camera(sub)


def _referee(sub: Subparsers) -> None:
    referee = sub.add_parser(
        "referee",
        help="ordering by stamp vs arrival, verdict latency on mock pins, judge cost",
        description="Simulated presses 1 us to 2 ms apart with up to 2 ms arrival jitter, "
        "judged by stamp and by arrival; verdict latency from the decision instant to the "
        "winner's LED pin through the real daemon on mock pins; the engine's cost per verdict.",
    )
    referee.add_argument("--trials", type=int, default=2000, help="ordering trials (2000)")
    referee.add_argument("--latency-trials", type=int, default=300, help="latency trials (300)")
    referee.add_argument("--seed", type=int, default=1, help=SEED_HELP)
    referee.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="measure the latency again with N busy processes beside the referee",
    )
    referee.add_argument("--json", action="store_true", help="one JSON object")
    referee.set_defaults(handler=run_bench_referee)


def _bridge(sub: Subparsers) -> None:
    bridge = sub.add_parser(
        "bridge",
        help="the Pico bridge's host path against a simulated Pico over a pty",
        description="Frames decoded per second, press latency end to end through a pty, and "
        "the clock-sync error after a simulated run with 50 ppm drift.",
    )
    bridge.add_argument(
        "--frames", type=int, default=30_000, help="frames to decode for the rate (30000)"
    )
    bridge.add_argument(
        "--latency-trials", type=int, default=500, help="presses timed through the pty (500)"
    )
    bridge.add_argument(
        "--sync-seconds",
        type=float,
        default=1800.0,
        help="simulated run for the clock-sync error, in seconds (1800)",
    )
    bridge.add_argument(
        "--micropython",
        action="store_true",
        help="run the simulated Pico's core in MicroPython (the micropython command)",
    )
    bridge.add_argument("--seed", type=int, default=1, help=SEED_HELP)
    bridge.add_argument("--json", action="store_true", help="one JSON object")
    bridge.set_defaults(handler=run_bench_bridge)


def _history(sub: Subparsers) -> None:
    history = sub.add_parser(
        "history",
        help="import generated CHOMP! games into a history database, time the stats",
        description="Import generated CHOMP! games (about 40 rounds each) into a fresh "
        "history database and time one player's stats over it (docs/history.md).",
    )
    history.add_argument(
        "--games",
        type=counted(1, 100_000),
        default=1000,
        help="games to import, 1 to 100000 (1000)",
    )
    history.add_argument(
        "--rounds", type=counted(1, 1000), default=40, help="rounds at most a game, 1 to 1000 (40)"
    )
    history.add_argument(
        "--stats-calls",
        type=counted(1, 100_000),
        default=100,
        help="stats calls timed, 1 to 100000 (100)",
    )
    history.add_argument("--seed", type=int, default=1, help=SEED_HELP)
    history.add_argument("--json", action="store_true", help="one JSON object")
    history.set_defaults(handler=run_bench_history)


def _web(sub: Subparsers) -> None:
    web = sub.add_parser(
        "web",
        help="a verdict on the pins to 6 phones' pages, and the LED with and without them",
        description="The CHOMP! table on mock pins with its page served on 127.0.0.1 and "
        "6 pages reading its event stream: a verdict's LED to its update in every page, and "
        "the referee's decision-to-LED latency with the pages connected and without, "
        "measured in alternating blocks of one run (docs/web.md).",
    )
    web.add_argument("--trials", type=int, default=200, help="verdicts with the pages (200)")
    web.add_argument("--clients", type=int, default=6, help="pages reading the stream (6)")
    web.add_argument("--seed", type=int, default=1, help=SEED_HELP)
    web.add_argument("--json", action="store_true", help="one JSON object")
    web.set_defaults(handler=run_bench_web)


def _loopback(sub: Subparsers) -> None:
    loopback = sub.add_parser(
        "loopback",
        help="a jumper wire between two GPIO pins: edge stamp error, callback delay, lost",
        description="With one jumper wire from --out to --in, drives thousands of edges and "
        "reports the edge stamp's error against the drive instant, the callback's delay and "
        "edges lost (p50/p99/max), and the referee's decision -> LED, without and with "
        "real-time priority and --load busy processes (hardware/INSTALL.md says what to "
        "expect). On mock pins the figures are the mock's, and it says so.",
    )
    loopback.add_argument("--out", required=True, metavar="PIN", help="the output pin: GPIO20")
    loopback.add_argument("--in", required=True, dest="in_pin", metavar="PIN", help="GPIO21")
    loopback.add_argument(
        "--edges", type=counted(2, 1_000_000), default=2000, help="edges a run (2000)"
    )
    loopback.add_argument(
        "--latency-trials",
        type=counted(1, 100_000),
        default=100,
        help="verdicts timed for decision -> LED a run (100)",
    )
    loopback.add_argument(
        "--load", type=counted(0, 64), default=0, metavar="N", help="again beside N busy processes"
    )
    loopback.add_argument(
        "--pin-factory",
        default="auto",
        help="auto | lgpio | rpigpio | native | mock (auto: lgpio on a Pi)",
    )
    loopback.add_argument("--seed", type=int, default=1, help=SEED_HELP)
    loopback.add_argument("--json", action="store_true", help="one JSON object")
    loopback.set_defaults(handler=run_bench_loopback)


def _camera(sub: Subparsers) -> None:
    camera = sub.add_parser(
        "camera",
        help="read rendered rounds from the camera over the table: cards right, speed, the LED",
        description="Renders its own 1280 x 720, 30 frames/s video of CHOMP! rounds (2-6 "
        "seats, cards flipping in with motion blur, hands 150-700 ms after, sleeve glare, "
        "50 Hz flicker, a phone or a cup, wood or cloth, camera shake, noise), reads each "
        "round from its reveal as the table does, and prints wrong_cards, cards_read, "
        "rounds_without_typing, reveal_to_cards_ms, frames_per_s on one core (and a Pi "
        "estimate), and decision_to_led_us with the camera's reading process running and "
        "without, each beside its goal (docs/camera.md).",
    )
    camera.add_argument(
        "--rounds",
        type=counted(1, 100_000),
        default=500,
        help="rounds to read, one reveal each, 1 to 100000 (500)",
    )
    camera.add_argument(
        "--latency-trials",
        type=counted(0, 100_000),
        default=1000,
        help="verdicts timed for decision -> LED, half with the camera (1000; 0: none)",
    )
    camera.add_argument("--seed", type=int, default=1, help=SEED_HELP)
    camera.add_argument("--json", action="store_true", help="one JSON object")
    camera.set_defaults(handler=run_bench_camera)


def run_bench_camera(args: argparse.Namespace) -> int:
    from companion.scan import require_scan

    require_scan()  # OpenCV with ArUco and NumPy: the scan extra
    import random

    from companion.camera.bench import bench_camera, bench_lines
    from companion.tables.chomp.bench import decision_to_led

    def led(trials: int, rng: random.Random) -> list[float]:
        return decision_to_led(trials, rng)[0]

    trials = args.latency_trials
    report = bench_camera(args.rounds, args.seed, led if trials else None, max(trials, 4))
    print(dump_json(report) if args.json else "\n".join(bench_lines(report)))
    return 0


def run_bench_loopback(args: argparse.Namespace) -> int:
    from companion.devices.wiring import parse_pin
    from companion.tables.doctor.loopback import bench_loopback, summary

    out_gpio, in_gpio = parse_pin(args.out, "--out"), parse_pin(args.in_pin, "--in")
    report = bench_loopback(
        out_gpio, in_gpio, args.edges, args.load, args.latency_trials, args.pin_factory, args.seed
    )
    print(dump_json(report) if args.json else "\n".join(summary(report)))
    return 0


def run_bench_referee(args: argparse.Namespace) -> int:
    from companion.tables.chomp.bench import bench_referee

    report = bench_referee(args.trials, args.seed, args.latency_trials, args.load)
    if args.json:
        print(dump_json(report))
        return 0
    lat, cost = report["verdict_latency_us"], report["judge_us"]
    print(f"trials: {report['trials']}")
    print(f"wrong winner judged by stamp:   {report['ordering_errors_stamp']}")
    print(f"wrong winner judged by arrival: {report['ordering_errors_arrival']}")
    print(f"scheduling: {report['scheduling']}")
    print(f"verdict latency (decision -> LED): p50 {lat['p50']} us, p99 {lat['p99']} us")
    if "verdict_latency_loaded_us" in report:
        loaded = report["verdict_latency_loaded_us"]
        print(
            f"  with {report['load']} busy processes: p50 {loaded['p50']} us, "
            f"p99 {loaded['p99']} us"
        )
    voice = report["decision_to_voice_start_ms"]
    print(f"decision -> voice start (null sink): p50 {voice['p50']} ms, p99 {voice['p99']} ms")
    print(f"judge cost per verdict: p50 {cost['p50']} us, p99 {cost['p99']} us")
    return 0


def run_bench_web(args: argparse.Namespace) -> int:
    from companion.errors import InputError
    from companion.tables.web import require_web

    if args.trials < 4 or args.clients < 1:
        raise InputError("--trials" if args.trials < 4 else "--clients", "too few to measure")
    require_web()
    from companion.tables.web.bench import bench_web

    report = bench_web(args.trials, args.clients, args.seed)
    if args.json:
        print(dump_json(report))
        return 0
    to, led = report["verdict_to_clients_us"], report["decision_to_led_us"]
    on, off = led["with_clients"], led["without_clients"]
    print(f"{report['trials']} verdicts, {report['clients']} pages reading the stream")
    print(f"verdict to every page: p50 {to['p50']} us, p99 {to['p99']} us")
    tap = report["tap_to_other_phones_us"]
    print(f"a phone's tap to every other page: p50 {tap['p50']} us, p99 {tap['p99']} us")
    print(f"decision -> LED with the pages:    p50 {on['p50']} us, p99 {on['p99']} us")
    print(f"decision -> LED without the pages: p50 {off['p50']} us, p99 {off['p99']} us")
    print(
        f"load average before/after: {report['load']['loadavg_before']} / "
        f"{report['load']['loadavg_after']} on {report['load']['cpus']} cpus"
    )
    return 0


def run_bench_bridge(args: argparse.Namespace) -> int:
    from companion.tables.bridge_source import bridge_errors
    from firmware_bridge.bench import bench_bridge, format_bench_bridge

    _within("--frames", args.frames, 1, 10_000_000)
    _within("--latency-trials", args.latency_trials, 1, 1_000_000)
    _within("--sync-seconds", args.sync_seconds, 1, 7 * 24 * 3600)
    with bridge_errors():
        report = bench_bridge(
            args.frames, args.latency_trials, args.sync_seconds, args.seed, args.micropython
        )
    print(dump_json(report) if args.json else "\n".join(format_bench_bridge(report)))
    return 0


def run_bench_history(args: argparse.Namespace) -> int:
    from companion.history.bench import bench_history

    report = bench_history(args.games, args.rounds, args.stats_calls, args.seed)
    if args.json:
        print(dump_json(report))
        return 0
    stats = report["stats_ms"]
    print(f"games: {report['games']} ({report['rounds_per_game']} rounds each on average)")
    print(f"import: {report['games_per_s']} games/s; database {report['db_bytes']} bytes")
    print(f"stats for one player: p50 {stats['p50']} ms, p99 {stats['p99']} ms")
    return 0


def _within(flag: str, value: float, low: float, high: float) -> None:
    """A count or a duration from the command line, finite and in range (NaN is not)."""
    import math

    from companion.errors import InputError

    if not (math.isfinite(value) and low <= value <= high):
        raise InputError(flag, f"from {low:g} to {high:g}, not {value}")

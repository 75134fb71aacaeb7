"""``companion bench scan``: synthetic photos of lands read and counted (docs/scan.md).

OpenCV and Pillow come with the ``scan`` extra and are imported inside the handler only:
without them the command says so in one line (exit 2), and ``companion --help`` stays
fast either way.  ``companion dino markers`` and ``companion dino scan`` live with the
other ``dino`` commands (:mod:`companion.commands.dino`).
"""

from __future__ import annotations

import argparse

from companion.commands.options import counted
from companion.errors import InputError
from companion.files import dump_json

MAX_BENCH_PHOTOS = 10_000  # about an hour and a half at 12 MP: a bench that ends


def register_bench(bench: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``scan`` to the subcommands of ``companion bench``."""
    scan = bench.add_parser(
        "scan",
        help="read synthetic photos of lands and count what was read right",
        description="Render PHOTOS synthetic photos (random catalog, random land, random "
        "camera with tilt and turn, uneven light, blur, noise, JPEG; with --mix realistic "
        "also dice and phones with shadows, out-of-focus fingertips, hands, soft glare and "
        "gingham cloths), read them, and print cell_accuracy (visible cells read right), "
        "complete_but_wrong (photos read whole whose land is wrong), "
        "cells_neither_read_nor_asked, figures per kind of occluder and the time per photo "
        "(the reading only). Goals: 0.99, 0, 0, median 0.5 s and max 1.5 s at 12 MP.",
    )
    scan.add_argument(
        "--photos",
        type=counted(1, MAX_BENCH_PHOTOS),
        default=20,
        help=f"photos to read, 1 to {MAX_BENCH_PHOTOS} (20)",
    )
    scan.add_argument(
        "--seed", type=int, default=1, help="seed of the random lands and cameras (1)"
    )
    scan.add_argument("--megapixels", type=float, default=12.0, help="photo size (12)")
    scan.add_argument(
        "--mix",
        choices=("realistic", "classic"),
        default="realistic",
        help="what lies over the lands: realistic (default) or classic (tokens, fingers, pens)",
    )
    scan.add_argument(
        "--views",
        type=int,
        default=1,
        help="photos of each land, merged as dino scan merges them (1: no merging)",
    )
    scan.add_argument("--json", action="store_true", help="one JSON object")
    scan.set_defaults(handler=run_bench_scan)


def run_bench_scan(args: argparse.Namespace) -> int:
    from companion.scan import require_scan

    require_scan()
    from companion.scan.bench import bench_lines, bench_scan

    if not 0.5 <= args.megapixels <= 50:
        raise InputError("--megapixels", "must be between 0.5 and 50")
    if not 1 <= args.views <= 4:
        raise InputError("--views", "must be between 1 and 4")
    if args.views > 1:
        from companion.scan.bench.views import bench_views, views_lines

        found = bench_views(args.photos, args.seed, args.megapixels, args.views, args.mix)
        print(dump_json(found) if args.json else "\n".join(views_lines(found)))
        return 0
    report = bench_scan(args.photos, args.seed, args.megapixels, mix=args.mix)
    if args.json:
        print(dump_json(report))
        return 0
    for line in bench_lines(report):
        print(line)
    return 0

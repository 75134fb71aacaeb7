"""Rounds written out as recordings: a folder of frames or a video file, with the truth
beside them, for the tests' "recorded frame sequences" and for looking at by eye."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2

from companion.camera.synth import FrameTruth, Painter, Round
from companion.errors import InputError
from companion.files import check_target, dump_json, write_atomic


def write_frames(
    plan: Round, folder: Path, start: int = 0, stop: int | None = None
) -> list[FrameTruth]:
    """Frames ``start`` to ``stop`` of the round as ``frame-NNNN.png`` in ``folder`` (made
    if need be), with ``truth.json``; returns the truth of each frame written."""
    folder.mkdir(parents=True, exist_ok=True)
    painter = Painter(plan)
    truths = []
    for index in range(start, plan.frames if stop is None else min(stop, plan.frames)):
        image, truth = painter.frame(index)
        ok, encoded = cv2.imencode(".png", image)
        if not ok:
            raise InputError(str(folder), "the frame could not be encoded as PNG")
        write_atomic(folder / f"frame-{index:04d}.png", encoded.tobytes())
        truths.append(truth)
    write_atomic(folder / "truth.json", dump_json(truth_record(plan, truths)) + "\n")
    return truths


def write_video(plan: Round, path: Path) -> list[FrameTruth]:
    """The whole round as a video (MPEG-4 part 2 in ``path``, at the round's frame rate);
    returns each frame's truth. The codec loses a little: the truth is the drawing's."""
    target = check_target(path)
    writer = cv2.VideoWriter(target, cv2.VideoWriter.fourcc(*"mp4v"), plan.fps, plan.size)
    if not writer.isOpened():
        raise InputError("", "OpenCV cannot write this video here", target)
    painter = Painter(plan)
    truths = []
    try:
        for index in range(plan.frames):
            image, truth = painter.frame(index)
            writer.write(image)
            truths.append(truth)
    finally:
        writer.release()
    return truths


def truth_record(plan: Round, truths: list[FrameTruth]) -> dict[str, Any]:
    """The round's truth as JSON: the reveal, each seat's cards, each frame's markers."""
    return {
        "seed": plan.seed,
        "size": list(plan.size),
        "fps": plan.fps,
        "reveal_ns": plan.reveal_ns,
        "zones": {s.name: [list(p) for p in s.zone().polygon] for s in plan.seats},
        "cards": [{"seat": c.seat, "marker": c.marker, "rest_ns": c.rest_ns} for c in plan.cards],
        "frames": [
            {
                "index": t.index,
                "t_ns": t.t_ns,
                "visible": {str(m): seat for m, seat in sorted(t.visible.items())},
                "covered": sorted(t.covered),
                "moving": sorted(t.moving),
                "glared": sorted(t.glared),
            }
            for t in truths
        ],
    }

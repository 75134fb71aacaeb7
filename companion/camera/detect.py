"""Markers in a frame: ArUco's detector tuned for one 720p table picture (docs/camera.md).

The detector runs on every frame a camera gives (30 a second), on one core of a Pi beside
the referee, so it is tuned for speed and for motion blur, for markers of the size a
table gives (about 24 to 40 pixels a side at 1280 x 720, 3.4 to 6 pixels a cell):

* one thresholding window of 17 pixels (ArUco's default is three: 3, 13 and 23): it
  spans two to five cells at these sizes, so a cell is told from its neighbours in
  uneven light, and each further window costs as much again (three windows found 3 more
  of 252 markers in our hardest blurred test pictures, at twice the time a frame);
* candidate outlines smaller than a marker can be at the table's distance (under 12
  pixels a side) or larger than a card could be (over 160) are dropped before decoding;
* a looser polygon fit (5% of the outline) so the soft corners of a motion-blurred marker
  still make a quadrilateral;
* six pixels a cell when a candidate is unwarped to read its bits, and a fifth of each
  cell's edge ignored (ArUco's defaults: four, and 13%): a blurred cell is read by its
  middle, clear of the smear from its neighbours;
* no corner refinement: a seat's zone is tens of pixels wide, so whole-pixel corners are
  enough, and sub-pixel refinement costs time on every marker of every frame.

A marker is decoded against the whole family (so a card of the other game is known as
such, see :mod:`~companion.camera.deck`), then kept only if it is one of ``markers``. OpenCV
is imported when a Detector is made, never when this module is imported.
"""

from __future__ import annotations

from collections.abc import Collection
from types import ModuleType
from typing import Any

from companion.camera.markers import dictionary
from companion.camera.model import Frame, Point, Seen, Sighting
from companion.errors import CompanionError

INSTALL_HINT = (
    "the camera needs OpenCV with ArUco (the scan extra): .venv/bin/pip install -e '.[scan]' "
    "in the project's folder (docs/camera.md)"
)

THRESHOLD_WINDOW_PX = 17  # the adaptive threshold's one window (odd)
MIN_SIDE_PX, MAX_SIDE_PX = 12, 160  # a marker's side at any table distance we support
REFERENCE_WIDTH = 1280  # ArUco sizes candidates against the frame's larger side


class CameraUnavailable(CompanionError, ImportError):
    """OpenCV (with its ArUco module) is missing: one line saying how to get it."""

    def __init__(self) -> None:
        super().__init__(INSTALL_HINT)


def require_opencv() -> ModuleType:
    """``cv2`` with ArUco's ``ArucoDetector`` (OpenCV >= 4.7), or CameraUnavailable."""
    try:
        import cv2
    except ImportError:
        raise CameraUnavailable() from None
    aruco = getattr(cv2, "aruco", None)
    if aruco is None or not hasattr(aruco, "ArucoDetector"):
        raise CameraUnavailable()
    return cv2


def parameters(cv2: ModuleType, longest_side: int = REFERENCE_WIDTH) -> Any:
    """The detector parameters for a frame whose larger side is ``longest_side`` pixels."""
    params = cv2.aruco.DetectorParameters()
    params.adaptiveThreshWinSizeMin = THRESHOLD_WINDOW_PX
    params.adaptiveThreshWinSizeMax = THRESHOLD_WINDOW_PX
    params.adaptiveThreshWinSizeStep = 10  # any step: one window
    # ArUco measures candidates by perimeter as a fraction of the frame's larger side.
    params.minMarkerPerimeterRate = 4 * MIN_SIDE_PX / longest_side
    params.maxMarkerPerimeterRate = 4 * MAX_SIDE_PX / longest_side
    params.polygonalApproxAccuracyRate = 0.05
    params.perspectiveRemovePixelPerCell = 6
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    return params


class Detector:
    """Finds the markers of ``markers`` (every id of the family when None) in frames."""

    def __init__(self, markers: Collection[int] | None = None) -> None:
        self._cv2 = require_opencv()
        self.markers = None if markers is None else frozenset(markers)
        self._detectors: dict[int, Any] = {}

    def _detector(self, longest_side: int) -> Any:
        found = self._detectors.get(longest_side)
        if found is None:
            cv2 = self._cv2
            found = cv2.aruco.ArucoDetector(dictionary(), parameters(cv2, longest_side))
            self._detectors[longest_side] = found
        return found

    def see(self, frame: Frame) -> Seen:
        """Every sighting of a wanted marker in the frame, in id order."""
        image = frame.image
        if image.ndim == 3:
            image = self._cv2.cvtColor(image, self._cv2.COLOR_BGR2GRAY)
        width, height = frame.size
        corners, ids, _ = self._detector(max(width, height)).detectMarkers(image)
        sightings: list[Sighting] = []
        if ids is not None:
            for quad, marker_id in zip(corners, ids.ravel(), strict=True):
                marker = int(marker_id)
                if self.markers is not None and marker not in self.markers:
                    continue
                points = quad.reshape(4, 2)
                shape: tuple[Point, Point, Point, Point] = (
                    (float(points[0][0]), float(points[0][1])),
                    (float(points[1][0]), float(points[1][1])),
                    (float(points[2][0]), float(points[2][1])),
                    (float(points[3][0]), float(points[3][1])),
                )
                sightings.append(Sighting(marker, shape))
        # An id seen twice (two stickers of one id) stays twice: the reader asks, never picks.
        sightings.sort(key=lambda s: (s.marker, s.centre))
        return Seen(
            frame.index,
            frame.t_ns,
            (width, height),
            tuple(sightings),
        )

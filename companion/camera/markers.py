"""The camera's marker family: ArUco's 5 x 5 codes, the first 100 (``DICT_5X5_100``).

Why these: at a table's distance a sticker is 25-40 pixels across in a 720p frame, so
few, large cells beat many small ones; 5 x 5 data bits (7 cells with the black border)
still leave room for distance: any two of these 100 codes differ in at least 7 of their 25
bits in every rotation, so a blurred frame that flips a bit or three never turns one card
into another (the detector corrects what it can and drops the rest). The land scan's
6 x 6 family (``companion.scan.markers``) packs four stickers on a card read at rest, close
up; here one sticker a card must survive motion blur and distance.

Ids 0-49 go on the CHOMP! deck and 50-91 on Get Bit!'s, so a card of the other game is
seen as such, never read as a card of this one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

DICTIONARY_NAME = "DICT_5X5_100"
MARKER_BITS = 5
MARKER_COUNT = 100


@lru_cache(maxsize=1)
def dictionary() -> Any:
    """The ArUco dictionary (imports OpenCV on first use)."""
    import cv2

    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY_NAME))


def marker_image(marker_id: int, side_px: int) -> Any:
    """The marker (black border included, no white margin) as a square grey uint8 image."""
    import cv2
    import numpy as np

    if not 0 <= marker_id < MARKER_COUNT:
        raise ValueError(f"marker {marker_id}: the family has ids 0 to {MARKER_COUNT - 1}")
    return np.asarray(cv2.aruco.generateImageMarker(dictionary(), marker_id, side_px), np.uint8)

"""Hands-free cards: a camera over the table reads the marker sticker on each revealed card.

A card source beside ``tags/`` and ``scan/``: it knows frames, markers, seats' zones on the
picture and a deck file binding each marker to its card, and hands a round's cards to a
table exactly as typed cards arrive. It never stamps a slap or a reveal.

* :mod:`~companion.camera.model`: the values every part shares (frames, sightings, zones);
* ``markers``: the marker family and its images; ``deck``: the deck file; ``stickers``: the
  sheet; ``detect``: markers in a frame; ``zones``: which seat a sighting lies in;
  ``reader``: a round's cards from frames (pure, no clock); ``learn``: the deck checked card
  by card; ``sources``: cameras, files and the simulated table; ``synth`` and ``bench``:
  rendered rounds and their figures.

OpenCV and NumPy come with the ``scan`` extra and are imported by the modules that need
them, never here.
"""

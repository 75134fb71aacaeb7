"""The MicroPython program for the Pico bridge (``main.py``) and its hardware-free core.

On the Pico, ``codec.py``, ``core.py`` and ``main.py`` sit side by side in the root of the
filesystem (see ``README`` here and ``hardware/BRIDGE.md``); this package form lets the host
simulator import ``core`` under CPython.
"""

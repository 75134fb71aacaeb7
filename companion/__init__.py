"""companion: a Raspberry Pi tabletop companion for five physical games."""

__version__ = "0.1.0"

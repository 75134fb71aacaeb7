"""The CHOMP! table: ``app`` (``companion referee`` and ``companion demo`` put together
from their options), ``config`` (the TOML), ``session`` (pins, press sources, outputs,
journal, referee and daemon, opened and closed as one), ``screen`` (curses and line mode),
``card_entry`` (typing the cards), ``demo`` (the same table on mock pins, with bots) and
``bench`` (its figures)."""

"""Pure rules engines, one module per game: no I/O, no clock, no threads, no GPIO."""

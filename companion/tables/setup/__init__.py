"""``companion setup``: the set-up wizard and the bounce profile (docs/setup.md)."""

"""The foodchain table app."""

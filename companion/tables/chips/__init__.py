"""The chips table app."""

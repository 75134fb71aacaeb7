"""The getbit table app."""

"""The chomp table app."""

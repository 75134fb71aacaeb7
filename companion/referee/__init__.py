"""The real-time referee: timestamped events in, verdicts out; time is an input."""

"""The CLI's subcommands, one module per area; each adds its parsers with ``register``."""

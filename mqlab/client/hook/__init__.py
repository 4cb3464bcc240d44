"""Client hooks: code that runs around each send and each consume call (message traces use them)."""

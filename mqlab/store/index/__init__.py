"""The message index: hash files that map ``topic#key`` to CommitLog offsets (query by key or by message id)."""

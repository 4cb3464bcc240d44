"""Message traces: hooks record each send and consume, a dispatcher ships the records to a trace topic."""

"""The send and consume hooks that turn client events into trace contexts."""

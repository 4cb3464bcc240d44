"""Transactional (half) messages on the broker: the check service and the check listener."""

"""Broker fast failure: bounded processor pools and the sweeper that answers requests waiting too long."""

"""Benchmarks of the mqlab store (``make bench``); see ``docs/performance.md``.

Java: none (teaching helper). RocketMQ's own benchmark tools (``org.apache.rocketmq.example.benchmark``) drive a
whole broker over the network; this package measures the store in-process, next to a minimal writer of the same
bytes, so the figures say how far the teaching code is from what Python can do with this file format.
"""

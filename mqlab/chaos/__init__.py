"""Fault campaigns over the simulated cluster: seeded workloads, nemeses, a history, and a checker that grades it.

Java: none (teaching infrastructure, in the spirit of FoundationDB's simulation, TigerBeetle's VOPR and Jepsen).

A run is fully described by ``(seed, workload, faults)``: ``mqlab.chaos.workload.run_seed`` builds a simulated cluster
from the seed, drives mqlab's real producers, consumers, brokers and stores through the workload while the nemesis
applies a fault schedule drawn from the same seed, records a ``History`` and hands it to ``mqlab.chaos.checker``.
The same triple replays the same run event for event (``mqlab chaos replay``).
"""

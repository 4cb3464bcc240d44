"""The two runtimes mqlab runs on: threaded (real) and simulated (deterministic).

Java: none (teaching infrastructure). RocketMQ reads the wall clock, spawns threads and opens sockets wherever it
likes; mqlab's library code asks a ``Runtime`` instead, so the same code can run on
real threads or inside a single-threaded discrete-event simulation where a seed fixes every byte.
"""

from mqlab.runtime.runtime import Runtime
from mqlab.runtime.simulated import SimulatedWorld
from mqlab.runtime.threaded import ThreadedRuntime

__all__ = ["Runtime", "SimulatedWorld", "ThreadedRuntime"]

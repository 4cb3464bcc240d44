"""mqlab: a specification-first teaching lab for Apache RocketMQ 4.9.3's message life cycle.

The package mirrors RocketMQ's Java packages below ``org.apache.rocketmq`` (``common``, ``remoting``,
``namesrv``, ``broker``, ``store``, ``client``); ``runtime`` has no Java twin: it supplies the clock,
randomness, host identity, scheduler and trace that let the same code run threaded or simulated.
"""

__version__ = "0.1.0"

# The RocketMQ release every byte layout, code and default in this package follows.
ROCKETMQ_VERSION = "4.9.3"

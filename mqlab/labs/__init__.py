"""Graded implementation labs: the reader writes one RocketMQ function, mqlab checks it and runs it in the engine.

``mqlab lab list`` names the labs, ``mqlab lab start NAME`` writes a skeleton into the reader's ``labs/`` folder
(the signature, a docstring stating the task and quoting the spec statements it must meet, an empty body), and
``mqlab lab check NAME`` grades it in three stages:

1. **properties**: hypothesis tries the laws of the function (an allocation gives every queue to exactly one
   consumer...) and reports the first law that fails with the smallest input it found;
2. **comparison**: the reader's answers against mqlab's own implementation on generated inputs;
3. **scenario**: the reader's function plugged into a simulated broker, store or client at the seam where mqlab
   calls its own (a constructor argument, a strategy object, a registry), under faults where it makes sense.

Everything is deterministic: hypothesis runs derandomized with a bounded number of examples, scenarios run on a
seeded ``SimulatedWorld``.

Modules: ``lab`` (what a lab is made of), ``grader`` (the three stages and the report), ``registry`` (the labs),
``skeleton`` (the files ``start`` writes), ``reference`` (mqlab's own code in the labs' signatures), ``cli`` (the
``mqlab lab`` subcommand), and one module per lab family.

Java: none (teaching layer).
"""

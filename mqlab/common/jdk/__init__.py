"""Emulations of the few JDK behaviours RocketMQ's bytes depend on.

Java: none (teaching helper). RocketMQ never says "HashMap order" or "String.hashCode" in its protocol, yet both
leak into what it writes: tags codes and index slots are String hashes, and the properties string follows a
HashMap's iteration order. This package reproduces exactly those behaviours, in one place.
"""

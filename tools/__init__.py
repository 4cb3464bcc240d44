"""Maintenance tools for the mqlab repository: traceability, the Java map, the built-site check.

Java: none (repository tooling). Standard library only, so docs hooks and tests can import them anywhere.
"""

"""Delayed messages: the schedule topic's delivery timers and their persisted offsets.

Java: package org.apache.rocketmq.store.schedule (rocketmq-all-4.9.3)
"""

"""Captured runs in and out: capture files, OpenInference traces, and the run each line holds.

``captures`` reads and writes capture files and traces, ``openinference`` knows the span shapes,
and ``run`` is one captured run (``CapturedRun``) with the build it recorded.
"""

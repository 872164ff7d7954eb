"""Smoke-test scripts: each runs inside the target interpreter, in its own child process.

They are read as text and run with `python -c`, after `_preamble.py`; they must not import xladoctor.
"""

"""Probes: the only code that touches the system. They return data and never judge."""

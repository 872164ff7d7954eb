"""`xladoctor collective`: one real collective across the ranks of a job, and its failures turned into causes.

plan (launch flags and launcher variables) -> preflight (name resolution, ports, interfaces) -> rollcall (the
nodes find each other before torchrun, so a missing one is named) -> launch (the target's torchrun, the worker
script in every rank) -> analysis (pure: records and gathered facts -> findings, with the fleet comparison).
"""

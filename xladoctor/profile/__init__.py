"""`xladoctor profile -- CMD`: run the user's own program with the frameworks' hooks recording, then say which of
its lines recompile, fall back, sync the host or break graphs, and how to fix each.

launch.py starts the command with the hooks of scripts/ on PYTHONPATH; records.py reads what each process
wrote; analysis/ turns those records into findings (pure functions, one module per framework) and a timeline;
reporters/profile_report.py renders them.
"""

"""What `xladoctor profile` loads into every process of the profiled program (stdlib only, Python 3.8+ syntax).

They are copied into a private folder put first on PYTHONPATH; `sitecustomize.py` loads the hooks, takes the
folder off `sys.path` again and chains to the environment's own sitecustomize. They must not import xladoctor.
"""

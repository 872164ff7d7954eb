"""What `xladoctor collective` runs inside the target interpreter, one process per rank (stdlib and torch or jax only,
Python 3.8+ syntax). They are copied into a private folder, with the module both import (_xladoctor_collective_common:
the op record, its median, the cut of an error text), and started by the target's own torchrun (or directly as one
rank under srun, a PyTorchJob or an outer torchrun); they must not import xladoctor. Each rank writes its record
to `rank-<RANK>.json` in the folder XLADOCTOR_COLLECTIVE_OUT names, after every phase, so a rank that crashes or is
killed leaves the phase it reached.
"""

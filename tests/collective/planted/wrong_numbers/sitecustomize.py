# Planted fault (tests only): in rank 1 of an xladoctor collective run, torch.distributed.all_reduce returns its
# result plus one, as a broken transport or a bad reduction would. torch itself is untouched: the module attribute
# the caller looks up is wrapped once torch.distributed has been imported.
import builtins
import os
import sys

if os.environ.get("RANK") == "1" and os.environ.get("XLADOCTOR_COLLECTIVE_OUT"):
    _real_import = builtins.__import__

    def _import(name, *args, **kwargs):
        module = _real_import(name, *args, **kwargs)
        dist = sys.modules.get("torch.distributed")
        if dist is not None and hasattr(dist, "all_reduce") and not getattr(dist, "_planted_fault", False):
            dist._planted_fault = True
            real = dist.all_reduce

            def all_reduce(tensor, *a, **k):
                work = real(tensor, *a, **k)
                tensor.add_(1)
                return work

            dist.all_reduce = all_reduce
        return module

    builtins.__import__ = _import

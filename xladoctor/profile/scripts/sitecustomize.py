# xladoctor profile: Python's `site` imports this at the start of every process of the profiled program, because
# `xladoctor profile` put its folder first on PYTHONPATH (children inherit it: torchrun's workers, multiprocessing,
# Inductor's compile workers). It loads the hooks, takes its folder off sys.path so the program sees the path it
# would have had, then runs the sitecustomize this one shadows (Debian's, a conda env's), as `site` would have.
# Written to parse on Python 2.7 too: a Python 2 program started by the same command must not break.
import os
import sys


def _xladoctor_profile_start(here):
    if sys.version_info < (3, 8) or not os.environ.get("XLADOCTOR_PROFILE_DIR"):
        return
    try:
        import _xladoctor_profile

        _xladoctor_profile.start(here)
    except Exception:  # the profiler never breaks the program it watches
        pass


def _xladoctor_profile_chain(here):
    """Find and run the next sitecustomize on sys.path (errors in it surface through `site`, as without us).
    It replaces this module in sys.modules, as if it had been the one imported; `import sitecustomize` then
    finds it there (with none to chain to, this module stays)."""
    if sys.version_info >= (3, 4):
        import importlib.machinery
        import importlib.util

        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
        if spec is None or spec.loader is None or os.path.dirname(os.path.abspath(spec.origin or "")) == here:
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    else:
        import imp

        try:
            found = imp.find_module("sitecustomize", sys.path)
        except ImportError:
            return
        try:
            imp.load_module("sitecustomize", *found)
        finally:
            if found[0] is not None:
                found[0].close()


_here = os.path.dirname(os.path.abspath(__file__))
_xladoctor_profile_start(_here)
sys.path[:] = [p for p in sys.path if not (p and os.path.abspath(p) == _here)]
_xladoctor_profile_chain(_here)

# xladoctor profile: the torch hooks. A training step of a program without torch_xla ends at an optimizer step:
# torch.optim.optimizer.register_optimizer_step_post_hook (a global hook, in torch 2.0 and later, checked in 2.9 and
# 2.13) calls us after every optimizer's step; the first optimizer seen counts the steps (a GAN's two optimizers
# step once each per training step). Under torch_xla the step ends at torch_xla.sync() instead.
import sys

import _xladoctor_profile as core

_state = {"optimizer": None, "batch": None}
MAX_BATCH_TENSORS = 8  # the first tensors of a batch are enough to see its shape change


def _shapes(batch, out):
    """The shapes of the first tensors of a batch (a tensor, a tuple/list/dict of them), depth first."""
    if len(out) >= MAX_BATCH_TENSORS:
        return out
    shape = getattr(batch, "shape", None)
    if shape is not None and hasattr(batch, "dtype"):
        out.append([int(d) for d in shape])
    elif isinstance(batch, dict):
        for value in list(batch.values())[:MAX_BATCH_TENSORS]:
            _shapes(value, out)
    elif isinstance(batch, (list, tuple)):
        for value in batch[:MAX_BATCH_TENSORS]:
            _shapes(value, out)
    return out


def _wrap_loader_iterator(dataloader):
    # torch/utils/data/dataloader.py: every DataLoader iterator is a _BaseDataLoaderIter whose __next__ returns the
    # batch (torch 2.9 and 2.13). A batch whose shapes differ from the previous one's is recorded: recompilations
    # (torch.compile with dynamic=False, torch_xla) can then be told apart by the shape that changed.
    base = dataloader._BaseDataLoaderIter
    original = base.__next__

    def __next__(self):
        batch = original(self)
        _record_batch(batch)
        return batch

    __next__.__wrapped__ = original
    base.__next__ = __next__


@core.guarded("DataLoader batch shapes")
def _record_batch(batch):
    shapes = _shapes(batch, [])
    if shapes and shapes != _state["batch"]:
        _state["batch"] = shapes
        # where the loop takes its batches: the place to drop or pad the odd one
        core.emit_counted("batch", "shape change", shapes=shapes, location=core.user_frame())


def _after_step(optimizer, args, kwargs):
    if "torch_xla" in sys.modules:  # torch_xla.sync() ends the step; a program that never calls it is told so
        core.emit_counted("optimizer_step_xla", "all")
        return
    if _state["optimizer"] is None:
        _state["optimizer"] = id(optimizer)
    if id(optimizer) == _state["optimizer"]:
        core.step_boundary("optimizer.step()", core.user_frame())


def _after_import(torch):
    core.emit("framework", name="torch", version=getattr(torch, "__version__", None))
    from torch.optim.optimizer import register_optimizer_step_post_hook

    core.begin_steps()
    core.emit("steps_begin", source="torch")
    register_optimizer_step_post_hook(core.guarded("optimizer step hook")(_after_step))
    import torch.utils.data.dataloader as dataloader

    core.guarded("DataLoader hook")(_wrap_loader_iterator)(dataloader)


def arm():
    core.when_imported("torch", _after_import)

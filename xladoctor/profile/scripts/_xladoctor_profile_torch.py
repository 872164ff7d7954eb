# xladoctor profile: the torch hooks. A training step of a program without torch_xla ends at an optimizer step:
# torch.optim.optimizer.register_optimizer_step_post_hook (a global hook, in torch 2.0 and later, checked in 2.9 and
# 2.13) calls us after every optimizer's step; the first optimizer seen counts the steps (a GAN's two optimizers
# step once each per training step). Under torch_xla the step ends at torch_xla.sync() instead.
import sys

import _xladoctor_profile as core

_state = {"optimizer": None}


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


def arm():
    core.when_imported("torch", _after_import)

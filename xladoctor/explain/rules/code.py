"""The user's code, not the environment: shapes, dtypes, devices, indices, autograd and JAX tracing, TensorFlow's
and torch_xla's device rules, processes started the wrong way. The models, data and inputs the code is given
(weights files, datasets, tokenizers, prompts, an application's workflow) are code_inputs.py's."""

from __future__ import annotations

import re
import shlex

from xladoctor.explain.records import Failure, installed_package
from xladoctor.explain.rules import ATEN, JAX_ERRORS, Lead, rule, yours
from xladoctor.fix import export
from xladoctor.sanitize import cut, scrub, scrubbed_head

# JAX names the function it was tracing and the argument the value came from (jax/_src/errors.py, core.py)
_TRACING = re.compile(
    # a pasted log often stops after "at": the function's name is still worth saying
    r"while tracing the function (?P<function>[\w.<>]{1,120})(?: at (?P<where>\S{1,300}))?"
    r"|depends on the value of the argument (?P<argument>[\w.\[\]'\"]{1,120})"
    r"|It arose in the (?P<call>[\w.]{1,120}) argument '(?P<parameter>\w{1,60})'"
    r"|'(?P<parameter2>\w{1,60})' argument of (?P<call2>jnp\.\w{1,60})"
    r"|The problem arose with the `(?P<conversion>\w{1,60})` function"
)

_BRANCH = re.compile(r"\s*(?:if|elif|while|assert)\b")


_SHAPES = re.compile(
    r"size mismatch|shapes cannot be multiplied|must match the size of tensor|Expected all tensors to be on the same "
    r"device|expected scalar type \w+ but found \w+"
    # the same matmul under torch.compile, checked on fake tensors (torch/_meta_registrations.py, meta_mm)
    r"|a and b must have same reduction dim, but got \[[\w, ]{1,60}\] X \[[\w, ]{1,60}\]"
    # aten/src/ATen/native/Convolution.cpp: the input's dtype (or device) against the weight's, and against the bias'
    r"|Input type \([^)]{1,80}\) and (?:weight|bias) type \([^)]{1,80}\) should be the same"
    # a tensor's index ("index out of range in self": an embedding's ids past its rows), not CPython's own words for
    # a list's or tuple's (Objects/listobject.c, tupleobject.c): those say only whose code indexed what it built
    r"|(?<!list )(?<!tuple )(?<!string )(?<!object )index out of range"
    r"|out of bounds for dimension|Index \S{1,40} is out of bounds|Dimension out of range"
    r"|Expected (?:input|target)[^\n]{0,80}(?:size|shape|batch_size)|element 0 of tensors does not require grad"
    r"|Trying to backward through the graph a second time|modified by an inplace operation"
    r"|is a view and is being modified inplace"
    # aten/src/ATen/MemoryOverlap.cpp (assert_no_internal_overlap): an in-place op or out= writing into a tensor whose
    # elements share memory, an expand()ed or broadcast view; the op is supported, the tensor it was given is not
    r"|more than one element of the written-to tensor refers to a single memory location"
    r"|Incompatible shapes|Dimensions must be equal|expected input with shape|is incompatible with the layer"
    r"|ConcretizationTypeError|TracerBoolConversionError|TracerArrayConversionError|TracerIntegerConversionError"
    r"|UnexpectedTracerError|NonConcreteBooleanIndexError|Incompatible shapes for broadcasting"
    r"|got incompatible shapes for broadcasting|view size is not compatible"
    # aten/src/ATen/native/cuda/Blas.cpp and LinearAlgebra.cpp: a matmul's operands of two dtypes (a bf16 model fed
    # fp16 or fp32, autocast on one side only)
    r"|(?:expected )?(?:mat1|self) and mat2 (?:must|to) have the same dtype"
    r"|Cannot reshape (?:a )?tensor|cannot reshape array|invalid for input of size|Expected \d+D(?: \(unbatched\))? "
    r"or \d+D \(batched\) input|doesn't match the broadcast shape|Shapes must be 1D sequences of concrete values"
    r"|Placeholder storage has not been allocated on MPS device"
    # an op's own check of its arguments' devices (aten's checkAllSameGPU, the MPS and CPU kernels' TORCH_CHECKs):
    # "slow_conv2d_forward_mps: input(device='cpu') and weight(device=mps:0') must be on the same device"
    r"|\(device='?\w{2,8}(?::\d{1,2})?'?\) (?:and|but) \w{1,40}\(device='?\w{2,8}(?::\d{1,2})?'?\)?"
    r"[ \t]{1,3}must be on the same device"
    r"|Inplace update to inference tensor outside InferenceMode"
    # aten/src/ATen/native/TensorAdvancedIndexing.cpp: a mask or index tensor on another device than the tensor
    r"|indices should be either on cpu or on the same device as the indexed tensor"
    # an exception type that says it (flax's ScopeParamShapeError, haiku's, a library's own ShapeError)
    r"|\b\w{0,40}ShapeError\b|Inconsistent shapes between"
    # Triton's language checks of a kernel's own values (triton/language/semantic.py: a block pointer's store)
    r"|\w{1,40} shape\(\[[^\]\n]{0,80}\]\) and \w{1,40} shape\(\[[^\]\n]{0,80}\]\) mismatch"
)


# torch/nn/modules/module.py (load_state_dict): "size mismatch for fc.weight: copying a param with shape
# torch.Size([10, 512]) from checkpoint, the shape in current model is torch.Size([1000, 512])."
_CHECKPOINT_SIZE = re.compile(
    r"size mismatch for (?P<name>[\w.]{1,200}): copying a param with shape (?P<saved>(?:torch\.Size)?\([^)\n]{0,80}\)) "
    r"from checkpoint, the shape in current model is (?P<built>(?:torch\.Size)?\([^)\n]{0,80}\))"
)


# keras/src/layers/input_spec.py: the layer's declared input against what reached it
_KERAS_LAYER_INPUT = re.compile(
    r"Input \d+ of layer \"?(?P<layer>[\w.]{1,80})\"? is incompatible with the layer: "
    r"(?P<expected>expected [^\n]{1,160}?), but received input with shape (?P<got>\([^)\n]{0,80}\))"
)


# an exception's type before its message ("RuntimeError: ", "torch.OutOfMemoryError: ", ComfyUI's "!!! Exception
# during processing !!! ")
_TYPE_BEFORE = re.compile(r"^\s*(?:!!! Exception during processing !!!\s*|[\w.]{1,100}(?:Error|Exception): )+")
# a JSON string field holding the message, a structured logger's or a tool's ({"message": "...", "ts": ...}, a
# notebook's "evalue")
_JSON_FIELD = re.compile(r'"(?:message|msg|error|evalue|detail)"\s*:\s*"')
_UNESCAPED_QUOTE = re.compile(r'(?<!\\)"')
_MESSAGE_SHOWN = 240  # characters of the message a cause quotes
_BEFORE_THE_MATCH = 60  # characters kept before the matched words when the message is longer than that


def _message_line(found: re.Match[str]) -> str:
    """The message a rule matched in, as one line: its JSON string when it is in one, without the exception's type
    or quotes around it; scrubbed, then cut around what matched."""
    text, said = found.string, found.group(0)
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    line, at = text[start : end if end >= 0 else len(text)], found.start() - start
    fields = list(_JSON_FIELD.finditer(line, 0, at))
    field = fields[-1] if fields else None  # the last field that opens before the match holds it
    if field is not None:
        close = _UNESCAPED_QUOTE.search(line, field.end())
        line = line[field.end() : close.start() if close is not None else len(line)].replace('\\"', '"')
    line = _TYPE_BEFORE.sub("", line).strip()
    if len(line) > 1 and line[0] == '"' and line.rstrip(".,;").endswith('"'):
        line = line[1:].rstrip(".,;")[:-1]  # the message quoted whole
    shown = scrub(line)
    where = shown.find(said)
    if len(shown) > _MESSAGE_SHOWN and where > _MESSAGE_SHOWN // 2:
        # a long message whose matched words lie past what is shown: begin near them, at a word's start
        space = shown.rfind(" ", 0, where - _BEFORE_THE_MATCH)
        shown = "…" + shown[space + 1 if space >= 0 else where :]
    return cut(shown, _MESSAGE_SHOWN)


@rule(
    "user-code-error",
    _SHAPES.pattern,
    source=ATEN + "; " + JAX_ERRORS,
    confidence=0.85,
)
def shapes_and_devices(found: re.Match[str], failure: Failure) -> Lead | None:
    said = found.group(0)
    line = found.string[found.string.rfind("\n", 0, found.start()) + 1 : found.end()]
    # the whole message, with its sizes, dtypes, devices and the op that checked them (what a fix has to change)
    whole = _message_line(found)
    if "last reason:" in line or "guard failure" in line:
        return None  # Dynamo's reason to recompile (a guard on a shape failed), not an error: dynamo_recompile_limit
    inplace = "inplace" in said
    overlap = "single memory location" in said
    inference = "inference tensor" in said
    tracing = "Tracer" in said or "Concretization" in said or "concrete values" in said
    devices = "same device" in said or "MPS device" in said
    after = found.string[found.end() : found.end() + 120]
    dtypes = re.match(r", but got:? (?P<a>[\w:]{1,40})(?: != | and )(?P<b>[\w:]{1,40})", after)
    pair = f" ({dtypes.group('a')} and {dtypes.group('b')})" if dtypes else ""
    hint = (
        f"a matrix multiply got operands of two dtypes{pair}: a model's weights in one (bf16, fp16) and its input or "
        "an added layer in another. Cast one to the other (x.to(model.dtype), or the layer's .to(dtype)), or run the "
        "step under torch.autocast."
        if "same dtype" in said
        else "a tensor made under torch.inference_mode() was changed in place outside it (or given to autograd): "
        "inference tensors are read-only there. Make it outside inference_mode, .clone() it first, or use "
        "torch.no_grad() where the result is used later."
        if inference
        else "an in-place op (or an out= argument) wrote into a tensor whose elements share memory, an expand()ed "
        "or broadcast view: .clone() (or .contiguous()) it before the in-place op, or use the out-of-place op."
        if overlap
        else "a tensor autograd needs was changed in place: find it with torch.autograd.set_detect_anomaly(True) and "
        "use the out-of-place op."
        if inplace
        else "NumPy was handed a traced value inside jit, grad or vmap (np.array, np.stack, np.asarray on it: "
        "jax.errors' TracerArrayConversionError): use jax.numpy (jnp) there, or move the NumPy call out of the traced "
        "function."
        if "TracerArrayConversionError" in said
        else "a Python branch or conversion on a traced value inside jit: mark the argument static "
        "(static_argnums), or use jnp.where / lax.cond."
        if tracing
        else f"the tensors are on different devices ({whole}): put the index (or mask) and the tensor it indexes on "
        "one device. torch before 1.13 took a GPU index into a CPU tensor, so code written for it (YOLOv7's and "
        "YOLOR's loss.py) fails so on later releases: move one of the two in that code, or run the torch it was "
        "written for."
        if "indices should be either on cpu" in said
        else f"the tensors are on different devices ({whole}): move the inputs to the model's device; with a model "
        "spread over several GPUs (device_map='auto'), set CUDA_VISIBLE_DEVICES to the GPUs it should use, or put "
        "inputs on its first device."
        if devices
        else f"the tensors' shapes, dtypes or devices do not fit ({whole})."
    )
    params = {"what": said}
    keras = _KERAS_LAYER_INPUT.search(failure.haystack) if "incompatible with the layer" in said else None
    if keras is not None:
        layer, expected, got = keras.group("layer"), keras.group("expected"), keras.group("got")
        hint = (
            f"the data's shape does not fit layer {layer} ({expected}, but received {got}): the input_shape the "
            "model was declared with (keras.Input(shape=...), a layer's input_shape=) or a layer's own size is not "
            "the data's. Declare the model for the data's shape, or resize the data to it."
        )
        params.update({"layer": layer, "option": "input_shape"})
    where = failure.haystack + " ".join(f"{frame.file} {frame.function} {frame.code}" for frame in failure.frames)
    if "does not require grad" in said and "lightning" in where and re.search(r"\b(?:test|validat)", where):
        hint = (
            "autograd was asked for a gradient where Lightning runs the step under torch.inference_mode (validation "
            "and test, by default), where torch.enable_grad() does not help: pass Trainer(inference_mode=False) to "
            "run them under no_grad instead, which enable_grad can lift."
        )
        params["option"] = "Trainer(inference_mode=False)"
    sizes = list(_CHECKPOINT_SIZE.finditer(failure.haystack)) if "size mismatch" in said else []
    if sizes:
        name, saved, built = sizes[0].group("name"), sizes[0].group("saved"), sizes[0].group("built")
        more = len(sizes) - 1
        others = f" (and {more} more parameter{'s' if more > 1 else ''})" if more > 0 else ""
        # transformers' from_pretrained takes ignore_mismatched_sizes=True (a new head over a pretrained body)
        head = (
            " When only the head differs on purpose (another number of labels), from_pretrained(..., "
            "ignore_mismatched_sizes=True) loads the rest and initialises it anew."
            if "ignore_mismatched_sizes" in failure.haystack or re.search(r"classifier|\bhead\b|\bfc\.", name)
            else ""
        )
        hint = (
            f"the checkpoint's weights do not fit the model the code built: {name} has shape {saved} in the "
            f"checkpoint and {built} in the model{others}. The checkpoint was saved from another model or "
            "configuration (another variant, size, number of classes or encoder): load the checkpoint made for this "
            "model and config, or build the model with the config the checkpoint was saved with. "
            f"load_state_dict(..., strict=False) skips missing and unexpected keys, never a size mismatch.{head}"
        )
        params.update({"parameter": name, "checkpoint": saved, "model": built, "option": "config"})
    if tracing:
        for part in _TRACING.finditer(failure.haystack):
            named = {k.rstrip("2"): v.rstrip(".") for k, v in part.groupdict().items() if v}
            params.update(named)
        traced = [
            f"{k} {params[k]}" for k in ("function", "argument", "call", "parameter", "conversion") if k in params
        ]
        if traced:
            hint += f" The traced value: {', '.join(traced)}."
        # a Python branch on a traced boolean: the statement, when it is the innermost frame of the user's code the
        # traceback printed (`if max_steps == 1:`); the other tracer errors come from a conversion (int(), np.array)
        innermost = next((f for f in reversed(failure.frames) if f.user), None)
        branch = innermost if innermost is not None and _BRANCH.match(innermost.code) else None
        if branch is not None and "TracerBoolConversionError" in said:
            hint += f" The branch: `{branch.code.strip()}` ({branch.short()})."
            params["branch"] = branch.code.strip()
    return Lead(yours(failure, hint[0].upper() + hint[1:]), params, verdict="not-environment")


# A training loop that stops when its loss is no longer finite: MAE's and DeiT's ("Loss is nan, stopping training",
# engine_pretrain.py / engine.py), Detectron2's ("Loss became infinite or NaN at iteration=", engine/train_loop.py)
@rule(
    "user-code-error",
    r"Loss is (?P<value>nan|inf|-inf), stopping training|Loss became infinite or NaN at iteration=(?P<iteration>\d+)",
    source="https://github.com/facebookresearch/mae/blob/main/engine_pretrain.py (math.isfinite(loss_value)); "
    "https://github.com/facebookresearch/detectron2/blob/main/detectron2/engine/train_loop.py (FloatingPointError)",
    confidence=0.8,
)
def loss_not_finite(found: re.Match[str], failure: Failure) -> Lead:
    at = f" at iteration {found.group('iteration')}" if found.group("iteration") else ""
    return Lead(
        f"The training loss became NaN or infinite{at}, and the loop stopped: the training diverged. Most often "
        "float16 overflowed under mixed precision (use bf16 where the GPU has it, keep a GradScaler, or run without "
        "autocast), or the learning rate is too high for this batch size (lower it, add warm-up or gradient "
        "clipping), or a sample holds a NaN or an infinity (a log of 0, a division by 0, a broken label). Not an "
        "environment problem.",
        {"fix": "bf16 or no autocast", "option": "learning rate"},
        verdict="not-environment",
    )


# DGL checks that a feature assigned to a graph is on the graph's device (heterograph.py, _set_n_repr/_set_e_repr)
@rule(
    "user-code-error",
    r"Cannot assign (?P<kind>node|edge) feature \"(?P<name>[^\"\n]{1,120})\" on device (?P<a>\S{1,40}) to a graph on "
    r"device (?P<b>[\w:/]{1,40})",
    source='https://github.com/dmlc/dgl/blob/master/python/dgl/heterograph.py ("Cannot assign node feature ... Call '
    'DGLGraph.to() to copy the graph to the same device.")',
    confidence=0.85,
)
def dgl_feature_on_another_device(found: re.Match[str], failure: Failure) -> Lead:
    a, b = found.group("a").rstrip("."), found.group("b").rstrip(".")
    return Lead(
        yours(
            failure,
            f"A {found.group('kind')} feature ({found.group('name')}) on {a} was given to a DGL graph on {b}: a graph "
            "and its features must be on one device. Move the graph (g = g.to(device)) or the tensor (x.to(g.device)) "
            "before assigning it.",
        ),
        {"feature": found.group("name"), "fix": "g.to(device)", "devices": f"{a} and {b}"},
        verdict="not-environment",
    )


# DistributedDataParallel and DataParallel hold the model as .module, so every name of the wrapped model starts with
# "module.": a state dict saved from one and loaded (or looked up) in the bare model, or the other way round, misses
@rule(
    "user-code-error",
    r"KeyError: '(?P<key>module\.[\w.]{1,200})'"
    r"|Unexpected key\(s\) in state_dict: \"(?P<unexpected>module\.[\w.]{1,200})\""
    r"|Missing key\(s\) in state_dict: \"(?P<missing>module\.[\w.]{1,200})\"",
    source="https://github.com/pytorch/pytorch/blob/main/torch/nn/modules/utils.py "
    "(consume_prefix_in_state_dict_if_present, for a state dict of a DDP/DataParallel model); "
    "https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html (.module)",
    confidence=0.85,
)
def wrapped_model_prefix(found: re.Match[str], failure: Failure) -> Lead:
    key = found.group("key") or found.group("unexpected") or found.group("missing")
    saved_wrapped = bool(found.group("unexpected"))
    return Lead(
        yours(
            failure,
            f'The name {key} carries "module.", the prefix DistributedDataParallel and DataParallel put on every '
            "name of the model they wrap: "
            + (
                "the checkpoint was saved from the wrapped model and is loaded into the bare one. Strip the prefix "
                "(torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state_dict, 'module.')), or save "
                "model.module.state_dict() from now on."
                if saved_wrapped
                else "names of the wrapped model meet names of the bare one (a state dict, or a lookup made before "
                "the model was wrapped). Use one of the two on both sides: model.module for the bare model, or wrap "
                "before the names are taken; strip a loaded state dict's prefix with "
                "consume_prefix_in_state_dict_if_present(state_dict, 'module.')."
            ),
        ),
        {"key": key, "fix": "consume_prefix_in_state_dict_if_present", "wrapper": "DistributedDataParallel"},
        verdict="not-environment",
    )


# PyTorch3D's coarse rasterizer puts each mesh face (or point) into screen bins of a fixed capacity; more in one bin
# than max_faces_per_bin overflows it (csrc/rasterize_coarse/rasterize_coarse.cu prints this, and renders on)
@rule(
    "user-code-error",
    r"Bin size was too small in the coarse rasterization phase",
    source="https://github.com/facebookresearch/pytorch3d/blob/main/pytorch3d/csrc/rasterize_coarse/"
    'rasterize_coarse.cu ("Bin size was too small in the coarse rasterization phase. This caused an overflow")',
    confidence=0.8,
)
def rasterizer_bins_overflow(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "PyTorch3D's coarse rasterizer had more faces (or points) in one screen bin than a bin holds, so the "
        "rendering may be incomplete: a scene with more or denser geometry than the settings allow. Raise "
        "RasterizationSettings' max_faces_per_bin (max_points_per_bin for points), make bin_size smaller, or set "
        "bin_size=0 for naive rasterization (slower, no bins); or render less geometry. Not an environment problem.",
        {"option": "max_faces_per_bin", "fix": "bin_size=0"},
        verdict="not-environment",
        observation=True,  # printed from the kernel, and rendering goes on: a later failure is the run's own
    )


@rule(
    "user-code-error",
    r"Can't pickle (?P<what><function <lambda>|local object '[^'\n]{1,200}'|<function [\w.<>]{1,200})"
    r"|Can't get local object '(?P<local>[^'\n]{1,200})'",
    source="https://docs.python.org/3/library/pickle.html#what-can-be-pickled-and-unpickled; "
    "https://pytorch.org/docs/stable/data.html#platform-specific-behaviors (spawned DataLoader workers pickle the "
    "dataset)",
    confidence=0.8,
)
def unpicklable_for_workers(found: re.Match[str], failure: Failure) -> Lead:
    """Windows and macOS start DataLoader workers (and multiprocessing) by spawn: the dataset, its transforms and
    collate_fn are pickled, and a lambda or a function defined inside another cannot be."""
    what = (found.group("what") or found.group("local") or "").strip()
    return Lead(
        yours(
            failure,
            f"Something the worker processes need cannot be pickled ({what}): on Windows and macOS, DataLoader "
            "workers (num_workers > 0) and multiprocessing start by spawn and pickle the dataset, its transforms and "
            "collate_fn, and a lambda or a function defined inside another function cannot be pickled. Define it at "
            "module level (a def, or functools.partial), or use num_workers=0.",
        ),
        {"what": what, "option": "num_workers"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Error detected in (?P<node>[A-Za-z]\w{1,80}Backward\d*)\. (?:Traceback of forward call|No forward pass)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/autograd/python_anomaly_mode.cpp (the warning "
    "anomaly detection prints)",
    confidence=0.85,
)
def anomaly_node(found: re.Match[str], failure: Failure) -> Lead:
    """torch.autograd.set_detect_anomaly(True) names the backward node that failed and where its forward ran."""
    node = found.group("node")
    frame = failure.user_frame
    where = f" (created at {frame.short()})" if frame is not None else ""
    return Lead(
        f"Autograd's anomaly detection names {node}{where}: a tensor it saved for the backward pass was changed "
        "afterwards (an in-place op such as add_, mul_, +=, or a slice assignment) or its backward failed. Use the "
        "out-of-place op, or .clone() before changing it. Not an environment problem.",
        {"node": node},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"device-side assert(?:ion)? triggered|Assertion `[^`]{1,200}` failed",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cuda/ (CUDA_KERNEL_ASSERT)",
    confidence=0.85,
)
def device_assert(found: re.Match[str], failure: Failure) -> Lead:
    check = re.search(r"Assertion `(?P<check>[^`]{1,200})` failed", failure.haystack)
    return Lead(
        yours(
            failure,
            "A GPU kernel checked its input and stopped (device-side assert)"
            + (f": {check.group('check')}" if check else "")
            + ". Most often an index out of range: labels with a class >= the number of classes, an embedding index >= "
            "the vocabulary size. Run once with CUDA_LAUNCH_BLOCKING=1 (or on the CPU) to see the exact op.",
        ),
        {"check": check.group("check") if check else ""},
        export("CUDA_LAUNCH_BLOCKING", "1", note="only while finding the failing op: it serialises every kernel"),
        verdict="not-environment",
    )


_MORE_SHAPES = (
    r"Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict|Expected \d+-dimensional input for "
    r"\d+-dimensional "
    r"weight|to have \d+ channels, but got \d+ channels|Target -?\d+ is out of bounds|is not in \[0, \d+\)|"
    r"leaf Variable that requires grad is being used in an in-place operation|grad can be implicitly created only for "
    r"scalar outputs|Can't call numpy\(\) on Tensor that requires grad|can't convert cuda:\d+ device type tensor to "
    r"numpy|The expanded size of the tensor \(\d+\) must match|Sizes of tensors must match except in dimension|stack "
    r"expects each tensor to be equal size|unhashable type: '(?:\w*Tracer|ArrayImpl)'"
    r"|Non-hashable static arguments are not supported|Default process group has not been initialized"
    r"|does not require grad and does not have a grad_fn"
    # aten's bmm/baddbmm check of its second batch (LinearAlgebra.cpp: "Expected size for first two dimensions of
    # batch2 tensor to be: [1, 768] but got: [2, 768].")
    r"|Expected size for first two dimensions of batch\d tensor to be: \[[\d, ]{1,40}\] but got: \[[\d, ]{1,40}\]"
    # aten's dtype and device checks in the words of each release (TensorIterator, the losses, the RNNs, embedding)
    r"|Expected object of scalar type \w+ but got scalar type \w+|Found dtype \w+ but expected \w+"
    r"|result type \w+ can't be cast to the desired output type \w+"
    r"|Expected tensor for argument #\d+ '\w+' to have (?:one of the following )?scalar types?"
    r"|Expected floating point type for target with class probabilities"
    r"|Input and parameter tensors are not at the same device"
    r"|is on CPU, but expected (?:them|it) to be on GPU|0D or 1D target tensor expected, multi-target not supported"
    r"|Using a target size \(torch\.Size\([^)\n]{0,60}\)\) that is different to the input size"
    r"|Target size \(torch\.Size\([^)\n]{0,60}\)\) must be the same as input size"
    # torch/csrc/autograd/engine.cpp, under torch.autograd.detect_anomaly(): the computation itself made a NaN
    r"|Function '\w{1,80}' returned nan values in its \d+th output"
    r"|Boolean value of Tensor with more than one value is ambiguous|'Tensor' object is not callable"
    r"|Trying to resize storage that is not resizable"
    # aten's reflection and replication padding (PaddingReflection / ReplicationPadding checks)
    r"|Padding size should be less than the corresponding input dimension"
    # TensorFlow's elementwise ops on two shapes that do not broadcast (its BCast check, and MLIR's shape dialect)
    r"|required broadcastable shapes|Incompatible shapes: \[[\d,? ]{0,80}\] vs\. \[[\d,? ]{0,80}\]"
    # JAX's check of the arguments of a jitted function (jax/_src/api_util.py, dtypes.py) and of any value it is
    # handed (jax/_src/core.py's concrete_aval: "Value <function f at 0x..> with type <class 'function'> ...")
    # (JAX's own array class named there is two JAX installs or releases meeting, not the code's value: left out)
    r"|Argument '[^'\n]{0,80}' of type <class '[\w.]{1,80}'> is not a valid JAX type"
    r"|Value [^\n]{1,120}? (?:of|with) type '?<class '(?!jax(?:lib)?\.)[\w.]{1,80}'>'? is not a valid JAX type"
    r"|Received incompatible devices for jitted computation"
    # torch/_refs/__init__.py (_broadcast_shapes): the fake tensors of torch.compile's tracing, and torch's refs
    r"|Attempting to broadcast a dimension of length \d+"
    # TensorFlow's and Keras' losses on labels of another shape than the logits (sparse against one-hot labels)
    r"|logits and labels must have the same first dimension|`logits` and `labels` must have the same shape"
    r"|Shapes \([\w, ]{1,60}\) and \([\w, ]{1,60}\) are incompatible|No gradients provided for any variable"
    # torch.distributed's checks of a collective's arguments (ProcessGroupNCCL.cpp, ProcessGroup.hpp, and
    # ProcessGroupWrapper.cpp under TORCH_DISTRIBUTED_DEBUG=DETAIL), and an older wording of the group's absence
    r"|Tensors must be CUDA and dense|No backend type associated with device type \w+"
    r"|Detected mismatch between collectives on ranks|Default process group is not initialized"
)


# the words of a diffusion stack around a convolution: its VAE, its latents, the applications that run them
# (not "unet", "vae" or "latent" alone: segmentation networks and VAEs of every kind have them too)
_DIFFUSION = re.compile(
    r"(?i)comfy|diffusers|VAEDecode|VAEEncode|AutoencoderKL|first_stage_model|\bldm[/.\\]|stable.?diffusion|sdxl"
    r"|\bflux\b|ksampler|\bsd3\b|\bwan\b|hunyuan"
)


@rule(
    "user-code-error",
    r"expected input\[[\d, ]{1,40}\] to have (?P<want>4|16) channels, but got (?P<got>4|16) channels",
    source="https://github.com/comfyanonymous/ComfyUI/blob/master/comfy/latent_formats.py (latent_channels: 4 for "
    "SD 1.x and SDXL; 16 for SD3, FLUX, Wan 2.1 and HunyuanVideo)",
    confidence=0.85,  # over more_shapes: it names the part to change
)
def latents_of_another_model_family(found: re.Match[str], failure: Failure) -> Lead | None:
    """A diffusion model's latents have 4 channels (SD 1.x, SDXL) or 16 (SD3, FLUX): a convolution that expects one
    and gets the other is a VAE, a model or a latent of the other family in the same pipeline."""
    want, got = found.group("want"), found.group("got")
    context = " ".join([failure.message, *(f"{f.file} {f.function}" for f in failure.frames)])
    if want == got or not _DIFFUSION.search(context):
        return None
    family = {"4": "SD 1.x / SDXL", "16": "SD3 / FLUX, or a video model such as Wan 2.1 or HunyuanVideo"}
    return Lead(
        f"A latent of {got} channels ({family[got]}) reached a convolution made for {want} ({family[want]}): the VAE, "
        "the diffusion model and the latent in one workflow are of different model families. Use the VAE made for "
        "the model (the checkpoint's own VAE; FLUX's ae.safetensors for FLUX), and an empty latent of that model's "
        "kind. Not an environment problem.",
        {"what": "VAE", "want": want, "got": got},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Cannot interpret value of type (?P<type><class '[\w.]{1,120}'>) as an abstract array"
    r"|Error interpreting argument to (?P<fun>[^\n]{1,120}?) as an abstract array\. The problematic value is of type "
    r"(?P<type2><class '[\w.]{1,120}'>)(?: and was passed to the function at path (?P<path>[^\n]{1,120}?)\.?(?=\n|$))?",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/core.py (shaped_abstractify: a value with no dtype); "
    "jax/_src/pjit.py (a jitted function's argument); https://docs.kidger.site/equinox/all-of-equinox/ (filtering)",
    confidence=0.8,
)
def not_an_array_given_to_jax(found: re.Match[str], failure: Failure) -> Lead:
    """JAX's transformations and optax take pytrees of arrays: a function, a module or a string among the leaves
    has no dtype to trace."""
    kind = found.group("type") or found.group("type2")
    path = (found.group("path") or "").strip()
    at = f" (at {path})" if path else ""
    return Lead(
        f"A value that is not an array, of {kind}{at}, was given to JAX where arrays are expected: an argument of a "
        "jitted, grad or vmap function, or a leaf of a pytree given to an optimizer (a function, a layer, a string). "
        "Mark a non-array argument static (static_argnums / static_argnames), or pass only the arrays: with Equinox, "
        "eqx.filter(model, eqx.is_array) to optax's init and update, and eqx.filter_jit / eqx.filter_grad for the "
        "transformations. Not an environment problem.",
        {"type": kind or "", "path": path, "option": "static_argnames", "filter": "eqx.filter(model, eqx.is_array)"},
        verdict="not-environment",
    )


@rule("user-code-error", _MORE_SHAPES, source=ATEN, confidence=0.8)
def more_shapes(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group(0)
    hint = (
        "torch.distributed is used before init_process_group() (run under torchrun, and call it first)"
        if "process group" in said
        else f"{said}: a collective of an NCCL process group was given CPU tensors. Move them to the rank's GPU, or "
        "create the group with a CPU backend as well (init_process_group('cpu:gloo,cuda:nccl'))"
        if "CUDA and dense" in said or "No backend type" in said
        else f"{said}: the ranks called different collectives (a branch on the rank or on its data). Every rank must "
        "call the same collectives, with the same shapes, in the same order"
        if "mismatch between collectives" in said
        else f"{said}: the code and its data (or checkpoint) do not fit together"
    )
    return Lead(yours(failure, hint[0].upper() + hint[1:] + "."), {"what": said}, verdict="not-environment")


# The syntax errors no version of Python 3 accepts (CPython's Grammar/python.gram, invalid_parameters and
# invalid_arguments; Python/symtable.c for a repeated parameter): not a file for another Python, a file written wrong.
# Whose defect it is follows from where the file is: the user's script, or a package's or a generator's file.
_NO_PYTHON_ACCEPTS = (
    r"non-default argument follows default argument|parameter without a default follows parameter with a default"
    r"|positional argument follows keyword argument(?: unpacking)?|duplicate argument '\w{1,80}' in function "
    r"definition|keyword argument repeated(?:: \w{1,80})?"
)
# where such a file's name is given in the message: "(UnslothGKDTrainer.py, line 632)", as SyntaxError's str() has it
_FILE_AND_LINE = re.compile(r"\((?P<file>[^()\n]{1,300}?\.py), line (?P<line>\d{1,7})\)")


@rule(
    "framework-internal-error",
    rf"(?P<said>{_NO_PYTHON_ACCEPTS})",
    source="https://github.com/python/cpython/blob/main/Grammar/python.gram (invalid_parameters, invalid_arguments); "
    "https://github.com/python/cpython/blob/main/Python/symtable.c (duplicate argument)",
    confidence=0.7,
)
def syntax_no_python_accepts(found: re.Match[str], failure: Failure) -> Lead | None:
    """A syntax error of a kind no Python 3 accepts: the file was written wrong, by the user (their script is the
    last frame) or by the package that ships or generates it (a file under site-packages, or one a library writes at
    run time, such as unsloth's compiled cache)."""
    said = found.group("said")
    where = failure.frames[-1] if failure.frames else None
    named = _FILE_AND_LINE.search(failure.haystack)
    if where is not None and where.user and named is None:
        return Lead(
            f"Your file {where.short()} has a syntax error no Python accepts ({said}): fix that line. Not an "
            "environment problem.",
            {"where": where.short(), "said": said},
            family="user-code-error",
            verdict="not-environment",
        )
    file = named.group("file") if named else (where.file if where is not None else "")
    if not file:
        return None
    owner = (where.owner if where is not None and not where.user else None) or installed_package(file)
    whose = owner or "the package that wrote it (a generated file: a library's cache of code it writes at run time)"
    return Lead(
        f"{file} has a syntax error no Python accepts ({said}): {whose} shipped or generated it wrong, a defect of "
        "that package, not of your install. Upgrade it to a release that fixes it (its issue tracker says which), "
        "or clear its cache of generated files so that it writes them anew.",
        {"file": file, "said": said, "package": owner or ""},
        verdict="framework-bug",
        next=("python -m pip list 2>/dev/null | head -100  # the releases of the packages that generate code",),
    )


# A configuration file that does not parse: PyYAML's scanner and parser errors (yaml/scanner.py, yaml/parser.py,
# yaml/constructor.py: the message, then `in "<file>", line N, column M`) and tomllib's (Lib/tomllib/_parser.py:
# "... (at line N, column M)"). The file's text is wrong where it says, not the parser: never the library's defect.
@rule(
    "user-code-error",
    r"yaml\.(?:scanner\.Scanner|parser\.Parser|constructor\.Constructor|composer\.Composer)Error: "
    r"(?P<said>[^\n]{1,200})"
    r"|(?:tomllib|tomli)\.TOMLDecodeError: (?P<toml>[^\n]{1,200})",
    source="https://github.com/yaml/pyyaml/blob/main/lib/yaml/scanner.py (ScannerError and its mark: in FILE, line, "
    "column); https://github.com/python/cpython/blob/main/Lib/tomllib/_parser.py (TOMLDecodeError)",
    confidence=0.85,
)
def config_file_does_not_parse(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group("said") or found.group("toml") or ""
    where = re.search(r'in "(?P<file>[^"\n]{1,300})", line (?P<line>\d+), column (?P<column>\d+)', failure.haystack)
    toml_at = re.search(r"\(at line (?P<line>\d+), column (?P<column>\d+)\)", said)
    at = (
        f" in {where.group('file')} at line {where.group('line')}, column {where.group('column')}"
        if where
        else f" at line {toml_at.group('line')}, column {toml_at.group('column')}"
        if toml_at
        else ""
    )
    kind = "TOML" if found.group("toml") else "YAML"
    return Lead(
        f"A {kind} file does not parse{at} ({said.strip()}): its text is wrong there (a colon in an unquoted value, "
        "a tab or a misaligned indent, an unclosed quote or bracket), not the parser. Fix that line (quote the "
        "value, align the indent with spaces). Not an environment problem.",
        {"file": where.group("file") if where else "", "line": where.group("line") if where else "", "format": kind},
        verdict="not-environment",
    )


# A training checkpoint saved as a dict around the weights ({"state_dict": ..., "epoch": ..., "optimizer": ...}) and
# given whole to load_state_dict: its bookkeeping keys are the "unexpected" ones (torch/nn/modules/module.py,
# load_state_dict's error), and one of them holds the weights.
_WRAPPING_KEYS = ("state_dict", "model_state_dict", "model", "module", "weight", "weights", "params", "net",
                  "network", "model_ema", "ema", "generator", "params_ema")  # fmt: skip
_BOOKKEEPING = frozenset(
    "epoch epochs iteration iterations iter step global_step optimizer optimizer_state_dict opt opt_g opt_d scheduler "
    "lr_scheduler best_acc best_loss loss args config hyper_parameters pytorch-lightning_version".split()
)


@rule(
    "user-code-error",
    r"Unexpected key\(s\) in state_dict: (?P<keys>\"[^\n]{1,600})",
    source="https://github.com/pytorch/pytorch/blob/main/torch/nn/modules/module.py (load_state_dict's missing and "
    "unexpected keys)",
    confidence=0.85,  # over more_shapes: it names the key to load
)
def checkpoint_wraps_its_weights(found: re.Match[str], failure: Failure) -> Lead | None:
    keys = re.findall(r'"([^"\n]{1,120})"', found.group("keys"))
    wrapper = next((k for k in _WRAPPING_KEYS if k in keys), None)
    if wrapper is None or not any(k in _BOOKKEEPING for k in keys) or any("." in k for k in keys):
        return None  # the weights' own names (layer.weight): a checkpoint of another model, not a wrapped one
    return Lead(
        f"The checkpoint is a training checkpoint, a dict around the weights (its keys {', '.join(keys[:6])}), and "
        f"it was given whole to load_state_dict: load the weights it holds, model.load_state_dict(checkpoint"
        f"[{wrapper!r}]). Not an environment problem.",
        {"key": wrapper, "keys": ", ".join(keys[:8])},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Attempting to unscale FP16 gradients",
    source="https://github.com/pytorch/pytorch/blob/main/torch/amp/grad_scaler.py (_unscale_grads_)",
    confidence=0.9,
)
def fp16_master_weights(found: re.Match[str], failure: Failure) -> Lead:
    """GradScaler unscales float32 gradients: parameters already in float16 (a model loaded or cast to half, then
    trained with fp16 mixed precision) have float16 gradients it refuses."""
    return Lead(
        "The model's parameters are float16, and fp16 mixed precision (GradScaler) needs float32 parameters: autocast "
        "runs the float16 math. Keep the model in float32 when training with fp16 (do not load it with "
        "torch_dtype=torch.float16 or call .half()), or train in bfloat16 without a GradScaler.",
        {"dtype": "float16 parameters", "option": "torch_dtype"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/cudagraph_trees.py (the check on a stale "
    "output of a CUDA graph)",
    confidence=0.9,
)
def cudagraph_output_overwritten(found: re.Match[str], failure: Failure) -> Lead:
    """mode="reduce-overhead" replays a CUDA graph into the same output buffers: an output kept past the next call
    (fed back into it, stored in a list) is overwritten by that call."""
    return Lead(
        "A tensor returned by a function compiled with CUDA graphs (torch.compile mode='reduce-overhead') was used "
        "after the next call of that function, which reuses its memory. Clone what you keep or feed back "
        "(`out.clone()`), or call torch.compiler.cudagraph_mark_step_begin() before each call.",
        {"call": "torch.compiler.cudagraph_mark_step_begin", "fix": "clone"},
        verdict="not-environment",
    )


@rule(
    "api-version-skew",
    r"A KerasTensor cannot be used? as input to a TensorFlow function|A KerasTensor cannot be use",
    source="https://github.com/keras-team/keras/blob/master/keras/src/backend/common/keras_tensor.py (__tf_tensor__)",
    confidence=0.8,
)
def keras_tensor_into_tf(found: re.Match[str], failure: Failure) -> Lead:
    """A symbolic KerasTensor (a Functional model's placeholder) reached a TensorFlow op. When the user's code called
    the TensorFlow op, that is the mistake; when a Keras op of keras/src/ops/ passed it on, Keras did (fixed upstream
    for ops.stop_gradient, keras-team/keras#20125)."""
    files = [f.file.replace("\\", "/") for f in failure.frames]
    if any("keras/src/ops/" in f for f in files):
        return Lead(
            "A Keras operation handed a symbolic KerasTensor straight to TensorFlow instead of building a symbolic "
            "operation: a bug of that keras.ops function (Keras 3), not of your model. Upgrade keras; until then, "
            "wrap the call in a Layer's call(), which runs on real tensors.",
            {"package": "keras"},
            family="framework-internal-error",
            verdict="framework-bug",
        )
    # tf.keras 2 wrapped a TensorFlow op on a symbolic tensor in a TFOpLambda layer; Keras 3 refuses it: code that
    # did this was written for Keras 2 (every development report with this message is settled so)
    return Lead(
        "A TensorFlow function was called on a KerasTensor, the symbolic placeholder of a Functional model: code "
        "written for Keras 2 (tf.keras before TensorFlow 2.16, which wrapped such calls in a layer) runs under "
        "Keras 3, which refuses them. Keep Keras 2 (pin tensorflow<2.16, or install the tf-keras of the installed "
        "TensorFlow and set TF_USE_LEGACY_KERAS=1), or port the code: the keras.ops equivalent, or the TensorFlow "
        "call inside a custom Layer's call().",
        {"package": "keras", "api": "keras.ops"},
        export("TF_USE_LEGACY_KERAS", "1", note="after installing the tf-keras of the installed TensorFlow's release"),
        family="api-version-skew",
        verdict="environment",
        next=("python -m pip show keras tensorflow tf-keras",),
    )


@rule(
    "user-code-error",
    r"Pointer argument \(at (?P<index>\d{1,3})\) (?:cannot be accessed from Triton|doesn't reference "
    r"(?P<xpu>XPU) device memory) \(cpu tensor\?\)",
    # triton/backends/nvidia/driver.py's launcher (and AMD's): the pointer is not device memory the current device
    # can reach; Intel's XPU backend says "doesn't reference XPU device memory"
    source="https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/driver.py (getPointer); "
    "https://github.com/intel/intel-xpu-backend-for-triton (third_party/intel/backend/driver.py)",
    confidence=0.85,
)
def triton_pointer(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("xpu"):
        return Lead(
            f"Argument {found.group('index')} of the Triton kernel is not memory of the Intel GPU (XPU) it launches "
            "on: a CPU tensor, most often. Move the tensors to the device (.to('xpu')). Not an environment problem.",
            {"argument": found.group("index"), "device": "xpu"},
            verdict="not-environment",
        )
    return Lead(
        f"Argument {found.group('index')} of the Triton kernel is memory the launching GPU cannot reach: a CPU "
        "tensor, or a tensor on another GPU than the current one (Triton launches on torch.cuda.current_device()). "
        "Move the tensors to the GPU, and wrap the call in `with torch.cuda.device(x.device):` (or "
        "torch.cuda.set_device). Not an environment problem.",
        {"argument": found.group("index"), "call": "torch.cuda.set_device"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"No available kernel\.\s+Aborting execution",
    # aten/src/ATen/native/transformers/cuda/attention.cu (_fused_sdp_choice): no SDPA backend allowed here takes
    # these inputs; each backend's refusal is printed as a warning before it (sdp_utils.cpp)
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/transformers/cuda/sdp_utils.cpp "
    "(the checks of each fused kernel, warned before the error)",
    confidence=0.7,
)
def sdpa_no_kernel(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        yours(
            failure,
            "scaled_dot_product_attention found no kernel that takes these inputs among the backends allowed here: "
            "the warnings printed just before it say why each refused (inputs not 4-D (batch, heads, seq, dim), "
            "a dtype, a head size, a mask, or a GPU the fused kernel was not built for). Fix the inputs (unsqueeze "
            "to 4-D, float16/bfloat16), or allow the math backend (torch.nn.attention.sdpa_kernel).",
        ),
        {"op": "scaled_dot_product_attention", "option": "torch.nn.attention.sdpa_kernel"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Only input tensors may be passed as positional arguments\. The following argument value should be passed as a "
    r"keyword argument: (?P<value>[^\n]{1,200})",
    # keras/src/layers/layer.py (Layer.__call__): Keras 3 refuses a non-tensor positional argument Keras 2 took
    source="https://github.com/keras-team/keras/blob/master/keras/src/layers/layer.py (Layer.__call__)",
    confidence=0.7,
)
def keras3_refuses_positional_value(found: re.Match[str], failure: Failure) -> Lead:
    """Deliberate in Keras 3 (its maintainers say so): the call is to change, which makes it the code's, even when
    the code was written for Keras 2 (tf.keras before TensorFlow 2.16, which installs Keras 3 as `keras`)."""
    return Lead(
        f"Keras 3 takes only tensors as a layer call's positional arguments: pass "
        f"{scrubbed_head(found.group('value'), 120)} as a "
        "keyword argument (call(x, training=True), not call(x, True)). Code written for Keras 2 (tf.keras before "
        "TensorFlow 2.16) passed it positionally; to run such code unchanged, keep Keras 2: install tf-keras and set "
        "TF_USE_LEGACY_KERAS=1 before TensorFlow is imported, or pin tensorflow<2.16.",
        {"value": scrubbed_head(found.group("value"), 200), "package": "keras", "variable": "TF_USE_LEGACY_KERAS"},
        verdict="not-environment",
    )


# Device types that an extension package adds to torch: the name is right, the extension is not loaded
# (each renames torch's PrivateUse1 backend to its own name; AWS Neuron and TPUs are torch_xla's devices instead)
_EXTENSION_DEVICES = {"npu": "torch_npu (Ascend)", "mlu": "torch_mlu (Cambricon)", "musa": "torch_musa (Moore Threads)"}


@rule(
    "user-code-error",
    r"Expected one of [\w, ]{10,400} device type at start of device string: (?P<device>[^\s'\"]{1,40})",
    # c10/core/Device.cpp (parse_type): the device string's type is none torch knows
    source="https://github.com/pytorch/pytorch/blob/main/c10/core/Device.cpp (parse_type)",
    confidence=0.85,
)
def device_type_unknown(found: re.Match[str], failure: Failure) -> Lead:
    device = found.group("device")
    extension = _EXTENSION_DEVICES.get(device.lower())
    if extension is not None:
        return Lead(
            f"torch knows no device type '{device}' in this process: it is added by {extension}, which is not "
            "installed here or not imported (import it after torch; with TORCH_DEVICE_BACKEND_AUTOLOAD=0 torch does "
            "not load it by itself).",
            {"device": device, "package": extension.split(" ")[0]},
            verdict="environment",
            family="accelerator-unavailable",
        )
    return Lead(
        f"'{device}' is not a device type torch knows: torch's are lower case, 'cuda' (also for ROCm), 'cpu', 'mps', "
        "'xpu'; a TPU or AWS Neuron device is torch_xla's (torch_xla.device(), with PJRT_DEVICE set), and a "
        "library's own 'auto' or 'gpu' must be "
        "turned into one of them before torch sees it. Not an environment problem: the code (or a config value) "
        "that chose the device.",
        {"device": device},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"probability tensor contains either `?inf`?, `?nan`? or element < 0",
    # aten/src/ATen/native/Distributions.cpp (multinomial's check of its input): sampling from logits that overflowed
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/Distributions.cpp (multinomial)",
    confidence=0.75,
)
def sampled_from_inf_or_nan(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Sampling (torch.multinomial, a model's generate()) was given probabilities with inf or NaN in them: the "
        "model's logits overflowed, most often because it runs in float16 (load it with torch_dtype=torch.bfloat16 "
        "on a GPU that has bf16, or torch.float32), or its weights are broken by a bad quantization, merge or "
        "checkpoint. Not an environment problem: the dtype or weights the code chose.",
        {"op": "multinomial", "dtype": "bfloat16"},
        verdict="not-environment",
        next=("python -c 'import torch; print(torch.cuda.is_bf16_supported())'",),
    )


@rule(
    "user-code-error",
    r"mixed dtype \(CPU\): expect (?P<what>parameter|input) to have scalar type of (?P<dtype>\w{1,20})",
    # aten/src/ATen/native/cpu/mixed_data_type.h (check_mixed_data_type): a CPU kernel's input and parameters differ
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cpu/mixed_data_type.h",
    confidence=0.75,
)
def mixed_dtype_on_cpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"A CPU kernel got its input and its parameters in different dtypes (it expects the {found.group('what')} "
        f"in {found.group('dtype')}): the model runs on the CPU in half or bfloat16 precision where it was meant to "
        "run on the GPU (model.cuda() / .to('cuda') missing, or the input on another device), or the model and its "
        "input were given different dtypes. Not an environment problem: your code.",
        {"dtype": found.group("dtype")},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Failed to convert a NumPy array to a Tensor "
    r"\((?P<what>Unsupported object type (?P<type>[\w.]{1,60})|[^)\n]{1,160})\)",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/framework/constant_op.py "
    "(convert_to_eager_tensor: a NumPy array TensorFlow cannot hold, an array of dtype object)",
    confidence=0.8,
)
def numpy_object_array_to_tensor(found: re.Match[str], failure: Failure) -> Lead:
    """A NumPy array of dtype object (a DataFrame with a text or mixed column, lists of unequal lengths, None among
    the numbers) reached TensorFlow, which holds only arrays of one numeric (or string) dtype."""
    kind = found.group("type")
    held = f"Python {kind} objects" if kind else "Python objects"
    return Lead(
        yours(
            failure,
            f"TensorFlow was given a NumPy array of dtype object ({found.group('what')}): an array holding {held}, "
            "which is what a DataFrame with a text or mixed column, None among the numbers, or lists of unequal "
            "lengths turn into. Convert the data to one numeric dtype first (x.astype(np.float32); encode text "
            "columns; pad sequences to one length).",
        ),
        {"what": found.group("what"), "fix": "astype(np.float32)"},
        verdict="not-environment",
    )


@rule(
    "api-version-skew",
    r"JAX array with PRNGKey dtype cannot be converted to a NumPy array",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/prng.py (PRNGKeyArray.__array__); "
    "https://docs.jax.dev/en/latest/jep/9263-typed-keys.html (typed keys, jax.random.key, and key_data)",
    confidence=0.7,
)
def typed_prng_key_to_numpy(found: re.Match[str], failure: Failure) -> Lead:
    """A typed PRNG key (jax.random.key, which newer JAX and the libraries on it hand out) reached NumPy. Code of a
    library that does so was written for the raw uint32 keys of jax.random.PRNGKey; the user's own is told how."""
    frame = failure.last_frame
    if frame is not None and (frame.user or frame.owner in ("numpy", "python", None)) and failure.user_frame:
        return Lead(
            yours(
                failure,
                "A typed PRNG key (jax.random.key) was converted to a NumPy array, which JAX refuses: take its "
                "integer words with jax.random.key_data(key) first, or make the key with jax.random.PRNGKey.",
            ),
            {"call": "jax.random.key_data"},
            family="user-code-error",
            verdict="not-environment",
        )
    owner = frame.owner if frame is not None and frame.owner not in (None, "python", "numpy") else "a library"
    return Lead(
        f"{owner} converts a JAX PRNG key to a NumPy array, which only the raw uint32 keys of "
        "jax.random.PRNGKey allow: it was written for those, and it was handed a typed key (jax.random.key, what "
        "newer JAX and the libraries on it make). Install the release of it made for typed keys, or give it "
        "jax.random.key_data(key) (or a key from jax.random.PRNGKey).",
        {"package": owner if owner != "a library" else "", "call": "jax.random.key_data", "jax": "typed keys"},
        verdict="environment",
        confidence=None if frame is not None else 0.55,  # no traceback: whose code it was is not shown
        next=("python -m pip list 2>/dev/null | grep -i -e jax -e flax -e numpyro",),
    )


@rule(
    "framework-internal-error",
    r"'(?P<wrapper>DataParallel|DistributedDataParallel)' object has no attribute '(?P<attr>\w{1,80})'",
    source="https://docs.pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html (the "
    "wrapped model is its .module; the wrapper does not pass other attributes on); "
    "https://huggingface.co/docs/accelerate/package_reference/accelerator (Accelerator.unwrap_model); "
    "https://github.com/huggingface/diffusers/pull/3673 (an example script's fix)",
    confidence=0.75,
)
def wrapper_hides_the_model(found: re.Match[str], failure: Failure) -> Lead | None:
    """DataParallel and DistributedDataParallel wrap the model and forward only forward(): its own methods and
    attributes (generate, config, a custom head) are on .module. The code that reads them through
    DistributedDataParallel, which a launcher's several processes bring (accelerate, torchrun), is most often a
    project's training script that was tried on one GPU only (diffusers' examples, trainers: the development part's
    reports settled 7 of 8 so, each fixed upstream by unwrapping); nn.DataParallel is a wrapping the code asks for
    itself, on one GPU too, and reads as that code's own mistake."""
    wrapper, attr = found.group("wrapper"), found.group("attr")
    if attr.startswith("_"):
        return None  # a private attribute of the wrapper itself (DDP's _sync_params): a library of another torch
    reader = next((f for f in reversed(failure.frames) if f.owner not in ("torch", "python")), None)
    if reader is not None and reader.owner is not None:
        return Lead(
            f"{reader.owner}'s code reads {attr} on a model wrapped in {wrapper} ({reader.short()}), and the wrapper "
            f"passes on only forward(): a bug of {reader.owner} (the wrapped model is .module), which later releases "
            f"of it may have fixed. Upgrade {reader.owner}, or search its tracker for the attribute. Not an "
            "environment problem.",
            {"wrapper": wrapper, "attribute": attr, "package": reader.owner},
            verdict="framework-bug",
            next=(f"python -m pip show {shlex.quote(reader.owner)}",),
        )
    frame = failure.user_frame
    pattern = shlex.quote(rf"\.{attr}\b")
    look = (f"grep -n {pattern} {shlex.quote(frame.file)}  # where the script reads it",) if frame is not None else ()
    if wrapper == "DataParallel":
        return Lead(
            yours(
                failure,
                f"{attr} is an attribute of the model that DataParallel wraps, and the wrapper passes on only "
                f"forward(): call it on the wrapped model, model.module.{attr} (or keep a reference to the model from "
                "before wrapping it).",
            ),
            {"wrapper": wrapper, "attribute": attr, "fix": f"model.module.{attr}"},
            verdict="not-environment",
            family="user-code-error",
            next=look,
        )
    where = f" ({frame.short()})" if frame is not None else ""
    diffusers = "diffusers" in failure.code_shown.lower() or any("diffusers" in f.file.lower() for f in failure.frames)
    whose = "Diffusers' example training scripts" if diffusers else "Projects' training scripts"
    return Lead(
        f"The script reads {attr} on a model wrapped in {wrapper}{where}, and the wrapper passes on only forward(): "
        "a bug of that script, which shows when the model is wrapped, as it is when the script runs in several "
        f"processes (accelerate launch or torchrun on more than one GPU). {whose} have had it and fixed it by "
        f"unwrapping the model (accelerator.unwrap_model(model).{attr} under Accelerate, model.module.{attr} "
        "otherwise): update the "
        "project's script to its fixed release; in code of your own, unwrap the model where it reads it. Not an "
        "environment problem.",
        {"wrapper": wrapper, "attribute": attr, "fix": f"accelerator.unwrap_model(model).{attr}"},
        verdict="framework-bug",
        next=look,
    )


@rule(
    "user-code-error",
    r"Memory growth cannot differ between GPU devices|(?P<kind>Physical|Virtual) devices cannot be modified after "
    r"being initialized|Visible devices cannot be modified after being initialized",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/eager/context.py (the device "
    "configuration is fixed when the runtime starts: set_memory_growth, set_visible_devices, "
    "set_logical_device_configuration)",
    confidence=0.85,
)
def tf_devices_configured_too_late(found: re.Match[str], failure: Failure) -> Lead:
    """TensorFlow fixes its devices when its runtime starts (the first op, tf.config.list_logical_devices, a model
    built): their configuration must come first, and memory growth must be set alike on every GPU."""
    said = found.group(0)
    hint = (
        "set memory growth on every GPU alike (for gpu in tf.config.list_physical_devices('GPU'): "
        "tf.config.experimental.set_memory_growth(gpu, True)), or set TF_FORCE_GPU_ALLOW_GROWTH=true"
        if said.startswith("Memory growth")
        else "configure TensorFlow's devices (memory growth, visible devices, logical devices) right after importing "
        "it, before any op, model or device listing starts its runtime"
    )
    return Lead(
        yours(failure, f"{said}: {hint}."),
        {"what": said, "variable": "TF_FORCE_GPU_ALLOW_GROWTH"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"An attempt has been made to start a new process before the\s+current process has finished its bootstrapping "
    r"phase",
    # CPython's multiprocessing/spawn.py (_check_not_importing_main): with the spawn start method (Windows, macOS)
    # each child imports the main module again, and a main module without a __main__ guard starts children there
    source="https://docs.python.org/3/library/multiprocessing.html#the-spawn-and-forkserver-start-methods (Safe "
    "importing of main module)",
    confidence=0.85,
)
def spawn_without_main_guard(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        yours(
            failure,
            "A child process (a DataLoader worker with num_workers > 0, a multiprocessing pool) imported the main "
            "script again, as the spawn start method does on Windows and macOS, and the script started processes at "
            "import. Put the script's entry point under `if __name__ == '__main__':` (or use num_workers=0).",
        ),
        {"option": "if __name__ == '__main__'"},
        verdict="not-environment",
    )


# torch_xla's bridge from ATen to its own tensors (torch_xla/csrc/aten_xla_bridge.cpp: "Input tensor is not an XLA
# tensor: " with the tensor's type): an op on the XLA device got a tensor that is still on the CPU, most often a
# module's weights never moved to the device, since "input" means any tensor the op takes
@rule(
    "user-code-error",
    r"Input tensor is not an XLA tensor: (?P<type>[\w.]{1,60})"
    # the same bridge's device check (XLA_CHECK_EQ(device.type(), at::kXLA)), printed with the device it got
    r"|Check failed: device\.type\(\) == at::kXLA \((?P<device>cpu) vs\. xla\)",
    source="https://github.com/pytorch/xla/blob/master/torch_xla/csrc/aten_xla_bridge.cpp",
    confidence=0.85,
)
def tensor_left_on_the_cpu(found: re.Match[str], failure: Failure) -> Lead:
    what = found.group("type") or "tensor (or a device argument) on the CPU"
    return Lead(
        yours(
            failure,
            f"An operation on the XLA device was given a {what} that is not on the XLA device: every tensor it takes "
            "counts, a module's weights included, and so does a device passed to it (a collective's device=). Move "
            "the model as well as the data to the device (model.to(xm.xla_device()), or torch_xla.device() in "
            "torch_xla 2.5+).",
        ),
        {"type": found.group("type") or found.group("device"), "call": "xla_device"},
        verdict="not-environment",
    )

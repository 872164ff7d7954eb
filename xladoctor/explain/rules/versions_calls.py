"""Calls written for another release: a keyword argument the installed callee does not take (or no longer takes), an
argument given twice, a signature that changed; read, where it can be, from the parameters each release of a
library's classes and functions took (compat_matrix/failures/api-history.json, from the wheels). The modules and
attributes a release lacks are versions.py's."""

from __future__ import annotations

import re

from xladoctor.explain.records import IMPORT_ALIASES, Failure, Frame
from xladoctor.explain.rules import KNOWN_IMPORTS, LOCAL_TOPS, Lead, distribution_named, rule
from xladoctor.explain.rules.versions import (
    REMOTE_CODE,
    callee_package,
    calling_package,
    instead_of_pinning,
    log_names,
    other_parties,
    top_of,
)
from xladoctor.fix import install
from xladoctor.matrix.failures import (
    ParameterHistory,
    history_classes,
    parameter_history,
)


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{1,200})\(\) got an unexpected keyword argument '(?P<name>\w{1,100})'",
    source="https://github.com/python/cpython/blob/main/Python/ceval.c (unexpected keyword argument)",
    confidence=0.6,
    # a line too: the message quoted without its exception type ("load() got an unexpected keyword argument
    # 'backend'"), which the development part's threads settle as a release question every time
)
def unexpected_keyword(found: re.Match[str], failure: Failure) -> Lead | None:
    call, name = _markdown_constructor(found.group("call"), failure), found.group("name")
    caller = calling_package(failure)
    if not failure.frames and re.fullmatch(r"\w*Config\.__init__", call):
        # a library's configuration class given a key it does not know: a config file (adapter_config.json,
        # config.json) saved by a newer release of that library, read by the older one installed
        return Lead(
            f"{call}() does not take {name}=: a configuration saved by a newer release of its library (peft's "
            "adapter_config.json, a model's config.json) is read by the older release installed here. Upgrade that "
            "library to the release that wrote the file.",
            {"call": call, "name": name},
            verdict="environment",
            confidence=0.7,
        )
    if (saved := _saved_by_another_release(call, name, failure)) is not None:
        return saved
    if caller is None or caller == "python":
        return _keyword_another_release_refused(call, name, failure)
    override = _overridden_by_a_subclass(call, name, caller, failure)
    if override is not None:
        return override
    return Lead(
        f"{caller} calls {call}() with {name}=, which the installed version of the callee does not take: {caller} "
        f"was written for another release of the library it calls.",
        {"call": call, "name": name, "caller": caller, "package": callee_package(call)},
        verdict="environment",
    )


def _markdown_constructor(call: str, failure: Failure) -> str:
    """`Class.init` as a Markdown post shows `Class.__init__` (the underscores made it bold), read back as the
    constructor; a method named init (Flax's Module.init) that the code shown calls so is left as it is."""
    cls, _, method = call.rpartition(".")
    if method != "init" or not cls[:1].isupper() or "." in cls:
        return call
    return call if _calls_a_method_named_init(failure) else f"{cls}.__init__"


def _calls_a_method_named_init(failure: Failure) -> bool:
    return any(re.search(r"\.init\(", frame.code) for frame in failure.frames)


def _overridden_by_a_subclass(call: str, keyword: str, caller: str, failure: Failure) -> Lead | None:
    """A library calling a method on its own object (`self._load_sbert_model(..., token=token)`) that the class the
    message names does not take the keyword in: Python names the class that defines the method, so that class is an
    override's (INSTRUCTOR of InstructorEmbedding, a Trainer of the user's) whose signature is of another release of the
    library. Not when the class is a framework's base class (torch's Module, Keras' Layer): then the library was
    written for another release of that framework (the reading after this one); nor for a model's remote code."""
    cls, _, method = call.rpartition(".")
    frame = next((f for f in reversed(failure.frames) if f.owner == caller), None)
    if not cls or frame is None or caller == REMOTE_CODE or cls.rsplit(".", 1)[-1] in _FRAMEWORK_BASES:
        return None
    if not re.search(rf"\bself\.{re.escape(method)}\(", frame.code):
        return None
    dist = distribution_named(caller)
    return Lead(
        f"{caller} calls {method}() on its own object with {keyword}= ({frame.short()}), and the object is a {cls}, "
        f"whose {method}() does not take it: {cls} is a subclass (from another package, or your own code) that "
        f"overrides {method}() with the signature of another release of {caller} (most often an older one). Install "
        f"the {dist} release {cls} was written for, or a release of {cls}'s package made for this {dist} (in your own "
        f"subclass: add {keyword}=None, or **kwargs, to the override).",
        {"call": call, "name": keyword, "caller": caller, "class": cls, "package": dist},
        verdict="environment",
        next=(f"python -m pip show {dist}",),
    )


# The base classes of the frameworks, whose methods a library's subclass inherits: a keyword one of them does not
# take is the framework's release, not an override (Module.register_buffer(persistent=) on a torch before 1.6)
_FRAMEWORK_BASES = frozenset({
    "Module", "Layer", "Model", "Sequential", "Optimizer", "Dataset", "DataLoader", "Function", "Tensor",
    "PreTrainedModel", "PretrainedConfig", "PreTrainedTokenizerBase", "ModelMixin", "ConfigMixin", "DiffusionPipeline",
})  # fmt: skip


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{1,200})\(\) got multiple values for (?P<keyword>keyword )?argument '(?P<name>\w{1,100})'",
    source='https://github.com/python/cpython/blob/main/Python/ceval.c ("got multiple values for argument": a '
    'parameter filled by position and named again; "for keyword argument": named and also in a **dict, the message '
    "naming the function with its module)",
    confidence=0.6,
    on="exception",
)
def multiple_values_for_argument(found: re.Match[str], failure: Failure) -> Lead | None:
    """A parameter given twice. By position and by name: the caller's positional arguments were laid out for a
    signature of another order (a parameter inserted or removed before it). By name and inside a **dict: the caller
    names it and also forwards options that hold it (options that gained it in another release, or the user's own
    options repeating it). In a library's call, or a framework's function with no traceback to say whose call, a
    release question; in the user's own call, the user's to change."""
    call, name, keyword = found.group("call"), found.group("name"), bool(found.group("keyword"))
    caller, package = calling_package(failure), callee_package(call)
    installed = failure.installed_library  # a name pip knows: the only one `pip show` may be given
    shown = tuple(f"python -m pip show {p}" for p in dict.fromkeys((installed, package)) if p)
    how, moved, yours = (
        (
            f"named {name}= and also forwarded a **dict of options that holds {name}",
            f"the options it forwards gained {name} in another release",
            f"if the **dict is yours (model_kwargs=, **config), drop {name} from it",
        )
        if keyword
        else (
            f"passed {name} by position and again by name",
            f"a parameter moved before {name}",
            "if the call is your own, pass its arguments by keyword",
        )
    )
    if failure.frames and caller not in (None, "python"):
        return Lead(
            f"{caller}'s call of {call}() {how}: {caller} and {package or 'the library it calls'} are of releases that "
            f"do not pair ({moved}). Install the releases they were written for together; {yours}.",
            {"call": call, "name": name, "caller": caller, "package": package},
            verdict="environment",
            confidence=0.5 if keyword else 0.6,
            next=shown,
        )
    if failure.frames or not package or package in _NOT_MODULES:
        return None  # the user's own call, or a call of a function Python's message does not place in a package
    return Lead(
        f"{call}() got {name} twice (its caller {how}), and the log shows no traceback to say who called it: most "
        f"often code written for another release of {package} or of a library around it ({moved}); {yours}.",
        {"call": call, "name": name, "package": package},
        verdict="environment",
        confidence=0.5,
        next=shown,
    )


@rule(
    "api-version-skew",
    r"Argument\(s\) not recognized: \{'(?P<name>\w{1,60})'",
    source="https://github.com/keras-team/keras/blob/master/keras/src/optimizers/base_optimizer.py "
    "(BaseOptimizer.__init__ refuses what Keras 2 took: lr, and the rest of **kwargs)",
    confidence=0.8,
    on="exception",
)
def keras3_optimizer_argument(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("name")
    instead = " (Keras 3 spells it learning_rate=)" if name == "lr" else ""
    # lr= is Keras 2's own name (Keras 3 dropped the alias); another keyword may be a typo as well
    written = "the code was written for Keras 2" if name == "lr" else "most often, code written for Keras 2"
    legacy = instead_of_pinning("keras", "3", name)
    return Lead(
        f"A Keras 3 optimizer refuses {name}={instead}: {written} (tf.keras before TensorFlow 2.16), and the Keras "
        f"installed is 3. Write the Keras 3 argument.{legacy[0] if legacy else ''}",
        {"name": name, "package": "keras"},
        legacy[1] if legacy else None,
        verdict="environment",
        next=("python -m pip show keras tensorflow",),
    )


_UPPER_ALIASES = "|".join(alias for alias in IMPORT_ALIASES if alias[:1].isupper())  # a module path starts lower


# Names that start a dotted call without being a module: an object's attribute (`self.model.generate(`).
_NOT_MODULES = frozenset({"self", "cls", "super", "model", "models", "pipe", "pipeline", "trainer", "args", "config"})


def _saved_by_another_release(call: str, name: str, failure: Failure) -> Lead | None:
    """A class's constructor refusing a keyword that `Class.from_pretrained(...)` handed it: from_pretrained (the
    convention of transformers, diffusers, peft and sentence-transformers) builds the object from the files saved
    with a model (config.json, processor_config.json, tokenizer_config.json), so the key came from those files, saved
    by another (most often newer) release of the library, not from the line that called it."""
    cls = call.removesuffix(".__init__")
    if cls == call or "." in cls:
        return None
    # the frame whose line calls Class.from_pretrained: the user's (a traceback cut there) or the last of any; the
    # model's name when the call gives it as a literal
    calling = re.compile(
        rf"(?<![\w.]){re.escape(cls)}\.from_pretrained\((?:\s*(?P<q>['\"])(?P<model>[\w./-]{{1,200}})(?P=q))?"
    )
    called = next(((f, m) for f in reversed(failure.frames) if (m := calling.search(f.code))), None)
    if called is None:
        return None
    frame, named = called
    model = f" {named.group('model')}" if named.group("model") else ""
    return Lead(
        f"{cls}.from_pretrained() built {cls} from the files saved with the model{model} (its config.json, "
        f"processor_config.json or tokenizer_config.json), and {cls}() does not take {name}=, a key of those files: "
        f"they were saved by another release of the library that defines {cls} (transformers, diffusers, ...), most "
        "often a newer one than the release installed here. Upgrade that library to the release the model's files "
        "were written for (its model card or config.json's 'transformers_version' says which), or pin the model's "
        "revision= to files saved for the installed release.",
        {"call": call, "name": name, "class": cls, "where": frame.short(), "model": model.strip()},
        verdict="environment",
        confidence=0.75,
        next=("python -m pip show transformers diffusers 2>/dev/null | grep -E '^(Name|Version)'",),
    )


# A function's own name as Python's message gives it (lower case, not a dunder), and the callables a user's classes
# define themselves (an nn.Module's forward, a Keras layer's call): refused keywords there are the user's own.
_PLAIN_FUNCTION = re.compile(r"[a-z][a-z0-9_]*")


_OWN_CALLABLES = frozenset({"forward", "call", "step", "training_step", "validation_step", "predict", "run", "main"})


def _aliased_callee(call: str, callee: str, name: str, frame: Frame) -> Lead | None:
    """The user's line passes name= to a function it calls by another name than the one Python's message gives
    (`attn(q, k, v, scale=s)` refused as scaled_dot_product_attention()): a function imported under an alias
    (`from torch.nn.functional import scaled_dot_product_attention as attn`), a library's, not one the line defines;
    its own function or a library's reached through an object is judged as user code."""
    if "." in call or not _PLAIN_FUNCTION.fullmatch(callee) or callee in _OWN_CALLABLES:
        return None  # a class's constructor, a method, a module's forward(): what the user's own classes define
    called = [c for c in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", frame.code) if c not in _NOT_MODULES]
    if not re.search(rf"\b{re.escape(name)}\s*=", frame.code) or len(called) != 1 or called[0] == callee:
        return None
    alias = called[0]
    return Lead(
        f"Your code at {frame.short()} calls {callee}() under the name {alias} (an import with `as`) with {name}=, "
        f"which the installed release of the library that defines {callee} does not take: the code was written for "
        f"another release of it (a parameter added or removed since). Install the release the code was written for "
        f"(its requirements file says which), or drop {name}= if it is a typo.",
        {"call": call, "name": name, "alias": alias, "where": frame.short()},
        verdict="environment",
        confidence=0.6,
        next=("python -m pip list 2>/dev/null",),
    )


def _keyword_another_release_refused(call: str, name: str, failure: Failure) -> Lead | None:
    """A keyword refused where no library's frame made the call: at the user's own line, read as another package's
    release when that line calls the callee through a module path (`faster_whisper.transcribe.TranscriptionOptions(`);
    with no traceback at all, read so with less confidence (in the corpus's threads it is a release question, not a
    typo, every time). A class api-history.json knows is left to its history (a keyword no release took: a typo)."""
    owner = call.split(".", 1)[0] if "." in call else ""
    callee = owner if owner and owner[:1].isupper() else call.rsplit(".", 1)[-1]
    if callee in history_classes():
        return None
    frame = failure.last_frame
    if frame is not None:
        module = rf"(?P<module>(?:[a-z_]\w*|{_UPPER_ALIASES})(?:\.[a-z_]\w*)*)"
        found = re.search(rf"(?<![\w.]){module}\.{re.escape(callee)}\s*\(", frame.code)
        if found is None:
            return _aliased_callee(call, callee, name, frame)
        top = IMPORT_ALIASES.get(top_of(found.group("module")), top_of(found.group("module")))
        distribution = distribution_named(top)
        if top in _NOT_MODULES or top in LOCAL_TOPS or (not callee[:1].isupper() and top not in KNOWN_IMPORTS):
            return None
        return Lead(
            f"Your code at {frame.short()} calls {found.group('module')}.{callee}() with {name}=, which the installed "
            f"{top} does not take: the code was written for another release of {top} (a parameter added or removed "
            f"since). Install the release the code was written for, or drop {name}= if it is a typo.",
            {"call": call, "name": name, "package": distribution, "where": frame.short()},
            verdict="environment",
            confidence=0.7,
            next=(f"python -m pip show {distribution}",),
        )
    if failure.frames:
        return None
    if failure.kind == "line" and (call.rsplit(".", 1)[-1] in _OWN_CALLABLES or call.endswith("__")):
        return None  # quoted without a traceback, forward() or __init__() is as likely the user's own class
    package = callee_package(call)
    whose = package or f"the library that defines {call}"
    return Lead(
        f"{call}() does not take {name}=, and the log shows no traceback to say who called it: most often the code "
        f"was written for another release of {whose} (a parameter added or removed since); if the call is your own, "
        "check the keyword against the installed release's documentation.",
        {"call": call, "name": name, "package": package},
        verdict="environment",
        confidence=0.5,
        next=("python -m pip list 2>/dev/null",),
    )


@rule(
    "api-version-skew",
    r"(?P<call>[\w.]{1,200})\(\) (?:takes (?:from \d+ to )?(?P<takes>\d+) positional arguments? but (?P<given>\d+) "
    r"(?:were|was) given"
    r"|missing (?P<missing>\d+) required positional arguments?: (?P<names>[^\n]{1,200}))",
    source="https://github.com/python/cpython/blob/main/Python/ceval.c (too many positional arguments, missing "
    "required argument)",
    confidence=0.6,
    on="exception",
)
def call_signature_changed(found: re.Match[str], failure: Failure) -> Lead | None:
    """unexpected_keyword's kin: a library calls a function with a number of arguments it does not take, which is
    one library written for another release of another (a method that gained or lost a parameter)."""
    call = found.group("call")
    caller = calling_package(failure)
    if caller is None or caller == "python":
        return None  # the user's own call: a mistake of theirs, judged as user code
    what = (
        f"with {found.group('given')} positional arguments where it takes {found.group('takes')}"
        if found.group("takes")
        else f"without {found.group('names').strip()}"
    )
    return Lead(
        f"{caller} calls {call}() {what}: the two sides were written for different releases ({caller}, or the "
        f"package that defines {call}, is newer than the other){other_parties(failure, caller)}. Install the releases "
        f"made for each other: upgrade {caller}, or pin the other to the version {caller} was written for.",
        {"call": call, "caller": caller, "package": callee_package(call)},
        verdict="environment",
        next=("python -m pip list 2>/dev/null | head -100",),
    )


# Where Python names no class ("__init__() got an unexpected keyword argument", before 3.10), the call line does.
_CALLED_CLASS = re.compile(r"\b([A-Z]\w{2,60})\s*\(")


# Class names people also give classes of their own: without the library in the log, a verdict on them is less sure.
_GENERIC_CLASS_NAMES = frozenset({"Trainer", "Accelerator", "BaseTrainer"})


def _called_class(failure: Failure, named: str | None) -> str | None:
    """The class whose constructor refused the keyword: Python's message names it from 3.10 on; before, the call
    on the last frame's line does (only that line: the frames above called something else)."""
    if named:
        return named
    frame = failure.last_frame
    if frame is None or "super(" in frame.code:
        return None  # a base class's __init__ called through super(): which one is not shown
    known = history_classes()
    name: str
    for name in _CALLED_CLASS.findall(frame.code):
        if name in known:
            return name
    return None


def _history_pick(
    found: list[ParameterHistory], failure: Failure, named_callable: bool = False
) -> tuple[ParameterHistory | None, bool, list[str]]:
    """The package whose class it is, whether the log shows it, and the other packages that fit as well: the one the
    log shows, else the packages whose releases changed that parameter, when they all changed it alike (Lightning's
    two package names); a class of the user's own with that name is left to the facts to rule out.

    A release that takes **kwargs does not refuse an unknown name, so such a history is not read, except for a
    function the message names itself (`FluxPipeline.__call__()`) whose parameter was added: the refusal shows the
    installed release has neither, and the release that added it is the fix whatever later ones take."""
    changed = [
        h for h in found
        if (h.removed or h.added) and (not h.var_keyword or (named_callable and h.added and not h.removed))
    ]  # fmt: skip
    named = [h for h in changed if log_names(h.package, failure)]
    if named:
        return named[0], True, []
    alike = {(h.removed, h.added, h.first if h.added else "", h.next_series) for h in changed}
    if len(alike) != 1:
        return None, False, []  # none changed it (every release takes it: not a release question), or they disagree
    return changed[0], False, [h.package for h in changed[1:]]


@rule(
    "api-version-skew",
    # ("Config.init()": Markdown made the underscores of __init__ bold in a post; a method named init is read apart)
    r"(?:(?P<cls>[A-Z]\w{1,100})\.)?(?P<method>__init__|(?<=\.)init)\(\) got an unexpected keyword argument "
    r"'(?P<name>\w{1,100})'",
    source="compat_matrix/failures/api-history.json (the first release of each minor series: constructor signatures "
    "and dataclass fields, read from the wheels by scripts/api_history.py)",
    confidence=0.85,
    on="exception",
)
def constructor_parameter_history(found: re.Match[str], failure: Failure) -> Lead | None:
    """A constructor refusing a keyword its library took in other releases (trl's SFTTrainer and tokenizer=,
    Lightning's Trainer and gpus=): code written for another release of that library. Raised at the user's own call,
    the traceback alone reads as their typo; the library's release history says otherwise."""
    if found.group("method") == "init" and _calls_a_method_named_init(failure):
        return None  # a method named init (Flax's Module.init), called so in the code shown: no constructor
    cls = _called_class(failure, found.group("cls"))
    name = found.group("name")
    picked, shown, also = _history_pick(parameter_history(cls, name), failure) if cls else (None, False, [])
    return _history_lead(picked, shown, also, failure) if picked is not None else None


@rule(
    "api-version-skew",
    r"(?P<call>[A-Za-z_][\w.]{0,200})\(\) got an unexpected keyword argument '(?P<name>\w{1,100})'",
    source="compat_matrix/failures/api-history.json (the first release of each minor series: function and method "
    "signatures, read from the wheels by scripts/api_history.py)",
    confidence=0.85,
    on="exception",
)
def callable_parameter_history(found: re.Match[str], failure: Failure) -> Lead | None:
    """constructor_parameter_history's kin for functions and methods (huggingface_hub's hf_hub_download, a
    diffusers pipeline's __call__): looked up by the qualified name Python's message gives them."""
    call = found.group("call")
    if call.endswith("__init__"):
        return None  # a constructor: constructor_parameter_history reads it
    picked, shown, also = _history_pick(parameter_history(call, found.group("name")), failure, named_callable=True)
    if picked is not None and not shown and _COMMON_FUNCTION_NAME.fullmatch(call):
        return None  # jit, vmap, grad, checkpoint: torch, numba and others have their own; only with jax in the log
    return _history_lead(picked, shown, also, failure) if picked is not None else None


# A module function's bare name that other libraries use too (jax's jit and torch.jit, jax's vmap and torch.vmap):
# one word, no underscore or dot. hf_hub_download or StableDiffusionPipeline.__call__ say whose they are.
_COMMON_FUNCTION_NAME = re.compile(r"[a-z]+")


def _history_lead(picked: ParameterHistory, shown: bool, also: list[str], failure: Failure) -> Lead:
    """What a refused keyword means, by the release history of the class or function that refused it."""
    cls, name = picked.cls, picked.parameter
    frame = failure.last_frame
    if frame is not None and not frame.user and frame.owner not in (None, "python"):
        caller = (
            f"{frame.owner}'s code at {frame.short()} (a release of {frame.owner} made for another {picked.package})"
        )
    elif frame is not None:
        caller = f"your code at {frame.short()}"
    else:
        caller = "the calling code"
    package, renamed, first, last, after = picked.package, picked.renamed_to, picked.first, picked.last, ""
    whose = f"{package}'" if package.endswith("s") else f"{package}'s"  # diffusers' pipeline, trl's trainer
    params = {"package": package, "class": cls, "name": name, "first": first, "last": last, "latest": picked.latest}
    if picked.removed and picked.added:
        after = picked.next_series
        told = (
            f"{whose} {cls} takes {name}= only from {package} {first} to {last}: {caller} was written for "
            f"those releases, and the one installed is older or newer. Install one of them "
            f"({package}>={first},<{after})" + (f", or pass {renamed}= as newer releases want." if renamed else ".")
        )
        fix = install((package, f">={first},<{after}"))
    elif picked.removed:
        after = picked.next_series
        told = (
            f"{whose} {cls} takes {name}= up to {package} {last} and refuses it from {after} on"
            + (f" (renamed {renamed}= in an earlier release, the old name kept for a while)" if renamed else "")
            + f": {caller} was written for an older {package} than the one installed. "
            + (f"Pass {renamed}= instead of {name}=" if renamed else f"Drop {name}= or move it where {package} now "
               "takes it (its release notes say)")
            + f", or install the release it was written for ({package}<{after})."
        )  # fmt: skip
        fix = install((package, f"<{after}"), note=f"or change {name}= in the call, as above")
        instead = instead_of_pinning(package, after, name)
        if instead is not None:
            told, fix = told + instead[0], instead[1]
    else:
        saved = " (or a configuration file it reads, saved by that release)" if picked.cls.endswith("Config") else ""
        told = (
            f"{whose} {cls} takes {name}= from {package} {first} on: {caller}{saved} was written for a newer "
            f"{package} than the one installed. Upgrade it."
        )
        fix = install((package, f">={first}"))
    if also:
        told += f" (The same holds for {', '.join(also)}, if that is the package installed.)"
    generic = not shown and (cls in _GENERIC_CLASS_NAMES or bool(also))
    if generic:
        kind = "function" if "." in cls or cls[:1].islower() else "class"
        told += f" If {cls} is a {kind} of your own, not {whose}, this does not apply."
    return Lead(
        told, params, fix=fix, verdict="environment", confidence=0.7 if generic else None,
        next=(f"python -m pip show {package}",),
    )  # fmt: skip

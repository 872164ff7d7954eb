"""Secrets never leave the machine: an environment allow-list, and credential redaction for every output.

Each rule finds the exact span of a secret in the text and only that span becomes REDACTED: the key, the
separator and the quotes around a value stay, so a redacted `export XLA_FLAGS='...'` still parses as shell.
The rules follow the public rule sets (gitleaks `config/gitleaks.toml` and `cmd/generate/config/rules/*.go`,
Yelp detect-secrets `detect_secrets/plugins/*.py`, GitHub secret scanning's documented token prefixes).

Linear time, whatever the input: every pattern starts on a literal or at the first character of a run (a
negative lookbehind of the run's own characters), and every repetition is bounded or stops where its class
stops, so no character is read more than a bounded number of times per rule (tests/faults/test_linear_time.py).
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

REDACTED = "<redacted>"

# Only variables that decide how the ML stack behaves are read; everything else is never seen.
_ALLOWED_PREFIXES = (
    "PJRT_",
    "XLA_",
    "PT_XLA_",
    "XRT_",
    "TPU_",
    "TF_",
    "TORCH",
    "TORCHINDUCTOR_",
    "TRITON_",
    "CUDA_",
    "CUDNN_",
    "NCCL_",
    "NVIDIA_",
    "JAX_",
    "COLAB_",
    "KAGGLE_",
    "CONDA_",
    "OMP_",
    "MKL_",
    "LD_",
    "PYTHON",
    "PIP_",
    "UV_",
)
_ALLOWED_NAMES = frozenset(
    {
        "PATH",
        "VIRTUAL_ENV",
        "GPU_NUM_DEVICES",
        "CUDA_HOME",
        "CUDA_PATH",
        "CC",
        "CXX",
        "HOSTNAME_TPU_WORKER",
        "CLOUD_TPU_TASK_ID",  # torch_xla/_internal/tpu.py: the process index in a TPU slice
        "CLOUDSDK_CONFIG",
    }
)
# A name that hints at a credential is dropped even when its prefix is allowed (KAGGLE_KEY, ...).
_DENIED_NAME_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE")

Span = tuple[int, int]

# ---- token shapes: a fixed prefix, then the token's own alphabet ------------------------------------------
# A token starts where a run of its characters starts, never inside a word ("task-..." holds no "sk-..."), and
# a shape whose alphabet holds '_' or '-' only where a run of those starts too: each run is read once.
_ALNUM_SHAPES = (
    r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub ghp_/gho_/ghu_/ghs_/ghr_ (gitleaks github.go: 36 characters)
    r"A(?:3T[A-Z0-9]|KIA|SIA|BIA|CCA)[A-Z0-9]{16}",  # AWS access key id (gitleaks aws.go)
    r"hf_[A-Za-z0-9]{20,}",  # Hugging Face (gitleaks huggingface.go: 34 letters)
    r"api_org_[A-Za-z0-9]{20,}",  # Hugging Face organization token (gitleaks huggingface.go)
    r"npm_[A-Za-z0-9]{30,}",  # npm (gitleaks npm.go: 36 characters)
    r"sk_(?:live|test|prod)_[A-Za-z0-9]{10,}",  # Stripe secret key (gitleaks stripe.go)
    r"rk_(?:live|test|prod)_[A-Za-z0-9]{10,}",  # Stripe restricted key (gitleaks stripe.go)
    r"dapi[a-f0-9]{32}",  # Databricks (gitleaks databricks.go)
    r"do[opr]_v1_[a-f0-9]{64}",  # DigitalOcean (gitleaks digitalocean.go)
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",  # Shopify (gitleaks shopify.go)
    r"r8_[A-Za-z0-9]{37}",  # Replicate
    r"gsk_[A-Za-z0-9]{40,}",  # Groq (gitleaks groq.go)
    r"AGE-SECRET-KEY-1[0-9A-Z]{58}",  # age secret key (gitleaks age.go)
)
_WORD_SHAPES = (
    r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained PAT (gitleaks github.go: 82 characters)
    r"gl(?:pat|dt|ptt|rt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}",  # GitLab (gitleaks gitlab.go)
    r"xox[abeoprs]-[A-Za-z0-9-]{10,}",  # Slack bot/user/app-level tokens (gitleaks slack.go)
    r"xapp-[0-9]-[A-Za-z0-9-]{10,}",  # Slack app token (gitleaks slack.go)
    r"AIza[A-Za-z0-9_-]{35}",  # Google API key (gitleaks gcp.go)
    r"ya29\.[A-Za-z0-9_-]{20,}",  # Google OAuth access token (gitleaks gcp.go)
    r"GOCSPX-[A-Za-z0-9_-]{20,}",  # Google OAuth client secret
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI sk-/sk-proj-/sk-svcacct-, Anthropic sk-ant- (gitleaks openai.go, anthropic.go)
    r"pypi-[A-Za-z0-9_-]{50,}",  # PyPI upload token (gitleaks pypi.go; detect-secrets pypi_token.py)
    r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",  # JWT (gitleaks jwt.go)
    r"SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",  # SendGrid (gitleaks sendgrid.go)
    r"hvs\.[A-Za-z0-9_-]{90,}",  # HashiCorp Vault service token (gitleaks hashicorp_vault.go)
)


def _run_start(shape: str, before: str) -> str:
    """`shape`, where no character of `before` precedes it. The test follows the shape's first, literal
    character, so that the engine jumps to the characters that can start a token."""
    first, rest = shape[0], shape[1:]
    return f"{first}(?<![{before}]{first}){rest}"


_TOKEN_SHAPES = re.compile(
    "|".join(
        [*(_run_start(s, "A-Za-z0-9") for s in _ALNUM_SHAPES), *(_run_start(s, "A-Za-z0-9_-") for s in _WORD_SHAPES)]
    )
)

# ---- key=value: a key that names a secret, as a whole word of the key ---------------------------------------
# The key is a run of word characters, '.' and '-' starting at the run's first character and at most 80 long;
# "::" (C++ scopes) and "==" (comparisons) are not separators.
_KEY = re.compile(r"(?P<key>[\w.-](?<![\w.-]{2})[\w.-]{0,79})[\"']?[ \t]{0,3}(?::=|[=:](?![=:]))[ \t]{0,3}")
# `--password VALUE`: a flag whose value is the next word (`huggingface-cli login --token ...`); also argv as
# Python prints a list of it, `['mysql', '--password', 'VALUE']` (subprocess errors, launcher logs).
_FLAG = re.compile(r"(?P<key>-(?<![\w.-]-)-?[A-Za-z][\w.-]{0,79})[ \t]{1,3}(?=[^\s-])")
_LISTED_FLAG = re.compile(r"(?P<key>-(?<![\w.-]-)-?[A-Za-z][\w.-]{0,79})(?P<q>['\"]),[ \t]{0,3}(?=['\"])")
# `api-key VALUE`, `password VALUE` (.netrc, config dumps): a secret key, white space, then a value that is no
# plain word (a digit, a capital or a symbol in it), so prose ("password authentication failed") stays.
_SPACED_KEY = re.compile(r"(?P<key>[A-Za-z](?<![^\s\"'(\[{,][A-Za-z])[\w.-]{0,79})[ \t]{1,3}(?=[^\s=:])")
_PLAIN_WORD = re.compile(r"[a-z]{1,40}[.,;:]?")
_SENTENCE_WORD = re.compile(r"[A-Z][a-z]{1,20}\b")  # the capitalised word that starts the next sentence
# .netrc (`machine HOST login USER password SECRET`, netrc(5)): every value after `password` or `account` is one
_NETRC = re.compile(r"(?<![\w-])(?:machine|default)[ \t]+\S")
_NETRC_SECRET = re.compile(r"(?<![\w-])(?:password|account)[ \t]{1,8}(?P<v>[^\s]{1,512})")
# <password>VALUE</password>, <apiKey>...</apiKey>: an XML element whose name is a secret key (Maven settings,
# .NET config); gitleaks' generic rule reads these as key/value too
_ELEMENT = re.compile(r"<(?P<key>[A-Za-z_][\w.-]{0,60})>(?P<v>[^<]{1,4096})</(?P=key)>")
# `curl -u USER:PASSWORD`, `--user USER:PASSWORD` (gitleaks curl-auth-user): the part after the colon
_CURL_USER = re.compile(r"(?<![\w-])(?:-u|--user)(?:=|[ \t]{1,5})['\"]?[^\s:'\"]{1,256}:(?P<v>[^\s'\"]{1,512})")
# `mysql -pSECRET` (mysql(1): the password is glued to -p): only on a line that runs a MySQL client
_MYSQL = re.compile(r"(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)(?![\w-])")
_GLUED_P = re.compile(r"(?<![\w-])-p(?P<v>[^\s'\"]{1,512})")
# The words of a key: split on _ - . and at camelCase humps ("apiKey", "HFToken", "SharedAccessSignature").
_KEY_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# detect-secrets plugins/keyword.py DENYLIST and gitleaks generic.go keywords, as whole words; "pass" alone is
# not one (`--xla_dump_hlo_pass_re` is a real XLA flag), nor is "key" alone inside a longer key.
_SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "passphrase", "secret", "secrets", "token", "tokens", "credential",
        "credentials", "creds", "auth", "authorization", "cookie", "cookies", "sig", "signature",
        "apikey", "appkey", "authkey", "accesskey", "accountkey", "secretkey", "privatekey", "privkey",
        "clientkey", "servicekey", "dbkey", "masterkey", "sshkey", "signingkey", "encryptionkey", "licensekey",
        "keypass", "dbpass", "contrasena",
    }
)  # fmt: skip
_SECRET_SUFFIXES = ("password", "passwd", "token", "secret")  # PGPASSWORD, accesstoken, clientsecret
_KEY_QUALIFIERS = frozenset(
    {
        "api", "app", "application", "access", "account", "auth", "client", "db", "database", "encryption",
        "license", "master", "priv", "private", "secret", "service", "session", "shared", "signing", "ssh",
        "storage", "subscription",
    }
)  # fmt: skip
_PASS_QUALIFIERS = frozenset({"db", "database", "key", "login", "user", "admin", "root", "smtp", "ftp", "mail"})
# In an ML log "token" is mostly a piece of text: a tokenizer's special tokens (pad_token, eos_token), counts and
# limits (max_new_tokens, num_tokens, "#cached-token: 0"). A key written in code's lower or mixed case whose only
# secret word is token(s) and that has one of these words names a text token, never a credential (auth_token,
# access_token, hf_token, OpenID's id_token, a refreshed new_token stay secrets; so does every UPPER_CASE variable of
# an environment: GitHub Actions passes an action's `token:` input as INPUT_TOKEN).
_TEXT_TOKEN_QUALIFIERS = frozenset(
    {
        "pad", "eos", "bos", "unk", "sep", "cls", "mask", "special", "added", "max", "min", "num", "cached",
        "prompt", "completion", "vocab", "decoder",
    }
)  # fmt: skip
# The secret words that name a password: its value can be any word, so no value of theirs is read as code
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "passphrase", "pass", "keypass", "dbpass", "contrasena"})
# A value that is code, not a credential: a literal; the key itself passed on (`has_token=has_token`); an attribute or
# a call of an object code names (`key: random.KeyArray`, `token = tokenizer.eos_token`, `next_tokens =
# torch.multinomial(probs, ...)`, `destination key "trainer.process_position"`): a path of names that starts at a
# receiver of code, or holds a class's name. A credential that is one word, a snake_case phrase or a dotted pair of
# random pieces stays a credential: only these shapes are read as code.
_LITERALS = frozenset({"True", "False", "None", "true", "false", "null", "none"})
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){1,8}(?:\(.*)?")
_RECEIVERS = frozenset(
    {
        "self", "cls", "args", "kwargs", "config", "cfg", "opt", "opts", "options", "params", "settings", "model",
        "tokenizer", "processor", "trainer", "pipe", "pipeline", "accelerator", "torch", "jax", "jnp", "np", "numpy",
        "tf", "keras", "os", "sys", "random", "transformers", "diffusers", "nn", "math", "batch", "dataset", "state",
    }
)  # fmt: skip
_CLASS_NAME = re.compile(r"[A-Z][a-z]{2,}")  # Tensor, Array (one word; longer names are _identifier_like)
_STRING_PREFIXES = frozenset({"f", "b", "r", "rb", "br", "fr", "rf"})  # Python's, before a quote
# `Authorization: Bearer TOKEN`: the scheme word stays, the credential after it goes (RFC 7235 section 2.1).
_AUTH_SCHEME = re.compile(r"(?i:bearer|basic|token|digest|negotiate|bot)[ \t]{1,3}(?=\S)")
_BEARER = re.compile(r"(?<![\w-])(?i:bearer|basic)[ \t]{1,3}(?P<v>[A-Za-z0-9._~+/-]{16,}={0,2})")
# An unquoted value ends at white space, a quote, a backtick, '&' (the next query parameter) or ';' (the next
# field of a connection string: `AccountKey=...;EndpointSuffix=...`); ',' ')' ']' '}' end it only when white
# space or the end follows (`Namespace(token=abc, x=1)`), since a password may hold them.
_VALUE = re.compile(r"(?:[^\s'\"&`;,)\]}]|[,)\]}](?![\s;,)\]}'\"&`]|$))+")
_QUOTED_END = {'"': re.compile(r'["\n]'), "'": re.compile(r"['\n]")}

# ---- random-looking strings ---------------------------------------------------------------------------------
# A long run of mixed-case letters and digits looks like a random secret; wheel tags and paths do not.
_RANDOM_RUN = re.compile(r"[A-Za-z0-9+_-](?<![A-Za-z0-9+_-]{2})[A-Za-z0-9+_-]{23,}={0,2}")
# Base64 with '/' and '+' (AWS secret access keys: 40 characters, gitleaks aws_secret.go), maybe inside a path.
_DIGIT = re.compile("[0-9]")
_SYMBOL_CONTEXT = ("symbol: ", "symbol ")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/](?<![A-Za-z0-9+/]{2})[A-Za-z0-9+/]{39,}(?P<pad>={0,2})")
# 40 characters that start at the run's start or after a '/' and end at its end or before a '/' (zero-width,
# so that a rejected window does not hide an overlapping one)
_BASE64_WINDOW = re.compile(r"(?<![^/])(?=(?P<w>[A-Za-z0-9+][A-Za-z0-9+/]{39})(?![^/]))")
# Shannon entropy of 40 random base64 characters is above 4.27 in 10,000 draws; words and paths stay near 4.1.
_BASE64_ENTROPY = 4.25
# 32 and 40 lowercase hex digits: Kaggle keys, Weights & Biases API keys (40). A bare 40-hex string IS the W&B
# key shape, so it is redacted; a git revision or digest stays readable when the words before it say so
# ("commit 1a2b...", "git_version='...'", "BuildID[sha1]=...", "repo.git@...", "md5=..."), or when it is the
# value of a JSON key that says so (torch's `git_version`, torch_xla's `__torch_gitrev__`). sha256 digests
# (64 hex) are never this shape.
_HEX = re.compile(r"[0-9a-f](?<![0-9A-Fa-f][0-9a-f])(?:[0-9a-f]{39}|[0-9a-f]{31})(?![0-9A-Fa-f])")
_REVISION_WORDS = (
    "commits?", "revision", "rev", "git", "gitrev", "git_?version", "git_?hash", "sha1?", "hash", "digest",
    "checksum", "md5", "build_?id", "head", "parent", "tree", "blob",  # .../blob/<revision>/... on GitHub
)  # fmt: skip
_REVISION_CONTEXT = re.compile(r"(?<![A-Za-z])(?i:" + "|".join(_REVISION_WORDS) + r")[^A-Za-z0-9]{0,6}$|@$")
_CONTEXT_CHARS = 24

# ---- private keys: the body between the BEGIN and END lines (gitleaks privatekey.go) -----------------------
_KEY_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = "-----END"

# ---- URLs with a password: scheme://user:password@host (detect-secrets basic_auth.py) -----------------------
_URL_END = re.compile(r"[\s'\"<>`]")
# `host:port/path@tag` is a host and a port, not user:password (a password-only `user:1234@host` still is one)
_HOST_PORT = re.compile(r"[^:/?#@\s]{0,255}:[0-9]{1,5}[/?#]")


def _words(key: str) -> list[str]:
    return [w.lower() for w in _KEY_WORDS.findall(key)]


@functools.lru_cache(maxsize=4096)
def secret_key(key: str) -> bool:
    """Whether a key names a secret: one of its whole words is a secret word (never a substring)."""
    if not _names_a_secret(key.lower()):
        return False
    words = _words(key)
    secret = {w for w in words if w in _SECRET_WORDS or w.endswith(_SECRET_SUFFIXES)}
    if secret:
        # pad_token, max_new_tokens: a piece of text, when token is its only secret word and it is code's case
        text_token = not key.isupper() and not _TEXT_TOKEN_QUALIFIERS.isdisjoint(words)
        return not (secret <= {"token", "tokens"} and text_token)
    for word in words:
        if word == "key" and (len(words) == 1 or any(w in _KEY_QUALIFIERS for w in words)):
            return True
        if word == "pass" and any(w in _PASS_QUALIFIERS for w in words):
            return True
    return False


def _names_a_secret(lowered: str) -> bool:
    """Whether lower-cased text holds a stem of every secret word: a key=value scan is skipped when it does not."""
    return (
        "key" in lowered or "pass" in lowered or "token" in lowered or "secret" in lowered or "auth" in lowered
        or "sig" in lowered or "pwd" in lowered or "cred" in lowered or "cookie" in lowered or "contras" in lowered
    )  # fmt: skip


def _value_span(text: str, pos: int) -> Span | None:
    """The value that starts at `pos`, without its quotes; None when there is none."""
    scheme = _AUTH_SCHEME.match(text, pos)
    if scheme:
        pos = scheme.end()
    if pos >= len(text):
        return None
    quote = text[pos]
    if quote in _QUOTED_END:
        end = _QUOTED_END[quote].search(text, pos + 1)
        stop = end.start() if end else len(text)
        return (pos + 1, stop) if stop > pos + 1 else None
    if quote in "{[(<":  # a structure, or an earlier REDACTED marker: not a value
        return None
    value = _VALUE.match(text, pos)
    return value.span() if value else None


def _is_code(key: str, value: str, before: str) -> bool:
    """The value of a secret key is code, not a credential (see _LITERALS); `before`: the character before the key.
    A password's value is read as code only when it is a literal, or a path for a shell's PWD (not ODBC's `;PWD=`)."""
    if value in _LITERALS:
        return True
    words = _words(key)
    if not _PASSWORD_WORDS.isdisjoint(words) or any(w.endswith(("password", "passwd")) for w in words):
        return key == "PWD" and value.startswith("/") and before in ("", " ", "\t", "\n")
    if value == key:
        return True
    if _DOTTED_NAME.fullmatch(value) is None:
        return False
    names = value.split("(", 1)[0].split(".")
    if not all(re.fullmatch(r"[A-Za-z_]+", n) for n in names):
        return False  # a digit in a piece: no attribute path of code's words
    return names[0] in _RECEIVERS or any(_CLASS_NAME.fullmatch(n) or _identifier_like(n) for n in names)


def _keyed(text: str, pattern: re.Pattern[str]) -> Iterator[Span]:
    skip = 0
    for match in pattern.finditer(text):
        if match.start() < skip or not secret_key(match["key"]):
            continue
        before = text[match.start() - 1 : match.start()]
        if before == "/":  # a file in a path ("/srv/secret.log: Permission denied")
            continue
        span = _value_span(text, match.end())
        if span is None:
            continue
        value = text[span[0] : span[1]]
        if value in _STRING_PREFIXES and text[span[1] : span[1] + 1] in ("'", '"'):
            # a string's prefix (`key = f"..."`): the string is the value, unless it is an f-string that starts with
            # an interpolation (`key = f"{triton_key()}-{src.hash()}"`), which is code
            span = _value_span(text, span[1])
            if span is None or ("f" in value and text.startswith("{", span[0])):
                continue
            value = text[span[0] : span[1]]
        if not _is_code(match["key"], value, before):
            skip = span[1]
            yield span


def _key_values(text: str) -> Iterator[Span]:
    if "=" in text or ":" in text:
        yield from _keyed(text, _KEY)
    if "-" in text and (" " in text or "\t" in text):
        yield from _keyed(text, _FLAG)
    if "-" in text and "," in text:
        yield from _keyed(text, _LISTED_FLAG)
    if " " in text or "\t" in text:
        yield from _spaced_keys(text)
    if "</" in text:
        for match in _ELEMENT.finditer(text):
            if secret_key(match["key"]) and match["v"].strip():
                yield match.span("v")


def _spaced_keys(text: str) -> Iterator[Span]:
    """`api-key VALUE`: the key names a secret and the value is not a plain lower-case word."""
    for match in _SPACED_KEY.finditer(text):
        if not secret_key(match["key"]) or text[match.start() - 1 : match.start()] in ("/", "-"):
            continue
        if match["key"].endswith((".", ",")) and _SENTENCE_WORD.match(text, match.end()):
            continue  # a sentence's end ("does not have a padding token. Please select ..."), not a key
        span = _value_span(text, match.end())
        if span is None:
            continue
        value = text[span[0] : span[1]]
        before = text[match.start() - 1 : match.start()]
        if _PLAIN_WORD.fullmatch(value) or value == REDACTED or _is_code(match["key"], value, before):
            continue
        yield span


def _command_lines(text: str) -> Iterator[Span]:
    """Secrets in command lines and config files that the key=value rules cannot see."""
    if "-u" in text or "--user" in text:
        yield from (m.span("v") for m in _CURL_USER.finditer(text))
    if "-p" in text and ("mysql" in text or "mariadb" in text):
        for line in _lines_holding(text, _MYSQL):
            start, stop = line
            found = _MYSQL.search(text, start, stop)
            if found is not None:
                yield from (m.span("v") for m in _GLUED_P.finditer(text, found.end(), stop))
    if "password" in text or "account" in text:
        for start, stop in _lines_holding(text, _NETRC):
            yield from (m.span("v") for m in _NETRC_SECRET.finditer(text, start, stop))


def _lines_holding(text: str, pattern: re.Pattern[str]) -> Iterator[Span]:
    """(start, stop) of every line where `pattern` matches, each line read once."""
    pos = 0
    while (found := pattern.search(text, pos)) is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        stop = text.find("\n", found.end())
        stop = len(text) if stop < 0 else stop
        yield start, stop
        pos = stop + 1


# An identifier made of words (`NativeLayerNormBackward0`, `CUDAGraphTreeManager2`, `T5ForConditionalGeneration`,
# `Qwen2VLForConditionalGeneration`): autograd nodes, op and class names are the clue of an error, not a secret.
# Every letter run is a word (a capital and two or more small letters, or three or more small letters; at most two
# acronyms of two to five capitals) and digits come in at most two groups of at most three, each alone, after a
# capital (T5) or before a letter that ends its run (2D, conv2d; not the 2V of 2VLFor); a random string of 24 or
# more characters almost never splits that way (tests/unit/test_redact.py: under 1 in 10,000).
_IDENTIFIER_PIECE = re.compile(
    r"[0-9]{1,2}[A-Z](?![a-z]|[A-Z](?![a-z]))|[0-9][a-z](?![a-z])|[A-Z][0-9]{1,2}(?![0-9])|[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])|[0-9]+|[_+-]"
)


def _identifier_like(run: str) -> bool:
    pieces = _IDENTIFIER_PIECE.findall(run)
    letters = [p for p in pieces if p.isalpha()]
    digits = [p for p in pieces if not p.isalpha() and p not in "_+-"]  # 12, 2D as in Upsample2D, T5
    acronyms = [w for w in letters if w.isupper()]
    return (
        len(letters) >= 2
        and len(digits) <= 2
        and len(acronyms) <= 2
        and all(len(d) <= 3 for d in digits)
        and all(2 <= len(w) <= 5 for w in acronyms)
        and all(len(w) >= 3 for w in letters if not w.isupper())
    )


def _looks_random(run: str) -> bool:
    if run.startswith(("_Z", "__Z")):  # an Itanium-mangled C++ symbol ("undefined symbol: _ZN5torch8..."): evidence
        return False
    if run == run.lower() or run == run.upper() or _DIGIT.search(run) is None:
        return False
    return not _identifier_like(run)


# A model's name as a Hub repository id spells it, behind its owner ("microsoft/Phi-3-medium-128k-instruct"): words
# and sizes joined by '-', what an error names as its subject, not a secret. Only behind "owner/": a passphrase of
# words and numbers ("Spring-Tiger-2024-Blue-Falcon-99") looks the same and stays redacted anywhere else. Every piece
# is a word (a capital and small letters, or small letters; at least two of three letters or more) or a size or
# version (7B, 128k, 3.1, v2, R1, 4bit) or an acronym (GPTQ, AWQ); a random token (base64url holds '-') almost never
# splits that way.
_NAME_WORD = re.compile(r"[A-Z]?[a-z]{3,}(?:[0-9]{1,3}(?:\.[0-9]{1,3})?)?")  # Instruct, medium, Qwen2.5
_NAME_PIECE = re.compile(
    r"[A-Z]?[a-z]{2,}(?:[0-9]{1,3}(?:\.[0-9]{1,3})?)?|[A-Z]{2,5}[0-9]{0,2}"
    r"|[vVrR]?[0-9]{1,4}(?:\.[0-9]{1,3}){0,2}(?:[a-z]{1,4}|[A-Z])?"
)
_NAME_BEHIND = 40  # how far before the run its owner's "/" may be ("Qwen/Qwen2.5-...": the run starts after the ".")


def _model_name(text: str, start: int, run: str) -> bool:
    """Whether the run at `start` is (the end of) a model's name behind a Hub owner ("owner/Name-of-it")."""
    slash = text.rfind("/", max(0, start - _NAME_BEHIND), start)
    if slash < 1 or not (text[slash - 1].isalnum() or text[slash - 1] in "-_."):
        return False
    name = text[slash + 1 : start] + run
    if any(not (c.isalnum() or c in "-_.") for c in name):
        return False
    pieces = name.split("-")
    if len(pieces) < 3:
        return False
    words = sum(1 for p in pieces if _NAME_WORD.fullmatch(p))
    return words >= 2 and all(_NAME_PIECE.fullmatch(p) for p in pieces)


# NVML's device UUID (nvmlDeviceGetUUID: "GPU-" and a 5-part hexadecimal UUID; "MIG-" for a MIG device, "MIG-GPU-..."
# before R470): the identifier of a piece of hardware, which a GPU health finding names for the RMA, not a secret.
_DEVICE_UUID = re.compile(r"(?:GPU|MIG)-(?:GPU-)?[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def _random_runs(text: str) -> Iterator[Span]:
    for match in _RANDOM_RUN.finditer(text):
        if _DEVICE_UUID.fullmatch(match.group()):
            continue
        # "undefined symbol: NAME" (glibc elf/dl-lookup.c) names a function, the evidence of a broken build
        # (a symbol pasted into Markdown loses its leading '_' to emphasis: "undefined symbol: *ZNK3c10...")
        run = match.group()
        if _looks_random(run) and not _after_symbol(text, match.start()) and not _model_name(text, match.start(), run):
            yield match.span()


def _after_symbol(text: str, start: int) -> bool:
    """The run at `start` follows "undefined symbol: ", maybe with Markdown's '*' or '`' between (looked at in place:
    copying the text before each run would make a line of many runs quadratic)."""
    end = start
    while end > 0 and start - end < 4 and text[end - 1] in "*`":
        end -= 1
    return text.endswith(_SYMBOL_CONTEXT, 0, end)


def _entropy(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _base64_secret(candidate: str) -> bool:
    return _looks_random(candidate) and _entropy(candidate) >= _BASE64_ENTROPY


def _aws_secret(window: str) -> bool:
    """40 random characters that are not folders of a path: a window that starts or ends with a lower-case word
    straddles folders ("opt/<secret>/lib"), and one with more than three '/' (1 in 280 random keys) must hold
    no lower-case word of four letters or more."""
    if not _base64_secret(window):
        return False
    pieces = window.split("/")
    if len(pieces) > 1 and any(p.isalpha() and p.islower() for p in (pieces[0], pieces[-1])):
        return False
    return len(pieces) <= 4 or not any(len(p) >= 4 and p.isalpha() and p.islower() for p in pieces)


def _base64_runs(text: str) -> Iterator[Span]:
    """40 random base64 characters between run edges or '/' (an AWS secret inside a path), else a whole run.
    A run that touches '_', '.' or '-' is part of a longer name (a C++ symbol, a file name), not a secret."""
    for match in _BASE64_RUN.finditer(text):
        start, stop = match.start(), match.start("pad")
        run = text[start:stop]
        open_left = start == 0 or text[start - 1] not in "_.-"
        open_right = match.end() == len(text) or text[match.end()] not in "_.-"
        found = 0
        for window in _BASE64_WINDOW.finditer(run):
            begin, end = window.start(), window.end("w")
            if begin < found or (begin == 0 and not open_left) or (end == len(run) and not open_right):
                continue
            if _aws_secret(window["w"]):
                found = end
                yield start + begin, start + end
        if found or not (open_left and open_right) or run.startswith("/") or run.count("/") * 10 > len(run):
            continue
        if _base64_secret(run):
            yield match.span()


def _hex_keys(text: str) -> Iterator[Span]:
    for match in _HEX.finditer(text):
        digits = match.group()
        if digits.isdigit() or not any(c.isdigit() for c in digits):
            continue  # a number, or a word of a-f: random hex has both
        if _REVISION_CONTEXT.search(text, max(0, match.start() - _CONTEXT_CHARS), match.start()):
            continue
        yield match.span()


def _private_keys(text: str) -> Iterator[Span]:
    pos = 0
    while (begin := _KEY_BEGIN.search(text, pos)) is not None:
        end = text.find(_KEY_END, begin.end())
        stop = end if end >= 0 else len(text)
        body = text[begin.end() : stop]
        yield begin.end() + len(body) - len(body.lstrip()), stop - len(body) + len(body.rstrip())
        pos = stop + 1


def _scheme_end(text: str, begin: int, stop: int) -> tuple[int, int]:
    """(where `:/` or `://` starts, where the user info after it starts) at or after begin, before stop; (-1, -1)
    when none. One slash counts too: a path normalised by os.path (realpath, relpath) turns `https://` into
    `https:/`, and the password after it is the same secret."""
    found = text.find(":/", begin, stop)
    if found < 0:
        return -1, -1
    return found, found + (3 if text.startswith("/", found + 2) else 2)


def _url_passwords(text: str) -> Iterator[Span]:
    """user:password in scheme://user:password@host: the user info up to the last '@' of the URL."""
    found, start = _scheme_end(text, 0, len(text))
    while found >= 0:
        token_end = _URL_END.search(text, start)
        end = token_end.start() if token_end else len(text)
        at = text.rfind("@", start, end)
        while 0 <= start < at:
            if text.find(":", start, at) < 0:
                if _token_user(text[start:at]):
                    yield start, at  # https://TOKEN@github.com/...: the token is the credential
                break  # a plain user name before the last '@': nothing secret in this URL
            if not _HOST_PORT.match(text, start, at):
                yield start, at
                break
            _, start = _scheme_end(text, start, at)  # `host:port/...?next=https://user:password@...`
        found, start = _scheme_end(text, max(end, start), len(text))


# A URL whose user is a token (`https://ghp_...@github.com`, `https://<40 hex>@host`): no user name is this long
# and this random; `git`, `oauth2`, `x-access-token` and `__token__` stay.
_TOKEN_USER_MIN = 16


def _token_user(user: str) -> bool:
    if len(user) < _TOKEN_USER_MIN or len(user) > 512 or any(c.isspace() or c in "/?#" for c in user):
        return False
    return any(c.isdigit() for c in user) and any(c.isalpha() for c in user)


def _spans(text: str) -> list[Span]:
    """Where the secrets are; each rule runs only when the text holds what it needs (most strings are short)."""
    spans: list[Span] = []
    if ":/" in text:
        spans += _url_passwords(text)
    lowered = text.lower()
    if _names_a_secret(lowered):
        spans += _key_values(text)
    if "-u" in text or "--user" in text or "-p" in text or "password" in lowered or "account" in lowered:
        spans += _command_lines(text)
    if "bearer" in lowered or "basic" in lowered:
        spans += (m.span("v") for m in _BEARER.finditer(text))
    if "PRIVATE KEY" in text:
        spans += _private_keys(text)
    if len(text) >= 20:
        spans += (m.span() for m in _TOKEN_SHAPES.finditer(text))
        spans += _random_runs(text)
        spans += _base64_runs(text)
    if len(text) >= 32:
        spans += _hex_keys(text)
    return spans


def redact_text(text: str) -> str:
    """Replace every credential in `text` with REDACTED, and nothing else (overlapping finds become one)."""
    spans = sorted(_spans(text))
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        if end <= max(pos, start):
            continue
        if start > pos:
            out.append(text[pos:start])
            out.append(REDACTED)
        elif not out or out[-1] != REDACTED:
            out.append(REDACTED)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def redact_entry(key: str, value: str) -> str:
    """A value read under `key` (a JSON key): redacted as `key=value` would be, so that the value of "password"
    goes and a 40-hex value of "git_version" stays."""
    marker = key + "="
    redacted = redact_text(marker + value)
    return redacted[len(marker) :] if redacted.startswith(marker) else REDACTED


def redact(value: Any) -> Any:
    """Redact every string inside a JSON-like value (keys included)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {
            redact_text(str(k)): redact_entry(str(k), v) if isinstance(v, str) else redact(v) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return value


_CURL_PROGRAMS = frozenset({"curl", "wget", "http", "https"})


def redact_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """An argument vector with its credentials redacted: the value after a secret flag (`--token`, `--password`,
    `--api-key`, `--hf-token`) is its own element, so each element alone cannot tell; then every element as text."""
    out: list[str] = []
    program = os.path.basename(argv[0]) if argv else ""
    expect: str | None = None  # what the previous element asked for: "value" or "userinfo"
    for arg in argv:
        if expect == "value":
            out.append(REDACTED if arg else arg)
        elif expect == "userinfo":
            user, colon, _ = arg.partition(":")
            out.append(f"{user}:{REDACTED}" if colon else redact_text(arg))
        expect_now = expect
        expect = None
        if expect_now is not None:
            continue
        flag, equals, value = arg.partition("=")
        if flag.startswith("-") and len(flag) > 1 and not flag.startswith("---") and secret_key(flag.lstrip("-")):
            if equals:
                out.append(f"{flag}={REDACTED}" if value else arg)
            else:
                out.append(arg)
                expect = "value"
            continue
        if arg in ("-u", "--user") and program in _CURL_PROGRAMS:
            out.append(arg)
            expect = "userinfo"
            continue
        if program.startswith(("mysql", "mariadb")) and arg.startswith("-p") and len(arg) > 2:
            out.append("-p" + REDACTED)
            continue
        out.append(redact_text(arg))
    return tuple(out)


def is_allowed_env_name(name: str) -> bool:
    """Whether a variable may be read at all."""
    upper = name.upper()
    if any(part in upper for part in _DENIED_NAME_PARTS):
        return False
    return name in _ALLOWED_NAMES or name.startswith(_ALLOWED_PREFIXES)


def allowed_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The allow-listed, redacted view of an environment."""
    return {k: redact_text(v) for k, v in sorted(environ.items()) if is_allowed_env_name(k)}

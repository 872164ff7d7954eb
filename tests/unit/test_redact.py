"""Secrets never reach a snapshot or a report: each rule takes exactly the secret, and nothing else."""

from __future__ import annotations

import shlex

import pytest

from xladoctor.diagnosis.registry import all_checks
from xladoctor.diagnosis.variables import EVERY_VARIABLE
from xladoctor.redact import (
    REDACTED,
    allowed_environment,
    is_allowed_env_name,
    redact,
    redact_entry,
    redact_text,
    secret_key,
)

WANDB = "cbe1a35dbdfdc9b7490212bdd812f3e2f4ce9e2d"  # 40 hex: the shape of a W&B API key and of a git revision


@pytest.mark.parametrize(
    "secret",
    [
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "gho_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghu_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghr_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij",
        "glpat-abcdefghij0123456789",
        "xoxb-12345678901-1234567890123-abcdefghijABCDEFGHIJ0123",
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # an AWS secret access key: 40 characters with '/'
        "lbqlNh3FW5/3AwnBoWsYIJam9w2Us4ZOH5Un8RyR",  # gitleaks aws_secret.go's sample
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "ya29.a0AfH6SMBx1y2z3abcdefghijklmnopqrstuv",
        "sk-proj-abcdefghijklmnopqrstuvwxyz",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-AA",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",  # Hugging Face tokens are letters only
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY3",
        "sk_live_abcdefghij0123456789",
        "rk_live_abcdefghij0123456789",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",  # SendGrid
        "dapi0123456789abcdef0123456789abcdef",  # Databricks
        "dop_v1_" + "0123456789abcdef" * 4,  # DigitalOcean
        "shpat_0123456789abcdef0123456789abcdef",  # Shopify
        "r8_abcdefghijklmnopqrstuvwxyz0123456789A",  # Replicate
        "gsk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP",  # Groq
        "hvs." + "aBcD0123456789" * 7,  # HashiCorp Vault
        "AGE-SECRET-KEY-1" + "QWERTYUIOPASDFGHJKLZXCVBNM0123456789QWERTYUIOPASDFGHJKLZXC",  # age
        "0123456789abcdef0123456789abcdef",  # 32 hex, the shape of a Kaggle key
        WANDB,  # bare 40 hex: redacted (see redact.py); a revision stays readable only with its context
        "Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MEFC",  # random-looking mixed case
    ],
)
def test_token_shapes_are_redacted(secret: str) -> None:
    assert redact_text(f"value={secret} tail") == f"value={REDACTED} tail"
    assert redact_text(f"/opt/{secret}/lib:/usr/lib") == f"/opt/{REDACTED}/lib:/usr/lib"  # inside a path list


def test_random_tokens_are_redacted_almost_always() -> None:
    """The identifier allowance (redact.py's _IDENTIFIER_PIECE) lets few random tokens through: of 20,000 seeded
    tokens of 24 to 48 characters that mix upper case, lower case and digits (what the random-run rule reads), in a
    context that names no secret, at most 6 (3 in 10,000) stay; about 3 do."""
    import random
    import string

    rng = random.Random(20261207)
    alphabet = string.ascii_letters + string.digits
    kept = []
    drawn = 0
    while drawn < 20_000:
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(24, 48)))
        if token.isalpha() or token.lower() == token or token.upper() == token:
            continue  # not of the shape the rule reads
        drawn += 1
        if token in redact_text(f"model {token} end"):
            kept.append(token)
    assert len(kept) <= 6, kept


@pytest.mark.parametrize(
    "name",
    [
        "microsoft/Phi-3-medium-128k-instruct",
        "Qwen/Qwen2.5-Coder-32B-Instruct-GPTQ-Int4",
        "unsloth/Meta-Llama-3.1-70B-Instruct-bnb-4bit",
    ],
)
def test_model_names_behind_their_hub_owner_stay_readable(name: str) -> None:
    """`Unsloth: microsoft/Phi-3-medium-128k-instruct not supported yet!`: the model is the error's subject."""
    assert redact_text(f"error: {name} not supported") == f"error: {name} not supported"


@pytest.mark.parametrize(
    "secret", ["Spring-Tiger-2024-Blue-Falcon-99", "Phi-3-medium-128k-instruct", "Sunset-Quantum-4096-Mango-Ruby-7Z"]
)
def test_a_passphrase_of_words_is_redacted_where_no_hub_owner_stands_before_it(secret: str) -> None:
    assert redact_text(f"value {secret} tail") == f"value {REDACTED} tail"


def test_random_tokens_with_dashes_behind_a_slash_are_redacted_almost_always() -> None:
    """The model-name allowance (redact.py's _model_name) lets no random base64url token through: of 20,000 seeded
    tokens of 24 to 48 characters from letters, digits, '-' and '_' with at least two '-' (mixing cases and digits,
    what the random-run rule reads), each behind "owner/" where the allowance applies, none stays."""
    import random
    import string

    rng = random.Random(20261208)
    alphabet = string.ascii_letters + string.digits + "-_"
    kept = []
    drawn = 0
    while drawn < 20_000:
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(24, 48)))
        mixed = token.lower() != token != token.upper() and any(c.isdigit() for c in token)
        if token.count("-") < 2 or not mixed or token[0] in "-_":
            continue  # not of the shape the allowance reads
        drawn += 1
        if token in redact_text(f"model org/{token} end"):
            kept.append(token)
    assert kept == []


@pytest.mark.parametrize(
    "name",
    [
        "T5ForConditionalGeneration",  # a capital and a digit: T5, MT5, LongT5
        "Qwen2VLForConditionalGeneration",  # a digit, then an acronym: 2VL, not 2V and L
        "Qwen3VLMoeForConditionalGeneration",
        "Wav2Vec2ForSequenceClassification",
        "UpsampleBilinear2DBackward0",  # a digit and the capital that ends its run: 2D
        "Upsample2DBlockForTheThing",
    ],
)
def test_class_names_of_models_stay_readable(name: str) -> None:
    """`cannot import name 'Qwen2VLForConditionalGeneration'` is the whole clue of an API-version failure."""
    assert redact_text(f"ImportError: cannot import name '{name}' from 'transformers'").count(name) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://alice:s3cret@pypi.corp.example/simple", f"https://{REDACTED}@pypi.corp.example/simple"),
        ("https://:s3cret@pypi.corp.example/simple", f"https://{REDACTED}@pypi.corp.example/simple"),  # no user
        ("https://alice:s3/cr3t@host/simple", f"https://{REDACTED}@host/simple"),  # a '/' in the password
        ("redis://:p4ss@cache:6379/0 next", f"redis://{REDACTED}@cache:6379/0 next"),
        ("/w/https:/alice:s3cret@host/x.py", f"/w/https:/{REDACTED}@host/x.py"),  # a path os.path normalised
        ("https://host:8443/repo.git@v1.2", "https://host:8443/repo.git@v1.2"),  # a port, not a password
        ("--xla_dump_to=/tmp/d --api_key=abc123", f"--xla_dump_to=/tmp/d --api_key={REDACTED}"),
        ("https://host/x?token=abc&x=1", f"https://host/x?token={REDACTED}&x=1"),
        ("password=hunter2", f"password={REDACTED}"),  # no '-', '?' or '&' before the key
        ("db_password: hunter2 next", f"db_password: {REDACTED} next"),
        ('{"apiKey": "hunter2", "x": 1}', f'{{"apiKey": "{REDACTED}", "x": 1}}'),
        ("PGPASSWORD=hunter2", f"PGPASSWORD={REDACTED}"),
        ("Namespace(token=abc, x=1)", f"Namespace(token={REDACTED}, x=1)"),
        ("Authorization: Bearer opaque-value", f"Authorization: Bearer {REDACTED}"),
        ("curl -H 'Authorization: token abc'", f"curl -H 'Authorization: token {REDACTED}'"),
        ("twine upload --password hunter2 dist/*", f"twine upload --password {REDACTED} dist/*"),
        ("a?sv=2022&sig=AbC%2B12%3D&se=1", f"a?sv=2022&sig={REDACTED}&se=1"),  # Azure SAS
        ("SharedAccessSignature=sv=2022&sig=x", f"SharedAccessSignature={REDACTED}&sig={REDACTED}"),
        ("Endpoint=sb://x/;SharedAccessKey=abc=;E=1", f"Endpoint=sb://x/;SharedAccessKey={REDACTED};E=1"),
        (
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc+/==;EndpointSuffix=core.windows.net",
            f"DefaultEndpointsProtocol=https;AccountName=a;AccountKey={REDACTED};EndpointSuffix=core.windows.net",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA\n-----END OPENSSH PRIVATE KEY-----",
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{REDACTED}\n-----END OPENSSH PRIVATE KEY-----",
        ),
        ("-----BEGIN PRIVATE KEY----- abc", f"-----BEGIN PRIVATE KEY----- {REDACTED}"),  # cut off: all the rest
    ],
)
def test_credentials_in_context(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "harmless",
    [
        "cp311-cp311-manylinux_2_28_x86_64",
        "/home/u/.venv/lib/python3.11/site-packages/torch",
        "nvidia_cublas_cu12-12.8.4.1",
        "--xla_dump_to=/tmp/dump",
        "--xla_debug_buffer_assignment_show_max=100",  # "assignment" holds "sig", but not as a word
        "--tf_xla_auto_jit=2",
        "--xla_dump_hlo_pass_re=.*",  # "pass" alone is not a secret word
        "undefined symbol: _ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EEb",
        "undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
        "c10::TokenKind::Foo",  # '::' is a C++ scope, not a separator
        f"commit {WANDB}",
        f"torch.version.git_version = '{WANDB}'",
        f"pip install git+https://github.com/pytorch/xla.git@{WANDB}",
        f"https://github.com/tensorflow/tensorflow/blob/{WANDB}/tensorflow/core/x.cc",
        "--hash=sha256:9f3a2b7c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a",  # sha256 in pip output
        "https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAFunctions.cpp",
        "/mnt/Users/Alice/Projects2/Models/ResNet50/v1/final",
        "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        "0000000000000000000000000000000000000000",  # a number, not a key
        # NVML device UUIDs (tests/health/nvsmi/): a GPU health finding names the GPU by them
        "GPU 0 (00000000:01:00.0), GPU-513536b6-7d19-9063-b049-1e69664bb298",
        "MIG-GPU-513536b6-7d19-9063-b049-1e69664bb298/3/0",
    ],
)
def test_ordinary_values_stay_readable(harmless: str) -> None:
    assert redact_text(harmless) == harmless


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("password", True), ("PGPASSWORD", True), ("db_pass", True), ("api_key", True), ("apiKey", True),
        ("x-api-key", True), ("AWS_SECRET_ACCESS_KEY", True), ("AccountKey", True), ("SharedAccessSignature", True),
        ("sig", True), ("key", True), ("HFToken", True), ("client_secret", True), ("Authorization", True),
        ("--xla_debug_buffer_assignment_show_max", False), ("--xla_dump_hlo_pass_re", False),
        ("primary_key", False), ("TOKENIZERS_PARALLELISM", False), ("KeyError", False), ("monkey", False),
        ("--tf_xla_auto_jit", False), ("signal", False), ("design", False),
    ],
)  # fmt: skip
def test_a_secret_word_must_be_a_whole_word_of_the_key(key: str, secret: bool) -> None:
    assert secret_key(key) is secret


def test_a_redacted_export_line_stays_shell_valid() -> None:
    line = "export XLA_FLAGS='--xla_debug_buffer_assignment_show_max=100 --api_key=abc --xla_dump_to=/tmp/x'"
    redacted = redact_text(line)
    assert redacted == line.replace("=abc ", f"={REDACTED} ")
    assert shlex.split(redacted) == [
        "export",
        f"XLA_FLAGS=--xla_debug_buffer_assignment_show_max=100 --api_key={REDACTED} --xla_dump_to=/tmp/x",
    ]
    assert redact_text('token="abc"') == f'token="{REDACTED}"'  # the quotes stay
    assert redact_text("token='abc") == f"token='{REDACTED}"  # an open quote: up to the end of the line


def test_redaction_is_idempotent() -> None:
    for text in ("https://:x@h/s password=<redacted> " + WANDB, "ghp_abcdefghijklmnopqrstuvwxyz0123456789"):
        once = redact_text(text)
        assert redact_text(once) == once


def test_a_json_key_is_the_context_of_its_value() -> None:
    assert redact_entry("password", "hunter2") == REDACTED
    assert redact_entry("git_version", WANDB) == WANDB  # torch/version.py
    assert redact_entry("__torch_gitrev__", WANDB) == WANDB  # torch_xla/version.py
    assert redact_entry("value", WANDB) == REDACTED


def test_environment_is_read_through_an_allow_list() -> None:
    env = {
        "PJRT_DEVICE": "CPU",
        "XLA_FLAGS": "--xla_dump_to=/tmp/x",
        "HOME": "/root",
        "AWS_SECRET_ACCESS_KEY": "abc",
        "KAGGLE_KEY": "0123456789abcdef0123456789abcdef",
        "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "PIP_INDEX_URL": "https://u:p@idx.example/simple",
    }
    assert allowed_environment(env) == {
        "PIP_INDEX_URL": f"https://{REDACTED}@idx.example/simple",
        "PJRT_DEVICE": "CPU",
        "XLA_FLAGS": "--xla_dump_to=/tmp/x",
    }


def test_every_variable_a_check_declares_is_one_a_snapshot_records() -> None:
    """A check sees only what the probe kept: a declared variable outside the allow-list would read as unset forever."""
    declared = {name for check in all_checks() for name in check.env if name != EVERY_VARIABLE}
    assert sorted(n for n in declared if not is_allowed_env_name(n)) == []
    assert not is_allowed_env_name("HOME")  # the test can fail: a name outside the list is refused


def test_redact_walks_nested_values() -> None:
    doc = {"a": ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", {"b": 3}], "c": None, "password": "x"}
    assert redact(doc) == {"a": [REDACTED, {"b": 3}], "c": None, "password": REDACTED}


def test_a_file_named_like_a_secret_keeps_the_error_after_it() -> None:
    assert redact_text("cannot read /srv/logs/secret.log: Permission denied") == (
        "cannot read /srv/logs/secret.log: Permission denied"
    )
    assert redact_text("secret: hunter2hunter2") == "secret: <redacted>"


def test_scrub_json_copies_only_what_it_changes() -> None:
    """A report with nothing to scrub is written as it is (compare's report of 10,000 workers is not held twice);
    one with a credential or a control sequence deep inside is copied, and the original is left as it was."""
    from xladoctor.sanitize import scrub_json

    clean = {"workers": [{"label": "w1", "n": 1, "ok": True}, {"label": "w2", "tags": ["a", "b"]}]}
    assert scrub_json(clean) is clean
    dirty = {"workers": [{"label": "w1"}, {"env": {"HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz0123"}, "t": "a\x1b[2Jb"}]}
    scrubbed = scrub_json(dirty)
    assert scrubbed["workers"][1] == {"env": {"HF_TOKEN": REDACTED}, "t": "ab"}, scrubbed
    assert scrubbed["workers"][0] is dirty["workers"][0]  # the part with nothing to scrub is shared
    assert dirty["workers"][1]["env"]["HF_TOKEN"].startswith("hf_") and dirty["workers"][1]["t"] == "a\x1b[2Jb"
    assert scrub_json({"k": ("x", "y")}) == {"k": ["x", "y"]}  # tuples and mappings become JSON's own types


def test_a_head_of_a_text_is_cut_after_redaction_never_before() -> None:
    from xladoctor.sanitize import scrubbed_head

    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    text = "x" * 190 + " " + token + " tail"
    head = scrubbed_head(text, 200)
    assert len(head) <= 200 and token[:6] not in head  # a raw slice would keep "hf_a1B2c3D": a secret's first part
    assert head.startswith("x" * 190)  # what comes before it is kept


def test_a_bounded_text_ends_at_a_word_or_at_the_bound() -> None:
    from xladoctor.sanitize import bounded

    assert bounded("a " * 1995 + "OutOfMemo!" + " tail", 4000, 400).endswith("a OutOfMemo!")  # a word ending there
    assert bounded("word\t" * 900, 4000, 400).endswith("word")  # a tab ends a word too
    assert len(bounded("x" * 5000, 4000, 400)) == 4000  # no white space near the bound: cut at it
    assert bounded("short", 4000, 400) == "short"


@pytest.mark.parametrize(
    "line",
    [
        "    key: random.KeyArray,",  # an annotation: a dotted name of words
        "tokenizer.pad_token = tokenizer.eos_token",  # a tokenizer's text token, not a credential
        "tokenizer.add_special_tokens({'pad_token': '[PAD]'})",
        "the tokenizer does not have a padding token. Please select a token to use as `pad_token`",  # a sentence
        "_deprecate_use_auth_token(fn_name=fn.__name__, has_token=has_token, kwargs=kwargs)",  # a keyword argument
        "pass `use_auth_token=True`",  # a literal
        "Prefill batch. #new-seq: 1, #cached-token: 0",  # a count of text tokens
        "    next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)",  # a call of code's receiver
        'No action for destination key "trainer.process_position" to check its value.',
        '    key = f"{triton_key()}-{src.hash()}-{backend.hash()}"',  # an f-string that interpolates
        "    PWD=/proc/self/cwd \\",  # the shell's working directory
        "undefined symbol: *ZNK3c1017SymbolicShapeMeta18init*is_contiguousEv",  # Markdown ate the symbol's '_'
        "(when checking argument for argument weight in method wrapper_CUDA___slow_conv2d_forward)",
    ],
)
def test_code_and_text_tokens_stay_readable(line: str) -> None:
    """A secret key's value that is code (a name, a literal, a call, a count) or a tokenizer's text token is the
    log's clue, not a credential (tests/corpus: these lines lost their words to redaction)."""
    assert redact_text(line) == line


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("hf_token = hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z"),
        ("access_token=ya29.a0AfH6SMBx3kQz9", "a0AfH6SMBx3kQz9"),  # Google OAuth: dotted, not of words
        ("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"),
        ("password: hunter2", "hunter2"),
        ("db_password = my.pass", "my.pass"),  # a password's value is never read as a dotted name
        ("DRIVER={ODBC};SERVER=db;UID=sa;PWD=s3cret;", "s3cret"),  # ODBC's PWD is a password
        ("auth_token: abcdefgh", "abcdefgh"),
    ],
)
def test_secret_values_that_resemble_code_still_go(line: str, secret: str) -> None:
    assert secret not in redact_text(line)


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("id_token: abcdefghijk", "abcdefghijk"),  # OpenID Connect's ID token is a credential
        ("new_token=Zq8xRt2wPm", "Zq8xRt2wPm"),
        ("mfa_token: 482913", "482913"),  # a one-time code is no count
        ("INPUT_TOKEN=k3j5h2l6m8n9p0q1", "k3j5h2l6m8n9p0q1"),  # GitHub Actions' input `token:`
        ("SPECIAL_ACCESS_TOKEN=s3cretV4lue", "s3cretV4lue"),
        ("GENERATED_TOKEN=abcdefghij", "abcdefghij"),
    ],
)
def test_credential_tokens_named_like_text_tokens_still_go(line: str, secret: str) -> None:
    assert secret not in redact_text(line)


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("JUPYTER_TOKEN=my_jupyter_token", "my_jupyter_token"),  # a user-chosen secret of words
        ("--NotebookApp.token=letmein_please", "letmein_please"),
        ("SECRET_KEY=change_me_in_production", "change_me_in_production"),
        ("client_secret: super_secret_value", "super_secret_value"),
        ('{"token": "my_token"}', "my_token"),
        ("https://example.com/api?token=abc_def&x=1", "abc_def"),
        ("X-Auth-Token: abc_def", "abc_def"),
        ("API_KEY=a1b2c3d4.e5f6g7h8i9j0", "a1b2c3d4.e5f6g7h8i9j0"),  # dotted, not code's names
        ('api_key = "abc123.def456"', "abc123.def456"),
        ("token: abc.def", "abc.def"),
        ('api_key: "foo.bar(SuperSecret99)"', "SuperSecret99"),
        ("export API_KEY=1234", "1234"),  # a short numeric key
        ("otp_secret=1234", "1234"),
        ("DRIVER={ODBC};UID=sa;PWD=/Secr3t;", "/Secr3t"),  # ODBC's PWD, not a shell's
        ("token. Abc123XyZ", "Abc123XyZ"),  # no sentence's word
        ('token = f"MySecret123"', "MySecret123"),  # a string's prefix does not hide the string
        ("token = b'MySecret123'", "MySecret123"),
    ],
)
def test_secrets_shaped_like_words_or_code_still_go(line: str, secret: str) -> None:
    """Only code's shapes are read as code (a literal, the key passed on, an attribute path from code's receiver or
    with a class's name): a credential of words, digits or dotted random pieces is redacted (found in review)."""
    assert secret not in redact_text(line), redact_text(line)

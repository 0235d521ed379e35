"""Credential redaction: secrets become `[REDACTED:<rule>]`, ordinary text survives, and
no secret reaches the catalog, the index or the write-ahead log."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from moraine.config import load_config
from moraine.index.tokenize import query_terms, tokenize
from moraine.ingest.pipeline import ingest_once
from moraine.model import SEARCHABLE_TYPES
from moraine.redaction.redact import redact
from moraine.store.engine import Store

_RNG = random.Random(1234)
_ALNUM = string.ascii_letters + string.digits


def _rand(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


# Fake credentials with the real shapes, assembled at runtime (no literal secrets in the repo).
AWS_KEY = "AK" + "IA" + _rand(string.ascii_uppercase + "234567", 16)
GITHUB = "gh" + "p_" + _rand(_ALNUM, 36)
OPENAI = "sk-" + "proj-" + _rand(_ALNUM + "_-", 48)
ANTHROPIC = "sk-" + "ant-api03-" + _rand(_ALNUM + "_-", 60)
SLACK = "xo" + "xb-" + "".join(_rand(string.digits, 12)) + "-" + _rand(string.digits, 13) + "-" + _rand(_ALNUM, 24)
PASSWORD = "".join(_RNG.sample(_ALNUM, 24))  # 24 distinct characters: high entropy
PEM_BODY = "\n".join(_rand(_ALNUM + "+/", 64) for _ in range(6))
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY + "\n-----END RSA PRIVATE KEY-----"

SECRETS = [
    (AWS_KEY, "aws-access-token"),
    (GITHUB, "github-token"),
    (OPENAI, "openai-api-key"),
    (ANTHROPIC, "anthropic-api-key"),
    (SLACK, "slack-token"),
]


@pytest.mark.parametrize(("secret", "rule"), SECRETS, ids=[r for _, r in SECRETS])
def test_token_shapes_are_redacted(secret: str, rule: str) -> None:
    out = redact(f"before {secret} after")
    assert out == f"before [REDACTED:{rule}] after"
    # also inside a raw JSON line, as the pipeline sees it; the line stays valid JSON
    line = json.dumps({"type": "x", "payload": {"output": f"export KEY={secret}; echo done"}})
    red = redact(line)
    assert secret not in red
    assert json.loads(red)["payload"]["output"] == f"export KEY=[REDACTED:{rule}]; echo done"


def test_aws_key_shape_is_exact() -> None:
    assert redact(AWS_KEY) == "[REDACTED:aws-access-token]"
    assert redact(AWS_KEY[:-1]) == AWS_KEY[:-1]  # 15 characters after the prefix: not a key
    assert redact(AWS_KEY + "Q") == AWS_KEY + "Q"  # part of a longer word: not a key


def test_generic_password_assignment_is_redacted() -> None:
    assert redact(f"password={PASSWORD}") == "password=[REDACTED:secret-assignment]"
    assert redact(f'db password: "{PASSWORD}"') == 'db password: "[REDACTED:secret-assignment]"'
    line = json.dumps({"cmd": f"mysql --password={PASSWORD} -h db"})
    red = redact(line)
    assert PASSWORD not in red and json.loads(red)["cmd"] == "mysql --password=[REDACTED:secret-assignment] -h db"


def test_pem_private_key_inside_a_json_string_is_redacted() -> None:
    line = json.dumps({"type": "response_item", "payload": {"output": "cat id_rsa\n" + PEM + "\ndone"}})
    assert "\\n" in line and "\n" not in line  # the key's newlines are JSON escapes
    red = redact(line)
    decoded = json.loads(red)
    assert decoded["payload"]["output"] == "cat id_rsa\n[REDACTED:pem-private-key]\ndone"
    for row in PEM_BODY.splitlines():
        assert row not in red
    # and the same block as plain text
    assert redact(PEM) == "[REDACTED:pem-private-key]"


@pytest.mark.parametrize(
    "text",
    [
        "snake_case_name parse_ts_ms getHTTPResponse ConnectionRefusedError",
        "edit /home/dev/.ssh/config and src/moraine/redaction/redact.py",
        "commit 3f2c9a1b7e4d5c6f8a9b0c1d2e3f4a5b6c7d8e9f fixed the flaky test",
        "reverted 9fceb02d0ae598e95dc970b74767f19372d61af8 after review",
        "password=changeme_example_value",
        "api_key=YOUR_API_KEY_HERE",
        "the auth token validation failed; refresh the credential helper",
        "token_count: 65323, secret_key_base is unset",
        "session 7c666c01-d38e-4658-8650-854ffb5b626e resumed",
        "export TOKEN_PATH=/var/run/secrets/kubernetes.io/serviceaccount/token",
        "def get_token(self): return self.access_token",
        "sk-learn is not a package name, scikit-learn is",
        "ghp_short",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == text


def test_redacting_raw_json_lines_keeps_them_valid() -> None:
    rng = random.Random(7)
    secrets = [s for s, _ in SECRETS] + [f"password={PASSWORD}", PEM, "token: " + PASSWORD]
    fillers = ["quote \" inside", "back\\slash", "tab\tand\nnewline", "unicode 検索 ✓", "{json: [1, 2]}", "='\""]
    for _ in range(400):
        parts = [rng.choice(secrets + fillers) for _ in range(rng.randint(1, 6))]
        value = rng.choice((" ", " = ", ": ", " \"", " '", ", ")).join(parts)
        record = {"type": "response_item", "payload": {"output": value, "arguments": json.dumps({"cmd": value})}}
        line = json.dumps(record, ensure_ascii=rng.random() < 0.5)
        red = redact(line)
        decoded = json.loads(red)  # the line stays valid JSON ...
        json.loads(decoded["payload"]["arguments"])  # ... and so does JSON nested in a string
        output = decoded["payload"]["output"]
        for secret, _ in SECRETS:
            assert secret not in output
        assert PASSWORD not in output and PEM_BODY.splitlines()[0] not in output
        for filler in fillers:
            if filler in value:
                assert filler in output  # ordinary text around the secrets survives


def test_pem_key_in_nested_json_arguments_is_redacted() -> None:
    line = json.dumps({"type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "arguments": json.dumps({"cmd": "cat > id_rsa <<EOF\n" + PEM})}})
    red = redact(line)
    assert PEM_BODY.splitlines()[0] not in red


@pytest.mark.parametrize("escape", ["\n", "\t", "\r"])
def test_secret_right_after_a_json_escape_is_redacted(escape: str) -> None:
    leaks = []
    for secret, _rule in SECRETS:
        line = json.dumps({"output": f"first line{escape}{secret}{escape}last line"})
        if secret in redact(line):
            leaks.append(_rule)
    assert leaks == []


def test_identifier_after_a_keyword_in_prose_is_kept() -> None:
    text = "the token refreshAccessTokenIfExpired is called on every request"
    assert redact(text) == text


# -- end to end --------------------------------------------------------------------------------

CODEX_SID = "019c5f6a-49bd-7920-ac67-1dd8e33b0e95"
CLAUDE_SID = "7c666c01-d38e-4658-8650-854ffb5b626e"


def _codex_lines() -> list[str]:
    ts = "2026-02-15T03:50:{:02d}.000Z"
    output = (f"Exit code: 0\nOutput:\nAWS_ACCESS_KEY_ID={AWS_KEY}\nGITHUB_TOKEN={GITHUB}\n"
              f"slack bot {SLACK} configured\npassword={PASSWORD}\n{PEM}\nbuild finished")
    records = [
        {"timestamp": ts.format(0), "type": "session_meta", "payload": {"id": CODEX_SID, "cwd": "/repo"}},
        {"timestamp": ts.format(1), "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": f"deploy using key {OPENAI} please"}]}},
        {"timestamp": ts.format(2), "type": "response_item", "payload": {
            "type": "function_call", "call_id": "call_env", "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", f"export ANTHROPIC_API_KEY={ANTHROPIC} && env"]})}},
        {"timestamp": ts.format(3), "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_env", "output": output}},
        {"timestamp": ts.format(4), "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "deployment configured with the environment"}]}},
    ]
    return [json.dumps(r) for r in records] + ['{"timestamp": "broken line with ' + GITHUB + '"']


def _claude_lines() -> list[str]:
    base = {"sessionId": CLAUDE_SID, "cwd": "/repo"}
    records = [
        {**base, "type": "user", "timestamp": "2026-01-19T15:58:40.000Z",
         "message": {"role": "user", "content": "rotate the deploy credentials"}},
        {**base, "type": "assistant", "timestamp": "2026-01-19T15:58:41.000Z",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": f"echo {GITHUB}"}}]}},
        {**base, "type": "user", "timestamp": "2026-01-19T15:58:42.000Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_1", "content": f"token {SLACK} and {AWS_KEY}"}]}},
    ]
    return [json.dumps(r) for r in records]


@pytest.fixture
def secret_store(tmp_path: Path) -> Store:
    codex = tmp_path / "codex" / "sessions" / "2026" / "02" / "15"
    codex.mkdir(parents=True)
    (codex / f"rollout-2026-02-15T03-50-40-{CODEX_SID}.jsonl").write_text("\n".join(_codex_lines()) + "\n")
    claude = tmp_path / "claude" / "projects" / "-repo"
    claude.mkdir(parents=True)
    (claude / f"{CLAUDE_SID}.jsonl").write_text("\n".join(_claude_lines()) + "\n")
    config = load_config(overrides={"home": str(tmp_path / "state")},
                         env={"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    store = Store(config)
    ingest_once(store)
    return store


ALL_SECRETS = [s for s, _ in SECRETS] + [PASSWORD, *PEM_BODY.splitlines()]


def _distinct_secret_terms() -> set[str]:
    """Index terms only a secret could produce (none of the logs' ordinary words)."""
    ordinary: set[str] = set()
    for line in _codex_lines() + _claude_lines():
        decoded = line
        for secret in ALL_SECRETS:
            line = line.replace(secret, " ")
            decoded = decoded.replace(json.dumps(secret)[1:-1], " ")
        ordinary.update(tokenize(line))
        ordinary.update(tokenize(line.encode().decode("unicode_escape")))
    terms = set()
    for secret in ALL_SECRETS:
        terms.update(t for t in tokenize(secret) if t not in ordinary)
    return terms


def test_no_secret_reaches_catalog_index_or_wal(secret_store: Store) -> None:
    store = secret_store
    catalog = store.catalog
    assert len(catalog.content) >= 8
    texts = []
    for doc in range(len(catalog.content)):
        event = catalog.event(doc)
        blob = event.text + "\n" + json.dumps(event.arguments) + "\n" + json.dumps(event.meta)
        texts.append(blob)
        for secret in ALL_SECRETS:
            assert secret not in blob, (event.type, secret[:8])
    joined = "\n".join(texts)
    # the redactions are visible where the secrets were, the ordinary words are intact
    for rule in ("aws-access-token", "github-token", "openai-api-key", "anthropic-api-key", "slack-token",
                 "pem-private-key", "secret-assignment"):
        assert f"[REDACTED:{rule}]" in joined, rule
    assert "build finished" in joined and "deployment configured" in joined
    # quarantined fragments are redacted too
    assert store.stats.issues, "the broken line is quarantined"
    for issue in store.stats.issues:
        for secret in ALL_SECRETS:
            assert secret not in issue.fragment

    # the index holds no posting for any term only a secret would produce
    secret_terms = _distinct_secret_terms()
    assert len(secret_terms) > 20
    for term in secret_terms:
        assert len(store.index.postings(term)[0]) == 0, term
    for secret in ALL_SECRETS:
        hits = store.search(query_terms(secret, 16), 50, list(SEARCHABLE_TYPES), None, None)
        for doc in hits.docs.tolist():
            assert secret not in catalog.event(int(doc)).text
        if set(query_terms(secret, 32)) <= secret_terms:
            assert hits.total == 0
    # ordinary words still are searchable
    assert store.search(query_terms("deployment configured", 16), 5, list(SEARCHABLE_TYPES), None, None).total >= 1

    # nor a byte of any secret in the state files (msgpack stores strings as raw UTF-8)
    wal = b"".join(p.read_bytes() for p in store.home.rglob("*") if p.is_file())
    assert b"REDACTED" in wal
    for secret in ALL_SECRETS:
        assert secret.encode() not in wal
        assert secret[4:20].encode() not in wal


def test_secret_on_its_own_output_line_never_reaches_the_wal(tmp_path: Path) -> None:
    folder = tmp_path / "codex" / "sessions" / "2026" / "02" / "15"
    folder.mkdir(parents=True)
    lines = [
        {"timestamp": "2026-02-15T03:50:40.000Z", "type": "session_meta", "payload": {"id": CODEX_SID}},
        {"timestamp": "2026-02-15T03:50:41.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "c1",
            "output": f"Exit code: 0\nOutput:\n{GITHUB}\n{AWS_KEY}\n"}},
    ]
    (folder / f"rollout-2026-02-15T03-50-40-{CODEX_SID}.jsonl").write_text(
        "\n".join(json.dumps(r) for r in lines) + "\n")
    config = load_config(overrides={"home": str(tmp_path / "state"), "store": {"fsync": "never"}},
                         env={"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cl")})
    store = Store(config)
    ingest_once(store)
    wal = (tmp_path / "state" / "wal" / "00000001.log").read_bytes()
    assert GITHUB.encode() not in wal and AWS_KEY.encode() not in wal


@pytest.mark.parametrize("line", [
    '{"output": "{\\"db\\": {\\"password\\": \\"Hq7zP2mX9vLk4RtY8wNc3Bd\\"}}"}',
    '{"output": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9kLmNo"}',
    '{"output": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9kLmNo"}',
    '{"output": "export GITHUB_TOKEN=\\"Zq4Lm8Np2Rt6Vx0Bc3Df7Gh\\""}',
])
def test_generic_secrets_in_escaped_json_and_env_names_are_redacted(line: str) -> None:
    out = redact(line)
    assert "[REDACTED:secret-assignment]" in out
    for secret in ("Hq7zP2mX9vLk4RtY8wNc3Bd", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9kLmNo", "Zq4Lm8Np2Rt6Vx0Bc3Df7Gh"):
        assert secret not in out
    json.loads(out)


def test_shortest_credential_is_still_redacted() -> None:
    """Texts shorter than any rule can match are returned at once; the shortest credential a
    rule can match (`pwd=` and a four-character value) is not below that line."""
    assert redact("pwd=7Kq!") == "pwd=[REDACTED:secret-assignment]"
    assert redact("pwd=7Kq") == "pwd=7Kq"


def _tool_output(rng: random.Random) -> str:
    """A realistic tool output with no credential in it: hashes, ids, paths, versions, base64,
    config keys that merely mention tokens, passwords and auth."""
    hexs = lambda n: "".join(rng.choice("0123456789abcdef") for _ in range(n))  # noqa: E731
    b64 = lambda n: "".join(rng.choice(_ALNUM + "+/") for _ in range(n))  # noqa: E731
    word = lambda: rng.choice(["fix", "migration", "parser", "retry", "cache", "index", "token", "auth", "users"])  # noqa: E731
    name = "_".join(word() for _ in range(rng.randint(1, 3)))
    uid = f"{hexs(8)}-{hexs(4)}-4{hexs(3)}-a{hexs(3)}-{hexs(12)}"
    lines = [
        f"{hexs(7)} {word()} the {word()} {name}",
        f"commit {hexs(40)}\nAuthor: Dev Person <dev@example.com>\nDate:   Mon Nov 23 10:{rng.randint(10, 59)}:00 2026",
        f"tests/unit/test_{name}.py::test_{name}_{rng.randint(1, 99)} PASSED [{rng.randint(1, 99):3d}%]",
        f"===== {rng.randint(1, 900)} passed, {rng.randint(0, 3)} skipped in {rng.random() * 90:.2f}s =====",
        f"Successfully installed numpy-2.{rng.randint(0, 3)}.{rng.randint(0, 9)} pydantic-2.9.2 tokenizers-0.20.1",
        f"-rw-r--r-- 1 dev dev {rng.randint(10, 99999)} Nov 24 13:11 src/{name}.py",
        f'  File "/home/dev/app/{name}.py", line {rng.randint(1, 900)}, in {name}',
        f'{{"max_tokens": {rng.randint(1, 9) * 1024}, "model": "claude-sonnet-4-5", "token_budget": 1000, '
        f'"auth_method": "oauth", "token_type": "bearer", "tokens_used": {rng.randint(1, 99999)}}}',
        f"{hexs(64)}  dist/{name}.tar.gz",
        f"request_id={uid} status=200 duration_ms={rng.randint(1, 999)} session={uid}",
        f"pod/{name.replace('_', '-')}-{hexs(9)}-{hexs(5)}   1/1   Running   0   3h",
        f'"integrity": "sha512-{b64(86)}=="',
        "password_hash_algorithm: argon2id\ntoken_ttl_seconds: 3600\nauth_required: true",
        "export TOKENIZERS_PARALLELISM=false HOME=/home/dev LANG=en_US.UTF-8 PATH=/usr/local/bin:/usr/bin",
        f"{hexs(12)}   postgres:16   \"docker-entrypoint.s…\"   2 hours ago   Up 2 hours   0.0.0.0:5432->5432/tcp",
        f"def refresh_{name}(self, token: str) -> None:\n    self.token = token\n    self.{name} = None",
        f"![chart](data:image/png;base64,iVBORw0KGgo{b64(120)})",
    ]
    return "\n".join(rng.sample(lines, rng.randint(3, 9)))


def test_generated_tool_outputs_are_kept() -> None:
    """3,000 generated tool outputs without a credential come back unchanged (the probe that
    opened issue 9 saw 2 of 3,000 altered)."""
    rng = random.Random(90)
    altered = [(text, redact(text)) for text in (_tool_output(rng) for _ in range(3000)) if redact(text) != text]
    assert altered == [], altered[:3]


# -- the general rules: ids kept, encoded forms mapped back, partners, cookies, paths -------------

def _hex(n: int) -> str:
    return _rand("0123456789abcdef", n)


@pytest.mark.parametrize("text", [
    f"github, commit {_hex(40)}",
    f"docker pull ghcr.io/acme/api@sha256:{_hex(64)}",
    f"stripe charge ch_{_rand(_ALNUM, 24)} and anthropic msg_01{_rand(_ALNUM, 22)}",
    f"twilio account AC{_hex(32)}",
    f"{_hex(7)} fix the token refresh",
    f"{_hex(64)}  secrets.tar.gz",
])
def test_ids_beside_context_words_are_kept(text: str) -> None:
    assert redact(text) == text


def test_a_url_encoded_token_is_redacted_where_it_is_encoded() -> None:
    body = _rand(_ALNUM, 36)
    text = f"GET /cb?next=%2Frepos%3Fauth%3Dghp%5F{body} HTTP/1.1"
    assert redact(text) == "GET /cb?next=%2Frepos%3Fauth%3D[REDACTED:github-token] HTTP/1.1"


def test_a_base64_env_file_is_redacted_whole() -> None:
    import base64
    blob = base64.b64encode(f"DB_USER=app\nDB_PASSWORD={PASSWORD}\n".encode()).decode()
    assert redact(f"data: {blob} (from CI)") == "data: [REDACTED:base64-secret-assignment] (from CI)"


def test_the_partner_of_an_aws_key_id_is_redacted() -> None:
    secret = _rand(_ALNUM + "+/", 40)
    assert redact(f"{AWS_KEY}  {secret}") == "[REDACTED:aws-access-token]  [REDACTED:secret-beside-id]"
    sid, token = "AC" + _hex(32), _hex(32)
    assert redact(f"Client('{sid}', '{token}')") == f"Client('{sid}', '[REDACTED:secret-beside-id]')"


def test_cookies_lose_their_credentials_only() -> None:
    sid = _rand(string.ascii_lowercase + string.digits, 32)
    out = redact(f"Cookie: theme=dark; sessionid={sid}; lang=en")
    assert out.startswith("Cookie: theme=dark; sessionid=[REDACTED:") and out.endswith("]; lang=en")
    assert redact("Cookie: theme=dark; lang=en") == "Cookie: theme=dark; lang=en"


def test_a_claude_folder_named_after_a_cwd_with_a_token_is_redacted() -> None:
    from moraine.redaction.redact import redact_path
    body = _rand(_ALNUM, 36)
    path = f"/home/dev/.claude/projects/-home-dev-ghp-{body}/s.jsonl"
    assert body not in redact_path(path)


def test_a_value_under_a_secret_key_is_redacted_as_a_field() -> None:
    from moraine.redaction.redact import redact_field
    assert redact_field("password", "hunter22!") == "[REDACTED:secret-assignment]"
    assert redact_field("path", "hunter22!") == "hunter22!"
    assert redact_field("token_type", "bearer") == "bearer"


def test_a_long_text_is_searched_again_when_the_set_finds_nothing() -> None:
    filler = "plain words and code, nothing else; " * 2000
    assert redact(filler + GITHUB) == filler + "[REDACTED:github-token]"


@pytest.mark.parametrize("template", [
    "I set MISTRAL_API_KEY to {v} earlier",
    "the cohere key {v} stopped working",
    "vault login s.{v}",
    '<add key="ClearTextPassword" value="{v}" />',
    "keytool -importkeystore -srcstorepass {v}",
])
def test_prefixless_values_beside_their_words_are_redacted(template: str) -> None:
    value = "".join(random.Random(template).sample(_ALNUM, 24))
    assert value not in redact(template.format(v=value))


@pytest.mark.parametrize("text", ["vault login -method=github", '<add key="Theme" value="dark" />',
                                  "the MAX_TOKENS_PER_REQUEST setting is 4096", "self._api_key = api_key"])
def test_their_lookalikes_are_kept(text: str) -> None:
    assert redact(text) == text

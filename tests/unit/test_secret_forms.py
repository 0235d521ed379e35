"""Credentials in the forms the rules once missed, and the values beside them that must be kept.

Secrets: a name and its value in two fields of a record (`secret_records.py`), a secret-named
table column, literal arguments of APIs that take a secret, keys named by a word that is no
secret on its own (`MAPS_SERVER_KEY`, `RootPass`), prose with fillers and other languages'
words, recovery keys and join tokens. Kept: placeholders, masks, version ranges, public values
known by their marker, API object ids and ULIDs in names, keys that are no secret. The values
are written here, not drawn from the evaluation corpora (tools/secret_eval)."""

from __future__ import annotations

import pytest

from moraine.redaction.redact import redact, redact_name

SECRET = "Vq8Lr2Xn7Kw4Tz9Hb3Jd"  # a generated credential
CHOSEN = "HarborLantern82Quill!"  # a chosen one


@pytest.mark.parametrize("text", [
    # a name field, then the value field
    f"env:\n- name: STRIPE_TOKEN\n  value: \"{SECRET}\"",
    f'[{{"name": "DB_PASSWORD", "value": "{SECRET}"}}, {{"name": "LOG_LEVEL", "value": "debug"}}]',
    f'{{"key": "access_token", "value": "{SECRET}", "enabled": true}}',
    f"headers:\n  - name: X-Api-Key\n    value: {SECRET}",
    f'variable "admin_password" {{\n  type = string\n  default = "{SECRET}"\n}}',
    f'<property name="spring.datasource.password">{SECRET}</property>',
    f'<param name="password" value="{SECRET}"/>',
    f'<elementProp name="token">\n  <stringProp name="Argument.name">t</stringProp>\n'
    f'  <stringProp name="Argument.value">{SECRET}</stringProp>',
    # a secret-named column
    f"| host | login | password |\n|---|---|---|\n| db1 | app | {SECRET} |",
    f"| service | API key |\n| --- | --- |\n| search | {SECRET} |",
    # an API's secret argument
    f'signed = jwt.encode({{"sub": uid, "iat": now}}, "{CHOSEN}", algorithm="HS512")',
    f"const t = jwt.sign(claims, '{SECRET}', {{ expiresIn: '2h' }})",
    f'a := smtp.PlainAuth("", "ops@corp.example", "{SECRET}", "smtp.corp.example")',
    f'mysql_real_connect(db, "10.0.0.5", "svc", "{CHOSEN}", "app", 3306, NULL, 0);',
    f'curl_easy_setopt(h, CURLOPT_USERPWD, "deploy:{SECRET}");',
    f'local ok, err = red:auth("{SECRET}")',
    f'opts = PgConnectOptions::new().username("app").password("{CHOSEN}")',
    f'api_key: SecretStr = SecretStr("{SECRET}")',
    # keys named by a word that is no secret on its own
    f'const val MAPS_SERVER_KEY = "{SECRET}"',
    f"RootPass: {SECRET}",
    f'MYSQL_ROOT_PASSWORD: "*{SECRET}"',
    f"KEY = b'{SECRET}'",
    f"https://api.example.org/v2/geo?q=Lyon&key={SECRET}&units=metric",
    # prose
    f"my password is literally {CHOSEN} dont tell anyone",
    f"@channel new VPN pre-shared key: {CHOSEN} (rotates monday)",
    'the passphrase is "copper lantern orbit thistle"',
    "the passphrase is 'copper_lantern_orbit_thistle'",
    f"pass is {CHOSEN} — with the capital",
    f"mật khẩu là {CHOSEN} nhé",
    f"รหัสผ่านคือ {CHOSEN} นะ",
    f"سرور کا پاس ورڈ {CHOSEN} ہے",
    f"bimilbeonho: {CHOSEN}",
    f"kodikos: {CHOSEN}",
    f"el password howa {CHOSEN} ya basha",
    # shapes
    "Recovery Key: 104819-385022-219362-007711-538190-662210-448800-127754",
    "K10" + "3f" * 32 + "::server:" + "9c" * 16,
])
def test_secret_is_redacted(text: str) -> None:
    out = redact(text)
    for value in (SECRET, CHOSEN, "copper lantern orbit thistle", "copper_lantern_orbit_thistle",
                  "104819-385022", "9c9c9c9c9c9c9c9c"):
        assert value not in out, out


@pytest.mark.parametrize("text", [
    "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  # put yours here",
    '"dependencies": {"jsonwebtoken": "^9.0.2", "bcrypt": "~5.1.1"}',
    "Name: ci   Secret key: sk-...Qx7w   Created: 2026-03-01",
    "Secret key  ••••••••••••Qx7w  Reveal",
    '"result_key": "ServerlessV2PlatformVersions"',
    "Cache restored from key: Linux-node-4c7e9d2a1b3f5e6d7c8b9a0f1e2d3c4b5a6f7e8d",
    "applicationServerKey: BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u",
    "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef: {name: api, key: token}",
    '{"name": "token_count", "value": 4096}',
    "| field | type | notes |\n|---|---|---|\n| password | string | the user's password |",
    "| name | password |\n|---|---|\n| admin | (set on first login) |",
    'jwt.decode(token, key, algorithms=["HS256"])',
])
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("name", [
    '<script integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin>',
    "ED25519 key fingerprint is SHA256:p2QAMXNIC1TJYWeIOttrVc98/R1BUFWu3/LiyKgUfQM.",
    "PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=",
    "GET /.well-known/acme-challenge/LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0 HTTP/1.1",
    "Tor service at http://pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion/",
    "posthog.init('phc_3pTq8vYz0LmN5aKd7RbXc2WfGh9JsUe4QiOo1PlVn6M', {api_host: 'https://eu.i.posthog.com'})",
    "request failed, invalid x-api-key, request_id req_011CZ8kL3mN9pQ2rS5tV7wXy",
    '{"event_id": "01JQ3V8ZK4M2N7P9R5T6W8X0YB", "type": "login"}',
])
def test_public_values_in_names_are_kept(name: str) -> None:
    assert redact_name(name) == name


def test_overlapping_findings_leave_no_tail() -> None:
    """Two rules that find overlapping spans are joined: the later one's end is redacted too."""
    value = "6a34604e200b98ae6aae5b4bb4d94d42d019674d2f29f393173dbc6124987db4238716"
    assert value[-20:] not in redact_name(f"SECRET_KEY_BASE={value}")

"""A seeded corpus of credentials (that redaction must remove) and of code-like lookalikes
(that it must keep verbatim), for the redaction unit tests and the end-to-end secret test.

Every credential is generated at run time by a `random.Random(seed)` in its real format
(prefix, length, alphabet; gitleaks rule ids and detect-secrets plugins are named in
`Secret.source`). No credential literal is written in this file: the fixed prefixes are
assembled from pieces (`"gh" + "p_"`), so secret scanners never flag the repository.

`Secret.secret` is the part that must never be stored: the random body of a token (its fixed
prefix is not secret), the password of a URI or an assignment (user names, hosts and keys are
not secret), or one body line of a PEM block.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    kind: str  # stable kebab-case name
    source: str  # where the format is documented
    text: str  # the string as it would appear in a log line
    secret: str  # the part that must never be stored


@dataclass(frozen=True)
class Lookalike:
    kind: str
    text: str  # must be kept verbatim by redaction


_UPPER = string.ascii_uppercase
_LOWER = string.ascii_lowercase
_DIGITS = string.digits
_ALNUM = _UPPER + _LOWER + _DIGITS
_LOWER_ALNUM = _LOWER + _DIGITS
_UPPER_ALNUM = _UPPER + _DIGITS
_HEX = "0123456789abcdef"
_B32 = _UPPER + "234567"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "_-"
_BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
_PUNCT = "!#%^*@"
_URI_PUNCT = "!*^~"  # safe inside the userinfo of a URI (no @ / : # ? %)


def _p(*pieces: str) -> str:
    """A fixed prefix assembled from pieces, so the source never holds a scannable literal."""
    return "".join(pieces)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def mixed(self, alphabet: str, n: int) -> str:
        """`n` characters from `alphabet` holding at least one upper, lower and digit (when
        the alphabet has them), so no value is a plain word or number."""
        while True:
            value = self.chars(alphabet, n)
            wanted = [cls for cls in (_UPPER, _LOWER, _DIGITS) if set(cls) & set(alphabet)]
            if all(set(value) & set(cls) for cls in wanted) and value[0].isalpha():
                return value

    def password(self, n: int = 14, punct: str = _PUNCT) -> str:
        """Letters, digits and punctuation, starting with a letter, at least 10 characters."""
        rng = self.rng
        body = [rng.choice(_UPPER), rng.choice(_LOWER), rng.choice(_DIGITS), rng.choice(_DIGITS),
                rng.choice(punct), rng.choice(punct)]
        body += [rng.choice(_ALNUM + punct) for _ in range(max(n, 10) - len(body) - 1)]
        rng.shuffle(body)
        return rng.choice(_LOWER + _UPPER) + "".join(body)

    def digits(self, n: int) -> str:
        return self.rng.choice("123456789") + self.chars(_DIGITS, n - 1)

    def uuid4(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def pem_lines(self, first: str, n_lines: int, width: int = 64) -> list[str]:
        lines = [first + self.chars(_B64, width - len(first))]
        lines += [self.chars(_B64, width) for _ in range(n_lines - 1)]
        tail = self.chars(_B64, self.rng.randint(20, 50))
        return [*lines, tail + "=" * ((4 - len(tail) % 4) % 4)]

    def word(self) -> str:
        return self.rng.choice(("deploy", "svc", "ci", "app", "backend", "worker", "ops"))


def _pem(label: str, lines: list[str]) -> tuple[str, str]:
    begin, end = _p("-----BEGIN ", label, "-----"), _p("-----END ", label, "-----")
    return "\n".join([begin, *lines, end]), lines[1]


def secrets(seed: int = 0) -> list[Secret]:
    """At least 50 kinds of credentials, each in a realistic line, random per seed."""
    g = _Gen(seed)
    out: list[Secret] = []

    def add(kind: str, source: str, text: str, secret: str) -> None:
        assert secret in text and len(secret) >= 8, (kind, secret)
        out.append(Secret(kind, source, text, secret))

    # -- AWS ---------------------------------------------------------------------------------
    body = g.chars(_B32, 16)
    akia = _p("AK", "IA") + body
    add("aws-access-key-id", "gitleaks:aws-access-token", f"export AWS_ACCESS_KEY_ID={akia}", body)
    aws_secret = g.mixed(_B64, 40)
    add("aws-secret-access-key-prose", "detect-secrets:AWSKeyDetector",
        f"my aws secret is {aws_secret} and it only has read rights", aws_secret)
    aws_secret = g.mixed(_B64, 40)
    key_id = _p("AK", "IA") + g.chars(_B32, 16)
    add("aws-secret-access-key-credentials-file", "AWS docs: shared credentials file",
        f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {aws_secret}\nregion = eu-west-1",
        aws_secret)
    body = g.chars(_B32, 16)
    add("aws-key-after-newline", "gitleaks:aws-access-token",
        f"Exit code: 0\nOutput:\n{_p('AS', 'IA')}{body}\n", body)
    body = g.chars(_B32, 16)
    add("aws-key-after-json-escape", "gitleaks:aws-access-token",
        f'printf "id\\n{_p("AK", "IA")}{body}\\n" >> creds.txt', body)

    # -- GitHub / GitLab ---------------------------------------------------------------------
    for kind, prefix, rule in (
        ("github-classic-pat", _p("gh", "p_"), "gitleaks:github-pat"),
        ("github-oauth-token", _p("gh", "o_"), "gitleaks:github-oauth"),
        ("github-user-to-server-token", _p("gh", "u_"), "gitleaks:github-app-token"),
        ("github-server-to-server-token", _p("gh", "s_"), "gitleaks:github-app-token"),
        ("github-refresh-token", _p("gh", "r_"), "gitleaks:github-refresh-token"),
    ):
        body = g.mixed(_ALNUM, 36)
        add(kind, rule, f"git remote set-url origin https://x-access-token:{prefix}{body}@github.com/acme/api.git"
            if kind == "github-server-to-server-token" else f"GH_TOKEN={prefix}{body} gh pr list", body)
    body = g.mixed(_ALNUM, 22) + "_" + g.mixed(_ALNUM, 59)
    add("github-fine-grained-pat", "gitleaks:github-fine-grained-pat",
        f"Using token {_p('github', '_pat_')}{body} for the release job", body)
    body = g.mixed(_URLSAFE, 20)
    add("gitlab-pat", "gitleaks:gitlab-pat",
        f"curl --header \"PRIVATE-TOKEN: {_p('gl', 'pat-')}{body}\" https://gitlab.com/api/v4/projects", body)
    body = g.mixed(_URLSAFE, 20)
    add("gitlab-runner-token", "gitleaks:gitlab-runner-authentication-token",
        f"gitlab-runner register --url https://gitlab.com --token {_p('gl', 'rt-')}{body}", body)

    # -- Slack / Discord / Telegram ----------------------------------------------------------
    body = g.mixed(_ALNUM, 24)
    add("slack-bot-token", "gitleaks:slack-bot-token",
        f"SLACK_BOT_TOKEN={_p('xo', 'xb-')}{g.digits(12)}-{g.digits(13)}-{body}", body)
    body = g.chars(_HEX, 32)
    add("slack-user-token", "gitleaks:slack-user-token",
        f"slack user token {_p('xo', 'xp-')}{g.digits(12)}-{g.digits(12)}-{g.digits(13)}-{body}", body)
    body = g.chars(_HEX, 64)
    add("slack-app-token", "gitleaks:slack-app-token",
        f"socket mode: {_p('xa', 'pp-')}1-A{g.chars(_UPPER_ALNUM, 10)}-{g.digits(13)}-{body}", body)
    body = g.mixed(_ALNUM, 24)
    add("slack-webhook-url", "gitleaks:slack-webhook-url",
        f"curl -X POST -d @msg.json https://{_p('hooks.', 'slack.com')}/services/T{g.chars(_UPPER_ALNUM, 9)}"
        f"/B{g.chars(_UPPER_ALNUM, 10)}/{body}", body)
    body = g.mixed(_URLSAFE, 68)
    add("discord-webhook-url", "Discord developer docs: Webhook resource (execute webhook URL)",
        f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{g.digits(19)}/{body}", body)
    token = (g.rng.choice("MN") + g.mixed(_ALNUM, 25) + "." + g.mixed(_URLSAFE, 6) + "." + g.mixed(_URLSAFE, 38))
    add("discord-bot-token", "Discord developer docs: bot token (Authorization: Bot)",
        f"client.run('{token}')  # discord bot", token)
    body = g.mixed(_URLSAFE, 33)
    add("telegram-bot-token", "gitleaks:telegram-bot-api-token",
        f"curl https://api.telegram.org/bot{g.digits(10)}:AA{body}/getMe", body)

    # -- Google ------------------------------------------------------------------------------
    body = g.mixed(_URLSAFE, 35)
    add("google-api-key", "gitleaks:gcp-api-key",
        f"https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={_p('AI', 'za')}{body}", body)
    body = g.mixed(_URLSAFE, 120)
    add("google-oauth-access-token", "Google OAuth 2.0 docs: access token (ya29.)",
        f"gcloud printed {_p('ya', '29.')}{body}", body)
    body = g.mixed(_URLSAFE, 28)
    add("google-oauth-client-secret", "gitleaks:gcp-client-secret (GOCSPX-)",
        f'"client_secret": "{_p("GOC", "SPX-")}{body}"', body)
    lines = g.pem_lines("MIIEv", 6)
    block = "\\n".join([_p("-----BEGIN ", "PRIVATE KEY-----"), *lines, _p("-----END ", "PRIVATE KEY-----")])
    add("gcp-service-account-private-key", "gitleaks:private-key (GCP service-account JSON)",
        json.dumps({"type": "service_account", "project_id": "acme-prod", "private_key_id": g.chars(_HEX, 40)})[:-1]
        + f', "private_key": "{block}\\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}}', lines[1])

    # -- Private key blocks ------------------------------------------------------------------
    text, secret = _pem("RSA PRIVATE KEY", g.pem_lines("MIIEpAIBAAKCAQEA", 8))
    add("rsa-private-key", "gitleaks:private-key", text, secret)
    text, secret = _pem("OPENSSH PRIVATE KEY", g.pem_lines("b3BlbnNzaC1rZXktdjEAAAAA", 6, 70))
    add("openssh-private-key", "gitleaks:private-key", "$ cat ~/.ssh/id_ed25519\n" + text, secret)
    text, secret = _pem("EC PRIVATE KEY", g.pem_lines("MHcCAQEEI", 3))
    add("ec-private-key", "gitleaks:private-key", text, secret)
    text, secret = _pem("PRIVATE KEY", g.pem_lines("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 6))
    add("pkcs8-private-key", "gitleaks:private-key", text, secret)
    lines = g.pem_lines("lQOYBG", 7)
    pgp = "\n".join([_p("-----BEGIN PGP ", "PRIVATE KEY BLOCK-----"), "", *lines, "=" + g.chars(_B64, 4),
                     _p("-----END PGP ", "PRIVATE KEY BLOCK-----")])
    add("pgp-private-key-block", "gitleaks:private-key (PGP armor)", pgp, lines[1])

    # -- JWT, payment, AI vendors ------------------------------------------------------------
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
    claims = json.dumps({"sub": g.uuid4(), "iat": 1_767_225_600 + g.rng.randint(0, 10**6), "jti": g.chars(_ALNUM, 16)})
    payload = base64.urlsafe_b64encode(claims.encode()).rstrip(b"=").decode()
    jwt = f"{header}.{payload}.{g.mixed(_URLSAFE, 43)}"
    add("jwt", "gitleaks:jwt", f"curl -H 'Cookie: session={jwt}' https://api.internal.io/v1/me", jwt)
    body = g.mixed(_ALNUM, 99)
    add("stripe-secret-key", "gitleaks:stripe-access-token", f"stripe.api_key = '{_p('sk', '_live_')}{body}'", body)
    body = g.mixed(_ALNUM, 24)
    add("stripe-restricted-key", "gitleaks:stripe-access-token",
        f"STRIPE_RESTRICTED={_p('rk', '_live_')}{body}", body)
    body = g.mixed(_ALNUM, 32)
    add("stripe-webhook-secret", "Stripe docs: webhook signing secret (whsec_)",
        f"stripe listen prints: Your webhook signing secret is {_p('wh', 'sec_')}{body}", body)
    body = g.mixed(_URLSAFE, 93) + "AA"
    add("anthropic-api-key", "gitleaks:anthropic-api-key",
        f"ANTHROPIC_API_KEY={_p('sk-', 'ant-', 'api03-')}{body}", body)
    body = g.mixed(_URLSAFE, 74) + _p("T3Blb", "kFJ") + g.mixed(_URLSAFE, 74)
    add("openai-project-key", "gitleaks:openai-api-key",
        f"client = OpenAI(api_key=\"{_p('sk-', 'proj-')}{body}\")", body)
    body = g.mixed(_ALNUM, 20) + _p("T3Blb", "kFJ") + g.mixed(_ALNUM, 20)
    add("openai-legacy-key", "gitleaks:openai-api-key", f"openai.api_key = {_p('sk', '-')}{body}", body)
    body = g.mixed(_LOWER + _UPPER, 34)
    add("huggingface-token", "gitleaks:huggingface-access-token",
        f"huggingface-cli login --token {_p('h', 'f_')}{body}", body)
    secret = g.mixed(_URLSAFE, 22) + "." + g.mixed(_URLSAFE, 43)
    add("sendgrid-api-key", "gitleaks:sendgrid-api-token", f"sendgrid key {_p('S', 'G.')}{secret}", secret)
    body = g.mixed(_ALNUM, 48)
    add("groq-api-key", "gitleaks:groq-api-key", f"export GROQ_KEY={_p('gs', 'k_')}{body}", body)
    body = g.chars(_HEX, 64)
    add("openrouter-api-key", "OpenRouter docs: API keys (sk-or-v1-)",
        f"OPENROUTER={_p('sk-', 'or-v1-')}{body}", body)
    body = g.mixed(_ALNUM, 32)
    add("tavily-api-key", "vendor:Tavily", f"TavilyClient(api_key=\"{_p('tv', 'ly-')}{body}\")", body)
    body = g.mixed(_LOWER_ALNUM, 48)
    add("cerebras-api-key", "vendor:Cerebras", f"CEREBRAS_API_KEY={_p('cs', 'k-')}{body}", body)
    body = g.mixed(_ALNUM, 60)
    add("jina-api-key", "vendor:Jina AI", f"-H 'Authorization: {_p('ji', 'na_')}{body}'", body)
    body = g.chars(_HEX, 40)
    add("e2b-api-key", "vendor:E2B", f"e2b sandbox spawn --api-key {_p('e2', 'b_')}{body}", body)
    body = g.mixed(_URLSAFE, 43)
    add("together-api-key", "vendor:Together AI", f"TOGETHER_KEY={_p('tgp', '_v1_')}{body}", body)
    body = g.mixed(_URLSAFE, 27)
    add("browserbase-api-key", "vendor:Browserbase", f"bb = Browserbase(api_key='{_p('bb_', 'live_')}{body}')", body)
    body = g.mixed(_URLSAFE, 31)
    add("supabase-secret-key", "vendor:Supabase", f"SUPABASE_KEY={_p('sb_', 'secret_')}{body}", body)
    body = g.mixed(_LOWER_ALNUM, 26) + "_" + g.mixed(_ALNUM, 22)
    add("paddle-api-key", "vendor:Paddle", f"paddle key {_p('pdl_', 'live_apikey_')}{body}", body)
    body = g.mixed(_URLSAFE, 35)
    add("yandex-cloud-key", "vendor:Yandex Cloud", f"yc config set token {_p('AQ', 'VN')}{body}", body)
    body = g.chars(_HEX, 32)
    add("databricks-oauth-secret", "vendor:Databricks", f"client_secret {_p('do', 'se')}{body}", body)
    secret = g.mixed(_ALNUM, 6) + "." + g.mixed(_ALNUM, 6) + ":" + g.mixed(_ALNUM + "_-", 43)
    add("ably-api-key", "vendor:Ably", f"new Ably.Realtime({{ key: '{secret}' }})", secret)
    body = g.mixed(_URLSAFE, 93) + "AA"
    add("anthropic-key-glued-to-identifier", "gitleaks:anthropic-api-key (inside a tool name)",
        f"mcp__{_p('sk-', 'ant-', 'api03-')}{body}__run", body)

    # -- Package registries, cloud, SaaS -----------------------------------------------------
    body = g.mixed(_ALNUM, 36)
    add("npm-access-token", "gitleaks:npm-access-token", f"NPM_TOKEN={_p('np', 'm_')}{body} npm publish", body)
    body = g.mixed(_URLSAFE, 120)
    add("pypi-upload-token", "gitleaks:pypi-upload-token",
        f"twine upload -u __token__ -p {_p('py', 'pi-', 'AgEIcHlwaS5vcmc')}{body} dist/*", body)
    body = g.chars(_HEX, 64)
    add("digitalocean-pat", "gitleaks:digitalocean-pat", f"doctl auth init -t {_p('do', 'p_v1_')}{body}", body)
    body = g.mixed(_URLSAFE, 27)
    add("dockerhub-pat", "Docker docs: personal access tokens (dckr_pat_)",
        f"echo {_p('dck', 'r_pat_')}{body} | docker login -u acme --password-stdin", body)
    body = g.mixed(_LOWER_ALNUM + _UPPER, 40)
    add("linear-api-key", "gitleaks:linear-api-key", f"LINEAR_KEY={_p('lin', '_api_')}{body}", body)
    body = g.chars(_HEX, 32)
    add("shopify-access-token", "gitleaks:shopify-access-token",
        f"X-Shopify-Access-Token: {_p('shp', 'at_')}{body}", body)
    body = g.chars(_HEX, 32)
    add("shopify-shared-secret", "gitleaks:shopify-shared-secret", f"shopify app secret {_p('shp', 'ss_')}{body}", body)
    body = g.chars(_HEX, 32)
    add("twilio-api-key", "gitleaks:twilio-api-key", f"client = Client('S{'K'}{body}', api_secret, account_sid)", body)
    body = g.chars(_HEX, 32)
    add("twilio-auth-token", "Twilio docs: Auth Token", f"twilio auth token: {body}", body)
    body = g.chars(_HEX, 32)
    add("mailgun-api-key", "gitleaks:mailgun-private-api-token",
        f"curl -s --user 'api:{_p('ke', 'y-')}{body}' https://api.mailgun.net/v3/mg.acme.io/messages", body)
    body = g.chars(_HEX, 32)
    add("datadog-api-key", "gitleaks:datadog-access-token", f"DD_API_KEY={body} datadog-agent run", body)
    body = g.uuid4()
    add("heroku-api-key-uuid", "gitleaks:heroku-api-key", f"export HEROKU_API_KEY={body}", body)
    body = g.mixed(_URLSAFE, 58)
    add("heroku-api-key-v2", "gitleaks:heroku-api-key-v2", f"heroku token {_p('HR', 'KU-AA')}{body}", body)
    body = g.mixed(_URLSAFE, 91)
    add("vault-service-token", "gitleaks:vault-service-token", f"VAULT_TOKEN={_p('hv', 's.')}{body} vault kv get", body)
    body = g.chars(_HEX, 32)
    add("databricks-token", "gitleaks:databricks-api-token",
        f"databricks configure --host https://adb-1.azuredatabricks.net --token {_p('da', 'pi')}{body}", body)
    body = g.chars(_BECH32, 58)
    add("age-secret-key", "gitleaks:age-secret-key", f"# created: 2026-03-14\n{_p('AGE-', 'SECRET-KEY-1')}{body}", body)
    body = g.mixed(_URLSAFE, 186)
    add("atlassian-api-token", "gitleaks:atlassian-api-token", f"JIRA_API_TOKEN={_p('ATA', 'TT3')}{body}", body)
    account_key = g.mixed(_B64, 86) + "=="
    add("azure-storage-connection-string", "detect-secrets:AzureStorageKeyDetector",
        f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={account_key};"
        "EndpointSuffix=core.windows.net", account_key)
    access_key = g.mixed(_B64, 43) + "="
    add("azure-service-bus-connection-string", "Azure docs: Service Bus connection string (SharedAccessKey)",
        "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        f"SharedAccessKey={access_key}", access_key)

    # -- URIs with passwords -----------------------------------------------------------------
    for kind, template in (
        ("postgres-uri-password", "DATABASE_URL=postgres://app:{pw}@db.internal:5432/main"),
        ("mysql-uri-password", "mysql://root:{pw}@127.0.0.1:3306/shop"),
        ("mongodb-srv-uri-password", 'client = MongoClient("mongodb+srv://admin:{pw}@cluster0.ab1cd.mongodb.net/")'),
        ("redis-uri-password", "REDIS_URL=redis://default:{pw}@redis-12345.c1.cloud.redislabs.com:12345/0"),
        ("amqp-uri-password", "broker_url = 'amqp://rabbit:{pw}@mq.internal:5672/vhost'"),
        ("https-basic-auth-url", "git clone https://deployer:{pw}@git.internal.io/acme/api.git"),
    ):
        pw = g.password(14, _URI_PUNCT)
        add(kind, "detect-secrets:BasicAuthDetector", template.format(pw=pw), pw)

    # -- Headers, CLI flags, config files ----------------------------------------------------
    user, pw = g.word(), g.password(14, "!#%^*@")
    auth = base64.b64encode(f"{user}:{pw}".encode()).decode()
    add("docker-config-auth", "Docker docs: config.json credentials store (auths.*.auth)",
        json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": auth}}}), auth)
    token = g.mixed(_URLSAFE + ".", 48)
    add("authorization-bearer-header", "RFC 6750: Authorization: Bearer",
        f"curl -H 'Authorization: Bearer {token}' https://api.internal.io/v2/jobs", token)
    basic = base64.b64encode(f"{g.word()}:{g.password()}".encode()).decode()
    add("authorization-basic-header", "RFC 7617: Authorization: Basic", f"Authorization: Basic {basic}", basic)
    pw = g.password(14, "!#%^*@")
    add("curl-user-password", "gitleaks:curl-auth-user",
        f"curl -u 'admin:{pw}' https://jenkins.internal.io/api/json", pw)
    pw = g.password(16)
    add("dotenv-password", "detect-secrets:KeywordDetector", f"DB_USER=app\nDB_PASSWORD={pw}\nDB_HOST=db", pw)
    pw = g.password(16)
    add("json-password", "detect-secrets:KeywordDetector",
        json.dumps({"username": "svc-backup", "password": pw, "host": "10.0.3.7"}), pw)
    pw = g.password(16)
    add("yaml-password", "detect-secrets:KeywordDetector",
        f"database:\n  user: app\n  password: {pw}\n  port: 5432", pw)
    pw = g.password(14, "!#%^*@")
    add("sshpass-password", "sshpass(1) -p", f"sshpass -p '{pw}' ssh deploy@10.0.0.12 uptime", pw)
    pw = g.password(14, "!#%^*@")
    add("mysql-cli-password", "mysql(1) --password / -p", f"mysql -h db.internal -u root -p{pw} shop < dump.sql", pw)
    pw = g.password(14, "!#%^*@")
    add("cli-password-flag", "gitleaks:generic-api-key (CLI flag)",
        f"docker login --username ci --password {pw} registry.acme.io", pw)
    pw = g.password(16)
    add("pgpassword-env", "PostgreSQL docs: PGPASSWORD", f"PGPASSWORD={pw} psql -h db.internal -U app main", pw)
    body = g.uuid4()
    add("npmrc-auth-token", "npm docs: .npmrc _authToken", f"//registry.npmjs.org/:_authToken={body}", body)
    pw = g.password(16)
    add("netrc-password", "GNU inetutils: .netrc", f"machine git.acme.io login ci-bot password {pw}", pw)
    body = g.mixed(_ALNUM, 32)
    add("generic-api-key-assignment", "gitleaks:generic-api-key", f'API_KEY = "{body}"', body)
    return out


def lookalikes(seed: int = 0) -> list[Lookalike]:
    """At least 45 kinds of code-like text that redaction must keep verbatim."""
    g = _Gen(seed)
    rng = g.rng
    sha = g.chars(_HEX, 40)
    digest = g.chars(_HEX, 64)
    session = g.uuid4()
    items: list[tuple[str, str]] = [
        ("secret-template-assignment", 'secret_template = "debug.prompt.row.server"'),
        ("secret-template-type", "secretTemplate: ArtifactMessageResult"),
        ("tokenizer-config-file", "tokenizer_config_file=tokenizer_config.json"),
        ("password-hash-algorithm", "password_hash_algorithm=argon2id-v19-m65536"),
        ("sk-learn-name", "sk-learn-compatible-estimator"),
        ("xoxo-phrase", "xoxo-hugs-and-kisses-from-the-team"),
        ("pypi-workflow-name", "pypi-publish-workflow-release-step"),
        ("stripe-publishable-live", f"Stripe.setPublishableKey('{_p('pk', '_live_')}{g.mixed(_ALNUM, 24)}')"),
        ("stripe-publishable-test", f"STRIPE_PUBLISHABLE_KEY={_p('pk', '_test_')}{g.mixed(_ALNUM, 24)}"),
        ("git-commit-sha", f"commit {sha}\nAuthor: Dev <dev@acme.io>"),
        ("git-short-sha", f"HEAD is now at {sha[:7]} fix the migration"),
        ("sha256-digest", f"image: ghcr.io/acme/api@sha256:{digest}"),
        ("session-uuid", f"session_id={session}"),
        ("request-id-uuid", f"x-request-id: {g.uuid4()}"),
        ("token-count", f"token_count: {rng.randint(1000, 99999)}"),
        ("max-tokens", "max_tokens=4096"),
        ("password-reset-url", 'password_reset_url = "/accounts/password/reset/"'),
        ("get-token-call", "token = client.get_token()"),
        ("access-token-attribute", "self.access_token = access_token"),
        ("getpass-call", "password = getpass.getpass()"),
        ("env-lookup", 'token = os.environ["GITHUB_TOKEN"]'),
        ("shell-variable-reference", "API_KEY=${API_KEY}"),
        ("placeholder-angle", "api_key: <your-api-key>"),
        ("placeholder-changeme", 'password: "changeme"'),
        ("django-env-secret", 'SECRET_KEY = env("SECRET_KEY")'),
        ("auth-config-type", "auth: AuthConfig"),
        ("typescript-token-type", "token: string;"),
        ("bearer-shell-variable", 'curl -H "Authorization: Bearer $TOKEN" https://api.github.com/user'),
        ("postgres-uri-no-password", "postgres://localhost:5432/db"),
        ("https-user-no-password", "https://user@github.com/org/repo.git"),
        ("token-type-query", "https://example.com/path?token_type=bearer"),
        ("image-data-uri-prefix",
         'src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"'),
        ("snake-case-identifier", "resolve_session_history_search_request_with_default_limits"),
        ("camel-case-identifier", "resolveSessionHistorySearchRequestWithDefaultLimits"),
        ("dotted-module-path", "moraine.mcp_server.tools.search_session_history.handler"),
        ("long-file-path", "src/moraine/index/segments/immutable_csr_posting_list_segment_writer_test.py"),
        ("npm-package-name", "@typescript-eslint/eslint-plugin-tslint-compatibility-layer"),
        ("semver-range", '"react-dom": "^18.3.1 || >=19.0.0-rc.0 <20"'),
        ("css-hex-colors", "color: #1f2937; background: #FACADE; border-color: #0ea5e9;"),
        ("iso-timestamp", "2026-03-14T10:00:01.123456+00:00"),
        ("aws-arn", "arn:aws:iam::123456789012:role/deploy"),
        ("k8s-secret-ref", "valueFrom: {secretKeyRef: {name: db, key: password}}"),
        ("refresh-token-ttl", "refresh_token_ttl_seconds: 3600"),
        ("token-file-flag", "gh auth login --token-file ~/.config/gh/token"),
        ("ssh-public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g.chars(_B64, 43) + " dev@laptop"),
        ("ssh-rsa-public-key", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + g.chars(_B64, 80) + " user@host"),
        ("public-key-block", "\n".join([_p("-----BEGIN ", "PUBLIC KEY-----"), *g.pem_lines("MIIBIjANBgkqhkiG9w0B", 3),
                                        _p("-----END ", "PUBLIC KEY-----")])),
        ("certificate-block", "\n".join([_p("-----BEGIN ", "CERTIFICATE-----"), *g.pem_lines("MIIDdzCCAl+gAwIBAgIE", 4),
                                         _p("-----END ", "CERTIFICATE-----")])),
        ("cjk-text", "認証トークンの有効期限が切れました。パスワードを再設定してください。密钥轮换"),
        ("password-regex", r'PASSWORD_RE = re.compile(r"password\s*=\s*(\S+)")'),
        ("prose-rotate-key", "We should rotate the API key tomorrow after the deploy window."),
        ("prose-token-expired",
         "The token expired, so the secret store returned 401 and the password prompt came back."),
        ("hex-constant", "MAGIC = 0xDEADBEEFCAFEBABE"),
        ("base32-id", f"job id {g.chars(_B32, 26)}"),
        ("long-url-query", "https://www.google.com/search?q=moraine+bm25+posting+lists&sourceid=chrome&ie=UTF-8"
                           "&oq=moraine&aqs=chrome.0.69i59j0i512l9.4023j0j7&client=ubuntu"),
        ("fstring-bearer", 'headers = {"Authorization": f"Bearer {token}"}'),
        ("token-env-name", "export GITHUB_TOKEN_SCOPES=repo,read:org,workflow"),
        ("password-field-label", "<label for=\"password_confirmation_field\">Confirm password</label>"),
        ("credential-helper", "git config --global credential.helper osxkeychain"),
        ("secret-manager-path", "projects/acme-prod/secrets/database-password/versions/latest"),
        ("github-actions-secret-ref", "token: ${{ secrets.GITHUB_TOKEN }}"),
    ]
    return [Lookalike(kind, text) for kind, text in items]


# -- families that a rule table written from the same list would miss ---------------------------
# Written the way people write credentials (vendor tokens outside the first table, key names
# outside the first list, command-line passwords, structured and encoded forms, punctuation in
# URIs, context words after a value, a secret beside its partner id), with lookalikes that are
# ids, digests and hashes. The first table was written from `secrets()`; these check that the
# general rules carry over.


_Add = Callable[[str, str, str, str], None]  # kind, source, text, secret


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _vendor_families(g: _Gen, add: _Add) -> None:
    body = g.mixed(_HEX, 32)
    add("deepseek-style-sk-hex", "vendor:DeepSeek/DashScope API keys (sk- + 32 hex)",
        f"switched the qwen calls to {_p('s', 'k-')}{body} this morning", body)
    body = "00" + g.mixed(_URLSAFE, 40)
    add("okta-ssws-token", "gitleaks:okta-access-token; vendor:Okta API tokens (SSWS scheme)",
        f'curl -H "Authorization: {_p("SS", "WS")} {body}" https://acme.okta.com/api/v1/users', body)
    body = g.mixed(_HEX, 40)
    add("pulumi-token", "gitleaks:pulumi-api-token", f"pulumi login picked up {_p('pu', 'l-')}{body}", body)
    body = g.mixed(_ALNUM, 14) + _p(".atl", "asv1.") + g.mixed(_URLSAFE, 67)
    add("terraform-cloud-token", "gitleaks:hashicorp-tf-api-token", f"TFE token is {body} for now", body)
    body = g.mixed(_HEX, 48)
    add("rubygems-token", "gitleaks:rubygems-api-token", f"gem push with {_p('rubygems', '_')}{body}", body)
    body = g.mixed(_HEX, 64) + "-" + g.mixed(_ALNUM, 16)
    add("brevo-api-key", "gitleaks:sendinblue-api-token", f"brevo says {_p('xkey', 'sib-')}{body}", body)
    body = g.mixed(_ALNUM, 36)
    add("prefect-api-key", "gitleaks:prefect-api-token", f"prefect cloud login -k {_p('pn', 'u_')}{body}", body)
    body = g.mixed(_LOWER_ALNUM, 70)
    add("readme-api-key", "gitleaks:readme-api-token", f"rdme openapi --key={_p('rd', 'me_')}{body}", body)
    body = g.mixed(_URLSAFE, 44)
    add("typeform-token", "gitleaks:typeform-api-token", f"the form token {_p('tf', 'p_')}{body} expired", body)
    body = g.mixed(_UPPER_ALNUM, 24) + "." + g.mixed(_UPPER_ALNUM, 64)
    add("dynatrace-token", "gitleaks:dynatrace-api-token", f"Api-Token {_p('dt0', 'c01.')}{body}", body)
    body = g.mixed(_URLSAFE, 43)
    add("duffel-token", "gitleaks:duffel-api-token", f"use {_p('duffel', '_live_')}{body} in prod", body)
    body = g.mixed(_HEX, 40)
    add("shippo-token", "gitleaks:shippo-api-token", f"shippo.api_key: {_p('shippo', '_live_')}{body}", body)
    body = g.mixed(_URLSAFE, 120)
    add("testpypi-token", "gitleaks:pypi-upload-token (test.pypi.org macaroon)",
        f"twine upload -r testpypi -p {_p('py', 'pi-', 'AgENdGVzdC5weXBpLm9yZw')}{body} dist/*", body)
    body = g.mixed(_LOWER + "234567", 52)
    add("azure-devops-pat", "trufflehog:azuredevopspersonalaccesstoken (52 base32 characters)",
        f"echo {body} | az devops login --organization https://dev.azure.com/acme", body)
    body = g.mixed(_HEX, 64)
    add("slack-client-token", "vendor:Slack client tokens (xoxc-)",
        f"slack web client {_p('xo', 'xc-')}{g.digits(12)}-{g.digits(12)}-{g.digits(13)}-{body}", body)
    body = g.mixed(_ALNUM, 40) + "%2F" + g.mixed(_ALNUM, 30) + "%3D"
    add("slack-d-cookie", "vendor:Slack session cookie (xoxd-)", f"cookie d={_p('xo', 'xd-')}{body}", body)
    body = g.mixed(_URLSAFE, 28)
    add("google-client-secret-bare", "gitleaks:gcp-client-secret", f"client secret {_p('GOC', 'SPX-')}{body}", body)
    body = g.mixed(_ALNUM, 180)
    add("facebook-access-token", "gitleaks:facebook-page-access-token",
        f"graph api call with {_p('EA', 'AB')}{body}", body)
    claims = _b64url(json.dumps({"u": g.word(), "a": g.chars(_LOWER_ALNUM, 25)}).encode())
    body = f"{claims}.{g.mixed(_URLSAFE, 22)}"
    add("mapbox-secret-token", "trufflehog:mapbox (sk.eyJ)", f"MAPBOX: {_p('sk', '.eyJ')}{body[3:]}", body[3:])


def _key_families(g: _Gen, add: _Add) -> None:
    for kind, template in (
        ("db-pass-env", "DB_HOST=db\nDB_PASS={pw}\nDB_NAME=main"),
        ("smtp-pass-env", "export SMTP_PASS='{pw}'"),
        ("redis-pass-yaml", "cache:\n  REDIS_PASS: {pw}"),
        ("yaml-pass", "smtp:\n  user: mailer\n  pass: {pw}\n  port: 587"),
        ("admin-pw", "ADMIN_PW={pw} ./bootstrap.sh"),
    ):
        pw = g.password(14, "!#%^*")
        add(kind, "detect-secrets:KeywordDetector (db_pass, pwd suffixes)", template.format(pw=pw), pw)
    body = g.mixed(_HEX, 64)
    add("hmac-key-env", "detect-secrets:KeywordDetector (key suffixes)", f"HMAC_KEY={body}", body)
    body = g.mixed(_ALNUM, 40)
    add("pat-suffix-env", "gitleaks:generic-api-key (a PAT named by its key)", f"export GH_PAT={body}", body)
    body = g.mixed(_LOWER_ALNUM, 32)
    add("django-sessionid-cookie", "vendor:Django session cookie",
        f"curl -b 'sessionid={body}' https://app.acme.io/admin/", body)
    body = g.mixed(_LOWER_ALNUM, 32)
    add("cookie-header", "RFC 6265 Cookie header",
        f"Cookie: theme=dark; sessionid={body}; lang=en", body)


def _cli_families(g: _Gen, add: _Add) -> None:
    for kind, template in (
        ("docker-login-p", "docker login -u ci -p {pw} registry.acme.io"),
        ("mongosh-p", 'mongosh "mongodb://db.internal:27017/admin" -u admin -p {pw}'),
        ("redis-cli-a", "redis-cli -h cache.internal -a {pw} ping"),
        ("htpasswd-b", "htpasswd -b /etc/nginx/.htpasswd admin {pw}"),
        ("openssl-passout", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12 -passout pass:{pw}"),
        ("echo-sudo-s", "echo {pw} | sudo -S systemctl restart nginx"),
        ("net-user", "net user deploy {pw} /add"),
        ("pgpass-line", "echo 'db.internal:5432:main:app:{pw}' >> ~/.pgpass"),
    ):
        pw = g.password(14, "!%^*")
        add(kind, "vendor:the tool's manual (password on the command line)", template.format(pw=pw), pw)


def _structured_families(g: _Gen, add: _Add) -> None:
    pem = "\n".join([_p("-----BEGIN ", "RSA PRIVATE KEY-----"), *g.pem_lines("MIIEpAIBAAKCAQEA", 6),
                     _p("-----END ", "RSA PRIVATE KEY-----")]) + "\n"
    data = base64.b64encode(pem.encode()).decode()
    add("kubeconfig-client-key-data", "vendor:kubeconfig users[].user.client-key-data",
        f"users:\n- name: admin\n  user:\n    client-certificate-data: {g.chars(_B64, 40)}\n"
        f"    client-key-data: {data}", data)
    d = g.mixed(_URLSAFE, 342)
    jwk = json.dumps({"kty": "RSA", "n": g.chars(_URLSAFE, 342), "e": "AQAB", "d": d,
                      "p": g.chars(_URLSAFE, 171), "q": g.chars(_URLSAFE, 171), "kid": g.uuid4()})
    add("jwk-private-exponent", "RFC 7518 §6.3.2 (RSA private JWK: d, p, q, dp, dq, qi)", jwk, d)
    k = g.mixed(_URLSAFE, 43)
    add("jwk-oct-key", "RFC 7518 §6.4 (symmetric JWK: k)", json.dumps({"kty": "oct", "alg": "HS256", "k": k}), k)
    lines = [g.chars(_B64, 64) for _ in range(3)] + [g.chars(_B64, 20) + "=="]
    ppk = "\n".join(["PuTTY-User-Key-File-3: ssh-rsa", "Encryption: none", "Comment: deploy",
                     "Public-Lines: 2", g.chars(_B64, 64), g.chars(_B64, 40), "Private-Lines: 4", *lines,
                     "Private-MAC: " + g.chars(_HEX, 64)])
    add("putty-ppk-private-lines", "vendor:PuTTY .ppk format (Private-Lines)", ppk, lines[1])
    header = _b64url(b'{"alg":"RS256","typ":"JWT"}')
    payload = _b64url(json.dumps({"sub": g.uuid4(), "scope": "admin", "exp": 1_900_000_000}).encode())
    sig = g.mixed(_URLSAFE, 86)
    jwt = f"{header}.{payload}.{sig}"
    wrapped = "\n".join(jwt[i:i + 60] for i in range(0, len(jwt), 60))
    add("jwt-wrapped", "gitleaks:jwt (a token wrapped at 60 columns)", f"token:\n{wrapped}\n", sig[:30])
    header = _b64url(b'{ "alg": "HS256", "typ": "JWT" }')
    jwt = f"{header}.{payload}.{g.mixed(_URLSAFE, 43)}"
    add("jwt-spaced-header", "gitleaks:jwt (a header written with spaces)", f"got {jwt} from the login", jwt)


def _encoded_families(g: _Gen, add: _Add) -> None:
    body = g.mixed(_ALNUM, 36)
    add("url-encoded-token", "URL encoding of gitleaks:github-pat",
        f"GET /callback?state=x&next=%2Frepos%3Fauth%3D{_p('gh', 'p%5F')}{body} HTTP/1.1", body)
    body = g.mixed(_ALNUM, 36)
    add("unicode-escaped-token", "JSON/JS \\u escapes of gitleaks:github-pat",
        f'const t = "\\u0067\\u0068\\u0070_{body}";', body)
    token = _p("gh", "p_") + g.mixed(_ALNUM, 36)
    hexed = token.encode().hex()
    add("hex-encoded-token", "hex encoding of gitleaks:github-pat", f"echo {hexed} | xxd -r -p", hexed)
    body = g.mixed(_ALNUM, 36)
    add("fullwidth-token", "Unicode full-width forms of gitleaks:github-pat",
        f"トークン：{_fullwidth(_p('gh', 'p_') + body)}", _fullwidth(body))
    env = f"DB_HOST=db\nDB_PASSWORD={g.password(16, '!%^*')}\nAPI_KEY={g.mixed(_ALNUM, 32)}\n"
    encoded = base64.b64encode(env.encode()).decode()
    add("base64-dotenv", "base64 of a .env file (kubectl secrets, CI variables)",
        f"kubectl create secret generic app --from-literal=env={encoded}", encoded)
    encoded = base64.b64encode(env.encode()).decode()
    wrapped = "\n".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    add("base64-dotenv-wrapped", "base64 of a .env file, wrapped at 76 columns", f"$ base64 .env\n{wrapped}\n",
        encoded[:76])
    basic = base64.b64encode(f"{g.word()}:{g.password(14, '!%^*')}".encode()).decode()
    add("base64-basic-pair", "RFC 7617 (base64 of user:password, without the header)",
        f"echo {basic} | base64 -d", basic)


def _uri_context_families(g: _Gen, add: _Add) -> None:
    pw = g.password(8, "!*") + "#" + g.password(6, "!*") + "?" + g.password(5, "$")
    add("uri-password-hash-question", "RFC 3986 userinfo written without percent-encoding",
        f"DATABASE_URL=postgres://app:{pw}@db.internal:5432/main", pw)
    pw = g.password(8, "!*") + "@" + g.password(8, "!*")
    add("uri-password-at-sign", "RFC 3986 userinfo: the password runs to the last @",
        f"mongodb://admin:{pw}@cluster0.mongodb.net/test", pw)
    body = g.mixed(_B64, 40)
    add("context-word-after", "detect-secrets:HighEntropyString with a context word after the value",
        f"I pasted {body}, which looks like a live credential", body)
    body = g.mixed(_HEX, 32)
    add("context-word-after-hex", "gitleaks:generic-api-key (the key word follows the value)",
        f"{body} is the api key for staging", body)
    key_id = _p("AK", "IA") + g.chars(_B32, 16)
    body = g.mixed(_B64, 40)
    add("aws-pair-without-keyword", "GitHub secret scanning: AWS key pairs (id beside its secret)",
        f"{key_id} {body}", body)
    body = g.mixed(_HEX, 32)
    add("twilio-sid-and-token", "GitHub secret scanning: Twilio account SID beside its auth token",
        f"client = Client('AC{g.chars(_HEX, 32)}', '{body}')", body)


def family_secrets(seed: int = 0) -> list[Secret]:
    """Credentials of the families above, each in a realistic line, random per seed."""
    g = _Gen(seed + 7_000)
    out: list[Secret] = []

    def add(kind: str, source: str, text: str, secret: str) -> None:
        assert secret in text and len(secret) >= 8, (kind, secret)
        out.append(Secret(kind, source, text, secret))

    for family in (_vendor_families, _key_families, _cli_families, _structured_families, _encoded_families,
                   _uri_context_families):
        family(g, add)
    return out


def family_lookalikes(seed: int = 0) -> list[Lookalike]:
    """Ids, digests, hashes and commands without a secret: kept verbatim."""
    g = _Gen(seed + 9_000)
    hx = lambda n: g.chars(_HEX, n)  # noqa: E731
    b64 = lambda n: g.chars(_B64, n)  # noqa: E731
    items: list[tuple[str, str]] = [
        ("github-commit-sha", f"github, commit {hx(40)}"),
        ("docker-pull-digest", f"docker pull ghcr.io/acme/api@sha256:{hx(64)}"),
        ("npm-notice-shasum", f"npm notice shasum:      {hx(40)}"),
        ("npm-notice-integrity", f"npm notice integrity:   sha512-{b64(20)}[...]{b64(10)}=="),
        ("go-sum-line", f"github.com/stretchr/testify v1.9.0 h1:{b64(43)}="),
        ("go-sum-mod-line", f"golang.org/x/crypto v0.31.0/go.mod h1:{b64(43)}="),
        ("stripe-charge-id", f"stripe charge ch_{g.mixed(_ALNUM, 24)} succeeded"),
        ("stripe-customer-id", f"stripe customer cus_{g.mixed(_ALNUM, 14)} created"),
        ("stripe-payment-intent-id", f"stripe payment intent pi_{g.mixed(_ALNUM, 24)} requires_action"),
        ("stripe-event-id", f"stripe webhook evt_{g.mixed(_ALNUM, 24)} delivered"),
        ("anthropic-message-id", f"anthropic message msg_01{g.mixed(_ALNUM, 22)}"),
        ("anthropic-request-id", f"anthropic request-id: req_01{g.mixed(_ALNUM, 22)}"),
        ("anthropic-tool-use-id", f"tool_use_id toolu_01{g.mixed(_ALNUM, 22)}"),
        ("openai-completion-id", f"openai returned chatcmpl-{g.mixed(_ALNUM, 29)}"),
        ("openai-response-id", f"openai response resp_{hx(48)}"),
        ("openai-call-id", f"function call call_{g.mixed(_ALNUM, 24)}"),
        ("twilio-account-sid", f"twilio account AC{hx(32)}"),
        ("twilio-message-sid", f"twilio message SM{hx(32)} queued"),
        ("uuid-near-token", f"token request {g.uuid4()} accepted"),
        ("git-rev-parse", f"$ git rev-parse HEAD\n{hx(40)}"),
        ("git-merge-line", f"Merge: {hx(7)} {hx(7)}"),
        ("git-tree-line", f"tree {hx(40)}\nparent {hx(40)}"),
        ("git-log-oneline", f"{hx(7)} fix the github token refresh\n{hx(7)} docs: api key rotation"),
        ("sha1-digest-word", f"sha1: {hx(40)}"),
        ("md5sum-output", f"{hx(32)}  secrets-backup.tar.gz"),
        ("pip-hash", f"requests==2.32.3 --hash=sha256:{hx(64)}"),
        ("cargo-lock-checksum", f'checksum = "{hx(64)}"'),
        ("docker-image-id", f"sha256:{hx(64)}"),
        ("etag-header", f'ETag: "{hx(32)}"'),
        ("yarn-resolved", f'resolved "https://registry.yarnpkg.com/token-types/-/token-types-6.0.0.tgz#{hx(40)}"'),
        ("jwk-public-only", json.dumps({"kty": "RSA", "n": g.chars(_URLSAFE, 342), "e": "AQAB", "kid": g.uuid4()})),
        ("svg-path-d", '{"d": "M10 10 L20 20 C30 30 40 40 50 50", "fill": "none"}'),
        ("etc-passwd-line", "root:x:0:0:root:/root:/bin/bash"),
        ("compiler-location", "src/main.rs:42:5: warning: unused variable"),
        ("htpasswd-prompt", "htpasswd -c /etc/nginx/.htpasswd admin"),
        ("docker-login-stdin", "docker login -u ci --password-stdin registry.acme.io"),
        ("redis-cli-no-auth", "redis-cli -h cache.internal -p 6379 ping"),
        ("net-user-delete", "net user deploy /delete"),
        ("mongosh-prompt", 'mongosh "mongodb://db.internal:27017/admin" -u admin -p'),
        ("openssl-passout-env", "openssl pkcs12 -export -in c.pem -out c.p12 -passout env:P12_PASSWORD"),
        ("sudo-s-without-echo", "sudo -S true < /dev/null"),
        ("render-pass", "render_pass: shadow_map"),
        ("first-pass-flag", "first_pass = True"),
        ("cookie-preferences", "Cookie: theme=dark; lang=en"),
        ("mapbox-public-token", f"mapboxgl.accessToken = 'pk.eyJ1Ijoi{g.chars(_URLSAFE, 40)}.{g.chars(_URLSAFE, 22)}'"),
        ("percent-encoded-path", "GET /files/%2Fhome%2Fdev%2Fsrc%2Fmain.py HTTP/1.1"),
        ("unicode-escaped-word", 'const s = "\\u00e9t\\u00e9 \\u0063af\\u00e9";'),
        ("base64-sentence", "echo " + base64.b64encode(b"The quick brown fox jumps over the lazy dog").decode()),
        ("hex-of-text", "echo " + b"hello world from the build".hex() + " | xxd -r -p"),
        ("fullwidth-words", "ＦＵＬＬ ｗｉｄｔｈ ｔｅｘｔ ｉｓ ｆｉｎｅ"),
        ("uri-port-and-email", "https://example.com:8080/path?email=dev@acme.io"),
        ("git-ssh-remote", "git@github.com:acme/api.git"),
        ("model-names", "claude-sonnet-4-5-20250929 gpt-4o-2024-08-06 anthropic/claude-3.5-sonnet"),
        ("mcp-tool-name", "mcp__github__create_pull_request"),
        ("aws-instance-id", "i-0abcd1234ef567890 in subnet-0a1b2c3d4e5f67890"),
        ("aws-request-id", f"x-amz-request-id: {g.chars(_UPPER_ALNUM, 16)}"),
        ("kube-pod-name", f"pod/api-deployment-{hx(10)}-{g.chars(_LOWER_ALNUM, 5)}"),
        ("gpg-fingerprint", " ".join(g.chars("0123456789ABCDEF", 4) for _ in range(10))),
        ("aws-example-key", "aws_access_key_id = " + _p("AKIA", "IOSFODNN7EXAMPLE")),
    ]
    return [Lookalike(kind, text) for kind, text in items]

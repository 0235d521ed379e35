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

# ruff: noqa: E501  (a table of kinds: one kind a line or two reads better than wrapped)
"""An outsider's corpus: credentials written the way developers write them to a coding agent.

Composed by someone who has read neither the redaction rules (`src/moraine/redaction/redact.py`,
`secret_*.py`), their tests, `docs/security.md`, nor the two earlier corpora (`public_kinds.py`,
`people_kinds.py`): only the harness (`kinds.py`, `places.py`, `leaks.py`, `lookalikes.py` for
the style). Vendor shapes are written from general knowledge of the vendors' public token formats
(prefix, alphabet, length); every value is drawn fresh from the rng, none is a real key.

Families:
    vendor        a vendor's token in the place a developer puts it (env, CLI, header, code)
    config        config files: .env, YAML, TOML, INI, JSON, XML, HCL, Dockerfile, compose,
                  k8s, CI, systemd, nginx, properties, netrc, pgpass, ...
    code          literals and constructor arguments in Python/JS/Go/Rust/Java/C#/PHP/Ruby, SQL
    command-line  a tool invoked with a password or token on its command line
    uri           credentials inside a URI (userinfo or query string)
    encoded       the secret only in an encoded form (base64, percent-, JSON-, shell-escaped, hex)
    prose         said in a sentence, a list, a table, on the line after the word
    multilingual  said in German, Spanish, French, Japanese, Chinese, Portuguese, ...
    key-material  private keys (OpenSSH, EC, PKCS#8, PGP, WireGuard, age, GCP service account)
"""

from __future__ import annotations

import json
import math
import random
import urllib.parse

from secret_eval.kinds import (
    ALNUM,
    B64,
    B64URL,
    DIGITS,
    HEX,
    HEXU,
    LALNUM,
    LOWER,
    UALNUM,
    UPPER,
    WINDOW,
    Form,
    Kind,
    b64_of,
    check_unique_names,
    hex_of,
    kind,
    mixed,
    password,
    plain_password,
    rbytes,
    rs,
    uuid4,
    wrap,
)

SOURCE = "outsider corpus: composed from general knowledge of the format, without the rules or the other corpora"


def S(name: str, family: str, make, *renders, evident: bool = False, notes: str = "") -> Kind:
    return kind(name, family, make, *renders, source=SOURCE, self_evident=evident, notes=notes)


def V(name: str, make, *renders, notes: str = "") -> Kind:
    """A vendor token: its prefix says what it is (written bare into the one-line places too)."""
    return S(name, "vendor", make, *renders, evident=True, notes=notes)


def scaled(value: str, encoded: str) -> Form:
    """An encoded form with its window scaled to how much longer the encoding is."""
    return encoded, max(WINDOW, math.ceil(WINDOW * len(encoded) / max(1, len(value))))


def b64form(encoded: str) -> Form:
    return encoded, 14  # 10 bytes are 13.3 base64 characters


def G(path: str, line: str):
    """The line as `grep -rn` (or ripgrep) shows it: `path:lineno:line`; `line` holds `{v}`."""
    return lambda r, v: f"{path}:{r.randrange(2, 120)}:" + line.replace("{v}", v)


# --------------------------------------------------------------------------------------------
# people-shaped passwords (bigger word lists than kinds.WORDS, so that values rarely share a window)
# --------------------------------------------------------------------------------------------

NOUNS = ("biscuit", "pumpkin", "dolphin", "rainbow", "thunder", "sunshine", "snowball", "marmalade", "panther",
         "penguin", "cricket", "blossom", "hurricane", "kingfisher", "lighthouse", "mustang", "nebula", "orange",
         "paprika", "quokka", "raspberry", "scorpion", "tangerine", "umbrella", "volcano", "waterfall", "zeppelin",
         "avocado", "badger", "chestnut", "daffodil", "eclipse", "firefly", "gondola", "horizon", "iceberg",
         "jaguar", "kangaroo", "lemonade", "magnolia", "nightowl", "octopus", "pelican", "quasar", "redwood",
         "starfish", "tortoise", "unicorn", "vanilla", "whisper", "yellowtail", "zucchini", "bluebird", "cinnamon",
         "dragonfly", "evergreen", "flamingo", "gingerbread", "honeybee", "ironwood", "jellyfish", "koala")
NAMES = ("lukas", "sofia", "mateo", "chloe", "hiroshi", "meiling", "joao", "amelie", "ingrid", "rafael", "yuki",
         "noah", "elena", "omar", "priya", "tomasz", "freya", "diego", "lena", "kenji", "aisha", "bruno", "carmen",
         "dmitri", "esther", "felix", "greta", "hugo", "isabel", "javier")
CITIES = ("berlin", "lisbon", "osaka", "denver", "quebec", "madrid", "lyon", "porto", "kyoto", "oslo", "austin",
          "zurich", "dublin", "seoul", "gdansk", "nantes", "bilbao", "malmo", "tucson", "hobart", "valencia",
          "munich", "sapporo", "toronto", "bergen", "seville", "krakow", "geneva", "bristol", "recife")
SEASONS = ("Summer", "Winter", "Spring", "Autumn", "Fall")
SYMS = "!@#$%&*?"


def pw_noun_year(r: random.Random) -> str:  # Pumpkin1987!
    return f"{r.choice(NOUNS).capitalize()}{r.randrange(1960, 2030)}{r.choice(SYMS)}"


def pw_season(r: random.Random) -> str:  # Summer2024!Biscuit (a season password made unique by a pet's name)
    return f"{r.choice(SEASONS)}{r.randrange(2015, 2030)}{r.choice(SYMS)}{r.choice(NOUNS).capitalize()}"


def pw_words(r: random.Random) -> str:  # maple-otter-4821
    return f"{r.choice(NOUNS)}-{r.choice(CITIES)}-{rs(r, DIGITS, 4)}"


def pw_phrase(r: random.Random) -> str:  # a passphrase with spaces
    words = r.sample(NOUNS, 4)
    if r.random() < 0.5:
        words.insert(r.randrange(5), str(r.randrange(10, 999)))
    return " ".join(words)


def pw_short(r: random.Random) -> str:  # 10-12 characters, symbols
    return mixed(r, ALNUM + "!@#$%&*?", r.randrange(10, 13))


def pw_name_date(r: random.Random) -> str:  # Sofia140392!
    return f"{r.choice(NAMES).capitalize()}{r.randrange(1, 29):02d}{r.randrange(1, 13):02d}{r.randrange(50, 100)}{r.choice(SYMS)}"


def pw_city(r: random.Random) -> str:  # Lisbon.Freya#77
    return f"{r.choice(CITIES).capitalize()}.{r.choice(NAMES).capitalize()}{r.choice(SYMS)}{rs(r, DIGITS, 2)}"


def token32(r: random.Random) -> str:
    return mixed(r, ALNUM, 32)


def user(r: random.Random) -> str:
    return r.choice(["deploy", "admin", "svc_build", "app", "ci-bot", "root", "backup", "reporting", "etl", "grafana"])


def hostname(r: random.Random) -> str:
    return r.choice(["db01", "pg-main", "mysql-replica", "cache01", "mq01", "api-gw", "files01"]) + "." + r.choice(
        ["internal", "prod.acme.io", "stg.example.net", "corp.lan", "eu-central-1.rds.amazonaws.com"])


def _b64j(obj) -> str:
    return b64_of(json.dumps(obj, separators=(",", ":")).encode(), url=True, pad=False)


def jwt(r: random.Random, payload: dict) -> str:
    return _b64j({"alg": "HS256", "typ": "JWT"}) + "." + _b64j(payload) + "." + b64_of(rbytes(r, 32), url=True, pad=False)


def _now(r: random.Random) -> int:
    return 1_760_000_000 + r.randrange(10**7)


# --------------------------------------------------------------------------------------------
# vendor tokens
# --------------------------------------------------------------------------------------------

VENDOR: list[Kind] = [
    V("github-classic-pat", lambda r: "ghp_" + mixed(r, ALNUM, 36),
      lambda r, v: f"git remote set-url origin https://{v}@github.com/acme/infra.git",
      lambda r, v: f"gh auth login --with-token <<< {v}"),
    V("github-fine-grained", lambda r: "github_pat_11" + rs(r, UALNUM, 20) + "_" + mixed(r, ALNUM, 59),
      lambda r, v: f"GH_TOKEN={v} gh pr create --fill --base main"),
    V("github-oauth-hosts-yml", lambda r: "gho_" + mixed(r, ALNUM, 36),
      lambda r, v: f"$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    oauth_token: {v}\n    user: dana-r\n    git_protocol: https"),
    V("github-app-installation", lambda r: "ghs_" + mixed(r, ALNUM, 36),
      lambda r, v: 'headers = {"Authorization": "token ' + v + '", "Accept": "application/vnd.github+json"}'),
    V("gitlab-pat", lambda r: "glpat-" + mixed(r, ALNUM + "_-", 20),
      lambda r, v: f'curl --header "PRIVATE-TOKEN: {v}" "https://gitlab.com/api/v4/projects?owned=true"'),
    V("gitlab-runner-token", lambda r: "glrt-" + mixed(r, ALNUM + "_-", 20),
      lambda r, v: f"sudo gitlab-runner register --non-interactive --url https://gitlab.com --token {v} --executor docker"),
    V("slack-bot-token", lambda r: f"xoxb-{rs(r, DIGITS, 12)}-{rs(r, DIGITS, 13)}-{mixed(r, ALNUM, 24)}",
      lambda r, v: f"SLACK_BOT_TOKEN={v}\nSLACK_SIGNING_SECRET={rs(r, HEX, 32)}",
      lambda r, v: f'client = WebClient(token="{v}")'),
    V("slack-user-token", lambda r: f"xoxp-{rs(r, DIGITS, 12)}-{rs(r, DIGITS, 12)}-{rs(r, DIGITS, 13)}-{rs(r, HEX, 32)}",
      lambda r, v: f"this is my user token {v}, it has chat:write and channels:history"),
    V("slack-webhook-url", lambda r: f"https://hooks.slack.com/services/T{rs(r, UALNUM, 10)}/B{rs(r, UALNUM, 10)}/{mixed(r, ALNUM, 24)}",
      lambda r, v: f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy finished\"}}' {v}"),
    V("stripe-live-secret", lambda r: "sk_live_51" + mixed(r, ALNUM, 97),
      lambda r, v: f'stripe.api_key = "{v}"'),
    V("stripe-restricted", lambda r: "rk_live_51" + mixed(r, ALNUM, 97),
      lambda r, v: f"heroku config:set STRIPE_RESTRICTED_KEY={v} -a acme-billing"),
    V("stripe-webhook-secret", lambda r: "whsec_" + mixed(r, ALNUM, 32),
      lambda r, v: f"stripe listen --forward-to localhost:4242/webhook\n> Ready! Your webhook signing secret is {v} (^C to quit)"),
    V("sendgrid", lambda r: "SG." + mixed(r, B64URL, 22) + "." + mixed(r, B64URL, 43),
      lambda r, v: f"export SENDGRID_API_KEY='{v}'"),
    V("openai-project", lambda r: "sk-proj-" + mixed(r, B64URL, 74) + "T3BlbkFJ" + mixed(r, B64URL, 74),
      lambda r, v: f"OPENAI_API_KEY={v}",
      lambda r, v: f'client = OpenAI(api_key="{v}")'),
    V("openai-legacy", lambda r: "sk-" + mixed(r, ALNUM, 20) + "T3BlbkFJ" + mixed(r, ALNUM, 20),
      lambda r, v: f"my old openai key still works? {v}"),
    V("anthropic-api", lambda r: "sk-ant-api03-" + mixed(r, B64URL, 93) + "AA",
      lambda r, v: f"curl https://api.anthropic.com/v1/messages -H 'x-api-key: {v}' -H 'anthropic-version: 2023-06-01'",
      lambda r, v: f"export ANTHROPIC_API_KEY={v}"),
    V("huggingface", lambda r: "hf_" + mixed(r, LOWER + UPPER, 34),
      lambda r, v: f"huggingface-cli login --token {v} --add-to-git-credential"),
    V("google-api-key", lambda r: "AIza" + mixed(r, B64URL, 35),
      lambda r, v: f"https://maps.googleapis.com/maps/api/geocode/json?address=Rua+Augusta+Lisboa&key={v}"),
    V("google-oauth-client-secret", lambda r: "GOCSPX-" + mixed(r, B64URL, 28),
      lambda r, v: json.dumps({"web": {"client_id": f"{rs(r, DIGITS, 12)}-{rs(r, LALNUM, 32)}.apps.googleusercontent.com",
                                       "project_id": "acme-web", "client_secret": v,
                                       "redirect_uris": ["http://localhost:8080/callback"]}}, indent=2)),
    V("aws-access-key-id", lambda r: "AKIA" + rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
      lambda r, v: f"[default]\naws_access_key_id = {v}\nregion = eu-west-1"),
    V("aws-session-token", lambda r: "IQoJb3JpZ2luX2VjE" + mixed(r, B64, 340),
      lambda r, v: f"export AWS_SESSION_TOKEN={v}"),
    V("npm-token", lambda r: "npm_" + mixed(r, ALNUM, 36),
      lambda r, v: f"//registry.npmjs.org/:_authToken={v}"),
    V("pypi-token", lambda r: "pypi-AgEIcHlwaS5vcmc" + mixed(r, B64URL, 150),
      lambda r, v: f"twine upload -u __token__ -p {v} dist/*"),
    V("dockerhub-pat", lambda r: "dckr_pat_" + mixed(r, B64URL, 27),
      lambda r, v: f"echo {v} | docker login -u acmeci --password-stdin"),
    V("shopify-admin", lambda r: "shpat_" + rs(r, HEX, 32),
      lambda r, v: f"fetch(`https://acme-shop.myshopify.com/admin/api/2024-10/orders.json`, {{ headers: {{ 'X-Shopify-Access-Token': '{v}' }} }})"),
    V("atlassian-api-token", lambda r: "ATATT3xFfGF0" + mixed(r, B64URL, 170) + "=" + rs(r, HEXU, 8),
      lambda r, v: f"curl -u dana@acme.io:{v} https://acme.atlassian.net/rest/api/3/issue/OPS-1421"),
    V("linear-api-key", lambda r: "lin_api_" + mixed(r, ALNUM, 40),
      lambda r, v: json.dumps({"mcpServers": {"linear": {"command": "npx", "args": ["-y", "linear-mcp"], "env": {"LINEAR_API_KEY": v}}}}, indent=2)),
    V("notion-integration", lambda r: "ntn_" + rs(r, DIGITS, 11) + mixed(r, ALNUM, 35),
      lambda r, v: f'const notion = new Client({{ auth: "{v}" }});'),
    V("notion-legacy-secret", lambda r: "secret_" + mixed(r, ALNUM, 43),
      lambda r, v: f"NOTION_TOKEN={v}"),
    V("discord-bot", lambda r: b64_of(str(r.randrange(10**17, 10**19)).encode(), pad=False) + "." + mixed(r, B64URL, 6) + "." + mixed(r, B64URL, 38),
      lambda r, v: f"bot.run('{v}')"),
    V("discord-webhook", lambda r: f"https://discord.com/api/webhooks/{r.randrange(10**17, 10**19)}/{mixed(r, B64URL, 68)}",
      lambda r, v: f"DISCORD_WEBHOOK_URL={v}"),
    V("telegram-bot", lambda r: f"{r.randrange(10**9, 8 * 10**9)}:AA{mixed(r, B64URL, 33)}",
      lambda r, v: f"curl -s https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100{rs(r, DIGITS, 10)} -d text=deployed"),
    V("databricks", lambda r: "dapi" + rs(r, HEX, 32),
      lambda r, v: f"[DEFAULT]\nhost  = https://adb-{rs(r, DIGITS, 16)}.7.azuredatabricks.net\ntoken = {v}"),
    V("netlify", lambda r: "nfp_" + mixed(r, ALNUM, 36),
      lambda r, v: f"netlify deploy --prod --auth {v} --dir=dist"),
    V("fly-macaroon", lambda r: "fm2_" + mixed(r, B64, 240),
      lambda r, v: f'FLY_API_TOKEN="FlyV1 {v}"'),
    V("doppler-service", lambda r: "dp.st.prd." + mixed(r, ALNUM, 43),
      lambda r, v: f"docker run -e DOPPLER_TOKEN={v} acme/api:latest"),
    V("grafana-service-account", lambda r: "glsa_" + mixed(r, ALNUM, 32) + "_" + rs(r, HEX, 8),
      lambda r, v: f'provider "grafana" {{\n  url  = "https://grafana.acme.io"\n  auth = "{v}"\n}}'),
    V("grafana-cloud", lambda r: "glc_eyJvIjoi" + mixed(r, B64, 120) + "=",
      lambda r, v: f"GRAFANA_CLOUD_TOKEN={v}"),
    V("newrelic-user-key", lambda r: "NRAK-" + rs(r, UALNUM, 27),
      lambda r, v: f"curl -X POST https://api.newrelic.com/graphql -H 'API-Key: {v}' -d @query.json"),
    V("newrelic-license", lambda r: rs(r, HEX, 36) + "NRAL",
      lambda r, v: f"common: &default_settings\n  license_key: '{v}'\n  app_name: acme-api"),
    V("planetscale-password", lambda r: "pscale_pw_" + mixed(r, ALNUM + "_-", 43),
      lambda r, v: f"DATABASE_URL='mysql://{rs(r, LALNUM, 12)}:{v}@aws.connect.psdb.cloud/shop?sslaccept=strict'"),
    V("supabase-access", lambda r: "sbp_" + rs(r, HEX, 40),
      lambda r, v: f"npx supabase login --token {v}"),
    V("supabase-service-role", lambda r: jwt(r, {"iss": "supabase", "ref": rs(r, LOWER, 20), "role": "service_role", "iat": _now(r), "exp": _now(r) + 315_360_000}),
      lambda r, v: f"SUPABASE_SERVICE_ROLE_KEY={v}"),
    V("postman", lambda r: "PMAK-" + rs(r, HEX, 24) + "-" + rs(r, HEX, 34),
      lambda r, v: f"newman run collection.json --env-var \"postman_api_key={v}\""),
    V("digitalocean", lambda r: "dop_v1_" + rs(r, HEX, 64),
      lambda r, v: f"doctl auth init --access-token {v}"),
    V("mailgun", lambda r: "key-" + rs(r, HEX, 32),
      lambda r, v: f"curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.acme.io/messages -F to=ops@acme.io"),
    V("sentry-user-token", lambda r: "sntryu_" + rs(r, HEX, 64),
      lambda r, v: f"SENTRY_AUTH_TOKEN={v} npx @sentry/wizard -i nextjs"),
    V("figma-pat", lambda r: "figd_" + mixed(r, B64URL, 40),
      lambda r, v: f"curl -H 'X-Figma-Token: {v}' https://api.figma.com/v1/me"),
    V("airtable-pat", lambda r: "pat" + mixed(r, ALNUM, 14) + "." + rs(r, HEX, 64),
      lambda r, v: f'const base = new Airtable({{ apiKey: "{v}" }}).base("app{rs(r, ALNUM, 14)}");'),
    V("terraform-cloud", lambda r: mixed(r, ALNUM, 14) + ".atlasv1." + mixed(r, ALNUM, 67),
      lambda r, v: json.dumps({"credentials": {"app.terraform.io": {"token": v}}}, indent=2)),
    V("vault-service-token", lambda r: "hvs." + mixed(r, ALNUM + "_-", 90),
      lambda r, v: f"VAULT_ADDR=https://vault.acme.io VAULT_TOKEN={v} vault kv get secret/payments"),
    V("groq", lambda r: "gsk_" + mixed(r, ALNUM, 52), lambda r, v: f"GROQ_API_KEY={v}"),
    V("replicate", lambda r: "r8_" + mixed(r, ALNUM, 37), lambda r, v: f"export REPLICATE_API_TOKEN={v}"),
    V("perplexity", lambda r: "pplx-" + mixed(r, ALNUM, 48), lambda r, v: f'headers={{"Authorization": "Bearer {v}"}}'),
    V("xai", lambda r: "xai-" + mixed(r, ALNUM, 80), lambda r, v: f"XAI_API_KEY={v}"),
    V("langsmith", lambda r: "lsv2_pt_" + rs(r, HEX, 32) + "_" + rs(r, HEX, 10), lambda r, v: f"LANGCHAIN_API_KEY={v}\nLANGCHAIN_TRACING_V2=true"),
    V("tailscale-auth", lambda r: "tskey-auth-k" + mixed(r, ALNUM, 10) + "CNTRL-" + mixed(r, ALNUM, 33),
      lambda r, v: f"sudo tailscale up --authkey={v} --ssh"),
    V("sonarqube", lambda r: "squ_" + rs(r, HEX, 40), lambda r, v: f"mvn verify sonar:sonar -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={v}"),
    V("rubygems", lambda r: "rubygems_" + rs(r, HEX, 48), lambda r, v: f"---\n:rubygems_api_key: {v}"),
    V("nuget", lambda r: "oy2" + rs(r, LALNUM, 43), lambda r, v: f"dotnet nuget push bin/Release/Acme.Core.2.1.0.nupkg -k {v} -s https://api.nuget.org/v3/index.json"),
    V("buildkite", lambda r: "bkua_" + rs(r, HEX, 40), lambda r, v: f"BUILDKITE_API_TOKEN={v}"),
    V("dynatrace", lambda r: "dt0c01." + rs(r, UALNUM, 24) + "." + rs(r, UALNUM, 64), lambda r, v: f"Authorization: Api-Token {v}"),
    V("square", lambda r: "EAAA" + mixed(r, B64URL, 60), lambda r, v: f"SQUARE_ACCESS_TOKEN={v}"),
    V("contentful", lambda r: "CFPAT-" + mixed(r, B64URL, 43), lambda r, v: f"contentful login --management-token {v}"),
    V("pulumi", lambda r: "pul-" + rs(r, HEX, 40), lambda r, v: f"PULUMI_ACCESS_TOKEN={v} pulumi up --stack prod"),
    V("crates-io", lambda r: "cio" + mixed(r, ALNUM, 32), lambda r, v: f"cargo login {v}"),
    V("okta-api", lambda r: "00" + mixed(r, B64URL, 40), lambda r, v: f"curl -H 'Authorization: SSWS {v}' https://acme.okta.com/api/v1/users?limit=25"),
    V("firebase-fcm-server", lambda r: "AAAA" + mixed(r, B64URL, 7) + ":APA91b" + mixed(r, B64URL, 134),
      lambda r, v: f"curl -X POST https://fcm.googleapis.com/fcm/send -H 'Authorization: key={v}'"),
    V("mapbox-secret", lambda r: "sk.eyJ1IjoiYWNtZS" + mixed(r, B64URL, 40) + "." + mixed(r, B64URL, 22), lambda r, v: f"MAPBOX_DOWNLOADS_TOKEN={v}"),
    V("resend", lambda r: "re_" + mixed(r, ALNUM, 8) + "_" + mixed(r, ALNUM, 24), lambda r, v: f"const resend = new Resend('{v}');"),
    V("circleci-pat", lambda r: "CCIPAT_" + mixed(r, ALNUM, 22) + "_" + rs(r, HEX, 40), lambda r, v: f"circleci setup --token {v} --host https://circleci.com --no-prompt"),
    V("jfrog-reference", lambda r: "cmVmdGtuOjAxOjE3" + mixed(r, ALNUM, 48),
      lambda r, v: f"//acme.jfrog.io/artifactory/api/npm/npm-virtual/:_authToken={v}"),
    V("launchdarkly-sdk", lambda r: "sdk-" + uuid4(r), lambda r, v: f"LAUNCHDARKLY_SDK_KEY={v}"),
    V("age-secret-key", lambda r: "AGE-SECRET-KEY-1" + rs(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
      lambda r, v: f"# created: 2026-02-11T10:22:31+01:00\n# public key: age1{rs(r, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l', 58)}\n{v}"),
]


# --------------------------------------------------------------------------------------------
# tokens without a prefix: their context says what they are
# --------------------------------------------------------------------------------------------

CONTEXT_VENDOR: list[Kind] = [
    S("aws-secret-access-key", "vendor", lambda r: mixed(r, ALNUM + "+/", 40),
      lambda r, v: f"aws configure set aws_secret_access_key {v} --profile prod",
      lambda r, v: f"[prod]\naws_access_key_id = AKIA{rs(r, UALNUM, 16)}\naws_secret_access_key = {v}"),
    S("twilio-auth-token", "vendor", lambda r: rs(r, HEX, 32),
      lambda r, v: f'client = Client("AC{rs(r, HEX, 32)}", "{v}")',
      lambda r, v: f"TWILIO_ACCOUNT_SID=AC{rs(r, HEX, 32)}\nTWILIO_AUTH_TOKEN={v}"),
    S("azure-storage-key", "vendor", lambda r: b64_of(rbytes(r, 64)),
      lambda r, v: f'"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=acmeprodsa;AccountKey={v};EndpointSuffix=core.windows.net"'),
    S("azure-client-secret", "vendor", lambda r: mixed(r, ALNUM, 3) + "8Q~" + mixed(r, ALNUM + "_-.~", 34),
      lambda r, v: f"az login --service-principal -u {uuid4(r)} -p {v} --tenant {uuid4(r)}"),
    S("vercel-token", "vendor", lambda r: mixed(r, ALNUM, 24),
      lambda r, v: f"vercel deploy --prod --token {v}"),
    S("cloudflare-api-token", "vendor", lambda r: mixed(r, ALNUM + "_-", 40),
      lambda r, v: f"CLOUDFLARE_API_TOKEN={v} npx wrangler deploy"),
    S("cloudflare-global-key", "vendor", lambda r: rs(r, HEX, 37),
      lambda r, v: f"curl https://api.cloudflare.com/client/v4/zones -H 'X-Auth-Email: ops@acme.io' -H 'X-Auth-Key: {v}'"),
    S("heroku-api-key-netrc", "vendor", uuid4,
      lambda r, v: f"machine api.heroku.com\n  login dana@acme.io\n  password {v}\nmachine git.heroku.com\n  login dana@acme.io\n  password {v}"),
    S("mailchimp", "vendor", lambda r: rs(r, HEX, 32) + f"-us{r.randrange(1, 22)}",
      lambda r, v: f"MAILCHIMP_API_KEY={v}"),
    S("snyk-token", "vendor", uuid4, lambda r, v: f"snyk auth {v}"),
    S("algolia-admin", "vendor", lambda r: rs(r, HEX, 32),
      lambda r, v: f"const client = algoliasearch('{rs(r, UALNUM, 10)}', '{v}'); // admin key, server side only"),
    S("kubeadm-join-token", "vendor", lambda r: rs(r, LALNUM, 6) + "." + rs(r, LALNUM, 16),
      lambda r, v: f"kubeadm join 10.0.0.10:6443 --token {v} --discovery-token-ca-cert-hash sha256:{rs(r, HEX, 64)}"),
    S("bearer-jwt", "vendor", lambda r: jwt(r, {"sub": str(r.randrange(10**6, 10**8)), "email": f"{r.choice(NAMES)}@acme.io", "scope": "read write", "iat": _now(r), "exp": _now(r) + 3600}),
      lambda r, v: f'curl -H "Authorization: Bearer {v}" https://api.acme.io/v2/me'),
]


# --------------------------------------------------------------------------------------------
# config files
# --------------------------------------------------------------------------------------------

CONFIG: list[Kind] = [
    S("dotenv-file", "config", plain_password,
      lambda r, v: f"NODE_ENV=production\nPORT=3000\nDB_HOST={hostname(r)}\nDB_USER={user(r)}\nDB_PASSWORD={v}\nREDIS_URL=redis://cache01.internal:6379",
      G(".env", "DB_PASSWORD={v}")),
    S("yaml-database", "config", password,
      lambda r, v: f"database:\n  adapter: postgresql\n  host: {hostname(r)}\n  username: {user(r)}\n  password: \"{v}\"\n  pool: 10",
      G("config/database.yml", '  password: "{v}"')),
    S("toml-section", "config", password,
      lambda r, v: f'[database]\nurl = "postgres://{hostname(r)}:5432/app"\nuser = "{user(r)}"\npassword = "{v}"\nmax_connections = 20'),
    S("mycnf-client", "config", plain_password,
      lambda r, v: f"[client]\nuser=root\npassword={v}\nhost=127.0.0.1"),
    S("appsettings-json", "config", plain_password,
      lambda r, v: json.dumps({"ConnectionStrings": {"Default": f"Server={hostname(r)};Database=Shop;User Id=sa;Password={v};TrustServerCertificate=True"},
                               "Logging": {"LogLevel": {"Default": "Information"}}}, indent=2)),
    S("maven-settings-xml", "config", plain_password,
      lambda r, v: f"<settings>\n  <servers>\n    <server>\n      <id>acme-releases</id>\n      <username>{user(r)}</username>\n      <password>{v}</password>\n    </server>\n  </servers>\n</settings>"),
    S("nuget-config-xml", "config", plain_password,
      lambda r, v: f'<packageSourceCredentials>\n  <AcmeFeed>\n    <add key="Username" value="build" />\n    <add key="ClearTextPassword" value="{v}" />\n  </AcmeFeed>\n</packageSourceCredentials>'),
    S("terraform-tfvars", "config", password,
      lambda r, v: f'db_username = "{user(r)}"\ndb_password = "{v}"\ninstance_class = "db.t3.medium"'),
    S("terraform-resource", "config", plain_password,
      lambda r, v: f'resource "aws_db_instance" "main" {{\n  engine         = "postgres"\n  username       = "app"\n  password       = "{v}"\n  instance_class = "db.t4g.micro"\n}}'),
    S("dockerfile-env", "config", plain_password,
      lambda r, v: f"FROM node:20-alpine\nWORKDIR /app\nARG NPM_TOKEN\nENV API_SECRET={v}\nCOPY . .\nRUN npm ci"),
    S("dockerfile-arg-default", "config", plain_password,
      lambda r, v: f"ARG DB_PASSWORD={v}\nENV DB_PASSWORD=${{DB_PASSWORD}}"),
    S("docker-compose-env", "config", plain_password,
      lambda r, v: f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {v}\n    ports:\n      - \"5432:5432\"",
      G("docker-compose.yml", "      POSTGRES_PASSWORD: {v}")),
    S("k8s-secret-stringdata", "config", password,
      lambda r, v: f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-secrets\ntype: Opaque\nstringData:\n  JWT_SECRET: \"{v}\""),
    S("github-actions-env", "config", plain_password,
      lambda r, v: f"jobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n      DATABASE_PASSWORD: {v}\n    steps:\n      - uses: actions/checkout@v4"),
    S("gitlab-ci-variables", "config", plain_password,
      lambda r, v: f"variables:\n  POSTGRES_DB: test\n  POSTGRES_PASSWORD: \"{v}\"\n\ntest:\n  script: pytest"),
    S("systemd-environment", "config", plain_password,
      lambda r, v: f"[Service]\nUser=acme\nEnvironment=\"API_KEY={v}\"\nExecStart=/opt/acme/bin/server",
      G("deploy/acme.service", 'Environment="API_KEY={v}"')),
    S("nginx-upstream-key", "config", token32,
      lambda r, v: f"location /api/ {{\n    proxy_pass https://backend;\n    proxy_set_header X-Api-Key \"{v}\";\n}}"),
    S("java-properties", "config", plain_password,
      lambda r, v: f"spring.datasource.url=jdbc:mysql://{hostname(r)}:3306/orders\nspring.datasource.username={user(r)}\nspring.datasource.password={v}",
      G("src/main/resources/application.properties", "spring.datasource.password={v}")),
    S("spring-application-yml", "config", password,
      lambda r, v: f"spring:\n  datasource:\n    url: jdbc:postgresql://{hostname(r)}/app\n    username: app\n    password: '{v}'\n  jpa:\n    open-in-view: false",
      G("src/main/resources/application.yml", "    password: '{v}'")),
    S("rails-credentials", "config", lambda r: rs(r, HEX, 128),
      lambda r, v: f"$ bin/rails credentials:show\nsecret_key_base: {v}\naws:\n  region: eu-west-1",
      G("config/credentials.yml", "secret_key_base: {v}")),
    S("npmrc-nexus", "config", lambda r: "NpmToken." + uuid4(r),
      lambda r, v: f"registry=https://nexus.acme.io/repository/npm-group/\n//nexus.acme.io/repository/npm-group/:_authToken={v}\nalways-auth=true",
      G(".npmrc", "//nexus.acme.io/repository/npm-group/:_authToken={v}")),
    S("pip-conf-index", "config", plain_password,
      lambda r, v: f"[global]\nindex-url = https://build:{v}@pypi.acme.io/simple\ntimeout = 60",
      G("/etc/pip.conf", "index-url = https://build:{v}@pypi.acme.io/simple")),
    S("pypirc", "config", plain_password,
      lambda r, v: f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = release\npassword = {v}",
      G("/home/dev/.pypirc", "password = {v}")),
    S("netrc", "config", plain_password,
      lambda r, v: f"machine ftp.acme.io login {user(r)} password {v}"),
    S("git-credentials", "config", lambda r: "glpat-" + mixed(r, ALNUM + "_-", 20) if r.random() < 0.3 else plain_password(r),
      lambda r, v: f"$ cat ~/.git-credentials\nhttps://dana:{v}@gitlab.acme.io",
      G("/home/dev/.git-credentials", "https://dana:{v}@gitlab.acme.io")),
    S("ansible-group-vars", "config", password,
      lambda r, v: f"---\nansible_user: deploy\nansible_become_password: \"{v}\"\nnginx_worker_processes: 4"),
    S("helm-values", "config", plain_password,
      lambda r, v: f"postgresql:\n  auth:\n    username: app\n    postgresPassword: {v}\n    database: app\n  primary:\n    persistence:\n      size: 20Gi",
      G("charts/app/values-prod.yaml", "    postgresPassword: {v}")),
    S("wp-config", "config", plain_password,
      lambda r, v: f"define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wp_admin' );\ndefine( 'DB_PASSWORD', '{v}' );\ndefine( 'DB_HOST', 'localhost' );",
      G("wp-config.php", "define( 'DB_PASSWORD', '{v}' );")),
    S("django-secret-key", "config", lambda r: "django-insecure-" + mixed(r, LALNUM + "!@#$%^&*(-_=+)", 50),
      lambda r, v: f"SECRET_KEY = '{v}'\n\nDEBUG = True",
      G("acme/settings.py", "SECRET_KEY = '{v}'")),
    S("laravel-app-key", "config", lambda r: "base64:" + b64_of(rbytes(r, 32)),
      lambda r, v: f"APP_NAME=Acme\nAPP_ENV=local\nAPP_KEY={v}\nAPP_DEBUG=true",
      G(".env", "APP_KEY={v}")),
    S("pgpass", "config", plain_password,
      lambda r, v: f"{hostname(r)}:5432:*:{user(r)}:{v}"),
    S("redis-conf", "config", password,
      lambda r, v: f"bind 0.0.0.0\nport 6379\nrequirepass {v}\nmaxmemory 2gb",
      G("/etc/redis/redis.conf", "requirepass {v}")),
    S("grafana-ini", "config", pw_noun_year,
      lambda r, v: f"[security]\nadmin_user = admin\nadmin_password = {v}"),
    S("wpa-supplicant", "config", pw_words,
      lambda r, v: f'network={{\n    ssid="ACME-Office"\n    psk="{v}"\n}}'),
    S("gradle-properties", "config", plain_password,
      lambda r, v: f"org.gradle.jvmargs=-Xmx2g\nossrhUsername=acme-release\nossrhPassword={v}\nsigning.keyId=24875D73",
      G("gradle.properties", "ossrhPassword={v}")),
    S("composer-auth-json", "config", plain_password,
      lambda r, v: json.dumps({"http-basic": {"repo.packagist.com": {"username": "token", "password": v}}}, indent=4)),
    S("prometheus-basic-auth", "config", password,
      lambda r, v: f"scrape_configs:\n  - job_name: node\n    basic_auth:\n      username: prom\n      password: '{v}'\n    static_configs:\n      - targets: ['10.0.3.7:9100']"),
    S("kibana-yml", "config", plain_password,
      lambda r, v: f'elasticsearch.hosts: ["https://es01:9200"]\nelasticsearch.username: "kibana_system"\nelasticsearch.password: "{v}"'),
    S("openvpn-auth-file", "config", pw_city,
      lambda r, v: f"$ cat /etc/openvpn/auth.txt\n{r.choice(NAMES)}.{r.choice(CITIES)}\n{v}"),
    S("jupyter-config", "config", lambda r: rs(r, HEX, 48),
      lambda r, v: f"c.ServerApp.token = '{v}'\nc.ServerApp.ip = '0.0.0.0'",
      G("jupyter_server_config.py", "c.ServerApp.token = '{v}'")),
    S("odbc-ini", "config", plain_password,
      lambda r, v: f"[ReportingDSN]\nDriver=ODBC Driver 18 for SQL Server\nServer=tcp:{hostname(r)},1433\nUID=reporting\nPWD={v}",
      G("/etc/odbc.ini", "PWD={v}")),
    S("home-assistant-secrets", "config", pw_short,
      lambda r, v: f"# secrets.yaml\nwifi_password: \"{v}\"\nlatitude: 52.52"),
]


# --------------------------------------------------------------------------------------------
# code
# --------------------------------------------------------------------------------------------

CODE: list[Kind] = [
    S("python-psycopg-connect", "code", password,
      lambda r, v: f'conn = psycopg2.connect(host="{hostname(r)}", dbname="app", user="{user(r)}", password="{v}")'),
    S("python-requests-auth", "code", password,
      lambda r, v: f'resp = requests.get("https://jenkins.acme.io/api/json", auth=("ci", "{v}"), timeout=10)'),
    S("python-environ-default", "code", token32,
      lambda r, v: f'API_KEY = os.environ.get("PAYMENTS_API_KEY", "{v}")'),
    S("js-pg-pool", "code", password,
      lambda r, v: f"const pool = new Pool({{\n  host: '{hostname(r)}',\n  user: 'app',\n  password: '{v}',\n  database: 'app',\n}});",
      G("src/db.js", "  password: '{v}',")),
    S("js-env-fallback", "code", lambda r: mixed(r, ALNUM + "-_", 40),
      lambda r, v: f"const secret = process.env.JWT_SECRET || '{v}';\njwt.sign(payload, secret, {{ expiresIn: '1h' }});"),
    S("go-dsn", "code", plain_password,
      lambda r, v: f'db, err := sql.Open("postgres", "host={hostname(r)} port=5432 user=app password={v} dbname=app sslmode=disable")'),
    S("go-const", "code", token32,
      lambda r, v: f'const apiKey = "{v}"'),
    S("rust-client-new", "code", token32,
      lambda r, v: f'let client = reqwest::Client::new();\nlet res = client.get(url).bearer_auth("{v}").send().await?;'),
    S("java-drivermanager", "code", password,
      lambda r, v: f'Connection conn = DriverManager.getConnection("jdbc:mysql://{hostname(r)}:3306/shop", "shop", "{v}");'),
    S("csharp-connection-string", "code", plain_password,
      lambda r, v: f'var cs = "Server={hostname(r)};Database=Billing;User Id=billing;Password={v};";\nusing var conn = new SqlConnection(cs);',
      G("src/Billing/Db.cs", 'var cs = "Server=sql01;Database=Billing;User Id=billing;Password={v};";')),
    S("php-pdo", "code", password,
      lambda r, v: f"$pdo = new PDO('mysql:host=localhost;dbname=shop', 'root', '{v}');"),
    S("ruby-redis-new", "code", password,
      lambda r, v: f'$redis = Redis.new(host: "{hostname(r)}", port: 6379, password: "{v}")'),
    S("kotlin-const", "code", token32,
      lambda r, v: f'private const val MAPS_API_SECRET = "{v}"'),
    S("flask-secret-key", "code", lambda r: rs(r, HEX, 48),
      lambda r, v: f"app.config['SECRET_KEY'] = '{v}'"),
    S("bash-script-var", "code", password,
      lambda r, v: f"#!/usr/bin/env bash\nset -euo pipefail\nBACKUP_PASS='{v}'\npg_dump -U backup app | gzip > /backups/app.sql.gz"),
    S("playwright-login", "code", pw_season,
      lambda r, v: f"await page.fill('#email', 'qa.admin@acme.io');\nawait page.fill('#password', '{v}');\nawait page.click('button[type=submit]');"),
    S("sql-create-user", "code", password,
      lambda r, v: f"CREATE USER 'reporting'@'%' IDENTIFIED BY '{v}';\nGRANT SELECT ON shop.* TO 'reporting'@'%';"),
    S("sql-alter-user", "code", password,
      lambda r, v: f"ALTER USER postgres WITH PASSWORD '{v}';"),
    S("sql-create-role", "code", plain_password,
      lambda r, v: f"CREATE ROLE app_rw WITH LOGIN PASSWORD '{v}' VALID UNTIL '2027-01-01';"),
    S("oracle-identified-by", "code", plain_password,
      lambda r, v: f"ALTER USER system IDENTIFIED BY {v} ACCOUNT UNLOCK;"),
]


# --------------------------------------------------------------------------------------------
# command lines
# --------------------------------------------------------------------------------------------

CLI: list[Kind] = [
    S("psql-pgpassword", "command-line", plain_password,
      lambda r, v: f"PGPASSWORD='{v}' psql -h {hostname(r)} -U {user(r)} -d app -c 'select count(*) from orders'"),
    S("mysql-password-flag", "command-line", plain_password,
      lambda r, v: f"mysql -h {hostname(r)} -u root --password={v} -e 'SHOW DATABASES'"),
    S("mysqldump-p", "command-line", password,
      lambda r, v: f"mysqldump -u backup -p'{v}' --single-transaction shop > shop.sql"),
    S("mongosh-p", "command-line", plain_password,
      lambda r, v: f"mongosh --host {hostname(r)} -u admin -p {v} --authenticationDatabase admin"),
    S("redis-cli-a", "command-line", plain_password,
      lambda r, v: f"redis-cli -h {hostname(r)} -p 6379 -a {v} --no-auth-warning INFO keyspace"),
    S("kubectl-from-literal", "command-line", password,
      lambda r, v: f"kubectl -n prod create secret generic db-creds --from-literal=username=app --from-literal=password='{v}'"),
    S("helm-set-password", "command-line", plain_password,
      lambda r, v: f"helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={v} -n data"),
    S("docker-run-env", "command-line", plain_password,
      lambda r, v: f"docker run -d --name pg -e POSTGRES_PASSWORD={v} -p 5432:5432 postgres:16"),
    S("openssl-passout", "command-line", plain_password,
      lambda r, v: f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{v}"),
    S("openssl-enc-k", "command-line", password,
      lambda r, v: f"openssl enc -aes-256-cbc -pbkdf2 -salt -in dump.sql -out dump.sql.enc -k '{v}'"),
    S("7z-p", "command-line", plain_password,
      lambda r, v: f"7z a -p{v} -mhe=on backups-2026-02.7z ./backups"),
    S("zip-P", "command-line", pw_noun_year,
      lambda r, v: f"zip -r -P '{v}' customer-export.zip export/"),
    S("sshpass-rsync", "command-line", password,
      lambda r, v: f"sshpass -p '{v}' rsync -avz -e ssh ./dist/ deploy@{hostname(r)}:/var/www/app/"),
    S("curl-u", "command-line", plain_password,
      lambda r, v: f"curl -u admin:{v} -X POST https://jenkins.acme.io/job/deploy/buildWithParameters?ENV=prod"),
    S("wget-password", "command-line", plain_password,
      lambda r, v: f"wget --user=reports --password={v} https://files.acme.io/exports/2026-02.csv"),
    S("httpie-a", "command-line", plain_password,
      lambda r, v: f"http -a ops:{v} GET https://registry.acme.io/v2/_catalog"),
    S("lftp-u", "command-line", plain_password,
      lambda r, v: f"lftp -u uploader,{v} sftp://files.acme.io -e 'put build.tar.gz; bye'"),
    S("smbclient-U", "command-line", plain_password,
      lambda r, v: f"smbclient //fs01.corp.lan/finance -U 'CORP\\\\{r.choice(NAMES)}%{v}' -c 'ls'"),
    S("ldapsearch-w", "command-line", password,
      lambda r, v: f"ldapsearch -x -H ldaps://ldap.corp.lan -D 'cn=admin,dc=corp,dc=lan' -w '{v}' -b 'ou=people,dc=corp,dc=lan'"),
    S("vault-kv-put", "command-line", password,
      lambda r, v: f"vault kv put secret/payments/db username=payments password='{v}'"),
    S("gpg-passphrase", "command-line", pw_phrase,
      lambda r, v: f"gpg --batch --yes --pinentry-mode loopback --passphrase '{v}' -c secrets.tar"),
    S("htpasswd-b", "command-line", pw_words,
      lambda r, v: f"htpasswd -b -c /etc/nginx/.htpasswd admin {v}"),
    S("keytool-storepass", "command-line", plain_password,
      lambda r, v: f"keytool -importcert -alias acme-ca -file ca.crt -keystore truststore.jks -storepass {v} -noprompt"),
    S("sqlcmd-P", "command-line", plain_password,
      lambda r, v: f"sqlcmd -S {hostname(r)} -U sa -P {v} -Q \"SELECT name FROM sys.databases\""),
    S("sudo-S", "command-line", pw_name_date,
      lambda r, v: f"echo '{v}' | sudo -S systemctl restart nginx"),
    S("mosquitto-pub", "command-line", plain_password,
      lambda r, v: f"mosquitto_pub -h mqtt.acme.io -p 8883 -u sensor01 -P {v} -t plant/temp -m 21.5"),
    S("gh-secret-set", "command-line", plain_password,
      lambda r, v: f"gh secret set PROD_DB_PASSWORD --body '{v}' --repo acme/api"),
    S("ansible-extra-vars", "command-line", password,
      lambda r, v: f"ansible-playbook -i inventory/prod site.yml -e \"ansible_become_password='{v}'\""),
    S("rabbitmqctl-add-user", "command-line", plain_password,
      lambda r, v: f"rabbitmqctl add_user orders {v} && rabbitmqctl set_user_tags orders management"),
    S("windows-net-use", "command-line", pw_city,
      lambda r, v: f"net use Z: \\\\fs01\\share /user:CORP\\{r.choice(NAMES)} {v} /persistent:no"),
    S("powershell-securestring", "command-line", password,
      lambda r, v: f'$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential ("CORP\\svc-deploy", $pw)'),
    S("heroku-config-set", "command-line", lambda r: rs(r, HEX, 64),
      lambda r, v: f"heroku config:set SECRET_KEY_BASE={v} -a acme-web"),
    S("influx-setup", "command-line", plain_password,
      lambda r, v: f"influx setup --username admin --password {v} --org acme --bucket metrics --force"),
]


# --------------------------------------------------------------------------------------------
# URIs
# --------------------------------------------------------------------------------------------

URI: list[Kind] = [
    S("amqp-uri", "uri", plain_password, lambda r, v: f"CELERY_BROKER_URL=amqp://orders:{v}@mq01.internal:5672/prod"),
    S("rediss-uri", "uri", plain_password, lambda r, v: f'REDIS_URL="rediss://default:{v}@{hostname(r)}:6380/0"'),
    S("postgres-uri", "uri", plain_password, lambda r, v: f"DATABASE_URL=postgresql://app:{v}@{hostname(r)}:5432/app?sslmode=require"),
    S("mysql-sqlalchemy-uri", "uri", plain_password, lambda r, v: f'engine = create_engine("mysql+pymysql://root:{v}@127.0.0.1:3306/shop")'),
    S("mongodb-srv-uri", "uri", plain_password, lambda r, v: f'mongosh "mongodb+srv://admin:{v}@cluster0.{rs(r, LALNUM, 5)}.mongodb.net/test"'),
    S("smtp-dsn", "uri", plain_password, lambda r, v: f"MAILER_DSN=smtp://noreply%40acme.io:{v}@smtp.office365.com:587"),
    S("ftp-uri", "uri", plain_password, lambda r, v: f"wget ftp://backup:{v}@ftp.acme.io/nightly/db.sql.gz"),
    S("https-userinfo", "uri", plain_password, lambda r, v: f"git clone https://{r.choice(NAMES)}:{v}@git.acme.io/platform/infra.git"),
    S("proxy-uri", "uri", plain_password, lambda r, v: f"export HTTPS_PROXY=http://{r.choice(NAMES)}:{v}@proxy.corp.lan:3128"),
    S("query-api-key", "uri", token32, lambda r, v: f"curl 'https://api.weather-data.io/v1/forecast?lat=48.1&lon=11.6&api_key={v}&units=metric'"),
    S("query-access-token", "uri", lambda r: mixed(r, B64URL, 43), lambda r, v: f"const ws = new WebSocket(`wss://stream.acme.io/socket?access_token={v}`);"),
    S("query-token-webhook", "uri", lambda r: rs(r, HEX, 40), lambda r, v: f"https://ci.acme.io/generic-webhook-trigger/invoke?token={v}"),
    S("jdbc-password-param", "uri", plain_password, lambda r, v: f"jdbc:postgresql://{hostname(r)}:5432/app?user=app&password={v}&ssl=true"),
]


# --------------------------------------------------------------------------------------------
# encoded forms
# --------------------------------------------------------------------------------------------


def _basic(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = b64_of(f"{user(r)}:{v}".encode())
    return f'curl -H "Authorization: Basic {enc}" https://nexus.acme.io/service/rest/v1/repositories', [b64form(enc)]


def _k8s_data(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = b64_of(v.encode())
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\ndata:\n  username: {b64_of(user(r).encode())}\n"
            f"  password: {enc}"), [b64form(enc)]


def _docker_auth(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = b64_of(f"{user(r)}:{v}".encode())
    return json.dumps({"auths": {"registry.acme.io": {"auth": enc}}}, indent=2), [b64form(enc)]


def _pct_uri(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = urllib.parse.quote(v, safe="")
    return f"postgres://app:{enc}@{hostname(r)}:5432/app", [scaled(v, enc)]


def _form_body(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = urllib.parse.quote_plus(v)
    return f'curl -X POST https://auth.acme.io/login -d "username={user(r)}&password={enc}"', [scaled(v, enc)]


def _json_escaped(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = json.dumps(v)[1:-1]
    return '{"db": {"host": "' + hostname(r) + '", "password": "' + enc + '"}}', [scaled(v, enc)]


def _shell_quote(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = v.replace("'", "'\\''")
    return f"mysql -u root -p'{enc}' -e 'select 1'", [scaled(v, enc)]


def _hex_pw(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = hex_of(v)
    return f"export PGPASSWORD=$(echo {enc} | xxd -r -p)", [(enc, 20)]


def _b64_env(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = b64_of(v.encode())
    return f"DB_PASSWORD_B64={enc}", [b64form(enc)]


def _npmrc_password(r: random.Random, v: str) -> tuple[str, list[Form]]:
    enc = b64_of(v.encode())
    return f"//npm.acme.io/:username=ci\n//npm.acme.io/:_password={enc}\n//npm.acme.io/:email=ci@acme.io", [b64form(enc)]


def pw_quotey(r: random.Random) -> str:
    """A password with a quote and a backslash in it (needs escaping in JSON and in a shell)."""
    body = mixed(r, ALNUM, r.randrange(12, 18))
    i, j = sorted(r.sample(range(2, len(body) - 1), 2))
    return body[:i] + r.choice(["\"", "'"]) + body[i:j] + "\\" + body[j:]


def pw_urly(r: random.Random) -> str:
    """A password with characters that must be percent-encoded in a URI."""
    body = mixed(r, ALNUM, r.randrange(12, 18))
    for ch in r.sample("@:/#?%&+= ", 3):
        i = r.randrange(1, len(body))
        body = body[:i] + ch + body[i:]
    return body


def pw_single_quote(r: random.Random) -> str:
    body = mixed(r, ALNUM + "!#%", r.randrange(12, 18))
    i = r.randrange(2, len(body) - 2)
    return body[:i] + "'" + body[i:]


ENCODED: list[Kind] = [
    S("basic-auth-header", "encoded", plain_password, _basic),
    S("k8s-secret-data-b64", "encoded", password, _k8s_data),
    S("docker-config-auth", "encoded", plain_password, _docker_auth),
    S("percent-encoded-uri", "encoded", pw_urly, _pct_uri),
    S("form-urlencoded-body", "encoded", pw_urly, _form_body),
    S("json-escaped-password", "encoded", pw_quotey, _json_escaped),
    S("shell-escaped-quote", "encoded", pw_single_quote, _shell_quote),
    S("hex-password", "encoded", plain_password, _hex_pw),
    S("base64-env-var", "encoded", password, _b64_env),
    S("npmrc-password-b64", "encoded", plain_password, _npmrc_password),
]


# --------------------------------------------------------------------------------------------
# prose
# --------------------------------------------------------------------------------------------

PROSE: list[Kind] = [
    S("prose-the-password-is", "prose", password,
      lambda r, v: f"the password for the staging admin is {v} — I'll rotate it after the demo"),
    S("prose-use-to-log-in", "prose", pw_city,
      lambda r, v: f"use {v} to log in to the Grafana box, user is admin"),
    S("prose-pw-colon", "prose", pw_short,
      lambda r, v: f"vpn: dana.reyes\npw: {v}"),
    S("prose-creds-are", "prose", plain_password,
      lambda r, v: f"creds are {user(r)} / {v} (same as last time)"),
    S("prose-quoted-in-sentence", "prose", pw_noun_year,
      lambda r, v: f'I changed the root password to "{v}" yesterday but the cron job still uses the old one'),
    S("prose-next-line", "prose", password,
      lambda r, v: f"Here's the DB password:\n\n{v}\n\nDon't commit it anywhere."),
    S("prose-login-block", "prose", pw_season,
      lambda r, v: f"Login: qa-admin@acme.io\nPassword: {v}\nURL: https://staging.acme.io/admin"),
    S("prose-passphrase-spaces", "prose", pw_phrase,
      lambda r, v: f"The passphrase for the backup key is: {v}"),
    S("prose-wifi", "prose", pw_words,
      lambda r, v: f"office wifi is ACME-Guest, pass {v}"),
    S("prose-api-key-generic", "prose", token32,
      lambda r, v: f"my api key for the internal metrics service is {v}, can you wire it into the client?"),
    S("prose-temporary-password", "prose", pw_short,
      lambda r, v: f"Your temporary password is: {v}\nYou will be asked to change it the first time you sign in."),
    S("prose-markdown-table", "prose", plain_password,
      lambda r, v: f"| env | user | password |\n|---|---|---|\n| staging | app | {v} |\n| prod | app | (ask Dana) |"),
    S("prose-inline-code", "prose", pw_name_date,
      lambda r, v: f"The SSH password for the Raspberry Pi is `{v}` — root login is disabled."),
    S("prose-dont-share", "prose", lambda r: mixed(r, ALNUM, 40),
      lambda r, v: f"don't share this but the signing secret for the webhooks is\n{v}"),
]


# --------------------------------------------------------------------------------------------
# other languages
# --------------------------------------------------------------------------------------------

MULTILINGUAL: list[Kind] = [
    S("de-passwort-lautet", "multilingual", password,
      lambda r, v: f"Das Passwort für die Staging-Datenbank lautet {v}, bitte nicht committen."),
    S("es-contrasena", "multilingual", pw_noun_year,
      lambda r, v: f"La contraseña del usuario admin es {v}, cámbiala después del despliegue."),
    S("fr-mot-de-passe", "multilingual", plain_password,
      lambda r, v: f"Le mot de passe root du serveur est « {v} », ne le mets pas dans le dépôt."),
    S("ja-password-no-spaces", "multilingual", plain_password,
      lambda r, v: f"本番DBのパスワードは{v}です。"),
    S("ja-api-key-fullwidth-colon", "multilingual", token32,
      lambda r, v: f"APIキー：{v}\nこれを.envに入れてください。"),
    S("zh-mima-shi", "multilingual", plain_password,
      lambda r, v: f"数据库密码是{v}，别提交到仓库。"),
    S("zh-zhanghao-mima", "multilingual", pw_short,
      lambda r, v: f"账号 admin 密码 {v}"),
    S("pt-senha", "multilingual", pw_words,
      lambda r, v: f"a senha do banco de produção é {v}"),
    S("it-password-di-root", "multilingual", password,
      lambda r, v: f"la password di root è {v}"),
    S("ru-parol", "multilingual", plain_password,
      lambda r, v: f"пароль от сервера: {v}"),
    S("ko-bimilbeonho", "multilingual", pw_name_date,
      lambda r, v: f"관리자 비밀번호는 {v} 입니다"),
]


# --------------------------------------------------------------------------------------------
# key material
# --------------------------------------------------------------------------------------------


def _openssh_body(r: random.Random) -> str:
    raw = (b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003"
           b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + rbytes(r, 32) + b"\x00\x00\x00\x98" + rbytes(r, 8)
           + b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + rbytes(r, 32) + b"\x00\x00\x00@" + rbytes(r, 64)
           + b"\x00\x00\x00\x0edana@laptop\x01\x02\x03\x04\x05")
    return wrap(b64_of(raw), 70)


def _ec_body(r: random.Random) -> str:
    der = (bytes.fromhex("30770201010420") + rbytes(r, 32) + bytes.fromhex("a00a06082a8648ce3d030107a14403420004")
           + rbytes(r, 64))
    return wrap(b64_of(der), 64)


def _pkcs8_body(r: random.Random) -> str:
    return wrap("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + b64_of(rbytes(r, 1180)), 64)


def _pgp_body(r: random.Random) -> str:
    return wrap("lQdGBG" + b64_of(rbytes(r, 900)), 64) + "\n=" + rs(r, B64, 4)


def _escaped_newlines(r: random.Random, v: str) -> tuple[str, list[Form]]:
    pem = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----\n"
    enc = v.replace("\n", "\\n")
    return f'DEPLOY_SSH_KEY="{pem.replace(chr(10), chr(92) + "n")}"', [(enc, 10)]


def _gcp_sa(r: random.Random, v: str) -> tuple[str, list[Form]]:
    pem = f"-----BEGIN PRIVATE KEY-----\n{v}\n-----END PRIVATE KEY-----\n"
    doc = {"type": "service_account", "project_id": "acme-prod", "private_key_id": rs(r, HEX, 40), "private_key": pem,
           "client_email": "ci-deployer@acme-prod.iam.gserviceaccount.com", "client_id": rs(r, DIGITS, 21)}
    return json.dumps(doc, indent=2), [(v.replace("\n", "\\n"), 10)]


KEYS: list[Kind] = [
    S("openssh-private-key", "key-material", _openssh_body,
      lambda r, v: f"$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
      _escaped_newlines),
    S("ec-private-key", "key-material", _ec_body,
      lambda r, v: f"-----BEGIN EC PRIVATE KEY-----\n{v}\n-----END EC PRIVATE KEY-----"),
    S("gcp-service-account-json", "key-material", _pkcs8_body, _gcp_sa),
    S("pgp-private-key-block", "key-material", _pgp_body,
      lambda r, v: f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{v}\n-----END PGP PRIVATE KEY BLOCK-----"),
    S("wireguard-private-key", "key-material", lambda r: b64_of(rbytes(r, 32)),
      lambda r, v: f"[Interface]\nPrivateKey = {v}\nAddress = 10.8.0.2/24\n\n[Peer]\nPublicKey = {b64_of(rbytes(r, 32))}\nEndpoint = vpn.acme.io:51820"),
]


OUTSIDER_KINDS: list[Kind] = VENDOR + CONTEXT_VENDOR + CONFIG + CODE + CLI + URI + ENCODED + PROSE + MULTILINGUAL + KEYS

check_unique_names(OUTSIDER_KINDS)

_ = (DIGITS, UPPER)

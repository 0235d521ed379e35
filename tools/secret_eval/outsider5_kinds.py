# ruff: noqa: E501
"""A fifth outsider's held-out corpus: credentials as developers and their tools write them into a
coding-agent session. Written without reading Moraine's redaction rules, their tests, its security
docs or any earlier corpus's kinds. Every value is drawn fresh from the rng; none is a real key.

Families: vendor (tokens of many services, documented prefixes and lengths), config (files of
every format), cli (command lines), code (many languages, SQL, IaC), uri (URIs and connection
strings), http (headers, cookies, query strings, bodies), logs (tool output and first-start
banners), prose (chat and notes), i18n (other languages, native script and romanized),
encoded (base64, URL-encoding, hex, escapes, ...), keys (private key material).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import quopri
import random
import struct
import urllib.parse
import zlib
from collections.abc import Callable

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
    Kind,
    b64_of,
    check_unique_names,
    kind,
    mixed,
    password,
    rbytes,
    rendered,
    rendering,
    rs,
    uuid4,
    wrap,
)

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
B32U = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
SYM = "!#%*+-.=?@^_~"  # symbols that survive most quoting (no quotes, backslash, $, &, <, >)
URLSYM = "-._~!*"  # safe in a URL's userinfo

# --------------------------------------------------------------------------------------------
# filler for the «name» placeholders
# --------------------------------------------------------------------------------------------

_USERS = ("deploy", "admin", "svc_reports", "app_rw", "ci-bot", "etl_loader", "grafana", "backup", "kevin.m", "jdoe",
          "priya", "ops", "readonly", "postgres", "root", "sa", "webadmin", "integration")
_HOSTS = ("db-primary.internal", "10.20.3.14", "pg.staging.acme.dev", "mysql-01.prod.lan", "cache.eu-west-1.example.net",
          "sql.corp.example.com", "mongo-2.data.svc.cluster.local", "172.16.40.8", "orders-db.c9x2k1.us-east-1.rds.amazonaws.com",
          "broker.iot.example.org", "nas.home.arpa")
_APPS = ("billing", "checkout", "inventory", "orders-api", "webshop", "ledger", "notifier", "reporting", "gateway", "crm-sync",
         "pricing", "search", "media-worker", "auth-svc")
_ORGS = ("acme", "globex", "initech", "umbrella-labs", "hooli", "stark-dev", "wayne-ent", "cyberdyne", "soylent", "tyrell")
_DBS = ("orders", "app_production", "analytics", "crm", "inventory", "warehouse", "appdb", "ledger", "users")
_NS = ("default", "prod", "staging", "payments", "data", "platform", "monitoring")
_REGIONS = ("us-east-1", "eu-west-1", "eu-central-1", "ap-southeast-2", "us-west-2", "sa-east-1")
_DOMAINS = ("acme.io", "example.com", "globex.dev", "initech.co", "hooli.xyz", "corp.example.org")
_NAMES = ("alice", "bob", "carol", "dmitri", "emeka", "fatima", "goran", "hana", "ines", "jonas", "keiko", "lars", "mei", "nadia")


def fill(rng: random.Random, name: str, n: int | None) -> str:
    if name == "user":
        return rng.choice(_USERS)
    if name == "host":
        return rng.choice(_HOSTS)
    if name == "app":
        return rng.choice(_APPS)
    if name == "org":
        return rng.choice(_ORGS)
    if name == "db":
        return rng.choice(_DBS)
    if name == "ns":
        return rng.choice(_NS)
    if name == "region":
        return rng.choice(_REGIONS)
    if name == "domain":
        return rng.choice(_DOMAINS)
    if name == "name":
        return rng.choice(_NAMES)
    if name == "email":
        return f"{rng.choice(_NAMES)}@{rng.choice(_DOMAINS)}"
    if name == "port":
        return rng.choice(["8080", "3000", "5000", "8000", "9090", "4000"])
    if name == "hex":
        return rs(rng, HEX, n or 8)
    if name == "num":
        k = n or 4
        return rng.choice("123456789") + rs(rng, DIGITS, k - 1)
    if name == "alnum":
        return rs(rng, ALNUM, n or 12)
    if name == "ualnum":
        return rs(rng, UALNUM, n or 8)
    if name == "lower":
        return rs(rng, LALNUM, n or 8)
    if name == "uuid":
        return uuid4(rng)
    if name == "ip":
        return f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
    if name == "date":
        return f"2026-0{rng.randrange(1, 4)}-{rng.randrange(1, 29):02d}"
    if name == "time":
        return f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
    if name == "akid":
        return "AKIA" + rs(rng, B32U, 16)
    if name == "ver":
        return f"{rng.randrange(1, 9)}.{rng.randrange(20)}.{rng.randrange(10)}"
    raise KeyError(f"no filler for «{name}»")


def K(name: str, family: str, make: Callable[[random.Random], str], *templates, source: str,
      se: bool = False) -> Kind:
    return kind(name, family, make, *[rendering(t, fill) for t in templates], source=source, self_evident=se)


# --------------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------------


def tok(*parts) -> Callable[[random.Random], str]:
    """A token made of literal strings and (alphabet, n) runs; a run of ALNUM of 8+ holds a digit,
    a lower and an upper letter."""

    def make(rng: random.Random) -> str:
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            elif callable(p):
                out.append(p(rng))
            else:
                alphabet, n = p
                out.append(mixed(rng, alphabet, n) if alphabet in (ALNUM, B64, B64URL) else rs(rng, alphabet, n))
        return "".join(out)

    return make


def hexs(n: int) -> Callable[[random.Random], str]:
    return lambda rng: rs(rng, HEX, n)


def alnum(n: int) -> Callable[[random.Random], str]:
    return lambda rng: mixed(rng, ALNUM, n)


def b64raw(n_bytes: int, url: bool = False, pad: bool = True) -> Callable[[random.Random], str]:
    return lambda rng: b64_of(rbytes(rng, n_bytes), url=url, pad=pad)


HWORDS = ("sunflower", "garage", "pancake", "mirror", "basket", "dolphin", "orbit", "canvas", "mellow", "ripple", "tiger",
          "ladder", "biscuit", "monkey", "rainbow", "pirate", "castle", "rocket", "jungle", "cookie", "silver", "hunter",
          "dragon", "shadow", "summer", "winter", "autumn", "spring", "coffee", "banana", "pepper", "cactus", "violin",
          "lemon", "anchor", "bridge", "candle", "forest", "guitar", "harbor", "island", "jacket", "kitten", "marble",
          "needle", "pocket", "rabbit", "saddle", "tunnel", "velvet", "walrus", "yogurt", "zipper", "falcon", "copper",
          "pebble", "thunder", "meadow", "nugget", "pickle", "puzzle", "sparrow", "teapot", "turtle", "wizard", "noodle",
          "lobster", "penguin", "hammock", "gravel", "blossom", "chimney", "compass", "lantern", "saturn", "quokka",
          "tornado", "avocado", "mustard", "cobweb", "dynamo", "eclipse", "fiddle", "goblin", "helmet", "igloo", "jigsaw")
NAMES = ("Maddie", "Oliver", "Sophia", "Lucas", "Charlotte", "Mateo", "Amelia", "Noah", "Isabella", "Hugo", "Freya",
         "Arjun", "Yuki", "Chloe", "Bruno", "Leila", "Tomasz", "Ingrid", "Dario", "Wanjiru")


def human_pw(rng: random.Random) -> str:
    """A password a person chose: words, names, years, a symbol; long enough to be unique."""
    w = lambda: rng.choice(HWORDS)  # noqa: E731
    year = lambda: str(rng.randrange(1961, 2026))  # noqa: E731
    s = rng.choice("!#%*+-.=?@^_~")
    style = rng.randrange(9)
    if style == 0:
        return w().capitalize() + w().capitalize() + year() + s
    if style == 1:
        leet = w().replace("a", "@").replace("o", "0").replace("e", "3").replace("i", "1")
        return leet.capitalize() + s + rs(rng, DIGITS, 4) + w()
    if style == 2:
        return rng.choice([".", "-", "_"]).join(w() for _ in range(4)) + rs(rng, DIGITS, 2)
    if style == 3:
        return "ilove" + rng.choice(NAMES) + year() + s + w()
    if style == 4:
        return rng.choice(["Qwerty", "Asdf", "Zxcv", "qazwsx", "1qaz2wsx"]) + s + w().capitalize() + rs(rng, DIGITS, 4)
    if style == 5:
        return rng.choice(["Winter", "Summer", "Spring", "Autumn"]) + year() + s + w().capitalize() + rs(rng, DIGITS, 3)
    if style == 6:
        return rng.choice(NAMES) + "_" + f"{rng.randrange(1, 29):02d}.{rng.randrange(1, 13):02d}." + year() + w()
    if style == 7:
        return w().capitalize() + rs(rng, DIGITS, 3) + s + rng.choice(NAMES) + rs(rng, DIGITS, 2)
    return password(rng)


def passphrase(rng: random.Random) -> str:
    """Words with spaces, as someone types a passphrase."""
    return " ".join(rng.choice(HWORDS) for _ in range(rng.randrange(4, 6))) + " " + rs(rng, DIGITS, 2)


def rand_pw(rng: random.Random, lo: int = 16, hi: int = 28, syms: str = SYM) -> str:
    return mixed(rng, ALNUM + syms, rng.randrange(lo, hi))


def url_pw(rng: random.Random) -> str:
    return mixed(rng, ALNUM + URLSYM, rng.randrange(16, 26))


def any_pw(rng: random.Random) -> str:
    """Random or human, about half each; no quote, backslash or $."""
    return rand_pw(rng) if rng.random() < 0.5 else human_pw(rng)


def shell_pw(rng: random.Random) -> str:
    """Fits inside single quotes."""
    return rand_pw(rng) if rng.random() < 0.6 else human_pw(rng)


def plain_pw(rng: random.Random) -> str:
    """No character that needs quoting anywhere (a flag value, a URL, XML, ...)."""
    return mixed(rng, ALNUM, rng.randrange(14, 22)) + rng.choice(["", "_", ".", "-"]) + rs(rng, ALNUM, 4)


# --------------------------------------------------------------------------------------------
# vendor tokens: specific renderings plus two drawn from a pool of common contexts
# --------------------------------------------------------------------------------------------

POOL = (
    "{E}=«v»",
    'export {E}="«v»"',
    "$ cat .env.local\nNEXT_PUBLIC_APP_URL=http://localhost:3000\n{E}=«v»\nLOG_LEVEL=debug",
    "docker run --rm -e {E}=«v» -p «port»:«port» «org»/«app»:latest",
    "      - name: Deploy\n        env:\n          {E}: «v»\n        run: ./scripts/deploy.sh",
    'os.environ["{E}"] = "«v»"',
    "const {c} = process.env.{E} ?? '«v»';",
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: «app»-env\n  namespace: «ns»\ntype: Opaque\nstringData:\n  {E}: "«v»"',
    'gh secret set {E} --repo «org»/«app» --body "«v»"',
    "fly secrets set {E}=«v» --app «app»",
    "heroku config:set {E}=«v» -a «app»",
    "printf '%s' '«v»' | vercel env add {E} production",
    "I've added the {L} key to `.env` as `{E}=«v»` and restarted the dev server; tell me if you'd rather keep it in the vault.",
    "$ env | grep {E}\n{E}=«v»",
    "services:\n  worker:\n    image: «org»/«app»:«ver»\n    environment:\n      - {E}=«v»\n      - LOG_LEVEL=info",
    '{e} = "«v»"',
    '[Service]\nEnvironment="{E}=«v»"\nExecStart=/usr/local/bin/«app» serve',
    "$env:{E} = '«v»'",
    "set -gx {E} «v»",
    "set {E}=«v»",
    "ENV {E}=«v»",
    'std::env::set_var("{E}", "«v»");',
    'os.Setenv("{E}", "«v»")',
    "here's my {L} key, please wire it into the config: «v»",
    '{"key": "{E}", "value": "«v»", "target": ["production", "preview"], "type": "plain"}',
    '{e}: "«v»"',
    "doppler secrets set {E}=«v» --project «app» --config prd",
    'railway variables --set "{E}={v}"'.replace("{v}", "«v»"),
    "kubectl create secret generic «app»-env --from-literal={E}=«v» -n «ns»",
    "echo '{E}=«v»' >> .env && npm run dev",
    "{E}: «v»",
    "- {L} token → «v» (added «date»)",
)


def _camel(env: str) -> str:
    parts = env.lower().split("_")
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def V(name: str, make: Callable[[random.Random], str], env: str, label: str, source: str, *specific: str,
      se: bool = True, pool: int = 2) -> Kind:
    picks = random.Random(zlib.crc32(name.encode())).sample(POOL, pool)
    templates = [*specific, *picks]
    templates = [t.replace("{E}", env).replace("{e}", env.lower()).replace("{c}", _camel(env)).replace("{L}", label)
                 for t in templates]
    return K(name, "vendor", make, *templates, source=source, se=se)


def _slack_bot(rng: random.Random) -> str:
    return f"xoxb-{rs(rng, DIGITS, 12)}-{rs(rng, DIGITS, 13)}-{mixed(rng, ALNUM, 24)}"


def _discord_bot(rng: random.Random) -> str:
    uid = str(rng.randrange(10**17, 10**18 * 2)).encode()
    return f"{b64_of(uid, pad=False)}.{mixed(rng, B64URL, 6)}.{mixed(rng, B64URL, 38)}"


def _jwt(rng: random.Random, claims: dict | None = None, alg: str = "HS256") -> str:
    head = b64_of(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode(), url=True, pad=False)
    body = claims or {"sub": rs(rng, DIGITS, 9), "iat": 1767225600 + rng.randrange(10**7),
                      "jti": rs(rng, HEX, 16)}
    payload = b64_of(json.dumps(body, separators=(",", ":")).encode(), url=True, pad=False)
    return f"{head}.{payload}.{b64_of(rbytes(rng, 32), url=True, pad=False)}"


def _supabase_service(rng: random.Random) -> str:
    ref = rs(rng, LOWER, 20)
    return _jwt(rng, {"iss": "supabase", "ref": ref, "role": "service_role", "iat": 1767225600 + rng.randrange(10**6),
                      "exp": 2082758400 + rng.randrange(10**6)})


def _sentry_org(rng: random.Random) -> str:
    payload = json.dumps({"iat": 1767225600.0 + rng.randrange(10**7), "url": "https://sentry.io",
                          "region_url": "https://us.sentry.io", "org": rng.choice(_ORGS)}, separators=(",", ":"))
    return "sntrys_" + b64_of(payload.encode(), pad=False) + "_" + mixed(rng, B64, 43)


def _onepassword_sa(rng: random.Random) -> str:
    payload = json.dumps({"signInAddress": "my.1password.com", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256",
                          "iterations": 650000, "salt": rs(rng, B64URL, 22)}, "email": rs(rng, LOWER, 12) + "@1passwordserviceaccounts.com",
                          "srpX": rs(rng, HEX, 64), "muk": {"alg": "A256GCM", "ext": True, "k": rs(rng, B64URL, 43),
                          "key_ops": ["encrypt", "decrypt"], "kty": "oct", "kid": "mp"}, "secretKey": "A3-" + rs(rng, UALNUM, 6),
                          "throttleSecret": {"seed": rs(rng, HEX, 64), "uuid": rs(rng, UALNUM, 26)}, "deviceUuid": rs(rng, LALNUM, 26)},
                         separators=(",", ":"))
    return "ops_" + b64_of(payload.encode(), pad=False)


def _cf_tunnel(rng: random.Random) -> str:
    payload = json.dumps({"a": rs(rng, HEX, 32), "t": uuid4(rng), "s": b64_of(rbytes(rng, 32))}, separators=(",", ":"))
    return b64_of(payload.encode(), pad=False)


def _fb_token(rng: random.Random) -> str:
    return "EAA" + rng.choice("BCGI") + mixed(rng, ALNUM, rng.randrange(150, 200))


def _mercadopago(rng: random.Random) -> str:
    return f"APP_USR-{rs(rng, DIGITS, 16)}-{rs(rng, DIGITS, 6)}-{rs(rng, HEX, 32)}-{rs(rng, DIGITS, 9)}"


def _hf(rng: random.Random) -> str:
    return "hf_" + mixed(rng, ALNUM.replace("0123456789", ""), 34)


def _azure_client_secret(rng: random.Random) -> str:
    return rs(rng, ALNUM, 3) + rng.choice(DIGITS) + "Q~" + mixed(rng, ALNUM + "_~.-", 34)


def _npm(rng: random.Random) -> str:
    return "npm_" + mixed(rng, ALNUM, 36)


VENDOR = [
    # --- source hosting and CI ---------------------------------------------------------------
    V("github-classic-pat", tok("ghp_", (ALNUM, 36)), "GITHUB_TOKEN", "GitHub", "GitHub docs, token prefixes (ghp_ + 36 base62); gitleaks github-pat",
      "git remote set-url origin https://«user»:«v»@github.com/«org»/«app».git",
      "echo «v» | gh auth login --with-token"),
    V("github-fine-grained-pat", tok("github_pat_", (ALNUM, 22), "_", (ALNUM, 59)), "GH_TOKEN", "GitHub", "GitHub fine-grained PAT (github_pat_ 22 _ 59); gitleaks github-fine-grained-pat",
      "GH_TOKEN=«v» gh pr list --repo «org»/«app» --state open"),
    V("github-oauth-gh-hosts", tok("gho_", (ALNUM, 36)), "GITHUB_OAUTH_TOKEN", "GitHub", "gh CLI ~/.config/gh/hosts.yml oauth_token (gho_)",
      "$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    users:\n        «user»:\n            oauth_token: «v»\n    git_protocol: https\n    oauth_token: «v»\n    user: «user»"),
    V("github-app-installation", tok("ghs_", (ALNUM, 36)), "GITHUB_APP_TOKEN", "GitHub App", "GitHub App installation token (ghs_), x-access-token clone URL",
      "git clone https://x-access-token:«v»@github.com/«org»/«app».git /tmp/build"),
    V("github-user-to-server", tok("ghu_", (ALNUM, 36)), "GITHUB_USER_TOKEN", "GitHub App", "GitHub App user-to-server token (ghu_)",
      'curl -s -H "Authorization: token «v»" https://api.github.com/user/installations'),
    V("github-refresh", tok("ghr_", (ALNUM, 76)), "GITHUB_REFRESH_TOKEN", "GitHub", "GitHub App refresh token (ghr_), OAuth token response",
      '{"access_token":"ghu_«alnum:36»","expires_in":28800,"refresh_token":"«v»","refresh_token_expires_in":15811200,"scope":"","token_type":"bearer"}'),
    V("gitlab-pat", tok("glpat-", (B64URL, 20)), "GITLAB_TOKEN", "GitLab", "GitLab PAT glpat- + 20; gitleaks gitlab-pat",
      "curl --header \"PRIVATE-TOKEN: «v»\" https://gitlab.«domain»/api/v4/projects?membership=true"),
    V("gitlab-pat-routable", tok("glpat-", (B64URL, 36), ".01.", (LALNUM, 7)), "GITLAB_PAT", "GitLab", "GitLab routable PAT (glpat-….01.…); gitleaks gitlab-pat-routable",
      "glab auth login --hostname gitlab.«domain» --token «v»"),
    V("gitlab-runner-token", tok("glrt-", (B64URL, 20)), "RUNNER_TOKEN", "GitLab runner", "GitLab runner authentication token glrt-; config.toml",
      '[[runners]]\n  name = "«app»-runner"\n  url = "https://gitlab.«domain»"\n  token = "«v»"\n  executor = "docker"'),
    V("gitlab-deploy-token", tok("gldt-", (B64URL, 20)), "CI_DEPLOY_PASSWORD", "GitLab deploy", "GitLab deploy token gldt-",
      "docker login registry.gitlab.«domain» -u gitlab+deploy-token-«num:3» -p «v»"),
    V("gitlab-trigger-token", tok("glptt-", (HEX, 40)), "TRIGGER_TOKEN", "GitLab pipeline trigger", "GitLab pipeline trigger token glptt- + 40 hex",
      'curl -X POST --fail -F token=«v» -F ref=main https://gitlab.«domain»/api/v4/projects/«num:4»/trigger/pipeline'),
    V("gitlab-runner-registration", tok("GR1348941", (B64URL, 20)), "REGISTRATION_TOKEN", "GitLab runner registration", "GitLab legacy runner registration token GR1348941",
      'gitlab-runner register --non-interactive --url https://gitlab.«domain» --registration-token «v» --executor docker --docker-image alpine:3'),
    V("gitlab-oauth-secret", tok("gloas-", (HEX, 64)), "GITLAB_OAUTH_SECRET", "GitLab OAuth app", "GitLab OAuth application secret gloas- + 64"),
    V("bitbucket-app-password", tok("ATBB", (ALNUM, 32), (HEXU, 8)), "BITBUCKET_APP_PASSWORD", "Bitbucket", "Bitbucket app password ATBB prefix",
      "git clone https://«user»:«v»@bitbucket.org/«org»/«app».git"),
    V("atlassian-api-token", tok("ATATT3xFfGF0", (B64URL, 170), "=", (HEXU, 8)), "JIRA_API_TOKEN", "Atlassian", "Atlassian API token ATATT3xFfGF0 (~192 chars)",
      "curl -u «email»:«v» -H 'Accept: application/json' https://«org».atlassian.net/rest/api/3/myself"),
    V("azure-devops-pat", tok(("abcdefghijklmnopqrstuvwxyz234567", 52)), "AZURE_DEVOPS_EXT_PAT", "Azure DevOps", "Azure DevOps classic PAT: 52 chars of base32 lowercase",
      "echo «v» | az devops login --organization https://dev.azure.com/«org»", se=False),
    V("circleci-pat", tok("CCIPAT_", (ALNUM, 22), "_", (HEX, 40)), "CIRCLECI_TOKEN", "CircleCI", "CircleCI personal API token CCIPAT_ prefix",
      "circleci setup --no-prompt --host https://circleci.com --token «v»"),
    V("buildkite-token", tok("bkua_", (HEX, 40)), "BUILDKITE_API_TOKEN", "Buildkite", "Buildkite user API access token bkua_ + 40 hex",
      'curl -H "Authorization: Bearer «v»" https://api.buildkite.com/v2/organizations/«org»/pipelines'),
    V("sourcegraph-token", tok("sgp_", (HEX, 16), "_", (HEX, 40)), "SRC_ACCESS_TOKEN", "Sourcegraph", "Sourcegraph access token sgp_<16>_<40>; gitleaks sourcegraph-access-token",
      "SRC_ENDPOINT=https://sourcegraph.«domain» SRC_ACCESS_TOKEN=«v» src search 'repo:«app» lang:go'"),
    V("sonarcloud-token", tok("squ_", (HEX, 40)), "SONAR_TOKEN", "SonarQube", "SonarQube user token squ_ + 40 hex",
      "mvn verify sonar:sonar -Dsonar.host.url=https://sonarcloud.io -Dsonar.token=«v»"),
    V("harness-pat", tok("pat.", (B64URL, 22), ".", (ALNUM, 24), ".", (ALNUM, 20)), "HARNESS_PLATFORM_API_KEY", "Harness", "Harness PAT pat.<account>.<id>.<secret>; gitleaks harness-api-key"),
    V("octopus-api-key", tok("API-", (UALNUM, 26)), "OCTOPUS_API_KEY", "Octopus Deploy", "Octopus Deploy API key API- + 26",
      "octo create-release --project «app» --server https://octopus.«domain» --apiKey «v»"),
    V("drone-token", alnum(32), "DRONE_TOKEN", "Drone", "Drone CI personal token (32 alnum), contextual",
      "export DRONE_SERVER=https://drone.«domain»\nexport DRONE_TOKEN=«v»\ndrone build ls «org»/«app»", se=False),
    V("travis-token", alnum(22), "TRAVIS_API_TOKEN", "Travis CI", "Travis CI API token 22 chars, contextual",
      'curl -H "Travis-API-Version: 3" -H "Authorization: token «v»" https://api.travis-ci.com/repos', se=False),
    # --- package registries ---------------------------------------------------------------------
    V("npm-token", _npm, "NPM_TOKEN", "npm", "npm access token npm_ + 36; gitleaks npm-access-token",
      "//registry.npmjs.org/:_authToken=«v»", "npm config set //registry.npmjs.org/:_authToken «v»"),
    V("pypi-token", tok("pypi-AgEIcHlwaS5vcmcCJD", (B64URL, 150)), "TWINE_PASSWORD", "PyPI", "PyPI API token pypi-AgEIcHlwaS5vcmc…; gitleaks pypi-upload-token",
      "twine upload -u __token__ -p «v» dist/*", "[pypi]\n  username = __token__\n  password = «v»"),
    V("testpypi-token", tok("pypi-AgENdGVzdC5weXBpLm9yZw", (B64URL, 140)), "UV_PUBLISH_TOKEN", "TestPyPI", "TestPyPI token pypi-AgENdGVzdC5weXBpLm9yZw (macaroon of test.pypi.org)",
      "uv publish --publish-url https://test.pypi.org/legacy/ --token «v»"),
    V("rubygems-key", tok("rubygems_", (HEX, 48)), "GEM_HOST_API_KEY", "RubyGems", "RubyGems API key rubygems_ + 48 hex",
      "---\n:rubygems_api_key: «v»"),
    V("crates-token", tok("cio", (ALNUM, 32)), "CARGO_REGISTRY_TOKEN", "crates.io", "crates.io API token cio + 32",
      "cargo login «v»", '[registry]\ntoken = "«v»"'),
    V("nuget-key", tok("oy2", (LALNUM, 43)), "NUGET_API_KEY", "NuGet", "nuget.org API key oy2 + 43 lowercase",
      "dotnet nuget push bin/Release/*.nupkg --api-key «v» --source https://api.nuget.org/v3/index.json"),
    V("dockerhub-pat", tok("dckr_pat_", (B64URL, 27)), "DOCKERHUB_TOKEN", "Docker Hub", "Docker Hub PAT dckr_pat_ + 27",
      "echo «v» | docker login -u «user» --password-stdin"),
    V("dockerhub-oat", tok("dckr_oat_", (B64URL, 32)), "DOCKER_ORG_TOKEN", "Docker Hub org", "Docker Hub organization access token dckr_oat_"),
    V("jfrog-api-key", tok("AKCp", (ALNUM, 69)), "ARTIFACTORY_API_KEY", "Artifactory", "JFrog Artifactory API key AKCp + 69; gitleaks artifactory-api-key",
      "curl -H 'X-JFrog-Art-Api: «v»' -T build.tgz https://«org».jfrog.io/artifactory/generic-local/build.tgz"),
    V("jfrog-reference-token", tok("cmVmdGtuOjAxOjE3", (ALNUM, 48)), "JFROG_ACCESS_TOKEN", "JFrog", "JFrog reference token cmVmdGtu… (base64 of reftkn:01:…)",
      "jf c add «app» --url https://«org».jfrog.io --access-token «v» --interactive=false"),
    V("clojars-token", tok("CLOJARS_", (LALNUM, 60)), "CLOJARS_PASSWORD", "Clojars", "Clojars deploy token CLOJARS_ + 60"),
    V("packagist-token", tok("packagist_uut_", (LALNUM, 68)), "PACKAGIST_TOKEN", "Private Packagist", "Private Packagist user token packagist_uut_",
      'composer config --global --auth http-basic.repo.packagist.com token «v»'),
    V("pub-dev-token", tok("ya29.", (B64URL, 160)), "PUB_CREDENTIALS_ACCESS_TOKEN", "pub.dev (Google OAuth)", "pub-credentials.json accessToken (Google ya29. access token)",
      '{"accessToken":"«v»","refreshToken":"1//0«alnum:60»","tokenEndpoint":"https://accounts.google.com/o/oauth2/token","scopes":["openid","https://www.googleapis.com/auth/userinfo.email"],"expiration":1767229200000}'),
    # --- AI and ML ---------------------------------------------------------------------------
    V("openai-project-key", tok("sk-proj-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)), "OPENAI_API_KEY", "OpenAI", "OpenAI project key sk-proj-…T3BlbkFJ…; gitleaks openai-api-key",
      'client = OpenAI(api_key="«v»")'),
    V("openai-svcacct-key", tok("sk-svcacct-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)), "OPENAI_API_KEY", "OpenAI", "OpenAI service account key sk-svcacct-",
      "codex login --api-key «v»"),
    V("openai-admin-key", tok("sk-admin-", (B64URL, 58), "T3BlbkFJ", (B64URL, 58)), "OPENAI_ADMIN_KEY", "OpenAI admin", "OpenAI admin key sk-admin-",
      'curl https://api.openai.com/v1/organization/users -H "Authorization: Bearer «v»"'),
    V("anthropic-api-key", tok("sk-ant-api03-", (B64URL, 93), "AA"), "ANTHROPIC_API_KEY", "Anthropic", "Anthropic API key sk-ant-api03- 93 AA; gitleaks anthropic-api-key",
      "client = anthropic.Anthropic(api_key='«v»')"),
    V("anthropic-admin-key", tok("sk-ant-admin01-", (B64URL, 93), "AA"), "ANTHROPIC_ADMIN_KEY", "Anthropic admin", "Anthropic admin key sk-ant-admin01-"),
    V("anthropic-oauth-token", tok("sk-ant-oat01-", (B64URL, 93), "AA"), "CLAUDE_CODE_OAUTH_TOKEN", "Claude Code", "Claude Code long-lived OAuth token sk-ant-oat01- (claude setup-token)",
      "claude setup-token\n✓ Long-lived authentication token created successfully!\n\nYour OAuth token (valid for 1 year):\n\n«v»\n\nStore this token securely."),
    V("groq-key", tok("gsk_", (ALNUM, 52)), "GROQ_API_KEY", "Groq", "Groq API key gsk_ + 52",
      "client = Groq(api_key=\"«v»\")"),
    V("perplexity-key", tok("pplx-", (ALNUM, 48)), "PERPLEXITY_API_KEY", "Perplexity", "Perplexity API key pplx- + 48; gitleaks perplexity-api-key"),
    V("xai-key", tok("xai-", (ALNUM, 80)), "XAI_API_KEY", "xAI", "xAI API key xai- + 80",
      'curl https://api.x.ai/v1/chat/completions -H "Authorization: Bearer «v»" -d @req.json'),
    V("openrouter-key", tok("sk-or-v1-", (HEX, 64)), "OPENROUTER_API_KEY", "OpenRouter", "OpenRouter key sk-or-v1- + 64 hex",
      'const openai = new OpenAI({ baseURL: "https://openrouter.ai/api/v1", apiKey: "«v»" });'),
    V("huggingface-token", _hf, "HF_TOKEN", "Hugging Face", "Hugging Face token hf_ + 34 letters; gitleaks huggingface-access-token",
      "huggingface-cli login --token «v» --add-to-git-credential"),
    V("replicate-token", tok("r8_", (ALNUM, 37)), "REPLICATE_API_TOKEN", "Replicate", "Replicate API token r8_ + 37"),
    V("langsmith-key", tok("lsv2_pt_", (HEX, 32), "_", (HEX, 10)), "LANGSMITH_API_KEY", "LangSmith", "LangSmith personal token lsv2_pt_<32>_<10>",
      "LANGSMITH_TRACING=true LANGSMITH_API_KEY=«v» python agent.py"),
    V("langfuse-secret", tok("sk-lf-", uuid4), "LANGFUSE_SECRET_KEY", "Langfuse", "Langfuse secret key sk-lf-<uuid> (the pk-lf- one is public)",
      'langfuse = Langfuse(public_key="pk-lf-«uuid»", secret_key="«v»", host="https://cloud.langfuse.com")'),
    V("pinecone-key", tok("pcsk_", (ALNUM, 6), "_", (ALNUM, 63)), "PINECONE_API_KEY", "Pinecone", "Pinecone API key pcsk_<id>_<secret>",
      'pc = Pinecone(api_key="«v»")'),
    V("tavily-key", tok("tvly-", lambda r: r.choice(["dev-", "prod-", ""]), (ALNUM, 32)), "TAVILY_API_KEY", "Tavily", "Tavily API key tvly-(dev-)… "),
    V("firecrawl-key", tok("fc-", (HEX, 32)), "FIRECRAWL_API_KEY", "Firecrawl", "Firecrawl API key fc- + 32 hex",
      '{"mcpServers": {"firecrawl": {"command": "npx", "args": ["-y", "firecrawl-mcp"], "env": {"FIRECRAWL_API_KEY": "«v»"}}}}'),
    V("e2b-key", tok("e2b_", (HEX, 40)), "E2B_API_KEY", "E2B", "E2B sandbox API key e2b_ + 40 hex"),
    V("cerebras-key", tok("csk-", (LALNUM, 48)), "CEREBRAS_API_KEY", "Cerebras", "Cerebras API key csk- + 48"),
    V("llamacloud-key", tok("llx-", (ALNUM, 48)), "LLAMA_CLOUD_API_KEY", "LlamaCloud", "LlamaCloud API key llx- + 48"),
    V("elevenlabs-key", tok("sk_", (HEX, 48)), "ELEVENLABS_API_KEY", "ElevenLabs", "ElevenLabs API key sk_ + 48 hex",
      'client = ElevenLabs(api_key="«v»")'),
    V("voyage-key", tok("pa-", (B64URL, 43)), "VOYAGE_API_KEY", "Voyage AI", "Voyage AI key pa- + 43"),
    V("deepseek-key", tok("sk-", (HEX, 32)), "DEEPSEEK_API_KEY", "DeepSeek", "DeepSeek API key sk- + 32 hex",
      'client = OpenAI(api_key="«v»", base_url="https://api.deepseek.com")'),
    V("mistral-key", alnum(32), "MISTRAL_API_KEY", "Mistral", "Mistral API key: 32 alnum, contextual",
      'client = Mistral(api_key="«v»")', se=False),
    V("cohere-key", alnum(40), "CO_API_KEY", "Cohere", "Cohere API key: 40 alnum, contextual; gitleaks cohere-api-token",
      'co = cohere.ClientV2(api_key="«v»")', se=False),
    V("wandb-key", hexs(40), "WANDB_API_KEY", "Weights & Biases", "W&B API key: 40 hex, ~/.netrc machine api.wandb.ai",
      "machine api.wandb.ai\n  login user\n  password «v»", se=False),
    V("assemblyai-key", hexs(32), "ASSEMBLYAI_API_KEY", "AssemblyAI", "AssemblyAI API key: 32 hex, contextual",
      'aai.settings.api_key = "«v»"', se=False),
    V("deepgram-key", hexs(40), "DEEPGRAM_API_KEY", "Deepgram", "Deepgram API key: 40 hex, Authorization: Token",
      "curl -X POST -H 'Authorization: Token «v»' -H 'Content-Type: audio/wav' --data-binary @call.wav 'https://api.deepgram.com/v1/listen'", se=False),
    V("gemini-key", tok("AIza", (B64URL, 35)), "GEMINI_API_KEY", "Gemini", "Google API key AIza + 35; gitleaks gcp-api-key",
      'genai.configure(api_key="«v»")'),
    V("together-key", tok("tgp_v1_", (B64URL, 43)), "TOGETHER_API_KEY", "Together AI", "Together AI key tgp_v1_ (newer keys)"),
    V("fireworks-key", tok("fw_", (ALNUM, 24)), "FIREWORKS_API_KEY", "Fireworks", "Fireworks AI key fw_ + 24"),
    V("runpod-key", tok("rpa_", (UALNUM, 40)), "RUNPOD_API_KEY", "RunPod", "RunPod API key rpa_ + 40 upper alnum"),
    V("modal-token-secret", tok("as-", (ALNUM, 22)), "MODAL_TOKEN_SECRET", "Modal", "Modal token secret as- (token id ak-)",
      "modal token set --token-id ak-«alnum:22» --token-secret «v»"),
    V("helicone-key", tok("sk-helicone-", (LALNUM, 7), "-", (LALNUM, 7), "-", (LALNUM, 7), "-", (LALNUM, 7)), "HELICONE_API_KEY", "Helicone", "Helicone key sk-helicone-xxxxxxx-xxxxxxx-…"),
    V("exa-key", uuid4, "EXA_API_KEY", "Exa", "Exa API key: a UUID, contextual", se=False),
    V("serpapi-key", hexs(64), "SERPAPI_API_KEY", "SerpApi", "SerpApi key: 64 hex, ?api_key= query",
      "curl 'https://serpapi.com/search.json?engine=google&q=coffee&api_key=«v»'", se=False),
    V("stability-key", tok("sk-", (ALNUM, 48)), "STABILITY_API_KEY", "Stability AI", "Stability AI key sk- + 48"),
]

VENDOR += [
    # --- cloud -----------------------------------------------------------------------------------
    V("aws-secret-access-key", tok((B64, 40)), "AWS_SECRET_ACCESS_KEY", "AWS", "AWS secret access key: 40 base64 chars beside an AKIA key id",
      "[default]\naws_access_key_id = «akid»\naws_secret_access_key = «v»\nregion = «region»",
      "aws configure set aws_secret_access_key «v» --profile «app»", se=False),
    V("aws-session-token", tok("IQoJb3JpZ2luX2VjE", (B64, 380), "=="), "AWS_SESSION_TOKEN", "AWS STS", "AWS STS session token (IQoJb3JpZ2luX2Vj…, base64 several hundred chars)",
      "export AWS_ACCESS_KEY_ID=ASIA«alnum:16»\nexport AWS_SECRET_ACCESS_KEY=«alnum:40»\nexport AWS_SESSION_TOKEN=«v»"),
    V("aws-bedrock-key", tok("ABSKQmVkcm9ja0FQSUtleS", (B64, 120), "="), "AWS_BEARER_TOKEN_BEDROCK", "Amazon Bedrock", "Bedrock long-term API key ABSK + base64(BedrockAPIKey-…); gitleaks aws-amazon-bedrock-api-key-long-lived",
      "export CLAUDE_CODE_USE_BEDROCK=1\nexport AWS_BEARER_TOKEN_BEDROCK=«v»"),
    V("gcp-oauth-client-secret", tok("GOCSPX-", (B64URL, 28)), "GOOGLE_CLIENT_SECRET", "Google OAuth", "Google OAuth client secret GOCSPX- + 28",
      '{"installed":{"client_id":"«num:12»-«lower:32».apps.googleusercontent.com","project_id":"«app»-«num:6»","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","client_secret":"«v»","redirect_uris":["http://localhost"]}}'),
    V("gcp-access-token", tok("ya29.a0", (B64URL, 180)), "GOOGLE_OAUTH_ACCESS_TOKEN", "Google Cloud", "Google OAuth2 access token ya29.",
      "$ gcloud auth print-access-token\n«v»"),
    V("gcp-refresh-token", tok("1//0", (B64URL, 99)), "GOOGLE_REFRESH_TOKEN", "Google", "Google OAuth refresh token 1//0…; application_default_credentials.json",
      '{\n  "account": "",\n  "client_id": "«num:12»-«lower:32».apps.googleusercontent.com",\n  "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty",\n  "refresh_token": "«v»",\n  "type": "authorized_user",\n  "universe_domain": "googleapis.com"\n}'),
    V("azure-client-secret", _azure_client_secret, "AZURE_CLIENT_SECRET", "Microsoft Entra", "Entra ID client secret (3 chars, digit, Q~, 34); gitleaks azure-ad-client-secret",
      "az login --service-principal -u «uuid» -p «v» --tenant «uuid»",
      '{\n  "appId": "«uuid»",\n  "displayName": "«app»-sp",\n  "password": "«v»",\n  "tenant": "«uuid»"\n}'),
    V("azure-storage-key", tok((B64, 86), "=="), "AZURE_STORAGE_KEY", "Azure Storage", "Azure storage account key: 88 base64 chars ending ==",
      "az storage blob upload --account-name «app»store --account-key «v» -c backups -f dump.sql", se=False),
    V("azure-openai-key", hexs(32), "AZURE_OPENAI_API_KEY", "Azure OpenAI", "Azure OpenAI key 32 hex, api-key header",
      'curl "https://«app».openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21" -H "api-key: «v»" -d @body.json', se=False),
    V("azure-cask-key", tok((ALNUM, 52), "JQQJ99", (lambda r: r.choice(["AzSe", "ACDb", "AzFu", "AzCa", "AzEv"])), (ALNUM, 22)), "AZURE_SEARCH_ADMIN_KEY", "Azure", "Azure identifiable key (84 chars, JQQJ99 signature then a service tag)"),
    V("alibaba-secret", alnum(30), "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "Alibaba Cloud", "Alibaba Cloud AccessKey secret (30) beside LTAI key id",
      "aliyun configure set --profile default --mode AK --access-key-id LTAI«alnum:20» --access-key-secret «v» --region cn-hangzhou", se=False),
    V("tencent-secret", alnum(32), "TENCENTCLOUD_SECRET_KEY", "Tencent Cloud", "Tencent Cloud SecretKey (32) beside AKID SecretId",
      'cred = credential.Credential("AKID«alnum:32»", "«v»")', se=False),
    V("huawei-sk", alnum(40), "HUAWEICLOUD_SDK_SK", "Huawei Cloud", "Huawei Cloud SK (40) beside a 20-char AK", se=False),
    V("volcengine-sk", tok((B64, 60), "=="), "VOLCENGINE_SECRET_KEY", "Volcengine", "Volcengine SecretAccessKey (base64) beside AKLT access key", se=False),
    V("yandex-iam", tok("t1.9euelZ", (B64URL, 100), ".", (B64URL, 86)), "YC_TOKEN", "Yandex Cloud", "Yandex Cloud IAM token t1.9euelZ…; gitleaks yandex-access-token",
      "yc config set token «v»"),
    V("yandex-api-key", tok("AQVN", (B64URL, 36)), "YC_API_KEY", "Yandex Cloud", "Yandex Cloud API key AQVN + 36",
      'curl -H "Authorization: Api-Key «v»" https://llm.api.cloud.yandex.net/foundationModels/v1/completion'),
    V("ibm-cloud-key", tok((B64URL, 44)), "IBMCLOUD_API_KEY", "IBM Cloud", "IBM Cloud API key: 44 chars, contextual",
      "ibmcloud login --apikey «v» -r us-south", se=False),
    V("scaleway-secret", uuid4, "SCW_SECRET_KEY", "Scaleway", "Scaleway secret key (UUID) beside SCW access key",
      "scw init access-key=SCW«alnum:17» secret-key=«v» send-telemetry=false", se=False),
    V("digitalocean-pat", tok("dop_v1_", (HEX, 64)), "DIGITALOCEAN_TOKEN", "DigitalOcean", "DigitalOcean PAT dop_v1_ + 64 hex",
      "doctl auth init -t «v»"),
    V("digitalocean-oauth", tok("doo_v1_", (HEX, 64)), "DO_OAUTH_TOKEN", "DigitalOcean", "DigitalOcean OAuth token doo_v1_"),
    V("linode-token", hexs(64), "LINODE_TOKEN", "Linode", "Linode/Akamai PAT 64 hex, contextual",
      "linode-cli configure --token «v»", se=False),
    V("vultr-key", tok((UALNUM, 36)), "VULTR_API_KEY", "Vultr", "Vultr API key 36 upper alnum", se=False),
    V("hetzner-token", alnum(64), "HCLOUD_TOKEN", "Hetzner Cloud", "Hetzner Cloud API token 64 alnum",
      'provider "hcloud" {\n  token = "«v»"\n}', se=False),
    V("ovh-app-secret", alnum(32), "OVH_APPLICATION_SECRET", "OVHcloud", "OVH application secret 32 chars (ovh.conf)",
      "[ovh-eu]\napplication_key=«alnum:16»\napplication_secret=«v»\nconsumer_key=«alnum:32»", se=False),
    V("backblaze-app-key", tok("K00", (lambda r: r.choice("1234567")), (B64, 27)), "B2_APPLICATION_KEY", "Backblaze B2", "Backblaze B2 application key K00x + 27",
      "b2 account authorize 00«hex:23» «v»"),
    V("cloudflare-user-token", tok("cfut_", (ALNUM, 40), (HEX, 8)), "CLOUDFLARE_API_TOKEN", "Cloudflare", "Cloudflare scannable user API token cfut_ + 40 + checksum (developers.cloudflare.com token formats)",
      'curl "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer «v»"'),
    V("cloudflare-account-token", tok("cfat_", (ALNUM, 40), (HEX, 8)), "CF_ACCOUNT_API_TOKEN", "Cloudflare", "Cloudflare account API token cfat_"),
    V("cloudflare-global-key-new", tok("cfk_", (ALNUM, 40), (HEX, 8)), "CLOUDFLARE_API_KEY", "Cloudflare", "Cloudflare global API key cfk_ (scannable format)",
      "curl -H 'X-Auth-Email: «email»' -H 'X-Auth-Key: «v»' https://api.cloudflare.com/client/v4/zones"),
    V("cloudflare-legacy-token", tok((B64URL, 40)), "CLOUDFLARE_API_TOKEN", "Cloudflare", "Cloudflare legacy API token 40 chars, wrangler",
      "CLOUDFLARE_API_TOKEN=«v» npx wrangler deploy", se=False),
    V("cloudflare-origin-ca", tok("v1.0-", (HEX, 24), "-", (HEX, 146)), "CF_ORIGIN_CA_KEY", "Cloudflare Origin CA", "Cloudflare Origin CA key v1.0-<24>-<146>; gitleaks cloudflare-origin-ca-key"),
    V("cloudflare-tunnel-token", _cf_tunnel, "TUNNEL_TOKEN", "Cloudflare Tunnel", "cloudflared tunnel token: base64 of {a,t,s}",
      "cloudflared tunnel --no-autoupdate run --token «v»",
      "services:\n  cloudflared:\n    image: cloudflare/cloudflared:latest\n    command: tunnel run\n    environment:\n      - TUNNEL_TOKEN=«v»"),
    V("heroku-api-key-v2", tok("HRKU-AA", (B64URL, 58)), "HEROKU_API_KEY", "Heroku", "Heroku API key HRKU-AA + 58; gitleaks heroku-api-key-v2",
      "machine api.heroku.com\n  login «email»\n  password «v»\nmachine git.heroku.com\n  login «email»\n  password «v»"),
    V("flyio-token", tok("FlyV1 fm2_", (B64, 300), "="), "FLY_API_TOKEN", "Fly.io", "Fly.io macaroon token FlyV1 fm2_…; gitleaks flyio-access-token",
      "FLY_API_TOKEN='«v»' flyctl deploy --remote-only"),
    V("render-key", tok("rnd_", (ALNUM, 32)), "RENDER_API_KEY", "Render", "Render API key rnd_ + 32",
      "curl --request GET --url 'https://api.render.com/v1/services?limit=20' --header 'Authorization: Bearer «v»'"),
    V("netlify-pat", tok("nfp_", (ALNUM, 36)), "NETLIFY_AUTH_TOKEN", "Netlify", "Netlify personal access token nfp_ + 36",
      "netlify deploy --prod --dir=dist --auth «v»"),
    V("vercel-token", tok("vca_", (ALNUM, 56)), "VERCEL_TOKEN", "Vercel", "Vercel access token (vca_ prefix in newer tokens)",
      "vercel deploy --prod --token «v»"),
    V("railway-token", uuid4, "RAILWAY_TOKEN", "Railway", "Railway project token (UUID), contextual",
      "RAILWAY_TOKEN=«v» railway up --detach", se=False),
    V("supabase-access-token", tok("sbp_", (HEX, 40)), "SUPABASE_ACCESS_TOKEN", "Supabase", "Supabase personal access token sbp_ + 40 hex",
      "supabase login --token «v»",
      '{"mcpServers":{"supabase":{"command":"npx","args":["-y","@supabase/mcp-server-supabase@latest","--read-only","--project-ref=«lower:20»"],"env":{"SUPABASE_ACCESS_TOKEN":"«v»"}}}}'),
    V("supabase-secret-key", tok("sb_secret_", (B64URL, 22), "_", (B64URL, 8)), "SUPABASE_SECRET_KEY", "Supabase", "Supabase secret API key sb_secret_ (new API keys)"),
    V("supabase-service-role", _supabase_service, "SUPABASE_SERVICE_ROLE_KEY", "Supabase", "Supabase service_role JWT (role claim service_role)",
      "const supabase = createClient('https://«lower:20».supabase.co', '«v»')"),
    V("planetscale-token", tok("pscale_tkn_", (B64URL, 43)), "PLANETSCALE_SERVICE_TOKEN", "PlanetScale", "PlanetScale service token pscale_tkn_"),
    V("planetscale-password", tok("pscale_pw_", (B64URL, 43)), "DATABASE_PASSWORD", "PlanetScale", "PlanetScale database password pscale_pw_",
      "mysql -h aws.connect.psdb.cloud -u «lower:12» -p«v» --ssl-mode=VERIFY_IDENTITY «db»"),
    V("neon-api-key", tok("napi_", (LALNUM, 64)), "NEON_API_KEY", "Neon", "Neon API key napi_",
      "neonctl projects list --api-key «v»"),
    V("turso-token", lambda r: _jwt(r, {"a": "rw", "iat": 1767225600 + r.randrange(10**6), "id": uuid4(r)}, alg="EdDSA"), "TURSO_AUTH_TOKEN", "Turso", "Turso database token (EdDSA JWT)",
      "libsql://«app»-«org».turso.io?authToken=«v»"),
    V("upstash-redis-token", tok("A", (B64URL, 59), "="), "UPSTASH_REDIS_REST_TOKEN", "Upstash", "Upstash Redis REST token (A… base64, ~60)",
      "const redis = new Redis({ url: 'https://«lower:12»-«num:5».upstash.io', token: '«v»' })", se=False),
    V("convex-deploy-key", tok("prod:", lambda r: r.choice(HWORDS) + "-" + r.choice(HWORDS) + "-" + rs(r, DIGITS, 3), "|", (B64URL, 120)), "CONVEX_DEPLOY_KEY", "Convex", "Convex deploy key prod:<deployment>|<token>"),
    V("mongodb-atlas-private-key", uuid4, "MONGODB_ATLAS_PRIVATE_API_KEY", "MongoDB Atlas", "Atlas programmatic API private key (UUID) with public key",
      "atlas config set private_api_key «v»", se=False),
    V("databricks-token", tok("dapi", (HEX, 32)), "DATABRICKS_TOKEN", "Databricks", "Databricks PAT dapi + 32 hex; gitleaks databricks-api-token",
      "[DEFAULT]\nhost = https://adb-«num:16».«num:2».azuredatabricks.net\ntoken = «v»"),
    V("snowflake-pat", lambda r: _jwt(r, {"p": f"{r.randrange(10**8)}:{r.randrange(10**8)}", "iss": "SF:1000", "exp": 2082758400}, alg="ES256"), "SNOWFLAKE_PAT", "Snowflake", "Snowflake programmatic access token (JWT)"),
    V("confluent-secret", tok((B64, 64)), "CONFLUENT_CLOUD_API_SECRET", "Confluent", "Confluent Cloud API secret 64 chars beside a 16-char key",
      "bootstrap.servers=pkc-«lower:5».«region».aws.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanisms=PLAIN\nsasl.username=«alnum:16»\nsasl.password=«v»", se=False),
    V("clickhouse-cloud-key", tok("4b1d", (ALNUM, 38)), "CLICKHOUSE_SECRET_KEY", "ClickHouse Cloud", "ClickHouse Cloud API secret 4b1d + 38; gitleaks clickhouse-cloud-api-secret-key"),
    V("elastic-cloud-key", tok("essu_", (B64, 80)), "EC_API_KEY", "Elastic Cloud", "Elastic Cloud API key essu_"),
    V("pulumi-token", tok("pul-", (HEX, 40)), "PULUMI_ACCESS_TOKEN", "Pulumi", "Pulumi access token pul- + 40 hex",
      "pulumi login --cloud-url https://api.pulumi.com\nManage your Pulumi stacks by logging in.\nEnter your access token from https://app.pulumi.com/account/tokens\n    or hit <ENTER> to log in using your browser: «v»"),
    V("terraform-cloud-token", tok((ALNUM, 14), ".atlasv1.", (B64URL, 67)), "TF_TOKEN_app_terraform_io", "HCP Terraform", "Terraform Cloud token <14>.atlasv1.<67>; gitleaks hashicorp-tf-api-token",
      '{\n  "credentials": {\n    "app.terraform.io": {\n      "token": "«v»"\n    }\n  }\n}'),
    V("vault-service-token", tok("hvs.", (B64URL, 91)), "VAULT_TOKEN", "Vault", "HashiCorp Vault service token hvs.; gitleaks vault-service-token",
      "VAULT_ADDR=https://vault.«domain»:8200 VAULT_TOKEN=«v» vault kv get -field=password secret/«app»/db"),
    V("vault-batch-token", tok("hvb.", (B64URL, 150)), "VAULT_TOKEN", "Vault", "HashiCorp Vault batch token hvb."),
    V("doppler-service-token", tok("dp.st.", lambda r: r.choice(["prd", "stg", "dev"]) + ".", (ALNUM, 40)), "DOPPLER_TOKEN", "Doppler", "Doppler service token dp.st.<config>.<40>",
      "docker run -e DOPPLER_TOKEN=«v» «org»/«app»:latest doppler run -- node server.js"),
    V("doppler-personal-token", tok("dp.pt.", (ALNUM, 43)), "DOPPLER_TOKEN", "Doppler", "Doppler personal token dp.pt. + 43; gitleaks doppler-api-token"),
    V("onepassword-sa-token", _onepassword_sa, "OP_SERVICE_ACCOUNT_TOKEN", "1Password", "1Password service account token ops_eyJ…; gitleaks 1password-service-account-token"),
    V("onepassword-secret-key", lambda r: f"A3-{rs(r, UALNUM, 6)}-{rs(r, UALNUM, 6)}-{rs(r, UALNUM, 5)}-{rs(r, UALNUM, 5)}-{rs(r, UALNUM, 5)}-{rs(r, UALNUM, 5)}", "OP_SECRET_KEY", "1Password", "1Password account Secret Key A3-XXXXXX-…; gitleaks 1password-secret-key",
      "Emergency kit for «email»: Secret Key «v» (sign-in address my.1password.com)"),
    V("bitwarden-access-token", tok("0.", uuid4, ".", (ALNUM, 30), ":", (B64, 22), "=="), "BWS_ACCESS_TOKEN", "Bitwarden Secrets Manager", "Bitwarden machine account access token 0.<uuid>.<secret>:<key>",
      "bws secret list --access-token «v»"),
    V("infisical-token", tok("st.", uuid4, ".", (HEX, 32), ".", (HEX, 32)), "INFISICAL_TOKEN", "Infisical", "Infisical service token st.<uuid>.<hex>.<hex>"),
    V("tailscale-authkey", tok("tskey-auth-k", (ALNUM, 11), "CNTRL-", (ALNUM, 33)), "TS_AUTHKEY", "Tailscale", "Tailscale auth key tskey-auth-…CNTRL-…",
      "tailscale up --authkey=«v» --advertise-tags=tag:ci --hostname=«app»-runner"),
    V("tailscale-api-key", tok("tskey-api-k", (ALNUM, 11), "CNTRL-", (ALNUM, 33)), "TAILSCALE_API_KEY", "Tailscale", "Tailscale API access token tskey-api-"),
    V("ngrok-authtoken", tok("2", (ALNUM, 26), "_", (ALNUM, 21)), "NGROK_AUTHTOKEN", "ngrok", "ngrok authtoken 2<26>_<21>",
      "ngrok config add-authtoken «v»", 'version: "3"\nagent:\n    authtoken: «v»'),
    V("k3s-node-token", tok("K10", (HEX, 64), "::server:", (HEX, 32)), "K3S_TOKEN", "k3s", "k3s node token K10<sha256>::server:<secret>",
      "curl -sfL https://get.k3s.io | K3S_URL=https://«ip»:6443 K3S_TOKEN=«v» sh -"),
    V("swarm-join-token", tok("SWMTKN-1-", (LALNUM, 50), "-", (LALNUM, 25)), "SWARM_TOKEN", "Docker Swarm", "Docker Swarm join token SWMTKN-1-",
      "docker swarm join --token «v» «ip»:2377"),
    V("openshift-token", tok("sha256~", (B64URL, 43)), "OPENSHIFT_TOKEN", "OpenShift", "OpenShift OAuth access token sha256~ + 43; gitleaks openshift-user-token",
      "oc login --token=«v» --server=https://api.«org».openshiftapps.com:6443"),
]

VENDOR += [
    # --- payments and commerce ---------------------------------------------------------------------
    V("stripe-live-secret", tok("sk_live_51", (ALNUM, 97)), "STRIPE_SECRET_KEY", "Stripe", "Stripe live secret key sk_live_ (new 107-char keys); gitleaks stripe-access-token",
      "const stripe = require('stripe')('«v»');", "stripe login --api-key «v»"),
    V("stripe-test-secret", tok("sk_test_51", (ALNUM, 97)), "STRIPE_SECRET_KEY", "Stripe", "Stripe test secret key sk_test_ (still a credential for the test account)",
      "curl https://api.stripe.com/v1/charges -u «v»: -d amount=2000 -d currency=usd"),
    V("stripe-restricted", tok("rk_live_51", (ALNUM, 97)), "STRIPE_RESTRICTED_KEY", "Stripe", "Stripe restricted key rk_live_"),
    V("stripe-webhook-secret", tok("whsec_", (ALNUM, 32)), "STRIPE_WEBHOOK_SECRET", "Stripe webhook", "Stripe webhook signing secret whsec_ + 32",
      "$ stripe listen --forward-to localhost:«port»/webhooks/stripe\n> Ready! You are using Stripe API Version [2025-09-30.clover]. Your webhook signing secret is «v» (^C to quit)"),
    V("square-access-token", tok("EAAA", (B64URL, 60)), "SQUARE_ACCESS_TOKEN", "Square", "Square access token EAAA + 60; gitleaks square-access-token"),
    V("square-app-secret", tok("sq0csp-", (B64URL, 43)), "SQUARE_APPLICATION_SECRET", "Square", "Square application secret sq0csp- + 43"),
    V("paypal-client-secret", tok("E", (B64URL, 79)), "PAYPAL_CLIENT_SECRET", "PayPal", "PayPal REST client secret (80 chars, E…)",
      "curl -v https://api-m.paypal.com/v1/oauth2/token -u \"A«alnum:79»:«v»\" -d grant_type=client_credentials", se=False),
    V("braintree-token", tok("access_token$production$", (LALNUM, 16), "$", (HEX, 32)), "BRAINTREE_ACCESS_TOKEN", "Braintree", "Braintree access token access_token$production$<16>$<32>"),
    V("razorpay-secret", alnum(24), "RAZORPAY_KEY_SECRET", "Razorpay", "Razorpay key secret (24) with rzp_live_ key id",
      'client = razorpay.Client(auth=("rzp_live_«alnum:14»", "«v»"))', se=False),
    V("paystack-secret", tok("sk_live_", (HEX, 40)), "PAYSTACK_SECRET_KEY", "Paystack", "Paystack secret key sk_live_ + 40 hex"),
    V("flutterwave-secret", tok("FLWSECK-", (HEX, 32), "-X"), "FLW_SECRET_KEY", "Flutterwave", "Flutterwave secret key FLWSECK-<32>-X"),
    V("mollie-live", tok("live_", (ALNUM, 30)), "MOLLIE_API_KEY", "Mollie", "Mollie live API key live_ + 30",
      "$mollie->setApiKey(\"«v»\");"),
    V("mercadopago-token", _mercadopago, "MERCADOPAGO_ACCESS_TOKEN", "Mercado Pago", "Mercado Pago access token APP_USR-<16>-<6>-<32>-<9>"),
    V("adyen-api-key", tok("AQE", (B64URL, 40), "=-", (B64, 44), "=-", (B64URL, 16)), "ADYEN_API_KEY", "Adyen", "Adyen API key AQE…=-…=-… (x-API-key)",
      "curl https://checkout-test.adyen.com/v71/payments -H 'x-API-key: «v»' -H 'content-type: application/json' -d @payment.json"),
    V("plaid-secret", hexs(30), "PLAID_SECRET", "Plaid", "Plaid secret 30 hex, contextual",
      'configuration = plaid.Configuration(host=plaid.Environment.Production, api_key={"clientId": "«hex:24»", "secret": "«v»"})', se=False),
    V("plaid-access-token", tok("access-production-", uuid4), "PLAID_ACCESS_TOKEN", "Plaid", "Plaid item access token access-production-<uuid>"),
    V("shopify-admin-token", tok("shpat_", (HEX, 32)), "SHOPIFY_ACCESS_TOKEN", "Shopify", "Shopify Admin API token shpat_ + 32 hex",
      "curl -X GET https://«app».myshopify.com/admin/api/2025-01/shop.json -H 'X-Shopify-Access-Token: «v»'"),
    V("shopify-shared-secret", tok("shpss_", (HEX, 32)), "SHOPIFY_API_SECRET", "Shopify", "Shopify app shared secret shpss_"),
    V("shippo-token", tok("shippo_live_", (HEX, 40)), "SHIPPO_API_TOKEN", "Shippo", "Shippo live token shippo_live_ + 40 hex"),
    V("easypost-key", tok("EZAK", (ALNUM, 54)), "EASYPOST_API_KEY", "EasyPost", "EasyPost production key EZAK + 54"),
    V("lemonsqueezy-key", lambda r: _jwt(r, {"aud": "1", "jti": rs(r, HEX, 64), "iat": 1767225600, "sub": rs(r, DIGITS, 6), "scopes": []}, alg="RS256"), "LEMONSQUEEZY_API_KEY", "Lemon Squeezy", "Lemon Squeezy API key (RS256 JWT)"),
    V("paddle-key", tok("pdl_live_apikey_", (LALNUM, 26), "_", (ALNUM, 22), "_", (ALNUM, 3)), "PADDLE_API_KEY", "Paddle", "Paddle Billing API key pdl_live_apikey_"),
    V("coinbase-cdp-secret", b64raw(64), "CDP_API_KEY_SECRET", "Coinbase CDP", "Coinbase Developer Platform API key secret (base64 Ed25519 key)",
      '{\n   "id": "«uuid»",\n   "privateKey": "«v»"\n}', se=False),
    V("binance-secret", alnum(64), "BINANCE_API_SECRET", "Binance", "Binance API secret 64 alnum",
      "client = Client(api_key='«alnum:64»', api_secret='«v»')", se=False),
    # --- messaging, mail, comms -----------------------------------------------------------------
    V("slack-bot-token", _slack_bot, "SLACK_BOT_TOKEN", "Slack", "Slack bot token xoxb-<id>-<id>-<24>; gitleaks slack-bot-token",
      "app = App(token=\"«v»\", signing_secret=os.environ[\"SLACK_SIGNING_SECRET\"])"),
    V("slack-user-token", tok("xoxp-", (DIGITS, 12), "-", (DIGITS, 12), "-", (DIGITS, 13), "-", (HEX, 32)), "SLACK_USER_TOKEN", "Slack", "Slack user token xoxp-…-<32 hex>",
      "curl -s -H 'Authorization: Bearer «v»' 'https://slack.com/api/conversations.history?channel=C0«lower:8»'"),
    V("slack-app-token", tok("xapp-1-A", (UALNUM, 10), "-", (DIGITS, 13), "-", (HEX, 64)), "SLACK_APP_TOKEN", "Slack", "Slack app-level token xapp-1-…; Socket Mode"),
    V("slack-config-token", tok("xoxe.xoxp-1-", (UALNUM, 163)), "SLACK_CONFIG_TOKEN", "Slack", "Slack configuration access token xoxe.xoxp-1-"),
    K("slack-webhook", "vendor", alnum(24),
      "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T«ualnum:8»/B«ualnum:10»/«v»",
      "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy finished\"}' https://hooks.slack.com/services/T«ualnum:8»/B«ualnum:10»/«v»",
      "      - name: Notify\n        env:\n          SLACK_WEBHOOK_URL: https://hooks.slack.com/services/T«ualnum:8»/B«ualnum:10»/«v»\n        run: ./notify.sh",
      source="Slack incoming webhook URL (the value is its secret last segment; T/B ids drawn around it)"),
    V("slack-signing-secret", hexs(32), "SLACK_SIGNING_SECRET", "Slack", "Slack signing secret 32 hex", se=False),
    V("discord-bot-token", _discord_bot, "DISCORD_TOKEN", "Discord", "Discord bot token base64(id).<6>.<38>",
      "client.run('«v»')"),
    K("discord-webhook", "vendor", tok((B64URL, 68)),
      "DISCORD_WEBHOOK_URL=https://discord.com/api/webhooks/«num:19»/«v»",
      "curl -H 'Content-Type: application/json' -d '{\"content\": \"build green\"}' https://discord.com/api/webhooks/«num:19»/«v»",
      'webhook = DiscordWebhook(url="https://discord.com/api/webhooks/«num:19»/«v»", content="deploy done")',
      source="Discord webhook URL (the value is the webhook token; the id is drawn around it)"),
    V("telegram-bot-token", lambda r: f"{r.randrange(10**9, 8 * 10**9)}:AA{mixed(r, B64URL, 33)}", "TELEGRAM_BOT_TOKEN", "Telegram", "Telegram bot token <id>:AA<33>; gitleaks telegram-bot-api-token",
      "curl -s https://api.telegram.org/bot«v»/sendMessage -d chat_id=-100«num:10» -d text='backup done'"),
    V("twilio-auth-token", hexs(32), "TWILIO_AUTH_TOKEN", "Twilio", "Twilio auth token 32 hex beside an AC account SID",
      "client = Client('AC«hex:32»', '«v»')", se=False),
    V("twilio-api-key-secret", alnum(32), "TWILIO_API_SECRET", "Twilio", "Twilio API key secret (32) beside SK key SID",
      "twilio profiles:create --account-sid AC«hex:32» --api-key SK«hex:32» --api-secret «v»", se=False),
    V("sendgrid-key", tok("SG.", (B64URL, 22), ".", (B64URL, 43)), "SENDGRID_API_KEY", "SendGrid", "SendGrid API key SG.<22>.<43>",
      "sgMail.setApiKey('«v»');"),
    V("mailgun-key", tok("key-", (HEX, 32)), "MAILGUN_API_KEY", "Mailgun", "Mailgun private API key key- + 32 hex",
      "curl -s --user 'api:«v»' https://api.mailgun.net/v3/mg.«domain»/messages -F from='ops@«domain»' -F to=«email» -F subject=test -F text=hi"),
    V("mailchimp-key", lambda r: rs(r, HEX, 32) + "-us" + str(r.randrange(1, 22)), "MAILCHIMP_API_KEY", "Mailchimp", "Mailchimp API key <32 hex>-usNN"),
    V("mandrill-key", tok("md-", (B64URL, 22)), "MANDRILL_API_KEY", "Mandrill", "Mandrill (Mailchimp Transactional) key md-"),
    V("brevo-key", tok("xkeysib-", (HEX, 64), "-", (ALNUM, 16)), "BREVO_API_KEY", "Brevo", "Brevo (Sendinblue) key xkeysib-<64>-<16>"),
    V("resend-key", tok("re_", (ALNUM, 8), "_", (ALNUM, 24)), "RESEND_API_KEY", "Resend", "Resend API key re_<8>_<24>",
      "const resend = new Resend('«v»');"),
    V("postmark-server-token", uuid4, "POSTMARK_SERVER_TOKEN", "Postmark", "Postmark server token (UUID), X-Postmark-Server-Token",
      "curl https://api.postmarkapp.com/email -H 'Accept: application/json' -H 'X-Postmark-Server-Token: «v»' -d @mail.json", se=False),
    V("mailersend-token", tok("mlsn.", (HEX, 64)), "MAILERSEND_API_KEY", "MailerSend", "MailerSend token mlsn. + 64 hex"),
    V("sparkpost-key", hexs(40), "SPARKPOST_API_KEY", "SparkPost", "SparkPost API key 40 hex, contextual", se=False),
    V("vonage-secret", alnum(16), "VONAGE_API_SECRET", "Vonage", "Vonage (Nexmo) API secret 16", se=False),
    V("pusher-secret", hexs(20), "PUSHER_APP_SECRET", "Pusher", "Pusher Channels app secret 20 hex",
      "PUSHER_APP_ID=«num:7»\nPUSHER_APP_KEY=«hex:20»\nPUSHER_APP_SECRET=«v»\nPUSHER_APP_CLUSTER=eu", se=False),
    V("ably-key", lambda r: f"{rs(r, ALNUM, 6)}.{rs(r, ALNUM, 6)}:{mixed(r, B64URL, 43)}", "ABLY_API_KEY", "Ably", "Ably API key <app>.<key>:<secret>",
      "const ably = new Ably.Realtime('«v»');"),
    V("agora-certificate", hexs(32), "AGORA_APP_CERTIFICATE", "Agora", "Agora app certificate 32 hex", se=False),
    K("teams-workflow-webhook", "vendor", tok((B64URL, 43)),
      "TEAMS_WEBHOOK_URL=https://prod-«num:2».westeurope.logic.azure.com:443/workflows/«hex:32»/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=«v»",
      "fly secrets set TEAMS_WEBHOOK_URL='https://prod-«num:2».westeurope.logic.azure.com:443/workflows/«hex:32»/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=«v»' --app «app»",
      "curl -H 'Content-Type: application/json' -d @card.json 'https://prod-«num:2».westeurope.logic.azure.com:443/workflows/«hex:32»/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=«v»'",
      source="Teams Workflows (Power Automate) webhook URL (the value is its sig=; the workflow id is drawn around it)"),
    V("dingtalk-webhook", tok("https://oapi.dingtalk.com/robot/send?access_token=", (HEX, 64)), "DINGTALK_WEBHOOK", "DingTalk", "DingTalk robot webhook access_token (64 hex)"),
    V("feishu-webhook", tok("https://open.feishu.cn/open-apis/bot/v2/hook/", uuid4), "FEISHU_WEBHOOK", "Feishu", "Feishu/Lark bot webhook URL (UUID secret)"),
    V("wecom-webhook", tok("https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=", uuid4), "WECOM_WEBHOOK", "WeCom", "WeCom group robot webhook key (UUID)"),
    K("google-chat-webhook", "vendor", tok((B64URL, 43)),
      "GCHAT_WEBHOOK=https://chat.googleapis.com/v1/spaces/AAAA«alnum:7»/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=«v»%3D",
      "curl -X POST -H 'Content-Type: application/json' 'https://chat.googleapis.com/v1/spaces/AAAA«alnum:7»/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=«v»%3D' -d '{\"text\": \"nightly ok\"}'",
      'chat_webhook: "https://chat.googleapis.com/v1/spaces/AAAA«alnum:7»/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=«v»%3D"',
      source="Google Chat incoming webhook URL (the value is its token=; the space id is drawn around it)"),
    V("line-channel-token", tok((B64, 170), "="), "LINE_CHANNEL_ACCESS_TOKEN", "LINE", "LINE Messaging API long-lived channel access token (~172 base64)", se=False),
    V("wechat-appsecret", hexs(32), "WECHAT_APP_SECRET", "WeChat", "WeChat Official Account AppSecret 32 hex",
      "curl 'https://api.weixin.qq.com/cgi-bin/token?grant_type=client_credential&appid=wx«hex:16»&secret=«v»'", se=False),
    V("zoom-client-secret", alnum(32), "ZOOM_CLIENT_SECRET", "Zoom", "Zoom Server-to-Server OAuth client secret 32", se=False),
    V("intercom-token", tok("dG9rOj", (B64, 54), "="), "INTERCOM_ACCESS_TOKEN", "Intercom", "Intercom access token dG9rOj… (base64 of tok:…)"),
    # --- SaaS, productivity, CMS -----------------------------------------------------------------
    V("linear-key", tok("lin_api_", (ALNUM, 40)), "LINEAR_API_KEY", "Linear", "Linear API key lin_api_ + 40",
      "curl -X POST https://api.linear.app/graphql -H 'Authorization: «v»' -H 'Content-Type: application/json' --data '{\"query\": \"{ viewer { id } }\"}'"),
    V("notion-token", lambda r: "ntn_" + rs(r, DIGITS, 11) + mixed(r, ALNUM, 35), "NOTION_TOKEN", "Notion", "Notion integration token ntn_ + 11 digits + 35; gitleaks notion-api-token",
      '{"mcpServers":{"notionApi":{"command":"npx","args":["-y","@notionhq/notion-mcp-server"],"env":{"OPENAPI_MCP_HEADERS":"{\\"Authorization\\": \\"Bearer «v»\\", \\"Notion-Version\\": \\"2022-06-28\\"}"}}}}'),
    V("notion-legacy-secret", tok("secret_", (ALNUM, 43)), "NOTION_API_KEY", "Notion", "Notion legacy internal integration secret secret_ + 43"),
    V("figma-token", tok("figd_", (B64URL, 40)), "FIGMA_ACCESS_TOKEN", "Figma", "Figma PAT figd_",
      "curl -H 'X-Figma-Token: «v»' 'https://api.figma.com/v1/files/«alnum:22»'"),
    V("airtable-pat", tok("pat", (ALNUM, 14), ".", (HEX, 64)), "AIRTABLE_API_KEY", "Airtable", "Airtable PAT pat<14>.<64 hex>; gitleaks airtable-personnal-access-token"),
    V("asana-pat", lambda r: f"2/{rs(r, DIGITS, 16)}/{rs(r, DIGITS, 16)}:{rs(r, HEX, 32)}", "ASANA_ACCESS_TOKEN", "Asana", "Asana PAT 2/<user>/<app>:<32 hex>"),
    V("clickup-token", lambda r: f"pk_{rs(r, DIGITS, 8)}_{rs(r, UALNUM, 32)}", "CLICKUP_API_TOKEN", "ClickUp", "ClickUp personal token pk_<id>_<32 upper>"),
    V("trello-token", tok("ATTA", (HEX, 64), (HEXU, 8)), "TRELLO_TOKEN", "Trello", "Trello token ATTA + 64 hex + 8",
      "curl 'https://api.trello.com/1/members/me/boards?key=«hex:32»&token=«v»'"),
    V("monday-token", lambda r: _jwt(r, {"tid": r.randrange(10**9), "aai": 11, "uid": r.randrange(10**8), "iad": "2026-01-12T10:11:12.000Z", "per": "me:write", "actid": r.randrange(10**8), "rgn": "euc1"}), "MONDAY_API_TOKEN", "monday.com", "monday.com API token (JWT)"),
    V("hubspot-pat", lambda r: "pat-" + r.choice(["na1", "eu1", "na2"]) + "-" + uuid4(r), "HUBSPOT_ACCESS_TOKEN", "HubSpot", "HubSpot private app token pat-na1-<uuid>"),
    V("zendesk-token", alnum(40), "ZENDESK_API_TOKEN", "Zendesk", "Zendesk API token 40, user/token basic auth",
      "curl https://«org».zendesk.com/api/v2/tickets.json -u «email»/token:«v»", se=False),
    V("salesforce-session", lambda r: f"00D{rs(r, ALNUM, 12)}!AQ{rs(r, ALNUM, 2)}AQ{mixed(r, B64URL + '.', 96)}", "SF_ACCESS_TOKEN", "Salesforce", "Salesforce session id / access token 00D…!AQ…",
      "sf org login access-token --instance-url https://«org».my.salesforce.com --no-prompt\n? Access token: «v»"),
    V("contentful-cma", tok("CFPAT-", (B64URL, 43)), "CONTENTFUL_MANAGEMENT_TOKEN", "Contentful", "Contentful management token CFPAT- + 43"),
    V("sanity-token", tok("sk", (ALNUM, 180)), "SANITY_API_TOKEN", "Sanity", "Sanity API token sk + ~180"),
    V("storyblok-token", alnum(24), "STORYBLOK_OAUTH_TOKEN", "Storyblok", "Storyblok personal access token 24 + -<id>-<…>", se=False),
    V("ghost-admin-key", lambda r: f"{rs(r, HEX, 24)}:{rs(r, HEX, 64)}", "GHOST_ADMIN_API_KEY", "Ghost", "Ghost Admin API key <24 hex id>:<64 hex secret>",
      "const api = new GhostAdminAPI({ url: 'https://blog.«domain»', key: '«v»', version: 'v5.0' });"),
    V("wordpress-app-password", lambda r: " ".join(mixed(r, ALNUM, 4) for _ in range(6)), "WP_APP_PASSWORD", "WordPress", "WordPress application password: 24 chars in 6 groups of 4",
      "curl --user '«user»:«v»' https://«domain»/wp-json/wp/v2/posts -X POST -d 'title=Draft'", se=False),
    V("algolia-admin-key", hexs(32), "ALGOLIA_ADMIN_API_KEY", "Algolia", "Algolia Admin API key 32 hex, contextual",
      "const client = algoliasearch('«alnum:10»', '«v»');", se=False),
    V("meilisearch-master", b64raw(24, url=True, pad=False), "MEILI_MASTER_KEY", "Meilisearch", "Meilisearch master key",
      "docker run -it --rm -p 7700:7700 -e MEILI_MASTER_KEY='«v»' getmeili/meilisearch:v1.12", se=False),
    V("typeform-token", tok("tfp_", (B64URL, 59)), "TYPEFORM_TOKEN", "Typeform", "Typeform PAT tfp_ + 59"),
    V("dropbox-short-lived", tok("sl.u.", (B64URL, 140)), "DROPBOX_ACCESS_TOKEN", "Dropbox", "Dropbox short-lived token sl.u.…"),
    V("box-dev-token", alnum(32), "BOX_DEVELOPER_TOKEN", "Box", "Box developer token 32", se=False),
    V("calendly-pat", lambda r: _jwt(r, {"iss": "https://auth.calendly.com", "iat": 1767225600, "jti": uuid4(r), "user_uuid": uuid4(r)}, alg="HS512"), "CALENDLY_TOKEN", "Calendly", "Calendly PAT (HS512 JWT)"),
    V("pipedrive-token", hexs(40), "PIPEDRIVE_API_TOKEN", "Pipedrive", "Pipedrive API token 40 hex, api_token query",
      "curl 'https://«org».pipedrive.com/api/v1/deals?api_token=«v»'", se=False),
    V("postman-key", tok("PMAK-", (HEX, 24), "-", (HEX, 34)), "POSTMAN_API_KEY", "Postman", "Postman API key PMAK-<24>-<34>",
      "newman run https://api.getpostman.com/collections/«uuid»?apikey=«v»"),
    V("readme-key", tok("rdme_", (LALNUM, 70)), "README_API_KEY", "ReadMe", "ReadMe API key rdme_ + 70"),
    V("maxmind-license", lambda r: f"{rs(r, ALNUM, 6)}_{mixed(r, ALNUM, 29)}_mmk", "MAXMIND_LICENSE_KEY", "MaxMind", "MaxMind license key <6>_<29>_mmk",
      "AccountID «num:6»\nLicenseKey «v»\nEditionIDs GeoLite2-ASN GeoLite2-City GeoLite2-Country"),
    V("mapbox-secret", lambda r: "sk.eyJ1Ijoi" + b64_of(f'{rng_word(r)}","a":"{rs(r, ALNUM, 24)}'.encode(), pad=False) + "." + mixed(r, B64URL, 22), "MAPBOX_SECRET_TOKEN", "Mapbox", "Mapbox secret token sk.eyJ1…",
      "machine api.mapbox.com\nlogin mapbox\npassword «v»"),
    V("google-maps-key", tok("AIza", (B64URL, 35)), "GOOGLE_MAPS_API_KEY", "Google Maps", "Google Maps Platform key AIza + 35",
      '<meta-data android:name="com.google.android.geo.API_KEY" android:value="«v»"/>'),
    V("spotify-secret", hexs(32), "SPOTIFY_CLIENT_SECRET", "Spotify", "Spotify client secret 32 hex", se=False),
    V("twitter-bearer", lambda r: "AAAAAAAAAAAAAAAAAAAAA" + mixed(r, ALNUM, 24) + "%3D" + mixed(r, ALNUM, 50), "TWITTER_BEARER_TOKEN", "X (Twitter)", "X API app bearer token AAAAAAAAAAAAAAAAAAAAA…%3D…; gitleaks twitter-bearer-token"),
    V("facebook-page-token", _fb_token, "FB_PAGE_ACCESS_TOKEN", "Meta", "Meta Graph API token EAA…; gitleaks facebook-page-access-token",
      "curl -i -X GET 'https://graph.facebook.com/v21.0/me/accounts?access_token=«v»'"),
    V("reddit-secret", tok((B64URL, 30)), "REDDIT_CLIENT_SECRET", "Reddit", "Reddit script app secret 30 chars",
      'reddit = praw.Reddit(client_id="«alnum:22»", client_secret="«v»", user_agent="«app»/0.1")', se=False),
    V("twitch-oauth", tok((LALNUM, 30)), "TWITCH_OAUTH", "Twitch", "Twitch OAuth token 30 lowercase (oauth: prefix in IRC)",
      "PASS oauth:«v»\nNICK «user»\nJOIN #«name»", se=False),
    # --- observability, security, feature flags ----------------------------------------------------
    V("datadog-api-key", hexs(32), "DD_API_KEY", "Datadog", "Datadog API key 32 hex",
      'DOCKER_CONTENT_TRUST=1 docker run -d --name dd-agent -e DD_API_KEY=«v» -e DD_SITE="datadoghq.eu" gcr.io/datadoghq/agent:7', se=False),
    V("datadog-app-key", hexs(40), "DD_APP_KEY", "Datadog", "Datadog application key 40 hex",
      "curl -X GET 'https://api.datadoghq.com/api/v1/monitor' -H 'DD-API-KEY: «hex:32»' -H 'DD-APPLICATION-KEY: «v»'", se=False),
    V("newrelic-user-key", tok("NRAK-", (UALNUM, 27)), "NEW_RELIC_API_KEY", "New Relic", "New Relic user key NRAK- + 27"),
    V("newrelic-license", lambda r: rs(r, HEX, 36) + "NRAL", "NEW_RELIC_LICENSE_KEY", "New Relic", "New Relic ingest license key 40 chars ending NRAL",
      "license_key: «v»\napp_name: «app»\ndistributed_tracing:\n  enabled: true"),
    V("newrelic-insert-key", tok("NRII-", (B64URL, 32)), "NEW_RELIC_INSERT_KEY", "New Relic", "New Relic insert key NRII-"),
    V("sentry-org-token", _sentry_org, "SENTRY_AUTH_TOKEN", "Sentry", "Sentry org auth token sntrys_eyJ…_…; gitleaks sentry-org-token",
      "sentry-cli --auth-token «v» releases new «ver»"),
    V("sentry-user-token", tok("sntryu_", (HEX, 64)), "SENTRY_AUTH_TOKEN", "Sentry", "Sentry user auth token sntryu_ + 64 hex",
      "[auth]\ntoken=«v»"),
    V("grafana-sa-token", tok("glsa_", (ALNUM, 32), "_", (HEX, 8)), "GRAFANA_SERVICE_ACCOUNT_TOKEN", "Grafana", "Grafana service account token glsa_<32>_<8>",
      "curl -H 'Authorization: Bearer «v»' https://grafana.«domain»/api/dashboards/uid/«alnum:9»"),
    V("grafana-cloud-token", tok("glc_eyJvIjoi", (B64, 140), "=="), "GRAFANA_CLOUD_TOKEN", "Grafana Cloud", "Grafana Cloud access policy token glc_eyJ…"),
    V("honeycomb-ingest-key", tok("hcaik_", (LALNUM, 58)), "HONEYCOMB_API_KEY", "Honeycomb", "Honeycomb ingest key hcaik_ (x-honeycomb-team header)",
      "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=«v»"),
    V("axiom-token", tok("xaat-", uuid4), "AXIOM_TOKEN", "Axiom", "Axiom API token xaat-<uuid>"),
    V("dynatrace-token", tok("dt0c01.", (UALNUM, 24), ".", (UALNUM, 64)), "DT_API_TOKEN", "Dynatrace", "Dynatrace token dt0c01.<24>.<64>; gitleaks dynatrace-api-token"),
    V("splunk-hec-token", uuid4, "SPLUNK_HEC_TOKEN", "Splunk", "Splunk HEC token (UUID), Authorization: Splunk <token>",
      "curl -k https://splunk.«domain»:8088/services/collector/event -H 'Authorization: Splunk «v»' -d '{\"event\": \"hello\"}'", se=False),
    V("sumologic-key", alnum(64), "SUMO_ACCESS_KEY", "Sumo Logic", "Sumo Logic access key 64 beside su<12> access id", se=False),
    V("pagerduty-token", tok("u+", (B64URL, 18)), "PAGERDUTY_TOKEN", "PagerDuty", "PagerDuty user API token u+ + 18", se=False),
    V("pagerduty-routing-key", hexs(32), "PAGERDUTY_ROUTING_KEY", "PagerDuty", "PagerDuty Events v2 routing key 32 hex",
      '{"routing_key": "«v»", "event_action": "trigger", "payload": {"summary": "disk full", "source": "«host»", "severity": "critical"}}', se=False),
    V("opsgenie-key", uuid4, "OPSGENIE_API_KEY", "Opsgenie", "Opsgenie API key (UUID), Authorization: GenieKey",
      "curl -X POST https://api.opsgenie.com/v2/alerts -H 'Authorization: GenieKey «v»' -H 'Content-Type: application/json' -d '{\"message\": \"db down\"}'", se=False),
    V("rollbar-token", hexs(32), "ROLLBAR_ACCESS_TOKEN", "Rollbar", "Rollbar post_server_item token 32 hex",
      "rollbar.init('«v»', environment='production')", se=False),
    V("launchdarkly-sdk-key", tok("sdk-", uuid4), "LAUNCHDARKLY_SDK_KEY", "LaunchDarkly", "LaunchDarkly server SDK key sdk-<uuid>"),
    V("launchdarkly-api-token", tok("api-", uuid4), "LAUNCHDARKLY_ACCESS_TOKEN", "LaunchDarkly", "LaunchDarkly API access token api-<uuid>"),
    V("statsig-server-secret", tok("secret-", (ALNUM, 43)), "STATSIG_SERVER_SECRET", "Statsig", "Statsig server secret key secret-"),
    V("posthog-personal-key", tok("phx_", (ALNUM, 43)), "POSTHOG_PERSONAL_API_KEY", "PostHog", "PostHog personal API key phx_ (the phc_ project key is public)"),
    V("snyk-token", uuid4, "SNYK_TOKEN", "Snyk", "Snyk API token (UUID), contextual",
      "snyk auth «v»", se=False),
    V("codecov-token", uuid4, "CODECOV_TOKEN", "Codecov", "Codecov upload token (UUID)",
      "- uses: codecov/codecov-action@v5\n  with:\n    token: «v»\n    files: ./coverage.xml", se=False),
    V("okta-api-token", tok("00", (B64URL, 40)), "OKTA_API_TOKEN", "Okta", "Okta API token 00 + 40, Authorization: SSWS",
      "curl -H 'Authorization: SSWS «v»' https://«org».okta.com/api/v1/users?limit=25"),
    V("auth0-client-secret", tok((B64URL, 64)), "AUTH0_CLIENT_SECRET", "Auth0", "Auth0 client secret 64 chars",
      "auth0 login --domain «org».eu.auth0.com --client-id «alnum:32» --client-secret «v»", se=False),
    V("clerk-secret", tok("sk_live_", (ALNUM, 40)), "CLERK_SECRET_KEY", "Clerk", "Clerk secret key sk_live_ + 40"),
    V("stytch-secret", tok("secret-live-", (B64URL, 36), "="), "STYTCH_SECRET", "Stytch", "Stytch secret secret-live-"),
    V("workos-key", tok("sk_", (ALNUM, 56)), "WORKOS_API_KEY", "WorkOS", "WorkOS API key sk_"),
    V("hasura-admin-secret", any_pw, "HASURA_GRAPHQL_ADMIN_SECRET", "Hasura", "Hasura admin secret (any string), x-hasura-admin-secret header",
      "curl -H 'x-hasura-admin-secret: «v»' https://«app».hasura.app/v1/graphql -d '{\"query\":\"{ users { id } }\"}'", se=False),
    V("expo-token", alnum(40), "EXPO_TOKEN", "Expo", "Expo access token 40",
      "EXPO_TOKEN=«v» eas build --platform ios --non-interactive", se=False),
    V("prefect-key", tok("pnu_", (ALNUM, 36)), "PREFECT_API_KEY", "Prefect", "Prefect Cloud API key pnu_ + 36"),
    V("infracost-key", tok("ico-", (ALNUM, 32)), "INFRACOST_API_KEY", "Infracost", "Infracost API key ico- + 32"),
    V("frameio-token", tok("fio-u-", (B64URL, 64)), "FRAMEIO_TOKEN", "Frame.io", "Frame.io developer token fio-u-"),
    V("duffel-token", tok("duffel_live_", (B64URL, 43)), "DUFFEL_ACCESS_TOKEN", "Duffel", "Duffel live token duffel_live_ + 43"),
    V("scalingo-token", tok("tk-us-", (B64URL, 48)), "SCALINGO_API_TOKEN", "Scalingo", "Scalingo API token tk-us- + 48"),
    V("age-secret-key-env", tok("AGE-SECRET-KEY-1", (BECH32.upper(), 58)), "SOPS_AGE_KEY", "age", "age secret key AGE-SECRET-KEY-1 + 58 bech32 (SOPS_AGE_KEY env)"),
    V("settlemint-pat", tok("sm_pat_", (ALNUM, 16)), "SETTLEMINT_ACCESS_TOKEN", "SettleMint", "SettleMint PAT sm_pat_ + 16"),
    V("defined-networking-key", tok("dnkey-", (B64URL, 26), "-", (B64URL, 52)), "DN_API_KEY", "Defined Networking", "Defined Networking API key dnkey-<26>-<52>"),
    V("adobe-client-secret", tok("p8e-", (ALNUM, 32)), "ADOBE_CLIENT_SECRET", "Adobe", "Adobe I/O client secret p8e- + 32"),
    V("lob-live-key", tok("live_", (HEX, 35)), "LOB_API_KEY", "Lob", "Lob live key live_ + 35 hex",
      "curl https://api.lob.com/v1/addresses -u «v»:"),
]


def rng_word(rng: random.Random) -> str:
    return "dev" + rs(rng, LOWER, rng.randrange(6, 10))

# --------------------------------------------------------------------------------------------
# config files
# --------------------------------------------------------------------------------------------

CONFIG = [
    K("dotenv-db-password", "config", any_pw,
      "# .env.production\nAPP_ENV=production\nDB_HOST=«host»\nDB_PORT=5432\nDB_USERNAME=«user»\nDB_PASSWORD=«v»\nREDIS_URL=redis://cache:6379/0",
      "DB_PASSWORD='«v»'", source=".env files (dotenv), Laravel/Node conventions"),
    K("dotenv-quoted-with-comment", "config", any_pw,
      'SMTP_HOST=smtp.«domain»\nSMTP_USER=«email»\nSMTP_PASS="«v»"  # app password, expires «date»',
      source="dotenv with a trailing comment"),
    K("laravel-app-key", "config", lambda r: "base64:" + b64_of(rbytes(r, 32)),
      "APP_NAME=«app»\nAPP_ENV=production\nAPP_KEY=«v»\nAPP_DEBUG=false", "php artisan key:generate --show\n«v»",
      source="Laravel APP_KEY base64:<32 bytes>"),
    K("symfony-app-secret", "config", hexs(32), "###> symfony/framework-bundle ###\nAPP_ENV=prod\nAPP_SECRET=«v»\n###< symfony/framework-bundle ###",
      source="Symfony .env APP_SECRET (32 hex)"),
    K("rails-secret-key-base", "config", hexs(128), "SECRET_KEY_BASE=«v»", "$ bin/rails secret\n«v»",
      source="Rails SECRET_KEY_BASE (bin/rails secret: 128 hex)"),
    K("rails-master-key", "config", hexs(32), "$ cat config/master.key\n«v»", "RAILS_MASTER_KEY=«v» bin/rails credentials:show",
      source="Rails config/master.key (32 hex)"),
    K("nextauth-secret", "config", b64raw(32), "NEXTAUTH_URL=http://localhost:3000\nNEXTAUTH_SECRET=«v»", "$ openssl rand -base64 32\n«v»\n$ echo 'AUTH_SECRET=«v»' >> .env.local",
      source="NextAuth/Auth.js AUTH_SECRET (openssl rand -base64 32)"),
    K("strapi-secrets", "config", b64raw(16),
      "HOST=0.0.0.0\nPORT=1337\nAPP_KEYS=«v»,«alnum:22»==\nAPI_TOKEN_SALT=«alnum:22»==\nADMIN_JWT_SECRET=«alnum:22»==",
      source="Strapi .env APP_KEYS"),
    K("n8n-encryption-key", "config", alnum(32), "N8N_ENCRYPTION_KEY=«v»\nN8N_HOST=n8n.«domain»\nWEBHOOK_URL=https://n8n.«domain»/",
      source="n8n N8N_ENCRYPTION_KEY"),
    K("supabase-jwt-secret", "config", alnum(40), "############\n# Secrets\n############\nPOSTGRES_PASSWORD=«alnum:24»\nJWT_SECRET=«v»\nANON_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiJ9.«alnum:43»",
      source="self-hosted Supabase docker/.env JWT_SECRET"),
    K("spring-yaml-datasource", "config", any_pw,
      'spring:\n  datasource:\n    url: jdbc:postgresql://«host»:5432/«db»\n    username: «user»\n    password: "«v»"\n  jpa:\n    hibernate:\n      ddl-auto: validate',
      source="Spring Boot application.yml"),
    K("spring-properties", "config", any_pw,
      "spring.datasource.url=jdbc:mysql://«host»:3306/«db»?useSSL=true\nspring.datasource.username=«user»\nspring.datasource.password=«v»\nspring.jpa.open-in-view=false",
      source="Spring Boot application.properties"),
    K("spring-mail-password", "config", any_pw, "spring.mail.host=smtp.office365.com\nspring.mail.port=587\nspring.mail.username=«email»\nspring.mail.password=«v»",
      source="Spring Boot mail properties"),
    K("django-settings-databases", "config", any_pw,
      "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': '«db»',\n        'USER': '«user»',\n        'PASSWORD': '«v»',\n        'HOST': '«host»',\n        'PORT': '5432',\n    }\n}",
      source="Django settings.py DATABASES"),
    K("django-secret-key", "config", lambda r: "django-insecure-" + rs(r, LOWER + DIGITS + "!@#%^*(-_=+)", 50),
      "SECRET_KEY = '«v»'", source="Django startproject SECRET_KEY (django-insecure- + 50)"),
    K("toml-database-section", "config", any_pw,
      '[database]\nhost = "«host»"\nport = 5432\nuser = "«user»"\npassword = "«v»"\npool_size = 10',
      source="TOML app config"),
    K("codex-config-mcp-env", "config", tok("ghp_", (ALNUM, 36)),
      '[mcp_servers.github]\ncommand = "docker"\nargs = ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"]\nenv = { GITHUB_PERSONAL_ACCESS_TOKEN = "«v»" }',
      source="Codex ~/.codex/config.toml mcp_servers env"),
    K("claude-desktop-mcp-env", "config", any_pw,
      '{\n  "mcpServers": {\n    "postgres": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://«user»:«v»@localhost:5432/«db»"]\n    }\n  }\n}',
      source="claude_desktop_config.json MCP server args"),
    K("cursor-mcp-headers", "config", tok((B64URL, 48)),
      '{\n  "mcpServers": {\n    "«app»": {\n      "url": "https://mcp.«domain»/sse",\n      "headers": { "Authorization": "Bearer «v»" }\n    }\n  }\n}',
      source=".cursor/mcp.json remote server headers"),
    K("claude-settings-env", "config", tok("sk-ant-api03-", (B64URL, 93), "AA"),
      '{\n  "env": {\n    "ANTHROPIC_API_KEY": "«v»",\n    "DISABLE_TELEMETRY": "1"\n  },\n  "permissions": { "allow": ["Bash(npm run test:*)"] }\n}',
      source=".claude/settings.local.json env block"),
    K("ini-mysql-client", "config", any_pw, "[client]\nuser=«user»\npassword=«v»\nhost=«host»\n\n[mysqldump]\nsingle-transaction",
      source="MySQL option file ~/.my.cnf"),
    K("ini-aws-credentials-profile", "config", tok((B64, 40)),
      "[«app»-prod]\naws_access_key_id=«akid»\naws_secret_access_key=«v»\n\n[«app»-dev]\nsso_session = corp",
      source="~/.aws/credentials named profile"),
    K("ini-pypirc-private", "config", any_pw,
      "[distutils]\nindex-servers =\n    corp\n\n[corp]\nrepository = https://nexus.«domain»/repository/pypi-internal/\nusername = «user»\npassword = «v»",
      source=".pypirc private index"),
    K("ini-s3cfg", "config", tok((B64, 40)), "[default]\naccess_key = «akid»\nsecret_key = «v»\nhost_base = s3.amazonaws.com\nuse_https = True",
      source="s3cmd ~/.s3cfg"),
    K("ini-rclone", "config", tok((B64, 40)), "[r2]\ntype = s3\nprovider = Cloudflare\naccess_key_id = «hex:32»\nsecret_access_key = «v»\nendpoint = https://«hex:32».r2.cloudflarestorage.com",
      source="rclone.conf S3 remote"),
    K("ini-supervisord", "config", any_pw, "[inet_http_server]\nport=127.0.0.1:9001\nusername=«user»\npassword=«v»",
      source="supervisord.conf inet_http_server"),
    K("ini-grafana", "config", any_pw, "[security]\nadmin_user = admin\nadmin_password = «v»\nsecret_key = «alnum:16»",
      source="grafana.ini [security]"),
    K("ini-odoo", "config", any_pw, "[options]\nadmin_passwd = «v»\ndb_host = «host»\ndb_user = odoo\ndb_password = «alnum:16»",
      source="odoo.conf admin_passwd"),
    K("ini-odbc", "config", plain_pw, "[«db»]\nDriver=ODBC Driver 18 for SQL Server\nServer=tcp:«host»,1433\nDatabase=«db»\nUID=«user»\nPWD=«v»",
      source="odbc.ini DSN with PWD"),
    K("xml-maven-settings", "config", any_pw,
      "<settings>\n  <servers>\n    <server>\n      <id>nexus-releases</id>\n      <username>«user»</username>\n      <password>«v»</password>\n    </server>\n  </servers>\n</settings>",
      source="Maven ~/.m2/settings.xml"),
    K("xml-nuget-config", "config", any_pw,
      '<configuration>\n  <packageSourceCredentials>\n    <corp>\n      <add key="Username" value="«user»" />\n      <add key="ClearTextPassword" value="«v»" />\n    </corp>\n  </packageSourceCredentials>\n</configuration>',
      source="NuGet.Config packageSourceCredentials"),
    K("xml-tomcat-users", "config", any_pw, '<tomcat-users>\n  <role rolename="manager-gui"/>\n  <user username="«user»" password="«v»" roles="manager-gui,admin-gui"/>\n</tomcat-users>',
      source="Tomcat conf/tomcat-users.xml"),
    K("xml-webconfig-connstr", "config", plain_pw,
      '<connectionStrings>\n  <add name="Default" connectionString="Data Source=«host»;Initial Catalog=«db»;User ID=«user»;Password=«v»;" providerName="System.Data.SqlClient" />\n</connectionStrings>',
      source="ASP.NET web.config connectionStrings"),
    K("xml-hibernate", "config", any_pw, '<property name="hibernate.connection.username">«user»</property>\n<property name="hibernate.connection.password">«v»</property>',
      source="hibernate.cfg.xml"),
    K("xml-android-strings", "config", tok((ALNUM, 40)), '<resources>\n    <string name="app_name">«app»</string>\n    <string name="backend_api_secret">«v»</string>\n</resources>',
      source="Android res/values/strings.xml"),
    K("xml-log4j-smtp", "config", any_pw, '<SMTP name="Mail" subject="Error" to="oncall@«domain»" smtpHost="smtp.«domain»" smtpPort="587" smtpUsername="«user»" smtpPassword="«v»" bufferSize="50"/>',
      source="log4j2.xml SMTP appender"),
    K("json-appsettings", "config", plain_pw,
      '{\n  "ConnectionStrings": {\n    "DefaultConnection": "Server=«host»;Database=«db»;User Id=«user»;Password=«v»;TrustServerCertificate=True"\n  },\n  "Logging": { "LogLevel": { "Default": "Information" } }\n}',
      source="ASP.NET Core appsettings.json"),
    K("json-composer-auth", "config", any_pw, '{\n    "http-basic": {\n        "repo.«domain»": {\n            "username": "«user»",\n            "password": "«v»"\n        }\n    }\n}',
      source="Composer auth.json http-basic"),
    K("json-vscode-launch-env", "config", any_pw, '"configurations": [\n  {\n    "type": "node",\n    "request": "launch",\n    "name": "API",\n    "env": { "PGPASSWORD": "«v»", "NODE_ENV": "development" }\n  }\n]',
      source=".vscode/launch.json env"),
    K("json-keycloak-client", "config", tok((ALNUM, 32)), '{\n  "clientId": "«app»",\n  "enabled": true,\n  "clientAuthenticatorType": "client-secret",\n  "secret": "«v»",\n  "redirectUris": ["https://«app».«domain»/*"]\n}',
      source="Keycloak realm export client secret"),
    K("json-ghost-mail", "config", any_pw, '"mail": {\n  "transport": "SMTP",\n  "options": {\n    "service": "Mailgun",\n    "auth": { "user": "postmaster@mg.«domain»", "pass": "«v»" }\n  }\n}',
      source="Ghost config.production.json mail"),
    K("hcl-tfvars", "config", any_pw, 'region      = "«region»"\ndb_username = "«user»"\ndb_password = "«v»"\ninstance    = "db.t4g.medium"',
      source="terraform.tfvars"),
    K("hcl-nomad-env", "config", any_pw, 'task "api" {\n  driver = "docker"\n  env {\n    DB_PASSWORD = "«v»"\n    PORT        = "«port»"\n  }\n}',
      source="Nomad job env stanza"),
    K("hcl-consul-acl", "config", uuid4, 'acl {\n  enabled = true\n  default_policy = "deny"\n  tokens {\n    initial_management = "«v»"\n    agent = "«uuid»"\n  }\n}',
      source="Consul agent ACL tokens (UUID secrets)"),
    K("properties-gradle-signing", "config", any_pw, "signing.keyId=«hex:8»\nsigning.password=«v»\nsigning.secretKeyRingFile=/home/«user»/.gnupg/secring.gpg\nossrhUsername=«user»",
      source="~/.gradle/gradle.properties signing"),
    K("properties-gradle-repo", "config", tok((ALNUM, 40)), "mavenUser=«user»\nmavenPassword=«v»\norg.gradle.jvmargs=-Xmx2g",
      source="gradle.properties repository credentials"),
    K("properties-proxy", "config", any_pw, "systemProp.https.proxyHost=proxy.«domain»\nsystemProp.https.proxyPort=3128\nsystemProp.https.proxyUser=«user»\nsystemProp.https.proxyPassword=«v»",
      source="gradle.properties proxy"),
    K("properties-kafka-jaas", "config", any_pw,
      'security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="«user»" password="«v»";',
      source="Kafka client properties sasl.jaas.config"),
    K("properties-android-local", "config", tok("AIza", (B64URL, 35)), "sdk.dir=/Users/«name»/Library/Android/sdk\nMAPS_API_KEY=«v»",
      source="Android local.properties"),
    K("properties-minecraft-rcon", "config", any_pw, "enable-rcon=true\nrcon.port=25575\nrcon.password=«v»\nserver-port=25565",
      source="Minecraft server.properties"),
    K("compose-postgres", "config", any_pw,
      "services:\n  db:\n    image: postgres:16\n    restart: unless-stopped\n    environment:\n      POSTGRES_USER: «user»\n      POSTGRES_PASSWORD: «v»\n      POSTGRES_DB: «db»\n    ports:\n      - \"5432:5432\"",
      source="docker-compose.yml postgres environment"),
    K("compose-mysql-healthcheck", "config", plain_pw,
      'services:\n  mysql:\n    image: mysql:8.4\n    environment:\n      - MYSQL_ROOT_PASSWORD=«v»\n    healthcheck:\n      test: ["CMD", "mysqladmin", "ping", "-h", "localhost", "-uroot", "-p«v»"]',
      source="docker-compose mysql with healthcheck"),
    K("k8s-deployment-env", "config", any_pw,
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: «app»\nspec:\n  template:\n    spec:\n      containers:\n        - name: «app»\n          image: ghcr.io/«org»/«app»:«ver»\n          env:\n            - name: DATABASE_PASSWORD\n              value: "«v»"',
      source="Kubernetes Deployment env value"),
    K("k8s-configmap-misuse", "config", any_pw, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: «app»-config\ndata:\n  application.properties: |\n    db.user=«user»\n    db.password=«v»",
      source="Kubernetes ConfigMap holding a password"),
    K("kubeconfig-user-token", "config", lambda r: _jwt(r, {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "kube-system", "sub": "system:serviceaccount:kube-system:" + rs(r, LOWER, 8)}, alg="RS256"),
      "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://«ip»:6443\n  name: prod\nusers:\n- name: ci\n  user:\n    token: «v»\ncontexts:\n- context: {cluster: prod, user: ci}\n  name: prod",
      source="kubeconfig users[].user.token (service account JWT)"),
    K("helm-values-bitnami", "config", any_pw, "auth:\n  enabled: true\n  rootPassword: «v»\n  database: «db»\n  username: «user»\nprimary:\n  persistence:\n    size: 20Gi",
      source="Helm values (Bitnami chart auth block)"),
    K("helm-values-grafana", "config", any_pw, "grafana:\n  adminUser: admin\n  adminPassword: '«v»'\n  ingress:\n    enabled: true",
      source="kube-prometheus-stack values grafana.adminPassword"),
    K("gha-workflow-env", "config", any_pw,
      "jobs:\n  integration:\n    runs-on: ubuntu-latest\n    services:\n      postgres:\n        image: postgres:16\n        env:\n          POSTGRES_PASSWORD: «v»\n    steps:\n      - uses: actions/checkout@v4",
      source="GitHub Actions service container env"),
    K("gha-docker-login-with", "config", tok("dckr_pat_", (B64URL, 27)),
      "      - uses: docker/login-action@v3\n        with:\n          username: «user»\n          password: «v»",
      source="GitHub Actions docker/login-action with"),
    K("gitlab-ci-variables", "config", any_pw, "variables:\n  POSTGRES_DB: «db»\n  POSTGRES_USER: «user»\n  POSTGRES_PASSWORD: \"«v»\"\n\ntest:\n  services:\n    - postgres:16\n  script:\n    - pytest -q",
      source=".gitlab-ci.yml variables"),
    K("circleci-environment", "config", any_pw, "jobs:\n  build:\n    docker:\n      - image: cimg/python:3.12\n      - image: cimg/postgres:16.4\n        environment:\n          POSTGRES_PASSWORD: «v»",
      source=".circleci/config.yml environment"),
    K("jenkinsfile-environment", "config", tok((HEX, 34)), "pipeline {\n  agent any\n  environment {\n    SONAR_TOKEN = '«v»'\n  }\n  stages {\n    stage('Scan') { steps { sh 'mvn sonar:sonar' } }\n  }\n}",
      source="Jenkinsfile environment block"),
    K("azure-pipelines-variables", "config", any_pw, "variables:\n  buildConfiguration: 'Release'\n  sqlAdminPassword: '«v»'\nsteps:\n- script: dotnet build --configuration $(buildConfiguration)",
      source="azure-pipelines.yml variables"),
    K("bitbucket-pipelines", "config", any_pw, "definitions:\n  services:\n    mysql:\n      image: mysql:8\n      variables:\n        MYSQL_DATABASE: «db»\n        MYSQL_ROOT_PASSWORD: '«v»'",
      source="bitbucket-pipelines.yml service variables"),
    K("drone-yml", "config", any_pw, "kind: pipeline\nname: default\nsteps:\n- name: publish\n  image: plugins/docker\n  settings:\n    repo: «org»/«app»\n    username: «user»\n    password: «v»",
      source=".drone.yml plugin settings"),
    K("systemd-environment", "config", any_pw, "[Unit]\nDescription=«app» worker\n\n[Service]\nUser=«app»\nEnvironment=PGPASSWORD=«v»\nExecStart=/opt/«app»/bin/worker\nRestart=always",
      source="systemd unit Environment="),
    K("nginx-set-header", "config", tok((ALNUM, 40)), "location /api/ {\n    proxy_pass http://upstream_api;\n    proxy_set_header X-Api-Key «v»;\n    proxy_set_header Host $host;\n}",
      source="nginx proxy_set_header with an API key"),
    K("apache-ldap-bind", "config", any_pw, '<Location "/private">\n    AuthType Basic\n    AuthBasicProvider ldap\n    AuthLDAPURL "ldap://ldap.«domain»/ou=people,dc=«org»,dc=com?uid"\n    AuthLDAPBindDN "cn=svc-apache,dc=«org»,dc=com"\n    AuthLDAPBindPassword «v»\n</Location>',
      source="Apache mod_authnz_ldap AuthLDAPBindPassword"),
    K("apache-setenv", "config", any_pw, "<VirtualHost *:443>\n    ServerName «app».«domain»\n    SetEnv DB_PASS «v»\n</VirtualHost>",
      source="Apache SetEnv"),
    K("haproxy-stats-auth", "config", plain_pw, "listen stats\n    bind :8404\n    stats enable\n    stats uri /stats\n    stats auth admin:«v»",
      source="HAProxy stats auth user:password"),
    K("ssh-config-proxycommand", "config", shell_pw, "Host «app»-db\n    HostName «ip»\n    User «user»\n    ProxyCommand sshpass -p '«v»' ssh -W %h:%p jump@bastion.«domain»",
      source="~/.ssh/config with sshpass ProxyCommand"),
    K("netrc-machine", "config", any_pw, "machine ftp.«domain»\n  login «user»\n  password «v»\n\nmachine api.«domain» login ci password «alnum:20»",
      source="~/.netrc"),
    K("pgpass-line", "config", lambda r: mixed(r, ALNUM + "!#%*+-.=?@^_~", r.randrange(16, 26)), "«host»:5432:«db»:«user»:«v»", "$ cat ~/.pgpass\n*:*:*:«user»:«v»",
      source="~/.pgpass host:port:db:user:password"),
    K("npmrc-github-packages", "config", tok("ghp_", (ALNUM, 36)), "@«org»:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=«v»\nalways-auth=true",
      source=".npmrc GitHub Packages"),
    K("yarnrc-yml", "config", tok("npm_", (ALNUM, 36)), 'npmScopes:\n  «org»:\n    npmRegistryServer: "https://registry.npmjs.org"\n    npmAuthToken: "«v»"',
      source=".yarnrc.yml npmScopes npmAuthToken"),
    K("bunfig-scope-token", "config", tok((ALNUM, 40)), '[install.scopes]\n"@«org»" = { token = "«v»", url = "https://npm.«domain»/" }',
      source="bunfig.toml install.scopes token"),
    K("pip-conf-index", "config", url_pw, "[global]\nindex-url = https://«user»:«v»@nexus.«domain»/repository/pypi/simple\ntrusted-host = nexus.«domain»",
      source="pip.conf index-url with credentials"),
    K("uv-toml-index", "config", url_pw, '[[index]]\nname = "corp"\nurl = "https://«user»:«v»@pypi.«domain»/simple/"\ndefault = true',
      source="uv.toml / pyproject [[tool.uv.index]] with credentials"),
    K("cargo-credentials-registries", "config", tok((ALNUM, 40)), '[registries.«org»]\ntoken = "Bearer «v»"',
      source="~/.cargo/credentials.toml alternate registry"),
    K("bundler-config", "config", lambda r: f"{rs(r, HEX, 8)}:{rs(r, HEX, 8)}{rs(r, HEX, 8)}", '---\nBUNDLE_GEMS__CONTRIBSYS__COM: "«v»"\nBUNDLE_PATH: "vendor/bundle"',
      source="~/.bundle/config gem source credentials"),
    K("conda-channel-alias", "config", url_pw, "channels:\n  - defaults\nchannel_alias: https://«user»:«v»@conda.«domain»\nssl_verify: true",
      source=".condarc channel_alias with credentials"),
    K("redis-conf-requirepass", "config", any_pw, "bind 0.0.0.0\nprotected-mode yes\nport 6379\nrequirepass «v»\nmasterauth «v»",
      source="redis.conf requirepass/masterauth"),
    K("pgbouncer-userlist", "config", any_pw, '"«user»" "«v»"\n"pgbouncer" "md5«hex:32»"',
      source="pgbouncer userlist.txt"),
    K("prometheus-basic-auth", "config", any_pw, "scrape_configs:\n  - job_name: node\n    basic_auth:\n      username: prometheus\n      password: «v»\n    static_configs:\n      - targets: ['«ip»:9100']",
      source="prometheus.yml basic_auth"),
    K("alertmanager-smtp", "config", any_pw, "global:\n  smtp_smarthost: 'smtp.gmail.com:587'\n  smtp_from: 'alerts@«domain»'\n  smtp_auth_username: 'alerts@«domain»'\n  smtp_auth_password: '«v»'",
      source="alertmanager.yml smtp_auth_password"),
    K("logstash-output", "config", any_pw, 'output {\n  elasticsearch {\n    hosts => ["https://es.«domain»:9200"]\n    user => "logstash_writer"\n    password => "«v»"\n  }\n}',
      source="Logstash pipeline elasticsearch output"),
    K("filebeat-output", "config", any_pw, 'output.elasticsearch:\n  hosts: ["https://«host»:9200"]\n  username: "filebeat_internal"\n  password: "«v»"',
      source="filebeat.yml output.elasticsearch"),
    K("fluentbit-http", "config", any_pw, "[OUTPUT]\n    Name        http\n    Match       *\n    Host        logs.«domain»\n    HTTP_User   fluent\n    HTTP_Passwd «v»",
      source="fluent-bit.conf HTTP_Passwd"),
    K("postfix-sasl-passwd", "config", lambda r: " ".join(rs(r, LOWER, 4) for _ in range(4)), "[smtp.gmail.com]:587 «email»:«v»",
      source="/etc/postfix/sasl_passwd with a Google app password (4x4 letters)"),
    K("msmtprc", "config", any_pw, "account default\nhost smtp.fastmail.com\nport 465\ntls on\nauth on\nuser «email»\npassword «v»",
      source="~/.msmtprc"),
    K("muttrc-pass", "config", any_pw, 'set imap_user = "«email»"\nset imap_pass = "«v»"\nset smtp_url = "smtps://«email»@smtp.«domain»:465/"',
      source="~/.muttrc imap_pass"),
    K("fetchmailrc", "config", any_pw, 'poll imap.«domain» protocol IMAP\n    user "«email»" there with password "«v»" is «user» here\n    ssl',
      source="~/.fetchmailrc"),
    K("openvpn-auth-file", "config", any_pw, "$ cat /etc/openvpn/client/auth.txt\n«user»\n«v»", source="OpenVPN auth-user-pass file"),
    K("wpa-supplicant", "config", human_pw, 'network={\n    ssid="«org»-guest"\n    psk="«v»"\n    key_mgmt=WPA-PSK\n}',
      source="wpa_supplicant.conf psk"),
    K("nmconnection-psk", "config", human_pw, "[wifi]\nmode=infrastructure\nssid=«org»-corp\n\n[wifi-security]\nkey-mgmt=wpa-psk\npsk=«v»",
      source="NetworkManager .nmconnection"),
    K("cifs-credentials", "config", any_pw, "username=«user»\npassword=«v»\ndomain=CORP", "//nas.home.arpa/share /mnt/share cifs username=«user»,password=«v»,uid=1000 0 0",
      source="mount.cifs credentials file / fstab"),
    K("ipsec-secrets", "config", any_pw, '%any %any : PSK "«v»"', source="strongSwan ipsec.secrets PSK"),
    K("home-assistant-secrets", "config", any_pw, "# secrets.yaml\nwifi_ssid: «org»-iot\nwifi_password: «v»\nmqtt_password: «alnum:16»",
      source="Home Assistant / ESPHome secrets.yaml"),
    K("esphome-api-key", "config", b64raw(32), 'api:\n  encryption:\n    key: "«v»"\nota:\n  - platform: esphome\n    password: "«hex:32»"',
      source="ESPHome api.encryption.key (base64 32 bytes)"),
    K("synapse-shared-secret", "config", alnum(50), "registration_shared_secret: «v»\nmacaroon_secret_key: «alnum:50»\nform_secret: «alnum:50»",
      source="Synapse homeserver.yaml"),
    K("gitlab-rb-smtp", "config", any_pw, "gitlab_rails['smtp_enable'] = true\ngitlab_rails['smtp_address'] = \"smtp.sendgrid.net\"\ngitlab_rails['smtp_user_name'] = \"apikey\"\ngitlab_rails['smtp_password'] = \"«v»\"",
      source="/etc/gitlab/gitlab.rb smtp_password"),
    K("php-fpm-env", "config", any_pw, "[www]\nuser = www-data\nenv[DB_PASSWORD] = «v»\nenv[APP_ENV] = production", source="php-fpm pool env[]"),
    K("code-server-config", "config", hexs(24), "bind-addr: 127.0.0.1:8080\nauth: password\npassword: «v»\ncert: false",
      source="~/.config/code-server/config.yaml (generated password)"),
    K("ansible-inventory-vars", "config", any_pw, "[web]\n«ip» ansible_user=«user» ansible_password=«v» ansible_become_pass=«v»",
      source="Ansible INI inventory host vars"),
    K("ansible-group-vars-yaml", "config", any_pw, "---\nmysql_root_password: \"«v»\"\nmysql_databases:\n  - name: «db»", source="Ansible group_vars YAML"),
    K("bicep-parameters", "config", any_pw, '{\n  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#",\n  "parameters": {\n    "adminPassword": { "value": "«v»" },\n    "adminUsername": { "value": "«user»" }\n  }\n}',
      source="ARM/Bicep parameters file"),
    K("serverless-yml-env", "config", tok((ALNUM, 32)), "provider:\n  name: aws\n  runtime: nodejs20.x\n  environment:\n    PAYMENT_PROVIDER_SECRET: «v»\n    STAGE: ${sls:stage}",
      source="serverless.yml provider.environment"),
    K("wrangler-toml-vars", "config", tok((ALNUM, 40)), 'name = "«app»"\nmain = "src/index.ts"\n[vars]\nUPSTREAM_API_TOKEN = "«v»"',
      source="wrangler.toml [vars] (plain text, not a secret binding)"),
    K("fly-toml-env", "config", any_pw, 'app = "«app»"\nprimary_region = "ams"\n[env]\n  ADMIN_PASSWORD = "«v»"', source="fly.toml [env]"),
    K("dockerfile-arg", "config", tok((ALNUM, 40)), "FROM node:22-alpine\nARG NPM_TOKEN=«v»\nRUN echo \"//registry.npmjs.org/:_authToken=${NPM_TOKEN}\" > .npmrc && npm ci",
      source="Dockerfile ARG default"),
    K("docker-daemon-registry-mirror", "config", url_pw, '{\n  "registry-mirrors": ["https://«user»:«v»@mirror.«domain»"]\n}', source="/etc/docker/daemon.json mirror with credentials"),
    K("mongod-keyfile", "config", lambda r: b64_of(rbytes(r, 96)), "$ openssl rand -base64 756 > /etc/mongo/keyfile\n$ head -c 128 /etc/mongo/keyfile\n«v»",
      source="MongoDB replica set keyfile"),
    K("vapid-private-key", "config", b64raw(32, url=True, pad=False), "VAPID_PUBLIC_KEY=B«alnum:86»\nVAPID_PRIVATE_KEY=«v»\nVAPID_SUBJECT=mailto:ops@«domain»",
      source="Web Push VAPID key pair (web-push generate-vapid-keys)"),
    K("liquibase-properties", "config", any_pw, "changeLogFile=db/changelog/db.changelog-master.yaml\nurl=jdbc:postgresql://«host»:5432/«db»\nusername=«user»\npassword=«v»",
      source="liquibase.properties"),
    K("flyway-conf", "config", any_pw, "flyway.url=jdbc:sqlserver://«host»:1433;databaseName=«db»\nflyway.user=«user»\nflyway.password=«v»", source="flyway.conf"),
    K("dbt-profiles", "config", any_pw, "«app»:\n  target: prod\n  outputs:\n    prod:\n      type: snowflake\n      account: «lower:7».«region»\n      user: «user»\n      password: «v»\n      warehouse: TRANSFORMING",
      source="dbt ~/.dbt/profiles.yml"),
    K("airflow-connection-env", "config", url_pw, "AIRFLOW_CONN_WAREHOUSE='postgres://«user»:«v»@«host»:5432/«db»'", source="Airflow AIRFLOW_CONN_* URI env"),
]

# --------------------------------------------------------------------------------------------
# command lines
# --------------------------------------------------------------------------------------------

CLI = [
    K("mysql-p-attached", "cli", plain_pw, "mysql -h «host» -u «user» -p«v» «db» -e 'SELECT COUNT(*) FROM orders'",
      "$ mysql -u root -p«v»\nmysql: [Warning] Using a password on the command line interface can be insecure.\nWelcome to the MySQL monitor.  Commands end with ; or \\g.",
      source="mysql(1) -p<password> attached"),
    K("mysqldump-password-eq", "cli", shell_pw, "mysqldump --user=«user» --password='«v»' --single-transaction --routines «db» | gzip > /backups/«db»-«date».sql.gz",
      source="mysqldump --password="),
    K("pgpassword-prefix", "cli", shell_pw, "PGPASSWORD='«v»' psql -h «host» -U «user» -d «db» -c '\\dt'",
      "PGPASSWORD='«v»' pg_dump -Fc -h «host» -U «user» «db» > «db».dump", source="libpq PGPASSWORD env prefix"),
    K("psql-conninfo", "cli", plain_pw, 'psql "host=«host» port=5432 dbname=«db» user=«user» password=«v» sslmode=require"',
      source="psql conninfo string"),
    K("mongosh-password", "cli", shell_pw, "mongosh --host «host» --username «user» --password '«v»' --authenticationDatabase admin",
      source="mongosh --password"),
    K("redis-cli-a", "cli", plain_pw, "redis-cli -h «host» -p 6379 -a «v» --no-auth-warning INFO replication",
      "REDISCLI_AUTH=«v» redis-cli -h «host» KEYS 'session:*'", source="redis-cli -a / REDISCLI_AUTH"),
    K("docker-login-p", "cli", plain_pw, "docker login registry.«domain» -u «user» -p «v»",
      "$ docker login -u «user» -p «v» harbor.«domain»\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded", source="docker login -p"),
    K("docker-run-env-password", "cli", shell_pw, "docker run -d --name pg -e POSTGRES_PASSWORD='«v»' -p 5432:5432 postgres:16",
      source="docker run -e POSTGRES_PASSWORD"),
    K("kubectl-from-literal", "cli", shell_pw, "kubectl -n «ns» create secret generic «app»-db --from-literal=username=«user» --from-literal=password='«v»'",
      source="kubectl create secret generic --from-literal"),
    K("kubectl-docker-registry", "cli", plain_pw, "kubectl create secret docker-registry regcred --docker-server=registry.«domain» --docker-username=«user» --docker-password=«v» --docker-email=«email»",
      source="kubectl create secret docker-registry"),
    K("helm-set-password", "cli", plain_pw, "helm upgrade --install «app»-db oci://registry-1.docker.io/bitnamicharts/postgresql --set auth.postgresPassword=«v» --set auth.database=«db» -n «ns»",
      source="helm --set auth.postgresPassword"),
    K("helm-repo-add-creds", "cli", plain_pw, "helm repo add internal https://charts.«domain» --username «user» --password «v»", source="helm repo add --password"),
    K("htpasswd-b", "cli", shell_pw, "htpasswd -b -c /etc/nginx/.htpasswd «user» '«v»'", source="htpasswd -b batch mode"),
    K("openssl-pass-arg", "cli", shell_pw, "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:'«v»'",
      "openssl enc -aes-256-cbc -pbkdf2 -salt -in backup.tar -out backup.tar.enc -pass pass:'«v»'", source="openssl -passout pass: / -pass pass:"),
    K("keytool-storepass", "cli", plain_pw, "keytool -importkeystore -srckeystore bundle.p12 -srcstoretype PKCS12 -destkeystore app.jks -srcstorepass «v» -deststorepass «v»",
      source="keytool -storepass"),
    K("zip-P", "cli", plain_pw, "zip -r -P «v» exports-«date».zip exports/", "7z a -p«v» -mhe=on secrets.7z ./secrets", source="zip -P / 7z -p"),
    K("gpg-passphrase", "cli", shell_pw, "gpg --batch --yes --pinentry-mode loopback --passphrase '«v»' -d vault.tar.gpg | tar x",
      source="gpg --passphrase"),
    K("sshpass-p", "cli", shell_pw, "sshpass -p '«v»' ssh -o StrictHostKeyChecking=no «user»@«ip» 'sudo systemctl restart «app»'",
      "sshpass -p '«v»' scp dump.sql «user»@«ip»:/tmp/", source="sshpass -p"),
    K("curl-u-userpass", "cli", shell_pw, "curl -u '«user»:«v»' -X POST https://jenkins.«domain»/job/«app»/build",
      source="curl -u user:password"),
    K("wget-http-password", "cli", plain_pw, "wget --http-user=«user» --http-password=«v» https://files.«domain»/exports/latest.csv", source="wget --http-password"),
    K("git-clone-token-url", "cli", tok("glpat-", (B64URL, 20)), "git clone https://oauth2:«v»@gitlab.«domain»/«org»/«app».git", source="git clone with oauth2:<token>@ (GitLab)"),
    K("git-credentials-store", "cli", tok("ghp_", (ALNUM, 36)), "git config --global credential.helper store\necho 'https://«user»:«v»@github.com' >> ~/.git-credentials",
      source="git-credential-store ~/.git-credentials"),
    K("poetry-http-basic", "cli", plain_pw, "poetry config http-basic.corp «user» «v»", source="poetry config http-basic"),
    K("poetry-pypi-token", "cli", tok("pypi-AgEIcHlwaS5vcmcCJD", (B64URL, 120)), "poetry config pypi-token.pypi «v»", source="poetry config pypi-token"),
    K("dotnet-nuget-add-source", "cli", plain_pw, "dotnet nuget add source https://nuget.«domain»/v3/index.json -n corp -u «user» -p «v» --store-password-in-clear-text",
      source="dotnet nuget add source -p"),
    K("mvn-d-password", "cli", plain_pw, "mvn -B deploy -DaltDeploymentRepository=corp::https://nexus.«domain»/repository/releases -Drepo.user=«user» -Drepo.password=«v»",
      source="mvn -D property password"),
    K("gradle-p-property", "cli", plain_pw, "./gradlew publish -PsigningPassword=«v» -PossrhPassword=«alnum:20»", source="gradle -P project property"),
    K("ansible-extra-vars", "cli", shell_pw, "ansible-playbook -i inventory/prod site.yml -e 'ansible_become_pass=«v»' --limit web",
      source="ansible-playbook -e become pass"),
    K("vault-kv-put", "cli", shell_pw, "vault kv put secret/«app»/db username=«user» password='«v»'", source="vault kv put"),
    K("vault-login-token", "cli", tok("hvs.", (B64URL, 24)), "vault login «v»", "$ vault login «v»\nSuccess! You are now authenticated.", source="vault login <token>"),
    K("terraform-var", "cli", shell_pw, "terraform apply -auto-approve -var 'db_password=«v»' -var-file=prod.tfvars", source="terraform -var"),
    K("pulumi-config-secret", "cli", shell_pw, "pulumi config set --secret dbPassword '«v»' --stack prod", source="pulumi config set --secret (plaintext on the command line)"),
    K("az-sql-admin-password", "cli", shell_pw, "az sql server create -g «app»-rg -n «app»-sql -l westeurope -u «user» -p '«v»'", source="az sql server create -p"),
    K("aws-rds-master-password", "cli", plain_pw, "aws rds create-db-instance --db-instance-identifier «app»-db --engine postgres --master-username «user» --master-user-password «v» --allocated-storage 20",
      source="aws rds --master-user-password"),
    K("smbclient-U", "cli", plain_pw, "smbclient //fileserver/finance -U 'CORP\\«user»%«v»' -c 'ls'", source="smbclient -U user%password"),
    K("xfreerdp-p", "cli", plain_pw, "xfreerdp /v:«ip» /u:Administrator /p:«v» /cert:ignore /dynamic-resolution", source="xfreerdp /p:"),
    K("net-use", "cli", plain_pw, "net use Z: \\\\fs01\\projects «v» /user:CORP\\«user» /persistent:no", source="Windows net use"),
    K("mount-cifs-o", "cli", plain_pw, "sudo mount -t cifs //nas.home.arpa/media /mnt/media -o username=«user»,password=«v»,vers=3.0", source="mount -t cifs -o password="),
    K("ldapsearch-w", "cli", shell_pw, "ldapsearch -x -H ldaps://ldap.«domain» -D 'cn=admin,dc=«org»,dc=com' -w '«v»' -b 'ou=people,dc=«org»,dc=com' '(uid=«user»)'",
      source="ldapsearch -w"),
    K("rsync-password-env", "cli", plain_pw, "RSYNC_PASSWORD=«v» rsync -avz --delete ./public/ rsync://«user»@«host»/www/", source="rsync RSYNC_PASSWORD"),
    K("lftp-u", "cli", plain_pw, "lftp -u «user»,«v» sftp://«host» -e 'mirror -R dist /var/www/html; quit'", source="lftp -u user,password"),
    K("sqlcmd-P", "cli", shell_pw, "sqlcmd -S «host»,1433 -U sa -P '«v»' -Q 'SELECT name FROM sys.databases'", source="sqlcmd -P"),
    K("sqlplus-userpass", "cli", plain_pw, "sqlplus «user»/«v»@//«host»:1521/ORCLPDB1 @migrate.sql", source="sqlplus user/password@connect"),
    K("clickhouse-client-password", "cli", plain_pw, "clickhouse-client --host «host» --secure --user «user» --password «v» --query 'SHOW TABLES'", source="clickhouse-client --password"),
    K("cqlsh-p", "cli", plain_pw, "cqlsh «ip» 9042 -u cassandra -p «v»", source="cqlsh -p"),
    K("rabbitmqctl-add-user", "cli", shell_pw, "rabbitmqctl add_user «user» '«v»' && rabbitmqctl set_permissions -p / «user» '.*' '.*' '.*'", source="rabbitmqctl add_user"),
    K("mosquitto-pub-P", "cli", plain_pw, "mosquitto_pub -h broker.iot.example.org -p 8883 -u «user» -P «v» -t sensors/temp -m 21.5", source="mosquitto_pub -P"),
    K("influx-setup", "cli", plain_pw, "influx setup --username admin --password «v» --org «org» --bucket metrics --retention 30d --force", source="influx setup --password"),
    K("mc-alias-set", "cli", plain_pw, "mc alias set minio http://«ip»:9000 «user» «v»", source="MinIO mc alias set <access> <secret>"),
    K("restic-password-env", "cli", shell_pw, "RESTIC_PASSWORD='«v»' restic -r s3:s3.amazonaws.com/«app»-backups backup /srv/data", source="restic RESTIC_PASSWORD"),
    K("borg-passphrase", "cli", shell_pw, "export BORG_PASSPHRASE='«v»'\nborg create --stats ssh://«user»@backup.«domain»/./repo::{hostname}-{now} /etc /home", source="borg BORG_PASSPHRASE"),
    K("sudo-S-echo", "cli", shell_pw, "echo '«v»' | sudo -S apt-get install -y postgresql-client", source="echo password | sudo -S"),
    K("expect-send", "cli", any_pw, 'spawn ssh «user»@«ip»\nexpect "password:"\nsend "«v»\\r"\ninteract', source="expect script send"),
    K("nmcli-wifi-password", "cli", human_pw, "nmcli dev wifi connect «org»-guest password '«v»'", source="nmcli dev wifi connect password"),
    K("ssh-keygen-N", "cli", shell_pw, "ssh-keygen -t ed25519 -C «email» -N '«v»' -f ~/.ssh/id_deploy", source="ssh-keygen -N passphrase"),
    K("wp-cli-user-pass", "cli", shell_pw, "wp user create «user» «email» --role=administrator --user_pass='«v»'", source="wp-cli --user_pass"),
    K("rails-runner-password", "cli", any_pw, "bin/rails runner 'User.find_by!(email: \"«email»\").update!(password: \"«v»\")'", source="rails runner set a password"),
    K("django-shell-set-password", "cli", any_pw, "python manage.py shell -c \"from django.contrib.auth.models import User; u=User.objects.get(username='«user»'); u.set_password('«v»'); u.save()\"",
      source="manage.py shell set_password"),
    K("createsuperuser-env", "cli", shell_pw, "DJANGO_SUPERUSER_PASSWORD='«v»' python manage.py createsuperuser --noinput --username admin --email «email»",
      source="DJANGO_SUPERUSER_PASSWORD"),
    K("snowsql-env", "cli", shell_pw, "SNOWSQL_PWD='«v»' snowsql -a «lower:7».«region» -u «user» -d ANALYTICS -q 'select current_version()'", source="SNOWSQL_PWD"),
    K("az-storage-connection", "cli", tok((B64, 86), "=="), 'az storage container list --connection-string "DefaultEndpointsProtocol=https;AccountName=«app»data;AccountKey=«v»;EndpointSuffix=core.windows.net"',
      source="az --connection-string AccountKey"),
    K("gh-secret-set-stdin", "cli", any_pw, "gh secret set DB_PASSWORD --env production <<'EOF'\n«v»\nEOF", source="heredoc into gh secret set"),
    K("heredoc-env-file", "cli", any_pw, "cat > .env <<EOF\nDATABASE_URL=postgres://«user»@«host»/«db»\nDATABASE_PASSWORD=«v»\nEOF", source="heredoc writing .env"),
    K("psexec-p", "cli", plain_pw, "PsExec.exe \\\\«ip» -u CORP\\«user» -p «v» cmd /c ipconfig", source="Sysinternals PsExec -p"),
    K("runas-savecred-cmdkey", "cli", plain_pw, "cmdkey /generic:TERMSRV/«ip» /user:CORP\\«user» /pass:«v»", source="Windows cmdkey /pass:"),
    K("powershell-securestring", "cli", shell_pw, "$pw = ConvertTo-SecureString '«v»' -AsPlainText -Force; $cred = New-Object PSCredential('CORP\\«user»', $pw); Enter-PSSession -ComputerName «app»01 -Credential $cred",
      source="PowerShell ConvertTo-SecureString -AsPlainText"),
    K("iwctl-passphrase", "cli", human_pw, "iwctl --passphrase '«v»' station wlan0 connect «org»-5G", source="iwctl --passphrase"),
    K("openssl-passwd", "cli", shell_pw, "openssl passwd -6 '«v»'", source="openssl passwd (the plaintext as an argument)"),
    K("jq-write-secret", "cli", tok((ALNUM, 32)), "jq '.auth.apiSecret = \"«v»\"' config.json > config.tmp && mv config.tmp config.json", source="jq rewriting a config"),
    K("sed-replace-password", "cli", any_pw, "sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=«v»/' /etc/«app»/env", source="sed -i setting a password"),
    K("s3cmd-flags", "cli", tok((B64, 40)), "s3cmd --access_key=«akid» --secret_key=«v» ls s3://«app»-assets", source="s3cmd --secret_key"),
    K("rclone-inline-remote", "cli", tok((B64, 40)), "rclone copy ./dist :s3,provider=AWS,access_key_id=«akid»,secret_access_key=«v»:«app»-static/", source="rclone connection string remote"),
    K("grpcurl-header", "cli", tok((B64URL, 40)), "grpcurl -H 'authorization: Bearer «v»' -d '{\"id\": «num:5»}' api.«domain»:443 orders.v1.Orders/Get", source="grpcurl -H"),
    K("httpie-auth", "cli", shell_pw, "http -a «user»:'«v»' POST https://api.«domain»/v1/jobs name=reindex", source="HTTPie -a user:password"),
    K("nats-creds-flags", "cli", plain_pw, "nats --server nats://«host»:4222 --user «user» --password «v» pub orders.created '{}'", source="nats CLI --password"),
    K("kafka-cli-config", "cli", any_pw, "kafka-topics.sh --bootstrap-server «host»:9093 --list --command-config <(printf 'security.protocol=SASL_SSL\\nsasl.mechanism=PLAIN\\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"«user»\" password=\"«v»\";\\n')",
      source="kafka CLI --command-config process substitution"),
]

# --------------------------------------------------------------------------------------------
# code
# --------------------------------------------------------------------------------------------

CODE = [
    K("py-psycopg-connect", "code", any_pw, 'conn = psycopg2.connect(host="«host»", dbname="«db»", user="«user»", password="«v»", connect_timeout=5)',
      source="Python psycopg2.connect keyword password"),
    K("py-boto3-client", "code", tok((B64, 40)), 's3 = boto3.client(\n    "s3",\n    aws_access_key_id="«akid»",\n    aws_secret_access_key="«v»",\n    region_name="«region»",\n)',
      source="Python boto3 client with static keys"),
    K("py-requests-auth-tuple", "code", any_pw, 'resp = requests.get(f"{BASE}/api/v2/export", auth=("«user»", "«v»"), timeout=30)', source="Python requests auth tuple"),
    K("py-smtplib-login", "code", any_pw, 'with smtplib.SMTP_SSL("smtp.«domain»", 465) as s:\n    s.login("«email»", "«v»")\n    s.send_message(msg)', source="Python smtplib login"),
    K("py-flask-secret", "code", alnum(48), "app = Flask(__name__)\napp.config['SECRET_KEY'] = '«v»'\napp.config['SESSION_COOKIE_SECURE'] = True", source="Flask SECRET_KEY"),
    K("py-jwt-encode", "code", alnum(40), 'token = jwt.encode({"sub": user.id, "exp": exp}, "«v»", algorithm="HS256")', source="PyJWT encode with an inline key"),
    K("py-pydantic-default", "code", any_pw, 'class Settings(BaseSettings):\n    db_user: str = "«user»"\n    db_password: SecretStr = SecretStr("«v»")\n    model_config = SettingsConfigDict(env_file=".env")',
      source="pydantic-settings default"),
    K("py-redis-password", "code", any_pw, 'r = redis.Redis(host="«host»", port=6379, password="«v»", ssl=True)', source="redis-py password"),
    K("py-paramiko-connect", "code", any_pw, 'client = paramiko.SSHClient()\nclient.set_missing_host_key_policy(paramiko.AutoAddPolicy())\nclient.connect("«ip»", username="«user»", password="«v»")',
      source="paramiko connect password"),
    K("py-ldap3-bind", "code", any_pw, "conn = Connection(Server('ldaps://ldap.«domain»'), 'cn=svc-sync,ou=svc,dc=«org»,dc=com', '«v»', auto_bind=True)", source="ldap3 Connection"),
    K("py-sqlalchemy-url-object", "code", any_pw, 'url = URL.create("postgresql+psycopg", username="«user»", password="«v»", host="«host»", database="«db»")', source="SQLAlchemy URL.create"),
    K("py-fernet-key", "code", b64raw(32, url=True), 'FERNET_KEY = b"«v»"\ncipher = Fernet(FERNET_KEY)', source="cryptography Fernet key"),
    K("py-dict-config", "code", tok((ALNUM, 32)), 'CONFIG = {\n    "api_base": "https://api.«domain»/v1",\n    "client_id": "«alnum:20»",\n    "client_secret": "«v»",\n}', source="Python dict config"),
    K("js-pg-pool", "code", any_pw, "const pool = new Pool({\n  host: '«host»',\n  user: '«user»',\n  password: '«v»',\n  database: '«db»',\n  max: 10,\n});", source="node-postgres Pool"),
    K("js-nodemailer", "code", any_pw, "const transporter = nodemailer.createTransport({\n  host: 'smtp.«domain»',\n  port: 587,\n  auth: { user: '«email»', pass: '«v»' },\n});", source="nodemailer auth.pass"),
    K("js-express-session", "code", alnum(40), "app.use(session({ secret: '«v»', resave: false, saveUninitialized: false, cookie: { secure: true } }));", source="express-session secret"),
    K("js-jwt-sign", "code", alnum(40), "const token = jwt.sign({ uid: user.id }, '«v»', { expiresIn: '7d' });", source="jsonwebtoken sign"),
    K("js-axios-header", "code", tok((B64URL, 48)), "const api = axios.create({\n  baseURL: 'https://api.«domain»',\n  headers: { Authorization: `Bearer «v»` },\n});", source="axios default headers"),
    K("js-fetch-apikey", "code", tok((ALNUM, 36)), "const res = await fetch(`https://api.«domain»/v1/search?q=${q}`, { headers: { 'x-api-key': '«v»' } });", source="fetch with x-api-key"),
    K("ts-config-object", "code", any_pw, "export const config: AppConfig = {\n  db: { host: '«host»', user: '«user»', password: '«v»' },\n  port: «port»,\n};", source="TypeScript typed config object"),
    K("ts-prisma-datasource", "code", url_pw, 'datasource db {\n  provider = "postgresql"\n  url      = "postgresql://«user»:«v»@«host»:5432/«db»?schema=public"\n}', source="schema.prisma datasource url"),
    K("go-sql-open", "code", url_pw, 'db, err := sql.Open("mysql", "«user»:«v»@tcp(«host»:3306)/«db»?parseTime=true")', source="Go database/sql DSN"),
    K("go-redis-options", "code", any_pw, 'rdb := redis.NewClient(&redis.Options{\n\tAddr:     "«host»:6379",\n\tPassword: "«v»",\n\tDB:       0,\n})', source="go-redis Options.Password"),
    K("go-jwt-key", "code", alnum(40), 'var jwtKey = []byte("«v»")\n\nfunc sign(c Claims) (string, error) {\n\treturn jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(jwtKey)\n}', source="golang-jwt signing key"),
    K("go-smtp-plainauth", "code", any_pw, 'auth := smtp.PlainAuth("", "«email»", "«v»", "smtp.«domain»")', source="Go net/smtp PlainAuth"),
    K("rust-const-secret", "code", tok((ALNUM, 40)), 'const API_SECRET: &str = "«v»";\n\nfn client() -> reqwest::Client {\n    reqwest::Client::new()\n}', source="Rust const &str"),
    K("rust-sqlx-connect", "code", url_pw, 'let pool = PgPoolOptions::new()\n    .max_connections(5)\n    .connect("postgres://«user»:«v»@«host»/«db»")\n    .await?;', source="sqlx connect URL"),
    K("rust-aws-credentials", "code", tok((B64, 40)), 'let creds = Credentials::new("«akid»", "«v»", None, None, "static");', source="aws-sdk-rust Credentials::new"),
    K("java-drivermanager", "code", any_pw, 'Connection conn = DriverManager.getConnection("jdbc:postgresql://«host»:5432/«db»", "«user»", "«v»");', source="JDBC DriverManager.getConnection"),
    K("java-keystore-load", "code", plain_pw, 'KeyStore ks = KeyStore.getInstance("PKCS12");\nks.load(new FileInputStream("client.p12"), "«v»".toCharArray());', source="java.security.KeyStore load password"),
    K("java-static-final", "code", tok((ALNUM, 32)), 'public final class ApiConfig {\n    private static final String CLIENT_SECRET = "«v»";\n}', source="Java static final constant"),
    K("kotlin-val-apikey", "code", tok((ALNUM, 39)), 'object Keys {\n    const val WEATHER_API_KEY = "«v»"\n}', source="Kotlin const val"),
    K("kotlin-okhttp-interceptor", "code", tok((B64URL, 40)), '.addInterceptor { chain ->\n    chain.proceed(chain.request().newBuilder().header("Authorization", "Bearer «v»").build())\n}', source="OkHttp interceptor header"),
    K("csharp-networkcredential", "code", any_pw, 'var client = new SmtpClient("smtp.«domain»", 587)\n{\n    Credentials = new NetworkCredential("«email»", "«v»"),\n    EnableSsl = true\n};', source="C# NetworkCredential"),
    K("csharp-connection-string", "code", plain_pw, 'var cs = "Server=«host»;Database=«db»;User Id=«user»;Password=«v»;Encrypt=True";\nawait using var conn = new SqlConnection(cs);', source="C# SqlConnection string"),
    K("php-pdo", "code", any_pw, '$pdo = new PDO("mysql:host=«host»;dbname=«db»;charset=utf8mb4", "«user»", "«v»", [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);', source="PHP PDO constructor"),
    K("php-wp-config", "code", any_pw, "define( 'DB_NAME', '«db»' );\ndefine( 'DB_USER', '«user»' );\ndefine( 'DB_PASSWORD', '«v»' );\ndefine( 'DB_HOST', 'localhost' );", source="wp-config.php DB_PASSWORD"),
    K("php-wp-salts", "code", lambda r: rs(r, ALNUM + "!#%*+-.=?@^_~()[]{}|;:,<>", 64), "define('AUTH_KEY',         '«v»');\ndefine('SECURE_AUTH_KEY',  '«alnum:64»');", source="wp-config.php salts (api.wordpress.org/secret-key)"),
    K("ruby-establish-connection", "code", any_pw, "ActiveRecord::Base.establish_connection(\n  adapter: 'postgresql', host: '«host»', database: '«db»', username: '«user»', password: '«v»'\n)", source="ActiveRecord establish_connection"),
    K("ruby-net-smtp", "code", any_pw, "Net::SMTP.start('smtp.«domain»', 587, '«domain»', '«email»', '«v»', :login) do |smtp|\n  smtp.send_message(msg, from, to)\nend", source="Ruby Net::SMTP.start"),
    K("swift-urlcredential", "code", any_pw, 'let credential = URLCredential(user: "«user»", password: "«v»", persistence: .forSession)', source="Swift URLCredential"),
    K("swift-let-apikey", "code", tok((ALNUM, 40)), 'enum Secrets {\n    static let revenueCatKey = "«v»"\n}', source="Swift static let"),
    K("objc-nsstring-const", "code", tok((ALNUM, 32)), 'static NSString * const kClientSecret = @"«v»";', source="Objective-C NSString constant"),
    K("elixir-repo-config", "code", any_pw, 'config :«app», «app».Repo,\n  username: "«user»",\n  password: "«v»",\n  hostname: "«host»",\n  pool_size: 10', source="Elixir Ecto Repo config"),
    K("elixir-secret-key-base", "code", lambda r: mixed(r, B64, 64), 'config :«app», «app»Web.Endpoint,\n  secret_key_base: "«v»"', source="Phoenix secret_key_base"),
    K("scala-play-secret", "code", alnum(48), 'play.http.secret.key = "«v»"\nslick.dbs.default.db.password = "«alnum:16»"', source="Play application.conf"),
    K("dart-const", "code", tok((ALNUM, 40)), "const String kStripeSecret = '«v»';", source="Dart const String"),
    K("lua-openresty-auth", "code", any_pw, 'local red = redis:new()\nlocal ok, err = red:connect("«host»", 6379)\nlocal res, err = red:auth("«v»")', source="OpenResty lua-resty-redis auth"),
    K("perl-dbi-connect", "code", any_pw, 'my $dbh = DBI->connect("dbi:Pg:dbname=«db»;host=«host»", "«user»", "«v»", { RaiseError => 1 });', source="Perl DBI->connect"),
    K("r-dbconnect", "code", any_pw, 'con <- dbConnect(RPostgres::Postgres(), dbname = "«db»", host = "«host»", user = "«user»", password = "«v»")', source="R DBI dbConnect"),
    K("julia-libpq", "code", plain_pw, 'conn = LibPQ.Connection("host=«host» dbname=«db» user=«user» password=«v»")', source="Julia LibPQ.Connection"),
    K("haskell-postgresql-simple", "code", plain_pw, 'conn <- connectPostgreSQL "host=«host» dbname=«db» user=«user» password=«v»"', source="Haskell postgresql-simple"),
    K("c-mysql-real-connect", "code", any_pw, 'if (!mysql_real_connect(conn, "«host»", "«user»", "«v»", "«db»", 3306, NULL, 0)) {\n    fprintf(stderr, "%s\\n", mysql_error(conn));\n}', source="C mysql_real_connect"),
    K("c-define-secret", "code", tok((ALNUM, 32)), '#define MQTT_PASSWORD "«v»"\n#define MQTT_BROKER "broker.iot.example.org"', source="C #define in firmware"),
    K("cpp-std-string", "code", tok((B64URL, 40)), 'static const std::string kDeviceToken = "«v»";', source="C++ std::string constant"),
    K("arduino-wifi-begin", "code", human_pw, 'const char* ssid = "«org»-iot";\nconst char* password = "«v»";\n\nvoid setup() {\n  WiFi.begin(ssid, password);\n}', source="Arduino/ESP32 WiFi.begin"),
    K("groovy-jenkins-sh", "code", shell_pw, "stage('Deploy') {\n  steps {\n    sh \"curl -fsS -u deploy:'«v»' -T build/app.war https://tomcat.«domain»/manager/text/deploy?path=/app\"\n  }\n}", source="Jenkinsfile sh with inline credentials"),
    K("clojure-db-spec", "code", any_pw, '(def db {:dbtype "postgresql" :dbname "«db»" :host "«host»" :user "«user»" :password "«v»"})', source="Clojure next.jdbc db-spec"),
    K("fsharp-let", "code", plain_pw, 'let connString = "Host=«host»;Username=«user»;Password=«v»;Database=«db»"', source="F# Npgsql connection string"),
    K("zig-const", "code", tok((ALNUM, 40)), 'const api_token = "«v»";', source="Zig const string"),
    K("vbnet-dim", "code", any_pw, 'Dim smtpPassword As String = "«v»"', source="VB.NET Dim"),
    K("powershell-script-var", "code", any_pw, '$SqlPassword = "«v»"\nInvoke-Sqlcmd -ServerInstance «host» -Username sa -Password $SqlPassword -Query "SELECT 1"', source="PowerShell Invoke-Sqlcmd"),
    K("bash-script-var", "code", shell_pw, "#!/usr/bin/env bash\nset -euo pipefail\nDB_PASS='«v»'\nmysqldump -u«user» -p\"$DB_PASS\" «db» > /backup/«db».sql", source="bash script variable"),
    K("sql-create-user-pg", "code", lambda r: mixed(r, ALNUM + "!#%*+-.=?@^_~", r.randrange(16, 26)), "CREATE ROLE «user» WITH LOGIN PASSWORD '«v»' VALID UNTIL '2027-01-01';", source="PostgreSQL CREATE ROLE PASSWORD"),
    K("sql-alter-user-pg", "code", any_pw, "ALTER USER «user» WITH PASSWORD '«v»';", source="PostgreSQL ALTER USER"),
    K("sql-mysql-identified-by", "code", any_pw, "CREATE USER '«user»'@'%' IDENTIFIED BY '«v»';\nGRANT SELECT ON «db».* TO '«user»'@'%';", source="MySQL IDENTIFIED BY"),
    K("sql-mssql-create-login", "code", any_pw, "CREATE LOGIN [«user»] WITH PASSWORD = N'«v»', CHECK_POLICY = ON;", source="T-SQL CREATE LOGIN"),
    K("sql-oracle-identified", "code", plain_pw, 'ALTER USER app_owner IDENTIFIED BY "«v»" ACCOUNT UNLOCK;', source="Oracle IDENTIFIED BY"),
    K("sql-user-mapping", "code", any_pw, "CREATE USER MAPPING FOR CURRENT_USER SERVER legacy_srv OPTIONS (user '«user»', password '«v»');", source="postgres_fdw user mapping"),
    K("sql-snowflake-user", "code", any_pw, "CREATE USER «user» PASSWORD = '«v»' DEFAULT_ROLE = ANALYST MUST_CHANGE_PASSWORD = FALSE;", source="Snowflake CREATE USER"),
    K("sql-insert-api-key", "code", tok((ALNUM, 40)), "INSERT INTO integrations (name, api_key, created_at) VALUES ('shipping', '«v»', now());", source="SQL seeding an API key"),
    K("tf-db-instance", "code", any_pw, 'resource "aws_db_instance" "main" {\n  identifier        = "«app»-db"\n  engine            = "postgres"\n  username          = "«user»"\n  password          = "«v»"\n  instance_class    = "db.t4g.micro"\n}', source="Terraform aws_db_instance password"),
    K("tf-variable-default", "code", tok((ALNUM, 40)), 'variable "datadog_api_key" {\n  type      = string\n  sensitive = true\n  default   = "«v»"\n}', source="Terraform variable default"),
    K("tf-provider-block", "code", tok((ALNUM, 40)), 'provider "cloudflare" {\n  api_token = "«v»"\n}', source="Terraform provider api_token"),
    K("pulumi-ts-secret", "code", any_pw, 'const db = new aws.rds.Instance("db", {\n    engine: "postgres",\n    username: "«user»",\n    password: "«v»",\n});', source="Pulumi TypeScript resource"),
    K("nix-config-password", "code", any_pw, 'services.grafana.settings.security.admin_password = "«v»";', source="NixOS option with an inline password"),
    K("docker-compose-command-arg", "code", plain_pw, 'command: ["redis-server", "--appendonly", "yes", "--requirepass", "«v»"]', source="compose command with --requirepass"),
    K("makefile-var", "code", plain_pw, "REGISTRY_PASSWORD ?= «v»\n\nlogin:\n\tdocker login -u $(REGISTRY_USER) -p $(REGISTRY_PASSWORD) registry.«domain»", source="Makefile variable"),
    K("jupyter-cell-key", "code", tok("sk-proj-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)), "# In[3]:\nimport os\nos.environ['OPENAI_API_KEY'] = '«v»'", source="notebook cell setting a key"),
]

# --------------------------------------------------------------------------------------------
# URIs and connection strings
# --------------------------------------------------------------------------------------------

URI = [
    K("uri-postgres-sslmode", "uri", url_pw, "DATABASE_URL=postgres://«user»:«v»@«host»:5432/«db»?sslmode=require", "postgresql://«user»:«v»@«host»/«db»",
      source="libpq connection URI"),
    K("uri-postgres-asyncpg", "uri", url_pw, 'SQLALCHEMY_DATABASE_URI = "postgresql+asyncpg://«user»:«v»@«host»:5432/«db»"', source="SQLAlchemy dialect+driver URL"),
    K("uri-mysql-pymysql", "uri", url_pw, "mysql+pymysql://«user»:«v»@«host»:3306/«db»?charset=utf8mb4", source="SQLAlchemy mysql+pymysql"),
    K("uri-mongodb-srv", "uri", url_pw, 'MONGODB_URI="mongodb+srv://«user»:«v»@cluster0.«lower:5».mongodb.net/«db»?retryWrites=true&w=majority&appName=Cluster0"',
      source="MongoDB Atlas SRV connection string"),
    K("uri-redis-default-user", "uri", url_pw, "REDIS_URL=rediss://default:«v»@«lower:8»-«num:5».upstash.io:6379", "redis://:«v»@«host»:6379/2",
      source="Redis URI with password (Upstash / redis-py)"),
    K("uri-amqp", "uri", url_pw, "CELERY_BROKER_URL=amqp://«user»:«v»@«host»:5672/«app»", source="AMQP URI (Celery broker)"),
    K("uri-amqps-cloudamqp", "uri", url_pw, "amqps://«lower:8»:«v»@rat.rmq2.cloudamqp.com/«lower:8»", source="CloudAMQP URL"),
    K("uri-nats", "uri", url_pw, "nats://«user»:«v»@«host»:4222", source="NATS URL with credentials"),
    K("uri-mqtt", "uri", url_pw, "mqtts://«user»:«v»@broker.iot.example.org:8883", source="MQTT URI"),
    K("uri-ftp", "uri", url_pw, "curl -T site.tgz ftp://«user»:«v»@ftp.«domain»/uploads/", source="FTP URL with credentials"),
    K("uri-smtp-email-url", "uri", url_pw, "EMAIL_URL=smtp+tls://«email»:«v»@smtp.«domain»:587", source="django-environ EMAIL_URL"),
    K("uri-https-basic", "uri", url_pw, "https://«user»:«v»@registry.«domain»/v2/_catalog", source="HTTP basic auth in URL"),
    K("uri-pip-git-token", "uri", tok("ghp_", (ALNUM, 36)), "git+https://«v»@github.com/«org»/«app»-sdk.git@v«ver»#egg=«app»-sdk", source="requirements.txt git+https with token"),
    K("uri-jdbc-query-password", "uri", url_pw, "jdbc:postgresql://«host»:5432/«db»?user=«user»&password=«v»&ssl=true", source="JDBC URL with password parameter"),
    K("uri-jdbc-sqlserver", "uri", plain_pw, "jdbc:sqlserver://«host»:1433;databaseName=«db»;user=«user»;password=«v»;encrypt=true", source="JDBC SQL Server URL"),
    K("uri-jdbc-oracle-thin", "uri", plain_pw, "jdbc:oracle:thin:«user»/«v»@//«host»:1521/ORCLPDB1", source="Oracle thin URL user/password"),
    K("uri-clickhouse", "uri", url_pw, "clickhouse://«user»:«v»@«host»:9440/«db»?secure=true", source="ClickHouse URL"),
    K("uri-cockroach", "uri", url_pw, "postgresql://«user»:«v»@«lower:8»-«num:4».8nj.gcp-us-central1.cockroachlabs.cloud:26257/defaultdb?sslmode=verify-full", source="CockroachDB Cloud connection string"),
    K("uri-neo4j", "uri", url_pw, "NEO4J_URI=neo4j+s://neo4j:«v»@«hex:8».databases.neo4j.io", source="Neo4j URI with credentials"),
    K("uri-elasticsearch", "uri", url_pw, "ELASTICSEARCH_URL=https://elastic:«v»@«host»:9200", source="Elasticsearch URL with elastic user"),
    K("uri-couchdb", "uri", url_pw, "curl -X PUT http://admin:«v»@127.0.0.1:5984/«db»", source="CouchDB admin URL"),
    K("uri-rtsp-camera", "uri", url_pw, "ffmpeg -rtsp_transport tcp -i 'rtsp://admin:«v»@192.168.1.64:554/Streaming/Channels/101' -t 10 clip.mp4", source="RTSP camera URL"),
    K("uri-http-proxy", "uri", url_pw, "export https_proxy=http://«user»:«v»@proxy.«domain»:3128", source="HTTP(S)_PROXY with credentials"),
    K("uri-socks5", "uri", url_pw, "ALL_PROXY=socks5h://«user»:«v»@«ip»:1080 curl https://ifconfig.me", source="SOCKS5 proxy URL"),
    K("uri-libpq-keyword", "uri", plain_pw, "dbname=«db» host=«host» port=5432 user=«user» password=«v» sslmode=verify-full", source="libpq keyword/value conninfo"),
    K("uri-ado-azure-sql", "uri", plain_pw, "Server=tcp:«app»-sql.database.windows.net,1433;Initial Catalog=«db»;Persist Security Info=False;User ID=«user»;Password=«v»;MultipleActiveResultSets=False;Encrypt=True;",
      source="Azure SQL ADO.NET connection string"),
    K("uri-azure-servicebus", "uri", tok((B64, 43), "="), "Endpoint=sb://«app»-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«v»",
      source="Azure Service Bus connection string"),
    K("uri-azure-storage", "uri", tok((B64, 86), "=="), "DefaultEndpointsProtocol=https;AccountName=«app»store;AccountKey=«v»;EndpointSuffix=core.windows.net", source="Azure Storage connection string"),
    K("uri-azure-appconfig", "uri", tok((B64, 43), "="), "Endpoint=https://«app»-cfg.azconfig.io;Id=«alnum:4»-l0-s0:«alnum:20»;Secret=«v»", source="Azure App Configuration connection string"),
    K("uri-cloudinary", "uri", tok((B64URL, 27)), "CLOUDINARY_URL=cloudinary://«num:15»:«v»@«app»", source="CLOUDINARY_URL api_key:api_secret@cloud"),
    K("uri-otpauth", "uri", tok((B32U, 32)), "otpauth://totp/«org»:«email»?secret=«v»&issuer=«org»&algorithm=SHA1&digits=6&period=30", source="otpauth:// URI (TOTP seed)"),
    K("uri-libsql-token", "uri", lambda r: _jwt(r, {"a": "rw", "id": uuid4(r)}, alg="EdDSA"), "libsql://«app»-«org».turso.io?authToken=«v»", source="libSQL URL with authToken"),
    K("uri-svn-credentials", "uri", url_pw, "svn checkout https://«user»:«v»@svn.«domain»/repos/«app»/trunk", source="Subversion URL with credentials"),
    K("uri-webdav", "uri", url_pw, "rclone lsd :webdav,url='https://«user»:«v»@cloud.«domain»/remote.php/dav/files/«user»/':", source="WebDAV URL with credentials"),
]

# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------

HTTP = [
    K("http-bearer-opaque", "http", tok((B64URL, 43)), 'curl -sS -H "Authorization: Bearer «v»" https://api.«domain»/v1/me', source="RFC 6750 bearer header (opaque token)"),
    K("http-raw-request", "http", tok((B64URL, 48)), "POST /v2/orders HTTP/1.1\nHost: api.«domain»\nAuthorization: Bearer «v»\nContent-Type: application/json\nContent-Length: 57\n\n{\"sku\": \"A-«num:4»\", \"qty\": 2}",
      source="raw HTTP/1.1 request"),
    K("http-x-api-key", "http", tok((ALNUM, 40)), "curl https://api.«domain»/v3/reports -H 'X-API-Key: «v»' -H 'Accept: text/csv'", source="X-API-Key header"),
    K("http-ocp-apim", "http", hexs(32), "curl -H 'Ocp-Apim-Subscription-Key: «v»' 'https://«app».azure-api.net/orders/v1/list'", source="Azure API Management subscription key header"),
    K("http-drf-token", "http", hexs(40), "http GET https://«app».«domain»/api/items/ 'Authorization:Token «v»'", source="Django REST framework TokenAuthentication"),
    K("http-private-token", "http", tok("glpat-", (B64URL, 20)), "GET /api/v4/projects/«num:3»/jobs HTTP/1.1\nHost: gitlab.«domain»\nPRIVATE-TOKEN: «v»", source="GitLab PRIVATE-TOKEN header"),
    K("http-x-vault-token", "http", tok("hvs.", (B64URL, 91)), "curl -H \"X-Vault-Token: «v»\" https://vault.«domain»:8200/v1/secret/data/«app»", source="Vault X-Vault-Token header"),
    K("http-x-goog-api-key", "http", tok("AIza", (B64URL, 35)), "curl -H 'x-goog-api-key: «v»' -H 'Content-Type: application/json' -d @req.json 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'",
      source="Gemini x-goog-api-key header"),
    K("http-x-functions-key", "http", tok((B64URL, 54), "=="), "POST https://«app»-func.azurewebsites.net/api/ingest\nx-functions-key: «v»", source="Azure Functions key header"),
    K("http-query-api-key", "http", tok((ALNUM, 32)), "GET https://api.«domain»/v1/forecast?lat=52.52&lon=13.41&api_key=«v»&units=metric", source="API key in query string"),
    K("http-query-access-token", "http", tok((B64URL, 60)), "wss://stream.«domain»/v1/events?access_token=«v»&channel=orders", source="access_token in a WebSocket URL"),
    K("http-form-password-grant", "http", url_pw, "curl -X POST https://auth.«domain»/oauth/token -d grant_type=password -d username=«email» -d password=«v» -d client_id=«app»-cli",
      source="OAuth2 resource owner password grant"),
    K("http-client-credentials-body", "http", tok((B64URL, 40)), "grant_type=client_credentials&client_id=«alnum:20»&client_secret=«v»&scope=read%3Aorders", source="OAuth2 client_credentials form body"),
    K("http-token-response", "http", tok((B64URL, 64)), '{"access_token":"«v»","token_type":"Bearer","expires_in":3600,"scope":"read write","refresh_token":"«alnum:48»"}', source="OAuth2 token response JSON"),
    K("http-cookie-django-session", "http", tok((LALNUM, 32)), "Cookie: csrftoken=«alnum:32»; sessionid=«v»", source="Django sessionid cookie"),
    K("http-cookie-connect-sid", "http", lambda r: "s%3A" + mixed(r, B64URL, 32) + "." + mixed(r, B64, 43), "curl -b 'connect.sid=«v»' http://localhost:«port»/admin", source="express-session connect.sid cookie"),
    K("http-set-cookie-jsessionid", "http", tok((HEXU, 32)), "HTTP/1.1 302 Found\nLocation: /dashboard\nSet-Cookie: JSESSIONID=«v»; Path=/; Secure; HttpOnly", source="Set-Cookie JSESSIONID"),
    K("http-cookie-laravel", "http", lambda r: "eyJpdiI6I" + mixed(r, B64, 200) + "%3D%3D", "Cookie: XSRF-TOKEN=eyJpdiI6I«alnum:60»; laravel_session=«v»", source="laravel_session cookie (encrypted payload)"),
    K("http-cookie-nextauth", "http", lambda r: "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0.." + mixed(r, B64URL, 22) + "." + mixed(r, B64URL, 300) + "." + mixed(r, B64URL, 22),
      "Cookie: __Secure-next-auth.session-token=«v»", source="NextAuth session-token cookie (JWE)"),
    K("http-cookie-phpsessid", "http", tok((LALNUM, 26)), "Cookie: PHPSESSID=«v»; path=/", source="PHPSESSID cookie"),
    K("http-cookie-aspnet", "http", tok((B64URL, 300)), "Cookie: .AspNetCore.Cookies=CfDJ8«v»", source=".AspNetCore.Cookies"),
    K("http-cookie-jar-netscape", "http", tok((B64URL, 40)), "# Netscape HTTP Cookie File\n.«domain»\tTRUE\t/\tTRUE\t1798761600\tsession_token\t«v»", source="curl/wget cookies.txt (Netscape format)"),
    K("http-httpie-header", "http", tok((B64URL, 40)), "http POST https://api.«domain»/v1/deploys Authorization:'Bearer «v»' ref=main", source="HTTPie header item"),
    K("http-python-headers", "http", tok((ALNUM, 40)), 'headers = {"Accept": "application/json", "Authorization": "Token token=«v»"}\nr = requests.get(url, headers=headers)', source="Python requests headers dict"),
    K("http-postman-collection", "http", tok((B64URL, 48)), '"auth": {\n  "type": "bearer",\n  "bearer": [\n    { "key": "token", "value": "«v»", "type": "string" }\n  ]\n}', source="Postman collection auth block"),
    K("http-rest-client-file", "http", tok((B64URL, 48)), "@host = https://api.«domain»\n@token = «v»\n\n### list orders\nGET {{host}}/orders\nAuthorization: Bearer {{token}}", source="VS Code REST Client / JetBrains .http variables"),
    K("http-har-entry", "http", tok((B64URL, 48)), '"headers": [\n  { "name": "accept", "value": "application/json" },\n  { "name": "authorization", "value": "Bearer «v»" }\n]', source="HAR file request headers"),
    K("http-openstack-x-auth-token", "http", tok("gAAAAAB", (B64URL, 176)), "curl -s -H 'X-Auth-Token: «v»' https://compute.«domain»:8774/v2.1/servers", source="OpenStack Keystone fernet token (gAAAAAB…) in X-Auth-Token"),
    K("http-authorization-ssws", "http", tok("00", (B64URL, 40)), "Authorization: SSWS «v»", source="Okta SSWS scheme"),
    K("http-klaviyo-private", "http", tok("pk_", (HEX, 34)), "curl https://a.klaviyo.com/api/profiles/ -H 'Authorization: Klaviyo-API-Key «v»' -H 'revision: 2025-01-15'", source="Klaviyo private API key (pk_…) header"),
    K("http-zoho-oauthtoken", "http", lambda r: f"1000.{rs(r, HEX, 32)}.{rs(r, HEX, 32)}", "curl 'https://www.zohoapis.eu/crm/v7/Leads' -H 'Authorization: Zoho-oauthtoken «v»'", source="Zoho-oauthtoken scheme"),
    K("http-negotiate", "http", lambda r: "YIIG" + mixed(r, B64, 300) + "==", "Authorization: Negotiate «v»", source="SPNEGO/Kerberos Negotiate header"),
]

# --------------------------------------------------------------------------------------------
# logs and tool output
# --------------------------------------------------------------------------------------------


def _es_enrollment(rng: random.Random) -> str:
    payload = json.dumps({"ver": "8.17.0", "adr": [f"172.18.0.{rng.randrange(2, 9)}:9200"], "fgr": rs(rng, HEX, 64),
                          "key": rs(rng, B64URL, 20) + ":" + rs(rng, B64URL, 22)}, separators=(",", ":"))
    return b64_of(payload.encode())


LOGS = [
    K("jupyter-token-banner", "logs", hexs(48),
      "[I 2026-02-03 10:12:44.512 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2026-02-03 10:12:44.512 ServerApp] http://localhost:8888/lab?token=«v»\n[I 2026-02-03 10:12:44.512 ServerApp]     http://127.0.0.1:8888/lab?token=«v»",
      source="Jupyter server startup banner (token=48 hex)"),
    K("jenkins-initial-admin", "logs", hexs(32),
      "*************************************************************\n\nJenkins initial setup is required. An admin user has been created and a password generated.\nPlease use the following password to proceed to installation:\n\n«v»\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword\n\n*************************************************************",
      "$ docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword\n«v»", source="Jenkins first-start banner"),
    K("elasticsearch-elastic-password", "logs", lambda r: mixed(r, ALNUM + "_*=+-", 20),
      "━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━\n✅ Elasticsearch security features have been automatically configured!\n✅ Authentication is enabled and cluster connections are encrypted.\n\nℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  «v»\n",
      source="Elasticsearch 8 first-start banner"),
    K("elasticsearch-enrollment-token", "logs", _es_enrollment,
      "ℹ️  Configure Kibana to use this cluster:\n• Run Kibana and click the configuration link in the terminal when Kibana starts.\n• Copy the following enrollment token and paste it into Kibana in your browser (valid for the next 30 minutes):\n  «v»",
      source="Elasticsearch enrollment token (base64 JSON with an API key)"),
    K("vault-dev-root-token", "logs", tok("hvs.", (B64URL, 24)),
      "WARNING! dev mode is enabled! In this mode, Vault runs entirely in-memory\nand starts unsealed with a single unseal key. The root token is already\nauthenticated to the CLI, so you can immediately begin using Vault.\n\nUnseal Key: «alnum:43»=\nRoot Token: «v»\n\nDevelopment mode should NOT be used in production installations!",
      source="vault server -dev banner"),
    K("vault-operator-init", "logs", b64raw(33),
      "Unseal Key 1: «v»\nUnseal Key 2: «alnum:44»\nUnseal Key 3: «alnum:44»\n\nInitial Root Token: hvs.«alnum:24»\n\nVault initialized with 5 key shares and a key threshold of 3.",
      source="vault operator init output"),
    K("minio-root-banner", "logs", lambda r: mixed(r, ALNUM, 24),
      "MinIO Object Storage Server\nAPI: http://172.17.0.2:9000  http://127.0.0.1:9000\n   RootUser: «user»\n   RootPass: «v»\nWebUI: http://172.17.0.2:9001 http://127.0.0.1:9001",
      source="MinIO server startup banner"),
    K("airflow-standalone", "logs", alnum(16),
      "standalone | Airflow is ready\nstandalone | Login with username: admin  password: «v»\nstandalone | Airflow Standalone is for development purposes only. Do not use this in production!",
      source="airflow standalone banner"),
    K("argocd-initial-password", "logs", lambda r: mixed(r, ALNUM + "-", 16),
      "$ argocd admin initial-password -n argocd\n«v»\n\n This password must be only used for first time login. We strongly recommend you update the password using `argocd account update-password`.",
      source="argocd admin initial-password"),
    K("gitlab-initial-root-password", "logs", b64raw(33),
      "$ sudo cat /etc/gitlab/initial_root_password\n# WARNING: This value is valid only in the following conditions\n#          1. If provided manually (either via `GITLAB_ROOT_PASSWORD` environment variable or via `gitlab_rails['initial_root_password']` setting in `gitlab.rb`, it was provided before database was seeded for the first time (usually, the first reconfigure run).\n\nPassword: «v»\n\n# NOTE: This file will be automatically deleted in the first reconfigure run after 24 hours.",
      source="GitLab /etc/gitlab/initial_root_password"),
    K("rancher-bootstrap", "logs", lambda r: mixed(r, LALNUM, 20),
      '2026/02/03 09:14:22 [INFO] Bootstrap Password: «v»\n2026/02/03 09:14:22 [INFO] Listening on :443', source="Rancher bootstrap password log line"),
    K("kubeadm-join-token", "logs", lambda r: rs(r, LALNUM, 6) + "." + rs(r, LALNUM, 16),
      "Then you can join any number of worker nodes by running the following on each as root:\n\nkubeadm join «ip»:6443 --token «v» \\\n\t--discovery-token-ca-cert-hash sha256:«hex:64»",
      source="kubeadm init output (bootstrap token)"),
    K("aws-sts-assume-role-json", "logs", tok((B64, 40)),
      '{\n    "Credentials": {\n        "AccessKeyId": "ASIA«alnum:16»",\n        "SecretAccessKey": "«v»",\n        "SessionToken": "IQoJb3JpZ2luX2VjE«alnum:120»",\n        "Expiration": "2026-02-03T11:22:33+00:00"\n    },\n    "AssumedRoleUser": {"Arn": "arn:aws:sts::«num:12»:assumed-role/deploy/ci"}\n}',
      source="aws sts assume-role output"),
    K("aws-iam-create-access-key", "logs", tok((B64, 40)),
      '{\n    "AccessKey": {\n        "UserName": "«user»",\n        "AccessKeyId": "«akid»",\n        "Status": "Active",\n        "SecretAccessKey": "«v»",\n        "CreateDate": "2026-02-03T10:00:00+00:00"\n    }\n}',
      source="aws iam create-access-key output"),
    K("kubectl-jsonpath-decoded", "logs", any_pw, "$ kubectl get secret «app»-db -n «ns» -o jsonpath='{.data.password}' | base64 -d\n«v»", source="kubectl get secret … | base64 -d"),
    K("docker-inspect-env", "logs", any_pw,
      '"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",\n    "POSTGRES_PASSWORD=«v»",\n    "PGDATA=/var/lib/postgresql/data"\n],',
      source="docker inspect Config.Env"),
    K("env-dump", "logs", tok((ALNUM, 40)), "$ env | sort\nHOME=/root\nHOSTNAME=«app»-7d9f8b6c5-x2k4z\nPAYMENT_GATEWAY_SECRET=«v»\nPATH=/usr/local/bin:/usr/bin\nTERM=xterm",
      source="env output in a container"),
    K("python-traceback-locals", "logs", any_pw,
      'Traceback (most recent call last):\n  File "/srv/«app»/sync.py", line 42, in <module>\n    conn = connect(host, user, password)\n    ╭──────────── locals ────────────╮\n    │     host = \'«host»\'            │\n    │     user = \'«user»\'            │\n    │ password = \'«v»\' │\n    ╰────────────────────────────────╯\npsycopg2.OperationalError: connection refused',
      source="rich traceback with show_locals"),
    K("django-debug-page", "logs", any_pw,
      "Settings\nUsing settings module «app».settings\nSetting\tValue\nDATABASES\t{'default': {'ENGINE': 'django.db.backends.mysql', 'HOST': '«host»', 'NAME': '«db»', 'PASSWORD': '«v»', 'USER': '«user»'}}",
      source="Django technical 500 page settings (a custom dict not masked)"),
    K("spring-actuator-env", "logs", any_pw,
      '{"name":"Config resource \'class path resource [application-prod.yml]\'","properties":{"spring.datasource.password":{"value":"«v»","origin":"class path resource [application-prod.yml] - 7:15"}}}',
      source="Spring Boot /actuator/env (sanitization off)"),
    K("node-mongo-error-uri", "logs", url_pw,
      "MongoServerSelectionError: connect ECONNREFUSED 10.0.4.17:27017\n    at Timeout._onTimeout (/app/node_modules/mongodb/lib/sdam/topology.js:278:38) {\n  reason: TopologyDescription { type: 'Unknown' },\n  uri: 'mongodb://«user»:«v»@«host»:27017/«db»?authSource=admin'\n}",
      source="Node.js driver error printing the URI"),
    K("postgres-log-statement", "logs", any_pw, "2026-02-03 10:14:02.118 UTC [4211] «user»@«db» LOG:  statement: ALTER ROLE «user» PASSWORD '«v»';", source="PostgreSQL log_statement=ddl line"),
    K("mysql-general-log", "logs", any_pw, "2026-02-03T10:14:02.118223Z\t   31 Query\tCREATE USER 'etl'@'%' IDENTIFIED BY '«v»'", source="MySQL general query log"),
    K("redis-monitor", "logs", plain_pw, '1770113642.118223 [0 10.0.4.21:51234] "AUTH" "«user»" "«v»"', source="redis-cli MONITOR output"),
    K("nginx-access-log-query", "logs", tok((ALNUM, 32)), '10.0.4.21 - - [03/Feb/2026:10:14:02 +0000] "GET /api/export?apikey=«v»&format=csv HTTP/1.1" 200 5123 "-" "python-requests/2.32.3"', source="nginx combined log with a key in the query"),
    K("ps-aux-cmdline", "logs", plain_pw, "$ ps aux | grep backup\nroot      8812  0.3  0.1  23884  5632 ?  S  03:00   0:04 mysqldump -u backup -p«v» --all-databases", source="ps aux showing a password argument"),
    K("bash-history", "logs", plain_pw, "$ tail -n 4 ~/.bash_history\ncd /srv/«app»\ngit pull\nmysql -uroot -p«v» -e 'show databases'\nexit", source="~/.bash_history"),
    K("ansible-vvv-output", "logs", any_pw, 'ok: [web01] => {\n    "ansible_facts": {\n        "db_user": "«user»",\n        "db_password": "«v»"\n    },\n    "changed": false\n}', source="Ansible -vvv task output"),
    K("git-credential-fill", "logs", tok("ghp_", (ALNUM, 36)), "$ printf 'protocol=https\\nhost=github.com\\n\\n' | git credential fill\nprotocol=https\nhost=github.com\nusername=«user»\npassword=«v»", source="git credential fill output"),
    K("terraform-show-state", "logs", any_pw, '  # aws_db_instance.main:\n  resource "aws_db_instance" "main" {\n      address  = "«app»-db.c9x2k1.«region».rds.amazonaws.com"\n      password = "«v»"\n      username = "«user»"\n  }', source="terraform state show output"),
    K("helm-get-values", "logs", any_pw, "$ helm get values «app» -n «ns»\nUSER-SUPPLIED VALUES:\nauth:\n  password: «v»\n  username: «user»", source="helm get values"),
    K("docker-compose-config", "logs", any_pw, "$ docker compose config\nname: «app»\nservices:\n  api:\n    environment:\n      DB_PASSWORD: «v»\n      DB_USER: «user»", source="docker compose config (resolved)"),
    K("curl-verbose-header", "logs", tok((B64URL, 48)), "*   Trying 10.0.4.21:443...\n* Connected to api.«domain» (10.0.4.21) port 443\n> GET /v1/me HTTP/2\n> Host: api.«domain»\n> user-agent: curl/8.11.1\n> authorization: Bearer «v»\n> accept: */*\n>\n< HTTP/2 200", source="curl -v request headers"),
    K("urllib3-debug-send", "logs", tok((ALNUM, 40)), "send: b'GET /v2/items HTTP/1.1\\r\\nHost: api.«domain»\\r\\nUser-Agent: python-requests/2.32.3\\r\\nX-Api-Key: «v»\\r\\n\\r\\n'", source="http.client debuglevel send: b'…'"),
    K("xxd-env-dump", "logs", alnum(40), lambda r, v: "$ xxd .env\n" + xxd(("API_KEY=" + v + "\nDEBUG=0\n").encode()),
      source="xxd hexdump of a .env (the value read in the ASCII column)"),
    K("az-sp-create-output", "logs", _azure_client_secret, 'The output includes credentials that you must protect. Be sure that you do not include these credentials in your code or check the credentials into your source control.\n{\n  "appId": "«uuid»",\n  "displayName": "azure-cli-2026-02-03-10-14-02",\n  "password": "«v»",\n  "tenant": "«uuid»"\n}',
      source="az ad sp create-for-rbac output"),
    K("gh-actions-log-leak", "logs", any_pw, "2026-02-03T10:14:02.1182239Z ##[group]Run ./scripts/migrate.sh\n2026-02-03T10:14:02.1184011Z + psql postgresql://«user»:«v»@«host»/«db» -f migrate.sql\n2026-02-03T10:14:02.1190000Z ##[endgroup]",
      source="GitHub Actions log with set -x echoing a literal"),
    K("pm2-env-show", "logs", tok((ALNUM, 40)), "$ pm2 env 0\nNODE_ENV: production\nSTRIPE_KEY: «v»\nPORT: «port»", source="pm2 env output"),
]


def xxd(data: bytes) -> str:
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        h = chunk.hex()
        groups = " ".join(h[i:i + 4] for i in range(0, len(h), 4))
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{off:08x}: {groups:<39}  {text}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# prose
# --------------------------------------------------------------------------------------------

PROSE = [
    K("prose-password-is", "prose", any_pw, ["the password for the staging db is «v»", "staging db password is «v» btw", "The prod DB password is «v», same as the replica."],
      source="chat phrasing: the password is X"),
    K("prose-value-first", "prose", any_pw, ["«v» is the new root password, don't paste it anywhere public", "«v» — that's the admin password for the router"],
      source="chat phrasing: X is the password"),
    K("prose-creds-slash", "prose", any_pw, ["creds are «user» / «v»", "login «user», pass «v»", "user: «user» pw: «v»"], source="chat phrasing: user / password"),
    K("prose-use-as-passphrase", "prose", passphrase, ["use «v» as the passphrase for the backup key", "the passphrase is «v» (all lowercase, with spaces)"],
      source="passphrase with spaces in a sentence"),
    K("prose-changed-it-to", "prose", any_pw, ["I changed it to «v» this morning, the old one is revoked", "reset the password to «v», can you update the deploy script?"],
      source="chat phrasing: changed it to X"),
    K("prose-key-i-generated", "prose", tok((ALNUM, 40)), ["here's the API key I generated: «v» — it expires in 30 days", "API key (read-only): «v»"], source="chat: here is the key"),
    K("prose-why-doesnt-work", "prose", tok((B64URL, 40)), ["can you check why «v» doesn't work as the webhook token? I keep getting 401", "«v» returns 403 when I call /v1/orders, is the scope wrong?"],
      source="question about a failing token"),
    K("prose-assistant-set", "prose", any_pw, ["I've set `DB_PASSWORD` to `«v»` in `.env.production` and restarted the container.", "Done — the admin password is now **«v»**. Store it in your password manager and delete this message."],
      source="assistant confirming a credential it wrote"),
    K("prose-ssh-passphrase", "prose", any_pw, ["passphrase for ~/.ssh/id_ed25519 is «v»", "the key's passphrase: «v»"], source="ssh key passphrase in chat"),
    K("prose-wifi", "prose", human_pw, ["office wifi is «org»-5G, password «v»", "WiFi password at the venue: «v»"], source="WiFi password in chat"),
    K("prose-shared-secret", "prose", tok((HEX, 48)), ["the shared secret between billing and the gateway is «v»", "HMAC key = «v» (hex)"], source="shared/HMAC secret in prose"),
    K("prose-markdown-table", "prose", any_pw, "| service | user | password |\n|---|---|---|\n| grafana | admin | «v» |\n| rabbitmq | «user» | «alnum:16» |", source="markdown table of credentials"),
    K("prose-bullet-bold", "prose", any_pw, "### Staging access\n- **URL:** https://staging.«domain»\n- **Username:** «user»\n- **Password:** «v»", source="markdown bullets with bold labels"),
    K("prose-email-style", "prose", any_pw, "Hi team,\n\nthe SFTP account for the vendor is ready:\n  host: sftp.«domain»\n  user: «user»\n  password: «v»\n\nPlease rotate after the migration.\nThanks,\n«name»",
      source="email-style handover"),
    K("prose-reasoning", "prose", any_pw, ["The user gave the database password «v». I should put it in the env file rather than hard-code it in settings.py.",
                                           "They pasted «v» as the SMTP password; I'll reference it through an environment variable."], source="agent reasoning restating a password"),
    K("prose-summary", "prose", tok((ALNUM, 36)), ["Summary: configured the CI pipeline; user supplied deploy token «v» which was added to the repository secrets.",
                                                   "User provided the Sentry token «v» and asked to enable release tracking."], source="compaction summary mentioning a token"),
    K("prose-commit-message", "prose", any_pw, "fix(config): update staging db password to «v»\n\nthe old one expired on Friday", source="commit message with a password"),
    K("prose-slack-paste", "prose", tok((B64URL, 32)), "[10:42] «name»: the new staging token is «v»\n[10:43] «name»: ty", source="pasted chat log"),
    K("prose-is-it-strong", "prose", human_pw, ["Is «v» a strong enough password for the admin account?", "would «v» pass the password policy?"], source="question about password strength"),
    K("prose-quoted-forms", "prose", any_pw, ['password "«v»"', "pass: '«v»'", "pwd=«v»;", "(pw «v»)", "password → «v»"], source="password with various quote and punctuation styles"),
    K("prose-recovery-codes", "prose", lambda r: " ".join(f"{rs(r, LALNUM, 5)}-{rs(r, LALNUM, 5)}" for _ in range(4)), "GitHub recovery codes (keep safe): «v»", source="2FA recovery codes"),
    K("prose-totp-seed", "prose", lambda r: " ".join(rs(r, B32U.lower(), 4) for _ in range(8)), "If the QR code doesn't scan, enter this setup key manually: «v»", source="TOTP setup key in groups of 4"),
    K("prose-pin-and-puk", "prose", lambda r: rs(r, DIGITS, 8) + " / PUK " + rs(r, DIGITS, 8), "SIM for the test phone: PIN/PUK «v»", source="SIM PIN and PUK"),
    K("prose-encryption-key", "prose", b64raw(32), ["encryption key for the exports (AES-256, base64): «v»", "AES key: «v» (don't lose it, the backups are useless without it)"], source="encryption key in prose"),
    K("prose-gpg-passphrase-after", "prose", passphrase, "Backup restore steps:\n1. gpg -d backup.tar.gpg (passphrase: «v»)\n2. tar xf backup.tar", source="passphrase inside numbered steps"),
    K("prose-password-for-service", "prose", any_pw, ["For Jira use «email» / «v».", "Jenkins: admin, «v»."], source="credentials in a terse note"),
    K("prose-temp-password", "prose", lambda r: mixed(r, ALNUM, 12) + rng_sym(r) + rs(r, DIGITS, 3), "Your temporary password is «v». You will be asked to change it at first sign-in.", source="temporary password notice"),
    K("prose-db-creds-inline", "prose", url_pw, "connect with psql using postgres://«user»:«v»@«host»/«db», the replica is read-only", source="URI inside a sentence"),
    K("prose-key-after-colon-no-space", "prose", tok((ALNUM, 32)), ["api_key:«v»", "key=«v»"], source="key with no space after the separator"),
    K("prose-yaml-in-chat", "prose", any_pw, "paste this into the values file:\n```yaml\nredis:\n  auth:\n    password: «v»\n```", source="fenced snippet in chat"),
    K("prose-sentence-end", "prose", human_pw, "My password is «v». Please log in and fix the dashboard.", source="password ending a sentence"),
]


def rng_sym(rng: random.Random) -> str:
    return rng.choice("!#%*+-.=?@^_~")

# --------------------------------------------------------------------------------------------
# other languages (native script and romanized)
# --------------------------------------------------------------------------------------------

I18N = [
    K("zh-hans-password", "i18n", any_pw, ["生产数据库的密码是 «v»，别外传。", "数据库密码：«v»", "密码改成了«v»，记得更新配置"], source="Simplified Chinese 密码"),
    K("zh-hans-api-key", "i18n", tok((ALNUM, 40)), ["这是新的 API 密钥：«v»（只读权限）", "接口秘钥 «v» 下周过期"], source="Simplified Chinese 密钥/秘钥"),
    K("zh-hant-password", "i18n", any_pw, ["資料庫密碼：«v»", "伺服器的登入密碼是 «v»"], source="Traditional Chinese 密碼"),
    K("zh-pinyin", "i18n", any_pw, ["shujuku mima shi «v», bie fa qun li", "mima: «v»"], source="Chinese romanized (pinyin) mima"),
    K("ja-password", "i18n", any_pw, ["本番DBのパスワードは«v»です。", "パスワード：«v»", "管理画面のパスワードを「«v»」に変更しました。"], source="Japanese パスワード"),
    K("ja-value-first", "i18n", any_pw, ["«v» がルーターの管理者パスワードです", "«v»でログインできます"], source="Japanese, value before the word"),
    K("ja-token", "i18n", tok((B64URL, 40)), ["アクセストークンは«v»です", "APIキー「«v»」を.envに追加してください"], source="Japanese トークン / APIキー"),
    K("ja-romaji", "i18n", any_pw, ["pasuwaado wa «v» desu", "kagi: «v»"], source="Japanese romanized (romaji)"),
    K("ko-password", "i18n", any_pw, ["비밀번호는 «v» 입니다", "DB 비밀번호: «v»", "«v»가 관리자 비밀번호야"], source="Korean 비밀번호"),
    K("ko-token", "i18n", tok((ALNUM, 36)), ["API 키: «v»", "토큰은 «v» 이고 30일 뒤 만료돼요"], source="Korean 키 / 토큰"),
    K("ko-romanized", "i18n", any_pw, ["bimilbeonho: «v»", "bibeon «v» ya"], source="Korean romanized (bimilbeonho, bibeon)"),
    K("ru-password", "i18n", any_pw, ["пароль от базы: «v»", "«v» — новый пароль администратора", "Пароль для входа на сервер «v», никому не говори"], source="Russian пароль"),
    K("ru-token", "i18n", tok((B64URL, 40)), ["вот токен для API: «v»", "ключ доступа «v» действует до пятницы"], source="Russian токен / ключ"),
    K("ru-translit", "i18n", any_pw, ["parol' ot servera: «v»", "parol «v», login «user»"], source="Russian transliterated"),
    K("uk-password", "i18n", any_pw, ["пароль до сервера: «v»", "Новий пароль — «v»"], source="Ukrainian пароль"),
    K("pl-password", "i18n", any_pw, ["hasło do bazy to «v»", "Hasło: «v» (zmień po zalogowaniu)"], source="Polish hasło"),
    K("cs-password", "i18n", any_pw, ["heslo k databázi je «v»", "přihlašovací heslo: «v»"], source="Czech heslo"),
    K("sk-password", "i18n", any_pw, ["heslo na server: «v»"], source="Slovak heslo"),
    K("de-password", "i18n", any_pw, ["Das Passwort für den Server lautet «v»", "Kennwort: «v»", "Zugangsdaten: Benutzer «user», Passwort «v»"], source="German Passwort / Kennwort"),
    K("de-key", "i18n", tok((ALNUM, 40)), ["Hier ist der API-Schlüssel: «v»", "Der Zugangsschlüssel «v» läuft Ende des Monats ab."], source="German API-Schlüssel"),
    K("fr-password", "i18n", any_pw, ["le mot de passe de la base est «v»", "Mot de passe : «v»", "mdp : «v»"], source="French mot de passe / mdp"),
    K("fr-key", "i18n", tok((ALNUM, 36)), ["clé API : «v»", "voici le jeton d'accès «v», il expire demain"], source="French clé / jeton"),
    K("es-password", "i18n", any_pw, ["la contraseña del servidor es «v»", "Contraseña: «v»", "clave del wifi: «v»"], source="Spanish contraseña / clave"),
    K("pt-password", "i18n", any_pw, ["a senha do banco é «v»", "Senha: «v»", "usuário «user» e senha «v»"], source="Portuguese senha"),
    K("pt-key", "i18n", tok((ALNUM, 40)), ["chave de API: «v»", "o token de acesso é «v»"], source="Portuguese chave / token"),
    K("it-password", "i18n", any_pw, ["la password del database è «v»", "parola d'ordine: «v»", "credenziali: «user» / «v»"], source="Italian password / parola d'ordine"),
    K("nl-password", "i18n", any_pw, ["het wachtwoord is «v»", "Wachtwoord: «v»"], source="Dutch wachtwoord"),
    K("sv-password", "i18n", any_pw, ["lösenordet är «v»", "Lösenord: «v»"], source="Swedish lösenord"),
    K("no-password", "i18n", any_pw, ["passordet er «v»"], source="Norwegian passord"),
    K("da-password", "i18n", any_pw, ["adgangskoden er «v»", "Kodeord: «v»"], source="Danish adgangskode / kodeord"),
    K("fi-password", "i18n", any_pw, ["salasana on «v»", "Salasana: «v»"], source="Finnish salasana"),
    K("hu-password", "i18n", any_pw, ["a jelszó: «v»", "A szerver jelszava «v»"], source="Hungarian jelszó"),
    K("ro-password", "i18n", any_pw, ["parola este «v»", "Parolă: «v»"], source="Romanian parolă"),
    K("el-password", "i18n", any_pw, ["ο κωδικός πρόσβασης είναι «v»", "Κωδικός: «v»"], source="Greek κωδικός πρόσβασης"),
    K("tr-password", "i18n", any_pw, ["veritabanı şifresi «v»", "Şifre: «v»", "«v» parolasıyla giriş yap"], source="Turkish şifre / parola"),
    K("he-password", "i18n", any_pw, ["הסיסמה היא «v»", "סיסמה: «v»"], source="Hebrew סיסמה"),
    K("ar-password", "i18n", any_pw, ["كلمة المرور هي «v»", "كلمة السر: «v»"], source="Arabic كلمة المرور / كلمة السر"),
    K("ar-arabizi", "i18n", any_pw, ["el password howa «v»", "kelmet el sir «v»"], source="Arabic romanized (Arabizi)"),
    K("fa-password", "i18n", any_pw, ["رمز عبور: «v»", "رمز سرور «v» است"], source="Persian رمز عبور"),
    K("ur-password", "i18n", any_pw, ["پاس ورڈ «v» ہے"], source="Urdu پاس ورڈ"),
    K("hi-password", "i18n", any_pw, ["पासवर्ड है «v»", "सर्वर का पासवर्ड: «v»"], source="Hindi पासवर्ड"),
    K("hi-hinglish", "i18n", any_pw, ["bhai password «v» hai, kisi ko mat batana", "db ka password «v» rakha hai"], source="Hindi romanized (Hinglish)"),
    K("bn-password", "i18n", any_pw, ["পাসওয়ার্ড: «v»"], source="Bengali পাসওয়ার্ড"),
    K("ta-password", "i18n", any_pw, ["கடவுச்சொல்: «v»"], source="Tamil கடவுச்சொல்"),
    K("th-password", "i18n", any_pw, ["รหัสผ่านคือ «v»", "รหัส: «v»"], source="Thai รหัสผ่าน"),
    K("vi-password", "i18n", any_pw, ["mật khẩu là «v»", "Mật khẩu: «v»", "mat khau: «v»"], source="Vietnamese mật khẩu (with and without diacritics)"),
    K("id-password", "i18n", any_pw, ["kata sandinya «v»", "Kata sandi: «v»"], source="Indonesian kata sandi"),
    K("ms-password", "i18n", any_pw, ["kata laluan: «v»"], source="Malay kata laluan"),
    K("tl-password", "i18n", any_pw, ["ang password ay «v»"], source="Tagalog"),
    K("sw-password", "i18n", any_pw, ["nenosiri ni «v»", "Nenosiri: «v»"], source="Swahili nenosiri"),
    K("sr-password", "i18n", any_pw, ["лозинка је «v»", "lozinka je «v»"], source="Serbian лозинка (Cyrillic and Latin)"),
    K("bg-password", "i18n", any_pw, ["паролата е «v»"], source="Bulgarian парола"),
    K("ka-password", "i18n", any_pw, ["პაროლი: «v»"], source="Georgian პაროლი"),
    K("hy-password", "i18n", any_pw, ["գաղտնաբառը՝ «v»"], source="Armenian գաղտնաբառ"),
    K("kk-password", "i18n", any_pw, ["құпия сөз: «v»"], source="Kazakh құпия сөз"),
    K("ca-password", "i18n", any_pw, ["la contrasenya és «v»"], source="Catalan contrasenya"),
    K("lt-password", "i18n", any_pw, ["slaptažodis: «v»"], source="Lithuanian slaptažodis"),
    K("et-password", "i18n", any_pw, ["parool on «v»"], source="Estonian parool"),
    K("i18n-env-comment", "i18n", tok((ALNUM, 40)), "# 生产环境密钥，不要提交到 git\nPAYMENT_SECRET=«v»", source=".env with a Chinese comment"),
    K("i18n-yaml-keys", "i18n", any_pw, "データベース:\n  ユーザー: «user»\n  パスワード: «v»", source="YAML with Japanese keys"),
    K("i18n-json-keys", "i18n", any_pw, '{"사용자": "«user»", "비밀번호": "«v»"}', source="JSON with Korean keys"),
    K("i18n-fullwidth-colon", "i18n", any_pw, ["密码：«v»。", "口令：«v»"], source="full-width colon and stop around the value"),
]

# --------------------------------------------------------------------------------------------
# encoded forms
# --------------------------------------------------------------------------------------------



def _w(value: str, form: str) -> int:
    return max(10, math.ceil(len(form) * 10 / max(1, len(value))))


def b64s(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def special_pw(rng: random.Random) -> str:
    """A random password with the characters that need encoding in a URL or markup."""
    while True:
        v = mixed(rng, ALNUM + "@:/#?%&+=!$ ", rng.randrange(16, 24)).strip()
        if sum(c in "@:/#?%&+=!$ " for c in v) >= 3:
            return v


def E(name: str, make: Callable[[random.Random], str], *renders, source: str) -> Kind:
    return kind(name, "encoded", make, *renders, source=source)


def r_basic_header(rng: random.Random, v: str) -> tuple[str, list]:
    b = b64s(f"{fill(rng, 'user', None)}:{v}")
    return f'curl -H "Authorization: Basic {b}" https://{fill(rng, "app", None)}.{fill(rng, "domain", None)}/api/health', [(b, 16)]


def r_docker_config(rng: random.Random, v: str) -> tuple[str, list]:
    b = b64s(f"{fill(rng, 'user', None)}:{v}")
    return ('$ cat ~/.docker/config.json\n{\n\t"auths": {\n\t\t"registry.' + fill(rng, "domain", None) + '": {\n\t\t\t"auth": "' + b + '"\n\t\t}\n\t}\n}', [(b, 16)])


def r_npmrc_auth(rng: random.Random, v: str) -> tuple[str, list]:
    b = b64s(v)
    host = "nexus." + fill(rng, "domain", None)
    return f"registry=https://{host}/repository/npm-group/\n//{host}/repository/npm-group/:username={fill(rng, 'user', None)}\n//{host}/repository/npm-group/:_password={b}\nalways-auth=true", [(b, 16)]


def r_k8s_data(rng: random.Random, v: str) -> tuple[str, list]:
    b = b64s(v)
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {fill(rng, 'app', None)}-credentials\ntype: Opaque\ndata:\n  username: {b64s(fill(rng, 'user', None))}\n  password: {b}", [(b, 16)])


def r_kubectl_json(rng: random.Random, v: str) -> tuple[str, list]:
    b = b64s(v)
    return ('$ kubectl get secret api-keys -o json | jq .data\n{\n  "STRIPE_SECRET_KEY": "' + b + '",\n  "SENTRY_DSN": "' + b64s("https://" + rs(rng, HEX, 32) + "@o1.ingest.sentry.io/1") + '"\n}', [(b, 16)])


def r_env_b64(rng: random.Random, v: str) -> tuple[str, list]:
    env = f"DB_HOST={fill(rng, 'host', None)}\nDB_USER={fill(rng, 'user', None)}\nDB_PASSWORD={v}\nDEBUG=false\n"
    b = b64s(env)
    return "$ base64 .env.production\n" + "\n".join(b[i:i + 76] for i in range(0, len(b), 76)), [(b, 16)]


def r_data_uri(rng: random.Random, v: str) -> tuple[str, list]:
    b = b64s(f"API_SECRET={v}\n")
    return f"open this in the browser to download the env: data:text/plain;base64,{b}", [(b, 16)]


def r_url_in_uri(rng: random.Random, v: str) -> tuple[str, list]:
    q = urllib.parse.quote(v, safe="")
    return f"DATABASE_URL=postgresql://{fill(rng, 'user', None)}:{q}@{fill(rng, 'host', None)}:5432/{fill(rng, 'db', None)}", [(q, _w(v, q))]


def r_url_form(rng: random.Random, v: str) -> tuple[str, list]:
    q = urllib.parse.quote_plus(v)
    return f"POST /login HTTP/1.1\nHost: {fill(rng, 'app', None)}.{fill(rng, 'domain', None)}\nContent-Type: application/x-www-form-urlencoded\n\nusername={fill(rng, 'user', None)}&password={q}&remember=1", [(q, _w(v, q))]


def r_url_double(rng: random.Random, v: str) -> tuple[str, list]:
    inner = urllib.parse.quote(v, safe="")
    outer = urllib.parse.quote(f"https://app.{fill(rng, 'domain', None)}/callback?pw={inner}", safe="")
    q2 = urllib.parse.quote(inner, safe="")
    return f"GET /sso/redirect?next={outer} HTTP/1.1", [(q2, _w(v, q2))]


def r_u_escape(rng: random.Random, v: str) -> tuple[str, list]:
    e = "".join(f"\\u{ord(c):04x}" for c in v)
    return '{"user": "' + fill(rng, "user", None) + '", "password": "' + e + '"}', [(e, 60)]


def r_hex_xxd(rng: random.Random, v: str) -> tuple[str, list]:
    h = v.encode().hex()
    return f"$ cat token.txt | xxd -p\n{h}", [(h, 20)]


def r_py_bytes(rng: random.Random, v: str) -> tuple[str, list]:
    e = "".join(f"\\x{b:02x}" for b in v.encode())
    return f"SECRET = b'{e}'", [(e, 40)]


def r_c_array(rng: random.Random, v: str) -> tuple[str, list]:
    e = ", ".join(f"0x{b:02x}" for b in v.encode())
    return f"static const uint8_t kApiKey[] = {{ {e} }};", [(e, 58)]


def r_qp_mail(rng: random.Random, v: str) -> tuple[str, list]:
    body = f"Mot de passe : {v}\nIl expire dans 24 h."
    qp = quopri.encodestring(body.encode("utf-8")).decode()
    vq = quopri.encodestring(v.encode()).decode().rstrip("\n")
    return ("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n" + qp, [(vq, _w(v, vq))])


def r_html_entities(rng: random.Random, v: str) -> tuple[str, list]:
    e = "".join(f"&#{ord(c)};" for c in v)
    return f'<input type="hidden" name="api_secret" value="{e}">', [(e, _w(v, e))]


def r_base32(rng: random.Random, v: str) -> tuple[str, list]:
    e = base64.b32encode(v.encode()).decode()
    return f"$ echo -n '{'*' * 8}' | base32   # (typed it from the vault)\n{e}", [(e, 18)]


def r_ps_encoded(rng: random.Random, v: str) -> tuple[str, list]:
    cmd = f"$p = ConvertTo-SecureString '{v}' -AsPlainText -Force; New-LocalUser -Name svc_backup -Password $p"
    e = base64.b64encode(cmd.encode("utf-16-le")).decode()
    return f"powershell.exe -NoProfile -EncodedCommand {e}", [(e, 28)]


def r_smtp_plain(rng: random.Random, v: str) -> tuple[str, list]:
    e = b64s(f"\0{fill(rng, 'email', None)}\0{v}")
    return f"S: 250-AUTH PLAIN LOGIN\nC: AUTH PLAIN {e}\nS: 235 2.7.0 Authentication successful", [(e, 16)]


def r_smtp_login(rng: random.Random, v: str) -> tuple[str, list]:
    e = b64s(v)
    return f"C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: {b64s(fill(rng, 'email', None))}\nS: 334 UGFzc3dvcmQ6\nC: {e}\nS: 235 Authentication succeeded", [(e, 16)]


def r_gcp_creds_b64(rng: random.Random, v: str) -> tuple[str, list]:
    blob = json.dumps({"type": "authorized_user", "client_id": rs(rng, DIGITS, 12) + "-" + rs(rng, LALNUM, 32) + ".apps.googleusercontent.com",
                       "client_secret": v, "refresh_token": "1//0" + rs(rng, B64URL, 60)})
    e = b64s(blob)
    return f"GOOGLE_CREDENTIALS_BASE64={e}", [(e, 16)]


def r_filezilla(rng: random.Random, v: str) -> tuple[str, list]:
    e = b64s(v)
    return f'<Server>\n  <Host>ftp.{fill(rng, "domain", None)}</Host>\n  <Port>21</Port>\n  <User>{fill(rng, "user", None)}</User>\n  <Pass encoding="base64">{e}</Pass>\n</Server>', [(e, 16)]


def r_dockerconfigjson(rng: random.Random, v: str) -> tuple[str, list]:
    inner = b64s(f"{fill(rng, 'user', None)}:{v}")
    outer = b64s(json.dumps({"auths": {"ghcr.io": {"auth": inner}}}))
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: ghcr-pull\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {outer}", [(outer, 22)]


def r_fullwidth(rng: random.Random, v: str) -> tuple[str, list]:
    e = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in v)
    return f"パスワード：{e}", [(e, 10)]


def r_xml_escaped(rng: random.Random, v: str) -> tuple[str, list]:
    e = v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return f"<server>\n  <id>corp</id>\n  <username>{fill(rng, 'user', None)}</username>\n  <password>{e}</password>\n</server>", [(e, _w(v, e))]


def xml_pw(rng: random.Random) -> str:
    while True:
        v = mixed(rng, ALNUM + "&<>!#%*", rng.randrange(16, 24))
        if sum(c in "&<>" for c in v) >= 2:
            return v


def r_yaml_escaped(rng: random.Random, v: str) -> tuple[str, list]:
    e = v.replace("\\", "\\\\").replace('"', '\\"')
    return f'smtp:\n  user: {fill(rng, "email", None)}\n  password: "{e}"', [(e, _w(v, e))]


def yaml_pw(rng: random.Random) -> str:
    while True:
        v = mixed(rng, ALNUM + '"\\!#', rng.randrange(16, 24))
        if sum(c in '"\\' for c in v) >= 2:
            return v


def r_openssl_b64_wrapped(rng: random.Random, v: str) -> tuple[str, list]:
    e = b64s(json.dumps({"api_key": v, "endpoint": f"https://api.{fill(rng, 'domain', None)}"}))
    return "$ openssl base64 -in creds.json\n" + wrap(e, 64), [(e, 16)]


ENCODED = [
    E("enc-basic-auth-header", any_pw, r_basic_header, source="RFC 7617 Basic credentials base64(user:password)"),
    E("enc-docker-config-auth", plain_pw, r_docker_config, source="~/.docker/config.json auths.auth"),
    E("enc-npmrc-password", any_pw, r_npmrc_auth, source=".npmrc _password (base64 of the password)"),
    E("enc-k8s-secret-data", any_pw, r_k8s_data, source="Kubernetes Secret data (base64)"),
    E("enc-kubectl-json-data", tok("sk_live_51", (ALNUM, 97)), r_kubectl_json, source="kubectl get secret -o json .data"),
    E("enc-env-file-base64", any_pw, r_env_b64, source="base64 of a whole .env (76-column wrap)"),
    E("enc-data-uri", tok((ALNUM, 40)), r_data_uri, source="data: URI carrying an env file"),
    E("enc-url-userinfo", special_pw, r_url_in_uri, source="percent-encoded password in a URI userinfo (RFC 3986)"),
    E("enc-url-form-body", special_pw, r_url_form, source="application/x-www-form-urlencoded login body"),
    E("enc-url-double", special_pw, r_url_double, source="double percent-encoding in a redirect parameter"),
    E("enc-json-u-escapes", any_pw, r_u_escape, source="JSON \\u escapes of every character"),
    E("enc-hex-xxd-p", tok((ALNUM, 32)), r_hex_xxd, source="xxd -p hex of a token file"),
    E("enc-python-bytes", tok((ALNUM, 32)), r_py_bytes, source="Python bytes literal with \\x escapes"),
    E("enc-c-byte-array", tok((ALNUM, 32)), r_c_array, source="C uint8_t array of an embedded key"),
    E("enc-quoted-printable", special_pw, r_qp_mail, source="quoted-printable mail body (RFC 2045)"),
    E("enc-html-entities", tok((ALNUM, 32)), r_html_entities, source="HTML numeric character references"),
    E("enc-base32", any_pw, r_base32, source="base32 (RFC 4648)"),
    E("enc-powershell-encodedcommand", lambda r: mixed(r, ALNUM + "!#%*-_", r.randrange(16, 24)), r_ps_encoded, source="PowerShell -EncodedCommand (base64 of UTF-16LE)"),
    E("enc-smtp-auth-plain", any_pw, r_smtp_plain, source="SMTP AUTH PLAIN (RFC 4616) transcript"),
    E("enc-smtp-auth-login", any_pw, r_smtp_login, source="SMTP AUTH LOGIN transcript"),
    E("enc-gcp-creds-base64", tok("GOCSPX-", (B64URL, 28)), r_gcp_creds_b64, source="base64 of a Google credentials JSON in an env var"),
    E("enc-filezilla-pass", any_pw, r_filezilla, source="FileZilla sitemanager.xml Pass encoding=base64"),
    E("enc-dockerconfigjson", plain_pw, r_dockerconfigjson, source="kubernetes.io/dockerconfigjson (base64 of JSON holding base64 auth)"),
    E("enc-fullwidth", lambda r: mixed(r, ALNUM, 18), r_fullwidth, source="full-width characters typed through an IME"),
    E("enc-xml-escaped", xml_pw, r_xml_escaped, source="XML-escaped password in settings.xml"),
    E("enc-yaml-escaped", yaml_pw, r_yaml_escaped, source="YAML double-quoted escapes"),
    E("enc-openssl-base64-wrapped", tok((ALNUM, 40)), r_openssl_b64_wrapped, source="openssl base64 (64-column wrap) of a JSON credential file"),
]

# --------------------------------------------------------------------------------------------
# private key material
# --------------------------------------------------------------------------------------------



def _pem(label: str, prefix: str, n: int, width: int = 64) -> Callable[[random.Random], str]:
    def make(rng: random.Random) -> str:
        body = prefix + rs(rng, B64, n - len(prefix))
        return f"-----BEGIN {label}-----\n{wrap(body, width)}\n-----END {label}-----"

    return make


rsa_pkcs1 = _pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 1588)
rsa_pkcs8 = _pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1624)
ec_sec1 = _pem("EC PRIVATE KEY", "MHcCAQEEI", 164)
enc_pkcs8 = _pem("ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 1744)
dsa_key = _pem("DSA PRIVATE KEY", "MIIBuwIBAAKBgQ", 596)


def ec_pkcs8(rng: random.Random) -> str:
    body = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg" + rs(rng, B64, 43) + "oAoGCCqGSM49AwEHoUQDQgAE" + rs(rng, B64, 86)
    return f"-----BEGIN PRIVATE KEY-----\n{wrap(body, 64)}\n-----END PRIVATE KEY-----"


def ed25519_pkcs8(rng: random.Random) -> str:
    body = b64_of(bytes.fromhex("302e020100300506032b657004220420") + rbytes(rng, 32))
    return f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"


def _sshstr(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def openssh_ed25519(rng: random.Random) -> str:
    seed, pub = rbytes(rng, 32), rbytes(rng, 32)
    pubblob = _sshstr(b"ssh-ed25519") + _sshstr(pub)
    check = rbytes(rng, 4)
    priv = check + check + _sshstr(b"ssh-ed25519") + _sshstr(pub) + _sshstr(seed + pub) + _sshstr(f"{rng.choice(_USERS)}@laptop".encode())
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    blob = b"openssh-key-v1\0" + _sshstr(b"none") + _sshstr(b"none") + _sshstr(b"") + struct.pack(">I", 1) + _sshstr(pubblob) + _sshstr(priv)
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{wrap(b64_of(blob), 70)}\n-----END OPENSSH PRIVATE KEY-----"


def openssh_rsa(rng: random.Random) -> str:
    body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn" + rs(rng, B64, 2520)
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{wrap(body, 70)}\n-----END OPENSSH PRIVATE KEY-----"


def pgp_private(rng: random.Random) -> str:
    body = "lQdGBG" + rs(rng, B64, 1400)
    return f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{wrap(body, 64)}\n={rs(rng, B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----"


def ppk_private_lines(rng: random.Random) -> str:
    return b64_of(b"\x00\x00\x00\x20" + rbytes(rng, 32))


def bip39(rng: random.Random) -> str:
    return " ".join(rng.choice(BIP39) for _ in range(rng.choice([12, 24])))


BIP39 = ("abandon ability able about above absent absorb abstract absurd abuse access accident account accuse achieve acid acoustic acquire across "  # noqa: SIM905
         "action actor actress actual adapt address adjust admit adult advance advice aerobic affair afford afraid again agent agree ahead airport "
         "aisle alarm album alcohol alert alien alley allow almost alone alpha already alter always amateur amazing among amount amused analyst anchor "
         "ancient anger angle angry animal ankle announce annual another answer antenna antique anxiety apart apology appear apple approve april "
         "arctic arena argue armed armor army around arrange arrest arrive arrow artefact artist artwork aspect assault asset assist assume asthma "
         "athlete atom attack attend attitude attract auction audit august aunt author auto autumn average avocado avoid awake aware awesome awful "
         "awkward bamboo banana banner barely bargain barrel basic basket battle beach beauty because become before begin behave behind believe "
         "below bench benefit betray better between beyond bicycle biology birth bitter black blade blame blanket blast bleak bless blind blood "
         "blossom blouse board bonus border boring borrow bottom bounce bracket brain brand brass brave bread breeze brick bridge brief bright "
         "bring brisk broccoli broken bronze broom brother brown brush bubble buddy budget buffalo build bullet bundle bunker burden burger burst "
         "business butter buyer cabbage cabin cable cactus canal cancel candy cannon canoe canvas canyon capable capital captain carbon cargo "
         "carpet casino castle casual catalog category cattle caught cause caution ceiling celery cement census century cereal certain chair "
         "chalk champion change chaos chapter charge chase cheap check cheese cherry chicken chief child chimney choice choose chronic chuckle "
         "chunk churn cigar cinnamon circle citizen civil claim clarify clever client cliff climb clinic clock close cloth cloud clown cluster "
         "clutch coach coast coconut coffee collect color column combine comfort comic common company concert conduct confirm congress connect "
         "consider control convince copper coral correct cotton couch country couple course cousin cover coyote crack cradle craft crane crash "
         "crater crawl crazy cream credit creek cricket crime crisp critic cross crouch crowd crucial cruel cruise crumble crunch crystal "
         "culture cupboard curious current curtain curve cushion custom cycle damage dance danger daughter dawn debate decade december decide "
         "decline decorate decrease degree delay deliver demand denial dentist depart depend deposit depth deputy derive describe desert design "
         "detail detect develop device devote diagram diamond diary diesel differ digital dignity dilemma dinner dinosaur direct dirt disagree "
         "discover disease dismiss disorder display distance divert divide divorce dizzy doctor document dolphin domain donate donkey donor "
         "double dragon drama drastic drawer dream dress drift drill drink drive during dutch dwarf dynamic eager eagle early earn earth easily "
         "echo ecology economy educate effort eight either elbow elder electric elegant element elephant elevator elite embark embody embrace "
         "emerge emotion employ empower empty enable enact endless endorse enemy energy enforce engage engine enhance enjoy enlist enough enrich "
         "enroll ensure enter entire entry envelope episode equal equip erase erode erosion error erupt escape essay essence estate eternal "
         "ethics evidence evil evoke evolve exact example excess exchange excite exclude excuse execute exercise exhaust exhibit exile exist "
         "exotic expand expect expire explain expose express extend extra fabric faculty faint faith false family famous fancy fantasy fashion").split()


def eth_key(rng: random.Random) -> str:
    return "0x" + rs(rng, HEX, 64)


def wif(rng: random.Random) -> str:
    return rng.choice(["K", "L"]) + rs(rng, B58, 51)


def _wrap_json_pem(pem: str) -> str:
    return pem.replace("\n", "\\n") + "\\n"


def r_gcp_sa(rng: random.Random, v: str) -> tuple[str, list]:
    esc = _wrap_json_pem(v)
    proj = fill(rng, "app", None) + "-" + rs(rng, DIGITS, 6)
    text = ('{\n  "type": "service_account",\n  "project_id": "' + proj + '",\n  "private_key_id": "' + rs(rng, HEX, 40) + '",\n'
            '  "private_key": "' + esc + '",\n  "client_email": "deployer@' + proj + '.iam.gserviceaccount.com",\n'
            '  "client_id": "' + rs(rng, DIGITS, 21) + '",\n  "token_uri": "https://oauth2.googleapis.com/token"\n}')
    return text, [(esc, 10)]


def r_env_escaped_pem(rng: random.Random, v: str) -> tuple[str, list]:
    esc = v.replace("\n", "\\n")
    return f'GITHUB_APP_ID={rs(rng, DIGITS, 6)}\nGITHUB_APP_PRIVATE_KEY="{esc}"', [(esc, 10)]


def r_yaml_block(rng: random.Random, v: str) -> str:
    return "deploy:\n  host: " + fill(rng, "ip", None) + "\n  user: " + fill(rng, "user", None) + "\n  ssh_private_key: |\n" + "\n".join("    " + line for line in v.split("\n"))


def r_cat(path: str) -> Callable[[random.Random, str], str]:
    return rendering(f"$ cat {path}\n«v»", fill)


def r_tf_heredoc(rng: random.Random, v: str) -> str:
    return 'resource "tls_private_key" "imported" {}\n\nlocals {\n  ca_key = <<-EOT\n' + v + '\n  EOT\n}'


def kubeconfig_key_b64(rng: random.Random) -> str:
    return b64_of((ec_sec1(rng) + "\n").encode())


def r_kubeconfig_key(rng: random.Random, v: str) -> str:
    return ("users:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t" + rs(rng, B64, 120)
            + "\n    client-key-data: " + v)


def r_tls_secret(rng: random.Random, v: str) -> str:
    return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + fill(rng, "app", None) + "-tls\ntype: kubernetes.io/tls\ndata:\n"
            "  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSU" + rs(rng, B64, 100) + "\n  tls.key: " + v)


def r_ppk(rng: random.Random, v: str) -> str:
    return ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: " + fill(rng, "user", None) + "@workstation\nPublic-Lines: 2\n"
            "AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(rng, B64, 43) + "\n" + rs(rng, B64, 8) + "\nPrivate-Lines: 1\n" + v + "\nPrivate-MAC: " + rs(rng, HEX, 64))


def r_jwk_ec(rng: random.Random, v: str) -> str:
    return json.dumps({"kty": "EC", "crv": "P-256", "kid": rs(rng, HEX, 8), "x": rs(rng, B64URL, 43), "y": rs(rng, B64URL, 43), "d": v}, indent=2)


def r_jwk_okp(rng: random.Random, v: str) -> str:
    return '{"keys":[{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig","x":"' + rs(rng, B64URL, 43) + '","d":"' + v + '"}]}'


def r_jwk_rsa(rng: random.Random, v: str) -> str:
    return json.dumps({"kty": "RSA", "kid": "signing-" + fill(rng, "date", None), "n": rs(rng, B64URL, 342), "e": "AQAB", "d": v,
                       "p": rs(rng, B64URL, 171), "q": rs(rng, B64URL, 171)}, indent=1)


def r_age_keys(rng: random.Random, v: str) -> str:
    return f"# created: 2026-02-0{rng.randrange(1, 9)}T10:14:02Z\n# public key: age1{rs(rng, BECH32, 58)}\n{v}"


def r_wireguard(rng: random.Random, v: str) -> str:
    return (f"[Interface]\nAddress = 10.8.0.{rng.randrange(2, 250)}/24\nPrivateKey = {v}\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = {b64_of(rbytes(rng, 32))}\n"
            f"Endpoint = vpn.{fill(rng, 'domain', None)}:51820\nAllowedIPs = 0.0.0.0/0")


def r_solana(rng: random.Random, v: str) -> str:
    return f"$ cat ~/.config/solana/id.json\n{v}"


def solana_keypair(rng: random.Random) -> str:
    return "[" + ",".join(str(rng.randrange(256)) for _ in range(64)) + "]"


def r_sslkeylog(rng: random.Random, v: str) -> str:
    return f"# SSL/TLS secrets log file, generated by NSS\nCLIENT_RANDOM {rs(rng, HEX, 64)} {v}"


def r_minisign(rng: random.Random, v: str) -> str:
    return f"$ cat ~/.minisign/minisign.key\nuntrusted comment: minisign encrypted secret key\n{v}"


def r_p12_env(rng: random.Random, v: str) -> str:
    return f"      - name: Import signing certificate\n        env:\n          P12_BASE64: {v}\n          P12_PASSWORD: {plain_pw(rng)}\n        run: echo $P12_BASE64 | base64 --decode > cert.p12"


def r_jks_env(rng: random.Random, v: str) -> str:
    return f"ANDROID_KEYSTORE_BASE64={v}\nANDROID_KEY_ALIAS=upload"


def r_reality(rng: random.Random, v: str) -> str:
    return ('"realitySettings": {\n  "show": false,\n  "dest": "www.microsoft.com:443",\n  "serverNames": ["www.microsoft.com"],\n  "privateKey": "' + v
            + '",\n  "shortIds": ["' + rs(rng, HEX, 8) + '"]\n}')


def r_cosign(rng: random.Random, v: str) -> str:
    return f"$ cat cosign.key\n-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n{wrap(v, 64)}\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----"


def cosign_body(rng: random.Random) -> str:
    return b64_of(json.dumps({"kdf": {"name": "scrypt", "params": {"N": 65536, "r": 8, "p": 1}, "salt": b64_of(rbytes(rng, 32))},
                              "cipher": {"name": "nacl/secretbox", "nonce": b64_of(rbytes(rng, 24))},
                              "ciphertext": b64_of(rbytes(rng, 120))}).encode())


def KK(name: str, make: Callable[[random.Random], str], *renders, source: str) -> Kind:
    return kind(name, "keys", make, *[r if callable(r) else rendering(r, fill) for r in renders], source=source)


KEYS = [
    KK("key-rsa-pkcs1", rsa_pkcs1, r_cat("~/.ssh/id_rsa"), "Here is the deploy key, paste it into the server:\n\n«v»", source="PEM RSA PRIVATE KEY (PKCS#1)"),
    KK("key-rsa-pkcs8", rsa_pkcs8, r_cat("certs/server.key"), r_tf_heredoc, source="PEM PRIVATE KEY (PKCS#8 RSA)"),
    KK("key-ec-sec1", ec_sec1, r_cat("/etc/ssl/private/api.key"), "ssl_certificate_key inline for the test:\n«v»", source="PEM EC PRIVATE KEY (SEC1)"),
    KK("key-ec-pkcs8-apple-p8", ec_pkcs8, r_cat("AuthKey_«alnum:10».p8"), r_env_escaped_pem, source="App Store Connect .p8 (PKCS#8 P-256)"),
    KK("key-ed25519-pkcs8", ed25519_pkcs8, r_cat("signing/ed25519.pem"), source="PKCS#8 Ed25519 (openssl genpkey -algorithm ed25519)"),
    KK("key-encrypted-pkcs8", enc_pkcs8, r_cat("backup/ca.key.enc.pem"), source="PEM ENCRYPTED PRIVATE KEY"),
    KK("key-dsa", dsa_key, r_cat("/etc/ssh/legacy_dsa_key"), source="PEM DSA PRIVATE KEY"),
    KK("key-openssh-ed25519", openssh_ed25519, r_cat("~/.ssh/id_ed25519"), r_yaml_block, source="OpenSSH private key v1 (built byte for byte, ed25519)"),
    KK("key-openssh-rsa", openssh_rsa, r_cat("~/.ssh/id_rsa"), source="OpenSSH private key v1 (RSA)"),
    KK("key-pgp-private", pgp_private, r_cat("private.asc"), "gpg --import <<'EOF'\n«v»\nEOF", source="OpenPGP armored private key block"),
    KK("key-putty-ppk", ppk_private_lines, r_ppk, source="PuTTY .ppk v3 Private-Lines"),
    KK("key-gcp-service-account", rsa_pkcs8, r_gcp_sa, source="GCP service account JSON private_key with \\n escapes"),
    KK("key-github-app-env", rsa_pkcs1, r_env_escaped_pem, source="GitHub App private key in .env with \\n escapes"),
    KK("key-kubeconfig-client-key-data", kubeconfig_key_b64, r_kubeconfig_key, source="kubeconfig client-key-data (base64 of PEM)"),
    KK("key-k8s-tls-secret", kubeconfig_key_b64, r_tls_secret, source="kubernetes.io/tls Secret tls.key"),
    KK("key-jwk-ec-d", b64raw(32, url=True, pad=False), r_jwk_ec, source="JWK EC private member d (RFC 7518)"),
    KK("key-jwk-okp-d", b64raw(32, url=True, pad=False), r_jwk_okp, source="JWK OKP Ed25519 d (RFC 8037) in a JWKS"),
    KK("key-jwk-rsa-d", b64raw(256, url=True, pad=False), r_jwk_rsa, source="JWK RSA private exponent d"),
    KK("key-age-identity", tok("AGE-SECRET-KEY-1", (BECH32.upper(), 58)), r_age_keys, source="age-keygen keys.txt"),
    KK("key-wireguard", b64raw(32), r_wireguard, source="wg0.conf [Interface] PrivateKey"),
    KK("key-eth-private", eth_key, "PRIVATE_KEY=«v»", "networks: {\n  sepolia: {\n    url: `https://sepolia.infura.io/v3/${INFURA_ID}`,\n    accounts: [\"«v»\"],\n  },\n}", source="Ethereum private key (hardhat accounts / .env)"),
    KK("key-bitcoin-wif", wif, "bitcoin-cli importprivkey «v» \"cold\" false", source="Bitcoin WIF private key"),
    KK("key-bip39-mnemonic", bip39, "MNEMONIC=\"«v»\"", "seed phrase for the test wallet: «v»", source="BIP-39 mnemonic (English wordlist)"),
    KK("key-solana-keypair", solana_keypair, r_solana, source="Solana CLI id.json keypair (64 bytes as JSON)"),
    KK("key-nostr-nsec", tok("nsec1", (BECH32, 58)), "NOSTR_PRIVATE_KEY=«v»", source="Nostr nsec (NIP-19 bech32)"),
    KK("key-stellar-seed", tok("S", (B32U, 55)), "STELLAR_SECRET=«v»", source="Stellar secret seed S…"),
    KK("key-tezos-edsk", tok("edsk", (B58, 50)), "octez-client import secret key deployer unencrypted:«v»", source="Tezos edsk secret key"),
    KK("key-lnd-macaroon-hex", tok("0201036c6e6402f801030a10", (HEX, 280)), "lncli --macaroonpath=/dev/null bakemacaroon ...\nGrpc-Metadata-macaroon: «v»", source="LND admin macaroon hex"),
    KK("key-sslkeylog", hexs(96), r_sslkeylog, source="SSLKEYLOGFILE CLIENT_RANDOM master secret"),
    KK("key-minisign-secret", tok("RWRTY0Iy", (B64, 204)), r_minisign, source="minisign secret key file"),
    KK("key-cosign-encrypted", cosign_body, r_cosign, source="cosign.key (ENCRYPTED SIGSTORE PRIVATE KEY)"),
    KK("key-p12-base64-ci", tok("MIIKZQIBAzCCCi8GCSqGSIb3DQEHAaCCCiAEggocMIIKGDCCBM8GCSqGSIb3DQEHBqCCBMAwggS8AgEAMIIEtQYJKoZIhvcNAQcBMBwGCiqGSIb3DQEMAQYwDgQI", (B64, 600)), r_p12_env,
       source="PKCS#12 base64 in a CI workflow (iOS signing)"),
    KK("key-jks-base64-env", tok("/u3+7QAAAAIAAAAB", (B64, 500)), r_jks_env, source="Android JKS keystore base64 (FEEDFEED magic)"),
    KK("key-xray-reality", b64raw(32, url=True, pad=False), r_reality, source="Xray REALITY x25519 privateKey"),
]


def _line_of(first: Callable) -> Callable:
    """A rendering: the line of `first`'s text that holds (10 characters of) the value or of a form,
    at most 200 characters around it; a piece from the middle of the value is looked for first (past
    any fixed header)."""

    def render(rng: random.Random, v: str):
        text, forms = rendered(first(rng, v))
        lines = text.split("\n")
        for needle, width in [(v, 10), *forms]:
            mid = max(0, (len(needle) - width) // 2)  # pieces nearest the middle first
            starts = sorted(range(0, max(1, len(needle) - width + 1)), key=lambda i: abs(i - mid))
            for piece in (needle[i:i + width] for i in starts):
                if "\n" in piece:
                    continue
                for n, line in enumerate(lines):
                    at = line.find(piece)
                    if at < 0:
                        continue
                    before = [x.strip() for x in lines[:n] if x.strip()]
                    if len(line.strip()) < len(needle) + 8 and before and "\n" not in needle:  # the value alone: keep the line before
                        line = before[-1][-80:] + " " + line.strip()
                        at = line.find(piece)
                    whole = line.find(needle)
                    if whole >= 0 and len(needle) <= 200:  # keep the whole value when it fits
                        start = max(0, min(whole - 60, whole + len(needle) - 200))
                    else:
                        start = max(0, min(at - 60, len(line) - 200))
                    return line[start:start + 200].strip(), forms
        return lines[0][:200], forms

    return render


def with_line(k: Kind) -> Kind:
    """A kind with no one-line rendering also gets the line of its first rendering that holds the value."""
    probe = random.Random(zlib.crc32(k.name.encode()))
    fits = 0
    for _ in range(6):
        v = k.make(probe)
        texts = [rendered(r(random.Random(probe.random()), v))[0] for r in k.renders]
        fits += (k.self_evident and "\n" not in v and len(v) <= 220) or any("\n" not in t and len(t) <= 220 for t in texts)
    if fits == 6:
        return k
    return dataclasses.replace(k, renders=(*k.renders, _line_of(k.renders[0])))


OUTSIDER5_KINDS: list[Kind] = [with_line(k) for k in [*VENDOR, *CONFIG, *CLI, *CODE, *URI, *HTTP, *LOGS, *PROSE, *I18N, *ENCODED, *KEYS]]
check_unique_names(OUTSIDER5_KINDS)

# ruff: noqa: E501  (a table of kinds: one kind a line reads better than wrapped)
"""Credential kinds learned from secret scanners' public test fixtures and vendors' documentation.

Held apart from Moraine's rules: every shape here was read from trufflehog's detector tests and
keyword lists (`pkg/detectors/<name>/<name>_test.go`, `Keywords()`), detect-secrets' plugin
tests (`tests/plugins/*_test.py`) or a vendor's own documentation of its token format, never
from Moraine's rule files. `source` names where. Values are generated fresh from the shape
(alphabet, length, prefix); no real key is reused.

A kind whose value names its vendor (a prefix) is `self_evident`; the others are written with
the vendor's word nearby, as the scanners' own fixtures write them ("{keyword} token = '...'").
"""

from __future__ import annotations

import json
import random

from secret_eval.kinds import (
    ALNUM,
    B64,
    B64URL,
    DIGITS,
    HEX,
    HEXU,
    LALNUM,
    UALNUM,
    Kind,
    Render,
    b64_of,
    check_unique_names,
    kind,
    mixed,
    r_bare,
    r_bearer,
    r_code,
    r_env,
    r_header,
    r_json,
    r_prose,
    r_yaml,
    rbytes,
    rs,
    url_encoded,
    uuid4,
    wrap,
)

TH = "trufflehog:pkg/detectors/"
DS = "detect-secrets:tests/plugins/"
VD = "vendor-docs:"


def vendor(name: str, family: str, make, env: str, word: str, *extra: Render, source: str,
           self_evident: bool = True) -> Kind:
    """A vendor token: written in an env line, in prose naming the vendor, in the extra
    renderings, and (when it names itself) bare."""
    renders: list[Render] = [r_env(env), r_prose(word), *extra]
    if self_evident:
        renders.append(r_bare)
    return kind(name, family, make, *renders, source=source, self_evident=self_evident)


def _aws_pair(rng: random.Random, v: str) -> str:
    key_id = "AKIA" + rs(rng, UALNUM.replace("0", "").replace("1", ""), 16)
    return rng.choice([
        f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {v}\nregion = us-east-1",
        f"export AWS_ACCESS_KEY_ID={key_id}\nexport AWS_SECRET_ACCESS_KEY={v}",
        f"access key {key_id} secret {v}",
    ])


def _aws_session(rng: random.Random, v: str) -> str:
    key_id = "ASIA" + rs(rng, UALNUM, 16)
    secret = rs(rng, B64, 40)
    return (f'{{"Credentials": {{"AccessKeyId": "{key_id}", "SecretAccessKey": "{secret}", '
            f'"SessionToken": "{v}", "Expiration": "2026-02-11T10:00:00Z"}}}}')


def _mapbox(rng: random.Random) -> str:
    head = b64_of(json.dumps({"u": "dev" + rs(rng, LALNUM, 6), "a": rs(rng, LALNUM, 25)},
                             separators=(",", ":")).encode(), url=True, pad=False)
    return f"sk.{head}.{rs(rng, B64URL, 22)}"


def _jwt(rng: random.Random) -> str:
    header = b64_of(b'{"alg":"HS256","typ":"JWT"}', url=True, pad=False)
    claims = json.dumps({"sub": rs(rng, DIGITS, 10), "name": "svc-" + rs(rng, LALNUM, 6),
                         "iat": 1760000000 + rng.randrange(10**7), "jti": rs(rng, LALNUM, 16)},
                        separators=(",", ":"))
    return f"{header}.{b64_of(claims.encode(), url=True, pad=False)}.{rs(rng, B64URL, 43)}"


def _sentry_org(rng: random.Random) -> str:
    body = b64_of(json.dumps({"iat": 1760000000 + rng.randrange(10**6), "url": "https://sentry.io",
                              "region_url": "https://us.sentry.io", "org": "acme-" + rs(rng, LALNUM, 5)},
                             separators=(",", ":")).encode(), pad=False)
    return f"sntrys_{body}_{rs(rng, B64, 43)}"


def _grafana_cloud(rng: random.Random) -> str:
    body = b64_of(json.dumps({"o": rs(rng, DIGITS, 6), "n": "stack-" + rs(rng, DIGITS, 6) + "-hm-read",
                              "k": rs(rng, ALNUM, 24), "m": {"r": "us"}}, separators=(",", ":")).encode())
    return "glc_" + body


def _pem_rsa(rng: random.Random) -> str:
    return "MIIEpAIBAAKCAQEA" + rs(rng, B64, 1560) + "=="


def _gcp_sa(rng: random.Random, v: str) -> str:
    pem = "-----BEGIN PRIVATE KEY-----\n" + wrap(v) + "\n-----END PRIVATE KEY-----\n"
    doc = {"type": "service_account", "project_id": "acme-" + rs(rng, DIGITS, 6),
           "private_key_id": rs(rng, HEX, 40), "private_key": pem,
           "client_email": "ci@acme-prod.iam.gserviceaccount.com", "client_id": rs(rng, DIGITS, 21),
           "token_uri": "https://oauth2.googleapis.com/token"}
    return json.dumps(doc, indent=2)


def _discord_bot(rng: random.Random) -> str:
    user_id = str(rng.randrange(10**17, 10**18))
    return f"{b64_of(user_id.encode(), pad=False)}.{rs(rng, B64URL, 6)}.{rs(rng, B64URL, 38)}"


def _azure_sas(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
    """The signature is written URL-encoded, as a SAS URL carries it."""
    sig = url_encoded(v)
    return ("https://acmeprod.blob.core.windows.net/backups/db.dump?sv=2022-11-02&ss=b&srt=co&sp=rl"
            f"&se=2026-03-01T00:00:00Z&st=2026-02-01T00:00:00Z&spr=https&sig={sig}"), [(sig, 10)]


def _teams_webhook(rng: random.Random) -> str:
    return (f"https://acme.webhook.office.com/webhookb2/{uuid4(rng)}@{uuid4(rng)}/IncomingWebhook/"
            f"{rs(rng, HEX, 32)}/{uuid4(rng)}/{rs(rng, B64URL, 10)}")


def _az_conn(rng: random.Random, v: str) -> str:
    return (f"DefaultEndpointsProtocol=https;AccountName=acme{rs(rng, LALNUM, 6)};AccountKey={v};"
            "EndpointSuffix=core.windows.net")


def _okta(rng: random.Random, v: str) -> str:
    return (f"curl -H 'Authorization: SSWS {v}' https://acme-{rs(rng, LALNUM, 4)}.okta.com/api/v1/users?limit=2")


def _twilio_token(rng: random.Random, v: str) -> str:
    sid = "AC" + rs(rng, HEX, 32)
    return rng.choice([f"TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
                       f"client = Client('{sid}', '{v}')  # twilio",
                       f"curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts.json"])


def _twilio_key(rng: random.Random, v: str) -> str:
    return f"twilio api key SK{rs(rng, HEX, 32)} secret {v}"


def _alibaba(rng: random.Random, v: str) -> str:
    return f"ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI{rs(rng, ALNUM, 20)}\nALIBABA_CLOUD_ACCESS_KEY_SECRET={v}"


def _razorpay(rng: random.Random, v: str) -> str:
    return f"razorpay.Client(auth=(\"rzp_live_{rs(rng, ALNUM, 14)}\", \"{v}\"))"


def _datadog(rng: random.Random, v: str) -> str:
    return f"DD_API_KEY={v}\nDD_SITE=datadoghq.eu"


def _datadog_app(rng: random.Random, v: str) -> str:
    return (f"curl -H 'DD-API-KEY: {rs(rng, HEX, 32)}' -H 'DD-APPLICATION-KEY: {v}' "
            "https://api.datadoghq.com/api/v1/validate")


def _confluent(rng: random.Random, v: str) -> str:
    return f"confluent api-key: {rs(rng, UALNUM, 16)}\nconfluent api-secret: {v}"


def _sumo(rng: random.Random, v: str) -> str:
    return f"sumo accessId: su{rs(rng, ALNUM, 12)}\nsumo accessKey: {v}"


PUBLIC_KINDS: list[Kind] = [
    # --- AI providers ------------------------------------------------------------------------
    vendor("deepseek", "ai", lambda r: "sk-" + rs(r, HEX, 32), "DEEPSEEK_API_KEY", "deepseek",
           r_code('client = OpenAI(api_key="{v}", base_url="https://api.deepseek.com")'),
           source=TH + "deepseek (keyword deepseek, sk-+32)", self_evident=False),
    vendor("openai-project", "ai", lambda r: "sk-proj-" + rs(r, B64URL, 74) + "T3BlbkFJ" + rs(r, B64URL, 74),
           "OPENAI_API_KEY", "OpenAI", r_bearer("https://api.openai.com/v1/models"),
           source=TH + "openai/openai_test.go (T3BlbkFJ)"),
    vendor("openai-legacy", "ai", lambda r: "sk-" + mixed(r, ALNUM, 20) + "T3BlbkFJ" + mixed(r, ALNUM, 20),
           "OPENAI_API_KEY", "openai", r_code('openai.api_key = "{v}"'), source=TH + "openai/openai_test.go"),
    vendor("openai-svcacct", "ai",
           lambda r: "sk-svcacct-" + rs(r, B64URL, 58) + "T3BlbkFJ" + rs(r, B64URL, 58),
           "OPENAI_API_KEY", "OpenAI service account", source=TH + "openai/openai_test.go (svcacct)"),
    vendor("openai-admin", "ai", lambda r: "sk-admin-" + rs(r, B64URL, 58) + "T3BlbkFJ" + rs(r, B64URL, 58),
           "OPENAI_ADMIN_KEY", "OpenAI admin", source=TH + "openaiadmin/openaiadmin_test.go"),
    vendor("anthropic-api", "ai", lambda r: "sk-ant-api03-" + rs(r, B64URL, 93) + "AA", "ANTHROPIC_API_KEY",
           "Anthropic", r_header("x-api-key", "https://api.anthropic.com/v1/messages"),
           source=TH + "anthropic/anthropic_test.go"),
    vendor("anthropic-admin", "ai", lambda r: "sk-ant-admin01-" + rs(r, B64URL, 93) + "AA",
           "ANTHROPIC_ADMIN_KEY", "Anthropic admin", source=TH + "anthropic/anthropic_test.go"),
    vendor("huggingface", "ai", lambda r: "hf_" + mixed(r, ALNUM, 34), "HF_TOKEN", "Hugging Face",
           r_code('login(token="{v}")'), source=TH + "huggingface (hf_ + 34)"),
    vendor("groq", "ai", lambda r: "gsk_" + mixed(r, ALNUM, 52), "GROQ_API_KEY", "groq",
           source=TH + "groq/groq_test.go"),
    vendor("xai", "ai", lambda r: "xai-" + mixed(r, ALNUM, 80), "XAI_API_KEY", "xAI", source=TH + "xai/xai_test.go"),
    vendor("openrouter", "ai", lambda r: "sk-or-v1-" + rs(r, HEX, 64), "OPENROUTER_API_KEY", "OpenRouter",
           source=TH + "openrouter/openrouter_test.go"),
    vendor("perplexity", "ai", lambda r: "pplx-" + mixed(r, ALNUM, 48), "PERPLEXITY_API_KEY", "perplexity",
           source=VD + "Perplexity API keys (pplx-)"),
    vendor("replicate", "ai", lambda r: "r8_" + mixed(r, ALNUM, 37), "REPLICATE_API_TOKEN", "replicate",
           source=TH + "replicate (r8_ + 37)"),
    vendor("langsmith", "ai", lambda r: f"lsv2_pt_{rs(r, HEX, 32)}_{rs(r, HEX, 10)}", "LANGSMITH_API_KEY",
           "LangSmith", source=TH + "langsmith/langsmith_test.go"),
    vendor("langfuse", "ai", lambda r: "sk-lf-" + uuid4(r), "LANGFUSE_SECRET_KEY", "langfuse",
           source=TH + "langfuse (sk-lf-uuid)"),
    vendor("pinecone", "ai", lambda r: f"pcsk_{rs(r, ALNUM, 5)}_{mixed(r, ALNUM, 63)}", "PINECONE_API_KEY",
           "pinecone", source=TH + "pinecone/pinecone_test.go"),
    vendor("nvidia-ngc", "ai", lambda r: "nvapi-" + rs(r, B64URL, 64), "NVIDIA_API_KEY", "NVIDIA",
           source=TH + "nvapi"),
    vendor("elevenlabs", "ai", lambda r: "sk_" + rs(r, HEX, 48), "ELEVENLABS_API_KEY", "elevenlabs",
           r_header("xi-api-key", "https://api.elevenlabs.io/v1/voices"), source=TH + "elevenlabs (v2 sk_+48 hex)",
           self_evident=False),
    vendor("assemblyai", "ai", lambda r: rs(r, LALNUM, 32), "ASSEMBLYAI_API_KEY", "assemblyai",
           source=TH + "assemblyai (keyword + 32)", self_evident=False),
    vendor("wandb", "ai", lambda r: rs(r, HEX, 40), "WANDB_API_KEY", "wandb",
           r_code("machine api.wandb.ai\n  login user\n  password {v}"), source=TH + "weightsandbiases (wandb + 40 hex)",
           self_evident=False),
    # --- source hosting and packages --------------------------------------------------------
    vendor("github-classic", "vcs", lambda r: "ghp_" + mixed(r, ALNUM, 36), "GITHUB_TOKEN", "GitHub",
           r_code("git clone https://{v}@github.com/acme/private-repo.git"), source=TH + "github/v2"),
    vendor("github-oauth", "vcs", lambda r: "gho_" + mixed(r, ALNUM, 36), "GH_TOKEN", "gh cli",
           r_yaml("oauth_token"), source=TH + "github/v2 (gho_)"),
    vendor("github-app-install", "vcs", lambda r: "ghs_" + mixed(r, ALNUM, 36), "GITHUB_TOKEN", "GitHub app",
           source=TH + "github/v2 (ghs_)"),
    vendor("github-refresh", "vcs", lambda r: "ghr_" + mixed(r, ALNUM, 76), "GITHUB_REFRESH_TOKEN", "GitHub",
           source=TH + "github/v2 (ghr_)"),
    vendor("github-user-to-server", "vcs", lambda r: "ghu_" + mixed(r, ALNUM, 36), "GITHUB_USER_TOKEN", "GitHub",
           source=TH + "github/v2 (ghu_)"),
    vendor("github-fine-grained", "vcs", lambda r: f"github_pat_{mixed(r, ALNUM, 22)}_{mixed(r, ALNUM, 59)}",
           "GITHUB_PAT", "GitHub fine-grained", r_bearer("https://api.github.com/user"),
           source=TH + "github/v2 (github_pat_)"),
    vendor("gitlab-pat", "vcs", lambda r: "glpat-" + mixed(r, ALNUM + "-_", 20), "GITLAB_TOKEN", "GitLab",
           r_header("PRIVATE-TOKEN", "https://gitlab.com/api/v4/projects"), source=TH + "gitlab/v2"),
    vendor("gitlab-pat-routable", "vcs",
           lambda r: f"glpat-{mixed(r, ALNUM + '-_', 36)}.01.{rs(r, LALNUM, 9)}", "GITLAB_TOKEN", "GitLab",
           source=TH + "gitlab/v3 (routable glpat)"),
    vendor("gitlab-runner", "vcs", lambda r: "glrt-" + mixed(r, ALNUM + "-_", 20), "RUNNER_TOKEN", "gitlab runner",
           source=VD + "GitLab token prefixes (glrt-)"),
    vendor("npm", "packages", lambda r: "npm_" + mixed(r, ALNUM, 36), "NPM_TOKEN", "npm",
           r_code("//registry.npmjs.org/:_authToken={v}"), source=TH + "npmtokenv2"),
    vendor("pypi", "packages", lambda r: "pypi-AgEIcHlwaS5vcmcCJ" + rs(r, B64URL, 154), "TWINE_PASSWORD", "PyPI",
           r_code("[pypi]\n  username = __token__\n  password = {v}"), source=TH + "pypi/pypi_test.go"),
    vendor("testpypi", "packages", lambda r: "pypi-AgENdGVzdC5weXBpLm9yZw" + rs(r, B64URL, 150),
           "TWINE_PASSWORD", "TestPyPI",
           r_code("twine upload --repository testpypi -u __token__ -p {v} dist/*"),
           source=VD + "TestPyPI API tokens (pypi-AgENdGVzdC5weXBpLm9yZw)"),
    vendor("rubygems", "packages", lambda r: "rubygems_" + rs(r, HEX, 48), "GEM_HOST_API_KEY", "rubygems",
           r_yaml(":rubygems_api_key"), source=TH + "rubygems"),
    vendor("dockerhub", "packages", lambda r: "dckr_pat_" + mixed(r, B64URL, 27), "DOCKERHUB_TOKEN", "Docker Hub",
           r_code("echo {v} | docker login -u acmebot --password-stdin"), source=TH + "dockerhub/v2"),
    vendor("nuget", "packages", lambda r: "oy2" + rs(r, LALNUM, 43), "NUGET_API_KEY", "nuget",
           r_code("dotnet nuget push pkg.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json"),
           source=TH + "nugetapikey (keyword nuget, 46 lower alnum)", self_evident=False),
    vendor("artifactory", "packages", lambda r: "AKCp" + mixed(r, ALNUM, 69), "ARTIFACTORY_API_KEY", "jfrog",
           source=TH + "artifactory (AKCp + 69)"),
    # --- cloud and infrastructure ----------------------------------------------------------
    kind("aws-key-pair", "cloud", lambda r: mixed(r, B64, 40), _aws_pair, source=TH + "aws/access_keys",
         self_evident=False),
    kind("aws-session-token", "cloud", lambda r: "FwoGZXIvYXdzE" + rs(r, B64, 340), _aws_session,
         source=TH + "aws/session_keys (ASIA + 100+ base64)"),
    vendor("azure-devops-pat", "cloud", lambda r: rs(r, LALNUM, 52), "AZURE_DEVOPS_EXT_PAT", "Azure DevOps",
           r_code("git clone https://build:{v}@dev.azure.com/acme/web/_git/web"),
           source=TH + "azuredevopspersonalaccesstoken (azure + 52)", self_evident=False),
    kind("azure-storage-key", "cloud", lambda r: b64_of(rbytes(r, 64)), _az_conn, r_env("AZURE_STORAGE_KEY"),
         source=TH + "azure_storage; " + DS + "azure_storage_key_test.py"),
    kind("azure-sas-sig", "cloud", lambda r: b64_of(rbytes(r, 32)), _azure_sas, source=TH + "azuresastoken"),
    vendor("azure-ad-client-secret", "cloud",
           lambda r: rs(r, ALNUM, 3) + "8Q~" + mixed(r, ALNUM + "_~.-", 31), "AZURE_CLIENT_SECRET",
           "Entra app", source=TH + "azure_entra (Q~ secrets)"),
    vendor("gcp-api-key", "cloud", lambda r: "AIza" + mixed(r, B64URL, 35), "GOOGLE_API_KEY", "Google",
           r_code("https://maps.googleapis.com/maps/api/geocode/json?address=x&key={v}"), source=TH + "gcp"),
    vendor("google-oauth-client-secret", "cloud", lambda r: "GOCSPX-" + mixed(r, B64URL, 28),
           "GOOGLE_CLIENT_SECRET", "Google OAuth client", r_json("client_secret"),
           source=VD + "Google OAuth client secrets (GOCSPX-)"),
    vendor("google-oauth-access", "cloud", lambda r: "ya29." + rs(r, B64URL, 150), "GOOGLE_ACCESS_TOKEN",
           "google", r_bearer("https://www.googleapis.com/drive/v3/files"),
           source=TH + "googleoauth2/googleoauth2_access_token_test.go"),
    vendor("google-refresh", "cloud", lambda r: "1//0" + rs(r, B64URL, 99), "GOOGLE_REFRESH_TOKEN", "google",
           r_json("refresh_token"), source=VD + "Google OAuth refresh tokens (1//)"),
    kind("gcp-service-account", "cloud", _pem_rsa, _gcp_sa, source=TH + "gcp (service account JSON)"),
    vendor("digitalocean", "cloud", lambda r: "dop_v1_" + rs(r, HEX, 64), "DIGITALOCEAN_TOKEN", "DigitalOcean",
           source=TH + "digitaloceanv2"),
    vendor("heroku-v2", "cloud", lambda r: "HRKU-AA" + mixed(r, B64URL, 58), "HEROKU_API_KEY", "Heroku",
           source=TH + "heroku/v2"),
    vendor("heroku-uuid", "cloud", lambda r: uuid4(r), "HEROKU_API_KEY", "heroku",
           r_code("heroku auth:token\n{v}"), source=TH + "heroku/v1 (keyword + uuid)", self_evident=False),
    vendor("vault-service", "cloud", lambda r: "hvs." + mixed(r, B64URL, 100), "VAULT_TOKEN", "Vault",
           r_header("X-Vault-Token", "https://vault.acme.io/v1/secret/data/app"),
           source=TH + "hashicorpvault/hashicorpvaulttoken"),
    vendor("vault-batch", "cloud", lambda r: "hvb." + mixed(r, B64URL, 120), "VAULT_TOKEN", "vault",
           source=TH + "hashicorpvault/hashicorpvaultbatchtoken"),
    vendor("terraform-cloud", "cloud", lambda r: f"{mixed(r, ALNUM, 14)}.atlasv1.{mixed(r, ALNUM, 67)}",
           "TF_TOKEN_app_terraform_io", "Terraform Cloud",
           r_code('credentials "app.terraform.io" {\n  token = "{v}"\n}'), source=TH + "terraformcloudpersonaltoken"),
    vendor("pulumi", "cloud", lambda r: "pul-" + rs(r, HEX, 40), "PULUMI_ACCESS_TOKEN", "Pulumi", source=TH + "pulumi"),
    vendor("dynatrace", "cloud", lambda r: f"dt0c01.{rs(r, UALNUM, 24)}.{rs(r, UALNUM, 64)}", "DT_API_TOKEN",
           "Dynatrace", r_header("Authorization", "https://abc12345.live.dynatrace.com/api/v2/metrics"),
           source=VD + "Dynatrace access tokens (dt0c01.<24>.<64>)"),
    vendor("databricks", "cloud", lambda r: "dapi" + rs(r, HEX, 32), "DATABRICKS_TOKEN", "Databricks",
           source=TH + "databrickstoken"),
    vendor("doppler", "cloud", lambda r: "dp.pt." + mixed(r, ALNUM, 43), "DOPPLER_TOKEN", "Doppler",
           source=TH + "doppler"),
    vendor("doppler-service", "cloud", lambda r: "dp.st.prd." + mixed(r, ALNUM, 40), "DOPPLER_TOKEN", "doppler",
           source=TH + "doppler (dp.st.<env>.)"),
    vendor("flyio", "cloud", lambda r: "FlyV1 fm2_" + rs(r, B64, 600), "FLY_API_TOKEN", "fly.io",
           source=TH + "flyio/flyio_test.go"),
    vendor("planetscale-token", "cloud", lambda r: "pscale_tkn_" + mixed(r, ALNUM + "_", 43),
           "PLANETSCALE_SERVICE_TOKEN", "PlanetScale", source=TH + "planetscale"),
    vendor("planetscale-password", "cloud", lambda r: "pscale_pw_" + mixed(r, ALNUM + "_", 43), "DATABASE_PASSWORD",
           "planetscale", source=TH + "planetscaledb"),
    vendor("supabase", "cloud", lambda r: "sbp_" + rs(r, HEX, 40), "SUPABASE_ACCESS_TOKEN", "Supabase",
           source=TH + "supabasetoken"),
    vendor("tailscale", "cloud", lambda r: f"tskey-auth-k{rs(r, ALNUM, 10)}CNTRL-{mixed(r, ALNUM, 33)}",
           "TS_AUTHKEY", "tailscale", source=TH + "tailscale"),
    vendor("cloudflare-api-token", "cloud", lambda r: mixed(r, B64URL, 40), "CLOUDFLARE_API_TOKEN", "cloudflare",
           r_bearer("https://api.cloudflare.com/client/v4/user/tokens/verify"),
           source=TH + "cloudflareapitoken", self_evident=False),
    vendor("cloudflare-global-key", "cloud", lambda r: rs(r, HEX, 37), "CLOUDFLARE_API_KEY", "cloudflare",
           r_header("X-Auth-Key", "https://api.cloudflare.com/client/v4/zones"),
           source=TH + "cloudflareglobalapikey", self_evident=False),
    vendor("cloudflare-origin-ca", "cloud", lambda r: f"v1.0-{rs(r, HEX, 24)}-{rs(r, HEX, 146)}",
           "CF_ORIGIN_CA_KEY", "cloudflare origin CA", source=TH + "cloudflarecakey"),
    vendor("alibaba", "cloud", lambda r: mixed(r, ALNUM, 30), "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "alibaba",
           _alibaba, source=TH + "alibaba (LTAI id + 30)", self_evident=False),
    vendor("ibm-cloud-iam", "cloud", lambda r: mixed(r, ALNUM + "-_", 44), "IBMCLOUD_API_KEY", "ibm cloud",
           r_json("ibm_cloud_iam_api_key"), source=DS + "ibm_cloud_iam_test.py", self_evident=False),
    vendor("scalingo", "cloud", lambda r: "tk-us-" + mixed(r, B64URL, 48), "SCALINGO_API_TOKEN", "scalingo",
           source=VD + "Scalingo API tokens (tk-us-)"),
    vendor("render", "cloud", lambda r: "rnd_" + mixed(r, ALNUM, 32), "RENDER_API_KEY", "render.com",
           source=VD + "Render API keys (rnd_)"),
    vendor("age-secret-key", "crypto", lambda r: "AGE-SECRET-KEY-1" + rs(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
           "SOPS_AGE_KEY", "age", source=VD + "age secret keys (bech32, AGE-SECRET-KEY-1)"),
    kind("jwt", "crypto", _jwt, r_bearer("https://api.acme.io/v1/me"), r_env("ACCESS_TOKEN"), r_bare,
         source=TH + "jwt", self_evident=True),
    # --- payments ----------------------------------------------------------------------------
    vendor("stripe-secret", "payments", lambda r: "sk_live_" + mixed(r, ALNUM, 99), "STRIPE_SECRET_KEY", "Stripe",
           r_code("curl https://api.stripe.com/v1/charges -u {v}:"), source=TH + "stripe; " + DS + "stripe_key_test.py"),
    vendor("stripe-restricted", "payments", lambda r: "rk_live_" + mixed(r, ALNUM, 24), "STRIPE_API_KEY", "Stripe",
           source=TH + "stripe ([rs]k_live_)"),
    vendor("stripe-webhook", "payments", lambda r: "whsec_" + mixed(r, ALNUM, 32), "STRIPE_WEBHOOK_SECRET",
           "Stripe webhook", source=VD + "Stripe webhook signing secrets (whsec_)"),
    vendor("square-access", "payments", lambda r: "EAAA" + mixed(r, B64URL, 60), "SQUARE_ACCESS_TOKEN", "square",
           source=TH + "square (EAAA + 60)"),
    vendor("square-oauth-secret", "payments", lambda r: "sq0csp-" + mixed(r, B64URL, 43), "SQUARE_APP_SECRET",
           "square oauth", source=DS + "square_oauth_test.py"),
    vendor("shopify-admin", "payments", lambda r: "shpat_" + rs(r, HEX, 32), "SHOPIFY_ACCESS_TOKEN", "Shopify",
           r_header("X-Shopify-Access-Token", "https://acme.myshopify.com/admin/api/2024-01/shop.json"),
           source=TH + "shopify"),
    vendor("shopify-shared-secret", "payments", lambda r: "shpss_" + rs(r, HEX, 32), "SHOPIFY_API_SECRET",
           "shopify", source=VD + "Shopify app secrets (shpss_)"),
    vendor("paystack", "payments", lambda r: "sk_live_" + rs(r, HEX, 40), "PAYSTACK_SECRET_KEY", "paystack",
           source=TH + "paystack"),
    vendor("flutterwave", "payments", lambda r: f"FLWSECK-{rs(r, HEX, 32)}-X", "FLW_SECRET_KEY", "flutterwave",
           source=TH + "flutterwave"),
    vendor("razorpay", "payments", lambda r: mixed(r, ALNUM, 24), "RAZORPAY_KEY_SECRET", "razorpay", _razorpay,
           source=TH + "razorpay (rzp_live_ id + 24 secret)", self_evident=False),
    vendor("duffel", "payments", lambda r: f"duffel_{r.choice(['test', 'live'])}_{mixed(r, B64URL, 43)}",
           "DUFFEL_ACCESS_TOKEN", "Duffel", r_bearer("https://api.duffel.com/air/offer_requests"),
           source=TH + "duffeltoken/duffeltoken_test.go"),
    vendor("shippo", "payments", lambda r: f"shippo_{r.choice(['live', 'test'])}_{rs(r, HEX, 40)}",
           "SHIPPO_API_TOKEN", "Shippo", r_code("Authorization: ShippoToken {v}"),
           source=TH + "shippo/shippo_test.go"),
    vendor("plaid-secret", "payments", lambda r: rs(r, HEX, 30), "PLAID_SECRET", "plaid",
           source=TH + "plaidkey (keyword + 30 hex)", self_evident=False),
    vendor("gocardless", "payments", lambda r: "live_" + mixed(r, B64URL, 40), "GOCARDLESS_ACCESS_TOKEN",
           "gocardless", source=TH + "gocardless", self_evident=False),
    # --- messaging, e-mail, collaboration ----------------------------------------------------
    vendor("slack-bot", "messaging", lambda r: f"xoxb-{rs(r, DIGITS, 11)}-{rs(r, DIGITS, 13)}-{mixed(r, ALNUM, 24)}",
           "SLACK_BOT_TOKEN", "Slack", r_bearer("https://slack.com/api/auth.test"), source=TH + "slack"),
    vendor("slack-user", "messaging",
           lambda r: f"xoxp-{rs(r, DIGITS, 11)}-{rs(r, DIGITS, 11)}-{rs(r, DIGITS, 13)}-{rs(r, HEX, 32)}",
           "SLACK_USER_TOKEN", "Slack", source=TH + "slack"),
    vendor("slack-xoxc", "messaging",
           lambda r: f"xoxc-{rs(r, DIGITS, 12)}-{rs(r, DIGITS, 12)}-{rs(r, DIGITS, 13)}-{rs(r, HEX, 64)}",
           "SLACK_XOXC", "Slack client", source=VD + "Slack browser session tokens (xoxc-)"),
    vendor("slack-xoxd", "messaging",
           lambda r: "xoxd-" + rs(r, ALNUM, 40) + "%2F" + rs(r, ALNUM, 60) + "%2B" + rs(r, ALNUM, 50) + "%3D",
           "SLACK_D_COOKIE", "Slack d cookie", r_code("curl -b 'd={v}' https://acme.slack.com/api/auth.test"),
           source=VD + "Slack d cookie (xoxd-, url-encoded)"),
    vendor("slack-app", "messaging", lambda r: f"xapp-1-A{rs(r, UALNUM, 10)}-{rs(r, DIGITS, 13)}-{rs(r, HEX, 64)}",
           "SLACK_APP_TOKEN", "Slack app", source=VD + "Slack app-level tokens (xapp-)"),
    vendor("slack-webhook", "webhook",
           lambda r: f"https://hooks.slack.com/services/T{rs(r, UALNUM, 9)}/B{rs(r, UALNUM, 10)}/{mixed(r, ALNUM, 24)}",
           "SLACK_WEBHOOK_URL", "slack webhook", r_code("curl -X POST -d '{\"text\":\"hi\"}' {v}"),
           source=TH + "slackwebhook"),
    vendor("discord-webhook", "webhook",
           lambda r: f"https://discord.com/api/webhooks/{rs(r, DIGITS, 19)}/{mixed(r, B64URL, 68)}",
           "DISCORD_WEBHOOK", "discord webhook", source=TH + "discordwebhook"),
    vendor("teams-webhook", "webhook", _teams_webhook, "TEAMS_WEBHOOK_URL", "Teams webhook",
           source=TH + "microsoftteamswebhook"),
    vendor("tines-webhook", "webhook",
           lambda r: f"https://acme-{rs(r, LALNUM, 4)}.tines.com/webhook/{rs(r, LALNUM, 32)}/{rs(r, LALNUM, 32)}",
           "TINES_WEBHOOK", "tines", source=TH + "tineswebhook"),
    vendor("discord-bot", "messaging", _discord_bot, "DISCORD_BOT_TOKEN", "discord bot",
           r_code("client.run('{v}')  # discord"), source=TH + "discordbottoken", self_evident=False),
    vendor("telegram-bot", "messaging", lambda r: f"{rs(r, DIGITS, 10)}:AA{mixed(r, B64URL, 33)}",
           "TELEGRAM_BOT_TOKEN", "telegram", r_code("https://api.telegram.org/bot{v}/getMe"),
           source=TH + "telegrambottoken; " + DS + "telegram_token_test.py"),
    vendor("twilio-auth-token", "messaging", lambda r: rs(r, HEX, 32), "TWILIO_AUTH_TOKEN", "twilio",
           _twilio_token, source=TH + "twilio (sid + 32 hex)", self_evident=False),
    vendor("twilio-api-secret", "messaging", lambda r: mixed(r, ALNUM, 32), "TWILIO_API_SECRET", "twilio",
           _twilio_key, source=TH + "twilioapikey", self_evident=False),
    vendor("sendgrid", "messaging", lambda r: f"SG.{mixed(r, B64URL, 22)}.{mixed(r, B64URL, 43)}",
           "SENDGRID_API_KEY", "SendGrid", source=TH + "sendgrid; " + DS + "sendgrid_test.py"),
    vendor("brevo", "messaging", lambda r: f"xkeysib-{rs(r, HEX, 64)}-{mixed(r, ALNUM, 16)}", "BREVO_API_KEY",
           "Brevo", r_header("api-key", "https://api.brevo.com/v3/account"), source=TH + "sendinbluev2"),
    vendor("mailgun", "messaging", lambda r: "key-" + rs(r, HEX, 32), "MAILGUN_API_KEY", "mailgun",
           r_code("curl -s --user 'api:{v}' https://api.mailgun.net/v3/domains"), source=TH + "mailgun"),
    vendor("mailgun-new", "messaging", lambda r: f"{rs(r, HEX, 32)}-{rs(r, HEX, 8)}-{rs(r, HEX, 8)}",
           "MAILGUN_API_KEY", "mailgun", source=TH + "mailgun (hex-hex-hex)", self_evident=False),
    vendor("mailchimp", "messaging", lambda r: f"{rs(r, HEX, 32)}-us{r.randrange(1, 21)}", "MAILCHIMP_API_KEY",
           "mailchimp", source=TH + "mailchimp; " + DS + "mailchimp_key_test.py", self_evident=False),
    vendor("mailersend", "messaging", lambda r: "mlsn." + rs(r, HEX, 64), "MAILERSEND_API_KEY", "MailerSend",
           source=VD + "MailerSend API tokens (mlsn.)"),
    vendor("postmark", "messaging", lambda r: uuid4(r), "POSTMARK_SERVER_TOKEN", "postmark",
           r_header("X-Postmark-Server-Token", "https://api.postmarkapp.com/server"), source=TH + "postmark",
           self_evident=False),
    vendor("facebook-page", "messaging", lambda r: "EAA" + r.choice("BGJ") + mixed(r, ALNUM, 180),
           "FB_PAGE_ACCESS_TOKEN", "Facebook", r_code("https://graph.facebook.com/v19.0/me?access_token={v}"),
           source=TH + "facebookoauth; " + VD + "Meta access tokens (EAA...)"),
    vendor("okta-ssws", "saas", lambda r: "00" + mixed(r, B64URL, 40), "OKTA_API_TOKEN", "okta", _okta,
           source=TH + "okta (SSWS, 00 + 40)", self_evident=False),
    vendor("atlassian", "saas", lambda r: "ATATT3xFfGF0" + mixed(r, B64URL, 180) + "=" + rs(r, HEXU, 8),
           "JIRA_API_TOKEN", "Atlassian", source=TH + "atlassian/v2 (ATCTT3xFfG / ATATT)"),
    vendor("linear", "saas", lambda r: "lin_api_" + mixed(r, ALNUM, 40), "LINEAR_API_KEY", "Linear",
           source=TH + "linearapi"),
    vendor("notion", "saas", lambda r: "ntn_" + rs(r, DIGITS, 11) + mixed(r, ALNUM, 35), "NOTION_TOKEN", "Notion",
           source=VD + "Notion integration tokens (ntn_); " + TH + "notion"),
    vendor("notion-legacy", "saas", lambda r: "secret_" + mixed(r, ALNUM, 43), "NOTION_API_KEY", "notion",
           source=TH + "notion (secret_ + 43)", self_evident=False),
    vendor("postman", "saas", lambda r: f"PMAK-{rs(r, HEX, 24)}-{rs(r, HEX, 34)}", "POSTMAN_API_KEY", "Postman",
           source=TH + "postman"),
    vendor("airtable", "saas", lambda r: f"pat{mixed(r, ALNUM, 14)}.{rs(r, HEX, 64)}", "AIRTABLE_TOKEN",
           "airtable", source=TH + "airtablepersonalaccesstoken/airtablepersonalaccesstoken_test.go"),
    vendor("asana", "saas", lambda r: f"2/{rs(r, DIGITS, 16)}/{rs(r, DIGITS, 16)}:{rs(r, HEX, 32)}",
           "ASANA_PAT", "asana", source=TH + "asanapersonalaccesstoken", self_evident=False),
    vendor("clickup", "saas", lambda r: f"pk_{rs(r, DIGITS, 8)}_{rs(r, UALNUM, 32)}", "CLICKUP_API_TOKEN",
           "clickup", source=TH + "clickuppersonaltoken", self_evident=False),
    vendor("contentful", "saas", lambda r: "CFPAT-" + mixed(r, B64URL, 43), "CONTENTFUL_MANAGEMENT_TOKEN",
           "contentful", source=TH + "contentfulpersonalaccesstoken"),
    vendor("figma", "saas", lambda r: "figd_" + mixed(r, B64URL, 40), "FIGMA_TOKEN", "figma",
           r_header("X-Figma-Token", "https://api.figma.com/v1/me"), source=TH + "figmapersonalaccesstoken/v2"),
    vendor("frameio", "saas", lambda r: "fio-u-" + mixed(r, B64URL, 64), "FRAMEIO_TOKEN", "frame.io",
           source=TH + "frameio"),
    vendor("launchdarkly", "saas", lambda r: "api-" + uuid4(r), "LD_API_KEY", "LaunchDarkly",
           source=TH + "launchdarkly/launchdarkly_test.go"),
    vendor("netlify", "saas", lambda r: "nfp_" + mixed(r, ALNUM, 36), "NETLIFY_AUTH_TOKEN", "Netlify",
           source=VD + "Netlify personal access tokens (nfp_)"),
    vendor("vercel", "saas", lambda r: mixed(r, ALNUM, 24), "VERCEL_TOKEN", "vercel",
           r_code("vercel deploy --prod --token {v}"), source=TH + "vercel (keyword + 24)", self_evident=False),
    vendor("pagerduty", "saas", lambda r: "u+" + mixed(r, B64URL, 18), "PAGERDUTY_TOKEN", "pagerduty",
           r_code("Authorization: Token token={v}  # pagerduty"), source=TH + "pagerdutyapikey", self_evident=False),
    vendor("snyk", "saas", lambda r: uuid4(r), "SNYK_TOKEN", "snyk", source=TH + "snykkey/snykkey_test.go",
           self_evident=False),
    vendor("sentry-user", "saas", lambda r: "sntryu_" + rs(r, HEX, 64), "SENTRY_AUTH_TOKEN", "Sentry",
           source=TH + "sentrytoken/v2"),
    kind("sentry-org", "saas", _sentry_org, r_env("SENTRY_AUTH_TOKEN"), r_prose("sentry"), r_bare,
         source=TH + "sentryorgtoken (sntrys_eyJ)", self_evident=True),
    kind("grafana-cloud", "saas", _grafana_cloud, r_env("GRAFANA_CLOUD_TOKEN"), r_prose("Grafana Cloud"), r_bare,
         source=TH + "grafana (glc_eyJ)", self_evident=True),
    vendor("grafana-sa", "saas", lambda r: f"glsa_{mixed(r, ALNUM, 32)}_{rs(r, HEX, 8)}", "GRAFANA_TOKEN",
           "grafana", source=TH + "grafanaserviceaccount"),
    vendor("newrelic", "saas", lambda r: "NRAK-" + rs(r, UALNUM, 27), "NEW_RELIC_API_KEY", "newrelic",
           source=TH + "newrelicpersonalapikey"),
    vendor("datadog-api", "saas", lambda r: rs(r, HEX, 32), "DD_API_KEY", "datadog", _datadog,
           source=TH + "datadogtoken", self_evident=False),
    vendor("datadog-app", "saas", lambda r: rs(r, HEX, 40), "DD_APP_KEY", "datadog", _datadog_app,
           source=TH + "datadogtoken (app key)", self_evident=False),
    vendor("algolia-admin", "saas", lambda r: rs(r, HEX, 32), "ALGOLIA_ADMIN_KEY", "algolia",
           source=TH + "algoliaadminkey", self_evident=False),
    vendor("hubspot", "saas", lambda r: "pat-na1-" + uuid4(r), "HUBSPOT_ACCESS_TOKEN", "HubSpot",
           source=TH + "hubspot_apikey/v2"),
    vendor("circleci", "devops", lambda r: f"CCIPAT_{mixed(r, ALNUM, 22)}_{rs(r, HEX, 40)}", "CIRCLECI_TOKEN",
           "CircleCI", r_header("Circle-Token", "https://circleci.com/api/v2/me"), source=TH + "circleci/v2"),
    vendor("buildkite", "devops", lambda r: "bkua_" + rs(r, HEX, 40), "BUILDKITE_API_TOKEN", "buildkite",
           source=TH + "buildkite/v2"),
    vendor("rootly", "devops", lambda r: "rootly_" + rs(r, HEX, 64), "ROOTLY_API_TOKEN", "rootly",
           source=TH + "rootly/rootly_test.go"),
    vendor("sourcegraph", "devops", lambda r: f"sgp_{rs(r, HEX, 16)}_{rs(r, HEX, 40)}", "SRC_ACCESS_TOKEN",
           "sourcegraph", source=TH + "sourcegraph"),
    vendor("prefect", "devops", lambda r: "pnu_" + mixed(r, ALNUM, 36), "PREFECT_API_KEY", "Prefect",
           source=TH + "prefect"),
    vendor("readme", "devops", lambda r: "rdme_" + rs(r, LALNUM, 70), "README_API_KEY", "ReadMe",
           source=TH + "readme"),
    vendor("posthog-personal", "devops", lambda r: "phx_" + mixed(r, ALNUM, 47), "POSTHOG_PERSONAL_API_KEY",
           "posthog", source=TH + "posthog"),
    vendor("apify", "devops", lambda r: "apify_api_" + mixed(r, ALNUM, 36), "APIFY_TOKEN", "apify",
           source=TH + "apify/apify_test.go"),
    vendor("adafruit-io", "devops", lambda r: "aio_" + mixed(r, ALNUM, 28), "ADAFRUIT_IO_KEY", "adafruit",
           source=TH + "adafruitio/adafruitio_test.go"),
    vendor("mattermost", "devops", lambda r: rs(r, LALNUM, 26), "MM_ACCESS_TOKEN", "mattermost",
           source=TH + "mattermostpersonaltoken", self_evident=False),
    vendor("confluent", "devops", lambda r: mixed(r, B64, 64), "CONFLUENT_API_SECRET", "confluent", _confluent,
           source=TH + "confluent", self_evident=False),
    vendor("sumologic", "devops", lambda r: mixed(r, ALNUM, 64), "SUMO_ACCESS_KEY", "sumologic", _sumo,
           source=TH + "sumologickey", self_evident=False),
    vendor("mapbox-secret", "saas", _mapbox, "MAPBOX_ACCESS_TOKEN", "Mapbox",
           r_code("https://api.mapbox.com/tokens/v2?access_token={v}"), source=TH + "mapbox (sk.eyJ)"),
    vendor("yandex-oauth", "saas", lambda r: "y0_AgAAAA" + mixed(r, B64URL, 50), "YANDEX_OAUTH_TOKEN", "yandex",
           source=VD + "Yandex OAuth tokens (y0_)"),
    vendor("typeform", "saas", lambda r: f"tfp_{mixed(r, ALNUM, 44)}_{mixed(r, ALNUM, 14)}", "TYPEFORM_TOKEN",
           "typeform", source=TH + "typeform"),
    vendor("salesforce-session", "saas", lambda r: f"00D{rs(r, ALNUM, 12)}!AQ{rs(r, ALNUM, 4)}.{rs(r, B64URL, 92)}",
           "SF_ACCESS_TOKEN", "salesforce", source=TH + "salesforce"),
]

check_unique_names(PUBLIC_KINDS)


# ruff: noqa: E501  (a corpus: one kind, its renderings and its source a line each)
"""A fourth outsider's secret corpus: credentials written the way people and tools write them.

Written without reading Moraine's redaction rules, their tests, `docs/security.md`, the secret
rule docs or any earlier corpus's kinds: only `kinds.py` (the helpers), `places.py`, `leaks.py`
and the harness scripts were read, and the formats come from vendors' documentation, tools' man
pages and what people paste into a coding agent. Each kind's `source` says where its shape comes
from. Every value is drawn fresh from the rng (alphabet, length, prefix); none is a real key.

Families: vendor (tokens of about 110 services), config (files of every format), cli (command
lines), code (literals in many languages, SQL), uri (URIs and connection strings), http (requests,
headers, curl), log (tool output and first-start banners that print a secret), prose (English,
chat style), lang (other languages, native script and romanized), encoded (base64, URL, JSON,
hex, ...), key (private keys of every kind).

    .venv/bin/python tools/secret_eval/ingest_check.py --seed 1 --per-kind 2 --corpus outsider4 --corpus outsider4-lookalike
"""

from __future__ import annotations

import json
import math
import random
import string

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
    compose,
    hex_of,
    host,
    kind,
    mixed,
    password,
    plain_password,
    rbytes,
    rendered,
    rendering,
    rs,
    u_escaped,
    url_encoded,
    username,
    uuid4,
    wrap,
)

ALPHA = string.ascii_letters
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

# words people build passwords and passphrases from (none longer than 9 letters, so a 10-character
# window of a value always spans a joint between two random parts)
PWORDS = (
    "anchor", "badger", "banjo", "basil", "beacon", "biscuit", "blossom", "bramble", "breeze", "bucket",
    "cactus", "camel", "candle", "carrot", "castle", "cherry", "chimney", "cinder", "clover", "cobbler",
    "comet", "coral", "cricket", "crystal", "cupcake", "dagger", "daisy", "dolphin", "dragon", "drizzle",
    "eagle", "echo", "eclipse", "falcon", "feather", "ferret", "fiddle", "firefly", "fjord", "flamingo",
    "fossil", "fox", "gadget", "galaxy", "garnet", "gecko", "ginger", "goblin", "gopher", "gravel",
    "hammock", "harvest", "hedgehog", "hickory", "honey", "horizon", "iceberg", "igloo", "island", "ivory",
    "jaguar", "jasmine", "jelly", "jigsaw", "kayak", "kettle", "kiwi", "koala", "ladder", "lagoon",
    "lemon", "lilac", "lobster", "magnet", "mammoth", "mango", "meteor", "mirror", "monsoon", "mosaic",
    "muffin", "nebula", "noodle", "nutmeg", "oasis", "olive", "onion", "orbit", "origami", "panda",
    "papaya", "parrot", "peanut", "pepper", "pickle", "pilgrim", "pirate", "plum", "popcorn", "pretzel",
    "puffin", "pumpkin", "quasar", "quokka", "rabbit", "radish", "rainbow", "reptile", "ribbon", "riddle",
    "rooster", "saddle", "salmon", "sapphire", "scarab", "sequoia", "shadow", "sherbet", "shrimp", "silver",
    "sketch", "sloth", "snowman", "spinach", "spruce", "squid", "stardust", "sunset", "tadpole", "tango",
    "teapot", "thunder", "tiger", "toffee", "tornado", "trumpet", "turnip", "typhoon", "unicorn", "vanilla",
    "viking", "volcano", "waffle", "walrus", "whisker", "wizard", "yak", "yodel", "zebra", "zephyr",
)


def chosen(rng: random.Random) -> str:
    """A password a person picked: a word or two, a year or digits, a symbol, some casing."""
    w1, w2 = rng.choice(PWORDS), rng.choice(PWORDS)
    style = rng.randrange(7)
    if style == 0:
        return f"{w1.capitalize()}{rng.choice('!@#$%&*?')}{rng.randrange(1960, 2026)}{w2}"
    if style == 1:
        return f"{w1.capitalize()}{w2.capitalize()}{rs(rng, DIGITS, 3)}{rng.choice('!?.#')}"
    if style == 2:
        leet = w1.replace("a", "@").replace("o", "0").replace("e", "3").replace("i", "1")
        return f"{leet.capitalize()}_{rs(rng, DIGITS, 2)}{w2}{rng.choice('!$')}"
    if style == 3:
        return f"{w1}{rs(rng, DIGITS, 4)}{w2.upper()}{rng.choice('#%')}"
    if style == 4:
        return password(rng)
    if style == 5:
        return f"{rng.choice(['My', 'Our', 'The'])}{w1.capitalize()}{rng.choice(['Is', 'Has', 'Ate'])}{rs(rng, DIGITS, 2)}{w2.capitalize()}!"
    return mixed(rng, ALNUM + "!@#$%^&*", rng.randrange(12, 20))


def passphrase(rng: random.Random) -> str:
    sep = rng.choice([" ", "-", ".", "_"])
    return sep.join(rng.choice(PWORDS) for _ in range(rng.randrange(4, 6)))


def spw(rng: random.Random) -> str:
    """A chosen password with no quote, backslash, dollar, space or backtick (safe in shells, YAML, URLs
    after quoting)."""
    while True:
        v = chosen(rng)
        if not set(v) & set("'\"\\$` %#&?@/:;"):
            return v


def any_pw(rng: random.Random) -> str:
    return rng.choice([chosen, spw, plain_password, password])(rng)


def jwt(rng: random.Random, payload: dict, alg: str = "HS256", sig_len: int = 43) -> str:
    head = b64_of(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode(), url=True, pad=False)
    body = b64_of(json.dumps(payload, separators=(",", ":")).encode(), url=True, pad=False)
    return f"{head}.{body}.{rs(rng, B64URL, sig_len)}"


def enc_form(value: str, form: str) -> tuple[str, int]:
    """An encoded form and the window standing for 10 characters of the value."""
    return form, max(10, math.ceil(10 * len(form) / max(1, len(value))))


# the filler of «name» / «name:n» placeholders
DBS = ("orders", "app_prod", "analytics", "billing", "inventory", "users", "crm", "warehouse", "payments")
PROJS = ("webapp", "atlas", "hermes", "billing-svc", "data-pipeline", "mobile-api", "infra", "kestrel", "lighthouse")
REGIONS = ("us-east-1", "eu-west-1", "eu-central-1", "ap-southeast-2", "us-west-2")
ORGS = ("acme", "globex", "initech", "umbrella", "hooli", "vandelay", "wayne-ent", "stark-ind")
FIRST = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj")


def fill(rng: random.Random, name: str, n: int | None) -> str:
    if name == "user":
        return username(rng)
    if name == "host":
        return host(rng)
    if name == "hex":
        return rs(rng, HEX, n or 8)
    if name == "dig":
        return rs(rng, DIGITS, n or 6)
    if name == "an":
        return rs(rng, ALNUM, n or 12)
    if name == "la":
        return rs(rng, LOWER, n or 8)
    if name == "ln":
        return rs(rng, LALNUM, n or 8)
    if name == "ua":
        return rs(rng, UALNUM, n or 16)
    if name == "uuid":
        return uuid4(rng)
    if name == "port":
        return str(rng.choice([5432, 3306, 6379, 27017, 5672, 8080, 9200, 1433, 5439]))
    if name == "db":
        return rng.choice(DBS)
    if name == "ip":
        return f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
    if name == "email":
        return f"{rng.choice(FIRST)}.{rng.choice(['ops', 'dev', 'smith', 'lee', 'ng'])}@{rng.choice(ORGS)}.com"
    if name == "first":
        return rng.choice(FIRST).capitalize()
    if name == "date":
        return f"2026-0{rng.randrange(1, 4)}-{rng.randrange(10, 28)}"
    if name == "time":
        return f"{rng.randrange(10, 23)}:{rng.randrange(10, 59)}:{rng.randrange(10, 59)}"
    if name == "proj":
        return rng.choice(PROJS)
    if name == "region":
        return rng.choice(REGIONS)
    if name == "org":
        return rng.choice(ORGS)
    if name == "bucket":
        return f"{rng.choice(ORGS)}-{rng.choice(['backups', 'assets', 'logs', 'ml-data'])}"
    if name == "word":
        return rng.choice(PWORDS)
    if name == "pid":
        return str(rng.randrange(1000, 60000))
    raise KeyError(f"no filler for «{name}»")


def K(name: str, family: str, make, *templates, source: str, se: bool = False, notes: str = "") -> Kind:
    return kind(name, family, make, *[rendering(t, fill) for t in templates], source=source, self_evident=se,
                notes=notes)


KINDS: list[Kind] = []


def add(name: str, family: str, make, *templates, source: str, se: bool = False, notes: str = "") -> None:
    KINDS.append(K(name, family, make, *templates, source=source, se=se, notes=notes))


def V(name: str, make, *templates, source: str, se: bool = True) -> None:
    """A vendor token (self-evident by default: its prefix says what it is)."""
    add("v-" + name, "vendor", make, *templates, source=source, se=se)


# ============================================================================================
# vendor tokens
# ============================================================================================

# --- AI and LLM providers -------------------------------------------------------------------
V("openai-project", compose("sk-proj-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)),
  "OPENAI_API_KEY=«v»",
  'from openai import OpenAI\nclient = OpenAI(api_key="«v»")\nresp = client.responses.create(model="gpt-4.1-mini", input="ping")',
  source="OpenAI platform docs: project API keys sk-proj-…, the T3BlbkFJ marker")
V("openai-svcacct", compose("sk-svcacct-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)),
  "export OPENAI_API_KEY=«v»   # service account for the eval runner",
  source="OpenAI platform: service account keys sk-svcacct-")
V("openai-legacy", compose("sk-", (ALNUM, 20), "T3BlbkFJ", (ALNUM, 20)),
  ["old key from 2023 still works?? «v»", "openai.api_key = '«v»'"],
  source="OpenAI user keys before project keys: sk- + 48 with T3BlbkFJ")
V("anthropic", compose("sk-ant-api03-", (B64URL, 93), "AA"),
  "ANTHROPIC_API_KEY=«v»",
  'curl https://api.anthropic.com/v1/messages \\\n  -H "x-api-key: «v»" \\\n  -H "anthropic-version: 2023-06-01" \\\n  -H "content-type: application/json" -d @req.json',
  source="Anthropic API docs (x-api-key header), key shape sk-ant-api03-…AA")
V("anthropic-admin", compose("sk-ant-admin01-", (B64URL, 93), "AA"),
  'curl "https://api.anthropic.com/v1/organizations/users?limit=20" --header "x-api-key: «v»" --header "anthropic-version: 2023-06-01"',
  source="Anthropic Admin API docs: admin keys sk-ant-admin01-")
V("gemini", compose("AIza", (B64URL, 35)),
  ["GEMINI_API_KEY=«v»", "GOOGLE_API_KEY=«v»"],
  'import google.generativeai as genai\ngenai.configure(api_key="«v»")',
  source="Google AI Studio keys: AIza + 35")
V("groq", compose("gsk_", (ALNUM, 52)),
  "GROQ_API_KEY=«v»", 'client = Groq(api_key="«v»")',
  source="Groq console keys gsk_ + 52")
V("huggingface", compose("hf_", (ALPHA, 34)),
  "huggingface-cli login --token «v» --add-to-git-credential",
  'from huggingface_hub import login\nlogin(token="«v»")',
  source="Hugging Face user access tokens hf_ + 34 letters")
V("replicate", compose("r8_", (ALNUM, 37)),
  "export REPLICATE_API_TOKEN=«v»", source="Replicate docs: r8_ tokens")
V("perplexity", compose("pplx-", (ALNUM, 48)),
  'curl https://api.perplexity.ai/chat/completions -H "Authorization: Bearer «v»" -H "Content-Type: application/json" -d \'{"model":"sonar","messages":[{"role":"user","content":"hi"}]}\'',
  source="Perplexity API docs: pplx- keys")
V("xai", compose("xai-", (ALNUM, 80)), "XAI_API_KEY=«v»", source="xAI console keys xai- + 80")
V("mistral", compose((ALNUM, 32)),
  "MISTRAL_API_KEY=«v»", 'from mistralai import Mistral\nclient = Mistral(api_key="«v»")',
  source="Mistral La Plateforme keys: 32 alphanumerics, no prefix", se=False)
V("cohere", compose((ALNUM, 40)),
  'co = cohere.ClientV2("«v»")', "COHERE_API_KEY=«v»",
  source="Cohere dashboard keys: 40 alphanumerics", se=False)
V("deepseek", compose("sk-", (HEX, 32)),
  'client = OpenAI(api_key="«v»", base_url="https://api.deepseek.com")',
  "DEEPSEEK_API_KEY=«v»", source="DeepSeek platform: sk- + 32 hex", se=False)
V("openrouter", compose("sk-or-v1-", (HEX, 64)),
  "OPENROUTER_API_KEY=«v»",
  '"provider": {"openrouter": {"apiKey": "«v»", "baseURL": "https://openrouter.ai/api/v1"}}',
  source="OpenRouter keys sk-or-v1- + 64 hex")
V("together", compose("tgp_v1_", (B64URL, 43)), "TOGETHER_API_KEY=«v»",
  source="Together AI keys tgp_v1_")
V("fireworks", compose("fw_", (ALNUM, 24)), "export FIREWORKS_API_KEY=«v»", source="Fireworks AI keys fw_")
V("langsmith", compose("lsv2_pt_", (HEX, 32), "_", (HEX, 10)),
  "LANGSMITH_TRACING=true\nLANGSMITH_API_KEY=«v»\nLANGSMITH_PROJECT=«proj»",
  source="LangSmith personal access tokens lsv2_pt_<32 hex>_<10 hex>")
V("pinecone", compose("pcsk_", (ALNUM, 5), "_", (ALNUM, 63)),
  'pc = Pinecone(api_key="«v»")\nindex = pc.Index("«proj»")', source="Pinecone keys pcsk_")
V("wandb", compose((HEX, 40)),
  "machine api.wandb.ai\n  login user\n  password «v»", "wandb login «v»",
  source="Weights & Biases API keys: 40 hex, kept in ~/.netrc", se=False)
V("elevenlabs", compose("sk_", (HEX, 48)),
  'curl -X POST https://api.elevenlabs.io/v1/text-to-speech/«an:20» -H "xi-api-key: «v»" -H "Content-Type: application/json"',
  source="ElevenLabs: xi-api-key header, sk_ + 48 hex")
V("deepgram", compose((HEX, 40)),
  'curl -X POST -H "Authorization: Token «v»" -H "Content-Type: audio/wav" --data-binary @call.wav "https://api.deepgram.com/v1/listen?model=nova-2"',
  source="Deepgram docs: Authorization: Token <40 hex>", se=False)
V("assemblyai", compose((HEX, 32)),
  'import assemblyai as aai\naai.settings.api_key = "«v»"', source="AssemblyAI SDK docs", se=False)
V("voyage", compose("pa-", (B64URL, 43)), "VOYAGE_API_KEY=«v»", source="Voyage AI keys pa-")
V("tavily", lambda rng: "tvly-" + rng.choice(["", "dev-", "prod-"]) + rs(rng, ALNUM, 32),
  'tavily_client = TavilyClient(api_key="«v»")', source="Tavily keys tvly-[dev-]")
V("cerebras", compose("csk-", (LALNUM, 48)), "CEREBRAS_API_KEY=«v»", source="Cerebras Cloud keys csk-")
V("nvidia-ngc", compose("nvapi-", (B64URL, 64)),
  "docker login nvcr.io -u '$oauthtoken' -p «v»", "NVIDIA_API_KEY=«v»", source="NVIDIA NGC / build.nvidia.com nvapi- keys")
V("langfuse-secret", lambda rng: "sk-lf-" + uuid4(rng),
  "LANGFUSE_SECRET_KEY=«v»\nLANGFUSE_PUBLIC_KEY=pk-lf-«uuid»\nLANGFUSE_HOST=https://cloud.langfuse.com",
  source="Langfuse docs: sk-lf-<uuid> secret, pk-lf- public")
V("stability", compose("sk-", (ALNUM, 48)),
  'headers = {"authorization": "Bearer «v»", "accept": "image/*"}  # stability',
  source="Stability AI platform keys sk- + 48", se=False)
V("azure-openai", compose((HEX, 32)),
  'curl "https://«org».openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21" -H "api-key: «v»" -H "Content-Type: application/json"',
  "AZURE_OPENAI_API_KEY=«v»\nAZURE_OPENAI_ENDPOINT=https://«org».openai.azure.com/",
  source="Azure OpenAI REST reference: api-key header, 32 hex", se=False)
V("modal", compose("as-", (ALNUM, 22)),
  "modal token set --token-id ak-«an:22» --token-secret «v» --profile=«org»", source="Modal CLI: token id ak-, secret as-")

# --- cloud and platforms --------------------------------------------------------------------
V("aws-secret", compose((ALNUM + "/+", 40)),
  "[default]\naws_access_key_id = AKIA«ua:16»\naws_secret_access_key = «v»\nregion = «region»",
  "AWS_ACCESS_KEY_ID=AKIA«ua:16» AWS_SECRET_ACCESS_KEY=«v» aws s3 ls s3://«bucket»/",
  source="AWS CLI credentials file and environment variables", se=False)
V("aws-session-token", compose("IQoJb3JpZ2luX2VjE", (B64, 330)),
  'export AWS_SESSION_TOKEN="«v»"',
  '{\n    "Credentials": {\n        "AccessKeyId": "ASIA«ua:16»",\n        "SessionToken": "«v»",\n        "Expiration": "«date»T12:00:00+00:00"\n    }\n}',
  source="aws sts assume-role output; STS session tokens start IQoJb3JpZ2luX2Vj")
V("gcp-client-secret", compose("GOCSPX-", (B64URL, 28)),
  '{"installed":{"client_id":"«dig:12»-«ln:32».apps.googleusercontent.com","project_id":"«proj»","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","client_secret":"«v»","redirect_uris":["http://localhost"]}}',
  source="Google Cloud console client_secret.json, GOCSPX- secrets")
V("google-access-token", compose("ya29.a0A", (B64URL, 170)),
  'curl -H "Authorization: Bearer «v»" "https://www.googleapis.com/drive/v3/files?pageSize=10"',
  source="Google OAuth 2.0 access tokens ya29.")
V("google-refresh-token", compose("1//0", (ALNUM, 2), (B64URL, 99)),
  'token.json: {"token": null, "refresh_token": "«v»", "token_uri": "https://oauth2.googleapis.com/token", "client_id": "«dig:12»-«ln:32».apps.googleusercontent.com"}',
  source="Google OAuth refresh tokens 1//0…", se=False)
V("azure-storage-key", lambda rng: b64_of(rbytes(rng, 64)),
  "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=«la:10»;AccountKey=«v»;EndpointSuffix=core.windows.net",
  'az storage blob list --account-name «la:10» --account-key "«v»" -c backups -o table',
  source="Azure Storage connection strings and az CLI, 88-char account keys", se=False)
V("azure-client-secret", compose((ALNUM, 3), "8Q~", (ALNUM + "_.~-", 34)),
  "AZURE_CLIENT_ID=«uuid»\nAZURE_TENANT_ID=«uuid»\nAZURE_CLIENT_SECRET=«v»",
  "az login --service-principal -u «uuid» -p '«v»' --tenant «uuid»",
  source="Entra ID app registration client secrets (xxx8Q~…)")
V("digitalocean", compose("dop_v1_", (HEX, 64)),
  "doctl auth init --access-token «v»", "DIGITALOCEAN_TOKEN=«v»", source="DigitalOcean PATs dop_v1_")
V("linode", compose((HEX, 64)), "[DEFAULT]\ndefault-user = «user»\n\n[«user»]\ntoken = «v»\nregion = us-east",
  source="linode-cli ~/.config/linode-cli", se=False)
V("hetzner", compose((ALNUM, 64)), "export HCLOUD_TOKEN=«v»\nhcloud server list",
  source="Hetzner Cloud API tokens (64 alphanumerics)", se=False)
V("vultr", compose((UALNUM, 36)), 'provider "vultr" {\n  api_key = "«v»"\n  rate_limit = 100\n}',
  source="Vultr Terraform provider", se=False)
V("cloudflare-token", compose((B64URL, 40)),
  "CLOUDFLARE_API_TOKEN=«v» npx wrangler deploy",
  'curl "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer «v»"',
  source="Cloudflare API tokens, wrangler env", se=False)
V("cloudflare-global", compose((HEX, 37)),
  'curl -X GET "https://api.cloudflare.com/client/v4/zones" -H "X-Auth-Email: «email»" -H "X-Auth-Key: «v»"',
  source="Cloudflare global API key (X-Auth-Key)", se=False)
V("cloudflare-origin-ca", compose("v1.0-", (HEX, 24), "-", (HEX, 146)),
  "CF_API_KEY=«v»", source="Cloudflare Origin CA keys v1.0-")
V("alibaba", compose((ALNUM, 30)),
  "aliyun configure set --profile default --mode AK --access-key-id LTAI«an:20» --access-key-secret «v» --region cn-hangzhou",
  source="Alibaba Cloud CLI, AccessKey secret (30)", se=False)
V("ibm-cloud", compose((B64URL, 44)), "ibmcloud login --apikey «v» -r us-south",
  source="IBM Cloud CLI login --apikey", se=False)
V("heroku", compose("HRKU-AA", (B64URL, 58)),
  "HEROKU_API_KEY=«v» heroku apps", "$ heroku authorizations:create -d ci\nCreating OAuth Authorization... done\nClient:      <none>\nID:          «uuid»\nDescription: ci\nScope:       global\nToken:       «v»",
  source="Heroku CLI authorizations:create, HRKU- tokens")
V("fly", lambda rng: "FlyV1 fm2_" + rs(rng, B64, 180) + ",fm2_" + rs(rng, B64, 120),
  'fly secrets list --access-token "«v»"', "FLY_API_TOKEN=«v»",
  source="fly tokens create deploy output (FlyV1 fm2_…)")
V("vercel", compose((ALNUM, 24)), "vercel deploy --prod --token «v» --yes",
  source="Vercel CLI --token", se=False)
V("netlify", compose("nfp_", (ALNUM, 36)), "NETLIFY_AUTH_TOKEN=«v» netlify deploy --prod",
  source="Netlify personal access tokens nfp_")
V("render", compose("rnd_", (ALNUM, 32)),
  'curl --request GET --url "https://api.render.com/v1/services?limit=20" --header "Authorization: Bearer «v»"',
  source="Render API keys rnd_")
V("railway", uuid4, "RAILWAY_TOKEN=«v» railway up --service api", source="Railway project tokens (uuid)", se=False)
V("supabase-pat", compose("sbp_", (HEX, 40)), "supabase login --token «v»", source="Supabase CLI access tokens sbp_")
V("supabase-secret", compose("sb_secret_", (B64URL, 31)),
  "SUPABASE_URL=https://«la:20».supabase.co\nSUPABASE_SECRET_KEY=«v»", source="Supabase secret API keys sb_secret_")
V("supabase-service-role", lambda rng: jwt(rng, {"iss": "supabase", "ref": rs(rng, LOWER, 20), "role": "service_role",
                                              "iat": 1717000000 + rng.randrange(10**7), "exp": 2032000000}),
  "SUPABASE_SERVICE_ROLE_KEY=«v»", 'const supabase = createClient(process.env.SUPABASE_URL, "«v»")',
  source="Supabase service_role JWT")
V("planetscale", compose("pscale_pw_", (B64URL, 43)),
  'DATABASE_URL="mysql://«ln:12»:«v»@aws.connect.psdb.cloud/«db»?sslaccept=strict"',
  source="PlanetScale passwords pscale_pw_")
V("neon", compose("napi_", (LALNUM, 64)), "NEON_API_KEY=«v» neonctl projects list", source="Neon API keys napi_")
V("atlas-private", uuid4,
  "atlas config set public_api_key «la:8»\natlas config set private_api_key «v»",
  "MONGODB_ATLAS_PUBLIC_KEY=«la:8»\nMONGODB_ATLAS_PRIVATE_KEY=«v»",
  source="MongoDB Atlas programmatic API keys (private key is a uuid)", se=False)
V("upstash", compose("A", (UALNUM, 3), "AAIjcD", (ALNUM, 60)),
  'UPSTASH_REDIS_REST_URL="https://«la:6»-«la:6»-«dig:5».upstash.io"\nUPSTASH_REDIS_REST_TOKEN="«v»"',
  source="Upstash Redis REST token", se=False)
V("turso", lambda rng: jwt(rng, {"a": "rw", "iat": 1718000000 + rng.randrange(10**7), "id": uuid4(rng)}, alg="EdDSA", sig_len=86),
  "TURSO_DATABASE_URL=libsql://«db»-«org».turso.io\nTURSO_AUTH_TOKEN=«v»", source="turso db tokens create (EdDSA JWT)")
V("doppler", lambda rng: "dp.st." + rng.choice(["prd", "stg", "dev"]) + "." + rs(rng, ALNUM, 43),
  "DOPPLER_TOKEN=«v» doppler run -- npm start", source="Doppler service tokens dp.st.")
V("vault", lambda rng: "hvs." + (rs(rng, ALNUM, 24) if rng.random() < 0.5 else "CAESI" + rs(rng, B64URL, 86)),
  "export VAULT_ADDR=https://vault.«org».internal:8200\nexport VAULT_TOKEN=«v»",
  "vault login «v»", source="HashiCorp Vault service tokens hvs.")
V("terraform-cloud", compose((ALNUM, 14), ".atlasv1.", (ALNUM, 67)),
  '{\n  "credentials": {\n    "app.terraform.io": {\n      "token": "«v»"\n    }\n  }\n}',
  source="~/.terraform.d/credentials.tfrc.json, .atlasv1. tokens")
V("pulumi", compose("pul-", (HEX, 40)), "PULUMI_ACCESS_TOKEN=«v» pulumi up --yes --stack prod",
  source="Pulumi access tokens pul-")
V("onepassword-sa", compose("ops_eyJ", (B64URL, 280)), "export OP_SERVICE_ACCOUNT_TOKEN=«v»",
  source="1Password service account tokens ops_")
V("scaleway", uuid4, "SCW_ACCESS_KEY=SCW«ua:17»\nSCW_SECRET_KEY=«v»\nSCW_DEFAULT_PROJECT_ID=«uuid»",
  source="Scaleway API keys (secret is a uuid)", se=False)
V("tailscale", compose("tskey-auth-", (ALNUM, 12), "CNTRL-", (ALNUM, 33)),
  "sudo tailscale up --authkey=«v» --advertise-tags=tag:ci", source="Tailscale auth keys tskey-auth-")
V("ngrok", compose("2", (ALNUM, 26), "_", (ALNUM, 21)), "ngrok config add-authtoken «v»",
  source="ngrok authtokens", se=False)
V("cloudinary", compose((B64URL, 27)), "CLOUDINARY_URL=cloudinary://«dig:15»:«v»@«la:8»",
  source="Cloudinary environment variable", se=False)

# --- code hosting, CI/CD, package registries -------------------------------------------------
V("github-classic", compose("ghp_", (ALNUM, 36)),
  "git remote set-url origin https://«v»@github.com/«org»/«proj».git", "GITHUB_TOKEN=«v»",
  source="GitHub token formats blog post: ghp_ + 36")
V("github-fine", compose("github_pat_11", (UALNUM, 20), "_", (ALNUM, 59)),
  'echo "«v»" | gh auth login --with-token', source="GitHub fine-grained PATs github_pat_")
V("github-oauth", compose("gho_", (ALNUM, 36)),
  "github.com:\n    user: «user»\n    oauth_token: «v»\n    git_protocol: https", source="gh CLI hosts.yml, gho_")
V("github-app-install", compose("ghs_", (ALNUM, 36)),
  '{"token": "«v»", "expires_at": "«date»T13:00:00Z", "permissions": {"contents": "read"}}',
  source="GitHub App installation tokens ghs_")
V("github-refresh", compose("ghr_", (ALNUM, 76)), "refresh_token=«v»&expires_in=15897600",
  source="GitHub App user refresh tokens ghr_")
V("gitlab-pat", compose("glpat-", (B64URL, 20)),
  'curl --header "PRIVATE-TOKEN: «v»" "https://gitlab.com/api/v4/projects?owned=true"',
  source="GitLab PATs glpat-")
V("gitlab-runner", compose("glrt-", (B64URL, 20)),
  'gitlab-runner register --non-interactive --url "https://gitlab.com/" --token "«v»" --executor docker --docker-image alpine:3.20',
  source="GitLab runner authentication tokens glrt-")
V("gitlab-deploy", compose("gldt-", (B64URL, 20)),
  "docker login registry.gitlab.com -u gitlab+deploy-token-«dig:6» -p «v»", source="GitLab deploy tokens gldt-")
V("gitlab-trigger", compose("glptt-", (HEX, 40)),
  'curl -X POST --fail -F token=«v» -F ref=main "https://gitlab.com/api/v4/projects/«dig:8»/trigger/pipeline"',
  source="GitLab pipeline trigger tokens glptt-")
V("bitbucket-app-pw", compose("ATBB", (ALNUM, 28), (HEXU, 8)),
  "git clone https://«user»:«v»@bitbucket.org/«org»/«proj».git", source="Bitbucket app passwords ATBB")
V("atlassian", compose("ATATT3xFfGF0", (B64URL, 180), "=", (HEXU, 8)),
  'curl -u «email»:«v» -H "Accept: application/json" "https://«org».atlassian.net/rest/api/3/myself"',
  source="Atlassian API tokens ATATT3xFfGF0")
V("circleci", compose("CCIPAT_", (ALNUM, 22), "_", (HEX, 40)),
  "circleci setup --token «v» --host https://circleci.com --no-prompt", source="CircleCI personal tokens CCIPAT_")
V("buildkite", compose("bkua_", (HEX, 40)), "BUILDKITE_API_TOKEN=«v» bk build list",
  source="Buildkite API access tokens bkua_")
V("jenkins", compose("11", (HEX, 32)),
  'curl -X POST -u «user»:«v» "https://jenkins.«org».internal/job/«proj»/buildWithParameters?BRANCH=main"',
  source="Jenkins API tokens (11 + 32 hex) used with curl -u", se=False)
V("azure-devops", lambda rng: rs(rng, "abcdefghijklmnopqrstuvwxyz234567", 52) if rng.random() < 0.5
  else rs(rng, ALNUM, 52) + "AAASAZDO" + rs(rng, ALNUM, 24),
  "export AZURE_DEVOPS_EXT_PAT=«v»\naz devops configure --defaults organization=https://dev.azure.com/«org»",
  source="Azure DevOps PATs (52 base32, newer 84 with AZDO)", se=False)
V("dockerhub", compose("dckr_pat_", (B64URL, 27)),
  "echo «v» | docker login -u «user» --password-stdin", source="Docker Hub PATs dckr_pat_")
V("npm", compose("npm_", (ALNUM, 36)), "//registry.npmjs.org/:_authToken=«v»", source="npm granular tokens npm_")
V("pypi", compose("pypi-AgEIcHlwaS5vcmcCJD", (B64URL, 150)),
  "[pypi]\n  username = __token__\n  password = «v»", "twine upload -u __token__ -p «v» dist/*",
  source="PyPI API tokens pypi-AgEIcHlwaS5vcmc (macaroons)")
V("rubygems", compose("rubygems_", (HEX, 48)), "---\n:rubygems_api_key: «v»", source="~/.gem/credentials, rubygems_")
V("nuget", compose("oy2", (LALNUM, 43)),
  "dotnet nuget push bin/Release/«proj».1.4.2.nupkg --api-key «v» --source https://api.nuget.org/v3/index.json",
  source="NuGet API keys oy2")
V("crates", compose("cio", (ALNUM, 32)), '[registry]\ntoken = "«v»"', source="~/.cargo/credentials.toml, cio tokens")
V("jfrog", compose("AKCp8", (ALNUM, 68)),
  'curl -H "X-JFrog-Art-Api: «v»" -T app.jar "https://«org».jfrog.io/artifactory/libs-release-local/app.jar"',
  source="JFrog Artifactory API keys AKCp")
V("jfrog-ref", compose("cmVmdGtuOjAxOjE3", (ALNUM, 48)),
  "jf c add prod --url=https://«org».jfrog.io --access-token=«v» --interactive=false",
  source="JFrog reference tokens (base64 of reftkn:01:)")
V("sonarqube", lambda rng: rng.choice(["squ_", "sqp_", "sqa_"]) + rs(rng, HEX, 40),
  "mvn sonar:sonar -Dsonar.projectKey=«proj» -Dsonar.host.url=https://sonar.«org».io -Dsonar.token=«v»",
  source="SonarQube tokens squ_/sqp_/sqa_")
V("snyk", uuid4, "snyk auth «v»", "SNYK_TOKEN=«v»", source="Snyk API tokens (uuid)", se=False)
V("codecov", uuid4, "      - uses: codecov/codecov-action@v4\n        with:\n          token: «v»\n          fail_ci_if_error: true",
  source="codecov-action with a hard-coded token", se=False)

# --- observability -------------------------------------------------------------------------
V("sentry-org", lambda rng: "sntrys_" + b64_of(json.dumps({"iat": 1710000000 + rng.randrange(10**7), "url": "https://sentry.io",
                                                         "region_url": "https://us.sentry.io", "org": rng.choice(ORGS)}).encode(), pad=False)
  + "_" + rs(rng, B64URL, 43),
  "SENTRY_AUTH_TOKEN=«v» npx @sentry/wizard@latest -i sourcemaps", source="Sentry org auth tokens sntrys_")
V("sentry-user", compose("sntryu_", (HEX, 64)), "[auth]\ntoken=«v»", source="~/.sentryclirc, sntryu_ user tokens")
V("datadog-api", compose((HEX, 32)),
  'docker run -d --name dd-agent -e DD_API_KEY=«v» -e DD_SITE="datadoghq.eu" gcr.io/datadoghq/agent:7',
  source="Datadog agent install docs", se=False)
V("datadog-app", compose((HEX, 40)),
  'curl -X GET "https://api.datadoghq.com/api/v1/monitor" -H "DD-API-KEY: ${DD_API_KEY}" -H "DD-APPLICATION-KEY: «v»"',
  source="Datadog API reference: DD-APPLICATION-KEY", se=False)
V("newrelic-user", compose("NRAK-", (UALNUM, 27)),
  "NEW_RELIC_API_KEY=«v» newrelic profile add --profile default --region us", source="New Relic user keys NRAK-")
V("newrelic-license", compose((HEX, 36), "NRAL"),
  "common: &default_settings\n  license_key: '«v»'\n  app_name: «proj»", source="newrelic.yml license_key (…NRAL)")
V("grafana-cloud", compose("glc_eyJ", (B64URL, 120)),
  'GRAFANA_CLOUD_TOKEN="«v»"', source="Grafana Cloud access policy tokens glc_")
V("grafana-sa", compose("glsa_", (ALNUM, 32), "_", (HEX, 8)),
  'curl -H "Authorization: Bearer «v»" https://grafana.«org».io/api/dashboards/uid/«an:9»',
  source="Grafana service account tokens glsa_")
V("honeycomb", compose("hcaik_01", (LALNUM, 56)),
  "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=«v»", source="Honeycomb ingest keys hcaik_")
V("pagerduty", compose((B64URL + "+", 20)),
  'curl -H "Authorization: Token token=«v»" -H "Accept: application/vnd.pagerduty+json;version=2" https://api.pagerduty.com/incidents',
  source="PagerDuty REST API v2 auth header", se=False)
V("dynatrace", compose("dt0c01.", (UALNUM, 24), ".", (UALNUM, 64)),
  'curl -H "Authorization: Api-Token «v»" "https://«ln:8».live.dynatrace.com/api/v2/metrics"',
  source="Dynatrace access tokens dt0c01.")
V("elastic-apikey", lambda rng: b64_of(f"{rs(rng, B64URL, 20)}:{rs(rng, B64URL, 22)}".encode()),
  'curl -H "Authorization: ApiKey «v»" https://«org».es.us-east-1.aws.found.io:443/_cat/indices',
  source="Elasticsearch API keys (base64 of id:api_key)", se=False)
V("axiom", lambda rng: "xaat-" + uuid4(rng), "AXIOM_TOKEN=«v»\nAXIOM_DATASET=«proj»-logs", source="Axiom API tokens xaat-")
V("rollbar", compose((HEX, 32)), "rollbar:\n  access_token: «v»\n  environment: production",
  source="Rollbar project access tokens (32 hex)", se=False)

# --- payments and commerce -------------------------------------------------------------------
V("stripe-live", compose("sk_live_51", (ALNUM, 97)), "STRIPE_SECRET_KEY=«v»",
  "Stripe.api_key = '«v»'", source="Stripe API keys docs: sk_live_")
V("stripe-restricted", compose("rk_live_51", (ALNUM, 97)),
  'curl https://api.stripe.com/v1/charges -u «v»: -d limit=3', source="Stripe restricted keys rk_live_")
V("stripe-webhook", compose("whsec_", (ALNUM, 32)),
  'endpoint_secret = "«v»"\nevent = stripe.Webhook.construct_event(payload, sig_header, endpoint_secret)',
  source="Stripe webhook signing secrets whsec_")
V("stripe-test", compose("sk_test_51", (ALNUM, 97)), "stripe listen --api-key «v» --forward-to localhost:4242/webhook",
  source="Stripe test-mode secret keys")
V("braintree", compose("access_token$production$", (LALNUM, 16), "$", (HEX, 32)),
  "BRAINTREE_ACCESS_TOKEN='«v»'", source="Braintree / PayPal access tokens")
V("square", compose("EAAA", (B64URL, 60)),
  'curl https://connect.squareup.com/v2/locations -H "Square-Version: 2024-10-17" -H "Authorization: Bearer «v»"',
  source="Square access tokens EAAA")
V("square-oauth", compose("sq0csp-", (B64URL, 43)), "SQUARE_APPLICATION_SECRET=«v»", source="Square OAuth application secrets sq0csp-")
V("razorpay", compose((ALNUM, 24)),
  'client = razorpay.Client(auth=("rzp_live_«an:14»", "«v»"))', source="Razorpay key id / key secret", se=False)
V("paystack", compose("sk_live_", (HEX, 40)),
  'curl https://api.paystack.co/transaction/initialize -H "Authorization: Bearer «v»" -X POST', source="Paystack secret keys")
V("flutterwave", compose("FLWSECK-", (HEX, 32), "-X"), "FLW_SECRET_KEY=«v»", source="Flutterwave secret keys FLWSECK-")
V("mollie", compose("live_", (ALNUM, 30)), '$mollie->setApiKey("«v»");', source="Mollie API keys live_")
V("shopify", compose("shpat_", (HEX, 32)),
  'curl -X GET "https://«org».myshopify.com/admin/api/2024-10/products.json" -H "X-Shopify-Access-Token: «v»"',
  source="Shopify Admin API access tokens shpat_")
V("shopify-secret", compose("shpss_", (HEX, 32)), "SHOPIFY_API_SECRET=«v»", source="Shopify app shared secrets shpss_")
V("plaid", compose((HEX, 30)), "PLAID_CLIENT_ID=«hex:24»\nPLAID_SECRET=«v»\nPLAID_ENV=production",
  source="Plaid quickstart .env", se=False)
V("adyen", compose("AQE", (ALNUM, 2), "hmfxL", (B64, 120), "=-", (B64, 43), "=-", (ALNUM, 12)),
  "ADYEN_API_KEY=«v»", source="Adyen API keys (AQE…)")

# --- messaging and mail -------------------------------------------------------------------
V("slack-bot", compose("xoxb-", (DIGITS, 12), "-", (DIGITS, 13), "-", (ALNUM, 24)),
  'SLACK_BOT_TOKEN=«v»', 'app = App(token="«v»", signing_secret=os.environ["SLACK_SIGNING_SECRET"])',
  source="Slack token types docs: xoxb-")
V("slack-user", compose("xoxp-", (DIGITS, 12), "-", (DIGITS, 12), "-", (DIGITS, 13), "-", (HEX, 32)),
  'curl -s -H "Authorization: Bearer «v»" https://slack.com/api/conversations.list', source="Slack user tokens xoxp-")
V("slack-app", compose("xapp-1-A", (UALNUM, 10), "-", (DIGITS, 13), "-", (HEX, 64)),
  "SLACK_APP_TOKEN=«v»  # socket mode", source="Slack app-level tokens xapp-")
V("slack-webhook", compose("https://hooks.slack.com/services/T", (UALNUM, 10), "/B", (UALNUM, 10), "/", (ALNUM, 24)),
  "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' «v»",
  source="Slack incoming webhooks")
V("discord-bot", lambda rng: b64_of(str(rng.randrange(10**17, 10**19)).encode(), pad=False) + "." + rs(rng, B64URL, 6)
  + "." + rs(rng, B64URL, 38),
  'client.run("«v»")', "DISCORD_TOKEN=«v»", source="Discord bot tokens (base64 id . ts . hmac)")
V("discord-webhook", compose("https://discord.com/api/webhooks/", (DIGITS, 19), "/", (B64URL, 68)),
  'DISCORD_WEBHOOK_URL="«v»"', source="Discord webhooks")
V("telegram", lambda rng: f"{rng.randrange(10**9, 8 * 10**9)}:AA{rs(rng, B64URL, 33)}",
  'curl "https://api.telegram.org/bot«v»/sendMessage?chat_id=-100«dig:10»&text=build+ok"',
  "TELEGRAM_BOT_TOKEN=«v»", source="Telegram Bot API tokens")
V("twilio-auth", compose((HEX, 32)),
  "TWILIO_ACCOUNT_SID=AC«hex:32»\nTWILIO_AUTH_TOKEN=«v»",
  'client = Client("AC«hex:32»", "«v»")', source="Twilio account SID + auth token", se=False)
V("twilio-apikey", compose((ALNUM, 32)),
  'curl -X GET "https://api.twilio.com/2010-04-01/Accounts/AC«hex:32»/Messages.json" -u "SK«hex:32»:«v»"',
  source="Twilio API key SID + secret", se=False)
V("sendgrid", compose("SG.", (B64URL, 22), ".", (B64URL, 43)), "SENDGRID_API_KEY='«v»'",
  "sg = sendgrid.SendGridAPIClient('«v»')", source="SendGrid API keys SG.")
V("mailgun", lambda rng: "key-" + rs(rng, HEX, 32) if rng.random() < 0.4 else f"{rs(rng, HEX, 32)}-{rs(rng, HEX, 8)}-{rs(rng, HEX, 8)}",
  'curl -s --user "api:«v»" https://api.mailgun.net/v3/mg.«org».com/messages -F from=noreply@«org».com -F to=«email» -F subject=Hi -F text=test',
  source="Mailgun API keys (key-…, newer hex-hex-hex)", se=False)
V("mailchimp", lambda rng: rs(rng, HEX, 32) + "-us" + str(rng.randrange(1, 22)),
  'mailchimp.setConfig({ apiKey: "«v»", server: "us6" });', source="Mailchimp Marketing API keys (…-usN)")
V("postmark", uuid4,
  'curl "https://api.postmarkapp.com/email" -X POST -H "Accept: application/json" -H "X-Postmark-Server-Token: «v»" -d @mail.json',
  source="Postmark server tokens", se=False)
V("resend", compose("re_", (ALNUM, 8), "_", (ALNUM, 24)), 'const resend = new Resend("«v»");', source="Resend API keys re_")
V("brevo", compose("xkeysib-", (HEX, 64), "-", (ALNUM, 16)), "BREVO_API_KEY=«v»", source="Brevo (Sendinblue) keys xkeysib-")
V("vonage", compose((ALNUM, 16)), 'vonage = Vonage(Auth(api_key="«hex:8»", api_secret="«v»"))',
  source="Vonage API key + secret", se=False)
V("teams-webhook", lambda rng: f"https://{rng.choice(ORGS)}.webhook.office.com/webhookb2/{uuid4(rng)}@{uuid4(rng)}/IncomingWebhook/{rs(rng, HEX, 32)}/{uuid4(rng)}",
  "TEAMS_WEBHOOK=«v»", source="Microsoft Teams incoming webhooks")
V("pusher", compose((HEX, 20)), "PUSHER_APP_ID=«dig:7»\nPUSHER_KEY=«hex:20»\nPUSHER_SECRET=«v»\nPUSHER_CLUSTER=eu",
  source="Pusher Channels app credentials", se=False)
V("ably", compose((ALNUM, 6), ".", (ALNUM, 6), ":", (B64URL, 43)), "const ably = new Ably.Realtime('«v»');",
  source="Ably API keys appId.keyId:secret")
V("intercom", lambda rng: b64_of(f"tok:{uuid4(rng)}:1:0".encode()).rstrip("="),
  'curl https://api.intercom.io/me -H "Authorization: Bearer «v»" -H "Accept: application/json"',
  source="Intercom access tokens (base64 of tok:uuid)", se=False)

# --- other SaaS ---------------------------------------------------------------------------------
V("mapbox-secret", lambda rng: "sk.eyJ1IjoiY" + rs(rng, B64URL, 50) + "." + rs(rng, B64URL, 22),
  "MAPBOX_DOWNLOADS_TOKEN=«v»", source="Mapbox secret tokens sk.eyJ")
V("algolia-admin", compose((HEX, 32)), 'client = SearchClient.create("«ua:10»", "«v»")  # admin key',
  source="Algolia admin API key", se=False)
V("contentful", compose("CFPAT-", (B64URL, 43)), "contentful login --management-token «v»", source="Contentful PATs CFPAT-")
V("notion", lambda rng: "ntn_" + rs(rng, ALNUM, 46) if rng.random() < 0.6 else "secret_" + rs(rng, ALNUM, 43),
  "NOTION_TOKEN=«v»", 'const notion = new Client({ auth: "«v»" })', source="Notion integration tokens ntn_ / secret_")
V("linear", compose("lin_api_", (ALNUM, 40)),
  'curl -X POST https://api.linear.app/graphql -H "Content-Type: application/json" -H "Authorization: «v»" --data \'{"query":"{ viewer { id } }"}\'',
  source="Linear personal API keys lin_api_")
V("airtable", compose("pat", (ALNUM, 14), ".", (HEX, 64)), "AIRTABLE_API_KEY=«v»", source="Airtable PATs pat….")
V("asana", lambda rng: f"2/{rs(rng, DIGITS, 16)}/{rs(rng, DIGITS, 16)}:{rs(rng, HEX, 32)}",
  'curl https://app.asana.com/api/1.0/users/me -H "Authorization: Bearer «v»"', source="Asana PATs 2/…")
V("figma", compose("figd_", (B64URL, 40)), 'curl -H "X-Figma-Token: «v»" "https://api.figma.com/v1/files/«an:22»"',
  source="Figma PATs figd_")
V("okta", compose("00", (B64URL, 40)), 'curl -H "Authorization: SSWS «v»" https://«org».okta.com/api/v1/users?limit=25',
  source="Okta API tokens (SSWS)", se=False)
V("auth0-secret", compose((B64URL, 64)),
  "AUTH0_DOMAIN=«org».eu.auth0.com\nAUTH0_CLIENT_ID=«an:32»\nAUTH0_CLIENT_SECRET=«v»",
  source="Auth0 application client secrets", se=False)
V("clerk", compose("sk_live_", (ALNUM, 50)), "CLERK_SECRET_KEY=«v»", source="Clerk secret keys")
V("posthog-personal", compose("phx_", (ALNUM, 43)), 'POSTHOG_PERSONAL_API_KEY="«v»"', source="PostHog personal API keys phx_")
V("launchdarkly", lambda rng: rng.choice(["sdk-", "api-"]) + uuid4(rng),
  'ldclient.set_config(Config("«v»"))', source="LaunchDarkly SDK/API keys")
V("postman", compose("PMAK-", (HEX, 24), "-", (HEX, 34)), "postman login --with-api-key «v»", source="Postman API keys PMAK-")
V("dropbox", compose("sl.u.", (B64URL, 140)), 'dbx = dropbox.Dropbox("«v»")', source="Dropbox short-lived tokens sl.")
V("shippo", compose("shippo_live_", (HEX, 40)), 'shippo.config.api_key = "«v»"', source="Shippo live tokens")
V("easypost", compose("EZAK", (ALNUM, 54)), "EASYPOST_API_KEY=«v»", source="EasyPost production keys EZAK")
V("facebook", compose("EAAG", (ALNUM, 180)),
  'curl -G "https://graph.facebook.com/v19.0/me/accounts" -d "access_token=«v»"', source="Meta Graph API access tokens EAA…")
V("databricks", lambda rng: "dapi" + rs(rng, HEX, 32) + rng.choice(["", "-2", "-3"]),
  "[DEFAULT]\nhost  = https://adb-«dig:16».7.azuredatabricks.net\ntoken = «v»", source="~/.databrickscfg, dapi tokens")
V("confluent", compose((B64, 64)),
  "sasl.mechanism=PLAIN\nsasl.username=«ua:16»\nsasl.password=«v»\nsecurity.protocol=SASL_SSL",
  source="Confluent Cloud client.properties", se=False)
V("prefect", compose("pnu_", (ALNUM, 36)), "prefect cloud login -k «v»", source="Prefect Cloud API keys pnu_")
V("typeform", compose("tfp_", (ALNUM, 44), "_", (ALNUM, 14)), "TYPEFORM_TOKEN=«v»", source="Typeform PATs tfp_")
V("harness", lambda rng: f"pat.{rs(rng, B64URL, 22)}.{rs(rng, HEX, 24)}.{rs(rng, ALNUM, 20)}",
  "HARNESS_PLATFORM_API_KEY=«v»", source="Harness PATs pat.")
V("zendesk", compose((ALNUM, 40)), 'curl https://«org».zendesk.com/api/v2/tickets.json -u «email»/token:«v»',
  source="Zendesk API tokens (email/token:)", se=False)
V("twitch", compose((LALNUM, 30)), "PASS oauth:«v»\nNICK «user»bot\nJOIN #«user»",
  source="Twitch IRC chat login", se=False)
V("fastly", compose((B64URL, 32)), 'curl -H "Fastly-Key: «v»" https://api.fastly.com/service', source="Fastly API tokens", se=False)
V("spotify", compose((HEX, 32)), "SPOTIPY_CLIENT_ID=«hex:32»\nSPOTIPY_CLIENT_SECRET=«v»",
  source="Spotify app client secrets (spotipy env)", se=False)
V("expo", compose((B64URL, 40)), "EXPO_TOKEN=«v» eas build --platform ios --non-interactive",
  source="Expo robot access tokens", se=False)


# ============================================================================================
# config files
# ============================================================================================

def C(name: str, make, *templates, source: str) -> None:
    add("cfg-" + name, "config", make, *templates, source=source)


def hex_secret(n: int):
    return lambda rng: rs(rng, HEX, n)


def tok(n: int, alphabet: str = ALNUM):
    return lambda rng: mixed(rng, alphabet, n)


C("dotenv-db", spw,
  "# .env.local\nNODE_ENV=development\nDB_HOST=«host»\nDB_PORT=«port»\nDB_USER=«user»\nDB_PASSWORD=«v»\nDB_NAME=«db»",
  source="dotenv files as projects keep them")
C("dotenv-quoted", chosen,
  lambda rng, v: f"APP_NAME={rng.choice(PROJS)}\nSMTP_HOST=smtp.{rng.choice(ORGS)}.com\nSMTP_USER=mailer\nSMTP_PASS='{v}'\nSMTP_PORT=587"
  if "'" not in v else f'SMTP_PASS="{v}"',
  source="dotenv with a single-quoted value holding symbols")
C("dotenv-export", tok(48, B64URL),
  "export JWT_SECRET=«v»\nexport JWT_EXPIRES_IN=7d", source="a sourced .envrc (direnv)")
C("django-secret", lambda rng: "django-insecure-" + rs(rng, LOWER + DIGITS + "!@#%^&*(-_=+)", 50),
  "# SECURITY WARNING: keep the secret key used in production secret!\nSECRET_KEY = '«v»'\n\n# SECURITY WARNING: don't run with debug turned on in production!\nDEBUG = True",
  source="django-admin startproject settings.py")
C("django-secret-prod", lambda rng: rs(rng, LOWER + DIGITS + "!@#%^&*(-_=+)", 50),
  "DJANGO_SECRET_KEY='«v»'\nDJANGO_ALLOWED_HOSTS=«org».com", source="a Django production env file")
C("rails-secret-base", hex_secret(128),
  "production:\n  secret_key_base: «v»\n  stripe_publishable_key: pk_live_«an:24»", source="Rails config/secrets.yml")
C("spring-yaml", spw,
  "spring:\n  datasource:\n    url: jdbc:postgresql://«host»:5432/«db»\n    username: «user»\n    password: «v»\n  jpa:\n    hibernate:\n      ddl-auto: validate",
  source="Spring Boot application.yml")
C("spring-properties", spw,
  "spring.datasource.url=jdbc:mysql://«host»:3306/«db»?useSSL=true\nspring.datasource.username=«user»\nspring.datasource.password=«v»\nspring.jpa.show-sql=false",
  source="Spring Boot application.properties")
C("spring-mail", plain_password,
  "spring.mail.host=smtp.gmail.com\nspring.mail.port=587\nspring.mail.username=«email»\nspring.mail.password=«v»\nspring.mail.properties.mail.smtp.starttls.enable=true",
  source="Spring Boot mail properties")
C("toml-db", chosen,
  lambda rng, v: f'[server]\nport = 8080\n\n[database]\nhost = "{host(rng)}"\nuser = "{username(rng)}"\npassword = "{v}"\npool_size = 10'
  if '"' not in v and "\\" not in v else f"[database]\npassword = '{v}'",
  source="TOML app config ([database] table)")
C("mycnf", spw, "[client]\nuser=«user»\npassword=«v»\nhost=«host»\n\n[mysqldump]\nquick", source="MySQL option file ~/.my.cnf")
C("appsettings-conn", spw,
  '{\n  "ConnectionStrings": {\n    "DefaultConnection": "Server=«host»;Database=«db»;User Id=sa;Password=«v»;TrustServerCertificate=True"\n  },\n  "Logging": { "LogLevel": { "Default": "Information" } }\n}',
  source="ASP.NET Core appsettings.json")
C("appsettings-jwt", tok(64, ALNUM),
  '"JwtSettings": {\n    "Issuer": "https://api.«org».com",\n    "Audience": "«proj»",\n    "Secret": "«v»",\n    "ExpiryMinutes": 60\n  }',
  source="ASP.NET JWT settings block")
C("webconfig", spw,
  '<appSettings>\n    <add key="SmtpServer" value="smtp.«org».com" />\n    <add key="SmtpUser" value="notifications" />\n    <add key="SmtpPassword" value="«v»" />\n  </appSettings>',
  source="ASP.NET web.config appSettings")
C("maven-settings", spw,
  "<settings>\n  <servers>\n    <server>\n      <id>nexus-releases</id>\n      <username>«user»</username>\n      <password>«v»</password>\n    </server>\n  </servers>\n</settings>",
  source="Maven ~/.m2/settings.xml")
C("hibernate-cfg", spw,
  '<property name="hibernate.connection.url">jdbc:postgresql://«host»/«db»</property>\n<property name="hibernate.connection.username">«user»</property>\n<property name="hibernate.connection.password">«v»</property>',
  source="hibernate.cfg.xml")
C("tfvars", chosen,
  lambda rng, v: f'region      = "{rng.choice(REGIONS)}"\ninstance    = "db.t3.medium"\ndb_username = "{username(rng)}"\ndb_password = "{v}"'
  if '"' not in v and "\\" not in v else f"db_password = <<EOT\n{v}\nEOT",
  source="terraform.tfvars")
C("hcl-provider", tok(40, ALNUM),
  'provider "github" {\n  owner = "«org»"\n  token = "«v»"\n}', source="Terraform provider block with an inline token")
C("nginx-header", tok(40, B64URL),
  "location /api/ {\n    proxy_pass http://upstream_api;\n    proxy_set_header X-Api-Key \"«v»\";\n    proxy_set_header Host $host;\n}",
  source="nginx proxy_set_header with a key")
C("apache-setenv", spw,
  '<VirtualHost *:443>\n    ServerName «org».com\n    SetEnv DB_USER «user»\n    SetEnv DB_PASS "«v»"\n</VirtualHost>',
  source="Apache mod_env SetEnv")
C("compose-list", spw,
  "services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_USER=«user»\n      - POSTGRES_PASSWORD=«v»\n      - POSTGRES_DB=«db»\n    ports:\n      - \"5432:5432\"",
  source="docker-compose.yml environment list")
C("compose-map", chosen,
  lambda rng, v: "services:\n  mysql:\n    image: mysql:8.4\n    environment:\n      MYSQL_ROOT_PASSWORD: " + json.dumps(v)
  + f"\n      MYSQL_DATABASE: {rng.choice(DBS)}\n    volumes:\n      - mysql:/var/lib/mysql",
  source="docker-compose.yml environment map")
C("k8s-stringdata", spw,
  "apiVersion: v1\nkind: Secret\nmetadata:\n  name: «proj»-db\ntype: Opaque\nstringData:\n  username: «user»\n  password: «v»",
  source="Kubernetes Secret stringData")
C("k8s-env-value", tok(40, ALNUM),
  "        env:\n        - name: LOG_LEVEL\n          value: info\n        - name: API_TOKEN\n          value: \"«v»\"",
  source="Kubernetes Deployment env with a literal value")
C("helm-values", spw,
  "postgresql:\n  enabled: true\n  auth:\n    username: «user»\n    password: «v»\n    database: «db»\n    postgresPassword: «v»",
  source="Bitnami chart values.yaml")
C("systemd-env", tok(32, ALNUM),
  "[Service]\nUser=«user»\nEnvironment=\"NODE_ENV=production\"\nEnvironment=\"API_SECRET=«v»\"\nExecStart=/usr/bin/node /opt/«proj»/server.js\nRestart=always",
  source="systemd unit Environment=")
C("netrc", tok(40, ALNUM),
  "machine api.heroku.com\n  login «email»\n  password «v»\nmachine git.heroku.com\n  login «email»\n  password «v»",
  source="~/.netrc written by heroku login")
C("netrc-oneline", spw, "machine ftp.«org».com login «user» password «v»", source="~/.netrc one-line form")
C("pgpass", spw, "«host»:5432:«db»:«user»:«v»", source="~/.pgpass (PostgreSQL libpq docs)")
C("pipconf", plain_password,
  "[global]\nindex-url = https://«user»:«v»@nexus.«org».internal/repository/pypi/simple\ntimeout = 60",
  source="pip.conf with credentials in index-url")
C("npmrc-private", tok(43, B64URL),
  "@«org»:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=«v»\nalways-auth=true",
  source=".npmrc scoped registry token")
C("npmrc-password", spw,
  lambda rng, v: ("registry=https://nexus.acme.internal/repository/npm/\n//nexus.acme.internal/repository/npm/:username=deploy\n"
                  f"//nexus.acme.internal/repository/npm/:_password={b64_of(v.encode())}\n//nexus.acme.internal/repository/npm/:email=ci@acme.com",
                  [enc_form(v, b64_of(v.encode()))]),
  source=".npmrc _password (base64 of the password)")
C("pypirc", spw,
  "[distutils]\nindex-servers =\n    internal\n\n[internal]\nrepository = https://pypi.«org».internal/\nusername = «user»\npassword = «v»",
  source="~/.pypirc")
C("aws-config-sso", tok(40, ALNUM + "/+"),
  "[profile prod]\nregion = «region»\noutput = json\naws_access_key_id=AKIA«ua:16»\naws_secret_access_key=«v»",
  source="~/.aws/config with keys in a profile")
C("kubeconfig-token", lambda rng: jwt(rng, {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci",
                                            "sub": f"system:serviceaccount:ci:{rng.choice(PROJS)}-deployer"}, alg="RS256", sig_len=342),
  "users:\n- name: deployer\n  user:\n    token: «v»", source="kubeconfig user token (service account JWT)")
C("gitconfig-insteadof", tok(40, ALNUM),
  '[url "https://x-access-token:«v»@github.com/"]\n\tinsteadOf = https://github.com/', source="git config url.insteadOf")
C("gitconfig-extraheader", lambda rng: b64_of(f"{username(rng)}:{spw(rng)}".encode()),
  '[http "https://git.«org».internal/"]\n\textraheader = AUTHORIZATION: basic «v»', source="git http.extraHeader")
C("ansible-vars", chosen,
  lambda rng, v: f"[web]\n{rng.choice(['web1', 'web2'])}.{rng.choice(ORGS)}.lan ansible_user=admin ansible_password='{v}' ansible_become_pass='{v}'"
  if "'" not in v else f'all:\n  vars:\n    ansible_become_password: "{v}"',
  source="Ansible inventory connection variables")
C("gha-env", tok(36, ALNUM),
  "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      DEPLOY_TOKEN: «v»\n    steps:\n      - uses: actions/checkout@v4",
  source="GitHub Actions workflow with a hard-coded env")
C("gitlab-ci-vars", spw,
  'variables:\n  DOCKER_DRIVER: overlay2\n  REGISTRY_USER: «user»\n  REGISTRY_PASSWORD: "«v»"', source=".gitlab-ci.yml variables")
C("jenkinsfile", tok(40, HEX),
  "pipeline {\n  agent any\n  environment {\n    SONAR_TOKEN = '«v»'\n  }\n  stages { stage('scan') { steps { sh 'mvn sonar:sonar' } } }\n}",
  source="Jenkinsfile environment block")
C("laravel-appkey", lambda rng: "base64:" + b64_of(rbytes(rng, 32)),
  "APP_NAME=Laravel\nAPP_ENV=production\nAPP_KEY=«v»\nAPP_DEBUG=false", source="Laravel .env APP_KEY")
C("wpconfig", spw,
  "define( 'DB_NAME', '«db»' );\ndefine( 'DB_USER', '«user»' );\ndefine( 'DB_PASSWORD', '«v»' );\ndefine( 'DB_HOST', 'localhost' );",
  source="WordPress wp-config.php")
C("wp-salts", lambda rng: rs(rng, ALNUM + "!#%()*+,-.:;<=>?@[]^_{|}~", 64),
  "define('AUTH_KEY',         '«v»');", source="WordPress secret-key service output")
C("redis-conf", tok(32, ALNUM), "bind 0.0.0.0\nport 6379\nrequirepass «v»\nmasterauth «v»", source="redis.conf")
C("rabbitmq-conf", spw, "default_user = «user»\ndefault_pass = «v»\nlisteners.tcp.default = 5672", source="rabbitmq.conf")
C("openvpn-auth", spw, "«user»\n«v»", source="OpenVPN auth-user-pass file")
C("wpa-supplicant", chosen,
  lambda rng, v: f'network={{\n    ssid="{rng.choice(ORGS).capitalize()}-Guest"\n    psk="{v}"\n    key_mgmt=WPA-PSK\n}}'
  if '"' not in v else f"psk={v}", source="wpa_supplicant.conf")
C("smb-credentials", spw, "username=«user»\npassword=«v»\ndomain=CORP", source="cifs credentials file (mount.cifs)")
C("fstab-cifs", spw, "//nas.«org».lan/share  /mnt/share  cifs  username=«user»,password=«v»,uid=1000,iocharset=utf8  0  0",
  source="/etc/fstab cifs line")
C("rclone", tok(40, ALNUM + "/+"),
  "[s3remote]\ntype = s3\nprovider = AWS\naccess_key_id = AKIA«ua:16»\nsecret_access_key = «v»\nregion = «region»",
  source="rclone.conf")
C("grafana-ini", spw, "[security]\nadmin_user = admin\nadmin_password = «v»\nsecret_key = «an:16»", source="grafana.ini")
C("prometheus-basic", spw,
  "scrape_configs:\n  - job_name: node\n    basic_auth:\n      username: prometheus\n      password: «v»\n    static_configs:\n      - targets: ['«ip»:9100']",
  source="prometheus.yml basic_auth")
C("consul-gossip", lambda rng: b64_of(rbytes(rng, 32)),
  'datacenter = "dc1"\ndata_dir = "/opt/consul"\nencrypt = "«v»"\nretry_join = ["«ip»"]', source="Consul agent HCL gossip key")
C("kibana-yml", spw, 'elasticsearch.hosts: ["https://«ip»:9200"]\nelasticsearch.username: "kibana_system"\nelasticsearch.password: "«v»"',
  source="kibana.yml")
C("composer-auth", tok(40, ALNUM),
  '{\n    "http-basic": {\n        "repo.packagist.com": {\n            "username": "token",\n            "password": "«v»"\n        }\n    }\n}',
  source="Composer auth.json")
C("gradle-properties", spw,
  "org.gradle.jvmargs=-Xmx2g\nmavenUser=«user»\nmavenPassword=«v»\nsigning.keyId=«hex:8»\nsigning.password=«v»",
  source="~/.gradle/gradle.properties")
C("supervisord", tok(32, ALNUM),
  '[program:worker]\ncommand=/opt/venv/bin/celery -A app worker\nenvironment=API_KEY="«v»",ENV="prod"', source="supervisord program environment")
C("s3cfg", tok(40, ALNUM + "/+"),
  "[default]\naccess_key = AKIA«ua:16»\nsecret_key = «v»\nhost_base = s3.amazonaws.com", source="s3cmd ~/.s3cfg")
C("vscode-sqltools", spw,
  '"sqltools.connections": [\n    {\n        "name": "prod",\n        "driver": "PostgreSQL",\n        "server": "«host»",\n        "username": "«user»",\n        "password": "«v»"\n    }\n]',
  source=".vscode/settings.json SQLTools connection")
C("postfix-sasl", lambda rng: " ".join(rs(rng, LOWER, 4) for _ in range(4)),
  "[smtp.gmail.com]:587 «email»:«v»", source="Postfix sasl_passwd with a Google app password (4x4 letters)")
C("msmtprc", spw,
  "account default\nhost smtp.fastmail.com\nport 465\ntls on\nuser «email»\npassword «v»", source="~/.msmtprc")
C("jupyter-config", hex_secret(48), "c.ServerApp.token = '«v»'\nc.ServerApp.ip = '0.0.0.0'", source="jupyter_server_config.py")
C("kafka-jaas", spw,
  'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="«user»" password="«v»";',
  source="Kafka client JAAS config")
C("mongod-yaml", spw,
  "net:\n  port: 27017\nsecurity:\n  authorization: enabled\n# created with: db.createUser({user: \"admin\", pwd: \"«v»\", roles: [\"root\"]})",
  source="mongod.conf with a note")
C("traefik-env", tok(40, ALNUM),
  "      - \"--certificatesresolvers.le.acme.dnschallenge.provider=cloudflare\"\n    environment:\n      - CF_DNS_API_TOKEN=«v»",
  source="Traefik docker-compose DNS challenge")
C("cypress-env", spw, '{\n  "baseUrl": "http://localhost:3000",\n  "env": {\n    "username": "qa@«org».com",\n    "password": "«v»"\n  }\n}',
  source="cypress.env.json")
C("odbc-ini", spw,
  "[«db»]\nDriver=ODBC Driver 18 for SQL Server\nServer=tcp:«host»,1433\nDatabase=«db»\nUID=«user»\nPWD=«v»", source="odbc.ini DSN")
C("pgbouncer-userlist", spw, '"«user»" "«v»"\n"pgbouncer" "«an:16»"', source="pgbouncer userlist.txt")
C("htpasswd-plain", spw, "# basic auth for staging (plain, do not commit)\nstaging:«v»", source="a plain user:password list")
C("xml-datasource", spw,
  '<Resource name="jdbc/«db»" auth="Container" type="javax.sql.DataSource"\n          username="«user»" password="«v»"\n          driverClassName="org.postgresql.Driver" url="jdbc:postgresql://«host»:5432/«db»"/>',
  source="Tomcat context.xml Resource")
C("ini-php", spw, "[database]\ndriver = mysql\nhost = «host»\nusername = «user»\npassword = \"«v»\"", source="an app's config.ini")
C("sops-decrypted", tok(40, ALNUM), "stripe:\n    secret: «v»\n    mode: live", source="a decrypted SOPS YAML file")


# ============================================================================================
# command lines
# ============================================================================================

def L(name: str, make, *templates, source: str) -> None:
    add("cli-" + name, "cli", make, *templates, source=source)


L("mysql-p", spw, "mysql -h «host» -u «user» -p«v» «db» -e 'SELECT COUNT(*) FROM orders'",
  "$ mysqldump -u«user» -p'«v»' --single-transaction --all-databases | gzip > dump.sql.gz", source="mysql(1): -p<password> with no space")
L("mysql-password-eq", chosen, lambda rng, v: f"mariadb -h {host(rng)} -u app --password='{v}' -D {rng.choice(DBS)}"
  if "'" not in v else f'mariadb -u app --password="{v}"', source="mariadb --password=")
L("pgpassword-env", spw, "PGPASSWORD=«v» psql -h «host» -U «user» -d «db» -c '\\dt'",
  "PGPASSWORD='«v»' pg_dump -h «host» -U «user» -Fc «db» > «db».dump", source="libpq PGPASSWORD environment variable")
L("libpq-conninfo", spw, "psql \"host=«host» port=5432 dbname=«db» user=«user» password=«v» sslmode=require\"",
  source="libpq keyword/value connection string")
L("docker-login-p", spw, "docker login -u «user» -p «v» registry.«org».io",
  "WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n$ docker login --username «user» --password '«v»' ghcr.io",
  source="docker login -p / --password")
L("docker-login-stdin", tok(40, ALNUM), "echo '«v»' | docker login ghcr.io -u «user» --password-stdin",
  source="docker login --password-stdin fed by echo")
L("sshpass", chosen, lambda rng, v: f"sshpass -p '{v}' ssh -o StrictHostKeyChecking=no {username(rng)}@{host(rng)} 'sudo systemctl restart app'"
  if "'" not in v else f'sshpass -p "{v}" scp backup.tar.gz root@{host(rng)}:/srv/', source="sshpass -p")
L("curl-u", spw, "curl -u «user»:«v» https://«host»/api/v1/health", "curl --user 'admin:«v»' -X POST https://jenkins.«org».lan/reload",
  source="curl -u user:password")
L("wget-password", spw, "wget --user=«user» --password='«v»' https://files.«org».com/releases/build-«dig:4».tar.gz",
  "wget --http-user=«user» --http-password=«v» -r -np https://mirror.«org».lan/pub/", source="wget(1) --password / --http-password")
L("htpasswd-b", spw, "htpasswd -b -c /etc/nginx/.htpasswd admin «v»", "htpasswd -bB .htpasswd «user» '«v»'", source="htpasswd -b (password on the command line)")
L("redis-cli-a", tok(32, ALNUM), "redis-cli -h «host» -p 6379 -a «v» --no-auth-warning INFO keyspace",
  "redis-cli -u redis://default:«v»@«host»:6379 ping", source="redis-cli -a")
L("mongo-u-p", spw, "mongosh --host «host» -u admin -p '«v»' --authenticationDatabase admin",
  "mongodump --username=«user» --password=«v» --authenticationDatabase=admin --db=«db» --out=/backup", source="mongosh / mongodump -p")
L("az-sp", tok(40, ALNUM + "~._-"), "az login --service-principal --username «uuid» --password «v» --tenant «uuid»",
  source="az login --service-principal --password")
L("aws-configure-set", tok(40, ALNUM + "/+"), "aws configure set aws_secret_access_key «v» --profile «org»",
  source="aws configure set")
L("gh-herestring", lambda rng: "ghp_" + rs(rng, ALNUM, 36), "gh auth login --with-token <<< «v»", source="gh auth login --with-token from a here-string")
L("heroku-config-set", tok(32, HEX), "heroku config:set SESSION_SECRET=«v» -a «proj»-prod", source="heroku config:set")
L("kubectl-from-literal", spw,
  "kubectl create secret generic «proj»-db --from-literal=username=«user» --from-literal=password='«v»' -n prod",
  source="kubectl create secret generic --from-literal")
L("kubectl-docker-registry", tok(40, ALNUM),
  "kubectl create secret docker-registry regcred --docker-server=registry.«org».io --docker-username=«user» --docker-password=«v» --docker-email=«email»",
  source="kubectl create secret docker-registry")
L("helm-set", spw, "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword=«v» --set auth.database=«db»",
  source="helm --set with a password")
L("terraform-var", spw, 'terraform apply -var "db_password=«v»" -var "env=prod" -auto-approve', source="terraform -var")
L("ansible-extra-vars", spw, 'ansible-playbook site.yml -i hosts -e "ansible_become_pass=«v»" --limit web',
  source="ansible-playbook -e")
L("openssl-passout", spw, "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:«v»",
  "openssl enc -aes-256-cbc -pbkdf2 -in secrets.tar -out secrets.tar.enc -pass pass:«v»", source="openssl(1) pass:phrase arguments")
L("zip-p", spw, "zip -r -P «v» export.zip ./export", "7z a -p«v» -mhe=on backup.7z /srv/data", source="zip -P / 7z -p")
L("gpg-passphrase", passphrase, lambda rng, v: f"gpg --batch --yes --pinentry-mode loopback --passphrase '{v}' -d secrets.gpg > secrets.env",
  source="gpg --passphrase")
L("smbclient", spw, "smbclient //fs01.«org».lan/finance -U «user»%«v» -c 'ls'", source="smbclient -U user%password")
L("net-use", spw, "net use Z: \\\\fs01\\shared /user:CORP\\«user» «v» /persistent:yes", source="Windows net use")
L("xfreerdp", spw, "xfreerdp /v:«ip» /u:Administrator /p:'«v»' /cert:ignore /dynamic-resolution", source="xfreerdp /p:")
L("sqlcmd", spw, "sqlcmd -S «host»,1433 -U sa -P '«v»' -d «db» -Q \"SELECT name FROM sys.tables\"", source="sqlcmd -P")
L("ldapsearch", spw, 'ldapsearch -x -H ldaps://ldap.«org».com -D "cn=admin,dc=«org»,dc=com" -w «v» -b "ou=people,dc=«org»,dc=com"',
  source="ldapsearch -w")
L("vault-env", lambda rng: "hvs." + rs(rng, ALNUM, 24), "VAULT_TOKEN=«v» vault kv get -field=password secret/«proj»/db",
  source="vault with VAULT_TOKEN prefix")
L("npm-config-set", tok(36, ALNUM), "npm config set //npm.«org».io/:_authToken «v»", source="npm config set _authToken")
L("snowsql", spw, "SNOWSQL_PWD='«v»' snowsql -a «la:7»-«la:5» -u «user» -d «db» -w COMPUTE_WH", source="snowsql SNOWSQL_PWD")
L("heredoc-env", tok(40, ALNUM),
  "cat > .env <<'EOF'\nDATABASE_URL=postgres://localhost/«db»\nSTRIPE_SECRET=«v»\nEOF", source="a heredoc writing .env")
L("powershell-env", tok(40, ALNUM), '$env:OPENAI_API_KEY = "«v»"\npython .\\scripts\\eval.py', source="PowerShell $env:")
L("powershell-securestring", spw,
  '$pw = ConvertTo-SecureString "«v»" -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential ("CORP\\«user»", $pw)',
  source="PowerShell ConvertTo-SecureString -AsPlainText")
L("cmd-set", spw, "set DB_PASSWORD=«v»\nnpm run migrate", source="cmd.exe set")
L("docker-run-e", spw, "docker run -d --name pg -e POSTGRES_PASSWORD=«v» -p 5432:5432 postgres:16-alpine", source="docker run -e")
L("java-sysprop", spw, "java -Djavax.net.ssl.keyStore=/etc/app/keystore.jks -Djavax.net.ssl.keyStorePassword=«v» -jar app.jar",
  source="JSSE system properties")
L("keytool", spw, "keytool -genkeypair -alias app -keyalg RSA -keystore keystore.jks -storepass «v» -keypass «v» -dname \"CN=«org».com\"",
  source="keytool -storepass / -keypass")
L("lftp", spw, "lftp -u «user»,«v» sftp://«host» -e 'mirror -R ./dist /var/www; bye'", source="lftp -u user,password")
L("rsync-password", spw, "RSYNC_PASSWORD=«v» rsync -av ./backup/ rsync://«user»@«host»/backups", source="rsync RSYNC_PASSWORD")
L("expect-send", spw, 'spawn ssh «user»@«host»\nexpect "password:"\nsend "«v»\\r"\ninteract', source="expect script")
L("influx", tok(86, B64URL), "influx config create --config-name prod --host-url https://«host»:8086 --org «org» --token «v»==",
  source="influx config create --token")
L("mc-alias", tok(40, ALNUM), "mc alias set myminio https://minio.«org».lan:9000 «ua:20» «v»", source="MinIO client mc alias set")
L("sudo-s", spw, "echo '«v»' | sudo -S apt-get update", "sudo -S <<< \"«v»\" systemctl restart nginx", source="sudo -S reading stdin")
L("chpasswd", spw, "echo '«user»:«v»' | sudo chpasswd", source="chpasswd")
L("nmcli-wifi", chosen, lambda rng, v: f"nmcli dev wifi connect \"{rng.choice(ORGS).capitalize()}-5G\" password '{v}'"
  if "'" not in v else f'nmcli dev wifi connect Office password "{v}"', source="nmcli dev wifi connect … password")
L("rabbitmqctl", spw, "rabbitmqctl add_user «user» «v» && rabbitmqctl set_user_tags «user» administrator",
  source="rabbitmqctl add_user")
L("gcloud-sql-user", spw, "gcloud sql users set-password postgres --instance=«proj»-db --password=«v»", source="gcloud sql users set-password")
L("psql-alter", spw, "psql -U postgres -c \"ALTER USER «user» WITH PASSWORD '«v»';\"", source="psql -c with ALTER USER")
L("git-clone-token", tok(40, ALNUM), "git clone https://oauth2:«v»@gitlab.«org».com/platform/«proj».git", source="git clone with a token in the URL")
L("ssh-keygen-N", passphrase, lambda rng, v: f"ssh-keygen -t ed25519 -C ci@{rng.choice(ORGS)} -N '{v}' -f ~/.ssh/deploy", source="ssh-keygen -N")
L("set-x-trace", tok(40, ALNUM), "+ curl -fsSL -H 'Authorization: token «v»' https://api.github.com/repos/«org»/«proj»/releases/latest",
  source="a bash -x trace of a curl")
L("ps-aux", spw, "«user»  «pid»  0.0  0.1  23400  5120 pts/0  S+  «time»  0:00 mysql -uroot -p«v» -h «host»",
  source="ps aux showing a password argument")


# ============================================================================================
# code (many languages) and SQL
# ============================================================================================

def P(name: str, make, *templates, source: str) -> None:
    add("code-" + name, "code", make, *templates, source=source)


P("py-psycopg", spw, 'conn = psycopg2.connect(host="«host»", dbname="«db»", user="«user»", password="«v»", port=5432)',
  source="psycopg2.connect keyword arguments")
P("py-boto3", tok(40, ALNUM + "/+"),
  's3 = boto3.client(\n    "s3",\n    aws_access_key_id="AKIA«ua:16»",\n    aws_secret_access_key="«v»",\n    region_name="«region»",\n)',
  source="boto3.client with inline credentials")
P("py-requests-auth", spw, 'r = requests.get("https://«host»/api/reports", auth=("«user»", "«v»"), timeout=10)',
  source="requests basic auth tuple")
P("py-redis", tok(32, ALNUM), "cache = redis.Redis(host='«host»', port=6379, password='«v»', decode_responses=True)",
  source="redis-py constructor")
P("py-smtplib", plain_password, 'with smtplib.SMTP_SSL("smtp.gmail.com", 465) as s:\n    s.login("«email»", "«v»")\n    s.send_message(msg)',
  source="smtplib login")
P("py-flask-secret", tok(32, HEX), "app = Flask(__name__)\napp.config['SECRET_KEY'] = '«v»'\napp.config['SESSION_COOKIE_SECURE'] = True",
  source="Flask SECRET_KEY")
P("py-jwt-encode", spw, 'token = jwt.encode({"sub": user.id, "exp": exp}, "«v»", algorithm="HS256")', source="PyJWT with a literal key")
P("py-environ-default", tok(40, ALNUM), 'API_KEY = os.environ.get("PAYMENTS_API_KEY", "«v»")', source="os.environ.get fallback literal")
P("py-sqlalchemy-url", spw, 'engine = create_engine(URL.create("postgresql+psycopg", username="«user»", password="«v»", host="«host»", database="«db»"))',
  source="SQLAlchemy URL.create")
P("py-dataclass", tok(48, B64URL), '@dataclass\nclass Settings:\n    endpoint: str = "https://api.«org».com/v2"\n    api_key: str = "«v»"\n    timeout: float = 30.0',
  source="a settings dataclass with a default")
P("py-pydantic", spw, "class DB(BaseSettings):\n    user: str = \"«user»\"\n    password: SecretStr = SecretStr(\"«v»\")", source="pydantic SecretStr default")
P("js-pg-pool", spw, "const pool = new Pool({\n  host: '«host»',\n  user: '«user»',\n  password: '«v»',\n  database: '«db»',\n  port: 5432,\n});",
  source="node-postgres Pool")
P("js-nodemailer", plain_password,
  "const transporter = nodemailer.createTransport({\n  host: 'smtp.office365.com',\n  port: 587,\n  auth: { user: '«email»', pass: '«v»' },\n});",
  source="nodemailer auth")
P("js-jwt-sign", tok(48, ALNUM), "const token = jwt.sign({ id: user._id }, '«v»', { expiresIn: '1h' });", source="jsonwebtoken sign")
P("js-axios-header", tok(40, ALNUM), "const api = axios.create({\n  baseURL: 'https://api.«org».com',\n  headers: { Authorization: `Bearer «v»` },\n});",
  source="axios default headers")
P("js-env-fallback", tok(32, HEX), "const secret = process.env.SESSION_SECRET || '«v»';\napp.use(session({ secret, resave: false }));",
  source="process.env fallback")
P("ts-config-object", spw, "export const config = {\n  db: {\n    host: '«host»',\n    username: '«user»',\n    password: '«v»',\n  },\n} as const;",
  source="a TypeScript config module")
P("go-sql-open", spw, 'db, err := sql.Open("postgres", "host=«host» user=«user» password=«v» dbname=«db» sslmode=disable")',
  source="database/sql with lib/pq DSN")
P("go-redis-options", tok(32, ALNUM), 'rdb := redis.NewClient(&redis.Options{\n\tAddr:     "«host»:6379",\n\tPassword: "«v»",\n\tDB:       0,\n})',
  source="go-redis Options struct")
P("go-const", tok(40, ALNUM), 'const (\n\tbaseURL = "https://api.«org».com"\n\tapiKey  = "«v»"\n)', source="Go const block")
P("go-plainauth", plain_password, 'auth := smtp.PlainAuth("", "«email»", "«v»", "smtp.gmail.com")', source="net/smtp PlainAuth")
P("java-drivermanager", spw, 'Connection conn = DriverManager.getConnection("jdbc:mysql://«host»:3306/«db»", "«user»", "«v»");',
  source="JDBC DriverManager.getConnection")
P("java-static-final", tok(40, ALNUM), 'private static final String API_SECRET = "«v»";', source="a Java constant")
P("java-hikari", spw, 'HikariConfig cfg = new HikariConfig();\ncfg.setJdbcUrl("jdbc:postgresql://«host»/«db»");\ncfg.setUsername("«user»");\ncfg.setPassword("«v»");',
  source="HikariCP setters")
P("java-aws-basic", tok(40, ALNUM + "/+"),
  'AmazonS3 s3 = AmazonS3ClientBuilder.standard()\n    .withCredentials(new AWSStaticCredentialsProvider(new BasicAWSCredentials("AKIA«ua:16»", "«v»")))\n    .withRegion("«region»").build();',
  source="AWS SDK v1 builder with BasicAWSCredentials")
P("java-value-default", tok(32, ALNUM), '@Value("${payments.api-key:«v»}")\nprivate String apiKey;', source="Spring @Value with a default")
P("kotlin-val", tok(40, ALNUM), 'object Keys {\n    const val MAPS_SERVER_KEY = "«v»"\n}', source="Kotlin const val")
P("gradle-buildconfig", tok(32, HEX), 'buildConfigField("String", "API_SECRET", "\\"«v»\\"")', source="Android buildConfigField")
P("csharp-sqlconnection", spw, 'using var conn = new SqlConnection("Server=«host»;Database=«db»;User Id=«user»;Password=«v»;Encrypt=True;");',
  source="ADO.NET connection string")
P("csharp-networkcred", spw, 'client.Credentials = new NetworkCredential("«user»", "«v»", "CORP");', source="System.Net.NetworkCredential")
P("csharp-options", tok(40, ALNUM + "~._-"),
  'builder.Services.AddAuthentication().AddOpenIdConnect(o =>\n{\n    o.ClientId = "«uuid»";\n    o.ClientSecret = "«v»";\n});',
  source="ASP.NET OpenIdConnect options")
P("rust-bearer", tok(40, ALNUM), 'let resp = client.get(url).bearer_auth("«v»").send().await?;', source="reqwest bearer_auth")
P("rust-pgoptions", spw, 'let opts = PgConnectOptions::new()\n    .host("«host»")\n    .username("«user»")\n    .password("«v»")\n    .database("«db»");',
  source="sqlx PgConnectOptions builder")
P("rust-struct", tok(48, B64URL), 'let cfg = Config {\n    endpoint: "https://api.«org».com".into(),\n    api_key: "«v»".to_string(),\n    retries: 3,\n};',
  source="a Rust struct literal")
P("ruby-stripe", lambda rng: "sk_live_" + rs(rng, ALNUM, 99), "Stripe.api_key = '«v»'", source="stripe-ruby")
P("ruby-activerecord", spw, "ActiveRecord::Base.establish_connection(\n  adapter: 'postgresql', host: '«host»',\n  username: '«user»', password: '«v»', database: '«db»'\n)",
  source="ActiveRecord establish_connection")
P("php-pdo", spw, "$pdo = new PDO('mysql:host=«host»;dbname=«db»;charset=utf8mb4', '«user»', '«v»');", source="PHP PDO constructor")
P("php-phpmailer", plain_password, "$mail->isSMTP();\n$mail->Host = 'smtp.«org».com';\n$mail->SMTPAuth = true;\n$mail->Username = 'noreply@«org».com';\n$mail->Password = '«v»';",
  source="PHPMailer properties")
P("swift-let", tok(40, ALNUM), 'enum Secrets {\n    static let apiKey = "«v»"\n}', source="a Swift enum of constants")
P("swift-urlcredential", spw, 'let cred = URLCredential(user: "«user»", password: "«v»", persistence: .forSession)', source="Foundation URLCredential")
P("elixir-repo", spw, 'config :my_app, MyApp.Repo,\n  username: "«user»",\n  password: "«v»",\n  hostname: "«host»",\n  database: "«db»"',
  source="Ecto Repo config")
P("scala-slick", spw, 'val db = Database.forURL("jdbc:postgresql://«host»/«db»", user = "«user»", password = "«v»", driver = "org.postgresql.Driver")',
  source="Slick Database.forURL")
P("perl-dbi", spw, "my $dbh = DBI->connect(\"dbi:Pg:dbname=«db»;host=«host»\", '«user»', '«v»', { RaiseError => 1 });",
  source="Perl DBI->connect")
P("r-dbconnect", spw, 'con <- dbConnect(RPostgres::Postgres(), dbname = "«db»", host = "«host»", user = "«user»", password = "«v»")',
  source="R DBI dbConnect")
P("r-setenv", lambda rng: "sk-proj-" + rs(rng, B64URL, 60), 'Sys.setenv(OPENAI_API_KEY = "«v»")', source="R Sys.setenv")
P("lua-redis", tok(32, ALNUM), 'local ok, err = red:auth("«v»")\nif not ok then ngx.log(ngx.ERR, "auth failed: ", err) end',
  source="lua-resty-redis auth")
P("dart-const", tok(39, B64URL), "const String kMapsKey = '«v»';", source="a Dart constant")
P("c-mysql", spw, 'if (!mysql_real_connect(conn, "«host»", "«user»", "«v»", "«db»", 0, NULL, 0)) {\n    fprintf(stderr, "%s\\n", mysql_error(conn));\n}',
  source="MySQL C API")
P("cpp-curl-userpwd", spw, 'curl_easy_setopt(curl, CURLOPT_USERPWD, "«user»:«v»");', source="libcurl CURLOPT_USERPWD")
P("haskell-conninfo", spw, 'conn <- connect defaultConnectInfo { connectHost = "«host»", connectUser = "«user»", connectPassword = "«v»", connectDatabase = "«db»" }',
  source="postgresql-simple ConnectInfo")
P("bash-script-var", tok(40, ALNUM), '#!/usr/bin/env bash\nset -euo pipefail\nAPI_TOKEN="«v»"\ncurl -fsS -H "Authorization: Bearer $API_TOKEN" https://api.«org».com/v1/sync',
  source="a deploy script with a token variable")
P("notebook-environ", lambda rng: "hf_" + rs(rng, ALPHA, 34), 'import os\nos.environ["HF_TOKEN"] = "«v»"', source="a Jupyter cell")
P("java-annotation", spw, '@DataSourceDefinition(name = "java:app/jdbc/«db»", className = "org.postgresql.ds.PGSimpleDataSource",\n    user = "«user»", password = "«v»", serverName = "«host»")',
  source="Jakarta @DataSourceDefinition")
P("okhttp-header", tok(32, HEX), 'Request request = new Request.Builder()\n    .url("https://api.«org».com/v1/items")\n    .addHeader("X-Api-Key", "«v»")\n    .build();',
  source="OkHttp Request.Builder")
P("sql-create-user", spw, "CREATE USER «user» WITH PASSWORD '«v»';\nGRANT CONNECT ON DATABASE «db» TO «user»;", source="PostgreSQL CREATE USER")
P("sql-identified-by", spw, "CREATE USER '«user»'@'%' IDENTIFIED BY '«v»';\nGRANT ALL PRIVILEGES ON «db».* TO '«user»'@'%';", source="MySQL IDENTIFIED BY")
P("sql-alter-login", spw, "ALTER LOGIN sa WITH PASSWORD = '«v»';\nGO", source="T-SQL ALTER LOGIN")
P("sql-fdw", spw, "CREATE USER MAPPING FOR app SERVER legacy_srv OPTIONS (user '«user»', password '«v»');", source="postgres_fdw user mapping")
P("sql-oracle", spw, "ALTER USER «user» IDENTIFIED BY \"«v»\" ACCOUNT UNLOCK;", source="Oracle ALTER USER")
P("sql-insert-apikey", tok(40, HEX), "INSERT INTO api_clients (name, api_key, created_at) VALUES ('«proj»', '«v»', now());",
  source="a seed SQL row with a key")


# ============================================================================================
# URIs and connection strings
# ============================================================================================

def U(name: str, make, *templates, source: str) -> None:
    add("uri-" + name, "uri", make, *templates, source=source)


U("postgres", plain_password, "DATABASE_URL=postgres://«user»:«v»@«host»:5432/«db»",
  "postgresql://«user»:«v»@«host»/«db»?sslmode=require", source="libpq connection URIs")
U("postgres-asyncpg", plain_password, 'SQLALCHEMY_DATABASE_URI = "postgresql+asyncpg://«user»:«v»@«host»:5432/«db»"', source="SQLAlchemy URLs")
U("mysql", plain_password, "mysql://«user»:«v»@«host»:3306/«db»?charset=utf8mb4", source="MySQL URIs")
U("mongodb-srv", plain_password, 'MONGO_URI="mongodb+srv://«user»:«v»@cluster0.«ln:5».mongodb.net/«db»?retryWrites=true&w=majority"',
  "mongosh \"mongodb+srv://cluster0.«ln:5».mongodb.net/\" --apiVersion 1 --username «user» --password «v»", source="MongoDB Atlas connection strings")
U("redis", tok(32, ALNUM), "REDIS_URL=redis://:«v»@«host»:6379/0", "rediss://default:«v»@«la:8».upstash.io:6379", source="redis URIs")
U("amqp", plain_password, "CELERY_BROKER_URL=amqp://«user»:«v»@«host»:5672//", "amqps://«user»:«v»@b-«uuid».mq.«region».amazonaws.com:5671",
  source="AMQP URIs (Celery, Amazon MQ)")
U("ftp", plain_password, "ftp://«user»:«v»@ftp.«org».com/incoming/", "sftp://«user»:«v»@«host»:22/upload", source="FTP/SFTP URLs")
U("smtp", plain_password, "EMAIL_URL=smtp+tls://«email»:«v»@smtp.«org».com:587", "MAILER_DSN=smtp://apikey:«v»@smtp.sendgrid.net:587",
  source="django-environ / Symfony mailer DSN")
U("https-userinfo", plain_password, "https://«user»:«v»@nexus.«org».internal/repository/maven-releases/", source="HTTP URLs with userinfo")
U("jdbc-query", spw, "jdbc:postgresql://«host»:5432/«db»?user=«user»&password=«v»&ssl=true", source="PgJDBC URL parameters")
U("jdbc-sqlserver", spw, "jdbc:sqlserver://«host»:1433;databaseName=«db»;user=«user»;password=«v»;encrypt=true", source="mssql-jdbc URL")
U("odbc-string", spw, "Driver={ODBC Driver 18 for SQL Server};Server=tcp:«host»,1433;Database=«db»;Uid=«user»;Pwd=«v»;Encrypt=yes;",
  source="ODBC connection strings")
U("mssql-pyodbc", plain_password, "mssql+pyodbc://«user»:«v»@«host»:1433/«db»?driver=ODBC+Driver+18+for+SQL+Server", source="SQLAlchemy mssql+pyodbc")
U("clickhouse", plain_password, "clickhouse://default:«v»@«host»:9000/«db»", source="clickhouse-driver URLs")
U("snowflake", plain_password, "snowflake://«user»:«v»@«la:7»-«la:6»/«db»/PUBLIC?warehouse=COMPUTE_WH&role=ANALYST", source="snowflake-sqlalchemy URLs")
U("git-https-token", tok(40, ALNUM), "git+https://«v»@github.com/«org»/«proj».git@v1.4.0#egg=«proj»", source="pip VCS requirement with a token")
U("nats", plain_password, "nats://«user»:«v»@nats.«org».internal:4222", source="NATS URLs")
U("mqtt", plain_password, "mqtt://«user»:«v»@broker.«org».io:1883", source="MQTT broker URLs")
U("neo4j", plain_password, "NEO4J_URI=neo4j+s://neo4j:«v»@«hex:8».databases.neo4j.io", source="neo4j URIs with credentials")
U("elastic", plain_password, "ELASTICSEARCH_URL=https://elastic:«v»@«host»:9200", source="Elasticsearch URLs with credentials")
U("proxy", plain_password, "export https_proxy=http://«user»:«v»@proxy.«org».lan:3128", "socks5h://«user»:«v»@«ip»:1080",
  source="http_proxy / socks proxy URLs")
U("ldap-bind", plain_password, "ldaps://cn=svc-ldap,ou=services,dc=«org»,dc=com:«v»@ldap.«org».com:636", source="LDAP URLs people write")
U("airflow-conn", plain_password, "AIRFLOW_CONN_WAREHOUSE='postgres://«user»:«v»@«host»:5432/«db»'", source="Airflow AIRFLOW_CONN_ variables")
U("encoded-password", chosen,
  lambda rng, v: (f"DATABASE_URL=postgresql://{username(rng)}:{url_encoded(v)}@{host(rng)}:5432/{rng.choice(DBS)}",
                  [enc_form(v, url_encoded(v))]),
  source="a URI whose password is percent-encoded (RFC 3986 userinfo)")
U("cockroach", plain_password, "cockroach sql --url \"postgresql://«user»:«v»@free-tier.gcp-us-central1.cockroachlabs.cloud:26257/defaultdb?sslmode=verify-full\"",
  source="CockroachDB Cloud connection string")
U("webdav", plain_password, "davfs2: https://«user»:«v»@cloud.«org».com/remote.php/dav/files/«user»/", source="Nextcloud WebDAV URL")


# ============================================================================================
# HTTP requests, headers, curl
# ============================================================================================

def H(name: str, make, *templates, source: str) -> None:
    add("http-" + name, "http", make, *templates, source=source)


H("bearer-curl", tok(40, ALNUM), 'curl -sS https://api.«org».com/v1/orders -H "Authorization: Bearer «v»" -H "Accept: application/json"',
  source="curl with a bearer token")
H("basic-header", lambda rng: f"{username(rng)}:{spw(rng)}",
  lambda rng, v: (f"GET /api/v1/status HTTP/1.1\nHost: {host(rng)}\nAuthorization: Basic {b64_of(v.encode())}\nAccept: */*",
                  [enc_form(v, b64_of(v.encode()))]),
  source="RFC 7617 Basic credentials")
H("x-api-key", tok(40, ALNUM), "curl -X POST https://api.«org».com/v2/events -H 'X-API-Key: «v»' -H 'Content-Type: application/json' -d '{\"type\":\"ping\"}'",
  source="X-API-Key header")
H("cookie-session", tok(64, B64URL), "Cookie: _ga=GA1.1.«dig:9».«dig:10»; sessionid=«v»; csrftoken=«an:32»", source="a Cookie header copied from devtools")
H("set-cookie", tok(48, B64URL), "HTTP/1.1 302 Found\nLocation: /dashboard\nSet-Cookie: __Host-session=«v»; Path=/; Secure; HttpOnly; SameSite=Lax",
  source="a Set-Cookie response header")
H("raw-request", tok(40, ALNUM),
  "POST /v1/charges HTTP/1.1\nHost: api.«org».com\nUser-Agent: python-requests/2.32.3\nAuthorization: Bearer «v»\nContent-Type: application/json\nContent-Length: 52\n\n{\"amount\": 1200, \"currency\": \"eur\"}",
  source="a raw HTTP request dump")
H("httpie", tok(40, ALNUM), "http GET https://api.«org».com/v1/me 'Authorization:Token «v»'", source="HTTPie header syntax")
H("query-apikey", tok(32, HEX), "https://api.«org».com/v1/weather?q=Berlin&appid=«v»&units=metric",
  "GET /data/2.5/forecast?lat=52.5&lon=13.4&api_key=«v» HTTP/1.1", source="an API key in a query string")
H("oauth-fragment", tok(43, B64URL), "http://localhost:3000/callback#access_token=«v»&token_type=Bearer&expires_in=3600&state=«an:16»",
  source="OAuth implicit-flow redirect")
H("client-credentials", tok(48, B64URL),
  "curl -X POST https://login.«org».com/oauth2/token -d grant_type=client_credentials -d client_id=«uuid» -d client_secret=«v» -d scope=api.read",
  source="OAuth 2.0 client credentials request")
H("login-json", spw, 'curl -X POST https://«host»/api/auth/login -H "Content-Type: application/json" -d \'{"email":"«email»","password":"«v»"}\'',
  source="a JSON login body")
H("form-login", plain_password, "POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nusername=«user»&password=«v»&remember=1",
  source="a form-encoded login body")
H("proxy-auth", lambda rng: f"{username(rng)}:{plain_password(rng)}",
  lambda rng, v: (f"CONNECT api.example.com:443 HTTP/1.1\nProxy-Authorization: Basic {b64_of(v.encode())}", [enc_form(v, b64_of(v.encode()))]),
  source="Proxy-Authorization header")
H("x-auth-token", tok(32, HEX), "curl -H \"X-Auth-Token: «v»\" http://«ip»:5000/v3/auth/projects", source="OpenStack X-Auth-Token")
H("token-token", tok(40, HEX), 'curl -H "Authorization: Token token=«v»" https://api.«org».com/v2/users', source="Rails token auth header")
H("vault-header", lambda rng: "hvs." + rs(rng, ALNUM, 24), 'curl --header "X-Vault-Token: «v»" https://vault.«org».internal:8200/v1/secret/data/app',
  source="Vault HTTP API header")
H("fetch-copy", tok(40, ALNUM),
  'fetch("https://api.«org».com/graphql", {\n  "headers": {\n    "accept": "*/*",\n    "authorization": "Bearer «v»",\n    "content-type": "application/json"\n  },\n  "body": "{\\"query\\":\\"{ me { id } }\\"}",\n  "method": "POST"\n});',
  source="Chrome devtools Copy as fetch")
H("har-entry", tok(40, ALNUM),
  '{"name": "authorization", "value": "Bearer «v»"},\n{"name": "content-type", "value": "application/json"}', source="HAR request headers")
H("postman-collection", tok(40, ALNUM),
  '"auth": {\n  "type": "bearer",\n  "bearer": [\n    { "key": "token", "value": "«v»", "type": "string" }\n  ]\n}', source="Postman collection v2.1 auth")
H("rest-client-file", tok(40, ALNUM), "@baseUrl = https://api.«org».com\n@token = «v»\n\n### list\nGET {{baseUrl}}/items\nAuthorization: Bearer {{token}}",
  source="VS Code REST Client .http file")
H("wget-header", tok(40, ALNUM), "wget --header='Authorization: Bearer «v»' -O report.csv https://reports.«org».com/export?id=«dig:5»", source="wget --header")
H("websocket-query", tok(48, B64URL), "wss://realtime.«org».com/socket?token=«v»&vsn=2.0.0", source="a websocket URL with a token")
H("grpcurl", tok(40, ALNUM), "grpcurl -H 'authorization: Bearer «v»' -d '{\"id\": «dig:4»}' api.«org».com:443 orders.v1.Orders/Get",
  source="grpcurl -H")


# ============================================================================================
# logs, tool output, first-start banners
# ============================================================================================

def G(name: str, make, *templates, source: str) -> None:
    add("log-" + name, "log", make, *templates, source=source)


G("py-traceback-locals", spw,
  'Traceback (most recent call last):\n  File "/app/db.py", line 42, in connect\n    return psycopg2.connect(dsn)\npsycopg2.OperationalError: connection to server at "«host»" (10.0.3.7), port 5432 failed: FATAL:  password authentication failed for user "«user»"\n\nLocals: dsn = \'host=«host» user=«user» password=«v» dbname=«db»\'',
  source="a Python traceback with locals (e.g. rich/sentry)")
G("urllib3-debug", tok(40, ALNUM),
  "DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): api.«org».com:443\nDEBUG:app.client:request headers={'User-Agent': 'python-requests/2.31.0', 'Authorization': 'Bearer «v»', 'Accept': '*/*'}",
  source="a debug log printing request headers")
G("axios-error", tok(40, ALNUM),
  "AxiosError: Request failed with status code 401\n    at settle (node_modules/axios/lib/core/settle.js:19:12)\n  config: {\n    url: 'https://api.«org».com/v1/sync',\n    method: 'post',\n    headers: AxiosHeaders {\n      Accept: 'application/json, text/plain, */*',\n      Authorization: 'Bearer «v»',\n    },\n  },",
  source="an AxiosError printed by node")
G("spring-generated", uuid4,
  "2026-02-11T10:12:04.117Z  WARN 1 --- [main] .s.s.UserDetailsServiceAutoConfiguration :\n\nUsing generated security password: «v»\n\nThis generated password is for development use only. Your security configuration must be updated before running your application in production.",
  source="Spring Boot's generated security password banner")
G("jupyter-token", hex_secret(48),
  "[I 2026-02-11 10:22:31.554 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2026-02-11 10:22:31.554 ServerApp] http://localhost:8888/lab?token=«v»\n[I 2026-02-11 10:22:31.554 ServerApp]     http://127.0.0.1:8888/lab?token=«v»",
  source="jupyter lab startup")
G("jenkins-initial", hex_secret(32),
  "*************************************************************\n\nJenkins initial setup is required. An admin user has been created and a password generated.\nPlease use the following password to proceed to installation:\n\n«v»\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword",
  source="Jenkins first start")
G("elastic-first-start", lambda rng: rs(rng, ALNUM + "-_*+=", 20),
  "✅ Elasticsearch security features have been automatically configured!\n✅ Authentication is enabled and cluster connections are encrypted.\n\nℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  «v»",
  source="Elasticsearch 8 first start")
G("minio-start", tok(40, ALNUM),
  "MinIO Object Storage Server\nAPI: http://«ip»:9000  http://127.0.0.1:9000\nRootUser: «ua:20»\nRootPass: «v»", source="MinIO server banner")
G("argocd-initial", lambda rng: mixed(rng, ALNUM + "-", 16),
  "$ argocd admin initial-password -n argocd\n«v»\n\n This password must be only used for first time login. We strongly recommend you update the password using `argocd account update-password`.",
  source="argocd admin initial-password")
G("gitlab-root", lambda rng: b64_of(rbytes(rng, 32)),
  "# WARNING: This value is valid only in the following conditions\n#          1. If provided manually (either via `GITLAB_ROOT_PASSWORD` environment variable or via `gitlab_rails['initial_root_password']` setting in `gitlab.rb`, it was provided before database was seeded for the first time (usually, the first reconfigure run).\n#          2. Password hasn't been changed manually, either via UI or via command line.\n\nPassword: «v»",
  source="/etc/gitlab/initial_root_password")
G("vault-init", lambda rng: b64_of(rbytes(rng, 33)),
  "Unseal Key 1: «v»\nUnseal Key 2: «an:44»\nUnseal Key 3: «an:44»\n\nInitial Root Token: hvs.«an:24»\n\nVault initialized with 5 key shares and a key threshold of 3.",
  source="vault operator init output")
G("kubeadm-join", lambda rng: f"{rs(rng, LALNUM, 6)}.{rs(rng, LALNUM, 16)}",
  "Then you can join any number of worker nodes by running the following on each as root:\n\nkubeadm join «ip»:6443 --token «v» \\\n\t--discovery-token-ca-cert-hash sha256:«hex:64»",
  source="kubeadm init output (bootstrap token)")
G("swarm-join", lambda rng: f"SWMTKN-1-{rs(rng, LALNUM, 50)}-{rs(rng, LALNUM, 25)}",
  "To add a worker to this swarm, run the following command:\n\n    docker swarm join --token «v» «ip»:2377", source="docker swarm init output")
G("k3s-token", lambda rng: f"K10{rs(rng, HEX, 64)}::server:{rs(rng, HEX, 32)}",
  "$ sudo cat /var/lib/rancher/k3s/server/node-token\n«v»", source="k3s node-token")
G("docker-inspect-env", spw,
  '        "Env": [\n            "POSTGRES_PASSWORD=«v»",\n            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",\n            "PG_MAJOR=16"\n        ],',
  source="docker inspect Config.Env")
G("printenv", tok(40, ALNUM), "HOSTNAME=«hex:12»\nHOME=/root\nSTRIPE_API_KEY=«v»\nLANG=C.UTF-8\nPATH=/usr/local/bin:/usr/bin:/bin",
  source="printenv in a container")
G("heroku-config", plain_password,
  "=== «proj»-prod Config Vars\nDATABASE_URL: postgres://«ln:14»:«v»@ec2-«dig:2»-«dig:3»-«dig:2»-«dig:3».compute-1.amazonaws.com:5432/«ln:14»\nNODE_ENV:     production",
  source="heroku config output")
G("terraform-output", spw, 'Outputs:\n\ndb_endpoint = "«proj».«ln:12».«region».rds.amazonaws.com"\ndb_password = "«v»"', source="terraform output without sensitive=true")
G("ansible-vvv", spw, '<«ip»> ESTABLISH SSH CONNECTION FOR USER: «user»\nok: [«ip»] => {\n    "ansible_password": "«v»",\n    "changed": false\n}',
  source="ansible -vvv printing a variable")
G("nginx-access-token", tok(40, ALNUM),
  '«ip» - - [11/Feb/2026:10:14:22 +0000] "GET /api/export?format=csv&access_token=«v» HTTP/1.1" 200 5123 "-" "curl/8.5.0"',
  source="an nginx access log line with a token in the query")
G("express-body-log", spw, "POST /api/register 201 34.512 ms - 88\nbody: { email: '«email»', password: '«v»', plan: 'pro' }",
  source="an Express request logger printing the body")
G("gh-hosts-cat", lambda rng: "gho_" + rs(rng, ALNUM, 36), "$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    git_protocol: ssh\n    users:\n        «user»:\n    oauth_token: «v»\n    user: «user»",
  source="cat of the gh CLI hosts file")
G("ci-env-dump", tok(40, ALNUM), "Run env | sort\nCI=true\nDEPLOY_KEY=«v»\nGITHUB_ACTIONS=true\nRUNNER_OS=Linux", source="a CI step dumping env")
G("sqlalchemy-echo", plain_password,
  "2026-02-11 10:31:02,114 INFO sqlalchemy.engine.Engine Engine(postgresql+psycopg2://«user»:«v»@«host»:5432/«db»)", source="a log that prints the engine URL unmasked")


# ============================================================================================
# prose (English, chat style)
# ============================================================================================

def R(name: str, make, *templates, source: str) -> None:
    add("prose-" + name, "prose", make, *templates, source=source)


R("pw-for-staging", chosen,
  ["the pw for the staging db is «v» dont share it pls",
   "staging db pass = «v» (same as last sprint lol)",
   "fyi pwd for «host» is «v»"],
  source="how people write it in chat")
R("login-slash", spw, ["login is admin / «v» for the grafana at https://grafana.«org».lan",
                       "creds: «user» / «v»"], source="user / password in chat")
R("backticks", tok(40, ALNUM), "my api key is `«v»` can you check why it 401s?", source="a key in backticks in a question")
R("code-fence", spw, "I put this in my config:\n\n```\nusername: «user»\npassword: «v»\n```\n\nbut the service still says unauthorized",
  source="a config in a markdown code fence")
R("md-table", spw, "| service | user | password |\n|---|---|---|\n| postgres | «user» | «v» |\n| redis | default | (none) |",
  source="a markdown table of credentials")
R("typo-passowrd", spw, ["passowrd: «v»", "the passwrod is «v» i think", "pasword → «v»"], source="typos of password")
R("quoted-styles", chosen, ["the password is \u201c«v»\u201d", "password is \u2018«v»\u2019 (no quotes)", "Password: «v» - without the dot at the end."],
  source="curly quotes and a trailing period")
R("wifi", chosen, ["wifi is «org»-Guest, password «v»", "Guest WiFi password: «v»"], source="a wifi password in a note")
R("temp-password", spw, "Hi «first», your account has been created.\nUsername: «email»\nTemporary password: «v»\nYou will be asked to change it at first sign-in.",
  source="an onboarding email")
R("root-password-set", chosen, "I've set the root password to «v» on the new box, change it after you log in",
  source="a teammate's message")
R("token-arrow", tok(40, ALNUM), "new token (expires in 30d) → «v»", source="a token after an arrow")
R("passphrase-said", passphrase, ['the passphrase is "«v»"', "ssh key passphrase: «v»"], source="a passphrase in prose")
R("secret-in-1password", tok(32, ALNUM), "copied from 1password: «v» — that's the webhook secret for the prod endpoint",
  source="a value copied from a password manager")
R("recovery-codes", lambda rng: f"{rs(rng, LALNUM, 5)}-{rs(rng, LALNUM, 5)}",
  "GitHub recovery codes (keep somewhere safe):\n«v»\n«ln:5»-«ln:5»\n«ln:5»-«ln:5»\n«ln:5»-«ln:5»", source="GitHub two-factor recovery codes")
R("voice-note", chosen, "ok so uh the admin password is «v» capital first letter, then try logging in again",
  source="a dictated note")
R("slack-here", chosen, "@here new VPN pre-shared key: «v» (old one stops working monday)", source="a team announcement")
R("agent-reply", tok(40, ALNUM), "I found the key in `config/prod.env`: `API_KEY=«v»`. I'll use it for the test request.",
  source="an agent echoing a key it found")
R("bullet-list", spw, "Access for the contractor:\n- VPN: vpn.«org».com\n- user: «user»\n- pass: «v»\n- MFA: ask Dave",
  source="a bullet list of access details")
R("colon-no-space", chosen, "db:«host» user:«user» pw:«v»", source="terse key:value notes")
R("inline-with-paren", spw, "Use «user» (password «v») for the read replica.", source="a password in parentheses")
R("angle-quotes", chosen, "pass is «v» — the one with the capital", source="plain statement with an em dash")
R("sms-code-long", tok(12, UALNUM), "Your Acme account setup key is «v». Enter it in the authenticator app.", source="an authenticator setup key")
R("hunter2-style", chosen, "lol my password is literally «v» dont judge", source="chat")
R("ticket", spw, "JIRA-«dig:4»: Service account for reporting.\nAccount: svc_reporting\nPassword: «v»\nExpires: «date»", source="a ticket body")


# ============================================================================================
# other languages (native script and romanized)
# ============================================================================================

def N(name: str, make, *templates, source: str) -> None:
    add("lang-" + name, "lang", make, *templates, source=source)


N("es-contrasena", chosen, ["la contraseña de la base de datos es «v», no la compartas",
                            "Usuario: «user»\nContraseña: «v»"], source="Spanish")
N("es-clave-api", tok(40, ALNUM), "oye, te paso la clave de la API: «v» (caduca en una semana)", source="Spanish, clave de API")
N("fr-mdp", chosen, ["le mot de passe du serveur est « «v» »", "mdp : «v» (attention aux majuscules)"], source="French, guillemets with spaces")
N("fr-cle", tok(40, ALNUM), "Voici la clé API pour l'environnement de recette : «v»", source="French, clé API")
N("de-passwort", chosen, ["Das Passwort für den Server lautet «v»", "Zugangsdaten: Benutzer «user», Kennwort «v»"], source="German")
N("de-schluessel", tok(40, ALNUM), "Der API-Schlüssel ist «v» – bitte nicht ins Repo committen.", source="German, API-Schlüssel")
N("pt-senha", chosen, ["a senha do banco é «v», troca depois", "senha: «v»"], source="Portuguese (Brazil)")
N("pt-chave", tok(40, ALNUM), "Segue a chave de acesso da API: «v»", source="Portuguese, chave de API")
N("it-password", chosen, ["la password dell'utente admin è «v»", "Credenziali -> utente: «user» / parola d'ordine: «v»"], source="Italian")
N("nl-wachtwoord", chosen, ["het wachtwoord is «v»", "Wachtwoord voor de NAS: «v»"], source="Dutch")
N("pl-haslo", chosen, ["hasło do serwera to «v»", "haslo: «v» (bez polskich znakow)"], source="Polish, with and without diacritics")
N("ru-parol", chosen, ["пароль от базы: «v»", "parol ot bazy: «v»"], source="Russian, Cyrillic and transliterated")
N("ru-token", tok(40, ALNUM), "вот токен для бота: «v», не свети его", source="Russian, токен")
N("uk-parol", chosen, ["пароль до сервера — «v»", "parol do servera: «v»"], source="Ukrainian")
N("zh-mima", chosen, ["数据库密码是«v»，别外传", "mima shi «v» (shujuku de)"], source="Chinese (simplified) and pinyin")
N("zh-miyao", tok(40, ALNUM), "API 密钥：«v»\n请妥善保管。", source="Chinese, API 密钥 with fullwidth colon")
N("zh-tw-mima", chosen, "帳號：«user»　密碼：«v»", source="Chinese (traditional), ideographic space")
N("ja-pasuwado", chosen, ["パスワードは「«v»」です。", "pasuwaado wa «v» desu"], source="Japanese, corner brackets, and romaji")
N("ja-apikey", tok(40, ALNUM), "本番のAPIキー: «v» です（共有しないでください）", source="Japanese, APIキー")
N("ko-bimilbeonho", chosen, ["비밀번호는 «v» 입니다", "bimilbeonho: «v»"], source="Korean, Hangul and romanized")
N("ko-apikey", tok(40, ALNUM), "API 키는 «v» 이에요. 다음 주에 교체할게요.", source="Korean, API 키")
N("ar-kalimat-sir", chosen, ["كلمة المرور هي «v»", "el password howa «v» ya basha"], source="Arabic and Arabizi")
N("he-sisma", chosen, "הסיסמה היא «v» (לא לשתף)", source="Hebrew")
N("hi-password", chosen, ["सर्वर का पासवर्ड «v» है", "bhai password «v» hai, kisi ko mat batana"], source="Hindi and Hinglish")
N("tr-sifre", chosen, ["şifre: «v»", "veritabani sifresi «v»"], source="Turkish, with and without diacritics")
N("vi-matkhau", chosen, ["mật khẩu là «v» nhé", "mat khau: «v»"], source="Vietnamese, accented and not")
N("id-katasandi", chosen, ["kata sandi: «v»", "password wifi nya «v» ya kak"], source="Indonesian")
N("th-rahat", chosen, "รหัสผ่านคือ «v» นะครับ", source="Thai")
N("fa-ramz", chosen, "رمز عبور سرور: «v»", source="Persian")
N("el-kodikos", chosen, ["ο κωδικός είναι «v»", "kodikos: «v»"], source="Greek and Greeklish")
N("sv-losenord", chosen, "lösenordet till routern är «v»", source="Swedish")
N("cs-heslo", chosen, ["heslo je «v»", "Heslo k databázi: «v»"], source="Czech")
N("bn-password", chosen, "সার্ভারের পাসওয়ার্ড হল «v»", source="Bengali")
N("fi-salasana", chosen, "salasana on «v»", source="Finnish")
N("ro-parola", chosen, "parola pentru contul de admin este «v»", source="Romanian")
N("hu-jelszo", chosen, "a jelszó: «v»", source="Hungarian")
N("tl-password", chosen, "ang password ng wifi ay «v» po", source="Tagalog")
N("sw-nenosiri", chosen, "nenosiri ni «v»", source="Swahili")
N("da-adgangskode", chosen, "adgangskoden er «v»", source="Danish")
N("ur-password", chosen, "سرور کا پاس ورڈ «v» ہے", source="Urdu")
N("ca-contrasenya", chosen, "la contrasenya és «v»", source="Catalan")


# ============================================================================================
# encoded forms
# ============================================================================================

def E(name: str, make, *renders, source: str) -> None:
    """Encoded renderings are callables returning (text, [forms])."""
    KINDS.append(kind("enc-" + name, "encoded", make, *renders, source=source))


def _b64_env(rng: random.Random, v: str):
    blob = f"NODE_ENV=production\nPORT=8080\nDATABASE_URL=postgres://app@{host(rng)}:5432/{rng.choice(DBS)}\nSTRIPE_SECRET_KEY={v}\n"
    b = b64_of(blob.encode())
    return (rng.choice([f"echo '{b}' | base64 -d > .env", f"ENV_FILE_B64={b}", f"gh secret set ENV_FILE --body '{b}'"]),
            [(b, 14)])


E("b64-dotenv", lambda rng: "sk_live_" + rs(rng, ALNUM, 99), _b64_env, source="a .env shipped as one base64 CI variable")


def _k8s_data(rng: random.Random, v: str):
    b = b64_of(v.encode())
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {rng.choice(PROJS)}-creds\ntype: Opaque\ndata:\n"
            f"  username: {b64_of(username(rng).encode())}\n  password: {b}", [enc_form(v, b)])


E("k8s-data", spw, _k8s_data, source="Kubernetes Secret data (base64 values)")


def _docker_auth(rng: random.Random, v: str):
    b = b64_of(f"{username(rng)}:{v}".encode())
    return ('{\n\t"auths": {\n\t\t"registry.' + rng.choice(ORGS) + '.io": {\n\t\t\t"auth": "' + b + '"\n\t\t}\n\t}\n}', [(b, 14)])


E("docker-config-auth", spw, _docker_auth, source="~/.docker/config.json auths.auth = base64(user:password)")


def _npm_auth(rng: random.Random, v: str):
    b = b64_of(f"{username(rng)}:{v}".encode())
    return (f"registry=https://artifactory.{rng.choice(ORGS)}.com/api/npm/npm/\n_auth={b}\nalways-auth=true", [(b, 14)])


E("npmrc-auth", spw, _npm_auth, source=".npmrc _auth = base64(user:password)")


def _form_body(rng: random.Random, v: str):
    e = url_encoded(v)
    return (f"curl -X POST https://{host(rng)}/login -H 'Content-Type: application/x-www-form-urlencoded' "
            f"--data 'username={username(rng)}&password={e}&submit=Sign+in'", [enc_form(v, e)])


E("urlencoded-form", lambda rng: chosen(rng) + rng.choice("!@#$%&+=/?"), _form_body, source="a form post with a percent-encoded password")


def _u_escaped(rng: random.Random, v: str):
    e = u_escaped(v)
    return ('{"db": {"host": "' + host(rng) + '", "password": "' + e + '"}}', [enc_form(v, e)])


E("json-u-escaped", spw, _u_escaped, source="a JSON string written with \\u escapes (some serializers' ASCII mode)")


def _hex(rng: random.Random, v: str):
    e = hex_of(v)
    return (rng.choice([f"DB_PASSWORD_HEX={e}", f"password = bytes.fromhex('{e}').decode()"]), [enc_form(v, e)])


E("hex", spw, _hex, source="a password stored hex-encoded")


def _py_bytes(rng: random.Random, v: str):
    e = "".join(f"\\x{b:02x}" for b in v.encode())
    return (f"KEY = b'{e}'", [enc_form(v, e)])


E("py-bytes-escapes", tok(32, ALNUM), _py_bytes, source="a Python bytes literal of \\x escapes")


def _java_b64(rng: random.Random, v: str):
    b = b64_of(v.encode())
    return (f'String password = new String(Base64.getDecoder().decode("{b}"), StandardCharsets.UTF_8);', [enc_form(v, b)])


E("java-b64-decode", spw, _java_b64, source="Java decoding a base64 literal")


def _html_entities(rng: random.Random, v: str):
    e = "".join(f"&#{ord(c)};" for c in v)
    return (f'<input type="hidden" name="api_password" value="{e}">', [enc_form(v, e)])


E("html-entities", spw, _html_entities, source="HTML numeric character references")


def _dsn_param(rng: random.Random, v: str):
    dsn = f"postgres://{username(rng)}:{v}@{host(rng)}:5432/{rng.choice(DBS)}"
    e = url_encoded(dsn)
    return (f"https://admin.{rng.choice(ORGS)}.com/connect?dsn={e}&test=1", [enc_form(v, url_encoded(v))])


E("dsn-in-query", plain_password, _dsn_param, source="a whole DSN percent-encoded into a query parameter")


def _php_slashes(rng: random.Random, v: str):
    e = v.replace("/", "\\/")
    return ('{"aws_access_key_id":"AKIA' + rs(rng, UALNUM, 16) + '","aws_secret_access_key":"' + e + '"}', [enc_form(v, e)])


E("json-escaped-slashes", lambda rng: rs(rng, ALNUM, 12) + "/" + rs(rng, ALNUM + "+", 13) + "/" + rs(rng, ALNUM + "/+", 13),
  _php_slashes, source="PHP json_encode escaping / as \\/")


def _go_amp(rng: random.Random, v: str):
    e = v.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return ('{"level":"info","msg":"connecting","password":"' + e + '"}', [enc_form(v, e)])


E("go-json-amp", lambda rng: rng.choice(PWORDS).capitalize() + "&" + rs(rng, DIGITS, 3) + rng.choice(PWORDS) + "<" + rs(rng, ALNUM, 4),
  _go_amp, source="Go encoding/json escaping & < > as \\u0026 …")


def _xml_escape(rng: random.Random, v: str):
    e = v.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    return (f'<add name="Default" connectionString="Server={host(rng)};User ID={username(rng)};Password={e};" />', [enc_form(v, e)])


E("xml-escaped", lambda rng: rng.choice(PWORDS).capitalize() + "&" + rs(rng, ALNUM, 5) + "<" + rng.choice(PWORDS) + rs(rng, DIGITS, 2),
  _xml_escape, source="XML attribute escaping (&amp; &lt;)")


def _shell_quote(rng: random.Random, v: str):
    e = v.replace("'", "'\\''")
    return (f"export DB_PASSWORD='{e}'", [enc_form(v, e)])


E("shell-quote-escape", lambda rng: rng.choice(PWORDS).capitalize() + "'s" + rs(rng, DIGITS, 3) + rng.choice(PWORDS) + "!" + rs(rng, ALNUM, 3),
  _shell_quote, source="a single quote escaped for the shell ('\\'')")


def _b64url_json(rng: random.Random, v: str):
    b = b64_of(json.dumps({"endpoint": f"https://api.{rng.choice(ORGS)}.com", "token": v}).encode(), url=True, pad=False)
    return (f"CONFIG_B64={b}", [(b, 14)])


E("b64url-json-config", tok(40, ALNUM), _b64url_json, source="a JSON config passed as base64url")


def _double_json(rng: random.Random, v: str):
    inner = json.dumps({"user": username(rng), "password": v})
    once = json.dumps(v)[1:-1]
    twice = json.dumps(once)[1:-1]
    return (json.dumps({"secret_string": inner}), [enc_form(v, twice)])


E("double-json", lambda rng: rng.choice(PWORDS).capitalize() + '"' + rs(rng, DIGITS, 3) + rng.choice(PWORDS) + "\\" + rs(rng, ALNUM, 4),
  _double_json, source="AWS Secrets Manager SecretString (JSON inside JSON)")


def _b64_yaml(rng: random.Random, v: str):
    blob = f"smtp:\n  host: smtp.{rng.choice(ORGS)}.com\n  user: mailer\n  password: {v}\n"
    b = b64_of(blob.encode())
    return (f"$ kubectl get configmap mail -o jsonpath='{{.binaryData.config}}'\n{b}", [(b, 14)])


E("b64-yaml", spw, _b64_yaml, source="base64 of a YAML config")


# ============================================================================================
# private keys
# ============================================================================================

def Y(name: str, make, *renders, source: str) -> None:
    KINDS.append(kind("key-" + name, "key", make, *[rendering(t, fill) for t in renders], source=source))


def der_b64(prefix: str, total: int):
    """base64 of a DER-looking blob: a fixed header (hex) then random bytes."""
    head = bytes.fromhex(prefix)
    return lambda rng: b64_of(head + rbytes(rng, total - len(head)))


def pem_body(prefix: str, total: int, width: int = 64):
    make = der_b64(prefix, total)
    return lambda rng: wrap(make(rng), width)


def pem(label: str):
    return f"-----BEGIN {label}-----\n«v»\n-----END {label}-----"


def _ssh_string(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def openssh_ed25519(rng: random.Random) -> str:
    pk, sk = rbytes(rng, 32), rbytes(rng, 32)
    comment = f"{rng.choice(FIRST)}@{rng.choice(['laptop', 'ci', 'build-01', 'macbook'])}".encode()
    pub = _ssh_string(b"ssh-ed25519") + _ssh_string(pk)
    check = rbytes(rng, 4)
    priv = check + check + _ssh_string(b"ssh-ed25519") + _ssh_string(pk) + _ssh_string(sk + pk) + _ssh_string(comment)
    priv += bytes(range(1, 1 + (-len(priv)) % 8))
    blob = (b"openssh-key-v1\0" + _ssh_string(b"none") + _ssh_string(b"none") + _ssh_string(b"") + (1).to_bytes(4, "big")
            + _ssh_string(pub) + _ssh_string(priv))
    return wrap(b64_of(blob), 70)


RSA_PKCS1 = "308204a40201000282010100"
RSA_PKCS8 = "308204be020100300d06092a864886f70d0101010500048204a8308204a40201000282010100"
OPENSSH_RSA = ("6f70656e7373682d6b65792d7631000000000" "46e6f6e65000000046e6f6e65000000000000000100000197000000077373682d727361")
OPENSSH_ENC = ("6f70656e7373682d6b65792d763100000000" "0a6165733235362d63747200000006626372797074000000180000001")


def ec_sec1(rng: random.Random) -> str:
    der = (bytes.fromhex("307702010104 20".replace(" ", "")) + rbytes(rng, 32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200 04".replace(" ", ""))
           + rbytes(rng, 64))
    return wrap(b64_of(der))


def ec_pkcs8(rng: random.Random) -> str:
    der = (bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420") + rbytes(rng, 32)
           + bytes.fromhex("a14403420004") + rbytes(rng, 64))
    return wrap(b64_of(der))


def ed25519_pkcs8(rng: random.Random) -> str:
    return b64_of(bytes.fromhex("302e020100300506032b657004220420") + rbytes(rng, 32))


Y("rsa-pkcs1", pem_body(RSA_PKCS1, 1192), "here's the deploy key, put it in ~/.ssh/id_rsa:\n\n" + pem("RSA PRIVATE KEY"),
  "$ cat /etc/ssl/private/«org».key\n" + pem("RSA PRIVATE KEY"), source="PEM, PKCS#1 RSA (RFC 7468)")
Y("pkcs8-rsa", pem_body(RSA_PKCS8, 1218), pem("PRIVATE KEY"), source="PEM, PKCS#8 RSA")
Y("ec-sec1", ec_sec1, "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + pem("EC PRIVATE KEY"),
  source="openssl ecparam -genkey output (SEC1)")
Y("ec-pkcs8", ec_pkcs8, pem("PRIVATE KEY"), source="PKCS#8 P-256 key")
Y("ed25519-pkcs8", ed25519_pkcs8, pem("PRIVATE KEY"), "openssl genpkey -algorithm ed25519\n" + pem("PRIVATE KEY"),
  source="openssl genpkey ed25519 (48 bytes)")
Y("encrypted-pkcs8", pem_body("3082052c3056 06092a864886f70d01050d3049303106092a864886f70d01050c3024".replace(" ", ""), 1328),
  pem("ENCRYPTED PRIVATE KEY"), source="PKCS#8 EncryptedPrivateKeyInfo (PBES2)")
Y("dsa", pem_body("308201bb02010002818100", 443), pem("DSA PRIVATE KEY"), source="PEM DSA (legacy)")
Y("openssh-ed25519", openssh_ed25519, pem("OPENSSH PRIVATE KEY"), "cat ~/.ssh/id_ed25519\n" + pem("OPENSSH PRIVATE KEY"),
  source="OpenSSH PROTOCOL.key format, ed25519")
Y("openssh-rsa", lambda rng: wrap(b64_of(bytes.fromhex(OPENSSH_RSA) + rbytes(rng, 1750)), 70), pem("OPENSSH PRIVATE KEY"),
  source="OpenSSH private key, RSA 3072")
Y("openssh-encrypted", lambda rng: wrap(b64_of(bytes.fromhex(OPENSSH_ENC + "0") + rbytes(rng, 420)), 70), pem("OPENSSH PRIVATE KEY"),
  source="OpenSSH key encrypted with aes256-ctr/bcrypt")
Y("putty-v3", lambda rng: b64_of(_ssh_string(rbytes(rng, 32))),
  "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20260211\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI«an:43»\n«an:21»\nPrivate-Lines: 1\n«v»\nPrivate-MAC: «hex:64»",
  source="PuTTY .ppk version 3 (ed25519)")
Y("putty-v2-rsa", lambda rng: wrap(b64_of(rbytes(rng, 890)), 64),
  "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20240105\nPublic-Lines: 6\nAAAAB3NzaC1yc2EAAAABJQAAAQEA«an:30»\n«an:64»\n«an:64»\n«an:64»\n«an:64»\n«an:40»==\nPrivate-Lines: 14\n«v»\nPrivate-MAC: «hex:40»",
  source="PuTTY .ppk version 2 (RSA)")
Y("jwk-ec-d", lambda rng: b64_of(rbytes(rng, 32), url=True, pad=False),
  '{\n  "kty": "EC",\n  "crv": "P-256",\n  "kid": "«an:8»",\n  "x": "«b64u»",\n  "y": "«b64u»",\n  "d": "«v»"\n}'.replace("«b64u»", "«an:43»"),
  source="RFC 7517 JWK, EC private member d")
Y("jwk-rsa-d", lambda rng: b64_of(rbytes(rng, 256), url=True, pad=False),
  '{"keys":[{"kty":"RSA","kid":"«an:10»","use":"sig","alg":"RS256","n":"«an:60»…","e":"AQAB","d":"«v»","p":"«an:40»…"}]}',
  source="JWKS with an RSA private d")
Y("jwk-okp-d", lambda rng: b64_of(rbytes(rng, 32), url=True, pad=False),
  '{"kty":"OKP","crv":"Ed25519","x":"«an:43»","d":"«v»"}', source="RFC 8037 OKP JWK")
Y("pkcs12-b64", lambda rng: b64_of(bytes.fromhex("30820a3c0201033082") + rbytes(rng, 1700)),
  "CERTIFICATE_P12_BASE64=«v»\nCERTIFICATE_PASSWORD=«an:12»", source="a PKCS#12 bundle base64 in a CI variable (iOS signing)")
Y("age", compose("AGE-SECRET-KEY-1", (BECH32.upper(), 58)),
  "# created: «date»T10:14:55Z\n# public key: age1«ln:58»\n«v»", source="age-keygen output")
Y("wireguard", lambda rng: b64_of(rbytes(rng, 32)),
  "[Interface]\nPrivateKey = «v»\nAddress = 10.8.0.2/32\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = «an:43»=\nEndpoint = vpn.«org».com:51820\nAllowedIPs = 0.0.0.0/0",
  source="wg-quick wg0.conf")
Y("gpg-armored", lambda rng: wrap("lQdGBGX" + b64_of(rbytes(rng, 1300)), 64),
  "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n«v»\n=«an:4»\n-----END PGP PRIVATE KEY BLOCK-----", source="gpg --export-secret-keys --armor")
Y("gcp-sa-json", lambda rng: "\\n".join(wrap(der_b64(RSA_PKCS8, 1218)(rng)).split("\n")),
  '{\n  "type": "service_account",\n  "project_id": "«proj»-«dig:6»",\n  "private_key_id": "«hex:40»",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n«v»\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "deployer@«proj»-«dig:6».iam.gserviceaccount.com"\n}',
  source="Google Cloud service account key JSON")
Y("apple-p8-env", lambda rng: "\\n".join(ec_pkcs8(rng).split("\n")),
  'APNS_KEY_ID=«ua:10»\nAPNS_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\n«v»\\n-----END PRIVATE KEY-----"', source="an App Store Connect .p8 key in an env var")
Y("yaml-literal-block", lambda rng: "\n    ".join(wrap(der_b64(RSA_PKCS1, 1192)(rng)).split("\n")),
  "githubApp:\n  appId: «dig:6»\n  privateKey: |\n    -----BEGIN RSA PRIVATE KEY-----\n    «v»\n    -----END RSA PRIVATE KEY-----",
  source="a GitHub App key in Helm values (literal block)")
Y("ethereum", compose((HEX, 64)), "PRIVATE_KEY=0x«v»\nSEPOLIA_RPC_URL=https://sepolia.infura.io/v3/«hex:32»",
  "const wallet = new ethers.Wallet('0x«v»', provider);", source="hardhat .env / ethers Wallet")
Y("solana-keypair", lambda rng: "[" + ",".join(str(b) for b in rbytes(rng, 64)) + "]",
  "$ cat ~/.config/solana/id.json\n«v»", source="solana-keygen JSON keypair")
Y("nostr-nsec", compose("nsec1", (BECH32, 58)), "my nostr key: «v»", source="NIP-19 nsec")
Y("bitcoin-wif", lambda rng: rng.choice("KL") + rs(rng, BASE58, 51), "importprivkey «v» \"savings\" false", source="Bitcoin Core importprivkey (WIF)")
Y("bip39-mnemonic", lambda rng: " ".join(rng.choice(PWORDS) for _ in range(12)),
  ["seed phrase: «v»", 'MNEMONIC="«v»"'], source="a 12-word recovery phrase")
Y("minisign", lambda rng: "RWRTY0Iy" + b64_of(rbytes(rng, 152)),
  "untrusted comment: minisign encrypted secret key\n«v»", source="minisign -G secret key file")
Y("nebula", lambda rng: b64_of(rbytes(rng, 32)), pem("NEBULA X25519 PRIVATE KEY"), source="nebula-cert host.key")
Y("cosign", lambda rng: wrap("eyJrZGYiOnsibmFtZSI6InNjcnlwdCIs" + b64_of(rbytes(rng, 600)), 64), pem("ENCRYPTED SIGSTORE PRIVATE KEY"),
  source="cosign generate-key-pair cosign.key")
Y("ed25519-seed-hex", compose((HEX, 64)), "SIGNING_KEY_SEED=«v»  # ed25519 seed, hex", source="a libsodium seed in hex")


def _tls_key_b64(rng: random.Random, v: str):
    text = f"-----BEGIN EC PRIVATE KEY-----\n{v}\n-----END EC PRIVATE KEY-----\n"
    b = b64_of(text.encode())
    return (f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: {rng.choice(PROJS)}-tls\ndata:\n"
            f"  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t{rs(rng, B64, 60)}\n  tls.key: {b}", [(b, 14)])


def _client_key_data(rng: random.Random, v: str):
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----\n"
    b = b64_of(text.encode())
    return (f"users:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t{rs(rng, B64, 80)}\n"
            f"    client-key-data: {b}", [(b, 14)])


KINDS.append(kind("key-k8s-tls-b64", "key", ec_sec1, _tls_key_b64, source="kubernetes.io/tls Secret, tls.key base64 of PEM"))
KINDS.append(kind("key-kubeconfig-client-key", "key", pem_body(RSA_PKCS1, 1192), _client_key_data,
                  source="kubeconfig client-key-data (base64 of PEM)"))


def _excerpt(first):
    """The line of the first rendering that holds the value (or its first encoded form), as people
    quote one line of a file or an output: a one-line rendering for the one-line places."""

    def render(rng: random.Random, v: str):
        text, forms = rendered(first(rng, v))
        needle = v if v in text else forms[0][0] if forms else v
        for line in text.split("\n"):
            if needle in line and line.strip() != needle:
                return line.strip(), forms
        return text, forms

    return render


def _with_excerpts(kinds: list[Kind]) -> list[Kind]:
    out = []
    for k in kinds:
        probe = random.Random(k.name)
        value = k.make(probe)
        has_line = any("\n" not in rendered(r(random.Random(1), value))[0] for r in k.renders)
        if not has_line and len(k.renders) < 3 and "\n" not in value:
            k = Kind(k.name, k.family, k.make, (*k.renders, _excerpt(k.renders[0])), k.source, k.self_evident, k.notes)
        out.append(k)
    return out


OUTSIDER4_KINDS: list[Kind] = _with_excerpts(KINDS)
check_unique_names(OUTSIDER4_KINDS)

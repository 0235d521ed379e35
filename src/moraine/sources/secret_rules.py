"""The credential formats Moraine redacts, each with the source it was learned from.

Patterns are RE2 syntax (linear time on any input). Each is written as a *shape*: the vendor's
prefix, alphabet and length, so that code which merely resembles a credential (`sk-learn-…`,
`xoxo-…`, `pypi-publish-…`, a Stripe *publishable* `pk_live_` key) is left alone. Where the
pattern has a capture group, only that group is redacted (the password of a URI, the value of
`AccountKey=`); otherwise the whole match is.

Sources: "gitleaks" names a rule id of gitleaks' default config (`cmd/generate/config/rules`),
"detect-secrets" a plugin of Yelp's detect-secrets, "vendor" the vendor's documentation of the
format. The patterns are Moraine's own, written from those descriptions; the rules that need
context (a secret-named key, a provider named nearby) live in `redact.py`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    name: str  # the placeholder says `[REDACTED:<name>]`
    source: str
    pattern: str  # RE2; group 1, when present, is what gets redacted
    starts_word: bool = True  # the match must not continue a word (a letter or digit before it)
    mixed: bool = False  # what is redacted must hold a digit and a letter (code words hold none)
    # A Python pattern that must end where the RE2 match starts; the credential starts where it
    # does. It keeps RE2's DFA small: a shape that opens with a counted run of a character class
    # (`[a-f0-9]{32}-us6`) would make RE2 track every possible start at every byte.
    back: str = ""


# A token ends where its alphabet ends; for fixed-length shapes a longer run is another word.
END = r"(?:[^A-Za-z0-9_-]|$)"  # consumes one character: `redact.py` gives it back
_END = END
_B64 = r"[A-Za-z0-9+/]"

TOKEN_RULES: tuple[Rule, ...] = (
    # -- private keys and signed tokens --------------------------------------------------------
    # A whole block; a block cut short (`head id_rsa`) up to the end of its base64 lines.
    Rule("pem-private-key", "gitleaks:private-key",
         r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=:,.()@ \t\r\n-]|\\+[nrt]){16,}?"
         r"-----END[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
         r"|-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\r\n]|\\+[nr])+"),
    Rule("jwt", "gitleaks:jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    Rule("age-secret-key", "gitleaks:age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    # -- cloud providers -----------------------------------------------------------------------
    Rule("aws-access-token", "gitleaks:aws-access-token",
         r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}" + _END),
    Rule("google-api-key", "gitleaks:gcp-api-key", r"AIza[0-9A-Za-z_-]{35}"),
    Rule("google-oauth-token", "vendor:Google OAuth 2.0 access tokens", r"ya29\.[0-9A-Za-z_-]{20,}"),
    Rule("azure-ad-client-secret", "gitleaks:azure-ad-client-secret",
         r"[0-9]Q~[A-Za-z0-9_~.-]{31,34}", mixed=True, back=r"[A-Za-z0-9_~.]{3}"),
    Rule("digitalocean-token", "gitleaks:digitalocean-pat", r"do[opr]_v1_[a-f0-9]{64}"),
    Rule("heroku-api-key", "gitleaks:heroku-api-key-v2", r"HRKU-AA[0-9A-Za-z_-]{58}"),
    Rule("vault-token", "gitleaks:vault-service-token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    Rule("databricks-token", "gitleaks:databricks-api-token", r"dapi[a-f0-9]{32}(?:-[0-9])?" + _END),
    Rule("doppler-token", "gitleaks:doppler-api-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    Rule("fly-token", "gitleaks:flyio-access-token", r"fo1_[A-Za-z0-9_-]{43}"),
    Rule("planetscale-token", "gitleaks:planetscale-api-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    Rule("supabase-token", "vendor:Supabase access tokens", r"sbp_[a-f0-9]{40}"),
    Rule("tailscale-key", "vendor:Tailscale auth keys",
         r"tskey-(?:api|auth|client|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"),
    Rule("grafana-token", "gitleaks:grafana-service-account-token", r"gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}"),
    Rule("newrelic-key", "gitleaks:new-relic-user-api-key", r"NR(?:AK|II|JS)-[A-Za-z0-9]{20,}"),
    Rule("sentry-token", "gitleaks:sentry-org-token", r"sntr[ysu]_[A-Za-z0-9_=+/-]{40,}"),
    Rule("atlassian-api-token", "gitleaks:atlassian-api-token", r"ATATT3[A-Za-z0-9_=-]{40,}"),
    Rule("postman-api-key", "gitleaks:postman-api-token", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    # -- source hosting and package registries --------------------------------------------------
    Rule("github-fine-grained-token", "gitleaks:github-fine-grained-pat", r"github_pat_[A-Za-z0-9_]{60,}"),
    Rule("github-token", "gitleaks:github-pat, github-oauth, github-app-token, github-refresh-token",
         r"gh[pousr]_[A-Za-z0-9]{36,}"),
    Rule("gitlab-token", "gitleaks:gitlab-pat and its siblings",
         r"(?:glpat|glft|glcbt|glsoat|gldt|glrt|glptt|gloas|glimt|glagent)-[A-Za-z0-9_-]{20,}"),
    Rule("npm-token", "gitleaks:npm-access-token", r"npm_[A-Za-z0-9]{36}" + _END),
    Rule("pypi-token", "gitleaks:pypi-upload-token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    Rule("dockerhub-token", "gitleaks:dockerhub-pat (vendor: dckr_pat_)", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    Rule("huggingface-token", "gitleaks:huggingface-access-token", r"hf_[A-Za-z0-9]{30,}"),
    # -- AI providers ---------------------------------------------------------------------------
    Rule("anthropic-api-key", "gitleaks:anthropic-api-key, anthropic-admin-api-key",
         r"sk-ant-[A-Za-z0-9]{2,8}[0-9]{2}-[A-Za-z0-9_-]{20,}"),
    Rule("openrouter-api-key", "vendor:OpenRouter API keys", r"sk-or-v1-[a-f0-9]{64}"),
    Rule("openai-api-key", "gitleaks:openai-api-key",
         r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
         r"|sk-[A-Za-z0-9]{40,}", mixed=True),
    Rule("groq-api-key", "vendor:Groq API keys", r"gsk_[A-Za-z0-9]{48,}"),
    Rule("xai-api-key", "vendor:xAI API keys", r"xai-[A-Za-z0-9]{70,}"),
    Rule("perplexity-api-key", "gitleaks:perplexity-api-key", r"pplx-[A-Za-z0-9]{48}"),
    Rule("replicate-token", "vendor:Replicate API tokens", r"r8_[A-Za-z0-9]{37}"),
    # -- payments and commerce ------------------------------------------------------------------
    Rule("stripe-secret-key", "gitleaks:stripe-access-token (secret and restricted keys only)",
         r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,}"),
    Rule("stripe-webhook-secret", "vendor:Stripe webhook signing secrets", r"whsec_[A-Za-z0-9]{20,}"),
    Rule("shopify-token", "gitleaks:shopify-access-token, shopify-shared-secret, shopify-custom-access-token",
         r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    Rule("square-token", "gitleaks:square-access-token", r"(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,60}"),
    # -- messaging and mail ---------------------------------------------------------------------
    Rule("slack-token", "gitleaks:slack-bot-token, slack-user-token, slack-legacy-*",
         r"xox[bpaeors]-(?:[0-9]{1,2}-)?[0-9]{8,14}-[A-Za-z0-9-]{8,}"),
    Rule("slack-app-token", "gitleaks:slack-app-token", r"xapp-[0-9]-[A-Z0-9]{8,}-[0-9]{6,}-[A-Za-z0-9]{20,}"),
    Rule("slack-config-token", "gitleaks:slack-config-access-token",
         r"xoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9]{100,}"),
    Rule("slack-webhook-url", "gitleaks:slack-webhook-url",
         r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}", starts_word=False),
    Rule("discord-webhook-url", "vendor:Discord webhooks",
         r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{30,}", starts_word=False),
    Rule("discord-bot-token", "vendor:Discord bot tokens (base64 id . timestamp . HMAC)",
         r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}", mixed=True, back=r"[MNO][A-Za-z0-9_-]{23,27}"),
    Rule("telegram-bot-token", "gitleaks:telegram-bot-api-token", r":A[A-Za-z0-9_-]{34}" + _END,
         back=r"(?:bot)?[0-9]{5,16}"),
    Rule("twilio-api-key", "gitleaks:twilio-api-key", r"SK[0-9a-fA-F]{32}" + _END),
    Rule("sendgrid-api-key", "gitleaks:sendgrid-api-token", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    Rule("mailgun-api-key", "gitleaks:mailgun-private-api-token", r"key-[a-f0-9]{32}" + _END),
    Rule("mailchimp-api-key", "gitleaks:mailchimp-api-key", r"-us[0-9]{1,2}" + _END, back=r"[a-f0-9]{32}"),
    Rule("linear-api-key", "gitleaks:linear-api-key", r"lin_(?:api|oauth)_[A-Za-z0-9]{30,}"),
    Rule("notion-token", "vendor:Notion integration tokens", r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})"
         + _END, mixed=True),
    # -- connection strings and URLs ------------------------------------------------------------
    # `scheme://user:password@host`: the password is redacted, whatever it holds but `/` and
    # white space; a placeholder (`${DB_PASSWORD}`, `<password>`) is kept by `redact.py`.
    Rule("uri-password", "gitleaks:generic basic-auth URL; detect-secrets:BasicAuthDetector",
         r"://[^\s:@/?#\"'\\]*:([^\s/?#\"'\\]+)@[A-Za-z0-9\[]", starts_word=False,
         back=r"[A-Za-z][A-Za-z0-9+.-]{1,30}"),
    Rule("azure-storage-key", "gitleaks:azure-storage-account-key (vendor: connection strings)",
         r"(?i:AccountKey|SharedAccessKey|SharedSecret|PrimaryKey|SecondaryKey)\s*=\s*([A-Za-z0-9+/_-]{20,}={0,2})",
         starts_word=False),
    Rule("azure-sas-signature", "vendor:Azure shared access signatures",
         r"[?&;]sig=([A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})", starts_word=False),
    Rule("authorization-header", "detect-secrets:KeywordDetector (Authorization headers)",
         r"(?i:authorization|proxy-authorization|x-api-key|x-auth-token|api-key|private-token)"
         r"\\?[\"']?\s*[:=]\s*\\?[\"']?(?i:bearer|basic|token|bot|digest|apikey|sso-key)?\s*"
         r"([A-Za-z0-9._~+/=:-]{8,})", mixed=True),
    Rule("bearer-token", "detect-secrets:KeywordDetector (bearer)",
         r"(?i:bearer)\s+([A-Za-z0-9._~+/-]{16,}=*)", mixed=True),
    Rule("docker-config-auth", "vendor:Docker config.json auths (base64 of user:password)",
         r"\\?\"(?:auth|identitytoken)\\?\"\s*:\s*\\?\"([A-Za-z0-9+/]{12,}={0,2})", starts_word=False),
    Rule("curl-user-password", "detect-secrets:BasicAuthDetector (command lines)",
         r"(?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=)[\"']?[^\s:\"'$]{1,64}:([^\s\"']{3,})", starts_word=False),
    Rule("sshpass-password", "vendor:sshpass -p", r"sshpass\s+-p\s*(\"[^\"]+\"|'[^']+'|[^\s\"']+)"),
    Rule("mysql-password", "vendor:mysql -p<password>",
         r"mysql(?:dump|admin|sh|import)?\s[^\n|;&]*?\s-p(\"[^\"]+\"|'[^']+'|[^\s\"'-][^\s\"']*)"),
    Rule("netrc-password", "vendor:.netrc / _netrc",
         r"(?:^|\s)(?:login|user)\s+\S+\s+password\s+([^\s\"'\\]+)", starts_word=False),
)

# Provider names: a high-entropy value within a few words after one of them is a credential
# even without a prefix or a `KEY=value` form ("my twilio auth token is 0f3c…").
PROVIDERS: tuple[str, ...] = (
    "aws", "amazon", "azure", "gcp", "twilio", "datadog", "heroku", "mailgun", "vault", "discord", "slack",
    "stripe", "sendgrid", "cloudflare", "shopify", "digitalocean", "netlify", "vercel", "sentry", "algolia",
    "okta", "auth0", "firebase", "supabase", "pagerduty", "newrelic", "openai", "anthropic", "github", "gitlab",
    "bitbucket", "npm", "pypi", "docker", "telegram", "pusher", "mapbox", "rollbar", "circleci", "travis",
)

"""The credential formats Moraine redacts, each with the source it was learned from.

Patterns are RE2 syntax (linear time on any input). Each is written as a *shape*: the vendor's
prefix, alphabet and length, so that code which merely resembles a credential (`sk-learn-…`,
`xoxo-…`, `pypi-publish-…`, a Stripe *publishable* `pk_live_` key) is left alone. Where the
pattern has a capture group, only that group is redacted (the password of a URI, the value of
`AccountKey=`); otherwise the whole match is.

Every rule names its origin in `Rule.source` (the table below is that list): "gitleaks" a rule
id of gitleaks' default config (`config/gitleaks.toml`), "trufflehog" a detector of trufflehog
(`pkg/detectors/<name>`), "secretlint" a rule package of secretlint
(`secretlint-rule-<name>`), "detect-secrets" a plugin of Yelp's detect-secrets, "RFC" the
standard that defines the format, "vendor" the vendor's or tool's own documentation. The
patterns are Moraine's own, written from those descriptions (prefix, alphabet, length), not
copied. The rules that need context live beside this table: secret-named keys
(`secret_keys.py`: detect-secrets' KeywordDetector denylist, gitleaks' generic-api-key
keywords), words around a value, partner ids and cookies (`secret_context.py`: GitHub secret
scanning's pair matching, detect-secrets' AWSKeyDetector), encoded forms (`secret_decode.py`).
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
    # A word the text must hold somewhere for the match to count (`kty` for a JWK's members: a
    # `"d": "…"` of any other JSON is an SVG path or a date, not a private exponent).
    needs: str = ""


# A token ends where its alphabet ends; for fixed-length shapes a longer run is another word.
END = r"(?:[^A-Za-z0-9_-]|$)"  # consumes one character: `redact.py` gives it back
_END = END
_B64 = r"[A-Za-z0-9+/]"
_WRAP = r"(?:\r?\n|(?:\\r)?\\n)"  # a line break, as text or as a JSON escape
# A command-line argument: an optional opening quote, then the value (never a flag or a JSON escape).
_ARG = r"[\"']?([^\s\"'\\|;&<>`-][^\s\"'\\]*)"
_JWT_WRAP = rf"(?:{_WRAP}[ \t]*)"
_JWT_CHAR = rf"(?:[A-Za-z0-9_-]|{_JWT_WRAP})"

TOKEN_RULES: tuple[Rule, ...] = (
    # -- private keys and signed tokens --------------------------------------------------------
    # A whole block; a block cut short (`head id_rsa`) up to the end of its base64 lines.
    Rule("pem-private-key", "gitleaks:private-key",
         r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=:,.()@ \t\r\n-]|\\+[nrt]){16,}?"
         r"-----END[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
         r"|-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\r\n]|\\+[nr])*[A-Za-z0-9+/=]{16}"
         r"(?:[A-Za-z0-9+/=\r\n]|\\+[nr])*"),  # cut short, not elided (`\n...\n` in a document)
    # `ey[IJA]`: a JSON object's base64 (`{"`, `{ "` written with a space); a line break with its
    # indentation may cut any part (a token wrapped at a terminal's width; `redact.py` trims it).
    Rule("jwt", "gitleaks:jwt, jwt-base64; trufflehog:jwt",
         rf"ey[IJA]{_JWT_CHAR}{{8,}}\.{_JWT_WRAP}?e{_JWT_WRAP}?y{_JWT_WRAP}?[IJA]{_JWT_CHAR}{{8,}}\.{_JWT_CHAR}{{8,}}"),
    Rule("age-secret-key", "gitleaks:age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    # -- cloud providers -----------------------------------------------------------------------
    Rule("aws-access-token", "gitleaks:aws-access-token",
         r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}" + _END),
    Rule("google-api-key", "gitleaks:gcp-api-key", r"AIza[0-9A-Za-z_-]{35}"),
    Rule("google-oauth-token", "vendor:Google OAuth 2.0 access tokens", r"ya29\.[0-9A-Za-z_-]{20,}"),
    Rule("google-refresh-token", "trufflehog:googleoauth2 (refresh tokens 1//0…)", r"1//0[0-9A-Za-z_-]{30,}"),
    Rule("azure-ad-client-secret", "gitleaks:azure-ad-client-secret",
         r"[0-9]Q~[A-Za-z0-9_~.-]{31,34}", mixed=True, back=r"[A-Za-z0-9_~.]{3}"),
    Rule("digitalocean-token", "gitleaks:digitalocean-pat", r"do[opr]_v1_[a-f0-9]{64}"),
    Rule("heroku-api-key", "gitleaks:heroku-api-key-v2", r"HRKU-AA[0-9A-Za-z_-]{58}"),
    Rule("vault-token", "gitleaks:vault-service-token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    Rule("databricks-token", "gitleaks:databricks-api-token", r"dapi[a-f0-9]{32}(?:-[0-9])?" + _END),
    Rule("doppler-token", "gitleaks:doppler-api-token",
         r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,}"),
    Rule("fly-token", "gitleaks:flyio-access-token", r"fo1_[A-Za-z0-9_-]{43}"),
    Rule("planetscale-token", "gitleaks:planetscale-api-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    Rule("supabase-token", "vendor:Supabase access tokens", r"sbp_[a-f0-9]{40}"),
    Rule("tailscale-key", "vendor:Tailscale auth keys",
         r"tskey-(?:api|auth|client|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"),
    Rule("grafana-token", "gitleaks:grafana-service-account-token", r"gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}"),
    Rule("newrelic-key", "gitleaks:new-relic-user-api-key", r"NR(?:AK|II|JS)-[A-Za-z0-9]{20,}"),
    Rule("sentry-token", "gitleaks:sentry-org-token, sentry-user-token", r"sntry[su]_[A-Za-z0-9_=+/-]{40,}"),
    Rule("atlassian-api-token", "gitleaks:atlassian-api-token", r"ATATT3[A-Za-z0-9_=-]{40,}"),
    Rule("postman-api-key", "gitleaks:postman-api-token", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    # -- source hosting and package registries --------------------------------------------------
    Rule("github-fine-grained-token", "gitleaks:github-fine-grained-pat", r"github_pat_[A-Za-z0-9_]{60,}"),
    Rule("github-token", "gitleaks:github-pat, github-oauth, github-app-token, github-refresh-token",
         r"gh[pousr]_[A-Za-z0-9]{36,}"),
    Rule("gitlab-token", "gitleaks:gitlab-pat and its siblings",
         r"(?:glpat|glft|glcbt|glsoat|gldt|glrt|glptt|gloas|glimt|glagent|glffct)-[A-Za-z0-9_-]{20,}"
         r"(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?|GR1348941[A-Za-z0-9_-]{20}"),
    Rule("npm-token", "gitleaks:npm-access-token", r"npm_[A-Za-z0-9]{36}" + _END),
    Rule("pypi-token", "gitleaks:pypi-upload-token (pypi.org and test.pypi.org macaroons)",
         r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}"),
    Rule("dockerhub-token", "gitleaks:dockerhub-pat (vendor: dckr_pat_)", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    Rule("huggingface-token", "gitleaks:huggingface-access-token", r"hf_[A-Za-z0-9]{30,}"),
    # -- AI providers ---------------------------------------------------------------------------
    Rule("anthropic-api-key", "gitleaks:anthropic-api-key, anthropic-admin-api-key",
         r"sk-ant-[A-Za-z0-9]{2,8}[0-9]{2}-[A-Za-z0-9_-]{20,}"),
    Rule("openrouter-api-key", "vendor:OpenRouter API keys", r"sk-or-v1-[a-f0-9]{64}"),
    Rule("openai-api-key", "gitleaks:openai-api-key",
         r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
         r"|sk-[A-Za-z0-9]{32,}", mixed=True),
    Rule("groq-api-key", "vendor:Groq API keys", r"gsk_[A-Za-z0-9]{48,}"),
    Rule("xai-api-key", "vendor:xAI API keys", r"xai-[A-Za-z0-9]{70,}"),
    Rule("perplexity-api-key", "gitleaks:perplexity-api-key", r"pplx-[A-Za-z0-9]{48}"),
    Rule("replicate-token", "vendor:Replicate API tokens", r"r8_[A-Za-z0-9]{37}"),
    Rule("tavily-api-key", "vendor:Tavily API keys", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}" + _END),
    Rule("cerebras-api-key", "vendor:Cerebras API keys", r"csk-[a-z0-9]{40,56}" + _END, mixed=True),
    Rule("jina-api-key", "vendor:Jina AI API keys", r"jina_[A-Za-z0-9]{40,80}" + _END, mixed=True),
    Rule("e2b-api-key", "vendor:E2B API keys", r"e2b_[a-f0-9]{40}" + _END),
    Rule("together-api-key", "vendor:Together AI API keys", r"tgp_v1_[A-Za-z0-9_-]{40,48}"),
    Rule("voyage-api-key", "vendor:Voyage AI API keys", r"pa-[A-Za-z0-9_-]{40,48}" + _END, mixed=True),
    Rule("browserbase-api-key", "vendor:Browserbase API keys", r"bb_live_[A-Za-z0-9_-]{20,40}"),
    # -- payments and commerce ------------------------------------------------------------------
    Rule("stripe-secret-key", "gitleaks:stripe-access-token (secret and restricted keys only)",
         r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,}"),
    Rule("stripe-webhook-secret", "vendor:Stripe webhook signing secrets", r"whsec_[A-Za-z0-9]{20,}"),
    Rule("shopify-token", "gitleaks:shopify-access-token, shopify-shared-secret, shopify-custom-access-token",
         r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    Rule("square-token", "gitleaks:square-access-token; trufflehog:squareapp",
         r"(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,}|sq0c[a-z]{2}-[A-Za-z0-9_-]{40,50}"),
    # -- messaging and mail ---------------------------------------------------------------------
    Rule("slack-token", "gitleaks:slack-bot-token, slack-user-token, slack-legacy-*",
         r"xox[bpaeorsc]-(?:[0-9]{1,2}-)?[0-9]{8,14}-[A-Za-z0-9-]{8,}"),
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
    Rule("mailgun-sending-key", "trufflehog:mailgun (<32 hex>-<8 hex>-<8 hex>)", r"-[a-f0-9]{8}-[a-f0-9]{8}" + _END,
         back=r"(?<![A-Za-z0-9])[a-f0-9]{32}"),
    Rule("mailersend-token", "trufflehog:mailersend", r"mlsn\.[a-f0-9]{64}" + _END),
    Rule("crates-io-token", "gitleaks:crates-io-api-key (vendor: cio + 32)", r"cio[A-Za-z0-9]{32}" + _END, mixed=True),
    Rule("resend-api-key", "trufflehog:resend (re_ + 8 + _ + 24)", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}" + _END),
    Rule("firebase-fcm-server-key", "gitleaks:gcp/firebase cloud messaging server key (AAAA…:APA91b…)",
         r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{30,}"),
    Rule("newrelic-license-key", "trufflehog:newrelic (license keys end NRAL)", r"NRAL" + _END,
         back=r"(?<![A-Za-z0-9])[a-f0-9]{36}"),
    Rule("elevenlabs-api-key", "trufflehog:elevenlabs (v2: sk_ and 48 hex)", r"sk_[a-f0-9]{48}" + _END),
    Rule("asana-token", "trufflehog:asanapersonalaccesstoken", r"[0-9]/[0-9]{10,20}/[0-9]{10,20}:[a-f0-9]{32}" + _END),
    Rule("langfuse-secret-key", "trufflehog:langfuse (sk-lf-<uuid>)",
         r"sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    Rule("launchdarkly-key", "trufflehog:launchdarkly (api-/sdk- and a UUID)",
         r"(?:api|sdk)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    Rule("gocardless-token", "gitleaks:gocardless-api-token", r"(?:live|sandbox)_[A-Za-z0-9_=-]{40}" + _END,
         mixed=True),
    Rule("yandex-token", "vendor:Yandex OAuth tokens (y0_AgAAAA…)", r"y[0-3]_AgA[A-Za-z0-9_-]{30,}"),
    Rule("tines-webhook-url", "trufflehog:tineswebhook", r"https://[A-Za-z0-9-]+\.tines\.com/webhook/[A-Za-z0-9]{16,}(?:/[A-Za-z0-9]{16,})?",
         starts_word=False),
    Rule("heroku-cli-token", "vendor:heroku auth:token prints the key on the next line",
         r"heroku\s+auth:token\s*(?:\r?\n|\\n)\s*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"),
    Rule("mailchimp-api-key", "gitleaks:mailchimp-api-key", r"-us[0-9]{1,2}" + _END, back=r"[a-f0-9]{32}"),
    Rule("linear-api-key", "gitleaks:linear-api-key", r"lin_(?:api|oauth)_[A-Za-z0-9]{30,}"),
    Rule("notion-token", "vendor:Notion integration tokens", r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})"
         + _END, mixed=True),
    # -- more vendors: prefixes read in gitleaks' config, trufflehog's detectors and secretlint's
    # rules (sources per rule); alphabets and lengths as the vendors document them ---------------
    Rule("deepseek-api-key", "trufflehog:deepseek; vendor:DeepSeek, Alibaba DashScope, Moonshot keys (sk- + 32 hex)",
         r"sk-[a-f0-9]{32}" + _END, mixed=True),
    Rule("openai-session-key", "vendor:OpenAI session keys (sess-)", r"sess-[A-Za-z0-9]{40}" + _END, mixed=True),
    Rule("nvidia-api-key", "trufflehog:nvapi", r"nvapi-[A-Za-z0-9_-]{64}"),
    Rule("pinecone-api-key", "trufflehog:pinecone", r"pcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{60,}"),
    Rule("langsmith-api-key", "trufflehog:langsmith", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    Rule("huggingface-org-token", "gitleaks:huggingface-organization-api-token", r"api_org_[A-Za-z0-9]{34}" + _END),
    Rule("alibaba-access-key-id", "gitleaks:alibaba-access-key-id", r"LTAI[A-Za-z0-9]{17,21}" + _END, mixed=True),
    Rule("tencent-secret-id", "trufflehog:tencent (AKID)", r"AKID[A-Za-z0-9]{32}" + _END, mixed=True),
    Rule("aws-bedrock-api-key", "gitleaks:aws-amazon-bedrock-api-key-long-lived, -short-lived",
         r"ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]*"),
    Rule("google-oauth-client-secret", "gitleaks:gcp-client-secret (GOCSPX-)", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    Rule("okta-api-token", "gitleaks:okta-access-token; vendor:Okta's SSWS authorization scheme",
         r"SSWS\s+([A-Za-z0-9_-]{20,})", mixed=True),
    Rule("terraform-cloud-token", "gitleaks:hashicorp-tf-api-token", r"\.atlasv1\.[A-Za-z0-9_=-]{60,}",
         back=r"[A-Za-z0-9]{14}"),
    Rule("typeform-token", "gitleaks:typeform-api-token; trufflehog:typeform", r"tfp_[A-Za-z0-9_.=-]{40,59}"),
    Rule("pulumi-token", "gitleaks:pulumi-api-token", r"pul-[a-f0-9]{40}" + _END),
    Rule("dynatrace-token", "gitleaks:dynatrace-api-token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    Rule("cloudflare-token", "secretlint:cloudflare; trufflehog:cloudflareapitoken, cloudflareglobalapikey",
         r"cf(?:k|ut|at)_[A-Za-z0-9]{48}" + _END),
    Rule("cloudflare-origin-ca-key", "gitleaks:cloudflare-origin-ca-key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    Rule("vercel-token", "secretlint:vercel", r"vc[pirak]_[A-Za-z0-9]{20,60}" + _END, mixed=True),
    Rule("netlify-token", "vendor:Netlify personal access tokens (nfp_)", r"nfp_[A-Za-z0-9]{36,}", mixed=True),
    Rule("render-api-key", "vendor:Render API keys (rnd_)", r"rnd_[A-Za-z0-9]{32}" + _END, mixed=True),
    Rule("fly-macaroon", "gitleaks:flyio-access-token (fm1/fm2 macaroons)", r"fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}"),
    Rule("sourcegraph-token", "gitleaks:sourcegraph-access-token; trufflehog:sourcegraphcody",
         r"sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}|slk_[a-f0-9]{64}"),
    Rule("sonar-token", "gitleaks:sonar-api-token; trufflehog:sonarcloud",
         r"sq[pau]_[a-f0-9]{40}|sqco_[A-Za-z0-9]{59}"),
    Rule("buildkite-token", "trufflehog:buildkite", r"bkua_[a-z0-9]{40}"),
    Rule("circleci-token", "trufflehog:circleci (CCIPAT_)", r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    Rule("clojars-token", "gitleaks:clojars-api-token", r"CLOJARS_[a-z0-9]{60}"),
    Rule("rubygems-token", "gitleaks:rubygems-api-token", r"rubygems_[a-f0-9]{48}" + _END),
    Rule("nuget-api-key", "vendor:NuGet API keys (oy2 + 43)", r"oy2[a-z0-9]{43}" + _END, mixed=True),
    Rule("jfrog-token", "gitleaks:artifactory-api-key, artifactory-reference-token",
         r"AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9+/]{56,}={0,2}"),
    Rule("bitbucket-token", "trufflehog:bitbucketdatacenter (BBDC-); vendor:Bitbucket app passwords (ATBB)",
         r"BBDC-[A-Za-z0-9+/@_-]{40,50}|ATBB[A-Za-z0-9_=.-]{28,}|ATCTT3xFfG[A-Za-z0-9+/=_-]{20,}"),
    Rule("onepassword-token", "gitleaks:1password-service-account-token, 1password-secret-key",
         r"ops_eyJ[A-Za-z0-9+/=]{100,}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
         r"-[A-Z0-9]{5}"),
    Rule("prefect-api-key", "gitleaks:prefect-api-token", r"pnu_[A-Za-z0-9]{36}" + _END),
    Rule("readme-api-key", "gitleaks:readme-api-token", r"rdme_[a-z0-9]{70}" + _END),
    Rule("duffel-token", "gitleaks:duffel-api-token", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
    Rule("shippo-token", "gitleaks:shippo-api-token", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    Rule("easypost-token", "gitleaks:easypost-api-token, easypost-test-api-token", r"EZ[AT]K[A-Za-z0-9]{54}"),
    Rule("flutterwave-key", "gitleaks:flutterwave-secret-key, -encryption-key",
         r"FLWSECK(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?"),
    Rule("frameio-token", "gitleaks:frameio-api-token", r"fio-u-[A-Za-z0-9_=-]{64}"),
    Rule("infracost-token", "gitleaks:infracost-api-token", r"ico-[A-Za-z0-9]{32}" + _END, mixed=True),
    Rule("intra42-secret", "gitleaks:intra42-client-secret", r"s-s4t2(?:ud|af)-[a-f0-9]{64}"),
    Rule("maxmind-license-key", "gitleaks:maxmind-license-key", r"_mmk" + _END, back=r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}"),
    Rule("scalingo-token", "gitleaks:scalingo-api-token", r"tk-us-[A-Za-z0-9_-]{48}"),
    Rule("settlemint-token", "gitleaks:settlemint-*-access-token", r"sm_[aps]at_[A-Za-z0-9]{16}" + _END),
    Rule("brevo-api-key", "gitleaks:sendinblue-api-token; trufflehog:sendinbluev2",
         r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    Rule("slack-session-token", "vendor:Slack client tokens (xoxc-) and the d cookie (xoxd-)",
         r"xox[cd]-[A-Za-z0-9%+/=._-]{20,}", mixed=True),
    Rule("facebook-access-token", "gitleaks:facebook-page-access-token (EAA…)", r"EAA[A-Za-z0-9]{60,}", mixed=True),
    Rule("mapbox-secret-token", "trufflehog:mapbox (sk. and tk. tokens; pk. is public)",
         r"[st]k\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),
    Rule("plaid-access-token", "gitleaks:plaid-api-token",
         r"access-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"),
    Rule("zoho-token", "trufflehog:zohocrm", r"1000\.[a-f0-9]{32}\.[a-f0-9]{32}"),
    Rule("hubspot-token", "trufflehog:hubspot_apikey v2 (pat-na1-, pat-eu1-)",
         r"pat-(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"),
    Rule("airtable-token", "gitleaks:airtable-personnal-access-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    Rule("figma-token", "secretlint:figma; trufflehog:figmapersonalaccesstoken", r"fig[dp]_[A-Za-z0-9_=-]{40,}"),
    Rule("contentful-token", "trufflehog:contentfulpersonalaccesstoken", r"CFPAT-[A-Za-z0-9_-]{43}"),
    Rule("posthog-personal-key", "trufflehog:posthog (phx_)", r"phx_[A-Za-z0-9_]{43,48}"),
    Rule("grafana-api-key", "gitleaks:grafana-api-key (legacy eyJrIjoi)", r"eyJrIjoi[A-Za-z0-9]{70,}={0,3}"),
    Rule("adafruit-io-key", "trufflehog:adafruitio", r"aio_[A-Za-z0-9]{28}" + _END, mixed=True),
    Rule("apify-token", "trufflehog:apify", r"apify_api_[A-Za-z0-9]{36}"),
    Rule("deno-deploy-token", "trufflehog:deno (ddp_, ddw_)", r"dd[pw]_[A-Za-z0-9]{36}" + _END, mixed=True),
    Rule("ubidots-token", "trufflehog:ubidots", r"BBFF-[A-Za-z0-9]{30}"),
    Rule("voiceflow-key", "trufflehog:voiceflow", r"VF\.(?:(?:DM|WS)\.)?[a-f0-9]{24}\.[A-Za-z0-9]{16}"),
    Rule("nightfall-key", "trufflehog:nightfall", r"NF-[A-Za-z0-9]{32}" + _END, mixed=True),
    Rule("harness-token", "gitleaks:harness-api-key",
         r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    Rule("octopus-deploy-key", "gitleaks:octopus-deploy-api-key", r"API-[A-Z0-9]{26}" + _END, mixed=True),
    Rule("openshift-token", "gitleaks:openshift-user-token", r"sha256~[A-Za-z0-9_-]{43}"),
    Rule("salesforce-session-token", "trufflehog:salesforce (00D…!…)", r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.-]{80,}"),
    Rule("ramp-token", "trufflehog:ramp", r"ramp_(?:id|sec)_[A-Za-z0-9]{40,48}"),
    Rule("rootly-token", "trufflehog:rootly", r"rootly_[a-f0-9]{64}"),
    Rule("stripe-client-secret", "trufflehog:stripepaymentintent (the _secret_ part; the intent id is kept)",
         r"_secret_[A-Za-z0-9]{20,}", back=r"(?:pi|seti)_[A-Za-z0-9]{24}"),
    Rule("teams-webhook-url", "gitleaks:microsoft-teams-webhook", r"\.webhook\.office\.com/webhookb2/[^\s\"'\\]{40,}",
         starts_word=False),
    Rule("supabase-secret-key", "vendor:Supabase API keys (sb_secret_; sb_publishable_ is public)",
         r"sb_secret_[A-Za-z0-9_-]{20,64}"),
    Rule("paddle-api-key", "vendor:Paddle Billing API keys", r"pdl_(?:live|sdbx)_apikey_[A-Za-z0-9_]{30,80}"),
    Rule("chromatic-project-token", "vendor:Chromatic project tokens", r"chpt_[a-f0-9]{14,40}" + _END),
    Rule("dropbox-short-lived-token", "vendor:Dropbox short-lived access tokens (sl., sl.u.)",
         r"sl\.(?:u\.)?[A-Za-z0-9_-]{100,}", mixed=True),
    Rule("honeycomb-api-key", "vendor:Honeycomb ingest and management keys",
         r"hc(?:aik|amk|xik|xmk|xlk)_[A-Za-z0-9]{20,64}"),
    Rule("mollie-api-key", "vendor:Mollie live API keys and access tokens (a test_ key reads as a test's name)",
         r"live_[A-Za-z0-9]{30}" + _END + r"|access_[A-Za-z0-9]{40}" + _END, mixed=True),
    Rule("adyen-api-key", "vendor:Adyen API credentials (AQE…)", r"AQE[A-Za-z0-9]{2}[A-Za-z0-9+/=_.-]{60,}",
         mixed=True),
    Rule("ably-api-key", "vendor:Ably API keys (app id . key id : secret)",
         r"[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{6}:[A-Za-z0-9_=+/-]{40,48}" + _END, mixed=True),
    Rule("yandex-cloud-key", "vendor:Yandex Cloud API keys (AQVN…) and IAM tokens (t1.…)",
         r"AQVN[A-Za-z0-9_-]{35,38}" + _END + r"|t1\.[A-Za-z0-9_-]{80,}={0,2}(?:\.[A-Za-z0-9_-]{80,}={0,2})?",
         mixed=True),
    Rule("databricks-oauth-secret", "vendor:Databricks OAuth secrets", r"dose[a-f0-9]{32}" + _END),
    Rule("gitlab-session-cookie", "gitleaks:gitlab-session-cookie", r"_gitlab_session=([0-9a-z]{32})",
         starts_word=False),
    # -- connection strings and URLs ------------------------------------------------------------
    # `scheme://user:password@host`: the password is redacted, whatever it holds but white
    # space, up to the *last* `@` before the host (people write `#`, `?`, `$`, `/` and `@` in a
    # password without percent-encoding it; a user name may be an e-mail address); a port and
    # a path (`host:8080/users/@me`) and a placeholder (`${DB_PASSWORD}`, `<password>`) are
    # kept by `redact.py`.
    Rule("uri-password", "gitleaks:generic basic-auth URL; detect-secrets:BasicAuthDetector; trufflehog:uri",
         r"://[^\s:/?#\"'\\]*:([^\s\"'\\]+)@[A-Za-z0-9\[]", starts_word=False,
         back=r"[A-Za-z][A-Za-z0-9+.-]{1,30}"),
    Rule("azure-storage-key", "gitleaks:azure-storage-account-key (vendor: connection strings)",
         r"(?i:AccountKey|SharedAccessKey|SharedSecret|PrimaryKey|SecondaryKey)\s*=\s*([A-Za-z0-9+/_-]{20,}={0,2})",
         starts_word=False),
    Rule("azure-sas-signature", "vendor:Azure shared access signatures",
         r"[?&;]sig=([A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})", starts_word=False),
    Rule("authorization-header", "detect-secrets:KeywordDetector (Authorization headers)",
         r"(?i:authorization|proxy-authorization|x-api-key|x-auth-token|api-key|private-token|x-honeycomb-team"
         r"|x-[a-z0-9-]*(?:api-?key|token|secret))"
         r"\\?[\"']?\s*[:=]\s*\\?[\"']?(?i:bearer|basic|token|bot|digest|apikey|sso-key|splunk|ssws|key)?\s*"
         r"([A-Za-z0-9._~+/=:-]{8,})", mixed=True),
    Rule("basic-auth", "RFC 7617 (a Basic credential outside an Authorization header; it must decode to a pair)",
         r"(?i:basic)\s+([A-Za-z0-9+/]{12,}={0,2})"),
    Rule("kubeconfig-client-key", "vendor:kubeconfig users[].user.client-key-data (base64 of a PEM key)",
         r"(?:client-key-data|private-key-data)\\?[\"']?\s*:\s*\\?[\"']?([A-Za-z0-9+/]{20,}={0,2})"),
    Rule("bearer-token", "detect-secrets:KeywordDetector (bearer)",
         r"(?i:bearer)\s+([A-Za-z0-9._~+/-]{16,}=*)", mixed=True),
    Rule("docker-config-auth", "vendor:Docker config.json auths (base64 of user:password)",
         r"\\?\"(?:auth|identitytoken)\\?\"\s*:\s*\\?\"([A-Za-z0-9+/]{12,}={0,2})", starts_word=False),
    Rule("curl-user-password", "detect-secrets:BasicAuthDetector (command lines)",
         r"(?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=)[\"']?[^\s:\"'$]{1,64}:([^\s\"']{3,})", starts_word=False),
    Rule("sshpass-password", "vendor:sshpass -p", r"sshpass[ \t]+-p[ \t]*(\"[^\"]+\"|'[^']+'|[^\s\"']+)"),
    Rule("mysql-password", "vendor:mysql -p<password>",
         r"mysql(?:dump|admin|sh|import)?\s[^\n|;&]*?\s-p(\"[^\"]+\"|'[^']+'|[^\s\"'-][^\s\"']*)"),
    Rule("netrc-password", "vendor:.netrc / _netrc",
         r"(?:^|\s)(?:login|user)\s+\S+\s+password\s+([^\s\"'\\]+)", starts_word=False),
    # -- passwords on command lines: each tool's own flag (a generic `-p` is a port as often) ------
    Rule("cli-login-password", "vendor:docker/podman/helm/oras/az login -p; gitleaks:generic-api-key (CLI)",
         r"(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm(?:\s+registry)?)\s+login|az\s+login)"
         r"\b[^\n|;&]*?[ \t](?:-p|--password)(?:[ \t]+|=)" + _ARG),
    Rule("mongo-cli-password", "vendor:mongosh/mongodump -p, --password",
         r"mongo(?:sh|dump|restore|export|import|stat|top|files)?(?:\s[^\n|;&]*?)?[ \t](?:-p|--password)"
         r"(?:[ \t]+|=)" + _ARG),
    Rule("redis-cli-password", "vendor:redis-cli -a, --pass",
         r"redis-cli(?:\s[^\n|;&]*?)?[ \t](?:-a|--pass)(?:[ \t]+|=)" + _ARG),
    Rule("htpasswd-password", "vendor:htpasswd -b (the password is the last argument)",
         r"htpasswd\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*(?:[^\s-]\S*\s+)?[^\s-]\S*\s+" + _ARG),
    Rule("openssl-pass-argument", "vendor:openssl passphrase arguments (-passin/-passout pass:…)",
         r"-pass(?:in|out|word)?\s+[\"']?pass:([^\s\"'\\]+)", starts_word=False),
    Rule("stdin-password", "vendor:sudo -S, --password-stdin, chpasswd (echo … | …)",
         r"(?:echo|printf)\s+(?:-[neE]+\s+)?(?:[\"']%s\\n[\"']\s+)?" + _ARG
         + r"[\"']?\s*\|\s*(?:sudo\s[^\n|;&]*?-[A-Za-z]*S\b|[^\n|;&]*?"
         r"(?:--password-stdin|--with-token|\slogin\b)|(?:sudo\s+)?(?:chpasswd|passwd\b))"),
    Rule("here-string-password", "vendor:sudo -S, --password-stdin, --with-token with a here-string",
         r"(?:-[A-Za-z]*S|--password-stdin|--with-token)\s*<<<\s*" + _ARG, starts_word=False),
    Rule("vault-login-token", "vendor:HashiCorp Vault (vault login <token>)",
         r"vault[ \t]+login[ \t]+(?:-[a-z-]+(?:=[^\s]+)?[ \t]+)*" + _ARG, mixed=True),
    Rule("xml-config-secret", "gitleaks:nuget-config-password (and appSettings keys named for a secret)",
         r"<add[ \t]+key=\\?\"[A-Za-z0-9_.:-]*(?:[Pp]assword|[Ss]ecret|[Tt]oken|[Aa]pi[Kk]ey|ClientKey)\\?\"[ \t]+"
         r"value=\\?\"([^\"\\]{4,})"),
    Rule("net-user-password", "vendor:Windows net user / net use",
         r"net\s+user\s+(?:\"[^\"\n]+\"|[^\s\"/]+)\s+([^\s\"'\\/*][^\s\"'\\]*)"
         r"|net\s+use\s+(?:\S+\s+){1,2}?([^\s\"'\\/*][^\s\"'\\]*)\s+/user:"
         r"|net\s+use\s+[^\n|;&]*?/user:\S+\s+([^\s\"'\\/*][^\s\"'\\]*)"),
    Rule("cli-flag-password", "vendor:mosquitto_pub/sub -P, httpie -a user:pass, openssl enc -k, "
         "requirepass/masterauth of redis.conf",
         r"mosquitto[_ ](?:pub|sub|rr)(?:\s[^\n|;&]*?)?[ \t]-P[ \t]+" + _ARG
         + r"|(?:^|[\s;&|(])https?(?:\s[^\n|;&]*?)?[ \t](?:-a|--auth)[ \t=]+[\"']?[^\s:\"']{1,64}:([^\s\"']{3,})"
         + r"|openssl\s+(?:enc|aes-[0-9]+-[a-z]+|des3?|bf)\b[^\n|;&]*?[ \t]-k[ \t]+" + _ARG
         + r"|(?:^|\n|\\n|:[0-9]+:)[ \t]*(?:requirepass|masterauth)[ \t]+" + _ARG, starts_word=False),
    Rule("cli-auth-token", "vendor:snyk auth, ngrok authtoken, heroku/vercel/netlify/railway login --token",
         r"(?:snyk\s+auth|ngrok\s+(?:config\s+add-authtoken|authtoken)|(?:vercel|netlify|railway|fly|flyctl|doppler"
         r"|heroku|gh|glab|npm|pnpm|yarn)\s+(?:auth\s+)?login\s+--(?:token|with-token))[ \t=]+" + _ARG),
    Rule("sql-password", "vendor:SQL CREATE/ALTER USER … IDENTIFIED BY, WITH PASSWORD, PASSWORD =",
         r"(?i:(?:user|role|login)\s+[^\s;]+\s+identified\s+(?:with\s+[A-Za-z0-9_]+\s+)?by(?:\s+password)?)\s+\\?[\"'`]?([^\s\"'`;\\]{4,})"
         + r"|(?i:with\s+(?:encrypted\s+)?password|\bpassword\s*=)\s*\\?[\"']([^\"'\n\\]{4,})"),
    Rule("env-fallback-secret", "vendor:a literal a secret-named environment variable falls back to",
         r"(?:process\.env\.|os\.getenv\(\s*|os\.environ\.get\(\s*|ENV\.fetch\(\s*|getenv\(\s*)\\?[\"']?"
         r"[A-Za-z0-9_]*(?i:secret|token|password|passwd|pass|apikey|api_key|key|pwd)[A-Za-z0-9_]*\\?[\"']?\s*"
         r"(?:\|\||\?\?|,|\bor\b)\s*\\?[\"']([^\"'\n\\]{6,})"),
    Rule("call-token", "vendor:a client given a token or password by a call (reqwest bearer_auth, "
         "withToken, setPassword, …)",
         r"(?:bearer_auth|basic_auth|with_?[Tt]oken|set_?[Tt]oken|set_?[Pp]assword|set_?[Aa]pi_?[Kk]ey|with_?[Aa]pi_?[Kk]ey"
         r"|[Aa]uth[Tt]oken|api_?[Kk]ey)\s*\(\s*\\?[\"']([^\"'\n\\]{8,})\\?[\"']\s*\)", mixed=True, starts_word=False),
    Rule("form-password", "vendor:Playwright/Puppeteer/Selenium filling a password field",
         r"(?:fill|type|sendKeys|send_keys|setValue|set_value)\s*\(\s*\\?[\"'][^\"'\n]*(?i:pass|pwd)[^\"'\n]*\\?[\"']\s*,"
         r"\s*\\?[\"']([^\"'\n\\]{4,})"),
    Rule("cli-positional-password", "vendor:mysqladmin password, rabbitmqctl add_user/change_password, "
         "ConvertTo-SecureString -AsPlainText, lftp -u user,pass, sqlplus user/pass@db",
         r"mysqladmin(?:\s[^\n|;&]*?)?[ \t]password[ \t]+" + _ARG
         + r"|rabbitmqctl\s+(?:add_user|change_password|authenticate_user)\s+[\"']?[^\s\"']+[\"']?\s+" + _ARG
         + r"|ConvertTo-SecureString\s+(?:-String\s+)?[\"']([^\"'\n]{4,})[\"']\s+-AsPlainText"
         + r"|lftp\s[^\n|;&]*?-u\s+[\"']?[^\s,\"']+,([^\s\"'\\]+)"
         + r"|sqlplus\s+(?:-[A-Za-z]+\s+)*[\"']?[A-Za-z0-9_$#]+/([^\s@/\"'\\]+)@"),
    Rule("cli-config-secret", "vendor:npm/yarn/pnpm/aws/git config set, gh secret set --body, setx, fish's "
         "set -x/-gx/-Ux",
         r"(?i:config(?:ure)?\s+set|setx|(?-i:set(?:\s+-[gUlx]{1,3}|\s+--(?:export|global|universal))+))\s+(?:--[a-z-]+\s+)*[\"']?[^\s=\"']*(?i:token|secret|password|passwd|pass|apikey"
         r"|api_key|access_key|auth)[^\s=\"']*[\"']?[ \t]+" + _ARG
         + r"|(?i:secrets?\s+set)\s+\S+\s+(?:-b|--body)[ \t]+" + _ARG),
    Rule("call-credentials", "vendor:requests auth=(user, password), HTTPBasicAuth, NetworkCredential, smtplib login",
         r"(?:\bauth\s*=\s*\(|(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|NetworkCredential|PasswordAuthentication"
         r"|UsernamePasswordCredentials|setBasicAuth|withBasicAuth|basicAuth|\.login)\s*\()\s*\\?[\"'][^\"'\n\\]{1,64}"
         r"\\?[\"']\s*,\s*\\?[\"']([^\"'\n\\]{4,128})\\?[\"']"
         # a connecting call's last two literals are its user and password (`getConnection(url, "u", "p")`,
         # `new PDO($dsn, 'root', 'p')`, `algoliasearch('APPID', 'KEY')`)
         r"|(?i:connect|connection|pdo|login|logon|signin|authenticate|credentials?|algoliasearch)\s*\([^()\n]{0,200}?"
         r"\\?[\"'][^\"'\n\\]{1,64}\\?[\"']\s*,\s*\\?[\"']([^\"'\n\\]{6,128})\\?[\"']\s*(?:\)|,\s*[^\s\"'\\])"
         # `Credentials.basic("u", "p")`, Ruby's `req.basic_auth 'u', 'p'` (no parentheses)
         r"|(?:Credentials\.basic|basic_auth)\s*\(?\s*\\?[\"'][^\"'\n\\]{1,64}\\?[\"']\s*,\s*\\?[\"']([^\"'\n\\]{4,128})\\?[\"']",
         starts_word=False),
    Rule("bitlocker-recovery-key", "vendor:Microsoft BitLocker recovery password (48 digits in 8 groups of 6)",
         r"([0-9]{6}(?:-[0-9]{6}){7})" + _END),
    Rule("k3s-token", "vendor:k3s and RKE2 join token (K10<CA hash>::<user>:<password>)",
         r"(K10[0-9a-f]{64}::[A-Za-z0-9_-]{1,32}:[A-Za-z0-9]{16,64})" + _END),
    Rule("call-secret", "vendor:APIs taking a secret as a literal argument: JWT signing (PyJWT, jsonwebtoken), Go's "
         "smtp.PlainAuth, MySQL's C API, libcurl's CURLOPT_USERPWD, Redis AUTH (redis-py, lua-resty-redis), "
         "builders' .password(), pydantic's SecretStr, cryptography's Fernet",
         r"(?:jwt\.(?:encode|decode|sign|verify)\s*\((?:\{[^{}\n]{0,200}\}|[^,\n]{0,100}),\s*b?\\?[\"']"
         r"([^\"'\n\\]{6,128})\\?[\"']"
         r"|PlainAuth\s*\(\s*\\?\"[^\"\n]*\\?\"\s*,\s*\\?\"[^\"\n]*\\?\"\s*,\s*\\?\"([^\"\n\\]{4,128})\\?\""
         r"|mysql_real_connect\s*\([^,\n]+,\s*\\?\"[^\"\n]*\\?\"\s*,\s*\\?\"[^\"\n]*\\?\"\s*,\s*\\?\""
         r"([^\"\n\\]{4,128})\\?\""
         r"|CURLOPT_(?:PROXY)?USERPWD\s*,\s*\\?\"[^\":\n]*:([^\"\n\\]{4,128})\\?\""
         r"|CURLOPT_(?:PROXY)?PASSWORD\s*,\s*\\?\"([^\"\n\\]{4,128})\\?\""
         r"|(?:[.:](?:auth|password|passwd|set_password|setPassword)|SecretStr|SecretBytes|Fernet)\s*\(\s*b?\\?[\"']"
         r"([^\"'\n\\]{6,128})\\?[\"']\s*\))",
         starts_word=False),
    Rule("pgpass-line", "vendor:PostgreSQL .pgpass (hostname:port:database:username:password)",
         r"(?:^|[\n\"'>]|\\n)[ \t]*(?:localhost|\*|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+):(?:[0-9]{2,5}|\*)"
         r":[^\s:\"'\\]+:[^\s:\"'\\]+:([^\s\"'\\]*[^\s\"'\\0-9][^\s\"'\\]*)(?:[\s\"'\\]|$)", starts_word=False),
    Rule("sql-cli-password", "vendor:sqlcmd/bcp -P, ldapsearch -w, smbclient -U user%password, zip -P, 7z -p",
         r"(?:sqlcmd|bcp|osql|isql)(?:\s[^\n|;&]*?)?[ \t]-P[ \t]*" + _ARG
         + r"|ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)(?:\s[^\n|;&]*?)?[ \t]-w[ \t]+" + _ARG
         + r"|(?:smbclient|rpcclient|smbmap|netexec|nxc|crackmapexec)(?:\s[^\n|;&]*?)?[ \t]-U[ \t]+"
         + r"[\"']?[^\s%\"']+%([^\s\"'\\]+)"
         + r"|(?:zip|unzip)(?:\s[^\n|;&]*?)?[ \t]-P[ \t]+" + _ARG
         + r"|7z[a-z]?(?:\s[^\n|;&]*?)?[ \t]-p([^\s\"'\\-][^\s\"'\\]*)"),
    Rule("cli-user-password", "vendor:a command line giving a user (-u, -U, --user, --username) and then a "
         "password flag (-p, -P, --password, --pass; rabbitmqadmin, cqlsh, twine, influx, …); a number or a port "
         "mapping after -p is no password",
         r"(?:^|[\s;&|(])(?:-u|-U|--user(?:name)?|--login)(?:[ \t]+|=)[\"']?[^\s\"'-][^\s\"']*[\"']?"
         r"[^\n|;&]*?[ \t](?:-p|-P|--pass(?:word)?|--pw|--pwd)(?:[ \t]+|=)" + _ARG, mixed=True, starts_word=False),
    Rule("windows-cli-password", "vendor:schtasks /rp and /p, wmic /password:, runas-style /pass:",
         r"schtasks\b[^\n|&]*?[ \t]/r?p[ \t]+" + _ARG
         + r"|(?:^|\s)/(?:password|pass|pwd|p):[\"']?([^\s\"'\\]+)", starts_word=False),
    Rule("cli-secret-flag", "vendor:ssh-keygen -N, snmpwalk/snmpget -A and -X, beeline -p, unrar/rar -p, "
         "db2 connect … using, redis AUTH, expect's send after a password prompt",
         r"ssh-keygen\b[^\n|;&]*?[ \t]-N[ \t]+" + _ARG
         + r"|snmp[a-z]*\b[^\n|;&]*?[ \t]-[AX][ \t]+" + _ARG
         + r"|beeline\b[^\n|;&]*?[ \t]-p[ \t]+" + _ARG
         + r"|\b(?:un)?rar\s[^\n|;&]*?[ \t]-p([^\s\"'\\-][^\s\"'\\]*)"
         + r"|db2\s+connect\s+to\s+\S+\s+user\s+\S+\s+using\s+" + _ARG
         + r"|(?:^|\n|> )(?i:auth)[ \t]+(?:[A-Za-z0-9_.-]+[ \t]+)?" + _ARG
         + r"|expect\s+\\?\"[^\"\n]*(?i:password|passphrase)[^\"\n]*\\?\"\s*(?:\n|\\n)\s*send\s+\\?\"([^\"\n\\]+)",
         mixed=True, starts_word=False),
    Rule("cli-positional-secret", "vendor:mc alias set (MinIO), wandb login, codecov -t, ethers.Wallet",
         r"\bmc\s+(?:alias\s+set|config\s+host\s+add)\s+\S+\s+\S+\s+[^\s-]\S*\s+" + _ARG
         + r"|\bwandb\s+login\s+(?:--[a-z-]+\s+)*([0-9a-f]{40})\b"
         + r"|codecov[^\n]*?[ \t]-t[ \t]+" + _ARG
         + r"|Wallet\(\s*\\?[\"'](0x[0-9a-fA-F]{64})\\?[\"']"),
    # -- structured forms -------------------------------------------------------------------------
    Rule("xml-element-secret", "vendor:Maven settings.xml <password>, and any element named for a secret",
         r"<[A-Za-z0-9_:.-]*(?i:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key"
         r"|access[_-]?key)>[ \t]*([^<\s${%][^<\s]{3,199})[ \t]*</", mixed=True, starts_word=False),
    Rule("config-line-secret", "vendor:directives that give a secret-named setting its value after a space "
         "(Apache SetEnv, mosquitto remote_password, pgbouncer, ssh and VPN configs)",
         r"(?m:^)[ \t]*(?:SetEnv[ \t]+|setenv[ \t]+|set[ \t]+)?(?:[A-Za-z0-9]+[_.-])*"
         r"(?i:password|passwd|pass|passphrase|secret|token|apikey|api_key|pwd)[ \t]+[\"']?([^\s\"'=:][^\s\"']{5,})"
         r"[\"']?[ \t]*(?m:$)", mixed=True, starts_word=False),
    Rule("decoded-secret-literal", "vendor:a secret-named value given as the literal of a decoding call "
         "(base64.b64decode, atob, Buffer.from, Base64.decode64)",
         r"[A-Za-z0-9_]*(?i:key|secret|token|password|passwd|pwd|salt)\\?[\"']?\s*[:=]\s*"
         r"(?:base64\.(?:urlsafe_|standard_)?b64decode|b64decode|atob|Base64\.(?:strict_)?decode64|base64_decode"
         r"|Buffer\.from|Convert\.FromBase64String)\(\s*b?\\?[\"']([A-Za-z0-9+/_-]{12,}={0,2})\\?[\"']"),
    Rule("sdk-client-key", "vendor:an AI SDK's client given its key as the first literal (cohere.Client, …)",
         r"(?i:cohere|openai|anthropic|mistral|mistralai|groq|replicate|pinecone|together|fireworks|voyageai|ai21"
         r"|deepseek|perplexity|elevenlabs|deepgram|assemblyai)\.(?:Async)?[A-Z][A-Za-z]*\(\s*(?:api_key\s*=\s*)?"
         r"\\?[\"']([A-Za-z0-9_-]{20,})\\?[\"']", mixed=True, starts_word=False),
    Rule("twilio-api-key-secret", "trufflehog:twilioapikey (the secret given beside its SK id)",
         r"\\?[\"']\s*,\s*\\?[\"']([A-Za-z0-9]{32})\\?[\"']", back=r"SK[0-9a-fA-F]{32}$", mixed=True,
         starts_word=False),
    Rule("otp-seed", "RFC 6238 (a TOTP seed, base32, named as one in prose or config)",
         r"(?i:totp|otp|2fa|mfa|authenticator)[ _-]?(?i:setup[ _-])?(?i:seed|secret|key)\b[^\n]{0,80}?"
         r"\b([A-Z2-7]{16,64}|[A-Z2-7]{4}(?: [A-Z2-7]{4}){3,15})\b"),
    Rule("seed-phrase", "BIP-39 (a wallet's mnemonic: twelve words or more after its name)",
         r"(?i:seed phrase|mnemonic|recovery phrase|backup phrase|secret phrase)[^\n]{0,100}?[:=]\s*[\"'`]?"
         r"((?:[a-z]{3,8} ){11,23}[a-z]{3,8})\b"),
    Rule("recovery-codes", "vendor:account recovery (backup) codes, listed one a line after their name",
         r"(?i:recovery|backup) codes?\b[^\n]{0,100}" + _WRAP
         + r"((?:[ \t]*[-*]?[ \t]*[a-z0-9]{4,6}-[a-z0-9]{4,6}[ \t]*" + _WRAP + r"){2,}[ \t]*[-*]?[ \t]*"
         r"[a-z0-9]{4,6}-[a-z0-9]{4,6})"),
    Rule("pin-code", "vendor:a PIN or PUK given in prose (HSM, smart card, SIM)",
         r"\b(?:PIN|PUK|SO-PIN|PIN code|pin code|passcode)\s+(?:is|was|ist|es|est|:|=)\s*:?\s*\\?[\"'`]?"
         r"([0-9]{4,16})\b"),
    Rule("rails-master-key", "vendor:Rails config/master.key printed",
         r"master\.key[ \t]*" + _WRAP + r"[ \t]*([0-9a-f]{32})\b", starts_word=False),
    Rule("jwk-private-key", "RFC 7517/7518 (private members d, p, q, dp, dq, qi; a symmetric key's k)",
         r"\\?\"(?:d|p|q|dp|dq|qi|k)\\?\"\s*:\s*\\?\"([A-Za-z0-9_-]{16,})", needs="kty"),
    Rule("putty-private-key", "vendor:PuTTY .ppk (the Private-Lines block)",
         r"Private-Lines:\s*[0-9]+[ \t]*" + _WRAP + r"((?:[A-Za-z0-9+/=]{4,}" + _WRAP + r")*[A-Za-z0-9+/=]{4,})"),
)

# Provider names: a high-entropy value within a few words after one of them is a credential
# even without a prefix or a `KEY=value` form ("my twilio auth token is 0f3c…").
PROVIDERS: tuple[str, ...] = (
    "aws", "amazon", "azure", "gcp", "twilio", "datadog", "heroku", "mailgun", "vault", "discord", "slack",
    "stripe", "sendgrid", "cloudflare", "shopify", "digitalocean", "netlify", "vercel", "sentry", "algolia",
    "okta", "auth0", "firebase", "supabase", "pagerduty", "newrelic", "openai", "anthropic", "github", "gitlab",
    "bitbucket", "npm", "pypi", "docker", "telegram", "pusher", "mapbox", "rollbar", "circleci", "travis",
    # AI and SaaS providers whose keys have no prefix (trufflehog's detectors key on these names)
    "mistral", "cohere", "wandb", "deepseek", "dashscope", "moonshot", "groq", "replicate", "pinecone", "perplexity",
    "huggingface", "langsmith", "openrouter", "elevenlabs", "deepgram", "resend", "brevo", "sendinblue", "postmark",
    "plaid", "paypal", "braintree", "razorpay", "paystack", "coinbase", "binance", "dropbox", "airtable", "zendesk",
    "intercom", "hubspot", "salesforce", "twitch", "twitter", "jfrog", "artifactory", "snyk", "sonarqube",
    "buildkite", "pulumi", "terraform", "dynatrace", "launchdarkly", "bugsnag", "mixpanel", "doppler",
    # clouds whose keys have no prefix
    "alibaba", "aliyun", "tencent", "huawei", "baidu", "hetzner", "linode", "ibm", "ibmcloud", "bluemix",
)

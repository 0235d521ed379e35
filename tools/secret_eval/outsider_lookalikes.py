# ruff: noqa: E501  (a table of kinds: one kind a line reads better than wrapped)
"""An outsider's lookalikes: random-looking strings in coding-agent logs that are not secrets.

Written, like `outsider_kinds.py`, without reading the redaction rules, their tests or the earlier
corpora (only `lookalikes.py` for the style). Each is public by design: content hashes and
digests, object and request ids, ids in URLs, public keys and fingerprints, publishable
client-side keys, build artifacts, encoded media, and credential *words* next to values that are
not credentials (a policy, a count, a reference to a secret store, a placeholder). Any change to
the value counts as altered.
"""

from __future__ import annotations

import base64
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
    LOWER,
    UALNUM,
    UPPER,
    Kind,
    b64_of,
    check_unique_names,
    kind,
    rbytes,
    rs,
    sha1,
    sha256,
    uuid4,
)


def L(name: str, family: str, make, *renders) -> Kind:
    return kind(name, family, make, *renders, source="outsider lookalike (composed)", self_evident=True)


def short(r: random.Random, n: int = 7) -> str:
    return rs(r, HEX, n)


def b58(r: random.Random, n: int) -> str:
    return rs(r, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", n)


def _sourcemap_b64(r: random.Random) -> str:
    mappings = ";".join(",".join(rs(r, "ABCDEFGIKMOQSUWYacegikmoqsuwy", 4) for _ in range(4)) for _ in range(6))
    doc = {"version": 3, "file": f"chunk-{rs(r, UALNUM, 8)}.js", "sources": ["../src/api/client.ts"],
           "names": ["fetchJson", "retry"], "mappings": mappings}
    return base64.b64encode(json.dumps(doc, separators=(",", ":")).encode()).decode()


def _jwk_n(r: random.Random) -> str:
    return b64_of(b"\xc1" + rbytes(r, 255), url=True, pad=False)


def _ed25519_pub(r: random.Random) -> str:
    return "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64_of(rbytes(r, 32))[1:44]


def _rsa_pub(r: random.Random) -> str:
    return "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64_of(rbytes(r, 380))[:512]


OUTSIDER_LOOKALIKES: list[Kind] = [
    # --- git ----------------------------------------------------------------------------------
    L("ol-git-revert-message", "git", sha1, lambda r, v: f'Revert "feat: stream uploads"\n\nThis reverts commit {v}.'),
    L("ol-git-cherry-pick-x", "git", sha1, lambda r, v: f"fix(auth): refresh session on 401\n\n(cherry picked from commit {v})"),
    L("ol-git-bisect-bad", "git", sha1, lambda r, v: f"{v} is the first bad commit\ncommit {v}\nAuthor: Lena Vogt <lena@acme.io>"),
    L("ol-git-blame-line", "git", lambda r: short(r, 8), lambda r, v: f"^{v} (Hiroshi Sato 2026-01-14 09:12:44 +0900 118)     retries = 3"),
    L("ol-git-reflog", "git", lambda r: short(r, 12), lambda r, v: f"{v} HEAD@{{2}}: rebase (finish): returning to refs/heads/feature/search"),
    L("ol-github-commit-url", "git", sha1, lambda r, v: f"see https://github.com/acme/api/commit/{v} for the fix"),
    L("ol-key-commit-sentence", "git", sha1, lambda r, v: f"The key commit is {v}; everything after it builds on the new schema."),
    L("ol-git-push-range", "git", lambda r: f"{short(r)}..{short(r)}", lambda r, v: f"To github.com:acme/api.git\n   {v}  main -> main"),
    L("ol-gerrit-change-id", "git", lambda r: "I" + sha1(r), lambda r, v: f"Fix flaky retry test\n\nChange-Id: {v}\nSigned-off-by: Omar Haddad <omar@acme.io>"),
    L("ol-git-describe", "git", lambda r: f"v{r.randrange(1, 9)}.{r.randrange(30)}.{r.randrange(30)}-{r.randrange(1, 300)}-g{short(r, 9)}", lambda r, v: f"$ git describe --tags\n{v}"),
    L("ol-git-ls-remote", "git", sha1, lambda r, v: f"{v}\trefs/heads/release/2026.02"),
    L("ol-gitlab-checkout-sha", "git", sha1, lambda r, v: json.dumps({"object_kind": "pipeline", "object_attributes": {"id": r.randrange(10**8, 10**9), "sha": v, "ref": "main", "status": "success"}})),
    # --- packages, images, lockfiles ------------------------------------------------------------
    L("ol-docker-writing-image", "package", sha256, lambda r, v: f"#12 exporting layers 2.1s done\n#12 writing image sha256:{v} done\n#12 naming to docker.io/acme/api:dev done"),
    L("ol-k8s-image-digest", "package", sha256, lambda r, v: f"      containers:\n        - name: web\n          image: nginx@sha256:{v}"),
    L("ol-pnpm-lock-integrity", "package", lambda r: "sha512-" + b64_of(rbytes(r, 64)), lambda r, v: f"  /zod@3.23.8:\n    resolution: {{integrity: {v}}}\n    dev: false"),
    L("ol-yarn-berry-checksum", "package", lambda r: "10c0/" + rs(r, HEX, 128), lambda r, v: f'"typescript@npm:^5.4.0":\n  version: 5.4.5\n  checksum: {v}'),
    L("ol-go-checksum-mismatch", "package", lambda r: "h1:" + b64_of(rbytes(r, 32)), lambda r, v: f"verifying github.com/acme/kit@v0.9.1: checksum mismatch\n\tdownloaded: {v}\n\tgo.sum:     h1:{b64_of(rbytes(r, 32))}"),
    L("ol-uv-lock-hash", "package", sha256, lambda r, v: f'sdist = {{ url = "https://files.pythonhosted.org/packages/httpx-0.27.2.tar.gz", hash = "sha256:{v}", size = 144189 }}'),
    L("ol-pipfile-lock-hashes", "package", sha256, lambda r, v: json.dumps({"requests": {"hashes": [f"sha256:{v}"], "version": "==2.32.3"}}, indent=4)),
    L("ol-gemfile-lock-checksum", "package", sha256, lambda r, v: f"CHECKSUMS\n  rack (3.1.8) sha256={v}"),
    L("ol-composer-dist-reference", "package", sha1, lambda r, v: json.dumps({"name": "monolog/monolog", "version": "3.7.0", "dist": {"type": "zip", "reference": v, "shasum": ""}})),
    L("ol-brew-bottle-sha", "package", sha256, lambda r, v: f'  bottle do\n    sha256 cellar: :any, arm64_sonoma: "{v}"\n  end'),
    L("ol-flake-lock-narhash", "package", lambda r: "sha256-" + b64_of(rbytes(r, 32)), lambda r, v: json.dumps({"locked": {"lastModified": 1767000000 + r.randrange(10**6), "narHash": v, "owner": "NixOS", "repo": "nixpkgs", "rev": sha1(r), "type": "github"}}, indent=2)),
    L("ol-terraform-lock-zh", "package", lambda r: "zh:" + sha256(r), lambda r, v: f'provider "registry.terraform.io/hashicorp/aws" {{\n  version = "5.82.2"\n  hashes = [\n    "{v}",\n  ]\n}}'),
    L("ol-helm-pull-digest", "package", sha256, lambda r, v: f"Pulled: registry-1.docker.io/bitnamicharts/postgresql:16.2.1\nDigest: sha256:{v}"),
    L("ol-cargo-vendor-checksum", "package", sha256, lambda r, v: json.dumps({"files": {}, "package": v})),
    L("ol-react-canary-version", "package", lambda r: f"19.1.0-canary-{short(r, 8)}-2026{r.randrange(1, 13):02d}{r.randrange(1, 29):02d}", lambda r, v: f'"react": "{v}",'),
    L("ol-docker-tag-sha", "package", lambda r: f"acme/api:2.{r.randrange(40)}.{r.randrange(20)}-g{short(r, 7)}", lambda r, v: f"docker push {v}"),
    # --- build artifacts and content hashes ------------------------------------------------------
    L("ol-vite-asset-name", "build", lambda r: f"index-{rs(r, B64URL.replace('-', ''), 8)}.js", lambda r, v: f"dist/assets/{v}   143.82 kB │ gzip: 46.10 kB"),
    L("ol-esbuild-chunk", "build", lambda r: f"chunk-{rs(r, UALNUM, 8)}.js", lambda r, v: f"  dist/{v}  12.4kb"),
    L("ol-nextjs-build-id", "build", lambda r: rs(r, ALNUM + "_-", 21), lambda r, v: f"/_next/static/{v}/_buildManifest.js"),
    L("ol-cra-main-hash", "build", lambda r: f"main.{short(r, 8)}.js", lambda r, v: f"  52.3 kB  build/static/js/{v}"),
    L("ol-css-hash-link", "build", lambda r: f"app-{short(r, 20)}.css", lambda r, v: f'<link rel="stylesheet" href="/assets/{v}" />'),
    L("ol-csp-hash", "build", lambda r: "sha256-" + b64_of(rbytes(r, 32)), lambda r, v: f"Content-Security-Policy: script-src 'self' '{v}'"),
    L("ol-sourcemap-data-uri", "build", _sourcemap_b64, lambda r, v: f"//# sourceMappingURL=data:application/json;base64,{v}"),
    L("ol-sourcemap-mappings", "build", lambda r: ";".join(",".join(rs(r, "ABCDEFGIKMOQSUWYacegikmoqsuwy+/0123", 4) for _ in range(5)) for _ in range(4)),
      lambda r, v: '{"version":3,"sources":["src/index.ts"],"names":[],"mappings":"' + v + '"}'),
    L("ol-pytest-tmpdir", "build", lambda r: "tmp" + rs(r, LALNUM + "_", 8), lambda r, v: f"E   FileNotFoundError: [Errno 2] No such file or directory: '/tmp/{v}/out.json'"),
    # --- public keys, fingerprints, addresses ---------------------------------------------------
    L("ol-known-hosts-ed25519", "public-key", _ed25519_pub, lambda r, v: f"github.com ssh-ed25519 {v}"),
    L("ol-authorized-keys-rsa", "public-key", _rsa_pub, lambda r, v: f"ssh-rsa {v} ci@build-runner"),
    L("ol-gpg-pub-line", "public-key", lambda r: rs(r, HEXU, 16), lambda r, v: f"pub   rsa4096/{v} 2024-03-02 [SC] [expires: 2027-03-02]"),
    L("ol-tls-fingerprint", "public-key", lambda r: ":".join(rs(r, HEXU, 2) for _ in range(32)), lambda r, v: f"sha256 Fingerprint={v}"),
    L("ol-pgp-public-block", "public-key", lambda r: "mQINBG" + b64_of(rbytes(r, 360)), lambda r, v: f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{v}\n-----END PGP PUBLIC KEY BLOCK-----"),
    L("ol-jwks-public", "public-key", _jwk_n, lambda r, v: json.dumps({"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": short(r, 16), "n": v, "e": "AQAB"}]})),
    L("ol-jwks-kid", "public-key", lambda r: short(r, 16) + short(r, 24), lambda r, v: json.dumps({"alg": "RS256", "kid": v, "typ": "JWT"})),
    L("ol-wireguard-public-key", "public-key", lambda r: b64_of(rbytes(r, 32)), lambda r, v: f"peer: {v}\n  endpoint: 203.0.113.7:51820\n  allowed ips: 10.8.0.0/24"),
    L("ol-ethereum-address", "public-key", lambda r: "0x" + rs(r, HEX, 40), lambda r, v: f"deployed Token at {v} (block 19283746)"),
    L("ol-ethereum-tx-hash", "public-key", lambda r: "0x" + rs(r, HEX, 64), lambda r, v: f"tx hash: {v}"),
    L("ol-bitcoin-bech32", "public-key", lambda r: "bc1q" + rs(r, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38), lambda r, v: f"send the refund to {v}"),
    L("ol-ipfs-cid", "public-key", lambda r: "bafybei" + rs(r, "abcdefghijklmnopqrstuvwxyz234567", 52), lambda r, v: f"https://ipfs.io/ipfs/{v}"),
    # --- publishable, client-side keys and public ids --------------------------------------------
    L("ol-stripe-pk-test", "publishable", lambda r: "pk_test_51" + rs(r, ALNUM, 97), lambda r, v: f"const stripe = Stripe('{v}');"),
    L("ol-mapbox-public-token", "publishable", lambda r: "pk.eyJ1IjoiYWNtZS" + rs(r, B64URL, 40) + "." + rs(r, B64URL, 22), lambda r, v: f"mapboxgl.accessToken = '{v}';"),
    L("ol-recaptcha-site-key", "publishable", lambda r: "6L" + rs(r, B64URL, 38), lambda r, v: f'<div class="g-recaptcha" data-sitekey="{v}"></div>'),
    L("ol-posthog-project-key", "publishable", lambda r: "phc_" + rs(r, ALNUM, 43), lambda r, v: f"posthog.init('{v}', {{ api_host: 'https://eu.i.posthog.com' }})"),
    L("ol-ga-measurement-id", "publishable", lambda r: "G-" + rs(r, UALNUM, 10), lambda r, v: f"gtag('config', '{v}');"),
    L("ol-vapid-public-key", "publishable", lambda r: "B" + rs(r, B64URL, 86), lambda r, v: f"applicationServerKey: urlBase64ToUint8Array('{v}')"),
    L("ol-github-oauth-client-id", "publishable", lambda r: "Iv1." + rs(r, HEX, 16), lambda r, v: f"GITHUB_CLIENT_ID={v}"),
    L("ol-firebase-app-id", "publishable", lambda r: f"1:{rs(r, DIGITS, 12)}:web:{rs(r, HEX, 22)}", lambda r, v: f'  appId: "{v}",\n  measurementId: "G-{rs(r, UALNUM, 10)}"'),
    # --- object, request, trace ids -------------------------------------------------------------
    L("ol-session-id-labelled", "id", uuid4, lambda r, v: f"Resuming Claude Code session id {v} (42 messages)"),
    L("ol-nanoid-share-url", "id", lambda r: rs(r, B64URL, 21), lambda r, v: f"https://app.acme.io/share/{v}"),
    L("ol-mongo-objectid-shell", "id", lambda r: rs(r, HEX, 24), lambda r, v: f'{{ _id: ObjectId("{v}"), email: "test@example.com", plan: "pro" }}'),
    L("ol-traceparent", "id", lambda r: f"00-{rs(r, HEX, 32)}-{rs(r, HEX, 16)}-01", lambda r, v: f"traceparent: {v}"),
    L("ol-x-amz-id-2", "id", lambda r: b64_of(rbytes(r, 57)), lambda r, v: f"x-amz-request-id: {rs(r, HEXU, 16)}\nx-amz-id-2: {v}"),
    L("ol-k8s-replicaset-pod", "id", lambda r: f"worker-{rs(r, 'bcdfghjklmnpqrstvwxz2456789', 10)}-{rs(r, 'bcdfghjklmnpqrstvwxz2456789', 5)}", lambda r, v: f"kubectl logs -n jobs {v} --previous"),
    L("ol-k8s-scheduled-event", "id", lambda r: f"api-{rs(r, 'bcdfghjklmnpqrstvwxz2456789', 9)}-{rs(r, 'bcdfghjklmnpqrstvwxz2456789', 5)}", lambda r, v: f"Normal  Scheduled  12s  default-scheduler  Successfully assigned prod/{v} to ip-10-0-12-44.ec2.internal"),
    L("ol-lambda-arn", "id", lambda r: f"arn:aws:lambda:eu-west-1:{rs(r, DIGITS, 12)}:function:resize-images-{rs(r, LALNUM, 6)}", lambda r, v: f'"FunctionArn": "{v}",'),
    L("ol-cfn-stack-id", "id", lambda r: f"arn:aws:cloudformation:us-east-1:{rs(r, DIGITS, 12)}:stack/acme-prod/{uuid4(r)}", lambda r, v: f"StackId: {v}"),
    L("ol-ec2-resource-ids", "id", lambda r: f"subnet-0{rs(r, HEX, 16)}", lambda r, v: f"  SubnetIds:\n    - {v}\n  SecurityGroupIds:\n    - sg-0{rs(r, HEX, 16)}"),
    L("ol-azure-resource-id", "id", uuid4, lambda r, v: f"/subscriptions/{v}/resourceGroups/rg-prod-weu/providers/Microsoft.Web/sites/acme-api"),
    L("ol-azure-tenant-id", "id", uuid4, lambda r, v: f"tenant id: {v} (Default Directory)"),
    L("ol-github-node-id", "id", lambda r: "PR_kwDO" + rs(r, B64URL, 17), lambda r, v: json.dumps({"data": {"repository": {"pullRequest": {"id": v, "number": r.randrange(100, 9999)}}}})),
    L("ol-gha-run-url", "id", lambda r: f"{rs(r, DIGITS, 11)}/job/{rs(r, DIGITS, 11)}", lambda r, v: f"https://github.com/acme/api/actions/runs/{v}"),
    L("ol-celery-task-id", "id", uuid4, lambda r, v: f"[2026-02-11 10:22:31,114: INFO/ForkPoolWorker-3] Task tasks.send_invoice[{v}] succeeded in 0.41s"),
    L("ol-stripe-price-id", "id", lambda r: "price_1" + rs(r, ALNUM, 23), lambda r, v: f"STRIPE_PRICE_PRO_MONTHLY={v}"),
    L("ol-datadog-trace-id", "id", lambda r: str(r.randrange(10**18, 10**19)), lambda r, v: f"dd.trace_id={v} dd.span_id={r.randrange(10**18, 10**19)} level=info msg=\"order created\""),
    L("ol-idempotency-key", "id", uuid4, lambda r, v: f"Idempotency-Key: {v}"),
    L("ol-jupyter-kernel-file", "id", uuid4, lambda r, v: f"Connecting to kernel: /run/user/1000/jupyter/runtime/kernel-{v}.json"),
    # --- ids inside URLs ---------------------------------------------------------------------
    L("ol-youtu-be-link", "url-id", lambda r: rs(r, B64URL, 11), lambda r, v: f"demo recording: https://youtu.be/{v}?t=42"),
    L("ol-google-drive-file", "url-id", lambda r: "1" + rs(r, B64URL, 32), lambda r, v: f"https://drive.google.com/file/d/{v}/view?usp=sharing"),
    L("ol-google-sheet", "url-id", lambda r: "1" + rs(r, B64URL, 43), lambda r, v: f"https://docs.google.com/spreadsheets/d/{v}/edit#gid=0"),
    L("ol-figma-file-key", "url-id", lambda r: rs(r, ALNUM, 22), lambda r, v: f"https://www.figma.com/design/{v}/Checkout-Flow?node-id=12-345"),
    L("ol-notion-page-url", "url-id", lambda r: rs(r, HEX, 32), lambda r, v: f"spec is in https://www.notion.so/acme/Search-v2-{v}"),
    L("ol-sentry-trace-query", "url-id", lambda r: rs(r, HEX, 32), lambda r, v: f"https://sentry.io/organizations/acme/issues/?project=42&query=trace%3A{v}"),
    # --- network and numbers ----------------------------------------------------------------------
    L("ol-ipv6-link-local", "network", lambda r: "fe80::" + ":".join(rs(r, HEX, 4) for _ in range(4)), lambda r, v: f"inet6 {v}/64 scope link"),
    L("ol-mac-dashes", "network", lambda r: "-".join(rs(r, HEXU, 2) for _ in range(6)), lambda r, v: f"  Physical Address. . . . . . . . . : {v}"),
    L("ol-cron-expression", "network", lambda r: f"{r.randrange(60)} {r.randrange(24)} * * {r.randrange(7)}", lambda r, v: f"schedule: \"{v}\"  # weekly vacuum"),
    L("ol-tailwind-arbitrary-color", "network", lambda r: f"bg-[#{rs(r, HEX, 6)}]", lambda r, v: f'<div className="{v} text-white rounded-lg">'),
    # --- encoded media ----------------------------------------------------------------------------
    L("ol-svg-data-uri", "media", lambda r: base64.b64encode(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M{r.randrange(99)} {r.randrange(99)}L{rs(r, DIGITS, 40)}z"/></svg>'.encode()).decode(),
      lambda r, v: f"background-image: url('data:image/svg+xml;base64,{v}');"),
    L("ol-gif-data-uri", "media", lambda r: "R0lGODlh" + rs(r, B64, 120), lambda r, v: f'<img alt="spinner" src="data:image/gif;base64,{v}">'),
    L("ol-pdf-base64", "media", lambda r: "JVBERi0xLjcK" + rs(r, B64, 300), lambda r, v: json.dumps({"filename": "invoice-2026-02.pdf", "content_type": "application/pdf", "data": v})),
    L("ol-wasm-base64", "media", lambda r: "AGFzbQEAAAAB" + rs(r, B64, 200), lambda r, v: f'const wasm = Uint8Array.from(atob("{v}"), c => c.charCodeAt(0));'),
    # --- credential words beside things that are not credentials ---------------------------------
    L("ol-reset-token-expiry-identifier", "near-word", lambda r: f"PASSWORD_RESET_TOKEN_EXPIRY_{r.choice(['MINUTES', 'SECONDS', 'HOURS'])}_{rs(r, UPPER, 3)}", lambda r, v: f"{v} = 30"),
    L("ol-password-policy", "near-word", lambda r: f"password must be at least {r.randrange(8, 65)} characters ({rs(r, LOWER, 6)} policy)", lambda r, v: f"ValidationError: {v}"),
    L("ol-token-count", "near-word", lambda r: f"{r.randrange(10**4, 10**7)} tokens", lambda r, v: f"the token count is {v}, well under the context window"),
    L("ol-secret-key-ref", "near-word", lambda r: f"postgres-credentials-{rs(r, LALNUM, 6)}", lambda r, v: f"        env:\n          - name: DB_PASSWORD\n            valueFrom:\n              secretKeyRef:\n                name: {v}\n                key: password"),
    L("ol-actions-secret-ref", "near-word", lambda r: f"${{{{ secrets.PROD_DB_PASSWORD_{rs(r, UPPER, 4)} }}}}", lambda r, v: f"        env:\n          DB_PASSWORD: {v}"),
    L("ol-password-file-path", "near-word", lambda r: f"/run/secrets/db_password_{rs(r, LALNUM, 6)}", lambda r, v: f"POSTGRES_PASSWORD_FILE={v}"),
    L("ol-vault-path", "near-word", lambda r: f"secret/data/prod/payments-api-{rs(r, LALNUM, 5)}", lambda r, v: f"vault kv get -field=password {v}"),
    L("ol-api-key-header-name", "near-word", lambda r: f"X-{rs(r, UPPER, 1)}{rs(r, LOWER, 5)}-Api-Key", lambda r, v: f'API_KEY_HEADER_NAME = "{v}"'),
    L("ol-env-var-missing", "near-word", lambda r: f"AWS_SECRET_ACCESS_KEY_{rs(r, UPPER, 5)}", lambda r, v: f"Error: environment variable {v} is not set"),
    L("ol-password-field-id", "near-word", lambda r: f"password-confirmation-{rs(r, LALNUM, 8)}", lambda r, v: f'<input type="password" id="{v}" autocomplete="new-password">'),
    L("ol-token-bucket-config", "near-word", lambda r: f"token_bucket_refill_rate={r.randrange(10, 5000)}", lambda r, v: f"rate limiter: {v} capacity={r.randrange(10, 500)}"),
    L("ol-key-rotation-date", "near-word", lambda r: f"2026-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d}T{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}Z", lambda r, v: f"key last rotated at {v}"),
    # --- other languages --------------------------------------------------------------------------
    L("ol-ja-commit-sentence", "multilingual", sha1, lambda r, v: f"コミット {v} で修正しました。"),
    L("ol-zh-request-id", "multilingual", uuid4, lambda r, v: f"请求 ID：{v}"),
    L("ol-de-checksum", "multilingual", sha256, lambda r, v: f"Prüfsumme (SHA-256): {v}"),
]

check_unique_names(OUTSIDER_LOOKALIKES)

_ = (DIGITS, b58, HEX)

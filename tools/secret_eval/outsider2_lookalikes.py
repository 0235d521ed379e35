# ruff: noqa: E501  (a corpus: templates are kept on one line as they are written)
"""The second outsider's lookalikes: strings from coding-agent logs that look random, or stand
right next to a credential word, but are not secrets. Each must come back whole.

Written without reading the redaction rules or the earlier lookalike corpora. Families: git,
container, lockfile (package managers and build tools), id (object, request, trace, cloud and
CI ids), public (public keys, fingerprints, certificates, publishable ids), artifact
(content-hashed files, base64 media, fixtures and flags), wordy (non-secret values beside
password/token/secret/key/credential/auth), placeholder (placeholders, references, masks).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from secret_eval.kinds import (
    ALNUM,
    B32,
    B64,
    B64URL,
    DIGITS,
    HEX,
    HEXU,
    LALNUM,
    UALNUM,
    UPPER,
    Kind,
    b64_of,
    check_unique_names,
    kind,
    rbytes,
    rs,
    uuid4,
    wrap,
)
from secret_eval.kinds import (
    compose as G,
)
from secret_eval.outsider2_kinds import fill, render

LOOKS: list[Kind] = []


def L(name: str, family: str, make: Callable[[random.Random], str], *templates) -> None:
    LOOKS.append(kind(name, family, make, *(render(t) for t in templates)))


def C(*choices: str) -> Callable[[random.Random], str]:
    """One of fixed strings with a random numeric or word suffix where marked «...»."""
    return lambda rng: fill(rng, rng.choice(choices), "")


CROCK = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def sri(rng: random.Random, n: int = 64) -> str:
    return b64_of(rbytes(rng, n))


def colon_hex(rng: random.Random, n: int) -> str:
    return ":".join(rs(rng, HEXU, 2) for _ in range(n))


def ulid(rng: random.Random) -> str:
    return "01" + rs(rng, "HJ", 1) + rs(rng, CROCK, 23)


# ============================================================================================
# git
# ============================================================================================

L("git-log-commit-header", "git", G((HEX, 40)),
  "commit «v»\nAuthor: «first» <«email»>\nDate:   Tue Feb 3 10:12:44 2026 +0100\n\n    fix(auth): refresh token before expiry")
L("git-rebase-todo", "git", G((HEX, 10)),
  "pick «v» feat: add password strength meter\npick «hex:10» chore: bump deps\n# Rebase «hex:10»..«hex:10» onto «hex:10» (2 commands)")
L("git-merge-fastforward", "git", G((HEX, 9), "..", (HEX, 9)),
  "Updating «v»\nFast-forward\n src/auth/token.ts | 12 ++++++------\n 1 file changed, 6 insertions(+), 6 deletions(-)")
L("git-ls-remote", "git", G((HEX, 40)), "«v»\trefs/heads/main\n«hex:40»\trefs/tags/v1.4.0")
L("git-ls-tree", "git", G((HEX, 40)), "100644 blob «v»\tsrc/secrets/README.md")
L("git-describe", "git", G("v", (DIGITS, 1), ".", (DIGITS, 2), ".", (DIGITS, 1), "-", (DIGITS, 2), "-g", (HEX, 10)),
  "$ git describe --tags\n«v»")
L("git-diff-index", "git", G((HEX, 10), "..", (HEX, 10)),
  "diff --git a/config/secrets.example.yml b/config/secrets.example.yml\nindex «v» 100644\n--- a/config/secrets.example.yml")
L("git-commit-sha-prose", "git", G((HEX, 40)),
  ["the key is the commit sha «v» — cherry-pick that one", "the cache key is the commit sha («v»), not the branch name"])
L("git-blame-line", "git", G("^", (HEX, 9)),
  "«v» (Priya Nair 2025-11-02 14:03:11 +0530 42)     if token.expired():")
L("gha-pinned-action", "git", G((HEX, 40)),
  "      - uses: actions/checkout@«v» # v4.1.1\n      - uses: actions/setup-node@«hex:40» # v4.0.2")
L("precommit-rev", "git", G((HEX, 40)),
  "repos:\n  - repo: https://github.com/gitleaks/gitleaks\n    rev: «v»\n    hooks:\n      - id: gitleaks")
L("git-stash-show", "git", G((HEX, 12)),
  "Saved working directory and index state WIP on main: «v» rotate keys in CI")

# ============================================================================================
# container
# ============================================================================================

L("docker-pull-digest", "container", G("sha256:", (HEX, 64)),
  "latest: Pulling from library/postgres\nDigest: «v»\nStatus: Downloaded newer image for postgres:16")
L("docker-image-id", "container", G((HEX, 12)),
  "REPOSITORY      TAG       IMAGE ID       CREATED        SIZE\nacme/api        1.4.0     «v»   2 hours ago    212MB")
L("docker-container-id", "container", G((HEX, 12)),
  "CONTAINER ID   IMAGE          COMMAND                  STATUS\n«v»   redis:7        \"docker-entrypoint.s…\"   Up 3 hours")
L("docker-buildkit-writing", "container", G("sha256:", (HEX, 64)),
  " => exporting to image\n => => exporting layers\n => => writing image «v»\n => => naming to docker.io/acme/api:dev")
L("docker-layer-pull", "container", G((HEX, 12)),
  "«v»: Pull complete\n«hex:12»: Waiting\n«hex:12»: Download complete")
L("oci-manifest-digest", "container", G("sha256:", (HEX, 64)),
  '{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "«v»", "size": 1578}')
L("docker-volume-name", "container", G((HEX, 64)), "DRIVER    VOLUME NAME\nlocal     «v»")
L("k8s-image-pinned", "container", G("sha256:", (HEX, 64)),
  "    image: ghcr.io/acme/worker@«v»\n    imagePullPolicy: IfNotPresent")

# ============================================================================================
# lockfile: package managers and build tools
# ============================================================================================

L("npm-lock-integrity", "lockfile", lambda rng: "sha512-" + sri(rng),
  '"node_modules/jsonwebtoken": {\n  "version": "9.0.2",\n  "resolved": "https://registry.npmjs.org/jsonwebtoken/-/jsonwebtoken-9.0.2.tgz",\n  "integrity": "«v»"\n}')
L("npm-notice-shasum", "lockfile", G((HEX, 40)),
  "npm notice === Tarball Details ===\nnpm notice name:          @acme/auth-client\nnpm notice shasum:        «v»")
L("yarn-berry-checksum", "lockfile", G("10c0/", (HEX, 128)),
  '"passport-jwt@npm:^4.0.1":\n  version: 4.0.1\n  resolution: "passport-jwt@npm:4.0.1"\n  checksum: «v»\n  languageName: node')
L("pnpm-lock-resolution", "lockfile", lambda rng: "sha512-" + sri(rng),
  "  /bcryptjs@2.4.3:\n    resolution: {integrity: «v»}\n    dev: false")
L("bun-lock-entry", "lockfile", lambda rng: "sha512-" + sri(rng),
  '    "dotenv": ["dotenv@16.4.5", "", {}, "«v»"],')
L("pip-require-hashes", "lockfile", G("sha256:", (HEX, 64)),
  "cryptography==42.0.5 \\\n    --hash=«v» \\\n    --hash=sha256:«hex:64»")
L("poetry-lock-hash", "lockfile", G("sha256:", (HEX, 64)),
  'files = [\n    {file = "pyjwt-2.8.0-py3-none-any.whl", hash = "«v»"},\n]')
L("uv-lock-hash", "lockfile", G("sha256:", (HEX, 64)),
  'wheels = [\n    { url = "https://files.pythonhosted.org/packages/keyring-25.2.1-py3-none-any.whl", hash = "«v»", size = 38886 },\n]')
L("pip-hash-mismatch", "lockfile", G((HEX, 64)),
  "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.\n    passlib from https://files.pythonhosted.org/.../passlib-1.7.4-py2.py3-none-any.whl:\n        Expected sha256 «v»\n             Got        «hex:64»")
L("cargo-lock-checksum", "lockfile", G((HEX, 64)),
  '[[package]]\nname = "secrecy"\nversion = "0.8.0"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "«v»"')
L("cargo-deps-artifact", "lockfile", G("libring-", (HEX, 16), ".rlib"),
  "error: could not find native static library, `target/debug/deps/«v»` is corrupt")
L("go-sum-h1", "lockfile", lambda rng: "h1:" + b64_of(rbytes(rng, 32)),
  "golang.org/x/oauth2 v0.16.0 «v»\ngolang.org/x/oauth2 v0.16.0/go.mod h1:«a:43»=")
L("go-pseudo-version", "lockfile", G("v0.0.0-2026", (DIGITS, 10), "-", (HEX, 12)),
  "require github.com/acme/authkit «v»")
L("nix-store-path", "lockfile", G("/nix/store/", (NIX32, 32), "-openssl-3.0.13"),
  "these 3 paths will be fetched (4.21 MiB download, 18.02 MiB unpacked):\n  «v»")
L("nix-flake-narhash", "lockfile", lambda rng: "sha256-" + b64_of(rbytes(rng, 32)),
  '"locked": {\n  "lastModified": 1706735170,\n  "narHash": "«v»",\n  "owner": "NixOS",\n  "repo": "nixpkgs"\n}')
L("bazel-http-archive", "lockfile", G((HEX, 64)),
  'http_archive(\n    name = "rules_oci",\n    sha256 = "«v»",\n    strip_prefix = "rules_oci-1.7.2",\n)')
L("gradle-verification", "lockfile", G((HEX, 64)),
  '<component group="io.jsonwebtoken" name="jjwt-api" version="0.12.5">\n   <artifact name="jjwt-api-0.12.5.jar">\n      <sha256 value="«v»" origin="Generated by Gradle"/>\n   </artifact>\n</component>')
L("maven-snapshot-version", "lockfile", G("2.4.0-2026", (DIGITS, 4), ".", (DIGITS, 6), "-", (DIGITS, 2)),
  "Downloaded from nexus-snapshots: https://nexus.corp.io/repository/snapshots/com/acme/auth-core/2.4.0-SNAPSHOT/auth-core-«v».jar")
L("terraform-lock-hashes", "lockfile", lambda rng: "h1:" + b64_of(rbytes(rng, 32)),
  'provider "registry.terraform.io/hashicorp/vault" {\n  version = "3.25.0"\n  hashes = [\n    "«v»",\n    "zh:«hex:64»",\n  ]\n}')
L("podfile-lock-checksum", "lockfile", G((HEX, 40)),
  "SPEC CHECKSUMS:\n  KeychainAccess: «v»\n\nPODFILE CHECKSUM: «hex:40»")
L("composer-lock-reference", "lockfile", G((HEX, 40)),
  '"source": {\n    "type": "git",\n    "url": "https://github.com/firebase/php-jwt.git",\n    "reference": "«v»"\n},')
L("sha256sums-file", "lockfile", G((HEX, 64)), "«v»  terraform_1.7.3_linux_amd64.zip")
L("helm-chart-lock-digest", "lockfile", G("sha256:", (HEX, 64)),
  "dependencies:\n- name: postgresql\n  repository: oci://registry-1.docker.io/bitnamicharts\n  version: 13.4.4\ndigest: «v»")
L("sri-script-integrity", "lockfile", lambda rng: "sha384-" + b64_of(rbytes(rng, 48)),
  '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/js/bootstrap.bundle.min.js" integrity="«v»" crossorigin="anonymous"></script>')

# ============================================================================================
# id: object, request, trace, cloud and CI ids
# ============================================================================================

L("request-id-header", "id", uuid4, "< HTTP/2 401\n< x-request-id: «v»\n< www-authenticate: Bearer error=\"invalid_token\"")
L("ulid-in-log", "id", ulid, '{"level":"info","event":"token.refreshed","session":"«v»","ttl":3600}')
L("ksuid", "id", G("2", (ALNUM, 26)), "created job «v» (queue=emails)")
L("nanoid", "id", G((B64URL, 21)), "INSERT INTO links (id, url) VALUES ('«v»', 'https://acme.io/reset')")
L("snowflake-id", "id", G("1", (DIGITS, 18)), "message id «v» deleted by the moderation bot")
L("mongo-objectid", "id", G("6", (HEX, 23)), 'db.users.findOne({ _id: ObjectId("«v»") }, { passwordHash: 0 })')
L("w3c-traceparent", "id", G("00-", (HEX, 32), "-", (HEX, 16), "-01"), "traceparent: «v»")
L("otel-span-id", "id", G((HEX, 16)), '{"name":"auth.verify_token","trace_id":"«hex:32»","span_id":"«v»","duration_ms":3}')
L("lambda-request-id", "id", uuid4,
  "REPORT RequestId: «v»\tDuration: 412.77 ms\tBilled Duration: 413 ms\tMemory Size: 512 MB")
L("aws-arn-role", "id", G("arn:aws:iam::", (DIGITS, 12), ":role/github-actions-deploy"),
  '"Arn": "«v»"')
L("aws-resource-ids", "id", lambda rng: rng.choice(["i-0", "vpc-0", "subnet-0", "sg-0", "ami-0", "vol-0"]) + rs(rng, HEX, 16),
  "aws ec2 describe-instances --filters Name=tag:Role,Values=bastion --query 'Reservations[].Instances[].InstanceId'\n[\n    \"«v»\"\n]")
L("aws-sts-identity", "id", G("AIDA", (UALNUM, 17)),
  '{\n    "UserId": "«v»",\n    "Account": "«d:12»",\n    "Arn": "arn:aws:iam::«d:12»:user/ci-bot"\n}')
L("gcp-operation-id", "id", G("operation-17", (DIGITS, 11), "-", (HEX, 13), "-", (HEX, 8), "-", (HEX, 8)),
  "Waiting for operation [projects/acme-prod/global/operations/«v»] to complete...done.")
L("azure-resource-id", "id", lambda rng: f"/subscriptions/{uuid4(rng)}/resourceGroups/rg-prod/providers/Microsoft.KeyVault/vaults/kv-acme-prod",
  "az keyvault show --ids «v»")
L("k8s-uid", "id", uuid4, "metadata:\n  name: db-credentials\n  namespace: prod\n  uid: «v»\n  resourceVersion: \"«d:8»\"")
L("k8s-pod-name", "id", lambda rng: f"api-{rs(rng, 'bcdfghjklmnpqrstvwxz2456789', 10)}-{rs(rng, 'bcdfghjklmnpqrstvwxz2456789', 5)}",
  "NAME                         READY   STATUS             RESTARTS\n«v»   0/1     CrashLoopBackOff   7")
L("gha-run-url", "id", G("https://github.com/acme/webapp/actions/runs/7", (DIGITS, 9), "/job/2", (DIGITS, 10)),
  "The job failed: «v»")
L("gitlab-job-id", "id", G("CI_JOB_ID=5", (DIGITS, 9)), "$ env | grep CI_\nCI_PIPELINE_ID=«d:9»\n«v»\nCI_JOB_TOKEN=[MASKED]")
L("sentry-event-id", "id", G((HEX, 32)), "Sentry captured the error. Event ID: «v»")
L("stripe-object-ids", "id", lambda rng: rng.choice(["cus_", "pi_3", "evt_1", "price_1", "sub_1", "in_1"]) + rs(rng, ALNUM, 24),
  '{"id": "«v»", "object": "payment_intent", "livemode": false}')
L("slack-ids", "id", G("C0", (UALNUM, 9)), "posting to channel «v» (ts 17«d:8».«d:6»)")
L("openai-completion-id", "id", G("chatcmpl-", (ALNUM, 29)), '{"id": "«v»", "object": "chat.completion", "model": "gpt-4o"}')
L("anthropic-msg-id", "id", G("msg_01", (ALNUM, 22)), '{"id":"«v»","type":"message","role":"assistant"}')
L("anthropic-toolu-id", "id", G("toolu_01", (ALNUM, 22)), 'tool_use_id «v» returned an error: file not found')
L("openai-assistant-ids", "id", lambda rng: rng.choice(["asst_", "thread_", "run_", "file-"]) + rs(rng, ALNUM, 24),
  "client.beta.threads.runs.retrieve(run_id=«v»)")
L("claude-session-path", "id", lambda rng: f"~/.claude/projects/-home-dev-webapp/{uuid4(rng)}.jsonl",
  "resuming the conversation from «v»")
L("codex-rollout-path", "id",
  lambda rng: f"rollout-2026-02-0{rng.randrange(1, 9)}T1{rng.randrange(10)}-{rng.randrange(10, 60)}-{rng.randrange(10, 60)}-{uuid4(rng)}.jsonl",
  "session file: ~/.codex/sessions/2026/02/03/«v»")
L("vercel-project-json", "id", G("prj_", (ALNUM, 28)), '{"projectId":"«v»","orgId":"team_«a:24»"}')
L("cloudflare-account-id", "id", G((HEX, 32)),
  'name = "auth-worker"\nmain = "src/index.ts"\naccount_id = "«v»"\ncompatibility_date = "2026-01-15"')
L("idempotency-key", "id", uuid4, "curl https://api.stripe.com/v1/refunds -H 'Idempotency-Key: «v»' -d charge=ch_1")
L("etag-header", "id", G('W/"', (HEX, 40), '"'), "< ETag: «v»\n< Cache-Control: private, max-age=0")
L("github-request-id", "id", G((HEXU, 4), ":", (HEXU, 5), ":", (HEXU, 7), ":", (HEXU, 7), ":", (HEXU, 8)),
  "< x-github-request-id: «v»")
L("s3-object-key", "id", lambda rng: f"uploads/2026/02/{uuid4(rng)}.png", "upload: ./avatar.png to s3://acme-user-content/«v»")
L("redis-key-name", "id", lambda rng: f"session:user:{uuid4(rng)}", "127.0.0.1:6379> TTL «v»\n(integer) 3512")
L("ipfs-cid", "id", G("bafybei", (B32, 52)), "pinned «v» (metadata.json)")
L("eth-address", "id", G("0x", (HEX, 40)), "Deployed AuthRegistry at «v» (public address, tx confirmed)")
L("gh-actions-cache-key", "id", G("node-modules-Linux-", (HEX, 64)),
  "Cache restored from key: «v»")
L("jupyter-cell-id", "id", G((HEX, 8), "-", (HEX, 4), "-", (HEX, 4)), '{"cell_type": "code", "id": "«v»", "metadata": {}}')
L("xcode-object-id", "id", G((HEXU, 24)), "		«v» /* AuthManager.swift in Sources */ = {isa = PBXBuildFile; };")
L("apple-team-id", "id", G((UALNUM, 10)), "DEVELOPMENT_TEAM = «v»;\nCODE_SIGN_STYLE = Automatic;")
L("firebase-app-id", "id", G("1:", (DIGITS, 12), ":android:", (HEX, 22)), '"mobilesdk_app_id": "«v»"')
L("terraform-state-lineage", "id", uuid4, '{\n  "version": 4,\n  "terraform_version": "1.7.3",\n  "serial": 42,\n  "lineage": "«v»"\n}')

# ============================================================================================
# public: public keys, fingerprints, certificates, publishable ids
# ============================================================================================

L("ssh-ed25519-pubkey", "public", lambda rng: "AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(rng, B64, 43),
  "ssh-ed25519 «v» «first»@laptop", "$ cat ~/.ssh/id_ed25519.pub\nssh-ed25519 «v» ci@acme")
L("ssh-rsa-pubkey", "public", lambda rng: "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + rs(rng, B64, 500),
  "      - ssh-rsa «v» deploy@bastion")
L("ssh-fingerprint", "public", lambda rng: "SHA256:" + b64_of(rbytes(rng, 32), pad=False),
  ["The authenticity of host 'git.corp.io (10.1.2.3)' can't be established.\nED25519 key fingerprint is «v».",
   "Accepted publickey for deploy from 10.0.0.5 port 51234 ssh2: ED25519 «v»"])
L("gpg-fingerprint", "public", G((HEXU, 40)),
  "pub   ed25519 2025-06-01 [SC]\n      «v»\nuid           [ultimate] Release Signing <release@acme.io>")
L("x509-certificate", "public",
  lambda rng: "-----BEGIN CERTIFICATE-----\n" + wrap("MIIDdzCCAl+gAwIBAgIU" + rs(rng, B64, 1100) + "==") + "\n-----END CERTIFICATE-----",
  "$ openssl s_client -connect api.acme.io:443 -showcerts </dev/null\n«v»")
L("cert-sha256-fingerprint", "public", lambda rng: colon_hex(rng, 32),
  "sha256 Fingerprint=«v»")
L("age-public-key", "public", G("age1", (BECH, 58)), "# public key: «v»\nrecipients: «v»")
L("wireguard-peer-pubkey", "public", lambda rng: b64_of(rbytes(rng, 32)),
  "[Peer]\n# laptop of Priya\nPublicKey = «v»\nAllowedIPs = 10.8.0.7/32")
L("jwk-public-n", "public", G((B64URL, 342)),
  '{"keys":[{"kty":"RSA","use":"sig","kid":"«hex:16»","alg":"RS256","e":"AQAB","n":"«v»"}]}')
L("jwt-kid", "public", G((HEX, 40)), 'JWT header: {"alg":"RS256","typ":"JWT","kid":"«v»"}')
L("minisign-pubkey", "public", G("RWQ", (B64, 53)), "untrusted comment: minisign public key «HEX:16»\n«v»")
L("stripe-publishable", "public", G("pk_test_51", (ALNUM, 96)),
  "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=«v»")
L("mapbox-public-token", "public", G("pk.eyJ1IjoiYWNtZSIsImEiOiJ", (B64URL, 30), "In0.", (B64URL, 22)),
  "mapboxgl.accessToken = '«v»'; // public token, URL-restricted")
L("oauth-public-client-id", "public", lambda rng: f"{rs(rng, DIGITS, 12)}-{rs(rng, LALNUM, 32)}.apps.googleusercontent.com",
  'GOOGLE_CLIENT_ID="«v»"')
L("github-app-client-id", "public", G("Iv1.", (HEX, 16)), "GitHub App client ID: «v» (app id 8«d:5»)")
L("pkce-code-challenge", "public", lambda rng: b64_of(rbytes(rng, 32), url=True, pad=False),
  "GET /authorize?response_type=code&client_id=webapp&code_challenge=«v»&code_challenge_method=S256")
L("android-signing-sha1", "public", lambda rng: colon_hex(rng, 20),
  "Variant: debug\nConfig: debug\nStore: ~/.android/debug.keystore\nAlias: AndroidDebugKey\nSHA1: «v»")
L("azure-tenant-id", "public", uuid4, "AZURE_TENANT_ID=«v»")
L("google-analytics-id", "public", G("G-", (UALNUM, 10)), "gtag('config', '«v»');")
L("tailscale-nodekey", "public", G("nodekey:", (HEX, 64)), "peer «v» is online (100.101.102.103)")

# ============================================================================================
# artifact: content-hashed files, base64 media, fixtures and flags
# ============================================================================================

L("vite-asset", "artifact", G("assets/index-", (B64URL, 8), ".js"),
  "dist/index.html                  0.46 kB\ndist/«v»   143.36 kB │ gzip: 46.11 kB")
L("nextjs-chunk", "artifact", G("static/chunks/pages/_app-", (HEX, 16), ".js"),
  "GET /_next/«v» 404 in 12ms")
L("rails-digest-asset", "artifact", G("application-", (HEX, 64), ".css"),
  "I, [2026-02-03T10:12:44] INFO -- : Writing /app/public/assets/«v»")
L("django-manifest-static", "artifact", G("main.", (HEX, 12), ".css"),
  "Post-processed 'css/main.css' as 'css/«v»'")
L("bazel-output-base", "artifact", G("/home/dev/.cache/bazel/_bazel_dev/", (HEX, 32), "/execroot"),
  "INFO: Output base: «v»")
L("png-data-uri", "artifact", lambda rng: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ" + rs(rng, B64, 300) + "==",
  '<img alt="logo" src="«v»" />')
L("woff2-data-uri", "artifact", lambda rng: "data:font/woff2;base64,d09GMgABAAAAA" + rs(rng, B64, 400),
  "@font-face { font-family: 'Inter'; src: url(«v») format('woff2'); }")
L("test-names-credential", "artifact",
  C("test_rejects_expired_token_«low:6»", "test_password_reset_flow_«low:6»", "TestSecretRotation_«low:6»", "it_refreshes_auth_token_«low:6»"),
  "FAILED tests/unit/test_auth.py::«v» - AssertionError", "--- PASS: «v» (0.02s)")
L("feature-flag-names", "artifact",
  C("enable-token-rotation-v«d:2»", "ff_secret_manager_rollout_«low:4»", "auth.passwordless.login.«low:5»", "new-api-key-ui-«low:5»"),
  'if (flags.isEnabled("«v»")) {', "LaunchDarkly flag «v» is ON for 25% of users")
L("jest-snapshot-key", "artifact", C("LoginForm renders password field «d:2»", "TokenBadge shows masked key «d:2»"),
  "exports[`«v»`] = `\n<input type=\"password\" />\n`;")

# ============================================================================================
# wordy: non-secret values right next to password/token/secret/key/credential/auth
# ============================================================================================

L("password-policy", "wordy", lambda rng: f"must be at least {rng.randrange(8, 17)} characters and include a {rng.choice(['digit', 'symbol', 'capital letter'])}",
  "Validation failed: password «v»", "error: password «v» (got «d:1»)")
L("token-type-bearer", "wordy", C('"token_type": "Bearer"', '"token_type":"bearer","expires_in":«d:4»'),
  '{"access_token": "[omitted]", «v», "scope": "read"}')
L("secret-name-ref", "wordy", lambda rng: f"prod-{rng.choice(['db', 'redis', 'smtp', 'stripe'])}-credentials-{rs(rng, LALNUM, 5)}",
  "        envFrom:\n          - secretRef:\n              name: «v»", "secret_name: «v»")
L("env-var-names-only", "wordy", lambda rng: rng.choice(["STRIPE_SECRET_KEY", "OPENAI_API_KEY", "DATABASE_PASSWORD", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"]) + "_" + rs(rng, UPPER, 4),
  "Make sure «v» is set in your shell before running `make deploy`.", "KeyError: '«v»'")
L("password-min-length-setting", "wordy", lambda rng: f"PASSWORD_MIN_LENGTH={rng.randrange(8, 20)}",
  "«v»\nPASSWORD_REQUIRE_SYMBOL=true")
L("pg-hba-auth-method", "wordy", C("scram-sha-256", "md5 # legacy «low:4»"),
  "host    all    all    10.0.0.0/8    «v»")
L("oauth-auth-method", "wordy", C("client_secret_basic", "client_secret_post", "private_key_jwt"),
  '"token_endpoint_auth_methods_supported": ["«v»"]', "token_endpoint_auth_method: «v»")
L("api-key-header-name", "wordy", C("X-API-Key", "X-Auth-Token", "Ocp-Apim-Subscription-Key"),
  'API_KEY_HEADER_NAME = "«v»"  # header only, value comes from the vault')
L("terraform-sensitive", "wordy", C("(sensitive value)", "(sensitive value) # forces replacement"),
  '  ~ resource "aws_db_instance" "main" {\n      ~ password = «v»\n    }')
L("token-usage-counts", "wordy", lambda rng: f'"input_tokens": {rng.randrange(1000, 90000)}, "output_tokens": {rng.randrange(100, 8000)}',
  '"usage": {«v»}')
L("max-tokens-arg", "wordy", lambda rng: f"max_tokens={rng.choice([1024, 2048, 4096, 8192, 16384])}",
  "response = client.messages.create(model=MODEL, «v», messages=msgs)")
L("token-ids-list", "wordy", lambda rng: "[" + ", ".join(str(rng.randrange(100, 50000)) for _ in range(8)) + "]",
  "tokenizer.encode('password') -> «v»")
L("i18n-auth-keys", "wordy", C("auth.password.tooShort", "auth.token.expired", "errors.secret.notFound", "credentials.invalid"),
  't("«v»")', '"«v»": "Your password is too short"')
L("keyring-call", "wordy", C('keyring.get_password("acme-cli", user)', 'getpass.getpass("Password: ")'),
  "    pw = «v»")
L("docker-login-stdin", "wordy", C("--password-stdin", "--password-stdin <<< \"$CR_PAT\""),
  'echo "$CR_PAT" | docker login ghcr.io -u «first» «v»')
L("csp-nonce", "wordy", lambda rng: "nonce-" + b64_of(rbytes(rng, 16)),
  "Content-Security-Policy: script-src 'self' '«v»'")
L("credential-helper", "wordy", C("credential.helper=osxkeychain", "credential.helper=manager", "credential.helper=store"),
  "$ git config --list --show-origin | grep cred\nfile:/Users/dev/.gitconfig   «v»")
L("key-rotation-prose", "wordy", lambda rng: f"every {rng.choice([30, 60, 90])} days via the rotate-secrets workflow",
  "We rotate the signing key «v».")
L("auth-header-scheme-doc", "wordy", C("Authorization: Bearer <token>", "Authorization: Basic base64(user:password)"),
  "Send «v» with every request.")
L("ssh-keygen-banner", "wordy", C("Your identification has been saved in /home/dev/.ssh/id_ed25519",
                                  "Your public key has been saved in /home/dev/.ssh/id_ed25519.pub"),
  "Generating public/private ed25519 key pair.\n«v»")
L("hibp-prefix", "wordy", G("https://api.pwnedpasswords.com/range/", (HEXU, 5)),
  "GET «v» (k-anonymity: only the first 5 hex of the password's SHA-1 are sent)")

# ============================================================================================
# placeholder: placeholders, references, masked and truncated values
# ============================================================================================

L("angle-placeholder", "placeholder", C("<your-token-here>", "<YOUR_API_KEY>", "<paste-secret-here>", "<db-password>"),
  "curl -H 'Authorization: Bearer «v»' https://api.acme.io/v1/me", "API_KEY=«v»")
L("shell-var-reference", "placeholder", C("${API_KEY}", "$DB_PASSWORD", "${NPM_TOKEN:?missing}", "${SECRET_KEY:-}"),
  "password: «v»", "//registry.npmjs.org/:_authToken=«v»")
L("gha-secrets-expression", "placeholder", C("${{ secrets.NPM_TOKEN }}", "${{ secrets.GITHUB_TOKEN }}", "${{ secrets.DEPLOY_KEY }}"),
  "        env:\n          NODE_AUTH_TOKEN: «v»")
L("changeme-default", "placeholder", C("changeme", "change-me-in-prod", "CHANGE_ME_PLEASE"),
  "POSTGRES_PASSWORD=«v»  # default from docker-compose.example.yml")
L("helm-template-ref", "placeholder", C("{{ .Values.auth.password }}", "{{ include \"app.secretName\" . }}"),
  "  password: «v»")
L("python-env-lookup", "placeholder", C('os.environ["DB_PASSWORD"]', 'os.getenv("OPENAI_API_KEY")', 'settings.SECRET_KEY'),
  "password=«v»,")
L("js-env-lookup", "placeholder", C("process.env.JWT_SECRET", "import.meta.env.VITE_API_URL", "process.env.STRIPE_SECRET_KEY!"),
  "const secret = «v»;")
L("vault-path-ref", "placeholder", C("vault:secret/data/webapp#password", "op://Engineering/Postgres/password", "ref+awsssm://prod/db/password"),
  "DB_PASSWORD=«v»")
L("secretsmanager-arn", "placeholder", lambda rng: f"arn:aws:secretsmanager:eu-west-1:{rs(rng, DIGITS, 12)}:secret:prod/db-{rs(rng, ALNUM, 6)}",
  '"valueFrom": "«v»"')
L("masked-stars", "placeholder", C("****************", "••••••••••••", "**********«d:4»"),
  "password: «v»", "API key: «v» (hidden)")
L("truncated-key-display", "placeholder", lambda rng: rng.choice(["sk-...", "sk-proj-...", "ghp_...", "sk_live_..."]) + rs(rng, ALNUM, 4),
  "Using API key «v» (from ~/.config/tool/config.toml)")
L("gha-masked-log", "placeholder", C("DEPLOY_TOKEN: ***", "Authorization: Bearer ***"),
  "Run ./deploy.sh\n  env:\n    «v»")
L("compose-secret-file", "placeholder", C("/run/secrets/db_password", "/var/run/secrets/kubernetes.io/serviceaccount/token"),
  "POSTGRES_PASSWORD_FILE=«v»")
L("k8s-secretkeyref", "placeholder", C("secretKeyRef:\n    name: api-keys\n    key: stripe"),
  "- name: STRIPE_KEY\n  valueFrom:\n    «v»")
L("jinja-vault-var", "placeholder", C("{{ vault_db_password }}", "{{ lookup('env', 'API_TOKEN') }}"),
  "    db_password: \"«v»\"")
L("example-dotenv-line", "placeholder", C("SECRET_KEY=your-secret-key", "API_TOKEN=xxxxxxxxxxxxxxxx", "JWT_SECRET=replace_me"),
  "$ cat .env.example\n«v»\nDEBUG=true")

OUTSIDER2_LOOKALIKES: list[Kind] = LOOKS
check_unique_names(OUTSIDER2_LOOKALIKES)

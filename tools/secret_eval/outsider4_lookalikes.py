# ruff: noqa: E501  (a corpus: one kind, its renderings and its source a line each)
"""The fourth outsider's lookalikes: strings that look random, or stand next to credential words,
but are not secrets. Each must come back whole.

Written, like `outsider4_kinds.py`, without reading the redaction rules, their tests, the docs
about them or any earlier corpus's kinds. Families: git, container, lockfile, artifact (build
outputs, checksums), public (public keys, publishable keys, addresses, DNS records), id (object,
request and resource ids of many services), placeholder (masks, templates, variables), docs (schemas
and text about tokens and passwords), version (pins and versions), media (base64 media and other
encoded non-secrets), wordy (credential words beside non-credentials).
"""

from __future__ import annotations

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
    Kind,
    b64_of,
    check_unique_names,
    compose,
    rbytes,
    rs,
    sha1,
    sha256,
    uuid4,
    wrap,
)
from secret_eval.outsider4_kinds import BECH32, ORGS, PROJS, K, _with_excerpts

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"
B62 = ALNUM

LOOKS: list[Kind] = []


def L(name: str, family: str, make, *templates, source: str, se: bool = False) -> None:
    LOOKS.append(K("look-" + name, family, make, *templates, source=source, se=se))


def hexn(n: int):
    return lambda rng: rs(rng, HEX, n)


def colon_hex(n: int):
    return lambda rng: ":".join(rs(rng, HEXU, 2) for _ in range(n))


def ver(rng: random.Random) -> str:
    return f"{rng.randrange(0, 20)}.{rng.randrange(0, 40)}.{rng.randrange(0, 30)}"


# --- git ---------------------------------------------------------------------------------------
L("git-commit", "git", sha1, "commit «v»\nAuthor: «first» <«email»>\nDate:   Tue Feb 10 14:22:31 2026 +0100\n\n    fix: handle empty token list",
  source="git log")
L("git-oneline", "git", lambda rng: rs(rng, HEX, rng.randrange(10, 13)),
  "«v» (HEAD -> main, origin/main) refactor: move secret loading into config module", source="git log --oneline --decorate")
L("git-rev-parse", "git", sha1, "$ git rev-parse HEAD\n«v»", source="git rev-parse")
L("git-ls-tree", "git", sha1, "100644 blob «v»\tsrc/auth/token_store.py", source="git ls-tree")
L("git-diff-index", "git", lambda rng: f"{rs(rng, HEX, 10)}..{rs(rng, HEX, 10)}",
  "diff --git a/config/secrets.example.yml b/config/secrets.example.yml\nindex «v» 100644", source="git diff header")
L("gha-pinned", "git", sha1, "      - uses: actions/checkout@«v» # v4.2.2", source="a workflow pinning an action by SHA")
L("git-submodule", "git", sha1, " «v» vendor/libsodium (1.0.20-RELEASE)", source="git submodule status")
L("github-commit-url", "git", sha1, "see https://github.com/«org»/«proj»/commit/«v» for the fix", source="a GitHub commit URL")
L("git-signing-key", "git", lambda rng: rs(rng, HEXU, 40),
  "gpg: Signature made Tue Feb 10 14:22:31 2026 CET\ngpg:                using RSA key «v»\ngpg: Good signature from \"«first» <«email»>\"",
  source="git log --show-signature")
L("git-stash-ref", "git", sha1, "Saved working directory and index state WIP on main: «v» add token refresh", source="git stash output")

# --- containers --------------------------------------------------------------------------------
L("image-digest", "container", lambda rng: "sha256:" + sha256(rng), "    image: nginx@«v»", source="an image pinned by digest")
L("docker-ps", "container", hexn(12),
  "CONTAINER ID   IMAGE          COMMAND                  STATUS         NAMES\n«v»   postgres:16    \"docker-entrypoint.s…\"   Up 2 hours     db-1",
  source="docker ps")
L("container-id-full", "container", sha256, '[\n    {\n        "Id": "«v»",\n        "Created": "2026-02-10T13:01:22.5Z",', source="docker inspect")
L("buildkit-writing", "container", lambda rng: "sha256:" + sha256(rng), "#12 exporting to image\n#12 writing image «v» done", source="docker build output")
L("docker-pull-digest", "container", lambda rng: "sha256:" + sha256(rng), "Digest: «v»\nStatus: Downloaded newer image for redis:7.4", source="docker pull")
L("k8s-pod-name", "container", lambda rng: f"{rng.choice(PROJS)}-{rs(rng, HEX, 10)}-{rs(rng, 'bcdfghjklmnpqrstvwxz2456789', 5)}",
  "NAME                                 READY   STATUS    RESTARTS   AGE\n«v»   1/1     Running   0          3h", source="kubectl get pods")
L("k8s-uid", "container", uuid4, "metadata:\n  name: db-credentials\n  namespace: prod\n  uid: «v»\n  resourceVersion: \"«dig:7»\"",
  source="kubectl get secret -o yaml metadata (no data)")
L("oci-layer", "container", lambda rng: "sha256:" + sha256(rng), '{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "«v»", "size": «dig:7»}',
  source="an OCI manifest layer")

# --- lockfiles ---------------------------------------------------------------------------------
L("npm-integrity", "lockfile", lambda rng: "sha512-" + b64_of(rbytes(rng, 64)),
  '"node_modules/jsonwebtoken": {\n      "version": "9.0.2",\n      "resolved": "https://registry.npmjs.org/jsonwebtoken/-/jsonwebtoken-9.0.2.tgz",\n      "integrity": "«v»"',
  source="package-lock.json")
L("yarn-berry-checksum", "lockfile", hexn(128),
  '"dotenv@npm:^16.4.5":\n  version: 16.4.5\n  resolution: "dotenv@npm:16.4.5"\n  checksum: 10c0/«v»', source="yarn.lock (berry)")
L("pnpm-integrity", "lockfile", lambda rng: "sha512-" + b64_of(rbytes(rng, 64)),
  "  /secure-json-parse@2.7.0:\n    resolution: {integrity: «v»}", source="pnpm-lock.yaml")
L("cargo-checksum", "lockfile", sha256, '[[package]]\nname = "ring"\nversion = "0.17.8"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "«v»"',
  source="Cargo.lock")
L("go-sum", "lockfile", lambda rng: "h1:" + b64_of(rbytes(rng, 32)), "golang.org/x/crypto v0.31.0 «v»", source="go.sum")
L("poetry-hash", "lockfile", lambda rng: "sha256:" + sha256(rng),
  'files = [\n    {file = "cryptography-43.0.3-cp39-abi3-manylinux_2_28_x86_64.whl", hash = "«v»"},\n]', source="poetry.lock")
L("pip-hash", "lockfile", sha256, "pyjwt==2.10.1 \\\n    --hash=sha256:«v»", source="pip-compile --generate-hashes")
L("pipfile-lock", "lockfile", lambda rng: "sha256:" + sha256(rng), '"keyring": {\n    "hashes": [\n        "«v»"\n    ],\n    "version": "==25.5.0"\n}',
  source="Pipfile.lock")
L("composer-reference", "lockfile", sha1, '"source": {\n    "type": "git",\n    "url": "https://github.com/firebase/php-jwt.git",\n    "reference": "«v»"\n},',
  source="composer.lock")
L("flake-narhash", "lockfile", lambda rng: "sha256-" + b64_of(rbytes(rng, 32)),
  '"locked": {\n  "lastModified": 1738000000,\n  "narHash": "«v»",\n  "owner": "NixOS",\n  "repo": "nixpkgs",\n  "rev": "«hex:40»"\n}',
  source="flake.lock")
L("gemfile-checksum", "lockfile", sha256, "CHECKSUMS\n  bcrypt (3.1.20) sha256=«v»", source="Gemfile.lock CHECKSUMS (Bundler 2.6)")
L("gradle-verification", "lockfile", sha256, '<component group="io.jsonwebtoken" name="jjwt-api" version="0.12.6">\n   <artifact name="jjwt-api-0.12.6.jar">\n      <sha256 value="«v»" origin="Generated by Gradle"/>\n   </artifact>\n</component>',
  source="gradle/verification-metadata.xml")
L("sri-script", "lockfile", lambda rng: "sha384-" + b64_of(rbytes(rng, 48)),
  '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="«v»" crossorigin="anonymous"></script>',
  source="Subresource Integrity")
L("package-resolved", "lockfile", sha1, '{\n  "identity" : "swift-crypto",\n  "location" : "https://github.com/apple/swift-crypto.git",\n  "state" : {\n    "revision" : "«v»",\n    "version" : "3.10.0"\n  }\n}',
  source="Swift Package.resolved")
L("uv-lock", "lockfile", lambda rng: "sha256:" + sha256(rng),
  'sdist = { url = "https://files.pythonhosted.org/packages/.../python_dotenv-1.0.1.tar.gz", hash = "«v»", size = 39115 }', source="uv.lock")
L("terraform-lock", "lockfile", lambda rng: "h1:" + b64_of(rbytes(rng, 32)),
  'provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.82.2"\n  hashes = [\n    "«v»",\n    "zh:«hex:64»",\n  ]\n}',
  source=".terraform.lock.hcl")
L("npm-shasum", "lockfile", sha1, '"dist": {\n  "shasum": "«v»",\n  "tarball": "https://registry.npmjs.org/bcryptjs/-/bcryptjs-2.4.3.tgz"\n}', source="npm view --json dist")

# --- build artifacts and checksums -------------------------------------------------------------
L("sha256sum", "artifact", sha256, "«v»  dist/«proj»-1.4.2-linux-amd64.tar.gz", source="sha256sum output")
L("md5sum", "artifact", hexn(32), "$ md5sum backup.sql\n«v»  backup.sql", source="md5sum output")
L("sha512-checksums", "artifact", hexn(128), "SHA512 (node-v22.12.0-darwin-arm64.tar.gz) = «v»", source="BSD-style checksum line")
L("webpack-chunk", "artifact", lambda rng: f"main.{rs(rng, HEX, 20)}.js",
  "asset «v» 412 KiB [emitted] [immutable] [minimized] (name: main)", source="webpack output with contenthash")
L("vite-asset", "artifact", lambda rng: f"assets/index-{rs(rng, B64URL, 8)}.js", "dist/«v»   142.31 kB │ gzip: 45.80 kB",
  source="vite build output")
L("next-build-id", "artifact", lambda rng: rs(rng, B64URL, 21), "$ cat .next/BUILD_ID\n«v»", source="Next.js BUILD_ID")
L("nix-store-path", "artifact", lambda rng: f"/nix/store/{rs(rng, NIX32, 32)}-openssl-3.3.2", "«v»/bin/openssl", source="a Nix store path")
L("go-buildid", "artifact", lambda rng: "/".join(rs(rng, B64URL, 20) for _ in range(4)), "$ go tool buildid ./bin/server\n«v»",
  source="go tool buildid")
L("etag", "artifact", lambda rng: '"' + rs(rng, HEX, 32) + '"', "HTTP/2 200\ncontent-type: application/javascript\netag: «v»\ncache-control: max-age=31536000",
  source="an ETag response header")
L("s3-multipart-etag", "artifact", lambda rng: f"{rs(rng, HEX, 32)}-{rng.randrange(2, 40)}",
  '{\n    "Key": "backups/«proj».tar.zst",\n    "ETag": "\\"«v»\\"",\n    "Size": «dig:9»\n}', source="aws s3api list-objects output")
L("content-md5", "artifact", lambda rng: b64_of(rbytes(rng, 16)), "Content-MD5: «v»", source="Content-MD5 header")
L("css-module", "artifact", lambda rng: f"page_title__{rs(rng, B64URL, 5)} styles_card__{rs(rng, B64URL, 5)}", '<h1 class="«v»">Settings</h1>',
  source="Next.js CSS module class names")
L("cert-fingerprint", "artifact", colon_hex(32), "SHA256 Fingerprint=«v»", source="openssl x509 -fingerprint -sha256")
L("apk-signing-cert", "artifact", colon_hex(20), "Signer #1 certificate SHA-1 digest: «v»", source="apksigner verify --print-certs (SHA-1 with colons)")
L("sourcemap-mappings", "artifact", lambda rng: ";".join(",".join(rs(rng, B64, rng.randrange(4, 8)) for _ in range(5)) for _ in range(4)),
  '{"version":3,"file":"main.js","sources":["src/main.ts"],"names":[],"mappings":"«v»"}', source="a source map")
L("gha-cache-key", "artifact", lambda rng: f"Linux-node-{sha256(rng)}", "Cache restored from key: «v»", source="actions/cache log")
L("ccache-stat", "artifact", hexn(40), "Running build with remote cache key «v» (hit)", source="a build cache key")

# --- public keys, publishable keys, addresses, DNS records -------------------------------------
L("ssh-ed25519-pub", "public", lambda rng: "AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(rng, B64, 43),
  "ssh-ed25519 «v» «first»@laptop", source="an OpenSSH public key")
L("ssh-rsa-authorized", "public", lambda rng: "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + rs(rng, B64, 512),
  'command="/usr/local/bin/backup-only",no-pty ssh-rsa «v» backup@«org»', source="an authorized_keys line")
L("known-hosts-hashed", "public", lambda rng: f"|1|{b64_of(rbytes(rng, 20))}|{b64_of(rbytes(rng, 20))}",
  "«v» ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB«an:60»=", source="a hashed known_hosts line")
L("ssh-fingerprint", "public", lambda rng: "SHA256:" + b64_of(rbytes(rng, 32), pad=False),
  "ED25519 key fingerprint is «v».\nAre you sure you want to continue connecting (yes/no/[fingerprint])?", source="ssh first connection")
L("pgp-public-block", "public", lambda rng: wrap("mDMEZ" + b64_of(rbytes(rng, 300)), 64),
  "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n«v»\n=«an:4»\n-----END PGP PUBLIC KEY BLOCK-----", source="gpg --export --armor")
L("pgp-fingerprint", "public", lambda rng: " ".join(rs(rng, HEXU, 4) for _ in range(10)),
  "pub   ed25519 2024-03-01 [SC]\n      «v»\nuid           [ultimate] «first» <«email»>", source="gpg --list-keys --fingerprint")
L("x509-cert", "public", lambda rng: wrap("MIIDdzCCAl+gAwIBAgIU" + b64_of(rbytes(rng, 860)), 64),
  "-----BEGIN CERTIFICATE-----\n«v»\n-----END CERTIFICATE-----", source="a PEM certificate (public)")
L("age-recipient", "public", compose("age1", (BECH32, 58)), "creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: «v»", source=".sops.yaml age recipient")
L("wireguard-peer-pub", "public", lambda rng: b64_of(rbytes(rng, 32)), "[Peer]\nPublicKey = «v»\nAllowedIPs = 10.8.0.0/24", source="a WireGuard peer public key")
L("jwks-n", "public", lambda rng: b64_of(rbytes(rng, 256), url=True, pad=False),
  '{"keys":[{"kty":"RSA","use":"sig","kid":"«an:12»","alg":"RS256","e":"AQAB","n":"«v»"}]}', source="a public JWKS (n, e only)")
L("eth-address", "public", lambda rng: "0x" + "".join(c.upper() if rng.random() < 0.5 else c for c in rs(rng, HEX, 40)),
  "send the test ETH to «v» (the faucet wallet)", source="an EIP-55 Ethereum address")
L("btc-address", "public", compose("bc1q", (BECH32, 38)), "Donations: «v»", source="a bech32 Bitcoin address")
L("tx-hash", "public", lambda rng: "0x" + sha256(rng), "Transaction sent: «v»\nWaiting for 2 confirmations...", source="an Ethereum tx hash")
L("ipfs-cid", "public", compose("bafybei", (BECH32.replace("0", "").replace("1", ""), 52)), "ipfs://«v»/metadata.json", source="an IPFS CIDv1")
L("nostr-npub", "public", compose("npub1", (BECH32, 58)), "follow me on nostr: «v»", source="NIP-19 npub")
L("minisign-pub", "public", lambda rng: "RWQ" + b64_of(rbytes(rng, 39)),
  "minisign -Vm release.tar.gz -P «v»", source="a minisign public key")
L("stripe-publishable", "public", compose("pk_live_51", (ALNUM, 97)),
  "const stripe = Stripe('«v»');", source="Stripe publishable keys (meant for the browser)")
L("stripe-pk-test", "public", compose("pk_test_51", (ALNUM, 97)), "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=«v»", source="Stripe test publishable key")
L("mapbox-public", "public", lambda rng: "pk.eyJ1IjoiY" + rs(rng, B64URL, 50) + "." + rs(rng, B64URL, 22),
  "mapboxgl.accessToken = '«v»';", source="Mapbox public tokens pk.")
L("posthog-project", "public", compose("phc_", (ALNUM, 43)), "posthog.init('«v»', { api_host: 'https://eu.i.posthog.com' })",
  source="PostHog project API key (public)")
L("clerk-publishable", "public", lambda rng: "pk_live_" + b64_of(f"clerk.{rng.choice(ORGS)}{rs(rng, LOWER, 4)}.com$".encode()).rstrip("="),
  "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=«v»", source="Clerk publishable keys")
L("google-client-id", "public", lambda rng: f"{rs(rng, DIGITS, 12)}-{rs(rng, LALNUM, 32)}.apps.googleusercontent.com",
  '<div id="g_id_onload" data-client_id="«v»" data-login_uri="https://«org».com/login">', source="Google Identity client id")
L("github-app-client-id", "public", compose("Iv23li", (ALNUM, 14)), "GITHUB_APP_CLIENT_ID=«v»", source="GitHub App client IDs")
L("langfuse-public", "public", lambda rng: "pk-lf-" + uuid4(rng), "LANGFUSE_PUBLIC_KEY=«v»", source="Langfuse public key")
L("recaptcha-sitekey", "public", compose("6L", (B64URL, 38)), '<div class="g-recaptcha" data-sitekey="«v»"></div>', source="reCAPTCHA site key")
L("turnstile-sitekey", "public", compose("0x4AAAAAAA", (B64URL, 14)), '<div class="cf-turnstile" data-sitekey="«v»"></div>', source="Cloudflare Turnstile site key")
L("vapid-public", "public", lambda rng: b64_of(b"\x04" + rbytes(rng, 64), url=True, pad=False),
  "const applicationServerKey = urlBase64ToUint8Array('«v»');", source="Web Push VAPID public key")
L("dkim-record", "public", lambda rng: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + rs(rng, B64, 300),
  'selector1._domainkey.«org».com. 3600 IN TXT "v=DKIM1; k=rsa; p=«v»"', source="a DKIM public key in DNS")
L("site-verification", "public", lambda rng: "google-site-verification=" + rs(rng, B64URL, 43),
  '«org».com.  300  IN  TXT  "«v»"', source="a DNS verification TXT record")
L("acme-challenge", "public", lambda rng: rs(rng, B64URL, 43), "GET /.well-known/acme-challenge/«v» HTTP/1.1\" 200", source="an ACME http-01 challenge request")
L("csp-nonce", "public", lambda rng: b64_of(rbytes(rng, 16)), "Content-Security-Policy: script-src 'self' 'nonce-«v»'", source="a CSP nonce")

# --- ids of many services ----------------------------------------------------------------------
L("request-id", "id", uuid4, "HTTP/1.1 500 Internal Server Error\nX-Request-Id: «v»\nContent-Type: application/json", source="X-Request-Id")
L("amzn-request-id", "id", uuid4, "An error occurred (AccessDenied) when calling the GetObject operation: Access Denied (RequestId: «v»)",
  source="an AWS error with its request id")
L("traceparent", "id", lambda rng: f"00-{rs(rng, HEX, 32)}-{rs(rng, HEX, 16)}-01", "traceparent: «v»", source="W3C Trace Context")
L("ulid", "id", compose("01J", (CROCKFORD, 23)), '{"event_id": "«v»", "type": "user.login"}', source="a ULID")
L("ksuid", "id", compose((B62, 27)), "job «v» enqueued on queue=default", source="a KSUID")
L("nanoid", "id", compose((B64URL, 21)), "https://share.«org».com/s/«v»", source="a nanoid share link")
L("mongo-objectid", "id", hexn(24), '{ _id: ObjectId("«v»"), email: "«email»", role: "admin" }', source="a MongoDB document")
L("stripe-customer", "id", compose("cus_", (ALNUM, 14)), "Customer «v» has 2 active subscriptions", source="Stripe object ids")
L("stripe-payment-intent", "id", compose("pi_3", (ALNUM, 23)), '{"id": "«v»", "object": "payment_intent", "amount": 2000, "status": "succeeded"}',
  source="Stripe PaymentIntent id")
L("stripe-event", "id", compose("evt_1", (ALNUM, 23)), "Received event «v» type=invoice.paid", source="Stripe event id")
L("openai-chatcmpl", "id", compose("chatcmpl-", (ALNUM, 29)), '{"id": "«v»", "object": "chat.completion", "model": "gpt-4o-2024-08-06"}',
  source="OpenAI completion id")
L("openai-resp", "id", lambda rng: "resp_" + rs(rng, HEX, 48), '{"id": "«v»", "object": "response", "status": "completed"}', source="OpenAI Responses id")
L("openai-file", "id", compose("file-", (ALNUM, 22)), "Uploaded training file: «v» (purpose=fine-tune)", source="OpenAI file id")
L("anthropic-msg", "id", compose("msg_01", (ALNUM, 22)), '{"id": "«v»", "type": "message", "role": "assistant", "stop_reason": "end_turn"}',
  source="Anthropic message id")
L("anthropic-toolu", "id", compose("toolu_01", (ALNUM, 22)), '{"type": "tool_result", "tool_use_id": "«v»", "content": "ok"}', source="Anthropic tool use id")
L("anthropic-req", "id", compose("req_011C", (ALNUM, 18)), "anthropic.RateLimitError: Error code: 429 (request_id: «v»)", source="Anthropic request id")
L("slack-ids", "id", lambda rng: f"C0{rs(rng, UALNUM, 9)}", "posted to channel «v» at ts 17«dig:8».«dig:6»", source="Slack channel id")
L("discord-snowflake", "id", lambda rng: str(rng.randrange(10**17, 10**19)), "guild_id=«v» channel_id=«dig:19»", source="Discord snowflakes")
L("aws-arn-role", "id", lambda rng: f"arn:aws:iam::{rs(rng, DIGITS, 12)}:role/{rng.choice(PROJS)}-deployer",
  "role-to-assume: «v»", source="an IAM role ARN")
L("ec2-instance", "id", compose("i-0", (HEX, 16)), "Stopping instance «v» (t3.large) in «region»", source="EC2 instance id")
L("ami-sg-vpc", "id", lambda rng: f"ami-0{rs(rng, HEX, 16)}", 'ami           = "«v»"\nvpc_security_group_ids = ["sg-0«hex:16»"]', source="AMI and security group ids")
L("azure-resource-id", "id", lambda rng: f"/subscriptions/{uuid4(rng)}/resourceGroups/rg-{rng.choice(PROJS)}/providers/Microsoft.KeyVault/vaults/kv-{rng.choice(ORGS)}",
  "az keyvault show --id «v»", source="an Azure resource id")
L("gcp-sa-email", "id", lambda rng: f"{rng.choice(PROJS)}-sa@{rng.choice(PROJS)}-{rs(rng, DIGITS, 6)}.iam.gserviceaccount.com",
  "gcloud projects add-iam-policy-binding p --member=serviceAccount:«v» --role=roles/storage.objectViewer", source="a service account email")
L("cloudfront-id", "id", compose("E", (UALNUM, 13)), "aws cloudfront create-invalidation --distribution-id «v» --paths '/*'", source="CloudFront distribution id")
L("route53-zone", "id", compose("Z0", (UALNUM, 19)), "HostedZoneId: «v»", source="Route 53 hosted zone id")
L("google-doc-url", "id", lambda rng: "1" + rs(rng, B64URL, 43), "spec is here: https://docs.google.com/document/d/«v»/edit", source="a Google Docs URL")
L("youtube-url", "id", lambda rng: rs(rng, B64URL, 11), "https://www.youtube.com/watch?v=«v»&t=42s", source="a YouTube URL")
L("notion-url", "id", hexn(32), "https://www.notion.so/«org»/Onboarding-Checklist-«v»", source="a Notion page URL")
L("figma-url", "id", compose((ALNUM, 22)), "https://www.figma.com/design/«v»/Checkout-Flow?node-id=12-3456", source="a Figma file URL")
L("airtable-ids", "id", lambda rng: f"app{rs(rng, ALNUM, 14)}/tbl{rs(rng, ALNUM, 14)}", "https://airtable.com/«v»/viw«an:14»", source="Airtable base/table ids")
L("spotify-track", "id", compose((B62, 22)), "https://open.spotify.com/track/«v»?si=«hex:16»", source="a Spotify link")
L("place-id", "id", compose("ChIJ", (B64URL, 23)), '{"place_id": "«v»", "name": "Brandenburger Tor"}', source="a Google Maps place_id")
L("vercel-preview", "id", lambda rng: f"{rng.choice(PROJS)}-{rs(rng, LALNUM, 9)}-{rng.choice(ORGS)}.vercel.app",
  "✅  Preview: https://«v» [3s]", source="a Vercel preview URL")
L("netlify-deploy", "id", hexn(24), "Deploy is live!\nUnique deploy URL: https://«v»--«proj».netlify.app", source="netlify deploy output")
L("sentry-event", "id", hexn(32), "Sentry event «v» captured (level=error)", source="a Sentry event id")
L("cognito-pool", "id", lambda rng: f"{rng.choice(['us-east-1', 'eu-west-1'])}_{rs(rng, ALNUM, 9)}", "userPoolId: '«v»',", source="a Cognito user pool id")
L("apple-team", "id", lambda rng: f"{rs(rng, UALNUM, 10)}.com.{rng.choice(ORGS)}.app", "application-identifier: «v»", source="an Apple app identifier")
L("claude-session", "id", uuid4, "claude --resume «v»", source="a Claude Code session id")
L("azure-client-id", "id", uuid4, "AZURE_CLIENT_ID=«v»\nAZURE_TENANT_ID=«uuid»", source="Entra app (client) id and tenant id (not secrets)")
L("aws-account-id", "id", lambda rng: rs(rng, DIGITS, 12), "AWS_ACCOUNT_ID=«v»\nAWS_REGION=«region»", source="an AWS account id")
L("kms-key-arn", "id", lambda rng: f"arn:aws:kms:us-east-1:{rs(rng, DIGITS, 12)}:key/{uuid4(rng)}", "kms_key_id = \"«v»\"", source="a KMS key ARN")
L("secretsmanager-arn", "id", lambda rng: f"arn:aws:secretsmanager:eu-west-1:{rs(rng, DIGITS, 12)}:secret:prod/db/password-{rs(rng, ALNUM, 6)}",
  'valueFrom: "«v»"', source="a Secrets Manager ARN (a reference, not the secret)")
L("hf-revision", "id", sha1, "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/«v»/config.json", source="a Hugging Face revision")
L("chrome-extension", "id", lambda rng: rs(rng, "abcdefghijklmnop", 32), "chrome-extension://«v»/popup.html", source="a Chrome extension id")
L("tailnet-name", "id", lambda rng: f"{rng.choice(PROJS)}.tail{rs(rng, HEX, 5)}.ts.net", "ssh deploy@«v»", source="a Tailscale MagicDNS name")
L("message-id", "id", lambda rng: f"<CA{rs(rng, B64URL, 40)}@mail.gmail.com>", "Message-ID: «v»", source="an email Message-ID")
L("gh-run-url", "id", lambda rng: str(rng.randrange(10**10, 10**11)), "https://github.com/«org»/«proj»/actions/runs/«v»/job/«dig:11»", source="a GitHub Actions run URL")

# --- placeholders, masks, variables ------------------------------------------------------------
L("openai-masked", "placeholder", lambda rng: "sk-proj-..." + rs(rng, ALNUM, 4), "Name: ci-bot   Secret key: «v»   Created: «date»",
  source="OpenAI dashboard key list (masked)")
L("stars-masked", "placeholder", lambda rng: "sk-" + "*" * rng.randrange(20, 40) + rs(rng, ALNUM, 4), "OPENAI_API_KEY=«v» (masked in logs)", source="a starred key")
L("bullets-masked", "placeholder", lambda rng: "sk_live_" + "•" * 12 + rs(rng, DIGITS, 4), "Secret key  «v»  Reveal live key", source="Stripe dashboard mask")
L("your-key-here", "placeholder", lambda rng: rng.choice(["<your-api-key>", "YOUR_API_KEY_HERE", "your_api_key_here", "<INSERT_TOKEN>"]) + rs(rng, DIGITS, 0),
  "OPENAI_API_KEY=«v»\nANTHROPIC_API_KEY=«v»", source=".env.example placeholders")
L("ghp-xxx", "placeholder", lambda rng: "ghp_" + rng.choice("Xx") * 36, "export GITHUB_TOKEN=«v»  # replace with your token", source="a docs placeholder token")
L("stars-password", "placeholder", lambda rng: "*" * rng.randrange(8, 16), "Password: «v»\nConfirm:  «v»", source="a masked password field")
L("env-reference", "placeholder", lambda rng: "${" + rng.choice(["DB_PASSWORD", "POSTGRES_PASSWORD", "REDIS_PASSWORD", "API_TOKEN"]) + "}",
  "services:\n  api:\n    environment:\n      DB_PASSWORD: «v»", source="compose variable interpolation")
L("helm-template", "placeholder", lambda rng: "{{ .Values." + rng.choice(["db", "auth", "redis"]) + ".password | b64enc | quote }}",
  "data:\n  password: «v»", source="a Helm template")
L("gha-secrets-ref", "placeholder", lambda rng: "${{ secrets." + rng.choice(["NPM_TOKEN", "PYPI_API_TOKEN", "DOCKERHUB_TOKEN"]) + " }}",
  "        env:\n          NODE_AUTH_TOKEN: «v»", source="GitHub Actions secrets context")
L("redacted-markers", "placeholder", lambda rng: rng.choice(["[REDACTED]", "[FILTERED]", "<redacted>", "[MASKED]"]),
  'Parameters: {"user"=>{"email"=>"«email»", "password"=>"«v»"}}', source="Rails parameter filtering")
L("pip-masked-url", "placeholder", lambda rng: f"https://{rng.choice(['deploy', 'ci'])}:****@nexus.{rng.choice(ORGS)}.internal/repository/pypi/simple",
  "Looking in indexes: «v»", source="pip masks index credentials")
L("celery-banner", "placeholder", lambda rng: f"amqp://{rng.choice(['guest', 'app'])}:**@{rng.choice(['localhost', 'rabbitmq'])}:5672//",
  "- ** ---------- .> transport:   «v»\n- ** ---------- .> results:     redis://redis:6379/1", source="celery worker banner")
L("aws-docs-example", "placeholder", lambda rng: rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
  "aws_access_key_id = «v»", source="AWS documentation's example credentials")
L("bearer-placeholder", "placeholder", lambda rng: rng.choice(["Bearer <token>", "Bearer $TOKEN", "Bearer ${ACCESS_TOKEN}", "Bearer {{token}}"]),
  "curl -H 'Authorization: «v»' https://api.«org».com/v1/me", source="docs showing where a token goes")
L("docker-secret-file", "placeholder", lambda rng: f"/run/secrets/{rng.choice(['db_password', 'api_key', 'jwt_secret'])}",
  "POSTGRES_PASSWORD_FILE=«v»", source="the _FILE convention of official images")
L("gha-masked-log", "placeholder", lambda rng: "Login Succeeded for ***@" + rng.choice(ORGS) + ".io",
  "Run docker/login-action@v3\n«v»", source="a GitHub Actions log with a masked value")

# --- docs and schema text about tokens and passwords ------------------------------------------
L("openapi-security", "docs", lambda rng: "bearerFormat: JWT",
  "components:\n  securitySchemes:\n    bearerAuth:\n      type: http\n      scheme: bearer\n      «v»", source="OpenAPI security scheme")
L("llm-usage", "docs", lambda rng: f'"input_tokens": {rng.randrange(1000, 90000)}, "output_tokens": {rng.randrange(100, 9000)}',
  '"usage": {«v», "cache_read_input_tokens": 0}', source="an LLM usage block")
L("max-tokens", "docs", lambda rng: f"max_tokens={rng.choice([1024, 4096, 8192, 16384])}, temperature=0.{rng.randrange(10)}",
  "resp = client.messages.create(model=\"claude-sonnet-4-5\", «v», messages=msgs)", source="model parameters")
L("json-schema-key", "docs", lambda rng: '"pattern": "^[a-f0-9]{' + str(rng.choice([32, 40, 64])) + '}$"',
  '"api_key": {\n  "type": "string",\n  «v»,\n  "description": "Your secret API key"\n}', source="a JSON schema for a key field")
L("token-format-docs", "docs", lambda rng: f"a {rng.choice([36, 40, 64])}-character string",
  "The token is «v» that starts with a vendor prefix; treat it like a password.", source="docs prose about a format")
L("tf-sensitive-var", "docs", lambda rng: 'variable "' + rng.choice(["db_password", "api_token", "admin_secret"]) + '"',
  '«v» {\n  type      = string\n  sensitive = true\n}', source="a Terraform variable declaration")
L("secret-key-ref", "docs", lambda rng: f"name: {rng.choice(PROJS)}-db-credentials",
  "        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              «v»\n              key: password", source="a k8s secretKeyRef")
L("rails-filter-params", "docs", lambda rng: ":passw, :email, :secret, :token, :_key, :crypt, :salt, :certificate, :otp, :ssn",
  "Rails.application.config.filter_parameters += [\n  «v»\n]", source="Rails filter_parameter_logging.rb")
L("password-policy", "docs", lambda rng: f"PASSWORD_MIN_LENGTH={rng.randrange(10, 17)}",
  "«v»\nPASSWORD_REQUIRE_SYMBOL=true\nTOKEN_TTL_SECONDS=3600", source="password policy settings")
L("token-endpoint", "docs", lambda rng: rng.choice(["https://oauth2.googleapis.com/token", "https://login.microsoftonline.com/common/oauth2/v2.0/token",
                                                     "https://github.com/login/oauth/access_token"]),
  '"token_endpoint": "«v»",', source="OAuth discovery document")
L("password-hashers", "docs", lambda rng: '"django.contrib.auth.hashers.Argon2PasswordHasher"',
  "PASSWORD_HASHERS = [\n    «v»,\n    \"django.contrib.auth.hashers.PBKDF2PasswordHasher\",\n]", source="Django PASSWORD_HASHERS")
L("required-env-names", "docs", lambda rng: ", ".join(rng.sample(["STRIPE_SECRET_KEY", "DATABASE_URL", "JWT_SECRET", "OPENAI_API_KEY", "SENTRY_DSN"], 3)),
  "Error: missing required environment variables: «v»", source="a startup error naming variables")
L("gpg-key-id", "docs", lambda rng: "rsa4096/" + rs(rng, HEXU, 16), "sec   «v» 2023-05-01 [SC] [expires: 2027-05-01]", source="gpg --list-secret-keys --keyid-format long (ids only)")
L("kid-header", "docs", lambda rng: rs(rng, B64URL, 27), '{"alg":"RS256","kid":"«v»","typ":"JWT"}', source="a decoded JWT header (kid)")
L("token-expired-msg", "docs", lambda rng: f"token expired at {rng.randrange(10, 23)}:{rng.randrange(10, 59)} UTC",
  '401 Unauthorized: {"error": "invalid_token", "error_description": "The access «v»"}', source="an OAuth error")
L("oauth-response-noval", "docs", lambda rng: f'"token_type": "Bearer", "expires_in": {rng.randrange(3000, 4000)}, "scope": "repo read:org"',
  "{«v»}", source="an OAuth response without the token")

# --- versions and pins ------------------------------------------------------------------------
L("package-json-deps", "version", lambda rng: f'"jsonwebtoken": "^{ver(rng)}", "bcrypt": "^{ver(rng)}"',
  '"dependencies": {\n    «v»\n  }', source="package.json")
L("semver-build", "version", lambda rng: f"{ver(rng)}+build.{rs(rng, HEX, 7)}", "«proj» version «v» (go1.23.4 linux/amd64)", source="semver build metadata")
L("docker-tag", "version", lambda rng: f"node:{rng.randrange(18, 24)}.{rng.randrange(0, 15)}.{rng.randrange(0, 5)}-alpine3.{rng.randrange(18, 21)}",
  "FROM «v» AS build", source="a Dockerfile base image")
L("go-pseudo", "version", lambda rng: f"v0.0.0-2024{rs(rng, DIGITS, 10)}-{rs(rng, HEX, 12)}", "require golang.org/x/oauth2 «v»", source="Go pseudo-versions")
L("scm-dev-version", "version", lambda rng: f"{ver(rng)}.dev{rng.randrange(1, 90)}+g{rs(rng, HEX, 9)}", "Successfully installed «proj»-«v»",
  source="setuptools_scm versions")
L("maven-snapshot", "version", lambda rng: f"1.{rng.randrange(0, 9)}.0-2024{rs(rng, DIGITS, 4)}.{rs(rng, DIGITS, 6)}-{rng.randrange(1, 9)}",
  "Downloaded from snapshots: https://nexus.«org».internal/repository/snapshots/com/«org»/core/1.0-SNAPSHOT/core-«v».jar",
  source="Maven timestamped snapshot")
L("python-pins", "version", lambda rng: f"cryptography=={rng.randrange(38, 45)}.0.{rng.randrange(0, 5)}\npyjwt[crypto]=={ver(rng)}",
  "# requirements.txt\n«v»\nrequests==2.32.3", source="requirements.txt")

# --- base64 media and other encoded non-secrets ----------------------------------------------
L("data-png", "media", lambda rng: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + b64_of(rbytes(rng, 180)),
  '<img alt="logo" src="«v»">', source="an inline PNG")
L("data-woff2", "media", lambda rng: "data:font/woff2;base64,d09GMgABAAAAA" + b64_of(rbytes(rng, 240)),
  "@font-face { font-family: 'Inter'; src: url(«v») format('woff2'); }", source="an inline font")
L("svg-path", "media", lambda rng: "M" + " ".join(f"{rng.randrange(0, 24)}.{rng.randrange(10, 99)} {rng.randrange(0, 24)}.{rng.randrange(10, 99)}" for _ in range(8)) + "Z",
  '<path fill-rule="evenodd" d="«v»"/>', source="SVG path data")
L("base64-gif", "media", lambda rng: "R0lGODlh" + b64_of(rbytes(rng, 60)), "background: url(data:image/gif;base64,«v»);", source="an inline GIF")
L("mac-address", "media", lambda rng: ":".join(rs(rng, "0123456789abcdef", 2) for _ in range(6)), "link/ether «v» brd ff:ff:ff:ff:ff:ff", source="ip link output")
L("ipv6", "media", lambda rng: "2001:db8:" + ":".join(rs(rng, HEX, 4) for _ in range(6)), "inet6 «v»/64 scope global dynamic", source="ip addr output")

# --- credential words beside non-credentials ---------------------------------------------------
L("password-reset-id", "wordy", uuid4, "Password reset requested for «email» (request id «v»)", source="an app log")
L("token-count", "wordy", lambda rng: f"{rng.randrange(10, 999)},{rs(rng, DIGITS, 3)} tokens", "Context: «v» used of 200k (token budget)", source="LLM context meter")
L("ratelimit-tokens", "wordy", lambda rng: f"x-ratelimit-remaining-tokens: {rng.randrange(10000, 2000000)}", "«v»\nx-ratelimit-reset-tokens: 6ms", source="OpenAI rate-limit headers")
L("password-stdin-noval", "wordy", lambda rng: f"--password-stdin {rng.choice(['ghcr.io', 'registry.gitlab.com', 'docker.io'])}",
  'echo "$CR_PAT" | docker login -u «user» «v»', source="docker login with a variable")
L("aws-key-var", "wordy", lambda rng: "${" + rng.choice(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]) + "}", "aws_secret_access_key = «v»", source="a variable reference")
L("secret-name", "wordy", lambda rng: f"{rng.choice(PROJS)}-{rng.choice(['db', 'api', 'smtp'])}-credentials-{rs(rng, LALNUM, 5)}",
  "kubectl get secret «v» -n prod -o jsonpath='{.metadata.creationTimestamp}'", source="a secret's name")
L("react-key", "wordy", lambda rng: f"key={{`row-${{{rng.choice(['item', 'row', 'user'])}.id}}`}}", "<TableRow «v» data={row} />", source="a React key prop")
L("token-in-identifier", "wordy", lambda rng: rng.choice(["refreshTokenExpiresAt", "validateApiKeyFormat", "hashPasswordWithArgon2", "rotateSigningSecret"]) + rs(rng, DIGITS, 0),
  "export async function «v»(input: string): Promise<boolean> {", source="function names with credential words")
L("keycloak-realm", "wordy", lambda rng: f"realm={rng.choice(ORGS)}&client_id={rng.choice(PROJS)}-web&response_type=code",
  "https://sso.«org».com/realms/«org»/protocol/openid-connect/auth?«v»", source="an OIDC auth request (no secret)")
L("image-pull-secret", "wordy", lambda rng: f"imagePullSecrets:\n        - name: {rng.choice(['regcred', 'ghcr-pull', 'ecr-creds'])}",
  "      «v»", source="imagePullSecrets names")
L("apikey-last4", "wordy", lambda rng: f"key ending in {rs(rng, ALNUM, 4)} (created {rng.randrange(2, 28)} days ago)",
  "Active API key: «v»", source="a dashboard listing")
L("hash-algo-text", "wordy", lambda rng: "$argon2id$v=19$m=65536,t=3,p=4",
  "password_hash format: «v»$<salt>$<hash>", source="docs of a hash format (no hash)")

OUTSIDER4_LOOKALIKES: list[Kind] = _with_excerpts(LOOKS)
check_unique_names(OUTSIDER4_LOOKALIKES)

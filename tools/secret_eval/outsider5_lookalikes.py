# ruff: noqa: E501
"""The fifth outsider's lookalikes: random-looking strings that are not credentials (ids, digests,
content addresses, lockfile integrity values, public and publishable keys, fingerprints, ciphertext
meant to be committed, placeholders and masked values, credential words beside non-secrets, build
and git output). Each must come back unaltered. Values hold no quote, backslash or newline."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
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
    mixed,
    rbytes,
    rs,
    sha1,
    sha256,
    uuid4,
)
from secret_eval.outsider5_kinds import B32U, B58, BECH32, K, fill  # noqa: F401

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def L(name: str, family: str, make: Callable[[random.Random], str], *templates, source: str) -> Kind:
    return K(name, family, make, *templates, source=source)


def hexn(n: int) -> Callable[[random.Random], str]:
    return lambda rng: rs(rng, HEX, n)


def const(*values: str) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(values)


def uuid7(rng: random.Random) -> str:
    h = f"{1767225600000 + rng.randrange(10**10):012x}" + rs(rng, HEX, 20)
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:32]}"


def ulid(rng: random.Random) -> str:
    return "01J" + rs(rng, CROCKFORD, 23)


def sri(alg: str, n: int) -> Callable[[random.Random], str]:
    return lambda rng: f"{alg}-" + b64_of(rbytes(rng, n))


def masked(prefix: str, stars: int) -> Callable[[random.Random], str]:
    return lambda rng: prefix + "*" * stars + rs(rng, ALNUM, 4)


def jwt_anon(rng: random.Random) -> str:
    h = b64_of(b'{"alg":"HS256","typ":"JWT"}', url=True, pad=False)
    p = b64_of(json.dumps({"iss": "supabase", "ref": rs(rng, LOWER, 20), "role": "anon", "iat": 1738000000 + rng.randrange(10**6), "exp": 2053000000 + rng.randrange(10**6)},
                          separators=(",", ":")).encode(), url=True, pad=False)
    return f"{h}.{p}.{b64_of(rbytes(rng, 32), url=True, pad=False)}"


LOOKS = [
    # --- git ---------------------------------------------------------------------------------------
    L("git-log-full-sha", "git", sha1, "commit «v»\nAuthor: «name» <«email»>\nDate:   Tue Feb 3 10:14:02 2026 +0100\n\n    fix: handle empty cart", "commit «v»",
      source="git log"),
    L("git-rev-parse", "git", sha1, "$ git rev-parse HEAD\n«v»", source="git rev-parse"),
    L("git-oneline-abbrev12", "git", hexn(12), "«v» (HEAD -> main, origin/main) chore: bump deps\n«hex:12» feat: add retry to webhook sender", source="git log --oneline --abbrev=12"),
    L("git-ls-tree", "git", sha1, "100644 blob «v»\tsrc/«app»/settings.py\n040000 tree «hex:40»\tsrc/«app»/migrations", source="git ls-tree"),
    L("git-push-range", "git", lambda r: rs(r, HEX, 10) + ".." + rs(r, HEX, 10), "To github.com:«org»/«app».git\n   «v»  main -> main", source="git push output"),
    L("git-describe", "git", lambda r: f"v{r.randrange(1, 5)}.{r.randrange(20)}.{r.randrange(10)}-{r.randrange(1, 90)}-g{rs(r, HEX, 12)}", "$ git describe --tags --abbrev=12\n«v»", source="git describe"),
    L("git-commit-url", "git", sha1, "see https://github.com/«org»/«app»/commit/«v» for the fix", source="GitHub commit URL"),
    L("git-lfs-pointer-oid", "git", sha256, "version https://git-lfs.github.com/spec/v1\noid sha256:«v»\nsize «num:7»", source="Git LFS pointer file"),
    L("git-dangling-blob", "git", sha1, "$ git fsck --lost-found\nChecking object directories: 100% (256/256), done.\ndangling blob «v»", source="git fsck"),
    L("git-gpgsig-line", "git", lambda r: "iQIzBAABCgAdFiEE" + mixed(r, B64, 48), "gpgsig -----BEGIN PGP SIGNATURE-----\n \n «v»\n «alnum:64»\n =«alnum:4»\n -----END PGP SIGNATURE-----", source="signed commit object (public signature)"),
    L("git-submodule-status", "git", sha1, "$ git submodule status\n «v» vendor/«app»-proto (v«ver»)", source="git submodule status"),
    # --- containers ---------------------------------------------------------------------------------
    L("docker-pull-digest", "containers", sha256, "«ver»: Pulling from library/postgres\nDigest: sha256:«v»\nStatus: Downloaded newer image for postgres:16", source="docker pull output"),
    L("docker-ps-id", "containers", hexn(12), "CONTAINER ID   IMAGE          COMMAND                  STATUS\n«v»   redis:7.4      \"docker-entrypoint.s…\"   Up 3 hours", source="docker ps"),
    L("docker-inspect-id", "containers", sha256, '[\n    {\n        "Id": "«v»",\n        "Created": "2026-02-03T10:14:02.118223Z",', source="docker inspect Id"),
    L("k8s-image-digest-ref", "containers", sha256, "      containers:\n        - name: «app»\n          image: ghcr.io/«org»/«app»@sha256:«v»", source="Kubernetes image pinned by digest"),
    L("buildkit-writing-image", "containers", sha256, " => exporting to image\n => => exporting layers                              0.4s\n => => writing image sha256:«v»    0.0s\n => => naming to docker.io/«org»/«app»:latest", source="docker buildx output"),
    L("oci-manifest-digest", "containers", sha256, '{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:«v»", "size": 1612}', source="OCI index entry"),
    L("k8s-pod-name", "containers", lambda r: f"{fill(r, 'app', None)}-{rs(r, 'bcdfghjklmnpqrstvwxz2456789', 10)}-{rs(r, 'bcdfghjklmnpqrstvwxz2456789', 5)}",
      "NAME                                READY   STATUS    RESTARTS   AGE\n«v»   1/1     Running   0          3h12m", source="kubectl get pods"),
    L("k8s-metadata-uid", "containers", uuid4, "metadata:\n  name: «app»\n  namespace: «ns»\n  uid: «v»\n  resourceVersion: \"«num:8»\"", source="Kubernetes object uid"),
    L("helm-chart-lock-digest", "containers", sha256, "dependencies:\n- name: postgresql\n  repository: oci://registry-1.docker.io/bitnamicharts\n  version: 16.4.2\ndigest: sha256:«v»\ngenerated: \"2026-02-03T10:14:02Z\"", source="Helm Chart.lock"),
    # --- lockfiles ---------------------------------------------------------------------------------
    L("npm-lock-integrity", "lockfiles", sri("sha512", 64), '"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": "«v»"\n}', source="package-lock.json integrity"),
    L("yarn-berry-checksum", "lockfiles", lambda r: "10c0/" + rs(r, HEX, 128), '"react@npm:^19.0.0":\n  version: 19.0.0\n  resolution: "react@npm:19.0.0"\n  checksum: «v»\n  languageName: node', source="yarn.lock (berry) checksum"),
    L("pnpm-lock-resolution", "lockfiles", sri("sha512", 64), "  /zod@3.24.1:\n    resolution: {integrity: «v»}\n    dev: false", source="pnpm-lock.yaml resolution"),
    L("cargo-lock-checksum", "lockfiles", sha256, '[[package]]\nname = "serde"\nversion = "1.0.217"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "«v»"', source="Cargo.lock checksum"),
    L("go-sum-h1", "lockfiles", lambda r: "h1:" + b64_of(rbytes(r, 32)), "github.com/google/uuid v1.6.0 «v»\ngithub.com/google/uuid v1.6.0/go.mod h1:«alnum:43»=", source="go.sum"),
    L("uv-lock-hash", "lockfiles", sha256, '[[package]]\nname = "httpx"\nversion = "0.28.1"\nsdist = { url = "https://files.pythonhosted.org/packages/httpx-0.28.1.tar.gz", hash = "sha256:«v»", size = 141406 }', source="uv.lock hash"),
    L("pip-require-hashes", "lockfiles", sha256, "requests==2.32.3 \\\n    --hash=sha256:«v» \\\n    --hash=sha256:«hex:64»", source="pip-compile --generate-hashes"),
    L("gemfile-lock-checksums", "lockfiles", sha256, "CHECKSUMS\n  rack (3.1.8) sha256=«v»\n  rake (13.2.1) sha256=«hex:64»", source="Gemfile.lock CHECKSUMS (Bundler 2.6)"),
    L("composer-lock-reference", "lockfiles", sha1, '"source": {\n    "type": "git",\n    "url": "https://github.com/guzzle/guzzle.git",\n    "reference": "«v»"\n},', source="composer.lock source.reference"),
    L("flake-lock-narhash", "lockfiles", lambda r: "sha256-" + b64_of(rbytes(r, 32)), '"nixpkgs": {\n  "locked": {\n    "lastModified": 1738410390,\n    "narHash": "«v»",\n    "owner": "NixOS",\n    "repo": "nixpkgs",\n    "rev": "«hex:40»",\n    "type": "github"\n  }\n}', source="flake.lock narHash"),
    L("terraform-lock-hashes", "lockfiles", lambda r: "h1:" + b64_of(rbytes(r, 32)), 'provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.84.0"\n  constraints = "~> 5.0"\n  hashes = [\n    "«v»",\n    "zh:«hex:64»",\n  ]\n}', source=".terraform.lock.hcl"),
    L("swiftpm-resolved-revision", "lockfiles", sha1, '{\n  "identity" : "swift-argument-parser",\n  "kind" : "remoteSourceControl",\n  "state" : {\n    "revision" : "«v»",\n    "version" : "1.5.0"\n  }\n}', source="Package.resolved revision"),
    L("nix-store-path", "lockfiles", lambda r: "/nix/store/" + rs(r, "0123456789abcdfghijklmnpqrsvwxyz", 32) + "-openssl-3.3.2", "$ which openssl\n«v»/bin/openssl", source="Nix store path"),
    L("bazel-http-archive-sha", "lockfiles", sha256, 'http_archive(\n    name = "rules_python",\n    sha256 = "«v»",\n    strip_prefix = "rules_python-1.1.0",\n)', source="Bazel http_archive sha256"),
    L("gradle-verification-metadata", "lockfiles", sha256, '<component group="com.squareup.okhttp3" name="okhttp" version="4.12.0">\n   <artifact name="okhttp-4.12.0.jar">\n      <sha256 value="«v»" origin="Generated by Gradle"/>\n   </artifact>\n</component>', source="gradle/verification-metadata.xml"),
    L("nuget-lock-contenthash", "lockfiles", lambda r: b64_of(rbytes(r, 64)), '"Newtonsoft.Json": {\n  "type": "Direct",\n  "requested": "[13.0.3, )",\n  "resolved": "13.0.3",\n  "contentHash": "«v»"\n}', source="packages.lock.json contentHash"),
    L("wheel-record-line", "lockfiles", lambda r: "sha256=" + b64_of(rbytes(r, 32), url=True, pad=False), "«app»/__init__.py,«v»,1874\n«app»/cli.py,sha256=«alnum:43»,5120", source="wheel RECORD file"),
    # --- ids ----------------------------------------------------------------------------------------
    L("stripe-object-ids", "ids", lambda r: r.choice(["cus_", "pi_3", "evt_1", "ch_3", "in_1", "sub_1", "price_1", "prod_", "acct_1"]) + mixed(r, ALNUM, 22),
      '{\n  "id": "«v»",\n  "object": "payment_intent",\n  "amount": 2000,\n  "currency": "eur",\n  "status": "succeeded"\n}', source="Stripe object ids (documented prefixes)"),
    L("openai-response-ids", "ids", lambda r: r.choice(["chatcmpl-", "resp_", "file-", "asst_", "thread_", "run_", "batch_"]) + mixed(r, ALNUM, 24),
      '{"id": "«v»", "object": "chat.completion", "created": 1770113642, "model": "gpt-4o-2024-08-06"}', source="OpenAI API object ids"),
    L("anthropic-message-ids", "ids", lambda r: r.choice(["msg_01", "toolu_01", "req_011C", "msgbatch_01"]) + mixed(r, ALNUM, 22),
      '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "«v»"}', source="Anthropic API ids"),
    L("slack-ids", "ids", lambda r: "C0" + rs(r, UALNUM, 9) + "/p" + rs(r, DIGITS, 16), "https://«org».slack.com/archives/«v»", source="Slack channel id and message permalink"),
    L("github-node-id", "ids", lambda r: "PR_kwDO" + mixed(r, B64URL, 20), '{"data": {"repository": {"pullRequest": {"id": "«v»", "number": «num:4»}}}}', source="GitHub GraphQL node id"),
    L("github-actions-run-url", "ids", lambda r: f"actions/runs/{r.randrange(10**10, 2 * 10**10)}/job/{r.randrange(3 * 10**10, 5 * 10**10)}", "logs: https://github.com/«org»/«app»/«v»", source="GitHub Actions run/job URL"),
    L("aws-request-ids", "ids", uuid4, "An error occurred (ThrottlingException) when calling the PutItem operation (reached max retries: 2): Rate exceeded\nRequestId: «v»", source="AWS request id"),
    L("aws-x-amz-id-2", "ids", lambda r: b64_of(rbytes(r, 57)), "x-amz-request-id: «hexu:16»\nx-amz-id-2: «v»".replace("«hexu:16»", "«alnum:16»"), source="S3 x-amz-id-2 response header"),
    L("cloudflare-cf-ray", "ids", lambda r: rs(r, HEX, 16) + "-" + r.choice(["FRA", "SJC", "AMS", "NRT", "GRU"]), "cf-ray: «v»\nserver: cloudflare", source="cf-ray header"),
    L("ec2-resource-ids", "ids", lambda r: r.choice(["i-0", "vol-0", "snap-0", "eni-0", "sg-0", "subnet-0", "vpc-0", "ami-0"]) + rs(r, HEX, 16),
      "$ aws ec2 describe-instances --query 'Reservations[].Instances[].InstanceId'\n[\n    \"«v»\"\n]", source="EC2 resource ids"),
    L("aws-arn-role", "ids", lambda r: f"arn:aws:iam::{rs(r, DIGITS, 12)}:role/{fill(r, 'app', None)}-deployer-{rs(r, ALNUM, 12)}", "RoleArn: «v»", source="IAM role ARN"),
    L("secretsmanager-arn", "ids", lambda r: f"arn:aws:secretsmanager:{fill(r, 'region', None)}:{rs(r, DIGITS, 12)}:secret:prod/{fill(r, 'app', None)}/db-{rs(r, ALNUM, 6)}",
      'valueFrom: "«v»"', source="Secrets Manager secret ARN (a reference, not the value)"),
    L("azure-resource-id", "ids", lambda r: f"/subscriptions/{uuid4(r)}/resourceGroups/{fill(r, 'app', None)}-rg/providers/Microsoft.Web/sites/{fill(r, 'app', None)}-{rs(r, LOWER, 6)}",
      '"id": "«v»",', source="Azure resource id"),
    L("gcp-operation-id", "ids", lambda r: f"operation-{rs(r, DIGITS, 13)}-{rs(r, HEX, 13)}-{rs(r, HEX, 8)}-{rs(r, HEX, 8)}", "Waiting for operation [projects/«app»-«num:6»/locations/europe-west1/operations/«v»] to complete...done.", source="gcloud long-running operation"),
    L("sentry-event-id", "ids", hexn(32), "Sentry: captured event «v» (see https://«org».sentry.io/issues/?query=«v»)", source="Sentry event id"),
    L("w3c-traceparent", "ids", lambda r: f"00-{rs(r, HEX, 32)}-{rs(r, HEX, 16)}-01", "traceparent: «v»", source="W3C traceparent header"),
    L("otel-span-log", "ids", hexn(32), '{"level":"error","msg":"upstream timeout","trace_id":"«v»","span_id":"«hex:16»","service":"«app»"}', source="structured log with trace ids"),
    L("ulid-in-url", "ids", ulid, "GET /api/v1/orders/«v» HTTP/1.1", source="ULID in a REST path"),
    L("ksuid", "ids", lambda r: "2" + mixed(r, ALNUM, 26), "segment event messageId=«v»", source="KSUID (27 base62)"),
    L("nanoid-share-link", "ids", lambda r: mixed(r, B64URL, 21), "https://«app».«domain»/s/«v»", source="nanoid public share path"),
    L("cuid2", "ids", lambda r: "c" + rs(r, LALNUM, 24), "prisma: created Post { id: '«v»', published: false }", source="cuid2 ids (Prisma default)"),
    L("mongo-objectid", "ids", hexn(24), '{ "_id": { "$oid": "«v»" }, "status": "shipped" }', source="MongoDB ObjectId"),
    L("firestore-doc-path", "ids", lambda r: mixed(r, ALNUM, 20), "projects/«app»/databases/(default)/documents/users/«v»", source="Firestore auto id"),
    L("discord-snowflake", "ids", lambda r: str(r.randrange(10**18, 2 * 10**18)), "https://discord.com/channels/«num:18»/«v»", source="Discord snowflake ids"),
    L("uuid7-log-line", "ids", uuid7, "2026-02-03T10:14:02.118Z INFO job finished job_id=«v» duration_ms=«num:4»", source="UUIDv7 in a log line"),
    L("idempotency-key", "ids", uuid4, "curl https://api.stripe.com/v1/refunds -u $STRIPE_SECRET_KEY: -H 'Idempotency-Key: «v»' -d payment_intent=pi_«alnum:24»", source="Idempotency-Key header (not a credential)"),
    L("twilio-account-sid", "ids", lambda r: "AC" + rs(r, HEX, 32), "TWILIO_ACCOUNT_SID=«v»\nTWILIO_AUTH_TOKEN=${TWILIO_AUTH_TOKEN}", source="Twilio Account SID (an identifier, like a username)"),
    L("google-oauth-client-id", "ids", lambda r: f"{rs(r, DIGITS, 12)}-{rs(r, LALNUM, 32)}.apps.googleusercontent.com", "<meta name=\"google-signin-client_id\" content=\"«v»\">", source="Google OAuth client id (public)"),
    L("firebase-app-id", "ids", lambda r: f"1:{rs(r, DIGITS, 12)}:web:{rs(r, HEX, 22)}", "appId: \"«v»\",\nmeasurementId: \"G-«alnum:10»\"", source="Firebase web appId"),
    L("chrome-extension-id", "ids", lambda r: rs(r, "abcdefghijklmnop", 32), "chrome-extension://«v»/popup.html", source="Chrome extension id (a-p, 32)"),
    L("claude-session-path", "ids", uuid4, "/home/dev/.claude/projects/-home-dev-«app»/«v».jsonl", source="Claude Code session log path"),
    L("codex-rollout-name", "ids", uuid7, "~/.codex/sessions/2026/02/03/rollout-2026-02-03T10-14-02-«v».jsonl", source="Codex rollout file name"),
    L("hypothesis-reproduce", "ids", lambda r: "AXicY2" + mixed(r, B64, 22) + "==", "@reproduce_failure('6.124.7', b'«v»')", source="Hypothesis reproduce_failure blob"),
    L("pytest-randomly-seed", "ids", lambda r: str(r.randrange(10**9, 4 * 10**9)), "Using --randomly-seed=«v»", source="pytest-randomly seed"),
    L("notion-page-url", "ids", hexn(32), "https://www.notion.so/«org»/Runbook-«v»", source="Notion page id in URL"),
    L("sigstore-rekor-uuid", "ids", hexn(80), "tlog entry created with index: «num:9»\nUUID: «v»", source="Rekor transparency log entry UUID"),
    L("elf-build-id", "ids", sha1, "bin/«app»: ELF 64-bit LSB pie executable, x86-64, dynamically linked, BuildID[sha1]=«v», stripped", source="file(1) BuildID"),
    L("xcode-deriveddata", "ids", lambda r: rs(r, LOWER, 28), "~/Library/Developer/Xcode/DerivedData/«app»-«v»/Build/Products", source="Xcode DerivedData folder hash"),
    # --- public keys, publishable keys, fingerprints -------------------------------------------------
    L("ssh-ed25519-pubkey", "public", lambda r: "AAAAC3NzaC1lZDI1NTE5AAAAI" + mixed(r, B64, 43), "ssh-ed25519 «v» «email»", source="OpenSSH public key"),
    L("ssh-rsa-pubkey", "public", lambda r: "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + mixed(r, B64, 500), "ssh-rsa «v» deploy@ci", source="OpenSSH RSA public key"),
    L("known-hosts-hashed", "public", lambda r: "|1|" + b64_of(rbytes(r, 20)) + "|" + b64_of(rbytes(r, 20)), "«v» ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI«alnum:43»", source="hashed known_hosts entry"),
    L("ssh-fingerprint", "public", lambda r: "SHA256:" + b64_of(rbytes(r, 32), pad=False), "The authenticity of host 'bastion.«domain» («ip»)' can't be established.\nED25519 key fingerprint is «v».", source="ssh host key fingerprint"),
    L("gpg-fingerprint", "public", lambda r: rs(r, HEXU, 40), "pub   ed25519 2025-06-11 [SC]\n      «v»\nuid           [ultimate] «name» <«email»>", source="gpg --list-keys fingerprint"),
    L("cert-b64-in-secret", "public", lambda r: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSU" + mixed(r, B64, 200), "data:\n  ca.crt: «v»", source="base64 of a certificate (public)"),
    L("jwks-public-n", "public", lambda r: mixed(r, B64URL, 342), '{"keys":[{"kty":"RSA","use":"sig","kid":"«hex:16»","alg":"RS256","e":"AQAB","n":"«v»"}]}', source="JWKS public modulus"),
    L("age-recipient", "public", lambda r: "age1" + rs(r, BECH32, 58), "sops --encrypt --age «v» secrets.yaml > secrets.enc.yaml", source="age public key (recipient)"),
    L("wireguard-peer-pubkey", "public", lambda r: b64_of(rbytes(r, 32)), "[Peer]\nPublicKey = «v»\nAllowedIPs = 10.8.0.«num:2»/32", source="WireGuard [Peer] PublicKey"),
    L("minisign-pubkey", "public", lambda r: "RWQ" + mixed(r, B64, 53), "minisign -Vm release.tar.gz -P «v»", source="minisign public key"),
    L("stripe-publishable", "publishable", lambda r: "pk_live_51" + mixed(r, ALNUM, 97), "const stripe = Stripe('«v»');", source="Stripe publishable key (meant for the browser)"),
    L("clerk-publishable", "publishable", lambda r: "pk_live_" + b64_of(f"clerk.{fill(r, 'app', None)}{rs(r, LOWER, 4)}.com$".encode(), pad=False), "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=«v»", source="Clerk publishable key"),
    L("langfuse-public-key", "publishable", lambda r: "pk-lf-" + uuid4(r), "LANGFUSE_PUBLIC_KEY=«v»", source="Langfuse public key"),
    L("posthog-project-key", "publishable", lambda r: "phc_" + mixed(r, ALNUM, 43), "posthog.init('«v»', { api_host: 'https://eu.i.posthog.com' })", source="PostHog project API key (public)"),
    L("mapbox-public-token", "publishable", lambda r: "pk.eyJ1Ijoi" + b64_of(f'maps{rs(r, LOWER, r.randrange(5, 9))}","a":"{rs(r, LALNUM, 25)}"}}'.encode(), pad=False) + "." + mixed(r, B64URL, 22),
      "mapboxgl.accessToken = '«v»';", source="Mapbox public token pk."),
    L("recaptcha-site-key", "publishable", lambda r: "6L" + mixed(r, B64URL, 38), '<div class="g-recaptcha" data-sitekey="«v»"></div>', source="reCAPTCHA site key"),
    L("turnstile-site-key", "publishable", lambda r: "0x4AAAAAAA" + mixed(r, B64URL, 14), '<div class="cf-turnstile" data-sitekey="«v»"></div>', source="Cloudflare Turnstile site key"),
    L("supabase-anon-key", "publishable", jwt_anon, "NEXT_PUBLIC_SUPABASE_ANON_KEY=«v»", source="Supabase anon key (public with RLS)"),
    L("sentry-dsn", "publishable", lambda r: f"https://{rs(r, HEX, 32)}@o{rs(r, DIGITS, 6)}.ingest.us.sentry.io/{rs(r, DIGITS, 7)}", 'Sentry.init({ dsn: "«v»", tracesSampleRate: 0.1 });', source="Sentry DSN (documented as safe to be public)"),
    L("eth-address", "public", lambda r: "0x" + "".join(c.upper() if r.random() < 0.5 else c for c in rs(r, HEX, 40)), "send 0.05 ETH to «v» (the treasury multisig)", source="Ethereum address (checksummed)"),
    L("eth-tx-hash", "public", lambda r: "0x" + rs(r, HEX, 64), "https://etherscan.io/tx/«v»", source="Ethereum transaction hash"),
    L("bitcoin-bech32-address", "public", lambda r: "bc1q" + rs(r, BECH32, 38), "donations: «v»", source="Bitcoin bech32 address"),
    L("solana-pubkey", "public", lambda r: rs(r, B58, 44), "solana balance «v» --url mainnet-beta", source="Solana public key"),
    L("tor-onion-v3", "public", lambda r: rs(r, "abcdefghijklmnopqrstuvwxyz234567", 56) + ".onion", "mirror: http://«v»/", source="Tor v3 onion address"),
    L("ipfs-cid-v1", "public", lambda r: "bafybei" + rs(r, "abcdefghijklmnopqrstuvwxyz234567", 52), "ipfs://«v»/metadata.json", source="IPFS CIDv1"),
    L("ipfs-cid-v0", "public", lambda r: "Qm" + rs(r, B58, 44), "https://ipfs.io/ipfs/«v»", source="IPFS CIDv0"),
    L("dkim-txt-public", "public", lambda r: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + mixed(r, B64, 300) + "IDAQAB", "selector1._domainkey.«domain». 3600 IN TXT \"v=DKIM1; k=rsa; p=«v»\"", source="DKIM public key TXT record"),
    L("site-verification", "public", lambda r: mixed(r, B64URL, 43), "«domain». 300 IN TXT \"google-site-verification=«v»\"", source="Google site verification TXT"),
    L("acme-challenge-path", "public", lambda r: mixed(r, B64URL, 43), "GET /.well-known/acme-challenge/«v» HTTP/1.1\" 200 87", source="ACME http-01 token (public by design)"),
    L("pkce-code-challenge", "public", lambda r: mixed(r, B64URL, 43), "https://auth.«domain»/authorize?response_type=code&client_id=«app»-web&code_challenge=«v»&code_challenge_method=S256&state=«alnum:16»", source="PKCE code_challenge (the verifier stays private)"),
    L("apk-signing-fingerprint", "public", lambda r: ":".join(rs(r, HEXU, 2) for _ in range(32)), "Signer #1 certificate SHA-256 digest: «v»".replace("digest: «v»", "digest:\n«v»"), source="apksigner verify --print-certs"),
    L("authenticode-thumbprint", "public", lambda r: rs(r, HEXU, 40), "Thumbprint                                Subject\n----------                                -------\n«v}  CN=«org» Code Signing".replace("«v}", "«v»"), source="PowerShell Get-ChildItem Cert: thumbprint"),
    L("dotnet-publickeytoken", "public", hexn(16), '<bindingRedirect oldVersion="0.0.0.0-13.0.0.0" newVersion="13.0.0.0" /> <!-- Newtonsoft.Json, PublicKeyToken=«v» -->', source=".NET PublicKeyToken"),
    L("webhook-hub-signature", "public", lambda r: "sha256=" + rs(r, HEX, 64), "X-GitHub-Event: push\nX-GitHub-Delivery: «uuid»\nX-Hub-Signature-256: «v»", source="GitHub webhook signature header (a MAC of the body)"),
    L("stripe-signature-header", "public", lambda r: f"t={1770113642 + r.randrange(10**5)},v1={rs(r, HEX, 64)}", "Stripe-Signature: «v»", source="Stripe-Signature header"),
    # --- digests and checksums ---------------------------------------------------------------------
    L("sha256sum-output", "hashes", sha256, "$ sha256sum «app»-«ver»-linux-amd64.tar.gz\n«v»  «app»-«ver»-linux-amd64.tar.gz", source="sha256sum"),
    L("md5sum-output", "hashes", hexn(32), "«v»  backup-«date».sql.gz", source="md5sum"),
    L("sha512-shasum", "hashes", hexn(128), "$ shasum -a 512 release.zip\n«v}  release.zip".replace("«v}", "«v»"), source="shasum -a 512"),
    L("s3-etag", "hashes", lambda r: rs(r, HEX, 32) + "-" + str(r.randrange(2, 40)), '"ETag": "\\"«v»\\""'.replace('\\"', ""), source="S3 multipart ETag"),
    L("sri-script-tag", "hashes", sri("sha384", 48), '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="«v»" crossorigin="anonymous"></script>', source="Subresource Integrity"),
    L("csp-nonce", "hashes", lambda r: b64_of(rbytes(r, 18)), "Content-Security-Policy: script-src 'self' 'nonce-«v»'; object-src 'none'", source="CSP nonce"),
    L("http-etag-weak", "hashes", hexn(40), 'ETag: W/"«v»"', source="weak ETag"),
    L("go-vcs-revision", "hashes", sha1, "$ go version -m ./bin/«app»\n\tbuild\tvcs=git\n\tbuild\tvcs.revision=«v»\n\tbuild\tvcs.modified=false", source="go version -m"),
    L("npm-publish-shasum", "hashes", sha1, "npm notice === Tarball Details ===\nnpm notice name:          @«org»/sdk\nnpm notice version:       «ver»\nnpm notice shasum:        «v»\nnpm notice integrity:     sha512-«alnum:20»[...]«alnum:10»==", source="npm publish tarball details"),
    L("gha-cache-key", "hashes", sha256, "Cache restored from key: Linux-pnpm-store-«v»", source="GitHub Actions cache key"),
    L("rekor-log-id", "hashes", sha256, "Rekor log ID: «v»", source="Sigstore Rekor log id"),
    # --- build artifacts, versions ---------------------------------------------------------------------
    L("webpack-chunk", "artifacts", lambda r: f"main.{rs(r, HEX, 20)}.js", "asset «v» 312 KiB [emitted] [immutable] [minimized] (name: main)", source="webpack contenthash asset"),
    L("vite-asset", "artifacts", lambda r: f"assets/index-{mixed(r, B64URL, 8)}{rs(r, DIGITS, 2)}.js", "dist/«v»   148.21 kB │ gzip: 47.90 kB", source="Vite build output"),
    L("nextjs-build-id", "artifacts", lambda r: mixed(r, B64URL, 21), "/_next/static/«v»/_buildManifest.js", source="Next.js buildId path"),
    L("rust-deps-fingerprint", "artifacts", hexn(16), "target/debug/deps/serde_json-«v».d", source="cargo target deps hash"),
    L("pip-cache-wheel-path", "artifacts", hexn(56), "Stored in directory: /root/.cache/pip/wheels/3f/9a/«v»", source="pip wheel cache path"),
    L("npm-cacache-path", "artifacts", hexn(124), "~/.npm/_cacache/content-v2/sha512/ab/cd/«v»", source="npm cacache content path"),
    L("go-pseudo-version", "versions", lambda r: f"v0.0.0-2026{r.randrange(1, 3):02d}{r.randrange(10, 28)}{rs(r, DIGITS, 6)}-{rs(r, HEX, 12)}", "require github.com/«org»/«app»-proto «v»", source="Go pseudo-version"),
    L("semver-build-metadata", "versions", lambda r: f"{r.randrange(1, 5)}.{r.randrange(20)}.{r.randrange(10)}-rc.{r.randrange(1, 5)}+build.2026020{r.randrange(1, 9)}.{rs(r, HEX, 12)}", "«app» version «v»", source="SemVer with build metadata"),
    L("python-dev-version", "versions", lambda r: f"{r.randrange(1, 5)}.{r.randrange(20)}.0.dev{r.randrange(1, 99)}+g{rs(r, HEX, 12)}.d2026020{r.randrange(1, 9)}", "Successfully built «app»-«v»-py3-none-any.whl", source="setuptools-scm dev version"),
    L("docker-tag-sha", "versions", lambda r: f"main-{rs(r, HEX, 12)}-2026020{r.randrange(1, 9)}T{rs(r, DIGITS, 6)}Z", "image: ghcr.io/«org»/«app»:«v»", source="image tag with commit and timestamp"),
    # --- ciphertext meant to be committed ---------------------------------------------------------
    L("sops-enc-value", "ciphertext", lambda r: f"ENC[AES256_GCM,data:{b64_of(rbytes(r, 24))},iv:{b64_of(rbytes(r, 32))},tag:{b64_of(rbytes(r, 16))},type:str]", "db:\n    password: «v»\nsops:\n    age:\n        - recipient: age1«lower:58»", source="SOPS encrypted value (safe to commit)"),
    L("ansible-vault-line", "ciphertext", hexn(80), "db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n          «v»\n          «hex:80»", source="Ansible Vault inline ciphertext"),
    L("sealed-secret", "ciphertext", lambda r: "AgB" + mixed(r, B64, 400) + "==", "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n    password: «v»", source="Bitnami SealedSecret encryptedData"),
    L("pulumi-secure-value", "ciphertext", lambda r: "v1:" + b64_of(rbytes(r, 12)) + ":" + b64_of(rbytes(r, 40)), "config:\n  «app»:dbPassword:\n    secure: «v»", source="Pulumi stack config secure value"),
    L("rails-credentials-enc", "ciphertext", lambda r: b64_of(rbytes(r, 180)) + "--" + b64_of(rbytes(r, 12)) + "--" + b64_of(rbytes(r, 16)), "$ cat config/credentials.yml.enc\n«v»", source="Rails credentials.yml.enc (committed ciphertext)"),
    L("ejson-value", "ciphertext", lambda r: f"EJ[1:{b64_of(rbytes(r, 32))}:{b64_of(rbytes(r, 24))}:{b64_of(rbytes(r, 40))}]", '{\n  "_public_key": "«hex:64»",\n  "database_password": "«v»"\n}', source="EJSON encrypted value"),
    L("dotenvx-encrypted", "ciphertext", lambda r: "encrypted:" + b64_of(rbytes(r, 90)), 'DATABASE_PASSWORD="«v»"', source="dotenvx encrypted .env value"),
    L("age-armored-line", "ciphertext", lambda r: mixed(r, B64, 64), "-----BEGIN AGE ENCRYPTED FILE-----\nYWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSB«alnum:20»\n«v»\n-----END AGE ENCRYPTED FILE-----", source="age armored ciphertext"),
    # --- media and encoded data --------------------------------------------------------------------
    L("png-data-uri", "media", lambda r: "iVBORw0KGgoAAAANSUhEUgAAA" + mixed(r, B64, 300) + "=", '<img alt="logo" src="data:image/png;base64,«v»">', source="PNG data URI"),
    L("woff2-in-css", "media", lambda r: "d09GMgABAAAAA" + mixed(r, B64, 400), "@font-face { font-family: Inter; src: url(data:font/woff2;base64,«v») format('woff2'); }", source="inline woff2 font"),
    L("sourcemap-mappings", "media", lambda r: ";".join(",".join(rs(r, "ACEGIKMOQSUWYacegikmoqsuwy", 4) for _ in range(r.randrange(2, 5))) for _ in range(12)), '{"version":3,"file":"index.js","sources":["../src/index.ts"],"mappings":"«v»"}', source="source map mappings (VLQ)"),
    L("embedding-base64", "media", lambda r: base64.b64encode(rbytes(r, 240)).decode(), '{"object": "embedding", "index": 0, "embedding": "«v»"}', source="OpenAI embeddings encoding_format=base64"),
    L("token-ids-list", "media", lambda r: "[" + ", ".join(str(r.randrange(100, 100000)) for _ in range(14)) + "]", "tokens: «v»\ntoken count: 14", source="tokenizer output (LLM token ids)"),
    L("ipv6-address", "media", lambda r: "2001:db8:" + ":".join(rs(r, HEX, 4) for _ in range(6)), "inet6 «v»/64 scope global dynamic", source="IPv6 address"),
    # --- placeholders and masked values --------------------------------------------------------------
    L("placeholder-angle", "placeholders", const("<your-openai-api-key>", "<YOUR_TOKEN>", "<paste-your-key-here>", "<api-key>", "<redacted>", "<password>"),
      "OPENAI_API_KEY=«v»", "export GITHUB_TOKEN=«v»", source="angle-bracket placeholders in docs"),
    L("placeholder-caps", "placeholders", const("YOUR_API_KEY_HERE", "REPLACE_ME", "CHANGE_THIS_TO_A_LONG_RANDOM_STRING", "INSERT_TOKEN", "your-secret-key"),
      "SECRET_KEY=«v»", "api_key: «v»", source="all-caps placeholders"),
    L("placeholder-xxx", "placeholders", lambda r: r.choice(["sk-proj-", "ghp_", "xoxb-", "AKIA", "sk_live_", ""]) + "x" * r.randrange(16, 40),
      "token: «v»", source="xxxx placeholders"),
    L("masked-stars", "placeholders", lambda r: r.choice(["DB_PASSWORD: ", "Password: ", "api_key=", "token: "]) + "*" * r.randrange(8, 20), "$ «app» config show\n«v»\nregion: «region»", source="all-star mask"),
    L("masked-tail", "placeholders", lambda r: r.choice(["sk-proj-…", "ghp_…", "sk-ant-…", "xoxb-…"]) + rs(r, ALNUM, 4), "Key «v» created 2026-02-03 · last used 3 days ago", source="dashboard showing only the last characters"),
    L("masked-stripe-dashboard", "placeholders", masked("sk_live_", 24), "Secret key: «v»  [Reveal]", source="masked key with a visible tail"),
    L("npm-config-protected", "placeholders", const("(protected)"), "; \"user\" config from /home/dev/.npmrc\n\n//registry.npmjs.org/:_authToken = «v»", source="npm config list masking"),
    L("bullet-mask", "placeholders", lambda r: "•" * r.randrange(8, 16), "Password  «v»  [Show]", source="UI bullet mask"),
    L("redacted-marker", "placeholders", lambda r: r.choice(["authorization=", "password=", "api_key=", "Cookie: session="]) + r.choice(["[REDACTED]", "[MASKED]", "<hidden>", "[filtered]"]), "request headers: «v» user_agent=okhttp/4.12.0", source="already-redacted values in logs"),
    # --- references to secrets (not the secret) ------------------------------------------------------
    L("env-ref-shell", "references", const("${DATABASE_PASSWORD}", "$DB_PASS", "${OPENAI_API_KEY:?missing}", "${REDIS_PASSWORD:-}", "$(cat /run/secrets/db_password)"),
      "PGPASSWORD=«v» psql -h «host» -U «user»", source="shell variable references"),
    L("env-ref-gha", "references", const("${{ secrets.NPM_TOKEN }}", "${{ secrets.DOCKERHUB_TOKEN }}", "${{ secrets.GITHUB_TOKEN }}", "${{ vars.API_BASE }}"),
      "        with:\n          password: «v»", source="GitHub Actions expressions"),
    L("env-ref-code", "references", const("process.env.STRIPE_SECRET_KEY", "os.environ['OPENAI_API_KEY']", "os.getenv('DB_PASSWORD')", "System.getenv(\"JWT_SECRET\")".replace('"', "'"), "ENV.fetch('SECRET_KEY_BASE')", "std::env::var(\"API_TOKEN\")".replace('"', "'")),
      "const apiKey = «v»;", source="environment lookups in code"),
    L("secret-manager-refs", "references", const("op://Engineering/Postgres/password", "vault:secret/data/«app»#password".replace("«app»", "billing"), "ref+awssm://prod/db#password", "sm://projects/acme/secrets/db-password/versions/latest", "akv://kv-prod/db-password"),
      "DB_PASSWORD=«v»", source="secret-manager references (1Password op://, vals ref+, GCP sm://)"),
    L("k8s-secretkeyref", "references", lambda r: f"{fill(r, 'app', None)}-db-{rs(r, LOWER, 5)}",
      "          env:\n            - name: DB_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: «v»\n                  key: password", source="Kubernetes secretKeyRef (the secret's name)"),
    L("erb-template-ref", "references", const("<%= ENV['DB_PASSWORD'] %>", "{{ .Values.db.password }}", "{{ vault_db_password }}", "%(DB_PASS)s", "${var.db_password}"),
      "password: «v»", source="template references (ERB, Helm, Jinja, Terraform)"),
    # --- credential words beside non-secrets -------------------------------------------------------
    L("ts-type-definition", "docs", const("apiKey: string;", "password?: string;", "token: string | null;", "clientSecret: Secret<string>;", "secretKey: z.string().min(32),"),
      "export interface ClientOptions {\n  baseUrl: string;\n  «v»\n  timeoutMs?: number;\n}", source="type definitions naming credential fields"),
    L("yaml-schema-password", "docs", const("format: password", "minLength: 12", "writeOnly: true", "x-sensitive: true"),
      "components:\n  schemas:\n    Login:\n      properties:\n        password:\n          type: string\n          «v»", source="OpenAPI schema for a password field"),
    L("empty-values", "docs", lambda r: r.choice(["DB_PASSWORD=", "API_KEY=", "SMTP_PASS=", "AWS_SECRET_ACCESS_KEY=", "STRIPE_WEBHOOK_SECRET="]) + "  # set locally, see " + r.choice(["README", "1Password", "Doppler", "the wiki"]),
      "# fill these in locally, never commit real values\n«v»\nDEBUG=true", source="empty values in .env.example"),
    L("null-values", "docs", const("password: null", "token: ~", "api_key: None", "secret: <nil>", "client_secret: ''"), "config dump:\n  «v»\n  retries: 3", source="null credential fields"),
    L("rotation-prose", "docs", const("rotate the token every 90 days", "the password must be at least 12 characters long", "never paste your API key into a prompt",
                                      "store the secret in Vault, not in the repo", "the key is shown only once after creation"),
      "Security note: «v».", source="docs about credentials (no credential)"),
    L("password-policy-regex", "docs", const("^(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=.*[^A-Za-z0-9]).{12,}$", "^[A-Za-z0-9_-]{32,64}$", "^sk-[A-Za-z0-9]{48}$"),
      "PASSWORD_REGEX = r'«v»'", source="validation regexes for credential formats"),
    L("cli-help-flag", "docs", const("--password string      Password for the registry (env: REGISTRY_PASSWORD)", "--token TOKEN          API token; defaults to $GITLAB_TOKEN",
                                     "-p, --pass PASS        database password (prompted if omitted)"),
      "Flags:\n  «v»\n  -h, --help             help for login", source="CLI help text for credential flags"),
    L("llm-token-usage", "docs", lambda r: f"input_tokens={r.randrange(1000, 200000)} output_tokens={r.randrange(10, 8000)} cache_read_input_tokens={r.randrange(1000, 900000)}",
      "usage: «v»", source="LLM token counts (token as a unit)"),
    L("key-id-not-key", "docs", uuid4, '{\n  "key_id": "«v»",\n  "name": "ci-deploy",\n  "key": "****************************a1f3",\n  "created_at": "2026-02-03T10:14:02Z"\n}', source="API key metadata with the key id only"),
    L("jwt-kid-header", "docs", hexn(40), '{"alg": "RS256", "typ": "JWT", "kid": "«v»"}', source="JWT header kid"),
    L("secret-name-field", "docs", lambda r: f"{fill(r, 'app', None)}-db-credentials-{rs(r, LOWER, 5)}", "kubectl get secret «v» -o jsonpath='{.metadata.creationTimestamp}'", source="secret names (not values)"),
    L("cache-key-with-hash", "docs", sha256, "restore_cache:\n  keys:\n    - v1-deps-{{ checksum \"poetry.lock\" }}\nSkipping cache generation, cache already exists for key: v1-deps-«v»", source="CircleCI cache key"),
    L("s3-object-key", "docs", lambda r: f"uploads/2026/02/{uuid4(r)}.png", '{"Bucket": "«app»-media", "Key": "«v»", "ContentType": "image/png"}', source="S3 object key (the word key, not a credential)"),
    L("redis-key-name", "docs", lambda r: f"session:{uuid4(r)}:cart", "127.0.0.1:6379> TTL «v»\n(integer) 1742", source="Redis key names"),
]

def _whole_line(first: Callable) -> Callable:
    """The line of `first`'s text that holds the whole value (cut to 200 characters around it)."""

    def render(rng: random.Random, v: str) -> str:
        text = first(rng, v)
        line = next((x for x in text.split("\n") if v in x), v)
        at = line.find(v)
        start = max(0, min(at - 40, at + len(v) - 200))
        return line[start:max(start + 200, at + len(v))].strip()

    return render


def with_line(k: Kind) -> Kind:
    """A lookalike with no one-line rendering also gets the line of its first rendering that holds it
    (when the value itself fits on a line place)."""
    probe = random.Random(zlib.crc32(k.name.encode()))
    values = [k.make(probe) for _ in range(6)]
    if any(len(v) > 200 for v in values):
        return k
    if all(any("\n" not in t and len(t) <= 220 for t in (r(random.Random(probe.random()), v) for r in k.renders)) for v in values):
        return k
    return dataclasses.replace(k, renders=(*k.renders, _whole_line(k.renders[0])))


OUTSIDER5_LOOKALIKES: list[Kind] = [with_line(k) for k in LOOKS]
check_unique_names(OUTSIDER5_LOOKALIKES)

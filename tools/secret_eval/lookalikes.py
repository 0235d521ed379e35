# ruff: noqa: E501  (a table of kinds: one kind a line reads better than wrapped)
"""Things that look random but are not secrets: they must come out of Moraine unaltered.

Hashes, content digests, object and request ids, versions, addresses, encoded media, ids of
the harnesses' own records. Each is written the way it shows up in a coding agent's log (a
`git log` line, a `docker pull`, a lockfile, an API response). Any change to the value counts as
altered.
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
    LALNUM,
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
    return kind(name, family, make, *renders, source="composed lookalike", self_evident=True)


def _git_log(r: random.Random, v: str) -> str:
    return (f"commit {v}\nAuthor: Dana Reyes <dana@acme.io>\nDate:   Tue Feb 10 09:14:22 2026 +0100\n\n"
            "    fix: retry the upload on 503\n")


def _ipv6(r: random.Random) -> str:
    return "2001:db8:" + ":".join(rs(r, HEX, 4) for _ in range(6))


def _semver(r: random.Random) -> str:
    return f"{r.randrange(0, 30)}.{r.randrange(0, 200)}.{r.randrange(0, 500)}-rc.{r.randrange(1, 9)}+build.{rs(r, HEX, 7)}"


def _png_b64(r: random.Random) -> str:
    return "iVBORw0KGgoAAAANSUhEUgAA" + rs(r, B64, 400) + "AAAAAElFTkSuQmCC"


def _jpeg_b64(r: random.Random) -> str:
    return "/9j/4AAQSkZJRgABAQ" + rs(r, B64, 400) + "//Z"


LOOKALIKES: list[Kind] = [
    # --- git -----------------------------------------------------------------------------------
    L("git-sha-log", "git", sha1, _git_log),
    L("git-sha-prose", "git", sha1, lambda r, v: f"The regression came in with {v}; reverting it fixes the test."),
    L("git-sha-short-oneline", "git", lambda r: rs(r, HEX, 12),
      lambda r, v: f"{v} (HEAD -> main, origin/main) Merge pull request #4821 from acme/fix-upload"),
    L("git-commit-range", "git", lambda r: f"{rs(r, HEX, 12)}..{rs(r, HEX, 12)}", lambda r, v: f"git log --oneline {v}"),
    L("git-triple-dot", "git", lambda r: f"{rs(r, HEX, 40)}...{rs(r, HEX, 40)}",
      lambda r, v: f"https://github.com/acme/app/compare/{v}"),
    L("git-tree-sha", "git", sha1, lambda r, v: f"100644 blob {v}\tsrc/app.py"),
    L("git-index-line", "git", lambda r: f"{rs(r, HEX, 9)}..{rs(r, HEX, 9)}", lambda r, v: f"diff --git a/x.py b/x.py\nindex {v} 100644"),
    L("git-rev-parse", "git", sha1, lambda r, v: f"$ git rev-parse HEAD\n{v}"),
    L("git-stash-ref", "git", sha1, lambda r, v: f"Saved working directory and index state WIP on main: {v[:7]} wip\n{v}"),
    L("git-submodule-status", "git", sha1, lambda r, v: f" {v} vendor/lib (v2.3.1)"),
    L("github-pr-merge-sha", "git", sha1, lambda r, v: json.dumps({"merged": True, "sha": v, "message": "Pull Request successfully merged"})),
    # --- containers and packages ------------------------------------------------------------
    L("docker-pull-digest", "package", sha256, lambda r, v: f"docker pull ghcr.io/acme/api@sha256:{v}"),
    L("docker-image-id", "package", lambda r: rs(r, HEX, 12), lambda r, v: f"REPOSITORY   TAG   IMAGE ID       CREATED\nacme/api     dev   {v}   2 hours ago"),
    L("docker-layer-pull", "package", lambda r: rs(r, HEX, 12), lambda r, v: f"{v}: Pull complete"),
    L("oci-digest-json", "package", sha256, lambda r, v: json.dumps({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": f"sha256:{v}", "size": 7023})),
    L("npm-shasum", "package", sha1, lambda r, v: f"npm notice shasum:        {v}"),
    L("npm-integrity", "package", lambda r: "sha512-" + b64_of(rbytes(r, 64)), lambda r, v: f'"integrity": "{v}",'),
    L("npm-notice-integrity", "package", lambda r: "sha512-" + b64_of(rbytes(r, 64))[:13] + "[...]" + b64_of(rbytes(r, 8))[:6],
      lambda r, v: f"npm notice integrity:     {v}"),
    L("npm-lock-resolved", "package", lambda r: f"https://registry.npmjs.org/left-pad/-/left-pad-1.{r.randrange(10)}.{r.randrange(10)}.tgz",
      lambda r, v: f'"resolved": "{v}",\n"integrity": "sha512-{b64_of(rbytes(r, 64))}"'),
    L("go-sum-h1", "package", lambda r: "h1:" + b64_of(rbytes(r, 32)), lambda r, v: f"github.com/acme/lib v1.4.2 {v}"),
    L("go-sum-gomod", "package", lambda r: "h1:" + b64_of(rbytes(r, 32)), lambda r, v: f"golang.org/x/net v0.21.0/go.mod {v}"),
    L("pip-hash", "package", sha256, lambda r, v: f"requests==2.32.3 \\\n    --hash=sha256:{v}"),
    L("poetry-lock-hash", "package", sha256, lambda r, v: f'{{file = "pkg-1.0-py3-none-any.whl", hash = "sha256:{v}"}}'),
    L("cargo-lock-checksum", "package", sha256, lambda r, v: f'[[package]]\nname = "serde"\nversion = "1.0.197"\nchecksum = "{v}"'),
    L("yarn-lock-resolved", "package", lambda r: f"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{sha1(r)}",
      lambda r, v: f'  resolved "{v}"'),
    L("nix-store-path", "package", lambda r: rs(r, "0123456789abcdfghijklmnpqrsvwxyz", 32),
      lambda r, v: f"/nix/store/{v}-python3-3.11.9"),
    L("semver-build", "package", _semver, lambda r, v: f"Successfully installed acme-sdk-{v}"),
    L("pep440-local", "package", lambda r: f"2.{r.randrange(9)}.0.dev{r.randrange(999)}+g{rs(r, HEX, 9)}",
      lambda r, v: f"Version: {v}"),
    # --- hashes of files and content --------------------------------------------------------
    L("sha256sum-line", "hash", sha256, lambda r, v: f"{v}  dist/app-1.2.0.tar.gz"),
    L("md5sum-line", "hash", lambda r: rs(r, HEX, 32), lambda r, v: f"{v}  backup.sql.gz"),
    L("sha512-line", "hash", lambda r: rs(r, HEX, 128), lambda r, v: f"SHA512 (release.zip) = {v}"),
    L("etag-header", "hash", lambda r: rs(r, HEX, 32), lambda r, v: f'ETag: "{v}"'),
    L("etag-weak", "hash", lambda r: f"{rs(r, HEX, 8)}-{rs(r, HEX, 27)}", lambda r, v: f'etag: W/"{v}"'),
    L("s3-etag-multipart", "hash", lambda r: f"{rs(r, HEX, 32)}-{r.randrange(2, 90)}", lambda r, v: json.dumps({"ETag": f'"{v}"', "Key": "exports/2026-02.csv"})),
    L("content-md5-b64", "hash", lambda r: b64_of(rbytes(r, 16)), lambda r, v: f"Content-MD5: {v}"),
    L("subresource-integrity", "hash", lambda r: "sha384-" + b64_of(rbytes(r, 48)),
      lambda r, v: f'<script src="/app.js" integrity="{v}" crossorigin="anonymous"></script>'),
    L("webpack-chunk-hash", "hash", lambda r: rs(r, HEX, 20), lambda r, v: f"main.{v}.js    412 KiB  [emitted] [immutable]"),
    L("blake2-digest", "hash", lambda r: rs(r, HEX, 64), lambda r, v: f"b2sum: {v}"),
    L("ssh-fingerprint", "hash", lambda r: "SHA256:" + b64_of(rbytes(r, 32), pad=False),
      lambda r, v: f"ED25519 key fingerprint is {v}."),
    L("ssh-public-key", "hash", lambda r: "AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, B64, 43),
      lambda r, v: f"ssh-ed25519 {v} dana@laptop"),
    L("gpg-fingerprint", "hash", lambda r: rs(r, "0123456789ABCDEF", 40), lambda r, v: f"gpg: using RSA key {v}"),
    L("cert-serial", "hash", lambda r: ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(16)),
      lambda r, v: f"Serial Number:\n    {v}"),
    L("x509-public-cert", "hash", lambda r: "MIIDdzCCAl+gAwIBAgIE" + rs(r, B64, 300),
      lambda r, v: f"-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----"),
    # --- object, request and record ids ---------------------------------------------------
    L("uuid", "id", uuid4, lambda r, v: f"created job {v}"),
    L("uuid-json-id", "id", uuid4, lambda r, v: json.dumps({"id": v, "status": "queued"})),
    L("uuid-upper", "id", lambda r: uuid4(r).upper(), lambda r, v: f"Device ID: {v}"),
    L("ulid", "id", lambda r: rs(r, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26), lambda r, v: f"order {v} shipped"),
    L("stripe-charge-id", "id", lambda r: "ch_3" + rs(r, ALNUM, 23), lambda r, v: json.dumps({"id": v, "object": "charge", "amount": 1999})),
    L("stripe-customer-id", "id", lambda r: "cus_" + rs(r, ALNUM, 14), lambda r, v: f"customer {v} has no default source"),
    L("stripe-pi-id", "id", lambda r: "pi_3" + rs(r, ALNUM, 23), lambda r, v: f"PaymentIntent {v} requires_action"),
    L("stripe-publishable", "id", lambda r: "pk_live_51" + rs(r, ALNUM, 97), lambda r, v: f"NEXT_PUBLIC_STRIPE_KEY={v}"),
    L("stripe-event-id", "id", lambda r: "evt_1" + rs(r, ALNUM, 23), lambda r, v: f"webhook received {v} (invoice.paid)"),
    L("anthropic-msg-id", "id", lambda r: "msg_01" + rs(r, ALNUM, 22), lambda r, v: json.dumps({"id": v, "type": "message", "role": "assistant"})),
    L("anthropic-request-id", "id", lambda r: "req_011C" + rs(r, ALNUM, 18), lambda r, v: f"request-id: {v}"),
    L("anthropic-toolu-id", "id", lambda r: "toolu_01" + rs(r, ALNUM, 22), lambda r, v: f"tool_use_id {v} had no result"),
    L("openai-chatcmpl", "id", lambda r: "chatcmpl-" + rs(r, ALNUM, 29), lambda r, v: json.dumps({"id": v, "object": "chat.completion"})),
    L("openai-call-id", "id", lambda r: "call_" + rs(r, ALNUM, 24), lambda r, v: f"function call {v} returned"),
    L("openai-file-id", "id", lambda r: "file-" + rs(r, ALNUM, 22), lambda r, v: f"uploaded {v} (purpose: assistants)"),
    L("openai-resp-id", "id", lambda r: "resp_" + rs(r, HEX, 48), lambda r, v: f"response {v} completed"),
    L("twilio-account-sid", "id", lambda r: "AC" + rs(r, HEX, 32), lambda r, v: f"Account SID: {v}"),
    L("twilio-message-sid", "id", lambda r: "SM" + rs(r, HEX, 32), lambda r, v: f"queued message {v}"),
    L("aws-request-id", "id", uuid4, lambda r, v: f"RequestId: {v} Duration: 12.3 ms"),
    L("aws-arn", "id", lambda r: f"arn:aws:iam::{rs(r, DIGITS, 12)}:role/ci-deploy-{rs(r, LALNUM, 6)}", lambda r, v: f"assumed {v}"),
    L("aws-instance-id", "id", lambda r: "i-0" + rs(r, HEX, 16), lambda r, v: f"terminated {v}"),
    L("aws-xray-trace", "id", lambda r: f"1-{rs(r, HEX, 8)}-{rs(r, HEX, 24)}", lambda r, v: f"X-Amzn-Trace-Id: Root={v}"),
    L("gcp-project-number", "id", lambda r: rs(r, DIGITS, 12), lambda r, v: f"projects/{v}/locations/us-central1"),
    L("k8s-pod-name", "id", lambda r: f"api-{rs(r, LALNUM, 10)}-{rs(r, LALNUM, 5)}", lambda r, v: f"pod/{v}   1/1   Running   0   3m"),
    L("k8s-uid", "id", uuid4, lambda r, v: f"  uid: {v}"),
    L("otel-trace-id", "id", lambda r: rs(r, HEX, 32), lambda r, v: f"traceparent: 00-{v}-{rs(r, HEX, 16)}-01"),
    L("sentry-event-id", "id", lambda r: rs(r, HEX, 32), lambda r, v: f"Sentry event {v} captured"),
    L("x-request-id", "id", lambda r: rs(r, ALNUM, 26), lambda r, v: f"x-request-id: {v}"),
    L("cloudflare-ray", "id", lambda r: rs(r, HEX, 16) + "-FRA", lambda r, v: f"cf-ray: {v}"),
    L("mongo-objectid", "id", lambda r: rs(r, HEX, 24), lambda r, v: json.dumps({"_id": {"$oid": v}})),
    L("slack-channel-id", "id", lambda r: "C0" + rs(r, UALNUM, 9), lambda r, v: f"posted to <#{v}|deploys>"),
    L("slack-ts", "id", lambda r: f"{1760000000 + r.randrange(10**7)}.{rs(r, DIGITS, 6)}", lambda r, v: json.dumps({"ok": True, "ts": v})),
    L("discord-snowflake", "id", lambda r: str(r.randrange(10**17, 10**19)), lambda r, v: f"message id {v}"),
    L("jira-key", "id", lambda r: f"{rs(r, UPPER, 4)}-{r.randrange(100, 99999)}", lambda r, v: f"fixes {v}"),
    L("codex-session-uuid7", "id", lambda r: f"019c{rs(r, HEX, 4)}-{rs(r, HEX, 4)}-7{rs(r, HEX, 3)}-{r.choice('89ab')}{rs(r, HEX, 3)}-{rs(r, HEX, 12)}",
      lambda r, v: f"codex resume {v}"),
    L("tool-use-id-text", "id", lambda r: "toolu_01" + rs(r, ALNUM, 22), lambda r, v: f"(see {v})"),
    L("youtube-id", "id", lambda r: rs(r, B64URL, 11), lambda r, v: f"https://www.youtube.com/watch?v={v}"),
    L("google-doc-id", "id", lambda r: "1" + rs(r, B64URL, 43), lambda r, v: f"https://docs.google.com/document/d/{v}/edit"),
    # --- network, time, numbers -------------------------------------------------------------
    L("ipv6", "network", _ipv6, lambda r, v: f"listening on [{v}]:8443"),
    L("mac-address", "network", lambda r: ":".join(rs(r, HEX, 2) for _ in range(6)), lambda r, v: f"link/ether {v} brd ff:ff:ff:ff:ff:ff"),
    L("ipv4-port", "network", lambda r: f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(256)}:{r.randrange(1024, 65535)}",
      lambda r, v: f"connect ECONNREFUSED {v}"),
    L("iso-timestamp", "network", lambda r: f"2026-02-{r.randrange(10, 28)}T{r.randrange(10, 23)}:{r.randrange(10, 59)}:{r.randrange(10, 59)}.{rs(r, DIGITS, 6)}Z",
      lambda r, v: f"last_seen={v}"),
    L("unix-nanos", "network", lambda r: "17" + rs(r, DIGITS, 17), lambda r, v: f"ts_ns: {v}"),
    L("long-number", "network", lambda r: rs(r, "123456789", 1) + rs(r, DIGITS, 24), lambda r, v: f"checksum total: {v}"),
    L("color-hex-list", "network", lambda r: " ".join("#" + rs(r, HEX, 6) for _ in range(5)), lambda r, v: f"palette: {v}"),
    # --- encoded media and blobs --------------------------------------------------------------
    L("png-data-uri", "media", _png_b64, lambda r, v: f'<img src="data:image/png;base64,{v}">'),
    L("jpeg-b64", "media", _jpeg_b64, lambda r, v: json.dumps({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": v}})),
    L("font-woff2-b64", "media", lambda r: "d09GMgABAAAAA" + rs(r, B64, 300), lambda r, v: f"src: url(data:font/woff2;base64,{v}) format('woff2');"),
    L("gzip-b64", "media", lambda r: "H4sIAAAAAAAA" + rs(r, B64, 200) + "==", lambda r, v: f"payload (gzip+base64): {v}"),
    L("protobuf-b64", "media", lambda r: "CgQI" + rs(r, B64, 80), lambda r, v: f'grpcurl -d \'{{"blob":"{v}"}}\''),
    L("base64-of-text", "media", lambda r: base64.b64encode(("hello world " + rs(r, LALNUM, 30)).encode()).decode(),
      lambda r, v: f"echo {v} | base64 -d"),
    L("random-test-fixture", "media", lambda r: "test_" + rs(r, LALNUM, 30), lambda r, v: f"def {v}():\n    assert parse('') == []"),
    L("css-module-class", "media", lambda r: f"Button_root__{rs(r, B64URL, 5)}", lambda r, v: f'<button class="{v}">'),
    L("minified-var", "media", lambda r: rs(r, ALNUM, 24), lambda r, v: f"const {v}=n=>n*2;export default {v};"),
    # --- ids that sit next to credential words but are public --------------------------------
    L("client-id-public", "near-word", lambda r: rs(r, DIGITS, 12) + "-" + rs(r, LALNUM, 32) + ".apps.googleusercontent.com",
      lambda r, v: f"GOOGLE_CLIENT_ID={v}"),
    L("token-count", "near-word", lambda r: str(r.randrange(10**5, 10**7)), lambda r, v: f"token_count: {v}"),
    L("key-id-public", "near-word", lambda r: rs(r, HEX, 16), lambda r, v: f"public key id {v}"),
    L("password-hash-algo", "near-word", lambda r: f"pbkdf2_sha256_{rs(r, LALNUM, 10)}",
      lambda r, v: f'password_hash_algorithm = "{v}"'),
    L("sk-learn", "near-word", lambda r: f"sk-learn-{r.randrange(1, 9)}.{r.randrange(0, 9)}.{r.randrange(0, 9)}-cp311",
      lambda r, v: f"built wheel {v}"),
    L("secret-template-name", "near-word", lambda r: "secret_template_" + rs(r, LALNUM, 12),
      lambda r, v: f"render({v}.j2)"),
    L("public-anon-key-name", "near-word", lambda r: "NEXT_PUBLIC_ANALYTICS_ID_" + rs(r, UALNUM, 8),
      lambda r, v: f"process.env.{v}"),
]

check_unique_names(LOOKALIKES)

_ = (UALNUM, B64URL)

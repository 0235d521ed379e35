# ruff: noqa: E501  (a corpus: templates are kept on one line as they are written)
"""The third outsider's lookalikes: strings from coding-agent logs that look random, or stand
next to a word like password, token, secret, key or credential, but are no secret. Each value
must come back whole.

Written without reading the redaction rules or the earlier lookalike corpora (only the
file format of outsider2_lookalikes.py). Families: git, container, lockfile (package managers,
distributions, build tools), id (object, request, trace and vendor ids), public (public keys,
certificates, DNS records, publishable and site keys), artifact (build outputs, content hashes,
symbols, media), wordy (ordinary uses of password/token/key/secret/auth), placeholder (values
from documentation and templates), schema (declarations of a credential's name and type, no
value).
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
    LOWER,
    UALNUM,
    Kind,
    b64_of,
    check_unique_names,
    kind,
    rbytes,
    rs,
    sha1,
    sha256,
    uuid4,
    wrap,
)
from secret_eval.outsider3_kinds import fill, render

LOOKS: list[Kind] = []


def L(name: str, family: str, make: Callable[[random.Random], str], *templates) -> None:
    LOOKS.append(kind(name, family, make, *(render(t) for t in templates)))


def C(*choices: str) -> Callable[[random.Random], str]:
    """One of fixed strings, «...» fillers drawn fresh."""
    return lambda rng: fill(rng, rng.choice(choices), "")


def uuid7(rng: random.Random) -> str:
    h = f"{rng.randrange(0x019400000000, 0x019a00000000):012x}" + rs(rng, HEX, 20)
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:32]}"


def sri512(rng: random.Random) -> str:
    return "sha512-" + b64_of(rbytes(rng, 64))


def nodeid(rng: random.Random) -> str:
    return rng.choice(["PR_kwDO", "I_kwDO", "MDEwOlJlcG9zaXRvcnk", "R_kgDO", "PRRC_kwDO"]) + rs(rng, B64URL, 14)


# ============================================================================================
# git

L("git-cherry-picked-from", "git", sha1, "fix(auth): refresh token rotation race\n\n(cherry picked from commit «v»)")
L("git-revert-message", "git", sha1, "Revert \"feat: new password policy\"\n\nThis reverts commit «v».")
L("git-bisect-first-bad", "git", sha1, "«v» is the first bad commit\ncommit «v»\nAuthor: «name» <«email»>\n\n    Bump token cache TTL")
L("git-submodule-status", "git", sha1, "$ git submodule status\n «v» vendor/secret-scanner (v1.4.2)\n+«hex:40» third_party/keyring (heads/main)")
L("git-worktree-list", "git", lambda rng: rs(rng, HEX, 9), "$ git worktree list\n/home/dev/«proj»           «v» [main]\n/home/dev/«proj»-hotfix    «hex:9» [hotfix/token-expiry]")
L("git-fsck-dangling", "git", sha1, "$ git fsck --lost-found\nChecking object directories: 100% (256/256), done.\ndangling commit «v»")
L("git-cat-file-tree", "git", sha1, "$ git cat-file -p HEAD^{tree}\n100644 blob «v»\t.env.example\n040000 tree «hex:40»\tsecrets")
L("gerrit-change-id", "git", lambda rng: "I" + rs(rng, HEX, 40), "Rotate signing key on deploy\n\nChange-Id: «v»\nSigned-off-by: «name» <«email»>")
L("github-compare-url", "git", lambda rng: f"{rs(rng, HEX, 12)}...{rs(rng, HEX, 12)}", "Full changelog: https://github.com/«proj»/api/compare/«v»")
L("mercurial-node", "git", sha1, "changeset:   «d:4»:«hex:12»\nuser:        «name»\nsummary:     token refresh\n$ hg log -r . --template '{node}'\n«v»")
L("packed-refs", "git", sha1, "# pack-refs with: peeled fully-peeled sorted\n«v» refs/heads/main\n«hex:40» refs/tags/v1.0.0")
L("package-json-github-ref", "git", lambda rng: f"github:{rng.choice(['acme', 'globex'])}/keytar#{sha1(rng)}", "\"dependencies\": {\n  \"keytar\": \"«v»\"\n}")
L("cargo-git-rev", "git", sha1, "[dependencies]\nauth-core = { git = \"https://github.com/«proj»/auth-core\", rev = \"«v»\" }")
L("pip-git-pin", "git", sha1, "git+https://github.com/«proj»/oauth-helpers.git@«v»#egg=oauth-helpers")
L("git-remote-v", "git", C("https://github.com/«proj»/secrets-manager.git", "git@gitlab.com:«proj»/token-service.git", "ssh://git@bitbucket.org/«proj»/keyvault-client.git"),
  "$ git remote -v\norigin\t«v» (fetch)\norigin\t«v» (push)")

# ============================================================================================
# container

L("docker-history", "container", lambda rng: rs(rng, HEX, 12), "$ docker history «proj»-api:latest\nIMAGE          CREATED        CREATED BY                                      SIZE\n«v»   2 days ago     RUN /bin/sh -c pip install keyring   41.2MB")
L("docker-network-ls", "container", lambda rng: rs(rng, HEX, 12), "NETWORK ID     NAME              DRIVER    SCOPE\n«v»   «proj»_default    bridge    local")
L("docker-from-digest", "container", lambda rng: "sha256:" + sha256(rng), "FROM python:3.12-slim@«v» AS base")
L("containerd-container-id", "container", lambda rng: "containerd://" + sha256(rng), "    Container ID:   «v»\n    Image:          ghcr.io/«proj»/auth:1.8.2")
L("pod-template-hash", "container", lambda rng: rs(rng, "bcdfghjklmnpqrstvwxz2456789", 10), "«proj»-auth-«v»-«l:5»   1/1   Running   0   3h\nlabels: pod-template-hash=«v»")
L("cosign-sig-tag", "container", lambda rng: "sha256-" + sha256(rng) + ".sig", "ghcr.io/«proj»/api:«v»")
L("helm-release-secret-name", "container", C("sh.helm.release.v1.«proj».v«d:2»"), "$ kubectl get secrets -n prod\nNAME                              TYPE                 DATA   AGE\n«v»   helm.sh/release.v1   1      4d")
L("k8s-resource-version", "container", lambda rng: rs(rng, DIGITS, 9), "metadata:\n  name: «proj»-tokens\n  resourceVersion: \"«v»\"\n  uid: «uuid»")
L("k8s-sa-token-secret-name", "container", lambda rng: "default-token-" + rs(rng, "bcdfghjklmnpqrstvwxz2456789", 5), "Mountable secrets:   «v»\nTokens:              «v»")

# ============================================================================================
# lockfile: package managers, distributions, build tools

L("mix-lock-hash", "lockfile", sha256, "\"jason\": {:hex, :jason, \"1.4.4\", \"«v»\", [:mix], [], \"hexpm\", \"«hex:64»\"},")
L("pubspec-lock-sha", "lockfile", sha256, "  http:\n    dependency: \"direct main\"\n    description:\n      name: http\n      sha256: «v»\n      url: \"https://pub.dev\"")
L("swift-package-resolved", "lockfile", sha1, "{\n  \"identity\" : \"keychain-access\",\n  \"kind\" : \"remoteSourceControl\",\n  \"state\" : {\n    \"revision\" : \"«v»\",\n    \"version\" : \"4.2.2\"\n  }\n}")
L("deno-lock-integrity", "lockfile", sha256, "\"https://deno.land/std@0.224.0/crypto/mod.ts\": \"«v»\"")
L("pipfile-lock-hashes", "lockfile", lambda rng: "sha256:" + sha256(rng), "\"cryptography\": {\n    \"hashes\": [\n        \"«v»\"\n    ],\n    \"version\": \"==43.0.1\"\n}")
L("nuget-packages-lock", "lockfile", lambda rng: b64_of(rbytes(rng, 64)), "\"System.IdentityModel.Tokens.Jwt\": {\n  \"type\": \"Direct\",\n  \"requested\": \"[8.0.1, )\",\n  \"resolved\": \"8.0.1\",\n  \"contentHash\": \"«v»\"\n}")
L("julia-manifest-tree-sha", "lockfile", sha1, "[[deps.JSON3]]\ndeps = [\"Dates\", \"Mmap\"]\ngit-tree-sha1 = \"«v»\"\nuuid = \"«uuid»\"\nversion = \"1.14.0\"")
L("stack-yaml-lock", "lockfile", sha256, "snapshots:\n- completed:\n    sha256: «v»\n    size: 720001\n    url: https://raw.githubusercontent.com/commercialhaskell/stackage-snapshots/master/lts/22/7.yaml")
L("renv-lock-hash", "lockfile", lambda rng: rs(rng, HEX, 32), "\"openssl\": {\n  \"Package\": \"openssl\",\n  \"Version\": \"2.2.0\",\n  \"Hash\": \"«v»\"\n}")
L("conda-lock-md5", "lockfile", lambda rng: rs(rng, HEX, 32), "- name: pyjwt\n  version: 2.9.0\n  hash:\n    md5: «v»\n    sha256: «hex:64»")
L("homebrew-bottle-sha", "lockfile", sha256, "  bottle do\n    sha256 cellar: :any, arm64_sonoma: \"«v»\"\n  end")
L("pkgbuild-sha256sums", "lockfile", sha256, "source=(\"$pkgname-$pkgver.tar.gz::https://github.com/«proj»/keyd/archive/v$pkgver.tar.gz\")\nsha256sums=('«v»')")
L("apkbuild-sha512sums", "lockfile", lambda rng: rs(rng, HEX, 128), "sha512sums=\"\n«v»  pass-1.7.4.tar.xz\n\"")
L("debian-dsc-checksums", "lockfile", sha256, "Checksums-Sha256:\n «v» 512345 openssh_9.6p1.orig.tar.gz")
L("yarn-cache-zip-name", "lockfile", lambda rng: f"jsonwebtoken-npm-9.0.2-{rs(rng, HEX, 10)}-{rs(rng, HEX, 10)}.zip", ".yarn/cache/«v»")
L("pypi-files-url", "lockfile", lambda rng: f"https://files.pythonhosted.org/packages/{rs(rng, HEX, 2)}/{rs(rng, HEX, 2)}/{rs(rng, HEX, 60)}/keyring-25.4.1-py3-none-any.whl", "Downloading «v» (38 kB)")
L("npm-cacache-path", "lockfile", lambda rng: f"~/.npm/_cacache/content-v2/sha512/{rs(rng, HEX, 2)}/{rs(rng, HEX, 2)}/{rs(rng, HEX, 124)}", "npm ERR! EINTEGRITY while reading «v»")
L("vcpkg-baseline", "lockfile", sha1, "{\n  \"default-registry\": {\n    \"kind\": \"git\",\n    \"baseline\": \"«v»\",\n    \"repository\": \"https://github.com/microsoft/vcpkg\"\n  }\n}")
L("conan-revision", "lockfile", lambda rng: f"openssl/3.3.1#{rs(rng, HEX, 32)}", "\"requires\": [\n  \"«v»%1718000000.123\"\n]")
L("maven-sha1-file", "lockfile", sha1, "$ cat jjwt-api-0.12.6.jar.sha1\n«v»")
L("apt-hash-sum-mismatch", "lockfile", lambda rng: "SHA256:" + sha256(rng), "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-amd64/Packages.xz  Hash Sum mismatch\n   Hashes of expected file:\n    - «v»")

# ============================================================================================
# id: object, request, trace and vendor ids

L("xray-trace-id", "id", lambda rng: f"1-{rs(rng, HEX, 8)}-{rs(rng, HEX, 24)}", "X-Amzn-Trace-Id: Root=«v»;Sampled=1")
L("cloudfront-cf-id", "id", lambda rng: rs(rng, B64URL, 54) + "==", "X-Cache: Error from cloudfront\nX-Amz-Cf-Pop: FRA56-P3\nX-Amz-Cf-Id: «v»")
L("cf-ray", "id", lambda rng: rs(rng, HEX, 16) + "-" + rng.choice(["FRA", "AMS", "SJC", "NRT", "GRU"]), "cf-ray: «v»\nserver: cloudflare")
L("ms-request-id", "id", uuid4, "x-ms-request-id: «v»\nx-ms-correlation-request-id: «uuid»\nAADSTS7000215: Invalid client secret provided.")
L("vercel-deployment-id", "id", lambda rng: "dpl_" + rs(rng, ALNUM, 28), "Inspect: https://vercel.com/«proj»/web/«v» [2s]")
L("fly-machine-id", "id", lambda rng: rs(rng, HEX, 14), "Machine «v» [app] update finished: success")
L("openai-file-id", "id", lambda rng: "file-" + rs(rng, ALNUM, 22), "{\"id\": \"«v»\", \"object\": \"file\", \"purpose\": \"fine-tune\", \"filename\": \"train.jsonl\"}")
L("openai-response-id", "id", lambda rng: "resp_" + rs(rng, HEX, 48), "response.id = '«v»'")
L("openai-vector-store-id", "id", lambda rng: "vs_" + rs(rng, ALNUM, 24), "vector_store_ids=[\"«v»\"]")
L("anthropic-request-id", "id", lambda rng: "req_" + rs(rng, ALNUM, 24), "anthropic.AuthenticationError: Error code: 401 - {'type': 'error', 'error': {'type': 'authentication_error', 'message': 'invalid x-api-key'}, 'request_id': '«v»'}")
L("anthropic-batch-id", "id", lambda rng: "msgbatch_" + rs(rng, ALNUM, 24), "batch = client.messages.batches.retrieve(\"«v»\")")
L("github-node-id", "id", nodeid, "{\"data\": {\"node\": {\"id\": \"«v»\", \"title\": \"Rotate deploy key\"}}}")
L("twilio-sids", "id", lambda rng: rng.choice(["SM", "CA", "MG", "PN"]) + rs(rng, HEX, 32), "Message sent: sid=«v» status=queued")
L("shopify-gid", "id", lambda rng: f"gid://shopify/Product/{rs(rng, DIGITS, 13)}", "{\"productDelete\": {\"deletedProductId\": \"«v»\"}}")
L("airtable-ids", "id", lambda rng: rng.choice(["app", "tbl", "rec", "fld"]) + rs(rng, ALNUM, 14), "https://airtable.com/«v»/viwMain")
L("notion-page-id", "id", lambda rng: rs(rng, HEX, 32), "https://www.notion.so/«proj»/Token-rotation-runbook-«v»")
L("google-doc-id", "id", lambda rng: "1" + rs(rng, B64URL, 43), "https://docs.google.com/spreadsheets/d/«v»/edit#gid=0")
L("sidekiq-jid", "id", lambda rng: rs(rng, HEX, 24), "«date»T«time».123Z pid=«d:4» tid=«l:4» class=TokenRefreshJob jid=«v» INFO: done: 0.84 sec")
L("elasticsearch-doc-id", "id", lambda rng: rs(rng, B64URL, 20), "{\"_index\":\"auth-logs-2026.02\",\"_id\":\"«v»\",\"result\":\"created\"}")
L("firestore-doc-id", "id", lambda rng: rs(rng, ALNUM, 20), "db.collection('apiKeys').doc('«v»').delete()  // deletes the metadata doc, not the key")
L("mysql-gtid", "id", lambda rng: uuid4(rng).upper() + ":1-" + str(rng.randrange(100, 99999)), "Executed_Gtid_Set: «v»")
L("pg-lsn", "id", lambda rng: f"{rng.randrange(16):X}/{rs(rng, HEXU, 8)}", "restored log file \"«HEX:24»\" from archive; redo starts at «v»")
L("sentry-trace-header", "id", lambda rng: f"{rs(rng, HEX, 32)}-{rs(rng, HEX, 16)}-1", "sentry-trace: «v»\nbaggage: sentry-environment=production,sentry-release=«hex:12»")
L("b3-trace-headers", "id", lambda rng: rs(rng, HEX, 16), "X-B3-TraceId: «hex:32»\nX-B3-SpanId: «v»\nX-B3-Sampled: 1")
L("gcp-trace-context", "id", lambda rng: f"{rs(rng, HEX, 32)}/{rs(rng, DIGITS, 19)};o=1", "X-Cloud-Trace-Context: «v»")
L("datadog-trace-id", "id", lambda rng: rng.choice("123456789") + rs(rng, DIGITS, 18), "x-datadog-trace-id: «v»\nx-datadog-parent-id: «d:19»")
L("cuid2", "id", lambda rng: rng.choice(LOWER) + rs(rng, LALNUM, 23), "{\"id\":\"«v»\",\"userId\":\"«l:24»\",\"provider\":\"github\",\"type\":\"oauth\"}")
L("typeid", "id", lambda rng: rng.choice(["user_", "org_", "apikey_", "sess_"]) + "01" + rs(rng, "hjkmnpqrstvwxyz0123456789abcdefg", 24), "DELETE /v1/api-keys/«v» → 204")
L("uuid7-primary", "id", uuid7, "INSERT INTO api_tokens (id, user_id, name, last_used_at) VALUES ('«v»', 42, 'ci', now());")
L("guid-braces-upper", "id", lambda rng: "{" + uuid4(rng).upper() + "}", "Project(\"{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}\") = \"Auth.Api\", \"src\\Auth.Api\\Auth.Api.csproj\", \"«v»\"")
L("windows-sid", "id", lambda rng: f"S-1-5-21-{rs(rng, DIGITS, 10)}-{rs(rng, DIGITS, 10)}-{rs(rng, DIGITS, 10)}-{rng.randrange(1000, 9999)}", "PS> (Get-LocalUser svc_backup).SID.Value\n«v»")
L("mlflow-run-id", "id", lambda rng: rs(rng, HEX, 32), "mlflow.pyfunc.load_model(\"runs:/«v»/model\")")
L("hf-revision-sha", "id", sha1, "model = AutoModel.from_pretrained(\"bert-base-uncased\", revision=\"«v»\")")
L("celery-task-id", "id", uuid4, "[«date» «time»,123: INFO/MainProcess] Task tasks.rotate_api_keys[«v»] succeeded in 0.42s: None")
L("url-path-uuid", "id", uuid4, "GET /api/v2/credentials/«v»/metadata 200 12ms")

# ============================================================================================
# public: public keys, certificates, DNS records, publishable keys

L("pgp-public-block", "public", lambda rng: "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + wrap("mQINBG" + rs(rng, B64, 700), 64) + "\n=" + rs(rng, B64, 4) + "\n-----END PGP PUBLIC KEY BLOCK-----", "$ gpg --armor --export «email»\n«v»")
L("known-hosts-hashed", "public", lambda rng: f"|1|{b64_of(rbytes(rng, 20))}|{b64_of(rbytes(rng, 20))} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(rng, B64, 43)}", "$ tail -1 ~/.ssh/known_hosts\n«v»")
L("x509-csr", "public", lambda rng: "-----BEGIN CERTIFICATE REQUEST-----\n" + wrap("MIICvDCCAaQCAQAwdzEL" + rs(rng, B64, 900), 64) + "\n-----END CERTIFICATE REQUEST-----", "$ cat server.csr\n«v»")
L("spki-public-key-pem", "public", lambda rng: "-----BEGIN PUBLIC KEY-----\n" + wrap("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + rs(rng, B64, 320) + "IDAQAB", 64) + "\n-----END PUBLIC KEY-----", "JWT_PUBLIC_KEY=\"«v»\"")
L("eth-tx-hash", "public", lambda rng: "0x" + sha256(rng), "Transaction submitted: https://etherscan.io/tx/«v»")
L("bitcoin-bech32-address", "public", lambda rng: "bc1q" + rs(rng, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38), "send the refund to «v» (my public address)")
L("solana-address", "public", lambda rng: rs(rng, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 44), "Program Id: «v»")
L("nostr-npub", "public", lambda rng: "npub1" + rs(rng, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58), "follow me on nostr: «v»")
L("onion-v3-address", "public", lambda rng: rs(rng, B32, 55) + "d.onion", "Tor hidden service is up at http://«v»/")
L("hpkp-spki-pin", "public", lambda rng: "pin-sha256=\"" + b64_of(rbytes(rng, 32)) + "\"", "Public-Key-Pins: «v»; max-age=5184000")
L("dkim-dns-record", "public", lambda rng: "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + rs(rng, B64, 170) + "IDAQAB", "selector1._domainkey.«proj».io. 3600 IN TXT \"«v»\"")
L("google-site-verification", "public", lambda rng: "google-site-verification=" + rs(rng, B64URL, 43), "«proj».io. 300 IN TXT \"«v»\"")
L("recaptcha-site-key", "public", lambda rng: "6L" + rng.choice("cdef") + rs(rng, B64URL, 37), "<div class=\"g-recaptcha\" data-sitekey=\"«v»\"></div>")
L("clerk-publishable", "public", lambda rng: "pk_live_" + b64_of(f"clerk.{rng.choice(['acme', 'globex', 'initech'])}{rs(rng, LOWER, 4)}.com$".encode(), pad=False), "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=«v»")
L("posthog-project-key", "public", lambda rng: "phc_" + rs(rng, ALNUM, 43), "posthog.init('«v»', { api_host: 'https://eu.i.posthog.com' })")
L("launchdarkly-client-side-id", "public", lambda rng: rs(rng, HEX, 24), "const client = LDClient.initialize('«v»', context); // client-side ID, safe in the browser")
L("gtm-container", "public", lambda rng: "GTM-" + rs(rng, UALNUM, 7), "<script>(function(w,d,s,l,i){/* ... */})(window,document,'script','dataLayer','«v»');</script>")
L("tls-cert-serial", "public", lambda rng: ":".join(rs(rng, HEX, 2) for _ in range(16)), "        Serial Number:\n            «v»\n        Signature Algorithm: sha256WithRSAEncryption")
L("ds-record-digest", "public", lambda rng: rs(rng, HEXU, 64), "«proj».io. 3600 IN DS 2371 13 2 «v»")
L("sigstore-rekor-uuid", "public", lambda rng: "24296fb24b8ad77a" + sha256(rng), "tlog entry created with index: «d:8»\nUUID: «v»")

# ============================================================================================
# artifact: build outputs, content hashes, symbols, media

L("elf-build-id", "artifact", sha1, "$ file ./bin/server\n./bin/server: ELF 64-bit LSB executable, x86-64, dynamically linked, BuildID[sha1]=«v», for GNU/Linux 3.2.0, stripped")
L("macho-uuid", "artifact", lambda rng: uuid4(rng).upper(), "$ dwarfdump --uuid App.app/App\nUUID: «v» (arm64) App.app/App")
L("turbo-cache-hash", "artifact", lambda rng: rs(rng, HEX, 16), "@«proj»/auth:build: cache hit, replaying logs «v»")
L("nx-cache-hash", "artifact", lambda rng: rs(rng, DIGITS, 20), "> nx run auth:build  [existing outputs match the cache, left as is]\nhash: «v»")
L("sourcemap-mappings", "artifact", lambda rng: ";".join(",".join(rs(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", rng.randrange(4, 8)) for _ in range(4)) for _ in range(6)), "{\"version\":3,\"sources\":[\"src/auth.ts\"],\"names\":[],\"mappings\":\"«v»\"}")
L("emotion-class", "artifact", lambda rng: "css-" + rs(rng, LALNUM, 6) + "-PasswordField", "<input class=\"«v»\" type=\"password\" name=\"password\">")
L("svelte-class-hash", "artifact", lambda rng: "svelte-" + rs(rng, LALNUM, 7), "<button class=\"show-token «v»\">Show token</button>")
L("csp-hash-source", "artifact", lambda rng: "'sha256-" + b64_of(rbytes(rng, 32)) + "'", "Content-Security-Policy: script-src 'self' «v»")
L("workbox-precache-revision", "artifact", lambda rng: rs(rng, HEX, 32), "{url:\"/login.html\",revision:\"«v»\"},{url:\"/assets/app.css\",revision:null}")
L("laravel-mix-manifest", "artifact", lambda rng: "/js/app.js?id=" + rs(rng, HEX, 20), "{\n    \"/js/app.js\": \"«v»\"\n}")
L("unity-meta-guid", "artifact", lambda rng: rs(rng, HEX, 32), "fileFormatVersion: 2\nguid: «v»\nMonoImporter:\n  serializedVersion: 2")
L("godot-uid", "artifact", lambda rng: "uid://" + rs(rng, LALNUM, 13), "[ext_resource type=\"Script\" uid=\"«v»\" path=\"res://auth/login.gd\" id=\"1_k3y\"]")
L("java-serialversionuid", "artifact", lambda rng: rng.choice(["", "-"]) + rng.choice("123456789") + rs(rng, DIGITS, 18) + "L", "public class TokenResponse implements Serializable {\n    private static final long serialVersionUID = «v»;")
L("rust-legacy-mangled", "artifact", lambda rng: f"_ZN4auth5token7refresh17h{rs(rng, HEX, 16)}E", "   3: «v»\n             at ./src/token.rs:88:14")
L("python-object-repr", "artifact", lambda rng: f"<keyring.backends.SecretService.Keyring object at 0x7f{rs(rng, HEX, 10)}>", "DEBUG keyring: using backend «v»")
L("stack-address", "artifact", lambda rng: "0x0000" + rs(rng, HEX, 12), "#4  «v» in tls_handshake (ssl=0x55d3c8a0e2a0) at ssl/statem.c:412")
L("git-lfs-pointer", "artifact", lambda rng: "sha256:" + sha256(rng), "version https://git-lfs.github.com/spec/v1\noid «v»\nsize «d:8»")
L("dvc-file-md5", "artifact", lambda rng: rs(rng, HEX, 32), "outs:\n- md5: «v»\n  size: 184467\n  hash: md5\n  path: data/passwords_leak_sample.csv")
L("safetensors-sha", "artifact", sha256, "model.safetensors: 100%|██████████| 440M/440M\nsha256 «v»  model.safetensors")
L("base64-gif-pixel", "artifact", C("data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"), "<img src=\"«v»\" alt=\"\" width=\"1\" height=\"1\">")
L("base64-png-icon", "artifact", lambda rng: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAA" + rs(rng, B64, 200) + "AAAAAElFTkSuQmCC", ".icon-key { background-image: url(«v»); }")
L("xxd-png-header", "artifact", lambda rng: "00000000: 8950 4e47 0d0a 1a0a 0000 000d 4948 4452  .PNG........IHDR\n00000010: " + " ".join(rs(rng, HEX, 4) for _ in range(8)), "$ xxd key-icon.png | head -2\n«v»")
L("setuptools-scm-version", "artifact", lambda rng: f"2.{rng.randrange(20)}.{rng.randrange(9)}.dev{rng.randrange(200)}+g{rs(rng, HEX, 8)}", "Successfully built secret_scanner-«v»-py3-none-any.whl")
L("derived-data-path", "artifact", lambda rng: f"~/Library/Developer/Xcode/DerivedData/KeychainDemo-{rs(rng, LOWER, 28)}/Build/Products", "** BUILD SUCCEEDED ** «v»")
L("hf-cache-snapshot", "artifact", lambda rng: f"~/.cache/huggingface/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/{sha1(rng)}/", "loading weights from «v»")
L("macos-temp-folder", "artifact", lambda rng: f"/var/folders/{rs(rng, LALNUM, 2)}/{rs(rng, LALNUM + '_', 30)}/T/", "tempfile.gettempdir() -> «v»")

# ============================================================================================
# wordy: ordinary uses of password, token, key, secret, credential, auth

L("password-reset-copy", "wordy", C("Forgot your password? Enter your email and we'll send you a reset link.", "Your password was changed successfully. If this wasn't you, contact support."), "<p class=\"help\">«v»</p>")
L("password-field-required", "wordy", C("The password field is required.", "Passwords do not match.", "Password must be at least 12 characters."), "{\"errors\": {\"password\": [\"«v»\"]}}")
L("html-password-input", "wordy", C("<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"current-password\" required>"), "«v»\n<button type=\"submit\">Sign in</button>")
L("password-manager-advice", "wordy", C("Use a password manager such as 1Password or Bitwarden and enable two-factor authentication."), "## Security tips\n\n«v»")
L("passwordless-magic-link", "wordy", C("We now support passwordless sign-in via magic links and passkeys (WebAuthn)."), "Changelog «date»: «v»")
L("tokenizer-output", "wordy", C("['▁The', '▁token', 'izer', '▁splits', '▁pass', 'word', '▁into', '▁pieces']"), ">>> tok.tokenize('The tokenizer splits password into pieces')\n«v»")
L("tiktoken-encoding-name", "wordy", C("cl100k_base", "o200k_base", "p50k_base"), "enc = tiktoken.get_encoding(\"«v»\")")
L("token-bucket", "wordy", C("TokenBucket(capacity=100, refill_rate=10)"), "limiter = «v»  # token bucket rate limiter for the login endpoint")
L("csrf-token-error", "wordy", C("CSRF token missing or incorrect.", "Forbidden (CSRF token from POST incorrect.)"), "403 Forbidden: «v»")
L("jwt-expired-error", "wordy", C("jwt expired", "TokenExpiredError: jwt expired", "invalid signature"), "UnauthorizedError: «v»\n    at verify (/app/node_modules/jsonwebtoken/verify.js:190:21)")
L("tokens-per-second", "wordy", lambda rng: f"{rng.randrange(10, 200)}.{rng.randrange(10)} tokens/s", "eval rate: «v»\nprompt eval count: «d:3» token(s)")
L("max-new-tokens-flag", "wordy", lambda rng: f"--max-new-tokens {rng.choice([128, 256, 512, 1024, 2048])}", "python generate.py --model llama-3-8b «v» --temperature 0.7")
L("context-window-size", "wordy", lambda rng: f"{rng.choice([8192, 32768, 131072, 200000])} tokens", "This model has a context window of «v».")
L("sql-primary-foreign-key", "wordy", C("PRIMARY KEY (id),\n  FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE"), "CREATE TABLE api_keys (\n  id bigserial,\n  user_id bigint NOT NULL,\n  key_prefix varchar(8) NOT NULL,\n  «v»\n);")
L("keyboard-event-key", "wordy", C("if (event.key === 'Enter' && !event.shiftKey) submit();"), "input.addEventListener('keydown', (event) => {\n  «v»\n});")
L("python-sort-key", "wordy", C("sorted(tokens, key=lambda t: t.created_at, reverse=True)"), "latest = «v»[0]")
L("redis-keys-pattern", "wordy", C("KEYS session:*", "SCAN 0 MATCH token:* COUNT 100"), "127.0.0.1:6379> «v»")
L("cache-key-format", "wordy", lambda rng: f"user:{rs(rng, DIGITS, 6)}:permissions:v{rng.randrange(2, 9)}", "cache.get(\"«v»\")  # cache key, not an API key")
L("react-key-prop", "wordy", C("{tokens.map((t) => <TokenRow key={t.id} token={t} />)}"), "return (\n  <tbody>\n    «v»\n  </tbody>\n);")
L("secrets-module-call", "wordy", C("secrets.token_urlsafe(32)", "secrets.token_hex(16)", "crypto.randomBytes(32).toString('hex')"), "api_key = «v»  # generated per user at signup")
L("fetch-credentials-include", "wordy", C("credentials: 'include'", "withCredentials: true"), "fetch('/api/me', { «v» })")
L("default-azure-credential", "wordy", C("DefaultAzureCredential()", "ManagedIdentityCredential(client_id=os.environ[\"AZURE_CLIENT_ID\"])"), "credential = «v»\nclient = SecretClient(vault_url=VAULT_URL, credential=credential)")
L("oauth-flow-prose", "wordy", C("authorization code flow with PKCE", "client credentials grant", "device authorization grant"), "For the CLI we use the «v»; no client secret is shipped in the binary.")
L("secret-santa", "wordy", C("Secret Santa", "the secret sauce"), "Reminder: «v» gifts are due Friday 🎁")
L("key-rotation-policy", "wordy", C("API keys expire after 90 days; rotate them from Settings → Developer → API keys."), "docs/security.md: «v»")
L("grant-type-param", "wordy", C("grant_type=client_credentials&scope=read%3Aorders", "response_type=code&scope=openid%20profile%20email"), "POST /oauth/token\nContent-Type: application/x-www-form-urlencoded\n\n«v»")
L("keyring-backend-list", "wordy", C("keyring.backends.macOS.Keyring (priority: 5)", "keyring.backends.SecretService.Keyring (priority: 5)"), "$ keyring --list-backends\n«v»\nkeyring.backends.chainer.ChainerBackend (priority: 10)")
L("two-factor-prose", "wordy", C("Enter the 6-digit code from your authenticator app."), "<label for=\"otp\">«v»</label>")
L("stripe-test-card", "wordy", C("4242 4242 4242 4242", "4000 0025 0000 3155"), "Use the Stripe test card «v» with any future date and any CVC.")
L("sha256-of-empty", "wordy", C("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "$ sha256sum /dev/null\n«v»  /dev/null")

# ============================================================================================
# placeholder: documentation and template values

L("postman-variable", "placeholder", C("{{apiKey}}", "{{access_token}}", "{{client_secret}}"), "Authorization: Bearer «v»")
L("windows-env-ref", "placeholder", C("%API_KEY%", "%DB_PASSWORD%"), "curl -H \"X-Api-Key: «v»\" https://api.example.com/v1/items")
L("makefile-azure-var", "placeholder", C("$(REGISTRY_PASSWORD)", "$(System.AccessToken)"), "docker login -u ci -p «v» registry.example.com")
L("vscode-env-var", "placeholder", C("${env:OPENAI_API_KEY}", "${input:dbPassword}"), "\"env\": { \"API_KEY\": \"«v»\" }")
L("octopus-ruby-interp", "placeholder", C("#{DatabasePassword}", "#{ENV['SMTP_PASSWORD']}"), "password: «v»")
L("redacted-markers", "placeholder", C("[REDACTED]", "[FILTERED]", "<redacted>", "********", "REDACTED_SECRET"), "  Parameters: {\"email\"=>\"«email»\", \"password\"=>\"«v»\"}")
L("elided-pem", "placeholder", C("-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----\n<contents of id_ed25519>\n-----END OPENSSH PRIVATE KEY-----"), "Paste your key in this format:\n\n«v»")
L("aws-doc-example-keys", "placeholder", C("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), "# the example key pair from the AWS docs: «v» (not a real key)")
L("xkcd-passphrase", "placeholder", C("correct horse battery staple"), "a password like \"«v»\" is easier to remember and harder to guess")
L("default-creds-docs", "placeholder", C("admin/admin", "guest/guest"), "The default login is «v»; you will be asked to change it on first sign-in.")
L("your-value-here", "placeholder", C("your-api-key-here", "YOUR_ACCESS_TOKEN", "paste-your-token", "sk-your-key", "insert_password_here"), ["client = Client(api_key=\"«v»\")", "API_KEY=«v»"])
L("mustache-secret-ref", "placeholder", C("{{ .Env.DB_PASSWORD }}", "{{ secret \"db/password\" }}", "{{ env \"API_TOKEN\" }}"), "password = \"«v»\"")
L("sops-encrypted-value", "placeholder", lambda rng: f"ENC[AES256_GCM,data:{rs(rng, B64, 24)},iv:{b64_of(rbytes(rng, 32))},tag:{b64_of(rbytes(rng, 16))},type:str]", "db:\n    password: «v»")
L("ansible-vault-header", "placeholder", C("$ANSIBLE_VAULT;1.1;AES256"), "db_password: !vault |\n          «v»\n          «hex:64»")
L("pulumi-secure-value", "placeholder", lambda rng: "v1:" + rs(rng, B64, 16) + ":" + rs(rng, B64, 40), "config:\n  app:dbPassword:\n    secure: «v»")
L("k8s-secret-placeholder", "placeholder", C("<base64-encoded-password>", "BASE64_ENCODED_VALUE"), "data:\n  password: «v»")
L("dollar-brace-default-empty", "placeholder", C("${STRIPE_SECRET_KEY:-}", "${API_TOKEN:?API_TOKEN is required}"), "command: [\"./run.sh\", \"--token\", \"«v»\"]")
L("xxx-mask-partial", "placeholder", lambda rng: "xxxx-xxxx-xxxx-" + rs(rng, UALNUM, 4), "Card/API key ending in «v» was revoked.")

# ============================================================================================
# schema: a credential's name or type declared, no value

L("dotenv-example-empty", "schema", C("STRIPE_SECRET_KEY=\nDATABASE_PASSWORD=\nJWT_SECRET="), "$ cat .env.example\n«v»")
L("pydantic-secretstr-field", "schema", C("api_key: SecretStr\n    db_password: SecretStr = Field(..., alias=\"DB_PASSWORD\")"), "class Settings(BaseSettings):\n    «v»")
L("ts-interface-credentials", "schema", C("interface Credentials {\n  apiKey: string;\n  apiSecret: string;\n  password?: string;\n}"), "«v»")
L("json-schema-password", "schema", C("\"password\": { \"type\": \"string\", \"format\": \"password\", \"minLength\": 12 }"), "{\n  \"properties\": {\n    «v»\n  }\n}")
L("openapi-security-scheme", "schema", C("ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key"), "components:\n  securitySchemes:\n    «v»")
L("graphql-login-mutation-sdl", "schema", C("login(email: String!, password: String!): AuthPayload!"), "type Mutation {\n  «v»\n}")
L("sql-password-hash-column", "schema", C("password_hash VARCHAR(255) NOT NULL"), "CREATE TABLE users (\n  id BIGSERIAL PRIMARY KEY,\n  email CITEXT UNIQUE NOT NULL,\n  «v»\n);")
L("django-password-field", "schema", C("password = models.CharField(_(\"password\"), max_length=128)"), "class User(AbstractBaseUser):\n    «v»")
L("prisma-schema-field", "schema", C("hashedPassword String?\n  sessionToken   String   @unique"), "model User {\n  id             String   @id @default(cuid())\n  «v»\n}")
L("k8s-envfrom-secretref", "schema", C("envFrom:\n  - secretRef:\n      name: «proj»-secrets"), "containers:\n  - name: api\n    «v»")
L("gha-secrets-inherit", "schema", C("secrets: inherit"), "jobs:\n  call-deploy:\n    uses: ./.github/workflows/deploy.yml\n    «v»")
L("argparse-password-flag", "schema", C("parser.add_argument(\"--password\", help=\"database password (or set PGPASSWORD)\")"), "«v»\nparser.add_argument(\"--host\", default=\"localhost\")")
L("cli-help-token-flag", "schema", C("--token string      API token (env: APP_TOKEN)"), "Flags:\n  -h, --help          help for login\n      «v»")
L("vault-policy-path", "schema", C("path \"secret/data/«proj»/*\" {\n  capabilities = [\"read\"]\n}"), "«v»")
L("iam-policy-secretsmanager", "schema", C("\"Action\": [\"secretsmanager:GetSecretValue\"],\n  \"Resource\": \"arn:aws:secretsmanager:*:*:secret:prod/*\""), "{\n  \"Effect\": \"Allow\",\n  «v»\n}")

OUTSIDER3_LOOKALIKES: list[Kind] = LOOKS
check_unique_names(OUTSIDER3_LOOKALIKES)

# ruff: noqa: E501  (a table of kinds: one kind a line reads better than wrapped)
"""Credentials written the way people write them, composed for this evaluation without looking at
any of Moraine's rules: key names in config files, secrets on command lines, structured key
material, encoded forms, URIs whose password holds URL syntax, and prose.

The value is what must not survive (a password, a key); the rendering is the context a person
or a tool puts around it. Encoded renderings name the encoded form too (see `kinds.py`).
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
    Kind,
    b64_of,
    check_unique_names,
    full_width,
    hex_of,
    host,
    kind,
    mixed,
    password,
    plain_password,
    rbytes,
    rs,
    u_escaped,
    url_encoded,
    username,
    wrap,
)


def _hexkey(rng: random.Random) -> str:
    return rs(rng, HEX, rng.choice([32, 48, 64]))


def _b64key(rng: random.Random) -> str:
    return b64_of(rbytes(rng, rng.choice([24, 32, 48])))


def _token(rng: random.Random) -> str:
    return mixed(rng, ALNUM, rng.randrange(24, 41))


def K(name: str, family: str, make, *renders, notes: str = "") -> Kind:
    return kind(name, family, make, *renders, source="composed", notes=notes)


# --------------------------------------------------------------------------------------------
# key names: .env, YAML, JSON, TOML, INI, code
# --------------------------------------------------------------------------------------------

KEY_NAMES: list[Kind] = [
    K("env-db-pass", "key-name", password, lambda r, v: f"DB_HOST={host(r)}\nDB_USER={username(r)}\nDB_PASS={v}",
      lambda r, v: f"DB_PASS='{v}'"),
    K("env-smtp-pass", "key-name", password, lambda r, v: f"SMTP_HOST=smtp.mailgun.org\nSMTP_USER=postmaster\nSMTP_PASS={v}",
      lambda r, v: f'SMTP_PASS="{v}"'),
    K("env-redis-pass", "key-name", password, lambda r, v: f"REDIS_PASS={v}", lambda r, v: f"export REDIS_PASS='{v}'"),
    K("yaml-pass", "key-name", password, lambda r, v: f"database:\n  host: {host(r)}\n  user: {username(r)}\n  pass: {v}\n"),
    K("yaml-password-quoted", "key-name", password, lambda r, v: f'smtp:\n  username: "alerts@acme.io"\n  password: "{v}"'),
    K("env-hmac-key", "key-name", _hexkey, lambda r, v: f"HMAC_KEY={v}", lambda r, v: f'HMAC_KEY: "{v}"'),
    K("env-github-pat-prefixless", "key-name", _token, lambda r, v: f"GITHUB_PAT={v}",
      notes="a PAT value without its vendor prefix"),
    K("env-admin-pw", "key-name", password, lambda r, v: f"ADMIN_PW={v}", lambda r, v: f"ADMIN_PW: {v}"),
    K("env-jwt-secret", "key-name", _b64key, lambda r, v: f"JWT_SECRET={v}"),
    K("env-encryption-key", "key-name", _b64key, lambda r, v: f"ENCRYPTION_KEY=base64:{v}",
      lambda r, v: f"APP_KEY=base64:{v}"),
    K("django-secret-key", "key-name", lambda r: rs(r, LALNUM + "!@#$%^&*(-_=+)", 50),
      lambda r, v: f"SECRET_KEY = '{v}'\nDEBUG = False"),
    K("rails-secret-key-base", "key-name", lambda r: rs(r, HEX, 128), lambda r, v: f"SECRET_KEY_BASE={v}"),
    K("json-password", "key-name", password, lambda r, v: json.dumps({"user": username(r), "password": v, "port": 5432})),
    K("json-client-secret", "key-name", _token, lambda r, v: json.dumps({"client_id": rs(r, DIGITS, 12), "client_secret": v})),
    K("toml-password", "key-name", password, lambda r, v: f'[database]\nurl = "postgres://{host(r)}/app"\npassword = "{v}"'),
    K("ini-password", "key-name", password, lambda r, v: f"[client]\nuser = {username(r)}\npassword = {v}\nhost = {host(r)}"),
    K("spring-datasource", "key-name", password, lambda r, v: f"spring.datasource.username=app\nspring.datasource.password={v}"),
    K("php-define", "key-name", password, lambda r, v: f"define( 'DB_PASSWORD', '{v}' );"),
    K("python-kwarg", "key-name", password, lambda r, v: f'conn = psycopg2.connect(host="{host(r)}", user="app", password="{v}")'),
    K("requests-auth-tuple", "key-name", password, lambda r, v: f'requests.get(url, auth=("{username(r)}", "{v}"))'),
    K("api-key-generic", "key-name", _token, lambda r, v: f"api_key: {v}", lambda r, v: f'apiKey = "{v}"'),
    K("private-key-field", "key-name", _b64key, lambda r, v: f'private_key = "{v}"'),
    K("aws-secret-env", "key-name", lambda r: mixed(r, B64, 40), lambda r, v: f"AWS_SECRET_ACCESS_KEY={v}"),
    K("pgpassword-env", "key-name", password, lambda r, v: f"PGPASSWORD='{v}' psql -h {host(r)} -U app app"),
    K("mysql-pwd-env", "key-name", password, lambda r, v: f"export MYSQL_PWD='{v}'"),
    K("dotnet-connstring", "key-name", password,
      lambda r, v: f"Server={host(r)};Database=app;User Id=sa;Password={v};TrustServerCertificate=True"),
    K("netrc", "key-name", plain_password, lambda r, v: f"machine api.heroku.com\n  login me@acme.io\n  password {v}"),
    K("npmrc-authtoken", "key-name", _token, lambda r, v: f"//npm.acme.io/:_authToken={v}\nalways-auth=true"),
    K("pypirc", "key-name", password, lambda r, v: f"[acme]\nrepository = https://pypi.acme.io/\nusername = ci\npassword = {v}"),
    K("terraform-tfvars", "key-name", password, lambda r, v: f'db_password = "{v}"\nregion      = "eu-west-1"'),
    K("k8s-secret-stringdata", "key-name", password,
      lambda r, v: f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  POSTGRES_PASSWORD: {v}"),
    K("docker-compose-env", "key-name", password,
      lambda r, v: f"services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_PASSWORD={v}"),
    K("ansible-vault-pass", "key-name", password, lambda r, v: f"ansible_become_pass: {v}"),
    K("webhook-secret", "key-name", _hexkey, lambda r, v: f"WEBHOOK_SIGNING_SECRET={v}"),
    K("session-secret-js", "key-name", _token, lambda r, v: f"app.use(session({{ secret: '{v}', resave: false }}))"),
    K("passwd-colon", "key-name", password, lambda r, v: f"passwd: {v}"),
    K("pwd-short-key", "key-name", password, lambda r, v: f"pwd={v}&user=admin"),
]

# --------------------------------------------------------------------------------------------
# headers and cookies
# --------------------------------------------------------------------------------------------

HEADERS: list[Kind] = [
    K("basic-auth-header", "header", plain_password,
      lambda r, v: (lambda b: (f"Authorization: Basic {b}", [(b, 14)]))(b64_of(f"{username(r)}:{v}".encode()))),
    K("x-api-key-header", "header", _token, lambda r, v: f"X-Api-Key: {v}",
      lambda r, v: f"curl -H 'x-api-key: {v}' https://internal.acme.io/v2/jobs"),
    K("bearer-prefixless", "header", _token, lambda r, v: f"Authorization: Bearer {v}"),
    K("cookie-sessionid", "header", lambda r: rs(r, LALNUM, 32), lambda r, v: f"Cookie: csrftoken=abc; sessionid={v}",
      lambda r, v: f"curl -b 'sessionid={v}' https://admin.acme.io/"),
    K("set-cookie", "header", _token, lambda r, v: f"Set-Cookie: session={v}; Path=/; HttpOnly; Secure"),
    K("x-auth-token", "header", _token, lambda r, v: f"X-Auth-Token: {v}"),
    K("proxy-authorization", "header", plain_password,
      lambda r, v: (lambda b: (f"Proxy-Authorization: Basic {b}", [(b, 14)]))(b64_of(f"proxy:{v}".encode()))),
]

# --------------------------------------------------------------------------------------------
# command lines
# --------------------------------------------------------------------------------------------

COMMANDS: list[Kind] = [
    K("docker-login-p", "command-line", plain_password, lambda r, v: f"docker login -u {username(r)} -p {v} registry.acme.io"),
    K("mongosh-p", "command-line", plain_password,
      lambda r, v: f"mongosh --host {host(r)} -u admin -p {v} --authenticationDatabase admin"),
    K("redis-cli-a", "command-line", plain_password, lambda r, v: f"redis-cli -h {host(r)} -a {v} ping"),
    K("htpasswd-b", "command-line", plain_password, lambda r, v: f"htpasswd -b /etc/nginx/.htpasswd {username(r)} {v}"),
    K("openssl-passout", "command-line", plain_password,
      lambda r, v: f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12 -passout pass:{v}"),
    K("sudo-S", "command-line", plain_password, lambda r, v: f"echo {v} | sudo -S systemctl restart nginx",
      lambda r, v: f"echo '{v}' | sudo -S apt-get update"),
    K("net-user", "command-line", plain_password, lambda r, v: f"net user bob {v} /add"),
    K("pgpass-line", "command-line", plain_password, lambda r, v: f"{host(r)}:5432:app:app_rw:{v}"),
    K("mysql-pSECRET", "command-line", plain_password, lambda r, v: f"mysql -u root -p{v} -h {host(r)} app < dump.sql"),
    K("sshpass-p", "command-line", plain_password, lambda r, v: f"sshpass -p '{v}' ssh deploy@{host(r)} uptime"),
    K("curl-u", "command-line", plain_password, lambda r, v: f"curl -u {username(r)}:{v} https://ci.acme.io/api/json"),
    K("psql-conn-flag", "command-line", plain_password,
      lambda r, v: f'psql "host={host(r)} dbname=app user=app password={v} sslmode=require"'),
    K("password-flag-eq", "command-line", password, lambda r, v: f"./deploy.sh --env prod --password='{v}'"),
    K("token-flag-space", "command-line", _token, lambda r, v: f"gh-release-upload --repo acme/app --token {v} dist/*"),
    K("mysqladmin-password", "command-line", plain_password,
      lambda r, v: f"mysqladmin -u root password {v}"),
    K("chpasswd", "command-line", plain_password, lambda r, v: f"echo 'deploy:{v}' | chpasswd"),
    K("kubectl-create-secret", "command-line", plain_password,
      lambda r, v: f"kubectl create secret generic db --from-literal=password={v}"),
    K("git-credential-store", "command-line", plain_password,
      lambda r, v: f"https://{username(r)}:{v}@git.acme.io"),
    K("smbclient-U", "command-line", plain_password, lambda r, v: f"smbclient //fs01/share -U 'ACME\\\\bob%{v}'"),
    K("rabbitmqctl", "command-line", plain_password, lambda r, v: f"rabbitmqctl add_user app {v}"),
    K("vault-login-token", "command-line", _token, lambda r, v: f"vault login token={v}"),
    K("set-windows-env", "command-line", password, lambda r, v: f"set DB_PASSWORD={v}"),
    K("powershell-securestring", "command-line", plain_password,
      lambda r, v: f'$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force'),
]

# --------------------------------------------------------------------------------------------
# structured key material
# --------------------------------------------------------------------------------------------


def _pem_body(rng: random.Random) -> str:
    return "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + rs(rng, B64, 1580)


def _ec_body(rng: random.Random) -> str:
    return "MHcCAQEEI" + rs(rng, B64, 150) + "=="


def _pem(label: str):
    return lambda r, v: f"-----BEGIN {label}-----\n{wrap(v)}\n-----END {label}-----"


def _kubeconfig(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{wrap(v)}\n-----END RSA PRIVATE KEY-----\n"
    data = base64.b64encode(pem.encode()).decode()
    text = ("apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n"
            f"    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t{rs(rng, B64, 60)}\n"
            f"    client-key-data: {data}\n")
    return text, [(data, 14)]


def _jwk(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
    members = {m: rs(rng, B64URL, 171) for m in ("p", "q", "dp", "dq", "qi")}
    doc = {"kty": "RSA", "kid": rs(rng, LALNUM, 8), "use": "sig", "n": rs(rng, B64URL, 342), "e": "AQAB", "d": v,
           **members}
    return json.dumps(doc), [(m, 10) for m in members.values()]


def _jwk_ec(rng: random.Random, v: str) -> str:
    return json.dumps({"kty": "EC", "crv": "P-256", "x": rs(rng, B64URL, 43), "y": rs(rng, B64URL, 43), "d": v})


def _ppk(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
    mac = rs(rng, HEX, 64)
    text = ("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key-20260210\nPublic-Lines: 6\n"
            + wrap("AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rs(rng, B64, 342)) + "\nPrivate-Lines: 14\n"
            + wrap(v) + f"\nPrivate-MAC: {mac}\n")
    return text, []  # the MAC is an integrity check, not key material


def _jwt_wrapped(rng: random.Random, v: str) -> str:
    return "the token from the login response (wrapped by the terminal):\n" + wrap(v, 48)


def _jwt_value(rng: random.Random) -> str:
    head = b64_of(b'{"alg":"RS256","kid":"' + rs(rng, LALNUM, 8).encode() + b'","typ":"JWT"}', url=True, pad=False)
    body = b64_of(json.dumps({"iss": "https://auth.acme.io", "sub": rs(rng, DIGITS, 12), "scope": "admin",
                              "exp": 1790000000 + rng.randrange(10**6)}).encode(), url=True, pad=False)
    return f"{head}.{body}.{rs(rng, B64URL, 342)}"


def _openssh(rng: random.Random) -> str:
    return "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + rs(rng, B64, 330)


STRUCTURED: list[Kind] = [
    K("pem-rsa", "structured", _pem_body, _pem("RSA PRIVATE KEY"), _pem("PRIVATE KEY")),
    K("pem-ec", "structured", _ec_body, _pem("EC PRIVATE KEY")),
    K("pem-openssh", "structured", _openssh, _pem("OPENSSH PRIVATE KEY")),
    K("pem-encrypted", "structured", _pem_body, _pem("ENCRYPTED PRIVATE KEY")),
    K("pem-in-json-escaped", "structured", _pem_body,
      lambda r, v: json.dumps({"private_key": f"-----BEGIN PRIVATE KEY-----\n{wrap(v)}\n-----END PRIVATE KEY-----\n"})),
    K("pem-truncated", "structured", _pem_body,
      lambda r, v: f"$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{wrap(v)[:700]}",
      notes="cut short: no END line (the value's first 700 characters are what is shown)"),
    K("kubeconfig-client-key-data", "structured", _pem_body, _kubeconfig),
    K("jwk-rsa-private", "structured", lambda r: rs(r, B64URL, 342), _jwk),
    K("jwk-ec-private", "structured", lambda r: rs(r, B64URL, 43), _jwk_ec),
    K("putty-ppk", "structured", lambda r: "AAABAQ" + rs(r, B64, 880), _ppk),
    K("jwt-wrapped", "structured", _jwt_value, _jwt_wrapped),
    K("docker-config-auth", "structured", plain_password,
      lambda r, v: (lambda b: (json.dumps({"auths": {"registry.acme.io": {"auth": b}}}, indent=2), [(b, 14)]))(
          b64_of(f"ci-bot:{v}".encode()))),
    K("ssh-key-inline-escaped", "structured", _openssh,
      lambda r, v: "SSH_PRIVATE_KEY=\"-----BEGIN OPENSSH PRIVATE KEY-----\\n" + wrap(v).replace("\n", "\\n")
      + "\\n-----END OPENSSH PRIVATE KEY-----\""),
]

# --------------------------------------------------------------------------------------------
# encoded forms
# --------------------------------------------------------------------------------------------


def _enc(encode, width: int, template: str):
    def render(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
        form = encode(v)
        return template.replace("{e}", form), [(form, width)]
    return render


def _b64_env(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
    env = f"DATABASE_URL=postgres://{host(rng)}/app\nDB_PASSWORD={v}\nSTRIPE_KEY=sk_test_{rs(rng, ALNUM, 24)}\n"
    blob = base64.b64encode(env.encode()).decode()
    return f"$ base64 -w0 .env\n{blob}", [(blob, 14)]


def _b64_userpass(rng: random.Random, v: str) -> tuple[str, list[tuple[str, int]]]:
    blob = base64.b64encode(f"{username(rng)}:{v}".encode()).decode()
    return f"echo {blob} | base64 -d", [(blob, 14)]


ENCODED: list[Kind] = [
    K("url-encoded-password", "encoded", password,
      _enc(url_encoded, 10, "https://sso.acme.io/login?user=ops&password={e}&next=%2F"),
      _enc(url_encoded, 10, "grant_type=password&username=ops&password={e}")),
    K("u-escaped-secret", "encoded", _token, _enc(u_escaped, 60, '{"api_secret": "{e}"}')),
    K("hex-encoded-secret", "encoded", password, _enc(hex_of, 20, "echo {e} | xxd -r -p  # the db password")),
    K("full-width-password", "encoded", password, _enc(full_width, 10, "パスワード：{e}"),
      _enc(full_width, 10, "password: {e}")),
    K("base64-of-env", "encoded", password, _b64_env),
    K("base64-user-pass", "encoded", plain_password, _b64_userpass),
    K("k8s-secret-data-b64", "encoded", password,
      lambda r, v: (lambda b: (f"apiVersion: v1\nkind: Secret\ndata:\n  password: {b}\n", [(b, 14)]))(
          base64.b64encode(v.encode()).decode())),
]

# --------------------------------------------------------------------------------------------
# URIs whose password holds URL syntax
# --------------------------------------------------------------------------------------------


def _awkward(rng: random.Random) -> str:
    """A password holding characters that break naive URI parsing: # ? $ @ / :."""
    core = mixed(rng, ALNUM, rng.randrange(10, 16))
    for ch in rng.sample(["#", "?", "$", "@", "/", ":", "!", "%", "&"], 3):
        pos = rng.randrange(1, len(core))
        core = core[:pos] + ch + core[pos:]
    return core


URIS: list[Kind] = [
    K("uri-postgres-awkward", "uri", _awkward, lambda r, v: f"postgres://app:{v}@{host(r)}:5432/app"),
    K("uri-mongodb-srv-awkward", "uri", _awkward,
      lambda r, v: f"mongodb+srv://admin:{v}@cluster0.ab1cd.mongodb.net/?retryWrites=true"),
    K("uri-redis-awkward", "uri", _awkward, lambda r, v: f"REDIS_URL=redis://default:{v}@{host(r)}:6379/0"),
    K("uri-amqp-plain", "uri", plain_password, lambda r, v: f"amqp://guest:{v}@{host(r)}:5672/vhost"),
    K("uri-mysql-plain", "uri", plain_password, lambda r, v: f"DATABASE_URL=mysql://root:{v}@{host(r)}/shop"),
    K("uri-https-basic", "uri", plain_password, lambda r, v: f"pip install -i https://ci:{v}@pypi.acme.io/simple app"),
    K("uri-ftp", "uri", plain_password, lambda r, v: f"lftp ftp://backup:{v}@ftp.acme.io/dumps"),
    K("uri-jdbc-password-param", "uri", password,
      lambda r, v: f"jdbc:postgresql://{host(r)}:5432/app?user=app&password={v}&ssl=true"),
    K("uri-password-no-user", "uri", plain_password, lambda r, v: f"redis://:{v}@{host(r)}:6379"),
]

# --------------------------------------------------------------------------------------------
# prose
# --------------------------------------------------------------------------------------------


def _aws_next_line(rng: random.Random, v: str) -> str:
    key_id = "AKIA" + rs(rng, UALNUM, 16)
    return f"here are the keys for the ci user:\n{key_id}\n{v}"


PROSE: list[Kind] = [
    K("prose-staging-password", "prose", password, lambda r, v: f"my staging password is {v}, don't share it",
      lambda r, v: f"The staging db password is {v} btw"),
    K("prose-pasted-live", "prose", _token,
      lambda r, v: f"You pasted {v}, which looks like a live credential; rotate it after this session."),
    K("prose-aws-next-line", "prose", lambda r: mixed(r, B64, 40), _aws_next_line),
    K("prose-login-with", "prose", password, lambda r, v: f"log in as admin with {v} and then reset it"),
    K("prose-the-key-is", "prose", _token, lambda r, v: f"The API key for the vendor portal is {v}."),
    K("prose-passphrase", "prose", password, lambda r, v: f"the passphrase for the backup key is: {v}"),
    K("prose-wifi", "prose", password, lambda r, v: f"office wifi: AcmeGuest / {v}"),
    K("prose-colon-list", "prose", password,
      lambda r, v: f"Credentials for the test tenant\n- user: qa-admin@acme.io\n- pass: {v}\n- mfa: disabled"),
    K("prose-secret-in-code-fence", "prose", _token,
      lambda r, v: f"Use this in your config:\n```\nclient_secret: {v}\n```"),
    K("prose-token-after-dash", "prose", _token, lambda r, v: f"new deploy token — {v} — expires in 30 days"),
    K("prose-french", "prose", password, lambda r, v: f"le mot de passe de la base est {v}"),
    K("prose-german", "prose", password, lambda r, v: f"Das Passwort für den Server lautet {v}"),
    K("prose-spanish", "prose", password, lambda r, v: f"la contraseña del servidor es {v}"),
]

PEOPLE_KINDS: list[Kind] = [*KEY_NAMES, *HEADERS, *COMMANDS, *STRUCTURED, *ENCODED, *URIS, *PROSE]
check_unique_names(PEOPLE_KINDS)

_ = (UALNUM, DIGITS)  # alphabets kept importable for the readers of this module

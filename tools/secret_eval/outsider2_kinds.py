# ruff: noqa: E501  (a corpus: templates are kept on one line as they are written)
"""A second outsider corpus: credentials as developers paste and type them into a chat with a
coding agent, in shells, config files, code, CI files, logs, error messages and tool output.

Written by an outsider who read neither the redaction rules, their tests, docs/security.md nor
any earlier corpus (public, people, lookalike, outsider). Shapes come from general knowledge of
the tools and of vendors' public token formats; every value is generated fresh from the rng (no
real key). Families: prose (English), languages (other languages), cli, config, code, vendor,
encoded, uri, keys.

Templates use «...» placeholders (see `fill`): «v» is the value, the others are filler (a user,
a host, hex or digits of a given length) so that every rendering varies from call to call.
"""

from __future__ import annotations

import base64
import json
import random
import urllib.parse
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
    UPPER,
    WORDS,
    Kind,
    Template,
    b64_of,
    check_unique_names,
    filled,
    host,
    kind,
    mixed,
    password,
    plain_password,
    rbytes,
    rendering,
    rs,
    u_escaped,
    username,
    uuid4,
    wrap,
)
from secret_eval.kinds import (
    compose as G,
)

# --------------------------------------------------------------------------------------------
# template filling
# --------------------------------------------------------------------------------------------

_FIRST = ("anna", "jonas", "maria", "li", "priya", "omar", "sofia", "kenji", "lucas", "fatma", "pavel", "ines")
_PROJ = ("orders", "billing", "webapp", "ledger", "search", "inventory", "auth", "metrics", "checkout")


def _filler(rng: random.Random, key: str, n: int | None) -> str:
    if key == "user":
        return username(rng)
    if key == "host":
        return host(rng)
    if key == "pw":
        return password(rng)
    if key == "hex":
        return rs(rng, HEX, n or 12)
    if key == "HEX":
        return rs(rng, HEXU, n or 12)
    if key == "d":
        return rng.choice("123456789") + rs(rng, DIGITS, (n or 6) - 1)
    if key == "a":
        return rs(rng, ALNUM, n or 12)
    if key == "l":
        return rs(rng, LALNUM, n or 8)
    if key == "U":
        return rs(rng, UALNUM, n or 12)
    if key == "low":
        return rs(rng, LOWER, n or 6)
    if key == "uuid":
        return uuid4(rng)
    if key == "first":
        return rng.choice(_FIRST)
    if key == "email":
        return f"{rng.choice(_FIRST)}.{rs(rng, LOWER, 5)}@{rng.choice(['acme.io', 'example.com', 'corp.dev'])}"
    if key == "ip":
        return f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
    if key == "proj":
        return rng.choice(_PROJ)
    if key == "word":
        return rng.choice(WORDS)
    if key == "date":
        return f"2026-0{rng.randrange(1, 4)}-{rng.randrange(10, 29)}"
    raise KeyError(key)


def fill(rng: random.Random, template: str, value: str) -> str:
    return filled(rng, template, value, _filler)


def render(template: Template) -> Callable[[random.Random, str], str]:
    return rendering(template, _filler)


KINDS: list[Kind] = []


def K(name: str, family: str, make: Callable[[random.Random], str], *templates: Template, se: bool = False,
      notes: str = "") -> None:
    KINDS.append(kind(name, family, make, *(render(t) for t in templates), self_evident=se, notes=notes))


def M(alphabet: str, n: int) -> Callable[[random.Random], str]:
    return lambda rng: mixed(rng, alphabet, n)


def awkward(rng: random.Random) -> str:
    """A password with characters that break a URI: @ : / # % ? & + and a space-free mix."""
    base = list(mixed(rng, ALNUM, rng.randrange(12, 18)))
    for ch in rng.sample("@:/#%?&+!$", 3):
        base.insert(rng.randrange(1, len(base)), ch)
    return "".join(base)


def human_pw(rng: random.Random) -> str:
    """Passwords people actually pick for staging boxes."""
    style = rng.randrange(5)
    if style == 0:
        return rng.choice(WORDS).capitalize() + rs(rng, DIGITS, 4) + rng.choice("!?#$") + rs(rng, ALNUM, 4)
    if style == 1:
        return rng.choice(WORDS) + rng.choice(["@", "_", "."]) + rng.choice(WORDS).capitalize() + rs(rng, DIGITS, 3)
    if style == 2:
        return mixed(rng, ALNUM + "!@#$%^*", rng.randrange(12, 20))
    if style == 3:
        return "Summer" + rs(rng, DIGITS, 4) + rng.choice("!#") + rs(rng, ALNUM, 5)
    return password(rng)


def diceware(rng: random.Random) -> str:
    return " ".join(rng.sample(WORDS, 5)) + " " + rs(rng, DIGITS, 2)


def jwt(rng: random.Random, payload: dict, alg: str = "HS256") -> str:
    def seg(obj: dict) -> str:
        return b64_of(json.dumps(obj, separators=(",", ":")).encode(), url=True, pad=False)

    sig = rs(rng, B64URL, 43 if alg.startswith("HS") else 342)
    return f"{seg({'alg': alg, 'typ': 'JWT'})}.{seg(payload)}.{sig}"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def pct(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def pct_window(value: str) -> int:
    return max(10, -(-10 * len(pct(value)) // len(value)))


B64W = 14  # a window of base64 that stands for 10 characters of what it encodes

# ============================================================================================
# prose (English): casual chat with the agent
# ============================================================================================

K("chat-staging-creds-slash", "prose", human_pw,
  ["creds for staging: admin / «v»", "staging creds: «user» / «v» (same as last sprint)"],
  "ok so the creds for the staging box are\nuser: «user»\npass: «v»\ndon't put them in the repo pls")
K("chat-heres-my-token", "prose", M(ALNUM, 40),
  ["here's my token «v» — can you figure out why the API still returns 403?",
   "heres my token: «v» . the /v2/reports endpoint keeps saying unauthorized"])
K("chat-try-with-backticks", "prose", human_pw,
  "try with `«v»` instead, I reset it this morning",
  "that didn't work. try with '«v»' (the old one was revoked)")
K("chat-new-key-arrow", "prose", M(ALNUM, 32),
  ["the new key → «v»", "rotated. new key -> «v»", "new api key => «v»"])
K("chat-password-alone-after-question", "prose", human_pw,
  "> What's the password for the `reporting` Postgres role?\n\n«v»",
  "Q: which password did you set on the replica?\nA:\n«v»\n")
K("chat-bulleted-list", "prose", plain_password,
  "Here's what ops sent me:\n- host: «host»\n- port: 5432\n- user: «user»\n- password: «v»\n- db: «proj»",
  "* SFTP server: sftp.«proj».example.com\n* login: «user»\n* pwd → «v»\n* dir: /incoming")
K("chat-markdown-table", "prose", plain_password,
  "| env | user | password |\n|---|---|---|\n| dev | app | devpass123 |\n| staging | app | «v» |\n| prod | ask Anna | — |",
  "| Service | Login | Secret |\n|:--|:--|:--|\n| Grafana | admin | `«v»` |\n| Kibana | elastic | see vault |")
K("chat-double-quoted", "prose", human_pw,
  'the password is "«v»" (without the quotes obviously)',
  'I think it\'s "«v»" but it might have been changed by Tom')
K("chat-ssh-passphrase", "prose", human_pw,
  "my ssh key passphrase is «v», it keeps prompting on every git push, can you set up the agent?")
K("chat-totp-seed", "prose", G(("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32)),
  "2FA secret for the shared admin account (for the e2e test): «v»",
  "the TOTP seed is «v», generate the code with pyotp in the test")
K("chat-oops-pasted-real", "prose", M(ALNUM, 36),
  "oops I pasted my real key earlier: «v». I'll rotate it later, ignore it for now")
K("chat-assistant-confirms", "prose", human_pw,
  "I've set `DB_PASSWORD` to `«v»` in `.env.local` as you asked, and restarted the dev server.",
  "Updated the seed script: the admin user is now created with password «v».")
K("chat-it-email-temp", "prose", human_pw,
  "From: IT Service Desk\nSubject: Your account\n\nYour temporary password is: «v»\nYou will be asked to change it at first login.")
K("chat-login-for-dashboard", "prose", human_pw,
  "login for the grafana dashboard is admin and the password «v», check the alert rules there")
K("chat-connect-as", "prose", plain_password,
  "connect as reporting, pass=«v», read-only role, db analytics on «host»")
K("chat-diceware-passphrase", "prose", diceware,
  "the vault unseal passphrase is: «v»",
  "KeePass master passphrase (temporary, for the migration): «v»")
K("chat-api-key-and-secret", "prose", M(ALNUM, 40),
  "API key: «U:20»\nAPI secret: «v»\n(they're from the partner portal, sandbox env)")
K("chat-wifi-key", "prose", human_pw,
  "for the lab devices: SSID «proj»-iot, WPA2 key «v» — the esp32 firmware needs it in secrets.h")
K("chat-voice-typed", "prose", human_pw,
  "ok uh the password for that is «v» all one word, capital first letter")
K("chat-pin-and-puk", "prose", G(("0123456789", 12)),
  "the HSM admin PIN is «v», we need it for the pkcs11-tool step")

# ============================================================================================
# languages: the same in other languages
# ============================================================================================

K("lang-german", "languages", human_pw,
  ["Das Passwort für die Staging-DB ist «v», bitte nicht committen.",
   "Zugangsdaten: Benutzer «user», Kennwort «v»"],
  "Hier das neue Token: «v» – gilt bis Ende des Monats.")
K("lang-spanish", "languages", human_pw,
  ["la contraseña del servidor es «v»", "usuario: «user» / clave: «v»"],
  "oye, prueba con esta contraseña: «v»")
K("lang-french", "languages", human_pw,
  ["le mot de passe de la base est «v»", "identifiants : «user» / «v»"],
  "Voici le jeton d'accès : «v» (valable 24 h)")
K("lang-italian", "languages", human_pw,
  ["la password del database è «v»", "credenziali: utente root, pwd «v»"])
K("lang-portuguese", "languages", human_pw,
  ["a senha do banco é «v»", "segue a senha de acesso: «v»"],
  "o token de acesso novo é «v», pode testar?")
K("lang-dutch", "languages", human_pw,
  ["het wachtwoord voor de server is «v»", "inloggen met «user» en wachtwoord «v»"])
K("lang-polish", "languages", human_pw,
  ["hasło do bazy to «v»", "login: «user», hasło: «v»"])
K("lang-turkish", "languages", human_pw,
  ["veritabanı şifresi: «v»", "parola «v» olarak değişti"])
K("lang-russian", "languages", human_pw,
  ["пароль от базы: «v»", "логин «user», пароль «v»"],
  "вот токен для API: «v»")
K("lang-ukrainian", "languages", human_pw,
  "пароль до сервера: «v»")
K("lang-japanese", "languages", human_pw,
  ["ステージングのパスワードは«v»です", "DBのパスワード：«v»"],
  "APIキーはこちらです：«v»")
K("lang-chinese", "languages", human_pw,
  ["数据库密码是«v»，别泄露", "账号：«user» 密码：«v»"],
  "令牌：«v»")
K("lang-korean", "languages", human_pw,
  ["비밀번호는 «v» 입니다", "DB 비번: «v»"],
  "API 키: «v»")
K("lang-hindi-latin", "languages", human_pw,
  ["bhai password hai «v», staging wala", "token ye raha: «v» — kal tak chalega"])
K("lang-swedish", "languages", human_pw, "lösenordet till databasen är «v»")
K("lang-czech", "languages", human_pw, "heslo k databázi je «v»")
K("lang-vietnamese", "languages", human_pw, "mật khẩu máy chủ là «v»")
K("lang-indonesian", "languages", human_pw, "kata sandinya «v», jangan di-commit ya")
K("lang-arabic", "languages", human_pw, "كلمة المرور هي «v»")
K("lang-greek", "languages", human_pw, "ο κωδικός της βάσης είναι «v»")

# ============================================================================================
# cli: passwords and tokens on command lines and in shell sessions
# ============================================================================================

K("cli-psql-pgpassword", "cli", plain_password,
  "PGPASSWORD='«v»' psql -h «host» -U «user» -d «proj» -c '\\dt'",
  "$ export PGPASSWORD=«v»\n$ pg_dump -h «host» -U «user» -Fc «proj» > «proj».dump")
K("cli-mysql-attached", "cli", plain_password,
  ["mysql -h «host» -u root -p«v» «proj» < dump.sql",
   "mysqldump --user=«user» --password=«v» --single-transaction «proj» | gzip > backup.sql.gz"])
K("cli-mongosh", "cli", plain_password,
  "mongosh --host «host» -u admin -p «v» --authenticationDatabase admin")
K("cli-redis-cli", "cli", plain_password,
  ["redis-cli -h «host» -p 6379 -a «v» --no-auth-warning INFO memory",
   "redis-cli -h «host» --user default --pass «v» KEYS 'session:*'"],
  "127.0.0.1:6379> AUTH «v»\nOK\n127.0.0.1:6379> DBSIZE\n(integer) 48211")
K("cli-rabbitmq", "cli", plain_password,
  ["rabbitmqctl add_user ingest «v» && rabbitmqctl set_permissions -p / ingest '.*' '.*' '.*'",
   "rabbitmqadmin -H «host» -u admin -p «v» list queues name messages"])
K("cli-kafka-jaas", "cli", plain_password,
  "kafka-console-consumer --bootstrap-server «host»:9093 --topic «proj» --consumer-property security.protocol=SASL_SSL "
  "--consumer-property sasl.mechanism=PLAIN --consumer-property 'sasl.jaas.config=org.apache.kafka.common.security.plain."
  "PlainLoginModule required username=\"svc-«proj»\" password=\"«v»\";'")
K("cli-nats", "cli", M(ALNUM, 32),
  "nats context add prod --server nats://«host»:4222 --user «user» --password «v» --select")
K("cli-aws-configure-set", "cli", G((B64[:-2] + "+/", 40)),
  "aws configure set aws_secret_access_key «v» --profile ci",
  "$ aws configure\nAWS Access Key ID [None]: AKIA«U:16»\nAWS Secret Access Key [None]: «v»\nDefault region name [None]: eu-central-1\nDefault output format [None]: json")
K("cli-az-sp-login", "cli", G((ALNUM, 3), "8Q~", (ALNUM + "-_.~", 34)),
  "az login --service-principal -u «uuid» -p '«v»' --tenant «uuid»")
K("cli-gcloud-sql-password", "cli", plain_password,
  "gcloud sql users set-password «user» --instance=«proj»-pg --password='«v»'")
K("cli-sshpass-rsync", "cli", plain_password,
  ["sshpass -p '«v»' rsync -avz -e ssh ./dist/ deploy@«ip»:/var/www/«proj»/",
   "sshpass -p «v» scp backup.tar.gz «user»@«ip»:/srv/backups/"])
K("cli-lftp", "cli", plain_password,
  "lftp -u «user»,«v» sftp://files.«proj».example.com -e 'mirror -R build /htdocs; quit'")
K("cli-curl-ftp-user", "cli", plain_password,
  "curl -T report.csv ftp://ftp.«proj».example.com/upload/ --user «user»:«v»")
K("cli-smbclient", "cli", plain_password,
  ["smbclient //fs01/builds -U 'CORP\\«user»%«v»' -c 'get latest.zip'",
   "sudo mount -t cifs //fs01/share /mnt/share -o username=«user»,password=«v»,domain=CORP,vers=3.0"])
K("cli-docker-login-p", "cli", M(ALNUM, 32),
  ["docker login -u 'robot$ci' -p «v» harbor.«proj».io",
   "echo '«v»' | docker login registry.gitlab.example.com -u ci-bot --password-stdin"])
K("cli-skopeo-creds", "cli", plain_password,
  "skopeo copy --src-creds «user»:«v» docker://nexus.corp:8443/«proj»/api:1.4 docker://ghcr.io/acme/api:1.4")
K("cli-helm-set", "cli", plain_password,
  ["helm upgrade --install «proj» bitnami/postgresql --set auth.postgresPassword=«v» -n data",
   "helm repo add internal https://charts.corp.io --username ci --password «v»"])
K("cli-kubectl-create-secret", "cli", plain_password,
  ["kubectl create secret generic «proj»-db --from-literal=username=app --from-literal=password='«v»' -n prod",
   "kubectl create secret docker-registry regcred --docker-server=harbor.corp.io --docker-username=ci --docker-password=«v»"])
K("cli-yarn-npm-token", "cli", M(ALNUM, 36),
  "yarn config set npmAuthToken «v»",
  "npm config set //npm.corp.io/:_authToken «v»")
K("cli-twine-nexus", "cli", plain_password,
  "twine upload --repository-url https://nexus.corp.io/repository/pypi-internal/ -u «user» -p «v» dist/*")
K("cli-restic", "cli", human_pw,
  "RESTIC_PASSWORD='«v»' restic -r s3:s3.amazonaws.com/«proj»-backups snapshots --latest 3")
K("cli-borg", "cli", diceware,
  "BORG_PASSPHRASE='«v»' borg create --stats ssh://borg@backup.lan/./repo::{hostname}-{now} /srv /etc")
K("cli-curl-user", "cli", plain_password,
  ["curl -u admin:«v» http://localhost:15672/api/overview",
   "curl -s --user «user»:«v» https://jenkins.corp.io/job/«proj»/lastBuild/api/json | jq .result"])
K("cli-wget-password", "cli", plain_password,
  "wget --user=ci --password='«v»' https://nexus.corp.io/repository/raw/«proj»/release.tar.gz")
K("cli-httpie-token", "cli", M(ALNUM, 40),
  "http POST https://api.«proj».example.com/v1/jobs Authorization:'Token «v»' name=nightly")
K("cli-windows-net-use", "cli", plain_password,
  ["net use Z: \\\\fs01\\builds «v» /user:CORP\\«user» /persistent:no",
   "cmdkey /add:sql01.corp.local /user:CORP\\«user» /pass:«v»"])
K("cli-schtasks", "cli", plain_password,
  'schtasks /create /tn "Nightly ETL" /tr "C:\\etl\\run.cmd" /sc daily /st 02:00 /ru CORP\\svc_etl /rp «v»')
K("cli-powershell-securestring", "cli", human_pw,
  "$pw = ConvertTo-SecureString '«v»' -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential('CORP\\«user»', $pw)\nEnter-PSSession -ComputerName web01 -Credential $cred",
  "PS C:\\> Invoke-RestMethod -Uri https://api.corp.io/v1/users -Headers @{ Authorization = 'Bearer «v»' }")
K("cli-htpasswd", "cli", human_pw,
  "htpasswd -b -c /etc/nginx/.htpasswd admin '«v»'")
K("cli-openssl-passout", "cli", plain_password,
  ["openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:«v»",
   "openssl enc -aes-256-cbc -pbkdf2 -in secrets.tar -out secrets.tar.enc -k «v»"])
K("cli-keytool", "cli", plain_password,
  "keytool -importkeystore -srckeystore bundle.p12 -srcstoretype PKCS12 -srcstorepass «v» -destkeystore app.jks -deststorepass «v»")
K("cli-vault-kv-put", "cli", plain_password,
  "vault kv put secret/«proj»/db username=app password='«v»'")
K("cli-gh-secret-set", "cli", M(ALNUM, 40),
  'gh secret set DEPLOY_API_KEY --body "«v»" --repo acme/«proj»')
K("cli-heredoc-env", "cli", plain_password,
  "cat > .env <<'EOF'\nDB_HOST=«host»\nDB_USER=«user»\nDB_PASSWORD=«v»\nEOF")
K("cli-sudo-stdin", "cli", human_pw,
  ["echo '«v»' | sudo -S systemctl restart «proj»", "printf '%s\\n' '«v»' | sudo -S apt-get -y upgrade"])
K("cli-chpasswd", "cli", human_pw,
  "echo 'deploy:«v»' | sudo chpasswd")
K("cli-minio-mc", "cli", M(ALNUM, 40),
  "mc alias set local http://127.0.0.1:9000 minioadmin «v»")
K("cli-ldapsearch", "cli", plain_password,
  "ldapsearch -x -H ldaps://ldap.corp.io -D 'cn=admin,dc=corp,dc=io' -w «v» -b 'ou=people,dc=corp,dc=io' '(uid=«first»)'")
K("cli-sqlcmd", "cli", plain_password,
  "sqlcmd -S tcp:sql01.corp.local,1433 -U sa -P '«v»' -Q \"SELECT name FROM sys.databases\"")
K("cli-influx-setup", "cli", plain_password,
  "influx setup --org acme --bucket metrics --username admin --password «v» --force")
K("cli-clickhouse", "cli", plain_password,
  "clickhouse-client --host «host» --user default --password «v» --query 'SELECT count() FROM events'")
K("cli-cqlsh", "cli", plain_password, "cqlsh «ip» 9042 -u cassandra -p «v»")
K("cli-ansible-become", "cli", plain_password,
  "ansible-playbook -i inventory/prod site.yml -e 'ansible_become_password=«v»' --limit web")
K("cli-terraform-var", "cli", plain_password,
  ["terraform apply -var 'db_password=«v»' -auto-approve", "TF_VAR_db_password='«v»' terraform plan -out plan.tfplan"])
K("cli-env-grep-output", "cli", M(ALNUM, 48),
  "$ env | grep -i secret\nAPP_SECRET=«v»\nSECRET_SCANNING=off")
K("cli-heroku-config-output", "cli", M(ALNUM, 32),
  "$ heroku config -a «proj»-prod\n=== «proj»-prod Config Vars\nLOG_LEVEL:      info\nSESSION_SECRET: «v»\nWEB_CONCURRENCY: 2")
K("cli-openvpn-auth-file", "cli", human_pw,
  "printf '«user»\\n«v»\\n' > /etc/openvpn/client/auth.txt && chmod 600 /etc/openvpn/client/auth.txt")
K("cli-git-credential-approve", "cli", M(ALNUM, 40),
  "printf 'protocol=https\\nhost=git.corp.io\\nusername=«user»\\npassword=«v»\\n' | git credential approve")
K("cli-mysql-prompt-echo", "cli", plain_password,
  "$ mysql -u root -p\nEnter password: «v»\nERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)")

# ============================================================================================
# config: files developers paste or the agent reads
# ============================================================================================

K("cfg-dotenv-mixed", "config", M(ALNUM + "-_", 48),
  ["NODE_ENV=production\nPORT=8080\nSESSION_SECRET=«v»\nLOG_LEVEL=info",
   "# .env.production\nJWT_SIGNING_KEY=\"«v»\"\nJWT_TTL=3600",
   "COOKIE_SECRET='«v»'"])
K("cfg-spring-yaml", "config", plain_password,
  "spring:\n  datasource:\n    url: jdbc:postgresql://«host»:5432/«proj»\n    username: «user»\n    password: «v»\n  jpa:\n    open-in-view: false")
K("cfg-toml-database", "config", plain_password,
  '[database]\nhost = "«host»"\nuser = "«user»"\npassword = "«v»"\npool_size = 10')
K("cfg-my-cnf", "config", plain_password,
  "[client]\nuser=root\npassword=«v»\nhost=127.0.0.1")
K("cfg-appsettings-json", "config", plain_password,
  '{\n  "ConnectionStrings": {\n    "Default": "Server=sql01;Database=«proj»;User Id=sa;Password=«v»;TrustServerCertificate=True"\n  },\n  "Logging": { "LogLevel": { "Default": "Information" } }\n}')
K("cfg-tomcat-users-xml", "config", human_pw,
  '<tomcat-users>\n  <role rolename="manager-gui"/>\n  <user username="admin" password="«v»" roles="manager-gui"/>\n</tomcat-users>')
K("cfg-terraform-hcl", "config", plain_password,
  'resource "aws_db_instance" "main" {\n  engine         = "postgres"\n  username       = "«user»"\n  password       = "«v»"\n  instance_class = "db.t3.micro"\n}',
  'db_password = "«v»"  # terraform.tfvars')
K("cfg-java-properties", "config", plain_password,
  ["spring.datasource.password=«v»", "db.user = «user»\ndb.pass = «v»\ndb.url = jdbc:mysql://«host»:3306/«proj»"])
K("cfg-dockerfile-env", "config", plain_password,
  "FROM mysql:8.0\nENV MYSQL_ROOT_PASSWORD=«v»\nENV MYSQL_DATABASE=«proj»\nCOPY schema.sql /docker-entrypoint-initdb.d/")
K("cfg-compose-env", "config", plain_password,
  "services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_USER=«user»\n      - POSTGRES_PASSWORD=«v»\n    ports: [\"5432:5432\"]",
  "  redis:\n    image: redis:7\n    command: redis-server --requirepass «v»")
K("cfg-k8s-stringdata", "config", plain_password,
  "apiVersion: v1\nkind: Secret\nmetadata:\n  name: «proj»-db\ntype: Opaque\nstringData:\n  DB_PASSWORD: «v»")
K("cfg-gha-inline", "config", M(ALNUM, 40),
  "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      DEPLOY_TOKEN: «v»\n    steps:\n      - uses: actions/checkout@v4",
  "      - uses: docker/login-action@v3\n        with:\n          registry: harbor.corp.io\n          username: ci\n          password: «v»")
K("cfg-gitlab-ci-vars", "config", plain_password,
  "variables:\n  DEPLOY_USER: deployer\n  DEPLOY_PASSWORD: \"«v»\"\n\ndeploy:\n  stage: deploy\n  script: ./deploy.sh")
K("cfg-jenkinsfile", "config", plain_password,
  "stage('Publish') {\n  steps {\n    withEnv(['ARTIFACTORY_PASS=«v»']) {\n      sh './gradlew publish'\n    }\n  }\n}",
  "sh \"curl -fsS -u admin:«v» -X POST https://nexus.corp.io/service/rest/v1/components\"")
K("cfg-systemd-unit", "config", plain_password,
  "[Service]\nUser=«proj»\nEnvironment=\"DB_PASSWORD=«v»\"\nExecStart=/opt/«proj»/bin/server\nRestart=on-failure")
K("cfg-nginx-header", "config", M(ALNUM, 32),
  "location /api/ {\n    proxy_pass http://upstream_api;\n    proxy_set_header X-Api-Key «v»;\n}")
K("cfg-apache-setenv", "config", plain_password,
  "<VirtualHost *:443>\n  ServerName «proj».example.com\n  SetEnv DB_PASS «v»\n</VirtualHost>")
K("cfg-pgpass", "config", plain_password,
  "«host»:5432:«proj»:«user»:«v»", "$ cat ~/.pgpass\n*:*:*:postgres:«v»")
K("cfg-netrc", "config", M(ALNUM, 36),
  "machine api.«proj».example.com\n  login «email»\n  password «v»", "machine git.corp.io login ci password «v»")
K("cfg-npmrc-authtoken", "config", M(ALNUM, 40),
  "registry=https://npm.corp.io/\n//npm.corp.io/:_authToken=«v»\nalways-auth=true")
K("cfg-pypirc", "config", plain_password,
  "[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://nexus.corp.io/repository/pypi-internal/\nusername = «user»\npassword = «v»")
K("cfg-maven-settings", "config", plain_password,
  "<settings>\n  <servers>\n    <server>\n      <id>nexus-releases</id>\n      <username>deploy</username>\n      <password>«v»</password>\n    </server>\n  </servers>\n</settings>")
K("cfg-gradle-properties", "config", plain_password,
  "ossrhUsername=«user»\nossrhPassword=«v»\nsigning.keyId=«HEX:8»")
K("cfg-ssh-proxycommand", "config", plain_password,
  "Host internal-*\n    User «user»\n    ProxyCommand sshpass -p «v» ssh -W %h:%p jump@bastion.corp.io")
K("cfg-rclone-conf", "config", M(ALNUM, 31),
  "[b2]\ntype = b2\naccount = 005«hex:22»\nkey = K005«v»\nhard_delete = true")
K("cfg-rclone-webdav-obscured", "config", G((B64URL, 42)),
  "[nextcloud]\ntype = webdav\nurl = https://cloud.«proj».example.com/remote.php/dav/files/«first»\nvendor = nextcloud\nuser = «first»\npass = «v»")
K("cfg-git-credentials", "config", plain_password,
  "https://«first»:«v»@git.corp.io", "$ cat ~/.git-credentials\nhttps://ci-bot:«v»@bitbucket.org")
K("cfg-kubeconfig-token", "config", G("eyJhbGciOiJSUzI1NiIsImtpZCI6I", (B64URL, 40), ".eyJhdWQiOlsiaHR0cHM6Ly9rdWJlcm5ldGVz", (B64URL, 300), ".", (B64URL, 342)),
  "users:\n- name: ci-deployer\n  user:\n    token: «v»\ncontexts:\n- context: {cluster: prod, user: ci-deployer}\n  name: prod")
K("cfg-kubeadm-bootstrap", "config", G((LALNUM, 6), ".", (LALNUM, 16)),
  "kubeadm join 10.0.0.10:6443 --token «v» --discovery-token-ca-cert-hash sha256:«hex:64»")
K("cfg-aws-credentials-file", "config", G((B64[:-2] + "+/", 40)),
  "[default]\naws_access_key_id = AKIA«U:16»\naws_secret_access_key = «v»\n\n[ci]\nregion = us-east-1")
K("cfg-ansible-inventory", "config", plain_password,
  "[db]\ndb01 ansible_host=«ip» ansible_user=root ansible_password=«v»")
K("cfg-hocon", "config", plain_password,
  "db {\n  url = \"jdbc:postgresql://«host»/«proj»\"\n  user = \"«user»\"\n  password = \"«v»\"\n}")
K("cfg-helm-values", "config", plain_password,
  "redis:\n  architecture: standalone\n  auth:\n    enabled: true\n    password: «v»\n")
K("cfg-vscode-launch", "config", M(ALNUM, 40),
  '{\n  "type": "node",\n  "request": "launch",\n  "name": "API",\n  "program": "${workspaceFolder}/src/index.ts",\n  "env": { "PAYMENTS_API_SECRET": "«v»" }\n}')
K("cfg-docker-inspect-env", "config", plain_password,
  '$ docker inspect «proj»-db --format \'{{json .Config.Env}}\'\n["POSTGRES_PASSWORD=«v»","PGDATA=/var/lib/postgresql/data","PATH=/usr/local/sbin:/usr/local/bin"]')
K("cfg-supervisord", "config", M(ALNUM, 32),
  "[program:worker]\ncommand=/srv/«proj»/venv/bin/celery -A app worker\nenvironment=BROKER_PASSWORD=\"«v»\",C_FORCE_ROOT=\"1\"")
K("cfg-fstab-credentials", "config", plain_password,
  "$ sudo cat /etc/samba/creds-fs01\nusername=«user»\npassword=«v»\ndomain=CORP")
K("cfg-wp-config", "config", plain_password,
  "define( 'DB_NAME', '«proj»' );\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '«v»' );\ndefine( 'DB_HOST', 'localhost' );")
K("cfg-rails-master-key", "config", G((HEX, 32)),
  "$ cat config/master.key\n«v»", "RAILS_MASTER_KEY=«v»")
K("cfg-composer-auth-json", "config", M(ALNUM, 40),
  '{\n  "http-basic": {\n    "repo.packagist.com": { "username": "token", "password": "«v»" }\n  }\n}')
K("cfg-pip-conf", "config", plain_password,
  "[global]\nindex-url = https://«user»:«v»@nexus.corp.io/repository/pypi-all/simple\ntimeout = 60")
K("cfg-wireguard-psk", "config", lambda rng: b64_of(rbytes(rng, 32)),
  "[Peer]\nPublicKey = «a:43»=\nPresharedKey = «v»\nEndpoint = vpn.corp.io:51820\nAllowedIPs = 10.8.0.0/24")
K("cfg-mosquitto-bridge", "config", plain_password,
  "connection cloud-bridge\naddress «host»:8883\nremote_username «user»\nremote_password «v»\ntopic sensors/# out 1")
K("cfg-grafana-ini", "config", human_pw,
  "[security]\nadmin_user = admin\nadmin_password = «v»\nsecret_key = SW2YcwTIb9zpOOhoPsMm")
K("cfg-elasticsearch-keystore-yml", "config", plain_password,
  "xpack.security.enabled: true\nelasticsearch.username: kibana_system\nelasticsearch.password: «v»")

# ============================================================================================
# code: literals in many languages, and SQL
# ============================================================================================

K("code-python-psycopg", "code", plain_password,
  'conn = psycopg2.connect(host="«host»", dbname="«proj»", user="«user»", password="«v»")',
  'resp = requests.get(url, auth=("api", "«v»"), timeout=10)')
K("code-python-getenv-default", "code", M(ALNUM + "!@#%^&*(-_=+)", 50),
  'SECRET_KEY = os.getenv("DJANGO_SECRET_KEY", "«v»")',
  "SECRET_KEY = 'django-insecure-«v»'")
K("code-js-redis", "code", plain_password,
  "const redis = new Redis({ host: '«host»', port: 6379, password: '«v»' });",
  "const headers = { 'x-api-key': '«v»', 'content-type': 'application/json' };")
K("code-ts-config-const", "code", M(ALNUM, 48),
  'export const config = {\n  jwtSecret: "«v»",\n  jwtExpiresIn: "1h",\n} as const;')
K("code-go-sql-open", "code", plain_password,
  'db, err := sql.Open("postgres", "host=«host» user=«user» password=«v» dbname=«proj» sslmode=disable")',
  'req.SetBasicAuth("admin", "«v»")')
K("code-rust-bearer", "code", M(ALNUM, 40),
  'let resp = client.get(url).bearer_auth("«v»").send().await?;',
  'const API_KEY: &str = "«v»";')
K("code-java-jdbc", "code", plain_password,
  'Connection conn = DriverManager.getConnection(url, "«user»", "«v»");',
  'private static final String CLIENT_SECRET = "«v»";')
K("code-kotlin-okhttp", "code", plain_password,
  'val credential = Credentials.basic("svc", "«v»")\nval request = Request.Builder().url(url).header("Authorization", credential).build()')
K("code-csharp-connection", "code", plain_password,
  'var cs = "Server=tcp:«proj».database.windows.net,1433;Initial Catalog=«proj»;User ID=app;Password=«v»;Encrypt=True;";',
  'var cred = new NetworkCredential("svc_smtp", "«v»");')
K("code-php-pdo", "code", plain_password,
  "$pdo = new PDO('mysql:host=«host»;dbname=«proj»', '«user»', '«v»');")
K("code-wp-salts", "code", M(ALNUM + "!@#$%^&*()-_[]{}<>~+=,.;:/?|", 64),
  "define('AUTH_KEY',         '«v»');\ndefine('SECURE_AUTH_KEY',  'put your unique phrase here');")
K("code-ruby-secret-key-base", "code", G((HEX, 128)),
  'config.secret_key_base = "«v»"')
K("code-ruby-basic-auth", "code", plain_password,
  "req = Net::HTTP::Get.new(uri)\nreq.basic_auth 'reports', '«v»'")
K("code-swift-let", "code", M(ALNUM, 40),
  'let apiKey = "«v»"\nvar request = URLRequest(url: url)\nrequest.setValue("Bearer \\(apiKey)", forHTTPHeaderField: "Authorization")')
K("code-elixir-repo", "code", plain_password,
  'config :«proj», «proj».Repo,\n  username: "postgres",\n  password: "«v»",\n  hostname: "localhost"')
K("code-elixir-secret-key-base", "code", M(B64, 64),
  'config :«proj», «proj»Web.Endpoint,\n  secret_key_base: "«v»"')
K("code-shell-var", "code", M(ALNUM, 40),
  '#!/usr/bin/env bash\nset -euo pipefail\nAPI_TOKEN="«v»"\ncurl -fsS -H "Authorization: Bearer ${API_TOKEN}" https://api.«proj».example.com/health')
K("code-scala-getorelse", "code", plain_password,
  'val dbPassword = sys.env.getOrElse("DB_PASSWORD", "«v»")')
K("code-dart-const", "code", M(ALNUM, 40), "const String kApiKey = '«v»';")
K("code-lua-nginx", "code", M(ALNUM, 32),
  'local hmac_secret = "«v»"\nlocal digest = ngx.hmac_sha1(hmac_secret, ngx.var.request_uri)')
K("code-python-smtp-login", "code", human_pw,
  'with smtplib.SMTP_SSL("smtp.gmail.com", 465) as s:\n    s.login("«email»", "«v»")')
K("code-notebook-cell", "code", M(ALNUM, 40),
  '{"cell_type": "code", "source": ["import requests\\n", "API_KEY = \\"«v»\\"\\n", "r = requests.get(URL, params={\\"key\\": API_KEY})"]}')
K("code-test-fixture-real", "code", plain_password,
  'def test_login_prod_smoke(client):\n    r = client.post("/login", json={"email": "qa@acme.io", "password": "«v»"})\n    assert r.status_code == 200')
K("sql-create-user", "code", plain_password,
  ["CREATE USER «user» WITH PASSWORD '«v»';", "CREATE ROLE reporting LOGIN PASSWORD '«v»' VALID UNTIL '2027-01-01';"])
K("sql-alter-identified-by", "code", plain_password,
  ["ALTER USER 'root'@'%' IDENTIFIED BY '«v»';", "CREATE USER 'app'@'10.0.%' IDENTIFIED WITH mysql_native_password BY '«v»';"])
K("sql-mssql-login", "code", plain_password,
  "CREATE LOGIN etl_user WITH PASSWORD = N'«v»', CHECK_POLICY = OFF;")
K("sql-insert-api-key", "code", M(ALNUM, 40),
  "INSERT INTO api_keys (name, key, created_at) VALUES ('ci', '«v»', now());")
K("sql-oracle-identified", "code", plain_password,
  "CREATE USER app_owner IDENTIFIED BY \"«v»\" DEFAULT TABLESPACE users QUOTA UNLIMITED ON users;")
K("sql-dblink", "code", plain_password,
  "SELECT * FROM dblink('host=«host» dbname=«proj» user=«user» password=«v»', 'SELECT id FROM orders') AS t(id int);")

# ============================================================================================
# vendor: tokens of many vendors (prefixed, and bare next to the vendor's name)
# ============================================================================================

# AI providers
K("v-openai-proj", "vendor", G("sk-proj-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)),
  "OPENAI_API_KEY=«v»", 'client = OpenAI(api_key="«v»")', se=True)
K("v-openai-svcacct", "vendor", G("sk-svcacct-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)),
  "export OPENAI_API_KEY='«v»'  # service account for the eval runner", se=True)
K("v-anthropic-api", "vendor", G("sk-ant-api03-", (B64URL, 93), "AA"),
  "ANTHROPIC_API_KEY=«v»", 'curl https://api.anthropic.com/v1/messages -H "x-api-key: «v»" -H "anthropic-version: 2023-06-01"', se=True)
K("v-anthropic-admin", "vendor", G("sk-ant-admin01-", (B64URL, 93), "AA"),
  'curl https://api.anthropic.com/v1/organizations/api_keys -H "x-api-key: «v»"', se=True)
K("v-google-aiza", "vendor", G("AIza", (B64URL, 35)),
  'genai.configure(api_key="«v»")', "https://generativelanguage.googleapis.com/v1beta/models?key=«v»", se=True)
K("v-huggingface", "vendor", G("hf_", (UPPER + LOWER, 34)), "huggingface-cli login --token «v»", se=True)
K("v-groq", "vendor", G("gsk_", (ALNUM, 52)), "GROQ_API_KEY=«v»", se=True)
K("v-replicate", "vendor", G("r8_", (ALNUM, 37)), "export REPLICATE_API_TOKEN=«v»", se=True)
K("v-mistral-bare", "vendor", M(ALNUM, 32),
  ["mistral key: «v»", "MISTRAL_API_KEY=«v»", "here's the Mistral API key «v»"])
K("v-cohere-bare", "vendor", M(ALNUM, 40), 'co = cohere.Client("«v»")', "Cohere trial key «v»")
K("v-perplexity", "vendor", G("pplx-", (ALNUM, 48)), "PERPLEXITY_API_KEY=«v»", se=True)
K("v-xai", "vendor", G("xai-", (ALNUM, 80)), 'XAI_API_KEY="«v»"', se=True)
K("v-openrouter", "vendor", G("sk-or-v1-", (HEX, 64)), 'Authorization: Bearer «v»', se=True)
K("v-deepseek", "vendor", G("sk-", (HEX, 32)), 'client = OpenAI(api_key="«v»", base_url="https://api.deepseek.com")')
K("v-elevenlabs", "vendor", G("sk_", (HEX, 48)), "curl -H 'xi-api-key: «v»' https://api.elevenlabs.io/v1/voices")
K("v-pinecone", "vendor", G("pcsk_", (ALNUM, 5), "_", (ALNUM, 63)), 'pc = Pinecone(api_key="«v»")', se=True)
K("v-langsmith", "vendor", G("lsv2_pt_", (HEX, 32), "_", (HEX, 10)), "LANGSMITH_API_KEY=«v»", se=True)
K("v-wandb-bare", "vendor", G((HEX, 40)), "wandb login «v»", "WANDB_API_KEY=«v»")
K("v-together-bare", "vendor", G((HEX, 64)), "TOGETHER_API_KEY=«v»")
K("v-fireworks", "vendor", G("fw_", (ALNUM, 24)), "FIREWORKS_API_KEY=«v»", se=True)
# clouds and hosting
K("v-aws-boto3", "vendor", G((B64[:-2] + "+/", 40)),
  "s3 = boto3.client('s3', aws_access_key_id='AKIA«U:16»', aws_secret_access_key='«v»')")
K("v-aws-session-token", "vendor", G("IQoJb3JpZ2luX2VjE", (B64, 280)),
  "export AWS_SESSION_TOKEN=«v»", se=True)
K("v-azure-storage-connstr", "vendor", G((B64, 86), "=="),
  "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=«low:8»store;AccountKey=«v»;EndpointSuffix=core.windows.net")
K("v-azure-ad-secret", "vendor", G((ALNUM, 3), "8Q~", (ALNUM + "-_.~", 34)), "AZURE_CLIENT_SECRET=«v»")
K("v-digitalocean", "vendor", G("dop_v1_", (HEX, 64)), "doctl auth init -t «v»", se=True)
K("v-linode-bare", "vendor", G((HEX, 64)), "LINODE_TOKEN=«v»", "linode-cli token: «v»")
K("v-hetzner-bare", "vendor", G((ALNUM, 64)),
  "$ hcloud context create prod\nToken: «v»\nContext prod created and activated")
K("v-alibaba", "vendor", G((ALNUM, 30)),
  "aliyun configure set --profile prod --mode AK --access-key-id LTAI«a:20» --access-key-secret «v» --region cn-hangzhou")
K("v-cloudflare-token", "vendor", G((B64URL, 40)), "CLOUDFLARE_API_TOKEN=«v» npx wrangler deploy")
K("v-cloudflare-global", "vendor", G((HEX, 37)),
  "curl -X GET https://api.cloudflare.com/client/v4/zones -H 'X-Auth-Email: «email»' -H 'X-Auth-Key: «v»'")
K("v-vercel-bare", "vendor", G((ALNUM, 24)), "vercel deploy --prod --token «v»")
K("v-netlify", "vendor", G("nfp_", (ALNUM, 36)), "netlify deploy --prod --auth «v»", se=True)
K("v-flyio", "vendor", G("FlyV1 fm2_lJPE", (B64, 200), ",fm2_lJPE", (B64, 150)), 'FLY_API_TOKEN="«v»"')
K("v-heroku", "vendor", G("HRKU-AA", (B64URL, 58)),
  "$ heroku authorizations:create -d ci\nCreating OAuth Authorization... done\nID:          «uuid»\nDescription: ci\nToken:       «v»", se=True)
K("v-supabase-service-role", "vendor",
  lambda rng: jwt(rng, {"iss": "supabase", "ref": rs(rng, LOWER, 20), "role": "service_role", "iat": 1718000000 + rng.randrange(10**7), "exp": 2033000000}),
  "SUPABASE_SERVICE_ROLE_KEY=«v»")
K("v-supabase-pat", "vendor", G("sbp_", (HEX, 40)), "supabase login --token «v»", se=True)
K("v-render", "vendor", G("rnd_", (ALNUM, 32)), "RENDER_API_KEY=«v»", se=True)
# source hosting and CI/CD
K("v-github-fine-grained", "vendor", G("github_pat_11", (UALNUM, 20), "_", (ALNUM, 59)),
  "git remote set-url origin https://«first»:«v»@github.com/acme/«proj».git", se=True)
K("v-github-oauth-status", "vendor", G("gho_", (ALNUM, 36)),
  "$ gh auth status -t\ngithub.com\n  ✓ Logged in to github.com account «first» (keyring)\n  - Token: «v»", se=True)
K("v-github-app-install", "vendor", G("ghs_", (ALNUM, 36)),
  'git -c http.extraheader="AUTHORIZATION: bearer «v»" fetch origin', se=True)
K("v-gitlab-runner", "vendor", G("glrt-", (B64URL, 20)),
  "gitlab-runner register --non-interactive --url https://gitlab.corp.io --token «v» --executor docker", se=True)
K("v-gitlab-deploy", "vendor", G("gldt-", (B64URL, 20)),
  "docker login registry.gitlab.corp.io -u gitlab+deploy-token-17 -p «v»", se=True)
K("v-bitbucket-app-password", "vendor", G("ATBB", (ALNUM, 28), (HEXU, 8)),
  "git clone https://«first»:«v»@bitbucket.org/acme/«proj».git", se=True)
K("v-atlassian-api", "vendor", G("ATATT3xFfGF0", (B64URL, 180), "=", (HEXU, 8)),
  "curl -u «email»:«v» https://acme.atlassian.net/rest/api/3/myself", se=True)
K("v-circleci", "vendor", G("CCIPAT_", (ALNUM, 22), "_", (HEX, 40)),
  "curl -H 'Circle-Token: «v»' https://circleci.com/api/v2/me", se=True)
K("v-buildkite", "vendor", G("bkua_", (HEX, 40)), "BUILDKITE_API_TOKEN=«v»", se=True)
K("v-azure-devops-pat", "vendor", G((LOWER[:26] + "234567", 52)),
  "AZURE_DEVOPS_EXT_PAT=«v» az devops project list --org https://dev.azure.com/acme")
K("v-jenkins-api-token", "vendor", G("11", (HEX, 32)),
  "curl -X POST -u jenkins-bot:«v» https://ci.corp.io/job/«proj»/buildWithParameters?BRANCH=main")
K("v-dockerhub-pat", "vendor", G("dckr_pat_", (B64URL, 27)), "echo «v» | docker login -u acmebot --password-stdin", se=True)
K("v-jfrog-apikey", "vendor", G("AKCp", (ALNUM, 69)),
  'curl -H "X-JFrog-Art-Api: «v»" -T app.jar https://acme.jfrog.io/artifactory/libs-release-local/app.jar', se=True)
K("v-sonarqube", "vendor", G("squ_", (HEX, 40)), "sonar-scanner -Dsonar.host.url=https://sonar.corp.io -Dsonar.token=«v»", se=True)
K("v-snyk-uuid", "vendor", uuid4, "snyk auth «v»", "SNYK_TOKEN=«v»")
K("v-terraform-cloud", "vendor", G((ALNUM, 14), ".atlasv1.", (ALNUM, 67)),
  '{\n  "credentials": {\n    "app.terraform.io": {\n      "token": "«v»"\n    }\n  }\n}', se=True)
K("v-pulumi", "vendor", G("pul-", (HEX, 40)), "PULUMI_ACCESS_TOKEN=«v» pulumi up --yes", se=True)
K("v-doppler", "vendor", G("dp.st.prd.", (ALNUM, 43)), "DOPPLER_TOKEN=«v»", se=True)
K("v-vault-token", "vendor", G("hvs.CAESI", (B64URL, 86)), "VAULT_TOKEN=«v» vault kv get secret/«proj»", se=True)
K("v-1password-sa", "vendor", G("ops_eyJzaWduSW5BZGRyZXNzIjoi", (B64URL, 320)), "export OP_SERVICE_ACCOUNT_TOKEN=«v»", se=True)
# payments and commerce
K("v-stripe-live", "vendor", G("sk_live_51", (ALNUM, 96)), "STRIPE_SECRET_KEY=«v»", 'Stripe.api_key = "«v»"', se=True)
K("v-stripe-restricted", "vendor", G("rk_live_51", (ALNUM, 96)), "stripe listen --api-key «v»", se=True)
K("v-stripe-webhook", "vendor", G("whsec_", (ALNUM, 32)), "STRIPE_WEBHOOK_SECRET=«v»", se=True)
K("v-braintree", "vendor", G("access_token$production$", (LALNUM, 16), "$", (HEX, 32)),
  "BRAINTREE_ACCESS_TOKEN='«v»'", se=True)
K("v-square", "vendor", G("EAAA", (B64URL, 60)), "SQUARE_ACCESS_TOKEN=«v»", se=True)
K("v-razorpay-secret", "vendor", G((ALNUM, 24)), 'client = razorpay.Client(auth=("rzp_live_«a:14»", "«v»"))')
K("v-shopify", "vendor", G("shpat_", (HEX, 32)),
  "curl -H 'X-Shopify-Access-Token: «v»' https://acme.myshopify.com/admin/api/2024-01/shop.json", se=True)
K("v-mollie", "vendor", G("live_", (ALNUM, 30)), "MOLLIE_API_KEY=«v»")
K("v-plaid-bare", "vendor", G((HEX, 30)), "PLAID_CLIENT_ID=«hex:24»\nPLAID_SECRET=«v»\nPLAID_ENV=production")
K("v-flutterwave", "vendor", G("FLWSECK-", (HEX, 32), "-X"), "FLW_SECRET_KEY=«v»", se=True)
K("v-paystack", "vendor", G("sk_live_", (HEX, 40)), "curl https://api.paystack.co/transaction -H 'Authorization: Bearer «v»'", se=True)
# messaging and email
K("v-slack-bot", "vendor", G("xoxb-", (DIGITS, 12), "-", (DIGITS, 13), "-", (ALNUM, 24)), "SLACK_BOT_TOKEN=«v»", se=True)
K("v-slack-webhook", "vendor", G("https://hooks.slack.com/services/T", (UALNUM, 10), "/B", (UALNUM, 10), "/", (ALNUM, 24)),
  "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' «v»", se=True)
K("v-slack-app-level", "vendor", G("xapp-1-A", (UALNUM, 10), "-", (DIGITS, 13), "-", (HEX, 64)), "SLACK_APP_TOKEN=«v»", se=True)
K("v-discord-bot", "vendor",
  lambda rng: b64_of(str(rng.randrange(10**17, 10**18 * 2)).encode(), pad=False) + "." + rs(rng, B64URL, 6) + "." + rs(rng, B64URL, 38),
  "client.run('«v»')", "DISCORD_TOKEN=«v»")
K("v-discord-webhook", "vendor", G("https://discord.com/api/webhooks/", (DIGITS, 19), "/", (B64URL, 68)),
  "DISCORD_WEBHOOK_URL=«v»", se=True)
K("v-telegram-bot", "vendor", G((DIGITS, 10), ":AA", (B64URL, 33)),
  "curl https://api.telegram.org/bot«v»/getUpdates", "TELEGRAM_BOT_TOKEN=«v»")
K("v-twilio-auth", "vendor", G((HEX, 32)),
  "TWILIO_ACCOUNT_SID=AC«hex:32»\nTWILIO_AUTH_TOKEN=«v»", "curl -u AC«hex:32»:«v» https://api.twilio.com/2010-04-01/Accounts.json")
K("v-twilio-api-key-secret", "vendor", G((ALNUM, 32)),
  "client = Client('SK«hex:32»', '«v»', 'AC«hex:32»')")
K("v-sendgrid", "vendor", G("SG.", (B64URL, 22), ".", (B64URL, 43)), "SENDGRID_API_KEY=«v»", se=True)
K("v-mailgun", "vendor", G("key-", (HEX, 32)), "curl -s --user 'api:«v»' https://api.mailgun.net/v3/mg.acme.io/messages", se=True)
K("v-mailchimp", "vendor", G((HEX, 32), "-us", (DIGITS, 2)), "MAILCHIMP_API_KEY=«v»")
K("v-postmark", "vendor", uuid4, "curl https://api.postmarkapp.com/email -H 'X-Postmark-Server-Token: «v»'")
K("v-vonage-secret", "vendor", G((ALNUM, 16)), "vonage auth set --api-key=«hex:8» --api-secret=«v»")
K("v-resend", "vendor", G("re_", (ALNUM, 8), "_", (ALNUM, 24)), "RESEND_API_KEY=«v»", se=True)
K("v-brevo", "vendor", G("xkeysib-", (HEX, 64), "-", (ALNUM, 16)), "BREVO_API_KEY=«v»", se=True)
K("v-teams-webhook", "vendor",
  G("https://acme.webhook.office.com/webhookb2/", uuid4, "@", uuid4, "/IncomingWebhook/", (HEX, 32), "/", uuid4, "/V2", (B64URL, 44)),
  "TEAMS_WEBHOOK=«v»", se=True)
# monitoring and observability
K("v-datadog-api-bare", "vendor", G((HEX, 32)), "DD_API_KEY=«v» DD_SITE=datadoghq.eu bash -c \"$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)\"")
K("v-datadog-app-bare", "vendor", G((HEX, 40)),
  "curl -X GET 'https://api.datadoghq.com/api/v1/monitor' -H 'DD-API-KEY: «hex:32»' -H 'DD-APPLICATION-KEY: «v»'")
K("v-newrelic-user", "vendor", G("NRAK-", (UALNUM, 27)), "NEW_RELIC_API_KEY=«v»", se=True)
K("v-newrelic-license", "vendor", G((HEX, 36), "NRAL"), "license_key: «v»\napp_name: «proj»-api")
K("v-sentry-dsn", "vendor", G("https://", (HEX, 32), "@o", (DIGITS, 6), ".ingest.us.sentry.io/", (DIGITS, 7)),
  'sentry_sdk.init(dsn="«v»", traces_sample_rate=0.2)')
K("v-sentry-org-token", "vendor", G("sntrys_eyJpYXQiOjE3", (B64URL, 140), "_", (B64URL, 43)),
  "SENTRY_AUTH_TOKEN=«v» sentry-cli sourcemaps upload ./dist", se=True)
K("v-grafana-sa", "vendor", G("glsa_", (ALNUM, 32), "_", (HEX, 8)), "GRAFANA_TOKEN=«v»", se=True)
K("v-grafana-cloud", "vendor", G("glc_eyJvIjoi", (B64, 120), "In19"), "GRAFANA_CLOUD_TOKEN=«v»", se=True)
K("v-pagerduty", "vendor", G("u+", (B64URL, 18)), "curl -H 'Authorization: Token token=«v»' https://api.pagerduty.com/incidents")
K("v-splunk-hec", "vendor", uuid4,
  'curl -k https://splunk.corp.io:8088/services/collector -H "Authorization: Splunk «v»" -d \'{"event": "deploy"}\'')
K("v-rollbar-bare", "vendor", G((HEX, 32)), "ROLLBAR_ACCESS_TOKEN=«v»")
K("v-dynatrace", "vendor", G("dt0c01.", (UALNUM, 24), ".", (UALNUM, 64)), "DT_API_TOKEN=«v»", se=True)
K("v-axiom", "vendor", G("xaat-", uuid4), "AXIOM_TOKEN=«v»", se=True)
K("v-honeycomb-bare", "vendor", G((ALNUM, 22)), "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=«v»")
K("v-elastic-cloud-apikey", "vendor", lambda rng: b64_of(f"{rs(rng, B64URL, 20)}:{rs(rng, B64URL, 22)}".encode()),
  'es = Elasticsearch(cloud_id=CLOUD_ID, api_key="«v»")')
# databases and data services
K("v-planetscale", "vendor", G("pscale_pw_", (B64URL, 43)), "DATABASE_PASSWORD=«v»", se=True)
K("v-neon", "vendor", G("napi_", (LALNUM, 60)), "NEON_API_KEY=«v»", se=True)
K("v-upstash-rest", "vendor", G("AX", (B64, 58), "="), "UPSTASH_REDIS_REST_TOKEN=«v»")
K("v-algolia-admin-bare", "vendor", G((HEX, 32)), 'client = algoliasearch("«U:10»", "«v»")  # admin key')
K("v-airtable", "vendor", G("pat", (ALNUM, 14), ".", (HEX, 64)), "AIRTABLE_TOKEN=«v»", se=True)
K("v-notion", "vendor", G("ntn_", (ALNUM, 46)), 'notion = Client(auth="«v»")', se=True)
K("v-notion-legacy", "vendor", G("secret_", (ALNUM, 43)), "NOTION_TOKEN=«v»", se=True)
K("v-contentful", "vendor", G("CFPAT-", (B64URL, 43)), "contentful login --management-token «v»", se=True)
K("v-firebase-fcm", "vendor", G("AAAA", (B64URL, 7), ":APA91b", (B64URL, 134)),
  "curl -X POST -H 'Authorization: key=«v»' -H 'Content-Type: application/json' https://fcm.googleapis.com/fcm/send", se=True)
K("v-databricks", "vendor", G("dapi", (HEX, 32)), "databricks configure --token\nDatabricks Host: https://adb-«d:16».7.azuredatabricks.net\nToken: «v»", se=True)
K("v-confluent-secret", "vendor", G((B64, 64)),
  "confluent api-key store «U:16» «v» --resource lkc-«l:6»")
# auth providers and identity
K("v-okta-ssws", "vendor", G("00", (B64URL, 40)),
  'curl -H "Authorization: SSWS «v»" https://acme.okta.com/api/v1/users?limit=25')
K("v-auth0-client-secret", "vendor", G((B64URL, 64)), "AUTH0_CLIENT_ID=«a:32»\nAUTH0_CLIENT_SECRET=«v»")
K("v-clerk", "vendor", G("sk_live_", (ALNUM, 40)), "CLERK_SECRET_KEY=«v»", se=True)
K("v-google-oauth-secret", "vendor", G("GOCSPX-", (B64URL, 28)),
  '{"web":{"client_id":"«d:12»-«l:32».apps.googleusercontent.com","client_secret":"«v»","redirect_uris":["http://localhost:8080/callback"]}}', se=True)
K("v-google-refresh", "vendor", G("1//0", (B64URL, 99)), "GOOGLE_REFRESH_TOKEN=«v»", se=True)
K("v-consul-acl", "vendor", uuid4, "CONSUL_HTTP_TOKEN=«v» consul members")
# package registries
K("v-npm", "vendor", G("npm_", (ALNUM, 36)), "//registry.npmjs.org/:_authToken=«v»", se=True)
K("v-pypi", "vendor", G("pypi-AgEIcHlwaS5vcmc", (B64URL, 150)), "twine upload -u __token__ -p «v» dist/*", se=True)
K("v-rubygems", "vendor", G("rubygems_", (HEX, 48)), "GEM_HOST_API_KEY=«v» gem push pkg/«proj»-1.2.0.gem", se=True)
K("v-nuget", "vendor", G("oy2", (LALNUM, 43)),
  "dotnet nuget push bin/Release/*.nupkg --api-key «v» --source https://api.nuget.org/v3/index.json", se=True)
K("v-crates", "vendor", G("cio", (ALNUM, 32)), "cargo login «v»", se=True)
# productivity, SaaS and the rest
K("v-postman", "vendor", G("PMAK-", (HEX, 24), "-", (HEX, 34)), "newman run collection.json --env-var apiKey=«v»", se=True)
K("v-figma", "vendor", G("figd_", (B64URL, 40)), "curl -H 'X-Figma-Token: «v»' https://api.figma.com/v1/files/«a:22»", se=True)
K("v-linear", "vendor", G("lin_api_", (ALNUM, 40)), "LINEAR_API_KEY=«v»", se=True)
K("v-mapbox-secret", "vendor", G("sk.eyJ1IjoiYWNtZSIsImEiOiJ", (B64URL, 30), "In0.", (B64URL, 22)), "MAPBOX_DOWNLOADS_TOKEN=«v»", se=True)
K("v-dropbox", "vendor", G("sl.B", (B64URL, 135)), "DROPBOX_ACCESS_TOKEN=«v»", se=True)
K("v-hubspot", "vendor", G("pat-na1-", uuid4), "HUBSPOT_ACCESS_TOKEN=«v»", se=True)
K("v-tailscale", "vendor", G("tskey-auth-k", (ALNUM, 10), "CNTRL-", (ALNUM, 33)), "sudo tailscale up --authkey=«v» --ssh", se=True)
K("v-ngrok", "vendor", G("2", (ALNUM, 26), "_", (ALNUM, 21)), "ngrok config add-authtoken «v»")
K("v-launchdarkly-sdk", "vendor", G("sdk-", uuid4), "LAUNCHDARKLY_SDK_KEY=«v»", se=True)
K("v-posthog-personal", "vendor", G("phx_", (ALNUM, 43)), "POSTHOG_PERSONAL_API_KEY=«v»", se=True)
K("v-shippo", "vendor", G("shippo_live_", (HEX, 40)), "SHIPPO_API_TOKEN=«v»", se=True)
K("v-easypost", "vendor", G("EZAK", (ALNUM, 54)), "EASYPOST_API_KEY=«v»", se=True)
K("v-twitch-secret", "vendor", G((LALNUM, 30)), "TWITCH_CLIENT_ID=«l:30»\nTWITCH_CLIENT_SECRET=«v»")
K("v-twitter-bearer", "vendor", G("AAAAAAAAAAAAAAAAAAAAA", (ALNUM, 30), "%3D", (ALNUM, 50)), "TWITTER_BEARER_TOKEN=«v»")
K("v-facebook-page", "vendor", G("EAA", (ALNUM, 180)), "FB_PAGE_ACCESS_TOKEN=«v»", se=True)
K("v-cloudinary-url", "vendor", G("cloudinary://", (DIGITS, 15), ":", (B64URL, 27), "@acme"), "CLOUDINARY_URL=«v»", se=True)
K("v-sourcegraph", "vendor", G("sgp_", (HEX, 40)), "SRC_ACCESS_TOKEN=«v» src search 'repo:acme/«proj» TODO'", se=True)
K("v-prefect", "vendor", G("pnu_", (ALNUM, 36)), "prefect cloud login --key «v»", se=True)
K("v-zendesk-bare", "vendor", G((ALNUM, 40)), "curl https://acme.zendesk.com/api/v2/tickets.json -u «email»/token:«v»")
K("v-asana", "vendor", G("2/", (DIGITS, 16), "/", (DIGITS, 16), ":", (HEX, 32)), "ASANA_PAT=«v»")
K("v-codecov-uuid", "vendor", uuid4, "bash <(curl -s https://codecov.io/bash) -t «v»")
K("v-browserstack-bare", "vendor", G((ALNUM, 20)), "BROWSERSTACK_USERNAME=«first»_«l:6»\nBROWSERSTACK_ACCESS_KEY=«v»")
K("v-fastly-bare", "vendor", G((B64URL, 32)), "curl -H 'Fastly-Key: «v»' -X POST https://api.fastly.com/service/«a:22»/purge_all")
K("v-akamai-edgerc", "vendor", G((B64, 43), "="),
  "[default]\nclient_secret = «v»\nhost = akab-«l:16»-«l:16».luna.akamaiapis.net\naccess_token = akab-«l:16»-«l:16»\nclient_token = akab-«l:16»-«l:16»")
K("v-infracost", "vendor", G("ico-", (ALNUM, 32)), "infracost configure set api_key «v»", se=True)
K("v-adafruit-io", "vendor", G("aio_", (ALNUM, 28)), '#define IO_KEY "«v»"', se=True)
K("v-sumologic-bare", "vendor", G((ALNUM, 64)), "SUMO_ACCESS_ID=su«a:12»\nSUMO_ACCESS_KEY=«v»")

# ============================================================================================
# encoded: base64, percent-, JSON-, unicode-escaped; query strings; Authorization schemes
# ============================================================================================


def _basic_header(rng: random.Random, v: str):
    token = b64(f"{username(rng)}:{v}")
    text = rng.choice([f"Authorization: Basic {token}",
                       f"curl -H 'Authorization: Basic {token}' https://nexus.corp.io/service/rest/v1/status",
                       f"> GET /api/v1/export HTTP/1.1\n> Host: reports.corp.io\n> Authorization: Basic {token}\n> User-Agent: curl/8.5.0"])
    return text, [(token, B64W)]


def _b64_env_line(rng: random.Random, v: str):
    blob = b64(f"DB_HOST={host(rng)}\nDB_PASSWORD={v}\n")
    return f"echo '{blob}' | base64 -d > .env", [(blob, B64W)]


def _k8s_data(rng: random.Random, v: str):
    enc = b64(v)
    text = (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {rng.choice(_PROJ)}-creds\ntype: Opaque\ndata:\n"
            f"  username: {b64(username(rng))}\n  password: {enc}\n")
    return text, [(enc, B64W)]


def _kubectl_get_secret(rng: random.Random, v: str):
    enc = b64(v)
    return (f"$ kubectl get secret {rng.choice(_PROJ)}-api -o jsonpath='{{.data.API_KEY}}'\n{enc}", [(enc, B64W)])


def _docker_config(rng: random.Random, v: str):
    token = b64(f"{username(rng)}:{v}")
    return ('{\n  "auths": {\n    "harbor.corp.io": {\n      "auth": "' + token + '"\n    }\n  }\n}', [(token, B64W)])


def _npmrc_auth(rng: random.Random, v: str):
    token = b64(f"{username(rng)}:{v}")
    return f"registry=https://nexus.corp.io/repository/npm-group/\n_auth={token}\nalways-auth=true", [(token, B64W)]


def _json_escaped(rng: random.Random, v: str):
    inner = json.dumps({"username": username(rng), "password": v})
    return json.dumps({"level": "debug", "msg": "request body", "body": inner})


def _u_escaped(rng: random.Random, v: str):
    esc = u_escaped(v)
    return '{"db": {"user": "app", "password": "' + esc + '"}}', [(esc, 60)]


def _query_secret(rng: random.Random, v: str):
    enc = pct(v)
    text = rng.choice([
        f"POST /oauth/token?grant_type=client_credentials&client_id={rs(rng, LALNUM, 20)}&client_secret={enc} HTTP/1.1",
        f"https://api.corp.io/v1/export?format=csv&api_key={enc}&since=2026-01-01",
    ])
    return text, [(enc, pct_window(v))]


def _form_body(rng: random.Random, v: str):
    enc = pct(v)
    return (f"curl -X POST https://auth.corp.io/oauth/token -d 'grant_type=password&username={username(rng)}&password={enc}'",
            [(enc, pct_window(v))])


def _pwsh_encoded(rng: random.Random, v: str):
    cmd = f"$p = ConvertTo-SecureString '{v}' -AsPlainText -Force; New-LocalUser -Name svc_backup -Password $p"
    enc = base64.b64encode(cmd.encode("utf-16-le")).decode()
    return f"powershell.exe -NoProfile -EncodedCommand {enc}", [(enc, 27)]


def _elastic_apikey(rng: random.Random, v: str):
    token = b64(f"{rs(rng, B64URL, 20)}:{v}")
    return f"curl -H 'Authorization: ApiKey {token}' https://es01.corp.io:9200/_cat/indices", [(token, B64W)]


def _git_extraheader(rng: random.Random, v: str):
    token = b64(f"x-access-token:{v}")
    return f'git config --global http.https://github.com/.extraheader "AUTHORIZATION: basic {token}"', [(token, B64W)]


def _hex_key(rng: random.Random, v: str):
    hx = v.encode().hex()
    return f"ENCRYPTION_PASSPHRASE_HEX={hx}", [(hx, 20)]


def _b64_json_creds(rng: random.Random, v: str):
    blob = b64(json.dumps({"client_id": rs(rng, LALNUM, 24), "client_secret": v, "tenant": "acme"}))
    return f"PARTNER_CREDENTIALS_B64={blob}", [(blob, B64W)]


def _url_in_json_escaped(rng: random.Random, v: str):
    return ('{"command": "curl -H \\"Authorization: Bearer ' + v + '\\" https://api.corp.io/v1/me"}')


def _python_bytes_b64(rng: random.Random, v: str):
    enc = b64(v)
    return f"SIGNING_KEY = base64.b64decode(\"{enc}\")", [(enc, B64W)]


K("enc-basic-header", "encoded", plain_password, _basic_header)
K("enc-b64-env-line", "encoded", plain_password, _b64_env_line)
K("enc-k8s-secret-data", "encoded", plain_password, _k8s_data, _kubectl_get_secret)
K("enc-docker-config-auth", "encoded", plain_password, _docker_config)
K("enc-npmrc-auth", "encoded", plain_password, _npmrc_auth)
K("enc-json-escaped-body", "encoded", human_pw, _json_escaped)
K("enc-unicode-escaped", "encoded", human_pw, _u_escaped)
K("enc-query-client-secret", "encoded", awkward, _query_secret, _form_body)
K("enc-powershell-encodedcommand", "encoded", plain_password, _pwsh_encoded)
K("enc-elastic-apikey-header", "encoded", G((B64URL, 22)), _elastic_apikey)
K("enc-git-extraheader-basic", "encoded", G("ghs_", (ALNUM, 36)), _git_extraheader)
K("enc-hex-passphrase", "encoded", human_pw, _hex_key)
K("enc-b64-json-credentials", "encoded", M(ALNUM, 40), _b64_json_creds)
K("enc-json-escaped-command", "encoded", M(ALNUM, 40), _url_in_json_escaped)
K("enc-python-b64decode", "encoded", M(ALNUM, 32), _python_bytes_b64)
K("hdr-token-scheme", "encoded", G((HEX, 40)),
  ["Authorization: Token «v»", "curl -H 'Authorization: Token «v»' https://api.«proj».example.com/api/v1/items/"])
K("hdr-x-auth-token", "encoded", M(ALNUM, 32),
  "curl -H 'X-Auth-Token: «v»' https://openstack.corp.io:8774/v2.1/servers")
K("hdr-cookie-session", "encoded", G((LALNUM, 32)),
  "Cookie: csrftoken=«a:32»; sessionid=«v»", "Set-Cookie: __Host-session=«v»; Path=/; Secure; HttpOnly; SameSite=Lax")
K("hdr-private-token", "encoded", G((B64URL, 20)),
  "curl --header 'PRIVATE-TOKEN: «v»' https://gitlab.corp.io/api/v4/projects")
K("hdr-api-key-query", "encoded", M(ALNUM, 32),
  "GET https://maps.partner.io/v3/geocode?address=Main%20St&apikey=«v» 200 OK (143ms)")

# ============================================================================================
# uri: credentials in URIs of many schemes, some with awkward characters
# ============================================================================================


def _uri_encoded(template: str):
    def render(rng: random.Random, v: str):
        enc = pct(v)
        return fill(rng, template.replace("«v»", enc), v), [(enc, pct_window(v))]

    return render


K("uri-postgres", "uri", plain_password,
  ["DATABASE_URL=postgresql://«user»:«v»@«host»:5432/«proj»?sslmode=require",
   'engine = create_engine("postgresql+psycopg://«user»:«v»@«host»/«proj»")'])
K("uri-postgres-awkward", "uri", awkward,
  _uri_encoded("DATABASE_URL=postgres://«user»:«v»@«host»:5432/«proj»"),
  "psql 'postgres://«user»:«v»@«host»:5432/«proj»'  # fails: could not translate host name")
K("uri-mysql-pymysql", "uri", plain_password, "SQLALCHEMY_DATABASE_URI=mysql+pymysql://«user»:«v»@«host»:3306/«proj»?charset=utf8mb4")
K("uri-mongodb-srv", "uri", awkward,
  _uri_encoded('MONGODB_URI="mongodb+srv://«user»:«v»@cluster0.«l:5».mongodb.net/«proj»?retryWrites=true&w=majority"'))
K("uri-redis", "uri", plain_password,
  ["REDIS_URL=redis://:«v»@«host»:6379/0", "rediss://default:«v»@«l:8»-«l:6».upstash.io:6379"])
K("uri-amqp", "uri", plain_password, "CELERY_BROKER_URL=amqp://«user»:«v»@mq.internal:5672/«proj»")
K("uri-sftp", "uri", plain_password, "duplicity /srv sftp://«user»:«v»@backup.lan//backups/«proj»")
K("uri-smb", "uri", plain_password, "smb://CORP;«user»:«v»@fs01.corp.local/builds")
K("uri-https-basic", "uri", plain_password,
  "pip install --extra-index-url https://«user»:«v»@nexus.corp.io/repository/pypi-all/simple «proj»-client")
K("uri-git-oauth2", "uri", M(ALNUM, 40),
  "git clone https://oauth2:«v»@git.corp.io/platform/«proj».git")
K("uri-jdbc-sqlserver", "uri", plain_password,
  "jdbc:sqlserver://sql01.corp.local:1433;databaseName=«proj»;user=sa;password=«v»;encrypt=true;trustServerCertificate=true")
K("uri-jdbc-query", "uri", plain_password, "jdbc:postgresql://«host»:5432/«proj»?user=«user»&password=«v»&ssl=true")
K("uri-http-proxy", "uri", awkward,
  _uri_encoded("export HTTPS_PROXY=http://«first»:«v»@proxy.corp.local:8080"),
  "export https_proxy=http://«first»:«v»@proxy.corp.local:3128")
K("uri-rtsp-camera", "uri", plain_password,
  "ffmpeg -rtsp_transport tcp -i 'rtsp://admin:«v»@192.168.1.64:554/Streaming/Channels/101' -frames:v 1 snap.jpg")
K("uri-mqtt", "uri", plain_password, "mosquitto_sub -L mqtt://«user»:«v»@broker.«proj».io:1883/sensors/#")
K("uri-neo4j", "uri", plain_password, "NEO4J_URI=neo4j+s://neo4j:«v»@«l:8».databases.neo4j.io")
K("uri-oracle", "uri", plain_password, "oracle+oracledb://scott:«v»@db.corp.local:1521/?service_name=ORCLPDB1")
K("uri-elastic", "uri", plain_password, "curl -k https://elastic:«v»@es01.corp.io:9200/_cluster/health?pretty")
K("uri-couchdb", "uri", plain_password, "COUCHDB_URL=http://admin:«v»@localhost:5984/")
K("uri-ftp-browser", "uri", plain_password, "open ftp://«user»:«v»@ftp.«proj».example.com/public_html/ in Finder")
K("uri-nats-user", "uri", plain_password, "NATS_URL=nats://«user»:«v»@nats.internal:4222")
K("uri-clickhouse-https", "uri", plain_password, "clickhouse://default:«v»@«l:10».eu-west-1.aws.clickhouse.cloud:9440/default?secure=true")
K("uri-in-error-message", "uri", plain_password,
  "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"«host»\" (10.2.3.4), port 5432 failed: "
  "FATAL:  password authentication failed for user \"«user»\"\n(Background on this error at: https://sqlalche.me/e/20/e3q8)\n"
  "[SQL: postgresql://«user»:«v»@«host»:5432/«proj»]")

# ============================================================================================
# keys: private key material
# ============================================================================================


def _pem(label: str, lead: str, body_len: int, width: int = 64, headers: str = ""):
    def make(rng: random.Random) -> str:
        body = lead + rs(rng, B64, body_len)
        body = body[: len(body) // 4 * 4]
        if rng.random() < 0.5:
            body = body[:-2] + "=="
        return f"-----BEGIN {label}-----\n{headers}{wrap(body, width)}\n-----END {label}-----"

    return make


def _openssh(rng: random.Random) -> str:
    body = ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
            "QyNTUxOQAAACA" + rs(rng, B64, 320) + "==")
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{wrap(body, 70)}\n-----END OPENSSH PRIVATE KEY-----"


def _pgp(rng: random.Random) -> str:
    body = "lQVYBG" + rs(rng, B64, 1800)
    return (f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{wrap(body, 64)}\n={rs(rng, B64, 4)}\n"
            "-----END PGP PRIVATE KEY BLOCK-----")


def _p12(rng: random.Random) -> str:
    return "MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgEggoUMIIKEDCCBMcGCSqGSIb3DQEHBqCCBLgwggS0AgEAMIIErQYJKoZIhvcNAQcB" + rs(rng, B64, 1600) + "=="


def _escaped_pem(rng: random.Random, v: str) -> str:
    return 'PRIVATE_KEY="' + v.replace("\n", "\\n") + '\\n"'


def _gcloud_sa(rng: random.Random, v: str) -> str:
    proj = f"{rng.choice(_PROJ)}-{rs(rng, DIGITS, 6)}"
    sa = {"type": "service_account", "project_id": proj, "private_key_id": rs(rng, HEX, 40),
          "private_key": v + "\n", "client_email": f"ci-deployer@{proj}.iam.gserviceaccount.com",
          "client_id": rs(rng, DIGITS, 21), "auth_uri": "https://accounts.google.com/o/oauth2/auth",
          "token_uri": "https://oauth2.googleapis.com/token"}
    return json.dumps(sa, indent=2)


def _yaml_block(rng: random.Random, v: str) -> str:
    return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls-" + rng.choice(_PROJ) + "\ntype: kubernetes.io/tls\nstringData:\n"
            "  tls.crt: |\n    -----BEGIN CERTIFICATE-----\n    MIIDdzCCAl+gAwIBAgIE...\n  tls.key: |\n" + "\n".join("    " + line for line in v.splitlines()))


def _jwk_rsa(rng: random.Random) -> str:
    return rs(rng, B64URL, 342)


def _render_jwk(rng: random.Random, v: str) -> str:
    jwk = {"kty": "RSA", "kid": rs(rng, HEX, 16), "use": "sig", "alg": "RS256", "n": rs(rng, B64URL, 342), "e": "AQAB",
           "d": v, "p": rs(rng, B64URL, 171), "q": rs(rng, B64URL, 171), "dp": rs(rng, B64URL, 171),
           "dq": rs(rng, B64URL, 171), "qi": rs(rng, B64URL, 171)}
    return json.dumps(jwk)


def _render_jwks_ec(rng: random.Random, v: str) -> str:
    return json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "kid": rs(rng, LALNUM, 10),
                                 "x": rs(rng, B64URL, 43), "y": rs(rng, B64URL, 43), "d": v}]}, indent=2)


def _bip39(rng: random.Random) -> str:
    words = ["abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd", "abuse", "access", "accident", "account", "accuse", "achieve", "acid", "acoustic", "acquire", "across", "act", "action", "actor", "actress", "actual", "adapt", "add", "addict", "address", "adjust", "admit", "adult", "advance", "advice", "aerobic", "affair", "afford", "afraid", "again", "age", "agent", "agree", "ahead", "aim", "air", "airport", "aisle", "alarm", "album", "alcohol", "alert", "alien", "all", "alley", "allow", "almost", "alone", "alpha", "already", "also", "alter", "always", "amateur", "amazing", "among", "amount", "amused", "analyst", "anchor", "ancient", "anger", "angle", "angry", "animal", "ankle", "announce"]
    return " ".join(rng.choice(words) for _ in range(12))


K("key-rsa-pkcs1", "keys", _pem("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA", 1570),
  "«v»", "$ cat ~/.ssh/deploy_rsa\n«v»", _escaped_pem, se=True)
K("key-pkcs8", "keys", _pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1560),
  _gcloud_sa, "«v»", se=True)
K("key-ec", "keys", _pem("EC PRIVATE KEY", "MHcCAQEEI", 210), "«v»", _yaml_block, _escaped_pem, se=True)
K("key-encrypted-pkcs8", "keys", _pem("ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 1700),
  "openssl says: unable to load key, here it is:\n«v»", se=True)
K("key-openssh", "keys", _openssh,
  "«v»", "Here's the deploy key for the GitHub action (add it as SSH_PRIVATE_KEY):\n\n«v»", se=True)
K("key-dsa", "keys", _pem("DSA PRIVATE KEY", "MIIBuwIBAAKBgQ", 600), "«v»", se=True)
K("key-pgp-private", "keys", _pgp, "$ gpg --export-secret-keys --armor «HEX:16»\n«v»", se=True)
K("key-pkcs12-b64", "keys", _p12,
  "gh secret set APPLE_CERT_P12_BASE64 --body '«v»'", "BUILD_CERTIFICATE_BASE64: «v»")
K("key-jwk-rsa-private", "keys", _jwk_rsa, _render_jwk)
K("key-jwks-ec-private", "keys", G((B64URL, 43)), _render_jwks_ec)
K("key-wireguard-private", "keys", lambda rng: b64_of(rbytes(rng, 32)),
  "[Interface]\nPrivateKey = «v»\nAddress = 10.8.0.2/32\nDNS = 1.1.1.1", "wg set wg0 private-key <(echo «v»)")
K("key-age-secret", "keys", G("AGE-SECRET-KEY-1", ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
  "# created: 2026-02-01T10:12:44Z\n# public key: age1«l:58»\n«v»", se=True)
K("key-ppk", "keys", G((B64, 64), "\n", (B64, 24)),
  "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20260201\nPublic-Lines: 2\n"
  "AAAAC3NzaC1lZDI1NTE5AAAAI«a:43»\n«a:20»\nPrivate-Lines: 1\n«v»\nPrivate-MAC: «hex:64»")
K("key-eth-private", "keys", G("0x", (HEX, 64)),
  "DEPLOYER_PRIVATE_KEY=«v»", "const wallet = new ethers.Wallet('«v»', provider);")
K("key-bip39-mnemonic", "keys", _bip39,
  "MNEMONIC=\"«v»\"", "seed phrase for the hardhat test wallet with real funds: «v»")
K("key-hmac-hex", "keys", G((HEX, 64)),
  "WEBHOOK_SIGNING_SECRET=«v»", 'hmac.new(bytes.fromhex("«v»"), body, hashlib.sha256)')

OUTSIDER2_KINDS: list[Kind] = KINDS
check_unique_names(OUTSIDER2_KINDS)

# ruff: noqa: E501  (a corpus: templates are kept on one line as they are written)
"""A third outsider corpus: credentials as developers paste, type and leak them while working
with a coding agent: chat messages in many languages, shell sessions, config files of many
tools, code in many languages, logs and first-start banners, HTTP requests and exports, URIs,
vendor tokens and private key material.

Written by an outsider who read neither the redaction rules, their tests, the docs nor the
earlier corpora's kinds (only the helpers in kinds.py and the file format of outsider2). Token
shapes come from general knowledge of vendors' public formats; every value is generated fresh
from the rng (no real key). Families: prose, languages, cli, config, code, vendor, encoded, uri,
keys, logs, http.

Templates use «...» placeholders (see `fill`): «v» is the value; the others are filler that
varies from call to call («user», «host», «hex:16», «d:6», «a:20», «uuid», «proj», ...).
"""

from __future__ import annotations

import base64
import json
import random
import urllib.parse
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

_NAMES = ("ayse", "bram", "chloe", "dmitri", "elif", "farid", "greta", "hiro", "ioana", "jakub", "kavya", "lena",
          "mateo", "nadia", "olek", "pham", "quentin", "rosa", "sven", "tariq")
_APPS = ("payroll", "crm", "shipping", "catalog", "loyalty", "gateway", "reports", "tickets", "wallet", "booking")
_REGIONS = ("us-east-1", "eu-central-1", "ap-southeast-2", "eu-west-3", "us-west-2", "sa-east-1")
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _filler(rng: random.Random, key: str, n: int | None) -> str:
    table: dict[str, Callable[[], str]] = {
        "user": lambda: username(rng),
        "host": lambda: host(rng),
        "pw": lambda: password(rng),
        "hex": lambda: rs(rng, HEX, n or 12),
        "HEX": lambda: rs(rng, HEXU, n or 12),
        "d": lambda: rng.choice("123456789") + rs(rng, DIGITS, (n or 6) - 1),
        "a": lambda: rs(rng, ALNUM, n or 12),
        "l": lambda: rs(rng, LALNUM, n or 8),
        "U": lambda: rs(rng, UALNUM, n or 12),
        "low": lambda: rs(rng, LOWER, n or 6),
        "b64": lambda: rs(rng, B64, n or 20),
        "uuid": lambda: uuid4(rng),
        "name": lambda: rng.choice(_NAMES),
        "email": lambda: f"{rng.choice(_NAMES)}@{rng.choice(['globex.dev', 'initech.io', 'umbrella-labs.com'])}",
        "ip": lambda: f"172.{rng.randrange(16, 32)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
        "proj": lambda: rng.choice(_APPS),
        "word": lambda: rng.choice(WORDS),
        "region": lambda: rng.choice(_REGIONS),
        "port": lambda: str(rng.choice([5432, 3306, 6379, 27017, 9200, 5672, 8080, 8443, 1433])),
        "acct": lambda: rng.choice("123456789") + rs(rng, DIGITS, 11),
        "date": lambda: f"2026-0{rng.randrange(1, 4)}-{rng.randrange(10, 29)}",
        "time": lambda: f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}",
    }
    return table[key]()


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


# --------------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------------

_PETS = ("Bella", "Luna", "Max", "Charlie", "Milo", "Rocky", "Simba", "Nala", "Oscar", "Coco")
_TEAMS = ("Arsenal", "Galatasaray", "Barcelona", "Flamengo", "Celtic", "Ajax", "Juventus", "Spartak")


def pw(rng: random.Random) -> str:
    """Passwords as people pick them, each with enough randomness to be told apart."""
    style = rng.randrange(7)
    if style == 0:
        return rng.choice(_PETS) + rs(rng, DIGITS, 4) + rng.choice("!?$#") + rs(rng, ALNUM, 5)
    if style == 1:
        return rng.choice(_TEAMS) + rng.choice(["_", ".", "@"]) + rs(rng, DIGITS, 2) + mixed(rng, ALNUM, 8)
    if style == 2:  # leetspeak
        base = rng.choice(WORDS) + rng.choice(WORDS)
        leet = base.translate(str.maketrans("aeios", "@310$")).capitalize()
        return leet + rs(rng, DIGITS, 3) + rs(rng, ALNUM, 4)
    if style == 3:
        return mixed(rng, ALNUM + "!@#%^*-_=+", rng.randrange(14, 24))
    if style == 4:
        return "Winter" + rs(rng, DIGITS, 4) + "!" + mixed(rng, ALNUM, 7)
    if style == 5:
        return plain_password(rng)
    return password(rng)


def safe_pw(rng: random.Random) -> str:
    """A password with nothing a shell, a URI, YAML or XML would need to quote."""
    return mixed(rng, ALNUM, rng.randrange(12, 18)) + rng.choice(["", "_", "-", "."]) + rs(rng, ALNUM, rng.randrange(3, 6))


def phrase(rng: random.Random) -> str:
    return rng.choice(["-", " ", "."]).join(rng.sample(WORDS, 4)) + rng.choice(["-", " "]) + rs(rng, DIGITS, 3)


def uri_pw(rng: random.Random) -> str:
    """A password with characters that must be escaped in a URI."""
    chars = list(mixed(rng, ALNUM, rng.randrange(12, 16)))
    for ch in rng.sample("@:/?#[]%&=+ ", 3):
        chars.insert(rng.randrange(1, len(chars)), ch)
    return "".join(chars)


def b64(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.b64encode(raw).decode()


def b64u(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def pct(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def pct_window(value: str) -> int:
    return max(10, -(-10 * len(pct(value)) // len(value)))


B64W = 14


def jwt_token(payload: Callable[[random.Random], dict], alg: str = "HS256") -> Callable[[random.Random], str]:
    def make(rng: random.Random) -> str:
        def seg(obj: dict) -> str:
            return b64u(json.dumps(obj, separators=(",", ":")).encode())

        sig = rs(rng, B64URL, 43 if alg.startswith("HS") else 86 if alg == "EdDSA" else 342)
        return f"{seg({'alg': alg, 'typ': 'JWT'})}.{seg(payload(rng))}.{sig}"

    return make


def base32_seed(rng: random.Random) -> str:
    return rs(rng, B32.upper(), 32)


def recovery_codes(rng: random.Random) -> str:
    return "\n".join(f"{rs(rng, LALNUM, 5)}-{rs(rng, LALNUM, 5)}" for _ in range(8))


def hexkey(n: int) -> Callable[[random.Random], str]:
    return G((HEX, n))


# ============================================================================================
# prose (English): what people type to the agent, and what the agent writes back
# ============================================================================================

K("p-btw-prod-db", "prose", pw,
  ["btw the prod db pw is «v» lol, don't put it anywhere", "fyi prod postgres password = «v» (yes I know, it's going into vault next week)"])
K("p-login-fails-with", "prose", pw,
  "Can you debug why login fails? I'm using username «email» and password «v» against http://localhost:3000/api/login and get a 401.",
  "the seeded admin can't log in. email «email», password «v». the bcrypt compare returns false??")
K("p-chat-forward", "prose", pw,
  "[«time»] «name»: here's the grafana admin pw: «v»\n[«time»] «name»: thx!",
  "Forwarded from #ops:\n> «name»: jenkins login is admin / «v»\n> «name»: pls rotate after the demo")
K("p-it-email-forward", "prose", pw,
  "From: IT Service Desk <helpdesk@«proj».example.com>\nSubject: Your temporary password\n\nHello,\nyour account has been created. Temporary password: «v»\nYou will be asked to change it at first sign-in.")
K("p-secret-on-own-paragraph", "prose", M(ALNUM, 36),
  "the secret is the string below, no quotes, no trailing newline\n\n«v»\n\nthanks!",
  "ok here it is:\n\n«v»\n\ncan you put it wherever the SDK expects it")
K("p-shown-only-once", "prose", M(B64URL, 40),
  "The portal says \"Copy this value now, it won't be shown again\":\n«v»",
  "Client secret value (only visible once!!) → «v»")
K("p-capital-first-letter", "prose", pw,
  "pwd is «v» (capital first letter, the rest as written)", "it's «v» — the one with the weird symbols, copy-paste it exactly")
K("p-typo-labels", "prose", pw,
  ["pasword: «v»", "passwrod=«v»", "pssword «v»", "passowrd -> «v»", "PASWORD: «v»", "pw:«v»"])
K("p-typo-token-labels", "prose", M(ALNUM, 40),
  ["toekn: «v»", "tokne=«v»", "acces token «v»", "secert: «v»", "api ky «v»", "crdentials: «user» «v»"])
K("p-user-pass-no-colons", "prose", safe_pw,
  "user «user» pass «v»", "Login admin\nPW «v»\n(VPN portal)")
K("p-bitwarden-master", "prose", phrase,
  "my Bitwarden master password is «v», I need you to script the export with bw cli",
  "KeePassXC database unlock phrase: «v» — the kdbx is in ~/Sync")
K("p-recovery-codes", "prose", recovery_codes,
  "these are the GitHub recovery codes for the shared bot account, store them somewhere safe:\n«v»",
  "Backup codes (Google Workspace admin):\n«v»\nEach code can be used once.")
K("p-2fa-secret-spaced", "prose", lambda rng: " ".join(rs(rng, B32.upper(), 4) for _ in range(8)),
  "Can't scan the QR code, the setup key is: «v»", "2FA setup key for the AWS root account: «v» (time based)")
K("p-zip-password", "prose", pw,
  "the zip with the customer export is encrypted, password «v»", "I sent you the archive separately; unzip password: «v»")
K("p-office-wifi", "prose", pw,
  "Office wifi: «proj»-Guest is open, «proj»-Staff has the password «v»", "WLAN «proj»-5G / key «v» (router: 192.168.0.1)")
K("p-banking-login", "prose", pw,
  "the scraper needs to log into the bank portal: customer no. «d:10», online banking PIN/password «v»")
K("p-assistant-generated", "prose", M(B64URL, 43),
  "I generated a strong secret for you and set `JWT_SECRET=«v»` in `.env`. Remember not to commit that file.",
  "Here's a random 32-byte key you can use as `SESSION_SECRET`: `«v»`")
K("p-assistant-generated-pw", "prose", pw,
  "I've created the database user `«user»` with the password `«v»`; update `DATABASE_URL` accordingly.",
  "Done. The new admin password is **«v»** — please change it after the first login.")
K("p-reasoning-uses-token", "prose", M(ALNUM, 40),
  "The user supplied the token «v» earlier. I'll pass it in the Authorization header to check whether the endpoint works.",
  "I should use the API key the user gave («v») rather than the one in the example config.")
K("p-summary-creds", "prose", pw,
  "Summary: the user shared staging DB credentials (user «user», password «v») and asked to fix the migration timeout.",
  "Context so far: SSH into «ip» as «user» (password «v»), the nginx config is in /etc/nginx/sites-enabled.")
K("p-numbered-steps", "prose", pw,
  "1. ssh «user»@«ip»\n2. sudo su (password is «v»)\n3. systemctl restart «proj»")
K("p-vertical-table", "prose", safe_pw,
  "| Field | Value |\n|-------|-------|\n| Host | «host» |\n| Port | «port» |\n| User | «user» |\n| Password | «v» |",
  "Host     : «host»\nUser     : «user»\nPassword : «v»\nDatabase : «proj»")
K("p-keys-table-multi", "prose", M(ALNUM, 32),
  "| service | key |\n| --- | --- |\n| maps | see 1password |\n| payments (live) | `«v»` |\n| email | revoked |")
K("p-quoted-email-reply", "prose", pw,
  "> On Tue, «name» wrote:\n> > what's the SFTP password again?\n> It's «v»\n\nThanks, that worked.")
K("p-smart-quotes", "prose", pw,
  "the password is “«v»” (without the quotes)", "set the secret to ‘«v»’ on the server")
K("p-code-fence-only", "prose", M(ALNUM, 48),
  "```\n«v»\n```\n^ that's the deploy token", "token:\n```text\n«v»\n```")
K("p-has-slash-in-it", "prose", lambda rng: rs(rng, B64, 20) + "/" + rs(rng, B64, 19),
  "I think the problem is the secret key, it's `«v»` and it has a slash in it — does the signer escape it?")
K("p-as-discussed", "prose", M(ALNUM, 28),
  "as discussed on the call, the shared secret for the webhook is «v». Please verify signatures with it.")
K("p-next-line-value", "prose", pw,
  "password for the replica\n«v»", "Here's the admin password:\n\n    «v»\n")
K("p-root-pw-server", "prose", pw,
  "root pw for the hetzner box («ip») is «v» — can you harden sshd so we can turn password auth off?")
K("p-keystore-passwords", "prose", pw,
  "the upload keystore password and key password are both «v», alias is upload")
K("p-gpg-passphrase", "prose", phrase,
  "gpg keeps asking for the passphrase when signing commits, it's «v», can you set up gpg-agent caching?")
K("p-same-as-before-plus", "prose", pw,
  "new password is «v» (they made me change it, it was the same one with a different number)")
K("p-ticket-description", "prose", pw,
  "JIRA «U:4»-«d:4»: Integration with the partner SFTP fails.\nSteps: connect as «user» with password «v», cd /outbound, ls -> Permission denied")
K("p-seed-phrase-wallet", "prose", lambda rng: " ".join(rng.choice(("oak", "river", "candle", "monkey", "zero", "harvest", "pilot", "orbit", "timber", "velvet", "salad", "mirror", "crystal", "noble", "vacuum", "pepper", "hurdle", "island")) for _ in range(12)),
  "seed phrase of the treasury wallet (needed for the migration script): «v»")
K("p-router-admin", "prose", safe_pw,
  "the mikrotik admin user has password «v», winbox on port 8291")
K("p-apple-dev-account", "prose", pw,
  "For the Apple developer account: login «email», password «v», 2FA goes to my phone")

# ============================================================================================
# languages: the same things typed in other languages, mixed languages, typos
# ============================================================================================

K("l-de-schluessel", "languages", M(ALNUM, 40),
  "Kannst du den API-Schlüssel «v» in die Konfiguration eintragen? Der alte ist abgelaufen.",
  "Anbei der Zugangsschlüssel fürs Testsystem: «v» (nur intern verwenden)")
K("l-de-kennwort-denglisch", "languages", pw,
  "das root Kennwort vom Jumphost ist «v», kannst du das Ansible-Playbook damit laufen lassen?",
  "Passwort geändert, neues PW lautet «v» – bitte im Deployment-Script updaten")
K("l-fr-cle", "languages", M(ALNUM, 40),
  "Tu peux utiliser ma clé d'API «v» pour tester l'appel ?", "voilà la clé secrète du client OAuth : «v»")
K("l-fr-mdp-abbrev", "languages", pw,
  "le mdp admin du back-office c'est «v», merci de ne pas le mettre dans le repo", "mot de passe oublié... ah non c'est «v»")
K("l-es-clave-api", "languages", M(ALNUM, 40),
  "te paso la clave de la API: «v», a ver si así ya no da 401", "Mi token personal es «v», úsalo para el script de migración")
K("l-es-mx-contra", "languages", pw,
  "la contra del servidor de pruebas es «v» wey, no la subas a git", "contraseña nueva del correo: «v»")
K("l-pt-br-chave", "languages", M(ALNUM, 40),
  "a chave de API de produção é «v», coloca no .env por favor", "segue o token de acesso do bot: «v»")
K("l-pt-pt-palavra-passe", "languages", pw,
  "A palavra-passe do router é «v»", "palavra passe da conta de serviço: «v»")
K("l-it-chiave", "languages", M(ALNUM, 40),
  "ecco la chiave API per l'ambiente di test: «v»", "il segreto del client è «v», scade a giugno")
K("l-nl-sleutel", "languages", M(ALNUM, 40),
  "de API-sleutel is «v», kun je die in de CI-variabelen zetten?", "Hier is het toegangstoken: «v»")
K("l-pl-klucz", "languages", M(ALNUM, 40),
  "klucz API do płatności: «v» (środowisko testowe)", "Wklejam token dostępu: «v» — ważny 30 dni")
K("l-pl-haslo-typo", "languages", pw,
  "haslo do vpn to «v» (bez polskich znakow)", "hasełko do panelu: «v» xD")
K("l-ru-klyuch", "languages", M(ALNUM, 40),
  "вот ключ API от продакшена: «v», не коммить его", "Секретный ключ приложения: «v»")
K("l-ru-translit", "languages", pw,
  "parol ot servera «v», login «user»", "пасс от рута: «v»")
K("l-uk-klyuch", "languages", M(ALNUM, 40),
  "ось токен доступу до GitLab: «v»", "ключ API для тестового середовища — «v»")
K("l-uk-parol", "languages", pw,
  "новий пароль адміністратора: «v», старий більше не працює")
K("l-tr-anahtar", "languages", M(ALNUM, 40),
  "API anahtarı: «v» bunu .env dosyasına ekler misin?", "erişim tokenı «v», yarın sona eriyor")
K("l-tr-sifre-typo", "languages", pw,
  "sifre «v» (turkce karakter yok)", "Kullanıcı adı «user», şifresi «v»")
K("l-zh-miyao", "languages", M(ALNUM, 40),
  "这是我的 API 密钥：«v»，帮我看看为什么调用失败", "阿里云 AccessKey Secret：«v»")
K("l-zh-tw-mima", "languages", pw,
  "測試機的密碼是「«v»」，請勿外流", "帳號 «user»／密碼 «v»")
K("l-zh-mixed-code", "languages", pw,
  "数据库连接用这个 password：«v»，host 是 «host»", "redis 的 requirepass 改成了 «v»，记得同步到 k8s secret")
K("l-ja-himitsu", "languages", M(ALNUM, 40),
  "本番のシークレットキーは「«v»」です。取り扱い注意。", "アクセストークン：«v»（有効期限は30日）")
K("l-ja-pasuwado-fullwidth", "languages", pw,
  "サーバーのrootパスワード＝«v»", "パスワード変更しました→«v»")
K("l-ko-key", "languages", M(ALNUM, 40),
  "운영 서버 API 키는 «v» 이거예요. 깃에 올리지 마세요", "액세스 토큰: «v» (30일 유효)")
K("l-ko-bimilbeonho", "languages", pw,
  "관리자 계정 비밀번호 «v» 로 바꿨어요", "와이파이 비번은 «v» 입니다")
K("l-vi-khoa", "languages", M(ALNUM, 40),
  "khóa API của mình là «v», bạn thử gọi lại xem", "token truy cập: «v»")
K("l-vi-no-diacritics", "languages", pw,
  "mat khau db la «v» nha", "pass admin: «v» dung chia se")
K("l-id-kunci", "languages", M(ALNUM, 40),
  "ini kunci API-nya: «v», tolong dipasang di server staging", "token aksesnya «v» ya, berlaku sampai akhir bulan")
K("l-ms-kata-laluan", "languages", pw,
  "kata laluan pangkalan data ialah «v»")
K("l-tl-taglish", "languages", pw,
  "yung password ng server ay «v», pakilagay na lang sa env", "eto yung token: «v» wag mo i-share ha")
K("l-hinglish-key", "languages", M(ALNUM, 40),
  "yaar ye API key use kar lo: «v», purani wali expire ho gayi", "client secret bhej raha hoon: «v»")
K("l-ar-miftah", "languages", M(ALNUM, 40),
  "مفتاح الـ API الخاص بالإنتاج: «v»", "هذا هو رمز الوصول: «v» لا تشاركه مع أحد")
K("l-ar-franco", "languages", pw,
  "el password beta3 el server «v» ya basha", "كلمة السر الجديدة «v»")
K("l-he-sisma", "languages", pw,
  "הסיסמה לשרת היא «v»", "מפתח ה-API: «v»")
K("l-fa-ramz", "languages", pw,
  "رمز عبور دیتابیس: «v»")
K("l-th-rahat", "languages", pw,
  "รหัสผ่านของเซิร์ฟเวอร์คือ «v» ครับ")
K("l-hi-devanagari", "languages", pw,
  "सर्वर का पासवर्ड «v» है, किसी को मत बताना")
K("l-bn-password", "languages", pw,
  "ডাটাবেসের পাসওয়ার্ড হলো «v»")
K("l-ro-parola", "languages", pw,
  "parola de la baza de date este «v»", "cheia API e «v», am generat-o azi")
K("l-hu-jelszo", "languages", pw,
  "a jelszó a teszt szerverhez: «v»", "API kulcs: «v»")
K("l-fi-salasana", "languages", pw,
  "palvelimen salasana on «v»")
K("l-da-no-adgangskode", "languages", pw,
  ["adgangskoden til serveren er «v»", "passordet til databasen er «v»"])
K("l-cs-sk-token", "languages", M(ALNUM, 40),
  "tady je přístupový token: «v»", "heslo k serveru je «v», prosím nezdieľaj ho")
K("l-el-kleidi", "languages", M(ALNUM, 40),
  "το κλειδί API είναι «v»")
K("l-ca-contrasenya", "languages", pw,
  "la contrasenya del servidor és «v»")
K("l-sw-nenosiri", "languages", pw,
  "nenosiri la seva ni «v»")
K("l-mixed-code-switch", "languages", pw,
  ["ok donc le password c'est «v», pero no lo pongas en el README", "Das ist das password: «v», please don't share"])
K("l-sv-nyckel", "languages", M(ALNUM, 40),
  "här är API-nyckeln: «v», den gäller tills vidare")
K("l-sr-hr-lozinka", "languages", pw,
  ["lozinka za bazu je «v»", "лозинка за сервер: «v»"])
K("l-bg-parola", "languages", pw,
  "паролата за базата е «v»")

# ============================================================================================
# cli: command lines and shell sessions
# ============================================================================================

K("c-mysqldump-p-attached", "cli", safe_pw,
  "mysqldump -h «host» -u «user» -p'«v»' --single-transaction «proj» | gzip > «proj».sql.gz")
K("c-pg-dump-conninfo", "cli", safe_pw,
  "pg_dump \"host=«host» port=5432 dbname=«proj» user=«user» password=«v» sslmode=require\" -Fc -f «proj».dump")
K("c-sqlplus-slash", "cli", safe_pw,
  "sqlplus «user»/«v»@//«host»:1521/ORCLPDB1 @migrate.sql", "$ sqlplus -S system/«v»@XE <<< 'select 1 from dual;'")
K("c-db2-connect-using", "cli", safe_pw,
  "db2 connect to SAMPLE user «user» using «v»")
K("c-beeline-hive", "cli", safe_pw,
  "beeline -u 'jdbc:hive2://hive.«proj».internal:10000/default' -n «user» -p «v» -e 'show tables'")
K("c-xfreerdp-p", "cli", pw,
  "xfreerdp /v:«ip» /u:Administrator /p:'«v»' /cert:ignore /dynamic-resolution")
K("c-expect-send", "cli", safe_pw,
  "#!/usr/bin/expect -f\nspawn ssh «user»@«ip»\nexpect \"password:\"\nsend \"«v»\\r\"\ninteract")
K("c-7z-zip-password", "cli", safe_pw,
  ["7z a -p«v» -mhe=on backup.7z ./exports", "zip -r -P «v» payroll.zip payroll/", "unrar x -p«v» archive.rar"])
K("c-gpg-batch-passphrase", "cli", pw,
  "gpg --batch --yes --pinentry-mode loopback --passphrase '«v»' -d secrets.tar.gpg | tar x")
K("c-ssh-keygen-N", "cli", pw,
  "ssh-keygen -t ed25519 -C ci@«proj» -N '«v»' -f ~/.ssh/ci_ed25519")
K("c-jarsigner-apksigner", "cli", safe_pw,
  ["jarsigner -keystore release.jks -storepass «v» app-release-unsigned.apk upload",
   "apksigner sign --ks release.jks --ks-pass pass:«v» --ks-key-alias upload app.apk"])
K("c-oc-login-token", "cli", lambda rng: "sha256~" + rs(rng, B64URL, 43),
  "oc login --token=«v» --server=https://api.«proj».openshiftapps.com:6443", se=True)
K("c-argocd-login", "cli", pw,
  "argocd login argocd.«proj».internal --username admin --password '«v»' --grpc-web")
K("c-helm-repo-password", "cli", safe_pw,
  ["helm repo add internal https://charts.«proj».io --username «user» --password «v»",
   "helm registry login registry.«proj».io -u «user» -p «v»"])
K("c-kubectl-docker-registry", "cli", safe_pw,
  "kubectl create secret docker-registry regcred --docker-server=registry.«proj».io --docker-username=«user» --docker-password=«v» --docker-email=«email»")
K("c-kubectl-set-env", "cli", M(ALNUM, 40),
  "kubectl set env deployment/«proj»-api PAYMENT_API_KEY=«v» -n prod")
K("c-gh-auth-with-token", "cli", G("ghp_", (ALNUM, 36)),
  "echo «v» | gh auth login --with-token", "gh auth login --with-token <<< '«v»'", se=True)
K("c-glab-auth", "cli", G("glpat-", (B64URL, 20)),
  "glab auth login --hostname gitlab.«proj».io --token «v»", se=True)
K("c-poetry-config-token", "cli", G("pypi-AgEIcHlwaS5vcmc", (B64URL, 130)),
  "poetry config pypi-token.pypi «v»", "uv publish --token «v»", se=True)
K("c-cargo-login", "cli", G("cio", (ALNUM, 32)),
  "cargo login «v»", "export CARGO_REGISTRY_TOKEN=«v»")
K("c-dotnet-nuget-source", "cli", safe_pw,
  "dotnet nuget add source https://nuget.pkg.github.com/«proj»/index.json -n github -u «user» -p «v» --store-password-in-clear-text")
K("c-gradle-signing-props", "cli", pw,
  "./gradlew publish -PsigningInMemoryKeyPassword='«v»' -PmavenCentralUsername=«user»")
K("c-xcrun-app-specific", "cli", lambda rng: "-".join(rs(rng, LOWER, 4) for _ in range(4)),
  "xcrun notarytool submit App.zip --apple-id «email» --team-id «U:10» --password «v» --wait",
  "xcrun altool --upload-app -f App.ipa -u «email» -p «v»")
K("c-net-user", "cli", pw,
  "net user svc_backup «v» /add /expires:never", "C:\\> net user Administrator «v»")
K("c-cmdkey-add", "cli", pw,
  "cmdkey /add:fileserver.corp.local /user:CORP\\«user» /pass:«v»")
K("c-psexec-p", "cli", pw,
  "psexec \\\\«ip» -u CORP\\«user» -p «v» cmd /c ipconfig")
K("c-ipmitool-P", "cli", safe_pw,
  "ipmitool -I lanplus -H «ip» -U ADMIN -P «v» chassis power cycle")
K("c-snmpv3-auth-priv", "cli", safe_pw,
  "snmpwalk -v3 -l authPriv -u monitor -a SHA -A «v» -x AES -X «a:14» «ip» 1.3.6.1.2.1.1")
K("c-nmcli-wifi", "cli", pw,
  "nmcli dev wifi connect «proj»-Staff password '«v»'", "iwctl --passphrase '«v»' station wlan0 connect «proj»-Staff")
K("c-passwd-stdin", "cli", safe_pw,
  "echo '«v»' | passwd --stdin «user»", "echo -e '«v»\\n«v»' | passwd «user»")
K("c-mysqladmin-password", "cli", safe_pw,
  "mysqladmin -u root password '«v»'")
K("c-redis-config-set", "cli", safe_pw,
  "redis-cli CONFIG SET requirepass «v»", "127.0.0.1:6379> AUTH default «v»\nOK")
K("c-docker-run-env-pw", "cli", safe_pw,
  ["docker run -d --name pg -e POSTGRES_PASSWORD=«v» -p 5432:5432 postgres:16",
   "docker run -e MYSQL_ROOT_PASSWORD=«v» -d mysql:8.4", "podman run -e MSSQL_SA_PASSWORD='«v»' -e ACCEPT_EULA=Y mcr.microsoft.com/mssql/server:2022-latest"])
K("c-docker-secret-create", "cli", pw,
  "printf '«v»' | docker secret create db_password -")
K("c-aws-secretsmanager-create", "cli", safe_pw,
  "aws secretsmanager create-secret --name prod/«proj»/db --secret-string '{\"username\":\"«user»\",\"password\":\"«v»\"}'")
K("c-aws-ssm-put", "cli", M(ALNUM, 40),
  "aws ssm put-parameter --name /«proj»/prod/api_key --type SecureString --value «v» --overwrite")
K("c-az-keyvault-set", "cli", pw,
  "az keyvault secret set --vault-name kv-«proj»-prod --name DbPassword --value '«v»'")
K("c-gcloud-secrets-add", "cli", M(ALNUM, 40),
  "echo -n «v» | gcloud secrets versions add stripe-key --data-file=-")
K("c-fly-vercel-secrets", "cli", M(ALNUM, 40),
  ["fly secrets set OPENWEATHER_KEY=«v» -a «proj»", "railway variables --set \"SENDGRID_KEY=«v»\"", "netlify env:set MAPS_SECRET «v»"])
K("c-firebase-config-set", "cli", M(ALNUM, 40),
  "firebase functions:config:set partner.secret=\"«v»\" partner.id=«d:6»")
K("c-security-add-generic", "cli", pw,
  "security add-generic-password -a «user» -s «proj»-deploy -w '«v»'")
K("c-op-item-create", "cli", pw,
  "op item create --category=login --title='«proj» staging' username=«user» 'password=«v»'")
K("c-kcat-sasl", "cli", M(ALNUM, 40),
  "kcat -b pkc-«l:5».«region».aws.confluent.cloud:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=«U:16» -X sasl.password=«v» -t orders -C")
K("c-mosquitto-pub-P", "cli", safe_pw,
  "mosquitto_pub -h broker.«proj».io -p 8883 -u «user» -P «v» -t devices/42/cmd -m reboot")
K("c-x11vnc-passwd", "cli", safe_pw,
  "x11vnc -display :0 -passwd «v» -forever -shared")
K("c-ansible-extra-vars", "cli", safe_pw,
  "ansible-playbook site.yml -i hosts.ini -e \"ansible_user=«user» ansible_password=«v» ansible_become_pass=«v»\"")
K("c-set-x-trace", "cli", safe_pw,
  "+ curl -fsS -u deploy:«v» https://artifacts.«proj».io/upload\n+ echo done")
K("c-history-output", "cli", safe_pw,
  "$ history | tail -3\n  501  cd /srv/«proj»\n  502  mysql -u«user» -p«v» «proj»\n  503  history | tail -3")
K("c-printenv-grep", "cli", M(ALNUM, 40),
  "$ printenv | grep -i key\nMAPBOX_STYLE=streets-v12\nMAILJET_API_SECRET=«v»\nKEYMAP=us")
K("c-powershell-env", "cli", M(ALNUM, 40),
  "PS C:\\src\\«proj»> $env:OPENAI_API_KEY = \"«v»\"", "PS> [Environment]::SetEnvironmentVariable('SYNC_TOKEN', '«v»', 'User')")
K("c-powershell-pscredential", "cli", pw,
  "$cred = New-Object System.Management.Automation.PSCredential('CORP\\«user»', (ConvertTo-SecureString '«v»' -AsPlainText -Force))\nEnter-PSSession -ComputerName «ip» -Credential $cred")
K("c-fish-set-x", "cli", M(ALNUM, 40),
  "set -Ux DEEPL_AUTH_KEY «v»", "setenv API_TOKEN «v»  # tcsh")
K("c-vault-login-userpass", "cli", pw,
  "vault login -method=userpass username=«user» password='«v»'")
K("c-mc-s3cmd", "cli", G((B64, 40)),
  "s3cmd --access_key=AKIA«U:16» --secret_key=«v» ls s3://«proj»-backups")

# ============================================================================================
# config: config files of many tools
# ============================================================================================

K("f-yarnrc-yml", "config", G("npm_", (ALNUM, 36)),
  "npmScopes:\n  «proj»:\n    npmRegistryServer: \"https://npm.pkg.github.com\"\n    npmAuthToken: «v»\nnodeLinker: node-modules")
K("f-bunfig-toml", "config", M(ALNUM, 40),
  "[install.scopes]\n«proj» = { token = \"«v»\", url = \"https://npm.«proj».io/\" }")
K("f-cargo-credentials", "config", G("cio", (ALNUM, 32)),
  "# ~/.cargo/credentials.toml\n[registry]\ntoken = \"«v»\"")
K("f-gem-credentials", "config", G("rubygems_", (HEX, 48)),
  "---\n:rubygems_api_key: «v»")
K("f-nuget-config-cleartext", "config", safe_pw,
  "<packageSourceCredentials>\n  <github>\n    <add key=\"Username\" value=\"«user»\" />\n    <add key=\"ClearTextPassword\" value=\"«v»\" />\n  </github>\n</packageSourceCredentials>")
K("f-sbt-credentials", "config", safe_pw,
  "realm=Sonatype Nexus Repository Manager\nhost=nexus.«proj».io\nuser=«user»\npassword=«v»")
K("f-poetry-auth-toml", "config", safe_pw,
  "[http-basic.internal]\nusername = \"«user»\"\npassword = \"«v»\"")
K("f-condarc-token", "config", M(ALNUM, 40),
  "channels:\n  - https://conda.«proj».io/t/«v»/internal\n  - conda-forge")
K("f-gh-hosts-yml", "config", G("gho_", (ALNUM, 36)),
  "github.com:\n    user: «name»\n    oauth_token: «v»\n    git_protocol: https")
K("f-gitconfig-insteadof", "config", G("ghp_", (ALNUM, 36)),
  "[url \"https://«v»@github.com/\"]\n\tinsteadOf = https://github.com/")
K("f-s3cfg", "config", G((B64, 40)),
  "[default]\naccess_key = AKIA«U:16»\nsecret_key = «v»\nhost_base = s3.amazonaws.com")
K("f-boto-cfg-gcs-hmac", "config", G((B64, 40)),
  "[Credentials]\ngs_access_key_id = GOOG1E«U:55»\ngs_secret_access_key = «v»")
K("f-terraform-tfvars", "config", pw,
  "region      = \"«region»\"\ndb_username = \"«user»\"\ndb_password = \"«v»\"\ninstance    = \"db.t4g.medium\"")
K("f-terraform-backend-s3", "config", G((B64, 40)),
  "terraform {\n  backend \"s3\" {\n    bucket     = \"«proj»-tfstate\"\n    key        = \"prod/terraform.tfstate\"\n    access_key = \"AKIA«U:16»\"\n    secret_key = \"«v»\"\n  }\n}")
K("f-vagrantfile", "config", safe_pw,
  "Vagrant.configure(\"2\") do |config|\n  config.ssh.username = \"«user»\"\n  config.ssh.password = \"«v»\"\nend")
K("f-dockerfile-arg", "config", M(ALNUM, 40),
  "FROM node:20-alpine\nARG NPM_TOKEN=«v»\nRUN echo \"//registry.npmjs.org/:_authToken=${NPM_TOKEN}\" > .npmrc && npm ci")
K("f-k8s-configmap-misuse", "config", safe_pw,
  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: «proj»-config\ndata:\n  DB_HOST: «host»\n  DB_PASS: «v»\n  LOG_LEVEL: info")
K("f-kustomize-secretgen", "config", safe_pw,
  "secretGenerator:\n- name: «proj»-db\n  literals:\n  - username=«user»\n  - password=«v»")
K("f-argocd-repo-secret", "config", G("glpat-", (B64URL, 20)),
  "apiVersion: v1\nkind: Secret\nmetadata:\n  name: repo-«proj»\n  labels:\n    argocd.argoproj.io/secret-type: repository\nstringData:\n  url: https://gitlab.«proj».io/platform/deploy.git\n  username: argocd\n  password: «v»")
K("f-prometheus-basic-auth", "config", safe_pw,
  "scrape_configs:\n  - job_name: «proj»\n    basic_auth:\n      username: prom\n      password: «v»\n    static_configs:\n      - targets: ['«ip»:9100']")
K("f-alertmanager-smtp", "config", safe_pw,
  "global:\n  smtp_smarthost: 'smtp.«proj».io:587'\n  smtp_auth_username: 'alerts@«proj».io'\n  smtp_auth_password: '«v»'")
K("f-grafana-datasource", "config", safe_pw,
  "datasources:\n  - name: Postgres\n    type: postgres\n    url: «host»:5432\n    user: grafana\n    secureJsonData:\n      password: «v»")
K("f-haproxy-userlist", "config", safe_pw,
  "userlist admins\n    user «user» insecure-password «v»")
K("f-postfix-sasl-passwd", "config", safe_pw,
  "[smtp.sendgrid.net]:587 apikey:«v»", "[email-smtp.«region».amazonaws.com]:587 «U:20»:«v»")
K("f-msmtprc", "config", pw,
  "account default\nhost smtp.fastmail.com\nport 465\ntls on\nuser «email»\npassword «v»")
K("f-nmconnection-psk", "config", pw,
  "[wifi]\nssid=«proj»-Staff\nmode=infrastructure\n\n[wifi-security]\nkey-mgmt=wpa-psk\npsk=«v»")
K("f-wpa-supplicant", "config", pw,
  "network={\n    ssid=\"«proj»-IoT\"\n    psk=\"«v»\"\n    key_mgmt=WPA-PSK\n}")
K("f-hostapd", "config", pw,
  "interface=wlan0\nssid=«proj»-ap\nwpa=2\nwpa_passphrase=«v»")
K("f-ipsec-secrets", "config", safe_pw,
  "# /etc/ipsec.secrets\n«ip» %any : PSK \"«v»\"")
K("f-cisco-username-password", "config", safe_pw,
  "username admin privilege 15 password 0 «v»\nenable password «a:12»\nline vty 0 4\n login local")
K("f-ansible-group-vars", "config", pw,
  "# group_vars/db.yml\npostgresql_users:\n  - name: «user»\n    password: \"«v»\"\n    encrypted: yes")
K("f-hiera-yaml", "config", safe_pw,
  "---\nprofile::db::root_password: '«v»'\nprofile::db::port: 5432")
K("f-serverless-yml", "config", M(ALNUM, 40),
  "provider:\n  name: aws\n  runtime: nodejs20.x\n  environment:\n    MAILERLITE_KEY: «v»\n    STAGE: ${sls:stage}")
K("f-gae-app-yaml", "config", M(ALNUM, 40),
  "runtime: python312\nenv_variables:\n  FLASK_ENV: production\n  RECAPTCHA_SECRET: «v»")
K("f-fly-toml-env", "config", safe_pw,
  "[env]\n  PORT = \"8080\"\n  ADMIN_PASSWORD = \"«v»\"")
K("f-circleci-environment", "config", M(ALNUM, 40),
  "jobs:\n  deploy:\n    docker:\n      - image: cimg/node:20.11\n    environment:\n      SURGE_TOKEN: «v»")
K("f-bitbucket-pipelines", "config", safe_pw,
  "pipelines:\n  default:\n    - step:\n        script:\n          - docker login -u «user» -p «v» registry.«proj».io")
K("f-azure-pipelines-vars", "config", M(ALNUM, 52),
  "variables:\n  buildConfiguration: 'Release'\n  azureDevOpsPat: '«v»'")
K("f-drone-woodpecker", "config", safe_pw,
  "steps:\n  - name: publish\n    image: plugins/docker\n    settings:\n      username: «user»\n      password: «v»\n      repo: registry.«proj».io/app")
K("f-gha-docker-login-with", "config", safe_pw,
  "      - uses: docker/login-action@v3\n        with:\n          registry: ghcr.io\n          username: ${{ github.actor }}\n          password: «v»")
K("f-gitlab-ci-before-script", "config", M(ALNUM, 40),
  "deploy:\n  stage: deploy\n  before_script:\n    - export HEROKU_API_KEY=«v»\n  script:\n    - dpl --provider=heroku --app=«proj»")
K("f-jenkins-casc", "config", pw,
  "jenkins:\n  securityRealm:\n    local:\n      users:\n        - id: admin\n          password: \"«v»\"")
K("f-envrc-direnv", "config", M(ALNUM, 40),
  "# .envrc\nexport AWS_PROFILE=dev\nexport LINEAR_API_KEY=«v»\nlayout python3")
K("f-vscode-sqltools", "config", safe_pw,
  "\"sqltools.connections\": [\n  {\n    \"name\": \"staging\",\n    \"driver\": \"PostgreSQL\",\n    \"server\": \"«host»\",\n    \"username\": \"«user»\",\n    \"password\": \"«v»\"\n  }\n]")
K("f-redis-conf", "config", safe_pw,
  "bind 0.0.0.0\nport 6379\nrequirepass «v»\nmasterauth «v»")
K("f-pgbouncer-userlist", "config", safe_pw,
  "\"«user»\" \"«v»\"\n\"pgbouncer\" \"«a:16»\"")
K("f-kafka-server-properties", "config", safe_pw,
  "ssl.keystore.location=/etc/kafka/secrets/kafka.keystore.jks\nssl.keystore.password=«v»\nssl.key.password=«v»")
K("f-hadoop-core-site", "config", G((B64, 40)),
  "<property>\n  <name>fs.s3a.access.key</name>\n  <value>AKIA«U:16»</value>\n</property>\n<property>\n  <name>fs.s3a.secret.key</name>\n  <value>«v»</value>\n</property>")
K("f-spark-defaults", "config", G((B64, 40)),
  "spark.hadoop.fs.s3a.access.key AKIA«U:16»\nspark.hadoop.fs.s3a.secret.key «v»")
K("f-telegraf-conf", "config", M(B64URL, 86),
  "[[outputs.influxdb_v2]]\n  urls = [\"https://«region».aws.cloud2.influxdata.com\"]\n  token = \"«v»\"\n  organization = \"«proj»\"")
K("f-fluentbit-output", "config", safe_pw,
  "[OUTPUT]\n    Name  es\n    Host  «host»\n    HTTP_User elastic\n    HTTP_Passwd «v»")
K("f-hasura-env", "config", M(ALNUM, 32),
  "HASURA_GRAPHQL_ADMIN_SECRET=«v»\nHASURA_GRAPHQL_ENABLE_CONSOLE=true")
K("f-mastodon-env-production", "config", hexkey(128),
  "LOCAL_DOMAIN=social.«proj».io\nSECRET_KEY_BASE=«v»\nOTP_SECRET=«hex:128»")
K("f-synapse-homeserver", "config", M(ALNUM, 50),
  "registration_shared_secret: \"«v»\"\nmacaroon_secret_key: \"«a:50»\"\nform_secret: \"«a:50»\"")
K("f-mediawiki-localsettings", "config", safe_pw,
  "$wgDBtype = \"mysql\";\n$wgDBserver = \"«host»\";\n$wgDBuser = \"wikiuser\";\n$wgDBpassword = \"«v»\";")
K("f-drupal-settings", "config", safe_pw,
  "$databases['default']['default'] = [\n  'database' => '«proj»',\n  'username' => '«user»',\n  'password' => '«v»',\n  'host' => '«host»',\n  'driver' => 'mysql',\n];")
K("f-magento-env-php", "config", safe_pw,
  "'db' => [\n    'connection' => [\n        'default' => [\n            'host' => 'localhost',\n            'dbname' => 'magento',\n            'username' => 'magento',\n            'password' => '«v»',\n        ]\n    ]\n],")
K("f-nextcloud-config", "config", safe_pw,
  "  'dbuser' => 'oc_admin',\n  'dbpassword' => '«v»',\n  'installed' => true,")
K("f-gitea-app-ini", "config", safe_pw,
  "[database]\nDB_TYPE  = postgres\nHOST     = «host»:5432\nNAME     = gitea\nUSER     = gitea\nPASSWD   = «v»")
K("f-homeassistant-secrets", "config", pw,
  "# secrets.yaml\nwifi_password: \"«v»\"\nmqtt_user: ha")
K("f-esphome-wifi", "config", pw,
  "wifi:\n  ssid: \"«proj»-IoT\"\n  password: \"«v»\"\n  ap:\n    password: \"«a:12»\"")
K("f-arduino-secrets-h", "config", pw,
  "#define SECRET_SSID \"«proj»-IoT\"\n#define SECRET_PASS \"«v»\"")
K("f-zigbee2mqtt", "config", safe_pw,
  "mqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://«ip»\n  user: z2m\n  password: «v»")
K("f-nodered-settings", "config", M(ALNUM, 32),
  "module.exports = {\n    credentialSecret: \"«v»\",\n    uiPort: process.env.PORT || 1880,\n}")
K("f-airflow-fernet", "config", lambda rng: b64_of(rbytes(rng, 32), url=True),
  "AIRFLOW__CORE__FERNET_KEY=«v»\nAIRFLOW__CORE__EXECUTOR=CeleryExecutor")
K("f-strapi-env", "config", lambda rng: b64_of(rbytes(rng, 16)),
  "APP_KEYS=«b64:24»==,«v»\nAPI_TOKEN_SALT=«b64:24»==\nADMIN_JWT_SECRET=«b64:24»==")
K("f-laravel-app-key", "config", lambda rng: "base64:" + b64_of(rbytes(rng, 32)),
  "APP_NAME=«proj»\nAPP_ENV=production\nAPP_KEY=«v»\nAPP_DEBUG=false")
K("f-symfony-app-secret", "config", hexkey(32),
  "###> symfony/framework-bundle ###\nAPP_ENV=prod\nAPP_SECRET=«v»\n###< symfony/framework-bundle ###")
K("f-n8n-encryption-key", "config", M(ALNUM, 32),
  "N8N_ENCRYPTION_KEY=«v»\nN8N_HOST=n8n.«proj».io")
K("f-metabase-env", "config", safe_pw,
  "MB_DB_TYPE=postgres\nMB_DB_USER=metabase\nMB_DB_PASS=«v»\nMB_DB_HOST=«host»")
K("f-ini-with-spaces-semicolon", "config", pw,
  "; legacy app.ini\n[smtp]\nserver = mail.«proj».io\nlogin = noreply\npassword = «v»")
K("f-json5-tsconfig-like", "config", M(ALNUM, 40),
  "{\n  // dev only — DO NOT SHIP\n  apiBase: 'https://api.«proj».io',\n  apiSecret: '«v»',\n}")
K("f-xml-connectionstrings", "config", safe_pw,
  "<connectionStrings>\n  <add name=\"Default\" connectionString=\"Server=«host»;Database=«proj»;User Id=«user»;Password=«v»;\" providerName=\"System.Data.SqlClient\" />\n</connectionStrings>")

# ============================================================================================
# code: credentials written into source
# ============================================================================================

K("k-py-requests-basicauth", "code", safe_pw,
  "resp = requests.get(url, auth=HTTPBasicAuth(\"«user»\", \"«v»\"), timeout=10)")
K("k-py-paramiko", "code", pw,
  "ssh = paramiko.SSHClient()\nssh.set_missing_host_key_policy(paramiko.AutoAddPolicy())\nssh.connect(\"«ip»\", username=\"«user»\", password=\"«v»\")")
K("k-py-pymongo-kwargs", "code", safe_pw,
  "client = MongoClient(host=\"«host»\", port=27017, username=\"«user»\", password=\"«v»\", authSource=\"admin\")")
K("k-py-redis-kwarg", "code", safe_pw,
  "r = redis.Redis(host=\"«host»\", port=6379, password=\"«v»\", decode_responses=True)")
K("k-py-django-databases", "code", safe_pw,
  "DATABASES = {\n    \"default\": {\n        \"ENGINE\": \"django.db.backends.postgresql\",\n        \"NAME\": \"«proj»\",\n        \"USER\": \"«user»\",\n        \"PASSWORD\": \"«v»\",\n        \"HOST\": \"«host»\",\n    }\n}")
K("k-py-pydantic-default", "code", M(ALNUM, 40),
  "class Settings(BaseSettings):\n    api_base: str = \"https://api.«proj».io\"\n    api_key: SecretStr = SecretStr(\"«v»\")")
K("k-py-ftplib", "code", safe_pw,
  "ftp = FTP(\"ftp.«proj».io\")\nftp.login(user=\"«user»\", passwd=\"«v»\")")
K("k-py-ldap3", "code", pw,
  "conn = Connection(server, user=\"cn=admin,dc=«proj»,dc=local\", password=\"«v»\", auto_bind=True)")
K("k-py-jwt-encode-secret", "code", M(ALNUM, 32),
  "token = jwt.encode({\"sub\": user.id, \"exp\": exp}, \"«v»\", algorithm=\"HS256\")")
K("k-py-flask-config", "code", M(ALNUM, 48),
  "app.config[\"SECRET_KEY\"] = \"«v»\"\napp.config[\"SESSION_COOKIE_SECURE\"] = True")
K("k-py-sqlalchemy-url-create", "code", safe_pw,
  "url = URL.create(\"postgresql+psycopg\", username=\"«user»\", password=\"«v»\", host=\"«host»\", database=\"«proj»\")")
K("k-py-imaplib", "code", pw,
  "mail = imaplib.IMAP4_SSL(\"imap.gmail.com\")\nmail.login(\"«email»\", \"«v»\")")
K("k-js-axios-auth", "code", safe_pw,
  "const res = await axios.get(url, { auth: { username: '«user»', password: '«v»' } });")
K("k-js-nodemailer", "code", pw,
  "const transporter = nodemailer.createTransport({\n  host: 'smtp.«proj».io',\n  port: 587,\n  auth: { user: 'noreply@«proj».io', pass: '«v»' },\n});")
K("k-js-sequelize", "code", safe_pw,
  "const sequelize = new Sequelize('«proj»', '«user»', '«v»', { host: '«host»', dialect: 'mysql' });")
K("k-js-express-session", "code", M(ALNUM, 40),
  "app.use(session({ secret: '«v»', resave: false, saveUninitialized: false }));")
K("k-js-jsonwebtoken-sign", "code", M(ALNUM, 32),
  "const token = jwt.sign({ id: user._id }, \"«v»\", { expiresIn: '7d' });")
K("k-ts-knex-config", "code", safe_pw,
  "const config: Knex.Config = {\n  client: 'pg',\n  connection: { host: '«host»', user: '«user»', password: '«v»', database: '«proj»' },\n};")
K("k-ts-fetch-headers", "code", M(ALNUM, 40),
  "const r = await fetch(`${BASE}/v1/items`, {\n  headers: { 'X-Api-Key': '«v»', 'Content-Type': 'application/json' },\n});")
K("k-go-redis-options", "code", safe_pw,
  "rdb := redis.NewClient(&redis.Options{\n\tAddr:     \"«host»:6379\",\n\tPassword: \"«v»\",\n\tDB:       0,\n})")
K("k-go-smtp-plainauth", "code", pw,
  "auth := smtp.PlainAuth(\"\", \"«email»\", \"«v»\", \"smtp.«proj».io\")")
K("k-go-setbasicauth", "code", safe_pw,
  "req, _ := http.NewRequest(\"GET\", u, nil)\nreq.SetBasicAuth(\"«user»\", \"«v»\")")
K("k-go-ssh-password", "code", pw,
  "cfg := &ssh.ClientConfig{\n\tUser: \"«user»\",\n\tAuth: []ssh.AuthMethod{ssh.Password(\"«v»\")},\n}")
K("k-go-jwt-key", "code", M(ALNUM, 32),
  "var jwtKey = []byte(\"«v»\")")
K("k-rust-reqwest-basic", "code", safe_pw,
  "let resp = client.get(url).basic_auth(\"«user»\", Some(\"«v»\")).send().await?;")
K("k-rust-const-key", "code", M(ALNUM, 40),
  "const API_KEY: &str = \"«v»\";", "static SECRET: &'static str = \"«v»\";")
K("k-rust-lettre", "code", pw,
  "let creds = Credentials::new(\"«email»\".to_owned(), \"«v»\".to_owned());")
K("k-java-drivermanager", "code", safe_pw,
  "Connection conn = DriverManager.getConnection(\"jdbc:mysql://«host»:3306/«proj»\", \"«user»\", \"«v»\");")
K("k-java-keystore-load", "code", safe_pw,
  "KeyStore ks = KeyStore.getInstance(\"PKCS12\");\nks.load(new FileInputStream(\"client.p12\"), \"«v»\".toCharArray());")
K("k-java-javamail", "code", pw,
  "return new PasswordAuthentication(\"«email»\", \"«v»\");")
K("k-java-spring-value-default", "code", M(ALNUM, 40),
  "@Value(\"${partner.api.secret:«v»}\")\nprivate String partnerSecret;")
K("k-kotlin-const-val", "code", M(ALNUM, 40),
  "private const val MAPS_SECRET = \"«v»\"", "val client = OkHttpClient.Builder().addInterceptor { it.proceed(it.request().newBuilder().header(\"X-Secret\", \"«v»\").build()) }.build()")
K("k-csharp-networkcredential", "code", pw,
  "var client = new SmtpClient(\"smtp.«proj».io\", 587) {\n    Credentials = new NetworkCredential(\"«user»\", \"«v»\"),\n    EnableSsl = true\n};")
K("k-csharp-auth-header", "code", M(ALNUM, 40),
  "http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue(\"Bearer\", \"«v»\");")
K("k-php-mysqli", "code", safe_pw,
  "$conn = mysqli_connect('«host»', '«user»', '«v»', '«proj»');")
K("k-php-define", "code", M(ALNUM, 40),
  "define('PAYMENT_SECRET', '«v»');")
K("k-php-phpmailer", "code", pw,
  "$mail->Username = 'noreply@«proj».io';\n$mail->Password = '«v»';\n$mail->SMTPSecure = PHPMailer::ENCRYPTION_STARTTLS;")
K("k-ruby-mysql2", "code", safe_pw,
  "client = Mysql2::Client.new(host: \"«host»\", username: \"«user»\", password: \"«v»\", database: \"«proj»\")")
K("k-ruby-octokit", "code", G("ghp_", (ALNUM, 36)),
  "client = Octokit::Client.new(access_token: \"«v»\")")
K("k-ruby-action-mailer", "code", pw,
  "config.action_mailer.smtp_settings = {\n  address: \"smtp.«proj».io\",\n  user_name: \"«user»\",\n  password: \"«v»\",\n  authentication: :plain\n}")
K("k-swift-urlcredential", "code", pw,
  "let credential = URLCredential(user: \"«user»\", password: \"«v»\", persistence: .forSession)")
K("k-swift-header", "code", M(ALNUM, 40),
  "request.setValue(\"Bearer «v»\", forHTTPHeaderField: \"Authorization\")")
K("k-elixir-req-bearer", "code", M(ALNUM, 40),
  "Req.get!(url, auth: {:bearer, \"«v»\"})")
K("k-elixir-runtime-config", "code", safe_pw,
  "config :«proj», «proj».Mailer,\n  adapter: Swoosh.Adapters.SMTP,\n  username: \"apikey\",\n  password: \"«v»\"")
K("k-clojure-db-spec", "code", safe_pw,
  "(def db {:dbtype \"postgresql\" :dbname \"«proj»\" :host \"«host»\" :user \"«user»\" :password \"«v»\"})")
K("k-r-dbconnect", "code", safe_pw,
  "con <- dbConnect(RPostgres::Postgres(), dbname = \"«proj»\", host = \"«host»\", user = \"«user»\", password = \"«v»\")")
K("k-r-sys-setenv", "code", M(ALNUM, 40),
  "Sys.setenv(CENSUS_API_KEY = \"«v»\")")
K("k-perl-dbi", "code", safe_pw,
  "my $dbh = DBI->connect(\"dbi:Pg:dbname=«proj»;host=«host»\", \"«user»\", \"«v»\", { RaiseError => 1 });")
K("k-julia-env", "code", M(ALNUM, 40),
  "ENV[\"FRED_API_KEY\"] = \"«v»\"")
K("k-haskell-connectinfo", "code", safe_pw,
  "connInfo = defaultConnectInfo { connectUser = \"«user»\", connectPassword = \"«v»\", connectDatabase = \"«proj»\" }")
K("k-cpp-curl-userpwd", "code", safe_pw,
  "curl_easy_setopt(curl, CURLOPT_USERPWD, \"«user»:«v»\");")
K("k-micropython-wlan", "code", pw,
  "wlan = network.WLAN(network.STA_IF)\nwlan.active(True)\nwlan.connect(\"«proj»-IoT\", \"«v»\")")
K("k-bash-function", "code", M(ALNUM, 40),
  "notify() {\n  curl -s -X POST -H \"X-Notify-Key: «v»\" -d \"$1\" https://notify.«proj».io/send\n}")
K("k-sql-user-mapping", "code", safe_pw,
  "CREATE USER MAPPING FOR app_user SERVER legacy_srv OPTIONS (user '«user»', password '«v»');")
K("k-sql-redshift-copy", "code", G((B64, 40)),
  "COPY events FROM 's3://«proj»-raw/events/' CREDENTIALS 'aws_access_key_id=AKIA«U:16»;aws_secret_access_key=«v»' FORMAT AS JSON 'auto';")
K("k-sql-snowflake-stage", "code", G((B64, 40)),
  "CREATE OR REPLACE STAGE raw_stage URL='s3://«proj»-raw/' CREDENTIALS=(AWS_KEY_ID='AKIA«U:16»' AWS_SECRET_KEY='«v»');")
K("k-sql-change-master", "code", safe_pw,
  "CHANGE REPLICATION SOURCE TO SOURCE_HOST='«host»', SOURCE_USER='repl', SOURCE_PASSWORD='«v»', SOURCE_AUTO_POSITION=1;")
K("k-sql-pg-subscription", "code", safe_pw,
  "CREATE SUBSCRIPTION «proj»_sub CONNECTION 'host=«host» dbname=«proj» user=repl password=«v»' PUBLICATION «proj»_pub;")
K("k-sql-clickhouse-user", "code", safe_pw,
  "CREATE USER «user» IDENTIFIED WITH sha256_password BY '«v»' HOST ANY;")
K("k-sql-alter-role-pg", "code", pw,
  "ALTER ROLE «user» WITH LOGIN PASSWORD '«v»' VALID UNTIL '2027-01-01';")
K("k-notebook-json-source", "code", M(ALNUM, 40),
  "{\n \"cell_type\": \"code\",\n \"source\": [\n  \"import openmeteo\\n\",\n  \"client = openmeteo.Client(key=\\\"«v»\\\")\"\n ]\n}")
K("k-yaml-in-python-test", "code", pw,
  "def test_login(client):\n    r = client.post(\"/login\", data={\"email\": \"«email»\", \"password\": \"«v»\"})  # real staging account\n    assert r.status_code == 200")

# ============================================================================================
# vendor: vendors' token formats, in the places they are usually pasted
# ============================================================================================

K("w-aws-bedrock-apikey", "vendor", G("ABSKQmVkcm9ja0FQSUtleS1", (B64, 110)),
  "export AWS_BEARER_TOKEN_BEDROCK=«v»", se=True)
K("w-aws-ses-smtp", "vendor", G("B", (B64, 43)),
  "SES SMTP credentials for «region»:\n  SMTP username: AKIA«U:16»\n  SMTP password: «v»")
K("w-aws-tf-provider", "vendor", G((B64, 40)),
  "provider \"aws\" {\n  region     = \"«region»\"\n  access_key = \"AKIA«U:16»\"\n  secret_key = \"«v»\"\n}")
K("w-aws-cognito-client-secret", "vendor", G((LALNUM, 52)),
  "COGNITO_CLIENT_ID=«l:26»\nCOGNITO_CLIENT_SECRET=«v»")
K("w-github-user-to-server", "vendor", G("ghu_", (ALNUM, 36)), "GITHUB_USER_TOKEN=«v»", se=True)
K("w-github-refresh", "vendor", G("ghr_", (ALNUM, 76)),
  "{\"access_token\":\"ghu_«a:36»\",\"expires_in\":28800,\"refresh_token\":\"«v»\",\"refresh_token_expires_in\":15811200}", se=True)
K("w-gitlab-pipeline-trigger", "vendor", G("glptt-", (HEX, 40)),
  "curl -X POST --fail -F token=«v» -F ref=main https://gitlab.«proj».io/api/v4/projects/«d:3»/trigger/pipeline", se=True)
K("w-gitlab-feed-token", "vendor", G("glft-", (B64URL, 20)),
  "https://gitlab.«proj».io/dashboard/issues.atom?feed_token=«v»&state=opened", se=True)
K("w-gitlab-oauth-app-secret", "vendor", G("gloas-", (HEX, 64)), "GITLAB_OAUTH_SECRET=«v»", se=True)
K("w-gitlab-agent-token", "vendor", G("glagent-", (B64URL, 50)),
  "helm upgrade --install «proj»-agent gitlab/gitlab-agent --set config.token=«v» --set config.kasAddress=wss://kas.gitlab.com", se=True)
K("w-slack-user-token", "vendor", G("xoxp-", (DIGITS, 12), "-", (DIGITS, 12), "-", (DIGITS, 13), "-", (HEX, 32)),
  "SLACK_USER_TOKEN=«v»", se=True)
K("w-slack-refresh", "vendor", G("xoxe-1-", (ALNUM, 140)), "slack refresh token: «v»", se=True)
K("w-slack-session-cookie", "vendor", G("xoxd-", (ALNUM + "%", 180)),
  "cookie d=«v»; d-s=«d:10»", se=True)
K("w-slack-signing-secret", "vendor", hexkey(32),
  "SLACK_SIGNING_SECRET=«v»\nSLACK_APP_ID=A0«U:9»")
K("w-openai-admin", "vendor", G("sk-admin-", (B64URL, 58), "T3BlbkFJ", (B64URL, 58)),
  "OPENAI_ADMIN_KEY=«v»", se=True)
K("w-openai-legacy", "vendor", G("sk-", (ALNUM, 20), "T3BlbkFJ", (ALNUM, 20)),
  "openai.api_key = \"«v»\"", se=True)
K("w-anthropic-oauth", "vendor", G("sk-ant-oat01-", (B64URL, 93), "AA"),
  "CLAUDE_CODE_OAUTH_TOKEN=«v»", se=True)
K("w-hf-org-token", "vendor", G("api_org_", (ALNUM, 34)), "HUGGING_FACE_HUB_TOKEN=«v»", se=True)
K("w-dockerhub-org-token", "vendor", G("dckr_oat_", (B64URL, 32)),
  "echo «v» | docker login -u «proj»org --password-stdin", se=True)
K("w-digitalocean-oauth", "vendor", G("doo_v1_", (HEX, 64)), "DIGITALOCEAN_ACCESS_TOKEN=«v»", se=True)
K("w-digitalocean-refresh", "vendor", G("dor_v1_", (HEX, 64)), "refresh_token: «v»", se=True)
K("w-supabase-secret-key", "vendor", G("sb_secret_", (B64URL, 31)), "SUPABASE_SECRET_KEY=«v»", se=True)
K("w-firebase-ci-token", "vendor", G("1//0", (B64URL, 99)),
  "firebase deploy --only hosting --token \"«v»\"", "FIREBASE_TOKEN=«v»")
K("w-newrelic-insert", "vendor", G("NRII-", (B64URL, 32)),
  "curl -X POST -H \"X-Insert-Key: «v»\" https://insights-collector.newrelic.com/v1/accounts/«d:7»/events", se=True)
K("w-sentry-user-token", "vendor", G("sntryu_", (HEX, 64)),
  "[auth]\ntoken=«v»\n\n[defaults]\norg=«proj»", se=True)
K("w-shopify-shared-secret", "vendor", G("shpss_", (HEX, 32)), "SHOPIFY_API_SECRET=«v»", se=True)
K("w-shopify-custom-app", "vendor", G("shpca_", (HEX, 32)), "X-Shopify-Access-Token: «v»", se=True)
K("w-shopify-private-app", "vendor", G("shppa_", (HEX, 32)), "ShopifyAPI::Context.setup(api_key: \"«hex:32»\", api_secret_key: \"«v»\")", se=True)
K("w-bitbucket-access-token", "vendor", G("ATCTT3xFfGN0", (B64URL, 170), "=", (HEXU, 8)),
  "BITBUCKET_ACCESS_TOKEN=«v»", se=True)
K("w-linear-oauth", "vendor", G("lin_oauth_", (HEX, 64)), "Authorization: Bearer «v»", se=True)
K("w-discord-client-secret", "vendor", M(B64URL, 32),
  "DISCORD_CLIENT_ID=«d:18»\nDISCORD_CLIENT_SECRET=«v»")
K("w-telegram-api-hash", "vendor", hexkey(32),
  "client = TelegramClient('session', api_id=«d:8», api_hash='«v»')")
K("w-cloudflare-tunnel", "vendor",
  lambda rng: b64(json.dumps({"a": rs(rng, HEX, 32), "t": uuid4(rng), "s": b64_of(rbytes(rng, 32))}, separators=(",", ":"))),
  "sudo cloudflared service install «v»", "TUNNEL_TOKEN=«v»")
K("w-cloudflare-r2", "vendor", hexkey(64),
  "R2_ACCESS_KEY_ID=«hex:32»\nR2_SECRET_ACCESS_KEY=«v»\nR2_ENDPOINT=https://«hex:32».r2.cloudflarestorage.com")
K("w-doppler-personal", "vendor", G("dp.pt.", (ALNUM, 43)), "doppler configure set token «v»", se=True)
K("w-vault-batch", "vendor", G("hvb.AAAAAQ", (B64URL, 130)), "VAULT_TOKEN=«v»", se=True)
K("w-1password-secret-key", "vendor", G("A3-", (UALNUM, 6), "-", (UALNUM, 6), "-", (UALNUM, 5), "-", (UALNUM, 5), "-", (UALNUM, 5), "-", (UALNUM, 5), "-", (UALNUM, 5)),
  "1Password Emergency Kit\nSign-in address: «proj».1password.com\nEmail: «email»\nSecret Key: «v»", se=True)
K("w-databricks-oauth-secret", "vendor", G("dose", (HEX, 32)),
  "DATABRICKS_CLIENT_ID=«uuid»\nDATABRICKS_CLIENT_SECRET=«v»", se=True)
K("w-grafana-legacy-apikey", "vendor",
  lambda rng: b64(json.dumps({"k": rs(rng, ALNUM, 32), "n": rng.choice(_APPS), "id": rng.randrange(1, 9)}, separators=(",", ":"))),
  "curl -H \"Authorization: Bearer «v»\" https://grafana.«proj».io/api/dashboards/uid/«l:9»")
K("w-pagerduty-routing", "vendor", hexkey(32),
  "{\n  \"routing_key\": \"«v»\",\n  \"event_action\": \"trigger\",\n  \"payload\": {\"summary\": \"disk full on «host»\", \"severity\": \"critical\"}\n}")
K("w-okta-yaml", "vendor", M(B64URL, 40),
  "okta:\n  client:\n    orgUrl: https://«proj».okta.com\n    clientId: 0oa«a:17»\n    clientSecret: «v»")
K("w-auth0-mgmt-jwt", "vendor", jwt_token(lambda rng: {"iss": f"https://{rng.choice(_APPS)}.eu.auth0.com/", "sub": rs(rng, ALNUM, 32) + "@clients", "aud": "management", "scope": "read:users update:users", "gty": "client-credentials"}, "RS256"),
  "AUTH0_MANAGEMENT_TOKEN=«v»")
K("w-paypal-rest", "vendor", G("E", (B64URL, 79)),
  "PAYPAL_CLIENT_ID=A«a:79»\nPAYPAL_CLIENT_SECRET=«v»\nPAYPAL_MODE=live")
K("w-adyen-apikey", "vendor", G("AQE", (B64, 97), "==-", (B64, 43), "=-", (ALNUM, 16)),
  "ADYEN_API_KEY=«v»\nADYEN_MERCHANT_ACCOUNT=«proj»ECOM")
K("w-sanity-token", "vendor", G("sk", (ALNUM, 180)), "SANITY_API_WRITE_TOKEN=«v»")
K("w-mux-secret", "vendor", M(B64, 75),
  "MUX_TOKEN_ID=«uuid»\nMUX_TOKEN_SECRET=«v»")
K("w-pusher-secret", "vendor", hexkey(20),
  "PUSHER_APP_ID=«d:7»\nPUSHER_KEY=«hex:20»\nPUSHER_SECRET=«v»\nPUSHER_CLUSTER=eu")
K("w-ably-key", "vendor", G((ALNUM, 6), ".", (ALNUM, 6), ":", (B64URL, 43)),
  "const ably = new Ably.Realtime({ key: '«v»' });", "ABLY_API_KEY=«v»")
K("w-agora-certificate", "vendor", hexkey(32),
  "AGORA_APP_ID=«hex:32»\nAGORA_APP_CERTIFICATE=«v»")
K("w-zoom-s2s", "vendor", M(ALNUM, 32),
  "ZOOM_ACCOUNT_ID=«a:22»\nZOOM_CLIENT_ID=«a:22»\nZOOM_CLIENT_SECRET=«v»")
K("w-intercom-token", "vendor", lambda rng: b64(f"tok:{uuid4(rng)}:1:0"),
  "curl https://api.intercom.io/contacts -H 'Authorization: Bearer «v»' -H 'Intercom-Version: 2.11'")
K("w-salesforce-security-token", "vendor", M(ALNUM, 25),
  "sf = Salesforce(username='«email»', password='«a:14»', security_token='«v»')")
K("w-salesforce-consumer-secret", "vendor", G((HEXU, 64)),
  "SF_CONSUMER_KEY=3MVG9«a:80»\nSF_CONSUMER_SECRET=«v»")
K("w-spotify-client-secret", "vendor", hexkey(32),
  "SPOTIPY_CLIENT_ID='«hex:32»'\nSPOTIPY_CLIENT_SECRET='«v»'")
K("w-azure-openai-key", "vendor", hexkey(32),
  "curl https://«proj»-oai.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21 -H \"api-key: «v»\" -H 'Content-Type: application/json' -d @req.json")
K("w-azure-servicebus", "vendor", lambda rng: b64_of(rbytes(rng, 32)),
  "Endpoint=sb://«proj»-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«v»")
K("w-azure-cosmos-key", "vendor", lambda rng: b64_of(rbytes(rng, 64)),
  "COSMOS_ENDPOINT=https://«proj»-cosmos.documents.azure.com:443/\nCOSMOS_KEY=«v»")
K("w-ibm-cloud-apikey", "vendor", M(B64URL, 44), "ibmcloud login --apikey «v» -r eu-de")
K("w-tencent-secretkey", "vendor", M(ALNUM, 32),
  "TENCENTCLOUD_SECRET_ID=AKID«a:32»\nTENCENTCLOUD_SECRET_KEY=«v»")
K("w-yandex-api-key", "vendor", G("AQVN", (B64URL, 36)), "YC_API_KEY=«v»", se=True)
K("w-yandex-iam", "vendor", G("t1.9euelZ", (B64URL, 150)), "curl -H \"Authorization: Bearer «v»\" https://llm.api.cloud.yandex.net/foundationModels/v1/completion", se=True)
K("w-scaleway-secret", "vendor", uuid4,
  "[default]\naccess_key = SCW«U:17»\nsecret_key = «v»\ndefault_region = fr-par")
K("w-ovh-keys", "vendor", M(ALNUM, 32),
  "[ovh-eu]\napplication_key=«a:16»\napplication_secret=«v»\nconsumer_key=«a:32»")
K("w-vultr", "vendor", G((UALNUM, 36)), "export VULTR_API_KEY=«v»")
K("w-backblaze-b2", "vendor", G("K00", (B64, 28)),
  "b2 account authorize 00«hex:23» «v»", "B2_APPLICATION_KEY=«v»")
K("w-wasabi", "vendor", G((UALNUM, 40)),
  "rclone config create wasabi s3 provider=Wasabi access_key_id=«U:20» secret_access_key=«v» endpoint=s3.wasabisys.com")
K("w-deno-deploy", "vendor", G("ddp_", (ALNUM, 36)), "deployctl deploy --token=«v» --project=«proj» main.ts", se=True)
K("w-turso-jwt", "vendor", jwt_token(lambda rng: {"a": "rw", "iat": 1767225600 + rng.randrange(10**6), "id": uuid4(rng)}, "EdDSA"),
  "TURSO_AUTH_TOKEN=«v»")
K("w-atlas-api-private", "vendor", uuid4,
  "atlas config set private_api_key «v»\natlas config set public_api_key «low:8»")
K("w-deepgram", "vendor", hexkey(40), "DEEPGRAM_API_KEY=«v»", "curl -H 'Authorization: Token «v»' https://api.deepgram.com/v1/listen")
K("w-assemblyai", "vendor", hexkey(32), "aai.settings.api_key = \"«v»\"")
K("w-voyage", "vendor", G("pa-", (B64URL, 43)), "VOYAGE_API_KEY=«v»")
K("w-langfuse-secret", "vendor", lambda rng: "sk-lf-" + uuid4(rng),
  "LANGFUSE_PUBLIC_KEY=pk-lf-«uuid»\nLANGFUSE_SECRET_KEY=«v»\nLANGFUSE_HOST=https://cloud.langfuse.com", se=True)
K("w-browserbase", "vendor", G("bb_live_", (B64URL, 27)), "BROWSERBASE_API_KEY=«v»", se=True)
K("w-firecrawl", "vendor", G("fc-", (HEX, 32)), "app = FirecrawlApp(api_key=\"«v»\")")
K("w-tavily", "vendor", G("tvly-", (ALNUM, 32)), "TAVILY_API_KEY=«v»", se=True)
K("w-serpapi", "vendor", hexkey(64), "https://serpapi.com/search.json?engine=google&q=coffee&api_key=«v»")
K("w-e2b", "vendor", G("e2b_", (HEX, 40)), "E2B_API_KEY=«v»", se=True)
K("w-modal-token", "vendor", G("as-", (ALNUM, 22)),
  "modal token set --token-id ak-«a:22» --token-secret «v»")
K("w-cerebras", "vendor", G("csk-", (LALNUM, 48)), "CEREBRAS_API_KEY=«v»", se=True)
K("w-jina", "vendor", G("jina_", (ALNUM, 60)), "curl https://r.jina.ai/https://example.com -H \"Authorization: Bearer «v»\"", se=True)
K("w-litellm-master", "vendor", G("sk-", (ALNUM, 22)),
  "general_settings:\n  master_key: «v»\n  database_url: postgresql://litellm:«a:12»@db:5432/litellm")
K("w-travis-token", "vendor", M(ALNUM, 22), "travis login --github-token ghp_«a:36»\ntravis token\nYour access token is «v»")
K("w-semgrep-token", "vendor", hexkey(64), "SEMGREP_APP_TOKEN=«v»")
K("w-chromatic-token", "vendor", G("chpt_", (HEX, 14)), "npx chromatic --project-token=«v»", se=True)
K("w-cypress-record-key", "vendor", uuid4, "npx cypress run --record --key «v»")
K("w-saucelabs", "vendor", uuid4, "SAUCE_USERNAME=«user»\nSAUCE_ACCESS_KEY=«v»")
K("w-expo-token", "vendor", M(B64URL, 40), "EXPO_TOKEN=«v» eas build --platform ios --non-interactive")
K("w-octopus-api", "vendor", G("API-", (UALNUM, 26)), "octopus login --server https://deploy.«proj».io --api-key «v»", se=True)
K("w-harness-pat", "vendor", G("pat.", (B64URL, 22), ".", (HEX, 24), ".", (ALNUM, 20)), "HARNESS_PLATFORM_API_KEY=«v»", se=True)
K("w-artifactory-identity", "vendor", G("cmVmdGtuOjAxOjE3", (B64, 48)), "jf c add --url https://«proj».jfrog.io --access-token «v»", se=True)
K("w-gradle-enterprise-key", "vendor", G((LALNUM, 52)), "GRADLE_ENTERPRISE_ACCESS_KEY=ge.«proj».io=«v»")
K("w-turbo-token", "vendor", M(ALNUM, 24), "TURBO_TEAM=«proj» TURBO_TOKEN=«v» pnpm turbo build")
K("w-logzio-token", "vendor", M(ALNUM, 32), "output.logstash:\n  hosts: [\"listener.logz.io:5015\"]\nfields:\n  token: «v»")
K("w-checkly", "vendor", G("cu_", (HEX, 32)), "CHECKLY_API_KEY=«v»\nCHECKLY_ACCOUNT_ID=«uuid»")
K("w-opsgenie", "vendor", uuid4, "curl -X POST https://api.opsgenie.com/v2/alerts -H 'Authorization: GenieKey «v»' -d '{\"message\":\"db down\"}'")
K("w-gocardless", "vendor", G("live_", (B64URL, 40)), "GOCARDLESS_ACCESS_TOKEN=«v»")
K("w-wise-token", "vendor", uuid4, "curl https://api.transferwise.com/v1/profiles -H 'Authorization: Bearer «v»'")
K("w-paddle-key", "vendor", G("pdl_live_apikey_", (LALNUM, 26), "_", (ALNUM, 22)), "PADDLE_API_KEY=«v»", se=True)
K("w-recurly", "vendor", hexkey(32), "recurly.Client(\"«v»\")")
K("w-plivo", "vendor", M(ALNUM, 40), "client = plivo.RestClient('MA«U:18»', '«v»')")
K("w-telnyx", "vendor", G("KEY", (HEXU, 32), "_", (ALNUM, 22)), "TELNYX_API_KEY=«v»")
K("w-onesignal", "vendor", G("os_v2_app_", (B32, 110)), "Authorization: Key «v»", se=True)
K("w-mailjet", "vendor", hexkey(32), "mailjet = Client(auth=('«hex:32»', '«v»'), version='v3.1')")
K("w-sparkpost", "vendor", hexkey(40), "SPARKPOST_API_KEY=«v»")
K("w-mandrill", "vendor", G("md-", (B64URL, 22)), "mandrill_client = MailchimpTransactional.Client('«v»')")
K("w-klaviyo-private", "vendor", G("pk_", (HEX, 34)), "curl -H 'Authorization: Klaviyo-API-Key «v»' -H 'revision: 2024-10-15' https://a.klaviyo.com/api/profiles/")
K("w-stytch-secret", "vendor", G("secret-live-", (B64URL, 36)), "STYTCH_PROJECT_ID=project-live-«uuid»\nSTYTCH_SECRET=«v»", se=True)
K("w-workos", "vendor", G("sk_", (ALNUM, 60)), "WORKOS_API_KEY=«v»\nWORKOS_CLIENT_ID=client_«U:26»")
K("w-ory-pat", "vendor", G("ory_pat_", (ALNUM, 32)), "ORY_API_KEY=«v»", se=True)
K("w-keycloak-client-secret", "vendor", M(ALNUM, 32),
  "KC_CLIENT_ID=«proj»-backend\nKC_CLIENT_SECRET=«v»\nKC_REALM=«proj»")
K("w-k3s-token", "vendor", G("K10", (HEX, 64), "::server:", (HEX, 32)),
  "curl -sfL https://get.k3s.io | K3S_URL=https://«ip»:6443 K3S_TOKEN=«v» sh -", se=True)
K("w-swarm-join", "vendor", G("SWMTKN-1-", (LALNUM, 50), "-", (LALNUM, 25)),
  "docker swarm join --token «v» «ip»:2377", se=True)
K("w-rancher-token", "vendor", G("token-", (LALNUM, 5), ":", (LALNUM, 54)), "CATTLE_TOKEN=«v»", se=True)
K("w-portainer", "vendor", G("ptr_", (B64, 43)), "curl -H 'X-API-Key: «v»' https://portainer.«proj».io/api/endpoints", se=True)
K("w-proxmox-token", "vendor", uuid4,
  "curl -k -H 'Authorization: PVEAPIToken=root@pam!terraform=«v»' https://pve.«proj».lan:8006/api2/json/nodes")
K("w-netbird-pat", "vendor", G("nbp_", (ALNUM, 36)), "NB_API_TOKEN=«v»", se=True)
K("w-headscale-preauth", "vendor", hexkey(48), "tailscale up --login-server https://hs.«proj».io --authkey «v»")
K("w-trello", "vendor", G("ATTA", (HEX, 64), (HEXU, 8)), "https://api.trello.com/1/members/me/boards?key=«hex:32»&token=«v»", se=True)
K("w-clickup", "vendor", G("pk_", (DIGITS, 8), "_", (UALNUM, 32)), "CLICKUP_API_TOKEN=«v»")
K("w-typeform", "vendor", G("tfp_", (ALNUM, 44), "_", (ALNUM, 14)), "TYPEFORM_TOKEN=«v»", se=True)
K("w-webflow", "vendor", hexkey(64), "const webflow = new WebflowClient({ accessToken: \"«v»\" });")
K("w-nocodb", "vendor", M(ALNUM, 40), "curl -H 'xc-token: «v»' https://nocodb.«proj».io/api/v2/tables")
K("w-shodan", "vendor", M(ALNUM, 32), "shodan init «v»")
K("w-virustotal", "vendor", hexkey(64), "curl --request GET --url https://www.virustotal.com/api/v3/files/«hex:64» --header 'x-apikey: «v»'")
K("w-abuseipdb", "vendor", hexkey(80), "ABUSEIPDB_KEY=«v»")
K("w-openweather", "vendor", hexkey(32), "https://api.openweathermap.org/data/2.5/weather?q=Lisbon&appid=«v»&units=metric")
K("w-infura-secret", "vendor", hexkey(32), "INFURA_PROJECT_ID=«hex:32»\nINFURA_PROJECT_SECRET=«v»")
K("w-etherscan", "vendor", G((UALNUM, 34)), "etherscan: {\n  apiKey: \"«v»\"\n}")
K("w-binance-secret", "vendor", M(ALNUM, 64), "client = Client(api_key='«a:64»', api_secret='«v»')")
K("w-kraken-private", "vendor", lambda rng: b64_of(rbytes(rng, 64)), "KRAKEN_API_KEY=«b64:56»\nKRAKEN_PRIVATE_KEY=«v»")
K("w-alchemy", "vendor", M(B64URL, 32), "https://eth-mainnet.g.alchemy.com/v2/«v»")
K("w-mapbox-download-token", "vendor", G("sk.eyJ1Ijoi", (B64URL, 60), ".", (B64URL, 22)),
  "MAPBOX_DOWNLOADS_TOKEN=«v»", se=True)
K("w-segment-personal", "vendor", G("sgp_", (ALNUM, 64)), "SEGMENT_PUBLIC_API_TOKEN=«v»", se=True)
K("w-contentful-management", "vendor", G("CFPAT-", (B64URL, 43)), "contentful login --management-token «v»", se=True)
K("w-frame-io", "vendor", G("fio-u-", (B64URL, 64)), "FRAMEIO_TOKEN=«v»", se=True)
K("w-pulumi-esc", "vendor", G("pul-", (HEX, 40)), "pulumi login --cloud-url https://api.pulumi.com  # PULUMI_ACCESS_TOKEN=«v»", se=True)
K("w-gcp-oauth-access", "vendor", G("ya29.a0A", (B64URL, 150)),
  "$ gcloud auth print-access-token\n«v»", se=True)
K("w-microsoft-refresh", "vendor", G("0.A", (B64URL, 300)),
  "{\"token_type\":\"Bearer\",\"scope\":\"Mail.Read offline_access\",\"expires_in\":3599,\"refresh_token\":\"«v»\"}")

# ============================================================================================
# encoded: base64, hex and escape forms of a credential
# ============================================================================================


def _smtp_auth_plain(rng: random.Random, v: str):
    token = b64(f"\0{username(rng)}@{rng.choice(_APPS)}.io\0{v}")
    return (f"$ openssl s_client -starttls smtp -connect smtp.{rng.choice(_APPS)}.io:587 -quiet\n250 AUTH PLAIN LOGIN\n"
            f"AUTH PLAIN {token}\n235 2.7.0 Authentication successful"), [(token, B64W)]


def _smtp_auth_login(rng: random.Random, v: str):
    enc = b64(v)
    return (f"334 VXNlcm5hbWU6\n{b64(username(rng))}\n334 UGFzc3dvcmQ6\n{enc}\n235 Authentication succeeded"), [(enc, B64W)]


def _imap_xoauth2(rng: random.Random, v: str):
    token = b64(f"user={rng.choice(_NAMES)}@gmail.com\x01auth=Bearer {v}\x01\x01")
    return f"C: A1 AUTHENTICATE XOAUTH2 {token}\nS: A1 OK Thats all she wrote!", [(token, B64W)]


def _dockerconfigjson(rng: random.Random, v: str):
    inner = b64(f"{username(rng)}:{v}")
    cfg = json.dumps({"auths": {f"registry.{rng.choice(_APPS)}.io": {"auth": inner}}}, separators=(",", ":"))
    outer = b64(cfg)
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\ndata:\n"
            f"  .dockerconfigjson: {outer}"), [(outer, 20)]


def _kubeconfig_b64(rng: random.Random, v: str):
    kc = (f"apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://{rng.choice(_APPS)}.k8s.local:6443\n  name: prod\n"
          f"users:\n- name: ci\n  user:\n    token: {v}\n")
    enc = b64(kc)
    return f"KUBE_CONFIG_DATA={enc}", [(enc, B64W)]


def _npmrc_password(rng: random.Random, v: str):
    enc = b64(v)
    return (f"//nexus.{rng.choice(_APPS)}.io/repository/npm/:username={username(rng)}\n"
            f"//nexus.{rng.choice(_APPS)}.io/repository/npm/:_password={enc}\n"
            f"//nexus.{rng.choice(_APPS)}.io/repository/npm/:email=ci@example.com"), [(enc, B64W)]


def _js_hex_escapes(rng: random.Random, v: str):
    esc = "".join(f"\\x{ord(c):02x}" for c in v)
    return f"const k = \"{esc}\"; // obfuscated so scanners don't flag it", [(esc, 40)]


def _jwt_payload_pw(rng: random.Random, v: str):
    payload = b64u(json.dumps({"sub": rs(rng, DIGITS, 6), "db_user": username(rng), "db_pass": v, "iat": 1767225600}).encode())
    head = b64u(b'{"alg":"HS256","typ":"JWT"}')
    return f"why is this JWT so big?\n{head}.{payload}.{rs(rng, B64URL, 43)}", [(payload, B64W)]


def _csharp_frombase64(rng: random.Random, v: str):
    enc = b64(v)
    return f"var pwd = Encoding.UTF8.GetString(Convert.FromBase64String(\"{enc}\"));", [(enc, B64W)]


def _oauth_client_basic(rng: random.Random, v: str):
    token = b64(f"{rs(rng, HEX, 32)}:{v}")
    return (f"curl -X POST https://accounts.spotify.com/api/token -H \"Authorization: Basic {token}\" -d grant_type=client_credentials",
            [(token, B64W)])


def _py_bytes_hex(rng: random.Random, v: str):
    esc = "".join(f"\\x{b:02x}" for b in v.encode())
    return f"PASSWORD = b\"{esc}\".decode()", [(esc, 40)]


def _helm_template_secret(rng: random.Random, v: str):
    enc = b64(v)
    return (f"$ helm template {rng.choice(_APPS)} ./chart | grep -A4 'kind: Secret'\nkind: Secret\ntype: Opaque\ndata:\n"
            f"  smtp-password: {enc}"), [(enc, B64W)]


def _ss_uri(rng: random.Random, v: str):
    enc = b64_of(f"chacha20-ietf-poly1305:{v}".encode(), url=True, pad=False)
    return f"ss://{enc}@{rng.randrange(1, 223)}.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}:8388#office-vpn", [(enc, B64W)]


def _vmess_uri(rng: random.Random, v: str):
    enc = b64(json.dumps({"v": "2", "ps": "vps", "add": f"{rng.choice(_APPS)}.example.net", "port": "443", "id": v, "aid": "0", "net": "ws", "tls": "tls"}))
    return f"vmess://{enc}", [(enc, B64W)]


def _aes_spec_b64(rng: random.Random, v: str):
    return f"SecretKeySpec key = new SecretKeySpec(Base64.getDecoder().decode(\"{v}\"), \"AES\");"


def _pg_bytea(rng: random.Random, v: str):
    hx = v.encode().hex()
    return f"UPDATE integrations SET api_secret = '\\x{hx}'::bytea WHERE id = {rng.randrange(1, 99)};", [(hx, 20)]


K("e-smtp-auth-plain", "encoded", pw, _smtp_auth_plain)
K("e-smtp-auth-login", "encoded", pw, _smtp_auth_login)
K("e-imap-xoauth2", "encoded", G("ya29.a0A", (B64URL, 120)), _imap_xoauth2)
K("e-dockerconfigjson", "encoded", safe_pw, _dockerconfigjson)
K("e-kubeconfig-b64", "encoded", jwt_token(lambda rng: {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci", "sub": "system:serviceaccount:ci:deployer"}, "RS256"), _kubeconfig_b64)
K("e-npmrc-underscore-password", "encoded", safe_pw, _npmrc_password)
K("e-js-hex-escapes", "encoded", M(ALNUM, 32), _js_hex_escapes)
K("e-jwt-payload-password", "encoded", safe_pw, _jwt_payload_pw)
K("e-csharp-frombase64", "encoded", pw, _csharp_frombase64)
K("e-oauth-client-basic", "encoded", hexkey(32), _oauth_client_basic)
K("e-py-bytes-hex", "encoded", pw, _py_bytes_hex)
K("e-helm-template-secret", "encoded", pw, _helm_template_secret)
K("e-shadowsocks-uri", "encoded", safe_pw, _ss_uri)
K("e-vmess-uri", "encoded", uuid4, _vmess_uri)
K("y-java-aes-key-b64", "keys", lambda rng: b64_of(rbytes(rng, 32)), _aes_spec_b64)
K("e-pg-bytea-hex", "encoded", M(ALNUM, 32), _pg_bytea)

# ============================================================================================
# uri: credentials inside URIs and DSNs
# ============================================================================================


def _uri_enc(template: str):
    def render(rng: random.Random, v: str):
        enc = pct(v)
        return fill(rng, template.replace("«v»", enc), v), [(enc, pct_window(v))]

    return render


K("u-jdbc-oracle-thin", "uri", safe_pw, "spring.datasource.url=jdbc:oracle:thin:«user»/«v»@//«host»:1521/ORCLPDB1")
K("u-odbc-connection-string", "uri", safe_pw,
  "conn = pyodbc.connect(\"DRIVER={ODBC Driver 18 for SQL Server};SERVER=«host»;DATABASE=«proj»;UID=«user»;PWD=«v»;TrustServerCertificate=yes\")")
K("u-snowflake-sqlalchemy", "uri", safe_pw, "engine = create_engine('snowflake://«user»:«v»@«l:7»-«l:7»/«proj»/PUBLIC?warehouse=COMPUTE_WH&role=SYSADMIN')")
K("u-redshift", "uri", safe_pw, "REDSHIFT_URL=redshift+psycopg2://«user»:«v»@«proj».«l:12».«region».redshift.amazonaws.com:5439/dev")
K("u-trino", "uri", safe_pw, "trino://«user»:«v»@trino.«proj».internal:443/hive/default")
K("u-symfony-mailer-dsn", "uri", safe_pw, ["MAILER_DSN=smtp://«user»:«v»@smtp.mailtrap.io:2525", "EMAIL_URL=smtp+tls://noreply%40«proj».io:«v»@smtp.office365.com:587"])
K("u-s3-creds-in-url", "uri", G((ALNUM, 40)), "s3://AKIA«U:16»:«v»@«proj»-exports/daily/")
K("u-socks5-proxy", "uri", safe_pw, ["ALL_PROXY=socks5h://«user»:«v»@proxy.«proj».net:1080", "curl -x socks5://«user»:«v»@«ip»:1080 https://ifconfig.me"])
K("u-vnc-password", "uri", safe_pw, "open vnc://:«v»@«ip»:5900")
K("u-sip-account", "uri", safe_pw, "sip:«d:4»:«v»@pbx.«proj».io;transport=tls")
K("u-irc-nickserv", "uri", safe_pw, "irc://«name»:«v»@irc.libera.chat:6697/#«proj»")
K("u-mongodb-replicaset", "uri", uri_pw,
  _uri_enc("mongodb://«user»:«v»@mongo-0.«proj».svc:27017,mongo-1.«proj».svc:27017/«proj»?replicaSet=rs0&authSource=admin"))
K("u-redis-sentinel", "uri", safe_pw, "redis+sentinel://:«v»@sentinel-0:26379,sentinel-1:26379/mymaster/0")
K("u-amqps-cloudamqp", "uri", M(B64URL, 32), "CLOUDAMQP_URL=amqps://«l:8»:«v»@goose.rmq2.cloudamqp.com/«l:8»")
K("u-libsql-authtoken", "uri", jwt_token(lambda rng: {"a": "rw", "gid": uuid4(rng)}, "EdDSA"), "DATABASE_URL=libsql://«proj»-«name».turso.io?authToken=«v»")
K("u-prisma-accelerate", "uri", jwt_token(lambda rng: {"api_key": uuid4(rng), "tenant_id": rs(rng, HEX, 64), "internal_secret": uuid4(rng)}),
  "DATABASE_URL=\"prisma://accelerate.prisma-data.net/?api_key=«v»\"")
K("u-wss-token-query", "uri", M(ALNUM, 40), "const ws = new WebSocket(`wss://stream.«proj».io/v1/feed?token=«v»`);")
K("u-airflow-conn", "uri", uri_pw, _uri_enc("AIRFLOW_CONN_WAREHOUSE='postgres://«user»:«v»@«host»:5432/«proj»?sslmode=require'"))
K("u-requirements-git-token", "uri", G("ghp_", (ALNUM, 36)), "git+https://«v»@github.com/«proj»/internal-sdk.git@v2.3.1#egg=internal-sdk")
K("u-goproxy-creds", "uri", safe_pw, "GOPROXY=https://«user»:«v»@athens.«proj».io,direct")
K("u-gem-source-creds", "uri", G((HEX, 8), ":", (HEX, 8)), "gem sources --add https://«v»@gems.contribsys.com/", "BUNDLE_GEMS__CONTRIBSYS__COM=«v»")
K("u-opensearch", "uri", safe_pw, "OPENSEARCH_URL=https://admin:«v»@search-«proj»-«l:26».«region».es.amazonaws.com")
K("u-sqlserver-go", "uri", uri_pw, _uri_enc("dsn := \"sqlserver://sa:«v»@«host»:1433?database=«proj»&encrypt=disable\""))
K("u-trojan", "uri", safe_pw, "trojan://«v»@«proj».example.net:443?security=tls&type=tcp#hk-node")
K("u-rtmp-stream-key", "uri", G("live_", (DIGITS, 9), "_", (ALNUM, 30)),
  "ffmpeg -re -i talk.mp4 -c copy -f flv rtmp://live.twitch.tv/app/«v»")
K("u-youtube-stream-key", "uri", lambda rng: "-".join(rs(rng, LALNUM, 4) for _ in range(5)),
  "Stream URL: rtmp://a.rtmp.youtube.com/live2\nStream key: «v»")
K("u-otpauth", "uri", base32_seed,
  "otpauth://totp/«proj»:«email»?secret=«v»&issuer=«proj»&algorithm=SHA1&digits=6&period=30")
K("u-ftps-curl", "uri", uri_pw, _uri_enc("curl --ssl-reqd 'ftp://«user»:«v»@ftp.«proj».io/outbound/' -l"))

# ============================================================================================
# keys: private key material, wallets, signing and encryption keys
# ============================================================================================


def _pem(label: str, lead: str, body_len: int, headers: str = "", pre: str = ""):
    def make(rng: random.Random) -> str:
        body = lead + rs(rng, B64, body_len)
        body = body[: len(body) // 4 * 4]
        return f"{pre}-----BEGIN {label}-----\n{headers}{wrap(body, 64)}\n-----END {label}-----"

    return make


def _legacy_encrypted_rsa(rng: random.Random) -> str:
    headers = f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{rs(rng, HEXU, 32)}\n\n"
    return _pem("RSA PRIVATE KEY", "", 1600, headers)(rng)


def _ec_with_params(rng: random.Random) -> str:
    return ("-----BEGIN EC PARAMETERS-----\nBgUrgQQAIg==\n-----END EC PARAMETERS-----\n"
            + _pem("EC PRIVATE KEY", "MIGkAgEBBDA", 190)(rng))


def _tor_key(rng: random.Random) -> str:
    return "ED25519-V3:" + b64_of(rbytes(rng, 64))


def _solana_keypair(rng: random.Random) -> str:
    return "[" + ",".join(str(rng.randrange(256)) for _ in range(64)) + "]"


def _tink_keyset(rng: random.Random, v: str) -> str:
    return json.dumps({"primaryKeyId": rng.randrange(10**8, 10**9), "key": [{"keyData": {
        "typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmKey", "value": v, "keyMaterialType": "SYMMETRIC"},
        "status": "ENABLED", "keyId": rng.randrange(10**8, 10**9), "outputPrefixType": "TINK"}]}, indent=2)


def _k8s_tls_key(rng: random.Random, v: str):
    enc = b64(v + "\n")
    return (f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: {rng.choice(_APPS)}-tls\ndata:\n"
            f"  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t{rs(rng, B64, 60)}\n  tls.key: {enc}"), [(enc, B64W)]


K("y-apple-p8-authkey", "keys", _pem("PRIVATE KEY", "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg", 150),
  "$ cat AuthKey_«U:10».p8\n«v»", "APP_STORE_CONNECT_KEY_ID=«U:10»\nAPP_STORE_CONNECT_PRIVATE_KEY=\"«v»\"", se=True)
K("y-ed25519-pkcs8", "keys", lambda rng: f"-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI{rs(rng, B64, 43)}\n-----END PRIVATE KEY-----",
  "«v»", "signing_key = load_pem_private_key(b\"\"\"«v»\"\"\", password=None)", se=True)
K("y-rsa-legacy-encrypted", "keys", _legacy_encrypted_rsa,
  "the key is encrypted, passphrase is in 1password:\n«v»", se=True)
K("y-ec-secp384-with-params", "keys", _ec_with_params, "$ openssl ecparam -name secp384r1 -genkey\n«v»", se=True)
K("y-ssh-host-key", "keys", lambda rng: "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrap("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAaAAAABNlY2RzYS1zaGEyLW5pc3RwMjU2AAAACG5pc3RwMjU2AAAAQQ" + rs(rng, B64, 420) + "=", 70) + "\n-----END OPENSSH PRIVATE KEY-----",
  "sudo cat /etc/ssh/ssh_host_ecdsa_key\n«v»", se=True)
K("y-terraform-heredoc-key", "keys", _pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 1560),
  "resource \"github_repository_deploy_key\" \"deploy\" {\n  title = \"ci\"\n}\n\nlocals {\n  deploy_private_key = <<-EOT\n«v»\n  EOT\n}", se=True)
K("y-jks-base64", "keys", lambda rng: "/u3+7QAAAAIAAAAB" + rs(rng, B64, 1200) + "==",
  "gh secret set ANDROID_KEYSTORE_BASE64 < <(base64 -w0 release.jks)\n# value: «v»", "ANDROID_KEYSTORE_B64: «v»")
K("y-k8s-tls-key", "keys", _pem("PRIVATE KEY", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC", 1560), _k8s_tls_key)
K("y-tor-onion-key", "keys", _tor_key, "HiddenServiceDir /var/lib/tor/«proj»/\n# hs_ed25519_secret_key (converted): «v»", "ADD_ONION «v» Port=80,127.0.0.1:8080", se=True)
K("y-minisign-secret", "keys", lambda rng: "RWRTY0Iy" + rs(rng, B64, 204) + "==",
  "untrusted comment: minisign encrypted secret key\n«v»")
K("y-signify-secret", "keys", lambda rng: "RWRCSwAAAA" + rs(rng, B64, 140),
  "untrusted comment: signify secret key\n«v»", se=True)
K("y-nostr-nsec", "keys", G("nsec1", (BECH, 58)), "NOSTR_PRIVATE_KEY=«v»", "my nostr nsec is «v», can you sign this event with nostr-tools?", se=True)
K("y-solana-keypair", "keys", _solana_keypair, "$ cat ~/.config/solana/id.json\n«v»", "DEPLOYER_KEYPAIR='«v»'")
K("y-bitcoin-wif", "keys", lambda rng: "5" + rng.choice("HJK") + rs(rng, B58, 49),
  "importprivkey «v» \"cold-wallet\" false", "WIF: «v»")
K("y-bip32-xprv", "keys", G("xprv9s21ZrQH143K", (B58, 95)), "XPRV=«v»", "master extended private key: «v»", se=True)
K("y-tink-keyset", "keys", lambda rng: "GiA" + rs(rng, B64, 41) + "=", _tink_keyset)
K("y-fernet-in-code", "keys", lambda rng: b64_of(rbytes(rng, 32), url=True),
  "from cryptography.fernet import Fernet\nf = Fernet(b\"«v»\")")
K("y-xray-reality-private", "keys", lambda rng: b64_of(rbytes(rng, 32), url=True, pad=False),
  "\"realitySettings\": {\n  \"dest\": \"www.microsoft.com:443\",\n  \"privateKey\": \"«v»\",\n  \"shortIds\": [\"«hex:8»\"]\n}")
K("y-dkim-private", "keys", _pem("RSA PRIVATE KEY", "MIICXAIBAAKBgQ", 800),
  "$ sudo cat /etc/opendkim/keys/«proj».io/mail.private\n«v»", se=True)
K("y-django-secret-key", "keys", lambda rng: rs(rng, LOWER + DIGITS + "!@#$%^&*(-_=+)", 50),
  "SECRET_KEY = '«v»'\nDEBUG = False\nALLOWED_HOSTS = ['«proj».io']")
K("y-nextauth-secret", "keys", lambda rng: b64_of(rbytes(rng, 32)),
  "NEXTAUTH_URL=https://«proj».io\nNEXTAUTH_SECRET=«v»", "AUTH_SECRET=\"«v»\" # Added by `npx auth`. Read more: https://cli.authjs.dev")
K("y-openssl-rand-as-secret", "keys", lambda rng: b64_of(rbytes(rng, 32)),
  "$ openssl rand -base64 32\n«v»\nok I'll use that as the webhook secret")
K("y-vault-unseal-output", "keys", lambda rng: b64_of(rbytes(rng, 33)),
  "Unseal Key 1: «v»\nUnseal Key 2: «b64:44»\nUnseal Key 3: «b64:44»\n\nInitial Root Token: hvs.«a:24»\n\nVault initialized with 5 key shares and a key threshold of 3.")
K("y-ansible-vault-password-file", "keys", phrase,
  "echo '«v»' > ~/.vault_pass.txt && ansible-playbook site.yml --vault-password-file ~/.vault_pass.txt")
K("y-luks-passphrase", "keys", phrase,
  "echo -n '«v»' | cryptsetup luksOpen /dev/nvme0n1p3 cryptroot -", "the LUKS passphrase for the backup disk: «v»")
K("y-bitlocker-recovery", "keys", lambda rng: "-".join(rs(rng, DIGITS, 6) for _ in range(8)),
  "BitLocker recovery key for LAPTOP-«U:7»: «v»", "Recovery Key ID: «HEX:8»\nRecovery Key: «v»")

# ============================================================================================
# logs: first-start banners, command output, stack traces, captures
# ============================================================================================

K("g-jenkins-initial-admin", "logs", hexkey(32),
  "*************************************************************\n\nJenkins initial setup is required. An admin user has been created and a password generated.\nPlease use the following password to proceed to installation:\n\n«v»\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword\n\n*************************************************************",
  "$ docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword\n«v»")
K("g-mysql-temporary-password", "logs", lambda rng: mixed(rng, ALNUM + "#;:<>,.!%&_-", 12),
  "«date»T«time».«d:6»Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: «v»")
K("g-elastic-first-start", "logs", lambda rng: mixed(rng, ALNUM + "*=_-+", 20),
  "✅ Elasticsearch security features have been automatically configured!\n✅ Authentication is enabled and cluster connections are encrypted.\n\nℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  «v»\n\nℹ️  HTTP CA certificate SHA-256 fingerprint:\n  «hex:64»")
K("g-elastic-enrollment-token", "logs", lambda rng: b64(json.dumps({"ver": "8.14.0", "adr": [f"172.18.0.{rng.randrange(2, 9)}:9200"], "fgr": rs(rng, HEX, 64), "key": rs(rng, B64URL, 20) + ":" + rs(rng, B64URL, 22)}, separators=(",", ":"))),
  "ℹ️  Configure Kibana to use this cluster:\n• Copy the following enrollment token and paste it into Kibana in your browser (valid for the next 30 minutes):\n  «v»")
K("g-gitlab-initial-root", "logs", lambda rng: b64_of(rbytes(rng, 32)),
  "$ sudo cat /etc/gitlab/initial_root_password\n# WARNING: This value is valid only in the following conditions\n#          1. If provided manually (either via `GITLAB_ROOT_PASSWORD` environment variable or via `gitlab_rails['initial_root_password']` setting in `gitlab.rb`, it was provided before database was seeded for the first time (usually, the first reconfigure run).\n\nPassword: «v»\n\n# NOTE: This file will be automatically deleted in the first reconfigure run after 24 hours.")
K("g-jupyter-token-url", "logs", hexkey(48),
  "    To access the server, open this file in a browser:\n        file:///home/dev/.local/share/jupyter/runtime/jpserver-«d:5»-open.html\n    Or copy and paste one of these URLs:\n        http://localhost:8888/lab?token=«v»\n        http://127.0.0.1:8888/lab?token=«v»")
K("g-code-server-config", "logs", lambda rng: rs(rng, LALNUM, 24),
  "$ cat ~/.config/code-server/config.yaml\nbind-addr: 127.0.0.1:8080\nauth: password\npassword: «v»\ncert: false")
K("g-minio-startup", "logs", safe_pw,
  "MinIO Object Storage Server\nAPI: http://172.17.0.2:9000  http://127.0.0.1:9000\n   RootUser: admin\n   RootPass: «v»\nConsole: http://172.17.0.2:9001")
K("g-rancher-bootstrap", "logs", lambda rng: rs(rng, LALNUM, 48),
  "$ docker logs rancher 2>&1 | grep \"Bootstrap Password:\"\n«date» «time» [INFO] Bootstrap Password: «v»")
K("g-argocd-initial-password", "logs", M(B64URL, 16),
  "$ argocd admin initial-password -n argocd\n«v»\n\n This password must be only used for first time login. We strongly recommend you update the password using `argocd account update-password`.")
K("g-az-sp-create-output", "logs", lambda rng: rs(rng, ALNUM, 3) + "8Q~" + rs(rng, ALNUM + "~._-", 34),
  "$ az ad sp create-for-rbac --name «proj»-ci --role contributor --scopes /subscriptions/«uuid»\n{\n  \"appId\": \"«uuid»\",\n  \"displayName\": \"«proj»-ci\",\n  \"password\": \"«v»\",\n  \"tenant\": \"«uuid»\"\n}")
K("g-aws-create-access-key", "logs", G((B64, 40)),
  "$ aws iam create-access-key --user-name «proj»-ci\n{\n    \"AccessKey\": {\n        \"UserName\": \"«proj»-ci\",\n        \"AccessKeyId\": \"AKIA«U:16»\",\n        \"Status\": \"Active\",\n        \"SecretAccessKey\": \"«v»\",\n        \"CreateDate\": \"«date»T«time»+00:00\"\n    }\n}")
K("g-aws-assume-role-output", "logs", G((B64, 40)),
  "{\n    \"Credentials\": {\n        \"AccessKeyId\": \"ASIA«U:16»\",\n        \"SecretAccessKey\": \"«v»\",\n        \"SessionToken\": \"IQoJb3JpZ2luX2VjE«a:200»\",\n        \"Expiration\": \"«date»T«time»+00:00\"\n    }\n}")
K("g-npm-token-create", "logs", G("npm_", (ALNUM, 36)),
  "$ npm token create --read-only\n┌────────────────┬──────────────────────────────────────────┐\n│ token          │ «v» │\n├────────────────┼──────────────────────────────────────────┤\n│ readonly       │ true                                     │\n└────────────────┴──────────────────────────────────────────┘")
K("g-pytest-showlocals", "logs", safe_pw,
  "    def connect(self):\n>       return psycopg.connect(host=self.host, user=self.user, password=self.password)\nE       psycopg.OperationalError: connection failed: FATAL:  password authentication failed for user \"«user»\"\n\nself       = <app.db.Database object at 0x7f3a2c1d9e50>\nself.password = '«v»'\n\napp/db.py:42: OperationalError")
K("g-python-traceback-locals", "logs", M(ALNUM, 40),
  "Traceback (most recent call last):\n  File \"/srv/«proj»/sync.py\", line 88, in push\n    resp.raise_for_status()\nrequests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.«proj».io/v2/push?key=«v»")
K("g-java-exception-url", "logs", safe_pw,
  "org.postgresql.util.PSQLException: FATAL: password authentication failed for user \"«user»\"\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)\nCaused by: configured datasource url=jdbc:postgresql://«host»:5432/«proj» user=«user» password=«v»")
K("g-rails-params-unfiltered", "logs", pw,
  "Started POST \"/users/sign_in\" for «ip» at «date» «time» +0000\nProcessing by Users::SessionsController#create as HTML\n  Parameters: {\"authenticity_token\"=>\"[FILTERED]\", \"user\"=>{\"email\"=>\"«email»\", \"password\"=>\"«v»\"}, \"commit\"=>\"Log in\"}")
K("g-nginx-access-token-query", "logs", M(ALNUM, 40),
  "«ip» - - [«d:2»/Mar/2026:«time» +0000] \"GET /api/export?access_token=«v»&fmt=csv HTTP/1.1\" 200 48213 \"-\" \"python-requests/2.32.3\"")
K("g-strace-write", "logs", safe_pw,
  "write(3, \"POST /login HTTP/1.1\\r\\nHost: «host»\\r\\nContent-Type: application/x-www-form-urlencoded\\r\\n\\r\\nuser=«user»&pass=«v»\", 142) = 142")
K("g-redis-monitor-auth", "logs", safe_pw,
  "1767225600.«d:6» [0 «ip»:«d:5»] \"AUTH\" \"«user»\" \"«v»\"\n1767225600.«d:6» [0 «ip»:«d:5»] \"PING\"")
K("g-postgres-log-statement", "logs", pw,
  "«date» «time».«d:3» UTC [«d:5»] postgres@«proj» LOG:  statement: CREATE ROLE «user» LOGIN PASSWORD '«v»';")
K("g-gha-unmasked-step", "logs", M(ALNUM, 40),
  "2026-02-14T10:21:33.1234567Z ##[group]Run ./scripts/release.sh\n2026-02-14T10:21:33.1235012Z + export RELEASE_TOKEN=«v»\n2026-02-14T10:21:33.1241118Z ##[endgroup]")
K("g-ansible-vvv-args", "logs", safe_pw,
  "changed: [«ip»] => {\"changed\": true, \"invocation\": {\"module_args\": {\"name\": \"«user»\", \"password\": \"«v»\", \"state\": \"present\"}}}")
K("g-docker-compose-config", "logs", safe_pw,
  "$ docker compose config\nservices:\n  db:\n    environment:\n      POSTGRES_DB: «proj»\n      POSTGRES_PASSWORD: «v»\n    image: postgres:16")
K("g-terraform-plan-password", "logs", pw,
  "  # aws_db_instance.main will be created\n  + resource \"aws_db_instance\" \"main\" {\n      + engine            = \"postgres\"\n      + password          = \"«v»\"\n      + username          = \"«user»\"\n    }")
K("g-netsh-wlan-key-clear", "logs", pw,
  "Security settings\n-----------------\n    Authentication         : WPA2-Personal\n    Cipher                 : CCMP\n    Security key           : Present\n    Key Content            : «v»")
K("g-kubectl-describe-env", "logs", safe_pw,
  "    Environment:\n      SPRING_PROFILES_ACTIVE:  prod\n      SPRING_DATASOURCE_PASSWORD:  «v»\n      JAVA_OPTS:               -Xmx512m")
K("g-helm-get-values", "logs", safe_pw,
  "$ helm get values «proj» -n prod\nUSER-SUPPLIED VALUES:\nauth:\n  postgresPassword: «v»\n  username: «user»")
K("g-tcpdump-ftp-pass", "logs", safe_pw,
  "14:02:11.«d:6» IP «ip».«d:5» > «ip».21: Flags [P.], length 16: FTP: USER «user»\n14:02:11.«d:6» IP «ip».«d:5» > «ip».21: Flags [P.], length 22: FTP: PASS «v»")
K("g-aws-get-secret-value", "logs", safe_pw,
  "$ aws secretsmanager get-secret-value --secret-id prod/«proj»/db --query SecretString --output text\n{\"username\":\"«user»\",\"password\":\"«v»\",\"host\":\"«host»\"}")
K("g-op-read-output", "logs", pw,
  "$ op read \"op://Private/«proj» staging/password\"\n«v»", "$ pass show work/«proj»/db\n«v»", "$ security find-generic-password -s «proj»-deploy -w\n«v»")
K("g-kubectl-base64d", "logs", safe_pw,
  "$ kubectl get secret «proj»-db -o json | jq -r '.data.password | @base64d'\n«v»")
K("g-app-startup-config-dump", "logs", M(ALNUM, 40),
  "INFO  «date» «time» config loaded: {env=prod, port=8080, payments.base=https://api.«proj».io, payments.secret=«v», retries=3}")
K("g-syslog-app-dsn", "logs", safe_pw,
  "Mar «d:2» «time» web01 «proj»[«d:4»]: connecting to amqp://«user»:«v»@mq.internal:5672/ (attempt 3)")
K("g-har-like-log", "logs", M(ALNUM, 40),
  "DEBUG urllib3.connectionpool: https://api.«proj».io:443 \"GET /v1/accounts?api_key=«v» HTTP/1.1\" 200 None")
K("g-winrm-debug", "logs", pw,
  "DEBUG:pypsrp: WinRM connection to «ip» with auth=ntlm username=CORP\\«user» password=«v»")

# ============================================================================================
# http: requests, exports of API clients, cookies
# ============================================================================================

K("h-raw-request-bearer", "http", M(B64URL, 48),
  "POST /v2/orders HTTP/1.1\r\nHost: api.«proj».io\r\nAuthorization: Bearer «v»\r\nContent-Type: application/json\r\nContent-Length: 87\r\n\r\n{\"sku\":\"«U:8»\",\"qty\":1}")
K("h-httpie-basic", "http", safe_pw,
  "http -a «user»:«v» GET https://«proj».io/api/v1/status", "https --auth-type=bearer --auth=«v» :8443/me")
K("h-postman-collection", "http", M(ALNUM, 40),
  lambda rng, v: json.dumps({"info": {"name": f"{rng.choice(_APPS)} API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
                             "auth": {"type": "bearer", "bearer": [{"key": "token", "value": v, "type": "string"}]}}, indent=2))
K("h-postman-environment", "http", pw,
  lambda rng, v: json.dumps({"name": "staging", "values": [{"key": "baseUrl", "value": "https://staging.example.com", "enabled": True},
                                                            {"key": "adminPassword", "value": v, "type": "secret", "enabled": True}]}, indent=2))
K("h-insomnia-export", "http", M(ALNUM, 40),
  "_type: request\nname: List invoices\nmethod: GET\nurl: https://api.«proj».io/invoices\nheaders:\n  - name: X-Api-Key\n    value: «v»")
K("h-rest-client-http-file", "http", M(ALNUM, 40),
  "@baseUrl = https://api.«proj».io\n@token = «v»\n\n### list users\nGET {{baseUrl}}/users\nAuthorization: Bearer {{token}}")
K("h-jetbrains-private-env", "http", pw,
  "{\n  \"dev\": {\n    \"username\": \"«user»\",\n    \"password\": \"«v»\"\n  }\n}")
K("h-bruno-bru", "http", M(ALNUM, 40),
  "meta {\n  name: get-profile\n  type: http\n}\n\nget {\n  url: https://api.«proj».io/me\n  auth: bearer\n}\n\nauth:bearer {\n  token: «v»\n}")
K("h-har-entry", "http", M(B64URL, 40),
  lambda rng, v: json.dumps({"request": {"method": "GET", "url": f"https://app.{rng.choice(_APPS)}.io/api/me", "headers": [
      {"name": "accept", "value": "application/json"}, {"name": "authorization", "value": f"Bearer {v}"}]}}, indent=2))
K("h-copy-as-fetch", "http", M(ALNUM, 40),
  "fetch(\"https://app.«proj».io/api/graphql\", {\n  \"headers\": {\n    \"accept\": \"*/*\",\n    \"x-csrf-token\": \"«a:32»\",\n    \"x-session-token\": \"«v»\"\n  },\n  \"body\": \"{\\\"query\\\":\\\"{ me { id } }\\\"}\",\n  \"method\": \"POST\"\n});")
K("h-copy-as-curl-cookie", "http", lambda rng: rs(rng, LALNUM, 32),
  "curl 'https://admin.«proj».io/dashboard' \\\n  -H 'accept: text/html' \\\n  -b 'csrftoken=«a:32»; sessionid=«v»' \\\n  --compressed")
K("h-invoke-restmethod", "http", M(ALNUM, 40),
  "Invoke-RestMethod -Uri https://api.«proj».io/v1/jobs -Headers @{ Authorization = \"Bearer «v»\" } -Method Get")
K("h-wget-header", "http", M(ALNUM, 40),
  "wget --header=\"X-Auth-Key: «v»\" https://files.«proj».io/dump.tar.gz")
K("h-grpcurl-metadata", "http", M(B64URL, 40),
  "grpcurl -H 'authorization: Bearer «v»' -d '{\"id\": 42}' api.«proj».io:443 orders.v1.Orders/Get")
K("h-oauth-token-response", "http", M(B64URL, 64),
  "HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\"access_token\":\"«a:40»\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"refresh_token\":\"«v»\",\"scope\":\"read write\"}")
K("h-set-cookie-remember", "http", M(B64URL, 40),
  "HTTP/2 302\nlocation: /home\nset-cookie: remember_user_token=«v»; path=/; expires=«date»; secure; HttpOnly")
K("h-phpsessid", "http", lambda rng: rs(rng, LALNUM, 26),
  "Cookie: PHPSESSID=«v»; lang=en", "curl -b 'PHPSESSID=«v»' https://intranet.«proj».io/admin/users.php")
K("h-jsessionid", "http", lambda rng: rs(rng, HEXU, 32),
  "Cookie: JSESSIONID=«v»; Path=/app", "GET /portal/home;jsessionid=«v» HTTP/1.1")
K("h-aspnetcore-cookie", "http", lambda rng: "CfDJ8" + rs(rng, B64URL, 300),
  "Cookie: .AspNetCore.Identity.Application=«v»")
K("h-laravel-session", "http", lambda rng: b64(json.dumps({"iv": b64_of(rbytes(rng, 16)), "value": b64_of(rbytes(rng, 96)), "mac": rs(rng, HEX, 64), "tag": ""}, separators=(",", ":"))),
  "Cookie: XSRF-TOKEN=«a:40»; laravel_session=«v»")
K("h-wordpress-logged-in", "http", lambda rng: f"admin%7C{rng.randrange(1767225600, 1769817600)}%7C{rs(rng, ALNUM, 43)}%7C{rs(rng, HEX, 64)}",
  "Cookie: wordpress_logged_in_«hex:32»=«v»; wp-settings-1=libraryContent%3Dbrowse")
K("h-connect-sid", "http", lambda rng: "s%3A" + rs(rng, B64URL, 32) + "." + rs(rng, B64URL, 43),
  "cookie: connect.sid=«v»")
K("h-proxy-authorization", "http", safe_pw,
  lambda rng, v: (lambda t: (f"CONNECT api.openai.com:443 HTTP/1.1\r\nHost: api.openai.com:443\r\nProxy-Authorization: Basic {t}\r\n\r\n", [(t, B64W)]))(b64(f"{username(rng)}:{v}")))
K("h-form-login-raw", "http", uri_pw,
  lambda rng, v: (f"POST /login HTTP/1.1\nHost: {rng.choice(_APPS)}.example.com\nContent-Type: application/x-www-form-urlencoded\n\nusername={username(rng)}&password={pct(v)}&remember=1",
                  [(pct(v), pct_window(v))]))
K("h-graphql-login-variables", "http", pw,
  lambda rng, v: json.dumps({"operationName": "Login", "variables": {"email": f"{rng.choice(_NAMES)}@example.com", "password": v},
                             "query": "mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { token } }"}))
K("h-amz-security-token", "http", G("IQoJb3JpZ2luX2Vj", (B64, 300)),
  "x-amz-date: 20260214T102133Z\nx-amz-security-token: «v»\nauthorization: AWS4-HMAC-SHA256 Credential=ASIA«U:16»/20260214/«region»/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=«hex:64»", se=True)
K("h-rails-token-scheme", "http", M(ALNUM, 32),
  "curl -H 'Authorization: Token token=\"«v»\", email=\"«email»\"' https://«proj».io/api/v1/tickets")
K("h-jmeter-jmx", "http", pw,
  "<elementProp name=\"password\" elementType=\"HTTPArgument\">\n  <boolProp name=\"HTTPArgument.always_encode\">true</boolProp>\n  <stringProp name=\"Argument.value\">«v»</stringProp>\n  <stringProp name=\"Argument.name\">password</stringProp>\n</elementProp>")
K("h-k6-script", "http", M(ALNUM, 40),
  "export default function () {\n  const params = { headers: { 'X-API-KEY': '«v»' } };\n  http.get('https://api.«proj».io/v1/health', params);\n}")
K("h-api-key-in-json-body", "http", M(ALNUM, 40),
  "curl -X POST https://api.«proj».io/v1/sms -H 'Content-Type: application/json' -d '{\"api_key\": \"«v»\", \"to\": \"+4915«d:9»\", \"text\": \"hi\"}'")

OUTSIDER3_KINDS: list[Kind] = KINDS
check_unique_names(OUTSIDER3_KINDS)

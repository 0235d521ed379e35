"""Credentials as people write them, and the ordinary text beside them that must be kept.

Each case names the general rule it exercises (a password word and its copula, a name made of a
command, a service's name, a call's arguments); the kept cases are the text those rules must not
touch. Values are made up here, not taken from the held-out corpora.
"""

from __future__ import annotations

import base64

import pytest

from moraine.redaction.redact import redact, redact_name, redact_path

# PowerShell's -EncodedCommand: base64 of UTF-16LE
_POWERSHELL = base64.b64encode("$p = ConvertTo-SecureString 'Kq8vLm2Zx7Rt' -AsPlainText -Force"
                               .encode("utf-16-le")).decode()
SECRET_IN_TEXT = {
    "prose-copula": ("the staging password is quartz-7k2m-river", "quartz-7k2m-river"),
    "prose-colon": ("pw: Autumn2031!", "Autumn2031!"),
    "prose-after-words": ("the passphrase for the old backup disk is: Hx7qLp2mWv9Tz4", "Hx7qLp2mWv9Tz4"),
    "prose-changed-to": ("I changed the password for admin to Plum-88-orchard", "Plum-88-orchard"),
    "prose-login-with": ("log in as root with ember-2x9q-lantern", "ember-2x9q-lantern"),
    "prose-before": ("K8vq2Lm.Xr4T is the admin password", "K8vq2Lm.Xr4T"),
    "prose-wifi": ("guest wifi: CafeNet / Wq8#zLm2Vr", "Wq8#zLm2Vr"),
    "german": ("Das Passwort lautet Sommer!2031xy", "Sommer!2031xy"),
    "spanish": ("la contraseña es Lluvia-42-verde", "Lluvia-42-verde"),
    "french": ("le mot de passe est Pluie#88vert", "Pluie#88vert"),
    "russian": ("пароль: Zima2031stol", "Zima2031stol"),
    "japanese-full-width": ("パスワード：Ｋａｇｉ２０３１ｙａｍａ", "Ｋａｇｉ２０３１ｙａｍａ"),
    "chinese": ("密码是 Xiao2031men", "Xiao2031men"),
    "service-before": ("use a81c07f2e55d4b0c9d2e3f4a5b6c7d8e for datadog until Monday",
                       "a81c07f2e55d4b0c9d2e3f4a5b6c7d8e"),
    "service-uuid": ("use 0c4e9f1a-7b2d-4e8f-9a3c-5d6e7f8a9b0c for heroku today",
                     "0c4e9f1a-7b2d-4e8f-9a3c-5d6e7f8a9b0c"),
    "login-with-symbols": ("log in as admin with =z+Dn5Pb(Oq5sN9Dy# and then reset it", "z+Dn5Pb(Oq5sN9Dy#"),
    "auth-tuple-escaped": ('auth=(\\"jenkins\\", \\"Thistle_76cOfd2walnut\\"))', "Thistle_76cOfd2walnut"),
    "service-key-joined": ("here is the clickup key you wanted: pk_77_QW8ERTY2UIOP4ASDF", "pk_77_QW8ERTY2UIOP4ASDF"),
    "requests-auth": ('requests.get(u, auth=("svc", "tern-55-meadow"))', "tern-55-meadow"),
    "php-define": ("define('DB_PASSWORD', 'cobalt-81-harbor');", "cobalt-81-harbor"),
    "environ-subscript": ('os.environ["API_TOKEN"] = "Zq8mVx2LpR7t"', "Zq8mVx2LpR7t"),
    "ansible-pass": ("ansible_become_pass: v7Qm+Lx2*Rt", "v7Qm+Lx2*Rt"),
    "django-key": ("SECRET_KEY = 'q9(x!v2m^k7&p3z*w8r#t1y@u6e$o4i%l0a'", "q9(x!v2m^k7&p3z*w8r#t1y@u6e$o4i%l0a"),
    "env-with-ampersand": ("DB_PASS=Rain&77cloudStone", "Rain&77cloudStone"),
    # copulas and inflected password words of more languages; a chosen dotted password
    "czech-je": ("heslo k serveru je Jablko#2031kv", "Jablko#2031kv"),
    "swedish-inflected": ("lösenordet för wifi är Stuga-44-skog", "Stuga-44-skog"),
    "turkish-suffix": ("sunucu şifresi: Deniz!2031ak", "Deniz!2031ak"),
    "polish-to": ("hasło do poczty to Rzeka.Kamien882", "Rzeka.Kamien882"),
    "vietnamese-la": ("mật khẩu wifi là Hoa-sen-2031x", "Hoa-sen-2031x"),
    "indonesian": ("kata sandi server adalah Pohon#2031ab", "Pohon#2031ab"),
    "hinglish-hai": ("server ka password hai Chai@2031pk", "Chai@2031pk"),
    "greek-script": ("ο κωδικός του wifi είναι Thalassa%2031", "Thalassa%2031"),
    "korean-short": ("서버 비번: Bada-2031-gil", "Bada-2031-gil"),
    "russian-dotted": ("логин deploy, пароль birch.Falcon771", "birch.Falcon771"),
    # command lines: a user then a password flag; Windows; stdin; positional secrets
    "cli-user-then-p": ("influx -host db1 -username ops -password Kq8vLm2Zx7Rt", "Kq8vLm2Zx7Rt"),
    "cli-u-p": ("cqlsh db2 9042 -u ops -p Wv7Lq2Zm8Kx", "Wv7Lq2Zm8Kx"),
    "net-use-share": (r"net use Y: \\nas\media Gr8vLq2Zm7 /user:HOME\kid", "Gr8vLq2Zm7"),
    "schtasks-rp": (r"schtasks /create /tn backup /ru CORP\svc /rp Tq9mLv2Zx8", "Tq9mLv2Zx8"),
    "printf-sudo": ("printf '%s\\n' 'Orchid77!zq' | sudo -S systemctl restart nginx", "Orchid77!zq"),
    "sudo-chpasswd": ("echo 'ops:Lantern#2031q' | sudo chpasswd", "Lantern#2031q"),
    "mc-alias": ("mc alias set nas https://s3.lan:9000 admin Xq8vLm2Zr7Tk4Wp9", "Xq8vLm2Zr7Tk4Wp9"),
    "powershell-encoded": ("powershell -EncodedCommand " + _POWERSHELL, _POWERSHELL[:40]),
    # code and configuration
    "pdo-last-two": ("$db = new PDO('pgsql:host=db;dbname=app', 'app', 'Pq8vLm2Zr7Tk', [PDO::ATTR_ERRMODE]);",
                     "Pq8vLm2Zr7Tk"),
    "ruby-basic-auth": ("req.basic_auth 'ops', 'Wm7qLv2Zx8Rt'", "Wm7qLv2Zx8Rt"),
    "sql-identified-with": ("CREATE USER 'r'@'%' IDENTIFIED WITH caching_sha2_password BY 'Tz8qLm2Vx7Rk';",
                            "Tz8qLm2Vx7Rk"),
    "xml-password-element": ("<server><id>nexus</id><password>Kv8qLm2Zx7Rt.W</password></server>", "Kv8qLm2Zx7Rt.W"),
    "config-line-no-equals": ("bridge_password Lq8vKm2Zx7Rt", "Lq8vKm2Zx7Rt"),
    "wp-salt-angles": ("define('NONCE_SALT', 'r<8K;q>2Zm|x7(Lv)T@p9W]w');", "r<8K;q>2Zm|x7(Lv)T@p9W]w"),
    "base64-path-like": ("client_secret = /Xq8vLm2Zr7Tk4Wp9+Yb3Nc6Hd1Jf5Gs=", "/Xq8vLm2Zr7Tk4Wp9+Yb3Nc6Hd1Jf5Gs="),
    "decoded-literal": ('API_SECRET = atob("S3E4dkxtMlpyN1RrNFdwOVliM05j")', "S3E4dkxtMlpyN1RrNFdwOVliM05j"),
    "sdk-client": ('client = mistralai.Mistral("Kq8vLm2Zr7Tk4Wp9Yb3Nc6Hd")', "Kq8vLm2Zr7Tk4Wp9Yb3Nc6Hd"),
    "otp-seed-prose": ("the 2FA secret for the bot account: JBSWY3DPEHPK3PXPJBSWY3DP", "JBSWY3DPEHPK3PXPJBSWY3DP"),
    "pin-prose": ("the smart card PIN is 40718263", "40718263"),
    "camel-password-two-numbers": ("mysql -u root -pOtter8Harbor42 shop", "Otter8Harbor42"),
    "words-then-number-yaml": ("spring:\n  datasource:\n    password: MirrorRabbit451.", "MirrorRabbit451"),
    "words-then-number-env": ("- POSTGRES_PASSWORD=BeaconSketch170.", "BeaconSketch170"),
    "typo-label": ("PASWORD: Kq8vLm2Zx7Rt", "Kq8vLm2Zx7Rt"),
    "typo-secret": ("secert: Zq8mVx2LpR7tKw4NbY6c", "Zq8mVx2LpR7tKw4NbY6c"),
    "catalan": ("la contrasenya del wifi és Mar-blau-2031", "Mar-blau-2031"),
    "malay": ("kata laluan pelayan ialah Harimau#2031", "Harimau#2031"),
    "swahili": ("nenosiri la wifi ni Simba!2031zz", "Simba!2031zz"),
    "tagalog": ("yung password ng wifi ay Bahay#2031kk", "Bahay#2031kk"),
    "french-cest": ("le mdp du routeur c'est Bleu#2031vv", "Bleu#2031vv"),
    "hungarian": ("a jelszó a routerhez: Kecske#2031pp", "Kecske#2031pp"),
    "bengali": ("রাউটারের পাসওয়ার্ড হলো Nodi#2031kk", "Nodi#2031kk"),
    "serbian": ("лозинка за рутер: Reka#2031kk", "Reka#2031kk"),
    "french-key": ("voici la clé API du projet : Kq8vLm2Zr7Tk4Wp9Yb3Nc6Hd1Jf5Gs", "Kq8vLm2Zr7Tk4Wp9Yb3Nc6Hd1Jf5Gs"),
    "indonesian-key": ("ini kunci API-nya: Zq8mVx2LpR7tKw4NbY6cHd1Jf5Gs", "Zq8mVx2LpR7tKw4NbY6cHd1Jf5Gs"),
    "arabic-key": ("مفتاح API للإنتاج: Wv7Lq2Zm8KxTr4Np9Bc3Hd6Jf1Gs", "Wv7Lq2Zm8KxTr4Np9Bc3Hd6Jf1Gs"),
    "xfreerdp": ("xfreerdp /v:10.0.0.5 /u:admin /p:'Tq9mLv2Zx8Rk' /cert:ignore", "Tq9mLv2Zx8Rk"),
    "expect-send": ('expect "Password:"\nsend "Lq8vKm2Zx7Rt\\r"', "Lq8vKm2Zx7Rt"),
    "ssh-keygen-N": ("ssh-keygen -t ed25519 -N 'Wm7qLv2Zx8Rt' -f key", "Wm7qLv2Zx8Rt"),
    "redis-auth-prompt": ("127.0.0.1:6379> AUTH default Kv8qLm2Zx7RtW", "Kv8qLm2Zx7RtW"),
    "db2-using": ("db2 connect to SALES user ops using Pq8vLm2Zr7Tk", "Pq8vLm2Zr7Tk"),
    "unrar-p": ("unrar x -pGr8vLq2Zm7Tk backup.rar", "Gr8vLq2Zm7Tk"),
    "otp-spaced": ("MFA setup key for the admin account: JBSW Y3DP EHPK 3PXP KQ4M", "JBSW Y3DP EHPK 3PXP KQ4M"),
    "seed-phrase": ("recovery phrase of the hot wallet: maple orbit canyon velvet timber noble harvest zero "
                    "island pilot pepper crane", "maple orbit canyon velvet timber noble"),
    "recovery-codes": ("backup codes for the ops account:\n4kq2m-9zx7p\nb7c1d-2mn8q\nzz81k-p02la",
                       "4kq2m-9zx7p"),
    "fenced-token": ("api token:\n```\nWv7Lq2Zm8KxTr4Np9Bc3Hd6Jf1GsQ\n```", "Wv7Lq2Zm8KxTr4Np9Bc3Hd6Jf1GsQ"),
    "mysqladmin": ("mysqladmin -u root password Tq9LmX2vR8zK", "Tq9LmX2vR8zK"),
    "rabbitmqctl": ("rabbitmqctl add_user app Vq8Lm2XzR7tK", "Vq8Lm2XzR7tK"),
    "securestring": ('$p = ConvertTo-SecureString "Wm7Lq2XzR9tK" -AsPlainText -Force', "Wm7Lq2XzR9tK"),
    "aws-configure": ("aws configure set aws_secret_access_key Kq8Lm2XzR7tVw9Pn4Jc6", "Kq8Lm2XzR7tVw9Pn4Jc6"),
    "uri-slash": ("postgres://app:k?7/Xq2LmVr9@db.internal:5432/app", "k?7/Xq2LmVr9"),
    "hex-piped": ("echo 4b713851764c6d32587a52377456 | xxd -r -p", "4b713851764c6d32587a52377456"),
    "header-hex": ("curl -H 'X-Auth-Key: 3b8e1f0a9c7d2e4f6a5b8c9d0e1f2a3b4c5d6' https://api.example.net",
                   "3b8e1f0a9c7d2e4f6a5b8c9d0e1f2a3b4c5d6"),
    "json-escaped-paren": ('\\"password\\": \\"qL8m(Xz2^Vr\\"', "qL8m(Xz2^Vr"),
    "aws-pair-escaped": ("keys:\\nAKIA1234567890ABCDEF\\nQm8Lx2Vr7tKz9Pn4Jc6Wq1Ye5Ua3Io0Hs8Dg2Fb",
                         "Qm8Lx2Vr7tKz9Pn4Jc6Wq1Ye5Ua3Io0Hs8Dg2Fb"),
    "italian-copula": ("la password di root è Tq9vLm2zR7xK", "Tq9vLm2zR7xK"),
    "portuguese-copula": ("a senha do banco é golfinho-bilbao-1626", "golfinho-bilbao-1626"),
    "french-guillemets": ("le mot de passe est « vI4Cjq4aRXFVh0Zr »", "vI4Cjq4aRXFVh0Zr"),
    "word-year": ("la contraseña es Evergreen1972, cámbiala", "Evergreen1972"),
    "pass-label": ("office wifi is ACME-Guest, pass lighthouse-lyon-1032", "lighthouse-lyon-1032"),
    "next-line": ("Here's the DB password:\n\n*J!VpVeaASWbq8gMmGX\n\nDon't commit it.", "*J!VpVeaASWbq8gMmGX"),
    "secret-next-line": ("the signing secret for the webhooks is\nfheZHVoGX9hD92xUTTY0qKH0XkZf268rfRHaV1ez",
                         "fheZHVoGX9hD92xUTTY0qKH0XkZf268rfRHaV1ez"),
    "passphrase-words": ("The passphrase for the backup key is: cricket sunshine tortoise 730 iceberg",
                         "cricket sunshine tortoise 730 iceberg"),
    "use-to-log-in": ("use Madrid.Felix$27 to log in to the Grafana box", "Madrid.Felix$27"),
    "sql-identified-by": ("CREATE USER 'rep'@'%' IDENTIFIED BY '**5f)LQz*Rx!1A';", "**5f)LQz*Rx!1A"),
    "sql-with-password": ("CREATE ROLE app WITH LOGIN PASSWORD 'Tq9-river-22';", "Tq9-river-22"),
    "env-fallback": ("const s = process.env.JWT_SECRET || 'lk9w62yQJrHXRbk44S-KXMoa';", "lk9w62yQJrHXRbk44S-KXMoa"),
    "form-fill": ("await page.fill('#password', 'Winter2017!Jellyfish');", "Winter2017!Jellyfish"),
    "connect-call": ('DriverManager.getConnection("jdbc:mysql://db:3306/shop", "shop", "quartz-cqm7-granite");',
                     "quartz-cqm7-granite"),
    "mosquitto": ("mosquitto_pub -h mqtt.acme.io -u s01 -P rV6FvvACacSVtcyPBi.sTh -t t", "rV6FvvACacSVtcyPBi.sTh"),
    "httpie": ("http -a ops:DOFKyH6UP0hY0GbLPmOHmu GET https://registry.acme.io/v2/", "DOFKyH6UP0hY0GbLPmOHmu"),
    "openssl-k": ("openssl enc -aes-256-cbc -in d.sql -out d.enc -k 'Wombat-891C67member'", "Wombat-891C67member"),
    "requirepass": ("/etc/redis/redis.conf:50:requirepass U%dDfsvoE0sASg", "U%dDfsvoE0sASg"),
    "snyk-auth": ("snyk auth c969bf98-e666-4c10-bbcb-7217bdaa9188", "c969bf98-e666-4c10-bbcb-7217bdaa9188"),
    "encoded-key-name": ("DB_PASSWORD_B64=dFg2ODc9VkhnOFdYVyVuag==", "dFg2ODc9VkhnOFdYVyVuag=="),
    "wpa-psk": ('    psk="whisper-krakow-7100"', "whisper-krakow-7100"),
    "cli-flag-after-name": ("redis-cli -a Xq9vL2mZr7Kp ping", "Xq9vL2mZr7Kp"),
    "sentry-user-token": ("export SENTRY=sntryu_" + "3f2a9c1b7d8e4f60" * 4, "3f2a9c1b7d8e4f60" * 4),
    "camel-password-key": ("gradle.properties:69:ossrhPassword=CjYYGmr8maMuGWaPa", "CjYYGmr8maMuGWaPa"),
    "bearer-auth-call": ('client.get(url).bearer_auth("YrceisBWbZz2SgiIAfCDaA6QuuLlZJNl").send()',
                         "YrceisBWbZz2SgiIAfCDaA6QuuLlZJNl"),
    "japanese-api-key": ("APIキー：suSJLNhMigWDP0wXxrROc07BfyhJs7pb これを", "suSJLNhMigWDP0wXxrROc07BfyhJs7pb"),
}

KEPT_TEXT = [
    "the mnemonic word list has 2048 entries: abandon ability able about above",
    "recovery codes are shown once; print them and keep them offline",
    "key = Ed25519PrivateKey.generate(); arr = Int32Array.from(xs)",
    "key_type: Ed25519PrivateKey", "token_type: HmacSha256", "key: FixedSizeUint256",
    "type Mutation {\n  login(email: String!, password: String!): AuthPayload!\n}",
    "data:\n  password: BASE64_ENCODED_VALUE",
    "smtp_password: #{ENV['SMTP_PASSWORD']}",
    "Paste your key in this format:\n\n-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "ssh -l ops -p 2222 db01; snmpwalk -v2c -c public 10.0.0.1",
    "ssh -l deploy -p 2222 build01 && docker run -u 1000 -p 8080:80 nginx",
    "Send Authorization: Basic base64(user:password) with every request.",
    "Cache restored from key: npm-Linux-9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c",
    "const secret = process.env.PAYMENT_SECRET_KEY!;",
    "PowerShell -enc UwB0AGEAcgB0AC0AUwBsAGUAZQBwACAAMQAwAA==",
    "the PIN is on the back of the card",
    "password length must be at least 12 characters",
    "Changed the password hashing to argon2id in auth/hash.py",
    "the password field is read-only",
    "$p = ConvertTo-SecureString $plain -AsPlainText -Force",
    "the password is in 1Password, ask Dana",
    "cache key: a1b2c3d4e5f6a7b8c9d0e1",
    '"AWS::KMS::Key": "2b447c471bc70388",',
    "tests/unit/test_fix_token.py::test_fix_fix_token_6 PASSED",
    "token = s.accept(TokenType.STRING)",
    'Token: "#ddd0c0",',
    "__all__ = [\"Auth\", \"BasicAuth\", \"DigestAuth\"]",
    "('AUTH', 'SELECTED'),",
    "http://localhost:3000/@vite/client",
    "Sentry event 3f2a9c1b7d8e4f60a1b2c3d4e5f6a7b8 captured",
    "fix/arn:aws:iam::123456789012:role/ci-deploy-ab12cd",
    "echo aGVsbG8gd29ybGQgZnJvbSB0aGUgdGVzdHM= | base64 -d",
    "nodes identified by this label.",
    "Pass type_comments=True to get back type comments",
    "you may pass *globalns* or *localns* to specify",
    "Fixed the migration; all 42 tests pass.",
    "we pass user_id2 to the handler",
    "owner = pwd.getpwuid(0)[0]",
    "if data['password'] != data['confirm']:",
    'PASSWD = getpass.getpass("IMAP password for %s on %s: " % (USER, host or "localhost"))',
    "vault kv get -field=password secret/data/prod/payments-api-ab12c",
    '"result_key": "ServerlessV2PlatformVersions"',
    "the password:\nnot shown here",
    'token = get_token("default")',
    "f(password=new_password)",
    '{"output_tokens": 512, "model": "claude-3-5-sonnet-20241022", "id": "x"}',
    "the token count: 512, model is gpt4o-mini-2024-07-18-preview",
    "build Qm8Lx2Vr7tKz9Pn4Jc6Wq1Ye5 (cached); aws",  # a value before a service's name needs "for"
]


@pytest.mark.parametrize("case", sorted(SECRET_IN_TEXT))
def test_a_credential_written_by_a_person_is_redacted(case: str) -> None:
    text, secret = SECRET_IN_TEXT[case]
    out = redact(text)
    assert "[REDACTED:" in out, (case, out)
    assert not any(secret[i:i + 8] in out for i in range(len(secret) - 7)), (case, out)


@pytest.mark.parametrize("text", KEPT_TEXT)
def test_ordinary_text_beside_the_same_words_is_kept(text: str) -> None:
    assert redact(text) == text


NAMES = {
    "call-id-of-a-command": ("mongosh_--host_db0_-u_admin_-p_Lx8qV2mZr7Tk_--quiet", "Lx8qV2mZr7Tk"),
    "tool-name-sentence": ("my_staging_password_is_quartz-7k2m-river,_thanks", "quartz-7k2m-river"),
    "branch-sentence": ("fix/Das-Passwort-lautet-otter-f5d8-mango", "otter-f5d8-mango"),
    "branch-flag": ("fix/sshpass--p-'Vx8qL2mZr7Tk9'-ssh-host", "Vx8qL2mZr7Tk9"),
    "model-key-value": ("REDIS_PASS=%f(Z3yMyZF5gLB!3x3-", "Z3yMyZF5gLB!3x3"),
    "name-beside-word": ("private_key_=_\"tGpU10VOU6qduUmyPxIa61Nv4mGKAYtJ\"", "tGpU10VOU6qduUmyPxIa61Nv4mGKAYtJ"),
    "full-width": ("パスワード：ｌｏｔｕｓ－ｂｕａｊ－７２６", "ｌｏｔｕｓ－ｂｕａｊ－７２６"),
}
KEPT_NAMES = ["Downloading_https://files.pythonhosted.org/packages/75/f8/"
              "31dba58abb5978ee4a66217659f0f6852e1bd0a64eecdb755b85126d5f5f/keyring-25.4.1-py3-none-any.whl",
              '{"_index":"auth-logs","_id":"ZH1gIJkVHPWN3VC7adaP","result":"created"}',
              'db.orders.find({_id: ObjectId("65a1f0c2e4b0a1b2c3d4e5f6")}, {passwordHash: 0})',
              '{"name":"auth.check_token","span_id":"a1b2c3d4e5f60718"}',
              "Deployed_TokenVault_at_0x8ba1f109551bd432803012645ac136ddd64dba72",
              "fix/DB_PASSWORD=CHANGE_ME_NOW-in-compose",
              "mcp__github__create_pull_request", "claude-3-5-sonnet-20241022", "toolu_01AbCdEfGhIjKlMnOpQrStUv",
              "call_Xa9bC3dE2fG4hI5jK6lM7nO8", "call_Xa9bC3dE2fGkeyI5jK6lM7nO8authQ2",
              "fix/3f2c1a9b8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
              "feature/token-refresh-rotation", "/home/dev/src/app/.worktrees/a1b2c3d4"]


@pytest.mark.parametrize("case", sorted(NAMES))
def test_a_name_made_of_a_command_or_a_sentence_loses_its_credential(case: str) -> None:
    name, secret = NAMES[case]
    out = redact_name(name)
    assert not any(secret[i:i + 8] in out for i in range(len(secret) - 7)), (case, out)


@pytest.mark.parametrize("name", KEPT_NAMES)
def test_names_without_a_credential_are_kept(name: str) -> None:
    assert redact_name(name) == name


def test_a_claude_project_folder_loses_a_random_run_its_cwd_made() -> None:
    path = "/home/dev/.claude/projects/-home-dev-curl--u-root-ugAy7hmdvfkpxxQeg-VdT-https---ci/0b6f.jsonl"
    assert "ugAy7hmdvfkpxxQeg" not in redact_path(path)
    for plain in ("/home/dev/.claude/projects/-home-dev-src-moraine-worktrees-feature-2/0b6f.jsonl",
                  "/home/dev/.claude/projects/-home-dev-src-MyProject2024-api/0b6f.jsonl"):
        assert redact_path(plain) == plain

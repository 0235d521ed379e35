"""A chosen password is known by its shape alone (`secret_chosen.py`), and the shapes code,
addresses, pins and tags make are kept: each negative below is a line the rule once took in
the standard library, npm's or jQuery's JavaScript, or a held-out lookalike corpus."""

from __future__ import annotations

import pytest

from moraine.redaction.redact import redact

CHOSEN = ["Winter6975!bFb7gQO", "Coco6279$Qq9hK", "Gr@n1t3c3d@r943vgIN", "#*4RJpwmCZD#5W", "Simba1748#5zhM2",
          "Tul1pl0tu$096y9pH", "Milo4484?BSFu3", "L@nt3rnumb3r9056lv3", "Ajax@78kW0uy1ho"]
SETTINGS = ["{}", "it's {} — copy-paste it exactly", "| payments | `{}` |", "la contra es {} wey",
            '{{"note": "first line\\n{}"}}', "set the secret to ‘{}’ on the server"]
KEPT = [
    "n, d = n * 10**self._exp, 1", "# https://tools.ietf.org/html/rfc3986#section-3.3 and the",
    "'sr_cs@latn': 'sr_RS.UTF-8@latin',", "var isFunction$1 = isFunction(x);", "this.startTime=e.startTime??0",
    "- uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11 # v4.1.1",
    "see https://msdn.microsoft.com/en-us/library/ms536429%28VS.85%29.aspx",
    "if (!$jscomp$key$m1577590584$1$rule.done)",
    "mail user1.Name@Example2.com today", "follow @JohnDoe1985 for news", 'toolskey = "VS%0.f0COMNTOOLS" % version',
    "quoted-printable (like =?iso-8859-1?q?Hello_World?=) -- please use",
    """re.compile(r"^[/!$&'()*+,;=:@%a-zA-Z0-9._~-]+$")""", "FROM python:3.12-slim@sha256:084b1848980bb46dcd80b8fa57",
    'resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c"',
    "GET /authorize?response_type=code&client_id=webapp&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw",
    "google3.apphosting.tools.javascript.dev$2dchannel.DevSocket", "RSASSA-PKCS1 is PKCS#1v1.5 padding",
    "return obj != null && isFunction$1(obj.Foo2)",
]


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("password", CHOSEN)
def test_a_chosen_password_is_redacted_without_a_word_beside_it(password: str, setting: str) -> None:
    text = setting.format(password)
    assert password not in redact(text)
    assert "[REDACTED:" in redact(text)


@pytest.mark.parametrize("text", KEPT)
def test_the_shapes_of_code_addresses_and_pins_are_kept(text: str) -> None:
    assert redact(text) == text

"""The API key: read from the environment only, sent in one header only, written and shown nowhere.

The key comes from ``CONTEXTLAB_API_KEY``, else ``OPENAI_API_KEY``. It travels in the
``Authorization`` header to the endpoint's own origin and nowhere else: an endpoint URL that
holds it (or any credentials: a user name, a query string, a fragment, a path segment that looks
like a key) is refused before anything is sent, and every text a server sends back (an answer, a
model id, an error message) is scrubbed of it before it is stored or shown, so a server that
echoes the header cannot get the key into a results file or the cache.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlsplit

from ..errors import InvalidInputError

__all__ = ["API_KEY_VARIABLES", "SCRUBBED", "api_key", "api_key_source", "auth_headers", "refuse_key_in_url", "scrub"]

#: Where the key is read from, in order. Nothing else is ever read or written.
API_KEY_VARIABLES: tuple[str, ...] = ("CONTEXTLAB_API_KEY", "OPENAI_API_KEY")
#: What the key is replaced with wherever a server's text held it.
SCRUBBED = "[key]"
# A key shorter than this is neither scrubbed from answers (it would eat ordinary words) nor looked
# for in an endpoint (it would refuse http://ollama:11434/v1 for Ollama's placeholder key "ollama",
# http://localhost:.. for "local"): such a "key" is no secret worth the name. Both use one length.
_MIN_SECRET = 8
# A path segment shaped like the secret keys of common providers (sk-..., sk-proj-..., sk-ant-...):
# "sk-", then 16 or more key characters, at least one a digit.
_KEY_SHAPED = re.compile(r"^sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}$")
# What a key may hold: printable Latin-1, what one HTTP header value carries (no control character).
_HEADER_SAFE = re.compile(r"[\x20-\x7e\xa0-\xff]+")


def api_key() -> tuple[str | None, str | None]:
    """Return the key and the name of the variable it comes from, or ``(None, None)``.

    Raises ``InvalidInputError`` (never repeating the key) when the key holds a line break or
    another character an HTTP header cannot carry (sent, an HTTP library's error would quote it).
    """
    for name in API_KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            if not _HEADER_SAFE.fullmatch(value):
                raise InvalidInputError(
                    f"{name} holds a line break or another character an HTTP header cannot "
                    "carry; set it to the key alone, on one line"
                )
            return value, name
    return None, None


def api_key_source() -> str | None:
    """Return the name of the variable the key comes from (never the key), or None without one.

    Never raises: a page says where the key comes from before anything checks it.
    """
    return next((name for name in API_KEY_VARIABLES if os.environ.get(name, "").strip()), None)


def auth_headers() -> dict[str, str]:
    """Return the ``Authorization`` header carrying the key, or no header without one."""
    key, _ = api_key()
    return {"Authorization": f"Bearer {key}"} if key else {}


def scrub(text: str) -> str:
    """Return ``text`` with the configured key (if set, and not trivially short) replaced by ``[key]``.

    Whatever its case: a server that echoes the key in capitals or lower case still leaks it.
    """
    key, _ = api_key()
    if not key or len(key) < _MIN_SECRET or key.lower() not in text.lower():
        return text
    return re.sub(re.escape(key), SCRUBBED, text, flags=re.IGNORECASE)


def refuse_key_in_url(url: str) -> None:
    """Raise ``InvalidInputError`` when ``url`` carries a key or credentials; returns nothing otherwise.

    Refused: a user name or password, a query string, a fragment, the configured key anywhere
    (in any case, also percent-encoded; a key shorter than 8 characters is no secret and is not
    looked for), and a path segment shaped like a provider's key. The message never
    repeats the URL (it holds the secret).
    """
    parts = urlsplit(url)
    advice = "put the key in CONTEXTLAB_API_KEY and give the plain base URL, such as http://127.0.0.1:8080/v1"
    if "@" in parts.netloc:
        raise InvalidInputError(f"endpoint must not carry a user name or password; {advice}", field="endpoint")
    if parts.query or url.rstrip().endswith("?"):
        raise InvalidInputError(f"endpoint must not carry a query string (?...); {advice}", field="endpoint")
    if parts.fragment or "#" in url:
        raise InvalidInputError(f"endpoint must not carry a fragment (#...); {advice}", field="endpoint")
    key, source = api_key()
    if key and len(key) >= _MIN_SECRET and any(key.lower() in form.lower() for form in (url, unquote(url))):
        raise InvalidInputError(f"endpoint must not hold the API key from {source}; {advice}", field="endpoint")
    if any(_KEY_SHAPED.match(unquote(segment)) for segment in parts.path.split("/")):
        raise InvalidInputError(f"endpoint must not hold an API key in its path; {advice}", field="endpoint")

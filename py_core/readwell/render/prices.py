"""Prices in any common notation (``1.299,00 €``, ``$1,299.00``, ``¥129,800``) as amount + currency.

The number itself is read by ``price-parser`` (Zyte's, made for exactly this: decimal and thousands separators
of every locale, currency before or after); this module only maps the currency it found to an ISO 4217 code
where the sign has one common meaning, and decides whether a short text *is* a price.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ..errors import InputError

# Signs with one dominant meaning. "$" alone is read as USD and "¥" as JPY (the notation); "kr" stays
# as written (Swedish, Norwegian, Danish, Icelandic crowns all use it).
CURRENCY_SIGNS = {
    "€": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "$": "USD",
    "us$": "USD",
    "usd": "USD",
    "c$": "CAD",
    "ca$": "CAD",
    "a$": "AUD",
    "au$": "AUD",
    "£": "GBP",
    "gbp": "GBP",
    "¥": "JPY",
    "円": "JPY",
    "jpy": "JPY",
    "元": "CNY",
    "cn¥": "CNY",
    "rmb": "CNY",
    "₹": "INR",
    "rs.": "INR",
    "₩": "KRW",
    "₽": "RUB",
    "руб": "RUB",
    "zł": "PLN",
    "chf": "CHF",
    "fr.": "CHF",
    "₺": "TRY",
    "r$": "BRL",
    "kč": "CZK",
    "₪": "ILS",
}
ISO_CODE = re.compile(r"^[A-Z]{3}$")
# A text that is a price: a currency and a number, little else (a label like "Price:" or "now" at most).
MAX_PRICE_TEXT = 40
DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str | None  # ISO 4217 code where known, else the sign as written

    def to_dict(self) -> dict[str, object]:
        return {"amount": float(self.amount), "currency": self.currency}


def currency_code(sign: str | None) -> str | None:
    if not sign:
        return None
    s = sign.strip()
    if ISO_CODE.match(s):
        return s
    return CURRENCY_SIGNS.get(s.lower(), s)


def parse_price(text: str, currency: str | None = None) -> Money | None:
    """The price in ``text`` (``currency`` from elsewhere when the text has none); None without a number."""
    if not text or not DIGIT.search(text):
        return None
    try:  # imported here: the package imports without the render extra (only rendering needs it)
        from price_parser import Price
    except ImportError:
        raise InputError("reading prices needs price-parser: pip install 'readwell[render]'") from None
    p = Price.fromstring(text, currency_hint=currency)
    if p.amount is None:
        return None
    return Money(p.amount, currency_code(p.currency or currency))


def looks_like_price(text: str) -> Money | None:
    """A short text that is a price with its currency (shown prices carry one), else None."""
    t = " ".join(text.split())
    if not t or len(t) > MAX_PRICE_TEXT:
        return None
    m = parse_price(t)
    if m is None or m.currency is None:
        return None
    # most of the text is the price: "Price: 19.99 USD" yes, "3 items for $5 each this week" no
    letters = sum(c.isalpha() for c in t) - sum(c.isalpha() for c in (m.currency or ""))
    return m if letters <= 12 else None

"""What the customer typed, understood: numbered choices, acceptance words, "paguei", "cancelar", dates (pure)."""

from __future__ import annotations

import re
import unicodedata
from datetime import date

ACCEPT = frozenset({"1", "sim", "s", "aceito", "confirmo", "ok", "pode"})
"""RN-ATD-09: the answers that accept the summary."""
DECLINE = frozenset({"2", "nao", "n"})
PAID = frozenset({"paguei", "ja paguei", "pago", "ja pago", "fiz o pix", "ja fiz o pix", "pix feito", "pix pago"})
CANCEL = frozenset({"cancelar", "cancela", "cancelo", "desistir", "desisto"})
RESTART = frozenset({"menu", "reservar", "reserva", "novo horario", "outro horario", "trocar", "trocar horario",
                     "horarios", "inicio", "voltar", "recomecar"})
GREETING = frozenset({"oi", "ola", "bom dia", "boa tarde", "boa noite", "e ai", "opa"})
TODAY = frozenset({"hoje"})
TOMORROW = frozenset({"amanha"})
_DATE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})(?:[/.-](\d{2}|\d{4}))?$")


def normalize(text: str) -> str:
    """Lower case, without accents, punctuation at the ends or repeated spaces ("Já paguei!" → "ja paguei")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.strip(" \t\r\n.!?,;:)(\"'").split())


def choice(text: str, options: int) -> int | None:
    """The 1-based option a message picks ("2", "2.", "opção 2"), or None."""
    words = normalize(text).removeprefix("opcao").strip()
    if words.isdigit() and words.isascii():
        n = int(words)
        return n if 1 <= n <= options else None
    return None


def pick(text: str, labels: list[str]) -> int | None:
    """The 1-based option a message picks: its number, or its label typed out ("Campo 2", "19h", "19")."""
    n = choice(text, len(labels))
    if n is not None:
        return n
    typed = normalize(text)
    if not typed:
        return None
    for i, label in enumerate(labels, 1):
        plain = normalize(label)
        if typed in (plain, plain.removesuffix("h")) or typed + "h" == plain:
            return i
    return None


WEEKDAY_NAMES = {"segunda": 0, "seg": 0, "segunda-feira": 0, "terca": 1, "ter": 1, "terca-feira": 1, "quarta": 2,
                 "qua": 2, "quarta-feira": 2, "quinta": 3, "qui": 3, "quinta-feira": 3, "sexta": 4, "sex": 4,
                 "sexta-feira": 4, "sabado": 5, "sab": 5, "domingo": 6, "dom": 6}


def is_accept(text: str) -> bool:
    return normalize(text) in ACCEPT


def is_decline(text: str) -> bool:
    return normalize(text) in DECLINE


def is_paid(text: str) -> bool:
    return normalize(text) in PAID


def is_cancel(text: str) -> bool:
    return normalize(text) in CANCEL


def is_restart(text: str) -> bool:
    t = normalize(text)
    return t in RESTART or t in GREETING


def parse_day(text: str, today: date) -> date | None:
    """"hoje", "amanhã", "25/12", "25/12/2026" → a date (a past dd/mm means next year's), or None."""
    t = normalize(text)
    if t in TODAY:
        return today
    if t in TOMORROW:
        return date.fromordinal(today.toordinal() + 1)
    if t in WEEKDAY_NAMES:  # the next such day (today counts)
        return date.fromordinal(today.toordinal() + (WEEKDAY_NAMES[t] - today.weekday()) % 7)
    m = _DATE.match(t)
    if not m:
        return None
    day, month, year = int(m[1]), int(m[2]), m[3]
    y = (int(year) + (2000 if len(year) == 2 else 0)) if year else today.year
    try:
        found = date(y, month, day)
    except ValueError:
        return None
    if not year and found < today:
        try:
            found = date(y + 1, month, day)
        except ValueError:
            return None
    return found


def only_digits(text: str) -> str:
    return re.sub(r"[^0-9]", "", text)

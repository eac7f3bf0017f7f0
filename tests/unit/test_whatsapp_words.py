"""What the WhatsApp bot understands of what customers type (pure)."""

from __future__ import annotations

from datetime import date

from domain.conversation import words as w

MONDAY = date(2026, 12, 7)


def test_every_acceptance_word_of_rn_atd_09_accepts_whatever_the_case_accents_or_punctuation() -> None:
    for text in ("1", "sim", "S", "Aceito", "confirmo!", "OK", "pode", " Sim. "):
        assert w.is_accept(text), text
    for text in ("2", "não", "talvez", "sim sim", "11"):
        assert not w.is_accept(text), text


def test_paguei_cancelar_and_restart_words() -> None:
    assert w.is_paid("Já paguei!") and w.is_paid("paguei") and w.is_paid("fiz o PIX")
    assert not w.is_paid("vou pagar")
    assert w.is_cancel("Cancelar") and w.is_cancel("desisto") and not w.is_cancel("cancelar a reserva de ontem")
    assert w.is_restart("Oi") and w.is_restart("menu") and w.is_restart("outro horário")


def test_a_menu_option_is_picked_by_its_number_or_its_label() -> None:
    fields = ["Campo 1", "Campo 2", "Tanto faz"]
    assert [w.pick(t, fields) for t in ("2", "2.", "opção 3", "campo 2", "TANTO FAZ", "4", "0", "", "campo")] == [
        2, 2, 3, 2, 3, None, None, None, None]
    times = ["8h", "9h", "19h", "19h30"]
    assert [w.pick(t, times) for t in ("3", "19h", "19", "19h30", "20h")] == [3, 3, 3, 4, None]


def test_days_typed_as_words_or_dates() -> None:
    assert w.parse_day("hoje", MONDAY) == MONDAY
    assert w.parse_day("amanhã", MONDAY) == date(2026, 12, 8)
    assert w.parse_day("sábado", MONDAY) == date(2026, 12, 12)
    assert w.parse_day("segunda", MONDAY) == MONDAY
    assert w.parse_day("25/12", MONDAY) == date(2026, 12, 25)
    assert w.parse_day("05/01", MONDAY) == date(2027, 1, 5)  # a past day and month: next year's
    assert w.parse_day("16/01/2027", MONDAY) == date(2027, 1, 16)
    assert w.parse_day("31/02", MONDAY) is None
    assert w.parse_day("depois", MONDAY) is None

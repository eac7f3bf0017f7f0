"""Customer identity: CPF check digits, E.164 phones, CPF-or-phone (SPEC §2)."""

from __future__ import annotations

import random

import pytest

from domain.customers import CustomerIdentity, complete_cpf, normalize_cpf, normalize_phone
from domain.errors import InvalidInput

KNOWN_VALID = ["52998224725", "11144477735", "12345678909", "39053344705"]


# --- CPF -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cpf", KNOWN_VALID)
def test_a_known_valid_cpf_is_accepted_as_its_eleven_digits(cpf: str) -> None:
    assert normalize_cpf(cpf) == cpf


@pytest.mark.parametrize("cpf", KNOWN_VALID)
def test_complete_cpf_recomputes_the_check_digits_of_known_valid_cpfs(cpf: str) -> None:
    assert complete_cpf(cpf[:9]) == cpf


def test_cpfs_completed_from_random_prefixes_are_valid() -> None:
    rng = random.Random(20260310)
    for _ in range(200):
        prefix = "".join(rng.choice("0123456789") for _ in range(9))
        cpf = complete_cpf(prefix)
        assert len(cpf) == 11
        assert cpf.startswith(prefix)
        if cpf != cpf[0] * 11:
            assert normalize_cpf(cpf) == cpf


@pytest.mark.parametrize(
    "raw", ["529.982.247-25", " 529.982.247-25 ", "529 982 247 25", "529982247-25", "5.2.9.9.8.2.2.4.7.2.5"]
)
def test_cpf_formatting_is_stripped(raw: str) -> None:
    assert normalize_cpf(raw) == "52998224725"


@pytest.mark.parametrize("raw", ["52998224724", "52998224715", "529.982.247-26", "12345678900"])
def test_a_cpf_with_wrong_check_digits_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_cpf(raw)
    assert info.value.code == "invalid_cpf"
    assert info.value.field == "cpf"


@pytest.mark.parametrize("raw", ["", "5299822472", "529982247251", "529.982.247", "52998224725 1"])
def test_a_cpf_of_the_wrong_length_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_cpf(raw)
    assert info.value.code == "invalid_cpf"
    assert info.value.field == "cpf"


@pytest.mark.parametrize("raw", ["529a8224725", "529/982/247-25", "+5299822472", "529_982_247_25"])
def test_a_cpf_with_other_characters_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_cpf(raw)
    assert info.value.code == "invalid_cpf"


@pytest.mark.parametrize("digit", "0123456789")
def test_a_cpf_of_one_repeated_digit_is_refused_although_its_check_digits_match(digit: str) -> None:
    cpf = digit * 11
    assert complete_cpf(cpf[:9]) == cpf  # why the explicit rule is needed
    with pytest.raises(InvalidInput) as info:
        normalize_cpf(cpf)
    assert info.value.code == "invalid_cpf"


def test_the_refusal_names_the_field_it_was_given() -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_cpf("123", field="input.customer.cpf")
    assert info.value.field == "input.customer.cpf"


def test_a_cpf_written_in_superscript_digits_is_refused_as_invalid_cpf() -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_cpf("¹²³⁴⁵⁶⁷⁸⁹⁰⁹")
    assert info.value.code == "invalid_cpf"


def test_a_cpf_in_fullwidth_digits_is_refused_or_returned_as_ascii_digits() -> None:
    try:
        result = normalize_cpf("５２９９８２２４７25")
    except InvalidInput as e:
        assert e.code == "invalid_cpf"
    else:
        assert result == "52998224725"


# --- phone ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("+5511999990000", "+5511999990000"),
        ("+55 11 99999-0000", "+5511999990000"),
        ("+55 (11) 99999-0000", "+5511999990000"),
        ("+55.11.99999.0000", "+5511999990000"),
        ("  +5511999990000\n", "+5511999990000"),
        ("+14155552671", "+14155552671"),
        ("+393331234567", "+393331234567"),
        ("+12345678", "+12345678"),  # 8 digits: the shortest accepted
        ("+123456789012345", "+123456789012345"),  # 15 digits: the E.164 maximum
    ],
)
def test_a_phone_is_normalised_to_e164(raw: str, expected: str) -> None:
    assert normalize_phone(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "5511999990000",  # no plus
        "005511999990000",  # international prefix instead of plus
        "+0511999990000",  # country code cannot start with 0
        "+1234567",  # too short
        "+1234567890123456",  # 16 digits: too long
        "+55 11 9999O-0000",  # letter O
        "+55/11/999990000",
        "++5511999990000",
        "tel:+5511999990000",
    ],
)
def test_a_phone_not_in_e164_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_phone(raw)
    assert info.value.code == "invalid_phone"
    assert info.value.field == "phone"


def test_a_phone_refusal_names_the_field_it_was_given() -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_phone("123", field="customer.phone")
    assert info.value.field == "customer.phone"


def test_a_phone_with_non_ascii_digits_is_refused() -> None:
    with pytest.raises(InvalidInput):
        normalize_phone("+5٥١١٩٩٩٩٩٠٠٠٠")


# --- identity ------------------------------------------------------------------------------------------


def test_an_identity_with_only_a_cpf_is_accepted_and_normalised() -> None:
    ident = CustomerIdentity.parse("529.982.247-25", None)
    assert ident == CustomerIdentity(cpf="52998224725", phone=None)


def test_an_identity_with_only_a_phone_is_accepted_and_normalised() -> None:
    ident = CustomerIdentity.parse(None, "+55 (11) 99999-0000")
    assert ident == CustomerIdentity(cpf=None, phone="+5511999990000")


def test_an_identity_keeps_both_and_trims_name_and_email() -> None:
    ident = CustomerIdentity.parse("52998224725", "+5511999990000", "  Ana Souza ", " ana@example.com ")
    assert ident.cpf == "52998224725"
    assert ident.phone == "+5511999990000"
    assert ident.name == "Ana Souza"
    assert ident.email == "ana@example.com"


@pytest.mark.parametrize(("cpf", "phone"), [(None, None), ("", ""), ("", None), (None, "")])
def test_an_identity_without_cpf_or_phone_is_refused(cpf: str | None, phone: str | None) -> None:
    with pytest.raises(InvalidInput) as info:
        CustomerIdentity.parse(cpf, phone, name="Ana")
    assert info.value.code == "customer_required"
    assert info.value.field == "customer"


def test_an_identity_with_a_bad_cpf_names_the_nested_field() -> None:
    with pytest.raises(InvalidInput) as info:
        CustomerIdentity.parse("52998224724", "+5511999990000")
    assert info.value.code == "invalid_cpf"
    assert info.value.field == "customer.cpf"


def test_an_identity_with_a_bad_phone_names_the_nested_field() -> None:
    with pytest.raises(InvalidInput) as info:
        CustomerIdentity.parse("52998224725", "11 99999-0000")
    assert info.value.code == "invalid_phone"
    assert info.value.field == "customer.phone"

"""The shapes of identifiers people type, refused with a field-level error code."""

from __future__ import annotations

import pytest

from portal.domain.errors import DomainError
from portal.domain.naming import (
    normalise_code,
    normalise_email,
    normalise_name,
    normalise_slug,
)


def _refusal(call, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call(*args, **kwargs)
    return caught.value


# --- codes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("FIN", "FIN"),
        ("  ops-east ", "ops-east"),
        ("a", "a"),
        ("CFO.2", "CFO.2"),
        ("x_y-z.1", "x_y-z.1"),
        ("A" * 40, "A" * 40),
    ],
)
def test_a_chart_code_is_trimmed_and_keeps_its_case(typed, stored):
    assert normalise_code(typed) == stored


@pytest.mark.parametrize("typed", ["", "   ", "-FIN", ".x", "has space", "A" * 41, "FIN/OPS", "é"])
def test_a_chart_code_with_a_bad_shape_is_refused(typed):
    assert normalise_code("FIN") == "FIN"
    error = _refusal(normalise_code, typed)
    assert error.code == "invalid_code"
    assert error.field == "code"


def test_a_code_refusal_names_the_field_it_was_given():
    assert normalise_code("ok", field="unit_code") == "ok"
    assert _refusal(normalise_code, "no good", field="unit_code").field == "unit_code"


# --- slugs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "stored"),
    [("acme", "acme"), (" Acme-Test ", "acme-test"), ("a1", "a1"), ("a" * 63, "a" * 63)],
)
def test_an_organization_slug_is_lower_cased_and_trimmed(typed, stored):
    assert normalise_slug(typed) == stored


@pytest.mark.parametrize("typed", ["", "a", "1acme", "-acme", "acme-", "ac me", "acme_x", "a" * 64])
def test_a_slug_with_a_bad_shape_is_refused(typed):
    assert normalise_slug("acme") == "acme"
    error = _refusal(normalise_slug, typed)
    assert error.code == "invalid_slug"
    assert error.field == "slug"


# --- emails ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("alice@example.com", "alice@example.com"),
        ("  Alice.Admin@Example.COM ", "alice.admin@example.com"),
        ("a+tag@sub.example.co", "a+tag@sub.example.co"),
    ],
)
def test_an_email_is_lower_cased_and_trimmed(typed, stored):
    assert normalise_email(typed) == stored


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "alice",
        "alice@",
        "@example.com",
        "alice@example",
        "alice@example.c",
        "al ice@example.com",
        "alice@@example.com",
        "a@b@example.com",
        "a" * 65 + "@example.com",
        "alice@" + "x" * 250 + ".com",
    ],
)
def test_an_email_with_a_bad_shape_is_refused_and_quoted_back(typed):
    assert normalise_email("alice@example.com") == "alice@example.com"
    error = _refusal(normalise_email, f" {typed} ")
    assert error.code == "invalid_email"
    assert error.field == "email"
    assert error.params == {"email": typed}


# --- names -----------------------------------------------------------------------------------


def test_a_name_has_its_inner_whitespace_collapsed():
    assert normalise_name("  Alice \t  Admin\n") == "Alice Admin"


def test_a_long_name_is_cut_to_two_hundred_characters():
    assert normalise_name("x" * 250) == "x" * 200


@pytest.mark.parametrize("typed", ["", "   ", "\t\n"])
def test_a_blank_name_is_refused(typed):
    assert normalise_name("Alice") == "Alice"
    error = _refusal(normalise_name, typed)
    assert error.code == "name_required"
    assert error.field == "name"


def test_a_name_refusal_names_the_field_it_was_given():
    assert normalise_name("Treasurer", field="title") == "Treasurer"
    assert _refusal(normalise_name, " ", field="title").field == "title"

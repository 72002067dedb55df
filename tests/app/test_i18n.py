"""The catalogue: both languages complete and consistent, locale detection, refusals."""

from __future__ import annotations

import string

import pytest

from pioche_tui.coordinator.model import Refused
from pioche_tui.i18n import MESSAGES, Catalogue, lang_from_env, pick_lang


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_has_both_languages_with_the_same_fields() -> None:
    for key, (fr, en) in MESSAGES.items():
        assert fields(fr) == fields(en), key
        assert en and fr, key
        for text in (fr, en):
            assert "[" not in text or "]" not in text, f"{key}: messages are never markup"


@pytest.mark.parametrize(("value", "lang"), [
    ("en_GB.UTF-8", "en"), ("en", "en"), ("EN_us", "en"), ("fr_FR.UTF-8", "fr"),
    ("de_DE.UTF-8", "fr"), ("C.UTF-8", "fr"), ("", "fr"), (None, "fr"),
])
def test_pick_lang(value: str | None, lang: str) -> None:
    assert pick_lang(value) == lang


def test_lang_from_env_follows_posix_precedence() -> None:
    assert lang_from_env({"LANG": "en_US.UTF-8"}) == "en"
    assert lang_from_env({"LANG": "en_US.UTF-8", "LC_ALL": "fr_FR.UTF-8"}) == "fr"
    assert lang_from_env({"LANG": "fr_FR", "LC_MESSAGES": "en_GB"}) == "en"
    assert lang_from_env({}) == "fr"


def test_counts_follow_each_language() -> None:
    fr, en = Catalogue("fr"), Catalogue("en")
    assert [fr.count("n.cards", n) for n in (0, 1, 2)] == ["0 carte", "1 carte", "2 cartes"]
    assert [en.count("n.cards", n) for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]


def test_names_are_listed_naturally() -> None:
    t = Catalogue("fr")
    assert t.names(["Alice"]) == "Alice"
    assert t.names(["Alice", "Bob"]) == "Alice et Bob"
    assert Catalogue("en").names(["A", "B", "C"]) == "A, B and C"


def test_refusals_by_code_with_the_french_text_as_fallback() -> None:
    error = Refused("name_taken", "Le pseudo Alice est déjà en ligne.")
    assert Catalogue("fr").refusal(error) == "Le pseudo Alice est déjà en ligne."
    assert Catalogue("en").refusal(error) == "That nickname is already online."
    unknown = Refused("something_new", "Quelque chose de nouveau.")
    assert Catalogue("en").refusal(unknown) == "Quelque chose de nouveau."
    illegal = Refused("illegal", "Ce n'est pas votre tour.")
    assert Catalogue("en").refusal(illegal) == "Move refused: Ce n'est pas votre tour."


def test_unknown_language_is_french() -> None:
    assert Catalogue("de").lang == "fr"

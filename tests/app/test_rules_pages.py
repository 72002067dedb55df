"""The rules pages players read in the help (pioche_tui/rules/<lang>/<game>.md) say what the
engines do: every number, card, glyph and option a page states is read from the page and compared
with the engine's tables and functions, the widgets that draw the cards, and the options the
create dialog offers. Change a value in the engine without the pages, and a test here fails.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from functools import cache

import pytest

from pioche_tui.app.games import GAME_UIS, rules_page
from pioche_tui.engine import GAMES
from pioche_tui.engine.collection import cards as ccards
from pioche_tui.engine.collection.objectives import best_selection, total_points
from pioche_tui.engine.collection.rules import stop_reason
from pioche_tui.engine.defausse import cards as dcards
from pioche_tui.engine.defausse.rules import (
    DEFAULT_OPTIONS,
    HAND_SIZE,
    TARGET_RANGE,
    Catch,
    Play,
    apply,
    interjectors,
    legal_actions,
    new_game,
    to_act,
)
from pioche_tui.i18n import LANGS, Catalogue
from widgets import collection_cards, defausse_cards

Row = list[str]

# The few words a test needs to find its table or sentence, per language.
WORDS = {
    "fr": {"card": "Carte", "option": "Option", "number": "N°", "numbers": "1 à 9",
           "face_value": "leur chiffre", "draws": r"(\d+) cartes",
           "seats": r"(\d+) à (\d+) joueurs",
           "deal": r"reçoit (\d+) cartes", "default": " (par défaut)",
           "reserve": r"(\d+) places", "double": r"au moins (\d+) cartes",
           "quantique": r"jusqu'à (\d+) cartes", "need": "Ce qu'il faut",
           "end": "Fin de la partie", "stop": "La règle du STOP",
           "options": "Les options de la table"},
    "en": {"card": "Card", "option": "Option", "number": "No.", "numbers": "1 to 9",
           "face_value": "their number", "draws": r"(\d+) cards",
           "seats": r"(\d+) to (\d+) players",
           "deal": r"gets (\d+) cards", "default": " (default)",
           "reserve": r"(\d+) slots", "double": r"at least (\d+) cards",
           "quantique": r"up to (\d+) cards", "need": "What you need",
           "end": "End of the game", "stop": "The STOP rule", "options": "Table options"},
}


def page(game: str, lang: str) -> str:
    text = rules_page(game, lang)
    assert text, f"no rules page for {game} in {lang}"
    return text


def sections(text: str) -> list[str]:
    """The page cut at its headings (``## ``), the text before the first one included."""
    return re.split(r"^## ", text, flags=re.M)


def titled(text: str, heading: str) -> str:
    """The section under ``## heading``."""
    found = [s for s in sections(text) if s.split("\n", 1)[0] == heading]
    assert len(found) == 1, f"one section {heading!r}"
    return found[0]


def table(text: str, first_header: str) -> tuple[Row, list[Row]]:
    """The Markdown table whose header starts with ``first_header``: its header, its rows."""
    for block in re.findall(r"(?:^\|.*\|\n)+", text, flags=re.M):
        lines = [[cell.strip() for cell in line.strip().strip("|").split("|")]
                 for line in block.splitlines()]
        if lines[0][0] == first_header:
            assert set("".join(lines[1])) <= set("-: "), "a separator under the header"
            return lines[0], lines[2:]
    raise AssertionError(f"no table starting with {first_header!r}")


def by_name(rows: list[Row]) -> dict[str, Row]:
    named = {row[0]: row for row in rows}
    assert len(named) == len(rows), "one row per name"
    return named


def codes(cell: str) -> list[str]:
    """The glyphs a cell shows in code spans (`R 7`)."""
    return re.findall(r"`([^`]+)`", cell)


def ints(cell: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", cell)]


def one(pattern: str, text: str) -> tuple[int, ...]:
    match = re.search(pattern, text)
    assert match, f"the page says {pattern!r}"
    return tuple(int(n) for n in match.groups())


LANG = pytest.mark.parametrize("lang", LANGS)


# --- every page -------------------------------------------------------------------------------


@LANG
@pytest.mark.parametrize("game", ["defausse", "collection"])
def test_the_page_is_for_players(game: str, lang: str) -> None:
    """No developers' notes: no decision tags, file paths, seeds, simulations or tests."""
    text = page(game, lang)
    for pattern in (r"\[decision", r"\.(md|py)\b", r"docs/", r"\bseed", r"graine", r"simulat",
                    r"\btests?\b", r"\bengine\b", r"moteur"):
        assert not re.search(pattern, text, flags=re.I), pattern
    assert not re.search(r"^# ", text, flags=re.M), "the tab names the page: no title"


@LANG
@pytest.mark.parametrize("game", ["defausse", "collection"])
def test_players_and_colours(game: str, lang: str) -> None:
    t = Catalogue(lang)
    text = page(game, lang)
    engine = GAMES[game]
    assert one(WORDS[lang]["seats"], text) == (engine.min_seats, engine.max_seats)
    letters = t("colour.letters" if game == "defausse" else "col.letters")
    colours = dcards.COLOURS if game == "defausse" else ccards.COLOURS
    assert len(letters) == len(colours)
    for i, letter in enumerate(letters):  # « rouge `R` »: the letter each card shows
        assert f"{t(f'colour.{i}')} `{letter}`" in text


@LANG
@pytest.mark.parametrize("game", ["defausse", "collection"])
def test_the_options_are_the_create_dialogs(game: str, lang: str) -> None:
    """The options the page names are those the create dialog offers, by the dialog's own
    labels; and the dialog offers the engine's options, with the engine's defaults (all but
    single_round, for the simulator)."""
    t = Catalogue(lang)
    specs = GAME_UIS[game].options
    defaults = GAMES[game].options({})
    assert set(defaults) - {spec.name for spec in specs} == {"single_round"}
    for spec in specs:
        assert defaults[spec.name] == spec.default, spec.name
    text = titled(page(game, lang), WORDS[lang]["options"])
    for spec in specs:
        assert t(f"opt.{spec.name}") in text, spec.name


# --- Défausse ---------------------------------------------------------------------------------


def first_card(rank: int) -> int:
    """A card of ``rank``, red if it has a colour."""
    return next(c for c in dcards.CARDS if dcards.RANK[c] == rank)


@LANG
def test_defausse_cards_glyphs_counts_and_points(lang: str) -> None:
    t = Catalogue(lang)
    words = WORDS[lang]
    letters = t("colour.letters")
    text = page("defausse", lang)
    _, rows = table(text, words["card"])
    named = by_name(rows)
    symbols = {dcards.PASSE: "passe", dcards.INVERSE: "inverse", dcards.PLUS2: "plus2",
               dcards.JOKER: "joker", dcards.JOKER4: "joker4"}
    assert set(named) == {"0", words["numbers"], *(t(f"kind.{k}") for k in symbols.values())}

    def glyph(rank: int) -> str:
        return defausse_cards.face(first_card(rank), letters).strip()

    name, screen, count, points = named["0"]
    assert codes(screen) == [glyph(0)]
    assert ints(count) == [dcards.KINDS[0].per_colour] and ints(points) == [dcards.KINDS[0].points]
    name, screen, count, points = named[words["numbers"]]
    assert codes(screen) == [glyph(1), glyph(9)]
    for rank in range(1, 10):
        assert dcards.KINDS[rank].per_colour == ints(count)[0], rank
        assert dcards.KINDS[rank].points == rank  # « their number »
    assert points == words["face_value"]
    for rank, key in symbols.items():
        kind = dcards.KINDS[rank]
        name, screen, count, points = named[t(f"kind.{key}")]
        assert codes(screen) == [glyph(rank)], name
        assert ints(count) == [kind.per_colour or kind.wild], name
        assert ints(points) == [kind.points], name
    need = titled(text, words["need"])  # 2 to 10 players; 108 cards
    assert ints(need)[2:] == [dcards.DECK_SIZE] == [sum(k.per_colour * len(dcards.COLOURS)
                                                        + k.wild for k in dcards.KINDS)]


@LANG
def test_defausse_deal_target_and_options(lang: str) -> None:
    t = Catalogue(lang)
    text = page("defausse", lang)
    assert one(WORDS[lang]["deal"], text) == (HAND_SIZE,)
    _, rows = table(text, WORDS[lang]["option"])
    named = by_name(rows)
    assert list(named) == [t(f"opt.{spec.name}") for spec in GAME_UIS["defausse"].options]
    target = next(s for s in GAME_UIS["defausse"].options if s.name == "target")
    assert ints(named[t("opt.target")][1]) == [DEFAULT_OPTIONS["target"], *TARGET_RANGE]
    assert (target.default, target.low, target.high) == (DEFAULT_OPTIONS["target"],
                                                         *TARGET_RANGE)
    # The end of the game names the default target.
    assert ints(titled(text, WORDS[lang]["end"])) == [DEFAULT_OPTIONS["target"]]


@cache
def penalties(games: int) -> dict[str, Counter[int]]:
    """The cards drawn as a penalty in random games with the option annonce, by cause: a +2
    or a Joker +4 laid, or a missing announcement caught."""
    found: dict[str, Counter[int]] = {"plus2": Counter(), "joker4": Counter(),
                                      "catch": Counter()}
    rng = random.Random(14)
    for seed in range(games):
        state = new_game(3, {"annonce": True, "target": 100}, seed)
        while to_act(state):
            others = interjectors(state)
            if others and rng.random() < 0.5:
                seat = rng.choice(others)
                action = legal_actions(state, seat)[0]
            else:
                seat = to_act(state)[0]
                action = rng.choice(legal_actions(state, seat))
            events = apply(state, seat, action)
            cause = ("catch" if isinstance(action, Catch) else
                     {dcards.PLUS2: "plus2", dcards.JOKER4: "joker4"}.get(
                         dcards.RANK[action.card], "") if isinstance(action, Play) else "")
            for event in events:
                if event.kind == "penalty" and cause:
                    found[cause][event.args[0]] += 1
    return found


@LANG
def test_defausse_the_cards_drawn_are_the_engines(lang: str) -> None:
    """The +2, the Joker +4 and a catch (option annonce): the cards the page says are drawn
    are those the engine deals out, in random games (all but when the piles run short)."""
    t = Catalogue(lang)
    text = page("defausse", lang)
    draws = WORDS[lang]["draws"]
    said = {key: one(rf"\*\*{re.escape(t(f'kind.{key}'))}\*\*[^\n]*?{draws}", text)[0]
            for key in ("plus2", "joker4")}
    _, rows = table(text, WORDS[lang]["option"])
    said["catch"] = ints(by_name(rows)[t("opt.annonce")][1])[-1]
    for cause, counts in penalties(40).items():
        assert counts, f"no {cause} in the games played"
        assert counts.most_common(1)[0][0] == said[cause] == max(counts), cause


# --- Collection -------------------------------------------------------------------------------


@LANG
def test_collection_cards_glyphs_and_counts(lang: str) -> None:
    t = Catalogue(lang)
    letters = t("col.letters")
    text = page("collection", lang)
    _, rows = table(text, WORDS[lang]["card"])
    classic, rainbow, shadow, *specials = rows
    red3 = next(c for c in range(ccards.CARD_COUNT)
                if ccards.KIND[c] == ccards.CLASSIC and ccards.COLOUR[c] == 0
                and ccards.VALUE[c] == 3)
    assert codes(classic[1]) == [collection_cards.face(red3, letters)]
    assert ints(classic[2]) == [
        len(ccards.COLOURS) * len(ccards.VALUES) * ccards.COPIES, len(ccards.COLOURS),
        min(ccards.VALUES), max(ccards.VALUES), ccards.COPIES]
    assert ccards.KIND.count(ccards.CLASSIC) == ints(classic[2])[0]
    for row, kind in ((rainbow, ccards.RAINBOW), (shadow, ccards.SHADOW)):
        card = ccards.KIND.index(kind)
        assert codes(row[1]) == [collection_cards.face(card, letters)]
        assert ints(row[2]) == [ccards.KIND.count(kind)]
    assert [row[0] for row in specials] == list(ccards.SPECIALS)
    for i, row in enumerate(specials):
        card = ccards.FIRST_SPECIAL + i
        assert codes(row[1]) == [collection_cards.face(card, letters)]
        assert ints(row[2]) == [ccards.DECKS["classique"].count(card)]
        assert card not in ccards.DECKS["decouverte"]
    need = titled(text, WORDS[lang]["need"])  # 2 to 6 players; 78 cards (Classique), 72
    assert ints(need)[2:] == [len(ccards.DECKS["classique"]), len(ccards.DECKS["decouverte"])]


@LANG
def test_collection_stop_rule(lang: str) -> None:
    """The page's two STOP conditions, tried on the engine's own check."""
    text = page("collection", lang)
    same_value, same_colour = re.findall(r"^- .*?(\d+).*$", titled(text, WORDS[lang]["stop"]),
                                         flags=re.M)[:2]
    red = [c for c in range(ccards.CARD_COUNT)
           if ccards.KIND[c] == ccards.CLASSIC and ccards.COLOUR[c] == 0]
    threes = [c for c in range(ccards.CARD_COUNT)
              if ccards.KIND[c] == ccards.CLASSIC and ccards.VALUE[c] == 3]
    n = int(same_value)  # the last n cards of one value: two 3s, each of another colour
    assert stop_reason(threes[2:n + 1], threes[0]) == "valeur"
    assert stop_reason(threes[2:n], threes[0]) is None
    rainbow = ccards.KIND.index(ccards.RAINBOW)
    assert stop_reason([*threes[2:n + 1], rainbow], threes[0]) is None  # a Rainbow breaks it
    n = int(same_colour)  # the last n cards of one colour, values 1, 2, 3…
    run = [next(c for c in red if ccards.VALUE[c] == v) for v in range(1, n + 1)]
    assert stop_reason(run[:-1], run[-1]) == "couleur"
    assert stop_reason(run[1:-1], run[-1]) is None


@LANG
def test_collection_special_cards_numbers(lang: str) -> None:
    words = WORDS[lang]
    text = page("collection", lang)
    assert one(words["reserve"], text) == (ccards.RESERVE_SLOTS,)
    assert one(words["double"], text) == (ccards.DOUBLE_DRAWS,)
    assert one(words["quantique"], text) == (ccards.QUANTIQUE_CARDS,)


def cards_where(test: Callable[[int], bool]) -> list[int]:
    return [c for c in range(ccards.CARD_COUNT) if test(c)]


@LANG
def test_collection_scorecard_is_what_the_engine_scores(lang: str) -> None:
    """Each objective's points in the page are those the engine's solver gives for the best
    combination of the whole deck's classic cards; with a Shadow standing in, the bonus the page
    says more; Suite pure's two forms, from three Rainbows and from three Shadows."""
    t = Catalogue(lang)
    text = page("collection", lang)
    _, rows = table(text, WORDS[lang]["number"])
    assert [int(row[0]) for row in rows] == [o.number for o in ccards.OBJECTIVES]
    classic = cards_where(lambda c: ccards.KIND[c] == ccards.CLASSIC)
    rainbows = cards_where(lambda c: ccards.KIND[c] == ccards.RAINBOW)
    shadows = cards_where(lambda c: ccards.KIND[c] == ccards.SHADOW)
    bonus = one(r"`◆`[^.]*?\+(\d+)", text)[0]
    assert bonus == ccards.SHADOW_WILD_BONUS

    def scored(cards: list[int], objective: int) -> int:
        return total_points(best_selection(cards, (objective,)))

    for number, name, _needs, points in rows[:-1]:
        objective = int(number)
        assert name == t(f"obj.{objective}")
        assert [scored(classic, objective)] == ints(points), name
        assert scored([*classic, shadows[0]], objective) == ints(points)[0] + bonus, name
        assert scored([*classic, rainbows[0]], objective) == ints(points)[0], name
    number, name, needs, points = rows[-1]
    assert name == t("obj.10")
    size = ccards.SUITE_LENGTH
    assert ints(needs) == [size, size]
    assert ints(points) == [scored(rainbows[:size], 10), scored(shadows[:size], 10)]
    assert scored(rainbows[:size - 1] + shadows[:1], 10) == 0  # no stand-in


@LANG
def test_collection_modes_and_end_of_game(lang: str) -> None:
    t = Catalogue(lang)
    words = WORDS[lang]
    text = page("collection", lang)
    spec = GAME_UIS["collection"].options[0]
    header, rows = table(text, t("opt.mode"))
    assert header[1:] == [t(f"opt.mode.{mode}") + (words["default"] if mode == spec.default
                                                   else "") for mode in spec.choices]
    assert set(spec.choices) == set(ccards.MODES)
    cards_row, rounds_row, winner_row = rows
    modes = [ccards.MODES[mode] for mode in spec.choices]
    assert [ints(cell)[0] for cell in cards_row[1:]] == [len(ccards.DECKS[m.name]) for m in modes]
    assert [ints(cell) for cell in rounds_row[1:]] == [[m.max_rounds] for m in modes]
    for cell, mode in zip(winner_row[1:], modes, strict=True):
        first = "points" if cell.index("points") < cell.index("objecti") else "objectives"
        assert first == mode.ranking, cell
    end = titled(text, words["end"])  # all 10 objectives, or the last round: 5 or 3
    assert ints(end) == [len(ccards.OBJECTIVES), *(m.max_rounds for m in modes)]

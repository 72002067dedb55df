"""Collection's narrator: every event of real games told in French and English, the cards a
Flip or a Quantique showed named to their player only; ``pioche replay`` of a Collection log."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from pioche_tui.cli import main
from pioche_tui.engine import GAMES
from pioche_tui.engine.base import Event
from pioche_tui.engine.collection.cards import COLOUR, QUANTIQUE, VALUE
from pioche_tui.i18n import Catalogue
from pioche_tui.narrate import narrator
from pioche_tui.narrate.collection import card_name, narrate
from pioche_tui.store.log import LogWriter

GAME = GAMES["collection"]
NAMES = ("Alice", "Basile", "Chloé", "Dan")
KINDS = {
    "round", "draw", "rainbow", "shadow", "special", "bust", "stop", "lock", "reserve",
    "shadow_discard", "shadow_new_pile", "joker", "keep", "activate", "flip", "quantique",
    "skip", "lost", "round_end", "validated", "validate", "game_end",
}
"""Every kind of event the Collection engine emits."""


def play(seed: int, log: LogWriter | None = None) -> list[Event]:
    """A whole four-seat game of random and basic bots: its events, as the engine made them."""
    state = GAME.new_game(4, {}, seed)
    rng = random.Random(seed)
    bots = [GAME.bot(name) for name in ("random", "basic", "random", "basic")]
    events: list[Event] = []
    while actors := GAME.to_act(state):
        seat = actors[0]
        action = bots[seat].choose(state, seat, GAME.legal_actions(state, seat), rng)
        events += GAME.apply(state, seat, action)
        if log is not None:
            log.append_action(seat, GAME.action_to_wire(action))
    return events


@pytest.fixture(scope="module")
def events() -> list[Event]:
    return [event for seed in range(3) for event in play(seed)]


def test_the_game_is_narrated(events: list[Event]) -> None:
    assert narrator("collection") is narrate


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_event_is_told_in_both_languages(events: list[Event], lang: str) -> None:
    t = Catalogue(lang)
    assert {e.kind for e in events} == KINDS  # these games hold every kind
    for event in events:
        for seen in (event, event.seen_by(None)):
            lines = narrate([seen], NAMES, t)
            assert len(lines) == 1 and lines[0].strip(), event
            assert "{" not in lines[0] and "?" not in lines[0], event


def test_what_a_flip_or_a_quantique_showed_is_told_to_its_player_only(
        events: list[Event]) -> None:
    t = Catalogue("fr")
    flip = next(e for e in events if e.kind == "flip")
    own = narrate([flip], NAMES, t)[0]
    assert own.startswith("dessus de A : ") and ", de B : " in own
    assert narrate([flip.seen_by(None)], NAMES, t) == [
        f"{NAMES[flip.seat or 0]} regarde le dessus des deux pioches"]
    quantique = next(e for e in events if e.kind == "quantique" and len(e.secret) == 3)
    own = narrate([quantique], NAMES, t)[0]
    assert own == "3 cartes prises : " + ", ".join(card_name(t, c) for c in quantique.secret)
    other = quantique.seen_by((quantique.seat or 0) + 1)
    assert narrate([other], NAMES, t) == ["3 cartes prises"]


def test_an_action_and_what_it_causes_make_one_line() -> None:
    t = Catalogue("fr")
    red3, blue3 = 4, 40  # a 3 rouge and a 3 bleu (cards.py: colour × 12 + (value − 1) × 2)
    assert (VALUE[red3], COLOUR[red3], VALUE[blue3], COLOUR[blue3]) == (3, 0, 3, 3)
    events = [Event("draw", 1, (0, blue3)), Event("bust", 1, ((red3, blue3), "valeur")),
              Event("activate", 0, (QUANTIQUE, None, 1)), Event("quantique", 0, (1, 2))]
    assert narrate(events, NAMES, t) == [
        "Basile pioche en A : 3 bleu — deux 3 de suite : pile perdue (2 cartes)",
        "Alice joue Quantique sur la pioche B — 2 cartes prises",
    ]
    en = Catalogue("en")
    assert narrate([Event("validate", 2, ((1, (0, 1), 10), (3, (2, 3, 66), 30)))], NAMES,
                   en) == ["Chloé validates Pair (10), Three alike (30)"]
    assert narrate([Event("game_end", None, (0, 3))], NAMES, t) == [
        "Partie terminée : Alice et Dan l'emportent."]


SEATS = [{"kind": "player", "name": name, "identity": f"SHA256:{name}", "bot": "basic"}
         for name in NAMES]


def test_replay_of_a_collection_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "COLL.log"
    options = dict(GAME.options({}))
    writer = LogWriter.create(path, {"table": "COLL", "game": "collection",
                                     "options": options, "seed": 1, "seats": SEATS})
    play(1, writer)
    writer.end("finished")
    writer.close()
    assert main(["replay", str(path), "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Collection · table COLL")
    assert "prises :" not in out and "dessus de A" not in out  # a spectator's story
    assert re.search(r"\d+ Alice pioche en [AB] : ", out)
    assert "Partie terminée" in out and "Gagnant" in out
    assert main(["replay", str(path), "--seat", "0", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "draws from" in out and "Winner" in out

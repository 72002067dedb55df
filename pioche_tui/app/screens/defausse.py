"""The Défausse table: the seats, the discard and the draw pile, the log, the prompt, the hand.

Each view is split into slices — the hand, the discard and its info, the seats strip, the
prompt — and each widget is given only its own; a widget whose slice did not change is not
repainted (reactives skip equal values).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, cast

from rich.cells import cell_len
from rich.text import Text
from textual.app import CSSPathType
from textual.binding import Binding, BindingType
from textual.widget import Widget

from widgets.board import DefausseBoard
from widgets.defausse_cards import text_colour
from widgets.hand import Hand
from widgets.lines import TextLine, fit

from ...coordinator.model import TableUpdate
from ...engine.defausse import Catch, ChooseColour, DefausseView, Draw, Keep, Play
from ...engine.defausse.cards import COLOUR, JOKER4, PLUS2, RANK, WILD
from ...engine.defausse.rules import RoundResult
from ...narrate.defausse import KIND_KEYS, card_name
from .table import TableScreen

GAME_KEYS = {"draw", "take", "pass", "keep", "announce", "catch"}
NAME_WIDTH = 12  # cells for a name in the seats' rows (longer names end with …)


class DefausseTableScreen(TableScreen):
    CSS_PATH: ClassVar[CSSPathType | None] = ["table.tcss", "defausse.tcss"]
    AUTO_FOCUS = "#hand"
    BINDINGS: ClassVar[list[BindingType]] = [
        # One key, three meanings: only the one that applies is ever active.
        Binding("d", "draw", "key.draw", tooltip="help.draw"),
        Binding("d", "take", "key.take", tooltip="help.take"),
        Binding("d", "pass", "key.pass", tooltip="help.pass"),
        Binding("k", "keep", "key.keep", tooltip="help.keep"),
        Binding("a", "announce", "key.announce", tooltip="help.announce"),
        Binding("x", "catch", "key.catch", tooltip="help.catch"),
    ]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.letters = self.t("colour.letters")
        self._picker_step: int | None = None  # the step a colour was asked for
        self._why = False  # the prompt line says why a card may not be played

    @property
    def view(self) -> DefausseView | None:
        return cast("DefausseView | None", self.update.view)

    # --- layout ---------------------------------------------------------------------------

    def compose_board(self) -> Iterable[Widget]:
        yield DefausseBoard(self.letters, id="board")

    def compose_controls(self) -> Iterable[Widget]:
        yield TextLine(id="prompt")
        yield Hand(self.letters, id="hand")

    def on_mount(self) -> None:
        # Textual calls this before TableScreen.on_mount (each class's handler, subclass
        # first), which shows the first view: the widgets the updates touch, found once.
        self.board = self.query_one(DefausseBoard)
        self.prompt_line = self.query_one("#prompt", TextLine)
        self.hand = self.query_one(Hand)
        self.watch(self.hand, "cursor", self._cursor_moved, init=False)

    def focus_game(self) -> None:
        if self.seat is not None:
            self.hand.focus()
        else:
            self.set_focus(None)

    # --- views ----------------------------------------------------------------------------

    def header_extra(self, update: TableUpdate) -> str:
        view = cast("DefausseView | None", update.view)
        if view is None:
            return ""
        return f"{self.t('df.round', n=view.round)}  ·  {self.t('df.target', n=view.target)}"

    def show_view(self, update: TableUpdate) -> None:
        view = self.view
        assert view is not None
        me = update.seat
        my_turn = me is not None and view.current == me
        if me is not None:  # a spectator has no hand (the widget is hidden)
            playable = frozenset(a.card for a in view.legal if isinstance(a, Play))
            self.hand.show(view.hand, playable, my_turn and view.phase in ("play", "after_draw"),
                           view.drawn if my_turn else None)
        self.board.show(self.seat_lines(update, view), view.top, self.pile_info(view))
        self.prompt_line.text = self.prompt(view, me)
        self._why = False
        if my_turn and view.phase == "choose_colour" and self._picker_step != update.step:
            self._picker_step = update.step
            self.ask_colour(lambda colour: self.act(ChooseColour(colour)))

    def pile_info(self, view: DefausseView) -> tuple[Text, ...]:
        t = self.t
        if view.colour is None:
            colour = Text(t("df.no_colour"))
        else:
            colour = Text(t("df.colour", colour="")).append(
                f"{t(f'colour.{view.colour}')} ({self.letters[view.colour]})",
                text_colour(view.colour))
        info = [colour, Text(t(f"df.direction.{view.direction}")),
                Text(t("df.draw_pile", n=view.draw_size))]
        if view.pending:
            info.append(Text(t("df.pending", n=view.pending), "bold"))
        return tuple(info)

    def seat_lines(self, update: TableUpdate, view: DefausseView) -> tuple[Text, ...]:
        t = self.t
        seats = update.table.seats
        lines = []
        width = min(NAME_WIDTH, max((cell_len(s.name) for s in seats), default=4))
        for i, seat in enumerate(seats):
            current = view.current == i
            line = Text("► " if current else "  ", "bold")
            name = fit(seat.name, width)
            name.style = "bold" if current or i == update.seat else ""
            line.append_text(name)
            line.append(f" {t.count('n.cards', view.counts[i]):>9}")
            line.append(f" {t.count('n.points', view.scores[i]):>7}")
            marks = self.seat_marks(i, seat)
            if view.announced[i] and view.counts[i] == 1:
                marks.append(t("df.announced"))
            if marks:
                line.append("  " + ", ".join(marks), "dim")
            lines.append(line)
        return tuple(lines)

    def prompt(self, view: DefausseView, me: int | None) -> Text:
        """What to do now. A catch to make comes first (it lasts until the next move), then
        the rest of the line, cut if it must be at 80 columns."""
        text = self.turn_prompt(view, me)
        if me is not None and view.catchable is not None and any(
                isinstance(a, Catch) for a in view.legal):
            catch = Text(self.t("df.can_catch", name=self.name_of(view.catchable)), "bold")
            text = catch.append("  ").append_text(text)
        return text

    def turn_prompt(self, view: DefausseView, me: int | None) -> Text:
        t = self.t
        if view.outcome is not None:
            return Text(t("df.over"), "bold")
        if me is None or view.current != me:
            return Text(t("df.turn_of", name=self.name_of(view.current)))
        announce = any(isinstance(a, Play) and a.announce for a in view.legal)
        if view.phase == "choose_colour":
            key = "df.choose_colour"
        elif view.phase == "after_draw" and view.drawn is not None:
            # A card that does not fit is kept with a key too: the table waits the same.
            fits = any(isinstance(a, Play) for a in view.legal)
            key = ("df.after_draw_announce" if announce else
                   "df.after_draw" if fits else "df.after_draw_keep")
            return Text(t(key, card=card_name(t, view.drawn)), "bold")
        elif view.pending:
            answer = t("kind.plus2") if RANK[view.top] == PLUS2 else t("kind.joker4")
            return Text(t("df.pending_turn", answer=answer, n=view.pending), "bold")
        elif announce:  # laying the second-to-last card: how not to be caught
            key = "df.your_turn_announce"
        elif any(isinstance(a, Play) for a in view.legal):
            key = "df.your_turn"
        elif self._draw_kind(view) == "pass":
            key = "df.nothing"
        else:
            key = "df.your_turn_no_play"
        return Text(t(key), "bold")

    def why_not(self, view: DefausseView, card: int) -> str:
        """Which rule keeps ``card`` from being played now, in a sentence."""
        t = self.t
        if view.outcome is not None:
            return t("df.over")
        if view.current != self.seat:
            return t("df.why.turn", name=self.name_of(view.current))
        if view.phase == "choose_colour":
            return t("df.choose_colour")
        if view.phase == "after_draw" and view.drawn is not None and card != view.drawn:
            return t("df.why.drawn", card=card_name(t, view.drawn))
        if view.pending:
            answer = t("kind.plus2") if RANK[view.top] == PLUS2 else t("kind.joker4")
            return t("df.why.pending", n=view.pending, answer=answer)
        colour = t(f"colour.{view.colour}") if view.colour is not None else "?"
        if RANK[card] == JOKER4:
            return t("df.why.joker4", colour=colour)
        if COLOUR[view.top] == WILD:  # a Joker on top: only its colour
            return t("df.why.colour", card=card_name(t, card), colour=colour)
        rank = RANK[view.top]
        kind = KIND_KEYS.get(rank)
        what = t("df.why.kind", kind=t(kind)) if kind else t("df.why.number", n=rank)
        return t("df.why.match", card=card_name(t, card), colour=colour, what=what)

    def on_hand_refused(self, message: Hand.Refused) -> None:
        message.stop()
        view = self.view
        if view is not None and self.seat is not None:
            self.prompt_line.text = Text(self.why_not(view, message.card), "bold")
            self._why = True

    def _cursor_moved(self) -> None:
        """Another card chosen: the prompt comes back in place of the reason."""
        view = self.view
        if self._why and view is not None:
            self._why = False
            self.prompt_line.text = self.prompt(view, self.seat)

    def round_summary_at(self, update: TableUpdate) -> tuple[int, int, list[Text]] | None:
        """After the line of the last round's end (the podium follows the game's last)."""
        view = cast("DefausseView | None", update.view)
        ends = [i for i, e in enumerate(update.events) if e.kind == "round_end"]
        if not ends or view is None or view.last_round is None or view.outcome is not None:
            return None
        return ends[-1] + 1, ends[-1] + 1, self.round_summary(view.last_round, view.scores)

    def round_summary(self, result: RoundResult, scores: tuple[int, ...]) -> list[Text]:
        """Under the line that says who won the round and what it scored: the points left in
        each hand, then the totals, best first (each wraps on a second row at many seats)."""
        t = self.t
        names = self.names
        hands = ", ".join(f"{names[s]} {p}" for s, p in enumerate(result.hand_points)
                          if s < len(names))
        order = sorted(range(min(len(scores), len(names))), key=lambda s: (-scores[s], s))
        totals = Text(t("tev.summary_totals", totals=""), "bold")
        for i, seat in enumerate(order):
            if i:
                totals.append(", ")
            totals.append(f"{names[seat]} {scores[seat]}",
                          "bold" if seat == result.winner else "")
        return [Text("  " + t("tev.summary_hands", hands=hands), "dim"),
                Text("  ").append_text(totals)]

    def end_reason(self, update: TableUpdate) -> str:
        """The target reached (by the best scores), or the single round played."""
        view = cast("DefausseView | None", update.view)
        if view is None or view.outcome is None:
            return ""
        t = self.t
        if update.table.option("single_round"):
            return t("tev.end.single")
        reached = [self.names[s] for s, p in enumerate(view.outcome.scores)
                   if p >= view.target and s < len(self.names)]
        return t.count("tev.end.target", len(reached), names=t.names(reached),
                       target=view.target)

    # --- keys -----------------------------------------------------------------------------

    @staticmethod
    def _draw_kind(view: DefausseView) -> str | None:
        """What d does now: "take" the pending cards, "pass" (nothing left to draw), "draw"."""
        if not any(isinstance(a, Draw) for a in view.legal):
            return None
        if view.pending:
            return "take"
        if view.draw_size == 0 and view.discard_size <= 1:
            return "pass"
        return "draw"

    def key_state(self) -> tuple[Any, ...]:
        view = self.view
        if view is None:
            return super().key_state()
        hand = self.hand
        return (*super().key_state(), self._draw_kind(view),
                hand.active and hand.selected in hand.playable,
                *(any(isinstance(a, kind) for a in view.legal) for kind in (Keep, Catch)),
                any(isinstance(a, Play) and a.announce for a in view.legal))

    def check_game_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if view is None or action not in GAME_KEYS:
            return False
        if action in ("draw", "take", "pass"):
            return self._draw_kind(view) == action
        if action == "keep":
            return any(isinstance(a, Keep) for a in view.legal)
        if action == "announce":
            return any(isinstance(a, Play) and a.announce for a in view.legal)
        return any(isinstance(a, Catch) for a in view.legal)

    def action_draw(self) -> None:
        self.act(Draw())

    action_take = action_draw
    action_pass = action_draw

    def action_keep(self) -> None:
        self.act(Keep())

    def action_catch(self) -> None:
        view = self.view
        if view is not None:
            for action in view.legal:
                if isinstance(action, Catch):
                    self.act(action)
                    return

    def action_announce(self) -> None:
        card = self.hand.selected
        view = self.view
        if card is not None and view is not None and any(
                isinstance(a, Play) and a.announce and a.card == card for a in view.legal):
            self.play(card, announce=True)

    def on_hand_play(self, message: Hand.Play) -> None:
        message.stop()
        self.play(message.card)

    def play(self, card: int, announce: bool = False) -> None:
        """Lay ``card``; a Joker asks for its colour first."""
        if COLOUR[card] != WILD:
            self.act(Play(card, None, announce))
            return
        step = self.update.step

        def chosen(colour: int) -> None:
            if self.update.step == step:  # nothing changed while the player chose
                self.act(Play(card, colour, announce))

        self.ask_colour(chosen)

    def most_held_colour(self) -> int:
        """The colour of most cards in the player's hand (the first of those tied; red when
        the hand holds only Jokers): the colour dialog starts there."""
        view = self.view
        counts = [0] * len(self.letters)
        for card in view.hand if view is not None else ():
            if COLOUR[card] != WILD:
                counts[COLOUR[card]] += 1
        return counts.index(max(counts))

    def ask_colour(self, then: Callable[[int], None]) -> None:
        from .colour import ColourPicker

        def picked(colour: int | None) -> None:
            if colour is not None:
                then(colour)

        self.ask_for_turn(ColourPicker(self.letters, self.most_held_colour()), picked)

"""The Collection table: the draw piles with your risk on each, every seat in a compact row, your
pile with what would stop it, your reserve and collection beside your scorecard, the log, the
prompt.

Choices that need more than a key — the target of a Double, a Passe Ton Tour or a Swipe, the
draw pile of a Quantique, the card to keep from a Quantique, the combinations to validate at the
end of a round — are asked in a list that takes the log's place (no window over the table during
play: docs/performance.md says why); so does the game's final summary. A round's summary goes
in the log, where it hides nothing of the next round (docs/screens.md).

Each view is split into slices, and each widget given only its own: the board (one widget)
repaints only the rows that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, ClassVar, cast

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import CSSPathType
from textual.binding import Binding, BindingType
from textual.widget import Widget

from widgets.choices import ChoiceList
from widgets.collection_board import CollectionBoard
from widgets.collection_cards import (
    by_value,
    chip,
    chips,
    colour_groups,
    colour_text_style,
    grouped,
    last_chips,
)
from widgets.lines import TextLine, fit

from ...coordinator.model import Refused, TableUpdate
from ...engine.collection.actions import (
    LOCK,
    PLAY_JOKER,
    RESERVE,
    STOP,
    Action,
    Activate,
    Draw,
    Keep,
    ShadowChoice,
    Validate,
)
from ...engine.collection.cards import (
    CLASSIC,
    COLOUR,
    JOKER,
    KIND,
    OBJECTIVES,
    SPECIAL,
    SWIPE,
    VALUE,
)
from ...engine.collection.objectives import Combination, points_of
from ...engine.collection.views import CollectionView, SeatView
from ...narrate.collection import card_name
from .table import TableScreen

GAME_KEYS = {"draw", "lock", "stop", "reserve", "activate_held", "activate", "shadow", "joker",
             "compose"}
COMPOSING = ("compose_objective", "compose_cards")  # questions asked on the way from validation
NAME_WIDTH = 11  # cells for a name in the seats' rows (longer names end with …)
MARKS_WIDTH = 3  # a skipped turn (⊘) and Doubles (+2) waiting for a seat
PILE_WIDTH = 17  # a seat's last pile cards
RESERVE_WIDTH = 8  # two short special names
ENDLESS = 365 * 24 * 3600.0  # the final summary stays until the player leaves
PILES = "AB"


class CollectionTableScreen(TableScreen):
    CSS_PATH: ClassVar[CSSPathType | None] = ["table.tcss", "collection.tcss"]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "draw(0)", "key.draw", tooltip="help.draw_a"),
        Binding("b", "draw(1)", "key.draw", tooltip="help.draw_b"),
        Binding("v", "lock", "key.lock", tooltip="help.lock"),
        Binding("s", "stop", "key.stop", tooltip="help.stop"),
        Binding("e", "activate_held", "key.activate", tooltip="help.activate_held"),
        Binding("r", "reserve", "key.reserve", tooltip="help.reserve"),
        Binding("1", "activate(0)", "key.activate_reserve", tooltip="help.activate_reserve"),
        Binding("2", "activate(1)", "key.activate_reserve", tooltip="help.activate_reserve"),
        Binding("k", "shadow(True)", "key.keep_pile", tooltip="help.keep_pile"),
        Binding("n", "shadow(False)", "key.new_pile", tooltip="help.new_pile"),
        Binding("j", "joker", "key.joker", tooltip="help.joker"),
        Binding("a", "compose", "key.compose", tooltip="help.compose"),
    ]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.letters = self.t("col.letters")
        self.choosing = ""  # the question the choice list asks: target, quantique, validation
        self._choice_legal: tuple[Action, ...] = ()  # the legal actions when it was asked
        self.choice_answers: tuple[Any, ...] = ()  # what each option stands for
        self._detail_seat = 0  # the seat a spectator sees in detail (the last to play)
        self._parts: dict[str, tuple[Any, Any]] = {}  # the board's parts, by what they show
        # Validation: combinations the player made up (any the rules accept can be), what was
        # ticked when they left the list to make one, the objective being made up.
        self.composed: list[Combination] = []
        self.ticks: set[Combination] | None = None
        self.composing = 0
        self._pile_b_at = self._piles_end = 0  # pile B's first cell, the piles' end (clicks)

    @property
    def view(self) -> CollectionView | None:
        return cast("CollectionView | None", self.update.view)

    # --- layout ---------------------------------------------------------------------------

    def compose_board(self) -> Iterable[Widget]:
        yield CollectionBoard(self.letters, id="board")

    def compose_controls(self) -> Iterable[Widget]:
        yield ChoiceList(id="choices")  # in the log's place when shown (the log is hidden)
        yield TextLine(id="prompt")

    def on_mount(self) -> None:
        # Textual calls this before TableScreen.on_mount (each class's handler, subclass
        # first), which shows the first view: the widgets the updates touch, found once.
        self.board = self.query_one(CollectionBoard)
        self.prompt_line = self.query_one("#prompt", TextLine)
        self.choices = self.query_one(ChoiceList)
        self.choices.display = False

    def on_click(self, event: events.Click) -> None:
        """A click on a draw pile (the board's first line) draws from it, when a draw is
        what the player may do."""
        if event.widget is not self.board:
            return
        offset = event.get_content_offset(self.board)
        if offset is None or offset.y != 0 or offset.x >= self._piles_end:
            return
        pile = 0 if offset.x < self._pile_b_at else 1
        if self.check_action("draw", (pile,)):
            self.action_draw(pile)

    def focus_game(self) -> None:
        if self.choosing:
            self.choices.focus()
        else:
            self.set_focus(None)

    # --- views ----------------------------------------------------------------------------

    def header_extra(self, update: TableUpdate) -> str:
        view = cast("CollectionView | None", update.view)
        if view is None:
            return ""
        t = self.t
        return (f"{t('col.round', n=view.round, max=view.max_rounds)}  ·  "
                f"{t('opt.mode.' + view.mode)}")

    def show_view(self, update: TableUpdate) -> None:
        view = self.view
        assert view is not None
        seat = self.detail_seat(view)
        shown = view.seats[seat]
        held = view.held if view.current == seat and view.phase in ("shadow", "special") else ()
        # Each part is rebuilt only when what it shows changed (most of a move changes one
        # seat's row and a line or two); the board redraws only when a part is new.
        cached = self.cached
        self.board.show(
            cached("draw", (view.draw_sizes, view.peek, view.risk, view.discard_size),
                   lambda: self.draw_line(view)),
            [cached("head", self.names, self.seat_header),
             *(cached(f"seat{s.seat}", self.seat_key(view, s), partial(self.seat_row, view, s))
               for s in view.seats)],
            cached("label", (seat, self.names), lambda: self.pile_label(seat)),
            shown.pile,
            cached("detail", (shown.pile, shown.reserve, held), lambda: self.detail(shown, held)),
            cached("collection", shown.collection, lambda: self.collection_line(shown)),
            cached("scorecard", (shown.scorecard, shown.total), lambda: self.scorecard(shown)))
        self.prompt_line.text = self.prompt(view)
        self.sync_choice(view)
        if view.outcome is not None and any(event.kind == "validate" for event in update.events):
            self.show_summary(view)  # everybody has validated the last round

    def cached(self, part: str, key: Any, build: Callable[[], Any]) -> Any:
        """``build()``, or the value it gave last time for ``part`` if ``key`` is the same."""
        hit = self._parts.get(part)
        if hit is not None and hit[0] == key:
            return hit[1]
        value = build()
        self._parts[part] = (key, value)
        return value

    def detail_seat(self, view: CollectionView) -> int:
        """The seat shown in detail: yours; for a spectator, whoever plays (or played last)."""
        if self.seat is not None:
            return self.seat
        if view.current is not None:
            self._detail_seat = view.current
        return min(self._detail_seat, len(view.seats) - 1)

    def draw_line(self, view: CollectionView) -> tuple[Text, Text]:
        """Both draw piles: their sizes, what a Flip showed you on top, your risk on each —
        said once when it is the same on both (as it is unless a Flip showed a card: both
        piles come from the same unseen cards), so nobody looks for a difference; then the
        discard's size, which the board leaves out when the line is too long for it."""
        t = self.t
        line = Text()
        risks = view.risk if view.risk is not None else (None, None)
        percents = [None if risk is None else round(risk * 100) for risk in risks]
        same = percents[0] if percents[0] is not None and percents[0] == percents[1] else None
        for pile in (0, 1):
            if pile:
                line.append("   ")
                self._pile_b_at = line.cell_len
            line.append(t("col.draw_pile", pile=PILES[pile], n=view.draw_sizes[pile]), "bold")
            top = view.peek[pile]
            if top is not None:
                line.append(f" · {t('col.top')} ")
                line.append_text(chip(top, self.letters))
            percent = percents[pile]
            if percent is not None and same is None:
                line.append(" · " + t("col.risk", p=percent), "bold" if percent >= 50 else "")
        self._piles_end = line.cell_len
        if same is not None:
            line.append("   " + t("col.risk_same", p=same), "bold" if same >= 50 else "")
        return line, Text("   " + t("col.discard", n=view.discard_size), "dim")

    def name_width(self) -> int:
        return min(NAME_WIDTH, max((cell_len(n) for n in self.names), default=4))

    def seat_header(self) -> Text:
        """The header over the seats' rows."""
        t = self.t
        head = Text("  ", "dim")
        for text, size in ((t("col.head.player"), self.name_width() + MARKS_WIDTH + 2),
                           (t("col.head.pile"), PILE_WIDTH + 2),
                           (t("col.head.reserve"), RESERVE_WIDTH + 2),
                           (t("col.head.objectives"), 12), (t("col.head.points"), 6),
                           (t("col.head.collection"), 0)):
            head.append_text(fit(text, size) if size else Text(text))
        return head

    def seat_key(self, view: CollectionView, seat: SeatView) -> tuple[Any, ...]:
        """Everything a seat's row shows."""
        s = seat.seat
        seats = self.update.table.seats
        return (seat, view.current == s, view.phase == "validation", self.names,
                s < len(seats) and seats[s].away)

    def seat_row(self, view: CollectionView, seat: SeatView) -> Text:
        """One seat: what waits for them, the pile's last cards, the reserve, the scorecard (a
        digit per objective validated), the points, the collection."""
        s = seat.seat
        if view.phase == "validation":
            marker = "✓ " if seat.validated else "  "
        else:
            marker = "► " if view.current == s else "  "
        row = Text().append(marker, "bold")
        name = fit(self.name_of(s), self.name_width())
        if s == self.seat or view.current == s:
            name.stylize("bold")
        if s < len(self.update.table.seats) and self.update.table.seats[s].away:
            name.stylize("dim")
        row.append_text(name)
        marks = ("⊘" if seat.skips else "") + (f"+{2 * seat.doubles}" if seat.doubles else "")
        row.append(" " + fit(marks, MARKS_WIDTH).plain + " ", "bold")
        pile = last_chips(seat.pile, self.letters, PILE_WIDTH) if seat.pile else Text("—")
        row.append_text(fit(pile, PILE_WIDTH + 2))
        reserve = chips(seat.reserve, self.letters) if seat.reserve else Text("—")
        row.append_text(fit(reserve, RESERVE_WIDTH + 2))
        strip = "".join(str(n % 10) if points else "·"
                        for n, points in enumerate(seat.scorecard, 1))
        row.append(f"{strip}  ")
        row.append(f"{seat.total:>4}  ", "bold")
        row.append(f"{len(seat.collection):>2} ")
        row.append_text(grouped(seat.collection, self.letters))
        return row

    def pile_label(self, seat: int) -> Text:
        t = self.t
        label = t("col.your_pile") if seat == self.seat else t("col.pile_of",
                                                                 name=self.name_of(seat))
        return Text().append(label, "bold")

    def detail(self, seat: SeatView, held: tuple[int, ...]) -> list[Text]:
        """The lines under the pile: what would stop it (or the card just drawn, ``held``,
        while its player decides), the reserve."""
        t = self.t
        if held:
            card = held[0]
            first = Text().append(t("col.drawn"), "bold").append_text(
                chip(card, self.letters, short=False))
            if KIND[card] != SPECIAL:  # a special card's chip says its name already
                first.append(" " + card_name(t, card))
        else:
            first = self.danger(seat.pile)
        reserve = Text().append(t("col.reserve"), "bold")
        for slot in range(2):
            reserve.append(f" {slot + 1} ")
            if slot < len(seat.reserve):
                reserve.append_text(chip(seat.reserve[slot], self.letters, short=False))
            else:
                reserve.append("—", "dim")
        return [first, reserve]

    def danger(self, pile: Sequence[int]) -> Text:
        """The cards that would lose this pile: the last card's value, and the colour of the
        last two when they share it (the STOP conditions)."""
        t = self.t
        if not pile:
            return Text(t("col.empty_pile"), "dim")
        last = pile[-1]
        parts: list[Text] = []
        if KIND[last] == CLASSIC:
            parts.append(Text(t("col.danger.value", value=VALUE[last]), "bold"))
            if len(pile) >= 2 and KIND[pile[-2]] == CLASSIC and COLOUR[pile[-2]] == COLOUR[last]:
                colour = COLOUR[last]
                parts.append(Text(t("col.danger.colour", colour=t(f"colour.{colour}"),
                                    letter=self.letters[colour]), colour_text_style(colour)))
        if not parts:
            return Text(t("col.safe"), "dim")
        return Text(t("col.danger")).append_text(Text(t("col.or")).join(parts))

    def collection_line(self, seat: SeatView) -> tuple[Text, ...]:
        """« Collection (n) : », then the cards of each colour (the board lays them out)."""
        label = Text().append(self.t("col.collection", n=len(seat.collection)), "bold")
        return (label, *colour_groups(seat.collection, self.letters))

    def scorecard(self, seat: SeatView) -> list[Text]:
        """A title, then the ten objectives in two columns: ✓ and the points scored, or the
        points still open (dimmed)."""
        t = self.t
        names = [t(f"obj.{o.number}") for o in OBJECTIVES]
        width = max(cell_len(n) for n in names)

        def entry(index: int) -> Text:
            points = seat.scorecard[index]
            text = Text(f"{index + 1:>2} {names[index]:<{width}} ")
            if points:
                text.append(f"✓{points:>3}", "bold")
            else:
                text.append(f" {OBJECTIVES[index].points:>3}", "dim")
            return text

        half = len(OBJECTIVES) // 2
        lines = [Text(t("col.scorecard", done=seat.objectives, points=seat.total), "bold")]
        lines += [entry(i).append("  ").append_text(entry(i + half)) for i in range(half)]
        return lines

    def prompt(self, view: CollectionView) -> Text:
        """What you may do now, or who plays and what they are deciding."""
        t = self.t
        me = self.seat
        phase = view.phase
        if view.outcome is not None:
            return Text(t("col.over"), "bold")
        if phase == "validation":
            waiting = [self.name_of(s.seat) for s in view.seats if not s.validated]
            if me is not None and view.legal:
                return Text(t("col.validation"), "bold")
            return Text(t("col.waiting", names=t.names(waiting)))
        current = view.current
        if me is None or current != me:
            name = self.name_of(current)
            if phase == "shadow":
                return Text(t("col.other_shadow", name=name))
            if phase == "special" and view.held:
                return Text(t("col.other_special", name=name, card=card_name(t, view.held[0])))
            if phase == "quantique":
                return Text(t("col.other_quantique", name=name, n=view.held_count))
            if phase == "skip":
                return Text(t("col.other_skip", name=name))
            return Text(t("col.turn_of", name=name))
        if self.choosing == "target":
            return Text(t("col.choosing"), "bold")
        legal = view.legal
        if phase == "shadow":
            key = "col.shadow_joker" if PLAY_JOKER in legal else "col.shadow"
            return Text(t(key), "bold")
        if phase == "special":
            card = card_name(t, view.held[0]) if view.held else "?"
            key = "col.special" if RESERVE in legal else "col.special_full"
            return Text(t(key, card=card), "bold")
        if phase == "quantique":
            return Text(t("col.quantique"), "bold")
        if phase == "skip":
            return Text(t("col.skip"), "bold")
        piles = [pile for pile in (0, 1) if Draw(pile) in legal]
        keys = ", ".join("ab"[pile] for pile in piles)
        if view.must_draw:  # a Rainbow, or a Double's draws
            return Text(t.count("col.must_draw", view.must_draw, keys=keys), "bold")
        if STOP in legal:
            flipped = any(event.kind == "flip" for event in self.update.events)
            return Text(t("col.flipped" if flipped else "col.after_draw", keys=keys), "bold")
        keys = ", ".join(t("col.draw_key", letter="ab"[pile], pile=PILES[pile]) for pile in piles)
        return Text(t("col.your_turn" if LOCK in legal else "col.your_turn_empty", keys=keys),
                    "bold")

    def legend(self) -> str:
        """For the help: what the letters, glyphs and signs on this screen mean (Markdown)."""
        return self.t("col.legend")

    # --- summaries ------------------------------------------------------------------------

    def round_summary_at(self, update: TableUpdate) -> tuple[int, int, list[Text]] | None:
        """Everybody has validated a round (not the last: its summary stays in the log's
        place): the summary, titled, in place of the lines of what each validated, which it
        repeats."""
        view = cast("CollectionView | None", update.view)
        told = [i for i, e in enumerate(update.events) if e.kind == "validate"]
        if not told or view is None or view.outcome is not None:
            return None
        title = Text(self.t("col.round_over", n=view.round - 1), "bold")
        return told[0], told[-1] + 1, [title, *self.round_summary(view)]

    def round_summary(self, view: CollectionView) -> list[Text]:
        """One row per seat: the points of the round that just ended, the total, the
        objectives, and what they validated."""
        t = self.t
        width = self.name_width()
        rows = []
        for seat in view.seats:
            combos = view.last_results[seat.seat] if seat.seat < len(view.last_results) else ()
            won = view.outcome is not None and seat.seat in view.outcome.winners
            text = Text()
            rows.append(text)
            text.append("★ " if won else "  ", "bold")
            text.append_text(fit(self.name_of(seat.seat), width))
            text.append(f" +{sum(c.points for c in combos):>3} ")
            text.append(t("col.sum.total", points=seat.total, done=seat.objectives), "bold")
            text.append("  ")
            if combos:
                text.append(", ".join(f"{t(f'obj.{c.objective}')} {c.points}" for c in combos))
            else:
                text.append(t("col.sum.nothing"), "dim")
        return rows

    def end_reason(self, update: TableUpdate) -> str:
        """Who filled their scorecard, or how many rounds were played."""
        view = cast("CollectionView | None", update.view)
        if view is None or view.outcome is None:
            return ""
        t = self.t
        full = [self.name_of(s.seat) for s in view.seats
                if s.scorecard and all(s.scorecard)]
        if full:
            return t.count("tev.end.complete", len(full), names=t.names(full))
        return t.count("tev.end.rounds", view.round)

    def show_summary(self, view: CollectionView) -> None:
        """After the last round, the final summary in the log's place: it stays (no clock
        runs any more)."""
        assert view.outcome is not None
        t = self.t
        winners = view.outcome.winners
        # Text, never a str: a str border title is read as markup, and it holds names.
        names = t.names([self.name_of(w) for w in winners])
        self.panel.border_title = Text(
            t.count("col.game_over", len(winners), round=view.round, names=names))
        self.show_panel(Text("\n").join(self.round_summary(view)), ENDLESS)

    # --- the choice list ------------------------------------------------------------------

    def ask(self, key: str, view: CollectionView, title: Text, options: Sequence[Text],
            answers: Sequence[Any], **kwargs: Any) -> None:
        """Open the choice list in the log's place; ``answers[i]`` is what option i means."""
        self.choosing = key
        self._choice_legal = view.legal
        self.choice_answers = tuple(answers)
        self.action_hide_panel()
        self.log_widget.display = False
        self.choices.display = True
        self.choices.ask(key, title, options, **kwargs)
        if not self.chatting:
            self.choices.focus()
        self.prompt_line.text = self.prompt(view)
        self.sync_keys()

    def close_choice(self) -> None:
        if not self.choosing:
            return
        self.choosing = ""
        self.choice_answers = ()
        self.choices.display = False
        self.log_widget.display = True
        if self.focused is self.choices:
            self.set_focus(None)
        if self.view is not None:
            self.prompt_line.text = self.prompt(self.view)
        self.sync_keys()

    def action_hide_panel(self) -> None:
        super().action_hide_panel()
        if self.choosing:  # the choice list keeps the log's place
            self.log_widget.display = False

    def sync_choice(self, view: CollectionView) -> None:
        """Close a question the game has moved past; ask those the game asks you now (the
        card to keep from your Quantique, the combinations to validate)."""
        me = self.seat
        wanted = ""
        if me is not None:
            if view.phase == "quantique" and view.current == me and view.quantique:
                wanted = "quantique"
            elif view.phase == "validation" and any(isinstance(a, Validate) for a in view.legal):
                wanted = "validation"
        asked = "validation" if self.choosing in COMPOSING else self.choosing
        if self.choosing and (view.legal != self._choice_legal
                              or (asked != "target" and asked != wanted)):
            self.close_choice()
        if wanted != "validation":
            self.composed, self.ticks = [], None
        if wanted and not self.choosing:
            if wanted == "quantique":
                self.ask_quantique(view)
            else:
                self.ask_validation(view)

    def ask_quantique(self, view: CollectionView) -> None:
        t = self.t
        keepable = {a.card for a in view.legal if isinstance(a, Keep)}
        options = []
        for card in view.quantique:
            option = chip(card, self.letters, short=False)
            if KIND[card] != SPECIAL:
                option.append(" " + card_name(t, card))
            if card not in keepable:
                option.append("  " + t("col.reserve_full"), "dim")
            options.append(option)
        options.append(Text(t("col.keep_none")))
        self.ask("quantique", view, Text(t("col.quantique_title"), "bold"), options,
                 (*view.quantique, None),
                 enabled=[card in keepable for card in view.quantique] + [True],
                 cancellable=False)

    def validation_options(self, view: CollectionView) -> tuple[Combination, ...]:
        """The matcher's combinations, then those of the solver's best choice not among them
        (the best may fill an objective with other cards), then those the player made up."""
        listed = list(view.combinations)
        listed += [c for c in (*view.best, *self.composed) if c not in listed]
        return tuple(sorted(listed, key=lambda c: (c.objective, -c.points)))

    def ask_validation(self, view: CollectionView) -> None:
        t = self.t
        combos = self.validation_options(view)
        width = max(cell_len(t(f"obj.{o.number}")) for o in OBJECTIVES)
        options = [Text(f"{t(f'obj.{c.objective}'):<{width}} {c.points:>3}  ").append_text(
            chips(by_value(c.cards), self.letters)) for c in combos]
        clashes = [frozenset(j for j, other in enumerate(combos) if j != i and (
            other.objective == combo.objective or not set(other.cards).isdisjoint(combo.cards)))
            for i, combo in enumerate(combos)]
        self.ask("validation", view, Text(t("col.validation_title", points=view.best_points),
                                          "bold"),
                 options, combos, cancellable=False, multi=True, clashes=clashes,
                 points=[c.points for c in combos],
                 preset=[i for i, c in enumerate(combos) if c in view.best],
                 ticked=None if self.ticks is None else [
                     i for i, c in enumerate(combos) if c in self.ticks],
                 total_label=t("col.ticked"))

    def ask_target(self, view: CollectionView, card: int, actions: Sequence[Activate]) -> None:
        t = self.t
        options: list[Text] = []
        for action in actions:
            if action.pile is not None:
                options.append(Text(t("col.option_pile", pile=PILES[action.pile],
                                      cards=t.count("n.cards",
                                                    view.draw_sizes[action.pile]))))
                continue
            target = view.seats[action.target if action.target is not None else 0]
            option = fit(self.name_of(target.seat), NAME_WIDTH)
            option.stylize("bold")
            option.append(f" {target.total:>4} pts  ")
            option.append_text(chips(target.pile, self.letters) if target.pile
                               else Text(t("col.empty_pile"), "dim"))
            options.append(option)
        if card == SWIPE:
            title = t("col.ask_swipe")
        elif any(a.pile is not None for a in actions):
            title = t("col.ask_pile")
        else:
            title = t("col.ask_target", card=card_name(t, card))
        self.ask("target", view, Text(title, "bold"), options, actions)

    def on_choice_list_chosen(self, message: ChoiceList.Chosen) -> None:
        message.stop()
        answers = self.choice_answers
        if message.key != self.choosing or not 0 <= message.index < len(answers):
            return
        answer = answers[message.index]
        if message.key == "compose_objective":
            self.ask_cards(answer)
            return
        self.close_choice()
        self.act(answer if message.key == "target" else Keep(answer))

    async def on_choice_list_confirmed(self, message: ChoiceList.Confirmed) -> None:
        message.stop()
        if message.key != self.choosing or message.key not in ("validation", "compose_cards"):
            return
        answers = self.choice_answers
        chosen = tuple(answers[i] for i in message.indexes if 0 <= i < len(answers))
        if message.key == "validation":
            await self.validate(chosen)
        else:
            self.composed_from(chosen)

    def on_choice_list_cancelled(self, message: ChoiceList.Cancelled) -> None:
        message.stop()
        if message.key == "target":
            self.close_choice()
        elif message.key in COMPOSING:
            self.back_to_validation()

    # --- making up a combination ----------------------------------------------------------
    # The list offers one combination per objective and score, and the best choice; any other
    # selection the rules accept is made up here: an objective, then its cards.

    def action_compose(self) -> None:
        view = self.view
        if view is None or self.seat is None or self.choosing != "validation":
            return
        answers = self.choice_answers
        self.ticks = {answers[i] for i in self.choices.ticked if i < len(answers)}
        t = self.t
        card = view.seats[self.seat].scorecard
        opened = [o.number for o in OBJECTIVES if not card[o.number - 1]]
        self.ask("compose_objective", view, Text(t("col.compose_objective"), "bold"),
                 [Text(t(f"obj.{o}")) for o in opened], opened)

    def ask_cards(self, objective: int) -> None:
        view = self.view
        if view is None or self.seat is None:
            return
        t = self.t
        self.composing = objective
        cards = by_value(view.seats[self.seat].collection)
        options = []
        for card in cards:
            option = chip(card, self.letters, short=False)
            if KIND[card] != SPECIAL:
                option.append(" " + card_name(t, card))
            options.append(option)
        self.ask("compose_cards", view,
                 Text(t("col.compose_cards", objective=t(f"obj.{objective}")), "bold"),
                 options, cards, multi=True, points=[1] * len(cards),
                 total_label=t("col.compose_count"))

    def composed_from(self, cards: tuple[int, ...]) -> None:
        """The cards ticked for the objective being made up: a combination if they fill it
        (ticked in the list, in place of what it clashes with), else a word why not."""
        objective = self.composing
        points = points_of(objective, cards)
        if points is None:
            self.pioche.warn(self.t("col.compose_wrong", objective=self.t(f"obj.{objective}")))
        else:
            combo = Combination(objective, tuple(sorted(cards)), points)
            if combo not in self.composed:
                self.composed.append(combo)
            ticks = self.ticks or set()
            self.ticks = {c for c in ticks if c.objective != objective
                          and set(c.cards).isdisjoint(combo.cards)} | {combo}
        self.back_to_validation()

    def back_to_validation(self) -> None:
        self.close_choice()
        view = self.view
        if view is not None:
            self.sync_choice(view)

    async def validate(self, combos: tuple[Combination, ...]) -> None:
        """Everybody validates at the same time: the others' choices move the table on without
        changing what this player may validate, so this action is sent without a step (the
        rules check the selection itself)."""
        try:
            await self.client.act(Validate(combos))
        except Refused as e:
            self.pioche.warn(self.t.refusal(e))
            return
        self.clear_hint()
        self.close_choice()

    # --- keys -----------------------------------------------------------------------------

    def my_reserve(self) -> tuple[int, ...]:
        view = self.view
        if view is None or self.seat is None or self.seat >= len(view.seats):
            return ()
        return view.seats[self.seat].reserve

    def activations(self, card: int) -> list[Activate]:
        view = self.view
        if view is None:
            return []
        return [a for a in view.legal if isinstance(a, Activate) and a.card == card]

    def key_state(self) -> tuple[Any, ...]:
        view = self.view
        if view is None:
            return super().key_state()
        return (*super().key_state(), view.legal, view.held, self.my_reserve(), self.choosing)

    def check_game_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action == "compose":
            return view is not None and self.choosing == "validation"
        if view is None or action not in GAME_KEYS or self.choosing:
            return False
        legal = view.legal
        if action == "draw":
            return Draw(cast(int, parameters[0])) in legal
        if action == "lock":
            return LOCK in legal
        if action == "stop":
            return STOP in legal
        if action == "reserve":
            return RESERVE in legal
        if action == "shadow":
            return ShadowChoice(cast(bool, parameters[0])) in legal
        if action == "joker":
            return PLAY_JOKER in legal
        if action == "activate_held":
            return view.phase == "special" and bool(view.held) and bool(
                self.activations(view.held[0]))
        slot = cast(int, parameters[0])
        reserve = self.my_reserve()
        return slot < len(reserve) and bool(self.activations(reserve[slot]))

    def action_draw(self, pile: int) -> None:
        self.act(Draw(pile))

    def action_lock(self) -> None:
        self.act(LOCK)

    def action_stop(self) -> None:
        self.act(STOP)

    def action_reserve(self) -> None:
        self.act(RESERVE)

    def action_shadow(self, keep_pile: bool) -> None:
        self.act(ShadowChoice(keep_pile))

    def action_joker(self) -> None:
        self.act(PLAY_JOKER)

    def action_activate_held(self) -> None:
        view = self.view
        if view is not None and view.held:
            self.activate(view.held[0])

    def action_activate(self, slot: int) -> None:
        reserve = self.my_reserve()
        if slot < len(reserve):
            self.activate(reserve[slot])

    def activate(self, card: int) -> None:
        """Play ``card``: at once when it needs nothing more, after choosing its target (or
        its draw pile) otherwise. A Joker away from a Shadow does nothing: asked first."""
        view = self.view
        actions = self.activations(card)
        if view is None or not actions:
            return
        if len(actions) > 1 or actions[0].target is not None or actions[0].pile is not None:
            self.ask_target(view, card, actions)
            return
        if card != JOKER:
            self.act(actions[0])
            return
        from .dialogs import Confirm

        step = self.update.step

        def answered(yes: bool | None) -> None:
            if yes and self.update.step == step:
                self.act(actions[0])

        self.ask_for_turn(Confirm(self.t("col.joker_waste")), answered)

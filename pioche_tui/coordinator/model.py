"""What the coordinator hands to sessions: frozen values, safe to share between them.

Nothing here holds a game state; a table update carries the engine's *view* for one seat (or
the public view for a spectator) and the events of that seat's eyes only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..engine.base import Event

SeatKind = Literal["free", "player", "bot"]
TableStatus = Literal["waiting", "playing", "finished", "closed"]

# Ratings (coordinator/ratings.py): why a finished game is unrated, as its summary and its
# record say it ("" for a rated game), and the rated games a player needs to be on the board.
UNRATED_BOTS = "bots"  # fewer than two players (the others were bots)
UNRATED_GUESTS = "guests"  # fewer than two players with a key (guests are not rated)
UNRATED_STAND_IN = "stand_in"  # a stand-in made more than half of a player's decisions
UNRATED_LEARN = "learn"  # a learn table (« Apprendre »): not recorded at all
UNRATED_BEFORE = "before"  # recorded before ratings existed
UNRATED = (UNRATED_BOTS, UNRATED_GUESTS, UNRATED_STAND_IN, UNRATED_LEARN, UNRATED_BEFORE)
MIN_RATED_GAMES = 3


def conservative(mu: float, sigma: float) -> float:
    """The conservative rating, mu − 3σ: a rating the player is very likely above; what a
    game's board sorts by and the screens show."""
    return mu - 3 * sigma

TABLE_EVENTS = frozenset({"drop", "back", "leave", "gone", "timeout", "stand_in"})
"""The coordinator's own events, told in the table's log beside the game's (``seat`` is the
player concerned, ``args`` empty): a player's connection dropped (``drop``: the stand-in plays
for them meanwhile), they came ``back``, they ``leave`` the game (the stand-in keeps the seat),
they were ``gone`` past the grace period (the same), their turn timer ran out (``timeout``: the
stand-in plays the turn). ``stand_in`` comes just before the events of a move the stand-in made
for a player's seat: the log marks it (« le robot a joué pour vous : … »)."""


class Refused(Exception):
    """A request the coordinator turns down; nothing changed.

    ``code`` names the reason for translation (the app's catalogue); ``str(error)`` is the
    French sentence, used when the catalogue has nothing better.
    """

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class Player:
    """Who a session is. ``identity`` is a key's ``SHA256:…`` fingerprint, or for a guest
    ``guest:…`` drawn for the session (``coordinator.guests``: only the guest's reconnect token
    brings it back).
    ``address`` is the IP address the session connects from ("" for a local game): the
    coordinator limits the tables one address may create (``Settings.table_rate``)."""

    identity: str
    name: str
    guest: bool = False
    watch_only: bool = False
    address: str = ""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as everyone sees it."""

    kind: SeatKind
    name: str = ""
    bot: str = ""  # the bot's name for a bot seat ("basic", "random")
    away: bool = False  # a player whose connection dropped: the stand-in plays for now
    identity: str | None = None  # the player's identity (public: a key fingerprint or guest id)


@dataclass(frozen=True, slots=True)
class TableSummary:
    """One line of the lobby, and the header of a table screen."""

    id: str
    game: str
    title: str
    options: tuple[tuple[str, Any], ...]
    seats: tuple[SeatInfo, ...]
    status: TableStatus
    spectators: int
    private: bool
    timer: float | None  # seconds per decision, None for no timer
    creator: str  # the creator's name
    paused: bool = False  # its log cannot be written: no move is taken until it can again
    learn: bool = False  # a learn table (« Apprendre »): one player, bots, counts for no score
    unrated: str = ""  # finished: why its game is not rated (UNRATED_…), "" when it is

    @property
    def free_seats(self) -> int:
        return sum(1 for s in self.seats if s.kind == "free")

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)


@dataclass(frozen=True, slots=True)
class OnlineEntry:
    name: str
    watch_only: bool
    table: str | None  # the table they sit at or watch, None in the lobby


@dataclass(frozen=True, slots=True)
class LobbySnapshot:
    tables: tuple[TableSummary, ...]
    online: tuple[OnlineEntry, ...]
    motd: str = ""  # the operator's message of the day ("" for none)


# The operator's console (coordinator/admin.py): what an admin sees.

@dataclass(frozen=True, slots=True)
class AdminSession:
    """One session online as an admin sees it; ``idle``: seconds since its last request."""

    name: str
    identity: str
    address: str
    table: str | None
    idle: float
    watch_only: bool


@dataclass(frozen=True, slots=True)
class AdminTable:
    """One live table as an admin sees it: its seats' names (« — » free, bots marked)."""

    id: str
    game: str
    status: TableStatus
    seats: tuple[str, ...]
    step: int
    spectators: int
    private: bool


@dataclass(frozen=True, slots=True)
class Ban:
    """A ban in force: a key's fingerprint or an address (``kind`` "key" or "address") until
    ``until`` (epoch seconds; None: for good), set by the admin ``by``."""

    kind: str
    value: str
    until: float | None
    by: str


@dataclass(frozen=True, slots=True)
class AdminView:
    sessions: tuple[AdminSession, ...]
    tables: tuple[AdminTable, ...]
    bans: tuple[Ban, ...]
    motd: str


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat line as a reader gets it (docs/screens.md, « The chat »).

    A line is said to a scope (the lobby, or a table: its players' chat, or its spectators'
    when ``spectators``), or privately to one player (``to``: their name; then ``scope`` is
    "" and only the two of them ever get it). ``bell`` is set on the one copy that rings its
    reader's bell: it mentions them (``@name``), live, within the coordinator's limit; the
    history never rings."""

    scope: str  # "lobby", a table id, or "" for a private line
    name: str
    text: str  # sanitised plain text: render it as Text, never as markup
    time: float  # wall-clock seconds (time.time(): one clock for every process, it may cross)
    me: bool = False  # an action (« /me réfléchit »: « * alice réfléchit »)
    to: str = ""  # a private line's addressee (« /msg bob … »); "" for a line said to a scope
    spectators: bool = False  # said among a table's spectators: its players never get it
    bell: bool = False  # this copy rings its reader's bell (a mention of them)


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """The newest state of a table for one subscriber.

    ``step`` counts the actions applied so far: an action sent with an older step is stale and
    refused. ``events`` are those since the subscriber's previous update (several actions'
    worth when it was slow to read), already filtered for its eyes. ``time_left`` is the seconds
    left, at sending, before the turn timer of the seats in ``to_act`` runs out (None: no timer
    runs): a duration, never one process's clock, so that it means the same to a reader in
    another process. The mailbox takes off the time an update waited in it, so that what a
    reader takes is the time left as it takes it; the reader turns it into a deadline on its
    own clock then (``TableScreen``). ``history``, in
    the first update after subscribing only, is what happened at the table before (its last
    ``table.HISTORY`` actions and table events), filtered for the same eyes.
    """

    table: TableSummary
    seat: int | None
    step: int
    view: Any  # the engine's view for ``seat``, None before the game starts
    events: tuple[Event, ...] = ()
    to_act: tuple[int, ...] = ()
    time_left: float | None = None
    history: tuple[Event, ...] = ()
    creator: bool = False  # this seat created the table (and so may start it while it waits)
    code: str | None = None  # a private table's code, for its seated players alone (to share)
    # A finished table's rematch (« Revanche », ``Coordinator.rematch``): the seats whose
    # players asked for it, in the order they asked; the seconds left to the others to accept
    # (None: no proposal open; a duration, as ``time_left``, and taken down by the mailbox the
    # same way); ``rematch_off``: it was declined, a player left or the time ran out, so no
    # rematch will be at this table.
    rematch: tuple[int, ...] = ()
    rematch_left: float | None = None
    rematch_off: bool = False


# --- what else crosses the seam (``client.CoordinatorClient``) -----------------------------


@dataclass(frozen=True, slots=True)
class GuestPass:
    """A guest session's identity and the token that proves it (``guests``). The token is the
    player's secret: it is shown to them alone, never in a view or a log."""

    identity: str
    token: str


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One player's line in the scores (``Database.leaderboard``): the store builds them, the
    scores screen reads them, defined here so that the seam needs nothing of the store.

    ``games``, ``wins`` and ``points``: in every finished game (of the board's game, or all);
    ``rated`` games, ``mu`` and ``sigma``: the player's rating in the board's game (0 and 0.0
    on the board of all games, which has no rating)."""

    name: str
    identity: str
    games: int
    wins: int
    points: int
    rated: int = 0
    mu: float = 0.0
    sigma: float = 0.0

    @property
    def rating(self) -> float:
        """The conservative rating (``conservative``): what the board of a game sorts by."""
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's own results (``Database.player_stats``)."""

    identity: str
    name: str
    games: int
    wins: int
    points: int
    best_score: int
    by_game: tuple[tuple[str, int, int], ...]  # (game, games, wins)
    # (game, rated games, mu, sigma): the player's rating in each game they had a rated game of
    ratings: tuple[tuple[str, int, float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Place:
    """Where a session is: the table it sits at or watches (None: the lobby), its seat there
    (None: watching) and the table's status."""

    table: str | None = None
    seat: int | None = None
    status: TableStatus | None = None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game the coordinator runs, as the create dialog offers it."""

    name: str
    min_seats: int
    max_seats: int
    bots: tuple[str, ...]  # the bots a seat may be given ("basic", "random")


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What a session's screens need to know of the server: its games (in the coordinator's
    order), its turn timers (the default, and the range a player may ask for) and how long a
    dropped player's seat is kept."""

    games: tuple[GameInfo, ...]
    turn_timer: float | None
    min_timer: float
    max_timer: float
    grace: float

    @property
    def game_names(self) -> tuple[str, ...]:
        return tuple(game.name for game in self.games)

    def game(self, name: str) -> GameInfo:
        return next(game for game in self.games if game.name == name)

    def timer_allowed(self, timer: float) -> bool:
        """A turn timer a player may ask for: within the range (10 to 600 s), or the
        server's own default (which ``--turn-timer`` may set outside it: load tests, demos),
        which the create dialog offers first. The coordinator's rule (``timer_allowed``)."""
        return self.min_timer <= timer <= self.max_timer or timer == self.turn_timer


# --- profiles and replays (coordinator/profiles.py) -----------------------------------------

PROFILE_GAMES = 10  # the last games a profile lists
PROFILE_HISTORY = 40  # the points of a rating's chart: its last rated games


@dataclass(frozen=True, slots=True)
class GamePlayed:
    """One of a player's last games, as their profile lists it. ``place``: 1 is first, 0 for
    a game recorded before places were (``UNRATED_BEFORE``); ``unrated``: why it is not rated
    ("" when it is); ``replay``: its log is still kept (retention removes it later)."""

    table_id: str
    game: str
    finished: float  # wall-clock seconds
    seat: int
    seats: int
    place: int
    unrated: str
    replay: bool


@dataclass(frozen=True, slots=True)
class Profile:
    """A player's profile (``CoordinatorClient.profile``): only a key's (a guest has none).

    ``by_game``: (game, games, wins) in every finished game; ``ratings``: (game, rated games,
    mu, sigma); ``history``: (game, the conservative rating after each of the last
    ``PROFILE_HISTORY`` rated games, oldest first); ``last``: the last ``PROFILE_GAMES``
    games, newest first."""

    identity: str
    name: str
    by_game: tuple[tuple[str, int, int], ...]
    ratings: tuple[tuple[str, int, float, float], ...]
    history: tuple[tuple[str, tuple[float, ...]], ...]
    last: tuple[GamePlayed, ...]


@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """One step of a replay: the view after it, its events (as the replay's eyes see them) and
    who was to act then. Step 0 is the opening deal."""

    step: int
    view: Any
    events: tuple[Event, ...] = ()
    to_act: tuple[int, ...] = ()


REPLAY_PAGE = 100
"""The steps one ``replay`` answer holds: a long game's replay comes a page at a time (a step
of Collection for five is some 1.5 KiB, a whole game of it 850 KiB: near the bus's 1 MiB)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A page of a finished game told again (``CoordinatorClient.replay``): the table as it
    ended, the seat whose eyes it is told for (None: a spectator's, no hidden card), the steps
    ``first`` to ``first + len(frames) - 1`` of the game's ``total`` (step 0, the deal,
    included), and the step each round begins at (PageUp/PageDown)."""

    table: TableSummary
    seat: int | None
    first: int
    total: int
    frames: tuple[ReplayFrame, ...]
    rounds: tuple[int, ...]
    finished: float  # wall-clock seconds

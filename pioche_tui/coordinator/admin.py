"""The operator's console: who is an admin, the bans, and what an admin may do.

**Admins** are keys: their ``SHA256:…`` fingerprints, one a line, in a file (``Settings.admins``;
by default ``DATA_DIR/admins``); ``#`` starts a comment. The file is read again whenever it
changes (its modification time and size are looked at on each admin check: no signal to send,
no restart). A file that is missing names nobody.

**The actions** (``Console.act``): ``kick`` a session (by its name online), ``ban`` a key
fingerprint, an address, or the player online under a name (their key; a guest's address) for
a duration or for good, ``unban``, ``close`` a table (its game recorded as abandoned, everyone
at it told and sent to the lobby), ``broadcast`` a line to every session, set the ``motd``
shown in the lobby ("" to remove it). The same actions come from an admin's screen (the app's
client: ``CoordinatorClient.admin_act``, the coordinator checks the key) and from ``pioche
admin`` on the server's machine (``control.py``: the owner of the data directory). Each is
logged with who did it (``pioche.admin``; its ``event`` fields for ``--log-format json``).

**Bans** are kept in the database (they survive a restart) and held at login: the SSH front
asks ``refusal`` before a session starts (``client.FrontDesk.banned``). A ban also ends the
sessions online that it covers.

**Several coordinators** on one bus (``coordinator/cross.py``): the online list shows theirs
too, a kick reaches a player on another, and a ban, an unban, a broadcast and the message of
the day, done and stored where the admin is, are applied by every other (``relayed``).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .mailbox import Notice
from .model import AdminSession, AdminTable, AdminView, Ban, Refused
from .text import duration as duration
from .text import sanitise

if TYPE_CHECKING:
    from .core import Coordinator, Far, Session

log = logging.getLogger("pioche.admin")

ACTIONS = ("kick", "ban", "unban", "close", "broadcast", "motd")
TEXT_MAX = 300  # characters of a broadcast line or of the message of the day
MSG_KICKED = "Un administrateur a fermé votre session."
MSG_BANNED_KEY = "Votre clé est bannie de ce serveur{until}."
MSG_BANNED_ADDRESS = "Votre adresse est bannie de ce serveur{until}."
MSG_CLOSED = "Un administrateur a fermé cette table : la partie est abandonnée."


class AdminFile:
    """The admins' fingerprints, read from ``path`` again whenever it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) of the file read last
        self._keys: frozenset[str] = frozenset()

    def fingerprints(self) -> frozenset[str]:
        try:
            stat = self.path.stat()
        except OSError:
            self._seen, self._keys = None, frozenset()
            return self._keys
        if (stat.st_mtime_ns, stat.st_size) != self._seen:
            self._seen = (stat.st_mtime_ns, stat.st_size)
            try:
                text = self.path.read_text(encoding="utf-8", errors="replace")
            except OSError as error:
                log.error("cannot read the admins' file %s: %s", self.path, error)
                text = ""
            keys = set()
            for number, raw in enumerate(text.splitlines(), start=1):
                line = raw.split("#", 1)[0].strip()
                if not line:
                    continue
                if line.startswith("SHA256:") and " " not in line:
                    keys.add(line)
                else:
                    log.warning("%s line %d: not a SHA256:… fingerprint, ignored",
                                self.path, number)
            self._keys = frozenset(keys)
            log.info("admins' file %s read: %d admin(s)", self.path, len(keys))
        return self._keys


def _until_text(until: float | None) -> str:
    if until is None:
        return ""
    return time.strftime(" jusqu'au %d/%m/%Y à %H:%M UTC", time.gmtime(until))


class Console:
    """The coordinator's operator side: ``Coordinator.console``."""

    def __init__(self, coordinator: Coordinator, admins: Path) -> None:
        self.coordinator = coordinator
        self.admins = AdminFile(admins)
        self._bans: dict[tuple[str, str], Ban] = {}
        self.motd = ""

    def start(self) -> None:
        """Read the bans and the message of the day back from the database."""
        db = self.coordinator.db
        if db is None:
            return
        self._bans = {(k, v): Ban(k, v, until, by)
                      for k, v, until, by, _since in db.bans(time.time())}
        self.motd = db.server_text("motd")

    def is_admin(self, identity: str) -> bool:
        return identity.startswith("SHA256:") and identity in self.admins.fingerprints()

    def require(self, session: Session) -> str:
        """Who the admin is, for the logs; Refused for anyone else, whatever they send."""
        player = session.player
        if player.watch_only or session.mirror or not self.is_admin(player.identity):
            raise Refused("not_admin", "Réservé aux administrateurs du serveur.")
        return f"{player.name} ({player.identity})"

    # --- bans -------------------------------------------------------------------------------

    def _ban_of(self, kind: str, value: str, now: float) -> Ban | None:
        ban = self._bans.get((kind, value))
        if ban is not None and ban.until is not None and ban.until <= now:
            del self._bans[(kind, value)]
            return None
        return ban

    def refusal(self, identity: str | None, address: str) -> str | None:
        """Why a login from ``address`` with key ``identity`` (None: a guest) is refused, or
        None when no ban holds it."""
        now = time.time()
        if identity is not None:
            ban = self._ban_of("key", identity, now)
            if ban is not None:
                return MSG_BANNED_KEY.format(until=_until_text(ban.until))
        ban = self._ban_of("address", address, now) if address else None
        if ban is not None:
            return MSG_BANNED_ADDRESS.format(until=_until_text(ban.until))
        return None

    def bans(self) -> tuple[Ban, ...]:
        now = time.time()
        return tuple(ban for key, ban in list(self._bans.items())
                     if self._ban_of(*key, now) is not None)

    # --- what an admin sees -------------------------------------------------------------------

    def view(self) -> AdminView:
        c = self.coordinator
        now = time.monotonic()
        sessions = [AdminSession(s.player.name, s.player.identity, s.player.address,
                                 s.table.id if s.table is not None else None,
                                 round(max(now - s.active, 0.0), 1), s.player.watch_only)
                    for s in c.sessions.values() if not s.mirror]
        if c.beyond is not None:  # (online elsewhere: no address, no idle time known here)
            sessions += [AdminSession(far.player.name, far.player.identity, "", far.table, 0.0,
                                      far.player.watch_only) for far in c.beyond.others()]
        sessions.sort(key=lambda e: e.name.casefold())
        tables = []
        for table in c.tables.values():
            if table.status == "closed":
                continue
            summary = table.summary()
            tables.append(AdminTable(
                table.id, table.game.name, table.status,
                tuple("—" if s.kind == "free" else f"{s.name} (robot)" if s.kind == "bot"
                      else s.name for s in table.seats),
                table.step, summary.spectators, table.private))
        return AdminView(tuple(sessions), tuple(tables), self.bans(), self.motd)

    # --- what an admin does ----------------------------------------------------------------

    def act(self, by: str, action: str, target: str = "", seconds: float | None = None) -> str:
        """Do ``action`` for the admin ``by`` (a name for the logs); what was done, in French.
        Refused, with nothing changed, on a bad target."""
        target = target.strip()
        if action == "kick":
            done = self._kick(self._online(target, far=True), by=by)
        elif action == "ban":
            done = self._ban(by, target, seconds)
        elif action == "unban":
            done = self._unban(target)
        elif action == "close":
            done = self._close(by, target)
        elif action == "broadcast":
            done = self._broadcast(by, target)
        elif action == "motd":
            done = self._set_motd(by, target)
        else:
            raise Refused("bad_action", f"Action inconnue : {action} ({', '.join(ACTIONS)}).")
        log.info("admin %s: %s", by, done,
                 extra={"event": "admin", "admin": by, "action": action, "target": target,
                        "seconds": seconds})
        return done

    def _online(self, name: str, far: bool = False) -> Session | Far:
        """The session online under ``name`` here; ``far``: or on another coordinator."""
        from .text import name_key

        key = name_key(name)
        for session in self.coordinator.sessions.values():
            if session.name_key == key and not session.mirror:
                return session
        beyond = self.coordinator.beyond
        found = beyond.find(key) if far and key and beyond is not None else None
        if found is None:
            raise Refused("not_online", f"Personne en ligne sous le nom {name}.")
        return found

    def _kick(self, session: Session | Far, why: str = MSG_KICKED, by: str = "") -> str:
        from .core import Far

        name = session.player.name
        if isinstance(session, Far):  # (its home closes it: relayed)
            self._relay(by, "kick", session.name_key, None)
            return f"session de {name} fermée (sur le coordinateur {session.home})"
        session.mailbox.put_notice(Notice("kicked", why))
        self.coordinator.disconnect(session)
        return f"session de {name} fermée"

    def _ban(self, by: str, target: str, seconds: float | None) -> str:
        if seconds is not None and not 0 < seconds < 1e9:
            raise Refused("bad_duration", "Une durée de bannissement positive, ou aucune.")
        kind, value = self._ban_target(target)
        now = time.time()
        until = None if seconds is None else now + seconds
        db = self.coordinator.db
        if db is not None and not self.coordinator._persist("bans", db.ban, kind, value, until,
                                                             by, now):
            raise Refused("storage", "Le bannissement n'a pas pu être enregistré.")
        kicked = self._hold(Ban(kind, value, until, by))
        self._relay(by, "ban", f"{kind}:{value}", until)
        length = "pour de bon" if seconds is None else f"pour {seconds:g} s"
        return (f"{'clé' if kind == 'key' else 'adresse'} {value} bannie {length}"
                f" ({kicked} session(s) fermée(s){self._elsewhere()})")

    def _hold(self, ban: Ban) -> int:
        """Hold ``ban`` here: kept, and the sessions here that it covers closed (how many)."""
        self._bans[(ban.kind, ban.value)] = ban
        why = (MSG_BANNED_KEY if ban.kind == "key" else MSG_BANNED_ADDRESS).format(
            until=_until_text(ban.until))
        kicked = [s for s in list(self.coordinator.sessions.values())
                  if (s.player.identity if ban.kind == "key" else s.player.address)
                  == ban.value]
        for session in kicked:
            self._kick(session, why)
        return len(kicked)

    def _ban_target(self, target: str) -> tuple[str, str]:
        """A key fingerprint, an IP address, or the name of a player online (their key; a
        guest's address)."""
        if target.startswith("SHA256:") and len(target) > 7 and " " not in target:
            return "key", target
        try:
            return "address", str(ipaddress.ip_address(target))
        except ValueError:
            pass
        from .core import Far

        found = self._online(target, far=True)
        player = found.player
        if player.identity.startswith("SHA256:"):
            return "key", player.identity
        if player.address:
            return "address", player.address
        if isinstance(found, Far):  # (a guest on another coordinator: no address known here)
            raise Refused("bad_target", f"{player.name} est en ligne sur un autre coordinateur "
                          ": bannissez son adresse (la liste de ce coordinateur-là la montre).")
        raise Refused("bad_target", f"{player.name} n'a ni clé ni adresse à bannir.")

    def _unban(self, target: str) -> str:
        if target.startswith("SHA256:"):
            kind, value = "key", target
        else:
            try:
                kind, value = "address", str(ipaddress.ip_address(target))
            except ValueError:
                raise Refused("bad_target", f"Ni une clé ni une adresse : {target}.") from None
        db = self.coordinator.db
        if self._bans.pop((kind, value), None) is None:
            raise Refused("not_banned", f"{value} n'est pas banni.")
        if db is not None:
            self.coordinator._persist("bans", db.unban, kind, value)
        self._relay("", "unban", f"{kind}:{value}", None)
        return f"{value} n'est plus banni"

    def _close(self, by: str, table_id: str) -> str:
        """Close the table here, or, when another coordinator serves it (several on one bus),
        have it closed there: relayed to every other, and closed by the one that has it."""
        key = table_id.strip().upper()
        beyond = self.coordinator.beyond
        if beyond is not None and beyond.serves(key):
            self._relay(by, "close", key, None)
            return f"table {key} fermée (sur le coordinateur qui la sert)"
        table = self.coordinator._table(table_id)
        self.coordinator.close_table(table, Notice("table_closed", MSG_CLOSED))
        return f"table {table.id} fermée"

    @staticmethod
    def _text(text: str) -> str:
        return sanitise(text, TEXT_MAX).strip()

    def _broadcast(self, by: str, text: str) -> str:
        line = self._text(text)
        if not line:
            raise Refused("empty", "Rien à annoncer.")
        for session in self.coordinator.sessions.values():
            session.mailbox.put_notice(Notice("broadcast", line))
        self._relay(by, "broadcast", line, None)
        return (f"annonce envoyée à {len(self.coordinator.sessions)} session(s)"
                f"{self._elsewhere()} : {line}")

    def _set_motd(self, by: str, text: str) -> str:
        motd = self._text(text)
        db = self.coordinator.db
        if db is not None and not self.coordinator._persist("motd", db.set_server_text, "motd",
                                                             motd):
            raise Refused("storage", "Le message du jour n'a pas pu être enregistré.")
        self.motd = motd
        self.coordinator.lobby_changed()
        self._relay(by, "motd", motd, None)
        return f"message du jour : {motd}" if motd else "message du jour retiré"

    # --- across coordinators (coordinator/cross.py) ------------------------------------------

    def _relay(self, by: str, action: str, target: str, until: float | None) -> None:
        """Tell the other coordinators of the bus what was done here (stored here already)."""
        if self.coordinator.beyond is not None:
            self.coordinator.beyond.acted(by, action, target, until)

    def _elsewhere(self) -> str:
        return " ici, et sur les autres coordinateurs" if self.coordinator.beyond else ""

    def relayed(self, by: str, action: str, target: str, until: float | None) -> None:
        """An admin's action done on another coordinator of the bus (which stored it): its
        effect here. ``kick``: the session here under the name key ``target``; ``ban``,
        ``unban``: ``target`` is ``kind:value``; ``broadcast``, ``motd``: the text; ``close``:
        the table ``target``, if it is here."""
        if action == "kick":
            for session in list(self.coordinator.sessions.values()):
                if session.name_key == target and not session.mirror:
                    log.info("admin %s (elsewhere): session de %s fermée", by,
                             session.player.name)
                    self._kick(session)
                    return
            log.info("admin (elsewhere): kick of %r: nobody here under that name", target)
        elif action in ("ban", "unban"):
            kind, _, value = target.partition(":")
            if kind not in ("key", "address") or not value:
                log.warning("relayed %s of %r dropped: not kind:value", action, target)
            elif action == "ban":
                self._hold(Ban(kind, value, until, by))
            else:
                self._bans.pop((kind, value), None)
        elif action == "broadcast":
            line = self._text(target)
            for session in self.coordinator.sessions.values():
                session.mailbox.put_notice(Notice("broadcast", line))
        elif action == "motd":
            self.motd = self._text(target)
            self.coordinator.lobby_changed()
        elif action == "close":
            table = self.coordinator.tables.get(target)
            if table is not None and table.status != "closed":
                log.info("admin %s (elsewhere): table %s fermée", by, table.id)
                self.coordinator.close_table(table, Notice("table_closed", MSG_CLOSED))
        else:
            log.warning("relayed admin action %r dropped", action)


def console_owner() -> str:
    """Who acts from ``pioche admin`` (the control socket), for the logs."""
    try:
        import pwd

        return f"console ({pwd.getpwuid(os.getuid()).pw_name})"
    except (ImportError, KeyError):
        return "console"

"""A small real app for the server's tests (a fixture, not product).

It shows what the server told it (``SessionInfo``), who else is connected (the way the real lobby
will learn about others: messages posted from outside the app), the last key, paste and size.
Keys: ``q`` exits, ``x`` fails (one app's crash ends that session only), ``f`` floods the screen
with ever-changing text (slow clients), ``s`` asks for a screenshot, ``u`` to open a URL and ``p``
prints (none of which may touch the server's files, browser or streams).

``pioche serve --app tests.server.demo_app:open_service`` serves it.
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from server.session import ServerShutdown, SessionInfo


class DemoService:
    """The service behind the demo app: who is connected, who owns which name."""

    def __init__(self, owners: dict[str, str] | None = None) -> None:
        self.owners = owners or {}
        self.seated: set[str] = set()  # identities with a seat (returning players)
        self.ignore_shutdown = False
        self.apps: list[DemoApp] = []
        self.closed = False

    def make_app(self, session: SessionInfo) -> DemoApp:
        return DemoApp(session, self)

    def name_owner(self, nickname: str) -> str | None:
        return self.owners.get(nickname)

    def holds_seat(self, identity: str) -> bool:
        return identity in self.seated

    async def close(self) -> None:
        self.closed = True

    def joined(self, app: DemoApp) -> None:
        self.apps.append(app)
        self._announce()

    def left(self, app: DemoApp) -> None:
        self.apps.remove(app)
        self._announce()

    def _announce(self) -> None:
        names = tuple(sorted(app.name_shown for app in self.apps))
        for app in self.apps:
            app.post_message(DemoApp.Present(names))


def open_service(data_dir: Path) -> DemoService:
    return DemoService()


class DemoApp(App[None]):
    CSS = "Static { height: 1; } #flood { height: 1fr; }"

    class Present(Message):
        def __init__(self, names: tuple[str, ...]) -> None:
            super().__init__()
            self.names = names

    def __init__(self, session: SessionInfo, service: DemoService) -> None:
        super().__init__()
        self.session = session
        self.service = service
        self.name_shown = session.nickname or f"invité{session.session_id}"
        self._flood: Timer | None = None
        self._frame = 0
        self._keys = 0

    def compose(self) -> ComposeResult:
        session = self.session
        mode = f"spectateur {session.watch_table or '-'}" if session.watch_only else "joueur"
        if session.resume_token is not None:
            mode += f" reprise {session.resume_token}"
        if session.join_table is not None:
            mode += f" rejoindre {session.join_table} {session.join_code or '-'}"
        for line in (
            f"pseudo : {session.nickname or '?'} demander={session.must_ask_nickname}",
            f"identite : {session.identity or 'invite'}",
            f"mode : {mode}",
            f"term : {session.term} lang : {session.lang or '-'}",
        ):
            yield Static(line, markup=False)
        for name in ("size", "key", "keys", "paste", "present", "notice"):
            yield Static("", id=name, markup=False)
        yield Static("", id="flood", markup=False)

    def _show(self, name: str, text: str) -> None:
        self.query_one(f"#{name}", Static).update(text)

    def on_mount(self) -> None:
        self.service.joined(self)

    def on_unmount(self) -> None:
        self.service.left(self)

    def on_resize(self, event: events.Resize) -> None:
        self._show("size", f"taille : {event.size.width}x{event.size.height}")

    def on_key(self, event: events.Key) -> None:
        self._keys += 1
        self._show("key", f"touche : {event.key}")
        self._show("keys", f"touches : {self._keys}")
        if event.key == "q":
            self.exit()
        elif event.key == "x":
            raise RuntimeError("the demo app fails on purpose")
        elif event.key == "f" and self._flood is None:
            self._flood = self.set_interval(0.02, self._flood_frame)
        elif event.key == "s":
            self.deliver_screenshot()
        elif event.key == "u":
            self.open_url("https://example.com/")
        elif event.key == "p":
            print(f"print from session {self.session.session_id}")

    def _flood_frame(self) -> None:
        self._frame += 1
        width, height = self.size
        self._show("flood", f"trame {self._frame} " + f"{self._frame:x}" * (width * height // 4))

    def on_paste(self, event: events.Paste) -> None:
        self._show("paste", f"colle : {len(event.text)} caracteres")

    def on_demo_app_present(self, message: Present) -> None:
        self._show("present", "connectes : " + ", ".join(message.names))

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        self._show("notice", f"livraison refusee : {event.exception}")

    def on_server_shutdown(self, message: ServerShutdown) -> None:
        self._show("notice", f"le serveur s'arrete dans {message.grace:g} s")
        if not self.service.ignore_shutdown:
            self.set_timer(0.2, self.exit)

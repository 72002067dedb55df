"""CSS parsed once for the whole process (``configure_textual``), not once per app, with the
same result an app's own parse gives."""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from server.driver import configure_textual

CSS = "Static { color: $accent; padding: 0 1; }\n#title { text-style: bold; }"


def rules(variables: dict[str, str]) -> list[object]:
    stylesheet = Stylesheet(variables=variables)
    stylesheet.add_source(CSS, read_from=("test", "CSS"))
    stylesheet.parse()
    return list(stylesheet.rules)


def test_apps_share_parsed_css_for_the_same_theme() -> None:
    configure_textual()
    first = rules({"accent": "red"})
    again = rules({"accent": "red"})  # another app's stylesheet: no new parse
    assert [id(rule) for rule in again] == [id(rule) for rule in first]
    other = rules({"accent": "blue"})  # another theme: parsed for it
    assert [id(rule) for rule in other] != [id(rule) for rule in first]
    assert [rule.styles.css_lines[0] for rule in (first[0], other[0])] == [  # type: ignore[attr-defined]
        "color: #FF0000;", "color: #0000FF;"]
    assert len(first) == len(other) == 2

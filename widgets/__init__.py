"""Pioche's Textual widgets: dumb views of slices of a table or the lobby.

A widget takes plain values (reactive attributes, often ``rich.text.Text`` the screen built) and
posts intent messages; it never imports the coordinator or the server (design.md). Its look is
in its ``DEFAULT_CSS``.
"""

"""Screens: lobby, a table per game, help, scores; each with its .tcss beside it."""

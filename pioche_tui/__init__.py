"""Pioche: card games in the terminal, over SSH."""

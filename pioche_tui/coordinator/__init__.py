"""Lobby, tables, seats, spectators, turn timers, bot stand-ins and fan-out of views."""

"""Table logs (msgpack, append-only, replayable) and the SQLite database (players, results)."""

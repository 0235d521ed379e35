"""State directory: write-ahead log, catalog of sessions/turns/events, the Store facade."""

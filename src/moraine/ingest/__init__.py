"""Finding log files, tailing complete lines, and feeding batches to the Store."""

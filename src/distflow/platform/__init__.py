"""Program scaffolding with no graph in it: flags, ``app.run``, logging and file access."""

"""Command-line tools: ``distflow launch`` and ``distflow server``."""

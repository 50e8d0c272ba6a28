"""The sections of docs/REPRODUCTION.md, one module per seed case (scripts/studies/reproduction.py
runs them)."""

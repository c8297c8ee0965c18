"""``python -m workbench.app``: serve the studio (see ``serve.py``)."""

from workbench.app.serve import main

if __name__ == "__main__":  # not when a spawned process imports the main module again
    raise SystemExit(main())

"""``python -m workbench.app``: serve the studio (see ``serve.py``)."""

from workbench.app.serve import main

raise SystemExit(main())

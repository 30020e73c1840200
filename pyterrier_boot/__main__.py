"""``python -m pyterrier_boot``: the ``pyterrier-boot`` command (see :mod:`pyterrier_boot.cli`)."""
from pyterrier_boot.cli import main

raise SystemExit(main())

"""Make ``tests.strategies`` importable however pytest is started (the repository root on ``sys.path``)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

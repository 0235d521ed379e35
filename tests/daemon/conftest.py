import sys
from pathlib import Path

# The seeded log/text generators live next to the unit tests; share them, don't copy them.
_UNIT = str(Path(__file__).resolve().parent.parent / "unit")
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)

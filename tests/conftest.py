import sys
from pathlib import Path

# Lets tests import their helpers (tests/scenarios.py) as plain modules.
sys.path.insert(0, str(Path(__file__).parent))

"""Command-line entry point: ``python -m sklearn_selective COMMAND``."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())

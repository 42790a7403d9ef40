"""`python -m pipeline.stages.table`: write dvc.yaml from the table (--check, --markdown: the package's docstring)."""

import sys

from . import main

if __name__ == "__main__":  # importing the module (tests import every module) runs nothing
    sys.exit(main())

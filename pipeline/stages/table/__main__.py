"""`python -m pipeline.stages.table`: write dvc.yaml from the table (--check, --markdown: the package's docstring)."""

import sys

from . import main

sys.exit(main())

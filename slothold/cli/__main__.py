"""`python -m slothold.cli ...`: the same as the `slothold` command."""

import sys

from slothold.cli import main

sys.exit(main())

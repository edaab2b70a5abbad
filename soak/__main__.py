"""`python -m soak` (`make soak`): see soak.harness."""

import sys

from soak.harness import main

sys.exit(main())

import sys

from rt.cli import main

sys.exit(main())

import sys

from rt.cli import process_main

sys.exit(process_main())

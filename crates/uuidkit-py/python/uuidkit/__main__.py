"""``python -m uuidkit``: the standard module's command line, with uuidkit's generators."""

from uuidkit import main

main()

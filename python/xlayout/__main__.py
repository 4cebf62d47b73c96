"""``python -m xlayout ARGS``: the ``xlayout`` command."""

from ._cli import main

main()

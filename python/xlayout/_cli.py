"""The ``xlayout`` console script: the command's own code (``xlayout_cli::main_with_args``)
on this process's standard input, output and error, so that it behaves as the Rust binary."""

import signal
import sys

from . import _xlayout


def main() -> None:
    # Ctrl-C ends the command as it ends the binary (Python would only set a flag that the
    # Rust code never looks at). SIGPIPE is ignored by both: a closed pipe is an error on
    # write, which the command turns into a quiet exit with status 0.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # The program's name as the binary's usage lines print it.
    sys.exit(_xlayout.main(["xlayout", *sys.argv[1:]]))


if __name__ == "__main__":
    main()

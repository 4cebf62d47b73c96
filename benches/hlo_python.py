#!/usr/bin/env python3
"""`xlayout.hlo` on the 100 MB benchmark dump against the command on the same file.

`xlayout.hlo(path)` reads the module and computes, in one call with the GIL released, what
two commands print: the report of `xlayout hlo --format json` and the peak of
`xlayout hlo --peak --format json` (plus the HTML page). Timed alternately, in rounds:

- the command `xlayout hlo --format json DUMP > /dev/null` (the release binary);
- the command `xlayout hlo --peak --format json DUMP > /dev/null`;
- `xlayout.hlo(DUMP)` (its rows stay JSON until asked for);
- `xlayout.hlo(DUMP).rows` (every instruction's record as a dict).

The dump is the one `benches/hlo.rs` writes (`HLO_BENCH_MB=100 cargo bench --bench hlo --
--test` leaves `target/hlo-bench-100mb.txt`). Run:
`python3 benches/hlo_python.py target/hlo-bench-100mb.txt target/release/xlayout`
(`--rounds N`, default 5). Medians in seconds, and the ratios.
"""

import argparse
import statistics
import subprocess
import time

import xlayout


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dump")
    parser.add_argument("command")
    parser.add_argument("--rounds", type=int, default=5)
    a = parser.parse_args()

    def command(*flags):
        def run():
            subprocess.run([a.command, "hlo", *flags, "--format", "json", a.dump],
                           stdout=subprocess.DEVNULL, check=False)
        return run

    cases = {
        "command hlo --format json": command(),
        "command hlo --peak --format json": command("--peak"),
        "xlayout.hlo(dump)": lambda: xlayout.hlo(a.dump),
        "xlayout.hlo(dump).rows": lambda: len(xlayout.hlo(a.dump).rows),
    }
    times = {k: [] for k in cases}
    for _ in range(a.rounds):
        for k, f in cases.items():
            times[k].append(timed(f))
    med = {k: statistics.median(v) for k, v in times.items()}
    for k in cases:
        print(f"  {k:34} median {med[k]:6.2f} s  best {min(times[k]):6.2f} s")
    report, peak = med["command hlo --format json"], med["command hlo --peak --format json"]
    print(f"  xlayout.hlo / (report + peak commands): {med['xlayout.hlo(dump)'] / (report + peak):.3f}")
    print(f"  xlayout.hlo / report command:           {med['xlayout.hlo(dump)'] / report:.3f}")
    print(f"  .rows / (report + peak commands):       {med['xlayout.hlo(dump).rows'] / (report + peak):.3f}")


if __name__ == "__main__":
    main()

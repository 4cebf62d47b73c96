#!/usr/bin/env bash
# The release build on the hostile inputs of tests/support/src/hostile.rs (the hostile-input
# rounds of issues 24 and 31), each generated into a scratch directory, measured, and deleted: CPU seconds (user +
# system), peak resident memory and exit status from GNU time, and whether the same run
# finishes under `ulimit -v` of 1 GiB. `wc -l` of the same file is the floor, in the same
# run, and `plain` (an ordinary module as dense in instructions as the densest classes) the
# baseline. `hlo`, `peak` and `oom` print their tables (`--format table`): a pipe would otherwise
# get TSV, a row per instruction, output as large as the input. Prints a Markdown table
# (BENCHMARKS.md, "Hostile input", with issue 31's classes: one-line, aliased-outputs,
# deep-tuples, padded-leaves, short-leaves, oom-number, oom-entries; the history in
# docs/benchmarks-history.md).
#
# Two classes are not in the default list (issue 31's, run by name): `join`, `oom --hlo` on
# a report of MB megabytes whose every entry names the one instruction of a dump of 6/7 of
# that (the issue's 0.7 MB and 0.6 MB at MB=0.7), in each format, the bytes written to
# standard output beside those of standard error; and `space-files`, `hlo` over 4,000 files per MB (the issue's 80,000 at
# MB=20), each a module whose one instruction is in a memory space of its own (the size is
# that of the files together; `wc -l` reads them concatenated).
#
#   bash benches/hostile.sh [MB] [XLAYOUT] [TIMEOUT_SECONDS] [CLASS...]
#
# MB defaults to 20; XLAYOUT to target/release/xlayout (built first); TIMEOUT to 300.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-20}
exe=${2:-target/release/xlayout}
limit=${3:-300}
shift $(( $# < 3 ? $# : 3 ))
classes=("$@")
if [ ${#classes[@]} -eq 0 ]; then
    classes=(plain strings comments lone-cr gte-chain same-branch space-per-instruction space-per-leaf
        while-conditions alias-pairs bad-index-gtes aliased-outputs one-line deep-tuples padded-leaves
        short-leaves not-utf8-lines oom-lines oom-number oom-entries shape-lines endless-line)
fi
cargo build --release -p xlayout-cli </dev/null >&2
cargo build --release --example hostile_input </dev/null >&2
gen=target/release/examples/hostile_input
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# `measure NAME STDIN-FILE ARGS...`: one table row.
measure() {
    local name=$1 input=$2
    shift 2
    local t=$dir/time status cpu rss base vm
    set +e
    timeout "$limit" /usr/bin/time -v -o "$t" "$@" <"$input" >"$dir/out" 2>"$dir/err"
    status=$?
    (ulimit -v $((1 << 20)) && exec timeout "$limit" "$@" <"$input" >/dev/null 2>&1)
    vm=$?
    set -e
    if [ "$status" -eq 124 ]; then
        cpu="> $limit s (stopped)"
        rss="-"
    else
        cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f s", u + s}' "$t")
        rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f MiB", $2 / 1024}' "$t")
    fi
    base=$( { /usr/bin/time -f '%U %S' wc -l <"$input" >/dev/null; } 2>&1 | awk '{printf "%.2f s", $1 + $2}')
    local err
    err="$(wc -c <"$dir/err") B"
    if [ "${with_stdout:-}" = 1 ]; then
        err="$err (stdout $(wc -c <"$dir/out") B)"
    fi
    printf '| %s | %s MB | %s | %s | %s | %s | %s | %s |\n' "$name" "$(awk -v b="$(wc -c <"$input")" 'BEGIN {printf "%.1f", b / 1e6}')" \
        "$cpu" "$rss" "$status" "$vm" "$base" "$err"
}

echo "| input | size | CPU | peak RSS | exit | exit under 1 GiB | \`wc -l\` CPU | stderr |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for class in "${classes[@]}"; do
    f=$dir/input
    case $class in
    endless-line)
        head -c "$((mb * 1000000))" /dev/zero | tr '\0' 'f' >"$f"
        for cmd in canon bytes explain; do
            if [ "$cmd" = explain ]; then
                measure "endless line, \`$cmd -\`" "$f" "$exe" explain -
            else
                measure "endless line, \`$cmd\`" "$f" "$exe" "$cmd"
            fi
        done
        measure "endless line, \`offset f32[4] -\`" "$f" "$exe" offset 'f32[4]{0}' -
        ;;
    join)
        # The report is the measured input (standard input); the dump a file beside it.
        "$gen" join-dump "$(awk -v m="$mb" 'BEGIN {print m * 6 / 7}')" >"$dir/dump"
        "$gen" join-report "$mb" >"$f"
        for format in json tsv table; do
            with_stdout=1 measure "join (dump $(wc -c <"$dir/dump") B), \`oom --hlo --format $format\`" \
                "$f" "$exe" oom --format "$format" --hlo "$dir/dump" -
        done
        rm -f "$dir/dump"
        ;;
    space-files)
        files=$(awk -v m="$mb" 'BEGIN {printf "%d", m * 4000}')
        mkdir "$dir/files"
        # Each file, and all of them in one (too many names for `cat`'s command line).
        awk -v n="$files" -v d="$dir/files" -v all="$f" 'BEGIN {
            for (k = 0; k < n; k++) {
                f = sprintf("%s/m%06d.after_optimizations.txt", d, k)
                m = sprintf("HloModule m%d\n\nENTRY %%e {\n  ROOT %%p = f32[1]{0:S(%d)} parameter(0)\n}\n", k, k)
                printf "%s", m > f
                printf "%s", m > all
                close(f)
            }
        }'
        measure "space-files ($files files), \`hlo\`" "$f" "$exe" hlo --format table "$dir/files"
        measure "space-files ($files files), \`hlo --format json\`" "$f" "$exe" hlo --format json "$dir/files"
        rm -rf "$dir/files"
        ;;
    plain)
        # The baseline: the lone-cr module with ordinary line ends, an ordinary module of
        # as many instructions as the densest classes.
        "$gen" lone-cr "$mb" | tr '\r' '\n' >"$f"
        measure "plain module (lone-cr with \\n), \`hlo\`" "$f" "$exe" hlo --format table -
        measure "plain module (lone-cr with \\n), \`peak\`" "$f" "$exe" peak --format table -
        ;;
    *)
        "$gen" "$class" "$mb" >"$f"
        case $class in
        shape-lines)
            measure "$class, \`canon\`" "$f" "$exe" canon
            ;;
        oom-lines | oom-number | oom-entries)
            measure "$class, \`oom\`" "$f" "$exe" oom --format table -
            ;;
        not-utf8-lines)
            measure "$class, \`hlo\`" "$f" "$exe" hlo --format table -
            measure "$class, \`peak\`" "$f" "$exe" peak --format table -
            measure "$class, \`oom\`" "$f" "$exe" oom --format table -
            ;;
        *)
            measure "$class, \`hlo\`" "$f" "$exe" hlo --format table -
            measure "$class, \`peak\`" "$f" "$exe" peak --format table -
            ;;
        esac
        ;;
    esac
    rm -f "$f"
done

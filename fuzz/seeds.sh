#!/usr/bin/env bash
# Regenerates fuzz/seeds/<target>/ from the repository's test data: the conformance shapes
# (tests/data/*.json) and the JAX CPU dumps (tests/data/hlo/). Each seed file is named by
# the SHA-1 of its content, as libFuzzer names corpus files. Needs jq and sha1sum.
#
#   bash fuzz/seeds.sh
#
# The bounded property test (tests/fuzz_props.rs) runs every seed through the same checks.
set -euo pipefail
cd "$(dirname "$0")/.."
data=tests/data
out=fuzz/seeds

# Writes standard input to $out/$1/<sha1>.
seed() {
    local dir=$out/$1 tmp
    tmp=$(mktemp)
    cat >"$tmp"
    mkdir -p "$dir"
    mv "$tmp" "$dir/$(sha1sum <"$tmp" | cut -c1-40)"
}

# Every shape text of the conformance data, once each, one per line.
shapes() {
    jq -r '.cases[] | (.input, .shape, .canonical) | strings' \
        "$data"/parse_print.json "$data"/validate.json "$data"/byte_size.json \
        "$data"/linear_index.json "$data"/doc_examples.json "$data"/hlo/xla_sizes.json |
        sort -u
}

# The arrays whose every offset the conformance data lists: small, tiled, XLA's own values.
indexed() {
    jq -r '.cases[].shape' "$data"/linear_index.json "$data"/doc_examples.json | sort -u
}

rm -rf "$out"
while IFS= read -r s; do printf '%s' "$s" | seed shape_text; done < <(shapes)
# The structured targets read text after a 0 byte (see tests/support/src/checks/mod.rs).
while IFS= read -r s; do printf '\0%s' "$s" | seed plan; done < <(shapes)
while IFS= read -r s; do
    plain=${s%%\{*} # the same array in XLA's default layout
    printf '\0%s\n%s' "$plain" "$s" | seed relayout
    printf '\0%s\n%s' "$s" "$plain" | seed relayout
done < <(indexed)
# Pictures: each conformance array as text after a 0 byte, and the shapes that once asked a
# picture for gigabytes (a size of 0 under enormous tiles).
while IFS= read -r s; do printf '\0%s' "$s" | seed draw; done < <(indexed)
for s in 'u8[0,1]{1,0:T(2147483648,2147483648)}' 'f32[0,5]{1,0:T(2,9223372036854775807)}'; do
    printf '\0%s' "$s" | seed draw
done
for f in "$data"/hlo/jax_cpu/*/after_optimizations.txt; do seed hlo <"$f"; done
# A module, then XLA's buffer assignment and live ranges beside it, separated by 0 bytes.
for d in "$data"/hlo/jax_cpu/*/; do
    { cat "$d"after_optimizations.txt; printf '\0'; cat "$d"buffer_assignment.txt
      printf '\0'; cat "$d"live_range.txt; } | seed peak
done
for f in "$data"/oom/*.txt; do seed oom <"$f"; done
ls "$out" | while read -r t; do echo "$t: $(ls "$out/$t" | wc -l) seeds"; done

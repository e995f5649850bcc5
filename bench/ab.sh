#!/usr/bin/env bash
# Paired A/B of two builds with the load harness (docs/performance.md): every scenario line of the given
# files runs ROUNDS times with each build, alternating which goes first, and the summary is a
# markdown table per scenario with the median of every figure and the candidate's change in %.
# On a shared, noisy machine only a side-by-side comparison in one run means anything.
#
#   BASELINE=build-a/cli/uactor CANDIDATE=build-b/cli/uactor [ROUNDS=3] [OUT=dir] \
#     bench/ab.sh bench/scenarios/read.txt [more.txt ...]
#
# A scenario file holds one `uactor load` argument list per line (# comments, blank lines
# skipped); --json is added. Each build runs its own harness and its own server (`uactor load`
# runs the uactor-load beside that uactor, which starts the uactor beside it).
# Needs jq and awk. Exit status: 0, or 1 when a run failed (its row says so).
set -uo pipefail

: "${BASELINE:?BASELINE=path/to/uactor (the build to compare against)}"
: "${CANDIDATE:?CANDIDATE=path/to/uactor (the build under test)}"
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$(mktemp -d /tmp/uactor-ab.XXXXXX)}
[[ $# -ge 1 ]] || { echo "usage: BASELINE=... CANDIDATE=... $0 bench/scenarios/FILE.txt..." >&2; exit 2; }
command -v jq >/dev/null || { echo "ab.sh: needs jq" >&2; exit 2; }
for b in "$BASELINE" "$CANDIDATE"; do [[ -x $b ]] || { echo "ab.sh: not an executable: $b" >&2; exit 2; }; done
mkdir -p "$OUT"

failed=0
n=0
summary="$OUT/summary.md"
{
  echo "# A/B: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "- baseline: \`$BASELINE\`"
  echo "- candidate: \`$CANDIDATE\`"
  echo "- $ROUNDS rounds, alternating which build goes first; medians; change = candidate vs baseline"
} > "$summary"

# Medians of every numeric field of a file of JSON lines: "key median" per line.
medians() {
  jq -r 'to_entries[] | select(.value | type == "number") | "\(.key) \(.value)"' "$1" |
    sort -k1,1 -k2,2g |
    awk '{ k[$1] = k[$1] " " $2; c[$1]++ }
         END { for (key in k) { split(substr(k[key], 2), v, " "); m = c[key];
               med = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2; print key, med } }' | sort
}

for file in "$@"; do
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%%#*}
    [[ -z ${line// } ]] && continue
    n=$((n + 1))
    base="$OUT/$n.baseline.jsonl"; cand="$OUT/$n.candidate.jsonl"
    : > "$base"; : > "$cand"
    for ((r = 1; r <= ROUNDS; r++)); do
      if ((r % 2)); then order=(baseline candidate); else order=(candidate baseline); fi
      for who in "${order[@]}"; do
        if [[ $who == baseline ]]; then bin=$BASELINE; dest=$base; else bin=$CANDIDATE; dest=$cand; fi
        echo "ab.sh: [$n round $r/$ROUNDS] $who: uactor load $line" >&2
        # shellcheck disable=SC2086  # the line is an argument list
        if ! out=$("$bin" load $line --json 2>>"$OUT/$n.stderr"); then
          echo "ab.sh: $who failed (see $OUT/$n.stderr)" >&2
          failed=1
        fi
        [[ -n $out ]] && echo "$out" | tail -n 1 >> "$dest"
      done
    done
    {
      echo
      echo "## \`uactor load $line\`"
      echo
      if [[ ! -s $base || ! -s $cand ]]; then echo "(a build produced no result)"; continue; fi
      echo "| figure | baseline | candidate | change |"
      echo "|---|---:|---:|---:|"
      join <(medians "$base") <(medians "$cand") |
        awk '$1 !~ /^(sessions|inflight|nodes|request_bytes|response_bytes|warmup_s|window_s)$/ {
               change = ($2 != 0) ? sprintf("%+.1f %%", ($3 - $2) / $2 * 100) : (($3 == 0) ? "0 %" : "n/a");
               printf "| %s | %g | %g | %s |\n", $1, $2, $3, change }'
    } >> "$summary"
  done < "$file"
done

cat "$summary"
echo >&2 "ab.sh: results in $OUT"
exit $failed

#!/usr/bin/env bash
# Regenerates the node-opcua test vectors into a temporary directory and
# compares them with the committed tests/interop/vectors.
# Exit 0 when identical, 77 (ctest's skip) when node_modules is missing (run `npm ci`
# first; scripts/setup.sh does), 1 when they differ or generation fails.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ ! -d "$here/node_modules" ]; then
    echo "skipped: node_modules missing"
    exit 77
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if ! node "$here/make_vectors.js" "$tmp" >"$tmp.log" 2>&1; then
    cat "$tmp.log"
    rm -f "$tmp.log"
    echo "check_vectors: make_vectors.js failed"
    exit 1
fi
rm -f "$tmp.log"

if diff -rq "$here/vectors" "$tmp" >/dev/null; then
    echo "check_vectors: $(ls "$tmp"/*.bin | wc -l) vectors identical"
    exit 0
fi

echo "check_vectors: regenerated vectors differ from tests/interop/vectors"
diff -rq "$here/vectors" "$tmp" | sed "s#$tmp#<regenerated>#g"
for f in "$here"/vectors/*.bin; do
    name="$(basename "$f")"
    if [ -f "$tmp/$name" ] && ! cmp -s "$f" "$tmp/$name"; then
        echo "--- $name committed:   $(od -An -v -tx1 "$f" | tr -d ' \n')"
        echo "+++ $name regenerated: $(od -An -v -tx1 "$tmp/$name" | tr -d ' \n')"
    fi
done
if ! cmp -s "$here/vectors/manifest.json" "$tmp/manifest.json"; then
    diff "$here/vectors/manifest.json" "$tmp/manifest.json"
fi
exit 1

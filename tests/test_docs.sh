#!/usr/bin/env bash
# test_docs.sh - the pages made from the program match it.
#
# docs/REFERENCE.md is `nbody --help-markdown`: the key, knob and option
# tables the program itself dispatches from, so a key or flag added,
# removed or renamed without regenerating the page fails here (regenerate:
# build/nbody --help-markdown > docs/REFERENCE.md).
#
#     test_docs.sh NBODY SOURCE_DIR
set -euo pipefail
nbody=$1
src=$2
fail=0

if ! diff -u "$src/docs/REFERENCE.md" <("$nbody" --help-markdown) > /tmp/test_docs.$$.diff; then
    echo "FAIL: docs/REFERENCE.md differs from nbody --help-markdown:"
    head -40 /tmp/test_docs.$$.diff
    echo "(regenerate: build/nbody --help-markdown > docs/REFERENCE.md)"
    fail=1
fi
rm -f /tmp/test_docs.$$.diff

if [ $fail -eq 0 ]; then
    echo "test_docs: docs/REFERENCE.md matches the program"
fi
exit $fail

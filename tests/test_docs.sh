#!/usr/bin/env bash
# test_docs.sh - the pages made from the program match it.
#
# docs/REFERENCE.md is `nbody --help-markdown`: the key, knob and option
# tables the program itself dispatches from, so a key or flag added,
# removed or renamed without regenerating the page fails here (regenerate:
# build/nbody --help-markdown > docs/REFERENCE.md). Every key the README's
# key table names is one the program's help lists, by the same label.
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

# The README's key table: rows "| `LABEL` | ... |" after its "| key | ..."
# header, up to the next blank line.
help_keys=$("$nbody" --help | sed -n '/^keys/,$p')
labels=$(awk '/^\| key \|/ {t = 1; next} t && /^$/ {t = 0} t && /^\| `/ {print}' "$src/README.md" |
         sed -E 's/^\| `([^`]*)`.*/\1/')
if [ -z "$labels" ]; then
    echo "FAIL: README.md has no key table (a '| key |' header, rows starting '| \`LABEL\` |')"
    fail=1
fi
while IFS= read -r label; do
    [ -z "$label" ] && continue
    if ! grep -qF -- "  $label " <<< "$help_keys"; then
        echo "FAIL: README.md's key '$label' is not a key of nbody --help"
        fail=1
    fi
done <<< "$labels"

if [ $fail -eq 0 ]; then
    echo "test_docs: docs/REFERENCE.md and the README's $(wc -l <<< "$labels") keys match the program"
fi
exit $fail

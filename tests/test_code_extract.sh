#!/usr/bin/env bash
# test_code_extract.sh - the build's cut of each method's key lines
# (sim/sim_code.cmake) fails, naming the file and the method, when the marked
# regions are wrong; and succeeds on the sources as they are.
#
# Each case runs the script as the build does, on a copy of sim/'s marked
# sources and list with one thing broken: a marker removed (an end, then
# both), a region duplicated, a region emptied, a region the list does not
# name, a malformed marker. The build runs the same command
# (CMakeLists.txt), so a failure here is a failed build there.
#
#     test_code_extract.sh CMAKE SOURCE_DIR
set -uo pipefail
cmake=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# A fresh copy of what the script reads, in $tmp/case.
fresh() {
    rm -rf "$tmp/case"
    mkdir -p "$tmp/case/sim"
    cp "$src"/sim/sim_code.list "$src"/sim/sim_kernels.cu "$src"/sim/sim_tree.cu \
       "$src"/sim/sim_cpu.c "$src"/sim/sim_tree_cpu.c "$tmp/case/sim/"
}

cut() {
    "$cmake" -DSOURCE_DIR="$tmp/case" -DLIST="$tmp/case/sim/sim_code.list" \
        -DOUT="$tmp/case/sim_code.h" -P "$src/sim/sim_code.cmake" > "$tmp/out" 2>&1
}

# expect_fail NAME PATTERN...: the cut fails and its message matches every PATTERN.
expect_fail() {
    local name=$1
    shift
    if cut; then
        echo "FAIL: $name: the cut succeeded"
        fail=1
        return
    fi
    for pattern in "$@"; do
        if ! grep -qE -- "$pattern" "$tmp/out"; then
            echo "FAIL: $name: the message does not match '$pattern':"
            cat "$tmp/out"
            fail=1
            return
        fi
    done
    echo "ok: $name: $(grep -m1 'lecture code' "$tmp/out" | sed 's/^ *//')"
}

# The sources as they are: a header with every listed method.
fresh
if ! cut; then
    echo "FAIL: the cut fails on the sources as they are:"
    cat "$tmp/out"
    fail=1
else
    for macro in SIM_CODE_CUDA_NAIVE SIM_CODE_CUDA_RSQRT SIM_CODE_CUDA_TREE SIM_CODE_CPU_REFERENCE \
                 SIM_CODE_CPU_TREE; do
        grep -q "^#define $macro " "$tmp/case/sim_code.h" || {
            echo "FAIL: the header has no $macro"
            fail=1
        }
    done
    grep -q 'rsqrtf(dsq + eps2)' "$tmp/case/sim_code.h" || {
        echo "FAIL: rsqrt's line is not in the header"
        fail=1
    }
fi

# One marker removed: rsqrt's end, so tiled's begin falls inside rsqrt.
fresh
sed -i '/\/\* lecture: end rsqrt \*\//d' "$tmp/case/sim/sim_kernels.cu"
expect_fail "end marker removed" "sim/sim_kernels.cu" "'rsqrt'" "unbalanced"

# The last region's end removed: a begin with no end at all.
fresh
sed -i '/\/\* lecture: end best-loop \*\//d' "$tmp/case/sim/sim_kernels.cu"
expect_fail "last end marker removed" "sim/sim_kernels.cu:[0-9]+" "'best-loop' \(method best\)" \
    "no end"

# Both markers removed: the region is missing.
fresh
sed -i '/\/\* lecture: \(begin\|end\) rsqrt \*\//d' "$tmp/case/sim/sim_kernels.cu"
expect_fail "region missing" "sim/sim_kernels.cu" "'rsqrt' of method rsqrt is missing"

# A begin marker removed: an end with no begin.
fresh
sed -i '/\/\* lecture: begin reference \*\//d' "$tmp/case/sim/sim_cpu.c"
expect_fail "begin marker removed" "sim/sim_cpu.c:[0-9]+" "'reference' \(method reference\)" \
    "no begin"

# A region marked twice.
fresh
printf '/* lecture: begin soa */\nint x;\n/* lecture: end soa */\n' >> "$tmp/case/sim/sim_kernels.cu"
expect_fail "region duplicated" "sim/sim_kernels.cu:[0-9]+" "'soa' \(method soa\) is duplicated"

# A listed region with nothing in it.
fresh
sed -i 's/^\(cuda naive .*\)$/\1 naive-extra/' "$tmp/case/sim/sim_code.list"
printf '/* lecture: begin naive-extra */\n\n/* lecture: end naive-extra */\n' \
    >> "$tmp/case/sim/sim_kernels.cu"
expect_fail "region empty" "sim/sim_kernels.cu:[0-9]+" "'naive-extra' of method naive is empty"

# A region the list does not name.
fresh
printf '/* lecture: begin stray */\nint x;\n/* lecture: end stray */\n' >> "$tmp/case/sim/sim_tree.cu"
expect_fail "region not listed" "sim/sim_tree.cu:[0-9]+" "'stray' is not in"

# A marker written wrong.
fresh
sed -i 's|/\* lecture: begin fma \*/|/* lecture: begin fma*/|' "$tmp/case/sim/sim_kernels.cu"
expect_fail "malformed marker" "sim/sim_kernels.cu:[0-9]+" "malformed marker"

exit $fail

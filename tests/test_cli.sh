#!/usr/bin/env bash
# test_cli.sh - every flag's bad values are refused the same way, and every
# flag --help lists has its bad values tried here.
#
#   test_cli.sh NBODY CUDA_AVAILABLE
#
# A refused value: exit status 2, a line starting "nbody: " that names the
# flag and quotes the user's own text of the value, then a "hint: " line, and
# no file left behind (--screenshot, --dump, --status-json, --json are all
# pointed into a scratch folder that must stay empty). Each numeric flag is
# tried with NaN, inf, -inf, overflow (1e39 past float, 1e400 past double),
# underflow (1e-400 always, 1e-50 where the range excludes it), just outside
# its range on both sides, empty (--flag= and --flag ''), trailing junk and,
# where negatives are not allowed, -1; whole-number flags also with 1.5 and
# a value past 64 bits. Enum flags: an unknown name and empty. Switches:
# =1. Output files: empty, in a missing folder, a folder (non-zero exit,
# "nbody:" and "hint:", nothing written); output folders: empty, in a
# missing folder, a file. Both ends of each range must be
# accepted, checked at parse time: "--flag VALUE --help" parses VALUE, then
# prints help and exits 0 without running; this needs flags parsed in
# order, which "--dt -1 --help" (must exit 2) checks first.
#
# The flag list comes from `nbody --help`: a flag there that the table below
# does not describe fails the test, so a new flag needs its bad values here.
# (tests/test_numbers.py runs every range's ends, from --help-markdown.)
#
# Then flags that a run would ignore or that contradict each other, each
# refused with exit 2: --p and --q with --backend cpu, the run's own flags
# with --benchmark, --record-size, --record-hud and --record-fps where
# nothing records, the merger's orbit flags on a scene without one, and an
# orbit the merger cannot start on; and the combinations that do run.
set -u
nbody=$1
cuda_available=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0
# A refused run must end at once; one that was wrongly accepted runs a tiny
# scene, and this limit stops anything that would run long instead. SIGTERM
# lets nbody finish its frame and write its outputs, which for a huge N can
# take minutes, so SIGKILL follows $grace seconds later.
limit=20
grace=5

fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}

# leftovers: files in $tmp other than the captured output and the fixtures.
leftovers() {
    find "$tmp" -mindepth 1 -not -name '.stdout' -not -name '.stderr' -not -name 'adir' \
        -not -name 'fixtures' -not -path "$tmp/fixtures/*"
}

# expect_refusal DESCRIPTION ARGS... : exits non-zero, says nbody: and hint:,
# writes nothing into $tmp.
expect_refusal() {
    local what=$1
    shift
    checks=$((checks + 1))
    timeout -k "$grace" "$limit" "$nbody" "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"
    local rc=$?
    local left
    left=$(leftovers)
    if [ "$rc" -eq 0 ]; then
        fail "($what): exit 0 for: $*"
    elif ! grep -q '^nbody: ' "$tmp/.stderr" || ! grep -q '^hint: ' "$tmp/.stderr"; then
        fail "($what): no 'nbody:' + 'hint:' lines for: $*"; cat "$tmp/.stderr"
    elif [ -n "$left" ]; then
        fail "($what): left files behind: $left"
    else
        echo "ok   ($what): exit $rc: $(head -n 1 "$tmp/.stderr")"
    fi
    rm -rf "$tmp/out.png" "$tmp/out.csv" "$tmp/s.json" "$tmp/b.json" "$tmp/b.png"
}
# expect_reason DESCRIPTION TEXT: the refusal just checked said TEXT (so it
# was refused for the reason meant, not another).
expect_reason() {
    checks=$((checks + 1))
    grep -q -- "$2" "$tmp/.stderr" || { fail "($1): refused, but not for '$2'"; cat "$tmp/.stderr"; }
}

# The arguments of a small, quick run that writes every output file into
# $tmp, leaving out the flag under test (so that flag's value is the only
# one given). "bench" is a --benchmark run for the benchmark's own flags.
context() { # context run|bench FLAG
    local kind=$1 skip=$2 args
    if [ "$kind" = bench ]; then
        args=(--benchmark --backend cpu --n 8 --steps 1 --json "$tmp/b.json")
    else
        args=(--headless --backend cpu --n 8 --frames 1 --width 16 --height 16
              --screenshot "$tmp/out.png" --dump "$tmp/out.csv" --status-json "$tmp/s.json")
    fi
    local i
    ctx=()
    for ((i = 0; i < ${#args[@]}; i++)); do
        if [ "${args[i]}" = "--$skip" ]; then
            case ${args[i + 1]:-} in --*|'') ;; *) i=$((i + 1)) ;; esac
            continue
        fi
        ctx+=("${args[i]}")
    done
}

# expect_bad_value KIND FLAG VALUE [eq]: the shape of a refused value (exit 2,
# "nbody: " line naming the flag and quoting VALUE, then "hint: ", no files).
# With eq the value is given as --FLAG=VALUE, else as two arguments.
expect_bad_value() {
    local kind=$1 flag=$2 value=$3 form=${4:-}
    context "$kind" "$flag"
    local arg=("--$flag" "$value")
    [ "$form" = eq ] && arg=("--$flag=$value")
    checks=$((checks + 1))
    timeout -k "$grace" "$limit" "$nbody" "${ctx[@]}" "${arg[@]}" >"$tmp/.stdout" 2>"$tmp/.stderr"
    local rc=$?
    local left shown
    left=$(leftovers)
    shown=$(printf '%s ' "${arg[@]}")
    # The first "nbody: " line that names the flag (with or without --, as a
    # whole word) and quotes the value's text ('' for an empty one), and a
    # "hint: " line after it.
    local line
    line=$(awk -v flag="$flag" -v value="$value" '
        /^nbody: / && !found && index($0, "\047" value "\047") &&
            (index($0, "--" flag) || match($0, "(^|[^-[:alnum:]])" flag "([^-[:alnum:]]|$)")) {
            found = NR; text = $0 }
        /^hint: / && found && NR > found { print text; exit }' "$tmp/.stderr")
    if [ "$rc" -ne 2 ]; then
        fail "(${shown% }): exit $rc, expected 2"; head -n 3 "$tmp/.stderr"
    elif [ -z "$line" ]; then
        fail "(${shown% }): no 'nbody:' line naming --$flag with '$value', then 'hint:'"
        cat "$tmp/.stderr"
    elif [ -n "$left" ]; then
        fail "(${shown% }): left files behind: $left"
    else
        echo "ok   (${shown% }): $line"
    fi
    rm -rf "$tmp/out.png" "$tmp/out.csv" "$tmp/s.json" "$tmp/b.json" "$tmp/b.png"
}

# A parse-time acceptance check: "--FLAG VALUE --help" exits 0 when VALUE is
# accepted (help comes after it), 2 when refused. First make sure the parser
# reads flags in order, so that a refused value before --help still fails.
"$nbody" --dt -1 --help >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
    fail "(--dt -1 --help): exit 0: --help is handled before the flags before it," \
        "so the range ends cannot be checked at parse time"
    parse_order=false
elif [ "$rc" -ne 2 ]; then
    fail "(--dt -1 --help): exit $rc, expected 2 (a bad command line)"
    parse_order=false
else
    parse_order=true
fi
expect_accepted() { # FLAG VALUE
    $parse_order || return 0
    checks=$((checks + 1))
    if "$nbody" "--$1" "$2" --help >/dev/null 2>"$tmp/.stderr"; then
        echo "ok   (--$1 $2 accepted)"
    else
        fail "(--$1 $2): refused, but it is inside the range"; cat "$tmp/.stderr"
    fi
}

# The table: every flag with a value, and every switch.
#   name  kind  context  lowest highest  just-below just-above
# kind: int, real (checked as a double), enum (a good name), file (output),
# input (a file read), switch. A range "lo hi" is inclusive.
table='
n                int    run   1      2147483647           0         2147483648
p                int    run   1      1024                 0         1025
q                int    run   1      1024                 0         1025
gpus             int    run   1      16                   0         17
steps-per-frame  int    run   1      100000               0         100001
frames           int    run   1      2147483647           0         2147483648
width            int    run   16     16384                15        16385
height           int    run   16     16384                15        16385
seed             int    run   0      18446744073709551615 -1        18446744073709551616
status-every     int    run   1      2147483647           0         2147483648
steps            int    bench 1      1000000              0         1000001
dt               real   run   1e-6   10                   9.99e-7   10.01
softening        real   run   1e-6   100                  9.99e-7   100.1
damping          real   run   0.5    1                    0.499     1.001
theta            real   run   0.05   1                    0.0499    1.001
tree-alpha       real   run   1e-4   1                    9.99e-5   1.001
mass-ratio       real   run   0.01   100                  0.00999   100.1
pericenter       real   run   0.001  100000               0.000999  100001
separation       real   run   0.001  100000               0.000999  100001
eccentricity     real   run   0.001  10                   0.000999  10.01
incl1            real   run   -360   360                  -360.1    360.1
incl2            real   run   -360   360                  -360.1    360.1
disk-temperature real   run   0.1    10                   0.0999    10.01
hud-scale        real   run   0.25   8                    0.249     8.01
ic               enum   run   cube
backend          enum   run   tpu
variant          enum   run   warp9
preset           enum   run   nowhere-galaxy
screenshot       file   run
dump             file   run
status-json      file   run
json             file   bench
plot             file   bench
script           input  run
load             input  run
headless         switch run
host-copy        switch run
sprites          enum   run   fast
no-vsync         switch run
retrograde       switch run
no-hud           switch run
benchmark        switch run
frame            switch bench
help             switch run
help-markdown    switch run
fullscreen       switch run
record           file   run
record-fps       int    run   1      240                  0         241
record-size      enum   run   15x15
record-hud       switch run
frames-dir       outdir run
encode           input  run
progress         switch run
profile          switch run
snapshot-every   int    run   1      2147483647           0         2147483648
camera-path      input  run
play-speed       real   run   0.001  1000                 0.0009    1001
view             enum   run   contour
density-max      real   run   1e-30  1e30                 0         1e31
density-stretch  enum   run   linear
lecture          switch run
spread           switch run
no-spread        switch run
draw-max         int    run   1      2147483647           0         2147483648
'

mkdir -p "$tmp/adir" "$tmp/fixtures"
help_flags=$("$nbody" --help | sed -n 's/^  --\([a-z0-9][a-z0-9-]*\).*/\1/p')
[ -n "$help_flags" ] || fail "(--help): lists no flags"
for f in $help_flags; do
    grep -q "^$f " <<<"$table" || fail "(--$f): listed by --help but has no bad-value tests here"
done

while read -r name kind ctxkind lo hi below above; do
    [ -n "${name:-}" ] || continue
    if ! grep -qx -- "$name" <<<"$help_flags"; then
        echo "note (--$name): not in --help, not tried"
        continue
    fi
    case $kind in
    int | real)
        bad=(nan NaN inf -inf 1e39 1e400 1e-400 "$below" "$above" "${hi}x" 0.5x)
        # 1e-50 is a legal double inside [-360, 360]; only where the range
        # excludes it is it an underflow to refuse.
        awk -v lo="$lo" 'BEGIN { exit !(lo > 1e-50) }' && bad+=(1e-50)
        [ "$kind" = int ] && bad+=(1.5 99999999999999999999)
        case $lo in -*) ;; *) bad+=(-1) ;; esac
        [ "$name" = seed ] && bad+=(" -1")     # strtoull would wrap this to 2^64-1
        [ "$name" = softening ] && bad+=(1e-7) # between 0 and the smallest length
        [ "$name" = p ] || [ "$name" = q ] || [ "$name" = gpus ] && bad+=(autox)
        for v in "${bad[@]}"; do expect_bad_value "$ctxkind" "$name" "$v"; done
        expect_bad_value "$ctxkind" "$name" "" eq
        expect_bad_value "$ctxkind" "$name" ""
        expect_accepted "$name" "$lo"
        expect_accepted "$name" "$hi"
        [ "$name" = softening ] && expect_accepted softening 0
        [ "$name" = p ] || [ "$name" = q ] || [ "$name" = gpus ] && expect_accepted "$name" auto
        ;;
    enum)
        expect_bad_value "$ctxkind" "$name" "$lo"
        expect_bad_value "$ctxkind" "$name" "" eq
        expect_bad_value "$ctxkind" "$name" ""
        ;;
    file)
        context "$ctxkind" "$name"
        expect_refusal "--$name= empty" "${ctx[@]}" "--$name="
        expect_refusal "--$name '' empty" "${ctx[@]}" "--$name" ""
        # Names of the kind the flag writes, so that the folder is the reason.
        case $name in
        screenshot | plot) ext=png ;;
        dump) ext=csv ;;
        record) ext=mp4 ;;
        *) ext=json ;;
        esac
        mkdir -p "$tmp/fixtures/adir.$ext"
        expect_refusal "--$name in a missing folder" "${ctx[@]}" "--$name" /nonexistent/dir/x.$ext
        expect_reason "--$name in a missing folder" "No such file"
        expect_refusal "--$name is a folder" "${ctx[@]}" "--$name" "$tmp/fixtures/adir.$ext"
        expect_reason "--$name is a folder" "Is a directory"
        ;;
    outdir) # a folder written into, made when missing
        context "$ctxkind" "$name"
        : >"$tmp/fixtures/afile"
        expect_refusal "--$name= empty" "${ctx[@]}" "--$name="
        expect_refusal "--$name in a missing folder" "${ctx[@]}" "--$name" /nonexistent/dir/x
        expect_refusal "--$name is a file" "${ctx[@]}" "--$name" "$tmp/fixtures/afile"
        ;;
    input)
        context "$ctxkind" "$name"
        [ "$name" = encode ] && ctx+=(--record "$tmp/e.mp4") # else it is refused for that
        expect_refusal "--$name= empty" "${ctx[@]}" "--$name="
        expect_refusal "--$name missing" "${ctx[@]}" "--$name" "$tmp/fixtures/none.txt"
        ;;
    switch)
        context "$ctxkind" "$name"
        checks=$((checks + 1))
        timeout -k "$grace" "$limit" "$nbody" "${ctx[@]}" "--$name=1" >"$tmp/.stdout" 2>"$tmp/.stderr"
        rc=$?
        if [ "$rc" -ne 2 ] || ! grep -q "^nbody: --$name takes no value" "$tmp/.stderr" ||
           ! grep -q '^hint: ' "$tmp/.stderr" || [ -n "$(leftovers)" ]; then
            fail "(--$name=1): exit $rc, expected 2 with 'nbody: --$name takes no value' and 'hint:'"
            head -n 3 "$tmp/.stderr"
        else
            echo "ok   (--$name=1): $(head -n 1 "$tmp/.stderr")"
        fi
        rm -rf "$tmp/out.png" "$tmp/out.csv" "$tmp/s.json" "$tmp/b.json" "$tmp/b.png"
        ;;
    *) fail "(table): unknown kind $kind for --$name" ;;
    esac
done <<<"$table"

# Refusals that are not about one value.
out=(--headless --n 8 --frames 1 --width 16 --height 16 --screenshot "$tmp/out.png"
     --dump "$tmp/out.csv" --status-json "$tmp/s.json")
expect_refusal "unknown flag" --bogus "${out[@]}" --backend cpu
expect_refusal "bare word" plummer "${out[@]}" --backend cpu
expect_refusal "missing value" "${out[@]}" --backend cpu --frames
# 2e9 bodies on the CPU backend need more than 100 bytes each (positions and
# accelerations twice and velocities, in doubles, are 136); a host with that
# much memory available runs them.
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ "${avail_kb:-0}" -lt 200000000 ]; then
    expect_refusal "N beyond host memory" "${out[@]}" --backend cpu --n 2000000000
else
    echo "skip (N beyond host memory): $((avail_kb / 1024)) MiB available may hold 2e9 bodies"
fi
expect_refusal "status-every alone" --headless --backend cpu --n 8 --frames 1 --status-every 5
expect_refusal "benchmark flag without --benchmark" "${out[@]}" --backend cpu --steps 5
expect_refusal "list without --benchmark" "${out[@]}" --backend cpu --n 8,16
expect_refusal "fullscreen headless" "${out[@]}" --backend cpu --fullscreen
# Several GPUs on the CPU backend; in a build without NCCL the refusal says
# how to get it instead (tests/test_nccl_build.sh checks that one).
expect_refusal "--gpus 2 on the CPU" "${out[@]}" --backend cpu --gpus 2
expect_refusal "--spread on the CPU" "${out[@]}" --backend cpu --spread
expect_refusal "--spread on one GPU" "${out[@]}" --gpus 1 --spread
expect_reason "--spread on one GPU" "--gpus 1 is one"
expect_refusal "--no-spread on the CPU" "${out[@]}" --backend cpu --no-spread
expect_reason "--no-spread on the CPU" "runs on the CPU"
expect_refusal "--spread and --no-spread" "${out[@]}" --spread --no-spread
expect_reason "--spread and --no-spread" "contradict"
printf '10 K\n20 Hyper+Q\n' >"$tmp/fixtures/bad.txt"
expect_refusal "unknown key in a script" --script "$tmp/fixtures/bad.txt" "${out[@]}" --backend cpu
printf '10 K\nK 20\n' >"$tmp/fixtures/swapped.txt"
expect_refusal "script line out of order" --script "$tmp/fixtures/swapped.txt" "${out[@]}" \
    --backend cpu
if "$cuda_available" >/dev/null; then
    # One GPU: spread over several, 2e9 bodies fit eight of the largest.
    expect_refusal "N beyond GPU memory" "${out[@]}" --backend cuda --gpus 1 --n 2000000000
else
    echo "skip (N beyond GPU memory): no CUDA device"
    expect_refusal "CUDA asked, none there" "${out[@]}" --backend cuda
    expect_refusal "--spread, no GPU" "${out[@]}" --spread
    expect_reason "--spread, no GPU" "no CUDA device"
fi

# Flags the run would ignore, or that contradict each other, are a bad command
# line (exit 2, the flag named, a hint); docs/USAGE.md, "Flags that need
# others". expect_bad_line DESCRIPTION PATTERN ARGS...
expect_bad_line() {
    local what=$1 pattern=$2
    shift 2
    checks=$((checks + 1))
    timeout -k "$grace" "$limit" "$nbody" "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"
    local rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- "^nbody: .*$pattern" "$tmp/.stderr" ||
       ! grep -q '^hint: ' "$tmp/.stderr" || [ -n "$(leftovers)" ]; then
        fail "($what): exit $rc, want 2 with 'nbody: ...$pattern' and 'hint:'"; cat "$tmp/.stderr"
    else
        echo "ok   ($what): $(head -n 1 "$tmp/.stderr")"
    fi
    rm -rf "$tmp/out.png" "$tmp/out.csv" "$tmp/s.json" "$tmp/b.json" "$tmp/b.png" "$tmp/v.mp4"
}
# expect_runs DESCRIPTION PATTERN ARGS...: exit 0, PATTERN (if any) on stdout.
expect_runs() {
    local what=$1 pattern=$2
    shift 2
    checks=$((checks + 1))
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout -k "$grace" "$limit" "$nbody" "$@" \
        >"$tmp/.stdout" 2>"$tmp/.stderr"
    local rc=$?
    if [ "$rc" -ne 0 ] || { [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/.stdout"; }; then
        fail "($what): exit $rc or no '$pattern' on stdout"; cat "$tmp/.stdout" "$tmp/.stderr"
    else
        echo "ok   ($what): runs"
    fi
}
tiny=(--headless --n 8 --frames 1 --width 16 --height 16)
printf '0 Space\n' >"$tmp/fixtures/keys.txt"
# A value left out does not take the next flag as its own (--dump --headless
# wrote a file named --headless and opened a window).
expect_bad_line "--dump's file left out" "--dump needs a file name; '--headless' is a flag" \
    --dump --headless --backend cpu --n 8 --frames 1
expect_bad_line "--load's file left out" "--load needs a file name; '--backend' is a flag" \
    "${tiny[@]}" --load --backend cpu
expect_bad_line "--frames-dir's folder left out" "--frames-dir needs a folder; '--n=8' is a flag" \
    --headless --backend cpu --frames-dir --n=8 --frames 1
expect_bad_line "--frames-dir ''" "--frames-dir needs a folder, not an empty value" \
    --headless --backend cpu --n 8 --frames 1 --frames-dir ''
# Script lines: PgUp and PgDn as --help writes them; the hint lists the
# parser's own key names; a criterion given twice in a select line and a #
# in a caption (which would cut it) are refused with the line number.
printf '0 PgDn\n1 PgUp\n2 pageup\n' >"$tmp/fixtures/pg.txt"
expect_runs "script PgUp, PgDn" "" "${tiny[@]}" --backend cpu --script "$tmp/fixtures/pg.txt"
printf '10 Hyper\n' >"$tmp/fixtures/hyper.txt"
expect_bad_line "script: unknown key" "line 1: unknown key 'Hyper'" "${tiny[@]}" --backend cpu \
    --script "$tmp/fixtures/hyper.txt"
for name in "Left Right Up Down PageUp PageDown PgUp PgDn Home" " , Comma \[ \] " " \\\\ " " ' "; do
    expect_reason "script: the hint lists$name" "^hint: .*keys: .*$name"
done
printf '0 select 1 galaxy 1 galaxy 2\n' >"$tmp/fixtures/twice.txt"
expect_bad_line "select: a criterion twice" "line 1: select: 'galaxy' given twice" \
    "${tiny[@]}" --backend cpu --script "$tmp/fixtures/twice.txt"
printf '0 K\n5 caption Act # one\n' >"$tmp/fixtures/hash.txt"
expect_bad_line "caption with #" "line 2: a caption cannot hold '#'" "${tiny[@]}" --backend cpu \
    --script "$tmp/fixtures/hash.txt"

# Messages that say what is true: an underflow is too small, not too large;
# a missing --load file named once; a name too long gets a hint about its
# length.
expect_bad_line "--dt 1e-400 underflows" "--dt '1e-400': too small for a double to hold" \
    "${tiny[@]}" --backend cpu --dt 1e-400
expect_bad_line "--dt 1e400 overflows" "--dt '1e400': beyond what a double can hold" \
    "${tiny[@]}" --backend cpu --dt 1e400
expect_bad_line "--load a missing file, named once" \
    "--load $tmp/fixtures/none.tipsy: cannot open" --headless --frames 1 --backend cpu \
    --load "$tmp/fixtures/none.tipsy"
long=$(printf 'a%.0s' $(seq 300))
expect_refusal "a file name too long" "${tiny[@]}" --backend cpu --dump "$tmp/$long.csv"
expect_reason "a file name too long: the hint" "^hint: shorten the file's name"

# Two outputs naming one file: the later silently replaced the earlier and
# both said "wrote". The same file by another spelling, through a symlinked
# folder, a tipsy dump's sidecar, one of a --snapshot-every pattern's files,
# or stdout twice.
mkdir -p "$tmp/fixtures/real" && ln -sfn real "$tmp/fixtures/link"
same_hint="give each output a file of its own"
expect_bad_line "--record and --screenshot one file" \
    "--screenshot and --record name the same file $tmp/out.mp4" \
    "${tiny[@]}" --backend cpu --record "$tmp/out.mp4" --screenshot "$tmp/out.mp4"
expect_reason "one file: the hint" "$same_hint"
expect_bad_line "--dump and --status-json one file" \
    "--dump and --status-json name the same file $tmp/same.csv" \
    "${tiny[@]}" --backend cpu --dump "$tmp/same.csv" --status-json "$tmp/same.csv"
expect_bad_line "./a.png and a.png" \
    "--screenshot and --dump name the same file ($tmp/a.png and $tmp/./a.png)" \
    "${tiny[@]}" --backend cpu --screenshot "$tmp/a.png" --dump "$tmp/./a.png"
expect_bad_line "a symlinked folder" "--dump and --status-json name the same file" \
    "${tiny[@]}" --backend cpu --dump "$tmp/fixtures/link/x.csv" \
    --status-json "$tmp/fixtures/real/x.csv"
expect_bad_line "a tipsy dump's sidecar" \
    "--dump $tmp/a.tipsy and --status-json name the same file $tmp/a.tipsy.nbody" \
    "${tiny[@]}" --backend cpu --dump "$tmp/a.tipsy" --status-json "$tmp/a.tipsy.nbody"
expect_bad_line "--json and --plot one file" "--json and --plot name the same file $tmp/b.png" \
    --benchmark --backend cpu --n 8 --steps 1 --json "$tmp/b.png" --plot "$tmp/b.png"
expect_bad_line "two outputs to stdout" "--dump and --status-json both write to stdout" \
    "${tiny[@]}" --backend cpu --dump - --status-json /dev/stdout
expect_bad_line "one of a pattern's files" \
    "--status-json $tmp/r_0003.h5 is one of the files of --dump $tmp/r_%04d.h5" \
    "${tiny[@]}" --backend cpu --snapshot-every 1 --dump "$tmp/r_%04d.h5" \
    --status-json "$tmp/r_0003.h5"
expect_runs "outputs to /dev/null twice" "" "${tiny[@]}" --backend cpu --dump /dev/null \
    --screenshot /dev/null

# An extension nbody does not write is refused (x.hdf was written as CSV,
# x.jpg as PNG); a name without one is written as before.
for name in x.hdf x.gadget x.tipsy.gz x.txt; do
    expect_bad_line "--dump $name" "--dump $tmp/$name: .* is not a format nbody writes" \
        "${tiny[@]}" --backend cpu --dump "$tmp/$name"
    expect_reason "--dump $name: the hint" ".csv (a table), .tipsy"
    rm -f "$tmp/$name"
done
expect_bad_line "--screenshot x.jpg" "--screenshot $tmp/x.jpg: .jpg is not a format" \
    "${tiny[@]}" --backend cpu --screenshot "$tmp/x.jpg"
expect_bad_line "--plot x.jpg" "--plot $tmp/x.jpg: .jpg is not a format" \
    --benchmark --backend cpu --n 8 --steps 1 --plot "$tmp/x.jpg"
rm -f "$tmp/x.jpg"
expect_runs "--dump and --screenshot without an extension" "" "${tiny[@]}" --backend cpu \
    --dump "$tmp/plain" --screenshot "$tmp/picture" --status-json "$tmp/s.CSV"
checks=$((checks + 1))
if [ "$(head -n 1 "$tmp/plain")" = "x,y,z,vx,vy,vz,m,ax,ay,az" ] &&
   [ "$(head -c 4 "$tmp/picture" | tail -c 3)" = PNG ]; then
    echo "ok   (a name without an extension: CSV and PNG)"
else
    fail "(a name without an extension): not CSV and PNG"
fi
rm -f "$tmp/plain" "$tmp/picture" "$tmp/s.CSV"
expect_bad_line "--preset's name left out" "--preset needs a value (NAME); '--headless' is a flag" \
    --preset --headless --backend cpu --n 8 --frames 1
bench=(--benchmark --backend cpu --n 8 --steps 1)
expect_bad_line "--p on --backend cpu" "--p and --q shape the GPU kernels" "${tiny[@]}" \
    --backend cpu --p 64
expect_bad_line "--q on --backend cpu" "--p and --q shape the GPU kernels" "${tiny[@]}" \
    --backend cpu --q 2 --p auto
expect_bad_line "benchmark --p on cpu" "--p and --q shape" "${bench[@]}" --p auto,128
expect_runs "--p auto --q auto on --backend cpu" "" "${tiny[@]}" --backend cpu --p auto --q auto
expect_bad_line "benchmark --screenshot" "--screenshot does not apply to --benchmark" \
    "${bench[@]}" --screenshot "$tmp/out.png"
expect_bad_line "benchmark --script" "--script does not apply to --benchmark" "${bench[@]}" \
    --script "$tmp/fixtures/keys.txt"
for flag in "--dump $tmp/out.csv" "--status-json $tmp/s.json" "--frames 5" "--width 64" \
    "--record-fps 30" "--record-size 64x64" "--record-hud" "--progress" "--profile" \
    "--draw-max 100"; do
    # shellcheck disable=SC2086 # a flag and its value
    expect_bad_line "benchmark $flag" "${flag%% *} does not apply to --benchmark" "${bench[@]}" $flag
done
for flag in "--record-size 64x64" "--record-hud"; do
    # shellcheck disable=SC2086
    expect_bad_line "headless $flag, no recording" "${flag%% *} shapes a recording" \
        "${tiny[@]}" --backend cpu $flag
done
expect_bad_line "--play-speed, no series" "--play-speed sets a series' playback" \
    "${tiny[@]}" --backend cpu --play-speed 3
expect_bad_line "headless --record-fps, no video" "--record-fps is a video's rate" \
    "${tiny[@]}" --backend cpu --record-fps 60
expect_bad_line "--record-fps with --frames-dir" "--record-fps is a video's rate" \
    "${tiny[@]}" --backend cpu --record-fps 60 --frames-dir "$tmp/frames"
expect_bad_line "--record-size with --encode" "do not apply to --encode" --encode "$tmp/adir" \
    --record "$tmp/v.mp4" --record-size 64x64
expect_runs "recording flags with a --script (it may press M)" "" "${tiny[@]}" --backend cpu \
    --script "$tmp/fixtures/keys.txt" --record-size 64x64 --record-hud --record-fps 60
for flag in "--separation 50" "--pericenter 5" "--eccentricity 0.5" "--mass-ratio 2" \
    "--incl1 30" "--incl2 30" "--retrograde"; do
    # shellcheck disable=SC2086
    expect_bad_line "$flag on a Plummer sphere" "${flag%% *} shapes the merger's orbit" \
        "${tiny[@]}" --backend cpu $flag
done
expect_bad_line "an orbit the merger cannot start on" "--separation 0.001: separation 0.001" \
    "${tiny[@]}" --backend cpu --ic merger --separation 0.001
expect_bad_line "a bound orbit started past its apocentre" "--eccentricity 0.5: separation 80" \
    "${tiny[@]}" --backend cpu --ic merger --pericenter 8 --eccentricity 0.5
expect_runs "--ic merger with its orbit" "" "${tiny[@]}" --backend cpu --ic merger \
    --pericenter 5 --separation 50 --eccentricity 0.9 --retrograde
expect_bad_line "--lecture with --benchmark" "--lecture climbs the ladder" "${bench[@]}" --lecture
expect_bad_line "--lecture with --load" "not with --load" "${tiny[@]}" --backend cpu --lecture \
    --load "$tmp/adir"
expect_runs "--lecture" "" "${tiny[@]}" --backend cpu --lecture
# The CPU backend's own method's name, as --help and the CPU benchmark call
# it: run there, refused on the GPU.
expect_runs "--variant reference on the CPU" "" "${tiny[@]}" --backend cpu --variant reference
expect_runs "--variant tree,reference benchmarked on the CPU" "" --benchmark --backend cpu --n 8 \
    --steps 1 --variant tree,reference
expect_bad_line "--variant reference on the GPU" "is the CPU backend's method" "${tiny[@]}" \
    --backend cuda --variant reference
if "$cuda_available" >/dev/null; then
    expect_bad_line "--variant reference, the backend left to choose a GPU" \
        "is the CPU backend's method" "${tiny[@]}" --variant reference
else
    expect_runs "--variant reference, the backend left to choose the CPU" "" "${tiny[@]}" \
        --variant reference
fi
if "$cuda_available" >/dev/null; then
    echo "skip (--p without a GPU): there is a CUDA device"
else
    expect_runs "--p without a GPU: one line says it is ignored" "--p and --q are ignored" \
        "${tiny[@]}" --p 64
fi

# And a good run writes all three files, complete. It opens a GL context: see
# tests/CMakeLists.txt on leak checks of GL-driving runs.
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$nbody" --backend cpu --n 100 --headless \
    --frames 2 --width 64 --height 48 --dump "$tmp/ok.csv" --screenshot "$tmp/ok.png" \
    --status-json "$tmp/ok.json" >/dev/null 2>"$tmp/.stderr"
rc=$?
if [ $rc -ne 0 ] || [ "$(head -n 1 "$tmp/ok.csv")" != "x,y,z,vx,vy,vz,m,ax,ay,az" ] ||
   [ "$(wc -l <"$tmp/ok.csv")" -ne 101 ] || [ ! -s "$tmp/ok.png" ] ||
   ! grep -q '"frame": 2' "$tmp/ok.json"; then
    fail "(good run): rc=$rc"; cat "$tmp/.stderr"
else
    echo "ok   (good run): header, 100 rows, PNG and status written"
fi
rm -f "$tmp/ok.csv" "$tmp/ok.png" "$tmp/ok.json"
# The lecture tour shipped in assets/ parses and runs.
tour=$(dirname "$0")/../assets/tours/lecture-ladder.txt
if ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$nbody" --backend cpu --n 64 --headless \
    --frames 2 --width 64 --height 48 --script "$tour" >/dev/null 2>"$tmp/.stderr"; then
    echo "ok   (lecture tour parses)"
else
    fail "(lecture tour)"; cat "$tmp/.stderr"
fi

echo "test_cli: $checks refusal/acceptance checks, $failures failure(s)"
[ "$failures" -eq 0 ]

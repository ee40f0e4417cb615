#!/usr/bin/env bash
# make-window-bundle.sh - builds .devbundle-x/: an X server for the GPU
# machine (which has none), so that the GLFW window runs there under Xvfb.
#
#   scripts/make-window-bundle.sh        # here, once (needs apt-get, gcc)
#
# What goes in (Debian 12 packages, fetched with apt-get download):
#   - Xvfb and its libraries (pixman, libXfont2, freetype, libunwind, ...);
#   - xkbcomp and the xkb data (Xvfb compiles its keymap with xkbcomp at
#     start and refuses to start without it);
#   - Mesa's DRI driver (swrast_dri.so, llvmpipe) and libGLX_mesa: Xvfb's
#     GLX extension needs a DRI driver, and without one there is no GLX at
#     all; LLVM for llvmpipe;
#   - glxinfo (mesa-utils-bin), to print which GL a window gets.
# The client side picks its GLX vendor library through libglvnd: env.sh sets
# __GLX_VENDOR_LIBRARY_NAME=nvidia where the NVIDIA GLX library is present,
# which is how GLX windows are reported to run on the GPU there.
#
# Size: the device tool carries at most 64 MiB with the working tree and
# .devbundle (~16 MB); unpacked this is ~200 MB (LLVM alone 112 MB), so it
# travels as one xz tarball, .devbundle-x/root.tar.xz, and unpack.sh unpacks
# it on the GPU machine (outside the carried folder). Two of LLVM's
# libraries are replaced by stubs: libz3 (the static analyzer's solver) and
# libxml2 (with ICU behind it, for the Windows manifest tool) are linked by
# libLLVM but never called by llvmpipe; the stubs define the same symbols
# (generated from libLLVM's undefined symbols, with libxml2's symbol
# versions) and abort with a message if one is ever called. That saves
# ~17 MB compressed.
#
# On the GPU machine (scripts/gpu-check.sh test does this):
#   .devbundle-x/unpack.sh && source .devbundle-x/env.sh
# unpack.sh extracts to $NBODY_WINDOW_ROOT (default /tmp/nbody-window-root)
# and links into its ld/ folder only the libraries whose soname the machine
# does not already have (ldconfig -p), plus Mesa's own (libGLX_mesa,
# libglapi), so nothing the machine has is shadowed. env.sh sets PATH,
# LD_LIBRARY_PATH, LIBGL_DRIVERS_PATH, NBODY_XVFB_ARGS (-xkbdir) and
# __GLX_VENDOR_LIBRARY_NAME, and starts nothing.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
grep -qxF '/.devbundle-x/' .git/info/exclude 2>/dev/null ||
    { mkdir -p .git/info; echo '/.devbundle-x/' >>.git/info/exclude; }

pkgs="xvfb libxfont2 libfontenc1 libfreetype6 libpng16-16 libbrotli1 libpixman-1-0 libunwind8
libaudit1 libaudit-common libcap-ng0 libgcrypt20 libgpg-error0 libsystemd0 libselinux1
libpcre2-8-0 libbz2-1.0 libcap2 liblz4-1 liblzma5 libzstd1 zlib1g libbsd0 libmd0 libxau6
libxdmcp6 libgl1 libglvnd0 libglx0 libx11-6 libx11-data libxcb1
x11-xkb-utils xkb-data libxkbfile1
libgl1-mesa-dri libglapi-mesa libglx-mesa0 libllvm15 libffi8 libedit2 libtinfo6 libdrm2
libdrm-common libdrm-amdgpu1 libdrm-intel1 libdrm-nouveau2 libdrm-radeon1 libpciaccess0 libelf1
libexpat1 libsensors5 libsensors-config libxcb-dri2-0 libxcb-dri3-0 libxcb-glx0 libxcb-present0
libxcb-randr0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libx11-xcb1 libxext6 libxfixes3
libxxf86vm1 libxshmfence1 mesa-utils-bin"
cache=${DEVBUNDLE_X_CACHE:-${TMPDIR:-/tmp}/devbundle-x-debs}
mkdir -p "$cache"
(cd "$cache" && for p in $pkgs; do
    ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download -qq "$p" >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null && apt-get download -qq "$p"; }
done)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
r=$stage/root
mkdir -p "$r"
for p in $pkgs; do dpkg-deb -x "$(ls "$cache/${p}"_*.deb | head -n 1)" "$r"; done
lib=usr/lib/x86_64-linux-gnu
# Debian 12 keeps some libraries in /lib: one folder for all.
if [ -d "$r/lib/x86_64-linux-gnu" ]; then
    cp -a "$r/lib/x86_64-linux-gnu/." "$r/$lib/"
    rm -rf "${r:?}/lib"
fi
# Keep what is run or loaded: Xvfb, xkbcomp, glxinfo, the libraries, the
# software DRI driver, the xkb data.
mv "$r/usr/bin/glxinfo.x86_64-linux-gnu" "$r/usr/bin/glxinfo"
find "$r/usr/bin" -mindepth 1 -not -name Xvfb -not -name xkbcomp -not -name glxinfo -delete
find "$r/$lib/dri" -mindepth 1 -not -name swrast_dri.so -delete
rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/lintian" "$r/usr/share/bug" \
    "$r/usr/share/bash-completion" "${r:?}/etc" "$r/usr/lib/xorg" "$r/usr/share/X11/locale" \
    "$r/usr/share/pkgconfig" "$r/$lib/pkgconfig"

# The stubs for libz3.so.4 and libxml2.so.2 (see the header), from the
# symbols libLLVM leaves undefined.
llvm=$(ls "$r/$lib"/libLLVM-15.so.* | head -n 1)
stub() { # stub SONAME PATTERN: C source and version script for the symbols
    local soname=$1 pattern=$2
    readelf --dyn-syms -W "$llvm" | awk -v p="$pattern" '$7 == "UND" && $8 ~ p {print $4, $8}' |
        sed 's/ (.*//' | sort -u >"$stage/$soname.syms"
    {
        echo '/* A stub: the library is linked by libLLVM but not called by llvmpipe. */'
        echo '#include <stdio.h>'
        echo '#include <stdlib.h>'
        echo "static void die(const char *f) { fprintf(stderr, \"$soname stub (nbody window bundle): %s called\\n\", f); abort(); }"
        while read -r type sym; do
            name=${sym%@*}
            if [ "$type" = OBJECT ]; then echo "void *$name;"; else echo "void $name(void) { die(\"$name\"); }"; fi
        done <"$stage/$soname.syms"
    } >"$stage/$soname.c"
    # A version script: each version node with its symbols, in file order.
    awk '{ split($2, a, "@"); if (a[2] != "") { v[a[2]] = v[a[2]] " " a[1] ";" ; if (!(a[2] in seen)) { seen[a[2]] = 1; order[++n] = a[2] } } }
         END { for (i = 1; i <= n; i++) print order[i] " { global:" v[order[i]] " local: *; };"; if (!n) print "{ global: *; };" }' \
        "$stage/$soname.syms" >"$stage/$soname.map"
    gcc -shared -fPIC -O1 -o "$r/$lib/$soname" -Wl,-soname,"$soname" \
        -Wl,--version-script="$stage/$soname.map" "$stage/$soname.c"
}
rm -f "$r/$lib"/libz3.so* "$r/$lib"/libxml2.so* "$r/$lib"/libicu*
stub libz3.so.4 '^Z3_'
stub libxml2.so.2 '^xml'
# Debian's symlinks may be absolute; make them relative.
find "$r" -type l | while read -r l; do
    t=$(readlink "$l")
    case "$t" in /*) ln -sfn "$(basename "$t")" "$l" ;; esac
done

# Each library's soname, for unpack.sh (the GPU machine may lack readelf).
(cd "$r/$lib" && for f in *.so*; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    so=$(readelf -d "$f" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ -n "$so" ] && echo "$f $so"
done) >"$r/sonames.txt"

rm -rf .devbundle-x && mkdir -p .devbundle-x
XZ_OPT=-9e tar -C "$r" -cJf .devbundle-x/root.tar.xz .
sha=$(sha256sum .devbundle-x/root.tar.xz | cut -c1-16)

cat >.devbundle-x/unpack.sh <<UNPACK
#!/usr/bin/env bash
# Unpacks root.tar.xz (made by scripts/make-window-bundle.sh) into
# \${NBODY_WINDOW_ROOT:-/tmp/nbody-window-root}, once per bundle, and links
# into its ld/ folder the libraries this machine lacks (by soname, from
# ldconfig -p) plus Mesa's own, so nothing the machine has is shadowed.
# NBODY_WINDOW_ALL_LIBS=1 links every library instead (to try the bundle on
# a machine that has them all). Where /usr/bin/xkbcomp is missing (Xvfb runs
# exactly that path) and /usr/bin is writable, links the bundle's there and
# says so.
set -eu
B=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
R=\${NBODY_WINDOW_ROOT:-/tmp/nbody-window-root}
if [ "\$(cat "\$R/.bundle" 2>/dev/null)" != "$sha\${NBODY_WINDOW_ALL_LIBS:-}" ]; then
    rm -rf "\$R" && mkdir -p "\$R"
    tar -C "\$R" -xJf "\$B/root.tar.xz"
    mkdir -p "\$R/ld"
    have=\$(ldconfig -p 2>/dev/null | awk '{print \$1}')
    while read -r f so; do
        case \$so in libGLX_mesa.so.*|libglapi.so.*) ;; *)
            [ -z "\${NBODY_WINDOW_ALL_LIBS:-}" ] && grep -qxF "\$so" <<<"\$have" && continue ;;
        esac
        ln -sfn "\$R/$lib/\$f" "\$R/ld/\$so"
    done <"\$R/sonames.txt"
    echo "$sha\${NBODY_WINDOW_ALL_LIBS:-}" >"\$R/.bundle"
fi
echo "window bundle: \$R, \$(ls "\$R/ld" | wc -l) libraries linked (the machine lacks them): \$(ls "\$R/ld" | tr '\\n' ' ')"
if [ ! -x /usr/bin/xkbcomp ]; then
    if [ -w /usr/bin ]; then
        ln -s "\$R/usr/bin/xkbcomp" /usr/bin/xkbcomp
        echo "window bundle: linked /usr/bin/xkbcomp -> \$R/usr/bin/xkbcomp (Xvfb runs that path)"
    else
        echo "window bundle: /usr/bin/xkbcomp is missing and /usr/bin is not writable: Xvfb will not start"
    fi
fi
UNPACK
chmod +x .devbundle-x/unpack.sh

cat >.devbundle-x/env.sh <<'ENV'
# Source after .devbundle-x/unpack.sh (and .devbundle/env.sh). Sets paths for
# the carried Xvfb, xkbcomp, glxinfo and Mesa; starts nothing.
R=${NBODY_WINDOW_ROOT:-/tmp/nbody-window-root}
export NBODY_WINDOW_ROOT=$R
export PATH="$R/usr/bin:$PATH"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$R/ld"
export LIBGL_DRIVERS_PATH="$R/usr/lib/x86_64-linux-gnu/dri"
export XKB_CONFIG_ROOT="$R/usr/share/X11/xkb"
# tests/test_window.sh passes these to Xvfb: the xkb data of the bundle.
export NBODY_XVFB_ARGS="-xkbdir $R/usr/share/X11/xkb"
# The NVIDIA GLX client library where the driver provides one; else glvnd
# picks the vendor the X server names (Mesa).
if ldconfig -p 2>/dev/null | grep -q 'libGLX_nvidia\.so\.0' ||
   ls /usr/local/nvidia/lib*/libGLX_nvidia.so.0 >/dev/null 2>&1; then
    export __GLX_VENDOR_LIBRARY_NAME=nvidia
fi
ENV
du -sh .devbundle-x/root.tar.xz | sed 's/^/window bundle (carried): /'

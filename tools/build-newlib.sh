#!/bin/bash
# tools/build-newlib.sh ARCH PREFIX CC_PREFIX -- CFLAGS...
#
# Build newlib 3.3.0 (Debian's newlib-source tarball) for the bare-metal
# target that matches ARCH and install it into PREFIX:
#   PREFIX/<target>/lib/libc.a, libm.a   PREFIX/<target>/include/...
#
#   ARCH       x86_64 (target x86_64-elf) or aarch64 (target aarch64-elf)
#   PREFIX     install folder, e.g. build/newlib-x86_64
#   CC_PREFIX  prefix of the host tools: "" for x86_64,
#              aarch64-linux-gnu- for aarch64 (may be omitted if empty)
#   CFLAGS     the kernel's flags, used as CFLAGS_FOR_TARGET
#
# Builds once: PREFIX/.built holds the CFLAGS of the last successful build;
# the same flags again means nothing to do, other flags mean a rebuild.
# The work folder PREFIX.build is removed after success; configure/make
# output goes to PREFIX.log and its tail is printed on failure.

set -euo pipefail

usage() {
    echo "usage: $0 ARCH PREFIX CC_PREFIX -- CFLAGS..." >&2
    exit 2
}

[ $# -ge 2 ] || usage
arch=$1
prefix=$2
shift 2
cc_prefix=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    cc_prefix=$1
    shift
fi
if [ $# -eq 0 ] || [ "$1" != "--" ]; then usage; fi
shift
cflags="$*"

case "$arch" in
    x86_64)  target=x86_64-elf ;;
    aarch64) target=aarch64-elf ;;
    *) echo "build-newlib: unknown ARCH '$arch' (x86_64 or aarch64)" >&2; exit 2 ;;
esac

tarball=/usr/src/newlib/newlib-3.3.0.tar.xz
srcdir_name=newlib-salsa

mkdir -p "$(dirname "$prefix")"
prefix=$(realpath -m "$prefix")
stamp=$prefix/.built
libdir=$prefix/$target/lib

if [ -f "$stamp" ] && [ -f "$libdir/libc.a" ] && [ -f "$libdir/libm.a" ] &&
   [ "$(cat "$stamp")" = "$cflags" ]; then
    exit 0
fi

if [ ! -f "$tarball" ]; then
    echo "build-newlib: $tarball not found (install newlib-source: tools/deps.sh)" >&2
    exit 1
fi
for t in gcc ar as ld ranlib nm objdump readelf strip objcopy; do
    if ! command -v "${cc_prefix}$t" >/dev/null 2>&1; then
        echo "build-newlib: ${cc_prefix}$t not found (tools/deps.sh installs it)" >&2
        exit 1
    fi
done

work=$prefix.build
log=$prefix.log

echo "newlib: building for $target, once: minutes (x86-64's took 4.5 min of CPU time;" \
     "README.md, 'The first build')"

# Old flags or a half-finished earlier attempt: start from scratch.
rm -rf "$prefix" "$work"
mkdir -p "$work/obj"
: >"$log"

fail() {
    echo "build-newlib: $1 failed for $target; last lines of $log:" >&2
    tail -50 "$log" >&2
    exit 1
}

tar -xJf "$tarball" -C "$work" >>"$log" 2>&1 || fail "unpacking $tarball"
[ -x "$work/$srcdir_name/configure" ] || fail "finding $srcdir_name/configure in the tarball"

echo "newlib: configuring"
(
    cd "$work/obj"
    "../$srcdir_name/configure" \
        --target="$target" \
        --prefix="$prefix" \
        --disable-multilib \
        --disable-newlib-supplied-syscalls \
        --enable-newlib-io-long-long \
        --enable-newlib-io-c99-formats \
        --enable-newlib-retargetable-locking \
        --disable-nls \
        CC_FOR_TARGET="${cc_prefix}gcc" \
        AS_FOR_TARGET="${cc_prefix}as" \
        LD_FOR_TARGET="${cc_prefix}ld" \
        AR_FOR_TARGET="${cc_prefix}ar" \
        RANLIB_FOR_TARGET="${cc_prefix}ranlib" \
        NM_FOR_TARGET="${cc_prefix}nm" \
        OBJDUMP_FOR_TARGET="${cc_prefix}objdump" \
        READELF_FOR_TARGET="${cc_prefix}readelf" \
        STRIP_FOR_TARGET="${cc_prefix}strip" \
        OBJCOPY_FOR_TARGET="${cc_prefix}objcopy" \
        CFLAGS_FOR_TARGET="$cflags"
) >>"$log" 2>&1 || fail "configure"

# This takes minutes: say how far it is every PROGRESS_S seconds.  It
# configures the target libraries first (about NEWLIB_CHECKS "checking"
# lines in the log, with the top-level configure's), then compiles about
# NEWLIB_FILES files (one "-c -o" line each), for either target.
PROGRESS_S=20
NEWLIB_CHECKS=300
NEWLIB_FILES=1000
t0=$SECONDS
make -C "$work/obj" -j2 all-target-newlib >>"$log" 2>&1 &
make_pid=$!
while kill -0 "$make_pid" 2>/dev/null; do
    sleep 1
    if [ $(((SECONDS - t0) % PROGRESS_S)) -eq 0 ]; then
        # grep -c exits 1 when it counts nothing: not an error here.
        files=$(grep -c -- '-c -o' "$log" || true)
        if [ "$files" -eq 0 ]; then
            echo "newlib: configuring: $(grep -c '^checking ' "$log" || true) of about" \
                 "$NEWLIB_CHECKS checks ($((SECONDS - t0)) s)"
        else
            echo "newlib: $files of about $NEWLIB_FILES files compiled ($((SECONDS - t0)) s)"
        fi
    fi
done
wait "$make_pid" || fail "make all-target-newlib"
make -C "$work/obj" install-target-newlib >>"$log" 2>&1 || fail "make install-target-newlib"

for lib in libc.a libm.a; do
    [ -f "$libdir/$lib" ] || fail "installing $lib (not in $libdir)"
    "${cc_prefix}strip" -g "$libdir/$lib" >>"$log" 2>&1 || fail "strip -g $lib"
done

rm -rf "$work"
printf '%s\n' "$cflags" >"$stamp"
echo "newlib: installed in $prefix ($(du -sh "$prefix" | cut -f1))"

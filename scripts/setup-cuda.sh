#!/usr/bin/env bash
# Prepares a Debian 12 machine to build `espalier-cli --features cuda` without the
# internet beyond the package registries (issue 20). Idempotent: prints what it found and
# what it did. Then: `cargo build --release -p espalier-cli --features cuda`
# (or `bash scripts/check-cuda-build.sh`, which builds and runs the no-device test).
#
# Why: burn 0.22.1's CUDA backend (cubecl-cuda 0.11.3) always depends on cubecl-llvm,
# whose build dependency `tracel-llvm-bundler` 23.1.0-4 downloads an LLVM 23 bundle from
# GitHub unless `<llvm_path>/.tracel-llvm-installed` exists (its build.rs, step 0), where
# llvm_path = ${XDG_DATA_HOME:-$HOME/.local/share}/tracel/tracel-llvm-23.1.0-4 (its
# src/config.rs). After that the bundler only runs `<llvm_path>/bin/llvm-config
# --link-static ...`. So this script:
#   1. installs Debian's LLVM 22 (bookworm-security: llvm-22-dev; libpolly-22-dev because
#      `llvm-config --link-static --libnames` lists libPolly.a and libPollyISL.a;
#      libzstd-dev, libz3-dev, libxml2-dev for `--system-libs`);
#   2. writes <llvm_path>/bin/llvm-config, a wrapper around /usr/lib/llvm-22/bin/llvm-config
#      that rewrites absolute library paths (`/usr/lib/x86_64-linux-gnu/libz3.so`) into
#      `-lz3`: the bundler keeps only the file stem of a path (`libz3`), which would ask
#      the linker for `liblibz3`;
#   3. links <llvm_path>/include and <llvm_path>/lib to LLVM 22's, and creates the marker.
set -euo pipefail

LLVM_MAJOR=22
REAL_PREFIX=/usr/lib/llvm-${LLVM_MAJOR}
BUNDLE_VERSION=23.1.0-4   # tracel-llvm-bundler's TRACEL_LLVM_FULL_VERSION (Cargo.lock: 23.1.0-4)
DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
LLVM_PATH=$DATA_HOME/tracel/tracel-llvm-$BUNDLE_VERSION
PACKAGES=(llvm-${LLVM_MAJOR}-dev libpolly-${LLVM_MAJOR}-dev libzstd-dev libz3-dev libxml2-dev)

say() { printf 'setup-cuda: %s\n' "$*"; }

# The bundler version this script imitates must be the one Cargo.lock resolves.
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/Cargo.lock" ] && ! grep -A1 'name = "tracel-llvm-bundler"' "$here/Cargo.lock" | grep -q "version = \"$BUNDLE_VERSION\""; then
    say "error: Cargo.lock no longer resolves tracel-llvm-bundler $BUNDLE_VERSION; update BUNDLE_VERSION and re-check its build.rs"
    exit 1
fi

# 1. Debian packages.
missing=()
for p in "${PACKAGES[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        say "found package $p"
    else
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    if ! apt-cache policy "llvm-${LLVM_MAJOR}-dev" | grep -q 'Candidate: [0-9]'; then
        $SUDO apt-get update
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
[ -x "$REAL_PREFIX/bin/llvm-config" ] || { say "error: $REAL_PREFIX/bin/llvm-config missing after install"; exit 1; }

# Every static library llvm-config names must exist (Polly comes from libpolly-22-dev).
for lib in $("$REAL_PREFIX/bin/llvm-config" --link-static --libnames); do
    [ -f "$REAL_PREFIX/lib/$lib" ] || { say "error: $REAL_PREFIX/lib/$lib missing"; exit 1; }
done

# 2. The llvm-config wrapper.
mkdir -p "$LLVM_PATH/bin"
wrapper="$LLVM_PATH/bin/llvm-config"
wrapper_text=$(cat <<EOF
#!/bin/sh
# Written by espalier's scripts/setup-cuda.sh: Debian's LLVM $LLVM_MAJOR in place of the
# tracel-llvm bundle; absolute library paths become -l flags (see that script).
out=\$($REAL_PREFIX/bin/llvm-config "\$@") || exit \$?
printf '%s\\n' "\$out" | sed -E 's#(^| )/[^ ]*/lib([A-Za-z0-9_+-]+)\\.so[.0-9]*#\\1-l\\2#g'
EOF
)
if [ -f "$wrapper" ] && [ "$(cat "$wrapper")" = "$wrapper_text" ]; then
    say "found $wrapper"
else
    printf '%s\n' "$wrapper_text" > "$wrapper"
    chmod +x "$wrapper"
    say "wrote $wrapper"
fi

# 3. include/, lib/ and the marker.
for d in include lib; do
    if [ "$(readlink "$LLVM_PATH/$d" 2>/dev/null)" = "$REAL_PREFIX/$d" ]; then
        say "found $LLVM_PATH/$d -> $REAL_PREFIX/$d"
    else
        rm -rf "${LLVM_PATH:?}/$d"
        ln -s "$REAL_PREFIX/$d" "$LLVM_PATH/$d"
        say "linked $LLVM_PATH/$d -> $REAL_PREFIX/$d"
    fi
done
if [ -f "$LLVM_PATH/.tracel-llvm-installed" ]; then
    say "found marker $LLVM_PATH/.tracel-llvm-installed"
else
    touch "$LLVM_PATH/.tracel-llvm-installed"
    say "created marker $LLVM_PATH/.tracel-llvm-installed"
fi

say "llvm-config --version: $("$wrapper" --version); --system-libs: $("$wrapper" --link-static --system-libs)"
say "ready: cargo build --release -p espalier-cli --features cuda"

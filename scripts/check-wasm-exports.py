#!/usr/bin/env python3
"""Fails if a WebAssembly module re-runs its static constructors on every call into it.

Usage: python3 scripts/check-wasm-exports.py FILE.wasm

When no input calls `__wasm_call_ctors`, wasm-ld wraps each exported function as
`<name>.command_export`, which runs every constructor of the module before the
function (4,892 of them in the playground's module with burn's wgpu backend: cubecl's
`inventory` registrations). wasm-bindgen's glue calls those exports for every string and
every JavaScript object handed to Rust, so the page froze for 80-3,300 ms per redraw.
`web/src/constructors.rs` calls the constructors once from `main`, which makes wasm-ld
write the exports unwrapped; this check keeps it that way. It reads the export section
and the function names (the `name` custom section, which cargo's release build and
wasm-bindgen keep), and prints one line: how many function exports, how many wrapped.

Hand-written (a few dozen lines of the binary format) rather than a dependency: the
browser test must not need wabt or wasm-tools for one check.
"""

import sys


def uleb(data, i):
    """An unsigned LEB128 number at data[i]: (value, index after it)."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def name(data, i):
    n, i = uleb(data, i)
    return data[i : i + n].decode("utf-8", "replace"), i + n


def sections(data):
    """(id, start, end) of each section."""
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module")
    i = 8
    while i < len(data):
        sid = data[i]
        size, start = uleb(data, i + 1)
        yield sid, start, start + size
        i = start + size


def exported_functions(data, start):
    count, i = uleb(data, start)
    out = []
    for _ in range(count):
        export, i = name(data, i)
        kind = data[i]
        index, i = uleb(data, i + 1)
        if kind == 0:
            out.append((export, index))
    return out


def function_names(data, start, end):
    custom, i = name(data, start)
    if custom != "name":
        return None
    names = {}
    while i < end:
        sub = data[i]
        size, j = uleb(data, i + 1)
        if sub == 1:
            count, k = uleb(data, j)
            for _ in range(count):
                index, k = uleb(data, k)
                names[index], k = name(data, k)
        i = j + size
    return names


def main(path):
    data = open(path, "rb").read()
    exports, names = [], None
    for sid, start, end in sections(data):
        if sid == 7:
            exports = exported_functions(data, start)
        elif sid == 0:
            names = function_names(data, start, end) or names
    if names is None:
        print(f"{path}: no function names (name section), so the exports cannot be checked")
        return 1
    wrapped = [export for export, index in exports if names.get(index, "").endswith("command_export")]
    print(f"{path}: {len(exports)} function exports, {len(wrapped)} wrapped by wasm-ld to re-run the constructors")
    if wrapped:
        print("  wrapped: " + ", ".join(wrapped[:8]) + (" ..." if len(wrapped) > 8 else ""))
        print("  the module must call __wasm_call_ctors itself (web/src/constructors.rs, first thing in main)")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[2])
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

"""Functions over 80 lines outside tests (issue 32's measure of the house): a rough
scan of every .rs file under the current directory (a function runs from its `fn` line
to the closing brace at its indent; `#[cfg(test)]` ends a file; target/, tests/ and
node_modules are skipped). Usage: python3 scripts/lab/house/long_functions.py (from the
repository root); prints each function longest first, then the count."""
import re, sys, pathlib
res = []
for p in pathlib.Path(".").glob("**/*.rs"):
    s = str(p)
    if "/target/" in s or s.startswith("target") or "/tests/" in s or "node_modules" in s: continue
    lines = p.read_text(errors="replace").split("\n")
    in_test = False
    i = 0
    while i < len(lines):
        l = lines[i]
        if re.match(r"\s*#\[cfg\(test\)\]", l):
            # skip rest of file (test modules usually at end)
            break
        m = re.match(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)", l)
        if m:
            indent = m.group(1)
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith(";"):
                i = j + 1; continue
            k = j + 1
            while k < len(lines) and lines[k] != indent + "}":
                k += 1
            n = k - i + 1
            if n > 80:
                res.append((n, s, i + 1, m.group(7)))
            i = k + 1
            continue
        i += 1
for n, s, ln, name in sorted(res, reverse=True):
    print(n, f"{s}:{ln}", name)
print(len(res), "functions over 80 lines")

# The BOUNDARY and RANDSPAN fill-in-the-middle sets, rebuilt from the CPython 3.11
# standard library (the corpus the grammar tests use) instead of The Stack, which is
# not reachable here. Run by `espalier eval fim --set stack-boundary|stack-randspan`
# (crates/cli/src/fim_sets.rs) as `python3.11 -c <this> SET SEED N CORPUS`; prints N
# cases as JSON lines in the human-eval-infilling format (`task_id`, `prompt` = prefix,
# `suffix`, `canonical_solution` = the true middle; no tests).
#
# Files: every .py under CORPUS (site-/dist-packages left out), sorted, of 200 to
# 4,000 bytes, UTF-8, accepted by ast.parse. Each case draws a file, then a cut, from
# one random.Random(SEED) (Python's Mersenne Twister: the same on every machine).
# - boundary: Python's own tokenizer; a first token and a later one (at most 40
#   tokens on) that start at the same level (indentation depth and bracket depth);
#   the middle runs from a random offset inside the first token to the start of the
#   second, so a random part of the first token is removed with it.
# - randspan: delete 1 to min(100, 20% of the file) characters starting at a random
#   character within the first 90% of the file.
import ast, io, json, os, random, sys, tokenize

SKIP = {tokenize.INDENT, tokenize.DEDENT, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER}

def files(corpus):
    out = []
    for root, dirs, names in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages"))
        for n in sorted(names):
            if n.endswith(".py"):
                out.append(os.path.join(root, n))
    out.sort()
    texts = []
    for p in out:
        try:
            b = open(p, "rb").read()
            if not 200 <= len(b) <= 4000:
                continue
            t = b.decode("utf-8")
            if t.encode("utf-8") != b or "\r" in t or "\f" in t:
                continue
            ast.parse(t)
        except Exception:
            continue
        texts.append((os.path.relpath(p, corpus), t))
    return texts

def offsets(text):
    # (line, col) -> character offset
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return lambda lc: starts[lc[0] - 1] + lc[1]

def boundary(rng, text):
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except Exception:
        return None
    at = offsets(text)
    real = []  # (start, end, level)
    indent = depth = 0
    for t in toks:
        if t.type == tokenize.INDENT:
            indent += 1
        elif t.type == tokenize.DEDENT:
            indent -= 1
        if t.type in SKIP:
            continue
        level = (indent, depth)
        if t.type == tokenize.OP and t.string in "([{":
            depth += 1
        elif t.type == tokenize.OP and t.string in ")]}":
            depth -= 1
        real.append((at(t.start), at(t.end), level))
    if len(real) < 2:
        return None
    i = rng.randrange(len(real) - 1)
    later = [j for j in range(i + 1, min(len(real), i + 41)) if real[j][2] == real[i][2]]
    if not later:
        return None
    j = rng.choice(later)
    a = real[i][0] + rng.randrange(real[i][1] - real[i][0])
    return a, real[j][0]

def randspan(rng, text):
    n = len(text)
    a = rng.randrange(int(n * 0.9))
    k = 1 + rng.randrange(max(1, min(100, n // 5)))
    return a, min(n, a + k)

def main():
    which, seed, n, corpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    cut = {"boundary": boundary, "randspan": randspan}[which]
    texts = files(corpus)
    if not texts:
        sys.exit(f"no usable files under {corpus} (install libpython3.11-testsuite: bash scripts/setup.sh)")
    rng = random.Random(seed)
    k = 0
    while k < n:
        name, text = texts[rng.randrange(len(texts))]
        c = cut(rng, text)
        if c is None or c[1] <= c[0]:
            continue
        a, b = c
        print(json.dumps({"task_id": f"stack-{which}/{k}/{name}:{a}-{b}", "prompt": text[:a], "suffix": text[b:],
                          "canonical_solution": text[a:b], "test": "", "entry_point": ""}))
        k += 1

main()

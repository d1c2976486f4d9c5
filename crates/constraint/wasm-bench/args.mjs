// The command-line flags both harnesses take (run.mjs in node, browser.mjs driving
// Chromium): `--passes N`, `--dump FILE` and `--cold` (setup without the warm-up
// mask), removed from the arguments, which leaves the positional ones.
export function takeFlags(argv) {
  const args = argv.slice();
  const flag = (name, dflt) => {
    const i = args.indexOf(name);
    if (i < 0) return dflt;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const passes = Math.max(1, Number(flag('--passes', '1')));
  const dump = flag('--dump', null);
  const coldAt = args.indexOf('--cold');
  if (coldAt >= 0) args.splice(coldAt, 1);
  return { passes, dump, cold: coldAt >= 0, args };
}

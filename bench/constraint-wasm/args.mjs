// The command-line flags both harnesses take (run.mjs in node, browser.mjs driving
// Chromium): `--passes N`, `--dump FILE`, `--cold` (setup without the warm-up
// mask) and `--repeat K` (each step timed as K masks of that step, divided by K: for
// Chromium, whose timer has 5 us steps), removed from the arguments, which leaves
// the positional ones.
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
  const repeat = Math.max(0, Number(flag('--repeat', '0')));
  const coldAt = args.indexOf('--cold');
  if (coldAt >= 0) args.splice(coldAt, 1);
  return { passes, dump, cold: coldAt >= 0, repeat, args };
}

"""The left states of failed `mask` middles, for the bridge search's timing test.

Usage:
  for s in boundary randspan; do python3.11 -c "$(cat crates/cli/src/fim_stack_sets.py)" $s 13 1000 /usr/lib/python3.11 > SETS/$s.jsonl; done
  SETS=SETS python3 scripts/lab/fim/dump_states.py OUTDIR results/fim/stack-*-main.jsonl
  FIM_BRIDGE_CASES=OUTDIR cargo test --release -p espalier-constraint --lib bridge_timing -- --ignored --nocapture

Writes OUTDIR/k.prefix (prefix + the mask middle, also cut at 1/2 and 3/4 of it),
k.suffix, k.cut (the prefix's length in bytes) and k.id for every `mask` record whose
text did not parse (ALL=1: every `mask` record).
"""
import json, sys, os
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
cases = {}
for s in ['boundary', 'randspan']:
    for l in open(os.path.join(os.environ.get('SETS', '.'), f'{s}.jsonl')):
        c = json.loads(l); cases['stack-' + s + c['task_id'][len(s):] if not c['task_id'].startswith('stack') else c['task_id']] = c
k = 0
allrecs = os.environ.get('ALL') == '1'
for f in sys.argv[2:]:
    for l in open(f):
        r = json.loads(l)
        if r.get('mode') != 'mask' or (r.get('parse_ok') and not allrecs) or 'middle' not in r:
            continue
        c = cases[r['task_id']]
        m = r['middle']
        for cut in sorted({len(m), len(m) * 3 // 4, len(m) // 2}):
            open(f'{out}/{k}.prefix', 'w').write(c['prompt'] + m[:cut])
            open(f'{out}/{k}.suffix', 'w').write(c['suffix'])
            open(f'{out}/{k}.cut', 'w').write(str(len(c['prompt'].encode())))
            open(f'{out}/{k}.id', 'w').write(r['task_id'] + f' cut {cut}/{len(m)}')
            k += 1
print(k, 'states')

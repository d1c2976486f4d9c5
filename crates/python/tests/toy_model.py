"""A toy "model" for the processor tests (test_names.py, test_wrap_up.py): logits that
rank a few tokens, best first, and greedy decoding under a processor as
llama-cpp-python drives it (token id 0 is end-of-sequence)."""

import numpy as np


def ranked_logits(tokens, preference):
    """One row of logits over `tokens`: the tokens of `preference` above the rest,
    the first highest."""
    row = np.zeros(len(tokens), np.float32)
    for rank, tok in enumerate(preference):
        row[tokens.index(tok)] = float(len(preference) - rank)
    return row


def greedy_ids(proc, logits, prompt_ids, budget):
    """Greedy decoding of `logits` (the same row every step) under `proc` for at most
    `budget` tokens after `prompt_ids`: the generated ids (EOS included if sampled)."""
    ids = list(prompt_ids)
    out = []
    for _ in range(budget):
        scores = logits.copy()
        proc(np.array(ids, np.intc), scores)
        proc.raise_error()
        tok = int(np.argmax(scores))
        out.append(tok)
        if tok == 0:
            break
        ids.append(tok)
    return out

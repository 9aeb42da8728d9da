"""
Modular addition: (a, b) -> (a + b) mod p, a and b uniform in [0, p) ("Attention Retrieves, MLP
Memorizes", appendix B). The task is a finite table of p*p pairs, split without replacement: the
held-out and training pairs are disjoint sets of distinct pairs (paper: 40,000 training pairs of the
599^2 = 358,801), so n_train + n_test must not exceed p*p.

Each example is the sequence [a, b, c] with c = (a + b) mod p; x = [a, b], y = [-1, c]: only the
answer is scored. Example, p=7: s = 5 4 2, x = 5 4, y = -1 2.
Vocabulary (sep ' '): ids 0..p-1, written as the number.
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(p=599, n_train=40_000, n_test=4_000, seed=0)


def examples(pairs, p):
    """pairs (n, 2) of (a, b) -> (x, y)"""
    if p < 2:
        raise ValueError('p must be at least 2')
    return pairs, np.stack([np.full(len(pairs), -1), pairs.sum(1) % p], 1)


def generate(rng, n, p):
    """n i.i.d. pairs (a stream; the files are made by splits())"""
    return examples(rng.integers(0, p, (n, 2)), p)


def splits(args, rng):
    p, n_train, n_test = args['p'], args['n_train'], args['n_test']
    if n_train + n_test > p * p:
        raise ValueError(f'too few distinct inputs: p={p} has {p * p:,} pairs, fewer than n_train + n_test = '
                         f'{n_train + n_test:,}; lower n_train/n_test or raise p')
    x, y = examples(np.stack(np.divmod(rng.permutation(p * p)[:n_test + n_train], p), 1), p)  # distinct pairs
    return {'val': (x[:n_test], y[:n_test]), 'train': (x[n_test:], y[n_test:])}


def describe(args):
    p = args['p']
    return dict(vocab_size=p, itos=[str(i) for i in range(p)], sep=' ',
                scored='only the answer (a+b) mod p, the target of the second position')


if __name__ == '__main__':
    main(__file__)

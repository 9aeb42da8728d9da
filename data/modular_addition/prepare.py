"""
Modular addition: (a, b) -> (a + b) mod p, a and b uniform in [0, p) ("Attention Retrieves, MLP
Memorizes", appendix B). Only p*p distinct inputs exist, so n_train + n_test must stay below p*p.

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


def generate(rng, n, p):
    if p < 2:
        raise ValueError('p must be at least 2')
    x = rng.integers(0, p, (n, 2))
    y = np.stack([np.full(n, -1), x.sum(1) % p], 1)
    return x, y


def describe(args):
    p = args['p']
    return dict(vocab_size=p, itos=[str(i) for i in range(p)], sep=' ',
                scored='only the answer (a+b) mod p, the target of the second position')


if __name__ == '__main__':
    main(__file__)

"""
Memorization of a random function of two arguments ("Attention Retrieves, MLP Memorizes",
appendix B: all 512^2 pairs, labels uniform in [0, 512), vocabulary 1024). There is nothing to
generalise to, so the only split is train and accuracy is measured on it (eval_split='train').

Each example is the sequence [a, b+n, label] for every pair a, b in [0, n), n = size, in a-major
order, with label = f(a, b) a fixed uniformly random table drawn from the seed. x = [a, b+n] (b is
shifted so that the two arguments use different tokens), y = [-1, label]. Example, size=4:
    x = 2 7, y = -1 f(2, 3)
Vocabulary (sep ' '): ids 0..2n-1, written as the number; labels use ids 0..n-1.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(
    # 'size', not 'n': torchrun reads --n= as --nnodes
    size=512,  # n: all n*n pairs, labels in [0, n); the paper's text
    seed=0,  # seed of the random label table f(a, b); train.py: --data_seed
)


def generate(rng, count, **args):
    # The task is one fixed table, not a distribution to sample from: fresh random rows would
    # disagree with the table in train.npz, so there is deliberately no sampler.
    raise NotImplementedError('memorization is a fixed table of all n*n pairs; see splits()')


def splits(args, rng):
    n = args['size']
    a, b = np.divmod(np.arange(n * n), n)  # a-major: row a*n + b holds the pair (a, b)
    labels = rng.integers(0, n, n * n)
    x = np.stack([a, b + n], 1)
    y = np.stack([np.full(n * n, -1), labels], 1)
    return {'train': (x, y)}


def describe(args):
    n = args['size']
    # here, as prepare describes a task before it makes its splits: before an itos of 2n is built
    if not 1 <= n <= 2**15:
        raise ValueError(f'size={n} must be in 1..32768 (token ids 2n must fit in uint16)')
    return dict(
        vocab_size=2 * n,
        itos=[str(i) for i in range(2 * n)],
        sep=' ',
        block_size=2,
        scored='only the label, the target of the second position (b+n)',
    )


if __name__ == '__main__':
    main(__file__)

"""
Modular addition: (a, b) -> (a + b) mod p, a and b uniform in [0, p) ("Attention Retrieves, MLP
Memorizes", appendix B). The task is a finite table of p*p pairs, split without replacement: the
held-out and training pairs are disjoint sets of distinct pairs. Two ways to split it:

    n_train = n_test = 0 (default)   authors' code (modadd_exp.py, task modadds_199): the whole
                                     table is shuffled, its first int(p*p*train_frac) pairs train
                                     and the rest are held out: at p=199 and 0.95, 37,620 and 1,981,
                                     every pair once
    both n_train and n_test given    paper text: 40,000 training and 4,000 held-out pairs of the
                                     599^2 = 358,801 (--p=599 --n_train=40000 --n_test=4000); the
                                     rest of the table is unused, so n_train + n_test must not
                                     exceed p*p
The defaults p = 199 and train_frac = 0.95 are the authors' code; the paper text says p = 599. Only
one of n_train and n_test, or a train_frac other than 0.95 beside them, is an error.

Each example is the sequence [a, b, c] with c = (a + b) mod p; x = [a, b], y = [-1, c]: only the
answer is scored (so is it in the authors' loss). Example, p=7: s = 5 4 2, x = 5 4, y = -1 2.
Vocabulary (sep ' '): ids 0..p-1, written as the number.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main, vocab

import numpy as np

DEFAULTS = dict(
    # p: 199 = the authors' code (modadds_199); the paper's text: 599
    p=199,  # the modulus (a, b in [0, p)); 199 = the authors' code; the paper's text: 599
    # train_frac: the authors' code (modadd_exp.py)
    train_frac=0.95,  # share of the p*p table that trains if n_train = n_test = 0; authors' code
    # n_train, n_test: the paper's text's 40,000 and 4,000 go with --p=599
    n_train=0,  # training pairs; 0 = split by train_frac (authors' code); the paper's text: 40,000
    n_test=0,  # held-out pairs; 0 = split by train_frac (authors' code); the paper's text: 4,000
    seed=0,  # seed of the table's shuffle, which makes the split; train.py: --data_seed
)


def examples(pairs, p):
    """pairs (n, 2) of (a, b) -> (x, y)"""
    if p < 2:
        raise ValueError('p must be at least 2')
    return pairs, np.stack([np.full(len(pairs), -1), pairs.sum(1) % p], 1)


def generate(rng, n, p, train_frac=DEFAULTS['train_frac']):
    """n i.i.d. pairs (a stream, for online training; the files are made by splits()). train_frac is
    accepted because every setting is passed, and has no role here."""
    return examples(rng.integers(0, p, (n, 2)), p)


def splits(args, rng):
    p, frac, n_train, n_test = args['p'], args['train_frac'], args['n_train'], args['n_test']
    if n_train < 0 or n_test < 0 or (n_train == 0) != (n_test == 0):
        raise ValueError(
            f'n_train={n_train}, n_test={n_test}: give both (paper text) or neither '
            f"(authors' code: the whole table split by train_frac)"
        )
    if n_train and frac != DEFAULTS['train_frac']:
        raise ValueError(
            f'train_frac={frac} splits the whole table, so only with n_train = n_test = 0: '
            f'drop it or set n_train=0 n_test=0'
        )
    if n_train + n_test > p * p:
        raise ValueError(
            f'too few distinct inputs: p={p} has {p * p:,} pairs, fewer than n_train + n_test = '
            f'{n_train + n_test:,}; lower n_train/n_test or raise p'
        )
    x, y = examples(np.stack(np.divmod(rng.permutation(p * p), p), 1), p)  # the shuffled table
    if n_train:  # paper text: the first n_test pairs are held out, the next n_train train
        return {
            'val': (x[:n_test], y[:n_test]),
            'train': (x[n_test : n_test + n_train], y[n_test : n_test + n_train]),
        }
    # authors' code: the first int(p*p*frac) pairs train, the rest are held out
    n_train = int(p * p * frac)
    if not 0 < n_train < p * p:
        raise ValueError(
            f'train_frac={frac} leaves no training or no held-out pairs of the {p * p:,}: '
            f'set it between 0 and 1'
        )
    return {'train': (x[:n_train], y[:n_train]), 'val': (x[n_train:], y[n_train:])}


def describe(args):
    p = vocab(args['p'])
    return dict(
        vocab_size=p,
        itos=[str(i) for i in range(p)],
        sep=' ',
        block_size=2,
        scored='only the answer (a+b) mod p, the target of the second position',
    )


if __name__ == '__main__':
    main(__file__)

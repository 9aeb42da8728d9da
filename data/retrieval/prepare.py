"""
Needle in a haystack: recall the value stored under a queried key ("Attention Retrieves, MLP
Memorizes", appendix B: V=256, up to 30 pairs, 40,000 train and 4,000 test).

Each example is the sequence
    k1 v1 k2 v2 ... km vm kq vq
with m uniform in 1..m_max, m distinct keys from [vocab/2, vocab), values drawn iid from
[1, vocab/2), and kq one of the m keys chosen uniformly. x = s[:-1] padded with 0 ('_') to
2*m_max+1 tokens, and y is -1 except at the position of kq, whose target is vq. Example,
vocab=16, m_max=3, m=2:
    s = 12 5 9 3 9 3
    x = 12 5 9 3 9 _ _
    y = -1 -1 -1 -1 3 -1 -1
Vocabulary (sep ' '): 0 is the pad '_' (never a value), other ids are written as the number.
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(m_max=30, vocab=256, n_train=40_000, n_test=4_000, seed=0)
PAD = 0


def check(m_max, vocab):
    if vocab < 4:
        raise ValueError(f'vocab={vocab} is too small: keys need [vocab/2, vocab) and values [1, vocab/2)')
    if not 1 <= m_max <= vocab // 2:
        raise ValueError(f'm_max={m_max} must be in 1..vocab//2={vocab // 2}: the keys of one example are distinct')


def generate(rng, n, m_max, vocab):
    check(m_max, vocab)
    half, rows = vocab // 2, np.arange(n)
    m = rng.integers(1, m_max + 1, n)
    # The paper draws keys iid; we draw them without replacement, since a repeated key with two
    # different values would make the answer ambiguous (the input must determine the target).
    keys = half + rng.permuted(np.tile(np.arange(vocab - half), (n, 1)), axis=1)[:, :m_max]
    values = rng.integers(1, half, (n, m_max))  # never 0, so 0 is free as the pad
    q = rng.integers(0, m)  # which pair is queried
    x = np.full((n, 2 * m_max + 1), PAD, dtype=np.int64)
    x[:, 0:2 * m_max:2], x[:, 1:2 * m_max:2] = keys, values
    x[np.arange(2 * m_max + 1) >= 2 * m[:, None]] = PAD  # drop the pairs beyond the m-th
    x[rows, 2 * m] = keys[rows, q]
    y = np.full_like(x, -1)
    y[rows, 2 * m] = values[rows, q]
    return x, y


def describe(args):
    check(args['m_max'], args['vocab'])
    return dict(vocab_size=args['vocab'], itos=['_'] + [str(i) for i in range(1, args['vocab'])], sep=' ',
                scored='only the queried value, the target of the position of the query key (the last token)')


if __name__ == '__main__':
    main(__file__)

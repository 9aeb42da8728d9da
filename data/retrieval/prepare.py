"""
Needle in a haystack: recall the value stored under a queried key ("Attention Retrieves, MLP
Memorizes", appendix B: up to 30 pairs, 40,000 train and 4,000 test). Two formats, with V = vocab,
M = m_max, m uniform in 1..M pairs, values drawn iid from [1, V/2) (0 is the pad), and the queried
pair one of the m chosen uniformly:

format='authors' (default; authors' code, task_condattendstream.py: condattendstream_30, V = 512):
    k1 v1 k2 v2 ... km vm qk v <pad>...                      (2M+3 tokens)
with the m keys distinct, the first m of a random permutation of 0..M-1, written as ids V/2+k
('k0'..), and a query token of its own, V/2+M+k ('q0'..), for the queried key k, followed by its
value. x = s[:-1] (2M+2 tokens) and y is -1 except at the query token, whose target is its value
(the authors score only that value). Needs V/2 + 2M <= V. Example, V=16, M=3, m=2:
    s = k2 5 k0 3 q2 5 _ _ _
    x = k2 5 k0 3 q2 5 _ _                  (ids 10 5 8 3 13 5 0 0)
    y = -1 -1 -1 -1 5 -1 -1 -1

format='text' (paper text: V = 256, --format=text --vocab=256):
    k1 v1 k2 v2 ... km vm kq vq
with m distinct keys from [V/2, V) (the paper draws them iid; distinct, so that the input determines
the target) and the query repeating the key kq. x = s[:-1] padded with 0 to 2M+1 tokens, and y is
-1 except at the position of kq, whose target is vq. Example, V=16, M=3, m=2:
    s = 12 5 9 3 9 3
    x = 12 5 9 3 9 _ _
    y = -1 -1 -1 -1 3 -1 -1

In both, the query sits at position 2m. Defaults: m_max=30 (both), vocab=512 (authors' code), 40,000
training and 4,000 held-out sequences (paper text; the authors' code streams fresh training
sequences, rejecting those that repeat one of its 4,000 held-out ones).
Vocabulary (sep ' '): 0 is the pad '_' (never a value); values, and in the text format keys, are
written as the number; the authors' keys and query tokens as 'k3' and 'q3'.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main, vocab

import numpy as np

DEFAULTS = dict(
    # m_max: m is uniform in 1..m_max
    m_max=30,  # most key-value pairs in a sequence; the paper's text and the authors' code
    # vocab: 512 = the authors' code (condattendstream_30)
    vocab=512,  # V: values in [1, V/2); 512 = the authors' code; the paper's text: 256
    # format 'text': the query repeats the key
    format='authors',  # 'authors': the authors' code (own query tokens) | 'text': the paper's text
    n_train=40_000,  # training sequences; the paper's text (the authors' code streams fresh ones)
    n_test=4_000,  # held-out sequences; the paper's text and the authors' code
    seed=0,  # seed of the generator that draws the data; train.py: --data_seed
)
PAD = 0


def check(m_max, vocab, format):
    if format not in ('authors', 'text'):
        raise ValueError(
            f"format={format!r} must be 'authors' (the authors' code) or 'text' (the paper text)"
        )
    if vocab < 4:
        raise ValueError(
            f'vocab={vocab} is too small: values need [1, vocab/2) and keys the ids above'
        )
    if format == 'text' and not 1 <= m_max <= vocab // 2:
        raise ValueError(
            f'm_max={m_max} must be in 1..vocab//2={vocab // 2}: '
            'the keys of one example are distinct'
        )
    if format == 'authors' and not 1 <= m_max <= (vocab - vocab // 2) // 2:
        raise ValueError(
            f'm_max={m_max} must be in 1..{(vocab - vocab // 2) // 2} at vocab={vocab}: '
            "the authors' format needs vocab/2 + 2*m_max <= vocab (keys and query tokens); "
            'raise vocab or lower m_max'
        )


def generate(rng, n, m_max, vocab, format=DEFAULTS['format']):
    check(m_max, vocab, format)
    half, rows = vocab // 2, np.arange(n)
    m = rng.integers(1, m_max + 1, n)
    if format == 'text':  # keys drawn without replacement from [V/2, V)
        keys = half + rng.permuted(np.tile(np.arange(vocab - half), (n, 1)), axis=1)[:, :m_max]
    else:  # the first m of a permutation of range(M), as random.shuffle(keys)[:m]
        keys = half + rng.permuted(np.tile(np.arange(m_max), (n, 1)), axis=1)
    values = rng.integers(1, half, (n, m_max))  # never 0, so 0 is free as the pad
    q = rng.integers(0, m)  # which pair is queried
    s = np.full((n, 2 * m_max + 3), PAD, dtype=np.int64)  # long enough for both formats
    s[:, 0 : 2 * m_max : 2], s[:, 1 : 2 * m_max : 2] = keys, values
    s[np.arange(2 * m_max + 3) >= 2 * m[:, None]] = PAD  # drop the pairs beyond the m-th
    # the authors' query token is its own
    s[rows, 2 * m] = keys[rows, q] + (m_max if format == 'authors' else 0)
    # x = s[:-1] holds the value after the query; the text's x ends at the query
    if format == 'authors':
        s[rows, 2 * m + 1] = values[rows, q]
    x = s[:, : 2 * m_max + (2 if format == 'authors' else 1)]
    y = np.full_like(x, -1)
    y[rows, 2 * m] = values[rows, q]
    return x, y


def describe(args):
    check(args['m_max'], args['vocab'], args['format'])
    V, M, half = vocab(args['vocab']), args['m_max'], args['vocab'] // 2
    itos = ['_'] + [str(i) for i in range(1, V)]
    if args['format'] == 'authors':
        itos[half : half + 2 * M] = [f'k{k}' for k in range(M)] + [f'q{k}' for k in range(M)]
    return dict(
        vocab_size=V,
        itos=itos,
        sep=' ',
        block_size=2 * M + (2 if args['format'] == 'authors' else 1),
        scored='only the queried value, the target of the position of the query token',
    )


if __name__ == '__main__':
    main(__file__)

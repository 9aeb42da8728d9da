"""
k-hop induction heads (Sanford, Hsu, Telgarsky 2024, "Transformers, parallel computation, and
logarithmic depth"; setting of "Attention Retrieves, MLP Memorizes", appendix B: sequence length
100, 4 letters, k uniform in 0..16, 100,000 train and 100 test). min_hops = max_hops fixes k, as the
per-k tasks of "Fixed universal transformers".

X is a string of `length` random letters with no immediate repeats. tau(i) = j+1 for the most
recent j < i with X[j] == X[i] (the token that followed the previous occurrence, as an induction
head would copy), and hop_k(X)[i] = X[tau^k(i)], or <none> if some step of the chain has no earlier
occurrence. Each example is
    x = <k=K> X[0] ... X[length-3]                 (length-1 tokens)
    y = <blank> hop_K(X)[0] ... hop_K(X)[length-3]  (every position scored)
so the target at each letter is the K-hop of that letter. Example (the paper's), K=2, length=8,
X = a d c a d a b c:
    x = <k=2> a d c a d a
    y = <blank> <none> <none> <none> <none> <none> c
Vocabulary (sep ' '): letters 0..letters-1, <none> = letters, <blank> = letters+1, and
<k=K> = letters+2+K for K in 0..max_hops.
"""

import string
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main, vocab

import numpy as np

DEFAULTS = dict(
    length=100,  # letters in the string X (x holds length-1 tokens); the paper's text (appendix B)
    letters=4,  # alphabet size; the paper's text (appendix B)
    # min_hops: k is uniform in min_hops..max_hops
    min_hops=0,  # fewest hops k; the paper's text (appendix B: 0..16)
    # max_hops: min_hops = max_hops fixes k, as in "Fixed universal transformers"
    max_hops=16,  # most hops k; the paper's text; min_hops = max_hops fixes k
    n_train=100_000,  # training examples; the paper's text (appendix B)
    n_test=100,  # held-out examples; the paper's text (appendix B)
    seed=0,  # seed of the generator that draws the data; train.py: --data_seed
)


def hops(X, k, none=-1):
    """hop_k for a batch X of shape (B, T); k is an int or one per row. Positions whose chain
    leaves the sequence get `none`."""
    X = np.asarray(X)
    B, T = X.shape
    k = np.broadcast_to(np.asarray(k), (B,))
    idx = np.arange(T, dtype=np.int32)
    # prev[:, i] = the most recent j < i with X[j] == X[i], or -1: the last occurrence of each
    # letter up to i is a running maximum of its positions, read one step back
    prev = np.full((B, T), -1, dtype=np.int32)
    for c in np.unique(X):
        last = np.maximum.accumulate(np.where(X == c, idx, np.int32(-1)), axis=1)
        prev[:, 1:] = np.where(X[:, 1:] == c, last[:, :-1], prev[:, 1:])
    # follow the chains as flat indices into X, whose index B*T is a sentinel for "no earlier
    # occurrence" that maps to itself, so that a chain that has left stays out
    dt = np.int32 if B * T < 2**31 - 1 else np.int64
    start = (np.arange(B, dtype=dt) * T)[:, None]
    tau = np.append(np.where(prev >= 0, start + prev + 1, B * T), B * T).astype(dt)
    # rows sorted by decreasing k, so that the rows still hopping at each step are a prefix
    order = np.argsort(-k, kind='stable')
    pos, ks = (start + idx)[order], k[order]
    for step in range(int(k.max(initial=0))):
        a = np.count_nonzero(ks > step)
        pos[:a] = tau[pos[:a]]
    out = np.empty_like(pos)
    out[order] = pos
    return np.append(X.ravel(), none)[out]


def check(length, letters, max_hops, min_hops):
    # two letters, as no letter follows itself; a length of three, as x holds X[:-2] after <k=K>
    for key, value, low in (
        ('letters', letters, 2),
        ('length', length, 3),
        ('min_hops', min_hops, 0),
    ):
        if value < low:
            raise ValueError(f'{key}={value} must be at least {low}')
    if max_hops < min_hops:
        raise ValueError(f'max_hops={max_hops} must be at least min_hops={min_hops}')


def generate(rng, n, length, letters, max_hops, min_hops=0):
    check(length, letters, max_hops, min_hops)
    # no immediate repeats: each letter is the previous one shifted by 1..letters-1 (mod letters),
    # which is uniform over all such strings
    shifts = rng.integers(1, letters, (n, length))
    shifts[:, 0] = rng.integers(0, letters, n)
    X = np.cumsum(shifts, axis=1) % letters
    # min_hops = max_hops: one fixed k (universal_tasks.py)
    k = rng.integers(min_hops, max_hops + 1, n)
    none, blank = letters, letters + 1
    x = np.concatenate([(letters + 2 + k)[:, None], X[:, :-2]], 1)
    y = np.concatenate([np.full((n, 1), blank), hops(X, k, none)[:, :-2]], 1)
    return x, y


def describe(args):
    check(args['length'], args['letters'], args['max_hops'], args['min_hops'])
    L, V = args['letters'], vocab(args['letters'] + 2 + args['max_hops'] + 1)
    names = list(string.ascii_lowercase[:L]) if L <= 26 else [f'l{i}' for i in range(L)]
    itos = names + ['<none>', '<blank>'] + [f'<k={k}>' for k in range(args['max_hops'] + 1)]
    return dict(
        vocab_size=V,
        itos=itos,
        sep=' ',
        block_size=args['length'] - 1,  # <k=K>, then X but its last two letters
        scored='every position: <blank> after the <k=K> token, then hop_K of each letter',
    )


if __name__ == '__main__':
    main(__file__)

"""
Dyck-1 recognition: is a string of brackets balanced? ("Attention Retrieves, MLP Memorizes",
appendix B: 100,000 train and 4,000 test; authors' code: task_dyckstream.py, task dyckstream_40.)

Each example is the sequence
    string ? answer <pad>...
where string has 1..length brackets and answer is ')' if the string is balanced (the depth never
goes below zero and ends at zero) and '(' if not. x = s[:-1], and y is -1 except at the '?'
position, whose target is the answer. The answer also sits in x after the '?'; a causal model
predicts it before seeing it, as in every next-token task. Example, length=8, authors' format:
    s = (())?)<pad><pad><pad><pad><pad>       balanced
    s = )(()?(<pad><pad><pad><pad><pad>       not balanced
Vocabulary (sep ''): 0 '<pad>', 1 '(', 2 ')', 3 '?'. `length` is the most brackets in a string:
the authors' dyckstream_40 counts 40 pairs, so length=80 (default); the paper text says length 40.

format='authors' (default; authors' code, gen_single): s has length+3 tokens (2*pairs+3; x
    length+2). A third of the strings are random (length uniform in 1..length, brackets uniform),
    the rest come from their recursive gen_balanced (not uniform over balanced strings) of
    1..length/2 pairs, and half of those stay as they are. The others, random strings included, are
    mutated as their mutate = 0..3 says: bit 1, a geometric number (1, 2, ... with probability 1/2,
    1/4, ...) of swaps of two uniform positions p < q (a draw with p >= q swaps nothing); bit 2,
    then a geometric number of flips of a uniform position, doubled with probability 2/3. 52.6% of
    the strings are balanced (a plain-Python port of their code, 4,000,000 draws: 52.57%; their own
    4,000 test strings: 52.1%). As their depth.py, training draws that repeat a held-out string are
    rejected (EXCLUDE_HELD_OUT): at the defaults that is 10.0% of the draws (meta.json:
    train_draws_rejected), nearly all of them of at most 16 brackets (99.6%), so the training set
    lacks almost every string of at most 4 brackets (98% of their draws are rejected) and is 50.6%
    balanced; 23% of the draws at length 40, 65% at 16, 97% at 8.
format='text' (paper text: --format=text --length=40): s has length+2 tokens. The strings are a mix
    of three kinds, a third each: uniformly random strings of uniformly random length (nearly all
    unbalanced); uniformly random balanced strings of uniformly random even length; and balanced
    strings with two random positions swapped or one flipped (hard negatives that differ from a
    balanced string in one or two places; a swap may also keep it balanced); 46% are balanced. Both
    splits are plain i.i.d. draws, so a held-out string may also occur in train (meta.json:
    held_out_in_train): excluding them would reject 21% of the draws at length 40 and 64% at 16,
    removing every short string from training while the held-out set keeps them.
The label is always computed from the final string.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(
    # length: 80 = the authors' code (dyckstream_40: 40 pairs); the paper's text: 40
    length=80,  # most brackets in a string; 80 = the authors' code (40 pairs); the paper's text: 40
    # format: 'authors' = the authors' code's strings (gen_single); 'text' = the paper text's mix
    format='authors',  # 'authors': the authors' code's strings | 'text': the paper text's mix
    n_train=100_000,  # training examples; the paper's text (appendix B)
    n_test=4_000,  # held-out examples; the paper's text (appendix B) and the authors' code
    seed=0,  # seed of the generator that draws the data; train.py: --data_seed
)
PAD, OPEN, CLOSE, QUERY = 0, 1, 2, 3


def EXCLUDE_HELD_OUT(args):
    """Held-out strings are kept out of training in the authors' format only (see above)."""
    return args['format'] == 'authors'


def dyck_words(rng, n, half):
    """n uniformly random balanced strings with `half` pairs, by the cycle lemma: of the 2*half+1
    rotations of a random arrangement of half '(' and half+1 ')', exactly one is a balanced string
    followed by ')', the one starting just after the first minimum of the prefix depth. Every
    balanced string arises from exactly 2*half+1 arrangements, so the result is uniform (and,
    unlike rejection sampling, costs one shuffle per string)."""
    steps = np.tile(np.r_[np.ones(half, np.int8), -np.ones(half + 1, np.int8)], (n, 1))
    steps = rng.permuted(steps, axis=1)
    depth = np.cumsum(steps, axis=1, dtype=np.int64)[:, :-1]  # depth after 1..2*half steps
    depth = np.concatenate([np.zeros((n, 1), np.int64), depth], 1)  # depth after 0..2*half steps
    start = depth.argmin(1)  # argmin returns the first minimum
    idx = (start[:, None] + np.arange(2 * half)) % (2 * half + 1)
    return np.where(np.take_along_axis(steps, idx, 1) > 0, OPEN, CLOSE)


def gen_balanced(rng, t, width):
    """The authors' gen_balanced(t) for each t in the array t (all >= 1), as rows of an
    (len(t), width) array padded with 0. Their recursion: t = 1 gives '()'; otherwise, with
    probability 1/2, '(' + piece of t-1 + ')', else a piece of u and one of t-u, u uniform in
    1..t-1. Here it runs breadth first over all strings at once: each pending piece (row, start, t)
    writes its outer brackets or splits, so the loop runs at most max(t) times. Not uniform over
    balanced strings: the distribution is theirs."""
    out = np.full((len(t), width), PAD, dtype=np.int64)
    row, at, t = np.arange(len(t)), np.zeros(len(t), dtype=np.int64), np.asarray(t, dtype=np.int64)
    while len(row):
        # t = 1 ('()') and wraps write their brackets
        split = (t > 1) & (rng.integers(0, 2, len(t)) == 0)
        out[row[~split], at[~split]] = OPEN
        out[row[~split], at[~split] + 2 * t[~split] - 1] = CLOSE
        wrap = ~split & (t > 1)
        u = rng.integers(1, t[split])
        row = np.concatenate([row[wrap], row[split], row[split]])
        at = np.concatenate([at[wrap] + 1, at[split], at[split] + 2 * u])
        t = np.concatenate([t[wrap] - 1, u, t[split] - u])
    return out


def authors_strings(rng, n, pairs):
    """-> (strings, lengths): n strings of the authors' generator (task_dyckstream.py, gen_single
    before the '?'), as an (n, 2*pairs) array padded with 0. Python's random draws become numpy's,
    one array per draw; each string gets the same distribution as theirs."""
    width = 2 * pairs
    mutate = rng.integers(0, 4, n)
    # a third: brackets uniform, of a length uniform in 1..2*pairs
    rand = rng.integers(0, 3, n) == 0
    lens = rng.integers(1, width + 1, n)
    strings = np.where(
        np.arange(width) < lens[:, None], rng.integers(OPEN, CLOSE + 1, (n, width)), PAD
    )
    bal = np.flatnonzero(~rand)  # the rest: gen_balanced of a uniform 1..pairs
    t = rng.integers(1, pairs + 1, len(bal))
    strings[bal], lens[bal] = gen_balanced(rng, t, width), 2 * t
    mutate[bal[rng.integers(0, 2, len(bal)) == 1]] = 0  # half of the balanced ones stay as they are
    # swaps (mutate & 1): rep = 1 + heads before the first tail (geometric), each of a uniform
    # (p, q), skipped unless p < q; then flips (mutate & 2): a rep drawn the same way, doubled with
    # probability 2/3
    swaps = np.where(mutate & 1, rng.geometric(0.5, n), 0)
    for k in range(swaps.max(initial=0)):
        r = np.flatnonzero(swaps > k)
        p, q = rng.integers(0, lens[r]), rng.integers(0, lens[r])
        r, p, q = r[p < q], p[p < q], q[p < q]
        strings[r, p], strings[r, q] = strings[r, q], strings[r, p]
    flips = np.where(
        mutate & 2, rng.geometric(0.5, n) * np.where(rng.integers(0, 3, n) == 0, 1, 2), 0
    )
    for k in range(flips.max(initial=0)):
        r = np.flatnonzero(flips > k)
        p = rng.integers(0, lens[r])
        strings[r, p] = OPEN + CLOSE - strings[r, p]
    return strings, lens


def text_strings(rng, n, length):
    """-> (strings, lengths): n strings of the paper-text generator, as an (n, length) array padded
    with 0."""
    kind = rng.integers(0, 3, n)  # 0 random, 1 balanced, 2 balanced then mutated
    lens = np.where(
        kind == 0, rng.integers(1, length + 1, n), 2 * rng.integers(1, length // 2 + 1, n)
    )
    strings = rng.integers(OPEN, CLOSE + 1, (n, length))
    for half in np.unique(lens[kind > 0] // 2):
        sel = np.flatnonzero((kind > 0) & (lens == 2 * half))
        strings[sel, : 2 * half] = dyck_words(rng, len(sel), half)
    strings[np.arange(length) >= lens[:, None]] = PAD
    # mutate: swap positions i != j, or flip position i
    m = np.flatnonzero(kind == 2)
    i = rng.integers(0, lens[m])
    j = (i + rng.integers(1, lens[m])) % lens[m]
    swap = rng.random(len(m)) < 0.5
    si, sj = strings[m, i], strings[m, j]
    strings[m, i] = np.where(swap, sj, OPEN + CLOSE - si)
    strings[m, j] = np.where(swap, si, sj)
    return strings, lens


def check(length, format):
    if format not in ('authors', 'text'):
        raise ValueError(
            f"format={format!r} must be 'authors' (the authors' code) or 'text' (the paper text)"
        )
    if length < 2:
        raise ValueError('length must be at least 2 (the shortest balanced string is "()")')
    if format == 'authors' and length % 2:
        raise ValueError(
            f"length={length} must be even in the authors' format (twice the most pairs): "
            f'set it to {length + 1} or {length - 1}'
        )


def generate(rng, n, length, format=DEFAULTS['format']):
    check(length, format)
    rows = np.arange(n)
    strings, lens = (
        authors_strings(rng, n, length // 2)
        if format == 'authors'
        else text_strings(rng, n, length)
    )
    # label the final string; <pad> adds 0 to the depth, so it does not change min or final depth
    depth = np.cumsum((strings == OPEN).astype(np.int64) - (strings == CLOSE), axis=1)
    balanced = (depth.min(1) >= 0) & (depth[:, -1] == 0)
    # authors: 2*pairs+3
    s = np.zeros((n, length + (3 if format == 'authors' else 2)), dtype=np.int64)
    s[:, :length] = strings
    s[rows, lens] = QUERY
    s[rows, lens + 1] = np.where(balanced, CLOSE, OPEN)
    x, y = s[:, :-1], np.full((n, s.shape[1] - 1), -1, dtype=np.int64)
    y[rows, lens] = s[rows, lens + 1]
    return x, y


def describe(args):
    check(args['length'], args['format'])
    return dict(
        vocab_size=4,
        itos=['<pad>', '(', ')', '?'],
        sep='',
        block_size=args['length'] + (2 if args['format'] == 'authors' else 1),
        scored="only the answer, the target of the '?' position: ')' if balanced, '(' if not",
    )


if __name__ == '__main__':
    main(__file__)

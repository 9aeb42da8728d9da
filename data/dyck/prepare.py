"""
Dyck-1 recognition: is a string of brackets balanced? ("Attention Retrieves, MLP Memorizes",
appendix B: strings up to length 40, 100,000 train and 4,000 test.)

Each example is the sequence
    string ? answer <pad>...                      (length+2 tokens)
where string has 1..length brackets and answer is ')' if the string is balanced (the depth never
goes below zero and ends at zero) and '(' if not. x = s[:-1] (length+1 tokens), and y is -1 except
at the '?' position, whose target is the answer. Example, length=8:
    s = (())?)<pad><pad><pad><pad>       balanced
    s = )(()?(<pad><pad><pad><pad>       not balanced
Vocabulary (sep ''): 0 '<pad>', 1 '(', 2 ')', 3 '?'.

The strings are a mix of three kinds, a third each: uniformly random strings of uniformly random
length (nearly all unbalanced); uniformly random balanced strings of uniformly random even length;
and balanced strings with two random positions swapped or one position flipped (hard negatives
that differ from a balanced string in one or two places; a swap may also keep it balanced).
The label is always computed from the final string. The answer also sits in x after the '?';
a causal model predicts it before seeing it, as in every next-token task.

Both splits are plain i.i.d. draws (EXCLUDE_HELD_OUT = False), so a held-out string may also occur in
train, as with the papers' streaming generator. The distribution puts a large mass on few short
strings (random strings have uniform length, and there are only 2^l of length l): excluding the 4,000
held-out strings from training would reject 21% of the draws at length 40 and 64% at length 16,
removing every short string from training while the held-out set keeps them. meta.json records the
share of held-out strings that occur in train (held_out_in_train).
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(length=40, n_train=100_000, n_test=4_000, seed=0)
EXCLUDE_HELD_OUT = False  # see above
PAD, OPEN, CLOSE, QUERY = 0, 1, 2, 3


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


def generate(rng, n, length):
    if length < 2:
        raise ValueError('length must be at least 2 (the shortest balanced string is "()")')
    rows = np.arange(n)
    kind = rng.integers(0, 3, n)  # 0 random, 1 balanced, 2 balanced then mutated
    lens = np.where(kind == 0, rng.integers(1, length + 1, n), 2 * rng.integers(1, length // 2 + 1, n))
    strings = rng.integers(OPEN, CLOSE + 1, (n, length))
    for half in np.unique(lens[kind > 0] // 2):
        sel = np.flatnonzero((kind > 0) & (lens == 2 * half))
        strings[sel, :2 * half] = dyck_words(rng, len(sel), half)
    strings[np.arange(length) >= lens[:, None]] = PAD
    # mutate: swap positions i != j, or flip position i
    m = np.flatnonzero(kind == 2)
    i = rng.integers(0, lens[m])
    j = (i + rng.integers(1, lens[m])) % lens[m]
    swap = rng.random(len(m)) < 0.5
    si, sj = strings[m, i], strings[m, j]
    strings[m, i] = np.where(swap, sj, OPEN + CLOSE - si)
    strings[m, j] = np.where(swap, si, sj)
    # label the final string; <pad> adds 0 to the depth, so it does not change min or final depth
    depth = np.cumsum((strings == OPEN).astype(np.int64) - (strings == CLOSE), axis=1)
    balanced = (depth.min(1) >= 0) & (depth[:, -1] == 0)
    s = np.zeros((n, length + 2), dtype=np.int64)
    s[:, :length] = strings
    s[rows, lens] = QUERY
    s[rows, lens + 1] = np.where(balanced, CLOSE, OPEN)
    x, y = s[:, :-1], np.full((n, length + 1), -1, dtype=np.int64)
    y[rows, lens] = s[rows, lens + 1]
    return x, y


def describe(args):
    return dict(vocab_size=4, itos=['<pad>', '(', ')', '?'], sep='',
                scored="only the answer, the target of the '?' position: ')' if balanced, '(' if not")


if __name__ == '__main__':
    main(__file__)

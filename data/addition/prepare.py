"""
Decimal addition with digits written least-significant first ("Attention Retrieves, MLP Memorizes",
appendix B: 10-digit operands, 50,000 train and 4,000 test pairs).

Each example is the token sequence
    rev(a) + rev(b) = rev(a+b) <stop> [<pad>]
where a and b have exactly `digits` digits (leading digit nonzero), rev writes the least significant
digit first, and the sum has no leading zeros (digits or digits+1 digits). Every sequence has
3*digits+4 tokens; a sum of only `digits` digits leaves one <pad> at the end.
x = s[:-1], y = s[1:], with y = -1 except at the sum digits and <stop> (positions from '=' on).
Example, digits=3, 457 + 168 = 625:
    s = 754+861=526<stop><pad>
    x = 754+861=526<stop>                          (3*digits+3 = 12 tokens)
    y = -1 x7, then 5 2 6 <stop>, then -1
Vocabulary (sep ''): digits 0-9 are ids 0-9, '+' 10, '=' 11, '<stop>' 12, '<pad>' 13.
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(digits=10, n_train=50_000, n_test=4_000, seed=0)
PLUS, EQ, STOP, PAD = 10, 11, 12, 13


def generate(rng, n, digits):
    if digits < 1:
        raise ValueError('digits must be at least 1')
    # operands as digit arrays, least significant first; the top digit is nonzero so that every
    # operand has exactly `digits` digits
    a = rng.integers(0, 10, (n, digits))
    b = rng.integers(0, 10, (n, digits))
    a[:, -1] = rng.integers(1, 10, n)
    b[:, -1] = rng.integers(1, 10, n)
    # schoolbook addition over the digit columns: int64 would overflow beyond 18 digits
    total, carry = np.zeros((n, digits), dtype=np.int64), np.zeros(n, dtype=np.int64)
    for i in range(digits):
        t = a[:, i] + b[:, i] + carry
        total[:, i], carry = t % 10, t // 10
    s = np.full((n, 3 * digits + 4), PAD, dtype=np.int64)
    s[:, :digits], s[:, digits] = a, PLUS
    s[:, digits + 1:2 * digits + 1], s[:, 2 * digits + 1] = b, EQ
    c = 2 * digits + 2  # where the sum starts
    s[:, c:c + digits] = total
    # a final carry is the (digits+1)-th sum digit; without one, <stop> moves up and a <pad> follows
    s[:, c + digits] = np.where(carry == 1, 1, STOP)
    s[:, c + digits + 1] = np.where(carry == 1, STOP, PAD)
    x, y = s[:, :-1], s[:, 1:].copy()
    y[:, :2 * digits + 1] = -1  # the operands are given, not predicted
    y[y == PAD] = -1
    return x, y


def describe(args):
    return dict(vocab_size=14, itos=[str(d) for d in range(10)] + ['+', '=', '<stop>', '<pad>'], sep='',
                scored='the digits of the sum and <stop>, i.e. the targets of the positions from "=" on')


if __name__ == '__main__':
    main(__file__)

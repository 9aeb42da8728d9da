"""
Decimal addition with digits written least-significant first ("Attention Retrieves, MLP Memorizes",
appendix B: 10-digit operands, 50,000 train and 4,000 test pairs; authors' code:
task_additionstream.py, task additionstream_10).

Each example is the token sequence
    rev(a) + rev(b) = rev(a+b) <stop> [<pad>]
where a and b have exactly `digits` digits (leading digit nonzero), rev writes the least significant
digit first, and the sum has no leading zeros (digits or digits+1 digits). Every sequence has
3*digits+4 tokens; a sum of only `digits` digits leaves one <pad> at the end. x = s[:-1]
(3*digits+3 tokens), y = s[1:] at the scored positions and -1 elsewhere. The two formats differ in
the sum's tokens and in what is scored:

format='authors' (default; authors' code): the sum digits are tokens of their own, ids 14-23
    (written '₀'..'₉'), apart from the operand digits 0-9. A position is scored when its own token
    is a sum digit or <stop> (the authors' loss: the current token >= their first sum digit). So the
    first sum digit, the target of '=', is neither trained nor scored, and the <pad> after <stop>
    is: always digits+1 scored tokens per example.
format='text' (paper text): the sum digits share ids 0-9 with the operands; scored are the positions
    from '=' on whose target is not <pad>: the whole sum and <stop>, digits+1 or digits+2 tokens.
The unscored first sum digit matters. In --quick's setting (3 digits, width 64, 2 layers), a MixiT
trained in the text format gets that digit 10.72% right (chance) and the other sum tokens 98.68%
(experiments/results/algorithmic-quick.md). The authors' scoring leaves out the one token it cannot
compute.
Example, digits=3, 457 + 168 = 625:
    s = 754+861=₅₂₆<stop><pad>                      authors'
    x = 754+861=₅₂₆<stop>                           (3*digits+3 = 12 tokens)
    y = -1 x8, then ₂ ₆ <stop> <pad>
    s = 754+861=526<stop><pad>                      text
    x = 754+861=526<stop>
    y = -1 x7, then 5 2 6 <stop>, then -1
Vocabulary (sep ''): digits 0-9 are ids 0-9, '+' 10, '=' 11, '<stop>' 12, '<pad>' 13, and in the
authors' format the sum digits '₀'..'₉' 14-23 (the authors number them 20-29, with <stop> 30 and
<pad> 12; the ids differ, not the task).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data.synthetic import main

import numpy as np

DEFAULTS = dict(
    # digits: the paper's text (appendix B) and the authors' code (additionstream_10)
    digits=10,  # digits per operand; the paper's text and the authors' code
    # format 'authors': own sum-digit tokens and the authors' loss
    format='authors',  # 'authors': the authors' code, own sum-digit tokens | 'text': the paper text
    n_train=50_000,  # training examples; the paper's text (appendix B)
    n_test=4_000,  # held-out examples; the paper's text (appendix B)
    seed=0,  # seed of the generator that draws the data; train.py: --data_seed
)
PLUS, EQ, STOP, PAD, SUM = 10, 11, 12, 13, 14  # SUM + d: the authors' sum digit d


def generate(rng, n, digits, format=DEFAULTS['format']):
    if digits < 1:
        raise ValueError('digits must be at least 1')
    if format not in ('authors', 'text'):
        raise ValueError(
            f"format={format!r} must be 'authors' (the authors' code) or 'text' (the paper text)"
        )
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
    first = SUM if format == 'authors' else 0  # the id of the sum digit 0
    s = np.full((n, 3 * digits + 4), PAD, dtype=np.int64)
    s[:, :digits], s[:, digits] = a, PLUS
    s[:, digits + 1 : 2 * digits + 1], s[:, 2 * digits + 1] = b, EQ
    c = 2 * digits + 2  # where the sum starts
    s[:, c : c + digits] = first + total
    # a final carry is the (digits+1)-th sum digit; without one, <stop> moves up and a <pad> follows
    s[:, c + digits] = np.where(carry == 1, first + 1, STOP)
    s[:, c + digits + 1] = np.where(carry == 1, STOP, PAD)
    x, y = s[:, :-1], s[:, 1:].copy()
    if format == 'authors':
        y[(x < SUM) & (x != STOP)] = -1  # scored where the current token is a sum digit or <stop>
    else:
        y[:, : 2 * digits + 1] = -1  # the operands are given, not predicted
        y[y == PAD] = -1
    return x, y


def describe(args):
    itos = [str(d) for d in range(10)] + ['+', '=', '<stop>', '<pad>']
    T = 3 * args['digits'] + 3
    if args['format'] == 'authors':
        return dict(
            vocab_size=24,
            itos=itos + [chr(0x2080 + d) for d in range(10)],
            sep='',
            block_size=T,
            scored='the targets of the sum digits and <stop>: the sum but its first digit, <stop>, '
            'and the <pad> after <stop> where the sum has `digits` digits',
        )
    return dict(
        vocab_size=14,
        itos=itos,
        sep='',
        block_size=T,
        scored='the digits of the sum and <stop>, i.e. the targets of the positions from "=" on',
    )


if __name__ == '__main__':
    main(__file__)

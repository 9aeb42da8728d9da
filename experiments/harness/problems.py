"""
Whether a shrunk problem is still the paper's. A --regime keeps the paper's training regime on a
smaller problem than the paper's; that problem keeps what a claim is about only where it is as hard
in the ways the claim needs. Measured from the task's generator, before any run, for a mode's task
keys and the full protocol's (the paper's problem), each row (quantity, ours, paper):

    trivial share     the share of scored targets a rule that does not do the task gets right:
                      k-hop, a rule that does no hop (<blank>, the letter itself at k = 0,
                      <none> otherwise); retrieval, the value of the first pair (a value in
                      context, chance for a model that cannot retrieve); addition, adding digit
                      by digit without carrying; Dyck-1, the more common answer, whatever the
                      string
    inputs drawn      the chance that an input the task draws is one training drew too (how near
                      the problem is to a table a model could store): 1 - exp(-draws / inputs)
                      for inputs drawn uniformly, k-hop's and addition's; retrieval's, for each m
                      (Dyck-1's strings are not uniform: not measured)
    kept              the generator's own sizes beside the paper's (length and hops, m_max):
                      reported, not judged

A judged row is off where ours and the paper's are more than the experiment's declared factor apart
(PROBLEM['factor']; claims.off_problem): the problem is not the paper's, and a claim on the
quantities it measures is unresolved (claims.judged).
"""

import functools
import math
import sys

if __name__ == '__main__':  # the experiments' code, not a command (alone: an import's traceback)
    print(
        f'error: {__file__} is imported, not run: run an experiment, '
        'python experiments/<paper>/<name>.py, or a tool, python experiments/tools/<name>.py',
        file=sys.stderr,
    )
    sys.exit(2)

import numpy as np

from data import synthetic
from configurator import resolve

SAMPLE = 4_000  # examples the trivial share is measured on (the generator's own draws)


def draws(cfg):
    """Training inputs a run draws: online, one per example; else its training split."""
    return cfg['max_iters'] * cfg['batch_size'] if cfg['online'] else cfg['n_train']


def khop(cfg):
    letters, length, lo, hi = (cfg[k] for k in ('letters', 'length', 'min_hops', 'max_hops'))
    x, y = synthetic.load_task('khop').generate(
        np.random.default_rng(0), SAMPLE, length, letters, hi, lo
    )
    k = x[:, :1] - (letters + 2)
    # no hop: <blank> first, the letter itself at k = 0, else <none>
    guess = np.where(k == 0, x, letters)
    guess[:, 0] = letters + 1
    # x holds <k> and length - 2 letters, no letter repeating the one before
    inputs = math.log(letters) + (length - 3) * math.log(letters - 1) + math.log(hi - lo + 1)
    return [
        ('k-hop: scored targets a rule with no hop gets right', float((guess == y).mean()), True),
        ('k-hop: inputs drawn that training drew too', drawn(draws(cfg), inputs), True),
        ('k-hop: length, most hops', f'{length}, {hi}', False),
    ]


def retrieval(cfg):
    M, V = cfg['m_max'], cfg['vocab']
    x, y = synthetic.load_task('retrieval').generate(
        np.random.default_rng(0), SAMPLE, M, V, cfg['format']
    )
    scored = y != -1
    trivial = float((x[:, 1] == y[scored]).mean())  # the first pair's value
    # m pairs, m uniform in 1..M: the ordered distinct keys, their values, the queried one
    keys = M if cfg['format'] == 'authors' else V - V // 2
    inputs = [
        math.log(math.perm(keys, m)) + m * math.log(V // 2 - 1) + math.log(m)
        for m in range(1, M + 1)
    ]
    covered = sum(drawn(draws(cfg) / M, n) for n in inputs) / M
    return [
        ('retrieval: scored targets the first value gets right', trivial, True),
        ('retrieval: inputs drawn that training drew too', covered, True),
        ('retrieval: m_max', f'{M}', False),
    ]


def drawn(n, log_inputs):
    """The chance that one of `exp(log_inputs)` equally likely inputs is among n draws."""
    return -math.expm1(-math.exp(math.log(n) - log_inputs)) if n else 0.0


def addition(cfg):
    digits = cfg['digits']
    x, y = synthetic.load_task('addition').generate(
        np.random.default_rng(0), SAMPLE, digits, cfg['format']
    )
    a, b = x[:, :digits], x[:, digits + 1 : 2 * digits + 1]
    # the sum's tokens without carries: every digit (a + b) mod 10, then <stop>, then <pad>
    first, stop, pad, c = (14 if cfg['format'] == 'authors' else 0), 12, 13, 2 * digits + 2
    guess = np.concatenate([x, np.full((len(x), 1), pad)], 1)
    guess[:, c : c + digits] = first + (a + b) % 10
    guess[:, c + digits], guess[:, c + digits + 1 :] = stop, pad
    scored = y != -1
    inputs = 2 * (math.log(9) + (digits - 1) * math.log(10))
    return [
        (
            'addition: scored targets adding without carries gets right',
            float((guess[:, 1:] == y)[scored].mean()),
            True,
        ),
        ('addition: inputs drawn that training drew too', drawn(draws(cfg), inputs), True),
        ('addition: digits', f'{digits}', False),
    ]


def dyck(cfg):
    _, y = synthetic.load_task('dyck').generate(
        np.random.default_rng(0), SAMPLE, cfg['length'], cfg['format']
    )
    answers = y[y != -1]
    common = float(max(np.mean(answers == a) for a in np.unique(answers)))
    return [
        ('Dyck-1: scored targets the more common answer gets right', common, True),
        ('Dyck-1: most brackets', f'{cfg["length"]}', False),
    ]


MEASURES = {'khop': khop, 'retrieval': retrieval, 'addition': addition, 'dyck': dyck}


@functools.cache
def measured(keys):
    """The rows of one task's keys (a sorted tuple of its items, for the cache)."""
    cfg = resolve(dict(keys))
    return MEASURES[cfg['task']](cfg)


def rows(declared, mode):
    """-> [dict(quantity, ours, paper, factor, of)] of a mode against the full protocol, from an
    experiment's PROBLEM ({factor, modes: {mode: {of: task keys}}}, `of` the start of the labels of
    the quantities the task measures, '' all); [] for the full protocol or a mode it does not
    declare. `factor` is None on a row that is reported, not judged."""
    modes = declared['modes']
    if mode == 'full' or mode not in modes:
        return []
    out = []
    for of, keys in modes[mode].items():
        paper = measured(tuple(sorted(modes['full'][of].items())))
        for (quantity, ours, judged), (_, theirs, _) in zip(
            measured(tuple(sorted(keys.items()))), paper
        ):
            out.append(
                dict(
                    quantity=quantity,
                    ours=ours,
                    paper=theirs,
                    factor=declared['factor'] if judged else None,
                    of=of,
                )
            )
    return out

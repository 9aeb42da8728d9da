"""
Checks of the synthetic tasks (data/<task>/prepare.py) at small settings: every task's rows are
re-derived by a plain-Python reference, plus the split/determinism/CLI contract of
data/synthetic.py.
"""

import json
import os
import random
import re
import resource
import signal
import stat
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from data.synthetic import decode, excludes_held_out, load_split, load_task, prepare, tasks

ROOT = Path(__file__).resolve().parents[1]
SMALL = {
    'addition': dict(digits=3, n_train=2000, n_test=300),
    'modular_addition': dict(p=23, n_train=300, n_test=100),
    'dyck': dict(length=20, n_train=1500, n_test=300),
    'retrieval': dict(
        m_max=5, vocab=24, n_train=1500, n_test=300
    ),  # authors' format: vocab/2 + 2*m_max <= vocab
    'memorization': dict(size=16),
    'khop': dict(length=20, letters=3, max_hops=5, n_train=1500, n_test=100),
}
# number of scored positions per row, from the decoded row (None: checked in the task's own test)
SCORED = {'modular_addition': 1, 'dyck': 1, 'retrieval': 1, 'memorization': 1}


@pytest.fixture(scope='module')
def prepared(tmp_path_factory):
    """task -> (directory, meta, {split: (x, y)}) at the SMALL settings."""
    out = {}
    for task, overrides in SMALL.items():
        d, meta = prepare(task, overrides, out_dir=tmp_path_factory.mktemp(task))
        splits = ('train', 'val') if meta['eval_split'] == 'val' else ('train',)
        out[task] = d, meta, {s: load_split(d, s) for s in splits}
    return out


def rows(prepared, task):
    _, meta, data = prepared[task]
    for x, y in data.values():
        for xi, yi in zip(x, y):
            yield meta, xi, yi


def test_all_tasks_present():
    """Every synthetic task (a prepare.py with generate()) is checked here; the corpora in
    test_corpora.py."""
    assert [t for t in tasks() if hasattr(load_task(t), 'generate')] == sorted(SMALL)


@pytest.mark.parametrize('task', sorted(SMALL))
def test_contract(prepared, task):
    d, meta, data = prepared[task]
    assert {'vocab_size', 'itos', 'sep', 'scored', 'block_size'} <= set(meta)
    assert len(meta['itos']) == meta['vocab_size'] and isinstance(meta['scored'], str)
    for split, (x, y) in data.items():
        assert x.shape == y.shape and x.shape[1] == meta['block_size']
        assert len(x) == meta[f'n_{split}']
        assert 0 <= x.min() and x.max() < meta['vocab_size']
        assert -1 <= y.min() and y.max() < meta['vocab_size']
        assert (y != -1).any(axis=1).all(), 'every row must score something'
        if task in ('modular_addition', 'memorization'):  # finite tables, split without replacement
            assert len(np.unique(x, axis=0)) == len(x), f'{split} has duplicate inputs'
        if task in SCORED:
            assert ((y != -1).sum(1) == SCORED[task]).all()
    if 'val' in data:
        train = {r.tobytes() for r in data['train'][0]}
        if excludes_held_out(load_task(task), meta['args']):
            assert not any(r.tobytes() in train for r in data['val'][0]), 'val input seen in train'
        assert (
            len(data['val'][0]) == SMALL[task]['n_test']
            and len(data['train'][0]) == SMALL[task]['n_train']
        )
    assert not list(Path(d).glob('*.tmp'))


def addition_reference(a, b, digits, format):
    """(x, y) of a + b, written out from the definition in data/addition/prepare.py: the sum starts
    at c = 2*digits+2 and <stop> follows it. Authors' format: the positions of the sum digits and
    <stop> are scored (the first sum digit is never a target, a final <pad> is); text: the positions
    from '=' on whose target is a sum digit or <stop>."""
    PLUS, EQ, STOP, PAD, first = 10, 11, 12, 13, 14 if format == 'authors' else 0
    total = [int(c) for c in str(a + b)[::-1]]
    s = [int(c) for c in str(a)[::-1]] + [PLUS] + [int(c) for c in str(b)[::-1]] + [EQ]
    s += [first + d for d in total] + [STOP] + [PAD] * (digits + 1 - len(total))
    c, x = 2 * digits + 2, s[:-1]
    scored = range(c, c + len(total) + 1) if format == 'authors' else range(c - 1, c + len(total))
    return x, [s[i + 1] if i in scored else -1 for i in range(len(x))]


def check_addition(meta, x, y, digits, format):
    """Reads a and b off the row and compares the whole row with addition_reference; -> the sum's
    length."""
    a = int(''.join(map(str, x[:digits][::-1])))
    b = int(''.join(map(str, x[digits + 1 : 2 * digits + 1][::-1])))
    assert len(str(a)) == len(str(b)) == digits
    want_x, want_y = addition_reference(a, b, digits, format)
    assert x.tolist() == want_x and y.tolist() == want_y
    assert decode(meta, x).startswith(f'{str(a)[::-1]}+{str(b)[::-1]}=')
    return len(str(a + b))


def test_addition(prepared):
    """The default, the authors' format: always digits+1 scored tokens, whatever the sum's
    length."""
    digits = SMALL['addition']['digits']
    lengths = Counter()
    for meta, x, y in rows(prepared, 'addition'):
        lengths[check_addition(meta, x, y, digits, 'authors')] += 1
        assert (y != -1).sum() == digits + 1 and len(x) == 3 * digits + 3
    assert set(lengths) == {digits, digits + 1}  # both sum lengths occur
    itos = prepared['addition'][1]['itos']
    assert len(set(itos)) == len(itos) == 24, (
        'sum digits need names of their own (prompts map names to ids)'
    )


def test_addition_text_format():
    """The paper text's format: sum digits share the operands' tokens, digits+1 or digits+2 scored
    tokens."""
    module, digits = load_task('addition'), 4
    meta = module.describe(dict(format='text', digits=digits))
    x, y = module.generate(np.random.default_rng(0), 2000, digits=digits, format='text')
    assert meta['block_size'] == x.shape[1]  # priced from the settings before any draw
    scored = Counter()
    for xi, yi in zip(x, y):
        scored[(yi != -1).sum() - check_addition(meta, xi, yi, digits, 'text')] += 1
        assert len(xi) == 3 * digits + 3
    assert set(scored) == {1} and meta['vocab_size'] == 14  # the sum and <stop>


def test_modular_addition(prepared):
    p = SMALL['modular_addition']['p']
    for meta, x, y in rows(prepared, 'modular_addition'):
        a, b = map(int, decode(meta, x).split(' '))
        assert 0 <= a < p and 0 <= b < p and y[0] == -1 and y[1] == (a + b) % p


def test_modular_addition_whole_table(tmp_path):
    """The defaults, the authors' code: all p^2 pairs, shuffled and split 95/5, so 37,620 training
    and 1,981 held-out pairs at p=199, and together they hold every pair exactly once."""
    d, meta = prepare('modular_addition', {}, out_dir=tmp_path)
    (tx, ty), (vx, vy) = load_split(d, 'train'), load_split(d, 'val')
    p = meta['args']['p']
    assert p == 199 and (len(tx), len(vx)) == (37_620, 1_981) == (meta['n_train'], meta['n_val'])
    every = Counter((a, b) for a in range(p) for b in range(p))
    assert Counter(map(tuple, np.concatenate([tx, vx]).tolist())) == every
    for x, y in ((tx, ty), (vx, vy)):
        assert (y[:, 0] == -1).all() and (y[:, 1] == x.sum(1) % p).all()


def naive_balanced(s):
    depth = 0
    for ch in s:
        depth += 1 if ch == '(' else -1
        if depth < 0:
            return False
    return depth == 0


def check_dyck(meta, x, y, length):
    """Checks one row against a brute-force balance check; -> the answer."""
    string, after = decode(meta, x).split('?')
    assert 1 <= len(string) <= length and set(string) <= set('()')
    want = ')' if naive_balanced(string) else '('
    assert np.flatnonzero(y != -1).tolist() == [len(string)]
    assert meta['itos'][y[len(string)]] == want
    assert after.replace('<pad>', '') in ('', want)  # x may end with the answer, then pads
    return want


def test_dyck(prepared):
    """The default, the authors' format: 2*pairs+3 tokens, x one shorter; held-out strings not in
    train."""
    length = SMALL['dyck']['length']
    labels = Counter()
    for meta, x, y in rows(prepared, 'dyck'):
        assert len(x) == length + 2
        labels[check_dyck(meta, x, y, length)] += 1
    assert labels[')'] > 0.25 * sum(labels.values()) and labels['('] > 0.25 * sum(labels.values())
    # the authors' exclusion of held-out strings
    assert prepared['dyck'][1]['train_draws_rejected'] > 0


def test_dyck_text_format():
    module, length = load_task('dyck'), 20
    meta = module.describe(dict(length=length, format='text'))
    x, y = module.generate(np.random.default_rng(0), 3000, length=length, format='text')
    assert x.shape[1] == length + 1 == meta['block_size']
    labels = Counter(check_dyck(meta, xi, yi, length) for xi, yi in zip(x, y))
    assert 0.4 < labels[')'] / len(x) < 0.5


def authors_dyck(r, pairs):
    """One string of the authors' generator (task_dyckstream.py, gen_single up to the '?'), in plain
    Python with their draws from random.Random r."""

    def gen_balanced(t):
        if t == 0:
            return ''
        if t == 1:
            return '()'
        if r.randint(0, 1):
            return '(' + gen_balanced(t - 1) + ')'
        u = r.randint(1, t - 1)
        return gen_balanced(u) + gen_balanced(t - u)

    mutate = r.randint(0, 3)
    if r.randint(0, 2) == 0:
        s = [r.choice('()') for _ in range(r.randint(1, 2 * pairs))]
    else:
        s = list(gen_balanced(r.randint(1, pairs)))
        if r.randint(0, 1):
            mutate = 0
    if mutate & 1:
        rep = 1
        while r.randint(0, 1):
            rep += 1
        for _ in range(rep):
            p, q = r.randint(0, len(s) - 1), r.randint(0, len(s) - 1)
            if p < q:
                s[p], s[q] = s[q], s[p]
    if mutate & 2:
        rep = 1
        while r.randint(0, 1):
            rep += 1
        if r.randint(0, 2):
            rep *= 2
        for _ in range(rep):
            p = r.randint(0, len(s) - 1)
            s[p] = '(' if s[p] == ')' else ')'
    return ''.join(s)


def test_dyck_authors_distribution():
    """The vectorized generator draws the strings of the authors' code with its probabilities: a
    two-sample chi-square test against a plain-Python port at 3 pairs (all 126 strings of at most 6
    brackets), and at their 40 pairs the balanced share, 52.6% (the port, 4,000,000 draws: 52.57%;
    200,000 draws here give a standard error of 0.11 points)."""
    # enough to see, e.g., swaps of any p != q instead of p < q
    module, n = load_task('dyck'), 200_000
    r = random.Random(0)
    theirs = Counter(authors_dyck(r, 3) for _ in range(n))
    x = module.generate(np.random.default_rng(0), n, length=6)[0].tolist()
    ours = Counter(''.join('?()'[t] for t in row[: row.index(3)]) for row in x)
    chi2 = sum((theirs[s] - ours[s]) ** 2 / (theirs[s] + ours[s]) for s in theirs | ours)
    dof = len(theirs | ours) - 1
    # 5 standard deviations of chi2(dof)
    assert dof == 125 and chi2 < dof + 5 * (2 * dof) ** 0.5, chi2
    y = module.generate(np.random.default_rng(1), 200_000, length=80)[1]
    assert abs((y[y != -1] == 2).mean() - 0.526) < 0.005


def test_splits_follow_the_generator(tmp_path):
    """Training examples are i.i.d. draws from the generator, conditioned on not repeating a
    held-out input where the task excludes those, and meta.json says what that cost. Dyck-1 in the
    paper text's format at length 12 has only 196 balanced strings: distinct training strings would
    be under 4% balanced instead of the generator's ~45%. Retrieval with 4 keys of 8 excludes
    held-out inputs; the share of examples with m pairs in train must be the generator's share among
    inputs outside the held-out set."""
    rng = np.random.default_rng(1)
    d, meta = prepare(
        'dyck', dict(length=12, format='text', n_train=5000, n_test=500), out_dir=tmp_path / 'dyck'
    )
    (train_x, train_y), (val_x, _) = load_split(d, 'train'), load_split(d, 'val')

    def balanced(y):  # the answer ')' means balanced
        return (y[y != -1] == 2).mean()

    y = load_task('dyck').generate(rng, 50_000, length=12, format='text')[1]
    assert 0.4 < balanced(y) < 0.5 and abs(balanced(train_y) - balanced(y)) < 0.025
    seen = {r.tobytes() for r in train_x}
    assert meta['held_out_in_train'] == np.mean([r.tobytes() in seen for r in val_x]) > 0.3

    args = dict(m_max=4, vocab=16, n_train=5000, n_test=500)
    d, meta = prepare('retrieval', args, out_dir=tmp_path / 'retrieval')
    (train_x, train_y), (val_x, _) = load_split(d, 'train'), load_split(d, 'val')
    held_out = {r.tobytes() for r in val_x}
    assert not held_out & {r.tobytes() for r in train_x}
    x, y = load_task('retrieval').generate(rng, 50_000, m_max=4, vocab=16)
    outside = np.array([r.tobytes() not in held_out for r in x])

    def pairs(y):  # the scored position is 2m
        return np.bincount((y != -1).argmax(1), minlength=9) / len(y)

    assert np.abs(pairs(train_y) - pairs(y[outside])).max() < 0.02
    assert (
        abs(meta['train_draws_rejected'] - (1 - outside.mean())) < 0.02
        and meta['train_draws_rejected'] > 0.05
    )


def test_dyck_words_uniform():
    """The cycle-lemma sampler gives only balanced strings, all 14 with 4 pairs equally often."""
    words = load_task('dyck').dyck_words(np.random.default_rng(0), 14_000, 4)
    counts = Counter(''.join('?()'[t] for t in w) for w in words)
    assert len(counts) == 14 and all(naive_balanced(w) for w in counts)
    assert all(800 < c < 1200 for c in counts.values())


def check_retrieval(meta, x, y, m_max, vocab):
    """One row of the authors' format, decoded: k v pairs with distinct keys, the query token q<k>
    of one of them, its value; padding only at the end; only the value after the query scored.
    -> the values."""
    assert len(x) == 2 * m_max + 2
    n = np.count_nonzero(x)
    assert (x[:n] != 0).all() and (x[n:] == 0).all()  # pad only at the end
    *pairs, query, answer = decode(meta, x[:n]).split(' ')
    keys, values = [int(k[1:]) for k in pairs[0::2]], [int(v) for v in pairs[1::2]]
    assert all(k.startswith('k') for k in pairs[0::2]) and query.startswith('q')
    assert 1 <= len(keys) == len(values) <= m_max and len(set(keys)) == len(keys)
    assert all(0 <= k < m_max for k in keys) and all(1 <= v < vocab // 2 for v in values)
    stored = dict(zip(keys, values))
    assert int(query[1:]) in stored and int(answer) == stored[int(query[1:])]
    assert (
        np.flatnonzero(y != -1).tolist() == [len(pairs)] and y[len(pairs)] == stored[int(query[1:])]
    )
    return values


def test_retrieval(prepared):
    """The authors' format (default) at small settings, and 500 rows at the defaults (length 62)."""
    m_max, vocab = SMALL['retrieval']['m_max'], SMALL['retrieval']['vocab']
    values = set()
    for meta, x, y in rows(prepared, 'retrieval'):
        values.update(check_retrieval(meta, x, y, m_max, vocab))
    assert values == set(range(1, vocab // 2))  # the whole range [1, V/2 - 1]
    itos = prepared['retrieval'][1]['itos']
    assert len(set(itos)) == vocab and itos[vocab // 2 + m_max + 3] == 'q3'
    module = load_task('retrieval')
    args = {k: v for k, v in module.DEFAULTS.items() if k not in ('n_train', 'n_test', 'seed')}
    meta = module.describe(args)
    x, y = module.generate(np.random.default_rng(0), 500, **args)
    assert x.shape == (500, 62) and meta['block_size'] == 62
    for xi, yi in zip(x, y):
        check_retrieval(meta, xi, yi, args['m_max'], args['vocab'])


def test_retrieval_text_format():
    """The paper text's format: keys from [V/2, V), the query repeats one of them, x ends at it."""
    module, m_max, vocab = load_task('retrieval'), 5, 16
    meta = module.describe(dict(m_max=m_max, vocab=vocab, format='text'))
    x, y = module.generate(np.random.default_rng(0), 2000, m_max=m_max, vocab=vocab, format='text')
    assert x.shape[1] == 2 * m_max + 1 == meta['block_size']
    for xi, yi in zip(x, y):
        toks = [t for t in decode(meta, xi).split(' ') if t != '_']
        assert len(toks) == np.count_nonzero(xi) and toks == [
            meta['itos'][t] for t in xi[: len(toks)]
        ]
        *pairs, kq = map(int, toks)
        keys, values = pairs[0::2], pairs[1::2]
        assert 1 <= len(keys) <= m_max and len(keys) == len(values) and len(set(keys)) == len(keys)
        assert all(vocab // 2 <= k < vocab for k in keys) and all(
            1 <= v < vocab // 2 for v in values
        )
        assert kq in keys
        assert (
            np.flatnonzero(yi != -1).tolist() == [len(pairs)]
            and yi[len(pairs)] == values[keys.index(kq)]
        )


def test_memorization(prepared):
    d, meta, data = prepared['memorization']
    n = SMALL['memorization']['size']
    assert (
        meta['eval_split'] == 'train'
        and not (d / 'val.npz').exists()
        and meta['vocab_size'] == 2 * n
    )
    x, y = data['train']
    pairs = Counter((int(a), int(b) - n) for a, b in x)
    assert set(pairs) == {(a, b) for a in range(n) for b in range(n)} and set(pairs.values()) == {1}
    table = np.random.default_rng(SMALL['memorization'].get('seed', 0)).integers(0, n, n * n)
    for (a, b), (none, label) in zip(x, y):
        assert none == -1 and label == table[a * n + (b - n)]
    assert len(set(y[:, 1].tolist())) > n // 2  # labels are not constant


def naive_hop(X, i, k):
    """hop_k(X)[i] by scanning backwards; None when a step has no earlier occurrence."""
    for _ in range(k):
        j = next((j for j in range(i - 1, -1, -1) if X[j] == X[i]), None)
        if j is None:
            return None
        i = j + 1
    return X[i]


def test_khop_hops_function():
    hops = load_task('khop').hops
    X = [[0, 3, 2, 0, 3, 0]]  # the paper's a d c a d a: hop_2 at the last position is c
    assert hops(np.array(X), 2, none=-1)[0, -1] == 2
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (40, 25))  # immediate repeats allowed here: hops() must not care
    k = rng.integers(0, 7, 40)
    got = hops(X, k, none=-1)
    for b in range(40):
        for i in range(25):
            want = naive_hop(X[b].tolist(), i, int(k[b]))
            assert got[b, i] == (-1 if want is None else want)


def test_khop(prepared):
    c = SMALL['khop']
    L, H = c['letters'], c['max_hops']
    none, blank = L, L + 1
    ks = Counter()
    for meta, x, y in rows(prepared, 'khop'):
        assert len(x) == c['length'] - 1 and (y != -1).all()
        toks = decode(meta, x).split(' ')
        k = int(toks[0][len('<k=') : -1])
        X = [meta['itos'].index(t) for t in toks[1:]]
        assert all(0 <= t < L for t in X) and all(X[i] != X[i - 1] for i in range(1, len(X)))
        assert y[0] == blank
        for i in range(len(X)):
            want = naive_hop(X, i, k)
            assert y[i + 1] == (none if want is None else want)
        ks[k] += 1
    assert set(ks) == set(range(H + 1))


@pytest.mark.parametrize('task', sorted(SMALL))
def test_deterministic_and_seeded(prepared, task, tmp_path):
    d, _, _ = prepared[task]
    again, _ = prepare(task, SMALL[task], out_dir=tmp_path / 'again')
    other, _ = prepare(task, {**SMALL[task], 'seed': 1}, out_dir=tmp_path / 'other')
    for f in sorted(p.name for p in Path(d).iterdir()):
        assert (Path(d) / f).read_bytes() == (again / f).read_bytes(), f
    assert (Path(d) / 'train.npz').read_bytes() != (other / 'train.npz').read_bytes()
    assert not list(tmp_path.rglob('*.tmp*'))


def test_errors(tmp_path):
    with pytest.raises(ValueError, match='distinct'):
        prepare('modular_addition', dict(p=5, n_train=100, n_test=10), out_dir=tmp_path / 'a')
    with pytest.raises(ValueError, match='m_max'):
        prepare('retrieval', dict(m_max=9, vocab=16, n_train=10, n_test=10), out_dir=tmp_path / 'b')
    with pytest.raises(ValueError, match='vocab'):
        prepare('retrieval', dict(m_max=1, vocab=3, n_train=10, n_test=10), out_dir=tmp_path / 'c')
    # the authors' keys and query tokens
    with pytest.raises(ValueError, match='vocab/2 \\+ 2\\*m_max'):
        prepare('retrieval', dict(m_max=5, vocab=16, n_train=10, n_test=10), out_dir=tmp_path / 'b')
    with pytest.raises(ValueError, match="format='paper' must be"):
        prepare('retrieval', dict(format='paper', n_train=10, n_test=10), out_dir=tmp_path / 'b')
    with pytest.raises(ValueError, match='give both'):
        prepare('modular_addition', dict(n_train=100), out_dir=tmp_path / 'a')
    with pytest.raises(ValueError, match='train_frac=0.5 splits the whole table'):
        prepare(
            'modular_addition',
            dict(p=7, train_frac=0.5, n_train=10, n_test=10),
            out_dir=tmp_path / 'a',
        )
    with pytest.raises(ValueError, match='train_frac=1.0 leaves no'):
        prepare('modular_addition', dict(p=7, train_frac=1.0), out_dir=tmp_path / 'a')
    with pytest.raises(ValueError, match='length=7 must be even'):
        prepare('dyck', dict(length=7, n_train=10, n_test=10), out_dir=tmp_path / 'd')
    # any length
    prepare('dyck', dict(length=7, format='text', n_train=10, n_test=10), out_dir=tmp_path / 'd')
    with pytest.raises(ValueError, match='n_train=0 and n_test=10 must both be at least 1'):
        prepare('addition', dict(digits=2, n_train=0, n_test=10), out_dir=tmp_path / 'e')
    with pytest.raises(ValueError, match='unknown task'):
        load_task('nope')
    assert not (tmp_path / 'a' / 'meta.json').exists()


@pytest.mark.parametrize('task', sorted(SMALL))
def test_cli_help(task):
    r = subprocess.run(
        [sys.executable, f'data/{task}/prepare.py', '--help'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert (
        '--seed' in r.stdout
        and '--out_dir' in r.stdout
        and all(f'--{k}' in r.stdout for k in SMALL[task])
    )


def test_cli_run(tmp_path):
    out = tmp_path / 'khop'
    args = ['--length=12', '--max_hops=3', '--n_train=200', '--n_test=20', f'--out_dir={out}']
    # from another directory: the script must find data.synthetic by itself
    r = subprocess.run(
        [sys.executable, str(ROOT / 'data/khop/prepare.py'), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('wrote')
    meta = json.loads((out / 'meta.json').read_text())
    assert meta['n_train'] == 200 and meta['n_val'] == 20 and meta['block_size'] == 11
    assert meta['args']['max_hops'] == 3 and meta['vocab_size'] == 4 + 2 + 4
    bad = subprocess.run(
        [sys.executable, 'data/retrieval/prepare.py', '--m_max=200', f'--out_dir={tmp_path / "r"}'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and 'm_max' in bad.stderr


def test_khop_fixed_k():
    """min_hops = max_hops fixes k: every row starts with the same <k=K> token (test_khop checks the
    targets)."""
    module = load_task('khop')
    x, y = module.generate(
        np.random.default_rng(0), 200, length=12, letters=3, max_hops=2, min_hops=2
    )
    assert (x[:, 0] == 3 + 2 + 2).all()
    with pytest.raises(ValueError, match='min_hops'):
        module.generate(np.random.default_rng(0), 2, length=12, letters=3, max_hops=1, min_hops=2)


def test_a_signal_during_the_commit_takes_effect_after_it(tmp_path, monkeypatch):
    """Ctrl-C while the new files are moved in (a kill at the very end of a prepare) waits for the
    last one: the folder then holds the complete new data, not new .npz files beside the old
    meta.json."""
    out, _ = prepare('khop', {**SMALL['khop'], 'seed': 1}, out_dir=tmp_path / 'khop')
    new, _ = prepare('khop', SMALL['khop'], out_dir=tmp_path / 'new')
    replace = os.replace

    def interrupted_replace(src, dst):
        # moving a file in, not writing one in the directory of new files
        if Path(dst).parent == out:
            os.kill(os.getpid(), signal.SIGINT)
        replace(src, dst)

    monkeypatch.setattr(os, 'replace', interrupted_replace)
    # Ctrl-C's own handler: a shell starts a background job with SIGINT ignored, which Python keeps
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            prepare('khop', SMALL['khop'], out_dir=out, overwrite=True)
    finally:
        signal.signal(signal.SIGINT, before)
    assert sorted(p.name for p in out.iterdir()) == ['meta.json', 'train.npz', 'val.npz']
    assert all(
        (out / f).read_bytes() == (new / f).read_bytes()
        for f in ('meta.json', 'train.npz', 'val.npz')
    )


# A lock taken in a Python-level __enter__, and a thread that needs it to end (as a thread pool's
# worker needs its idle semaphore's); the signal comes in between, before the `with` holds __exit__.
SIGNAL_INSIDE_ENTER = """
import os, signal, sys, threading, time
sys.path.insert(0, sys.argv[1])
from data import synthetic
if sys.argv[3] == 'ignored':
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell starts a background job
else:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's foreground process
synthetic.end_on_signal()
synthetic.temporary(sys.argv[2]).write_text('half of a file')
lock = threading.Lock()
class Guard:
    def __enter__(self):
        lock.acquire()
        os.kill(os.getpid(), signal.SIGTERM if sys.argv[3] == 'SIGTERM' else signal.SIGINT)
        for _ in range(1000):  # the handler runs at one of these bytecodes
            pass
    def __exit__(self, *exc):
        lock.release()
threading.Thread(target=lambda: (time.sleep(0.5), lock.acquire(), lock.release())).start()
with Guard():
    pass
"""


def no_temporaries(folder):
    return not [f for f in Path(folder).rglob('*') if '.tmp' in f.name]


def eventually_no_temporaries(folder, seconds=5):
    """Whether the temporaries in folder are gone within `seconds`: a process's watcher removes them
    right after the process ends."""
    end = time.monotonic() + seconds
    while not no_temporaries(folder) and time.monotonic() < end:
        time.sleep(0.01)
    return no_temporaries(folder)


@pytest.mark.parametrize('sig, status', [('SIGTERM', 143), ('SIGINT', 130), ('ignored', 0)])
def test_a_signal_at_any_bytecode_ends_the_process_and_removes_its_temporaries(
    tmp_path, sig, status
):
    """end_on_signal: the process ends at once with 128 + the signal's number and no temporary file,
    even where an exception raised by the signal would leave a lock held and hang the exit (raising
    SystemExit there did); a SIGINT the parent ignores stays ignored: the process runs to its end,
    after which its watcher removes the temporary."""
    p = subprocess.Popen(
        [sys.executable, '-c', SIGNAL_INSIDE_ENTER, str(ROOT), str(tmp_path / 'data.bin'), sig],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        err = p.communicate(timeout=60)[1]
    finally:
        p.kill()
    assert p.returncode == status, err
    assert no_temporaries(tmp_path) if status else eventually_no_temporaries(tmp_path)


def test_a_stop_while_writing_new_data_leaves_no_folder_it_made(tmp_path):
    """A prepare stopped before its data is complete leaves no empty out_dir of its own making
    (the next prepare, or a run, would find a folder of nothing); one that was there stays."""
    script = (
        'import os, signal, sys, time; sys.path.insert(0, sys.argv[1]); from pathlib import Path\n'
        'from data import synthetic\n'
        'synthetic.end_on_signal()\n'
        'with synthetic.new_files(Path(sys.argv[2])) as new:\n'
        '    (new / "train.npz").write_text("half")\n'
        '    os.kill(os.getpid(), signal.SIGTERM); time.sleep(30)\n'
    )
    (tmp_path / 'there').mkdir()
    for out, kept in ((tmp_path / 'made' / 'out', False), (tmp_path / 'there', True)):
        r = subprocess.run([sys.executable, '-c', script, str(ROOT), str(out)], timeout=60)
        assert r.returncode == 143 and out.exists() == kept and no_temporaries(tmp_path)


def test_concurrent_prepares_of_the_same_data_both_succeed(tmp_path):
    args = dict(length=20, n_train=20_000, n_test=100)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                'data/khop/prepare.py',
                *(f'--{k}={v}' for k, v in args.items()),
                f'--out_dir={tmp_path / "khop"}',
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for p in procs:
        err = p.communicate(timeout=120)[1]
        assert p.returncode == 0, err
    reference, _ = prepare('khop', args, out_dir=tmp_path / 'reference')
    assert sorted(p.name for p in (tmp_path / 'khop').iterdir()) == [
        'meta.json',
        'train.npz',
        'val.npz',
    ]
    for f in reference.iterdir():
        assert (tmp_path / 'khop' / f.name).read_bytes() == f.read_bytes(), f.name


# --------------------------------------------------------------------- hostile command lines


def tree(d):
    """Every entry under d: a file's bytes, or the kind of anything else (a FIFO is not read)."""
    return {
        p.relative_to(d): p.read_bytes()
        if p.is_file() and not p.is_symlink()
        else stat.S_IFMT(p.lstat().st_mode)
        for p in Path(d).rglob('*')
    }


def data_of(task, d):
    """d/data holds `task`'s data (its meta.json and a data file)."""
    (d / 'data').mkdir()
    (d / 'data' / 'meta.json').write_text(json.dumps({'task': task, 'vocab_size': 257}))
    (d / 'data' / 'train.bin').write_bytes(b'\0\1' * 64)


def khop(*more, out='out'):
    # a flag in `more` replaces its default here (a prepare refuses one given twice)
    given = {m.split('=')[0] for m in more}
    base = ['--length=12', '--n_train=50', '--n_test=5', f'--out_dir={out}']
    return [b for b in base if b.split('=')[0] not in given] + list(more)


def nothing(d):
    pass


# (case, task, argv, what to build in the case's folder d first, then either the message of a
# one-line error or (folder, task, *checks) for a prepare that succeeds: d/folder holds that task's
# data, and each check(d) passes). The command runs in d, with HOME=d.
HOSTILE = [
    (
        "into another task's data",
        'khop',
        khop(out='data'),
        lambda d: data_of('text', d),
        r"data/meta.json is not the meta.json of khop data \(it says task 'text'\): "
        r'choose another --out_dir, or add --overwrite to replace it',
    ),
    (
        "into another task's data, --overwrite",
        'khop',
        khop('--overwrite', out='data'),
        lambda d: data_of('text', d),
        ('data', 'khop'),
    ),
    (
        'out_dir under a file, before any work',
        'addition',
        ['--n_train=1000000000000', '--out_dir=file/x'],
        lambda d: (d / 'file').write_text('x'),
        r'cannot write to file/x \(Not a directory\): set --out_dir to a folder you can write',
    ),
    ('out_dir with ~', 'khop', khop(out='~/out'), nothing, ('out', 'khop')),
    # a shell leaves ~user of no user as typed: a folder of that name would be made here
    (
        'out_dir with ~ of no user',
        'khop',
        khop(out='~nosuchuser9/out'),
        nothing,
        r"--out_dir=~nosuchuser9/out: '~nosuchuser9' names no user of this machine: give the full",
    ),
    # the same task's data made otherwise, which a run may train on: replaced only when told
    (
        'other settings into prepared data',
        'khop',
        khop('--length=13', out='data'),
        lambda d: prepare('khop', dict(length=12, n_train=50, n_test=5), d / 'data'),
        r'data holds khop data of other settings \(length=12\), which a run may train on: '
        r'choose another --out_dir, or add --overwrite',
    ),
    (
        'the same settings again',
        'khop',
        khop(out='data'),
        lambda d: prepare('khop', dict(length=12, n_train=50, n_test=5), d / 'data'),
        ('data', 'khop'),
    ),
    # refused before the draw, from the examples' length: 10^8 digits never end in a Python loop
    (
        'addition of 10^8 digits',
        'addition',
        ['--digits=100000000', '--out_dir=out'],
        nothing,
        r'the addition data of .* would take at least [\d,.]+ GiB, and this machine has',
    ),
    ('letters 0', 'khop', khop('--letters=0'), nothing, r'letters=0 must be at least 2'),
    (
        "a folder of the user's files (--out_dir=/etc)",
        'khop',
        khop(out='etc'),
        lambda d: (d / 'etc').mkdir() or (d / 'etc' / 'passwd').write_text('root:x:0'),
        r'etc holds files no prepare wrote \(passwd\) and no meta.json: give the data a folder',
    ),
    (
        'a flag given twice',
        'khop',
        khop('--n_train=60', '--n_train=70'),
        nothing,
        r'--n_train=60 and --n_train=70 are given both: keep the one you mean',
    ),
    ('length 2', 'khop', khop('--length=2'), nothing, r'length=2 must be at least 3'),
    ('min_hops -1', 'khop', khop('--min_hops=-1'), nothing, r'min_hops=-1 must be at least 0'),
    (
        'max_hops -1',
        'khop',
        khop('--max_hops=-1'),
        nothing,
        r'max_hops=-1 must be at least min_hops=0',
    ),
    # refused before an itos of that size is built (gigabytes; the command runs in 1 GB here)
    ('max_hops 10^9', 'khop', khop('--max_hops=1000000000'), nothing, 'at most 65,536 tokens'),
    (
        'p 10^9',
        'modular_addition',
        ['--p=1000000000', '--out_dir=out'],
        nothing,
        'at most 65,536 tokens',
    ),
    (
        'vocab 10^9',
        'retrieval',
        ['--vocab=1000000000', '--m_max=2', '--out_dir=out'],
        nothing,
        'at most 65,536 tokens',
    ),
    (
        'size 10^11',
        'memorization',
        ['--size=100000000000', '--out_dir=out'],
        nothing,
        r'size=100000000000 must be in 1..32768',
    ),
]


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))


@pytest.mark.parametrize(
    'task, argv, setup, expect', [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE]
)
def test_hostile_command_lines(tmp_path, task, argv, setup, expect):
    run_hostile(tmp_path, task, argv, setup, expect)


def run_hostile(d, task, argv, setup, expect):
    """The real command line of a case of HOSTILE (or test_corpora's): a one-line error with exit
    status 2 and d as it was, or a prepare that succeeds and changes nothing outside its out_dir."""
    setup(d)
    before = tree(d)
    r = subprocess.run(
        [sys.executable, str(ROOT / f'data/{task}/prepare.py'), *argv],
        cwd=d,
        env={**os.environ, 'HOME': str(d)},
        capture_output=True,
        text=True,
        timeout=30,  # a read that blocks fails the test
        preexec_fn=limit_memory,
    )
    if isinstance(expect, str):
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith('error: ') and r.stderr.count('\n') == 1, r.stderr
        assert re.search(expect, r.stderr), r.stderr
        assert tree(d) == before, 'nothing written'
    else:
        folder, made, *checks = expect
        assert r.returncode == 0, r.stderr
        assert json.loads((d / folder / 'meta.json').read_text())['task'] == made
        for check in checks:
            check(d)
        assert outside(tree(d), folder) == outside(before, folder)


def outside(tree, folder):
    """The entries of a tree() but those in folder."""
    return {p: v for p, v in tree.items() if p.parts[0] != folder}

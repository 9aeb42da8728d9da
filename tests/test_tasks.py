"""
Checks of the synthetic tasks (data/<task>/prepare.py) at small settings: every task's rows are
re-derived by a plain-Python reference, plus the split/determinism/CLI contract of data/synthetic.py.
"""
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from data.synthetic import decode, load_split, load_task, prepare, tasks

ROOT = Path(__file__).resolve().parents[1]
SMALL = {
    'addition': dict(digits=3, n_train=2000, n_test=300),
    'modular_addition': dict(p=23, n_train=300, n_test=100),
    'dyck': dict(length=20, n_train=1500, n_test=300),
    'retrieval': dict(m_max=5, vocab=16, n_train=1500, n_test=300),
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
    """Every synthetic task (a prepare.py with generate()) is checked here; the corpora in test_corpora.py."""
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
        if getattr(load_task(task), 'EXCLUDE_HELD_OUT', True):
            assert not any(r.tobytes() in train for r in data['val'][0]), 'val input seen in train'
        assert len(data['val'][0]) == SMALL[task]['n_test'] and len(data['train'][0]) == SMALL[task]['n_train']
    assert not list(Path(d).glob('*.tmp'))


def test_addition(prepared):
    digits = SMALL['addition']['digits']
    lengths = Counter()
    for meta, x, y in rows(prepared, 'addition'):
        text = decode(meta, x)
        ra, rest = text.split('+')
        rb, rs = rest.split('=')
        a, b = int(ra[::-1]), int(rb[::-1])
        assert len(ra) == len(rb) == digits and ra[-1] != '0' and rb[-1] != '0'
        total = str(a + b)[::-1]
        # x = s[:-1] drops the last token: <stop> after a digits+1 sum, else the trailing <pad>
        assert rs == (total if len(total) > digits else total + '<stop>')
        scored = np.flatnonzero(y != -1)
        assert list(scored) == list(range(2 * digits + 1, 2 * digits + 2 + len(total)))
        assert ''.join(meta['itos'][t] for t in y[scored]) == total + '<stop>'
        lengths[len(total)] += 1
    assert set(lengths) == {digits, digits + 1}  # both sum lengths occur


def test_modular_addition(prepared):
    p = SMALL['modular_addition']['p']
    for meta, x, y in rows(prepared, 'modular_addition'):
        a, b = map(int, decode(meta, x).split(' '))
        assert 0 <= a < p and 0 <= b < p and y[0] == -1 and y[1] == (a + b) % p


def naive_balanced(s):
    depth = 0
    for ch in s:
        depth += 1 if ch == '(' else -1
        if depth < 0:
            return False
    return depth == 0


def test_dyck(prepared):
    length = SMALL['dyck']['length']
    labels = Counter()
    for meta, x, y in rows(prepared, 'dyck'):
        text = decode(meta, x)
        string, after = text.split('?')
        assert 1 <= len(string) <= length and set(string) <= set('()')
        want = ')' if naive_balanced(string) else '('
        assert np.flatnonzero(y != -1).tolist() == [len(string)]
        assert meta['itos'][y[len(string)]] == want
        assert after.replace('<pad>', '') in ('', want)  # x may end with the answer, then pads
        labels[want] += 1
    assert labels[')'] > 0.25 * sum(labels.values()) and labels['('] > 0.25 * sum(labels.values())


def test_splits_follow_the_generator(tmp_path):
    """Training examples are i.i.d. draws from the generator, conditioned on not repeating a held-out input
    where the task excludes those, and meta.json says what that cost. Dyck-1 at length 12 has only 196
    balanced strings: distinct training strings would be under 4% balanced instead of the generator's
    ~45%. Retrieval with 4 keys of 8 excludes held-out inputs; the share of examples with m pairs in train
    must be the generator's share among inputs outside the held-out set."""
    rng = np.random.default_rng(1)
    d, meta = prepare('dyck', dict(length=12, n_train=5000, n_test=500), out_dir=tmp_path / 'dyck')
    (train_x, train_y), (val_x, _) = load_split(d, 'train'), load_split(d, 'val')
    balanced = lambda y: (y[y != -1] == 2).mean()  # the answer ')' means balanced
    y = load_task('dyck').generate(rng, 50_000, length=12)[1]
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
    pairs = lambda y: np.bincount((y != -1).argmax(1), minlength=9) / len(y)  # the scored position is 2m
    assert np.abs(pairs(train_y) - pairs(y[outside])).max() < 0.02
    assert abs(meta['train_draws_rejected'] - (1 - outside.mean())) < 0.02 and meta['train_draws_rejected'] > 0.05


def test_dyck_words_uniform():
    """The cycle-lemma sampler gives only balanced strings, and all 14 with 4 pairs equally often."""
    words = load_task('dyck').dyck_words(np.random.default_rng(0), 14_000, 4)
    counts = Counter(''.join('?()'[t] for t in w) for w in words)
    assert len(counts) == 14 and all(naive_balanced(w) for w in counts)
    assert all(800 < c < 1200 for c in counts.values())


def test_retrieval(prepared):
    m_max, vocab = SMALL['retrieval']['m_max'], SMALL['retrieval']['vocab']
    for meta, x, y in rows(prepared, 'retrieval'):
        toks = [t for t in decode(meta, x).split(' ') if t != '_']
        assert len(toks) == np.count_nonzero(x) and toks == [meta['itos'][t] for t in x[:len(toks)]]
        *pairs, kq = map(int, toks)
        keys, values = pairs[0::2], pairs[1::2]
        assert 1 <= len(keys) <= m_max and len(keys) == len(values) and len(set(keys)) == len(keys)
        assert all(vocab // 2 <= k < vocab for k in keys) and all(1 <= v < vocab // 2 for v in values)
        answer = None
        for k, v in zip(keys, values):
            if k == kq:
                answer = v
        assert answer is not None
        assert np.flatnonzero(y != -1).tolist() == [len(pairs)] and y[len(pairs)] == answer


def test_memorization(prepared):
    d, meta, data = prepared['memorization']
    n = SMALL['memorization']['size']
    assert meta['eval_split'] == 'train' and not (d / 'val.npz').exists() and meta['vocab_size'] == 2 * n
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
        k = int(toks[0][len('<k='):-1])
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
    with pytest.raises(ValueError, match='unknown task'):
        load_task('nope')
    assert not (tmp_path / 'a' / 'meta.json').exists()


@pytest.mark.parametrize('task', sorted(SMALL))
def test_cli_help(task):
    r = subprocess.run([sys.executable, f'data/{task}/prepare.py', '--help'], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '--seed' in r.stdout and '--out_dir' in r.stdout and all(f'--{k}' in r.stdout for k in SMALL[task])


def test_cli_run(tmp_path):
    out = tmp_path / 'khop'
    args = ['--length=12', '--max_hops=3', '--n_train=200', '--n_test=20', f'--out_dir={out}']
    # from another directory: the script must find data.synthetic by itself
    r = subprocess.run([sys.executable, str(ROOT / 'data/khop/prepare.py'), *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('wrote')
    meta = json.loads((out / 'meta.json').read_text())
    assert meta['n_train'] == 200 and meta['n_val'] == 20 and meta['block_size'] == 11
    assert meta['args']['max_hops'] == 3 and meta['vocab_size'] == 4 + 2 + 4
    bad = subprocess.run([sys.executable, 'data/retrieval/prepare.py', '--m_max=200', f'--out_dir={tmp_path / "r"}'],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and 'm_max' in bad.stderr


def test_khop_fixed_k():
    """min_hops = max_hops fixes k: every row starts with the same <k=K> token (test_khop checks the targets)."""
    module = load_task('khop')
    x, y = module.generate(np.random.default_rng(0), 200, length=12, letters=3, max_hops=2, min_hops=2)
    assert (x[:, 0] == 3 + 2 + 2).all()
    with pytest.raises(ValueError, match='min_hops'):
        module.generate(np.random.default_rng(0), 2, length=12, letters=3, max_hops=1, min_hops=2)


def test_a_signal_during_the_commit_takes_effect_after_it(tmp_path, monkeypatch):
    """Ctrl-C while the new files are moved in (a kill at the very end of a prepare) waits for the last one:
    the folder then holds the complete new data, not new .npz files beside the old meta.json."""
    out, _ = prepare('khop', {**SMALL['khop'], 'seed': 1}, out_dir=tmp_path / 'khop')
    new, _ = prepare('khop', SMALL['khop'], out_dir=tmp_path / 'new')
    replace = os.replace

    def interrupted_replace(src, dst):
        if Path(dst).parent == out:  # moving a file in, not writing one in the directory of new files
            os.kill(os.getpid(), signal.SIGINT)
        replace(src, dst)
    monkeypatch.setattr(os, 'replace', interrupted_replace)
    with pytest.raises(KeyboardInterrupt):
        prepare('khop', SMALL['khop'], out_dir=out)
    assert sorted(p.name for p in out.iterdir()) == ['meta.json', 'train.npz', 'val.npz']
    assert all((out / f).read_bytes() == (new / f).read_bytes() for f in ('meta.json', 'train.npz', 'val.npz'))


def test_concurrent_prepares_of_the_same_data_both_succeed(tmp_path):
    args = dict(length=20, n_train=20_000, n_test=100)
    procs = [subprocess.Popen([sys.executable, 'data/khop/prepare.py', *(f'--{k}={v}' for k, v in args.items()),
                               f'--out_dir={tmp_path / "khop"}'], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        err = p.communicate(timeout=120)[1]
        assert p.returncode == 0, err
    reference, _ = prepare('khop', args, out_dir=tmp_path / 'reference')
    assert sorted(p.name for p in (tmp_path / 'khop').iterdir()) == ['meta.json', 'train.npz', 'val.npz']
    for f in reference.iterdir():
        assert (tmp_path / 'khop' / f.name).read_bytes() == f.read_bytes(), f.name

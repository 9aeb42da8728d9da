"""
Shared plumbing for the synthetic tasks (data/<task>/prepare.py): command-line flags, disjoint
train/held-out splits, atomic writes and meta.json. Each task's format lives in its own prepare.py,
which defines

    DEFAULTS = dict(...)               # the paper-scale settings; every key is a --flag
    def generate(rng, n, **args)       # n random examples -> (x, y), int arrays of shape (n, T)
    def describe(args) -> dict         # vocab_size, itos (token id -> text), what is scored
    def splits(args, rng) -> dict      # optional: {'train': (x, y), 'val': (x, y)}; default below

An example is an input row x and a target row y of the same length; y is -1 where a position is
not scored (nanoGPT's ignore index). Files written to the task directory:
    train.npz, val.npz    arrays x (uint16) and y (int16 or int32), written to a temporary name and renamed
    meta.json             written last, so its presence means the directory is complete
"""
import argparse
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
from tqdm import tqdm

DATA_ROOT = Path(__file__).resolve().parent


def tasks():
    """The task names: every data/<name>/ that has a prepare.py."""
    return sorted(p.parent.name for p in DATA_ROOT.glob('*/prepare.py'))


def load_task(task):
    """Imports data/<task>/prepare.py as a module (the folders are scripts, not a package)."""
    path = DATA_ROOT / task / 'prepare.py'
    if not path.exists():
        raise ValueError(f"unknown task {task!r}; the tasks are {', '.join(tasks())}")
    spec = importlib.util.spec_from_file_location(f'prepare_{task}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_dir(task, args, defaults):
    """data/<task>/ for the default settings and data/<task>/<k=v,...>/ when any setting differs, so
    that runs with different settings never read or overwrite each other's files."""
    changed = {k: v for k, v in sorted(args.items()) if v != defaults[k]}
    name = ','.join(f'{k}={v}' for k, v in changed.items())
    return DATA_ROOT / task / name if name else DATA_ROOT / task


def sample_unique(generate, n, rng, args, exclude=frozenset(), desc=''):
    """Draws n examples whose inputs are pairwise distinct and not in `exclude` (a set of x.tobytes()).
    The input row determines the answer in every task, so distinct inputs mean distinct examples."""
    seen, xs, ys = set(exclude), [], []
    bar = tqdm(total=n, desc=desc, disable=n < 20_000, leave=False)
    stalled = 0
    while len(xs) < n:
        x, y = generate(rng, max(1024, n - len(xs)), **args)
        before = len(xs)
        for xi, yi in zip(x, y):
            key = xi.tobytes()
            if key not in seen and len(xs) < n:
                seen.add(key)
                xs.append(xi)
                ys.append(yi)
        bar.update(len(xs) - before)
        stalled = stalled + 1 if len(xs) == before else 0
        if stalled == 20:
            raise ValueError(f'{desc}: could not draw {n} distinct examples (got {len(xs)}); the task has too '
                             f'few distinct inputs for these settings: lower n_train/n_test or enlarge the task')
    bar.close()
    return np.stack(xs), np.stack(ys)


def default_splits(module, args, rng):
    """The held-out set is drawn first; the training set is then drawn from what is left, so that no
    held-out input ever appears in training (paper: "4,000 test pairs not in train")."""
    gen_args = {k: v for k, v in args.items() if k not in ('n_train', 'n_test', 'seed')}
    val = sample_unique(module.generate, args['n_test'], rng, gen_args, desc='val')
    exclude = {row.tobytes() for row in val[0]}
    train = sample_unique(module.generate, args['n_train'], rng, gen_args, exclude, desc='train')
    return {'train': train, 'val': val}


def save_npz(path, x, y):
    """Writes x (uint16) and y (int16 where the ids fit, else int32; -1 = not scored) to path
    atomically. Arrays already of those types (memory-mapped ones too) are written without a copy."""
    assert x.max() < 2**16 and x.min() >= 0, 'token ids must fit in uint16'
    tmp = path.with_name(path.name + '.tmp')
    with open(tmp, 'wb') as f:
        np.savez(f, x=np.asarray(x, dtype=np.uint16),
                 y=np.asarray(y, dtype=np.int16 if y.max() < 2**15 else np.int32))
    os.replace(tmp, path)


def load_split(directory, split):
    """-> (x, y) as int64 numpy arrays of shape (N, T)."""
    with np.load(Path(directory) / f'{split}.npz') as f:
        return f['x'].astype(np.int64), f['y'].astype(np.int64)


def prepare(task, overrides=None, out_dir=None):
    """Generates data/<task>/ (or out_dir) from the task's DEFAULTS updated with overrides; returns
    (directory, meta). Deterministic: the same settings give byte-identical files."""
    module = load_task(task)
    args = {**module.DEFAULTS, **(overrides or {})}
    out = Path(out_dir) if out_dir else task_dir(task, args, module.DEFAULTS)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args['seed'])
    split_fn = getattr(module, 'splits', None)
    data = split_fn(args, rng) if split_fn else default_splits(module, args, rng)
    meta = {'task': task, 'args': args, **module.describe(args)}
    meta['block_size'] = int(data['train'][0].shape[1])
    meta['eval_split'] = 'val' if 'val' in data else 'train'
    for split, (x, y) in data.items():
        assert x.shape == y.shape and x.max() < meta['vocab_size'] and y.max() < meta['vocab_size']
        save_npz(out / f'{split}.npz', x, y)
        meta[f'n_{split}'] = len(x)
    write_meta(out, meta)
    return out, meta


def write_meta(out, meta):
    """meta.json, atomically; written last, so that its presence means the directory is complete."""
    tmp = out / 'meta.json.tmp'
    tmp.write_text(json.dumps(meta, indent=2) + '\n')
    os.replace(tmp, out / 'meta.json')


def decode(meta, row):
    """Token ids -> text, through meta['itos']."""
    return meta['sep'].join(meta['itos'][int(t)] for t in row)


def main(task_file):
    """The command line of data/<task>/prepare.py: one --flag per DEFAULTS key, plus --out_dir."""
    task = Path(task_file).resolve().parent.name
    module = load_task(task)
    parser = argparse.ArgumentParser(description=(module.__doc__ or '').strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for k, v in module.DEFAULTS.items():
        parser.add_argument(f'--{k}', type=type(v), default=v, help=f'(default {v})')
    parser.add_argument('--out_dir', default=None, help='where to write (default: data/<task>/[settings])')
    ns = vars(parser.parse_args())
    out_dir = ns.pop('out_dir')
    try:
        out, meta = prepare(task, ns, out_dir)
    except ValueError as e:
        parser.exit(2, f'error: {e}\n')
    sizes = ', '.join(f"{s} {meta[f'n_{s}']:,}" for s in ('train', 'val') if f'n_{s}' in meta)
    print(f"wrote {out}: {sizes} examples of length {meta['block_size']}, vocab {meta['vocab_size']}")

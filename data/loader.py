"""
The data of a run, for train.py and the experiments: where a task's files are (generated on first
use for a synthetic task), their checks, the training batch of every optimizer step and the
held-out split, and a prompt in a task's tokens (--sample).

A batch is a function of (seed, step) only: examples by a fresh permutation per epoch, windows of a
token stream at offsets drawn from a generator seeded by (seed, step) (nanoGPT's get_batch, made
reproducible) or read from a fixed index file, a row a step (train_indices), or, online, fresh
examples from the task's generator (held-out inputs redrawn). So N processes draw the batch one
process draws, each training its share of it (batches), and a resumed run sees the batches an
uninterrupted one would.
"""

import difflib
import math
import os
import zipfile
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from data import corpus, synthetic
from data.synthetic import ConfigError, read_json


def unknown(what, name, choices):
    """The error for a name that is not one of `choices`, naming the closest one."""
    close = difflib.get_close_matches(name, choices, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ''
    return ConfigError(f"unknown {what} '{name}'{hint} (python train.py --help lists them all)")


def task_module(name):
    names = synthetic.tasks()
    if name not in names:
        raise unknown('task', str(name), names)
    return synthetic.load_task(name)


def task_keys(module):
    """The task's settings as train.py keys: its `seed` is called data_seed there."""
    return {k: v for k, v in module.DEFAULTS.items() if k != 'seed'}


def task_data(cfg):
    """-> (module, settings, directory) of the config's task data."""
    module = task_module(cfg['task'])
    args = {k: cfg[k] for k in task_keys(module)}
    if 'seed' in module.DEFAULTS:
        args['seed'] = cfg['data_seed']
    if '\0' in cfg['data_dir']:
        raise ConfigError(
            f"data_dir={cfg['data_dir']!r} holds a NUL byte, which no folder's name can: "
            'give a folder'
        )
    try:
        directory = (
            Path(cfg['data_dir'])
            if cfg['data_dir']
            else synthetic.task_dir(cfg['task'], args, module.DEFAULTS)
        )
    except ValueError as e:  # a setting that cannot be part of a folder's name
        raise ConfigError(str(e)) from None
    return module, args, directory


def generate_missing(cfg):
    """A synthetic task's files, generated when missing (under torchrun by rank 0 alone, while the
    others wait)."""
    module, args, directory = task_data(cfg)
    if (directory / 'meta.json').exists() or not hasattr(module, 'generate'):
        return
    print(f'generating {cfg["task"]} data in {directory}')
    try:
        synthetic.prepare(cfg['task'], args, directory)
    except OSError as e:
        raise ConfigError(synthetic.cannot_write(directory, e, 'data_dir')) from None
    except ValueError as e:  # settings the task cannot satisfy
        raise ConfigError(str(e)) from None


def prepared_otherwise(directory, args):
    """'; or train on the data prepared beside it: --encoding=bytes': the flags of the same task's
    data prepared with other settings, in the folders beside `directory` or in it."""
    others = []  # the default's folder holds the others' (data/text/encoding=bytes), or is one
    for meta in sorted({*directory.glob('*/meta.json'), *directory.parent.glob('*/meta.json')}):
        try:
            made = read_json(meta, '')['args']
        except (ConfigError, KeyError, TypeError):  # not a prepared folder's: not offered
            continue
        if isinstance(made, dict) and made.keys() == args.keys():
            others.append(''.join(f' --{k}={v}' for k, v in made.items() if v != args[k]))
    return f'; or train on the data prepared beside it:{" or".join(others)}' if others else ''


def load_data(cfg, generate=True):
    """-> (meta, train, held_out, T): train is the token stream (train.bin, memory-mapped) or the
    examples (x, y); held_out the first eval_examples examples (x, y) of the evaluation split (all
    with 0); T the sequence length. A synthetic task's files are generated when missing (unless
    generate=False); a corpus says how to prepare it."""
    if generate:
        generate_missing(cfg)
    module, args, directory = task_data(cfg)
    task = cfg['task']
    if not (directory / 'meta.json').exists():
        # generate=False: rank 0 made it, on a disk this process does not read
        if hasattr(module, 'generate'):
            raise ConfigError(
                f'{directory} holds no {task} data on this machine: set data_dir to a folder that '
                f'every process of the run reads'
            )
        flags = ''.join(f' --{k}={v}' for k, v in args.items() if v != module.DEFAULTS[k])
        raise ConfigError(
            f'{directory} holds no prepared {task} data: run python data/{task}/prepare.py{flags} '
            f'(add --input=PATH to use local files; its --help says which)'
            + prepared_otherwise(directory, args)
        )
    again = (
        f'delete {directory / "meta.json"}; the data is regenerated'
        if hasattr(module, 'generate')
        else f'run python data/{task}/prepare.py again'
    )
    meta = read_json(directory / 'meta.json', again)
    if not META_KEYS <= meta.keys() or meta['task'] != task:
        raise ConfigError(
            f'{directory / "meta.json"} is not the meta.json of {task} data '
            f'(it says task {meta.get("task")!r}): {again}, or set data_dir to the folder of {task}'
        )
    splits = check_meta(meta, directory / 'meta.json', again)
    if meta['args'] != args:
        made = (
            ', '.join(f'{k}={v!r}' for k, v in meta['args'].items() if args.get(k, None) != v)
            if isinstance(meta['args'], dict)
            else meta['args']
        )
        raise ConfigError(
            f'{directory} holds {task} data made with {made}, not {args}: '
            f'give those settings to use it, or set data_dir to another folder'
        )
    if hasattr(module, 'generate') and meta.get('version') != synthetic.VERSION:
        raise ConfigError(
            f'{directory} holds {task} data made by an older data/synthetic.py (version '
            f'{meta.get("version", 1)}, now {synthetic.VERSION}): '
            f'delete the folder; it is regenerated'
        )
    if 'encoding' in meta and meta['vocab_size'] != corpus.ENCODINGS.get(meta['encoding']):
        raise ConfigError(
            f'{directory / "meta.json"} says encoding {meta["encoding"]!r} '
            f'with {meta["vocab_size"]} tokens, which do not go together: {again}'
        )
    if cfg.get('classify') and 'classes' not in meta:
        raise ConfigError(
            f'{directory / "meta.json"} lists no classes (made by an older prepare.py): {again}'
            if hasattr(module, 'LABELS')
            else f'classify=True needs a task whose meta.json lists its '
            f'classes (yelp); {task} has none: drop classify'
        )
    split = cfg['eval_split'] or meta['eval_split']
    if split not in splits:
        raise ConfigError(
            f'{task} data has no {split!r} split (it has {", ".join(splits)}): '
            f'set eval_split to one of them, or leave it empty for {meta["eval_split"]!r}'
        )
    ext = 'bin' if meta.get('format') == 'tokens' else 'npz'
    for s in ('train', split):
        if not (directory / f'{s}.{ext}').is_file():
            raise ConfigError(
                f'{directory / f"{s}.{ext}"} is missing or not a regular file: {again}'
            )
    held = slice(cfg['eval_examples'] or None)
    if ext == 'npz' and (cfg['train_indices'] or cfg['eval_indices']):
        raise ConfigError(
            f'train_indices and eval_indices are window starts in a token stream, and {task} is '
            'examples: drop them'
        )
    if ext == 'npz':
        try:
            (train_x, train_y), (x_val, y_val) = (
                map(torch.from_numpy, synthetic.load_split(directory, s)) for s in ('train', split)
            )
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
            raise ConfigError(
                f'{directory} holds a damaged .npz file ({type(e).__name__}): {again}'
            ) from None
        for s, x, y in (('train', train_x, train_y), (split, x_val, y_val)):
            check_examples(x, y, meta, s, directory / f'{s}.npz', again)
        # once here, so training batches and evaluation both see class indices
        if cfg.get('classify'):
            for y, s in ((train_y, 'train'), (y_val, split)):
                class_targets(y, meta['classes'], directory / f'{s}.npz', again)
        if cfg.get('val_frac'):
            (train_x, train_y), (x_val, y_val) = validation_split(
                (train_x, train_y), cfg['val_frac'], meta
            )
        x_val, y_val = x_val[held], y_val[held]
        T = train_x.shape[1]
        if cfg['block_size'] and cfg['block_size'] < T:
            raise ConfigError(
                f"block_size={cfg['block_size']} is shorter than the task's examples ({T} tokens): "
                f'set block_size >= {T} or 0 for the example length'
            )
        return meta, (train_x, train_y), (x_val, y_val), T
    T = cfg['block_size'] or meta['block_size']
    # a prepare stopped half-way, files mixed up (and an empty file cannot be mapped)
    for s in ('train', split):
        size, count = (directory / f'{s}.bin').stat().st_size, meta['tokens'][s]
        if size != 2 * count or not count:
            raise ConfigError(
                f'{directory / f"{s}.bin"} holds {size:,} bytes, '
                f'not the {count:,} tokens of 2 bytes meta.json says: {again}'
            )
    streams = {
        s: np.memmap(directory / f'{s}.bin', dtype=np.uint16, mode='r') for s in ('train', split)
    }
    for s, tokens in streams.items():
        if s != 'train' or len(tokens) <= CHECKED_WHOLE:  # a larger train.bin: each batch (batches)
            check_tokens(tokens, meta['vocab_size'], directory / f'{s}.bin', again)
    if len(streams['train']) <= T:
        raise ConfigError(
            f'train.bin has {len(streams["train"]):,} tokens, too few for windows of '
            f'block_size={T}: use more text or a smaller block_size'
        )
    train, evaluated = streams['train'], streams[split]
    if cfg.get('val_frac'):
        train, evaluated = validation_split(train, cfg['val_frac'], meta)
        if len(train) <= T:
            raise ConfigError(
                f'val_frac={cfg["val_frac"]} leaves {len(train):,} training tokens, '
                f'too few for windows of block_size={T}: lower val_frac'
            )
    if cfg['eval_indices']:  # fixed windows, a row an evaluation: a function of its step
        rows = index_file(cfg, 'eval_indices', directory, len(evaluated) - T)
        need = cfg['max_iters'] // cfg['eval_interval'] + 1  # step s reads row s // eval_interval
        if len(rows) < need:
            raise ConfigError(
                f'{cfg["eval_indices"]} holds {len(rows)} rows; max_iters={cfg["max_iters"]:,} '
                f'at eval_interval={cfg["eval_interval"]:,} reads {need}'
            )

        def held_out(step):
            return windows(evaluated, rows[step // cfg['eval_interval']][held], T)

        return meta, train, held_out, T
    x_val, y_val = eval_windows(evaluated, T)
    return meta, train, (x_val[held], y_val[held]), T


def index_file(cfg, key, directory, end):
    """The window starts of the .npy file cfg[key] (a path, or a name in the task's folder), rows of
    ints in [0, end) (a window is T + 1 tokens), memory-mapped: as the identity-query authors'
    train_indices.npy and eval_val_indices.npy (their Generate_Indices.ipynb)."""
    path = Path(directory) / cfg[key]
    try:
        rows = np.load(path, mmap_mode='r')
    except (OSError, ValueError) as e:
        raise ConfigError(
            f'{key}={cfg[key]!r}: cannot read {path} as a .npy file ({type(e).__name__}): '
            "give a .npy of window starts, or '' for none"
        ) from None
    if rows.ndim != 2 or rows.dtype.kind not in 'iu' or not rows.size:
        raise ConfigError(f'{path} holds {rows.dtype} {rows.shape}, not rows of window starts')
    if rows.min() < 0 or rows.max() >= end:
        raise ConfigError(
            f'{path} holds window starts outside [0, {end:,}): a window of block_size + 1 '
            'tokens there would leave the split (starts written for other files?)'
        )
    return rows


# tokens: a train.bin up to this size (2 GB) is checked whole when loaded, a larger one per batch
CHECKED_WHOLE = 2**30


def check_tokens(tokens, vocab_size, path, again='run its prepare.py again'):
    """Token ids inside the vocabulary: an id beyond it would index past the embedding (a crash on a
    CPU, a device-side assert on a GPU). uint16 on disk, so never negative; a max over memory-mapped
    pages, at the disk's speed."""
    if len(tokens) and int(tokens.max()) >= vocab_size:
        raise ConfigError(f'{path} holds token ids outside the vocabulary of {vocab_size}: {again}')


META_KEYS = {'task', 'args', 'vocab_size', 'eval_split'}  # what every meta.json holds


def check_meta(meta, path, again):
    """meta.json's numbers by type and range, before any is used: a damaged or crafted one (or a
    checkpoint's copy) ends in one line, not in a traceback or an allocation of its size. Token ids
    are uint16 on disk: at most 2^16."""
    if not META_KEYS <= meta.keys():
        raise ConfigError(
            f'{path} is damaged (it lacks {", ".join(sorted(META_KEYS - meta.keys()))}): {again}'
        )
    counts = [meta.get(kind, {}) for kind in ('tokens', 'examples')]
    if not all(isinstance(c, dict) for c in counts) or not isinstance(meta['eval_split'], str):
        raise ConfigError(f'{path} is damaged (its tokens, examples or eval_split): {again}')
    numbers = {
        'vocab_size': (meta['vocab_size'], 1, 2**16),
        'block_size': (meta.get('block_size', 1), 1, 2**20),
        **{key: (meta[key], 0, 2**40) for key in ('n_train', 'n_val') if key in meta},
        **{f'{split} count': (n, 0, 2**40) for c in counts for split, n in c.items()},
    }
    for key, (n, low, high) in numbers.items():
        if type(n) is not int or not low <= n <= high:
            raise ConfigError(
                f'{path} says {key} {n!r}, not a whole number from {low} to {high:,}: {again}'
            )
    splits = list(
        meta.get('tokens')
        or meta.get('examples')
        or (s for s in ('train', 'val') if f'n_{s}' in meta)
    )
    if 'train' not in splits or meta['eval_split'] not in splits:
        raise ConfigError(
            f'{path} is damaged: its splits {splits} lack train or its eval_split: {again}'
        )
    # a task's tokens as text; Yelp's label tokens
    words, classes = meta.get('itos', []), meta.get('classes', [])
    if (
        'itos' in meta
        and not (
            isinstance(words, list)
            and len(words) == meta['vocab_size']
            and all(isinstance(w, str) for w in words)
            and isinstance(meta.get('sep'), str)
        )
        or not (
            isinstance(classes, list)
            and all(type(c) is int and 0 <= c < meta['vocab_size'] for c in classes)
        )
    ):
        raise ConfigError(
            f'{path} is damaged (its itos, sep or classes do not fit its vocab_size): {again}'
        )
    return splits


def check_examples(x, y, meta, split, path, again):
    """Examples as prepare.py wrote them for this meta.json: x and y of one shape, its rows and
    length, token ids inside the vocabulary (y: -1 where not scored). One pass over the arrays: a
    file of another setting would train silently, an id beyond the vocabulary crash in the
    embedding."""
    rows = meta.get(f'n_{split}', (meta.get('examples') or {}).get(split, len(x)))
    if (
        x.ndim != 2
        or x.shape != y.shape
        or len(x) != rows
        or x.shape[1] != meta.get('block_size', x.shape[1])
    ):
        raise ConfigError(
            f'{path} holds x {tuple(x.shape)} and y {tuple(y.shape)}, '
            f'not the {rows} examples of length {meta.get("block_size")} '
            f'meta.json describes: {again}'
        )
    if x.numel() and (
        x.min() < 0
        or x.max() >= meta['vocab_size']
        or y.min() < -1
        or y.max() >= meta['vocab_size']
    ):
        raise ConfigError(
            f'{path} holds token ids outside the vocabulary of {meta["vocab_size"]}: {again}'
        )
    # nothing to learn or measure: a loss of NaN, not an error, otherwise
    if x.numel() and not (y != -1).any():
        raise ConfigError(f'{path} scores no target (every y is -1): {again}')


def validation_split(train, frac, meta):
    """-> (train, validation): the training split's last `frac` (examples, or tokens of a stream)
    held out of training, for model selection (experiments/harness/common.py: search): drawn from
    the training distribution, so the reported held-out split is never used to choose. (Examples
    are generated i.i.d. or shuffled before the split.)"""
    if meta['eval_split'] == 'train':
        raise ConfigError(
            f'{meta["task"]} is measured on its training set (nothing generalises): '
            f'there is nothing to hold out for validation; '
            f'set val_frac=0 and select on the training-set accuracy'
        )
    n = len(train[0]) if isinstance(train, tuple) else len(train)
    cut = n - max(1, round(frac * n))
    if cut < 1:
        raise ConfigError(f'val_frac={frac} leaves no training data of {n:,}: lower val_frac')
    if isinstance(train, tuple):
        return tuple(t[:cut] for t in train), tuple(t[cut:] for t in train)
    return train[:cut], train[cut:]


def class_targets(y, classes, path, again):
    """Replaces y's scored targets, in place: token id classes[i] -> class index i (-1 stays: not
    scored), each moved from the separator to the token before it, the review's last, where the
    authors' classifier reads (their LlamaForSequenceClassification reads the last token that is not
    padding, and their padding is the end of text, our separator: its embedding row is zero there,
    configurator.model_args_of)."""
    scored = y != -1
    ids, classes = y[scored], torch.tensor(classes, dtype=y.dtype)
    match = ids[:, None] == classes  # (scored positions, classes)
    if not match.any(1).all():
        bad = ids[~match.any(1)][0].item()
        raise ConfigError(
            f'{path} has a scored target {bad} that is none of the classes {classes.tolist()} '
            f'of meta.json: {again}'
        )
    rows, cols = scored.nonzero(as_tuple=True)
    y[rows, cols] = -1
    # an empty review: read the separator
    y[rows, (cols - 1).clamp(min=0)] = match.int().argmax(1).to(y.dtype)
    return y


def eval_windows(tokens, T):
    """A token stream as contiguous, non-overlapping windows (x, y) of T predictions each, the last
    one padded with y = -1: every token but the first is predicted exactly once, so the mean loss
    over the windows is the split's log perplexity, deterministically."""
    n = len(tokens) - 1
    rows = -(-n // T)
    x, y = np.zeros(rows * T, dtype=np.int64), np.full(rows * T, -1, dtype=np.int64)
    x[:n], y[:n] = tokens[:-1], tokens[1:]
    return torch.from_numpy(x).view(rows, T), torch.from_numpy(y).view(rows, T)


@lru_cache(maxsize=2)
def epoch_order(n, seed, epoch):
    return torch.randperm(
        n, generator=torch.Generator().manual_seed(zlib.crc32(f'{seed}:{epoch}'.encode()))
    )


def batch_indices(n, step, global_batch, seed):
    """Example indices of optimizer step `step`: consecutive slices of a fresh permutation per
    epoch, so a function of (seed, step) only, and every example is seen once per epoch."""
    start, parts = step * global_batch, []
    while sum(len(p) for p in parts) < global_batch:
        pos = start + sum(len(p) for p in parts)
        epoch, offset = divmod(pos, n)
        parts.append(
            epoch_order(n, seed, epoch)[offset : offset + global_batch - sum(len(p) for p in parts)]
        )
    return torch.cat(parts)


def online_batches(cfg):
    """-> batches(step, n): n fresh examples from the task's generator, drawn from a numpy generator
    seeded by (data_seed, seed, step), so a function of the step as every batch here (online
    training, as the universal transformer experiments and the authors' depth.py). A draw whose
    input row equals an input of the task's held-out split (all of it, not only eval_examples), or
    of the validation split (val_frac), is rejected and redrawn from the same generator, as
    depth.py's `if tuple(x) in taskA_test_set: continue`, for every task (Dyck-1's EXCLUDE_HELD_OUT
    is about its fixed training split), so both are on inputs never trained on."""
    module, args, _ = task_data(cfg)
    gen_args = {k: v for k, v in args.items() if k not in ('n_train', 'n_test', 'seed')}
    # the held-out inputs (the files made if missing) and, in a validation run (val_frac), the
    # validation inputs too: neither is ever trained on
    meta, train, (x_held, _), _ = load_data(
        {**cfg, 'eval_split': '', 'eval_examples': 0, 'val_frac': 0.0}
    )
    if cfg['val_frac']:
        x_held = torch.cat([x_held, validation_split(train, cfg['val_frac'], meta)[1][0]])
    try:
        module.generate(np.random.default_rng(0), 1, **gen_args)
    except (AttributeError, NotImplementedError) as e:
        raise ConfigError(
            f'online=True needs a synthetic task with a generator; {cfg["task"]}: {e}'
        ) from None
    held_out = {row.tobytes() for row in x_held.numpy()} if meta['eval_split'] != 'train' else set()

    def batches(step, n):
        rng, xs, ys, kept, stalled = (
            np.random.default_rng([args['seed'], cfg['seed'], step]),
            [],
            [],
            0,
            0,
        )
        # the first draw is n examples; top-ups of at least 1,024 keep rare rejections cheap
        while kept < n:
            x, y = (
                np.asarray(a, np.int64)
                for a in module.generate(rng, max(n - kept, 1024) if xs else n, **gen_args)
            )
            keep = np.flatnonzero([row.tobytes() not in held_out for row in x])[: n - kept]
            xs.append(x[keep]), ys.append(y[keep])
            kept += len(keep)
            stalled = stalled + 1 if len(keep) == 0 else 0
            if stalled == 20:
                raise ConfigError(
                    f'online=True could not draw training examples outside the '
                    f'{len(held_out):,} held-out inputs: '
                    f'they cover (nearly) every input of the task; lower n_test or enlarge the task'
                )
        return torch.from_numpy(np.concatenate(xs)), torch.from_numpy(np.concatenate(ys))

    batches(0, 1)  # a task the held-out inputs cover fails here, before training starts
    return batches


def windows(tokens, starts, T):
    """The (x, y) of the windows of T + 1 tokens of a stream at `starts`, (len(starts), T) each."""
    # (len(starts), T + 1)
    window = torch.from_numpy(
        tokens[np.asarray(starts)[:, None] + np.arange(T + 1)].astype(np.int64)
    )
    return window[:, :-1], window[:, 1:]


def get_batch(train, step, global_batch, T, seed):
    """The (x, y) of optimizer step `step`, (global_batch, T) each, a function of (seed, step) only:
    examples by batch_indices, windows of a token stream, or fresh examples (online)."""
    if callable(train):
        return train(step, global_batch)
    if isinstance(train, np.memmap):
        g = torch.Generator().manual_seed(zlib.crc32(f'{seed}:{step}'.encode()))
        return windows(
            train, torch.randint(len(train) - T, (global_batch,), generator=g).numpy(), T
        )
    x, y = train
    idx = to_device(batch_indices(len(x), step, global_batch, seed), x.device)
    return x[idx], y[idx]


def layout(batch_size, accumulation, world):
    """How a step's `accumulation` micro-batches of batch_size examples (its global batch, the same
    for any number of processes) are shared by `world` processes: -> (micro-batches each process
    runs, examples in each, pieces per micro-batch). Where world divides accumulation each process
    runs accumulation/world whole micro-batches; else, with g = gcd(accumulation, world), the
    processes form g groups of k = world/g, each group runs accumulation/g micro-batches and each of
    its processes a piece of batch_size/k examples of every one (so k must divide batch_size)."""
    g = math.gcd(accumulation, world)
    k = world // g
    if batch_size % k:
        sizes = [b for b in (batch_size // k * k, batch_size // k * k + k) if b]
        raise ConfigError(
            f'batch_size={batch_size} does not split between the {k} processes that share each '
            f'micro-batch (gradient_accumulation_steps={accumulation} over {world} processes): '
            f'use batch_size={" or ".join(map(str, sizes))}, or '
            f'gradient_accumulation_steps={-(-accumulation // world) * world} '
            f'(a multiple of {world})'
        )
    return accumulation // g, batch_size // k, k


def batches(cfg, train, T, device, rank=0, world=1, vocab_size=2**16):
    """-> batch(step): this process's micro-batches [(x, y, weight), ...] of optimizer step `step`,
    on the device, as `layout` shares them. Every process draws the step's whole batch and keeps its
    rows. weight is None for a whole micro-batch; for a piece of one it is (targets scored in the
    piece / targets scored in the micro-batch) * pieces, counted from the whole batch without
    communication, so that DDP's average of the pieces' gradients of their mean losses (model.py:
    the mean over the scored targets, y != -1, also for a classifier's one target an example) is
    the gradient of the whole micro-batch's mean loss, as one process computes it. The examples of
    a task live on the device (cut there); a stream's windows and online examples are made on the
    host while the GPU still runs the last step, and only this rank's rows are copied. The windows
    of a train.bin too large to check whole when loaded are checked against vocab_size as they are
    drawn."""
    unchecked = isinstance(train, np.memmap) and len(train) > CHECKED_WHOLE and train.filename
    B, accumulation = cfg['batch_size'], cfg['gradient_accumulation_steps']
    if cfg['online']:
        train = online_batches(cfg)
    elif not isinstance(train, np.memmap):
        train = tuple(t.to(device) for t in train)
    elif cfg['train_indices']:  # fixed windows, a row a step
        rows, stream = index_file(cfg, 'train_indices', task_data(cfg)[2], len(train) - T), train
        if rows.shape[0] < cfg['max_iters'] or rows.shape[1] != B * accumulation:
            raise ConfigError(
                f'{cfg["train_indices"]} holds {rows.shape[0]:,} rows of {rows.shape[1]}, not '
                f'max_iters={cfg["max_iters"]:,} rows of batch_size x gradient_accumulation_steps '
                f'= {B * accumulation}'
            )

        def train(step, n):
            return windows(stream, rows[step], T)

    local, size, k = layout(B, accumulation, world)
    group, piece = divmod(rank, k)  # the micro-batches of group `group`, piece `piece` of each
    mine = slice(group * local, (group + 1) * local)

    def batch(step):
        x, y = get_batch(train, step, B * accumulation, T, cfg['seed'])
        if unchecked:
            check_tokens(torch.cat((x, y)).reshape(-1), vocab_size, unchecked)
        # (micro-batch, piece, example, position): this process's piece of its group's micro-batches
        rows = [t.reshape(accumulation, k, size, -1)[mine, piece] for t in (x, y)]
        xs, ys = (to_device(t.contiguous(), device) for t in rows)
        if k == 1:
            return [(xs[i], ys[i], None) for i in range(local)]
        scored = (y != -1).reshape(accumulation, k, -1).sum(-1)  # (micro-batch, piece)
        weight = to_device((scored / scored.sum(1, keepdim=True) * k)[mine, piece], device)
        return [(xs[i], ys[i], weight[i]) for i in range(local)]

    return batch


def to_device(t, device):
    """A host tensor on the device without waiting for it: on CUDA, pinned memory and a non-blocking
    copy, which the GPU runs after the work already queued (a plain copy would wait for the previous
    step to finish)."""
    if t.device.type == 'cpu' and str(device).startswith('cuda'):
        return t.pin_memory().to(device, non_blocking=True)
    return t.to(device)


def prompt_codec(meta, prompt):
    """-> (token ids of `prompt`, decode: ids -> text) in a run's vocabulary (its meta.json): a
    corpus's tiktoken encoding (an empty prompt starts from the end-of-text token), or a synthetic
    task's tokens, one per character or per sep-separated word. A prompt of bytes that are not
    UTF-8 (the command line's, which Python keeps as surrogates) is refused, not read as U+FFFD.
    FILE:path is that file's text, as nanoGPT's sample.py reads --start=FILE:prompt.txt."""
    if prompt.startswith('FILE:'):
        try:
            with synthetic.open_regular(os.path.expanduser(prompt[5:]), 'r', encoding='utf-8') as f:
                prompt = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(
                f'cannot read the prompt file {prompt[5:]!r} '
                f'({getattr(e, "strerror", None) or "not UTF-8 text"}): give a UTF-8 text file'
            ) from None
    try:
        prompt.encode('utf-8')
    except UnicodeEncodeError as e:
        raise ConfigError(
            f'the prompt is not UTF-8 text (byte {ord(prompt[e.start]) - 0xDC00:#04x} at '
            f'{e.start}): give it in UTF-8, e.g. through iconv -t utf-8'
        ) from None
    if 'encoding' in meta:
        enc = corpus.get_encoding(meta['encoding'])
        return enc.encode_ordinary(prompt) or [enc.eot_token], enc.decode
    stoi = {s: i for i, s in enumerate(meta['itos'])}
    words = prompt.split(meta['sep']) if meta['sep'] and prompt else tokens_of(prompt, stoi)
    bad = next((i for i, w in enumerate(words) if w not in stoi), None)
    if not words or bad is not None:
        # where the first word that is no token starts, and its first character: never the
        # prompt's text (a FILE: may be any file)
        at = (
            'it is empty'
            if not words
            else f'its word {bad + 1:,} (starting {words[bad][:1]!r}) is none of them'
            if meta['sep']
            else f'no token starts at its character {sum(map(len, words[:bad])) + 1:,} '
            f'({words[bad][:1]!r})'
        )
        raise ConfigError(
            f"the prompt must be a non-empty sequence of the task's tokens {meta['itos']}"
            + (f' separated by {meta["sep"]!r}' if meta['sep'] else '')
            + f": {at}; give it with --prompt= (sample.py's --start=, as nanoGPT's)"
        )
    return [stoi[w] for w in words], lambda row: synthetic.decode(meta, row)


def tokens_of(text, stoi):
    """A prompt of a task without a separator, split as synthetic.decode writes it: the longest
    token at each place, so that '(())?<pad>' is its six tokens and '754+861=' its eight. A place
    no token starts gives the characters left, which the caller refuses."""
    longest = sorted((t for t in stoi if t), key=len, reverse=True)
    words, i = [], 0
    while i < len(text):
        word = next((t for t in longest if text.startswith(t, i)), text[i:])
        words.append(word)
        i += len(word)
    return words

"""Runs a researcher can trust:
- every input a user can type and every damaged file under out/ or data/ ends in one line
  'error: ...' with exit code 2 and nothing written;
- checkpoints run no code;
- resume keeps its run;
- run folders are per config, locked, and never replace another run."""

import contextlib
import io
import json
import os
import pickletools
import re
import shutil
import signal
import subprocess
import sys
import time
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import checkpoint
import configurator
import devices
import train as train_module
from checkpoint import load_checkpoint
from data import corpus
from data.loader import generate_missing, layout
from data.synthetic import ConfigError
from model import GPT, GPTConfig
from test_model import deadline
from test_train import TINY
from train import train

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope='module')
def base(tmp_path_factory):
    """A data folder and a finished run 'done' in out/, made once and copied for each case."""
    d = tmp_path_factory.mktemp('base')
    train({**TINY, 'out_dir': str(d / 'out'), 'data_dir': str(d / 'data'), 'run_name': 'done'})
    return d


def flags(d, **kw):
    return [
        f'--{k}={v}'
        for k, v in {**TINY, 'out_dir': d / 'out', 'data_dir': d / 'data', **kw}.items()
    ]


def done(d, *more):
    """The finished run's folder named, for --resume and --sample."""
    return [f'--out_dir={d / "out"}', '--run_name=done', f'--data_dir={d / "data"}', *more]


def yelp_data(d):
    """Yelp, the one task a model may read both ways, from a stand-in of its CSVs."""
    from test_corpora import make_yelp

    make_yelp(d / 'csv')
    with contextlib.redirect_stderr(io.StringIO()):  # its progress bar: the case reads stderr
        corpus.prepare('yelp', {'encoding': 'bytes'}, d / 'csv', d / 'yelp')


def recrafted(**model_args):
    """A setup that rewrites the finished run's checkpoint with these model_args and a checksum made
    again: a file from elsewhere, whose checksum proves nothing."""

    def setup(d):
        path = d / 'out/done/ckpt.pt'
        ckpt = {k: v for k, v in load_checkpoint(path).items() if k not in ('sha256', 'file')}
        checkpoint.save_checkpoint(
            {**ckpt, 'model_args': {**ckpt['model_args'], **model_args}}, path
        )

    return setup


def crafted(change):
    """A setup that rewrites the finished run's checkpoint with change(ckpt) applied and a checksum
    made again."""

    def setup(d):
        path = d / 'out/done/ckpt.pt'
        ckpt = {k: v for k, v in load_checkpoint(path).items() if k not in ('sha256', 'file')}
        change(ckpt)
        checkpoint.save_checkpoint(ckpt, path)

    return setup


def optimizer_state(ckpt):
    return next(iter(ckpt['optimizer']['state'].values()))


def bin_file(split, content):
    """A setup that prepares the byte-level text task in d/text and replaces <split>.bin by
    `content` (bytes)."""

    def setup(d):
        text_corpus(d, cut=False)
        (d / 'text' / f'{split}.bin').write_bytes(content)

    return setup


def npz(change, compressed=False):
    """A setup that writes data/train.npz again with change(x, y) -> (x, y), as np.savez would (or
    compressed)."""

    def setup(d):
        from data.synthetic import load_split

        x, y = change(*load_split(d / 'data', 'train'))
        (np.savez_compressed if compressed else np.savez)(d / 'data' / 'train.npz', x=x, y=y)

    return setup


def meta_with(**changed):
    """A setup that changes keys of data/meta.json."""

    def setup(d):
        meta = json.loads((d / 'data/meta.json').read_text())
        (d / 'data/meta.json').write_text(json.dumps({**meta, **changed}))

    return setup


def write(path, content):
    Path(path).write_bytes(content if isinstance(content, bytes) else content.encode())


class Doctored:
    """Pickled as a call of os.system: whoever unpickles it with weights_only=False runs the
    command."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f'touch {self.marker}',)


def doctor(d):
    torch.save({'model': Doctored(d / 'pwned'), 'step': 6}, d / 'out' / 'done' / 'ckpt.pt')


def change_one_weight(d):
    """A checkpoint that still unzips and loads, with one weight changed after it was saved."""
    path = d / 'out' / 'done' / 'ckpt.pt'
    ckpt = torch.load(path, weights_only=True)
    ckpt['model']['wte.weight'][0, 0] += 1.0
    torch.save(ckpt, path)


def text_corpus(d, cut=True):
    """A prepared byte-level text task in d/text, its train.bin then cut short (unless not cut)."""
    (d / 'book.txt').write_text('In the beginning was the word.\n' * 4000)
    with contextlib.redirect_stderr(io.StringIO()):  # its progress bar: the case reads stderr
        corpus.prepare('text', {'encoding': 'bytes'}, d / 'book.txt', d / 'text')
    if cut:
        with open(d / 'text' / 'train.bin', 'r+b') as f:
            f.truncate(100)


def text_token(split, value):
    """A setup that prepares the byte-level text task in d/text and writes one token id `value` into
    <split>.bin."""

    def setup(d):
        text_corpus(d, cut=False)
        tokens = np.fromfile(d / 'text' / f'{split}.bin', dtype=np.uint16)
        tokens[len(tokens) // 2] = value
        tokens.tofile(d / 'text' / f'{split}.bin')

    return setup


def edit_json(path, **keys):
    path.write_text(json.dumps({**json.loads(path.read_text()), **keys}))


def symlinked(name):
    """A setup that makes the finished run's `name` (the folder itself: '') a symbolic link to a
    copy elsewhere."""

    def setup(d):
        path = d / 'out' / 'done' / name
        shutil.move(path, d / 'elsewhere')
        os.symlink(d / 'elsewhere', path)

    return setup


def TEXT(d, *more):
    return [
        '--task=text',
        '--encoding=bytes',
        f'--data_dir={d / "text"}',
        f'--out_dir={d / "out"}',
        '--n_layer=1',
        '--n_embd=32',
        '--block_size=16',
        '--max_iters=2',
        *more,
    ]


# (case, argv from the case's folder d, what to break first, what the message must say)
CASES = [
    # keys, names and types
    ('unknown key', lambda d: flags(d, lerning_rate=0.1), None, "did you mean 'learning_rate'"),
    (
        'key of an older version',
        lambda d: ['--freeze_qk=True'],
        None,
        "unknown key 'freeze_qk'; did you mean 'frozen_qk'",
    ),
    ('unknown variant', lambda d: flags(d, variant='mixt'), None, "did you mean 'mixit'"),
    ('unknown task', lambda d: ['--task=adition'], None, "did you mean 'addition'"),
    (
        'wrong type',
        lambda d: flags(d, max_iters='ten'),
        None,
        'max_iters=.ten. should be of type int',
    ),
    ('bool for a size', lambda d: flags(d, batch_size=True), None, 'should be of type int'),
    ('not a flag', lambda d: ['foo'], None, 'neither --key=value nor'),
    # nanoGPT's habits, pointed to this repository's ways
    ("nanoGPT's --dataset", lambda d: flags(d, dataset='shakespeare_char'), None, 'is --task here'),
    (
        "nanoGPT's --init_from=resume",
        lambda d: flags(d, init_from='resume'),
        None,
        'a run continues with --resume',
    ),
    (
        "nanoGPT's config file",
        lambda d: ['config/train_shakespeare_char.py'],
        None,
        "the papers' runs are in experiments/config/",
    ),
    # sizes and intervals
    ('zero layers', lambda d: flags(d, n_layer=0), None, 'n_layer=0 must be at least 1'),
    ('zero heads', lambda d: flags(d, n_head=0), None, 'n_head=0 must be at least 1'),
    ('negative width', lambda d: flags(d, n_embd=-8), None, 'n_embd=-8 must be at least 1'),
    (
        'width not a multiple of heads',
        lambda d: flags(d, n_embd=30, n_head=4),
        None,
        'multiple of n_head',
    ),
    ('zero batch', lambda d: flags(d, batch_size=0), None, 'batch_size=0 must be at least 1'),
    (
        'zero accumulation',
        lambda d: flags(d, gradient_accumulation_steps=0),
        None,
        'must be at least 1',
    ),
    (
        'zero eval_interval',
        lambda d: flags(d, eval_interval=0),
        None,
        'eval_interval=0 must be at least 1',
    ),
    (
        'negative log_interval',
        lambda d: flags(d, log_interval=-1),
        None,
        'log_interval=-1 must be at least 1',
    ),
    (
        'negative max_iters',
        lambda d: flags(d, max_iters=-5),
        None,
        'max_iters=-5 must be at least 0',
    ),
    (
        'negative block_size',
        lambda d: flags(d, block_size=-1),
        None,
        'block_size=-1 must be at least 0',
    ),
    ('short block_size', lambda d: flags(d, block_size=4), None, 'block_size=4 is shorter'),
    (
        'zero eval batch',
        lambda d: flags(d, eval_batch_size=0),
        None,
        'eval_batch_size=0 must be at least 1',
    ),
    (
        'negative eval_examples',
        lambda d: flags(d, eval_examples=-1),
        None,
        'eval_examples=-1 must be at least 0',
    ),
    (
        'negative warm-up',
        lambda d: flags(d, warmup_iters=-1),
        None,
        'warmup_iters=-1 must be at least 0',
    ),
    ('negative seed', lambda d: flags(d, seed=-1), None, 'seed=-1 must be at least 0'),
    (
        'no training examples',
        lambda d: flags(d, n_train=0, data_dir=d / 'new'),
        None,
        'n_train=0 and n_test=100 must both be at least 1',
    ),
    (
        'task setting out of range',
        lambda d: flags(d, digits=0, data_dir=d / 'new'),
        None,
        'digits must be at least 1',
    ),
    ('small vocab_size', lambda d: flags(d, vocab_size=8), None, 'vocab_size=8 is smaller'),
    (
        'a vocab_size of 10^9',
        lambda d: flags(d, vocab_size=10**9),
        None,
        r'the weights, buffers \(the fixed matrices and tables of block_size rows\) and optimizer '
        r'state \(64,000,\d{3},\d{3} parameters\) would take [\d,.]+ GiB, '
        r'and this cpu has [\d,.]+ GiB: at most [\d,]+ parameters fit',
    ),  # the token embedding and the untied head: 2 x 10^9 x 32, and a few thousand more
    # numbers beyond torch's integers: a bound where a key is read, and the sizes' bytes counted
    (
        'a width of 10^30',
        lambda d: flags(d, n_embd=10**30),
        None,
        'n_embd=1e.30 is beyond the 2,147,483,647 any key takes: lower it',
    ),
    (
        'a task setting of 10^20',
        lambda d: flags(d, digits=10**20, data_dir=d / 'new'),
        None,
        'digits=1e.20 is beyond the 2,147,483,647 any key takes',
    ),
    (
        'a MixiT of 2^31 - 1 positions',
        lambda d: flags(d, variant='mixit', block_size=2**31 - 1),
        None,
        'a weight or buffer of this model .* has more bytes than torch can count',
    ),
    (
        'a width whose weights torch cannot size',
        lambda d: flags(d, n_embd=2**31 - 4, n_head=2),
        None,
        'has more bytes than torch can count, far beyond any memory: lower them',
    ),
    (
        'a task setting too long for a folder name',
        lambda d: ['--task=dyck', f'--format={"x" * 300}', f'--out_dir={d / "out"}'],
        None,
        'names a data folder of 307 bytes, more than a folder name holds',
    ),
    (
        'a batch of 10^9',
        lambda d: flags(d, batch_size=10**9),
        None,
        r'the weights and a batch of 1,000,000,000 examples would take .* GiB: '
        r'about [\d,]+ examples fit: lower batch_size',
    ),
    (
        'zero mixit_std',
        lambda d: flags(d, variant='mixit', mixit_std=0.0),
        None,
        'mixit_std=0.0 must be positive',
    ),
    # optimization
    (
        'negative learning rate',
        lambda d: flags(d, learning_rate=-0.001),
        None,
        'learning_rate=-0.001 must be at',
    ),
    (
        'an infinite learning rate',
        lambda d: flags(d, learning_rate='1e999'),
        None,
        'learning_rate=inf must be a finite',
    ),
    (
        'a learning rate beyond float32',
        lambda d: flags(d, learning_rate=1e308),
        None,
        r'learning_rate=1e\+308 is beyond float32 \(3.4e38\): lower it',
    ),
    (
        'a NaN from a config file',
        lambda d: [str(d / 'c.json'), f'--out_dir={d / "out"}'],
        lambda d: write(d / 'c.json', '{"task": "addition", "weight_decay": NaN}'),
        'weight_decay=nan must be a finite',
    ),
    (
        'a task of null in a config file',
        lambda d: [str(d / 'c.json')],
        lambda d: write(d / 'c.json', '{"task": null}'),
        "unknown task 'None'",
    ),
    (
        'n_classes without classify',
        lambda d: flags(d, n_classes=5),
        None,
        'n_classes is what classify=True sets',
    ),
    (
        'val_frac with an eval_split',
        lambda d: flags(d, val_frac=0.2, eval_split='train'),
        None,
        'val_frac evaluates on the validation split it holds out: drop eval_split',
    ),
    (
        'negative grad_clip',
        lambda d: flags(d, grad_clip=-1.0),
        None,
        'grad_clip=-1.0 must be at least 0',
    ),
    ('dropout of one', lambda d: flags(d, dropout=1.0), None, r'dropout=1.0 must be in \[0, 1\)'),
    ('beta2 above one', lambda d: flags(d, beta2=1.5), None, r'beta2=1.5 must be in \[0, 1\)'),
    (
        'unknown lr_schedule',
        lambda d: flags(d, lr_schedule='step'),
        None,
        "lr_schedule='step' is not one of",
    ),
    # classification
    (
        'classify a task without classes',
        lambda d: flags(d, classify=True),
        None,
        'classify=True needs a task whose meta.json lists its classes .yelp.; '
        'addition has none: drop classify',
    ),
    (
        'bidirectional MixiT longer than the examples',
        lambda d: [
            f'--out_dir={d / "out"}',
            f'--data_dir={d / "yelp"}',
            '--task=yelp',
            '--encoding=bytes',
            '--variant=mixit',
            '--causal=False',
            '--block_size=512',
        ],
        yelp_data,
        r'bidirectional MixiT mixes all block_size positions: set block_size=\d+ \(or 0\)',
    ),
    (
        'classify online',
        lambda d: flags(d, classify=True, online=True),
        None,
        'has no generator: drop online=True',
    ),
    (
        'classify and sample',
        lambda d: done(d, '--sample', '--classify=True'),
        None,
        '--sample generates tokens',
    ),
    # sampling
    (
        'negative temperature',
        lambda d: done(d, '--sample', '--temperature=-1'),
        None,
        'temperature=-1.0 must be',
    ),
    (
        'zero samples',
        lambda d: done(d, '--sample', '--num_samples=0'),
        None,
        'num_samples=0 must be at least 1',
    ),
    (
        'negative top_k',
        lambda d: done(d, '--sample', '--top_k=-1'),
        None,
        'top_k=-1 must be at least 0',
    ),
    (
        'no new tokens',
        lambda d: done(d, '--sample', '--max_new_tokens=0'),
        None,
        'max_new_tokens=0 must be',
    ),
    (
        '10^9 samples',
        lambda d: done(d, '--sample', '--prompt=12', '--num_samples=1000000000'),
        None,
        r'1,000,000,000 samples of \d+ tokens would take [\d,.]+ GiB, '
        r'and this cpu has [\d,.]+ GiB: [\d,]+ such samples fit\n',
    ),
    (
        'samples of 2 x 10^9 tokens',
        lambda d: done(d, '--sample', '--prompt=12', f'--max_new_tokens={2 * 10**9}'),
        None,
        r'3 samples of 2,000,000,\d+ tokens would take .* GiB: '
        r'0 such samples fit, or 3 of max_new_tokens=[1-9]',
    ),
    (
        'prompt outside the vocabulary',
        lambda d: done(d, '--sample', '--prompt=zz'),
        None,
        "the task's tokens",
    ),
    (
        'sample before training',
        lambda d: ['--sample', '--task=addition', f'--out_dir={d / "out"}'],
        None,
        'cannot sample: no run in .* has a ckpt',
    ),
    # devices and dtypes
    ('device gpu', lambda d: flags(d, device='gpu'), None, "device='gpu' is not one of"),
    (
        'a GPU that is not there',
        lambda d: flags(d, device='cuda:99'),
        None,
        'use device=auto or cpu',
    ),
    ('unknown dtype', lambda d: flags(d, dtype='float8'), None, "dtype='float8' is not one of"),
    # config files
    (
        'malformed config file',
        lambda d: [str(d / 'c.json')],
        lambda d: write(d / 'c.json', '{"task": '),
        'cannot read',
    ),
    (
        'config file not an object',
        lambda d: [str(d / 'c.json')],
        lambda d: write(d / 'c.json', '[1, 2]'),
        'JSON list',
    ),
    (
        'missing config file',
        lambda d: [str(d / 'nope.json')],
        None,
        'neither --key=value nor an existing',
    ),
    (
        'a config file that says overwrite=True',
        lambda d: [str(d / 'c.json'), f'--out_dir={d / "out"}', f'--data_dir={d / "data"}'],
        lambda d: write(
            d / 'c.json',
            json.dumps(
                {
                    **json.loads((d / 'out/done/config.json').read_text()),
                    'seed': 1,
                    'overwrite': True,
                }
            ),
        ),  # refused, not dropped: the run it names would otherwise be refused or trained
        r'c.json: overwrite says what the command does, not what it trains: drop it there',
    ),
    # damaged or doctored files under out/
    (
        'truncated checkpoint',
        lambda d: done(d, '--resume'),
        lambda d: write(d / 'out/done/ckpt.pt', (d / 'out/done/ckpt.pt').read_bytes()[:2000]),
        'is damaged',
    ),
    (
        'checkpoint of random bytes',
        lambda d: done(d, '--sample'),
        lambda d: write(d / 'out/done/ckpt.pt', os.urandom(5000)),
        'ckpt.pt',
    ),
    ('doctored checkpoint, resume', lambda d: done(d, '--resume'), doctor, 'could run code'),
    ('doctored checkpoint, sample', lambda d: done(d, '--sample'), doctor, 'could run code'),
    (
        'one weight changed',
        lambda d: done(d, '--resume'),
        change_one_weight,
        'differ from the checksum',
    ),
    (
        'checkpoint with an unknown model key',
        lambda d: done(d, '--resume'),
        recrafted(n_experts=8),
        "names model_args 'n_experts', which GPTConfig lacks: other code than this checkout's",
    ),
    (
        "another run's checkpoint in the folder",
        lambda d: done(d, '--resume', '--max_iters=9'),
        crafted(lambda c: c['config'].update(seed=5)),
        r"ckpt.pt and .*config.json are two runs' \(seed=5 in ckpt.pt, 0 in config.json\)",
    ),
    # alike in every key a resume keeps, but past the steps the folder's run goes to
    (
        "a longer run's checkpoint in the folder",
        lambda d: done(d, '--resume', '--max_iters=9'),
        lambda d: edit_json(d / 'out' / 'done' / 'config.json', max_iters=0),
        r'ckpt.pt is at step \d+, beyond the max_iters=0 of .*config.json: they are two runs',
    ),
    (
        "a longer run's checkpoint in the folder, sampled",
        lambda d: done(d, '--sample', '--prompt=1+1='),
        lambda d: edit_json(d / 'out' / 'done' / 'config.json', max_iters=0),
        r'beyond the max_iters=0 of .*config.json',
    ),
    (
        "another run's checkpoint in the folder, sampled",
        lambda d: done(d, '--sample', '--prompt=1+1='),
        crafted(lambda c: c['config'].update(n_train=7)),
        "are two runs' .n_train=7 in ckpt.pt",
    ),
    (
        'checkpoint asking for 29 GB',
        lambda d: done(d, '--sample'),
        recrafted(block_size=10**9),
        'its model_args do not describe its tensors',
    ),
    (
        'checkpoint of 10^9 layers',
        lambda d: done(d, '--resume'),
        recrafted(n_layer=10**9),
        'its model_args do not describe its tensors',
    ),
    (
        'checkpoint of another width',
        lambda d: done(d, '--resume'),
        recrafted(n_embd=64, n_head=2),
        'its model_args do not describe its tensors',
    ),
    (
        'damaged config.json',
        lambda d: flags(d, run_name='done', seed=1),
        lambda d: write(d / 'out/done/config.json', '{"task"'),
        'overwrite=True',
    ),
    (
        'out_dir inside a file',
        lambda d: flags(d, out_dir=d / 'file' / 'out'),
        lambda d: write(d / 'file', 'x'),
        'cannot write to',
    ),
    # damaged files under data/
    (
        'malformed meta.json',
        lambda d: flags(d),
        lambda d: write(d / 'data/meta.json', '{oops'),
        'cannot read',
    ),
    (
        'meta.json not an object',
        lambda d: flags(d),
        lambda d: write(d / 'data/meta.json', '"x"'),
        'JSON str',
    ),
    (
        'meta.json nested 10^5 deep',
        lambda d: flags(d),
        lambda d: write(d / 'data/meta.json', '[' * 100_000),
        r'cannot read .*meta.json \(RecursionError\)',
    ),
    (
        'meta.json with a vocab_size of text',
        lambda d: flags(d),
        meta_with(vocab_size='many'),
        "says vocab_size 'many', not a whole number from 1 to 65,536",
    ),
    (
        'meta.json with a negative size',
        lambda d: flags(d),
        meta_with(n_train=-5),
        'says n_train -5, not a whole',
    ),
    (
        'meta.json with a size of 10^18',
        lambda d: flags(d),
        meta_with(block_size=10**18),
        'says block_size 10',
    ),
    (
        'meta.json of another task',
        lambda d: ['--task=dyck', f'--data_dir={d / "dyck"}'],
        lambda d: shutil.copytree(d / 'data', d / 'dyck'),
        'not the meta.json of dyck data .it says task .addition.',
    ),
    (
        'damaged train.npz',
        lambda d: flags(d),
        lambda d: write(d / 'data/train.npz', b'PK\x03\x04garbage'),
        'damaged .npz',
    ),
    (
        'train.npz of another setting under the same meta.json',
        lambda d: flags(d),
        npz(lambda x, y: (x[:500], y[:500])),
        r'train.npz holds x \(500, 9\) and y \(500, 9\), '
        r'not the 600 examples of length 9 meta.json describes',
    ),
    (
        'x and y of different rows',
        lambda d: flags(d),
        npz(lambda x, y: (x, y[:599])),
        r'holds x \(600, 9\) and y',
    ),
    (
        'a token id beyond the vocabulary',
        lambda d: flags(d),
        npz(lambda x, y: (x + (np.arange(x.size) == 7).reshape(x.shape) * 1000, y)),
        'holds token ids outside the vocabulary of',
    ),
    (
        'a compressed train.npz',
        lambda d: flags(d),
        npz(lambda x, y: (x, y), compressed=True),
        'damaged .npz',
    ),
    (
        'truncated train.bin',
        lambda d: [
            '--task=text',
            '--encoding=bytes',
            f'--data_dir={d / "text"}',
            f'--out_dir={d / "out"}',
        ],
        text_corpus,
        r'train.bin holds 100 bytes, not the [\d,]+ tokens of 2 bytes meta.json says',
    ),
    (
        'a token id beyond the vocabulary in train.bin',
        TEXT,
        text_token('train', 300),
        r'train.bin holds token ids outside the vocabulary of 257',
    ),
    (
        'a token id beyond the vocabulary in val.bin',
        TEXT,
        text_token('val', 65535),
        r'val.bin holds token ids outside the vocabulary of 257',
    ),
    (
        'a train.bin of an odd number of bytes',
        TEXT,
        bin_file('train', b'abc'),
        r'train.bin holds 3 bytes, not the [\d,]+ tokens of 2 bytes meta.json says',
    ),
    ('an empty val.bin', TEXT, bin_file('val', b''), r'val.bin holds 0 bytes, not the'),
    (
        'a val.bin that is a folder',
        TEXT,
        lambda d: (
            bin_file('val', b'')(d),
            (d / 'text/val.bin').unlink(),
            (d / 'text/val.bin').mkdir(),
        ),
        'is missing or not a regular file',
    ),
    ('a train.npz of floats', lambda d: flags(d), npz(lambda x, y: (x + 0.7, y)), 'damaged .npz'),
    (
        'a train.npz that scores nothing',
        lambda d: flags(d),
        npz(lambda x, y: (x, y * 0 - 1)),
        r'train.npz scores no target \(every y is -1\)',
    ),
    (
        'meta.json with an itos too short',
        lambda d: flags(d),
        meta_with(itos=['0', '1']),
        'its itos, sep or classes',
    ),
    (
        'meta.json whose eval_split has no files',
        lambda d: flags(d),
        meta_with(eval_split='test'),
        r"its splits \['train', 'val'\] lack train or its eval_split",
    ),
    (
        'missing split',
        lambda d: flags(d, eval_split='test'),
        None,
        "no 'test' split .it has train, val.",
    ),
    (
        'corpus not prepared',
        lambda d: ['--task=wikitext', f'--data_dir={d / "none"}'],
        None,
        'python data/wikitext/prepare.py',
    ),
    # run folders
    (
        'run_name up and out',
        lambda d: flags(d, run_name='../escape'),
        None,
        'plain folder name inside out_dir',
    ),
    (
        'run_name with a NUL',
        lambda d: flags(d, run_name='a\0b'),
        None,
        'holds a control character',
    ),
    ('run_name of 300 bytes', lambda d: flags(d, run_name='a' * 300), None, 'at most 200 bytes'),
    (
        'an empty out_dir',
        lambda d: [*flags(d)[:-2], '--out_dir=', f'--data_dir={d / "data"}'],
        None,
        "out_dir='' names no folder",
    ),
    (
        'a fresh run where another left only its log',
        lambda d: flags(d, run_name='done', seed=1),
        lambda d: [(d / 'out/done' / f).unlink() for f in ('ckpt.pt', 'config.json')],
        'overwrite=True',
    ),
    (
        'absolute run_name',
        lambda d: flags(d, run_name='/tmp/x'),
        None,
        'plain folder name inside out_dir',
    ),
    (
        'a run folder that is a symbolic link',
        lambda d: flags(d, run_name='done', max_iters=9),
        symlinked(''),
        r'out/done is a symbolic link: remove it, or set out_dir',
    ),
    (
        "a run's log that is a symbolic link",
        lambda d: done(d, '--resume', '--max_iters=9'),
        symlinked('log.jsonl'),
        r'log.jsonl is a symbolic link or not a regular file, '
        r'and a run reads and writes its own files only',
    ),
    (
        'out_dir of ~ of no user',
        lambda d: flags(d, out_dir='~nosuchuser9/x'),
        None,
        r"out_dir=~nosuchuser9/x: '~nosuchuser9' names no user of this machine",
    ),
    # a run's folder as the argument names out_dir and run_name: neither typed beside it
    (
        "a run's folder and --out_dir",
        lambda d: [d / 'out' / 'done', '--resume', f'--out_dir={d}', f'--data_dir={d / "data"}'],
        None,
        r"out/done' is a run's folder, which names the run's out_dir and run_name: give the folder "
        r'or --out_dir, not both',
    ),
    (
        "--run_name and a run's folder",
        lambda d: ['--run_name=x', d / 'out' / 'done', '--sample'],
        None,
        r'give the folder or --run_name, not both',
    ),
    (
        'a run folder without its ckpt.pt',
        lambda d: done(d, '--resume', '--max_iters=9'),
        lambda d: (d / 'out' / 'done' / 'ckpt.pt').unlink(),
        r'cannot resume: .*out/done/ckpt.pt is missing, and a run.s folder holds the checkpoint',
    ),
    (
        'a ckpt.pt that is a folder',
        lambda d: done(d, '--sample'),
        lambda d: (
            (d / 'out' / 'done' / 'ckpt.pt').unlink(),
            (d / 'out' / 'done' / 'ckpt.pt').mkdir(),
        ),
        r'cannot sample: .*out/done/ckpt.pt is a folder',
    ),
    # --sample samples the run's own model: a key of another is refused, as --resume refuses it
    (
        'sample with a model key of another run',
        lambda d: done(d, '--sample', '--variant=mixit'),
        None,
        r"--sample cannot change variant \('standard' in the run, 'mixit' given\): the run's "
        r"weights are its own model's",
    ),
    (
        'a task setting that climbs out of data/',
        lambda d: ['--task=dyck', '--format=../../escape', f'--out_dir={d / "out"}'],
        None,
        r"format='../../escape' cannot be part of the data folder's name",
    ),
    (
        'another run in the folder',
        lambda d: flags(d, run_name='done', seed=1),
        None,
        r'holds another run \(seed=0 there, 1 here\): '
        r'--resume it, use another run_name, or set overwrite=True',
    ),
    # resume
    (
        'resume as another variant',
        lambda d: done(d, '--resume', '--variant=mixit'),
        None,
        "--resume cannot change variant .'standard' in the run, 'mixit' given.",
    ),
    (
        'resume deeper',
        lambda d: done(d, '--resume', '--n_layer=3'),
        None,
        '--resume cannot change n_layer',
    ),
    (
        'resume with another batch',
        lambda d: done(d, '--resume', '--batch_size=8'),
        None,
        'cannot change batch_size',
    ),
    (
        'resume on other task data',
        lambda d: done(d, '--resume', '--digits=3'),
        None,
        'cannot change digits',
    ),
    (
        'resume what never ran',
        lambda d: flags(d, resume=True, run_name='never'),
        None,
        'cannot resume: .*never/ckpt.pt is missing',
    ),
    (
        'resume where the checkpoint says the data is',
        lambda d: [f'--out_dir={d / "out"}', '--run_name=done', '--resume'],
        None,
        'this run read its data from data_dir=.*: '
        'give that data_dir again .a checkpoint does not choose',
    ),
    (
        'resume back to an earlier step',
        lambda d: done(d, '--resume', '--max_iters=2'),
        None,
        r"max_iters=2 is below the run's step \d+: a run does not go back",
    ),
    (
        'a crafted checkpoint with a negative step',
        lambda d: done(d, '--resume', '--max_iters=9'),
        crafted(lambda c: c.update(step=-5)),
        'its step is missing or not a whole number from 0',
    ),
    (
        'a crafted checkpoint with a step of True',
        lambda d: done(d, '--resume', '--max_iters=9'),
        crafted(lambda c: c.update(step=True)),
        'its step is missing or not a whole number from 0',
    ),
    (
        'a crafted checkpoint without meta',
        lambda d: done(d, '--sample'),
        crafted(lambda c: c.pop('meta')),
        'its meta is missing or not a dict',
    ),
    (
        "a crafted checkpoint whose meta's tokens cannot be decoded",
        lambda d: done(d, '--sample', '--prompt=12'),
        crafted(lambda c: c['meta'].update(sep=5)),
        r'meta is damaged \(its itos, sep or classes',
    ),
    (
        'a crafted checkpoint with an empty optimizer state',
        lambda d: done(d, '--resume', '--max_iters=9'),
        crafted(lambda c: c.update(optimizer={})),
        r'ckpt.pt is damaged: its state does not load into the model',
    ),
    (
        "a crafted checkpoint whose betas are not the config's",
        lambda d: done(d, '--resume', '--max_iters=9'),
        crafted(lambda c: c['optimizer']['param_groups'][0].update(betas=(5.0, 0.5))),
        "optimizer settings other than the config's",
    ),
    (
        'a crafted checkpoint with a moment of another shape',
        lambda d: done(d, '--resume', '--max_iters=9'),
        crafted(lambda c: optimizer_state(c).update(exp_avg=torch.zeros(3, 3))),
        'a tensor of another shape',
    ),
    (
        'a crafted checkpoint whose config train.py refuses',
        lambda d: done(d, '--resume', '--max_iters=9'),
        lambda d: (  # its config.json gone too, else the two differ first
            crafted(lambda c: c['config'].pop('task'))(d),
            (d / 'out/done/config.json').unlink(),
        ),
        r"holds a config this train.py refuses \(unknown key 'digits'.*"
        "other code than this checkout's wrote it",
    ),
    (
        'a checkpoint that is a FIFO',
        lambda d: done(d, '--resume'),
        lambda d: ((d / 'out/done/ckpt.pt').unlink(), os.mkfifo(d / 'out/done/ckpt.pt')),
        r'ckpt.pt \(not a regular file but a FIFO or a device\)',
    ),
    (
        "a checkpoint that is a link to another folder's, sampled",
        lambda d: done(d, '--sample', '--prompt=1+1='),
        lambda d: (
            (d / 'elsewhere').mkdir(),
            (d / 'out/done/ckpt.pt').rename(d / 'elsewhere/ckpt.pt'),
            (d / 'out/done/ckpt.pt').symlink_to(d / 'elsewhere/ckpt.pt'),
        ),
        r'ckpt.pt is a symbolic link, and a run is read from its own files only',
    ),
    # a model that reads the future
    (
        'bidirectional on a next-token task',
        lambda d: flags(d, causal=False),
        None,
        'causal=False lets a position read what follows it, its targets in addition',
    ),
]


@pytest.mark.parametrize('argv, setup, message', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_with_exit_code_2(base, tmp_path, capsys, argv, setup, message):
    d = tmp_path / 'case'
    shutil.copytree(base, d)
    if setup:
        setup(d)
    before = {p: p.read_bytes() for p in (d / 'out').rglob('*') if p.is_file()}
    with pytest.raises(SystemExit) as exit_:
        train_module.main([str(a) for a in argv(d)])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert err.startswith('error: ') and err.count('\n') == 1 and 'Traceback' not in out + err, err
    assert re.search(message, err), err
    assert {p: p.read_bytes() for p in (d / 'out').rglob('*') if p.is_file()} == before, (
        'nothing written'
    )
    assert not (d / 'pwned').exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason='this machine has CUDA')
def test_cuda_without_cuda(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train_module.main(flags(tmp_path, device='cuda'))
    assert "device='cuda', but this machine has no cuda device" in capsys.readouterr().err


def test_the_process_exits_2_with_one_line(base, tmp_path):
    """The same through a real process: the exit code and stderr that a shell sees."""
    shutil.copytree(base, tmp_path / 'case')
    doctor(tmp_path / 'case')
    for argv in (
        ['--n_layer=0'],
        done(tmp_path / 'case', '--resume'),
        done(tmp_path / 'case', '--sample'),
    ):
        r = subprocess.run(
            [sys.executable, 'train.py', *map(str, argv)], cwd=ROOT, capture_output=True, text=True
        )
        assert r.returncode == 2 and r.stderr.startswith('error: ') and r.stderr.count('\n') == 1, (
            r.stderr
        )
    assert not (tmp_path / 'case' / 'pwned').exists()


def test_checkpoints_hold_only_tensors_and_plain_values(base):
    ckpt = load_checkpoint(base / 'out' / 'done' / 'ckpt.pt')
    with zipfile.ZipFile(base / 'out' / 'done' / 'ckpt.pt') as z:
        pickle = next(z.read(n) for n in z.namelist() if n.endswith('data.pkl'))
    names = {
        arg for op, arg, _ in pickletools.genops(pickle) if op.name == 'GLOBAL'
    }  # what unpickling imports
    assert names and all(n.split()[0] in ('collections', 'torch._utils', 'torch') for n in names), (
        names
    )
    assert ckpt['step'] == 6 and ckpt['model_args']['n_layer'] == 1


def test_a_prompt_that_is_not_utf8_is_refused_not_replaced():
    """A command line's bytes that are not UTF-8 reach Python as surrogates: a byte-level model
    would read each as U+FFFD's three bytes, another text than the one typed. One line instead."""
    from data.loader import prompt_codec

    for meta in ({'encoding': 'bytes'}, {'itos': ['a', 'b'], 'sep': ''}):
        with pytest.raises(ConfigError, match=r'the prompt is not UTF-8 text \(byte 0xff at 1\)'):
            prompt_codec(meta, 'a\udcffb')
    assert prompt_codec({'encoding': 'bytes'}, 'aé')[0] == [97, 0xC3, 0xA9]


def test_a_prompt_of_a_task_without_separator_is_read_as_its_tokens_are_written():
    """Dyck's itos lists '<pad>', which a prompt of one token per character could never hold: the
    longest token at each place, as decode writes them, and what no token starts refused."""
    from data.loader import prompt_codec

    meta = {'itos': ['<pad>', '(', ')', '?'], 'sep': ''}
    ids, decode = prompt_codec(meta, '(())?<pad>')
    assert ids == [1, 1, 2, 2, 3, 0] and decode(ids) == '(())?<pad>'
    for bad in ('(x)', '(<pa', '<PAD>'):
        with pytest.raises(ConfigError, match="must be a non-empty sequence of the task's tokens"):
            prompt_codec(meta, bad)


def test_a_prompt_of_file_colon_is_that_files_text(tmp_path):
    """nanoGPT's --start=FILE:prompt.txt reads the file; one that cannot be read is one line."""
    from data.loader import prompt_codec

    (tmp_path / 'p.txt').write_text('(())?')
    (tmp_path / 'latin1.txt').write_bytes(b'caf\xe9')
    meta = {'itos': ['<pad>', '(', ')', '?'], 'sep': ''}
    assert prompt_codec(meta, f'FILE:{tmp_path / "p.txt"}')[0] == [1, 1, 2, 2, 3]
    for name, why in (('none.txt', 'No such file'), ('latin1.txt', 'not UTF-8 text')):
        with pytest.raises(ConfigError, match=f'cannot read the prompt file .*{name}.*{why}'):
            prompt_codec(meta, f'FILE:{tmp_path / name}')
    # a file that is no prompt of the task (any file: /etc/passwd) is refused by where its first
    # stray character is, its text never shown (a 200 kB file was a 200 kB error line)
    (tmp_path / 'secret.txt').write_text('(()SECRET-HASH' + 'x' * 200_000)
    with pytest.raises(ConfigError, match=r"no token starts at its character 4 \('S'\)") as e:
        prompt_codec(meta, f'FILE:{tmp_path / "secret.txt"}')
    assert 'ECRET' not in str(e.value) and len(str(e.value)) < 300
    with pytest.raises(ConfigError, match=r"its word 2 \(starting 'S'\) is none of them") as e:
        prompt_codec({'itos': ['a', 'b'], 'sep': ' '}, 'a SECRET b')
    assert 'ECRET' not in str(e.value)


def test_a_sample_drawn_in_pieces_is_the_one_drawn_at_once(base, monkeypatch):
    """sample_text generates a piece at a time (a progress bar between pieces): the same draws in
    the same order, so the texts of pieces of 3 tokens are those of one piece of all 10."""
    import sample

    keys = dict(
        out_dir=str(base / 'out'), run_name='done', data_dir=str(base / 'data'), num_samples=2
    )
    keys.update(max_new_tokens=10, temperature=1.0, prompt='12+')
    whole = sample.sample_text(keys)
    monkeypatch.setattr(sample, 'PIECE_TOKENS', 3)
    assert sample.sample_text(keys) == whole


def test_temperature_zero_is_greedy_and_a_number_is_a_prompt(base, capsys):
    train_module.main(
        done(
            base,
            '--sample',
            '--temperature=0',
            '--prompt=12',
            '--num_samples=2',
            '--max_new_tokens=3',
        )
    )
    a, b = capsys.readouterr().out.strip().split('\n---------------\n')
    assert a == b and a.startswith('12')  # greedy: both samples the same; --prompt=12 the text '12'


def test_two_fresh_runs_that_differ_only_in_seed_keep_both(tmp_path):
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'max_iters': 3,
    }
    a, b = train({**keys, 'seed': 0}), train({**keys, 'seed': 1})
    assert a['run_dir'] != b['run_dir'] and Path(b['run_dir']).name.startswith('addition-standard,')
    assert 'seed=1' in Path(b['run_dir']).name
    seeds = [load_checkpoint(Path(m['run_dir']) / 'ckpt.pt')['config']['seed'] for m in (a, b)]
    assert seeds == [0, 1]
    again = train(
        {**keys, 'seed': 1}
    )  # the same config again: its own folder, replaced by the same run
    assert again['run_dir'] == b['run_dir'] and again['val_loss'] == b['val_loss']


def test_resume_finds_an_extended_run_and_refuses_changes_before_writing(tmp_path):
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    first = train(keys)
    folder = Path(first['run_dir'])
    first_files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    extended = train(
        {**keys, 'resume': True, 'max_iters': 9}
    )  # another max_iters: found by its fixed keys, and trained on in its own config's folder
    assert extended['step'] == 9 and extended['run_dir'] != str(folder)
    assert Path(extended['run_dir']).name.startswith('addition-standard,')
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == first_files
    folder = Path(extended['run_dir'])
    assert json.loads((folder / 'config.json').read_text())['max_iters'] == 9
    log = (folder / 'log.jsonl').read_bytes()  # the run's log so far, then the extension's
    assert log.startswith(first_files['log.jsonl']) and log != first_files['log.jsonl']
    # the extension never blocks the run it extends from running again as it was
    assert train(keys)['run_dir'] == first['run_dir']
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    for named in (
        {'run_name': folder.name},
        {},
    ):  # found by its name, or as the run that differs in that key only
        with pytest.raises(ConfigError, match="cannot change variant .'standard' in the run"):
            train({**keys, 'resume': True, 'max_iters': 12, 'variant': 'mixit', **named})
    with pytest.raises(ConfigError, match='cannot resume: no run'):  # n_layer, not given, differs
        train(
            {
                **{k: v for k, v in keys.items() if k != 'n_layer'},
                'resume': True,
                'variant': 'mixit',
            }
        )
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    assert (
        train({**keys, 'resume': True, 'max_iters': 12})['step'] == 12
    )  # the refused key did not stick


def test_resume_refuses_data_that_changed_under_the_run(tmp_path):
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    train(keys)
    meta = json.loads((tmp_path / 'data' / 'meta.json').read_text())
    (tmp_path / 'data' / 'meta.json').write_text(
        json.dumps({**meta, 'itos': meta['itos'][::-1]})
    )  # other tokens
    with pytest.raises(ConfigError, match=r"not what this run trained on \(itos: \['0', "):
        train({**keys, 'resume': True, 'max_iters': 9})


def test_overwrite_replaces_another_run_only_when_asked(tmp_path):
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    train(keys)
    with pytest.raises(ConfigError, match='holds another run'):
        train({**keys, 'seed': 1})
    before = {f: (tmp_path / 'out' / 'r' / f).read_bytes() for f in ('config.json', 'ckpt.pt')}
    assert train({**keys, 'seed': 1, 'overwrite': True})['run_dir'].endswith('r')
    assert load_checkpoint(tmp_path / 'out' / 'r' / 'ckpt.pt')['config']['seed'] == 1
    # the run it replaced is kept, whole, in the folder's replaced/1/ (a mistyped run_name loses
    # nothing), and the next overwrite keeps that one too, beside it in replaced/2/
    replaced = tmp_path / 'out' / 'r' / 'replaced'
    assert {f: (replaced / '1' / f).read_bytes() for f in before} == before
    train({**keys, 'seed': 2, 'overwrite': True})
    assert {f: (replaced / '1' / f).read_bytes() for f in before} == before
    assert load_checkpoint(replaced / '2' / 'ckpt.pt')['config']['seed'] == 1
    # a file of the user's named replaced is refused, not replaced by a folder
    shutil.rmtree(replaced)
    replaced.write_text('mine')
    with pytest.raises(ConfigError, match='replaced is not a folder'):
        train({**keys, 'seed': 3, 'overwrite': True})
    assert replaced.read_text() == 'mine'
    assert load_checkpoint(tmp_path / 'out' / 'r' / 'ckpt.pt')['config']['seed'] == 2


def test_a_resume_refuses_a_log_line_train_py_never_writes_and_says_a_missing_log(tmp_path, capsys):
    """A line of log.jsonl that is no JSON object with a step (a note, garbage) would stay in the
    resumed run's log, which compare_runs refuses: the resume is refused, naming the line, and the
    run is as it was. A run without its log resumes and says that its log starts again there."""
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    keys['run_name'] = 'r'
    train(keys)
    log = tmp_path / 'out' / 'r' / 'log.jsonl'
    good = log.read_bytes()
    log.write_bytes(good.replace(b'"val_loss": ', b'"val_loss": NaN, "was": ', 1))
    with pytest.raises(ConfigError, match=r'log.jsonl line 1 is not a JSON object with a step'):
        train({**keys, 'resume': True, 'max_iters': TINY['max_iters'] + 2})
    log.write_bytes(good + b'garbage line\n')
    before = {p: p.read_bytes() for p in sorted((tmp_path / 'out').rglob('*')) if p.is_file()}
    with pytest.raises(ConfigError, match=r'log.jsonl line \d+ is not a JSON object with a step'):
        train({**keys, 'resume': True, 'max_iters': TINY['max_iters'] + 2})
    assert {
        p: p.read_bytes() for p in sorted((tmp_path / 'out').rglob('*')) if p.is_file()
    } == before
    log.write_bytes(b'')
    capsys.readouterr()
    train({**keys, 'resume': True, 'max_iters': TINY['max_iters'] + 2})
    assert (
        'has no log.jsonl, or an empty one: the log starts again at step' in capsys.readouterr().err
    )
    log.unlink()
    train({**keys, 'resume': True, 'max_iters': TINY['max_iters'] + 4})
    assert 'has no log.jsonl, or an empty one' in capsys.readouterr().err


def test_a_second_process_on_a_run_folder_is_refused_and_the_first_stays_intact(tmp_path):
    args = [
        f'--{k}={v}'
        for k, v in {
            **TINY,
            'out_dir': tmp_path / 'out',
            'data_dir': tmp_path / 'data',
            'run_name': 'r',
            'max_iters': 100_000,
            'eval_interval': 5,
        }.items()
    ]
    first = subprocess.Popen(
        [sys.executable, 'train.py', *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = tmp_path / 'out' / 'r' / 'log.jsonl'
    try:
        deadline = time.time() + 120
        while not (log.exists() and log.read_text().count('\n') >= 2) and time.time() < deadline:
            time.sleep(0.2)
        second = subprocess.run(
            [sys.executable, 'train.py', *args, '--seed=1'],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert second.returncode == 2 and 'another process is running in' in second.stderr, (
            second.stderr
        )
    finally:
        first.send_signal(signal.SIGTERM)
        try:
            first.wait(timeout=60)
        finally:
            first.kill()  # a hung one fails the test, and does not outlive it
    steps = [json.loads(line)['step'] for line in log.read_text().splitlines()]
    assert steps == list(range(5, 5 * len(steps) + 1, 5))  # one run's evaluations, in order
    ckpt = load_checkpoint(tmp_path / 'out' / 'r' / 'ckpt.pt')
    # the log line of an evaluation is written just before its checkpoint: a kill between them
    # leaves the log one evaluation ahead, which resume cuts back
    assert ckpt['config']['seed'] == 0 and ckpt['step'] in steps[-2:]
    assert not list((tmp_path / 'out' / 'r').glob('*.tmp*'))
    resumed = train(
        {
            'out_dir': str(tmp_path / 'out'),
            'data_dir': str(tmp_path / 'data'),
            'run_name': 'r',
            'resume': True,
            'max_iters': ckpt['step'] + 5,
        }
    )  # the lock went with the killed process
    assert resumed['step'] == ckpt['step'] + 5
    steps = [json.loads(line)['step'] for line in log.read_text().splitlines()]
    assert steps == list(range(5, ckpt['step'] + 6, 5))


def test_wandb_logs_each_evaluation_when_asked(tmp_path, monkeypatch):
    calls = []

    class Run:
        def log(self, metrics, step):
            calls.append(('log', step, metrics['val_loss']))

        def finish(self):
            calls.append(('finish',))

    fake = types.ModuleType('wandb')
    fake.init = lambda **kw: (
        calls.append(('init', kw['project'], kw['name'], kw['config']['seed'])) or Run()
    )
    monkeypatch.setitem(sys.modules, 'wandb', fake)
    m = train(
        {
            **TINY,
            'out_dir': str(tmp_path / 'out'),
            'data_dir': str(tmp_path / 'data'),
            'wandb_log': True,
            'run_name': 'w',
        }
    )
    log = [
        json.loads(line) for line in (tmp_path / 'out' / 'w' / 'log.jsonl').read_text().splitlines()
    ]
    assert calls == [
        ('init', 'frozen-transformers', 'w', 0),
        *[('log', e['step'], e['val_loss']) for e in log],
        ('finish',),
    ]
    assert log[-1]['val_loss'] == m['val_loss']


def dead_pid():
    """The pid of a process that has ended (and, on a quiet machine, not been reused yet)."""
    p = subprocess.Popen([sys.executable, '-c', ''])
    p.wait()
    return p.pid


def test_temporaries_of_dead_processes_are_removed_by_the_next_run_and_prepare(tmp_path):
    """A kill -9 leaves <name>.tmp<pid>; the next run of the folder (or prepare of the data) removes
    those of processes that no longer run, of the names it writes there, and keeps a running
    process's and a user's own files."""
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    train(keys)
    run, data = tmp_path / 'out' / 'r', tmp_path / 'data'
    dead, alive = (
        dead_pid(),
        subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']),
    )
    try:
        for folder, name in ((run, 'ckpt.pt'), (data, 'new')):
            (
                folder / f'{name}.tmp{dead}'
            ).mkdir()  # a folder (a prepare's) or a file (a checkpoint's) alike
            (folder / f'{name}.tmp{dead}' / 'half').write_bytes(b'half')
            (folder / f'{name}.tmp{alive.pid}').write_bytes(b'a running process is writing it')
            (folder / f'notes.tmp{dead}').write_bytes(b"a user's own file")
        (run / f'log.jsonl.tmp{dead}').write_bytes(b'half')
        train({**keys, 'resume': True, 'max_iters': 9})
        assert sorted(p.name for p in run.glob('*.tmp*')) == [
            f'ckpt.pt.tmp{alive.pid}',
            f'notes.tmp{dead}',
        ]
        from data.synthetic import prepare

        prepare('addition', json.loads((data / 'meta.json').read_text())['args'], out_dir=data)
        assert sorted(p.name for p in data.glob('*.tmp*')) == [
            f'new.tmp{alive.pid}',
            f'notes.tmp{dead}',
        ]
    finally:
        alive.kill()


def test_a_resume_refuses_a_checkpoint_replaced_after_it_read_it(tmp_path, monkeypatch):
    """Two resumes of one run: the second read ckpt.pt before the first, which held the lock,
    replaced it; once it holds the lock it sees that, and stops before it writes anything."""
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    train(keys)
    folder = tmp_path / 'out' / 'r'

    def read_then_replaced(path, resumable=None):
        ckpt = load_checkpoint(path, resumable)
        shutil.copy(path, folder / 'other')
        os.replace(folder / 'other', path)  # the first resume's next checkpoint: a new file
        return ckpt

    monkeypatch.setattr(train_module, 'load_checkpoint', read_then_replaced)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    with pytest.raises(
        ConfigError,
        match='another process wrote .* after this one read its checkpoint',
    ):
        train({**keys, 'resume': True, 'max_iters': 9})
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before


def test_a_run_stops_when_its_folder_is_made_again(tmp_path, monkeypatch):
    """The lock guards the folder it was taken in: a folder removed and made again (where another
    process could take a new lock) stops the run at its next evaluation instead of two runs writing
    one folder."""
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    record = checkpoint.Run.record

    def remade(self, *args):
        shutil.rmtree(self.folder)
        self.folder.mkdir()
        (self.folder / '.lock').touch()
        return record(self, *args)

    monkeypatch.setattr(checkpoint.Run, 'record', remade)
    with pytest.raises(ConfigError, match='removed or made again while this run wrote it'):
        train(keys)
    assert [p.name for p in (tmp_path / 'out' / 'r').iterdir()] == ['.lock']


def two_processes(argv_of_rank, timeout=120):
    """Two processes of one run as torchrun starts them (its environment variables, gloo on the
    CPU), each with its own command line; -> [(exit status, stderr)] by rank."""
    import socket

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    procs = [
        subprocess.Popen(
            [sys.executable, 'train.py', *map(str, argv_of_rank(rank))],
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={
                **os.environ,
                'RANK': str(rank),
                'LOCAL_RANK': str(rank),
                'WORLD_SIZE': '2',
                'LOCAL_WORLD_SIZE': '2',
                'MASTER_ADDR': '127.0.0.1',
                'MASTER_PORT': str(port),
                'OMP_NUM_THREADS': '1',
            },
        )
        for rank in range(2)
    ]
    try:
        return [(p.wait(timeout=timeout), p.communicate()[1]) for p in procs]
    finally:
        for p in procs:
            p.kill()


@pytest.mark.skipif(sys.platform != 'linux', reason='two gloo processes are exercised on Linux')
@pytest.mark.parametrize(
    'failing, message',
    [
        (0, r'cannot write to .*file/out/r \(Not a directory\)'),
        (
            1,
            r'process 1 of the run: .*/elsewhere holds no addition data on this '
            r'machine: set data_dir to a folder that every process of the run',
        ),
    ],
)
def test_an_error_on_one_process_of_a_torchrun_stops_every_process_in_one_line(
    tmp_path, failing, message
):
    """Rank 0 alone writes the run's folder, and each machine reads its own data: an error on one
    process (rank 0's out_dir inside a file; rank 1's data missing, its data_dir another machine's)
    stops both, with the failing one's message printed once, by rank 0, and exit status 2: no gloo
    traceback from a process left waiting for the other."""
    (tmp_path / 'file').write_text('x')
    keys = {
        **TINY,
        'out_dir': tmp_path / ('file' if failing == 0 else '') / 'out',
        'data_dir': tmp_path / 'data',
        'run_name': 'r',
        'gradient_accumulation_steps': 2,
        'device': 'cpu',
    }

    def argv(rank):
        return [
            f'--{k}={v}'
            for k, v in {
                **keys,
                **({'data_dir': tmp_path / 'elsewhere'} if rank == failing == 1 else {}),
            }.items()
        ]

    (status0, err0), (status1, err1) = two_processes(argv)
    assert status0 == status1 == 2, (err0, err1)
    assert err0.startswith('error: ') and err0.count('\n') == 1 and re.search(message, err0), err0
    assert err1 == '', err1
    assert not (tmp_path / 'out').exists() and not (tmp_path / 'elsewhere').exists()


def test_a_train_bin_too_large_to_check_whole_is_checked_batch_by_batch(tmp_path, monkeypatch):
    """A train.bin above loader.CHECKED_WHOLE tokens (2^30; 0 here) is not read whole when loaded:
    its windows are checked as they are drawn, so a token id beyond the vocabulary stops the run at
    the first batch that holds one."""
    from data import loader

    text_corpus(tmp_path, cut=False)
    tokens = np.fromfile(tmp_path / 'text' / 'train.bin', dtype=np.uint16)
    tokens[::8] = 300  # in every window of 16
    tokens.tofile(tmp_path / 'text' / 'train.bin')
    monkeypatch.setattr(loader, 'CHECKED_WHOLE', 0)
    keys = dict(
        task='text',
        encoding='bytes',
        data_dir=str(tmp_path / 'text'),
        out_dir=str(tmp_path / 'out'),
        run_name='r',
        n_layer=1,
        n_embd=32,
        block_size=16,
        max_iters=5,
        progress=False,
    )
    with pytest.raises(
        ConfigError, match='train.bin holds token ids outside the vocabulary of 257'
    ):
        train(keys)
    assert not (tmp_path / 'out' / 'r' / 'ckpt.pt').exists(), 'stopped at the first batch'


def test_an_experiment_checks_its_device_before_it_generates_data(tmp_path):
    """fair.py reads a task's data (generated when missing) before train.py would check the device:
    the harness checks --device first, so a mistake ends in one line, exit status 2, and generates
    nothing."""
    p = subprocess.run(
        [
            sys.executable,
            'experiments/mixit/algorithmic.py',
            '--smoke',
            '--device=gpu',
            f'--data_dir={tmp_path / "data"}',
            f'--out_dir={tmp_path / "out"}',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        p.returncode == 2
        and p.stderr == "error: device='gpu' is not one of 'auto', 'cpu', 'cuda', 'cuda:N', 'mps'\n"
    ), p.stderr
    assert not (tmp_path / 'data').exists() and not (tmp_path / 'out').exists()


def test_a_home_folder_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    result = train({**TINY, 'out_dir': '~/out', 'data_dir': '~/data', 'run_name': 'r'})
    assert (
        result['run_dir'] == str(tmp_path / 'home' / 'out' / 'r')
        and (tmp_path / 'home' / 'data').is_dir()
    )
    assert not list(Path.cwd().glob('~'))


def test_a_checkpoint_decides_neither_where_a_run_writes_nor_what_it_sends(tmp_path):
    """A checkpoint whose checksum was recomputed still cannot steer a resume: its config's out_dir,
    data_dir and wandb_* are not used (W&B would need the wandb package, not installed here, or
    would log to the network)."""
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    train(keys)
    path = tmp_path / 'out' / 'r' / 'ckpt.pt'
    ckpt = {k: v for k, v in load_checkpoint(path).items() if k not in ('sha256', 'file')}
    ckpt['config'] = {
        **ckpt['config'],
        'wandb_log': True,
        'wandb_project': 'theirs',
        'out_dir': str(tmp_path / 'x'),
    }
    checkpoint.save_checkpoint(ckpt, path)
    result = train({**keys, 'resume': True, 'max_iters': 9})
    assert (
        result['step'] == 9
        and result['run_dir'] == str(path.parent)
        and not (tmp_path / 'x').exists()
    )
    assert load_checkpoint(path)['config']['wandb_log'] is False


def test_the_same_config_run_again_keeps_the_run_there_until_it_is_as_far(tmp_path, monkeypatch):
    """A finished run's command typed again trains it anew, and its folder keeps the finished run
    (config.json, log.jsonl and ckpt.pt, byte for byte) until the new run reaches the finished
    one's step: stopped before that, it leaves the folder as it was and no temporary; run to the
    end, it takes the folder's place."""
    keys = {
        **TINY,
        'out_dir': str(tmp_path / 'out'),
        'data_dir': str(tmp_path / 'data'),
        'run_name': 'r',
    }
    train(keys)
    folder = tmp_path / 'out' / 'r'
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    record = checkpoint.Run.record

    def stopped(self, metrics, *args):
        record(self, metrics, *args)
        raise RuntimeError(
            'stopped'
        )  # at the first evaluation, step 3 of the 6 the finished run has

    monkeypatch.setattr(checkpoint.Run, 'record', stopped)
    with pytest.raises(RuntimeError, match='stopped'):
        train(keys)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    monkeypatch.undo()
    assert train(keys)['step'] == 6
    assert [
        json.loads(line)['step'] for line in (folder / 'log.jsonl').read_text().splitlines()
    ] == [3, 6]
    assert load_checkpoint(folder / 'ckpt.pt')['step'] == 6 and not list(folder.glob('*.tmp*'))


def test_wandb_missing_is_refused_before_anything_is_written(base, tmp_path, monkeypatch):
    monkeypatch.setitem(
        sys.modules, 'wandb', None
    )  # import wandb raises ImportError, installed or not
    shutil.copytree(base, tmp_path / 'case')
    before = {p: p.read_bytes() for p in (tmp_path / 'case' / 'out').rglob('*') if p.is_file()}
    for keys in (dict(run_name='new'), dict(run_name='done', resume=True, max_iters=9)):
        with pytest.raises(ConfigError, match='wandb_log=True needs the wandb package'):
            train(
                {
                    **TINY,
                    'out_dir': str(tmp_path / 'case' / 'out'),
                    'data_dir': str(tmp_path / 'case' / 'data'),
                    'wandb_log': True,
                    **keys,
                }
            )
    assert {
        p: p.read_bytes() for p in (tmp_path / 'case' / 'out').rglob('*') if p.is_file()
    } == before


@pytest.mark.parametrize(
    'command, message',
    [
        ('experiments/tools/trend.py ../train', "'../train' declares no TREND"),
        ('experiments/mixit/depth.py --smoke --at=sample=True', 'sample is not a key of every run'),
        (
            'experiments/tools/compare_runs.py {run} --out={d}/figure.xyz',
            r'--out=.*figure.xyz: name a file ending in one of',
        ),
        (
            'experiments/tools/compare_runs.py {run} --out={d}/file/figure.png',
            r'cannot write to .*/file/figure.png \(Not a directory\): set --out to a file in a '
            r'folder you can write',
        ),
        ('data/text/prepare.py --input= --encoding=bytes', '--input= names no file'),
        (
            'data/modular_addition/prepare.py --train_frac=nan --out_dir={d}/new',
            'train_frac=nan must be a finite number',
        ),
        ('data/retrieval/prepare.py --vocab=200000 --out_dir={d}/new', 'at most 65,536 tokens'),
        (
            'data/addition/prepare.py --n_train=1000000000000 --out_dir={d}/new',
            r'would take at least [\d,.]+ GiB, and this machine has [\d,.]+ GiB free: make it '
            r'smaller',
        ),
    ],
)
def test_other_command_lines_refuse_in_one_line(base, tmp_path, command, message):
    """The experiments' harness, trend.py, compare_runs.py and the prepare scripts: one line, exit
    status 2, and nothing made (no --out_dir folder)."""
    (tmp_path / 'file').write_text('x')
    argv = command.format(run=base / 'out' / 'done', d=tmp_path).split()
    p = subprocess.run(
        [sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 2 and p.stderr.startswith('error: ') and p.stderr.count('\n') == 1, (
        p.stderr
    )
    assert re.search(message, p.stderr), p.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ['file']


@pytest.mark.parametrize(
    'command',
    [
        'data/text/prepare.py',
        'data/khop/prepare.py',
        'experiments/mixit/depth.py',
        'experiments/tools/compare_runs.py out/x',
        'experiments/tools/trend.py depth',
    ],
)
def test_a_flag_no_command_line_knows_is_one_line(command):
    """argparse's own errors, as every other error: 'error: ...' and exit status 2, without usage
    lines before it."""
    p = subprocess.run(
        [sys.executable, *command.split(), '--no_such_flag=1'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and p.stderr.startswith('error: ') and p.stderr.count('\n') == 1, (
        p.stderr
    )
    assert '--no_such_flag' in p.stderr and not p.stdout


# ----------------------------------------------- processes that end, files that are what they claim


@pytest.mark.skipif(sys.platform != 'linux', reason='two gloo processes are exercised on Linux')
def test_a_two_process_resume_ends(tmp_path):
    """Each process of a finished two-process run exits, resumed or not. The group's destructor
    joined a gloo worker thread that waited for the GIL to free the last all-reduce's tensors (5 of
    9 resumes hung, deaf to SIGTERM): three resumes, each a chance for that race."""
    keys = {**TINY, 'out_dir': tmp_path / 'out', 'data_dir': tmp_path / 'data'}
    keys.update(run_name='r', gradient_accumulation_steps=2, max_iters=2, eval_interval=2)
    for i in range(4):
        argv = [f'--{k}={v}' for k, v in {**keys, 'max_iters': 2 + 2 * i}.items()]
        ended = two_processes(lambda rank: argv + ['--resume'] * (i > 0))
        assert [code for code, _ in ended] == [0, 0], ended
    steps = [json.loads(line)['step'] for line in (tmp_path / 'out' / 'r' / 'log.jsonl').open()]
    assert steps == [2, 4, 6, 8]


def launched(env, *argv, timeout=60):
    """train.py with `env` added to its environment (a launch by hand); -> the process."""
    clean = {k: v for k, v in os.environ.items() if k not in devices.LAUNCH}
    return subprocess.run(
        [sys.executable, 'train.py', *argv],
        cwd=ROOT,
        env={**clean, 'OMP_NUM_THREADS': '1', **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


PEERS = dict(LOCAL_RANK='0', MASTER_ADDR='127.0.0.1', MASTER_PORT='1')


@pytest.mark.parametrize(
    'env, message',
    [
        (dict(RANK='0'), r'RANK set, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT not: '),
        (dict(WORLD_SIZE='2'), r'WORLD_SIZE set, RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT not'),
        (dict(LOCAL_WORLD_SIZE='2'), r'LOCAL_WORLD_SIZE set, RANK, LOCAL_RANK, WORLD_SIZE, '),
        (dict(PEERS, RANK='one', WORLD_SIZE='2'), r"RANK='one' is not a whole number"),
        (dict(PEERS, RANK='2', WORLD_SIZE='2'), r'RANK=2, LOCAL_RANK=0, WORLD_SIZE=2, .* cannot'),
        (dict(PEERS, RANK='0', WORLD_SIZE='2', MASTER_PORT='70000'), r'.*=70000 cannot be one'),
    ],
)
def test_a_launch_by_hand_that_torchrun_would_not_make_is_one_line(tmp_path, env, message):
    """torchrun's variables set by hand, some missing or wrong: one line before anything waits."""
    p = launched(env, f'--out_dir={tmp_path / "out"}', f'--data_dir={tmp_path / "data"}')
    assert p.returncode == 2 and p.stderr.count('\n') == 1, p.stderr
    assert re.search('^error: ' + message, p.stderr), p.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.platform != 'linux', reason='gloo is exercised on Linux')
def test_a_process_whose_peers_never_come_stops_in_one_line_and_hears_sigterm(tmp_path):
    """RANK=0 of two, alone: it waits ddp_timeout seconds, then stops in one line (it waited 30
    minutes, deaf to SIGTERM); and a SIGTERM meanwhile ends it at once."""
    import socket

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = str(s.getsockname()[1])
    env = dict(PEERS, RANK='0', WORLD_SIZE='2', MASTER_PORT=port)
    argv = [f'--out_dir={tmp_path / "out"}', f'--data_dir={tmp_path / "data"}']
    p = launched(env, *argv, '--ddp_timeout=2')
    assert p.returncode == 2 and p.stderr.count('\n') == 1, p.stderr
    assert p.stderr.startswith('error: process 0 of 2 waited 2 s for the others'), p.stderr
    clean = {k: v for k, v in os.environ.items() if k not in devices.LAUNCH}
    waiting = subprocess.Popen(
        [sys.executable, 'train.py', *argv],
        cwd=ROOT,
        env={**clean, **env},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline:  # until it listens for its peer
            with socket.socket() as s:
                if s.connect_ex(('127.0.0.1', int(port))) == 0:
                    break
            time.sleep(0.2)
        waiting.send_signal(signal.SIGTERM)
        assert waiting.wait(timeout=10) == -signal.SIGTERM
    finally:
        waiting.kill()


@pytest.mark.log_by_hand
def test_a_last_log_line_without_its_newline_is_kept_on_resume(tmp_path):
    """A whole line that lacks only its newline (a hand edit) is kept; half a line, which a kill
    leaves, goes."""
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    keys.update(run_name='r', max_iters=4, eval_interval=2)
    train(keys)
    log = tmp_path / 'out' / 'r' / 'log.jsonl'
    log.write_bytes(log.read_bytes().rstrip(b'\n'))
    train({**keys, 'resume': True, 'max_iters': 6})
    assert [json.loads(line)['step'] for line in log.open()] == [2, 4, 6]
    log.write_bytes(log.read_bytes() + b'{"step": 8, "val_lo')  # killed while writing
    train({**keys, 'resume': True, 'max_iters': 8})
    assert [json.loads(line)['step'] for line in log.open()] == [2, 4, 6, 8]


@pytest.mark.parametrize(
    'sibling',
    ['nested', 'fifo', 'link'],
)
def test_resume_passes_over_a_sibling_config_that_is_not_a_run(tmp_path, sibling):
    """--resume without run_name reads its siblings' config.json to find the run: one nested
    thousands deep (RecursionError), a FIFO (a hang) or a link to another folder's (read through)
    is no run, and the run is found."""
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    train({**keys, 'max_iters': 2, 'eval_interval': 2})
    other = tmp_path / 'out' / 'other'
    other.mkdir()
    if sibling == 'nested':
        (other / 'config.json').write_text('[' * 100_000 + ']' * 100_000)
    elif sibling == 'fifo':
        os.mkfifo(other / 'config.json')
    else:
        (other / 'config.json').symlink_to(next((tmp_path / 'out').glob('add*/config.json')))
        (other / 'ckpt.pt').write_bytes(b'')
    with deadline(60):  # a FIFO read would block: fail, not hang
        metrics = train({**keys, 'max_iters': 4, 'eval_interval': 2, 'resume': True})
    assert metrics['step'] == 4 and Path(metrics['run_dir']).name != 'other'


@pytest.mark.log_by_hand
def test_compare_runs_reads_a_run_through_no_link_and_prints_no_foreign_line(tmp_path, capsys):
    """A log.jsonl linked to a file outside the run is refused without a word of that file; a log
    of numbers train.py never writes (NaN, Infinity, 1e999) is named, not drawn as inf%."""
    secret = tmp_path / 'secret'
    secret.write_text('root:SECRET-HASH:19000:0:99999:7:::\n')
    linked = tmp_path / 'linked'
    linked.mkdir()
    (linked / 'log.jsonl').symlink_to(secret)
    with pytest.raises(ConfigError, match='symbolic link') as e:
        checkpoint.read_log(linked)
    assert 'SECRET' not in str(e.value)
    for line in ('{"step": 2, "val_acc": Infinity}', '{"step": 2, "tokens": -1e999}'):
        odd = tmp_path / 'odd'
        odd.mkdir(exist_ok=True)
        (odd / 'log.jsonl').write_text(line + '\n')
        with pytest.raises(ConfigError, match='finite numbers') as e:
            checkpoint.read_log(odd)
        assert line[:12] not in str(e.value)


@pytest.mark.skipif(sys.platform != 'linux', reason='a file size limit stands in for a full disk')
def test_a_full_disk_while_writing_a_checkpoint_is_one_line(tmp_path):
    """torch.save on a full disk raises a RuntimeError, not an OSError: it was a traceback. A file
    size limit (RLIMIT_FSIZE, SIGXFSZ ignored) fails the checkpoint's write as a full disk would."""
    import resource

    argv = flags(tmp_path, run_name='r')
    subprocess.run(  # the task's data first, which the limit would stop
        [sys.executable, 'train.py', *flags(tmp_path, run_name='warm', max_iters=0)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))

    p = subprocess.run(
        [sys.executable, 'train.py', *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=limited,
        timeout=120,
    )
    assert p.returncode == 2 and p.stderr.count('\n') == 1, p.stderr
    assert re.fullmatch(
        r'error: cannot write to .*out/r \(torch.save could not write it, a full disk\): free '
        r'space on its disk, or set out_dir to a folder on another; no checkpoint saved\n',
        p.stderr,
    ), p.stderr
    assert sorted(f.name for f in (tmp_path / 'out' / 'r').iterdir()) == [
        '.lock',
        'config.json',
        'log.jsonl',
    ]


@pytest.mark.skipif(not Path('/proc/meminfo').exists(), reason='Linux tells the free memory')
def test_the_memory_a_cpu_run_may_take_is_what_is_free():
    """A batch is checked against the RAM free now (MemAvailable), not the machine's total (a 20 GB
    evaluation batch on a machine of 24 GB, most of it held, reached the allocator), plus what this
    process holds, which it reuses (a second seed in one process is not refused for the first's
    heap)."""
    meminfo = dict(line.split(':') for line in Path('/proc/meminfo').read_text().splitlines())
    free = int(meminfo['MemAvailable'].split()[0]) * 1024
    total = int(meminfo['MemTotal'].split()[0]) * 1024
    held = int(Path('/proc/self/statm').read_text().split()[1]) * os.sysconf('SC_PAGE_SIZE')
    assert abs(devices.device_memory('cpu') - free - held) < min(2**29, (total - free) / 2)


def test_a_launch_by_a_cluster_script_without_local_world_size_is_taken(monkeypatch):
    """torchrun sets LOCAL_WORLD_SIZE; a cluster's own launch may leave it out: every process on one
    machine, not a refusal of LOCAL_RANK 1."""
    for k in devices.LAUNCH + ('LOCAL_WORLD_SIZE',):
        monkeypatch.delenv(k, raising=False)
    env = dict(RANK='1', LOCAL_RANK='1', WORLD_SIZE='2', MASTER_ADDR='127.0.0.1', MASTER_PORT='1')
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert devices.launch() == (1, 2)


@pytest.mark.skipif(sys.platform != 'linux', reason='gloo is exercised on Linux')
def test_a_port_in_use_is_named_not_blamed_on_the_peers(tmp_path):
    """Rank 0 cannot listen on a port another program holds: the reason, at once, not a wait of
    ddp_timeout seconds blamed on peers that never came."""
    import socket

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        s.listen()
        port = str(s.getsockname()[1])
        p = launched(
            dict(PEERS, RANK='0', WORLD_SIZE='2', MASTER_PORT=port),
            f'--out_dir={tmp_path / "out"}',
            f'--data_dir={tmp_path / "data"}',
        )
    assert p.returncode == 2 and p.stderr.count('\n') == 1, p.stderr
    assert re.match(
        rf'error: process 0 of 2 cannot meet the others at 127.0.0.1:{port} \(', p.stderr
    )


# ------------------------------------ what a nanoGPT user does on day one: torchrun, threads, names


@pytest.mark.parametrize(
    'batch_size, accumulation, world', [(6, 1, 2), (6, 2, 4), (4, 3, 2), (6, 4, 6), (3, 4, 2)]
)
def test_processes_share_a_step_as_one_process_runs_it(batch_size, accumulation, world):
    """Each process's micro-batches (whole ones, or a piece of each where the processes outnumber
    the micro-batches: loader.layout) tile the batch one process trains on, in its order; and the
    average over the processes (DDP's) of their pieces' mean losses, each as train.py weighs it
    (where(weight > 0, loss, 0) * weight / micro-batches per process), is one process's loss: the
    mean over the micro-batches of each one's mean over its scored targets. A piece that scores
    nothing adds 0 (and a micro-batch that scores nothing is NaN, as one process's). Against a
    brute-force sum, with examples that score 0 to 5 targets."""
    from data import loader

    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 9, (50, 5), generator=g)
    y = torch.where(torch.rand(50, 5, generator=g) < 0.5, x, -1)
    local, size, pieces = loader.layout(batch_size, accumulation, world)
    y[loader.batch_indices(50, 0, batch_size * accumulation, 0)[:size]] = -1  # step 0: a piece

    def mean_loss(xb, yb):  # a loss per position, as a model's; model.py's mean over the scored
        return ((xb * 7 + torch.arange(5)) % 5).double()[yb != -1].mean()  # (NaN where none)

    cfg = dict(online=False, batch_size=batch_size, gradient_accumulation_steps=accumulation)
    cfg['seed'] = 0
    one = loader.batches(cfg, (x, y), 5, 'cpu')
    ranks = [loader.batches(cfg, (x, y), 5, 'cpu', rank, world) for rank in range(world)]
    empty = finite = 0
    for step in range(20):
        whole = one(step)
        assert [len(xb) for xb, _, _ in whole] == [batch_size] * accumulation
        mine = [r(step) for r in ranks]
        assert all(len(m) == local and all(len(xb) == size for xb, _, _ in m) for m in mine)
        # rank = group * pieces + piece; group q runs micro-batches q*local .. q*local + local - 1
        for m, (xb, yb, _) in enumerate(whole):
            q, i = divmod(m, local)
            parts = [mine[q * pieces + j][i] for j in range(pieces)]
            assert torch.equal(torch.cat([p[0] for p in parts]), xb)
            assert torch.equal(torch.cat([p[1] for p in parts]), yb)
            assert all(w is None for _, _, w in parts) == (pieces == 1)
            empty += sum((p[1] == -1).all().item() for p in parts) if pieces > 1 else 0
        target = sum(mean_loss(xb, yb) for xb, yb, _ in whole) / accumulation
        ddp = 0
        for m in mine:
            for xb, yb, w in m:
                loss = mean_loss(xb, yb)
                ddp += (loss if w is None else torch.where(w > 0, loss, 0.0) * w) / local
        assert torch.allclose(ddp / world, target, rtol=1e-6, atol=0, equal_nan=True), step
        finite += target.isfinite().item()
    assert (empty or pieces == 1) and finite > 10, 'the case tests nothing'


def test_a_split_that_does_not_divide_names_what_would():
    with pytest.raises(ConfigError) as e:
        layout(5, 1, 2)
    assert str(e.value).endswith(
        'use batch_size=4 or 6, or gradient_accumulation_steps=2 (a multiple of 2)'
    )
    assert str(e.value).startswith('batch_size=5 does not split between the 2 processes')
    assert layout(5, 2, 2) == (1, 5, 1) and layout(6, 2, 4) == (1, 3, 2)
    assert layout(6, 3, 2) == (3, 3, 2) and layout(8, 2, 8) == (1, 2, 4)


@pytest.mark.skipif(sys.platform != 'linux', reason='torchrun with gloo is exercised on Linux')
def test_torchrun_with_the_default_accumulation_trains_what_one_process_trains(tmp_path):
    """`torchrun --nproc_per_node=2` with the default gradient_accumulation_steps=1 (it was
    refused): each process trains half of every micro-batch, its mean loss weighted by its share of
    the micro-batch's scored targets, and the run ends with one process's weights, held-out numbers
    and logged train loss, to float32 rounding: not bit for bit, as the halves' gradients are
    summed in another order and a weight (scored in the half / scored in the micro-batch * 2) is
    rounded (within 1e-6 here; halves weighted 1, 0 where they score nothing, end 5e-4 apart).
    Addition in the text format scores 3 or 4 targets an example, and the first step's first half
    scores none (its y made -1 here): it adds 0, not NaN. A batch_size the processes cannot halve
    is one line from them."""
    from data import loader
    from data.synthetic import load_split

    keys = {**TINY, 'format': 'text', 'out_dir': str(tmp_path / 'out')}
    keys.update(data_dir=str(tmp_path / 'data'), max_iters=4, eval_interval=4, log_interval=1)
    keys['device'] = 'cpu'
    generate_missing(configurator.resolve(keys))
    half = loader.batch_indices(TINY['n_train'], 0, TINY['batch_size'], 0)[:8].numpy()
    npz(lambda x, y: (x, np.where(np.isin(np.arange(len(y)), half)[:, None], -1, y)))(tmp_path)
    scored = (load_split(tmp_path / 'data', 'train')[1] != -1).sum(1)
    assert set(scored[half]) == {0} and len(set(scored)) == 3  # 0 (made), 3 and 4 targets
    train({**keys, 'run_name': 'one'})
    p = torchrun_two(*[f'--{k}={v}' for k, v in {**keys, 'run_name': 'two'}.items()])
    assert p.returncode == 0, p.stderr[-3000:]
    a, b = (load_checkpoint(tmp_path / 'out' / r / 'ckpt.pt')['model'] for r in ('one', 'two'))
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=1e-6)
    la, lb = (json.loads((tmp_path / 'out' / r / 'log.jsonl').read_text()) for r in ('one', 'two'))
    assert la['train_loss'] == pytest.approx(lb['train_loss'], abs=1e-6)
    assert la['val_loss'] == pytest.approx(lb['val_loss'], abs=1e-6)
    bad = torchrun_two(*flags(tmp_path, batch_size=5, run_name='bad'))
    ours = [line for line in bad.stderr.splitlines() if line.startswith('error: ')]
    assert bad.returncode != 0 and len(ours) == 1, bad.stderr
    assert ours[0].endswith(
        'use batch_size=4 or 6, or gradient_accumulation_steps=2 (a multiple of 2)'
    )
    assert not (tmp_path / 'out' / 'bad').exists()


def torchrun_two(*argv, timeout=300):
    """`torchrun --standalone --nproc_per_node=2 train.py argv`, as a user types it (gloo on the
    CPU; torchrun sets OMP_NUM_THREADS=1 itself); -> the finished process."""
    clean = {k: v for k, v in os.environ.items() if k not in devices.LAUNCH}
    command = [sys.executable, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node=2']
    return subprocess.run(
        [*command, 'train.py', *map(str, argv)],
        cwd=ROOT,
        env={**clean, 'OMP_NUM_THREADS': '1'},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_cpu_run_takes_a_thread_per_physical_core_of_its_own(tmp_path, monkeypatch):
    """cpu_threads: the distinct (package, core) of the CPUs this process may use, over the
    processes torchrun started on this machine, at least 1; the affinity's count where a CPU's
    topology cannot be read; nothing where OMP_NUM_THREADS is set. Against a count by hand of a
    machine made up: 2 packages of 3 cores of 2 hyperthreads."""
    topology = {n: (n // 6, n % 6 // 2) for n in range(12)}  # cpu -> (package, core)
    for n, (package, core) in topology.items():
        (tmp_path / f'cpu{n}').mkdir()
        (tmp_path / f'cpu{n}' / 'physical_package_id').write_text(f'{package}\n')
        (tmp_path / f'cpu{n}' / 'core_id').write_text(f'{core}\n')
    monkeypatch.setattr(devices, 'CPU_TOPOLOGY', str(tmp_path / 'cpu{}'))
    for k in ('OMP_NUM_THREADS', 'LOCAL_WORLD_SIZE', 'WORLD_SIZE'):
        monkeypatch.delenv(k, raising=False)
    for cpus in ({0}, {0, 1}, {0, 2, 4}, {1, 2, 3, 6, 7}, set(range(12))):
        monkeypatch.setattr(os, 'sched_getaffinity', lambda pid, cpus=cpus: cpus)
        cores = len({topology[n] for n in cpus})
        for here in (None, '1', '2', '4'):
            if here:
                monkeypatch.setenv('LOCAL_WORLD_SIZE', here)
            assert devices.cpu_threads() == max(1, cores // int(here or 1)), (cpus, here)
        monkeypatch.delenv('LOCAL_WORLD_SIZE')
    monkeypatch.setenv('WORLD_SIZE', '2')  # a launch without LOCAL_WORLD_SIZE: all on one machine
    assert devices.cpu_threads() == 3
    monkeypatch.delenv('WORLD_SIZE')
    (tmp_path / 'cpu7' / 'core_id').unlink()  # a topology the kernel does not show
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: {6, 7, 8})
    assert devices.cpu_threads() == 3
    monkeypatch.setenv('OMP_NUM_THREADS', '5')
    assert devices.cpu_threads() is None


def test_a_run_of_no_steps_logs_its_evaluation_and_a_resume_at_its_end_writes_nothing(
    tmp_path, capsys
):
    """--max_iters=0 evaluates the initial weights and records it as any evaluation: a log line of
    step 0, which compare_runs reads, and a ckpt.pt of step 0. A resumed run with nothing left to
    train evaluates its weights, which already have their line and checkpoint: both stay byte for
    byte (its config.json takes the keys changed, as any resume's). The first line says the
    threads (OMP_NUM_THREADS's here, whatever the machine)."""
    argv = flags(tmp_path, run_name='r', max_iters=0)
    p = subprocess.run(
        [sys.executable, 'train.py', *map(str, argv)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, 'OMP_NUM_THREADS': '1'},
    )
    assert p.returncode == 0, p.stderr
    assert re.search(r', cpu float32, 1 thread, 1 process', p.stdout), p.stdout
    folder = tmp_path / 'out' / 'r'
    log = [json.loads(line) for line in (folder / 'log.jsonl').read_text().splitlines()]
    assert [line['step'] for line in log] == [0] and log[0]['tokens'] == 0
    assert load_checkpoint(folder / 'ckpt.pt')['step'] == 0
    tool = subprocess.run(
        [sys.executable, 'experiments/tools/compare_runs.py', folder, f'--out={tmp_path}/c.png'],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert tool.returncode == 0, tool.stderr
    row = next(line for line in tool.stdout.splitlines() if line.startswith('| r |'))
    assert row.split('|')[2].strip() == '0' and f'{log[0]["val_acc"]:.2%}' in row
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    train({**keys, 'run_name': 'done'})
    files = [tmp_path / 'out' / 'done' / name for name in ('ckpt.pt', 'log.jsonl')]
    before = [f.read_bytes() for f in files]
    for more in ({}, {'eval_examples': 50}, {'eval_split': 'train'}):
        metrics = train({**keys, 'run_name': 'done', 'resume': True, **more})
        assert metrics['step'] == TINY['max_iters'] and [f.read_bytes() for f in files] == before


def test_a_folder_name_that_leaves_keys_out_says_so(tmp_path, capsys):
    """A run named after its config shows its keys as far as NAME_CHARS (32) characters hold them,
    then how many it leaves out (',+Nmore'); its config.json holds them all and the hash tells
    configs apart that differ only in a key left out. The default run's problem is named as the
    default: 'dyck-standard', its keys given on top of it after it."""
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    many = dict(learning_rate=1e-3, min_lr=1e-4, beta2=0.99, grad_clip=0.5, weight_decay=0.01)
    many['max_iters'] = 0
    cfg = configurator.resolve({**keys, **many})
    every = configurator.name_keys(cfg)
    limit = checkpoint.NAME_CHARS
    name = configurator.run_dir_of(cfg).name
    shown = name[len('addition-') : name.rindex('-')].split(',')
    assert shown[-1] == f'+{len(every) - len(shown) + 1}more' and len(shown) > 2
    assert shown[:-1] == every[: len(shown) - 1] and len(','.join(shown[:-1])) <= limit
    assert len(','.join(every[: len(shown)])) > limit  # the next key would not fit
    names = {
        configurator.run_dir_of(configurator.resolve({**keys, **many, key: value})).name
        for key, value in (('grad_clip', 0.5), ('grad_clip', 0.25), ('weight_decay', 0.02))
    }
    assert len(names) == 3 and all(n.startswith(name[: name.rindex('-')]) for n in names)
    default = configurator.resolve({'out_dir': keys['out_dir']})  # DEFAULT_RUN's keys
    assert configurator.run_dir_of(default).name.rsplit('-', 1)[0] == 'dyck-standard'
    for more, shown_keys in (({'seed': 1}, 'seed=1'), ({'max_iters': 50}, 'max_iters=50')):
        short = configurator.resolve({'out_dir': keys['out_dir'], **more})
        assert (
            configurator.run_dir_of(short).name.rsplit('-', 1)[0] == f'dyck-standard,{shown_keys}'
        )
    train({**keys, **many})
    first = next(line for line in capsys.readouterr().out.splitlines() if 'trained of' in line)
    assert first.endswith(f'in {configurator.run_dir_of(cfg)}'), first
    saved = json.loads((configurator.run_dir_of(cfg) / 'config.json').read_text())
    assert all(saved[k] == v for k, v in many.items())  # every key left out of the name is there


def test_a_run_says_its_cost_before_its_first_step_and_its_time_to_the_end(tmp_path, capsys):
    """The run's second line: its steps, tokens a step and FLOPs (the model's own count,
    flops_per_token, times the tokens to train); after its first steps the measured time to the
    end, said once, with a line of its own when a CPU would take more than an hour."""
    keys = {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data')}
    metrics = train(keys)
    lines = capsys.readouterr().out.splitlines()
    cost = lines[lines.index(next(x for x in lines if 'trained of' in x)) + 1]
    T = int(re.search(r'length (\d+)', '\n'.join(lines)).group(1))
    model = load_checkpoint(Path(metrics['run_dir']) / 'ckpt.pt')['model_args']
    tokens = TINY['batch_size'] * T
    flops = GPT(GPTConfig(**model)).flops_per_token() * tokens
    assert cost == (
        f'{TINY["max_iters"]:,} steps of {tokens:,} tokens to train: '
        f'{flops * TINY["max_iters"]:.3g} FLOPs'
    )
    cfg = configurator.resolve({**keys, 'max_iters': 10**6})
    model = GPT(GPTConfig(**model))
    progress = train_module.Progress(cfg, 0, True, model, 1, T, 'float32')
    progress.first = (0, time.time() - 20)  # 20 s for 10 steps: 2 s a step, 10^6 steps
    progress.time_to_end(10)
    progress.time_to_end(20)  # said once
    progress.bar.close()
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and said[0].startswith('2 s a step over steps 0-10: about 23.1 days'), (
        said
    )
    assert said[0].endswith(
        'more than an hour on this CPU, and it runs on (a GPU is the place for it)'
    )


def test_sample_and_resume_by_keys_take_the_latest_run_and_point_to_one(tmp_path, capsys):
    """A run found by its keys where several have them (a run and its extension): the latest, said
    in one line (the keys' own folder, where it holds a run, is that run); keys no run there has:
    the error names the latest run's folder, as the command to type (nanoGPT's habit, python
    sample.py --out_dir=out, meets it)."""
    from sample import sample_text

    out = tmp_path / 'out'
    keys = {**TINY, 'out_dir': str(out), 'data_dir': str(tmp_path / 'data')}
    first = Path(train(keys)['run_dir'])
    extended = Path(train({**keys, 'resume': True, 'max_iters': 9})['run_dir'])
    capsys.readouterr()
    # its keys but max_iters, which an extension may change: both runs have them
    given = {k: v for k, v in keys.items() if k != 'max_iters'}
    texts = sample_text({**given, 'prompt': '1+1=', 'max_new_tokens': 2, 'num_samples': 1})
    err = capsys.readouterr().err
    assert len(texts) == 1 and err == (
        f'sample: {extended}, the latest of 2 runs with these keys (the others: {first.name}; '
        'give its folder to choose one)\n'
    )
    with pytest.raises(
        ConfigError, match=re.escape(f'the latest there: python sample.py --out_dir={extended}')
    ):
        sample_text({'out_dir': str(out), 'task': 'dyck'})

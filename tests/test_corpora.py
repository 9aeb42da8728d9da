"""
Checks of the corpora (data/corpus.py, data/<corpus>/prepare.py) on tiny corpora built here in each
source's own format, and of train.py's token-stream path: evaluation against a window-by-window
reference, reproducible batches, sampling. Tokens are byte-level (tiktoken's GPT-2 files need
internet); where text is cut into pieces, an encoding with GPT-2's own pre-tokenizer stands in.
"""

import contextlib
import csv
import http.server
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
import types
from pathlib import Path

import numpy as np
import pytest
import tiktoken
import torch
from torch.nn import functional as F

from data import corpus, local
from data.synthetic import ConfigError, load_split
from model import GPT, GPTConfig
from data.loader import eval_windows, get_batch
from data.loader import load_data
from test_tasks import data_of, eventually_no_temporaries, run_hostile
from configurator import resolve
from sample import sample_text
from train import train

ROOT = Path(__file__).resolve().parents[1]
BYTES = corpus.get_encoding('bytes')
EOT = BYTES.eot_token
TINY = dict(
    encoding='bytes',
    n_layer=1,
    n_head=2,
    n_embd=32,
    block_size=32,
    batch_size=8,
    max_iters=6,
    warmup_iters=1,
    eval_interval=6,
    log_interval=3,
    progress=False,
    device='cpu',
)


def gpt2_pattern_encoding():
    """GPT-2's pre-tokenizer with a few merges: enough to show where cutting text changes tokens."""
    from tiktoken_ext.openai_public import r50k_pat_str

    ranks = {bytes([i]): i for i in range(256)}
    for merge in [
        b'th',
        b'the',
        b' t',
        b' th',
        b' the',
        b'\n\n',
        b'  ',
        b'in',
        b'ing',
        b' a',
        b'an',
        b' an',
    ]:
        ranks[merge] = len(ranks)
    return tiktoken.Encoding(
        name='gpt2-pattern',
        pat_str=r50k_pat_str,
        mergeable_ranks=ranks,
        special_tokens={'<|endoftext|>': len(ranks)},
    )


def random_text(rng, n_words):
    words = [
        'the',
        'anthing',
        'Über',
        'naïve',
        '漢字',
        '42',
        '3.14',
        "don't",
        '--',
        '!?',
        '😀',
        'a\u0301',
        'x',
    ]
    seps = [' ', ' ', ' ', '  ', '\n', '\n\n', ' \n', '\t', '\r\n', '', '   \n\n ']
    return ''.join(rng.choice(words) + rng.choice(seps) for _ in range(n_words))


def docs_of(path):
    """The documents of a .bin file: decoded text between end-of-text tokens (each ends one)."""
    ids = np.fromfile(path, dtype=np.uint16).tolist()
    assert ids and ids[-1] == EOT, 'the last document ends with an end-of-text token'
    out, start = [], 0
    for i, t in enumerate(ids):
        if t == EOT:
            out.append(BYTES.decode(ids[start:i]))
            start = i + 1
    return out


# --------------------------------------------------------------------- sources, in their formats


def article(title, words):
    return (
        f' = {title} = \n \n {title} is a {words} of 1 @,@ 000 parts , '
        f'well @-@ known since 1 @.@ 5 . \n \n'
        f' = = Section of {title} = = \n \n More about {title} . \n \n'
    )


def make_wikitext(d):
    d.mkdir()
    arts = {
        'train': [article('Alpha', 'thing'), article('Beta', 'bird'), article('Γάμμα', 'tale')],
        'val': [article('Delta', 'river')],
        'test': [article('Eps', 'star'), article('Zeta', 'ship')],
    }
    for split, name in {'train': 'train', 'val': 'valid', 'test': 'test'}.items():
        (d / f'wiki.{name}.raw').write_text(' \n' + ''.join(arts[split]), encoding='utf-8')
    return arts


def yelp_rows(n, seed):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        label = rng.choice('12')
        text = (
            f'Review {i}, "quoted", {"great" if label == "2" else "awful"} food.\\nSecond line; '
            * rng.randint(1, 9)
        )
        rows.append((label, text))
    return rows


def make_yelp(d):
    d.mkdir()
    rows = {'train': yelp_rows(40, 0), 'test': yelp_rows(12, 1)}
    for split, rs in rows.items():
        with open(d / f'{split}.csv', 'w', newline='', encoding='utf-8') as f:
            csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rs)
    return rows


def prepared(task, tmp_path, source, name='out', **overrides):
    return corpus.prepare(task, {'encoding': 'bytes', **overrides}, source, tmp_path / name)


# --------------------------------------------------------------------- the tokenizer


def test_byte_encoding_round_trips_any_utf8():
    rng = random.Random(0)
    ranges = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]
    for _ in range(200):
        text = ''.join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(0, 300)))
        ids = BYTES.encode_ordinary(text)
        assert ids == list(text.encode('utf-8')) and BYTES.decode(ids) == text
    assert BYTES.n_vocab == 257 and EOT == 256
    assert EOT not in BYTES.encode_ordinary('<|endoftext|>'), 'text that spells the token is text'


def test_pieces_tokenize_exactly_like_the_whole_text():
    enc, rng = gpt2_pattern_encoding(), random.Random(1)
    for size in (1, 7, 40, 300):
        text = random_text(rng, 400)
        blocks = [text[i : i + 13] for i in range(0, len(text), 13)]
        pieces = list(corpus.pieces(blocks, size=size))
        assert ''.join(pieces) == text and len(pieces) > 1
        assert sum((enc.encode_ordinary(p) for p in pieces), []) == enc.encode_ordinary(text)
    # the brute-force reference itself can tell: cutting anywhere else changes the tokens
    assert enc.encode_ordinary('the\n\n') + enc.encode_ordinary('the') != enc.encode_ordinary(
        'the\n\nthe'
    )
    # text without a single space is still cut (inexactly) rather than held whole in memory
    assert len(list(corpus.pieces(['x' * 100] * 100, size=10))) > 1


# --------------------------------------------------------------------- each source


def test_wikitext(tmp_path):
    arts = make_wikitext(tmp_path / 'raw')
    out, meta = prepared('wikitext', tmp_path, tmp_path / 'raw')
    for split in ('train', 'val', 'test'):
        docs = docs_of(out / f'{split}.bin')
        expected = [
            (' \n' if i == 0 else '') + a for i, a in enumerate(arts[split])
        ]  # the file's first line
        assert docs == expected, (
            'one document per article, sections inside it, text exactly as released'
        )
        assert meta['tokens'][split] == len(BYTES.encode_ordinary(''.join(expected))) + len(
            expected
        )
        assert meta['documents'][split] == len(expected)
    assert (meta['format'], meta['encoding'], meta['vocab_size'], meta['eot']) == (
        'tokens',
        'bytes',
        257,
        256,
    )
    assert (
        meta['eval_split'] == 'val'
        and meta['source'] == str((tmp_path / 'raw').resolve())
        and meta['date']
    )


def test_text_file_and_directory(tmp_path):
    rng = random.Random(2)
    lines = [
        random_text(rng, rng.randint(1, 30)).replace('\n', ' ').replace('\r', ' ') + '\n'
        for _ in range(400)
    ]
    (tmp_path / 'src').mkdir()
    (tmp_path / 'src' / 'a.txt').write_text(''.join(lines), encoding='utf-8')
    second = 'Second book.\n' * 30 + 'Its last line.\n'
    (tmp_path / 'src' / 'b.txt').write_text(second, encoding='utf-8')
    (tmp_path / 'src' / 'notes.md').write_text('not a .txt file, not read')
    out, meta = prepared('text', tmp_path, tmp_path / 'src', val_fraction=0.1)
    train_docs, val_docs = docs_of(out / 'train.bin'), docs_of(out / 'val.bin')
    assert len(train_docs) == len(val_docs) == 2 and meta['documents'] == {'train': 2, 'val': 2}
    assert train_docs[0] + val_docs[0] == ''.join(lines), (
        'each file is its train part then its val tail'
    )
    assert val_docs[0] in {''.join(lines[i:]) for i in range(len(lines))}, (
        'the cut is at a line start'
    )
    assert 0.05 < len(val_docs[0].encode()) / len(''.join(lines).encode()) < 0.15
    assert train_docs[1] + val_docs[1] == second and val_docs[1] == 'Second book.\nIts last line.\n'
    # the same input and settings: byte-identical files; meta.json differs only in its date
    again, meta2 = prepared('text', tmp_path, tmp_path / 'src', name='again', val_fraction=0.1)
    for name in ('train.bin', 'val.bin'):
        assert (out / name).read_bytes() == (again / name).read_bytes()
    assert {**meta, 'date': 0} == {**meta2, 'date': 0}


def test_fineweb_jsonl_and_parquet(tmp_path):
    texts = [f'Document {i}: ' + 'é漢😀 word ' * (i + 1) for i in range(10)]
    (tmp_path / 'fw.jsonl').write_text(
        ''.join(json.dumps({'text': t, 'id': i}) + '\n' for i, t in enumerate(texts))
    )
    out, meta = prepared(
        'fineweb_edu', tmp_path, tmp_path / 'fw.jsonl', n_val_docs=2, n_train_docs=5
    )
    assert docs_of(out / 'val.bin') == texts[:2] and docs_of(out / 'train.bin') == texts[2:7]
    assert meta['tokens']['train'] == sum(len(t.encode()) + 1 for t in texts[2:7])
    pa = pytest.importorskip('pyarrow')
    import pyarrow.parquet as pq

    (tmp_path / 'pq').mkdir()
    pq.write_table(pa.table({'text': texts[:6]}), tmp_path / 'pq' / '000.parquet')
    pq.write_table(pa.table({'text': texts[6:]}), tmp_path / 'pq' / '001.parquet')
    out_pq, _ = prepared(
        'fineweb_edu', tmp_path, tmp_path / 'pq', name='pq', n_val_docs=2, n_train_docs=5
    )
    for name in ('train.bin', 'val.bin'):
        assert (out / name).read_bytes() == (out_pq / name).read_bytes()


def test_openwebtext_release_archives(tmp_path):
    """The release: openwebtext.tar.xz holds one .xz archive of .txt files per subset."""
    texts = [f'Web page {i}.\n' * (i + 1) for i in range(9)]
    outer = tarfile.open(tmp_path / 'openwebtext.tar.xz', 'w:xz')
    for part in (texts[:5], texts[5:]):
        inner = io.BytesIO()
        with tarfile.open(fileobj=inner, mode='w:xz') as tar:
            for t in part:
                info = tarfile.TarInfo(f'{texts.index(t):07d}-page.txt')
                info.size = len(t.encode())
                tar.addfile(info, io.BytesIO(t.encode()))
        info = tarfile.TarInfo(f'openwebtext/urlsf_subset0{texts.index(part[0])}_data.xz')
        info.size = len(inner.getvalue())
        outer.addfile(info, io.BytesIO(inner.getvalue()))
    outer.close()
    out, meta = prepared(
        'openwebtext', tmp_path, tmp_path / 'openwebtext.tar.xz', val_fraction=0.25, split='every'
    )
    assert docs_of(out / 'val.bin') == texts[0::4]
    assert docs_of(out / 'train.bin') == [t for i, t in enumerate(texts) if i % 4]


def test_yelp_examples(tmp_path):
    rows = make_yelp(tmp_path / 'csv')
    out, meta = prepared('yelp', tmp_path, tmp_path / 'csv')
    assert (
        meta['format'] == 'examples' and meta['eval_split'] == 'test' and meta['block_size'] == 256
    )
    assert meta['examples'] == {'train': 40, 'test': 12} and meta['sep'] == EOT
    labels = {'1': meta['labels']['-'], '2': meta['labels']['+']}
    assert meta['classes'] == [BYTES.encode_single_token('-'), BYTES.encode_single_token('+')], (
        'negative, positive'
    )
    for split in ('train', 'test'):
        x, y = load_split(out, split)
        assert x.shape == y.shape == (len(rows[split]), 256)
        for (label, text), xi, yi in zip(rows[split], x, y):
            ids = BYTES.encode_ordinary(text.replace('\\n', '\n'))[:255]
            sep = len(ids)
            assert xi[:sep].tolist() == ids and (xi[sep:] == EOT).all(), (
                'review, separator, padding'
            )
            assert np.flatnonzero(yi != -1).tolist() == [sep] and yi[sep] == labels[label]
    assert max(len(t) for _, t in rows['train']) > 255, 'the truncation is exercised'
    # straight from the release's .tgz: the same arrays
    with tarfile.open(tmp_path / 'yelp.tgz', 'w:gz') as tar:
        for split in ('train', 'test'):
            tar.add(tmp_path / 'csv' / f'{split}.csv', f'yelp_review_polarity_csv/{split}.csv')
    out_tgz, _ = prepared('yelp', tmp_path, tmp_path / 'yelp.tgz', name='tgz')
    for split in ('train', 'test'):
        assert all(
            (a == b).all() for a, b in zip(load_split(out, split), load_split(out_tgz, split))
        )


def test_an_interrupted_prepare_leaves_the_previous_files(tmp_path):
    src = tmp_path / 'src'
    src.mkdir()
    (src / 'a.txt').write_text('Some good text.\n' * 500)
    out, meta = prepared('text', tmp_path, src)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (src / 'b.txt').write_bytes(b'Latin-1 text: caf\xe9\n')  # fails after a.txt was tokenized
    with pytest.raises(ValueError, match='not UTF-8'):
        corpus.prepare('text', {'encoding': 'bytes'}, src, out, overwrite=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before, (
        'no half-written file, no .tmp left'
    )
    with pytest.raises(ValueError, match='too small'):
        prepared('text', tmp_path, tmp_path / 'src' / 'a.txt', name='tiny', val_fraction=0.0001)


def test_prepare_command_line(tmp_path):
    (tmp_path / 'a.txt').write_text('Hello there.\n' * 100)
    ok = subprocess.run(
        [
            sys.executable,
            'data/text/prepare.py',
            f'--input={tmp_path / "a.txt"}',
            '--encoding=bytes',
            f'--out_dir={tmp_path / "out"}',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0 and 'wrote' in ok.stdout and (tmp_path / 'out' / 'meta.json').exists()
    for bad, message in [
        ('--encoding=bpe', 'unknown encoding'),
        (f'--input={tmp_path / "nope"}', 'does not exist'),
    ]:
        given = [] if bad.startswith('--input') else [f'--input={tmp_path / "a.txt"}']
        out = subprocess.run(
            [sys.executable, 'data/text/prepare.py', *given, bad],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 2 and message in out.stderr and 'Traceback' not in out.stderr


# --------------------------------------------------------------------- bad input: one line, exit 2


def write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)


def parquet(path, **columns):
    pa = pytest.importorskip('pyarrow')
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), path)


def cut_parquet(d):
    parquet(d / 'in.parquet', text=[f'Document {i}.' for i in range(500)])
    write(d / 'in.parquet', (d / 'in.parquet').read_bytes()[:1500])


def yelp_tgz(d, files):
    """d/yelp.tgz holding files {name: bytes} under yelp_review_polarity_csv/, as the release."""
    with tarfile.open(d / 'yelp.tgz', 'w:gz', compresslevel=1) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f'yelp_review_polarity_csv/{name}')
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def yelp_with(d, train):
    """d/csv with test.csv as the release has it and train.csv of the bytes given."""
    make_yelp(d / 'csv')
    write(d / 'csv' / 'train.csv', train)


def xz_cut_short(d):
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode='w:xz') as tar:
        data = ''.join(f'Web page line {i}.\n' for i in range(2000)).encode()
        info = tarfile.TarInfo('0000001-page.txt')
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    write(d / 'owt' / 'urlsf_subset00_data.xz', archive.getvalue()[: len(archive.getvalue()) // 2])


def full_disk(d):
    """Runs the command with files limited to 4 KB: a write past that fails with EFBIG (SIGXFSZ
    ignored, as CPython does), as a full disk's with ENOSPC: the same OSError on the same path."""
    write(d / 'a.txt', 'Hello there.\n' * 1000)
    return dict(
        preexec_fn=lambda: (
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN),
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)),
        )
    )


def args(d, source, *more, out='out'):
    """A corpus's command line: --input=d/source, offline tokens, written to d/out."""
    return [f'--input={d / source}', '--encoding=bytes', f'--out_dir={d / out}', *more]


FEW = ('--n_val_docs=1', '--n_train_docs=2')
LATIN1 = b'caf\xe9 cr\xe8me'

# (case, prepare script, argv from the case's folder d, what to build first, what the message must
# say). d/out holds a good prepare's files beforehand; a setup that returns a dict (full_disk) gives
# options for subprocess.run.
BAD_INPUT = [
    # 1. a Parquet file without a "text" column
    (
        'Parquet without a text column',
        'fineweb_edu',
        lambda d: args(d, 'in.parquet', *FEW),
        lambda d: parquet(d / 'in.parquet', body=['a', 'b'], id=[1, 2]),
        r'in.parquet has no "text" column \(its columns: body, id\): '
        r'give files with the text in a "text" column',
    ),
    # 2. a text that is not a string
    (
        'JSONL text a number',
        'fineweb_edu',
        lambda d: args(d, 'in.jsonl', *FEW),
        lambda d: write(d / 'in.jsonl', '{"text": "fine"}\n{"text": 5}\n'),
        r'in.jsonl:2 has a "text" of int, not a string: '
        r'fix that record, or leave the file out of --input',
    ),
    (
        'JSONL text null',
        'openwebtext',
        lambda d: args(d, 'in.jsonl'),
        lambda d: write(d / 'in.jsonl', '{"text": "fine"}\n\n{"text": null}\n'),
        r'in.jsonl:3 has a "text" of null',
    ),
    (
        'Parquet text of ints',
        'openwebtext',
        lambda d: args(d, 'in.parquet'),
        lambda d: parquet(d / 'in.parquet', text=[7, 8]),
        r'in.parquet row 1 has a "text" of int, not a string',
    ),
    (
        'JSONL nested 10^5 deep',
        'fineweb_edu',
        lambda d: args(d, 'in.jsonl', *FEW),
        lambda d: write(d / 'in.jsonl', '[' * 100_000),
        r'in.jsonl:1 is not a JSON object with a "text" field',
    ),
    # 3. a damaged Parquet file
    (
        'Parquet of random bytes',
        'fineweb_edu',
        lambda d: args(d, 'in.parquet', *FEW),
        lambda d: write(d / 'in.parquet', random.Random(0).randbytes(3000)),
        r'in.parquet is not a readable Parquet file \(.*\): '
        r'download it again, or leave it out of --input',
    ),
    (
        'Parquet cut short',
        'fineweb_edu',
        lambda d: args(d, 'in.parquet', *FEW),
        cut_parquet,
        r'in.parquet is not a readable Parquet file',
    ),
    # 4. a Yelp archive without a split, or damaged; other damaged archives
    (
        'Yelp .tgz without test.csv',
        'yelp',
        lambda d: args(d, 'yelp.tgz'),
        lambda d: yelp_tgz(d, {'train.csv': b'"1","Bad."\n', 'readme.txt': b'Yelp.\n'}),
        r'yelp.tgz holds no test.csv: '
        r"give the release's yelp_review_polarity_csv.tgz, or a directory with",
    ),
    (
        'Yelp .tgz cut short',
        'yelp',
        lambda d: args(d, 'yelp.tgz'),
        lambda d: (
            make_yelp(d / 'csv'),
            yelp_tgz(d, {f: (d / 'csv' / f).read_bytes() for f in ('train.csv', 'test.csv')}),
            write(d / 'yelp.tgz', (d / 'yelp.tgz').read_bytes()[:300]),
        ),
        r'yelp.tgz is not a readable tar archive \(.*\): '
        r'download it again, or leave it out of --input',
    ),
    (
        'empty .tgz',
        'yelp',
        lambda d: args(d, 'yelp.tgz'),
        lambda d: write(d / 'yelp.tgz', b''),
        r'yelp.tgz is not a readable tar archive \(empty file\)',
    ),
    (
        'OpenWebText .xz cut short',
        'openwebtext',
        lambda d: args(d, 'owt'),
        xz_cut_short,
        r'urlsf_subset00_data.xz is not a readable tar archive \(.*\): download it again',
    ),
    # 5. CSV: a review over python's default 128 KB is read; a row that is not CSV at all is named
    (
        'Yelp review of 200 KB, then a bad label',
        'yelp',
        lambda d: args(d, 'csv'),
        lambda d: yelp_with(d, f'"1","{"Long. " * 40_000}"\n"3","Bad label."\n'),
        r'csv/train.csv row 2 is not "label","text" with label 1 or 2',
    ),
    (
        'Yelp field of 16M characters (an unclosed quote)',
        'yelp',
        lambda d: args(d, 'yelp.tgz'),
        lambda d: yelp_tgz(
            d, {'train.csv': b'"1","' + b'x' * 2**24 + b'\n', 'test.csv': b'"1","Bad."\n'}
        ),
        r'yelp.tgz/yelp_review_polarity_csv/train.csv row 1 \(line 1\) '
        r'is not CSV \(field larger than field limit',
    ),
    # 6. an output folder that cannot be written, a full disk, an input that cannot be read
    (
        'out_dir inside a file',
        'text',
        lambda d: args(d, 'a.txt', out='file/out'),
        lambda d: (write(d / 'a.txt', 'Hello.\n' * 50), write(d / 'file', 'x')),
        r'cannot write to .*file/out \(Not a directory\): set --out_dir to a folder you can write',
    ),
    (
        'synthetic out_dir inside a file',
        'addition',
        lambda d: ['--n_train=50', '--n_test=5', f'--out_dir={d}/file/out'],
        lambda d: write(d / 'file', 'x'),
        r'cannot write to .*file/out \(Not a directory\): set --out_dir',
    ),
    (
        'full disk',
        'text',
        lambda d: args(d, 'a.txt'),
        full_disk,
        r'cannot write to .*out \(File too large\): '
        r'free space on its disk, or set --out_dir to a folder on another',
    ),
    (
        'synthetic full disk',
        'addition',
        lambda d: ['--n_train=500', '--n_test=50', f'--out_dir={d / "out"}'],
        full_disk,
        r'cannot write to .*out \(File too large\): free space on its disk',
    ),
    (
        'input that cannot be read',
        'yelp',
        lambda d: args(d, 'csv'),
        lambda d: (
            make_yelp(d / 'csv'),
            (d / 'csv' / 'train.csv').unlink(),
            (d / 'csv' / 'train.csv').mkdir(),
        ),
        r'cannot read .*csv/train.csv \(Is a directory\): give --input files you can read',
    ),
    # 7. text that is not UTF-8
    (
        'JSONL not UTF-8',
        'fineweb_edu',
        lambda d: args(d, 'in.jsonl', *FEW),
        lambda d: write(d / 'in.jsonl', b'{"text": "fine"}\n{"text": "' + LATIN1 + b'"}\n'),
        r'in.jsonl:2 is not UTF-8 text \(invalid continuation byte\): '
        r'convert it first, e.g. iconv -f latin1 -t utf-8',
    ),
    (
        'WikiText not UTF-8',
        'wikitext',
        lambda d: args(d, 'raw'),
        lambda d: (
            make_wikitext(d / 'raw'),
            write(d / 'raw' / 'wiki.valid.raw', b' \n = T = \n ' + LATIN1 + b' \n'),
        ),
        r'raw/wiki.valid.raw:3 is not UTF-8 text \(invalid continuation byte\): convert it first',
    ),
    (
        'Yelp CSV not UTF-8',
        'yelp',
        lambda d: args(d, 'csv'),
        lambda d: yelp_with(d, b'"2","Fine."\n"1","' + LATIN1 + b'"\n'),
        r'csv/train.csv:2 is not UTF-8 text',
    ),
    (
        'text not UTF-8',
        'text',
        lambda d: args(d, 'a.txt'),
        lambda d: write(d / 'a.txt', LATIN1),
        r'a.txt is not UTF-8 text \(invalid continuation byte\): convert it first',
    ),
    # 8. a folder of another tool's data; splits with nothing in them
    (
        "nanoGPT's data folder",
        'text',
        lambda d: args(d, 'a.txt', out='nano'),
        lambda d: (
            write(d / 'a.txt', 'Hello.\n' * 50),
            *(write(d / 'nano' / f, b'\0\0') for f in ('train.bin', 'val.bin', 'meta.pkl')),
        ),
        r'nano holds train.bin and no meta.json, data not prepared here: choose another --out_dir',
    ),
    (
        'Yelp with an empty test split',
        'yelp',
        lambda d: args(d, 'csv'),
        lambda d: (make_yelp(d / 'csv'), write(d / 'csv' / 'test.csv', '')),
        r'test.csv holds no reviews: give the whole Yelp split',
    ),
    (
        'FineWeb with empty held-out documents',
        'fineweb_edu',
        lambda d: args(d, 'in.jsonl', *FEW),
        lambda d: write(d / 'in.jsonl', '{"text": ""}\n{"text": "fine"}\n{"text": "good"}\n'),
        r'in.jsonl gives no val text \(no documents, or empty ones\)',
    ),
    (
        'an empty text',
        'text',
        lambda d: args(d, 'a.txt'),
        lambda d: write(d / 'a.txt', ''),
        r'a.txt gives no train or val text \(no documents, or empty ones\).*give --input a larger',
    ),
    # local text has no download: no --input is one line, and --input= says so
    (
        'text without --input',
        'text',
        lambda d: ['--encoding=bytes', f'--out_dir={d / "new"}'],
        lambda d: None,
        r'the text task has no download: give --input=FILE_OR_DIRECTORY',
    ),
    (
        'text with --input=',
        'text',
        lambda d: ['--input=', '--encoding=bytes', f'--out_dir={d / "new"}'],
        lambda d: None,
        r'--input= names no file: give a file or a folder\n',
    ),
    # a FIFO among the folder's files would block the read; skipped, it would be a document less
    (
        'a FIFO in the input folder',
        'text',
        lambda d: args(d, 'src'),
        lambda d: (write(d / 'src' / 'a.txt', 'Hello.\n' * 50), os.mkfifo(d / 'src' / 'f.txt')),
        r'--input .*src/f.txt is not a regular file \(a FIFO, a device, a broken link\)',
    ),
    # the same task's data of another input, which a run may train on: --overwrite replaces it
    (
        'another input into prepared text',
        'text',
        lambda d: args(d, 'b.txt', out='earlier'),
        lambda d: (
            write(d / 'b.txt', 'Another text.\n' * 50),
            shutil.copytree(d / 'out', d / 'earlier'),
        ),
        r'earlier holds text data of another input, which a run may train on: choose another '
        r'--out_dir, or add --overwrite',
    ),
]


@pytest.fixture(scope='module')
def good_out(tmp_path_factory):
    d = tmp_path_factory.mktemp('good')
    (d / 'a.txt').write_text('A good text.\n' * 100)
    return corpus.prepare('text', {'encoding': 'bytes'}, d / 'a.txt', d / 'out')[0]


@pytest.mark.parametrize(
    'script, argv, setup, message', [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT]
)
def test_bad_input_is_one_line_with_exit_code_2(good_out, tmp_path, script, argv, setup, message):
    """The real command line: one line on stderr, exit status 2, and nothing written: every file of
    the case's folder (the input, d/out's earlier data) as it was, no temporary file left."""
    d = tmp_path / 'case'
    shutil.copytree(good_out, d / 'out')
    meta = json.loads((d / 'out' / 'meta.json').read_text())
    # earlier data of the script's own task, which --overwrite lets the case replace (data made
    # otherwise is refused before any input is read): kept all the same where the prepare fails
    (d / 'out' / 'meta.json').write_text(json.dumps({**meta, 'task': script}))
    options = setup(d)
    before = {p: p.read_bytes() for p in d.rglob('*') if p.is_file()}
    argv = [*map(str, argv(d))]
    argv += ['--overwrite'] if f'--out_dir={d / "out"}' in argv else []
    r = subprocess.run(
        [sys.executable, f'data/{script}/prepare.py', *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        **(options if isinstance(options, dict) else {}),
    )
    assert r.returncode == 2, r.stderr
    assert (
        r.stderr.startswith('error: ') and r.stderr.count('\n') == 1 and 'Traceback' not in r.stderr
    ), r.stderr
    assert re.search(message, r.stderr), r.stderr
    assert {p: p.read_bytes() for p in d.rglob('*') if p.is_file()} == before, 'nothing written'
    assert not [p for p in d.rglob('*.tmp*')]


# --------------------------------------------------------------------- train.py on a corpus


@pytest.fixture(scope='module')
def text_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp('text')
    rng = random.Random(3)
    (d / 'book.txt').write_text(
        ''.join(random_text(rng, 20) + '\n' for _ in range(300)), encoding='utf-8'
    )
    out, _ = corpus.prepare('text', {'encoding': 'bytes'}, d / 'book.txt', d / 'data')
    return out


def test_eval_windows_cover_every_token_once():
    tokens = np.arange(100, dtype=np.uint16)
    x, y = eval_windows(tokens, 16)
    assert x.shape == y.shape == (7, 16)
    scored = y != -1
    assert y[scored].tolist() == list(range(1, 100)) and x[scored].tolist() == list(range(99))
    assert (x[:, 1:][scored[:, 1:]] == y[:, :-1][scored[:, 1:]]).all(), (
        'x is y shifted within a window'
    )


def test_token_batches_are_a_function_of_seed_and_step(text_dir):
    tokens = np.memmap(text_dir / 'train.bin', dtype=np.uint16, mode='r')
    x, y = get_batch(tokens, 5, 8, 32, seed=0)
    assert x.shape == (8, 32) and (x[:, 1:] == y[:, :-1]).all()
    assert all(torch.equal(a, b) for a, b in zip((x, y), get_batch(tokens, 5, 8, 32, seed=0)))
    assert not torch.equal(x, get_batch(tokens, 6, 8, 32, seed=0)[0])
    whole = torch.from_numpy(tokens.astype(np.int64))
    for row in x:  # every window is a stretch of the stream
        starts = (whole[: len(whole) - 32] == row[0]).nonzero().flatten()
        assert any(torch.equal(whole[s : s + 32], row) for s in starts)


def test_corpus_training_reports_the_log_perplexity_of_the_whole_split(tmp_path, text_dir):
    metrics = train(dict(TINY, task='text', data_dir=str(text_dir), out_dir=str(tmp_path)))
    ckpt = torch.load(Path(metrics['run_dir']) / 'ckpt.pt', weights_only=True)
    model = GPT(GPTConfig(**ckpt['model_args']))
    model.load_state_dict(ckpt['model'])
    model.eval()
    val = torch.from_numpy(np.fromfile(text_dir / 'val.bin', dtype=np.uint16).astype(np.int64))
    total, count = 0.0, 0
    # reference: window by window, one after the other, the short last one too
    with torch.no_grad():
        for start in range(0, len(val) - 1, 32):
            chunk = val[start : start + 33]
            logits, _ = model(chunk[:-1][None], chunk[1:][None])
            total += F.cross_entropy(logits[0], chunk[1:], reduction='sum').item()
            count += len(chunk) - 1
    assert count == len(val) - 1 and metrics['val_loss'] == pytest.approx(total / count, rel=1e-5)
    assert metrics['eval_split'] == 'val' and metrics['eval_tokens_per_s'] > 0


def test_corpus_resume_is_exact(tmp_path, text_dir):
    def run(**kw):
        return train(dict(TINY, task='text', data_dir=str(text_dir), out_dir=str(tmp_path), **kw))

    run(run_name='whole')
    # the same schedule as 'whole'
    run(run_name='split', max_iters=3, eval_interval=3, lr_decay_iters=6)
    run(run_name='split', resume=True)
    a, b = (
        torch.load(tmp_path / n / 'ckpt.pt', weights_only=True)['model'] for n in ('whole', 'split')
    )
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_resume_refuses_a_corpus_prepared_again_from_an_edited_input(tmp_path):
    """The same file edited (the same size, so the same token counts) and prepared again into the
    run's data folder (--overwrite: refused without): the run's checkpoint holds the meta.json it
    trained on, whose input_sha256 differs, so the resume is refused rather than trained on the
    other text."""
    src = tmp_path / 'book.txt'
    src.write_text('The cat sat on the mat.\n' * 200)
    data = tmp_path / 'data'
    corpus.prepare('text', {'encoding': 'bytes'}, src, data)
    keys = dict(TINY, task='text', data_dir=str(data), out_dir=str(tmp_path / 'out'), run_name='r')
    train(keys)
    src.write_text('The dog sat on the mat.\n' * 200)
    # refused where the run's data is, unless told: then the resume refuses the other text
    with pytest.raises(ValueError, match='data holds text data of another input'):
        corpus.prepare('text', {'encoding': 'bytes'}, src, data)
    corpus.prepare('text', {'encoding': 'bytes'}, src, data, overwrite=True)
    with pytest.raises(ConfigError, match=r'is not what this run trained on \(input_sha256'):
        train({**keys, 'resume': True, 'max_iters': TINY['max_iters'] + 2})


@pytest.mark.parametrize('variant', ['standard', 'mixit'])
def test_sampling_from_a_checkpoint(tmp_path, text_dir, variant):
    keys = dict(TINY, task='text', data_dir=str(text_dir), out_dir=str(tmp_path), variant=variant)
    train(keys)
    texts = sample_text(dict(keys, prompt='the naïve', num_samples=2, max_new_tokens=10))
    assert len(texts) == 2 and all(t.startswith('the naïve') for t in texts)
    assert sample_text(dict(keys, prompt='the naïve', num_samples=2, max_new_tokens=10)) == texts, (
        'seeded'
    )
    with pytest.raises(ConfigError, match='block_size=32'):
        sample_text(dict(keys, prompt='x' * 33))


def test_yelp_accuracy_is_over_the_whole_test_split(tmp_path):
    make_yelp(tmp_path / 'csv')
    out, _ = corpus.prepare('yelp', {'encoding': 'bytes'}, tmp_path / 'csv', tmp_path / 'data')
    metrics = train(dict(TINY, task='yelp', data_dir=str(out), out_dir=str(tmp_path), block_size=0))
    ckpt = torch.load(Path(metrics['run_dir']) / 'ckpt.pt', weights_only=True)
    model = GPT(GPTConfig(**ckpt['model_args']))
    model.load_state_dict(ckpt['model'])
    x, y = (torch.from_numpy(a) for a in load_split(out, 'test'))
    with torch.no_grad():
        logits, _ = model.eval()(x, y)
    sep = (y != -1).int().argmax(1)
    right = logits[torch.arange(len(x)), sep].argmax(-1) == y[torch.arange(len(x)), sep]
    assert metrics['eval_split'] == 'test' and metrics['val_acc'] == pytest.approx(
        right.float().mean().item()
    )


def test_yelp_as_a_classifier(tmp_path, text_dir):
    """classify=True, the authors' framing: a head of 2 outputs (negative, positive) read at the
    review's last token (the one before the separator, as their classifier reads the last token that
    is not padding), softmax attention causal as their code ran, the end-of-text (padding,
    separator) embedding row zero. The targets are the CSV's label column as class indices, training
    and held-out alike; the accuracy is the checkpoint's, recomputed example by example. Data
    without classes is refused."""
    rows = make_yelp(tmp_path / 'csv')
    out, _ = corpus.prepare('yelp', {'encoding': 'bytes'}, tmp_path / 'csv', tmp_path / 'data')
    keys = dict(
        TINY,
        task='yelp',
        data_dir=str(out),
        out_dir=str(tmp_path / 'out'),
        block_size=0,
        classify=True,
    )
    meta, (x_train, y_train), (x_test, y_test), T = load_data(resolve(keys))
    for split, y in (('train', y_train), ('test', y_test)):
        x_raw, y_raw = load_split(out, split)
        sep = torch.from_numpy(y_raw != -1).int().argmax(1)
        assert (y != -1).int().argmax(1).equal(sep - 1), (
            'one scored position per review, before its separator'
        )
        assert y[y != -1].tolist() == [int(label) - 1 for label, _ in rows[split]]
    metrics = train(keys)
    assert Path(metrics['run_dir']).name.startswith('yelp-standard,classify=True')
    ckpt = torch.load(Path(metrics['run_dir']) / 'ckpt.pt', weights_only=True)
    assert ckpt['model_args']['n_classes'] == 2 and ckpt['model_args']['causal'] is True
    assert (
        ckpt['model_args']['pad_token'] == meta['sep']
        and ckpt['model']['wte.weight'][meta['sep']].eq(0).all()
    )
    model = GPT(GPTConfig(**ckpt['model_args']))
    model.load_state_dict(ckpt['model'])
    model.eval()
    assert model.lm_head.weight.shape[0] == 2
    rows_ = torch.arange(len(x_test))
    read = (y_test != -1).int().argmax(1)
    with torch.no_grad():
        logits, _ = model(x_test, y_test)
        short = rows_[read < 254]  # reviews with padding after the separator
        later = x_test.clone()
        # a token after the separator
        later[short, read[short] + 2] = BYTES.encode_single_token('x')
        changed = model(later, y_test)[0][short, read[short]]
    assert logits.shape == (len(x_test), 256, 2) and len(short)
    assert torch.equal(changed, logits[short, read[short]]), (
        'causal: the read position sees no later token'
    )
    right = logits[rows_, read].argmax(-1) == y_test[rows_, read]
    assert 0 <= metrics['val_acc'] <= 1 and metrics['val_acc'] == pytest.approx(
        right.float().mean().item()
    )
    meta_path = out / 'meta.json'  # data prepared before meta.json listed its classes
    meta_path.write_text(json.dumps({k: v for k, v in meta.items() if k != 'classes'}))
    with pytest.raises(
        ConfigError,
        match='lists no classes .made by an older prepare.py.: run python '
        'data/yelp/prepare.py again',
    ):
        train({**keys, 'run_name': 'old'})
    with pytest.raises(
        ConfigError, match='needs a task whose meta.json lists its classes .yelp.; text has none'
    ):
        train(
            dict(
                TINY,
                task='text',
                data_dir=str(text_dir),
                out_dir=str(tmp_path / 'out'),
                classify=True,
            )
        )


def test_missing_or_damaged_corpus_says_what_to_run(tmp_path, text_dir):
    with pytest.raises(ConfigError, match=r'python data/wikitext/prepare.py --encoding=bytes'):
        train(dict(TINY, task='wikitext', data_dir=str(tmp_path / 'none')))
    damaged = tmp_path / 'damaged'
    damaged.mkdir()
    for f in text_dir.iterdir():
        (damaged / f.name).write_bytes(f.read_bytes())
    (damaged / 'val.bin').write_bytes((text_dir / 'val.bin').read_bytes()[:-2])
    with pytest.raises(ConfigError, match='meta.json says'):
        train(dict(TINY, task='text', data_dir=str(damaged), out_dir=str(tmp_path)))
    # the same corpus prepared in another encoding beside the folder asked for: named, by its flag
    # beside it, or in it (the default folder data/text holds data/text/encoding=bytes)
    for beside in (text_dir.parent / 'encoding=gpt2', text_dir.parent):
        with pytest.raises(
            ConfigError, match=r'or train on the data prepared beside it: --encoding=bytes$'
        ):
            train(
                dict(
                    TINY, task='text', encoding='gpt2', data_dir=str(beside), out_dir=str(tmp_path)
                )
            )


# --------------------------------------------------------------------- the download paths
# No test machine reaches the Hub or S3, so each download path runs against a local stand-in that
# serves rows (or the archive) in the real source's format; the tests check that the scripts ask for
# the real dataset names and write exactly the stand-in's documents.


def fake_datasets(monkeypatch, rows):
    """Installs a stand-in for Hugging Face's `datasets` whose load_dataset yields rows[split] one
    at a time; -> its calls, each a dict of the arguments and of how many rows were read."""
    calls = []

    def load_dataset(path, name=None, split=None, streaming=False, **others):
        call = dict(path=path, name=name, split=split, streaming=streaming, **others, read=0)
        calls.append(call)

        def stream():
            for row in rows[split]:
                call['read'] += 1
                yield row

        return stream()

    fake = types.ModuleType('datasets')
    fake.load_dataset = load_dataset
    monkeypatch.setitem(sys.modules, 'datasets', fake)
    return calls


def byte_stream(texts):
    """The expected token stream, by hand: each document's UTF-8 bytes, then end-of-text."""
    return [t for text in texts for t in [*text.encode('utf-8'), EOT]]


def tokens_of(path):
    return np.fromfile(path, dtype=np.uint16).tolist()


def test_wikitext_download(tmp_path, monkeypatch):
    arts = make_wikitext(tmp_path / 'raw')
    rows = {}
    for split, name in {'train': 'train', 'validation': 'valid', 'test': 'test'}.items():
        lines = io.StringIO((tmp_path / 'raw' / f'wiki.{name}.raw').read_text(encoding='utf-8'))
        rows[split] = [
            {'text': line if line.strip() else ''} for line in lines
        ]  # the Hub's blank lines are ''
    calls = fake_datasets(monkeypatch, rows)
    out, _ = prepared('wikitext', tmp_path, None)
    assert calls == [
        dict(
            path='Salesforce/wikitext',
            name='wikitext-103-raw-v1',
            split=split,
            streaming=False,
            read=len(rows[split]),
        )
        for split in ('train', 'validation', 'test')
    ]
    for split in ('train', 'val', 'test'):
        expected = [
            ' \n' + arts[split][0],
            *arts[split][1:],
        ]  # as from the released files: blank lines kept
        assert tokens_of(out / f'{split}.bin') == byte_stream(expected)


def test_fineweb_download(tmp_path, monkeypatch):
    texts = [
        f'Lesson {i}.\n\nPhotosynthesis: 6 CO₂ + 6 H₂O → C₆H₁₂O₆ + 6 O₂. ' * (i + 1)
        for i in range(8)
    ]
    rows = [
        dict(
            text=t,
            id=f'<urn:uuid:{i}>',
            dump='CC-MAIN-2024-10',
            url=f'https://example.org/{i}',
            language='en',
            score=3.2,
            int_score=3,
        )
        for i, t in enumerate(texts)
    ]
    calls = fake_datasets(monkeypatch, {'train': rows})
    out, _ = prepared('fineweb_edu', tmp_path, None, n_val_docs=2, n_train_docs=4)
    # sample-10BT is far larger than any run needs: the stream is read only up to the documents kept
    assert calls == [
        dict(
            path='HuggingFaceFW/fineweb-edu',
            name='sample-10BT',
            split='train',
            streaming=True,
            read=6,
        )
    ]
    assert tokens_of(out / 'val.bin') == byte_stream(texts[:2])
    assert tokens_of(out / 'train.bin') == byte_stream(texts[2:6])


def test_openwebtext_download(tmp_path, monkeypatch):
    texts = [f'Page {i}\n\nA “quoted” line — and an emoji 😀.\n' * (i + 1) for i in range(9)]
    calls = fake_datasets(monkeypatch, {'train': [{'text': t} for t in texts]})
    out, _ = prepared('openwebtext', tmp_path, None, val_fraction=0.25, split='every')
    assert calls == [
        dict(path='Skylion007/openwebtext', name=None, split='train', streaming=True, read=9)
    ]
    assert tokens_of(out / 'val.bin') == byte_stream(texts[0::4])
    assert tokens_of(out / 'train.bin') == byte_stream([t for i, t in enumerate(texts) if i % 4])


def test_openwebtext_split_is_nanogpts_seeded_shuffle(tmp_path, monkeypatch):
    """The default split is nanoGPT's, Hugging Face's train_test_split(test_size=val_fraction,
    seed=2357, shuffle=True), written out here: numpy's default_rng(2357) permutes the documents,
    its first ceil(val_fraction n) are val and the rest train, each split in the permutation's
    order (UTF-8 beyond ASCII and an empty document come back whole); split='every' keeps every
    round(1 / val_fraction)th document, in the order read."""
    texts = [''] + [f'Page {i}: a “quoted” line, {"é" * i} 😀\n' for i in range(1, 41)]
    fake_datasets(monkeypatch, {'train': [{'text': t} for t in texts]})
    out, meta = prepared('openwebtext', tmp_path, None, val_fraction=0.1)
    order = np.random.default_rng(2357).permutation(41)
    n_val = 5  # ceil(0.1 x 41), Hugging Face's n_test
    assert meta['args']['split'] == 'nanogpt' and meta['documents'] == dict(train=36, val=5)
    assert tokens_of(out / 'val.bin') == byte_stream([texts[i] for i in order[:n_val]])
    assert tokens_of(out / 'train.bin') == byte_stream([texts[i] for i in order[n_val:]])
    every, _ = prepared('openwebtext', tmp_path, None, 'every', val_fraction=0.1, split='every')
    assert tokens_of(every / 'val.bin') == byte_stream(texts[0::10])


@pytest.mark.parametrize('task', ['wikitext', 'fineweb_edu', 'openwebtext'])
def test_download_without_datasets_says_what_to_install(tmp_path, monkeypatch, task):
    # `import datasets` raises ImportError, as when not installed
    monkeypatch.setitem(sys.modules, 'datasets', None)
    with pytest.raises(ValueError, match=r'pip install datasets\); or give --input'):
        prepared(task, tmp_path, None)


@contextlib.contextmanager
def http_server(directory):
    """Serves directory on 127.0.0.1 from a background thread; yields (base URL, paths requested). A
    path under /cut/ gets a response that stops short of its Content-Length, as when a connection
    drops."""
    requested = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(directory), **kwargs)

        def do_GET(self):
            requested.append(self.path)
            if self.path.startswith('/cut/'):
                self.send_response(200)
                self.send_header('Content-Length', '1000')
                self.end_headers()
                self.wfile.write(bytes(10))
                return
            super().do_GET()

        def log_message(self, *args):  # keeps pytest's output to the tests' own
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_port}', requested
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_yelp_download(tmp_path, monkeypatch):
    rows = make_yelp(tmp_path / 'yelp_review_polarity_csv')
    (tmp_path / 'yelp_review_polarity_csv' / 'readme.txt').write_text(
        'The release has a readme too.\n'
    )
    (tmp_path / 'srv').mkdir()
    archive = tmp_path / 'srv' / 'yelp_review_polarity_csv.tgz'
    with tarfile.open(archive, 'w:gz') as tar:
        tar.add(tmp_path / 'yelp_review_polarity_csv', 'yelp_review_polarity_csv')
    # a proxy configured on the machine would get the request instead
    monkeypatch.setenv('no_proxy', '127.0.0.1')
    with http_server(tmp_path / 'srv') as (base, requested):
        monkeypatch.setenv('YELP_URL', f'{base}/{archive.name}')
        monkeypatch.setenv('YELP_CACHE', str(tmp_path / 'cache'))
        out, meta = prepared('yelp', tmp_path, None)
        prepared('yelp', tmp_path, None, name='again')
        assert requested == [f'/{archive.name}'], 'fetched once, then read from the cache'
        assert meta['source'] == f'{base}/{archive.name}'
        assert [p.name for p in (tmp_path / 'cache').iterdir()] == [archive.name], (
            'no temporary file left'
        )
        assert (tmp_path / 'cache' / archive.name).read_bytes() == archive.read_bytes()
        # a download cut short: an error that says what to do instead, and nothing kept to be
        # mistaken for the file
        monkeypatch.setenv('YELP_URL', f'{base}/cut/{archive.name}')
        monkeypatch.setenv('YELP_CACHE', str(tmp_path / 'cut_cache'))
        with pytest.raises(ValueError, match='could not download .*retrieval incomplete.*--input'):
            prepared('yelp', tmp_path, None, name='cut')
        assert not (tmp_path / 'cut_cache').exists(), (
            'nothing kept, not even the cache folder it made'
        )
    for split in ('train', 'test'):
        x, y = load_split(out, split)
        assert len(x) == len(rows[split])
        for (label, text), xi, yi in zip(rows[split], x, y):
            ids = list(text.replace('\\n', '\n').encode('utf-8'))[:255]
            assert xi[: len(ids)].tolist() == ids and (xi[len(ids) :] == EOT).all()
            assert np.flatnonzero(yi != -1).tolist() == [len(ids)] and yi[len(ids)] == ord(
                '-+'[label == '2']
            )


# --------------------------------------------------------------------- interrupted prepares


def text_prepare(source, out):
    return subprocess.Popen(
        [
            sys.executable,
            'data/text/prepare.py',
            f'--input={source}',
            '--encoding=bytes',
            f'--out_dir={out}',
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def complete_data(d):
    """The data set in d, checked complete (meta.json's token counts are the .bin files'), as
    comparable values: the .bin files' bytes and meta.json but its date."""
    assert sorted(p.name for p in d.iterdir()) == ['meta.json', 'train.bin', 'val.bin']
    meta = json.loads((d / 'meta.json').read_text())
    assert all(2 * meta['tokens'][s] == (d / f'{s}.bin').stat().st_size for s in ('train', 'val'))
    del meta['date']
    return meta, {s: (d / f'{s}.bin').read_bytes() for s in ('train', 'val')}


def test_a_killed_prepare_leaves_the_old_data_or_the_new(tmp_path):
    """SIGINT or SIGTERM at any time in a prepare of ~1 s (imports, tokenizing, writing, the commit)
    leaves no temporary file and either the previous complete data or the new complete data."""
    rng = random.Random(0)
    words = [''.join(rng.choices('abcdefgh ', k=rng.randint(1, 9))) for _ in range(2000)]
    duration, versions = float('inf'), {}
    for (
        v
    ) in 'ab':  # two different texts of 3.6 MB, prepared to completion: the two complete versions
        (tmp_path / f'{v}.txt').write_text(
            '\n'.join(' '.join(rng.choices(words, k=20)) for _ in range(30_000))
        )
        start = time.perf_counter()
        assert text_prepare(tmp_path / f'{v}.txt', tmp_path / v).wait() == 0
        duration = min(duration, time.perf_counter() - start)
        versions[v] = complete_data(tmp_path / v)
    out, have, n, kills = tmp_path / 'a', 'a', 14, []
    for i in range(n):  # the i-th kill at a random time in the i-th of n equal stretches of the run
        want = 'b' if have == 'a' else 'a'
        p = text_prepare(tmp_path / f'{want}.txt', out)
        time.sleep(duration * (i + rng.random()) / n)
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        p.send_signal(sig)
        try:
            err = p.communicate(timeout=60)[1].decode()
        finally:
            p.kill()  # a hung one fails the test, and does not outlive it
        kills.append((sig.name, p.returncode))
        assert not [f.name for f in out.rglob('*') if '.tmp' in f.name], kills
        now = complete_data(out)
        assert now in (versions[have], versions[want]), f'neither complete version: {kills}'
        # exit 0 only if it finished before the signal
        assert p.returncode != 0 or now == versions[want], err
        have = want if now == versions[want] else have
        kills[-1] += (have,)
    assert {k[0] for k in kills} == {'SIGINT', 'SIGTERM'}


# --------------------------------------------------------------------- hostile command lines


def with_fifo(make, path):
    """A setup: make(d), then d/path a FIFO (no writer ever opens it)."""

    def setup(d):
        make(d)
        (d / path).unlink(missing_ok=True)
        os.mkfifo(d / path)

    return setup


def a_txt(d):
    write(d / 'a.txt', 'Hello there.\n' * 100)


def one_long_line(d):
    # 3-byte characters and no line end: 95% of the bytes falls inside a character
    write(d / 'one.txt', '漢' * 700_001)


def one_long_line_and_its_newline(d):
    # a line end at the file's very end leaves nothing after it to hold out
    write(d / 'one.txt', '漢' * 700_001 + '\n')


def held_out_inside_the_line(d):
    text = (d / 'one.txt').read_text(encoding='utf-8')
    (train,), (val,) = (docs_of(d / 'out' / f'{s}.bin') for s in ('train', 'val'))
    assert train + val == text and 0.04 < len(val) / len(text) < 0.06


def source_is(path):
    return lambda d: json.loads((d / 'out' / 'meta.json').read_text())['source'] == str(d / path)


TEXT = ['--input=a.txt', '--encoding=bytes']
# test_tasks.HOSTILE's table for the corpora: run in d, with HOME=d
HOSTILE_CORPORA = [
    (
        "into another task's data",
        'text',
        [*TEXT, '--out_dir=data'],
        lambda d: (a_txt(d), data_of('addition', d)),
        r"data/meta.json is not the meta.json of text data \(it says task 'addition'\): "
        r'choose another --out_dir, or add --overwrite to replace it',
    ),
    (
        "into another task's data, --overwrite",
        'text',
        [*TEXT, '--out_dir=data', '--overwrite'],
        lambda d: (a_txt(d), data_of('addition', d)),
        ('data', 'text'),
    ),
    (
        'out_dir with a meta.json that is not JSON',
        'text',
        [*TEXT, '--out_dir=data'],
        lambda d: (a_txt(d), write(d / 'data' / 'meta.json', 'my notes')),
        r'cannot read data/meta.json \(JSONDecodeError\): it is not text data: '
        r'choose another --out_dir, or add --overwrite',
    ),
    (
        'out_dir with a meta.json that is a FIFO',
        'text',
        [*TEXT, '--out_dir=data'],
        with_fifo(lambda d: (a_txt(d), (d / 'data').mkdir()), 'data/meta.json'),
        r'cannot read data/meta.json \(not a regular file but a FIFO or a device\)',
    ),
    (
        'WikiText file a FIFO',
        'wikitext',
        ['--input=raw', '--encoding=bytes', '--out_dir=out'],
        with_fifo(lambda d: make_wikitext(d / 'raw'), 'raw/wiki.valid.raw'),
        r'--input raw/wiki.valid.raw is not a regular file \(a FIFO, a device, a broken link\): '
        r'move it out of the folder',
    ),
    (
        'Yelp CSV a FIFO',
        'yelp',
        ['--input=csv', '--encoding=bytes', '--out_dir=out'],
        with_fifo(lambda d: make_yelp(d / 'csv'), 'csv/train.csv'),
        r'--input csv/train.csv is not a regular file \(a FIFO, a device, a broken link\)',
    ),
    (
        'one line of 2 MB',
        'text',
        ['--input=one.txt', '--encoding=bytes', '--out_dir=out'],
        one_long_line,
        ('out', 'text', held_out_inside_the_line),
    ),
    (
        'one line of 2 MB and its newline',
        'text',
        ['--input=one.txt', '--encoding=bytes', '--out_dir=out'],
        one_long_line_and_its_newline,
        ('out', 'text', held_out_inside_the_line),
    ),
    (
        '--input and --out_dir with ~',
        'text',
        ['--input=~/a.txt', '--encoding=bytes', '--out_dir=~/out'],
        a_txt,
        ('out', 'text', source_is('a.txt')),
    ),
    (
        'WikiText --input with ~',
        'wikitext',
        ['--input=~/raw', '--encoding=bytes', '--out_dir=out'],
        lambda d: make_wikitext(d / 'raw'),
        ('out', 'wikitext'),
    ),
    (
        'Yelp --input with ~',
        'yelp',
        ['--input=~/csv', '--encoding=bytes', '--out_dir=out'],
        lambda d: make_yelp(d / 'csv'),
        ('out', 'yelp'),
    ),
]


@pytest.mark.parametrize(
    'task, argv, setup, expect',
    [c[1:] for c in HOSTILE_CORPORA],
    ids=[c[0] for c in HOSTILE_CORPORA],
)
def test_hostile_command_lines(tmp_path, task, argv, setup, expect):
    run_hostile(tmp_path, task, argv, setup, expect)


def test_a_damaged_meta_json_of_a_local_corpus_is_named(tmp_path):
    """local.byte_text reads the meta.json of the corpus it prepared before: damaged, it is named
    in the error, not a JSONDecodeError's traceback."""
    a_txt(tmp_path)
    out = local.byte_text(tmp_path / 'root', str(tmp_path / 'a.txt'))
    (out / 'meta.json').write_text('{"source": ')
    with pytest.raises(ConfigError, match=re.escape(f'cannot read {out / "meta.json"}')):
        local.byte_text(tmp_path / 'root', str(tmp_path / 'a.txt'))


def test_a_local_corpus_is_prepared_again_when_its_bytes_change_whatever_its_mtime(tmp_path):
    """local.byte_text reuses its corpus while the input's bytes are the ones it was prepared from
    (meta.json's input_sha256): an edit of the same size with an older mtime (cp -p, touch -r) is
    prepared again."""
    src = tmp_path / 'a.txt'
    src.write_text('Hello there.\n' * 40)
    out = local.byte_text(tmp_path / 'root', str(src))
    first = json.loads((out / 'meta.json').read_text())
    assert first['input_sha256'] == corpus.files_digest([src])
    stamp = src.stat().st_mtime_ns
    src.write_text('Hallo there.\n' * 40)  # the same size
    os.utime(src, ns=(stamp - 10**9, stamp - 10**9))  # older than the corpus
    again = json.loads((local.byte_text(tmp_path / 'root', str(src)) / 'meta.json').read_text())
    assert again['input_sha256'] != first['input_sha256'] and again['tokens'] == first['tokens']
    assert np.fromfile(out / 'train.bin', np.uint16)[:2].tolist() == [72, 97], "the new 'Ha'"


def test_a_byte_order_mark_opens_a_yelp_csv_and_is_not_its_text(tmp_path):
    """Windows editors begin a CSV with a byte-order mark: its first row reads as without one."""
    make_yelp(tmp_path / 'csv')
    plain = prepared('yelp', tmp_path, tmp_path / 'csv', name='plain')[0]
    train_csv = tmp_path / 'csv' / 'train.csv'
    train_csv.write_bytes(b'\xef\xbb\xbf' + train_csv.read_bytes())
    marked = prepared('yelp', tmp_path, tmp_path / 'csv', name='marked')[0]
    assert all(
        (a == b).all() for a, b in zip(load_split(plain, 'train'), load_split(marked, 'train'))
    )


def test_a_prepare_killed_with_sigkill_leaves_no_temporary(tmp_path):
    """kill -9 runs none of the process's code; its watcher removes the folder of new files (which
    the process was writing) within moments."""
    rng = random.Random(0)
    (tmp_path / 'a.txt').write_text(
        '\n'.join(' '.join(rng.choices(['alpha', 'beta', 'gamma'], k=12)) for _ in range(150_000))
    )
    out = tmp_path / 'out'
    p = text_prepare(tmp_path / 'a.txt', out)
    try:
        end = time.monotonic() + 30
        while not list(out.glob('new.tmp*')) and time.monotonic() < end:
            time.sleep(0.002)
        assert list(out.glob('new.tmp*')), 'the prepare ended before it wrote anything'
    finally:
        p.kill()
    assert p.wait(timeout=30) == -signal.SIGKILL
    assert eventually_no_temporaries(tmp_path)

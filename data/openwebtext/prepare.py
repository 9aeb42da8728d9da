"""
OpenWebText, the corpus of the identity-query paper's GPT-2 runs (and nanoGPT's):

    python data/openwebtext/prepare.py                   # downloads it (needs the datasets package)
    python data/openwebtext/prepare.py --input=openwebtext/
        # the release's .xz/.tar archives, .txt files, or .jsonl/.parquet files with a "text" field
    python train.py --task=openwebtext --variant=identity_query

The split is nanoGPT's (its data/openwebtext/prepare.py, which the identity-query authors run in
their Data_Handling.ipynb): Hugging Face's train_test_split(test_size=val_fraction, seed=2357,
shuffle=True), a permutation of the n documents (in the order read) by numpy's default_rng(2357)
whose first ceil(val_fraction n) are val and the rest train, each split in the permutation's order:
4,007 of 8,013,769 documents. Reading them in that order needs all of them first: they are spooled
to a temporary file (OpenWebText: about 40 GB, under $TMPDIR). --split=every holds out document i
when i % round(1 / val_fraction) == 0 instead (every 2000th, in the order read: ours).
nanoGPT reports 9.0B GPT-2 training tokens for this corpus, 17 GB on disk.
"""

import math
import sys
import tarfile
import tempfile
from array import array
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data import corpus

DEFAULTS = dict(
    # encoding 'bytes': 256 byte tokens + end-of-text
    encoding='gpt2',  # tokenizer: 'gpt2' (GPT-2 BPE, tiktoken) | 'bytes' (offline, byte-level)
    # val_fraction: about 4,000 documents, nanoGPT's split
    val_fraction=0.0005,  # held-out share of the documents; nanoGPT's
    # split: which documents are held out (the docstring)
    split='nanogpt',  # 'nanogpt': nanoGPT's seeded shuffle (the authors' code) | 'every' (ours)
)
NANOGPT_SEED = 2357  # nanoGPT's train_test_split seed
SOURCE = 'Skylion007/openwebtext (Hugging Face)'
SUFFIXES = ('.txt', '.xz', '.tar', '.jsonl', '.json', '.parquet')
INPUT_HELP = (
    'OpenWebText archives (.xz, .tar), .txt files, or .jsonl/.parquet files; a file or a directory'
)


def download():
    try:
        from datasets import load_dataset
    except ImportError:
        raise ValueError(
            'downloading OpenWebText needs the datasets package (pip install datasets); or give '
            '--input with local files'
        ) from None
    for row in load_dataset('Skylion007/openwebtext', split='train', streaming=True):
        yield row['text']


def archive_texts(fileobj):
    """The .txt members of a tar archive (any compression), in archive order; the release nests
    one archive of .txt files per subset inside openwebtext.tar.xz, so archives inside are opened
    too."""
    with tarfile.open(fileobj=fileobj, mode='r|*') as tar:
        for member in tar:
            if not member.isfile():
                continue
            data = tar.extractfile(member)
            if member.name.endswith(('.xz', '.tar')):
                yield from archive_texts(data)
            elif member.name.endswith('.txt'):
                yield data.read().decode('utf-8', errors='replace')


def local_texts(source):
    for path in corpus.input_files(source, SUFFIXES):
        if path.suffix in ('.xz', '.tar'):
            with open(path, 'rb') as f:
                try:
                    yield from archive_texts(f)
                except corpus.DAMAGED as e:
                    raise corpus.damaged(path, 'tar archive', e) from None
        elif path.suffix == '.txt':
            yield ''.join(corpus.read_text(path))
        else:
            yield from corpus.records(path)


def documents(args, source):
    # every round(1 / val_fraction)-th document: above 1/2, all of them
    if not 0 < args['val_fraction'] <= 0.5:
        raise ValueError(f'val_fraction={args["val_fraction"]} must be above 0 and at most 0.5')
    if args['split'] not in ('nanogpt', 'every'):
        raise ValueError(f"split={args['split']!r} is not one of 'nanogpt', 'every'")
    texts = local_texts(source) if source else download()
    if args['split'] == 'nanogpt':
        yield from shuffled(texts, args['val_fraction'])
        return
    every = round(1 / args['val_fraction'])
    for i, text in enumerate(texts):
        yield 'val' if i % every == 0 else 'train', text, True


def shuffled(texts, val_fraction):
    """nanoGPT's split (the docstring): the texts spooled to a temporary file, then read back in the
    order of the permutation, its first ceil(val_fraction n) as val."""
    with tempfile.TemporaryFile() as spool:
        ends = array('q')  # the spool's offset after each document
        for text in texts:
            spool.write(text.encode('utf-8', 'surrogatepass'))
            ends.append(spool.tell())
        order = np.random.default_rng(NANOGPT_SEED).permutation(len(ends))
        n_val = math.ceil(val_fraction * len(ends))  # Hugging Face's n_test
        for rank, i in enumerate(order.tolist()):
            start = ends[i - 1] if i else 0
            spool.seek(start)
            text = spool.read(ends[i] - start).decode('utf-8', 'surrogatepass')
            yield 'val' if rank < n_val else 'train', text, True


if __name__ == '__main__':
    corpus.main(__file__)

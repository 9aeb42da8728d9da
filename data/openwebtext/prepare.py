"""
OpenWebText, the corpus of the identity-query paper's GPT-2 runs (and nanoGPT's):

    python data/openwebtext/prepare.py                   # downloads it (needs the datasets package)
    python data/openwebtext/prepare.py --input=openwebtext/
        # the release's .xz/.tar archives, .txt files, or .jsonl/.parquet files with a "text" field
    python train.py --task=openwebtext --variant=identity_query

Document i (in the order read) is held out when i % round(1 / val_fraction) == 0: every 2000th,
about 4,000 of the 8M documents, the size of nanoGPT's split. nanoGPT reports 9.0B GPT-2 training
tokens for this corpus, 17 GB on disk.
"""

import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data import corpus

DEFAULTS = dict(
    # encoding 'bytes': 256 byte tokens + end-of-text
    encoding='gpt2',  # tokenizer: 'gpt2' (GPT-2 BPE, tiktoken) | 'bytes' (offline, byte-level)
    # val_fraction: about 4,000 documents, the size of nanoGPT's split
    val_fraction=0.0005,  # held-out share: every round(1/val_fraction)th document; nanoGPT's size
)
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
    every = round(1 / args['val_fraction'])
    for i, text in enumerate(local_texts(source) if source else download()):
        yield 'val' if i % every == 0 else 'train', text, True


if __name__ == '__main__':
    corpus.main(__file__)

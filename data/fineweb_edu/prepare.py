"""
FineWeb-edu, the papers' second language-modeling corpus (Table 2: log perplexity 3.05 standard,
3.16 Frozen-QK, 4.08 MixiT). As in the paper, 4,096 held-out and 1,048,576 training documents:
the first n_val_docs documents of the source are val.bin, the next n_train_docs are train.bin.

    python data/fineweb_edu/prepare.py                   # streams sample-10BT (needs datasets)
    python data/fineweb_edu/prepare.py --input=fineweb/  # local .parquet (needs pyarrow) or .jsonl
    python train.py --task=fineweb_edu --variant=frozen_qk

At FineWeb-edu's roughly 1,000 tokens per document (an estimate), about 1B GPT-2 tokens and 2 GB on
disk; --n_train_docs makes a smaller one.
"""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data import corpus

DEFAULTS = dict(
    # encoding 'bytes': 256 byte tokens + end-of-text
    encoding='gpt2',  # tokenizer: 'gpt2' (GPT-2 BPE, tiktoken) | 'bytes' (offline, byte-level)
    n_train_docs=1_048_576,  # training documents, those after the held-out ones; the paper's text
    n_val_docs=4_096,  # held-out documents, the source's first ones (val.bin); the paper's text
)
SOURCE = 'HuggingFaceFW/fineweb-edu sample-10BT (Hugging Face)'
SUFFIXES = ('.jsonl', '.json', '.parquet')
INPUT_HELP = 'a .parquet or .jsonl file with a "text" field, or a directory of them'


def download():
    try:
        from datasets import load_dataset
    except ImportError:
        raise ValueError(
            'downloading FineWeb-edu needs the datasets package (pip install datasets); or give '
            '--input with local .parquet or .jsonl files'
        ) from None
    for row in load_dataset(
        'HuggingFaceFW/fineweb-edu', name='sample-10BT', split='train', streaming=True
    ):
        yield row['text']


def documents(args, source):
    if args['n_val_docs'] < 1 or args['n_train_docs'] < 1:
        raise ValueError(
            f'n_val_docs={args["n_val_docs"]} and n_train_docs={args["n_train_docs"]} '
            'must be at least 1'
        )
    texts = corpus.records(source) if source else download()
    for i, text in enumerate(itertools.islice(texts, args['n_val_docs'] + args['n_train_docs'])):
        yield 'val' if i < args['n_val_docs'] else 'train', text, True


if __name__ == '__main__':
    corpus.main(__file__)

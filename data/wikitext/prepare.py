"""
WikiText-103 (raw), the papers' first language-modeling corpus (Table 2: log perplexity 2.78
standard, 3.07 Frozen-QK, 3.73 MixiT):

    python data/wikitext/prepare.py                      # downloads it (needs the datasets package)
    python data/wikitext/prepare.py --input=wikitext-103-raw/
        # wiki.{train,valid,test}.raw, unzipped
    python train.py --task=wikitext --variant=mixit

Its train/valid/test files become train.bin/val.bin/test.bin: 2 bytes per token, so about as many
bytes on disk as the raw text (about 540 MB for train; GPT-2 BPE spends about one token per 4
characters of English, an estimate, not a measurement here). Each article, from its top-level
heading ' = Title = ' to the next, is one document. The text is kept exactly as released, its
tokenization escapes (' @-@ ', ' @,@ ', ' @.@ ') and spaced punctuation included, because the
benchmark is defined on that text.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data import corpus, synthetic

DEFAULTS = dict(
    # encoding 'bytes': 256 byte tokens + end-of-text
    encoding='gpt2',  # tokenizer: 'gpt2' (GPT-2 BPE, tiktoken) | 'bytes' (offline, byte-level)
)
SPLITS = ('train', 'val', 'test')
FILES = {'train': 'wiki.train.raw', 'val': 'wiki.valid.raw', 'test': 'wiki.test.raw'}
SOURCE = 'Salesforce/wikitext wikitext-103-raw-v1 (Hugging Face)'
SUFFIXES = ('.raw',)
INPUT_HELP = 'a directory with wiki.train.raw, wiki.valid.raw and wiki.test.raw'
HEADING = re.compile(r' = [^=].* = $')  # ' = = Section = = ' is not an article's start


def download(split):
    try:
        from datasets import load_dataset
    except ImportError:
        raise ValueError(
            'downloading WikiText-103 needs the datasets package (pip install datasets); or give '
            '--input with the unzipped wikitext-103-raw-v1 files'
        ) from None
    hf_split = {'val': 'validation'}.get(split, split)
    for row in load_dataset('Salesforce/wikitext', 'wikitext-103-raw-v1', split=hf_split):
        # a row is one line of the raw file, its '\n' included, except that the Hub's conversion
        # turned each blank line (' \n' in the release) into '': put back, so both paths give the
        # released text
        yield row['text'] or ' \n'


def read_lines(source, split):
    path = Path(source) / FILES[split]
    if not path.exists():
        raise ValueError(
            f'{path} does not exist; --input must be a directory with {", ".join(FILES.values())}'
        )
    with synthetic.open_regular(path) as f:  # a FIFO would block the read
        yield from corpus.utf8_lines(f, path)


def articles(lines):
    """Groups lines into articles, a new one at each top-level heading; blank lines stay with the
    article before them."""
    article, has_text = [], False
    for line in lines:
        if HEADING.match(line.rstrip('\r\n')) and has_text:
            yield ''.join(article)
            article, has_text = [], False
        article.append(line)
        has_text = has_text or bool(line.strip())
    if has_text:
        yield ''.join(article)


def documents(args, source):
    for split in SPLITS:
        for text in articles(read_lines(source, split) if source else download(split)):
            yield split, text, True


if __name__ == '__main__':
    corpus.main(__file__)

"""
Any local text: a UTF-8 file, or a directory of them (every *.txt under it, recursively, in sorted
order). There is nothing to download:

    python data/text/prepare.py --input=book.txt              # GPT-2 tokens (tiktoken)
    python data/text/prepare.py --input=books/ --encoding=bytes   # offline byte-level tokens
    python train.py --task=text [--encoding=bytes]

Each file is one document. Its last val_fraction (cut at the first line end after that point; where
no line end follows, as in a file of one long line, at that point) is held out as val.bin and the
rest is train.bin: a contiguous held-out stretch, as in nanoGPT's Shakespeare, so the model is
scored on continuing text it never saw, not on lines interleaved with its training lines. Both
halves end with the end-of-text token. Files are read in blocks, so their size is bounded by the
disk, not by memory.
"""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from data import corpus

DEFAULTS = dict(
    # encoding 'bytes': 256 byte tokens + end-of-text
    encoding='gpt2',  # tokenizer: 'gpt2' (GPT-2 BPE, tiktoken) | 'bytes' (offline, byte-level)
    val_fraction=0.05,  # held-out share of each file: its last stretch, cut at the next line end
)
SUFFIXES = ('.txt',)
INPUT_HELP = 'a UTF-8 text file, or a directory of .txt files; required'


def held_out_start(path, fraction):
    """The byte offset where a file's held-out part starts: just after the first line end after
    (1 - fraction) of its bytes; in a file of one line (no line end follows, or only the file's
    last, and none precedes), that point, moved on to the start of a character."""
    size = path.stat().st_size
    limit = int((1 - fraction) * size)
    with open(path, 'rb') as f:
        f.seek(limit)
        at = limit
        while block := f.read(corpus.PIECE_CHARS):
            end = block.find(b'\n')  # '\n' is never inside a UTF-8 character
            if end != -1 and (at + end + 1 < size or line_end_before(f, limit)):
                return at + end + 1
            if end != -1:
                break
            at += len(block)
        f.seek(limit)
        # bytes 10xxxxxx continue a character
        rest = f.read(4)
        return limit + next((i for i, b in enumerate(rest) if b & 0xC0 != 0x80), len(rest))


def line_end_before(f, limit):
    """Whether the open file f holds a line end before byte `limit` (read backwards, a piece at
    a time)."""
    while limit > 0:
        start = max(0, limit - corpus.PIECE_CHARS)
        f.seek(start)
        if b'\n' in f.read(limit - start):
            return True
        limit = start
    return False


def halves(path, fraction):
    """(split, text block) of one file: 'train' up to held_out_start, 'val' from there."""
    start, seen = held_out_start(path, fraction), 0
    for block in corpus.read_text(path):
        data = block.encode('utf-8')
        if seen < start < seen + len(data):
            yield 'train', data[: start - seen].decode('utf-8')
            yield 'val', data[start - seen :].decode('utf-8')
        else:
            yield 'train' if seen + len(data) <= start else 'val', block
        seen += len(data)


def documents(args, source):
    if source is None:
        raise ValueError('the text task has no download: give --input=FILE_OR_DIRECTORY')
    if not 0 < args['val_fraction'] < 1:
        raise ValueError(f'val_fraction={args["val_fraction"]} must be between 0 and 1')
    for path in corpus.input_files(source, SUFFIXES):
        for split, blocks in itertools.groupby(
            halves(path, args['val_fraction']), key=lambda item: item[0]
        ):
            yield from corpus.document(split, corpus.pieces(text for _, text in blocks))


if __name__ == '__main__':
    corpus.main(__file__)

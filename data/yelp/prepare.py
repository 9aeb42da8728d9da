"""
Yelp review polarity (Zhang et al. 2015: 560,000 train and 38,000 test reviews, half positive), the
papers' sentiment task (Table 3: 90.55% standard, 90.86% Frozen-QK, 92.56% MixiT), framed for a
causal model as fixed-length examples of 256 tokens:

    x = review tokens (the first 255) <|endoftext|> <|endoftext|>...  (padding)
    y = -1 everywhere but at the separator, whose target is the label: '+' positive, '-' negative

so the label is the only scored position and held-out accuracy is the fraction of reviews whose
label the model predicts, over the whole test split. The padding after the separator is never read
by a causal model's prediction at the separator. meta.json lists the label tokens' ids in class
order (negative, positive) as `classes`: train.py --classify=True trains the authors' framing
instead, a classifier with one output per class read at the separator, MixiT bidirectional and
softmax attention causal as their code ran, the end-of-text embedding zero and untrained (train.py
model_args_of).

    python data/yelp/prepare.py                          # downloads the fast.ai copy of the CSVs
    python data/yelp/prepare.py --input=yelp_review_polarity_csv/  # train.csv/test.csv, or the .tgz
    python train.py --task=yelp --variant=mixit
    python train.py --task=yelp --variant=mixit --classify=True   # the authors' classifier

The download is kept in data/yelp/raw/ and reused; the environment variables YELP_URL (a mirror of
the .tgz) and YELP_CACHE (another folder to keep it in) change where it comes from and goes to.

The CSVs have no header; each row is "label","text" with label 1 (negative) or 2 (positive) and the
review's line breaks written as a backslash and 'n'. About 300 MB for x and as much for y on disk.
"""

import csv
import os
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import numpy as np
from tqdm import tqdm

from data import corpus, synthetic

DEFAULTS = dict(
    # encoding 'bytes': 256 byte tokens + end-of-text
    encoding='gpt2',  # tokenizer: 'gpt2' (GPT-2 BPE, tiktoken) | 'bytes' (offline, byte-level)
)
SPLITS = ('train', 'test')
EVAL_SPLIT = 'test'
URL = (
    os.environ.get('YELP_URL')
    or 'https://s3.amazonaws.com/fast-ai-nlp/yelp_review_polarity_csv.tgz'
)
CACHE = Path(os.environ.get('YELP_CACHE') or synthetic.DATA_ROOT / 'yelp' / 'raw')
SOURCE = URL
SUFFIXES = ('.csv', '.tgz')
INPUT_HELP = 'a directory with train.csv and test.csv, or yelp_review_polarity_csv.tgz'
LABELS = ('-', '+')  # the label tokens: CSV label 1 -> '-', 2 -> '+'


def download():
    """Fetches the archive once into CACHE; a failed or interrupted download leaves nothing
    there."""
    path = CACHE / URL.rsplit('/', 1)[1]
    if not path.exists():
        print(f'downloading {URL}')
        made = not path.parent.exists()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            synthetic.atomic_write(path, lambda tmp: urllib.request.urlretrieve(URL, tmp))
        except OSError as e:  # urllib's errors too: a message, not a traceback
            if made:  # nothing left behind, not even the folder
                shutil.rmtree(path.parent, ignore_errors=True)
            raise ValueError(
                f'could not download {URL} ({e}); or give --input with train.csv and test.csv'
            ) from None
    return path


def csv_files(source):
    """{split: (name, binary file)} of the CSVs, from a directory or straight out of the .tgz."""
    source = Path(source)
    if source.is_dir():
        missing = [s for s in SPLITS if not (source / f'{s}.csv').exists()]
        if missing:
            raise ValueError(
                f'{source} has no {", ".join(m + ".csv" for m in missing)}; {INPUT_HELP}'
            )
        # a FIFO would block the read
        return {
            s: (source / f'{s}.csv', synthetic.open_regular(source / f'{s}.csv')) for s in SPLITS
        }
    if source.suffix != '.tgz' and not tarfile.is_tarfile(source):
        raise ValueError(f'--input {source}: {INPUT_HELP}')
    try:
        # one error, not one per method
        tar = tarfile.open(source, 'r:gz' if source.suffix == '.tgz' else 'r')
        # reads the whole archive
        members = {Path(m.name).name: m for m in tar.getmembers() if m.isfile()}
    except corpus.DAMAGED as e:
        raise corpus.damaged(source, 'tar archive', e) from None
    missing = [f'{s}.csv' for s in SPLITS if f'{s}.csv' not in members]
    if missing:
        raise ValueError(
            f'{source} holds no {" or ".join(missing)}: '
            f"give the release's {URL.rsplit('/', 1)[1]}, "
            f'or a directory with train.csv and test.csv'
        )
    return {
        s: (f'{source}/{members[f"{s}.csv"].name}', tar.extractfile(members[f'{s}.csv']))
        for s in SPLITS
    }


def documents(args, source):
    """(split, review text, label 0/1) for every row, train then test."""
    source = source or download()
    files = csv_files(source)
    # a long review is text all the same, and python's default limit is 128 KB; 16M characters still
    # stops a damaged file (one unclosed quote makes the rest of it one field) from being read into
    # memory whole
    csv.field_size_limit(2**24)
    for split in SPLITS:
        name, f = files[split]
        with f:
            rows = csv.reader(corpus.utf8_lines(f, name))
            i = 0
            try:
                for i, row in enumerate(rows, 1):
                    if len(row) != 2 or row[0] not in ('1', '2'):
                        raise ValueError(
                            f'{name} row {i} is not "label","text" with label 1 or 2: '
                            f'{str(row[:2])[:100]}'
                        )
                    yield split, row[1].replace('\\n', '\n'), int(row[0]) - 1
            except csv.Error as e:  # a field over the limit
                raise ValueError(
                    f'{name} row {i + 1} (line {rows.line_num}) is not CSV ({e}): '
                    f'fix or remove that row'
                ) from None
            except corpus.DAMAGED as e:
                raise corpus.damaged(source, 'tar archive', e) from None


def write(out, splits, documents, enc, total_bytes=None):
    """Writes <split>.npz examples (format above), encoding 10,000 reviews at a time. Rows go to a
    temporary file as they are made and are zipped from there, so memory holds a batch, not a split.
    out is prepare's directory of new files (corpus.prepare)."""
    T = corpus.BLOCK_SIZE
    label_ids = [enc.encode_single_token(s) for s in LABELS]
    tmp = {
        s: (synthetic.temporary(out / f'{s}.x'), synthetic.temporary(out / f'{s}.y'))
        for s in splits
    }
    files = {s: open(tmp[s][0], 'wb') for s in splits}
    targets = {s: [] for s in splits}  # (separator position, label id) of each example

    def flush(split, batch):
        x = np.full((len(batch), T), enc.eot_token, dtype=np.uint16)
        for r, ids in enumerate(enc.encode_ordinary_batch([text for text, _ in batch])):
            x[r, : min(len(ids), T - 1)] = ids[: T - 1]
            targets[split].append((min(len(ids), T - 1), label_ids[batch[r][1]]))
        files[split].write(x.tobytes())
        batch.clear()

    try:
        batches = {s: [] for s in splits}
        for split, text, label in tqdm(
            documents, desc=f'tokenizing ({enc.name})', unit=' reviews', disable=None
        ):
            batches[split].append((text, label))
            if len(batches[split]) == 10_000:
                flush(split, batches[split])
        empty = [f'{s}.csv' for s in splits if not batches[s] and not targets[s]]
        if empty:
            raise ValueError(f'{" and ".join(empty)} holds no reviews: give the whole Yelp split')
        for s in splits:
            flush(s, batches[s])
            files[s].close()
            x = np.memmap(tmp[s][0], dtype=np.uint16, mode='r').reshape(-1, T)
            y = np.memmap(tmp[s][1], dtype=np.int16, mode='w+', shape=x.shape)
            y[:] = -1
            pos, label = np.array(targets[s], dtype=np.int64).reshape(-1, 2).T
            y[np.arange(len(x)), pos] = label
            synthetic.save_npz(out / f'{s}.npz', x, y)
            del x, y
    finally:  # whatever is left in out is moved into the corpus directory, so not these
        for s in splits:
            files[s].close()
            for path in tmp[s]:
                path.unlink(missing_ok=True)
    return dict(
        examples={s: len(targets[s]) for s in splits},
        labels=dict(zip(LABELS, label_ids)),
        classes=label_ids,
        sep=enc.eot_token,
    )


if __name__ == '__main__':
    corpus.main(__file__)

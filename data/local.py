"""
Local data for the experiments, where a paper's corpus cannot be used: a byte-level 'text' corpus of
any local file (Debian's license texts when none is given), and a tiny Yelp CSV with which the tests
run the Yelp classifier's protocol. Each is prepared under a root the caller names (the experiments'
data root) and only when its source changed.
"""

import csv
import glob
import os
from pathlib import Path

from data import corpus
from data.synthetic import ConfigError, read_json

LICENSES = '/usr/share/common-licenses'  # base-files: on every Debian system


def license_text(root):
    """Debian's license texts, one after another, as one file root/common-licenses.txt."""
    files = sorted({os.path.realpath(p) for p in glob.glob(f'{LICENSES}/*') if os.path.isfile(p)})
    if not files:
        raise ConfigError(
            f'{LICENSES} holds no files: give --text=PATH (any UTF-8 text, e.g. a book)'
        )
    path = Path(root) / 'common-licenses.txt'
    text = '\n\n'.join(Path(f).read_text(encoding='utf-8', errors='replace') for f in files)
    # keep its mtime: no needless prepare
    if not path.exists() or path.read_text(encoding='utf-8') != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding='utf-8')
    return path


def byte_text(root, text='', smoke=False):
    """-> root/<source's stem>/, a byte-level 'text' corpus of the file `text` (else Debian's
    license texts; with smoke, of a few generated lines), prepared only when the source changed."""
    root, text = Path(root), os.path.expanduser(text)
    # --smoke reads its own lines, but a mistake is one all the same
    if text and not Path(text).is_file():
        raise ConfigError(f'--text={text} is not a file: give a UTF-8 text file')
    if smoke:
        source = root / 'smoke.txt'
        root.mkdir(parents=True, exist_ok=True)
        source.write_text(
            ''.join(
                f'Line {i}: the quick brown fox jumps over the lazy dog {i % 7} times.\n'
                for i in range(60)
            )
        )
    else:
        source = Path(text) if text else license_text(root)
    out = root / source.stem
    meta = out / 'meta.json'
    # the same file's bytes, whatever its mtime (an edit of the same size, a copy of an older one)
    fresh = meta.exists() and read_json(meta, f'delete {meta}; the data is prepared again').get(
        'input_sha256'
    ) == corpus.files_digest([source])
    if not fresh:
        # its own folder, of this source: replaced whenever the source changed
        out, info = corpus.prepare(
            'text', {'encoding': 'bytes'}, str(source), str(out), overwrite=True
        )
        print(
            f'prepared {source} in {out}: {info["tokens"]["train"]:,} training and '
            f'{info["tokens"]["val"]:,} held-out bytes'
        )
    return out


def tiny_yelp(root):
    """-> the train.py keys of a tiny byte-level Yelp made in root/ (32 training and 8 test reviews
    of two classes), so that the tests run the Yelp classifier's protocol."""
    root = Path(root)
    if not (root / 'bytes' / 'meta.json').exists():
        (root / 'csv').mkdir(parents=True, exist_ok=True)
        for split, n in (('train', 32), ('test', 8)):
            with open(root / 'csv' / f'{split}.csv', 'w', newline='', encoding='utf-8') as f:
                csv.writer(f, quoting=csv.QUOTE_ALL).writerows(
                    (str(1 + i % 2), f'Review {i}: the food was {("awful", "great")[i % 2]}.')
                    for i in range(n)
                )
        corpus.prepare('yelp', {'encoding': 'bytes'}, root / 'csv', root / 'bytes')
    return dict(data_dir=str(root / 'bytes'), encoding='bytes')

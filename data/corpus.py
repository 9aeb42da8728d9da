"""
Shared plumbing for the text corpora (data/wikitext, fineweb_edu, openwebtext, yelp, text): the
tokenizer, reading local files, and writing token streams. Each corpus's source and format live in
its own prepare.py, which defines

    DEFAULTS = dict(encoding='gpt2', ...)   # settings that change the files; every key is a --flag
    def documents(args, source)              # -> iterable of (split, text, end_of_document)
    SUFFIXES, INPUT_HELP, SOURCE             # local files it reads (--input), and what it downloads
    SPLITS, EVAL_SPLIT, write                # optional: ('train', 'val'), 'val', write_tokens

and calls main(__file__). A document may come in several pieces (a 1 GB text file does);
end_of_document marks its last piece, after which the end-of-text token is written, so documents
are always separated, never silently concatenated. Files written to the corpus directory:
    train.bin, val.bin (test.bin)  uint16 token ids, nanoGPT's format, streamed in chunks
    meta.json                      moved in last, so its presence means the directory is complete
All of them are first written to a directory of this process's own and moved in together when
complete (synthetic.new_files): an error, Ctrl-C or SIGTERM at any point leaves the previous
complete data or the new.

The default encoding is GPT-2's BPE (tiktoken downloads its files on first use); 'bytes' is an
offline byte-level tiktoken encoding: the 256 byte values plus <|endoftext|> = 256.
"""

import datetime
import gzip
import hashlib
import io
import json
import lzma
import tarfile
import zlib
from pathlib import Path

import numpy as np
from tqdm import tqdm

from data.synthetic import (
    Parser,
    cannot_write,
    check_out_dir,
    end_on_signal,
    home,
    load_task,
    new_files,
    output_flags,
    task_dir,
    write_meta,
)

# name -> number of tokens (loader.py checks meta.json against it)
ENCODINGS = dict(gpt2=50257, bytes=257)
BLOCK_SIZE = 256  # the papers' sequence length for every corpus (experiments/README.md, section 2)
PIECE_CHARS = 1 << 20  # a long document is tokenized this many characters at a time


def get_encoding(name):
    """A tiktoken.Encoding by name: 'gpt2' (the default for real corpora) or 'bytes' (offline)."""
    import tiktoken

    if name == 'bytes':
        # no merges, so how the text is pre-split cannot change the tokens; pieces of at most 256
        # characters only keep tiktoken fast. Every UTF-8 string round-trips.
        return tiktoken.Encoding(
            name='bytes',
            pat_str=r'[\s\S]{1,256}',
            mergeable_ranks={bytes([i]): i for i in range(256)},
            special_tokens={'<|endoftext|>': 256},
        )
    if name != 'gpt2':
        raise ValueError(f'unknown encoding {name!r}: use one of {", ".join(ENCODINGS)}')
    try:
        return tiktoken.get_encoding('gpt2')
    except Exception as e:  # tiktoken fetches the BPE files over the network on first use
        raise ValueError(
            f'tiktoken could not load the GPT-2 encoding ({type(e).__name__}): without internet, '
            f"use --encoding=bytes, or copy tiktoken's cache files and set TIKTOKEN_CACHE_DIR"
        ) from None


def pieces(texts, size=PIECE_CHARS):
    """Joins a stream of texts (lines, blocks) into pieces of about `size` characters, cut only
    right before a space that follows a letter or digit. No pre-tokenizer piece of GPT-2's pattern
    holds such a pair (a word, number or punctuation run never takes the space after it), so
    tiktoken cuts there anyway, and encoding the pieces one by one gives exactly the tokens of the
    whole text. Text with no such place in 64 pieces' worth (no spaces at all) is cut anyway: the
    one inexact case."""
    buf, n = [], 0
    for text in texts:
        buf.append(text)
        n += len(text)
        if n < size:
            continue
        text = ''.join(buf)
        cut = text.rfind(' ')
        while cut > 0 and not text[cut - 1].isalnum():
            cut = text.rfind(' ', 0, cut)
        if cut <= 0:
            if n < 64 * size:
                buf = [text]
                continue
            cut = len(text)
        yield text[:cut]
        buf, n = [text[cut:]], len(text) - cut
    if n:
        yield ''.join(buf)


def document(split, pieces):
    """The (split, piece, end_of_document) items of one document; an empty document yields
    nothing."""
    last = None
    for piece in pieces:
        if last is not None:
            yield split, last, False
        last = piece
    if last is not None:
        yield split, last, True


def read_text(path, block=PIECE_CHARS):
    """A UTF-8 file in blocks of `block` characters (so a file without line ends is no problem),
    line endings kept as they are; a clear error for other encodings."""
    with open(path, encoding='utf-8', newline='') as f:
        try:
            while text := f.read(block):
                yield text
        except UnicodeDecodeError as e:
            raise not_utf8(path, e) from None


def utf8_lines(f, name):
    """The lines of the binary file f as text, split and ended as open(newline='') gives them, read
    by the csv module, JSONL and WikiText, a first line's byte-order mark dropped; a line that is
    not UTF-8 is an error naming name:line.
    Lines are decoded one by one because a text file decodes ahead of the line it yields, so could
    not say which."""
    for i, line in enumerate(f, 1):
        try:
            # a byte-order mark, as Windows editors write one, opens the file and is not its text
            text = line.decode('utf-8-sig' if i == 1 else 'utf-8')
        except UnicodeDecodeError as e:
            raise not_utf8(f'{name}:{i}', e) from None
        if '\r' in text:  # a lone '\r' ends a line too; rare, so split only where there is one
            yield from io.StringIO(text, newline='')
        else:
            yield text


def not_utf8(where, e):
    """The error for text that is not UTF-8 (e: the UnicodeDecodeError) at `where`, a file or
    file:line."""
    return ValueError(
        f'{where} is not UTF-8 text ({e.reason}): convert it first, e.g. iconv -f latin1 -t utf-8'
    )


# a cut-short or damaged archive
DAMAGED = (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile)


def damaged(path, kind, e):
    """The error for a file that is cut short or not in its format (kind: 'Parquet file',
    'tar archive')."""
    return ValueError(
        f'{path} is not a readable {kind} ({reason(e)}): '
        'download it again, or leave it out of --input'
    )


def cannot_read(e, source):
    """The error for an OSError while reading the input (a file this process may not read, a folder
    where a file should be): a ValueError, so that the OSErrors main sees are the output
    folder's."""
    path = e.filename or source
    return ValueError(
        f'cannot read {path} ({e.strerror or reason(e)}): give --input files you can read'
    )


def reason(e):
    """An exception's message on one line (pyarrow's span several), or its type's name if it has
    none."""
    return ' '.join(str(e).split()) or type(e).__name__


def input_files(path, suffixes):
    """A file, or the files with one of `suffixes` under a directory (recursively, in sorted
    order)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ValueError(
            f'--input {path} '
            + (
                'is neither a file nor a folder (a device, a FIFO): give a file'
                if path.exists()
                else 'does not exist'
            )
        )
    files = sorted(
        p
        for p in path.rglob('*')
        if not p.is_dir()
        and p.name.endswith(suffixes)
        and not any(part.startswith('.') for part in p.relative_to(path).parts)
    )
    odd = [p for p in files if not p.is_file()]  # a FIFO would block the read, a device too
    if odd:
        raise ValueError(
            f'--input {odd[0]} is not a regular file (a FIFO, a device, a broken link): move it '
            'out of the folder'
        )
    if not files:
        raise ValueError(f'--input {path} holds no files ending in {" or ".join(suffixes)}')
    return files


def records(path, field='text'):
    """The `field` of every record of JSONL files (.jsonl, .json; one object per line) or Parquet
    files (needs pyarrow), the formats FineWeb-edu and OpenWebText come in: each a string."""
    for file in input_files(path, ('.jsonl', '.json', '.parquet')):
        rows = (
            parquet_column(file, field) if file.suffix == '.parquet' else jsonl_field(file, field)
        )
        for where, text in rows:
            if not isinstance(text, str):
                kind = 'null' if text is None else type(text).__name__
                raise ValueError(
                    f'{where} has a "{field}" of {kind}, not a string: '
                    f'fix that record, or leave the file out of --input'
                )
            yield text


def jsonl_field(file, field):
    """(file:line, value of `field`) of each record of a JSONL file."""
    with open(file, 'rb') as f:
        for i, line in enumerate(utf8_lines(f, file), 1):
            if line.strip():
                try:
                    yield f'{file}:{i}', json.loads(line)[field]
                # ValueError: JSONDecodeError, or a number of over 4,300 digits; RecursionError:
                # nested 10^5 deep
                except (ValueError, KeyError, TypeError, RecursionError):
                    raise ValueError(
                        f'{file}:{i} is not a JSON object with a "{field}" field'
                    ) from None


def parquet_column(file, field):
    """(file row n, value of `field`) of each row of a Parquet file."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError(
            f'reading {file} needs pyarrow: pip install pyarrow (or give JSONL files)'
        ) from None
    n = 0
    # opened here, so that an OSError is the file system's, not pyarrow's
    with open(file, 'rb') as f:
        try:
            pf = pq.ParquetFile(f)
            if field not in pf.schema_arrow.names:
                raise ValueError(
                    f'{file} has no "{field}" column '
                    f'(its columns: {", ".join(pf.schema_arrow.names)}): '
                    f'give files with the text in a "{field}" column'
                )
            for batch in pf.iter_batches(columns=[field], batch_size=1024):
                for value in batch.column(0).to_pylist():
                    n += 1
                    yield f'{file} row {n}', value
        # pyarrow's OSErrors are its own: a damaged file's
        except (pa.ArrowException, OSError) as e:
            raise damaged(file, 'Parquet file', e) from None


def files_digest(files):
    """sha256 over the input files' names and bytes, in their order: meta.json's input_sha256, so
    that an input edited since (the same size, an older mtime) reads as other data (a resumed run
    refuses it, checkpoint.same_data; local.byte_text prepares it again)."""
    h = hashlib.sha256()
    for f in files:
        h.update(f'{Path(f).name}\0'.encode())
        with open(f, 'rb') as stream:
            while block := stream.read(1 << 20):
                h.update(block)
    return h.hexdigest()


def write_tokens(out, splits, documents, enc, total_bytes=None):
    """Tokenizes the (split, text, end_of_document) stream into out/<split>.bin, a batch of pieces
    at a time; -> the counts for meta.json. out is prepare's directory of new files, which are
    deleted unless all goes well."""
    if enc.n_vocab > 2**16:
        raise ValueError(
            f'encoding {enc.name} has {enc.n_vocab} tokens; uint16 files hold at most 65536'
        )
    files = {s: open(out / f'{s}.bin', 'wb') for s in splits}
    tokens, docs = dict.fromkeys(splits, 0), dict.fromkeys(splits, 0)
    # a bar only for a person at a terminal (disable=None), so that a log or an error is its own
    # lines
    bar = tqdm(
        total=total_bytes, unit='B', unit_scale=True, desc=f'tokenizing ({enc.name})', disable=None
    )

    def flush(batch):
        for (split, _, end), ids in zip(batch, enc.encode_ordinary_batch([t for _, t, _ in batch])):
            ids = np.array(ids + [enc.eot_token] if end else ids, dtype=np.int64)
            # never trust a silent wrap-around
            if len(ids) and not 0 <= ids.min() <= ids.max() < enc.n_vocab:
                raise ValueError(
                    f'token id {ids.max()} does not fit the vocabulary of {enc.n_vocab}'
                )
            files[split].write(ids.astype(np.uint16).tobytes())
            tokens[split] += len(ids)
            docs[split] += end

    try:
        batch, chars = [], 0
        for split, text, end in documents:
            if split not in files:
                raise ValueError(
                    f'a document of split {split!r}; the splits are {", ".join(splits)}'
                )
            batch.append((split, text, end))
            chars += len(text)
            bar.update(len(text.encode('utf-8')))
            if chars >= 8 * PIECE_CHARS:
                flush(batch)
                batch, chars = [], 0
        flush(batch)
    finally:
        bar.close()
        for f in files.values():
            f.close()
    return dict(tokens=tokens, documents=docs)


def prepare(task, overrides=None, source=None, out_dir=None, overwrite=False):
    """Writes data/<task>/[settings]/ (or out_dir) from `source` (a local path; None = download);
    returns (directory, meta). The same input and settings give byte-identical data files. Until
    the new files are complete, the directory keeps its previous ones. Data of another task there
    is refused unless overwrite."""
    module = load_task(task)
    args = {**module.DEFAULTS, **(overrides or {})}
    download = getattr(module, 'SOURCE', None)  # what it downloads: none for local text
    if source is None and not download:
        raise ValueError(f'the {task} task has no download: give --input=FILE_OR_DIRECTORY')
    if source is not None:
        # '' would be the folder the command is typed in
        if not str(source).strip():
            raise ValueError(
                '--input= names no file: give a file or a folder'
                + (', or leave --input out to download' if download else '')
            )
        source = home(source, '--input')  # here, for every corpus's documents()
    try:
        files = input_files(source, module.SUFFIXES) if source else []
        # else bytes read != bytes on disk
        plain = files and all(f.suffix in ('.txt', '.raw') for f in files)
        total = sum(f.stat().st_size for f in files) if plain else None
        digest = files_digest(files) if files else None
    except OSError as e:
        raise cannot_read(e, source) from None
    out = Path(home(out_dir, '--out_dir')) if out_dir else task_dir(task, args, module.DEFAULTS)
    # the same input: its bytes where they are local files, else the download's address
    made = {'input_sha256': digest} if digest else {'source': download}
    check_out_dir(out, task, overwrite, {'args': args, **made})
    enc = get_encoding(args['encoding'])
    splits = getattr(module, 'SPLITS', ('train', 'val'))
    write = getattr(module, 'write', write_tokens)  # Yelp writes examples instead of a token stream
    with new_files(out) as new:
        counts = write(new, splits, read_input(module.documents(args, source), source), enc, total)
        # a split of empty documents holds their end-of-text tokens alone
        empty = [
            s for s in counts.get('tokens', ()) if counts['tokens'][s] <= counts['documents'][s]
        ]
        if empty:
            raise ValueError(
                f'{source or download} gives no {" or ".join(empty)} text (no documents, or '
                'empty ones), too small for these settings or its documents empty: give --input '
                'a larger file'
            )
        meta = dict(
            task=task,
            args=args,
            format='examples' if 'examples' in counts else 'tokens',
            encoding=enc.name,
            vocab_size=enc.n_vocab,
            eot=enc.eot_token,
            block_size=BLOCK_SIZE,
            eval_split=getattr(module, 'EVAL_SPLIT', 'val'),
            **counts,
            source=str(Path(source).resolve()) if source else download,
            **({'input_sha256': digest} if digest else {}),
            date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
        )
        write_meta(new, meta)
    return out, meta


def read_input(documents, source):
    """The documents, an OSError while reading them a cannot_read error."""
    try:
        yield from documents
    except OSError as e:
        raise cannot_read(e, source) from None


def main(task_file):
    """The command line of a corpus's prepare.py: --input, one --flag per DEFAULTS key,
    output_flags."""
    task = Path(task_file).resolve().parent.name
    module = load_task(task)
    parser = Parser(module.__doc__)
    parser.add_argument(
        '--input',
        default=None,
        help=f'prepare from local files instead of downloading ({module.INPUT_HELP})',
    )
    for k, v in module.DEFAULTS.items():
        parser.add_argument(f'--{k}', type=type(v), default=v, help=f'(default {v})')
    output_flags(parser)
    ns = vars(parser.parse_args())
    source, out_dir, overwrite = ns.pop('input'), ns.pop('out_dir'), ns.pop('overwrite')
    end_on_signal()
    try:
        out, meta = prepare(task, ns, source, out_dir, overwrite)
    except ValueError as e:
        parser.exit(2, f'error: {e}\n')
    except OSError as e:  # the output's: prepare made the input's ValueErrors
        out = out_dir or task_dir(task, {**module.DEFAULTS, **ns}, module.DEFAULTS)
        parser.exit(2, f'error: {cannot_write(out, e)}\n')
    unit = 'examples' if meta['format'] == 'examples' else 'tokens'
    sizes = ', '.join(f'{s} {n:,}' for s, n in meta[unit].items())
    print(f'wrote {out}: {sizes} {unit} ({meta["encoding"]}, vocab {meta["vocab_size"]})')

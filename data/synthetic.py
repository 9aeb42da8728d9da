"""
Shared plumbing for the synthetic tasks (data/<task>/prepare.py): command-line flags, train/held-out
splits (i.i.d. draws; held-out inputs kept out of train unless the task says otherwise), atomic
writes, meta.json, and replacing a directory's data set as a whole. It is the lowest module of data/
(it imports none of the others), so the pieces every module shares live here too: ConfigError, the
error for bad input, and read_json, a JSON file a user or a run wrote. Each task's format lives in
its own prepare.py, which defines

    DEFAULTS = dict(...)               # the paper-scale settings; every key is a --flag
    def generate(rng, n, **args)       # n random examples -> (x, y), int arrays of shape (n, T)
    def describe(args) -> dict         # vocab_size, itos (token id -> text), what is scored,
                                       # block_size (T, from the settings alone: prepare checks
                                       # the data fit in memory before it draws them)
    def splits(args, rng) -> dict      # optional: {'train': (x, y), 'val': (x, y)}; default below
    EXCLUDE_HELD_OUT = False           # optional: let held-out inputs occur in train
                                       # (default_splits); or a function of the settings, when that
                                       # depends on them (Dyck-1's format)

An example is an input row x and a target row y of the same length; y is -1 where a position is
not scored (nanoGPT's ignore index). Files written to the task directory:
    train.npz, val.npz    arrays x (uint16) and y (int16 or int32)
    meta.json             moved in last, so its presence means the directory is complete
All of them are first written to a directory of this process's own (new.tmp<pid>/ in the task
directory) and moved in together when complete (new_files): an error, Ctrl-C or SIGTERM at any point
leaves the previous complete data or the new, never a mix or temporary files (a kill -9 leaves no
temporary files either: watch), and two processes preparing the same data both succeed. A prepare
refuses an out_dir that holds a meta.json of another task's, or of this task made otherwise, unless
told to overwrite it.
"""

import argparse
import errno
import importlib.util
import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import zipfile
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
from tqdm import tqdm

DATA_ROOT = Path(__file__).resolve().parent
VERSION = 2  # of the split rules; 1 drew distinct training inputs (skewed, see default_splits)


class ConfigError(ValueError):
    """Bad input: an unknown key, a wrong type, an impossible combination, missing data."""


def tasks():
    """The task names: every data/<name>/ that has a prepare.py."""
    return sorted(p.parent.name for p in DATA_ROOT.glob('*/prepare.py'))


def load_task(task):
    """Imports data/<task>/prepare.py as a module (the folders are scripts, not a package)."""
    path = DATA_ROOT / task / 'prepare.py'
    if not path.exists():
        raise ValueError(f'unknown task {task!r}; the tasks are {", ".join(tasks())}')
    spec = importlib.util.spec_from_file_location(f'prepare_{task}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_dir(task, args, defaults, root=DATA_ROOT):
    """root/<task>/ for the default settings and root/<task>/<k=v,...>/ when any setting differs, so
    that runs with different settings never read or overwrite each other's files; root is data/
    unless an experiment's --data_dir moves the whole tree elsewhere."""
    changed = {k: v for k, v in sorted(args.items()) if v != defaults[k]}
    name = ','.join(f'{k}={v}' for k, v in changed.items())
    for k, v in changed.items():
        if any(c in str(v) for c in '/\\\0'):  # '../x' would name a folder outside root
            raise ValueError(
                f"{k}={v!r} cannot be part of the data folder's name (it holds '/', '\\' or NUL): "
                f'give another value, or data_dir'
            )
    if len(name.encode()) > 200:  # a folder's name holds 255 bytes, and its temporaries a few more
        raise ValueError(
            f'{name[:60]}... names a data folder of {len(name.encode())} bytes, more than a '
            'folder name holds (200 here): give shorter values, or data_dir'
        )
    root = Path(root)
    return root / task / name if name else root / task


def excludes_held_out(module, args):
    """Whether default_splits redraws training examples that repeat a held-out input: the task's
    EXCLUDE_HELD_OUT (default True), a bool or a function of the settings."""
    rule = getattr(module, 'EXCLUDE_HELD_OUT', True)
    return rule(args) if callable(rule) else rule


def default_splits(module, args, rng, meta):
    """Both splits are i.i.d. draws from the task's generator, as in the papers' streaming data.
    Training draws that repeat a held-out input are rejected and redrawn (paper: "4,000 test pairs
    not in train"; the authors' code: depth.py), unless the task's EXCLUDE_HELD_OUT says otherwise
    (Dyck-1's paper-text format: see its prepare.py). Training inputs may repeat each other:
    requiring them distinct would skew the training distribution wherever the task has few distinct
    inputs of some kind (Dyck-1 at length 16 has ~2,000 balanced strings, so 100,000 distinct
    strings would be 1% balanced instead of ~45%). meta.json records what the rule cost: the share
    of training draws rejected (a warning is printed above 1%), or the share of held-out inputs that
    also occur in train. A finite table split without replacement defines its own splits() (modular
    addition)."""
    if args['n_train'] < 1 or args['n_test'] < 1:
        raise ValueError(
            f'n_train={args["n_train"]} and n_test={args["n_test"]} must both be at least 1'
        )
    gen_args = {k: v for k, v in args.items() if k not in ('n_train', 'n_test', 'seed')}
    val = module.generate(rng, args['n_test'], **gen_args)
    held_out = {row.tobytes() for row in val[0]}
    if not excludes_held_out(module, args):
        train = module.generate(rng, args['n_train'], **gen_args)
        seen = {row.tobytes() for row in train[0]}
        meta['held_out_in_train'] = float(np.mean([row.tobytes() in seen for row in val[0]]))
        return {'train': train, 'val': val}
    xs, ys, kept, drawn, rejected, stalled = [], [], 0, 0, 0, 0
    # a bar only for a person at a terminal (None: off when stderr is not one), and only when it
    # takes a while
    with tqdm(
        total=args['n_train'], desc='train', disable=args['n_train'] < 20_000 or None, leave=False
    ) as bar:
        while kept < args['n_train']:
            x, y = module.generate(rng, max(1024, args['n_train'] - kept), **gen_args)
            fresh = np.array([row.tobytes() not in held_out for row in x])
            keep = np.flatnonzero(fresh)[: args['n_train'] - kept]
            used = keep[-1] + 1 if len(keep) else len(x)  # the draws up to the last one kept
            drawn, rejected = drawn + used, rejected + int((~fresh[:used]).sum())
            xs.append(x[keep]), ys.append(y[keep])
            kept += len(keep)
            bar.update(len(keep))
            stalled = stalled + 1 if len(keep) == 0 else 0
            if stalled == 20:
                raise ValueError(
                    f'could not draw training examples outside the {args["n_test"]:,} '
                    f'held-out ones: '
                    f'they cover (nearly) every input of the task; lower n_test or enlarge the task'
                )
    meta['train_draws_rejected'] = rejected / drawn
    if rejected > 0.01 * drawn:
        print(
            f'warning: {rejected / drawn:.1%} of the training draws repeated a held-out input '
            f"and were redrawn, so the training distribution lacks that share of the task's; "
            f'a longer or larger task avoids it'
        )
    return {'train': (np.concatenate(xs), np.concatenate(ys)), 'val': val}


# the temporary files and folders this process may be writing (end_on_signal removes them)
TEMPORARIES = set()
# the output folders this process made for data not complete yet: removed at a stop where empty
MADE = set()
# the signals that stop a command line (end_on_signal; common.stop_on_signal for the tools that
# start processes), which commit holds until its files are all in place: Ctrl-C, a kill, a closed
# terminal, Ctrl-\ (whose default, a core dump, would leave the temporaries and the processes)
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def temporary(path):
    """path's temporary name, <name>.tmp<pid>: unique to this process, so two processes never share
    one. Registered in TEMPORARIES, so that SIGINT or SIGTERM removes it before the process ends,
    and with the watcher, which removes it however the process ends."""
    path = Path(path)
    tmp = path.with_name(f'{path.name}.tmp{os.getpid()}')
    TEMPORARIES.add(tmp)
    watch(tmp)
    return tmp


# A kill -9, the OOM killer or a crash ends a process without running any of its code, so its
# temporaries (a data set half-written, a checkpoint) would stay until the next prepare or run of
# that folder (remove_leftovers). A watcher process removes them instead: it reads their names from
# a pipe, and once the pipe closes, which the kernel does however this process ends, removes those
# still there (a temporary that was renamed into place is no longer under its name). The simplest
# design that holds: the OS removes no named folder by itself (O_TMPFILE makes one nameless file,
# not the folder new_files fills); a fork would copy the locks held by this process's threads, so
# the watcher is a fresh interpreter (-I -S: no site packages, a few ms); its own session keeps a
# Ctrl-C or a kill of this process's group from ending it first. remove_leftovers stays for what no
# process outlives (a power cut).
WATCHER = r"""
import os, shutil
names, rest = set(), b''
while chunk := os.read(0, 1 << 16):
    *done, rest = (rest + chunk).split(b'\0')
    names.update(done)
for name in names:
    if os.path.isdir(name) and not os.path.islink(name):
        shutil.rmtree(name, ignore_errors=True)
    elif os.path.lexists(name):
        try:
            os.unlink(name)
        except OSError:
            pass
"""
watcher = None  # this process's, started by the first temporary


def watch(path):
    """Tells the watcher (started on first use) the name of a temporary, to remove once this process
    has ended."""
    global watcher
    # none that could start (no processes left), or one someone killed: remove_leftovers is left
    with suppress(OSError):
        if watcher is None:
            watcher = subprocess.Popen(
                [sys.executable, '-I', '-S', '-c', WATCHER],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd='/',
                start_new_session=True,
            )
        watcher.stdin.write(os.fsencode(os.path.abspath(path)) + b'\0')
        watcher.stdin.flush()


def remove_leftovers(folder, names):
    """Removes the temporaries <name>.tmp<pid> in folder, for each of `names` (what this code writes
    there; a user's own file that happens to end in .tmp<digits> stays), of processes that no longer
    run: a power cut leaves them, or a kill -9 of the process and of its watcher. A running
    process's are its own (concurrent prepares of the same data)."""
    for name in names:
        for path in Path(folder).glob(f'{name}.tmp*'):
            pid = path.name[len(name) + 4 :]
            if pid.isdigit() and not running(int(pid)):
                remove(path)


def remove(path):
    """Removes a temporary file or folder, if it is there."""
    shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


def running(pid):
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        pass
    return True


def open_regular(path, mode='rb', **kwargs):
    """open(path, mode, **kwargs) for reading a file, refused (OSError) unless it is a regular one:
    a FIFO would block the read and a device never end it. Opened with O_NONBLOCK, so that opening a
    FIFO does not wait for a writer, then checked with fstat on what was opened, not on the name."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(kind):
            raise OSError(errno.EINVAL, 'not a regular file but a FIFO or a device', str(path))
        os.set_blocking(fd, True)
        return open(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def home(path, flag):
    """`path` with ~ or ~user expanded, as a shell does; ~user of no user here is refused: a shell
    leaves it as typed, so a folder named '~user' would be made in this one (and pathlib's
    expanduser raises)."""
    path = os.path.expanduser(str(path))
    if path.startswith('~'):
        raise ConfigError(
            f'{flag}={path}: {path.split(os.sep)[0]!r} names no user of this machine: give the '
            'full path'
        )
    return path


def one_each(pairs):
    """json's object_pairs_hook: an object of keys each given once (json.loads keeps the last of
    a key given twice without a word)."""
    value = {}
    for key, v in pairs:
        if key in value:
            raise KeyError(key)
        value[key] = v
    return value


def read_json(path, fix):
    """A JSON object from a file the user or a run wrote; anything else is a ConfigError that says
    `fix`."""
    try:
        # -sig: a BOM, as Windows editors write; a FIFO or a device is refused, not waited on
        with open_regular(path, 'r', encoding='utf-8-sig') as f:
            value = json.loads(f.read(), object_pairs_hook=one_each)
    # Recursion: nested 10^5 deep
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ConfigError(
            f'cannot read {path} ({getattr(e, "strerror", None) or type(e).__name__}): {fix}'
        ) from None
    except KeyError as e:  # one_each's
        raise ConfigError(f'{path} sets {e.args[0]!r} twice: keep one of them; {fix}') from None
    if not isinstance(value, dict):
        raise ConfigError(
            f'{path} holds a JSON {type(value).__name__}, not an object of keys: {fix}'
        )
    return value


def check_out_dir(out, task, overwrite, made=None, generated=False):
    """Before any work: an out_dir under a file, which cannot be made (NotADirectoryError, as
    mkdir's), and, unless overwrite, one whose meta.json is not this task's (another task's data, a
    file of the user's) or not made as these data are (`made`: the meta.json entries that say so,
    the settings and the input): data a run trains on would be replaced, and the run could not
    resume. A generated task's folder without meta.json holds no file a prepare did not write."""
    there = next(p for p in (out, *out.parents) if os.path.lexists(p))
    if not there.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(out))
    meta = out / 'meta.json'
    fix = 'choose another --out_dir, or add --overwrite to replace it'
    # a folder of data files another tool wrote (nanoGPT's train.bin, val.bin and meta.pkl)
    theirs = [f for f in ('train.bin', 'val.bin', 'meta.pkl') if os.path.lexists(out / f)]
    if not overwrite and theirs and not os.path.lexists(meta):
        raise ValueError(f'{out} holds {theirs[0]} and no meta.json, data not prepared here: {fix}')
    # a generated task's folder of the user's (--data_dir=/etc): files no prepare wrote (data/<task>
    # holds its prepare.py; a stopped prepare's temporaries are ours). A corpus's may hold its input
    others = sorted(
        f.name
        for f in (out.iterdir() if generated and out.is_dir() and not os.path.lexists(meta) else ())
        if not f.is_dir() and not f.name.endswith(('.py', '.md')) and '.tmp' not in f.name
    )
    if not overwrite and others:
        raise ValueError(
            f'{out} holds files no prepare wrote ({", ".join(others[:3])[:80]}) and no meta.json: '
            'give the data a folder of their own, an empty or new one'
        )
    if overwrite or not os.path.lexists(meta):
        return
    there = read_json(meta, f'it is not {task} data: {fix}')
    if there.get('task') != task:
        raise ValueError(
            f'{meta} is not the meta.json of {task} data (it says task {there.get("task")!r:.60}): '
            f'{fix}'
        )
    other = [k for k, v in (made or {}).items() if there.get(k) != v]
    if other:
        theirs = there['args'] if isinstance(there.get('args'), dict) else {}
        settings = ', '.join(f'{k}={v}' for k, v in theirs.items() if made['args'].get(k) != v)
        what = dict(
            args=f'other settings ({settings:.100})' if settings else 'other settings',
            input_sha256='another input',
            source='another source',
        )
        raise ValueError(
            f'{out} holds {task} data of {what[other[0]]}, which a run may train on: '
            f'{fix} (such a run could no longer resume)'
        )


def atomic_write(path, write):
    """Calls write(tmp) on a temporary name unique to this process, then renames it to path: a
    reader sees the old file or the new one, never half of one, and two processes writing the same
    file never share a name. The temporary file is removed if write fails or is interrupted."""
    path = Path(path)
    tmp = temporary(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        TEMPORARIES.discard(tmp)


@contextmanager
def new_files(out):
    """-> a directory in out to write a complete new data set into, meta.json included. If the block
    ends normally, its files replace out's (commit); if it fails or is interrupted, they are deleted
    and out keeps its previous files. The directory is this process's own, so concurrent prepares of
    the same data (the same files: the output is deterministic) do not disturb each other. An out
    made here is removed again on failure."""
    out = Path(out)
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    MADE.update([out] if made else [])
    new = temporary(out / 'new')
    remove_leftovers(out, ['new'])
    try:
        # left by a killed process whose pid this one reuses (containers do)
        shutil.rmtree(new, ignore_errors=True)
        new.mkdir()
        yield new
        commit(new, out)
        made = False
    finally:
        shutil.rmtree(new, ignore_errors=True)
        TEMPORARIES.discard(new)
        MADE.discard(out)
        if made:
            with suppress(OSError):  # not empty: another process's prepare is writing it too
                out.rmdir()


def commit(new, out):
    """Moves every file of the directory `new` into out, meta.json last, with SIGINT and SIGTERM
    held until all are in place (the signal takes effect right after): an interruption leaves out's
    old data or the new, both complete. Only SIGKILL or a crash in these few microseconds can leave
    new data files beside the old meta.json (data/loader.py catches that for a corpus: the .bin
    token counts disagree with meta.json) and `new` behind."""
    held = []
    # Handlers, not pthread_sigmask: a signal blocked in this thread goes to another one (tqdm's
    # monitor, OpenBLAS's workers), and Python runs the handler here all the same. Only the main
    # thread can set them.
    main = threading.current_thread() is threading.main_thread()
    old = {s: signal.signal(s, lambda s, _: held.append(s)) for s in STOPS} if main else {}
    try:
        for f in sorted(Path(new).iterdir(), key=lambda f: (f.name == 'meta.json', f.name)):
            os.replace(f, Path(out) / f.name)
        Path(new).rmdir()
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if held:
            signal.raise_signal(held[0])


def save_npz(path, x, y):
    """Writes x (uint16) and y (int16 where the ids fit, else int32; -1 = not scored) to path
    atomically. Arrays already of those types (memory-mapped ones too) are written without a
    copy."""
    assert x.max() < 2**16 and x.min() >= 0, 'token ids must fit in uint16'

    def write(tmp):
        with open(tmp, 'wb') as f:
            np.savez(
                f,
                x=np.asarray(x, dtype=np.uint16),
                y=np.asarray(y, dtype=np.int16 if y.max() < 2**15 else np.int32),
            )

    atomic_write(path, write)


def load_split(directory, split):
    """-> (x, y) as int64 numpy arrays of shape (N, T). Only a file as save_npz writes it, stored
    and not compressed: no small file expands to gigabytes when read (ValueError)."""
    path = Path(directory) / f'{split}.npz'
    with zipfile.ZipFile(path) as z:
        if any(member.compress_type != zipfile.ZIP_STORED for member in z.infolist()):
            raise ValueError(f'{path} is compressed, and save_npz stores its arrays uncompressed')
    with np.load(path) as f:
        x, y = f['x'], f['y']
        # floats would be cut to ids, booleans read as 0/1
        if x.dtype.kind not in 'iu' or y.dtype.kind not in 'iu':
            raise ValueError(f'{path} holds arrays of {x.dtype} and {y.dtype}, not of token ids')
        return x.astype(np.int64), y.astype(np.int64)


def prepare(task, overrides=None, out_dir=None, overwrite=False):
    """Generates data/<task>/ (or out_dir) from the task's DEFAULTS updated with overrides; returns
    (directory, meta). Deterministic: the same settings give byte-identical files. Until the new
    files are complete, the directory keeps its previous ones. Data of another task there is
    refused unless overwrite."""
    module = load_task(task)
    args = {**module.DEFAULTS, **(overrides or {})}
    out = Path(home(out_dir, '--out_dir')) if out_dir else task_dir(task, args, module.DEFAULTS)
    # what every task's settings share; each task checks its own ranges
    for key, value in args.items():
        if isinstance(value, float) and not math.isfinite(value) or key == 'seed' and value < 0:
            raise ValueError(
                f'{key}={value} must be ' + ('at least 0' if key == 'seed' else 'a finite number')
            )
    check_out_dir(out, task, overwrite, {'args': args}, generated=True)
    meta = {'task': task, 'args': args, 'version': VERSION, **module.describe(args)}
    vocab(meta['vocab_size'])  # the tasks whose settings set it check it in describe already
    split_fn = getattr(module, 'splits', None)
    fix = "make it smaller (n_train, n_test, the task's size)"
    # x and y of every example as int64, before any temporaries: refused before a draw that would
    # take the machine's memory (a Python loop over 10^8 digits of 10^13 bytes never ends)
    need = 16 * meta['block_size'] * (args.get('n_train', 0) + args.get('n_test', 0))
    have = free_memory()
    if have and need > have:
        raise ValueError(
            f'the {task} data of {args} would take at least {need / 2**30:,.1f} GiB, '
            f'and this machine has {have / 2**30:,.1f} GiB free: {fix}'
        )
    try:
        rng = np.random.default_rng(args['seed'])
        data = split_fn(args, rng) if split_fn else default_splits(module, args, rng, meta)
    except MemoryError:
        raise ValueError(f'the {task} data of {args} does not fit in memory: {fix}') from None
    assert data['train'][0].shape[1] == meta['block_size'], "describe gives the examples' length"
    meta['eval_split'] = 'val' if 'val' in data else 'train'
    with new_files(out) as new:
        for split, (x, y) in data.items():
            assert (
                x.shape == y.shape and x.max() < meta['vocab_size'] and y.max() < meta['vocab_size']
            )
            save_npz(new / f'{split}.npz', x, y)
            meta[f'n_{split}'] = len(x)
        write_meta(new, meta)
    return out, meta


def free_memory():
    """Bytes of RAM free now for this process (MemAvailable, and what it holds itself, which it
    reuses); None where it cannot be told."""
    try:
        with open('/proc/meminfo') as f:
            free = next(
                int(line.split()[1]) * 1024 for line in f if line.startswith('MemAvailable:')
            )
        with open('/proc/self/statm') as f:
            return free + int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
    except (OSError, StopIteration, ValueError, IndexError):  # not Linux
        if not hasattr(os, 'sysconf'):
            return None
        return os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')


def vocab(size):
    """A task's number of tokens, refused above what the files' 16-bit token ids hold. A task's
    describe calls it before it builds its itos of that size: settings of 10^9 would take gigabytes
    of memory first."""
    if size > 2**16:
        raise ValueError(
            f'these settings make {size:,} tokens, '
            f'and the files hold token ids of 16 bits: at most 65,536 tokens'
        )
    return size


def write_meta(out, meta):
    """meta.json, atomically; written last, so that its presence means the directory is complete."""
    atomic_write(out / 'meta.json', lambda tmp: tmp.write_text(json.dumps(meta, indent=2) + '\n'))


def end_on_signal():
    """Makes each of STOPS (Ctrl-C, a kill, ...) end the process at once: this process's temporary
    files and folders (TEMPORARIES) are removed, and the output folders it made for them (MADE)
    where they are empty, and it exits with status 128 + the signal's number, as a kill's. Whatever
    was complete stays: data sets and checkpoints are only ever renamed into place. Not by raising
    KeyboardInterrupt or SystemExit: an exception raised between two arbitrary bytecodes can land
    inside a library's `with lock:` before it is set up (threading.Condition.__enter__ under
    tiktoken's thread pool, importlib's module locks), leaving the lock held, and the process then
    hangs at exit instead of ending. A shell starts background jobs with SIGINT ignored; that stays
    so. For a command line's main thread."""

    def end(sig, _):
        try:
            for path in list(TEMPORARIES):
                remove(path)
            for path in list(MADE):
                with suppress(OSError):  # not empty: another process's prepare is writing it too
                    path.rmdir()
            # under torchrun, which ends the others when one fails: once
            if int(os.environ.get('RANK', 0)) == 0:
                os.write(2, f'\nstopped by {signal.Signals(sig).name}\n'.encode())
            # what was printed before; raises if the signal came in the middle of a print
            sys.stdout.flush()
        finally:
            os._exit(128 + sig)

    for s in STOPS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, end)


class Parser(argparse.ArgumentParser):
    """argparse with every command line's one-line errors: 'error: ...' and exit status 2, without
    the usage lines argparse prints before it (--help has them); the module's docstring as the
    help's description."""

    def __init__(self, doc):
        super().__init__(
            description=(doc or '').strip(), formatter_class=argparse.RawDescriptionHelpFormatter
        )

    def error(self, message):
        self.exit(2, f'error: {message} (see --help)\n')

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, but a flag given twice is refused (argparse keeps the later without a
        word): those that collect each value (--at) may repeat; after '--' nothing is read."""
        seen = {}
        for arg in sys.argv[1:] if args is None else args:
            if arg == '--':
                break
            action = self._option_string_actions.get(arg.split('=')[0]) if arg[:1] == '-' else None
            if action is None or isinstance(action, (argparse._AppendAction, argparse._HelpAction)):
                continue
            if action.dest in seen:
                self.error(f'{seen[action.dest]} and {arg} are given both: keep the one you mean')
            seen[action.dest] = arg
        return super().parse_known_args(args, namespace)


def some_names(text):
    """argparse's type of a flag of comma-separated names (--tasks, --only, --axes): given, it
    names one at least, since a flag left out means all of them and an empty one (`--tasks=$T` with
    T unset) would too."""
    if not any(name.strip() for name in text.split(',')):
        raise argparse.ArgumentTypeError(
            f'{text!r} names none (an unset variable?): name some, or leave the flag out for all'
        )
    return text


def cannot_write(out, e, where='--out_dir'):
    """The one line for an OSError e while writing to the folder out (a prepare's, a run's, a
    figure's): the OS's reason and what to do, with `where`, the flag or key that chooses the
    folder."""
    full = e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    fix = (
        f'free space on its disk, or set {where} to a folder on another'
        if full
        else f'set {where} to a folder you can write'
    )
    why = 'a file stands where a folder goes' if isinstance(e, FileExistsError) else e.strerror or e
    return f'cannot write to {out} ({why}): {fix}'


def decode(meta, row):
    """Token ids -> text, through meta['itos']."""
    return meta['sep'].join(meta['itos'][int(t)] for t in row)


def output_flags(parser):
    """--out_dir and --overwrite, the same in every prepare.py."""
    parser.add_argument(
        '--out_dir', default=None, help='where to write (default: data/<task>/[settings])'
    )
    parser.add_argument(
        '--overwrite',
        action='store_true',
        help="replace what --out_dir holds when its meta.json is not this task's (else refused)",
    )


def main(task_file):
    """The command line of data/<task>/prepare.py: one --flag per DEFAULTS key, plus
    output_flags."""
    task = Path(task_file).resolve().parent.name
    module = load_task(task)
    parser = Parser(module.__doc__)
    for k, v in module.DEFAULTS.items():
        parser.add_argument(f'--{k}', type=type(v), default=v, help=f'(default {v})')
    output_flags(parser)
    ns = vars(parser.parse_args())
    out_dir, overwrite = ns.pop('out_dir'), ns.pop('overwrite')
    end_on_signal()
    try:
        out, meta = prepare(task, ns, out_dir, overwrite)
    except ValueError as e:
        parser.exit(2, f'error: {e}\n')
    except OSError as e:  # a full disk, an out_dir inside a file
        out = out_dir or task_dir(task, {**module.DEFAULTS, **ns}, module.DEFAULTS)
        parser.exit(2, f'error: {cannot_write(out, e)}\n')
    sizes = ', '.join(f'{s} {meta[f"n_{s}"]:,}' for s in ('train', 'val') if f'n_{s}' in meta)
    print(
        f'wrote {out}: {sizes} examples of length {meta["block_size"]}, vocab {meta["vocab_size"]}'
    )

"""
A run's folder and its checkpoint: everything a run writes and reads back (as nanochat keeps its
checkpoints in a module of their own). A run lives in one folder, out_dir/<run name>/:

    config.json   the full config: `python train.py out/<run>/config.json` runs it again
    log.jsonl     one JSON line per evaluation
    ckpt.pt       weights, optimizer state, config, model args and the data's meta.json,
                  with their sha256
    .lock         held (flock) by the one process that writes the folder

train.py calls it where a run starts (load_checkpoint, resumed_config: the run to resume and its
config; configurator.find_run finds it with find_checkpoint), where the run's state comes back
(restore), and in one line where each evaluation is saved (Run.record).

Files are written to a temporary name and renamed. A checkpoint is read with weights_only and
checked against its checksum and its own model_args, so a crafted file is refused, not run.

Nothing here imports train.py or configurator.py: what depends on the keys (which keys name a
run, which --resume may change) is passed in.
"""

import errno
import fcntl
import hashlib
import json
import math
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import asdict, fields
from pathlib import Path

import torch
import torch.distributed as dist

from data.loader import check_meta
from data.synthetic import (
    ConfigError,
    atomic_write,
    cannot_write,
    open_regular,
    read_json,
    remove_leftovers,
    temporary,
)
from model import GPT, GPTConfig


class ReportedElsewhere(ConfigError):
    """What stops this process of a torchrun, which rank 0 reports (together)."""


@contextmanager
def together(ddp):
    """A block that may fail on some processes of a torchrun only (rank 0 alone writes the run's
    folder; each machine reads its own data).

    At its end all learn whether any failed, and all stop with the first failure's ConfigError,
    which rank 0 prints (configurator.command_line). Else the others would wait in their next
    collective for a process that has left: a gloo traceback, or an NCCL hang. No collective may
    run inside the block."""
    error = None
    try:
        yield
    except ConfigError as e:
        error = e
    if ddp:
        messages = [None] * dist.get_world_size()
        dist.all_gather_object(messages, error and str(error))
        rank, message = next(((r, m) for r, m in enumerate(messages) if m is not None), (0, None))
        if message is not None:
            message = message if rank == 0 else f'process {rank} of the run: {message}'
            raise ConfigError(message) if dist.get_rank() == 0 else ReportedElsewhere(message)
    elif error is not None:
        raise error


def differing(a, b, ignored=()):
    """The keys whose values differ between two configs (or two meta.json), a key one lacks
    included."""
    return [k for k in {**a, **b} if k not in ignored and a.get(k) != b.get(k)]


NAME_CHARS = 32  # the most characters of keys a run folder's name shows; its hash tells them all


def named_keys(keys):
    """-> (the keys a run folder's name shows, those it leaves out): whole 'key=value's in their
    order, the first always, the others while the name's keys fit in NAME_CHARS characters."""
    shown = keys[:1]
    for key in keys[1:]:
        if len(','.join(shown + [key])) > NAME_CHARS:
            break
        shown.append(key)
    return shown, keys[len(shown) :]


def run_dir(cfg, keys, not_named):
    """out_dir/run_name, or a name of the config's own: 'dyck-standard,seed=1-3f2a9c01'.

    That name is the task, then `keys` (the variant and the keys not at their default, 'key=value'
    each) as far as they fit (named_keys), with ',+Nmore' where N keys are left out, then a hash of
    every key outside not_named, so that runs of different configs never share a folder, whichever
    keys their names show."""
    if cfg['run_name']:
        return Path(cfg['out_dir']) / cfg['run_name']
    shown, left_out = named_keys(keys)
    readable = re.sub(r'[^\w.,=+-]', '_', ','.join(shown)) + (
        f',+{len(left_out)}more' if left_out else ''
    )
    named = json.dumps({k: v for k, v in cfg.items() if k not in not_named}, sort_keys=True)
    return (
        Path(cfg['out_dir'])
        / f'{cfg["task"]}-{readable}-{hashlib.sha256(named.encode()).hexdigest()[:8]}'
    )


def find_checkpoint(cfg, given, folder, resumable, action):
    """The ckpt.pt of an existing run, to `action` it (--resume, --sample). In order:

    - `folder` (the run_name's, or the config's own);
    - else the folders in out_dir whose config.json agrees with cfg on every key outside
      `resumable` (a run and its extensions with max_iters, each in its folder: Run's source);
    - else those that differ least, in keys `given` now only (so that resume can name the key it
      cannot change);
    the latest of them (its ckpt.pt's time), said in one line when there are several."""
    found = [folder]
    own = folder / 'ckpt.pt'
    if cfg['run_name'] and (not os.path.lexists(own) or own.is_dir()):  # that run's, or none
        raise ConfigError(
            f'cannot {action}: {own} is {"a folder" if own.is_dir() else "missing"}, and a '
            "run's folder holds the checkpoint it saved (at each eval_interval): give the folder "
            'of a run that saved one'
        )
    if not cfg['run_name'] and not (folder / 'ckpt.pt').exists():
        near = []  # (number of keys that differ, all of them given now; folder)
        for path in sorted(Path(cfg['out_dir']).glob('*/config.json')):
            if path.is_symlink():  # never a run's own (Run refuses them): it reaches elsewhere
                continue
            try:  # read_json refuses a FIFO, a device, a file nested thousands deep
                differ = set(differing(read_json(path, ''), cfg, resumable))
            except (ConfigError, RecursionError):  # not a run's config, so not this run
                continue
            near += [(len(differ), path.parent)] if differ <= set(given) else []
        found = [folder for n, folder in near if n == min(n for n, _ in near)]
    found = [f for f in found if (f / 'ckpt.pt').exists()]
    if len(found) > 1:  # a run and its extensions (each in its own folder): the latest
        found.sort(key=lambda f: (f / 'ckpt.pt').stat().st_mtime, reverse=True)
        if os.environ.get('RANK', '0') == '0':  # said once under torchrun
            print(
                f'{action}: {found[0]}, the latest of {len(found)} runs with these keys (the '
                f'others: {", ".join(f.name for f in found[1:])}; give its folder to choose one)',
                file=sys.stderr,
            )
    if not found:
        runs = Path(cfg['out_dir']).glob('*/ckpt.pt')
        newest = max(runs, key=lambda p: p.stat().st_mtime, default=None)
        command = 'sample.py --out_dir=' if action == 'sample' else 'train.py --resume '
        latest = f'; the latest there: python {command}{newest.parent}' if newest else ''
        raise ConfigError(
            f'cannot {action}: no run in {cfg["out_dir"]} has a ckpt.pt with these keys; give '
            f"the run's folder (out/<run>) or the keys it was trained with" + latest
        )
    return found[0] / 'ckpt.pt'


# what a damaged checkpoint's message says to do: nothing that deletes a run (the command without
# --resume trains the run again in its folder, and replaces the file once it is as far)
AGAIN = 'restore it from a copy, or train the run again (its command without --resume)'
# and one other code wrote (a key renamed since) or someone edited
OTHER_CODE = (
    "other code than this checkout's wrote it, or it was edited: resume it with the commit that "
    'trained it (git log), or train the run again'
)


# where a run writes or reads and what it sends: the command line decides, never a checkpoint (a
# file from elsewhere)
CHOSEN_NOW = ('out_dir', 'data_dir', 'wandb_log', 'wandb_project', 'wandb_run_name')


def resumed_config(ckpt, overrides, resolve, resumable):
    """A resumed run's config: the checkpoint's, with the keys given now, through `resolve`
    (configurator's); CHOSEN_NOW come from the command line alone.

    A key outside `resumable` given with a value other than the run's (its config's, else its
    model's) is refused, by name."""
    saved = {k: v for k, v in ckpt['config'].items() if k not in CHOSEN_NOW}
    try:
        resolve(saved)
    except ConfigError as e:  # the file's own config, apart from what is given now
        raise ConfigError(
            f"the run's ckpt.pt holds a config this train.py refuses ({e}): {OTHER_CODE}"
        ) from None
    cfg = resolve({**saved, **overrides})
    if 'data_dir' not in overrides and cfg['data_dir'] != ckpt['config'].get(
        'data_dir', cfg['data_dir']
    ):
        raise ConfigError(
            f'this run read its data from data_dir={ckpt["config"]["data_dir"]!r}: give that '
            f'data_dir again (a checkpoint does not choose where data is read or written), or the '
            f'one it moved to'
        )
    if cfg['max_iters'] < ckpt['step']:
        raise ConfigError(
            f"max_iters={cfg['max_iters']} is below the run's step {ckpt['step']}: a run does not "
            f'go back; give max_iters={ckpt["step"]} or more, or start a new run'
        )
    unchanged(ckpt, cfg, overrides, resumable, 'resume')
    return cfg


def unchanged(ckpt, cfg, overrides, resumable, action):
    """Refuses, by name, a key outside `resumable` given with a value other than the run's (its
    config's, else its model's): --resume would train another run on, --sample would say nothing
    and sample the run's own model."""
    why = {
        'resume': 'it fixes the model, the data or the optimizer state. Drop it, or start a new '
        'run',
        'sample': "the run's weights are its own model's, trained on its data: drop it, or "
        'sample from a run trained with it',
    }[action]
    saved = ckpt['config']
    for key in overrides:
        before = saved[key] if key in saved else ckpt['model_args'].get(key)
        if key not in resumable and cfg[key] != before:
            raise ConfigError(
                f'--{action} cannot change {key} ({before!r} in the run, {cfg[key]!r} given): {why}'
            )


def same_data(ckpt, meta):
    """A resumed run goes on with the data it was trained on: the checkpoint's meta.json (source,
    encoding, sizes). A fresh run (no checkpoint) has nothing to compare."""
    changed = differing(ckpt['meta'], meta, ('date',)) if ckpt else []
    if changed:
        raise ConfigError(
            f'the {meta["task"]} data is not what this run trained on ({changed[0]}: '
            f'{ckpt["meta"].get(changed[0])!r} then, {meta.get(changed[0])!r} now): prepare it '
            f'again as it was, or start a new run'
        )


def digest(obj, h=None):
    """sha256 over a checkpoint's tensors (dtype, shape, bytes) and plain values, in their order.

    Recorded at save time, it catches a file that still unzips but whose contents changed."""
    h = h or hashlib.sha256()
    if isinstance(obj, torch.Tensor):
        h.update(f'{obj.dtype}{tuple(obj.shape)}'.encode())
        h.update(obj.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy())
    elif isinstance(obj, dict):
        for key, value in obj.items():
            h.update(repr(key).encode())
            digest(value, h)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            digest(value, h)
    else:
        h.update(repr(obj).encode())
    return h


def save_checkpoint(ckpt, path):
    """Tensors and plain values only (so that weights_only loading reads it), with their checksum,
    atomically."""
    ckpt = {**ckpt, 'sha256': digest(ckpt).hexdigest()}

    def write(tmp):
        try:
            torch.save(ckpt, tmp)
        except RuntimeError as e:  # torch's writer says a failed write (a full disk) so
            raise OSError(errno.ENOSPC, 'torch.save could not write it, a full disk') from e

    atomic_write(path, write)


def load_checkpoint(path, resumable=None):
    """A checkpoint, for resume, --sample and the experiments.

    weights_only: run folders are shared, and a pickle can run any code when it is loaded, so only
    tensors and plain values are read; then the checksum is checked. A link is not followed: it
    would read another folder's file as this run's (own_file). With `resumable` (the keys a resume
    may change), the run it holds is its folder's (same_run)."""
    own_file(Path(path))
    try:  # a FIFO or a device would block or never end
        with open_regular(path) as f:
            ckpt = torch.load(f, map_location='cpu', weights_only=True)
    except OSError as e:
        raise ConfigError(f'cannot read {path} ({e.strerror or e}): {AGAIN}') from None
    except Exception as e:  # torch.load raises many types for a damaged file
        if 'Weights only load failed' in str(e):
            raise ConfigError(
                f'{path} holds objects other than tensors and plain values, which could run code '
                f'when loaded: it was not loaded. Delete it unless you know who made it and why'
            ) from None
        raise ConfigError(f'{path} is damaged ({type(e).__name__}): {AGAIN}') from None
    if not isinstance(ckpt, dict) or 'sha256' not in ckpt:
        raise ConfigError(
            f'{path} has no checksum: it was not written by this train.py; train the run again'
        )
    if digest({k: v for k, v in ckpt.items() if k != 'sha256'}).hexdigest() != ckpt['sha256']:
        raise ConfigError(
            f'{path} is damaged: its contents differ from the checksum saved with them; {AGAIN}'
        )
    kinds = dict(
        model=dict, optimizer=dict, scaler=dict, model_args=dict, config=dict, meta=dict, step=int
    )
    wrong = [
        key
        for key, kind in kinds.items()
        if not isinstance(ckpt.get(key), kind) or isinstance(ckpt[key], bool)
    ] or (['step'] if ckpt['step'] < 0 else [])
    if wrong:  # its checksum can be made again: a file from elsewhere
        raise ConfigError(
            f'{path} is damaged: its {wrong[0]} is missing or not '
            + ('a whole number from 0' if wrong[0] == 'step' else 'a dict')
            + f'; {AGAIN}'
        )
    check_meta(ckpt['meta'], f"{path}'s meta", AGAIN)  # --sample reads its tokens
    if not all(torch.isfinite(t).all() for t in ckpt['model'].values() if t.is_floating_point()):
        raise ConfigError(
            f'{path} is damaged: its weights hold NaN or inf (train.py never saves such weights); '
            f'{AGAIN}'
        )
    unknown = sorted(set(ckpt['model_args']) - {f.name for f in fields(GPTConfig)})
    if unknown:  # a flag renamed or removed since
        raise ConfigError(
            f'{path} names model_args {unknown[0]!r}, which GPTConfig lacks: {OTHER_CODE}'
        )
    model = meta_model(ckpt['model_args'], ckpt['model'])
    if not model or {k: v.shape for k, v in model.state_dict().items()} != {
        k: t.shape for k, t in ckpt['model'].items()
    }:
        raise ConfigError(
            f'{path}: its model_args do not describe its tensors: it is damaged, or {OTHER_CODE}'
        )
    if resumable is not None:
        same_run(ckpt, Path(path), resumable)
    return {**ckpt, 'file': file_id(path)}


def same_run(ckpt, path, resumable):
    """A folder holds one run's files: its ckpt.pt and config.json agree on every key a resume
    cannot change (`resumable`), else neither is read as the other's (a ckpt.pt copied in from
    another run would be resumed, its log made one log of two runs). Nothing is deleted: the user
    knows which file belongs where."""
    config = path.parent / 'config.json'
    if not config.exists():
        return
    saved = read_json(config, f'restore it from a copy: {path} beside it holds its run')
    # a run's checkpoint is never past the steps its config.json gives (a resume in place rewrites
    # it first): one beyond them is another run's, however alike their keys
    last = saved.get('max_iters')
    if isinstance(last, int) and not isinstance(last, bool) and ckpt['step'] > last:
        raise ConfigError(
            f'{path} is at step {ckpt["step"]}, beyond the max_iters={last} of {config}: they are '
            "two runs' files; put each in a folder of its own, or give the folder whose files are "
            'one run'
        )
    differ = differing(saved, ckpt['config'], resumable)
    if differ:
        key = differ[0]
        raise ConfigError(
            f"{path} and {config} are two runs' ({key}={ckpt['config'].get(key)!r} in ckpt.pt, "
            f'{saved.get(key)!r} in config.json): put each in a folder of its own, or give the '
            'folder whose files are one run'
        )


def meta_model(args, tensors):
    """The model a checkpoint's model_args build, on the meta device (which allocates nothing), if
    they are GPTConfig's and it asks for no more other memory than a few times its tensors; else
    None.

    The file is data from elsewhere, and its checksum can be made again: a block_size of 10^9 beside
    a small model's tensors would have the model ask for gigabytes. Sizes are first bounded by the
    file's, so that no loop runs 10^9 times."""
    if (
        not isinstance(args, dict)
        or not set(args) <= {f.name for f in fields(GPTConfig)}
        or not all(isinstance(t, torch.Tensor) for t in tensors.values())
    ):
        return None
    held = sum(t.numel() for t in tensors.values())
    try:
        sizes = [
            args.get(k, 0)
            for k in (
                'block_size',
                'vocab_size',
                'n_head',
                'n_embd',
                'n_classes',
                'universal_k',
                'universal_d',
                'base_width',
            )
        ]
        if any(v > held + 2**16 for v in sizes) or args.get('n_layer', 0) > len(tensors):
            return None
        with torch.device('meta'):
            model = GPT(GPTConfig(**args))
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
    return model if sum(b.numel() for b in model.buffers()) <= 16 * held + 2**20 else None


def restore(ckpt, model, optimizer, scaler):
    """A resumed run's weights, optimizer state and loss scale (float16 then and now) from its
    checkpoint.

    An optimizer state of other tensors than the model's (a file from elsewhere) is refused here,
    not met as a shape error at the first step."""
    # the config's, which resume keeps
    settings = [(g['betas'], g['weight_decay']) for g in optimizer.param_groups]
    try:
        model.load_state_dict(ckpt['model'])
        optimizer.load_state_dict(ckpt['optimizer'])
        if [(tuple(g['betas']), g['weight_decay']) for g in optimizer.param_groups] != settings:
            raise ValueError("optimizer settings other than the config's")
        if ckpt['scaler'] and scaler.is_enabled():
            scaler.load_state_dict(ckpt['scaler'])
    except (RuntimeError, ValueError, KeyError, TypeError, IndexError) as e:
        raise ConfigError(
            f"the run's ckpt.pt is damaged: its state does not load into the model "
            f'({type(e).__name__}: {str(e)[:80]}); {AGAIN}'
        )
    for group in optimizer.param_groups:
        for p in group['params']:
            if any(
                torch.is_tensor(v) and v.dim() and v.shape != p.shape
                for v in optimizer.state[p].values()
            ):
                raise ConfigError(
                    f"the run's ckpt.pt is damaged: its optimizer state holds a tensor of another "
                    f'shape than the {tuple(p.shape)} weight it belongs to; {AGAIN}'
                )


def file_id(path):
    """Which file is at path now; None if there is none.

    A checkpoint is replaced by a rename (a new inode), so this tells a file read earlier from the
    one there now."""
    try:
        st = Path(path).stat()
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size


def json_object(line):
    """Whether a log.jsonl line (bytes) is a whole JSON object."""
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):  # not JSON, not UTF-8; nested thousands deep
        return False


def logged(line):
    """Whether a log.jsonl line (bytes) is one train.py writes, as read_log reads it."""
    return log_entry(line.decode(errors='replace')) is not None


def logged_step(line):
    """The step of a log.jsonl line (bytes, any encoding) that `logged`; 0 for one without."""
    try:
        return int(json.loads(line.decode('utf-8', errors='replace'))['step'])
    except (
        ValueError,
        KeyError,
        TypeError,
        OverflowError,
        RecursionError,
    ):  # 1e400; nested thousands deep
        return 0


RUN_FILES = ('config.json', 'log.jsonl', 'ckpt.pt')  # what a run writes in its folder, beside .lock


class Run:
    """A run's folder while the run writes to it, as a context manager.

    With write=False (the other DDP ranks) it writes nothing, and with ddp every process stops with
    rank 0 when that cannot write (together).

    On entering:
    - a folder, or a file of it, that is a symbolic link is refused (the run would write through it
      to another folder);
    - a lock (flock, which the kernel drops when the process ends, so a crash leaves none behind)
      refuses a second process instead of mixing two runs' files;
    - a resume whose ckpt.pt was replaced after it read it (by another resume, which held the lock
      then) stops;
    - dead processes' temporaries are removed;
    - a fresh run does not replace another run's files unless cfg's overwrite is set (the keys in
      not_named say where and how a run is shown, not what it trains);
    - config.json is written and log.jsonl started: empty, or for a resumed run cut back to the
      checkpoint's step, atomically; a resumed run from another folder (`source`: an extension,
      whose config names another folder) starts with that folder's log and ckpt.pt (a hard link),
      which stay as they were;
    - W&B starts when wandb_log asks for it.

    Each record checks that the lock still guards the folder (one removed and made again could be
    locked by another process)."""

    def __init__(self, folder, cfg, meta, ckpt, not_named, write=True, ddp=False, source=None):
        self.folder, self.cfg, self.meta, self.ckpt, self.not_named = (
            folder,
            cfg,
            meta,
            ckpt,
            not_named,
        )
        self.resumed = self.saved_step = ckpt['step'] if ckpt else None
        self.write, self.ddp, self.lock, self.wandb, self.keep_until = write, ddp, None, None, 0
        self.source = source or folder  # where the checkpoint and the log so far are

    def __enter__(self):
        try:
            with together(
                self.ddp
            ):  # only rank 0 writes: if it cannot, the other processes stop with it
                if self.write:
                    self.open()
        except ConfigError:
            self.__exit__()
            raise
        return self

    def open(self):
        wandb = (
            wandb_module() if self.cfg['wandb_log'] else None
        )  # missing: refused before anything is written
        try:
            if (
                self.folder.is_symlink()
            ):  # the folder is the run's own: never written through a link to another one
                raise ConfigError(
                    f'{self.folder} is a symbolic link: remove it, or set out_dir to the folder it '
                    f'points to'
                )
            self.folder.mkdir(parents=True, exist_ok=True)
            odd = [
                name
                for name in ('.lock', *RUN_FILES)
                if (self.folder / name).is_symlink()
                or (self.folder / name).exists()
                and not (self.folder / name).is_file()
            ]
            if (
                odd
            ):  # a link: appending to it, or reading it as this run's, would reach another file
                raise ConfigError(
                    f'{self.folder / odd[0]} is a symbolic link or not a regular file, and a run '
                    f'reads and writes its own files only: remove it'
                )
            # O_NOFOLLOW: a link made since the check is refused too
            self.lock = os.fdopen(
                os.open(self.folder / '.lock', os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644), 'w'
            )
        except OSError as e:
            raise ConfigError(cannot_write(self.folder, e, 'out_dir')) from None
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if (
                self.ckpt and file_id(self.source / 'ckpt.pt') != self.ckpt['file']
            ):  # read before the lock was ours
                raise ConfigError(
                    f'another process wrote {self.source} after this one read its checkpoint: run '
                    f'the command again'
                )
            remove_leftovers(self.folder, RUN_FILES)
            if self.source != self.folder:  # an extension's folder holds the run's ckpt.pt from the
                # start: a link, as a save replaces the file by a rename (the source keeps its own)
                (self.folder / 'ckpt.pt').unlink(missing_ok=True)
                os.link(self.source / 'ckpt.pt', self.folder / 'ckpt.pt')
            self.check_fresh()
            if self.cfg['overwrite'] and self.resumed is None:
                self.set_aside()
            # the same config run again: the run there (finished or stopped) stays until this one is
            # as far
            self.keep_until = (
                self.step_there() if self.resumed is None and not self.cfg['overwrite'] else 0
            )
            self.saved_step = self.saved_step or self.keep_until or None
            log = self.folder / 'log.jsonl'
            self.log = temporary(log) if self.keep_until else log
            log_so_far = self.source / 'log.jsonl'
            written = (
                log_so_far.read_bytes() if self.resumed is not None and log_so_far.exists() else b''
            )
            lines = written.splitlines()
            if lines and not written.endswith(b'\n') and not json_object(lines[-1]):
                lines.pop()  # half a line: killed while written (a whole one lacks its newline)
            # a line train.py never writes would stay in the log, which compare_runs then refuses
            bad = next((i for i, line in enumerate(lines, 1) if not logged(line)), None)
            if bad:
                raise ConfigError(
                    f'{log_so_far} line {bad} is not a JSON object with a step and finite '
                    'numbers, as train.py writes: delete or repair that line, then resume (the run '
                    'itself is intact)'
                )
            if self.resumed is not None and not lines:
                print(
                    f'resume: {self.source} has no log.jsonl, or an empty one: the log starts '
                    f'again at step {self.resumed}',
                    file=sys.stderr,
                )
            if not self.keep_until:
                self.write_config()
            kept = b''.join(
                line + b'\n' for line in lines if logged_step(line) <= self.resumed
            )  # bytes as they were
            atomic_write(self.log, lambda tmp: tmp.write_bytes(kept))
            self.wandb = wandb and wandb.init(
                project=self.cfg['wandb_project'],
                name=self.cfg['wandb_run_name'] or self.folder.name,
                config=self.cfg,
            )
        except BaseException as e:
            self.lock.close()
            if self.keep_until:  # the new log's temporary, already written
                self.log.unlink(missing_ok=True)
            if isinstance(e, BlockingIOError):
                raise ConfigError(
                    f'another process is running in {self.folder}: wait for it, or use another '
                    f'run_name'
                ) from None
            if isinstance(e, OSError):  # a full disk, a folder made read-only
                raise ConfigError(cannot_write(self.folder, e, 'out_dir')) from None
            raise

    def set_aside(self):
        """overwrite=True: the run the folder holds moves to replaced/<n>/, the next number there
        (renames, no copy), so that a mistyped run_name loses nothing, nor a second overwrite the
        run the first replaced. A replaced that is not a folder (a file of the user's, a link) is
        refused before anything moves."""
        there = [name for name in RUN_FILES if (self.folder / name).exists()]
        if not there:
            return
        replaced = self.folder / 'replaced'
        if os.path.lexists(replaced) and (replaced.is_symlink() or not replaced.is_dir()):
            raise ConfigError(
                f'{replaced} is not a folder, and --overwrite keeps the run it replaces in '
                f'{replaced}/: move it elsewhere, or give another run_name'
            )
        taken = [int(p.name) for p in replaced.glob('*') if p.name.isdigit()]
        kept = replaced / str(max(taken, default=0) + 1)
        kept.mkdir(parents=True)
        for name in there:
            os.replace(self.folder / name, kept / name)
        print(f'overwrite: the run {self.folder} held is in {kept} now', file=sys.stderr)

    def write_config(self):
        text = json.dumps({**self.cfg, 'resume': False, 'overwrite': False}, indent=2) + '\n'
        atomic_write(self.folder / 'config.json', lambda tmp: tmp.write_text(text))

    def step_there(self):
        """The step of the folder's checkpoint; 0 if it has none, or a damaged one."""
        try:
            return (
                load_checkpoint(self.folder / 'ckpt.pt')['step']
                if (self.folder / 'ckpt.pt').exists()
                else 0
            )
        except ConfigError:
            return 0

    def check_fresh(self):
        """A fresh run (not resumed, not overwrite) refuses a folder that holds another run's files
        (any of them)."""
        config = self.folder / 'config.json'
        if (
            self.resumed is not None
            or self.cfg['overwrite']
            or not any((self.folder / f).exists() for f in RUN_FILES)
        ):
            return
        saved = read_json(
            config, "use overwrite=True to replace this folder's files, or another run_name"
        )
        differ = differing(saved, self.cfg, self.not_named)
        if differ:
            raise ConfigError(
                f'{self.folder} holds another run ({differ[0]}={saved.get(differ[0])!r} there, '
                f'{self.cfg.get(differ[0])!r} here): --resume it, use another run_name, or set '
                f'overwrite=True to replace it'
            )

    def record(self, metrics, model, optimizer, scaler):
        """One evaluation: its log line, the checkpoint of the weights that gave it, and W&B
        (rank 0; the other processes stop with it if it cannot write)."""
        with together(self.ddp):
            if self.write:
                try:
                    self.write_record(metrics, model, optimizer, scaler)
                except OSError as e:
                    kept = (
                        f'its ckpt.pt keeps step {self.saved_step}'
                        if self.saved_step
                        else 'no checkpoint saved'
                    )
                    raise ConfigError(
                        f'{cannot_write(self.folder, e, "out_dir")}; {kept}'
                    ) from None

    def write_record(self, metrics, model, optimizer, scaler):
        held = os.fstat(self.lock.fileno())
        if (file_id(self.folder / '.lock') or ())[:2] != (
            held.st_dev,
            held.st_ino,
        ):  # the lock guards another folder
            raise ConfigError(
                f'{self.folder} was removed or made again while this run wrote it, so another '
                f'process could write it too: this run stopped; start it again'
            )
        with open(
            self.log, 'a'
        ) as f:  # strict JSON, which has no NaN or Infinity: null for a number not finite
            f.write(
                json.dumps(
                    {
                        k: None if isinstance(v, float) and not math.isfinite(v) else v
                        for k, v in metrics.items()
                    },
                    allow_nan=False,
                )
                + '\n'
            )
        if self.wandb:
            self.wandb.log(metrics, step=metrics['step'])
        if metrics['step'] < self.keep_until:  # the run there is further on: it stays
            return
        if self.keep_until:  # as far as the run there: this one takes its place
            self.write_config()
            os.replace(self.log, self.folder / 'log.jsonl')
            self.log, self.keep_until = self.folder / 'log.jsonl', 0
        save_checkpoint(
            dict(
                model=model.state_dict(),
                optimizer=optimizer.state_dict(),
                scaler=scaler.state_dict(),
                model_args=asdict(model.config),
                step=metrics['step'],
                config=self.cfg,
                meta=self.meta,
            ),
            self.folder / 'ckpt.pt',
        )
        self.saved_step = metrics['step']

    def non_finite(self, step):
        """The error that stops a run whose loss became NaN or infinite; the last checkpoint is
        kept."""
        kept = (
            f'{self.folder / "ckpt.pt"} keeps the weights of step {self.saved_step}'
            if self.saved_step
            else 'no checkpoint was saved'
        )
        return FloatingPointError(
            f'the loss became non-finite by step {step} ({kept}): lower learning_rate, keep '
            f'grad_clip on, or use dtype=float32'
        )

    def __exit__(self, *exc):
        if self.wandb:
            self.wandb.finish()
        if self.keep_until:  # stopped before it was as far as the run there: its log goes
            self.log.unlink(missing_ok=True)
        if self.lock:
            self.lock.close()  # closing the file drops the flock


def wandb_module():
    """Weights & Biases, imported only when asked for; WANDB_MODE=offline keeps its runs on this
    machine."""
    try:
        import wandb
    except ImportError:
        raise ConfigError('wandb_log=True needs the wandb package: pip install wandb') from None
    return wandb


# ------------------------------------------------------------- reading runs back (compare_runs.py)


def is_run(folder):
    return (folder / 'log.jsonl').exists() or (folder / 'config.json').exists()


def read_log(folder):
    """-> the evaluations of log.jsonl as dicts; blank lines (none that train.py writes) are
    skipped."""
    path = folder / 'log.jsonl'
    if not path.exists():
        raise ConfigError(
            f'{folder} has no log.jsonl: train.py writes one at its first evaluation '
            f'(every eval_interval steps); leave this folder out or wait for it'
        )
    own_file(path)
    try:
        with open_regular(path) as f:  # a FIFO would block, a folder fail
            text = f.read().decode(errors='replace')  # bytes that are not UTF-8: a bad line
    except OSError as e:
        raise ConfigError(f'cannot read {path} ({e.strerror}): leave the run out') from None
    lines = []
    for i, text in enumerate(text.splitlines(), 1):
        if not text.strip():
            continue
        line = log_entry(text)
        if line is None:  # the line itself is not shown: the file may not be a log of ours
            raise ConfigError(
                f'{path} line {i} is not a JSON object with a step and finite numbers, as '
                'train.py writes: delete or repair that line, or leave the run out'
            )
        lines.append(line)
    if not lines:
        raise ConfigError(
            f'{path} is empty: the run has not finished its first evaluation (every eval_interval '
            f'steps); wait for it or leave the run out'
        )
    return lines


def log_entry(text):
    """A log.jsonl line as train.py writes it -> its dict: a JSON object with an int step and
    finite numbers (train.py writes null for one that is not, never NaN or Infinity), no int too
    large to draw as a float; else None."""
    try:
        line = json.loads(text, parse_constant=not_finite, parse_float=finite)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        return None
    if (
        not isinstance(line, dict)
        or type(line.get('step')) is not int
        or any(type(v) is int and abs(v) > 2**53 for v in line.values())
    ):
        return None
    return line


def not_finite(name):
    raise ValueError(f'{name} is not a number train.py writes')


def finite(text):
    """A JSON number as a float, refused (ValueError) where it is 1e999 or its like."""
    x = float(text)
    return x if math.isfinite(x) else not_finite(text)


def own_file(path):
    """A run's file read back is refused where it is a symbolic link: it would reach a file that is
    not the run's (train.py never writes one; Run refuses them too)."""
    if path.is_symlink():
        raise ConfigError(
            f'{path} is a symbolic link, and a run is read from its own files only: leave the run '
            'out, or replace the link by the file'
        )


def read_config(folder):
    path = folder / 'config.json'
    own_file(path)
    return (
        read_json(path, 'repair it or delete it (the run is then named by its folder)')
        if path.exists()
        else {}
    )

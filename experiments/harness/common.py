"""
The harness every experiment shares: its command line (the paper's protocol by default, --quick for
a CPU, --smoke for the tests), the train.py keys of a run (where it writes, where its data lives),
training through train.py, and the report: our numbers beside the paper's and the claims judged, in
<name>[-mode].json and .md under OUT_DIR/results/, or with --record under experiments/results/, the
folder the README's tables read (results_folder: a run leaves the checkout as it was unless asked).

What the papers and the authors' code set is in papers.py; the fair comparison of variants (search,
seeds, sweeps) in fair.py, which reports through this file. Every experiment that trains through
train.py writes its protocol in one shape, a dict per mode:

    PROTOCOL = {'full': dict(driver='depth.py', keys=dict(task='addition', ...),
                             sweep=dict(variant=[...])),
                'quick': ..., 'smoke': ...}

- driver: a key of papers.DRIVERS, the authors' script whose settings every run takes
  (papers.authors: their optimizer, initialization, schedule, data regime and MixiT block), or None:
  train.py's defaults for every key not in `keys`;
- keys: the train.py keys every run shares;
- sweep: the experiment's named axes, in the order its table reads them. An axis is a train.py key
  (`variant`, `task`, `n_layer`, ...) whose values are a list, or a dict {value: the train.py keys
  that go with it, a 'driver' among them replacing the protocol's}. A value may be a row's label
  whose keys name the train.py value it stands for: {('2-hop', 'attention only'): dict(task='khop',
  ...)}; for `variant`, the driver's settings are then a non-MixiT variant's: {'mixit, text':
  dict(variant='mixit', ...)}. The axes' keys merge in the point's order. A run is one value of each
  axis: config(PROTOCOL[mode], variant=..., n_layer=...), the call every experiment's own
  config(mode, ...) ends in. run() adds nothing to a run but where it is written and its data read
  (train_keys). With --plan, run() trains nothing: it lists the run and returns None, no metrics;
  each experiment lists its runs before its analysis and stops there (write_plan), so nothing
  downstream reads a metric that was not measured.

The rule of every --quick protocol: it shrinks the problem (the table, digits, sequence, width,
depth where the claim allows), not the training: it keeps the paper's epochs or examples per
parameter or per distinct input, its steps to convergence, its optimizer. Sizes come from a quantity
computed before any run (the bits per parameter a table needs, the examples per distinct input, the
held-out share, the head width), the computation in the experiment's docstring. Where the regime
does not fit 20 minutes on 2 cores at any size that still tests the claim, the docstring says so and
a TREND runs the same protocol at three sizes along the axis where --quick departs
(experiments/tools/trend.py).
"""

import argparse
import ast
import datetime
import errno
import functools
import hashlib
import importlib
import json
import math
import os
import platform
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager, suppress
from pathlib import Path

if __name__ == '__main__':  # the experiments' code, not a command (alone: an import's traceback)
    print(
        f'error: {__file__} is imported, not run: run an experiment, '
        'python experiments/<paper>/<name>.py, or a tool, python experiments/tools/<name>.py',
        file=sys.stderr,
    )
    sys.exit(2)

import torch

from data import corpus, local, synthetic
from data.loader import load_data, task_data, task_keys, task_module
from data.synthetic import ConfigError
from experiments.harness import papers, problems
from experiments.harness.claims import (
    claims_section,
    claims_text,
    judged,
    meaning,
    of_mode,
    seeds_of,
)
from experiments.harness.claims import pct  # noqa: F401 (the experiments' common.pct)
from model import GPT, GPTConfig
from checkpoint import read_log
from configurator import DEFAULTS, MODEL_DEFAULTS, check_keys, model_args_of, resolve, run_dir_of
from configurator import parse_args as train_args
from devices import pick_device
from train import train

ROOT = Path(__file__).resolve().parents[2]  # the repository root
EXPERIMENTS = ROOT / 'experiments'
# the results the README's tables read (experiments/tools/reproduce.py): written with --record only
RESULTS = EXPERIMENTS / 'results'
# the folders of experiments/ that hold no reproduction (config/: train.py's config files)
NOT_EXPERIMENTS = ('harness', 'results', 'config')


def experiment_path(name):
    """experiments/<folder>/<name>.py, a reproduction's or a tool's (names are unique across the
    folders); None if there is none."""
    if not name.isidentifier():  # '../train' names no experiment
        return None
    found = [p for p in EXPERIMENTS.glob(f'*/{name}.py') if p.parent.name not in NOT_EXPERIMENTS]
    return found[0] if len(found) == 1 else None


def experiment_module(name):
    """The module of experiments/<folder>/<name>.py, imported by its dotted name."""
    return importlib.import_module(f'experiments.{experiment_path(name).parent.name}.{name}')


def command_line_process():
    """For an experiment's own process (not a caller's): Ctrl-C or a kill leaves no temporaries and
    no process it started (stop_on_signal), and a ValueError that reaches the top (ConfigError
    included: a mistake in the input, missing or damaged data) ends in one line 'error: ...' and
    exit status 2, as train.py's own errors do. Any other exception keeps its traceback."""

    def hook(kind, error, tb):
        if not issubclass(kind, ValueError):
            return sys.__excepthook__(kind, error, tb)
        print(f'error: {error}', file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(2)  # an excepthook cannot choose the exit status otherwise; every finally has run

    stop_on_signal()
    sys.excepthook = hook


# ----------------------------------------------------------------------------- the processes a
# command line starts (reproduce.py and trend.py: experiments; throughput.py: its workers)

# the process groups of the processes this one waits for now (run_process)
CHILDREN = []


def run_process(command, capture_output=False, timeout=None, **popen):
    """subprocess.run(command, ...) in a process group of its own, listed in CHILDREN while it runs:
    a stop of this process (stop_on_signal) ends that group, the process and whatever it started,
    so that none is left running alone (writing results no README shows). After `timeout` seconds
    the group is ended the same way, and the returncode is 124 (timeout(1)'s) with what it wrote."""
    if capture_output:
        popen.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with subprocess.Popen(command, start_new_session=True, **popen) as proc:
        CHILDREN.append(proc.pid)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_group(proc.pid)
            out, err = proc.communicate()
            proc.returncode = 124
        finally:
            CHILDREN.remove(proc.pid)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def run_processes(commands, timeout, at_once=None, **popen):
    """run_process for {name: command} side by side, at most `at_once` at a time (the next starting
    as one ends; None: all at once), all within `timeout` seconds of the start -> {name:
    CompletedProcess} of those started, its output (stdout and stderr together) in stdout; each
    process group is listed in CHILDREN while it runs, one still running at the timeout is ended
    (returncode 124), and one not started by then is left out."""
    start, waiting, running, done, logs = time.monotonic(), list(commands), {}, {}, {}
    try:
        while (waiting or running) and time.monotonic() - start < timeout:
            while waiting and len(running) < (at_once or len(commands)):
                name = waiting.pop(0)
                logs[name] = tempfile.TemporaryFile('w+')
                running[name] = subprocess.Popen(
                    commands[name],
                    stdout=logs[name],
                    stderr=subprocess.STDOUT,
                    text=True,
                    start_new_session=True,
                    **popen,
                )
                CHILDREN.append(running[name].pid)
            for name, proc in list(running.items()):
                if proc.poll() is not None:
                    done[name] = proc.returncode
                    del running[name]
                    CHILDREN.remove(proc.pid)
            time.sleep(0.05)
        for name, proc in running.items():  # past the timeout
            end_group(proc.pid)
            proc.wait()
            done[name] = 124
        out = {}
        for name in [n for n in commands if n in done]:
            logs[name].seek(0)
            out[name] = subprocess.CompletedProcess(
                commands[name], done[name], logs[name].read(), ''
            )
        return out
    finally:
        for proc in running.values():
            if proc.poll() is None:
                end_group(proc.pid)
            if proc.pid in CHILDREN:
                CHILDREN.remove(proc.pid)
        for log in logs.values():
            log.close()


@contextmanager
def scratch_folder(prefix):
    """A temporary folder for a tool's runs, removed at the end, and by a stop too (Ctrl-C, a kill:
    synthetic.end_on_signal ends the process without unwinding a `with`)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        synthetic.TEMPORARIES.add(Path(folder))
        try:
            yield folder
        finally:
            synthetic.TEMPORARIES.discard(Path(folder))


def end_group(pid, grace=5.0):
    """Ends the process group that `pid` leads: SIGTERM, which each process answers by removing its
    temporaries and exiting, then SIGKILL to any left after `grace` seconds. The leader is reaped
    with os.waitpid, not Popen.wait: a signal handler may have interrupted Popen.wait, which holds
    a lock."""
    deadline = time.time() + grace
    with suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
        while time.time() < deadline:
            with suppress(ChildProcessError):  # reaped already
                os.waitpid(pid, os.WNOHANG)
            os.killpg(pid, 0)  # ProcessLookupError once the whole group is gone
            time.sleep(0.02)
        os.killpg(pid, signal.SIGKILL)


def stop_on_signal(note=lambda: ''):
    """For a command line's main thread: each of synthetic.STOPS (Ctrl-C, a kill, a closed
    terminal, Ctrl-\\) ends the processes it runs (end_group), says `note()` if it says anything,
    then ends this process as synthetic.end_on_signal does: its temporaries removed, one line
    'stopped by ...', exit status 128 + the signal. A signal the process was started ignoring
    (nohup's SIGHUP) stays ignored."""
    synthetic.end_on_signal()
    end = signal.getsignal(signal.SIGTERM)
    if not callable(end):  # started with SIGTERM ignored: every signal left as it is
        return

    def stop(sig, frame):
        for pid in list(CHILDREN):
            end_group(pid)
        if said := note():
            os.write(2, f'\n{said}'.encode())
        end(sig, frame)

    for s in synthetic.STOPS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, stop)


def parse_args(doc, add=lambda parser: None, argv=None, at_keys=None, own_dtype=False):
    """-> args, .mode in {'full', 'quick', 'smoke'}; `add(parser)` adds its own flags, `at_keys` its
    --at's keys; own_dtype: the experiment computes in --dtype itself (throughput), where one that
    trains nothing through train.py otherwise computes in float32 and refuses another. For the
    command line's own experiment, before any work: what it will write and read back is checked
    (check_outputs), and --plan of one that trains nothing through train.py writes its plan (no
    runs) and ends."""
    parser = synthetic.Parser(doc)
    parser.add_argument('--quick', action='store_true', help='a preview: minutes on a 2-core CPU')
    parser.add_argument(
        '--regime',
        action='store_true',
        help="the paper's training regime on the smallest problem that tests the claims (up to an "
        'hour on a 2-core CPU): where the verdict of a CPU comes from',
    )
    parser.add_argument(
        '--smoke', action='store_true', help='a few steps of everything: checks that the file runs'
    )
    parser.add_argument(
        '--out_dir',
        default=str(ROOT / 'out'),
        help='runs go to OUT_DIR/<name>/, the JSON beside, the results in OUT_DIR/results/',
    )
    parser.add_argument(
        '--record',
        action='store_true',
        help="also record the results in experiments/results/, which the README's tables read "
        '(experiments/tools/reproduce.py passes it); without it they go to OUT_DIR/results/',
    )
    parser.add_argument(
        '--data_dir',
        default='',
        help="the root that replaces data/: each task's files go to "
        "DATA_DIR/<task>/[<settings>]/, laid out as under data/; '' = data/ (default)",
    )
    parser.add_argument('--device', default='auto', help="'auto', 'cpu', 'cuda', ...")
    parser.add_argument(
        '--dtype',
        default=argparse.SUPPRESS,  # float32, unless the experiment sets its own; typed or not
        choices=('float32', 'tf32', 'bfloat16'),
        help="every run's compute dtype: float32, as the authors' drivers train (default); tf32, "
        "float32 with a GPU's TF32 matmuls; bfloat16 autocast, a GPU's fast option",
    )
    parser.add_argument(
        '--at',
        action='append',
        default=[],
        metavar='KEY=VALUE',
        help='a train.py key of every run, '
        "over the protocol's: a TREND's size, whose results go to OUT_DIR only (--at= alone: none)",
    )
    parser.add_argument(
        '--reuse',
        action='store_true',
        help='a run whose folder holds it finished (the same keys, trained to max_iters: '
        "gpu_run.py trains a protocol's runs side by side first) is evaluated from its checkpoint, "
        "not trained again; the results' wall time counts from the first such run's start",
    )
    parser.add_argument(
        '--plan',
        action='store_true',
        help='train nothing: list the runs the protocol would train '
        'in OUT_DIR/<name>-plan.json (experiments/tools/reproduce.py --plan prices them)',
    )
    add(parser)
    if '--micro_batch' not in parser._option_string_actions:  # an experiment's own stays
        parser.add_argument(
            '--micro_batch',
            type=int,
            default=0,
            help='full mode: examples per micro-batch of every run whose batch is larger, '
            'accumulated to the batch (one GPU holds the run); 0 = whole batches',
        )
    args = parser.parse_args(argv)
    if argv is None:  # the command line's own process, not a caller's
        command_line_process()
    if args.micro_batch < 0:
        parser.error(f'--micro_batch={args.micro_batch}: give a number of examples, or 0 for whole')
    # before any run or data (fair.py reads its data first): one line, exit status 2
    args.out_dir.strip() or parser.error(
        "--out_dir='' names no folder (not this one): give one (default: out/)"
    )
    # '~/x' as a shell expands it (and train.py its out_dir): the report goes beside the runs
    try:
        args.out_dir, args.data_dir = (
            synthetic.home(args.out_dir, '--out_dir'),
            synthetic.home(args.data_dir, '--data_dir'),
        )
    except ConfigError as e:
        parser.error(str(e))
    try:  # a TREND's size, whose results go to OUT_DIR only
        args.point, args.at = (
            bool(args.at),
            checked_at(train_args([f'--{a}' for a in args.at if a], flag='--at='), at_keys),
        )
    except ConfigError as e:
        parser.exit(2, f'error: {e}\n' if str(e).startswith('--at=') else f'error: --at: {e}\n')
    # an --at of dtype is every run's dtype, which the results record: --dtype's, said once
    typed, at = getattr(args, 'dtype', None), args.at.pop('dtype', None)
    if typed and at and typed != at:
        parser.error(f'--dtype={typed} and --at=dtype={at} disagree: give one of them')
    default = parser.get_default('dtype')
    args.dtype = at or typed or ('float32' if default == argparse.SUPPRESS else default)
    device = pick_device(args.device)  # a mistake before any data is generated (fair.py's)
    if args.dtype == 'tf32' and not device.startswith('cuda'):
        parser.error('--dtype=tf32 is a setting of CUDA tensor cores: on a CPU use float32')
    modes = [f'--{m}' for m in ('smoke', 'quick', 'regime') if getattr(args, m)]
    if len(modes) > 1:  # one would be dropped without a word
        parser.error(f'{modes[0]} and {modes[1]} are two protocols: give one of them')
    args.mode = (
        'smoke' if args.smoke else 'quick' if args.quick else 'regime' if args.regime else 'full'
    )
    if args.record and (args.mode == 'smoke' or args.point):
        parser.error('--record with --smoke or --at records nothing (OUT_DIR only): drop --record')
    if args.record and args.plan:
        parser.error('--plan trains nothing, so --record records nothing: drop one of them')
    # every task's files
    args.data_root = Path(args.data_dir) if args.data_dir else synthetic.DATA_ROOT
    # with --plan: each run's keys, corpora read
    args.plan_runs, args.plan_corpora, args.t0 = ([], set(), time.time())
    script = Path(sys.argv[0]).resolve()
    # the command line's experiment (not a worker it starts: throughput.py --worker)
    if (
        argv is None
        and experiment_path(script.stem) == script
        and not getattr(args, 'worker', None)
    ):
        if args.dtype != 'float32' and not (own_dtype or trains(script)):
            parser.error(
                f'--dtype={args.dtype}: {script.stem} trains nothing through train.py and '
                'computes in float32 (float64 where it says): drop --dtype'
            )
        check_outputs(args, script.stem)
        if args.plan and not trains(script):  # no train.py run to list: its plan, none of the work
            write_plan(args, script.stem)
            parser.exit()
    return args


def trains(path):
    """Whether the experiment file at `path` trains through train.py (its runs' keys made by
    config): the runs --plan lists and reproduce.py --plan prices."""
    return 'common.config(' in Path(path).read_text()


def check_outputs(args, name):
    """Before any work, so that nothing trained is lost to a path that cannot take its report: each
    file the experiment writes (report's and save_figure's; with --plan, its plan) can be written,
    and the results it reads back (report keeps their trend) are whole."""
    out, fix = Path(args.out_dir), 'set --out_dir to a folder you can write'
    if args.plan:
        return check_writable(out / f'{name}-plan.json', fix)
    for ext in ('json', 'png'):
        check_writable(out / f'{name}.{ext}', fix)
    published = [
        results_path(args.mode, name, ext, results_folder(args), args.point)
        for ext in ('json', 'md')
    ]
    if published[0] is None:  # --smoke, --at: OUT_DIR only
        return
    for path in [*published, published[0].with_suffix('.png')]:
        check_writable(path, RESULTS_FIX if args.record else fix)
    if published[0].exists():
        again = 'delete it to run the experiment again'
        read_results(published[0], fix=f'git checkout it, or {again}' if args.record else again)
    if published[1].exists():
        read_text(published[1])


def check_writable(path, fix):
    """Raises ConfigError, saying `fix`, where the file `path` cannot be written: a folder stands
    there, a file where one of its folders goes, or the nearest folder there cannot be written (a
    read-only checkout)."""
    path = Path(path)
    there = next(p for p in path.parents if os.path.lexists(p))
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, 'a folder stands where the file goes')
        with tempfile.TemporaryFile(dir=there):  # made and gone: whether a file can be made there
            pass
    except OSError as e:
        raise ConfigError(f'cannot write to {path} ({e.strerror}): {fix}') from None


def tool_folder(parser, value, files, dry):
    """A tool's OUT_DIR (gpu_check.py, profile_step.py), checked before any work: a folder (~
    expanded) where each of `files` can be written, and for a --dry run neither RESULTS nor a
    folder in it, where its CPU figures would replace or stand beside the GPU's recorded there. ->
    the folder, made."""
    if not value.strip():
        parser.error("OUT_DIR='' names no folder (not this one): give one, e.g. out/check")
    out = Path(os.path.expanduser(value)).resolve()
    if dry and out.is_relative_to(RESULTS.resolve()):
        parser.error(
            f'{value}: a dry run (the CPU version) would write its figures among the GPU results '
            'recorded in experiments/results: give a folder outside it, e.g. out/check'
        )
    try:
        for name in files:
            check_writable(out / name, 'give OUT_DIR a folder you can write')
        out.mkdir(parents=True, exist_ok=True)
    except ConfigError as e:
        parser.error(str(e))
    except OSError as e:
        parser.error(synthetic.cannot_write(out, e, 'OUT_DIR'))
    return out


class Parts:
    """A GPU tool's parts (gpu_check.py, gpu_run.py) as each ends: its command, time limit, seconds,
    exit status, result and the end of its output, printed in one line and written with the ones
    before to OUT_DIR/<name>.json, .md and .log, so that what finished is kept where a later part
    runs out of time. `summary(part, result)`: the result's cell in the .md's table; `before` and
    `after(parts)`: the .md's lines around it."""

    def __init__(self, out, name, head, info, summary, before=(), after=lambda parts: []):
        self.out, self.name, self.head, self.info = out, name, head, info
        self.summary, self.before, self.after = summary, list(before), after
        self.parts, self.log = [], [head, *self.before]

    def record(self, part, command, limit, seconds, code, result, output):
        status = 'passed' if code == 0 else 'timed out' if code == 124 else f'failed (exit {code})'
        self.parts.append(
            dict(
                part=part,
                command=command,
                limit_s=limit,
                seconds=round(seconds, 1),
                status=status,
                result=result,
                output_tail=output[-4000:],
            )
        )
        line = (
            f'{part}: {status} in {seconds:.0f} s (limit {limit} s); {self.summary(part, result)}'
        )
        print(line, flush=True)
        self.log += [f'\n===== {line}\n$ {command}', output]
        rows = [
            {
                'part': d['part'],
                'status': d['status'],
                'time': f'{d["seconds"]:.0f} s / {d["limit_s"]} s',
                'result': self.summary(d['part'], d['result']),
            }
            for d in self.parts
        ]
        table = markdown(['part', 'status', 'time', 'result'], rows)
        md = [self.head, '', *self.before, table, *self.after(self.parts)]
        for suffix, text in (
            ('json', json.dumps({**self.info, 'parts': self.parts}, indent=1, default=str)),
            ('md', '\n'.join(md) + '\n'),
            ('log', '\n'.join(self.log) + '\n'),
        ):
            write_text(self.out / f'{self.name}.{suffix}', text)

    def failed(self):
        return any(d['status'] != 'passed' for d in self.parts)


def read_text(path):
    """A text file of ours (a results .md, the README): one line if it cannot be read as text."""
    try:
        with synthetic.open_regular(path, 'r', encoding='utf-8') as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, 'strerror', None) or 'not UTF-8 text'
        raise ConfigError(f'cannot read {path} ({why}): git checkout it') from None


# --at's keys: `own`, else train.py's, the model's or a task's; values of their type
def checked_at(at, own=None):
    for key in set(at) - set(own or at):
        raise ConfigError(f'unknown key {key!r}: one of {[*own]}')
    for key in set(at) & {
        'out_dir',
        'data_dir',
        'device',
        'run_name',
        'resume',
        'overwrite',
        'sample',
    }:
        raise ConfigError(
            f"{key} is not a key of every run (the harness's own flag, or one run's): drop it"
        )
    # what the protocol varies between its runs: one value for all would make its seeds one run,
    # or its rows one variant under their labels
    for key, fix in (('seed', '--seeds'), ('data_seed', '--seeds'), ('variant', 'its rows')):
        if key in at:
            raise ConfigError(f"{key} differs between the protocol's runs ({fix}): drop it")
    if 'task' in at:  # its claims are of its own tasks, and its rows are labelled by them
        raise ConfigError(
            "task is the experiment's own (its claims and rows are its tasks'): drop it, or "
            'choose among its tasks with --tasks where it has several'
        )
    return check_keys(
        at,
        own
        or {
            **{k: v for t in synthetic.tasks() for k, v in task_keys(task_module(t)).items()},
            **MODEL_DEFAULTS,
            **DEFAULTS,
        },
    )


def config(protocol, **point):
    """train.py's keys of the run at `point` (a value of each sweep axis) of a PROTOCOL[mode] (the
    shape above)."""
    keys, extra = {**protocol['keys'], **point}, {}
    for axis, value in point.items():
        values = protocol['sweep'][axis]
        extra.update(values[value] if isinstance(values, dict) else {})
    driver, label = extra.pop('driver', protocol['driver']), keys.pop('variant', 'standard')
    # a row labelled otherwise (the text's MixiT) names the variant it trains
    variant = extra.pop('variant', label)
    return {**papers.authors(driver, label, **{**keys, **extra}), 'variant': variant}


# ----------------------------------------------------------------------------- a run's keys, data
# and training


def train_keys(args, config, name=''):
    """The one place that turns the command line and a run's config into train.py's keys: the
    config, --dtype, --at's keys, the device, progress bar, out_dir (OUT_DIR/<name>), the batch
    as micro-batches of --micro_batch (full mode) and, with --data_dir, the task's folder there (as
    in data/)."""
    keys = {
        **config,
        'dtype': args.dtype,
        **args.at,
        'device': args.device,
        'progress': args.mode != 'smoke',
        'out_dir': str(Path(args.out_dir) / name),
    }
    # --micro_batch (full): a batch larger than it, as accumulated micro-batches
    batch = keys.get('batch_size', DEFAULTS['batch_size'])
    if args.mode == 'full' and 0 < args.micro_batch < batch:
        keys.update(batch_keys(args, batch * keys.get('gradient_accumulation_steps', 1)))
    if args.data_dir and 'data_dir' not in config:
        cfg = resolve({**config, **args.at})
        module, settings, _ = task_data(cfg)
        keys['data_dir'] = str(
            synthetic.task_dir(config['task'], settings, module.DEFAULTS, root=args.data_dir)
        )
    return keys


def task_shape(cfg):
    """-> (the task's meta: vocabulary, classes; its sequence length T) for a resolved config, from
    the task's settings alone (describe's block_size; a corpus's block), no data drawn or read."""
    module, settings, _ = task_data(cfg)
    if not hasattr(module, 'generate'):  # a corpus
        return dict(vocab_size=corpus.ENCODINGS[cfg['encoding']], classes=[0, 1]), corpus.BLOCK_SIZE
    meta = module.describe(settings)
    return meta, meta['block_size']


@functools.lru_cache(maxsize=None)
def model_cost(model_args):
    """-> (config, parameters, trained ones, FLOPs per token) of a model, once: runs repeat it over
    seeds and lrs."""
    with torch.device('meta'):
        model = GPT(GPTConfig(**json.loads(model_args)))
    sizes = [(p.numel(), p.requires_grad) for p in model.parameters()]
    return (
        model.config,
        sum(n for n, _ in sizes),
        sum(n for n, trained in sizes if trained),
        model.flops_per_token(),
    )


def cost(keys):
    """-> a planned run's steps, tokens, FLOPs, parameters and one GPU's memory: weights, gradients
    and AdamW moments of the trained ones, one micro-batch's activations (34 bytes per token, width
    and layer at 16 bits, Korthikanti et al. 2022 less the scores flash attention never stores;
    twice in float32) and logits; the task's shape without data."""
    cfg = resolve(keys)
    meta, T = task_shape(cfg)
    c, params, trained, per_token = model_cost(
        json.dumps(model_args_of(cfg, meta, T), sort_keys=True)
    )
    # 'auto': bfloat16 on a GPU
    dtype = cfg['dtype'] if cfg['dtype'] in ('float32', 'tf32', 'bfloat16') else 'bfloat16'
    tokens = (
        cfg['max_iters'] * cfg['batch_size'] * cfg['gradient_accumulation_steps'] * c.block_size
    )
    activations = (
        cfg['batch_size']
        * c.block_size
        * (c.n_layer * c.n_embd * 17 * (2 if dtype == 'bfloat16' else 4) + 8 * c.vocab_size)
    )
    return dict(
        steps=cfg['max_iters'],
        tokens=tokens,
        flops=per_token * tokens,
        params=params,
        memory=4 * params + 12 * trained + activations,
        dtype=dtype,
    )


def trained_params(config):
    """The trainable parameters of a run's model (train.py's keys), built on the meta device: what
    a REGIME's examples per parameter divide by, computed before any run."""
    cfg = resolve(config)
    with torch.device('meta'):
        model = GPT(GPTConfig(**model_args_of(cfg, *task_shape(cfg))))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def regime_size(protocol, keys, per_param, counted=None):
    """A diagnosis's size (trend.py --diagnose's --at keys): `keys` over the run of a regime
    `protocol`, with the fewest steps (one evaluation, at the end) that keep `per_param` examples
    per trained parameter of its model (of variant `counted`'s, where the regime counts another
    model's)."""
    run = {**config(protocol), **keys}
    trained = trained_params({**run, **({'variant': counted} if counted else {})})
    steps = math.ceil(
        per_param * trained / (run['batch_size'] * run.get('gradient_accumulation_steps', 1)) - 1e-9
    )
    return {**keys, 'max_iters': steps, 'eval_interval': steps}


def examples_per_param(config):
    """A run's training examples (steps x batch x accumulation) per trainable parameter of its
    model: the regime quantity of a stream of examples (the papers' 'examples per parameter')."""
    steps = config['max_iters'] * config['batch_size']
    return steps * config.get('gradient_accumulation_steps', 1) / trained_params(config)


def run(args, name, **config):
    """Trains one run of experiment `name` (config: train.py keys) in OUT_DIR/<name>/ -> its
    metrics. With --plan it trains nothing: it lists the run (for write_plan) and returns None, no
    metrics, so an experiment lists its runs first and stops before its analysis (`if args.plan:
    return common.write_plan(args, NAME)`)."""
    keys = train_keys(args, config, name)
    if args.plan:
        args.plan_runs.append(keys)
        return None
    if args.reuse and (folder := finished(keys)):
        # the results' wall time counts from the first run read, started when it wrote its config
        args.t0 = min(args.t0, (folder / 'config.json').stat().st_mtime)
        return train({**keys, 'resume': True, 'compile': False})  # its evaluation, uncompiled
    return train(keys)


def finished(keys):
    """The folder of the run of train.py keys `keys` where it holds the run trained to max_iters
    (its log's last evaluation at that step, its checkpoint and config), else None."""
    cfg = resolve(keys)
    folder = run_dir_of(cfg)
    if not all((folder / f).is_file() for f in ('ckpt.pt', 'log.jsonl', 'config.json')):
        return None
    log = read_log(folder)
    return folder if log and log[-1]['step'] == cfg['max_iters'] else None


def measured_on_train(args, config):
    """Whether the config's task is measured on its training set (memorization: nothing
    generalises), so that a search selects on the metric itself, not on a validation split. With
    --plan, which generates no data to read the meta.json of, memorization alone is."""
    if args.plan:
        return config.get('task') == 'memorization'
    cfg = resolve(train_keys(args, config))
    meta = load_data(cfg)[0]
    return meta['eval_split'] == 'train'


def write_plan(args, name):
    """--plan's output: the runs listed (run) and the corpora read, in OUT_DIR/<name>-plan.json,
    which experiments/tools/reproduce.py --plan prices; nothing else is written."""
    path = Path(args.out_dir) / f'{name}-plan.json'
    path.parent.mkdir(parents=True, exist_ok=True)
    plan = dict(name=name, mode=args.mode, runs=args.plan_runs, corpora=sorted(args.plan_corpora))
    write_text(path, json.dumps(plan, default=str) + '\n')
    print(f'{name}: {len(args.plan_runs)} runs planned in {path}')


def command(args, config, name):
    """The train.py command line of a run, to run it through torchrun on several GPUs instead."""
    keys = {
        k: v for k, v in train_keys(args, config, name).items() if k not in ('device', 'progress')
    }
    return 'python train.py ' + ' '.join(f'--{k}={shlex.quote(str(v))}' for k, v in keys.items())


def corpus_dirs(args, tasks, otherwise):
    """-> the prepared folder of each corpus; a missing one stops the experiment at once, before
    anything trains, with the prepare command of each missing corpus and `otherwise`."""
    dirs = [task_data(resolve(train_keys(args, {'task': task})))[2] for task in tasks]
    args.plan_corpora.update(tasks)
    missing = [(task, d) for task, d in zip(tasks, dirs) if not (d / 'meta.json').exists()]
    if missing and not args.plan:
        steps = '; '.join(
            f'python data/{task}/prepare.py{f" --out_dir={d}" if args.data_dir else ""}'
            for task, d in missing
        )
        raise ConfigError(
            f'no prepared data in {", ".join(str(d) for _, d in missing)}: prepare it first '
            f'({steps}; add --input=LOCAL_FILES to use local files; data/README.md, "Text '
            'corpora"), or '
            f'{otherwise}'
        )
    return dirs


def yelp_data(args):
    """-> the train.py keys of the Yelp runs: none in full (the corpus; a missing one stops the
    experiment at once), else a tiny byte-level stand-in (data/local.py), so that the tests run Yelp
    too."""
    if args.mode == 'full':
        corpus_dirs(args, ['yelp'], 'run the script with --quick (which skips Yelp)')
        return {}
    try:
        return local.tiny_yelp(args.data_root / 'yelp' / 'smoke')
    except OSError as e:  # --data_dir a file, or a folder it cannot write
        raise ConfigError(synthetic.cannot_write(args.data_root, e, '--data_dir')) from None


def byte_text(args, name):
    """-> the folder of a byte-level 'text' corpus of --text (else Debian's license texts; --smoke:
    a few lines)."""
    return local.byte_text(args.data_root / 'text' / name, args.text, args.mode == 'smoke')


def batch_keys(args, batch):
    """train.py's keys for `batch` examples a step: in full, the fewest accumulated micro-batches of
    at most --micro_batch examples that make it up exactly (4,000 at 128: 32 of 125; one GPU)."""
    micro = args.micro_batch if args.mode == 'full' and args.micro_batch > 0 else batch
    steps = -(-batch // micro)
    while batch % steps:
        steps += 1
    return dict(batch_size=batch // steps, gradient_accumulation_steps=steps)


# ----------------------------------------------------------------------------- the report


def device_name(device='auto'):
    if device in ('auto', 'cuda') and torch.cuda.is_available() or device.startswith('cuda'):
        return torch.cuda.get_device_name()
    cpu = platform.processor() or platform.machine()
    return f'CPU ({cpu}, {os.cpu_count()} cores, {torch.get_num_threads()} threads)'


def markdown(columns, rows):
    lines = ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    lines += ['| ' + ' | '.join(str(row.get(c, '')) for c in columns) + ' |' for row in rows]
    return '\n'.join(lines)


def cpu_regime(module):
    """Whether an experiment's module has a --regime protocol (REGIME['regime']): the paper's regime
    at a size a CPU trains within an hour; its docstring says why where one that trains has none
    (claims.standing reads it only for one that trains)."""
    return 'regime' in getattr(module, 'REGIME', {})


def judged_by(results, name, declared, trains=None):
    """-> the results judged on the `declared` claims (claims.judged) with what the experiment's
    file says of them: whether it trains (its REGIME, unless `trains` says), its --regime, and the
    claims its DIAGNOSIS puts beyond a CPU."""
    module = experiment_module(name)
    trains = hasattr(module, 'REGIME') if trains is None else trains
    beyond = getattr(module, 'DIAGNOSIS', {}).get('beyond')
    # its problem measured from the generator, on the code that made the results (other code's
    # keys are not the file's now)
    made_here = results.get('source') == source_digest(name)
    if hasattr(module, 'PROBLEM') and 'problem' not in results and made_here:
        results = {**results, 'problem': problems.rows(module.PROBLEM, results['mode'])}
    return judged(results, declared, trains, trains and cpu_regime(module), beyond)


def source_digest(name):
    """A digest of the experiment's file without docstring, comments, TREND and DIAGNOSIS (the
    sizes trend.py runs) and PROBLEM (measures of its problem, harness/problems.py), which change
    nothing of the experiment's own runs: its results are current while it holds."""
    tree = ast.parse(experiment_path(name).read_text())
    if ast.get_docstring(tree) is not None:
        tree.body = tree.body[1:]
    tree.body = [
        n
        for n in tree.body
        if not {getattr(t, 'id', None) for t in getattr(n, 'targets', [])}
        & {'TREND', 'DIAGNOSIS', 'PROBLEM'}
    ]
    return hashlib.sha256(syntax(tree).encode()).hexdigest()[:16]


def syntax(tree):
    """ast.dump(tree) as Python 3.11 writes it, on any Python from 3.11: a GPU machine's 3.12 adds
    an empty `type_params` to every def and class (and 3.13 leaves empty fields out), which changed
    the source digest of the same file, so results recorded there read "earlier code" here."""
    for node in ast.walk(tree):
        if getattr(node, 'type_params', None) == []:
            del node.type_params
    return ast.dump(tree, **({'show_empty': True} if sys.version_info >= (3, 13) else {}))


def claims_source(code):
    """The source of the statements that make CLAIMS in an experiment's `code` and of the top-level
    definitions they use: what a claims digest covers."""

    # the names a statement assigns (CLAIMS['smoke'] = ... assigns CLAIMS) or defines
    def binds(node):
        return {
            getattr(t, 'id', None) or getattr(getattr(t, 'value', None), 'id', None)
            for t in getattr(node, 'targets', [])
        } | {getattr(node, 'name', None)}

    tree = ast.parse(code)
    made = [n for n in tree.body if 'CLAIMS' in binds(n)]
    used = {n.id for m in made for n in ast.walk(m) if isinstance(n, ast.Name)} - {'CLAIMS'}
    return (
        '\n'.join(
            ast.get_source_segment(code, n) for n in tree.body if n in made or binds(n) & used
        )
        or None
    )


def claims_digest(code):
    """A digest of the claims an experiment's `code` declares (claims_source), which its results
    record: reproduce.py --check finds them committed before the results."""
    source = claims_source(code)
    return None if source is None else hashlib.sha256(source.encode()).hexdigest()[:16]


def write_text(path, text):  # whole or not at all: a temporary name, then a rename
    synthetic.atomic_write(path, lambda tmp: Path(tmp).write_text(text))


# where recorded results (--record) cannot be written
RESULTS_FIX = (
    'results are recorded in the checkout with --record: make it writable, or run without --record '
    '(results go to OUT_DIR/results/)'
)
# the keys of a results JSON that its readers read (report writes them all), and their types
RESULTS_KEYS = dict(
    name=str,
    mode=str,
    date=str,
    device=str,
    dtype=str,
    source=(str, type(None)),
    claims_digest=(str, type(None)),
    wall_s=(int, float),
    values=dict,
    claims=list,
    regime=(list, type(None)),
    at=dict,
    trend=dict,
    diagnosis=dict,
    fair=dict,
)


def per_seed(value):
    """Whether a results' value is one: a number per seed, one number, or (recovered results) their
    statistics (claims.seed_range)."""
    numbers = value if isinstance(value, list) else [value]
    if isinstance(value, dict):
        numbers = [value.get(k) for k in ('min', 'max', 'mean', 'n')]
    return bool(numbers) and all(number(v) for v in numbers)


def number(v):  # a finite number, not a bool (True is an int to Python) or JSON's NaN
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def iso_date(text):
    try:
        return bool(datetime.date.fromisoformat(text))
    except (TypeError, ValueError):
        return False


def named_as(path, results):
    """Whether results' name and mode are the file's (results_path: <name>[-mode].json; a TREND's
    size <name>.json under trend/): a file renamed, or edited to another mode, would be read as
    another protocol's results."""
    stem, mode = Path(path).stem, results.get('mode')
    if not isinstance(results.get('name'), str) or results['name'] not in stem:
        return False
    if mode == 'full':
        return not stem.endswith(('-quick', '-regime'))
    return stem.endswith(f'-{mode}') or 'trend' in Path(path).parts


def read_results(path, needs=(), fix='git checkout it, or rerun its experiment'):
    """-> the results JSON at `path`: an object whose keys hold RESULTS_KEYS' types, a number per
    seed for each value and each regime's figure, and the keys its reader `needs`; anything else (a
    file edited by hand, cut short) is bad input: one line that names the file, says what is wrong
    (not the file's bytes) and `fix`."""
    try:
        with synthetic.open_regular(path, 'r', encoding='utf-8') as f:
            results = json.loads(f.read())
    # ValueError: not JSON, not UTF-8; RecursionError: nested thousands deep
    except IsADirectoryError:
        why = 'a folder, not a results file'
        raise ConfigError(f'{path} is {why}: remove it, then {fix}') from None
    except (OSError, ValueError, RecursionError) as e:
        why = getattr(e, 'strerror', None) or getattr(e, 'msg', None) or type(e).__name__
        raise ConfigError(f'{path} is damaged ({why}): {fix}') from None
    if not isinstance(results, dict):
        raise ConfigError(f'{path} is damaged (a JSON {type(results).__name__}): {fix}')
    wrong = [f'no {k!r}' for k in needs if k not in results] + [
        f'{k!r} holds a {type(results[k]).__name__}'
        for k, types in RESULTS_KEYS.items()
        if k in results and not isinstance(results[k], types)
    ]
    if not wrong:  # what the claims read inside (the types above hold)
        wrong = [
            f'{q!r} is not a number per seed'
            for q, v in results.get('values', {}).items()
            if not per_seed(v)
        ]
        wrong += [
            'a regime without its figures'
            for r in results.get('regime') or []
            if not isinstance(r, dict) or not all(number(r.get(k)) for k in ('ours', 'paper'))
        ]
        wrong += ['its wall_s is not a finite number of seconds, at least 0'] * (
            'wall_s' in results and not (number(results['wall_s']) and results['wall_s'] >= 0)
        )
        wrong += ['its date is not a date (YYYY-MM-DD)'] * (
            'date' in results and not iso_date(results['date'])
        )
        wrong += (
            [f"it says {results['name']!r} in mode {results['mode']!r}, not this file's"]
            if 'name' in results and 'mode' in results and not named_as(path, results)
            else []
        )
        wrong += [
            'a claim without its quantities'
            for c in results.get('claims', [])
            if not isinstance(c, dict) or not isinstance(c.get('of'), list)
        ]
    if wrong:
        raise ConfigError(f'{path} is damaged ({wrong[0]}): {fix}')
    return results


def results_folder(args):
    """Where a run's results go (report, save_figure, check_outputs, fair.earlier_tasks, trend.py):
    with --record, RESULTS, the folder the README's tables read (reproduce.py passes it); else
    OUT_DIR/results/, the same files under the same names, so that a run leaves the checkout's
    tracked results (and the test that compares them with the README) as they were."""
    return RESULTS if args.record else Path(args.out_dir) / 'results'


def results_path(mode, name, ext, folder=None, point=False):
    """folder/<name>[-mode].<ext> (folder: results_folder's; default RESULTS, the README's); None
    for --smoke and a TREND's size (--at)."""
    return (
        None
        if mode == 'smoke' or point
        else Path(folder or RESULTS) / f'{name}{"" if mode == "full" else "-" + mode}.{ext}'
    )


def save_figure(args, name, fig, dpi=120):
    """Writes a figure, whole or not at all, to OUT_DIR/<name>.png and beside the results
    (results_folder); closes it. -> the paths."""
    import matplotlib.pyplot as plt

    # --plan: none
    published = (
        None
        if args.plan
        else results_path(args.mode, name, 'png', results_folder(args), args.point)
    )
    paths = [p for p in (Path(args.out_dir) / f'{name}.png', published) if p]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        synthetic.atomic_write(path, lambda tmp: fig.savefig(tmp, format='png', dpi=dpi))
    plt.close(fig)
    return paths


def report(
    args, name, title, columns, rows, notes='', extra=None, values=None, claims=(), regime=None
):
    """Prints the table and the verdict, and writes OUT_DIR/<name>.json and, but for --smoke and
    --at, the results' .json and .md in results_folder (OUT_DIR/results/; experiments/results/ with
    --record), keeping trend.py's trend if of this code, and the .md's '## History'. `values`:
    {label: [one number per seed]}, which `claims` (the experiment's CLAIMS, declared before the
    run: claims.of_mode picks the mode's) test, and the trend's too. `regime`: an experiment that
    trains, its REGIME[mode] (the training regime beside the paper's, harness/claims.py's
    standing). With --plan: write_plan (an experiment that measures without
    train.py lists no run; run from its command line, parse_args wrote it before any work). The
    results' JSON and .md move in together."""
    if args.plan:
        return write_plan(args, name)
    wall = time.time() - args.t0
    threads = (
        [f'OMP_NUM_THREADS={os.environ["OMP_NUM_THREADS"]}']
        if 'OMP_NUM_THREADS' in os.environ
        else []
    )
    script = experiment_path(name).relative_to(ROOT).as_posix()
    command = ' '.join(threads + ['python', script] + sys.argv[1:])
    info = dict(
        name=name,
        title=title,
        mode=args.mode,
        command=command,
        device=device_name(args.device),
        dtype=args.dtype,
        date=datetime.date.today().isoformat(),
        wall_s=round(wall, 1),
        source=source_digest(name),
        claims_digest=claims_digest(experiment_path(name).read_text()),
        regime=regime,
        at=args.at,
        values=values or {},
        columns=columns,
        rows=rows,
        **(extra or {}),
    )
    # a protocol run a task at a time: the earlier runs merged in (fair.earlier_tasks), then this
    if pieces := getattr(args, 'pieces', []):
        info['pieces'] = [
            *pieces,
            dict(
                command=command,
                date=info['date'],
                wall_s=round(wall - sum(p['wall_s'] for p in pieces), 1),
            ),
        ]
    out, published, md = [Path(args.out_dir) / f'{name}.json'] + [
        results_path(args.mode, name, ext, results_folder(args), args.point)
        for ext in ('json', 'md')
    ]
    old = read_results(published) if published and published.exists() else {}
    for kept in ('trend', 'diagnosis'):  # trend.py's, run on this code: kept
        if (old.get(kept) or {}).get('source') == info['source']:
            info[kept] = old[kept]
    trains = regime is not None  # only then its module's --regime counts (cpu_regime)
    info = judged_by(info, name, of_mode(claims, args.mode), trains)
    info['seeds'] = seeds_of(info)
    table = markdown(columns, rows)
    print(f'\n## {title}\n\n{table}\n\n{claims_text(info)}\n')
    if notes:
        print(notes)
    text = json.dumps(info, indent=1, default=str) + '\n'
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text(out, text)
    if md is not None:
        old = read_text(md) if md.exists() else ''
        history = old[old.index('\n## History\n') :] if '\n## History\n' in old else ''
        commands = (
            '- commands, a task at a time: '
            + '; '.join(
                f'`{p["command"]}` ({p["date"]}, {p["wall_s"] / 60:.1f} min)'
                for p in info['pieces']
            )
            if pieces
            else f'- command: `{command}`'
        )
        head = (
            f'# {title}\n\n{commands}\n- date: {info["date"]}\n- device: '
            f'{info["device"]}\n- wall time: {wall / 60:.1f} min\n\n'
        )
        # the JSON and the .md move in together (a stop waits until both are in): never new numbers
        # beside an old .md
        with synthetic.new_files(md.parent) as new:
            (new / published.name).write_text(text)
            (new / md.name).write_text(
                f'{head}{table}\n\n{claims_section(info)}\n'
                + (f'\n{notes}\n' if notes else '')
                + history
            )
    print('wrote ' + ' and '.join(str(p) for p in (out, published, md) if p))
    print(f'\n{meaning(info)}')

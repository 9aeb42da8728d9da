"""
Trains any variant of model.py on any task, on a CPU, a GPU, or many GPUs:

    python train.py                                # the default run (DEFAULT_RUN): under a minute
    python train.py --task=retrieval --variant=frozen_qk --m_max=10
    torchrun --standalone --nproc_per_node=4 train.py --task=khop --variant=mixit
    python train.py experiments/config/mixit_table3_addition.py   # a paper's run: key = value lines
    python train.py out/<run>/config.json          # run again from a saved config
    python train.py --resume --run_name=<run> --max_iters=2000    # continue a run, extended
    python data/text/prepare.py --input=book.txt && python train.py --task=text
    python train.py --task=text --sample --prompt='Once upon'     # text from the run's ckpt.pt
    python train.py --sample out/<run> --prompt='Once upon' --temperature=0.8   # from its folder
    python train.py --help                         # every key, its default and meaning

and from Python: `from train import train; metrics = train(dict(task=..., variant=...))`.

The keys are the config block below, every GPTConfig field of model.py (given ones override the
variant's) and the settings of the task (data/<task>/prepare.py; its `seed` is `data_seed` here).
Training is a deterministic function of the config: step s's examples are a function of (seed, s)
(data/loader.py), and a step trains on batch_size x gradient_accumulation_steps of them however many
processes share it (whole micro-batches each, or pieces of each: loader.layout), so N processes
compute what one process computes (to float32 rounding where they split micro-batches; with dropout
a split piece draws masks of its own), and a resumed run ends with an uninterrupted one's weights.

The file reads top to bottom as nanoGPT's: the config block, the one place that checks it
(resolve), devices and processes, then train(): config, torchrun/DDP, data, model, resume, the
loop, save. The run's folder and checkpoint (locks, checksums, resume) are checkpoint.py's.
"""

import ast
import ctypes
import datetime
import math
import os
import re
import signal
import sys
import threading
import time
import warnings
import zlib
from contextlib import nullcontext
from dataclasses import fields
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm

import checkpoint
from checkpoint import ReportedElsewhere, load_checkpoint, together
from data import synthetic
from data.loader import (
    ConfigError,
    batches,
    generate_missing,
    layout,
    load_data,
    prompt_codec,
    read_json,
    task_keys,
    task_module,
    unknown,
)
from model import (
    GPT,
    PEAK_FLOPS,
    PEAK_SHARE,
    VARIANTS,
    GPTConfig,
    check_config,
    gpt2_args,
    gpt2_files,
)

_before_config = set(globals())
# ------------------------------------------------------------------------------------------------
# config
# run: written to out_dir/<run_name>/ (config.json, log.jsonl, ckpt.pt); run_name '' names the
# folder '<task>-<variant>,<keys not at their default>-<hash of the config>', its keys cut after
# 64 characters with ',+<N>more' (the run's first line names them)
out_dir = 'out'  # runs are written to out_dir/<run_name>/
run_name = ''  # name of the run's folder; '' = named after the task, variant and changed keys
resume = False  # continue the run from its ckpt.pt; only RESUMABLE keys may change
overwrite = False  # let a fresh run replace another run's files in its folder (else refused)
seed = 0  # seeds the initial weights, the fixed random matrices and the examples' order
# task: a folder of data/ with a prepare.py, generated on first use or prepared; none: DEFAULT_RUN
task = 'dyck'  # a folder of data/ with a prepare.py
data_seed = 0  # seed of a synthetic task's data generator (its `--seed` flag)
data_dir = ''  # where the task's files are; '' = data/<task>/ (or a sub-folder of it)
eval_split = ''  # the split to evaluate on; '' = the task's held-out split (meta.json)
val_frac = 0.0  # model selection: hold out the training split's last val_frac, evaluate on it
online = False  # synthetic tasks: a fresh batch from the generator every step
classify = False  # the authors' Yelp classifier: a head output per class (needs classes)
# a corpus's fixed windows: .npy files of window starts (a path, or a name in the task's folder),
# as the identity-query authors' train_indices.npy and eval_val_indices.npy (eval_indices below)
train_indices = ''  # .npy of train.bin window starts, a row a step; '' = drawn from (seed, step)
# model: a GPTConfig field given as a key overrides the variant's value
variant = 'standard'  # one of model.VARIANTS
n_layer = 2  # blocks
n_head = 4  # attention heads per block
n_embd = 128  # width
block_size = 0  # longest sequence; 0 = the task's (its example length; 256 for a corpus)
dropout = 0.0  # dropout probability
bias = False  # biases on the attention and MLP linears
# init_from: a folder of GPT-2's Hugging Face files, or 'gpt2', ... through transformers
init_from = ''  # start from GPT-2's weights; '' = no
# optimization
max_iters = 600  # optimizer steps
batch_size = 64  # examples per micro-batch (a step: batch_size x gradient_accumulation_steps)
gradient_accumulation_steps = 1  # micro-batches per optimizer step, shared by all processes
learning_rate = 3e-3  # peak learning rate
# lr_schedule: nanoGPT's cosine, or the linear decay of HF's trainer, which the authors used
lr_schedule = 'cosine'  # after the warm-up: 'cosine' or 'linear' to min_lr
min_lr = 3e-4  # learning rate at the end of the decay
warmup_iters = 100  # linear warm-up steps
lr_decay_iters = 0  # step at which the decay reaches min_lr; 0 = max_iters
weight_decay = 0.1  # AdamW weight decay of >= 2-D weights
beta1 = 0.9  # AdamW beta1
beta2 = 0.95  # AdamW beta2
grad_clip = 1.0  # clip the global gradient norm to this; 0 = off
# evaluation and logging: eval_batch_size is a ceiling, the largest batch up to it whose logits fit
# the device's memory is used (fitting_model; evaluate's numbers do not depend on it)
eval_interval = 200  # evaluate, log and save ckpt.pt every this many steps and at the end
eval_examples = 0  # held-out examples (a corpus: windows) per evaluation; 0 = the whole split
eval_indices = ''  # .npy of held-out window starts, a row an evaluation: step // eval_interval
eval_batch_size = 512  # examples per evaluation batch, at most: lowered to what the memory holds
log_interval = 10  # steps between progress-bar updates (the only host-device sync)
progress = True  # show a tqdm progress bar
# system
device = 'auto'  # 'auto' = cuda > mps > cpu; or 'cpu', 'cuda', 'cuda:1', 'mps'
# dtype: tf32 is float32 with TF32 tensor-core matmuls (CUDA only); float32 turns them off, as the
# authors' drivers run (PyTorch's default)
dtype = 'auto'  # 'auto': bfloat16 on a GPU, float32 on a CPU; float32, tf32, bfloat16, float16
compile = None  # torch.compile the model; None = on CUDA only
ddp_timeout = 600  # seconds a torchrun process waits for the others, to meet and at each collective
# sampling: --sample with the run's folder (python train.py --sample out/<run>), or its keys, prints
# text from its ckpt.pt instead of training
sample = False  # generate from out_dir/<run_name>/ckpt.pt instead of training
prompt = ''  # text to continue; '' = the end-of-text token (a corpus; a task needs one)
num_samples = 3  # independent continuations
max_new_tokens = 200  # tokens to generate per sample
temperature = 0.8  # < 1 sharpens the distribution, > 1 flattens it; 0 (below 1e-6) = greedy
top_k = 200  # sample among the k most likely tokens; 0 = all
# Weights & Biases: imported only when asked for; WANDB_MODE=offline logs without network
wandb_log = False  # also log every evaluation to Weights & Biases (pip install wandb)
wandb_project = 'frozen-transformers'  # its project
wandb_run_name = ''  # its run name; '' = the run's folder name
# -----------------------------------------------------------------------------
DEFAULTS = {k: v for k, v in globals().items() if k not in _before_config and not k.startswith('_')}
# the compute dtypes a run may name (dtype, besides 'auto')
DTYPES = ('float32', 'tf32', 'bfloat16', 'float16')
MODEL_KEYS = {f.name: f for f in fields(GPTConfig)}
MODEL_DEFAULTS = {k: f.default for k, f in MODEL_KEYS.items()}  # GPTConfig's, before a variant's
# where a run is written and how it is shown, not what it trains: left out of its folder's name
NOT_NAMED = (
    'out_dir',
    'run_name',
    'resume',
    'overwrite',
    'progress',
    'log_interval',
    'device',
    'compile',
    'ddp_timeout',
    'eval_batch_size',
    'sample',
    'prompt',
    'num_samples',
    'max_new_tokens',
    'temperature',
    'top_k',
    'wandb_log',
    'wandb_project',
    'wandb_run_name',
)
# what --resume may change besides those: how long the run goes on, its learning-rate schedule and
# clipping (to extend a run, or to go on more gently after a loss spike), its evaluations and the
# compute dtype. Every other key fixes the model, the data (the batch of step s) or the meaning of
# the optimizer state (betas, weight decay). A moved data_dir is fine: its meta.json must be the
# run's.
RESUMABLE = NOT_NAMED + (
    'max_iters',
    'lr_decay_iters',
    'learning_rate',
    'min_lr',
    'warmup_iters',
    'lr_schedule',
    'grad_clip',
    'eval_interval',
    'eval_examples',
    'eval_indices',
    'eval_split',
    'dtype',
    'data_dir',
)
# `python train.py` with no --task: Dyck-1 as the papers' text has it (strings of up to 40 brackets,
# held-out strings free to occur in training) for 500 steps, which the default model learns exactly
# in under a minute on 2 CPU cores.
# --task=dyck alone is the authors' Dyck-1 (80 brackets), as every task's own defaults are the
# authors' problems.
DEFAULT_RUN = dict(task='dyck', format='text', length=40, max_iters=500)
# the smallest value of each number (model.check_config checks the model's, each task's prepare.py
# its own)
AT_LEAST = dict(
    seed=0,
    data_seed=0,
    block_size=0,
    max_iters=0,
    batch_size=1,
    gradient_accumulation_steps=1,
    learning_rate=0,
    min_lr=0,
    warmup_iters=0,
    lr_decay_iters=0,
    weight_decay=0,
    grad_clip=0,
    eval_interval=1,
    eval_examples=0,
    eval_batch_size=1,
    log_interval=1,
    ddp_timeout=1,
    num_samples=1,
    max_new_tokens=1,
    temperature=0,
    top_k=0,
    n_train=0,
    n_test=0,
)


# ------------------------------------------------------------------------------------------------
# the config: the one place a run's keys are checked


def parse_args(argv):
    """['FILE', '--key=value', '--flag'] -> overrides, a later one over an earlier one. FILE: a
    config file of `key = value` lines (nanoGPT's: experiments/config/; read, never run:
    read_config), a config.json that train.py wrote, or a run's folder (out/<run>: its config.json,
    out_dir and run_name the folder itself, for --sample and --resume). A saved config.json holds
    every key, so it fills only the keys not given before it, and never what the command does
    (COMMAND_KEYS: typed, never read from a file). Flags' values are Python literals, else strings;
    a key whose default is a string takes the text as typed (--prompt=75 is the prompt '75')."""
    text_keys = {k for k, v in {**DEFAULTS, **MODEL_DEFAULTS}.items() if isinstance(v, str)}
    overrides, lines = {}, []  # lines: (file, line, key, value) of the config files' keys
    for arg in argv:
        if not arg.startswith('--'):
            path = Path(arg)
            if path.is_dir() and not (path / 'config.json').exists():
                raise ConfigError(
                    f"'{arg}' is a folder without config.json, not a run's: give a run's folder "
                    '(out/<run>), a config file or --key=value flags'
                )
            if arg.endswith('.py') and os.path.exists(arg):
                keys = read_config(arg)
                lines += [(arg, line, k, v) for k, (v, line) in keys.items()]
                overrides.update({k: v for k, (v, line) in keys.items()})
                continue
            if not path.is_dir() and (not arg.endswith('.json') or not os.path.exists(arg)):
                raise ConfigError(
                    f"'{arg}' is neither --key=value nor an existing config file (.py, .json) or "
                    "run's folder (python train.py --help)"
                )
            saved = read_json(
                path / 'config.json' if path.is_dir() else arg,
                'give a config.json that train.py wrote, or --key=value flags',
            )
            for k, v in saved.items():
                if k not in COMMAND_KEYS:
                    overrides.setdefault(k, v)
            if path.is_dir():  # the folder itself, wherever it is now and whatever its name
                folder = path.resolve()
                overrides.update(out_dir=str(folder.parent), run_name=folder.name)
            continue
        key, eq, value = arg[2:].partition('=')
        try:
            overrides[key] = (
                (value if key in text_keys else ast.literal_eval(value)) if eq else True
            )  # a bare --flag
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            overrides[key] = value
    # each key of a config file known and of its type, said at its line: for the run's task, the
    # last given (an unknown task is resolve's to name)
    task = overrides.get('task', DEFAULT_RUN['task'])
    if lines and isinstance(task, str) and task in synthetic.tasks():
        known = {**MODEL_DEFAULTS, **DEFAULTS, **task_keys(task_module(task))}
        for path, line, key, value in lines:
            try:
                check_keys({key: value}, known)
            except ConfigError as e:
                raise ConfigError(f'{path}, line {line}: {e}') from None
    return overrides


# what a command does to a run (resume, sample from, replace it): typed, never read from a file
COMMAND_KEYS = ('resume', 'sample', 'overwrite')


def read_config(path):
    """A config file as nanoGPT's configurator reads one (python train.py config/x.py), but read,
    never run: `key = value` lines whose values are Python literals (numbers, strings, True, False,
    None), with comments and a docstring; no import, call, name or expression, so a file cannot do
    anything but set keys. -> {key: (value, line)}; anything else is one line naming the file and
    line."""
    fix = (
        'a config file is read, never run: key = value lines whose values are literals (numbers, '
        'strings, True, False, None: 40, not 5 * 8), as in experiments/config/'
    )
    try:
        with synthetic.open_regular(path, 'r', encoding='utf-8-sig') as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(
            f'cannot read {path} ({getattr(e, "strerror", None) or type(e).__name__}): {fix}'
        ) from None
    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        why = getattr(e, 'msg', None) or type(e).__name__
        raise ConfigError(f'{path}, line {getattr(e, "lineno", None) or 1}: {why}: {fix}') from None
    keys = {}
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):  # the docstring
                continue
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and not any(isinstance(n, ast.Call) for n in ast.walk(node.value))  # set()
        ):
            key = node.targets[0].id
            if key in COMMAND_KEYS:
                raise ConfigError(
                    f'{path}, line {node.lineno}: {key} says what the command does, not what it '
                    f'trains: type --{key} on the command line'
                )
            try:
                keys[key] = (ast.literal_eval(node.value), node.lineno)
                continue
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        shown = (ast.get_source_segment(text, node) or '').splitlines()[0][:60]
        raise ConfigError(f'{path}, line {node.lineno}: {shown!r} is not a key = value line: {fix}')
    return keys


def check_keys(overrides, known=None):
    """overrides, each key one of `known` (else the error names the closest) and each value of its
    default's type (an int is a float too; a None default means an optional float, the model's
    attn_scale, or for compile a bool). known=None: a run's keys, those of the config block, of
    GPTConfig and of overrides' task (data/<task>/prepare.py)."""
    if known is None:
        task = task_keys(task_module(overrides['task']))
        known = {**MODEL_DEFAULTS, **DEFAULTS, **task}
    checked = {}
    for key, value in overrides.items():
        if key not in known:
            raise unknown('key', key, known)
        default, given = known[key], type(value)
        expected = type(default) if default is not None else (bool if key == 'compile' else float)
        if not (
            value is None
            and default is None
            or given is expected
            or expected is float
            and given is int
        ):
            raise ConfigError(
                f'{key}={value!r} should be of type {expected.__name__} (default: {default!r})'
            )
        checked[key] = float(value) if expected is float and value is not None else value
    return checked


def resolve(overrides):
    """The full config of a run: DEFAULTS, then the task's settings, then overrides. Every key is
    checked; an unknown one fails at once and names the closest known key."""
    overrides = overrides if 'task' in overrides else {**DEFAULT_RUN, **overrides}
    checked = check_keys(overrides)
    if checked.get('variant', DEFAULTS['variant']) not in VARIANTS:
        raise unknown('variant', checked['variant'], VARIANTS)
    cfg = {**DEFAULTS, **task_keys(task_module(checked['task'])), **checked}
    for key, value in cfg.items():  # NaN or inf from a JSON file, or 1e999 typed, is no setting
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f'{key}={value} must be a finite number')
    for key, low in AT_LEAST.items():
        if key in cfg and not cfg[key] >= low:
            raise ConfigError(f'{key}={cfg[key]} must be at least {low}')
    for key in ('dropout', 'beta1', 'beta2', 'val_frac'):
        if not 0 <= cfg[key] < 1:
            raise ConfigError(f'{key}={cfg[key]} must be in [0, 1)')
    if cfg['lr_schedule'] not in ('cosine', 'linear'):
        raise ConfigError(f"lr_schedule={cfg['lr_schedule']!r} is not one of 'cosine', 'linear'")
    if cfg['classify'] and cfg['online']:
        raise ConfigError(
            'classify=True reads a prepared task with classes (yelp), which has no generator: '
            'drop online=True'
        )
    if cfg['val_frac'] and cfg['eval_split']:
        raise ConfigError(
            'val_frac evaluates on the validation split it holds out: drop eval_split'
        )
    if cfg.get('n_classes') and not cfg['classify']:
        raise ConfigError(
            'n_classes is what classify=True sets, from the classes in meta.json: drop n_classes'
        )
    if cfg['classify'] and cfg['sample']:
        raise ConfigError(
            "--sample generates tokens, and a classify=True run's head outputs classes, "
            'not tokens: '
            'evaluate it with --resume instead'
        )
    if (
        cfg.get('causal') is False and not cfg['classify'] and cfg['task'] != 'yelp'
    ):  # Yelp: padding after its label
        raise ConfigError(
            'causal=False lets a position read what follows it, its targets in '
            f'{cfg["task"]}: drop it'
        )
    if (
        not cfg['out_dir'] or '\0' in cfg['out_dir']
    ):  # '' would write runs into the folder the command runs in
        raise ConfigError(
            f"out_dir={cfg['out_dir']!r} names no folder: give one (the default is 'out'; '.' for "
            f'this folder)'
        )
    if (
        cfg['run_name'] in ('.', '..')
        or any(c in cfg['run_name'] for c in '/\\\0')
        or len(cfg['run_name'].encode()) > 200
    ):  # a folder name holds 255 bytes, and its temporaries a few more
        raise ConfigError(
            f'run_name={cfg["run_name"][:80]!r} must be a plain folder name inside out_dir '
            "(no '/', "
            f"'\\', '..' or NUL; at most 200 bytes): to write elsewhere, set out_dir"
        )
    if '\0' in cfg['data_dir']:
        raise ConfigError(
            f"data_dir={cfg['data_dir']!r} holds a NUL byte, which no folder's name can: "
            'give a folder'
        )
    cfg['out_dir'], cfg['data_dir'] = (
        os.path.expanduser(cfg['out_dir']),
        os.path.expanduser(cfg['data_dir']),
    )
    return cfg


def help_text(task_name):
    """Every key with its default and the comment beside it in this file and model.py."""

    def comments(path):
        pattern = re.compile(r'^\s*(\w+)\s*(?::[^=]+)?=\s*.+?\s+#\s*(.*)$')
        return {
            m[1]: m[2] for line in Path(path).read_text().splitlines() if (m := pattern.match(line))
        }

    ours, model_comments = (
        comments(__file__),
        comments(Path(__file__).resolve().parent / 'model.py'),
    )
    lines = [
        'usage: python train.py [CONFIG.py | config.json | out/<run>] [--key=value ...]   '
        '(or torchrun ... train.py ...)',
        '',
    ]

    def row(k, v, comment=''):
        return f'  --{k}={v!r}'.ljust(37) + ' ' + comment

    lines += [row(k, v, ours.get(k, '')) for k, v in DEFAULTS.items()]
    lines += ['', "model keys (default: the variant's value, else GPTConfig's):"]
    lines += [
        row(k, f.default, model_comments.get(k, ''))
        for k, f in MODEL_KEYS.items()
        if k not in DEFAULTS and k != 'vocab_size'
    ]
    lines += [
        '',
        f'variants: {", ".join(VARIANTS)}',
        f'tasks: {", ".join(synthetic.tasks())}',
        f"no --task: the paper text's Dyck-1, {DEFAULT_RUN}",
    ]
    if (
        task_name in synthetic.tasks()
    ):  # each key's comment says which default is the authors' code's, the text's
        module = task_module(task_name)
        seed = '; its seed is --data_seed' if 'seed' in module.DEFAULTS else ''
        lines += ['', f'keys of task {task_name} (data/{task_name}/prepare.py{seed}):']
        lines += [
            row(k, v, comments(module.__file__).get(k, '')) for k, v in task_keys(module).items()
        ]
    return '\n'.join(lines)


def model_label(cfg):
    """The variant and the model keys given on top of it: 'standard,frozen_mlp=True'."""
    return ','.join(
        [cfg['variant']] + [f'{k}={cfg[k]}' for k in MODEL_KEYS if k in cfg and k not in DEFAULTS]
    )


def name_keys(cfg):
    """What a run's folder is named after: the variant, the model keys given and the keys not at
    the task's defaults, 'key=value' each."""
    base = {**DEFAULTS, **task_keys(task_module(cfg['task']))}
    unnamed = NOT_NAMED + ('task', 'variant', 'data_dir')
    changed = [
        f'{k}={v}' for k, v in cfg.items() if k in base and k not in unnamed and v != base[k]
    ]
    return model_label(cfg).split(',') + changed  # no model key's value holds a comma


def run_dir_of(cfg):
    """The run's folder: out_dir/run_name, else named after the task and name_keys as far as they
    fit, with a hash of the config (checkpoint.run_dir)."""
    return checkpoint.run_dir(cfg, name_keys(cfg), NOT_NAMED)


def find_run(overrides, action):
    """The ckpt.pt of the run that `overrides` name (run_name, else its keys), to `action` it
    (resume, sample)."""
    named = {k: v for k, v in overrides.items() if k in ('out_dir', 'run_name')}
    cfg = resolve(named if overrides.get('run_name') else overrides)  # a named run: its own keys
    folder = run_dir_of(cfg)
    return checkpoint.find_checkpoint(cfg, overrides, folder, RESUMABLE, action)


# ------------------------------------------------------------------------------------------------
# devices, processes and memory


def pick_device(name):
    """'auto' -> the best device here; any other name is checked against what this machine has."""
    if name == 'auto':
        return (
            'cuda'
            if torch.cuda.is_available()
            else 'mps'
            if torch.backends.mps.is_available()
            else 'cpu'
        )
    kind, colon, index = name.partition(':')
    if name not in ('cpu', 'mps', 'cuda') and not (kind == 'cuda' and index.isdigit()):
        raise ConfigError(f"device={name!r} is not one of 'auto', 'cpu', 'cuda', 'cuda:N', 'mps'")
    available = dict(
        cpu=1, cuda=torch.cuda.device_count(), mps=int(torch.backends.mps.is_available())
    )[kind]
    if int(index or 0) >= available:
        raise ConfigError(
            f'device={name!r}, but this machine has {available or "no"} {kind} device'
            f'{"s" if available != 1 else ""}: use device=auto or cpu'
        )
    return name


# where the kernel says which logical CPUs share a physical core (Linux)
CPU_TOPOLOGY = '/sys/devices/system/cpu/cpu{}/topology'


def cpu_threads():
    """torch's intra-op threads for a CPU run: the physical cores this process may use (its
    affinity; two hyperthreads of one core count once) over the processes torchrun started on this
    machine, at least 1; None where OMP_NUM_THREADS sets them (torch has read it; torchrun sets
    it to 1 for several processes where it is unset). torch's own default is every CPU of the
    affinity, in each process: two processes launched by hand on 2 cores run 2 threads each,
    which oversubscribe the cores (a thread waits for a descheduled one at every parallel region).
    The count is a function of the affinity and the topology only, never of the machine's load: a
    run's numbers must not change with what else runs, and the thread count can change the order
    of a kernel's sums."""
    if 'OMP_NUM_THREADS' in os.environ:
        return None
    cpus = os.sched_getaffinity(0) if hasattr(os, 'sched_getaffinity') else range(os.cpu_count())
    try:
        cores = len(
            {
                tuple(
                    (Path(CPU_TOPOLOGY.format(n)) / f).read_text().strip()
                    for f in ('physical_package_id', 'core_id')
                )
                for n in cpus
            }
        )
    except OSError:  # no topology (not Linux, or hidden): each CPU a core
        cores = len(cpus)
    # a launch without LOCAL_WORLD_SIZE puts every process on one machine (launch)
    here = int(os.environ.get('LOCAL_WORLD_SIZE', os.environ.get('WORLD_SIZE', 1)))
    return max(1, cores // here)


def compute_dtype(cfg, device_type):
    """-> (dtype name, autocast context); 'auto': bfloat16 where the GPU has it, else float16;
    float32 off CUDA. On CUDA it also sets whether float32 matmuls run on TF32 tensor cores: on for
    tf32, off otherwise (an earlier run in this process may have turned them on)."""
    dtype = cfg['dtype']
    if dtype == 'auto':
        dtype = (
            ('bfloat16' if torch.cuda.is_bf16_supported() else 'float16')
            if device_type == 'cuda'
            else 'float32'
        )
    if dtype not in DTYPES:
        raise ConfigError(f"dtype={dtype!r} is not one of 'auto', {', '.join(map(repr, DTYPES))}")
    if dtype == 'bfloat16' and device_type == 'cuda' and not torch.cuda.is_bf16_supported():
        raise ConfigError(
            'this GPU has no bfloat16: use dtype=float16 (with loss scaling) or float32'
        )
    if dtype == 'tf32' and device_type != 'cuda':
        raise ConfigError(
            f'dtype=tf32 is a setting of CUDA tensor cores, and this run is on {device_type}: '
            'use float32'
        )
    if device_type == 'cuda':
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = dtype == 'tf32'
    if dtype in ('float32', 'tf32'):
        return dtype, nullcontext()
    return dtype, torch.autocast(device_type, dtype=getattr(torch, dtype))


def keep_freed_memory():
    """CPU training: make glibc's malloc keep freed memory for reuse instead of handing every large
    block (a batch, the logits, their gradient) back to the kernel, which zero-fills fresh pages for
    it at every step otherwise (experiments/README.md, section 8). tcmalloc and jemalloc, which
    PyTorch's CPU performance guide recommends, do the same. Linux/glibc only; elsewhere nothing
    changes."""
    try:
        libc = ctypes.CDLL('libc.so.6')
        libc.mallopt(
            -4, 0
        )  # M_MMAP_MAX = 0: serve large blocks from the heap, not from fresh mmap pages
        libc.mallopt(
            -1, ctypes.c_int(2**31 - 1)
        )  # M_TRIM_THRESHOLD: keep the freed top of the heap
    except (OSError, AttributeError):
        pass


def torchrun():
    """Whether torchrun started this process (it sets RANK), or one that sets RANK as it does."""
    return 'RANK' in os.environ


# what torchrun sets in each process it starts (LOCAL_WORLD_SIZE too, which may be left out)
LAUNCH = ('RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT')


def launch():
    """-> (rank, world size) of this process of a torchrun, (0, 1) when none started it. What a
    launch by hand sets wrong (a variable missing, not a number, a rank outside the world) is
    refused in one line before anything waits for the others."""
    named = [k for k in (*LAUNCH, 'LOCAL_WORLD_SIZE') if k in os.environ]
    if not set(named) & {'RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE'}:
        return 0, 1  # MASTER_ADDR alone is a cluster's, not a launch
    missing = [k for k in LAUNCH if k not in os.environ]
    if missing:
        raise ConfigError(
            f'{", ".join(named)} set, {", ".join(missing)} not: start the processes of a run with '
            'torchrun (torchrun --nproc_per_node=N train.py ...), which sets them all, or unset '
            'them to train in one process'
        )
    value = {}
    for k in ('RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'MASTER_PORT'):
        # LOCAL_WORLD_SIZE left out (a launch by a cluster's script): every process on one machine
        text = os.environ.get(k, os.environ['WORLD_SIZE'])
        if not re.fullmatch(r'\d+', text.strip()):
            raise ConfigError(f'{k}={text!r} is not a whole number: start the run with torchrun')
        value[k] = int(text)
    if not (
        value['RANK'] < value['WORLD_SIZE']
        and value['LOCAL_RANK'] < value['LOCAL_WORLD_SIZE'] <= value['WORLD_SIZE']
        and 0 < value['MASTER_PORT'] < 2**16
    ):
        shown = ', '.join(f'{k}={os.environ[k]}' for k in named if k != 'MASTER_ADDR')
        raise ConfigError(
            f'{shown} cannot be one process of a run (RANK below WORLD_SIZE, LOCAL_RANK below '
            'LOCAL_WORLD_SIZE, a port below 65536): start the run with torchrun'
        )
    return value['RANK'], value['WORLD_SIZE']


def meet(backend, rank, world, timeout):
    """Joins the process group of a torchrun; a process whose peers do not come within `timeout`
    seconds stops in one line. Meanwhile the wait, in C++, holds the GIL, so that Python's signal
    handlers (which run between bytecodes) could not run: SIGINT and SIGTERM end the process
    directly until it returns (there is nothing of this run to remove yet)."""
    main_thread = threading.current_thread() is threading.main_thread()
    held = {
        s: signal.signal(s, signal.SIG_DFL)
        for s in (signal.SIGINT, signal.SIGTERM)
        if main_thread and signal.getsignal(s) is not signal.SIG_IGN
    }
    try:
        dist.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=timeout))
    except dist.DistError as e:
        where = f'{os.environ["MASTER_ADDR"]}:{os.environ["MASTER_PORT"]}'
        why = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        if 'time' not in why.lower():  # a port in use, an address that does not resolve
            raise ConfigError(
                f'process {rank} of {world} cannot meet the others at {where} ({why}): start the '
                'run with torchrun (torchrun --nproc_per_node=N train.py ...)'
            ) from None
        raise ConfigError(
            f'process {rank} of {world} waited {timeout} s for the others at {where} and not all '
            'came: start every process of the run (torchrun --nproc_per_node=N train.py ...), or '
            'raise ddp_timeout'
        ) from None
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)


def leave(code):
    """Ends train.py's command line with exit status `code` (0: returns, so that a caller in this
    process goes on). A process torchrun started ends with os._exit(code), after the run has closed
    everything it wrote, skipping the interpreter's teardown. There, a gloo worker thread may still
    be freeing the last backward's all-reduce, whose saved autograd context needs the GIL to free; a
    thread that takes the GIL while the interpreter finalizes kills the process (SIGABRT, 'terminate
    called without an active exception'), a few times in a hundred two-process CPU runs under load
    (torch 2.13)."""
    if torchrun():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if code:
        sys.exit(code)


def device_memory(device):
    """Bytes of memory on the device for this process: the GPU's, or its share of the RAM this
    machine has free now (MemAvailable: what other programs hold is not ours to take; the processes
    torchrun started here share it); None where it cannot be told."""
    if device.startswith('cuda'):
        return torch.cuda.get_device_properties(device).total_memory
    if device != 'cpu':
        return None
    try:
        with open('/proc/meminfo') as f:
            free = next(
                int(line.split()[1]) * 1024 for line in f if line.startswith('MemAvailable:')
            )
    except (OSError, StopIteration, ValueError, IndexError):  # not Linux
        if not hasattr(os, 'sysconf'):
            return None
        free = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    else:  # and what this process holds, which it reuses (keep_freed_memory; an earlier run's heap)
        with open('/proc/self/statm') as f:
            free += int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
    return free // int(os.environ.get('LOCAL_WORLD_SIZE', 1))


def check_fits(need, device, what, fits):
    """Refuses memory the device does not have before it is asked for (else an OOM kill, or a
    machine swapping for hours); fits(bytes the device has) says what would fit."""
    have = device_memory(device)
    if have and need > have:
        raise ConfigError(
            f'{what} would take {need / 2**30:,.1f} GiB, '
            f'and this {device} has {have / 2**30:,.1f} GiB: '
            f'{fits(have)}'
        )


def fitting_model(model_args, cfg, T, device, batch):
    """GPT(model_args) on the device, once memory_check knows it fits there. -> (the model, the
    evaluation's batch: the largest up to eval_batch_size that fits)."""
    evals = memory_check(model_args, cfg, T, device, batch)
    return GPT(GPTConfig(**model_args)).to(device), evals


def memory_check(model_args, cfg, T, device, batch):
    """Refuses (ConfigError) a model and batch the device's memory cannot hold, with what would fit,
    before anything is allocated: GPT(model_args) built on the meta device, which allocates
    nothing. Counted: fp32 weights and buffers, each trained weight's gradient and two
    AdamW moments, and per training example the activations kept for the backward pass (about 16
    widths and two attention maps a layer and position) and the logits with their gradient; per
    evaluation example (no_grad) one layer's and the logits with their float32 copy. -> the
    evaluation's batch: the largest up to eval_batch_size that fits. experiments/tools/gpu_check.py
    sets this count beside the deepest model a GPU trains."""

    def cost(
        **changed,
    ):  # -> (parameters, bytes of fp32 weights, buffers and AdamW state), built on the meta device
        with torch.device('meta'):
            model = GPT(GPTConfig(**{**model_args, **changed}))
        n = model.get_num_params(False)
        return n, 4 * (n + sum(b.numel() for b in model.buffers())) + 12 * model.get_num_params()

    c = GPTConfig(**model_args)
    check_config(c)  # a ValueError that says what to do: train() reports it as bad input
    # one block and two, the others by arithmetic: 10^9 layers are refused before 10^9 are built
    try:
        (n1, one), (n2, two) = cost(n_layer=1), cost(n_layer=2)
        params, weights = n1 + (c.n_layer - 1) * (n2 - n1), one + (c.n_layer - 1) * (two - one)
    except ValueError:  # universal_sparse's width is a function of its depth: built whole
        params, weights = cost()
    check_fits(
        weights,
        device,
        f'the weights and optimizer state ({params:,} parameters)',
        lambda have: (
            f'at most {have // 16:,} parameters fit: '
            'lower vocab_size, n_embd, n_layer or block_size'
        ),
    )
    outputs = c.n_classes or c.vocab_size
    kept = (
        4 * T * (c.n_layer * (16 * c.n_embd + 2 * c.n_head * T) + 2 * outputs)
    )  # training: kept for the backward
    # evaluation, no_grad: one layer's at a time, and the logits three times over (in the compute
    # dtype, their float32 copy and its log-softmax: 10 bytes a logit under bfloat16, counted 12)
    passing = 4 * T * (16 * c.n_embd + 2 * c.n_head * T + 3 * outputs)
    check_fits(  # `batch`: this process's micro-batch (a piece of one where processes split it)
        weights + kept * batch,
        device,
        f'the weights and a batch of {batch:,} examples',
        lambda have: (
            f'about {(have - weights) // kept:,} examples fit: lower batch_size, or '
            'share each micro-batch among more processes'
        ),
    )
    # evaluation: eval_batch_size is a ceiling, the largest batch up to it that fits is used (a
    # 50,257-token head's logits are 200 kB a position), since the numbers evaluate() gives do not
    # depend on it. One example always fits once a training batch does: it keeps more (kept >=
    # passing)
    most = min(cfg['eval_batch_size'], cfg['eval_examples'] or cfg['eval_batch_size'])
    have = device_memory(device)
    # a tenth of the free memory kept for what is not counted (the data, the allocator's slack)
    return max(1, min(most, int(0.9 * have - weights) // passing)) if have else most


def prompt_batch(c, ids, n, new, device):
    """--sample's n copies of the prompt `ids`, to continue by `new` tokens from a model of
    GPTConfig c, once they fit: each takes one forward pass's activations, attention and logits,
    and 64 bytes a token (a tensor, a list, text)."""
    forward, length = (
        4 * c.block_size * (8 * c.n_embd + 2 * c.n_head * c.block_size) + 8 * c.vocab_size,
        len(ids) + new,
    )

    def longest(have):  # the max_new_tokens that fit n samples
        return (have // n - forward) // 64 - len(ids)

    check_fits(
        n * (forward + 64 * length),
        device,
        f'{n:,} samples of {length:,} tokens',
        lambda have: (
            f'{have // (forward + 64 * length):,} such samples fit'
            + (f', or {n:,} of max_new_tokens={longest(have):,}' if longest(have) > 0 else '')
        ),
    )
    return torch.tensor([ids], device=device).repeat(n, 1)


# ------------------------------------------------------------------------------------------------
# training


def gpt2_of(cfg):
    """--init_from's GPT-2: its config.json and weights (model.gpt2_files), for data in GPT-2's
    tokens. Its embedding reads a token id as GPT-2's BPE numbers it, so a task of its own tokens (a
    synthetic one) or a corpus in the byte-level stand-in (encoding='bytes', 257 tokens: data/
    corpus.py) would train from the embeddings of other tokens. The config's encoding is its data's
    meta.json's: load_data refuses data made with other settings. Checked before anything is
    written, synthetic data included."""
    encoding = cfg.get('encoding') if 'encoding' in task_keys(task_module(cfg['task'])) else None
    if encoding is None:
        raise ConfigError(
            f"init_from starts from GPT-2's weights, which read GPT-2's tokens, and {cfg['task']} "
            "has tokens of its own: drop init_from, or train on text in GPT-2's tokens (python "
            'data/text/prepare.py --input=FILE --encoding=gpt2, then --task=text)'
        )
    if encoding != 'gpt2':
        raise ConfigError(
            f"init_from starts from GPT-2's weights, which read GPT-2's tokens, and encoding="
            f"{encoding!r} is another tokenizer's: prepare the data in GPT-2's (python "
            f'data/{cfg["task"]}/prepare.py --encoding=gpt2 ...) and drop --encoding'
        )
    try:
        return gpt2_files(cfg['init_from'])
    except ValueError as e:  # what is not GPT-2's files, in one line naming the file
        raise ConfigError(str(e)) from None


def model_args_of(cfg, meta, T, gpt2=None):
    """A new run's GPTConfig: the variant's flags, then the config's model keys; T and vocabulary
    the task's, or with init_from GPT-2's shape (`gpt2`: its config.json and weights)."""
    args = {**VARIANTS[cfg['variant']], **{k: cfg[k] for k in MODEL_KEYS if k in cfg}}
    args['block_size'] = cfg['block_size'] or T
    args['vocab_size'] = args.get('vocab_size') or meta['vocab_size']
    if (
        gpt2
    ):  # the model keys typed: those not at train.py's defaults, and any GPTConfig field given
        given = {
            k: cfg[k]
            for k in MODEL_KEYS
            if k in cfg and (k not in DEFAULTS or cfg[k] != DEFAULTS[k])
        }
        args.update(gpt2_args(gpt2[0], VARIANTS[cfg['variant']], given, args['block_size']))
    if cfg['classify']:
        # the authors' Yelp model as it ran (trainer_classifier.py; transformers 4.50-4.52: SDPA
        # ignores is_causal): a head output per class at the review's last token
        # (loader.class_targets), softmax causal, MixiT both ways
        args['n_classes'] = len(meta['classes'])
        args.setdefault('causal', args.get('mixing') != 'mixit')
        args.setdefault(
            'pad_token', meta.get('sep', -1)
        )  # the end-of-text (padding) row zero and frozen
    if not args.get('causal', True) and args.get('mixing') == 'mixit' and args['block_size'] != T:
        raise ConfigError(
            f'bidirectional MixiT mixes all block_size positions: set block_size={T} (or 0), the '
            f'length of the examples'
        )
    if args['vocab_size'] < meta['vocab_size']:
        raise ConfigError(
            f"vocab_size={args['vocab_size']} is smaller than the task's {meta['vocab_size']}: "
            f'leave it unset or make it larger (padding, e.g. to a multiple of 64)'
        )
    return args


def get_lr(step, cfg):
    """Linear warm-up, then decay to min_lr at lr_decay_iters: cosine (nanoGPT) or linear (HF's
    get_linear_schedule_with_warmup, the authors' language-modeling and Yelp trainers, whose min_lr
    is 0)."""
    decay_iters = cfg['lr_decay_iters'] or cfg['max_iters']
    if step < cfg['warmup_iters']:
        return cfg['learning_rate'] * (step + 1) / (cfg['warmup_iters'] + 1)
    if step >= decay_iters:
        return cfg['min_lr']
    ratio = (step - cfg['warmup_iters']) / max(1, decay_iters - cfg['warmup_iters'])
    fraction = (
        1.0 - ratio if cfg['lr_schedule'] == 'linear' else 0.5 * (1.0 + math.cos(math.pi * ratio))
    )
    return cfg['min_lr'] + fraction * (cfg['learning_rate'] - cfg['min_lr'])


@torch.no_grad()
def evaluate(model, x, y, batch_size, ctx, rank=0, world=1, exact=True):
    """Over the whole split (each rank a contiguous shard, sums reduced): mean cross-entropy per
    scored token (a corpus's log perplexity), accuracy per scored token (the papers' metric), tokens
    read/s, and with `exact` the share of examples with every scored token right (a task's; a
    corpus's windows have no such answer). The numbers do not depend on batch_size (fitting_model
    may lower it): each example's loss is summed on its own, in float64, and the examples' sums
    once, in one order; the counts are whole numbers. (The logits themselves may round differently
    in a batch of another size, as a CPU's BLAS blocks it: the loss can move in its last float32
    digits.)"""
    model.eval()
    t0 = time.time()
    lo, hi = len(x) * rank // world, len(x) * (rank + 1) // world
    losses = torch.zeros(hi - lo, dtype=torch.float64, device=x.device)  # each example's
    counts = torch.zeros(3, dtype=torch.float64, device=x.device)  # correct, scored, whole
    for i in range(lo, hi, batch_size):
        xb, yb = x[i : min(i + batch_size, hi)], y[i : min(i + batch_size, hi)]
        with ctx:
            logits, _ = model(xb, yb)
        scored = yb != -1
        correct = (logits.argmax(-1) == yb) & scored
        per_token = F.cross_entropy(
            logits.float().flatten(0, 1), yb.flatten(), ignore_index=-1, reduction='none'
        )
        losses[i - lo : i - lo + len(xb)] = per_token.view(yb.shape).double().sum(-1)
        whole = (correct == scored).all(-1)  # every scored token of the example right
        counts += torch.stack([correct.sum(), scored.sum(), whole.sum()]).double()
    sums = torch.cat([losses.sum().view(1), counts, counts.new_tensor([hi - lo])])
    if world > 1:
        dist.all_reduce(sums)
    model.train()
    loss_sum, correct, scored, exact_sum, examples = sums.tolist()
    return dict(
        val_loss=loss_sum / scored,
        val_acc=correct / scored,
        **dict(val_exact=exact_sum / examples) if exact else {},
        eval_tokens_per_s=examples * x.shape[1] / (time.time() - t0),
    )


class Progress:
    """The progress bar, of training batches, not held-out numbers: the step's loss (all
    micro-batches and processes), the accuracy per scored token of rank 0's last micro-batch,
    tokens/s and, on a GPU named in `peaks` (model.PEAK_FLOPS), the model FLOPs utilization against
    the peak of the run's compute `dtype` (model.PEAK_SHARE), each over the steps since the last
    update (the only sync)."""

    def __init__(self, cfg, step, show, model, examples_per_step, T, dtype, peaks=PEAK_FLOPS):
        self.bar = tqdm(
            total=cfg['max_iters'], initial=step, disable=not show, dynamic_ncols=True, desc='train'
        )
        self.model, self.examples, self.T, self.step, self.t = (
            model,
            examples_per_step,
            T,
            step,
            time.time(),
        )
        gpu = torch.cuda.get_device_name() if next(model.parameters()).is_cuda else ''
        peak = next((v for k, v in peaks.items() if k in gpu), None)
        self.peak = peak and peak * PEAK_SHARE[dtype]

    def log(self, step, loss, predicted, y):
        scored = y != -1
        acc = ((predicted == y) & scored).sum().item() / max(1, scored.sum().item())
        dt, examples = time.time() - self.t, self.examples * (step - self.step)
        postfix = dict(
            batch_loss=f'{loss:.4f}', batch_acc=f'{acc:.3f}', tok_s=f'{examples * self.T / dt:,.0f}'
        )
        if self.peak:
            postfix['mfu'] = f'{self.model.estimate_mfu(examples, dt, self.peak):.1%}'
        self.t, self.step = time.time(), step
        self.bar.set_postfix(postfix, refresh=False)
        self.bar.update(step - self.bar.n)


def summary(label, m, corpus):
    """A run's last line, after its `label`: a corpus's log perplexity, else the accuracy on the
    evaluated split."""
    names = {'val': 'held-out', 'train': 'training-set', 'validation': 'validation'}
    where = names.get(m['eval_split'], f'{m["eval_split"]}-set')
    result = (
        f'{m["eval_split"]} log perplexity {m["val_loss"]:.4f} '
        f'(perplexity {math.exp(m["val_loss"]):.2f}, '
        f'next-token accuracy {m["val_acc"]:.2%})'
        if corpus
        else f'{where} accuracy {m["val_acc"]:.2%} per '
        f'scored token, {m["val_exact"]:.2%} exact match, loss {m["val_loss"]:.4f}'
    )
    return f'{label}: {result} after {m["step"]} steps ({m["wall_s"]:.0f} s)'


def train(config=None):
    """Trains one run; returns its final metrics. `config` holds the keys to override (see --help).
    Everything is checked before the run's folder is touched: the keys, the checkpoint, the data,
    the model."""
    # the config: the keys given, or a resumed run's checkpoint with them (checkpoint.py)
    overrides = dict(config or {})
    path = find_run(overrides, 'resume') if overrides.get('resume') else None
    ckpt = load_checkpoint(path) if path else None
    cfg = (
        checkpoint.resumed_config(ckpt, overrides, resolve, RESUMABLE)
        if ckpt
        else resolve(overrides)
    )
    run_dir = path.parent if path else run_dir_of(cfg)

    # the device and torchrun's processes: each runs its share of every step's batch (batch_size x
    # gradient_accumulation_steps examples, whatever the number of processes) on its own GPU or its
    # share of the CPU: whole micro-batches, or pieces of each where the processes outnumber them
    # (loader.layout; a split that does not divide is refused on every process, before they meet)
    rank, world = launch()
    ddp = torchrun()
    local_steps, micro_size, pieces = layout(
        cfg['batch_size'], cfg['gradient_accumulation_steps'], world
    )
    device = pick_device(cfg['device'])
    if ddp and device.startswith('cuda'):
        device = f'cuda:{os.environ["LOCAL_RANK"]}'
        torch.cuda.set_device(device)
    own_group = ddp and not dist.is_initialized()  # a caller's process group is the caller's to end
    if own_group:
        meet('nccl' if device.startswith('cuda') else 'gloo', rank, world, cfg['ddp_timeout'])
    master, device_type = rank == 0, device.split(':')[0]
    if device_type == 'cpu':
        keep_freed_memory()
        count = cpu_threads()  # its share of the physical cores, unless OMP_NUM_THREADS says
        if count:
            torch.set_num_threads(count)
    global_batch = cfg['batch_size'] * cfg['gradient_accumulation_steps']

    # the data and the model. What may fail on some processes only (their machine's files, device
    # and memory) is checked together, so that every process stops with the first failure
    # (checkpoint.together)
    # GPT-2's files and tokens first (a new run with init_from), then rank 0 generates a synthetic
    # task's missing files; the others wait for them
    with together(ddp):
        gpt2 = gpt2_of(cfg) if cfg['init_from'] and not ckpt else None
        if master:
            generate_missing(cfg)
    with together(ddp):
        dtype, ctx = compute_dtype(cfg, device_type)
        meta, train_data, held_out, T = load_data(cfg, generate=False)
        if ckpt:
            checkpoint.same_data(ckpt, meta)
        # GPT-2's shape and weights (model.py) or this code's init; a ValueError is bad input
        try:
            model_args = ckpt['model_args'] if ckpt else model_args_of(cfg, meta, T, gpt2)
            raw_model, eval_batch = fitting_model(model_args, cfg, T, device, micro_size)
            own, unused = raw_model.load_gpt2(gpt2[1]) if gpt2 else ((), ())
        except ValueError as e:
            raise ConfigError(str(e)) from None
    batch = batches(cfg, train_data, T, device, rank, world, meta['vocab_size'])
    # the held-out windows: the same at every evaluation, or eval_indices' row of its step (loader)
    fixed = None if callable(held_out) else tuple(t.to(device) for t in held_out)

    # the optimizer, and a resumed run's weights, optimizer state and step
    optimizer = raw_model.configure_optimizers(
        cfg['weight_decay'], cfg['learning_rate'], (cfg['beta1'], cfg['beta2']), device_type
    )
    scaler = torch.amp.GradScaler(device_type, enabled=dtype == 'float16')
    if ckpt:
        checkpoint.restore(ckpt, raw_model, optimizer, scaler)
    step = start = ckpt['step'] if ckpt else 0
    if dtype not in (
        'float32',
        'tf32',
    ):  # the fixed matrices in the compute dtype: no cast per step
        raw_model.fixed_to(getattr(torch, dtype))
    compile_model = cfg['compile'] or cfg['compile'] is None and device_type == 'cuda'
    model = torch.compile(raw_model) if compile_model else raw_model
    if ddp:
        # the buffers are the fixed matrices, the same on every rank (seeded): no broadcast before a
        # forward. torch 2.13 deprecates broadcast_buffers for forward_sync_buffers (not in 2.11)
        with warnings.catch_warnings():
            warnings.filterwarnings('ignore', '`broadcast_buffers` is deprecated', FutureWarning)
            model = DDP(
                model,
                device_ids=[int(device.split(':')[1])] if device_type == 'cuda' else None,
                broadcast_buffers=False,
            )
    trained = [p for p in raw_model.parameters() if p.requires_grad]
    corpus = isinstance(
        train_data, np.memmap
    )  # a corpus's token stream; else fixed-length examples
    split = 'validation' if cfg['val_frac'] else cfg['eval_split'] or meta['eval_split']
    if master:
        n = torch.get_num_threads()
        threads = f', {n} thread{"s" * (n != 1)}' if device_type == 'cpu' else ''
        print(describe(cfg, raw_model, train_data, T, f'{device} {dtype}{threads}', world, run_dir))
        if gpt2:
            print(
                f"GPT-2's weights from {cfg['init_from']}; "
                f"at this code's init: {', '.join(own) or 'none'}; "
                f"GPT-2's left unused: {', '.join(unused) or 'none'}"
            )

    # the loop: an optimizer step over the micro-batches; every log_interval steps the progress bar,
    # every eval_interval steps an evaluation, which checkpoint.Run records (its log line, ckpt.pt
    # and W&B)
    with checkpoint.Run(run_dir, cfg, meta, ckpt, NOT_NAMED, write=master, ddp=ddp) as run:
        progress = Progress(
            cfg, step, master and cfg['progress'], raw_model, global_batch, T, dtype
        )
        t_start, metrics, train_loss = time.time(), None, float('nan')
        # this process's group of micro-batches, and its piece of each (loader.layout)
        share, piece = divmod(rank, pieces)

        def evaluation(lr):  # the weights at `step` evaluated, as log.jsonl records it
            x_val, y_val = fixed or [t.to(device) for t in held_out(step)]
            ev = evaluate(model, x_val, y_val, eval_batch, ctx, rank, world, not corpus)
            tokens, elapsed_s = step * global_batch * T, time.time() - t_start
            return dict(
                step=step,
                tokens=tokens,
                train_loss=train_loss,
                **ev,
                eval_split=split,
                lr=lr,
                elapsed_s=elapsed_s,
            )

        while step < cfg['max_iters']:
            lr = get_lr(step, cfg)
            for group in optimizer.param_groups:
                group['lr'] = lr
            evaluated = (step + 1) % cfg['eval_interval'] == 0 or step + 1 == cfg['max_iters']
            # the progress bar's steps and the evaluations: the only host-device syncs
            logged = evaluated or (step + 1) % cfg['log_interval'] == 0
            losses = []
            for micro, (xb, yb, weight) in enumerate(batch(step)):
                if cfg['dropout'] > 0:  # the micro-batch over all processes, and its piece
                    seed_dropout(cfg['seed'], step, share * local_steps + micro, piece)
                if ddp:  # all-reduce the gradients once, on the last micro-batch
                    model.require_backward_grad_sync = micro == local_steps - 1
                with ctx:
                    logits, loss = model(xb, yb)
                    if weight is not None:  # a piece of a micro-batch (loader.batches): its share
                        # of the micro-batch's mean loss; one with no scored target (a mean of
                        # NaN) adds 0 and a zero gradient
                        loss = torch.where(weight > 0, loss, 0.0) * weight
                    loss = loss / local_steps
                # the logits (B, T, vocab) are not kept through the backward pass: only their
                # argmax, when logging
                predicted = logits.argmax(-1) if logged and micro == local_steps - 1 else None
                del logits
                scaler.scale(loss).backward()
                losses.append(loss.detach())
            if cfg['grad_clip']:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(trained, cfg['grad_clip'])
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            step += 1

            if logged:
                step_loss = torch.stack(losses).sum()
                # the mean over every process's micro-batches; all stop together if not finite
                if ddp:
                    dist.all_reduce(step_loss)
                train_loss = step_loss.item() / world
                if not math.isfinite(train_loss):
                    raise run.non_finite(step)
                progress.log(step, train_loss, predicted, yb)
            if evaluated:
                metrics = evaluation(lr)
                if not math.isfinite(metrics['val_loss']):  # never overwrite good weights with bad
                    raise run.non_finite(step)
                run.record(metrics, raw_model, optimizer, scaler)
        # nothing left to train (max_iters=0, or a resumed run at its last step): the weights as
        # they are evaluated. A fresh run records it as any evaluation, its log line (which
        # compare_runs reads) and a ckpt.pt of the initial weights (to --resume or --sample); a
        # resumed run has both for this step already, and its ckpt.pt stays as it is
        if metrics is None:
            metrics = evaluation(get_lr(step, cfg))
            if not ckpt:
                run.record(metrics, raw_model, optimizer, scaler)
        progress.bar.close()

    # the end: the last line says the result
    wall = time.time() - t_start
    metrics.update(
        task=cfg['task'],
        variant=cfg['variant'],
        eval_split=split,
        wall_s=wall,
        tokens_per_s=global_batch * T * (step - start) / wall,
        trainable_params=raw_model.get_num_params(),
        run_dir=str(run_dir),
    )
    if master:
        print(summary(f'{cfg["task"]} / {model_label(cfg)}', metrics, corpus))
    if own_group:
        # every process past its last collective and gloo's worker thread idle before the group
        # goes (the barrier's wait lets that thread take the GIL): else the group's destructor, here
        # or the DDP reducer's at return, joins a worker that waits for the GIL to free the last
        # all-reduce's tensors while this thread holds it, and the process never ends, deaf to
        # SIGTERM (5 of 9 two-process resumes, torch 2.13)
        dist.barrier()
        del model
        dist.destroy_process_group()
    return metrics


def describe(cfg, model, train_data, T, where, world, run_dir):
    """The run's first line: the model, what it trains on, where, and the run's folder."""
    if cfg['online']:
        data = 'a fresh training batch every step'
    elif isinstance(train_data, np.memmap):
        data = f'{len(train_data):,} training tokens'
    else:
        data = f'{len(train_data[0]):,} training examples'
    # the keys a name of the config's own leaves out (checkpoint.named_keys), which its hash tells
    own_name = not cfg['run_name'] and run_dir == run_dir_of(cfg)
    left_out = checkpoint.named_keys(name_keys(cfg))[1] if own_name else []
    return (
        f'{cfg["task"]} / {model_label(cfg)}: {model.get_num_params():,} trained of '
        f'{model.get_num_params(False):,} parameters, {data}, length {T}, {where}, '
        f'{world} process(es), in {run_dir}'
        + (f' (its name leaves out {", ".join(left_out)})' if left_out else '')
    )


def seed_dropout(seed, step, micro, piece=0):
    """Dropout masks as a function of (seed, step, micro-batch over all processes), as every batch
    is: a resumed run, or one of N processes running whole micro-batches, draws what an
    uninterrupted single process draws. A piece of a micro-batch split between processes draws its
    own masks (the same distribution; not one process's masks, which are drawn for the whole
    micro-batch at once)."""
    torch.manual_seed(zlib.crc32(f'{seed}:{step}:{micro}{f":{piece}" if piece else ""}'.encode()))


# ------------------------------------------------------------------------------------------------
# sampling and the command line
@torch.no_grad()
def sample_text(config=None):
    """Continues `prompt` num_samples times with the weights of a run's ckpt.pt (model.generate); ->
    the texts, prompt included. The run is found from its keys, as --resume finds it: its run_name,
    or its training keys."""
    ckpt = load_checkpoint(find_run(dict(config or {}), 'sample'))
    cfg = resolve({**ckpt['config'], **(config or {})})
    device = pick_device(cfg['device'])
    model = GPT(GPTConfig(**ckpt['model_args']))
    model.load_state_dict(ckpt['model'])
    model.to(device).eval()
    ids, decode = prompt_codec(ckpt['meta'], cfg['prompt'])
    if len(ids) > model.config.block_size:
        raise ConfigError(
            f'the prompt has {len(ids)} tokens; the model reads at most block_size='
            f'{model.config.block_size}: shorten it'
        )
    idx = prompt_batch(model.config, ids, cfg['num_samples'], cfg['max_new_tokens'], device)
    torch.manual_seed(cfg['seed'])
    out = model.generate(idx, cfg['max_new_tokens'], cfg['temperature'], cfg['top_k'] or None)
    return [decode([t for t in row if t < ckpt['meta']['vocab_size']]) for row in out.tolist()]


def main(argv):
    """The command line: any mistake in it, or in a file it reads, ends in one line 'error: ...'
    and exit code 2."""
    master = True  # under torchrun rank 0 reports what stops every process (together)
    try:
        master = launch()[0] == 0
        overrides = parse_args([a for a in argv if a not in ('--help', '-h')])
        if '--help' in argv or '-h' in argv:
            print(help_text(overrides.get('task', DEFAULT_RUN['task'])))
        elif overrides.get('sample'):
            texts = sample_text(overrides)
            if master:  # under torchrun each process draws the same texts: shown once
                print('\n---------------\n'.join(texts))
        else:
            train(overrides)
    except (ConfigError, FloatingPointError) as e:
        if not master and not isinstance(
            e, ReportedElsewhere
        ):  # before the processes met: rank 0 most likely meets it
            time.sleep(
                5
            )  # too and reports it, and torchrun ends this one then; else this one reports its own
        if master or not isinstance(e, ReportedElsewhere):
            print(f'error: {e}', file=sys.stderr)
        leave(2)
    leave(0)


if __name__ == '__main__':
    synthetic.end_on_signal()  # Ctrl-C or a kill: no temporary files; the last checkpoint stays
    main(sys.argv[1:])

"""
A run's config: the keys of train.py's settings block (DEFAULTS, read from its text), of GPTConfig
and of the task, as the command line and config files give them (parse_args, read_config), checked
in one place (resolve) and listed by --help (help_text); what a run's folder is named after
(run_dir_of) and how a run is found again (find_run); the model a config names (model_args_of);
and a command line's errors, one line each (command_line).
"""

import ast
import math
import os
import re
import sys
import time
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

import checkpoint
from checkpoint import ReportedElsewhere
from data import synthetic
from data.loader import task_keys, task_module, unknown
from data.synthetic import ConfigError, read_json
from devices import launch, leave, peer_gone
from gpt2 import gpt2_args, gpt2_files
from model import VARIANTS, GPTConfig

# train.py's settings block is the config's defaults and their meanings (help_text): it is read
# as text, as a config file is, so that train.py reads as nanoGPT's and nothing imports it
TRAIN_PY = Path(__file__).resolve().parent / 'train.py'


def settings(path):
    """The lines between the first two rules (`# ---...`) of `path`: `key = literal` lines, each
    with its comment. -> {key: value}, in their order."""
    lines = Path(path).read_text().splitlines()
    first, last = [i for i, line in enumerate(lines) if line.startswith('# ---')][:2]
    block = ast.parse('\n'.join(lines[first + 1 : last]))
    return {node.targets[0].id: ast.literal_eval(node.value) for node in block.body}


DEFAULTS = settings(TRAIN_PY)
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
# what a command does to a run (resume, sample from, replace it): typed, never read from a file
COMMAND_KEYS = ('resume', 'sample', 'overwrite')
# `python train.py` with no --task: Dyck-1 as the papers' text has it (strings of up to 40 brackets,
# held-out strings free to occur in training) for 500 steps, which the default model learns exactly
# in under a minute on 2 CPU cores.
# --task=dyck alone is the authors' Dyck-1 (80 brackets), as every task's own defaults are the
# authors' problems.
DEFAULT_RUN = dict(task='dyck', format='text', length=40, max_iters=500)
# the smallest value of each number (checks.check_config checks the model's, each task's
# prepare.py its own)
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
# the largest integer any key takes: sizes, counts and seconds beyond it fit no machine's memory,
# and torch's and numpy's C integers overflow on them (a C++ traceback, not a message)
AT_MOST = 2**31 - 1


def parse_args(argv, flag='--'):
    """['FILE', '--key=value', '--flag'] -> overrides, a later one over an earlier one. FILE: a
    config file of `key = value` lines (nanoGPT's: experiments/config/; read, never run:
    read_config), a config.json that train.py wrote, or a run's folder (out/<run>: its config.json,
    out_dir and run_name the folder itself, data_dir and W&B's keys typed, for --sample and
    --resume). A saved config.json holds every key, so it fills only the keys not given before it,
    and never what the command does (COMMAND_KEYS: typed, never read from a file; one set there is
    refused). Flags' values are Python literals, else strings; a key whose default is a string takes
    the text as typed (--prompt=75 is the prompt '75'). A key typed twice, or set in two config
    files (two tasks' among them), is refused: one would be dropped without a word. `flag`: how
    the caller's user types a key, for the messages (the experiments' '--at=')."""
    text_keys = {k for k, v in {**DEFAULTS, **MODEL_DEFAULTS}.items() if isinstance(v, str)}
    overrides, lines = {}, []  # lines: (file, line, key, value) of the config files' keys
    typed, bare, tasks = {}, set(), {}  # keys typed, those without a value; config files' tasks
    # a run's folder, which names out_dir and run_name, and those typed: one or the other
    run_folder, placed = None, []
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
                if 'task' in keys:
                    tasks[arg] = keys['task'][0]
                if len(set(tasks.values())) > 1:  # the first's task keys would be another's
                    (a, ta), (b, tb) = list(tasks.items())[:2]
                    raise ConfigError(
                        f'{a} sets task={ta!r} and {b} task={tb!r}: they are two runs, give one '
                        'config file (and --key=value flags over it)'
                    )
                for path, line, key, _ in lines:  # one file's key over another's: no word
                    if key in keys:
                        raise ConfigError(
                            f'{key} is set in {path} (line {line}) and {arg} (line '
                            f'{keys[key][1]}): keep one of them, or type --{key} after both'
                        )
                lines += [(arg, line, k, v) for k, (v, line) in keys.items()]
                overrides.update({k: v for k, (v, line) in keys.items()})
                continue
            if arg.endswith('.py'):  # nanoGPT's config/train_x.py: ours are in experiments/config/
                raise ConfigError(
                    f"no config file '{arg}': the papers' runs are in experiments/config/ (ls "
                    'experiments/config), e.g. python train.py '
                    'experiments/config/mixit_table3_addition.py'
                )
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
                if k in COMMAND_KEYS and v:  # train.py writes them False: never from a file
                    raise ConfigError(
                        f'{arg}: {k} says what the command does, not what it trains: drop it there '
                        f'and type --{k}'
                    )
                # a run's folder: where the run reads and writes and what it sends (W&B) are
                # typed, as a checkpoint never chooses them (checkpoint.CHOSEN_NOW); a file there
                # may be another's
                if k not in COMMAND_KEYS and not (path.is_dir() and k in checkpoint.CHOSEN_NOW):
                    overrides.setdefault(k, v)
            if path.is_dir():  # the folder itself, wherever it is now and whatever its name
                folder = path.resolve()  # through a link: the folder it points to
                if run_folder:  # the second's keys would fill what the first's leave
                    raise ConfigError(
                        f"'{run_folder}' and '{arg}' are two runs' folders: give the one to "
                        'resume or sample'
                    )
                run_folder = arg
                overrides.update(out_dir=str(folder.parent), run_name=folder.name)
            continue
        key, eq, value = arg[2:].partition('=')
        if key in typed:  # the later would win without a word
            raise ConfigError(
                f'{flag}{key} is given twice ({typed[key][:60]}, then {flag}{arg[2:][:60]}): keep '
                'the one you mean'
            )
        typed[key] = flag + arg[2:]
        bare |= {key} if not eq else set()
        placed += [f'--{key}'] if key in ('out_dir', 'run_name') else []
        try:
            overrides[key] = (
                (value if key in text_keys else ast.literal_eval(value)) if eq else True
            )  # a bare --flag
        except (ValueError, SyntaxError, MemoryError, RecursionError) as e:
            if 'Exceeds the limit' in str(e):  # Python's 4,300 digits
                raise ConfigError(too_large(f'{flag}{key}')) from None
            overrides[key] = value
        if (
            overrides[key] == 0
            and isinstance(overrides[key], float)
            and re.search(r'[1-9]', value.lower().partition('e')[0])
        ):  # 1e-400 reads as 0.0
            raise ConfigError(
                f'{flag}{key}={value} is below the smallest float and reads as 0.0: give 0, or '
                'a number above 1e-308'
            )
    if run_folder and placed:
        raise ConfigError(
            f"'{run_folder}' is a run's folder, which names the run's out_dir and run_name: give "
            f'the folder or {placed[0]}, not both'
        )
    # what the command does to a run: one thing (overwrite replaces a run, resume trains it on,
    # sample prints text from it)
    doing = [k for k in COMMAND_KEYS if overrides.get(k) is True]
    if len(doing) > 1:
        raise ConfigError(
            f'--{doing[0]} and --{doing[1]} are two commands (--resume trains a run on, --sample '
            'prints text from it, --overwrite replaces it with a new run): give one of them'
        )
    # each key of a config file known and of its type, said at its line: for the run's task, the
    # last given (an unknown task is resolve's to name)
    task = overrides.get('task', DEFAULT_RUN['task'])
    known = {**MODEL_DEFAULTS, **DEFAULTS}
    if isinstance(task, str) and task in synthetic.tasks():
        known.update(task_keys(task_module(task)))
    # a bare --flag is True: a key of a number or a text needs its value (a typo of --key=VALUE)
    for key in bare:
        if key in known and not isinstance(known[key], bool) and known[key] is not None:
            raise ConfigError(
                f'{flag}{key} takes a value: {flag}{key}=VALUE (default: {known[key]!r}); a key '
                'alone is True, for the keys that are on or off'
            )
    if lines and isinstance(task, str) and task in synthetic.tasks():
        for path, line, key, value in lines:
            try:
                check_keys({key: value}, known)
            except ConfigError as e:
                raise ConfigError(f'{path}, line {line}: {e}') from None
    return overrides


def too_large(what):
    return f'{what} of more than 4,300 digits is beyond the {AT_MOST:,} any key takes: lower it'


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
        if 'Exceeds the limit' in str(e):  # Python's 4,300 digits
            why = too_large('a number')
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
            if key in keys:  # nanoGPT's exec would keep the last without a word
                raise ConfigError(
                    f'{path}, line {node.lineno}: {key} is set on line {keys[key][1]} too: keep '
                    'one of them'
                )
            try:
                keys[key] = (ast.literal_eval(node.value), node.lineno)
                continue
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        shown = (ast.get_source_segment(text, node) or '').splitlines()[0][:60]
        raise ConfigError(f'{path}, line {node.lineno}: {shown!r} is not a key = value line: {fix}')
    return keys


# nanoGPT's keys that this repository names otherwise: a run of nanoGPT's habits is pointed to ours
NANOGPT_KEYS = {
    'dataset': "nanoGPT's --dataset is --task here (python train.py --help lists the tasks)",
    'eval_iters': "nanoGPT's --eval_iters is --eval_examples here: the held-out examples evaluated",
    'always_save_checkpoint': 'every evaluation saves ckpt.pt here: drop always_save_checkpoint',
}


# what float() reads but a Python literal is not: a typed --lr=nan is a string to check_keys
NOT_FINITE = ('nan', '+nan', '-nan', 'inf', '+inf', '-inf', 'infinity', '+infinity', '-infinity')


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
        if key not in known and key in NANOGPT_KEYS:
            raise ConfigError(f'unknown key {key!r}: {NANOGPT_KEYS[key]}')
        if key not in known:
            raise unknown('key', key, known)
        if key == 'init_from' and value in ('resume', 'scratch'):
            raise ConfigError(
                f"init_from={value!r} is nanoGPT's: here a run continues with --resume (its keys, "
                'or its folder: python train.py out/<run> --resume) and starts from scratch '
                "without init_from; init_from names GPT-2's weights ('gpt2', or a folder)"
            )
        default, given = known[key], type(value)
        expected = type(default) if default is not None else (bool if key == 'compile' else float)
        if not (
            value is None
            and default is None
            or given is expected
            or expected is float
            and given is int
        ):
            if expected is float and given is str and value.strip().lower() in NOT_FINITE:
                raise ConfigError(f'{key}={value} must be a finite number')  # as checks says inf
            raise ConfigError(
                f'{key}={value!r} should be of type {expected.__name__} (default: {default!r})'
            )
        if given is int and abs(value) > AT_MOST:
            raise ConfigError(
                f'{key}={value:.3g} is beyond the {AT_MOST:,} any key takes: lower it'
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
        if isinstance(value, float) and abs(value) > 3.4e38:  # float32's largest: torch's tensors
            raise ConfigError(f'{key}={value:.3g} is beyond float32 (3.4e38): lower it')
    for key, low in AT_LEAST.items():
        if key in cfg and not cfg[key] >= low:
            raise ConfigError(f'{key}={cfg[key]} must be at least {low}')
    for key in ('dropout', 'beta1', 'beta2', 'val_frac'):
        if not 0 <= cfg[key] < 1:
            raise ConfigError(f'{key}={cfg[key]} must be in [0, 1)')
    if cfg['lr_schedule'] not in ('cosine', 'linear'):
        raise ConfigError(f"lr_schedule={cfg['lr_schedule']!r} is not one of 'cosine', 'linear'")
    # get_lr's schedule: a warm-up to learning_rate, then a decay to min_lr at lr_decay_iters
    if cfg['min_lr'] > cfg['learning_rate']:
        raise ConfigError(
            f'min_lr={cfg["min_lr"]} is above learning_rate={cfg["learning_rate"]}: the schedule '
            'would rise after its warm-up; give min_lr at most learning_rate'
        )
    if 0 < cfg['lr_decay_iters'] < cfg['warmup_iters']:
        raise ConfigError(
            f"lr_decay_iters={cfg['lr_decay_iters']} ends the decay before the warm-up's "
            f'{cfg["warmup_iters"]} steps: give it at least warmup_iters (0: max_iters)'
        )
    for key in ('out_dir', 'run_name', 'data_dir'):  # a newline splits the folder's name in logs
        if any(ord(c) < 32 or ord(c) == 127 for c in cfg[key]):
            raise ConfigError(
                f'{key}={cfg[key]!r} holds a control character (a newline?): give a name of '
                'printable characters'
            )
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
    # Yelp: padding after its label
    if cfg.get('causal') is False and not cfg['classify'] and cfg['task'] != 'yelp':
        raise ConfigError(
            'causal=False lets a position read what follows it, its targets in '
            f'{cfg["task"]}: drop it'
        )
    # '' would write runs into the folder the command runs in
    if not cfg['out_dir'] or '\0' in cfg['out_dir']:
        raise ConfigError(
            f"out_dir={cfg['out_dir']!r} names no folder: give one (the default is 'out'; '.' for "
            f'this folder)'
        )
    # a folder name holds 255 bytes, and its temporaries a few more
    if (
        cfg['run_name'] in ('.', '..')
        or any(c in cfg['run_name'] for c in '/\\\0')
        or len(cfg['run_name'].encode()) > 200
    ):
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
        synthetic.home(cfg['out_dir'], 'out_dir'),
        synthetic.home(cfg['data_dir'], 'data_dir'),
    )
    return cfg


def help_text(task_name):
    """Every key with its default and the comment beside it in this file and model.py."""

    def comments(path):
        pattern = re.compile(r'^\s*(\w+)\s*(?::[^=]+)?=\s*.+?\s+#\s*(.*)$')
        return {
            m[1]: m[2] for line in Path(path).read_text().splitlines() if (m := pattern.match(line))
        }

    ours, model_comments = comments(TRAIN_PY), comments(TRAIN_PY.parent / 'model.py')
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
    if task_name not in synthetic.tasks():  # the help of a task that is none: that said
        raise unknown('task', task_name, synthetic.tasks())
    # each key's comment says which default is the authors' code's, the text's
    if task_name in synthetic.tasks():
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
    # python train.py's problem (the text's Dyck-1) is named as the default it is: dyck-standard
    if all(cfg.get(k) == v for k, v in DEFAULT_RUN.items() if k != 'max_iters'):
        base.update(DEFAULT_RUN)
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


def gpt2_of(cfg):
    """--init_from's GPT-2: its config.json and weights (gpt2.gpt2_files), for data in GPT-2's
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
    if gpt2:
        # the model keys typed: those not at train.py's defaults, and any GPTConfig field given
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
        # the end-of-text (padding) row zero and frozen
        args.setdefault('pad_token', meta.get('sep', -1))
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


@contextmanager
def command_line():
    """The body of a command (train.py, sample.py): any mistake in it, or in a file it reads, ends
    in one line 'error: ...' and exit code 2 (devices.leave). -> whether this process reports:
    under torchrun rank 0 reports what stops every process (checkpoint.together)."""
    master = True
    try:
        master = launch()[0] == 0
        yield master
    except (ConfigError, FloatingPointError) as e:
        # before the processes met: rank 0 most likely meets it too and reports it, and torchrun
        # ends this one then; else this one reports its own
        if not master and not isinstance(e, ReportedElsewhere):
            time.sleep(5)
        if master or not isinstance(e, ReportedElsewhere):
            print(f'error: {e}', file=sys.stderr)
        leave(2)
    except RuntimeError as e:  # another process of the run ended: one line, not gloo's traceback
        words = peer_gone(e)
        if not words:
            raise
        print(
            f'error: another process of this run ended ({words}), '
            "so this one stops too; the run's last checkpoint stays: --resume goes on from it",
            file=sys.stderr,
        )
        leave(1)
    leave(0)

"""
Trains any variant of model.py on any task, on a CPU, a GPU, or many GPUs:

    python train.py                                    # the default run (DEFAULT_RUN): under a minute on a CPU
    python train.py --task=retrieval --variant=frozen_qk --m_max=10
    torchrun --standalone --nproc_per_node=4 train.py --task=khop --variant=mixit
    python train.py out/<run>/config.json              # run again from a saved config
    python train.py --resume --run_name=<run> --max_iters=2000   # continue a run from its ckpt.pt, extended
    python data/text/prepare.py --input=book.txt && python train.py --task=text --variant=frozen_qk
    python train.py --task=text --variant=frozen_qk --sample --prompt='Once upon'  # text from its ckpt.pt
    python train.py --help                             # every key, its default and meaning

and from Python: `from train import train; metrics = train(dict(task=..., variant=...))`. The keys are the
config block below, every GPTConfig field of model.py (given ones override the variant's) and the settings of
the task (data/<task>/prepare.py; its `seed` is `data_seed` here). Training is a deterministic function of the
config: step s's examples are a function of (seed, s) (data/loader.py), so N processes compute what one process
with N-fold gradient accumulation computes, and a resumed run ends with an uninterrupted one's weights.
"""
import ast
import math
import os
import re
import sys
import time
import zlib
from dataclasses import fields
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn import functional as F

from data import runs, synthetic
from data.loader import (ConfigError, ReportedElsewhere, batches, compute_dtype, ddp_model, fitting_model,
                         generate_missing, leave, load_data, processes, read_json, task_keys, task_module, together,
                         unknown)
from data.runs import load_checkpoint
from model import GPTConfig, PEAK_FLOPS, VARIANTS

_before_config = set(globals())
# ----------------------------------------------------------------------------- config
# run
out_dir = 'out'  # runs are written to out_dir/<run_name>/: config.json, log.jsonl, ckpt.pt
run_name = ''  # name of the run's folder; '' = '<task>-<variant>,<keys not at their default>-<hash of the config>'
resume = False  # continue the run from its ckpt.pt, whose config is the base; only RESUMABLE keys may change
overwrite = False  # let a fresh run replace another run's files in its folder (else it is refused)
seed = 0  # seeds the initial weights, the fixed random matrices and the order of the training examples
# task
task = 'dyck'  # a folder of data/ with a prepare.py (generated on first use, or prepared); none given: DEFAULT_RUN
data_seed = 0  # seed of a synthetic task's data generator (its `--seed` flag)
data_dir = ''  # where the task's files are; '' = data/<task>/ (a sub-folder when task settings differ)
eval_split = ''  # the split to evaluate on; '' = the task's held-out split (meta.json), e.g. val, test
val_frac = 0.0  # model selection: keep the last val_frac of the training split out of training, evaluate on it
online = False  # synthetic tasks: a fresh batch from the task's generator every step, held-out inputs redrawn
classify = False  # the authors' Yelp classifier, a head output per class (model_args_of); needs a task with classes
# model
variant = 'standard'  # one of model.VARIANTS; a GPTConfig field given as a key overrides the variant's value
n_layer = 2  # blocks
n_head = 4  # attention heads per block
n_embd = 128  # width
block_size = 0  # longest sequence; 0 = the task's (its example length; 256 for a corpus)
dropout = 0.0  # dropout probability
bias = False  # biases on the attention and MLP linears
init_from = ''  # start from GPT-2's weights: a folder of its Hugging Face files, or 'gpt2'... via transformers; '' = no
# optimization
max_iters = 600  # optimizer steps
batch_size = 64  # examples per micro-batch per process
gradient_accumulation_steps = 1  # micro-batches per optimizer step, over all processes together
learning_rate = 3e-3  # peak learning rate
lr_schedule = 'cosine'  # after the warm-up: 'cosine' to min_lr (nanoGPT) or 'linear' to min_lr (HF's, the authors')
min_lr = 3e-4  # learning rate at the end of the decay
warmup_iters = 100  # linear warm-up steps
lr_decay_iters = 0  # step at which the decay reaches min_lr; 0 = max_iters
weight_decay = 0.1  # AdamW weight decay of >= 2-D weights
beta1 = 0.9  # AdamW beta1
beta2 = 0.95  # AdamW beta2
grad_clip = 1.0  # clip the global gradient norm to this; 0 = off
# evaluation and logging
eval_interval = 200  # evaluate, append to log.jsonl and save ckpt.pt every this many steps and at the end
eval_examples = 0  # held-out examples (for a corpus: windows of block_size tokens) per evaluation; 0 = the whole split
eval_batch_size = 512  # examples per evaluation batch
log_interval = 10  # steps between progress-bar updates (the only host-device synchronisation)
progress = True  # show a tqdm progress bar
# system
device = 'auto'  # 'auto' = cuda > mps > cpu; or 'cpu', 'cuda', 'cuda:1', 'mps'
dtype = 'auto'  # 'auto' = bfloat16 autocast where supported, float32 on CPU; or float32, bfloat16, float16
compile = None  # torch.compile the model; None = on CUDA only
# sampling: the run's keys plus --sample print text from its ckpt.pt instead of training
sample = False  # generate from out_dir/<run_name>/ckpt.pt instead of training
prompt = ''  # text to continue; '' = start from the end-of-text token (a corpus; a synthetic task needs one)
num_samples = 3  # independent continuations
max_new_tokens = 200  # tokens to generate per sample
temperature = 0.8  # < 1 sharpens the next-token distribution, > 1 flattens it; 0 (below 1e-6) = greedy
top_k = 200  # sample among the k most likely tokens; 0 = all
# Weights & Biases: imported only when asked for; WANDB_MODE=offline logs without network
wandb_log = False  # also log every evaluation to Weights & Biases (pip install wandb)
wandb_project = 'frozen-transformers'  # its project
wandb_run_name = ''  # its run name; '' = the run's folder name
# -----------------------------------------------------------------------------
DEFAULTS = {k: v for k, v in globals().items() if k not in _before_config and not k.startswith('_')}
MODEL_KEYS = {f.name: f for f in fields(GPTConfig)}
# where a run is written and how it is shown, not what it trains: left out of its folder's name
NOT_NAMED = ('out_dir', 'run_name', 'resume', 'overwrite', 'progress', 'log_interval', 'device', 'compile',
             'eval_batch_size', 'sample', 'prompt', 'num_samples', 'max_new_tokens', 'temperature', 'top_k',
             'wandb_log', 'wandb_project', 'wandb_run_name')
# what --resume may change besides those: how long the run goes on, its learning-rate schedule and clipping (to
# extend a run, or to go on more gently after a loss spike), its evaluations and the compute dtype. Every other key
# fixes the model, the data (the batch of step s) or the meaning of the optimizer state (betas, weight decay).
# A moved data_dir is fine: its meta.json must be the run's.
RESUMABLE = NOT_NAMED + ('max_iters', 'lr_decay_iters', 'learning_rate', 'min_lr', 'warmup_iters', 'lr_schedule',
                         'grad_clip', 'eval_interval', 'eval_examples', 'eval_split', 'dtype', 'data_dir')
# `python train.py` with no --task: Dyck-1 as the papers' text has it (strings of up to 40 brackets, held-out strings
# free to occur in training) for 500 steps, which the default model learns exactly in under a minute on 2 CPU cores.
# --task=dyck alone is the authors' Dyck-1 (80 brackets), as every task's own defaults are the authors' problems.
DEFAULT_RUN = dict(task='dyck', format='text', length=40, max_iters=500)
# the smallest value of each number (model.check_config checks the model's, each task's prepare.py its own)
AT_LEAST = dict(seed=0, data_seed=0, block_size=0, max_iters=0, batch_size=1, gradient_accumulation_steps=1,
                learning_rate=0, min_lr=0, warmup_iters=0, lr_decay_iters=0, weight_decay=0, grad_clip=0,
                eval_interval=1, eval_examples=0, eval_batch_size=1, log_interval=1, num_samples=1, max_new_tokens=1,
                temperature=0, top_k=0, n_train=0, n_test=0)


# ----------------------------------------------------------------------------- config handling

def check_keys(overrides, known):
    """overrides, each key one of `known` (else the error names the closest) and each value of its default's type (an
    int is a float too; a None default means an optional float, the model's attn_scale, or for compile a bool)."""
    checked = {}
    for key, value in overrides.items():
        if key not in known:
            raise unknown('key', key, known)
        default, given = known[key], type(value)
        expected = type(default) if default is not None else (bool if key == 'compile' else float)
        if not (value is None and default is None or given is expected or expected is float and given is int):
            raise ConfigError(f'{key}={value!r} should be of type {expected.__name__} (default: {default!r})')
        checked[key] = float(value) if expected is float and value is not None else value
    return checked


def resolve(overrides):
    """The full config of a run: DEFAULTS, then the task's settings, then overrides. Every key is
    checked; an unknown one fails at once and names the closest known key."""
    overrides = overrides if 'task' in overrides else {**DEFAULT_RUN, **overrides}
    module = task_module(overrides['task'])
    tkeys = task_keys(module)
    known = {**{k: f.default for k, f in MODEL_KEYS.items()}, **DEFAULTS, **tkeys}
    checked = check_keys(overrides, known)
    if checked.get('variant', DEFAULTS['variant']) not in VARIANTS:
        raise unknown('variant', checked['variant'], VARIANTS)
    cfg = {**DEFAULTS, **tkeys, **checked}
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
        raise ConfigError('classify=True reads a prepared task with classes (yelp), which has no generator: '
                          'drop online=True')
    if cfg['val_frac'] and cfg['eval_split']:
        raise ConfigError('val_frac evaluates on the validation split it holds out: drop eval_split')
    if cfg.get('n_classes') and not cfg['classify']:
        raise ConfigError('n_classes is what classify=True sets, from the classes in meta.json: drop n_classes')
    if cfg['classify'] and cfg['sample']:
        raise ConfigError("--sample generates tokens, and a classify=True run's head outputs classes, not tokens: "
                          'evaluate it with --resume instead')
    if cfg.get('causal') is False and not cfg['classify'] and cfg['task'] != 'yelp':  # Yelp: padding after its label
        raise ConfigError(f"causal=False lets a position read what follows it, its targets in {cfg['task']}: drop it")
    cfg['out_dir'], cfg['data_dir'] = os.path.expanduser(cfg['out_dir']), os.path.expanduser(cfg['data_dir'])
    return cfg


def parse_args(argv):
    """['config.json', '--key=value', '--flag'] -> overrides. Values are Python literals, else strings; a key
    whose default is a string takes the text as typed (--prompt=75 is the prompt '75')."""
    text_keys = {k for k, v in {**DEFAULTS, **{k: f.default for k, f in MODEL_KEYS.items()}}.items()
                 if isinstance(v, str)}
    overrides = {}
    for arg in argv:
        if not arg.startswith('--'):
            if not arg.endswith('.json') or not os.path.exists(arg):
                raise ConfigError(f"'{arg}' is neither --key=value nor an existing .json config file")
            saved = read_json(arg, 'give a config.json that train.py wrote, or --key=value flags')
            overrides.update({k: v for k, v in saved.items() if k != 'overwrite'})  # replacing a run: typed, not read
            continue
        key, eq, value = arg[2:].partition('=')
        try:
            overrides[key] = (value if key in text_keys else ast.literal_eval(value)) if eq else True  # a bare --flag
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            overrides[key] = value
    return overrides


def help_text(task_name):
    """Every key with its default and the comment beside it in this file and model.py."""
    def comments(path):
        pattern = re.compile(r'^\s*(\w+)\s*(?::[^=]+)?=\s*.+?\s+#\s*(.*)$')
        return {m[1]: m[2] for line in Path(path).read_text().splitlines() if (m := pattern.match(line))}
    ours, model_comments = comments(__file__), comments(Path(__file__).resolve().parent / 'model.py')
    lines = ['usage: python train.py [config.json] [--key=value ...]   (or torchrun ... train.py ...)', '']
    row = lambda k, v, comment='': f'  --{k}={v!r}'.ljust(37) + ' ' + comment
    lines += [row(k, v, ours.get(k, '')) for k, v in DEFAULTS.items()]
    lines += ['', 'model keys (default: the variant\'s value, else GPTConfig\'s):']
    lines += [row(k, f.default, model_comments.get(k, '')) for k, f in MODEL_KEYS.items()
              if k not in DEFAULTS and k != 'vocab_size']
    lines += ['', f'variants: {", ".join(VARIANTS)}', f'tasks: {", ".join(synthetic.tasks())}',
              f"no --task: the paper text's Dyck-1, {DEFAULT_RUN}"]
    if task_name in synthetic.tasks():  # each key's comment says which default is the authors' code's, the text's
        module = task_module(task_name)
        seed = '; its seed is --data_seed' if 'seed' in module.DEFAULTS else ''
        lines += ['', f'keys of task {task_name} (data/{task_name}/prepare.py{seed}):']
        lines += [row(k, v, comments(module.__file__).get(k, '')) for k, v in task_keys(module).items()]
    return '\n'.join(lines)


# ----------------------------------------------------------------------------- training

def model_label(cfg):
    """The variant and the model keys given on top of it: 'standard,frozen_mlp=True'."""
    return ','.join([cfg['variant']] + [f'{k}={cfg[k]}' for k in MODEL_KEYS if k in cfg and k not in DEFAULTS])


def run_dir_of(cfg):
    """The run's folder: out_dir/run_name, else named after the task, the variant and the keys not at the task's
    defaults, with a hash of the config (data/runs.py)."""
    base = resolve({'task': cfg['task']})
    changed = [f'{k}={v}' for k, v in cfg.items() if k in base and k not in NOT_NAMED + ('task', 'variant', 'data_dir')
               and v != base[k]]  # the model keys given are in model_label
    return runs.run_dir(cfg, ','.join([model_label(cfg), *changed]), NOT_NAMED)


def find_run(overrides, action):
    """The ckpt.pt of the run that `overrides` name (run_name, else its keys), to `action` it (resume, sample)."""
    named = resolve({k: v for k, v in overrides.items() if k in ('out_dir', 'run_name')})
    cfg = named if named['run_name'] else resolve(overrides)
    return runs.find_checkpoint(cfg, overrides, run_dir_of(cfg), RESUMABLE, action)


def get_lr(step, cfg):
    """Linear warm-up, then decay to min_lr at lr_decay_iters: cosine (nanoGPT) or linear (HF's
    get_linear_schedule_with_warmup, the authors' language-modeling and Yelp trainers, whose min_lr is 0)."""
    decay_iters = cfg['lr_decay_iters'] or cfg['max_iters']
    if step < cfg['warmup_iters']:
        return cfg['learning_rate'] * (step + 1) / (cfg['warmup_iters'] + 1)
    if step >= decay_iters:
        return cfg['min_lr']
    ratio = (step - cfg['warmup_iters']) / max(1, decay_iters - cfg['warmup_iters'])
    fraction = 1.0 - ratio if cfg['lr_schedule'] == 'linear' else 0.5 * (1.0 + math.cos(math.pi * ratio))
    return cfg['min_lr'] + fraction * (cfg['learning_rate'] - cfg['min_lr'])


def model_args_of(cfg, meta, T, gpt2=None):
    """A new run's GPTConfig: the variant's flags, then the config's model keys; T and vocabulary the task's, or with
    init_from GPT-2's shape (`gpt2`: its config.json and weights)."""
    args = {**VARIANTS[cfg['variant']], **{k: cfg[k] for k in MODEL_KEYS if k in cfg}}
    args['block_size'] = cfg['block_size'] or T
    args['vocab_size'] = args.get('vocab_size') or meta['vocab_size']
    if gpt2:  # the model keys typed: those not at train.py's defaults, and any GPTConfig field given
        given = {k: cfg[k] for k in MODEL_KEYS if k in cfg and (k not in DEFAULTS or cfg[k] != DEFAULTS[k])}
        args.update(runs.gpt2_model_args(gpt2[0], VARIANTS[cfg['variant']], given, args['block_size']))
    if cfg['classify']:
        # the authors' Yelp model as it ran (trainer_classifier.py; transformers 4.50-4.52: SDPA ignores is_causal):
        # a head output per class at the review's last token (loader.class_targets), softmax causal, MixiT both ways
        args['n_classes'] = len(meta['classes'])
        args.setdefault('causal', args.get('mixing') != 'mixit')
        args.setdefault('pad_token', meta.get('sep', -1))  # the end-of-text (padding) row zero and frozen
    if not args.get('causal', True) and args.get('mixing') == 'mixit' and args['block_size'] != T:
        raise ConfigError(f"bidirectional MixiT mixes all block_size positions: set block_size={T} (or 0), the "
                          f'length of the examples')
    if args['vocab_size'] < meta['vocab_size']:
        raise ConfigError(f"vocab_size={args['vocab_size']} is smaller than the task's {meta['vocab_size']}: "
                          f'leave it unset or make it larger (padding, e.g. to a multiple of 64)')
    return args


@torch.no_grad()
def evaluate(model, x, y, batch_size, ctx, rank=0, world=1, exact=True):
    """Over the whole split (each rank a contiguous shard, sums reduced): mean cross-entropy per scored token (a
    corpus's log perplexity), accuracy per scored token (the papers' metric), tokens read/s, and with `exact` the
    share of examples with every scored token right (a task's; a corpus's windows have no such answer)."""
    model.eval()
    t0 = time.time()
    sums = torch.zeros(5, dtype=torch.float64, device=x.device)
    lo, hi = len(x) * rank // world, len(x) * (rank + 1) // world
    for i in range(lo, hi, batch_size):
        xb, yb = x[i:min(i + batch_size, hi)], y[i:min(i + batch_size, hi)]
        with ctx:
            logits, _ = model(xb, yb)
        scored = yb != -1
        correct = (logits.argmax(-1) == yb) & scored
        loss_sum = F.cross_entropy(logits.float().flatten(0, 1), yb.flatten(), ignore_index=-1, reduction='sum')
        whole = (correct == scored).all(-1)  # every scored token of the example right
        sums += torch.stack([loss_sum.double(), correct.sum().double(), scored.sum().double(),
                             whole.sum().double(), torch.tensor(len(xb), dtype=torch.float64, device=x.device)])
    if world > 1:
        dist.all_reduce(sums)
    model.train()
    loss_sum, correct, scored, exact_sum, examples = sums.tolist()
    return dict(val_loss=loss_sum / scored, val_acc=correct / scored, **dict(val_exact=exact_sum / examples) if exact
                else {}, eval_tokens_per_s=examples * x.shape[1] / (time.time() - t0))


def train(config=None):
    """Trains one run; returns its final metrics. `config` holds the keys to override (see --help). Everything is
    checked before the run's folder is touched: the keys, the checkpoint, the data, the model."""
    overrides = dict(config or {})
    path = find_run(overrides, 'resume') if overrides.get('resume') else None  # its ckpt.pt
    ckpt = load_checkpoint(path) if path else None
    cfg = runs.resumed_config(ckpt, overrides, resolve, RESUMABLE) if ckpt else resolve(overrides)
    run_dir = path.parent if path else run_dir_of(cfg)

    ddp, rank, world, device, own_group = processes(cfg)
    master, device_type = rank == 0, device.split(':')[0]
    with together(ddp):  # rank 0 generates a synthetic task's missing files; the other processes wait for them
        if master:
            generate_missing(cfg)
    with together(ddp):  # what may fail on some processes only: their machine's data, device and memory
        dtype, ctx = compute_dtype(cfg, device_type)
        meta, train_data, (x_val, y_val), T = load_data(cfg, generate=False)
        runs.same_data(ckpt, meta)
        gpt2 = runs.gpt2_weights(cfg['init_from']) if cfg['init_from'] and not ckpt else None  # (config, weights)
        raw_model = fitting_model(ckpt['model_args'] if ckpt else model_args_of(cfg, meta, T, gpt2), cfg, T, device)
        loaded = runs.load_gpt2(raw_model, gpt2[1], cfg['init_from']) if gpt2 else ''  # what it set, what not
    batch = batches(cfg, train_data, T, device, rank, world, meta['vocab_size'])
    gas = cfg['gradient_accumulation_steps']  # micro-batches per step over all processes: local_steps each
    global_batch, local_steps = cfg['batch_size'] * gas, gas // world
    x_val, y_val = x_val.to(device), y_val.to(device)
    optimizer = raw_model.configure_optimizers(cfg['weight_decay'], cfg['learning_rate'],
                                               (cfg['beta1'], cfg['beta2']), device_type)
    scaler = torch.amp.GradScaler(device_type, enabled=dtype == 'float16')
    if ckpt is not None:
        runs.restore(ckpt, raw_model, optimizer, scaler)
    step = start = ckpt['step'] if ckpt else 0
    if dtype != 'float32':
        raw_model.fixed_to(getattr(torch, dtype))  # the fixed matrices in the compute dtype: no cast per step
    model = torch.compile(raw_model) if cfg['compile'] or cfg['compile'] is None and 'cuda' in device else raw_model
    if ddp:
        model = ddp_model(model, device)
    trained = [p for p in raw_model.parameters() if p.requires_grad]
    corpus = isinstance(train_data, np.memmap)  # a corpus's token stream; else fixed-length examples
    split = 'validation' if cfg['val_frac'] else cfg['eval_split'] or meta['eval_split']  # in every log line
    if master:
        data = 'a fresh training batch every step' if cfg['online'] else f'{len(train_data):,} training tokens' \
            if corpus else f'{len(train_data[0]):,} training examples'
        print(f"{cfg['task']} / {model_label(cfg)}: {raw_model.get_num_params():,} trained of "
              f"{raw_model.get_num_params(False):,} parameters, {data}, length {T}, {device} {dtype}, "
              f"{world} process(es), in {run_dir}")
        if loaded:
            print(loaded)

    with runs.Run(run_dir, cfg, meta, ckpt, NOT_NAMED, write=master, ddp=ddp) as run:
        progress = runs.Progress(cfg, step, master and cfg['progress'], raw_model, global_batch, T, PEAK_FLOPS)
        t_start, metrics, train_loss = time.time(), None, float('nan')
        stats = torch.zeros(2, device=device)  # the step's mean loss, non-finite losses: read at log steps alone
        while step < cfg['max_iters']:
            lr = get_lr(step, cfg)
            for group in optimizer.param_groups:
                group['lr'] = lr
            stats[0] = 0
            evaluated = (step + 1) % cfg['eval_interval'] == 0 or step + 1 == cfg['max_iters']
            logged = evaluated or (step + 1) % cfg['log_interval'] == 0  # the only host-device syncs
            for micro, (xb, yb) in enumerate(batch(step)):
                if cfg['dropout'] > 0:  # dropout masks as a function of (seed, step, micro-batch) too
                    torch.manual_seed(zlib.crc32(f"{cfg['seed']}:{step}:{rank * local_steps + micro}".encode()))
                if ddp:  # all-reduce the gradients once, on the last micro-batch
                    model.require_backward_grad_sync = micro == local_steps - 1
                with ctx:
                    logits, loss = model(xb, yb)
                    loss = loss / local_steps
                # the logits (B, T, vocab) are not kept through the backward pass: only their argmax, when logging
                predicted = logits.argmax(-1) if logged and micro == local_steps - 1 else None
                del logits
                scaler.scale(loss).backward()
                stats[0] += loss.detach()
                stats[1] += ~torch.isfinite(loss.detach())
            if cfg['grad_clip']:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(trained, cfg['grad_clip'])
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            step += 1

            if logged:
                if ddp:  # the mean over every process's micro-batches; all stop together on a non-finite loss
                    dist.all_reduce(stats)
                train_loss = stats[0].item() / world
                if stats[1].item():
                    raise run.non_finite(step)
                progress.log(step, train_loss, predicted, yb)
            if evaluated:
                ev = evaluate(model, x_val, y_val, cfg['eval_batch_size'], ctx, rank, world, not corpus)
                if not math.isfinite(ev['val_loss']):  # never overwrite good weights with bad
                    raise run.non_finite(step)
                metrics = dict(step=step, tokens=step * global_batch * T, train_loss=train_loss, **ev, eval_split=split,
                               lr=lr, elapsed_s=time.time() - t_start)
                run.record(metrics, raw_model, optimizer, scaler)
        progress.bar.close()
    if metrics is None:  # nothing left to train: report the checkpoint's weights
        metrics = dict(step=step, train_loss=train_loss,
                       **evaluate(model, x_val, y_val, cfg['eval_batch_size'], ctx, rank, world, not corpus))
    wall = time.time() - t_start
    metrics.update(task=cfg['task'], variant=cfg['variant'], eval_split=split, wall_s=wall,
                   tokens_per_s=global_batch * T * (step - start) / wall, trainable_params=raw_model.get_num_params(),
                   run_dir=str(run_dir))
    if master:
        print(runs.summary(f"{cfg['task']} / {model_label(cfg)}", metrics, corpus))
    if own_group:
        dist.destroy_process_group()
    return metrics


def sample_text(config=None):
    """Continues `prompt` num_samples times with the weights of a run's ckpt.pt; -> the texts, prompt included. The run
    is found from its keys, as --resume finds it: its run_name, or the keys it was trained with."""
    ckpt = load_checkpoint(find_run(dict(config or {}), 'sample'))
    return runs.sample(ckpt, resolve({**ckpt['config'], **(config or {})}))


def main(argv):
    """The command line: any mistake in it, or in a file it reads, ends in one line 'error: ...' and exit code 2."""
    master = int(os.environ.get('RANK', 0)) == 0  # under torchrun rank 0 reports what stops every process (together)
    try:
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
        if not master and not isinstance(e, ReportedElsewhere):  # before the processes met: rank 0 most likely meets it
            time.sleep(5)  # too and reports it, and torchrun ends this one then; else this one reports its own
        if master or not isinstance(e, ReportedElsewhere):
            print(f'error: {e}', file=sys.stderr)
        leave(2)
    leave(0)


if __name__ == '__main__':
    synthetic.end_on_signal()  # Ctrl-C or a kill: no temporary files; the last checkpoint stays
    main(sys.argv[1:])

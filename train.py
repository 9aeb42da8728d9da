"""
Trains any variant of model.py on any task, on a CPU, a GPU, or many GPUs:

    python train.py                                    # the embedded default, a few minutes on a CPU
    python train.py --task=retrieval --variant=frozen_qk --m_max=10
    torchrun --standalone --nproc_per_node=4 train.py --task=khop --variant=mixit
    python train.py out/addition-standard/config.json  # run again from a saved config
    python data/text/prepare.py --input=book.txt && python train.py --task=text --variant=frozen_qk
    python train.py --task=text --variant=frozen_qk --sample --prompt='Once upon'  # text from its ckpt.pt
    python train.py --help                             # every key with its default

and from Python, for experiments: `from train import train; metrics = train(dict(task=..., variant=...))`.
The keys are the config block below, every GPTConfig field of model.py (given ones override the
variant's) and the settings of the chosen task (data/<task>/prepare.py; its `seed` is `data_seed` here).

Training is a deterministic function of the config: the examples of step s are a function of
(seed, s), so N processes compute exactly what one process with N-fold gradient accumulation
computes, and a resumed run ends with the same weights as an uninterrupted one.
"""
import ast
import ctypes
import difflib
import json
import math
import os
import re
import sys
import time
import zlib
from contextlib import nullcontext
from dataclasses import asdict, fields
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm

from data import corpus, synthetic
from model import GPT, GPTConfig, VARIANTS

_before_config = set(globals())
# ----------------------------------------------------------------------------- config
# run
out_dir = 'out'  # runs are written to out_dir/<run_name>/: config.json, log.jsonl, ckpt.pt
run_name = ''  # name of the run's folder; '' = '<task>-<variant>[,<model key>=<value>...]'
resume = False  # continue out_dir/<run_name>/ from ckpt.pt; its config.json is the base, keys given now override it
seed = 0  # seeds the initial weights, the fixed random matrices and the order of the training examples
# task
task = 'dyck'  # a folder of data/ with a prepare.py; synthetic tasks are generated on first use, corpora prepared by it
data_seed = 0  # seed of a synthetic task's data generator (its `--seed` flag)
data_dir = ''  # where the task's files are; '' = data/<task>/ (a sub-folder when task settings differ)
eval_split = ''  # the split to evaluate on; '' = the task's held-out split (meta.json), e.g. val, test
online = False  # synthetic tasks: a fresh batch from the task's generator every step instead of the training split
# model
variant = 'standard'  # one of model.VARIANTS; a GPTConfig field given as a key overrides the variant's value
n_layer = 2  # blocks
n_head = 4  # attention heads per block
n_embd = 128  # width
block_size = 0  # longest sequence; 0 = the task's (its example length; 256 for a corpus)
dropout = 0.0  # dropout probability
bias = False  # biases on the attention and MLP linears
# optimization
max_iters = 600  # optimizer steps
batch_size = 64  # examples per micro-batch per process
gradient_accumulation_steps = 1  # micro-batches per optimizer step, over all processes together
learning_rate = 3e-3  # peak learning rate
min_lr = 3e-4  # learning rate at the end of the cosine decay
warmup_iters = 100  # linear warm-up steps
lr_decay_iters = 0  # step at which the cosine reaches min_lr; 0 = max_iters
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
prompt = ''  # text to continue; '' = start from the end-of-text token (a corpus) or from nothing
num_samples = 3  # independent continuations
max_new_tokens = 200  # tokens to generate per sample
temperature = 0.8  # < 1 sharpens the next-token distribution, > 1 flattens it
top_k = 200  # sample among the k most likely tokens; 0 = all
# -----------------------------------------------------------------------------
DEFAULTS = {k: v for k, v in globals().items() if k not in _before_config and not k.startswith('_')}
MODEL_KEYS = {f.name: f for f in fields(GPTConfig)}
PEAK_FLOPS = {'H100': 989e12, 'H200': 989e12, 'A100': 312e12}  # dense bf16, for the MFU figure


class ConfigError(ValueError):
    """Bad input: an unknown key, a wrong type, an impossible combination, missing data."""


# ----------------------------------------------------------------------------- config handling

def unknown(what, name, choices):
    """The error for a name that is not one of `choices`, naming the closest one."""
    close = difflib.get_close_matches(name, choices, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ''
    return ConfigError(f"unknown {what} '{name}'{hint} (python train.py --help lists them all)")


def task_module(name):
    names = synthetic.tasks()
    if name not in names:
        raise unknown('task', name, names)
    return synthetic.load_task(name)


def task_keys(module):
    """The task's settings as train.py keys: its `seed` is called data_seed here."""
    return {k: v for k, v in module.DEFAULTS.items() if k != 'seed'}


def check_type(key, value, default):
    """value, if it has the type of the default (an int is a float too); a None default means an
    optional float (the model's attn_scale, mixit_std) or, for compile, an optional bool."""
    if value is None and default is None:
        return value
    expected = type(default) if default is not None else (bool if key == 'compile' else float)
    if expected is float and type(value) is int:
        return float(value)
    if type(value) is not expected:
        raise ConfigError(f'{key}={value!r} should be of type {expected.__name__} (default: {default!r})')
    return value


def resolve(overrides):
    """The full config of a run: DEFAULTS, then the task's settings, then overrides. Every key is
    checked; an unknown one fails at once and names the closest known key."""
    module = task_module(overrides.get('task', DEFAULTS['task']))
    tkeys = task_keys(module)
    known = {**{k: f.default for k, f in MODEL_KEYS.items()}, **DEFAULTS, **tkeys}
    checked = {}
    for key, value in overrides.items():
        if key not in known:
            raise unknown('key', key, known)
        checked[key] = check_type(key, value, known[key])
    if checked.get('variant', DEFAULTS['variant']) not in VARIANTS:
        raise unknown('variant', checked['variant'], VARIANTS)
    return {**DEFAULTS, **tkeys, **checked}


def parse_args(argv):
    """['config.json', '--key=value', '--flag'] -> overrides. Values are Python literals, else strings."""
    overrides = {}
    for arg in argv:
        if not arg.startswith('--'):
            if not arg.endswith('.json') or not os.path.exists(arg):
                raise ConfigError(f"'{arg}' is neither --key=value nor an existing .json config file")
            overrides.update(json.loads(Path(arg).read_text()))
            continue
        key, eq, value = arg[2:].partition('=')
        if not eq:
            overrides[key] = True  # a bare --flag sets a boolean key
            continue
        try:
            overrides[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            overrides[key] = value
    return overrides


def help_text(task_name):
    """Every key with its default and the comment beside it in this file and model.py."""
    def comments(path):
        pattern = re.compile(r'^\s*(\w+)\s*(?::[^=]+)?=\s*.+?\s+#\s*(.*)$')
        return {m[1]: m[2] for line in Path(path).read_text().splitlines() if (m := pattern.match(line))}
    here = Path(__file__).resolve().parent
    ours, model_comments = comments(__file__), comments(here / 'model.py')
    lines = ['usage: python train.py [config.json] [--key=value ...]   (or torchrun ... train.py ...)', '']
    row = lambda k, v, comment='': f'  --{k}={v!r}'.ljust(38) + comment
    lines += [row(k, v, ours.get(k, '')) for k, v in DEFAULTS.items()]
    lines += ['', 'model keys (default: the variant\'s value, else GPTConfig\'s):']
    lines += [row(k, f.default, model_comments.get(k, '')) for k, f in MODEL_KEYS.items()
              if k not in DEFAULTS and k != 'vocab_size']
    lines += ['', f'variants: {", ".join(VARIANTS)}', f'tasks: {", ".join(synthetic.tasks())}']
    try:
        tkeys = task_keys(task_module(task_name))
        lines += ['', f'keys of task {task_name} (data/{task_name}/prepare.py; the paper\'s settings):']
        lines += [row(k, v) for k, v in tkeys.items()]
    except ConfigError:
        pass
    return '\n'.join(lines)


# ----------------------------------------------------------------------------- data

def task_data(cfg):
    """-> (module, settings, directory) of the config's task data."""
    module = task_module(cfg['task'])
    args = {k: cfg[k] for k in task_keys(module)}
    if 'seed' in module.DEFAULTS:
        args['seed'] = cfg['data_seed']
    directory = Path(cfg['data_dir']) if cfg['data_dir'] else synthetic.task_dir(cfg['task'], args, module.DEFAULTS)
    return module, args, directory


def load_data(cfg, master, ddp):
    """-> (meta, train, held_out, T): train is the token stream (train.bin, memory-mapped) or the
    examples (x, y); held_out the examples (x, y) of the evaluation split; T the sequence length.
    A synthetic task's files are generated when missing; a corpus says how to prepare it."""
    module, args, directory = task_data(cfg)
    task = cfg['task']
    if not (directory / 'meta.json').exists():
        if not hasattr(module, 'generate'):
            flags = ''.join(f' --{k}={v}' for k, v in args.items() if v != module.DEFAULTS[k])
            raise ConfigError(f'{directory} holds no prepared {task} data: run python data/{task}/prepare.py{flags} '
                              f'(add --input=PATH to use local files; its --help says which)')
        if master:
            print(f'generating {task} data in {directory}')
            try:
                synthetic.prepare(task, args, directory)
            except ValueError as e:  # settings the task cannot satisfy
                raise ConfigError(str(e)) from None
        if ddp:
            dist.barrier()
    meta = json.loads((directory / 'meta.json').read_text())
    if meta['args'] != args:
        raise ConfigError(f'{directory} holds {task} data made with {meta["args"]}, not {args}: '
                          f'delete the folder or set data_dir to another one')
    if hasattr(module, 'generate') and meta.get('version') != synthetic.VERSION:
        raise ConfigError(f'{directory} holds {task} data made by an older data/synthetic.py (version '
                          f'{meta.get("version", 1)}, now {synthetic.VERSION}): delete the folder; it is regenerated')
    split = cfg['eval_split'] or meta['eval_split']
    ext = 'bin' if meta.get('format') == 'tokens' else 'npz'
    for s in ('train', split):
        if not (directory / f'{s}.{ext}').exists():
            raise ConfigError(f'{directory / f"{s}.{ext}"} is missing (the splits are train and '
                              f'{meta["eval_split"]}): delete {directory / "meta.json"} and run '
                              f'python data/{task}/prepare.py again')
    if ext == 'npz':
        train_x, train_y = (torch.from_numpy(a) for a in synthetic.load_split(directory, 'train'))
        held_out = tuple(torch.from_numpy(a) for a in synthetic.load_split(directory, split))
        return meta, (train_x, train_y), held_out, train_x.shape[1]
    T = cfg['block_size'] or meta['block_size']
    streams = {s: np.memmap(directory / f'{s}.bin', dtype=np.uint16, mode='r') for s in ('train', split)}
    for s, tokens in streams.items():
        if len(tokens) != meta['tokens'][s]:  # a prepare that stopped half-way, or files mixed up
            raise ConfigError(f'{directory / f"{s}.bin"} has {len(tokens):,} tokens, meta.json says '
                              f'{meta["tokens"][s]:,}: run python data/{task}/prepare.py again')
    if len(streams['train']) <= T:
        raise ConfigError(f'train.bin has {len(streams["train"]):,} tokens, too few for windows of '
                          f'block_size={T}: use more text or a smaller block_size')
    return meta, streams['train'], eval_windows(streams[split], T), T


def eval_windows(tokens, T):
    """A token stream as contiguous, non-overlapping windows (x, y) of T predictions each, the last
    one padded with y = -1: every token but the first is predicted exactly once, so the mean loss
    over the windows is the split's log perplexity, deterministically."""
    n = len(tokens) - 1
    rows = -(-n // T)
    x, y = np.zeros(rows * T, dtype=np.int64), np.full(rows * T, -1, dtype=np.int64)
    x[:n], y[:n] = tokens[:-1], tokens[1:]
    return torch.from_numpy(x).view(rows, T), torch.from_numpy(y).view(rows, T)


@lru_cache(maxsize=2)
def epoch_order(n, seed, epoch):
    return torch.randperm(n, generator=torch.Generator().manual_seed(zlib.crc32(f'{seed}:{epoch}'.encode())))


def batch_indices(n, step, global_batch, seed):
    """Example indices of optimizer step `step`: consecutive slices of a fresh permutation per epoch, so a
    function of (seed, step) only, and every example is seen once per epoch."""
    start, parts = step * global_batch, []
    while sum(len(p) for p in parts) < global_batch:
        pos = start + sum(len(p) for p in parts)
        epoch, offset = divmod(pos, n)
        parts.append(epoch_order(n, seed, epoch)[offset:offset + global_batch - sum(len(p) for p in parts)])
    return torch.cat(parts)


def online_batches(cfg):
    """-> batches(step, n): n fresh examples from the task's generator, drawn from a numpy generator seeded by
    (data_seed, seed, step), so a function of the step as every batch here (online training, as the universal
    transformer experiments). Held-out inputs are not excluded: evaluation still uses the held-out split."""
    module, args, _ = task_data(cfg)
    gen_args = {k: v for k, v in args.items() if k not in ('n_train', 'n_test', 'seed')}

    def batches(step, n):
        x, y = module.generate(np.random.default_rng([args['seed'], cfg['seed'], step]), n, **gen_args)
        return torch.from_numpy(np.asarray(x, np.int64)), torch.from_numpy(np.asarray(y, np.int64))
    try:
        batches(0, 1)
    except (AttributeError, NotImplementedError) as e:
        raise ConfigError(f"online=True needs a synthetic task with a generator; {cfg['task']}: {e}") from None
    return batches


def get_batch(train, step, global_batch, T, seed):
    """The (x, y) of optimizer step `step`, (global_batch, T) each, a function of (seed, step) only:
    examples by batch_indices, or windows of a token stream at offsets drawn from a generator seeded
    by (seed, step) (nanoGPT's get_batch, made reproducible), or fresh examples (online)."""
    if callable(train):
        return train(step, global_batch)
    if isinstance(train, np.memmap):
        g = torch.Generator().manual_seed(zlib.crc32(f'{seed}:{step}'.encode()))
        starts = torch.randint(len(train) - T, (global_batch, 1), generator=g).numpy()
        window = torch.from_numpy(train[starts + np.arange(T + 1)].astype(np.int64))  # (global_batch, T + 1)
        return window[:, :-1], window[:, 1:]
    x, y = train
    idx = to_device(batch_indices(len(x), step, global_batch, seed), x.device)
    return x[idx], y[idx]


# ----------------------------------------------------------------------------- evaluation

@torch.no_grad()
def evaluate(model, x, y, batch_size, ctx, rank=0, world=1):
    """Loss and accuracy over the whole split (each rank takes a contiguous shard, sums are reduced):
    mean cross-entropy per scored token (for a corpus, the log perplexity), accuracy per scored token
    (what the papers report), per example (every scored token right), and tokens read per second."""
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
        exact = (correct == scored).all(-1)  # every scored token of the example right
        sums += torch.stack([loss_sum.double(), correct.sum().double(), scored.sum().double(),
                             exact.sum().double(), torch.tensor(len(xb), dtype=torch.float64, device=x.device)])
    if world > 1:
        dist.all_reduce(sums)
    model.train()
    loss_sum, correct, scored, exact, examples = sums.tolist()
    return dict(val_loss=loss_sum / scored, val_acc=correct / scored, val_exact=exact / examples,
                eval_tokens_per_s=examples * x.shape[1] / (time.time() - t0))


# ----------------------------------------------------------------------------- training

def get_lr(step, cfg):
    """Linear warm-up, then cosine decay to min_lr at lr_decay_iters (nanoGPT)."""
    decay_iters = cfg['lr_decay_iters'] or cfg['max_iters']
    if step < cfg['warmup_iters']:
        return cfg['learning_rate'] * (step + 1) / (cfg['warmup_iters'] + 1)
    if step >= decay_iters:
        return cfg['min_lr']
    ratio = (step - cfg['warmup_iters']) / max(1, decay_iters - cfg['warmup_iters'])
    return cfg['min_lr'] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (cfg['learning_rate'] - cfg['min_lr'])


def model_label(cfg):
    """The variant and the model keys given on top of it: 'standard,freeze_mlp=True'."""
    return ','.join([cfg['variant']] + [f'{k}={cfg[k]}' for k in MODEL_KEYS if k in cfg and k not in DEFAULTS])


def non_finite(step, run_dir):
    return FloatingPointError(f'the loss became non-finite by step {step}; {run_dir / "ckpt.pt"} keeps the last good '
                              f'weights. Lower learning_rate, keep grad_clip on, or use dtype=float32')


def atomic_save(obj, path):
    tmp = Path(str(path) + '.tmp')
    torch.save(obj, tmp)
    os.replace(tmp, path)


def keep_freed_memory():
    """CPU training: make glibc's malloc keep freed memory for reuse instead of handing every large block back
    to the kernel. Its default serves large blocks (the logits, their gradient) with fresh mmap pages, which
    the kernel zero-fills again at every step: at the quick configuration of experiments/throughput.py, 66,000
    page faults per step and a standard step of 0.65-0.74 s, against none and 0.58-0.65 s with this setting
    (three alternating runs on the 2-core CPU). The caching allocators of tcmalloc and jemalloc, which PyTorch's
    CPU performance guide recommends, do the same. Linux/glibc only; elsewhere nothing changes."""
    try:
        libc = ctypes.CDLL('libc.so.6')
        libc.mallopt(-4, 0)  # M_MMAP_MAX = 0: serve large blocks from the heap, not from fresh mmap pages
        libc.mallopt(-1, ctypes.c_int(2 ** 31 - 1))  # M_TRIM_THRESHOLD: keep the freed top of the heap
    except (OSError, AttributeError):
        pass


def to_device(t, device):
    """A host tensor on the device without waiting for it: on CUDA, pinned memory and a non-blocking copy, which
    the GPU runs after the work already queued (a plain copy would wait for the previous step to finish)."""
    if t.device.type == 'cpu' and str(device).startswith('cuda'):
        return t.pin_memory().to(device, non_blocking=True)
    return t.to(device)


def pick_device(name):
    if name != 'auto':
        return name
    return 'cuda' if torch.cuda.is_available() else 'mps' if torch.backends.mps.is_available() else 'cpu'


def run_dir_of(cfg):
    return Path(cfg['out_dir']) / (cfg['run_name'] or f"{cfg['task']}-{model_label(cfg)}")


def train(config=None):
    """Trains one run; returns its final metrics. `config` holds the keys to override (see --help)."""
    overrides = dict(config or {})
    cfg = resolve(overrides)
    run_dir = run_dir_of(cfg)
    ckpt = None
    if cfg['resume']:
        if not (run_dir / 'ckpt.pt').exists():
            raise ConfigError(f'cannot resume: {run_dir / "ckpt.pt"} does not exist (check out_dir and run_name)')
        saved = json.loads((run_dir / 'config.json').read_text())
        cfg = resolve({**saved, **overrides})
        ckpt = torch.load(run_dir / 'ckpt.pt', map_location='cpu', weights_only=False)

    # processes: torchrun sets RANK/WORLD_SIZE; each rank runs a slice of the micro-batches
    ddp = int(os.environ.get('RANK', -1)) != -1
    rank, world = (int(os.environ['RANK']), int(os.environ['WORLD_SIZE'])) if ddp else (0, 1)
    master, own_group = rank == 0, False
    device = pick_device(cfg['device'])
    if ddp:
        if device.startswith('cuda'):
            device = f"cuda:{os.environ['LOCAL_RANK']}"
            torch.cuda.set_device(device)
        own_group = not dist.is_initialized()  # a caller's process group is the caller's to end
        if own_group:
            dist.init_process_group(backend='nccl' if device.startswith('cuda') else 'gloo')
    device_type = device.split(':')[0]
    if device_type == 'cpu':
        keep_freed_memory()
    dtype = cfg['dtype']
    if dtype == 'auto':
        dtype = ('bfloat16' if torch.cuda.is_bf16_supported() else 'float16') if device_type == 'cuda' else 'float32'
    if dtype not in ('float32', 'bfloat16', 'float16'):
        raise ConfigError(f"dtype={dtype!r} is not one of 'auto', 'float32', 'bfloat16', 'float16'")
    ctx = nullcontext() if dtype == 'float32' else torch.autocast(device_type, dtype=getattr(torch, dtype))
    gas = cfg['gradient_accumulation_steps']
    if gas % world:
        raise ConfigError(f'gradient_accumulation_steps={gas} must be a multiple of the {world} processes')
    local_steps = gas // world

    meta, train_data, (x_val, y_val), T = load_data(cfg, master, ddp)
    tokens = isinstance(train_data, np.memmap)  # a corpus's token stream; else fixed-length examples
    if cfg['online']:
        train_data = online_batches(cfg)
    elif not tokens:  # the examples live on the device; a stream's windows are cut per step
        train_data = tuple(t.to(device) for t in train_data)
    x_val, y_val = x_val.to(device), y_val.to(device)
    if cfg['eval_examples']:
        x_val, y_val = x_val[:cfg['eval_examples']], y_val[:cfg['eval_examples']]
    split = cfg['eval_split'] or meta['eval_split']
    if cfg['block_size'] and cfg['block_size'] < T:
        raise ConfigError(f"block_size={cfg['block_size']} is shorter than the task's examples ({T} tokens): "
                          f'set block_size >= {T} or 0 for the example length')

    if ckpt is not None:
        model_args = ckpt['model_args']
    else:  # the variant's flags, then every model key of the config (defaults and the ones given)
        model_args = {**VARIANTS[cfg['variant']], **{k: cfg[k] for k in MODEL_KEYS if k in cfg}}
        model_args['block_size'] = cfg['block_size'] or T
        model_args['vocab_size'] = model_args.get('vocab_size') or meta['vocab_size']
        if model_args['vocab_size'] < meta['vocab_size']:
            raise ConfigError(f"vocab_size={model_args['vocab_size']} is smaller than the task's {meta['vocab_size']}: "
                              f'leave it unset or make it larger (padding, e.g. to a multiple of 64)')
    try:
        raw_model = GPT(GPTConfig(**model_args)).to(device)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    optimizer = raw_model.configure_optimizers(cfg['weight_decay'], cfg['learning_rate'],
                                               (cfg['beta1'], cfg['beta2']), device_type)
    scaler = torch.amp.GradScaler(device_type, enabled=dtype == 'float16')
    step = 0
    if ckpt is not None:
        raw_model.load_state_dict(ckpt['model'])
        optimizer.load_state_dict(ckpt['optimizer'])
        scaler.load_state_dict(ckpt['scaler'])
        step = ckpt['step']
    if dtype != 'float32':
        raw_model.fixed_to(getattr(torch, dtype))  # the fixed matrices in the compute dtype: no cast per step
    model = raw_model
    if cfg['compile'] if cfg['compile'] is not None else device_type == 'cuda':
        model = torch.compile(model)
    if ddp:
        # the buffers are the fixed matrices, the same on every rank (seeded): no broadcast before each forward
        model = DDP(model, device_ids=[int(device.split(':')[1])] if device_type == 'cuda' else None,
                    broadcast_buffers=False)
    trained = [p for p in raw_model.parameters() if p.requires_grad]

    if master:
        run_dir.mkdir(parents=True, exist_ok=True)
        recipe = {**cfg, 'resume': False}  # config.json reruns the run; resuming is an action, not part of it
        (run_dir / 'config.json').write_text(json.dumps(recipe, indent=2) + '\n')
        log_path = run_dir / 'log.jsonl'
        if ckpt is not None and log_path.exists():  # drop evaluations made after the checkpoint we resume from
            kept = [l for l in log_path.read_text().splitlines() if json.loads(l)['step'] <= step]
            log_path.write_text(''.join(l + '\n' for l in kept))
        elif ckpt is None:
            log_path.write_text('')
        data = 'a fresh training batch every step' if cfg['online'] else f'{len(train_data):,} training tokens' \
            if tokens else f'{len(train_data[0]):,} training examples'
        print(f"{cfg['task']} / {model_label(cfg)}: {raw_model.get_num_params():,} trained of "
              f"{raw_model.get_num_params(False):,} parameters, {data}, length {T}, {device} {dtype}, "
              f"{world} process(es)")

    global_batch = cfg['batch_size'] * gas
    tokens_per_step = global_batch * T
    gpu = torch.cuda.get_device_name() if device_type == 'cuda' else ''
    peak = next((v for k, v in PEAK_FLOPS.items() if k in gpu), None)
    bar = tqdm(total=cfg['max_iters'], initial=step, disable=not (master and cfg['progress']), dynamic_ncols=True)
    t_start = t_log = time.time()
    step_log, metrics, train_loss = step, None, float('nan')
    nonfinite = torch.zeros((), dtype=torch.bool, device=device)  # read at log and eval steps: no sync per step
    while step < cfg['max_iters']:
        logged = (step + 1) % cfg['log_interval'] == 0 or step + 1 == cfg['max_iters']
        lr = get_lr(step, cfg)
        for group in optimizer.param_groups:
            group['lr'] = lr
        # made on the host while the GPU still runs the last step; this rank's rows copied without waiting for it
        mine = slice(rank * local_steps * cfg['batch_size'], (rank + 1) * local_steps * cfg['batch_size'])
        x, y = (to_device(t[mine], device) for t in get_batch(train_data, step, global_batch, T, cfg['seed']))
        for micro in range(local_steps):
            xb, yb = (t[micro * cfg['batch_size']:(micro + 1) * cfg['batch_size']] for t in (x, y))
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
            nonfinite |= ~torch.isfinite(loss.detach())
        if cfg['grad_clip']:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(trained, cfg['grad_clip'])
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        step += 1

        last = step == cfg['max_iters']
        if logged:
            train_loss = loss.item() * local_steps
            if nonfinite.item():
                raise non_finite(step, run_dir)
            scored = yb != -1
            acc = ((predicted == yb) & scored).sum().item() / max(1, scored.sum().item())
            dt = time.time() - t_log
            postfix = dict(loss=f'{train_loss:.4f}', acc=f'{acc:.3f}',
                           tok_s=f'{tokens_per_step * (step - step_log) / dt:,.0f}')
            if peak:
                postfix['mfu'] = f"{raw_model.estimate_mfu(global_batch * (step - step_log), dt, peak):.1%}"
            t_log, step_log = time.time(), step
            bar.set_postfix(postfix, refresh=False)
            bar.update(step - bar.n)

        if step % cfg['eval_interval'] == 0 or last:
            ev = evaluate(model, x_val, y_val, cfg['eval_batch_size'], ctx, rank, world)
            if not math.isfinite(ev['val_loss']) or nonfinite.item():  # never overwrite good weights with bad ones
                raise non_finite(step, run_dir)
            metrics = dict(step=step, train_loss=train_loss, **ev, lr=lr, elapsed_s=time.time() - t_start)
            if master:
                with open(run_dir / 'log.jsonl', 'a') as f:
                    f.write(json.dumps(metrics) + '\n')
                atomic_save(dict(model=raw_model.state_dict(), optimizer=optimizer.state_dict(),
                                 scaler=scaler.state_dict(), model_args=asdict(raw_model.config),
                                 step=step, config=cfg, meta=meta), run_dir / 'ckpt.pt')
    bar.close()
    if metrics is None:  # nothing left to train: report the checkpoint's weights
        metrics = dict(step=step, train_loss=train_loss,
                       **evaluate(model, x_val, y_val, cfg['eval_batch_size'], ctx, rank, world))
    wall = time.time() - t_start
    metrics.update(task=cfg['task'], variant=cfg['variant'], eval_split=split, wall_s=wall,
                   tokens_per_s=tokens_per_step * (step - (ckpt['step'] if ckpt else 0)) / wall,
                   trainable_params=raw_model.get_num_params(), run_dir=str(run_dir))
    if master and tokens:
        print(f"{cfg['task']} / {model_label(cfg)}: {split} log perplexity {metrics['val_loss']:.4f} "
              f"(perplexity {math.exp(metrics['val_loss']):.2f}, next-token accuracy {metrics['val_acc']:.2%}) "
              f"after {step} steps ({wall:.0f} s)")
    elif master:
        where = {'val': 'held-out', 'train': 'training-set'}.get(split, f'{split}-set')
        print(f"{cfg['task']} / {model_label(cfg)}: {where} accuracy {metrics['val_acc']:.2%} per scored token, "
              f"{metrics['val_exact']:.2%} exact match, loss {metrics['val_loss']:.4f} after {step} steps "
              f"({wall:.0f} s)")
    if own_group:
        dist.destroy_process_group()
    return metrics


@torch.no_grad()
def sample_text(config=None):
    """Continues `prompt` num_samples times with the weights of a run's ckpt.pt; -> the texts, prompt
    included. The run is found from its keys, as train() names it: pass the keys it was trained with."""
    cfg = resolve(dict(config or {}))
    path = run_dir_of(cfg) / 'ckpt.pt'
    if not path.exists():
        raise ConfigError(f'{path} does not exist: train the run first, or give the keys it was trained with')
    ckpt = torch.load(path, map_location='cpu', weights_only=False)
    if 'meta' not in ckpt:
        raise ConfigError(f'{path} was written by an older train.py that did not save the vocabulary: train it again')
    meta, device = ckpt['meta'], pick_device(cfg['device'])
    model = GPT(GPTConfig(**ckpt['model_args']))
    model.load_state_dict(ckpt['model'])
    model.to(device).eval()
    if 'encoding' in meta:  # a corpus: tiktoken, the prompt's tokens or else the end-of-text token
        enc = corpus.get_encoding(meta['encoding'])
        ids, decode = enc.encode_ordinary(cfg['prompt']) or [enc.eot_token], enc.decode
    else:  # a synthetic task: its vocabulary, one token per character (or per sep-separated word)
        stoi = {s: i for i, s in enumerate(meta['itos'])}
        words = cfg['prompt'].split(meta['sep']) if meta['sep'] and cfg['prompt'] else list(cfg['prompt'])
        if not words or any(w not in stoi for w in words):
            raise ConfigError(f"prompt={cfg['prompt']!r} must be a non-empty sequence of the task's tokens "
                              f"{meta['itos']}" + (f" separated by {meta['sep']!r}" if meta['sep'] else ''))
        ids, decode = [stoi[w] for w in words], lambda row: synthetic.decode(meta, row)
    if len(ids) > model.config.block_size:
        raise ConfigError(f'the prompt has {len(ids)} tokens; the model reads at most block_size='
                          f'{model.config.block_size}: shorten it')
    torch.manual_seed(cfg['seed'])
    idx = torch.tensor([ids] * cfg['num_samples'], device=device)
    out = model.generate(idx, cfg['max_new_tokens'], cfg['temperature'], cfg['top_k'] or None)
    return [decode([t for t in row if t < meta['vocab_size']]) for row in out.tolist()]


if __name__ == '__main__':
    argv = sys.argv[1:]
    try:
        if '--help' in argv or '-h' in argv:
            print(help_text(parse_args([a for a in argv if a not in ('--help', '-h')]).get('task', DEFAULTS['task'])))
            sys.exit(0)
        overrides = parse_args(argv)
        if overrides.get('sample'):
            print('\n---------------\n'.join(sample_text(overrides)))
        else:
            train(overrides)
    except (ConfigError, FloatingPointError) as e:
        sys.exit(f'error: {e}')

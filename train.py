"""
Trains any variant of model.py on any task, on a CPU, a GPU, or many GPUs:

    python train.py                                    # the embedded default, a few minutes on a CPU
    python train.py --task=retrieval --variant=frozen_qk --m_max=10
    torchrun --standalone --nproc_per_node=4 train.py --task=khop --variant=mixit
    python train.py out/addition-standard/config.json  # run again from a saved config
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
import json
import math
import os
import re
import sys
import time
import zlib
from contextlib import nullcontext
from dataclasses import asdict, fields
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm

from data import synthetic
from data.loader import (ConfigError, batches, keep_freed_memory, load_data, pick_device, prompt_codec, task_keys,
                         task_module, unknown)
from model import GPT, GPTConfig, PEAK_FLOPS, VARIANTS

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


# ----------------------------------------------------------------------------- config handling

def check_type(key, value, default):
    """value, if it has the type of the default (an int is a float too); a None default means an
    optional float (the model's attn_scale, mixit_std) or, for compile, an optional bool."""
    expected = type(default) if default is not None else (bool if key == 'compile' else float)
    if value is None and default is None or type(value) is expected:
        return value
    if expected is float and type(value) is int:
        return float(value)
    raise ConfigError(f'{key}={value!r} should be of type {expected.__name__} (default: {default!r})')


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
        try:
            overrides[key] = ast.literal_eval(value) if eq else True  # a bare --flag sets a boolean key
        except (ValueError, SyntaxError):
            overrides[key] = value
    return overrides


def help_text(task_name):
    """Every key with its default and the comment beside it in this file and model.py."""
    def comments(path):
        pattern = re.compile(r'^\s*(\w+)\s*(?::[^=]+)?=\s*.+?\s+#\s*(.*)$')
        return {m[1]: m[2] for line in Path(path).read_text().splitlines() if (m := pattern.match(line))}
    ours, model_comments = comments(__file__), comments(Path(__file__).resolve().parent / 'model.py')
    lines = ['usage: python train.py [config.json] [--key=value ...]   (or torchrun ... train.py ...)', '']
    row = lambda k, v, comment='': f'  --{k}={v!r}'.ljust(38) + comment
    lines += [row(k, v, ours.get(k, '')) for k, v in DEFAULTS.items()]
    lines += ['', 'model keys (default: the variant\'s value, else GPTConfig\'s):']
    lines += [row(k, f.default, model_comments.get(k, '')) for k, f in MODEL_KEYS.items()
              if k not in DEFAULTS and k != 'vocab_size']
    lines += ['', f'variants: {", ".join(VARIANTS)}', f'tasks: {", ".join(synthetic.tasks())}']
    if task_name in synthetic.tasks():
        lines += ['', f'keys of task {task_name} (data/{task_name}/prepare.py; the paper\'s settings):']
        lines += [row(k, v) for k, v in task_keys(task_module(task_name)).items()]
    return '\n'.join(lines)


# ----------------------------------------------------------------------------- training

def model_label(cfg):
    """The variant and the model keys given on top of it: 'standard,frozen_mlp=True'."""
    return ','.join([cfg['variant']] + [f'{k}={cfg[k]}' for k in MODEL_KEYS if k in cfg and k not in DEFAULTS])


def run_dir_of(cfg):
    return Path(cfg['out_dir']) / (cfg['run_name'] or f"{cfg['task']}-{model_label(cfg)}")


def processes(cfg):
    """-> (ddp, rank, world, device, own_group): torchrun sets RANK/WORLD_SIZE; each rank runs a slice of the
    micro-batches (gradient_accumulation_steps counts all processes') on its own GPU or its share of the CPU."""
    ddp = int(os.environ.get('RANK', -1)) != -1
    rank, world = (int(os.environ['RANK']), int(os.environ['WORLD_SIZE'])) if ddp else (0, 1)
    device, own_group = pick_device(cfg['device']), False
    if ddp:
        if device.startswith('cuda'):
            device = f"cuda:{os.environ['LOCAL_RANK']}"
            torch.cuda.set_device(device)
        own_group = not dist.is_initialized()  # a caller's process group is the caller's to end
        if own_group:
            dist.init_process_group(backend='nccl' if device.startswith('cuda') else 'gloo')
    if cfg['gradient_accumulation_steps'] % world:
        raise ConfigError(f"gradient_accumulation_steps={cfg['gradient_accumulation_steps']} must be a multiple of "
                          f'the {world} processes')
    if device.startswith('cpu'):
        keep_freed_memory()
    return ddp, rank, world, device, own_group


def compute_dtype(cfg, device_type):
    """-> (dtype name, autocast context); 'auto': bfloat16 where the GPU has it, else float16; float32 off CUDA."""
    dtype = cfg['dtype']
    if dtype == 'auto':
        dtype = ('bfloat16' if torch.cuda.is_bf16_supported() else 'float16') if device_type == 'cuda' else 'float32'
    if dtype not in ('float32', 'bfloat16', 'float16'):
        raise ConfigError(f"dtype={dtype!r} is not one of 'auto', 'float32', 'bfloat16', 'float16'")
    return dtype, nullcontext() if dtype == 'float32' else torch.autocast(device_type, dtype=getattr(torch, dtype))


def get_lr(step, cfg):
    """Linear warm-up, then cosine decay to min_lr at lr_decay_iters (nanoGPT)."""
    decay_iters = cfg['lr_decay_iters'] or cfg['max_iters']
    if step < cfg['warmup_iters']:
        return cfg['learning_rate'] * (step + 1) / (cfg['warmup_iters'] + 1)
    if step >= decay_iters:
        return cfg['min_lr']
    ratio = (step - cfg['warmup_iters']) / max(1, decay_iters - cfg['warmup_iters'])
    return cfg['min_lr'] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (cfg['learning_rate'] - cfg['min_lr'])


def model_args_of(cfg, meta, T):
    """A new run's GPTConfig: the variant's flags, then the config's model keys; T and vocabulary the task's."""
    args = {**VARIANTS[cfg['variant']], **{k: cfg[k] for k in MODEL_KEYS if k in cfg}}
    args['block_size'] = cfg['block_size'] or T
    args['vocab_size'] = args.get('vocab_size') or meta['vocab_size']
    if args['vocab_size'] < meta['vocab_size']:
        raise ConfigError(f"vocab_size={args['vocab_size']} is smaller than the task's {meta['vocab_size']}: "
                          f'leave it unset or make it larger (padding, e.g. to a multiple of 64)')
    return args


@torch.no_grad()
def evaluate(model, x, y, batch_size, ctx, rank=0, world=1):
    """Over the whole split (each rank a contiguous shard, sums reduced): mean cross-entropy per scored token (a
    corpus's log perplexity), accuracy per scored token (the papers' metric) and per example, tokens read/s."""
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


class Progress:
    """The progress bar: training loss, accuracy per scored token, tokens/s and, on a GPU of PEAK_FLOPS, the
    model FLOPs utilization, each over the steps since the last update (the only host-device sync)."""

    def __init__(self, cfg, step, show, model, examples_per_step, T):
        self.bar = tqdm(total=cfg['max_iters'], initial=step, disable=not show, dynamic_ncols=True)
        self.model, self.examples, self.T, self.step, self.t = model, examples_per_step, T, step, time.time()
        gpu = torch.cuda.get_device_name() if next(model.parameters()).is_cuda else ''
        self.peak = next((v for k, v in PEAK_FLOPS.items() if k in gpu), None)

    def log(self, step, loss, predicted, y):
        scored = y != -1
        acc = ((predicted == y) & scored).sum().item() / max(1, scored.sum().item())
        dt, examples = time.time() - self.t, self.examples * (step - self.step)
        postfix = dict(loss=f'{loss:.4f}', acc=f'{acc:.3f}', tok_s=f'{examples * self.T / dt:,.0f}')
        if self.peak:
            postfix['mfu'] = f'{self.model.estimate_mfu(examples, dt, self.peak):.1%}'
        self.t, self.step = time.time(), step
        self.bar.set_postfix(postfix, refresh=False)
        self.bar.update(step - self.bar.n)


def non_finite(step, run_dir):
    return FloatingPointError(f'the loss became non-finite by step {step}; {run_dir / "ckpt.pt"} keeps the last good '
                              f'weights. Lower learning_rate, keep grad_clip on, or use dtype=float32')


def atomic_save(obj, path):
    tmp = Path(str(path) + '.tmp')
    torch.save(obj, tmp)
    os.replace(tmp, path)


def start_run_dir(run_dir, cfg, resumed_step):
    """Writes config.json (what reruns the run; resuming is an action, not part of it) and starts log.jsonl:
    empty for a new run; for a resumed one, without the evaluations made after the checkpoint."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / 'config.json').write_text(json.dumps({**cfg, 'resume': False}, indent=2) + '\n')
    log = run_dir / 'log.jsonl'
    lines = log.read_text().splitlines() if resumed_step is not None and log.exists() else []
    log.write_text(''.join(l + '\n' for l in lines if json.loads(l)['step'] <= resumed_step))


def train(config=None):
    """Trains one run; returns its final metrics. `config` holds the keys to override (see --help)."""
    overrides = dict(config or {})
    cfg = resolve(overrides)
    run_dir = run_dir_of(cfg)
    ckpt = None
    if cfg['resume']:
        if not (run_dir / 'ckpt.pt').exists():
            raise ConfigError(f'cannot resume: {run_dir / "ckpt.pt"} does not exist (check out_dir and run_name)')
        cfg = resolve({**json.loads((run_dir / 'config.json').read_text()), **overrides})
        ckpt = torch.load(run_dir / 'ckpt.pt', map_location='cpu', weights_only=False)

    ddp, rank, world, device, own_group = processes(cfg)
    master, device_type = rank == 0, device.split(':')[0]
    dtype, ctx = compute_dtype(cfg, device_type)
    meta, train_data, (x_val, y_val), T = load_data(cfg, master, ddp)
    batch = batches(cfg, train_data, T, device, rank, world)
    gas = cfg['gradient_accumulation_steps']  # micro-batches per step over all processes: local_steps each
    global_batch, local_steps = cfg['batch_size'] * gas, gas // world
    x_val, y_val = x_val.to(device), y_val.to(device)

    try:
        raw_model = GPT(GPTConfig(**(ckpt['model_args'] if ckpt else model_args_of(cfg, meta, T)))).to(device)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    optimizer = raw_model.configure_optimizers(cfg['weight_decay'], cfg['learning_rate'],
                                               (cfg['beta1'], cfg['beta2']), device_type)
    scaler = torch.amp.GradScaler(device_type, enabled=dtype == 'float16')
    if ckpt is not None:
        for part, state in ((raw_model, 'model'), (optimizer, 'optimizer'), (scaler, 'scaler')):
            part.load_state_dict(ckpt[state])
    step = ckpt['step'] if ckpt else 0
    if dtype != 'float32':
        raw_model.fixed_to(getattr(torch, dtype))  # the fixed matrices in the compute dtype: no cast per step
    compile_ = cfg['compile'] if cfg['compile'] is not None else device_type == 'cuda'
    model = torch.compile(raw_model) if compile_ else raw_model
    if ddp:
        # the buffers are the fixed matrices, the same on every rank (seeded): no broadcast before each forward
        model = DDP(model, device_ids=[int(device.split(':')[1])] if device_type == 'cuda' else None,
                    broadcast_buffers=False)
    trained = [p for p in raw_model.parameters() if p.requires_grad]

    tokens = isinstance(train_data, np.memmap)  # a corpus's token stream; else fixed-length examples
    if master:
        start_run_dir(run_dir, cfg, ckpt['step'] if ckpt else None)
        data = 'a fresh training batch every step' if cfg['online'] else f'{len(train_data):,} training tokens' \
            if tokens else f'{len(train_data[0]):,} training examples'
        print(f"{cfg['task']} / {model_label(cfg)}: {raw_model.get_num_params():,} trained of "
              f"{raw_model.get_num_params(False):,} parameters, {data}, length {T}, {device} {dtype}, "
              f"{world} process(es)")
    progress = Progress(cfg, step, master and cfg['progress'], raw_model, global_batch, T)
    t_start = time.time()
    metrics, train_loss = None, float('nan')
    nonfinite = torch.zeros((), dtype=torch.bool, device=device)  # read at log and eval steps: no sync per step
    while step < cfg['max_iters']:
        lr = get_lr(step, cfg)
        for group in optimizer.param_groups:
            group['lr'] = lr
        logged = (step + 1) % cfg['log_interval'] == 0 or step + 1 == cfg['max_iters']
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
            nonfinite |= ~torch.isfinite(loss.detach())
        if cfg['grad_clip']:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(trained, cfg['grad_clip'])
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        step += 1

        if logged:
            train_loss = loss.item() * local_steps
            if nonfinite.item():
                raise non_finite(step, run_dir)
            progress.log(step, train_loss, predicted, yb)
        if step % cfg['eval_interval'] == 0 or step == cfg['max_iters']:
            ev = evaluate(model, x_val, y_val, cfg['eval_batch_size'], ctx, rank, world)
            if not math.isfinite(ev['val_loss']) or nonfinite.item():  # never overwrite good weights with bad ones
                raise non_finite(step, run_dir)
            metrics = dict(step=step, tokens=step * global_batch * T, train_loss=train_loss, **ev, lr=lr,
                           elapsed_s=time.time() - t_start)
            if master:
                with open(run_dir / 'log.jsonl', 'a') as f:
                    f.write(json.dumps(metrics) + '\n')
                atomic_save(dict(model=raw_model.state_dict(), optimizer=optimizer.state_dict(),
                                 scaler=scaler.state_dict(), model_args=asdict(raw_model.config),
                                 step=step, config=cfg, meta=meta), run_dir / 'ckpt.pt')
    progress.bar.close()
    if metrics is None:  # nothing left to train: report the checkpoint's weights
        metrics = dict(step=step, train_loss=train_loss,
                       **evaluate(model, x_val, y_val, cfg['eval_batch_size'], ctx, rank, world))
    wall = time.time() - t_start
    split = cfg['eval_split'] or meta['eval_split']
    metrics.update(task=cfg['task'], variant=cfg['variant'], eval_split=split, wall_s=wall,
                   tokens_per_s=global_batch * T * (step - (ckpt['step'] if ckpt else 0)) / wall,
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
    ids, decode = prompt_codec(meta, cfg['prompt'])
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
        overrides = parse_args([a for a in argv if a not in ('--help', '-h')])
        if '--help' in argv or '-h' in argv:
            print(help_text(overrides.get('task', DEFAULTS['task'])))
        elif overrides.get('sample'):
            print('\n---------------\n'.join(sample_text(overrides)))
        else:
            train(overrides)
    except (ConfigError, FloatingPointError) as e:
        sys.exit(f'error: {e}')

"""
Trains any variant of model.py on any task, on a CPU, a GPU, or many GPUs:

    python train.py                                # the default run (DEFAULT_RUN): under a minute
    python train.py --task=retrieval --variant=frozen_qk --m_max=10
    torchrun --standalone --nproc_per_node=4 train.py --task=khop --variant=mixit
    python train.py experiments/config/mixit_table3_addition.py   # a paper's run: key = value lines
    python train.py out/<run>/config.json          # run again from a saved config
    python train.py --resume --run_name=<run> --max_iters=2000    # continue a run, extended
    python data/text/prepare.py --input=book.txt && python train.py --task=text
    python sample.py --out_dir=out/<run> --start='Once upon'   # text from its ckpt.pt, as nanoGPT
    python train.py --sample out/<run> --prompt='Once upon' --temperature=0.8   # the same
    python train.py --help                         # every key, its default and meaning

and from Python: `from train import train; metrics = train(dict(task=..., variant=...))`.

The keys are the settings below, every GPTConfig field of model.py (given ones override the
variant's) and the settings of the task (data/<task>/prepare.py; its `seed` is `data_seed` here).
Training is a deterministic function of the config: step s's examples are a function of (seed, s)
(data/loader.py), and a step trains on batch_size x gradient_accumulation_steps of them however many
processes share it (whole micro-batches each, or pieces of each: loader.layout), so N processes
compute what one process computes (to float32 rounding where they split micro-batches; with dropout
a split piece draws masks of its own), and a resumed run ends with an uninterrupted one's weights.

The file reads top to bottom as nanoGPT's: the settings, then train(): the config, the device and
torchrun's processes, the data and the model, the optimizer and resume, the loop, the end. Each
check is one call into the module that holds it: configurator.py (the command line, config files,
--help, run names), devices.py (devices, threads, torchrun's launch, memory), checkpoint.py (the
run's folder, checkpoints, resume); sampling is sample.py's.
"""

import math
import os
import sys
import time
import warnings
import zlib

import numpy as np
import torch
import torch.distributed as dist
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm

import checkpoint
from checkpoint import load_checkpoint, together
from configurator import (
    DEFAULT_RUN,
    NOT_NAMED,
    RESUMABLE,
    command_line,
    find_run,
    gpt2_of,
    help_text,
    model_args_of,
    model_label,
    parse_args,
    resolve,
    run_dir_of,
)

# experiments/mixit/throughput.py imports them from here (its results are keyed to its text)
from configurator import DEFAULTS, MODEL_KEYS  # noqa: F401
from data import synthetic
from data.loader import batches, generate_missing, layout, load_data
from data.synthetic import ConfigError
from devices import (
    compute_dtype,
    cpu_threads,
    fitting_model,
    keep_freed_memory,
    launch,
    meet,
    pick_device,
    torchrun,
)
from gpt2 import load_gpt2
from model import PEAK_FLOPS, PEAK_SHARE
from sample import print_samples

# ------------------------------------------------------------------------------------------------
# settings: every run's defaults, each with its meaning (--help lists them; configurator.py reads
# these lines as a config file's, into configurator.DEFAULTS)
# run: written to out_dir/<run_name>/ (config.json, log.jsonl, ckpt.pt); run_name '' names the
# folder '<task>-<variant>,<keys not at their default>-<hash of the config>', its keys cut after
# 64 characters with ',+<N>more' (the run's first line names them)
out_dir = 'out'  # runs are written to out_dir/<run_name>/
run_name = ''  # name of the run's folder; '' = named after the task, variant and changed keys
resume = False  # continue the run from its ckpt.pt; only RESUMABLE keys may change
overwrite = False  # let a fresh run replace another's files (kept in replaced/<n>/; else refused)
seed = 0  # seeds the initial weights, the fixed random matrices and the examples' order
# task: a folder of data/ with a prepare.py, generated on first use or prepared; none: DEFAULT_RUN
# (configurator.py)
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


def train(config=None):
    """Trains one run; returns its final metrics. `config` holds the keys to override (see --help).
    Everything is checked before the run's folder is touched: the keys, the checkpoint, the data,
    the model."""
    # the config: the keys given, or a resumed run's checkpoint with them (checkpoint.py)
    overrides = dict(config or {})
    path = find_run(overrides, 'resume') if overrides.get('resume') else None
    ckpt = load_checkpoint(path, RESUMABLE) if path else None
    cfg = (
        checkpoint.resumed_config(ckpt, overrides, resolve, RESUMABLE)
        if ckpt
        else resolve(overrides)
    )
    # a resumed run found by its keys that trains on goes on in its config's folder: an extension
    # (max_iters=) in a folder of its own, the run it extends kept as it was (checkpoint.Run's
    # source); one named, or with nothing left to train, in its own
    stays = path and (cfg['run_name'] or cfg['max_iters'] == ckpt['step'])
    run_dir = path.parent if stays else run_dir_of(cfg)

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
        # GPT-2's shape and weights (gpt2.py) or this code's init; a ValueError is bad input
        try:
            model_args = ckpt['model_args'] if ckpt else model_args_of(cfg, meta, T, gpt2)
            raw_model, eval_batch = fitting_model(model_args, cfg, T, device, micro_size)
            own, unused = load_gpt2(raw_model, gpt2[1]) if gpt2 else ((), ())
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
    # the fixed matrices in the compute dtype: no cast per step
    if dtype not in ('float32', 'tf32'):
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
    corpus = isinstance(train_data, np.memmap)  # a corpus's token stream; else examples
    split = 'validation' if cfg['val_frac'] else cfg['eval_split'] or meta['eval_split']
    if master:
        n = torch.get_num_threads()
        threads = f', {n} thread{"s" * (n != 1)}' if device_type == 'cpu' else ''
        where = f'{device} {dtype}{threads}'
        left = cfg['max_iters'] - step
        print(
            describe(cfg, raw_model, train_data, T, where, world, run_dir, left, global_batch * T)
        )
        if gpt2:
            print(
                f"GPT-2's weights from {cfg['init_from']}; "
                f"at this code's init: {', '.join(own) or 'none'}; "
                f"GPT-2's left unused: {', '.join(unused) or 'none'}"
            )

    # the loop: an optimizer step over the micro-batches; every log_interval steps the progress bar,
    # every eval_interval steps an evaluation, which checkpoint.Run records (its log line, ckpt.pt
    # and W&B)
    source = path and path.parent
    with checkpoint.Run(run_dir, cfg, meta, ckpt, NOT_NAMED, master, ddp, source) as run:
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


def describe(cfg, model, train_data, T, where, world, run_dir, steps, tokens_per_step):
    """The run's first lines: the model, what it trains on, where, the run's folder; then its cost,
    the FLOPs of the steps left (model.flops_per_token), before the first one."""
    if cfg['online']:
        data = 'a fresh training batch every step'
    elif isinstance(train_data, np.memmap):
        data = f'{len(train_data):,} training tokens'
    else:
        data = f'{len(train_data[0]):,} training examples'
    flops = model.flops_per_token() * tokens_per_step * steps
    return (
        f'{cfg["task"]} / {model_label(cfg)}: {model.get_num_params():,} trained of '
        f'{model.get_num_params(False):,} parameters, {data}, length {T}, {where}, '
        f'{world} process(es), in {run_dir}\n'
        f'{steps:,} steps of {tokens_per_step:,} tokens to train: {flops:.3g} FLOPs'
    )


def seed_dropout(seed, step, micro, piece=0):
    """Dropout masks as a function of (seed, step, micro-batch over all processes), as every batch
    is: a resumed run, or one of N processes running whole micro-batches, draws what an
    uninterrupted single process draws. A piece of a micro-batch split between processes draws its
    own masks (the same distribution; not one process's masks, which are drawn for the whole
    micro-batch at once)."""
    torch.manual_seed(zlib.crc32(f'{seed}:{step}:{micro}{f":{piece}" if piece else ""}'.encode()))


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
        self.model, self.examples, self.T = model, examples_per_step, T
        self.step, self.t = step, time.time()
        # the time to the end, said once: on a GPU from the first log on (compiling, warm-up and
        # the kernels queued before it left out), on a CPU from the start
        self.max_iters, self.told = cfg['max_iters'], not show
        self.cpu = not next(model.parameters()).is_cuda
        self.first = (step, self.t) if self.cpu else None
        gpu = '' if self.cpu else torch.cuda.get_device_name()
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
        self.time_to_end(step)

    def time_to_end(self, step):
        """Once, at the first log 10 s or 100 steps after `first`: the measured time to max_iters,
        and that it is more than an hour on a CPU, where it is (the run goes on)."""
        if self.told or step >= self.max_iters:
            return
        if self.first is None:
            self.first = (step, self.t)
            return
        (s0, t0), now = self.first, time.time()
        if now - t0 < 10 and step - s0 < 100:
            return
        self.told = True
        per_step = (now - t0) / (step - s0)
        left = per_step * (self.max_iters - step)
        line = (
            f'{per_step:.3g} s a step over steps {s0}-{step}: about {duration(left)} to step '
            f'{self.max_iters:,}'
        )
        if self.cpu and left > 3600:
            line += ': more than an hour on this CPU, and it runs on (a GPU is the place for it)'
        self.bar.write(line)


def duration(seconds):
    """3 min, 2.5 h, 4.0 days."""
    if seconds < 90:
        return f'{seconds:.0f} s'
    if seconds < 5400:
        return f'{seconds / 60:.0f} min'
    return f'{seconds / 3600:.1f} h' if seconds < 172800 else f'{seconds / 86400:.1f} days'


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


def main(argv):
    """The command line: trains, or with --help lists every key, with --sample prints text from the
    run's ckpt.pt (sample.py). A mistake ends in one line 'error: ...' and exit code 2."""
    with command_line() as master:
        overrides = parse_args([a for a in argv if a not in ('--help', '-h')])
        if '--help' in argv or '-h' in argv:
            print(help_text(overrides.get('task', DEFAULT_RUN['task'])))
        elif overrides.get('sample'):
            print_samples(overrides, master)
        else:
            train(overrides)


if __name__ == '__main__':
    synthetic.end_on_signal()  # Ctrl-C or a kill: no temporary files; the last checkpoint stays
    main(sys.argv[1:])

"""
The machine a run trains on: its device and compute dtype, the CPU's threads and allocator,
torchrun's processes (launch, meet, leave) and what fits in the device's memory (memory_check).
train.py calls each once; none of them trains anything.
"""

import ctypes
import datetime
import os
import re
import signal
import sys
import threading
from contextlib import nullcontext
from pathlib import Path

import torch
import torch.distributed as dist

from checks import check_config
from data import synthetic
from data.synthetic import ConfigError
from model import GPT, GPTConfig

# the compute dtypes a run may name (dtype, besides 'auto')
DTYPES = ('float32', 'tf32', 'bfloat16', 'float16')


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
        libc.mallopt(-4, 0)  # M_MMAP_MAX = 0: large blocks from the heap, not fresh mmap pages
        libc.mallopt(-1, ctypes.c_int(2**31 - 1))  # M_TRIM_THRESHOLD: keep the heap's freed top
    except (OSError, AttributeError):
        pass


def torchrun():
    """Whether torchrun started this process (it sets RANK), or one that sets RANK as it does."""
    return 'RANK' in os.environ


# what a collective raises on the processes left when another of the run's ends (a kill, Ctrl-C in
# its terminal, an OOM kill): gloo's socket errors, NCCL's abort
PEER_GONE = ('Connection reset by peer', 'Connection closed by peer', 'Broken pipe', 'NCCL')


def peer_gone(e):
    """-> the words of the RuntimeError e that say another process of this torchrun run has ended,
    else None."""
    return next((words for words in PEER_GONE if words in str(e)), None) if torchrun() else None


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
    """Ends a command line (train.py, sample.py) with exit status `code` (0: returns, so that a
    caller in this process goes on). A process torchrun started ends with os._exit(code), after the
    run has closed everything it wrote, skipping the interpreter's teardown. There, a gloo worker
    thread may still be freeing the last backward's all-reduce, whose saved autograd context needs
    the GIL to free; a thread that takes the GIL while the interpreter finalizes kills the process
    (SIGABRT, 'terminate called without an active exception'), a few times in a hundred
    two-process CPU runs under load (torch 2.13)."""
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
    # what this process holds counts too: it reuses it (keep_freed_memory; an earlier run's heap)
    free = synthetic.free_memory()
    return free and free // int(os.environ.get('LOCAL_WORLD_SIZE', 1))


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

    # -> (parameters, bytes of fp32 weights, buffers and AdamW state), built on the meta device
    def cost(**changed):
        try:
            with torch.device('meta'):
                model = GPT(GPTConfig(**{**model_args, **changed}))
        except (RuntimeError, OverflowError) as e:  # a tensor's bytes beyond torch's 64-bit sizes
            if 'overflow' not in str(e).lower() and not isinstance(e, OverflowError):
                raise
            raise ConfigError(
                f'a weight or buffer of this model (n_embd={c.n_embd}, n_layer={c.n_layer}, '
                f'block_size={c.block_size}, vocab_size={c.vocab_size}) has more bytes than torch '
                'can count, far beyond any memory: lower them'
            ) from None
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
        f'the weights, buffers (the fixed matrices and tables of block_size rows) and optimizer '
        f'state ({params:,} parameters)',
        lambda have: (
            f'at most {have // 16:,} parameters fit: '
            'lower vocab_size, n_embd, n_layer or block_size'
        ),
    )
    outputs = c.n_classes or c.vocab_size
    # training: kept for the backward
    kept = 4 * T * (c.n_layer * (16 * c.n_embd + 2 * c.n_head * T) + 2 * outputs)
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

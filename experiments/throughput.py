"""
Appendix D of "Is Random Attention Sufficient?": training throughput. Frozen-QK trains 1267.1 samples/s
and MixiT 1349.0 against the standard transformer's 1022.8 on FineWeb-edu (same hyperparameters, same
infrastructure): speed-ups of 1.239 and 1.319. How much of that follows from the FLOPs they skip, and is
the standard model itself near the hardware limit (so that a speed-up is not a slow baseline's)?

Data: none; random token batches already on the device (no data loading), drawn once before timing.
Models: standard, frozen_qk, mixit, frozen_mlp and random, at two configurations:
  lm    the language-modeling configuration of Table 8: 12 layers, width 512, 8 heads, sequence 256,
        GPT-2 vocabulary padded to 50,304 (micro-batch 64 on a GPU, 4 on a CPU)
  gpt2  GPT-2 small's dimensions: 12 layers, width 768, 12 heads, sequence 1024, vocabulary 50,304
        (micro-batch 16 on a GPU, 1 on a CPU), in the same Llama-style block (RMSNorm, gated MLP, RoPE /
        learned positions for MixiT)
Protocol: one training step = forward + backward + gradient clipping + AdamW step (fused on CUDA), as
train.py runs it, with train.py's settings: on CUDA bf16 autocast, the fixed matrices cast once
(model.fixed_to) and torch.compile; on a CPU float32 and train.keep_freed_memory.
  speed   all variants in one process: each is built and warmed up (compilation included; GPU 15 steps,
          CPU 4, the CPU's until its allocator stops taking fresh pages), then every repeat times each
          variant in turn, between two device synchronisations (GPU 5 repeats of 20 steps, CPU 8 or 16
          repeats of 1 step), so that a slow spell of a shared machine falls on all of them alike; the step
          time is the median of the repeats.
  memory  each variant alone in a fresh process, over its warm-up steps: the peak, and what is allocated
          just before the last optimizer step (weights, gradients, AdamW moments, no activations). CUDA:
          max_memory_allocated and memory_allocated; a CPU: the resident set (its peak from getrusage) less
          what it was before the model was built, with every block of 128 KiB or more in its own mmap, so
          that it follows the live tensors.
Metric: samples/s and tokens/s; each variant's speed-up over standard beside its FLOP-predicted speed-up
(model.flops_per_token() of standard over the variant's: the weight gradients a frozen matrix does not need,
MixiT's missing projections and scores) and the share of the predicted gain it gets, (speed-up - 1) /
(predicted - 1); the paper's 1.239 / 1.319. MFU from each variant's own FLOP count: on CUDA against the
dense bf16 peak (989 TFLOP/s for H100/H200, train.PEAK_FLOPS), on a CPU against the float32 matmul peak
measured in turn with the variants (a 2048^3 matmul), so it says how close the step is to what the CPU's
BLAS can do. The memory each variant saves, beside the gradient and AdamW moments (12 bytes) and the
AdamW moments alone (8 bytes) of the weights it does not train (frozen, or absent as MixiT's W_Q, W_K).
--configs=lm or gpt2 picks one; --batch_size overrides the micro-batch.

--quick (2-core CPU, float32, about a minute): one reduced configuration, 4 layers, width 256, 4 heads,
sequence 256, vocabulary 8,192 (so the LM head's share of the FLOPs is near the lm configuration's),
batch 8; 4 warm-up steps, then 16 repeats of one step. Claim it tests: each variant's speed-up
over standard is at least 90% of the FLOP-predicted one, and MixiT and Frozen-QK are faster than standard.
--smoke: a tiny configuration, 1 warm-up and 2 timed steps of every variant, all in this process.
"""
import argparse
import ctypes
import json
import resource
import statistics
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import common
import torch
from model import GPT, GPTConfig, VARIANTS
from train import PEAK_FLOPS, keep_freed_memory, pick_device

NAME = 'throughput'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit', 'frozen_mlp', 'random']
# name: (architecture, micro-batch on CUDA, micro-batch on a CPU)
CONFIGS = {
    'full': {'lm': (dict(n_layer=12, n_head=8, n_embd=512, block_size=256, vocab_size=50304), 64, 4),
             'gpt2': (dict(n_layer=12, n_head=12, n_embd=768, block_size=1024, vocab_size=50304), 16, 1)},
    'quick': {'quick': (dict(n_layer=4, n_head=4, n_embd=256, block_size=256, vocab_size=8192), 8, 8)},
    'smoke': {'tiny': (dict(n_layer=1, n_head=2, n_embd=32, block_size=32, vocab_size=64), 2, 2)},
}
# (warm-up steps per variant, repeats, steps per repeat): every repeat times each variant in turn, in one process,
# so a slow spell of a shared machine falls on all of them alike
TIMING = {'full': {True: (15, 5, 20), False: (4, 8, 1)}, 'quick': (4, 16, 1), 'smoke': (1, 2, 1)}
PAPER_SAMPLES = {'standard': 1022.8, 'frozen_qk': 1267.1, 'mixit': 1349.0}  # FineWeb-edu, lm configuration


def add_flags(parser):
    parser.add_argument('--configs', default='', help="full mode: comma-separated subset of 'lm,gpt2'")
    parser.add_argument('--variants', default=','.join(VARIANT_ORDER), help='comma-separated variants')
    parser.add_argument('--batch_size', type=int, default=0, help="micro-batch; 0 = the configuration's")
    parser.add_argument('--worker', default='', help=argparse.SUPPRESS)  # one measurement, in a subprocess


def matmul_peak(device, dtype, n=2048, repeats=5):
    """FLOP/s of an n^3 matmul in `dtype`: what this device's BLAS reaches, the CPU's MFU reference."""
    a, b = (torch.randn(n, n, device=device, dtype=dtype) for _ in range(2))
    a @ b
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t0)
    return 2 * n ** 3 / statistics.median(times)


def compute_dtype(device):
    """bf16 autocast on CUDA (train.py's automatic choice where the GPU supports bf16), float32 on a CPU."""
    return torch.bfloat16 if device.startswith('cuda') and torch.cuda.is_bf16_supported() else torch.float32


def trainer(variant, arch, batch, device):
    """A variant's model and its training step, as train.py runs it -> (model, step(i), synchronize)."""
    device_type = device.split(':')[0]
    cuda = device_type == 'cuda'
    dtype = compute_dtype(device)
    ctx = torch.autocast(device_type, dtype=dtype) if dtype != torch.float32 else nullcontext()
    torch.manual_seed(0)
    raw = GPT(GPTConfig(**VARIANTS[variant], **arch)).to(device)
    optimizer = raw.configure_optimizers(0.1, 5e-4, (0.9, 0.95), device_type)
    raw.fixed_to(dtype)
    model = torch.compile(raw) if cuda else raw
    trained = [p for p in raw.parameters() if p.requires_grad]
    batches = [torch.randint(arch['vocab_size'], (2, batch, arch['block_size']), device=device) for _ in range(4)]

    def step(i, before_update=None):
        x, y = batches[i % len(batches)]
        with ctx:
            loss = model(x, y)[1]  # the logits are not kept through the backward pass, as in train.py
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        if before_update:
            before_update()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return raw, step, torch.cuda.synchronize if cuda else (lambda: None)


def resident_bytes():
    """This process's resident set now (Linux)."""
    return int(Path('/proc/self/statm').read_text().split()[1]) * resource.getpagesize()


def measure_memory(spec):
    """Memory of one variant's warm-up steps, alone in this process: the peak, and what is allocated just
    before the last optimizer step, when every gradient exists and the activations are gone (weights,
    gradients, AdamW moments). On CUDA max_memory_allocated and memory_allocated; on a CPU the resident set
    (its peak from getrusage), less what it was before the model was built, with every block of 128 KiB or
    more in its own mmap (glibc's M_MMAP_THRESHOLD, fixed), returned to the kernel when it is freed, so that
    the resident set follows the live tensors: the figures repeat to 0.1 MiB from run to run."""
    device = pick_device(spec['device'])
    cuda = device.startswith('cuda')
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    else:
        ctypes.CDLL('libc.so.6').mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD
    base_peak, base_now = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, resident_bytes()
    raw, step, sync = trainer(spec['variant'], spec['arch'], spec['batch'], device)
    at_update = []
    for i in range(spec['timing'][0]):
        step(i, lambda: at_update.append(torch.cuda.memory_allocated() if cuda else resident_bytes() - base_now))
    sync()
    peak = torch.cuda.max_memory_allocated() if cuda else \
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base_peak  # Linux: maxrss in KiB
    return dict(memory_bytes=peak, update_bytes=at_update[-1], flops_per_token=raw.flops_per_token(),
                trained=raw.get_num_params(), total=raw.get_num_params(False))


def measure_speed(spec):
    """Step times of every variant, in this process: all are built and warmed up (compiled), then each repeat
    times `per` steps of each variant in turn, between two device synchronisations; on a CPU with
    train.keep_freed_memory, as train.py trains there. -> {variant: [seconds per step]}, peak FLOP/s, info."""
    device = pick_device(spec['device'])
    cuda = device.startswith('cuda')
    if not cuda:
        keep_freed_memory()
    warmup, repeats, per = spec['timing']
    steps, times = {}, {}
    for variant in spec['variants']:
        _, steps[variant], sync = trainer(variant, spec['arch'], spec['batch'], device)
        for i in range(warmup):
            steps[variant](i)
        sync()
        times[variant] = []
    peaks = []
    for r in range(repeats):
        for variant, step in steps.items():
            t0 = time.perf_counter()
            for i in range(per):
                step(i)
            sync()
            times[variant].append((time.perf_counter() - t0) / per)
        if not cuda:  # the CPU's matmul peak, in turn with the variants too
            peaks.append(matmul_peak(device, torch.float32))
    if cuda:
        peak = next((v for k, v in PEAK_FLOPS.items() if k in torch.cuda.get_device_name()), None)
    else:
        peak = statistics.median(peaks)
    return dict(step_times=times, peak_flops=peak, peaks=peaks, device=common.device_name(device),
                dtype=str(compute_dtype(device)).removeprefix('torch.'), cuda=cuda)


MEASURE = {'memory': measure_memory, 'speed': measure_speed}


def in_subprocess(args, job, spec):
    """measure_<job>(spec) in a fresh Python process: its own compile caches and memory counters."""
    out = subprocess.run([sys.executable, __file__, f'--worker={json.dumps(dict(spec, job=job))}',
                          f'--device={args.device}'], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"error: the {job} measurement failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows_of(cname, B, T, memory, speed):
    """The table rows of one configuration: each variant against standard."""
    rows, std, peak = [], memory['standard'], speed['peak_flops']
    step_s = {v: statistics.median(t) for v, t in speed['step_times'].items()}
    for variant, m in memory.items():
        speedup = step_s['standard'] / step_s[variant]
        predicted = std['flops_per_token'] / m['flops_per_token']
        not_trained = std['trained'] - m['trained']  # frozen, or absent (MixiT's W_Q, W_K)
        saved, saved_update = std['memory_bytes'] - m['memory_bytes'], std['update_bytes'] - m['update_bytes']
        mfu = m['flops_per_token'] * B * T / step_s[variant] / peak if peak else None
        rows.append({
            'config': cname, 'variant': variant, 'batch': B,
            'samples/s': f'{B / step_s[variant]:,.2f}', 'tokens/s': f'{B * T / step_s[variant]:,.0f}',
            'step': f'{step_s[variant] * 1e3:,.1f} ms',
            'speed-up': f'{speedup:.3f}', 'FLOP-predicted': f'{predicted:.3f}',
            'share of predicted gain': f'{(speedup - 1) / (predicted - 1):.0%}' if variant != 'standard' else '',
            'paper speed-up': (f"{PAPER_SAMPLES[variant] / PAPER_SAMPLES['standard']:.3f}"
                               if variant in PAPER_SAMPLES else ''),
            'MFLOP/token': f"{m['flops_per_token'] / 1e6:,.1f}",
            'MFU': f'{mfu:.1%}' if mfu is not None else '',
            'peak memory (saved)': f"{m['memory_bytes'] / 2 ** 20:,.0f} MiB" +
                                   (f' ({saved / 2 ** 20:,.1f})' if variant != 'standard' else ''),
            'memory at the update (saved)': f"{m['update_bytes'] / 2 ** 20:,.0f} MiB" +
                                            (f' ({saved_update / 2 ** 20:,.1f})' if variant != 'standard' else ''),
            'untrained weights: grad + AdamW (AdamW)':
                f'{not_trained * 12 / 2 ** 20:,.1f} ({not_trained * 8 / 2 ** 20:,.1f}) MiB' if variant != 'standard' else '',
            'trained params': f"{m['trained']:,}"})
    return rows


def main():
    args = common.parse_args(__doc__, add_flags)
    if args.worker:
        spec = {**json.loads(args.worker), 'device': args.device}
        print(json.dumps(MEASURE[spec['job']](spec)))
        return
    configs = CONFIGS[args.mode]
    if args.configs and args.mode == 'full':
        unknown = set(args.configs.split(',')) - set(configs)
        if unknown:
            sys.exit(f'error: --configs: {", ".join(sorted(unknown))} not among {", ".join(configs)}')
        configs = {k: v for k, v in configs.items() if k in args.configs.split(',')}
    variants = [v for v in args.variants.split(',') if v]
    if 'standard' not in variants or any(v not in VARIANTS for v in variants):
        sys.exit(f'error: --variants must include standard and name only variants of {", ".join(VARIANTS)}')
    variants = ['standard'] + [v for v in variants if v != 'standard']
    cuda = pick_device(args.device).startswith('cuda')
    if not cuda and sys.platform != 'linux':
        sys.exit('error: on a CPU the memory figures read /proc and set glibc malloc options: run it on Linux or a GPU')
    timing = TIMING[args.mode][cuda] if args.mode == 'full' else TIMING[args.mode]
    # --smoke measures in this process, for speed; its memory figures then mean nothing
    measure = (lambda job, spec: MEASURE[job]({**spec, 'device': args.device})) if args.mode == 'smoke' else \
        (lambda job, spec: in_subprocess(args, job, spec))
    rows, raw, batches = [], {}, {}
    for cname, (arch, cuda_batch, cpu_batch) in configs.items():
        B = batches[cname] = args.batch_size or (cuda_batch if cuda else cpu_batch)
        spec = dict(arch=arch, batch=B, timing=timing)
        memory = {}
        for v in variants:
            memory[v] = measure('memory', dict(spec, variant=v))
            print(f"{cname} / {v}: peak memory {memory[v]['memory_bytes'] / 2 ** 20:,.0f} MiB", flush=True)
        speed = measure('speed', dict(spec, variants=variants))
        for v, t in speed['step_times'].items():
            print(f"{cname} / {v}: steps of {', '.join(f'{x * 1e3:.1f}' for x in t)} ms", flush=True)
        raw[cname] = dict(memory=memory, speed=speed)
        rows += rows_of(cname, B, arch['block_size'], memory, speed)
    arches = '; '.join(f"{k}: {a['n_layer']} layers, width {a['n_embd']}, {a['n_head']} heads, sequence "
                       f"{a['block_size']}, vocabulary {a['vocab_size']:,}, micro-batch {batches[k]}"
                       for k, (a, _, _) in configs.items())
    if speed['cuda']:
        peak = speed['peak_flops']
        mfu = f'MFU against the dense bf16 peak, {peak / 1e12:,.0f} TFLOP/s' if peak else \
            'MFU: no peak figure known for this GPU (train.PEAK_FLOPS)'
        memory_how = 'torch.cuda.max_memory_allocated and memory_allocated'
    else:
        peaks = [p for c in raw.values() for p in c['speed']['peaks']]
        mfu = (f"MFU against this CPU's float32 matmul peak, a 2048^3 matmul timed after every repeat, median "
               f"{statistics.median(peaks) / 1e9:,.0f} GFLOP/s (from {min(peaks) / 1e9:,.0f} to {max(peaks) / 1e9:,.0f})")
        memory_how = ("the worker's resident set (its peak: getrusage maxrss) less what it was before the model was "
                      "built, every block of 128 KiB or more in its own mmap, so that it follows the live tensors")
    notes = (f"Device: {speed['device']}, {speed['dtype']}{', torch.compile' if speed['cuda'] else ''}. {arches}. "
             f'One step = forward + backward + clipping + AdamW on random tokens. Timing: all variants in one '
             f'process, {timing[0]} warm-up steps each, then {timing[1]} repeats that time {timing[2]} step(s) of '
             f"each variant in turn; the step is the median of the repeats. Speed-up = standard's step time over "
             f"the variant's; FLOP-predicted = model.flops_per_token() of standard over the variant's; share of "
             f'predicted gain = (speed-up - 1) / (FLOP-predicted - 1). {mfu}. The paper\'s speed-ups are at the lm '
             f'configuration (batch 512) on its own hardware. Memory: each variant alone in its own process, over '
             f'its warm-up steps, the peak and what is allocated just before the last optimizer step (weights, '
             f'gradients, AdamW moments; no activations), with the saving against standard in brackets; '
             f'{memory_how}. Untrained weights: the float32 gradient '
             f'and AdamW moments (12 bytes), and the AdamW moments alone (8 bytes), of each weight that standard '
             f'trains and the variant does not (frozen, or absent as MixiT\'s W_Q, W_K).')
    common.report(args, NAME, 'Appendix D: training throughput', list(rows[0]), rows, notes=notes,
                  extra={'measurements': raw})


if __name__ == '__main__':
    main()

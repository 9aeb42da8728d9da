"""
Appendix D of "Is Random Attention Sufficient?": training throughput. Frozen-QK and MixiT train more
samples/s than the standard transformer on FineWeb-edu (PAPER_SAMPLES). How much of that do the
FLOPs they skip explain, and is the standard model itself near the hardware limit (so that a
speed-up is not a slow baseline's)? Measured: train.py's step (forward, backward, clipping, AdamW)
on random tokens: samples/s, tokens/s, each speed-up over standard beside model.flops_per_token()'s,
MFU, and the memory saved beside the gradient and AdamW moments of the weights a variant does not
train. Settings: models and AdamW of the authors' trainer.py (authors' code), the lm configuration
of Table 8 (paper text); ours: gpt2, micro-batches, torch.compile on CUDA. --dtype: float32 as they
train (default), tf32 or bfloat16 autocast (a GPU's fast options).
--quick: one CPU-sized configuration;
--smoke: a tiny one, in this process. Claims: CLAIMS (the paper's); ours, read from the table: each
variant gets at least 90% of the gain its FLOPs predict. A speed-up: the median over the repeats of
standard's step / the variant's, ± its standard error (its sd from the quartiles). CPU repeats,
fixed in advance to know Frozen-QK's share of its 2.8% (lm) to 10 points: one step's ratio had sd
1.5% (2026-11-26): (1.2533 x 1.5 / 0.28)^2 = 45.
"""

import argparse
import ctypes
import json
import resource
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import common, papers
from model import GPT, PEAK_FLOPS, PEAK_SHARE, VARIANTS, GPTConfig
from train import DEFAULTS, MODEL_KEYS, compute_dtype, keep_freed_memory, pick_device

NAME = 'throughput'
# FineWeb-edu, lm configuration
PAPER_SAMPLES = {'standard': 1022.8, 'frozen_qk': 1267.1, 'mixit': 1349.0}
# the paper's speed-up over standard
GAIN = {v: s / PAPER_SAMPLES['standard'] for v, s in PAPER_SAMPLES.items()}
# .format(config, variant): a speed-up in report's values (one number: rows_of's)
SPEEDUP = '{}: {} speed-up'
# GPTConfig's and AdamW's keys
SETTINGS = {v: papers.authors('trainer.py', v, **VARIANTS[v]) for v in VARIANTS}
# Timing: warm-up steps (CUDA: compilation; CPU: until its allocator stops taking fresh pages), then
# repeats x steps.
PROTOCOL = {
    'full': dict(
        configs={
            'lm': dict(
                arch=dict(n_layer=12, n_head=8, n_embd=512, block_size=256, vocab_size=50304),
                batch=dict(cuda=64, cpu=4),
            ),  # Table 8's language-modeling configuration
            'gpt2': dict(
                arch=dict(n_layer=12, n_head=12, n_embd=768, block_size=1024, vocab_size=50304),
                batch=dict(cuda=16, cpu=1),
            ),
        },  # GPT-2 small's dimensions
        timing=dict(
            cuda=dict(warmup=15, repeats=5, steps=20), cpu=dict(warmup=4, repeats=45, steps=1)
        ),
    ),
    'quick': dict(
        configs={
            'quick': dict(
                arch=dict(n_layer=4, n_head=4, n_embd=256, block_size=256, vocab_size=8192),
                batch=dict(cuda=8, cpu=8),
            )
        },  # vocabulary 8,192: lm's LM-head FLOP share
        timing=dict(
            cuda=dict(warmup=4, repeats=16, steps=1), cpu=dict(warmup=4, repeats=16, steps=1)
        ),
    ),
    'smoke': dict(
        configs={
            'tiny': dict(
                arch=dict(n_layer=1, n_head=2, n_embd=32, block_size=32, vocab_size=64),
                batch=dict(cuda=2, cpu=2),
            )
        },
        timing=dict(
            cuda=dict(warmup=1, repeats=2, steps=1), cpu=dict(warmup=1, repeats=2, steps=1)
        ),
    ),
}
# The paper's claims (Appendix D: Frozen-QK "a 23.9% improvement", "MixiT trains even faster",
# "32.0%") on the speed-up at lm or the mode's one configuration: above 1; MixiT's above
# Frozen-QK's; within half the paper's (other hardware). Each is a claim on a GPU's speed
# (gpu=True): measured on a CPU it is unresolved (harness/claims.py), the figures a preview.
CLAIMS = {
    mode: [
        dict(
            says='Frozen-QK and MixiT train more samples/s than standard',
            test='above',
            bound=1.0,
            fmt='num',
            gpu=True,
            of=[SPEEDUP.format(c, 'frozen_qk'), SPEEDUP.format(c, 'mixit')],
        ),
        dict(
            says='MixiT trains even faster than Frozen-QK',
            test='descending',
            fmt='num',
            gpu=True,
            of=[SPEEDUP.format(c, 'mixit'), SPEEDUP.format(c, 'frozen_qk')],
        ),
        dict(
            says='Frozen-QK trains 23.9% more samples/s than standard',
            test='within',
            target=GAIN['frozen_qk'],
            tol=(GAIN['frozen_qk'] - 1) / 2,
            fmt='num',
            gpu=True,
            of=[SPEEDUP.format(c, 'frozen_qk')],
        ),
        dict(
            says='MixiT trains 32.0% more samples/s than standard',
            test='within',
            target=GAIN['mixit'],
            tol=(GAIN['mixit'] - 1) / 2,
            fmt='num',
            gpu=True,
            of=[SPEEDUP.format(c, 'mixit')],
        ),
    ]
    for mode, c in (('full', 'lm'), ('quick', 'quick'), ('smoke', 'tiny'))
}


def add_flags(parser):
    parser.add_argument(
        '--configs',
        default='',
        help="comma-separated subset of the mode's configurations (full: 'lm,gpt2')",
    )
    parser.add_argument(
        '--variants', default='standard,frozen_qk,mixit,frozen_mlp,random', help='comma-separated'
    )
    parser.add_argument(
        '--batch_size', type=int, default=0, help="micro-batch; 0 = the configuration's"
    )
    # one measurement, in a subprocess
    parser.add_argument('--worker', default='', help=argparse.SUPPRESS)


def matmul_peak(device, n=2048, repeats=5):
    """FLOP/s of an n^3 float32 matmul: what this device's BLAS reaches, the CPU's MFU reference."""
    a, b = (torch.randn(n, n, device=device) for _ in range(2))
    times = []
    for _ in range(repeats + 1):  # the first is a warm-up
        t0 = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t0)
    return 2 * n**3 / statistics.median(times[1:])


def trainer(variant, arch, batch, device, dtype):
    """A variant's model and its training step as SETTINGS[variant], in `dtype` as train.py
    computes it -> (model, step(i), synchronize)."""
    device_type = device.split(':')[0]
    dtype, ctx = compute_dtype({'dtype': dtype}, device_type)
    torch.manual_seed(0)
    raw = GPT(
        GPTConfig(**{k: v for k, v in SETTINGS[variant].items() if k in MODEL_KEYS}, **arch)
    ).to(device)
    optimizer = raw.configure_optimizers(
        SETTINGS[variant]['weight_decay'],
        DEFAULTS['learning_rate'],
        tuple(SETTINGS[variant][k] for k in ('beta1', 'beta2')),
        device_type,
    )
    if dtype == 'bfloat16':
        raw.fixed_to(torch.bfloat16)
    model = torch.compile(raw) if device_type == 'cuda' else raw
    trained = [p for p in raw.parameters() if p.requires_grad]
    batches = [
        torch.randint(arch['vocab_size'], (2, batch, arch['block_size']), device=device)
        for _ in range(4)
    ]

    def step(i, before_update=lambda: None):
        x, y = batches[i % len(batches)]
        with ctx:
            # the logits are not kept through the backward pass, as in train.py
            loss = model(x, y)[1]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, DEFAULTS['grad_clip'])
        before_update()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    return raw, step, torch.cuda.synchronize if device_type == 'cuda' else (lambda: None)


def measure_memory(spec):
    """Memory of one variant's warm-up steps, alone in this process: the peak, and the allocation
    before the last optimizer step (weights, gradients, AdamW moments; no activations). CUDA:
    max_memory_allocated, memory_allocated; CPU: the resident set (peak: getrusage) less that before
    the model, blocks >= 128 KiB mmapped to follow frees."""
    device = pick_device(spec['device'])
    cuda = device.startswith('cuda')

    def resident_bytes():  # Linux
        return int(Path('/proc/self/statm').read_text().split()[1]) * resource.getpagesize()

    if cuda:
        torch.cuda.reset_peak_memory_stats()
    else:
        ctypes.CDLL('libc.so.6').mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD
    base_peak, base_now, at_update = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        resident_bytes(),
        [],
    )
    raw, step, sync = trainer(spec['variant'], spec['arch'], spec['batch'], device, spec['dtype'])
    for i in range(spec['warmup']):
        step(
            i,
            lambda: at_update.append(
                torch.cuda.memory_allocated() if cuda else resident_bytes() - base_now
            ),
        )
    sync()
    peak = (
        torch.cuda.max_memory_allocated()
        if cuda
        else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base_peak
    )  # Linux: maxrss in KiB
    return dict(
        memory_bytes=peak,
        update_bytes=at_update[-1],
        flops_per_token=raw.flops_per_token(),
        trained=raw.get_num_params(),
        total=raw.get_num_params(False),
    )


def measure_speed(spec):
    """All variants built and warmed up (compiled) in this process, then each repeat times `steps`
    steps of each in turn between syncs, so a shared machine's slow spell hits all alike; CPU:
    keep_freed_memory, as train.py."""
    device = pick_device(spec['device'])
    cuda = device.startswith('cuda')
    if not cuda:
        keep_freed_memory()
    steps, times, peaks = {}, {variant: [] for variant in spec['variants']}, []
    for variant in spec['variants']:
        _, steps[variant], sync = trainer(
            variant, spec['arch'], spec['batch'], device, spec['dtype']
        )
        for i in range(spec['warmup']):
            steps[variant](i)
        sync()
    for r in range(spec['repeats']):
        for variant, step in steps.items():
            t0 = time.perf_counter()
            for i in range(spec['steps']):
                step(i)
            sync()
            times[variant].append((time.perf_counter() - t0) / spec['steps'])
        if not cuda:  # the CPU's matmul peak, in turn with the variants too
            peaks.append(matmul_peak(device))
    peak = (
        next((v for k, v in PEAK_FLOPS.items() if k in torch.cuda.get_device_name()), None)
        if cuda
        else statistics.median(peaks)
    )
    if cuda and peak:  # the dense peak of the dtype it computes in
        peak *= PEAK_SHARE[spec['dtype']]
    return dict(
        step_times=times,
        peak_flops=peak,
        peaks=peaks,
        device=common.device_name(device),
        dtype=spec['dtype'],
    )


def in_subprocess(job, spec):
    """measure_<job>(spec) in a fresh Python process: its own compile caches and memory counters;
    a stop of this one ends it too (common.run_process)."""
    out = common.run_process(
        [sys.executable, __file__, f'--worker={json.dumps(dict(spec, job=job))}'],
        capture_output=True,
        text=True,
    )
    if out.returncode:
        sys.exit(f'error: the {job} measurement failed:\n{out.stderr[-3000:]}')
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows_of(cname, B, T, memory, times, peak):
    """-> the rows of one configuration (each variant against standard), {variant: speed-up}; times:
    s/step, in turn"""
    rows, std, speedups = [], memory['standard'], {}
    for variant, m in memory.items():
        ratios = [s / t for s, t in zip(times['standard'], times[variant])]
        speedup = speedups[variant] = statistics.median(ratios)
        # a median's standard error, 1.2533 sd / sqrt(n) (normal draws),
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        # the sd from the quartiles: no slow step inflates it
        se = 1.2533 * (q3 - q1) / 1.349 / len(ratios) ** 0.5
        step, predicted = (
            statistics.median(times[variant]),
            std['flops_per_token'] / m['flops_per_token'],
        )
        mfu = m['flops_per_token'] * B * T / step / peak if peak else None
        vs_standard = variant != 'standard'
        not_trained = std['trained'] - m['trained']  # frozen, or absent (MixiT's W_Q, W_K)
        untrained = (
            f'{not_trained * 12 / 2**20:,.1f} ({not_trained * 8 / 2**20:,.1f}) MiB'
            if vs_standard
            else ''
        )
        # MiB, vs standard
        saved = {k: f' ({(std[k] - m[k]) / 2**20:,.1f})' if vs_standard else '' for k in std}
        rows.append(
            {
                'config': cname,
                'variant': variant,
                'batch': B,
                'step': f'{step * 1e3:,.1f} ms',
                'samples/s': f'{B / step:,.2f}',
                'tokens/s': f'{B * T / step:,.0f}',
                'speed-up': f'{speedup:.3f}',
                'FLOP-predicted': f'{predicted:.3f}',
                'share of predicted gain': f'{(speedup - 1) / (predicted - 1):.0%} ± '
                f'{se / (predicted - 1) * 100:.0f}'
                if vs_standard
                else '',
                'paper speed-up': f'{GAIN[variant]:.3f}' if variant in GAIN else '',
                'MFLOP/token': f'{m["flops_per_token"] / 1e6:,.1f}',
                'MFU': f'{mfu:.1%}' if mfu is not None else '',
                'peak memory (saved)': f'{m["memory_bytes"] / 2**20:,.0f} MiB'
                + saved['memory_bytes'],
                'memory at the update (saved)': f'{m["update_bytes"] / 2**20:,.0f} MiB'
                + saved['update_bytes'],
                'untrained weights: grad + AdamW (AdamW)': untrained,
                'trained params': f'{m["trained"]:,}',
            }
        )
    return rows, speedups


def main():
    args = common.parse_args(__doc__, add_flags, own_dtype=True)
    jobs = {'memory': measure_memory, 'speed': measure_speed}
    if args.worker:  # in_subprocess's child
        spec = json.loads(args.worker)
        print(json.dumps(jobs[spec['job']](spec)))
        return
    P = PROTOCOL[args.mode]
    names = [c for c in args.configs.split(',') if c] or list(P['configs'])
    if set(names) - set(P['configs']):
        raise common.ConfigError(
            f'--configs={args.configs}: name only configurations of the {args.mode} protocol, '
            f'{", ".join(P["configs"])}'
        )
    variants = [v for v in args.variants.split(',') if v]
    if 'standard' not in variants or any(v not in VARIANTS for v in variants):
        raise common.ConfigError(
            f'--variants must include standard and name only variants of {", ".join(VARIANTS)}'
        )
    variants = ['standard'] + [v for v in variants if v != 'standard']
    cuda = pick_device(args.device).startswith('cuda')
    if not cuda and sys.platform != 'linux':
        raise common.ConfigError(
            'on a CPU the memory figures read /proc and set malloc options: use Linux or a GPU'
        )
    kind = 'cuda' if cuda else 'cpu'
    compute_dtype(vars(args), kind)  # a dtype this device cannot run: one line, before any work
    timing = P['timing'][kind]
    # --smoke measures in this process, for speed; its memory figures then mean nothing
    measure = (lambda job, spec: jobs[job](spec)) if args.mode == 'smoke' else in_subprocess
    rows, raw, described, values = [], {}, [], {}
    for cname, config in ((name, P['configs'][name]) for name in names):
        arch, B = config['arch'], args.batch_size or config['batch'][kind]
        described.append(
            f'{cname}: {arch["n_layer"]} layers, width {arch["n_embd"]}, {arch["n_head"]} heads, '
            f'sequence {arch["block_size"]}, vocabulary {arch["vocab_size"]:,}, micro-batch {B}'
        )
        spec = dict(arch=arch, batch=B, device=args.device, dtype=args.dtype, **timing)
        memory = {v: measure('memory', dict(spec, variant=v)) for v in variants}
        speed = measure('speed', dict(spec, variants=variants))
        raw[cname] = dict(memory=memory, speed=speed)  # every step's time: in the results JSON
        table, speedups = rows_of(
            cname, B, arch['block_size'], memory, speed['step_times'], speed['peak_flops']
        )
        rows += table
        values.update({SPEEDUP.format(cname, v): [speedups[v]] for v in variants[1:]})
    # CPU: one per repeat
    peak, peaks = (speed['peak_flops'], [p for c in raw.values() for p in c['speed']['peaks']])
    mfu = (
        f'the dense {args.dtype} peak, {peak / 1e12:,.0f} TFLOP/s'
        if peak
        else 'none: no peak known (model.PEAK_FLOPS)'
    )
    if not cuda:
        mfu = (
            "this CPU's float32 peak, a 2048^3 matmul timed after every repeat: median "
            f'{statistics.median(peaks) / 1e9:,.0f} GFLOP/s ({min(peaks) / 1e9:,.0f} to '
            f'{max(peaks) / 1e9:,.0f})'
        )
    notes = (
        f'{speed["device"]}, {speed["dtype"]}{", torch.compile" if cuda else ""}; '
        f'{"; ".join(described)}. {timing["repeats"]} repeats of {timing["steps"]} step(s) of '
        f'every variant in turn, {timing["warmup"]} warm-ups first; step: their median; speed-up: '
        'the median of their ratios standard / variant; share of predicted gain: (speed-up - 1) / '
        f'(predicted - 1) ± one standard error. MFU against {mfu}. Memory: each variant alone, its '
        f'warm-ups ({"GPU" if cuda else "resident set"}); at the update: before the last optimizer '
        'step; saved vs standard in brackets. Untrained: grad + AdamW (12 bytes), or AdamW (8).'
    )
    common.report(
        args,
        NAME,
        'Appendix D: training throughput',
        list(rows[0]),
        rows,
        notes=notes,
        extra={'measurements': raw},
        values=values,
        claims=CLAIMS[args.mode],
    )


if __name__ == '__main__':
    main()

"""
Appendix D of "Is Random Attention Sufficient?": training throughput. Frozen-QK trains 1267.1 samples/s
and MixiT 1349.0 against the standard transformer's 1022.8 on FineWeb-edu (same hyperparameters, same
infrastructure): speed-ups of 1.239 and 1.319. How much of that follows from the FLOPs they skip?

Data: none; random token batches already on the device (no data loading), drawn once before timing.
Models: standard, frozen_qk, mixit, and also frozen_mlp and random, at two configurations:
  lm    the language-modeling configuration of Table 8: 12 layers, width 512, 8 heads, sequence 256,
        GPT-2 vocabulary padded to 50,304 (micro-batch 64; the paper's batch of 512 is 8 of them)
  gpt2  GPT-2 small's dimensions: 12 layers, width 768, 12 heads, sequence 1024, vocabulary 50,304
        (micro-batch 16), in the same Llama-style block (RMSNorm, gated MLP, RoPE / learned for MixiT)
Budget and protocol (full, for a GPU): each variant in its own process (fresh compile caches and memory
counters); one training step = forward + backward + gradient clipping + AdamW step (fused on CUDA),
exactly as train.py does it; on CUDA with bf16 autocast and torch.compile. 15 warm-up steps (compilation
included) are not timed, then 5 repeats of 20 steps, each repeat timed between two device synchronisations;
the step time is the median over the repeats.
Metric: training samples/s and tokens/s, the speed-up of each variant over standard, beside its
FLOP-predicted speed-up (model.flops_per_token() of standard over the variant's: the weight gradients a
frozen matrix does not need, and MixiT's missing QK^T and softmax) and beside the paper's 1.239 / 1.319;
on CUDA also the MFU (model.estimate_mfu, peak 989 TFLOP/s bf16 for H100/H200) and the peak memory
(torch.cuda.max_memory_allocated). On a CPU the peak memory is the growth of the process's peak resident
set (getrusage maxrss) from before the model was built to the end: weights, optimizer state, activations.
The device and dtype are printed and written in the notes. --configs=lm or gpt2 picks one; --batch_size
overrides the micro-batch.

--quick (2-core CPU, float32, a few minutes): one reduced configuration, 4 layers, width 256, 4 heads,
sequence 256, vocabulary 8,192 (so the LM head's share of the FLOPs is near the lm configuration's),
batch 8; 2 warm-up steps, then 8 steps timed one by one, median. Claim it tests: freezing W_Q, W_K and
replacing attention by a fixed matrix make the training step faster than the standard one (speed-up
> 1 for frozen_qk and mixit), by about what their FLOP counts predict.
--smoke: a tiny configuration, 1 warm-up and 2 timed steps of every variant, all in this process.
"""
import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from contextlib import nullcontext

import common
import torch
from model import GPT, GPTConfig, VARIANTS
from train import PEAK_FLOPS, pick_device

NAME = 'throughput'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit', 'frozen_mlp', 'random']
CONFIGS = {
    'full': {'lm': (dict(n_layer=12, n_head=8, n_embd=512, block_size=256, vocab_size=50304), 64),
             'gpt2': (dict(n_layer=12, n_head=12, n_embd=768, block_size=1024, vocab_size=50304), 16)},
    'quick': {'quick': (dict(n_layer=4, n_head=4, n_embd=256, block_size=256, vocab_size=8192), 8)},
    'smoke': {'tiny': (dict(n_layer=1, n_head=2, n_embd=32, block_size=32, vocab_size=64), 2)},
}
# (warm-up steps, repeats, steps per repeat)
TIMING = {'full': (15, 5, 20), 'quick': (2, 8, 1), 'smoke': (1, 2, 1)}
PAPER_SAMPLES = {'standard': 1022.8, 'frozen_qk': 1267.1, 'mixit': 1349.0}  # FineWeb-edu, lm configuration


def add_flags(parser):
    parser.add_argument('--configs', default='', help="full mode: comma-separated subset of 'lm,gpt2'")
    parser.add_argument('--variants', default=','.join(VARIANT_ORDER), help='comma-separated variants')
    parser.add_argument('--batch_size', type=int, default=0, help="micro-batch; 0 = the configuration's")
    parser.add_argument('--worker', default='', help=argparse.SUPPRESS)  # one measurement, in a subprocess


def measure(spec):
    """Times the training step of one variant in this process; -> a dict of measurements."""
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    device = pick_device(spec['device'])
    device_type = device.split(':')[0]
    cuda = device_type == 'cuda'
    dtype = 'bfloat16' if cuda and torch.cuda.is_bf16_supported() else 'float32'
    ctx = torch.autocast(device_type, dtype=torch.bfloat16) if dtype == 'bfloat16' else nullcontext()
    torch.manual_seed(0)
    raw = GPT(GPTConfig(**VARIANTS[spec['variant']], **spec['arch'])).to(device)
    optimizer = raw.configure_optimizers(0.1, 5e-4, (0.9, 0.95), device_type)
    model = torch.compile(raw) if cuda else raw
    trained = [p for p in raw.parameters() if p.requires_grad]
    B, T, V = spec['batch'], spec['arch']['block_size'], spec['arch']['vocab_size']
    batches = [torch.randint(V, (2, B, T), device=device) for _ in range(4)]
    if cuda:
        torch.cuda.reset_peak_memory_stats()

    def step(i):
        x, y = batches[i % len(batches)]
        with ctx:
            _, loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    sync = torch.cuda.synchronize if cuda else (lambda: None)
    warmup, repeats, per = spec['timing']
    for i in range(warmup):
        step(i)
    sync()
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        for i in range(per):
            step(i)
        sync()
        times.append((time.perf_counter() - t0) / per)
    dt = statistics.median(times)
    peak = next((v for k, v in PEAK_FLOPS.items() if k in torch.cuda.get_device_name()), None) if cuda else None
    memory = torch.cuda.max_memory_allocated() if cuda else \
        (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) * 1024  # Linux: maxrss in KiB
    return dict(step_s=dt, step_times=times, samples_per_s=B / dt, tokens_per_s=B * T / dt,
                flops_per_token=raw.flops_per_token(), mfu=raw.estimate_mfu(B, dt, peak) if peak else None,
                memory_bytes=memory, trained=raw.get_num_params(), total=raw.get_num_params(False),
                device=common.device_name(device), dtype=dtype, threads=torch.get_num_threads(), cuda=cuda)


def run_isolated(args, spec):
    """measure(spec) in a fresh Python process: its own compile caches and memory counters."""
    out = subprocess.run([sys.executable, __file__, f'--worker={json.dumps(spec)}', f'--device={args.device}'],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"error: measuring {spec['variant']} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    args = common.parse_args(__doc__, add_flags)
    if args.worker:
        print(json.dumps(measure({**json.loads(args.worker), 'device': args.device})))
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
    rows, raw, info = [], {}, {}
    for cname, (arch, batch) in configs.items():
        batch = args.batch_size or batch
        results = {}
        for variant in variants:
            spec = dict(variant=variant, arch=arch, batch=batch, timing=TIMING[args.mode])
            if args.mode == 'smoke':  # in this process, for speed: the memory figure means nothing then
                results[variant] = m = {**measure({**spec, 'device': args.device}), 'memory_bytes': None}
            else:
                results[variant] = m = run_isolated(args, spec)
            info = dict(device=m['device'], dtype=m['dtype'], threads=m['threads'], cuda=m['cuda'])
            print(f"{cname} / {variant}: {m['samples_per_s']:,.1f} samples/s, {m['tokens_per_s']:,.0f} tokens/s "
                  f"(median step {m['step_s'] * 1e3:.1f} ms over {[round(t * 1e3, 1) for t in m['step_times']]})",
                  flush=True)
        raw[cname] = results
        std = results['standard']
        for variant, m in results.items():
            row = {'config': cname, 'variant': variant, 'batch': batch, 'samples/s': f"{m['samples_per_s']:,.1f}",
                   'tokens/s': f"{m['tokens_per_s']:,.0f}",
                   'speed-up': f"{m['samples_per_s'] / std['samples_per_s']:.3f}",
                   'FLOP-predicted speed-up': f"{std['flops_per_token'] / m['flops_per_token']:.3f}",
                   'paper speed-up': (f"{PAPER_SAMPLES[variant] / PAPER_SAMPLES['standard']:.3f}"
                                      if variant in PAPER_SAMPLES else ''),
                   'paper samples/s': f'{PAPER_SAMPLES[variant]:,.1f}' if variant in PAPER_SAMPLES else '',
                   'MFLOP/token': f"{m['flops_per_token'] / 1e6:,.2f}",
                   'MFU': f"{m['mfu']:.1%}" if m['mfu'] is not None else '',
                   'peak memory': f"{m['memory_bytes'] / 2 ** 20:,.0f} MiB" if m['memory_bytes'] is not None else 'n/a',
                   'trained params': f"{m['trained']:,}"}
            rows.append(row)
    timing = TIMING[args.mode]
    arches = '; '.join(f"{k}: {a['n_layer']} layers, width {a['n_embd']}, {a['n_head']} heads, sequence "
                       f"{a['block_size']}, vocabulary {a['vocab_size']:,}" for k, (a, _) in configs.items())
    memory = ('torch.cuda.max_memory_allocated' if info['cuda'] else
              "growth of the process's peak resident set (getrusage maxrss) from before the model was built")
    where = 'All variants in this process (smoke)' if args.mode == 'smoke' else 'Each variant in its own process'
    notes = (f"Device: {info.get('device')}, {info.get('dtype')}, {info.get('threads')} thread(s). {arches}. "
             f'{where}; one step = forward + backward + clipping + AdamW on random tokens; '
             f'{timing[0]} warm-up steps, then the median of {timing[1]} timings of {timing[2]} step(s). '
             f'Speed-up = samples/s over standard\'s; FLOP-predicted = model.flops_per_token() of standard over '
             f"the variant's. The paper's samples/s are at the lm configuration (batch 512) on its own hardware. "
             f'Peak memory: {memory}.')
    common.report(args, NAME, 'Appendix D: training throughput', list(rows[0]), rows, notes=notes,
                  extra={'measurements': raw})


if __name__ == '__main__':
    main()

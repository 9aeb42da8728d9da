"""
Where a GPU training step's time goes. Asked by throughput's standard model at 37% MFU on an H200
(results/gpu_check.md; the GPU checklist's target is 45%): throughput.py's gpt2 configuration
(GPT-2 small, micro-batch 16 of 1,024 tokens), bf16 autocast, compiled, the step train.py takes
(forward, backward, clipping, fused AdamW), on random tokens:

    python experiments/tools/profile_step.py OUT_DIR

1. torch.profiler over a few warm steps: each CUDA kernel's time, summed by kind (matmul, attention,
   the compiled elementwise and reduction kernels, the optimizer, the rest), and the share of the
   step's wall time the GPU is busy;
2. the step's time and MFU at micro-batches 8, 16 and 32 (a larger batch fills the GPU better, if
   the step is short of work).
MFU as throughput.py counts it: model.flops_per_token() (attention's causal half only, as the flash
kernel computes it) over the bf16 dense peak; nanoGPT's count (12 T n per layer, the masked half
too) is printed beside it. Written to OUT_DIR after each part (a part that runs out of time keeps
the ones before): profile_step.json, profile_step.md, and the profiler's own table
profile_step.txt. Needs CUDA; --dry runs its flow on the CPU at a tiny size (CPU ops for kernels),
in seconds, to check it before a GPU's minutes are spent.
"""

import gc
import json
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from data import synthetic
from experiments.harness import common
from model import PEAK_FLOPS

# throughput.py's step and configuration, read as reproduce.py and trend.py read an experiment (a
# tool imports none)
THROUGHPUT = common.experiment_module('throughput')
ARCH = THROUGHPUT.PROTOCOL['full']['configs']['gpt2']['arch']
ARCH_DRY = dict(n_layer=2, n_head=2, n_embd=32, block_size=32, vocab_size=256)
BATCHES = (16, 32, 8)  # the checklist's 16 first: the profile is of it (PROFILED_BATCH)
PROFILED_BATCH = BATCHES[0]
WARMUP, STEPS, PROFILED = 15, 20, 5
# a kernel's kind, by the first of these its name contains (lower case)
KINDS = {
    'attention': ('flash', 'fmha', 'attention', 'cudnn'),
    'optimizer': ('adam', 'multi_tensor', 'foreach', 'norm_kernel'),
    'matmul': (
        'aten::mm',
        'aten::addmm',
        'gemm',
        'nvjet',
        'cutlass',
        'sm90',
        'sm80',
        'matmul',
        'xmma',
    ),
    'compiled (triton)': ('triton',),
}


def kind_of(name):
    name = name.lower()
    return next((k for k, keys in KINDS.items() if any(s in name for s in keys)), 'other')


def device_us(event, cuda):
    """A kernel's own time in microseconds (its attribute's name moved between torch versions);
    0 for a CPU op on CUDA, whose kernels are counted as themselves. --dry: a CPU op's own time."""
    if not cuda:
        return event.self_cpu_time_total
    if event.device_type != torch.autograd.DeviceType.CUDA:
        return 0
    return getattr(event, 'self_device_time_total', None) or getattr(
        event, 'self_cuda_time_total', 0
    )


def main():
    parser = synthetic.Parser(__doc__)
    parser.add_argument('out_dir', help='where profile_step.json, .md and .txt are written')
    parser.add_argument('--dry', action='store_true', help='the flow on the CPU, at a tiny size')
    args = parser.parse_args()
    cuda = not args.dry
    if cuda and not torch.cuda.is_available():
        parser.error('no CUDA device here: run it on a GPU, or give --dry to check it on the CPU')
    out = common.tool_folder(
        parser, args.out_dir, [f'profile_step.{e}' for e in ('json', 'md', 'txt')], not cuda
    )
    device, dtype, arch = ('cuda', 'bfloat16', ARCH) if cuda else ('cpu', 'float32', ARCH_DRY)
    name = torch.cuda.get_device_name() if cuda else 'cpu'
    # --dry: a stand-in peak, to exercise the arithmetic
    peak = next((v for k, v in PEAK_FLOPS.items() if k in name), None) if cuda else 1e11
    T = arch['block_size']
    info = dict(
        command='python experiments/tools/profile_step.py OUT_DIR',
        device=common.device_name(device),
        torch=torch.__version__,
        date=str(date.today()),
        arch=arch,
        peak_flops=peak,
        batches=[],
    )
    md = [
        f'# profile_step: {info["device"]}, torch {info["torch"]}, {info["date"]}',
        '',
        f'{arch}, {dtype}{", compiled" if cuda else ""}; MFU against {peak:.3g} FLOP/s.',
    ]

    def write(text_table=None):
        common.write_text(out / 'profile_step.json', json.dumps(info, indent=1))
        rows = [
            {k: b[k] for k in ('micro-batch', 'ms a step', 'MFU', "MFU, nanoGPT's count")}
            for b in info['batches']
        ]
        parts = md + ['', common.markdown(list(rows[0]), rows)] if rows else md
        if 'kinds' in info:
            parts += ['', f'## where micro-batch {PROFILED_BATCH} spends its GPU time', '']
            parts += [common.markdown(['kind', 'ms a step', 'share'], info['kinds'])]
            parts += ['', f"GPU busy: {info['busy']:.1%} of the profiled steps' wall time."]
        common.write_text(out / 'profile_step.md', '\n'.join(parts) + '\n')
        if text_table:
            common.write_text(out / 'profile_step.txt', text_table)

    for batch in BATCHES:
        torch._dynamo.reset()
        raw, step, sync = THROUGHPUT.trainer('standard', arch, batch, device, dtype)
        t0 = time.perf_counter()
        for i in range(WARMUP):
            step(i)
        sync()
        warm = time.perf_counter() - t0
        times = []
        for i in range(STEPS):
            t0 = time.perf_counter()
            step(i)
            sync()
            times.append(time.perf_counter() - t0)
        dt = statistics.median(times)
        n, L = arch['n_embd'], arch['n_layer']
        flops = raw.flops_per_token()
        # attention: flops_per_token counts the causal half a flash kernel computes, 6 (T + 1) n a
        # layer; nanoGPT's estimate_mfu counts the whole score matrix, 12 T n
        nanogpt = flops - L * 6 * (T + 1) * n + L * 12 * T * n
        info['batches'].append(
            {
                'micro-batch': batch,
                'ms a step': f'{dt * 1e3:.1f}',
                'MFU': f'{flops * batch * T / dt / peak:.1%}',
                "MFU, nanoGPT's count": f'{nanogpt * batch * T / dt / peak:.1%}',
                'warm-up s': round(warm, 1),
                'flops_per_token': flops,
                'step_s': times,
            }
        )
        table = None
        if batch == PROFILED_BATCH:
            activities = [torch.profiler.ProfilerActivity.CPU]
            activities += [torch.profiler.ProfilerActivity.CUDA] if cuda else []
            with torch.profiler.profile(activities=activities) as prof:
                sync()
                t0 = time.perf_counter()
                for i in range(PROFILED):
                    step(i)
                sync()
                wall = (time.perf_counter() - t0) / PROFILED
            events = prof.key_averages()
            per_kind = {}
            kernels = [e for e in events if device_us(e, cuda) > 0]
            for e in kernels:
                per_kind[kind_of(e.key)] = per_kind.get(kind_of(e.key), 0) + device_us(e, cuda)
            busy = sum(per_kind.values()) / 1e6 / PROFILED
            info['kinds'] = [
                {
                    'kind': k,
                    'ms a step': f'{us / 1e3 / PROFILED:.2f}',
                    'share': f'{us / 1e6 / PROFILED / busy:.1%}',
                }
                for k, us in sorted(per_kind.items(), key=lambda kv: -kv[1])
            ]
            info['busy'] = busy / wall
            info['kernels'] = [
                dict(
                    name=e.key[:120],
                    kind=kind_of(e.key),
                    us_a_step=device_us(e, cuda) / PROFILED,
                    calls=e.count // PROFILED,
                )
                for e in sorted(kernels, key=lambda e: -device_us(e, cuda))[:40]
            ]
            key = 'self_cpu_time_total'
            if cuda:  # its name moved between torch versions, as in device_us
                new = hasattr(kernels[0], 'self_device_time_total')
                key = 'self_device_time_total' if new else 'self_cuda_time_total'
            table = events.table(sort_by=key, row_limit=60, max_name_column_width=100)
        write(table)
        print(json.dumps(info['batches'][-1] | {'step_s': None}), flush=True)
        del raw, step
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
    print(f'wrote {out}/profile_step.json, .md and .txt')


if __name__ == '__main__':
    synthetic.end_on_signal()  # Ctrl-C: one line, not a traceback
    main()

"""
Checks a GPU in one command: every CUDA path of the repository (bf16 autocast, torch.compile,
fused AdamW, pinned non-blocking copies, nccl) runs, each part with its own time limit, within 8
minutes on one H100 or H200 (a workplace lends one for 15 minutes, start-up included):

    python experiments/tools/gpu_check.py OUT_DIR

Its parts, each with its time limit (planned on an H200 from its runs of 2026-11-27: compiling a
GPT-2 small, about 40 s there, costs more than its steps; the seconds below are the second run's,
git show 499bc84:experiments/results/gpu_check.md; the later runs' in experiments/README.md
section 8):
- tests (90 s): the CUDA-only tests, pytest tests -k "cuda or sync or compile" (79 s);
- default (55 s): the default run, python train.py (Dyck-1, 500 steps), on CUDA: bf16 autocast,
  compiled (42 s);
- throughput (210 s): experiments/mixit/throughput.py --configs=gpt2 --dtype=bfloat16 for
  Appendix D's three variants: MFU, each speed-up beside its FLOP prediction, peak memory (each
  variant's memory in a process of its own; 173 s in all);
- torchrun (55 s): the default run for 50 steps under torchrun, one process on nccl (44 s);
- largest (60 s): the deepest GPT at GPT-2 XL's width that trains a step, beside the depth
  train.py's memory check accepts (LARGEST; its search 40 s, then the process's exit, which hands
  back about 140 GB of GPU memory, outlasted the 45 s it had).

Each part runs in a process of its own: one that fails or runs out of time is reported, with the end
of its output, and the next runs. Written to OUT_DIR after every part (common.Parts), each with
the device's name and the command: gpu_check.json (every part: its command, time, exit status,
result, the end of its output; the throughput results whole), gpu_check.md (a table a reader
reads) and gpu_check.log (every part's output); the runs themselves go to a temporary folder,
removed at the end.

Without CUDA (or with --dry) each part runs its smallest form on the CPU, in under a minute: the
tests that check the CUDA paths' refusal off a GPU, 20 default steps, throughput --smoke, 10 steps
under torchrun on gloo, and the search for the largest model capped at 8 layers of width 64.
"""

import argparse
import gc
import json
import re
import sys
import time
from datetime import date
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from data import synthetic
from experiments.harness import common
from model import GPT, GPTConfig
from configurator import DEFAULTS
from data.synthetic import ConfigError
from devices import compute_dtype, memory_check

# within 8 minutes: the parts' limits on a GPU, and this process's own start and writing
BUDGET_S, OWN_S = 480, 10
# the largest-model search: GPT-2 XL's width, heads, sequence and vocabulary; batch 1
LARGEST = dict(n_embd=1600, n_head=25, block_size=1024, vocab_size=50304)
# --dry: a CPU has no out-of-memory error to find, so the search is capped
LARGEST_DRY = dict(n_embd=64, n_head=4, block_size=64, vocab_size=256, most_layers=8)


def parts(out, scratch, dry):
    """-> [(name, limit in seconds, command)]: what each part runs, GPU or --dry."""
    py = sys.executable
    run = [py, 'train.py', '--progress=False', '--device=' + ('cpu' if dry else 'cuda')]
    torchrun = [py, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node=1']
    return [
        (
            'tests',
            90,
            [py, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests', '-k']
            + (['cuda'] if dry else ['cuda or sync or compile']),
        ),
        (
            'default',
            55,
            run + [f'--out_dir={scratch}/default'] + (['--max_iters=20'] if dry else []),
        ),
        (
            'throughput',
            210,
            [py, 'experiments/mixit/throughput.py', f'--out_dir={scratch}/throughput']
            + (
                ['--smoke', '--device=cpu']
                if dry
                else [
                    '--configs=gpt2',
                    '--variants=standard,frozen_qk,mixit',
                    '--device=cuda',
                    '--dtype=bfloat16',
                ]
            ),
        ),
        (
            'torchrun',
            55,
            torchrun
            + run[1:]
            + [f'--out_dir={scratch}/torchrun', f'--max_iters={10 if dry else 50}']
            + (['--eval_interval=10'] if dry else ['--eval_interval=50']),
        ),
        (
            'largest',
            60,
            [py, 'experiments/tools/gpu_check.py', str(out), '--largest']
            + (['--dry'] if dry else []),
        ),
    ]


def last_record(folder):
    """The last line of log.jsonl of the one run under `folder`: the run's result."""
    logs = sorted(Path(folder).glob('*/log.jsonl'))
    return json.loads(logs[-1].read_text().splitlines()[-1]) if logs else None


def result_of(name, output, scratch):
    """A part's result, read from what it wrote: the tests' summary line, a run's last evaluation,
    throughput's results, the largest model's search."""
    if name == 'tests':
        found = re.findall(r'^=*\s*(\d+ (?:passed|failed|skipped|error).*?)\s*=*\s*$', output, re.M)
        return found[-1] if found else None
    if name in ('default', 'torchrun'):
        return last_record(Path(scratch) / name)
    if name == 'throughput':  # its own JSON, written to its out_dir in every mode
        return json.loads((Path(scratch) / 'throughput' / 'throughput.json').read_text())
    lines = [line for line in output.splitlines() if line.startswith('{')]
    return json.loads(lines[-1]) if lines else None


def search(trains, most):
    """The largest n in [1, most] with trains(n), for a trains that holds up to some n and not
    above it (bisection); 0 where even 1 does not."""
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if trains(mid) else (lo, mid - 1)
    return lo


def largest(dry):
    """The deepest GPT (LARGEST's width; standard variant) that trains one step here, beside the
    deepest devices.memory_check accepts. A try builds the model on the meta device, allocates it on
    the GPU with N(0, 0.02) values (memory does not depend on them; GPT's own init draws on CPU
    generators, minutes at billions of parameters), then one step: forward and backward under the
    run's autocast, gradient clipping, fused AdamW (its moments allocated at the step). -> a dict,
    printed as one JSON line."""
    arch = LARGEST_DRY if dry else LARGEST
    device = 'cpu' if dry else 'cuda'
    shape = {k: v for k, v in arch.items() if k != 'most_layers'}
    T = shape['block_size']
    _, ctx = compute_dtype(dict(DEFAULTS, dtype='auto'), device)

    def accepted(n_layer):
        try:
            memory_check(dict(shape, n_layer=n_layer), DEFAULTS, T, device, 1)
            return True
        except ConfigError:
            return False

    def step(n_layer):  # everything it allocates is freed when it returns or raises
        with torch.device('meta'):
            model = GPT(GPTConfig(**shape, n_layer=n_layer))
        model.to_empty(device=device)
        with torch.no_grad():
            for p in model.parameters():
                p.normal_(0.0, 0.02)
        optimizer = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95), device)
        x = torch.randint(shape['vocab_size'], (1, T), device=device)
        with ctx:
            loss = model(x, x)[1]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if device == 'cuda':
            torch.cuda.synchronize()

    def trains(n_layer):
        try:
            step(n_layer)
            ok = True
        except RuntimeError as e:  # torch.OutOfMemoryError; cuBLAS's workspace: ALLOC_FAILED
            if not isinstance(e, torch.OutOfMemoryError) and 'ALLOC_FAILED' not in str(e):
                raise
            ok = False
        gc.collect()  # the failed try's tensors, held by its traceback until here
        if device == 'cuda':
            torch.cuda.empty_cache()
        return ok

    t0 = time.perf_counter()
    most = arch.get('most_layers') or 2**20
    checked = search(accepted, most)
    # a step needs at least what the check counts: the search goes up to twice its answer
    trained = search(trains, arch.get('most_layers') or max(2 * checked, 1))
    with torch.device('meta'):
        params = {
            k: GPT(GPTConfig(**shape, n_layer=n)).get_num_params(False) if n else 0
            for k, n in (('checked', checked), ('trained', trained))
        }
    return dict(
        shape=shape,
        batch=1,
        memory_bytes=torch.cuda.get_device_properties(0).total_memory if device == 'cuda' else None,
        check_layers=checked,
        check_params=params['checked'],
        trained_layers=trained,
        trained_params=params['trained'],
        seconds=round(time.perf_counter() - t0, 1),
    )


def summary(name, result):
    """One line of a part's result, for the table."""
    if result is None:
        return ''
    if name == 'tests':
        return result
    if name in ('default', 'torchrun'):
        shown = ('step', 'val_loss', 'val_acc', 'tokens_per_s', 'mfu', 'elapsed_s')
        return ', '.join(
            f'{k} {result[k]:.4g}' if isinstance(result[k], float) else f'{k} {result[k]}'
            for k in shown
            if k in result
        )
    if name == 'throughput':
        return f'verdict {result.get("verdict")}; its table in gpu_check.md'
    return (
        f'trains {result["trained_layers"]} layers ({result["trained_params"]:,} parameters); '
        f"train.py's memory check accepts {result['check_layers']} "
        f'({result["check_params"]:,})'
    )


def main():
    parser = synthetic.Parser(__doc__)
    parser.add_argument('out_dir', help='where gpu_check.json, .md and .log are written')
    parser.add_argument('--dry', action='store_true', help='the CPU version (default without CUDA)')
    parser.add_argument(
        '--largest', action='store_true', help=argparse.SUPPRESS
    )  # a part's process
    args = parser.parse_args()
    common.command_line_process()
    dry = args.dry or not torch.cuda.is_available()
    if args.largest:
        print(json.dumps(largest(dry)))
        return
    out = common.tool_folder(
        parser, args.out_dir, [f'gpu_check.{e}' for e in ('json', 'md', 'log')], dry
    )
    command = 'python experiments/tools/gpu_check.py ' + ' '.join(sys.argv[1:])
    device = common.device_name('cpu' if dry else 'cuda')
    head = f'# GPU check: {device}\n\n`{command}`, {date.today()}, torch {torch.__version__}' + (
        ', dry (the CPU version)' if dry else ''
    )
    print(head, flush=True)

    def throughput(parts):  # its table below the parts'
        found = next((d['result'] for d in parts if d['part'] == 'throughput'), None)
        if not found:
            return []
        return ['', '## throughput', '', common.markdown(found['columns'], found['rows'])]

    info = dict(command=command, device=device, torch=torch.__version__, date=str(date.today()))
    done = common.Parts(out, 'gpu_check', head, {**info, 'dry': dry}, summary, after=throughput)
    with common.scratch_folder('gpu_check-') as scratch:
        for name, limit, cmd in parts(out, scratch, dry):
            t0 = time.perf_counter()
            proc = common.run_process(
                cmd, capture_output=True, text=True, timeout=limit, cwd=common.ROOT
            )
            seconds = time.perf_counter() - t0
            output = (proc.stdout or '') + (proc.stderr or '')
            try:
                result = result_of(name, proc.stdout or '', scratch)
            except (OSError, ValueError, KeyError, IndexError) as e:
                result = None
                output += f'\n(gpu_check could not read its result: {e!r})'
            shown = ' '.join(cmd).replace(sys.executable, 'python').replace(scratch, 'TMP')
            done.record(name, shown, limit, seconds, proc.returncode, result, output)
    print(f'wrote {out}/gpu_check.json, .md and .log')
    if done.failed():
        sys.exit(1)


if __name__ == '__main__':
    main()

"""
A lent GPU's draw in one command: a workplace lends one H100 or H200 for 15 minutes, start-up
included, so this spends at most 10 of them, on what decides the most of the papers' claims per
minute at their own sizes:

    python experiments/tools/gpu_run.py OUT_DIR         # on the GPU: within 10 minutes
    python experiments/tools/gpu_run.py OUT_DIR --plan  # the parts, minutes each, claims each
    python experiments/tools/gpu_run.py OUT_DIR --dry   # each part's smallest form on a CPU

Its parts, in order, each in processes of its own with its own time limit:
- check (at most 2 minutes): three processes at once: the default run (python train.py: compiled,
  bfloat16 autocast, 200 steps), one step of each variant (VARIANTS, bfloat16, eager), and 20
  steps of the default run under torchrun on nccl;
- nanogpt: experiments/tools/nanogpt_step.py at GPT-2 small, both models compiled in bfloat16, in
  one process, the ratio ours / nanoGPT's: a timing, so the GPU does nothing else meanwhile;
- the protocols (PROTOCOLS): each a full protocol at the paper's sizes (memorization_capacity's
  and universal_dimension's whole, Table 1's k-hop without its search, at Table 8's setting), in
  order of the claims it decides per predicted minute; one whose prediction does not fit the time
  left is skipped (the plan says which). A protocol's runs (its --plan's list) train side by side
  as train.py processes (PROCESSES at once: small models leave a GPU idle between their kernels),
  then the experiment itself runs with --reuse, which reads each finished run from its checkpoint
  and writes its results and verdicts as every experiment does.

The prediction, computed before anything runs from each protocol's --plan (common.cost's FLOPs
and steps) and the H200's measured rates (RATE_FLOPS, STEP_S, START_S below): a part's seconds are
at least its FLOPs at GPT-2 small's measured rate, and at most that or its steps at the measured
floor of a small model's step, whichever is more, shared by the processes, plus each run's start;
it is scheduled when its upper bound fits what is left, or its lower bound does (then it runs
with what is left as its limit).

Written to OUT_DIR after every part, so that what finished is kept where a later part runs out of
time: gpu_run.json (each part's command, time, limit, exit status, result, the end of its output),
gpu_run.md (a table, the nanoGPT ratio, the protocols' verdicts), gpu_run.log (every output), and
results/ (each protocol's results JSON and .md, as its experiment writes them: commit them to
experiments/results/ with the device they name, then python experiments/tools/reproduce.py
--readme). The runs themselves go to a temporary folder, removed at the end.

--dry (default without CUDA): each part's smallest form on the CPU, in under a minute: 5 default
steps, a step of each variant, 5 steps under torchrun on gloo, nanogpt_step at 4x256 for one
repeat, and the whole flow of one protocol (DRY_PROTOCOL's --smoke: its plan, its runs side by
side, the experiment reading them); the others are planned.
"""

import argparse
import json
import math
import os
import sys
import time
from datetime import date
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from configurator import resolve
from data import synthetic
from data.synthetic import ConfigError
from data.loader import generate_missing
from experiments.harness import common
from model import GPT, PEAK_FLOPS, VARIANTS, GPTConfig, universal_dim

# within 10 minutes of device time: this process's own start, planning and writing, then the parts
BUDGET_S, OWN_S = 600, 20
CHECK_S, NANOGPT_S = 120, 90
# The H200's measured rates (experiments/results/gpu_check.json, 2026-11-27): GPT-2 small in
# bfloat16 at 36.3% MFU, the most a step of ours has reached there (smaller widths reach less);
# a small model's step at most 7.3 ms: the default run's 500 steps took 19.1 s of training, the
# same run's 50 under torchrun 15.8 (the 450 more steps, and 9 more evaluations, 3.3 s); a run's
# start, compilation included, 16 s (those 50 steps' 15.8 s, nearly all of it compiling)
RATE_FLOPS = 0.363 * PEAK_FLOPS['H200']
STEP_S, START_S = 0.0073, 16.0
# train.py processes of a protocol at once: 16 CPU cores, one to launch each process's kernels
PROCESSES = 8
# --dry's default run: a CPU reads, draws and evaluates 100,000 strings in seconds; 2,000 in less
DRY_DEFAULT = dict(n_train=2000, eval_examples=256)
# a protocol's limit: its upper prediction and a fifth more; with --dry, a shared CPU's for the
# one protocol that runs (about 20 s alone: the flow is the same for each, and each's --smoke has a
# test of its own)
MARGIN, DRY_PART_S, DRY_PROTOCOL = 1.2, 120, 'memorization_capacity'
# the protocols (name, flags, which of its claims' quantities it measures): the whole full
# protocol, or Table 1's k-hop alone without its search: at Table 8's setting (learning rate 1e-4),
# the paper's own at width 512 (the regime searches nothing either; its 3e-3 is width 64's)
PROTOCOLS = [
    ('memorization_capacity', [], lambda q: True),
    ('universal_dimension', [], lambda q: True),
    ('induction', ['--tasks=khop', '--no-search'], lambda q: q.startswith('k-hop')),
]


def claims_decided(name, measures):
    """The claims of `name`'s full protocol whose every quantity the part measures."""
    declared = common.experiment_module(name).CLAIMS
    declared = declared['full'] if isinstance(declared, dict) else declared
    return [c['says'] for c in declared if all(measures(q) for q in c['of'])]


def planned_runs(protocols, mode, scratch):
    """{name: the train.py keys of each run of its protocol in `mode`}, for (name, flags) of
    `protocols`: their --plan, side by side (nothing trained)."""
    out = Path(scratch) / 'plan'
    done = common.run_processes(
        {
            name: [sys.executable, str(common.experiment_path(name)), '--plan']
            + [f'--out_dir={out}', *flags, *([f'--{mode}'] if mode != 'full' else [])]
            for name, flags in protocols
        },
        timeout=120,
        cwd=common.ROOT,
    )
    for name, proc in done.items():
        if proc.returncode:
            raise ConfigError(f'{name} --plan failed: {proc.stdout.strip()[-300:]}')
    return {name: json.loads((out / f'{name}-plan.json').read_text())['runs'] for name in done}


def predict(runs):
    """-> (lower, upper) seconds of a protocol's runs on the GPU: its FLOPs at RATE_FLOPS and one
    start; or its steps at STEP_S and each run's start, shared by PROCESSES, where that is more."""
    costs = [common.cost(keys) for keys in runs]
    flops = sum(c['flops'] for c in costs) / RATE_FLOPS
    steps = sum(c['steps'] * STEP_S + START_S for c in costs) / min(PROCESSES, len(costs))
    return flops + START_S, max(flops + math.ceil(len(costs) / PROCESSES) * START_S, steps)


def plan(scratch, dry):
    """-> the protocol parts in order of claims decided per predicted minute (the upper bound),
    each a dict: name, flags, runs, claims, lower and upper seconds, and its limit: its upper
    bound with MARGIN where that fits what is left, else what is left where its lower bound fits,
    else 0 (skipped)."""
    flags = {name: flags if dry else [*flags, '--dtype=bfloat16'] for name, flags, _ in PROTOCOLS}
    runs = planned_runs(flags.items(), 'smoke' if dry else 'full', scratch)
    parts = []
    for name, _, measures in PROTOCOLS:
        lower, upper = predict(runs[name])
        says = claims_decided(name, measures)
        parts.append(
            dict(
                name=name, flags=flags[name], runs=runs[name], claims=says, lower=lower, upper=upper
            )
        )
    parts.sort(key=lambda p: len(p['claims']) / p['upper'], reverse=True)
    left = BUDGET_S - OWN_S - CHECK_S - NANOGPT_S
    for p in parts:
        if dry:  # a CPU's pace, not the GPU's prediction; one protocol runs the whole flow
            p['limit'] = DRY_PART_S if p['name'] == DRY_PROTOCOL else 0
        elif p['upper'] * MARGIN <= left:
            p['limit'] = round(p['upper'] * MARGIN)
        else:
            p['limit'] = round(left) if p['lower'] <= left else 0
        left -= p['limit']
    return parts


def plan_table(parts):
    """The plan as a table: the fixed parts, then each protocol's runs, prediction, limit and
    claims."""
    columns = ['part', 'runs', 'predicted', 'limit', 'claims decided', 'claims per minute']
    rows = [dict(part='check', limit=f'{CHECK_S} s'), dict(part='nanogpt', limit=f'{NANOGPT_S} s')]
    rows += [
        {
            'part': ' '.join([p['name'], *p['flags']]),
            'runs': len(p['runs']),
            'predicted': f'{p["lower"]:.0f}-{p["upper"]:.0f} s',
            'limit': f'{p["limit"]} s' if p['limit'] else 'skipped: does not fit',
            'claims decided': len(p['claims']),
            'claims per minute': f'{len(p["claims"]) / (p["upper"] / 60):.2f}',
        }
        for p in parts
    ]
    return common.markdown(columns, [{c: r.get(c, '') for c in columns} for r in rows])


def variant_steps(dry):
    """One training step of each variant at a small size (bfloat16 autocast on CUDA) -> {variant:
    its loss}."""
    device, shape = (
        'cpu' if dry else 'cuda',
        dict(n_layer=2, n_head=2, block_size=16, vocab_size=16),
    )
    losses = {}
    for variant, keys in VARIANTS.items():
        # a universal backbone's width is its construction's (Thm 3.1): one-hot tokens and positions
        d = shape['vocab_size'] + shape['block_size']
        width = universal_dim(2, 2, d, 4) if keys.get('universal') else 64
        c = GPTConfig(**shape, n_embd=width, **keys)
        model = GPT(c).to(device)
        optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.95), device)
        x = torch.randint(16, (4, 16), device=device)
        with torch.autocast(device, torch.bfloat16, enabled=not dry):
            loss = model(x, x)[1]
        loss.backward()
        optimizer.step()
        losses[variant] = round(loss.item(), 4)
    return losses


def check_commands(scratch, dry):
    """The check's three processes: the default run, a step of each variant, torchrun."""
    py, device = sys.executable, 'cpu' if dry else 'cuda'
    run = [py, 'train.py', '--progress=False', f'--device={device}']
    run += [f'--{k}={v}' for k, v in DRY_DEFAULT.items()] * dry
    torchrun = [py, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node=1']
    return {
        'default': [*run, f'--out_dir={scratch}/default', f'--max_iters={5 if dry else 200}'],
        'variants': [py, 'experiments/tools/gpu_run.py', str(scratch), '--variants']
        + ['--dry'] * dry,
        'torchrun': [*torchrun, *run[1:], f'--out_dir={scratch}/torchrun']
        + [f'--max_iters={5 if dry else 20}', '--eval_interval=5', '--compile=False'],
    }


def nanogpt_command(dry):
    """nanogpt_step.py at GPT-2 small, compiled, bfloat16 (--dry: its smallest form on a CPU)."""
    cmd = [sys.executable, 'experiments/tools/nanogpt_step.py']
    if dry:
        return [*cmd, '--configs=4x256', '--repeats=1', '--warmup=0']
    return [*cmd, '--configs=gpt2', '--device=cuda', '--compile', '--dtype=bfloat16']


def in_processes(runs, limit, dry):
    """Trains `runs` (train.py keys) as train.py processes, PROCESSES at once (2 with --dry; the
    next starting as one ends), within `limit` seconds in all -> the exit status of each started."""
    for keys in runs:  # each task's data once, before processes that would race to write it
        generate_missing(resolve(keys))
    commands = {
        i: [sys.executable, 'train.py', *(f'--{k}={v}' for k, v in keys.items())]
        for i, keys in enumerate(runs)
    }
    env = {**os.environ, 'OMP_NUM_THREADS': '1'}
    done = common.run_processes(
        commands, limit, at_once=2 if dry else PROCESSES, cwd=common.ROOT, env=env
    )
    return [proc.returncode for proc in done.values()]


def shown(cmd, scratch):
    return ' '.join(map(str, cmd)).replace(sys.executable, 'python').replace(str(scratch), 'TMP')


def summary(part, result):
    """A part's result in one cell: a protocol's runs and verdict, a check's last line."""
    return json.dumps(result) if isinstance(result, dict) else result


def copy_results(runs_dir, out, name, dry):
    """A protocol's results, as its experiment wrote them (full: results/<name>.json and .md;
    --smoke: <name>.json), into OUT_DIR/results/ -> its verdict (None where it wrote none)."""
    json_path = runs_dir / f'{name}.json' if dry else runs_dir / 'results' / f'{name}.json'
    if not json_path.exists():
        return None
    (out / 'results').mkdir(exist_ok=True)
    for path in (json_path, json_path.with_suffix('.md')):
        if path.exists():
            common.write_text(out / 'results' / path.name, path.read_text())
    return json.loads(json_path.read_text()).get('verdict')  # as its experiment just wrote it


def main():
    parser = synthetic.Parser(__doc__)
    parser.add_argument('out_dir', help='where gpu_run.json, .md, .log and results/ are written')
    parser.add_argument('--plan', action='store_true', help="list the GPU's parts; run nothing")
    parser.add_argument('--dry', action='store_true', help='the CPU version (default without CUDA)')
    parser.add_argument('--variants', action='store_true', help=argparse.SUPPRESS)  # a process
    args = parser.parse_args()
    common.command_line_process()
    if args.plan and args.dry:  # the plan is the GPU's: a dry run would be dropped without a word
        parser.error(
            "--plan lists the GPU's parts and --dry runs them on the CPU: give one of them"
        )
    dry = args.dry or not torch.cuda.is_available()
    if args.variants:
        print(json.dumps(variant_steps(dry)))
        return
    t0 = time.monotonic()
    if args.plan:  # the GPU's, wherever it is computed
        with common.scratch_folder('gpu_run-') as scratch:
            print(f'The plan of a draw, within {BUDGET_S} s:\n\n{plan_table(plan(scratch, False))}')
        return
    files = [f'gpu_run.{e}' for e in ('json', 'md', 'log')]
    out = common.tool_folder(parser, args.out_dir, files, dry)
    command = 'python experiments/tools/gpu_run.py ' + ' '.join(sys.argv[1:])
    device = common.device_name('cpu' if dry else 'cuda')
    head = f'# GPU draw: {device}\n\n`{command}`, {date.today()}, torch {torch.__version__}'
    head += ', dry (the CPU version)' if dry else ''
    with common.scratch_folder('gpu_run-') as scratch:
        protocols = plan(scratch, dry)
        table = plan_table(protocols)
        print(f'{head}\n\n{table}', flush=True)
        info = dict(command=command, device=device, torch=torch.__version__, dry=dry)
        info['date'] = str(date.today())
        draw = common.Parts(out, 'gpu_run', head, info, summary, ['The plan:', '', table, ''])
        # the check: its three processes at once, on the default run's data made first (two of
        # them would race to write it)
        start = time.monotonic()
        generate_missing(resolve(DRY_DEFAULT if dry else {}))
        checks = check_commands(scratch, dry)
        for name, proc in common.run_processes(checks, CHECK_S, cwd=common.ROOT).items():
            last = (proc.stdout.strip().splitlines() or [''])[-1]
            draw.record(
                f'check: {name}',
                shown(checks[name], scratch),
                CHECK_S,
                time.monotonic() - start,
                proc.returncode,
                last,
                proc.stdout,
            )
        # nanoGPT's step beside ours: a timing, the GPU doing nothing else
        cmd, start = nanogpt_command(dry), time.monotonic()
        proc = common.run_process(
            cmd, capture_output=True, text=True, timeout=NANOGPT_S, cwd=common.ROOT
        )
        rows = [  # config, shape, ours ms, reference ms, the ratio: one line of the table
            [cell.strip() for cell in line.strip('|').split('|')]
            for line in proc.stdout.splitlines()
            if line.startswith(('| 4x256', '| gpt2'))
        ]
        ratio = rows[-1] if rows else None
        draw.record(
            'nanogpt',
            shown(cmd, scratch),
            NANOGPT_S,
            time.monotonic() - start,
            proc.returncode,
            f'{ratio[0]}: ours {ratio[2]} ms, nanoGPT {ratio[3]} ms; ours / nanoGPT {ratio[4]}'
            if ratio
            else '',
            proc.stdout + proc.stderr,
        )
        # the protocols: each's runs side by side, then the experiment, which reads them
        for p in [p for p in protocols if p['limit']]:
            start = time.monotonic()
            runs_dir = Path(scratch) / 'runs'
            runs = [{**keys, 'out_dir': str(runs_dir / p['name'])} for keys in p['runs']]
            codes = in_processes(runs, p['limit'] * 0.9, dry)
            cmd = [sys.executable, str(common.experiment_path(p['name'])), '--reuse']
            cmd += [f'--out_dir={runs_dir}', *p['flags'], *['--smoke'] * dry]
            left = max(1.0, p['limit'] - (time.monotonic() - start))
            proc = common.run_process(
                cmd, capture_output=True, text=True, timeout=left, cwd=common.ROOT
            )
            verdict = copy_results(runs_dir, out, p['name'], dry)
            draw.record(
                p['name'],
                shown(cmd, scratch),
                p['limit'],
                time.monotonic() - start,
                proc.returncode,
                dict(runs=len(runs), finished=codes.count(0), verdict=verdict),
                proc.stdout + proc.stderr,
            )
    print(f'wrote {out}/gpu_run.json, .md, .log and results/ in {time.monotonic() - t0:.0f} s')
    if draw.failed():
        sys.exit(1)


if __name__ == '__main__':
    main()

"""
What every experiment shares: its command line (the paper's protocol by default, --quick for a CPU, --smoke
for the tests), where task data and runs go, training through train.py, and the report: a markdown table of
our numbers beside the paper's, printed, written as JSON under out/ and, for full and quick runs, to
experiments/results/<name>[-quick].md with the command, date, device and wall time. Each experiment keeps its
protocol in plain sight in one PROTOCOL = {'full': ..., 'quick': ..., 'smoke': ...}; run() adds to a run
nothing but where it is written.
"""
import argparse
import csv
import datetime
import glob
import itertools
import json
import math
import os
import platform
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from data import corpus, synthetic  # noqa: E402
from data.loader import load_data, task_data  # noqa: E402
from model import MixiT  # noqa: E402
from train import DEFAULTS, resolve, train  # noqa: E402


def parse_args(doc, add=None, argv=None, compare=False):
    """-> args with .mode in {'full', 'quick', 'smoke'}; `add(parser)` adds the experiment's own flags; `compare`
    the flags of a comparison of variants, --search and --seeds (see `fair`)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if compare:
        parser.add_argument('--search', action=argparse.BooleanOptionalAction, default=None,
                            help="grid-search each variant's settings on a validation split (default: on, off in "
                            '--smoke); --no-search runs the protocol\'s own settings')
        parser.add_argument('--seeds', type=int, default=None, help='seeds of each chosen setting (default 3, 1 in '
                            '--smoke); each seeds the weights, the fixed random matrices, the batches and the '
                            "task's draw")
    parser.add_argument('--quick', action='store_true', help='the reduced protocol: minutes on a 2-core CPU')
    parser.add_argument('--smoke', action='store_true', help='a few steps of everything: checks that the file runs')
    parser.add_argument('--out_dir', default=str(ROOT / 'out'), help='runs go to OUT_DIR/<name>/, the JSON beside')
    parser.add_argument('--data_dir', default='', help="the root that replaces data/: each task's files go to "
                        "DATA_DIR/<task>/[<settings>]/, laid out as under data/; '' = data/ (default)")
    parser.add_argument('--device', default='auto', help="'auto', 'cpu', 'cuda', ...")
    if add:
        add(parser)
    args = parser.parse_args(argv)
    args.mode = 'smoke' if args.smoke else 'quick' if args.quick else 'full'
    if compare:
        args.search = args.mode != 'smoke' if args.search is None else args.search
        args.seeds = (1 if args.mode == 'smoke' else 3) if args.seeds is None else args.seeds
        if args.seeds < 1:
            parser.error(f'--seeds={args.seeds}: give at least 1')
    args.t0 = time.time()
    return args


def data_root(args):
    """The folder that holds every task's files: --data_dir, else data/."""
    return Path(args.data_dir) if args.data_dir else synthetic.DATA_ROOT


def task_dir(args, **config):
    """The task files of a run (train.py keys) under the data root, where train.py puts them under data/."""
    module, settings, _ = task_data(resolve(config))
    return synthetic.task_dir(config['task'], settings, module.DEFAULTS, root=data_root(args))


def task_files(args, **config):
    """load_data of a run's task (meta, train, held-out, T) from its files under the data root, made if missing."""
    where = {'data_dir': str(task_dir(args, **config))} if args.data_dir and 'data_dir' not in config else {}
    return load_data(resolve({**config, **where}))


def example_length(args, **config):
    """T, the length of the examples of a synthetic task's run."""
    return task_files(args, **config)[3]


def run(args, name, **config):
    """Trains one run of experiment `name` and returns its metrics. `config` holds train.py's keys, all those
    the run changes from train.py's DEFAULTS. The run is written to OUT_DIR/<name>/, in the folder train.py
    names after its config (one per setting); its task files are under the data root (task_dir)."""
    if args.data_dir and 'data_dir' not in config:
        config['data_dir'] = str(task_dir(args, **config))
    return train({**config, 'device': args.device, 'progress': args.mode != 'smoke',
                  'out_dir': str(Path(args.out_dir) / name)})


def command(args, config):
    """The train.py command line of a run, to run it through torchrun on several GPUs instead."""
    where = {'data_dir': str(task_dir(args, **config))} if args.data_dir and 'data_dir' not in config else {}
    return 'python train.py ' + ' '.join(f'--{k}={shlex.quote(str(v))}' for k, v in {**config, **where}.items())


def batch_keys(args, batch):
    """train.py's keys for `batch` sequences a step: in the full protocol micro-batches of --micro_batch and
    gradient accumulation, so that the paper's batch fits one GPU."""
    micro = args.micro_batch if args.mode == 'full' else batch
    if batch % micro:
        sys.exit(f'error: --micro_batch={micro} must divide the batch of {batch}')
    return dict(batch_size=micro, gradient_accumulation_steps=batch // micro)


def corpus_dirs(args, tasks, otherwise):
    """-> the prepared folder of each corpus under the data root; a missing one stops the experiment at once,
    before anything trains, with the prepare command of each missing corpus and `otherwise`."""
    dirs = [task_dir(args, task=task) for task in tasks]
    missing = [(task, d) for task, d in zip(tasks, dirs) if not (d / 'meta.json').exists()]
    if missing:
        steps = '\n'.join(f"    python data/{task}/prepare.py{f' --out_dir={d}' if args.data_dir else ''}"
                          f'   (or add --input=LOCAL_FILES)' for task, d in missing)
        sys.exit(f'error: no prepared data in {", ".join(str(d) for _, d in missing)}. Prepare it first (README, '
                 f'"Text corpora"), or {otherwise}:\n{steps}')
    return dirs


def device_name(device='auto'):
    if device in ('auto', 'cuda') and torch.cuda.is_available() or device.startswith('cuda'):
        return torch.cuda.get_device_name()
    return f'CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores, {torch.get_num_threads()} threads)'


def pct(x):
    return f'{100 * x:.2f}%'


def markdown(columns, rows):
    lines = ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    lines += ['| ' + ' | '.join(str(row.get(c, '')) for c in columns) + ' |' for row in rows]
    return '\n'.join(lines)


def results_path(args, name, ext):
    """experiments/results/<name>[-quick].<ext>, where full and quick runs are committed; None for --smoke."""
    if args.mode == 'smoke':
        return None
    return ROOT / 'experiments' / 'results' / f"{name}{'' if args.mode == 'full' else '-' + args.mode}.{ext}"


def save_figure(args, name, fig, dpi=120):
    """Writes a matplotlib figure to OUT_DIR/<name>.png and, for full and quick runs, beside the results
    (results_path), then closes it. -> the paths written."""
    import matplotlib.pyplot as plt
    paths = [Path(args.out_dir) / f'{name}.png', results_path(args, name, 'png')]
    paths = [p for p in paths if p is not None]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return paths


def report(args, name, title, columns, rows, notes='', extra=None, fairs=None, fmt=pct):
    """Prints the table and writes OUT_DIR/<name>.json and, except for --smoke, experiments/results/. `fairs`, the
    results of fair per label of a comparison: their search_notes (scores through fmt) end the notes, and the grid,
    the chosen point and each seed's metrics go to the JSON."""
    if fairs is not None:
        notes += '\n\n' + search_notes(args, fairs, fmt)
        extra = {**(extra or {}), 'fair': {label: dict(grid=[dict(point=p, validation=v) for p, v in f['grid']],
                                                       chosen=f['chosen'], seeds=f['runs'])
                                           for label, f in fairs.items()}}
    wall = time.time() - args.t0
    threads = [f'OMP_NUM_THREADS={os.environ["OMP_NUM_THREADS"]}'] if 'OMP_NUM_THREADS' in os.environ else []
    command = ' '.join(threads + ['python', f'experiments/{name}.py'] + sys.argv[1:])
    info = dict(name=name, title=title, mode=args.mode, command=command, device=device_name(args.device),
                date=datetime.date.today().isoformat(), wall_s=round(wall, 1))
    table = markdown(columns, rows)
    print(f'\n## {title}\n\n{table}\n')
    if notes:
        print(notes)
    out = Path(args.out_dir) / f'{name}.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**info, 'columns': columns, 'rows': rows, **(extra or {})}, indent=2) + '\n')
    md = results_path(args, name, 'md')
    if md is not None:
        md.write_text(f'# {title}\n\n- command: `{command}`\n- date: {info["date"]}\n- device: {info["device"]}\n'
                      f'- wall time: {wall / 60:.1f} min\n\n{table}\n' + (f'\n{notes}\n' if notes else ''))
        print(f'wrote {out} and {md}')


def yelp_data(args):
    """-> the train.py keys of the Yelp runs: none in full (the corpus under the data root; stops at once when it is
    missing), for --smoke a tiny byte-level CSV made in <data root>/yelp/smoke/, so that the tests run Yelp too."""
    if args.mode == 'full':
        corpus_dirs(args, ['yelp'], 'run the script with --quick (which skips Yelp)')
        return {}
    root = data_root(args) / 'yelp' / 'smoke'
    if not (root / 'bytes' / 'meta.json').exists():
        (root / 'csv').mkdir(parents=True, exist_ok=True)
        for split, n in (('train', 32), ('test', 8)):
            with open(root / 'csv' / f'{split}.csv', 'w', newline='', encoding='utf-8') as f:
                csv.writer(f, quoting=csv.QUOTE_ALL).writerows(
                    (str(1 + i % 2), f'Review {i}: the food was {("awful", "great")[i % 2]}.') for i in range(n))
        corpus.prepare('yelp', {'encoding': 'bytes'}, root / 'csv', root / 'bytes')
    return dict(data_dir=str(root / 'bytes'), encoding='bytes')


LICENSES = '/usr/share/common-licenses'


def license_text(root):
    """Debian's license texts (base-files, on every Debian system), one after another, as one file."""
    files = sorted({os.path.realpath(p) for p in glob.glob(f'{LICENSES}/*') if os.path.isfile(p)})
    if not files:
        sys.exit(f'error: {LICENSES} holds no files: give --text=PATH (any UTF-8 text, e.g. a book)')
    path = root / 'common-licenses.txt'
    text = '\n\n'.join(Path(f).read_text(encoding='utf-8', errors='replace') for f in files)
    if not path.exists() or path.read_text(encoding='utf-8') != text:  # keep its mtime: no needless prepare
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding='utf-8')
    return path


def byte_text(args, name):
    """-> <data root>/text/<name>/<source>, a byte-level 'text' corpus of --text (else Debian's license texts), or
    for --smoke of a few generated lines; prepared only when the source changed."""
    root = data_root(args) / 'text' / name
    if args.mode == 'smoke':
        source = root / 'smoke.txt'
        root.mkdir(parents=True, exist_ok=True)
        source.write_text(''.join(f'Line {i}: the quick brown fox jumps over the lazy dog {i % 7} times.\n'
                                  for i in range(60)))
    else:
        source = Path(args.text) if args.text else license_text(root)
        if not source.exists():
            sys.exit(f'error: --text={args.text} does not exist')
    out = root / source.stem
    meta = out / 'meta.json'
    fresh = (meta.exists() and json.loads(meta.read_text()).get('source') == str(source.resolve())
             and meta.stat().st_mtime > source.stat().st_mtime)
    if not fresh:
        out, info = corpus.prepare('text', {'encoding': 'bytes'}, str(source), str(out))
        print(f"prepared {source} in {out}: {info['tokens']['train']:,} training and {info['tokens']['val']:,} "
              f'held-out bytes')
    return out


# ----------------------------------------------------------------------------- the authors' code
# The MixiT papers' numbers come from the authors' code (github princeton-pli/MixiT), which differs from the papers'
# text (reference.md section 4). A full protocol follows the code, each setting marked in its docstring as "authors'
# code" or "paper text". What every driver of theirs sets, for every variant (their Llama path, modeling_llama.py):
# HF Trainer's AdamW with betas (0.9, 0.999); N(0, 0.02) for every weight, no 1/sqrt(2L) on the residual projections;
# biases on the attention and MLP linears; the schedule decays to 0. (HF's grad clipping at 1.0 is ours too.)
AUTHORS = dict(beta1=0.9, beta2=0.999, min_lr=0.0, scaled_init=False, bias=True)
# MixiT only, their MixiT block (their shaped_attention='mixing'): the LeakyReLU gate with c = activation_cminus = -1,
# residual scaling s = sqrt(0.5), width multipliers at base width 512. Two drivers set it otherwise (below).
MIXIT_BLOCK = dict(shaped_gate=-1.0, skip_scaling=0.5 ** 0.5, base_width=512)
# per driver of theirs: weight decay, warm-up, schedule, data regime, and where its MixiT block differs. Their README's
# commands keep c = -1 (scripts/train.sh and train_classifier.sh pass +1, the former with depth_alpha=1: another MixiT).
DRIVERS = {
    'depth.py': dict(weight_decay=1e-3, warmup_iters=500, lr_schedule='cosine', online=True),  # algorithmic tasks
    'hdmemorize_exp.py': dict(weight_decay=1e-4, warmup_iters=500, lr_schedule='cosine'),  # Table 4
    'modadd_exp.py': dict(weight_decay=1e-3, warmup_iters=50, lr_schedule='cosine'),  # modular addition
    'trainer.py': dict(weight_decay=0.01, lr_schedule='linear'),  # language modeling
    'trainer_classifier.py': dict(weight_decay=0.01, lr_schedule='linear', classify=True),  # Yelp
}
MIXIT_DRIVER = {'trainer.py': dict(skip_scaling=0.5),  # utils.ScriptArguments' default, which trainer.py passes
                'trainer_classifier.py': dict(base_width=1)}  # passes no base_hidden_size: the config's 1.0


def authors(driver, variant, **keys):
    """train.py's keys of a run as the authors' `driver` runs `variant`: AUTHORS, the driver's settings, MixiT's block
    for MixiT, then `keys` (the experiment's own: task, architecture, budget). Their HF trainers warm up over
    max(4% of the steps, 500) (utils.TrainingArguments). driver None: ours, the variant and `keys` alone (train.py's
    defaults for the rest), as the quick protocols run."""
    if driver is None:
        return {'variant': variant, **keys}
    warmup = {'warmup_iters': max(int(0.04 * keys['max_iters']), 500)} if driver.startswith('trainer') and \
        'max_iters' in keys else {}
    mixit = {**MIXIT_BLOCK, **MIXIT_DRIVER.get(driver, {})} if variant == 'mixit' else {}
    return {**AUTHORS, **DRIVERS[driver], **warmup, **mixit, 'variant': variant, **keys}


def plain_mixit(block_size, head_dim):
    """The keys of MixiT as the paper's text writes Eq. 2.3: one std for every head (1/sqrt(m head_dim), the
    authors' GPT-2 path) and no sink head; the mixit variant is their Llama path's (model.MixiT)."""
    return dict(variant='mixit', mixit_sink=False, mixit_std=MixiT.fixed_std(block_size, head_dim))


# ----------------------------------------------------------------------------- fair comparisons
# The paper grid-searches every variant over Table 7's ranges and reports each one's best (Appendix B.1); Table 8 lists
# the values chosen for MixiT only. One setting for all, on one seed, favours the variant it was chosen for and hides
# a spread of 10-30 points between seeds at quick scale. So a comparison here runs, per variant: a grid search, each
# point trained on seed 0 and scored on a validation split drawn from the training distribution (train.py's val_frac:
# the training split's last VAL_FRAC, held out of training; never the reported held-out split), then the chosen
# point re-run on --seeds seeds, reported as mean +- std and min-max.
TABLE7 = {  # Table 7, per task family: the full protocol's grid (keys an experiment pins are left out: `fixed`)
    'algorithmic': dict(n_layer=(2, 4, 8), n_embd=(512, 1024), n_head=(4, 8, 16, 64),
                        learning_rate=(1e-3, 5e-4, 1e-4), batch_size=(128, 256, 512)),
    'retrieval': dict(n_layer=(2, 4, 8), n_embd=(512, 1024), n_head=(4, 8, 16, 64),
                      learning_rate=(1e-3, 5e-4, 1e-4), batch_size=(256, 512, 1024)),
    'k-hop': dict(n_layer=(5,), n_embd=(256, 512, 1024), n_head=(8,), learning_rate=(1e-4, 5e-4),
                  batch_size=(128, 256)),
    'memorization': dict(n_layer=(2, 4, 8), n_embd=(512, 1024), n_head=(4, 8, 16, 64),
                         learning_rate=(1e-3, 5e-4, 1e-4), batch_size=(256, 512, 1024)),
    'yelp': dict(n_layer=(4, 8), n_embd=(512, 1024), n_head=(4, 8, 16, 64), learning_rate=(1e-3, 5e-4, 1e-4),
                 batch_size=(256, 512, 1024)),
    'language_modeling': dict(n_layer=(8, 12), n_embd=(512, 1024), n_head=(4, 8, 16),
                              learning_rate=(1e-3, 5e-4, 1e-4), batch_size=(256, 512, 1024)),
}
# --quick and --smoke: the learning rate alone, at the protocol's and a factor 3 either side (min_lr in proportion):
# three runs per variant, and a factor 3 spans the spread of good learning rates that Table 7 spans (10x).
QUICK_LR = (1 / 3, 1, 3)
VAL_FRAC = 0.1  # a tenth of the training split: enough examples to rank settings, little taken from training


def grid(args, config, family, fixed=()):
    """-> the points (dicts of train.py keys) of a variant's search: Table 7's row of `family` in full, but for the
    keys in `fixed` (those the experiment's claim pins, e.g. Table 4's architecture); three learning rates else;
    min_lr in proportion to the learning rate."""
    lr = config.get('learning_rate', DEFAULTS['learning_rate'])
    floor = config.get('min_lr', DEFAULTS['min_lr']) / lr  # the schedule's floor keeps its ratio to the peak
    if args.mode != 'full':
        return [dict(learning_rate=float(f'{lr * f:.3g}'), min_lr=float(f'{lr * f * floor:.3g}')) for f in QUICK_LR]
    ranges = {k: v for k, v in TABLE7[family].items() if k not in fixed}
    points = [dict(zip(ranges, values)) for values in itertools.product(*ranges.values())]
    points = [{**p, 'min_lr': p['learning_rate'] * floor} if 'learning_rate' in p else p for p in points]
    if 'gradient_accumulation_steps' in config:  # a batch of micro-batches (batch_keys)
        points = [{**p, **batch_keys(args, p.pop('batch_size'))} if 'batch_size' in p else p for p in points]
    return [p for p in points if p.get('n_embd', config.get('n_embd', 1)) % p.get('n_head', config.get('n_head', 1))
            == 0]


def fair(args, name, config, family, fixed=(), key='val_acc', higher=True):
    """The fair comparison of one variant: train.py's keys `config`, searched over grid(...) (with --search) on the
    validation split by metric `key` (higher or lower is better), then the chosen point on --seeds seeds (seed s sets
    train.py's seed and data_seed to s, so both the model's randomness and the task's draw change). A task measured on
    its training set (memorization) has no validation split: there the training-set accuracy, the metric itself,
    selects. A tie goes to the first point (the smallest learning rate in quick).
    -> dict(grid=[(point, validation score)], chosen=point, runs=[metrics of each seed])."""
    on_train = task_files(args, **config)[0]['eval_split'] == 'train'
    done = {}

    def once(keys):  # a run the search and the seeds share (memorization's seed 0) is trained once
        tag = json.dumps(keys, sort_keys=True, default=str)
        done[tag] = done.get(tag) or run(args, name, **keys)
        return done[tag]

    def score(keys):  # a point whose run diverged is the worst, not the end of the experiment
        try:
            return once(keys)[key]
        except FloatingPointError as e:
            print(f'search: {e}; the point scores {"-inf" if higher else "inf"}')
            return -math.inf if higher else math.inf

    points = grid(args, config, family, fixed) if args.search else []
    selection = dict(seed=0, data_seed=0, **({} if on_train else {'val_frac': VAL_FRAC}))
    scored = [(p, score({**config, **p, **selection})) for p in points]
    chosen = (max if higher else min)(scored, key=lambda ps: ps[1])[0] if scored else {}  # a tie: the first point
    runs = [once({**config, **chosen, 'seed': s, 'data_seed': s}) for s in range(args.seeds)]
    return dict(grid=scored, chosen=chosen, runs=runs)


def fair_sweep(args, name, configs, at, family, fixed=(), key='val_acc', higher=True):
    """fair over a sweep of one variant, configs = {point (a depth, an m_max, ...): train.py's keys}: with `at`, the
    search at that point alone and its chosen keys run on the seeds at every other point (a search per point costs the
    grid's size again per point); at None, fair at every point. -> {point: fair's result}, where a point that was not
    searched has grid [] and the chosen keys it ran."""
    results = {at: fair(args, name, configs[at], family, fixed, key, higher)} if at is not None and args.search else {}
    chosen = results[at]['chosen'] if results else {}
    rest = argparse.Namespace(**{**vars(args), 'search': args.search and not results})
    for point, config in configs.items():
        if point not in results:
            f = fair(rest, name, {**config, **chosen}, family, fixed, key, higher)
            results[point] = {**f, 'chosen': f['chosen'] or chosen}
    return results


def spread(values, fmt=pct):
    """'mean +- std (min-max)' of a metric over seeds, each through fmt; one value alone as it is."""
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return fmt(values[0])
    return f'{fmt(values.mean())} ± {fmt(values.std(ddof=1))} ({fmt(values.min())}–{fmt(values.max())})'


def search_notes(args, fairs, fmt=pct):
    """The section of a report (report's `fairs`) that says, per label of a comparison (fair's results), what was
    searched, what was chosen on the validation split and what the seeds gave: a markdown table."""
    how = (f'Search: per variant, each point on seed 0, scored on a validation split (the last {VAL_FRAC:.0%} of the '
           f'training split, held out of training; memorization: the training set, its metric; min_lr in proportion '
           'to the learning rate). ' if args.search else
           'No search (--no-search): the protocol\'s own settings. ')
    how += f'Seeds: {args.seeds} (seed and data_seed 0..{args.seeds - 1}) of the chosen point, on the reported split.'
    point = lambda p: ', '.join(f'{k}={v:g}' for k, v in p.items() if k != 'min_lr')
    rows = [{'': label, 'grid (validation)': '; '.join(f"{point(p) or 'the protocol'}: {fmt(v)}" for p, v in f['grid'])
             or '-', 'chosen': point(f['chosen']) or "the protocol's", 'seeds': len(f['runs'])}
            for label, f in fairs.items()]
    return how + '\n\n' + markdown(['', 'grid (validation)', 'chosen', 'seeds'], rows)


# The paper's retrieval architecture (Appendix C; Table 8's lr and batch, chosen for MixiT; 5,000 steps: ours), for
# induction.py, induction_heads_map.py and retrieval_vs_length.py, which add m_max. --quick multiplies the softmax
# scale by 1024 / 128 = 8 (to 1) for every softmax variant: RMSNorm fixes the scale of attention's input, so the
# largest logit frozen N(0, 0.02^2) W_Q, W_K can give grows with the width (about n 0.02^2 (sqrt(n) + sqrt(d_h))^2
# / sqrt(d_h): 2 at width 128 with 2 heads, 60 at 1024 with 4), and at width 128 with the default scale Frozen-QK
# stayed at the plateau of copying any value in the context (at m_max 4 and 8, 1 or 2 heads, lr 1e-3 or 3e-3).
RETRIEVAL = {
    'full': dict(vocab=512, n_layer=2, n_embd=1024, n_head=4, learning_rate=1e-4, batch_size=1024, max_iters=5000,
                 eval_interval=1000),  # with authors('depth.py', ...): their optimizer; vocab 512: their task's
    'quick': dict(vocab=64, n_layer=2, n_embd=128, n_head=2, attn_scale=8 / 64 ** 0.5, learning_rate=1e-3,
                  min_lr=1e-4, warmup_iters=50, batch_size=128, max_iters=500, eval_interval=500),
    'smoke': dict(vocab=16, n_train=200, n_test=20, n_layer=2, n_embd=16, n_head=2, learning_rate=1e-3, min_lr=1e-4,
                  warmup_iters=0, batch_size=8, max_iters=4, eval_interval=4),
}


def paper_scale(n_embd, n_head, paper_embd):
    """attn_scale for a softmax model at width n_embd that stands in for the paper's width paper_embd: the paper's
    score statistics at a smaller width. RMSNorm fixes attention's input at |x|^2 = n, so a score q.k / sqrt(d_h) with
    frozen N(0, s^2) W_Q, W_K has std n s^2 whatever the head width: Frozen-QK's scores shrink with the width (std
    0.026 at width 64, 0.2 at 512, from N(0, 0.02^2)) and near-uniform attention is an artefact of a small width.
    Multiplying the scale by paper_embd / n_embd restores the paper's spread of frozen scores; every softmax variant
    gets it, so the comparison stays one architecture."""
    return paper_embd / n_embd / (n_embd // n_head) ** 0.5

# --quick of the retrieval comparisons (induction.py, retrieval_vs_length.py): RETRIEVAL's quick model and lr under
# depth.py's optimizer (its cosine to 0: no min_lr) at a quarter of the examples, so that a variant's 6 runs (fair)
# fit the budget; induction_heads_map.py's single run keeps RETRIEVAL's quick setting
RETRIEVAL_FAIR_QUICK = dict({k: v for k, v in RETRIEVAL['quick'].items() if k != 'min_lr'}, batch_size=64,
                            max_iters=250, warmup_iters=25, eval_interval=250)


def universal_task(task, length, n_test):
    """-> (train.py task keys, vocabulary, sequence length) of 'dyck' (Dyck-1) or 'k-hop' (over 4 letters, fixed k)
    in "Fixed universal transformers". Training is online, so the training split is only generated: kept small."""
    sizes = dict(n_train=100, n_test=n_test)
    if task == 'dyck':
        return dict(task='dyck', format='text', length=length, **sizes), 4, length + 1
    k = int(task.split('-')[0])
    return dict(task='khop', length=length, letters=4, min_hops=k, max_hops=k, **sizes), 4 + 2 + k + 1, length - 1


def majority(settings, n=20_000):
    """The accuracy of always answering the task's most frequent scored target, on fresh draws."""
    keys = {k: v for k, v in settings.items() if k not in ('task', 'n_train', 'n_test')}
    y = synthetic.load_task(settings['task']).generate(np.random.default_rng(0), n, **keys)[1]
    return np.bincount(y[y != -1]).max() / (y != -1).sum()

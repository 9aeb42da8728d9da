"""
What every experiment shares: its command line (the paper's protocol by default, --quick for a CPU,
--smoke for the tests), training runs through train.py, and the report: a markdown table of our
numbers beside the paper's, printed, written as JSON under out/, and (for full and quick runs)
written to experiments/results/<name>[-quick].md with the command, date, device and wall time.
Each experiment file keeps its own protocol (data, models, budget, metric) in plain sight.
"""
import argparse
import csv
import datetime
import glob
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from data import corpus, synthetic  # noqa: E402
from train import DEFAULTS, train  # noqa: E402


def parse_args(doc, add=None, argv=None):
    """-> args with .mode in {'full', 'quick', 'smoke'}; `add(parser)` adds the experiment's own flags."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--quick', action='store_true', help='the reduced protocol: minutes on a 2-core CPU')
    parser.add_argument('--smoke', action='store_true', help='a few steps of everything: checks that the file runs')
    parser.add_argument('--out_dir', default=str(ROOT / 'out'), help='runs go to OUT_DIR/<name>/, the JSON beside')
    parser.add_argument('--data_dir', default='', help="task data under DATA_DIR/<task>/...; '' = data/ (default)")
    parser.add_argument('--device', default='auto', help="'auto', 'cpu', 'cuda', ...")
    if add:
        add(parser)
    args = parser.parse_args(argv)
    args.mode = 'smoke' if args.smoke else 'quick' if args.quick else 'full'
    args.t0 = time.time()
    return args


def run(args, name, **config):
    """Trains one run of experiment `name` (train.py's keys) and returns its metrics. Runs are written to
    OUT_DIR/<name>/<run_name>; with --data_dir, the task's files go there instead of data/."""
    config = {'device': args.device, 'progress': args.mode != 'smoke', **config}
    # the experiments' schedule unless a file sets its own: warm-up for min(100, 10% of the steps), cosine to lr/10
    lr, steps = config.get('learning_rate', DEFAULTS['learning_rate']), config.get('max_iters', DEFAULTS['max_iters'])
    config.setdefault('min_lr', lr / 10)
    config.setdefault('warmup_iters', min(100, steps // 10))
    config.setdefault('run_name', f"{config['task']}-{config.get('variant', 'standard')}")
    config['out_dir'] = str(Path(args.out_dir) / name)
    if args.data_dir and 'data_dir' not in config:
        settings = ','.join(f'{k}={v}' for k, v in sorted(config.items()) if k in TASK_KEYS.get(config['task'], ()))
        config['data_dir'] = str(Path(args.data_dir) / config['task'] / (settings or 'default'))
    return train(config)


def _task_keys():
    from data.synthetic import load_task, tasks
    return {t: set(load_task(t).DEFAULTS) | {'data_seed'} for t in tasks()}


TASK_KEYS = _task_keys()


def device_name(device='auto'):
    if device in ('auto', 'cuda') and torch.cuda.is_available() or device.startswith('cuda'):
        return torch.cuda.get_device_name()
    return f'CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores, {torch.get_num_threads()} threads)'


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


def report(args, name, title, columns, rows, notes='', extra=None):
    """Prints the table and writes OUT_DIR/<name>.json and, except for --smoke, experiments/results/."""
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
    return info


YELP_DIR = synthetic.task_dir('yelp', {'encoding': 'gpt2'}, {'encoding': 'gpt2'})  # what data/yelp/prepare.py writes


def yelp_data(args):
    """-> (data_dir, train keys) of the Yelp run: the prepared corpus for a full run (stops with the fix
    when it is missing), a tiny byte-level CSV prepared on the spot for --smoke, so that the Yelp path
    of the file runs in the tests too."""
    if args.mode == 'full':
        if not (YELP_DIR / 'meta.json').exists():
            sys.exit(f'{YELP_DIR} holds no prepared Yelp data: run python data/yelp/prepare.py first '
                     f'(or python data/yelp/prepare.py --input=yelp_review_polarity_csv/ with local CSVs)')
        return dict(data_dir=str(YELP_DIR))
    root = Path(args.data_dir or args.out_dir) / 'yelp-smoke'
    if not (root / 'prepared' / 'meta.json').exists():
        (root / 'csv').mkdir(parents=True, exist_ok=True)
        for split, n in (('train', 32), ('test', 8)):
            with open(root / 'csv' / f'{split}.csv', 'w', newline='', encoding='utf-8') as f:
                csv.writer(f, quoting=csv.QUOTE_ALL).writerows(
                    (str(1 + i % 2), f'Review {i}: the food was {("awful", "great")[i % 2]}.') for i in range(n))
        corpus.prepare('yelp', {'encoding': 'bytes'}, root / 'csv', root / 'prepared')
    return dict(data_dir=str(root / 'prepared'), encoding='bytes')


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
    """-> the data directory of a byte-level 'text' corpus for experiment `name`: --text (else Debian's
    license texts) for --quick, a few generated lines for --smoke; prepared only when the source changed."""
    root = Path(args.data_dir or ROOT / 'data') / 'text' / name
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


def pct(x):
    return f'{100 * x:.2f}%'

"""
Compares finished (or running) train.py runs: their log.jsonl curves in one PNG and their final
metrics in a markdown table. A tool, not a reproduction: it trains nothing and has no PROTOCOL.

    python experiments/tools/compare_runs.py out/dyck-standard-1a2b3c4d out/dyck-mixit-5e6f7a8b
    python experiments/tools/compare_runs.py 'out/dyck-*' --out=out/dyck.png  # a glob, if quoted
    python experiments/tools/compare_runs.py out/retrieval_vs_length  # a folder of run folders

Each run is labelled by the config.json keys that differ between the runs compared ('variant=mixit,
seed=1'), else by its folder name. The figure (default out/compare_runs.png) has 2x2 panels:
held-out loss and accuracy, against steps and against tokens trained on (a log written before
train.py recorded tokens is drawn against steps only). The table (stdout) has one row per run, in
the order given: the last
evaluation's step, tokens, val_loss, val_acc, val_exact and the wall time (elapsed_s of the last
line, plus that before each resumption: a resumed run restarts the clock). A folder without
log.jsonl, an empty log or a malformed line stops it with one line `error: ...` and exit code 2, and
so does a log.jsonl or config.json that is a symbolic link (checkpoint.read_log and read_config:
train.py writes none, and a link reaches any file on the machine) or not a regular file (a FIFO
would block). A path that exists is used as given (a folder named run[1]); one that does not, as a
glob.
"""

import glob
import json
import math
import os
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use('Agg')  # files only: no display on a server
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import EngFormatter, PercentFormatter  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from checkpoint import is_run, read_config, read_log  # noqa: E402
from data import synthetic  # noqa: E402
from data.synthetic import ConfigError, Parser, atomic_write, cannot_write  # noqa: E402
from experiments.harness import common  # noqa: E402
from configurator import DEFAULTS, NOT_NAMED  # noqa: E402

COLUMNS = ['run', 'step', 'tokens', 'val_loss', 'val_acc', 'val_exact', 'wall_s']


def run_dirs(paths):
    """Arguments -> run folders in the order given: a run folder (holds log.jsonl or config.json), a
    glob, or a folder of run folders (sorted by name). A glob's non-folders are skipped: out/* also
    matches the JSON reports."""
    found = []
    for arg in map(os.path.expanduser, paths):  # '~/out' as a shell expands it
        pattern = glob.has_magic(arg) and not os.path.lexists(arg)  # an existing path as given
        matches = sorted(glob.glob(arg)) if pattern else [arg]
        if pattern and not matches:
            raise ConfigError(
                f"'{arg}' matches nothing: give run folders written by train.py (out/<run>/)"
            )
        for p in map(Path, matches):
            if pattern and not p.is_dir():
                continue
            if p.is_file() and p.name in ('log.jsonl', 'config.json'):
                p = p.parent
            if not p.is_dir():
                raise ConfigError(
                    f'{p} is not a folder: give run folders written by train.py (out/<run>/)'
                )
            children = (
                [] if is_run(p) else sorted(d for d in p.iterdir() if d.is_dir() and is_run(d))
            )
            if not is_run(p) and not children:
                raise ConfigError(
                    f'{p} has no log.jsonl and no run folders holding one: give the folders that '
                    f'train.py wrote (out_dir/<run_name>/)'
                )
            found += children or [p]
    unique = list(dict.fromkeys(d.resolve() for d in found))  # a run given twice is drawn once
    if not unique:
        raise ConfigError('no run folders found: give run folders written by train.py (out/<run>/)')
    return [next(d for d in found if d.resolve() == u) for u in unique]


def wall_time(log):
    """elapsed_s of the last line; a resumed run restarts that clock, so the time before each
    restart is added."""
    times = [line['elapsed_s'] for line in log if isinstance(line.get('elapsed_s'), (int, float))]
    return sum(a for a, b in zip(times, times[1:]) if b < a) + times[-1] if times else None


def labels(run_dirs, configs):
    """'key=value, ...' of the config keys whose values differ between the runs ('-': a key the
    run's config lacks), else the folder names; the folder name is added where two runs would get
    the same label."""
    # where, not what
    keys = list(dict.fromkeys(k for c in configs for k in c if k not in NOT_NAMED))

    # a config written before train.py had a key ran with its default; a model key is written only
    # when given
    def value(c, k):
        return json.dumps(c[k] if k in c else DEFAULTS.get(k, '<absent>'), sort_keys=True)

    differ = [k for k in keys if len({value(c, k) for c in configs}) > 1]
    names = [
        ', '.join(f'{k}={c.get(k, "-")}' for k in differ) or d.name
        for c, d in zip(configs, run_dirs)
    ]
    return [f'{n} ({d.name})' if names.count(n) > 1 else n for n, d in zip(names, run_dirs)]


FORMATS = {'int': '{:,}', 'loss': '{:.4g}', 'pct': '{:.2%}', 'time': '{:.1f}'}


def fmt(value, kind):
    """A number as the table shows it; '' for a value the log lacks (or NaN)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return ''
    return FORMATS[kind].format(value)


def table(runs):
    rows = [
        dict(
            run=r['label'],
            step=fmt(r['log'][-1]['step'], 'int'),
            tokens=fmt(r['log'][-1].get('tokens'), 'int'),
            val_loss=fmt(r['log'][-1].get('val_loss'), 'loss'),
            val_acc=fmt(r['log'][-1].get('val_acc'), 'pct'),
            val_exact=fmt(r['log'][-1].get('val_exact'), 'pct'),
            wall_s=fmt(wall_time(r['log']), 'time'),
        )
        for r in runs
    ]
    return common.markdown(COLUMNS, rows)


# each axis's label, its unit in parentheses: train.py's val_loss (the mean cross-entropy, natural
# log) and val_acc, per scored token of the held-out split
AXES = {
    'val_loss': 'held-out loss (nats per token)',
    'val_acc': 'held-out accuracy (%)',
    'step': 'training steps (optimizer updates)',
    'tokens': 'tokens trained on (k: thousand, M: million)',
}


def figure(runs, title):
    """The 2x2 panels and, below them, one legend of every run; the figure grows with the legend, so
    that long labels (runs that differ in many keys) are wrapped and shown whole instead of cut
    off."""
    colors = plt.rcParams['axes.prop_cycle'].by_key()['color']
    styles = [
        dict(color=colors[i % len(colors)], linestyle='-' if i < len(colors) else '--')
        for i in range(len(runs))
    ]
    names = [textwrap.fill(r['label'], 100) for r in runs]
    ncol = 1 if max(map(len, names)) > 55 else min(len(runs), 2 if max(map(len, names)) > 35 else 3)
    rows = [names[i : i + ncol] for i in range(0, len(names), ncol)]
    # inches: ~0.25 a line
    legend_in = 0.25 * sum(max(n.count('\n') + 1 for n in row) for row in rows) + 0.2
    fig, axes = plt.subplots(2, 2, figsize=(12, 8 + legend_in))
    panels = [
        ('val_loss', 'step'),
        ('val_loss', 'tokens'),
        ('val_acc', 'step'),
        ('val_acc', 'tokens'),
    ]
    for ax, (y, x) in zip(axes.flat, panels):
        values = []
        for r, style in zip(runs, styles):
            points = [
                (line[x], line[y])
                for line in r['log']
                if isinstance(line.get(x), (int, float)) and isinstance(line.get(y), (int, float))
            ]
            if points:
                ax.plot(*zip(*points), marker='o', markersize=3, linewidth=1.5, **style)
                values += [v for _, v in points]
        if not values:
            ax.text(
                0.5,
                0.5,
                f'no run logs {y} against {x}',
                ha='center',
                va='center',
                transform=ax.transAxes,
            )
        elif y == 'val_loss' and min(values) > 0:  # a log scale shows the late, small improvements
            ax.set_yscale('log')
        if y == 'val_acc':
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        if x == 'tokens':
            ax.xaxis.set_major_formatter(EngFormatter(sep=''))  # 400k, 1.2M: no offset text to read
        log = ax.get_yscale() == 'log'
        ax.set_ylabel(AXES[y][:-1] + ', log scale)' if log else AXES[y])
        ax.set_xlabel(AXES[x])
        ax.grid(True, which='major', alpha=0.3)
    handles = [Line2D([], [], marker='o', markersize=3, linewidth=1.5, **style) for style in styles]
    fig.legend(handles, names, loc='lower center', ncol=ncol, frameon=False, fontsize=11)
    fig.suptitle(title, fontsize=13)
    fig.tight_layout(rect=(0, legend_in / (8 + legend_in), 1, 1))
    return fig


def main(argv=None):
    parser = Parser(__doc__)
    parser.add_argument('runs', nargs='+', help='run folders, globs or folders of run folders')
    parser.add_argument(
        '--out',
        default=str(common.ROOT / 'out' / 'compare_runs.png'),
        help='the figure to write: .png, .pdf, .svg, ...',
    )
    args = parser.parse_args(argv)
    out = Path(os.path.expanduser(args.out))  # '~/x.png' as a shell expands it
    try:  # --out first: nothing is read for a figure that cannot be written
        common.check_writable(out, 'set --out to a file in a folder you can write')
        dirs = run_dirs(args.runs)
        runs = [dict(dir=d, config=read_config(d), log=read_log(d)) for d in dirs]
    except ConfigError as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    for r, label in zip(runs, labels(dirs, [r['config'] for r in runs])):
        r['label'] = label
    # a list, not a set: a damaged config's task may be one
    tasks = [r['config'].get('task') for r in runs]
    task = (
        f': task={tasks[0]}'
        if isinstance(tasks[0], str) and tasks.count(tasks[0]) == len(tasks)
        else ''
    )
    fig = figure(runs, f'{len(runs)} run{"s" * (len(runs) > 1)}{task}')
    # the temporary name ends in .tmpPID: the format is said, from the name asked for
    kind = out.suffix[1:].lower()
    if kind not in fig.canvas.get_supported_filetypes():
        print(
            f'error: --out={out}: name a file ending in one of '
            f'.{", .".join(fig.canvas.get_supported_filetypes())}',
            file=sys.stderr,
        )
        return 2
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, lambda tmp: fig.savefig(tmp, dpi=120, format=kind))
    except OSError as e:
        print(f'error: {cannot_write(out.parent, e, "--out")}', file=sys.stderr)
        return 2
    plt.close(fig)
    print(table(runs))
    for r in runs:
        if any('tokens' not in line for line in r['log']):
            print(
                f'note: {r["dir"]}: its log has no tokens (an older train.py): drawn against steps '
                'only'
            )
    print(f'wrote {out}')
    return 0


if __name__ == '__main__':
    synthetic.end_on_signal()  # Ctrl-C: one line, not a traceback
    sys.exit(main())

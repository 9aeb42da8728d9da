"""
Scaling trends. Where a --quick protocol cannot reach the paper's regime in 20 minutes on 2 cores,
the experiment declares a TREND: the same protocol at three sizes along the axis where --quick
departs from the paper (its budget, width, digits, depth or heads), each size a label and the
train.py keys that make it ({} for --quick's own):

    TREND = dict(axis='training steps',
                 sizes={'800': {}, '3,200': dict(max_iters=3_200), '12,800': ...})

`python experiments/tools/trend.py NAME` runs every size as `NAME.py --quick --seeds=1 --no-search
--at=KEY=VALUE ...` (one seed and the protocol's own settings at every size, the quick one included,
so that the sizes differ in nothing else; a search at each would triple the cost; a TREND's 'flags'
replace these), into OUT_DIR/trend/NAME/<i>/, skipping a size already run on this code. It then
writes the trend into experiments/results/NAME-quick.json (the axis, sizes and keys, each size's
values, the code's digest, date and wall time), judges every claim at every size (claims.judge: each
size's outcome and margin, and whether the margin grows toward the paper's claim), rewrites the
claims in NAME-quick.md, and plots each claim's quantities along the axis (NAME-quick-trend.png).
A trend is cited beside the verdict, never makes it.

--diagnose runs an experiment's DIAGNOSIS instead: its --regime protocol moved toward the paper one
axis at a time (heads, width, depth, budget, data size: where it departs), DIAGNOSIS_SEEDS seeds a
point and the protocol's own settings, each axis a dict of sizes as above, the first the regime's
own ({}); 'flags' go to every run (a task of several: --tasks=dyck):

    DIAGNOSIS = dict(flags=['--tasks=dyck'],
                     axes={'heads': {'16': {}, '64': dict(n_head=64)},
                           'width': {'32': {}, '128': dict(n_embd=128)}})

It writes them into experiments/results/NAME-regime.json, where every claim that does not hold
cites, per axis, its outcome and margin at each size and whether moving that axis closes the gap
(claims.diagnosed).
"""

import json
import os
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from data import synthetic
from data.loader import ConfigError
from experiments.harness import claims, common
from experiments.harness.common import ROOT

# every size: one seed, the protocol's own settings (a TREND's 'flags' replace)
FLAGS = ['--seeds=1', '--no-search']
# a diagnosis: two seeds a point, enough to see whether a gap closes (the budget: an hour)
DIAGNOSIS_SEEDS = 2
# what this file reads of a size's results
POINT_NEEDS = ('source', 'values', 'wall_s')


def point_path(name, index, out_dir):  # a size's results, in its own folder
    return Path(out_dir) / 'trend' / name / str(index) / f'{name}.json'


def finished(name, index, keys, out_dir):
    """-> the results of a size already run on this code at these keys, else None; a damaged file is
    bad input (one line)."""
    path = point_path(name, index, out_dir)
    if not path.exists():
        return None
    done = common.read_results(path, POINT_NEEDS, 'delete it to run that size again')
    return done if done['source'] == common.source_digest(name) and done.get('at') == keys else None


def point(name, index, keys, out_dir, flags=FLAGS, mode='quick'):
    """Runs one size of `mode`'s protocol (unless its results are current) -> its results JSON."""
    done = finished(name, index, keys, out_dir)
    if done:
        return done
    path = point_path(name, index, out_dir)
    at = [f'--at={k}={v}' for k, v in keys.items()] or ['--at=']  # --at, even empty: OUT_DIR only
    command = [
        sys.executable,
        str(common.experiment_path(name)),
        f'--{mode}',
        *flags,
        f'--out_dir={path.parent}',
        *at,
    ]
    print(' '.join(command[1:]), flush=True)
    if common.run_process(command).returncode:  # a stop of trend.py ends it too
        raise ConfigError(
            f'{name}.py failed at the size {keys or "of --quick"}: see its output above'
        )
    return common.read_results(path, POINT_NEEDS)


def checked(name, mode, points, out_dir):
    """Before any size runs: the mode's results, which the sizes are added to, are whole (the JSON
    as an experiment writes it, the .md with its claims section) and can be rewritten, and each
    size's results already there are whole and the others can be written. -> the JSON."""
    path, md = (common.results_path(mode, name, ext) for ext in ('json', 'md'))
    if not path.exists():
        raise ConfigError(
            f'no {path}: run python {common.experiment_path(name).relative_to(ROOT)} --{mode} first'
        )
    common.read_results(path, ('name', 'values'))
    if claims.section_of(common.read_text(md) if md.exists() else '') is None:
        raise ConfigError(
            f'{md} has no claims section: rerun python '
            f'{common.experiment_path(name).relative_to(ROOT)} --{mode}'
        )
    for p in (path, md, path.with_name(f'{name}-{mode}-trend.png')):
        common.check_writable(p, 'make the checkout writable')
    for index, keys in points:
        finished(name, index, keys, out_dir)
        common.check_writable(
            point_path(name, index, out_dir), 'set --out_dir to a folder you can write'
        )
    return path


def plot(trend, judged, path):
    """Each claim's quantities (the seeds' mean) at every size, its bound or target dashed; a claim
    measured at no size (a task --quick skips) has no panel."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    judged = [
        c for c in judged if any(q in trend['values'][s] for q in c['of'] for s in trend['sizes'])
    ]
    fig, axes = plt.subplots(1, len(judged), figsize=(4.5 * len(judged), 3.6), squeeze=False)
    for ax, claim in zip(axes[0], judged):
        for q in claim['of']:
            ys = [
                claims.seed_range(trend['values'][s][q])[2] if q in trend['values'][s] else None
                for s in trend['sizes']
            ]
            ax.plot(trend['sizes'], ys, marker='o', label=q)
        for key in ('bound', 'target'):
            if key in claim:
                ax.axhline(claim[key], color='grey', ls='--', lw=1)
        ax.set_title('\n'.join(textwrap.wrap(claim['says'], 60)[:3]), fontsize=7)
        # panels 4.5 in wide: no overlap
        ax.set_xlabel('\n'.join(textwrap.wrap(trend['axis'], 45)), fontsize=8)
        ax.legend(fontsize=6)
    fig.tight_layout()
    synthetic.atomic_write(path, lambda tmp: fig.savefig(tmp, format='png', dpi=120))
    plt.close(fig)


def main(argv=None):
    parser = synthetic.Parser(__doc__)
    parser.add_argument('name', help="an experiment that declares a TREND, e.g. 'depth'")
    parser.add_argument(
        '--out_dir', default=str(ROOT / 'out'), help='the sizes run in OUT_DIR/trend/NAME/'
    )
    parser.add_argument(
        '--diagnose',
        action='store_true',
        help="run the experiment's DIAGNOSIS (its --regime protocol moved toward the paper one "
        'axis at a time) into its regime results',
    )
    args = parser.parse_args(argv)
    # '~/x' as a shell expands it, and the experiments
    args.out_dir = os.path.expanduser(args.out_dir)
    path = common.experiment_path(args.name)  # None: no experiment of that name ('../train')
    module = common.experiment_module(args.name) if path else None
    if args.diagnose:
        return diagnose(args, module)
    if not hasattr(module, 'TREND'):
        raise ConfigError(
            f'{args.name!r} declares no TREND: give one of '
            + ', '.join(
                p.stem
                for p in sorted(common.EXPERIMENTS.glob('*/*.py'), key=lambda p: p.stem)
                if '\nTREND = ' in p.read_text()
            )
        )
    spec, t0 = module.TREND, time.time()
    points = list(enumerate(spec['sizes'].values()))
    quick = checked(args.name, 'quick', points, args.out_dir)
    flags = spec.get('flags', FLAGS)
    runs = [point(args.name, i, keys, args.out_dir, flags) for i, keys in points]
    sizes = list(spec['sizes'])
    trend = dict(
        axis=spec['axis'],
        sizes=sizes,
        keys=spec['sizes'],
        flags=flags,
        values={s: r['values'] for s, r in zip(sizes, runs)},
        source=common.source_digest(args.name),
        date=time.strftime('%Y-%m-%d'),
        wall_s=round(sum(r['wall_s'] for r in runs), 1),
    )
    judged = rewrite(args.name, module, 'quick', trend=trend)
    plot(trend, judged, quick.with_name(f'{args.name}-quick-trend.png'))
    print(
        f'wrote {quick} and the plot; the sizes took {trend["wall_s"] / 60:.1f} min '
        f'({(time.time() - t0) / 60:.1f} min now)'
    )


def rewrite(name, module, mode, **found):
    """Adds `found` (a trend or a diagnosis) to the mode's results, judges every claim again on them
    and rewrites the JSON and the .md's claims section -> the judged claims."""
    path, md = (common.results_path(mode, name, ext) for ext in ('json', 'md'))
    results = {**common.read_results(path), **found}  # whole: checked before the sizes ran
    results = claims.judged(results, claims.of_mode(module.CLAIMS, mode), hasattr(module, 'REGIME'))
    text = common.read_text(md)
    old = claims.section_of(text)
    common.write_text(path, json.dumps(results, indent=1, default=str) + '\n')
    common.write_text(md, text.replace(old, claims.claims_section(results)))
    print(claims.claims_text(results))
    return results['claims']


def diagnose(args, module):
    """--diagnose: each axis of the experiment's DIAGNOSIS, its sizes run from the regime protocol
    on DIAGNOSIS_SEEDS seeds, into its regime results."""
    name = args.name
    if not hasattr(module, 'DIAGNOSIS'):
        raise ConfigError(
            f'{name!r} declares no DIAGNOSIS: give one of '
            + ', '.join(
                p.stem
                for p in sorted(common.EXPERIMENTS.glob('*/*.py'), key=lambda p: p.stem)
                if '\nDIAGNOSIS = ' in p.read_text()
            )
        )
    spec = module.DIAGNOSIS
    # the regime's own point ({}) is one run for every axis
    where = {
        axis: [(f'{axis}/{i}' if keys else 'regime', keys) for i, keys in enumerate(sizes.values())]
        for axis, sizes in spec['axes'].items()
    }
    regime = checked(name, 'regime', sum(where.values(), []), args.out_dir)
    flags = [f'--seeds={DIAGNOSIS_SEEDS}', '--no-search', *spec.get('flags', [])]
    axes = {}
    for axis, sizes in spec['axes'].items():
        runs = [
            point(name, index, keys, args.out_dir, flags, 'regime') for index, keys in where[axis]
        ]
        axes[axis] = dict(
            axis=axis,
            sizes=list(sizes),
            keys=sizes,
            values={s: r['values'] for s, r in zip(sizes, runs)},
            wall_s=round(sum(r['wall_s'] for r in runs), 1),
        )
    diagnosis = dict(
        axes=axes,
        seeds=DIAGNOSIS_SEEDS,
        flags=flags,
        source=common.source_digest(name),
        date=time.strftime('%Y-%m-%d'),
        wall_s=round(sum(a['wall_s'] for a in axes.values()), 1),
    )
    rewrite(name, module, 'regime', diagnosis=diagnosis)
    print(f'wrote the diagnosis into {regime}; it took {diagnosis["wall_s"] / 60:.1f} min')


if __name__ == '__main__':
    common.stop_on_signal()  # Ctrl-C: one line, and the size running ends too
    try:
        main()
    except ConfigError as e:  # bad input: one line, exit status 2
        print(f'error: {e}', file=sys.stderr)
        sys.exit(2)

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
writes the trend into the quick results, NAME-quick.json under OUT_DIR/results/ (where `NAME.py
--quick` wrote them), or with --record under experiments/results/, which the README's tables read
(where `NAME.py --quick --record` did): the axis, sizes and keys, each size's values, the code's
digest, date and wall time. It judges every claim at every size (claims.judge: each size's outcome
and margin, and whether the margin grows toward the paper's claim), rewrites the claims in
NAME-quick.md, and plots each claim's quantities along the axis (NAME-quick-trend.png), all in that
folder. A trend is cited beside the verdict, never makes it.

--plot only draws NAME-quick-trend.png again, from the trend and claims its quick results hold
(experiments/results/ with --record), running nothing.

--diagnose runs an experiment's DIAGNOSIS instead: its --regime protocol moved toward the paper one
axis at a time (heads, width, depth, budget, data size: where it departs), DIAGNOSIS_SEEDS seeds a
point and the protocol's own settings, each axis a dict of sizes as above, the first the regime's
own ({}); 'flags' go to every run (a task of several: --tasks=dyck), and 'flags_of' gives an axis
flags of its own in their place (another task's claim, diagnosed in the same file):

    DIAGNOSIS = dict(flags=['--tasks=addition'],
                     axes={'heads': {'16': {}, '8': dict(n_head=8)},
                           'Dyck-1 heads': {'16': {}, '8': dict(n_head=8)}},
                     flags_of={'Dyck-1 heads': ['--tasks=dyck']})

The regime's own point runs once for every axis of the same flags, or not at all where the regime
run's first seeds are its runs (regime_seeds: same code, nothing searched). --axes=A,B runs only
those axes; the axes diagnosed before on the same code stay (a diagnosis longer than a session, in
parts).
An axis the regime run already spans (mlp_basis_transfer's widths, each claim's quantities named
at each) is 'measured', each size the label its quantities end with, and runs nothing: each claim
is judged at each size on that size's quantities alone, from the regime results of the same code:

    DIAGNOSIS = dict(measured={'width': {'32': 'h=32', '64': 'h=64', '96': 'h=96'}})

It writes them into NAME-regime.json in the same folder (OUT_DIR/results/, experiments/results/
with --record), where every claim that does not hold cites, per axis, its outcome and margin at each
size and whether moving that axis closes the gap (claims.diagnosed).
"""

import json
import os
import re
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from data import synthetic
from data.synthetic import ConfigError
from experiments.harness import claims, common
from experiments.harness.common import ROOT

# every size: one seed, the protocol's own settings (a TREND's 'flags' replace)
FLAGS = ['--seeds=1', '--no-search']
# a diagnosis: a verdict's seeds a point, so that "closes the gap" means every seed of the moved
# point agrees with the paper (claims.along)
DIAGNOSIS_SEEDS = claims.SEEDS
# what this file reads of a size's results
POINT_NEEDS = ('source', 'values', 'wall_s')
# --out_dir's default, the experiments' own
OUT_DIR = str(ROOT / 'out')


def point_path(name, index, out_dir):  # a size's results, in its own folder
    return Path(out_dir) / 'trend' / name / str(index) / f'{name}.json'


def finished(name, index, keys, out_dir, flags=()):
    """-> the results of a size already run on this code at these keys with these flags (its
    command line holds them: a DIAGNOSIS's flags are not in the source digest), else None; a
    damaged file is bad input (one line)."""
    path = point_path(name, index, out_dir)
    if not path.exists():
        return None
    done = common.read_results(path, POINT_NEEDS, 'delete it to run that size again')
    same = done['source'] == common.source_digest(name) and done.get('at') == keys
    return done if same and set(flags) <= set(str(done.get('command', '')).split()) else None


def regime_seeds(results, source):
    """-> whether the regime run's own results give the regime point of a diagnosis: its first
    DIAGNOSIS_SEEDS seeds are the runs the point would train (deterministic), where they come from
    this code, in float32, with no --at, and every variant at the protocol's own settings (no
    search chose anything: the point's --no-search)."""
    fairs = (results.get('fair') or {}).values()
    return (
        results.get('source') == source
        and results.get('dtype', 'float32') == 'float32'
        and not results.get('at')
        and bool(fairs)
        and all(not f['chosen'] and len(f['seeds']) >= DIAGNOSIS_SEEDS for f in fairs)
    )


def options(name):
    """-> the options NAME.py's command line takes, as its --help lists them: a diagnosis passes
    --no-search to a comparison that searches (fair.parse_args) alone, and refuses a DIAGNOSIS
    flag its file does not take before any size runs."""
    out = common.run_process(
        [sys.executable, str(common.experiment_path(name)), '--help'],
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise ConfigError(f'{name}.py --help failed: {out.stderr.strip()[-500:]}')
    return set(re.findall(r'(?<![\w-])--[a-z][\w-]*', out.stdout))


def point(name, index, keys, out_dir, flags=FLAGS, mode='quick'):
    """Runs one size of `mode`'s protocol (unless its results are current) -> its results JSON."""
    done = finished(name, index, keys, out_dir, flags)
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
            f'{name}.py failed at the size {keys or f"of --{mode}"}: see its output above'
        )
    return common.read_results(path, POINT_NEEDS)


def results_hint(args):
    """-> (the flag that names this command's results folder, what makes a file there writable): for
    the commands a message tells the user to run."""
    flag = ' --record' if args.record else f' --out_dir={args.out_dir}' * (args.out_dir != OUT_DIR)
    fix = 'make the checkout writable' if args.record else 'set --out_dir to a folder you can write'
    return flag, fix


def checked(args, mode, points):
    """Before any size runs: the mode's results in common.results_folder (OUT_DIR/results/;
    experiments/results/ with --record), which the sizes are added to, are whole (the JSON as an
    experiment writes it, the .md with its claims section) and can be rewritten, and each size's
    results already there are whole and the others can be written. -> the JSON."""
    name, out_dir = args.name, args.out_dir
    folder = common.results_folder(args)
    path, md = (common.results_path(mode, name, ext, folder) for ext in ('json', 'md'))
    # the experiment's command line that writes the results read here
    flag, fix = results_hint(args)
    run = f'python {common.experiment_path(name).relative_to(ROOT)} --{mode}{flag}'
    if not path.exists():
        raise ConfigError(f'no {path}: run {run} first')
    common.read_results(path, ('name', 'values'))
    claims.section_in(md, common.read_text(md) if md.exists() else '', run)
    for p in (path, md, path.with_name(f'{name}-{mode}-trend.png')):
        common.check_writable(p, fix)
    for index, keys in points:
        finished(name, index, keys, out_dir)
        common.check_writable(
            point_path(name, index, out_dir), 'set --out_dir to a folder you can write'
        )
    return path


def quantity(claim, title=''):
    """A claim's y axis: what its quantities measure, in the claim's own unit (its fmt, as
    claims.judge prints them). 'pct' (the default): a fraction, drawn in percent; in every TREND an
    accuracy per scored token (each experiment's docstring, Metric: held-out, memorization's on the
    training set). Else a number in the quantity's unit, named by the metric its quantities share
    after their task ('random, depth 8: covariance (trained)'), else by the results' title
    ('Table 2: language modeling (log perplexity)'); a loss or log perplexity is train.py's
    cross-entropy, in nats."""
    if claim.get('fmt', 'pct') == 'pct':
        return 'accuracy per scored token (%)'
    shared = {q.rpartition(': ')[2] for q in claim['of'] if ': ' in q}
    name = (
        shared.pop()
        if len(shared) == 1 and len(claim['of']) > 1 and all(': ' in q for q in claim['of'])
        else title[title.rindex('(') + 1 : -1]
        if title.endswith(')') and '(' in title
        else 'value, as in the results table'
    )
    return f'{name} (nats)' if 'loss' in name or 'perplexity' in name else name


def plot(trend, judged, path, title=''):
    """Each claim's quantities (the seeds' mean) at every size, in the claim's unit (quantity()),
    its bound or target dashed and named in the legend, at most 3 panels a row, each legend below
    its panel, off the data; a claim measured at no size (a task --quick skips) has no panel.
    `title`: the results' title (results['title']), above the panels."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.transforms import offset_copy

    judged = [
        c for c in judged if any(q in trend['values'][s] for q in c['of'] for s in trend['sizes'])
    ]
    if not judged:
        raise ConfigError(
            f'no claim is measured at any size of the trend: {path} has nothing to draw'
        )
    cols = min(3, len(judged))
    xlabel = textwrap.wrap(trend['axis'], 50)
    says = [textwrap.wrap(c['says'], 55) for c in judged]  # each panel's title, whole
    heading = textwrap.wrap(
        f'{title}: its claims along {trend["axis"]} (experiments/tools/trend.py)' * bool(title),
        60 * cols,
    )
    # a row's inches: the axes and ticks, its lines of 9 pt (title, axis label) and of the 8 pt
    # legend (its quantities and the bound)
    heights = [
        3.2
        + 0.17 * (max(map(len, says[i : i + cols])) + len(xlabel))
        + 0.18 * max(len(c['of']) + 1 for c in judged[i : i + cols])
        for i in range(0, len(judged), cols)
    ]
    fig, axes = plt.subplots(
        len(heights),
        cols,
        figsize=(4.4 * cols, sum(heights) + 0.2 * len(heading)),
        squeeze=False,
        layout='constrained',
        gridspec_kw=dict(height_ratios=heights),
    )
    for ax, claim, lines in zip(axes.flat, judged, says):
        scale = 100 if claim.get('fmt', 'pct') == 'pct' else 1
        shown = (lambda x: f'{x:.4g}%') if scale == 100 else (lambda x: f'{x:.4g}')
        for q in claim['of']:
            ys = [
                scale * claims.seed_range(trend['values'][s][q])[2]
                if q in trend['values'][s]
                else float('nan')
                for s in trend['sizes']
            ]
            ax.plot(trend['sizes'], ys, marker='o', label=q)
        test = claim.get('test')
        if 'bound' in claim:
            bound = scale * claim['bound']
            side = {'above': 'every seed above ', 'below': 'every seed below '}.get(test, 'bound ')
            ax.axhline(bound, color='grey', ls='--', lw=1, label=side + shown(bound))
        if 'target' in claim:  # 'within': the band the claim needs every seed in
            lo, hi = (scale * (claim['target'] + s * claim.get('tol', 0)) for s in (-1, 1))
            ax.axhline(scale * claim['target'], color='grey', ls='--', lw=1)
            ax.axhspan(
                lo, hi, color='grey', alpha=0.15, label=f'every seed in {shown(lo)} to {shown(hi)}'
            )
        ax.set_title('\n'.join(lines), fontsize=9)
        ax.set_xlabel('\n'.join(xlabel), fontsize=9)
        ax.set_ylabel(quantity(claim, title), fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
        # below the tick labels and the axis label, never over the data
        below = offset_copy(ax.transAxes, fig=fig, y=-(22 + 12 * len(xlabel)), units='points')
        ax.legend(
            loc='upper center',
            bbox_to_anchor=(0.5, 0),
            bbox_transform=below,
            fontsize=8,
            frameon=False,
        )
    for ax in axes.flat[len(judged) :]:  # a last row's empty places
        ax.remove()
    if heading:
        fig.suptitle('\n'.join(heading), fontsize=10)
    synthetic.atomic_write(path, lambda tmp: fig.savefig(tmp, format='png', dpi=120))
    plt.close(fig)
    return fig


def main(argv=None):
    parser = synthetic.Parser(__doc__)
    parser.add_argument('name', help="an experiment that declares a TREND, e.g. 'depth'")
    parser.add_argument(
        '--out_dir',
        default=OUT_DIR,
        help="the sizes run in OUT_DIR/trend/NAME/; the mode's results read and rewritten in "
        'OUT_DIR/results/ (without --record)',
    )
    parser.add_argument(
        '--record',
        action='store_true',
        help="read and rewrite the mode's results in experiments/results/, which the README's "
        'tables read (an experiment run with --record wrote them), not in OUT_DIR/results/',
    )
    parser.add_argument(
        '--plot',
        action='store_true',
        help='only draw NAME-quick-trend.png again, from the trend its quick results hold',
    )
    parser.add_argument(
        '--diagnose',
        action='store_true',
        help="run the experiment's DIAGNOSIS (its --regime protocol moved toward the paper one "
        'axis at a time) into its regime results',
    )
    parser.add_argument(
        '--axes',
        default=None,
        type=synthetic.some_names,
        help="with --diagnose: only these of the DIAGNOSIS's axes, comma-separated; the axes "
        'diagnosed before on the same code stay in the results (a diagnosis over several sessions)',
    )
    args = parser.parse_args(argv)
    # '~/x' as a shell expands it, and the experiments; checked as they check it, before any run
    args.out_dir = synthetic.home(args.out_dir, '--out_dir')
    if not args.out_dir.strip():
        raise ConfigError("--out_dir='' names no folder (not this one): give one (default: out/)")
    out = Path(args.out_dir)
    there = next(p for p in (out, *out.parents) if os.path.lexists(p))
    if not there.is_dir():  # the experiments would refuse it after the advice to run them there
        raise ConfigError(
            f'--out_dir={args.out_dir}: {there} is a file, not a folder: set --out_dir to a folder '
            'you can write'
        )
    path = common.experiment_path(args.name)  # None: no experiment of that name ('../train')
    module = common.experiment_module(args.name) if path else None
    if args.plot and args.diagnose:
        raise ConfigError('--plot draws the quick trend, --diagnose runs the regime: give one')
    if args.axes and not args.diagnose:
        raise ConfigError('--axes chooses axes of a DIAGNOSIS: give --diagnose with it')
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
    if args.plot:
        return print(f'wrote {redraw(args)}')
    spec, t0 = module.TREND, time.time()
    points = list(enumerate(spec['sizes'].values()))
    quick = checked(args, 'quick', points)
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
    rewrite(args, module, 'quick', trend=trend)
    redraw(args)  # from the results just written, as --plot
    print(
        f'wrote {quick} and the plot; the sizes took {trend["wall_s"] / 60:.1f} min '
        f'({(time.time() - t0) / 60:.1f} min now)'
    )


def redraw(args):
    """NAME-quick-trend.png drawn from the trend and the judged claims its quick results hold
    (common.results_folder's), running nothing (--plot, and after the sizes ran) -> its path."""
    path = common.results_path('quick', args.name, 'json', common.results_folder(args))
    png = path.with_name(f'{args.name}-quick-trend.png')
    flag, fix = results_hint(args)
    again = f'python experiments/tools/trend.py {args.name}{flag}'
    if not path.exists():
        raise ConfigError(f'no {path}: run {again} first')
    results = common.read_results(path, ('claims',), f'rerun {again}')
    if 'trend' not in results:
        raise ConfigError(f'{path} holds no trend: run {again} first')
    trend = results['trend']
    values = trend.get('values')
    if not (
        isinstance(trend.get('axis'), str)
        and isinstance(trend.get('sizes'), list)
        and isinstance(values, dict)
        and all(isinstance(values.get(s), dict) for s in trend['sizes'])
        and all(common.per_seed(v) for s in trend['sizes'] for v in values[s].values())
        and all(
            isinstance(c.get('says'), str) and all(isinstance(q, str) for q in c['of'])
            for c in results['claims']
        )
    ):
        raise ConfigError(f'{path} is damaged (its trend or claims): rerun {again}')
    common.check_writable(png, fix)
    plot(trend, results['claims'], png, results.get('title', ''))
    return png


def rewrite(args, module, mode, **found):
    """Adds `found` (a trend or a diagnosis) to the mode's results (checked's), judges every claim
    again on them and rewrites the JSON and the .md's claims section -> the judged claims."""
    folder = common.results_folder(args)
    path, md = (common.results_path(mode, args.name, ext, folder) for ext in ('json', 'md'))
    results = {**common.read_results(path), **found}  # whole: checked before the sizes ran
    results = common.judged_by(results, args.name, claims.of_mode(module.CLAIMS, mode))
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
    # the axes that run sizes, and those the regime run measures itself (docstring)
    run_axes, measured = spec.get('axes', {}), spec.get('measured', {})
    every = [*run_axes, *measured]
    unknown = set(spec.get('flags_of', {})) - set(run_axes)
    if unknown:
        raise ConfigError(
            f"{name}.py's DIAGNOSIS gives flags_of to {', '.join(sorted(unknown))}, which is not "
            'one of its axes: name an axis of its axes'
        )
    chosen = [a.strip() for a in (args.axes or '').split(',') if a.strip()] or every
    if not_axes := sorted(set(chosen) - set(every)):
        raise ConfigError(
            f"--axes={args.axes}: {', '.join(not_axes)} is not an axis of {name}.py's "
            f'DIAGNOSIS: name some of {", ".join(every)}'
        )
    # the flags every run gets: --no-search where the file has a search to turn off (its --help)
    takes = options(name)
    fixed = [f'--seeds={DIAGNOSIS_SEEDS}', *(['--no-search'] if '--no-search' in takes else [])]
    # each axis's flags: 'flags', or its own in flags_of
    flags = {
        axis: [*fixed, *spec.get('flags_of', {}).get(axis, spec.get('flags', []))]
        for axis in run_axes
    }
    if not_taken := sorted(
        {f for fs in flags.values() for f in fs if f.split('=')[0] not in takes}
    ):
        raise ConfigError(
            f"{name}.py's DIAGNOSIS passes {', '.join(not_taken)}, which {name}.py does not take "
            f'(its --help): give it the flag, or drop it from the DIAGNOSIS'
        )
    # the regime's own point ({}) is one run for every axis of the same flags: 'regime', then
    # 'regime1', ... for each other set of flags
    sets = list(dict.fromkeys(map(tuple, flags.values())))
    where = {
        axis: [
            (f'{axis}/{i}' if keys else f'regime{sets.index(tuple(flags[axis])) or ""}', keys)
            for i, keys in enumerate(sizes.values())
        ]
        for axis, sizes in run_axes.items()
        if axis in chosen
    }
    regime = checked(args, 'regime', sum(where.values(), []))
    results, source = common.read_results(regime), common.source_digest(name)
    if set(chosen) & set(measured) and results.get('source') != source:
        raise ConfigError(
            f'{regime} holds the results of other code than {name}.py now, which its measured '
            f'axes read: run python {common.experiment_path(name).relative_to(ROOT)} --regime'
            f'{results_hint(args)[0]} first'
        )
    # the axes diagnosed before on this code and not run now stay
    before = results.get('diagnosis') or {}
    kept = before.get('axes', {}) if before.get('source') == source else {}
    reuse = regime_seeds(results, source)
    # each point this run trains or reads, once: the regime's point is one run shared by the axes
    # of its flags, so the diagnosis's time counts it once (an axis's own time includes it)
    walls = {}
    axes = {}
    for axis in every:
        if axis not in chosen:
            if axis in kept:
                axes[axis] = kept[axis]
        elif axis in measured:  # each size: the regime's quantities named at it, none run
            axes[axis] = dict(
                axis=axis,
                sizes=list(measured[axis]),
                measured=measured[axis],
                values={
                    size: {q: v for q, v in results['values'].items() if q.endswith(f', {label}')}
                    for size, label in measured[axis].items()
                },
                wall_s=0.0,
            )
        else:
            # the regime's own point from its run's first seeds where they are its runs (reuse),
            # over the quantities the axis's other sizes measure (its flags' tasks)
            runs = [
                None
                if reuse and not keys
                else point(name, index, keys, args.out_dir, flags[axis], 'regime')
                for index, keys in where[axis]
            ]
            measures = {q for r in runs if r for q in r['values']}
            runs = [
                r
                or dict(
                    values={
                        q: v[:DIAGNOSIS_SEEDS] if isinstance(v, list) else v
                        for q, v in results['values'].items()
                        if q in measures
                    },
                    wall_s=0.0,
                )
                for r in runs
            ]
            walls.update((index, r['wall_s']) for (index, _), r in zip(where[axis], runs))
            axes[axis] = dict(
                axis=axis,
                sizes=list(run_axes[axis]),
                keys=run_axes[axis],
                flags=flags[axis],
                values={s: r['values'] for s, r in zip(run_axes[axis], runs)},
                wall_s=round(sum(r['wall_s'] for r in runs), 1),
                **(
                    {'regime point': f'the regime run, seeds 0-{DIAGNOSIS_SEEDS - 1}'}
                    if reuse
                    else {}
                ),
            )
    diagnosis = dict(
        axes=axes,
        # measured axes alone: the regime run's seeds, and no run's flags
        seeds=DIAGNOSIS_SEEDS if set(axes) - set(measured) else claims.seeds_of(results),
        # every run axis's but those of flags_of
        flags=[*fixed, *spec.get('flags', [])] if set(axes) - set(measured) else [],
        source=source,
        date=time.strftime('%Y-%m-%d'),
        wall_s=round(
            sum(a['wall_s'] for axis, a in axes.items() if axis not in chosen)
            + sum(walls.values()),
            1,
        ),
    )
    rewrite(args, module, 'regime', diagnosis=diagnosis)
    print(f'wrote the diagnosis into {regime}; it took {diagnosis["wall_s"] / 60:.1f} min')


if __name__ == '__main__':
    common.stop_on_signal()  # Ctrl-C: one line, and the size running ends too
    try:
        main()
    except ConfigError as e:  # bad input: one line, exit status 2
        print(f'error: {e}', file=sys.stderr)
        sys.exit(2)

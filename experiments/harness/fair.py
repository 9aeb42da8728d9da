"""
Fair comparisons of variants. The paper grid-searches every variant over Table 7's ranges and
reports each one's best (Appendix B.1); Table 8 lists the values chosen for MixiT only. One setting
for all, on one seed, favours the variant it was chosen for and hides a spread of 10-30 points
between seeds at quick scale. So a comparison here runs, per variant: a grid search, each point
trained on seed 0 and scored on a validation split drawn from the training distribution (train.py's
val_frac: the training split's last VAL_FRAC, held out of training; never the reported held-out
split), then the chosen point re-run on --seeds seeds, reported as mean +- std and min-max.

A comparison parses its command line with parse_args (adding --search and --seeds to the harness's),
runs each variant through fair (or fair_sweep, along a sweep) and reports through report, which adds
the search's notes.
"""

import argparse
import itertools
import json
import math
import re
import sys

if __name__ == '__main__':  # the experiments' code, not a command (alone: an import's traceback)
    print(
        f'error: {__file__} is imported, not run: run an experiment, '
        'python experiments/<paper>/<name>.py, or a tool, python experiments/tools/<name>.py',
        file=sys.stderr,
    )
    sys.exit(2)

import numpy as np

from data import synthetic
from data.synthetic import ConfigError
from experiments.harness import common
from experiments.harness.common import batch_keys, markdown, pct
from experiments.harness.papers import TABLE7
from configurator import DEFAULTS


def tasks_flag(parser):
    """--tasks, for a comparison of several tasks whose --regime runs a task at a time
    (earlier_tasks merges them)."""
    parser.add_argument(
        '--tasks',
        default=None,
        type=synthetic.some_names,
        help="these of the mode's tasks alone (comma-separated), merged into the mode's results of "
        'the same code: --regime runs a task at a time, each within an hour on 2 cores',
    )


def chosen_tasks(args, tasks):
    """The tasks --tasks names, in the mode's order (all of them without it); a name the mode lacks
    stops the run before any training, with the names it has."""
    chosen = args.tasks.split(',') if args.tasks else list(tasks)
    if set(chosen) - set(tasks):
        raise ConfigError(
            f'--tasks={args.tasks}: name tasks of this mode, among {", ".join(tasks)}'
        )
    return [t for t in tasks if t in chosen]


def earlier_tasks(args, name, fairs):
    """With --tasks: the other tasks' comparisons, from this mode's results of the same code (a
    protocol run a task at a time) in the folder this run writes (common.results_folder:
    OUT_DIR/results/, experiments/results/ with --record), added to `fairs`; the earlier commands
    that ran a task not run again (pieces: each one's command, date and wall time; a piece that ran
    all tasks, or some run again, counts whole) to args.pieces, which common.report records, and
    their wall time to this run's."""
    path = common.results_path(args.mode, name, 'json', common.results_folder(args), args.point)
    old = common.read_results(path) if path and path.exists() else {}
    if old.get('source') != common.source_digest(name):
        return
    for label, f in old['fair'].items():
        if label not in fairs:
            grid = [(g['point'], g['validation']) for g in f['grid']]
            fairs[label] = dict(grid=grid, chosen=f['chosen'], runs=f['seeds'])
    # results from before pieces were recorded: one piece, the results' own command
    pieces = old.get('pieces') or [{k: old.get(k) for k in ('command', 'date', 'wall_s')}]
    now = set(args.tasks.split(','))
    args.pieces = [
        p
        for p in pieces
        if not (ran := re.search(r'--tasks=(\S+)', p['command'] or ''))
        or set(ran[1].split(',')) - now
    ]
    args.t0 -= sum(p['wall_s'] for p in args.pieces)


def parse_args(doc, add=None, argv=None, regime_search=True):
    """common.parse_args with a comparison's flags: --search (default on, off in --smoke, and in
    --regime where the regime's budget leaves no room: regime_search=False) and --seeds (default 3,
    1 in --smoke)."""

    def flags(parser):
        parser.add_argument(
            '--search',
            action=argparse.BooleanOptionalAction,
            default=None,
            help="grid-search each variant's settings on a validation split (default: on, off in "
            "--smoke); --no-search runs the protocol's own settings",
        )
        parser.add_argument(
            '--halving',
            action=argparse.BooleanOptionalAction,
            default=False,
            help='prune the search by successive halving (halving_rungs): each rung trains the '
            "points left on a third of the next rung's steps and keeps the best third; the last, "
            'the full steps (default: off, the whole grid at the full steps, as the paper)',
        )
        parser.add_argument(
            '--halving_to_one',
            action='store_true',
            help='--halving with one more rung where it takes one: halved until a single point '
            "trains on the full steps (its first rung on fewer steps): --plan tier 3's",
        )
        parser.add_argument(
            '--seeds',
            type=at_least_one,
            default=None,
            help='seeds of each chosen setting (default 3, 1 in --smoke); each seeds the weights, '
            "the fixed random matrices, the batches and the task's draw",
        )
        if add:
            add(parser)

    args = common.parse_args(doc, flags, argv)
    default = args.mode != 'smoke' and (args.mode != 'regime' or regime_search)
    args.search = default if args.search is None else args.search
    args.halving = args.halving or args.halving_to_one
    args.seeds = (1 if args.mode == 'smoke' else 3) if args.seeds is None else args.seeds
    return args


# --seeds: every flag of that type counts seeds, and a plan lists a run a seed (10^11 never ends)
MOST_SEEDS = 1_000


def at_least_one(text):
    if not 1 <= int(text) <= MOST_SEEDS:
        raise argparse.ArgumentTypeError(
            f'{text}: give 1 to {MOST_SEEDS:,} seeds (the papers run 3)'
        )
    return int(text)


# --quick and --smoke: the learning rate alone, at the protocol's and a factor 3 either side (min_lr
# in proportion): three runs per variant, and a factor 3 spans the spread of good learning rates
# that Table 7 spans (10x).
QUICK_LR = (1 / 3, 1, 3)
# a tenth of the training split: enough examples to rank settings, little taken from training
VAL_FRAC = 0.1
# successive halving (Jamieson & Talwalkar 2016; Hyperband's inner loop, Li et al. 2018): the
# share of a rung's points kept, and the factor between two rungs' steps
ETA = 3


def halving_rungs(n, to_one=False):
    """Successive halving over n points -> [(points trained, share of the steps)] per rung: the
    first trains all n on 1/ETA^R of the steps, each next the best ceil(1/ETA) of the last on ETA
    times its steps, the last on the full steps; R is the most rungs that leave a point at the last
    (Table 7's algorithmic grid, 216 points: 216, 72, 24, 8 and 3 on 1/81, 1/27, 1/9, 1/3 and all
    of the steps, 13.7 full runs' steps for the grid's 216). to_one: R the fewest rungs that leave
    one point at the last (216: 216, 72, 24, 8, 3 and 1 on 1/243 ... all of the steps, 4.6 full
    runs' steps)."""
    rungs = 0
    while ETA ** (rungs + 1) <= n:
        rungs += 1
    if to_one and ETA**rungs < n:
        rungs += 1
    return [(math.ceil(n / ETA**r), ETA ** (r - rungs)) for r in range(rungs + 1)]


def at_share(keys, share):
    """A run's train.py keys on `share` of its steps: max_iters, and the warm-up and decay counted
    in steps, scaled (the schedule keeps its shape); one evaluation, at the end."""
    if share == 1:
        return keys
    steps = max(1, round(keys.get('max_iters', DEFAULTS['max_iters']) * share))
    scaled = {**keys, 'max_iters': steps, 'eval_interval': steps}
    for k in ('warmup_iters', 'lr_decay_iters'):  # 0: none, and decay to max_iters
        if keys.get(k, DEFAULTS[k]):
            scaled[k] = min(steps, max(1, round(keys.get(k, DEFAULTS[k]) * share)))
    return scaled


def grid(args, config, family, fixed=()):
    """-> the points (dicts of train.py keys) of a variant's search: Table 7's row of `family` in
    full, but for the keys in `fixed` (those the experiment's claim pins, e.g. Table 4's
    architecture); three learning rates else, unless the claim pins the rate too (then in every mode
    the grid is Table 7's remaining keys); min_lr in proportion to the learning rate."""
    lr = config.get('learning_rate', DEFAULTS['learning_rate'])
    # the schedule's floor keeps its ratio to the peak
    floor = config.get('min_lr', DEFAULTS['min_lr']) / lr
    # a claim that pins the rate (Table 4): Table 7's rest
    if args.mode != 'full' and 'learning_rate' not in fixed:
        return [
            dict(learning_rate=float(f'{lr * f:.3g}'), min_lr=float(f'{lr * f * floor:.3g}'))
            for f in QUICK_LR
        ]
    ranges = {k: v for k, v in TABLE7[family].items() if k not in fixed}
    points = [dict(zip(ranges, values)) for values in itertools.product(*ranges.values())]
    points = [
        {**p, 'min_lr': p['learning_rate'] * floor} if 'learning_rate' in p else p for p in points
    ]
    if 'gradient_accumulation_steps' in config:  # a batch of micro-batches (batch_keys)
        points = [
            {**p, **batch_keys(args, p.pop('batch_size'))} if 'batch_size' in p else p
            for p in points
        ]
    return [
        p
        for p in points
        if p.get('n_embd', config.get('n_embd', 1)) % p.get('n_head', config.get('n_head', 1)) == 0
    ]


def fair(args, name, config, family, fixed=(), key='val_acc', higher=True):
    """The fair comparison of one variant: train.py's keys `config`, searched over grid(...) (with
    --search) on the validation split by metric `key` (higher or lower is better), then the chosen
    point on --seeds seeds (seed s sets train.py's seed and data_seed to s, so both the model's
    randomness and the task's draw change). A task measured on its training set (memorization) has
    no validation split: there the training-set accuracy, the metric itself, selects. A tie goes to
    the first point (the smallest learning rate in quick). -> dict(grid=[(point, validation score)],
    chosen=point, runs=[metrics of each seed]). With --plan the runs are listed, none trained: every
    score and metric is None, and the seeds are listed at the grid's first point (the choice is
    not known before the search runs), so the plan prices each run the search and the seeds make."""
    points = grid(args, config, family, fixed) if args.search else []
    # an --at of a searched key would make every point of the search that one run
    for key in sorted({k for p in points for k in p} & set(args.at)):
        raise ConfigError(
            f'--at={key}: the search varies {key} between its runs: add --no-search to train '
            'every run at it'
        )
    selection = dict(seed=0, data_seed=0)
    if not common.measured_on_train(args, config):
        selection['val_frac'] = VAL_FRAC
    done = {}

    def once(keys):  # a run the search and the seeds share (memorization's seed 0) is trained once
        tag = json.dumps(keys, sort_keys=True, default=str)
        if tag not in done:
            done[tag] = common.run(args, name, **keys)
        return done[tag]

    def score(keys):  # a point whose run diverged is the worst, not the end of the experiment
        try:
            return once(keys)[key]
        except FloatingPointError as e:
            print(f'search: {e}; the point scores {"-inf" if higher else "inf"}')
            return -math.inf if higher else math.inf

    def seeds(chosen):
        return [once({**config, **chosen, 'seed': s, 'data_seed': s}) for s in range(args.seeds)]

    # the whole grid at the full steps, or --halving's rungs; with --plan the runs are listed, none
    # trained (once gives None): each rung's first points, its survivors not known, and the seeds
    # at the grid's first point
    rungs = (
        halving_rungs(len(points), args.halving_to_one)
        if args.halving and points
        else [(len(points), 1)]
    )
    left, scores = points, []
    for n, share in rungs:
        run = once if args.plan else score
        scores.append([(p, run(at_share({**config, **p, **selection}, share))) for p in left[:n]])
        if not args.plan:  # best first; a tie keeps the grid's order (a stable sort)
            left = [p for p, _ in sorted(scores[-1], key=lambda ps: ps[1], reverse=higher)]
    scored = scores[-1]
    if args.plan:
        chosen = points[0] if points else {}
    else:  # a tie: the first
        chosen = (max if higher else min)(scored, key=lambda ps: ps[1])[0] if scored else {}
    found = dict(grid=scored, chosen=chosen, runs=seeds(chosen))
    if len(rungs) > 1:  # the lower rungs, each (point, score on its share of the steps)
        found['rungs'] = [dict(share=share, grid=g) for (_, share), g in zip(rungs, scores)]
    return found


def fair_sweep(args, name, configs, at, family, fixed=(), key='val_acc', higher=True):
    """fair over a sweep of one variant, configs = {point (a depth, an m_max, ...): train.py's
    keys}: with `at`, the search at that point alone and its chosen keys run on the seeds at every
    other point (a search per point costs the grid's size again per point); at None, fair at every
    point. -> {point: fair's result}, where a point that was not searched has grid [] and the chosen
    keys it ran."""
    results = (
        {at: fair(args, name, configs[at], family, fixed, key, higher)}
        if at is not None and args.search
        else {}
    )
    chosen = results[at]['chosen'] if results else {}
    rest = argparse.Namespace(**{**vars(args), 'search': args.search and not results})
    for point, config in configs.items():
        if point not in results:
            f = fair(rest, name, {**config, **chosen}, family, fixed, key, higher)
            results[point] = {**f, 'chosen': f['chosen'] or chosen}
    return results


def spread(values, fmt=pct):
    """'mean +- std (min-max)' of a metric over seeds, each through fmt; one value alone as it
    is."""
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return fmt(values[0])
    return (
        f'{fmt(values.mean())} ± {fmt(values.std(ddof=1))} '
        f'({fmt(values.min())}–{fmt(values.max())})'
    )


def search_notes(args, fairs, fmt=pct):
    """The section of a report (report's `fairs`) that says, per label of a comparison (fair's
    results), what was searched, what was chosen on the validation split and what the seeds gave: a
    markdown table."""
    how = (
        'Search: per variant, each point on seed 0, scored on a validation split (the last '
        f'{VAL_FRAC:.0%} of the training split, held out of training; memorization: the training '
        'set, its metric; min_lr in proportion to the learning rate). '
        if args.search
        else "No search (--no-search): the protocol's own settings. "
    )
    if args.search and args.halving:
        how += (
            f'Pruned by successive halving (--halving): each rung keeps the best 1/{ETA} of its '
            f'points on {ETA} times the steps, the last on the full steps'
            + (' (to one point: --halving_to_one)' if args.halving_to_one else '')
            + "; the grid below is the last rung's (the results JSON holds every rung). "
        )
    how += (
        f'Seeds: {args.seeds} (seed and data_seed 0..{args.seeds - 1}) of the chosen point, on '
        'the reported split.'
    )

    def point(p):
        return ', '.join(f'{k}={v:g}' for k, v in p.items() if k != 'min_lr')

    rows = [
        {
            '': label,
            'grid (validation)': '; '.join(
                f'{point(p) or "the protocol"}: {fmt(v)}' for p, v in f['grid']
            )
            or '-',
            'chosen': point(f['chosen']) or "the protocol's",
            'seeds': len(f['runs']),
        }
        for label, f in fairs.items()
    ]
    return how + '\n\n' + markdown(['', 'grid (validation)', 'chosen', 'seeds'], rows)


def report(
    args,
    name,
    title,
    columns,
    rows,
    fairs,
    notes='',
    extra=None,
    fmt=pct,
    key='val_acc',
    values=None,
    claims=(),
    regime=None,
):
    """common.report with the search: `fairs`, the results of fair per label of a comparison, whose
    search_notes (scores through fmt) end the notes, whose grid, chosen point and each seed's
    metrics go to the JSON, and whose metric `key` on each seed is the value of its label that
    `claims` test (with `values`, any others)."""
    notes += '\n\n' + search_notes(args, fairs, fmt)

    def listed(scored):  # a search's [(point, score)] as the JSON holds it
        return [dict(point=p, validation=v) for p, v in scored]

    extra = {
        **(extra or {}),
        'fair': {
            label: dict(
                grid=listed(f['grid']),
                chosen=f['chosen'],
                seeds=f['runs'],
                **(
                    {'rungs': [dict(r, grid=listed(r['grid'])) for r in f['rungs']]}
                    if 'rungs' in f
                    else {}
                ),
            )
            for label, f in fairs.items()
        },
    }
    values = {
        **{label: [m[key] for m in f['runs']] for label, f in fairs.items()},
        **(values or {}),
    }
    common.report(args, name, title, columns, rows, notes, extra, values, claims, regime)

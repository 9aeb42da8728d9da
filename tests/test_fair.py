"""fair.fair, the fair comparison of a variant (issue 16; the paper's Appendix B.1): the search
scores every grid point on the validation split only, the chosen point is the best of those scores,
and the seeds run the chosen point on the reported split. Checked with a stand-in for training that
records every run it is asked for."""

import sys

import pytest

from data.synthetic import ConfigError
from experiments.harness import common, fair

MODADD = dict(task='modular_addition', p=11, variant='standard', learning_rate=1e-2, min_lr=1e-3)


def fake_runs(monkeypatch, score):
    """Replaces common.run by a stand-in that records each config and returns metrics
    `score(config)`."""
    calls = []

    def run(args, name, **config):
        calls.append(config)
        return dict(score(config), eval_split='validation' if config.get('val_frac') else 'val')

    monkeypatch.setattr(common, 'run', run)
    return calls


@pytest.mark.parametrize('higher', [True, False])
def test_search_selects_on_validation_and_seeds_run_the_choice(tmp_path, monkeypatch, higher):
    args = fair.parse_args('', argv=['--quick', '--seeds=3', f'--data_dir={tmp_path}'])
    # validation scores peak at the middle learning rate; held-out scores (never to be used) peak
    # elsewhere

    def validation(lr):
        return float((lr == 1e-2) == higher)

    calls = fake_runs(
        monkeypatch,
        lambda c: {
            'm': validation(c['learning_rate'])
            if c.get('val_frac')
            else c['learning_rate'] * 100 + c['seed']
        },
    )
    result = fair.fair(args, 'x', MODADD, 'algorithmic', key='m', higher=higher)
    search, seeds = calls[:3], calls[3:]
    assert [c['learning_rate'] for c in search] == [pytest.approx(1e-2 / 3, rel=1e-2), 1e-2, 3e-2]
    assert all(c['val_frac'] == fair.VAL_FRAC and c['seed'] == 0 for c in search), (
        'search on validation, seed 0'
    )
    assert [c['min_lr'] / c['learning_rate'] for c in search] == pytest.approx([0.1] * 3), (
        'min_lr in proportion'
    )
    assert result['chosen']['learning_rate'] == 1e-2, (
        'the best validation score, whatever the held-out split says'
    )
    assert [(c['seed'], c['data_seed']) for c in seeds] == [(0, 0), (1, 1), (2, 2)]
    assert all('val_frac' not in c and c['learning_rate'] == 1e-2 for c in seeds), (
        'seeds on the reported split'
    )
    assert [v for _, v in result['grid']] == [validation(c['learning_rate']) for c in search]
    assert [r['m'] for r in result['runs']] == pytest.approx([1, 2, 3]), (
        "the seeds' own held-out metrics"
    )


def test_a_task_measured_on_its_training_set_selects_on_it_and_trains_seed_0_once(
    tmp_path, monkeypatch
):
    args = fair.parse_args('', argv=['--quick', '--seeds=2', f'--data_dir={tmp_path}'])
    calls = fake_runs(monkeypatch, lambda c: {'val_acc': c['learning_rate']})
    result = fair.fair(
        args, 'x', dict(task='memorization', size=4, learning_rate=3e-3), 'memorization'
    )
    assert not any('val_frac' in c for c in calls), (
        'memorization has no validation split to hold out'
    )
    assert result['chosen']['learning_rate'] == 9e-3
    assert len(calls) == 4, (
        'three search runs, then seed 1 only: seed 0 of the choice is the search run'
    )


def test_no_search_runs_the_protocol_on_each_seed(tmp_path, monkeypatch):
    args = fair.parse_args(
        '', argv=['--quick', '--no-search', '--seeds=2', f'--data_dir={tmp_path}']
    )
    calls = fake_runs(monkeypatch, lambda c: {'val_acc': 0.5})
    result = fair.fair(args, 'x', MODADD, 'algorithmic')
    assert result['chosen'] == {} and result['grid'] == [] and [c['seed'] for c in calls] == [0, 1]
    assert all(c['learning_rate'] == 1e-2 for c in calls)


def test_full_grid_is_table7_without_the_pinned_keys():
    args = fair.parse_args('', argv=[])
    points = fair.grid(
        args, dict(n_embd=128, n_head=4), 'memorization', fixed=('n_layer', 'n_embd', 'n_head')
    )
    assert len(points) == 9 and {p['learning_rate'] for p in points} == {1e-3, 5e-4, 1e-4}
    assert {p['batch_size'] for p in points} == {256, 512, 1024}
    assert all(set(p) == {'learning_rate', 'min_lr', 'batch_size'} for p in points), (
        'the pinned keys are not searched'
    )
    assert all(p['min_lr'] == pytest.approx(p['learning_rate'] / 10) for p in points), (
        "train.py's min_lr ratio kept"
    )
    full = fair.grid(args, {}, 'algorithmic')
    assert len(full) == 3 * 2 * 4 * 3 * 3  # every n_head of Table 7 divides both widths
    assert args.search and args.seeds == 3


def test_spread_is_mean_std_min_max():
    assert fair.spread([0.5, 0.7, 0.9]) == '70.00% ± 20.00% (50.00%–90.00%)'
    assert fair.spread([0.25]) == '25.00%'


def test_a_diverged_point_scores_worst(tmp_path, monkeypatch):
    args = fair.parse_args('', argv=['--quick', '--seeds=1', f'--data_dir={tmp_path}'])

    def score(c):
        if c['learning_rate'] > 1e-2:
            raise FloatingPointError('the loss is not finite')
        return {'val_acc': c['learning_rate']}

    fake_runs(monkeypatch, score)
    result = fair.fair(args, 'x', MODADD, 'algorithmic')
    assert result['grid'][2][1] == float('-inf') and result['chosen']['learning_rate'] == 1e-2


def test_a_sweep_searches_at_one_point_and_runs_its_choice_at_every_other(tmp_path, monkeypatch):
    args = fair.parse_args('', argv=['--quick', '--seeds=2', f'--data_dir={tmp_path}'])
    calls = fake_runs(
        monkeypatch, lambda c: {'val_acc': -abs(c['learning_rate'] - 3e-2) + c['n_layer']}
    )
    configs = {depth: dict(MODADD, n_layer=depth) for depth in (2, 8)}
    results = fair.fair_sweep(args, 'x', configs, 8, 'algorithmic')
    searched = [c for c in calls if 'val_frac' in c]
    assert len(searched) == 3 and all(c['n_layer'] == 8 for c in searched), (
        'the search at the named point alone'
    )
    assert results[2]['grid'] == [] and results[2]['chosen'] == results[8]['chosen'] == dict(
        learning_rate=3e-2, min_lr=3e-3
    )
    assert [(c['seed'], c['learning_rate']) for c in calls if c['n_layer'] == 2] == [
        (0, 3e-2),
        (1, 3e-2),
    ]


def test_plan_lists_the_runs_and_scores_none(tmp_path, monkeypatch):
    """--plan: fair lists the search's runs and the seeds' (at the grid's first point, the choice
    unknown before the search runs), trains none, and gives no metric: every score and run is
    None."""

    def train(keys):
        raise AssertionError('--plan trains nothing')

    monkeypatch.setattr(common, 'train', train)
    args = fair.parse_args(
        '',
        argv=['--quick', '--plan', '--seeds=3', f'--out_dir={tmp_path}', f'--data_dir={tmp_path}'],
    )
    result = fair.fair(args, 'x', MODADD, 'algorithmic')
    assert len(args.plan_runs) == 6 and result['runs'] == [None] * 3
    assert [v for _, v in result['grid']] == [None] * 3 and result['chosen'] == result['grid'][0][0]
    assert [r['learning_rate'] for r in args.plan_runs[3:]] == [
        result['chosen']['learning_rate']
    ] * 3
    args.plan_runs.clear()
    fair.fair(args, 'x', dict(task='memorization', size=4, learning_rate=3e-3), 'memorization')
    assert len(args.plan_runs) == 5, "memorization's seed 0 is its first search run: listed once"


def test_chosen_tasks_keep_the_modes_order_and_refuse_a_task_it_lacks():
    """--tasks: the named tasks in the mode's order whatever the order named, all of them without
    it; a name the mode lacks stops the run with the names it has."""
    tasks = {'khop': {}, 'retrieval': {}, 'dyck': {}}

    def chosen(*argv):
        return fair.chosen_tasks(
            fair.parse_args('', fair.tasks_flag, argv=['--quick', *argv]), tasks
        )

    assert chosen() == ['khop', 'retrieval', 'dyck']
    assert chosen('--tasks=dyck,khop') == ['khop', 'dyck']
    with pytest.raises(
        ConfigError, match='--tasks=khop,nope: name tasks of this mode, among khop, '
    ):
        chosen('--tasks=khop,nope')


def test_earlier_tasks_merge_from_the_folder_the_run_writes(tmp_path, monkeypatch):
    """--tasks pieces merge in the folder the run writes its results (common.results_folder):
    OUT_DIR/results/ without --record, experiments/results/ (here a stand-in) with it, never the
    other; a piece of other code is not merged, and this run's own task keeps its comparison."""
    import json

    monkeypatch.setattr(common, 'RESULTS', tmp_path / 'recorded')
    piece = dict(
        grid=[dict(point={'learning_rate': 0.01}, validation=0.5)],
        chosen={'learning_rate': 0.01},
        seeds=[{'val_acc': 0.9}],
    )

    def write(folder, source):  # an earlier --tasks run's results: two tasks' comparisons
        folder.mkdir(parents=True, exist_ok=True)
        fairs = {'addition: standard': piece, 'mine': piece}
        results = dict(source=source, wall_s=60.0, fair=fairs)
        (folder / 'algorithmic-quick.json').write_text(json.dumps(results))

    def merged(*flags):  # -> (the comparisons after the merge, the wall time added)
        argv = ['--quick', f'--out_dir={tmp_path / "out"}', '--tasks=mine', *flags]
        args = fair.parse_args('', fair.tasks_flag, argv=argv)
        fairs, t0 = {'mine': 'this run'}, args.t0
        fair.earlier_tasks(args, 'algorithmic', fairs)
        return fairs, t0 - args.t0

    merged_piece = dict(grid=[({'learning_rate': 0.01}, 0.5)], chosen={'learning_rate': 0.01})
    merged_piece['runs'] = [{'val_acc': 0.9}]
    done = ({'mine': 'this run', 'addition: standard': merged_piece}, 60.0)
    digest = common.source_digest('algorithmic')
    write(tmp_path / 'out' / 'results', digest)
    assert merged() == done
    assert merged('--record') == ({'mine': 'this run'}, 0), 'the recorded folder holds none'
    write(tmp_path / 'recorded', digest)
    assert merged('--record') == done
    write(tmp_path / 'out' / 'results', 'other code')
    assert merged() == ({'mine': 'this run'}, 0)


def test_a_task_run_again_drops_its_earlier_piece_and_its_time(tmp_path, monkeypatch):
    """--tasks pieces: the earlier commands that ran a task this run does not run again are kept
    (args.pieces, which report records) with their wall time; a piece whose tasks all run again
    adds neither (it added its time before, though its comparisons were replaced)."""
    import json

    seeds = dict(grid=[], chosen={}, seeds=[{'val_acc': 1.0}])
    pieces = [
        dict(command='python a.py --regime --tasks=dyck', date='d1', wall_s=100.0),
        dict(command='python a.py --regime --tasks=addition,memorization', date='d2', wall_s=60.0),
    ]
    old = dict(
        source=common.source_digest('algorithmic'),
        wall_s=160.0,
        pieces=pieces,
        fair={f'{t}: standard': seeds for t in ('dyck', 'addition', 'memorization')},
    )
    (tmp_path / 'results').mkdir()
    (tmp_path / 'results' / 'algorithmic-regime.json').write_text(json.dumps(old))
    for tasks, kept in (('dyck', pieces[1:]), ('addition', pieces), ('modular_addition', pieces)):
        argv = ['--regime', f'--out_dir={tmp_path}', f'--tasks={tasks}']
        args = fair.parse_args('', fair.tasks_flag, argv=argv)
        t0 = args.t0
        fair.earlier_tasks(args, 'algorithmic', {f'{tasks}: standard': 'this run'})
        assert args.pieces == kept and t0 - args.t0 == sum(p['wall_s'] for p in kept), tasks
    # the results name every piece, this run's last, its time its own
    monkeypatch.setattr(sys, 'argv', ['algorithmic.py', *argv])
    common.report(args, 'algorithmic', 'Table 3', ['task'], [{'task': 'modular_addition'}])
    written = json.loads((tmp_path / 'results' / 'algorithmic-regime.json').read_text())
    assert written['pieces'][:2] == pieces and len(written['pieces']) == 3
    assert '--tasks=modular_addition' in written['pieces'][2]['command']
    assert 0 <= written['pieces'][2]['wall_s'] < 60 and written['wall_s'] >= 160
    md = (tmp_path / 'results' / 'algorithmic-regime.md').read_text()
    assert '- commands, a task at a time: `python a.py --regime --tasks=dyck` (d1, 1.7 min)' in md


def test_halving_rungs_keep_a_third_on_three_times_the_steps():
    """halving_rungs against the rule counted by hand: all n points first, each next rung
    ceil(n / 3^r) on 3 times the last's steps, the last on the full steps with 1 to 3 points; fewer
    than 3 points are the whole grid."""
    assert fair.halving_rungs(216) == [(216, 1 / 81), (72, 1 / 27), (24, 1 / 9), (8, 1 / 3), (3, 1)]
    assert fair.halving_rungs(3) == [(3, 1 / 3), (1, 1)]
    assert fair.halving_rungs(2) == [(2, 1)] and fair.halving_rungs(1) == [(1, 1)]
    for n in range(1, 300):
        rungs = fair.halving_rungs(n)
        assert rungs[0][0] == n and rungs[-1][1] == 1 and 1 <= rungs[-1][0] <= fair.ETA
        assert all(
            b[0] == -(-a[0] // fair.ETA) and b[1] == pytest.approx(a[1] * 3)
            for a, b in zip(rungs, rungs[1:])
        )
    # to one point (--halving_to_one, tier 3): one more rung where the last holds more than one
    assert fair.halving_rungs(216, to_one=True) == [
        (216, 1 / 243),
        (72, 1 / 81),
        (24, 1 / 27),
        (8, 1 / 9),
        (3, 1 / 3),
        (1, 1),
    ]
    assert fair.halving_rungs(243, to_one=True) == fair.halving_rungs(243)  # one there already
    for n in range(1, 300):
        rungs, fewer = fair.halving_rungs(n, to_one=True), fair.halving_rungs(n)
        assert rungs[0][0] == n and rungs[-1] == (1, 1)
        assert rungs == fewer or (len(rungs) == len(fewer) + 1 and fewer[-1][0] > 1)
        assert sum(k * share for k, share in rungs) <= sum(k * share for k, share in fewer)


def test_at_share_scales_the_steps_and_keeps_the_schedule():
    keys = dict(max_iters=900, eval_interval=100, warmup_iters=90, lr_decay_iters=0, seed=0)
    assert fair.at_share(keys, 1) == keys
    assert fair.at_share(keys, 1 / 9) == dict(
        max_iters=100, eval_interval=100, warmup_iters=10, lr_decay_iters=0, seed=0
    )
    assert fair.at_share(dict(max_iters=5, warmup_iters=0), 1 / 81)['max_iters'] == 1


@pytest.mark.parametrize('higher', [True, False])
def test_halving_chooses_as_a_brute_force_halving_and_trains_fewer_steps(
    tmp_path, monkeypatch, higher
):
    """--halving against a brute-force successive halving of the same scores: each rung's runs on
    its share of the steps, the survivors the best third (ties in the grid's order), the choice the
    last rung's best; on Table 7's algorithmic grid of 216 points, 13.7 full runs' steps instead of
    216. Where the ranking holds at every budget the choice is the whole grid's."""
    args = fair.parse_args(
        '', argv=['--search', '--halving', '--seeds=1', f'--data_dir={tmp_path}']
    )
    config = dict(MODADD, max_iters=8100, batch_size=128)
    points = fair.grid(args, config, 'algorithmic')
    assert len(points) == 216

    def quality(c):  # a ranking that holds at every budget, with ties, + noise of the budget
        return (
            c['n_layer'] * 7 + c['n_head'] * 3 + c['batch_size'] // 128 + c['n_embd'] // 512
        ) % 11 + (c['max_iters'] % 7) / 100

    calls = fake_runs(monkeypatch, lambda c: {'m': quality(c) if higher else -quality(c)})
    result = fair.fair(args, 'x', config, 'algorithmic', key='m', higher=higher)
    search = [c for c in calls if c.get('val_frac')]
    # the brute-force halving
    left, steps = points, 0
    for n, share in fair.halving_rungs(len(points)):
        runs = [{**config, **p, 'max_iters': round(8100 * share)} for p in left[:n]]
        steps += sum(r['max_iters'] for r in runs)
        scores = [quality(r) if higher else -quality(r) for r in runs]
        order = sorted(range(len(runs)), key=lambda i: scores[i], reverse=higher)
        left = [left[:n][i] for i in order]
    assert result['chosen'] == left[0]
    assert sum(c['max_iters'] for c in search) == steps < 216 * 8100 / 15
    assert [len(r['grid']) for r in result['rungs']] == [216, 72, 24, 8, 3]
    full = fair.parse_args('', argv=['--search', '--seeds=1', f'--data_dir={tmp_path}'])
    whole = fair.fair(full, 'x', config, 'algorithmic', key='m', higher=higher)
    assert whole['chosen'] == result['chosen']


def test_halving_plan_prices_every_rung(tmp_path, monkeypatch):
    """--plan with --halving lists each rung's runs (its first points: the survivors are not known)
    at its share of the steps, and the seeds."""
    monkeypatch.setattr(common, 'train', lambda keys: pytest.fail('--plan trains nothing'))
    args = fair.parse_args(
        '',
        argv=[
            '--plan',
            '--halving',
            '--seeds=3',
            f'--out_dir={tmp_path}',
            f'--data_dir={tmp_path}',
        ],
    )
    fair.fair(args, 'x', dict(MODADD, max_iters=8100), 'algorithmic')
    searched = [r for r in args.plan_runs if r.get('val_frac')]
    assert [r['max_iters'] for r in searched] == [100] * 216 + [300] * 72 + [900] * 24 + [
        2700
    ] * 8 + [8100] * 3
    assert len(args.plan_runs) == 323 + 3

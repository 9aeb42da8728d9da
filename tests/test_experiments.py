"""Every reproduction (experiments/<paper>/*.py) runs end to end with --smoke (a few steps of every
model), so none can rot; its report must carry a table with the paper's numbers beside ours. The
tools (experiments/tools/*.py: they read runs, time steps or run every reproduction, and have no
paper to compare with) are tested on hand-made runs or a tiny size instead. Both are found on disk,
not listed here."""

import ast
import importlib
import itertools
import json
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / 'experiments'
# the folders of experiments/ that hold no reproduction
NOT_PAPERS = ('harness', 'tools', 'results', 'config')
REPRODUCTIONS = sorted(p for p in EXPERIMENTS.glob('*/*.py') if p.parent.name not in NOT_PAPERS)
TOOLS = sorted((EXPERIMENTS / 'tools').glob('*.py'))
HARNESS = sorted((EXPERIMENTS / 'harness').glob('*.py'))
VERDICTS = ('Reproduced', 'Partly', 'Not reproduced', 'Not resolved', 'Not measured')
ROOT_LINE = 'sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root'


def name_of(path):
    return path.relative_to(EXPERIMENTS).as_posix()


def module(name):
    """An experiment's, a tool's or the harness's module, by its file's name (unique under
    experiments/)."""
    path = next(p for p in [*REPRODUCTIONS, *TOOLS, *HARNESS] if p.stem == name)
    return importlib.import_module(f'experiments.{path.parent.name}.{name}')


def test_experiments_are_found():
    """Each reproduction sits in its paper's folder, names are unique across the folders, and the
    tools are the seven that read runs, time steps, check, spend or profile a GPU or run
    every reproduction."""
    names = [p.stem for p in [*REPRODUCTIONS, *TOOLS, *HARNESS]]
    assert len(names) == len(set(names)), 'a name in two folders'
    assert {p.parent.name for p in REPRODUCTIONS} == {'mixit', 'identity_query', 'universal'}
    assert [p.stem for p in TOOLS] == [
        'compare_runs',
        'gpu_check',
        'gpu_run',
        'nanogpt_step',
        'profile_step',
        'reproduce',
        'trend',
    ]
    assert [p.stem for p in HARNESS] == ['claims', 'common', 'fair', 'papers', 'problems']
    assert not list(EXPERIMENTS.glob('*.py')), 'every file is in a folder'
    assert sorted(module('reproduce').EXPERIMENTS) == sorted(p.stem for p in REPRODUCTIONS), (
        "reproduce.py's tables list every reproduction"
    )


@pytest.mark.parametrize('path', REPRODUCTIONS, ids=name_of)
def test_experiment_runs(tmp_path, path):
    """Run as a script from another folder than the repository's."""
    name = path.stem
    out = subprocess.run(
        [
            sys.executable,
            str(path),
            '--smoke',
            f'--out_dir={tmp_path}',
            f'--data_dir={tmp_path / "data"}',
            '--device=cpu',
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads((tmp_path / f'{name}.json').read_text())
    assert (
        report['mode'] == 'smoke'
        and report['rows']
        and any('paper' in c for c in report['columns'])
    )
    assert report['claims'] and report['verdict'] in VERDICTS, (
        'every reproduction declares and judges its claims'
    )
    # the command as given, after the thread count it ran with (OMP_NUM_THREADS, where set)
    command = re.sub(r'^OMP_NUM_THREADS=\S* ', '', report['command'])
    assert command.startswith(f'python experiments/{path.parent.name}/{name}.py --smoke')
    assert not (EXPERIMENTS / 'results' / f'{name}-smoke.md').exists()
    assert not (tmp_path / 'results').exists(), '--smoke writes no results, in OUT_DIR either'


def imported_names(path):
    """The dotted names a Python file imports (import a.b -> 'a.b'; from a.b import c -> 'a.b',
    'a.b.c')."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names |= {node.module} | {f'{node.module}.{alias.name}' for alias in node.names}
    return names


def test_import_layers():
    """The import structure: reproductions and tools on top, then the harness (fair.py, common.py,
    papers.py, claims.py), then train, then data and model. No reproduction or tool imports another,
    the harness's common.py nothing of the comparisons (fair.py), papers.py and claims.py none of
    them or train, and nothing below imports experiments or train. No file leans on another's import
    for its sys.path: each entry file puts the repository root there itself, in one statement, and
    the harness touches it nowhere."""
    entries = [*REPRODUCTIONS, *TOOLS]
    dotted = {p: f'experiments.{p.parent.name}.{p.stem}' for p in entries}
    for path in entries:
        others = imported_names(path) & (set(dotted.values()) - {dotted[path]})
        assert not others, f'{name_of(path)} imports {others}'
        assert path.read_text().count('sys.path') == 1 and ROOT_LINE in path.read_text(), name_of(
            path
        )
        assert not {
            n for n in imported_names(path) if n.split('.')[0] in {p.stem for p in HARNESS}
        }, f'{name_of(path)}: the harness by its absolute name, experiments.harness'
    harness = {p.stem: imported_names(p) for p in HARNESS}
    assert not harness['common'] & {'experiments.harness.fair'}
    assert not harness['papers'] & {
        'experiments.harness.common',
        'experiments.harness.fair',
        'train',
    }
    assert not {n for n in harness['claims'] if n.startswith('experiments') or n == 'train'}
    for path in HARNESS:
        assert 'sys.path' not in path.read_text(), f'{name_of(path)} touches sys.path'
    below = [ROOT / 'model.py', ROOT / 'checkpoint.py', *(ROOT / 'data').rglob('*.py')]
    for path in [ROOT / 'train.py', *below]:
        assert not {n for n in imported_names(path) if n.split('.')[0] == 'experiments'}, (
            f'{path} imports an experiment'
        )
    for path in below:
        assert 'train' not in imported_names(path), f'{path} imports train.py'
    # data/ holds data: tasks, corpora and batches, nothing of devices, processes, runs or W&B
    run_side = {'checkpoint', 'model', 'wandb', 'ctypes', 'torch.distributed', 'torch.nn.parallel'}
    for path in (ROOT / 'data').rglob('*.py'):
        assert not imported_names(path) & run_side, (
            f'{path} imports {imported_names(path) & run_side}'
        )


def test_no_import_circle():
    """No circle of imports among the repository's modules (the root's, data/'s, the task scripts',
    the harness's, the tools' and the reproductions'), an import inside a function included: each
    can be read knowing only what it imports."""
    paths = [
        *ROOT.glob('*.py'),
        *(ROOT / 'data').glob('*.py'),
        *(ROOT / 'data').glob('*/prepare.py'),
        *REPRODUCTIONS,
        *TOOLS,
        *HARNESS,
    ]
    dotted = {'.'.join(p.relative_to(ROOT).with_suffix('').parts): p for p in paths}
    imports = {m: imported_names(p) & set(dotted) - {m} for m, p in dotted.items()}
    done = set()

    def visit(m, path):  # depth first: a module met again on the path it was reached by closes one
        assert m not in path, 'a circle of imports: ' + ' -> '.join([*path[path.index(m) :], m])
        if m not in done:
            for n in sorted(imports[m]):
                visit(n, [*path, m])
            done.add(m)

    for m in sorted(dotted):
        visit(m, [])
    assert {'data.corpus', 'data.loader', 'data.synthetic', 'train'} <= done


# The columns of a reproduction docstring's table of what each mode trains (its header begins
# '| mode |'), each as the run's train.py keys (its standard model's) write it; `regime` the
# quantity of REGIME[mode] (and the paper's, in parentheses), as claims.figure writes it. A column
# named for a sweep axis is the row's value of it (or its values, the row standing for each); any
# other holds no figure, so that none goes unchecked.
MODE_COLUMNS = {
    'layers, width, heads': lambda c: f'{c["n_layer"]}, {c["n_embd"]}, {c["n_head"]}',
    'layers, width': lambda c: f'{c["n_layer"]}, {c["n_embd"]}',
    'steps x batch': lambda c: f'{c["max_iters"]:,} x {c["batch_size"]:,}',
}


def mode_table(doc):
    """-> the rows ({column: cell}) of the tables in `doc` whose header begins '| mode |'."""
    rows, header = [], None
    for line in (line.strip() for line in doc.splitlines()):
        cells = [c.strip() for c in line.strip('|').split('|')]
        if not line.startswith('|'):
            header = None
        elif cells[0] == 'mode':
            header = cells
        elif header and set(line) - set('|- '):
            assert len(cells) == len(header), line
            rows.append(dict(zip(header, cells)))
    return rows


# the reproductions that train through common.config and give such a table (the numerical checks'
# tables, covariance_sde's and frozen_qk_approximation's, copy a literal PROTOCOL)
MODE_TABLES = [
    p
    for p in REPRODUCTIONS
    if 'common.config(' in p.read_text()
    and '\n| mode |' in (ast.get_docstring(ast.parse(p.read_text())) or '')
]


@pytest.mark.parametrize('path', MODE_TABLES, ids=name_of)
def test_docstring_table_of_the_modes_is_the_protocol(path):
    """A reproduction's docstring table of what each mode trains is what its PROTOCOL and REGIME
    compute (sizes computed at import, one by a fixed point): every mode but smoke and every value
    of the axes it names, each column equal to the computation, so the table cannot go stale."""
    from experiments.harness import claims, common, fair
    from configurator import resolve

    experiment = module(path.stem)
    rows = mode_table(experiment.__doc__)
    assert rows, 'the table has rows'
    axes = [c for c in rows[0] if c in experiment.PROTOCOL[rows[0]['mode']]['sweep']]

    def values(axis, mode, cell):  # an axis's cell: one of its values, or several, ', ' between
        named = {str(v): v for v in experiment.PROTOCOL[mode]['sweep'][axis]}
        return [named[cell]] if cell in named else [named[c] for c in cell.split(', ')]

    points = [
        (row, dict(zip(axes, point)))
        for row in rows
        for point in itertools.product(*(values(a, row['mode'], row[a]) for a in axes))
    ]
    # every mode but the tests' (smoke) and every value of the axes the table names, each once
    assert sorted((r['mode'], *map(str, point.values())) for r, point in points) == sorted(
        (mode, *map(str, point))
        for mode, p in experiment.PROTOCOL.items()
        if mode != 'smoke'
        for point in itertools.product(*(p['sweep'][a] for a in axes))
    )
    for row, point in points:
        protocol = experiment.PROTOCOL[row['mode']]
        keys = common.config(protocol, **point)
        seen = f'{path.stem}, {row["mode"]}, {", ".join(map(str, point.values()))}'
        for column, cell in row.items():
            rest = cell  # what the checks below leave of the cell: words, no figure
            if column in MODE_COLUMNS:
                assert cell == MODE_COLUMNS[column](keys), f'{seen}: {column}'
            elif column == 'lr':
                assert float(cell) == keys['learning_rate'], f'{seen}: lr'
            elif column == 'problem':  # `key = value`s of the task's settings, its defaults filled
                task = resolve(keys)
                pairs = re.findall(r'(\w+) = ([^,;]+)', cell)
                assert pairs and all(str(task[k]) == v.strip() for k, v in pairs), f'{seen}: {cell}'
                rest = re.sub(r'(\w+) = ([^,;]+)', '', cell)
            elif column == 'seeds':
                flag = [] if row['mode'] == 'full' else [f'--{row["mode"]}']
                assert int(cell) == fair.parse_args(experiment.__doc__, argv=flag).seeds, seen
            elif column.startswith('regime'):  # the row's task's quantity (a mode's only one)
                regime = experiment.REGIME[row['mode']]
                of = [r for r in regime if r['quantity'].startswith(f'{row.get("task")}: ')]
                r = of or (regime if len(regime) == 1 and 'task' not in row else [])
                shown = claims.figure(r[0]['ours']) if r else '–'
                assert cell.split(' ')[0] == shown, f'{seen}: {cell!r}, computed {shown!r}'
                rest = cell.removeprefix(shown)
                if r and '(' in cell:  # the paper's beside it
                    paper = f'({claims.figure(r[0]["paper"])})'
                    assert cell.endswith(paper), seen
                    rest = rest.removesuffix(paper)
            if column not in {'mode', *axes, *MODE_COLUMNS, 'lr', 'seeds'}:
                assert not re.search(r'\d', rest), (
                    f'{seen}: {column}: an unchecked figure, {cell!r}'
                )


@pytest.mark.parametrize('path', REPRODUCTIONS, ids=name_of)
def test_protocol_shape(path):
    """Every reproduction that trains through common.config writes every PROTOCOL[mode] in the one
    shape: driver, keys and named sweep axes."""
    experiment = module(path.stem)
    assert experiment.__doc__.strip()
    if 'common.config(' in path.read_text():
        for mode, protocol in experiment.PROTOCOL.items():
            assert mode in ('full', 'regime', 'quick', 'smoke') and protocol.keys() == {
                'driver',
                'keys',
                'sweep',
            }, mode
            assert protocol['driver'] is None or isinstance(protocol['driver'], str)
            assert all(
                isinstance(values, (list, tuple, dict)) for values in protocol['sweep'].values()
            )


def fake_run(path, config, log):
    """A run folder as train.py writes it, without ckpt.pt: config.json and log.jsonl."""
    path.mkdir(parents=True)
    (path / 'config.json').write_text(json.dumps(config))
    (path / 'log.jsonl').write_text(''.join(json.dumps(line) + '\n' for line in log))
    return path


@pytest.mark.log_by_hand  # damaged logs, on purpose
def test_compare_runs(tmp_path, capsys):
    tool = module('compare_runs')
    base = dict(task='dyck', variant='standard', seed=0, batch_size=4, out_dir='out', run_name='a')
    line = dict(train_loss=1.0, eval_tokens_per_s=1e5, lr=1e-3)
    a = fake_run(
        tmp_path / 'runs' / 'a',
        base,
        [
            dict(
                step=10,
                tokens=640,
                val_loss=0.9,
                val_acc=0.5,
                val_exact=0.25,
                elapsed_s=1.0,
                **line,
            ),
            dict(
                step=20,
                tokens=1280,
                val_loss=0.4321,
                val_acc=0.8125,
                val_exact=0.5,
                elapsed_s=2.5,
                **line,
            ),
        ],
    )
    b = fake_run(
        tmp_path / 'runs' / 'b',
        {**base, 'variant': 'mixit', 'run_name': 'b'},
        [  # no tokens: an older log
            dict(step=10, val_loss=1.5, val_acc=0.375, val_exact=0.0, elapsed_s=3.0, **line)
        ],
    )
    png = tmp_path / 'fig' / 'cmp.png'
    assert tool.main([str(a), str(b), f'--out={png}']) == 0
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    width, height = struct.unpack('>II', png.read_bytes()[16:24])  # the IHDR chunk
    assert width > 500 and height > 500 and not list(png.parent.glob('*.tmp*'))
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith('| variant=')]
    assert rows == [
        '| variant=standard | 20 | 1,280 | 0.4321 | 81.25% | 50.00% | 2.5 |',
        '| variant=mixit | 10 |  | 1.5 | 37.50% | 0.00% | 3.0 |',
    ], 'in the order given, run_name no label'
    assert tool.main([str(tmp_path / 'runs'), f'--out={png}']) == 0, 'a folder of run folders'
    assert capsys.readouterr().out.count('| variant=') == 2

    # bad input: one line that says what to fix, exit code 2
    fake_run(tmp_path / 'bad' / 'malformed', base, [])
    (tmp_path / 'bad' / 'malformed' / 'log.jsonl').write_text(
        '{"step": 10, "val_loss": 1.0}\n{"step": 20, "val_lo\n'
    )
    fake_run(tmp_path / 'bad' / 'empty', base, [])
    (tmp_path / 'bad' / 'nolog').mkdir()
    (tmp_path / 'bad' / 'nolog' / 'config.json').write_text('{}')
    fake_run(tmp_path / 'bad' / 'binary', base, [])
    (tmp_path / 'bad' / 'binary' / 'log.jsonl').write_bytes(b'\xff\xfe\x00\x01 not text\n')
    fake_run(tmp_path / 'bad' / 'nested', base, [])
    (tmp_path / 'bad' / 'nested' / 'log.jsonl').write_text('[' * 100_000 + '\n')
    for run, says in (
        ('malformed', 'log.jsonl line 2'),
        ('empty', 'empty'),
        ('nolog', 'has no log.jsonl'),
        ('binary', 'log.jsonl line 1'),
        ('nested', 'log.jsonl line 1'),
    ):
        assert tool.main([str(a), str(tmp_path / 'bad' / run), f'--out={tmp_path / run}.png']) == 2
        out = capsys.readouterr()
        assert (
            out.out == ''
            and len(out.err.splitlines()) == 1
            and out.err.startswith('error: ')
            and says in out.err
        )
        assert not (tmp_path / f'{run}.png').exists()
    done = subprocess.run(
        [sys.executable, 'experiments/tools/compare_runs.py', str(tmp_path / 'bad' / 'malformed')],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.count('\n') == 1 and 'Traceback' not in done.stderr
    assert f'{tmp_path / "bad" / "malformed" / "log.jsonl"} line 2' in done.stderr


def test_claims_judged_on_every_seed():
    """A claim holds when every seed agrees, fails when none does, and is split otherwise, whichever
    way the seeds pair: a brute force over every pairing of three seeds says the same as
    common.judge."""
    import itertools

    claims = module('claims')
    cases = {
        'apart': ([0.9, 0.95, 0.92], [0.5, 0.6, 0.7]),
        'overlap': ([0.9, 0.5, 0.92], [0.6, 0.7, 0.8]),
        'reversed': ([0.1, 0.2, 0.3], [0.5, 0.6, 0.7]),
        'touching': ([0.5, 0.6, 0.7], [0.3, 0.4, 0.5]),
    }
    for case, (a, b) in cases.items():
        claim = dict(says=case, test='descending', of=['a', 'b'])
        # brute force: a above b on every seed under every pairing / under none
        every = all(all(x > y for x, y in zip(a, p)) for p in itertools.permutations(b))
        never = all(not any(x > y for x, y in zip(a, p)) for p in itertools.permutations(b))
        want = 'holds' if every else 'fails' if never else 'split'
        assert claims.judge(claim, {'a': a, 'b': b})['outcome'] == want, case
        stats = {
            q: dict(n=3, mean=sum(v) / 3, std=0, min=min(v), max=max(v))
            for q, v in (('a', a), ('b', b))
        }
        assert claims.judge(claim, stats)['outcome'] == want, (
            f'{case}, from a table of mean, min and max'
        )
        up = dict(says=case, test='ascending', of=['b', 'a'])
        assert claims.judge(up, {'a': a, 'b': b})['outcome'] == want
    within = dict(says='w', test='within', target=1.0, tol=0.02, of=['a'])
    assert [
        claims.judge(within, {'a': v})['outcome']
        for v in ([0.99, 1.0], [0.97, 0.985], [0.95, 0.96], [0.99, 0.9])
    ] == ['holds', 'split', 'fails', 'unresolved']  # the last: seeds spread 0.09 against 0.02
    above = dict(says='x', test='above', bound=0.5, of=['a'])
    assert [claims.judge(above, {'a': v})['outcome'] for v in ([0.6], [0.4, 0.6], [0.5])] == [
        'holds',
        'split',
        'fails',
    ]
    assert claims.judge(above, {})['outcome'] == 'untested'

    def verdict(*outcomes):
        return claims.verdict([{'outcome': x} for x in outcomes])

    assert (
        verdict('holds', 'holds', 'untested'),
        verdict('holds', 'fails'),
        verdict('split', 'holds'),
        verdict('fails', 'split'),
        verdict('split'),
        verdict('untested'),
    ) == ('Partly', 'Partly', 'Partly', 'Not reproduced', 'Not resolved', 'Not measured')
    # a claim its mode cannot measure keeps a file from Reproduced
    assert verdict('holds', 'holds') == 'Reproduced'


def test_resolution_rules_on_constructed_seeds():
    """harness/claims.py's rules: a closeness is judged on the relative spread of its quantities on
    each seed against the paper's own, and only where the seeds can resolve it; a GPU speed claim
    is unresolved on a CPU; a verdict needs the paper's regime and SEEDS seeds, else Not
    resolved."""
    claims = module('claims')
    similar = claims.similar('s', ['a', 'b'], [2.25, 2.18])
    assert abs(similar['tol'] - 0.07 / 2.215) < 1e-6  # the paper's own gap, relative
    cases = {  # a, b on three seeds -> the outcome, by brute force on each seed's gap
        'close on every seed': ([2.0, 2.02, 2.01], [2.01, 2.0, 2.03], 'holds'),
        'apart on every seed': ([2.0, 2.02, 2.01], [2.3, 2.32, 2.31], 'fails'),
        'close on two': ([1.98, 2.04, 2.03], [2.05, 2.0, 2.01], 'split'),
        'seeds too wide': ([1.5, 2.5, 2.0], [1.5, 2.5, 2.0], 'unresolved'),
    }
    for case, (a, b, want) in cases.items():
        gaps = [abs(x - y) / ((x + y) / 2) for x, y in zip(a, b)]
        wide = any((max(v) - min(v)) / (sum(v) / 3) > similar['tol'] for v in (a, b))
        brute = (
            'unresolved'
            if wide
            else 'holds'
            if all(g <= similar['tol'] for g in gaps)
            else 'fails'
            if all(g > similar['tol'] for g in gaps)
            else 'split'
        )
        assert brute == want, case
        assert claims.judge(similar, {'a': a, 'b': b})['outcome'] == want, case
    three = claims.similar('s', ['a', 'b', 'c'], [90.55, 90.86, 92.56])
    assert claims.judge(three, {'a': [0.9], 'b': [0.91], 'c': [0.92]})['outcome'] == 'holds'
    assert claims.judge(three, {'a': [0.9], 'b': [0.91], 'c': [0.95]})['outcome'] == 'fails'
    assert claims.unable('u', 'a')['bound'] == claims.solves('s', 'a')['bound'] == claims.SOLVES
    speed = dict(says='g', test='above', bound=1.0, of=['a'], gpu=True, fmt='num')
    assert claims.judge(speed, {'a': [1.2]}, device='CPU (x86_64, 2 cores)')['outcome'] == (
        'unresolved'
    )
    assert claims.judge(speed, {'a': [1.2]}, device='NVIDIA H100 80GB HBM3')['outcome'] == 'holds'
    # standing: the regime, the seeds, the claims' record
    above = dict(says='x', test='above', bound=0.5, of=['a'], outcome='holds')
    results = dict(
        claims=[above],
        values={'a': [0.6, 0.7, 0.8]},
        claims_digest='0' * 16,
        regime=[dict(quantity='epochs', ours=1250, paper=1250)],
    )
    assert claims.standing(results, trains=True) == []
    assert claims.verdict([above], claims.standing(results, trains=True)) == 'Reproduced'
    for change, why in (
        (dict(regime=[dict(quantity='epochs', ours=50, paper=1250)]), "below the paper's regime"),
        (dict(values={'a': [0.6, 0.7]}), 'fewer than 3'),
        (dict(regime=None), 'not recorded'),
        (dict(claims_digest=None), 'claims written after the run'),
    ):
        reasons = claims.standing({**results, **change}, trains=True)
        assert len(reasons) == 1 and why in reasons[0], change
        assert claims.verdict([above], reasons) == 'Not resolved'
    # the regime mode is judged on the paper's claims it cannot measure too: they keep it from
    # Reproduced
    full = [claims.solves('at 2 and 16 layers', 'a', 'c'), dict(above, says='y')]
    mode = {'full': full, 'regime': [claims.solves('at 2 layers', 'a'), dict(above, says='y')]}
    assert [c['says'] for c in claims.of_mode(mode, 'regime')] == [
        'at 2 layers',
        'y',
        full[0]['says'],
    ]
    assert claims.of_mode(mode, 'full') == full and claims.of_mode(full, 'quick') == full
    judged = [claims.judge(c, {'a': [0.99] * 3}) for c in claims.of_mode(mode, 'regime')[::2]]
    assert claims.verdict(judged) == 'Partly'  # 'at 2 and 16 layers': not measured
    # an experiment that trains nothing needs no regime, nor seeds
    assert claims.standing({**results, 'regime': None, 'values': {'a': [0.6]}}, trains=False) == []
    # one with no --regime (no size a CPU trains in the paper's regime within the hour): its CPU's
    # results cannot decide, its full protocol's can
    reasons = claims.standing({**results, 'mode': 'quick'}, trains=True, cpu_regime=False)
    assert len(reasons) == 1 and reasons[0].startswith('on a CPU:')
    # an experiment's last lines: the README row's words, then what they mean
    fails = dict(above, says='z', outcome='fails')
    for change, verdict, words, counts, means in (
        ({}, 'Reproduced', 'regime', '1 / 0 / 0', 'every claim agrees'),
        (dict(claims=[above, fails]), 'Partly', 'regime', '1 / 1 / 0', 'others do not'),
        (
            dict(mode='quick', regime=[dict(quantity='epochs', ours=50, paper=1250)]),
            'Not resolved',
            "below the paper's regime; quick",
            '1 / 0 / 0',
            'a preview, not a test',
        ),
    ):
        r = {**results, 'mode': 'regime', **change}
        r['standing'] = claims.standing(r, trains=True)
        r['verdict'] = claims.verdict(r['claims'], r['standing'])
        first, second = claims.meaning(r).split('\n')
        assert claims.in_short(r) == (words, counts)
        assert first.startswith(f'Verdict: {verdict} ({words}); ') and first.endswith(f'{counts}.')
        assert means in second, (change, second)
    assert claims.standing({**results, 'mode': 'full'}, trains=True, cpu_regime=False) == []
    common = module('common')
    assert [
        n
        for n in ('rank_collapse', 'identity_query', 'depth')
        if not common.cpu_regime(common.experiment_module(n))
    ] == [
        'rank_collapse',
        'identity_query',
    ]


def test_nanogpt_step_times_the_same_model(capsys):
    """nanogpt_step.py's reference is our standard model in GPT-2's flavour written as nanoGPT
    writes it: from our weights it computes our loss, and after one training step of each, both
    still compute the same loss (the same gradients, the same AdamW update). Its command line prints
    one row a configuration; bad flags are one line."""
    tool = module('nanogpt_step')
    ours, ref, batches = tool.pair('4x256', 'cpu', batch=2)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in ref.parameters())
    for model in (ours, ref):
        tool.trainer(model, batches)(0)
    with torch.no_grad():
        torch.testing.assert_close(ours(*batches[1])[1], ref(*batches[1])[1], rtol=0, atol=1e-5)
    assert tool.main(['--configs=4x256', '--repeats=2', '--warmup=0', '--batch_size=1']) == 0
    assert [r for r in capsys.readouterr().out.splitlines() if r.startswith('| 4x256 |')]
    # a GPU's form (gpu_run.py's) in bfloat16 autocast: the same rows
    flags = ['--configs=4x256', '--repeats=1', '--warmup=0', '--batch_size=1', '--dtype=bfloat16']
    assert tool.main(flags) == 0
    out = capsys.readouterr().out
    assert 'bfloat16' in out and [r for r in out.splitlines() if r.startswith('| 4x256 |')]
    # GPT-2 small is the gpt2 configuration's, at its own sequence, vocabulary and batch
    shape = tool.CONFIGS['gpt2']
    assert (shape['n_layer'], shape['n_embd'], shape['block_size'], shape['vocab_size']) == (
        12,
        768,
        1024,
        50304,
    )
    out = subprocess.run(
        [sys.executable, 'experiments/tools/nanogpt_step.py', '--configs=8x512'],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert (
        out.returncode == 2
        and out.stderr.startswith('error: --configs=8x512')
        and len(out.stderr.splitlines()) == 1
    )


def test_trend_judges_each_size_and_its_direction():
    """A claim judged along a TREND: each size's outcome and margin (the means' distance on the
    claim's side), and the direction: it closes the gap when the claim holds at the last size and
    not at the first, toward the paper when the margin grows at every step, away when it shrinks
    at every step."""
    claims = module('claims')
    claim = dict(says='a above b', test='descending', of=['a', 'b'])
    trend = dict(
        axis='steps',
        sizes=['1', '2', '4'],
        values={
            '1': {'a': [0.5], 'b': [0.6]},
            '2': {'a': [0.7], 'b': [0.6]},
            '4': {'a': [0.9], 'b': [0.6]},
        },
    )
    judged = claims.judge(claim, {'a': [0.5, 0.6], 'b': [0.55]}, trend)
    assert judged['outcome'] == 'split' and abs(judged['margin'] - 0.0) < 1e-12
    assert [t['outcome'] for t in judged['trend']] == ['fails', 'holds', 'holds']
    assert [round(t['margin'], 6) for t in judged['trend']] == [-0.1, 0.1, 0.3]
    assert judged['evidence'].endswith('closes the gap')
    rising = {s: {'a': [a], 'b': [0.6]} for s, a in zip(trend['sizes'], (0.3, 0.4, 0.5))}
    assert claims.judge(claim, {'a': [0.3], 'b': [0.6]}, {**trend, 'values': rising})[
        'evidence'
    ].endswith('toward the paper')
    trend['values']['4'] = {'a': [0.55], 'b': [0.6]}
    assert claims.judge(claim, {'a': [0.5], 'b': [0.6]}, trend)['evidence'].endswith(
        'no steady direction'
    )
    trend['values']['4'] = {'a': [0.8], 'b': [0.6]}
    below = dict(says='a below 0.1', test='below', bound=0.1, of=['a'])
    # 0.5, 0.7, 0.8
    assert claims.judge(below, {'a': [0.3]}, trend)['evidence'].endswith('away from the paper')
    del trend['values']['2']['a']
    assert claims.judge(claim, {'a': [0.5], 'b': [0.6]}, trend)['evidence'].endswith(
        'not measured at every size'
    )


def test_at_keys_reach_every_run_and_only_out_dir(tmp_path):
    """--at KEY=VALUE (a TREND's size) overrides the protocol's keys in every run, and its results
    go to OUT_DIR only, never to experiments/results/."""
    common = module('common')
    args = common.parse_args(
        '', argv=['--quick', '--at=max_iters=7', '--at=lr_schedule=linear', f'--out_dir={tmp_path}']
    )
    assert args.at == {'max_iters': 7, 'lr_schedule': 'linear'} and args.point
    assert common.train_keys(args, dict(task='dyck', max_iters=5))['max_iters'] == 7
    assert common.results_path('quick', 'depth', 'json', point=args.point) is None
    assert common.results_path('quick', 'depth', 'json').name == 'depth-quick.json'
    assert common.results_folder(args) == tmp_path / 'results'
    # the TREND's quick size itself: no keys, OUT_DIR
    quick_size = common.parse_args('', argv=['--quick', '--at='])
    assert (
        quick_size.at == {}
        and quick_size.point
        and not common.parse_args('', argv=['--quick']).point
    )
    assert common.parse_args(
        '', argv=['--at=length=7', '--at=lr=0.5'], at_keys=dict(length=1, lr=1.0)
    ).at == dict(length=7, lr=0.5), "an experiment's own keys (mlp_basis_transfer's)"


@pytest.mark.parametrize(
    'at, own, says',
    [
        ('nosuch=1', None, "unknown key 'nosuch'"),
        ('max_iter=5', None, "did you mean 'max_iters'?"),
        ('max_iters=abc', None, 'should be of type int'),
        ('max_iters=5', dict(steps=1), "'max_iters': one of ['steps']"),
        # what the protocol varies: one value would make its seeds one run, its rows one variant
        ('seed=1', None, "seed differs between the protocol's runs (--seeds): drop it"),
        ('data_seed=1', None, "data_seed differs between the protocol's runs"),
        ('variant=mixit', None, "variant differs between the protocol's runs (its rows)"),
        ('task=dyck', None, "task is the experiment's own (its claims and rows are its tasks')"),
        ('max_iters=100000000000', None, 'is beyond the 2,147,483,647 any key takes'),
    ],
)
def test_bad_at_is_one_line_before_anything_runs(at, own, says, tmp_path, capsys):
    """A bad --at key or value ends the experiment as it parses its command line: one 'error:' line,
    exit status 2."""
    with pytest.raises(SystemExit) as stop:
        module('common').parse_args(
            '', argv=['--quick', f'--at={at}', f'--out_dir={tmp_path}'], at_keys=own
        )
    err = capsys.readouterr().err
    assert (
        stop.value.code == 2
        and err.startswith('error: --at: ')
        and err.count('\n') == 1
        and says in err
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    'argv, says',
    [
        (['--regime', '--tasks='], "argument --tasks: '' names none (an unset variable?)"),
        (['--regime', '--tasks=,'], "argument --tasks: ',' names none"),
        (['--quick', '--micro_batch=-5'], '--micro_batch=-5: give a number of examples, or 0'),
        (['--quick', '--plan', '--record'], '--plan trains nothing, so --record records nothing'),
        (['--smoke', '--quick'], '--smoke and --quick are two protocols: give one of them'),
        (['--quick', '--seeds=100000000000'], 'give 1 to 1,000 seeds (the papers run 3)'),
        (['--quick', '--regime'], '--quick and --regime are two protocols: give one of them'),
        # a flag given twice: argparse would keep the later without a word
        (['--quick', '--tasks=dyck', '--tasks=addition'], '--tasks=dyck and --tasks=addition are'),
        (['--quick', '--seeds=2', '--seeds=1'], '--seeds=2 and --seeds=1 are given both'),
        (['--quick', '--search', '--no-search'], '--search and --no-search are given both'),
    ],
)
def test_flags_that_would_mean_everything_or_nothing_are_refused(argv, says, tmp_path, capsys):
    """A list flag given empty (--tasks=$T, T unset) would run every task, hours of runs, a
    negative --micro_batch would be taken as whole batches, 10^11 seeds would never be planned,
    and of two protocols or --plan with --record one would be dropped: each is one line, exit
    status 2."""
    fair = module('fair')
    with pytest.raises(SystemExit) as stop:
        fair.parse_args('', add=fair.tasks_flag, argv=[*argv, f'--out_dir={tmp_path}'])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith('error: ') and says in err, err


def test_yelps_stand_in_under_a_data_dir_that_is_a_file_is_one_line(tmp_path):
    """--data_dir a file: the tiny Yelp the CPU protocols make there cannot be written (it was
    NotADirectoryError's traceback)."""
    (tmp_path / 'afile').write_text('hi')
    out = subprocess.run(
        [sys.executable, str(EXPERIMENTS / 'mixit' / 'algorithmic.py'), '--smoke', '--plan']
        + [f'--out_dir={tmp_path / "out"}', f'--data_dir={tmp_path / "afile"}'],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stderr.count('\n') == 1, out.stderr
    assert out.stderr.startswith(f'error: cannot write to {tmp_path / "afile"} (Not a directory)')


def folder_digest(folder):
    """A digest of every file's path and bytes under `folder`: equal before and after, the folder
    is byte for byte as it was."""
    import hashlib

    digest = hashlib.sha256()
    for path, data in snapshot(folder).items():
        digest.update(f'{path.relative_to(folder)}\0{len(data)}\0'.encode())
        digest.update(data.encode() if isinstance(data, str) else data)
    return digest.hexdigest()


@pytest.mark.parametrize('record', [False, True], ids=['OUT_DIR', 'record'])
def test_trend_writes_the_quick_results(record, tmp_path, monkeypatch):
    """trend.py runs each size (here faked) and writes the trend into the quick results, those of
    OUT_DIR/results/ (experiments/results/ with --record, here a stand-in): the JSON holds each
    size's values, every claim is judged at each size in the JSON and the .md, and the plot is
    written; the tracked results are as they were."""
    trend = module('trend')
    tracked = folder_digest(EXPERIMENTS / 'results')
    monkeypatch.setattr(trend.common, 'RESULTS', tmp_path / 'recorded')
    folder = tmp_path / ('recorded' if record else 'results')
    folder.mkdir()
    claims, depth = trend.claims, module('depth')
    values = {q: [0.99, 0.98] for c in depth.CLAIMS['quick'] for q in c['of']}
    info = dict(
        name='depth', values=values, claims=[claims.judge(c, values) for c in depth.CLAIMS['quick']]
    )
    info['verdict'] = claims.verdict(info['claims'])
    (folder / 'depth-quick.json').write_text(json.dumps(info))
    (folder / 'depth-quick.md').write_text(
        f'# Table 5\n\n{claims.claims_section(info)}\n\n## History\nold\n'
    )
    ran = []
    monkeypatch.setattr(
        trend,
        'point',
        lambda name, i, keys, out, flags: (
            ran.append(keys) or dict(values={q: [0.5 + 0.2 * i] for q in values}, wall_s=1.0)
        ),
    )
    sizes = {'a': {}, 'b': {'max_iters': 2}, 'c': {'max_iters': 4}}
    monkeypatch.setattr(depth, 'TREND', dict(axis='steps', sizes=sizes), raising=False)
    trend.main(['depth', f'--out_dir={tmp_path}', *(['--record'] if record else [])])
    assert ran == [{}, {'max_iters': 2}, {'max_iters': 4}]
    written = json.loads((folder / 'depth-quick.json').read_text())
    assert written['trend']['sizes'] == ['a', 'b', 'c'] and all(
        c['trend'] for c in written['claims']
    )
    md = (folder / 'depth-quick.md').read_text()
    assert 'trend over steps' in md and md.endswith('## History\nold\n')
    assert claims.section_of(md) == claims.claims_section(written), (
        'the claims section rewritten, once'
    )
    assert sorted(p.name for p in folder.iterdir()) == [
        'depth-quick-trend.png',
        'depth-quick.json',
        'depth-quick.md',
    ]
    other = tmp_path / ('results' if record else 'recorded')
    assert not other.exists(), 'the other folder is neither read nor written'
    assert folder_digest(EXPERIMENTS / 'results') == tracked


def test_a_claims_section_is_its_markers_each_once_and_in_order():
    """section_of: markers out of order (or twice) give no section, not the empty text between an
    end and a start, which a replace would put between every two characters of the .md."""
    claims = module('claims')
    start, end = claims.SECTION
    assert claims.section_of(f'a\n{start}\nx\n{end}\nb') == f'{start}\nx\n{end}'
    for text in (f'a {end} x {start} b', f'{start} {start} x {end}', f'{start} x', 'a'):
        assert claims.section_of(text) is None, text
        # what reproduce.py and trend.py say of such a .md: its markers, not "no section"
        with pytest.raises(claims.ConfigError) as e:
            claims.section_in('x-quick.md', text, 'python x.py --quick')
        assert str(e.value) == (
            f'x-quick.md lacks the claims markers {start} ... {end}, each once and in that order: '
            'rerun python x.py --quick'
        )


def test_a_tools_out_dir_is_checked_before_any_work(tmp_path, capsys):
    """gpu_check.py's and profile_step.py's OUT_DIR: '' names none, a file cannot hold files, '~'
    is the home folder, and a dry run never writes in experiments/results/ or a folder in it (it
    would replace the GPU's recorded results with a CPU's, or stand beside them)."""
    common = module('common')
    parser = common.synthetic.Parser('')
    (tmp_path / 'file').write_text('x')
    for value, dry, says in (
        ('', False, "OUT_DIR='' names no folder"),
        (str(tmp_path / 'file'), False, 'Not a directory'),
        (str(common.RESULTS), True, 'would write its figures among the GPU results'),
        (str(common.RESULTS / 'sub'), True, 'would write its figures among the GPU results'),
    ):
        with pytest.raises(SystemExit) as stop:
            common.tool_folder(parser, value, ['x.json'], dry)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err and err.count('\n') == 1, err
    assert not (common.RESULTS / 'sub').exists()
    assert common.tool_folder(parser, str(tmp_path / 'new'), ['x.json'], True) == tmp_path / 'new'
    assert (tmp_path / 'new').is_dir()


def test_trend_plot_has_a_panel_per_measured_claim(tmp_path):
    """A claim measured at no size (Yelp, which --quick skips) gets no empty panel: the figure is as
    wide as without it."""
    trend = module('trend')
    sizes = dict(axis='steps', sizes=['a', 'b'], values={'a': {'x': [0.5]}, 'b': {'x': [0.7]}})
    measured, unmeasured = dict(of=['x'], says='x', bound=0.6), dict(of=['yelp'], says='yelp')
    for name, judged in (
        ('one', [measured]),
        ('two', [measured, unmeasured]),
        ('both', [measured, measured]),
    ):
        trend.plot(sizes, judged, tmp_path / f'{name}.png')
    width = {
        n: struct.unpack('>I', (tmp_path / f'{n}.png').read_bytes()[16:20])[0]
        for n in ('one', 'two', 'both')
    }
    assert width['one'] == width['two'] < width['both']


def test_trend_bad_input_is_one_line():
    """trend.py on an experiment without a TREND: one 'error:' line naming those that have one, exit
    status 2."""
    done = subprocess.run(
        [sys.executable, 'experiments/tools/trend.py', 'covariance_sde'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        done.returncode == 2 and done.stderr.startswith('error:') and done.stderr.count('\n') == 1
    )
    assert 'depth' in done.stderr and 'trend,' not in done.stderr


# a README row: file (a link to its results .md), what it reproduces, verdict (mode), claims that
# agree / contradict / cannot tell, time
ROW = re.compile(
    r'\| \[(\w+)\]\(experiments/results/\1(-quick|-regime)?\.md\) \| [^|]+ '
    r'\| \*\*('
    + '|'.join(VERDICTS)
    + r')\*\* \(([^;|()]+; )?(full|regime|quick)(, earlier code)?\) '
    r'\| \d+ / \d+ / \d+ '
    r'\| [\d.]+ min( in \d+ runs)?( on ([^|]+))? \|'
)


def test_readme_tables_are_the_results(tmp_path):
    """The README's reproduction tables are what reproduce.py generates from the committed results
    JSON and the experiments' claims, one short row a file, each claim's text and evidence in its
    results .md's claims section (--check: both); a results JSON or a claims section edited by hand
    makes the check fail."""
    import shutil

    reproduce = module('reproduce')
    results = tmp_path / 'results'
    shutil.copytree(EXPERIMENTS / 'results', results)
    readme = tmp_path / 'README.md'
    readme.write_text(
        ''.join(
            f'# {table}\n\n{reproduce.MARKERS[0].format(table)}\nold\n'
            f'{reproduce.MARKERS[1].format(table)}\n\n'
            for table in reproduce.TABLES
        )
    )
    readme.write_text(reproduce.readme_with_tables(readme.read_text(), results))
    assert reproduce.check(readme, results) == []
    assert max(map(len, readme.read_text().splitlines())) <= 200, 'a line within 200 characters'
    rows = [line for line in readme.read_text().splitlines() if line.startswith('| [')]
    assert len(rows) == len(reproduce.EXPERIMENTS) and all(ROW.fullmatch(r) for r in rows), rows
    assert [ROW.fullmatch(r)[1] for r in rows] == reproduce.EXPERIMENTS
    # a row's time names its device where that is not a CPU (throughput's, on a GPU)
    devices = {
        name: next(filter(None, (reproduce.load(name, m, results) for m in reproduce.MODES)))[
            'device'
        ]
        for name in reproduce.EXPERIMENTS
    }
    assert {ROW.fullmatch(r)[1]: ROW.fullmatch(r)[9] for r in rows} == {
        n: None if d.startswith('CPU') else d for n, d in devices.items()
    }
    md = results / 'induction-quick.md'
    section = md.read_text()[md.read_text().index('<!-- claims') :]
    assert '✓' in section or '✗' in section, 'the claims, with their marks, are in the results .md'

    md.write_text(md.read_text().replace('**Verdict: ', '**Verdict (edited): '))
    problems = reproduce.check(readme, results)
    assert len(problems) == 1 and 'induction-quick.md' in problems[0] and 'differs' in problems[0]
    path = results / 'induction-quick.json'
    edited = json.loads(path.read_text())
    label = next(iter(edited['values']))
    value = edited['values'][label]
    edited['values'][label] = (
        {**value, 'min': value['min'] - 0.5}
        if isinstance(value, dict)
        else [v - 0.5 for v in value]
    )
    path.write_text(json.dumps(edited))
    problems = reproduce.check(readme, results)
    assert problems and 'differ' in problems[0]

    # the committed README (its tables regenerated by python experiments/tools/reproduce.py
    # --readme)
    done = subprocess.run(
        [sys.executable, 'experiments/tools/reproduce.py', '--check'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert max(map(len, (ROOT / 'README.md').read_text().splitlines())) <= 200


def test_readme_answer_by_task_is_each_variant_less_the_standard(tmp_path):
    """The README's answer by task, from a constructed results folder: each cell the variant's mean
    over the seeds less the standard model's (accuracy in points, loss in nats), linked to its
    results .md (a reference link, defined under the table) and its mode where that is not the
    regime, beside the paper's difference read from the file's PAPER; a family no results measure is
    left out, a quantity not measured says so. A file's row links its results .md."""
    reproduce = module('reproduce')

    def write(name, mode, values):
        path = tmp_path / f'{name}-{mode}.json'
        path.write_text(json.dumps(dict(name=name, mode=mode, date='2026-12-01', values=values)))
        path.with_suffix('.md').write_text('')

    write(
        'induction',
        'regime',
        {'retrieval: standard': [1.0] * 3, 'retrieval: mixit': [0.4, 0.5, 0.6]},
    )
    write(
        'algorithmic',
        'regime',
        {
            'dyck: standard': [0.96, 0.98, 1.0],
            'dyck: frozen_qk': [0.99] * 3,
            'dyck: mixit': [0.7, 0.8, 0.75],
        },
    )
    write(
        'identity_query', 'quick', {'baseline (124M)': [3.0, 3.2], 'W_Q = I (117M)': [3.15, 3.25]}
    )
    lines = reproduce.by_task_table(tmp_path).splitlines()
    assert lines[0] == '| task | ' + ' | '.join(reproduce.COLUMNS) + ' |'
    table = [line for line in lines if line.startswith('|')]
    # each results .md a cell links, once, after a blank line that ends the table
    assert lines[len(table) :] == [
        '',
        *(f'[{n}]: experiments/results/{n}.md' for n in ('induction-regime', 'algorithmic-regime')),
        '[identity_query-quick]: experiments/results/identity_query-quick.md',
    ]
    rows = {}
    for line in table[2:]:
        task, *cells = [c.strip() for c in line[1:-1].split('|')]
        rows[task] = dict(zip(reproduce.COLUMNS, cells))
    assert 'memorization' not in rows and 'retrieval' in rows and 'sentiment (Yelp)' in rows
    # 0.5 - 1.0 = -50 points; the paper's Table 1: 11.24% - 100%
    assert rows['retrieval']['mixit'] == '[−50.0][induction-regime] (−88.8)'
    assert rows['retrieval']['frozen_qk'] == 'not measured (−3.0)'
    # 0.75 - 0.98 = -23 points; Table 3: 96.17% - 95.80%; no frozen_mlp in Table 3
    assert rows['Dyck-1']['mixit'] == '[−23.0][algorithmic-regime] (+0.4)'
    assert rows['Dyck-1']['frozen_mlp'] == ''
    assert rows['Dyck-1']['universal_random'] == 'not measured (−5.6)'  # 94.4% - 100%
    assert rows['sentiment (Yelp)']['mixit'] == 'not measured (+2.0)'  # 92.56% - 90.55%
    # a loss: 3.2 - 3.1 = +0.1 nats, from the preview; the paper's 3.018 - 3.016, and Table 2's
    # WikiText-103 and FineWeb-edu (3.07 - 2.78, 3.16 - 3.05)
    lm = rows['language modelling (loss)']
    assert lm['identity_query'] == '[+0.100 (quick)][identity_query-quick] (+0.002)'
    assert lm['frozen_qk'] == 'not measured (+0.290, +0.110)'
    # Dyck-1's "Frozen-QK and MixiT solve Dyck-1" fails on every seed of MixiT's
    row = reproduce.row('algorithmic', 'Table 3', tmp_path)
    assert row.startswith('| [algorithmic](experiments/results/algorithmic-regime.md) | Table 3 |')
    assert ' | 0 / 1 / ' in row


def test_plan_lists_the_runs_and_trains_nothing(tmp_path):
    """--plan lists each run the protocol would train (its keys, for reproduce.py --plan's prices)
    and trains none: no run folder, no data, no results; the searches' seeds are listed at the
    grid's first point."""
    done = subprocess.run(
        [
            sys.executable,
            'experiments/mixit/depth.py',
            '--quick',
            '--plan',
            f'--out_dir={tmp_path}',
            f'--data_dir={tmp_path / "data"}',
            '--device=cpu',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    plan = json.loads((tmp_path / 'depth-plan.json').read_text())
    # per model: 3 learning rates searched at depth 2, 3 seeds at depths 2 and 8
    assert plan['mode'] == 'quick' and len(plan['runs']) == 18 and plan['corpora'] == []
    assert sorted(r['n_layer'] for r in plan['runs']) == [2] * 12 + [8] * 6
    assert sum('val_frac' in r for r in plan['runs']) == 6 and {
        r['max_iters'] for r in plan['runs']
    } == {1500}
    assert sorted(p.name for p in tmp_path.iterdir()) == ['depth-plan.json']
    # an --at of the searched learning rate would make the search's three runs one: refused
    refused = subprocess.run(
        [sys.executable, 'experiments/mixit/depth.py', '--quick', '--plan']
        + ['--at=learning_rate=0.5', f'--out_dir={tmp_path / "at"}', '--device=cpu'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert refused.returncode == 2 and refused.stderr.count('\n') == 1, refused.stderr[-3000:]
    assert '--at=learning_rate: the search varies learning_rate between its runs' in refused.stderr


def test_dtype_is_every_runs_recorded_and_priced(tmp_path, capsys):
    """--dtype sets every train.py run's compute dtype over the protocol's (float32 by default, as
    the authors' drivers), or an --at of dtype (both only where they agree); reproduce.py prices a
    run at its dtype's peak; tf32 off CUDA, and a dtype other than float32 for an experiment that
    trains nothing through train.py, are one line before any work."""
    common, reproduce = module('common'), module('reproduce')
    protocol = module('algorithmic').PROTOCOL['regime']
    config = {**common.config(protocol, task='dyck', variant='mixit'), 'dtype': 'x'}
    for argv, dtype in (
        ([], 'float32'),
        (['--dtype=bfloat16'], 'bfloat16'),
        (['--at=dtype=float16'], 'float16'),
        (['--dtype=bfloat16', '--at=dtype=bfloat16'], 'bfloat16'),
    ):
        args = common.parse_args('', argv=['--regime', f'--out_dir={tmp_path}', *argv])
        # the dtype every run trains in is the one the results record (args.dtype)
        assert common.train_keys(args, config)['dtype'] == dtype == args.dtype
    # two dtypes, one of them every run's without a word: refused
    for typed in ('--dtype=float32', '--dtype=bfloat16'):
        with pytest.raises(SystemExit) as e:
            common.parse_args(
                '', argv=['--regime', f'--out_dir={tmp_path}', typed, '--at=dtype=float16']
            )
        assert e.value.code == 2 and 'and --at=dtype=float16 disagree' in capsys.readouterr().err
    costs = {
        d: module('common').cost({**config, 'dtype': d}) for d in ('float32', 'tf32', 'bfloat16')
    }
    assert len({c['flops'] for c in costs.values()}) == 1
    assert [c['dtype'] for c in costs.values()] == list(costs)
    assert reproduce.PEAK['float32'] < reproduce.PEAK['tf32'] < reproduce.PEAK['bfloat16']
    assert costs['bfloat16']['memory'] < costs['tf32']['memory'] == costs['float32']['memory']
    for script, flag, says in (
        ('mixit/depth.py', '--dtype=tf32', 'tf32 is a setting of CUDA tensor cores'),
        ('mixit/covariance_sde.py', '--dtype=bfloat16', 'covariance_sde trains nothing through'),
    ):
        out = subprocess.run(
            [sys.executable, f'experiments/{script}', '--smoke', flag, f'--out_dir={tmp_path}'],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 2 and says in out.stderr and out.stderr.count('\n') <= 2, out


def test_micro_batch_splits_a_full_runs_batch_into_the_fewest_that_fit(tmp_path):
    """--micro_batch (full mode): a batch above it runs as the fewest accumulated micro-batches of
    at most that many examples that make it up exactly, the examples a step unchanged; a batch at
    or below it, --quick, and 0 leave it whole; an experiment with a --micro_batch of its own keeps
    it (language_modeling's default 64)."""
    common = module('common')

    parsed = {}

    def keys(argv, batch, accumulate=1):
        if tuple(argv) not in parsed:
            parsed[tuple(argv)] = common.parse_args('', argv=[f'--out_dir={tmp_path}', *argv])
        config = dict(task='dyck', batch_size=batch, gradient_accumulation_steps=accumulate)
        k = common.train_keys(parsed[tuple(argv)], config)
        return k['batch_size'], k['gradient_accumulation_steps']

    assert keys(['--micro_batch=128'], 4000) == (125, 32)
    assert keys(['--micro_batch=128'], 1024) == (128, 8)
    assert keys(['--micro_batch=128'], 256, 2) == (128, 4)
    assert keys(['--micro_batch=7'], 12) == (6, 2)
    assert keys(['--micro_batch=128'], 128) == (128, 1)
    assert keys(['--micro_batch=0'], 4000) == (4000, 1)
    assert keys(['--quick', '--micro_batch=128'], 4000) == (4000, 1)
    for n in range(1, 200):
        for micro in (1, 7, 64):
            b, g = keys([f'--micro_batch={micro}'], n)
            # the fewest: no smaller count of micro-batches divides n into ones of at most micro
            assert b * g == n and b <= micro and all(n % s or n // s > micro for s in range(1, g))
    lm = module('language_modeling')
    args = module('fair').parse_args('', lm.add_flags, argv=[f'--out_dir={tmp_path}'])
    assert args.micro_batch == 64


def test_an_experiments_results_record_its_dtype(tmp_path):
    """A run with --dtype=bfloat16 trains in bfloat16 (each run's config.json) and its results JSON
    says so."""
    out = subprocess.run(
        [
            sys.executable,
            'experiments/mixit/rank_collapse.py',
            '--smoke',
            '--dtype=bfloat16',
            '--device=cpu',
            f'--out_dir={tmp_path}',
            f'--data_dir={tmp_path / "data"}',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads((tmp_path / 'rank_collapse.json').read_text())['dtype'] == 'bfloat16'
    configs = list(tmp_path.glob('rank_collapse/*/config.json'))
    assert configs and {json.loads(c.read_text())['dtype'] for c in configs} == {'bfloat16'}


def test_reproduce_plan_prices_three_tiers(capsys):
    """reproduce.py --plan prices each file in the three tiers, each experiment given the tier's
    flags it takes (induction_heads_map searches nothing: no --halving), each tier costing no more
    than the one before; the table per file and tier ends with the totals."""
    reproduce = module('reproduce')
    assert reproduce.main(['--plan', '--only=memorization_capacity,induction_heads_map']) == 0
    out = capsys.readouterr().out
    assert [line.split(':')[0] for line in out.splitlines() if line.startswith('Tier ')] == [
        'Tier 1',
        'Tier 2',
        'Tier 3',
    ]
    table = out[out.index('H100-hours per file and tier') :].splitlines()[4:]
    rows = {r.split('|')[1].strip(): r.split('|')[2:5] for r in table if r.startswith('| ')}
    assert list(rows) == ['`induction_heads_map.py`', '`memorization_capacity.py`', 'all']
    for name, tiers in rows.items():
        hours = [float(t.split('(')[0]) for t in tiers]
        assert hours[0] > hours[1] >= hours[2] > 0, (name, hours)
    assert not reproduce.takes('induction_heads_map', '--halving')
    assert reproduce.takes('memorization_capacity', '--halving')


def test_reproduce_bad_input_is_one_line(tmp_path, monkeypatch, capsys):
    """A damaged results JSON, or a README without the tables' markers: one 'error:' line, exit
    status 2, and the README is not touched."""
    reproduce = module('reproduce')
    results = tmp_path / 'results'
    results.mkdir()
    (results / 'induction-quick.json').write_text('{"values": ')
    with pytest.raises(reproduce.ConfigError, match='induction-quick.json is damaged'):
        reproduce.check(ROOT / 'README.md', results)
    # a results .md gone beside its JSON: named as missing, and restored by git, not a rerun
    (results / 'induction-quick.json').unlink()
    recorded = ROOT / 'experiments' / 'results' / 'depth-quick.json'
    (results / recorded.name).write_text(recorded.read_text())
    with pytest.raises(
        reproduce.ConfigError,
        match='depth-quick.md is missing beside depth-quick.json: git checkout',
    ):
        reproduce.results_with_sections(results)
    (tmp_path / 'README.md').write_text('# no markers\n')
    monkeypatch.setattr(reproduce, 'ROOT', tmp_path)
    assert reproduce.main(['--readme']) == 2
    err = capsys.readouterr().err
    assert err.startswith('error: README.md lacks the markers') and err.count('\n') == 1
    assert (tmp_path / 'README.md').read_text() == '# no markers\n'
    # a committed results file gone from the checkout: --readme would drop its rows
    monkeypatch.setattr(reproduce, 'gone', lambda results: ['experiments/results/x.json'])
    assert reproduce.main(['--readme']) == 2
    err = capsys.readouterr().err
    assert err == (
        'error: experiments/results/x.json is committed but gone from the checkout: git checkout '
        'it\n'
    )
    assert (tmp_path / 'README.md').read_text() == '# no markers\n'


def test_the_source_digest_reads_the_same_where_python_adds_empty_fields(monkeypatch):
    """Python 3.12 (a GPU machine's) gives every def and class an empty `type_params`, which
    changed ast.dump and so the digest of the same file: results recorded there read "earlier code"
    here. Simulated on this Python by adding the field as 3.12 does."""
    common = module('common')
    code = 'def f(x):\n    return x\n\n\nclass C:\n    pass\n'
    plain = common.syntax(ast.parse(code))
    for cls in (ast.FunctionDef, ast.ClassDef):
        if 'type_params' not in cls._fields:
            monkeypatch.setattr(cls, '_fields', cls._fields + ('type_params',))
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node.type_params = []
    assert 'type_params' in ast.dump(tree)  # the field is there, as on 3.12
    assert common.syntax(tree) == plain


def test_reproduce_runs_what_is_not_current(tmp_path, monkeypatch):
    """reproduce.py --quick runs, in its order, only the experiments whose results were not written
    by their code as it is now (a recovered result has no source: it runs), so a rerun goes on where
    an interrupted one stopped."""
    reproduce, common = module('reproduce'), module('common')
    monkeypatch.setattr(reproduce, 'RESULTS', tmp_path)
    for name in reproduce.EXPERIMENTS:
        (tmp_path / f'{name}-quick.json').write_text(
            json.dumps({'source': common.source_digest(name)})
        )
    (tmp_path / 'depth-quick.json').write_text(json.dumps({'source': None}))
    (tmp_path / 'induction-quick.json').unlink()
    ran = []
    monkeypatch.setattr(
        reproduce.common,
        'run_process',
        lambda cmd, **kw: (
            ran.append(cmd) or subprocess.CompletedProcess(cmd, 1 if 'depth.py' in cmd[1] else 0)
        ),
    )
    assert reproduce.run_all('quick', ['--device=cpu']) == ['depth']
    assert [Path(cmd[1]).stem for cmd in ran] == ['induction', 'depth'] and ran[0][2:] == [
        '--quick',
        '--record',
        '--device=cpu',
    ], 'each run records its results in the folder the README reads'
    assert not reproduce.current('depth', 'quick') and reproduce.current('covariance_sde', 'quick')


def test_check_finds_claims_committed_after_their_results(tmp_path):
    """reproduce.py --check's order: a results JSON must be judged by claims committed strictly
    before it (in the parent of the commit that wrote it; in HEAD while it is uncommitted). Claims
    committed with their results, or after them, or left uncommitted, fail the check."""
    reproduce, common = module('reproduce'), module('common')

    def git(*args):
        subprocess.run(['git', '-C', str(tmp_path), *args], check=True, capture_output=True)

    git('init', '-q')
    git('config', 'user.email', 't@t')
    git('config', 'user.name', 't')
    code, results = tmp_path / 'experiment.py', tmp_path / 'results.json'
    claims = {v: f"CLAIMS = [dict(says='{v}', test='above', bound=0.5, of=['a'])]\n" for v in 'AB'}

    def write(what, version):
        if what == 'claims':
            code.write_text(claims[version])
        else:
            results.write_text(json.dumps({'claims_digest': common.claims_digest(claims[version])}))

    def commit(*files):
        git('add', *files)
        git('commit', '-q', '-m', 'x')

    def problem():
        return reproduce.judged_before(results, code, tmp_path)

    write('claims', 'A')
    commit('experiment.py')
    write('results', 'A')
    assert problem() is None  # uncommitted results, their claims in HEAD
    commit('results.json')
    assert problem() is None  # claims committed strictly before the results
    write('claims', 'B')
    write('results', 'B')
    assert 'in HEAD' in problem()  # judged by claims not yet committed
    commit('experiment.py', 'results.json')
    assert 'strictly before' in problem()  # claims and results in one commit
    write('results', 'A')  # the order reversed: results first, their claims after
    write('claims', 'A')
    commit('results.json')
    commit('experiment.py')
    assert 'strictly before' in problem()
    write('results', 'A')
    results.write_text(results.read_text() + '\n')  # rerun once the claims are committed
    commit('results.json')
    assert problem() is None


def test_a_tie_at_the_ceiling_and_one_sided_words_cannot_fail():
    """The problem's limits are 'cannot tell', never 'failed': an order whose quantities tie on
    every seed at the metric's ceiling (or floor) is unresolved, a tie elsewhere or a seed below
    still fails; one-sided words are tested one-sided, so doing better than the paper holds; a
    'matches' that falls short by less than its seeds spread is unresolved, and one far short on
    every seed fails; a verdict a rule moved after its run says so."""
    claims = module('claims')
    faster = dict(says='qk deteriorates faster', test='descending', of=['standard', 'qk'])
    ceiling = {'standard': [1.0, 1.0, 1.0], 'qk': [1.0, 1.0, 1.0]}
    judged = claims.judge(faster, ceiling)
    assert judged['outcome'] == 'unresolved' and "tie at the metric's ceiling" in judged['evidence']
    floor = claims.judge(dict(faster, test='ascending'), {'standard': [0.0] * 3, 'qk': [0.0] * 3})
    assert floor['outcome'] == 'unresolved' and 'floor' in floor['evidence']
    # not a tie at a bound: a seed below the ceiling, a tie in the middle, a number (no bound)
    assert claims.judge(faster, {'standard': [0.99, 1.0, 1.0], 'qk': [1.0] * 3})['outcome'] == (
        'fails'
    )
    assert claims.judge(faster, {'standard': [0.5] * 3, 'qk': [0.5] * 3})['outcome'] == 'fails'
    loss = dict(faster, fmt='num')
    assert claims.judge(loss, {'standard': [1.0] * 3, 'qk': [1.0] * 3})['outcome'] == 'fails'
    # one-sided: "reaches 4-6% error" and "outperforms by a factor of about 2" (9/6 at worst)
    error = claims.one_sided('reaches 4-6%', ['e'], 0.06)
    ratio = claims.one_sided('by about 2x', ['r'], 9 / 6, lower=False, fmt='num')
    assert [claims.judge(error, {'e': v})['outcome'] for v in ([0.033] * 3, [0.07] * 3)] == [
        'holds',
        'fails',
    ]
    assert [claims.judge(ratio, {'r': v})['outcome'] for v in ([3.1] * 3, [1.2] * 3)] == [
        'holds',
        'fails',
    ]
    # "matches" one-sided (a loss: lower is better; the paper's 3.018 against 3.016)
    match = claims.matches('matches', ['wq', 'base'], [3.018, 3.016], lower=True, fmt='num')
    assert abs(match['tol'] - 0.002 / 3.017) < 1e-6
    cases = {  # wq, base on three seeds -> outcome, by brute force on each seed's shortfall
        'better on every seed, wide seeds': ([1.53, 1.54, 1.545], [1.545, 1.555, 1.564], 'holds'),
        'far worse on every seed': ([1.60, 1.61, 1.605], [1.50, 1.51, 1.505], 'fails'),
        'a little worse, seeds too wide': ([1.56, 1.53, 1.55], [1.555, 1.525, 1.545], 'unresolved'),
    }
    for case, (wq, base, want) in cases.items():
        short = [(a - b) / ((a + b) / 2) for a, b in zip(wq, base)]
        noise = max((max(v) - min(v)) / (sum(v) / 3) for v in (wq, base))
        brute = (
            'holds'
            if all(g <= match['tol'] for g in short)
            else 'unresolved'
            if noise > match['tol'] and min(short) <= noise
            else 'fails'
            if all(g > match['tol'] for g in short)
            else 'split'
        )
        assert brute == want, case
        assert claims.judge(match, {'wq': wq, 'base': base})['outcome'] == want, case
    # accuracy, higher is better, the paper's 100 against 100: tolerance 0
    reach = claims.matches('reaches', ['sparse', 'trained'], [1.0, 1.0])
    assert claims.judge(reach, {'sparse': [0.86, 0.85, 0.88], 'trained': [0.54, 0.85, 0.73]})[
        'outcome'
    ] == ('holds')
    # a verdict a rule moved after the run: its evidence says what it was
    ran = dict(name='x', mode='regime', values=ceiling, claims=[{**faster, 'outcome': 'fails'}])
    moved = claims.judged(ran, [faster], trains=True)['claims'][0]
    assert moved['outcome'] == 'unresolved' and '✗ fails when it ran' in moved['evidence']
    same = claims.judged(dict(ran, claims=[{**faster, 'outcome': 'unresolved'}]), [faster], True)
    assert 'when it ran' not in same['claims'][0]['evidence']


def test_a_diagnosis_closes_a_gap_on_every_seed_and_names_what_it_moves():
    """claims.along in a diagnosis: a moved point that holds on fewer than SEEDS seeds does not
    close the gap, and an axis that moves several settings at once says which."""
    claims = module('claims')
    solves = claims.solves('MixiT solves k-hop', 'k: mixit')
    axis = dict(
        axis='depth',
        sizes=['2', '3'],
        keys={'2': {}, '3': {'n_layer': 3}},
        values={'2': {'k: mixit': [0.8, 0.8, 0.8]}, '3': {'k: mixit': [0.99, 0.98, 0.97]}},
    )
    text = claims.judge(solves, {'k: mixit': [0.8] * 3}, diagnosis=dict(axes={'depth': axis}))
    assert text['evidence'].endswith('closes the gap')
    two = dict(
        axis, values={s: {q: v[:2] for q, v in x.items()} for s, x in axis['values'].items()}
    )
    text = claims.judge(solves, {'k: mixit': [0.8] * 3}, diagnosis=dict(axes={'depth': two}))[
        'evidence'
    ]
    assert 'closes the gap' not in text and 'fewer than 3 seeds' in text
    three = dict(axis, keys={'2': {}, '3': {'n_layer': 3, 'max_hops': 4, 'length': 25}})
    text = claims.judge(solves, {'k: mixit': [0.8] * 3}, diagnosis=dict(axes={'depth': three}))
    assert text['evidence'].endswith('(moving length, max_hops, n_layer at once)')


def test_a_diagnosis_says_which_axis_closes_the_gap():
    """claims.diagnosed: a claim that does not hold, judged at each size of each axis the regime
    protocol moves toward the paper; an axis closes the gap where the claim holds at its last size,
    an axis of another task's claim (measuring none of this one's quantities) is left out, and a
    claim that holds is not diagnosed."""
    claims = module('claims')
    solves = claims.solves('MixiT solves Dyck-1', 'dyck: mixit')
    diagnosis = dict(
        axes={
            'heads': dict(
                axis='heads',
                sizes=['16', '64'],
                values={
                    '16': {'dyck: mixit': [0.7, 0.72, 0.71]},
                    '64': {'dyck: mixit': [0.97, 0.98, 0.99]},
                },
            ),
            'width': dict(
                axis='width',
                sizes=['32', '64', '128'],
                values={
                    '32': {'dyck: mixit': [0.7, 0.72]},
                    '64': {'dyck: mixit': [0.75, 0.74]},
                    '128': {'dyck: mixit': [0.73, 0.76]},
                },
            ),
            'addition depth': dict(
                axis='addition depth',
                sizes=['2', '4'],
                values={'2': {'addition: mixit': [0.8, 0.8]}, '4': {'addition: mixit': [1, 1]}},
            ),
        }
    )
    judged = claims.judge(solves, {'dyck: mixit': [0.7, 0.72]}, diagnosis=diagnosis)
    assert judged['outcome'] == 'fails'
    assert list(judged['diagnosis']) == ['heads', 'width']
    assert 'addition depth' not in judged['evidence']
    assert [p['outcome'] for p in judged['diagnosis']['heads']] == ['fails', 'holds']
    assert 'moving heads: ✗ 16' in judged['evidence']
    assert judged['evidence'].count('closes the gap') == 1  # heads; width: no steady direction
    assert 'moving width' in judged['evidence'] and 'no steady direction' in judged['evidence']
    held = claims.judge(solves, {'dyck: mixit': [0.97, 0.99]}, diagnosis=diagnosis)
    assert 'diagnosis' not in held and 'moving' not in held['evidence']
    # a GPU's speed along a diagnosis measured on a GPU (throughput's, by hand on the H200) is
    # judged at each size; the same numbers with no device named are unresolved
    speed = dict(says='faster', test='above', bound=1.2, of=['a'], gpu=True, fmt='num')
    eager = dict(
        axes={'eager': dict(sizes=['no', 'yes'], values={'no': {'a': [1.1]}, 'yes': {'a': [1.3]}})}
    )
    on_gpu = claims.judge(
        speed, {'a': [1.1]}, device='NVIDIA H200', diagnosis={**eager, 'device': 'NVIDIA H200'}
    )
    assert [p['outcome'] for p in on_gpu['diagnosis']['eager']] == ['fails', 'holds']
    unnamed = claims.judge(speed, {'a': [1.1]}, device='NVIDIA H200', diagnosis=eager)
    assert [p['outcome'] for p in unnamed['diagnosis']['eager']] == ['unresolved'] * 2
    # the results' text marks a failing claim of the regime that no axis diagnoses (none measures
    # its quantities: mixit_heads' Dyck-1 beside its addition axis), and no other
    other = claims.judge(
        claims.solves('MixiT solves addition', 'addition: mixit'),
        {'addition: mixit': [0.8, 0.8]},
        diagnosis=dict(diagnosis, axes={'heads': diagnosis['axes']['heads']}),
    )
    assert 'diagnosis' not in other and 'moving' not in other['evidence']
    results = dict(
        name='algorithmic', mode='regime', verdict='Partly', claims=[judged, held, other]
    )
    lines = claims.claims_text(results).splitlines()[2:]
    assert ['not diagnosed yet' in line for line in lines] == [False, False, True]
    assert 'not diagnosed yet' not in claims.claims_text(dict(results, mode='quick'))


def test_a_claim_beyond_a_cpu_says_why_where_it_does_not_hold():
    """A DIAGNOSIS's `beyond` ({a claim's first words: why}) stays with each claim it begins, and
    the regime's text gives its reason beside a failing or split claim, diagnosed or not, and never
    beside one that holds or in another mode; every `beyond` declared begins a claim of --regime."""
    claims = module('claims')
    heads = dict(says='more heads help MixiT on Dyck-1 (1, 2)', test='ascending', of=['h1', 'h2'])
    other = claims.solves('MixiT solves addition', 'addition: mixit')
    declared = [heads, other]
    beyond = {'more heads help MixiT on Dyck-1': 'the width, over 2 hours'}
    split = dict(name='x', mode='regime', values={'h1': [0.5, 0.7], 'h2': [0.6, 0.6]})
    split['values']['addition: mixit'] = [0.8, 0.8]
    results = claims.judged(split, declared, trains=True, beyond=beyond)
    assert [c.get('beyond') for c in results['claims']] == ['the width, over 2 hours', None]
    assert results['claims'][0]['outcome'] == 'split'
    lines = [line for line in claims.claims_text(results).splitlines() if line.startswith('- ')]
    assert lines[0].endswith('; not diagnosed on a CPU: the width, over 2 hours')
    assert 'not diagnosed yet' in lines[0] and 'on a CPU' not in lines[1]
    held = dict(split, values=dict(split['values'], h1=[0.5, 0.5], h2=[0.6, 0.6]))
    text = claims.claims_text(claims.judged(held, declared, trains=True, beyond=beyond))
    assert 'on a CPU' not in text
    assert 'on a CPU' not in claims.claims_text(dict(results, mode='quick'))
    for path in REPRODUCTIONS:
        experiment = module(path.stem)
        beyond = getattr(experiment, 'DIAGNOSIS', {}).get('beyond', {})
        says = [c['says'] for c in claims.of_mode(experiment.CLAIMS, 'regime')] if beyond else []
        for start in beyond:
            assert any(s.startswith(start) for s in says), (path.stem, start)


@pytest.mark.parametrize('path', REPRODUCTIONS, ids=name_of)
def test_every_training_experiment_records_its_regime(path):
    """An experiment that trains (through train.py or an optimizer of its own) declares REGIME: for
    every mode of its PROTOCOL, each regime quantity beside the paper's, and reports it; its full
    protocol is the paper's regime, its --regime protocol (where one fits a CPU) at least that."""
    text = path.read_text()
    trains = 'common.config(' in text or 'torch.optim' in text
    mod = module(path.stem)
    if not trains:
        assert not hasattr(mod, 'REGIME'), 'REGIME in an experiment that trains nothing'
        return
    assert hasattr(mod, 'REGIME') and 'REGIME[args.mode]' in text, (
        f'{path.stem}: no REGIME reported'
    )
    modes = set(mod.PROTOCOL) if hasattr(mod, 'PROTOCOL') else set(mod.REGIME)
    assert set(mod.REGIME) >= modes, f'{path.stem}: REGIME lacks {modes - set(mod.REGIME)}'
    for mode in {'full', 'regime'} & set(mod.REGIME):
        for r in mod.REGIME[mode]:
            assert set(r) == {'quantity', 'ours', 'paper'}, r
            assert r['ours'] >= r['paper'], f'{path.stem} --{mode}: {r} is below the regime'


# memorization_capacity's regime values, three seeds (its results of 2026-11-26, rounded): the fully
# trained model stores the most bits per parameter, MixiT 0.54 below Frozen-QK (not similar)
MEMORIZATION_REGIME = {
    'standard': [0.961, 0.963, 0.961],
    'frozen_mlp': [0.264, 0.268, 0.262],
    'frozen_qk': [0.755, 0.740, 0.751],
    'mixit': [0.587, 0.586, 0.570],
    'standard, bits/param': [2.816, 2.822, 2.817],
    'frozen_mlp, bits/param': [1.450, 1.472, 1.439],
    'frozen_qk, bits/param': [2.401, 2.352, 2.389],
    'mixit, bits/param': [1.859, 1.858, 1.808],
}


def memorization_regime_results(folder):
    """memorization_capacity's regime results of MEMORIZATION_REGIME's values, as a run without
    --record writes them (common.report, in-process): in folder/results/."""
    common, mem = module('common'), module('memorization_capacity')
    args = common.parse_args('', argv=['--regime', f'--out_dir={folder}'])
    common.report(
        args,
        'memorization_capacity',
        'Table 4',
        ['variant'],
        [{'variant': 'standard'}],
        values=MEMORIZATION_REGIME,
        claims=mem.CLAIMS,
        regime=mem.REGIME['regime'],
    )


def test_trend_diagnose_writes_the_diagnosis_into_the_regime_results(tmp_path, monkeypatch):
    """trend.py --diagnose runs each size of each DIAGNOSIS axis from the regime protocol (here
    stood in for by their values) and writes the diagnosis into the regime results, where the claim
    that fails says which axis closes the gap; the verdict keeps the results' standing. The regime
    results are the report of a run without --record (common.report, in-process): in
    OUT_DIR/results/, where trend.py without --record reads and rewrites them, the tracked results
    untouched."""
    trend, mem = module('trend'), module('memorization_capacity')
    tracked = folder_digest(EXPERIMENTS / 'results')
    memorization_regime_results(tmp_path)
    assert sorted(p.name for p in (tmp_path / 'results').iterdir()) == [
        'memorization_capacity-regime.json',
        'memorization_capacity-regime.md',
    ]
    regime = json.loads((tmp_path / 'results' / 'memorization_capacity-regime.json').read_text())
    assert regime['verdict'] == 'Partly'
    ran = []

    def point(name, index, keys, out_dir, flags, mode):  # the sizes' values, without training
        ran.append((index, keys, mode, flags))
        close = {**regime['values'], 'mixit, bits/param': regime['values']['frozen_qk, bits/param']}
        return dict(values=close if keys else regime['values'], wall_s=1.0)

    monkeypatch.setattr(trend, 'point', point)
    # an axis of flags of its own ('flags_of') has its own regime point; one of the same flags
    # shares it
    width = mem.DIAGNOSIS['axes']['width']
    axes = {'width': width, 'width again': width, 'other width': width}
    spec = dict(mem.DIAGNOSIS, axes=axes, flags_of={'other width': ['--no-halving']})
    monkeypatch.setattr(mem, 'DIAGNOSIS', spec)
    trend.main(['memorization_capacity', '--diagnose', f'--out_dir={tmp_path}'])
    assert [i for i, _, _, _ in ran] == [
        'regime',
        'width/1',
        'regime',
        'width again/1',
        'regime1',
        'other width/1',
    ]
    assert all(m == 'regime' for _, _, m, _ in ran)
    assert ran[0][3][:2] == [f'--seeds={trend.DIAGNOSIS_SEEDS}', '--no-search']
    assert ran[4][3] == [f'--seeds={trend.DIAGNOSIS_SEEDS}', '--no-search', '--no-halving']
    assert ran[0][3] == ran[2][3] != ran[4][3]
    # each axis's time holds its regime point; the diagnosis's counts the shared one once
    first = json.loads((tmp_path / 'results' / 'memorization_capacity-regime.json').read_text())
    assert [a['wall_s'] for a in first['diagnosis']['axes'].values()] == [2.0, 2.0, 2.0]
    assert first['diagnosis']['wall_s'] == 5.0
    monkeypatch.setattr(mem, 'DIAGNOSIS', dict(spec, axes={'width': width}, flags_of={}))
    ran.clear()
    trend.main(['memorization_capacity', '--diagnose', f'--out_dir={tmp_path}'])
    assert [(i, m) for i, _, m, _ in ran] == [('regime', 'regime'), ('width/1', 'regime')]
    written = json.loads((tmp_path / 'results' / 'memorization_capacity-regime.json').read_text())
    assert list(written['diagnosis']['axes']) == ['width']
    similar = next(c for c in written['claims'] if c['test'] == 'close')
    assert similar['outcome'] == 'fails' and 'moving width' in similar['evidence']
    assert 'closes the gap' in similar['evidence']
    held = [c for c in written['claims'] if c['outcome'] == 'holds']
    assert held and not any('diagnosis' in c for c in held)
    assert written['verdict'] == 'Partly' and written['standing'] == []
    assert (
        'Diagnosis (experiments/tools/trend.py --diagnose'
        in (tmp_path / 'results' / 'memorization_capacity-regime.md').read_text()
    )
    assert folder_digest(EXPERIMENTS / 'results') == tracked


def test_induction_runs_a_task_at_a_time_into_one_results_file(tmp_path, monkeypatch):
    """induction.py --tasks (its DIAGNOSIS runs k-hop alone): a piece trains only the tasks it
    names and its results say the command that runs the other; the next piece merges both tasks
    into one results file that names both commands and judges every claim (stand-in comparisons:
    MixiT at 50%, every other variant at 100%; retrieval's claims unresolved, its problem not the
    paper's)."""
    induction, harness_fair = module('induction'), module('fair')
    trained = []

    def comparison(args, name, config, family, fixed=()):
        trained.append(config['task'])
        accuracy = 0.5 if config['variant'] == 'mixit' else 1.0
        return dict(grid=[], chosen={}, runs=[{'val_acc': accuracy}] * args.seeds)

    monkeypatch.setattr(harness_fair, 'fair', comparison)

    def piece(task):
        argv = ['induction.py', '--regime', f'--tasks={task}', f'--out_dir={tmp_path}']
        monkeypatch.setattr(sys, 'argv', argv)
        induction.main()
        results = tmp_path / 'results'
        written = json.loads((results / 'induction-regime.json').read_text())
        return written, (results / 'induction-regime.md').read_text()

    results, md = piece('khop')
    assert trained == ['khop'] * 4 and 'not run yet: --tasks=retrieval' in md
    assert {c['outcome'] for c in results['claims']} == {'holds', 'untested'}
    results, md = piece('retrieval')
    assert trained[4:] == ['retrieval'] * 4 and 'not run yet' not in md
    labels = {f'{t}: {v}' for t in induction.TASK_NAMES.values() for v in induction.VARIANT_ORDER}
    assert set(results['fair']) == labels
    assert [re.search(r'--tasks=(\S+)', p['command'])[1] for p in results['pieces']] == [
        'khop',
        'retrieval',
    ]
    # every claim judged: k-hop's hold; retrieval's, on a problem that is not the paper's at m_max 4
    # (harness/problems.py), are unresolved
    on_retrieval = [any(q.startswith('retrieval') for q in c['of']) for c in results['claims']]
    outcomes = [c['outcome'] for c in results['claims']]
    assert {o for o, r in zip(outcomes, on_retrieval) if not r} == {'holds'}
    assert {o for o, r in zip(outcomes, on_retrieval) if r} == {'unresolved'}
    assert results['verdict'] == 'Partly'


def test_a_diagnosis_passes_its_experiment_only_flags_it_takes(tmp_path, monkeypatch):
    """trend.py --diagnose reads each experiment's options from its --help: --no-search goes to a
    comparison that searches and not to induction_heads_map, which has no search (its diagnosis
    stopped on it after 7 s); every flag a DIAGNOSIS declares is one its file takes; one it does
    not take stops the diagnosis before any size runs."""
    trend, mem = module('trend'), module('memorization_capacity')
    heads_map = trend.options('induction_heads_map')
    assert '--seeds' in heads_map and '--no-search' not in heads_map
    for path in REPRODUCTIONS:
        spec = getattr(module(path.stem), 'DIAGNOSIS', {})
        declared = {*spec.get('flags', []), *sum(spec.get('flags_of', {}).values(), [])}
        if declared:
            taken = trend.options(path.stem)
            assert {f.split('=')[0] for f in declared} <= taken, (path.stem, declared)
    memorization_regime_results(tmp_path)
    ran = []
    monkeypatch.setattr(trend, 'point', lambda *a, **k: ran.append(a))
    monkeypatch.setattr(mem, 'DIAGNOSIS', dict(mem.DIAGNOSIS, flags=['--tasks=addition']))
    with pytest.raises(
        trend.ConfigError, match='passes --tasks=addition, which memorization_capacity'
    ):
        trend.main(['memorization_capacity', '--diagnose', f'--out_dir={tmp_path}'])
    assert ran == []


def test_a_diagnosis_takes_the_regime_point_from_the_regime_runs_own_seeds(tmp_path, monkeypatch):
    """The regime's own point of a diagnosis is its run's first seeds where those are the runs it
    would train (same code, no search chose anything, no --at): nothing runs for it, and it holds
    the quantities the axis's other sizes measure (their tasks); where a search chose a point, or
    the code changed, the point runs."""
    trend, common, mem = module('trend'), module('common'), module('memorization_capacity')
    memorization_regime_results(tmp_path)
    path = tmp_path / 'results' / 'memorization_capacity-regime.json'
    results = json.loads(path.read_text())
    measured = ['frozen_qk, bits/param', 'mixit, bits/param']
    ran = []

    def point(name, index, keys, out_dir, flags, mode):
        ran.append(index)
        return dict(values={q: MEMORIZATION_REGIME[q][:n] for q in measured}, wall_s=1.0)

    n = trend.DIAGNOSIS_SEEDS
    monkeypatch.setattr(trend, 'point', point)
    width = mem.DIAGNOSIS['axes']['width']
    monkeypatch.setattr(mem, 'DIAGNOSIS', dict(mem.DIAGNOSIS, axes={'width': width}))

    def diagnosed(chosen):
        fair = {v: dict(grid=[], chosen=chosen, seeds=[{}, {}, {}]) for v in ('a', 'b')}
        path.write_text(json.dumps({**results, 'fair': fair}))
        ran.clear()
        trend.main(['memorization_capacity', '--diagnose', f'--out_dir={tmp_path}'])
        return json.loads(path.read_text())['diagnosis']['axes']['width'], list(ran)

    axis, runs = diagnosed({})
    assert runs == ['width/1'] and axis['regime point'] == f'the regime run, seeds 0-{n - 1}'
    first = axis['values'][axis['sizes'][0]]
    assert first == {q: MEMORIZATION_REGIME[q][:n] for q in measured}
    axis, runs = diagnosed({'learning_rate': 1e-3})
    assert runs == ['regime', 'width/1'] and 'regime point' not in axis
    monkeypatch.setattr(common, 'source_digest', lambda name: 'other code')
    assert diagnosed({})[1] == ['regime', 'width/1']


def test_a_measured_axis_judges_each_claim_at_each_size_alone_and_runs_nothing(
    tmp_path, monkeypatch
):
    """A DIAGNOSIS axis the regime run measures itself (mlp_basis_transfer's widths): trend.py
    --diagnose runs nothing and judges each failing claim on each width's quantities alone, from
    regime results of the same code (here constructed: the MLP's error 6.5 / 5.5 / 5.0%, the linear
    map's cosine distance 0.005 at every width); results of other code are refused."""
    trend, common, mlp = module('trend'), module('common'), module('mlp_basis_transfer')
    widths = mlp.scaled(**mlp.PROTOCOL['regime'])['widths']
    values = {}
    for h, err in zip(widths, (0.065, 0.055, 0.05)):
        values.update(
            {
                f'MLP relative L2 error, h={h}': [err, err + 0.001, err - 0.001],
                f'linear A* relative L2 error, h={h}': [0.10, 0.10, 0.10],
                f'linear / MLP error ratio, h={h}': [0.10 / err] * 3,
                f'MLP cosine distance, h={h}': [0.001] * 3,
                f'linear cosine distance, h={h}': [0.005, 0.0051, 0.0049],
            }
        )
    args = common.parse_args('', argv=['--regime', f'--out_dir={tmp_path}'])
    common.report(
        args,
        'mlp_basis_transfer',
        'Appendix 8.3',
        ['h'],
        [{'h': 1}],
        values=values,
        claims=mlp.CLAIMS,
        regime=mlp.REGIME['regime'],
    )
    monkeypatch.setattr(trend, 'point', lambda *a: pytest.fail('a size ran'))
    trend.main(['mlp_basis_transfer', '--diagnose', f'--out_dir={tmp_path}'])
    written = json.loads((tmp_path / 'results' / 'mlp_basis_transfer-regime.json').read_text())
    (axis,) = written['diagnosis']['axes']
    assert written['diagnosis']['seeds'] == 3 and written['diagnosis']['wall_s'] == 0
    assert written['diagnosis']['flags'] == []
    by = {c['says'].split(' (')[0]: c for c in written['claims']}
    error = by['the trained skip-GELU MLP reaches 4-6% relative L2 error']
    assert [p['outcome'] for p in error['diagnosis'][axis]] == ['fails', 'holds', 'holds']
    assert error['evidence'].endswith('closes the gap')
    distance = by["the linear map's cosine distance remains above 0.009"]
    assert [p['outcome'] for p in distance['diagnosis'][axis]] == ['fails'] * 3
    assert 'diagnosis' not in by['the best linear map A* stays at 9-14%']
    assert (
        "the regime run's own"
        in (tmp_path / 'results' / 'mlp_basis_transfer-regime.md').read_text()
    )
    monkeypatch.setattr(common, 'source_digest', lambda name: 'other code')
    with pytest.raises(trend.ConfigError, match='other code than mlp_basis_transfer.py now'):
        trend.main(['mlp_basis_transfer', '--diagnose', f'--out_dir={tmp_path}'])


def test_trend_diagnose_axes_runs_those_and_keeps_the_axes_run_before(tmp_path, monkeypatch):
    """--axes runs only the named axes of a DIAGNOSIS; the axes diagnosed before on the same code
    stay in the results (a diagnosis in parts), those of other code do not; an axis that is not one,
    or --axes without --diagnose, is refused before anything runs."""
    trend, common, mem = module('trend'), module('common'), module('memorization_capacity')
    memorization_regime_results(tmp_path)
    ran = []

    def point(name, index, keys, out_dir, flags, mode):
        ran.append(index)
        return dict(values=MEMORIZATION_REGIME, wall_s=1.0)

    monkeypatch.setattr(trend, 'point', point)
    width = mem.DIAGNOSIS['axes']['width']
    monkeypatch.setattr(mem, 'DIAGNOSIS', dict(mem.DIAGNOSIS, axes={'width': width, 'w2': width}))
    written = tmp_path / 'results' / 'memorization_capacity-regime.json'

    def diagnosed(*flags):
        ran.clear()
        trend.main(['memorization_capacity', '--diagnose', f'--out_dir={tmp_path}', *flags])
        return list(json.loads(written.read_text())['diagnosis']['axes']), list(ran)

    assert diagnosed('--axes=width') == (['width'], ['regime', 'width/1'])
    assert diagnosed('--axes=w2') == (['width', 'w2'], ['regime', 'w2/1'])
    monkeypatch.setattr(common, 'source_digest', lambda name: 'other code')
    assert diagnosed('--axes=w2') == (['w2'], ['regime', 'w2/1'])
    monkeypatch.setattr(trend, 'point', lambda *a: pytest.fail('a size ran'))
    with pytest.raises(trend.ConfigError, match='heigth is not an axis'):
        trend.main(
            ['memorization_capacity', '--diagnose', '--axes=heigth', f'--out_dir={tmp_path}']
        )
    with pytest.raises(trend.ConfigError, match='give --diagnose with it'):
        trend.main(['memorization_capacity', '--axes=width', f'--out_dir={tmp_path}'])
    with pytest.raises(SystemExit):  # --axes=$A, A unset: not every axis, hours of runs
        trend.main(['memorization_capacity', '--diagnose', '--axes=', f'--out_dir={tmp_path}'])


# ----------------------------------------------------------------------------- every entry point:
# a flag obeyed or refused, a path used as given (~ expanded), errors before the work, no file read
# through a link, no process left behind


def snapshot(folder):
    """{path: bytes} of every file under folder (links as their target's name): what a refused
    command must leave as it was."""
    return {
        p: (str(p.readlink()) if p.is_symlink() else p.read_bytes())
        for p in sorted(Path(folder).rglob('*'))
        if p.is_symlink() or p.is_file()
    }


def assert_one_line(err, says):
    assert err.startswith('error: ') and err.count('\n') == 1 and says in err, err


def readme_of(reproduce, order=('start', 'end'), starts=1):
    """A README with each paper's markers, in `order`, the start marker `starts` times."""
    marks = {'start': reproduce.MARKERS[0], 'end': reproduce.MARKERS[1]}
    return ''.join(
        f'# {paper}\n\n'
        + ''.join(
            (marks[m].format(paper) + '\n') * (starts if m == 'start' else 1) + 'old\n'
            for m in order
        )
        for paper in reproduce.TABLES
    )


def damaged_results(tmp_path, text):
    (tmp_path / 'results' / 'induction-quick.json').write_text(text)


@pytest.mark.parametrize(
    'argv, setup, says',
    [
        # markers out of order, duplicated: refused, the README kept (not tables twice)
        (
            ['--readme'],
            lambda r, t: (t / 'README.md').write_text(readme_of(r, ('end', 'start'))),
            'README.md lacks the markers',
        ),
        (
            ['--readme'],
            lambda r, t: (t / 'README.md').write_text(readme_of(r, starts=2)),
            'each once and in that order',
        ),
        # no README, or a folder in its place: found before any experiment runs
        (['--quick'], lambda r, t: (t / 'README.md').unlink(), 'README.md (No such file'),
        (
            ['--quick'],
            lambda r, t: ((t / 'README.md').unlink(), (t / 'README.md').mkdir()),
            'README.md (Is a directory',
        ),
        # --only: a name it does not know, or a mode that reads every result
        (['--quick', '--only=nope'], None, '--only=nope: name experiments among induction, '),
        (['--regime', '--only=throughput'], None, '--only=throughput: name experiments among'),
        (['--readme', '--only=depth'], None, '--readme and --check read every recorded result'),
        # two commands, or a protocol for one that reads every protocol's: never one left unsaid
        (['--check', '--readme'], None, '--readme and --check are two commands: give one of them'),
        (['--check', '--quick'], None, '--readme and --check read every recorded result'),
        (['--quick', '--regime'], None, '--quick and --regime are two protocols'),
        (['--readme', '--', '--smoke'], None, '--readme and --check read every recorded result'),
        # a results JSON edited by hand: a list, a key missing, a value of another type
        (['--quick'], lambda r, t: damaged_results(t, '[]'), 'induction-quick.json is damaged'),
        (['--readme'], lambda r, t: damaged_results(t, '{"mode": "quick"}'), "(no 'name')"),
        (
            ['--readme'],
            lambda r, t: damaged_results(
                t, json.dumps(dict(name='induction', mode='quick', date='d', values=[1.0]))
            ),
            "'values' holds a list",
        ),
        (
            ['--readme'],
            lambda r, t: damaged_results(
                t, json.dumps(dict(name='induction', mode='quick', date='d', values={'a': 'x'}))
            ),
            "'a' is not a number per seed",
        ),
        # booleans for accuracies, JSON's NaN, a file renamed to another mode's
        (
            ['--readme'],
            lambda r, t: damaged_results(
                t, json.dumps(dict(name='induction', mode='quick', date='d', values={'a': [True]}))
            ),
            "'a' is not a number per seed",
        ),
        (
            ['--readme'],
            lambda r, t: damaged_results(
                t,
                json.dumps(dict(name='induction', mode='quick', date='d', values={'a': math.nan})),
            ),
            "'a' is not a number per seed",
        ),
        (
            ['--readme'],
            lambda r, t: damaged_results(
                t, json.dumps(dict(name='induction', mode='regime', date='2026-11-27', values={}))
            ),
            "it says 'induction' in mode 'regime', not this file's",
        ),
        # --only= of an unset variable: not every experiment, hours of runs
        (['--quick', '--only='], None, "'' names none (an unset variable?)"),
    ],
    ids=[
        'markers out of order',
        'marker twice',
        'no README',
        'README a folder',
        'only unknown',
        'only without a regime',
        'only with readme',
        'check and readme',
        'check with quick',
        'quick and regime',
        'readme with arguments after --',
        'results a list',
        'results without a key',
        'values a list',
        'a value not numbers',
        'booleans for numbers',
        'a NaN',
        'another mode',
        'only empty',
    ],
)
def test_reproduce_refuses_before_it_runs_anything(
    argv, setup, says, tmp_path, monkeypatch, capsys
):
    """reproduce.py's bad input: one line, exit status 2, before any experiment runs, and nothing in
    its folder (the README, the results) changed."""
    reproduce = module('reproduce')
    ran = []
    monkeypatch.setattr(reproduce.common, 'run_process', lambda cmd, **kw: ran.append(cmd))
    monkeypatch.setattr(reproduce, 'ROOT', tmp_path)
    monkeypatch.setattr(reproduce, 'RESULTS', tmp_path / 'results')
    monkeypatch.setattr(reproduce, 'UNSHOWN', [])
    (tmp_path / 'results').mkdir()
    (tmp_path / 'README.md').write_text(readme_of(reproduce))
    if setup:
        setup(reproduce, tmp_path)
    before = snapshot(tmp_path)
    try:
        status = reproduce.main(argv)
    except SystemExit as e:  # the parser's refusal
        status = e.code
    assert status == 2
    assert_one_line(capsys.readouterr().err, says)
    assert ran == [] and snapshot(tmp_path) == before


def test_check_names_a_committed_results_file_gone_first(tmp_path, monkeypatch):
    """A results JSON deleted since its commit: --check names it and says to git checkout it,
    before the tables that differ (--readme would show another mode's results in its place)."""
    reproduce = module('reproduce')
    monkeypatch.setattr(reproduce, 'ROOT', tmp_path)
    (tmp_path / 'results').mkdir()
    (tmp_path / 'README.md').write_text(readme_of(reproduce))
    (tmp_path / 'results' / 'x.json').write_text('{}')
    git = ['git', '-C', str(tmp_path), '-c', 'user.name=t', '-c', 'user.email=t@t']
    for args in (['init', '-q'], ['add', '.'], ['commit', '-qm', 'results']):
        subprocess.run([*git, *args], check=True)
    assert not [
        p for p in reproduce.check(tmp_path / 'README.md', tmp_path / 'results') if 'x.json' in p
    ]
    (tmp_path / 'results' / 'x.json').unlink()
    problems = reproduce.check(tmp_path / 'README.md', tmp_path / 'results')
    assert problems[0] == 'results/x.json is committed but gone from the checkout: git checkout it'


def test_reproduce_only_runs_those_named(tmp_path, monkeypatch, capsys):
    """--only=depth runs depth alone (each in a process group of its own: common.run_process), then
    writes the README's tables."""
    reproduce = module('reproduce')
    ran = []
    monkeypatch.setattr(
        reproduce.common,
        'run_process',
        lambda cmd, **kw: ran.append(Path(cmd[1]).stem) or subprocess.CompletedProcess(cmd, 0),
    )
    monkeypatch.setattr(reproduce, 'ROOT', tmp_path)
    monkeypatch.setattr(reproduce, 'RESULTS', tmp_path / 'results')
    monkeypatch.setattr(reproduce, 'UNSHOWN', [])
    (tmp_path / 'results').mkdir()
    (tmp_path / 'README.md').write_text(readme_of(reproduce))
    assert reproduce.main(['--quick', '--only=depth,induction']) == 0
    assert ran == ['induction', 'depth'] and reproduce.UNSHOWN == []
    assert (tmp_path / 'README.md').read_text().count('| not run |') == len(reproduce.EXPERIMENTS)


# a stand-in for an experiment: `slow` sleeps after starting a worker of its own (as throughput.py
# does), and prints both pids; any other ends at once
STAND_IN = (
    'import os, subprocess, sys, time\n'
    "if sys.argv[1] == 'slow':\n"
    "    w = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    '    print(os.getpid(), w.pid, flush=True)\n'
    '    time.sleep(60)\n'
)
# reproduce.py as its command line runs it, on a README and results in argv[1], the stand-in for
# every experiment
REPRODUCE = (
    'import sys\n'
    f'sys.path.insert(0, {str(ROOT)!r})\n'
    'from pathlib import Path\n'
    'from experiments.tools import reproduce as r\n'
    'r.ROOT, r.RESULTS = Path(sys.argv[1]), Path(sys.argv[1]) / "results"\n'
    'r.command = lambda name, mode, *flags: [sys.executable, "-c", sys.argv[2], '
    '"slow" if name == "depth" else "fast"]\n'
    # as a terminal's foreground process: a shell's background job (pytest under nohup, or after
    # '&') starts with SIGINT and SIGHUP ignored, which stop_on_signal rightly leaves ignored
    'import signal\n'
    'signal.signal(signal.SIGINT, signal.default_int_handler)\n'
    'signal.signal(signal.SIGHUP, signal.SIG_DFL)\n'
    'r.common.stop_on_signal(r.unshown)\n'
    'sys.exit(r.main(["--quick", "--only=induction,depth"]))\n'
)


def gone(pid):
    """Whether a process has ended (a zombie waiting for its parent to read its status has)."""
    try:
        return Path(f'/proc/{pid}/stat').read_text().split(')')[-1].split()[0] == 'Z'
    except FileNotFoundError:
        return True


def wait_for_pids(proc):
    """The pids a stand-in printed (one line of them), reading the process's output until then."""
    for line in proc.stdout:
        if re.fullmatch(r'\d+( \d+)*\n', line):
            return [int(p) for p in line.split()]
    raise AssertionError(f'no pids printed: {proc.wait()} {proc.stderr.read()[-2000:]}')


@pytest.mark.skipif(sys.platform != 'linux', reason='reads /proc')
@pytest.mark.parametrize('sig', ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'])
def test_reproduce_stopped_ends_the_experiment_it_runs(sig, tmp_path):
    """A stop of reproduce.py (a kill, Ctrl-C, the terminal closed, Ctrl-\\) ends the experiment it
    runs and whatever that started, at once, in one line that names the results the README does not
    show yet (induction finished before depth was stopped): no experiment left writing results."""
    import signal
    import time

    reproduce = module('reproduce')
    (tmp_path / 'results').mkdir()
    (tmp_path / 'README.md').write_text(readme_of(reproduce))
    proc = subprocess.Popen(
        [sys.executable, '-c', REPRODUCE, str(tmp_path), STAND_IN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = []
    try:
        pids = wait_for_pids(proc)
        proc.send_signal(getattr(signal, sig))
        assert proc.wait(timeout=10) == 128 + getattr(signal, sig)
        t0 = time.time()
        while not all(map(gone, pids)) and time.time() < t0 + 5:
            time.sleep(0.05)
        assert all(map(gone, pids)), 'the experiment or its worker still runs'
        err = proc.stderr.read().split('\r')[-1]  # the progress bar's last state, then the lines
        assert 'Traceback' not in err and err.endswith(f'\nstopped by {sig}\n')
        assert 'the README does not show the results of induction yet' in err
    finally:
        proc.kill()
        for pid in pids:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


# throughput.py's measurement, its worker stood in for by a process that writes its pid and sleeps
THROUGHPUT = (
    'import sys\n'
    f'sys.path.insert(0, {str(ROOT)!r})\n'
    'from experiments.mixit import throughput\n'
    'throughput.__file__ = sys.argv[1]\n'
    'throughput.common.command_line_process()\n'
    "throughput.in_subprocess('memory', {})\n"
)


@pytest.mark.skipif(sys.platform != 'linux', reason='reads /proc')
def test_throughput_stopped_ends_its_worker(tmp_path):
    """A kill of throughput.py ends the worker it measures in (in_subprocess) with it."""
    import signal
    import time

    worker = tmp_path / 'worker.py'
    worker.write_text(
        f'import os, time\nopen({str(tmp_path / "pid")!r}, "w").write(str(os.getpid()))\n'
        'time.sleep(60)\n'
    )
    proc = subprocess.Popen([sys.executable, '-c', THROUGHPUT, str(worker)])
    pid = None
    try:
        t0 = time.time()
        while not (tmp_path / 'pid').exists() and time.time() < t0 + 60:
            assert proc.poll() is None, 'throughput.py ended before its worker started'
            time.sleep(0.05)
        time.sleep(0.1)  # the pid written whole
        pid = int((tmp_path / 'pid').read_text())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 128 + signal.SIGTERM
        t0 = time.time()
        while not gone(pid) and time.time() < t0 + 5:
            time.sleep(0.05)
        assert gone(pid), 'the worker still runs'
    finally:
        proc.kill()
        if pid and not gone(pid):
            os.kill(pid, signal.SIGKILL)


def linked_log(t):  # a run whose log.jsonl is a link to a file outside it, not ours
    (t / 'secret').write_text('root:SECRET-HASH:19000:0:99999:7:::\n')
    run = fake_run(t / 'linked', {'task': 'dyck'}, [])
    (run / 'log.jsonl').unlink()
    (run / 'log.jsonl').symlink_to(t / 'secret')
    return [str(run)]


def linked_config(t):
    (t / 'secret').write_text('SECRET-HASH')
    run = fake_run(t / 'linked', {'task': 'dyck'}, [dict(step=1, val_loss=1.0)])
    (run / 'config.json').unlink()
    (run / 'config.json').symlink_to(t / 'secret')
    return [str(run)]


def out_is_a_folder(t):  # and a damaged run beside it: --out is refused before any run is read
    (t / 'fig.png').mkdir()
    fake_run(t / 'bad', {}, [])
    return [str(t / 'bad'), f'--out={t / "fig.png"}']


@pytest.mark.log_by_hand  # logs that are links, on purpose
@pytest.mark.parametrize(
    'make, says',
    [
        (linked_log, 'log.jsonl is a symbolic link'),
        (linked_config, 'config.json is a symbolic link'),
        (out_is_a_folder, 'fig.png (a folder stands where the file goes)'),
    ],
    ids=['log a link', 'config a link', 'out a folder'],
)
def test_compare_runs_refuses(make, says, tmp_path, capsys):
    """compare_runs.py reads no file through a link and prints none of a file's bytes; --out is
    checked before any run is read. One line, exit 2, nothing written."""
    tool = module('compare_runs')
    argv = make(tmp_path)
    before = snapshot(tmp_path)
    out = [] if any(a.startswith('--out=') for a in argv) else [f'--out={tmp_path / "c.png"}']
    assert tool.main(argv + out) == 2
    err = capsys.readouterr().err
    assert_one_line(err, says)
    assert 'SECRET' not in err and snapshot(tmp_path) == before


def test_compare_runs_uses_paths_as_given(tmp_path, monkeypatch, capsys):
    """A run folder named run[1] is that folder, not a glob that matches run1 beside it; ~ in --out
    is the home folder, as a shell would expand it."""
    tool = module('compare_runs')
    line = dict(val_loss=1.0, val_acc=0.5, val_exact=0.25, elapsed_s=1.0)
    fake_run(tmp_path / 'run[1]', {'task': 'dyck'}, [dict(step=7, **line)])
    fake_run(tmp_path / 'run1', {'task': 'dyck'}, [dict(step=9, **line)])
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    monkeypatch.chdir(tmp_path)
    assert tool.main([str(tmp_path / 'run[1]'), '--out=~/cmp.png']) == 0
    out = capsys.readouterr().out
    assert '| run[1] | 7 |' in out and '| 9 |' not in out
    assert (tmp_path / 'home' / 'cmp.png').exists() and not (tmp_path / '~').exists()


def trend_results(folder, text=None):
    """The quick results and .md of depth in `folder` (trend.py's test above), or `text` as its
    JSON."""
    claims, depth = module('claims'), module('depth')
    values = {q: [0.99, 0.98] for c in depth.CLAIMS['quick'] for q in c['of']}
    info = dict(name='depth', values=values, claims=[])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / 'depth-quick.json').write_text(text if text is not None else json.dumps(info))
    (folder / 'depth-quick.md').write_text(
        f'# Table 5\n\n{claims.claims_section({**info, "verdict": "x"})}\n'
    )


# trend.py's refusals below: each makes its case in t, the test's folder -> trend.py's flags; t/out
# is OUT_DIR, t/recorded the stand-in for experiments/results/ (--record)


def results_damaged(text):
    return lambda t: trend_results(t / 'out' / 'results', text) or [f'--out_dir={t / "out"}']


def point_damaged(t):
    trend_results(t / 'out' / 'results')
    point = module('trend').point_path('depth', 1, t / 'out')
    point.parent.mkdir(parents=True)
    point.write_text('{"source": ')
    return [f'--out_dir={t / "out"}']


def results_a_folder(t):
    trend_results(t / 'out' / 'results')
    (t / 'out' / 'results' / 'depth-quick.json').unlink()
    (t / 'out' / 'results' / 'depth-quick.json').mkdir()
    return [f'--out_dir={t / "out"}']


def md_a_folder(t):
    trend_results(t / 'out' / 'results')
    (t / 'out' / 'results' / 'depth-quick.md').unlink()
    (t / 'out' / 'results' / 'depth-quick.md').mkdir()
    return [f'--out_dir={t / "out"}']


def out_under_a_file(t):
    trend_results(t / 'recorded')
    (t / 'file').write_text('')
    return [f'--out_dir={t / "file" / "out"}', '--record']


def out_a_file(t):
    (t / 'file').write_text('')
    return [f'--out_dir={t / "file"}']


@pytest.mark.parametrize(
    'make, says',
    [
        (results_damaged('[1, 2]'), 'depth-quick.json is damaged (a JSON list)'),
        (results_damaged('{"name": "depth"}'), "depth-quick.json is damaged (no 'values')"),
        (
            results_damaged('{"name": "depth", "mode": "quick", "values": {}, "wall_s": NaN}'),
            'depth-quick.json is damaged (its wall_s is not a finite number of seconds',
        ),
        (
            results_damaged('{"name": "depth", "mode": "quick", "values": {}, "wall_s": -5}'),
            'depth-quick.json is damaged (its wall_s is not a finite number of seconds, at least',
        ),
        (
            results_damaged(
                '{"name": "depth", "mode": "quick", "values": {}, "date": "not a date"}'
            ),
            'depth-quick.json is damaged (its date is not a date (YYYY-MM-DD))',
        ),
        (point_damaged, f'{Path("trend", "depth", "1", "depth.json")} is damaged'),
        (md_a_folder, 'depth-quick.md'),
        (results_a_folder, 'depth-quick.json is a folder, not a results file: remove it, then'),
        # refused as the experiments refuse them, not advised to run them there
        (out_under_a_file, 'file is a file, not a folder'),
        (out_a_file, 'file is a file, not a folder'),
        (lambda t: ['--out_dir='], "--out_dir='' names no folder"),
        # the results another folder holds are not read: OUT_DIR's, or with --record the README's
        (
            lambda t: trend_results(t / 'recorded') or [f'--out_dir={t / "out"}'],
            f'{Path("out", "results", "depth-quick.json")}: run python '
            'experiments/mixit/depth.py --quick --out_dir=',
        ),
        (
            lambda t: (
                trend_results(t / 'out' / 'results') or [f'--out_dir={t / "out"}', '--record']
            ),
            f'{Path("recorded", "depth-quick.json")}: run python experiments/mixit/depth.py '
            '--quick --record first',
        ),
    ],
    ids=[
        'results a list',
        'results without values',
        'wall_s NaN',
        'wall_s negative',
        'date not a date',
        'a size damaged',
        'md a folder',
        'results a folder',
        'out_dir under a file',
        'out_dir a file',
        'out_dir empty',
        'results recorded only',
        'results in OUT_DIR only',
    ],
)
def test_trend_refuses_before_any_size_runs(make, says, tmp_path, monkeypatch):
    """trend.py's bad input (a results file edited by hand, a size's results damaged, a path it
    cannot write, results of another folder) is one line before any size runs, and nothing in its
    folder changed."""
    trend = module('trend')
    ran = []
    monkeypatch.setattr(trend.common, 'run_process', lambda cmd, **kw: ran.append(cmd))
    monkeypatch.setattr(trend, 'point', lambda *a: ran.append(a) or {})
    monkeypatch.setattr(trend.common, 'RESULTS', tmp_path / 'recorded')
    flags = make(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(trend.ConfigError) as e:
        trend.main(['depth', *flags])
    assert says in str(e.value) and '\n' not in str(e.value)
    assert ran == [] and snapshot(tmp_path) == before


def test_trend_expands_home_in_out_dir(tmp_path, monkeypatch):
    """--out_dir=~/x: the sizes run in the home folder's x, as the experiments read their own, and
    the results are read there (~/x/results/)."""
    trend = module('trend')
    trend_results(tmp_path / 'home' / 'x' / 'results')
    ran = []
    monkeypatch.setattr(
        trend,
        'point',
        lambda name, i, keys, out, flags: ran.append(out) or dict(values={}, wall_s=0),
    )
    monkeypatch.setattr(trend, 'plot', lambda *a: None)
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    trend.main(['depth', '--out_dir=~/x'])
    assert ran and set(ran) == {str(tmp_path / 'home' / 'x')}
    assert 'trend' in json.loads(
        (tmp_path / 'home' / 'x' / 'results' / 'depth-quick.json').read_text()
    )
    assert not (tmp_path / '~').exists()


def experiment(name, *argv, cwd, env=None):
    """An experiment's command line, run from `cwd`."""
    return subprocess.run(
        [sys.executable, str(next(p for p in REPRODUCTIONS if p.stem == name)), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize(
    'name, argv, says',
    [
        # the report's paths, found before any work: under a file, a folder in the JSON's place
        ('covariance_sde', ['--smoke', '--out_dir=file/x'], 'file/x/covariance_sde.json (Not a'),
        ('covariance_sde', ['--smoke', '--out_dir=d'], 'd/covariance_sde.json (a folder stands'),
        # the results in OUT_DIR/results/ (no --record): a file where that folder goes, a damaged
        # JSON there (no checkout to restore it from)
        (
            'universal_construction',
            ['--out_dir=r'],
            'r/results/universal_construction.json (Not a directory): set --out_dir to a folder',
        ),
        (
            'universal_construction',
            ['--out_dir=bad'],
            'universal_construction.json is damaged (Expecting value): delete it to run the '
            'experiment again',
        ),
        # a flag obeyed or refused: --configs names the mode's configurations; --record, what
        # --smoke never writes
        (
            'throughput',
            ['--smoke', '--configs=lm'],
            'name only configurations of the smoke protocol',
        ),
        (
            'covariance_sde',
            ['--smoke', '--record'],
            '--record with --smoke or --at records nothing',
        ),
    ],
    ids=[
        'out_dir under a file',
        'report a folder',
        'results folder a file',
        'results damaged',
        'configs not of the mode',
        'record smoke',
    ],
)
def test_experiment_refuses_before_the_work(name, argv, says, tmp_path):
    """An experiment's bad input: one line, exit 2, before any work (nothing written), and the
    results untouched."""
    (tmp_path / 'file').write_text('')
    (tmp_path / 'd' / 'covariance_sde.json').mkdir(parents=True)
    (tmp_path / 'r').mkdir()
    (tmp_path / 'r' / 'results').write_text('')
    (tmp_path / 'bad' / 'results').mkdir(parents=True)
    (tmp_path / 'bad' / 'results' / 'universal_construction.json').write_text('[')
    results, before = EXPERIMENTS / 'results', snapshot(tmp_path)
    published = snapshot(results)
    done = experiment(name, *argv, '--device=cpu', cwd=tmp_path)
    assert done.returncode == 2
    assert_one_line(done.stderr, says)
    assert snapshot(tmp_path) == before and snapshot(results) == published


def test_experiment_paths_and_plan(tmp_path):
    """--out_dir=~/x writes the report in the home folder's x (as train.py writes the runs), not in
    a folder named ~; --plan of an experiment that trains nothing through train.py writes its empty
    plan at once, none of the work (no report, no figure)."""
    home = tmp_path / 'home'
    done = experiment(
        'covariance_sde',
        '--smoke',
        '--out_dir=~/x',
        '--device=cpu',
        cwd=tmp_path,
        env={'HOME': str(home)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (home / 'x' / 'covariance_sde.json').exists() and not (tmp_path / '~').exists()
    done = experiment(
        'covariance_sde', '--smoke', '--plan', f'--out_dir={tmp_path / "p"}', cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert [p.name for p in (tmp_path / 'p').iterdir()] == ['covariance_sde-plan.json']
    assert json.loads((tmp_path / 'p' / 'covariance_sde-plan.json').read_text())['runs'] == []


def test_a_run_writes_its_results_in_out_dir_not_the_checkout(tmp_path):
    """A reproduction run by hand (universal_construction, seconds) writes its results JSON and .md
    under OUT_DIR/results/, named as in experiments/results/, and leaves the tracked results (which
    the README's tables and --check read) byte for byte as they were."""
    tracked = folder_digest(EXPERIMENTS / 'results')
    done = experiment('universal_construction', f'--out_dir={tmp_path}', '--device=cpu', cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert folder_digest(EXPERIMENTS / 'results') == tracked
    results = tmp_path / 'results'
    assert sorted(p.name for p in results.iterdir()) == [
        'universal_construction.json',
        'universal_construction.md',
    ]
    assert f'and {results / "universal_construction.json"} and' in done.stdout
    written = json.loads((results / 'universal_construction.json').read_text())
    assert written['name'] == 'universal_construction' and written['mode'] == 'full'
    assert written == json.loads((tmp_path / 'universal_construction.json').read_text())
    # what reads the recorded results reads these alike (same names, same content)
    reproduce = module('reproduce')
    assert reproduce.load('universal_construction', 'full', results)['values'] == written['values']
    assert reproduce.claims_section('universal_construction', 'full', results)


@pytest.mark.parametrize('record', [False, True], ids=['OUT_DIR', 'record'])
def test_record_writes_the_results_the_readme_reads(record, tmp_path, monkeypatch):
    """common.report and save_figure (in-process, the experiments' own calls) write the results
    JSON, .md and figure under OUT_DIR/results/, or with --record in experiments/results/ (here a
    stand-in: a test never writes the tracked folder), and nothing in the other; check_outputs
    checks the folder written."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    common = module('common')
    tracked = folder_digest(EXPERIMENTS / 'results')
    monkeypatch.setattr(common, 'RESULTS', tmp_path / 'recorded')
    out = tmp_path / 'out'
    args = common.parse_args(
        '', argv=['--quick', f'--out_dir={out}', *(['--record'] if record else [])]
    )
    folder = tmp_path / 'recorded' if record else out / 'results'
    assert common.results_folder(args) == folder
    folder.mkdir(parents=True)
    (folder / 'covariance_sde-quick.md').mkdir()  # a folder where the .md goes
    with pytest.raises(common.ConfigError, match='covariance_sde-quick.md') as e:
        common.check_outputs(args, 'covariance_sde')
    assert ('--record' in str(e.value)) == record, 'the fix names what chose the folder'
    (folder / 'covariance_sde-quick.md').rmdir()
    common.check_outputs(args, 'covariance_sde')
    paths = common.save_figure(args, 'covariance_sde', plt.figure())
    assert paths == [out / 'covariance_sde.png', folder / 'covariance_sde-quick.png']
    common.report(args, 'covariance_sde', 'T', ['a'], [{'a': 1}], values={'x': [1.0]})
    assert sorted(p.name for p in folder.iterdir()) == [
        'covariance_sde-quick.json',
        'covariance_sde-quick.md',
        'covariance_sde-quick.png',
    ]
    assert not (out / 'results' if record else tmp_path / 'recorded').exists()
    assert folder_digest(EXPERIMENTS / 'results') == tracked


@pytest.mark.parametrize('path', HARNESS, ids=name_of)
def test_harness_run_as_a_file_says_what_to_run(path, tmp_path):
    """The harness is imported, not run: run as a file, one line says what to run instead."""
    done = subprocess.run(
        [sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert_one_line(done.stderr, 'python experiments/<paper>/<name>.py')


def test_every_trend_and_diagnosis_size_is_keys_an_experiment_takes():
    """Each size of a TREND and of a DIAGNOSIS axis is --at keys (trend.py passes them so): keys of
    every run that train.py knows, found wrong here rather than after an hour of other sizes; a
    DIAGNOSIS axis holds the regime's own point ({}) first and a size toward the paper."""
    from experiments.harness import common

    checked = 0
    for path in REPRODUCTIONS:
        experiment = module(path.stem)
        sizes = list(getattr(experiment, 'TREND', {}).get('sizes', {}).values())
        for axis in getattr(experiment, 'DIAGNOSIS', {}).get('axes', {}).values():
            assert list(axis.values())[0] == {} and len(axis) > 1, (path.stem, axis)
            sizes += list(axis.values())
        for keys in sizes:
            common.checked_at(dict(keys))
            checked += 1
    assert checked >= 30, checked


def test_a_regime_size_is_the_fewest_steps_that_keep_the_regime():
    """common.regime_size: at its steps the run has at least the examples per trained parameter
    asked for, and one step fewer it has less (induction_heads_map's width-128 size, counted on the
    standard model as its REGIME counts)."""
    from experiments.harness import common

    heads_map = module('induction_heads_map')
    target = heads_map.REGIME['full'][0]['paper']
    size = heads_map.DIAGNOSIS['axes']['width']['128']
    run = {**common.config(heads_map.PROTOCOL['regime']), **size}
    for steps, enough in ((size['max_iters'], True), (size['max_iters'] - 1, False)):
        assert (heads_map.per_param({**run, 'max_iters': steps}) >= target) == enough, steps
    assert size['max_iters'] > 3 * heads_map.PROTOCOL['regime']['keys']['max_iters']


def overlaps(a, b):
    """Whether two window extents share area (touching edges do not)."""
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_trend_plot_is_readable(tmp_path):
    """trend.plot on five claims: at most 3 panels a row, every panel's axes labelled (the claim's
    unit: a 'pct' quantity drawn in percent, 100 times its seeds' mean; a number as it is, named by
    its label or the results' title), its bound in the legend, and a legend of at least 7 pt that
    covers no panel."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    trend = module('trend')
    sizes = ['100', '1,000', '10,000']
    values = {
        s: {
            'a: x': [0.5 + 0.1 * i, 0.6 + 0.1 * i],
            'b: x': [0.2 * i],
            'random: covariance': [1.0 + i],
            'mixit: covariance': [2.0 * i],
            'text: standard': [3.0 - i],
        }
        for i, s in enumerate(sizes)
    }
    judged = [
        dict(says='a solves x ' * 12, test='above', bound=0.95, of=['a: x']),
        dict(says='a above b', test='descending', of=['a: x', 'b: x'], fmt='pct'),
        dict(
            says='covariance rises',
            test='ascending',
            of=['random: covariance', 'mixit: covariance'],
            fmt='num',
        ),
        dict(says='about 2', test='within', target=2.0, tol=0.5, of=['text: standard'], fmt='num'),
        dict(says='b solves x', test='above', bound=0.95, of=['b: x']),
    ]
    fig = trend.plot(
        dict(axis='training steps', sizes=sizes, values=values),
        judged,
        tmp_path / 'trend.png',
        'Table 2: a table (log perplexity)',
    )
    assert (tmp_path / 'trend.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert len(fig.axes) == 5 and {ax.get_subplotspec().get_geometry()[:2] for ax in fig.axes} == {
        (2, 3)
    }, 'five panels: 3 a row'
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)  # the layout, as savefig drew it
    panels = [ax.get_window_extent(renderer) for ax in fig.axes]
    for ax, claim in zip(fig.axes, judged):
        assert ax.get_xlabel() == 'training steps' and ax.get_ylabel()
        scale = 100 if claim.get('fmt', 'pct') == 'pct' else 1
        assert ('(%)' in ax.get_ylabel()) == (scale == 100)
        lines = {line.get_label(): line for line in ax.get_lines()}
        for q in claim['of']:
            means = [np.mean(values[s][q]) for s in sizes]
            np.testing.assert_allclose(lines[q].get_ydata(), scale * np.array(means))
        legend = ax.get_legend()
        assert min(t.get_fontsize() for t in legend.get_texts()) >= 7
        assert not any(overlaps(legend.get_window_extent(renderer), p) for p in panels)
        if 'bound' in claim:
            assert 'every seed above 95%' in [t.get_text() for t in legend.get_texts()]
    assert fig.axes[2].get_ylabel() == 'covariance', 'the metric its quantities share'
    assert fig.axes[3].get_ylabel() == 'log perplexity (nats)', "the results' title's"


def test_trend_plot_option_draws_from_the_results_only(tmp_path, capsys):
    """trend.py NAME --plot draws NAME-quick-trend.png from the trend its quick results hold: no
    size runs, the results stay as they were; results without a trend are one line."""
    trend = module('trend')
    results = tmp_path / 'results'
    results.mkdir()
    trend_results(results)
    json_path = results / 'depth-quick.json'
    with pytest.raises(trend.ConfigError, match='holds no trend: run python experiments/tools/'):
        trend.main(['depth', '--plot', f'--out_dir={tmp_path}'])
    info = json.loads(json_path.read_text())
    q = module('depth').CLAIMS['quick'][0]['of'][0]
    info['claims'] = [dict(says='it solves', test='above', bound=0.95, of=[q])]
    info['trend'] = dict(axis='steps', sizes=['a', 'b'], values={'a': {q: [0.5]}, 'b': {q: [0.9]}})
    json_path.write_text(json.dumps(info))
    before = {p.name: p.read_bytes() for p in results.iterdir()}
    trend.main(['depth', '--plot', f'--out_dir={tmp_path}'])
    png = results / 'depth-quick-trend.png'
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and str(png) in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in results.iterdir() if p != png} == before
    assert not (tmp_path / 'trend').exists(), 'no size ran'


def test_compare_runs_figure_is_readable():
    """compare_runs' figure: at most 3 panels a row, every axis labelled with its unit, one legend
    of at least 7 pt below the panels, over none of them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    tool = module('compare_runs')
    log = [dict(step=s, tokens=64 * s, val_loss=1 / s, val_acc=1 - 1 / s) for s in (10, 20, 30)]
    runs = [dict(label=f'variant={v}', log=log) for v in ('standard', 'mixit')]
    fig = tool.figure(runs, '2 runs')
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)  # the layout, as savefig draws it
    assert all(ax.get_subplotspec().get_geometry()[1] <= 3 for ax in fig.axes)
    for ax in fig.axes:
        assert '(' in ax.get_xlabel() and ax.get_ylabel().endswith(')'), 'a unit in parentheses'
    (legend,) = fig.legends
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 7
    assert not any(
        overlaps(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
        for ax in fig.axes
    )


def test_mixit_figures_are_readable():
    """covariance_sde's and induction_heads_map's figures on synthetic inputs of main()'s shapes:
    at most 3 panels a row, every panel that shows data labelled on both axes, each legend of at
    least 7 pt over no panel, and the heat maps, drawn as given, beside a colorbar of the
    attention weight that covers neither."""
    import numpy as np

    cov, heads_map = module('covariance_sde'), module('induction_heads_map')
    g = torch.Generator().manual_seed(0)
    taus = [k / 4 for k in range(5)]

    def phis(k):  # k covariances of 4 tokens, h^T h / n at n = 8
        h = torch.randn(k, 8, 4, generator=g)
        return h.transpose(1, 2) @ h / 8

    sde = {t: phis(50) for t in taus}
    chains = {n: {t: phis(20) for t in taus} for n in (8, 16)}
    collapse = {label: (taus, [0.5 + 0.1 * t for t in taus]) for label in (cov.SHAPED, cov.SOFTMAX)}
    maps = torch.rand(2, 1, 3, 12, 12, generator=g).tril()
    maps = maps / maps.sum(-1, keepdim=True)
    x, q, heads = torch.arange(12), 9, [(2, 'previous-token head'), (0, 'retrieving head')]
    figures = [
        cov.plot(taus, chains, sde, collapse, 16),
        heads_map.plot(maps, x, q, heads),
    ]
    for fig in figures:
        fig.canvas.draw()  # the layout, as savefig draws it
        bars = {i.colorbar.ax for ax in fig.axes for i in ax.images if i.colorbar}
        panels = [
            ax
            for ax in fig.axes
            if ax not in bars and (ax.lines or ax.patches or ax.collections or ax.images)
        ]
        boxes = [ax.get_window_extent() for ax in panels]
        assert panels and all(ax.get_subplotspec().get_geometry()[1] <= 3 for ax in panels)
        for ax in panels:
            assert ax.get_xlabel() and ax.get_ylabel(), ax.get_title()
        legends = [*fig.legends, *(ax.get_legend() for ax in panels if ax.get_legend())]
        for legend in legends:
            assert min(t.get_fontsize() for t in legend.get_texts()) >= 7
            assert not any(overlaps(legend.get_window_extent(), box) for box in boxes)
        if fig is figures[0]:
            assert len(panels) == len(legends) == 3, 'each panel its legend'
    images = [ax.images[0] for ax in figures[1].axes[:2]]
    for layer, (image, (head, _)) in enumerate(zip(images, heads)):
        np.testing.assert_array_equal(image.get_array(), maps[layer, 0, head, : q + 1, : q + 1])
    # one colorbar for both panels or one each: every map on the 0-1 scale of a bar
    bars = [i.colorbar for i in images if i.colorbar]
    assert bars and all('attention' in bar.ax.get_ylabel() for bar in bars)
    assert {i.get_clim() for i in images} == {bar.mappable.get_clim() for bar in bars} == {(0, 1)}
    for bar in bars:
        extent = bar.ax.get_window_extent()
        assert not any(overlaps(extent, i.axes.get_window_extent()) for i in images)


def test_a_diagnosis_point_is_reused_only_with_its_flags(tmp_path, monkeypatch):
    """A DIAGNOSIS's flags are not in the source digest: a size's results already there are reused
    only where its command line held the flags of this size (another task's regime point, or flags
    edited since, run again), and flags_of naming no axis is refused before anything runs."""
    trend, common = module('trend'), module('common')
    path = trend.point_path('algorithmic', 'regime', tmp_path)
    path.parent.mkdir(parents=True)
    done = dict(
        source=common.source_digest('algorithmic'),
        at={},
        values={'addition: mixit': [0.8, 0.81]},
        wall_s=1.0,
        command='python experiments/mixit/algorithmic.py --regime --seeds=2 --tasks=addition',
    )
    path.write_text(json.dumps(done))
    assert trend.finished('algorithmic', 'regime', {}, tmp_path, ['--tasks=addition'])
    assert trend.finished('algorithmic', 'regime', {}, tmp_path, ['--tasks=dyck']) is None
    assert trend.finished('algorithmic', 'regime', {'n_head': 8}, tmp_path) is None
    alg = module('algorithmic')
    monkeypatch.setattr(alg, 'DIAGNOSIS', dict(alg.DIAGNOSIS, flags_of={'hedas': ['--x']}))
    monkeypatch.setattr(trend, 'point', lambda *a: pytest.fail('a size ran'))
    with pytest.raises(trend.ConfigError, match='flags_of to hedas, which is not one of its axes'):
        trend.main(['algorithmic', '--diagnose', f'--out_dir={tmp_path}'])


# --- gpu_check.py: one command checks a GPU; off a GPU, its dry version


@pytest.mark.skipif(torch.cuda.is_available(), reason='the dry version is the CPU one')
def test_gpu_check_runs_dry_on_a_cpu(tmp_path):
    """Without CUDA every part runs its CPU form and passes, each part's result is read back, and
    the scratch runs are gone: only gpu_check.json, .md and .log are written."""
    out = subprocess.run(
        [sys.executable, str(EXPERIMENTS / 'tools' / 'gpu_check.py'), str(tmp_path / 'check')],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert sorted(p.name for p in (tmp_path / 'check').iterdir()) == [
        'gpu_check.json',
        'gpu_check.log',
        'gpu_check.md',
    ]
    info = json.loads((tmp_path / 'check' / 'gpu_check.json').read_text())
    assert info['dry'] and [p['part'] for p in info['parts']] == [
        'tests',
        'default',
        'throughput',
        'torchrun',
        'largest',
    ]
    parts = {p['part']: p for p in info['parts']}
    assert all(p['status'] == 'passed' and p['result'] for p in parts.values()), parts
    assert re.match(r'\d+ passed', parts['tests']['result'])
    assert parts['default']['result']['step'] == 20 and parts['torchrun']['result']['step'] == 10
    assert parts['throughput']['result']['rows'][0]['variant'] == 'standard'
    largest = parts['largest']['result']
    assert largest['trained_layers'] == largest['check_layers'] == 8  # the dry cap
    assert 'TMP' in parts['default']['command'] and 'python train.py' in parts['default']['command']


# --- gpu_run.py: a lent GPU's draw in one command; off a GPU, its dry version


@pytest.mark.skipif(torch.cuda.is_available(), reason='the dry version is the CPU one')
def test_gpu_run_runs_dry_on_a_cpu(tmp_path):
    """Without CUDA every part runs its CPU form and passes: the check's three processes, nanoGPT's
    step beside ours, and one protocol's --smoke, whose runs train side by side as train.py
    processes and are then read by its experiment (--reuse), which writes its results and verdict
    into OUT_DIR/results/; the others are planned; the scratch runs are gone."""
    out = subprocess.run(
        [sys.executable, str(EXPERIMENTS / 'tools' / 'gpu_run.py'), str(tmp_path / 'draw')],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    info = json.loads((tmp_path / 'draw' / 'gpu_run.json').read_text())
    gpu_run = module('gpu_run')
    names = [gpu_run.DRY_PROTOCOL]
    parts = {p['part']: p for p in info['parts']}
    assert info['dry'] and sorted(parts) == sorted(
        ['check: default', 'check: variants', 'check: torchrun', 'nanogpt', *names]
    )
    planned = (tmp_path / 'draw' / 'gpu_run.md').read_text()
    assert all(f'| {name} ' in planned for name, _, _ in gpu_run.PROTOCOLS)
    assert all(p['status'] == 'passed' and p['result'] for p in parts.values()), parts
    assert json.loads(parts['check: variants']['result']).keys() == gpu_run.VARIANTS.keys()
    nanogpt = r'4x256: ours [\d.,]+ ms, nanoGPT [\d.,]+ ms; ours / nanoGPT \d'
    assert re.match(nanogpt, parts['nanogpt']['result'])
    for name in names:
        result = parts[name]['result']
        assert result['finished'] == result['runs'] > 0 and result['verdict']
        assert (tmp_path / 'draw' / 'results' / f'{name}.json').exists()
    assert sorted(p.name for p in (tmp_path / 'draw').iterdir()) == [
        'gpu_run.json',
        'gpu_run.log',
        'gpu_run.md',
        'results',
    ]


def test_gpu_run_refuses_plan_with_dry(tmp_path):
    """--plan lists the GPU's parts and --dry runs them on a CPU: given both, one would be dropped
    without a word."""
    out = subprocess.run(
        [
            sys.executable,
            str(EXPERIMENTS / 'tools' / 'gpu_run.py'),
            str(tmp_path),
            '--plan',
            '--dry',
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stderr.count('\n') == 1
    assert out.stderr.startswith('error: --plan lists the GPU') and not list(tmp_path.iterdir())


def test_gpu_run_plans_what_fits_in_order_of_claims_per_minute(tmp_path, monkeypatch):
    """The plan's protocols come in order of claims decided per predicted minute (the upper bound);
    each gets its upper bound with the margin where that fits what is left, else what is left
    where its lower bound fits, else nothing; the limits add up to the budget at most."""
    gpu_run = module('gpu_run')
    made = {  # name: (runs, claims, FLOPs a run); each run 10,000 steps
        'memorization_capacity': (4, 5, 0.0),
        'universal_dimension': (40, 8, 1e16),  # 40 runs at RATE_FLOPS: over 18 minutes at least
        'induction': (1, 2, 0.0),
    }
    monkeypatch.setattr(
        gpu_run, 'planned_runs', lambda protocols, *a: {n: [n] * made[n][0] for n, _ in protocols}
    )
    monkeypatch.setattr(gpu_run, 'claims_decided', lambda name, measures: ['claim'] * made[name][1])
    monkeypatch.setattr(
        gpu_run.common, 'cost', lambda name: dict(flops=made[name][2], steps=10_000)
    )
    parts = gpu_run.plan(tmp_path, dry=False)
    per_minute = [len(p['claims']) / p['upper'] for p in parts]
    assert per_minute == sorted(per_minute, reverse=True)
    left = gpu_run.BUDGET_S - gpu_run.OWN_S - gpu_run.CHECK_S - gpu_run.NANOGPT_S
    for p in parts:
        if p['upper'] * gpu_run.MARGIN <= left:
            assert p['limit'] == round(p['upper'] * gpu_run.MARGIN)
        else:
            assert p['limit'] == (round(left) if p['lower'] <= left else 0)
        left -= p['limit']
    assert left >= 0 and [p['name'] for p in parts if not p['limit']] == ['universal_dimension']
    # a run's upper bound: its steps at the measured floor and its start, shared by the processes
    one = next(p for p in parts if p['name'] == 'induction')
    assert one['upper'] == pytest.approx(10_000 * gpu_run.STEP_S + gpu_run.START_S)


def test_processes_side_by_side_end_at_their_limit(tmp_path):
    """common.run_processes runs its commands at once, or at most at_once at a time: one still
    running at the limit is ended (exit status 124, as timeout(1)), the others' output kept, one
    not started by then left out, and no process is left."""
    common = module('common')
    start = time.monotonic()
    done = common.run_processes(
        {
            'quick': [sys.executable, '-c', 'print("done")'],
            'slow': [
                sys.executable,
                '-c',
                'import time; print("started", flush=True); time.sleep(60)',
            ],
        },
        timeout=3,
    )
    assert time.monotonic() - start < 20
    assert (done['quick'].returncode, done['quick'].stdout) == (0, 'done\n')
    assert done['slow'].returncode == 124 and 'started' in done['slow'].stdout
    assert common.CHILDREN == []
    # at most one at a time: the next starts as one ends, and one not started by the limit is out
    slow = [sys.executable, '-c', 'import time; time.sleep(60)']
    quick = [sys.executable, '-c', 'print("done")']
    done = common.run_processes({'a': quick, 'b': quick, 'c': slow, 'd': quick}, 5, at_once=1)
    assert [(n, p.returncode) for n, p in done.items()] == [('a', 0), ('b', 0), ('c', 124)]
    assert common.CHILDREN == []


def test_a_tools_scratch_folder_goes_with_a_stop(tmp_path):
    """gpu_run.py's and gpu_check.py's runs go to a scratch folder that a stop removes too: a
    signal ends the process without unwinding its `with` (synthetic.end_on_signal), so the folder
    is one of the temporaries it removes."""
    script = (
        'import sys, time; sys.path.insert(0, sys.argv[1]); '
        'from experiments.harness import common; common.synthetic.end_on_signal()\n'
        'with common.scratch_folder("x-") as d:\n'
        '    (common.Path(d) / "run").write_text("w"); print(d, flush=True); time.sleep(60)'
    )
    proc = subprocess.Popen(
        [sys.executable, '-c', script, str(ROOT)], stdout=subprocess.PIPE, text=True
    )
    folder = Path(proc.stdout.readline().strip())
    assert (folder / 'run').exists()
    proc.terminate()
    assert proc.wait(timeout=30) == 128 + 15 and not folder.exists()


def test_reuse_reads_finished_runs_without_training_them(tmp_path):
    """--reuse: a run whose folder holds it trained to max_iters is evaluated from its checkpoint,
    not trained again (its checkpoint untouched): the same numbers, and a wall time counted from
    the first run's start, which includes the training."""
    cmd = [
        sys.executable,
        str(EXPERIMENTS / 'mixit' / 'memorization_capacity.py'),
        '--smoke',
        f'--out_dir={tmp_path}',
    ]
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    first = json.loads((tmp_path / 'memorization_capacity.json').read_text())
    ckpts = {p: p.stat().st_mtime_ns for p in tmp_path.glob('memorization_capacity/*/ckpt.pt')}
    assert len(ckpts) == 5
    again = subprocess.run([*cmd, '--reuse'], check=True, capture_output=True, text=True, cwd=ROOT)
    assert again.stdout.count('0 steps of') == 5  # each run evaluated, none trained
    assert {p: p.stat().st_mtime_ns for p in ckpts} == ckpts
    second = json.loads((tmp_path / 'memorization_capacity.json').read_text())
    assert second['values'] == first['values']
    assert second['wall_s'] >= first['wall_s']  # counted from the first run's start


def test_profile_step_sorts_kernels_by_kind():
    """Kernel names from the H200's profile (results/profile_step.json) fall in their kinds: a
    flash kernel built for sm90 is attention, not matmul, though both names contain 'sm90'."""
    kind_of = module('profile_step').kind_of
    assert kind_of('nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT') == 'matmul'
    assert kind_of('cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16') == 'attention'
    assert kind_of('triton_poi_fused_mul_silu_silu_backward_view_7') == 'compiled (triton)'
    assert (
        kind_of('void at::native::multi_tensor_apply_kernel<FusedAdamMathFunctor>') == 'optimizer'
    )
    assert kind_of('void at::native::vectorized_elementwise_kernel<FillFunctor>') == 'other'


@pytest.mark.skipif(torch.cuda.is_available(), reason='the dry version is the CPU one')
def test_profile_step_runs_dry_on_a_cpu(tmp_path):
    """--dry runs the whole flow on a CPU: each micro-batch's MFU is its FLOPs over its median
    step at the stand-in peak, nanoGPT's count (the masked half too) above ours, the kinds' shares
    add to one, and the profiled ops cannot take more than the steps' wall time on one thread."""
    out = subprocess.run(
        [sys.executable, str(EXPERIMENTS / 'tools' / 'profile_step.py'), str(tmp_path), '--dry'],
        capture_output=True,
        text=True,
        env=dict(os.environ, OMP_NUM_THREADS='1'),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'profile_step.json',
        'profile_step.md',
        'profile_step.txt',
    ]
    info = json.loads((tmp_path / 'profile_step.json').read_text())
    profile_step = module('profile_step')
    assert [b['micro-batch'] for b in info['batches']] == list(profile_step.BATCHES)
    model = module('throughput').trainer('standard', profile_step.ARCH_DRY, 1, 'cpu', 'float32')[0]
    for b in info['batches']:
        assert b['flops_per_token'] == model.flops_per_token()
        tokens = b['micro-batch'] * profile_step.ARCH_DRY['block_size']
        mfu = b['flops_per_token'] * tokens / statistics.median(b['step_s']) / 1e11
        assert float(b['MFU'].rstrip('%')) / 100 == pytest.approx(mfu, abs=6e-4)
        assert float(b["MFU, nanoGPT's count"].rstrip('%')) > float(b['MFU'].rstrip('%'))
    shares = [float(k['share'].rstrip('%')) for k in info['kinds']]
    assert sum(shares) == pytest.approx(100, abs=0.5)
    assert 0 < info['busy'] <= 1.01


def test_gpu_check_parts_on_a_gpu_fit_its_eight_minutes():
    """On a GPU the parts' limits and the check's own start and writing add up to at most its
    budget, 8 minutes: every part bounded, the whole bounded."""
    gpu_check = module('gpu_check')
    limits = [limit for _, limit, _ in gpu_check.parts(Path('OUT'), 'TMP', dry=False)]
    assert len(limits) == 5 and all(limit > 0 for limit in limits)
    assert sum(limits) + gpu_check.OWN_S <= gpu_check.BUDGET_S == 8 * 60, limits


def test_gpu_check_ends_a_part_past_its_limit_and_runs_the_next(tmp_path, monkeypatch):
    """A part that runs past its limit is ended with every process it started, reported as timed
    out, and the next part still runs; the command then exits 1."""
    gpu_check = module('gpu_check')
    pid_file = tmp_path / 'grandchild.pid'
    slow = (
        'import subprocess, sys, time; '
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        f'open({str(pid_file)!r}, "w").write(str(p.pid)); time.sleep(120)'
    )
    monkeypatch.setattr(
        gpu_check,
        'parts',
        lambda out, scratch, dry: [
            ('slow', 3, [sys.executable, '-c', slow]),
            ('tests', 30, [sys.executable, '-c', "print('2 passed in 0.01s')"]),
        ],
    )
    monkeypatch.setattr(sys, 'argv', ['gpu_check.py', str(tmp_path / 'check'), '--dry'])
    monkeypatch.setattr(gpu_check.common, 'command_line_process', lambda: None)
    with pytest.raises(SystemExit) as stop:
        gpu_check.main()
    assert stop.value.code == 1
    info = json.loads((tmp_path / 'check' / 'gpu_check.json').read_text())
    slow_part, tests_part = info['parts']
    assert slow_part['status'] == 'timed out' and slow_part['seconds'] < 30
    assert tests_part['status'] == 'passed' and tests_part['result'] == '2 passed in 0.01s'
    grandchild = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(grandchild, 0)


def test_gpu_check_search_finds_the_largest_that_holds():
    """The bisection of the largest-model search against counting up, at every threshold."""
    search = module('gpu_check').search
    for most in range(0, 20):
        for threshold in range(0, 22):
            tried = []
            found = search(lambda n: tried.append(n) or n <= threshold, most)
            assert found == min(threshold, most), (most, threshold)
            assert len(tried) <= max(1, most).bit_length() + 1  # a bisection, not a scan


def test_gpu_check_bad_input_is_one_line(tmp_path):
    """gpu_check.py without OUT_DIR, or with a flag it does not take: one 'error:' line, exit
    status 2, nothing run or written."""
    for argv in ([], [str(tmp_path / 'check'), '--bogus']):
        out = subprocess.run(
            [sys.executable, str(EXPERIMENTS / 'tools' / 'gpu_check.py'), *argv],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert out.returncode == 2 and out.stderr.startswith('error: '), out.stderr
        assert out.stderr.count('\n') == 1 and not (tmp_path / 'check').exists()


def test_a_shrunk_problem_is_measured_from_its_generator_and_judged_against_the_papers(monkeypatch):
    """harness/problems.py: k-hop's share of targets a rule with no hop gets right, by a brute force
    over each position, and its count of distinct inputs, by enumerating a tiny task's; retrieval's
    first-value rule; claims.judged: a claim on the quantities of a judged measure more than its
    factor from the paper's is unresolved, a share under SHARE_FLOOR counts as one point, a
    reported row never counts."""
    import math

    import numpy as np

    from data import synthetic

    problems, claims = module('problems'), module('claims')
    khop = synthetic.load_task('khop')
    keys = dict(task='khop', length=6, letters=3, min_hops=0, max_hops=1, n_train=10)
    monkeypatch.setattr(problems, 'SAMPLE', 3000)
    (_, trivial, _), (_, covered, _), kept = problems.measured(tuple(sorted(keys.items())))
    x, y = khop.generate(np.random.default_rng(0), 3000, 6, 3, 1, 0)
    right = []
    for xs, ys in zip(x, y):
        k = xs[0] - 5
        for i, target in enumerate(ys):
            guess = 4 if i == 0 else xs[i] if k == 0 else 3  # <blank>, the letter, <none>
            right.append(guess == target)
    assert abs(trivial - sum(right) / len(right)) < 1e-12
    inputs = {row.tobytes() for row in khop.generate(np.random.default_rng(1), 20_000, 6, 3, 1)[0]}
    assert len(inputs) == 3 * 2**3 * 2  # a first letter, 3 that differ from the one before, 2 k
    assert abs(covered - -math.expm1(-10 / len(inputs))) < 1e-12 and kept[1] == '6, 1'
    retrieval = synthetic.load_task('retrieval')
    keys = dict(task='retrieval', m_max=3, vocab=16, online=False, n_train=5)
    (_, first, _), _, _ = problems.measured(tuple(sorted(keys.items())))
    x, y = retrieval.generate(np.random.default_rng(0), problems.SAMPLE, 3, 16)
    assert first == float(np.mean([xs[1] == ys[ys != -1][0] for xs, ys in zip(x, y)]))
    # addition: a brute force adding each column without its carry, over the scored targets
    keys = dict(task='addition', digits=3, online=False, n_train=7)
    (_, nocarry, _), (_, covered, _), _ = problems.measured(tuple(sorted(keys.items())))
    x, y = synthetic.load_task('addition').generate(np.random.default_rng(0), problems.SAMPLE, 3)
    right = []
    for xs, ys in zip(x, y):
        digits = [14 + (int(xs[i]) + int(xs[4 + i])) % 10 for i in range(3)]
        guess = {8: digits[1], 9: digits[2], 10: 12, 11: 13}  # the targets of positions 8..11
        right += [guess[i] == t for i, t in enumerate(ys) if t != -1]
    assert abs(nocarry - sum(right) / len(right)) < 1e-12
    assert abs(covered - -math.expm1(-7 / 900**2)) < 1e-15
    # Dyck-1: the more common answer
    keys = dict(task='dyck', length=8)
    (_, common, _), _ = problems.measured(tuple(sorted(keys.items())))
    _, y = synthetic.load_task('dyck').generate(np.random.default_rng(0), problems.SAMPLE, 8)
    answers = list(y[y != -1])
    assert common == max(answers.count(a) for a in set(answers)) / len(answers)
    # judged against the paper's: a claim on the quantities of an off row is unresolved
    row = dict(quantity='q', ours=0.70, paper=0.32, factor=2, of='k-hop: ')
    values = {'k-hop: a': [1.0] * 3, 'other: a': [1.0] * 3}
    results = dict(name='x', mode='regime', values=values, problem=[row])
    declared = [claims.solves('k', 'k-hop: a'), claims.solves('o', 'other: a')]
    k, o = claims.judged(results, declared, trains=True)['claims']
    assert (
        k['outcome'] == 'unresolved' and "the problem is not the paper's: q 70.00%" in k['evidence']
    )
    assert o['outcome'] == 'holds'
    held = claims.judged(dict(results, problem=[dict(row, ours=0.6)]), declared, trains=True)
    assert [c['outcome'] for c in held['claims']] == ['holds', 'holds']
    for ours, paper, factor, off in (
        (0.60, 0.32, 2, False),
        (0.005, 1e-40, 2, False),  # both under one point
        (0.35, 1e-40, 2, True),
        (0.70, 0.32, None, False),  # reported, not judged
    ):
        assert claims.off_problem(dict(ours=ours, paper=paper, factor=factor)) == off

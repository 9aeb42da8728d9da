"""Every experiment file runs end to end with --smoke (a few steps of every model), so none can rot;
its report must carry a table with the paper's numbers beside ours. The tools among them (TOOLS: they read runs,
train nothing and have no paper to compare with) are tested on hand-made runs instead."""
import importlib.util
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ['common', 'papers', 'fair']  # the harness, what the papers set, the fair comparisons: no experiments
FILES = sorted(p.stem for p in (ROOT / 'experiments').glob('*.py') if p.stem not in HARNESS)
TOOLS = ['compare_runs']
EXPERIMENTS = [name for name in FILES if name not in TOOLS]


@pytest.mark.parametrize('name', EXPERIMENTS)
def test_experiment_runs(tmp_path, name):
    out = subprocess.run([sys.executable, f'experiments/{name}.py', '--smoke', f'--out_dir={tmp_path}',
                          f'--data_dir={tmp_path / "data"}', '--device=cpu'], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads((tmp_path / f'{name}.json').read_text())
    assert report['mode'] == 'smoke' and report['rows'] and any('paper' in c for c in report['columns'])
    assert not (ROOT / 'experiments' / 'results' / f'{name}-smoke.md').exists()


def imported_modules(path):
    """The top-level names a Python file imports (import a.b -> 'a'; from a.b import c -> 'a')."""
    import ast
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split('.')[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split('.')[0])
    return names


def test_import_layers():
    """The import structure is flat: experiments on top, then fair.py, common.py and papers.py, then train, then data
    and model. No experiment imports another, the harness (common.py) nothing of the comparisons (fair.py), papers.py
    neither, and nothing below imports an experiment or train."""
    for name in FILES:
        others = imported_modules(ROOT / 'experiments' / f'{name}.py') & (set(FILES) - {name})
        assert not others, f'experiments/{name}.py imports experiments {others}'
    assert not imported_modules(ROOT / 'experiments' / 'common.py') & {'fair', *FILES}
    assert not imported_modules(ROOT / 'experiments' / 'papers.py') & {'common', 'fair', 'train', *FILES}
    below = [ROOT / 'model.py', *(ROOT / 'data').rglob('*.py')]
    for path in [ROOT / 'train.py', *below]:
        assert not imported_modules(path) & {*HARNESS, *FILES}, f'{path} imports an experiment'
    for path in below:
        assert 'train' not in imported_modules(path), f'{path} imports train.py'


@pytest.mark.parametrize('name', EXPERIMENTS)
def test_protocol_shape_and_header(name):
    """Every experiment's docstring is a header of at most 40 lines and its file at most 250 lines; one that trains
    through common.config writes every PROTOCOL[mode] in the one shape: driver, keys and named sweep axes."""
    path = ROOT / 'experiments' / f'{name}.py'
    module = load_tool(name)
    assert len(module.__doc__.strip().splitlines()) <= 40 and len(path.read_text().splitlines()) <= 250
    if 'common.config(' in path.read_text():
        for mode, protocol in module.PROTOCOL.items():
            assert mode in ('full', 'quick', 'smoke') and protocol.keys() == {'driver', 'keys', 'sweep'}, mode
            assert protocol['driver'] is None or isinstance(protocol['driver'], str)
            assert all(isinstance(values, (list, tuple, dict)) for values in protocol['sweep'].values())


def load_tool(name):
    """experiments/<name>.py as a module (experiments/ is a folder of scripts, not a package)."""
    sys.path.insert(0, str(ROOT / 'experiments'))
    spec = importlib.util.spec_from_file_location(name, ROOT / 'experiments' / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_run(path, config, log):
    """A run folder as train.py writes it, without ckpt.pt: config.json and log.jsonl."""
    path.mkdir(parents=True)
    (path / 'config.json').write_text(json.dumps(config))
    (path / 'log.jsonl').write_text(''.join(json.dumps(line) + '\n' for line in log))
    return path


def test_compare_runs(tmp_path, capsys):
    tool = load_tool('compare_runs')
    base = dict(task='dyck', variant='standard', seed=0, batch_size=4, out_dir='out', run_name='a')
    line = dict(train_loss=1.0, eval_tokens_per_s=1e5, lr=1e-3)
    a = fake_run(tmp_path / 'runs' / 'a', base, [
        dict(step=10, tokens=640, val_loss=0.9, val_acc=0.5, val_exact=0.25, elapsed_s=1.0, **line),
        dict(step=20, tokens=1280, val_loss=0.4321, val_acc=0.8125, val_exact=0.5, elapsed_s=2.5, **line)])
    b = fake_run(tmp_path / 'runs' / 'b', {**base, 'variant': 'mixit', 'run_name': 'b'}, [  # no tokens: an older log
        dict(step=10, val_loss=1.5, val_acc=0.375, val_exact=0.0, elapsed_s=3.0, **line)])
    png = tmp_path / 'fig' / 'cmp.png'
    assert tool.main([str(a), str(b), f'--out={png}']) == 0
    assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    width, height = struct.unpack('>II', png.read_bytes()[16:24])  # the IHDR chunk
    assert width > 500 and height > 500 and not list(png.parent.glob('*.tmp*'))
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith('| variant=')]
    assert rows == ['| variant=standard | 20 | 1,280 | 0.4321 | 81.25% | 50.00% | 2.5 |',
                    '| variant=mixit | 10 |  | 1.5 | 37.50% | 0.00% | 3.0 |'], 'in the order given, run_name no label'
    assert tool.main([str(tmp_path / 'runs'), f'--out={png}']) == 0, 'a folder of run folders'
    assert capsys.readouterr().out.count('| variant=') == 2

    # bad input: one line that says what to fix, exit code 2
    fake_run(tmp_path / 'bad' / 'malformed', base, [])
    (tmp_path / 'bad' / 'malformed' / 'log.jsonl').write_text('{"step": 10, "val_loss": 1.0}\n{"step": 20, "val_lo\n')
    fake_run(tmp_path / 'bad' / 'empty', base, [])
    (tmp_path / 'bad' / 'nolog').mkdir()
    (tmp_path / 'bad' / 'nolog' / 'config.json').write_text('{}')
    for run, says in (('malformed', 'log.jsonl line 2'), ('empty', 'empty'), ('nolog', 'has no log.jsonl')):
        assert tool.main([str(a), str(tmp_path / 'bad' / run), f'--out={tmp_path / run}.png']) == 2
        out = capsys.readouterr()
        assert out.out == '' and len(out.err.splitlines()) == 1 and out.err.startswith('error: ') and says in out.err
        assert not (tmp_path / f'{run}.png').exists()
    done = subprocess.run([sys.executable, 'experiments/compare_runs.py', str(tmp_path / 'bad' / 'malformed')],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count('\n') == 1 and 'Traceback' not in done.stderr
    assert f"{tmp_path / 'bad' / 'malformed' / 'log.jsonl'} line 2" in done.stderr

"""Every experiment file runs end to end with --smoke (a few steps of every model), so none can rot;
its report must carry a table with the paper's numbers beside ours."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = sorted(p.stem for p in (ROOT / 'experiments').glob('*.py') if p.stem != 'common')


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
    """The import structure is flat: experiments on top, then train, then data and model. No experiment imports
    another (shared helpers live in common.py or data/), and nothing below imports an experiment or train."""
    for name in EXPERIMENTS:
        others = imported_modules(ROOT / 'experiments' / f'{name}.py') & (set(EXPERIMENTS) - {name})
        assert not others, f'experiments/{name}.py imports experiments {others}'
    below = [ROOT / 'model.py', *(ROOT / 'data').rglob('*.py')]
    for path in [ROOT / 'train.py', *below]:
        assert not imported_modules(path) & {'common', *EXPERIMENTS}, f'{path} imports an experiment'
    for path in below:
        assert 'train' not in imported_modules(path), f'{path} imports train.py'

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

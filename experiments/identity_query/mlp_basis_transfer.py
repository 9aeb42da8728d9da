"""
Appendix 8.3 of "W_K, W_V is probably all you need": can a GELU MLP with a skip connection learn the
basis-changed skip-MLP that query elimination asks of it (Eq. 9), where no exact solution is known?
The paper's numbers (Figure 2; one run per width):

| | relative L2 error | cosine distance |
|---|---|---|
| trained skip-GELU MLP | 4-6% | about 0.002 |
| best linear map A* | 11-14% (its text says 9-10%) | above 0.009 |

Target (Eq. 10): Y(x) = W_2 GELU(W_1 x) + Z x - x, with W_1 (4h x h), W_2 (h x 4h), Z (h x h)
Gaussian, scaled by 1/sqrt(4h), 1/sqrt(4h), 1/sqrt(h) as the paper states; inputs x ~ N(0, I_h),
fresh every step. Model (Eq. 11): Y'(x) = W_2' GELU(W_1' x) + x, the same shapes, no biases,
PyTorch's default init, trained on the relative squared error |Y' - Y|^2 / |Y|^2 of the batch with
AdamW (lr 5e-3, cosine decay to 0, weight decay 0.1, gradient clipping 3.0).
Baseline: the best linear map, Y ~ x A*, by ridge regression (lambda 1e-6) accumulated over fresh
samples.

Claims: CLAIMS below, judged by claims.judge, at the quick size, in the paper's regime; what differs
is the width itself, which the three widths span threefold as the paper's do. The linear map's
cosine distance follows from its error: for errors uncorrelated with Y, 1 - cos is about err^2 / 2,
so above 0.009 needs about 13.4% error, the figure's 11-14%, where the text's 9-10% give
0.004-0.005; the claim keeps the figure's bound (the paper's statement).
Metrics on 65,536 fresh test inputs: relative L2 error |P - Y|_F / |Y|_F and the mean cosine
similarity (and distance 1 - cos) between predicted and target rows, for the MLP and for A*.

Settings, each from one place: PROTOCOL and scaled() below (from WIDTHS, PAPER_BATCH, PAPER_RIDGE);
--seeds. Every full-protocol setting follows the paper's text (Appendix 8.3; no authors' code
followed: experiments/README.md) except PyTorch's default init and the cosine decay's end, 0, which
it does not state (ours). In full, one target and run per width, as the paper. Float32 (PyTorch's
default; the ridge's sums in float64).

--quick shrinks the problem, not the training (common's rule): every width the paper's divided by
shrink = 8 (scaled()), with the paper's optimizer and schedule:

| setting | full (paper) | --quick | --quick, from |
|---|---|---|---|
| widths h | 256, 512, 768 | 32, 64, 96 | the paper's / 8: its 1 : 2 : 3 |
| steps | 20,000 | 20,000 | the paper's |
| batch | 65,536 | 1,024 | 65,536 / 8^2: 8h^2 shrinks 64-fold |
| ridge samples | 500,000 | 62,500 | 500,000 / 8: the paper's per input dimension |
| test inputs | 65,536 | 65,536 | a measurement, not training |
| seeds (--seeds) | 1, as the paper | 3 | each draws its own target, initialization and inputs |

The regime, the same in both (the quick's batch keeps the samples and the batch per trained
parameter the paper's at each width): 20,000 steps (full: 1.31B samples); 2,500 / 625 / 278 samples
per trained parameter (8h^2) at h = 256 / 512 / 768 (quick: 32 / 64 / 96), a batch of 0.125 /
0.031 / 0.014 per parameter; the ridge 500,000 / h = 1,953 / 977 / 651 samples per input dimension.

Time, at 112 GFLOP/s (measured on this CPU; 66 h^2 FLOPs a sample: the MLP's forward and backward,
48 h^2, and the target's forward, 18 h^2): a quick seed is 20,000 x 1,024 x 66 x (32^2 + 64^2 +
96^2) = 1.94e13 FLOPs, 2.9 min at that rate, 4.3 at 2/3 of it (smaller matrices) plus about 0.5 ms a
step of overhead (0.5 min): 3.4-4.8 min a seed, 10-15 min for 3 (measured: 13.6 min). No TREND: one
in the regime along the width costs shrink^-4 (h/4 alone is 16 quick seeds, about an hour).

--quick keeps the paper's regime already, so --regime (where this file's verdict comes from) runs
the same protocol, as --quick's table above:

| setting | --regime | from |
|---|---|---|
| widths, batch, ridge samples | --quick's: 32, 64, 96; 1,024; 62,500 | scaled(8): the paper's / 8 |
| steps, optimizer | 20,000 AdamW steps, lr 5e-3, cosine, wd 0.1, clipping 3.0 | the paper's |
| seeds | 3 | claims.SEEDS |
| regime | 20,000 steps; 2,500 / 625 / 278 samples per trained parameter | the paper's, the same |

REGIME (regime()): the AdamW steps and the samples per trained parameter (8h^2) at each of the three
widths, beside the paper's at its own. Why shrink 8: the MLP's error grows with the width (--quick:
3.3 / 4.6 / 5.3% at h = 32 / 64 / 96), so 8 is the largest shrink with widths in the paper's 4-6%
(16's 16 / 32 / 48 would leave at most one there). Time: --quick's 13.6 minutes, measured (3 seeds
of 1.94e13 FLOPs, 71 GFLOP/s); a smaller shrink costs shrink^-4 more (6.4: widths 40 / 80 / 120,
batch 1,600, 2.4 times, 33 min) and no width of it is the paper's either. --at KEY=VALUE sets this
file's own keys (shrink, widths, steps, batch, ridge_samples, test_samples). --smoke: the widths
divided by 64, 5 steps, one seed.
"""

import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import claims, common, fair

NAME = 'mlp_basis_transfer'
WIDTHS = [256, 512, 768]  # the paper's h
PAPER_BATCH, PAPER_RIDGE = 65_536, 500_000
QUICK = dict(shrink=8, steps=20_000, test_samples=65_536)
# per mode: shrink, the widths' divisor, and the AdamW steps; batch and ridge samples follow from
# them (scaled)
PROTOCOL = {
    'full': dict(shrink=1, steps=20_000, test_samples=65_536),
    'quick': QUICK,  # the paper's regime already: --regime is the same protocol
    'regime': QUICK,
    'smoke': dict(shrink=64, steps=5, test_samples=1024),
}


def scaled(shrink, **keys):
    """A protocol's settings at widths h / shrink: the batch shrinks as the trained parameters
    (8h^2), shrink^2, so that the samples per parameter are the paper's at each width; the ridge's
    samples as h, the paper's per input dimension. `keys` (a mode's own, or --at's) replace any of
    them."""
    return {
        'shrink': shrink,
        'widths': [round(h / shrink) for h in WIDTHS],
        'batch': round(PAPER_BATCH / shrink**2),
        'ridge_samples': round(PAPER_RIDGE / shrink),
        **keys,
    }


# The paper's regime (harness/claims.py's standing): its 20,000 AdamW steps and, at each of its
# widths, the samples per trained parameter (the MLP's 8h^2: 2,500, 625, 278), each mode's own
# beside the paper's at the same place among the widths
def regime(p):
    """A mode's steps and samples per trained parameter at each width, beside the paper's."""
    ours, paper = scaled(**p), scaled(**PROTOCOL['full'])
    steps = dict(quantity='AdamW steps', ours=p['steps'], paper=PROTOCOL['full']['steps'])
    return [steps] + [
        dict(
            quantity=f'samples per trained parameter (8h^2) at h = {H} / shrink',
            ours=p['steps'] * ours['batch'] / (8 * h * h),
            paper=PROTOCOL['full']['steps'] * paper['batch'] / (8 * H * H),
        )
        for h, H in zip(ours['widths'], paper['widths'])
    ]


REGIME = {mode: regime(p) for mode, p in PROTOCOL.items()}


# The paper's Figure 2 and its text, on every width a mode runs and every seed (one run per width in
# the paper; the quick widths are the paper's / 8, the claims the same): the MLP "achieves" 4-6%
# relative L2 error (Figure 2; the text's 4-5% lies inside), tested one-sided (claims.one_sided): at
# most 6%, as a lower error is not against it; the linear map's 9-14% (the text's 9-10% and the
# figure's 11-14% together), a band, the baseline's level the comparison rests on; "outperforming
# ... by a factor of 2x", one-sided: a ratio at least the text's own worst, 9% / 6% = 1.5; and the
# linear map's cosine distance "remains above 0.009" (Figure 2, right).
CLAIMS = {
    mode: [
        claims.one_sided(
            'the trained skip-GELU MLP reaches 4-6% relative L2 error (Figure 2): at most 6%',
            [f'MLP relative L2 error, h={h}' for h in scaled(**p)['widths']],
            0.06,
        ),
        dict(
            says='the best linear map A* stays at 9-14% (text 9-10%, Figure 2 11-14%)',
            test='within',
            target=0.115,
            tol=0.025,
            of=[f'linear A* relative L2 error, h={h}' for h in scaled(**p)['widths']],
        ),
        claims.one_sided(
            'the MLP outperforms the linear map by a factor of about 2 in relative error: at '
            'least 9% / 6%',
            [f'linear / MLP error ratio, h={h}' for h in scaled(**p)['widths']],
            9 / 6,
            lower=False,
            fmt='num',
        ),
        dict(
            says="the linear map's cosine distance remains above 0.009 (Figure 2)",
            test='above',
            bound=0.009,
            fmt='num',
            of=[f'linear cosine distance, h={h}' for h in scaled(**p)['widths']],
        ),
    ]
    for mode, p in PROTOCOL.items()
}
# trend.py --diagnose: the claims that fail in the regime (the MLP's error and the ratio at the
# smallest width, the linear map's cosine distance at every width), judged at each of the regime
# run's own widths alone: the one axis on which it departs from the paper (its widths / 8), which
# the run already spans 1 : 2 : 3 as the paper's do. No other width fits: a smaller shrink costs
# shrink^-4 (docstring) and moves the widths, and with them the claims' quantities, off these.
DIAGNOSIS = dict(
    measured={
        'width h (the paper / 8)': {
            f'{h}': f'h={h}' for h in scaled(**PROTOCOL['regime'])['widths']
        }
    }
)


def target(h, generator):
    W1 = torch.randn(4 * h, h, generator=generator) / math.sqrt(4 * h)
    W2 = torch.randn(h, 4 * h, generator=generator) / math.sqrt(4 * h)
    Z = torch.randn(h, h, generator=generator) / math.sqrt(h)
    return lambda x: F.gelu(x @ W1.T) @ W2.T + x @ Z.T - x


def fit_mlp(f, h, steps, batch, device, seed=0):
    torch.manual_seed(h + 1_000_003 * seed)
    W1, W2 = (
        torch.nn.Linear(h, 4 * h, bias=False).to(device),
        torch.nn.Linear(4 * h, h, bias=False).to(device),
    )
    params = list(W1.parameters()) + list(W2.parameters())
    opt = torch.optim.AdamW(params, lr=5e-3, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(steps):
        x = torch.randn(batch, h, device=device)
        y = f(x)
        loss = (W2(F.gelu(W1(x))) + x - y).pow(2).sum() / y.pow(2).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 3.0)
        opt.step()
        sched.step()
    return lambda x: W2(F.gelu(W1(x))) + x


def fit_linear(f, h, samples, device, chunk=65_536):
    """Ridge regression Y ~ x A, accumulating x^T x and x^T Y over fresh samples, in float64."""
    xtx, xty = (torch.zeros(h, h, dtype=torch.float64, device=device) for _ in range(2))
    for start in range(0, samples, chunk):
        x = torch.randn(min(chunk, samples - start), h, device=device)
        y = f(x)
        xtx += x.double().T @ x.double()
        xty += x.double().T @ y.double()
    A = torch.linalg.solve(
        xtx + 1e-6 * torch.eye(h, dtype=torch.float64, device=device), xty
    ).float()
    return lambda x: x @ A


def scores(predict, y, x):
    p = predict(x)
    cos = F.cosine_similarity(p, y, dim=1).mean().item()
    return ((p - y).norm() / y.norm()).item(), cos


def add_flags(parser):
    parser.add_argument(
        '--seeds',
        type=fair.at_least_one,
        default=None,
        help='targets and runs per width (each '
        'seeds the target, the initialization and the inputs); default 3 in --quick and --regime, '
        'else 1',
    )


def main():
    # --at: this file's own keys
    args = common.parse_args(__doc__, add_flags, at_keys=scaled(**PROTOCOL['quick']))
    # trains nothing through train.py: an empty plan (reproduce.py --plan prices those)
    if args.plan:
        return common.write_plan(args, NAME)
    device = (
        'cuda'
        if args.device in ('auto', 'cuda') and torch.cuda.is_available()
        else ('cpu' if args.device == 'auto' else args.device)
    )
    mode = {**PROTOCOL[args.mode], **args.at}  # its runs do not go through train.py
    widths, steps, batch, ridge_samples, test_samples = (
        scaled(**mode)[key] for key in ('widths', 'steps', 'batch', 'ridge_samples', 'test_samples')
    )
    seeds = args.seeds or (3 if args.mode in ('quick', 'regime') else 1)
    rows, values = [], {}
    for h in widths:
        got = {k: [] for k in ('mlp_err', 'mlp_cos', 'lin_err', 'lin_cos')}
        for seed in range(seeds):  # seed 0: the draws of the single run before seeds
            f = target(h, torch.Generator().manual_seed(h + 1_000_003 * seed))

            def f_dev(x, f=f):  # the target's weights live on the CPU
                return f(x.cpu()).to(x.device)

            mlp = fit_mlp(f_dev, h, steps, batch, device, seed)
            linear = fit_linear(f_dev, h, ridge_samples, device)
            torch.manual_seed(10_000 + h + 1_000_003 * seed)
            x = torch.randn(test_samples, h, device=device)
            with torch.no_grad():
                y = f_dev(x)
                for (err, cos), kind in ((scores(mlp, y, x), 'mlp'), (scores(linear, y, x), 'lin')):
                    got[f'{kind}_err'].append(err)
                    got[f'{kind}_cos'].append(cos)
        ratio = [lin / mlp for lin, mlp in zip(got['lin_err'], got['mlp_err'])]
        dist = {kind: [1 - c for c in got[f'{kind}_cos']] for kind in ('mlp', 'lin')}
        num = '{:.4f}'.format
        rows.append(
            {
                'h': h,
                'MLP relative L2 error': fair.spread(got['mlp_err']),
                'linear A* relative L2 error': fair.spread(got['lin_err']),
                'ratio': fair.spread(ratio, '{:.2f}'.format),
                'MLP cosine distance': fair.spread(dist['mlp'], num),
                'linear cosine distance': fair.spread(dist['lin'], num),
                'paper': 'MLP 4-6%, linear 11-14%; distance ~0.002 vs > 0.009',
            }
        )
        values.update(
            {
                f'MLP relative L2 error, h={h}': got['mlp_err'],
                f'linear A* relative L2 error, h={h}': got['lin_err'],
                f'linear / MLP error ratio, h={h}': ratio,
                f'MLP cosine distance, h={h}': dist['mlp'],
                f'linear cosine distance, h={h}': dist['lin'],
            }
        )
    per_param = ', '.join(f'{steps * batch / (8 * h * h):,.0f}' for h in widths)
    notes = (
        f'Budget: {steps:,} AdamW steps of batch {batch:,} (fresh inputs; {per_param} samples per '
        f'trained parameter at h = {", ".join(map(str, widths))}; the paper: 2,500, 625, 278), '
        f'ridge on {ridge_samples:,} samples; metrics on {test_samples:,} fresh test inputs, over '
        f'{seeds} seed(s): mean ± std (min–max); device {common.device_name(args.device)}.'
    )
    common.report(
        args,
        NAME,
        'Appendix 8.3: a skip-GELU MLP learns the basis-changed skip-MLP',
        list(rows[0]),
        rows,
        notes=notes,
        values=values,
        claims=CLAIMS,
        regime=REGIME[args.mode],
    )


if __name__ == '__main__':
    main()

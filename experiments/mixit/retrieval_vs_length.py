"""
Figure 2 of "Is Random Attention Sufficient?": retrieval accuracy against the largest number of
key-value pairs m_max. Claim: standard, frozen_mlp and frozen_qk stay far above MixiT as m_max grows
("MixiT has rapidly deteriorating performance"), and "Frozen-QK eventually deteriorates in quality
faster than Frozen-MLP and the standard transformer". The paper's figure has no numbers in our copy
(PAPER: its statements, and MixiT's 11.24% at m_max 30 in Table 1).

Claims: CLAIMS below, judged by claims.judge. Data: retrieval (m uniform in 1..m_max pairs
`k1 v1 ... km vm`, then a query; only the queried value scored). Models: standard, frozen_mlp,
frozen_qk, mixit at one architecture. Metric: held-out accuracy per scored token over the seeds,
beside guessing one of the m values in context (mean of 1/m). Comparison (fair.fair_sweep): each
variant at its own best, searched on a validation split at the largest m_max only (the figure is
"meant to capture model performance when the accuracies are not saturated"), its choice run on
--seeds seeds at every m_max.

Settings, each from one place:
- PROTOCOL below: the m_max axis and the run's keys (papers.RETRIEVAL's architecture and budget in
  full);
- its driver, 'depth.py', a key of papers.DRIVERS (applied by papers.authors);
- the search: papers.TABLE7['retrieval'] less FIXED (fair.grid) at the largest m_max, per variant
  the learning rate alone (Table 7: 1e-3, 5e-4, 1e-4; Appendix C: "we fix the embedding dimension
  at n=1024, with 4 heads and 2 layers ... We search for the optimal learning rate for each
  architecture"); in --quick the centre's learning rate times fair.QUICK_LR (1/3, 1, 3); none in
  --regime.

Full protocol: the authors' code (princeton-pli/MixiT, experiments/README.md, section 3) unless
marked:

| setting | full |
|---|---|
| task | their condattendstream_<m_max>: vocabulary 512, a query token of its own |
| block_size | their m = 2 m_max + 3 |
| m_max | 5, 10, 20, 30, 40, 50, 60 (ours: the figure's axis) |
| data | online draws, held-out inputs rejected; 4,000 held-out sequences |
| model | 2 layers, width 1024, 4 heads of 256 (paper text) |
| driver | depth.py (papers.authors): AdamW (0.9, 0.999), wd 1e-3, float32; their MixiT block |
| schedule | lr 1e-2 (--no-search), 500 warm-up steps, cosine to 0 |
| budget | batch 1,000, 100,000 steps: 100M examples (papers.RETRIEVAL) |
| regime | 2.89 examples per trained parameter of their standard model (34.6M) |

--quick keeps their task, depth.py's optimizer and online draws (authors' code; common's rule) and
shrinks the model:

| setting | --quick | from |
|---|---|---|
| model | width 64, 2 heads of 32 | ours, computed (1) |
| softmax scale | x 1024 / 64 | papers.paper_scale (2) |
| m_max | 4, 6, 8; the search at 8 | the paper's 30 (Table 1), 50, 60 (1) |
| vocabulary | 512 | theirs (3) |
| held out | 1,000 sequences; n_train 10,000 | ours (3) |
| batch | 256 | paper text: Table 7's smallest |
| lr | 1e-3 | Table 7's largest; theirs 1e-2 at batch 1,000 |
| warm-up | 50 steps | ours: depth.py's 500 would be the whole run |
| steps | 350 | ours: what 20 minutes allow |
| regime | 89,600 examples, 0.45 per trained parameter (198,592) | theirs 2.89 |

(1) A head's frozen Frozen-QK score (rank d_h) must single out the queried key among m_max, and the
previous token among 2 m_max + 3, so m_max per head dimension is the paper's
(papers.retrieval_m_max): at width 64, 2 heads of 32 (4 would leave 16), the paper's m_max 30
(Table 1), 50, 60 -> 4, 6, 8. Its 5, 10, 20 -> 1, 1, 2: one pair needs no retrieval, and at 2 the
held-out inputs take 31% of the draws. (2) The paper's spread of frozen scores; near-uniform at
width 64 without it. (3) The held-out share (held_out_share), the training draws rejected as
held-out inputs: theirs 9.3 / 1.5 / 0.06 / 0.007% at m_max 5 / 10 / 30 / 60; ours 5.4 / 1.7 / 0.7%
at 4 / 6 / 8 (n_train: a validation tenth as large; vocabulary 64 and 4,000 would give 26 / 11 /
2.5% at 4 / 8 / 16). An input of two pairs is drawn 0.01 times at m_max 4 (theirs 0.03 at 30): in
both the stream never repeats.
- Their regime does not fit 20 minutes: 2.89 per parameter is 2,240 steps here, about 2 hours for
  the 48 runs. Hence TREND: 350, 890 (the geometric middle) and 2,240 steps (per_param_steps), one
  seed, no search.
- Time: reproduce.py --plan's FLOPs at 72 GFLOP/s + 6.7 ms per layer-step + 1 s a run, fitted to
  measured runs (48 runs of 250 x 64 at width 128: 16.4 min; induction.py: 14.0): about 19 min;
  the TREND about 44 min (12 runs a size).

--regime, the paper's regime at a CPU's size, where this file's verdict comes from (REGIME: the
examples per trained parameter of the standard model, per_param, beside full's): quick's setting
(papers.RETRIEVAL_REGIME) trained to their 2.89, on the ends of quick's m_max axis, which are all
the claims test (CLAIMS: every variant at the largest m_max, MixiT at the smallest too):

| setting | --regime | from |
|---|---|---|
| model, softmax scale, vocabulary, held out, batch, lr, warm-up | --quick's | (1), (2), (3) |
| m_max | 4, 8 | the paper's 30 (Table 1) and 60, the figure's last (1) |
| steps | 2,240 (per_param_steps) | their 2.89 examples per trained parameter |
| search | none: the lr above (the search's centre) | the budget (below) |
| seeds | 3 | claims.SEEDS |
| regime | 573,440 examples, 2.8875 per trained parameter (198,592) | theirs 2.8873 |

- Time, 24 runs of 2,240 steps: its plan's 1.88e14 FLOPs at the rate --quick ran at (6.29e13 in
  1,007 s: 62 GFLOP/s; the plan's 19.5 estimated minutes took 16.8) is 50 min; at the rate of the
  TREND's runs, the same settings on one seed (1.46e14 in 1,997 s: 73 GFLOP/s), 43 min. quick's
  search (3 learning rates x 4 variants at m_max 8) would add 12 runs, 27-32 min, and m_max 6 12
  more, 21-25 min: neither fits the hour, so the regime searches nothing and drops m_max 6.
- --smoke: the full protocol's settings, tiny; no search, one seed.
- Writes OUT_DIR/retrieval_vs_length.png (and, but for --smoke, its copy beside the results file).
"""

import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use('Agg')  # files only: no display on a server
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import common, fair, papers  # noqa: E402
from model import GPT, GPTConfig, VARIANTS  # noqa: E402

NAME = 'retrieval_vs_length'
VARIANT_ORDER = ['standard', 'frozen_mlp', 'frozen_qk', 'mixit']
PAPER = (
    'standard, frozen_mlp and frozen_qk well above mixit as m_max grows; mixit falls fastest '
    '(11.24% at m_max = 30 in Table 1), frozen_qk eventually below standard and frozen_mlp'
)
FULL = papers.RETRIEVAL['full']  # Appendix C's architecture, the authors' budget


def m_max_axis(*values):
    """The m_max axis: each value with block_size their m = 2 m_max + 3, the whole sequence."""
    return {m: dict(block_size=2 * m + 3) for m in values}


def held_out_share(m_max, vocab, n_held):
    """The share of online training draws rejected for repeating one of n_held held-out inputs: a
    draw has m pairs with probability 1 / m_max, and the n_held / m_max held-out draws of m pairs
    cover 1 - (1 - 1/D_m)^(n_held / m_max) of its D_m equally likely inputs (m_max! / (m_max - m)!
    key orders x (V/2 - 1)^m values x m queries)."""
    return (
        sum(
            -math.expm1(
                n_held / m_max * math.log1p(-1 / (math.perm(m_max, m) * (vocab // 2 - 1) ** m * m))
            )
            for m in range(1, m_max + 1)
        )
        / m_max
    )


def per_param_steps(n_embd, n_head, vocab, batch):
    """The steps of `batch` examples that give the standard model at this size the authors' examples
    per trained parameter (their 100M examples over 34.6M parameters at width 1024: 2.89)."""

    def params(**keys):
        with torch.device('meta'):  # shapes only
            return GPT(
                GPTConfig(**VARIANTS['standard'], n_layer=2, bias=True, block_size=8, **keys)
            ).get_num_params()

    ratio = (
        FULL['max_iters']
        * FULL['batch_size']
        / params(n_embd=FULL['n_embd'], n_head=FULL['n_head'], vocab_size=FULL['vocab'])
    )
    return math.ceil(ratio * params(n_embd=n_embd, n_head=n_head, vocab_size=vocab) / batch)


# --quick: the authors' task and depth.py at the paper's m_max per head dimension (docstring)
QUICK = papers.RETRIEVAL_FAIR_QUICK
# per mode: m_max (rows; the search at the largest), then the variants
PROTOCOL = {
    'full': dict(
        driver='depth.py',
        keys=dict(task='retrieval', **FULL),
        sweep=dict(m_max=m_max_axis(5, 10, 20, 30, 40, 50, 60), variant=VARIANT_ORDER),
    ),
    'quick': dict(
        driver='depth.py',
        keys=dict(task='retrieval', **QUICK),
        sweep=dict(
            m_max=m_max_axis(*(papers.retrieval_m_max(m) for m in (30, 50, 60))),
            variant=VARIANT_ORDER,
        ),
    ),
    # the paper's regime (docstring): quick's setting at 2,240 steps, the ends of its m_max axis
    'regime': dict(
        driver='depth.py',
        keys=dict(task='retrieval', **papers.RETRIEVAL_REGIME),
        sweep=dict(
            m_max=m_max_axis(*(papers.retrieval_m_max(m) for m in (30, 60))),
            variant=VARIANT_ORDER,
        ),
    ),
    'smoke': dict(
        driver='depth.py',
        keys=dict(task='retrieval', **papers.RETRIEVAL['smoke']),
        sweep=dict(m_max=m_max_axis(2, 3), variant=VARIANT_ORDER),
    ),
}
QUICK_STEPS = QUICK['max_iters']  # 350: what 20 minutes allow (docstring)
# 2,240
PAPER_STEPS = per_param_steps(QUICK['n_embd'], QUICK['n_head'], QUICK['vocab'], QUICK['batch_size'])
# the budget, where --quick departs from the paper: the quick steps, their geometric middle, the
# authors' examples per parameter; one seed, no search (trend.py)
TREND = dict(
    axis='training steps (batch 256)',
    sizes={
        f'{s:,}': dict(max_iters=s, eval_interval=s) if s != QUICK_STEPS else {}
        for s in (QUICK_STEPS, int(round(math.sqrt(QUICK_STEPS * PAPER_STEPS), -1)), PAPER_STEPS)
    },
)
# trend.py --diagnose: Frozen-QK does not fall below standard or Frozen-MLP in the regime (all
# three at 100% at m_max 8 on every seed), moved toward the paper on the axis a CPU's hour allows:
# the learning rate, the authors' 1e-2 (their --no-search runs at batch 1,000) for Table 7's
# largest, 1e-3. 2 seeds a point, 16 runs each (4 variants x m_max 4 and 8), about 24 minutes a
# point (the regime's 24 runs took 36.3), the regime's own point its run's first seeds (trend.py):
# 24 in all. Not diagnosed: the width (128, 4 heads of 32: 2.3 times the steps at about 3 times the
# cost a step, some 160 minutes a point) and the heads alone (at width 64 a head count moves the
# head width, and with it the keys per head dimension that m_max is set by: docstring (1)).
DIAGNOSIS = dict(axes={'learning rate': {'1e-3': {}, '1e-2': dict(learning_rate=1e-2)}})


# The paper's regime (harness/claims.py's standing): examples per trained parameter of the standard
# model, 100M over 34.6M in full (2.89), each mode's own beside it
def per_param(p):
    """Examples per trained parameter of the standard model of a mode's protocol `p` (its keys at
    the largest m_max: RoPE, so the parameters do not depend on it)."""
    keys = common.config(p, m_max=max(p['sweep']['m_max']), variant='standard')
    return keys['max_iters'] * keys['batch_size'] / common.trained_params(keys)


# Whether the shrunk problem is still the paper's (harness/problems.py, judged in claims.standing):
# at the largest m_max a mode runs, where "eventually" is judged, beside the full protocol's (60),
# at most twice apart
PROBLEM = dict(
    factor=2,
    modes={
        mode: {'': common.config(p, m_max=max(p['sweep']['m_max']), variant='standard')}
        for mode, p in PROTOCOL.items()
    },
)
REGIME = {
    mode: [
        dict(
            quantity='examples per trained parameter',
            ours=per_param(p),
            paper=per_param(PROTOCOL['full']),
        )
    ]
    for mode, p in PROTOCOL.items()
}


# Figure 2's statements, on the held-out accuracy of 'variant, m_max M' (fair.report's values, one
# per seed), at the ends of each mode's m_max axis. "Eventually" and "as the complexity increases"
# are the axis's largest m_max (the paper's figure runs to 60; quick to 8); Frozen-QK "deteriorates
# faster" than each of the other two is Frozen-QK below it there on every seed; "all notably better
# than MixiT" is Frozen-QK there, the lowest of the three by the first two claims, above MixiT;
# MixiT's "rapidly deteriorating performance" is MixiT at the largest m_max below MixiT at the
# smallest. Orderings only, no bounds: the figure gives no numbers in our copy.
def figure2(first, last):
    """CLAIMS of an m_max axis from `first` to `last` (the comment above)."""
    # fair.report's labels
    standard, frozen_mlp, frozen_qk, mixit = (f'{v}, m_max {last}' for v in VARIANT_ORDER)
    return [
        dict(
            says='Frozen-QK eventually deteriorates faster than the standard transformer',
            test='descending',
            of=[standard, frozen_qk],
        ),
        dict(
            says='Frozen-QK eventually deteriorates faster than Frozen-MLP',
            test='descending',
            of=[frozen_mlp, frozen_qk],
        ),
        dict(
            says='Frozen-QK, Frozen-MLP and the standard transformer all perform notably better '
            'than MixiT as the complexity increases (Frozen-QK, the lowest of the three, above '
            'MixiT)',
            test='descending',
            of=[frozen_qk, mixit],
        ),
        dict(
            says='MixiT has rapidly deteriorating performance with respect to task complexity',
            test='descending',
            of=[f'mixit, m_max {first}', mixit],
        ),
    ]


CLAIMS = {
    mode: figure2(min(p['sweep']['m_max']), max(p['sweep']['m_max']))
    for mode, p in PROTOCOL.items()
}
# fair.fair's family and the keys its search leaves fixed: Appendix C fixes the architecture and
# names the learning rate alone as searched (docstring)
FIXED = ('n_layer', 'n_embd', 'n_head', 'batch_size')


def config(mode, m_max, variant):
    """train.py's keys of one run (the search's centre; fair.fair adds its point and seed)."""
    return common.config(PROTOCOL[mode], m_max=m_max, variant=variant)


def plot(m_values, acc, guess):
    """acc[variant]: per m_max, the accuracies of the seeds; the mean, a bar from the lowest to the
    highest."""
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for variant in VARIANT_ORDER:
        runs = np.array(acc[variant]) * 100  # (m_max, seed)
        mean = runs.mean(1)
        ax.errorbar(
            m_values,
            mean,
            yerr=[mean - runs.min(1), runs.max(1) - mean],
            fmt='o-',
            capsize=3,
            label=variant,
        )
    ax.plot(m_values, [100 * g for g in guess], 'k:', label='guess a value in context')
    ax.set(
        xlabel='m_max (largest number of key-value pairs)',
        ylabel='held-out accuracy (%)',
        ylim=(0, 102),
        title='Retrieval accuracy against m_max (mean, min-max over seeds)',
    )
    # outside: the curves sit at 100%
    ax.legend(fontsize=8, loc='center left', bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


def main():
    # --regime: no search (its hour goes to the seeds: docstring)
    args = fair.parse_args(__doc__, regime_search=False)
    m_values = list(PROTOCOL[args.mode]['sweep']['m_max'])
    # m is uniform in 1..m_max
    guesses = [sum(1 / m for m in range(1, M + 1)) / M for M in m_values]
    # the runs first (with --plan, listed and not trained): per variant the search at the largest
    # m_max, its choice run on the same seeds at every m_max (docstring)
    sweeps = {
        variant: fair.fair_sweep(
            args,
            NAME,
            {m: config(args.mode, m, variant) for m in m_values},
            m_values[-1],
            'retrieval',
            FIXED,
        )
        for variant in VARIANT_ORDER
    }
    if args.plan:
        return common.write_plan(args, NAME)
    fairs, acc = {}, {}
    for variant, results in sweeps.items():
        fairs.update({f'{variant}, m_max {m}': results[m] for m in m_values})
        acc[variant] = [[r['val_acc'] for r in results[m]['runs']] for m in m_values]
    rows = []
    for i, (m_max, guess) in enumerate(zip(m_values, guesses)):
        row = {'m_max': m_max, **{v: fair.spread(acc[v][i]) for v in VARIANT_ORDER}}
        row['guess a value in context'] = common.pct(guess)
        # the finding concerns the whole curve: once, then ditto
        row['paper'] = PAPER if not rows else '"'
        rows.append(row)
    png = common.save_figure(args, NAME, plot(m_values, acc, guesses))[0]
    budget = ', '.join(
        f'{k}={v}' for k, v in config(args.mode, m_values[-1], 'standard').items() if k != 'variant'
    )
    budget += f' (at the last m_max; block_size 2 m_max + 3; MixiT also {papers.MIXIT_BLOCK})'
    notes = (
        f"Settings (learning_rate: the search's centre): {budget}. Cells: held-out accuracy over "
        'the seeds, mean '
        f'± std (min–max). Plot: {png.name}.'
        # without a search (--regime, --no-search) fair's notes say so
        + (
            f' The search ran at m_max {m_values[-1]} only; the rows at the other m_max ran its '
            'chosen point.'
            if args.search
            else ''
        )
    )
    fair.report(
        args,
        NAME,
        'Figure 2: retrieval accuracy against m_max (held-out accuracy)',
        ['m_max'] + VARIANT_ORDER + ['guess a value in context', 'paper'],
        rows,
        fairs,
        notes=notes,
        claims=CLAIMS,
        regime=REGIME[args.mode],
    )


if __name__ == '__main__':
    main()

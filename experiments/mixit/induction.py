"""
Table 1 of "Is Random Attention Sufficient?": tasks that need an induction head, k-hop induction
heads and retrieval (needle in a haystack). Claim: the standard model and Frozen-MLP solve both;
Frozen-QK (W_Q, W_K frozen at their random initialization) solves both on par with them; MixiT,
whose attention is a fixed input-independent matrix, is unable to, far below the others on both.
The paper's held-out accuracy (%), PAPER:

| task | standard | frozen_mlp | frozen_qk | mixit |
|---|---|---|---|---|
| k-hop induction heads | 99.99 | 99.89 | 96.73 | 48.58 |
| retrieval | 100 | 100 | 97.01 | 11.24 |

Claims: CLAIMS below, judged by claims.judge. Data: `khop` (random letters out of 4, no immediate
repeats, k uniform in 0..max_hops given as the first token, every position scored with hop_k of its
letter) and `retrieval` (m uniform in 1..m_max key-value pairs, then a query token; only the queried
value scored). Models: standard, frozen_mlp, frozen_qk, mixit, one architecture per task. Metric:
held-out accuracy per scored token (the paper's), over the seeds. Comparison: each variant at its
own best (Appendix C.1 searches each; fair.fair per task and variant).

Settings, each from one place:
- PROTOCOL below: each task's keys, layers, width, heads, batch, steps and learning rate;
- each task's driver, a key of papers.DRIVERS (retrieval: 'depth.py'; k-hop: none, train.py's
  defaults), which papers.authors applies;
- the search, SEARCH below: a row of papers.TABLE7 and the keys it leaves fixed (fair.grid).
  Retrieval: the learning rate alone (Table 7: 1e-3, 5e-4, 1e-4) at the fixed architecture and
  batch (Appendix C: "we fix the embedding dimension at n=1024, with 4 heads and 2 layers ... We
  search for the optimal learning rate for each architecture"); k-hop: Table 7's whole k-hop row
  (12 points); --quick: the centre's learning rate times fair.QUICK_LR (1/3, 1, 3); --regime:
  none.

Full protocol. Retrieval: retrieval_vs_length's full at m_max 30, the authors' code
(princeton-pli/MixiT, experiments/README.md, section 3) but the model, paper text (no script of
theirs runs retrieval). K-hop: paper text and ours (their code has no k-hop; ours follows Sanford et
al.'s generator), ours marked:

| setting | retrieval | k-hop |
|---|---|---|
| task | condattendstream_30: vocabulary 512, block_size 63 (their m) | length 100, k in 0..16 |
| data | online draws, held-out inputs rejected | 100,000 training strings |
| held out | 4,000 sequences | 100 strings |
| model | 2 layers, width 1024, 4 heads | Table 8's 5 layers, width 512, 8 heads |
| optimizer | depth.py's (papers.authors) | train.py's AdamW (0.9, 0.95; wd 0.1), dtype (ours) |
| lr | 1e-2 (--no-search) | 1e-4; 100 warm-up steps, cosine to 1e-5 (ours) |
| batch | 1,000 | 128 |
| steps | 100,000: 100M examples (papers.RETRIEVAL) | 5,000: 6.4 examples per string |

--quick shrinks both tasks and keeps what of each regime 20 minutes allow (common's rule); every
size computed. Retrieval: retrieval_vs_length's quick setting (its docstring computes the sizes).
K-hop: ours but the paper's length per hop, batch and examples per string.

| setting | retrieval | k-hop |
|---|---|---|
| task | m_max 4 (1), their vocabulary 512 | k up to 4, length 25 (2) |
| held out | 1,000 sequences: 5.4% of draws rejected (theirs 0.06%) | 500 strings |
| model | width 64, 2 heads of 32 | 3 layers of width 64, 4 heads of 16 |
| softmax scale | x 1024 / 64 (papers.paper_scale) | x 512 / 64 |
| optimizer | depth.py's | train.py's |
| lr | 1e-3, 50 warm-up steps (ours) | 3e-3, cosine to 3e-4, 50 warm-up steps (ours) |
| batch | 256 (Table 7's smallest) | 128 (the paper's) |
| steps | 350 | 350 over 7,000 strings (3) |

(1) The paper's m_max 30 per head dimension: 30 x 32 / 256 = 4. (2) k up to 2^(layers - 1) = 4, as
the paper's 16 at 5 layers; length the paper's 100 / 16 per hop (24 input tokens per head dimension
16: 1.5; theirs 99 / 64). (3) The paper's 6.4 examples per training string (quick_steps: n_train =
steps x 128 / 6.4).
- Budget: 350 steps for both (retrieval_vs_length's, so that the two retrieval settings are one).
  The paper's 5,000 k-hop steps (and retrieval's 2.89 examples per parameter, 2,240 steps) do not
  fit 20 minutes at a size that tests the claims: 5,000 steps of both with the search and seeds
  take about 4 hours.
- TREND: 350, 1,300 (the geometric middle) and 5,000 steps, one seed, no search, n_train with the
  steps: at 5,000 k-hop is the paper's regime whole (5,000 steps of 128 over 100,000 strings),
  retrieval past their examples per parameter (6.4 against 2.89).
- Time, as retrieval_vs_length's (FLOPs and steps fitted to measured runs): about 17 min; the TREND
  about 52 min (8 runs a size).

--regime, the paper's regime at a CPU's size, where this file's verdict comes from (REGIME, beside
full's: k-hop's training examples and examples per training string, 5,000 steps of 128 over 100,000
strings; retrieval's examples per trained parameter of the standard model, 2.89). Retrieval:
retrieval_vs_length's regime at m_max 4 (papers.RETRIEVAL_REGIME). K-hop: the paper's whole
regime, which does not depend on the model's size, so the problem shrinks one step below quick's:

| setting | retrieval | k-hop |
|---|---|---|
| task | --quick's: m_max 4, vocabulary 512 | k up to 2, length 15 (4) |
| held out | --quick's | 500 strings |
| model | --quick's | 2 layers of width 64, 4 heads of 16 (132,544 parameters) |
| optimizer, lr | --quick's (the search's centre: no search) | --quick's; full's 100 warm-up steps |
| batch | 256 | 128 (the paper's) |
| steps | 2,240 (retrieval_vs_length.per_param_steps) | 5,000 over 100,000 strings (the paper's) |
| seeds | 3 (claims.SEEDS) | 3 |
| regime (theirs) | 2.8875 examples per parameter (2.8873) | 640,000 examples, 6.4 a string (same) |

(4) k up to 2^(layers - 1) = 2, quick's rule at 2 layers, and the shortest length whose problem is
the paper's within PROBLEM's factor of 2 (harness/problems.py, from the generator before any run):
at quick's 100 / 16 per hop (length 12), 70.25% of the scored targets need no hop (the paper's
32.22%) and training draws 34.5% of the 4 x 3^9 x 3 = 236,196 inputs, a problem near a table; at
15, 63.42% and 1.56% (14: 66.36%, off). The 500 held-out strings are kept out of training. Length
15 is 14 tokens a string, 11 at 12: k-hop's 28.5 min (2026-11-27) becomes at most 36 at the same
cost a token. At quick's 3 layers (k up to 4, length 25), k-hop's 5,000 steps alone take
about 53 min (quick's and the TREND's seconds a step: 12 runs x 5,000 x 53 ms).
- Time, 24 runs (12 of k-hop's 5,000 steps, 12 of retrieval's 2,240): the plan's 1.29e14 FLOPs
  at the rate --quick ran at (4.96e13 in 872 s: 57 GFLOP/s; the plan's 16.8 estimated minutes took
  14.5) is 38 min, at the TREND's (1.57e14 in 2,452 s: 64 GFLOP/s) 34 min; k-hop's small steps cost
  their overhead, and the fitted FLOPs-and-steps model above (17.0 min for quick's 14.5) gives 50
  min, 42 scaled to quick's. No search: quick's would add 24 runs, doubling that. Both tasks
  together took 31.9 min; --tasks runs one at a time, merged into one results file (--regime
  --tasks=khop, then --tasks=retrieval), so that a diagnosis of k-hop (DIAGNOSIS) runs k-hop alone.
- --smoke: the full protocol's settings, tiny; no search, one seed.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import claims, common, fair, papers
from train import resolve

NAME = 'induction'
VARIANT_ORDER = ['standard', 'frozen_mlp', 'frozen_qk', 'mixit']
PAPER = {
    'khop': {'standard': 0.9999, 'frozen_mlp': 0.9989, 'frozen_qk': 0.9673, 'mixit': 0.4858},
    'retrieval': {'standard': 1.0, 'frozen_mlp': 1.0, 'frozen_qk': 0.9701, 'mixit': 0.1124},
}
# full k-hop: Table 8's setting with our schedule, under train.py's optimizer (no driver: their code
# has no k-hop)
KHOP = dict(
    driver=None,
    n_layer=5,
    n_embd=512,
    n_head=8,
    learning_rate=1e-4,
    min_lr=1e-5,
    warmup_iters=100,
    batch_size=128,
    max_iters=5000,
    eval_interval=5000,
)
# 6.4 examples per training string (paper text)
KHOP_PER_STRING = KHOP['max_iters'] * KHOP['batch_size'] / 100_000
FULL = papers.RETRIEVAL['full']
# --quick (docstring), every size computed: one step count for both tasks, so that the TREND's keys
# scale both
# 350: retrieval_vs_length's, what 20 minutes allow there
QUICK_STEPS = papers.RETRIEVAL_FAIR_QUICK['max_iters']
# 4: Table 1's m_max 30 at the paper's keys per head dimension
QUICK_M_MAX = papers.retrieval_m_max(30)
QUICK_LAYERS = 3  # k-hop's layers (ours)
QUICK_HOPS = 2 ** (QUICK_LAYERS - 1)  # 4, as the paper's 16 hops at 5 layers


def quick_steps(steps):
    """The train.py keys of `steps` steps: k-hop's training split keeps the paper's examples per
    string (retrieval trains online: its n_train only sizes the search's validation split, a
    tenth)."""
    return dict(
        max_iters=steps,
        eval_interval=steps,
        n_train=round(steps * KHOP['batch_size'] / KHOP_PER_STRING),
    )


# retrieval: retrieval_vs_length's quick setting (its docstring: head width, held-out share, batch)
# at QUICK_M_MAX, its n_train too (a validation tenth as large as the held-out split); k-hop: the
# paper's length per hop (100 / 16), batch and examples per string; softmax scales:
# papers.paper_scale
QUICK_RETRIEVAL = dict(
    papers.RETRIEVAL_FAIR_QUICK, m_max=QUICK_M_MAX, block_size=2 * QUICK_M_MAX + 3
)
QUICK_KHOP = dict(
    driver=None,
    length=100 * QUICK_HOPS // 16,
    max_hops=QUICK_HOPS,
    n_test=500,
    n_layer=QUICK_LAYERS,
    n_embd=64,
    n_head=4,
    attn_scale=papers.paper_scale(64, 4, KHOP['n_embd']),
    learning_rate=3e-3,
    min_lr=3e-4,
    warmup_iters=50,
    batch_size=KHOP['batch_size'],
    **quick_steps(QUICK_STEPS),
)
# --regime (docstring): k-hop's whole regime (5,000 steps of 128 over 100,000 strings) at 2 layers,
# hops and length as quick computes them; retrieval: the retrieval comparisons' regime
# (papers.RETRIEVAL_REGIME, their 2.89 examples per trained parameter) at QUICK_M_MAX
REGIME_LAYERS = 2
REGIME_HOPS = 2 ** (REGIME_LAYERS - 1)  # 2, as the paper's 16 hops at 5 layers
REGIME_KHOP = dict(
    QUICK_KHOP,
    length=15,  # the shortest whose problem is the paper's (docstring, (4))
    max_hops=REGIME_HOPS,
    n_layer=REGIME_LAYERS,
    warmup_iters=KHOP['warmup_iters'],
    **quick_steps(KHOP['max_iters']),
)
REGIME_RETRIEVAL = dict(papers.RETRIEVAL_REGIME, m_max=QUICK_M_MAX, block_size=2 * QUICK_M_MAX + 3)
# per mode: the tasks (rows; each with its train.py keys, retrieval's block_size their m, 2 m_max +
# 3), the variants
PROTOCOL = {
    'full': dict(
        driver='depth.py',
        keys={},
        sweep=dict(
            task={'khop': KHOP, 'retrieval': dict(m_max=30, block_size=63, **FULL)},
            variant=VARIANT_ORDER,
        ),
    ),
    'quick': dict(
        driver='depth.py',
        keys={},
        sweep=dict(task={'khop': QUICK_KHOP, 'retrieval': QUICK_RETRIEVAL}, variant=VARIANT_ORDER),
    ),
    'regime': dict(
        driver='depth.py',
        keys={},
        sweep=dict(
            task={'khop': REGIME_KHOP, 'retrieval': REGIME_RETRIEVAL}, variant=VARIANT_ORDER
        ),
    ),
    'smoke': dict(
        driver='depth.py',
        keys={},
        sweep=dict(
            task={
                'khop': dict(
                    KHOP,
                    length=8,
                    max_hops=2,
                    n_train=200,
                    n_test=20,
                    n_layer=1,
                    n_embd=16,
                    n_head=2,
                    learning_rate=1e-3,
                    warmup_iters=0,
                    batch_size=8,
                    max_iters=4,
                    eval_interval=4,
                ),
                'retrieval': dict(m_max=3, block_size=9, **papers.RETRIEVAL['smoke']),
            },
            variant=VARIANT_ORDER,
        ),
    ),
}
# the budget, where --quick departs from the paper: the quick steps, their geometric middle, k-hop's
# paper steps (its whole regime: 5,000 steps of 128 over 100,000 strings; retrieval there past their
# examples per parameter)
TREND = dict(
    axis='training steps (k-hop 128, retrieval 256 a step)',
    sizes={
        f'{s:,}': quick_steps(s) if s != QUICK_STEPS else {}
        for s in (
            QUICK_STEPS,
            int(round(math.sqrt(QUICK_STEPS * KHOP['max_iters']), -2)),
            KHOP['max_iters'],
        )
    },
)

# A diagnosis of k-hop's claims, should one not hold in the regime: the depth alone, 2 -> quick's
# 3 layers at the regime's k and length (one setting an axis; the earlier axis, which moved k and
# the length with it, is in the results' git history, 3f05c64). k-hop's regime (5,000 steps of 128
# over 100,000 strings) does not depend on the model's size, so every point keeps it whole; 3
# seeds a point.
DIAGNOSIS = dict(
    flags=['--tasks=khop'],
    axes={
        'k-hop depth': {str(REGIME_LAYERS): {}, str(QUICK_LAYERS): dict(n_layer=QUICK_LAYERS)},
    },
)


# The paper's regime of each task (harness/claims.py's standing), each mode's beside full's: k-hop's
# training examples and examples per training string (5,000 steps of 128 over 100,000 strings:
# 640,000 and 6.4), retrieval's examples per trained parameter of the standard model (2.89)
def regime(task, keys):
    """-> [(quantity, value)] of a task's run keys."""
    examples = keys['max_iters'] * keys['batch_size']
    if task == 'khop':
        strings = resolve(keys)['n_train']  # the full protocol's: the task's default, 100,000
        return [
            ('k-hop: training examples', examples),
            ('k-hop: examples per training string', examples / strings),
        ]
    trained = common.trained_params({**keys, 'variant': 'standard'})
    return [('retrieval: examples per trained parameter', examples / trained)]


REGIME = {
    mode: [
        dict(quantity=quantity, ours=ours, paper=paper)
        for task in p['sweep']['task']
        for (quantity, ours), (_, paper) in zip(
            regime(task, common.config(p, task=task, variant='standard')),
            regime(task, common.config(PROTOCOL['full'], task=task, variant='standard')),
        )
    ]
    for mode, p in PROTOCOL.items()
}
TASK_NAMES = {'khop': 'k-hop induction heads', 'retrieval': 'retrieval'}
# Whether each task's shrunk problem is still the paper's (harness/problems.py, judged in
# claims.standing): the share of targets a rule that does not do the task gets right and how much of
# the input space training draws, each mode's beside the full protocol's, at most twice apart
PROBLEM = dict(
    factor=2,
    modes={
        mode: {
            f'{TASK_NAMES[t]}: ': common.config(p, task=t, variant='standard')
            for t in p['sweep']['task']
        }
        for mode, p in PROTOCOL.items()
    },
)
# Table 1's statements (the paper's Table 2 and Sec. 4.2), each on the held-out accuracy per scored
# token of 'task: variant' (fair.report's values, one per seed), by the rules of harness/claims.py;
# the same in every mode, as each mode measures the same labels on its own size of the task:
# - "is able to solve", "to almost perfect accuracy": claims.solves (every seed above 95%);
# - Frozen-QK "on par with the standard": claims.similar, within the paper's own gap (3.3% of their
#   mean on k-hop, 3.0% on retrieval);
# - MixiT "is unable to solve these tasks": claims.unable (every seed below 95%).
CLAIMS = [
    claims.solves(
        'the standard transformer solves k-hop and retrieval (Table 1: 99.99%, 100%)',
        'k-hop induction heads: standard',
        'retrieval: standard',
    ),
    claims.solves(
        'Frozen-MLP is able to perform both "to almost perfect accuracy" (99.89%, 100%)',
        'k-hop induction heads: frozen_mlp',
        'retrieval: frozen_mlp',
    ),
    claims.solves(
        'Frozen-QK is able to solve both (96.73%, 97.01%)',
        'k-hop induction heads: frozen_qk',
        'retrieval: frozen_qk',
    ),
    *(
        claims.similar(
            f'Frozen-QK solves {TASK_NAMES[task]} "on par with the standard fully trained '
            f'transformer" ({100 * PAPER[task]["frozen_qk"]:.2f}% against '
            f'{100 * PAPER[task]["standard"]:.2f}%)',
            [f'{TASK_NAMES[task]}: standard', f'{TASK_NAMES[task]}: frozen_qk'],
            [PAPER[task]['standard'], PAPER[task]['frozen_qk']],
        )
        for task in ('khop', 'retrieval')
    ),
    claims.unable('MixiT is unable to solve k-hop (48.58%)', 'k-hop induction heads: mixit'),
    claims.unable('MixiT is unable to solve retrieval (11.24%)', 'retrieval: mixit'),
]
# per task: fair.fair's family (Table 7's row) and the keys its search leaves fixed (docstring):
# retrieval's architecture and batch, as Appendix C fixes them for the retrieval comparison; k-hop
# none
SEARCH = {
    'khop': ('k-hop', ()),
    'retrieval': ('retrieval', ('n_layer', 'n_embd', 'n_head', 'batch_size')),
}


def config(mode, task, variant):
    """train.py's keys of one run (the search's centre; fair.fair adds its point and seed)."""
    return common.config(PROTOCOL[mode], task=task, variant=variant)


def main():
    # --regime: no search (its hour goes to the seeds: docstring)
    args = fair.parse_args(__doc__, fair.tasks_flag, regime_search=False)
    tasks = PROTOCOL[args.mode]['sweep']['task']
    fairs = {}  # the runs first: with --plan, listed and not trained
    for task in fair.chosen_tasks(args, tasks):
        for variant in VARIANT_ORDER:
            fairs[f'{TASK_NAMES[task]}: {variant}'] = fair.fair(
                args, NAME, config(args.mode, task, variant), *SEARCH[task]
            )
    if args.plan:
        return common.write_plan(args, NAME)
    if args.tasks:
        fair.earlier_tasks(args, NAME, fairs)
    # the tasks measured: this run's, and with --tasks the earlier ones'
    measured = [t for t in tasks if f'{TASK_NAMES[t]}: {VARIANT_ORDER[0]}' in fairs]
    rows = []
    for task in tasks:
        row = {'task': TASK_NAMES[task]}
        for variant in VARIANT_ORDER:
            if task in measured:
                runs = fairs[f'{TASK_NAMES[task]}: {variant}']['runs']
                row[variant] = fair.spread([m['val_acc'] for m in runs])
            row[f'paper {variant}'] = common.pct(PAPER[task][variant])
        if task not in measured:
            row[VARIANT_ORDER[0]] = f'not run yet: --tasks={task}'
        rows.append(row)
    columns = ['task'] + [c for v in VARIANT_ORDER for c in (v, f'paper {v}')]
    budget = '; '.join(
        f'{TASK_NAMES[t]}: '
        + ', '.join(
            f'{k}={v}'
            for k, v in {**config(args.mode, t, 'standard'), **args.at}.items()
            if k != 'variant'
        )
        + (
            f' (MixiT also {papers.MIXIT_BLOCK})'
            if 'shaped_gate' in config(args.mode, t, 'mixit')
            else ''
        )
        for t in measured
    )
    notes = (
        f"Settings (learning_rate: the search's centre): {budget}. Cells: held-out accuracy over "
        'the seeds, '
        'mean ± std (min–max).'
    )
    fair.report(
        args,
        NAME,
        'Table 1: tasks that need an induction head (held-out accuracy per scored token)',
        columns,
        rows,
        fairs,
        notes=notes,
        claims=CLAIMS,
        regime=REGIME[args.mode],
    )


if __name__ == '__main__':
    main()

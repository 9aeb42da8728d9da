"""
Figure 2 of "Is Random Attention Sufficient?": retrieval accuracy against task complexity, the largest
number of key-value pairs m_max in a sequence. Where does each variant reach its ceiling?

Data: the retrieval task (m uniform in 1..m_max pairs `k1 v1 ... km vm`, then a query; keys distinct, values
from the lower half of the vocabulary; only the queried value is scored), 4,000 held-out sequences per m_max.
Models: standard, frozen_mlp, frozen_qk, mixit, all with the paper's fixed retrieval architecture
(common.RETRIEVAL, as in induction.py and induction_heads_map.py).
Metric: held-out accuracy per scored token (one per sequence). Beside it, the accuracy of guessing one of
the m values in the context uniformly, mean over m of 1/m: what a model gets that copies "a value" without
retrieving the queried one.

Comparison (issue 16): every variant at its own best, as the paper's Appendix C.1 grid-searches each one (Table 8
lists the values chosen for MixiT only). Per variant, common.fair at the largest m_max: each learning rate of the
search trained on seed 0 and scored by accuracy on a validation split (the training split's last 10%, held out of
training and of the online stream), the best chosen; then that point on --seeds seeds (default 3; seed and
data_seed) at every m_max, reported as mean ± std (min–max) of held-out accuracy. Why so:
- the learning rate alone, at the fixed 2 layers, width 1,024, 4 heads and batch 1,024 (Table 7's retrieval row
  without n_layer, n_embd, n_head and batch_size: lr in 1e-3, 5e-4, 1e-4 in full; --quick: the protocol's lr times
  1/3, 1 and 3): paper text, Appendix C, for this figure: "we fix the embedding dimension at n=1024, with 4 heads
  and 2 layers ... We search for the optimal learning rate for each architecture" (it names the learning rate alone:
  the batch stays Table 8's).
- one search per variant ("for each architecture"), not per (variant, m_max): the text searches per architecture,
  and a search per point would be 7 (quick: 3) times the search's cost. At the largest m_max, because the figure is
  "meant to capture model performance when the accuracies are not saturated at 100%" (Appendix C): at a small m_max
  every learning rate of a softmax variant ties at 100%, and a tie goes to the grid's first point (common.fair), a
  choice that says nothing about the larger m_max (ours).

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked,
as induction.py's retrieval:
- task: their condattendstream_<m_max> (vocabulary 512, a query token of its own), online training with the
  held-out inputs rejected; m = block_size = 2 m_max + 3, the whole sequence.
- m_max in 5, 10, 20, 30, 40, 50, 60: ours (the figure's axis; their code's format fits up to m_max = 128).
- architecture: paper text (Appendix C: 2 layers, width 1024, 4 heads); MixiT with their MixiT block.
- optimizer (common.authors, driver depth.py): AdamW (0.9, 0.999), weight decay 1e-3, 500 warm-up steps, cosine
  to 0; batch 1,024: paper text (Table 8; the learning rate is searched, above; --no-search runs Table 8's 1e-4,
  selected for MixiT); 5,000 steps: ours (the paper gives none).
The paper's figure gives no numbers in our copy, so the paper column states its finding.
--quick: m_max in 4, 8, 16 (ours), the search at 16. common.RETRIEVAL's quick model (V = 64, 2 layers, width 128,
2 heads) and learning rate (1e-3, the search's centre), the softmax scale times 1024 / 128 for every softmax variant
(common.paper_scale: the paper's spread of frozen scores, without which Frozen-QK's frozen attention is near-uniform
at width 128; common.py says more); the authors' depth.py driver as in full (AdamW (0.9, 0.999), weight decay
1e-3, cosine to 0, online training, biases, N(0, 0.02), their MixiT block); ours: 25 warm-up steps (depth.py's 500
would outlast the run; 10%, as the other quick protocols), batch 64 and 250 steps (RETRIEVAL's 500 x 128, a
quarter of the examples, so that the runs below fit the budget). The same setting as induction.py's retrieval.
Time (quick, estimated from the logs of the runs before this comparison, 2 threads on a 2-core CPU): a run took
16.5 / 30 / 61.5 s at m_max 4 / 8 / 16 at 500 x 128 (time goes with the examples), so about 4 / 7.5 / 15.4 s at
250 x 64. Per variant 3 search runs at m_max 16 and 3 seeds at each m_max: 3 x 15.4 + 3 x 27 = 127 s; 4 variants
and about 0.5 s a run to start: about 8.9 min.
--smoke: the full protocol's settings, tiny; no search, one seed.
Claim it tests: standard, frozen_mlp and frozen_qk stay far above MixiT as m_max grows, and Frozen-QK is the
first of them to fall (the paper: "Frozen-QK eventually deteriorates in quality faster than Frozen-MLP and the
standard transformer"; "MixiT has rapidly deteriorating performance with respect to task complexity").

Writes OUT_DIR/retrieval_vs_length.png and, for full and quick runs,
experiments/results/retrieval_vs_length[-quick].png.
"""
import matplotlib

matplotlib.use('Agg')  # files only: no display on a server
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import common  # noqa: E402

NAME = 'retrieval_vs_length'
VARIANT_ORDER = ['standard', 'frozen_mlp', 'frozen_qk', 'mixit']
PAPER = ('standard, frozen_mlp and frozen_qk well above mixit as m_max grows; mixit falls fastest '
         '(11.24% at m_max = 30 in Table 1), frozen_qk eventually below standard and frozen_mlp')
# per mode: the values of m_max (the search at the last), the driver of the authors' code whose settings the runs take
# (common.authors), and train.py's keys of every run but its m_max and variant (--quick: as induction.py's retrieval)
PROTOCOL = {
    'full': dict(m_max=[5, 10, 20, 30, 40, 50, 60], driver='depth.py', run=common.RETRIEVAL['full']),
    'quick': dict(m_max=[4, 8, 16], driver='depth.py', run=common.RETRIEVAL_FAIR_QUICK),
    'smoke': dict(m_max=[2, 3], driver='depth.py', run=common.RETRIEVAL['smoke']),
}
# common.fair's family and the keys its search leaves fixed: Appendix C fixes the architecture and names the
# learning rate alone as searched (docstring)
FIXED = ('n_layer', 'n_embd', 'n_head', 'batch_size')


def config(mode, m_max, variant):
    """train.py's keys of one run (the search's centre); block_size is their m = 2 m_max + 3."""
    p = PROTOCOL[mode]
    return common.authors(p['driver'], variant, task='retrieval', m_max=m_max, block_size=2 * m_max + 3, **p['run'])


def plot(m_values, acc, guess):
    """acc[variant]: per m_max, the accuracies of the seeds; the mean, a bar from the lowest to the highest."""
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for variant in VARIANT_ORDER:
        runs = np.array(acc[variant]) * 100  # (m_max, seed)
        mean = runs.mean(1)
        ax.errorbar(m_values, mean, yerr=[mean - runs.min(1), runs.max(1) - mean], fmt='o-', capsize=3,
                    label=variant)
    ax.plot(m_values, [100 * g for g in guess], 'k:', label='guess a value in context')
    ax.set(xlabel='m_max (largest number of key-value pairs)', ylabel='held-out accuracy (%)', ylim=(0, 102),
           title='Retrieval accuracy against m_max (mean, min-max over seeds)')
    ax.legend(fontsize=8, loc='center left', bbox_to_anchor=(1.02, 0.5))  # outside: the curves sit at 100%
    fig.tight_layout()
    return fig


def main():
    args = common.parse_args(__doc__, compare=True)
    m_values = PROTOCOL[args.mode]['m_max']
    guesses = [sum(1 / m for m in range(1, M + 1)) / M for M in m_values]  # m is uniform in 1..m_max
    fairs, acc = {}, {}
    for variant in VARIANT_ORDER:
        # the search at the largest m_max, its choice run on the same seeds at every m_max (docstring)
        results = common.fair_sweep(args, NAME, {m: config(args.mode, m, variant) for m in m_values}, m_values[-1],
                                    'retrieval', FIXED)
        fairs.update({f'{variant}, m_max {m}': results[m] for m in m_values})
        acc[variant] = [[r['val_acc'] for r in results[m]['runs']] for m in m_values]
    rows = []
    for i, (m_max, guess) in enumerate(zip(m_values, guesses)):
        row = {'m_max': m_max, **{v: common.spread(acc[v][i]) for v in VARIANT_ORDER}}
        row['guess a value in context'] = common.pct(guess)
        row['paper'] = PAPER if not rows else '"'  # the finding concerns the whole curve: once, then ditto
        rows.append(row)
    png = common.save_figure(args, NAME, plot(m_values, acc, guesses))[0]
    budget = ', '.join(f'{k}={v}' for k, v in config(args.mode, m_values[-1], 'standard').items() if k != 'variant')
    budget += f' (at the last m_max; block_size 2 m_max + 3; MixiT also {common.MIXIT_BLOCK})'
    notes = (f"Settings (learning_rate: the search's centre): {budget}. Cells: held-out accuracy over the seeds, mean "
             f'± std (min–max). Plot: {png.name}. The search ran at m_max {m_values[-1]} only; the rows at the '
             f'other m_max ran its chosen point.')
    common.report(args, NAME, 'Figure 2: retrieval accuracy against m_max (held-out accuracy)',
                  ['m_max'] + VARIANT_ORDER + ['guess a value in context', 'paper'], rows, notes=notes, fairs=fairs)


if __name__ == '__main__':
    main()

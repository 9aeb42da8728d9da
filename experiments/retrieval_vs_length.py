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

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked,
as induction.py's retrieval:
- task: their condattendstream_<m_max> (vocabulary 512, a query token of its own), online training with the
  held-out inputs rejected; m = block_size = 2 m_max + 3, the whole sequence.
- m_max in 5, 10, 20, 30, 40, 50, 60: ours (the figure's axis; their code's format fits up to m_max = 128).
- architecture: paper text (Appendix C: 2 layers, width 1024, 4 heads); MixiT with their MixiT block.
- optimizer (common.authors, driver depth.py): AdamW (0.9, 0.999), weight decay 1e-3, 500 warm-up steps, cosine
  to 0; lr 1e-4 and batch 1,024: paper text (Table 8, selected for MixiT; the paper searched lr per
  architecture); 5,000 steps: ours (the paper gives none).
The paper's figure gives no numbers in our copy, so the paper column states its finding.
--quick (ours; train.py's optimizer defaults): m_max in 4, 8, 16 with common.RETRIEVAL's quick setting (V = 64,
2 layers, width 128, 2 heads, softmax scale 1, lr 1e-3, batch 128, 500 steps; common.py says why the scale).
--smoke: the full protocol's settings, tiny.
Claim it tests: standard, frozen_mlp and frozen_qk stay far above MixiT as m_max grows, and Frozen-QK is the
first of them to fall (the paper: "Frozen-QK eventually deteriorates in quality faster than Frozen-MLP and the
standard transformer"; "MixiT has rapidly deteriorating performance with respect to task complexity").

Writes OUT_DIR/retrieval_vs_length.png and, for full and quick runs,
experiments/results/retrieval_vs_length[-quick].png.
"""
import matplotlib

matplotlib.use('Agg')  # files only: no display on a server
import matplotlib.pyplot as plt  # noqa: E402

import common  # noqa: E402

NAME = 'retrieval_vs_length'
VARIANT_ORDER = ['standard', 'frozen_mlp', 'frozen_qk', 'mixit']
PAPER = ('standard, frozen_mlp and frozen_qk well above mixit as m_max grows; mixit falls fastest '
         '(11.24% at m_max = 30 in Table 1), frozen_qk eventually below standard and frozen_mlp')
# per mode: the values of m_max, the driver of the authors' code whose settings the runs take (common.authors; None:
# train.py's defaults), and train.py's keys of every run but its m_max and variant
PROTOCOL = {
    'full': dict(m_max=[5, 10, 20, 30, 40, 50, 60], driver='depth.py', run=common.RETRIEVAL['full']),
    'quick': dict(m_max=[4, 8, 16], driver=None, run=common.RETRIEVAL['quick']),
    'smoke': dict(m_max=[2, 3], driver='depth.py', run=common.RETRIEVAL['smoke']),
}


def config(mode, m_max, variant):
    """train.py's keys of one run; with the authors' driver, block_size is their m = 2 m_max + 3."""
    p = PROTOCOL[mode]
    m = {'block_size': 2 * m_max + 3} if p['driver'] else {}  # ours: the example length
    return common.authors(p['driver'], variant, task='retrieval', m_max=m_max, **p['run'], **m)


def plot(m_values, acc, guess):
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for variant in VARIANT_ORDER:
        ax.plot(m_values, [100 * a for a in acc[variant]], 'o-', label=variant)
    ax.plot(m_values, [100 * g for g in guess], 'k:', label='guess a value in context')
    ax.set(xlabel='m_max (largest number of key-value pairs)', ylabel='held-out accuracy (%)', ylim=(0, 102),
           title='Retrieval accuracy against m_max')
    ax.legend(fontsize=8, loc='center left', bbox_to_anchor=(1.02, 0.5))  # outside: the curves sit at 100%
    fig.tight_layout()
    return fig


def main():
    args = common.parse_args(__doc__)
    m_values = PROTOCOL[args.mode]['m_max']
    guesses = [sum(1 / m for m in range(1, M + 1)) / M for M in m_values]  # m is uniform in 1..m_max
    acc = {v: [] for v in VARIANT_ORDER}
    rows = []
    for m_max, guess in zip(m_values, guesses):
        row = {'m_max': m_max}
        for variant in VARIANT_ORDER:
            m = common.run(args, NAME, **config(args.mode, m_max, variant))
            acc[variant].append(m['val_acc'])
            row[variant] = common.pct(m['val_acc'])
        row['guess a value in context'] = common.pct(guess)
        row['paper'] = PAPER if not rows else '"'  # the finding concerns the whole curve: once, then ditto
        rows.append(row)
    png = common.save_figure(args, NAME, plot(m_values, acc, guesses))[0]
    budget = ', '.join(f'{k}={v}' for k, v in config(args.mode, m_values[-1], 'standard').items() if k != 'variant')
    if PROTOCOL[args.mode]['driver']:
        budget += f' (at the last m_max; block_size 2 m_max + 3; MixiT also {common.MIXIT_BLOCK})'
    common.report(args, NAME, 'Figure 2: retrieval accuracy against m_max (held-out accuracy)',
                  ['m_max'] + VARIANT_ORDER + ['guess a value in context', 'paper'], rows,
                  notes=f'Settings: {budget}. Plot: {png.name}.')


if __name__ == '__main__':
    main()

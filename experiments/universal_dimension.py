"""
Figure 2 of "Fixed universal transformers": how large must the embedding dimension D be for gradient
descent to find the embedding of a fixed universal transformer? Accuracy on k-hop induction heads against D,
for the constructed parameterization (D from Theorem 3.1: D = 2Hk(1 + H + ... + H^(L-1)) + d H^L) and the
standard one (D = H k, heads times head width, as in a usual transformer), varying the head width k.

Data: 2-hop induction heads (data/khop, min_hops = max_hops = 2), online batches, accuracy per scored token
on the held-out split, beside the accuracy of always answering the most frequent target.
Models: the random universal transformer (only E and U trained) at both widths, and the sparse one at the
constructed width (it exists at no other); residual connections and LayerNorm (the paper's best-training
ablation), H heads, L layers.
The paper's figure lost its numbers in our copy; its finding: accuracy rises with D, and the constructed
(large) D trains where the standard (small) one does not.
Settings: the task, models and ablation follow the paper's text (no authors' code in reference.md); its lengths,
H, L, k, learning rates and step counts were lost from our copy, so those below are ours.
Full protocol: k-hop length 32 over 4 letters, H = 2, L = 3, k in 2, 4, 8, 16, 32; 10,000 steps of batch 256,
lr 1e-3. --quick: length 12, H = 2, L = 3, k in 2, 4, 8, 16; 800 steps of
batch 64, lr 3e-3. Writes OUT_DIR/universal_dimension.png (and experiments/results/ for full and quick runs).
Claim it tests: with the same number of heads and layers, the constructed D reaches a high accuracy and
the standard D = Hk stays far below it.
"""
import common
from model import universal_dim

NAME = 'universal_dimension'
# per mode: the k-hop length, held-out examples, head widths k, and train.py's keys of every run but its
# variant, width and k (warm-up min(100, 10% of the steps), cosine to a tenth of the peak; one evaluation, at the end)
PROTOCOL = {
    'full': dict(length=32, n_test=2000, widths=[2, 4, 8, 16, 32],
                 run=dict(n_head=2, n_layer=3, max_iters=10_000, batch_size=256, learning_rate=1e-3, min_lr=1e-4,
                          warmup_iters=100, eval_interval=10_000)),
    'quick': dict(length=12, n_test=2000, widths=[2, 4, 8, 16],
                  run=dict(n_head=2, n_layer=3, max_iters=800, batch_size=64, learning_rate=3e-3, min_lr=3e-4,
                           warmup_iters=80, eval_interval=800)),
    'smoke': dict(length=6, n_test=20, widths=[2, 4],
                  run=dict(n_head=1, n_layer=2, max_iters=3, batch_size=8, learning_rate=3e-3, min_lr=3e-4,
                           warmup_iters=0, eval_interval=3)),
}
FLAGS = dict(residual=True, norm='layernorm', mlp='none')


def plot(rows):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for label, marker in (('random, standard D = Hk', 'o'), ('random, constructed D', 's'),
                          ('sparse, constructed D', '^')):
        pts = sorted((r[label + ' width'], float(r[label].rstrip('%'))) for r in rows)
        ax.plot(*zip(*pts), marker=marker, label=label)
    ax.axhline(float(rows[0]['majority answer'].rstrip('%')), ls=':', color='k', label='majority answer')
    ax.set(xscale='log', xlabel='embedding dimension D', ylabel='held-out accuracy (%)',
           title='2-hop induction heads: accuracy against D (only E and U trained)')
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def main():
    args = common.parse_args(__doc__)
    p = PROTOCOL[args.mode]
    H, L = p['run']['n_head'], p['run']['n_layer']
    settings, vocab, T = common.universal_task('2-hop', p['length'], p['n_test'])
    base = common.majority(settings)
    rows = []
    for k in p['widths']:
        constructed = universal_dim(H, L, vocab + T, k)
        row = {'head width k': k, 'majority answer': common.pct(base)}
        for label, variant, D in (('random, standard D = Hk', 'universal_random', H * k),
                                  ('random, constructed D', 'universal_random', constructed),
                                  ('sparse, constructed D', 'universal_sparse', constructed)):
            m = common.run(args, NAME, **settings, variant=variant, n_embd=D, universal_k=k, **FLAGS, online=True,
                           **p['run'])
            row[label] = common.pct(m['val_acc'])
            row[label + ' width'] = D
        row['paper'] = 'accuracy rises with D; the constructed D trains, D = Hk does not'
        rows.append(row)
    common.save_figure(args, NAME, plot(rows))
    budget = ', '.join(f'{key}={v}' for key, v in p['run'].items())
    notes = (f"2-hop induction heads, length {p['length']} over 4 letters; residual and LayerNorm; online training, "
             f"{budget}; accuracy per scored token on {p['n_test']:,} held-out examples; \"width\" columns give D. "
             f'Plot: {NAME}.png.')
    columns = ['head width k', 'majority answer'] + [c for label in ('random, standard D = Hk', 'random, constructed D',
                                                                      'sparse, constructed D')
                                                     for c in (label + ' width', label)] + ['paper']
    common.report(args, NAME, 'Universal transformers, Figure 2: accuracy against the embedding dimension', columns,
                  rows, notes=notes)


if __name__ == '__main__':
    main()

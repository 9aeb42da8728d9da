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
Full protocol: k-hop length 32 over 4 letters, H = 2, L = 3, k in 2, 4, 8, 16, 32; 10,000 steps of batch 256,
lr 1e-3. --quick (2-core CPU, a few minutes): length 12, H = 2, L = 3, k in 2, 4, 8, 16; 800 steps of
batch 64, lr 3e-3. Writes OUT_DIR/universal_dimension.png (and experiments/results/ for full and quick runs).
Claim it tests: with the same number of heads and layers, the constructed D reaches a high accuracy and
the standard D = Hk stays far below it.
"""
import common
from model import universal_dim
from universal_tasks import majority, task_settings

NAME = 'universal_dimension'
PROTOCOL = {  # khop length, H, L, head widths k, steps, batch, lr, n_test
    'full': (32, 2, 3, (2, 4, 8, 16, 32), 10_000, 256, 1e-3, 2000),
    'quick': (12, 2, 3, (2, 4, 8, 16), 800, 64, 3e-3, 2000),
    'smoke': (6, 1, 2, (2, 4), 3, 8, 3e-3, 20)}
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
    length, H, L, widths, steps, batch, lr, n_test = PROTOCOL[args.mode]
    settings, vocab, T = task_settings('2-hop', 0, length, n_test)
    base = majority(settings)
    rows = []
    for k in widths:
        constructed = universal_dim(H, L, vocab + T, k)
        row = {'head width k': k, 'majority answer': common.pct(base)}
        for label, variant, D in (('random, standard D = Hk', 'universal_random', H * k),
                                  ('random, constructed D', 'universal_random', constructed),
                                  ('sparse, constructed D', 'universal_sparse', constructed)):
            m = common.run(args, NAME, **settings, variant=variant, n_head=H, n_layer=L, n_embd=D, universal_k=k,
                           **FLAGS, online=True, max_iters=steps, batch_size=batch, learning_rate=lr,
                           eval_interval=steps, run_name=f'2hop-{variant}-k{k}-D{D}')
            row[label] = common.pct(m['val_acc'])
            row[label + ' width'] = D
        row['paper'] = 'accuracy rises with D; the constructed D trains, D = Hk does not'
        rows.append(row)
    common.save_figure(args, NAME, plot(rows))
    notes = (f'2-hop induction heads, length {length} over 4 letters; H = {H}, L = {L}, residual and LayerNorm; '
             f'{steps:,} online steps of batch {batch}, lr {lr:g}; accuracy per scored token on {n_test:,} held-out '
             f'examples; "width" columns give D. Plot: {NAME}.png.')
    columns = ['head width k', 'majority answer'] + [c for label in ('random, standard D = Hk', 'random, constructed D',
                                                                      'sparse, constructed D')
                                                     for c in (label + ' width', label)] + ['paper']
    common.report(args, NAME, 'Universal transformers, Figure 2: accuracy against the embedding dimension', columns,
                  rows, notes=notes)


if __name__ == '__main__':
    main()

"""
Table 4 of "Is Random Attention Sufficient?" ("Attention Retrieves, MLP Memorizes"): how much does each
variant memorize, in bits per trainable parameter?

Data: the memorization task, every pair [x, y + size] -> a uniformly random label in [0, size), so a
label carries log2(size) bits and nothing can be inferred; accuracy is measured on the training set.
Models: standard, frozen_mlp, frozen_qk, mixit with the same architecture: 2 layers, width 128, 4 heads,
biases on the attention and MLP linears, untied head. bits/param = log2(size) * size^2 * acc / trainable.
Full protocol (paper): size 512 (262,144 pairs, 9 bits each), 10,000 steps, lr 0.005, batch 256 (the
memorization batch of Table 8). The trainable counts must come out as the paper's 790,400 / 394,880 /
724,352 / 724,736.

--quick: size 128 (16,384 pairs, 7 bits each), width 32, and the paper's 10,000
steps, lr and batch.
Claim it tests: the fully trained model stores the most bits per parameter, freezing the MLP costs the
most, and freezing attention's scores (frozen_qk, mixit) costs less.

One extra row, not in the paper: MixiT with the std of M at 1/sqrt(m), m = 3 (the paper's sequence
[x, y, label]), instead of our default 1/sqrt(block_size * head_dim) (block_size 2: the model reads
[x, y]). The authors' Llama-style code draws each head's std between the two. The label is predicted at
the second position, whose only mixing weight on the first token is (M_10 - M_11)/2: std 0.09 by default
at width 128 (0.18 at the quick width 32), 0.41 at 1/sqrt(3). The row shows how much that choice
matters on this task.
"""
import math

import common
from model import GPT, GPTConfig, VARIANTS

NAME = 'memorization_capacity'
VARIANT_ORDER = ['standard', 'frozen_mlp', 'frozen_qk', 'mixit']
PAPER = {'standard': (1.00, 2.98, 790400), 'frozen_mlp': (0.19, 1.13, 394880),
         'frozen_qk': (0.69, 2.25, 724352), 'mixit': (0.67, 2.18, 724736)}
WIDE = 'mixit, std 1/sqrt(m)'  # the extra row (see above)
# train.py's keys of every run but its variant: Table 4's architecture, the paper's steps, lr and batch (Table 8's
# memorization batch); warm-up min(100, 10% of the steps), cosine to a tenth of the peak
PROTOCOL = {
    'full': dict(size=512, n_layer=2, n_embd=128, n_head=4, bias=True, learning_rate=5e-3, min_lr=5e-4,
                 warmup_iters=100, batch_size=256, max_iters=10_000, eval_interval=10_000),
    'quick': dict(size=128, n_layer=2, n_embd=32, n_head=4, bias=True, learning_rate=5e-3, min_lr=5e-4,
                  warmup_iters=100, batch_size=256, max_iters=10_000, eval_interval=10_000),
    'smoke': dict(size=16, n_layer=2, n_embd=16, n_head=4, bias=True, learning_rate=5e-3, min_lr=5e-4,
                  warmup_iters=0, batch_size=256, max_iters=4, eval_interval=4),
}


def main():
    args = common.parse_args(__doc__)
    setting = PROTOCOL[args.mode]
    size = setting['size']
    rows = []
    for label in VARIANT_ORDER + [WIDE]:
        variant, extra = ('mixit', dict(mixit_std=1 / math.sqrt(3))) if label == WIDE else (label, {})
        # the paper's count at the paper's setting, whatever the mode: vocab 1024, block 3
        paper_count = GPT(GPTConfig(**VARIANTS[variant], n_layer=2, n_head=4, n_embd=128, bias=True,
                                    vocab_size=1024, block_size=3)).get_num_params()
        m = common.run(args, NAME, task='memorization', variant=variant, **setting, **extra)
        bits = math.log2(size) * size ** 2 * m['val_acc'] / m['trainable_params']
        row = {'variant': label, 'accuracy': common.pct(m['val_acc']), 'bits/param': f'{bits:.2f}',
               'trainable params': f"{m['trainable_params']:,}", 'at the paper setting': f'{paper_count:,}'}
        if label in PAPER:
            acc, paper_bits, paper_params = PAPER[label]
            row.update({'paper accuracy': common.pct(acc), 'paper bits/param': f'{paper_bits:.2f}',
                        'paper params': f'{paper_params:,}'})
        rows.append(row)
    budget = ', '.join(f'{k}={v}' for k, v in setting.items())
    columns = ['variant', 'accuracy', 'paper accuracy', 'bits/param', 'paper bits/param', 'trainable params',
               'at the paper setting', 'paper params']
    common.report(args, NAME, 'Table 4: memorization capacity', columns, rows,
                  notes=f'Budget: {budget}; accuracy on the training set (the task has no held-out split).')


if __name__ == '__main__':
    main()

"""
Table 4 of "Is Random Attention Sufficient?" ("Attention Retrieves, MLP Memorizes"): how much does each
variant memorize, in bits per trainable parameter?

Data: the memorization task, every pair [x, y + size] -> a uniformly random label in [0, size), so a
label carries log2(size) bits and nothing can be inferred; accuracy is measured on the training set.
Models: standard, frozen_mlp, frozen_qk, mixit with the same architecture: 2 layers, width 128, 4 heads,
biases on the attention and MLP linears, untied head. bits/param = log2(size) * size^2 * acc / trainable.
The trainable counts at the paper's setting must come out as the paper's 790,400 / 394,880 / 724,352 /
724,736 (MixiT's includes 3 x 128 learned positions: block 3, the whole sequence [x, y, label]).

Full protocol, settings as the authors' hdmemorize_exp.py runs them (reference.md section 4; "paper text" where
the text is followed):
- size 512, 262,144 pairs of 9 bits (paper text and authors' code agree);
- batch min(n^2, 256 * 128) = 32,768, hard-coded in the driver (authors' code; Table 8's 256 is the paper text's);
- 10,000 steps (1,250 epochs), lr 0.005 (authors' code and paper text agree);
- AdamW betas (0.9, 0.999), weight decay 1e-4, 500 warm-up steps, cosine to 0 (authors' code: the HF Trainer);
- N(0, 0.02) init without the 1/sqrt(2L) of the residual projections (authors' code);
- block_size 3 (authors' code: their model is fed the whole sequence, answer included; its MixiT std and positions
  have that length);
- MixiT: the authors' MixiT (per-head std, sink head) and their MixiT block (LeakyReLU gate, residual scaling
  sqrt(0.5), width multipliers at base 512) (authors' code).
One extra row: MixiT as the paper text's Eq. 2.3, one std for every head and no sink head, in the plain Llama block.
Its std is 1/sqrt(m head_dim) (the authors' GPT-2 path; the text writes 1/sqrt(n m)). At T = 2 (quick), it is the
MixiT of this repository before it followed the authors' code.

--quick: size 128 (16,384 pairs, 7 bits each), width 32, and the paper's 10,000 steps and lr; batch 256, 100
warm-up steps, cosine to a tenth of the peak, AdamW (0.9, 0.95) with weight decay 0.1 (train.py's defaults: ours,
kept as they were so that the quick numbers before and after the switch to the authors' MixiT are comparable).
Rows: the four variants (mixit the authors' attention, in the plain Llama block), the Eq. 2.3 MixiT (bit for bit
the former default), and the authors' MixiT with their MixiT block and N(0, 0.02) init.
--smoke: the full protocol's settings at a tiny size.
Claim it tests: the fully trained model stores the most bits per parameter, freezing the MLP costs the
most, and freezing attention's scores (frozen_qk, mixit) costs less.
"""
import math

import common
from model import GPT, GPTConfig, VARIANTS

NAME = 'memorization_capacity'
PAPER = {'standard': (1.00, 2.98, 790400), 'frozen_mlp': (0.19, 1.13, 394880),
         'frozen_qk': (0.69, 2.25, 724352), 'mixit': (0.67, 2.18, 724736)}
PLAIN, BLOCK = 'mixit, Eq. 2.3 (one std, no sink)', "mixit, the authors' MixiT block and init"
# train.py's keys of every run but its variant (the full protocol's MixiT block is added by common.authors)
PROTOCOL = {
    'full': dict(size=512, n_layer=2, n_embd=128, n_head=4, block_size=3, learning_rate=5e-3, warmup_iters=500,
                 batch_size=32_768, max_iters=10_000, eval_interval=10_000),
    'quick': dict(size=128, n_layer=2, n_embd=32, n_head=4, bias=True, learning_rate=5e-3, min_lr=5e-4,
                  warmup_iters=100, batch_size=256, max_iters=10_000, eval_interval=10_000),
    'smoke': dict(size=16, n_layer=2, n_embd=16, n_head=4, bias=True, learning_rate=5e-3, min_lr=5e-4,
                  warmup_iters=0, batch_size=256, max_iters=4, eval_interval=4),
}


def runs(mode, setting):
    """-> {row label: train.py's keys}: the authors' hdmemorize_exp.py settings in full (and, tiny, in --smoke, so
    that the tests run them), ours in --quick."""
    plain = common.plain_mixit(setting.get('block_size', 2), setting['n_embd'] // setting['n_head'])
    if mode != 'quick':  # the Eq. 2.3 row: the paper text's MixiT in the paper text's (plain Llama) block
        rows = {v: common.authors('hdmemorize_exp.py', v, **setting) for v in PAPER}
        return {**rows, PLAIN: {**common.authors('hdmemorize_exp.py', 'standard', **setting), **plain}}
    rows = {v: dict(variant=v, **setting) for v in PAPER}
    return {**rows, PLAIN: {**setting, **plain}, BLOCK: {**rows['mixit'], **common.MIXIT_BLOCK, 'scaled_init': False}}


def main():
    args = common.parse_args(__doc__)
    setting = dict(task='memorization', **PROTOCOL[args.mode])
    size = setting['size']
    rows = []
    for label, config in runs(args.mode, setting).items():
        variant = config['variant']
        # the paper's count at the paper's setting, whatever the mode: vocab 1024, block 3
        paper_count = GPT(GPTConfig(**VARIANTS[variant], n_layer=2, n_head=4, n_embd=128, bias=True,
                                    vocab_size=1024, block_size=3)).get_num_params()
        m = common.run(args, NAME, **config)
        bits = math.log2(size) * size ** 2 * m['val_acc'] / m['trainable_params']
        row = {'variant': label, 'accuracy': common.pct(m['val_acc']), 'bits/param': f'{bits:.2f}',
               'trainable params': f"{m['trainable_params']:,}", 'at the paper setting': f'{paper_count:,}'}
        if label in PAPER:
            acc, paper_bits, paper_params = PAPER[label]
            row.update({'paper accuracy': common.pct(acc), 'paper bits/param': f'{paper_bits:.2f}',
                        'paper params': f'{paper_params:,}'})
        rows.append(row)
    budget = ', '.join(f'{k}={v}' for k, v in setting.items() if k != 'task')
    columns = ['variant', 'accuracy', 'paper accuracy', 'bits/param', 'paper bits/param', 'trainable params',
               'at the paper setting', 'paper params']
    common.report(args, NAME, 'Table 4: memorization capacity', columns, rows,
                  notes=f'Budget: {budget}; accuracy on the training set (the task has no held-out split).')


if __name__ == '__main__':
    main()

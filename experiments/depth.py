"""
Table 5 of "Is Random Attention Sufficient?": MixiT against the random transformer (Zhong & Andreas
2024) as depth grows, on decimal addition.

Data: decimal addition, digits least-significant first; per-token accuracy on the scored sum tokens.
Models: mixit (everything trained but the fixed mixing matrices, Eq. 2.3, whose rows sum to one: the
signal is shaped to propagate) and random (only the embeddings and the LM head trained, every block weight
and norm at its random initialization).
Metric: held-out accuracy per scored token.

Comparison (issue 16): each model at its own best, as the paper says it found the random transformer's failure
"through in depth hyperparameter searches" (Appendix B.1). Per model and depth, common.fair: each point of a search
trained on seed 0 and scored by accuracy on a validation split (the training split's last 10%, held out of training
and of the online stream), then the chosen point on --seeds seeds (default 3; seed and data_seed), reported as
mean ± std (min–max). What is searched: Table 7's algorithmic row but the layers (the table's variable), the width and
heads (the architecture the authors' scripts give each model) and the batch (their budgets are example counts: steps
= max_steps x train_size / batch) (full); the protocol's learning rate times 1/3, 1 and 3 (--quick).

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- task: their additionstream_10 (10-digit operands; sum digits tokens of their own; the first sum digit, the
  target of '=', neither trained nor scored); 4,000 held-out sums; online training, a fresh batch every step
  with held-out inputs rejected (their depth.py streams: the paper text's 50,000 pairs only set its step count).
- MixiT: scripts/depth.sh's width 512 and 128 heads, every weight trained (its weight_frozen=0); their MixiT
  (per-head std, sink head) with m = block_size = 34, the whole sequence their model reads; their MixiT block
  (common.MIXIT_BLOCK: LeakyReLU gate, skip scaling sqrt(0.5), width multipliers at base 512).
- random transformer: their code's, a plain Llama (RoPE, SiLU gate) with depth.py's weight_frozen=1, so only
  the token embedding and the LM head are trained (variant random with pos='rope'; Zhong & Andreas' own, our
  random variant as such and --quick's, is GPT-2-like with learned positions, trained too), as
  scripts/depth_array.sh's vanilla branch runs it: width 512, 4 heads, batch 128, 312,500 steps (500 x 80,000 /
  128 = 40M examples). depth.sh cannot make it: it trains every weight.
- optimizer (common.authors, driver depth.py): AdamW (0.9, 0.999), weight decay 1e-3, 500 warm-up steps, cosine
  to 0, lr 1e-2 (depth.py's default: the scripts pass none; --no-search runs it, the search Table 7's 1e-3, 5e-4,
  1e-4), N(0, 0.02) weights, biases, clipping 1.0 (HF's).
- MixiT's budget: 40,000 steps of batch 1,000 (the task file's batch: depth.sh passes none) = 40M examples,
  depth.sh's 500 "steps" x train_size 80,000 (depth.sh passes --train_steps=500 and --shaping, flags today's
  depth.py rejects; read as --max_steps=500, as depth_array.sh passes it).
- depths 2, 8, 16: paper text (Table 5; depth.sh runs 8 layers), each searched. Ten evaluations per run: ours.
Estimated (not measured): about an hour per model and depth on one H100 (most of it the 16-layer runs), times 6 runs
(3 learning rates, 3 seeds).

--quick (chosen before it was run; ours unless marked): the authors' driver as in full (common.authors('depth.py'):
AdamW (0.9, 0.999), weight decay 1e-3, cosine to 0, biases, N(0, 0.02), online training with held-out inputs
rejected, MixiT's block), at a small size:
- task: 2-digit addition (their format), 10,000 training draws (they only size the validation split: training is
  online) and 1,000 held-out sums: 2 digits have 8,100 sums, so 4,000 held-out draws would cover 40% of them and a
  validation split of 5,000 most of the rest. block_size 10 = 3 x digits + 4, their m (the whole sequence).
- random transformer: width 128 (measured, below), 4 heads (depth_array.sh's; head width 32), Zhong & Andreas'
  learned positions (trained with the token embedding and LM head), not the authors' RoPE: at depth 2 the RoPE one
  learned 3-digit addition at no width a CPU affords (54%, 56%, 60% at width 64, 128, 256 after 1,000 steps), so
  no depth trend could show. Its softmax scale is common.paper_scale(128, 4, 512): its W_Q, W_K are frozen N(0,
  0.02^2) and RMSNorm (frozen at 1) fixes |x|^2 = n, so its attention scores have std n 0.02^2 whatever is trained:
  0.05 at width 128, near-uniform mixing, 0.2 at the paper's 512; the scale restores the paper width's spread.
- MixiT: width 64, 8 heads of width 8 (the issue: no heads of width 1 as before; depth.sh's 128 heads at 512 are 4
  wide), every weight trained. A narrower model than the random transformer's because it trains every weight (the
  random one learns through its random features, which need width) and the budget: at width 128 its runs would
  add about 4 minutes. The claim is each model's trend with depth, not the two at one width.
- every run: lr 1e-2 (depth.py's default), the search's centre (3.3e-3, 1e-2, 3e-2); 100 warm-up steps (depth.py's
  500 would outlast the run); batch 64, 800 steps; one evaluation, at the end.
- depths 2 and 8 (Table 5's 16 is left out: its random-transformer seeds alone would take about 7 minutes; the
  paper's random transformer has already fallen to 23.53% at depth 8). The learning rate is searched at depth 2 and
  reused at depth 8 (3 + 3 + 3 runs per model instead of 12): a search at depth 8 would add about 5 minutes. So a
  depth-8 model that would learn at another learning rate is not ruled out here; the full protocol searches at
  every depth.
- measured before fixing the protocol (OMP_NUM_THREADS=1, the random transformer as above at depth 2, batch 64, lr
  1e-2, a tenth of the steps warm-up, per-token held-out accuracy; /tmp scripts calling common.authors and
  common.run): 3 digits, RoPE, 1,000 steps: width 64 54.12%, 128 55.85%, 256 60.21% (256 at lr 3e-2: 55.96%; 2
  digits, 128 at lr 3e-2: 70.73%);
  3 digits, learned positions, 1,000 steps: 128 56.21%, 192 76.33%, 256 82.99%; 2 digits (n_test 1,000), learned
  positions, 1,000 steps: width 96 70.33% (the ~70% plateau of the tokens guessable without adding), 128 99.47%
  (batch 32: 70.83%); with the paper_scale above: 128 99.70% after 1,000 steps, 96.57% after 600, and width 64
  80.00% after 600. Hence width 128, and 800 steps between the two measured budgets.
Estimated wall time alone, OMP_NUM_THREADS=1: 8 minutes, from per-step CPU times measured at depth 2 and 8 (random
transformer 23 and 85 ms, MixiT 12 and 43 ms): 3 search runs at depth 2 plus 3 seeds at depths 2 and 8 per model,
800 steps each.
--smoke: the full protocol's models and optimizer, tiny, depths 2 and 8 (--search: the quick protocol's search at
depth 2, reused at 8).
Claim it tests: MixiT stays accurate as it gets deeper while the random transformer degrades.
"""

import common

NAME = 'depth'
DEPTHS = [2, 8, 16]  # Table 5's
PAPER = {'mixit': {2: 100, 8: 100, 16: 100}, 'random': {2: 100, 8: 23.53, 16: 22.88}}
# full: the layers (Table 5's variable), each model's width and heads (the authors' scripts) and its batch (an example
# budget, with its steps) stay; Table 7's algorithmic row searches the rest, the learning rate
FIXED = ('n_layer', 'n_embd', 'n_head', 'batch_size')
# per mode: train.py's keys of each model, and of every run but its model and depth (block_size: the authors' m,
# 3 * digits + 4, the example and its answer); the depths run, and the depth the search runs at (None: every depth)
AUTHORS = {'mixit': common.authors('depth.py', 'mixit', n_head=128, batch_size=1000, max_iters=40_000,
                                   eval_interval=4_000),  # scripts/depth.sh
           'random': common.authors('depth.py', 'random', pos='rope', n_head=4, batch_size=128, max_iters=312_500,
                                    eval_interval=31_250)}  # depth_array.sh, shaped_attention=vanilla
QUICK = {'mixit': common.authors('depth.py', 'mixit', n_embd=64, n_head=8),
         'random': common.authors('depth.py', 'random', n_embd=128, n_head=4,  # learned positions: Zhong & Andreas'
                                  attn_scale=common.paper_scale(128, 4, 512))}
PROTOCOL = {
    'full': dict(depths=DEPTHS, search_at=None, models=AUTHORS,
                 run=dict(n_embd=512, block_size=34, learning_rate=1e-2)),
    'quick': dict(depths=[2, 8], search_at=2, models=QUICK, run=dict(
        digits=2, n_train=10_000, n_test=1_000, block_size=10, learning_rate=1e-2, warmup_iters=100, batch_size=64,
        max_iters=800, eval_interval=800)),
    'smoke': dict(depths=[2, 8], search_at=2, models=AUTHORS, run=dict(
        digits=2, n_train=200, n_test=50, n_embd=16, n_head=4, block_size=10, learning_rate=3e-3, batch_size=16,
        max_iters=3, warmup_iters=0, eval_interval=3)),
}


def config(mode, model, depth):
    """train.py's keys of one run."""
    return {'task': 'addition', **PROTOCOL[mode]['models'][model], **PROTOCOL[mode]['run'], 'n_layer': depth}


def main():
    args = common.parse_args(__doc__, compare=True)
    protocol = PROTOCOL[args.mode]
    rows, fairs = [], {}
    for model in PAPER:
        # the search at search_at alone (None: at every depth), its choice reused at the other depths (docstring)
        results = common.fair_sweep(args, NAME, {d: config(args.mode, model, d) for d in protocol['depths']},
                                    protocol['search_at'], 'algorithmic', FIXED)
        row = {'model': model}
        for depth in DEPTHS:
            if depth in results:
                fairs[f'{model}, depth {depth}'] = results[depth]
            row[f'depth {depth}'] = (common.spread([m['val_acc'] for m in results[depth]['runs']]) if depth in results
                                     else 'not run')
            row[f'paper {depth}'] = f'{PAPER[model][depth]:.2f}%'
        rows.append(row)
    shown = {'every run': protocol['run'], **{m: {k: v for k, v in keys.items() if k not in protocol['run']}
                                               for m, keys in protocol['models'].items()}}  # what each run has
    listed = lambda v: ', '.join(f'{a}={b:.4g}' if isinstance(b, float) else f'{a}={b}' for a, b in v.items())
    settings = '; '.join(f'{k}: {listed(v)}' for k, v in shown.items())
    notes = (f'Settings (addition): {settings}. Accuracy per scored token on the held-out split, over the seeds: '
             f'mean ± std (min–max); each model and depth at its chosen learning rate (below).')
    if protocol['search_at'] and args.search:
        notes += (f" The learning rate is searched at depth {protocol['search_at']} only and reused at the other "
                  f"depths (their grid: '-').")
    if protocol['depths'] != DEPTHS:
        notes += f" Not run in --{args.mode}: depth {', '.join(str(d) for d in DEPTHS if d not in protocol['depths'])}."
    common.report(args, NAME, 'Table 5: MixiT and the random transformer against depth (decimal addition)',
                  list(rows[0]), rows, notes=notes, fairs=fairs)


if __name__ == '__main__':
    main()

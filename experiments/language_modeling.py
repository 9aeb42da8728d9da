"""
Table 2 of "Is Random Attention Sufficient?": language modeling, in log perplexity (mean next-token
cross-entropy in nats on the whole held-out split), of the standard transformer, Frozen-QK (W_Q, W_K kept
at initialization) and MixiT (a fixed random mixing matrix per layer and head instead of attention).

Data: WikiText-103 and FineWeb-edu, GPT-2 BPE tokens (below).
Models: standard, frozen_qk (W_Q, W_K and their biases frozen, their --freeze_attention), mixit.

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- architecture: their README's trainer.py command, which is Table 8's (paper text) too: 12 layers, width 512,
  8 heads, sequence 256; their Llama block (RMSNorm, gated MLP, RoPE) for standard and Frozen-QK, and for MixiT
  their MixiT (per-head std, sink head; learned positions) in their MixiT block as trainer.py builds it: LeakyReLU
  gate with c = -1 (their default, which the README's command keeps; scripts/train.sh passes +1 together with
  depth_alpha=1, see below), skip scaling 0.5 (trainer.py's default), width multipliers at base width 512;
  N(0, 0.02) weights, biases.
- optimizer (common.authors, driver trainer.py): AdamW (0.9, 0.999), weight decay 0.01, warm-up max(4% of the
  steps, 500) = 1,600, linear decay to 0, clipping 1.0; lr 5e-4, batch 512, 40,000 steps (the README's command,
  Table 8). Their MixiT lr scaling (base_n_layer / n_layer) * (base_hidden_size / n_embd), base 4 layers and
  512 wide (trainer.py's get_learning_rate_scaling, 1/3 here), applies only with their --scale_lr, which
  defaults to False and which no script passes: off here too, --scale_lr turns it on.
- not followed: scripts/train.sh's depth_alpha=1.0, a different MixiT (no identity, one std 1/sqrt(m), residual
  branches scaled by base_n_layer / n_layer instead of the skip scaling): the README's command runs
  depth_alpha=0 (their default), the MixiT of the paper's Eq. 2.3, and model.py has no depth_alpha.
- data: not reproducible offline: their Llama-3.2 tokenizer, and each dataset row (for WikiText one line)
  tokenized on its own, padded or cut to 256 tokens, pads not scored. Ours: GPT-2 BPE tokens, vocabulary
  padded to 50,304, windows of 256 contiguous tokens of WikiText-103 ('wikitext', evaluated on its validation
  split, and on its test split after training) and FineWeb-edu ('fineweb_edu': 1,048,576 training documents,
  the first 4,096 held out; paper text). Both must be prepared first (`python data/wikitext/prepare.py`,
  `python data/fineweb_edu/prepare.py`, or with --input=LOCAL_FILES; see README 'Text corpora'); missing data
  fails at once, before anything trains. So compare orderings with the paper, not values.
The batch is micro-batches of --micro_batch (default 64) x gradient accumulation (512 / 64 = 8), so it fits one
80 GB GPU; on one H100 a run takes hours (the paper measured about 1,000 samples/s, 5-6 hours a run). The
script trains in one process and prints, for every run, the equivalent train.py command; for several GPUs run
those through torchrun instead, e.g.

    torchrun --standalone --nproc_per_node=8 train.py --task=wikitext --variant=frozen_qk --n_layer=12 ...

(gradient_accumulation_steps counts micro-batches over all processes: 8 GPUs x 1 = the same 512 batch).
--corpora=wikitext or fineweb_edu picks one.
Metric: log perplexity (nats per GPT-2 token) of the held-out split, beside the paper's.

--quick (ours; train.py's optimizer defaults): the 'text' task, byte-level tokens
(--encoding=bytes, vocabulary 257), on a local text (--text=PATH; default: every license text of
Debian's /usr/share/common-licenses concatenated, so it runs offline anywhere; the README's
4.4 MB King James Bible is a better choice where available), its last 5% held out. 3 layers, width 128,
4 heads, sequence 256, 500 steps of batch 16 x 256 tokens, lr 3e-3 with 50 warm-up steps and cosine to
3e-4. Metric: held-out log perplexity in nats per byte (not comparable with the paper's per-GPT-2-token
numbers). Claim it tests: the paper's ordering standard <= frozen_qk < mixit, i.e. random fixed query and
key projections cost little or something, and input-independent mixing costs clearly more.
--smoke: a tiny text written into DATA_DIR, 1 layer of width 32, 4 steps.
"""
import sys

import common

NAME = 'language_modeling'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit']
CORPORA = ['wikitext', 'fineweb_edu']
PAPER = {'wikitext': {'standard': 2.78, 'frozen_qk': 3.07, 'mixit': 3.73},
         'fineweb_edu': {'standard': 3.05, 'frozen_qk': 3.16, 'mixit': 4.08}}
# per mode: the batch in sequences (--micro_batch of them at a time in the full protocol), the driver of the authors'
# code whose settings the runs take (common.authors; None: train.py's defaults), and train.py's keys of every run but
# its corpus and variant
PROTOCOL = {
    'full': dict(batch=512, driver='trainer.py', run=dict(
        vocab_size=50304, n_layer=12, n_embd=512, n_head=8, block_size=256, max_iters=40_000, learning_rate=5e-4,
        eval_interval=4000)),
    'quick': dict(batch=16, driver=None, run=dict(encoding='bytes', n_layer=3, n_embd=128, n_head=4, block_size=256,
                                                  max_iters=500, learning_rate=3e-3, min_lr=3e-4, warmup_iters=50,
                                                  eval_interval=100)),
    'smoke': dict(batch=4, driver='trainer.py', run=dict(encoding='bytes', n_layer=1, n_embd=32, n_head=2,
                                                         block_size=32, max_iters=4, learning_rate=3e-3,
                                                         warmup_iters=0, eval_interval=4)),
}


def lr_scaling(config):
    """Their trainer.py's get_learning_rate_scaling for MixiT (used with --scale_lr only): (4 / n_layer) * (512 /
    n_embd), base 4 layers and width 512; 1 for the other variants."""
    return (4 / config['n_layer']) * (512 / config['n_embd']) if config['variant'] == 'mixit' else 1.0


def config(mode, variant, scale_lr=False):
    """train.py's keys of one run but its data and batch keys."""
    p = PROTOCOL[mode]
    keys = common.authors(p['driver'], variant, **p['run'])
    return {**keys, 'learning_rate': keys['learning_rate'] * lr_scaling(keys)} if scale_lr and p['driver'] else keys


def add_flags(parser):
    parser.add_argument('--corpora', default=','.join(CORPORA), help='full mode: comma-separated subset of '
                        f'{CORPORA}')
    parser.add_argument('--micro_batch', type=int, default=64, help='full mode: sequences per micro-batch; '
                        'gradient accumulation makes up the batch of 512')
    parser.add_argument('--text', default='', help='quick mode: a UTF-8 text file (or a folder of .txt '
                        f'files); default: the files of {common.LICENSES} concatenated')
    parser.add_argument('--scale_lr', action='store_true', help="full mode: the authors' --scale_lr, MixiT's lr "
                        'times (4 / n_layer) * (512 / n_embd) (off in their scripts)')


def main():
    args = common.parse_args(__doc__, add_flags)
    protocol = PROTOCOL[args.mode]
    if args.mode == 'full':
        corpora = [c.strip() for c in args.corpora.split(',') if c.strip()]
        if not corpora or any(c not in CORPORA for c in corpora):
            sys.exit(f'error: --corpora={args.corpora}: choose among {", ".join(CORPORA)}')
        common.corpus_dirs(args, corpora, 'run --quick on a local text')
        runs = [(c, dict(task=c)) for c in corpora]
        unit = 'nats per GPT-2 token'
    else:
        data_dir = common.byte_text(args, NAME)
        runs = [(f'text ({data_dir.name})', dict(task='text', data_dir=str(data_dir)))]
        unit = 'nats per byte'
    opt = common.batch_keys(args, protocol['batch'])
    rows, commands = [], []
    for label, data in runs:
        for variant in VARIANT_ORDER:
            keys = dict(**data, **config(args.mode, variant, args.scale_lr), **opt)
            commands.append(common.command(args, keys))
            print(f'# {label} / {variant}, as a train.py command (prefix torchrun --standalone --nproc_per_node=N '
                  f'for N GPUs):\n{commands[-1]}')
            m = common.run(args, NAME, **keys)
            row = {'corpus': label, 'variant': variant, 'log perplexity': f"{m['val_loss']:.3f}"}
            if data['task'] == 'wikitext':  # the test split too, from the finished run's checkpoint
                t = common.run(args, NAME, **keys, resume=True, eval_split='test')
                row['test log perplexity'] = f"{t['val_loss']:.3f}"
            paper = PAPER.get(data['task'])
            row['paper log perplexity'] = f'{paper[variant]:.2f}' if paper else \
                f"(WikiText {PAPER['wikitext'][variant]:.2f}, FineWeb-edu {PAPER['fineweb_edu'][variant]:.2f})"
            row.update({'next-token accuracy': common.pct(m['val_acc']),
                        'trainable params': f"{m['trainable_params']:,}",
                        'train tokens/s': f"{m['tokens_per_s']:,.0f}", 'wall': f"{m['wall_s'] / 60:.1f} min"})
            rows.append(row)
    columns = list(dict.fromkeys(c for row in rows for c in row))
    budget = ', '.join(f'{k}={v}' for k, v in {**config(args.mode, 'standard'), **opt}.items() if k != 'variant')
    if protocol['driver']:
        mixit = {k: v for k, v in config(args.mode, 'mixit').items() if k in common.MIXIT_BLOCK}
        budget += f'; MixiT also {mixit}' + (', its lr scaled (--scale_lr)' if args.scale_lr else '')
    notes = (f'Budget: {budget}. Log perplexity in {unit} over the whole held-out split (WikiText: validation; '
             f'the test column evaluates the final checkpoint on the test split). Train tokens/s is train.py\'s: '
             f'training tokens over the run\'s wall time, evaluations and checkpoints included.')
    if args.mode != 'full':
        losses = {r['variant']: float(r['log perplexity']) for r in rows}
        holds = losses['standard'] <= losses['frozen_qk'] < losses['mixit']
        notes += (f" The paper's ordering standard <= frozen_qk < mixit {'holds' if holds else 'does NOT hold'} "
                  f"here ({losses['standard']:.3f} / {losses['frozen_qk']:.3f} / {losses['mixit']:.3f}); "
                  f'per-byte values are not comparable with the paper\'s per-token ones.')
    common.report(args, NAME, 'Table 2: language modeling (log perplexity)', columns, rows, notes=notes,
                  extra={'commands': commands})


if __name__ == '__main__':
    main()

"""
Table 2 of "Is Random Attention Sufficient?": language modeling, in log perplexity (mean next-token cross-entropy in
nats on the whole held-out split), of the standard transformer, Frozen-QK (W_Q, W_K and their biases kept at
initialization, their --freeze_attention) and MixiT (a fixed random mixing matrix per layer and head instead of
attention). Claim: standard <= frozen_qk < mixit, i.e. random fixed queries and keys cost little or something, and
input-independent mixing clearly more (WikiText-103 2.78 / 3.07 / 3.73, FineWeb-edu 3.05 / 3.16 / 4.08).
Every variant at its own best, as Appendix C.1 grid-searches each (Table 8 lists MixiT's choice only): fair.fair per
corpus and variant, scored by validation log perplexity (the last 10% of train.bin's tokens), then the chosen point
on the seeds, mean ± std (min–max). Searched: Table 7's whole language-modeling row in full (Table 2 pins no
architecture: 108 points of 40,000 steps a variant and corpus; --no-search runs Table 8's point), the learning rate
times 1/3, 1, 3 in --quick. Claims: CLAIMS below, judged by claims.judge.

Full protocol, the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- architecture: their README's trainer.py command, Table 8's too (paper text): 12 layers, width 512, 8 heads,
  sequence 256; their Llama block (RMSNorm, gated MLP, RoPE) for standard and Frozen-QK; for MixiT their MixiT
  (per-head std, sink head; learned positions) in their block as trainer.py builds it: LeakyReLU gate c = -1 (the
  README's), skip scaling 0.5 (trainer.py's default), width multipliers at base 512; N(0, 0.02) weights, biases.
- optimizer (driver trainer.py): AdamW (0.9, 0.999), weight decay 0.01, warm-up max(4% of the steps, 500) = 1,600,
  linear decay to 0, clipping 1.0, float32 (their drivers); lr 5e-4, batch 512, 40,000 steps (the README's command,
  Table 8). Their MixiT lr scaling (4 / n_layer) * (512 / n_embd) (trainer.py's get_learning_rate_scaling, 1/3 here)
  applies only with their --scale_lr, off by default and in every script: off here too; --scale_lr scales the lr a run
  is given (in --quick the search's centre; Table 7's learning rates are not scaled, so in full it needs --no-search).
- not followed: scripts/train.sh's depth_alpha=1.0, another MixiT (no identity, one std 1/sqrt(m), residual branches
  scaled by base_n_layer / n_layer): the README's command runs depth_alpha=0, Eq. 2.3's; model.py has no depth_alpha.
- data (ours: their Llama-3.2 tokenizer and one padded 256-token row per dataset row cannot be reproduced offline):
  GPT-2 BPE tokens, vocabulary padded to 50,304, windows of 256 contiguous tokens of WikiText-103 ('wikitext',
  validation split, and its test split after training) and FineWeb-edu ('fineweb_edu': 1,048,576 training documents,
  the first 4,096 held out; paper text), prepared first (README 'Text corpora'; a missing one stops the script before
  anything trains); --corpora picks them. So compare orderings with the paper, not values.
- the batch: micro-batches of --micro_batch (default 64) x gradient accumulation, so that it fits one 80 GB GPU. Each
  reported run's train.py command is printed, to run through torchrun on several GPUs instead (the accumulation
  counts micro-batches over all processes: 8 GPUs x 1 = the same 512).
--quick (ours unless marked; its timing in the results file's History): the 'text' task at byte level (vocabulary
257) of a local text (--text=PATH; default Debian's license texts, so that it runs offline anywhere; a book such as
the README's King James Bible is better), its last 5% held out. The trainer.py driver as in full; 3 layers, width
128, 4 heads, sequence 256, batch 16, 120 steps (2.2 passes over the license texts), lr 3e-3 (the search's centre),
12 warm-up steps (10%, as the other quick protocols: theirs would outlast the run); the softmax scale times 512 / 128
for standard and Frozen-QK (papers.paper_scale to Table 8's width): their frozen W_Q, W_K would give near-uniform
attention at width 128 for a reason of width alone; one scale for both keeps one architecture (MixiT has no softmax).
Nats per byte: not comparable with the paper's per-GPT-2-token numbers. --smoke: a tiny text written into DATA_DIR, 1
layer of width 32, 4 steps; no search, one seed.
"""
import sys

import common
import fair
import papers
from data import local

NAME = 'language_modeling'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit']
CORPORA = ['wikitext', 'fineweb_edu']
PAPER = {'wikitext': {'standard': 2.78, 'frozen_qk': 3.07, 'mixit': 3.73},
         'fineweb_edu': {'standard': 3.05, 'frozen_qk': 3.16, 'mixit': 4.08}}
PAPER_WIDTH = 512  # Table 8's language-modeling width (WikiText, FineWeb-edu): --quick's softmax scale stands in for it
# the corpora, then the variants (the table's rows)
PROTOCOL = {
    'full': dict(driver='trainer.py', keys=dict(
        vocab_size=50304, n_layer=12, n_embd=PAPER_WIDTH, n_head=8, block_size=256, max_iters=40_000,
        learning_rate=5e-4, eval_interval=4000), sweep=dict(task=CORPORA, variant=VARIANT_ORDER)),
    'quick': dict(driver='trainer.py', keys=dict(
        encoding='bytes', n_layer=3, n_embd=128, n_head=4, block_size=256,
        attn_scale=papers.paper_scale(128, 4, PAPER_WIDTH), max_iters=120, learning_rate=3e-3, warmup_iters=12,
        eval_interval=120), sweep=dict(task=['text'], variant=VARIANT_ORDER)),
    'smoke': dict(driver='trainer.py', keys=dict(
        encoding='bytes', n_layer=1, n_embd=32, n_head=2, block_size=32, max_iters=4, learning_rate=3e-3,
        warmup_iters=0, eval_interval=4), sweep=dict(task=['text'], variant=VARIANT_ORDER)),
}
BATCH = {'full': 512, 'quick': 16, 'smoke': 4}  # sequences a step: common.batch_keys splits it (--micro_batch in full)


def table2_claims(corpus, where):
    """Table 2's two statements on one corpus's labels (`where`: the paper's numbers they rest on)."""
    return [dict(says=f'standard < Frozen-QK < MixiT in log perplexity ({where[0]})', test='ascending',
                 of=[f'{corpus}: {v}' for v in VARIANT_ORDER], fmt='num'),
            dict(says=f'Frozen-QK comes close to standard, MixiT is notably worse: frozen_qk - standard < mixit - '
                      f'frozen_qk ({where[1]})', test='descending',
                 of=[f'{corpus}: mixit - frozen_qk', f'{corpus}: frozen_qk - standard'], fmt='num')]


# The paper's claims (Table 2 and its reading in Sec. 4) per corpus, in log perplexity, fixed before the runs:
# - the order standard < Frozen-QK < MixiT on every seed: the paper's three numbers are strictly ordered on both corpora
#   (Sec. 4: "MixiT lags behind the standard Transformer");
# - "Frozen-QK comes close to the standard transformer ... MixiT has notably worse performance": Frozen-QK's gap to
#   standard below MixiT's gap to Frozen-QK (paper 0.29 < 0.66 and 0.11 < 0.92). Table 2 has one number a model, so
#   the gaps are those of our means over the seeds, one number each: this claim does not see the seeds' spread, the
#   order does.
# No claim on the values themselves: our GPT-2 tokens (full) and bytes (quick) are not the paper's Llama-3.2 tokens.
# --quick and --smoke test the same two statements on their one text, labelled 'text' whatever --text is.
CLAIMS = {'full': table2_claims('wikitext', ('WikiText-103 2.78 / 3.07 / 3.73', 'WikiText-103 0.29 < 0.66'))
          + table2_claims('fineweb_edu', ('FineWeb-edu 3.05 / 3.16 / 4.08', 'FineWeb-edu 0.11 < 0.92')),
          'quick': table2_claims('text', ("the paper's order on both corpora", 'paper 0.29 < 0.66, 0.11 < 0.92'))}
CLAIMS['smoke'] = CLAIMS['quick']


def config(mode, task, variant):
    """train.py's keys of one run but its data and batch keys (learning_rate: the search's centre)."""
    return common.config(PROTOCOL[mode], task=task, variant=variant)


def scale_lr(keys):
    """Their --scale_lr (trainer.py's get_learning_rate_scaling): MixiT's learning rate times (4 / n_layer) * (512 /
    n_embd), base 4 layers and width 512; the other variants' unchanged."""
    if keys['variant'] != 'mixit':
        return keys
    return {**keys, 'learning_rate': keys['learning_rate'] * (4 / keys['n_layer']) * (512 / keys['n_embd'])}


def add_flags(parser):
    parser.add_argument('--corpora', default=','.join(CORPORA), help='full mode: comma-separated subset of '
                        f'{CORPORA}')
    parser.add_argument('--micro_batch', type=int, default=64, help='full mode: sequences per micro-batch; '
                        'gradient accumulation makes up the batch of 512')
    parser.add_argument('--text', default='', help='quick mode: a UTF-8 text file (or a folder of .txt '
                        f'files); default: the files of {local.LICENSES} concatenated')
    parser.add_argument('--scale_lr', action='store_true', help="the authors' --scale_lr, MixiT's lr times "
                        '(4 / n_layer) * (512 / n_embd) (off in their scripts); in full with --no-search only')


def nats(x):
    return f'{x:.3f}'


def main():
    args = fair.parse_args(__doc__, add_flags)
    if args.mode == 'full':
        corpora = [c.strip() for c in args.corpora.split(',') if c.strip()]
        if not corpora or any(c not in CORPORA for c in corpora):
            sys.exit(f'error: --corpora={args.corpora}: choose among {", ".join(CORPORA)}')
        if args.scale_lr and args.search:
            sys.exit("error: --scale_lr scales the learning rate a run is given, and the full protocol's search "
                     "gives Table 7's learning rates unscaled: add --no-search (Table 8's point, MixiT's lr scaled)")
        common.corpus_dirs(args, corpora, 'run --quick on a local text')
        runs = [(c, c, {}) for c in corpora]  # (label, task, data keys)
        unit = 'nats per GPT-2 token'
    else:
        data_dir = common.byte_text(args, NAME)
        runs = [(f'text ({data_dir.name})', 'text', dict(data_dir=str(data_dir)))]
        unit = 'nats per byte'
    opt = common.batch_keys(args, BATCH[args.mode])
    rows, commands, fairs, losses = [], [], {}, {}
    for label, task, data in runs:
        for variant in VARIANT_ORDER:
            keys = config(args.mode, task, variant)
            keys = {**(scale_lr(keys) if args.scale_lr else keys), **data, **opt}
            # Table 2 pins no architecture: the whole of Table 7's row in full (docstring)
            f = fairs[f'{task}: {variant}'] = fair.fair(args, NAME, keys, 'language_modeling', key='val_loss',
                                                        higher=False)
            seeds = [{**keys, **f['chosen'], 'seed': s, 'data_seed': s} for s in range(args.seeds)]  # fair's runs
            for seed_keys in seeds:
                commands.append(common.command(args, seed_keys, NAME))
                print(f'# {label} / {variant}, seed {seed_keys["seed"]}, as a train.py command (prefix torchrun '
                      f'--standalone --nproc_per_node=N for N GPUs):\n{commands[-1]}')
            row = {'corpus': label, 'variant': variant,
                   'log perplexity': fair.spread([m['val_loss'] for m in f['runs']], nats)}
            if task == 'wikitext':  # the test split too, from each finished run's checkpoint
                tests = [common.run(args, NAME, **k, resume=True, eval_split='test') for k in seeds]
                row['test log perplexity'] = fair.spread([t['val_loss'] for t in tests], nats)
            paper = PAPER.get(task)
            row['paper log perplexity'] = f'{paper[variant]:.2f}' if paper else \
                f"(WikiText {PAPER['wikitext'][variant]:.2f}, FineWeb-edu {PAPER['fineweb_edu'][variant]:.2f})"
            mean = {k: sum(m[k] for m in f['runs']) / len(f['runs']) for k in ('val_loss', 'tokens_per_s', 'wall_s')}
            losses[task, variant] = mean['val_loss']
            row.update({'next-token accuracy': fair.spread([m['val_acc'] for m in f['runs']]),
                        'trainable params': f"{f['runs'][0]['trainable_params']:,}",
                        'train tokens/s': f"{mean['tokens_per_s']:,.0f}",
                        'wall a run': f"{mean['wall_s'] / 60:.1f} min"})
            rows.append(row)
    columns = list(dict.fromkeys(c for row in rows for c in row))
    standard = config(args.mode, runs[0][1], 'standard')
    budget = ', '.join(f'{k}={v}' for k, v in {**standard, **opt}.items() if k not in ('task', 'variant'))
    mixit = {k: v for k, v in config(args.mode, runs[0][1], 'mixit').items() if k in papers.MIXIT_BLOCK}
    budget += f'; MixiT also {mixit}' + (', its lr scaled (--scale_lr)' if args.scale_lr else '')
    notes = (f"Budget (learning_rate: the search's centre): {budget}. Log perplexity in {unit} over the whole "
             f'held-out split (WikiText: validation; the test column evaluates the final checkpoints on the test '
             f'split), mean ± std (min–max) over the seeds; trainable parameters of seed 0\'s run. Train tokens/s '
             f'is train.py\'s: training tokens over the run\'s wall time, evaluations and checkpoints included; both '
             f'it and the wall time a mean over the seeds.')
    gaps = {f'{task}: {b} - {a}': [losses[task, b] - losses[task, a]]  # of the means over seeds (CLAIMS)
            for _, task, _ in runs for a, b in zip(VARIANT_ORDER, VARIANT_ORDER[1:])}
    if args.mode != 'full':  # one text
        notes += " Per-byte values are not comparable with the paper's per-token ones: only orderings and gaps are."
    fair.report(args, NAME, 'Table 2: language modeling (log perplexity)', columns, rows, fairs, notes=notes,
                extra={'commands': commands}, fmt=nats, key='val_loss', values=gaps, claims=CLAIMS[args.mode])


if __name__ == '__main__':
    main()

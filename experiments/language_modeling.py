"""
Table 2 of "Is Random Attention Sufficient?": language modeling, in log perplexity (mean next-token
cross-entropy in nats on the whole held-out split), of the standard transformer, Frozen-QK (W_Q, W_K kept
at initialization) and MixiT (a fixed random mixing matrix per layer and head instead of attention).

Data: WikiText-103 and FineWeb-edu, GPT-2 BPE tokens (below).
Models: standard, frozen_qk (W_Q, W_K and their biases frozen, their --freeze_attention), mixit.

Comparison (issue 16): every variant at its own best, as the paper's Appendix C.1 grid-searches each one (Table 8
lists the values chosen for MixiT only). Per corpus and variant, common.fair: each point of a search trained on seed
0 and scored by log perplexity on a validation split (the last 10% of train.bin's tokens, held out of training), the
lowest chosen; then that point on --seeds seeds (default 3; seed: weights and batch order), reported as mean ± std
(min–max). Searched: in full, Table 7's whole language-modeling row (paper text: 8 or 12 layers, width 512 or 1024,
4/8/16 heads, lr 1e-3/5e-4/1e-4, batch 256/512/1024: 108 points a variant and corpus, each a 40,000-step run;
Table 2 pins no architecture), --no-search runs Table 8's point below; in --quick the learning rate alone, the
protocol's times 1/3, 1 and 3.

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- architecture: their README's trainer.py command, which is Table 8's (paper text) too: 12 layers, width 512,
  8 heads, sequence 256 (the search's centre, and --no-search's point); their Llama block (RMSNorm, gated MLP,
  RoPE) for standard and Frozen-QK, and for MixiT their MixiT (per-head std, sink head; learned positions) in their
  MixiT block as trainer.py builds it: LeakyReLU gate with c = -1 (their default, which the README's command keeps;
  scripts/train.sh passes +1 together with depth_alpha=1, see below), skip scaling 0.5 (trainer.py's default),
  width multipliers at base width 512; N(0, 0.02) weights, biases.
- optimizer (common.authors, driver trainer.py): AdamW (0.9, 0.999), weight decay 0.01, warm-up max(4% of the
  steps, 500) = 1,600, linear decay to 0, clipping 1.0; lr 5e-4, batch 512, 40,000 steps (the README's command,
  Table 8). Their MixiT lr scaling (base_n_layer / n_layer) * (base_hidden_size / n_embd), base 4 layers and
  512 wide (trainer.py's get_learning_rate_scaling, 1/3 here), applies only with their --scale_lr, which
  defaults to False and which no script passes: off here too, --scale_lr turns it on (it scales the lr the run
  is given: in --quick the search's centre; the full search's Table 7 learning rates are not scaled, so there
  --scale_lr needs --no-search).
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
script trains in one process and prints, for every reported run, the equivalent train.py command (the search's
runs are the same with a grid point's keys, seed=0 and val_frac=0.1); for several GPUs run those through torchrun
instead, e.g.

    torchrun --standalone --nproc_per_node=8 train.py --task=wikitext --variant=frozen_qk --n_layer=12 ...

(gradient_accumulation_steps counts micro-batches over all processes: 8 GPUs x 1 = the same 512 batch).
--corpora=wikitext or fineweb_edu picks one.
Metric: log perplexity (nats per GPT-2 token) of the held-out split, beside the paper's.

--quick: the 'text' task, byte-level tokens (--encoding=bytes, vocabulary 257), on a local text (--text=PATH;
default: every license text of Debian's /usr/share/common-licenses concatenated, 225,535 training bytes, so it runs
offline anywhere; the README's 4.4 MB King James Bible is a better choice where available), its last 5% held out
(ours). The authors' trainer.py driver as in full (AdamW (0.9, 0.999), weight decay 0.01, linear decay to 0,
N(0, 0.02), biases, MixiT's block as trainer.py builds it). Ours: 3 layers, width 128, 4 heads, sequence 256,
batch 16, 120 steps (500 before the comparison had 6 runs per variant; 2.2 passes over the text), lr 3e-3 (the
search's centre), 12 warm-up steps (10%, as the other quick protocols: their max(4%, 500) would outlast the run);
the softmax scale times 512 / 128 = 4 for standard and Frozen-QK (common.paper_scale to Table 8's language-modeling
width 512): RMSNorm fixes attention's input, so frozen N(0, 0.02^2) W_Q, W_K give scores of std n 0.02^2, 0.05 at
width 128 against 0.2 at 512, and Frozen-QK's frozen attention would be near-uniform for a reason of width alone;
one scale for both softmax variants keeps one architecture (MixiT has no softmax: the key does nothing there).
Metric: held-out log perplexity in nats per byte (not comparable with the paper's per-GPT-2-token numbers).
Time (quick, estimated from the runs before this comparison, 2 threads on a 2-core CPU): 500 steps of batch 16
took 2.2 / 1.9 / 1.4 min for standard / frozen_qk / mixit, 0.66 s a step for the three; 3 variants x (3 search + 3
seeds) x 120 steps = 475 s, and a few seconds a run to start and evaluate: about 8.3 min.
Claim it tests: the paper's ordering standard <= frozen_qk < mixit, i.e. random fixed query and key projections
cost little or something, and input-independent mixing costs clearly more.
--smoke: a tiny text written into DATA_DIR, 1 layer of width 32, 4 steps; no search, one seed.
"""
import sys

import common

NAME = 'language_modeling'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit']
CORPORA = ['wikitext', 'fineweb_edu']
PAPER = {'wikitext': {'standard': 2.78, 'frozen_qk': 3.07, 'mixit': 3.73},
         'fineweb_edu': {'standard': 3.05, 'frozen_qk': 3.16, 'mixit': 4.08}}
PAPER_WIDTH = 512  # Table 8's language-modeling width (WikiText, FineWeb-edu): --quick's softmax scale stands in for it
# per mode: the batch in sequences (--micro_batch of them at a time in the full protocol) and train.py's keys of every
# run but its corpus and variant, which take the authors' trainer.py driver's settings (common.authors)
PROTOCOL = {
    'full': dict(batch=512, run=dict(
        vocab_size=50304, n_layer=12, n_embd=PAPER_WIDTH, n_head=8, block_size=256, max_iters=40_000,
        learning_rate=5e-4, eval_interval=4000)),
    'quick': dict(batch=16, run=dict(encoding='bytes', n_layer=3, n_embd=128, n_head=4, block_size=256,
                                     attn_scale=common.paper_scale(128, 4, PAPER_WIDTH), max_iters=120,
                                     learning_rate=3e-3, warmup_iters=12, eval_interval=120)),
    'smoke': dict(batch=4, run=dict(encoding='bytes', n_layer=1, n_embd=32, n_head=2, block_size=32, max_iters=4,
                                    learning_rate=3e-3, warmup_iters=0, eval_interval=4)),
}


def lr_scaling(config):
    """Their trainer.py's get_learning_rate_scaling for MixiT (used with --scale_lr only): (4 / n_layer) * (512 /
    n_embd), base 4 layers and width 512; 1 for the other variants."""
    return (4 / config['n_layer']) * (512 / config['n_embd']) if config['variant'] == 'mixit' else 1.0


def config(mode, variant, scale_lr=False):
    """train.py's keys of one run but its data and batch keys (the search's centre)."""
    keys = common.authors('trainer.py', variant, **PROTOCOL[mode]['run'])
    return {**keys, 'learning_rate': keys['learning_rate'] * lr_scaling(keys)} if scale_lr else keys


def add_flags(parser):
    parser.add_argument('--corpora', default=','.join(CORPORA), help='full mode: comma-separated subset of '
                        f'{CORPORA}')
    parser.add_argument('--micro_batch', type=int, default=64, help='full mode: sequences per micro-batch; '
                        'gradient accumulation makes up the batch of 512')
    parser.add_argument('--text', default='', help='quick mode: a UTF-8 text file (or a folder of .txt '
                        f'files); default: the files of {common.LICENSES} concatenated')
    parser.add_argument('--scale_lr', action='store_true', help="the authors' --scale_lr, MixiT's lr times "
                        '(4 / n_layer) * (512 / n_embd) (off in their scripts); in full with --no-search only')


def nats(x):
    return f'{x:.3f}'


def main():
    args = common.parse_args(__doc__, add_flags, compare=True)
    protocol = PROTOCOL[args.mode]
    if args.mode == 'full':
        corpora = [c.strip() for c in args.corpora.split(',') if c.strip()]
        if not corpora or any(c not in CORPORA for c in corpora):
            sys.exit(f'error: --corpora={args.corpora}: choose among {", ".join(CORPORA)}')
        if args.scale_lr and args.search:
            sys.exit("error: --scale_lr scales the learning rate a run is given, and the full protocol's search "
                     "gives Table 7's learning rates unscaled: add --no-search (Table 8's point, MixiT's lr scaled)")
        common.corpus_dirs(args, corpora, 'run --quick on a local text')
        runs = [(c, dict(task=c)) for c in corpora]
        unit = 'nats per GPT-2 token'
    else:
        data_dir = common.byte_text(args, NAME)
        runs = [(f'text ({data_dir.name})', dict(task='text', data_dir=str(data_dir)))]
        unit = 'nats per byte'
    opt = common.batch_keys(args, protocol['batch'])
    rows, commands, fairs, losses = [], [], {}, {}
    for label, data in runs:
        for variant in VARIANT_ORDER:
            keys = dict(**data, **config(args.mode, variant, args.scale_lr), **opt)
            # Table 2 pins no architecture: the whole of Table 7's row in full (docstring)
            f = fairs[f'{label}: {variant}'] = common.fair(args, NAME, keys, 'language_modeling', key='val_loss',
                                                          higher=False)
            seeds = [{**keys, **f['chosen'], 'seed': s, 'data_seed': s} for s in range(args.seeds)]  # fair's runs
            for seed_keys in seeds:
                commands.append(common.command(args, seed_keys))
                print(f'# {label} / {variant}, seed {seed_keys["seed"]}, as a train.py command (prefix torchrun '
                      f'--standalone --nproc_per_node=N for N GPUs):\n{commands[-1]}')
            row = {'corpus': label, 'variant': variant,
                   'log perplexity': common.spread([m['val_loss'] for m in f['runs']], nats)}
            if data['task'] == 'wikitext':  # the test split too, from each finished run's checkpoint
                tests = [common.run(args, NAME, **k, resume=True, eval_split='test') for k in seeds]
                row['test log perplexity'] = common.spread([t['val_loss'] for t in tests], nats)
            paper = PAPER.get(data['task'])
            row['paper log perplexity'] = f'{paper[variant]:.2f}' if paper else \
                f"(WikiText {PAPER['wikitext'][variant]:.2f}, FineWeb-edu {PAPER['fineweb_edu'][variant]:.2f})"
            mean = lambda k: sum(m[k] for m in f['runs']) / len(f['runs'])
            losses[label, variant] = mean('val_loss')
            row.update({'next-token accuracy': common.spread([m['val_acc'] for m in f['runs']]),
                        'trainable params': f"{f['runs'][0]['trainable_params']:,}",
                        'train tokens/s': f"{mean('tokens_per_s'):,.0f}",
                        'wall a run': f"{mean('wall_s') / 60:.1f} min"})
            rows.append(row)
    columns = list(dict.fromkeys(c for row in rows for c in row))
    budget = ', '.join(f'{k}={v}' for k, v in {**config(args.mode, 'standard'), **opt}.items() if k != 'variant')
    mixit = {k: v for k, v in config(args.mode, 'mixit').items() if k in common.MIXIT_BLOCK}
    budget += f'; MixiT also {mixit}' + (', its lr scaled (--scale_lr)' if args.scale_lr else '')
    notes = (f"Budget (learning_rate: the search's centre): {budget}. Log perplexity in {unit} over the whole "
             f'held-out split (WikiText: validation; the test column evaluates the final checkpoints on the test '
             f'split), mean ± std (min–max) over the seeds; trainable parameters of seed 0\'s run. Train tokens/s '
             f'is train.py\'s: training tokens over the run\'s wall time, evaluations and checkpoints included; both '
             f'it and the wall time a mean over the seeds.')
    if args.mode != 'full':  # one text
        standard, frozen_qk, mixit = (losses[runs[0][0], v] for v in VARIANT_ORDER)
        holds = standard <= frozen_qk < mixit
        notes += (f" The paper's ordering standard <= frozen_qk < mixit {'holds' if holds else 'does NOT hold'} "
                  f'here in the means over seeds ({standard:.3f} / {frozen_qk:.3f} / {mixit:.3f}); per-byte values '
                  f"are not comparable with the paper's per-token ones.")
    common.report(args, NAME, 'Table 2: language modeling (log perplexity)', columns, rows, notes=notes,
                  extra={'commands': commands}, fairs=fairs, fmt=nats)


if __name__ == '__main__':
    main()

"""
Table 2 of "Is Random Attention Sufficient?": language modeling with the standard transformer,
Frozen-QK (W_Q, W_K and their biases kept at initialization) and MixiT (a fixed random mixing matrix
per layer and head). Sec. 4: "Frozen-QK comes close to the standard transformer ... MixiT has
notably worse performance"; "MixiT lags behind the standard Transformer". The paper's log
perplexity, PAPER:

| corpus | standard | frozen_qk | mixit | frozen_qk - standard < mixit - frozen_qk |
|---|---|---|---|---|
| WikiText-103 | 2.78 | 3.07 | 3.73 | 0.29 < 0.66 |
| FineWeb-edu | 3.05 | 3.16 | 4.08 | 0.11 < 0.92 |

Claims: CLAIMS below, judged by claims.judge: standard < Frozen-QK < MixiT, Frozen-QK the close one.
Metric: log perplexity, the mean next-token cross-entropy in nats on the whole held-out split. Each
variant at its own best (Appendix C.1 searches each): fair.fair per corpus and variant on validation
log perplexity (train.bin's last 10%), then the chosen point on the seeds.

Settings, each from one place:
- PROTOCOL below: each mode's model, steps, learning rate and corpora;
- its driver, 'trainer.py', a key of papers.DRIVERS (applied by papers.authors);
- the search: papers.TABLE7['language_modeling'] whole (fair.grid; Table 2 pins no architecture),
  108 points (--no-search: Table 8's point); --quick and --regime search the learning rate alone,
  times fair.QUICK_LR (1/3, 1, 3).

Full protocol, the authors' code (github princeton-pli/MixiT, experiments/README.md, section 3)
unless marked:

| part | setting |
|---|---|
| model | 12 layers, width 512, 8 heads, sequence 256 (their README's trainer.py command, Table 8) |
| steps x batch, lr | 40,000 x 512, 5e-4 (README, Table 8) |
| optimizer | AdamW (0.9, 0.999), wd 0.01, warm-up max(4%, 500) = 1,600, linear decay to 0 |
| data (ours) | GPT-2 tokens (vocabulary padded to 50,304), 256-token contiguous windows |
| corpora | WikiText-103 (validation, then test after training); FineWeb-edu (1,048,576 documents) |

- model: their Llama block (RMSNorm, gated MLP, RoPE); MixiT their MixiT (per-head std, sink head,
  learned positions) in their block (gate c = -1, skip scaling 0.5, multipliers at base 512); N(0,
  0.02), biases. Not followed: scripts/train.sh's depth_alpha=1, another MixiT (the README's
  command runs Eq. 2.3's depth_alpha=0).
- optimizer (driver trainer.py): clipping 1.0, float32; batch 512 is --micro_batch x accumulation
  (each run's command is printed, for torchrun). Their --scale_lr (MixiT's lr x (4 / n_layer)(512 /
  n_embd)) is off in all their scripts: off here unless --scale_lr (then with --no-search: Table 7's
  rates are not scaled).
- data (ours: their Llama-3.2 tokenizer and padded rows need the Hub): FineWeb-edu with 4,096
  documents held out (paper text); both prepared first; --corpora picks them. Compare orderings, not
  values.
- the paper's regime (computed in code): 40,000 steps x 512 x 256 = 5.24e9 token positions over
  the standard model's 50,424,320 non-embedding parameters (12 blocks of 16 n^2 + 15 n and the
  final norm at n = 512; all its trainable parameters but the 2 x 128,256 x 512 = 131.3M of the
  untied embedding and head of their Llama-3.2 vocabulary): TOKENS_PER_PARAM = 104.0 training
  tokens per non-embedding parameter of the standard model, the one definition of REGIME in every
  mode (nonembedding()); that is 11.4 epochs of WikiText-103's 1,801,350 rows, 19.5 of
  FineWeb-edu's 1,048,576 documents. Over all 181,758,464 parameters, the embeddings' among them,
  it is 28.8 (PAPER_TOKENS_PER_ALL, which --quick keeps: below).

--quick (ours unless marked), a preview below the paper's regime, shrinks the model and keeps the
paper's 28.8 tokens over all its parameters, embeddings counted: at a byte vocabulary the embedding
and head are a third of the model, not the paper's 72%, so that is 43 tokens per non-embedding
parameter, 41% of the paper's 104. On the 'text' task at byte level (vocabulary 257; nats per byte)
of --text (default Debian's license texts: 225,535 training bytes, 5% held out):

| size | --quick (full) | from |
|---|---|---|
| layers | 2 (12) | an induction circuit's two: Fig. 3 finds them in Frozen-QK |
| heads, sequence | 4, 256 (8, 256) | QUICK_MODEL, which --quick and its TREND share |
| width | 32 (512) | the time (below); softmax scale x 512 / 32, papers.paper_scale |
| steps x batch | 354 x 16 x 256 (40,000 x 512 x 256) | 28.8 x 50,208 parameters / 4,096 |
| warm-up, lr | 4%, 3e-3 (1,600, 5e-4) | the paper's share; the search's centre |

- width: the softmax scale times 512 / 32 for standard and Frozen-QK (frozen scores keep Table 8's
  spread). At 28.8 tokens per parameter width 32 reads the license texts 6.4 times, 48 12.8 times
  and 64 21.3 times (the paper: 11.4-19.5 epochs); wider, the corpus repeats more than the paper's
  does. 32, not 48: the time.
- steps: 28.8 tokens per trainable parameter of standard (50,208) over 16 x 256 = 4,096 a step
  (quick_keys): 1.45M tokens, 43 per non-embedding parameter (33,760); trainer.py's optimizer;
  warm-up 4%: their floor of 500 would outlast the run. The paper's 40,000 steps fit at no width:
  18 runs x 40,000 steps at 20 ms or more a step are 4 hours.

Time, estimated before any run: at width 128, 3 layers, batch 16 x 256, a step takes 0.26 / 0.23 /
0.17 s for standard / Frozen-QK / MixiT (measured). Width 32 has 16x fewer matmul FLOPs but is bound
by per-step overhead (~20 ms at 2 layers) and softmax (~6 ms a head and layer at 16 x 256^2, from
the measured standard-MixiT gap): ~0.115 / 0.11 / 0.07 s a step, 18 x 354 steps and 4 s a run:
~11.5 min alone (~17 at 1 thread beside a job). Width 48 (703 steps): ~27 min. TREND:
width 32 / 48 / 64 at 28.8 tokens per parameter (354 / 703 / 1,169 steps, 6.4 / 12.8 / 21.3
epochs): toward the paper's size, steps and epochs at once, as far as the corpus goes; one seed and
run per variant a size, about 2 + 4.5 + 8 min alone (measured: 6,372 steps of --quick in 328 s).

--regime, the paper's regime at a CPU's size, where this file's verdict comes from (REGIME: training
tokens per non-embedding parameter of the standard model, beside full's): --quick's model, the
smallest that tests the claims, trained to the paper's 104 tokens per non-embedding parameter:

| setting | --regime | from |
|---|---|---|
| model, sequence, softmax scale | --quick's: 2 layers, width 32, 4 heads, 256 | QUICK_MODEL |
| steps x batch | 857 x 16 x 256 = 3.51M tokens | 104.0 x 33,760 non-embedding parameters / 4,096 |
| epochs | 15.6 over the license texts' 225,535 training bytes | the paper's 11.4-19.5 |
| warm-up, lr | 4% (34), 3e-3 x fair.QUICK_LR (1/3, 1, 3) | --quick's; Appendix C.1 searches |
| seeds | 3 | claims.SEEDS |
| regime | 103.98 tokens per non-embedding parameter | the paper's 103.98 |

- size: width 32 is where both the paper's tokens per parameter and its epochs hold on the license
  texts: at 104 tokens per non-embedding parameter width 48 (75,216 of them, 1,910 steps) reads them
  34.7 times, beyond the paper's 19.5, in 2.2 times the steps.
- Time, estimated before any run: 18 runs (3 learning rates and 3 seeds a variant) x 857 steps =
  15,426 steps, 2.04e13 FLOPs (reproduce.py --regime --plan). --quick's 6,372 steps (8.42e12
  FLOPs, its plan 0.385 CPU min at 364 GFLOP/s) took 328 s: 51.5 ms a step, 25.7 GFLOP/s, 14.2
  times the plan's estimate. At that rate the regime takes 15,426 x 51.5 ms = 13.2 min (the plan's
  FLOPs at 364 GFLOP/s, 0.93 min, x 14.2), with the search: no need to drop it.
- --smoke: a tiny text in DATA_DIR, 1 layer of width 32, 4 steps; no search, one seed.
"""

import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from data import local
from experiments.harness import common, fair, papers
from model import GPT, GPTConfig, VARIANTS
from train import model_args_of, resolve

NAME = 'language_modeling'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit']
CORPORA = ['wikitext', 'fineweb_edu']
PAPER = {
    'wikitext': {'standard': 2.78, 'frozen_qk': 3.07, 'mixit': 3.73},
    'fineweb_edu': {'standard': 3.05, 'frozen_qk': 3.16, 'mixit': 4.08},
}
# Table 8's language-modeling width (WikiText, FineWeb-edu): --quick's softmax scale stands in for
# it
PAPER_WIDTH = 512
# The paper's regime: its training tokens, 40,000 steps of 512 rows of 256 positions (their rows
# are padded, so these are positions), per non-embedding parameter of their standard model: 12
# blocks of 16 n^2 + 15 n (q, k, v, o, gate, up, down and their biases, two norms) and the final
# norm at n = 512, all but the untied embedding and head (model.py's count of this architecture:
# nonembedding() of the full protocol's standard model is the same 50,424,320)
PAPER_TOKENS = 40_000 * 512 * 256
PAPER_NONEMBEDDING = 12 * (16 * PAPER_WIDTH**2 + 15 * PAPER_WIDTH) + PAPER_WIDTH
TOKENS_PER_PARAM = PAPER_TOKENS / PAPER_NONEMBEDDING  # 104.0
# The same tokens over all 181,758,464 of their parameters, the Llama-3.2 vocabulary's 128,256 rows
# in the embedding and head among them: 28.8, what --quick keeps over all of its own (docstring)
PAPER_TOKENS_PER_ALL = PAPER_TOKENS / (2 * 128_256 * PAPER_WIDTH + PAPER_NONEMBEDDING)
# sequences a step: common.batch_keys splits it (--micro_batch in full)
BATCH = {'full': 512, 'quick': 16, 'regime': 16, 'smoke': 4}
# the architecture --quick, --regime and the TREND share (docstring)
QUICK_MODEL = dict(n_layer=2, n_head=4, block_size=256)


def nonembedding(model):
    """A model's trainable parameters but its token embedding, LM head and learned positions: what
    the regime's tokens per parameter divide by."""
    embedding = {
        id(p)
        for module in (model.wte, model.lm_head, getattr(model, 'wpe', None))
        if module is not None
        for p in module.parameters()
    }
    return sum(p.numel() for p in model.parameters() if p.requires_grad and id(p) not in embedding)


def byte_standard(n_embd):
    """The standard model of --quick's architecture at width n_embd, at byte level (vocabulary 257:
    the bytes and the end of text)."""
    return GPT(
        GPTConfig(**VARIANTS['standard'], **QUICK_MODEL, n_embd=n_embd, bias=True, vocab_size=257)
    )


def text_keys(n_embd, steps):
    """train.py's keys of a byte-level run of `steps` at width n_embd: a 4% warm-up (the paper's
    1,600 of 40,000), one evaluation at the end, and the softmax scale of Table 8's width
    (papers.paper_scale)."""
    return dict(
        n_embd=n_embd,
        attn_scale=papers.paper_scale(n_embd, QUICK_MODEL['n_head'], PAPER_WIDTH),
        max_iters=steps,
        warmup_iters=round(0.04 * steps),
        eval_interval=steps,
    )


def quick_keys(n_embd):
    """--quick's keys at width n_embd: the steps of BATCH['quick'] windows that give the standard
    model the paper's 28.8 tokens over all its parameters (a preview: 43 per non-embedding parameter
    at width 32, docstring)."""
    tokens = PAPER_TOKENS_PER_ALL * byte_standard(n_embd).get_num_params()
    return text_keys(n_embd, round(tokens / (BATCH['quick'] * QUICK_MODEL['block_size'])))


def regime_keys(n_embd):
    """--regime's keys at width n_embd: the fewest steps of BATCH['regime'] windows that give the
    standard model the paper's tokens per non-embedding parameter."""
    tokens = TOKENS_PER_PARAM * nonembedding(byte_standard(n_embd))
    return text_keys(n_embd, math.ceil(tokens / (BATCH['regime'] * QUICK_MODEL['block_size'])))


# trend.py --diagnose: "Frozen-QK comes close to standard, MixiT is notably worse" fails in the
# regime on every seed (Frozen-QK 0.73-0.99 nats per byte above standard, MixiT 0.11-0.39 above
# Frozen-QK). Frozen-QK's fixed random scores there have heads of 8 dimensions, the paper's 64 (8
# heads at width 512). Moved toward the paper one axis at a time, 2 seeds a point, each at the
# regime's tokens per parameter: the head width (2 heads of 16, 1 of 32, each with Table 8's softmax
# scale), the width (48: 2.2 times the steps). About 7 minutes a point at width 32 (6 runs of the
# regime's 1.1 min), 26 at width 48: 46 in all (it took 27.3).
DIAGNOSIS = dict(
    axes={
        'head width': {
            '8': {},
            '16': dict(n_head=2, attn_scale=papers.paper_scale(32, 2, PAPER_WIDTH)),
            '32': dict(n_head=1, attn_scale=papers.paper_scale(32, 1, PAPER_WIDTH)),
        },
        'width': {'32': {}, '48': regime_keys(48)},
    }
)
# the corpora, then the variants (the table's rows)
PROTOCOL = {
    'full': dict(
        driver='trainer.py',
        keys=dict(
            vocab_size=50304,
            n_layer=12,
            n_embd=PAPER_WIDTH,
            n_head=8,
            block_size=256,
            max_iters=40_000,
            learning_rate=5e-4,
            eval_interval=4000,
        ),
        sweep=dict(task=CORPORA, variant=VARIANT_ORDER),
    ),
    'quick': dict(
        driver='trainer.py',
        keys=dict(encoding='bytes', **QUICK_MODEL, **quick_keys(32), learning_rate=3e-3),
        sweep=dict(task=['text'], variant=VARIANT_ORDER),
    ),
    # the paper's regime at --quick's size (docstring): 857 steps
    'regime': dict(
        driver='trainer.py',
        keys=dict(encoding='bytes', **QUICK_MODEL, **regime_keys(32), learning_rate=3e-3),
        sweep=dict(task=['text'], variant=VARIANT_ORDER),
    ),
    'smoke': dict(
        driver='trainer.py',
        keys=dict(
            encoding='bytes',
            n_layer=1,
            n_embd=32,
            n_head=2,
            block_size=32,
            max_iters=4,
            learning_rate=3e-3,
            warmup_iters=0,
            eval_interval=4,
        ),
        sweep=dict(task=['text'], variant=VARIANT_ORDER),
    ),
}
# --quick's width against the paper's 512 at --quick's tokens per parameter, as far as the license
# texts allow (docstring): each size's keys replace --quick's in every run
# (experiments/tools/trend.py)
TREND = dict(
    axis='width (steps) at 28.8 tokens per parameter, embeddings counted',
    sizes={
        f'{k["n_embd"]} ({k["max_iters"]:,})': {} if k['n_embd'] == 32 else k
        for k in map(quick_keys, (32, 48, 64))
    },
)


# The paper's regime (harness/claims.py's standing): training tokens per non-embedding parameter of
# the standard model, 104.0 in the paper, each mode's own beside it
def run_nonembedding(keys):
    """nonembedding() of the model of a run's train.py keys, built on the meta device."""
    keys = resolve(keys)
    with torch.device('meta'):
        return nonembedding(GPT(GPTConfig(**model_args_of(keys, *common.task_shape(keys)))))


def tokens_per_param(mode):
    """Training tokens per non-embedding parameter of a mode's standard model (its first task's)."""
    keys = config(mode, PROTOCOL[mode]['sweep']['task'][0], 'standard')
    return keys['max_iters'] * BATCH[mode] * keys['block_size'] / run_nonembedding(keys)


def table2_claims(corpus, where):
    """Table 2's two statements on one corpus's labels (`where`: the paper's numbers they rest
    on)."""
    return [
        dict(
            says=f'standard < Frozen-QK < MixiT in log perplexity ({where[0]})',
            test='ascending',
            of=[f'{corpus}: {v}' for v in VARIANT_ORDER],
            fmt='num',
        ),
        dict(
            says=f'Frozen-QK comes close to standard, MixiT is notably worse: frozen_qk - standard '
            f'< mixit - frozen_qk ({where[1]})',
            test='descending',
            of=[f'{corpus}: mixit - frozen_qk', f'{corpus}: frozen_qk - standard'],
            fmt='num',
        ),
    ]


# The paper's claims (Table 2 and its reading in Sec. 4) per corpus, in log perplexity, fixed before
# the runs:
# - the order standard < Frozen-QK < MixiT on every seed: the paper's three numbers are strictly
#   ordered on both corpora (Sec. 4: "MixiT lags behind the standard Transformer");
# - "Frozen-QK comes close to the standard transformer ... MixiT has notably worse performance":
#   Frozen-QK's gap to standard below MixiT's gap to Frozen-QK (paper 0.29 < 0.66 and 0.11 < 0.92).
#   The gaps are each seed's, the three models of one seed paired (they share the seed's data
#   order): on every seed, as the order, so that 3 seeds back it (claims.seeds_of). No claim on the
#   values themselves: our GPT-2 tokens (full) and bytes (quick) are not the paper's Llama-3.2
#   tokens. --quick and --smoke test the same two statements on their one text, labelled 'text'
#   whatever --text is.
CLAIMS = {
    'full': table2_claims(
        'wikitext', ('WikiText-103 2.78 / 3.07 / 3.73', 'WikiText-103 0.29 < 0.66')
    )
    + table2_claims('fineweb_edu', ('FineWeb-edu 3.05 / 3.16 / 4.08', 'FineWeb-edu 0.11 < 0.92')),
    'quick': table2_claims(
        'text', ("the paper's order on both corpora", 'paper 0.29 < 0.66, 0.11 < 0.92')
    ),
}
CLAIMS['regime'] = CLAIMS['smoke'] = CLAIMS['quick']


def config(mode, task, variant):
    """train.py's keys of one run but its data and batch keys (learning_rate: the search's
    centre)."""
    return common.config(PROTOCOL[mode], task=task, variant=variant)


REGIME = {
    mode: [
        dict(
            quantity='training tokens per non-embedding parameter of the standard model',
            ours=tokens_per_param(mode),
            paper=TOKENS_PER_PARAM,
        )
    ]
    for mode in PROTOCOL
}


def scale_lr(keys):
    """Their --scale_lr (trainer.py's get_learning_rate_scaling): MixiT's learning rate times (4 /
    n_layer) * (512 / n_embd), base 4 layers and width 512; the other variants' unchanged."""
    if keys['variant'] != 'mixit':
        return keys
    return {
        **keys,
        'learning_rate': keys['learning_rate'] * (4 / keys['n_layer']) * (512 / keys['n_embd']),
    }


def add_flags(parser):
    parser.add_argument(
        '--corpora',
        default=','.join(CORPORA),
        help=f'full mode: comma-separated subset of {CORPORA}',
    )
    parser.add_argument(
        '--micro_batch',
        type=int,
        default=64,
        help='full mode: sequences per micro-batch; '
        'gradient accumulation makes up the batch of 512',
    )
    parser.add_argument(
        '--text',
        default='',
        help='quick and regime modes: a UTF-8 text file; default: the files of '
        f'{local.LICENSES} concatenated',
    )
    parser.add_argument(
        '--scale_lr',
        action='store_true',
        help="the authors' --scale_lr, MixiT's lr times "
        '(4 / n_layer) * (512 / n_embd) (off in their scripts); in full with --no-search only',
    )


def nats(x):
    return f'{x:.3f}'


def main():
    args = fair.parse_args(__doc__, add_flags)
    if args.mode == 'full':
        corpora = [c.strip() for c in args.corpora.split(',') if c.strip()]
        if not corpora or any(c not in CORPORA for c in corpora):
            raise common.ConfigError(f'--corpora={args.corpora}: choose among {", ".join(CORPORA)}')
        if args.scale_lr and args.search:
            raise common.ConfigError(
                "--scale_lr scales the learning rate a run is given, and the full protocol's "
                "search gives Table 7's learning rates unscaled: add --no-search (Table 8's "
                "point, MixiT's lr scaled)"
            )
        common.corpus_dirs(args, corpora, 'run --quick on a local text')
        runs = [(c, c, {}) for c in corpora]  # (label, task, data keys)
        unit = 'nats per GPT-2 token'
    else:
        data_dir = common.byte_text(args, NAME)
        runs = [(f'text ({data_dir.name})', 'text', dict(data_dir=str(data_dir)))]
        unit = 'nats per byte'
    opt = common.batch_keys(args, BATCH[args.mode])
    # the runs first: with --plan, listed, not trained
    commands, fairs, tests, keys_of = ([], {}, {}, {})
    for label, task, data in runs:
        for variant in VARIANT_ORDER:
            keys = config(args.mode, task, variant)
            keys = keys_of[task, variant] = {
                **(scale_lr(keys) if args.scale_lr else keys),
                **data,
                **opt,
            }
            # Table 2 pins no architecture: the whole of Table 7's row in full (docstring)
            f = fairs[f'{task}: {variant}'] = fair.fair(
                args, NAME, keys, 'language_modeling', key='val_loss', higher=False
            )
            # fair's
            seeds = [{**keys, **f['chosen'], 'seed': s, 'data_seed': s} for s in range(args.seeds)]
            for seed_keys in seeds:
                commands.append(common.command(args, seed_keys, NAME))
                print(
                    f'# {label} / {variant}, seed {seed_keys["seed"]}, as a train.py command '
                    f'(prefix torchrun --standalone --nproc_per_node=N for N GPUs):\n{commands[-1]}'
                )
            if task == 'wikitext':  # the test split too, from each finished run's checkpoint
                tests[task, variant] = [
                    common.run(args, NAME, **k, resume=True, eval_split='test') for k in seeds
                ]
    if args.plan:
        return common.write_plan(args, NAME)
    rows, losses = [], {}
    for label, task, data in runs:
        for variant in VARIANT_ORDER:
            f, keys = fairs[f'{task}: {variant}'], keys_of[task, variant]
            row = {
                'corpus': label,
                'variant': variant,
                'log perplexity': fair.spread([m['val_loss'] for m in f['runs']], nats),
            }
            if (task, variant) in tests:
                row['test log perplexity'] = fair.spread(
                    [t['val_loss'] for t in tests[task, variant]], nats
                )
            paper = PAPER.get(task)
            row['paper log perplexity'] = (
                f'{paper[variant]:.2f}'
                if paper
                else f'(WikiText {PAPER["wikitext"][variant]:.2f}, FineWeb-edu '
                f'{PAPER["fineweb_edu"][variant]:.2f})'
            )
            mean = {
                k: sum(m[k] for m in f['runs']) / len(f['runs'])
                for k in ('val_loss', 'tokens_per_s', 'wall_s')
            }
            # seed 0's, per non-embedding parameter (the regime's measure: REGIME)
            tokens = f['runs'][0]['step'] * BATCH[args.mode] * {**keys, **args.at}['block_size']
            nonembedding_params = run_nonembedding({**keys, **args.at})
            losses[task, variant] = [m['val_loss'] for m in f['runs']]  # by seed
            row.update(
                {
                    'next-token accuracy': fair.spread([m['val_acc'] for m in f['runs']]),
                    'trainable params': f'{f["runs"][0]["trainable_params"]:,}',
                    'non-emb params': f'{nonembedding_params:,}',
                    'train tokens / non-emb param': f'{tokens / nonembedding_params:.4g}',
                    'train tokens/s': f'{mean["tokens_per_s"]:,.0f}',
                    'wall a run': f'{mean["wall_s"] / 60:.1f} min',
                }
            )
            rows.append(row)
    columns = list(dict.fromkeys(c for row in rows for c in row))
    standard = config(args.mode, runs[0][1], 'standard')
    budget = ', '.join(
        f'{k}={v}'
        for k, v in {**standard, **opt, **args.at}.items()
        if k not in ('task', 'variant')
    )
    mixit = {
        k: v for k, v in config(args.mode, runs[0][1], 'mixit').items() if k in papers.MIXIT_BLOCK
    }
    budget += f'; MixiT also {mixit}' + (', its lr scaled (--scale_lr)' if args.scale_lr else '')
    notes = (
        f"Budget (learning_rate: the search's centre): {budget}. Log perplexity in {unit} over the "
        'whole '
        'held-out split (WikiText: validation; the test column evaluates the final checkpoints on '
        'the test '
        'split), mean ± std (min–max) over the seeds; trainable and non-embedding parameters of '
        "seed 0's run (all but the token embedding, LM head and learned positions), and its "
        "training tokens per non-embedding parameter (the paper's standard: "
        f"{TOKENS_PER_PARAM:.1f}). Train tokens/s is train.py's: training tokens over the run's "
        'wall time, evaluations and checkpoints included; both it '
        'and the wall time a mean over the seeds.'
    )
    gaps = {  # each seed's, the models paired by seed (CLAIMS)
        f'{task}: {b} - {a}': [y - x for x, y in zip(losses[task, a], losses[task, b])]
        for _, task, _ in runs
        for a, b in zip(VARIANT_ORDER, VARIANT_ORDER[1:])
    }
    if args.mode != 'full':  # one text
        notes += (
            " Per-byte values are not comparable with the paper's per-token ones: only "
            'orderings and gaps are.'
        )
    fair.report(
        args,
        NAME,
        'Table 2: language modeling (log perplexity)',
        columns,
        rows,
        fairs,
        notes=notes,
        extra={'commands': commands},
        fmt=nats,
        key='val_loss',
        values=gaps,
        claims=CLAIMS,
        regime=REGIME[args.mode],
    )


if __name__ == '__main__':
    main()

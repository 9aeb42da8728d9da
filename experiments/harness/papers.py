"""
What the papers' text and the authors' code set, for every experiment: the authors' drivers (their
optimizer, initialization, schedule and data regime per script, and their MixiT block), authors()
that turns a variant into train.py's keys as their driver runs it, MixiT as the text writes it,
Table 7's search grids, the retrieval architecture, the softmax scale that stands in for the paper's
width, and the universal transformers' tasks.

The MixiT papers' numbers come from the authors' code (github princeton-pli/MixiT), which differs
from the papers' text in ways that change them. A full protocol follows the code; each experiment's
docstring marks every setting "authors' code" or "paper text".
"""

import math
import sys

if __name__ == '__main__':  # the experiments' code, not a command (alone: an import's traceback)
    print(
        f'error: {__file__} is imported, not run: run an experiment, '
        'python experiments/<paper>/<name>.py, or a tool, python experiments/tools/<name>.py',
        file=sys.stderr,
    )
    sys.exit(2)

import numpy as np

from data import synthetic
from model import GPT, GPTConfig, MixiT, VARIANTS

# ----------------------------------------------------------------------------- the authors' code
# What every driver of theirs sets, for every variant (their Llama path, modeling_llama.py): HF
# Trainer's AdamW with betas (0.9, 0.999); N(0, 0.02) for every weight, no 1/sqrt(2L) on the
# residual projections; biases on the attention and MLP linears; the schedule decays to 0. (HF's
# grad clipping at 1.0 is ours too.) And float32: no driver or script of theirs passes --bf16 or
# --fp16 (HF's TrainingArguments default both to False; their trainer.py and trainer_classifier.py
# leave a half-precision cast commented out), while train.py's dtype='auto' would train in bfloat16
# on a GPU. dtype='bfloat16' among an experiment's keys is the fast option, not their numerics.
AUTHORS = dict(beta1=0.9, beta2=0.999, min_lr=0.0, scaled_init=False, bias=True, dtype='float32')
# MixiT only, their MixiT block (their shaped_attention='mixing'): the LeakyReLU gate with c =
# activation_cminus = -1, residual scaling s = sqrt(0.5), width multipliers at base width 512. Two
# drivers set it otherwise (below).
MIXIT_BLOCK = dict(shaped_gate=-1.0, skip_scaling=0.5**0.5, base_width=512)
# per driver of theirs: weight decay, warm-up, schedule, data regime, and where its MixiT block
# differs. Their README's commands keep c = -1 (scripts/train.sh and train_classifier.sh pass +1,
# the former with depth_alpha=1: another MixiT).
DRIVERS = {
    'depth.py': dict(
        weight_decay=1e-3, warmup_iters=500, lr_schedule='cosine', online=True
    ),  # algorithmic tasks
    'hdmemorize_exp.py': dict(weight_decay=1e-4, warmup_iters=500, lr_schedule='cosine'),  # Table 4
    'modadd_exp.py': dict(
        weight_decay=1e-3, warmup_iters=50, lr_schedule='cosine'
    ),  # modular addition
    'trainer.py': dict(weight_decay=0.01, lr_schedule='linear'),  # language modeling
    'trainer_classifier.py': dict(weight_decay=0.01, lr_schedule='linear', classify=True),  # Yelp
}
MIXIT_DRIVER = {
    'trainer.py': dict(skip_scaling=0.5),  # utils.ScriptArguments' default, which trainer.py passes
    'trainer_classifier.py': dict(base_width=1),
}  # passes no base_hidden_size: the config's 1.0


def authors(driver, variant, **keys):
    """train.py's keys of a run as the authors' `driver` runs `variant`: AUTHORS, the driver's
    settings, MixiT's block for MixiT, then `keys` (the experiment's own: task, architecture,
    budget). Their HF trainers warm up over max(4% of the steps, 500) (utils.TrainingArguments).
    driver None: ours, the variant and `keys` alone (train.py's defaults for the rest), as the quick
    protocols run."""
    if driver is None:
        return {'variant': variant, **keys}
    warmup = (
        {'warmup_iters': max(int(0.04 * keys['max_iters']), 500)}
        if driver.startswith('trainer') and 'max_iters' in keys
        else {}
    )
    mixit = {**MIXIT_BLOCK, **MIXIT_DRIVER.get(driver, {})} if variant == 'mixit' else {}
    return {**AUTHORS, **DRIVERS[driver], **warmup, **mixit, 'variant': variant, **keys}


def plain_mixit(block_size, head_dim):
    """The keys of MixiT as the paper's text writes Eq. 2.3: one std for every head (1/sqrt(m
    head_dim), the authors' GPT-2 path) and no sink head; the mixit variant is their Llama path's
    (model.MixiT)."""
    return dict(variant='mixit', mixit_sink=False, mixit_std=MixiT.fixed_std(block_size, head_dim))


# The grid the paper searches per task family (Table 7; Appendix B.1), for fair.py: a full
# protocol's search
# Table 7, per task family: the full protocol's grid (keys an experiment pins are left out: `fixed`)
TABLE7 = {
    'algorithmic': dict(
        n_layer=(2, 4, 8),
        n_embd=(512, 1024),
        n_head=(4, 8, 16, 64),
        learning_rate=(1e-3, 5e-4, 1e-4),
        batch_size=(128, 256, 512),
    ),
    'retrieval': dict(
        n_layer=(2, 4, 8),
        n_embd=(512, 1024),
        n_head=(4, 8, 16, 64),
        learning_rate=(1e-3, 5e-4, 1e-4),
        batch_size=(256, 512, 1024),
    ),
    'k-hop': dict(
        n_layer=(5,),
        n_embd=(256, 512, 1024),
        n_head=(8,),
        learning_rate=(1e-4, 5e-4),
        batch_size=(128, 256),
    ),
    'memorization': dict(
        n_layer=(2, 4, 8),
        n_embd=(512, 1024),
        n_head=(4, 8, 16, 64),
        learning_rate=(1e-3, 5e-4, 1e-4),
        batch_size=(256, 512, 1024),
    ),
    'yelp': dict(
        n_layer=(4, 8),
        n_embd=(512, 1024),
        n_head=(4, 8, 16, 64),
        learning_rate=(1e-3, 5e-4, 1e-4),
        batch_size=(256, 512, 1024),
    ),
    'language_modeling': dict(
        n_layer=(8, 12),
        n_embd=(512, 1024),
        n_head=(4, 8, 16),
        learning_rate=(1e-3, 5e-4, 1e-4),
        batch_size=(256, 512, 1024),
    ),
}
# The paper's retrieval architecture (Appendix C: 2 layers, width 1024, 4 heads), for induction.py,
# induction_heads_map.py and retrieval_vs_length.py, which add m_max. Full: the budget and lr of the
# authors' depth.py on their condattendstream task, as their scripts run depth.py (none of them
# names the task):
# - learning_rate 1e-2: depth.py's default (line 49, `learning_rate = 1e-2 if arch=='transformer'`),
#   which it hands to HF's TrainingArguments (line 348); scripts/depth_array.sh defines
#   learning_rate=5e-3 but passes it to no command, and depth.sh and the README's depth.py command
#   pass none. Table 8's 1e-4 is the paper text's, chosen for MixiT.
# - batch_size 1000: task_condattendstream.py's per_device_train_batch_size (line 16), which
#   depth.py runs when no batch is passed (the README's command; depth_array.sh passes 128; Table 8
#   says 1,024).
# - 100M examples: depth.py sets max_steps = max_steps * train_size // batch (line 389), with
#   --max_steps=500 (the README's command, depth_array.sh's default) and train_size 200,000
#   (task_condattendstream.py line 21, for its vocabulary 512): 500 x 200,000 = 100M examples,
#   100,000 steps of 1,000 (depth_array.sh: 781,250 of 128).
# - weight decay 1e-3, 500 warm-up steps (task_condattendstream.py lines 7-8): DRIVERS['depth.py'].
#   Ten evaluations (ours; depth.py evaluates every eval_steps, 100 in the README's command).
#   --quick multiplies the softmax scale by 1024 / 128 = 8 (to 1) for every softmax variant: RMSNorm
#   fixes the scale of attention's input, so the largest logit frozen N(0, 0.02^2) W_Q, W_K can give
#   grows with the width (about n 0.02^2 (sqrt(n) + sqrt(d_h))^2 / sqrt(d_h): 2 at width 128 with 2
#   heads, 60 at 1024 with 4), and at width 128 with the default scale Frozen-QK stayed at the
#   plateau of copying any value in the context (at m_max 4 and 8, 1 or 2 heads, lr 1e-3 or 3e-3).
RETRIEVAL = {
    'full': dict(
        vocab=512,
        n_layer=2,
        n_embd=1024,
        n_head=4,
        learning_rate=1e-2,
        batch_size=1000,
        max_iters=100_000,
        eval_interval=10_000,
    ),  # with authors('depth.py', ...): their optimizer; vocab 512: their task's
    'quick': dict(
        vocab=64,
        n_layer=2,
        n_embd=128,
        n_head=2,
        attn_scale=8 / 64**0.5,
        learning_rate=1e-3,
        min_lr=1e-4,
        warmup_iters=50,
        batch_size=128,
        max_iters=500,
        eval_interval=500,
    ),
    'smoke': dict(
        vocab=16,
        n_train=200,
        n_test=20,
        n_layer=2,
        n_embd=16,
        n_head=2,
        learning_rate=1e-3,
        min_lr=1e-4,
        warmup_iters=0,
        batch_size=8,
        max_iters=4,
        eval_interval=4,
    ),
}


def paper_scale(n_embd, n_head, paper_embd):
    """attn_scale for a softmax model at width n_embd that stands in for the paper's width
    paper_embd: the paper's score statistics at a smaller width. RMSNorm fixes attention's input at
    |x|^2 = n, so a score q.k / sqrt(d_h) with frozen N(0, s^2) W_Q, W_K has std n s^2 whatever the
    head width: Frozen-QK's scores shrink with the width (std 0.026 at width 64, 0.2 at 512, from
    N(0, 0.02^2)) and near-uniform attention is an artefact of a small width. Multiplying the scale
    by paper_embd / n_embd restores the paper's spread of frozen scores; every softmax variant gets
    it, so the comparison stays one architecture."""
    return paper_embd / n_embd / (n_embd // n_head) ** 0.5


# ----------------------------------------------------------------------------- quick sizes
# (common's rule)


def digits_for(examples, per_input=1 / 8):
    """The fewest operand digits d whose distinct inputs ((9 * 10^(d-1))^2 pairs) hold `examples` at
    most `per_input` examples each: a stream that, like the paper's (40M sums of 10 digits over
    8.1e19 inputs), seldom repeats an input. The quick protocols of decimal addition size their
    digits by it."""
    return next(d for d in range(1, 20) if examples <= per_input * (9 * 10 ** (d - 1)) ** 2)


def table_size(n_embd, bits):
    """The memorization table size (a multiple of 4) whose size^2 pairs of log2(size) bits need, per
    trainable parameter of the standard model at Table 4's architecture (2 layers, 4 heads, biases,
    vocabulary 2 size) at width n_embd, the bits nearest `bits`: a quick table as hard to store as
    the paper's."""

    def per_param(size):
        model = GPT(
            GPTConfig(
                **VARIANTS['standard'],
                n_layer=2,
                n_head=4,
                n_embd=n_embd,
                bias=True,
                vocab_size=2 * size,
                block_size=3,
            )
        )
        return size**2 * math.log2(size) / model.get_num_params()

    size = 4
    while per_param(size + 4) < bits:  # the bits per parameter grow with the size
        size += 4
    return min(size, size + 4, key=lambda s: abs(per_param(s) - bits))


# --quick of the retrieval comparisons (induction.py, retrieval_vs_length.py; retrieval_vs_length's
# docstring computes it): their task (vocabulary 512) and depth.py's optimizer at width 64, 2 heads
# of 32, the softmax scale of width 1024 (paper_scale); batch 256 (Table 7's smallest), lr 1e-3, 50
# warm-up steps, 350 steps (what 20 minutes allow); 1,000 held-out sequences and a validation tenth
# as large (n_train 10,000); induction_heads_map.py keeps RETRIEVAL's quick
RETRIEVAL_FAIR_QUICK = dict(
    vocab=512,
    n_layer=2,
    n_embd=64,
    n_head=2,
    attn_scale=paper_scale(64, 2, 1024),
    learning_rate=1e-3,
    warmup_iters=50,
    batch_size=256,
    max_iters=350,
    eval_interval=350,
    n_train=10_000,
    n_test=1_000,
)
# --regime of the retrieval comparisons (induction.py, retrieval_vs_length.py and
# induction_heads_map.py; retrieval_vs_length's docstring computes it): the quick setting trained to
# the authors' examples per trained parameter, 100M over the 34.6M of their standard model (2.89):
# 2,240 steps of 256 at width 64 (198,592 parameters), which retrieval_vs_length.per_param_steps
# computes and tests/test_protocols.py checks; quick's 50 warm-up steps (depth.py's 500 would be 22%
# of the run, theirs 0.5%)
RETRIEVAL_REGIME = dict(RETRIEVAL_FAIR_QUICK, max_iters=2_240, eval_interval=2_240)


def retrieval_m_max(paper_m_max, n_embd=64, n_head=2):
    """The m_max at which a head of width n_embd / n_head has the paper's keys per head dimension
    (m_max over 256, its heads' width): a frozen score of rank d_h must single out the queried key
    among m_max."""
    return round(
        paper_m_max
        * (n_embd // n_head)
        / (RETRIEVAL['full']['n_embd'] // RETRIEVAL['full']['n_head'])
    )


def universal_task(task, length, n_test):
    """-> (train.py task keys, vocabulary, sequence length) of 'dyck' (Dyck-1) or 'k-hop' (over 4
    letters, fixed k) in "Fixed universal transformers". Training is online, so the training split
    is only generated: kept small."""
    sizes = dict(n_train=100, n_test=n_test)
    if task == 'dyck':
        return dict(task='dyck', format='text', length=length, **sizes), 4, length + 1
    k = int(task.split('-')[0])
    return (
        dict(task='khop', length=length, letters=4, min_hops=k, max_hops=k, **sizes),
        4 + 2 + k + 1,
        length - 1,
    )


def majority(settings, n=20_000):
    """The accuracy of always answering the task's most frequent scored target, on fresh draws."""
    keys = {k: v for k, v in settings.items() if k not in ('task', 'n_train', 'n_test')}
    y = synthetic.load_task(settings['task']).generate(np.random.default_rng(0), n, **keys)[1]
    return np.bincount(y[y != -1]).max() / (y != -1).sum()

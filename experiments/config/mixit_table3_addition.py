"""
Table 3 of "Is Random Attention Sufficient?" (the MixiT paper), decimal addition (10 digits,
least-significant digit first): the mixit row of experiments/mixit/algorithmic.py's full protocol,
the authors' depth.py settings (papers.authors). The paper's accuracy: standard 98.58, Frozen-QK
100, MixiT 100.

    python train.py experiments/config/mixit_table3_addition.py

The standard transformer and Frozen-QK: mixit_table3_addition_standard.py (their keys lack MixiT's
block). Data: generated on first use; trained online, a fresh batch every step. The learning rate
(and the architecture) is the protocol's point before its search; the experiment searches Table 7's
grid per variant (fair.fair) and trains the best point on 3 seeds.

experiment: algorithmic, task=addition, variant=mixit
"""

# the task (data/<task>/prepare.py)
task = 'addition'
online = True

# the model
variant = 'mixit'
n_layer = 8
n_head = 64
n_embd = 512
block_size = 34
bias = True
scaled_init = False

# MixiT's block as the authors' code runs it (papers.MIXIT_BLOCK, MIXIT_DRIVER)
shaped_gate = -1.0
skip_scaling = 0.7071067811865476  # sqrt(1/2)
base_width = 512

# the optimizer and schedule
learning_rate = 0.01
lr_schedule = 'cosine'
warmup_iters = 500
min_lr = 0.0
weight_decay = 0.001
beta1 = 0.9
beta2 = 0.999
dtype = 'float32'

# the budget
batch_size = 128
max_iters = 312500
eval_interval = 62500
